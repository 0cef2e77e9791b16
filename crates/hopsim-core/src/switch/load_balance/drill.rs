//! DRILL (Ghorbani et al., "Drill: Micro Load Balancing for Low-latency Data Center
//! Networks", SIGCOMM 2017): for every packet, a switch samples `d` random ports among the
//! equal-cost next hops, compares them with the `m` ports it remembers as least loaded from
//! its previous decision, sends the packet to the least loaded and remembers the best.
//! DRILL(2, 1) is the recommended setting (as used by ConWeave's evaluation, SIGCOMM 2023).
//!
//! Choices where the paper leaves room, following the public ns-3 implementations
//! (ConWeave's and Pyrrha's `DoLbDrill` / `SelectEgressByDRILL`): a port's load is the
//! bytes queued in its data queues; the memory is kept per (switch, destination host); the
//! remembered port wins ties; ACKs, NACKs and CNPs are spread by ECMP (only data is sprayed
//! per packet). Each switch draws from its own random stream (`switch/<node>/drill`).
//! DRILL's decomposition of asymmetric topologies into symmetric components is not
//! modelled: every shortest-path next hop is a candidate.

use serde::{Deserialize, Serialize};

use super::hooks::{LbBuild, LbCx, LoadBalancerPolicy};
use crate::engine::{pick_below, RngStream};
use crate::fabric::packet::{Packet, PacketKind};
use crate::fabric::port::Port;
use crate::ids::{NodeId, PortId};
use crate::scenario::error::{check, ScenarioError};
use crate::topology::routing::{routing_tuple, FiveTuple, Routing};

/// DRILL(d, m) (`[routing.drill]`). Defaults d = 2, m = 1: DRILL(2, 1), the setting the
/// DRILL authors recommend (as ConWeave's evaluation uses it, SIGCOMM 2023 §6).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrillSpec {
    /// Random next hops sampled per packet (d).
    #[serde(default = "two")]
    pub samples: u32,
    /// Least-loaded next hops remembered between decisions (m).
    #[serde(default = "one")]
    pub memory: u32,
}

impl Default for DrillSpec {
    fn default() -> Self {
        DrillSpec { samples: 2, memory: 1 }
    }
}

fn two() -> u32 {
    2
}
fn one() -> u32 {
    1
}

/// DRILL(d, m) (`[routing.drill]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrillConfig {
    /// Random ports sampled per packet (d). Default 2.
    pub samples: u32,
    /// Least-loaded ports remembered from the previous decision (m). Default 1.
    pub memory: u32,
}

/// DRILL at every switch.
#[derive(Clone, Debug)]
pub struct Drill {
    cfg: DrillConfig,
    hosts: usize,
    /// Per node id: its host index (destinations index the memory).
    host_index: Vec<u32>,
    /// Per (switch, destination host): `memory` remembered ports (`NONE`: empty).
    remembered: Vec<PortId>,
    rngs: Vec<RngStream>,
    /// Candidates of the current decision (reused).
    scratch: Vec<PortId>,
}

impl Drill {
    /// `rngs`: one stream per switch, in switch order.
    pub fn new(cfg: DrillConfig, topo: &crate::topology::Topology, rngs: Vec<RngStream>) -> Drill {
        let hosts = topo.hosts.len();
        let slots = rngs.len() * hosts * cfg.memory as usize;
        let host_index = topo.host_index.clone();
        Drill { cfg, hosts, host_index, remembered: vec![PortId::NONE; slots], rngs, scratch: Vec::new() }
    }

    fn choose(
        &mut self,
        routing: &Routing,
        node: NodeId,
        sw: usize,
        tuple: FiveTuple,
        kind: PacketKind,
        ports: &[Port],
    ) -> PortId {
        if kind != PacketKind::Data {
            return routing.select(node, tuple);
        }
        let hops = routing.table.next_hops(node, tuple.dst);
        if hops.len() <= 1 {
            return hops.first().copied().unwrap_or(PortId::NONE);
        }
        let m = self.cfg.memory as usize;
        let dst_host = self.host_index[tuple.dst.idx()] as usize;
        let at = (sw * self.hosts + dst_host) * m;
        let memory = &mut self.remembered[at..at + m];
        // Remembered ports first (they win ties), if still next hops (a link may have failed).
        self.scratch.clear();
        self.scratch.extend(memory.iter().filter(|p| **p != PortId::NONE && hops.contains(p)));
        let remembered = self.scratch.len();
        // d distinct samples: a partial Fisher–Yates shuffle of the next hops.
        let rng = &mut self.rngs[sw];
        self.scratch.extend_from_slice(hops);
        let pool = &mut self.scratch[remembered..];
        let d = (self.cfg.samples as usize).min(pool.len());
        for i in 0..d {
            let j = i + pick_below(rng, pool.len() - i);
            pool.swap(i, j);
        }
        self.scratch.truncate(remembered + d);
        let load = |p: &PortId| ports[p.idx()].backlog_bytes();
        // Stable: the first of equally loaded candidates wins.
        let best = *self.scratch.iter().min_by_key(|p| load(p)).expect("at least one candidate");
        if m == 1 {
            memory[0] = best;
        } else {
            self.scratch.sort_by_key(|p| load(p));
            // Drop repeats (a remembered port may also be sampled), keeping the first.
            let mut kept = 0;
            for i in 0..self.scratch.len() {
                let p = self.scratch[i];
                if !self.scratch[..kept].contains(&p) {
                    self.scratch[kept] = p;
                    kept += 1;
                }
            }
            self.scratch.truncate(kept);
            for (slot, p) in
                memory.iter_mut().zip(self.scratch.iter().chain(std::iter::repeat(&PortId::NONE)))
            {
                *slot = *p;
            }
        }
        best
    }
}

impl LoadBalancerPolicy for Drill {
    const NAME: &'static str = "drill";
    const PARTITIONS: bool = true;
    const REORDERS: bool = true;
    type Spec = DrillSpec;

    fn validate(spec: &DrillSpec) -> Result<(), ScenarioError> {
        check(
            (1..=64).contains(&spec.samples),
            "routing.drill.samples",
            format!("expected 1 to 64 sampled ports, got {}", spec.samples),
        )?;
        check(
            spec.memory <= 64,
            "routing.drill.memory",
            format!("expected 0 to 64 remembered ports, got {}", spec.memory),
        )
    }

    fn build(spec: &DrillSpec, b: &mut LbBuild) -> Self {
        let cfg = DrillConfig { samples: spec.samples, memory: spec.memory };
        Drill::new(cfg, b.topo, b.switch_streams("drill"))
    }

    fn select(&mut self, cx: &mut LbCx, node: NodeId, sw: usize, pkt: &Packet, _slot: usize) -> PortId {
        self.choose(cx.routing, node, sw, routing_tuple(pkt), pkt.kind, cx.ports)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng_stream;
    use crate::fabric::packet::test_packet;
    use crate::fabric::store::PacketStore;
    use crate::scenario::EcmpHash;
    use crate::time::{Delta, Rate};
    use crate::topology::builders::leaf_spine;
    use crate::topology::Topology;

    /// Leaf 0 (node 2, switch 0) of a leaf-spine with 4 spines and one host per leaf: its
    /// 4 uplinks are the next hops towards host 1.
    struct Leaf {
        topo: Topology,
        routing: Routing,
        ports: Vec<Port>,
        store: PacketStore,
        uplinks: Vec<PortId>,
    }

    const LEAF: NodeId = NodeId(2);
    const TO_HOST_1: FiveTuple = FiveTuple { src: NodeId(0), dst: NodeId(1), sport: 10_000, dport: 100 };

    fn leaf() -> Leaf {
        let link = (Rate::gbps(100), Delta::from_us(1));
        let topo = leaf_spine(4, 2, 1, 1, link, link);
        let routing = Routing::new(&topo, EcmpHash::Mix, 1);
        let ports = topo
            .ports
            .iter()
            .map(|s| Port::new(s.node, s.peer, s.rate, s.delay, 1, 1, Default::default()))
            .collect();
        let uplinks = routing.table.next_hops(LEAF, NodeId(1)).to_vec();
        assert_eq!(uplinks.len(), 4, "one next hop per spine");
        Leaf { topo, routing, ports, store: PacketStore::new(), uplinks }
    }

    impl Leaf {
        /// Queue `packets` packets of 1,048 B at uplink `i`.
        fn load(&mut self, i: usize, packets: u32) {
            let port = &mut self.ports[self.uplinks[i].idx()];
            for _ in 0..packets {
                let r = self.store.insert(test_packet(0));
                port.queues.enqueue(&mut self.store, 0, r);
            }
        }

        /// The uplink (by index) DRILL picks for a data packet (or `kind`) to host 1.
        fn pick(&self, d: &mut Drill, kind: PacketKind) -> usize {
            let p = d.choose(&self.routing, LEAF, 0, TO_HOST_1, kind, &self.ports);
            self.uplinks.iter().position(|u| *u == p).expect("an uplink")
        }

        fn drill(&self, samples: u32, memory: u32) -> Drill {
            let rngs = (0..6).map(|s| rng_stream(7, &format!("drill/{s}"))).collect();
            Drill::new(DrillConfig { samples, memory }, &self.topo, rngs)
        }

        /// What switch 0 remembers for host 1, as uplink indices (`None`: an empty slot).
        fn memory(&self, d: &Drill) -> Vec<Option<usize>> {
            let m = d.cfg.memory as usize;
            let at = d.host_index[1] as usize * m; // switch 0, destination host 1
            d.remembered[at..at + m].iter().map(|p| self.uplinks.iter().position(|u| u == p)).collect()
        }
    }

    /// DRILL (SIGCOMM 2017), the per-packet choice: without memory a packet goes to the less
    /// loaded of d = 2 ports drawn at random — uplinks holding 0, 1, 2 and 3 packets win 3, 2,
    /// 1 and 0 of the 6 pairs.
    #[test]
    fn the_least_loaded_of_d_random_samples_wins() {
        let mut l = leaf();
        for (i, packets) in [0, 1, 2, 3].into_iter().enumerate() {
            l.load(i, packets);
        }
        let mut d = l.drill(2, 0);
        let mut wins = [0u32; 4];
        for _ in 0..6_000 {
            wins[l.pick(&mut d, PacketKind::Data)] += 1;
        }
        assert_eq!(wins[3], 0, "the most loaded port never wins a pair: {wins:?}");
        for (i, share) in [3.0, 2.0, 1.0].into_iter().enumerate() {
            let expect = 6_000.0 * share / 6.0;
            assert!((wins[i] as f64 - expect).abs() < 0.1 * expect, "{wins:?}");
        }
        // Sampling every next hop (d = 4) always finds the least loaded.
        let mut all = l.drill(4, 0);
        assert!((0..100).all(|_| l.pick(&mut all, PacketKind::Data) == 0));
    }

    /// DRILL (SIGCOMM 2017), the per-packet choice: the remembered port is compared with the
    /// samples; a sample less loaded than it wins and becomes the memory, a more loaded one
    /// loses to it.
    #[test]
    fn the_remembered_port_competes_with_the_samples_and_the_best_is_remembered() {
        let mut l = leaf();
        let mut d = l.drill(1, 1);
        let first = l.pick(&mut d, PacketKind::Data);
        assert_eq!(l.memory(&d), [Some(first)], "the first choice is remembered");
        // The remembered port empty, every other loaded: it wins every time.
        for i in (0..4).filter(|i| *i != first) {
            l.load(i, 2);
        }
        assert!((0..200).all(|_| l.pick(&mut d, PacketKind::Data) == first));
        // Now it holds the most: the first sample that is less loaded takes over, and is
        // remembered from then on.
        l.load(first, 5);
        let next = l.pick(&mut d, PacketKind::Data);
        assert_ne!(next, first);
        assert_eq!(l.memory(&d), [Some(next)]);
    }

    /// Where the paper is silent (ns-3 implementations): among equally loaded candidates
    /// the remembered port wins, so with idle ports DRILL(1, 1) sticks to its first choice,
    /// where DRILL(1, 0) spreads.
    #[test]
    fn the_remembered_port_wins_ties() {
        let l = leaf();
        let mut d = l.drill(1, 1);
        let first = l.pick(&mut d, PacketKind::Data);
        assert!((0..200).all(|_| l.pick(&mut d, PacketKind::Data) == first), "ties keep the memory");
        let mut forgetful = l.drill(1, 0);
        let mut seen = [false; 4];
        for _ in 0..200 {
            seen[l.pick(&mut forgetful, PacketKind::Data)] = true;
        }
        assert_eq!(seen, [true; 4], "without memory every uplink is drawn");
    }

    /// Only data is sprayed: ACKs (and other control packets) take the ECMP port, whatever
    /// the loads, and leave the memory alone.
    #[test]
    fn acks_go_by_ecmp() {
        let mut l = leaf();
        let ecmp = l.uplinks.iter().position(|u| *u == l.routing.select(LEAF, TO_HOST_1)).unwrap();
        l.load(ecmp, 10);
        let mut d = l.drill(4, 1);
        for kind in [PacketKind::Ack, PacketKind::Nack, PacketKind::Cnp] {
            assert_eq!(l.pick(&mut d, kind), ecmp, "{kind:?} by ECMP onto the loaded port");
        }
        assert_eq!(l.memory(&d), [None], "control packets leave no memory");
        assert_ne!(l.pick(&mut d, PacketKind::Data), ecmp, "data avoids it");
    }

    /// A remembered port whose link failed (no longer a next hop after rerouting) is not a
    /// candidate, however lightly loaded.
    #[test]
    fn a_remembered_port_that_is_no_longer_a_next_hop_is_ignored() {
        let mut l = leaf();
        for i in 1..4 {
            l.load(i, 1);
        }
        let mut d = l.drill(4, 1);
        assert_eq!(l.pick(&mut d, PacketKind::Data), 0, "the idle uplink");
        assert_eq!(l.memory(&d), [Some(0)]);
        let gone = l.uplinks[0];
        let peer = l.topo.ports[gone.idx()].peer;
        let mut up = vec![true; l.topo.ports.len()];
        up[gone.idx()] = false;
        up[peer.idx()] = false;
        l.routing.reroute(&l.topo, &up);
        // The remembered uplink is still the least loaded, but no longer a next hop.
        for i in 2..4 {
            l.load(i, i as u32);
        }
        l.uplinks = l.routing.table.next_hops(LEAF, NodeId(1)).to_vec();
        assert_eq!(l.uplinks.len(), 3);
        let p = d.choose(&l.routing, LEAF, 0, TO_HOST_1, PacketKind::Data, &l.ports);
        assert_ne!(p, gone, "the failed uplink is never chosen");
        assert_eq!(p, l.uplinks[0], "the least loaded surviving uplink");
    }

    /// DRILL (SIGCOMM 2017), DRILL(d, m) with m > 1: the memory keeps the m least loaded
    /// distinct candidates (a remembered port sampled again counts once), best first.
    #[test]
    fn memory_keeps_the_m_least_loaded_distinct_ports() {
        let mut l = leaf();
        for (i, packets) in [3, 1, 0, 2].into_iter().enumerate() {
            l.load(i, packets);
        }
        let mut d = l.drill(4, 2);
        assert_eq!(l.pick(&mut d, PacketKind::Data), 2);
        assert_eq!(l.memory(&d), [Some(2), Some(1)]);
        // Every port is both remembered and sampled now: still two distinct ports.
        assert_eq!(l.pick(&mut d, PacketKind::Data), 2);
        assert_eq!(l.memory(&d), [Some(2), Some(1)]);
        // One sample per packet, three remembered slots: the memory fills with distinct
        // ports as samples come, and never holds one twice.
        let mut d = l.drill(1, 3);
        for _ in 0..50 {
            l.pick(&mut d, PacketKind::Data);
            let m: Vec<usize> = l.memory(&d).into_iter().flatten().collect();
            let loads: Vec<u64> = m.iter().map(|i| l.ports[l.uplinks[*i].idx()].backlog_bytes()).collect();
            assert!(loads.windows(2).all(|w| w[0] <= w[1]), "best first: {m:?}");
            let distinct: std::collections::BTreeSet<usize> = m.iter().copied().collect();
            assert_eq!(distinct.len(), m.len(), "no port twice: {m:?}");
        }
        assert_eq!(l.memory(&d), [Some(2), Some(1), Some(3)], "the three least loaded");
    }
}
