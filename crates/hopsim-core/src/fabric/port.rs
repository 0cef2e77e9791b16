//! A port: the transmitting end of one link direction, with its egress queues.
//!
//! Every port has a strict-priority control queue (control frames, CNPs and, unless
//! `switch.ack_queue = "data"`, ACKs / NACKs: never paused, not buffer-accounted) and
//! data queues ([`EgressQueues`]), each of which can be paused on its own by the
//! downstream node's flow control. A host's port has no data queues of its own: the NIC
//! pulls data from its flows (see `host`).

use crate::fabric::queues::EgressQueues;
use crate::fabric::store::PacketList;
use crate::ids::{NodeId, PortId};
use crate::time::{ByteTime, Delta, Rate, Serialization, SimTime};

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
    /// PAUSE / RESUME frames (of any flow-control kind) this port's node sent *out of*
    /// this port (to the upstream).
    pub pause_sent: u64,
    pub resume_sent: u64,
    /// PAUSE frames this port received (it was told to stop sending).
    pub pause_received: u64,
    /// Packets that admission deflected away from this port (it could not take them).
    pub deflections: u64,
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

/// What a port does with a packet it sends ([`Fabric::start_tx`](crate::fabric::Fabric::start_tx)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Wire {
    /// Its delivery is scheduled at once: one pending `Deliver` per packet on the wire.
    #[default]
    Events,
    /// The far end is simulated by another partition of a parallel run: the packet leaves
    /// through the fabric's outbox.
    Remote,
    /// Under scheduled ties: the link keeps its packets in flight and one pending delivery
    /// (`fabric::wires`).
    Listed,
}

/// The transmitter of one link direction.
///
/// `repr(C)` with the fields a packet-hop touches first: line 1 holds timing, the link, the
/// control queue and the start of the data queues' state, line 2 the rest of it (backlog,
/// eligibility bitmaps, list), the transmitter's flags and its largest backlog, lines 3–4
/// the transmission counters and the ECN profile. A k=16 fat-tree has 6,144 ports, so their
/// hot part must stay small to stay in cache; ports start on a cache-line boundary.
#[repr(C, align(64))]
pub struct Port {
    /// End of the packet being serialized (the port is busy before this time).
    pub busy_until: SimTime,
    /// Propagation delay plus the receiving switch's pipeline latency.
    pub arrival_delay: Delta,
    pub byte_time: ByteTime,
    pub node: NodeId,
    /// The port at the other end of the link.
    pub peer: PortId,
    pub control_queue: PacketList,
    /// The data queues (a host port has none: its NIC pulls from its flows) and, per
    /// traffic class, whether the downstream node paused it.
    pub queues: EgressQueues,
    /// A `TxDone` event is scheduled at `busy_until`. It is scheduled only when work is
    /// waiting, so a port that sends one packet and falls idle costs no extra event.
    pub txdone_pending: bool,
    /// The link is down (`[[faults]]`): nothing is sent or queued here.
    pub down: bool,
    /// What becomes of a packet sent here: a pending delivery (nearly always), the
    /// fabric's outbox, or a link's list.
    pub wire: Wire,
    /// ECN marking profile for this port's rate: an index into
    /// [`Fabric::red_profiles`](crate::fabric::Fabric::red_profiles); 0 (never marks) on
    /// host ports and with ECN off.
    pub red: u16,
    /// `stats.max_queue_bytes` (saturating at 2^32 - 1 bytes, more than a switch's buffer):
    /// a backlog not above it cannot raise the maximum, so it need not touch the counters'
    /// line (which a packet passing straight through an idle port reached on every hop
    /// when this was kept in KiB: its backlog was in the peak's KiB).
    pub peak: u32,
    pub stats: PortStats,
    pub rate: Rate,
}

impl Port {
    pub fn new(
        node: NodeId,
        peer: PortId,
        rate: Rate,
        arrival_delay: Delta,
        data_queues: usize,
        classes: usize,
        serialization: Serialization,
    ) -> Port {
        Port {
            node,
            peer,
            rate,
            byte_time: ByteTime::with(rate, serialization),
            arrival_delay,
            busy_until: SimTime::ZERO,
            txdone_pending: false,
            down: false,
            wire: Wire::Events,
            red: 0,
            peak: 0,
            control_queue: PacketList::default(),
            queues: EgressQueues::new(data_queues, classes),
            stats: PortStats::default(),
        }
    }

    /// Bytes in all data queues.
    #[inline]
    pub fn backlog_bytes(&self) -> u64 {
        self.queues.backlog_bytes
    }

    /// Serializing a packet at `now`.
    #[inline]
    pub fn is_busy(&self, now: SimTime) -> bool {
        self.busy_until > now
    }

    /// Something is queued that this port could send now (control frames, or an
    /// eligible data queue).
    #[inline]
    pub fn has_work(&self) -> bool {
        !self.control_queue.is_empty() || self.queues.has_eligible()
    }

    /// The backlog after an enqueue: raise the largest seen if it is larger, reading the
    /// counters' line only then.
    #[inline(always)]
    pub fn note_backlog(&mut self) {
        self.note_backlog_of(self.queues.backlog_bytes);
    }

    /// As [`note_backlog`](Self::note_backlog) for a backlog of `backlog` bytes (a packet
    /// that passes an empty queue straight to the wire was, for that instant, its backlog).
    #[inline(always)]
    pub fn note_backlog_of(&mut self, backlog: u64) {
        if backlog > self.peak as u64 {
            let max = self.stats.max_queue_bytes.max(backlog);
            self.stats.max_queue_bytes = max;
            self.peak = max.min(u32::MAX as u64) as u32;
        }
    }

    /// Close the paused-time account at the end of a run.
    pub fn paused_time_until(&self, now: SimTime) -> Delta {
        self.queues.paused_time_until(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest backlog is exact whatever the order of rises and falls, including
    /// backlogs equal to the peak, just above it, and beyond the cached peak's range.
    #[test]
    fn the_largest_backlog_is_exact_with_the_cached_peak() {
        for largest in [200u64 << 20, 6 << 30] {
            let mut p = Port::new(NodeId(0), PortId(1), Rate(1), Delta::ZERO, 1, 1, Serialization::default());
            let mut want = 0u64;
            let mut x = 12_345u64;
            for _ in 0..10_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let backlog = match x >> 62 {
                    0 => (x >> 20) % 3_000,
                    1 => want.saturating_sub((x >> 20) % 700),
                    2 => want + (x >> 20) % 5,
                    _ => (x >> 20) % largest,
                };
                p.queues.backlog_bytes = backlog;
                p.note_backlog();
                want = want.max(backlog);
                assert_eq!(p.stats.max_queue_bytes, want, "after a backlog of {backlog}");
            }
        }
    }

    /// The fields of a packet-hop fill the first three cache lines of a port (a fourth
    /// holds the counters frames and deflections update).
    #[test]
    fn hot_port_fields_stay_in_three_cache_lines() {
        use std::mem::offset_of;
        assert_eq!(offset_of!(Port, queues), 56, "timing, link and control queue in line 1");
        assert!(offset_of!(Port, peak) + 4 <= 128, "queue state, flags, RED profile, peak in line 2");
        assert!(offset_of!(Port, stats) + offset_of!(PortStats, max_queue_bytes) + 8 <= 192);
        assert_eq!(std::mem::size_of::<Port>(), 256, "four cache lines");
    }
}
