//! `[switch]`: the shared-buffer switch, its flow control, admission and ECN.

use super::tagged::kind_tagged;
use super::units::{one_f64, rate_100g, yes, zero_duration, Bytes, Duration, RateSpec};
pub use crate::switch::admission::DeflectionSpec;
pub use crate::switch::flow_control::pfc_spec::{PfcSpec, PfcThreshold};
pub use crate::switch::flow_control::FlowControlSpec;
use serde::{Deserialize, Serialize};

/// The output-queued shared-buffer switch (modelled on the MMU of the HPCC ns-3 simulator).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
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
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StaticPerPortSpec {
    pub bytes: Bytes,
}

/// Dynamic threshold (Choudhury & Hahne, 1998): a queue may grow to
/// `alpha × (free shared buffer)`. Default alpha 1.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
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

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EcnMarkPoint {
    /// Decide when the packet leaves the queue (the HPCC simulator does).
    #[default]
    Dequeue,
    /// Decide when the packet joins the queue (classic RED).
    Enqueue,
}
