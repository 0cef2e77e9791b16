//! A port: the transmitting end of one link direction, with its egress queues.
//!
//! Every port has a strict-priority control queue (ACK / NACK / CNP / PFC frames, never
//! paused, not buffer-accounted) and `Q` data queues served round-robin, each of which
//! can be paused on its own by the downstream node's flow control. A host's port has no
//! data queues of its own: the NIC pulls data from its flows (see `host`).

use crate::ids::{NodeId, PortId};
use crate::store::{PacketList, PacketRef, PacketStore};
use crate::time::{ByteTime, Delta, Rate, SimTime};

/// Counters of one port, reported per port after the run. Laid out (`repr(C)`) with the
/// counters every transmission updates first, so they share one cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct PortStats {
    pub tx_bytes: u64,
    pub tx_packets: u64,
    /// Time spent serializing packets.
    pub busy_time: Delta,
    /// End of the last transmission and start of the first one.
    pub last_tx_end: SimTime,
    pub first_tx: Option<SimTime>,
    /// Largest egress backlog seen (bytes in all data queues).
    pub max_queue_bytes: u64,
    /// PAUSE / RESUME frames this port's node sent *out of* this port (to the upstream).
    pub pause_sent: u64,
    pub resume_sent: u64,
    /// PAUSE frames this port received (it was told to stop sending).
    pub pause_received: u64,
    /// Total time during which at least one data queue of this port was paused.
    pub paused_time: Delta,
}

impl PortStats {
    /// Fraction of time the link was busy between its first and last transmission.
    pub fn utilisation_while_active(&self) -> f64 {
        match self.first_tx {
            Some(first) if self.last_tx_end > first => {
                self.busy_time.0 as f64 / (self.last_tx_end - first).0 as f64
            }
            _ => 0.0,
        }
    }
}

/// One FIFO data queue of a port.
#[derive(Clone, Debug, Default)]
pub struct DataQueue {
    /// The queued packets (slots of the [`PacketStore`]).
    pub packets: PacketList,
    /// Wire bytes of the packets queued.
    pub bytes: u64,
}

/// The transmitter of one link direction.
///
/// `repr(C)` with the fields a packet-hop touches first: line 1 holds timing, backlog and
/// eligibility, line 2 the link, control and data queue lists, lines 2–3 the transmission
/// counters, line 4 the ECN profile; pause bookkeeping and the rate come last. A k=16 fat-tree has
/// 6,144 ports, so their hot part must stay small to stay in cache; ports start on a
/// cache-line boundary.
#[repr(C, align(64))]
pub struct Port {
    /// End of the packet being serialized (the port is busy before this time).
    pub busy_until: SimTime,
    /// Propagation delay plus the receiving switch's pipeline latency.
    pub arrival_delay: Delta,
    pub byte_time: ByteTime,
    /// Sum of the data queues' bytes.
    pub backlog_bytes: u64,
    /// Bit q: data queue q is non-empty / paused (ports with ≤ 64 queues); a queue is
    /// eligible to send when non-empty and not paused.
    nonempty: u64,
    paused_mask: u64,
    pub node: NodeId,
    /// The port at the other end of the link.
    pub peer: PortId,
    /// Packets on the wire towards the peer, oldest first (each slot holds its arrival time).
    pub in_flight: PacketList,
    pub control_queue: PacketList,
    /// Data queues with their byte counts side by side (one cache line per queue head).
    pub queues: Vec<DataQueue>,
    /// Round-robin pointer over data queues.
    pub rr_next: u16,
    /// A `TxDone` event is scheduled at `busy_until`. It is scheduled only when work is
    /// waiting, so a port that sends one packet and falls idle costs no extra event.
    pub txdone_pending: bool,
    pub stats: PortStats,
    /// ECN marking thresholds for this port's rate (switch ports only).
    pub ecn: Option<crate::switch::RedProfile>,
    pub rate: Rate,
    /// Per priority: paused by the downstream node.
    pub paused: Vec<bool>,
    paused_count: u32,
    paused_since: SimTime,
}

impl Port {
    pub fn new(
        node: NodeId,
        peer: PortId,
        rate: Rate,
        arrival_delay: Delta,
        data_queues: usize,
        classes: usize,
    ) -> Port {
        Port {
            node,
            peer,
            rate,
            byte_time: ByteTime::new(rate),
            arrival_delay,
            busy_until: SimTime::ZERO,
            txdone_pending: false,
            in_flight: PacketList::default(),
            control_queue: PacketList::default(),
            queues: (0..data_queues).map(|_| DataQueue::default()).collect(),
            backlog_bytes: 0,
            paused: vec![false; classes],
            nonempty: 0,
            paused_mask: 0,
            paused_count: 0,
            paused_since: SimTime::ZERO,
            rr_next: 0,
            stats: PortStats::default(),
            ecn: None,
        }
    }

    /// Append stored packet `pkt` to data queue `queue`.
    #[inline]
    pub fn enqueue(&mut self, store: &mut PacketStore, queue: usize, pkt: PacketRef) {
        let wire = store.get(pkt).wire_bytes as u64;
        let q = &mut self.queues[queue];
        q.bytes += wire;
        store.push_back(&mut q.packets, pkt);
        self.backlog_bytes += wire;
        if queue < 64 {
            self.nonempty |= 1 << queue;
        }
    }

    /// Take the head of data queue `queue`.
    #[inline]
    pub fn dequeue(&mut self, store: &mut PacketStore, queue: usize) -> Option<PacketRef> {
        let q = &mut self.queues[queue];
        let pkt = store.pop_front(&mut q.packets)?;
        let wire = store.get(pkt).wire_bytes as u64;
        q.bytes -= wire;
        self.backlog_bytes -= wire;
        if q.packets.is_empty() && queue < 64 {
            self.nonempty &= !(1 << queue);
        }
        Some(pkt)
    }

    /// Bytes in data queue `queue`.
    #[inline]
    pub fn queue_bytes(&self, queue: usize) -> u64 {
        self.queues[queue].bytes
    }

    /// Serializing a packet at `now`.
    #[inline]
    pub fn is_busy(&self, now: SimTime) -> bool {
        self.busy_until > now
    }

    /// Something is queued that this port could send now (control frames, or an
    /// unpaused non-empty data queue).
    #[inline]
    pub fn has_work(&self) -> bool {
        !self.control_queue.is_empty() || self.next_data_queue().is_some()
    }

    /// Pause or resume data queue `queue`; returns whether the state changed.
    pub fn set_paused(&mut self, queue: usize, pause: bool, now: SimTime) -> bool {
        if self.paused[queue] == pause {
            return false;
        }
        self.paused[queue] = pause;
        if queue < 64 {
            if pause {
                self.paused_mask |= 1 << queue;
            } else {
                self.paused_mask &= !(1 << queue);
            }
        }
        if pause {
            if self.paused_count == 0 {
                self.paused_since = now;
            }
            self.paused_count += 1;
        } else {
            self.paused_count -= 1;
            if self.paused_count == 0 {
                self.stats.paused_time += now.since(self.paused_since);
            }
        }
        true
    }

    /// Close the paused-time account at the end of a run.
    pub fn paused_time_until(&self, now: SimTime) -> Delta {
        let mut t = self.stats.paused_time;
        if self.paused_count > 0 {
            t += now.since(self.paused_since);
        }
        t
    }

    pub fn any_paused(&self) -> bool {
        self.paused_count > 0
    }

    /// Next eligible data queue (round-robin from `rr_next`, skipping empty and paused
    /// queues). Ports with ≤ 64 queues use a bitmask; larger ones scan.
    #[inline]
    pub fn next_data_queue(&self) -> Option<usize> {
        let n = self.queues.len();
        let start = self.rr_next as usize;
        if n <= 64 {
            let eligible = self.nonempty & !self.paused_mask;
            if eligible == 0 {
                return None;
            }
            let from_start = eligible & (!0u64 << start);
            let bits = if from_start != 0 { from_start } else { eligible };
            return Some(bits.trailing_zeros() as usize);
        }
        let ready = |q: &usize| !self.paused[*q] && !self.queues[*q].packets.is_empty();
        (start..n).find(ready).or_else(|| (0..start).find(ready))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::test_packet;

    /// The fields of a packet-hop fill the first four cache lines of a port.
    #[test]
    fn hot_port_fields_stay_in_four_cache_lines() {
        use std::mem::offset_of;
        assert_eq!(offset_of!(Port, in_flight), 64);
        assert!(offset_of!(Port, txdone_pending) < 128);
        assert!(offset_of!(Port, stats) + offset_of!(PortStats, max_queue_bytes) + 8 <= 192);
        assert!(offset_of!(Port, ecn) + std::mem::size_of::<Option<crate::switch::RedProfile>>() <= 256);
    }

    /// Round-robin over non-empty, unpaused queues, for the bitmask (≤ 64 queues) and the
    /// scanning (> 64 queues) paths alike.
    #[test]
    fn round_robin_skips_empty_and_paused_queues() {
        for queues in [8usize, 128] {
            let mut p = Port::new(NodeId(0), PortId(1), Rate::gbps(100), Delta::ZERO, queues, queues);
            let mut store = PacketStore::new();
            assert_eq!(p.next_data_queue(), None);
            for q in [1, 3, 6] {
                let r = store.insert(test_packet(q as u64));
                p.enqueue(&mut store, q, r);
            }
            p.rr_next = 2;
            assert_eq!(p.next_data_queue(), Some(3));
            p.set_paused(3, true, SimTime::ZERO);
            assert_eq!(p.next_data_queue(), Some(6));
            p.rr_next = 7;
            assert_eq!(p.next_data_queue(), Some(1), "wraps around");
            p.dequeue(&mut store, 1);
            p.dequeue(&mut store, 6);
            assert_eq!(p.next_data_queue(), None, "only the paused queue holds packets");
            p.set_paused(3, false, SimTime(5));
            assert_eq!(p.next_data_queue(), Some(3));
            assert_eq!(p.stats.paused_time, Delta(5));
        }
    }
}
