//! Builders for the standard fabrics. Hosts are numbered first (0 .. hosts), then
//! switches, so host ids in a scenario are simply 0-based host numbers.

use super::{check_route_entries, check_size, read_hpcc_topology, LinkSpec, NodeKind, Topology};
use crate::ids::NodeId;
use crate::scenario::{
    DumbbellSpec, FatTreeSpec, LeafSpineSpec, ScenarioError, TopologyFileSpec, TopologySpec,
};
use crate::time::{Delta, Rate};

/// Build the topology a scenario describes.
pub fn build(spec: &TopologySpec) -> Result<Topology, ScenarioError> {
    match spec {
        TopologySpec::LeafSpine(LeafSpineSpec {
            spines,
            leaves,
            hosts_per_leaf,
            host_rate,
            fabric_rate,
            host_delay,
            fabric_delay,
            links_per_spine,
        }) => {
            positive("topology.spines", *spines)?;
            positive("topology.leaves", *leaves)?;
            positive("topology.hosts_per_leaf", *hosts_per_leaf)?;
            positive("topology.links_per_spine", *links_per_spine)?;
            positive_rate("topology.host_rate", host_rate.0)?;
            positive_rate("topology.fabric_rate", fabric_rate.0)?;
            let hosts = *leaves as u64 * *hosts_per_leaf as u64;
            let fabric_links = (*leaves as u64 * *spines as u64).saturating_mul(*links_per_spine as u64);
            fits(hosts, *leaves as u64 + *spines as u64, hosts.saturating_add(fabric_links))?;
            Ok(leaf_spine(
                *spines,
                *leaves,
                *hosts_per_leaf,
                *links_per_spine,
                (host_rate.0, host_delay.0),
                (fabric_rate.0, fabric_delay.0),
            ))
        }
        TopologySpec::FatTree(FatTreeSpec { k, host_rate, fabric_rate, delay }) => {
            if *k < 2 || k % 2 != 0 {
                return Err(ScenarioError::field(
                    "topology.k",
                    format!("expected an even number ≥ 2, got {k}"),
                ));
            }
            positive_rate("topology.host_rate", host_rate.0)?;
            positive_rate("topology.fabric_rate", fabric_rate.0)?;
            let k = *k as u64;
            fits(k * k * k / 4, 5 * k * k / 4, 3 * k * k * k / 4)?;
            Ok(fat_tree(k as u32, host_rate.0, fabric_rate.0, delay.0))
        }
        TopologySpec::Dumbbell(DumbbellSpec {
            left_hosts,
            right_hosts,
            host_rate,
            bottleneck_rate,
            delay,
        }) => {
            positive("topology.left_hosts", *left_hosts)?;
            positive("topology.right_hosts", *right_hosts)?;
            positive_rate("topology.host_rate", host_rate.0)?;
            positive_rate("topology.bottleneck_rate", bottleneck_rate.0)?;
            let hosts = *left_hosts as u64 + *right_hosts as u64;
            fits(hosts, 2, hosts + 1)?;
            Ok(dumbbell(*left_hosts, *right_hosts, host_rate.0, bottleneck_rate.0, delay.0))
        }
        TopologySpec::File(TopologyFileSpec { file, .. }) => read_hpcc_topology(file),
    }
}

/// Refuse a built topology too large to hold (counts computed without overflow).
fn fits(hosts: u64, switches: u64, links: u64) -> Result<(), ScenarioError> {
    check_size(hosts + switches, links)
        .and_then(|()| check_route_entries(hosts, switches))
        .map_err(|m| ScenarioError::field("topology", m))
}

fn positive(field: &str, v: u32) -> Result<(), ScenarioError> {
    if v == 0 {
        return Err(ScenarioError::field(field, "expected a positive number, got 0"));
    }
    Ok(())
}

fn positive_rate(field: &str, r: Rate) -> Result<(), ScenarioError> {
    if r.0 == 0 {
        return Err(ScenarioError::field(field, "expected a positive rate, got 0"));
    }
    Ok(())
}

fn finish(kinds: Vec<NodeKind>, links: &[LinkSpec]) -> Topology {
    Topology::from_links(kinds, links, "topology").expect("builders make connected topologies")
}

fn kinds(hosts: u32, switches: u32) -> Vec<NodeKind> {
    let mut k = vec![NodeKind::Host; hosts as usize];
    k.extend(std::iter::repeat_n(NodeKind::Switch, switches as usize));
    k
}

/// Two-tier leaf-spine: leaves `H .. H+L`, spines after them.
pub fn leaf_spine(
    spines: u32,
    leaves: u32,
    hosts_per_leaf: u32,
    links_per_spine: u32,
    (host_rate, host_delay): (Rate, Delta),
    (fabric_rate, fabric_delay): (Rate, Delta),
) -> Topology {
    let hosts = leaves * hosts_per_leaf;
    let leaf = |l: u32| NodeId(hosts + l);
    let spine = |s: u32| NodeId(hosts + leaves + s);
    let mut links = Vec::new();
    for h in 0..hosts {
        links.push(LinkSpec {
            a: NodeId(h),
            b: leaf(h / hosts_per_leaf),
            rate: host_rate,
            delay: host_delay,
        });
    }
    for l in 0..leaves {
        for s in 0..spines {
            for _ in 0..links_per_spine {
                links.push(LinkSpec { a: leaf(l), b: spine(s), rate: fabric_rate, delay: fabric_delay });
            }
        }
    }
    finish(kinds(hosts, leaves + spines), &links)
}

/// k-ary fat-tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)² cores.
pub fn fat_tree(k: u32, host_rate: Rate, fabric_rate: Rate, delay: Delta) -> Topology {
    let half = k / 2;
    let hosts = k * half * half;
    let edges = k * half;
    let aggs = k * half;
    let cores = half * half;
    let edge = |pod: u32, i: u32| NodeId(hosts + pod * half + i);
    let agg = |pod: u32, i: u32| NodeId(hosts + edges + pod * half + i);
    let core = |i: u32| NodeId(hosts + edges + aggs + i);
    let mut links = Vec::new();
    for h in 0..hosts {
        let e = h / half;
        links.push(LinkSpec { a: NodeId(h), b: edge(e / half, e % half), rate: host_rate, delay });
    }
    for pod in 0..k {
        for e in 0..half {
            for a in 0..half {
                links.push(LinkSpec { a: edge(pod, e), b: agg(pod, a), rate: fabric_rate, delay });
            }
        }
        for a in 0..half {
            for c in 0..half {
                links.push(LinkSpec { a: agg(pod, a), b: core(a * half + c), rate: fabric_rate, delay });
            }
        }
    }
    finish(kinds(hosts, edges + aggs + cores), &links)
}

/// Dumbbell: left hosts on switch L, right hosts on switch R, one L–R bottleneck link.
pub fn dumbbell(left: u32, right: u32, host_rate: Rate, bottleneck_rate: Rate, delay: Delta) -> Topology {
    let hosts = left + right;
    let sw_l = NodeId(hosts);
    let sw_r = NodeId(hosts + 1);
    let mut links = Vec::new();
    for h in 0..hosts {
        let sw = if h < left { sw_l } else { sw_r };
        links.push(LinkSpec { a: NodeId(h), b: sw, rate: host_rate, delay });
    }
    links.push(LinkSpec { a: sw_l, b: sw_r, rate: bottleneck_rate, delay });
    finish(kinds(hosts, 2), &links)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Tier;

    #[test]
    fn fat_tree_k4_has_the_textbook_shape() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        assert_eq!(t.hosts.len(), 16);
        assert_eq!(t.node_count(), 16 + 8 + 8 + 4);
        assert_eq!(t.tiers.iter().filter(|x| **x == Tier::Core).count(), 4);
        assert_eq!(t.tiers.iter().filter(|x| **x == Tier::Tor).count(), 8);
        // every switch has k ports
        for n in 16..36 {
            assert_eq!(t.ports_of(NodeId(n)).len(), 4);
        }
    }

    #[test]
    fn topologies_too_large_to_hold_are_refused_before_building() {
        use crate::scenario::Scenario;
        for (topology, want) in [
            ("kind = \"fat_tree\"\nk = 65536", "topology: 70,374,112,886,784 nodes is more than"),
            ("kind = \"fat_tree\"\nk = 256", "topology: 4,276,224 nodes is more than"),
            ("kind = \"fat_tree\"\nk = 128", "topology: 524,288 hosts × 20,480 switches"),
            (
                "kind = \"leaf_spine\"\nspines = 4294967295\nleaves = 4294967295\nhosts_per_leaf = 1",
                "topology: 12,884,901,885 nodes",
            ),
            (
                "kind = \"dumbbell\"\nleft_hosts = 4294967295\nright_hosts = 4294967295",
                "topology: 8,589,934,592",
            ),
        ] {
            let text = format!("[topology]\n{topology}\n[workload]\nkind = \"permutation\"\nsize = 1000\n");
            let s = Scenario::from_toml_str(&text).unwrap();
            let e = build(&s.topology).unwrap_err().to_string();
            assert!(e.starts_with(want), "{e} does not start with {want}");
        }
    }

    #[test]
    fn leaf_spine_tiers() {
        let t = leaf_spine(4, 10, 16, 1, (Rate::gbps(100), Delta::ZERO), (Rate::gbps(400), Delta::ZERO));
        assert_eq!(t.hosts.len(), 160);
        assert_eq!(t.tiers[160], Tier::Tor);
        assert_eq!(t.tiers[170], Tier::Spine, "a leaf-spine's spines top the fabric");
    }

    #[test]
    fn a_fat_trees_middle_tier_is_aggregation() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        assert_eq!(t.tiers.iter().filter(|x| **x == Tier::Agg).count(), 8);
        assert!(!t.tiers.contains(&Tier::Spine), "a fat-tree has cores above its aggregation");
    }
}
