//! What a run reports: a record per flow, per port, PFC events, and run-wide counters.

use crate::fabric::port::PortStats;
use crate::ids::{NodeId, PortId};
use crate::time::SimTime;

/// Dropped data packets by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drops {
    /// The switch's whole shared buffer was full.
    pub buffer_full: u64,
    /// A lossless (PFC) packet found its ingress headroom exhausted — a mis-sized headroom.
    pub headroom_overflow: u64,
    /// A lossy packet was refused by egress admission (dynamic or static threshold), and
    /// no deflection took it.
    pub egress_admission: u64,
    /// A packet's hop limit ran out (a deflection policy keeps it, as DIBS's TTL).
    pub hop_limit: u64,
    /// A packet queued for, or on the wire of, a link that failed (`[[faults]]`), or a
    /// control frame sent towards a failed link.
    pub link_down: u64,
    /// A switch had no route to the packet's destination (after link failures).
    pub no_route: u64,
    /// A rank-aware policy refused the packet for its rank (AIFO, Preemptive Deflection's
    /// preemptive drop, Vertigo's eviction of the highest rank).
    pub rank_admission: u64,
}

/// Why a data packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    BufferFull,
    HeadroomOverflow,
    EgressAdmission,
    HopLimit,
    LinkDown,
    NoRoute,
    /// A rank-aware policy refused the packet for its rank: AIFO's admission, Preemptive
    /// Deflection's preemptive drop, Vertigo evicting the highest rank.
    RankAdmission,
}

impl Drops {
    pub fn add(&mut self, cause: DropCause) {
        match cause {
            DropCause::BufferFull => self.buffer_full += 1,
            DropCause::HeadroomOverflow => self.headroom_overflow += 1,
            DropCause::EgressAdmission => self.egress_admission += 1,
            DropCause::HopLimit => self.hop_limit += 1,
            DropCause::LinkDown => self.link_down += 1,
            DropCause::NoRoute => self.no_route += 1,
            DropCause::RankAdmission => self.rank_admission += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.buffer_full
            + self.headroom_overflow
            + self.egress_admission
            + self.hop_limit
            + self.link_down
            + self.no_route
            + self.rank_admission
    }

    /// Add `other`'s counts (the partitions of a parallel run).
    pub fn merge(&mut self, other: &Drops) {
        self.buffer_full += other.buffer_full;
        self.headroom_overflow += other.headroom_overflow;
        self.egress_admission += other.egress_admission;
        self.hop_limit += other.hop_limit;
        self.link_down += other.link_down;
        self.no_route += other.no_route;
        self.rank_admission += other.rank_admission;
    }

    /// Each cause with its count, in a fixed order (for reports).
    pub fn by_cause(&self) -> [(&'static str, u64); 7] {
        [
            ("buffer_full", self.buffer_full),
            ("headroom_overflow", self.headroom_overflow),
            ("egress_admission", self.egress_admission),
            ("hop_limit", self.hop_limit),
            ("link_down", self.link_down),
            ("no_route", self.no_route),
            ("rank_admission", self.rank_admission),
        ]
    }
}

/// Run-wide counters maintained on the hot path.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub events: u64,
    /// One packet (data or control) crossing one link.
    pub packet_hops: u64,
    pub data_packets_sent: u64,
    pub data_packets_delivered: u64,
    pub drops: Drops,
    pub ecn_marks: u64,
    pub flows_finished: u64,
    /// Packets deflected (sent out of another port than routing chose).
    pub deflections: u64,
    /// Packets other than data dropped (ACKs, NACKs and CNPs queued with data, control
    /// frames on failed links); `drops` counts data packets only.
    pub control_drops: u64,
}

impl Counters {
    /// Add `other`'s counts (another partition of a parallel run).
    pub fn merge(&mut self, other: &Counters) {
        self.events += other.events;
        self.packet_hops += other.packet_hops;
        self.data_packets_sent += other.data_packets_sent;
        self.data_packets_delivered += other.data_packets_delivered;
        self.drops.merge(&other.drops);
        self.ecn_marks += other.ecn_marks;
        self.flows_finished += other.flows_finished;
        self.deflections += other.deflections;
        self.control_drops += other.control_drops;
    }
}

/// One flow's outcome. Times in picoseconds of simulated time.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    pub flow_id: u32,
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    pub start: SimTime,
    /// When the sender received the acknowledgement of the last byte.
    pub finish: Option<SimTime>,
    /// Ideal FCT on an idle network (HPCC simulator's `standalone_fct`, see docs/model.md).
    pub ideal_fct: crate::time::Delta,
    pub tag: String,
    /// The query this flow answers (query workloads).
    pub query_id: Option<u32>,
    /// Congestion control of the flow (`none`, `dcqcn`, `hpcc`, `dctcp`, `timely`).
    pub cc: &'static str,
    /// Loss recovery (`go_back_n`, `go_back_n+reorder_buffer`, `irn`, `tcp`, `mp_rdma`).
    pub loss_recovery: &'static str,
    pub priority: u8,
    pub retransmitted_bytes: u64,
    pub timeouts: u32,
    pub cnps_received: u32,
    pub path_hops: u32,
    /// Data packets that arrived out of order at the receiver (not retransmissions).
    pub reordered_packets: u32,
    /// Times a packet of this flow (data or ACK) was deflected.
    pub deflections: u32,
    /// A pause held one of its data packets in a switch queue for `output.hol_threshold`.
    pub hol_blocked: bool,
}

impl FlowRecord {
    pub fn fct(&self) -> Option<crate::time::Delta> {
        self.finish.map(|f| f.since(self.start))
    }
    /// FCT / ideal FCT (not clipped).
    pub fn slowdown(&self) -> Option<f64> {
        self.fct().map(|f| f.0 as f64 / self.ideal_fct.0 as f64)
    }
}

/// One port's counters.
#[derive(Clone, Debug)]
pub struct PortRecord {
    pub node: u32,
    /// Port number within its node.
    pub port: u32,
    pub peer_node: u32,
    pub tier: &'static str,
    /// Role of the port along paths (`host`, `src_tor`, `agg`, `core`, `dst_tor`).
    pub hop_tier: &'static str,
    pub rate_bps: u64,
    pub stats: PortStats,
}

/// A PFC frame sent (`pause` = XOFF, else XON) out of `port` of `node`.
#[derive(Clone, Copy, Debug)]
pub struct PfcEvent {
    pub time: SimTime,
    pub node: NodeId,
    pub port: PortId,
    pub priority: u8,
    pub pause: bool,
}

/// Run-wide figures, including packet conservation:
/// `data_packets_sent = data_packets_delivered + drops.total() + data packets in flight`
/// (drops count data packets; ACKs queued with data that are dropped are not counted).
#[derive(Clone, Debug)]
pub struct Summary {
    pub seed: u64,
    pub events: u64,
    pub sim_time: SimTime,
    pub flows_total: u64,
    pub flows_finished: u64,
    pub packet_hops: u64,
    pub data_packets_sent: u64,
    pub data_packets_delivered: u64,
    pub drops: Drops,
    pub pfc_pause_frames: u64,
    pub pfc_resume_frames: u64,
    /// Control frames sent and received, by kind (every kind of every flow-control
    /// mechanism, in registration order).
    pub control_frames: Vec<FrameCount>,
    /// Packets deflected by admission (sent out of another port than routing chose).
    pub deflections: u64,
    /// ACKs, NACKs, CNPs and control frames dropped (not in `drops`).
    pub control_drops: u64,
    /// Packets (data and control) still allocated: in queues or on links.
    pub packets_in_flight: u64,
    pub peak_packets_in_flight: u64,
    /// Shared-buffer bytes still accounted at the end (0 once drained).
    pub buffer_bytes_in_use: u64,
    /// Largest shared-buffer occupancy of any switch.
    pub max_buffer_bytes: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub cnps: u64,
    pub ecn_marks: u64,
    /// Data packets that arrived out of order, over data packets delivered.
    pub reordering_ratio: f64,
    /// Flows a pause held in a switch queue for `output.hol_threshold` (flows table
    /// `hol_blocked`).
    pub hol_blocked_flows: u64,
    /// TCP's ordering layer: out-of-order segments it held, and those it handed to TCP
    /// out of order when its timeout expired (0 and 0 without the layer).
    pub reorder_held: u64,
    pub reorder_released: u64,
    /// Bolt: source congestion notifications switches sent.
    pub bolt_srcs: u64,
    /// With a deflection policy: data packets delivered per number of extra switch hops
    /// their deflections cost (index k: k hops beyond the routed path; empty otherwise).
    pub deflection_extra_hops: Vec<u64>,
    /// Packet-trace events not recorded once `max_records` was reached.
    pub packet_trace_dropped: u64,
    /// The run's mechanisms' own counters (flow control, load balancing, switch signals,
    /// transport), each under the name its mechanism reports it by (prefixed with the
    /// mechanism's name: `letflow_flowlets`, `pyrrha_…`), in family order.
    pub counters: Vec<(&'static str, u64)>,
}

/// Control frames of one kind sent and received over a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameCount {
    pub kind: &'static str,
    pub sent: u64,
    pub received: u64,
}

impl Summary {
    /// Frames of kind `kind` (e.g. `"flow_pause"`) sent.
    pub fn frames_sent(&self, kind: &str) -> u64 {
        self.control_frames.iter().find(|c| c.kind == kind).map_or(0, |c| c.sent)
    }

    /// The mechanisms' counter `name` (`None` when no mechanism of the run keeps one).
    pub fn counter(&self, name: &str) -> Option<u64> {
        self.counters.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// Frames of kind `kind` received.
    pub fn frames_received(&self, kind: &str) -> u64 {
        self.control_frames.iter().find(|c| c.kind == kind).map_or(0, |c| c.received)
    }
}

/// One switch's buffer figures.
#[derive(Clone, Copy, Debug)]
pub struct SwitchRecord {
    pub node: u32,
    pub tier: &'static str,
    /// Largest shared-buffer occupancy (data bytes) during the run.
    pub max_buffer_bytes: u64,
}

/// One sample of a traced flow's sender state.
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    pub time: SimTime,
    pub flow: u32,
    /// Sending rate set by congestion control, bits/s.
    pub rate_bps: u64,
    /// Window in bytes (0 = none).
    pub window_bytes: u64,
    /// Bytes sent and not yet acknowledged.
    pub in_flight_bytes: u64,
}
