//! A receiver reorder buffer for RoCE's go-back-N (`[transport.reorder_buffer]`).
//!
//! The Proteus paper (§V) gives every baseline load balancer "a reordering buffer to mask
//! packet reordering", after Hermes and Presto, noting that commodity RDMA NICs otherwise
//! answer reordering with go-back-N. Without it a go-back-N receiver NACKs the first packet
//! beyond a gap and drops it; with it the receiver keeps up to `packets` packets that
//! arrived beyond the gap, delivers them in order once the gap fills (the cumulative ACK
//! then jumps over them), and NACKs only when
//!
//! - the buffer is full (the arriving packet is dropped, as go-back-N would), or
//! - the gap has outlived `timeout` when a packet arrives out of order (the NACK is then
//!   checked on arrivals, as the go-back-N receiver's NACKs always are, so a gap at the
//!   tail of a flow is repaired by the sender's retransmission timeout, as without the
//!   buffer). The NACK keeps the held packets: what the sender resends below them fills
//!   the gap, and the resends above it are duplicates.
//!
//! Held packets are not acknowledged (a held packet carries no ACK; an ECN mark on it is
//! echoed by the next ACK). The state per flow is the sorted indices of its held packets
//! (at most `packets` of them) and since when its current gap is open; none of it exists
//! unless the buffer is on. Choices are documented in docs/model.md ("Reorder buffer").

use crate::ids::FlowId;
use crate::scenario::Duration;
use crate::time::{Delta, SimTime};
use serde::{Deserialize, Serialize};

/// `[transport.reorder_buffer]`: the RoCE go-back-N receiver keeps out-of-order packets.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReorderBufferSpec {
    /// Turn the buffer on (`transport.loss_recovery = "go_back_n"` only). Default false: a
    /// commodity RoCE NIC NACKs the first out-of-order packet (Proteus §V, footnote 2).
    #[serde(default)]
    pub enabled: bool,
    /// Packets held per flow at most. Default 64: the Hermes authors' ns-3 resequencing
    /// buffer holds 64,000 bytes (`tcp-resequence-buffer.cc`, `SizeLimit`), 64 packets of
    /// hopsim's default 1000-byte MTU.
    #[serde(default = "default_packets")]
    pub packets: u32,
    /// How long a gap may stay open before an out-of-order arrival NACKs it. Default 50 µs:
    /// the Hermes authors' ns-3 resequencing buffer flushes its out-of-order queue after
    /// 50 µs (`OutOrderQueueTimerLimit`).
    #[serde(default = "default_timeout")]
    pub timeout: Duration,
}

fn default_packets() -> u32 {
    64
}

fn default_timeout() -> Duration {
    Duration::us(50)
}

impl Default for ReorderBufferSpec {
    fn default() -> Self {
        ReorderBufferSpec { enabled: false, packets: default_packets(), timeout: default_timeout() }
    }
}

/// The resolved settings.
#[derive(Clone, Copy, Debug)]
pub struct ReorderBufferParams {
    pub packets: u32,
    pub timeout: Delta,
}

impl ReorderBufferSpec {
    /// The settings, when on; errors name the field.
    pub fn resolve(&self) -> Result<Option<ReorderBufferParams>, crate::scenario::ScenarioError> {
        use crate::scenario::error::check;
        check(self.packets > 0, "transport.reorder_buffer.packets", "expected a positive packet count")?;
        check(
            self.timeout.0 > Delta::ZERO,
            "transport.reorder_buffer.timeout",
            "expected a positive duration",
        )?;
        if !self.enabled {
            return Ok(None);
        }
        Ok(Some(ReorderBufferParams { packets: self.packets, timeout: self.timeout.0 }))
    }
}

/// One flow's held packets.
#[derive(Clone, Debug, Default)]
struct Held {
    /// Packet indices (byte offset / MTU), ascending.
    packets: Vec<u64>,
    /// Since when the gap below the first held packet is open.
    gap_since: SimTime,
}

/// What the receiver does with an out-of-order packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfOrder {
    /// It is (now) held.
    pub held: bool,
    /// NACK the gap (the buffer is full, or the gap outlived the timeout).
    pub nack: bool,
}

/// The reorder buffers of every flow and their counters.
#[derive(Clone, Debug)]
pub struct ReorderBuffer {
    params: ReorderBufferParams,
    flows: Vec<Held>,
    /// Packets ever held.
    held: u64,
    /// Most packets one flow held at once.
    max_held: u64,
    /// NACKs sent because the buffer was full / because a gap outlived the timeout.
    full_nacks: u64,
    timeout_nacks: u64,
}

impl ReorderBuffer {
    pub fn new(params: ReorderBufferParams, flows: usize) -> ReorderBuffer {
        ReorderBuffer {
            params,
            flows: vec![Held::default(); flows],
            held: 0,
            max_held: 0,
            full_nacks: 0,
            timeout_nacks: 0,
        }
    }

    /// Whether packet `index` of flow `f`, arriving beyond the gap, would be newly held.
    pub fn would_hold(&self, f: FlowId, index: u64) -> bool {
        let h = &self.flows[f.idx()];
        h.packets.len() < self.params.packets as usize && h.packets.binary_search(&index).is_err()
    }

    /// Packet `index` of flow `f` arrived beyond the gap at `now`.
    #[inline(never)]
    pub fn on_out_of_order(&mut self, f: FlowId, index: u64, now: SimTime) -> OutOfOrder {
        let p = self.params;
        let h = &mut self.flows[f.idx()];
        let timed_out = !h.packets.is_empty() && now >= h.gap_since + p.timeout;
        let mut out = OutOfOrder { held: false, nack: false };
        match h.packets.binary_search(&index) {
            Ok(_) => out.held = true, // a duplicate of a held packet
            Err(_) if h.packets.len() >= p.packets as usize => {
                self.full_nacks += 1;
                out.nack = true;
                return out;
            }
            Err(at) => {
                if h.packets.is_empty() {
                    h.gap_since = now;
                }
                h.packets.insert(at, index);
                self.held += 1;
                self.max_held = self.max_held.max(h.packets.len() as u64);
                out.held = true;
            }
        }
        if timed_out {
            self.timeout_nacks += 1;
            out.nack = true;
        }
        out
    }

    /// Flow `f`'s next expected packet is now `next` (in-order data arrived): release the
    /// held packets that follow it without a gap; returns how many. The gap left behind
    /// them, if any packet is still held, is a new one and its clock starts now.
    #[inline(never)]
    pub fn release(&mut self, f: FlowId, next: u64, now: SimTime) -> u64 {
        let h = &mut self.flows[f.idx()];
        if h.packets.is_empty() {
            return 0;
        }
        let below = h.packets.partition_point(|&i| i < next);
        let mut n = 0;
        while h.packets.get(below + n as usize) == Some(&(next + n)) {
            n += 1;
        }
        h.packets.drain(..below + n as usize);
        if !h.packets.is_empty() {
            h.gap_since = now; // the gap that was timed filled; the next one starts now
        } else {
            h.packets = Vec::new(); // a finished burst frees its memory
        }
        n
    }

    /// Packets flow `f` holds now.
    pub fn holding(&self, f: FlowId) -> usize {
        self.flows[f.idx()].packets.len()
    }

    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("reorder_buffer_held", self.held),
            ("reorder_buffer_max_held", self.max_held),
            ("reorder_buffer_full_nacks", self.full_nacks),
            ("reorder_buffer_timeout_nacks", self.timeout_nacks),
        ]
    }

    pub fn state_bytes(&self) -> u64 {
        (self.flows.capacity() * std::mem::size_of::<Held>()) as u64
            + self.flows.iter().map(|h| (h.packets.capacity() * 8) as u64).sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(packets: u32) -> ReorderBuffer {
        ReorderBuffer::new(ReorderBufferParams { packets, timeout: Delta::from_us(50) }, 1)
    }

    const F: FlowId = FlowId(0);

    #[test]
    fn holds_then_releases_in_order() {
        let mut b = buffer(4);
        let t = SimTime::ZERO;
        // Expecting packet 0; 2, 1, 4 arrive first.
        for i in [2, 1, 4] {
            assert_eq!(b.on_out_of_order(F, i, t), OutOfOrder { held: true, nack: false });
        }
        assert_eq!(b.release(F, 1, t), 2, "0 arrived: 1 and 2 follow, 3 is missing");
        assert_eq!(b.holding(F), 1);
        assert_eq!(b.release(F, 4, t), 1, "3 arrived: 4 follows");
        assert_eq!(b.holding(F), 0);
        assert_eq!(b.counters()[0], ("reorder_buffer_held", 3));
        assert_eq!(b.counters()[1], ("reorder_buffer_max_held", 3));
    }

    #[test]
    fn full_buffer_nacks_and_drops() {
        let mut b = buffer(2);
        let t = SimTime::ZERO;
        b.on_out_of_order(F, 1, t);
        b.on_out_of_order(F, 2, t);
        assert_eq!(b.on_out_of_order(F, 3, t), OutOfOrder { held: false, nack: true });
        assert!(!b.would_hold(F, 3));
        assert_eq!(b.holding(F), 2);
    }

    #[test]
    fn a_gap_older_than_the_timeout_nacks_on_the_next_arrival() {
        let mut b = buffer(8);
        b.on_out_of_order(F, 1, SimTime::ZERO);
        let before = SimTime::ZERO + Delta::from_us(49);
        assert!(!b.on_out_of_order(F, 2, before).nack);
        let after = SimTime::ZERO + Delta::from_us(50);
        assert_eq!(b.on_out_of_order(F, 3, after), OutOfOrder { held: true, nack: true });
        // The gap fills up to 2; the gap below 3 ... 3 is held too, so all go.
        assert_eq!(b.release(F, 1, after), 3);
        // A new gap opens its own clock.
        b.on_out_of_order(F, 6, after);
        assert!(!b.on_out_of_order(F, 7, after + Delta::from_us(10)).nack);
    }
}
