//! Vertigo's switch (Abdous et al., "Burst-tolerant datacenter networks with Vertigo",
//! CoNEXT 2021), as the deflection paper evaluates it (its §2(c) and artifact): egress
//! queues scheduled shortest-remaining first (rank order), and Selective Deflection — a
//! packet arriving at a full queue makes room by taking out the queued packets with the
//! most remaining bytes, if they rank below it, and those are deflected; otherwise the
//! arriving packet is. A deflected packet goes to the less occupied of two random
//! switch-facing ports, where a full queue again gives up its highest ranks (dropped) for
//! it, or drops it if it ranks highest. The queue surgery is the switch's (`preempt`);
//! this policy decides, names the packets to take out and picks ports.

use rand::Rng;

use super::hooks::{
    check_hop_limit, pick_two, AdmBuild, AdmCx, Arrival, BufferRule, DeflectionPolicy, HopLimitSpec,
    SurgeryCx, Verdict,
};
use crate::engine::RngStream;
use crate::fabric::port::Port;
use crate::fabric::store::PacketRef;
use crate::ids::PortId;
use crate::metrics::DropCause;
use crate::scenario::error::ScenarioError;

/// Vertigo at every switch.
#[derive(Clone, Debug)]
pub struct Vertigo {
    candidates: Vec<Vec<PortId>>,
    rngs: Vec<RngStream>,
}

impl Vertigo {
    pub fn new(candidates: Vec<Vec<PortId>>, rngs: Vec<RngStream>) -> Vertigo {
        Vertigo { candidates, rngs }
    }

    /// Where switch `sw` deflects a packet: the less occupied of two random switch-facing
    /// ports (power of two choices; ties by a fair coin).
    fn choose_port(&mut self, sw: usize, queue: usize, rule: &BufferRule, ports: &[Port]) -> Option<PortId> {
        let rng = &mut self.rngs[sw];
        match pick_two(rng, &self.candidates[sw]) {
            (Some(a), Some(b)) => {
                let (qa, qb) = (rule.level(&ports[a.idx()], queue), rule.level(&ports[b.idx()], queue));
                Some(if qa < qb || (qa == qb && rng.gen_bool(0.5)) { a } else { b })
            }
            (a, _) => a,
        }
    }
}

impl DeflectionPolicy for Vertigo {
    const NAME: &'static str = "vertigo";
    type Spec = HopLimitSpec;
    const READS_RANK: bool = true;
    const RANK_ORDERED: bool = true;

    fn validate(spec: &HopLimitSpec) -> Result<(), ScenarioError> {
        check_hop_limit(spec.hop_limit)
    }

    fn hop_limit(spec: &HopLimitSpec) -> u8 {
        spec.hop_limit as u8
    }

    fn build(_spec: &HopLimitSpec, b: &mut AdmBuild) -> Self {
        Vertigo::new(b.switch_facing_ports(), b.switch_streams("vertigo"))
    }

    /// A full queue makes room (the switch asks [`victims`](Self::victims)).
    fn admit(&mut self, _cx: &AdmCx, a: &mut Arrival, fits: bool) -> Verdict {
        if !a.spend_hop() {
            return Verdict::Drop(DropCause::HopLimit);
        }
        if fits {
            Verdict::Enqueue
        } else {
            Verdict::MakeRoom
        }
    }

    /// The highest-ranked packets of `queue` whose removal lets the arrival fit, all ranked
    /// strictly above it; `None` if there are not enough.
    fn victims(
        &self,
        cx: &SurgeryCx,
        port: PortId,
        queue: usize,
        rank: u64,
        size: u64,
        used: u64,
        buffer: u64,
    ) -> Option<Vec<PacketRef>> {
        let cap = cx.rule.capacity(used, buffer);
        let p = &cx.ports[port.idx()];
        let level = cx.rule.level(p, queue);
        let list = p.queues.list(queue);
        let mut freed = 0;
        let mut victims = Vec::new();
        let mut at = p.queues.tail(queue);
        while level - freed + size > cap {
            let x = at?;
            if cx.headers.get(x.index(), cx.rank) <= rank {
                return None;
            }
            freed += cx.store.get(x).wire_bytes as u64;
            victims.push(x);
            at = cx.store.prev_of(list, x);
        }
        Some(victims)
    }

    fn deflection_port(&mut self, cx: &AdmCx, sw: usize, queue: usize) -> Option<PortId> {
        self.choose_port(sw, queue, cx.rule, cx.ports)
    }
}
