//! The RoCEv2-like sender: segments data, keeps the retransmission timer, handles ACKs and
//! NACKs (go-back-N, or IRN's selective retransmission), and feeds congestion control.

use super::cc::{Ack, TimerRequest};
use super::flow::Flow;
use super::nic::NicGate;
use super::Hosts;
use super::Rank;
use crate::engine::{Event, TimerKind};
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::FlowId;
use crate::time::{Rate, SimTime};

impl Hosts {
    /// Cut the next data segment of flow `f` (a new packet in the store).
    pub(super) fn make_data_packet(&mut self, fab: &mut Fabric, f: FlowId) -> PacketRef {
        let now = fab.now;
        let t = &self.cfg;
        let flow = &mut self.flows[f.idx()];
        let (seq, hole) = flow.next_segment(t.mtu).expect("the NIC picks flows with data to send");
        let size = flow.size;
        let payload = (flow.size - seq).min(t.mtu as u64) as u32;
        let wire = payload + t.header_bytes + t.int_data_bytes; // ≤ MAX_WIRE_BYTES (checked)
        let retransmit = hole || seq < flow.high_water;
        let pkt = Packet {
            kind: PacketKind::Data,
            priority: flow.priority,
            flags: PacketFlags::NONE
                .with(PacketFlags::RETRANSMIT, retransmit)
                .with(PacketFlags::INT, self.int_enabled),
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
            ttl: t.ttl,
        };
        if retransmit {
            flow.retransmitted_bytes += payload as u64;
        }
        match (&mut flow.irn, &mut flow.tcp) {
            (Some(irn), _) if hole => irn.sender.retransmit_next = seq + payload as u64,
            (_, Some(tcp)) if hole => tcp.retransmitted(seq, payload as u64),
            _ => flow.snd_nxt += payload as u64,
        }
        flow.high_water = flow.high_water.max(flow.snd_nxt);
        flow.next_avail = now + Rate(flow.rate).tx_time_as(wire as u64, t.serialization);
        let packet_bytes = (t.mtu + t.header_bytes) as u64;
        let (cc, mut view) = flow.cc_parts(now, packet_bytes, t.mtu as u64);
        cc.on_send(wire as u64, &mut view, &t.cc_params);
        debug_assert!(view.timer.is_none(), "no algorithm asks for a timer on send");
        let arm_rto = !flow.rto_pending;
        flow.rto_pending = true;
        let generation = flow.timer_gen[TimerKind::Rto.slot()];
        fab.counters.data_packets_sent += 1;
        if arm_rto {
            // IRN's shortest timeout, or the go-back-N one; the handler re-arms to the
            // deadline that applies when it fires.
            let delay = match &flow.tcp {
                Some(tcp) => tcp.rto,
                None => t.irn.as_ref().map_or(t.rto, |irn| irn.rto_low),
            };
            fab.events.schedule(now + delay, Event::FlowTimer { flow: f, kind: TimerKind::Rto, generation });
        }
        let r = fab.store.insert(pkt);
        if self.int_enabled {
            fab.clear_int(r);
        }
        if fab.headers.is_enabled() {
            fab.headers.reset(r.index());
            let flow = &self.flows[f.idx()];
            if let Some(field) = self.rank_field {
                let mut rank = match self.cfg.rank {
                    Rank::None => 0,
                    Rank::Srpt => size - seq,
                    Rank::Las => seq,
                };
                if retransmit && self.cfg.rank_boost {
                    // Vertigo's marking layer: a resent segment's rank is halved per resend
                    // (counted as one plus the flow's timeouts).
                    rank >>= (1 + flow.timeouts).min(63);
                }
                fab.headers.set(r.index(), field, rank);
            }
            if let (Some(field), super::Cc::Bolt(b)) = (self.bolt_flags, &flow.cc) {
                fab.headers.set(r.index(), field, b.marks(seq, size) as u64);
            }
        }
        r
    }

    /// Sender side: cumulative ACK, NACK (go-back-N or IRN) and echoed congestion.
    pub(super) fn receive_ack<G: NicGate>(&mut self, fab: &mut Fabric, gate: &G, h: usize, p: &Packet) {
        let now = fab.now;
        let flow = &mut self.flows[p.flow.idx()];
        if flow.finish.is_some() {
            return;
        }
        if p.seq > flow.snd_una {
            flow.snd_una = p.seq;
            flow.last_progress = now;
        }
        let mtu = self.cfg.mtu;
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
            self.finish_flow(fab, h, p.flow);
            return;
        }
        if !flow.in_active && !flow.all_sent(mtu) {
            flow.in_active = true;
            self.nodes[h].active.push(p.flow);
        }
        let ack = Ack {
            seq: p.seq,
            ecn_echo: p.cnp_echo(),
            sent_at: p.sent_at,
            int: self.flow_int.get(p.flow.idx()),
            newly_acked: 0,
            echo_flags: 0,
        };
        let t = &self.cfg;
        let (cc, mut view) = flow.cc_parts(now, (t.mtu + t.header_bytes) as u64, t.mtu as u64);
        cc.on_ack(&ack, &mut view, &t.cc_params);
        debug_assert!(view.timer.is_none(), "no algorithm asks for a timer on an ACK");
        if p.cnp_echo() {
            self.on_congestion_notification(fab, p.flow);
        }
        self.nic_try_send(fab, gate, h);
    }

    /// A congestion notification for flow `f`: a CNP, or an ACK echoing CE marks.
    pub(super) fn on_congestion_notification(&mut self, fab: &mut Fabric, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        flow.cnps_received += 1;
        if flow.finish.is_some() {
            return;
        }
        let t = &self.cfg;
        let (cc, mut view) = flow.cc_parts(fab.now, (t.mtu + t.header_bytes) as u64, t.mtu as u64);
        cc.on_congestion_notification(&mut view, &t.cc_params);
        if let Some(timer) = view.timer {
            self.schedule_flow_timer(fab, f, timer);
        }
    }

    /// Schedule a congestion-control timer of flow `f`.
    pub(super) fn schedule_flow_timer(&mut self, fab: &mut Fabric, f: FlowId, t: TimerRequest) {
        let flow: &mut Flow = &mut self.flows[f.idx()];
        if t.restart {
            flow.timer_gen[t.kind.slot()] += 1;
        }
        let generation = flow.timer_gen[t.kind.slot()];
        fab.events.schedule(t.at, Event::FlowTimer { flow: f, kind: t.kind, generation });
    }

    pub(crate) fn on_flow_timer<G: NicGate>(
        &mut self,
        fab: &mut Fabric,
        gate: &G,
        f: FlowId,
        kind: TimerKind,
        generation: u32,
    ) {
        let now = fab.now;
        let flow = &mut self.flows[f.idx()];
        if flow.timer_gen[kind.slot()] != generation || flow.finish.is_some() {
            return;
        }
        if flow.tcp.is_some() {
            match kind {
                TimerKind::Rto => self.tcp_on_rto(fab, gate, f, generation),
                TimerKind::TcpDelayedAck | TimerKind::TcpReorder => {
                    self.tcp_on_receiver_timer(fab, gate, f, kind)
                }
                _ => {}
            }
            return;
        }
        if kind != TimerKind::Rto {
            let t = &self.cfg;
            let (cc, mut view) = flow.cc_parts(now, (t.mtu + t.header_bytes) as u64, t.mtu as u64);
            cc.on_timer(kind, &mut view, &t.cc_params);
            if let Some(timer) = view.timer {
                self.schedule_flow_timer(fab, f, timer);
            }
            return;
        }
        flow.rto_pending = false;
        if flow.snd_una >= flow.snd_nxt {
            return; // nothing outstanding; re-armed by the next send
        }
        let t = &self.cfg;
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
            let h = fab.node_slot[src.idx()] as usize;
            self.activate(h, f);
            self.nic_try_send(fab, gate, h);
        } else {
            flow.rto_pending = true;
            fab.events.schedule(deadline, Event::FlowTimer { flow: f, kind, generation });
        }
    }
}

impl Flow {
    /// The congestion control of the flow and its view of the flow (split borrows).
    pub(crate) fn cc_parts(
        &mut self,
        now: SimTime,
        packet_bytes: u64,
        mss: u64,
    ) -> (&mut super::Cc, super::cc::CcFlow<'_>) {
        let view = super::cc::CcFlow {
            now,
            rate: &mut self.rate,
            window: &mut self.window,
            line_rate: self.line_rate,
            base_rtt: self.base_rtt,
            bdp: self.bdp,
            snd_nxt: self.snd_nxt,
            packet_bytes,
            timer: None,
            ssthresh: &mut self.ssthresh,
            in_recovery: false,
            mss,
            hops: self.path_hops,
        };
        (&mut self.cc, view)
    }
}
