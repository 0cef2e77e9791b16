//! caPFC, congestion-aware PFC (Avci, Li and Liu, IFIP Networking 2016), as OFC §IV-A
//! evaluates it: "adds a fixed egress threshold to the standard PFC to identify congested
//! ports and pause flows" (`kind = "capfc"`).
//!
//! An ingress (port, priority) pauses its upstream only when it is over PFC's XOFF
//! threshold **and** the egress queue the arriving packet joins holds more than
//! `egress_threshold` bytes: an ingress filled by traffic towards uncongested egresses
//! does not pause (its packets leave at line rate by themselves). It resumes by PFC's XON
//! rule. **Choices** (OFC gives no value; caPFC's own paper was not available here): the
//! egress threshold is a fixed byte count, by default OFC's X_OFF^c = 68 KB — the egress
//! length OFC itself calls congested (§III-A, §IV-A) — so caPFC and OFC call the same
//! egress queues congested; the resume is PFC's; the urgent pause of the family (see
//! [`super`]) keeps it lossless.

use serde::{Deserialize, Serialize};

use super::{with_pfc_mode, Family, Names, Rule};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::Bytes;
use crate::switch::flow_control::hooks::{FcBuild, FcCx, Hop};
use crate::switch::flow_control::pfc::PfcState;
use crate::switch::flow_control::pfc_spec::PfcConfig;

/// caPFC (`kind = "capfc"`); PFC's own thresholds are `[switch.pfc]`'s.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaPfcSpec {
    /// Egress-queue length above which the egress counts as congested (the PAUSE needs it).
    /// Default 68 KB: OFC's X_OFF^c (§IV-A), the egress length OFC calls congested — OFC
    /// does not give caPFC's value; hopsim's choice.
    #[serde(default = "default_egress_threshold")]
    pub egress_threshold: Bytes,
}

fn default_egress_threshold() -> Bytes {
    Bytes(68_000)
}

impl Default for CaPfcSpec {
    fn default() -> Self {
        CaPfcSpec { egress_threshold: default_egress_threshold() }
    }
}

/// caPFC's rule: PFC's ingress threshold and a fixed egress threshold.
#[derive(Clone, Debug)]
pub struct CaRule {
    pub egress_threshold: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaNames;

impl Names for CaNames {
    const KINDS: &'static [&'static str] = &["capfc_pause", "capfc_resume"];
}

/// caPFC at every switch.
pub type CaPfc = Family<CaRule>;

impl Rule for CaRule {
    const NAME: &'static str = "capfc";
    type Spec = CaPfcSpec;
    type Names = CaNames;
    const COUNTERS: [&'static str; 3] = ["capfc_pauses", "capfc_urgent_pauses", "capfc_held_back"];
    const LABEL: &'static str = "caPFC";

    fn validate(spec: &CaPfcSpec) -> Result<(), ScenarioError> {
        check(spec.egress_threshold.0 > 0, "switch.flow_control.egress_threshold", "expected a positive size")
    }

    fn new(spec: &CaPfcSpec, _b: &FcBuild) -> Self {
        CaRule { egress_threshold: spec.egress_threshold.0 }
    }

    fn describe(spec: &CaPfcSpec, pfc: Option<&PfcConfig>) -> String {
        with_pfc_mode(&format!("capfc-{}B", spec.egress_threshold.0), pfc)
    }

    fn pause_now(&mut self, _cx: &FcCx, hop: &Hop, _st: &PfcState, over: bool, queue_bytes: u64) -> bool {
        over && queue_bytes + hop.pkt.wire_bytes as u64 > self.egress_threshold
    }
}
