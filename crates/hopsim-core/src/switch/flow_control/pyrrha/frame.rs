//! Pyrrha's control frames (§4.4): PAUSE, RESUME, MERGE and UNASSIGN about a congestion
//! root.

use super::types::RootId;
use crate::fabric::frames::Frame;

/// The four signals of Pyrrha's control frames (§4.1, §4.3, §4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootSignal {
    /// Stop the traffic that crosses the root.
    Pause,
    /// Restart it.
    Resume,
    /// The root replaces the false-positive root `old_root`: its isolation queues soft-merge.
    Merge,
    /// The sender's isolation queue for the root was unassigned: it is no longer a child in
    /// the root's congestion tree (what lets a tree dissolve from its leaves, §4.3).
    Unassign,
}

/// A Pyrrha frame: a signal about congestion root `root` (a switch egress port, by global
/// port id) `hop` hops downstream of the receiving port. A MERGE also names the
/// false-positive root `old_root` it replaces (§4.1). Two `switch:port` root ids and a hop
/// count fit a minimum Ethernet frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PyrrhaFrame {
    pub signal: RootSignal,
    pub root: RootId,
    pub old_root: RootId,
    pub hop: u8,
}

impl Frame for PyrrhaFrame {
    const KINDS: &'static [&'static str] =
        &["pyrrha_pause", "pyrrha_resume", "pyrrha_merge", "pyrrha_unassign"];
    fn kind(&self) -> usize {
        self.signal as usize
    }
    fn pauses(&self) -> Option<bool> {
        match self.signal {
            RootSignal::Pause => Some(true),
            RootSignal::Resume => Some(false),
            RootSignal::Merge | RootSignal::Unassign => None,
        }
    }
    fn subject(&self) -> u32 {
        self.root
    }
    /// A MERGE ends the pause of the false-positive root it replaces: the receiver's IQ
    /// for it soft-merges into the new root's, which it learns resumed (§4.1).
    fn resumes(&self) -> Option<u32> {
        match self.signal {
            RootSignal::Resume => Some(self.root),
            RootSignal::Merge => Some(self.old_root),
            RootSignal::Pause | RootSignal::Unassign => None,
        }
    }
}
