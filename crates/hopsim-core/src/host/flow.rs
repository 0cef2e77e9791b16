//! A flow: one message from a source host to a destination host — what it is, and the
//! sender and receiver state every transport shares (the transport's own per-flow state
//! is the transport's, see `transport`).

use super::cc::{Cc, CcFlow};
use crate::ids::{FlowId, NodeId};
use crate::metrics::FlowRecord;
use crate::time::{Delta, SimTime};

/// One flow.
///
/// Fields are laid out by use (`repr(C)`, aligned to a cache line), not as the compiler
/// packs them: the first line holds what every transmission and ACK reads and writes
/// (sequence numbers, rate, pacing, window), the second what building a packet and
/// checking a timer read (addresses, ports, class, timer generations, finish), the third
/// the receiver's and congestion control's inputs, then the congestion control's state,
/// and last what only the flow's record reads (issue 24 item 1: per-flow host state split
/// hot / cold). At k = 32 the flows are tens of megabytes and each of these lines is a
/// likely miss.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Flow {
    // --- line 0: every transmission and ACK
    pub snd_nxt: u64,
    pub snd_una: u64,
    /// Highest byte ever sent (bytes below it are retransmissions).
    pub high_water: u64,
    pub next_avail: SimTime,
    /// Current sending rate, bits/s (set by congestion control).
    pub rate: u64,
    pub size: u64,
    /// In-flight cap in bytes (0 = none).
    pub window: u64,
    /// The receiver's advertised window, bytes (`u64::MAX`: none): the sender keeps no more
    /// than this unacknowledged, whatever `window` allows (TCP's `receive_window`).
    pub rwnd: u64,

    // --- line 1: building a packet, timers, progress
    pub last_progress: SimTime,
    pub finish: Option<SimTime>,
    /// Generation per `TimerKind`; bumping one cancels its pending timer.
    pub timer_gen: [u32; 3],
    pub src: NodeId,
    pub dst: NodeId,
    pub id: FlowId,
    pub sport: u16,
    pub dport: u16,
    pub priority: u8,
    pub rto_pending: bool,
    /// In its host's round-robin list of flows with data to send.
    pub in_active: bool,
    /// The cap scales with the sending rate: `window × rate / line rate` (ns-3's
    /// `VAR_WIN`; HPCC sets its window itself).
    pub window_follows_rate: bool,
    pub ce_pending: bool,

    // --- line 2: the receiver, and congestion control's view of the path
    pub rcv_nxt: u64,
    /// Receiver: reordered arrivals.
    pub reorder: ReorderCounter,
    /// Line rate of the source NIC, bits/s.
    pub line_rate: u64,
    /// Base RTT and bandwidth-delay product of the flow's path (HPCC simulator definitions).
    pub base_rtt: Delta,
    pub bdp: u64,
    /// Slow-start threshold of window-based congestion control, bytes.
    pub ssthresh: u64,
    pub path_hops: u32,

    // --- lines 3 to 6: congestion control
    pub cc: Cc,

    // --- cold: read for the flow's record, or rarely
    pub start: SimTime,
    pub ideal_fct: Delta,
    /// The query this flow answers (query workloads).
    pub query: Option<u32>,
    pub retransmitted_bytes: u64,
    pub timeouts: u32,
    pub cnps_received: u32,
    pub tag: u16,
    /// Part of many-to-one traffic (incast / query workloads).
    pub incast: bool,
}

impl Flow {
    /// The sending window is full.
    #[inline]
    pub fn window_bound(&self) -> bool {
        self.window != 0 && self.snd_nxt - self.snd_una >= self.current_window().min(self.rwnd)
    }

    /// The window now (it may follow the rate).
    #[inline]
    pub fn current_window(&self) -> u64 {
        if self.window_follows_rate {
            ((self.window as u128 * self.rate as u128 / self.line_rate as u128) as u64).max(1)
        } else {
            self.window
        }
    }

    /// The flow's record; `deflections`: times a packet of it was deflected;
    /// `loss_recovery`: how its transport recovers losses.
    /// The congestion control of the flow and its view of the flow (split borrows).
    pub(crate) fn cc_parts(&mut self, now: SimTime, packet_bytes: u64, mss: u64) -> (&mut Cc, CcFlow<'_>) {
        let view = CcFlow {
            now,
            rate: &mut self.rate,
            next_avail: &mut self.next_avail,
            window: &mut self.window,
            line_rate: self.line_rate,
            base_rtt: self.base_rtt,
            bdp: self.bdp,
            snd_nxt: self.snd_nxt,
            packet_bytes,
            timer: None,
            ssthresh: &mut self.ssthresh,
            in_recovery: false,
            mss,
            hops: self.path_hops,
        };
        (&mut self.cc, view)
    }

    pub fn record(&self, tags: &[String], deflections: u32, loss_recovery: &'static str) -> FlowRecord {
        FlowRecord {
            flow_id: self.id.0,
            src: self.src.0,
            dst: self.dst.0,
            size_bytes: self.size,
            start: self.start,
            finish: self.finish,
            ideal_fct: self.ideal_fct,
            tag: tags[self.tag as usize].clone(),
            query_id: self.query,
            cc: self.cc.name(),
            loss_recovery,
            priority: self.priority,
            retransmitted_bytes: self.retransmitted_bytes,
            timeouts: self.timeouts,
            cnps_received: self.cnps_received,
            path_hops: self.path_hops,
            reordered_packets: self.reorder.reordered,
            deflections,
            hol_blocked: false,
        }
    }
}

/// Receiver-side reordering count (RFC 4737 §3): a first transmission arriving below the
/// highest sequence already received is reordered. Retransmissions are loss recovery, not
/// network reordering, and are not counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReorderCounter {
    /// End of the highest first-transmission segment received.
    high: u64,
    pub reordered: u32,
}

impl ReorderCounter {
    #[inline]
    pub fn on_arrival(&mut self, seq: u64, payload: u32, retransmit: bool) {
        if retransmit {
            return;
        }
        if seq < self.high {
            self.reordered += 1;
        } else {
            self.high = seq + payload as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Flow, ReorderCounter};
    use std::mem::offset_of;

    /// The lines `Flow`'s doc comment promises: a field added in the wrong place would shift
    /// them silently (`repr(C)` keeps the written order).
    #[test]
    fn flow_fields_sit_on_the_lines_their_use_needs() {
        assert_eq!(std::mem::align_of::<Flow>(), 64);
        // (field, its offset, the line it must sit on: 0 every transmission and ACK, 1 packet
        // building and timers, 2 the receiver's and congestion control's inputs)
        for (name, offset, line) in [
            ("snd_nxt", offset_of!(Flow, snd_nxt), 0),
            ("snd_una", offset_of!(Flow, snd_una), 0),
            ("next_avail", offset_of!(Flow, next_avail), 0),
            ("rate", offset_of!(Flow, rate), 0),
            ("rwnd", offset_of!(Flow, rwnd), 0),
            ("last_progress", offset_of!(Flow, last_progress), 1),
            ("finish", offset_of!(Flow, finish), 1),
            ("timer_gen", offset_of!(Flow, timer_gen), 1),
            ("dport", offset_of!(Flow, dport), 1),
            ("ce_pending", offset_of!(Flow, ce_pending), 1),
            ("rcv_nxt", offset_of!(Flow, rcv_nxt), 2),
            ("path_hops", offset_of!(Flow, path_hops), 2),
        ] {
            assert_eq!(offset / 64, line, "{name} at byte {offset}");
        }
        assert_eq!(offset_of!(Flow, cc), 3 * 64, "the congestion control starts line 3");
        assert!(offset_of!(Flow, start) >= offset_of!(Flow, cc) + std::mem::size_of::<super::Cc>());
    }

    #[test]
    fn late_first_transmissions_count_as_reordered_retransmissions_do_not() {
        let mut r = ReorderCounter::default();
        for (seq, retransmit) in [(0, false), (2000, false), (1000, false), (3000, false), (1000, true)] {
            r.on_arrival(seq, 1000, retransmit);
        }
        assert_eq!(r.reordered, 1, "only the packet at 1000 overtaken by 2000");
        // A gap (loss) alone is not reordering.
        let mut gap = ReorderCounter::default();
        gap.on_arrival(0, 1000, false);
        gap.on_arrival(5000, 1000, false);
        assert_eq!(gap.reordered, 0);
    }
}
