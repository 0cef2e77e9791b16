//! The conservative parallel engine (issue 24 item 2): the network cut into partitions
//! joined by links, each partition with its own event queue, simulated by a thread of its
//! own or, with more partitions than threads, in turn with the others its thread holds,
//! synchronised by time windows as long as the shortest delay of a link between
//! partitions (the lookahead; Chandy–Misra–Bryant's conservative rule, as Unison and
//! ns-3's distributed simulator use it).
//!
//! Each partition holds a replica of the network, built from the same scenario (every
//! port and node, with data queues and flow-control state only for its own), but fires
//! only the events of the nodes it owns: a packet sent onto a link whose far end
//! another partition owns leaves through the fabric's outbox and is handed over at the
//! end of the window, with what travels beside it (header fields, INT stack, control
//! payload). It cannot arrive within the window it was sent in: a window is no longer
//! than the shortest such link's delay.
//!
//! **Bit-identical to the sequential run.** Events of one picosecond fire in an order
//! that depends on the events alone (`Event::order_key`), never on when they were
//! scheduled, so every partition fires its events in exactly the order the sequential
//! run fires them; random draws come from per-switch streams. The results of the
//! partitions are then joined into the first: each flow's sender side from its source's
//! partition and its receiver side from its destination's, each port's and switch's
//! counters from its node's, run-wide counts summed (`tests/parallel.rs` compares the
//! flow table, ports, switches and summary of 1, 2 and 4 threads with the sequential run).
//! One number is not the sequential one: the peak of packets in flight is the sum of the
//! partitions' peaks, an upper bound.
//!
//! What a partitioned run cannot reproduce is refused, at validation, by
//! `scenario::engine::check_parallel` with the field
//! to change: timelines recorded across the network (packet traces, queue and rate
//! samples, the deadlock detector; the PFC and control-frame logs are merged by the tie
//! key of the event that sent each frame), link faults, one random stream
//! shared by every switch, mechanisms that have not declared themselves safe to cut
//! (`PARTITIONS`; today every transport, flow control, load balancer and deflection policy
//! has). A frame that names a list in its policy's arena hands the list over as it crosses (`frame_leaves` / `frame_arrives`);
//! counters no partition can report alone come from the joined instance
//! (`run_wide_counters`).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::fabric::int::IntStack;
use crate::fabric::packet::Packet;
use crate::ids::{NodeId, PortId};
use crate::scenario::{Scenario, ScenarioError};
use crate::switch::ControlPayload;
use crate::time::{Delta, SimTime};

use super::Simulator;

/// A packet handed from one partition to another at a window's end (72 bytes: what
/// travels beside only some packets is boxed, so the common data packet is copied
/// cheaply through the exchange).
struct Transfer {
    port: PortId,
    arrive: SimTime,
    pkt: Packet,
    side: Option<Box<Side>>,
}

/// What travels beside a packet when its run has it: extension header fields, an INT
/// stack, a control frame's payload.
struct Side {
    header: Vec<u64>,
    int: Option<IntStack>,
    frame: Option<ControlPayload>,
    /// What the frame names in the sending instance's own storage (OFC's flow list).
    items: Vec<u32>,
}

/// Packets handed to one partition at a window's end, by sending partition.
type Inbox = Vec<(usize, Vec<Transfer>)>;

/// Which partition simulates each node, and the lookahead between partitions.
#[derive(Clone, Debug)]
pub struct Plan {
    pub part_of: Vec<u32>,
    pub parts: usize,
    /// The shortest arrival delay of a link between two partitions.
    pub lookahead: Delta,
}

/// Cut the network into `parts` partitions (`topology::partition::cut_by_work`: pods or
/// racks when a fabric falls apart into them without its top tier, heaviest first to the
/// partition with the least work so far, work counted in the packets their hosts' flows
/// send and receive, the top tier dealt round robin; any other network by a balanced
/// min-cut) and find the lookahead.
pub fn plan(sim: &Simulator, parts: usize, field: &str) -> Result<Plan, ScenarioError> {
    // Work per host: the packets of the flows it sends and receives (data one way, ACKs
    // the other), what its pod's or rack's switches will mostly forward.
    let mut host_work = vec![0u64; sim.fab.topo.node_count()];
    let mtu = sim.hosts.core.cfg.mtu.max(1) as u64;
    for f in &sim.hosts.core.flows {
        let packets = f.size.div_ceil(mtu);
        host_work[f.src.idx()] += packets;
        host_work[f.dst.idx()] += packets;
    }
    let part_of = crate::topology::partition::cut_by_work(&sim.fab.topo, parts, field, Some(&host_work))?;
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
        if r {
            p.wire = crate::fabric::port::Wire::Remote;
        }
    }
    let elsewhere: Vec<bool> = sim.hosts.core.flows.iter().map(|f| part_of[f.src.idx()] != me).collect();
    // The build scheduled the first flow start; only flow starts are pending
    // (validation refused every sampler), so start over with this partition's.
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
            let items = frame.as_ref().map_or_else(Vec::new, |f| sim.switches.fc.frame_leaves(f));
            sim.fab.consume(r);
            let side = (!header.is_empty() || int.is_some() || frame.is_some())
                .then(|| Box::new(Side { header, int, frame, items }));
            Transfer { port, arrive, pkt, side }
        })
        .collect()
}

/// Put packets handed over from other partitions on their links, in sending order.
fn accept(sim: &mut Simulator, inbound: Vec<Transfer>) {
    for t in inbound {
        let r = sim.fab.store.insert(t.pkt);
        if sim.fab.headers.is_enabled() {
            sim.fab.headers.reset(r.index());
        }
        if let Some(side) = t.side {
            if !side.header.is_empty() {
                sim.fab.headers.set_row(r.index(), &side.header);
            }
            if let Some(int) = side.int {
                if sim.fab.int_stacks.len() <= r.index() {
                    sim.fab.int_stacks.resize(r.index() + 1, IntStack::default());
                }
                sim.fab.int_stacks[r.index()] = int;
            }
            if let Some(mut frame) = side.frame {
                sim.switches.fc.frame_arrives(&mut frame, side.items);
                sim.switches.frames.put(r.index(), frame);
            }
        }
        sim.fab.store.send_towards(r, sim.fab.ports[t.port.idx()].peer);
        if let Some(wires) = &mut sim.fab.wires {
            if !wires.push(t.port, t.arrive, r) {
                continue;
            }
        }
        sim.fab.events.schedule(t.arrive, crate::engine::Event::Deliver { port: t.port, pkt: r });
    }
}

/// The partitions of a parallel run beyond the first (which the [`Simulator`] holding
/// this group simulates itself), and the run's own counts.
pub(crate) struct Group {
    pub plan: Plan,
    /// Threads simulating the partitions (partition p on thread p mod threads).
    pub threads: usize,
    others: Vec<Simulator>,
    pub windows: u64,
    pub transfers: u64,
    /// Sum over windows of the most events any partition fired in it: the run's
    /// critical path in events (the sum of all events over it bounds the speed-up).
    pub critical_events: u64,
    /// Per partition: wall time spent simulating and exchanging, and waiting at the
    /// window barriers (measured, so not reproducible; they never touch results).
    pub busy: Vec<std::time::Duration>,
    pub waiting: Vec<std::time::Duration>,
    /// Set once the run has reached its end and the partitions' results were joined
    /// into the first: what every counter and table then reads.
    pub joined: Option<Joined>,
}

/// Results of the partitions that live in per-mechanism state, joined at the end.
pub(crate) struct Joined {
    pub policy_counters: Vec<(&'static str, u64)>,
    pub flow_control_counters: Vec<(&'static str, u64)>,
    pub packets_live: u64,
    /// Events each partition fired.
    pub part_events: Vec<u64>,
    /// The partitions' peaks summed: an upper bound of the run's peak (the partitions
    /// need not peak at the same moment).
    pub packets_peak: u64,
}

/// What a parallel run did: partitions, lookahead, windows, packets handed across.
#[derive(Clone, Debug)]
pub struct ParallelStats {
    /// Threads, and partitions (at least as many; partition p runs on thread p mod threads).
    pub threads: usize,
    pub partitions: usize,
    pub lookahead: Delta,
    pub windows: u64,
    pub transfers: u64,
    /// Σ over windows of the most events a partition fired in it: with every event
    /// costing the same, no number of cores runs the partitions faster than
    /// `events / critical_events` times one core (the imbalance bound).
    pub critical_events: u64,
    /// Per partition: wall seconds simulating (and exchanging) and waiting at barriers.
    pub busy_s: Vec<f64>,
    pub waiting_s: Vec<f64>,
    /// Per partition: nodes and hosts simulated, events fired.
    pub nodes: Vec<u64>,
    pub hosts: Vec<u64>,
    pub events: Vec<u64>,
}

/// A run of `scenario` cut into `parts` partitions simulated by `threads` threads: cut the
/// network `whole` (built from `scenario`) describes, then build each partition's replica
/// holding only its partition's data queues and flow-control state, with `whole`'s routing
/// (`build::build`; a k = 32 fat-tree's four replicas 150 → 97 MB), the first of them the
/// run's.
pub(crate) fn attach(
    whole: Simulator,
    scenario: &Scenario,
    parts: usize,
    threads: usize,
) -> Result<Simulator, ScenarioError> {
    let field = if parts > threads { "engine.partitions" } else { "engine.threads" };
    let plan = plan(&whole, parts, field)?;
    let routing = whole.fab.routing.clone();
    drop(whole); // its memory for the replicas
    let replica = |me: u32| {
        let simulated: Vec<bool> = plan.part_of.iter().map(|&p| p == me).collect();
        let replica = super::build::Replica { simulated: &simulated, routing: &routing };
        Simulator::new_replica(scenario.clone(), Some(replica))
    };
    let mut first = replica(0)?;
    let mut others = Vec::with_capacity(parts - 1);
    for me in 1..parts {
        others.push(replica(me as u32)?);
    }
    own(&mut first, &plan, 0);
    first.switches.fc.partitioned();
    for (i, sim) in others.iter_mut().enumerate() {
        own(sim, &plan, i as u32 + 1);
        sim.switches.fc.partitioned();
    }
    first.par = Some(Box::new(Group {
        plan,
        threads,
        others,
        windows: 0,
        transfers: 0,
        critical_events: 0,
        busy: vec![Default::default(); parts],
        waiting: vec![Default::default(); parts],
        joined: None,
    }));
    Ok(first)
}

/// Run every partition up to `until` (capped at the limit), window by window; once
/// nothing is left before the limit, join the partitions' results into `first`.
#[cold]
#[inline(never)]
pub(crate) fn run_until(first: &mut Simulator, until: SimTime) {
    let Some(mut group) = first.par.take() else { return };
    if group.joined.is_none() {
        let stop = until.min(first.limit);
        let lookahead = group.plan.lookahead;
        let part_of = &group.plan.part_of;
        let parts: Vec<&mut Simulator> =
            std::iter::once(&mut *first).chain(group.others.iter_mut()).collect();
        let n = parts.len();
        let threads = group.threads;
        // Partition p runs on thread p mod threads.
        let mut by_thread: Vec<Vec<(usize, &mut Simulator)>> = (0..threads).map(|_| Vec::new()).collect();
        for (p, sim) in parts.into_iter().enumerate() {
            by_thread[p % threads].push((p, sim));
        }
        let mail: Vec<Mutex<Inbox>> = (0..n).map(|_| Mutex::new(Vec::new())).collect();
        let next: [Vec<AtomicU64>; 2] =
            std::array::from_fn(|_| (0..n).map(|_| AtomicU64::new(u64::MAX)).collect());
        let barrier = SpinBarrier::new(threads);
        let windows = AtomicU64::new(0);
        let transfers = AtomicU64::new(0);
        let mut per_part: Vec<(usize, Timeline)> = std::thread::scope(|scope| {
            let handles: Vec<_> = by_thread
                .into_iter()
                .map(|mine| {
                    let (mail, next, barrier, windows, transfers) =
                        (&mail, &next, &barrier, &windows, &transfers);
                    scope.spawn(move || {
                        let _poison = PoisonOnPanic(barrier);
                        window_loop(mine, stop, lookahead, part_of, mail, next, barrier, windows, transfers)
                    })
                })
                .collect();
            let ends: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
            rethrow_first_panic(ends).into_iter().flatten().collect()
        });
        per_part.sort_by_key(|(p, _)| *p);
        let per_part: Vec<Timeline> = per_part.into_iter().map(|(_, t)| t).collect();
        let n_windows = per_part[0].events.len();
        group.critical_events += (0..n_windows)
            .map(|w| per_part.iter().map(|t| t.events[w] as u64).max().unwrap_or(0))
            .sum::<u64>();
        for (p, t) in per_part.iter().enumerate() {
            group.busy[p] += t.busy;
            group.waiting[p] += t.waiting;
        }
        group.windows += windows.into_inner();
        group.transfers += transfers.into_inner();
        let ended = std::iter::once(&*first)
            .chain(group.others.iter())
            .all(|s| s.fab.events.peek_time().is_none_or(|t| t > first.limit));
        if ended {
            group.joined = Some(join(first, &group));
        }
    }
    first.par = Some(group);
}

/// What one partition's thread did, window by window.
struct Timeline {
    /// Events fired in each window.
    events: Vec<u32>,
    busy: std::time::Duration,
    waiting: std::time::Duration,
}

/// A barrier that spins (the partitions wait for each other every window, thousands of
/// times a second: a sleeping barrier's wake-up, tens of microseconds on a virtual
/// machine, would cost more than a small window's work), yielding the processor after a
/// while so that more partitions than cores still progress. A partition that panics
/// poisons it, so the others stop waiting and the run fails instead of hanging.
struct SpinBarrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
}

/// What a partition waiting at a poisoned barrier panics with.
const ANOTHER_PANICKED: &str = "another partition of the parallel run panicked";

/// Poisons the barrier if its partition's thread unwinds.
struct PoisonOnPanic<'a>(&'a SpinBarrier);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Release);
        }
    }
}

/// The partitions' results, or the panic of the partition that failed first (not the
/// others' [`ANOTHER_PANICKED`]) raised again on the calling thread.
fn rethrow_first_panic<T>(ends: Vec<std::thread::Result<T>>) -> Vec<T> {
    let (mut results, mut panics) = (Vec::new(), Vec::new());
    for end in ends {
        match end {
            Ok(r) => results.push(r),
            Err(p) => panics.push(p),
        }
    }
    if panics.is_empty() {
        return results;
    }
    panics.sort_by_key(|p| p.downcast_ref::<&str>() == Some(&ANOTHER_PANICKED));
    std::panic::resume_unwind(panics.swap_remove(0))
}

impl SpinBarrier {
    fn new(n: usize) -> SpinBarrier {
        SpinBarrier {
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if self.poisoned.load(Ordering::Acquire) {
                std::panic::panic_any(ANOTHER_PANICKED);
            }
            if spins < 2_000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// One thread, simulating its partitions (`mine`: each with its number) one after the
/// other in every window, until nothing is left before `stop`. Two barriers a window:
/// after everyone posted the time of its next event (so all start the window at the same
/// time, the earliest), and after everyone posted what it sent across (so all take their
/// inbox). The next-event times alternate between two slots, so a fast partition posting
/// the next window's never overwrites what a slow one still reads.
#[allow(clippy::too_many_arguments)]
fn window_loop(
    mut mine: Vec<(usize, &mut Simulator)>,
    stop: SimTime,
    lookahead: Delta,
    part_of: &[u32],
    mail: &[Mutex<Inbox>],
    next: &[Vec<AtomicU64>; 2],
    barrier: &SpinBarrier,
    windows: &AtomicU64,
    transfers: &AtomicU64,
) -> Vec<(usize, Timeline)> {
    let mut lines: Vec<(usize, Timeline)> = mine
        .iter()
        .map(|(me, _)| {
            (*me, Timeline { events: Vec::new(), busy: Default::default(), waiting: Default::default() })
        })
        .collect();
    // Each partition's busy time is its own share of the thread's; the thread's waiting at
    // the barriers is every one of its partitions'.
    let lap = |line: &mut Timeline, clock: &mut std::time::Instant| {
        let t = std::time::Instant::now();
        line.busy += t - *clock;
        *clock = t;
    };
    let wait = |lines: &mut [(usize, Timeline)]| {
        let t = std::time::Instant::now();
        barrier.wait();
        let waited = t.elapsed();
        for (_, line) in lines.iter_mut() {
            line.waiting += waited;
        }
    };
    let post = |slot: &[AtomicU64], mine: &[(usize, &mut Simulator)]| {
        for (me, sim) in mine {
            slot[*me].store(sim.fab.events.peek_time().map_or(u64::MAX, |t| t.0), Ordering::Release)
        }
    };
    let mut parity = 0;
    post(&next[parity], &mine);
    wait(&mut lines);
    loop {
        // Everyone's earliest pending event: the window starts there.
        let start = next[parity].iter().map(|t| t.load(Ordering::Acquire)).min().unwrap_or(u64::MAX);
        if start > stop.0 {
            break;
        }
        // Events strictly before start + lookahead: nothing sent in this window can
        // arrive inside it.
        let end = SimTime(start.saturating_add(lookahead.0) - 1).min(stop);
        let mut clock = std::time::Instant::now();
        for (k, (me, sim)) in mine.iter_mut().enumerate() {
            let me = *me;
            if me == 0 {
                windows.fetch_add(1, Ordering::Relaxed);
            }
            let events_before = sim.fab.counters.events;
            sim.run_until(end);
            lines[k].1.events.push((sim.fab.counters.events - events_before) as u32);
            let out = take_outbox(sim);
            transfers.fetch_add(out.len() as u64, Ordering::Relaxed);
            let mut by_part: Vec<Vec<Transfer>> = (0..mail.len()).map(|_| Vec::new()).collect();
            for t in out {
                let to = part_of[sim.fab.ports[sim.fab.ports[t.port.idx()].peer.idx()].node.idx()];
                by_part[to as usize].push(t);
            }
            for (to, batch) in by_part.into_iter().enumerate() {
                if !batch.is_empty() {
                    mail[to].lock().expect("no partition panicked").push((me, batch));
                }
            }
            lap(&mut lines[k].1, &mut clock);
        }
        wait(&mut lines);
        let mut clock = std::time::Instant::now();
        for (k, (me, sim)) in mine.iter_mut().enumerate() {
            // By sender, so each link's packets stay in sending order (one sender per link).
            let mut inbox = std::mem::take(&mut *mail[*me].lock().expect("no partition panicked"));
            inbox.sort_by_key(|(from, _)| *from);
            for (_, batch) in inbox {
                accept(sim, batch);
            }
            lap(&mut lines[k].1, &mut clock);
        }
        parity ^= 1;
        post(&next[parity], &mine);
        wait(&mut lines);
    }
    // Nothing is left before `stop`: settle the clock as a sequential run does.
    for (_, sim) in mine.iter_mut() {
        sim.run_until(stop);
    }
    lines
}

/// Join the partitions' results into the first: each flow's sender side from its
/// source's partition and its receiver side from its destination's, each port's and
/// switch's counters from its node's, run-wide counts summed.
fn join(first: &mut Simulator, group: &Group) -> Joined {
    let part_of = &group.plan.part_of;
    let of = |node: NodeId| part_of[node.idx()] as usize;
    let others = &group.others;
    let replica = |p: usize| -> &Simulator { &others[p - 1] };
    let mut joined = Joined {
        policy_counters: sum_named(
            std::iter::once(first.policy_counters()).chain(others.iter().map(|s| s.policy_counters())),
        ),
        flow_control_counters: sum_named(
            std::iter::once(first.switches.fc.counters())
                .chain(others.iter().map(|s| s.switches.fc.counters())),
        ),
        packets_live: first.fab.store.live(),
        packets_peak: first.fab.store.peak(),
        part_events: std::iter::once(&*first).chain(others.iter()).map(|s| s.fab.counters.events).collect(),
    };
    for o in others {
        first.switches.lb.join_partition(&o.switches.lb);
        first.switches.fc.join_partition(&o.switches.fc);
        first.fab.counters.merge(&o.fab.counters);
        for (a, b) in first.fab.flow_deflections.iter_mut().zip(&o.fab.flow_deflections) {
            *a += b;
        }
        first.fab.obs.hol.merge(&o.fab.obs.hol);
        // Extra hops of deflected packets, counted where each arrived.
        if let (Some(a), Some(b)) = (first.hosts.core.extra_hops.as_mut(), o.hosts.core.extra_hops.as_ref()) {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            for (a, b) in a.iter_mut().zip(b) {
                *a += b;
            }
        }
        first.fab.obs.queue_delay.merge(&o.fab.obs.queue_delay);
        let (fc, oc) = (&mut first.switches.frame_counts, &o.switches.frame_counts);
        for (a, b) in fc.sent.iter_mut().zip(&oc.sent).chain(fc.received.iter_mut().zip(&oc.received)) {
            *a += b;
        }
        joined.packets_live += o.fab.store.live();
        joined.packets_peak += o.fab.store.peak();
        first.fab.now = first.fab.now.max(o.fab.now);
    }
    // What only the joined instance knows replaces the partitions' sums.
    for (name, v) in first.switches.fc.run_wide_counters() {
        for list in [&mut joined.policy_counters, &mut joined.flow_control_counters] {
            if let Some(e) = list.iter_mut().find(|(n, _)| *n == name) {
                e.1 = v;
            }
        }
    }
    // The frame logs, each in its partition's firing order, merged by (time, tie key of
    // the event that sent the frame): the sequential run's order (a stable sort keeps the
    // frames one event sent in the order it sent them).
    if first.switches.control_log.is_some() {
        let mut log: Vec<_> = std::iter::once(&*first)
            .chain(others.iter())
            .flat_map(|s| s.switches.control_log.as_deref().unwrap_or(&[]).iter().cloned())
            .collect();
        log.sort_by_key(|e| (e.time, e.order));
        first.switches.control_log = Some(log);
    }
    for f in 0..first.hosts.core.flows.len() {
        let (src, dst) = (of(first.hosts.core.flows[f].src), of(first.hosts.core.flows[f].dst));
        let receiver = if dst == 0 {
            first.hosts.core.flows[f].clone()
        } else {
            replica(dst).hosts.core.flows[f].clone()
        };
        let flow = &mut first.hosts.core.flows[f];
        if src != 0 {
            *flow = replica(src).hosts.core.flows[f].clone();
        }
        flow.rcv_nxt = receiver.rcv_nxt;
        flow.reorder = receiver.reorder;
        flow.ce_pending = receiver.ce_pending;
    }
    for i in 0..first.fab.ports.len() {
        let p = of(first.fab.ports[i].node);
        if p != 0 {
            let from = &replica(p).fab.ports[i];
            first.fab.ports[i].stats = from.stats;
            first.fab.ports[i].peak = from.peak;
            first.fab.ports[i].queues.copy_pause_account(&from.queues);
        }
    }
    for sw in 0..first.switches.nodes.len() {
        let p = of(first.switches.nodes[sw].node);
        if p != 0 {
            let from = &replica(p).switches.nodes[sw];
            first.switches.nodes[sw].mmu = from.mmu.clone();
            first.switches.nodes[sw].drops = from.drops;
        }
    }
    joined
}

/// Counters by name over the partitions, in the first's order: summed, but a counter
/// named as a maximum (`..._max_...`, `max_...`, `..._peak_...`) takes the largest.
fn sum_named(each: impl Iterator<Item = Vec<(&'static str, u64)>>) -> Vec<(&'static str, u64)> {
    let mut out: Vec<(&'static str, u64)> = Vec::new();
    for list in each {
        for (name, v) in list {
            let is_max = name.starts_with("max_") || name.contains("_max_") || name.contains("_peak_");
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some(e) if is_max => e.1 = e.1.max(v),
                Some(e) => e.1 += v,
                None => out.push((name, v)),
            }
        }
    }
    out
}

impl Simulator {
    /// The other partitions' replicas of a parallel run (none for a one-thread run).
    pub(crate) fn parallel_replicas(&self) -> &[Simulator] {
        self.par.as_ref().map_or(&[], |g| &g.others)
    }

    /// What the parallel engine did (`None` for a one-thread run).
    pub fn parallel_stats(&self) -> Option<ParallelStats> {
        let g = self.par.as_ref()?;
        let parts: Vec<&Simulator> = std::iter::once(self).chain(g.others.iter()).collect();
        let count = |f: &dyn Fn(usize) -> bool| -> Vec<u64> {
            (0..parts.len())
                .map(|p| {
                    (0..g.plan.part_of.len()).filter(|&n| g.plan.part_of[n] as usize == p && f(n)).count()
                        as u64
                })
                .collect()
        };
        Some(ParallelStats {
            threads: g.threads,
            partitions: parts.len(),
            lookahead: g.plan.lookahead,
            windows: g.windows,
            transfers: g.transfers,
            critical_events: g.critical_events,
            busy_s: g.busy.iter().map(|d| d.as_secs_f64()).collect(),
            waiting_s: g.waiting.iter().map(|d| d.as_secs_f64()).collect(),
            nodes: count(&|_| true),
            hosts: count(&|n| self.fab.topo.is_host(NodeId(n as u32))),
            events: match &g.joined {
                Some(j) => j.part_events.clone(),
                None => parts.iter().map(|s| s.fab.counters.events).collect(),
            },
        })
    }

    /// The workload's progress over every partition (flows counted at their sources).
    pub(crate) fn parallel_work_done(&self) -> Option<super::WorkDone> {
        let g = self.par.as_ref()?;
        if g.joined.is_some() {
            return None;
        }
        let part_of = &g.plan.part_of;
        let parts: Vec<&Simulator> = std::iter::once(self).chain(g.others.iter()).collect();
        let flows = &self.hosts.core.flows;
        Some(super::WorkDone {
            flows_total: flows.len() as u64,
            flows_finished: parts.iter().map(|s| s.fab.counters.flows_finished).sum(),
            bytes_total: flows.iter().map(|f| f.size).sum(),
            bytes_acked: (0..flows.len())
                .map(|i| {
                    let f = &parts[part_of[flows[i].src.idx()] as usize].hosts.core.flows[i];
                    f.snd_una.min(f.size)
                })
                .sum(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A partition that panics between barriers makes the others fail at their next wait
    /// (not spin forever), and the caller sees the failing partition's own message.
    #[test]
    fn a_panicking_partition_fails_the_run_instead_of_hanging_it() {
        let barrier = SpinBarrier::new(3);
        let ends: Vec<std::thread::Result<u32>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..3u32)
                .map(|me| {
                    let barrier = &barrier;
                    scope.spawn(move || {
                        let _poison = PoisonOnPanic(barrier);
                        for window in 0..100u32 {
                            if me == 1 && window == 7 {
                                panic!("partition {me} failed in window {window}");
                            }
                            barrier.wait();
                        }
                        me
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join()).collect()
        });
        assert!(ends.iter().all(|e| e.is_err()), "every partition stopped");
        let ends = std::panic::AssertUnwindSafe(ends);
        let caught =
            std::panic::catch_unwind(move || rethrow_first_panic({ ends }.0)).expect_err("re-raised");
        let msg = caught.downcast_ref::<String>().map(String::as_str);
        assert_eq!(msg, Some("partition 1 failed in window 7"));
    }

    /// Each replica holds data queues for its own switches' ports alone, and every
    /// replica routes by the same table (taken from the whole build, not recomputed).
    #[test]
    fn replicas_hold_their_own_queues_and_share_the_routing() {
        let text = "seed = 3\nduration = \"50us\"\n[topology]\nkind = \"fat_tree\"\nk = 4\n\
                    [workload]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = 0.3\nstop = \"50us\"\n\
                    [engine]\nthreads = 1\npartitions = 4\n";
        let sim = Simulator::new(crate::scenario::Scenario::from_toml_str(text).unwrap()).unwrap();
        let plan = &sim.par.as_ref().expect("partitioned").plan;
        let whole = crate::topology::routing::Routing::new(&sim.fab.topo, Default::default(), 3);
        for (me, replica) in std::iter::once(&sim).chain(sim.parallel_replicas()).enumerate() {
            let mut own_queues = 0;
            for p in &replica.fab.ports {
                let mine = plan.part_of[p.node.idx()] == me as u32;
                if replica.fab.topo.is_host(p.node) {
                    continue;
                }
                assert_eq!(mine, !p.queues.is_empty(), "replica {me}: a port of node {:?}", p.node);
                own_queues += mine as usize;
            }
            assert!(own_queues > 0, "replica {me} simulates switches");
            assert_eq!(format!("{:?}", replica.fab.routing), format!("{whole:?}"), "replica {me}'s routing");
        }
    }

    #[test]
    fn results_pass_through_when_no_partition_panicked() {
        assert_eq!(rethrow_first_panic(vec![Ok(1), Ok(2)]), vec![1, 2]);
    }
}
