//! The NIC scheduler: which packet a host sends next on its port.
//!
//! As the HPCC simulator's `QbbNetDevice`: control packets (ACK / NACK / CNP) first, then
//! round robin over the host's active flows, skipping those that flow control holds (a
//! paused PFC class, or a paused flow), that are window-bound, or whose rate limiter does
//! not allow a packet yet (the flow's own pacing, or a shaper flow control set on the
//! port's class queue: `EgressQueues::shaper_due`). If no flow is ready, the NIC wakes at
//! the earliest time one will be.

use super::{Hosts, Rank};
use crate::engine::{Event, TimerKind};
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::port::Port;
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::{FlowId, PortId};
use crate::time::{Rate, SimTime};
use crate::topology::routing::{FiveTuple, Routing};
use crate::topology::Topology;

/// What a NIC asks of flow control before it sends data of a flow: the flow-control
/// policy of the run answers (PFC by the flow's priority class, per-flow policies by the
/// flow), so the NIC obeys the PAUSE frames its port received.
pub trait NicGate {
    /// May the NIC on `nic` (`port`) send data of `flow` now?
    fn nic_may_send(
        &self,
        nic: PortId,
        port: &Port,
        flow: &FlowKey,
        routing: &Routing,
        topo: &Topology,
    ) -> bool;
}

/// The identity of a flow as flow control sees it at a NIC.
#[derive(Clone, Copy, Debug)]
pub struct FlowKey {
    pub id: FlowId,
    pub priority: u8,
    pub tuple: FiveTuple,
}

/// May the control packet at the head of a NIC's control queue go, when ACKs and NACKs
/// are accounted in their data class at switches? Not while that class is paused at the
/// port (the NIC's ACK queue is one FIFO, as in the HPCC simulator: what waits behind a
/// held ACK waits with it). CNPs and frames are never paused.
#[inline]
fn ack_may_go(pkt: &Packet, port: &Port) -> bool {
    !matches!(pkt.kind, PacketKind::Ack | PacketKind::Nack) || port.queues.may_send(pkt.priority as usize)
}

impl Hosts {
    /// Transmit on host `h`'s NIC if it is idle and something is ready.
    pub(crate) fn nic_try_send<G: NicGate>(&mut self, fab: &mut Fabric, gate: &G, h: usize) {
        let core = &mut self.core;
        let port = core.nodes[h].port;
        let host_has_work = |fab: &Fabric, nodes: &[super::Host]| {
            !fab.ports[port.idx()].control_queue.is_empty() || !nodes[h].active.is_empty()
        };
        let p = &fab.ports[port.idx()];
        if p.is_busy(fab.now) || p.down {
            if host_has_work(fab, &core.nodes) && !p.down {
                fab.wake_when_idle(port);
            }
            return;
        }
        if let Some(head) = fab.ports[port.idx()].control_queue.front() {
            if !core.cfg.acks_obey_pause || ack_may_go(fab.store.get(head), &fab.ports[port.idx()]) {
                fab.store.pop_front(&mut fab.ports[port.idx()].control_queue);
                fab.start_tx(port, head);
                if host_has_work(fab, &core.nodes) {
                    fab.wake_when_idle(port);
                }
                return;
            }
            // The ACK queue waits for its class's RESUME (which wakes the NIC); data of
            // other classes may still go.
        }
        let n = core.nodes[h].active.len();
        if n == 0 {
            return;
        }
        let now = fab.now;
        let mut earliest = SimTime::NEVER;
        let start = core.nodes[h].rr % n;
        let mss = core.cfg.mtu as u64;
        for i in 0..n {
            // (start + i) mod n, without a division per flow scanned.
            let idx = if start + i < n { start + i } else { start + i - n };
            let f = self.core.nodes[h].active[idx];
            let flow = &self.core.flows[f.idx()];
            let Some((_, hole)) = self.transport.next_segment(f, flow, mss) else { continue };
            // Resent holes lie below snd_nxt: they do not grow the data in flight.
            let key = FlowKey {
                id: flow.id,
                priority: flow.priority,
                tuple: FiveTuple { src: flow.src, dst: flow.dst, sport: flow.sport, dport: flow.dport },
            };
            if !gate.nic_may_send(port, &fab.ports[port.idx()], &key, &fab.routing, &fab.topo)
                || (!hole && flow.window_bound())
            {
                continue;
            }
            if flow.next_avail > now {
                earliest = earliest.min(flow.next_avail);
                continue;
            }
            // A class rate limit that flow control set on the NIC's port (GFC's rate steps).
            let class = flow.priority as usize;
            if let Some(due) = fab.ports[port.idx()].queues.shaper_due(class) {
                if due > now {
                    earliest = earliest.min(due);
                    continue;
                }
            }
            let pkt = self.make_data_packet(fab, f);
            let wire = fab.store.get(pkt).wire_bytes as u64;
            fab.ports[port.idx()].queues.charge_shaper(class, wire, now);
            let core = &mut self.core;
            let host = &mut core.nodes[h];
            if self.transport.all_sent(f, &core.flows[f.idx()], mss) {
                host.active.remove(idx);
                core.flows[f.idx()].in_active = false;
                host.rr = idx;
            } else {
                host.rr = idx + 1;
            }
            fab.start_tx(port, pkt);
            if host_has_work(fab, &core.nodes) {
                fab.wake_when_idle(port);
            }
            return;
        }
        let core = &mut self.core;
        if earliest < core.nodes[h].wake_at {
            core.nodes[h].wake_at = earliest;
            fab.events.schedule(earliest, Event::NicWake { node: core.nodes[h].node });
        }
    }

    /// Cut the next data segment of flow `f` (a new packet in the store).
    fn make_data_packet(&mut self, fab: &mut Fabric, f: FlowId) -> PacketRef {
        let now = fab.now;
        let core = &mut self.core;
        let t = &core.cfg;
        let flow = &mut core.flows[f.idx()];
        let (seq, hole) = self
            .transport
            .next_segment(f, flow, t.mtu as u64)
            .expect("the NIC picks flows with data to send");
        let size = flow.size;
        let payload = (flow.size - seq).min(t.mtu as u64) as u32;
        let wire = payload + t.header_bytes + t.int_data_bytes; // ≤ MAX_WIRE_BYTES (checked)
        let retransmit = hole || seq < flow.high_water;
        let sport = self.transport.source_port(f, flow, seq);
        let pkt = Packet {
            kind: PacketKind::Data,
            priority: flow.priority,
            flags: PacketFlags::NONE
                .with(PacketFlags::RETRANSMIT, retransmit)
                .with(PacketFlags::INT, core.int_enabled),
            flow: f,
            src: flow.src,
            dst: flow.dst,
            sport,
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
        self.transport.on_sent(f, flow, seq, payload as u64, hole);
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
            // The transport's first timeout (IRN's shortest, TCP's current one, or the
            // go-back-N one); the handler re-arms to the deadline that applies when it fires.
            let default = t.irn.as_ref().map_or(t.rto, |irn| irn.rto_low);
            let delay = self.transport.first_rto(f, default);
            fab.events.schedule(now + delay, Event::FlowTimer { flow: f, kind: TimerKind::Rto, generation });
        }
        let r = fab.store.insert(pkt);
        if core.int_enabled {
            fab.clear_int(r);
        }
        if fab.headers.is_enabled() {
            fab.headers.reset(r.index());
            let flow = &core.flows[f.idx()];
            if let Some(field) = core.rank_field {
                let mut rank = match core.cfg.rank {
                    Rank::None => 0,
                    Rank::Srpt => size - seq,
                    Rank::Las => seq,
                };
                if retransmit && core.cfg.rank_boost {
                    // Vertigo's marking layer: a resent segment's rank is halved per resend
                    // (counted as one plus the flow's timeouts).
                    rank >>= (1 + flow.timeouts).min(63);
                }
                fab.headers.set(r.index(), field, rank);
            }
            if let (Some(field), super::Cc::Bolt(b)) = (core.bolt_flags, &flow.cc) {
                fab.headers.set(r.index(), field, b.marks(seq, size) as u64);
            }
        }
        r
    }
}
