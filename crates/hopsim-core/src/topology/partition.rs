//! How a network is cut for the parallel engine (`sim::parallel`, docs/parallel.md).
//!
//! A datacenter fabric falls apart without its top tier of switches (a fat-tree's cores, a
//! leaf-spine's spines) into pods or racks: those are the units partitions are made of, and
//! the top tier is dealt round robin. Any other network (a dumbbell, a ring, a topology
//! file whose top tier leaves lone hosts or one piece) is cut by a general balanced
//! min-cut: hosts and zero-delay links kept with their switch, regions grown breadth-first
//! one partition at a time to equal shares of the weight (a switch 1, a host 2 plus the
//! packets its flows send and receive when the run gives them), then
//! switches moved one at a time to the partition they have the most links to while the cut
//! shrinks and the weights stay balanced (greedy passes in the manner of
//! Fiduccia–Mattheyses).

use crate::ids::NodeId;
use crate::scenario::ScenarioError;

use super::{Tier, Topology};

/// Which partition (of `parts`) simulates each node: by pods or racks when the network
/// falls apart into them without its top tier, else by [`min_cut`]. Refuses more
/// partitions than pods or racks (or than switches), naming `field` (`engine.threads` or
/// `engine.partitions`, whichever asked for them).
pub fn cut(topo: &Topology, parts: usize, field: &str) -> Result<Vec<u32>, ScenarioError> {
    cut_by_work(topo, parts, field, None)
}

/// [`cut`], with pods or racks dealt by the work their hosts' flows bring (`host_work`, by
/// node index: e.g. packets sent and received) rather than by their host counts: an incast
/// into one pod makes that pod the heavy one. Largest first, each to the partition with
/// the least work so far (Graham's longest-processing-time rule); a group's work is its
/// hosts' plus one packet per host, so idle pods still spread.
pub fn cut_by_work(
    topo: &Topology,
    parts: usize,
    field: &str,
    host_work: Option<&[u64]>,
) -> Result<Vec<u32>, ScenarioError> {
    let n = topo.node_count();
    let has_switch = |members: &[usize]| members.iter().any(|&m| !topo.is_host(NodeId(m as u32)));
    match groups(topo, parts, field) {
        Ok((groups, is_top)) if groups.len() > 1 && groups.iter().all(|g| has_switch(&g.1)) => {
            let work = |(hosts, members): &(usize, Vec<usize>)| -> u64 {
                let traffic: u64 = host_work.map_or(0, |w| members.iter().map(|&m| w[m]).sum());
                traffic + (*hosts).max(1) as u64
            };
            let mut groups: Vec<(u64, (usize, Vec<usize>))> =
                groups.into_iter().map(|g| (work(&g), g)).collect();
            // Heaviest first; ties in the order `groups` gave (most hosts, lowest node).
            groups.sort_by_key(|g| std::cmp::Reverse(g.0));
            let mut load = vec![0u64; parts];
            let mut part_of = vec![0u32; n];
            for (work, (_, members)) in groups {
                let p = (0..parts).min_by_key(|&p| (load[p], p)).expect("parts > 0");
                load[p] += work;
                for m in members {
                    part_of[m] = p as u32;
                }
            }
            for (k, i) in (0..n).filter(|&i| is_top[i]).enumerate() {
                part_of[i] = (k % parts) as u32;
            }
            Ok(part_of)
        }
        Err(e) if pods_or_racks(topo, &has_switch) => Err(e),
        _ => min_cut(topo, parts, field, host_work),
    }
}

/// What `field` counts, for its messages.
fn noun(field: &str) -> &'static str {
    if field.ends_with("partitions") {
        "partitions"
    } else {
        "threads"
    }
}

/// Whether the network falls apart into at least two pods or racks (groups with a switch
/// each) without its top tier: they are then the units, however many threads are asked.
fn pods_or_racks(topo: &Topology, has_switch: &dyn Fn(&[usize]) -> bool) -> bool {
    groups(topo, 1, "engine.threads").is_ok_and(|(g, _)| g.len() > 1 && g.iter().all(|g| has_switch(&g.1)))
}

/// A balanced min-cut of any connected network into `parts` partitions (see the module
/// doc), balancing weight: a switch 1, a host 2 plus its `host_work` (as in
/// [`cut_by_work`]). Deterministic: every order is by node id or port order.
pub fn min_cut(
    topo: &Topology,
    parts: usize,
    field: &str,
    host_work: Option<&[u64]>,
) -> Result<Vec<u32>, ScenarioError> {
    let n = topo.node_count();
    let peer_node = |p: usize| topo.ports[topo.ports[p].peer.idx()].node.idx();
    // Units: a switch with its hosts, and with whatever a zero-delay link joins it to (no
    // lookahead across it). Union-find, the lowest id the root.
    let mut root: Vec<usize> = (0..n).collect();
    for (p, spec) in topo.ports.iter().enumerate() {
        let (a, b) = (spec.node.idx(), peer_node(p));
        if topo.is_host(spec.node) || spec.delay.0 == 0 {
            let (ra, rb) = (find(&mut root, a), find(&mut root, b));
            if ra != rb {
                root[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let unit: Vec<usize> = (0..n).map(|i| find(&mut root, i)).collect();
    let units: Vec<usize> = (0..n).filter(|&i| unit[i] == i).collect();
    if units.len() < parts {
        return Err(ScenarioError::field(
            field,
            format!(
                "expected at most {} {}: this network has {} switches (with their hosts and \
                 zero-delay links), the smallest units a partition is made of",
                units.len(),
                noun(field),
                units.len()
            ),
        ));
    }
    let mut weight = vec![0u64; n];
    for i in 0..n {
        let host = topo.is_host(NodeId(i as u32));
        let work = if host { host_work.map_or(0, |w| w[i]) } else { 0 };
        weight[unit[i]] += 1 + host as u64 + work;
    }
    // Links between units, each direction once per port (symmetric).
    let mut links: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (p, spec) in topo.ports.iter().enumerate() {
        let (a, b) = (unit[spec.node.idx()], unit[peer_node(p)]);
        if a != b {
            links[a].push(b);
        }
    }
    // Regions grown breadth-first, one partition at a time, each to its share of the
    // weight still unassigned (a unit joins when it brings the region nearer that share,
    // so a heavy neighbour is left to a later region rather than overshooting): the
    // first from the lowest unit, each next one from the lowest unassigned neighbour of
    // the one before (else the lowest unassigned unit); the last takes the rest.
    const NONE: usize = usize::MAX;
    let total: u64 = units.iter().map(|&u| weight[u]).sum();
    let mut part = vec![NONE; n];
    let mut part_weight = vec![0u64; parts];
    let (mut left_weight, mut left_units) = (total, units.len());
    let mut region: Vec<usize> = Vec::new();
    for (p, part_weight) in part_weight.iter_mut().enumerate() {
        let seed = region
            .iter()
            .flat_map(|&u| links[u].iter().copied())
            .filter(|&v| part[v] == NONE)
            .min()
            .or_else(|| units.iter().copied().find(|&u| part[u] == NONE))
            .expect("a unit left for every partition");
        let target = left_weight / (parts - p) as u64;
        region.clear();
        region.push(seed);
        part[seed] = p;
        let mut next = 0;
        let mut grown = weight[seed];
        while next < region.len() {
            let u = region[next];
            next += 1;
            for &v in &links[u] {
                let last = p == parts - 1;
                let room = left_units - region.len() > parts - p - 1;
                let nearer = grown < target && weight[v] < 2 * (target - grown);
                if part[v] == NONE && (last || (nearer && room)) {
                    part[v] = p;
                    grown += weight[v];
                    region.push(v);
                }
            }
        }
        if p == parts - 1 {
            // A last region that breadth-first search could not reach whole.
            for &u in &units {
                if part[u] == NONE {
                    part[u] = p;
                    grown += weight[u];
                    region.push(u);
                }
            }
        }
        *part_weight = grown;
        left_weight -= grown;
        left_units -= region.len();
    }
    // Greedy refinement: move a unit to the partition it has the most links to, while
    // that shrinks the cut, keeps its own partition non-empty and the weights within
    // a tolerance of the mean (the heaviest unit, or 5 %).
    let mean = total / parts as u64;
    let heaviest = units.iter().map(|&u| weight[u]).max().unwrap_or(1);
    let slack = heaviest.max(mean / 20);
    let mut members = vec![0usize; parts];
    for &u in &units {
        members[part[u]] += 1;
    }
    let mut toward = vec![0i64; parts];
    for _pass in 0..16 {
        let mut moved = false;
        for &u in &units {
            let a = part[u];
            toward.iter_mut().for_each(|t| *t = 0);
            for &v in &links[u] {
                toward[part[v]] += 1;
            }
            let best = (0..parts).filter(|&q| q != a).max_by_key(|&q| (toward[q], std::cmp::Reverse(q)));
            let Some(q) = best else { continue };
            let fits = part_weight[q] + weight[u] <= mean + slack
                && part_weight[a] - weight[u] + slack >= mean
                && members[a] > 1;
            if toward[q] > toward[a] && fits {
                part[u] = q;
                part_weight[a] -= weight[u];
                part_weight[q] += weight[u];
                members[a] -= 1;
                members[q] += 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    Ok((0..n).map(|i| part[unit[i]] as u32).collect())
}

/// The groups a network falls apart into without its top tier of switches (pods of a
/// fat-tree, racks of a leaf-spine), each with its host count, largest first; and which
/// nodes are that top tier. Refuses more partitions than groups, naming `field`.
#[allow(clippy::type_complexity)]
fn groups(
    topo: &Topology,
    parts: usize,
    field: &str,
) -> Result<(Vec<(usize, Vec<usize>)>, Vec<bool>), ScenarioError> {
    let n = topo.node_count();
    let top = (0..n)
        .filter(|&i| !topo.is_host(NodeId(i as u32)))
        .map(|i| tier_rank(topo.tiers[i]))
        .max()
        .unwrap_or(0);
    let is_top: Vec<bool> =
        (0..n).map(|i| !topo.is_host(NodeId(i as u32)) && tier_rank(topo.tiers[i]) == top).collect();
    // Components of the fabric without its top tier (union-find).
    let mut root: Vec<usize> = (0..n).collect();
    for p in &topo.ports {
        let (a, b) = (p.node.idx(), topo.ports[p.peer.idx()].node.idx());
        if is_top[a] || is_top[b] {
            continue;
        }
        let (ra, rb) = (find(&mut root, a), find(&mut root, b));
        if ra != rb {
            root[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut hosts_in: std::collections::BTreeMap<usize, (usize, Vec<usize>)> = Default::default();
    for i in (0..n).filter(|&i| !is_top[i]) {
        let r = find(&mut root, i);
        let e = hosts_in.entry(r).or_default();
        e.0 += topo.is_host(NodeId(i as u32)) as usize;
        e.1.push(i);
    }
    if hosts_in.len() < parts {
        return Err(ScenarioError::field(
            field,
            format!(
                "expected at most {} {}: without its top tier of switches this network falls apart into \
                 {} groups (pods or racks), the units partitions are made of",
                hosts_in.len(),
                noun(field),
                hosts_in.len()
            ),
        ));
    }
    let mut groups: Vec<(usize, Vec<usize>)> = hosts_in.into_values().collect();
    groups.sort_by(|a, b| b.0.cmp(&a.0).then(a.1[0].cmp(&b.1[0])));
    Ok((groups, is_top))
}

/// The root of `i`'s set in a union-find forest (halving the path on the way).
fn find(root: &mut [usize], mut i: usize) -> usize {
    while root[i] != i {
        root[i] = root[root[i]];
        i = root[i];
    }
    i
}

fn tier_rank(t: Tier) -> u8 {
    match t {
        Tier::Host => 0,
        Tier::Tor => 1,
        Tier::Agg | Tier::Spine => 2,
        Tier::Core => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Delta, Rate};
    use crate::topology::builders::{dumbbell, fat_tree};
    use crate::topology::{LinkSpec, NodeKind};

    /// Links whose ends sit in different partitions.
    fn cut_links(topo: &Topology, part_of: &[u32]) -> usize {
        let cut = topo
            .ports
            .iter()
            .filter(|p| part_of[p.node.idx()] != part_of[topo.ports[p.peer.idx()].node.idx()]);
        cut.count() / 2
    }

    /// `switches` switches in a ring, each with `hosts` hosts (hosts first, then switches).
    fn ring(switches: u32, hosts: u32) -> Topology {
        let n_hosts = switches * hosts;
        let mut kinds = vec![NodeKind::Host; n_hosts as usize];
        kinds.extend(std::iter::repeat_n(NodeKind::Switch, switches as usize));
        let link = |a: u32, b: u32| LinkSpec {
            a: NodeId(a),
            b: NodeId(b),
            rate: Rate::gbps(100),
            delay: Delta::from_us(1),
        };
        let mut links: Vec<LinkSpec> = (0..n_hosts).map(|h| link(h, n_hosts + h / hosts)).collect();
        links.extend((0..switches).map(|s| link(n_hosts + s, n_hosts + (s + 1) % switches)));
        Topology::from_links(kinds, &links, "topology").expect("a ring")
    }

    /// Pods are dealt by their hosts' traffic: with an incast into pod 0 (its hosts
    /// receiving three times what any other pod's send), two partitions give pod 0 one of
    /// its own and the three others the second, where dealing by host count pairs pod 0
    /// with another pod (the heavier partition then does 4 / 3 of its share).
    #[test]
    fn pods_are_dealt_by_the_traffic_of_their_hosts() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        let mut work = vec![0u64; t.node_count()];
        for (i, h) in t.hosts.iter().enumerate() {
            work[h.idx()] = if i < 4 { 300 } else { 100 };
        }
        let hosts_with = |part_of: &[u32], p: u32| t.hosts.iter().filter(|h| part_of[h.idx()] == p).count();
        let by_work = cut_by_work(&t, 2, "engine.threads", Some(&work)).expect("two partitions");
        let pod0 = by_work[t.hosts[0].idx()];
        assert_eq!(hosts_with(&by_work, pod0), 4, "pod 0 alone: {by_work:?}");
        assert_eq!(hosts_with(&by_work, 1 - pod0), 12);
        let by_hosts = cut(&t, 2, "engine.threads").expect("two partitions");
        assert_eq!(hosts_with(&by_hosts, by_hosts[t.hosts[0].idx()]), 8, "by host count: two pods each");
    }

    #[test]
    fn a_fat_tree_is_cut_by_pod_and_refuses_more_threads_than_pods() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        let part_of = cut(&t, 4, "engine.threads").expect("four pods");
        for h in &t.hosts {
            let tor = t.ports[t.ports[t.node_ports[h.idx()] as usize].peer.idx()].node;
            assert_eq!(part_of[h.idx()], part_of[tor.idx()], "a host stays with its ToR");
        }
        let e = cut(&t, 5, "engine.threads").unwrap_err().to_string();
        assert!(e.contains("engine.threads") && e.contains("at most 4"), "{e}");
    }

    #[test]
    fn a_dumbbell_is_cut_at_its_bottleneck() {
        let t = dumbbell(8, 8, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        let part_of = cut(&t, 2, "engine.threads").expect("two switches");
        assert_eq!(cut_links(&t, &part_of), 1, "only the bottleneck link is cut: {part_of:?}");
        let e = cut(&t, 3, "engine.threads").unwrap_err().to_string();
        assert!(e.contains("engine.threads") && e.contains("at most 2"), "{e}");
    }

    #[test]
    fn a_ring_is_cut_into_balanced_arcs() {
        let t = ring(12, 4);
        for parts in [2, 3, 4] {
            let part_of = cut(&t, parts, "engine.threads").expect("a ring");
            assert_eq!(cut_links(&t, &part_of), parts, "{parts} arcs: {part_of:?}");
            let mut hosts = vec![0; parts];
            for h in &t.hosts {
                hosts[part_of[h.idx()] as usize] += 1;
            }
            assert!(hosts.iter().all(|&h| h == 48 / parts), "balanced: {hosts:?}");
            assert_eq!(part_of, cut(&t, parts, "engine.threads").unwrap(), "deterministic");
        }
    }

    /// The general min-cut balances traffic too: on a ring of eight switches whose two
    /// adjacent switches 0 and 1 carry nearly all the traffic, two partitions put them
    /// apart (each partition half the work), where weighing hosts alone puts them in
    /// one arc doing nearly all of it.
    #[test]
    fn the_min_cut_balances_the_traffic_of_hosts() {
        let t = ring(8, 4);
        let mut work = vec![0u64; t.node_count()];
        for (h, w) in work.iter_mut().enumerate().take(32) {
            *w = if h < 8 { 100 } else { 1 };
        }
        let share = |part_of: &[u32]| {
            let mut w = [0u64; 2];
            for h in 0..32 {
                w[part_of[h] as usize] += work[h];
            }
            *w.iter().max().unwrap() as f64 / w.iter().sum::<u64>() as f64
        };
        let by_work = cut_by_work(&t, 2, "engine.threads", Some(&work)).expect("a ring");
        assert_ne!(by_work[0], by_work[4], "switches 0 and 1 apart: {by_work:?}");
        assert!(share(&by_work) < 0.55, "{by_work:?}");
        assert_eq!(cut_links(&t, &by_work), 2, "still two arcs");
        let by_hosts = cut(&t, 2, "engine.threads").expect("a ring");
        assert!(share(&by_hosts) > 0.9, "by hosts alone: {by_hosts:?}");
    }

    #[test]
    fn zero_delay_links_are_never_cut() {
        let mut t = ring(4, 2);
        // The link between switches 8 and 9 has no delay: no lookahead across it.
        for p in 0..t.ports.len() {
            let (a, b) = (t.ports[p].node.0, t.ports[t.ports[p].peer.idx()].node.0);
            if (a, b) == (8, 9) || (a, b) == (9, 8) {
                t.ports[p].delay = Delta::ZERO;
            }
        }
        for parts in [2, 3] {
            let part_of = cut(&t, parts, "engine.threads").expect("a ring");
            assert_eq!(part_of[8], part_of[9], "{parts}: {part_of:?}");
        }
        let e = cut(&t, 4, "engine.threads").unwrap_err().to_string();
        assert!(e.contains("at most 3"), "{e}");
    }
}
