//! In-band network telemetry (INT) at a switch egress, as HPCC uses it (Li et al.,
//! SIGCOMM 2019, §3.2): each departing data packet gets (queue length, cumulative tx
//! bytes, timestamp, link rate) appended to its stack (`fabric::int`); the receiver echoes
//! the stack in its ACK and the sender keeps the last one per flow. Runs with
//! `switch.int = true` or when a flow runs HPCC (`SwitchConfig::int_enabled`).

use super::hooks::{SignalBuild, SignalCx, SignalPolicy};
use crate::fabric::int::{IntHop, INT_MAX_HOPS};
use crate::ids::PortId;

/// INT at every switch egress.
#[derive(Clone, Copy, Debug, Default)]
pub struct Int;

impl SignalPolicy for Int {
    const NAME: &'static str = "int";
    const ON_DEPARTURE: bool = true;

    fn build(b: &mut SignalBuild) -> Option<Self> {
        b.switch.int_enabled.then_some(Int)
    }

    /// Append this egress port's telemetry to the departing data packet.
    #[inline(always)]
    fn on_departure(&mut self, cx: &mut SignalCx, port: PortId, slot: usize, queue_bytes: u64) {
        let p = &cx.ports[port.idx()];
        let hop = IntHop { queue_bytes, tx_bytes: p.stats.tx_bytes, time: cx.now, rate: p.rate };
        let stack = &mut cx.int_stacks[slot];
        if (stack.hops as usize) < INT_MAX_HOPS {
            stack.hop[stack.hops as usize] = hop;
            stack.hops += 1;
        }
    }
}
