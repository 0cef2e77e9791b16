//! The scenario: a serde description of one simulation run, and its validation.
//!
//! A scenario is read from TOML (or JSON, which the Python front end sends after applying
//! `--set` overrides). Unknown fields are rejected, and every error names the dotted path
//! of the offending field. Every field but `topology` and `workload` has a default, each
//! documented with its source in `docs/model.md`.

pub(crate) mod tagged;
mod units;

use tagged::kind_tagged;

pub use units::{Bytes, Duration, RateSpec};

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// An error in a scenario, naming the field (dotted path) or file line at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    /// A field has the wrong type or value.
    #[error("{path}: {message}")]
    Field { path: String, message: String },
    /// A line of an input file (topology, flow list, CDF) is malformed.
    #[error("{file}:{line}: {message}")]
    FileLine { file: String, line: usize, message: String },
    /// An input file cannot be read.
    #[error("{file}: {message}")]
    File { file: String, message: String },
    /// The scenario text is not valid TOML / JSON.
    #[error("{0}")]
    Syntax(String),
}

impl ScenarioError {
    pub fn field(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError::Field { path: path.into(), message: message.into() }
    }

    /// A maker of `file:line` errors for the input file `file` (used by its parsers).
    pub fn in_file(file: &str) -> impl Fn(usize, String) -> ScenarioError + '_ {
        move |line, message| ScenarioError::FileLine { file: file.to_string(), line, message }
    }
}

/// One simulation run.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label copied into the outputs.
    #[serde(default)]
    pub name: Option<String>,
    /// Seed of every random stream (workload generation, ECN marking, ECMP hash seeds).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time limit. Default: run until no event remains (all flows finished
    /// and the network drained, or a deadlock left nothing to do).
    #[serde(default)]
    pub duration: Option<Duration>,
    pub topology: TopologySpec,
    #[serde(default)]
    pub routing: RoutingSpec,
    #[serde(default)]
    pub switch: SwitchSpec,
    #[serde(default)]
    pub transport: TransportSpec,
    pub workload: OneOrMany<WorkloadSpec>,
    #[serde(default)]
    pub output: OutputSpec,
}

fn default_seed() -> u64 {
    1
}

/// A single table or an array of tables (`[workload]` or `[[workload]]`).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t),
            OneOrMany::Many(v) => v,
        }
    }
}

// ---------------------------------------------------------------- topology

/// The network graph.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TopologySpec {
    /// Two-tier leaf-spine (2-tier Clos): every leaf connects to every spine.
    LeafSpine(LeafSpineSpec),
    /// Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods, k³/4 hosts.
    FatTree(FatTreeSpec),
    /// Two switches joined by one bottleneck link, hosts on either side.
    Dumbbell(DumbbellSpec),
    /// A topology file, e.g. the HPCC ns-3 simulator's `fat.txt`.
    File(TopologyFileSpec),
}

kind_tagged!(TopologySpec { "leaf_spine" => LeafSpine, "fat_tree" => FatTree, "dumbbell" => Dumbbell, "file" => File });
kind_tagged!(AdmissionSpec { "dynamic_threshold" => DynamicThreshold, "static_per_port" => StaticPerPort });
kind_tagged!(WorkloadSpec {
    "flows" => Flows,
    "poisson" => Poisson,
    "incast" => Incast,
    "query" => Query,
    "permutation" => Permutation,
    "moe" => Moe,
});

/// Two-tier leaf-spine (2-tier Clos): every leaf connects to every spine.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineSpec {
    pub spines: u32,
    pub leaves: u32,
    pub hosts_per_leaf: u32,
    #[serde(default = "rate_100g")]
    pub host_rate: RateSpec,
    #[serde(default = "rate_100g")]
    pub fabric_rate: RateSpec,
    #[serde(default = "delay_1us")]
    pub host_delay: Duration,
    #[serde(default = "delay_1us")]
    pub fabric_delay: Duration,
    /// Parallel links between each leaf and each spine.
    #[serde(default = "one")]
    pub links_per_spine: u32,
}

/// Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods, k³/4 hosts.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    pub k: u32,
    #[serde(default = "rate_100g")]
    pub host_rate: RateSpec,
    #[serde(default = "rate_100g")]
    pub fabric_rate: RateSpec,
    #[serde(default = "delay_1us")]
    pub delay: Duration,
}

/// Two switches joined by one bottleneck link, hosts on either side.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub left_hosts: u32,
    pub right_hosts: u32,
    #[serde(default = "rate_100g")]
    pub host_rate: RateSpec,
    #[serde(default = "rate_100g")]
    pub bottleneck_rate: RateSpec,
    #[serde(default = "delay_1us")]
    pub delay: Duration,
}

/// A topology file, e.g. the HPCC ns-3 simulator's `fat.txt`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TopologyFileSpec {
    pub file: PathBuf,
    #[serde(default)]
    pub format: TopologyFormat,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TopologyFormat {
    /// `nodes switches links` / switch ids / `a b RATE DELAY error_rate` per link.
    #[default]
    Hpcc,
    /// Comma-separated values with a header naming the columns: `src`, `dst`,
    /// `size_bytes`, `start_ns` (required), `tag`, `priority`, `dport` (optional); other
    /// columns are ignored, so a flows table written by hopsim replays as it is.
    Csv,
}

fn rate_100g() -> RateSpec {
    RateSpec::gbps(100)
}
fn delay_1us() -> Duration {
    Duration::us(1)
}
fn one() -> u32 {
    1
}

// ---------------------------------------------------------------- routing

/// Routing and load balancing.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// Load balancer among equal-cost next hops.
    #[serde(default)]
    pub load_balancer: LoadBalancerKind,
    /// Hash function of ECMP over the 5-tuple, with a per-switch seed.
    #[serde(default)]
    pub hash: EcmpHash,
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec { load_balancer: LoadBalancerKind::Ecmp, hash: EcmpHash::Mix }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadBalancerKind {
    /// Per-flow hashing over the shortest-path next hops.
    #[default]
    Ecmp,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcmpHash {
    /// A 64-bit avalanche mix (SplitMix64 finaliser) of the 5-tuple and the switch seed.
    #[default]
    Mix,
    /// CRC-32 (IEEE) of the 5-tuple bytes and the switch seed, output bits rotated per
    /// switch (without that, CRC's linearity polarizes ECMP across tiers).
    Crc32,
}

// ---------------------------------------------------------------- switch

/// The output-queued shared-buffer switch (modelled on the MMU of the HPCC ns-3 simulator).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// Shared packet buffer per switch. Default 32 MB: the buffer of the HPCC simulator
    /// runs in `../shared/anchors/ns3-fattree320` (BUFFER_SIZE 32).
    #[serde(default = "default_buffer")]
    pub buffer_bytes: Bytes,
    /// Data queues per egress port (priorities / isolation queues). Default 8 (802.1Q classes).
    #[serde(default = "default_queues")]
    pub queues: u32,
    /// Switching (pipeline) latency added between arrival and enqueue. Default 0.
    #[serde(default = "zero_duration")]
    pub latency: Duration,
    /// Egress admission for lossy (non-PFC) traffic.
    #[serde(default)]
    pub admission: AdmissionSpec,
    #[serde(default)]
    pub pfc: PfcSpec,
    #[serde(default)]
    pub ecn: EcnSpec,
    /// Append in-band network telemetry (per-hop queue length, tx bytes, time, rate) to
    /// data packets, for HPCC.
    #[serde(default)]
    pub int: bool,
}

impl Default for SwitchSpec {
    fn default() -> Self {
        SwitchSpec {
            buffer_bytes: default_buffer(),
            queues: default_queues(),
            latency: zero_duration(),
            admission: AdmissionSpec::default(),
            pfc: PfcSpec::default(),
            ecn: EcnSpec::default(),
            int: false,
        }
    }
}

fn default_buffer() -> Bytes {
    Bytes(32_000_000)
}
fn default_queues() -> u32 {
    8
}
fn zero_duration() -> Duration {
    Duration(crate::time::Delta::ZERO)
}

/// Egress admission of lossy traffic.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AdmissionSpec {
    /// Dynamic threshold (Choudhury & Hahne, 1998): a queue may grow to
    /// `alpha × (free shared buffer)`. Default alpha 1.
    DynamicThreshold(DynamicThresholdSpec),
    /// A fixed byte limit per egress port (all its queues together), e.g. 300 KB per port
    /// in the deflection experiments.
    StaticPerPort(StaticPerPortSpec),
}

/// A fixed byte limit per egress port (all its queues together).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StaticPerPortSpec {
    pub bytes: Bytes,
}

/// Dynamic threshold (Choudhury & Hahne, 1998): a queue may grow to
/// `alpha × (free shared buffer)`. Default alpha 1.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicThresholdSpec {
    #[serde(default = "one_f64")]
    pub alpha: f64,
}

impl Default for AdmissionSpec {
    fn default() -> Self {
        AdmissionSpec::DynamicThreshold(DynamicThresholdSpec { alpha: 1.0 })
    }
}

fn one_f64() -> f64 {
    1.0
}

/// Priority flow control (IEEE 802.1Qbb).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PfcSpec {
    #[serde(default = "yes")]
    pub enabled: bool,
    /// How the XOFF threshold is set.
    #[serde(default)]
    pub threshold: PfcThreshold,
    /// Dynamic mode: XOFF when an ingress (port, priority) uses more shared buffer than
    /// `alpha × (free shared buffer)`. Default 1/8: the HPCC simulator's `pfc_a_shift` 3.
    #[serde(default = "default_pfc_alpha")]
    pub alpha: f64,
    /// Static mode: XOFF when the ingress (port, priority) holds this many bytes.
    #[serde(default)]
    pub xoff_bytes: Option<Bytes>,
    /// Static mode: XON when it falls to this many bytes.
    #[serde(default)]
    pub xon_bytes: Option<Bytes>,
    /// Headroom per (ingress port, priority) absorbing what arrives after XOFF. Default:
    /// computed per port from its rate and delay (see `docs/model.md`).
    #[serde(default)]
    pub headroom_bytes: Option<Bytes>,
    /// Bytes per (ingress port, priority) reserved before the shared pool is used.
    /// Default 4 KB, as in the HPCC simulator's MMU.
    #[serde(default = "default_reserve")]
    pub reserve_bytes: Bytes,
    /// XON hysteresis in dynamic mode: resume when usage + offset ≤ threshold.
    /// Default 3 KB, as in the HPCC simulator's MMU.
    #[serde(default = "default_resume_offset")]
    pub resume_offset_bytes: Bytes,
}

impl Default for PfcSpec {
    fn default() -> Self {
        PfcSpec {
            enabled: true,
            threshold: PfcThreshold::Dynamic,
            alpha: default_pfc_alpha(),
            xoff_bytes: None,
            xon_bytes: None,
            headroom_bytes: None,
            reserve_bytes: default_reserve(),
            resume_offset_bytes: default_resume_offset(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PfcThreshold {
    #[default]
    Dynamic,
    Static,
}

fn yes() -> bool {
    true
}
fn default_pfc_alpha() -> f64 {
    0.125
}
fn default_reserve() -> Bytes {
    Bytes(4_000)
}
fn default_resume_offset() -> Bytes {
    Bytes(3_000)
}

/// ECN marking with a RED profile on the egress queue length.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EcnSpec {
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Below `kmin` bytes nothing is marked. Default 400 KB at 100 Gb/s (HPCC simulator
    /// KMIN_MAP, as listed in `../shared/anchors/ns3-fattree320`).
    #[serde(default = "default_kmin")]
    pub kmin: Bytes,
    /// Above `kmax` bytes everything is marked. Default 1600 KB at 100 Gb/s.
    #[serde(default = "default_kmax")]
    pub kmax: Bytes,
    /// Marking probability at `kmax`. Default 0.2.
    #[serde(default = "default_pmax")]
    pub pmax: f64,
    /// The rate `kmin`/`kmax` are given for; other ports scale them by rate / this.
    #[serde(default = "rate_100g")]
    pub reference_rate: RateSpec,
    /// Scale thresholds linearly with port rate (the HPCC simulator's maps do: ×4 at 400G).
    #[serde(default = "yes")]
    pub scale_with_rate: bool,
    /// Where the mark is decided.
    #[serde(default)]
    pub mark_at: EcnMarkPoint,
}

impl Default for EcnSpec {
    fn default() -> Self {
        EcnSpec {
            enabled: true,
            kmin: default_kmin(),
            kmax: default_kmax(),
            pmax: default_pmax(),
            reference_rate: rate_100g(),
            scale_with_rate: true,
            mark_at: EcnMarkPoint::Dequeue,
        }
    }
}

fn default_kmin() -> Bytes {
    Bytes(400_000)
}
fn default_kmax() -> Bytes {
    Bytes(1_600_000)
}
fn default_pmax() -> f64 {
    0.2
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcnMarkPoint {
    /// Decide when the packet leaves the queue (the HPCC simulator does).
    #[default]
    Dequeue,
    /// Decide when the packet joins the queue (classic RED).
    Enqueue,
}

// ---------------------------------------------------------------- transport

/// The RoCEv2-like reliable transport of the hosts and its congestion control.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TransportSpec {
    /// Payload bytes per data packet. Default 1000, as the HPCC simulator runs.
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// Header bytes added to each data packet on the wire.
    #[serde(default = "default_header")]
    pub header_bytes: u32,
    /// Wire size of ACK / NACK / CNP packets.
    #[serde(default = "default_ack_bytes")]
    pub ack_bytes: u32,
    /// Receiver sends one ACK per this many in-order data packets (and always for the last).
    #[serde(default = "one")]
    pub ack_every: u32,
    /// Data priority (traffic class) of flows, `0 .. switch.queues`.
    #[serde(default = "default_priority")]
    pub priority: u8,
    #[serde(default)]
    pub loss_recovery: LossRecovery,
    /// Retransmission timeout: go back to the first unacknowledged byte when no ACK
    /// advanced for this long.
    #[serde(default = "default_rto")]
    pub rto: Duration,
    /// Minimum gap between two NACKs of one flow for the same missing byte.
    #[serde(default = "default_nack_interval")]
    pub nack_interval: Duration,
    /// Cap on in-flight bytes per flow: `"none"`, `"bdp"` (base RTT × bottleneck rate of
    /// the flow's path) or a size.
    #[serde(default)]
    pub window: WindowSpec,
    #[serde(default)]
    pub cc: CcKind,
    #[serde(default)]
    pub dcqcn: DcqcnSpec,
    #[serde(default)]
    pub hpcc: HpccSpec,
    #[serde(default)]
    pub dctcp: DctcpSpec,
    #[serde(default)]
    pub timely: TimelySpec,
    #[serde(default)]
    pub irn: IrnSpec,
    /// Congestion control per group of sending hosts (`[[transport.groups]]`), overriding
    /// `cc` for flows whose source is in the group: mixed deployments in one run.
    #[serde(default)]
    pub groups: Vec<CcGroup>,
}

/// Hosts whose flows use a given congestion control.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CcGroup {
    pub hosts: Vec<u32>,
    pub cc: CcKind,
}

/// TIMELY parameters. Defaults are those of the TIMELY authors' published code snippet
/// (as used by eRPC): EWMA α 0.02, β 0.8, T_low 50 µs, T_high 1 ms, δ 40 Mb/s (5 MB/s),
/// hyperactive increase after 5 non-positive gradients; 16 KB segments (the paper's
/// smallest completion unit, §4).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TimelySpec {
    #[serde(default = "default_timely_alpha")]
    pub alpha: f64,
    #[serde(default = "default_timely_beta")]
    pub beta: f64,
    #[serde(default = "default_t_low")]
    pub t_low: Duration,
    #[serde(default = "default_t_high")]
    pub t_high: Duration,
    #[serde(default = "default_timely_delta")]
    pub delta: RateSpec,
    #[serde(default = "default_hai_threshold")]
    pub hai_threshold: u32,
    #[serde(default = "default_segment")]
    pub segment: Bytes,
    #[serde(default = "default_hpcc_min_rate")]
    pub min_rate: RateSpec,
}

impl Default for TimelySpec {
    fn default() -> Self {
        TimelySpec {
            alpha: default_timely_alpha(),
            beta: default_timely_beta(),
            t_low: default_t_low(),
            t_high: default_t_high(),
            delta: default_timely_delta(),
            hai_threshold: default_hai_threshold(),
            segment: default_segment(),
            min_rate: default_hpcc_min_rate(),
        }
    }
}

fn default_timely_alpha() -> f64 {
    0.02
}
fn default_timely_beta() -> f64 {
    0.8
}
fn default_t_low() -> Duration {
    Duration::us(50)
}
fn default_t_high() -> Duration {
    Duration::us(1000)
}
fn default_timely_delta() -> RateSpec {
    RateSpec::mbps(40)
}
fn default_hai_threshold() -> u32 {
    5
}
fn default_segment() -> Bytes {
    Bytes(16_000)
}

/// DCTCP parameters. Use it with step marking (`switch.ecn.kmin = kmax`, `pmax = 1`), as
/// DCTCP specifies (§3.1: mark when the instantaneous queue exceeds K).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DctcpSpec {
    /// EWMA gain g. Default 1/16 (DCTCP paper §3.1).
    #[serde(default = "default_dctcp_g")]
    pub g: f64,
    /// Additive increase per window of data. Default 1 Gb/s: TCP's one segment per RTT at
    /// 1000 B per ~8 µs round trip.
    #[serde(default = "default_dctcp_ai")]
    pub rate_ai: RateSpec,
    /// Lowest rate. Default 100 Mb/s.
    #[serde(default = "default_hpcc_min_rate")]
    pub min_rate: RateSpec,
}

impl Default for DctcpSpec {
    fn default() -> Self {
        DctcpSpec { g: default_dctcp_g(), rate_ai: default_dctcp_ai(), min_rate: default_hpcc_min_rate() }
    }
}

fn default_dctcp_g() -> f64 {
    1.0 / 16.0
}
fn default_dctcp_ai() -> RateSpec {
    RateSpec::mbps(1000)
}

/// HPCC parameters: η and maxStage from the HPCC paper (§3.3, §5.1), the additive step
/// from the HPCC simulator's runs listed in `../shared/anchors/ns3-fattree320/README.md`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HpccSpec {
    /// Target utilisation η. Default 0.95.
    #[serde(default = "default_eta")]
    pub eta: f64,
    /// Additive stages before a multiplicative step. Default 5.
    #[serde(default = "default_max_stage")]
    pub max_stage: u32,
    /// Additive increase per update. Default 50 Mb/s.
    #[serde(default = "default_hpcc_ai")]
    pub rate_ai: RateSpec,
    /// Lowest rate. Default 100 Mb/s (the HPCC simulator's `MinRate`).
    #[serde(default = "default_hpcc_min_rate")]
    pub min_rate: RateSpec,
}

impl Default for HpccSpec {
    fn default() -> Self {
        HpccSpec {
            eta: default_eta(),
            max_stage: default_max_stage(),
            rate_ai: default_hpcc_ai(),
            min_rate: default_hpcc_min_rate(),
        }
    }
}

fn default_eta() -> f64 {
    0.95
}
fn default_max_stage() -> u32 {
    5
}
fn default_hpcc_ai() -> RateSpec {
    RateSpec::mbps(50)
}
fn default_hpcc_min_rate() -> RateSpec {
    RateSpec::mbps(100)
}

impl Default for TransportSpec {
    fn default() -> Self {
        TransportSpec {
            mtu: default_mtu(),
            header_bytes: default_header(),
            ack_bytes: default_ack_bytes(),
            ack_every: 1,
            priority: default_priority(),
            loss_recovery: LossRecovery::GoBackN,
            rto: default_rto(),
            nack_interval: default_nack_interval(),
            window: WindowSpec::None,
            cc: CcKind::Dcqcn,
            dcqcn: DcqcnSpec::default(),
            hpcc: HpccSpec::default(),
            dctcp: DctcpSpec::default(),
            timely: TimelySpec::default(),
            irn: IrnSpec::default(),
            groups: Vec::new(),
        }
    }
}

fn default_mtu() -> u32 {
    1000
}
fn default_header() -> u32 {
    48
}
fn default_ack_bytes() -> u32 {
    60
}
fn default_priority() -> u8 {
    3
}
/// 4 ms: a RoCE NIC's local ACK timeout of 4.096 µs × 2^10. The HPCC simulator has no
/// timeout at all; a timeout near the RTT fires spuriously behind deep PFC queues.
fn default_rto() -> Duration {
    Duration::us(4096)
}
/// 500 µs: the HPCC simulator's NACK generation interval (`rdma-hw.cc`).
fn default_nack_interval() -> Duration {
    Duration::us(500)
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossRecovery {
    /// RoCEv2: a NACK or timeout rewinds the sender to the first missing byte.
    #[default]
    GoBackN,
    /// IRN (Mittal et al., SIGCOMM 2018): the receiver keeps out-of-order packets and
    /// NACKs with a selective acknowledgement; the sender retransmits only the holes.
    Irn,
}

/// IRN timeouts (IRN paper §3.1: RTO_low 100 µs while at most N = 3 packets are in flight,
/// RTO_high 320 µs otherwise).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IrnSpec {
    #[serde(default = "default_rto_low")]
    pub rto_low: Duration,
    #[serde(default = "default_rto_high")]
    pub rto_high: Duration,
    #[serde(default = "default_rto_low_packets")]
    pub rto_low_packets: u32,
}

impl Default for IrnSpec {
    fn default() -> Self {
        IrnSpec {
            rto_low: default_rto_low(),
            rto_high: default_rto_high(),
            rto_low_packets: default_rto_low_packets(),
        }
    }
}

fn default_rto_low() -> Duration {
    Duration::us(100)
}
fn default_rto_high() -> Duration {
    Duration::us(320)
}
fn default_rto_low_packets() -> u32 {
    3
}

/// Per-flow in-flight cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum WindowSpec {
    #[default]
    None,
    Bdp,
    Bytes(u64),
}

impl<'de> Deserialize<'de> for WindowSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Str(String),
        }
        let expected = "\"none\", \"bdp\", or a size such as \"64KB\"";
        match Raw::deserialize(d).map_err(|_| serde::de::Error::custom(format!("expected {expected}")))? {
            Raw::Int(b) => Ok(WindowSpec::Bytes(b)),
            Raw::Str(s) if s == "none" => Ok(WindowSpec::None),
            Raw::Str(s) if s == "bdp" => Ok(WindowSpec::Bdp),
            Raw::Str(s) => crate::time::parse_bytes(&s)
                .map(WindowSpec::Bytes)
                .map_err(|_| serde::de::Error::custom(format!("expected {expected}, got \"{s}\""))),
        }
    }
}

/// Host congestion control.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// Send at line rate (window permitting).
    None,
    /// DCQCN (Zhu et al., SIGCOMM 2015).
    #[default]
    Dcqcn,
    /// HPCC (Li et al., SIGCOMM 2019); turns on INT in the switches.
    Hpcc,
    /// DCTCP's control law on a sending rate (the HPCC simulator's DCTCP mode).
    Dctcp,
    /// TIMELY (Mittal et al., SIGCOMM 2015).
    Timely,
}

/// DCQCN parameters. Defaults follow the HPCC simulator's DCQCN runs (`CC_MODE 1`) as
/// listed in `../shared/anchors/ns3-fattree320/README.md`; the CNP interval follows the
/// DCQCN paper §3 (the notification point sends at most one CNP per 50 µs per flow).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnSpec {
    /// Gain of the alpha EWMA (g). Default 1/256.
    #[serde(default = "default_g")]
    pub g: f64,
    /// Period of the alpha update. Default 1 µs.
    #[serde(default = "default_alpha_interval")]
    pub alpha_interval: Duration,
    /// Minimum gap between two rate decreases. Default 4 µs.
    #[serde(default = "default_decrease_interval")]
    pub decrease_interval: Duration,
    /// Rate-increase timer period. Default 300 µs.
    #[serde(default = "default_increase_timer")]
    pub increase_timer: Duration,
    /// Rate-increase byte counter; `0` disables it (the HPCC simulator's default).
    #[serde(default)]
    pub byte_counter: Bytes,
    /// Number of fast-recovery steps (F) before additive increase. Default 1.
    #[serde(default = "one")]
    pub fast_recovery_steps: u32,
    /// Additive-increase step. Default 20 Mb/s.
    #[serde(default = "default_rate_ai")]
    pub rate_ai: RateSpec,
    /// Hyper-increase step. Default 200 Mb/s.
    #[serde(default = "default_rate_hai")]
    pub rate_hai: RateSpec,
    /// Lowest sending rate. Default 1000 Mb/s.
    #[serde(default = "default_min_rate")]
    pub min_rate: RateSpec,
    /// Notification point: at most one CNP per flow per this interval. Default 50 µs.
    #[serde(default = "default_cnp_interval")]
    pub cnp_interval: Duration,
    /// Set the target rate to the current rate on every decrease, not only once the
    /// increase timer has run since the last one. Default false (`CLAMP_TARGET_RATE 0`).
    #[serde(default)]
    pub clamp_target_rate: bool,
}

impl Default for DcqcnSpec {
    fn default() -> Self {
        DcqcnSpec {
            g: default_g(),
            alpha_interval: default_alpha_interval(),
            decrease_interval: default_decrease_interval(),
            increase_timer: default_increase_timer(),
            byte_counter: Bytes(0),
            fast_recovery_steps: 1,
            rate_ai: default_rate_ai(),
            rate_hai: default_rate_hai(),
            min_rate: default_min_rate(),
            cnp_interval: default_cnp_interval(),
            clamp_target_rate: false,
        }
    }
}

fn default_g() -> f64 {
    1.0 / 256.0
}
fn default_alpha_interval() -> Duration {
    Duration::us(1)
}
fn default_decrease_interval() -> Duration {
    Duration::us(4)
}
fn default_increase_timer() -> Duration {
    Duration::us(300)
}
fn default_rate_ai() -> RateSpec {
    RateSpec::mbps(20)
}
fn default_rate_hai() -> RateSpec {
    RateSpec::mbps(200)
}
fn default_min_rate() -> RateSpec {
    RateSpec::mbps(1000)
}
fn default_cnp_interval() -> Duration {
    Duration::us(50)
}

// ---------------------------------------------------------------- workload

/// One traffic source. A scenario may list several (`[[workload]]`).
#[derive(Clone, Debug, Serialize)]
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
}

/// Mixture-of-Experts all-to-all (Pyrrha §2.2 and Appendix B, after FasterMoE): every
/// `period`, all workers start an all-to-all at once (the synchronous "on" phase, then
/// compute until the next period); a `hot_share` of each worker's bytes goes to a few
/// `hot_experts`. Two groups with equal `start` collide; offset by half a period they
/// interleave.
#[derive(Clone, Debug, Deserialize, Serialize)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
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
}

/// Poisson arrivals with sizes from a flow-size CDF, at a target load of the host links.
#[derive(Clone, Debug, Deserialize, Serialize)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
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

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowEntry {
    pub src: u32,
    pub dst: u32,
    pub size: Bytes,
    #[serde(default = "zero_duration")]
    pub start: Duration,
    #[serde(default)]
    pub tag: Option<String>,
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

// ---------------------------------------------------------------- output

/// What the run records besides the flow table and the summary.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Record every PFC PAUSE / RESUME frame (time, node, port, priority) in `pfc_events`.
    #[serde(default)]
    pub pfc_events: bool,
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
}

/// `[output.queues]`: egress queue and shared-buffer occupancy of every switch.
#[derive(Clone, Debug, Deserialize, Serialize)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ThroughputSpec {
    /// Bin width. Default 100 µs.
    #[serde(default = "default_throughput_interval")]
    pub interval: Duration,
}

/// `[output.packet_trace]`: a per-packet log for debugging small runs.
#[derive(Clone, Debug, Deserialize, Serialize)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
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

// ---------------------------------------------------------------- parsing

/// Turn a deserialization error at `path` into a `ScenarioError`, joining any inner path
/// carried by the message (see `tagged`). A root-level error without a path is a syntax
/// error, described by `syntax`.
fn field_error(path: &str, message: &str, syntax: impl FnOnce() -> String) -> ScenarioError {
    match tagged::split_nested(message) {
        Some((inner, m)) => {
            ScenarioError::Field { path: tagged::join_path(path, inner), message: m.to_string() }
        }
        None if path == "." || path.is_empty() => ScenarioError::Syntax(syntax()),
        None => ScenarioError::Field { path: path.to_string(), message: message.to_string() },
    }
}

impl Scenario {
    /// Parse TOML text. Errors name the field path (and line for syntax errors).
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        let de = toml::Deserializer::new(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            field_error(&path, inner.message(), || inner.to_string().trim().replace('\n', " "))
        })
    }

    /// Read and parse a scenario file; its relative input paths are resolved against the
    /// file's folder.
    pub fn from_toml_file(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScenarioError::File { file: path.display().to_string(), message: e.to_string() })?;
        let mut scenario = Scenario::from_toml_str(&text)?;
        scenario.resolve_paths(path.parent().unwrap_or(Path::new(".")));
        Ok(scenario)
    }

    /// Parse JSON text (as sent by the Python front end).
    pub fn from_json_str(text: &str) -> Result<Scenario, ScenarioError> {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let message = e.into_inner().to_string();
            let message = match message.find(" at line ") {
                Some(i) => message[..i].to_string(),
                None => message,
            };
            field_error(&path, &message, || message.clone())
        })
    }

    /// Make relative input paths absolute against `base` (the scenario file's folder).
    pub fn resolve_paths(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        if let TopologySpec::File(TopologyFileSpec { file, .. }) = &mut self.topology {
            fix(file);
        }
        let workloads = match &mut self.workload {
            OneOrMany::One(w) => std::slice::from_mut(w),
            OneOrMany::Many(v) => v.as_mut_slice(),
        };
        for w in workloads {
            match w {
                WorkloadSpec::Flows(FlowsSpec { file: Some(f), .. }) => fix(f),
                WorkloadSpec::Poisson(PoissonSpec { cdf_file: Some(f), .. }) => fix(f),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_file_resolves_its_inputs_beside_it_and_a_missing_one_is_named() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let s = Scenario::from_toml_file(&data.join("star.toml")).expect("valid");
        let TopologySpec::File(TopologyFileSpec { file, .. }) = &s.topology else {
            panic!("star.toml reads its topology from a file")
        };
        assert_eq!(file, &data.join("star_topology.txt"));
        let missing = data.join("no_such.toml");
        let err = Scenario::from_toml_file(&missing).expect_err("missing file").to_string();
        assert!(err.starts_with(&missing.display().to_string()), "{err}");
    }

    const MINIMAL: &str = r#"
        [topology]
        kind = "dumbbell"
        left_hosts = 2
        right_hosts = 1
        [workload]
        kind = "flows"
        flows = [{ src = 0, dst = 2, size = "10KB" }]
    "#;

    #[test]
    fn minimal_scenario_gets_defaults() {
        let s = Scenario::from_toml_str(MINIMAL).unwrap();
        assert_eq!(s.seed, 1);
        assert!(s.switch.pfc.enabled);
        assert_eq!(s.transport.mtu, 1000);
        assert_eq!(s.workload.as_slice().len(), 1);
    }

    #[test]
    fn unknown_and_mistyped_fields_are_named() {
        let bad = MINIMAL.replace("left_hosts = 2", "left_hosts = 2\nleft_hostz = 3");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.contains("left_hostz"), "{e}");

        let bad = format!("{MINIMAL}\n[switch.pfc]\nenabled = \"yes\"\n");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("switch.pfc.enabled"), "{e}");

        let bad = format!("{MINIMAL}\n[switch.ecn]\nkmin = \"12 parsecs\"\n");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("switch.ecn.kmin"), "{e}");

        let bad = MINIMAL.replace("kind = \"dumbbell\"", "kind = \"torus\"");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.contains("topology") && e.contains("torus"), "{e}");
    }

    #[test]
    fn errors_inside_tagged_tables_keep_their_path() {
        let bad = MINIMAL.replace("left_hosts = 2", "left_hosts = \"two\"");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("topology.left_hosts: invalid type"), "{e}");
        let bad = MINIMAL.replace("kind = \"flows\"", "kind = \"flows\"\nflowz = 3");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("workload.flowz: unknown field `flowz`"), "{e}");
        let bad = MINIMAL.replace("size = \"10KB\"", "size = \"10 parsecs\"");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("workload.flows[0].size:"), "{e}");
        let many =
            MINIMAL.replace("[workload]", "[[workload]]") + "[[workload]]\nkind = \"poisson\"\nlod = 1\n";
        let e = Scenario::from_toml_str(&many).unwrap_err().to_string();
        assert!(e.starts_with("workload[1].lod: unknown field `lod`"), "{e}");
    }

    #[test]
    fn durations_need_units() {
        let bad = format!("duration = 5\n{MINIMAL}");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("duration") && e.contains("unit"), "{e}");
    }
}
