//! In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM 2019, §3.2): each
//! switch egress appends (queue length, cumulative tx bytes, timestamp, link rate) to a
//! data packet; the receiver echoes the stack in its ACK. Stacks live in a side table
//! indexed by packet slot, allocated only when INT is on.

use crate::ids::{PacketId, PortId};
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
    fn int_slot(&mut self, pkt: PacketId) -> &mut IntStack {
        if self.int_stacks.len() <= pkt.idx() {
            self.int_stacks.resize(pkt.idx() + 1, IntStack::default());
        }
        &mut self.int_stacks[pkt.idx()]
    }

    pub(crate) fn clear_int(&mut self, pkt: PacketId) {
        self.int_slot(pkt).hops = 0;
    }

    /// Append this egress port's telemetry to a departing data packet.
    pub(crate) fn push_int_hop(&mut self, port: PortId, pkt: PacketId) {
        let p = &self.ports[port.idx()];
        let hop = IntHop {
            queue_bytes: p.backlog_bytes,
            tx_bytes: p.stats.tx_bytes,
            time: self.now,
            rate: p.rate,
        };
        let stack = self.int_slot(pkt);
        if (stack.hops as usize) < INT_MAX_HOPS {
            stack.hop[stack.hops as usize] = hop;
            stack.hops += 1;
        }
    }

    /// Telemetry carried by a packet (empty when INT is off).
    pub fn int_of(&self, pkt: PacketId) -> Option<&IntStack> {
        self.int_stacks.get(pkt.idx())
    }
}
