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
//!
//! The **ns-3 variant** (`variant = "ns3"`) is the HPCC ns-3 simulator's TIMELY
//! (`rdma-hw.cc`, `UpdateRateTimely`): one update per RTT, when an ACK passes the `snd_nxt`
//! of the previous update (the first only records the RTT); the gradient is divided by a
//! fixed `min_rtt` (20 µs); an increase adds δ, or `rate_hai` after five increases in a row
//! (those below T_low counted); a decrease multiplies by `max(0, c)`; the rate stays within
//! [`min_rate`, line rate].

use super::{Ack, CcBuild, CcFlow, CcParams, CongestionControl};
use crate::time::{Delta, SimTime};

/// Which TIMELY.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimelyVariant {
    /// The paper's Algorithm 1, updated per completion event.
    #[default]
    Paper,
    /// The HPCC ns-3 simulator's form.
    Ns3,
}

/// TIMELY parameters.
#[derive(Clone, Debug)]
pub struct TimelyParams {
    pub variant: TimelyVariant,
    pub alpha: f64,
    pub beta: f64,
    pub t_low: Delta,
    pub t_high: Delta,
    /// Additive step δ, bits/s.
    pub delta: u64,
    /// Step of a hyperactive increase, bits/s.
    pub rate_hai: u64,
    pub hai_threshold: u32,
    /// Bytes per completion event (paper variant).
    pub segment: u64,
    pub min_rate: u64,
    /// The gradient's normaliser; `None`: the flow's base RTT.
    pub min_rtt: Option<Delta>,
}

/// Per-flow TIMELY state.
#[derive(Clone, Debug, Default)]
pub struct Timely {
    prev_rtt: Option<f64>,
    rtt_diff: f64,
    /// Paper: consecutive non-positive gradients; ns-3: consecutive increases.
    non_positive: u32,
    /// The current segment (paper) or RTT (ns-3) completes when this byte is acknowledged.
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
        let gradient = self.rtt_diff / p.min_rtt.unwrap_or(min_rtt).0.max(1) as f64;
        let r = rate as f64;
        let new = if rtt < p.t_low.0 as f64 {
            self.non_positive = 0;
            r + p.delta as f64
        } else if rtt > p.t_high.0 as f64 {
            self.non_positive = 0;
            r * (1.0 - p.beta * (1.0 - p.t_high.0 as f64 / rtt))
        } else if gradient <= 0.0 {
            self.non_positive += 1;
            let step = if self.non_positive >= p.hai_threshold { p.rate_hai } else { p.delta };
            r + step as f64
        } else {
            self.non_positive = 0;
            r * (1.0 - p.beta * gradient)
        };
        Some((new.max(0.0) as u64).clamp(p.min_rate, line))
    }

    /// The ns-3 variant's ACK handling (see the module doc). Returns the new rate when an
    /// RTT's update happened.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack_ns3(
        &mut self,
        now: SimTime,
        sent_at: SimTime,
        ack_seq: u64,
        snd_nxt: u64,
        rate: u64,
        line: u64,
        p: &TimelyParams,
    ) -> Option<u64> {
        if ack_seq <= self.segment_end {
            return None;
        }
        let rtt = now.since(sent_at).0 as f64;
        let mut new_rate = None;
        if let Some(prev) = self.prev_rtt {
            let rtt_diff = (1.0 - p.alpha) * self.rtt_diff + p.alpha * (rtt - prev);
            let gradient =
                rtt_diff / p.min_rtt.expect("the ns-3 variant has a fixed min_rtt").0.max(1) as f64;
            let r = rate as f64;
            let increase = rtt < p.t_low.0 as f64 || (rtt <= p.t_high.0 as f64 && gradient <= 0.0);
            let rate = if increase {
                let step = if self.non_positive < p.hai_threshold { p.delta } else { p.rate_hai };
                self.non_positive += 1;
                (rate + step).min(line)
            } else {
                let c = if rtt > p.t_high.0 as f64 {
                    1.0 - p.beta * (1.0 - p.t_high.0 as f64 / rtt)
                } else {
                    (1.0 - p.beta * gradient).max(0.0)
                };
                self.non_positive = 0;
                ((r * c) as u64).max(p.min_rate)
            };
            self.rtt_diff = rtt_diff;
            new_rate = Some(rate);
        }
        if snd_nxt > self.segment_end {
            self.segment_end = snd_nxt;
            self.prev_rtt = Some(rtt);
        }
        new_rate
    }
}

impl CongestionControl for Timely {
    fn new(_: &CcBuild) -> Self {
        Timely::new()
    }

    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        let t = &p.timely;
        let rate = match t.variant {
            TimelyVariant::Paper => Timely::on_ack(
                self,
                f.now,
                ack.sent_at,
                ack.seq,
                f.snd_nxt,
                *f.rate,
                f.line_rate,
                f.base_rtt,
                t,
            ),
            TimelyVariant::Ns3 => {
                self.on_ack_ns3(f.now, ack.sent_at, ack.seq, f.snd_nxt, *f.rate, f.line_rate, t)
            }
        };
        if let Some(r) = rate {
            *f.rate = r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: u64 = 100_000_000_000;

    fn params() -> TimelyParams {
        TimelyParams {
            variant: TimelyVariant::Paper,
            rate_hai: 5 * 40_000_000,
            min_rtt: None,
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

    fn ns3_params() -> TimelyParams {
        TimelyParams {
            variant: TimelyVariant::Ns3,
            alpha: 0.875,
            beta: 0.8,
            t_low: Delta::from_us(50),
            t_high: Delta::from_us(500),
            delta: 100_000_000,
            rate_hai: 500_000_000,
            hai_threshold: 5,
            segment: 16_000,
            min_rate: 1_000_000_000,
            min_rtt: Some(Delta::from_us(20)),
        }
    }

    /// ns-3's `UpdateRateTimely`: one update per RTT (an ACK past the previous update's
    /// `snd_nxt`), the first RTT only sampled; five increases by δ, then `rate_hai`.
    #[test]
    fn ns3_variant_updates_once_per_rtt_and_hyper_increases_after_five() {
        let p = ns3_params();
        let mut t = Timely::new();
        let r0 = LINE / 2;
        assert_eq!(t.on_ack_ns3(at(30), at(0), 1_000, 10_000, r0, LINE, &p), None, "first RTT: sample only");
        assert_eq!(t.on_ack_ns3(at(35), at(5), 5_000, 12_000, r0, LINE, &p), None, "same RTT");
        let mut rate = r0;
        let mut end = 10_000;
        for i in 1..=6u64 {
            // RTT 30 µs < T_low: increase.
            let got = t.on_ack_ns3(at(100 * i + 30), at(100 * i), end + 1_000, end + 10_000, rate, LINE, &p);
            let step = if i <= 5 { p.delta } else { p.rate_hai };
            assert_eq!(got, Some(rate + step), "increase {i}");
            rate += step;
            end += 10_000;
            assert_eq!(
                t.on_ack_ns3(at(100 * i + 31), at(100 * i), end - 5_000, end + 5_000, rate, LINE, &p),
                None
            );
        }
        // RTT 1 ms > T_high: R × (1 − 0.8 × (1 − 0.5)).
        let got = t.on_ack_ns3(at(2_000), at(1_000), end + 1_000, end + 10_000, rate, LINE, &p).unwrap();
        assert_eq!(got, (rate as f64 * 0.6) as u64);
        end += 10_000;
        // A deep cut stops at min_rate.
        let floor = t.on_ack_ns3(at(12_000), at(2_000), end + 1_000, end + 10_000, p.min_rate, LINE, &p);
        assert_eq!(floor, Some(p.min_rate));
    }

    /// Between T_low and T_high the gradient decides, normalised by the fixed 20 µs.
    #[test]
    fn ns3_variant_gradient_uses_the_fixed_min_rtt() {
        let p = ns3_params();
        let mut t = Timely::new();
        let r = LINE / 2;
        t.on_ack_ns3(at(100), at(0), 1_000, 10_000, r, LINE, &p); // sample 100 µs
                                                                  // 120 µs: rtt_diff = 0.875 × 20 µs = 17.5 µs; gradient 17.5 / 20 = 0.875.
        let got = t.on_ack_ns3(at(1_120), at(1_000), 11_000, 20_000, r, LINE, &p).unwrap();
        assert_eq!(got, (r as f64 * (1.0 - 0.8 * 0.875)) as u64);
        // 110 µs: rtt_diff = 0.125 × 17.5 + 0.875 × (−10) < 0: increase by δ.
        let got = t.on_ack_ns3(at(2_110), at(2_000), 21_000, 30_000, r, LINE, &p).unwrap();
        assert_eq!(got, r + p.delta);
    }
}
