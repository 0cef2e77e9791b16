//! `[transport]`: the hosts' reliable transport and congestion control.

use super::{one, Bytes, Duration, RateSpec};
use serde::{Deserialize, Serialize};

pub use crate::host::cc::CcKind;

/// The RoCEv2-like reliable transport of the hosts and its congestion control.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransportSpec {
    /// `"roce"` (default), `"tcp"` or `"mp_rdma"`.
    #[serde(default)]
    pub kind: super::tagged::Written<super::TransportKind>,
    /// The rank data packets carry for rank-aware switches: `"none"`, `"srpt"` (remaining
    /// bytes) or `"las"` (bytes sent). Default: `"srpt"` when a switch policy reads ranks
    /// (Vertigo, AIFO, Preemptive Deflection), else `"none"`.
    #[serde(default)]
    pub rank: Option<super::RankSpec>,
    /// Halve a resent segment's rank once per resend (one plus the flow's timeouts), so
    /// rank-aware switches favour repairs: Vertigo's marking layer, as the deflection
    /// paper's artifact runs Vertigo and Preemptive Deflection. Default false.
    #[serde(default)]
    pub rank_retransmit_boost: bool,
    /// The TCP transport's table (refused when `kind` is left to its default `"roce"`,
    /// which never reads it; a TCP scenario switched to `kind = "roce"` may keep it).
    #[serde(default)]
    pub tcp: super::tagged::Written<super::TcpSpec>,
    #[serde(default)]
    pub swift: super::SwiftSpec,
    #[serde(default)]
    pub bolt: super::BoltSpec,
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
    /// Whether a NACK also tells the sender's congestion control of congestion, as an ECN
    /// mark would (echoed in the NACK, or a CNP): ConWeave's ns-3 does so for every NACK of
    /// an out-of-order packet (`RdmaHw::ReceiverCheckSeq`, "out-of-order should accompany
    /// with CNP"). Default false: a NACK reports a gap only (the HPCC simulator, RoCE NICs).
    #[serde(default)]
    pub nack_signals_congestion: bool,
    /// Cap on in-flight bytes per flow: `"auto"` (default: HPCC's rate-tied BDP window for
    /// HPCC flows, none for the others), `"none"`, `"bdp"` (base RTT × bottleneck rate, see
    /// `bdp`) or a size.
    #[serde(default)]
    pub window: WindowSpec,
    /// Scale a flow's window with its sending rate (`window × rate / line rate`), as the
    /// HPCC ns-3 simulator's `VAR_WIN` does for every congestion control. HPCC's window
    /// always follows its rate.
    #[serde(default)]
    pub window_follows_rate: bool,
    /// Which base RTT and BDP a flow's window and congestion control use: its own path's
    /// (`"path"`, default), or the largest of any pair of hosts (`"max"`, the HPCC ns-3
    /// simulator's `GLOBAL_T 1`). The ideal FCT always uses the flow's own path.
    #[serde(default)]
    pub bdp: BdpScope,
    /// UDP source ports of flows: `"per_flow"` (default: flow i uses 10000 + i mod 50000) or
    /// `"per_pair"` (numbered per (source, destination) pair from 10000, in flow order, as
    /// the HPCC ns-3 simulator does): with ECMP the port decides the path.
    #[serde(default)]
    pub source_ports: SourcePorts,
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
    /// MP-RDMA's settings (`kind = "mp_rdma"`).
    #[serde(default)]
    pub mp_rdma: crate::host::transport::mp_rdma::MpRdmaSpec,
    /// A receiver reorder buffer for go-back-N (off by default).
    #[serde(default)]
    pub reorder_buffer: crate::host::transport::reorder_buffer::ReorderBufferSpec,
    /// Congestion control per group of sending hosts (`[[transport.groups]]`), overriding
    /// `cc` for flows whose source is in the group: mixed deployments in one run.
    #[serde(default)]
    pub groups: Vec<CcGroup>,
}

/// Hosts whose flows use a given congestion control.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CcGroup {
    pub hosts: Vec<u32>,
    pub cc: CcKind,
}

/// TIMELY parameters. Every field left out takes its variant's default:
///
/// | field | `"paper"` (default) | `"ns3"` |
/// |---|---|---|
/// | `alpha` (RTT-difference EWMA) | 0.02 | 0.875 |
/// | `beta` | 0.8 | 0.8 |
/// | `t_low` / `t_high` | 50 µs / 1 ms | 50 µs / 500 µs |
/// | `delta` (additive step) | 40 Mb/s | 100 Mb/s |
/// | `rate_hai` (hyperactive step) | 5 × `delta` | 500 Mb/s |
/// | `hai_threshold` | 5 | 5 |
/// | `segment` (completion event) | 16 KB | — (one update per RTT) |
/// | `min_rate` | 100 Mb/s | 1000 Mb/s |
/// | `min_rtt` (gradient normaliser) | the flow's base RTT | 20 µs |
///
/// Paper: the TIMELY authors' published code snippet (as eRPC uses it) — EWMA α 0.02, β 0.8,
/// T_low 50 µs, T_high 1 ms, δ 40 Mb/s, N = 5 — and the paper's smallest completion unit
/// (§4). ns-3: the HPCC simulator's `RdmaHw` attributes (`TimelyAlpha`, `TimelyBeta`,
/// `TimelyTLow`, `TimelyTHigh`, `TimelyMinRtt`) and `run.py`'s `--cc timely` rates at
/// 100 Gb/s (RATE_AI 100 Mb/s, RATE_HAI 500 Mb/s, MIN_RATE 1000 Mb/s).
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelySpec {
    #[serde(default)]
    pub variant: TimelyVariantSpec,
    #[serde(default)]
    pub alpha: Option<f64>,
    #[serde(default)]
    pub beta: Option<f64>,
    #[serde(default)]
    pub t_low: Option<Duration>,
    #[serde(default)]
    pub t_high: Option<Duration>,
    #[serde(default)]
    pub delta: Option<RateSpec>,
    #[serde(default)]
    pub rate_hai: Option<RateSpec>,
    #[serde(default)]
    pub hai_threshold: Option<u32>,
    #[serde(default)]
    pub segment: Option<Bytes>,
    #[serde(default)]
    pub min_rate: Option<RateSpec>,
    #[serde(default)]
    pub min_rtt: Option<Duration>,
    /// Bytes of the send timestamp each data packet carries for the receiver to echo
    /// (when `transport.cc` is `"timely"`): the ns-3 variant's 8 B (`IntHeader` in `TS`
    /// mode), 0 for the paper's, whose NIC takes RTTs from its own completion timestamps
    /// (§4.1). Not counted in the ideal FCT, as ns-3's `standalone_fct` leaves it out.
    #[serde(default)]
    pub timestamp_bytes: Option<u32>,
}

/// Which TIMELY (`transport.timely.variant`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimelyVariantSpec {
    /// Algorithm 1 of the paper, updated per completion event.
    #[default]
    Paper,
    /// The HPCC ns-3 simulator's TIMELY (`rdma-hw.cc`, `UpdateRateTimely`).
    Ns3,
}

/// DCTCP parameters. Use it with step marking (`switch.ecn.kmin = kmax`, `pmax = 1`), as
/// DCTCP specifies (§3.1: mark when the instantaneous queue exceeds K).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DctcpSpec {
    /// `"hpcc_sim"` (default) or `"ns3"`: the HPCC ns-3 simulator's exact bookkeeping, whose
    /// first window counts its marks into the second's fraction (`HandleAckDctcp`).
    #[serde(default)]
    pub variant: DctcpVariantSpec,
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
        DctcpSpec {
            variant: DctcpVariantSpec::default(),
            g: default_dctcp_g(),
            rate_ai: default_dctcp_ai(),
            min_rate: default_hpcc_min_rate(),
        }
    }
}

/// DCTCP's bookkeeping (`transport.dctcp.variant`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DctcpVariantSpec {
    /// Each window's marks over that window's packets (DCTCP §3.1).
    #[default]
    HpccSim,
    /// As the HPCC ns-3 simulator counts them.
    Ns3,
}

fn default_dctcp_g() -> f64 {
    1.0 / 16.0
}
fn default_dctcp_ai() -> RateSpec {
    RateSpec::mbps(1000)
}

/// HPCC parameters: η and maxStage from the HPCC paper (§3.3, §5.1), the additive step
/// from the HPCC simulator's runs listed in `../shared/anchors/ns3-fattree320/README.md`.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
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
    /// How the INT records are read: `"exact"` (default), or `"ns3"`, in the HPCC ns-3
    /// simulator's header units (`IntHop`: transmitted bytes in 128 × m bytes, queue length
    /// in 80 × m bytes, time in ns, with m = `INT_MULTI`, which its `run.py` sets to the
    /// line rate / 25 Gb/s for HPCC). `compat = "ns3"` sets `"ns3"`.
    #[serde(default)]
    pub int_units: HpccIntUnits,
    /// `INT_MULTI` under `int_units = "ns3"` (≥ 1). Default: the flow's line rate / 25 Gb/s
    /// (at least 1), as the HPCC simulator's `run.py` sets it for HPCC.
    #[serde(default)]
    pub int_multi: Option<u32>,
    /// When the rate changes, move the flow's next send time by the change in its last
    /// packet's transmission time, as the HPCC ns-3 simulator's `RdmaHw::ChangeRate` does
    /// (default false: the new rate applies from the next packet). `compat = "ns3"` sets true.
    #[serde(default)]
    pub shift_next_send: bool,
}

/// How HPCC reads INT records (`transport.hpcc.int_units`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HpccIntUnits {
    /// The switch's exact counters.
    #[default]
    Exact,
    /// Rounded down to the HPCC ns-3 simulator's header units.
    Ns3,
}

impl Default for HpccSpec {
    fn default() -> Self {
        HpccSpec {
            eta: default_eta(),
            max_stage: default_max_stage(),
            rate_ai: default_hpcc_ai(),
            min_rate: default_hpcc_min_rate(),
            int_units: HpccIntUnits::Exact,
            int_multi: None,
            shift_next_send: false,
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
            kind: Default::default(),
            rank: None,
            rank_retransmit_boost: false,
            tcp: Default::default(),
            swift: Default::default(),
            bolt: Default::default(),
            mtu: default_mtu(),
            header_bytes: default_header(),
            ack_bytes: default_ack_bytes(),
            ack_every: 1,
            priority: default_priority(),
            loss_recovery: LossRecovery::GoBackN,
            rto: default_rto(),
            nack_interval: default_nack_interval(),
            nack_signals_congestion: false,
            window: WindowSpec::Auto,
            window_follows_rate: false,
            bdp: BdpScope::Path,
            source_ports: SourcePorts::PerFlow,
            cc: CcKind::Dcqcn,
            dcqcn: DcqcnSpec::default(),
            hpcc: HpccSpec::default(),
            dctcp: DctcpSpec::default(),
            timely: TimelySpec::default(),
            irn: IrnSpec::default(),
            mp_rdma: Default::default(),
            reorder_buffer: Default::default(),
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

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LossRecovery {
    /// RoCEv2: a NACK or timeout rewinds the sender to the first missing byte.
    #[default]
    GoBackN,
    /// IRN (Mittal et al., SIGCOMM 2018): the receiver keeps out-of-order packets and
    /// NACKs with a selective acknowledgement; the sender retransmits only the holes.
    Irn,
}

/// IRN timeouts: RTO_low while at most `rto_low_packets` packets are in flight, RTO_high
/// otherwise. Defaults on a lossy network (no per-hop flow control): IRN paper §3.1, 100 µs
/// and 320 µs with N = 3. Behind lossless flow control packets wait out PAUSEs for
/// milliseconds and such timers fire with nothing lost (every retransmission spurious), so
/// there both default to `transport.rto`; a value given here is used as it is.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IrnSpec {
    #[serde(default)]
    pub rto_low: Option<Duration>,
    #[serde(default)]
    pub rto_high: Option<Duration>,
    #[serde(default = "default_rto_low_packets")]
    pub rto_low_packets: u32,
}

impl Default for IrnSpec {
    fn default() -> Self {
        IrnSpec { rto_low: None, rto_high: None, rto_low_packets: default_rto_low_packets() }
    }
}

/// IRN paper §3.1 RTO_low and RTO_high, for lossy networks.
pub const IRN_RTO_LOW: Duration = Duration(crate::time::Delta(100 * crate::time::PS_PER_US));
pub const IRN_RTO_HIGH: Duration = Duration(crate::time::Delta(320 * crate::time::PS_PER_US));

fn default_rto_low_packets() -> u32 {
    3
}

/// Per-flow in-flight cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WindowSpec {
    /// HPCC's BDP window for HPCC flows, none for the others.
    #[default]
    Auto,
    None,
    Bdp,
    Bytes(u64),
}

impl Serialize for WindowSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            WindowSpec::Auto => s.serialize_str("auto"),
            WindowSpec::None => s.serialize_str("none"),
            WindowSpec::Bdp => s.serialize_str("bdp"),
            WindowSpec::Bytes(b) => s.serialize_u64(*b),
        }
    }
}

impl schemars::JsonSchema for WindowSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "WindowSpec".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`\"auto\"`, `\"none\"`, `\"bdp\"`, or a size in bytes (an integer or with a unit, e.g. \"64KB\")",
            "anyOf": [
                {"enum": ["auto", "none", "bdp"]},
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": super::units::BYTES_PATTERN}
            ]
        })
    }
}

/// Whose base RTT and BDP (`transport.bdp`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BdpScope {
    /// The flow's own path.
    #[default]
    Path,
    /// The largest of any pair of hosts (ns-3's `GLOBAL_T 1`).
    Max,
}

/// How flows get their UDP source ports (`transport.source_ports`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourcePorts {
    /// Flow i: 10000 + i mod 50000.
    #[default]
    PerFlow,
    /// Per (source, destination) pair from 10000, in flow order (ns-3's `portNumder`).
    PerPair,
    /// Per source host from 10000, in flow order (ConWeave's ns-3, `portNumber[src]`).
    PerSource,
}

impl<'de> Deserialize<'de> for WindowSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Str(String),
        }
        let expected = "\"auto\", \"none\", \"bdp\", or a size such as \"64KB\"";
        match Raw::deserialize(d).map_err(|_| serde::de::Error::custom(format!("expected {expected}")))? {
            Raw::Int(b) => Ok(WindowSpec::Bytes(b)),
            Raw::Str(s) if s == "auto" => Ok(WindowSpec::Auto),
            Raw::Str(s) if s == "none" => Ok(WindowSpec::None),
            Raw::Str(s) if s == "bdp" => Ok(WindowSpec::Bdp),
            Raw::Str(s) => crate::time::parse_bytes(&s)
                .map(WindowSpec::Bytes)
                .map_err(|_| serde::de::Error::custom(format!("expected {expected}, got \"{s}\""))),
        }
    }
}

/// DCQCN parameters. Defaults follow the HPCC simulator's DCQCN runs (`CC_MODE 1`) as
/// listed in `../shared/anchors/ns3-fattree320/README.md`; the CNP interval follows the
/// DCQCN paper §3 (the notification point sends at most one CNP per 50 µs per flow).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
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
