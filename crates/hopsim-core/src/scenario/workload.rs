//! `[workload]`: the traffic sources.

use super::tagged::kind_tagged;
use super::{yes, zero_duration, Bytes, Duration};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

kind_tagged!(WorkloadSpec {
    "flows" => Flows,
    "poisson" => Poisson,
    "incast" => Incast,
    "query" => Query,
    "permutation" => Permutation,
    "moe" => Moe,
    "incast_mix" => IncastMix,
});

/// One traffic source. A scenario may list several (`[[workload]]`).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadSpec {
    /// An explicit list of flows, inline or from a file.
    Flows(FlowsSpec),
    /// Poisson arrivals with sizes from a flow-size CDF, at a target load of the host links.
    Poisson(PoissonSpec),
    /// Periodic N-to-1 incast.
    Incast(IncastSpec),
    /// Query / response incast: clients ask `fan_out` servers for `response_size` each.
    Query(QuerySpec),
    /// Every host sends one flow to a distinct other host (a random derangement).
    Permutation(PermutationSpec),
    /// Periodic imbalanced all-to-all of Mixture-of-Experts training (Pyrrha §2.2, App. B).
    Moe(MoeSpec),
    /// Pyrrha-NS3's incast-mix generator (Pyrrha §6): per-connection Poisson flows after a
    /// one-round many-to-one incast.
    IncastMix(IncastMixSpec),
}

/// The incast-mix traffic of Pyrrha §6 as the authors' simulator makes it (Pyrrha-NS3,
/// `scratch/third.cc`, `generate_load_poisson_fromcdf_incast`, with the configs of
/// `mix_withcc/config-CI-*.ini`):
///
/// - one connection per ordered pair of hosts in different racks (hosts behind different
///   first-hop switches); each connection is a Poisson process whose rate is the sending
///   host's `load × line rate / mean_size` split evenly over its connections;
/// - the first arrivals come `time_shift` after time 0 ("poisson come after incast"); the
///   first `flow_num` arrivals in time order are kept, then those from or to the incast
///   receiver removed;
/// - the incast: `fan_in` flows to `receiver`, each starting at `incast_start` plus a
///   whole number of nanoseconds below `incast_jitter`, each from a host drawn uniformly,
///   with replacement, from the racks other than the receiver's, of a whole number of
///   `payload`-byte packets uniform in [`incast_packets_min`, `incast_packets_max`];
///   another round every `fan_in × mean incast size / (incast_load × receiver rate)` while
///   the Poisson arrivals last (one round when they are shorter).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IncastMixSpec {
    /// Built-in CDF name of the Poisson flow sizes (e.g. `"memcached"`) — or give `cdf_file`.
    #[serde(default)]
    pub size_dist: Option<String>,
    /// A CDF file of the Poisson flow sizes.
    #[serde(default)]
    pub cdf_file: Option<PathBuf>,
    /// The distribution's nominal mean that sets the arrival rate (Pyrrha-NS3 reads it
    /// from the first line of its distribution file, e.g. 62874 B for Web Server). Default:
    /// the mean of the CDF as sampled.
    #[serde(default)]
    pub mean_size: Option<Bytes>,
    /// Offered load of each host as a fraction of its line rate (`LOAD`, 0.8 in §6).
    pub load: f64,
    /// Poisson flows kept, in time order, before those of the incast receiver are removed
    /// (`FLOW_NUM`, 50,000 in the authors' configs).
    pub flow_num: u32,
    /// Start of the Poisson arrivals (`TIME_SHIFT`, 30 µs in the authors' configs).
    #[serde(default = "default_time_shift")]
    pub time_shift: Duration,
    /// The incast receiver (`ONE_INCAST_DST`: host 0).
    #[serde(default)]
    pub receiver: u32,
    /// Incast flows per round (`INCAST_MIX`, 720).
    #[serde(default = "default_mix_fan_in")]
    pub fan_in: u32,
    /// Incast flow sizes in packets (`INCAST_MIN` / `INCAST_MAX` 3 / 4, times 10 at 100 Gb/s:
    /// 30-40 packets).
    #[serde(default = "default_incast_packets_min")]
    pub incast_packets_min: u32,
    #[serde(default = "default_incast_packets_max")]
    pub incast_packets_max: u32,
    /// Payload bytes per incast packet (`PACKET_PAYLOAD_SIZE`, 1460).
    #[serde(default = "default_mix_payload")]
    pub payload: Bytes,
    /// Incast load on the receiver's link, which spaces the rounds (`INCAST_LOAD`, 0.5).
    #[serde(default = "default_incast_load")]
    pub incast_load: f64,
    /// Start of each incast round (`Seconds(1e-7)` in `third.cc`: 100 ns).
    #[serde(default = "default_incast_start")]
    pub incast_start: Duration,
    /// Each incast flow starts a whole number of ns below this later (`rand() % 100`: 100 ns).
    #[serde(default = "default_incast_start")]
    pub incast_jitter: Duration,
    /// Tag of the Poisson flows.
    #[serde(default = "tag_poisson")]
    pub tag: String,
    /// Tag of the incast flows.
    #[serde(default = "tag_incast")]
    pub incast_tag: String,
}

fn default_time_shift() -> Duration {
    Duration(crate::time::Delta::from_us(30))
}
fn default_mix_fan_in() -> u32 {
    720
}
fn default_incast_packets_min() -> u32 {
    30
}
fn default_incast_packets_max() -> u32 {
    40
}
fn default_mix_payload() -> Bytes {
    Bytes(1460)
}
fn default_incast_load() -> f64 {
    0.5
}
fn default_incast_start() -> Duration {
    Duration(crate::time::Delta::from_ns(100))
}

/// Mixture-of-Experts all-to-all (Pyrrha §2.2 and Appendix B, after FasterMoE): every
/// `period`, all workers start an all-to-all at once (the synchronous "on" phase, then
/// compute until the next period); a `hot_share` of each worker's bytes goes to a few
/// `hot_experts`. Two groups with equal `start` collide; offset by half a period they
/// interleave.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoeSpec {
    /// Workers of this group (default: all hosts).
    #[serde(default)]
    pub hosts: Option<Vec<u32>>,
    /// Bytes each worker sends per all-to-all, over all its receivers.
    pub bytes_per_worker: Bytes,
    /// Number of hot experts. Default 2.
    #[serde(default = "default_hot_experts")]
    pub hot_experts: u32,
    /// Share of each worker's bytes sent to the hot experts. Default 0.5.
    #[serde(default = "default_hot_share")]
    pub hot_share: f64,
    /// Draw new hot experts every iteration (true, default) or keep the first draw.
    #[serde(default = "yes")]
    pub reselect_hot: bool,
    /// Time between the starts of two all-to-alls (on + off phase).
    pub period: Duration,
    /// First all-to-all (the group's phase).
    #[serde(default = "zero_duration")]
    pub start: Duration,
    /// No all-to-all starts at or after this time.
    pub stop: Duration,
    #[serde(default = "tag_moe")]
    pub tag: String,
}

fn default_hot_experts() -> u32 {
    2
}
fn default_hot_share() -> f64 {
    0.5
}
fn tag_moe() -> String {
    "moe".into()
}

/// Query / response incast (the deflection paper's query traffic, §5: 100 × 40 KB per
/// query). Each client issues queries as a Poisson process at `qps`; a query starts
/// `fan_out` response flows, one from each of that many distinct servers, to the client.
/// The query completes when its last response does (QCT).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuerySpec {
    /// Hosts that issue queries (default: all).
    #[serde(default)]
    pub clients: Option<Vec<u32>>,
    /// Hosts that answer (default: all); a client never answers itself.
    #[serde(default)]
    pub servers: Option<Vec<u32>>,
    pub fan_out: u32,
    pub response_size: Bytes,
    /// Queries per second per client.
    pub qps: f64,
    #[serde(default = "zero_duration")]
    pub start: Duration,
    pub stop: Duration,
    #[serde(default = "tag_query")]
    pub tag: String,
}

/// A permutation: at `start`, each host sends `size` bytes to a distinct other host.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PermutationSpec {
    pub size: Bytes,
    #[serde(default = "zero_duration")]
    pub start: Duration,
    #[serde(default = "tag_permutation")]
    pub tag: String,
}

fn tag_query() -> String {
    "query".into()
}
fn tag_permutation() -> String {
    "permutation".into()
}

/// An explicit list of flows, inline or from a file.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowsSpec {
    #[serde(default)]
    pub flows: Vec<FlowEntry>,
    #[serde(default)]
    pub file: Option<PathBuf>,
    #[serde(default)]
    pub format: FlowFileFormat,
    /// Tag of the flows read from `file`.
    #[serde(default = "tag_flows")]
    pub tag: String,
    /// Class every flow of this workload as *congested* (many-to-one traffic), as incast
    /// and query workloads are. Default false; a CSV file's `class` column marks its own
    /// congested flows.
    #[serde(default)]
    pub congested: bool,
}

/// Poisson arrivals with sizes from a flow-size CDF, at a target load of the host links.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    /// Built-in CDF name (e.g. `"websearch"`) — or give `cdf_file`.
    #[serde(default)]
    pub size_dist: Option<String>,
    /// A CDF file: `size_bytes cumulative_probability` per line.
    #[serde(default)]
    pub cdf_file: Option<PathBuf>,
    /// Offered load as a fraction of each sending host's link rate.
    pub load: f64,
    /// Hosts that send and receive (default: all).
    #[serde(default)]
    pub hosts: Option<Vec<u32>>,
    /// Hosts never chosen as destinations (e.g. incast receivers).
    #[serde(default)]
    pub exclude_dst: Vec<u32>,
    #[serde(default = "zero_duration")]
    pub start: Duration,
    /// End of the arrival window.
    pub stop: Duration,
    #[serde(default = "tag_poisson")]
    pub tag: String,
}

/// Periodic N-to-1 incast.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IncastSpec {
    /// The receiving host.
    pub receiver: u32,
    /// Number of flows per incast round.
    pub fan_in: u32,
    /// Candidate senders (default: every other host). Senders are drawn without
    /// replacement while they last, so fan-in above the candidate count repeats hosts.
    #[serde(default)]
    pub senders: Option<Vec<u32>>,
    /// Flow size range, uniform over [size_min, size_max].
    pub size_min: Bytes,
    pub size_max: Bytes,
    /// Time between rounds — or give `load`.
    #[serde(default)]
    pub period: Option<Duration>,
    /// Average incast load as a fraction of the receiver's link rate.
    #[serde(default)]
    pub load: Option<f64>,
    #[serde(default = "zero_duration")]
    pub start: Duration,
    pub stop: Duration,
    #[serde(default = "tag_incast")]
    pub tag: String,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowFileFormat {
    /// The HPCC simulator's flow file: a count line, then `src dst priority dport size start_seconds`.
    #[default]
    Hpcc,
    /// Comma-separated values with a header naming the columns: `src`, `dst`,
    /// `size_bytes`, `start_ns` (required), `tag`, `priority`, `dport` (optional); other
    /// columns are ignored, so a flows table written by hopsim replays as it is.
    Csv,
}

/// One explicit flow.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowEntry {
    pub src: u32,
    pub dst: u32,
    pub size: Bytes,
    #[serde(default = "zero_duration")]
    pub start: Duration,
    #[serde(default)]
    pub tag: Option<String>,
    /// Class this flow as *congested* (default: the workload's `congested`).
    #[serde(default)]
    pub congested: Option<bool>,
}

fn tag_flows() -> String {
    "flows".into()
}
fn tag_poisson() -> String {
    "poisson".into()
}
fn tag_incast() -> String {
    "incast".into()
}
