//! In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM 2019, §3.2): each
//! switch egress appends (queue length, cumulative tx bytes, timestamp, link rate) to a
//! data packet; the receiver echoes the stack in its ACK, and the sender keeps the stack of
//! the last ACK per flow for its congestion control. A packet's stack lives beside it, at
//! its packet-store slot's number (an ACK takes over its data packet's slot, stack
//! included), in a table used only when INT is on.

use crate::ids::{FlowId, PortId};
use crate::sim::Simulator;
use crate::store::PacketRef;
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

impl Simulator {
    /// Give the new data packet in slot `r` an empty INT stack.
    pub(crate) fn clear_int(&mut self, r: PacketRef) {
        if self.int_stacks.len() <= r.index() {
            self.int_stacks.resize(r.index() + 1, IntStack::default());
        }
        self.int_stacks[r.index()].hops = 0;
    }

    /// Append this egress port's telemetry to the departing data packet in slot `r`.
    pub(crate) fn push_int_hop(&mut self, port: PortId, r: PacketRef) {
        let p = &self.ports[port.idx()];
        let queue_bytes = if self.ext.is_enabled() {
            self.fc.int_queue_bytes(p, self.ext.get(r.index()).fc_mark)
        } else {
            p.backlog_bytes()
        };
        let hop = IntHop { queue_bytes, tx_bytes: p.stats.tx_bytes, time: self.now, rate: p.rate };
        let stack = &mut self.int_stacks[r.index()];
        if (stack.hops as usize) < INT_MAX_HOPS {
            stack.hop[stack.hops as usize] = hop;
            stack.hops += 1;
        }
    }

    /// The sender received an ACK (slot `r`) carrying telemetry: keep it for `flow`.
    pub(crate) fn take_ack_int(&mut self, r: PacketRef, flow: FlowId) {
        self.flow_int[flow.idx()] = self.int_stacks[r.index()];
    }

    /// Telemetry of the last ACK `flow`'s sender received (None when INT is off).
    pub fn last_ack_int(&self, flow: FlowId) -> Option<&IntStack> {
        self.flow_int.get(flow.idx())
    }
}
