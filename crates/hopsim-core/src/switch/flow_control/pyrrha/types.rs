//! Pyrrha's identifiers, shared by its parts.

/// A congestion root: a switch egress port, by global port id (the paper's `switch:port`).
pub type RootId = u32;
