//! Pyrrha's table, `[switch.flow_control]` with `kind = "pyrrha"`, and its checks.

use serde::{Deserialize, Serialize};

use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::{one_f64, two_f64, yes};

/// Pyrrha parameters (`kind = "pyrrha"`). Defaults from Pyrrha §6 "Parameters": K_pause 2,
/// K_resume 1 (one-hop BDPs), at most 100 IQs per port; merging on (§4.1); hierarchical
/// IQs (§4.3).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
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
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IsolationQueues {
    /// Levels by distance to the root (§4.3).
    #[default]
    Hierarchical,
    /// One queue per set of roots, order marks keep flows in order (Appendix C).
    SingleTier,
}

impl PyrrhaSpec {
    /// Check the table; errors name the field.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        check(
            self.k_pause.is_finite() && self.k_pause > 0.0,
            "switch.flow_control.k_pause",
            format!("expected a positive number of one-hop BDPs, got {}", self.k_pause),
        )?;
        check(
            self.k_resume.is_finite() && self.k_resume >= 0.0 && self.k_resume <= self.k_pause,
            "switch.flow_control.k_resume",
            format!(
                "expected a number of one-hop BDPs in [0, k_pause = {}], got {}",
                self.k_pause, self.k_resume
            ),
        )?;
        check(
            (1..=4096).contains(&self.iq_limit),
            "switch.flow_control.iq_limit",
            format!("expected 1 to 4096 isolation queues per port, got {}", self.iq_limit),
        )
    }
}
