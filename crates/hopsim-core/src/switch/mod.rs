//! The output-queued shared-buffer switch.
//!
//! Modelled on the MMU of the HPCC ns-3 simulator (`switch-mmu.cc`): one buffer pool per
//! switch; lossless (PFC) traffic is admitted by ingress accounting per (ingress port,
//! priority) with reserve, shared and headroom parts; lossy traffic by egress admission
//! (dynamic threshold or a static per-port limit). ECN is marked with a RED profile on the
//! egress queue length. Forwarding happens inside the arrival handler (no extra event).

mod ecn;
mod int;
mod pfc;

pub use ecn::RedProfile;
pub use int::{IntHop, IntStack, INT_MAX_HOPS};
pub use pfc::{PfcConfig, PfcMode, PfcState};

use crate::ids::{NodeId, PortId};
use crate::metrics::{DropCause, Drops};
use crate::observe::PacketEvent;
use crate::packet::ControlPayload;
use crate::sim::Simulator;
use crate::store::PacketRef;
use crate::topology::routing::routing_tuple;

/// Egress admission for lossy traffic (`[switch.admission]`).
#[derive(Clone, Copy, Debug)]
pub enum EgressAdmission {
    /// A queue may hold up to `alpha × free buffer` (Choudhury & Hahne).
    DynamicThreshold { alpha: f64 },
    /// A port may hold up to this many bytes in all its data queues.
    StaticPerPort { bytes: u64 },
}

/// Switch settings resolved from the scenario.
#[derive(Clone, Debug)]
pub struct SwitchConfig {
    pub buffer_bytes: u64,
    pub queues: usize,
    pub admission: EgressAdmission,
    /// `Some` when PFC is on: every data priority is lossless.
    pub pfc: Option<PfcConfig>,
    pub ecn_enabled: bool,
    pub ecn_at_dequeue: bool,
    pub int_enabled: bool,
}

/// Occupancy of a switch's shared buffer (data packets only).
#[derive(Clone, Debug, Default)]
pub struct SharedBuffer {
    pub used_bytes: u64,
    pub peak_bytes: u64,
}

/// One switch.
pub struct Switch {
    pub node: NodeId,
    pub first_port: u32,
    pub mmu: SharedBuffer,
    /// Ingress accounting and pause state, when PFC is on.
    pub pfc: Option<PfcState>,
    pub drops: Drops,
}

impl Simulator {
    /// A packet finished arriving on `in_port` of switch `sw`: route, admit, enqueue.
    pub(crate) fn switch_receive(&mut self, sw: usize, in_port: PortId, r: PacketRef) {
        let node = self.switches[sw].node;
        let pkt = *self.store.get(r);
        let p = &pkt;
        let egress = self.routing.select(node, routing_tuple(p));

        if p.is_control_class() {
            self.store.push_back(&mut self.ports[egress.idx()].control_queue, r);
            self.switch_try_send(egress);
            return;
        }

        let size = p.wire_bytes as u64;
        let queue = p.priority as usize;
        let local_in = in_port.0 - self.switches[sw].first_port;
        let buffer = self.switch_cfg.buffer_bytes;
        let s = &mut self.switches[sw];

        // Admission (and, with PFC, ingress accounting and the XOFF decision).
        let mut pause = false;
        let refused = if s.mmu.used_bytes + size > buffer {
            Some(DropCause::BufferFull)
        } else if let Some(pfc) = &mut s.pfc {
            match pfc.on_arrival(local_in, p.priority, size, buffer) {
                Some(xoff) => {
                    pause = xoff;
                    None
                }
                None => Some(DropCause::HeadroomOverflow),
            }
        } else {
            let port = &self.ports[egress.idx()];
            let over = match self.switch_cfg.admission {
                EgressAdmission::DynamicThreshold { alpha } => {
                    let free = (buffer - s.mmu.used_bytes) as f64;
                    (port.queue_bytes(queue) + size) as f64 > alpha * free
                }
                EgressAdmission::StaticPerPort { bytes } => port.backlog_bytes + size > bytes,
            };
            over.then_some(DropCause::EgressAdmission)
        };
        if let Some(cause) = refused {
            s.drops.add(cause);
            self.counters.drops.add(cause);
            if let Some(trace) = &mut self.obs.packet_trace {
                let backlog = self.ports[egress.idx()].backlog_bytes;
                trace.record(self.now, PacketEvent::Drop, egress, &pkt, backlog);
            }
            self.consume(r);
            return;
        }

        // Accounting.
        s.mmu.used_bytes += size;
        s.mmu.peak_bytes = s.mmu.peak_bytes.max(s.mmu.used_bytes);
        let priority = p.priority;
        let mark = self.switch_cfg.ecn_enabled
            && !self.switch_cfg.ecn_at_dequeue
            && self.ecn_decides_mark(egress, self.ports[egress.idx()].queue_bytes(queue));
        let stored = self.store.get_mut(r);
        stored.ingress = local_in as u16;
        stored.enq_ns = self.now.as_ns_wrapping();
        if mark {
            stored.mark_ce();
            self.counters.ecn_marks += 1;
        }
        let port = &mut self.ports[egress.idx()];
        port.enqueue(&mut self.store, queue, r);
        port.stats.max_queue_bytes = port.stats.max_queue_bytes.max(port.backlog_bytes);
        if let Some(trace) = &mut self.obs.packet_trace {
            trace.record(self.now, PacketEvent::Enqueue, egress, self.store.get(r), port.backlog_bytes);
        }
        if pause {
            self.send_control_frame(in_port, ControlPayload::Pfc { priority, pause: true });
        }
        self.switch_try_send(egress);
    }

    /// Start the next packet on idle switch port `port`: control frames first, then data
    /// queues round-robin, skipping paused queues.
    pub(crate) fn switch_try_send(&mut self, port: PortId) {
        let pt = &mut self.ports[port.idx()];
        if pt.is_busy(self.now) {
            if pt.has_work() {
                self.wake_when_idle(port);
            }
            return;
        }
        if let Some(pkt) = self.store.pop_front(&mut pt.control_queue) {
            self.start_tx(port, pkt);
            self.wake_if_more_work(port);
            return;
        }
        let Some(queue) = pt.next_data_queue() else {
            return;
        };
        let pkt = pt.dequeue(&mut self.store, queue).expect("eligible queue is non-empty");
        pt.rr_next = if queue + 1 == pt.queues.len() { 0 } else { queue as u16 + 1 };
        let p = *self.store.get(pkt);
        let size = p.wire_bytes as u64;
        let queue_after = pt.queue_bytes(queue);

        let sw = self.node_slot[pt.node.idx()] as usize;
        let buffer = self.switch_cfg.buffer_bytes;
        let s = &mut self.switches[sw];
        s.mmu.used_bytes -= size;
        let local_in = p.ingress as u32;
        let ingress = PortId(s.first_port + local_in);
        let resume = match &mut s.pfc {
            Some(pfc) => {
                pfc.on_dequeue(local_in, p.priority, size);
                pfc.take_resume(local_in, p.priority, buffer)
            }
            None => false,
        };
        if self.switch_cfg.ecn_enabled
            && self.switch_cfg.ecn_at_dequeue
            && self.ecn_decides_mark(port, queue_after)
        {
            self.store.get_mut(pkt).mark_ce();
            self.counters.ecn_marks += 1;
        }
        if self.switch_cfg.int_enabled {
            self.push_int_hop(port, pkt);
        }
        let waited = self.now.as_ns_wrapping().wrapping_sub(p.enq_ns);
        self.obs.queue_delay.record(self.obs.hop_tier[port.idx()], waited as u64);
        self.start_tx(port, pkt);
        self.wake_if_more_work(port);
        if resume {
            self.send_control_frame(ingress, ControlPayload::Pfc { priority: p.priority, pause: false });
        }
    }

    /// After starting a packet: schedule `TxDone` only if more is already waiting.
    #[inline]
    fn wake_if_more_work(&mut self, port: PortId) {
        if self.ports[port.idx()].has_work() {
            self.wake_when_idle(port);
        }
    }

    /// RED decision for a packet seeing `queue_bytes` in front of it on `port`.
    fn ecn_decides_mark(&mut self, port: PortId, queue_bytes: u64) -> bool {
        match &self.ports[port.idx()].ecn {
            Some(red) => red.decide(queue_bytes, &mut self.ecn_rng),
            None => false,
        }
    }

    /// Switch `node`'s drop counters (for tests and reports).
    pub fn switch_drops(&self, node: NodeId) -> Drops {
        self.switches[self.node_slot[node.idx()] as usize].drops
    }

    /// Whether ingress `(port, priority)` of a switch is currently holding its upstream paused.
    pub fn ingress_paused(&self, port: PortId, priority: u8) -> bool {
        let node = self.ports[port.idx()].node;
        let s = &self.switches[self.node_slot[node.idx()] as usize];
        s.pfc.as_ref().is_some_and(|pfc| pfc.is_paused(port.0 - s.first_port, priority))
    }

    /// Ingress bytes held per switch for PFC, summed (0 once the network drained).
    pub fn pfc_ingress_bytes(&self) -> u64 {
        self.switches.iter().filter_map(|s| s.pfc.as_ref()).map(|p| p.total_ingress_bytes()).sum()
    }
}
