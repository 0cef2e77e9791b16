//! Vertigo's switch (Abdous et al., "Burst-tolerant datacenter networks with Vertigo",
//! CoNEXT 2021), as the deflection paper evaluates it (its §2(c) and artifact): egress
//! queues scheduled shortest-remaining first (rank order), and Selective Deflection — a
//! packet arriving at a full queue makes room by taking out the queued packets with the
//! most remaining bytes, if they rank below it, and those are deflected; otherwise the
//! arriving packet is. A deflected packet goes to the less occupied of two random
//! switch-facing ports, where a full queue again gives up its highest ranks (dropped) for
//! it, or drops it if it ranks highest. The queue surgery is the switch's
//! (`Simulator::vertigo_make_room`); this policy decides and picks ports.

use super::{pick_two, BufferRule, Verdict};
use crate::engine::RngStream;
use crate::fabric::port::Port;
use crate::ids::PortId;
use rand::Rng;

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

    pub(super) fn admit(&mut self, fits: bool) -> Verdict {
        if fits {
            Verdict::Enqueue
        } else {
            Verdict::MakeRoom
        }
    }

    /// Where switch `sw` deflects a packet: the less occupied of two random switch-facing
    /// ports (power of two choices; ties by a fair coin).
    pub fn deflection_port(
        &mut self,
        sw: usize,
        queue: usize,
        rule: &BufferRule,
        ports: &[Port],
    ) -> Option<PortId> {
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
