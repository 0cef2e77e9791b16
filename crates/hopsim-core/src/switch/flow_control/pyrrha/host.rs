//! Hosts obey Pyrrha's frames (§4.4, "Cooperation on end-hosts"): the NIC is the last
//! upstream of every congestion tree, and stops, per flow, the flows whose path crosses a
//! root it was told to stop (as the authors' simulator does: a queue pair is paused while a
//! hop of its path is a paused root). A MERGE lifts both the old and the new root: the
//! switch above has merged the trees and will pause the real root again if it must.

use super::path::walk_onward;
use super::types::RootId;
use crate::ids::PortId;
use crate::topology::routing::{FiveTuple, Routing};
use crate::topology::Topology;

/// The roots each host NIC was told to stop, by NIC port.
#[derive(Clone, Debug, Default)]
pub struct HostPauses {
    paused: Vec<Vec<RootId>>,
}

impl HostPauses {
    pub fn new(ports: usize) -> HostPauses {
        HostPauses { paused: vec![Vec::new(); ports] }
    }

    pub fn pause(&mut self, nic: PortId, root: RootId) {
        let p = &mut self.paused[nic.idx()];
        if !p.contains(&root) {
            p.push(root);
        }
    }

    pub fn resume(&mut self, nic: PortId, root: RootId) {
        self.paused[nic.idx()].retain(|r| *r != root);
    }

    /// The host's link failed: nothing it was told holds any more.
    pub fn clear(&mut self, nic: PortId) {
        self.paused[nic.idx()].clear();
    }

    /// May the NIC on `nic` send a packet of `tuple`: no paused root on its path?
    #[inline]
    pub fn may_send(
        &self,
        nic: PortId,
        tuple: FiveTuple,
        routing: &Routing,
        topo: &Topology,
        adaptive: bool,
    ) -> bool {
        let paused = &self.paused[nic.idx()];
        if paused.is_empty() {
            return true;
        }
        let mut blocked = false;
        walk_onward(routing, topo, nic, tuple, adaptive, |_, port| {
            blocked = port.is_some_and(|p| paused.contains(&p.0));
            blocked
        });
        !blocked
    }

    /// Host NICs with at least one paused root, and those roots.
    pub fn paused_hosts(&self) -> impl Iterator<Item = (PortId, &[RootId])> {
        self.paused
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.is_empty())
            .map(|(i, r)| (PortId(i as u32), r.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;
    use crate::scenario::EcmpHash;
    use crate::time::{Delta, Rate};
    use crate::topology::builders::fat_tree;

    /// §4.4: a NIC told to stop root R stops exactly its flows whose onward path crosses R;
    /// RESUME (or a failed link) lifts it. Under a per-packet load balancer (§4.2, with
    /// DRILL) only the last hop of a path is known, so only a root there stops a flow.
    #[test]
    fn a_nic_stops_exactly_the_flows_crossing_a_paused_root() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        let r = Routing::new(&t, EcmpHash::Mix, 3);
        let to = |dst: u32| FiveTuple { src: NodeId(0), dst: NodeId(dst), sport: 10_000, dport: 100 };
        let path = r.path_of(&t, to(15));
        let (nic, core_down, last) = (path[0], path[3], *path.last().expect("a path"));
        let elsewhere = (1..15).find(|d| !r.path_of(&t, to(*d)).contains(&core_down)).expect("another path");
        let mut hosts = HostPauses::new(t.ports.len());
        let may = |h: &HostPauses, dst: u32, adaptive: bool| h.may_send(nic, to(dst), &r, &t, adaptive);
        assert!(may(&hosts, 15, false));
        hosts.pause(nic, core_down.0);
        assert!(!may(&hosts, 15, false), "its path crosses the paused core port");
        assert!(may(&hosts, elsewhere, false), "host {elsewhere}'s does not");
        assert!(may(&hosts, 15, true), "per-packet balancing: the core port is not known in advance");
        hosts.pause(nic, last.0);
        assert!(!may(&hosts, 15, true), "the last hop is");
        hosts.resume(nic, core_down.0);
        hosts.resume(nic, last.0);
        assert!(may(&hosts, 15, false));
        assert_eq!(hosts.paused_hosts().count(), 0);
        hosts.pause(nic, last.0);
        hosts.clear(nic);
        assert!(may(&hosts, 15, false), "its link failed: nothing holds");
    }
}
