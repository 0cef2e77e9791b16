//! Hash-aware onward paths (Pyrrha §4.2, "Determining a flow's exact path"): a switch
//! knows the hash function and seed of every switch downstream, so it can replay their ECMP
//! choices and tell which egress ports a packet will leave from after this one. hopsim's
//! routing replays them exactly (`Routing::select`, as `path_of` does), over the links
//! alive now, so the walk follows reroutes after a link failure (Appendix A).
//!
//! Under a per-packet load balancer (DRILL, §6.3 Fig 16) a hop with several next hops is
//! chosen at run time: from there on a port is unknown, except the last one — the port
//! down to the destination host, the same on every path — which is what lets Pyrrha with
//! DRILL still isolate incast (§4.2: "a complementary solution to handle the hotspots
//! caused by destination collision").

use crate::ids::PortId;
use crate::topology::routing::{FiveTuple, Routing};
use crate::topology::Topology;

/// Calls `visit(distance, port)` for each egress port a packet of `tuple` leaves from
/// after `from` — distance 1 is the egress of the next switch — with `None` for a port an
/// adaptive load balancer picks per packet; stops when `visit` returns true or the path
/// ends (at the destination, or where failed links cut it).
pub fn walk_onward(
    routing: &Routing,
    topo: &Topology,
    from: PortId,
    tuple: FiveTuple,
    adaptive: bool,
    mut visit: impl FnMut(u8, Option<PortId>) -> bool,
) {
    let mut node = topo.ports[topo.ports[from.idx()].peer.idx()].node;
    let mut distance = 0u8;
    let mut known = true;
    while node != tuple.dst && distance < u8::MAX {
        distance += 1;
        let hops = routing.table.next_hops(node, tuple.dst);
        let port = match hops.len() {
            0 => return,
            1 => hops[0],
            _ if !known => hops[0],
            _ if adaptive => {
                known = false;
                hops[0]
            }
            _ => routing.select(node, tuple),
        };
        let peer = topo.ports[topo.ports[port.idx()].peer.idx()].node;
        if visit(distance, (known || peer == tuple.dst).then_some(port)) {
            return;
        }
        node = peer;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;
    use crate::scenario::EcmpHash;
    use crate::time::{Delta, Rate};
    use crate::topology::builders::fat_tree;

    /// The walk from a flow's first switch port replays `path_of` exactly; with an
    /// adaptive load balancer only the last port is known.
    #[test]
    fn the_walk_replays_the_ecmp_path() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        let r = Routing::new(&t, EcmpHash::Mix, 3);
        for sport in 0..32 {
            let tuple = FiveTuple { src: NodeId(0), dst: NodeId(15), sport, dport: 100 };
            let path = r.path_of(&t, tuple);
            let mut seen = Vec::new();
            walk_onward(&r, &t, path[1], tuple, false, |d, p| {
                seen.push((d, p.unwrap()));
                false
            });
            let expect: Vec<(u8, PortId)> =
                path[2..].iter().enumerate().map(|(i, p)| (i as u8 + 1, *p)).collect();
            assert_eq!(seen, expect);
            let mut adaptive = Vec::new();
            walk_onward(&r, &t, path[1], tuple, true, |d, p| {
                adaptive.push((d, p));
                false
            });
            assert_eq!(adaptive.len(), 4);
            assert!(adaptive[..3].iter().all(|(_, p)| p.is_none()), "chosen per packet: unknown");
            assert_eq!(adaptive[3], (4, Some(*path.last().unwrap())), "the last hop is known");
        }
    }
}
