//! The fabric: what every component of the network shares — the clock and the event
//! queue, the packet store and what travels beside a packet (control-frame payloads,
//! extension header fields, INT stacks), the ports with their links and egress queues,
//! the topology and its routes, run-wide counters and the observers that record what
//! happens.
//!
//! Components (switches, hosts) own their own state and act on the fabric through the
//! methods here: put a packet on a link, wake a port when it falls idle, free a packet
//! that left the network. They never reach each other except through the fabric, and the
//! simulator (`sim`) is the only place that knows them all.

pub mod ecn;
pub mod frames;
pub mod headers;
pub(crate) mod huge_pages;
pub mod int;
pub mod packet;
pub mod port;
pub(crate) mod prefetch;
pub mod queues;
pub mod store;
pub mod timers;
pub mod wires;

use crate::engine::{Event, EventQueue};
use crate::ids::PortId;
use crate::metrics::{Counters, DropCause};
use crate::observe::{Observers, PacketEvent};
use crate::time::SimTime;
use crate::topology::{Routing, Topology};

use self::headers::Headers;
use self::int::IntStack;
use self::packet::{Packet, PacketKind};
use self::port::{Port, Wire};
use self::store::{PacketRef, PacketStore};
use self::timers::PolicyTimers;

/// The shared substrate of a run.
pub struct Fabric {
    pub now: SimTime,
    pub events: EventQueue,
    /// Every packet in the network (on links and in queues), from creation to consumption.
    pub store: PacketStore,
    pub topo: Topology,
    pub routing: Routing,
    pub ports: Vec<Port>,
    /// Per node: its index among the switches or among the hosts.
    pub node_slot: Vec<u32>,
    pub counters: Counters,
    /// Extension header fields beside the slots (empty unless a mechanism registered some).
    pub headers: Headers,
    /// INT stack of each packet-store slot (empty unless INT is on).
    pub int_stacks: Vec<IntStack>,
    /// Generations of switch-port and policy timers.
    pub timers: PolicyTimers,
    /// Queuing delay, samplers and the packet trace.
    pub obs: Observers,
    /// Per flow: times a packet of it (data or ACK) was deflected by a switch.
    pub flow_deflections: Vec<u32>,
    /// Flows in the run.
    pub flows_total: u64,
    /// Packets sent onto links whose far end another partition of a parallel run
    /// simulates (ports marked [`Port::remote`]): (port, arrival, packet), in sending
    /// order; handed over at the end of each window (`sim::parallel`). Always empty in a
    /// sequential run.
    pub outbox: Vec<(PortId, SimTime, PacketRef)>,
    /// Links' packets in flight, kept only under scheduled ties (`wires`): otherwise each
    /// packet on a wire is its own pending `Deliver`.
    pub wires: Option<self::wires::Wires>,
    /// ECN marking profiles of switch ports, named by [`Port::red`] (0: never marks). A
    /// handful (one per port rate), so they stay in cache where a per-port copy cost a
    /// cache line per packet-hop at scale.
    pub red_profiles: Vec<crate::fabric::ecn::RedProfile>,
}

impl Fabric {
    /// The index among the switches of the switch `port` is on (`port` a switch's port).
    #[inline(always)]
    pub fn switch_of(&self, port: PortId) -> usize {
        self.node_slot[self.ports[port.idx()].node.idx()] as usize
    }

    /// A busy port has work waiting: make sure its `TxDone` is scheduled.
    #[inline]
    pub fn wake_when_idle(&mut self, port: PortId) {
        let p = &mut self.ports[port.idx()];
        if !p.txdone_pending {
            p.txdone_pending = true;
            self.events.schedule(p.busy_until, Event::TxDone { port });
        }
    }

    /// After starting a packet: schedule `TxDone` only if more is already waiting.
    #[inline(always)]
    pub fn wake_if_more_work(&mut self, port: PortId) {
        if self.ports[port.idx()].has_work() {
            self.wake_when_idle(port);
        }
    }

    /// A packet leaves the network (consumed at its destination or dropped): free its slot.
    #[inline]
    pub fn consume(&mut self, r: PacketRef) -> Packet {
        self.store.remove(r)
    }

    /// Serialize `pkt` on `port` (which must be idle) and schedule its arrival at the peer.
    #[inline(always)]
    pub fn start_tx(&mut self, port: PortId, pkt: PacketRef) {
        let wire = self.store.get(pkt).wire_bytes as u64;
        let p = &mut self.ports[port.idx()];
        debug_assert!(!p.is_busy(self.now), "port {} already transmitting", port.0);
        let tx_time = p.byte_time.tx_time(wire);
        let tx_end = self.now.after(tx_time);
        p.busy_until = tx_end;
        p.stats.tx_bytes += wire;
        p.stats.tx_packets += 1;
        p.stats.busy_time += tx_time;
        p.stats.first_tx.get_or_insert(self.now);
        p.stats.last_tx_end = tx_end;
        if let Some(trace) = &mut self.obs.packet_trace {
            trace.record(
                self.now,
                PacketEvent::Transmit,
                port,
                self.store.get(pkt),
                0,
                p.queues.backlog_bytes,
            );
        }
        let arrive = tx_end.after(p.arrival_delay);
        self.counters.packet_hops += 1;
        let (wire, peer) = (p.wire, p.peer);
        if wire != Wire::Events && !self.off_events(port, arrive, pkt) {
            return;
        }
        self.store.send_towards(pkt, peer);
        self.events.schedule(arrive, Event::Deliver { port, pkt });
    }

    /// A packet sent on a port whose wire is not plain events: into the outbox (another
    /// partition delivers it), or onto the link's list under scheduled ties. Returns
    /// whether its delivery is to be scheduled now (it is alone on the link). Out of line,
    /// so that other transmissions pay one test of the port's wire.
    #[cold]
    #[inline(never)]
    fn off_events(&mut self, port: PortId, arrive: SimTime, pkt: PacketRef) -> bool {
        if self.ports[port.idx()].wire == Wire::Remote {
            self.outbox.push((port, arrive, pkt));
            return false;
        }
        let alone = self.wires.as_mut().is_some_and(|w| w.push(port, arrive, pkt));
        if !alone {
            let peer = self.ports[port.idx()].peer;
            self.store.send_towards(pkt, peer);
        }
        alone
    }

    /// Under scheduled ties: the oldest packet on `port`'s wire arrived; schedule the
    /// next one's delivery, if any.
    #[cold]
    #[inline(never)]
    pub fn next_on_wire(&mut self, port: PortId) {
        if let Some((at, next)) = self.wires.as_mut().and_then(|w| w.pop(port)) {
            self.events.schedule(at, Event::Deliver { port, pkt: next });
        }
    }

    /// Packet `r` is lost outside a switch's admission (on a failed link): count it and
    /// free its slot. (A control frame's payload is its flow control's to free first.)
    pub fn lose(&mut self, r: PacketRef, cause: DropCause) {
        match self.store.get(r).kind {
            PacketKind::Data => self.counters.drops.add(cause),
            _ => self.counters.control_drops += 1,
        }
        self.consume(r);
    }

    /// Whether `node` is a host.
    #[inline]
    pub fn is_host(&self, node: crate::ids::NodeId) -> bool {
        self.topo.is_host(node)
    }
}
