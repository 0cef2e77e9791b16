//! The RoCEv2-like transport, sender and receiver.
//!
//! - Sender: segments data, keeps the retransmission timer, handles ACKs and NACKs —
//!   go-back-N (a NACK rewinds to the first missing byte), or IRN's selective
//!   retransmission (`irn`) — and feeds congestion control.
//! - Receiver: acknowledges in-order data (cumulative ACK every `ack_every` packets and
//!   for the last), NACKs the first missing byte (go-back-N: at most once per
//!   `nack_interval` for the same byte, and with the reorder buffer only when it is full or
//!   the gap outlived its timeout; IRN: every out-of-order packet, with a selective
//!   acknowledgement), echoes ECN marks in ACKs or paces CNPs (DCQCN's notification point),
//!   and counts reordering (RFC 4737).

use super::hooks::{HostCx, Kick, TransportPolicy};
use super::irn::{IrnSender, PacketBitmap};
use super::reorder_buffer::ReorderBuffer;
use crate::engine::{Event, TimerKind};
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::store::PacketRef;
use crate::host::cc::Ack;
use crate::host::flow::Flow;
use crate::ids::FlowId;
use crate::time::{Delta, SimTime};

/// IRN state of a flow: sender recovery and receiver out-of-order bitmap.
#[derive(Clone, Debug, Default)]
pub struct IrnFlow {
    pub sender: IrnSender,
    pub received: PacketBitmap,
}

impl IrnFlow {
    /// Bytes allocated for this state (the box and the bitmap).
    pub fn heap_bytes(&self) -> u64 {
        std::mem::size_of::<IrnFlow>() as u64 + self.received.heap_bytes()
    }
}

/// RoCE's own state of one flow.
#[derive(Clone, Debug, Default)]
pub struct RoceFlow {
    /// IRN selective retransmission (`None`: go-back-N).
    pub irn: Option<Box<IrnFlow>>,
    /// Receiver: in-order packets not yet acknowledged.
    pub unacked_packets: u32,
    /// Receiver: the byte last NACKed, and until when the NACK is not repeated.
    pub last_nack_seq: Option<u64>,
    pub nack_timer: SimTime,
    /// Receiver: when the last CNP was sent (DCQCN's pacing).
    pub last_cnp: Option<SimTime>,
}

/// The RoCE transport of every host.
#[derive(Clone, Debug)]
pub struct Roce {
    /// Per flow.
    pub flows: Vec<RoceFlow>,
    /// IRN loss recovery (every flow of the run).
    irn: bool,
    /// Go-back-N's receiver reorder buffer (`transport.reorder_buffer`), when on.
    reorder: Option<ReorderBuffer>,
}

impl Roce {
    /// `flows` flows, with IRN or go-back-N.
    pub fn new(flows: usize, irn: bool) -> Roce {
        let flow = || RoceFlow { irn: irn.then(Default::default), ..Default::default() };
        Roce { flows: (0..flows).map(|_| flow()).collect(), irn, reorder: None }
    }

    /// A resend of flow `f` waiting (IRN) before new data.
    #[inline(never)]
    fn next_hole(&mut self, f: FlowId, mss: u64) -> Option<u64> {
        self.flows[f.idx()].irn.as_mut().and_then(|irn| irn.sender.next_hole(mss))
    }

    /// Nothing left to send of flow `f` (new data or holes).
    fn all_sent(&mut self, f: FlowId, flow: &Flow, mss: u64) -> bool {
        self.next_segment(f, flow, mss).is_none()
    }
}

impl TransportPolicy for Roce {
    /// Go-back-N, or IRN when `transport.loss_recovery = "irn"`.
    fn build(cfg: &crate::host::TransportConfig, flows: usize) -> Self {
        let mut roce = Roce::new(flows, cfg.irn.is_some());
        roce.reorder = cfg.reorder_buffer.map(|p| ReorderBuffer::new(p, flows));
        roce
    }

    const NAME: &'static str = "roce";
    /// Sender and receiver state apart, receiver-side fields joined from the receiver's
    /// partition (`tests/parallel.rs`, every case).
    const PARTITIONS: bool = true;
    const INLINE: bool = true;

    #[inline(always)]
    fn next_segment(&mut self, f: FlowId, flow: &Flow, mss: u64) -> Option<(u64, bool)> {
        if self.irn {
            if let Some(seq) = self.next_hole(f, mss) {
                return Some((seq, true));
            }
        }
        (flow.snd_nxt < flow.size).then_some((flow.snd_nxt, false))
    }

    #[inline(always)]
    fn on_sent(&mut self, f: FlowId, flow: &mut Flow, seq: u64, payload: u64, hole: bool) {
        match &mut self.flows[f.idx()].irn {
            Some(irn) if hole => irn.sender.retransmit_next = seq + payload,
            _ => flow.snd_nxt += payload,
        }
    }

    #[inline(always)]
    fn first_rto(&self, _f: FlowId, default: Delta) -> Delta {
        default
    }

    /// Receiver: in-order data advances `rcv_nxt` and is acknowledged; a gap triggers a
    /// NACK. The ACK / NACK takes over the data packet's slot (and its INT stack: echo).
    #[inline(always)]
    fn on_data(&mut self, cx: &mut HostCx, h: usize, r: PacketRef) -> Kick {
        let fab = &mut *cx.fab;
        let core = &mut *cx.core;
        let data = *fab.store.get(r);
        fab.counters.data_packets_delivered += 1;
        let now = fab.now;
        let t = &core.cfg;
        let flow = &mut core.flows[data.flow.idx()];
        let roce = &mut self.flows[data.flow.idx()];
        let mut send_cnp = false;
        if data.ecn_ce() {
            // DCQCN may pace CNPs; every other CC reads ECN echoed in each ACK.
            if t.cnp_interval == Delta::ZERO || !flow.cc.uses_cnp() {
                flow.ce_pending = true;
            } else if roce.last_cnp.is_none_or(|last| now.since(last) >= t.cnp_interval) {
                roce.last_cnp = Some(now);
                send_cnp = true;
            }
        }
        let mtu = t.mtu as u64;
        flow.reorder.on_arrival(data.seq, data.payload as u32, data.retransmit());
        if let Some(tp) = &mut fab.obs.throughput {
            // New payload only: in order, or (IRN) out of order and not yet held.
            let new_data = data.seq == flow.rcv_nxt
                || (data.seq > flow.rcv_nxt
                    && (roce.irn.as_ref().is_some_and(|irn| !irn.received.get(data.seq / mtu))
                        || self.reorder.as_ref().is_some_and(|b| b.would_hold(data.flow, data.seq / mtu))));
            if new_data {
                tp.add(now, data.flow, data.payload as u64);
            }
        }
        let mut sack = 0u32;
        let reply = if let Some(irn) = &mut roce.irn {
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
            roce.unacked_packets += 1;
            let mut released = false;
            if let Some(b) = &mut self.reorder {
                // Held packets right behind the filled gap are delivered with it.
                if flow.rcv_nxt < flow.size {
                    let n = b.release(data.flow, flow.rcv_nxt / mtu, now);
                    flow.rcv_nxt = (flow.rcv_nxt + n * mtu).min(flow.size);
                    released = n > 0;
                }
            }
            let last = flow.rcv_nxt >= flow.size;
            (roce.unacked_packets >= t.ack_every || last || released).then_some(PacketKind::Ack)
        } else if data.seq > flow.rcv_nxt {
            // With the reorder buffer, NACK only when it is full or the gap timed out.
            let nack =
                self.reorder.as_mut().is_none_or(|b| b.on_out_of_order(data.flow, data.seq / mtu, now).nack);
            let repeat = roce.last_nack_seq == Some(flow.rcv_nxt) && now < roce.nack_timer;
            (nack && !repeat).then(|| {
                roce.last_nack_seq = Some(flow.rcv_nxt);
                roce.nack_timer = now + t.nack_interval;
                PacketKind::Nack
            })
        } else if flow.rcv_nxt >= flow.size {
            // Everything arrived, yet the sender resends: its final ACK was lost (ACKs
            // queued with data can be dropped). Acknowledge the duplicate, as a RoCE
            // responder re-acknowledges duplicate requests; otherwise the flow would
            // time out forever.
            Some(PacketKind::Ack)
        } else {
            None // duplicate of data already received; the next in-order packet ACKs
        };
        // Replies travel back on the reversed 5-tuple.
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
            ttl: t.ttl,
        };
        // ConWeave's ns-3: a NACK carries congestion too (`nack_signals_congestion`), in
        // the NACK's echo or, where DCQCN paces CNP packets, as a CNP.
        let nack_congestion = t.nack_signals_congestion && reply == Some(PacketKind::Nack);
        let echo_nack = nack_congestion && (t.cnp_interval == Delta::ZERO || !flow.cc.uses_cnp());
        if nack_congestion && !echo_nack && roce.last_cnp.is_none_or(|last| now.since(last) >= t.cnp_interval)
        {
            roce.last_cnp = Some(now);
            send_cnp = true;
        }
        let ack = reply.map(|kind| {
            roce.unacked_packets = 0;
            let echo = std::mem::take(&mut flow.ce_pending) || echo_nack;
            reverse(kind, flow.rcv_nxt, echo, data.sent_at, data.has_int())
        });
        let cnp = send_cnp.then(|| reverse(PacketKind::Cnp, 0, false, now, false));
        let port = core.nodes[h].port;
        match ack {
            // The data packet becomes its ACK, in the same slot (INT stack included).
            Some(ack) => {
                *fab.store.get_mut(r) = ack;
                fab.store.push_back(&mut fab.ports[port.idx()].control_queue, r);
            }
            None => {
                fab.consume(r);
            }
        }
        if let Some(cnp) = cnp {
            let c = fab.store.insert(cnp);
            if fab.headers.is_enabled() {
                fab.headers.reset(c.index());
            }
            fab.store.push_back(&mut fab.ports[port.idx()].control_queue, c);
        }
        Some(h)
    }

    /// Sender: cumulative ACK, NACK (go-back-N or IRN) and echoed congestion.
    #[inline(always)]
    fn on_ack(&mut self, cx: &mut HostCx, h: usize, p: &Packet, _echo: u8) -> Kick {
        let now = cx.fab.now;
        let core = &mut *cx.core;
        let flow = &mut core.flows[p.flow.idx()];
        if flow.finish.is_some() {
            return None;
        }
        if p.seq > flow.snd_una {
            flow.snd_una = p.seq;
            flow.last_progress = now;
        }
        let mtu = core.cfg.mtu as u64;
        match &mut self.flows[p.flow.idx()].irn {
            Some(irn) => {
                irn.sender.on_ack(flow.snd_una);
                if p.kind == PacketKind::Nack {
                    irn.sender.on_nack(p.sack as u64, mtu, flow.size, flow.snd_una, flow.snd_nxt);
                }
            }
            // Go-back-N: a NACK rewinds to the first missing byte.
            None if p.kind == PacketKind::Nack && flow.snd_una < flow.size => flow.snd_nxt = flow.snd_una,
            None => {}
        }
        flow.snd_nxt = flow.snd_nxt.max(flow.snd_una);
        if flow.snd_una >= flow.size {
            core.finish_flow(cx.fab, h, p.flow);
            return None;
        }
        if !flow.in_active && !self.all_sent(p.flow, flow, mtu) {
            flow.in_active = true;
            core.nodes[h].active.push(p.flow);
        }
        let ack = Ack {
            seq: p.seq,
            ecn_echo: p.cnp_echo(),
            sent_at: p.sent_at,
            int: core.flow_int.get(p.flow.idx()),
            newly_acked: 0,
            echo_flags: 0,
        };
        let t = &core.cfg;
        let flow = &mut core.flows[p.flow.idx()];
        let (cc, mut view) = flow.cc_parts(now, (t.mtu + t.header_bytes) as u64, t.mtu as u64);
        cc.on_ack(&ack, &mut view, &t.cc_params);
        debug_assert!(view.timer.is_none(), "no algorithm asks for a timer on an ACK");
        if p.cnp_echo() {
            core.on_congestion_notification(cx.fab, p.flow);
        }
        Some(h)
    }

    fn on_timer(&mut self, cx: &mut HostCx, f: FlowId, kind: TimerKind, generation: u32) -> Kick {
        if kind != TimerKind::Rto {
            cx.core.cc_timer(cx.fab, f, kind);
            return None;
        }
        let now = cx.fab.now;
        let core = &mut *cx.core;
        let flow = &mut core.flows[f.idx()];
        flow.rto_pending = false;
        if flow.snd_una >= flow.snd_nxt {
            return None; // nothing outstanding; re-armed by the next send
        }
        let t = &core.cfg;
        let irn = &mut self.flows[f.idx()].irn;
        let rto = match (&t.irn, &irn) {
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
            match irn {
                Some(irn) => irn.sender.on_timeout(flow.snd_una, flow.snd_nxt),
                None => flow.snd_nxt = flow.snd_una,
            }
            flow.last_progress = now;
            let h = cx.fab.node_slot[flow.src.idx()] as usize;
            core.activate(h, f);
            Some(h)
        } else {
            flow.rto_pending = true;
            cx.fab.events.schedule(deadline, Event::FlowTimer { flow: f, kind, generation });
            None
        }
    }

    fn loss_recovery(&self, _f: FlowId) -> &'static str {
        if self.irn {
            "irn"
        } else if self.reorder.is_some() {
            "go_back_n+reorder_buffer"
        } else {
            "go_back_n"
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.reorder.as_ref().map(|b| b.counters()).unwrap_or_default()
    }

    fn state_bytes(&self) -> u64 {
        self.reorder.as_ref().map_or(0, |b| b.state_bytes())
            + (self.flows.capacity() * std::mem::size_of::<RoceFlow>()) as u64
            + self.flows.iter().filter_map(|f| f.irn.as_ref()).map(|irn| irn.heap_bytes()).sum::<u64>()
    }
}
