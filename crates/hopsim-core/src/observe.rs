//! Measurements beyond the counters: per-hop queuing delay (always on), head-of-line
//! blocking by pauses (always on, touched only when a control frame pauses or resumes a
//! queue), and the opt-in samplers of `[output]` — queue and buffer occupancy, delivered
//! bytes per flow per time bin, and a per-packet trace for debugging small runs.
//!
//! Every recorder here is written on the hot path only through a cheap `Option` check, so
//! a run that asks for nothing pays for nothing but the delay histogram (a few
//! instructions per switch hop).

use crate::fabric::packet::{Packet, PacketKind};
use crate::ids::{FlowId, NodeId, PortId};
use crate::time::{Delta, SimTime};
use crate::topology::{Tier, Topology};

/// Head-of-line blocking by pauses (Proteus §V-C, Fig 12a's "HoL blocking flows"; the
/// definition is hopsim's, see docs/model.md): a flow is HoL-blocked when one of its data
/// packets sat in a switch egress queue that a control frame (a PFC PAUSE, or any flow
/// control's) had paused, for at least `threshold` of one pause. Kept per switch queue
/// 0–63 from frame to frame: a PAUSE arriving notes when the queue stopped; a RESUME
/// arriving after at least `threshold` walks the queue once and marks the flows of the
/// packets that waited that long in the pause (all of the pause for those queued before
/// it, since their arrival for the others). Nothing is done per packet.
#[derive(Clone, Debug, Default)]
pub struct HolBlocking {
    pub threshold: Delta,
    /// When each paused (port, queue) stopped, keyed `port × 64 + queue`.
    since: std::collections::BTreeMap<u64, SimTime>,
    /// Per flow, a bitmap.
    blocked: Vec<u64>,
    /// Flows marked.
    pub flows: u64,
}

impl HolBlocking {
    /// Add the flows `other` marked (another partition of a parallel run).
    pub fn merge(&mut self, other: &HolBlocking) {
        for (a, b) in self.blocked.iter_mut().zip(&other.blocked) {
            *a |= b;
        }
        self.flows = self.blocked.iter().map(|w| w.count_ones() as u64).sum();
    }

    pub fn new(threshold: Delta, flows: usize) -> HolBlocking {
        HolBlocking { threshold, since: Default::default(), blocked: vec![0; flows.div_ceil(64)], flows: 0 }
    }

    /// Port `port`'s queues 0–63 went from paused mask `before` to `after` at `now`; returns
    /// the queues resumed after a pause of at least the threshold (to walk, with since
    /// when they were paused).
    pub fn on_pause_change(
        &mut self,
        port: PortId,
        before: u64,
        after: u64,
        now: SimTime,
    ) -> Vec<(usize, SimTime)> {
        let key = |q: u32| port.0 as u64 * 64 + q as u64;
        let mut paused = after & !before;
        while paused != 0 {
            let q = paused.trailing_zeros();
            paused &= paused - 1;
            self.since.insert(key(q), now);
        }
        let mut resumed = before & !after;
        let mut walk = Vec::new();
        while resumed != 0 {
            let q = resumed.trailing_zeros();
            resumed &= resumed - 1;
            if let Some(start) = self.since.remove(&key(q)) {
                if now.since(start) >= self.threshold {
                    walk.push((q as usize, start));
                }
            }
        }
        walk
    }

    /// A data packet of flow `f`, queued at `enq_ns` (wrapping ns), waited in a pause from
    /// `start` to `now`.
    pub fn on_waited(&mut self, f: FlowId, enq_ns: u32, start: SimTime, now: SimTime) {
        let since_enqueue = now.as_ns_wrapping().wrapping_sub(enq_ns) as u64;
        let paused = Delta::from_ns(since_enqueue).min(now.since(start));
        if paused < self.threshold {
            return;
        }
        let (w, b) = (f.idx() / 64, 1u64 << (f.idx() % 64));
        if self.blocked[w] & b == 0 {
            self.blocked[w] |= b;
            self.flows += 1;
        }
    }

    /// Whether flow `f` was HoL-blocked.
    pub fn is_blocked(&self, f: FlowId) -> bool {
        self.blocked.get(f.idx() / 64).is_some_and(|w| w & (1 << (f.idx() % 64)) != 0)
    }
}

/// Role of an egress port along a path, for per-tier queue and delay metrics
/// (Pyrrha §6 reports queuing per SrcToR / Agg / Core / DstToR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum HopTier {
    /// A host NIC.
    Host = 0,
    /// A ToR port towards the fabric: traffic leaving the source rack.
    SrcTor = 1,
    /// Any port of an aggregation switch, or of a two-tier fabric's spine (the hop
    /// between the two ToRs either way).
    Agg = 2,
    /// Any port of a core switch.
    Core = 3,
    /// A ToR port towards a host: traffic entering the destination rack.
    DstTor = 4,
}

impl HopTier {
    pub const ALL: [HopTier; 5] =
        [HopTier::Host, HopTier::SrcTor, HopTier::Agg, HopTier::Core, HopTier::DstTor];

    pub fn name(self) -> &'static str {
        match self {
            HopTier::Host => "host",
            HopTier::SrcTor => "src_tor",
            HopTier::Agg => "agg",
            HopTier::Core => "core",
            HopTier::DstTor => "dst_tor",
        }
    }

    /// The hop tier of every port, indexed by global port id.
    pub fn of_ports(topo: &Topology) -> Vec<HopTier> {
        topo.ports
            .iter()
            .map(|spec| {
                let peer = topo.ports[spec.peer.idx()].node;
                match topo.tiers[spec.node.idx()] {
                    Tier::Host => HopTier::Host,
                    Tier::Tor if topo.is_host(peer) => HopTier::DstTor,
                    Tier::Tor => HopTier::SrcTor,
                    Tier::Agg | Tier::Spine => HopTier::Agg,
                    Tier::Core => HopTier::Core,
                }
            })
            .collect()
    }
}

// ---------------------------------------------------------------- queuing delay

/// Delays below this many ns get one bucket each.
const EXACT_NS: u64 = 16;
/// Buckets per power of two above `EXACT_NS` (relative bucket width ≤ 1/8).
const SUB_BUCKETS: u64 = 8;
/// Enough buckets for delays up to 2^32 ns (~4.3 s).
const BUCKETS: usize = (EXACT_NS + (32 - 4) * SUB_BUCKETS) as usize;

/// Log-linear histogram bucket of a delay in ns.
fn bucket_of(ns: u64) -> usize {
    if ns < EXACT_NS {
        return ns as usize;
    }
    let octave = 63 - ns.leading_zeros() as u64; // ≥ 4
    let sub = (ns >> (octave - 3)) & (SUB_BUCKETS - 1);
    ((EXACT_NS + (octave - 4) * SUB_BUCKETS + sub) as usize).min(BUCKETS - 1)
}

/// `[lower, upper)` edges in ns of a bucket.
pub fn bucket_edges(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < EXACT_NS {
        return (b, b + 1);
    }
    let octave = (b - EXACT_NS) / SUB_BUCKETS + 4;
    let sub = (b - EXACT_NS) % SUB_BUCKETS;
    let width = 1u64 << (octave - 3);
    let lower = (SUB_BUCKETS + sub) * width;
    (lower, lower + width)
}

/// Time each data packet waited in a switch egress queue (enqueue to start of
/// transmission), per hop tier: a log-linear histogram plus exact count, sum and max.
#[derive(Clone, Debug)]
pub struct QueueDelay {
    counts: Vec<[u64; BUCKETS]>,
    sum_ns: [u64; 5],
    max_ns: [u64; 5],
}

impl QueueDelay {
    /// Add `other`'s packets (another partition of a parallel run).
    pub fn merge(&mut self, other: &QueueDelay) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        for t in 0..self.sum_ns.len() {
            self.sum_ns[t] += other.sum_ns[t];
            self.max_ns[t] = self.max_ns[t].max(other.max_ns[t]);
        }
    }
}

impl Default for QueueDelay {
    fn default() -> Self {
        QueueDelay { counts: vec![[0; BUCKETS]; 5], sum_ns: [0; 5], max_ns: [0; 5] }
    }
}

/// One non-empty histogram bucket of a hop tier.
#[derive(Clone, Copy, Debug)]
pub struct DelayBucket {
    pub tier: HopTier,
    pub lower_ns: u64,
    pub upper_ns: u64,
    pub packets: u64,
}

/// Exact aggregate of one hop tier's queuing delays.
#[derive(Clone, Copy, Debug)]
pub struct DelayStats {
    pub tier: HopTier,
    pub packets: u64,
    pub mean_ns: f64,
    pub max_ns: u64,
}

impl QueueDelay {
    #[inline]
    pub fn record(&mut self, tier: HopTier, ns: u64) {
        let t = tier as usize;
        self.counts[t][bucket_of(ns)] += 1;
        self.sum_ns[t] += ns;
        self.max_ns[t] = self.max_ns[t].max(ns);
    }

    /// Non-empty buckets, by tier then delay.
    pub fn buckets(&self) -> Vec<DelayBucket> {
        let mut out = Vec::new();
        for tier in HopTier::ALL {
            for (b, &packets) in self.counts[tier as usize].iter().enumerate() {
                if packets > 0 {
                    let (lower_ns, upper_ns) = bucket_edges(b);
                    out.push(DelayBucket { tier, lower_ns, upper_ns, packets });
                }
            }
        }
        out
    }

    /// Count, mean and max per tier that saw packets.
    pub fn stats(&self) -> Vec<DelayStats> {
        HopTier::ALL
            .iter()
            .filter_map(|&tier| {
                let t = tier as usize;
                let packets: u64 = self.counts[t].iter().sum();
                (packets > 0).then(|| DelayStats {
                    tier,
                    packets,
                    mean_ns: self.sum_ns[t] as f64 / packets as f64,
                    max_ns: self.max_ns[t],
                })
            })
            .collect()
    }
}

// ---------------------------------------------------------------- samplers

/// Occupancy of one egress queue (`queue = None`: all data queues of the port) at a
/// sample time. Only non-empty queues are recorded.
#[derive(Clone, Copy, Debug)]
pub struct QueueSample {
    pub time: SimTime,
    pub port: PortId,
    pub queue: Option<u16>,
    pub bytes: u64,
}

/// Shared-buffer occupancy of one switch at a sample time (non-zero only).
#[derive(Clone, Copy, Debug)]
pub struct BufferSample {
    pub time: SimTime,
    pub node: NodeId,
    pub bytes: u64,
}

/// `[output.queues]`: periodic snapshots of switch egress queues and shared buffers.
#[derive(Clone, Debug)]
pub struct QueueSampler {
    pub interval: Delta,
    pub per_queue: bool,
    pub queues: Vec<QueueSample>,
    pub buffers: Vec<BufferSample>,
}

/// Payload bytes a flow's receiver accepted (new data only) in one time bin.
#[derive(Clone, Copy, Debug)]
pub struct ThroughputBin {
    /// Start of the bin.
    pub time: SimTime,
    pub flow: u32,
    pub bytes: u64,
}

/// `[output.throughput]`: delivered bytes per flow per bin of `interval`.
#[derive(Clone, Debug)]
pub struct Throughput {
    pub interval: Delta,
    /// Per flow: the bin being filled and its bytes.
    open: Vec<(u64, u64)>,
    closed: Vec<ThroughputBin>,
}

impl Throughput {
    pub fn new(interval: Delta, flows: usize) -> Throughput {
        Throughput { interval, open: vec![(0, 0); flows], closed: Vec::new() }
    }

    #[inline]
    pub fn add(&mut self, now: SimTime, flow: FlowId, bytes: u64) {
        let bin = now.0 / self.interval.0;
        let slot = &mut self.open[flow.idx()];
        if slot.0 != bin {
            if slot.1 > 0 {
                let time = SimTime(slot.0 * self.interval.0);
                self.closed.push(ThroughputBin { time, flow: flow.0, bytes: slot.1 });
            }
            *slot = (bin, 0);
        }
        slot.1 += bytes;
    }

    /// All bins with data, ordered by time then flow.
    pub fn bins(&self) -> Vec<ThroughputBin> {
        let mut out = self.closed.clone();
        for (f, &(bin, bytes)) in self.open.iter().enumerate() {
            if bytes > 0 {
                out.push(ThroughputBin { time: SimTime(bin * self.interval.0), flow: f as u32, bytes });
            }
        }
        out.sort_by_key(|b| (b.time, b.flow));
        out
    }
}

// ---------------------------------------------------------------- packet trace

/// What happened to a packet in a [`PacketRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    /// Placed in a switch egress queue.
    Enqueue,
    /// Started serialization on a port (host NIC or switch).
    Transmit,
    /// Dropped (switch admission, hop limit, a failed link or no route).
    Drop,
    /// Arrived at its destination host.
    Receive,
    /// Sent out of another port than its route's by a deflection policy (recorded at the
    /// port it was deflected to).
    Deflect,
}

impl PacketEvent {
    pub fn name(self) -> &'static str {
        match self {
            PacketEvent::Enqueue => "enqueue",
            PacketEvent::Transmit => "tx",
            PacketEvent::Drop => "drop",
            PacketEvent::Receive => "rx",
            PacketEvent::Deflect => "deflect",
        }
    }
}

/// One line of the per-packet trace.
#[derive(Clone, Copy, Debug)]
pub struct PacketRecord {
    pub time: SimTime,
    pub event: PacketEvent,
    pub port: PortId,
    pub kind: PacketKind,
    /// `u32::MAX` for hop-by-hop control frames.
    pub flow: u32,
    pub seq: u64,
    pub wire_bytes: u32,
    /// The data queue a packet entered or was meant for (enqueue and drop events); 0
    /// otherwise.
    pub queue: u32,
    /// Bytes in the port's data queues after the event.
    pub port_backlog: u64,
    pub ecn_ce: bool,
}

/// `[output.packet_trace]`: every packet event of chosen flows, up to a record limit.
#[derive(Clone, Debug)]
pub struct PacketTrace {
    /// Per flow id: traced? (`None`: every flow and every control frame.)
    pub flows: Option<Vec<bool>>,
    pub max_records: usize,
    pub records: Vec<PacketRecord>,
    /// Events not recorded once the limit was reached.
    pub dropped: u64,
}

impl PacketTrace {
    #[inline]
    pub fn wants(&self, pkt: &Packet) -> bool {
        match &self.flows {
            None => true,
            Some(set) => set.get(pkt.flow.idx()).copied().unwrap_or(false),
        }
    }

    /// Record `event` of `pkt` at `port`, which then holds `backlog` bytes in its data
    /// queues; `queue`: the data queue concerned (enqueue, drop), else 0.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        now: SimTime,
        event: PacketEvent,
        port: PortId,
        pkt: &Packet,
        queue: usize,
        backlog: u64,
    ) {
        if !self.wants(pkt) {
            return;
        }
        if self.records.len() >= self.max_records {
            self.dropped += 1;
            return;
        }
        self.records.push(PacketRecord {
            time: now,
            event,
            port,
            kind: pkt.kind,
            flow: pkt.flow.0,
            seq: pkt.seq,
            wire_bytes: pkt.wire_bytes as u32,
            queue: queue as u32,
            port_backlog: backlog,
            ecn_ce: pkt.ecn_ce(),
        });
    }
}

/// All measurement state of a run.
#[derive(Clone, Debug, Default)]
pub struct Observers {
    /// Hop tier of every port (global port id).
    pub hop_tier: Vec<HopTier>,
    pub queue_delay: QueueDelay,
    pub hol: HolBlocking,
    pub queues: Option<QueueSampler>,
    pub throughput: Option<Throughput>,
    pub packet_trace: Option<PacketTrace>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_line_and_contain_their_values() {
        let mut expect_lower = 0;
        for b in 0..BUCKETS {
            let (lo, hi) = bucket_edges(b);
            assert_eq!(lo, expect_lower, "bucket {b} starts where the previous ended");
            assert!(hi > lo);
            assert_eq!(bucket_of(lo), b);
            assert_eq!(bucket_of(hi - 1), b);
            // Relative width at most 1/8 above the exact range.
            if lo >= EXACT_NS {
                assert!((hi - lo) * SUB_BUCKETS <= lo);
            }
            expect_lower = hi;
        }
        assert_eq!(bucket_of(u32::MAX as u64), BUCKETS - 1);
    }

    #[test]
    fn delay_stats_are_exact() {
        let mut d = QueueDelay::default();
        for ns in [0, 10, 1000, 2500] {
            d.record(HopTier::DstTor, ns);
        }
        let s = d.stats();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].packets, 4);
        assert_eq!(s[0].mean_ns, 877.5);
        assert_eq!(s[0].max_ns, 2500);
        assert_eq!(d.buckets().iter().map(|b| b.packets).sum::<u64>(), 4);
    }

    #[test]
    fn throughput_bins_close_on_the_next_bin() {
        let mut t = Throughput::new(Delta(1000), 2);
        t.add(SimTime(10), FlowId(0), 5);
        t.add(SimTime(999), FlowId(0), 5);
        t.add(SimTime(1500), FlowId(1), 7);
        t.add(SimTime(3100), FlowId(0), 1);
        let bins: Vec<_> = t.bins().iter().map(|b| (b.time.0, b.flow, b.bytes)).collect();
        assert_eq!(bins, vec![(0, 0, 10), (1000, 1, 7), (3000, 0, 1)]);
    }
}
