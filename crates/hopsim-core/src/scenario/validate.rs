//! Validation: everything a user wrote is checked here, naming the field at fault, and
//! resolved into the settings the simulator runs with. `ValidScenario::new` also builds the
//! topology and the flow list; `sim::build` then assembles the simulator and cannot fail.

use super::error::{check, fraction};
use super::policies::Policies;
use crate::host::{CcParams, DcqcnParams, DctcpParams, HpccParams, IrnParams, TimelyParams, TransportConfig};
use crate::ids::NodeId;
use crate::scenario::{CcKind, PacketTraceSpec, Scenario, ScenarioError, TransportSpec};
use crate::switch::SwitchConfig;
use crate::time::Delta;
use crate::topology::{self, Topology};
use crate::workload::{self, FlowSpec};

/// A scenario that passed validation, with its topology and flows built.
pub struct ValidScenario {
    pub scenario: Scenario,
    pub topo: Topology,
    pub flows: Vec<FlowSpec>,
    pub switch_cfg: SwitchConfig,
    pub transport: TransportConfig,
    /// Flow control, admission, deflection, load balancing and faults.
    pub policies: Policies,
}

impl ValidScenario {
    pub fn new(scenario: Scenario) -> Result<ValidScenario, ScenarioError> {
        let topo = topology::build(&scenario.topology)?;
        let policies = Policies::new(&scenario, &topo)?;
        let switch_cfg = switch_config(&scenario, &policies)?;
        let lossless = !matches!(policies.flow_control, super::FlowControlSpec::None(_));
        let mut transport = transport_config(
            &scenario.transport,
            switch_cfg.int_enabled,
            policies.hop_limit,
            lossless,
            policies.deflection.reads_rank(),
        )?;
        transport.serialization = scenario.links.serialization;
        transport.acks_obey_pause = policies.ack_in_data_queue;
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
        if scenario.switch.ecn.enabled && scenario.switch.ecn.scale_with_rate {
            // Switch ports name their RED profile (one per rate) by a 16-bit index.
            let rates: std::collections::BTreeSet<u64> =
                topo.ports.iter().filter(|p| !topo.is_host(p.node)).map(|p| p.rate.0).collect();
            check(
                rates.len() < u16::MAX as usize,
                "switch.ecn.scale_with_rate",
                format!(
                    "expected fewer than 65,535 distinct switch port rates to scale ECN thresholds by, \
                     the topology has {}",
                    rates.len()
                ),
            )?;
        }
        let threads = scenario.engine.threads;
        check(threads >= 1, "engine.threads", format!("expected at least 1 thread, got {threads}"))?;
        if let Some(parts) = scenario.engine.partitions {
            check(
                parts >= threads,
                "engine.partitions",
                format!("expected at least engine.threads = {threads} partitions, got {parts}"),
            )?;
        }
        if scenario.engine.partitions() > 1 {
            super::engine::check_parallel(&scenario, &topo)?;
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
        sampling_fits(&scenario, &topo, &flows)?;
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
        super::cross_checks::check_all(&scenario, &topo, &switch_cfg, &transport, &policies, &flows)?;
        Ok(ValidScenario { scenario, topo, flows, switch_cfg, transport, policies })
    }
}

/// The sampled outputs' rows, over the time limit (or, without one, at least until the
/// last flow starts), within [`MAX_SAMPLE_ROWS`]: an interval near zero would otherwise
/// exhaust memory instead of failing with a message.
fn sampling_fits(s: &Scenario, topo: &Topology, flows: &[FlowSpec]) -> Result<(), ScenarioError> {
    use super::limits::{count, MAX_SAMPLE_ROWS};
    let horizon = match s.duration {
        Some(d) => d.0 .0,
        None => flows.iter().map(|f| f.start.0).max().unwrap_or(0),
    };
    let ports = topo.ports.len() as u64;
    let out = &s.output;
    let mut asked: Vec<(&str, Delta, u64, &str)> = Vec::new();
    if let Some(q) = &out.queues {
        let per_port = if q.per_queue { s.switch.queues as u64 } else { 1 };
        asked.push(("output.queues.interval", q.interval.0, ports * per_port, "port"));
    }
    if let Some(t) = &out.throughput {
        asked.push(("output.throughput.interval", t.interval.0, 1, "bin"));
    }
    if let Some(t) = &out.rate_trace {
        asked.push(("output.rate_trace.interval", t.interval.0, t.flows.len() as u64, "traced flow"));
    }
    if let Some(i) = out.congestion_trees.as_ref().and_then(|t| t.interval) {
        asked.push(("output.congestion_trees.interval", i.0, ports, "port"));
    }
    for (field, interval, per_sample, what) in asked {
        if interval <= Delta::ZERO {
            continue; // refused above with its own message
        }
        let samples = horizon / interval.0 + 1;
        let rows = samples.saturating_mul(per_sample.max(1));
        let least = Delta((horizon as u128 * per_sample.max(1) as u128 / MAX_SAMPLE_ROWS as u128) as u64 + 1);
        check(
            rows <= MAX_SAMPLE_ROWS,
            field,
            format!(
                "{} samples of {} {what}{} would be {} rows, more than {} that fit in memory: \
                 lengthen the interval to at least {} ns (or shorten the run)",
                count(samples),
                count(per_sample.max(1)),
                if per_sample == 1 { "" } else { "s" },
                count(rows),
                count(MAX_SAMPLE_ROWS),
                least.0.div_ceil(1000)
            ),
        )?;
    }
    Ok(())
}

fn switch_config(s: &Scenario, policies: &Policies) -> Result<SwitchConfig, ScenarioError> {
    let sw = &s.switch;
    check(sw.buffer_bytes.0 > 0, "switch.buffer_bytes", "expected a positive size")?;
    // PFC's ingress accounting keeps byte counts in 32 bits (an ingress holds at most its
    // switch's buffer); today's largest switch chips hold well under 1 GB.
    check(
        sw.buffer_bytes.0 < 1 << 32,
        "switch.buffer_bytes",
        format!("expected less than 4 GiB, got {} bytes", sw.buffer_bytes.0),
    )?;
    // Traffic classes: a host NIC pauses them in one 64-bit mask (a flow control's own
    // queues, BFC's or Pyrrha's, are set in its table).
    check(
        (1..=64).contains(&sw.queues),
        "switch.queues",
        format!(
            "expected 1 to 64 traffic classes, got {} (a flow control's own queues are set in its \
             table, e.g. switch.flow_control.queues for BFC)",
            sw.queues
        ),
    )?;
    let e = &sw.ecn;
    if e.enabled {
        check(
            e.kmin.0 <= e.kmax.0,
            "switch.ecn",
            format!(
                "kmin ({} B) is above kmax ({} B); expected kmin ≤ kmax",
                super::limits::count(e.kmin.0),
                super::limits::count(e.kmax.0)
            ),
        )?;
        fraction(e.pmax, "switch.ecn.pmax", false)?;
        check(e.reference_rate.0 .0 > 0, "switch.ecn.reference_rate", "expected a positive rate")?;
    }
    Ok(SwitchConfig {
        buffer_bytes: sw.buffer_bytes.0,
        queues: sw.queues as usize,
        control_kinds: SwitchConfig::control_kinds(policies.ack_in_data_queue),
        ecn_enabled: e.enabled,
        ecn_at_dequeue: e.mark_at == crate::scenario::EcnMarkPoint::Dequeue,
        // HPCC needs telemetry: it turns INT on.
        int_enabled: sw.int
            || s.transport.cc == CcKind::Hpcc
            || s.transport.groups.iter().any(|g| g.cc == CcKind::Hpcc),
    })
}

/// Congestion-control parameters of the default transport with payload `mtu` (tests).
pub fn default_cc_params(mtu: u32) -> CcParams {
    let t = TransportSpec { mtu, ..Default::default() };
    transport_config(&t, false, 64, false, false).expect("the defaults are valid").cc_params
}

fn transport_config(
    t: &TransportSpec,
    int_enabled: bool,
    ttl: u8,
    lossless: bool,
    rank_read: bool,
) -> Result<TransportConfig, ScenarioError> {
    use crate::scenario::TransportKind;
    check(t.mtu > 0, "transport.mtu", "expected a positive payload size")?;
    let kind_name = |k: TransportKind| k.name();
    for (field, cc) in std::iter::once(("transport.cc".to_string(), t.cc))
        .chain(t.groups.iter().enumerate().map(|(i, g)| (format!("transport.groups[{i}].cc"), g.cc)))
    {
        check(
            cc.runs_on(*t.kind),
            &field,
            format!(
                "{:?} does not run on transport.kind = \"{}\"; expected {}",
                cc,
                kind_name(*t.kind),
                if *t.kind == TransportKind::Tcp {
                    "\"reno\", \"dctcp\", \"swift\" or \"bolt\""
                } else if *t.kind == TransportKind::MpRdma {
                    "\"none\" (MP-RDMA's window reacts to ECN itself)"
                } else {
                    "\"none\", \"dcqcn\", \"hpcc\", \"dctcp\" or \"timely\" (or set transport.kind = \"tcp\")"
                }
            )
            .to_lowercase(),
        )?;
    }
    let tcp = *t.kind == TransportKind::Tcp;
    // A TCP table with the transport left to its default: the user meant TCP. (A TCP
    // scenario switched to kind = "roce" by name may keep its table for its TCP runs.)
    check(
        tcp || !t.tcp.written || t.kind.written,
        "transport.tcp",
        "configures the TCP transport, but transport.kind is not given and defaults to \"roce\", \
         which never reads it: set transport.kind = \"tcp\", or remove the table",
    )?;
    if tcp {
        check(
            t.loss_recovery == crate::scenario::LossRecovery::GoBackN,
            "transport.loss_recovery",
            "is the RoCE transport's; TCP recovers with NewReno (or SACK: transport.tcp.sack = true)",
        )?;
        check(
            !lossless,
            "transport.kind",
            "\"tcp\" runs on lossy switches; set switch.flow_control.kind = \"none\" (or switch.pfc.enabled = false)",
        )?;
        // The RoCE transport's own knobs would be silently ignored under TCP: refuse them.
        check(
            t.window == crate::scenario::WindowSpec::Auto && !t.window_follows_rate,
            "transport.window",
            "is the RoCE transport's in-flight cap; TCP's window is its congestion window \
             (set transport.tcp.initial_window)",
        )?;
        check(
            t.ack_every == 1,
            "transport.ack_every",
            "is the RoCE receiver's; TCP acknowledges every segment (or every second one with \
             transport.tcp.delayed_ack)",
        )?;
    }
    let rank = t.rank.unwrap_or(if rank_read {
        crate::scenario::RankSpec::Srpt
    } else {
        crate::scenario::RankSpec::None
    });
    check(t.ack_bytes > 0, "transport.ack_bytes", "expected a positive size")?;
    check(t.ack_every > 0, "transport.ack_every", "expected a positive packet count")?;
    check(t.rto.0 > Delta::ZERO, "transport.rto", "expected a positive duration")?;
    // INT bytes per data packet and per ACK in the HPCC simulator (5 hops × 8 B + 2 B;
    // ACKs grow from 60 to 88 B).
    // TIMELY's send timestamp rides in the same header slot (`IntHeader` `TS` mode: 8 B on
    // data; ACKs stay within their 60 B minimum frame).
    let timestamp = t.timely.timestamp_bytes.unwrap_or(match t.timely.variant {
        crate::scenario::TimelyVariantSpec::Ns3 => 8,
        crate::scenario::TimelyVariantSpec::Paper => 0,
    });
    let (int_data_bytes, int_ack_bytes) = if int_enabled {
        (42, 28)
    } else if t.cc == CcKind::Timely {
        (timestamp, 0)
    } else {
        (0, 0)
    };
    let max_wire = crate::fabric::packet::MAX_WIRE_BYTES as u64;
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
        let (low, high) = irn_timeouts(t, lossless);
        check(low > Delta::ZERO, "transport.irn.rto_low", "expected a positive duration")?;
        check(low <= high, "transport.irn.rto_high", "expected rto_low ≤ rto_high")?;
    }
    let reorder_buffer = t.reorder_buffer.resolve()?;
    if reorder_buffer.is_some() {
        check(
            !tcp,
            "transport.reorder_buffer.enabled",
            "is the RoCE receiver's; TCP's ordering layer is transport.tcp.reorder_timeout",
        )?;
        check(
            t.loss_recovery == crate::scenario::LossRecovery::GoBackN,
            "transport.reorder_buffer.enabled",
            "is for transport.loss_recovery = \"go_back_n\"; IRN's receiver already keeps out-of-order packets",
        )?;
    }
    let mp_rdma = t.mp_rdma.resolve()?;
    let mp_rdma = if *t.kind == TransportKind::MpRdma {
        check(
            t.loss_recovery == crate::scenario::LossRecovery::GoBackN,
            "transport.loss_recovery",
            "is the RoCE transport's; MP-RDMA recovers losses itself",
        )?;
        Some(mp_rdma)
    } else {
        None
    };
    let timely = timely_params(&t.timely)?;
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
        nack_signals_congestion: t.nack_signals_congestion,
        cc: t.cc,
        cnp_interval: d.cnp_interval.0,
        int_data_bytes,
        int_ack_bytes,
        irn: (t.loss_recovery == crate::scenario::LossRecovery::Irn).then_some(IrnParams {
            rto_low: irn_timeouts(t, lossless).0,
            rto_high: irn_timeouts(t, lossless).1,
            rto_low_packets: t.irn.rto_low_packets,
        }),
        reorder_buffer,
        mp_rdma,
        ttl,
        serialization: Default::default(),
        tcp: if tcp { Some(super::tcp::tcp_params(&t.tcp)?) } else { None },
        rank: rank.into(),
        rank_boost: t.rank_retransmit_boost,
        acks_obey_pause: false,
        cc_params: CcParams {
            window: super::tcp::window_params(dc.g),
            swift: super::tcp::swift_params(&t.swift)?,
            bolt: super::tcp::bolt_params(&t.bolt, t.mtu, t.header_bytes)?,
            timely,
            dctcp: DctcpParams {
                g: dc.g,
                rate_ai: dc.rate_ai.0 .0,
                min_rate: dc.min_rate.0 .0,
                mtu: t.mtu,
                ns3: dc.variant == crate::scenario::DctcpVariantSpec::Ns3,
            },
            hpcc: HpccParams {
                eta: h.eta,
                max_stage: h.max_stage,
                rate_ai: h.rate_ai.0 .0,
                min_rate: h.min_rate.0 .0,
                int_ns3: h.int_units == crate::scenario::HpccIntUnits::Ns3,
                int_multi: match h.int_multi {
                    Some(0) => {
                        return Err(ScenarioError::field(
                            "transport.hpcc.int_multi",
                            "expected at least 1, got 0",
                        ))
                    }
                    m => m.unwrap_or(0) as u64,
                },
                shift_next_send: h.shift_next_send,
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
        },
    })
}

/// IRN's RTO_low and RTO_high: as given, else the IRN paper's on a lossy network and
/// `transport.rto` behind lossless flow control (see `IrnSpec`).
fn irn_timeouts(t: &TransportSpec, lossless: bool) -> (Delta, Delta) {
    let (low, high) = if lossless { (t.rto, t.rto) } else { (super::IRN_RTO_LOW, super::IRN_RTO_HIGH) };
    (t.irn.rto_low.unwrap_or(low).0, t.irn.rto_high.unwrap_or(high).0)
}

/// TIMELY's parameters: each given one, else its variant's default (see `TimelySpec`).
fn timely_params(tm: &crate::scenario::TimelySpec) -> Result<TimelyParams, ScenarioError> {
    use crate::host::cc::TimelyVariant;
    use crate::scenario::TimelyVariantSpec;
    let ns3 = tm.variant == TimelyVariantSpec::Ns3;
    let us = Delta::from_us;
    let mbps = |m: u64| m * 1_000_000;
    let delta = tm.delta.map_or(if ns3 { mbps(100) } else { mbps(40) }, |r| r.0 .0);
    let p = TimelyParams {
        variant: if ns3 { TimelyVariant::Ns3 } else { TimelyVariant::Paper },
        alpha: tm.alpha.unwrap_or(if ns3 { 0.875 } else { 0.02 }),
        beta: tm.beta.unwrap_or(0.8),
        t_low: tm.t_low.map_or(us(50), |d| d.0),
        t_high: tm.t_high.map_or(if ns3 { us(500) } else { us(1000) }, |d| d.0),
        delta,
        rate_hai: tm.rate_hai.map_or(if ns3 { mbps(500) } else { 5 * delta }, |r| r.0 .0),
        hai_threshold: tm.hai_threshold.unwrap_or(5),
        segment: tm.segment.map_or(16_000, |b| b.0),
        min_rate: tm.min_rate.map_or(if ns3 { mbps(1000) } else { mbps(100) }, |r| r.0 .0),
        min_rtt: tm.min_rtt.map(|d| d.0).or(ns3.then(|| us(20))),
    };
    fraction(p.alpha, "transport.timely.alpha", true)?;
    fraction(p.beta, "transport.timely.beta", true)?;
    check(p.t_low < p.t_high, "transport.timely.t_high", "expected t_low < t_high")?;
    check(p.segment > 0, "transport.timely.segment", "expected a positive size")?;
    check(p.min_rate > 0, "transport.timely.min_rate", "expected a positive rate")?;
    check(p.delta > 0, "transport.timely.delta", "expected a positive rate")?;
    if let Some(m) = p.min_rtt {
        check(m > Delta::ZERO, "transport.timely.min_rtt", "expected a positive duration")?;
    }
    Ok(p)
}
