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
