//! Behaviour of the substrate — engine, fabric, topology, determinism: a lone flow meets
//! its analytic FCT and long flows share a bottleneck fairly (no congestion control);
//! packets are conserved; INT records every hop; running in slices equals one run; ACKs
//! share the data queues unless told otherwise; a random draw at one switch never shifts
//! another's; a failed link is routed around; runs are deterministic by seed, under every
//! policy; bad policy parameters are refused with the field's path.

mod common;

use common::{assert_drained, fct_us, run, sim};
use hopsim_core::ids::{FlowId, NodeId};
use hopsim_core::metrics::FlowRecord;
use hopsim_core::time::{Rate, SimTime, PS_PER_US};
use hopsim_core::{Scenario, Simulator};

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
    // The packet store uses a slot per packet of its busiest moment (freed slots are reused
    // before a new one is taken), and reports only those.
    let m = s.memory_report();
    assert!(m.peak_packets_in_flight > 0);
    let slot = hopsim_core::fabric::store::PacketStore::SLOT_BYTES as u64;
    assert_eq!(m.packet_store_bytes, m.peak_packets_in_flight * slot);
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

/// Phase-1 behaviour kept as an option: with `ack_queue = "control"` ACKs never enter a
/// data queue; with `"data"` (the default, as RoCEv2 and the ns-3 RDMA simulator) they
/// do, and are traced as enqueued at every switch.
#[test]
fn acks_share_the_data_queues_unless_told_otherwise() {
    let scenario = |ack_queue: &str| {
        format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
             [switch]\nack_queue = \"{ack_queue}\"\n[output.packet_trace]\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"10KB\" }}]\n"
        )
    };
    use hopsim_core::fabric::packet::PacketKind;
    use hopsim_core::observe::PacketEvent;
    let acks_enqueued = |s: &Simulator| {
        s.packet_records()
            .iter()
            .filter(|r| r.event == PacketEvent::Enqueue && r.kind == PacketKind::Ack)
            .count()
    };
    let data = run(&scenario("data"));
    let control = run(&scenario("control"));
    assert_eq!(acks_enqueued(&data), 10 * 2, "each of 10 ACKs queued at both switches");
    assert_eq!(acks_enqueued(&control), 0);
    for s in [&data, &control] {
        assert_drained(s);
    }
}

/// Per-switch random streams: ECN draws at one switch never shift another's. Two incasts,
/// one behind each switch of a dumbbell, never share a link; making the left one larger
/// changes nothing on the right — unless every switch draws from one shared stream.
#[test]
fn a_draw_at_one_switch_never_shifts_another() {
    let scenario = |left_size: &str, stream: &str| {
        format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 3\nright_hosts = 3\n\
             [switch.ecn]\nkmin = \"5KB\"\nkmax = \"400KB\"\npmax = 0.2\nrandom_stream = \"{stream}\"\n\
             [transport.dcqcn]\ncnp_interval = \"0us\"\n\
             [workload]\nkind = \"flows\"\nflows = [\
             {{ src = 0, dst = 2, size = \"{left_size}\" }}, {{ src = 1, dst = 2, size = \"{left_size}\" }}, \
             {{ src = 3, dst = 5, size = \"4MB\", tag = \"right\" }}, {{ src = 4, dst = 5, size = \"4MB\", tag = \"right\" }}]\n"
        )
    };
    let right = |s: &Simulator| -> Vec<(u32, Option<u64>, u32)> {
        s.flow_records()
            .iter()
            .filter(|r| r.tag == "right")
            .map(|r| (r.flow_id, r.finish.map(|t| t.0), r.cnps_received))
            .collect()
    };
    let a = run(&scenario("1MB", "per_switch"));
    let b = run(&scenario("3MB", "per_switch"));
    assert!(right(&a).iter().all(|r| r.2 > 0), "the right incast is marked: {:?}", right(&a));
    assert_eq!(right(&a), right(&b), "the right switch's draws do not depend on the left's");
    let shared_a = run(&scenario("1MB", "shared"));
    let shared_b = run(&scenario("3MB", "shared"));
    assert_ne!(right(&shared_a), right(&shared_b), "one shared stream couples the switches");
}

/// A leaf-spine link fails mid-run: what was queued for it or on its wire is dropped and
/// counted, routing moves to the other spines, every flow still finishes (go-back-N
/// recovers the losses) and nothing is sent on the dead link until it comes back.
#[test]
fn a_failed_link_is_routed_around_and_its_losses_counted() {
    let scenario = |fault: &str| {
        let flows: Vec<String> =
            (0..4).map(|i| format!("{{ src = {i}, dst = {}, size = \"2MB\" }}", 4 + i)).collect();
        format!(
            "[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 2\nhosts_per_leaf = 4\n\
             [transport]\ncc = \"none\"\nrto = \"200us\"\n{fault}\n\
             [workload]\nkind = \"flows\"\nflows = [{}]\n",
            flows.join(", ")
        )
    };
    // Leaf 0 is node 8, spines 10 and 11; leaf 0's port 4 faces spine 10.
    let mut s = sim(&scenario("[[faults]]\nlink = [8, 10]\ndown = \"30us\""));
    s.run_until(hopsim_core::time::SimTime(40 * hopsim_core::time::PS_PER_US));
    let sent_after_failure = s.port_stats(NodeId(8), 4).tx_packets;
    s.run();
    let sum = s.summary();
    assert_eq!(s.port_stats(NodeId(8), 4).tx_packets, sent_after_failure, "nothing sent on a dead link");
    assert!(sum.drops.link_down > 0, "packets queued for or on the link were lost");
    assert_drained(&s);
    // With the link back up, its port carries traffic again.
    let mut back = sim(&scenario("[[faults]]\nlink = [8, 10]\ndown = \"30us\"\nup = \"60us\""));
    back.run();
    assert!(back.port_stats(NodeId(8), 4).tx_packets > sent_after_failure);
    assert_drained(&back);
}

/// What is on a wire when its link fails is lost, not delivered: one flow at line rate over a
/// 20 µs link (about 250 kB in flight, a packet or two queued), which fails mid-run. Under
/// either tie order (the wire's packets are pending deliveries, or a link's list).
#[test]
fn packets_on_a_failing_wire_are_lost() {
    for ties in ["shuffled", "scheduled"] {
        packets_on_a_failing_wire_are_lost_with(ties);
    }
}

fn packets_on_a_failing_wire_are_lost_with(ties: &str) {
    let scenario = |fault: &str| {
        format!(
            "duration = \"200us\"\n[engine]\ntie_order = \"{ties}\"\n[topology]\nkind = \"leaf_spine\"\nspines = 1\nleaves = 2\n\
             hosts_per_leaf = 1\nhost_rate = \"100Gbps\"\nfabric_rate = \"100Gbps\"\nfabric_delay = \"20us\"\n\
             [transport]\ncc = \"none\"\n{fault}\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"10MB\" }}]\n"
        )
    };
    // Hosts 0 and 1, leaves 2 and 3, spine 4.
    let mut whole = sim(&scenario(""));
    whole.run();
    assert_eq!(whole.summary().drops.total(), 0);
    let mut failed = sim(&scenario("[[faults]]\nlink = [2, 4]\ndown = \"100us\""));
    failed.run();
    let lost = failed.summary().drops.link_down;
    assert!(lost >= 200, "{lost} packets lost under {ties} ties: the wire held about 250");
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

/// Same scenario and seed: identical flow tables, for every new policy; another seed
/// differs.
#[test]
fn every_policy_is_deterministic_by_seed() {
    let base = |seed: u64, extra: &str| {
        format!(
            "seed = {seed}\n[topology]\nkind = \"fat_tree\"\nk = 4\n{extra}\n\
             [workload]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = 0.6\nstop = \"150us\"\n"
        )
    };
    let table = |text: String| -> Vec<String> {
        run(&text)
            .flow_records()
            .iter()
            .map(|r: &FlowRecord| format!("{:?}", (r.flow_id, r.finish, r.deflections)))
            .collect()
    };
    for extra in [
        "[routing]\nload_balancer = \"drill\"",
        "[switch.flow_control]\nkind = \"per_flow\"",
        "[switch]\nbuffer_bytes=\"2MB\"\n[switch.flow_control]\nkind = \"none\"\n[switch.admission]\nkind = \"static_per_port\"\nbytes = \"30KB\"\n[switch.deflection]\nkind = \"dibs\"",
    ] {
        let a = table(base(5, extra));
        assert!(!a.is_empty());
        assert_eq!(a, table(base(5, extra)), "{extra}");
        assert_ne!(a, table(base(6, extra)), "{extra}");
    }
}

/// Bad policy parameters are refused with the field's path.
#[test]
fn bad_policy_parameters_name_the_field() {
    let base = "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
                [workload]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = 1000 }]\n";
    let err = |extra: &str| -> String {
        let text = format!("{base}{extra}");
        match Scenario::from_toml_str(&text) {
            Err(e) => e.to_string(),
            Ok(s) => Simulator::new(s).err().map(|e| e.to_string()).unwrap_or_default(),
        }
    };
    for (extra, expect) in [
        ("[switch.flow_control]\nkind = \"credit\"", "switch.flow_control.kind: unknown kind \"credit\""),
        ("[switch.flow_control]\nkind = \"per_flow\"\nxoff = 0", "switch.flow_control.xoff:"),
        ("[switch.flow_control]\nkind = \"per_flow\"\nxon = 3", "switch.flow_control.xon:"),
        ("[switch.flow_control]\nkind = \"none\"\nalpha = 1", "switch.flow_control.alpha: unknown field"),
        // PFC asked for by name beside another flow control (enabled = false beside kind =
        // "pfc" turns PFC off: scenario::tests).
        (
            "[switch.flow_control]\nkind = \"none\"\n[switch.pfc]\nenabled = true",
            "switch.pfc.enabled: true asks",
        ),
        ("[routing]\nload_balancer = \"drill\"\n[routing.drill]\nsamples = 0", "routing.drill.samples:"),
        ("[routing.drill]\nsamples = 2", "routing.drill:"),
        ("[routing]\nload_balancer = \"no_such_balancer\"", "routing.load_balancer:"),
        ("[switch.deflection]\nkind = \"dibs\"", "switch.deflection.kind: deflection acts on packets"),
        (
            "[switch.flow_control]\nkind = \"none\"\n[switch.deflection]\nkind = \"dibs\"\nhop_limit = 0",
            "switch.deflection.hop_limit:",
        ),
        ("[switch]\nack_queue = \"high\"", "switch.ack_queue:"),
        ("[switch.ecn]\nrandom_stream = \"global\"", "switch.ecn.random_stream:"),
        ("[[faults]]\nlink = [0, 1]\ndown = \"1us\"", "faults[0].link: nodes 0 and 1 are not linked"),
        ("[[faults]]\nlink = [0, 2]\nindex = 1\ndown = \"1us\"", "faults[0].index:"),
        ("[[faults]]\nlink = [0, 2]\ndown = \"5us\"\nup = \"2us\"", "faults[0].up:"),
        ("[[faults]]\nlink = [0, 99]\ndown = \"5us\"", "faults[0].link:"),
    ] {
        let e = err(extra);
        assert!(e.starts_with(expect), "{extra:?}: got {e:?}, expected it to start with {expect:?}");
    }
}

/// Lossless means lossless (issue: ACKs dropped under PFC). Random incast + background mixes
/// on fat-trees and leaf-spines with PFC on and buffers of at least 2 MB lose nothing — data,
/// ACK, NACK or CNP — whatever the congestion control, MTU or ACK class. Before NICs held
/// ACKs whose class was paused, seed 4 of the first mix lost 90 ACKs (1,554 over 2 ms) at one ToR's
/// headroom with no data loss at all.
#[test]
fn pfc_loses_nothing_data_acks_nacks_or_cnps() {
    // A small deterministic generator for the cases (splitmix64).
    let mut state = 0x5eed_u64;
    let mut next = |n: u64| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    };
    let first = "[topology]\nkind = \"fat_tree\"\nk = 4\n[switch]\nbuffer_bytes = \"2MB\"\n\
                 [transport]\ncc = \"dcqcn\"\nmtu = 1000\n"
        .to_string();
    let mut cases = vec![(4, first.clone(), 8, 256, 200, 0.3)];
    for _ in 0..15 {
        let topo = if next(2) == 0 {
            "kind = \"fat_tree\"\nk = 4".to_string()
        } else {
            "kind = \"leaf_spine\"\nspines = 2\nleaves = 4\nhosts_per_leaf = 6\nfabric_rate = \"100Gbps\""
                .to_string()
        };
        let cc = ["dcqcn", "hpcc", "dctcp", "timely", "none"][next(5) as usize];
        let head = format!(
            "[topology]\n{topo}\n[switch]\nbuffer_bytes = \"{}MB\"\nack_queue = \"{}\"\n\
             [transport]\ncc = \"{cc}\"\nmtu = {}\n",
            [2, 4, 12][next(3) as usize],
            ["data", "data", "control"][next(3) as usize],
            [1000, 1500][next(2) as usize]
        );
        let load = [0.2, 0.3, 0.5][next(3) as usize];
        cases.push((1 + next(1000), head, 4 + next(11), 64 << next(4), 100 + 50 * next(5), load));
    }
    let mut paused = 0;
    for (seed, head, fan_in, kb, period, load) in cases {
        let toml = format!(
            "seed = {seed}\n{head}[switch.pfc]\nenabled = true\n\
             [[workload]]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = {load}\nstop = \"1ms\"\n\
             [[workload]]\nkind = \"incast\"\nreceiver = 0\nfan_in = {fan_in}\nsize_min = \"{kb}KB\"\n\
             size_max = \"{kb}KB\"\nperiod = \"{period}us\"\nstop = \"1ms\"\n"
        );
        let s = run(&toml);
        let sum = s.summary();
        assert_eq!(
            (sum.drops.total(), sum.control_drops),
            (0, 0),
            "data and control packets lost under PFC:\n{toml}"
        );
        paused += (sum.pfc_pause_frames > 0) as usize;
        assert_drained(&s);
    }
    assert!(paused >= 12, "only {paused} of 16 cases paused: the mixes test little");
}
