//! G-PFC, packet-priority aware PFC (Cui and Rim, APNOMS 2020), as OFC §IV-A evaluates it:
//! "selectively pauses low-priority flows using a lower ingress threshold, building on the
//! standard PFC scheme" (`kind = "gpfc"`).
//!
//! Every (ingress port, priority) pauses its upstream at PFC's XOFF threshold; the
//! low-priority classes (`priority ≥ low_priority_from`) pause earlier, once their
//! ingress usage reaches `low_fraction` × PFC's threshold, and resume when it is back
//! below that by PFC's resume margin (and PFC's own XON holds). **Choices** (OFC gives no
//! values; G-PFC's paper was not available here): the lower threshold is a fraction of
//! PFC's (dynamic or static) threshold, default ½; classes 4–7 are low priority by
//! default (hopsim's strict-priority scheduler serves lower class numbers first, and
//! flows default to class 3, so default traffic is high priority — set a flow's
//! `priority` to put it in a low class); the lower threshold is per (port, class), like
//! PFC's.

use serde::{Deserialize, Serialize};

use super::{with_pfc_mode, Family, Ingress, Names, Rule};
use crate::scenario::error::{check, ScenarioError};
use crate::switch::flow_control::hooks::{FcBuild, FcCx, Hop};
use crate::switch::flow_control::pfc::PfcState;
use crate::switch::flow_control::pfc_spec::PfcConfig;

/// G-PFC (`kind = "gpfc"`); PFC's own thresholds are `[switch.pfc]`'s.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GPfcSpec {
    /// The low-priority classes' pause threshold, as a fraction of PFC's XOFF threshold.
    /// Default 0.5: hopsim's choice (OFC and its summary of G-PFC give no value).
    #[serde(default = "default_low_fraction")]
    pub low_fraction: f64,
    /// Classes at or above this number are low priority. Default 4 (the lower half of 8
    /// classes; hopsim's choice — strict priority serves lower numbers first).
    #[serde(default = "default_low_from")]
    pub low_priority_from: u8,
}

fn default_low_fraction() -> f64 {
    0.5
}
fn default_low_from() -> u8 {
    4
}

impl Default for GPfcSpec {
    fn default() -> Self {
        GPfcSpec { low_fraction: default_low_fraction(), low_priority_from: default_low_from() }
    }
}

/// G-PFC's rule.
#[derive(Clone, Debug)]
pub struct GRule {
    pub low_fraction: f64,
    pub low_from: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GNames;

impl Names for GNames {
    const KINDS: &'static [&'static str] = &["gpfc_pause", "gpfc_resume"];
}

/// G-PFC at every switch.
pub type GPfc = Family<GRule>;

impl GRule {
    fn lower(&self, st: &PfcState, port: u32, buffer: u64) -> u64 {
        (st.threshold_of(port, buffer) as f64 * self.low_fraction) as u64
    }
}

impl Rule for GRule {
    const NAME: &'static str = "gpfc";
    type Spec = GPfcSpec;
    type Names = GNames;
    const COUNTERS: [&'static str; 3] = ["gpfc_pauses", "gpfc_urgent_pauses", "gpfc_held_back"];
    const LABEL: &'static str = "G-PFC";

    fn validate(spec: &GPfcSpec) -> Result<(), ScenarioError> {
        check(
            spec.low_fraction > 0.0 && spec.low_fraction <= 1.0,
            "switch.flow_control.low_fraction",
            format!("expected a fraction in (0, 1], got {}", spec.low_fraction),
        )?;
        check(
            spec.low_priority_from < 64,
            "switch.flow_control.low_priority_from",
            format!("expected a class below 64, got {}", spec.low_priority_from),
        )
    }

    fn new(spec: &GPfcSpec, _b: &FcBuild) -> Self {
        GRule { low_fraction: spec.low_fraction, low_from: spec.low_priority_from }
    }

    fn describe(spec: &GPfcSpec, pfc: Option<&PfcConfig>) -> String {
        with_pfc_mode(
            &format!("gpfc (classes ≥ {} at {} × XOFF)", spec.low_priority_from, spec.low_fraction),
            pfc,
        )
    }

    fn pause_now(&mut self, _cx: &FcCx, hop: &Hop, st: &PfcState, over: bool, _queue_bytes: u64) -> bool {
        let p = hop.pkt.priority;
        over || (p >= self.low_from
            && st.usage_of(hop.local_in, p) >= self.lower(st, hop.local_in, hop.buffer))
    }

    fn resume_now(&mut self, at: Ingress, st: &PfcState, buffer: u64, pfc_resumed: bool) -> bool {
        if !pfc_resumed || at.priority < self.low_from {
            return pfc_resumed;
        }
        let usage = st.usage_of(at.port, at.priority);
        usage == 0 || usage + st.resume_margin() <= self.lower(st, at.port, buffer)
    }
}
