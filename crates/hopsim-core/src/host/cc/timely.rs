//! TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter",
//! SIGCOMM 2015, Algorithm 1): rate control from RTT samples and their gradient.
//!
//! Once per completion event the RTT of the ACK closing it updates `rtt_diff ← (1 − α)·rtt_diff + α·(rtt − prev_rtt)` and
//! `gradient = rtt_diff / min_rtt`; then
//! - `rtt < T_low`: additive increase by δ;
//! - `rtt > T_high`: `R ← R·(1 − β·(1 − T_high/rtt))`;
//! - `gradient ≤ 0`: increase by N·δ, N = 5 after `hai_threshold` consecutive non-positive
//!   gradients (hyperactive increase), else 1;
//! - otherwise: `R ← R·(1 − β·gradient)`.
//!
//! `min_rtt` is the flow's base RTT. A completion event is an ACK covering every byte that
//! was in flight at the previous one, and at least `segment` bytes (the paper's 16–64 KB
//! completions, §4): at 100 Gb/s a 16 KB segment completes every 1.3 µs, and updating that
//! often — several times per RTT on the same queue — collapses the rate to its minimum.

use crate::time::{Delta, SimTime};

/// TIMELY parameters.
#[derive(Clone, Debug)]
pub struct TimelyParams {
    pub alpha: f64,
    pub beta: f64,
    pub t_low: Delta,
    pub t_high: Delta,
    /// Additive step δ, bits/s.
    pub delta: u64,
    pub hai_threshold: u32,
    /// Bytes per completion event.
    pub segment: u64,
    pub min_rate: u64,
}

/// Per-flow TIMELY state.
#[derive(Clone, Debug, Default)]
pub struct Timely {
    prev_rtt: Option<f64>,
    rtt_diff: f64,
    non_positive: u32,
    /// The current segment completes when this byte is acknowledged.
    segment_end: u64,
}

impl Timely {
    pub fn new() -> Timely {
        Timely::default()
    }

    /// An ACK up to `ack_seq` echoing the send time `sent_at` arrived at `now`. Returns the
    /// new rate when a segment completed.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        now: SimTime,
        sent_at: SimTime,
        ack_seq: u64,
        snd_nxt: u64,
        rate: u64,
        line: u64,
        min_rtt: Delta,
        p: &TimelyParams,
    ) -> Option<u64> {
        if ack_seq < self.segment_end {
            return None;
        }
        self.segment_end = snd_nxt.max(ack_seq + p.segment);
        let rtt = now.since(sent_at).0 as f64;
        let prev = self.prev_rtt.replace(rtt)?;
        self.rtt_diff = (1.0 - p.alpha) * self.rtt_diff + p.alpha * (rtt - prev);
        let gradient = self.rtt_diff / min_rtt.0.max(1) as f64;
        let r = rate as f64;
        let new = if rtt < p.t_low.0 as f64 {
            self.non_positive = 0;
            r + p.delta as f64
        } else if rtt > p.t_high.0 as f64 {
            self.non_positive = 0;
            r * (1.0 - p.beta * (1.0 - p.t_high.0 as f64 / rtt))
        } else if gradient <= 0.0 {
            self.non_positive += 1;
            let n = if self.non_positive >= p.hai_threshold { 5.0 } else { 1.0 };
            r + n * p.delta as f64
        } else {
            self.non_positive = 0;
            r * (1.0 - p.beta * gradient)
        };
        Some((new.max(0.0) as u64).clamp(p.min_rate, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: u64 = 100_000_000_000;

    fn params() -> TimelyParams {
        TimelyParams {
            alpha: 0.5,
            beta: 0.8,
            t_low: Delta::from_us(50),
            t_high: Delta::from_us(500),
            delta: 40_000_000,
            hai_threshold: 5,
            segment: 16_000,
            min_rate: 100_000_000,
        }
    }

    fn at(us: u64) -> SimTime {
        SimTime(us * 1_000_000)
    }

    #[test]
    fn regions_of_the_rtt_curve() {
        let p = params();
        let min_rtt = Delta::from_us(10);
        let mut t = Timely::new();
        assert_eq!(
            t.on_ack(at(20), at(0), 16_000, 16_000, LINE / 2, LINE, min_rtt, &p),
            None,
            "first sample"
        );
        // Below T_low: additive.
        assert_eq!(
            t.on_ack(at(40), at(10), 32_000, 32_000, LINE / 2, LINE, min_rtt, &p),
            Some(LINE / 2 + p.delta)
        );
        // Above T_high (1 ms): R × (1 − 0.8 × (1 − 0.5)) = 0.6 R.
        let r = t.on_ack(at(2000), at(1000), 48_000, 48_000, LINE / 2, LINE, min_rtt, &p).unwrap();
        assert_eq!(r, (LINE as f64 / 2.0 * 0.6) as u64);
        // Within a segment: no update.
        assert_eq!(t.on_ack(at(2001), at(1001), 50_000, 50_000, r, LINE, min_rtt, &p), None);
    }

    #[test]
    fn gradient_decides_between_the_thresholds() {
        let p = params();
        let min_rtt = Delta::from_us(100);
        let mut t = Timely::new();
        t.on_ack(at(100), at(0), 16_000, 16_000, LINE / 2, LINE, min_rtt, &p);
        // RTT 100 → 200 us: rtt_diff = 0.5 × 100 us, gradient 0.5 → R × (1 − 0.8 × 0.5).
        let r = t.on_ack(at(300), at(100), 32_000, 32_000, LINE / 2, LINE, min_rtt, &p).unwrap();
        assert_eq!(r, (LINE as f64 / 2.0 * 0.6) as u64);
        // RTT falls back to 100 us: rtt_diff = 0.5 × 50 + 0.5 × (−100) < 0 → +δ.
        let r2 = t.on_ack(at(500), at(400), 48_000, 48_000, r, LINE, min_rtt, &p).unwrap();
        assert_eq!(r2, r + p.delta);
    }
}
