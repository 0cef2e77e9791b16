//! Bolt (Arslan et al., "Bolt: Sub-RTT Congestion Control for Ultra-Low Latency", NSDI
//! 2023): a window that switches steer directly, below one round trip.
//!
//! - SRC (§3.1): a switch whose queue is at or above `cc_thresh` when a data packet
//!   arrives sends the sender a notice (once per packet along the path; `switch::signals::bolt`).
//!   The sender takes one segment off its window per notice, at most once per
//!   `rtt_src / (q · share)` — `rtt_src` the notice's own round trip, `q` the queue in
//!   packets, `share` this flow's rate over the link's — so all flows together drain the
//!   queue within one `rtt_src`. Below one segment the cut is multiplicative (1 − max_mdf).
//! - PRU (§3.2): packets of a flow's last window carry LAST; a switch turns each one (not
//!   of a first window) into a token that grants another flow's INC request.
//! - SM (§3.3): packets not in the first or last window request an increase (INC); the
//!   switch grants it from a PRU token or from supply tokens (bytes the link could have
//!   sent beyond what arrived), else clears it. The ACK echoes it; a granted INC adds one
//!   segment.
//! - Plus one segment of additive increase per round trip, and Swift's loss reactions.
//!
//! The sender-side reaction interval and the units follow the Bolt authors' ns-3 code
//! (see `docs/model.md`); the deflection paper's artifact divides by the share instead.

use super::{Ack, CcBuild, CcFlow, CcParams, CongestionControl, Loss, SourceNotice};
use crate::time::{Delta, SimTime, PS_PER_S};

/// Bolt parameters (`[transport.bolt]`; Swift's `ai` and `max_mdf` are shared).
#[derive(Clone, Debug)]
pub struct BoltParams {
    /// Queue bytes at or above which a switch sends an SRC.
    pub cc_thresh: u64,
    /// Proactive ramp-up and supply matching switched on.
    pub pru: bool,
    pub sm: bool,
    /// Wire bytes of an SRC.
    pub src_bytes: u32,
}

/// Bolt's header bits, kept in the packet's extension fields (`PacketExt::cc_flags`).
pub mod flags {
    /// Sent before the flow had any round-trip sample.
    pub const FIRST: u8 = 1;
    /// Part of the flow's last window.
    pub const LAST: u8 = 2;
    /// An increase request (data) / grant (echoed in the ACK).
    pub const INC: u8 = 4;
    /// An SRC was already sent for this packet.
    pub const DEC: u8 = 8;
}

/// Smallest Bolt window, bytes (the Bolt authors' ns-3 code and the deflection artifact).
const MIN_CWND_BYTES: f64 = 15.0;

/// Per-flow Bolt state.
#[derive(Clone, Debug)]
pub struct Bolt {
    /// Congestion window, bytes (fractional below one segment).
    pub cwnd: f64,
    /// Latest round-trip sample (zero before the first).
    pub rtt: Delta,
    last_src_decrease: Option<SimTime>,
    last_decrease: Option<SimTime>,
    /// The next once-per-RTT additive increase comes when this byte is acknowledged.
    ai_seq: u64,
    retransmits: u32,
    /// SRCs received, and those that cut the window.
    pub srcs: u32,
    pub src_decreases: u32,
}

impl Bolt {
    pub fn new(initial_bytes: u64) -> Bolt {
        Bolt {
            cwnd: initial_bytes as f64,
            rtt: Delta::ZERO,
            last_src_decrease: None,
            last_decrease: None,
            ai_seq: 0,
            retransmits: 0,
            srcs: 0,
            src_decreases: 0,
        }
    }

    /// The header bits of the next data packet: `snd_nxt` the first byte it carries.
    pub fn marks(&self, snd_nxt: u64, size: u64) -> u8 {
        let first = self.rtt == Delta::ZERO;
        let last = snd_nxt + self.cwnd as u64 >= size;
        let mut m = 0;
        if first {
            m |= flags::FIRST;
        }
        if last {
            m |= flags::LAST;
        } else if !first {
            m |= flags::INC;
        }
        m
    }

    fn can_decrease(&self, now: SimTime) -> bool {
        self.last_decrease.is_none_or(|t| now.since(t) >= self.rtt)
    }

    /// Window and pacing onto the flow (as Swift: below a segment, one per `RTT·mss/cwnd`).
    fn apply(&mut self, f: &mut CcFlow<'_>, max_cwnd_packets: f64) {
        let max = max_cwnd_packets * f.mss as f64;
        self.cwnd = self.cwnd.clamp(MIN_CWND_BYTES, max);
        let bytes = (self.cwnd as u64).max(f.mss);
        *f.ssthresh = bytes;
        if !f.in_recovery {
            *f.window = bytes;
        }
        *f.rate = if self.cwnd < f.mss as f64 && self.rtt > Delta::ZERO {
            let bits = self.cwnd / f.mss as f64 * f.packet_bytes as f64 * 8.0;
            ((bits * PS_PER_S as f64 / self.rtt.0 as f64) as u64).clamp(1, f.line_rate)
        } else {
            f.line_rate
        };
    }
}

impl CongestionControl for Bolt {
    fn new(b: &CcBuild) -> Self {
        Bolt::new(b.window)
    }

    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        self.rtt = f.now.since(ack.sent_at);
        if ack.newly_acked > 0 {
            self.retransmits = 0;
        }
        if !f.in_recovery {
            let granted = ack.echo_flags & (flags::INC | flags::DEC) == flags::INC;
            if granted && (p.bolt.pru || p.bolt.sm) {
                self.cwnd += f.mss as f64;
            }
            if ack.seq > self.ai_seq {
                self.cwnd += p.swift.ai * f.mss as f64;
                self.ai_seq = f.snd_nxt;
            }
        }
        self.apply(f, p.swift.max_cwnd);
    }

    fn on_source_notice(&mut self, n: &SourceNotice, f: &mut CcFlow<'_>, p: &CcParams) {
        self.srcs += 1;
        let rtt_src = f.now.since(n.sent_at);
        let mss = f.mss as f64;
        if self.cwnd <= mss {
            self.cwnd *= 1.0 - p.swift.max_mdf;
            self.src_decreases += 1;
        } else {
            let rate = if self.rtt > Delta::ZERO {
                self.cwnd * 8.0 * PS_PER_S as f64 / self.rtt.0 as f64
            } else {
                f.line_rate as f64
            };
            let share = (rate / n.link_rate.max(1) as f64).min(1.0);
            let q_packets = n.queue_bytes as f64 / f.packet_bytes as f64;
            let interval = rtt_src.0 as f64 / (q_packets * share).max(1e-9);
            if self.last_src_decrease.is_none_or(|t| f.now.since(t).0 as f64 >= interval) {
                self.cwnd -= mss;
                self.last_src_decrease = Some(f.now);
                self.src_decreases += 1;
            }
        }
        self.apply(f, p.swift.max_cwnd);
    }

    fn on_loss(&mut self, loss: Loss, f: &mut CcFlow<'_>, p: &CcParams) {
        let s = &p.swift;
        match loss {
            Loss::FastRetransmit { .. } => self.retransmits = 0,
            Loss::Timeout { .. } => self.retransmits += 1,
        }
        if self.retransmits >= s.retx_reset_threshold {
            self.cwnd = MIN_CWND_BYTES;
            self.last_decrease = Some(f.now);
        } else if self.can_decrease(f.now) {
            self.cwnd *= 1.0 - s.max_mdf;
            self.last_decrease = Some(f.now);
        }
        self.apply(f, s.max_cwnd);
        if matches!(loss, Loss::Timeout { .. }) {
            *f.window = f.mss;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks: the first window asks nothing, later packets ask for an increase, the last
    /// window is LAST (and asks nothing).
    #[test]
    fn first_last_and_inc_marks() {
        let mut b = Bolt::new(10_000);
        assert_eq!(b.marks(0, 100_000), flags::FIRST);
        assert_eq!(b.marks(0, 5_000), flags::FIRST | flags::LAST, "fits in its first window");
        b.rtt = Delta::from_us(10);
        assert_eq!(b.marks(20_000, 100_000), flags::INC);
        assert_eq!(b.marks(95_000, 100_000), flags::LAST);
    }

    fn params() -> CcParams {
        crate::scenario::default_cc_params(1000)
    }

    /// A flow of 1,000 B segments (1,048 B on the wire) at 10 Gb/s, at `now`.
    fn flow<'a>(now: SimTime, window: &'a mut u64, ssthresh: &'a mut u64, rate: &'a mut u64) -> CcFlow<'a> {
        CcFlow {
            now,
            rate,
            next_avail: Box::leak(Box::new(SimTime::ZERO)),
            window,
            line_rate: 10_000_000_000,
            base_rtt: Delta::from_us(10),
            bdp: 12_500,
            snd_nxt: 50_000,
            packet_bytes: 1048,
            timer: None,
            ssthresh,
            in_recovery: false,
            mss: 1000,
            hops: 2,
        }
    }

    fn at_ns(ns: u64) -> SimTime {
        SimTime(ns * 1000)
    }

    /// Bolt §3.1: each SRC takes one segment off the window, at most once per
    /// rtt_src / (q · share): here a 10-packet queue seen 5 µs after the packet was sent,
    /// the flow's share 0.8 (10 KB per 10 µs round trip of a 10 Gb/s link) — 625 ns, then
    /// 694 ns with 9 KB. SRCs in between are counted, not acted on. Below one segment the
    /// cut is multiplicative (1 − max_mdf).
    #[test]
    fn an_src_cuts_one_segment_at_most_once_per_reaction_interval() {
        let p = params();
        let mut b = Bolt::new(10_000);
        b.rtt = Delta::from_us(10);
        let (mut w, mut ss, mut r) = (10_000, 10_000, 0);
        let notice = |now: u64| SourceNotice {
            queue_bytes: 10 * 1048,
            link_rate: 10_000_000_000,
            sent_at: at_ns(now - 5_000),
        };
        for (now, cwnd) in [(100_000, 9_000.0), (100_600, 9_000.0), (100_700, 8_000.0), (101_300, 8_000.0)] {
            b.on_source_notice(&notice(now), &mut flow(at_ns(now), &mut w, &mut ss, &mut r), &p);
            assert_eq!(b.cwnd, cwnd, "at {now} ns");
        }
        assert_eq!((b.srcs, b.src_decreases), (4, 2));
        assert_eq!(w, 8_000, "the window follows");
        // Below one segment every SRC cuts multiplicatively, and the flow is paced.
        b.cwnd = 800.0;
        b.on_source_notice(&notice(200_000), &mut flow(at_ns(200_000), &mut w, &mut ss, &mut r), &p);
        assert!((b.cwnd - 800.0 * (1.0 - p.swift.max_mdf)).abs() < 1e-9, "{}", b.cwnd);
        assert_eq!(w, 1000, "at least one segment in flight");
        assert!(r < 10_000_000_000, "paced below the line rate: {r}");
    }

    /// Bolt §3.3: an ACK echoing a granted INC (INC without DEC) adds one segment; the
    /// additive increase (module header) adds `ai` segments once per round trip, when an
    /// ACK passes the byte that was next to send at the previous increase.
    #[test]
    fn a_granted_increase_adds_a_segment_and_additive_increase_comes_once_per_rtt() {
        let p = params();
        let mut b = Bolt::new(10_000);
        let (mut w, mut ss, mut r) = (10_000, 10_000, 0);
        let ack = |seq: u64, echo: u8| Ack {
            seq,
            ecn_echo: false,
            sent_at: at_ns(90_000),
            int: None,
            newly_acked: 1000,
            echo_flags: echo,
        };
        let ai = p.swift.ai * 1000.0;
        // The first ACK passes the (zero) increase mark: additive increase, next at 50,000.
        b.on_ack(&ack(1_000, 0), &mut flow(at_ns(100_000), &mut w, &mut ss, &mut r), &p);
        assert_eq!(b.cwnd, 10_000.0 + ai);
        b.on_ack(&ack(2_000, flags::INC), &mut flow(at_ns(100_100), &mut w, &mut ss, &mut r), &p);
        assert_eq!(b.cwnd, 11_000.0 + ai, "granted: one segment");
        b.on_ack(
            &ack(3_000, flags::INC | flags::DEC),
            &mut flow(at_ns(100_200), &mut w, &mut ss, &mut r),
            &p,
        );
        assert_eq!(b.cwnd, 11_000.0 + ai, "INC with DEC: an SRC was sent, no grant");
        b.on_ack(&ack(50_001, 0), &mut flow(at_ns(110_000), &mut w, &mut ss, &mut r), &p);
        assert_eq!(b.cwnd, 11_000.0 + 2.0 * ai, "a round trip later: the next additive increase");
        assert_eq!(b.rtt, Delta::from_us(20), "the RTT sample of the last ACK");
    }
}
