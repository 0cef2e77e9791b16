//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, §3.3 and
//! Algorithm 1), in the rate form of the HPCC ns-3 simulator (`UpdateRateHp`):
//!
//! for every hop of the ACK's INT stack, `u = txRate / B + min(qlen, qlen_prev) / (B · T)`
//! where `txRate` is the hop's transmit rate since the previous ACK's record and `T` the base
//! RTT; the most utilised hop drives an EWMA `U ← (U·(T − τ) + u·τ) / T` with `τ` the time
//! between the two records (at most `T`). Then, with `c = U / η`:
//! `c ≥ 1` or `stage ≥ maxStage` → `R = Rc / c + R_AI`, stage 0 (multiplicative step);
//! otherwise `R = Rc + R_AI`, stage + 1 (additive step). The reference rate `Rc` (and the
//! stage) is committed once per RTT — when the ACK covers the first byte sent after the
//! previous commit — while every other ACK applies `R` from `Rc` without committing
//! ("fast react"). The window follows the rate: `W = BDP × R / line rate`.

use super::{Ack, CcBuild, CcFlow, CcParams, CongestionControl};
use crate::fabric::int::{IntHop, IntStack};
use crate::time::{Delta, SimTime, PS_PER_S};

/// HPCC parameters.
#[derive(Clone, Debug)]
pub struct HpccParams {
    /// Target utilisation η.
    pub eta: f64,
    /// Additive-increase stages before a multiplicative step is forced.
    pub max_stage: u32,
    /// Additive increase per update, bits/s.
    pub rate_ai: u64,
    pub min_rate: u64,
    /// Read INT in the HPCC ns-3 simulator's header units (`IntHop::Set` / `Get*`).
    pub int_ns3: bool,
    /// Its `INT_MULTI` (0: the line rate / 25 Gb/s, as `run.py` sets it for HPCC).
    pub int_multi: u64,
    /// Move the next send time on a rate change (`RdmaHw::ChangeRate`).
    pub shift_next_send: bool,
}

/// Units of the HPCC ns-3 simulator's INT header (`int-header.h`): transmitted bytes in
/// 128-byte and queue lengths in 80-byte steps, each times `INT_MULTI`.
const NS3_INT_BYTE_UNIT: u64 = 128;
const NS3_INT_QLEN_UNIT: u64 = 80;
/// `run.py` sets `INT_MULTI` to the line rate over 25 Gb/s for HPCC.
const NS3_INT_MULTI_RATE: u64 = 25_000_000_000;

/// A hop's record as the ns-3 header carries it: counters rounded down to their units
/// (`IntHop::Set` divides, `Get*` multiplies back) and the time in whole ns.
fn ns3_units(hop: &IntHop, line: u64, int_multi: u64) -> IntHop {
    let multi = if int_multi > 0 { int_multi } else { (line / NS3_INT_MULTI_RATE).max(1) };
    let (bytes, qlen) = (NS3_INT_BYTE_UNIT * multi, NS3_INT_QLEN_UNIT * multi);
    IntHop {
        queue_bytes: hop.queue_bytes / qlen * qlen,
        tx_bytes: hop.tx_bytes / bytes * bytes,
        time: SimTime(hop.time.0 / 1000 * 1000),
        rate: hop.rate,
    }
}

/// Per-flow HPCC state.
#[derive(Clone, Debug)]
pub struct Hpcc {
    /// Reference rate `Rc`, bits/s.
    pub reference: u64,
    utilisation: f64,
    stage: u32,
    /// Updates commit when an ACK acknowledges beyond this sequence number.
    last_update_seq: u64,
    /// The previous ACK's telemetry, per hop.
    previous: Option<IntStack>,
}

impl Hpcc {
    pub fn new(line_rate: u64) -> Hpcc {
        Hpcc { reference: line_rate, utilisation: 1.0, stage: 0, last_update_seq: 0, previous: None }
    }

    /// An ACK acknowledging up to `ack_seq` arrived with `int`; `snd_nxt` is the next byte
    /// to send. Returns the new sending rate, bits/s.
    pub fn on_ack(
        &mut self,
        int: &IntStack,
        ack_seq: u64,
        snd_nxt: u64,
        base_rtt: Delta,
        line: u64,
        p: &HpccParams,
    ) -> Option<u64> {
        let Some(prev) = self.previous.replace(*int) else {
            self.last_update_seq = snd_nxt;
            return None; // the first record only gives a reference point
        };
        if int.hops == 0 || prev.hops != int.hops {
            return None; // path changed or no telemetry: wait for a consistent pair
        }
        let t = base_rtt.0.max(1) as f64;
        // The most utilised hop.
        let mut max_u = 0.0f64;
        let mut tau_of_max = 0.0f64;
        for (now, before) in int.hop.iter().zip(prev.hop.iter()).take(int.hops as usize) {
            let (now, before) = if p.int_ns3 {
                (&ns3_units(now, line, p.int_multi), &ns3_units(before, line, p.int_multi))
            } else {
                (now, before)
            };
            let dt = now.time.0.saturating_sub(before.time.0);
            if dt == 0 {
                continue;
            }
            let b = now.rate.0 as f64;
            let tx_rate =
                now.tx_bytes.saturating_sub(before.tx_bytes) as f64 * 8.0 * PS_PER_S as f64 / dt as f64;
            let queue = now.queue_bytes.min(before.queue_bytes) as f64 * 8.0;
            let u = tx_rate / b + queue * PS_PER_S as f64 / (b * t);
            if u > max_u {
                max_u = u;
                tau_of_max = (dt as f64).min(t);
            }
        }
        if tau_of_max == 0.0 {
            return None;
        }
        let utilisation = (self.utilisation * (t - tau_of_max) + max_u * tau_of_max) / t;
        let c = utilisation / p.eta;
        let (rate, stage) = if c >= 1.0 || self.stage >= p.max_stage {
            ((self.reference as f64 / c) as u64 + p.rate_ai, 0)
        } else {
            (self.reference + p.rate_ai, self.stage + 1)
        };
        let rate = rate.clamp(p.min_rate, line);
        self.utilisation = utilisation;
        if ack_seq > self.last_update_seq {
            // Once per RTT: commit the reference rate and the stage.
            self.reference = rate;
            self.stage = stage;
            self.last_update_seq = snd_nxt;
        }
        Some(rate)
    }
}

impl CongestionControl for Hpcc {
    fn new(b: &CcBuild) -> Self {
        Hpcc::new(b.line_rate)
    }

    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        let Some(int) = ack.int else { return };
        if let Some(rate) = Hpcc::on_ack(self, int, ack.seq, f.snd_nxt, f.base_rtt, f.line_rate, &p.hpcc) {
            if p.hpcc.shift_next_send && rate != *f.rate {
                // `RdmaHw::ChangeRate`: next send += the last packet's time at the new rate
                // − at the old one (ns-3 sizes it by `lastPktSize`: a full packet here).
                let bits = f.packet_bytes as f64 * 8.0 * PS_PER_S as f64;
                let shift = bits / rate as f64 - bits / *f.rate as f64;
                f.next_avail.0 = (f.next_avail.0 as f64 + shift).max(0.0) as u64;
            }
            *f.rate = rate;
            // The window, if the flow has one, follows the rate (the HPCC simulator's
            // VAR_WIN).
            if *f.window != 0 {
                *f.window = ((f.bdp as u128 * rate as u128 / f.line_rate as u128) as u64).max(f.packet_bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Rate;

    fn stack(time_ns: u64, tx_bytes: u64, queue_bytes: u64) -> IntStack {
        let mut hop = [IntHop::default(); crate::fabric::int::INT_MAX_HOPS];
        hop[0] = IntHop { queue_bytes, tx_bytes, time: SimTime(time_ns * 1000), rate: Rate::gbps(100) };
        IntStack { hops: 1, hop }
    }

    const LINE: u64 = 100_000_000_000;

    fn params() -> HpccParams {
        HpccParams {
            eta: 0.95,
            max_stage: 5,
            rate_ai: 50_000_000,
            min_rate: 100_000_000,
            int_ns3: false,
            int_multi: 0,
            shift_next_send: false,
        }
    }

    #[test]
    fn a_full_link_with_a_queue_cuts_the_rate_below_eta() {
        let p = params();
        let mut h = Hpcc::new(LINE);
        let rtt = Delta::from_us(10);
        assert_eq!(h.on_ack(&stack(0, 0, 125_000), 1000, 10_000, rtt, LINE, &p), None);
        // 10 us later: the link sent 125 KB (line rate) and still holds a 125 KB queue
        // (HPCC counts the smaller of the two records' queues).
        let r = h.on_ack(&stack(10_000, 125_000, 125_000), 20_000, 30_000, rtt, LINE, &p).unwrap();
        // u = 1 + 1 = 2 (τ = T): rate = line × 0.95 / 2 + AI.
        let expect = (LINE as f64 * 0.95 / 2.0) as u64 + p.rate_ai;
        assert!((r as i64 - expect as i64).abs() < 1000, "{r} vs {expect}");
        assert_eq!(h.reference, r, "committed: the ACK passed the last update sequence");
    }

    #[test]
    fn an_idle_link_adds_rate_additively_then_multiplicatively() {
        let p = params();
        let mut h = Hpcc::new(LINE / 2);
        let rtt = Delta::from_us(10);
        h.on_ack(&stack(0, 0, 0), 1, 1, rtt, LINE, &p);
        // Link at 20 % utilisation, no queue: U falls towards 0.2, below η.
        let r1 = h.on_ack(&stack(10_000, 25_000, 0), 2, 2, rtt, LINE, &p).unwrap();
        // U = 0.2 < η: additive.
        assert_eq!(r1, LINE / 2 + p.rate_ai);
        let mut rate = r1;
        for k in 2..=6u64 {
            rate = h.on_ack(&stack(k * 10_000, k * 25_000, 0), k + 1, k + 1, rtt, LINE, &p).unwrap();
        }
        // After max_stage additive steps, a multiplicative step towards η: the rate jumps
        // by 1/c ≈ 4.75 and is capped at line rate.
        assert_eq!(rate, LINE);
    }

    #[test]
    fn ns3_units_round_the_counters_down_to_the_headers_steps() {
        // At 100 Gb/s INT_MULTI is 4: bytes in 512 B, queue in 320 B, time in ns.
        let hop =
            IntHop { queue_bytes: 1_000, tx_bytes: 10_000, time: SimTime(1_234_567), rate: Rate::gbps(100) };
        let r = ns3_units(&hop, LINE, 0);
        assert_eq!((r.queue_bytes, r.tx_bytes, r.time), (960, 9_728, SimTime(1_234_000)));
        // At 25 Gb/s and below the units are 128 B and 80 B; a written INT_MULTI wins.
        let r = ns3_units(&hop, 25_000_000_000, 0);
        assert_eq!((r.queue_bytes, r.tx_bytes), (960, 9_984));
        assert_eq!(ns3_units(&hop, LINE, 1), r);
    }

    #[test]
    fn ns3_units_change_what_hpcc_reads() {
        // A queue below one 320 B unit is invisible to the ns-3 header: the same two
        // records give a higher rate read in its units than read exactly.
        let exact = params();
        let ns3 = HpccParams { int_ns3: true, ..params() };
        let rtt = Delta::from_us(10);
        // Exactly, u = 0.9488 + 0.0024 ≥ η (a multiplicative step below the reference);
        // in ns-3's units the queue reads 0 and the bytes 118,272: u < η, an additive step.
        let rate = |p: &HpccParams| {
            let mut h = Hpcc::new(LINE / 2);
            h.on_ack(&stack(0, 0, 300), 1, 1, rtt, LINE, p);
            h.on_ack(&stack(10_000, 118_600, 300), 2, 2, rtt, LINE, p).unwrap()
        };
        assert!(rate(&exact) < LINE / 2 && rate(&ns3) == LINE / 2 + exact.rate_ai);
        assert!(rate(&ns3) > rate(&exact), "{} vs {}", rate(&ns3), rate(&exact));
    }

    #[test]
    fn a_rate_change_moves_the_next_send_as_ns3s_change_rate() {
        let rtt = Delta::from_us(10);
        for shift in [false, true] {
            let mut p = crate::scenario::default_cc_params(1000);
            p.hpcc = HpccParams { shift_next_send: shift, ..params() };
            let mut h = Hpcc::new(LINE);
            let (mut rate, mut window, mut ssthresh) = (LINE, 0u64, 0u64);
            let mut next_avail = SimTime(1_000_000);
            for (seq, t, tx) in [(20_000u64, 0u64, 0u64), (40_000, 10_000, 125_000)] {
                let int = stack(t, tx, 125_000);
                let ack = Ack {
                    seq,
                    ecn_echo: false,
                    sent_at: SimTime::ZERO,
                    int: Some(&int),
                    newly_acked: 0,
                    echo_flags: 0,
                };
                let mut f = CcFlow {
                    now: SimTime(t * 1000),
                    rate: &mut rate,
                    next_avail: &mut next_avail,
                    window: &mut window,
                    line_rate: LINE,
                    base_rtt: rtt,
                    bdp: 125_000,
                    snd_nxt: 30_000,
                    packet_bytes: 1048,
                    timer: None,
                    ssthresh: &mut ssthresh,
                    in_recovery: false,
                    mss: 1000,
                    hops: 2,
                };
                CongestionControl::on_ack(&mut h, &ack, &mut f, &p);
            }
            // The rate about halved (u = 2): the last 1,048 B packet takes longer at the new
            // rate, and ns-3 moves the pending send by the difference.
            assert!(rate < LINE / 2);
            let moved = next_avail.0 as i64 - 1_000_000;
            if shift {
                let expect = 1048.0 * 8.0 * 1e12 * (1.0 / rate as f64 - 1.0 / LINE as f64);
                assert!((moved as f64 - expect).abs() < 2.0, "{moved} vs {expect}");
            } else {
                assert_eq!(moved, 0, "the new rate applies from the next packet");
            }
        }
    }
}
