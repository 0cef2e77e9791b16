//! In-band network telemetry (INT) at a switch egress, as HPCC uses it (Li et al.,
//! SIGCOMM 2019, §3.2): each departing data packet gets (queue length, cumulative tx
//! bytes, timestamp, link rate) appended to its stack (`fabric::int`); the receiver echoes
//! the stack in its ACK and the sender keeps the last one per flow.

use super::Switches;
use crate::fabric::int::{IntHop, INT_MAX_HOPS};
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::PortId;

impl Switches {
    /// Append this egress port's telemetry to the departing data packet in slot `r`.
    pub(crate) fn push_int_hop(&mut self, fab: &mut Fabric, port: PortId, r: PacketRef) {
        let p = &fab.ports[port.idx()];
        let queue_bytes = if fab.headers.is_enabled() {
            self.fc.int_queue_bytes(p, r.index(), &fab.headers)
        } else {
            p.backlog_bytes()
        };
        let hop = IntHop { queue_bytes, tx_bytes: p.stats.tx_bytes, time: fab.now, rate: p.rate };
        let stack = &mut fab.int_stacks[r.index()];
        if (stack.hops as usize) < INT_MAX_HOPS {
            stack.hop[stack.hops as usize] = hop;
            stack.hops += 1;
        }
    }
}
