//! `[switch]`: the shared-buffer switch, its flow control, admission and ECN.

use super::tagged::{kind_tagged, NoFields};
use super::units::{one_f64, rate_100g, yes, zero_duration, Bytes, Duration, RateSpec};
pub use crate::switch::flow_control::pfc_spec::{PfcSpec, PfcThreshold};
pub use crate::switch::flow_control::FlowControlSpec;
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
