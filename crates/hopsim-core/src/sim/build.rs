//! Scenario validation and network construction.
//!
//! `ValidScenario::new` checks everything a user wrote (naming the field at fault) and
//! builds the topology and the flow list; `build` then assembles the simulator and cannot
//! fail.

use crate::engine::rng_stream;
use crate::host::IrnParams;
use crate::host::{
    CcState, Dcqcn, DcqcnParams, Dctcp, DctcpParams, Flow, Host, Hpcc, HpccParams, Timely, TimelyParams,
    TransportConfig,
};
use crate::ids::{FlowId, NodeId, PortId};
use crate::metrics::Counters;
use crate::observe::{HopTier, Observers, PacketTrace, QueueSampler, Throughput};
use crate::port::Port;
use crate::scenario::{
    AdmissionSpec, CcKind, DynamicThresholdSpec, OutputSpec, PacketTraceSpec, PfcThreshold, Scenario,
    ScenarioError, StaticPerPortSpec, TransportSpec, WindowSpec,
};
use crate::switch::{
    EgressAdmission, PfcConfig, PfcMode, PfcState, RedProfile, SharedBuffer, Switch, SwitchConfig,
};
use crate::time::{Delta, Rate, SimTime};
use crate::topology::{self, FiveTuple, NodeKind, Routing, Topology};
use crate::workload::{self, FlowSpec};

use super::Simulator;

/// A scenario that passed validation, with its topology and flows built.
pub struct ValidScenario {
    pub scenario: Scenario,
    pub topo: Topology,
    pub flows: Vec<FlowSpec>,
    pub switch_cfg: SwitchConfig,
    pub transport: TransportConfig,
}

fn check(ok: bool, field: &str, message: impl Into<String>) -> Result<(), ScenarioError> {
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::field(field, message))
    }
}

fn fraction(v: f64, field: &str, open_zero: bool) -> Result<(), ScenarioError> {
    let ok = v.is_finite() && v <= 1.0 && if open_zero { v > 0.0 } else { v >= 0.0 };
    let range = if open_zero { "(0, 1]" } else { "[0, 1]" };
    check(ok, field, format!("expected a number in {range}, got {v}"))
}

impl ValidScenario {
    pub fn new(scenario: Scenario) -> Result<ValidScenario, ScenarioError> {
        let topo = topology::build(&scenario.topology)?;
        let switch_cfg = switch_config(&scenario)?;
        let transport = transport_config(&scenario.transport, switch_cfg.int_enabled)?;
        check(
            (scenario.transport.priority as usize) < switch_cfg.queues,
            "transport.priority",
            format!(
                "expected a priority below switch.queues ({}), got {}",
                switch_cfg.queues, scenario.transport.priority
            ),
        )?;
        if let Some(d) = scenario.duration {
            check(d.0 > Delta::ZERO, "duration", "expected a positive duration")?;
        }
        let mut grouped = vec![false; topo.node_count()];
        for (g, group) in scenario.transport.groups.iter().enumerate() {
            for h in &group.hosts {
                let field = format!("transport.groups[{g}].hosts");
                check(
                    (*h as usize) < topo.node_count() && topo.is_host(NodeId(*h)),
                    &field,
                    format!("node {h} is not a host"),
                )?;
                check(!grouped[*h as usize], &field, format!("host {h} is already in another group"))?;
                grouped[*h as usize] = true;
            }
        }
        let flows = workload::generate(scenario.workload.as_slice(), &topo, scenario.seed)?;
        if let Some(trace) = &scenario.output.rate_trace {
            check(
                trace.interval.0 > Delta::ZERO,
                "output.rate_trace.interval",
                "expected a positive duration",
            )?;
            for f in &trace.flows {
                check(
                    (*f as usize) < flows.len(),
                    "output.rate_trace.flows",
                    format!("flow {f} does not exist; the workload has {} flows", flows.len()),
                )?;
            }
        }
        let out = &scenario.output;
        if let Some(q) = &out.queues {
            check(q.interval.0 > Delta::ZERO, "output.queues.interval", "expected a positive duration")?;
        }
        if let Some(t) = &out.throughput {
            check(t.interval.0 > Delta::ZERO, "output.throughput.interval", "expected a positive duration")?;
        }
        if let Some(PacketTraceSpec { flows: Some(ids), .. }) = &out.packet_trace {
            for f in ids {
                check(
                    (*f as usize) < flows.len(),
                    "output.packet_trace.flows",
                    format!("flow {f} does not exist; the workload has {} flows", flows.len()),
                )?;
            }
        }
        for f in &flows {
            if let Some(p) = f.priority {
                check(
                    (p as usize) < switch_cfg.queues,
                    "workload",
                    format!("a flow file gives priority {p}, but switch.queues is {}", switch_cfg.queues),
                )?;
            }
        }
        Ok(ValidScenario { scenario, topo, flows, switch_cfg, transport })
    }
}

fn switch_config(s: &Scenario) -> Result<SwitchConfig, ScenarioError> {
    let sw = &s.switch;
    check(sw.buffer_bytes.0 > 0, "switch.buffer_bytes", "expected a positive size")?;
    check(
        (1..=1024).contains(&sw.queues),
        "switch.queues",
        format!("expected 1 to 1024 queues, got {}", sw.queues),
    )?;
    let admission = match sw.admission {
        AdmissionSpec::DynamicThreshold(DynamicThresholdSpec { alpha }) => {
            check(
                alpha.is_finite() && alpha > 0.0,
                "switch.admission.alpha",
                format!("expected a positive number, got {alpha}"),
            )?;
            EgressAdmission::DynamicThreshold { alpha }
        }
        AdmissionSpec::StaticPerPort(StaticPerPortSpec { bytes }) => {
            check(bytes.0 > 0, "switch.admission.bytes", "expected a positive size")?;
            EgressAdmission::StaticPerPort { bytes: bytes.0 }
        }
    };
    let pfc = if sw.pfc.enabled {
        let p = &sw.pfc;
        let mode = match p.threshold {
            PfcThreshold::Dynamic => {
                fraction(p.alpha, "switch.pfc.alpha", true)?;
                PfcMode::Dynamic { alpha: p.alpha }
            }
            PfcThreshold::Static => {
                let xoff = p.xoff_bytes.ok_or_else(|| {
                    ScenarioError::field(
                        "switch.pfc.xoff_bytes",
                        "required when switch.pfc.threshold = \"static\"",
                    )
                })?;
                let xon = p.xon_bytes.ok_or_else(|| {
                    ScenarioError::field(
                        "switch.pfc.xon_bytes",
                        "required when switch.pfc.threshold = \"static\"",
                    )
                })?;
                check(xon.0 <= xoff.0, "switch.pfc.xon_bytes", "expected xon_bytes ≤ xoff_bytes")?;
                check(xoff.0 > 0, "switch.pfc.xoff_bytes", "expected a positive size")?;
                PfcMode::Static { xoff: xoff.0, xon: xon.0 }
            }
        };
        Some(PfcConfig {
            mode,
            headroom: p.headroom_bytes.map(|b| b.0),
            reserve: p.reserve_bytes.0,
            resume_offset: p.resume_offset_bytes.0,
            classes: sw.queues as usize,
        })
    } else {
        None
    };
    let e = &sw.ecn;
    if e.enabled {
        check(e.kmin.0 <= e.kmax.0, "switch.ecn.kmax", "expected kmin ≤ kmax")?;
        fraction(e.pmax, "switch.ecn.pmax", false)?;
        check(e.reference_rate.0 .0 > 0, "switch.ecn.reference_rate", "expected a positive rate")?;
    }
    Ok(SwitchConfig {
        buffer_bytes: sw.buffer_bytes.0,
        queues: sw.queues as usize,
        admission,
        pfc,
        ecn_enabled: e.enabled,
        ecn_at_dequeue: e.mark_at == crate::scenario::EcnMarkPoint::Dequeue,
        // HPCC needs telemetry: it turns INT on.
        int_enabled: sw.int
            || s.transport.cc == CcKind::Hpcc
            || s.transport.groups.iter().any(|g| g.cc == CcKind::Hpcc),
    })
}

fn transport_config(t: &TransportSpec, int_enabled: bool) -> Result<TransportConfig, ScenarioError> {
    check(t.mtu > 0, "transport.mtu", "expected a positive payload size")?;
    check(t.ack_bytes > 0, "transport.ack_bytes", "expected a positive size")?;
    check(t.ack_every > 0, "transport.ack_every", "expected a positive packet count")?;
    check(t.rto.0 > Delta::ZERO, "transport.rto", "expected a positive duration")?;
    // INT bytes per data packet and per ACK in the HPCC simulator (5 hops × 8 B + 2 B;
    // ACKs grow from 60 to 88 B).
    let (int_data_bytes, int_ack_bytes) = if int_enabled { (42, 28) } else { (0, 0) };
    let max_wire = crate::packet::MAX_WIRE_BYTES as u64;
    check(
        t.mtu as u64 + t.header_bytes as u64 + int_data_bytes as u64 <= max_wire,
        "transport.mtu",
        "expected mtu + header_bytes (+ INT) of at most 65,535 bytes on the wire",
    )?;
    check(
        t.ack_bytes as u64 + int_ack_bytes as u64 <= max_wire,
        "transport.ack_bytes",
        "expected at most 65,535 bytes on the wire (with INT)",
    )?;
    let d = &t.dcqcn;
    fraction(d.g, "transport.dcqcn.g", true)?;
    for (name, v) in [
        ("alpha_interval", d.alpha_interval),
        ("decrease_interval", d.decrease_interval),
        ("increase_timer", d.increase_timer),
    ] {
        check(v.0 > Delta::ZERO, &format!("transport.dcqcn.{name}"), "expected a positive duration")?;
    }
    check(d.min_rate.0 .0 > 0, "transport.dcqcn.min_rate", "expected a positive rate")?;
    let h = &t.hpcc;
    fraction(h.eta, "transport.hpcc.eta", true)?;
    check(h.min_rate.0 .0 > 0, "transport.hpcc.min_rate", "expected a positive rate")?;
    if t.loss_recovery == crate::scenario::LossRecovery::Irn {
        check(t.irn.rto_low.0 > Delta::ZERO, "transport.irn.rto_low", "expected a positive duration")?;
        check(t.irn.rto_low.0 <= t.irn.rto_high.0, "transport.irn.rto_high", "expected rto_low ≤ rto_high")?;
    }
    let tm = &t.timely;
    fraction(tm.alpha, "transport.timely.alpha", true)?;
    fraction(tm.beta, "transport.timely.beta", true)?;
    check(tm.t_low.0 < tm.t_high.0, "transport.timely.t_high", "expected t_low < t_high")?;
    check(tm.segment.0 > 0, "transport.timely.segment", "expected a positive size")?;
    check(tm.min_rate.0 .0 > 0, "transport.timely.min_rate", "expected a positive rate")?;
    let dc = &t.dctcp;
    fraction(dc.g, "transport.dctcp.g", true)?;
    check(dc.min_rate.0 .0 > 0, "transport.dctcp.min_rate", "expected a positive rate")?;
    Ok(TransportConfig {
        mtu: t.mtu,
        header_bytes: t.header_bytes,
        ack_bytes: t.ack_bytes,
        ack_every: t.ack_every,
        rto: t.rto.0,
        nack_interval: t.nack_interval.0,
        cc: t.cc,
        cnp_interval: d.cnp_interval.0,
        int_data_bytes,
        int_ack_bytes,
        irn: (t.loss_recovery == crate::scenario::LossRecovery::Irn).then_some(IrnParams {
            rto_low: t.irn.rto_low.0,
            rto_high: t.irn.rto_high.0,
            rto_low_packets: t.irn.rto_low_packets,
        }),
        timely: TimelyParams {
            alpha: tm.alpha,
            beta: tm.beta,
            t_low: tm.t_low.0,
            t_high: tm.t_high.0,
            delta: tm.delta.0 .0,
            hai_threshold: tm.hai_threshold,
            segment: tm.segment.0,
            min_rate: tm.min_rate.0 .0,
        },
        dctcp: DctcpParams { g: dc.g, rate_ai: dc.rate_ai.0 .0, min_rate: dc.min_rate.0 .0, mtu: t.mtu },
        hpcc: HpccParams {
            eta: h.eta,
            max_stage: h.max_stage,
            rate_ai: h.rate_ai.0 .0,
            min_rate: h.min_rate.0 .0,
        },
        dcqcn: DcqcnParams {
            g: d.g,
            alpha_interval: d.alpha_interval.0,
            decrease_interval: d.decrease_interval.0,
            increase_timer: d.increase_timer.0,
            byte_counter: d.byte_counter.0,
            fast_recovery_steps: d.fast_recovery_steps,
            rate_ai: d.rate_ai.0 .0,
            rate_hai: d.rate_hai.0 .0,
            min_rate: d.min_rate.0 .0,
            clamp_target_rate: d.clamp_target_rate,
        },
    })
}

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

/// Assemble the simulator from a validated scenario.
pub fn build(v: ValidScenario) -> Simulator {
    let ValidScenario { scenario, topo, flows: specs, switch_cfg, transport } = v;
    let routing = Routing::new(&topo, scenario.routing.hash, scenario.seed);
    let q = switch_cfg.queues;
    let latency = scenario.switch.latency.0;
    let ecn = &scenario.switch.ecn;

    let ports: Vec<Port> = topo
        .ports
        .iter()
        .map(|spec| {
            let peer_node = topo.ports[spec.peer.idx()].node;
            let to_switch = !topo.is_host(peer_node);
            let arrival = spec.delay + if to_switch { latency } else { Delta::ZERO };
            let is_switch = !topo.is_host(spec.node);
            let mut port =
                Port::new(spec.node, spec.peer, spec.rate, arrival, if is_switch { q } else { 0 }, q);
            if is_switch && ecn.enabled {
                let scale = if ecn.scale_with_rate {
                    spec.rate.0 as f64 / ecn.reference_rate.0 .0 as f64
                } else {
                    1.0
                };
                port.ecn = Some(RedProfile {
                    kmin: (ecn.kmin.0 as f64 * scale) as u64,
                    kmax: (ecn.kmax.0 as f64 * scale) as u64,
                    pmax: ecn.pmax,
                });
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
                let pfc = switch_cfg.pfc.as_ref().map(|cfg| {
                    let per_port: Vec<(u64, f64)> = topo
                        .ports_of(node)
                        .map(|p| {
                            let spec = &topo.ports[p as usize];
                            let alpha = match cfg.mode {
                                PfcMode::Dynamic { alpha } => {
                                    PfcConfig::alpha_for_rate(alpha, spec.rate, nic_rate)
                                }
                                PfcMode::Static { .. } => 1.0,
                            };
                            (cfg.headroom_for(spec.rate, spec.delay), alpha)
                        })
                        .collect();
                    PfcState::new(cfg, &per_port)
                });
                switches.push(Switch {
                    node,
                    first_port: topo.node_ports[n],
                    mmu: SharedBuffer::default(),
                    pfc,
                    drops: Default::default(),
                });
            }
        }
    }

    let mut tags: Vec<String> = Vec::new();
    let t = &scenario.transport;
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
            let sport = 10_000 + (i % 50_000) as u16;
            let tuple = FiveTuple { src: NodeId(s.src), dst: NodeId(s.dst), sport, dport: s.dport };
            let path = routing.path_of(&topo, tuple);
            let (ideal, base_rtt, bottleneck) = ideal_fct(&topo, &path, s.size, t.mtu, t.header_bytes);
            let bdp = (bottleneck.0 as u128 * base_rtt.0 as u128 / 8 / crate::time::PS_PER_S as u128) as u64;
            let cc = t.groups.iter().find(|g| g.hosts.contains(&s.src)).map_or(transport.cc, |g| g.cc);
            let window = match (t.window, cc) {
                // HPCC always runs with its rate-tied window, starting at one BDP.
                (_, CcKind::Hpcc) => bdp,
                (WindowSpec::None, _) => 0,
                (WindowSpec::Bytes(b), _) => b,
                (WindowSpec::Bdp, _) => bdp,
            };
            let line_rate = topo.ports[path[0].idx()].rate.0;
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
                cc: match cc {
                    CcKind::None => CcState::None,
                    CcKind::Dcqcn => CcState::Dcqcn(Dcqcn::new(line_rate)),
                    CcKind::Hpcc => CcState::Hpcc(Hpcc::new(line_rate)),
                    CcKind::Dctcp => CcState::Dctcp(Dctcp::new()),
                    CcKind::Timely => CcState::Timely(Timely::new()),
                },
                irn: (t.loss_recovery == crate::scenario::LossRecovery::Irn).then(Default::default),
                finish: None,
                retransmitted_bytes: 0,
                timeouts: 0,
                cnps_received: 0,
                rcv_nxt: 0,
                reorder: Default::default(),
                unacked_packets: 0,
                last_nack_seq: None,
                nack_timer: SimTime::ZERO,
                ce_pending: false,
                last_cnp: None,
            }
        })
        .collect();

    // Packets schedule their arrival one serialization plus one link delay ahead.
    let horizon = sim_horizon(&topo, transport.mtu + transport.header_bytes);
    let obs = observers(&scenario.output, &topo, flows.len());
    let flow_int = if switch_cfg.int_enabled { vec![Default::default(); flows.len()] } else { Vec::new() };
    let mut sim = Simulator {
        now: SimTime::ZERO,
        events: crate::engine::EventQueue::with_horizon(horizon),
        store: crate::store::PacketStore::new(),
        topo,
        routing,
        ports,
        node_slot,
        switches,
        hosts,
        flows,
        tags,
        switch_cfg,
        transport,
        next_flow_to_schedule: 0,
        counters: Counters::default(),
        pfc_log: scenario.output.pfc_events.then(Vec::new),
        trace_flows: scenario
            .output
            .rate_trace
            .as_ref()
            .map_or(Vec::new(), |t| t.flows.iter().map(|f| FlowId(*f)).collect()),
        trace_interval: scenario.output.rate_trace.as_ref().map_or(Delta::ZERO, |t| t.interval.0),
        rate_trace: Vec::new(),
        ecn_rng: rng_stream(scenario.seed, "switch/ecn"),
        int_stacks: Vec::new(),
        flow_int,
        limit: scenario.duration.map_or(SimTime::NEVER, |d| SimTime(d.0 .0)),
        seed: scenario.seed,
        obs,
    };
    sim.schedule_next_flow_start();
    if !sim.trace_flows.is_empty() {
        sim.events.schedule(SimTime::ZERO, crate::engine::Event::TraceSample);
    }
    if sim.obs.queues.is_some() {
        sim.events.schedule(SimTime::ZERO, crate::engine::Event::QueueSample);
    }
    sim
}

/// Measurement state for `[output]`.
fn observers(out: &OutputSpec, topo: &Topology, flows: usize) -> Observers {
    Observers {
        hop_tier: HopTier::of_ports(topo),
        queue_delay: Default::default(),
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
