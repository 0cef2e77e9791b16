//! Rank statistics a port keeps for rank-aware admission: a circular window of sampled
//! ranks for quantiles (AIFO §3.2; Preemptive Deflection §3.1, §4.2), and the ranks of the
//! packets queued now, in order, for their mean (Distribution-PD).

use std::collections::VecDeque;

use crate::scenario::error::{check, ScenarioError};

/// Samples in a rank window, by default (the deflection paper §5.2: 20).
pub(crate) fn default_window() -> u32 {
    20
}

/// Check a window size or sampling period `field` of `[switch.deflection]`.
pub fn check_count(v: u32, field: &str, what: &str) -> Result<(), ScenarioError> {
    check(
        (1..=100_000).contains(&v),
        &format!("switch.deflection.{field}"),
        format!("expected 1 to 100,000 {what}, got {v}"),
    )
}

/// A circular window of the last `size` sampled ranks; one packet in `sample_every` is
/// sampled (every evaluated packet counts, admitted or not).
#[derive(Clone, Debug)]
pub struct RankWindow {
    samples: Vec<u64>,
    size: usize,
    next: usize,
    counter: u32,
}

impl RankWindow {
    pub fn new(size: usize) -> RankWindow {
        RankWindow { samples: Vec::with_capacity(size), size, next: 0, counter: 0 }
    }

    /// Fraction of the window with a strictly smaller (more urgent) rank than `rank`, over
    /// the window's full size even while it fills (AIFO's and the deflection artifact's
    /// definition).
    pub fn quantile(&self, rank: u64) -> f64 {
        self.samples.iter().filter(|&&s| s < rank).count() as f64 / self.size as f64
    }

    /// Count an evaluated packet; sample its rank once every `every` packets.
    pub fn observe(&mut self, rank: u64, every: u32) {
        if self.counter == 0 {
            if self.samples.len() < self.size {
                self.samples.push(rank);
            } else {
                self.samples[self.next] = rank;
            }
            self.next = (self.next + 1) % self.size;
        }
        self.counter = (self.counter + 1) % every.max(1);
    }
}

/// Ranks of the packets in a FIFO queue, oldest first, with their sum. Departures are
/// reconciled lazily from the queue's length (a FIFO queue loses its oldest packets).
#[derive(Clone, Debug, Default)]
pub struct QueuedRanks {
    ranks: VecDeque<u64>,
    sum: u128,
}

impl QueuedRanks {
    /// Forget the ranks of packets that have left a queue now holding `len` packets.
    pub fn sync(&mut self, len: usize) {
        while self.ranks.len() > len {
            let r = self.ranks.pop_front().expect("longer than len");
            self.sum -= r as u128;
        }
    }

    pub fn push(&mut self, rank: u64) {
        self.ranks.push_back(rank);
        self.sum += rank as u128;
    }

    /// Mean rank of the queued packets (`None` when empty).
    pub fn mean(&self) -> Option<f64> {
        (!self.ranks.is_empty()).then(|| self.sum as f64 / self.ranks.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_counts_strictly_smaller_samples_over_the_full_window() {
        let mut w = RankWindow::new(4);
        for r in [10, 20, 30] {
            w.observe(r, 1);
        }
        assert_eq!(w.quantile(25), 0.5, "10 and 20 of 4 slots");
        assert_eq!(w.quantile(10), 0.0, "ties do not count");
        w.observe(40, 1);
        w.observe(5, 1); // overwrites the oldest (10)
        assert_eq!(w.quantile(25), 0.5, "5 and 20");
        let mut sparse = RankWindow::new(4);
        for r in 0..8 {
            sparse.observe(r, 4);
        }
        assert_eq!(sparse.samples, vec![0, 4], "one sample per 4 packets");
    }

    #[test]
    fn queued_ranks_follow_fifo_departures() {
        let mut q = QueuedRanks::default();
        for r in [10, 20, 60] {
            q.push(r);
        }
        assert_eq!(q.mean(), Some(30.0));
        q.sync(1);
        assert_eq!(q.mean(), Some(60.0), "the two oldest left");
        q.sync(0);
        assert_eq!(q.mean(), None);
    }
}
