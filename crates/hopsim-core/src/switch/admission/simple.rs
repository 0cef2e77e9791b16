//! Simple Deflection (the deflection paper, §4.1 and Appendix E): DIBS made implementable.
//! The ingress pipeline sees a bitmap of congested (full) ports that control packets
//! recirculating from the egress pipeline refresh every `update_interval`; a packet whose
//! port is marked goes to the first unmarked switch-facing port at or after a random
//! start `r`, scanning circularly — uniform over the unmarked ports when ports are
//! congested alike (Appendix E). If every port is marked the packet is dropped.

use serde::{Deserialize, Serialize};

use super::hooks::{
    check_hop_limit, default_hop_limit, AdmBuild, AdmCx, Arrival, BufferRule, DeflectionPolicy, Verdict,
};
use super::snapshot::Snapshot;
use crate::engine::{pick_below, RngStream};
use crate::fabric::port::Port;
use crate::ids::PortId;
use crate::metrics::DropCause;
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::Duration;
use crate::time::Delta;

/// Simple Deflection parameters.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimpleSpec {
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u32,
    /// How often the ingress pipeline's congested-port bitmap is refreshed. Default
    /// 1.7 µs: the recirculation gap the deflection paper measured on Tofino (§6,
    /// Appendix D); `"0us"` reads the queues live, as the paper's simulations do.
    #[serde(default = "default_update_interval")]
    pub update_interval: Duration,
}

fn default_update_interval() -> Duration {
    Duration(Delta::from_ns(1700))
}

/// Simple Deflection at every switch.
#[derive(Clone, Debug)]
pub struct SimpleDeflection {
    /// Per switch: its switch-facing ports.
    candidates: Vec<Vec<PortId>>,
    rngs: Vec<RngStream>,
    /// Per switch: the occupancy its ingress pipeline last learned.
    snapshot: Snapshot,
}

impl SimpleDeflection {
    pub fn new(candidates: Vec<Vec<PortId>>, rngs: Vec<RngStream>, snapshot: Snapshot) -> SimpleDeflection {
        SimpleDeflection { candidates, rngs, snapshot }
    }

    fn decide(&mut self, rule: &BufferRule, a: &Arrival<'_>, fits: bool, ports: &[Port]) -> Verdict {
        self.snapshot.refresh(a.sw, a.now, rule, a.queue, ports);
        let congested = |p: PortId| !self.snapshot.fits(a, p, rule, ports);
        if !congested(a.egress) {
            return if fits { Verdict::Enqueue } else { Verdict::Drop(DropCause::EgressAdmission) };
        }
        let candidates = &self.candidates[a.sw];
        let n = candidates.len();
        if n == 0 {
            return Verdict::Drop(DropCause::EgressAdmission);
        }
        let r = pick_below(&mut self.rngs[a.sw], n);
        (0..n)
            .map(|i| candidates[(r + i) % n])
            .find(|&p| !congested(p))
            .map_or(Verdict::Drop(DropCause::EgressAdmission), Verdict::Deflect)
    }
}

impl DeflectionPolicy for SimpleDeflection {
    const NAME: &'static str = "simple";
    /// Its congested-port bitmap, refresh timer and draws are per switch
    /// (`tests/parallel.rs`).
    const PARTITIONS: bool = true;
    type Spec = SimpleSpec;

    fn validate(s: &SimpleSpec) -> Result<(), ScenarioError> {
        check_hop_limit(s.hop_limit)?;
        check(
            s.update_interval.0 >= Delta::ZERO,
            "switch.deflection.update_interval",
            "expected a duration ≥ 0",
        )
    }

    fn hop_limit(s: &SimpleSpec) -> u8 {
        s.hop_limit as u8
    }

    fn build(s: &SimpleSpec, b: &mut AdmBuild) -> Self {
        let snapshot = Snapshot::new(s.update_interval.0, &b.ports_of());
        SimpleDeflection::new(b.switch_facing_ports(), b.switch_streams("simple-deflection"), snapshot)
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
    use rand::Rng;

    /// Appendix E: with every switch-facing port full independently with the same
    /// probability, the first free port after a uniform random start is uniform over the
    /// free ports. Checked with a chi-squared test over 8 ports (p = 0.4).
    #[test]
    fn choice_is_uniform_over_uncongested_ports_chi_squared() {
        let n = 8;
        let rule = BufferRule::StaticPerPort { bytes: 1_500 };
        let mut store = PacketStore::new();
        let mut ports: Vec<Port> = (0..n + 1)
            .map(|i| {
                Port::new(NodeId(0), PortId(100 + i), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default())
            })
            .collect();
        let candidates = vec![(1..=n).map(PortId).collect::<Vec<_>>()];
        let mut sd = SimpleDeflection::new(
            candidates,
            vec![rng_stream(7, "sd")],
            Snapshot::new(Delta::ZERO, &[(0, n + 1)]),
        );
        // The destination, port 0, is always full.
        let fill = |store: &mut PacketStore, p: &mut Port| {
            let r = store.insert(test_packet(0));
            p.queues.enqueue(store, 0, r);
        };
        fill(&mut store, &mut ports[0]);
        let mut bitmap_rng = rng_stream(8, "bitmap");
        let mut counts = vec![0u64; n as usize];
        let mut draws = 0u64;
        while draws < 40_000 {
            let mut fresh: Vec<Port> = vec![std::mem::replace(
                &mut ports[0],
                Port::new(NodeId(0), PortId(100), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default()),
            )];
            for i in 1..=n {
                let mut p = Port::new(
                    NodeId(0),
                    PortId(100 + i),
                    Rate::gbps(10),
                    Delta::ZERO,
                    1,
                    1,
                    Default::default(),
                );
                if bitmap_rng.gen_bool(0.4) {
                    fill(&mut store, &mut p);
                }
                fresh.push(p);
            }
            let mut ttl = 250;
            let a = Arrival {
                sw: 0,
                egress: PortId(0),
                queue: 0,
                size: 1_000,
                used: 0,
                buffer: 1 << 30,
                ttl: &mut ttl,
                rank: 0,
                now: SimTime::ZERO,
            };
            if let Verdict::Deflect(p) = sd.decide(&rule, &a, false, &fresh) {
                assert!(fresh[p.idx()].backlog_bytes() == 0, "never a congested port");
                counts[p.idx() - 1] += 1;
                draws += 1;
            }
            ports[0] = fresh.swap_remove(0);
        }
        let expected = draws as f64 / n as f64;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
        // 7 degrees of freedom: the 99.9th percentile is 24.3.
        assert!(chi2 < 24.3, "chi-squared {chi2:.1} over {counts:?}");
    }
}
