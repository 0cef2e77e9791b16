//! P-PFC as OFC §IV-A evaluates it (`kind = "ppfc"`): "utilizes a dynamic egress threshold
//! (average buffer occupancy of all egress ports) to determine paused ports".
//!
//! An ingress (port, priority) pauses its upstream only when it is over PFC's XOFF
//! threshold **and** the egress port the arriving packet goes to holds more than the
//! average backlog of all the switch's egress ports (the packet counted). It resumes by
//! PFC's XON rule. This is the form OFC evaluated, hence the kind's name `ppfc` with
//! `form = "ofc_average"`; P-PFC's own paper (Tian et al., TPDS 2020) predicts congestion
//! from the derivative of buffer occupancy and pauses early — that predictive form is
//! **not built** (the only `form` is `ofc_average`). **Choices**: "egress port" occupancy
//! is the port's whole backlog (all classes); every port of the switch, host-facing ones
//! included, is in the average; strictly above the average pauses; the family's urgent
//! pause (see [`super`]) keeps it lossless.

use serde::{Deserialize, Serialize};

use super::{with_pfc_mode, Family, Names, Rule};
use crate::switch::flow_control::hooks::{FcBuild, FcCx, Hop};
use crate::switch::flow_control::pfc::PfcState;
use crate::switch::flow_control::pfc_spec::PfcConfig;

/// P-PFC (`kind = "ppfc"`); PFC's own thresholds are `[switch.pfc]`'s.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PPfcSpec {
    /// Which P-PFC: `ofc_average` (default, the only one built) — OFC §IV-A's description,
    /// an egress threshold equal to the average occupancy of the switch's egress ports.
    #[serde(default)]
    pub form: PPfcForm,
}

/// The form of P-PFC.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PPfcForm {
    /// OFC §IV-A: dynamic egress threshold = average occupancy of all egress ports.
    #[default]
    OfcAverage,
}

/// P-PFC's rule (OFC's form).
#[derive(Clone, Debug)]
pub struct PRule;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PNames;

impl Names for PNames {
    const KINDS: &'static [&'static str] = &["ppfc_pause", "ppfc_resume"];
}

/// P-PFC at every switch.
pub type PPfc = Family<PRule>;

/// Whether egress `port` holds more than the average backlog of `ports` (`extra` bytes
/// joining `port` counted).
pub(crate) fn above_average(
    ports: &[crate::fabric::port::Port],
    all: std::ops::Range<u32>,
    port: usize,
    extra: u64,
) -> bool {
    let n = all.len() as u64;
    let total: u64 = all.map(|p| ports[p as usize].backlog_bytes()).sum::<u64>() + extra;
    // mine > total / n, without the division.
    (ports[port].backlog_bytes() + extra) * n > total
}

impl Rule for PRule {
    const NAME: &'static str = "ppfc";
    type Spec = PPfcSpec;
    type Names = PNames;
    const COUNTERS: [&'static str; 3] = ["ppfc_pauses", "ppfc_urgent_pauses", "ppfc_held_back"];
    const LABEL: &'static str = "P-PFC";

    fn new(_spec: &PPfcSpec, _b: &FcBuild) -> Self {
        PRule
    }

    fn describe(_spec: &PPfcSpec, pfc: Option<&PfcConfig>) -> String {
        with_pfc_mode("ppfc (ofc average)", pfc)
    }

    fn pause_now(&self, cx: &FcCx, hop: &Hop, _st: &PfcState, over: bool, _queue_bytes: u64) -> bool {
        if !over {
            return false;
        }
        let node = cx.topo.ports[hop.egress.idx()].node;
        above_average(cx.ports, cx.topo.ports_of(node), hop.egress.idx(), hop.pkt.wire_bytes as u64)
    }
}
