//! DCQCN reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA
//! Deployments", SIGCOMM 2015, §3), in the timer-driven form of the HPCC ns-3 simulator
//! (`rdma-hw.cc`, Mellanox mode):
//!
//! - the first CNP sets alpha = 1 and starts two grids: alpha updates every
//!   `alpha_interval` (`alpha ← (1−g)·alpha + g` if a CNP arrived in the interval, else
//!   `(1−g)·alpha`) and rate-decrease checks every `decrease_interval` (if a CNP arrived:
//!   target ← rate when clamping, rate ← rate·(1 − alpha/2), stage ← 0, restart the
//!   increase timer);
//! - the increase timer fires every `increase_timer`: stage < F is fast recovery
//!   (rate ← (rate + target)/2), stage = F additive increase (target += R_AI), stage > F
//!   hyper increase (target += R_HAI), each followed by rate ← (rate + target)/2;
//! - optionally (byte_counter > 0) every `byte_counter` bytes sent also triggers an
//!   increase step, with the phase chosen from both counters as in the paper.
//!
//! Alpha is updated lazily — the closed form of the periodic update is applied when the
//! value is needed — and decrease checks are only scheduled when a CNP is pending; both
//! give the same values as the periodic timers without one event per microsecond per flow.

use super::{CcBuild, CcFlow, CcParams, CongestionControl, TimerRequest};
use crate::engine::TimerKind;
use crate::time::{Delta, SimTime};

/// DCQCN parameters in simulator units.
#[derive(Clone, Debug)]
pub struct DcqcnParams {
    pub g: f64,
    pub alpha_interval: Delta,
    pub decrease_interval: Delta,
    pub increase_timer: Delta,
    pub byte_counter: u64,
    pub fast_recovery_steps: u32,
    pub rate_ai: u64,
    pub rate_hai: u64,
    pub min_rate: u64,
    pub clamp_target_rate: bool,
}

/// Reaction-point state of one flow. Rates are bits/s; the current rate lives in the
/// flow (the NIC's rate limiter reads it).
#[derive(Clone, Debug)]
pub struct Dcqcn {
    pub target: u64,
    pub alpha: f64,
    alpha_flag: bool,
    decrease_flag: bool,
    /// First CNP time + interval: first grid point of each timer (None before any CNP).
    alpha_next: Option<SimTime>,
    decrease_origin: Option<SimTime>,
    decrease_pending: bool,
    stage: u32,
    byte_stage: u32,
    bytes: u64,
    pub decreases: u32,
}

/// Round-up average, so repeated halving towards a target reaches it exactly.
fn average_up(a: u64, b: u64) -> u64 {
    a / 2 + b / 2 + (a % 2 + b % 2).div_ceil(2)
}

impl Dcqcn {
    pub fn new(line_rate: u64) -> Dcqcn {
        Dcqcn {
            target: line_rate,
            alpha: 1.0,
            alpha_flag: false,
            decrease_flag: false,
            alpha_next: None,
            decrease_origin: None,
            decrease_pending: false,
            stage: 0,
            byte_stage: 0,
            bytes: 0,
            decreases: 0,
        }
    }

    /// Apply every alpha update due at or before `now`.
    fn advance_alpha(&mut self, now: SimTime, p: &DcqcnParams) {
        let Some(next) = self.alpha_next else { return };
        if next > now {
            return;
        }
        let steps = (now.0 - next.0) / p.alpha_interval.0 + 1;
        let keep = 1.0 - p.g;
        self.alpha = if self.alpha_flag { keep * self.alpha + p.g } else { keep * self.alpha };
        if steps > 1 {
            self.alpha *= keep.powi((steps - 1).min(i32::MAX as u64) as i32);
        }
        self.alpha_flag = false;
        self.alpha_next = Some(SimTime(next.0 + steps * p.alpha_interval.0));
    }

    /// A CNP (or an ACK echoing congestion) arrived. Returns when to run the next
    /// rate-decrease check, if one must be scheduled.
    pub fn on_cnp(&mut self, now: SimTime, p: &DcqcnParams) -> Option<SimTime> {
        if self.alpha_next.is_none() {
            // First CNP: alpha = 1 and both timer grids start now.
            self.alpha = 1.0;
            self.alpha_next = Some(now + p.alpha_interval);
            self.decrease_origin = Some(now + p.decrease_interval + Delta::from_ns(1));
        } else {
            self.advance_alpha(now, p);
            self.alpha_flag = true;
        }
        self.decrease_flag = true;
        if self.decrease_pending {
            return None;
        }
        self.decrease_pending = true;
        let origin = self.decrease_origin.expect("set on first CNP");
        if origin > now {
            return Some(origin);
        }
        let k = (now.0 - origin.0) / p.decrease_interval.0 + 1;
        Some(SimTime(origin.0 + k * p.decrease_interval.0))
    }

    /// The rate-decrease check fired. Returns when to fire the increase timer if the
    /// rate was cut (the timer restarts).
    pub fn on_decrease_check(&mut self, now: SimTime, p: &DcqcnParams, rate: &mut u64) -> Option<SimTime> {
        self.decrease_pending = false;
        if !self.decrease_flag {
            return None;
        }
        self.decrease_flag = false;
        self.advance_alpha(now, p);
        if p.clamp_target_rate || self.stage != 0 {
            self.target = *rate;
        }
        *rate = ((*rate as f64 * (1.0 - self.alpha / 2.0)) as u64).max(p.min_rate);
        self.stage = 0;
        self.byte_stage = 0;
        self.bytes = 0;
        self.decreases += 1;
        Some(now + p.increase_timer)
    }

    /// The rate-increase timer fired. Returns when to fire it again (None once the rate
    /// is back at line rate).
    pub fn on_increase_timer(
        &mut self,
        now: SimTime,
        p: &DcqcnParams,
        rate: &mut u64,
        line: u64,
    ) -> Option<SimTime> {
        self.increase(p, rate, line, self.stage);
        self.stage += 1;
        (*rate < line || self.target < line).then(|| now + p.increase_timer)
    }

    /// Count sent bytes for the optional byte counter; may raise the rate.
    pub fn on_bytes_sent(&mut self, bytes: u64, p: &DcqcnParams, rate: &mut u64, line: u64) {
        if p.byte_counter == 0 || self.decreases == 0 {
            return;
        }
        self.bytes += bytes;
        while self.bytes >= p.byte_counter {
            self.bytes -= p.byte_counter;
            self.byte_stage += 1;
            // Paper: fast recovery while both counters are below F, hyper increase when
            // both exceed F, additive otherwise.
            let f = p.fast_recovery_steps;
            let phase = if self.stage.max(self.byte_stage) < f {
                0
            } else if self.stage.min(self.byte_stage) > f {
                f + 1
            } else {
                f
            };
            self.increase(p, rate, line, phase);
        }
    }

    fn increase(&mut self, p: &DcqcnParams, rate: &mut u64, line: u64, stage: u32) {
        let f = p.fast_recovery_steps;
        if stage == f {
            self.target = (self.target + p.rate_ai).min(line);
        } else if stage > f {
            self.target = (self.target + p.rate_hai).min(line);
        }
        *rate = average_up(*rate, self.target).min(line);
    }
}

impl CongestionControl for Dcqcn {
    /// DCQCN reacts to CNPs the receiver paces (DCQCN §3), not to ECN echoed in ACKs.
    const USES_CNP: bool = true;

    fn new(b: &CcBuild) -> Self {
        Dcqcn::new(b.line_rate)
    }

    fn on_congestion_notification(&mut self, f: &mut CcFlow<'_>, p: &CcParams) {
        if let Some(at) = self.on_cnp(f.now, &p.dcqcn) {
            f.timer = Some(TimerRequest { kind: TimerKind::DcqcnDecrease, at, restart: false });
        }
    }

    fn on_send(&mut self, bytes: u64, f: &mut CcFlow<'_>, p: &CcParams) {
        self.on_bytes_sent(bytes, &p.dcqcn, f.rate, f.line_rate);
    }

    fn on_timer(&mut self, kind: TimerKind, f: &mut CcFlow<'_>, p: &CcParams) {
        match kind {
            TimerKind::DcqcnDecrease => {
                if let Some(at) = self.on_decrease_check(f.now, &p.dcqcn, f.rate) {
                    f.timer = Some(TimerRequest { kind: TimerKind::DcqcnIncrease, at, restart: true });
                }
            }
            TimerKind::DcqcnIncrease => {
                if let Some(at) = self.on_increase_timer(f.now, &p.dcqcn, f.rate, f.line_rate) {
                    f.timer = Some(TimerRequest { kind, at, restart: false });
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> DcqcnParams {
        DcqcnParams {
            g: 1.0 / 256.0,
            alpha_interval: Delta::from_us(1),
            decrease_interval: Delta::from_us(4),
            increase_timer: Delta::from_us(300),
            byte_counter: 0,
            fast_recovery_steps: 1,
            rate_ai: 20_000_000,
            rate_hai: 200_000_000,
            min_rate: 1_000_000_000,
            clamp_target_rate: false,
        }
    }

    const LINE: u64 = 100_000_000_000;

    #[test]
    fn first_cnp_halves_the_rate_at_the_next_check() {
        let p = params();
        let mut d = Dcqcn::new(LINE);
        let mut rate = LINE;
        let t0 = SimTime(1_000_000);
        let check = d.on_cnp(t0, &p).unwrap();
        assert_eq!(check, t0 + Delta::from_us(4) + Delta::from_ns(1));
        let inc = d.on_decrease_check(check, &p, &mut rate).unwrap();
        // alpha decayed for 4 intervals without CNP: (1-g)^4.
        let alpha = (1.0f64 - 1.0 / 256.0).powi(4);
        assert!((d.alpha - alpha).abs() < 1e-12);
        assert_eq!(rate, (LINE as f64 * (1.0 - alpha / 2.0)) as u64);
        // No clamp on the first cut: the target stays at line rate.
        assert_eq!(d.target, LINE);
        assert_eq!(inc, check + Delta::from_us(300));
    }

    #[test]
    fn lazy_alpha_equals_periodic_updates() {
        let p = params();
        let mut lazy = Dcqcn::new(LINE);
        lazy.on_cnp(SimTime(0), &p);
        // CNPs at 2.5us and 7.2us; read at 20us.
        lazy.on_cnp(SimTime(2_500_000), &p);
        lazy.on_cnp(SimTime(7_200_000), &p);
        lazy.advance_alpha(SimTime(20_000_000), &p);
        // Periodic: updates at 1,2,...,20 us; flags in the intervals (2,3] and (7,8].
        let mut a = 1.0f64;
        for k in 1..=20 {
            let flag = k == 3 || k == 8;
            a = (1.0 - p.g) * a + if flag { p.g } else { 0.0 };
        }
        assert!((lazy.alpha - a).abs() < 1e-12, "{} vs {a}", lazy.alpha);
    }

    #[test]
    fn recovery_phases_reach_line_rate() {
        let p = params();
        let mut d = Dcqcn::new(LINE);
        let mut rate = LINE;
        let c = d.on_cnp(SimTime(0), &p).unwrap();
        let mut t = d.on_decrease_check(c, &p, &mut rate).unwrap();
        let cut = rate;
        // stage 0 < F=1: fast recovery towards the (unclamped) target = line rate.
        d.on_increase_timer(t, &p, &mut rate, LINE);
        assert_eq!(rate, average_up(cut, LINE));
        let mut steps = 1;
        while let Some(next) = d.on_increase_timer(t, &p, &mut rate, LINE) {
            t = next;
            steps += 1;
            assert!(steps < 10_000);
        }
        assert_eq!(rate, LINE);
    }
}
