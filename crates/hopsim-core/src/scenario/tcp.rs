//! `transport.kind = "tcp"`: TCP's settings (`[transport.tcp]`), the window-based
//! congestion controls' (`[transport.swift]`, `[transport.bolt]`), and the rank data
//! packets carry (`transport.rank`).

use super::error::{check, fraction};
use super::{Bytes, Duration, ScenarioError};
use crate::host::cc::{BoltParams, SwiftParams, WindowParams};
use crate::host::{Rank, TcpParams};
use crate::time::Delta;
use serde::{Deserialize, Serialize};

pub use crate::host::transport::TransportKind;

/// The rank senders write in data packets (`transport.rank`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RankSpec {
    /// None (every packet rank 0).
    #[default]
    None,
    /// The flow's remaining bytes (SRPT; Vertigo §3.2, the deflection paper §3).
    Srpt,
    /// The flow's bytes already sent (LAS; the deflection paper's Appendix A).
    Las,
}

impl From<RankSpec> for Rank {
    fn from(r: RankSpec) -> Rank {
        match r {
            RankSpec::None => Rank::None,
            RankSpec::Srpt => Rank::Srpt,
            RankSpec::Las => Rank::Las,
        }
    }
}

/// TCP settings. Defaults are the deflection paper's §5.2 settings where it gives them
/// (initial window 10 segments, minimum and initial RTO 10 ms, after Vertigo and DIBS)
/// and RFC defaults elsewhere.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Initial window, segments. Default 10 (RFC 6928; the deflection paper §5.2).
    #[serde(default = "default_initial_window")]
    pub initial_window: u32,
    /// Default 10 ms (the deflection paper §5.2).
    #[serde(default = "default_rto")]
    pub initial_rto: Duration,
    /// Default 10 ms (the deflection paper §5.2).
    #[serde(default = "default_rto")]
    pub min_rto: Duration,
    /// Cap on the backed-off timeout. Default 60 s (RFC 6298 §2.5's smallest allowed cap).
    #[serde(default = "default_max_rto")]
    pub max_rto: Duration,
    /// Fast retransmit and fast recovery on three duplicate ACKs. Default true; DIBS and
    /// Simple Deflection run with it off (DIBS §4; the deflection paper §5.2).
    #[serde(default = "yes")]
    pub fast_retransmit: bool,
    /// Duplicate ACKs that signal a loss. Default 3 (RFC 5681 §3.2).
    #[serde(default = "default_dupacks")]
    pub dupack_threshold: u32,
    /// Selective acknowledgements (RFC 2018) with scoreboard recovery. Default false.
    #[serde(default)]
    pub sack: bool,
    /// Delayed ACKs: acknowledge every second segment, or after this long. Default 0
    /// (off: every segment is acknowledged, as INET's TCP defaults).
    #[serde(default = "zero")]
    pub delayed_ack: Duration,
    /// The ordering layer below TCP (Vertigo §3.3): hold out-of-order segments for at
    /// most this long. Default none (off).
    #[serde(default)]
    pub reorder_timeout: Option<Duration>,
    /// The window the receiver advertises: the sender keeps at most this many bytes
    /// unacknowledged, whatever its congestion window. Default none (unbounded). INET's
    /// TCP, which the deflection paper's artifact runs, advertises 65,535 B without window
    /// scaling (`docs/model.md`).
    #[serde(default)]
    pub receive_window: Option<Bytes>,
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec {
            initial_window: default_initial_window(),
            initial_rto: default_rto(),
            min_rto: default_rto(),
            max_rto: default_max_rto(),
            fast_retransmit: true,
            dupack_threshold: default_dupacks(),
            sack: false,
            delayed_ack: zero(),
            reorder_timeout: None,
            receive_window: None,
        }
    }
}

fn default_initial_window() -> u32 {
    10
}
fn default_rto() -> Duration {
    Duration::us(10_000)
}
fn default_max_rto() -> Duration {
    Duration::us(60_000_000)
}
fn default_dupacks() -> u32 {
    3
}
fn yes() -> bool {
    true
}
fn zero() -> Duration {
    Duration::us(0)
}

/// Swift parameters (Kumar et al., SIGCOMM 2020). Every field left out takes the default
/// in `docs/model.md`'s Swift table.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwiftSpec {
    pub ai: Option<f64>,
    pub beta: Option<f64>,
    pub max_mdf: Option<f64>,
    pub base_target: Option<Duration>,
    pub hop_scale: Option<Duration>,
    pub fs_range: Option<Duration>,
    pub fs_min_cwnd: Option<f64>,
    pub fs_max_cwnd: Option<f64>,
    pub min_cwnd: Option<f64>,
    pub max_cwnd: Option<f64>,
    pub retx_reset_threshold: Option<u32>,
}

/// Bolt parameters (Arslan et al., NSDI 2023).
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoltSpec {
    /// Queue length above which a switch sends an SRC to the sender (§3.1).
    pub cc_thresh: Option<Bytes>,
    /// Proactive ramp-up (§3.2). Default true.
    pub pru: Option<bool>,
    /// Supply matching (§3.3). Default true.
    pub sm: Option<bool>,
    /// Wire size of an SRC packet. Default 64 B.
    pub src_bytes: Option<u32>,
}

/// Swift's defaults and the given values, checked.
pub(crate) fn swift_params(s: &SwiftSpec) -> Result<SwiftParams, ScenarioError> {
    let us = |d: Option<Duration>, default: u64| d.map_or(Delta::from_us(default), |d| d.0);
    let base_target = us(s.base_target, 25);
    let p = SwiftParams {
        ai: s.ai.unwrap_or(1.0),
        beta: s.beta.unwrap_or(0.8),
        max_mdf: s.max_mdf.unwrap_or(0.5),
        base_target,
        hop_scale: us(s.hop_scale, 1),
        fs_range: s.fs_range.map_or(Delta(5 * base_target.0), |d| d.0),
        fs_min_cwnd: s.fs_min_cwnd.unwrap_or(0.1),
        fs_max_cwnd: s.fs_max_cwnd.unwrap_or(100.0),
        min_cwnd: s.min_cwnd.unwrap_or(0.001),
        max_cwnd: s.max_cwnd.unwrap_or(10_000.0),
        retx_reset_threshold: s.retx_reset_threshold.unwrap_or(5),
    };
    check(p.ai.is_finite() && p.ai > 0.0, "transport.swift.ai", "expected a positive number of packets")?;
    fraction(p.beta, "transport.swift.beta", true)?;
    fraction(p.max_mdf, "transport.swift.max_mdf", true)?;
    check(p.base_target > Delta::ZERO, "transport.swift.base_target", "expected a positive duration")?;
    check(
        p.fs_min_cwnd > 0.0 && p.fs_min_cwnd < p.fs_max_cwnd,
        "transport.swift.fs_max_cwnd",
        "expected 0 < fs_min_cwnd < fs_max_cwnd",
    )?;
    check(
        p.min_cwnd > 0.0 && p.min_cwnd <= p.max_cwnd,
        "transport.swift.max_cwnd",
        "expected 0 < min_cwnd ≤ max_cwnd",
    )?;
    check(p.retx_reset_threshold > 0, "transport.swift.retx_reset_threshold", "expected a positive count")?;
    Ok(p)
}

/// Bolt's defaults and the given values, checked.
pub(crate) fn bolt_params(b: &BoltSpec, mtu: u32, header: u32) -> Result<BoltParams, ScenarioError> {
    let p = BoltParams {
        cc_thresh: b.cc_thresh.map_or((mtu + header) as u64, |t| t.0),
        pru: b.pru.unwrap_or(true),
        sm: b.sm.unwrap_or(true),
        src_bytes: b.src_bytes.unwrap_or(64),
    };
    check(p.src_bytes >= 1 && p.src_bytes <= 1500, "transport.bolt.src_bytes", "expected 1 to 1500 bytes")?;
    Ok(p)
}

/// TCP's settings, checked.
pub(crate) fn tcp_params(t: &TcpSpec) -> Result<TcpParams, ScenarioError> {
    check(
        (1..=10_000).contains(&t.initial_window),
        "transport.tcp.initial_window",
        format!("expected 1 to 10,000 segments, got {}", t.initial_window),
    )?;
    for (name, d) in [("initial_rto", t.initial_rto), ("min_rto", t.min_rto), ("max_rto", t.max_rto)] {
        check(d.0 > Delta::ZERO, &format!("transport.tcp.{name}"), "expected a positive duration")?;
    }
    check(t.min_rto.0 <= t.max_rto.0, "transport.tcp.max_rto", "expected min_rto ≤ max_rto")?;
    check(
        (1..=100).contains(&t.dupack_threshold),
        "transport.tcp.dupack_threshold",
        format!("expected 1 to 100 duplicate ACKs, got {}", t.dupack_threshold),
    )?;
    check(t.delayed_ack.0 >= Delta::ZERO, "transport.tcp.delayed_ack", "expected a duration ≥ 0")?;
    if let Some(r) = t.reorder_timeout {
        check(r.0 > Delta::ZERO, "transport.tcp.reorder_timeout", "expected a positive duration")?;
    }
    if let Some(w) = t.receive_window {
        check(w.0 > 0, "transport.tcp.receive_window", "expected a positive size in bytes")?;
    }
    Ok(TcpParams {
        initial_window: t.initial_window as u64,
        initial_rto: t.initial_rto.0,
        min_rto: t.min_rto.0,
        max_rto: t.max_rto.0,
        fast_retransmit: t.fast_retransmit,
        dupack_threshold: t.dupack_threshold,
        sack: t.sack,
        delayed_ack: t.delayed_ack.0,
        reorder_timeout: t.reorder_timeout.map(|d| d.0),
        receive_window: t.receive_window.map(|w| w.0),
    })
}

/// DCTCP's window parameters (its `g` is `transport.dctcp.g`).
pub(crate) fn window_params(g: f64) -> WindowParams {
    WindowParams { dctcp_g: g, min_segments: 2 }
}
