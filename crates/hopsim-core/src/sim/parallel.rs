//! The conservative parallel engine (issue 24 item 2): the network cut into partitions
//! joined by links, each partition simulated by its own thread with its own event queue,
//! synchronised by time windows as long as the shortest delay of a link between
//! partitions (the lookahead; Chandy–Misra–Bryant's conservative rule, as Unison and
//! ns-3's distributed simulator use it).
//!
//! Each thread holds a whole replica of the network, built from the same scenario, but
//! fires only the events of the nodes it owns: a packet sent onto a link whose far end
//! another partition owns leaves through the fabric's outbox and is handed over at the
//! end of the window, with what travels beside it (header fields, INT stack, control
//! payload). It cannot arrive within the window it was sent in: a window is no longer
//! than the shortest such link's delay.
//!
//! **Bit-identical to the sequential run.** Events of one picosecond fire in an order
//! that depends on the events alone (`Event::order_key`), never on when they were
//! scheduled, so every partition fires its events in exactly the order the sequential
//! run fires them; random draws come from per-switch streams. The results of the
//! partitions are then joined: each flow's sender-side record from its source's
//! partition and its receiver's counts from its destination's, each port from its
//! node's, counters summed (`tests/parallel.rs` compares 1, 2 and 4 threads exactly).
//!
//! What a partitioned run cannot reproduce is refused by [`check_scope`] with the field
//! to change: timelines and logs recorded across the network (packet traces, queue and
//! rate samples, PFC event logs, the deadlock detector), link faults, one random stream
//! shared by every switch, policies whose state spans switches or whose frames carry
//! lists (only PFC, ECMP and no deflection here), and TCP (its receiver's timers read the
//! sender's state).

use std::sync::{Barrier, Mutex};

use crate::fabric::int::IntStack;
use crate::fabric::packet::Packet;
use crate::ids::{FlowId, NodeId, PortId};
use crate::metrics::{Counters, FlowRecord};
use crate::scenario::{Scenario, ScenarioError};
use crate::switch::ControlPayload;
use crate::time::{Delta, SimTime};
use crate::topology::Tier;

use super::Simulator;

/// A packet handed from one partition to another at a window's end.
struct Transfer {
    port: PortId,
    arrive: SimTime,
    pkt: Packet,
    header: Vec<u64>,
    int: Option<IntStack>,
    frame: Option<ControlPayload>,
}

/// Which partition simulates each node, and the lookahead between partitions.
#[derive(Clone, Debug)]
pub struct Plan {
    pub part_of: Vec<u32>,
    pub parts: usize,
    /// The shortest arrival delay of a link between two partitions.
    pub lookahead: Delta,
}

/// Cut the network into `parts` partitions: without its top tier of switches (a
/// fat-tree's cores, a leaf-spine's spines) a fabric falls apart into pods or racks;
/// those go to partitions largest first, each to the partition with the fewest hosts so
/// far, and the top-tier switches are dealt round robin.
pub fn plan(sim: &Simulator, parts: usize) -> Result<Plan, ScenarioError> {
    let topo = &sim.fab.topo;
    let n = topo.node_count();
    let top = (0..n)
        .filter(|&i| !topo.is_host(NodeId(i as u32)))
        .map(|i| tier_rank(topo.tiers[i]))
        .max()
        .unwrap_or(0);
    let is_top = |i: usize| !topo.is_host(NodeId(i as u32)) && tier_rank(topo.tiers[i]) == top;
    // Components of the fabric without its top tier (union-find).
    let mut root: Vec<usize> = (0..n).collect();
    fn find(root: &mut [usize], mut i: usize) -> usize {
        while root[i] != i {
            root[i] = root[root[i]];
            i = root[i];
        }
        i
    }
    for p in &sim.fab.ports {
        let (a, b) = (p.node.idx(), sim.fab.ports[p.peer.idx()].node.idx());
        if is_top(a) || is_top(b) {
            continue;
        }
        let (ra, rb) = (find(&mut root, a), find(&mut root, b));
        if ra != rb {
            root[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut hosts_in: std::collections::BTreeMap<usize, (usize, Vec<usize>)> = Default::default();
    for i in (0..n).filter(|&i| !is_top(i)) {
        let r = find(&mut root, i);
        let e = hosts_in.entry(r).or_default();
        e.0 += topo.is_host(NodeId(i as u32)) as usize;
        e.1.push(i);
    }
    if hosts_in.len() < parts {
        return Err(ScenarioError::field(
            "engine.threads",
            format!(
                "expected at most {} threads: without its top tier of switches this network falls apart into \
                 {} groups (pods or racks), the units partitions are made of",
                hosts_in.len(),
                hosts_in.len()
            ),
        ));
    }
    let mut groups: Vec<(usize, Vec<usize>)> = hosts_in.into_values().collect();
    groups.sort_by(|a, b| b.0.cmp(&a.0).then(a.1[0].cmp(&b.1[0])));
    let mut load = vec![0usize; parts];
    let mut part_of = vec![0u32; n];
    for (hosts, members) in groups {
        let p = (0..parts).min_by_key(|&p| (load[p], p)).expect("parts > 0");
        load[p] += hosts.max(1);
        for m in members {
            part_of[m] = p as u32;
        }
    }
    for (k, i) in (0..n).filter(|&i| is_top(i)).enumerate() {
        part_of[i] = (k % parts) as u32;
    }
    let lookahead = sim
        .fab
        .ports
        .iter()
        .filter(|p| part_of[p.node.idx()] != part_of[sim.fab.ports[p.peer.idx()].node.idx()])
        .map(|p| p.arrival_delay)
        .min()
        .unwrap_or(Delta(u64::MAX / 4));
    if lookahead == Delta::ZERO {
        return Err(ScenarioError::field(
            "engine.threads",
            "expected links between partitions with a delay above zero (the lookahead of the parallel engine)",
        ));
    }
    Ok(Plan { part_of, parts, lookahead })
}

fn tier_rank(t: Tier) -> u8 {
    match t {
        Tier::Host => 0,
        Tier::Tor => 1,
        Tier::Agg | Tier::Spine => 2,
        Tier::Core => 3,
    }
}

/// Refuse what a partitioned run cannot reproduce exactly, naming the field.
pub fn check_scope(scenario: &Scenario, sim: &Simulator) -> Result<(), ScenarioError> {
    let refuse = |field: &str, why: &str| {
        Err(ScenarioError::field(
            field,
            format!("{why}: not available with engine.threads > 1 (use 1 thread)"),
        ))
    };
    if scenario.engine.tie_order != crate::scenario::TieOrderSpec::Shuffled {
        return refuse(
            "engine.tie_order",
            "\"scheduled\" (set by compat = \"ns3\" unless written) orders simultaneous events by when they were \
             scheduled, which a partition cannot know",
        );
    }
    let o = &scenario.output;
    if o.rate_trace.is_some() {
        return refuse("output.rate_trace", "rate samples are taken across partitions");
    }
    if sim.fab.obs.queues.is_some() || sim.fab.obs.throughput.is_some() {
        return refuse("output.queues", "queue and throughput samples are taken across partitions");
    }
    if sim.fab.obs.packet_trace.is_some() {
        return refuse("output.packet_trace", "a packet trace is one timeline of the whole network");
    }
    if sim.deadlock.is_some() {
        return refuse("output.deadlock", "the deadlock detector reads every switch at once");
    }
    if sim.switches.control_log.is_some() {
        return refuse(
            "output.pfc_events",
            "the PFC event log is one timeline of the whole network (set output.pfc_events = false)",
        );
    }
    if !scenario.faults.is_empty() {
        return refuse("faults", "a failing link changes routes at every switch");
    }
    if scenario.switch.ecn.random_stream == crate::scenario::RandomStream::Shared {
        return refuse("switch.ecn.random_stream", "one random stream shared by every switch");
    }
    if *scenario.transport.kind != crate::scenario::TransportKind::Roce {
        return refuse("transport.kind", "TCP's receiver timers read its sender's state");
    }
    for (family, what) in &sim.policies {
        let ok = match *family {
            "flow_control" => what == "none" || what.starts_with("pfc"),
            "load_balancer" => what == "ecmp",
            "deflection" => what == "none",
            _ => false,
        };
        if !ok {
            let field = match *family {
                "flow_control" => "switch.flow_control.kind",
                "load_balancer" => "routing.load_balancer",
                _ => "switch.deflection",
            };
            return refuse(
                field,
                &format!("{what} has not been checked for partitioned runs (PFC, ECMP, no deflection have)"),
            );
        }
    }
    Ok(())
}

/// One partition's replica, prepared: it owns `plan`'s nodes of partition `me`.
fn own(sim: &mut Simulator, plan: &Plan, me: u32) {
    let part_of = &plan.part_of;
    let remote: Vec<bool> = sim
        .fab
        .ports
        .iter()
        .map(|p| part_of[p.node.idx()] == me && part_of[sim.fab.ports[p.peer.idx()].node.idx()] != me)
        .collect();
    for (p, r) in sim.fab.ports.iter_mut().zip(remote) {
        p.remote = r;
    }
    let elsewhere: Vec<bool> = sim.hosts.core.flows.iter().map(|f| part_of[f.src.idx()] != me).collect();
    // The build scheduled the first flow start; only flow starts are pending
    // (`check_scope` refused every sampler), so start over with this partition's.
    while sim.fab.events.pop().is_some() {}
    sim.hosts.core.next_flow_to_schedule = 0;
    sim.hosts.core.starts_elsewhere = elsewhere;
    sim.hosts.core.schedule_next_flow_start(&mut sim.fab);
}

/// Take the packets this partition sent across partitions in the last window out of
/// its store, with what travels beside them.
fn take_outbox(sim: &mut Simulator) -> Vec<Transfer> {
    let outbox = std::mem::take(&mut sim.fab.outbox);
    outbox
        .into_iter()
        .map(|(port, arrive, r)| {
            let pkt = *sim.fab.store.get(r);
            let header = if sim.fab.headers.is_enabled() {
                sim.fab.headers.row(r.index()).to_vec()
            } else {
                Vec::new()
            };
            let int = sim.fab.int_stacks.get(r.index()).copied();
            let frame = (pkt.kind == crate::fabric::packet::PacketKind::Control)
                .then(|| sim.switches.frames.take(r.index()));
            sim.fab.consume(r);
            Transfer { port, arrive, pkt, header, int, frame }
        })
        .collect()
}

/// Put packets handed over from other partitions on their links, in sending order.
fn accept(sim: &mut Simulator, inbound: Vec<Transfer>) {
    for t in inbound {
        let r = sim.fab.store.insert(t.pkt);
        if sim.fab.headers.is_enabled() {
            sim.fab.headers.set_row(r.index(), &t.header);
        }
        if let Some(int) = t.int {
            if sim.fab.int_stacks.len() <= r.index() {
                sim.fab.int_stacks.resize(r.index() + 1, IntStack::default());
            }
            sim.fab.int_stacks[r.index()] = int;
        }
        if let Some(frame) = t.frame {
            sim.switches.frames.put(r.index(), frame);
        }
        let p = &mut sim.fab.ports[t.port.idx()];
        if sim.fab.store.push_in_flight(&mut p.in_flight, r, t.arrive) {
            sim.fab.events.schedule(t.arrive, crate::engine::Event::Deliver { port: t.port, pkt: r });
        }
    }
}

/// A finished parallel run: its partitions' replicas and the plan that cut them.
pub struct ParallelRun {
    pub plan: Plan,
    parts: Vec<Simulator>,
    /// Windows run, and packets handed between partitions.
    pub windows: u64,
    pub transfers: u64,
}

/// Build `threads` replicas of `scenario`, cut the network and run it to its end.
pub fn run(scenario: Scenario, threads: usize) -> Result<ParallelRun, ScenarioError> {
    if threads == 0 {
        return Err(ScenarioError::field("engine.threads", "expected at least 1 thread, got 0"));
    }
    let first = Simulator::new(scenario.clone())?;
    check_scope(&scenario, &first)?;
    let plan = plan(&first, threads)?;
    let mut parts = vec![first];
    for _ in 1..threads {
        parts.push(Simulator::new(scenario.clone())?);
    }
    for (me, sim) in parts.iter_mut().enumerate() {
        own(sim, &plan, me as u32);
    }
    type Inbox = Vec<(usize, Vec<Transfer>)>;
    let mail: Vec<Mutex<Inbox>> = (0..threads).map(|_| Mutex::new(Vec::new())).collect();
    let next: Vec<Mutex<Option<SimTime>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    let barrier = Barrier::new(threads);
    let windows = std::sync::atomic::AtomicU64::new(0);
    let transfers = std::sync::atomic::AtomicU64::new(0);
    let lookahead = plan.lookahead;
    let part_of = &plan.part_of;
    std::thread::scope(|scope| {
        for (me, sim) in parts.iter_mut().enumerate() {
            let (mail, next, barrier, windows, transfers) = (&mail, &next, &barrier, &windows, &transfers);
            scope.spawn(move || {
                let limit = sim.limit;
                loop {
                    // Everyone's earliest pending event: the next window starts there.
                    *next[me].lock().expect("no thread panicked") = sim.fab.events.peek_time();
                    barrier.wait();
                    let start = next.iter().filter_map(|t| *t.lock().expect("no thread panicked")).min();
                    barrier.wait();
                    let Some(start) = start.filter(|&s| s <= limit) else { break };
                    if me == 0 {
                        windows.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    // Events strictly before start + lookahead: nothing sent in this window
                    // can arrive inside it.
                    let end = SimTime((start.0).saturating_add(lookahead.0) - 1);
                    sim.run_until(end);
                    let out = take_outbox(sim);
                    transfers.fetch_add(out.len() as u64, std::sync::atomic::Ordering::Relaxed);
                    let mut by_part: Vec<Vec<Transfer>> = (0..mail.len()).map(|_| Vec::new()).collect();
                    for t in out {
                        let to = part_of[sim.fab.ports[sim.fab.ports[t.port.idx()].peer.idx()].node.idx()];
                        by_part[to as usize].push(t);
                    }
                    // In partition order, so each link's packets stay in sending order (one
                    // sender per link) and every inbox is filled the same way every run.
                    for (to, batch) in by_part.into_iter().enumerate() {
                        if !batch.is_empty() {
                            mail[to].lock().expect("no thread panicked").push((me, batch));
                        }
                    }
                    barrier.wait();
                    let mut inbox = std::mem::take(&mut *mail[me].lock().expect("no thread panicked"));
                    inbox.sort_by_key(|(from, _)| *from);
                    for (_, batch) in inbox {
                        accept(sim, batch);
                    }
                }
                // Nothing is left before the limit: settle the clock as a sequential run does.
                sim.run_until(limit);
            });
        }
    });
    Ok(ParallelRun { plan, parts, windows: windows.into_inner(), transfers: transfers.into_inner() })
}

impl ParallelRun {
    fn owner(&self, node: u32) -> &Simulator {
        &self.parts[self.plan.part_of[node as usize] as usize]
    }

    /// One record per flow, in flow-id order: the sender's side from the source's
    /// partition, reordering counted by the destination's, deflections summed.
    pub fn flow_records(&self) -> Vec<FlowRecord> {
        let each: Vec<Vec<FlowRecord>> = self.parts.iter().map(|s| s.flow_records()).collect();
        let sender: Vec<FlowRecord> = (0..each[0].len())
            .map(|f| {
                let src = self.plan.part_of[each[0][f].src as usize] as usize;
                let dst = self.plan.part_of[each[0][f].dst as usize] as usize;
                let mut r = each[src][f].clone();
                r.reordered_packets = each[dst][f].reordered_packets;
                r.deflections = each.iter().map(|e| e[f].deflections).sum();
                r.hol_blocked = each.iter().any(|e| e[f].hol_blocked);
                r
            })
            .collect();
        sender
    }

    /// One record per port, from its node's partition.
    pub fn port_records(&self) -> Vec<crate::metrics::PortRecord> {
        let each: Vec<Vec<crate::metrics::PortRecord>> =
            self.parts.iter().map(|s| s.port_records()).collect();
        (0..each[0].len())
            .map(|i| each[self.plan.part_of[each[0][i].node as usize] as usize][i].clone())
            .collect()
    }

    /// The run's counters, summed over partitions.
    pub fn counters(&self) -> Counters {
        let mut c = Counters::default();
        for s in &self.parts {
            let p = &s.fab.counters;
            c.events += p.events;
            c.packet_hops += p.packet_hops;
            c.data_packets_sent += p.data_packets_sent;
            c.data_packets_delivered += p.data_packets_delivered;
            c.drops.merge(&p.drops);
            c.ecn_marks += p.ecn_marks;
            c.flows_finished += p.flows_finished;
            c.deflections += p.deflections;
            c.control_drops += p.control_drops;
        }
        c
    }

    /// The last event's time over the partitions.
    pub fn now(&self) -> SimTime {
        self.parts.iter().map(|s| s.now()).max().unwrap_or(SimTime::ZERO)
    }

    /// The partition simulating `node`.
    pub fn partition_of(&self, node: NodeId) -> usize {
        self.plan.part_of[node.idx()] as usize
    }

    /// Flow `f`'s source partition's simulator.
    pub fn source_of(&self, f: FlowId) -> &Simulator {
        self.owner(self.parts[0].hosts.core.flows[f.idx()].src.0)
    }
}
