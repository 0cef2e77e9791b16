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
//! Each stage is a policy family: a trait with no-op default hooks, one file per mechanism
//! and one registration list that generates the family's enum (static dispatch), its
//! scenario table, its dispatch, names and construction.
//!
//! - [`load_balance`]: which of the equal-cost egress ports (ECMP, DRILL, LetFlow);
//!   `[routing] load_balancer`.
//! - [`flow_control`]: which egress queue, lossless admission (PFC ingress accounting),
//!   control frames upstream and which queues may send (PFC, per-flow, BFC, Pyrrha,
//!   none); `[switch.flow_control]`.
//! - [`admission`]: for lossy packets, the buffer rule (dynamic threshold, static per
//!   port) and what happens to refused packets (drop-tail; deflection: DIBS, naive DIBS,
//!   Simple and Preemptive Deflection, Vertigo, AIFO); `[switch.deflection]`.
//! - [`signals`]: what a switch tells endpoints besides forwarding (INT appended at
//!   egress, Bolt's SRC / PRU / SM); each builds itself when the run needs it.
//!
//! `Switches` owns the per-switch buffers and ECN streams, the four families, the control
//! frames in flight and their counts; it receives the fabric as a context and never sees
//! the simulator. Forwarding happens inside the arrival handler (no extra event); a busy
//! port has one pending `TxDone`. Each policy keeps its state in its own arrays.

pub mod admission;
mod control;
pub mod flow_control;
pub mod load_balance;
mod preempt;
pub mod signals;

pub use crate::fabric::ecn::RedProfile;
pub use crate::fabric::int::{IntHop, IntStack, INT_MAX_HOPS};
pub use admission::{Admission, BufferRule, Deflection, SharedBuffer, Verdict};
pub use flow_control::{Arrival, ControlEvent, ControlPayload, FlowControl, Hop, HopArgs};
pub use load_balance::LoadBalancer;

use crate::fabric::frames::{FrameCounters, FramePayloads};
use crate::fabric::headers::Field;
use crate::fabric::packet::{Packet, PacketKind};
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::{NodeId, PortId};
use crate::metrics::{DropCause, Drops};
use crate::observe::PacketEvent;
use signals::SignalCx;

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

/// Every switch of a run: each one's buffer and drops, and the pipeline's policies.
pub struct Switches {
    /// Per switch (by switch index).
    pub nodes: Vec<Switch>,
    pub cfg: SwitchConfig,
    pub lb: LoadBalancer,
    pub fc: FlowControl,
    pub admission: Admission,
    pub ecn_rngs: EcnStreams,
    /// The signals this run needs (INT, Bolt's), and whether any acts on arrivals or on
    /// departures.
    pub signals: Vec<signals::Signal>,
    pub arrival_signals: bool,
    pub departure_signals: bool,
    /// Hop limit of the packets switches create (Bolt's SRCs).
    pub ttl: u8,
    /// Payloads of the control frames in flight, beside their slots.
    pub frames: FramePayloads<ControlPayload>,
    /// Control frames sent and received, per kind.
    pub frame_counts: FrameCounters,
    /// The control frames sent (`[output] pfc_events` or `control_frames`), in time order.
    pub control_log: Option<Vec<ControlEvent>>,
    /// `[output] control_frames`: the log is reported whole, not only its PFC frames.
    pub log_all_frames: bool,
    /// The rank field admission reads (when it reads ranks), and the one rank-ordered
    /// queues order by (when a queue is rank-ordered).
    pub rank_read: Option<Field>,
    pub rank_order: Option<Field>,
}

/// One switch.
pub struct Switch {
    pub node: NodeId,
    pub first_port: u32,
    pub mmu: SharedBuffer,
    pub drops: Drops,
}

/// A switch signal's context, borrowed from the fabric's fields one by one.
macro_rules! signal_cx {
    ($fab:expr) => {
        SignalCx {
            now: $fab.now,
            ports: &$fab.ports,
            store: &$fab.store,
            headers: &mut $fab.headers,
            int_stacks: &mut $fab.int_stacks,
        }
    };
}

/// Where an admitted packet goes: packet `r`, arrived at switch `sw` on its local port
/// `local_in`, for `queue` of `egress`.
#[derive(Clone, Copy)]
pub(crate) struct Placement {
    pub sw: usize,
    pub r: PacketRef,
    pub local_in: u32,
    pub egress: PortId,
    pub queue: usize,
}

/// Whether a packet queued now for `queue` of `egress` would be the next one sent, at
/// once: the port is idle, its control queue and every data queue empty, `queue` not
/// paused, its queues served by the plain round robin (no shaper, rank order or back
/// links), and no packet trace records the enqueue and dequeue.
#[inline(always)]
fn leaves_at_once(fab: &Fabric, egress: PortId, queue: usize) -> bool {
    let pt = &fab.ports[egress.idx()];
    !pt.is_busy(fab.now)
        && pt.control_queue.is_empty()
        && pt.queues.all_empty_and_eligible(queue)
        && fab.obs.packet_trace.is_none()
}

impl Switches {
    /// A packet finished arriving on `in_port` of switch `sw`: route, classify, admit,
    /// enqueue.
    pub(crate) fn switch_receive(&mut self, fab: &mut Fabric, sw: usize, in_port: PortId, r: PacketRef) {
        let node = self.nodes[sw].node;
        let pkt = *fab.store.get(r);
        let egress = self.lb.select(fab, node, sw, &pkt, r);
        if egress == PortId::NONE {
            self.drop_at(fab, sw, r, in_port, 0, DropCause::NoRoute);
            return;
        }
        if self.cfg.control_kinds & kind_bit(pkt.kind) != 0 {
            let pt = &mut fab.ports[egress.idx()];
            if pt.is_busy(fab.now) || !pt.control_queue.is_empty() {
                fab.store.push_back(&mut pt.control_queue, r);
                self.switch_try_send(fab, egress);
                return;
            }
            // An idle port with no control frame waiting sends it at once, as the
            // control queue (strict priority) would.
            fab.start_tx(egress, r);
            fab.wake_if_more_work(egress);
            return;
        }
        let queue = self.fc.classify(fab, sw, egress, &pkt, r);
        if self.arrival_signals && pkt.kind == PacketKind::Data {
            self.signal_arrival(fab, sw, egress, r);
        }
        let local_in = in_port.0 - self.nodes[sw].first_port;
        let Some((egress, queue, signal)) = self.admit(fab, sw, r, &pkt, in_port, local_in, egress, queue)
        else {
            return;
        };
        if !signal && leaves_at_once(fab, egress, queue) {
            self.pass_straight(fab, Placement { sw, r, local_in, egress, queue });
            return;
        }
        self.enqueue(fab, Placement { sw, r, local_in, egress, queue });
        if signal {
            self.send_pending_frames(fab);
        }
        self.switch_try_send(fab, egress);
    }

    /// Admission of data packet `r` (a copy in `pkt`) for `queue` of `egress`: the shared
    /// buffer, then lossless flow control or, for lossy packets, the admission policy
    /// (which may deflect it; a marking verdict sets CE here). Returns where it goes and
    /// whether flow control has frames for the upstream; `None` when it was dropped.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn admit(
        &mut self,
        fab: &mut Fabric,
        sw: usize,
        r: PacketRef,
        pkt: &Packet,
        in_port: PortId,
        local_in: u32,
        egress: PortId,
        queue: usize,
    ) -> Option<(PortId, usize, bool)> {
        let size = pkt.wire_bytes as u64;
        let buffer = self.cfg.buffer_bytes;
        let used = self.nodes[sw].mmu.used_bytes;
        if used + size > buffer {
            self.drop_at(fab, sw, r, egress, queue, DropCause::BufferFull);
            return None;
        }
        let queue_bytes = fab.ports[egress.idx()].queues.queue_bytes(queue);
        let hop = HopArgs { sw, in_port, local_in, egress, queue, pkt, r, buffer };
        let arrival = self.fc.on_arrival(fab, hop, queue_bytes);
        match arrival {
            Arrival::Admit => return Some((egress, queue, false)),
            Arrival::AdmitAndSignal => return Some((egress, queue, true)),
            Arrival::Refuse(cause) => {
                self.drop_at(fab, sw, r, egress, queue, cause);
                return None;
            }
            Arrival::Lossy => {}
        }
        let rank = self.rank_read.map_or(0, |f| fab.headers.get(r.index(), f));
        let ttl = &mut fab.store.get_mut(r).ttl;
        let now = fab.now;
        let arrival = admission::Arrival { sw, egress, queue, size, used, buffer, ttl, rank, now };
        match self.admission.admit(arrival, &fab.ports) {
            Verdict::Enqueue => Some((egress, queue, false)),
            Verdict::Mark => {
                fab.store.get_mut(r).mark_ce();
                fab.counters.ecn_marks += 1;
                Some((egress, queue, false))
            }
            Verdict::Drop(cause) => {
                self.drop_at(fab, sw, r, egress, queue, cause);
                None
            }
            Verdict::Deflect(to) => {
                self.count_deflection(fab, egress, to, r);
                let queue = self.fc.classify(fab, sw, to, pkt, r);
                if self.admission.readmit(&fab.ports[to.idx()], queue, size, used, buffer) {
                    Some((to, queue, false))
                } else {
                    self.drop_at(fab, sw, r, to, queue, DropCause::EgressAdmission);
                    None
                }
            }
            Verdict::MakeRoom => {
                self.make_room(fab, Placement { sw, r, local_in, egress, queue });
                None
            }
        }
    }

    /// Packet `r` is deflected from `from` to `to`: count it per port, per flow and in
    /// the packet trace.
    #[inline(never)]
    pub(crate) fn count_deflection(&mut self, fab: &mut Fabric, from: PortId, to: PortId, r: PacketRef) {
        fab.ports[from.idx()].stats.deflections += 1;
        fab.counters.deflections += 1;
        let flow = fab.store.get(r).flow;
        if let Some(f) = fab.flow_deflections.get_mut(flow.idx()) {
            *f += 1;
        }
        if let Some(trace) = &mut fab.obs.packet_trace {
            let backlog = fab.ports[to.idx()].queues.backlog_bytes;
            trace.record(fab.now, PacketEvent::Deflect, to, fab.store.get(r), 0, backlog);
        }
    }

    /// Account, mark and queue admitted packet `at.r` in `at.queue` of `at.egress`.
    #[inline(always)]
    pub(crate) fn enqueue(&mut self, fab: &mut Fabric, at: Placement) {
        let Placement { r, egress, queue, .. } = at;
        self.account_arrival(fab, at);
        let port = &mut fab.ports[egress.idx()];
        let (headers, rank) = (&fab.headers, self.rank_order);
        // A rank-ordered queue (Vertigo's) orders by the ranks in the packets' header fields.
        port.queues.enqueue_with(&mut fab.store, queue, r, |x| rank.map_or(0, |f| headers.get(x.index(), f)));
        port.note_backlog();
        if let Some(trace) = &mut fab.obs.packet_trace {
            trace.record(
                fab.now,
                PacketEvent::Enqueue,
                egress,
                fab.store.get(r),
                queue,
                port.queues.backlog_bytes,
            );
        }
    }

    /// Admitted packet `at.r` reached `at.queue` of `at.egress` when [`leaves_at_once`] holds: it
    /// is transmitted now. Everything queuing and dequeuing it would do is done (the
    /// shared buffer's count and peak, ECN at enqueue and dequeue, the port's largest
    /// backlog, the round robin's position, flow control's departure, the queuing-delay
    /// sample of 0) without linking it into the queue and out again: on the k = 8
    /// fat-tree at load 0.5, with the control queue's like pass, seven switch hops in ten.
    #[inline(always)]
    fn pass_straight(&mut self, fab: &mut Fabric, at: Placement) {
        let Placement { r, egress, queue, .. } = at;
        self.account_arrival(fab, at);
        let p = *fab.store.get(r);
        let pt = &mut fab.ports[egress.idx()];
        pt.note_backlog_of(p.wire_bytes as u64);
        pt.queues.served(queue);
        self.depart_at(fab, at.sw, egress, queue, r, &p);
    }

    /// The shared buffer's count, ECN at enqueue, the packet's ingress port and enqueue
    /// time: what queuing packet `at.r` for `at.queue` of `at.egress` records before it is
    /// linked.
    #[inline(always)]
    fn account_arrival(&mut self, fab: &mut Fabric, at: Placement) {
        let Placement { sw, r, local_in, egress, queue } = at;
        let s = &mut self.nodes[sw];
        // The slot is found once for the common case; a marked packet finds it again.
        let stored = fab.store.get_mut(r);
        let size = stored.wire_bytes as u64;
        let data = stored.kind == PacketKind::Data;
        stored.ingress = local_in as u16;
        stored.enq_ns = fab.now.as_ns_wrapping();
        s.mmu.used_bytes += size;
        s.mmu.peak_bytes = s.mmu.peak_bytes.max(s.mmu.used_bytes);
        let mark = self.cfg.ecn_enabled
            && !self.cfg.ecn_at_dequeue
            && data
            && self.ecn_decides_mark(fab, sw, egress, fab.ports[egress.idx()].queues.queue_bytes(queue));
        if mark {
            fab.store.get_mut(r).mark_ce();
            fab.counters.ecn_marks += 1;
        }
    }

    /// Drop packet `r` at switch `sw` (it was meant for `queue` of `port`).
    pub(crate) fn drop_at(
        &mut self,
        fab: &mut Fabric,
        sw: usize,
        r: PacketRef,
        port: PortId,
        queue: usize,
        cause: DropCause,
    ) {
        if fab.store.get(r).kind == PacketKind::Data {
            self.nodes[sw].drops.add(cause);
            fab.counters.drops.add(cause);
        } else {
            fab.counters.control_drops += 1;
        }
        if let Some(trace) = &mut fab.obs.packet_trace {
            let backlog = fab.ports.get(port.idx()).map_or(0, |p| p.queues.backlog_bytes);
            trace.record(fab.now, PacketEvent::Drop, port, fab.store.get(r), queue, backlog);
        }
        fab.consume(r);
    }

    /// Start the next packet on idle switch port `port`: control frames first, then the
    /// data queue the scheduler picks among eligible ones.
    pub(crate) fn switch_try_send(&mut self, fab: &mut Fabric, port: PortId) {
        let pt = &mut fab.ports[port.idx()];
        if pt.is_busy(fab.now) {
            if pt.has_work() {
                fab.wake_when_idle(port);
            }
            return;
        }
        if let Some(pkt) = fab.store.pop_front(&mut pt.control_queue) {
            fab.start_tx(port, pkt);
            fab.wake_if_more_work(port);
            return;
        }
        let (queue, pkt, p) = loop {
            let pt = &mut fab.ports[port.idx()];
            let Some(queue) = pt.queues.next_queue() else {
                return;
            };
            let pkt = pt.queues.dequeue(&mut fab.store, queue).expect("eligible queue is non-empty");
            pt.queues.served(queue);
            let p = *fab.store.get(pkt);
            match p.kind {
                PacketKind::Data => break (queue, pkt, p),
                PacketKind::Marker => {
                    // Never transmitted: its owner acts when it reaches the head.
                    fab.consume(pkt);
                    self.fc.on_marker(fab, port, p.seq);
                }
                _ => break (queue, pkt, p), // ACKs queued with data
            }
        };
        self.depart(fab, port, queue, pkt, &p);
    }

    /// Packet `pkt` (a copy in `p`), just taken from `queue` of idle `port`, is sent:
    /// release its accounting, ECN at dequeue, departure signals, the queuing-delay
    /// sample, then transmission and what the port does next.
    #[inline(always)]
    fn depart(&mut self, fab: &mut Fabric, port: PortId, queue: usize, pkt: PacketRef, p: &Packet) {
        let sw = fab.switch_of(port);
        self.depart_at(fab, sw, port, queue, pkt, p);
    }

    /// [`depart`](Self::depart) from switch `sw` (the straight pass knows it already).
    #[inline(always)]
    fn depart_at(
        &mut self,
        fab: &mut Fabric,
        sw: usize,
        port: PortId,
        queue: usize,
        pkt: PacketRef,
        p: &Packet,
    ) {
        let size = p.wire_bytes as u64;
        let data = p.kind == PacketKind::Data;
        let signal = self.release_at(fab, sw, port, queue, pkt, p);
        if data {
            let queue_after = fab.ports[port.idx()].queues.queue_bytes(queue);
            if self.cfg.ecn_enabled
                && self.cfg.ecn_at_dequeue
                && self.ecn_decides_mark(fab, sw, port, queue_after)
            {
                fab.store.get_mut(pkt).mark_ce();
                fab.counters.ecn_marks += 1;
            }
            if self.departure_signals {
                self.signal_departure(fab, port, pkt);
            }
            let waited = fab.now.as_ns_wrapping().wrapping_sub(p.enq_ns);
            fab.obs.queue_delay.record(fab.obs.hop_tier[port.idx()], waited as u64);
        }
        fab.start_tx(port, pkt);
        if let Some(at) = fab.ports[port.idx()].queues.after_send(queue, size, fab.now) {
            fab.schedule_shaper(port, at);
        }
        fab.wake_if_more_work(port);
        if signal {
            self.send_pending_frames(fab);
        }
    }

    /// Packet `p` (in slot `r`) left `queue` of switch port `port` (to be sent, or dropped
    /// with a failed link): release its shared-buffer and flow-control accounting. Returns
    /// the switch and whether flow control has frames to send upstream.
    #[inline(always)]
    pub(crate) fn release_departure(
        &mut self,
        fab: &mut Fabric,
        port: PortId,
        queue: usize,
        r: PacketRef,
        p: &Packet,
    ) -> (usize, bool) {
        let sw = fab.switch_of(port);
        (sw, self.release_at(fab, sw, port, queue, r, p))
    }

    /// [`release_departure`](Self::release_departure) at switch `sw`, the one `port` is on.
    #[inline(always)]
    fn release_at(
        &mut self,
        fab: &mut Fabric,
        sw: usize,
        port: PortId,
        queue: usize,
        r: PacketRef,
        p: &Packet,
    ) -> bool {
        let buffer = self.cfg.buffer_bytes;
        let s = &mut self.nodes[sw];
        s.mmu.used_bytes -= p.wire_bytes as u64;
        let local_in = p.ingress as u32;
        let in_port = PortId(s.first_port + local_in);
        let hop = HopArgs { sw, in_port, local_in, egress: port, queue, pkt: p, r, buffer };
        self.fc.on_dequeue(fab, hop)
    }

    /// Data packet `r` arrived at switch `sw` for `egress`: the signals that act on
    /// arrivals see it, and a notice one of them sends back leaves at once. (Out of the
    /// event loop's line, taking the packet's slot only: no local of the loop escapes.)
    #[cold]
    #[inline(never)]
    fn signal_arrival(&mut self, fab: &mut Fabric, sw: usize, egress: PortId, r: PacketRef) {
        let node = self.nodes[sw].node;
        let pkt = *fab.store.get(r);
        for i in 0..self.signals.len() {
            let mut cx = signal_cx!(fab);
            if let Some(notice) = self.signals[i].on_arrival(&mut cx, node, egress, &pkt, r.index()) {
                self.send_notice(fab, sw, notice);
            }
        }
    }

    /// Send `packet` from switch `sw` (a signal's notice) on its route.
    fn send_notice(&mut self, fab: &mut Fabric, sw: usize, packet: Packet) {
        let node = self.nodes[sw].node;
        let s = fab.store.insert(packet);
        fab.headers.reset(s.index());
        let egress = self.lb.select(fab, node, sw, &packet, s);
        if egress == PortId::NONE {
            fab.consume(s);
            return;
        }
        fab.store.push_back(&mut fab.ports[egress.idx()].control_queue, s);
        self.switch_try_send(fab, egress);
    }

    /// Data packet `r` leaves `port`: the signals that act on departures stamp it with the
    /// queue length flow control reports there.
    #[inline(never)]
    fn signal_departure(&mut self, fab: &mut Fabric, port: PortId, r: PacketRef) {
        let p = &fab.ports[port.idx()];
        let queue_bytes = if fab.headers.is_enabled() {
            self.fc.int_queue_bytes(p, r.index(), &fab.headers)
        } else {
            p.backlog_bytes()
        };
        let mut cx = signal_cx!(fab);
        for s in &mut self.signals {
            s.on_departure(&mut cx, port, r.index(), queue_bytes);
        }
    }

    /// RED decision at switch `sw` for a packet seeing `queue_bytes` in front of it on
    /// `port`, drawn from the switch's own ECN stream. An empty queue answers in line: no
    /// profile marks at 0 bytes and none draws there ([`RedProfile::decide`] marks only
    /// above `kmin`), which is what every packet that passes straight through sees.
    #[inline(always)]
    fn ecn_decides_mark(&mut self, fab: &mut Fabric, sw: usize, port: PortId, queue_bytes: u64) -> bool {
        queue_bytes != 0 && self.red_decides(fab, sw, port, queue_bytes)
    }

    /// [`ecn_decides_mark`](Self::ecn_decides_mark) for a queue that holds bytes.
    fn red_decides(&mut self, fab: &mut Fabric, sw: usize, port: PortId, queue_bytes: u64) -> bool {
        // Profile 0 (`RedProfile::NEVER`) never marks and never draws.
        let red = &fab.red_profiles[fab.ports[port.idx()].red as usize];
        red.decide(queue_bytes, self.ecn_rngs.for_switch(sw))
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
