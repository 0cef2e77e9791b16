//! `[switch]`: the shared-buffer switch, its flow control, admission and ECN.

use super::tagged::kind_tagged;
use super::{rate_100g, yes, zero_duration, Bytes, Duration, RateSpec};
use serde::{Deserialize, Serialize};

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
    /// Which egress queue ACKs and NACKs wait in (CNPs and control frames always use the
    /// strict-priority control queue).
    #[serde(default)]
    pub ack_queue: AckQueue,
    /// Per-hop flow control. Default: PFC with `[switch.pfc]`, or none when
    /// `switch.pfc.enabled = false`.
    #[serde(default)]
    pub flow_control: Option<FlowControlSpec>,
    /// What happens to lossy packets that egress admission refuses.
    #[serde(default)]
    pub deflection: DeflectionSpec,
}

/// Where switches queue ACKs and NACKs.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AckQueue {
    /// In the data queue of their priority, behind data: buffer- and PFC-accounted and
    /// pausable. RoCEv2 acknowledgements carry their queue pair's traffic class, and the
    /// HPCC ns-3 simulator queues them so (`SwitchNode::SendToDev`, `AckHighPrio` unset).
    #[default]
    Data,
    /// In the strict-priority control queue, never paused (hopsim 0.1's behaviour).
    Control,
}

kind_tagged!(FlowControlSpec {
    "pfc" => Pfc,
    "per_flow" => PerFlow,
    "bfc" => Bfc,
    "pyrrha" => Pyrrha,
    "none" => None,
});

/// Per-hop flow control (`[switch.flow_control]`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FlowControlSpec {
    /// PFC (IEEE 802.1Qbb), configured by `[switch.pfc]`.
    Pfc(NoFields),
    /// A queue per active flow at every port, paused and resumed per flow by its
    /// downstream queue (the ideal per-flow baseline of Pyrrha and Aquarius).
    PerFlow(PerFlowSpec),
    /// BFC (Goyal et al., NSDI 2022): per-flow backpressure over a fixed number of queues.
    Bfc(BfcSpec),
    /// Pyrrha: congestion-root-based flow control with isolation queues per root.
    Pyrrha(PyrrhaSpec),
    /// No flow control: every packet is lossy (egress admission, deflection).
    None(NoFields),
}

/// BFC parameters (`kind = "bfc"`). Defaults: 32 queues, as BFC's evaluation and Pyrrha's
/// "BFC" (§6.1); the flow table and sticky time of the BFC mode of Pyrrha's authors'
/// simulator (Pyrrha-NS3 `FLOWTB_SIZE 100`, `STICKY_TH 2`), which produced Pyrrha's BFC
/// results.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BfcSpec {
    /// Physical queues per port (BFC-8 in Aquarius, BFC-32 / BFC-128 in Pyrrha). Replaces
    /// `switch.queues` for BFC's ports.
    #[serde(default = "bfc_queues")]
    pub queues: u32,
    /// Flow identifiers per switch = this × queues × ports (5-tuples hashed into them);
    /// 0 gives every flow its own identifier.
    #[serde(default = "bfc_fids_per_queue")]
    pub fids_per_queue: u32,
    /// One-hop RTTs a drained flow keeps its queue.
    #[serde(default = "two_f64")]
    pub sticky: f64,
}

fn bfc_queues() -> u32 {
    32
}
fn bfc_fids_per_queue() -> u32 {
    100
}

/// Pyrrha parameters (`kind = "pyrrha"`). Defaults from Pyrrha §6 "Parameters": K_pause 2,
/// K_resume 1 (one-hop BDPs), at most 100 IQs per port; merging on (§4.1); hierarchical
/// IQs (§4.3).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PyrrhaSpec {
    /// Pause above this many one-hop BDPs (rate × twice the link delay).
    #[serde(default = "two_f64")]
    pub k_pause: f64,
    /// Resume below this many.
    #[serde(default = "one_f64")]
    pub k_resume: f64,
    /// Isolation queues per port at most; beyond, roots share them by hash (§4.5).
    #[serde(default = "pyrrha_iq_limit")]
    pub iq_limit: u32,
    /// False-positive roots merge into the real root downstream (§4.1).
    #[serde(default = "yes")]
    pub merge: bool,
    /// `"hierarchical"` (§4.3) or `"single_tier"` with order marks (Appendix C).
    #[serde(default)]
    pub isolation_queues: IsolationQueues,
}

fn pyrrha_iq_limit() -> u32 {
    100
}

/// How Pyrrha organises isolation queues.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum IsolationQueues {
    /// Levels by distance to the root (§4.3).
    #[default]
    Hierarchical,
    /// One queue per set of roots, order marks keep flows in order (Appendix C).
    SingleTier,
}

/// A policy table with no parameters (only its `kind`).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NoFields {}

/// Per-flow flow control thresholds, in one-hop BDPs of the port (its rate × twice its
/// propagation delay). Defaults: Pyrrha's K_pause 2 and K_resume 1 (Pyrrha §6,
/// "Parameters"), since the papers give no thresholds for the per-flow baseline.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PerFlowSpec {
    /// PAUSE the flow's upstream when its queue reaches this many one-hop BDPs.
    #[serde(default = "two_f64")]
    pub xoff: f64,
    /// RESUME when it falls to this many.
    #[serde(default = "one_f64")]
    pub xon: f64,
}

fn two_f64() -> f64 {
    2.0
}

kind_tagged!(DeflectionSpec {
    "none" => None,
    "dibs" => Dibs,
    "dibs_naive" => DibsNaive,
    "simple" => Simple,
    "preemptive" => Preemptive,
    "vertigo" => Vertigo,
    "aifo" => Aifo,
});

/// Deflection of packets that egress admission refuses (`[switch.deflection]`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeflectionSpec {
    /// Drop-tail.
    None(NoFields),
    /// DIBS (Zarifis et al., EuroSys 2014): to a random non-full switch-facing port.
    Dibs(DibsSpec),
    /// DIBS without the full-port filter (the practical-deflection paper's naive variant).
    DibsNaive(DibsSpec),
    /// Simple Deflection (the deflection paper, §4.1): the first uncongested
    /// switch-facing port after a random one, by a periodically refreshed bitmap.
    Simple(SimpleSpec),
    /// Preemptive Deflection (the deflection paper, §3).
    Preemptive(PreemptiveSpec),
    /// Vertigo (Abdous et al., CoNEXT 2021): SRPT queues and Selective Deflection.
    Vertigo(DibsSpec),
    /// AIFO (Yu et al., SIGCOMM 2021): rank-quantile admission, no deflection.
    Aifo(AifoSpec),
}

/// Simple Deflection parameters.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SimpleSpec {
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u32,
    /// How often the ingress pipeline's congested-port bitmap is refreshed. Default
    /// 1.7 µs: the recirculation gap the deflection paper measured on Tofino (§6,
    /// Appendix D); `"0us"` reads the queues live, as the paper's simulations do.
    #[serde(default = "default_update_interval")]
    pub update_interval: Duration,
}

/// How Preemptive Deflection estimates relative priority (`priority`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PriorityEstimate {
    /// Quantile among a window of sampled ranks (Quantile-PD, §3.1).
    #[default]
    Quantile,
    /// `1 − e^(−x/M)`, M the mean rank queued (Distribution-PD, §3.1, Appendix B).
    Distribution,
}

/// Preemptive Deflection's decision rule (`algorithm`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PdAlgorithm {
    /// Deflect above `τ = Q·(1 − α·R)` (§3.2, Eq. 1).
    #[default]
    Deterministic,
    /// RED-like: above `min_th`, deflect with probability `R·(q − min_th)/(Q − min_th)` (§6).
    Probabilistic,
}

/// Preemptive Deflection parameters; defaults from the deflection paper §5.2 (α 0.1,
/// window 20, one sample per 20 packets) and its artifact (`min_th` 75 KB).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PreemptiveSpec {
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u32,
    #[serde(default)]
    pub priority: PriorityEstimate,
    #[serde(default = "default_pd_alpha")]
    pub alpha: f64,
    #[serde(default = "default_window")]
    pub window: u32,
    #[serde(default = "default_window")]
    pub sample_every: u32,
    /// Queue-occupancy refresh at the ingress pipeline. Default 0 (live, as §5's runs).
    #[serde(default = "zero_duration")]
    pub update_interval: Duration,
    #[serde(default)]
    pub algorithm: PdAlgorithm,
    /// The probabilistic algorithm's lower threshold. Default 75 KB.
    #[serde(default = "default_min_th")]
    pub min_th: Bytes,
}

/// AIFO parameters; defaults as the deflection paper's artifact runs AIFO (k 0.1, window
/// 20, one sample per 15 packets).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AifoSpec {
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u32,
    #[serde(default = "default_aifo_k")]
    pub k: f64,
    #[serde(default = "default_window")]
    pub window: u32,
    #[serde(default = "default_aifo_sample")]
    pub sample_every: u32,
}

fn default_update_interval() -> Duration {
    Duration(crate::time::Delta::from_ns(1700))
}
fn default_pd_alpha() -> f64 {
    0.1
}
fn default_window() -> u32 {
    20
}
fn default_min_th() -> Bytes {
    Bytes(75_000)
}
fn default_aifo_k() -> f64 {
    0.1
}
fn default_aifo_sample() -> u32 {
    15
}

impl Default for DeflectionSpec {
    fn default() -> Self {
        DeflectionSpec::None(NoFields {})
    }
}

/// DIBS parameters.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DibsSpec {
    /// Hop limit (IP TTL) packets leave their hosts with; every switch decrements it and
    /// drops the packet at 0. Default 250, as the practical-deflection paper's DIBS runs.
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u32,
}

fn default_hop_limit() -> u32 {
    250
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
            ack_queue: AckQueue::default(),
            flow_control: None,
            deflection: DeflectionSpec::default(),
        }
    }
}

fn default_buffer() -> Bytes {
    Bytes(32_000_000)
}
fn default_queues() -> u32 {
    8
}

kind_tagged!(AdmissionSpec { "dynamic_threshold" => DynamicThreshold, "static_per_port" => StaticPerPort });

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
    /// PFC on (default) or off, when `[switch.flow_control]` is not given; that table,
    /// when given, decides (and `enabled = false` with its kind `"pfc"` is an error).
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
    /// Random numbers of marking decisions: each switch its own stream (default), or one
    /// stream shared by every switch, which reproduces runs of hopsim 0.1.
    #[serde(default)]
    pub random_stream: RandomStream,
}

/// Whether switches draw from their own random streams.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RandomStream {
    /// `switch/<node>/ecn`: a draw at one switch never shifts another's.
    #[default]
    PerSwitch,
    /// `switch/ecn`, shared by all switches (hopsim 0.1).
    Shared,
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
            random_stream: RandomStream::PerSwitch,
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
