//! Window-based TCP congestion control: NewReno's window (RFC 5681, RFC 6582) and DCTCP's
//! (Alizadeh et al., SIGCOMM 2010, §3). Both grow the congestion window the same way —
//! slow start below `ssthresh`, then about one segment per round trip — and differ in
//! what shrinks it: a loss halves NewReno's window; DCTCP also cuts it by `α/2` once per
//! window of data when ACKs echo ECN marks, `α` being the fraction of marked ACKs
//! averaged over windows with gain `g`.
//!
//! The window is in payload bytes (the sender's limit on `snd_nxt − snd_una`); the
//! sender's fast-recovery inflation (RFC 5681 §3.2 steps 4–6) happens outside, so these
//! algorithms do not grow the window while the sender is in recovery.

use super::{Ack, CcBuild, CcFlow, CcParams, CongestionControl, Loss};

/// Parameters of the window-based algorithms.
#[derive(Clone, Debug)]
pub struct WindowParams {
    /// DCTCP's EWMA gain g (DCTCP paper §3.1: 1/16).
    pub dctcp_g: f64,
    /// Smallest window, in segments, after a loss (RFC 5681: 2 after fast retransmit;
    /// the loss window after a timeout is always 1).
    pub min_segments: u64,
}

impl Default for WindowParams {
    fn default() -> Self {
        WindowParams { dctcp_g: 1.0 / 16.0, min_segments: 2 }
    }
}

/// RFC 5681 §3.1 growth: slow start adds the bytes acknowledged (at most one segment per
/// ACK, RFC 3465's L = 1), congestion avoidance about one segment per window.
#[inline]
pub(crate) fn grow(f: &mut CcFlow<'_>, newly_acked: u64) {
    if f.in_recovery || newly_acked == 0 {
        return;
    }
    let cwnd = *f.window;
    if cwnd < *f.ssthresh {
        *f.window = cwnd + newly_acked.min(f.mss);
    } else {
        *f.window = cwnd + (f.mss * f.mss / cwnd.max(1)).max(1);
    }
}

/// The window after a loss: half the data in flight (at least `min_segments`), and one
/// segment after a timeout (RFC 5681 (4) and §3.1's loss window).
pub(crate) fn on_loss(loss: Loss, f: &mut CcFlow<'_>, p: &CcParams) {
    let floor = p.window.min_segments * f.mss;
    match loss {
        Loss::FastRetransmit { flight } => {
            *f.ssthresh = (flight / 2).max(floor);
            *f.window = *f.ssthresh;
        }
        Loss::Timeout { flight } => {
            *f.ssthresh = (flight / 2).max(floor);
            *f.window = f.mss;
        }
    }
}

/// TCP NewReno's congestion window.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn new(_: &CcBuild) -> Self {
        Reno
    }

    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, _p: &CcParams) {
        grow(f, ack.newly_acked);
    }

    fn on_loss(&mut self, loss: Loss, f: &mut CcFlow<'_>, p: &CcParams) {
        on_loss(loss, f, p);
    }
}

/// DCTCP's congestion window (DCTCP §3.1–3.2): `α ← (1 − g)·α + g·F` once per window of
/// data, `F` the fraction of that window's acknowledged bytes whose ACKs echoed ECN; on
/// the first echo of a window, `cwnd ← cwnd·(1 − α/2)` (and `ssthresh` with it), then no
/// further cut until the data sent before the cut is acknowledged. Losses act as in
/// NewReno.
#[derive(Clone, Debug)]
pub struct TcpDctcp {
    pub alpha: f64,
    acked: u64,
    marked: u64,
    /// The current observation window ends when this byte is acknowledged.
    window_end: u64,
    /// No further cut until this byte is acknowledged.
    cwr_end: u64,
    last_ack: u64,
}

impl TcpDctcp {
    /// α starts at 1, as in the Linux implementation (`dctcp_alpha_on_init`).
    pub fn new() -> TcpDctcp {
        TcpDctcp { alpha: 1.0, acked: 0, marked: 0, window_end: 0, cwr_end: 0, last_ack: 0 }
    }
}

impl Default for TcpDctcp {
    fn default() -> Self {
        Self::new()
    }
}

impl CongestionControl for TcpDctcp {
    fn new(_: &CcBuild) -> Self {
        TcpDctcp::new()
    }

    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        // Bytes this ACK stands for: what it newly acknowledges, or one segment for a
        // duplicate (each acknowledges a segment that arrived).
        let bytes = if ack.newly_acked > 0 { ack.newly_acked } else { f.mss };
        self.acked += bytes;
        if ack.ecn_echo {
            self.marked += bytes;
        }
        self.last_ack = self.last_ack.max(ack.seq);
        if ack.seq >= self.window_end {
            if self.acked > 0 && self.window_end > 0 {
                let fraction = (self.marked as f64 / self.acked as f64).min(1.0);
                self.alpha = (1.0 - p.window.dctcp_g) * self.alpha + p.window.dctcp_g * fraction;
            }
            self.acked = 0;
            self.marked = 0;
            self.window_end = f.snd_nxt.max(ack.seq + 1);
        }
        if ack.ecn_echo && ack.seq >= self.cwr_end && !f.in_recovery {
            let floor = p.window.min_segments * f.mss;
            let cut = ((*f.window as f64) * (1.0 - self.alpha / 2.0)) as u64;
            *f.window = cut.max(floor);
            *f.ssthresh = *f.window;
            self.cwr_end = f.snd_nxt;
            return;
        }
        grow(f, ack.newly_acked);
    }

    fn on_loss(&mut self, loss: Loss, f: &mut CcFlow<'_>, p: &CcParams) {
        on_loss(loss, f, p);
        self.cwr_end = f.snd_nxt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Delta, SimTime};

    pub(crate) fn params() -> CcParams {
        crate::scenario::default_cc_params(1000)
    }

    fn flow<'a>(window: &'a mut u64, ssthresh: &'a mut u64, rate: &'a mut u64, snd_nxt: u64) -> CcFlow<'a> {
        CcFlow {
            now: SimTime::ZERO,
            rate,
            next_avail: Box::leak(Box::new(SimTime::ZERO)),
            window,
            line_rate: 10_000_000_000,
            base_rtt: Delta::from_us(10),
            bdp: 12_500,
            snd_nxt,
            packet_bytes: 1048,
            timer: None,
            ssthresh,
            in_recovery: false,
            mss: 1000,
            hops: 2,
        }
    }

    fn ack(seq: u64, newly_acked: u64, ecn_echo: bool) -> Ack<'static> {
        Ack { seq, ecn_echo, sent_at: SimTime::ZERO, int: None, newly_acked, echo_flags: 0 }
    }

    /// Slow start doubles the window per round trip; congestion avoidance adds one segment.
    #[test]
    fn reno_slow_start_then_congestion_avoidance() {
        let p = params();
        let (mut w, mut ss, mut r) = (10_000, 20_000, 0);
        let mut reno = Reno;
        for i in 0..10 {
            reno.on_ack(&ack(1000 * (i + 1), 1000, false), &mut flow(&mut w, &mut ss, &mut r, 0), &p);
        }
        assert_eq!(w, 20_000, "ten ACKs of slow start add ten segments");
        for i in 0..20 {
            reno.on_ack(&ack(1000 * (i + 11), 1000, false), &mut flow(&mut w, &mut ss, &mut r, 0), &p);
        }
        assert!((20_900..=21_000).contains(&w), "one window of ACKs adds about one segment: {w}");
        reno.on_loss(Loss::FastRetransmit { flight: 21_000 }, &mut flow(&mut w, &mut ss, &mut r, 0), &p);
        assert_eq!((w, ss), (10_500, 10_500), "halved");
        reno.on_loss(Loss::Timeout { flight: 10_000 }, &mut flow(&mut w, &mut ss, &mut r, 0), &p);
        assert_eq!((w, ss), (1000, 5000), "loss window of one segment");
    }

    /// DCTCP cuts by α/2 once per window: with every ACK marked α stays 1 and the window
    /// halves once, not once per ACK.
    #[test]
    fn dctcp_cuts_once_per_window_by_alpha_over_two() {
        let p = params();
        let (mut w, mut ss, mut r) = (20_000, 10_000, 0);
        let mut d = TcpDctcp::new();
        d.on_ack(&ack(1000, 1000, true), &mut flow(&mut w, &mut ss, &mut r, 20_000), &p);
        assert_eq!(w, 10_000, "α = 1 halves");
        d.on_ack(&ack(2000, 1000, true), &mut flow(&mut w, &mut ss, &mut r, 21_000), &p);
        assert_eq!(w, 10_100, "no second cut in the same window (congestion avoidance goes on)");
        // A clean window lowers α: 15/16.
        for i in 0..30 {
            d.on_ack(&ack(3000 + 1000 * i, 1000, false), &mut flow(&mut w, &mut ss, &mut r, 40_000), &p);
        }
        assert!(d.alpha < 1.0 && d.alpha > 0.8, "{}", d.alpha);
    }
}
