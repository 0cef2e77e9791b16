//! How a fabric is cut for the parallel engine: without its top tier of switches (a
//! fat-tree's cores, a leaf-spine's spines) a datacenter network falls apart into groups,
//! pods or racks, the units partitions are made of (`sim::parallel`, docs/parallel.md).

use crate::ids::NodeId;
use crate::scenario::ScenarioError;

use super::{Tier, Topology};

/// The groups a network falls apart into without its top tier of switches (pods of a
/// fat-tree, racks of a leaf-spine), each with its host count, largest first; and which
/// nodes are that top tier. Refuses more partitions than groups, naming `engine.threads`.
#[allow(clippy::type_complexity)]
pub fn groups(topo: &Topology, parts: usize) -> Result<(Vec<(usize, Vec<usize>)>, Vec<bool>), ScenarioError> {
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
    fn find(root: &mut [usize], mut i: usize) -> usize {
        while root[i] != i {
            root[i] = root[root[i]];
            i = root[i];
        }
        i
    }
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
            "engine.threads",
            format!(
                "expected at most {} threads: without its top tier of switches this network falls apart into \
                 {} groups (pods or racks), the units partitions are made of",
                hosts_in.len(),
                hosts_in.len()
            ),
        ));
    }
    let mut groups: Vec<(usize, Vec<usize>)> = hosts_in.into_values().collect();
    groups.sort_by(|a, b| b.0.cmp(&a.0).then(a.1[0].cmp(&b.1[0])));
    Ok((groups, is_top))
}

fn tier_rank(t: Tier) -> u8 {
    match t {
        Tier::Host => 0,
        Tier::Tor => 1,
        Tier::Agg | Tier::Spine => 2,
        Tier::Core => 3,
    }
}
