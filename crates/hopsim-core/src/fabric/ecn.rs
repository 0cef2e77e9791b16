//! ECN marking with a RED profile on the egress queue length (DCQCN's congestion point).

use rand::Rng;

use crate::engine::RngStream;

/// Marking probability as a function of the queue length: 0 up to `kmin`, rising linearly
/// to `pmax` at `kmax`, 1 above `kmax` (as the HPCC simulator's `ShouldSendCN`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedProfile {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
}

impl RedProfile {
    /// A profile that never marks (ports without ECN).
    pub const NEVER: RedProfile = RedProfile { kmin: u64::MAX, kmax: u64::MAX, pmax: 0.0 };

    /// Probability of marking a packet that sees `queue_bytes`.
    pub fn probability(&self, queue_bytes: u64) -> f64 {
        if queue_bytes > self.kmax {
            1.0
        } else if queue_bytes > self.kmin {
            self.pmax * (queue_bytes - self.kmin) as f64 / (self.kmax - self.kmin).max(1) as f64
        } else {
            0.0
        }
    }

    /// Decide one packet; draws a random number only in the probabilistic band.
    #[inline]
    pub fn decide(&self, queue_bytes: u64, rng: &mut RngStream) -> bool {
        if queue_bytes <= self.kmin {
            return false;
        }
        if queue_bytes > self.kmax {
            return true;
        }
        rng.gen::<f64>() < self.probability(queue_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Ports without ECN name profile 0: it marks nothing and leaves the stream untouched.
    #[test]
    fn the_never_profile_marks_nothing_and_draws_nothing() {
        use rand::Rng;
        let mut rng = RngStream::seed_from_u64(3);
        let mut untouched = rng.clone();
        for q in [0, 1 << 20, u64::MAX] {
            assert!(!RedProfile::NEVER.decide(q, &mut rng), "queue {q}");
        }
        assert_eq!(rng.gen::<u64>(), untouched.gen::<u64>());
    }

    /// What the switch's in-line answer for an empty queue rests on: no profile, not even
    /// one with `kmin` = 0 and `pmax` = 1, marks a packet that sees 0 bytes or draws for it.
    #[test]
    fn no_profile_marks_or_draws_at_an_empty_queue() {
        use rand::Rng;
        let mut rng = RngStream::seed_from_u64(5);
        let mut untouched = rng.clone();
        for red in [
            RedProfile { kmin: 0, kmax: 0, pmax: 1.0 },
            RedProfile { kmin: 0, kmax: 100_000, pmax: 1.0 },
            RedProfile { kmin: 5_000, kmax: 200_000, pmax: 0.01 },
        ] {
            assert!(!red.decide(0, &mut rng), "{red:?}");
            assert_eq!(red.probability(0), 0.0);
        }
        assert_eq!(rng.gen::<u64>(), untouched.gen::<u64>());
    }

    #[test]
    fn marking_follows_the_red_curve() {
        let red = RedProfile { kmin: 100_000, kmax: 400_000, pmax: 0.2 };
        let mut rng = RngStream::seed_from_u64(3);
        for (q, expect) in [(50_000u64, 0.0), (250_000, 0.1), (399_000, 0.1993), (500_000, 1.0)] {
            let n = 200_000;
            let marked = (0..n).filter(|_| red.decide(q, &mut rng)).count() as f64 / n as f64;
            assert!((marked - expect).abs() < 0.005, "q={q}: marked {marked}, expected {expect}");
        }
    }
}
