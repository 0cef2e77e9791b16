//! The output-queued shared-buffer switch, as a pipeline of policies.
//!
//! Modelled on the MMU of the HPCC ns-3 simulator (`switch-mmu.cc`): one buffer pool per
//! switch, egress queues per port, ECN (RED) marking and INT. A packet's path through a
//! switch, each stage owned by one policy:
//!
//! ```text
//! arrive ─▶ load_balance ─▶ control class? ──yes──▶ control queue (strict priority)
//!              (LoadBalancer)     │ no
//!                                 ▼
//!                   classify ─▶ admit / deflect ─▶ enqueue ─▶ (frames upstream)
//!                 (FlowControl)  (FlowControl if lossless,
//!                                 else Admission)
//! transmit ◀─ ECN · INT ◀─ dequeue ◀─ schedule (eligible queues: FlowControl pauses)
//!     └─▶ FlowControl::on_dequeue (frames upstream)
//! ```
//!
//! - [`load_balance`]: which of the equal-cost egress ports (ECMP, DRILL).
//! - [`flow_control`]: which egress queue, lossless admission (PFC ingress accounting),
//!   PAUSE / RESUME frames and which queues may send (PFC, per-flow, none).
//! - [`admission`]: for lossy packets, the buffer rule (dynamic threshold, static per
//!   port) and what happens to refused packets (drop-tail, DIBS deflection).
//!
//! Forwarding happens inside the arrival handler (no extra event); a busy port has one
//! pending `TxDone`. Each policy keeps its state in its own per-switch / per-port arrays.

pub mod admission;
pub mod bolt;
mod ecn;
pub mod flow_control;
mod int;
pub mod load_balance;
mod vertigo;

pub use admission::{Admission, BufferRule, Deflection, SharedBuffer, Verdict};
pub use ecn::RedProfile;
pub use flow_control::{Arrival, FlowControl, HopContext, PfcConfig, PfcMode, PfcState};
pub use int::{IntHop, IntStack, INT_MAX_HOPS};
pub use load_balance::LoadBalancer;

use crate::ids::{NodeId, PortId};
use crate::metrics::{DropCause, Drops};
use crate::observe::PacketEvent;
use crate::packet::{Packet, PacketKind};
use crate::sim::Simulator;
use crate::store::PacketRef;

/// Switch settings resolved from the scenario.
#[derive(Clone, Debug)]
pub struct SwitchConfig {
    pub buffer_bytes: u64,
    pub queues: usize,
    pub ecn_enabled: bool,
    pub ecn_at_dequeue: bool,
    pub int_enabled: bool,
    /// Bit `kind as u8`: packets of this kind go to the strict-priority control queue
    /// (control frames and CNPs always; ACKs and NACKs unless `ack_queue = "data"`).
    pub control_kinds: u8,
    /// Hosts run Bolt: switches run its SRC / PRU / SM on each data packet.
    pub bolt: bool,
}

impl SwitchConfig {
    /// The control-queue kinds when ACKs and NACKs share the data queues (`ack_in_data`)
    /// or not.
    pub fn control_kinds(ack_in_data: bool) -> u8 {
        let mut kinds = kind_bit(PacketKind::Control) | kind_bit(PacketKind::Cnp);
        if !ack_in_data {
            kinds |= kind_bit(PacketKind::Ack) | kind_bit(PacketKind::Nack);
        }
        kinds
    }
}

#[inline]
fn kind_bit(kind: PacketKind) -> u8 {
    1 << kind as u8
}

/// One switch.
pub struct Switch {
    pub node: NodeId,
    pub first_port: u32,
    pub mmu: SharedBuffer,
    pub drops: Drops,
}

/// The [`HopContext`] of packet slot `r`, borrowing the simulator's fields one by one (so
/// flow control and the ports stay free to borrow beside it).
macro_rules! hop_context {
    ($sim:ident, $r:expr) => {
        HopContext {
            ext: &mut $sim.ext,
            slot: $r.index(),
            store: &mut $sim.store,
            routing: &$sim.routing,
            topo: &$sim.topo,
            now: $sim.now,
        }
    };
}

impl Simulator {
    /// A packet finished arriving on `in_port` of switch `sw`: route, classify, admit,
    /// enqueue.
    pub(crate) fn switch_receive(&mut self, sw: usize, in_port: PortId, r: PacketRef) {
        let node = self.switches[sw].node;
        let pkt = *self.store.get(r);
        let egress = self.lb.select(&self.routing, node, sw, &pkt, &self.ports);
        if egress == PortId::NONE {
            self.drop_at(sw, r, in_port, 0, DropCause::NoRoute);
            return;
        }
        if self.switch_cfg.control_kinds & kind_bit(pkt.kind) != 0 {
            self.store.push_back(&mut self.ports[egress.idx()].control_queue, r);
            self.switch_try_send(egress);
            return;
        }
        let queue = self.classify(sw, egress, r, &pkt);
        if self.switch_cfg.bolt && pkt.kind == PacketKind::Data {
            self.bolt_on_arrival(sw, egress, r);
        }
        let local_in = in_port.0 - self.switches[sw].first_port;
        let Some((egress, queue, signal)) = self.admit(sw, r, &pkt, in_port, local_in, egress, queue) else {
            return;
        };
        self.enqueue(sw, r, local_in, egress, queue);
        if signal {
            self.send_pending_frames();
        }
        self.switch_try_send(egress);
    }

    /// Admission of data packet `r` (a copy in `pkt`) for `queue` of `egress`: the shared
    /// buffer, then lossless flow control or, for lossy packets, the admission policy
    /// (which may deflect it; a marking verdict sets CE here). Returns where it goes and
    /// whether flow control has frames for the upstream; `None` when it was dropped.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn admit(
        &mut self,
        sw: usize,
        r: PacketRef,
        pkt: &Packet,
        in_port: PortId,
        local_in: u32,
        egress: PortId,
        queue: usize,
    ) -> Option<(PortId, usize, bool)> {
        let size = pkt.wire_bytes as u64;
        let buffer = self.switch_cfg.buffer_bytes;
        let used = self.switches[sw].mmu.used_bytes;
        if used + size > buffer {
            self.drop_at(sw, r, egress, queue, DropCause::BufferFull);
            return None;
        }
        let queue_bytes = self.ports[egress.idx()].queues.queue_bytes(queue);
        let arrival = if self.fc.carries_ext() {
            self.arrival_with_ext(sw, r, pkt, in_port, egress, queue, queue_bytes)
        } else {
            self.fc.on_arrival(sw, local_in, in_port, egress, queue, queue_bytes, pkt, buffer)
        };
        match arrival {
            Arrival::Admit => return Some((egress, queue, false)),
            Arrival::AdmitAndSignal => return Some((egress, queue, true)),
            Arrival::Refuse(cause) => {
                self.drop_at(sw, r, egress, queue, cause);
                return None;
            }
            Arrival::Lossy => {}
        }
        let rank = if self.admission.reads_rank() { self.ext.get(r.index()).rank } else { 0 };
        let ttl = &mut self.store.get_mut(r).ttl;
        let now = self.now;
        let arrival = admission::Arrival { sw, egress, queue, size, used, buffer, ttl, rank, now };
        match self.admission.admit(arrival, &self.ports) {
            Verdict::Enqueue => Some((egress, queue, false)),
            Verdict::Mark => {
                self.store.get_mut(r).mark_ce();
                self.counters.ecn_marks += 1;
                Some((egress, queue, false))
            }
            Verdict::Drop(cause) => {
                self.drop_at(sw, r, egress, queue, cause);
                None
            }
            Verdict::Deflect(to) => {
                self.count_deflection(egress, to, r);
                let queue = self.classify(sw, to, r, pkt);
                if self.admission.readmit(&self.ports[to.idx()], queue, size, used, buffer) {
                    Some((to, queue, false))
                } else {
                    self.drop_at(sw, r, to, queue, DropCause::EgressAdmission);
                    None
                }
            }
            Verdict::MakeRoom => {
                self.vertigo_make_room(sw, r, local_in, egress, queue);
                None
            }
        }
    }

    /// Packet `r` is deflected from `from` to `to`: count it per port, per flow and in
    /// the packet trace.
    #[inline(never)]
    pub(crate) fn count_deflection(&mut self, from: PortId, to: PortId, r: PacketRef) {
        self.ports[from.idx()].stats.deflections += 1;
        self.counters.deflections += 1;
        let flow = self.store.get(r).flow;
        if let Some(f) = self.flows.get_mut(flow.idx()) {
            f.deflections += 1;
        }
        if let Some(trace) = &mut self.obs.packet_trace {
            let backlog = self.ports[to.idx()].queues.backlog_bytes;
            trace.record(self.now, PacketEvent::Deflect, to, self.store.get(r), 0, backlog);
        }
    }

    /// Account, mark and queue admitted packet `r` in `queue` of `egress`.
    #[inline(always)]
    pub(crate) fn enqueue(&mut self, sw: usize, r: PacketRef, local_in: u32, egress: PortId, queue: usize) {
        let s = &mut self.switches[sw];
        let stored = self.store.get_mut(r);
        let size = stored.wire_bytes as u64;
        let data = stored.kind == PacketKind::Data;
        s.mmu.used_bytes += size;
        s.mmu.peak_bytes = s.mmu.peak_bytes.max(s.mmu.used_bytes);
        let mark = self.switch_cfg.ecn_enabled
            && !self.switch_cfg.ecn_at_dequeue
            && data
            && self.ecn_decides_mark(sw, egress, self.ports[egress.idx()].queues.queue_bytes(queue));
        let stored = self.store.get_mut(r);
        stored.ingress = local_in as u16;
        stored.enq_ns = self.now.as_ns_wrapping();
        if mark {
            stored.mark_ce();
            self.counters.ecn_marks += 1;
        }
        let port = &mut self.ports[egress.idx()];
        let ext = &self.ext;
        // A rank-ordered queue (Vertigo's) orders by the ranks in the extension fields.
        port.queues.enqueue_with(&mut self.store, queue, r, |x| ext.get(x.index()).rank);
        port.stats.max_queue_bytes = port.stats.max_queue_bytes.max(port.queues.backlog_bytes);
        if let Some(trace) = &mut self.obs.packet_trace {
            trace.record(
                self.now,
                PacketEvent::Enqueue,
                egress,
                self.store.get(r),
                queue,
                port.queues.backlog_bytes,
            );
        }
    }

    /// Flow control's egress queue for packet `pkt` (in slot `r`) at `egress`: with its
    /// extension fields under the policies that use them (BFC, Pyrrha). The test reads the
    /// policy's tag, which the hook's own dispatch reads next, so PFC pays nothing for it.
    #[inline(always)]
    fn classify(&mut self, sw: usize, egress: PortId, r: PacketRef, pkt: &Packet) -> usize {
        if self.fc.carries_ext() {
            return self.classify_with_ext(sw, egress, r, pkt);
        }
        self.fc.classify(sw, egress, &mut self.ports[egress.idx()], pkt, self.now)
    }

    /// [`classify`](Self::classify) with the packet's extension fields (kept out of line,
    /// so a run without them carries none of this code in its hot loop).
    #[cold]
    #[inline(never)]
    fn classify_with_ext(&mut self, sw: usize, egress: PortId, r: PacketRef, pkt: &Packet) -> usize {
        let hop = hop_context!(self, r);
        self.fc.classify_ext(sw, egress, &mut self.ports[egress.idx()], pkt, hop)
    }

    /// Flow control's arrival hook with the packet's extension fields (out of line).
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn arrival_with_ext(
        &mut self,
        sw: usize,
        r: PacketRef,
        pkt: &Packet,
        in_port: PortId,
        egress: PortId,
        queue: usize,
        queue_bytes: u64,
    ) -> Arrival {
        let hop = hop_context!(self, r);
        let port = &self.ports[egress.idx()];
        self.fc.on_arrival_ext(sw, in_port, egress, port, queue, queue_bytes, pkt, hop)
    }

    /// Flow control's departure hook with the packet's extension fields (out of line).
    #[cold]
    #[inline(never)]
    fn departure_with_ext(
        &mut self,
        sw: usize,
        ingress: PortId,
        port: PortId,
        queue: usize,
        r: PacketRef,
        p: &Packet,
    ) -> bool {
        let hop = hop_context!(self, r);
        self.fc.on_dequeue_ext(sw, ingress, port, &mut self.ports, queue, p, hop)
    }

    /// Drop packet `r` at switch `sw` (it was meant for `queue` of `port`).
    pub(crate) fn drop_at(&mut self, sw: usize, r: PacketRef, port: PortId, queue: usize, cause: DropCause) {
        if self.store.get(r).kind == PacketKind::Data {
            self.switches[sw].drops.add(cause);
            self.counters.drops.add(cause);
        } else {
            self.counters.control_drops += 1;
        }
        if let Some(trace) = &mut self.obs.packet_trace {
            let backlog = self.ports.get(port.idx()).map_or(0, |p| p.queues.backlog_bytes);
            trace.record(self.now, PacketEvent::Drop, port, self.store.get(r), queue, backlog);
        }
        self.consume(r);
    }

    /// Start the next packet on idle switch port `port`: control frames first, then the
    /// data queue the scheduler picks among eligible ones.
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
        let (queue, pkt, p, data) = loop {
            let pt = &mut self.ports[port.idx()];
            let Some(queue) = pt.queues.next_queue() else {
                return;
            };
            let pkt = pt.queues.dequeue(&mut self.store, queue).expect("eligible queue is non-empty");
            pt.queues.served(queue);
            let p = *self.store.get(pkt);
            match p.kind {
                PacketKind::Data => break (queue, pkt, p, true),
                PacketKind::Marker => {
                    // Never transmitted: its owner acts when it reaches the head.
                    self.consume(pkt);
                    self.fc.on_marker(port, &mut self.ports, p.seq, self.now);
                }
                _ => break (queue, pkt, p, false), // ACKs queued with data
            }
        };
        let size = p.wire_bytes as u64;
        let (sw, signal) = self.release_departure(port, queue, pkt, &p);
        if data {
            let queue_after = self.ports[port.idx()].queues.queue_bytes(queue);
            if self.switch_cfg.ecn_enabled
                && self.switch_cfg.ecn_at_dequeue
                && self.ecn_decides_mark(sw, port, queue_after)
            {
                self.store.get_mut(pkt).mark_ce();
                self.counters.ecn_marks += 1;
            }
            if self.switch_cfg.int_enabled {
                self.push_int_hop(port, pkt);
            }
            let waited = self.now.as_ns_wrapping().wrapping_sub(p.enq_ns);
            self.obs.queue_delay.record(self.obs.hop_tier[port.idx()], waited as u64);
        }
        self.start_tx(port, pkt);
        if let Some(at) = self.ports[port.idx()].queues.after_send(queue, size, self.now) {
            self.schedule_policy_timer(crate::engine::PolicyTimerKind::Shaper, port.0, at);
        }
        self.wake_if_more_work(port);
        if signal {
            self.send_pending_frames();
        }
    }

    /// Packet `p` (in slot `r`) left `queue` of switch port `port` (to be sent, or dropped
    /// with a failed link): release its shared-buffer and flow-control accounting. Returns
    /// the switch and whether flow control has frames to send upstream.
    #[inline(always)]
    pub(crate) fn release_departure(
        &mut self,
        port: PortId,
        queue: usize,
        r: PacketRef,
        p: &Packet,
    ) -> (usize, bool) {
        let node = self.ports[port.idx()].node;
        let sw = self.node_slot[node.idx()] as usize;
        let buffer = self.switch_cfg.buffer_bytes;
        let s = &mut self.switches[sw];
        s.mmu.used_bytes -= p.wire_bytes as u64;
        let local_in = p.ingress as u32;
        let ingress = PortId(s.first_port + local_in);
        let signal = if self.fc.carries_ext() {
            self.departure_with_ext(sw, ingress, port, queue, r, p)
        } else {
            let egress = &mut self.ports[port.idx()];
            self.fc.on_dequeue(sw, local_in, ingress, port, egress, queue, p, buffer, self.now)
        };
        (sw, signal)
    }

    /// After starting a packet: schedule `TxDone` only if more is already waiting.
    #[inline]
    fn wake_if_more_work(&mut self, port: PortId) {
        if self.ports[port.idx()].has_work() {
            self.wake_when_idle(port);
        }
    }

    /// RED decision at switch `sw` for a packet seeing `queue_bytes` in front of it on
    /// `port`, drawn from the switch's own ECN stream.
    fn ecn_decides_mark(&mut self, sw: usize, port: PortId, queue_bytes: u64) -> bool {
        match &self.ports[port.idx()].ecn {
            Some(red) => red.decide(queue_bytes, self.ecn_rngs.for_switch(sw)),
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
        let sw = self.node_slot[node.idx()] as usize;
        let first = self.switches[sw].first_port;
        self.fc.pfc_state(sw).is_some_and(|pfc| pfc.is_paused(port.0 - first, priority))
    }

    /// Per-flow entries (queues and pause states) still held, under per-flow flow control
    /// (0 once the network drained).
    pub fn per_flow_entries(&self) -> Option<usize> {
        self.fc.per_flow_state().map(|f| f.entries())
    }

    /// State a per-flow, BFC or Pyrrha run still holds — queues, pause states and counters,
    /// congestion trees (0 once the network drained; `None` under PFC or none).
    pub fn flow_control_held(&self) -> Option<usize> {
        self.fc.held()
    }

    /// The flow-control policy's own counters, by name.
    pub fn flow_control_counters(&self) -> Vec<(&'static str, u64)> {
        self.fc.counters()
    }

    /// The flow-control policy (read-only), e.g. for Pyrrha's isolation-queue log.
    pub fn flow_control(&self) -> &FlowControl {
        &self.fc
    }

    /// Ingress bytes held per switch for PFC, summed (0 once the network drained).
    pub fn pfc_ingress_bytes(&self) -> u64 {
        self.fc.pfc_ingress_bytes()
    }
}

/// The ECN marking streams: one per switch (`switch/<node>/ecn`), or, to reproduce runs
/// made before switches had their own streams, one shared by all (`switch/ecn`).
pub struct EcnStreams {
    streams: Vec<crate::engine::RngStream>,
    shared: bool,
}

impl EcnStreams {
    /// `nodes`: the switches' node ids, in switch order.
    pub fn new(seed: u64, nodes: &[NodeId], shared: bool) -> EcnStreams {
        use crate::engine::rng_stream;
        let streams = if shared {
            vec![rng_stream(seed, "switch/ecn")]
        } else {
            nodes.iter().map(|n| rng_stream(seed, &format!("switch/{}/ecn", n.0))).collect()
        };
        EcnStreams { streams, shared }
    }

    #[inline]
    fn for_switch(&mut self, sw: usize) -> &mut crate::engine::RngStream {
        if self.shared {
            &mut self.streams[0]
        } else {
            &mut self.streams[sw]
        }
    }
}
