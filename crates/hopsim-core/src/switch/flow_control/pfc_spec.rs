//! `[switch.pfc]`: PFC's table, and the settings it resolves to. It is read whether or
//! not `[switch.flow_control]` is given: without that table, `enabled` chooses between
//! PFC and no flow control.

use serde::{Deserialize, Serialize};

use crate::scenario::error::{check, fraction, ScenarioError};
use crate::scenario::tagged::Written;
use crate::scenario::units::Bytes;

fn enabled_by_default() -> Written<bool> {
    Written::default_to(true)
}

/// Priority flow control (IEEE 802.1Qbb).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfcSpec {
    /// PFC on (default) or off: `false` turns PFC off on any scenario (beside
    /// `[switch.flow_control] kind = "pfc"` too: no flow control then runs). Another kind
    /// of `[switch.flow_control]` decides alone, and `enabled = true` written beside it is
    /// an error.
    #[serde(default = "enabled_by_default")]
    pub enabled: Written<bool>,
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
    /// The computed headroom (without `headroom_bytes`), in one-way BDPs of the port
    /// (rate × propagation delay). Default 3, as the HPCC simulator's `third.cc` sizes it;
    /// Pyrrha-NS3 sets 4 × `HDRM_RATIO` (2) = 8 (`third.cc`, `ConfigHdrm(j, bdp * 4)`).
    #[serde(default = "default_headroom_bdps")]
    pub headroom_bdps: f64,
    /// Bytes per (ingress port, priority) reserved before the shared pool is used.
    /// Default 4 KB, as in the HPCC simulator's MMU.
    #[serde(default = "default_reserve")]
    pub reserve_bytes: Bytes,
    /// XON hysteresis in dynamic mode: resume when usage + offset ≤ threshold.
    /// Default 3 KB, as in the HPCC simulator's MMU.
    #[serde(default = "default_resume_offset")]
    pub resume_offset_bytes: Bytes,
    /// When an arriving packet takes headroom: `"xoff"` (default), once its ingress is past
    /// the XOFF threshold, as the HPCC simulator's MMU accounts it (`SwitchMmu::UpdateIngressAdmission`);
    /// `"shared_pool_full"`, only once the shared pool itself is full, as Broadcom-style MMUs
    /// and ConWeave's ns-3 do (`SwitchMmu::CheckIngressAdmission`: headroom is used only
    /// when the service pool exceeds its limit) — the XOFF threshold then decides pauses
    /// alone.
    #[serde(default)]
    pub headroom_from: HeadroomFrom,
}

/// When a packet arriving at a PFC ingress takes headroom (`switch.pfc.headroom_from`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HeadroomFrom {
    /// Once the ingress is past the XOFF threshold (the HPCC simulator's MMU).
    #[default]
    Xoff,
    /// Once the shared pool is full (ConWeave's ns-3, Broadcom-style MMUs).
    SharedPoolFull,
}

impl Default for PfcSpec {
    fn default() -> Self {
        PfcSpec {
            enabled: enabled_by_default(),
            threshold: PfcThreshold::Dynamic,
            alpha: default_pfc_alpha(),
            xoff_bytes: None,
            xon_bytes: None,
            headroom_bytes: None,
            headroom_bdps: default_headroom_bdps(),
            reserve_bytes: default_reserve(),
            resume_offset_bytes: default_resume_offset(),
            headroom_from: HeadroomFrom::Xoff,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PfcThreshold {
    #[default]
    Dynamic,
    Static,
}

fn default_pfc_alpha() -> f64 {
    0.125
}
fn default_headroom_bdps() -> f64 {
    3.0
}
fn default_reserve() -> Bytes {
    Bytes(4_000)
}
fn default_resume_offset() -> Bytes {
    Bytes(3_000)
}

impl PfcSpec {
    /// Check the table and resolve it into the settings PFC runs with (`classes`: traffic
    /// classes per port).
    pub fn config(&self, classes: usize) -> Result<PfcConfig, ScenarioError> {
        let mode = match self.threshold {
            PfcThreshold::Dynamic => {
                fraction(self.alpha, "switch.pfc.alpha", true)?;
                PfcMode::Dynamic { alpha: self.alpha }
            }
            PfcThreshold::Static => {
                let required =
                    |f: &str| ScenarioError::field(f, "required when switch.pfc.threshold = \"static\"");
                let xoff = self.xoff_bytes.ok_or_else(|| required("switch.pfc.xoff_bytes"))?;
                let xon = self.xon_bytes.ok_or_else(|| required("switch.pfc.xon_bytes"))?;
                check(xon.0 <= xoff.0, "switch.pfc.xon_bytes", "expected xon_bytes ≤ xoff_bytes")?;
                check(xoff.0 > 0, "switch.pfc.xoff_bytes", "expected a positive size")?;
                PfcMode::Static { xoff: xoff.0, xon: xon.0 }
            }
        };
        check(
            self.headroom_bdps.is_finite() && self.headroom_bdps > 0.0 && self.headroom_bdps <= 1000.0,
            "switch.pfc.headroom_bdps",
            format!("expected a number of BDPs in (0, 1000], got {}", self.headroom_bdps),
        )?;
        Ok(PfcConfig {
            mode,
            headroom: self.headroom_bytes.map(|b| b.0),
            headroom_bdps: self.headroom_bdps,
            reserve: self.reserve_bytes.0,
            resume_offset: self.resume_offset_bytes.0,
            classes,
            headroom_from: self.headroom_from,
        })
    }
}

/// How the XOFF threshold is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PfcMode {
    /// Threshold = `alpha × (buffer − total headroom − total reserve − shared used)`.
    /// `alpha` is per port (see [`PfcConfig::alpha_for_rate`]).
    Dynamic { alpha: f64 },
    /// XOFF at `xoff` bytes held by the ingress (port, priority), XON at `xon`.
    Static { xoff: u64, xon: u64 },
}

/// PFC settings shared by all switches.
#[derive(Clone, Debug)]
pub struct PfcConfig {
    pub mode: PfcMode,
    /// Fixed headroom per (port, priority); `None` = `headroom_bdps` × the port's one-way BDP.
    pub headroom: Option<u64>,
    /// One-way BDPs of computed headroom (default 3).
    pub headroom_bdps: f64,
    pub reserve: u64,
    pub resume_offset: u64,
    /// Priority classes per port.
    pub classes: usize,
    /// When a packet takes headroom.
    pub headroom_from: HeadroomFrom,
}

impl PfcConfig {
    /// Headroom of a port of `rate` and one-way propagation `delay`: `headroom_bdps` ×
    /// rate × delay; the HPCC simulator's 3 (`third.cc`) covers the bytes in flight during
    /// the PAUSE's round trip plus a packet being sent at either end.
    pub fn headroom_for(&self, rate: crate::time::Rate, delay: crate::time::Delta) -> u64 {
        self.headroom.unwrap_or_else(|| {
            let bdp = rate.0 as u128 * delay.0 as u128 / 8 / crate::time::PS_PER_S as u128;
            (self.headroom_bdps * bdp as f64).round() as u64
        })
    }

    /// Dynamic-threshold alpha of a port of `rate`, given the hosts' NIC rate: ports
    /// faster than the NICs get alpha doubled per doubling of rate (capped at 1), as the
    /// HPCC simulator lowers `pfc_a_shift` for them.
    pub fn alpha_for_rate(base: f64, rate: crate::time::Rate, nic_rate: crate::time::Rate) -> f64 {
        let mut alpha = base;
        let mut r = rate.0;
        while r > nic_rate.0 && alpha < 1.0 {
            alpha = (alpha * 2.0).min(1.0);
            r /= 2;
        }
        alpha
    }
}
