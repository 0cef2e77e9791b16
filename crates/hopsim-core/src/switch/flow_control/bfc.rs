//! BFC, Backpressure Flow Control (Goyal et al., NSDI 2022): per-hop, per-flow flow control
//! with a bounded number of physical queues per port — Pyrrha's baseline with 32 and 128
//! queues (Pyrrha §2.3, §6.1) and Aquarius's with 8 and 32 (Aquarius §2.2.2).
//!
//! - **Dynamic queue assignment** (BFC §3.2). Each egress port keeps a flow table keyed by
//!   a flow identifier (FID: a hash of the 5-tuple, so distinct flows may share one). A flow
//!   with packets queued at the port is *active* and keeps its queue; a flow that becomes
//!   active gets an empty queue — one no active flow uses — and, when none is, a random one,
//!   which it then shares. A drained flow keeps its queue for `sticky` one-hop RTTs.
//! - **Backpressure** (BFC §3.1, §3.3). A packet carries the id of the queue it left at the
//!   previous hop (the upstream queue; at the first hop, the sender's queue pair). When a
//!   packet joins a queue longer than `Th = one-hop BDP / N_active` (N_active: queues of the
//!   port holding packets and not paused, at least 1), it is counted in the pause counter of
//!   its (ingress port, upstream queue); the counter going 0 → 1 sends PAUSE for that
//!   upstream queue, and going back to 0, when the last counted packet leaves, sends RESUME.
//!   The upstream — a switch port's queue, or the source NIC's flow — stops until resumed.
//!
//! **Choices** (the BFC paper's text was not available here; the Pyrrha paper's BFC runs
//! come from the BFC mode of its authors' simulator, Pyrrha-NS3, whose rules these follow):
//! the FID space per switch is `fids_per_queue` (100) × queues × ports, hashed with a
//! per-switch seed (`fids_per_queue = 0` gives every flow its own FID, Pyrrha-NS3's "ideal"
//! BFC); a drained flow stays on its queue for 2 one-hop RTTs (`STICKY_TH 2`) but a sticky
//! queue may be handed to another flow; the one-hop BDP of a port is its rate × twice its
//! propagation delay. ACKs queued with data get FIDs of their own (their reversed 5-tuple);
//! a host NIC never pauses ACKs, so an ACK from a host is never counted.

use std::collections::VecDeque;

use super::keymap::{pair, KeyMap};
use super::HopContext;
use crate::engine::{pick_below, RngStream};
use crate::fabric::frames::ControlPayload;
use crate::fabric::packet::{Packet, PacketKind};
use crate::fabric::port::Port;
use crate::ids::{FlowId, PortId};
use crate::time::{Delta, SimTime};
use crate::topology::routing::mix64;

/// Parameters of BFC (`[switch.flow_control]` with `kind = "bfc"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BfcConfig {
    /// Physical data queues per egress port.
    pub queues: u32,
    /// FIDs per switch = this × queues × ports; 0: every flow its own FID.
    pub fids_per_queue: u32,
    /// One-hop RTTs a drained flow keeps its queue.
    pub sticky_hrtt: f64,
}

/// A flow's entry in an egress port's flow table.
#[derive(Clone, Copy, Debug)]
struct FlowEntry {
    queue: u32,
    /// Packets of the flow queued at the port (active while > 0).
    packets: u32,
    /// When the flow last had a packet enqueued or dequeued.
    last: SimTime,
}

/// The mark of a packet counted in its upstream queue's pause counter (`PacketExt::fc_mark`).
const COUNTED: u8 = 1;

/// Counters of a BFC run.
#[derive(Clone, Copy, Debug, Default)]
pub struct BfcStats {
    /// Flows given a queue when they became active.
    pub assignments: u64,
    /// Of these, flows that had to share a queue with another active flow (no empty queue).
    pub shared_assignments: u64,
    /// Most active flows one queue held at once.
    pub max_flows_per_queue: u32,
}

/// BFC at every switch.
#[derive(Clone, Debug)]
pub struct Bfc {
    queues: usize,
    /// Per port (global id): Th before division (one-hop BDP, bytes) and the sticky time.
    hop_bdp: Vec<u64>,
    sticky: Vec<Delta>,
    /// Per port: its peer is a host (an upstream there is a NIC, paused per flow).
    peer_host: Vec<bool>,
    /// Per switch: FID space (0: exact flow ids), hash seed, random stream.
    fid_space: Vec<u64>,
    seeds: Vec<u64>,
    rngs: Vec<RngStream>,
    /// (egress port, FID) → entry.
    table: KeyMap<FlowEntry>,
    /// Per (port, queue): active flows assigned there.
    queue_flows: Vec<u32>,
    /// (ingress port, upstream queue) → packets counted.
    counters: KeyMap<u32>,
    /// Per flow: its source NIC was told to stop it.
    host_paused: Vec<bool>,
    pub(super) pending: VecDeque<(PortId, ControlPayload)>,
    pub stats: BfcStats,
}

/// Per-port facts BFC is built from.
pub struct BfcPort {
    /// One-hop BDP (rate × twice the propagation delay), bytes.
    pub hop_bdp: u64,
    /// Twice the propagation delay.
    pub hop_rtt: Delta,
    pub peer_host: bool,
}

impl Bfc {
    /// `ports`: every port's facts; `switch_ports[s]`: ports of switch `s`; `seeds` and
    /// `rngs`: per switch (`switch/<node>/bfc`); `flows`: flows in the run.
    pub fn new(
        cfg: BfcConfig,
        ports: &[BfcPort],
        switch_ports: &[u32],
        seeds: Vec<u64>,
        rngs: Vec<RngStream>,
        flows: usize,
    ) -> Bfc {
        let queues = cfg.queues as usize;
        Bfc {
            queues,
            hop_bdp: ports.iter().map(|p| p.hop_bdp).collect(),
            sticky: ports
                .iter()
                .map(|p| Delta((p.hop_rtt.0 as f64 * cfg.sticky_hrtt).round() as u64))
                .collect(),
            peer_host: ports.iter().map(|p| p.peer_host).collect(),
            fid_space: switch_ports
                .iter()
                .map(|&n| cfg.fids_per_queue as u64 * queues as u64 * n as u64)
                .collect(),
            seeds,
            rngs,
            table: KeyMap::default(),
            queue_flows: vec![0; ports.len() * queues],
            counters: KeyMap::default(),
            host_paused: vec![false; flows],
            pending: VecDeque::new(),
            stats: BfcStats::default(),
        }
    }

    /// The FID of `pkt` at switch `sw`.
    #[inline]
    fn fid(&self, sw: usize, pkt: &Packet) -> u32 {
        let space = self.fid_space[sw];
        if space == 0 {
            return (pkt.flow.0 << 1) | (pkt.kind != PacketKind::Data) as u32;
        }
        let a = ((pkt.src.0 as u64) << 32) | pkt.dst.0 as u64;
        let b = ((pkt.sport as u64) << 16) | pkt.dport as u64;
        (mix64(mix64(a ^ self.seeds[sw]) ^ b) % space) as u32
    }

    /// The queue of `pkt`'s flow at `egress`: its own while it is active (or sticky), else
    /// an empty queue, else a random one.
    #[inline(never)]
    pub(super) fn classify(&mut self, sw: usize, egress: PortId, pkt: &Packet, now: SimTime) -> usize {
        let fid = self.fid(sw, pkt);
        let sticky = self.sticky[egress.idx()];
        let e = self.table.entry(pair(egress.0, fid)).or_insert(FlowEntry {
            queue: u32::MAX,
            packets: 0,
            last: SimTime::ZERO,
        });
        if e.packets > 0 || (e.queue != u32::MAX && now <= e.last + sticky) {
            return e.queue as usize;
        }
        let base = egress.idx() * self.queues;
        let flows = &self.queue_flows[base..base + self.queues];
        let q = match flows.iter().position(|&n| n == 0) {
            Some(q) => q,
            None => {
                self.stats.shared_assignments += 1;
                pick_below(&mut self.rngs[sw], self.queues)
            }
        };
        self.stats.assignments += 1;
        e.queue = q as u32;
        q
    }

    /// The queue a frame for the packet's upstream names: the sender's flow at the first
    /// hop (none for an ACK: NICs never pause them), else the queue it left upstream.
    #[inline]
    fn upstream(&self, in_port: PortId, pkt: &Packet, upstream_queue: u32) -> Option<u32> {
        if !self.peer_host[in_port.idx()] {
            Some(upstream_queue)
        } else if pkt.kind == PacketKind::Data {
            Some(pkt.flow.0)
        } else {
            None
        }
    }

    /// The packet joins `queue` of `egress` (which will hold `bytes_after`): the flow is
    /// active; above the threshold the packet is counted for its upstream queue, which is
    /// paused when its counter leaves 0. Returns whether a frame waits.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_arrival(
        &mut self,
        sw: usize,
        in_port: PortId,
        egress: PortId,
        port: &Port,
        queue: usize,
        bytes_after: u64,
        pkt: &Packet,
        hop: HopContext,
    ) -> bool {
        let fid = self.fid(sw, pkt);
        let e = self.table.get_mut(&pair(egress.0, fid)).expect("classified before arrival");
        e.packets += 1;
        e.last = hop.now;
        if e.packets == 1 {
            let n = &mut self.queue_flows[egress.idx() * self.queues + queue];
            *n += 1;
            self.stats.max_flows_per_queue = self.stats.max_flows_per_queue.max(*n);
        }
        let q = &port.queues;
        let joins_active = q.queue_len(queue) == 0 && !q.is_paused(queue);
        let active = (q.active_unpaused() + joins_active as u32).max(1) as u64;
        let ext = hop.ext.get_mut(hop.slot);
        ext.fc_mark = 0;
        if bytes_after <= self.hop_bdp[egress.idx()] / active {
            return false;
        }
        let Some(up) = self.upstream(in_port, pkt, ext.upstream_queue) else { return false };
        ext.fc_mark = COUNTED;
        let c = self.counters.entry(pair(in_port.0, up)).or_insert(0);
        *c += 1;
        if *c == 1 {
            self.pending.push_back((in_port, ControlPayload::Bfc { queue: up, pause: true }));
            return true;
        }
        false
    }

    /// The packet left `queue` of `egress`: the flow may become inactive; a counted packet
    /// leaving takes its upstream queue's counter down, to RESUME at 0. The packet now
    /// names this queue as its upstream. Returns whether a frame waits.
    #[inline(never)]
    pub(super) fn on_dequeue(
        &mut self,
        sw: usize,
        in_port: PortId,
        egress: PortId,
        queue: usize,
        pkt: &Packet,
        hop: HopContext,
    ) -> bool {
        let fid = self.fid(sw, pkt);
        let key = pair(egress.0, fid);
        let e = self.table.get_mut(&key).expect("a queued flow has an entry");
        e.packets -= 1;
        e.last = hop.now;
        if e.packets == 0 {
            self.queue_flows[egress.idx() * self.queues + e.queue as usize] -= 1;
            if self.sticky[egress.idx()] == Delta::ZERO {
                self.table.remove(&key);
            }
        }
        let ext = hop.ext.get_mut(hop.slot);
        let mut signal = false;
        if ext.fc_mark == COUNTED {
            let up =
                self.upstream(in_port, pkt, ext.upstream_queue).expect("counted packets have an upstream");
            let ckey = pair(in_port.0, up);
            let c = self.counters.get_mut(&ckey).expect("a counted packet has a counter");
            *c -= 1;
            if *c == 0 {
                self.counters.remove(&ckey);
                self.pending.push_back((in_port, ControlPayload::Bfc { queue: up, pause: false }));
                signal = true;
            }
        }
        ext.fc_mark = 0;
        ext.upstream_queue = queue as u32;
        signal
    }

    /// A frame for upstream queue `queue` arrived on `port`: pause or resume that queue (at
    /// a host NIC: that flow). Returns whether something may send again.
    #[inline(never)]
    pub(super) fn on_frame(
        &mut self,
        port: &mut Port,
        is_host: bool,
        queue: u32,
        pause: bool,
        now: SimTime,
    ) -> bool {
        if is_host {
            self.host_paused[queue as usize] = pause;
            return !pause;
        }
        port.queues.set_paused(queue as usize, pause, now) && !pause
    }

    /// Whether the source NIC of `flow` is told to stop it.
    #[inline]
    pub fn host_paused(&self, flow: FlowId) -> bool {
        self.host_paused[flow.idx()]
    }

    /// A host's link failed: its flows' pauses are gone.
    pub(super) fn on_link_down(&mut self, host_flows: &[FlowId]) {
        for f in host_flows {
            self.host_paused[f.idx()] = false;
        }
    }

    /// Active flows and pause counters still held (0 once the network drained).
    pub fn held(&self) -> usize {
        self.table.values().filter(|e| e.packets > 0).count() + self.counters.len()
    }

    /// Physical queues per port.
    pub fn queues(&self) -> usize {
        self.queues
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng_stream;
    use crate::fabric::headers::ExtTable;
    use crate::fabric::packet::test_packet;
    use crate::fabric::store::PacketStore;
    use crate::time::Rate;
    use crate::topology::builders::leaf_spine;
    use crate::topology::Routing;

    /// Four queues, one port: active flows take empty queues first, a fifth shares; a
    /// drained flow's queue is handed on once its sticky time is over.
    #[test]
    fn active_flows_take_empty_queues_then_share() {
        let ports = [BfcPort { hop_bdp: 25_000, hop_rtt: Delta::from_us(2), peer_host: false }];
        let cfg = BfcConfig { queues: 4, fids_per_queue: 0, sticky_hrtt: 1.0 };
        let mut bfc = Bfc::new(cfg, &ports, &[1], vec![1], vec![rng_stream(1, "t")], 8);
        let topo = leaf_spine(
            1,
            1,
            2,
            1,
            (Rate::gbps(100), Delta::from_us(1)),
            (Rate::gbps(100), Delta::from_us(1)),
        );
        let routing = Routing::new(&topo, crate::scenario::EcmpHash::Mix, 1);
        let mut ext = ExtTable::enabled();
        let port = Port::new(
            crate::ids::NodeId(0),
            PortId(0),
            Rate::gbps(100),
            Delta::ZERO,
            4,
            4,
            Default::default(),
        );
        let mut store = PacketStore::new();
        let egress = PortId(0);
        let packet = |flow: u32| {
            let mut p = test_packet(0);
            p.flow = FlowId(flow);
            p
        };
        let now = SimTime::ZERO;
        let mut queues = Vec::new();
        for f in 0..5 {
            let p = packet(f);
            let q = bfc.classify(0, egress, &p, now);
            let r = store.insert(p);
            ext.reset(r.index());
            let hop = HopContext {
                ext: &mut ext,
                slot: r.index(),
                store: &mut store,
                routing: &routing,
                topo: &topo,
                now,
            };
            bfc.on_arrival(0, PortId(0), egress, &port, q, 1048, &p, hop);
            queues.push(q);
        }
        assert_eq!(&queues[..4], &[0, 1, 2, 3], "empty queues first");
        assert!(queues[4] < 4);
        assert_eq!((bfc.stats.assignments, bfc.stats.shared_assignments), (5, 1));
        assert_eq!(bfc.stats.max_flows_per_queue, 2);
        // Flow 0 leaves: its queue is free for a new flow once flow 0's sticky time is over.
        let p0 = packet(0);
        let r = store.insert(p0);
        ext.reset(r.index());
        let hop = HopContext {
            ext: &mut ext,
            slot: r.index(),
            store: &mut store,
            routing: &routing,
            topo: &topo,
            now,
        };
        bfc.on_dequeue(0, PortId(0), egress, 0, &p0, hop);
        if queues[4] != 0 {
            assert_eq!(bfc.classify(0, egress, &packet(6), SimTime(1)), 0, "queue 0 has no active flow");
        }
        assert_eq!(bfc.classify(0, egress, &p0, SimTime(1)), 0, "flow 0 is still sticky");
    }
}
