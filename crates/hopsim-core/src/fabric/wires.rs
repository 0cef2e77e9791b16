//! Links' packets in flight, kept only when simultaneous events fire in the order they were
//! scheduled (`engine.tie_order = "scheduled"`: `compat = "ns3"`, and the settings that
//! reproduce hopsim 0.1).
//!
//! A packet on a wire is normally its own `Deliver` event, scheduled when it starts
//! serializing. Under scheduled ties the moment an event is scheduled is part of the results,
//! and hopsim scheduled deliveries until 2026-12 one link at a time: a link's first packet
//! when it was sent, each next one when the packet before it arrived (htsim's rule, one
//! pending delivery per link). Runs under scheduled ties keep that order, so their results
//! (and hopsim 0.1's) stay what they were; runs under shuffled ties, whose order does not
//! depend on scheduling, never build this.

use std::collections::VecDeque;

use crate::fabric::store::PacketRef;
use crate::ids::PortId;
use crate::time::SimTime;

/// Per sending port: its packets in flight, oldest first, with their arrival times.
pub struct Wires {
    links: Vec<VecDeque<(SimTime, PacketRef)>>,
}

impl Wires {
    pub fn new(ports: usize) -> Wires {
        Wires { links: (0..ports).map(|_| VecDeque::new()).collect() }
    }

    /// `pkt` leaves `port`, arriving at `arrive`. Returns whether it is alone on the wire
    /// (its delivery is then scheduled now; otherwise when the packet before it arrives).
    pub fn push(&mut self, port: PortId, arrive: SimTime, pkt: PacketRef) -> bool {
        let link = &mut self.links[port.idx()];
        link.push_back((arrive, pkt));
        link.len() == 1
    }

    /// The oldest packet on `port`'s wire arrived: the next one and its arrival, whose
    /// delivery is scheduled now, if any.
    pub fn pop(&mut self, port: PortId) -> Option<(SimTime, PacketRef)> {
        let link = &mut self.links[port.idx()];
        let arrived = link.pop_front();
        debug_assert!(arrived.is_some(), "a delivery on a wire with no packet");
        link.front().copied()
    }

    /// The packets on `port`'s wire, oldest first.
    pub fn on_wire(&self, port: PortId) -> impl Iterator<Item = PacketRef> + '_ {
        self.links[port.idx()].iter().map(|&(_, pkt)| pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_delivers_in_order_and_names_each_next_packet() {
        let mut w = Wires::new(2);
        let (a, b, c) = (PacketRef::from_index(7), PacketRef::from_index(3), PacketRef::from_index(9));
        assert!(w.push(PortId(1), SimTime(10), a), "alone: scheduled now");
        assert!(!w.push(PortId(1), SimTime(20), b));
        assert!(!w.push(PortId(1), SimTime(30), c));
        assert!(w.push(PortId(0), SimTime(15), c), "another link");
        assert_eq!(w.on_wire(PortId(1)).collect::<Vec<_>>(), vec![a, b, c]);
        assert_eq!(w.pop(PortId(1)), Some((SimTime(20), b)));
        assert_eq!(w.pop(PortId(1)), Some((SimTime(30), c)));
        assert_eq!(w.pop(PortId(1)), None);
        assert!(w.push(PortId(1), SimTime(40), a), "alone again");
    }
}
