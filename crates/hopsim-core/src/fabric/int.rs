//! In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM 2019, §3.2): the
//! per-hop record a switch egress appends to a data packet and the stack a packet carries.
//! A packet's stack lives beside it, at its packet-store slot's number (an ACK takes over
//! its data packet's slot, stack included), in a table used only when INT is on.

use crate::time::{Rate, SimTime};

/// Hops recorded at most (HPCC's `maxHop`).
pub const INT_MAX_HOPS: usize = 5;

/// One hop's telemetry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    /// Bytes queued at the egress port when the packet left.
    pub queue_bytes: u64,
    /// Bytes the port had transmitted before this packet.
    pub tx_bytes: u64,
    pub time: SimTime,
    pub rate: Rate,
}

/// The telemetry a packet carries.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntStack {
    pub hops: u8,
    pub hop: [IntHop; INT_MAX_HOPS],
}

impl super::Fabric {
    /// Give the new data packet in slot `r` an empty INT stack.
    pub fn clear_int(&mut self, r: crate::fabric::store::PacketRef) {
        if self.int_stacks.len() <= r.index() {
            self.int_stacks.resize(r.index() + 1, IntStack::default());
        }
        self.int_stacks[r.index()].hops = 0;
    }
}
