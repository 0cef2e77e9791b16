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
    pub tx_data_bytes: u64,
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
    /// Serializing a packet right now.
    pub busy: bool,
    /// Packets on the wire towards the peer with their arrival times (FIFO).
    pub in_flight: VecDeque<(SimTime, Packet)>,
    pub control_queue: VecDeque<Packet>,
    pub data_queues: Vec<VecDeque<Packet>>,
    pub queue_bytes: Vec<u64>,
    /// Sum of `queue_bytes`.
    pub backlog_bytes: u64,
    /// Per data queue (priority): paused by the downstream node.
    pub paused: Vec<bool>,
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
            busy: false,
            in_flight: VecDeque::new(),
            control_queue: VecDeque::new(),
            data_queues: (0..data_queues).map(|_| VecDeque::new()).collect(),
            queue_bytes: vec![0; data_queues],
            backlog_bytes: 0,
            paused: vec![false; classes],
            paused_count: 0,
            paused_since: SimTime::ZERO,
            rr_next: 0,
            stats: PortStats::default(),
            ecn: None,
        }
    }

    /// Pause or resume data queue `queue`; returns whether the state changed.
    pub fn set_paused(&mut self, queue: usize, pause: bool, now: SimTime) -> bool {
        if self.paused[queue] == pause {
            return false;
        }
        self.paused[queue] = pause;
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

    /// Next eligible data queue (round-robin, skipping empty and paused queues).
    #[inline]
    pub fn next_data_queue(&self) -> Option<usize> {
        let n = self.data_queues.len();
        let start = self.rr_next as usize;
        (0..n).map(|i| (start + i) % n).find(|&q| !self.paused[q] && !self.data_queues[q].is_empty())
    }
}
