//! Where a run's memory goes: the bytes held by the packet store, events, flows, ports and
//! routing, for the "bytes per in-flight packet / per flow" figures of the benchmarks.
//! Capacities are counted (what is allocated), not lengths: the packet store keeps the
//! slots of its busiest moment.

use std::mem::size_of;

use super::Simulator;

/// Allocated bytes by component.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemoryReport {
    /// The packet store (every packet on a link or in a queue, one slot each).
    pub packet_store_bytes: u64,
    /// Port structs themselves.
    pub port_bytes: u64,
    /// Flow state, including IRN bitmaps.
    pub flow_bytes: u64,
    /// The calendar event queue.
    pub event_bytes: u64,
    /// ECMP table.
    pub routing_bytes: u64,
    /// INT stacks (HPCC only).
    pub int_bytes: u64,
    /// Most packets ever in the network at once.
    pub peak_packets_in_flight: u64,
    pub flows: u64,
}

impl MemoryReport {
    /// Packet-store bytes per packet at the peak (the store keeps its peak size).
    pub fn bytes_per_packet_in_flight(&self) -> f64 {
        self.packet_store_bytes as f64 / self.peak_packets_in_flight.max(1) as f64
    }
    pub fn bytes_per_flow(&self) -> f64 {
        self.flow_bytes as f64 / self.flows.max(1) as f64
    }
}

impl Simulator {
    /// What the run allocated; a parallel run's replicas summed (each partition holds a
    /// copy of the network, with data queues only for its own ports), and its peak of
    /// packets in flight the sum of the partitions' peaks (an upper bound of the run's).
    pub fn memory_report(&self) -> MemoryReport {
        let mut total = self.replica_memory();
        for other in self.parallel_replicas() {
            let m = other.replica_memory();
            total.packet_store_bytes += m.packet_store_bytes;
            total.port_bytes += m.port_bytes;
            total.flow_bytes += m.flow_bytes;
            total.event_bytes += m.event_bytes;
            total.routing_bytes += m.routing_bytes;
            total.int_bytes += m.int_bytes;
            total.peak_packets_in_flight += m.peak_packets_in_flight;
        }
        total
    }

    fn replica_memory(&self) -> MemoryReport {
        let flow_bytes = (self.hosts.core.flows.capacity() * size_of::<crate::host::Flow>()) as u64
            + self.hosts.transport.state_bytes();
        MemoryReport {
            packet_store_bytes: self.fab.store.allocated_bytes(),
            port_bytes: (self.fab.ports.capacity() * size_of::<crate::fabric::port::Port>()) as u64,
            flow_bytes,
            event_bytes: self.fab.events.allocated_bytes(),
            routing_bytes: self.fab.routing.table.allocated_bytes(),
            int_bytes: (self.fab.int_stacks.capacity() * size_of::<crate::fabric::int::IntStack>()) as u64,
            peak_packets_in_flight: self.fab.store.peak(),
            flows: self.hosts.core.flows.len() as u64,
        }
    }
}
