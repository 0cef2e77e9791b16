//! P-PFC (`kind = "ppfc"`) in two forms.
//!
//! - **`form = "ofc_average"`** (default): as OFC §IV-A evaluates it, "utilizes a dynamic
//!   egress threshold (average buffer occupancy of all egress ports) to determine paused
//!   ports". An ingress (port, priority) pauses its upstream only when it is over PFC's
//!   XOFF threshold **and** the egress port the arriving packet goes to holds more than the
//!   average backlog of all the switch's ports (the packet counted). It resumes by PFC's
//!   XON rule. **Choices**: "egress port" occupancy is the port's whole backlog (all
//!   classes); every port of the switch, host-facing ones included, is in the average;
//!   strictly above the average pauses; the family's urgent pause (see [`super`]) keeps it
//!   lossless.
//! - **`form = "derivative"`**: the predictive idea of P-PFC's own paper (Tian et al., TPDS
//!   2020; its text was not available here, so this is built from its summary in OFC and
//!   the issue: "predicts from the derivative of buffer occupancy and pauses early"). Each
//!   ingress (port, priority) measures the slope of its usage over successive windows of
//!   `slope_window`; it pauses as soon as the usage, extended by the slope over `horizon`, would
//!   reach PFC's XOFF threshold (or it is over XOFF), and resumes once PFC's XON holds and
//!   the usage so extended is below XOFF by PFC's resume margin. **Choices**: the horizon
//!   defaults to the ingress port's one-hop RTT (twice its delay, at least 1 µs): what a
//!   PAUSE needs to take effect; the slope is the last complete window's (no smoothing),
//!   windows of an eighth of the horizon by default (a few packets at line rate, so a burst
//!   is seen within its first packets).

use serde::{Deserialize, Serialize};

use super::{with_pfc_mode, Family, Ingress, Names, Rule};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::Duration;
use crate::switch::flow_control::hooks::{FcBuild, FcCx, Hop};
use crate::switch::flow_control::pfc::PfcState;
use crate::switch::flow_control::pfc_spec::PfcConfig;
use crate::time::Delta;

/// P-PFC (`kind = "ppfc"`); PFC's own thresholds are `[switch.pfc]`'s.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PPfcSpec {
    /// Which P-PFC: `ofc_average` (default) — OFC §IV-A's description, an egress threshold
    /// equal to the average occupancy of the switch's egress ports; or `derivative` — P-PFC's
    /// own prediction from the slope of the ingress usage (TPDS 2020), pausing early.
    #[serde(default)]
    pub form: PPfcForm,
    /// `derivative` only: how far ahead the usage is extended by its slope, and the window
    /// the slope is measured over. Default: the ingress port's one-hop RTT (twice its delay,
    /// at least 1 µs) — what a PAUSE needs to take effect; hopsim's choice.
    #[serde(default)]
    pub horizon: Option<Duration>,
    /// `derivative` only: the window the usage's slope is measured over. Default: an eighth
    /// of the horizon; hopsim's choice.
    #[serde(default)]
    pub slope_window: Option<Duration>,
}

/// The form of P-PFC.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PPfcForm {
    /// OFC §IV-A: dynamic egress threshold = average occupancy of all egress ports.
    #[default]
    OfcAverage,
    /// P-PFC's paper: pause when the usage's slope says it will reach XOFF within the horizon.
    Derivative,
}

/// P-PFC's rule.
#[derive(Clone, Debug)]
pub struct PRule {
    form: PPfcForm,
    /// `derivative`: per switch, per local port: the horizon and the slope window (ps).
    horizon: Vec<Vec<(u64, u64)>>,
    /// `derivative`: per switch, per (local port × classes + priority): the window's start
    /// (time in ps, usage) and the last window's slope (bytes per ps).
    window: Vec<Vec<(u64, u64, f64)>>,
    classes: usize,
    /// Pauses sent early (before PFC's XOFF), by prediction.
    pub predicted: u64,
}

impl PRule {
    /// Usage of ingress `at` extended by its slope over the horizon.
    fn predicted(&self, at: Ingress, usage: u64) -> u64 {
        let w = self.window[at.sw][at.port as usize * self.classes + at.priority as usize];
        let ahead = w.2 * self.horizon[at.sw][at.port as usize].0 as f64;
        (usage as f64 + ahead).max(0.0) as u64
    }
}

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

    fn validate(spec: &PPfcSpec) -> Result<(), ScenarioError> {
        for (name, value) in [("horizon", spec.horizon), ("slope_window", spec.slope_window)] {
            let Some(d) = value else { continue };
            let field = format!("switch.flow_control.{name}");
            check(d.0 > Delta::ZERO, &field, "expected a positive duration")?;
            check(
                spec.form == PPfcForm::Derivative,
                &field,
                format!("only the derivative form has a {name}; set form = \"derivative\" or drop it"),
            )?;
        }
        Ok(())
    }

    fn new(spec: &PPfcSpec, b: &FcBuild) -> Self {
        let derivative = spec.form == PPfcForm::Derivative;
        let horizon = |p: u32| {
            let h = spec.horizon.map_or_else(|| b.hop_rtt(p as usize).max(Delta::from_us(1)), |h| h.0);
            let w = spec.slope_window.map_or(Delta(h.0 / 8), |w| w.0);
            (h.0, w.0.max(1))
        };
        PRule {
            form: spec.form,
            horizon: if derivative {
                b.switches.iter().map(|&n| b.topo.ports_of(n).map(horizon).collect()).collect()
            } else {
                Vec::new()
            },
            window: if derivative {
                b.switches.iter().map(|&n| vec![(0, 0, 0.0); b.topo.ports_of(n).len() * b.classes]).collect()
            } else {
                Vec::new()
            },
            classes: b.classes,
            predicted: 0,
        }
    }

    fn describe(spec: &PPfcSpec, pfc: Option<&PfcConfig>) -> String {
        match spec.form {
            PPfcForm::OfcAverage => with_pfc_mode("ppfc (ofc average)", pfc),
            PPfcForm::Derivative => with_pfc_mode("ppfc (derivative)", pfc),
        }
    }

    fn pause_now(&mut self, cx: &FcCx, hop: &Hop, st: &PfcState, over: bool, _queue_bytes: u64) -> bool {
        match self.form {
            PPfcForm::OfcAverage => {
                if !over {
                    return false;
                }
                let node = cx.topo.ports[hop.egress.idx()].node;
                above_average(cx.ports, cx.topo.ports_of(node), hop.egress.idx(), hop.pkt.wire_bytes as u64)
            }
            PPfcForm::Derivative => {
                if over {
                    return true;
                }
                let at = Ingress { now: cx.now, sw: hop.sw, port: hop.local_in, priority: hop.pkt.priority };
                let usage = st.usage_of(at.port, at.priority);
                let early = self.predicted(at, usage) >= st.threshold_of(at.port, hop.buffer);
                self.predicted += early as u64;
                early
            }
        }
    }

    fn resume_now(&mut self, at: Ingress, st: &PfcState, buffer: u64, pfc_resumed: bool) -> bool {
        if self.form == PPfcForm::OfcAverage || !pfc_resumed {
            return pfc_resumed;
        }
        let usage = st.usage_of(at.port, at.priority);
        usage == 0 || self.predicted(at, usage) + st.resume_margin() <= st.threshold_of(at.port, buffer)
    }

    fn extra_counters(&self) -> Vec<(&'static str, u64)> {
        match self.form {
            PPfcForm::Derivative => vec![("ppfc_predicted_pauses", self.predicted)],
            PPfcForm::OfcAverage => Vec::new(),
        }
    }

    fn observe(&mut self, at: Ingress, st: &PfcState) {
        if self.form != PPfcForm::Derivative {
            return;
        }
        let window = self.horizon[at.sw][at.port as usize].1;
        let w = &mut self.window[at.sw][at.port as usize * self.classes + at.priority as usize];
        let (now, usage) = (at.now.0, st.usage_of(at.port, at.priority));
        if now >= w.0 + window {
            if w.0 > 0 || w.1 > 0 {
                w.2 = (usage as f64 - w.1 as f64) / (now - w.0) as f64;
            }
            *w = (now, usage, w.2);
        }
    }
}
