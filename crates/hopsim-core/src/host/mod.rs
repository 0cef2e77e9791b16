//! Hosts: a NIC that schedules among active flows, and the RoCEv2-like reliable
//! transport with its congestion control.
//!
//! NIC (as the HPCC simulator's `QbbNetDevice`): control packets (ACK / NACK / CNP) go
//! first; then round-robin over active flows that are not paused by PFC, not window-bound
//! and whose rate limiter allows a packet now (`next_avail ≤ now`; after each packet
//! `next_avail = now + wire_bytes / rate`). If none is ready, the NIC wakes up at the
//! earliest `next_avail`.
//!
//! Transport: the receiver ACKs every `ack_every` in-order packets (cumulative), sends a
//! NACK for the first byte it misses (at most once per `nack_interval` for the same
//! byte), and the sender goes back to the first unacknowledged byte on a NACK or after
//! `rto` without progress (go-back-N). A flow finishes when its last byte is acknowledged.

pub mod dcqcn;
pub mod dctcp;
mod flow;
pub mod hpcc;
pub mod irn;
pub mod timely;

pub use dcqcn::{Dcqcn, DcqcnParams};
pub use dctcp::{Dctcp, DctcpParams};
pub use flow::{CcState, Flow};
pub use hpcc::{Hpcc, HpccParams};
pub use timely::{Timely, TimelyParams};

use crate::engine::{Event, TimerKind};
use crate::ids::{FlowId, NodeId, PortId};
use crate::packet::{ControlPayload, Packet, PacketFlags, PacketKind};
use crate::scenario::CcKind;
use crate::sim::Simulator;
use crate::store::PacketRef;
use crate::time::{Delta, Rate, SimTime};

/// Transport settings resolved from the scenario.
#[derive(Clone, Debug)]
pub struct TransportConfig {
    pub mtu: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    pub ack_every: u32,
    pub rto: Delta,
    pub nack_interval: Delta,
    pub cc: CcKind,
    pub dcqcn: DcqcnParams,
    pub hpcc: HpccParams,
    pub dctcp: DctcpParams,
    pub timely: TimelyParams,
    /// Bytes INT adds to data packets and to ACKs (0 when INT is off): 42 and 28 in the
    /// HPCC simulator (5 hops × 8 B + 2 B; ACKs grow from 60 to 88 B).
    pub int_data_bytes: u32,
    pub int_ack_bytes: u32,
    /// IRN loss recovery (`None`: go-back-N).
    pub irn: Option<IrnParams>,
    /// 0: echo congestion in ACKs; otherwise send a CNP at most once per interval.
    pub cnp_interval: Delta,
}

/// IRN timeouts (IRN paper §3.1).
#[derive(Clone, Debug)]
pub struct IrnParams {
    pub rto_low: Delta,
    pub rto_high: Delta,
    pub rto_low_packets: u32,
}

/// One host: its NIC port and the flows it is sending.
pub struct Host {
    pub node: NodeId,
    pub port: PortId,
    /// Flows with data left to send, in round-robin order.
    pub active: Vec<FlowId>,
    pub rr: usize,
    /// Time of the pending `NicWake`, or `NEVER`.
    pub wake_at: SimTime,
}

impl Host {
    pub fn new(node: NodeId, port: PortId) -> Host {
        Host { node, port, active: Vec::new(), rr: 0, wake_at: SimTime::NEVER }
    }
}

impl Simulator {
    /// Put flow `f` in host `h`'s round-robin list (once; the flow's flag says whether it
    /// is there, so this costs no scan on every ACK).
    pub(crate) fn activate(&mut self, h: usize, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        if !flow.in_active {
            flow.in_active = true;
            self.hosts[h].active.push(f);
        }
    }

    /// Transmit on host `h`'s NIC if it is idle and something is ready.
    pub(crate) fn nic_try_send(&mut self, h: usize) {
        let port = self.hosts[h].port;
        let host_has_work = |sim: &Simulator| {
            !sim.ports[port.idx()].control_queue.is_empty() || !sim.hosts[h].active.is_empty()
        };
        if self.ports[port.idx()].is_busy(self.now) {
            if host_has_work(self) {
                self.wake_when_idle(port);
            }
            return;
        }
        if let Some(pkt) = self.store.pop_front(&mut self.ports[port.idx()].control_queue) {
            self.start_tx(port, pkt);
            if host_has_work(self) {
                self.wake_when_idle(port);
            }
            return;
        }
        let n = self.hosts[h].active.len();
        if n == 0 {
            return;
        }
        let now = self.now;
        let mut earliest = SimTime::NEVER;
        let start = self.hosts[h].rr % n;
        for i in 0..n {
            // (start + i) mod n, without a division per flow scanned.
            let idx = if start + i < n { start + i } else { start + i - n };
            let f = self.hosts[h].active[idx];
            let mtu = self.transport.mtu;
            let flow = &mut self.flows[f.idx()];
            let Some((_, hole)) = flow.next_segment(mtu) else { continue };
            // IRN holes lie below snd_nxt: they do not grow the data in flight.
            if self.ports[port.idx()].paused[flow.priority as usize] || (!hole && flow.window_bound()) {
                continue;
            }
            if flow.next_avail > now {
                earliest = earliest.min(flow.next_avail);
                continue;
            }
            let pkt = self.make_data_packet(f);
            let host = &mut self.hosts[h];
            if self.flows[f.idx()].all_sent(mtu) {
                host.active.remove(idx);
                self.flows[f.idx()].in_active = false;
                host.rr = idx;
            } else {
                host.rr = idx + 1;
            }
            self.start_tx(port, pkt);
            if host_has_work(self) {
                self.wake_when_idle(port);
            }
            return;
        }
        if earliest < self.hosts[h].wake_at {
            self.hosts[h].wake_at = earliest;
            self.events.schedule(earliest, Event::NicWake { node: self.hosts[h].node });
        }
    }

    /// Cut the next data segment of flow `f` (a new packet in the store).
    fn make_data_packet(&mut self, f: FlowId) -> PacketRef {
        let now = self.now;
        let t = &self.transport;
        let flow = &mut self.flows[f.idx()];
        let (seq, hole) = flow.next_segment(t.mtu).expect("the NIC picks flows with data to send");
        let payload = (flow.size - seq).min(t.mtu as u64) as u32;
        let wire = payload + t.header_bytes + t.int_data_bytes; // ≤ MAX_WIRE_BYTES (checked)
        let retransmit = hole || seq < flow.high_water;
        let pkt = Packet {
            kind: PacketKind::Data,
            priority: flow.priority,
            flags: PacketFlags::NONE
                .with(PacketFlags::RETRANSMIT, retransmit)
                .with(PacketFlags::INT, self.switch_cfg.int_enabled),
            flow: f,
            src: flow.src,
            dst: flow.dst,
            sport: flow.sport,
            dport: flow.dport,
            seq,
            payload: payload as u16,
            wire_bytes: wire as u16,
            sent_at: now,
            ingress: 0,
            enq_ns: 0,
            sack: 0,
            control: ControlPayload::None,
        };
        if retransmit {
            flow.retransmitted_bytes += payload as u64;
        }
        match &mut flow.irn {
            Some(irn) if hole => irn.sender.retransmit_next = seq + payload as u64,
            _ => flow.snd_nxt += payload as u64,
        }
        flow.high_water = flow.high_water.max(flow.snd_nxt);
        flow.next_avail = now + Rate(flow.rate).tx_time(wire as u64);
        if let CcState::Dcqcn(d) = &mut flow.cc {
            d.on_bytes_sent(wire as u64, &t.dcqcn, &mut flow.rate, flow.line_rate);
        }
        let arm_rto = !flow.rto_pending;
        flow.rto_pending = true;
        let generation = flow.timer_gen[TimerKind::Rto as usize];
        self.counters.data_packets_sent += 1;
        if arm_rto {
            // IRN's shortest timeout, or the go-back-N one; the handler re-arms to the
            // deadline that applies when it fires.
            let delay = t.irn.as_ref().map_or(t.rto, |irn| irn.rto_low);
            self.events.schedule(now + delay, Event::FlowTimer { flow: f, kind: TimerKind::Rto, generation });
        }
        let r = self.store.insert(pkt);
        if self.switch_cfg.int_enabled {
            self.clear_int(r);
        }
        r
    }

    /// A packet reached host `h`.
    pub(crate) fn host_receive(&mut self, h: usize, r: PacketRef) {
        match self.store.get(r).kind {
            PacketKind::Data => self.receive_data(h, r),
            PacketKind::Ack | PacketKind::Nack => {
                let pkt = *self.store.get(r);
                if pkt.has_int() {
                    self.take_ack_int(r, pkt.flow);
                }
                self.consume(r);
                self.receive_ack(h, &pkt);
            }
            PacketKind::Cnp => {
                let pkt = self.consume(r);
                self.on_congestion_notification(pkt.flow);
            }
            PacketKind::Control => unreachable!("control frames are consumed at the port"),
        }
    }

    /// Receiver side: in-order data advances `rcv_nxt` and is acknowledged; a gap
    /// triggers a NACK. The ACK / NACK takes over the data packet's INT stack (echo).
    fn receive_data(&mut self, h: usize, r: PacketRef) {
        let data = *self.store.get(r);
        self.counters.data_packets_delivered += 1;
        let now = self.now;
        let t = &self.transport;
        let flow = &mut self.flows[data.flow.idx()];
        let mut send_cnp = false;
        if data.ecn_ce() {
            // DCQCN may pace CNPs; every other CC reads ECN echoed in each ACK.
            if t.cnp_interval == Delta::ZERO || !matches!(flow.cc, CcState::Dcqcn(_)) {
                flow.ce_pending = true;
            } else if flow.last_cnp.is_none_or(|last| now.since(last) >= t.cnp_interval) {
                flow.last_cnp = Some(now);
                send_cnp = true;
            }
        }
        let mtu = t.mtu as u64;
        flow.reorder.on_arrival(data.seq, data.payload as u32, data.retransmit());
        if let Some(tp) = &mut self.obs.throughput {
            // New payload only: in order, or (IRN) out of order and not yet held.
            let new_data = data.seq == flow.rcv_nxt
                || (data.seq > flow.rcv_nxt
                    && flow.irn.as_ref().is_some_and(|irn| !irn.received.get(data.seq / mtu)));
            if new_data {
                tp.add(now, data.flow, data.payload as u64);
            }
        }
        let mut sack = 0u32;
        let reply = if let Some(irn) = &mut flow.irn {
            // IRN: keep out-of-order data; NACK it with a selective ACK.
            if data.seq == flow.rcv_nxt {
                flow.rcv_nxt += data.payload as u64;
                while flow.rcv_nxt < flow.size && irn.received.get(flow.rcv_nxt / mtu) {
                    flow.rcv_nxt = (flow.rcv_nxt + mtu).min(flow.size);
                }
                Some(PacketKind::Ack)
            } else if data.seq > flow.rcv_nxt {
                irn.received.set(data.seq / mtu);
                sack = (data.seq / mtu) as u32;
                Some(PacketKind::Nack)
            } else {
                Some(PacketKind::Ack) // a duplicate: repeat the cumulative ACK
            }
        } else if data.seq == flow.rcv_nxt {
            flow.rcv_nxt += data.payload as u64;
            flow.unacked_packets += 1;
            let last = flow.rcv_nxt >= flow.size;
            (flow.unacked_packets >= t.ack_every || last).then_some(PacketKind::Ack)
        } else if data.seq > flow.rcv_nxt {
            let repeat = flow.last_nack_seq == Some(flow.rcv_nxt) && now < flow.nack_timer;
            (!repeat).then(|| {
                flow.last_nack_seq = Some(flow.rcv_nxt);
                flow.nack_timer = now + t.nack_interval;
                PacketKind::Nack
            })
        } else {
            None // duplicate of data already received
        };
        // Replies travel back on the reversed 5-tuple, in the control class.
        let reverse = |kind: PacketKind, seq: u64, cnp_echo: bool, sent_at: SimTime, int: bool| Packet {
            kind,
            priority: data.priority,
            flags: PacketFlags::NONE.with(PacketFlags::CNP_ECHO, cnp_echo).with(PacketFlags::INT, int),
            flow: data.flow,
            src: data.dst,
            dst: data.src,
            sport: data.dport,
            dport: data.sport,
            seq,
            payload: 0,
            sack,
            wire_bytes: (t.ack_bytes + if int { t.int_ack_bytes } else { 0 }) as u16,
            sent_at,
            ingress: 0,
            enq_ns: 0,
            control: ControlPayload::None,
        };
        let ack = reply.map(|kind| {
            flow.unacked_packets = 0;
            let echo = std::mem::take(&mut flow.ce_pending);
            reverse(kind, flow.rcv_nxt, echo, data.sent_at, data.has_int())
        });
        let cnp = send_cnp.then(|| reverse(PacketKind::Cnp, 0, false, now, false));
        let port = self.hosts[h].port;
        match ack {
            // The data packet becomes its ACK, in the same slot (INT stack included).
            Some(ack) => {
                *self.store.get_mut(r) = ack;
                self.store.push_back(&mut self.ports[port.idx()].control_queue, r);
            }
            None => {
                self.consume(r);
            }
        }
        if let Some(cnp) = cnp {
            let c = self.store.insert(cnp);
            self.store.push_back(&mut self.ports[port.idx()].control_queue, c);
        }
        self.nic_try_send(h);
    }

    /// Sender side: cumulative ACK, NACK (go-back-N) and echoed congestion.
    fn receive_ack(&mut self, h: usize, p: &Packet) {
        let now = self.now;
        let flow = &mut self.flows[p.flow.idx()];
        if flow.finish.is_some() {
            return;
        }
        if p.seq > flow.snd_una {
            flow.snd_una = p.seq;
            flow.last_progress = now;
        }
        let mtu = self.transport.mtu;
        match &mut flow.irn {
            Some(irn) => {
                irn.sender.on_ack(flow.snd_una);
                if p.kind == PacketKind::Nack {
                    irn.sender.on_nack(p.sack as u64, mtu as u64, flow.size, flow.snd_una, flow.snd_nxt);
                }
            }
            // Go-back-N: a NACK rewinds to the first missing byte.
            None if p.kind == PacketKind::Nack && flow.snd_una < flow.size => flow.snd_nxt = flow.snd_una,
            None => {}
        }
        flow.snd_nxt = flow.snd_nxt.max(flow.snd_una);
        if flow.snd_una >= flow.size {
            flow.finish = Some(now);
            self.counters.flows_finished += 1;
            // Cancel every pending timer of the flow.
            for g in flow.timer_gen.iter_mut() {
                *g += 1;
            }
            if std::mem::take(&mut flow.in_active) {
                let i = self.hosts[h].active.iter().position(|f| *f == p.flow).expect("flagged as active");
                self.hosts[h].active.remove(i);
            }
            return;
        }
        if !flow.in_active && !flow.all_sent(mtu) {
            flow.in_active = true;
            self.hosts[h].active.push(p.flow);
        }
        if let CcState::Dctcp(d) = &mut flow.cc {
            let (line, rate) = (flow.line_rate, flow.rate);
            if let Some(r) = d.on_ack(p.seq, p.cnp_echo(), flow.snd_nxt, rate, line, &self.transport.dctcp) {
                flow.rate = r;
            }
        }
        if let CcState::Timely(tm) = &mut flow.cc {
            let t = &self.transport.timely;
            if let Some(r) =
                tm.on_ack(now, p.sent_at, p.seq, flow.snd_nxt, flow.rate, flow.line_rate, flow.base_rtt, t)
            {
                flow.rate = r;
            }
        }
        if let CcState::Hpcc(hp) = &mut flow.cc {
            if let Some(int) = self.flow_int.get(p.flow.idx()) {
                let line = flow.line_rate;
                if let Some(rate) =
                    hp.on_ack(int, p.seq, flow.snd_nxt, flow.base_rtt, line, &self.transport.hpcc)
                {
                    flow.rate = rate;
                    // The window follows the rate (the HPCC simulator's VAR_WIN).
                    let min_window = (self.transport.mtu + self.transport.header_bytes) as u64;
                    flow.window = ((flow.bdp as u128 * rate as u128 / line as u128) as u64).max(min_window);
                }
            }
        }
        if p.cnp_echo() {
            self.on_congestion_notification(p.flow);
        }
        self.nic_try_send(h);
    }

    /// DCQCN reaction point: a CNP or an ACK echoing CE marks.
    fn on_congestion_notification(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f.idx()];
        flow.cnps_received += 1;
        if flow.finish.is_some() {
            return;
        }
        if let CcState::Dcqcn(d) = &mut flow.cc {
            if let Some(at) = d.on_cnp(now, &self.transport.dcqcn) {
                let generation = flow.timer_gen[TimerKind::DcqcnDecrease as usize];
                self.events
                    .schedule(at, Event::FlowTimer { flow: f, kind: TimerKind::DcqcnDecrease, generation });
            }
        }
    }

    pub(crate) fn on_flow_timer(&mut self, f: FlowId, kind: TimerKind, generation: u32) {
        let now = self.now;
        let flow = &mut self.flows[f.idx()];
        if flow.timer_gen[kind as usize] != generation || flow.finish.is_some() {
            return;
        }
        let params = &self.transport.dcqcn;
        match kind {
            TimerKind::DcqcnDecrease => {
                if let CcState::Dcqcn(d) = &mut flow.cc {
                    if let Some(at) = d.on_decrease_check(now, params, &mut flow.rate) {
                        // Restart the increase timer.
                        flow.timer_gen[TimerKind::DcqcnIncrease as usize] += 1;
                        let generation = flow.timer_gen[TimerKind::DcqcnIncrease as usize];
                        self.events.schedule(
                            at,
                            Event::FlowTimer { flow: f, kind: TimerKind::DcqcnIncrease, generation },
                        );
                    }
                }
            }
            TimerKind::DcqcnIncrease => {
                let line = flow.line_rate;
                if let CcState::Dcqcn(d) = &mut flow.cc {
                    if let Some(at) = d.on_increase_timer(now, params, &mut flow.rate, line) {
                        self.events.schedule(at, Event::FlowTimer { flow: f, kind, generation });
                    }
                }
            }
            TimerKind::Rto => {
                flow.rto_pending = false;
                if flow.snd_una >= flow.snd_nxt {
                    return; // nothing outstanding; re-armed by the next send
                }
                let t = &self.transport;
                let rto = match (&t.irn, &flow.irn) {
                    // IRN: RTO_low while few packets are in flight, RTO_high otherwise.
                    (Some(p), Some(_)) => {
                        let in_flight = (flow.snd_nxt - flow.snd_una).div_ceil(t.mtu as u64);
                        if in_flight <= p.rto_low_packets as u64 {
                            p.rto_low
                        } else {
                            p.rto_high
                        }
                    }
                    _ => t.rto,
                };
                let deadline = flow.last_progress + rto;
                if now >= deadline {
                    flow.timeouts += 1;
                    match &mut flow.irn {
                        Some(irn) => irn.sender.on_timeout(flow.snd_una, flow.snd_nxt),
                        None => flow.snd_nxt = flow.snd_una,
                    }
                    flow.last_progress = now;
                    let src = flow.src;
                    let h = self.node_slot[src.idx()] as usize;
                    self.activate(h, f);
                    self.nic_try_send(h);
                } else {
                    flow.rto_pending = true;
                    self.events.schedule(deadline, Event::FlowTimer { flow: f, kind, generation });
                }
            }
        }
    }
}
