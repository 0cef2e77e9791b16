//! `[[faults]]`: links that fail during the run.

use super::units::Duration;
use serde::{Deserialize, Serialize};

use crate::ids::PortId;
use crate::time::SimTime;

/// A link that goes down at `down` and, if `up` is given, comes back then.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    /// The two nodes the link joins.
    pub link: [u32; 2],
    /// Which of several parallel links between them, in topology order. Default 0.
    #[serde(default)]
    pub index: u32,
    pub down: Duration,
    #[serde(default)]
    pub up: Option<Duration>,
}

/// One `[[faults]]` entry, resolved to the link's two ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkFault {
    pub ports: [PortId; 2],
    pub down: SimTime,
    pub up: Option<SimTime>,
}
