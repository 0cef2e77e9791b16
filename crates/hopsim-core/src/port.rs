//! A port: the transmitting end of one link direction, with its egress queues.
//!
//! Every port has a strict-priority control queue (ACK / NACK / CNP / PFC frames, never
//! paused, not buffer-accounted) and `Q` data queues served round-robin, each of which
//! can be paused on its own by the downstream node's flow control. A host's port has no
//! data queues of its own: the NIC pulls data from its flows (see `host`).

use std::collections::VecDeque;

use crate::ids::{NodeId, PortId};
use crate::packet::Packet;
use crate::time::{ByteTime, Delta, Rate, SimTime};

/// Counters of one port, reported per port after the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct PortStats {
    pub tx_bytes: u64,
    pub tx_packets: u64,
    /// PAUSE / RESUME frames this port's node sent *out of* this port (to the upstream).
    pub pause_sent: u64,
    pub resume_sent: u64,
    /// PAUSE frames this port received (it was told to stop sending).
    pub pause_received: u64,
    /// Total time during which at least one data queue of this port was paused.
    pub paused_time: Delta,
    /// Largest egress backlog seen (bytes in all data queues).
    pub max_queue_bytes: u64,
    /// Time spent serializing packets.
    pub busy_time: Delta,
    /// Start of the first transmission and end of the last one.
    pub first_tx: Option<SimTime>,
    pub last_tx_end: SimTime,
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

/// The transmitter of one link direction.
pub struct Port {
    pub node: NodeId,
    /// The port at the other end of the link.
    pub peer: PortId,
    pub rate: Rate,
    pub byte_time: ByteTime,
    /// Propagation delay plus the receiving switch's pipeline latency.
    pub arrival_delay: Delta,
    /// End of the packet being serialized (the port is busy before this time).
    pub busy_until: SimTime,
    /// A `TxDone` event is scheduled at `busy_until`. It is scheduled only when work is
    /// waiting, so a port that sends one packet and falls idle costs no extra event.
    pub txdone_pending: bool,
    /// Packets on the wire towards the peer with their arrival times (FIFO).
    pub in_flight: VecDeque<(SimTime, Packet)>,
    pub control_queue: VecDeque<Packet>,
    pub data_queues: Vec<VecDeque<Packet>>,
    pub queue_bytes: Vec<u64>,
    /// Sum of `queue_bytes`.
    pub backlog_bytes: u64,
    /// Per data queue (priority): paused by the downstream node.
    pub paused: Vec<bool>,
    /// Bit q set: data queue q is non-empty and not paused (ports with ≤ 64 queues).
    eligible: u64,
    paused_count: u32,
    paused_since: SimTime,
    /// Round-robin pointer over data queues.
    pub rr_next: u16,
    pub stats: PortStats,
    /// ECN marking thresholds for this port's rate (switch ports only).
    pub ecn: Option<crate::switch::RedProfile>,
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
            in_flight: VecDeque::new(),
            control_queue: VecDeque::new(),
            data_queues: (0..data_queues).map(|_| VecDeque::new()).collect(),
            queue_bytes: vec![0; data_queues],
            backlog_bytes: 0,
            paused: vec![false; classes],
            eligible: 0,
            paused_count: 0,
            paused_since: SimTime::ZERO,
            rr_next: 0,
            stats: PortStats::default(),
            ecn: None,
        }
    }

    /// Append a packet to data queue `queue`.
    #[inline]
    pub fn enqueue(&mut self, queue: usize, pkt: Packet) {
        self.data_queues[queue].push_back(pkt);
        self.refresh_eligible(queue);
    }

    /// Take the head of data queue `queue`.
    #[inline]
    pub fn dequeue(&mut self, queue: usize) -> Option<Packet> {
        let pkt = self.data_queues[queue].pop_front();
        self.refresh_eligible(queue);
        pkt
    }

    #[inline]
    fn refresh_eligible(&mut self, queue: usize) {
        if queue < 64 {
            let bit = 1u64 << queue;
            if !self.paused[queue] && !self.data_queues[queue].is_empty() {
                self.eligible |= bit;
            } else {
                self.eligible &= !bit;
            }
        }
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
        if queue < self.data_queues.len() {
            self.refresh_eligible(queue);
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
        let n = self.data_queues.len();
        let start = self.rr_next as usize;
        if n <= 64 {
            if self.eligible == 0 {
                return None;
            }
            let from_start = self.eligible & (!0u64 << start);
            let bits = if from_start != 0 { from_start } else { self.eligible };
            return Some(bits.trailing_zeros() as usize);
        }
        let ready = |q: &usize| !self.paused[*q] && !self.data_queues[*q].is_empty();
        (start..n).find(ready).or_else(|| (0..start).find(ready))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{ControlPayload, PacketKind, NO_INT};

    fn pkt() -> Packet {
        Packet {
            kind: PacketKind::Data,
            priority: 0,
            ecn_ce: false,
            cnp_echo: false,
            flow: crate::ids::FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            sport: 0,
            dport: 0,
            seq: 0,
            payload: 0,
            wire_bytes: 64,
            sent_at: SimTime::ZERO,
            ingress: 0,
            enq_ns: 0,
            queue: 0,
            sack: 0,
            retransmit: false,
            control: ControlPayload::None,
            int: NO_INT,
        }
    }

    /// Round-robin over non-empty, unpaused queues, for the bitmask (≤ 64 queues) and the
    /// scanning (> 64 queues) paths alike.
    #[test]
    fn round_robin_skips_empty_and_paused_queues() {
        for queues in [8usize, 128] {
            let mut p = Port::new(NodeId(0), PortId(1), Rate::gbps(100), Delta::ZERO, queues, queues);
            assert_eq!(p.next_data_queue(), None);
            for q in [1, 3, 6] {
                p.enqueue(q, pkt());
            }
            p.rr_next = 2;
            assert_eq!(p.next_data_queue(), Some(3));
            p.set_paused(3, true, SimTime::ZERO);
            assert_eq!(p.next_data_queue(), Some(6));
            p.rr_next = 7;
            assert_eq!(p.next_data_queue(), Some(1), "wraps around");
            p.dequeue(1);
            p.dequeue(6);
            assert_eq!(p.next_data_queue(), None, "only the paused queue holds packets");
            p.set_paused(3, false, SimTime(5));
            assert_eq!(p.next_data_queue(), Some(3));
            assert_eq!(p.stats.paused_time, Delta(5));
        }
    }
}
