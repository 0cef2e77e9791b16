//! Preemptive Deflection (the deflection paper, §3): approximate Selective Deflection
//! (Vertigo) without extracting packets from queues, by deflecting — before they enter —
//! the packets likely to be deflected later.
//!
//! - Relative priority (§3.1): by quantile, the fraction of a circular window of sampled
//!   ranks (one sample per `sample_every` packets, `window` samples) that is more urgent;
//!   or by distribution, `1 − e^(−x/M)` with `M` the mean rank of the packets queued at
//!   the port (Appendix B). `R = α × that`.
//! - Algorithm (§3.2, Eq. 1): enqueue while the occupancy is at most `τ = Q·(1 − α·R)`,
//!   `Q` the port's capacity; deflect above it, or when the port is full. The probabilistic
//!   variant (§6) enqueues below `min_th` and above it deflects with probability
//!   `R·(q − min_th)/(Q − min_th)`.
//! - Deflection and preemptive drop (§3.2, Fig 3 ⑤–⑧): two random switch-facing ports
//!   are tried; those above their own threshold for the packet (with its rank's relative
//!   priority at that port) are left out; the less occupied of the rest takes the packet,
//!   if it is not full; otherwise the packet is dropped.
//!
//! Where the paper is silent, hopsim follows the authors' artifact (see `docs/model.md`):
//! quantiles count strictly more urgent samples over the window's full size; `M` is the
//! exact mean of the queued packets' ranks; only the destination port samples ranks.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::hooks::{
    check_hop_limit, default_hop_limit, pick_two, AdmBuild, AdmCx, Arrival, BufferRule, DeflectionPolicy,
    Verdict,
};
use super::snapshot::Snapshot;
use super::window::{check_count, default_window, QueuedRanks, RankWindow};
use crate::engine::RngStream;
use crate::fabric::port::Port;
use crate::ids::PortId;
use crate::metrics::DropCause;
use crate::scenario::error::{check, fraction, ScenarioError};
use crate::scenario::units::{zero_duration, Bytes, Duration};
use crate::time::Delta;

/// How Preemptive Deflection estimates relative priority (`priority`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PriorityEstimate {
    /// Quantile among a window of sampled ranks (Quantile-PD, §3.1).
    #[default]
    Quantile,
    /// `1 − e^(−x/M)`, M the mean rank queued (Distribution-PD, §3.1, Appendix B).
    Distribution,
}

/// Preemptive Deflection's decision rule (`algorithm`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PdAlgorithm {
    /// Deflect above `τ = Q·(1 − α·R)` (§3.2, Eq. 1).
    #[default]
    Deterministic,
    /// RED-like: above `min_th`, deflect with probability `R·(q − min_th)/(Q − min_th)` (§6).
    Probabilistic,
}

/// Preemptive Deflection parameters; defaults from the deflection paper §5.2 (α 0.1,
/// window 20, one sample per 20 packets) and its artifact (`min_th` 75 KB).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PreemptiveSpec {
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u32,
    #[serde(default)]
    pub priority: PriorityEstimate,
    #[serde(default = "default_pd_alpha")]
    pub alpha: f64,
    #[serde(default = "default_window")]
    pub window: u32,
    #[serde(default = "default_window")]
    pub sample_every: u32,
    /// Queue-occupancy refresh at the ingress pipeline. Default 0 (live, as §5's runs).
    #[serde(default = "zero_duration")]
    pub update_interval: Duration,
    #[serde(default)]
    pub algorithm: PdAlgorithm,
    /// The probabilistic algorithm's lower threshold. Default 75 KB.
    #[serde(default = "default_min_th")]
    pub min_th: Bytes,
}

fn default_pd_alpha() -> f64 {
    0.1
}
fn default_min_th() -> Bytes {
    Bytes(75_000)
}

/// How relative priority is estimated (`priority`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelativePriority {
    Quantile,
    Distribution,
}

/// Parameters of Preemptive Deflection (`[switch.deflection]`, `kind = "preemptive"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreemptiveConfig {
    pub priority: RelativePriority,
    pub alpha: f64,
    pub window: usize,
    pub sample_every: u32,
    /// The probabilistic variant's threshold (`None`: the deterministic algorithm).
    pub min_th: Option<u64>,
}

/// Preemptive Deflection at every switch.
#[derive(Clone, Debug)]
pub struct Preemptive {
    cfg: PreemptiveConfig,
    candidates: Vec<Vec<PortId>>,
    rngs: Vec<RngStream>,
    snapshot: Snapshot,
    /// Per port: sampled ranks, and the ranks queued now.
    windows: Vec<RankWindow>,
    queued: Vec<QueuedRanks>,
}

impl Preemptive {
    pub fn new(
        cfg: PreemptiveConfig,
        candidates: Vec<Vec<PortId>>,
        rngs: Vec<RngStream>,
        snapshot: Snapshot,
        ports: usize,
    ) -> Preemptive {
        let windows = vec![RankWindow::new(cfg.window); ports];
        Preemptive { cfg, candidates, rngs, snapshot, windows, queued: vec![QueuedRanks::default(); ports] }
    }

    pub fn config(&self) -> &PreemptiveConfig {
        &self.cfg
    }

    /// `R` of a packet of rank `rank` at `port` (α included).
    fn relative(&mut self, port: PortId, rank: u64, queue: usize, ports: &[Port]) -> f64 {
        let base = match self.cfg.priority {
            RelativePriority::Quantile => self.windows[port.idx()].quantile(rank),
            RelativePriority::Distribution => {
                let q = &mut self.queued[port.idx()];
                q.sync(ports[port.idx()].queues.queue_len(queue));
                match q.mean() {
                    Some(m) if rank > 0 && m > 0.0 => 1.0 - (-(rank as f64) / m).exp(),
                    _ => 0.0,
                }
            }
        };
        self.cfg.alpha * base
    }

    /// Whether `port` takes the packet under the algorithm (not full, and under its
    /// threshold — or, probabilistically, not picked to deflect).
    fn takes(&mut self, a: &Arrival<'_>, port: PortId, rule: &BufferRule, ports: &[Port]) -> bool {
        if !self.snapshot.fits(a, port, rule, ports) {
            return false;
        }
        let q = self.snapshot.level(a.sw, port, a.queue, rule, ports) as f64;
        let cap = rule.capacity(a.used, a.buffer) as f64;
        let r = self.relative(port, a.rank, a.queue, ports);
        match self.cfg.min_th {
            None => q <= cap * (1.0 - r),
            Some(min_th) => {
                let min_th = min_th as f64;
                if q < min_th || cap <= min_th {
                    return true;
                }
                let p = r * (q - min_th) / (cap - min_th);
                !self.rngs[a.sw].gen_bool(p.clamp(0.0, 1.0))
            }
        }
    }

    /// The packet joins `port`'s queue (its rank counts in the port's mean).
    fn joined(&mut self, port: PortId, rank: u64, queue: usize, ports: &[Port]) {
        if self.cfg.priority == RelativePriority::Distribution {
            let q = &mut self.queued[port.idx()];
            q.sync(ports[port.idx()].queues.queue_len(queue));
            q.push(rank);
        }
    }

    fn decide(&mut self, rule: &BufferRule, a: &Arrival<'_>, fits: bool, ports: &[Port]) -> Verdict {
        self.snapshot.refresh(a.sw, a.now, rule, a.queue, ports);
        let take = self.takes(a, a.egress, rule, ports);
        self.windows[a.egress.idx()].observe(a.rank, self.cfg.sample_every);
        if take {
            if !fits {
                // The ingress pipeline's copy was stale: the queue itself drops it.
                return Verdict::Drop(DropCause::EgressAdmission);
            }
            self.joined(a.egress, a.rank, a.queue, ports);
            return Verdict::Enqueue;
        }
        // Deflect: of two random switch-facing ports, those under their threshold; the
        // less occupied one takes it if it can, else a preemptive drop.
        let (first, second) = pick_two(&mut self.rngs[a.sw], &self.candidates[a.sw]);
        let mut best: Option<(PortId, u64)> = None;
        for p in [first, second].into_iter().flatten() {
            let q = self.snapshot.level(a.sw, p, a.queue, rule, ports);
            let r = self.relative(p, a.rank, a.queue, ports);
            let under = q as f64 <= rule.capacity(a.used, a.buffer) as f64 * (1.0 - r);
            let better = match best {
                None => true,
                Some((_, bq)) => q < bq || (q == bq && self.rngs[a.sw].gen_bool(0.5)),
            };
            if under && better {
                best = Some((p, q));
            }
        }
        match best {
            Some((p, _))
                if self.takes(a, p, rule, ports)
                    && rule.fits(&ports[p.idx()], a.queue, a.size, a.used, a.buffer) =>
            {
                self.joined(p, a.rank, a.queue, ports);
                Verdict::Deflect(p)
            }
            _ => Verdict::Drop(DropCause::RankAdmission),
        }
    }
}

impl DeflectionPolicy for Preemptive {
    const NAME: &'static str = "preemptive";
    /// Its rank windows and sampling counters are per port, its draws per switch
    /// (`tests/parallel.rs`).
    const PARTITIONS: bool = true;
    type Spec = PreemptiveSpec;
    const READS_RANK: bool = true;

    fn validate(s: &PreemptiveSpec) -> Result<(), ScenarioError> {
        check_hop_limit(s.hop_limit)?;
        fraction(s.alpha, "switch.deflection.alpha", false)?;
        check_count(s.window, "window", "samples")?;
        check_count(s.sample_every, "sample_every", "packets")?;
        check(
            s.update_interval.0 >= Delta::ZERO,
            "switch.deflection.update_interval",
            "expected a duration ≥ 0",
        )?;
        check(
            s.algorithm != PdAlgorithm::Probabilistic || s.min_th.0 > 0,
            "switch.deflection.min_th",
            "expected a positive size for the probabilistic algorithm",
        )
    }

    fn hop_limit(s: &PreemptiveSpec) -> u8 {
        s.hop_limit as u8
    }

    fn build(s: &PreemptiveSpec, b: &mut AdmBuild) -> Self {
        let cfg = PreemptiveConfig {
            priority: match s.priority {
                PriorityEstimate::Quantile => RelativePriority::Quantile,
                PriorityEstimate::Distribution => RelativePriority::Distribution,
            },
            alpha: s.alpha,
            window: s.window as usize,
            sample_every: s.sample_every,
            min_th: (s.algorithm == PdAlgorithm::Probabilistic).then_some(s.min_th.0),
        };
        let snapshot = Snapshot::new(s.update_interval.0, &b.ports_of());
        let streams = b.switch_streams("preemptive-deflection");
        Preemptive::new(cfg, b.switch_facing_ports(), streams, snapshot, b.topo.ports.len())
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
    use crate::engine::rng_stream;
    use crate::fabric::packet::test_packet;
    use crate::fabric::store::PacketStore;
    use crate::ids::NodeId;
    use crate::time::{Delta, Rate, SimTime};

    fn arrival(ttl: &mut u8, rank: u64) -> Arrival<'_> {
        Arrival {
            sw: 0,
            egress: PortId(0),
            queue: 0,
            size: 400,
            used: 0,
            buffer: 1 << 30,
            ttl,
            rank,
            now: SimTime::ZERO,
        }
    }

    /// §3: with the queue holding small-flow packets above `τ` for a low-priority packet
    /// but not for a high-priority one, the arriving packet with many remaining bytes is
    /// deflected while a small-flow packet is enqueued.
    #[test]
    fn deflects_low_priority_packets_first() {
        let rule = BufferRule::StaticPerPort { bytes: 10_000 };
        let mut store = PacketStore::new();
        let mut ports: Vec<Port> = (0..3)
            .map(|i| {
                Port::new(NodeId(0), PortId(100 + i), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default())
            })
            .collect();
        for _ in 0..9 {
            let r = store.insert(test_packet(0));
            ports[0].queues.enqueue(&mut store, 0, r); // 9,432 B: 94 % of Q
        }
        for priority in [RelativePriority::Quantile, RelativePriority::Distribution] {
            let cfg = PreemptiveConfig { priority, alpha: 0.1, window: 20, sample_every: 1, min_th: None };
            let candidates = vec![vec![PortId(1), PortId(2)]];
            let mut pd = Preemptive::new(
                cfg,
                candidates,
                vec![rng_stream(1, "pd")],
                Snapshot::new(Delta::ZERO, &[(0, 3)]),
                3,
            );
            // The packets queued (and sampled) are small flows' packets, rank 10.
            for _ in 0..20 {
                pd.decide(&rule, &arrival(&mut 250, 10), true, &ports);
            }
            pd.queued[0].sync(0);
            for _ in 0..9 {
                pd.queued[0].push(10);
            }
            assert_eq!(
                pd.decide(&rule, &arrival(&mut 250, 5), true, &ports),
                Verdict::Enqueue,
                "{priority:?}"
            );
            match pd.decide(&rule, &arrival(&mut 250, 5_000_000), true, &ports) {
                Verdict::Deflect(p) => assert!(p == PortId(1) || p == PortId(2)),
                v => panic!("{priority:?}: the large-flow packet is deflected, got {v:?}"),
            }
        }
    }

    /// The probabilistic variant enqueues below `min_th` whatever the rank.
    #[test]
    fn probabilistic_variant_enqueues_below_min_th() {
        let rule = BufferRule::StaticPerPort { bytes: 10_000 };
        let ports: Vec<Port> = (0..3)
            .map(|i| {
                Port::new(NodeId(0), PortId(100 + i), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default())
            })
            .collect();
        let cfg = PreemptiveConfig {
            priority: RelativePriority::Quantile,
            alpha: 1.0,
            window: 20,
            sample_every: 1,
            min_th: Some(5_000),
        };
        let mut pd = Preemptive::new(
            cfg,
            vec![vec![PortId(1), PortId(2)]],
            vec![rng_stream(1, "pd")],
            Snapshot::new(Delta::ZERO, &[(0, 3)]),
            3,
        );
        for rank in [0, 1, 1_000_000] {
            assert_eq!(pd.decide(&rule, &arrival(&mut 250, rank), true, &ports), Verdict::Enqueue);
        }
    }
}
