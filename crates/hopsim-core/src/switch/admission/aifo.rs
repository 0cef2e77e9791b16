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
    /// Its rank windows are per port (`tests/parallel.rs`).
    const PARTITIONS: bool = true;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::packet::test_packet;
    use crate::fabric::store::PacketStore;
    use crate::ids::{NodeId, PortId};
    use crate::time::{Delta, Rate, SimTime};

    /// Port 0 holds `packets` packets of 1,048 B, port 1 none; 10,480 B per port.
    fn ports(packets: u32) -> Vec<Port> {
        let mut store = PacketStore::new();
        (0..2)
            .map(|i| {
                let mut p =
                    Port::new(NodeId(0), PortId(i), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default());
                for _ in 0..packets * (i == 0) as u32 {
                    let r = store.insert(test_packet(0));
                    p.queues.enqueue(&mut store, 0, r);
                }
                p
            })
            .collect()
    }

    const RULE: BufferRule = BufferRule::StaticPerPort { bytes: 10_480 };

    /// A 1,048 B packet of rank `rank` for port `port`.
    fn arrival(ttl: &mut u8, port: u32, rank: u64) -> Arrival<'_> {
        Arrival {
            sw: 0,
            egress: PortId(port),
            queue: 0,
            size: 1048,
            used: 0,
            buffer: 1 << 30,
            ttl,
            rank,
            now: SimTime::ZERO,
        }
    }

    /// AIFO's verdict for a packet of rank `rank` at port `port`, its window left as it was.
    fn verdict(aifo: &Aifo, ports: &[Port], port: u32, rank: u64, fits: bool) -> Verdict {
        aifo.clone().decide(&RULE, &arrival(&mut 64, port, rank), fits, ports)
    }

    /// AIFO with `k`, its window at port 0 holding ranks 1 to 20.
    fn aifo(k: f64) -> Aifo {
        let mut a = Aifo::new(AifoConfig { k, window: 20, sample_every: 1 }, 2);
        for r in 1..=20 {
            a.windows[0].observe(r, 1);
        }
        a
    }

    /// AIFO §3: a packet is admitted iff the quantile of its rank in the window is at most
    /// (1/(1 − k))·(C − c)/C. With 5 of 10 packets' room taken and k = 0.1 the bound is
    /// 0.5/0.9 = 0.556: rank 11 (quantile 10/20) enters, rank 12 (11/20) enters, rank 13
    /// (12/20) is dropped; with k = 0 the bound is 0.5 and rank 12 is dropped too.
    #[test]
    fn admits_iff_the_rank_quantile_is_within_the_scaled_free_fraction() {
        let half = ports(5);
        let rank_drop = Verdict::Drop(DropCause::RankAdmission);
        for (k, rank, want) in [
            (0.1, 11, Verdict::Enqueue),
            (0.1, 12, Verdict::Enqueue),
            (0.1, 13, rank_drop),
            (0.0, 11, Verdict::Enqueue),
            (0.0, 12, rank_drop),
        ] {
            assert_eq!(verdict(&aifo(k), &half, 0, rank, true), want, "k {k}, rank {rank}");
        }
        // An empty queue takes every rank (the bound exceeds 1); a queue one packet short of
        // full (bound 0.1/0.9 = 0.111) takes rank 3 (quantile 2/20), not rank 4 (3/20).
        let empty = ports(0);
        assert_eq!(verdict(&aifo(0.1), &empty, 0, 1_000, true), Verdict::Enqueue);
        let nine = ports(9);
        assert_eq!(verdict(&aifo(0.1), &nine, 0, 3, true), Verdict::Enqueue);
        assert_eq!(verdict(&aifo(0.1), &nine, 0, 4, true), rank_drop);
        // A full queue drops as drop-tail does, whatever the rank.
        assert_eq!(verdict(&aifo(0.1), &half, 0, 1, false), Verdict::Drop(DropCause::EgressAdmission));
    }

    /// AIFO §3 (and the deflection paper's artifact): each port keeps its own window of
    /// sampled ranks; every evaluated packet counts, admitted or dropped, one in
    /// `sample_every` is sampled, and a packet's rank is judged before it is sampled.
    #[test]
    fn the_window_samples_one_evaluated_packet_in_sample_every_per_port() {
        let mut a = Aifo::new(AifoConfig { k: 0.0, window: 4, sample_every: 2 }, 2);
        let full = ports(9);
        let mut verdicts = Vec::new();
        for rank in 100..108 {
            verdicts.push(a.decide(&RULE, &arrival(&mut 64, 0, rank), true, &full));
        }
        // The first packet saw an empty window (quantile 0): admitted; each later one ranks
        // above a sample and the bound is 0.1: dropped — yet sampled all the same.
        assert_eq!(verdicts[0], Verdict::Enqueue);
        assert!(verdicts[1..].iter().all(|v| *v == Verdict::Drop(DropCause::RankAdmission)), "{verdicts:?}");
        assert_eq!(a.windows[0].quantile(105), 0.75, "samples 100, 102, 104, 106");
        assert_eq!(a.windows[0].quantile(107), 1.0);
        assert_eq!(a.windows[1].quantile(u64::MAX), 0.0, "port 1's window is its own");
    }

    /// Every switch hop spends one unit of the hop limit; at zero the packet is dropped.
    #[test]
    fn the_hop_limit_is_spent_per_switch() {
        let mut a = aifo(0.1);
        let empty = ports(0);
        let cx = AdmCx { rule: &RULE, ports: &empty };
        let mut ttl = 2;
        assert_eq!(a.admit(&cx, &mut arrival(&mut ttl, 1, 0), true), Verdict::Enqueue);
        assert_eq!(ttl, 1);
        assert_eq!(a.admit(&cx, &mut arrival(&mut ttl, 1, 0), true), Verdict::Drop(DropCause::HopLimit));
    }
}
