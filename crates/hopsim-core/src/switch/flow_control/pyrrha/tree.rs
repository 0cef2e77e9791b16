//! What Pyrrha's state looks like from outside: isolation-queue usage per port over time
//! (§4.5, Fig 7) and snapshots of the congestion trees — every root, the ports holding
//! IQs for it with their state and level, and the hosts told to stop its traffic — so the
//! trees can be drawn on the topology at chosen instants.

use crate::ids::PortId;
use crate::time::{Delta, SimTime};

/// The number of physical isolation queues of a port changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IqUsageRecord {
    pub time: SimTime,
    pub port: PortId,
    /// Physical IQs in use after the change.
    pub iqs: u32,
}

/// A port's part in a congestion tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeRole {
    /// The root itself (an egress port that paused upstreams because its OQ grew).
    Root,
    /// An egress port holding an isolation queue for the root.
    Isolation,
    /// A host NIC told to stop the root's traffic.
    Host,
}

impl TreeRole {
    pub fn name(self) -> &'static str {
        match self {
            TreeRole::Root => "root",
            TreeRole::Isolation => "iq",
            TreeRole::Host => "host",
        }
    }
}

/// One port of one congestion tree at a snapshot instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeRecord {
    pub time: SimTime,
    pub root: PortId,
    pub port: PortId,
    pub role: TreeRole,
    /// `paused`, `resumed` or `merging` (an IQ), `root` (the root), `paused` (a host).
    pub state: &'static str,
    /// Hops from the port to the root (0 for the root).
    pub hop: u8,
    /// Bytes queued for the root's traffic there (the root: its OQ; an IQ: its queue).
    pub bytes: u64,
    /// Upstreams the port holds paused for the root.
    pub paused_children: u32,
}

/// `[output.congestion_trees]`: the instants still to snapshot and the records so far.
#[derive(Clone, Debug, Default)]
pub struct TreeSnapshots {
    /// Instants not reached yet, latest first.
    pub at: Vec<SimTime>,
    pub interval: Option<Delta>,
    /// When the periodic snapshot fires next.
    pub next_periodic: Option<SimTime>,
    pub records: Vec<TreeRecord>,
}
