//! Behaviour of the measurements: queuing delay, queue and buffer samplers, throughput
//! bins and the packet trace agree with each other and with the counters; flows are
//! classified congested, vulnerable or background by what they shared with an incast;
//! head-of-line blocking marks the flows a pause held.

mod common;

use common::{assert_drained, incast_with_victim, run};
use hopsim_core::fabric::packet::PacketKind;
use hopsim_core::ids::NodeId;
use hopsim_core::observe::{HopTier, PacketEvent};

/// Two hosts send 2 MB each at line rate to one receiver across a dumbbell whose
/// bottleneck is as fast as the receiver's link: the queue builds at the destination ToR.
fn two_to_one(output: &str) -> String {
    format!(
        "[topology]\nkind = \"dumbbell\"\nleft_hosts = 2\nright_hosts = 1\nbottleneck_rate = \"200Gbps\"\n\
         [transport]\ncc = \"none\"\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 2, size = \"2MB\" }}, {{ src = 1, dst = 2, size = \"2MB\" }}]\n\
         {output}"
    )
}

/// Little's law ties the delay histogram to the queue sampler: at the destination ToR the
/// time-averaged backlog equals its throughput times the mean queuing delay.
#[test]
fn queuing_delay_and_sampled_queues_obey_littles_law() {
    let s = run(&two_to_one("[output.queues]\ninterval = \"50ns\"\n"));
    assert_drained(&s);
    let stats = s.queue_delay_stats();
    let dst = stats.iter().find(|d| d.tier == HopTier::DstTor).expect("packets crossed the destination ToR");
    let src = stats.iter().find(|d| d.tier == HopTier::SrcTor).expect("packets crossed the source ToR");
    assert!(src.mean_ns < 100.0, "no queue on the fast bottleneck: {:.1} ns", src.mean_ns);
    assert!(dst.mean_ns > 10_000.0, "the incast queue builds at the destination ToR: {:.0} ns", dst.mean_ns);
    assert_eq!(dst.packets, 2 * 2000, "every data packet waited once at the destination ToR");

    // Time-averaged backlog of the receiver-facing port, from the samples.
    let right = NodeId(4); // hosts 0-2, left switch 3, right switch 4; port 0 faces host 2
    let port = s.port_id(right, 0);
    let samples: u64 = s.queue_samples().iter().filter(|q| q.port == port).map(|q| q.bytes).sum();
    let stats_port = s.port_stats(right, 0);
    let busy = stats_port.last_tx_end.since(stats_port.first_tx.unwrap()).as_ns_f64();
    let mean_backlog = samples as f64 * 50.0 / busy;
    let throughput = stats_port.tx_bytes as f64 / busy; // wire bytes per ns, as queued
    let little = throughput * dst.mean_ns;
    assert!(
        (mean_backlog / little - 1.0).abs() < 0.05,
        "backlog {mean_backlog:.0} B vs throughput x delay {little:.0} B"
    );
    // The sampled shared buffer never exceeds the switch's recorded peak.
    let peak = s.switch_records().iter().map(|r| r.max_buffer_bytes).max().unwrap();
    assert!(s.buffer_samples().iter().all(|b| b.bytes <= peak));
    assert!(s.buffer_samples().iter().any(|b| b.bytes > peak / 2), "samples see the peak region");
}

/// Throughput bins count every delivered payload byte exactly once, and no bin exceeds
/// what the receiver's link can carry in it.
#[test]
fn throughput_bins_add_up_to_flow_sizes() {
    let s = run(&two_to_one("[output.throughput]\ninterval = \"10us\"\n"));
    let bins = s.throughput_bins();
    for flow in 0..2u32 {
        let total: u64 = bins.iter().filter(|b| b.flow == flow).map(|b| b.bytes).sum();
        assert_eq!(total, 2_000_000, "flow {flow}");
    }
    let mut per_bin = std::collections::BTreeMap::new();
    for b in &bins {
        *per_bin.entry(b.time).or_insert(0u64) += b.bytes;
    }
    // 100 Gb/s for 10 us = 125 KB of wire bytes; payload is less.
    assert!(per_bin.values().all(|&v| v <= 125_000), "{:?}", per_bin.values().max());
    let full = per_bin.values().filter(|&&v| v > 110_000).count();
    assert!(full >= 30, "the receiver link is saturated for most of the 40 bins: {full}");
}

/// The packet trace follows each data packet hop by hop: one `tx` per link crossed, one
/// `enqueue` per switch, one `rx` at the destination; the record limit is honoured.
#[test]
fn packet_trace_follows_packets_and_honours_its_limit() {
    let s = run(&two_to_one("[output.packet_trace]\nflows = [1]\n"));
    let recs = s.packet_records();
    assert!(recs.iter().all(|r| r.flow == 1));
    let data = |e: PacketEvent| recs.iter().filter(|r| r.kind == PacketKind::Data && r.event == e).count();
    assert_eq!(data(PacketEvent::Transmit), 3 * 2000, "host, left switch, right switch");
    assert_eq!(data(PacketEvent::Enqueue), 2 * 2000);
    assert_eq!(data(PacketEvent::Receive), 2000);
    assert_eq!(data(PacketEvent::Drop), 0);
    assert!(recs.windows(2).all(|w| w[0].time <= w[1].time), "records in event order");
    // Each packet's own events are in path order.
    let first: Vec<PacketEvent> =
        recs.iter().filter(|r| r.kind == PacketKind::Data && r.seq == 0).map(|r| r.event).collect();
    use PacketEvent::*;
    assert_eq!(first, vec![Transmit, Enqueue, Transmit, Enqueue, Transmit, Receive]);

    let limited = run(&two_to_one("[output.packet_trace]\nmax_records = 100\n"));
    assert_eq!(limited.packet_records().len(), 100);
    assert!(limited.summary().packet_trace_dropped > 0);
}

/// Per-flow ECMP keeps every flow on one path: no reordering even under PFC pauses.
#[test]
fn per_flow_ecmp_never_reorders() {
    let s = run(&two_to_one("[switch]\nbuffer_bytes = \"300KB\"\n"));
    assert!(s.summary().pfc_pause_frames > 0);
    assert_eq!(s.summary().reordering_ratio, 0.0);
    assert!(s.flow_records().iter().all(|f| f.reordered_packets == 0));
}

/// Classification of a hand-built case: a 4-to-1 incast (congested), a victim sharing the
/// incast senders' uplink while they are active (vulnerable), a flow on the same uplink
/// after the incast is over and a flow on the other side of the fabric (background). A
/// flow from the receiver's side whose data path is idle but whose ACKs cross the incast's
/// bottleneck while it is busy is vulnerable too.
#[test]
fn flows_are_classified_congested_vulnerable_background() {
    use hopsim_core::sim::FlowClass;
    let s = run(r#"
        [topology]
        kind = "dumbbell"
        left_hosts = 6
        right_hosts = 3
        bottleneck_rate = "400Gbps"
        [transport]
        cc = "none"
        [[workload]]
        kind = "incast"
        receiver = 6
        fan_in = 4
        senders = [0, 1, 2, 3]
        size_min = "200KB"
        size_max = "200KB"
        period = "10ms"
        stop = "1us"
        [[workload]]
        kind = "flows"
        flows = [
            { src = 4, dst = 7, size = "100KB", start = "5us", tag = "victim" },
            { src = 5, dst = 8, size = "100KB", start = "5ms", tag = "late" },
            { src = 7, dst = 8, size = "100KB", start = "5us", tag = "elsewhere" },
            { src = 7, dst = 4, size = "100KB", start = "5us", tag = "acks_back" },
        ]
    "#);
    let classes = s.flow_classes();
    let by_tag = |tag: &str| {
        s.flow_records()
            .iter()
            .zip(&classes)
            .filter(|(r, _)| r.tag == tag)
            .map(|(_, c)| *c)
            .collect::<Vec<_>>()
    };
    assert_eq!(by_tag("incast"), vec![FlowClass::Congested; 4]);
    assert_eq!(by_tag("victim"), [FlowClass::Vulnerable]);
    assert_eq!(by_tag("late"), [FlowClass::Background]);
    assert_eq!(by_tag("elsewhere"), [FlowClass::Background]);
    assert_eq!(by_tag("acks_back"), [FlowClass::Vulnerable]);
}

/// Head-of-line blocking (flows `hol_blocked`, summary `hol_blocked_flows`): a 4-to-1 incast
/// behind PFC pauses the switch uplink it shares with a victim flow to another receiver; the
/// victim waits in the paused queue and is marked. Per-flow flow control pauses only the
/// incast's own queues: the victim is not marked. Without the incast, or with a threshold
/// longer than any pause, or without flow control, no flow is.
#[test]
fn hol_blocking_marks_the_flows_a_pause_held() {
    let blocked = |s: &hopsim_core::Simulator| -> Vec<(String, bool)> {
        s.flow_records().into_iter().map(|r| (r.tag, r.hol_blocked)).collect()
    };
    let with_threshold = |fc: &str, incast: bool, threshold: &str| {
        incast_with_victim(fc, incast)
            .replace("[output]\n", &format!("[output]\nhol_threshold = \"{threshold}\"\n"))
    };
    let pfc = run(&incast_with_victim("kind = \"pfc\"", true));
    assert_drained(&pfc);

    let b = blocked(&pfc);
    let sum = pfc.summary();
    eprintln!("pfc: {b:?}, {} PAUSEs", sum.pfc_pause_frames);
    assert!(b.iter().any(|(tag, hol)| tag == "victim" && *hol), "the victim waited behind the pause: {b:?}");
    assert_eq!(sum.hol_blocked_flows, b.iter().filter(|(_, hol)| *hol).count() as u64);
    let again = run(&incast_with_victim("kind = \"pfc\"", true));
    assert_eq!(blocked(&again), b, "deterministic");

    let per_flow = run(&incast_with_victim("kind = \"per_flow\"", true));
    let b = blocked(&per_flow);
    eprintln!("per_flow: {b:?}");
    assert!(b.iter().any(|(tag, hol)| tag == "victim" && !*hol), "per-flow queues spare the victim: {b:?}");

    for (name, s) in [
        ("no incast", run(&incast_with_victim("kind = \"pfc\"", false))),
        ("1 s threshold", run(&with_threshold("kind = \"pfc\"", true, "1s"))),
        ("no flow control", run(&incast_with_victim("kind = \"none\"", true))),
    ] {
        assert_eq!(s.summary().hol_blocked_flows, 0, "{name}");
        assert!(s.flow_records().iter().all(|r| !r.hol_blocked), "{name}");
    }
    // A threshold of 0 marks every flow a pause held at all: at least those of 5 µs.
    let eager = run(&with_threshold("kind = \"pfc\"", true, "0s")).summary().hol_blocked_flows;
    assert!(eager >= sum.hol_blocked_flows);
}
