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

mod per_flow;
mod pfc;

pub use per_flow::{PerFlow, PerFlowConfig};
pub use pfc::{PfcConfig, PfcMode, PfcState};

use std::collections::VecDeque;

use crate::frames::ControlPayload;
use crate::ids::{FlowId, PortId};
use crate::metrics::DropCause;
use crate::packet::Packet;
use crate::port::Port;
use crate::time::SimTime;

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
        }
    }

    /// The egress queue of data packet `pkt` at port `egress` of switch `sw`.
    #[inline(always)]
    pub fn classify(&mut self, egress: PortId, port: &mut Port, pkt: &Packet, now: SimTime) -> usize {
        match self {
            FlowControl::None | FlowControl::Pfc(_) => pkt.priority as usize,
            FlowControl::PerFlow(f) => f.classify(egress, port, pkt, now),
        }
    }

    /// A packet of `size` bytes for `queue` of port `egress` arrived on local port
    /// `local_in` of switch `sw` (whose shared buffer is `buffer` bytes).
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
        }
    }

    /// Data packet `pkt` (which had arrived on local port `local_in`, global `in_port`) left
    /// `queue` of port `egress`. Returns whether frames for upstream wait in
    /// [`take_pending`](Self::take_pending).
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
        }
    }

    /// The next frame a hook asked to send: out of a port, towards its peer (in the order
    /// asked).
    pub fn take_pending(&mut self) -> Option<(PortId, ControlPayload)> {
        let pending = match self {
            FlowControl::None => return None,
            FlowControl::Pfc(p) => &mut p.pending,
            FlowControl::PerFlow(f) => &mut f.pending,
        };
        pending.pop_front()
    }

    /// Frame `payload` from downstream arrived on `port` (of a switch, or a host's NIC
    /// port). Returns whether something was resumed (the port should try to send).
    pub fn on_frame(
        &mut self,
        port_id: PortId,
        port: &mut Port,
        is_host: bool,
        payload: ControlPayload,
        now: SimTime,
    ) -> bool {
        match payload {
            ControlPayload::Pfc { priority, pause } => {
                port.queues.set_paused(priority as usize, pause, now) && !pause
            }
            ControlPayload::Flow { flow, reverse, pause } => match self {
                FlowControl::PerFlow(f) => f.on_frame(port_id, port, is_host, flow, reverse, pause, now),
                _ => false,
            },
        }
    }

    /// May a host NIC on `port` send data of `flow` (priority `priority`) now?
    #[inline]
    pub fn nic_may_send(&self, port: &Port, flow: FlowId, priority: u8) -> bool {
        match self {
            FlowControl::PerFlow(f) => !f.host_paused(flow),
            _ => port.queues.may_send(priority as usize),
        }
    }

    /// The link of `port_id` failed (see `sim::faults`): forget the pauses that concern it
    /// (`host_flows`: the flows sent from it, when it is a host's NIC port).
    pub fn on_link_down(&mut self, port_id: PortId, port: &mut Port, host_flows: &[FlowId], now: SimTime) {
        if let FlowControl::PerFlow(f) = self {
            f.on_link_down(port_id, port, host_flows, now);
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
}
