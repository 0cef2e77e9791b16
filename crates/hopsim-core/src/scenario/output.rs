//! `[output]`: what a run records besides the flow table and the summary.

use super::units::Duration;
use serde::{Deserialize, Serialize};

/// What the run records besides the flow table and the summary.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Record every PFC PAUSE / RESUME frame (time, node, port, priority) in `pfc_events`.
    #[serde(default)]
    pub pfc_events: bool,
    /// Record every control frame of any kind (PFC, per-flow PAUSE / RESUME, ...) in
    /// `control_frames`.
    #[serde(default)]
    pub control_frames: bool,
    /// Sample the sending rate, window and bytes in flight of chosen flows.
    #[serde(default)]
    pub rate_trace: Option<RateTraceSpec>,
    /// Sample switch egress queues and shared buffers periodically.
    #[serde(default)]
    pub queues: Option<QueueSamplerSpec>,
    /// Delivered bytes per flow per time bin (throughput over time).
    #[serde(default)]
    pub throughput: Option<ThroughputSpec>,
    /// Every packet event (enqueue, transmit, drop, receive) of chosen flows.
    #[serde(default)]
    pub packet_trace: Option<PacketTraceSpec>,
    /// Snapshots of Pyrrha's congestion trees (roots, ports with isolation queues, hosts
    /// told to stop) at chosen instants.
    #[serde(default)]
    pub congestion_trees: Option<CongestionTreesSpec>,
    /// Look for deadlocks (frozen cyclic buffer dependencies of paused queues): the
    /// `deadlocks` table, the summary's `deadlocks` fields, and optionally end the run.
    #[serde(default)]
    pub deadlock: Option<DeadlockSpec>,
    /// How long one pause must hold a data packet in a switch egress queue for its flow to
    /// count as head-of-line blocked (flows table `hol_blocked`, summary
    /// `hol_blocked_ratio`). Default 5 µs: hopsim's choice, about half a base RTT of the
    /// Proteus paper's 100 G leaf-spine, between the "short transient" pauses Proteus waits
    /// out and the "long continuous" ones it reroutes around (§II-B); the paper does not
    /// define its metric (docs/model.md).
    #[serde(default)]
    pub hol_threshold: Option<Duration>,
}

/// `output.hol_threshold`'s default.
pub const DEFAULT_HOL_THRESHOLD: Duration = Duration(crate::time::Delta(5 * crate::time::PS_PER_US));

/// `[output.deadlock]`: the deadlock detector (off unless this table is given).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeadlockSpec {
    /// How often to look. Default 10 µs: hopsim's choice, a few hop RTTs of a datacenter
    /// fabric (a check reads only ports with a paused queue).
    #[serde(default = "default_deadlock_interval")]
    pub interval: Duration,
    /// How long every queue of a cycle must have been paused without sending (the same
    /// packet at its head) before the cycle counts as a deadlock. Default 200 µs: hopsim's
    /// choice, far above a PFC pause's usual length (a few µs) and short beside a run.
    #[serde(default = "default_deadlock_hold")]
    pub hold: Duration,
    /// End the run at the first deadlock (default), with a message saying so; false keeps
    /// running and records each new deadlock.
    #[serde(default = "super::units::yes")]
    pub stop: bool,
}

fn default_deadlock_interval() -> Duration {
    Duration::us(10)
}

fn default_deadlock_hold() -> Duration {
    Duration::us(200)
}

/// `[output.congestion_trees]`: when to snapshot Pyrrha's congestion trees.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CongestionTreesSpec {
    /// Instants to snapshot (e.g. `["500us", "1ms"]`).
    #[serde(default)]
    pub at: Vec<Duration>,
    /// Also snapshot every `interval` from time 0 while the run goes on.
    #[serde(default)]
    pub interval: Option<Duration>,
}

/// `[output.queues]`: egress queue and shared-buffer occupancy of every switch.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueSamplerSpec {
    /// Sampling interval. Default 10 µs.
    #[serde(default = "default_trace_interval")]
    pub interval: Duration,
    /// One row per data queue (true) or per port, all queues summed (false, default).
    #[serde(default)]
    pub per_queue: bool,
}

/// `[output.throughput]`: bin width of the delivered-bytes time series.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThroughputSpec {
    /// Bin width. Default 100 µs.
    #[serde(default = "default_throughput_interval")]
    pub interval: Duration,
}

/// `[output.packet_trace]`: a per-packet log for debugging small runs.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PacketTraceSpec {
    /// Flow ids to trace; omitted = every flow and every control frame.
    #[serde(default)]
    pub flows: Option<Vec<u32>>,
    /// Stop recording after this many records (the summary counts the rest). Default 1,000,000.
    #[serde(default = "default_max_records")]
    pub max_records: u64,
}

fn default_throughput_interval() -> Duration {
    Duration::us(100)
}

fn default_max_records() -> u64 {
    1_000_000
}

/// `[output.rate_trace]`: which flows to sample and how often.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateTraceSpec {
    /// Flow ids (in start order, as in the flows table).
    pub flows: Vec<u32>,
    /// Sampling interval. Default 10 µs.
    #[serde(default = "default_trace_interval")]
    pub interval: Duration,
}

fn default_trace_interval() -> Duration {
    Duration::us(10)
}
