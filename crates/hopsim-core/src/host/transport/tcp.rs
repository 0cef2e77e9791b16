//! TCP: a byte-stream sender and receiver beside the RoCE transport (`transport.kind =
//! "tcp"`), sharing its NIC scheduler and its congestion-control trait.
//!
//! - Sender: the congestion window (`Flow::window`, payload bytes) and `ssthresh` are
//!   the congestion control's; loss detection is here. Three duplicate ACKs start fast
//!   retransmit and NewReno fast recovery (RFC 5681 §3.2, RFC 6582): the window is
//!   inflated by one segment per further duplicate, a partial ACK retransmits the next
//!   hole, a full ACK deflates to `ssthresh`. With SACK (`transport.tcp.sack`), every
//!   duplicate ACK names the segment that arrived and recovery resends each hole below
//!   the highest one SACKed (RFC 6675's scoreboard, on IRN's bitmap). Fast retransmit can
//!   be switched off, as DIBS does (DIBS §4, and the deflection paper §5.2). The
//!   retransmission timer follows RFC 6298 — SRTT / RTTVAR from every ACK's echoed send
//!   time (timestamps, RFC 7323 §4), `RTO = max(min_rto, SRTT + 4·RTTVAR)`, doubled per
//!   expiry up to `max_rto` — and an expiry goes back to the first unacknowledged byte
//!   with a one-segment window.
//! - Receiver: keeps out-of-order segments and acknowledges cumulatively; a segment out
//!   of order is answered at once with a duplicate ACK (naming it, with SACK). Delayed
//!   ACKs (RFC 1122 §4.2.3.2; RFC 5681 §4.2: every second full segment, or after
//!   `delayed_ack`) are optional; anything out of order or filling a hole is acknowledged
//!   at once.
//! - The ordering layer (Vertigo, Abdous et al., CoNEXT 2021, §3.3): below TCP, it holds
//!   segments that arrive out of order until the gap fills — then TCP sees them in order
//!   and sends one cumulative ACK — or until `reorder_timeout` passes since the first of
//!   them arrived, when it hands them to TCP as they are (one duplicate ACK each).

use super::hooks::{HostCx, Kick, TransportPolicy};
use super::irn::{IrnSender, PacketBitmap};
use crate::engine::{Event, TimerKind};
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::store::PacketRef;
use crate::host::cc::{Ack, Loss};
use crate::host::flow::Flow;
use crate::ids::FlowId;
use crate::time::{Delta, SimTime};

/// TCP settings (`[transport.tcp]`).
#[derive(Clone, Debug)]
pub struct TcpParams {
    /// Initial window, segments (RFC 6928: 10; the deflection paper §5.2).
    pub initial_window: u64,
    pub initial_rto: Delta,
    pub min_rto: Delta,
    pub max_rto: Delta,
    pub fast_retransmit: bool,
    pub dupack_threshold: u32,
    pub sack: bool,
    /// Zero: acknowledge every segment.
    pub delayed_ack: Delta,
    /// The ordering layer's timeout (`None`: no ordering layer).
    pub reorder_timeout: Option<Delta>,
    /// The receiver's advertised window, bytes (`None`: unbounded).
    pub receive_window: Option<u64>,
}

/// No SACK block in a duplicate ACK.
const NO_SACK: u32 = u32::MAX;

/// TCP state of one flow: sender loss recovery and timer, receiver reassembly.
#[derive(Clone, Debug)]
pub struct TcpFlow {
    // --- sender
    pub dupacks: u32,
    pub in_recovery: bool,
    /// NewReno's `recover`: the highest byte sent when recovery began.
    pub recover: u64,
    /// A single segment to resend before new data (NewReno).
    pub retransmit: Option<u64>,
    /// SACK scoreboard (with `sack`).
    pub scoreboard: Option<IrnSender>,
    pub srtt: Option<Delta>,
    pub rttvar: Delta,
    /// The current timeout, backoff included.
    pub rto: Delta,
    // --- receiver
    pub received: PacketBitmap,
    /// End of the highest segment received.
    pub highest_received: u64,
    /// Ordering layer: segments below this offset were handed to TCP.
    pub released_below: u64,
    pub hold_timer: bool,
    /// In-order segments not yet acknowledged (delayed ACKs).
    pub delayed: u32,
    pub delayed_timer: bool,
    /// Segments the ordering layer held, and those it released on a timeout.
    pub held_packets: u32,
    pub released_packets: u32,
}

impl TcpFlow {
    pub fn new(p: &TcpParams) -> TcpFlow {
        TcpFlow {
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            retransmit: None,
            scoreboard: p.sack.then(IrnSender::default),
            srtt: None,
            rttvar: Delta::ZERO,
            rto: p.initial_rto,
            received: PacketBitmap::default(),
            highest_received: 0,
            released_below: 0,
            hold_timer: false,
            delayed: 0,
            delayed_timer: false,
            held_packets: 0,
            released_packets: 0,
        }
    }

    /// The next segment to resend, if any: NewReno's one segment, else a SACK hole.
    #[inline]
    pub fn next_retransmission(&mut self, mtu: u64) -> Option<u64> {
        if let Some(seq) = self.retransmit {
            return Some(seq);
        }
        self.scoreboard.as_mut().and_then(|s| s.next_hole(mtu))
    }

    /// The resend of `seq` (`payload` bytes) left.
    pub fn retransmitted(&mut self, seq: u64, payload: u64) {
        if self.retransmit == Some(seq) {
            self.retransmit = None;
        } else if let Some(s) = &mut self.scoreboard {
            s.retransmit_next = seq + payload;
        }
    }

    /// RFC 6298 §2: a round-trip sample updates SRTT, RTTVAR and the timeout (and ends any
    /// backoff).
    fn rtt_sample(&mut self, rtt: Delta, p: &TcpParams) {
        let r = rtt.0 as i128;
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = Delta(rtt.0 / 2);
            }
            Some(s) => {
                let err = (s.0 as i128 - r).unsigned_abs() as u64;
                self.rttvar = Delta((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Delta(((7 * s.0 as i128 + r) / 8) as u64));
            }
        }
        let rto = self.srtt.expect("set above") + Delta(4 * self.rttvar.0);
        self.rto = rto.max(p.min_rto).min(p.max_rto);
    }
}

/// The TCP transport of every host.
#[derive(Clone, Debug)]
pub struct Tcp {
    pub params: TcpParams,
    /// Per flow.
    pub flows: Vec<TcpFlow>,
}

impl Tcp {
    pub fn new(params: TcpParams, flows: usize) -> Tcp {
        Tcp { flows: (0..flows).map(|_| TcpFlow::new(&params)).collect(), params }
    }

    /// Nothing left to send of flow `f` (new data or resends).
    fn all_sent(&mut self, f: FlowId, flow: &Flow, mss: u64) -> bool {
        self.next_segment(f, flow, mss).is_none()
    }

    /// The ACK the receiver of `data`'s flow sends now: cumulative up to `rcv_nxt`, with a
    /// SACK block naming segment `sack` (or none), echoing ECN.
    fn ack_of(&mut self, cx: &mut HostCx, data: &Packet, sack: u32) -> Packet {
        let t = &cx.core.cfg;
        let flow = &mut cx.core.flows[data.flow.idx()];
        let tcp = &mut self.flows[data.flow.idx()];
        tcp.delayed = 0;
        if std::mem::take(&mut tcp.delayed_timer) {
            flow.timer_gen[TimerKind::TcpDelayedAck.slot()] += 1;
        }
        let echo = std::mem::take(&mut flow.ce_pending);
        Packet {
            kind: PacketKind::Ack,
            priority: data.priority,
            flags: PacketFlags::NONE.with(PacketFlags::CNP_ECHO, echo),
            flow: data.flow,
            src: data.dst,
            dst: data.src,
            sport: data.dport,
            dport: data.sport,
            seq: flow.rcv_nxt,
            payload: 0,
            sack,
            wire_bytes: t.ack_bytes as u16,
            sent_at: data.sent_at,
            ingress: 0,
            enq_ns: 0,
            ttl: t.ttl,
        }
    }

    /// Queue a new ACK of flow `f` at its receiver (a timer's, not a data packet's).
    fn send_new_ack(&mut self, cx: &mut HostCx, f: FlowId, sack: u32, sent_at: SimTime) -> Kick {
        let flow = &cx.core.flows[f.idx()];
        // A stand-in for the data packet the ACK answers: addresses, ports and class.
        let data = Packet {
            kind: PacketKind::Data,
            priority: flow.priority,
            flags: PacketFlags::NONE,
            flow: f,
            src: flow.src,
            dst: flow.dst,
            sport: flow.sport,
            dport: flow.dport,
            seq: 0,
            payload: 0,
            sack: NO_SACK,
            wire_bytes: 0,
            sent_at,
            ingress: 0,
            enq_ns: 0,
            ttl: 0,
        };
        let receiver = flow.dst;
        let ack = self.ack_of(cx, &data, sack);
        let fab = &mut *cx.fab;
        let r = fab.store.insert(ack);
        if fab.headers.is_enabled() {
            fab.headers.reset(r.index());
        }
        let h = fab.node_slot[receiver.idx()] as usize;
        let port = cx.core.nodes[h].port;
        fab.store.push_back(&mut fab.ports[port.idx()].control_queue, r);
        Some(h)
    }

    /// TCP sender: the retransmission timer of flow `f` fired (RFC 6298 §5).
    #[inline(never)]
    fn on_rto(&mut self, cx: &mut HostCx, f: FlowId, generation: u32) -> Kick {
        let now = cx.fab.now;
        let t = &cx.core.cfg;
        let tp = &self.params;
        let mss = t.mtu as u64;
        let flow = &mut cx.core.flows[f.idx()];
        flow.rto_pending = false;
        if flow.snd_una >= flow.snd_nxt {
            return None; // nothing outstanding; re-armed by the next send
        }
        let tcp = &mut self.flows[f.idx()];
        let deadline = flow.last_progress + tcp.rto;
        if now < deadline {
            flow.rto_pending = true;
            cx.fab.events.schedule(deadline, Event::FlowTimer { flow: f, kind: TimerKind::Rto, generation });
            return None;
        }
        flow.timeouts += 1;
        let flight = flow.snd_nxt - flow.snd_una;
        tcp.rto = Delta(tcp.rto.0.saturating_mul(2)).min(tp.max_rto);
        tcp.in_recovery = false;
        tcp.dupacks = 0;
        tcp.retransmit = None;
        tcp.recover = flow.snd_nxt;
        if tcp.scoreboard.is_some() {
            // RFC 6675 §5.1 lets the sender forget SACK information after a timeout.
            tcp.scoreboard = Some(IrnSender::default());
        }
        flow.snd_nxt = flow.snd_una;
        flow.last_progress = now;
        let (cc, mut view) = flow.cc_parts(now, mss + t.header_bytes as u64, mss);
        cc.on_loss(Loss::Timeout { flight }, &mut view, &t.cc_params);
        let h = cx.fab.node_slot[flow.src.idx()] as usize;
        cx.core.activate(h, f);
        Some(h)
    }

    /// TCP receiver timers: the delayed ACK, and the ordering layer's timeout.
    #[inline(never)]
    fn on_receiver_timer(&mut self, cx: &mut HostCx, f: FlowId, kind: TimerKind) -> Kick {
        let mss = cx.core.cfg.mtu as u64;
        let now = cx.fab.now;
        let tcp = &mut self.flows[f.idx()];
        match kind {
            TimerKind::TcpDelayedAck => {
                tcp.delayed_timer = false;
                if tcp.delayed > 0 {
                    return self.send_new_ack(cx, f, NO_SACK, now);
                }
                None
            }
            TimerKind::TcpReorder => {
                // Hand every held segment to TCP: one duplicate ACK each.
                let rcv_nxt = cx.core.flows[f.idx()].rcv_nxt;
                tcp.hold_timer = false;
                let from = rcv_nxt.max(tcp.released_below);
                let to = tcp.highest_received;
                tcp.released_below = to;
                let held: Vec<u32> = (from / mss..to.div_ceil(mss))
                    .filter(|i| i * mss >= rcv_nxt && tcp.received.get(*i))
                    .map(|i| i as u32)
                    .collect();
                tcp.released_packets += held.len() as u32;
                let mut kick = None;
                for idx in held {
                    kick = self.send_new_ack(cx, f, idx, now);
                }
                kick
            }
            _ => unreachable!("not a receiver timer"),
        }
    }
}

impl TransportPolicy for Tcp {
    /// TCP with `[transport.tcp]`'s settings (validation resolved them for TCP runs).
    fn build(cfg: &crate::host::TransportConfig, flows: usize) -> Self {
        Tcp::new(cfg.tcp.clone().expect("a TCP run has TCP settings"), flows)
    }

    const NAME: &'static str = "tcp";
    /// The receiver's reassembly and timers in its partition, the sender's window and
    /// recovery in its own; the receiver's timers outlive the sender's finish
    /// (`TimerKind::at_receiver`; `tests/parallel.rs`).
    const PARTITIONS: bool = true;
    const INLINE: bool = true;

    #[inline(always)]
    fn next_segment(&mut self, f: FlowId, flow: &Flow, mss: u64) -> Option<(u64, bool)> {
        if let Some(seq) = self.flows[f.idx()].next_retransmission(mss) {
            return Some((seq, true));
        }
        (flow.snd_nxt < flow.size).then_some((flow.snd_nxt, false))
    }

    #[inline(always)]
    fn on_sent(&mut self, f: FlowId, flow: &mut Flow, seq: u64, payload: u64, hole: bool) {
        if hole {
            self.flows[f.idx()].retransmitted(seq, payload);
        } else {
            flow.snd_nxt += payload;
        }
    }

    fn first_rto(&self, f: FlowId, _default: Delta) -> Delta {
        self.flows[f.idx()].rto
    }

    /// TCP receiver: a data segment arrived at host `h`.
    #[inline(never)]
    fn on_data(&mut self, cx: &mut HostCx, h: usize, r: PacketRef) -> Kick {
        let data = *cx.fab.store.get(r);
        cx.fab.counters.data_packets_delivered += 1;
        let now = cx.fab.now;
        let tp = &self.params;
        let mss = cx.core.cfg.mtu as u64;
        let flow = &mut cx.core.flows[data.flow.idx()];
        flow.ce_pending |= data.ecn_ce();
        flow.reorder.on_arrival(data.seq, data.payload as u32, data.retransmit());
        let tcp = &mut self.flows[data.flow.idx()];
        let idx = data.seq / mss;
        let new_data = data.seq == flow.rcv_nxt || (data.seq > flow.rcv_nxt && !tcp.received.get(idx));
        if new_data {
            if let Some(tput) = &mut cx.fab.obs.throughput {
                tput.add(now, data.flow, data.payload as u64);
            }
        }
        // What the receiver answers: nothing, a cumulative ACK, or a duplicate naming the
        // segment that arrived.
        let mut reply: Option<u32> = None;
        if data.seq == flow.rcv_nxt {
            let had_gap = tcp.highest_received > flow.rcv_nxt + data.payload as u64;
            flow.rcv_nxt += data.payload as u64;
            while flow.rcv_nxt < flow.size && tcp.received.get(flow.rcv_nxt / mss) {
                flow.rcv_nxt = (flow.rcv_nxt + mss).min(flow.size);
            }
            tcp.highest_received = tcp.highest_received.max(flow.rcv_nxt);
            tcp.delayed += 1;
            let immediate = had_gap
                || tp.delayed_ack == Delta::ZERO
                || tcp.delayed >= 2
                || flow.rcv_nxt >= flow.size
                || data.ecn_ce();
            if immediate {
                reply = Some(NO_SACK);
            } else if !tcp.delayed_timer {
                tcp.delayed_timer = true;
                let generation = flow.timer_gen[TimerKind::TcpDelayedAck.slot()];
                let at = now + tp.delayed_ack;
                let ev = Event::FlowTimer { flow: data.flow, kind: TimerKind::TcpDelayedAck, generation };
                cx.fab.events.schedule(at, ev);
            }
            if tcp.hold_timer && had_gap {
                // The gap the ordering layer was waiting on has filled: stop waiting, or,
                // with segments still held behind a later gap, wait for that one afresh.
                flow.timer_gen[TimerKind::TcpReorder.slot()] += 1;
                tcp.hold_timer = flow.rcv_nxt < tcp.highest_received;
                if let (true, Some(timeout)) = (tcp.hold_timer, tp.reorder_timeout) {
                    let generation = flow.timer_gen[TimerKind::TcpReorder.slot()];
                    let ev = Event::FlowTimer { flow: data.flow, kind: TimerKind::TcpReorder, generation };
                    cx.fab.events.schedule(now + timeout, ev);
                }
            }
        } else if data.seq > flow.rcv_nxt {
            let first = !tcp.received.get(idx);
            tcp.received.set(idx);
            tcp.highest_received = tcp.highest_received.max(data.seq + data.payload as u64);
            match tp.reorder_timeout {
                Some(timeout) if first && data.seq >= tcp.released_below => {
                    tcp.held_packets += 1;
                    if !std::mem::replace(&mut tcp.hold_timer, true) {
                        let generation = flow.timer_gen[TimerKind::TcpReorder.slot()];
                        let ev =
                            Event::FlowTimer { flow: data.flow, kind: TimerKind::TcpReorder, generation };
                        cx.fab.events.schedule(now + timeout, ev);
                    }
                }
                _ => reply = Some(idx as u32),
            }
        } else {
            reply = Some(NO_SACK); // a duplicate of data already received
        }
        let port = cx.core.nodes[h].port;
        match reply {
            Some(sack) => {
                let ack = self.ack_of(cx, &data, sack);
                let fab = &mut *cx.fab;
                *fab.store.get_mut(r) = ack;
                if let Some(field) = cx.core.rank_field {
                    fab.headers.set(r.index(), field, 0);
                }
                fab.store.push_back(&mut fab.ports[port.idx()].control_queue, r);
            }
            None => {
                cx.fab.consume(r);
            }
        }
        Some(h)
    }

    /// TCP sender: an ACK (cumulative, or a duplicate, possibly with a SACK block).
    #[inline(never)]
    fn on_ack(&mut self, cx: &mut HostCx, h: usize, p: &Packet, echo_flags: u8) -> Kick {
        let now = cx.fab.now;
        let t = &cx.core.cfg;
        let tp = &self.params;
        let mss = t.mtu as u64;
        let flow = &mut cx.core.flows[p.flow.idx()];
        if flow.finish.is_some() {
            return None;
        }
        let tcp = &mut self.flows[p.flow.idx()];
        let was_in_recovery = tcp.in_recovery;
        let newly_acked = p.seq.saturating_sub(flow.snd_una);
        if newly_acked > 0 {
            flow.snd_una = p.seq;
            flow.last_progress = now;
            tcp.dupacks = 0;
            tcp.rtt_sample(now.since(p.sent_at), tp);
            if let Some(s) = &mut tcp.scoreboard {
                s.on_ack(flow.snd_una);
            }
            if tcp.retransmit.is_some_and(|seq| seq < flow.snd_una) {
                tcp.retransmit = None;
            }
            if tcp.in_recovery {
                if p.seq >= tcp.recover {
                    // Full ACK (RFC 6582 §3.2 step 3): deflate.
                    tcp.in_recovery = false;
                    flow.window = flow.ssthresh.max(mss);
                } else {
                    // Partial ACK: resend the next hole, deflate by what was acknowledged.
                    if tcp.scoreboard.is_none() {
                        tcp.retransmit = Some(flow.snd_una);
                    }
                    flow.window = flow.window.saturating_sub(newly_acked).max(mss) + mss;
                }
            }
        } else if p.seq == flow.snd_una && flow.snd_nxt > flow.snd_una {
            tcp.dupacks += 1;
            if let Some(s) = &mut tcp.scoreboard {
                if p.sack != NO_SACK {
                    let idx = p.sack as u64;
                    s.sacked.set(idx);
                    s.highest_sacked = s.highest_sacked.max(((idx + 1) * mss).min(flow.size));
                }
            }
            if tp.fast_retransmit {
                if !tcp.in_recovery && tcp.dupacks == tp.dupack_threshold && flow.snd_una >= tcp.recover {
                    // Fast retransmit (RFC 5681 §3.2 steps 2–3, RFC 6582 §3.2 step 2).
                    tcp.in_recovery = true;
                    tcp.recover = flow.snd_nxt;
                    let flight = flow.snd_nxt - flow.snd_una;
                    match &mut tcp.scoreboard {
                        Some(s) => {
                            s.recovery_end = Some(flow.snd_nxt);
                            s.retransmit_next = flow.snd_una;
                            // The first unacknowledged segment is lost by definition.
                            s.highest_sacked = s.highest_sacked.max(flow.snd_una + mss);
                        }
                        None => tcp.retransmit = Some(flow.snd_una),
                    }
                    let (cc, mut view) = flow.cc_parts(now, mss + t.header_bytes as u64, mss);
                    cc.on_loss(Loss::FastRetransmit { flight }, &mut view, &t.cc_params);
                    flow.window += tp.dupack_threshold as u64 * mss;
                } else if tcp.in_recovery {
                    flow.window += mss; // inflation
                }
            }
        }
        flow.snd_nxt = flow.snd_nxt.max(flow.snd_una);
        if flow.snd_una >= flow.size {
            cx.core.finish_flow(cx.fab, h, p.flow);
            return None;
        }
        let in_recovery = tcp.in_recovery || was_in_recovery;
        let ack = Ack {
            seq: p.seq,
            ecn_echo: p.cnp_echo(),
            sent_at: p.sent_at,
            int: None,
            newly_acked,
            echo_flags,
        };
        let (cc, mut view) = flow.cc_parts(now, mss + t.header_bytes as u64, mss);
        view.in_recovery = in_recovery;
        cc.on_ack(&ack, &mut view, &t.cc_params);
        if let Some(timer) = view.timer {
            cx.core.schedule_flow_timer(cx.fab, p.flow, timer);
        }
        let flow = &mut cx.core.flows[p.flow.idx()];
        if !flow.in_active && !self.all_sent(p.flow, flow, mss) {
            flow.in_active = true;
            cx.core.nodes[h].active.push(p.flow);
        }
        Some(h)
    }

    fn on_timer(&mut self, cx: &mut HostCx, f: FlowId, kind: TimerKind, generation: u32) -> Kick {
        match kind {
            TimerKind::Rto => self.on_rto(cx, f, generation),
            TimerKind::TcpDelayedAck | TimerKind::TcpReorder => self.on_receiver_timer(cx, f, kind),
            _ => None,
        }
    }

    fn in_recovery(&self, f: FlowId) -> bool {
        self.flows[f.idx()].in_recovery
    }

    fn loss_recovery(&self, f: FlowId) -> &'static str {
        if self.flows[f.idx()].scoreboard.is_some() {
            "tcp_sack"
        } else {
            "tcp_newreno"
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let held = self.flows.iter().map(|t| t.held_packets as u64).sum();
        let released = self.flows.iter().map(|t| t.released_packets as u64).sum();
        vec![("reorder_held", held), ("reorder_released", released)]
    }

    fn state_bytes(&self) -> u64 {
        (self.flows.capacity() * std::mem::size_of::<TcpFlow>()) as u64
    }
}
