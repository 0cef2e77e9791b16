//! Flow control: the seam where per-hop flow-control mechanisms plug into the switch
//! pipeline (and into the host NIC, the last upstream).
//!
//! A flow-control policy
//! - **classifies** each admitted data packet to an egress queue of its port (PFC: the
//!   queue of its priority class; per-flow: the flow's own queue);
//! - decides, on **arrival**, whether the packet is lossless (and may emit a frame to the
//!   upstream it came from — PFC's XOFF) or leaves it to the admission policy (lossy);
//! - reacts to **enqueue** and **dequeue** (per-flow PAUSE / RESUME, PFC's XON);
//! - reacts to a **control frame** received from downstream by pausing or resuming queues of
//!   the port it arrived on (the queues' eligibility is the scheduler's input), or flows of
//!   a host NIC.
//!
//! Each policy keeps its own per-switch / per-port state in its own arrays. Dispatch is
//! static (one enum, one `match` per hook), and a hook a policy does not use is an empty arm.

mod bfc;
mod keymap;
mod per_flow;
mod pfc;
pub mod pyrrha;

pub use bfc::{Bfc, BfcConfig, BfcPort, BfcStats};
pub use per_flow::{PerFlow, PerFlowConfig};
pub use pfc::{PfcConfig, PfcMode, PfcState};
pub use pyrrha::{IqStructure, Pyrrha, PyrrhaConfig, PyrrhaPort, PyrrhaStats};

use std::collections::VecDeque;

use crate::fabric::frames::ControlPayload;
use crate::fabric::headers::ExtTable;
use crate::fabric::packet::Packet;
use crate::fabric::port::Port;
use crate::fabric::store::PacketStore;
use crate::host::{FlowKey, NicGate};
use crate::ids::{FlowId, PortId};
use crate::metrics::DropCause;
use crate::time::SimTime;
use crate::topology::routing::Routing;
use crate::topology::Topology;

/// What a hook may use besides its own state and the port: the packet's extension fields
/// (at its store slot; `usize::MAX` for a hook about no packet, such as a frame's), the
/// packet store (order marks, moves between queues), the routes and topology (onward
/// paths), and the time. Policies that need none of it ignore it.
pub struct HopContext<'a> {
    pub ext: &'a mut ExtTable,
    pub slot: usize,
    pub store: &'a mut PacketStore,
    pub routing: &'a Routing,
    pub topo: &'a Topology,
    pub now: SimTime,
}

/// Outcome of a packet's arrival for flow control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A lossless packet, admitted (the shared buffer permitting).
    Admit,
    /// Admitted, and frames for upstream wait in [`FlowControl::take_pending`].
    AdmitAndSignal,
    /// A lossless packet that cannot be admitted.
    Refuse(DropCause),
    /// Not flow-controlled here: the admission policy decides.
    Lossy,
}

/// The flow-control policy of every switch in a run (`[switch.flow_control]`). An explicit
/// one-byte tag (no niche in a variant's fields) makes each hook's dispatch one compare.
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum FlowControl {
    /// No per-hop flow control: every packet is lossy.
    None,
    /// IEEE 802.1Qbb priority flow control with ingress accounting per (port, priority).
    Pfc(Pfc),
    /// A queue per flow at every port, paused and resumed per flow (ideal per-flow FC).
    PerFlow(PerFlow),
    /// BFC: per-flow backpressure over a fixed number of queues per port.
    Bfc(Bfc),
    /// Pyrrha: congestion roots, isolation queues per root.
    Pyrrha(Box<Pyrrha>),
}

/// PFC: one [`PfcState`] per switch.
#[derive(Clone, Debug)]
pub struct Pfc {
    /// Per switch (by switch index): ingress accounting and pause state.
    pub states: Vec<PfcState>,
    /// Frames a hook asked to send (XOFF, XON), not sent yet.
    pub pending: VecDeque<(PortId, ControlPayload)>,
}

impl FlowControl {
    pub fn name(&self) -> &'static str {
        match self {
            FlowControl::None => "none",
            FlowControl::Pfc(_) => "pfc",
            FlowControl::PerFlow(_) => "per_flow",
            FlowControl::Bfc(_) => "bfc",
            FlowControl::Pyrrha(_) => "pyrrha",
        }
    }

    /// Whether this policy's hooks read and write packet extension fields (BFC, Pyrrha):
    /// the switch then calls the `_ext` hooks with a [`HopContext`].
    #[inline(always)]
    pub fn carries_ext(&self) -> bool {
        matches!(self, FlowControl::Bfc(_) | FlowControl::Pyrrha(_))
    }

    /// The egress queue of data packet `pkt` at port `egress` of switch `sw`, for the
    /// policies whose packets carry no extension fields (see [`classify_ext`](Self::classify_ext)).
    #[inline(always)]
    pub fn classify(
        &mut self,
        sw: usize,
        egress: PortId,
        port: &mut Port,
        pkt: &Packet,
        now: SimTime,
    ) -> usize {
        match self {
            FlowControl::None | FlowControl::Pfc(_) => pkt.priority as usize,
            FlowControl::PerFlow(f) => f.classify(egress, port, pkt, now),
            FlowControl::Bfc(b) => b.classify(sw, egress, pkt, now),
            FlowControl::Pyrrha(_) => unreachable!("Pyrrha packets carry extension fields: classify_ext"),
        }
    }

    /// [`classify`](Self::classify) for the policies whose packets carry extension fields
    /// (BFC, Pyrrha; [`carries_ext`](Self::carries_ext)). The switch calls one or the other, so a run
    /// without extension fields (PFC) builds no [`HopContext`].
    #[inline(never)]
    pub fn classify_ext(
        &mut self,
        sw: usize,
        egress: PortId,
        port: &mut Port,
        pkt: &Packet,
        hop: HopContext,
    ) -> usize {
        match self {
            FlowControl::Pyrrha(p) => p.classify(egress, port, pkt, hop),
            other => other.classify(sw, egress, port, pkt, hop.now),
        }
    }

    /// A packet of `size` bytes for `queue` of port `egress` (holding `queue_bytes` before
    /// it) arrived on local port `local_in` of switch `sw` (whose shared buffer is `buffer`
    /// bytes), for the policies whose packets carry no extension fields.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn on_arrival(
        &mut self,
        sw: usize,
        local_in: u32,
        in_port: PortId,
        egress: PortId,
        queue: usize,
        queue_bytes: u64,
        pkt: &Packet,
        buffer: u64,
    ) -> Arrival {
        let size = pkt.wire_bytes as u64;
        match self {
            FlowControl::None => Arrival::Lossy,
            FlowControl::Pfc(p) => match p.states[sw].on_arrival(local_in, pkt.priority, size, buffer) {
                Some(false) => Arrival::Admit,
                Some(true) => {
                    p.pending
                        .push_back((in_port, ControlPayload::Pfc { priority: pkt.priority, pause: true }));
                    Arrival::AdmitAndSignal
                }
                None => Arrival::Refuse(DropCause::HeadroomOverflow),
            },
            FlowControl::PerFlow(f) => match f.on_arrival(in_port, egress, queue, queue_bytes + size, pkt) {
                None => Arrival::Admit,
                Some(frame) => {
                    f.pending.push_back((in_port, frame));
                    Arrival::AdmitAndSignal
                }
            },
            FlowControl::Bfc(_) | FlowControl::Pyrrha(_) => {
                unreachable!("BFC and Pyrrha packets carry extension fields: on_arrival_ext")
            }
        }
    }

    /// [`on_arrival`](Self::on_arrival) for the policies whose packets carry extension fields.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub fn on_arrival_ext(
        &mut self,
        sw: usize,
        in_port: PortId,
        egress: PortId,
        port: &Port,
        queue: usize,
        queue_bytes: u64,
        pkt: &Packet,
        hop: HopContext,
    ) -> Arrival {
        let after = queue_bytes + pkt.wire_bytes as u64;
        match self {
            FlowControl::Bfc(b) => signalled(b.on_arrival(sw, in_port, egress, port, queue, after, pkt, hop)),
            FlowControl::Pyrrha(p) => signalled(p.on_arrival(in_port, egress, queue, after, pkt, hop)),
            _ => unreachable!("only BFC and Pyrrha packets carry extension fields"),
        }
    }

    /// Data packet `pkt` (which had arrived on local port `local_in`, global `in_port`) left
    /// `queue` of port `egress`, for the policies whose packets carry no extension fields.
    /// Returns whether frames for upstream wait in [`take_pending`](Self::take_pending).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn on_dequeue(
        &mut self,
        sw: usize,
        local_in: u32,
        in_port: PortId,
        egress: PortId,
        port: &mut Port,
        queue: usize,
        pkt: &Packet,
        buffer: u64,
        now: SimTime,
    ) -> bool {
        match self {
            FlowControl::None => false,
            FlowControl::Pfc(p) => {
                let s = &mut p.states[sw];
                s.on_dequeue(local_in, pkt.priority, pkt.wire_bytes as u64);
                let resume = s.take_resume(local_in, pkt.priority, buffer);
                if resume {
                    p.pending
                        .push_back((in_port, ControlPayload::Pfc { priority: pkt.priority, pause: false }));
                }
                resume
            }
            FlowControl::PerFlow(f) => f.on_dequeue(egress, port, queue, pkt, now),
            FlowControl::Bfc(_) | FlowControl::Pyrrha(_) => {
                unreachable!("BFC and Pyrrha packets carry extension fields: on_dequeue_ext")
            }
        }
    }

    /// [`on_dequeue`](Self::on_dequeue) for the policies whose packets carry extension
    /// fields; `ports` holds `egress` (Pyrrha may unassign isolation queues elsewhere on
    /// the switch).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub fn on_dequeue_ext(
        &mut self,
        sw: usize,
        in_port: PortId,
        egress: PortId,
        ports: &mut [Port],
        queue: usize,
        pkt: &Packet,
        hop: HopContext,
    ) -> bool {
        match self {
            FlowControl::Bfc(b) => b.on_dequeue(sw, in_port, egress, queue, pkt, hop),
            FlowControl::Pyrrha(p) => p.on_dequeue(ports, in_port, egress, queue, pkt, hop),
            _ => unreachable!("only BFC and Pyrrha packets carry extension fields"),
        }
    }

    /// The next frame a hook asked to send: out of a port, towards its peer (in the order
    /// asked).
    pub fn take_pending(&mut self) -> Option<(PortId, ControlPayload)> {
        let pending = match self {
            FlowControl::None => return None,
            FlowControl::Pfc(p) => &mut p.pending,
            FlowControl::PerFlow(f) => &mut f.pending,
            FlowControl::Bfc(b) => &mut b.pending,
            FlowControl::Pyrrha(p) => &mut p.pending,
        };
        pending.pop_front()
    }

    /// Frame `payload` from downstream arrived on `port_id` (of a switch, or a host's NIC
    /// port), one of `ports`. Returns whether something was resumed (the port should try
    /// to send).
    #[allow(clippy::too_many_arguments)]
    pub fn on_frame(
        &mut self,
        port_id: PortId,
        ports: &mut [Port],
        is_host: bool,
        payload: ControlPayload,
        now: SimTime,
        ext: &mut ExtTable,
        store: &mut PacketStore,
        net: (&Routing, &Topology),
    ) -> bool {
        let port = &mut ports[port_id.idx()];
        match payload {
            ControlPayload::Pfc { priority, pause } => {
                port.queues.set_paused(priority as usize, pause, now) && !pause
            }
            ControlPayload::Flow { flow, reverse, pause } => match self {
                FlowControl::PerFlow(f) => f.on_frame(port_id, port, is_host, flow, reverse, pause, now),
                _ => false,
            },
            ControlPayload::Bfc { queue, pause } => match self {
                FlowControl::Bfc(b) => b.on_frame(port, is_host, queue, pause, now),
                _ => false,
            },
            ControlPayload::Pyrrha { signal, root, old_root, hop } => match self {
                FlowControl::Pyrrha(p) => {
                    let (routing, topo) = net;
                    let fabric = HopContext { ext, slot: usize::MAX, store, routing, topo, now };
                    p.on_frame(ports, port_id, is_host, signal, root, old_root, hop, fabric)
                }
                _ => false,
            },
        }
    }

    /// [`NicGate::nic_may_send`]: under PFC (or none) the flow's priority decides; the
    /// per-flow policies ask out of line.
    #[inline(always)]
    fn may_send(
        &self,
        port_id: PortId,
        port: &Port,
        flow: &FlowKey,
        routing: &Routing,
        topo: &Topology,
    ) -> bool {
        match self {
            FlowControl::None | FlowControl::Pfc(_) => port.queues.may_send(flow.priority as usize),
            _ => self.nic_may_send_flow(port_id, flow, routing, topo),
        }
    }

    /// [`nic_may_send`](Self::nic_may_send) for the policies that stop single flows at NICs.
    #[inline(never)]
    fn nic_may_send_flow(&self, port_id: PortId, flow: &FlowKey, routing: &Routing, topo: &Topology) -> bool {
        match self {
            FlowControl::PerFlow(f) => !f.host_paused(flow.id),
            FlowControl::Bfc(b) => !b.host_paused(flow.id),
            FlowControl::Pyrrha(p) => p.nic_may_send(port_id, flow.tuple, routing, topo),
            FlowControl::None | FlowControl::Pfc(_) => unreachable!("decided by priority"),
        }
    }

    /// An order mark reached the head of its queue at `port_id` (one of `ports`). Returns
    /// whether a queue it held may send now.
    #[inline(never)]
    pub fn on_marker(&mut self, port_id: PortId, ports: &mut [Port], id: u64, now: SimTime) -> bool {
        match self {
            FlowControl::Pyrrha(p) => p.on_marker(port_id, &mut ports[port_id.idx()], id, now),
            _ => false,
        }
    }

    /// The link of `port_id` failed (see `sim::faults`): forget the pauses that concern it
    /// (`host_flows`: the flows sent from it, when it is a host's NIC port).
    pub fn on_link_down(
        &mut self,
        port_id: PortId,
        ports: &mut [Port],
        is_host: bool,
        host_flows: &[FlowId],
        now: SimTime,
    ) {
        match self {
            FlowControl::PerFlow(f) => f.on_link_down(port_id, &mut ports[port_id.idx()], host_flows, now),
            FlowControl::Bfc(b) => b.on_link_down(host_flows),
            FlowControl::Pyrrha(p) => p.on_link_down(ports, port_id, is_host, now),
            _ => {}
        }
    }

    /// Queue length a departing data packet reports in INT at `port`.
    #[inline]
    pub fn int_queue_bytes(&self, port: &Port, fc_mark: u8) -> u64 {
        match self {
            FlowControl::Pyrrha(p) => p.int_queue_bytes(port, fc_mark),
            _ => port.queues.backlog_bytes,
        }
    }

    /// Flow-control state still held (queues, pause states, counters, congestion trees):
    /// 0 once the network drained. `None` for PFC and no flow control.
    pub fn held(&self) -> Option<usize> {
        match self {
            FlowControl::PerFlow(f) => Some(f.entries()),
            FlowControl::Bfc(b) => Some(b.held()),
            FlowControl::Pyrrha(p) => Some(p.held()),
            _ => None,
        }
    }

    /// The policy's counters, by name (empty for PFC and no flow control).
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        match self {
            FlowControl::Bfc(b) => vec![
                ("bfc_assignments", b.stats.assignments),
                ("bfc_shared_assignments", b.stats.shared_assignments),
                ("bfc_max_flows_per_queue", b.stats.max_flows_per_queue as u64),
            ],
            FlowControl::Pyrrha(p) => {
                let s = p.stats;
                vec![
                    ("pyrrha_roots_nominated", s.roots_nominated),
                    ("pyrrha_merges", s.merges),
                    ("pyrrha_iqs_assigned", s.iqs_assigned),
                    ("pyrrha_iqs_hashed", s.iqs_hashed),
                    ("pyrrha_iq_moves", s.iq_moves),
                    ("pyrrha_soft_merge_moves", s.soft_merge_moves),
                    ("pyrrha_order_marks", s.order_marks),
                    ("pyrrha_own_root_pauses_ignored", s.own_root_pauses_ignored),
                    ("pyrrha_max_iqs_per_port", s.max_iqs_per_port),
                ]
            }
            _ => Vec::new(),
        }
    }

    /// Bytes held in PFC ingress accounting across every switch (0 once drained).
    pub fn pfc_ingress_bytes(&self) -> u64 {
        match self {
            FlowControl::Pfc(p) => p.states.iter().map(|s| s.total_ingress_bytes()).sum(),
            _ => 0,
        }
    }

    /// PFC state of switch `sw`, when PFC is the policy.
    pub fn pfc_state(&self, sw: usize) -> Option<&PfcState> {
        match self {
            FlowControl::Pfc(p) => Some(&p.states[sw]),
            _ => None,
        }
    }

    /// Queues the policy holds allocated beyond the configured classes, and pause
    /// states it still keeps (for drain checks).
    pub fn per_flow_state(&self) -> Option<&PerFlow> {
        match self {
            FlowControl::PerFlow(f) => Some(f),
            _ => None,
        }
    }

    /// Pyrrha's state, when Pyrrha is the policy.
    pub fn pyrrha(&self) -> Option<&Pyrrha> {
        match self {
            FlowControl::Pyrrha(p) => Some(p),
            _ => None,
        }
    }
}

impl NicGate for FlowControl {
    #[inline(always)]
    fn nic_may_send(
        &self,
        nic: PortId,
        port: &Port,
        flow: &FlowKey,
        routing: &Routing,
        topo: &Topology,
    ) -> bool {
        self.may_send(nic, port, flow, routing, topo)
    }
}

/// A hook's "frames wait" as an [`Arrival`] of a lossless packet.
#[inline]
fn signalled(frames: bool) -> Arrival {
    if frames {
        Arrival::AdmitAndSignal
    } else {
        Arrival::Admit
    }
}
