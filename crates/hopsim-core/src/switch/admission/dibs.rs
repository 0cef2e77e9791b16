//! DIBS, detour-induced buffer sharing (Zarifis et al., EuroSys 2014): a packet that
//! arrives for a full egress queue is not dropped but sent out of a random other port
//! towards a neighbouring switch, which forwards it on from there; it is dropped only
//! when every such port is full, or when its hop limit runs out (the IP TTL, which bounds
//! deflection loops).
//!
//! Details follow the practical-deflection paper's re-implementation of DIBS (§2, §4.1;
//! its OMNeT++ relay): candidates are the switch's ports whose peer is a switch (the port
//! the packet came in on included, host ports never), a full candidate is filtered out
//! before the random choice, and every switch decrements the TTL (250 at the hosts) and
//! drops the packet at 0. The *naive* variant (the same paper, §2) does not filter: it
//! picks any switch-facing port at random, and the packet is dropped if that port is
//! full too.

use super::hooks::{
    check_hop_limit, AdmBuild, AdmCx, Arrival, BufferRule, DeflectionPolicy, HopLimitSpec, Verdict,
};
use crate::engine::{pick_below, RngStream};
use crate::fabric::port::Port;
use crate::ids::PortId;
use crate::metrics::DropCause;
use crate::scenario::error::ScenarioError;

/// Parameters of DIBS (`[switch.deflection]`, `kind = "dibs"` or `"dibs_naive"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DibsConfig {
    /// Leave out full ports before choosing (false: the naive variant).
    pub filter_full: bool,
}

/// DIBS at every switch.
#[derive(Clone, Debug)]
pub struct Dibs {
    cfg: DibsConfig,
    /// Per switch: its ports whose peer is a switch.
    candidates: Vec<Vec<PortId>>,
    /// Per switch: its own random stream (`switch/<node>/dibs`).
    rngs: Vec<RngStream>,
    /// Non-full candidates of the current decision (reused).
    scratch: Vec<PortId>,
}

impl Dibs {
    pub fn new(cfg: DibsConfig, candidates: Vec<Vec<PortId>>, rngs: Vec<RngStream>) -> Dibs {
        assert_eq!(candidates.len(), rngs.len());
        Dibs { cfg, candidates, rngs, scratch: Vec::new() }
    }

    pub fn name(&self) -> &'static str {
        if self.cfg.filter_full {
            "dibs"
        } else {
            "dibs_naive"
        }
    }

    fn decide(&mut self, rule: &BufferRule, a: &mut Arrival<'_>, fits: bool, ports: &[Port]) -> Verdict {
        if !a.spend_hop() {
            return Verdict::Drop(DropCause::HopLimit);
        }
        if fits {
            return Verdict::Enqueue;
        }
        let candidates = &self.candidates[a.sw];
        let rng = &mut self.rngs[a.sw];
        if !self.cfg.filter_full {
            return match candidates.len() {
                0 => Verdict::Drop(DropCause::EgressAdmission),
                n => Verdict::Deflect(candidates[pick_below(rng, n)]),
            };
        }
        self.scratch.clear();
        self.scratch.extend(
            candidates.iter().filter(|p| rule.fits(&ports[p.idx()], a.queue, a.size, a.used, a.buffer)),
        );
        match self.scratch.len() {
            0 => Verdict::Drop(DropCause::EgressAdmission),
            n => Verdict::Deflect(self.scratch[pick_below(rng, n)]),
        }
    }
}

impl DeflectionPolicy for Dibs {
    const NAME: &'static str = "dibs";
    /// It reads only the deciding switch's ports and draws from that switch's stream
    /// (`tests/parallel.rs`).
    const PARTITIONS: bool = true;
    type Spec = HopLimitSpec;

    fn validate(spec: &HopLimitSpec) -> Result<(), ScenarioError> {
        check_hop_limit(spec.hop_limit)
    }

    fn hop_limit(spec: &HopLimitSpec) -> u8 {
        spec.hop_limit as u8
    }

    fn build(_spec: &HopLimitSpec, b: &mut AdmBuild) -> Self {
        Dibs::new(DibsConfig { filter_full: true }, b.switch_facing_ports(), b.switch_streams("dibs"))
    }

    fn admit(&mut self, cx: &AdmCx, a: &mut Arrival, fits: bool) -> Verdict {
        self.decide(cx.rule, a, fits, cx.ports)
    }
}

/// DIBS without the full-port filter (the practical-deflection paper's naive variant, §2):
/// any switch-facing port at random, the packet dropped if that port is full too.
#[derive(Clone, Debug)]
pub struct DibsNaive(Dibs);

impl DeflectionPolicy for DibsNaive {
    const NAME: &'static str = "dibs_naive";
    /// It reads only the deciding switch's ports and draws from that switch's stream
    /// (`tests/parallel.rs`).
    const PARTITIONS: bool = true;
    type Spec = HopLimitSpec;

    fn validate(spec: &HopLimitSpec) -> Result<(), ScenarioError> {
        check_hop_limit(spec.hop_limit)
    }

    fn hop_limit(spec: &HopLimitSpec) -> u8 {
        spec.hop_limit as u8
    }

    fn build(_spec: &HopLimitSpec, b: &mut AdmBuild) -> Self {
        // The same random stream name as DIBS proper: the variants differ in the filter only.
        DibsNaive(Dibs::new(
            DibsConfig { filter_full: false },
            b.switch_facing_ports(),
            b.switch_streams("dibs"),
        ))
    }

    fn admit(&mut self, cx: &AdmCx, a: &mut Arrival, fits: bool) -> Verdict {
        self.0.decide(cx.rule, a, fits, cx.ports)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng_stream;
    use crate::fabric::packet::test_packet;
    use crate::fabric::store::PacketStore;
    use crate::ids::NodeId;
    use crate::time::{Delta, Rate};

    /// Ports 0–5 of one switch, 3 KB per port; ports 1, 2 and 4 hold a packet of 1048 B
    /// and cannot take another 2,000 B.
    fn ports(store: &mut PacketStore) -> Vec<Port> {
        (0..6)
            .map(|i| {
                let mut p = Port::new(
                    NodeId(0),
                    PortId(100 + i),
                    Rate::gbps(100),
                    Delta::ZERO,
                    1,
                    1,
                    Default::default(),
                );
                if [1, 2, 4].contains(&i) {
                    let r = store.insert(test_packet(0));
                    p.queues.enqueue(store, 0, r);
                }
                p
            })
            .collect()
    }

    fn decide(d: &mut Dibs, ports: &[Port], ttl: &mut u8) -> Verdict {
        let rule = BufferRule::StaticPerPort { bytes: 3_000 };
        let mut a = Arrival {
            sw: 0,
            egress: PortId(1),
            queue: 0,
            size: 2_000,
            used: 0,
            buffer: 1 << 30,
            ttl,
            rank: 0,
            now: crate::time::SimTime::ZERO,
        };
        d.decide(&rule, &mut a, false, ports)
    }

    /// DIBS picks uniformly among the switch-facing ports that can take the packet — never a
    /// full one while another exists — and drops only when all are full.
    #[test]
    fn dibs_never_deflects_to_a_full_port_while_another_can_take_it() {
        let mut store = PacketStore::new();
        let ports = ports(&mut store);
        // Candidates: every port but 5 (say it faces a host).
        let candidates = vec![(0..5).map(PortId).collect()];
        let mut dibs = Dibs::new(DibsConfig { filter_full: true }, candidates, vec![rng_stream(1, "t")]);
        let mut seen = [0u32; 6];
        for _ in 0..2_000 {
            let mut ttl = 250;
            match decide(&mut dibs, &ports, &mut ttl) {
                Verdict::Deflect(p) => seen[p.idx()] += 1,
                v => panic!("expected a deflection, got {v:?}"),
            }
            assert_eq!(ttl, 249, "every switch hop spends one TTL");
        }
        assert_eq!((seen[1], seen[2], seen[4], seen[5]), (0, 0, 0, 0), "{seen:?}");
        assert!(seen[0] > 900 && seen[3] > 900, "uniform between the two free ports: {seen:?}");
        // All candidates full: drop.
        let full = vec![vec![PortId(1), PortId(2), PortId(4)]];
        let mut dibs = Dibs::new(DibsConfig { filter_full: true }, full, vec![rng_stream(1, "t")]);
        assert_eq!(decide(&mut dibs, &ports, &mut 250), Verdict::Drop(DropCause::EgressAdmission));
        // A packet whose TTL runs out is dropped whatever the queues.
        assert_eq!(decide(&mut dibs, &ports, &mut 1), Verdict::Drop(DropCause::HopLimit));
    }

    /// The naive variant picks any switch-facing port, full ones included.
    #[test]
    fn naive_deflection_ignores_fullness() {
        let mut store = PacketStore::new();
        let ports = ports(&mut store);
        let candidates = vec![(0..5).map(PortId).collect()];
        let mut naive = Dibs::new(DibsConfig { filter_full: false }, candidates, vec![rng_stream(1, "t")]);
        let mut full_chosen = 0;
        for _ in 0..1_000 {
            if let Verdict::Deflect(p) = decide(&mut naive, &ports, &mut 250) {
                full_chosen += [1, 2, 4].contains(&p.0) as u32;
            }
        }
        assert!(full_chosen > 400, "about 3 in 5 choices are full ports: {full_chosen}");
    }
}
