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
