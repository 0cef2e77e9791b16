//! AIFO (Yu et al., "Programmable Packet Scheduling with a Single Queue", SIGCOMM 2021,
//! §3): a FIFO queue whose admission approximates a PIFO. A packet is admitted when the
//! quantile of its rank among recently sampled ranks is at most `(1/(1 − k))·(C − c)/C`,
//! `c` the queue's occupancy and `C` its capacity, `k` the burst headroom; a full queue
//! drops as drop-tail does. No deflection. Window, sampling and quantile as the
//! deflection paper's artifact runs AIFO (`window` 20, one sample per 15 packets, k 0.1).

use serde::{Deserialize, Serialize};

use super::hooks::{
    check_hop_limit, default_hop_limit, AdmBuild, AdmCx, Arrival, BufferRule, DeflectionPolicy, Verdict,
};
use super::window::{check_count, default_window, RankWindow};
use crate::fabric::port::Port;
use crate::metrics::DropCause;
use crate::scenario::error::{check, ScenarioError};

/// AIFO parameters; defaults as the deflection paper's artifact runs AIFO (k 0.1, window
/// 20, one sample per 15 packets).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AifoSpec {
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u32,
    #[serde(default = "default_aifo_k")]
    pub k: f64,
    #[serde(default = "default_window")]
    pub window: u32,
    #[serde(default = "default_aifo_sample")]
    pub sample_every: u32,
}

fn default_aifo_k() -> f64 {
    0.1
}
fn default_aifo_sample() -> u32 {
    15
}

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

    fn decide(&mut self, rule: &BufferRule, a: &Arrival<'_>, fits: bool, ports: &[Port]) -> Verdict {
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

impl DeflectionPolicy for Aifo {
    const NAME: &'static str = "aifo";
    type Spec = AifoSpec;
    const READS_RANK: bool = true;

    fn validate(s: &AifoSpec) -> Result<(), ScenarioError> {
        check_hop_limit(s.hop_limit)?;
        check(
            s.k.is_finite() && (0.0..1.0).contains(&s.k),
            "switch.deflection.k",
            format!("expected a number in [0, 1), got {}", s.k),
        )?;
        check_count(s.window, "window", "samples")?;
        check_count(s.sample_every, "sample_every", "packets")
    }

    fn hop_limit(s: &AifoSpec) -> u8 {
        s.hop_limit as u8
    }

    fn build(s: &AifoSpec, b: &mut AdmBuild) -> Self {
        let cfg = AifoConfig { k: s.k, window: s.window as usize, sample_every: s.sample_every };
        Aifo::new(cfg, b.topo.ports.len())
    }

    fn admit(&mut self, cx: &AdmCx, a: &mut Arrival, fits: bool) -> Verdict {
        if !a.spend_hop() {
            return Verdict::Drop(DropCause::HopLimit);
        }
        self.decide(cx.rule, a, fits, cx.ports)
    }
}
