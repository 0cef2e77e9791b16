//! The shape of a switch signal: a mechanism that reads or writes every data packet a
//! switch forwards on behalf of the hosts' congestion control, outside the switch's own
//! pipeline policies — in-band telemetry (INT) stamped at the egress, Bolt's notices sent
//! straight back to the sender. A signal runs only in runs that need it (it builds itself
//! or declines); several may run together.

use crate::fabric::headers::{HeaderLayout, Headers};
use crate::fabric::int::IntStack;
use crate::fabric::packet::Packet;
use crate::fabric::port::Port;
use crate::fabric::store::PacketStore;
use crate::host::TransportConfig;
use crate::ids::{NodeId, PortId};
use crate::scenario::Scenario;
use crate::time::SimTime;

/// What a signal's hook may use.
pub struct SignalCx<'a> {
    pub now: SimTime,
    pub ports: &'a [Port],
    pub store: &'a PacketStore,
    pub headers: &'a mut Headers,
    /// The INT stack of every packet slot (allocated when INT runs).
    pub int_stacks: &'a mut Vec<IntStack>,
}

/// What a signal is built from.
pub struct SignalBuild<'a> {
    pub scenario: &'a Scenario,
    pub transport: &'a TransportConfig,
    /// The switches' resolved settings (e.g. whether INT is on: `switch.int`, or a flow
    /// runs HPCC).
    pub switch: &'a crate::switch::SwitchConfig,
    /// Ports in the network.
    pub ports: usize,
    /// Where the signal registers the header fields it reads or writes.
    pub headers: &'a mut HeaderLayout,
}

/// A packet a signal sends from a switch, and where from.
pub struct Notice {
    pub packet: Packet,
    pub from: NodeId,
}

/// A switch signal.
pub trait SignalPolicy: Sized {
    /// Its name (for counters).
    const NAME: &'static str;
    /// Whether it acts on data packets arriving at a switch, and on data packets leaving one.
    const ON_ARRIVAL: bool = false;
    const ON_DEPARTURE: bool = false;

    /// The signal, if this run needs it.
    fn build(b: &mut SignalBuild) -> Option<Self>;

    /// Data packet `pkt` (slot `slot`) arrived at switch `sw` (node `node`) for `egress`.
    /// Returns a packet to send back from the switch, if any.
    fn on_arrival(
        &mut self,
        _cx: &mut SignalCx,
        _node: NodeId,
        _egress: PortId,
        _pkt: &Packet,
        _slot: usize,
    ) -> Option<Packet> {
        None
    }

    /// Data packet in slot `slot` leaves `port`, which reports `queue_bytes` queued.
    fn on_departure(&mut self, _cx: &mut SignalCx, _port: PortId, _slot: usize, _queue_bytes: u64) {}

    /// Its counters, by name.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}
