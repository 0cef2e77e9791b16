//! The deadlock detector (`[output.deadlock]`, off by default): finds a cyclic buffer
//! dependency that has frozen — a cycle of paused, non-empty switch egress queues, each
//! waiting on the next, none of which has sent a packet for `hold`.
//!
//! Every `interval` it looks at the switch egress queues that are paused and hold packets,
//! and notes how long each has kept the same packet at its head (no progress). Those stuck
//! for at least `hold` are the candidates. Queue *u* (port P of switch A) waits on queue
//! *v* (a port of switch B, P's peer) when *v* holds packets that entered B through P's
//! peer port: those packets are what keeps B's ingress over its threshold, so P stays
//! paused until *v* moves. A cycle of that wait-for graph among the candidates is a
//! deadlock: it is recorded (time, the cycle's queues in order, the flows whose packets
//! they hold; the `deadlocks` table and the summary), once per set of queues, and — with
//! `stop = true`, the default — the run ends there with a message saying so, instead of
//! idling (retransmission timers firing into paused queues) until its time limit.
//!
//! Off, it costs nothing: no state, no event. On, a check reads only ports with a paused
//! queue and, for the wait-for edges, only the queues already stuck.

use std::collections::{BTreeMap, BTreeSet};

use super::Simulator;
use crate::engine::Event;
use crate::fabric::packet::PacketKind;
use crate::ids::{FlowId, NodeId, PortId};
use crate::scenario::output::DeadlockSpec;
use crate::time::{Delta, SimTime};

/// One queue of a deadlock's cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadlockMember {
    pub port: PortId,
    pub queue: u32,
    /// Bytes it holds.
    pub bytes: u64,
    /// Since when it has kept the same head packet, paused.
    pub stuck_since: SimTime,
    /// Flows with data packets in it, by id.
    pub flows: Vec<FlowId>,
}

/// A frozen cyclic buffer dependency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    /// When the detector found it.
    pub time: SimTime,
    /// The cycle, in wait-for order (each waits on the next; the last on the first).
    pub members: Vec<DeadlockMember>,
    /// Every flow with data packets held in the cycle, by id.
    pub flows: Vec<FlowId>,
}

/// Head signature of a queue: (slot, flow, sequence) of its head packet.
type Head = (u32, u32, u64);

/// The detector's state (present only when `[output.deadlock]` is given).
#[derive(Clone, Debug)]
pub struct DeadlockDetector {
    interval: Delta,
    hold: Delta,
    stop: bool,
    /// Paused, non-empty queues (global port, queue): head signature and since when.
    watch: BTreeMap<(u32, u32), (Head, SimTime)>,
    reported: BTreeSet<Vec<(u32, u32)>>,
    pub found: Vec<Deadlock>,
    /// The run was ended by a deadlock.
    pub stopped: bool,
}

impl DeadlockDetector {
    pub fn new(spec: &DeadlockSpec) -> Self {
        DeadlockDetector {
            interval: spec.interval.0,
            hold: spec.hold.0,
            stop: spec.stop,
            watch: BTreeMap::new(),
            reported: BTreeSet::new(),
            found: Vec::new(),
            stopped: false,
        }
    }
}

/// The first cycle of `edges` (nodes 0..n), in order, if any.
fn find_cycle(n: usize, edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    // 0: unvisited, 1: on the current path, 2: done.
    let mut state = vec![0u8; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (u, ref mut next)) = path.last_mut() {
            if let Some(&v) = edges[u].get(*next) {
                *next += 1;
                match state[v] {
                    0 => {
                        state[v] = 1;
                        path.push((v, 0));
                    }
                    1 => {
                        let start = path.iter().position(|&(w, _)| w == v).expect("on the path");
                        return Some(path[start..].iter().map(|&(w, _)| w).collect());
                    }
                    _ => {}
                }
            } else {
                state[u] = 2;
                path.pop();
            }
        }
    }
    None
}

impl Simulator {
    /// A check of `[output.deadlock]`.
    pub(super) fn on_deadlock_check(&mut self) {
        let now = self.fab.now;
        let Some(d) = self.deadlock.as_mut() else { return };
        // Paused, non-empty queues and how long each has kept its head.
        let mut watch = BTreeMap::new();
        for s in &self.switches.nodes {
            for id in self.fab.topo.ports_of(s.node) {
                let p = &self.fab.ports[id as usize];
                if p.backlog_bytes() == 0 || !p.queues.any_paused() {
                    continue;
                }
                for q in 0..p.queues.len() {
                    if !p.queues.is_paused(q) {
                        continue;
                    }
                    let Some(head) = p.queues.head(q) else { continue };
                    let pkt = self.fab.store.get(head);
                    let sig = (head.index() as u32, pkt.flow.0, pkt.seq);
                    let key = (id, q as u32);
                    let since = match d.watch.get(&key) {
                        Some(&(old, t)) if old == sig => t,
                        _ => now,
                    };
                    watch.insert(key, (sig, since));
                }
            }
        }
        d.watch = watch;
        let stuck: Vec<(u32, u32)> =
            d.watch.iter().filter(|(_, (_, t))| now.since(*t) >= d.hold).map(|(k, _)| *k).collect();
        if stuck.len() >= 2 {
            // Wait-for edges among the stuck queues.
            let topo = &self.fab.topo;
            let edges: Vec<Vec<usize>> = stuck
                .iter()
                .map(|&(pid, _)| {
                    let peer = self.fab.ports[pid as usize].peer;
                    let b = self.fab.ports[peer.idx()].node;
                    if topo.is_host(b) {
                        return Vec::new();
                    }
                    let ingress = peer.0 - topo.node_ports[b.idx()];
                    stuck
                        .iter()
                        .enumerate()
                        .filter(|&(_, &(eid, q2))| {
                            let e = &self.fab.ports[eid as usize];
                            e.node == b
                                && self
                                    .fab
                                    .store
                                    .iter(e.queues.list(q2 as usize))
                                    .any(|r| self.fab.store.get(r).ingress as u32 == ingress)
                        })
                        .map(|(j, _)| j)
                        .collect()
                })
                .collect();
            if let Some(cycle) = find_cycle(stuck.len(), &edges) {
                let mut key: Vec<(u32, u32)> = cycle.iter().map(|&i| stuck[i]).collect();
                key.sort_unstable();
                if d.reported.insert(key) {
                    let store = &self.fab.store;
                    let members: Vec<DeadlockMember> = cycle
                        .iter()
                        .map(|&i| {
                            let (pid, q) = stuck[i];
                            let queues = &self.fab.ports[pid as usize].queues;
                            let flows: BTreeSet<FlowId> = store
                                .iter(queues.list(q as usize))
                                .map(|r| store.get(r))
                                .filter(|p| p.kind == PacketKind::Data)
                                .map(|p| p.flow)
                                .collect();
                            DeadlockMember {
                                port: PortId(pid),
                                queue: q,
                                bytes: queues.queue_bytes(q as usize),
                                stuck_since: d.watch[&(pid, q)].1,
                                flows: flows.into_iter().collect(),
                            }
                        })
                        .collect();
                    let flows: BTreeSet<FlowId> =
                        members.iter().flat_map(|m| m.flows.iter().copied()).collect();
                    d.found.push(Deadlock { time: now, members, flows: flows.into_iter().collect() });
                    if d.stop {
                        d.stopped = true;
                        // The run ends here: nothing more is simulated.
                        while self.fab.events.pop().is_some() {}
                        self.limit = now;
                        return;
                    }
                }
            }
        }
        if self.fab.counters.flows_finished < self.hosts.core.flows.len() as u64 || self.fab.store.live() > 0
        {
            self.fab.events.schedule(now + d.interval, Event::DeadlockCheck);
        }
    }

    /// The deadlocks `[output.deadlock]` found, in time order (empty when it is off).
    pub fn deadlocks(&self) -> &[Deadlock] {
        self.deadlock.as_ref().map_or(&[], |d| &d.found)
    }

    /// Whether a deadlock ended the run (`[output.deadlock] stop = true`).
    pub fn stopped_by_deadlock(&self) -> bool {
        self.deadlock.as_ref().is_some_and(|d| d.stopped)
    }

    /// A sentence on the first deadlock found (None: none found, or the detector is off).
    pub fn deadlock_message(&self) -> Option<String> {
        let d = self.deadlock.as_ref()?;
        let first = d.found.first()?;
        let node_port = |p: PortId| -> (NodeId, u32) {
            let node = self.fab.ports[p.idx()].node;
            (node, p.0 - self.fab.topo.node_ports[node.idx()])
        };
        let cycle: Vec<String> = first
            .members
            .iter()
            .map(|m| {
                let (n, p) = node_port(m.port);
                format!("{}:{}/q{}", n.0, p, m.queue)
            })
            .collect();
        let stuck = first.members.iter().map(|m| m.stuck_since).min().unwrap_or(first.time);
        Some(format!(
            "deadlock at {:.3} us: a cycle of {} paused queues (node:port/queue {}) has made no progress \
             since {:.3} us, holding {} flows{}",
            first.time.as_ns_f64() / 1e3,
            first.members.len(),
            cycle.join(" -> "),
            stuck.as_ns_f64() / 1e3,
            first.flows.len(),
            if d.stopped { "; the run was stopped there" } else { "" }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::find_cycle;

    #[test]
    fn cycles_are_found_in_wait_for_order() {
        assert_eq!(find_cycle(3, &[vec![1], vec![2], vec![]]), None);
        assert_eq!(find_cycle(4, &[vec![1], vec![2], vec![3], vec![1]]), Some(vec![1, 2, 3]));
        assert_eq!(find_cycle(2, &[vec![1], vec![0]]), Some(vec![0, 1]));
        assert_eq!(find_cycle(3, &[vec![], vec![], vec![2]]), Some(vec![2]));
    }
}
