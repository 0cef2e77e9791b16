//! Behaviour of the substrate: analytic FCT, fair sharing, PFC losslessness and HOL
//! blocking, drops without PFC, DCQCN convergence, conservation and determinism.

mod common;

use common::{assert_drained, fct_us, run, sim};
use hopsim_core::ids::{FlowId, NodeId};
use hopsim_core::time::{Rate, SimTime, PS_PER_US};

/// A lone flow on an idle path finishes at its ideal FCT (the HPCC simulator's
/// `standalone_fct`) to within one MTU serialization time at the bottleneck.
#[test]
fn single_flow_matches_ideal_fct() {
    for (topology, src, dst) in [
        ("kind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1", 0, 1),
        ("kind = \"fat_tree\"\nk = 4", 0, 15),
        (
            "kind = \"leaf_spine\"\nspines = 2\nleaves = 2\nhosts_per_leaf = 2\nfabric_rate = \"400Gbps\"",
            0,
            3,
        ),
    ] {
        for size in [1_000u64, 64_000, 1_000_000, 5_000_001] {
            let s = run(&format!(
                "[topology]\n{topology}\n[workload]\nkind = \"flows\"\nflows = [{{ src = {src}, dst = {dst}, size = {size} }}]\n"
            ));
            let r = &s.flow_records()[0];
            let fct = r.fct().unwrap().0 as i64;
            let ideal = r.ideal_fct.0 as i64;
            let mtu_time = Rate::gbps(100).tx_time(1048).0 as i64;
            assert!(
                (fct - ideal).abs() <= mtu_time,
                "{topology} size {size}: fct {fct} ps vs ideal {ideal} ps (tolerance {mtu_time})"
            );
            assert_drained(&s);
        }
    }
}

/// N equal long flows through one bottleneck, no congestion control: each gets 1/N, so
/// all finish together at N × (bytes on the wire) / capacity.
#[test]
fn long_flows_share_a_bottleneck_fairly() {
    for n in [2u32, 4, 8] {
        let flows: Vec<String> =
            (0..n).map(|i| format!("{{ src = {i}, dst = {n}, size = \"4MB\" }}")).collect();
        let s = run(&format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = {n}\nright_hosts = 1\n\
             [transport]\ncc = \"none\"\n\
             [workload]\nkind = \"flows\"\nflows = [{}]\n",
            flows.join(", ")
        ));
        let recs = s.flow_records();
        let wire_bits = 4_000_000.0 * 1048.0 / 1000.0 * 8.0;
        let fair_us = n as f64 * wire_bits / 100e9 * 1e6;
        for r in &recs {
            let share = fair_us / fct_us(r);
            assert!(
                (share - 1.0).abs() <= 0.02,
                "n={n}: flow {} took {:.1} us, fair share predicts {fair_us:.1} us",
                r.flow_id,
                fct_us(r)
            );
        }
        assert_drained(&s);
    }
}

const INCAST_32: &str = r#"
[topology]
kind = "dumbbell"
left_hosts = 32
right_hosts = 1
[switch]
buffer_bytes = "2MB"
[transport]
cc = "none"
[workload]
kind = "incast"
receiver = 32
fan_in = 32
size_min = "300KB"
size_max = "300KB"
period = "10ms"
stop = "1us"
"#;

/// 32-to-1 incast with PFC: nothing is dropped, the bottleneck stays busy, and the
/// congested switch pauses its upstream (the senders).
#[test]
fn incast_with_pfc_is_lossless_and_keeps_the_bottleneck_busy() {
    let s = run(INCAST_32);
    let sum = s.summary();
    assert_eq!(sum.drops.total(), 0);
    assert_drained(&s);
    // Left switch (node 33): port 32 is the bottleneck towards the right switch.
    let bottleneck = s.port_stats(NodeId(33), 32);
    let util = bottleneck.utilisation_while_active();
    assert!(util >= 0.95, "bottleneck utilisation {util:.3}");
    let pauses_to_senders: u64 = (0..32).map(|p| s.port_stats(NodeId(33), p).pause_sent).sum();
    assert!(pauses_to_senders > 0, "PAUSE frames sent upstream");
    let received: u64 = (0..32).map(|h| s.port_stats(NodeId(h), 0).pause_received).sum();
    assert_eq!(received, pauses_to_senders, "every PAUSE crosses its link to a host NIC");
    assert!((0..32).all(|h| s.port_stats(NodeId(h), 0).paused_time.0 > 0), "senders were paused");
}

/// The same incast without PFC and with a small buffer drops packets, and go-back-N
/// still delivers every flow.
#[test]
fn incast_without_pfc_drops_and_recovers() {
    let toml = INCAST_32
        .replace("buffer_bytes = \"2MB\"", "buffer_bytes = \"500KB\"\n[switch.pfc]\nenabled = false");
    let s = run(&toml);
    let sum = s.summary();
    assert!(sum.drops.total() > 0, "drops appear without PFC");
    assert_eq!(sum.pfc_pause_frames, 0);
    assert!(sum.retransmitted_bytes > 0);
    assert_drained(&s);
}

/// HOL blocking: a victim flow shares the left switch's uplink with a 4-to-1 incast
/// whose congestion is at the right switch's port to the incast receiver. PFC pauses the
/// whole uplink priority, so the victim — heading to an idle receiver — is slowed.
#[test]
fn pfc_blocks_a_victim_flow_behind_an_incast() {
    let scenario = |with_incast: bool| {
        let incast: String = if with_incast {
            (0..4).map(|i| format!("{{ src = {i}, dst = 5, size = \"2MB\", tag = \"incast\" }}, ")).collect()
        } else {
            String::new()
        };
        format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 5\nright_hosts = 2\nbottleneck_rate = \"400Gbps\"\n\
             [switch]\nbuffer_bytes = \"1MB\"\n[transport]\ncc = \"none\"\n\
             [workload]\nkind = \"flows\"\nflows = [{incast}{{ src = 4, dst = 6, size = \"500KB\", start = \"20us\", tag = \"victim\" }}]\n"
        )
    };
    let alone = run(&scenario(false));
    let blocked = run(&scenario(true));
    let victim = |s: &hopsim_core::Simulator| {
        s.flow_records().into_iter().find(|r| r.tag == "victim").map(|r| fct_us(&r)).unwrap()
    };
    let (t_alone, t_blocked) = (victim(&alone), victim(&blocked));
    eprintln!("victim FCT: {t_alone:.1} us alone, {t_blocked:.1} us behind the incast");
    assert!(t_blocked > 2.0 * t_alone, "victim FCT {t_blocked:.1} us with incast vs {t_alone:.1} us alone");
    // The right switch (node 8) paused the uplink from the left switch: its port 2.
    assert!(blocked.port_stats(NodeId(8), 2).pause_sent > 0);
    assert!(blocked.port_stats(NodeId(7), 5).paused_time.0 > 0, "left switch uplink paused");
    assert_drained(&blocked);
}

/// DCQCN: a flow at line rate is joined by a second one; within a few milliseconds both
/// send within 10 % of the fair share, measured as goodput over a 1 ms window.
#[test]
fn dcqcn_converges_to_fair_share() {
    let ecn = "[switch.ecn]\nkmin = \"40KB\"\nkmax = \"160KB\"";
    let mut s = sim(&late_joiner("dcqcn", "200MB", ecn));
    assert_fair_goodputs("DCQCN", &mut s, 4_500, 5_500);
    assert!(s.summary().cnps > 0, "DCQCN reacted to ECN");
}

/// Goodput (Gb/s) of flows 0 and 1 between `from_us` and `to_us` of simulated time.
fn two_flow_goodputs(s: &mut hopsim_core::Simulator, from_us: u64, to_us: u64) -> (f64, f64) {
    s.run_until(SimTime(from_us * PS_PER_US));
    let a0 = (s.flow_progress(FlowId(0)).0, s.flow_progress(FlowId(1)).0);
    s.run_until(SimTime(to_us * PS_PER_US));
    let a1 = (s.flow_progress(FlowId(0)).0, s.flow_progress(FlowId(1)).0);
    let seconds = (to_us - from_us) as f64 * 1e-6;
    let rate = |b0: u64, b1: u64| (b1 - b0) as f64 * 8.0 / seconds / 1e9;
    (rate(a0.0, a1.0), rate(a0.1, a1.1))
}

/// Two long flows on a 2-to-1 dumbbell, the second joining at 500 µs, under `cc`
/// (`extra` adds scenario tables).
fn late_joiner(cc: &str, size: &str, extra: &str) -> String {
    format!(
        "[topology]\nkind = \"dumbbell\"\nleft_hosts = 2\nright_hosts = 1\n{extra}\n\
         [transport]\ncc = \"{cc}\"\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 2, size = \"{size}\" }}, \
         {{ src = 1, dst = 2, size = \"{size}\", start = \"500us\" }}]\n"
    )
}

/// Goodputs of the two flows over [from_us, to_us], each asserted within 10 % of the fair
/// share: half of 100 Gb/s less headers (1000 of every 1048 bytes).
fn assert_fair_goodputs(name: &str, s: &mut hopsim_core::Simulator, from_us: u64, to_us: u64) -> (f64, f64) {
    let (r0, r1) = two_flow_goodputs(s, from_us, to_us);
    let fair = 50.0 * 1000.0 / 1048.0;
    eprintln!("{name} goodputs over [{from_us}, {to_us}] us: {r0:.2} and {r1:.2} Gb/s (fair {fair:.2})");
    for r in [r0, r1] {
        assert!((r / fair - 1.0).abs() <= 0.10, "{name}: goodputs {r0:.1} and {r1:.1} Gb/s, fair {fair:.1}");
    }
    (r0, r1)
}

/// Same scenario and seed: identical flow tables. A different seed: different ones.
#[test]
fn runs_are_deterministic_by_seed() {
    let scenario = |seed: u64| {
        format!(
            "seed = {seed}\n[topology]\nkind = \"fat_tree\"\nk = 4\n\
             [workload]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = 0.5\nstop = \"200us\"\n"
        )
    };
    let table = |seed| {
        run(&scenario(seed))
            .flow_records()
            .iter()
            .map(|r| format!("{:?}", (r.flow_id, r.src, r.dst, r.size_bytes, r.start, r.finish)))
            .collect::<Vec<_>>()
    };
    let a = table(7);
    assert!(!a.is_empty());
    assert_eq!(a, table(7));
    assert_ne!(a, table(8));
}

/// A Poisson mix on a fat-tree drains completely and conserves packets.
#[test]
fn poisson_mix_conserves_packets() {
    let s = run(r#"
        [topology]
        kind = "fat_tree"
        k = 4
        [switch]
        buffer_bytes = "1MB"
        [[workload]]
        kind = "poisson"
        size_dist = "websearch"
        load = 0.6
        stop = "300us"
        [[workload]]
        kind = "incast"
        receiver = 0
        fan_in = 12
        size_min = "20KB"
        size_max = "60KB"
        period = "50us"
        stop = "300us"
    "#);
    assert_drained(&s);
    assert_eq!(s.summary().drops.total(), 0, "PFC keeps the fabric lossless");
    // The packet store holds whole chunks of 4,096 slots: what its busiest moment needed.
    let m = s.memory_report();
    assert!(m.peak_packets_in_flight > 0);
    let slots = m.peak_packets_in_flight.div_ceil(4096) * 4096;
    assert_eq!(m.packet_store_bytes, slots * hopsim_core::fabric::store::PacketStore::SLOT_BYTES as u64);
}

/// INT: a data packet collects one telemetry record per switch egress, in time order.
#[test]
fn int_records_every_hop() {
    let mut s = sim(r#"
        [topology]
        kind = "fat_tree"
        k = 4
        [switch]
        int = true
        [transport]
        cc = "none"
        [workload]
        kind = "flows"
        flows = [{ src = 0, dst = 15, size = 1000 }]
    "#);
    s.run();
    // The ACK echoed the data packet's stack to the sender: 5 switch egress ports on a
    // 3-tier path.
    let stack = s.last_ack_int(FlowId(0)).expect("INT stack");
    assert_eq!(stack.hops, 5);
    assert!(stack.hop.windows(2).all(|w| w[0].time < w[1].time));
}

/// Running in slices (as the Python progress bar does) gives the same flows, event count
/// and final clock as one uninterrupted run.
#[test]
fn sliced_runs_equal_one_run() {
    let toml = r#"
        [topology]
        kind = "fat_tree"
        k = 4
        [workload]
        kind = "poisson"
        size_dist = "webserver"
        load = 0.4
        stop = "100us"
    "#;
    let whole = run(toml);
    let mut sliced = sim(toml);
    let mut t = 0;
    while !sliced.is_done() {
        t += 7 * PS_PER_US;
        sliced.run_until(SimTime(t));
    }
    assert_eq!(whole.summary().events, sliced.summary().events);
    assert_eq!(whole.now(), sliced.now());
    let key = |s: &hopsim_core::Simulator| {
        s.flow_records().iter().map(|r| (r.flow_id, r.finish)).collect::<Vec<_>>()
    };
    assert_eq!(key(&whole), key(&sliced));
}

/// A sending window caps the bytes in flight: a lone flow with a window much smaller than
/// the path's bandwidth-delay product moves one window per round trip.
#[test]
fn window_bounds_bytes_in_flight() {
    let scenario = |window: &str| {
        format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
             [transport]\ncc = \"none\"\nwindow = {window}\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"1MB\" }}]\n"
        )
    };
    let open = run(&scenario("\"none\""));
    let bdp = run(&scenario("\"bdp\""));
    // Trace the bytes in flight every 100 ns: never above the window.
    let mut small = sim(&scenario("\"5KB\""));
    let (mut t, mut peak) = (0, 0);
    while !small.is_done() {
        t += 100_000;
        small.run_until(SimTime(t));
        peak = peak.max(small.flow_in_flight(FlowId(0)));
    }
    assert!(peak <= 5_000, "in flight {peak} B with a 5 KB window");
    assert!(peak >= 4_000, "the window is used: {peak} B in flight");
    let fct = |s: &hopsim_core::Simulator| fct_us(&s.flow_records()[0]);
    // A BDP window does not slow the flow; a 5 KB window does, to about one window per RTT.
    assert!((fct(&bdp) / fct(&open) - 1.0).abs() < 0.02, "bdp {} vs open {}", fct(&bdp), fct(&open));
    // RTT of a full window: 3 links × 2 × 1 µs propagation + serialization of 5 packets and an ACK.
    let rtt_us = 6.0 + (5.0 * 1048.0 + 60.0) * 8.0 / 100e3 + 2.0 * 1048.0 * 8.0 / 100e3;
    let predicted = 1_000_000.0 / 5_000.0 * rtt_us;
    let ratio = fct(&small) / predicted;
    assert!((0.9..1.1).contains(&ratio), "5 KB window: {:.1} us, predicted {predicted:.1} us", fct(&small));
    assert_drained(&small);
}

/// HPCC keeps the bottleneck busy with a near-empty queue, where DCQCN (same run, same
/// flows) needs a standing queue around its ECN threshold. Four 100 Gb/s senders share a
/// 100 Gb/s bottleneck; utilisation and mean queue are measured over [1, 3] ms.
#[test]
fn hpcc_keeps_utilisation_high_and_queues_short() {
    let measure = |cc: &str| {
        let mut s = sim(&format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 4\nright_hosts = 1\n\
             [transport]\ncc = \"{cc}\"\n\
             [workload]\nkind = \"flows\"\nflows = [{}]\n",
            (0..4)
                .map(|i| format!("{{ src = {i}, dst = 4, size = \"100MB\" }}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        // Left switch (node 5), port 4: the bottleneck towards the right switch.
        let (node, port) = (NodeId(5), 4);
        s.run_until(SimTime(1_000 * PS_PER_US));
        let bytes0 = s.port_stats(node, port).tx_bytes;
        let mut queue_sum = 0u64;
        let samples = 200;
        for k in 1..=samples {
            s.run_until(SimTime((1_000 + 10 * k) * PS_PER_US));
            queue_sum += s.port_backlog_bytes(node, port);
        }
        let bytes1 = s.port_stats(node, port).tx_bytes;
        let utilisation = (bytes1 - bytes0) as f64 * 8.0 / (100e9 * 2e-3);
        (utilisation, queue_sum as f64 / samples as f64)
    };
    let (u_hpcc, q_hpcc) = measure("hpcc");
    let (u_dcqcn, q_dcqcn) = measure("dcqcn");
    eprintln!("HPCC: utilisation {u_hpcc:.3}, mean queue {:.1} KB", q_hpcc / 1e3);
    eprintln!("DCQCN: utilisation {u_dcqcn:.3}, mean queue {:.1} KB", q_dcqcn / 1e3);
    assert!(u_hpcc >= 0.90, "HPCC utilisation {u_hpcc:.3}");
    assert!(q_hpcc * 5.0 < q_dcqcn, "HPCC queue {q_hpcc:.0} B vs DCQCN {q_dcqcn:.0} B");
}

/// DCTCP (rate form) with step marking at K: a flow at line rate is joined by a second;
/// within a few ms both get within 10 % of the fair share (goodput over a 1 ms window).
/// DCTCP's AIMD with a common marking signal converges to equal rates (DCTCP paper §3.3):
/// both flows see the same marked fraction, so their cuts are proportional to their rates.
#[test]
fn dctcp_converges_to_fair_share() {
    let ecn = "[switch.ecn]
kmin = \"100KB\"
kmax = \"100KB\"
pmax = 1.0";
    let mut s = sim(&late_joiner("dctcp", "200MB", ecn));
    assert_fair_goodputs("DCTCP", &mut s, 4_500, 5_500);
}

/// TIMELY: a flow at line rate is joined by a second. Both see the same RTT samples, so
/// after the join's overshoot they move in lockstep (equal additive steps, proportional
/// decreases) and their ratio goes to 1; the shared rate keeps cycling through TIMELY's
/// gradient region (which has no unique fixed point: Zhu et al., CoNEXT 2016), so each
/// flow's goodput is measured over 10 ms ([20, 30] ms) and must be within 10 % of the fair
/// share, and the two within 3 % of each other.
#[test]
fn timely_converges_to_fair_share() {
    let mut s = sim(&late_joiner("timely", "400MB", ""));
    let (r0, r1) = assert_fair_goodputs("TIMELY", &mut s, 20_000, 30_000);
    assert!((r0 / r1 - 1.0).abs() <= 0.03, "goodputs {r0:.2} and {r1:.2} Gb/s");
}

/// IRN without PFC recovers every loss of a 32-to-1 incast into a small buffer: every flow
/// finishes and every packet sent is delivered or counted as dropped. Go-back-N recovers
/// too, but resends whole windows: more retransmitted bytes than IRN's selective repair.
/// Both run with a BDP window (IRN's BDP-FC, §3.2) and fixed-rate senders.
#[test]
fn irn_recovers_losses_with_fewer_retransmissions_than_go_back_n() {
    let scenario = |recovery: &str| {
        INCAST_32
            .replace("buffer_bytes = \"2MB\"", "buffer_bytes = \"500KB\"\n[switch.pfc]\nenabled = false")
            .replace(
                "cc = \"none\"",
                &format!("cc = \"none\"\nwindow = \"bdp\"\nloss_recovery = \"{recovery}\""),
            )
    };
    let irn = run(&scenario("irn"));
    let gbn = run(&scenario("go_back_n"));
    for s in [&irn, &gbn] {
        assert!(s.summary().drops.total() > 0, "the buffer overflows");
        assert_drained(s);
    }
    let (r_irn, r_gbn) = (irn.summary().retransmitted_bytes, gbn.summary().retransmitted_bytes);
    eprintln!("retransmitted bytes: IRN {r_irn}, go-back-N {r_gbn}");
    assert!(r_irn < r_gbn, "IRN {r_irn} vs go-back-N {r_gbn}");
}

/// Congestion control per host group: flows take the CC of their source's group, the rest
/// the scenario's default, in one run; a group naming a switch is refused.
#[test]
fn congestion_control_per_host_group() {
    let toml = r#"
        [topology]
        kind = "dumbbell"
        left_hosts = 3
        right_hosts = 1
        [transport]
        cc = "dcqcn"
        [[transport.groups]]
        hosts = [0]
        cc = "hpcc"
        [[transport.groups]]
        hosts = [1]
        cc = "timely"
        [workload]
        kind = "flows"
        flows = [{ src = 0, dst = 3, size = "2MB" }, { src = 1, dst = 3, size = "2MB" }, { src = 2, dst = 3, size = "2MB" }]
    "#;
    let s = run(toml);
    let ccs: Vec<&str> = s.flow_records().iter().map(|r| r.cc).collect();
    assert_eq!(ccs, ["hpcc", "timely", "dcqcn"]);
    assert_drained(&s);
    let bad = toml.replace("hosts = [1]", "hosts = [4]");
    let e = hopsim_core::Simulator::new(hopsim_core::Scenario::from_toml_str(&bad).unwrap()).err().unwrap();
    assert_eq!(e.to_string(), "transport.groups[1].hosts: node 4 is not a host");
}

/// Classification of a hand-built case: a 4-to-1 incast (congested), a victim sharing the
/// incast senders' uplink while they are active (vulnerable), a flow on the same uplink
/// after the incast is over and a flow on the other side of the fabric (background).
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
}
