//! Flow classification (Pyrrha §2 vocabulary), decided from the workload, the routes and
//! the arrival times alone, never from how a run went, so that two runs of one scenario
//! under different flow control put every flow in the same class:
//!
//! - *congested*: the many-to-one traffic that creates congestion roots (incast and query
//!   workloads, hot-expert MoE flows, flows marked `congested`);
//! - *vulnerable*: not congested, but crossing an egress port during a *congestion
//!   episode* of that port — with its data, or with the ACKs it needs back (Pyrrha §2.2:
//!   "uncongested flows sharing paths with congested flows"; a flow whose ACKs wait behind
//!   a paused or congested port stalls as surely as one whose data does);
//! - *background*: all others.
//!
//! A port's congestion episodes are the busy periods it would have if it carried only
//! the congested flows crossing it, each arriving whole at its start: the bytes (headers
//! included) of the flows that have started and not yet drained, at the port's rate.
//! A flow is "crossing" a port from its start for its ideal FCT (its length on an idle
//! network), on its data path and on its ACK path (the reversed 5-tuple, on which replies
//! travel). Paths come from the deterministic routing (`Routing::path_of`).

use super::Simulator;
use crate::time::{Delta, SimTime};
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

/// Merge (start, busy time) arrivals at one port into its busy periods, in time order.
fn episodes(mut arrivals: Vec<(SimTime, Delta)>) -> Vec<(SimTime, SimTime)> {
    arrivals.sort_by_key(|a| a.0);
    let mut out: Vec<(SimTime, SimTime)> = Vec::new();
    for (start, busy) in arrivals {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 += busy,
            _ => out.push((start, start + busy)),
        }
    }
    out
}

/// Does `[s, e]` overlap one of the sorted, disjoint `episodes`?
fn overlaps(episodes: &[(SimTime, SimTime)], s: SimTime, e: SimTime) -> bool {
    let i = episodes.partition_point(|ep| ep.1 < s);
    episodes.get(i).is_some_and(|ep| ep.0 <= e)
}

impl Simulator {
    /// Class of every flow, in flow-id order.
    pub fn flow_classes(&self) -> Vec<FlowClass> {
        let path = |f: &crate::host::Flow| {
            let tuple = FiveTuple { src: f.src, dst: f.dst, sport: f.sport, dport: f.dport };
            self.fab.routing.path_of(&self.fab.topo, tuple)
        };
        let ack_path = |f: &crate::host::Flow| {
            let tuple = FiveTuple { src: f.dst, dst: f.src, sport: f.dport, dport: f.sport };
            self.fab.routing.path_of(&self.fab.topo, tuple)
        };
        let (mtu, header) = (self.hosts.core.cfg.mtu as u64, self.hosts.core.cfg.header_bytes as u64);
        let mut arrivals: Vec<Vec<(SimTime, Delta)>> = vec![Vec::new(); self.fab.ports.len()];
        for f in self.hosts.core.flows.iter().filter(|f| f.incast) {
            let wire = f.size + f.size.div_ceil(mtu) * header;
            for p in path(f) {
                arrivals[p.idx()].push((f.start, self.fab.topo.ports[p.idx()].rate.tx_time(wire)));
            }
        }
        let busy: Vec<Vec<(SimTime, SimTime)>> = arrivals.into_iter().map(episodes).collect();
        self.hosts
            .core
            .flows
            .iter()
            .map(|f| {
                if f.incast {
                    return FlowClass::Congested;
                }
                let (s, e) = (f.start, f.start + f.ideal_fct);
                let crosses =
                    |ports: Vec<crate::ids::PortId>| ports.iter().any(|p| overlaps(&busy[p.idx()], s, e));
                if crosses(path(f)) || crosses(ack_path(f)) {
                    FlowClass::Vulnerable
                } else {
                    FlowClass::Background
                }
            })
            .collect()
    }

    /// Source and destination (UDP) port of every flow, in flow-id order: with the hosts,
    /// the 5-tuple that ECMP hashes (the HPCC simulator's `fct.txt` lists them).
    pub fn flow_ports(&self) -> Vec<(u16, u16)> {
        self.hosts.core.flows.iter().map(|f| (f.sport, f.dport)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_merge_into_busy_periods_and_overlaps_are_found() {
        let us = |n: u64| SimTime(n * 1_000_000);
        let d = |n: u64| Delta(n * 1_000_000);
        // Two flows back to back queue up (0-10 us, then 10 more), a third later stands alone.
        let e = episodes(vec![(us(50), d(5)), (us(0), d(10)), (us(4), d(10))]);
        assert_eq!(e, vec![(us(0), us(20)), (us(50), us(55))]);
        assert!(overlaps(&e, us(19), us(30)));
        assert!(overlaps(&e, us(30), us(50)));
        assert!(!overlaps(&e, us(21), us(49)));
        assert!(!overlaps(&e, us(56), us(90)));
        assert!(!overlaps(&[], us(0), us(1)));
    }
}
