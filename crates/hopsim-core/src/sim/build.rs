//! Network construction from a validated scenario (`scenario::ValidScenario`): ports,
//! switches, hosts, flows and observers. Cannot fail: every check happened in validation.

use crate::engine::Event;
use crate::fabric::frames::FrameCounters;
use crate::fabric::headers::{HeaderLayout, Headers};
use crate::fabric::port::Port;
use crate::host::cc::CcBuild;
use crate::host::{Cc, Flow, Host, Rank, Transport};
use crate::ids::{FlowId, NodeId, PortId};
use crate::metrics::Counters;
use crate::observe::{HopTier, Observers, PacketTrace, QueueSampler, Throughput};
use crate::scenario::{
    BdpScope, CcKind, LoadBalancerSpec, OutputSpec, Policies, SourcePorts, ValidScenario, WindowSpec,
};
use crate::switch::admission::AdmBuild;
use crate::switch::flow_control::{frame_kinds, FcBuild};
use crate::switch::load_balance::LbBuild;
use crate::switch::{Admission, EcnStreams, RedProfile, SharedBuffer, Switch};
use crate::time::{Delta, Rate, SimTime};
use crate::topology::{FiveTuple, NodeKind, Routing, Topology};
use std::collections::HashMap;

use super::Simulator;

/// The HPCC simulator's ideal FCT (`standalone_fct` in `third.cc`): base RTT (twice the
/// path's propagation delay plus one MTU payload serialized at every hop) plus every byte
/// of the flow, headers included, at the path's bottleneck rate. Also returns the base
/// RTT and bottleneck rate.
pub fn ideal_fct(topo: &Topology, path: &[PortId], size: u64, mtu: u32, header: u32) -> (Delta, Delta, Rate) {
    let mut delay = Delta::ZERO;
    let mut tx = Delta::ZERO;
    let mut bottleneck = Rate(u64::MAX);
    for p in path {
        let spec = &topo.ports[p.idx()];
        delay += spec.delay;
        tx += spec.rate.tx_time(mtu as u64);
        bottleneck = bottleneck.min(spec.rate);
    }
    let base_rtt = Delta(2 * delay.0) + tx;
    let packets = size.div_ceil(mtu as u64);
    let total = size + packets * header as u64;
    (base_rtt + bottleneck.tx_time(total), base_rtt, bottleneck)
}

/// How far ahead packet events are scheduled: the longest link delay plus the slowest
/// serialization of a full packet (sizes the calendar ring, which rounds it up to a power
/// of two buckets; a ring no larger than needed reuses its buckets sooner, while they are
/// still in cache).
fn sim_horizon(topo: &Topology, packet_bytes: u32) -> Delta {
    let worst = topo.ports.iter().map(|p| p.delay + p.rate.tx_time(packet_bytes as u64)).max();
    Delta(worst.unwrap_or(Delta::ZERO).0)
}

/// What a replica of a partitioned run (`sim::parallel`) is built with beside its
/// scenario.
pub struct Replica<'a> {
    /// The nodes it simulates (by node index): the others' ports get no data queues and
    /// their switches no flow-control state (they are never touched there), so a
    /// replica's memory follows its partition for the largest per-port state.
    pub simulated: &'a [bool],
    /// The run's routing, computed once for every replica (at k = 48 the table took most
    /// of a build: 0.6 s).
    pub routing: &'a Routing,
}

/// Assemble the simulator from a validated scenario, or one replica of a partitioned run.
pub fn build(v: ValidScenario, replica: Option<Replica>) -> Simulator {
    let ValidScenario { scenario, topo, flows: specs, switch_cfg, transport, policies } = v;
    let simulated = replica.as_ref().map(|r| r.simulated);
    let routing = match &replica {
        Some(r) => r.routing.clone(),
        None => Routing::new(&topo, scenario.routing.hash, scenario.seed),
    };
    let q = switch_cfg.queues;
    // Flow control may take its queues at run time (per-flow) or have its own number (BFC).
    let switch_queues = policies.flow_control.data_queues(q);
    let latency = scenario.switch.latency.0;
    let ecn = &scenario.switch.ecn;
    // Distinct RED profiles, which switch ports name by index (one per rate at most).
    let mut red_profiles = vec![RedProfile::NEVER];

    let mut ports: Vec<Port> = topo
        .ports
        .iter()
        .map(|spec| {
            let peer_node = topo.ports[spec.peer.idx()].node;
            let to_switch = !topo.is_host(peer_node);
            let arrival = spec.delay + if to_switch { latency } else { Delta::ZERO };
            let is_switch = !topo.is_host(spec.node);
            let mut port = Port::new(
                spec.node,
                spec.peer,
                spec.rate,
                arrival,
                if is_switch && simulated.is_none_or(|o| o[spec.node.idx()]) { switch_queues } else { 0 },
                q,
                scenario.links.serialization,
            );
            if is_switch && ecn.enabled {
                let scale = if ecn.scale_with_rate {
                    spec.rate.0 as f64 / ecn.reference_rate.0 .0 as f64
                } else {
                    1.0
                };
                let red = RedProfile {
                    kmin: (ecn.kmin.0 as f64 * scale) as u64,
                    kmax: (ecn.kmax.0 as f64 * scale) as u64,
                    pmax: ecn.pmax,
                };
                let at = red_profiles.iter().position(|r| *r == red).unwrap_or_else(|| {
                    red_profiles.push(red);
                    red_profiles.len() - 1
                });
                port.red =
                    u16::try_from(at).expect("validated: fewer than 65,535 distinct switch port rates");
            }
            // Vertigo serves every switch queue shortest-remaining first.
            if is_switch && policies.deflection.rank_ordered() {
                for q in 0..port.queues.len() {
                    port.queues.set_order(q, crate::fabric::queues::QueueOrder::Rank);
                }
            }
            port
        })
        .collect();

    let nic_rate =
        topo.hosts.iter().map(|h| topo.ports[topo.host_port(*h).idx()].rate).min().expect("hosts exist");
    let mut node_slot = vec![0u32; topo.node_count()];
    let mut switches = Vec::new();
    let mut hosts = Vec::new();
    for (n, slot) in node_slot.iter_mut().enumerate() {
        let node = NodeId(n as u32);
        match topo.kinds[n] {
            NodeKind::Host => {
                *slot = hosts.len() as u32;
                hosts.push(Host::new(node, topo.host_port(node)));
            }
            NodeKind::Switch => {
                *slot = switches.len() as u32;
                switches.push(Switch {
                    node,
                    first_port: topo.node_ports[n],
                    mmu: SharedBuffer::default(),
                    drops: Default::default(),
                });
            }
        }
    }

    let mut tags: Vec<String> = Vec::new();
    let t = &scenario.transport;
    // ns-3's GLOBAL_T: every flow's window and congestion control use the largest base RTT
    // and BDP of any host pair.
    let global = (t.bdp == BdpScope::Max).then(|| max_rtt_and_bdp(&topo, &routing, t.mtu, t.header_bytes));
    let mut pair_ports: HashMap<(u32, u32), u16> = HashMap::new();
    let flows: Vec<Flow> = specs
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let tag = match tags.iter().position(|x| *x == s.tag) {
                Some(k) => k,
                None => {
                    tags.push(s.tag.clone());
                    tags.len() - 1
                }
            } as u16;
            let sport = match t.source_ports {
                SourcePorts::PerFlow => 10_000 + (i % 50_000) as u16,
                SourcePorts::PerPair | SourcePorts::PerSource => {
                    let key = if t.source_ports == SourcePorts::PerPair {
                        (s.src, s.dst)
                    } else {
                        (s.src, u32::MAX)
                    };
                    let next = pair_ports.entry(key).or_insert(10_000);
                    let port = *next;
                    *next = next.wrapping_add(1);
                    port
                }
            };
            let tuple = FiveTuple { src: NodeId(s.src), dst: NodeId(s.dst), sport, dport: s.dport };
            let path = routing.path_of(&topo, tuple);
            let (ideal, path_rtt, bottleneck) = ideal_fct(&topo, &path, s.size, t.mtu, t.header_bytes);
            let (base_rtt, bdp) = global.unwrap_or_else(|| (path_rtt, bdp_of(bottleneck, path_rtt)));
            let cc = t.groups.iter().find(|g| g.hosts.contains(&s.src)).map_or(transport.cc, |g| g.cc);
            let window = match (t.window, cc) {
                // HPCC runs with its rate-tied window unless told otherwise.
                (WindowSpec::Auto, CcKind::Hpcc) => bdp,
                (WindowSpec::Auto | WindowSpec::None, _) => 0,
                (WindowSpec::Bytes(b), _) => b,
                (WindowSpec::Bdp, _) => bdp,
            };
            let line_rate = topo.ports[path[0].idx()].rate.0;
            // TCP: the window is the congestion window, from the initial window.
            let mss = t.mtu as u64;
            let window = match &transport.tcp {
                Some(tcp) => tcp.initial_window * mss,
                None => window,
            };
            Flow {
                id: FlowId(i as u32),
                src: NodeId(s.src),
                dst: NodeId(s.dst),
                size: s.size,
                start: s.start,
                priority: s.priority.unwrap_or(t.priority),
                sport,
                dport: s.dport,
                tag,
                query: s.query,
                incast: s.incast,
                ideal_fct: ideal,
                path_hops: path.len() as u32,
                line_rate,
                window,
                window_follows_rate: t.window_follows_rate && cc != CcKind::Hpcc && window != 0,
                rwnd: transport.tcp.as_ref().and_then(|tcp| tcp.receive_window).unwrap_or(u64::MAX),
                base_rtt,
                bdp,
                snd_nxt: 0,
                snd_una: 0,
                high_water: 0,
                rate: line_rate,
                next_avail: SimTime::ZERO,
                last_progress: s.start,
                rto_pending: false,
                in_active: false,
                timer_gen: [0; 3],
                cc: Cc::build(cc, *t.kind, &CcBuild { line_rate, window, mss }),
                ssthresh: u64::MAX / 2,
                finish: None,
                retransmitted_bytes: 0,
                timeouts: 0,
                cnps_received: 0,
                rcv_nxt: 0,
                reorder: Default::default(),
                ce_pending: false,
            }
        })
        .collect();

    // Packets schedule their arrival one serialization plus one link delay ahead.
    let horizon = sim_horizon(&topo, transport.mtu + transport.header_bytes);
    let obs = observers(&scenario.output, &topo, flows.len());
    let flow_int = if switch_cfg.int_enabled { vec![Default::default(); flows.len()] } else { Vec::new() };
    let switch_nodes: Vec<NodeId> = switches.iter().map(|s| s.node).collect();
    let mut layout = HeaderLayout::default();
    let fc = policies.flow_control.build(&mut FcBuild {
        topo: &topo,
        switches: &switch_nodes,
        seed: scenario.seed,
        flows: flows.len(),
        classes: q,
        nic_rate,
        mtu_bytes: transport.mtu + transport.header_bytes,
        adaptive_routing: !matches!(policies.load_balancer, LoadBalancerSpec::Ecmp(_)),
        pfc: &scenario.switch.pfc,
        output: &scenario.output,
        headers: &mut layout,
        simulated,
    });
    // Senders write ranks (read by rank-aware switches), and Bolt its header bits.
    let rank_field =
        (transport.rank != Rank::None || policies.deflection.reads_rank()).then(|| layout.field("rank", 64));

    let signals = crate::switch::signals::Signal::build_all(&mut crate::switch::signals::SignalBuild {
        scenario: &scenario,
        transport: &transport,
        switch: &switch_cfg,
        ports: topo.ports.len(),
        headers: &mut layout,
    });
    let arrival_signals = signals.iter().any(|s| s.on_arrival_wanted());
    let departure_signals = signals.iter().any(|s| s.on_departure_wanted());
    let bolt_flags = layout.get("bolt.flags");
    let lb = policies.load_balancer.build(&mut LbBuild {
        topo: &topo,
        switches: &switch_nodes,
        seed: scenario.seed,
        headers: &mut layout,
    });
    let admission = admission(&policies, &topo, &switch_nodes, scenario.seed);
    let ecn_rngs = EcnStreams::new(scenario.seed, &switch_nodes, policies.ecn_shared_stream);
    let timers = crate::fabric::timers::PolicyTimers::new(ports.len());
    let wires = (scenario.engine.tie_order == crate::scenario::TieOrderSpec::Scheduled).then(|| {
        for p in &mut ports {
            p.wire = crate::fabric::port::Wire::Listed;
        }
        crate::fabric::wires::Wires::new(ports.len())
    });
    let fab = crate::fabric::Fabric {
        now: SimTime::ZERO,
        events: crate::engine::EventQueue::with_horizon(horizon).with_tie_order(
            match scenario.engine.tie_order {
                crate::scenario::TieOrderSpec::Shuffled => crate::engine::TieOrder::Shuffled(
                    crate::engine::stream_seed(scenario.seed, "event-order"),
                ),
                crate::scenario::TieOrderSpec::Scheduled => crate::engine::TieOrder::Scheduled,
            },
        ),
        store: crate::fabric::store::PacketStore::new(),
        topo,
        routing,
        ports,
        node_slot,
        counters: Counters::default(),
        headers: Headers::new(&layout),
        int_stacks: Vec::new(),
        timers,
        obs,
        flow_deflections: vec![0; flows.len()],
        flows_total: flows.len() as u64,
        outbox: Vec::new(),
        wires,
        red_profiles,
    };
    let ttl = transport.ttl;
    let rank_ordered = policies.deflection.rank_ordered();
    let switches = crate::switch::Switches {
        nodes: switches,
        cfg: switch_cfg,
        lb,
        fc,
        admission,
        ecn_rngs,
        signals,
        arrival_signals,
        departure_signals,
        ttl,
        frames: Default::default(),
        frame_counts: FrameCounters::new(frame_kinds().len()),
        control_log: (scenario.output.pfc_events || scenario.output.control_frames).then(Vec::new),
        log_all_frames: scenario.output.control_frames,
        rank_read: rank_field.filter(|_| policies.deflection.reads_rank()),
        rank_order: rank_field.filter(|_| rank_ordered),
    };
    let int_enabled = switches.cfg.int_enabled;
    let transport_state = Transport::build(*t.kind, &transport, flows.len());
    let core = crate::host::HostCore {
        nodes: hosts,
        flows,
        tags,
        cfg: transport,
        int_enabled,
        flow_int,
        extra_hops: (!policies.deflection.is_none()).then(Vec::new),
        next_flow_to_schedule: 0,
        starts_elsewhere: Vec::new(),
        rank_field,
        bolt_flags,
    };
    let hosts = crate::host::Hosts { core, transport: transport_state };
    let mut sim = Simulator {
        fab,
        switches,
        hosts,
        faults: policies.faults.clone(),
        trace_flows: scenario
            .output
            .rate_trace
            .as_ref()
            .map_or(Vec::new(), |t| t.flows.iter().map(|f| FlowId(*f)).collect()),
        trace_interval: scenario.output.rate_trace.as_ref().map_or(Delta::ZERO, |t| t.interval.0),
        rate_trace: Vec::new(),
        limit: scenario.duration.map_or(SimTime::NEVER, |d| SimTime(d.0 .0)),
        seed: scenario.seed,
        policies: vec![
            ("flow_control", policies.flow_control.describe(policies.pfc.as_ref())),
            ("load_balancer", policies.load_balancer.describe()),
            ("deflection", policies.deflection.describe()),
        ],
        notes: Vec::new(),
        par: None,
        deadlock: scenario
            .output
            .deadlock
            .as_ref()
            .map(|d| Box::new(super::deadlock::DeadlockDetector::new(d))),
    };
    sim.hosts.core.schedule_next_flow_start(&mut sim.fab);
    if !sim.trace_flows.is_empty() {
        sim.fab.events.schedule(SimTime::ZERO, crate::engine::Event::TraceSample);
    }
    if sim.fab.obs.queues.is_some() {
        sim.fab.events.schedule(SimTime::ZERO, crate::engine::Event::QueueSample);
    }
    if let Some(d) = &scenario.output.deadlock {
        sim.fab.events.schedule(SimTime(d.interval.0 .0), Event::DeadlockCheck);
    }
    sim.switches.fc.on_start(&mut sim.fab);
    advise_huge_pages(&sim);
    for (i, f) in policies.faults.iter().enumerate() {
        sim.fab.events.schedule(f.down, Event::LinkFault { fault: i as u32, up: false });
        if let Some(up) = f.up {
            sim.fab.events.schedule(up, Event::LinkFault { fault: i as u32, up: true });
        }
    }
    sim
}

/// In a network whose ports and flows alone fill two huge pages, ask for huge pages under
/// them and under the heap (`fabric::huge_pages`): at k = 32 most of a hop's scattered
/// reads then stay within the TLB's reach. Smaller runs are left exactly as they were.
fn advise_huge_pages(sim: &Simulator) {
    use crate::fabric::huge_pages::{advise_heap, advise_vec, HUGE_PAGE};
    let bytes = sim.fab.ports.capacity() * std::mem::size_of::<Port>()
        + sim.hosts.core.flows.capacity() * std::mem::size_of::<Flow>();
    if bytes >= 2 * HUGE_PAGE {
        advise_vec(&sim.fab.ports);
        advise_vec(&sim.hosts.core.flows);
        advise_heap();
    }
}

/// Bytes in flight over `rtt` at `rate`.
fn bdp_of(rate: Rate, rtt: Delta) -> u64 {
    (rate.0 as u128 * rtt.0 as u128 / 8 / crate::time::PS_PER_S as u128) as u64
}

/// The largest base RTT and BDP of any pair of hosts (over ECMP's paths; in a fabric whose
/// equal-cost paths have equal delays, as ns-3's `maxRtt` and `maxBdp`).
fn max_rtt_and_bdp(topo: &Topology, routing: &Routing, mtu: u32, header: u32) -> (Delta, u64) {
    let mut worst = (Delta::ZERO, 0);
    for &a in &topo.hosts {
        for &b in &topo.hosts {
            if a == b {
                continue;
            }
            let tuple = FiveTuple { src: a, dst: b, sport: 10_000, dport: crate::workload::DEFAULT_DPORT };
            let (_, rtt, bottleneck) = ideal_fct(topo, &routing.path_of(topo, tuple), 0, mtu, header);
            worst.0 = worst.0.max(rtt);
            worst.1 = worst.1.max(bdp_of(bottleneck, rtt));
        }
    }
    worst
}

fn admission(p: &Policies, topo: &Topology, switches: &[NodeId], seed: u64) -> Admission {
    let deflection = p.deflection.build(&mut AdmBuild { topo, switches, seed });
    Admission { rule: p.buffer_rule, deflection }
}

/// Measurement state for `[output]`.
fn observers(out: &OutputSpec, topo: &Topology, flows: usize) -> Observers {
    Observers {
        hop_tier: HopTier::of_ports(topo),
        queue_delay: Default::default(),
        hol: crate::observe::HolBlocking::new(
            out.hol_threshold.unwrap_or(crate::scenario::output::DEFAULT_HOL_THRESHOLD).0,
            flows,
        ),
        queues: out.queues.as_ref().map(|q| QueueSampler {
            interval: q.interval.0,
            per_queue: q.per_queue,
            queues: Vec::new(),
            buffers: Vec::new(),
        }),
        throughput: out.throughput.as_ref().map(|t| Throughput::new(t.interval.0, flows)),
        packet_trace: out.packet_trace.as_ref().map(|t| PacketTrace {
            flows: t.flows.as_ref().map(|ids| {
                let mut set = vec![false; flows];
                for &f in ids {
                    set[f as usize] = true;
                }
                set
            }),
            max_records: t.max_records as usize,
            records: Vec::new(),
            dropped: 0,
        }),
    }
}
