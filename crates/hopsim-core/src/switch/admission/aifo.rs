//! AIFO (Yu et al., "Programmable Packet Scheduling with a Single Queue", SIGCOMM 2021,
//! §3): a FIFO queue whose admission approximates a PIFO. A packet is admitted when the
//! quantile of its rank among recently sampled ranks is at most `(1/(1 − k))·(C − c)/C`,
//! `c` the queue's occupancy and `C` its capacity, `k` the burst headroom; a full queue
//! drops as drop-tail does. No deflection. Window, sampling and quantile as the
//! deflection paper's artifact runs AIFO (`window` 20, one sample per 15 packets, k 0.1).

use super::window::RankWindow;
use super::{Arrival, BufferRule, Verdict};
use crate::fabric::port::Port;
use crate::metrics::DropCause;

/// AIFO's parameters (`[switch.deflection]`, `kind = "aifo"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AifoConfig {
    pub k: f64,
    pub window: usize,
    pub sample_every: u32,
}

/// AIFO at every port.
#[derive(Clone, Debug)]
pub struct Aifo {
    cfg: AifoConfig,
    windows: Vec<RankWindow>,
}

impl Aifo {
    pub fn new(cfg: AifoConfig, ports: usize) -> Aifo {
        Aifo { cfg, windows: vec![RankWindow::new(cfg.window); ports] }
    }

    pub(super) fn admit(
        &mut self,
        rule: &BufferRule,
        a: &Arrival<'_>,
        fits: bool,
        ports: &[Port],
    ) -> Verdict {
        if !fits {
            return Verdict::Drop(DropCause::EgressAdmission);
        }
        let window = &mut self.windows[a.egress.idx()];
        let quantile = window.quantile(a.rank);
        window.observe(a.rank, self.cfg.sample_every);
        let cap = rule.capacity(a.used, a.buffer) as f64;
        let c = rule.level(&ports[a.egress.idx()], a.queue) as f64;
        if quantile <= (cap - c) / (cap * (1.0 - self.cfg.k)) {
            Verdict::Enqueue
        } else {
            Verdict::Drop(DropCause::RankAdmission)
        }
    }
}
