//! The receiver: acknowledges in-order data (cumulative ACK every `ack_every` packets and
//! for the last), NACKs the first missing byte (go-back-N: at most once per
//! `nack_interval` for the same byte; IRN: every out-of-order packet, with a selective
//! acknowledgement), echoes ECN marks in ACKs or paces CNPs (DCQCN's notification point),
//! and counts reordering (RFC 4737).

use super::nic::NicGate;
use super::Hosts;
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::time::{Delta, SimTime};

impl Hosts {
    /// Receiver side: in-order data advances `rcv_nxt` and is acknowledged; a gap
    /// triggers a NACK. The ACK / NACK takes over the data packet's INT stack (echo).
    pub(super) fn receive_data<G: NicGate>(&mut self, fab: &mut Fabric, gate: &G, h: usize, r: PacketRef) {
        let data = *fab.store.get(r);
        fab.counters.data_packets_delivered += 1;
        let now = fab.now;
        let t = &self.cfg;
        let flow = &mut self.flows[data.flow.idx()];
        let mut send_cnp = false;
        if data.ecn_ce() {
            // DCQCN may pace CNPs; every other CC reads ECN echoed in each ACK.
            if t.cnp_interval == Delta::ZERO || !flow.cc.uses_cnp() {
                flow.ce_pending = true;
            } else if flow.last_cnp.is_none_or(|last| now.since(last) >= t.cnp_interval) {
                flow.last_cnp = Some(now);
                send_cnp = true;
            }
        }
        let mtu = t.mtu as u64;
        flow.reorder.on_arrival(data.seq, data.payload as u32, data.retransmit());
        if let Some(tp) = &mut fab.obs.throughput {
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
        let ack = reply.map(|kind| {
            flow.unacked_packets = 0;
            let echo = std::mem::take(&mut flow.ce_pending);
            reverse(kind, flow.rcv_nxt, echo, data.sent_at, data.has_int())
        });
        let cnp = send_cnp.then(|| reverse(PacketKind::Cnp, 0, false, now, false));
        let port = self.nodes[h].port;
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
        self.nic_try_send(fab, gate, h);
    }
}
