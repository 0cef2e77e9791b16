//! A flow: one RDMA message from a source host to a destination host, with both its
//! sender state (at the source) and receiver state (at the destination).

use super::cc::Cc;
use super::irn::{IrnSender, PacketBitmap};
use super::tcp::TcpFlow;
use crate::ids::{FlowId, NodeId};
use crate::metrics::FlowRecord;
use crate::time::{Delta, SimTime};

/// IRN state of a flow: sender recovery and receiver out-of-order bitmap.
#[derive(Clone, Debug, Default)]
pub struct IrnFlow {
    pub sender: IrnSender,
    pub received: PacketBitmap,
}

impl IrnFlow {
    /// Bytes allocated for this state (the box and the bitmap).
    pub fn heap_bytes(&self) -> u64 {
        std::mem::size_of::<IrnFlow>() as u64 + self.received.heap_bytes()
    }
}

/// One flow.
#[derive(Clone, Debug)]
pub struct Flow {
    pub id: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub size: u64,
    pub start: SimTime,
    pub priority: u8,
    pub sport: u16,
    pub dport: u16,
    pub tag: u16,
    /// The query this flow answers (query workloads).
    pub query: Option<u32>,
    /// Part of many-to-one traffic (incast / query workloads).
    pub incast: bool,
    pub ideal_fct: Delta,
    pub path_hops: u32,
    /// Line rate of the source NIC, bits/s.
    pub line_rate: u64,
    /// In-flight cap in bytes (0 = none).
    pub window: u64,
    /// The cap scales with the sending rate: `window × rate / line rate` (ns-3's
    /// `VAR_WIN`; HPCC sets its window itself).
    pub window_follows_rate: bool,
    /// Base RTT and bandwidth-delay product of the flow's path (HPCC simulator definitions).
    pub base_rtt: Delta,
    pub bdp: u64,

    // --- sender
    pub snd_nxt: u64,
    pub snd_una: u64,
    /// Highest byte ever sent (bytes below it are retransmissions).
    pub high_water: u64,
    /// Current sending rate, bits/s (set by congestion control).
    pub rate: u64,
    pub next_avail: SimTime,
    pub last_progress: SimTime,
    pub rto_pending: bool,
    /// In its host's round-robin list of flows with data to send.
    pub in_active: bool,
    /// Generation per `TimerKind`; bumping one cancels its pending timer.
    pub timer_gen: [u32; 3],
    pub cc: Cc,
    /// IRN selective retransmission (`None`: go-back-N).
    pub irn: Option<Box<IrnFlow>>,
    /// TCP state (`transport.kind = "tcp"`; `None`: the RoCE transport).
    pub tcp: Option<Box<TcpFlow>>,
    /// Slow-start threshold of window-based congestion control, bytes.
    pub ssthresh: u64,
    pub finish: Option<SimTime>,
    pub retransmitted_bytes: u64,
    pub timeouts: u32,
    pub cnps_received: u32,

    // --- receiver
    pub rcv_nxt: u64,
    /// Receiver: reordered arrivals.
    pub reorder: ReorderCounter,
    pub unacked_packets: u32,
    pub last_nack_seq: Option<u64>,
    pub nack_timer: SimTime,
    pub ce_pending: bool,
    pub last_cnp: Option<SimTime>,
}

impl Flow {
    /// The next segment to send: a hole to retransmit first (IRN, TCP), else new data at
    /// `snd_nxt`. Returns (sequence, is a retransmitted hole).
    #[inline(always)]
    pub fn next_segment(&mut self, mtu: u32) -> Option<(u64, bool)> {
        if self.irn.is_some() || self.tcp.is_some() {
            return self.next_segment_with_holes(mtu);
        }
        (self.snd_nxt < self.size).then_some((self.snd_nxt, false))
    }

    /// [`next_segment`](Self::next_segment) of a flow that keeps holes to resend (out of
    /// line: go-back-N flows never take it).
    #[inline(never)]
    fn next_segment_with_holes(&mut self, mtu: u32) -> Option<(u64, bool)> {
        if let Some(irn) = &mut self.irn {
            if let Some(seq) = irn.sender.next_hole(mtu as u64) {
                return Some((seq, true));
            }
        }
        if let Some(tcp) = &mut self.tcp {
            if let Some(seq) = tcp.next_retransmission(mtu as u64) {
                return Some((seq, true));
            }
        }
        (self.snd_nxt < self.size).then_some((self.snd_nxt, false))
    }

    /// Nothing is left to send (new data or IRN holes).
    #[inline]
    pub fn all_sent(&mut self, mtu: u32) -> bool {
        self.next_segment(mtu).is_none()
    }

    /// The sending window is full.
    #[inline]
    pub fn window_bound(&self) -> bool {
        self.window != 0 && self.snd_nxt - self.snd_una >= self.current_window()
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

    /// The flow's record; `deflections`: times a packet of it was deflected.
    pub fn record(&self, tags: &[String], deflections: u32) -> FlowRecord {
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
            loss_recovery: match (&self.irn, &self.tcp) {
                (Some(_), _) => "irn",
                (None, Some(tcp)) if tcp.scoreboard.is_some() => "tcp_sack",
                (None, Some(_)) => "tcp_newreno",
                (None, None) => "go_back_n",
            },
            priority: self.priority,
            retransmitted_bytes: self.retransmitted_bytes,
            timeouts: self.timeouts,
            cnps_received: self.cnps_received,
            path_hops: self.path_hops,
            reordered_packets: self.reorder.reordered,
            deflections,
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
    use super::ReorderCounter;

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
