//! Flow classification after a run (Pyrrha §2 vocabulary): *congested* flows are the
//! many-to-one traffic that creates congestion roots (incast and query workloads);
//! *vulnerable* flows are not congested but cross at least one link (egress port) that a
//! congested flow crosses while both are active; all others are *background*. Paths come
//! from the deterministic routing (`Routing::path_of`), activity from start to finish
//! (or to the end of the run for unfinished flows).

use super::Simulator;
use crate::time::SimTime;
use crate::topology::FiveTuple;

/// The class of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowClass {
    Congested,
    Vulnerable,
    Background,
}

impl FlowClass {
    pub fn name(self) -> &'static str {
        match self {
            FlowClass::Congested => "congested",
            FlowClass::Vulnerable => "vulnerable",
            FlowClass::Background => "background",
        }
    }
}

impl Simulator {
    /// Class of every flow, in flow-id order.
    pub fn flow_classes(&self) -> Vec<FlowClass> {
        let end = self.now;
        let active = |f: &crate::host::Flow| (f.start, f.finish.unwrap_or(end.max(f.start)));
        let path = |f: &crate::host::Flow| {
            let tuple = FiveTuple { src: f.src, dst: f.dst, sport: f.sport, dport: f.dport };
            self.routing.path_of(&self.topo, tuple)
        };
        // Per port: the activity intervals of the congested flows crossing it.
        let mut congested_on: Vec<Vec<(SimTime, SimTime)>> = vec![Vec::new(); self.ports.len()];
        for f in self.flows.iter().filter(|f| f.incast) {
            for p in path(f) {
                congested_on[p.idx()].push(active(f));
            }
        }
        self.flows
            .iter()
            .map(|f| {
                if f.incast {
                    return FlowClass::Congested;
                }
                let (s, e) = active(f);
                let overlaps =
                    path(f).iter().any(|p| congested_on[p.idx()].iter().any(|&(cs, ce)| cs <= e && s <= ce));
                if overlaps {
                    FlowClass::Vulnerable
                } else {
                    FlowClass::Background
                }
            })
            .collect()
    }
}
