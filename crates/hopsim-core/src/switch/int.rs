//! In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM 2019, §3.2): each
//! switch egress appends (queue length, cumulative tx bytes, timestamp, link rate) to a
//! data packet; the receiver echoes the stack in its ACK, and the sender keeps the stack of
//! the last ACK per flow for its congestion control. Stacks live in a slab with a free
//! list (a packet carries its slot number), used only when INT is on.

use crate::ids::{FlowId, PortId};
use crate::packet::Packet;
use crate::sim::Simulator;
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
    /// A fresh, empty INT stack slot for a new data packet.
    pub(crate) fn alloc_int(&mut self) -> u32 {
        match self.int_free.pop() {
            Some(slot) => {
                self.int_stacks[slot as usize].hops = 0;
                slot
            }
            None => {
                self.int_stacks.push(IntStack::default());
                self.int_stacks.len() as u32 - 1
            }
        }
    }

    /// Append this egress port's telemetry to a departing data packet.
    pub(crate) fn push_int_hop(&mut self, port: PortId, pkt: &Packet) {
        let p = &self.ports[port.idx()];
        let hop =
            IntHop { queue_bytes: p.backlog_bytes, tx_bytes: p.stats.tx_bytes, time: self.now, rate: p.rate };
        let stack = &mut self.int_stacks[pkt.int as usize];
        if (stack.hops as usize) < INT_MAX_HOPS {
            stack.hop[stack.hops as usize] = hop;
            stack.hops += 1;
        }
    }

    /// The sender received an ACK carrying telemetry: keep it for the flow.
    pub(crate) fn take_ack_int(&mut self, pkt: &Packet) {
        if let Some(stack) = self.int_stacks.get(pkt.int as usize) {
            self.flow_int[pkt.flow.idx()] = *stack;
        }
    }

    /// Telemetry of the last ACK `flow`'s sender received (None when INT is off).
    pub fn last_ack_int(&self, flow: FlowId) -> Option<&IntStack> {
        self.flow_int.get(flow.idx())
    }
}
