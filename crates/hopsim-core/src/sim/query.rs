//! Read-only views of a run for tests and reports: per-switch drops, PFC ingress state,
//! what flow control still holds.

use super::Simulator;
use crate::ids::{NodeId, PortId};
use crate::metrics::Drops;
use crate::switch::flow_control::per_flow::PerFlow;
use crate::switch::flow_control::pfc::Pfc;
use crate::switch::FlowControl;

impl Simulator {
    /// The run-wide counters (events, packet-hops, drops, marks, ...).
    pub fn counters(&self) -> &crate::metrics::Counters {
        &self.fab.counters
    }

    /// Switch `node`'s drop counters (for tests and reports).
    pub fn switch_drops(&self, node: NodeId) -> Drops {
        self.switches.nodes[self.fab.node_slot[node.idx()] as usize].drops
    }

    /// Whether ingress `(port, priority)` of a switch is currently holding its upstream paused.
    pub fn ingress_paused(&self, port: PortId, priority: u8) -> bool {
        let sw = self.fab.switch_of(port);
        let first = self.switches.nodes[sw].first_port;
        self.switches.fc.get::<Pfc>().is_some_and(|pfc| pfc.states[sw].is_paused(port.0 - first, priority))
    }

    /// Per-flow entries (queues and pause states) still held, under per-flow flow control
    /// (0 once the network drained).
    pub fn per_flow_entries(&self) -> Option<usize> {
        self.switches.fc.get::<PerFlow>().map(|f| f.entries())
    }

    /// State a per-flow, BFC or Pyrrha run still holds — queues, pause states and counters,
    /// congestion trees (0 once the network drained; `None` under PFC or none).
    pub fn flow_control_held(&self) -> Option<usize> {
        self.switches.fc.held()
    }

    /// The flow-control policy's own counters, by name.
    pub fn flow_control_counters(&self) -> Vec<(&'static str, u64)> {
        if let Some(j) = self.par.as_ref().and_then(|g| g.joined.as_ref()) {
            return j.flow_control_counters.clone();
        }
        self.switches.fc.counters()
    }

    /// The flow-control policy (read-only), e.g. for Pyrrha's isolation-queue log.
    pub fn flow_control(&self) -> &FlowControl {
        &self.switches.fc
    }

    /// Ingress bytes held per switch for PFC, summed (0 once the network drained).
    pub fn pfc_ingress_bytes(&self) -> u64 {
        self.switches.fc.get::<Pfc>().map_or(0, |p| p.ingress_bytes())
    }

    /// Telemetry of the last ACK `flow`'s sender received (None when INT is off).
    pub fn last_ack_int(&self, flow: crate::ids::FlowId) -> Option<&crate::fabric::int::IntStack> {
        self.hosts.core.flow_int.get(flow.idx())
    }
}
