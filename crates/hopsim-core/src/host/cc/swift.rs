//! Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in
//! the Datacenter", SIGCOMM 2020), Algorithm 1: a window in packets (fractional) that
//! grows additively while the measured delay is below a target and shrinks
//! multiplicatively — in proportion to how far above the target the delay is, at most
//! once per round trip — when it is not.
//!
//! The target (§3.2, §3.3) is a base plus a per-hop allowance times the path's switch
//! hops, plus flow-based scaling: `α/√cwnd + β` clamped to `[0, fs_range]`, so flows with
//! small windows (many competing flows) aim higher, with `α` and `β` set so the scaling is
//! `fs_range` at `fs_min_cwnd` and 0 at `fs_max_cwnd`. The delay compared is the fabric
//! delay: hopsim's hosts add no processing delay, so the round trip measured from the
//! echoed send time is all fabric. Below one packet the window is enforced by pacing
//! (§3.4): one packet per `RTT / cwnd`. A fast retransmit cuts by `max_mdf`; timeouts cut
//! by `max_mdf` too, and to the minimum window after `retx_reset_threshold` in a row.

use super::{Ack, CcBuild, CcFlow, CcParams, CongestionControl, Loss};
use crate::time::{Delta, SimTime, PS_PER_S};

/// Swift parameters (`[transport.swift]`).
#[derive(Clone, Debug)]
pub struct SwiftParams {
    /// Additive increase, packets per round trip.
    pub ai: f64,
    /// Multiplicative-decrease gain.
    pub beta: f64,
    /// Largest multiplicative decrease per round trip.
    pub max_mdf: f64,
    /// Target delay without hops or flow scaling.
    pub base_target: Delta,
    /// Target allowance per switch hop.
    pub hop_scale: Delta,
    /// Flow-based scaling: the most it adds, and the windows (packets) at which it adds
    /// all of it and nothing.
    pub fs_range: Delta,
    pub fs_min_cwnd: f64,
    pub fs_max_cwnd: f64,
    /// Window bounds, packets.
    pub min_cwnd: f64,
    pub max_cwnd: f64,
    /// Timeouts in a row after which the window drops to `min_cwnd`.
    pub retx_reset_threshold: u32,
}

/// Per-flow Swift state.
#[derive(Clone, Debug)]
pub struct Swift {
    /// Congestion window, packets.
    pub cwnd: f64,
    last_decrease: Option<SimTime>,
    /// Latest round-trip sample (paces sub-packet windows and spaces decreases).
    pub rtt: Delta,
    retransmits: u32,
}

impl Swift {
    /// A flow starting with `initial` packets of window.
    pub fn new(initial: f64) -> Swift {
        Swift { cwnd: initial, last_decrease: None, rtt: Delta::ZERO, retransmits: 0 }
    }

    /// The target delay for this window over `hops` switch hops (§3.2–3.3).
    pub fn target(&self, hops: u32, p: &SwiftParams) -> Delta {
        let range = p.fs_range.0 as f64;
        let alpha = range / (1.0 / p.fs_min_cwnd.sqrt() - 1.0 / p.fs_max_cwnd.sqrt());
        let beta = -alpha / p.fs_max_cwnd.sqrt();
        let fs = (alpha / self.cwnd.max(1e-9).sqrt() + beta).clamp(0.0, range);
        p.base_target + Delta(p.hop_scale.0 * hops as u64) + Delta(fs as u64)
    }

    fn can_decrease(&self, now: SimTime) -> bool {
        self.last_decrease.is_none_or(|t| now.since(t) >= self.rtt)
    }

    fn decrease(&mut self, factor: f64, now: SimTime) {
        self.cwnd *= factor;
        self.last_decrease = Some(now);
    }

    /// Write the window (bytes, at least one packet) and the pacing rate to the flow.
    fn apply(&mut self, f: &mut CcFlow<'_>, p: &SwiftParams) {
        self.cwnd = self.cwnd.clamp(p.min_cwnd, p.max_cwnd);
        let bytes = ((self.cwnd * f.mss as f64) as u64).max(f.mss);
        *f.ssthresh = bytes;
        if !f.in_recovery {
            *f.window = bytes;
        }
        *f.rate = if self.cwnd < 1.0 && self.rtt > Delta::ZERO {
            // One packet per RTT / cwnd.
            let bits = self.cwnd * f.packet_bytes as f64 * 8.0;
            ((bits * PS_PER_S as f64 / self.rtt.0 as f64) as u64).clamp(1, f.line_rate)
        } else {
            f.line_rate
        };
    }
}

impl CongestionControl for Swift {
    /// The initial window in packets: the flow's window over its MSS.
    fn new(b: &CcBuild) -> Self {
        Swift::new((b.window / b.mss) as f64)
    }

    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        let s = &p.swift;
        let delay = f.now.since(ack.sent_at);
        self.rtt = delay;
        if ack.newly_acked > 0 {
            self.retransmits = 0;
        }
        let target = self.target(f.hops, s);
        if delay < target {
            let acked = ack.newly_acked as f64 / f.mss as f64;
            if self.cwnd >= 1.0 {
                self.cwnd += s.ai / self.cwnd * acked;
            } else {
                self.cwnd += s.ai * acked;
            }
        } else if self.can_decrease(f.now) {
            let over = (delay.0 - target.0) as f64 / delay.0 as f64;
            self.decrease((1.0 - s.beta * over).max(1.0 - s.max_mdf), f.now);
        }
        self.apply(f, s);
    }

    fn on_loss(&mut self, loss: Loss, f: &mut CcFlow<'_>, p: &CcParams) {
        let s = &p.swift;
        match loss {
            Loss::FastRetransmit { .. } => {
                self.retransmits = 0;
                if self.can_decrease(f.now) {
                    self.decrease(1.0 - s.max_mdf, f.now);
                }
            }
            Loss::Timeout { .. } => {
                self.retransmits += 1;
                if self.retransmits >= s.retx_reset_threshold {
                    self.cwnd = s.min_cwnd;
                    self.last_decrease = Some(f.now);
                } else if self.can_decrease(f.now) {
                    self.decrease(1.0 - s.max_mdf, f.now);
                }
            }
        }
        self.apply(f, s);
        if matches!(loss, Loss::Timeout { .. }) {
            *f.window = f.mss;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> SwiftParams {
        crate::scenario::default_cc_params(1000).swift
    }

    /// Flow scaling adds the whole range at `fs_min_cwnd` and nothing at `fs_max_cwnd`;
    /// each hop adds its allowance.
    #[test]
    fn target_scales_with_hops_and_window() {
        let p = params();
        let at = |cwnd: f64, hops: u32| Swift { cwnd, ..Swift::new(1.0) }.target(hops, &p);
        assert_eq!(at(p.fs_max_cwnd, 0), p.base_target);
        let full = at(p.fs_min_cwnd, 0);
        assert!(full.0.abs_diff((p.base_target + p.fs_range).0) <= 1, "{full:?}");
        assert_eq!(at(p.fs_max_cwnd, 4), p.base_target + Delta(4 * p.hop_scale.0));
        assert!(at(2.0, 0) > at(20.0, 0), "smaller windows aim higher");
    }
}
