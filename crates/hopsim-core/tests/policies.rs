//! The switch pipeline's policies, each shown by its defining behaviour: per-flow flow
//! control frees a victim from HOL blocking, DIBS turns drops into detours; ACKs in the
//! data queues, per-switch random streams, link failures, determinism and the errors of
//! bad policy parameters. (Load balancers: `load_balance.rs`.)

mod common;

use common::{assert_drained, fct_us, incast_with_victim, run, sim, victim_fct};
use hopsim_core::ids::NodeId;
use hopsim_core::metrics::FlowRecord;
use hopsim_core::{Scenario, Simulator};

/// Per-flow flow control: the incast flows are paused one by one, hop by hop back to their
/// NICs, while the victim's own queues keep sending — it finishes within 10 % of its solo
/// FCT, where under PFC it is at least 1.3× slower. Nothing is dropped.
#[test]
fn per_flow_flow_control_frees_the_victim_that_pfc_blocks() {
    let solo = victim_fct(&run(&incast_with_victim("kind = \"per_flow\"", false)));
    let per_flow = run(&incast_with_victim("kind = \"per_flow\"", true));
    let pfc = run(&incast_with_victim("kind = \"pfc\"", true));
    let (t_per_flow, t_pfc) = (victim_fct(&per_flow), victim_fct(&pfc));
    eprintln!("victim FCT: solo {solo:.1} us, per-flow {t_per_flow:.1} us, PFC {t_pfc:.1} us");
    assert!(t_per_flow <= 1.10 * solo, "per-flow: {t_per_flow:.1} us vs solo {solo:.1} us");
    assert!(t_pfc >= 1.3 * solo, "PFC: {t_pfc:.1} us vs solo {solo:.1} us");
    for s in [&per_flow, &pfc] {
        assert_eq!(s.summary().drops.total(), 0);
        assert_drained(s);
    }
    let sum = per_flow.summary();
    assert!(sum.frames_sent("flow_pause") > 0, "incast flows were paused");
    assert_eq!(sum.pfc_pause_frames, 0);
    assert_eq!(
        sum.frames_sent("flow_pause"),
        sum.frames_received("flow_pause"),
        "every frame crossed its link"
    );
    // The NICs of the incast senders were told to stop their flows.
    assert!((0..4).any(|h| per_flow.port_stats(NodeId(h), 0).pause_received > 0));
    assert_eq!(per_flow.port_stats(NodeId(4), 0).pause_received, 0, "the victim's NIC never was");
    assert_eq!(per_flow.per_flow_entries(), Some(0), "every per-flow queue was given back");
}

/// A 64-to-1 incast of 40 KB flows into a ToR with 100 KB of buffer per port and no PFC.
/// IRN recovers losses selectively: deflected packets arrive out of order, which would make
/// go-back-N resend whole windows (DIBS pairs with transports that tolerate reordering).
fn incast_64(deflection: &str) -> String {
    format!(
        "[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 9\nhosts_per_leaf = 8\n\
         [switch]\nbuffer_bytes = \"4MB\"\n[switch.flow_control]\nkind = \"none\"\n\
         [switch.admission]\nkind = \"static_per_port\"\nbytes = \"100KB\"\n\
         [switch.deflection]\nkind = \"{deflection}\"\n\
         [transport]\ncc = \"none\"\nloss_recovery = \"irn\"\n\
         [workload]\nkind = \"incast\"\nreceiver = 0\nfan_in = 64\nsenders = [{}]\n\
         size_min = \"40KB\"\nsize_max = \"40KB\"\nperiod = \"10ms\"\nstop = \"1us\"\n",
        (8..72).map(|h| h.to_string()).collect::<Vec<_>>().join(", ")
    )
}

/// DIBS: the packets drop-tail throws away at the full ToR port are detoured through the
/// spines instead; far fewer drops, and the incast finishes sooner.
#[test]
fn dibs_deflects_what_drop_tail_drops() {
    let drop_tail = run(&incast_64("none"));
    let dibs = run(&incast_64("dibs"));
    let (a, b) = (drop_tail.summary(), dibs.summary());
    let last = |s: &Simulator| s.flow_records().iter().map(fct_us).fold(0.0, f64::max);
    eprintln!(
        "drops: drop-tail {} / DIBS {} (deflections {}); incast done in {:.0} us / {:.0} us",
        a.drops.total(),
        b.drops.total(),
        b.deflections,
        last(&drop_tail),
        last(&dibs)
    );
    assert!(a.drops.total() > 0 && a.deflections == 0);
    assert!(b.drops.total() * 10 <= a.drops.total(), "DIBS drops {} vs {}", b.drops.total(), a.drops.total());
    assert!(b.timeouts < a.timeouts, "timeouts: DIBS {} vs drop-tail {}", b.timeouts, a.timeouts);
    assert!(b.deflections > 0);
    assert!(last(&dibs) < last(&drop_tail));
    assert_drained(&dibs);
    // Deflections are counted where they happened: at the receiver's ToR port (leaf 0 is
    // node 72, port 0 faces host 0), and per flow.
    assert!(dibs.port_stats(NodeId(72), 0).deflections > 0);
    let per_flow: u64 = dibs.flow_records().iter().map(|r| r.deflections as u64).sum();
    assert_eq!(per_flow, b.deflections);
}

/// The naive variant does not filter full ports, so more of its detours fail.
#[test]
fn naive_deflection_drops_more_than_dibs() {
    let naive = run(&incast_64("dibs_naive")).summary();
    let dibs = run(&incast_64("dibs")).summary();
    assert!(naive.deflections > 0);
    assert!(
        naive.drops.total() > dibs.drops.total(),
        "naive {} vs DIBS {}",
        naive.drops.total(),
        dibs.drops.total()
    );
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
        ("[switch.flow_control]\nkind = \"pfc\"\n[switch.pfc]\nenabled = false", "switch.pfc.enabled:"),
        ("[routing]\nload_balancer = \"drill\"\n[routing.drill]\nsamples = 0", "routing.drill.samples:"),
        ("[routing.drill]\nsamples = 2", "routing.drill:"),
        ("[routing]\nload_balancer = \"conga\"", "routing.load_balancer:"),
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

/// ACKs queued with data can be dropped by a lossy switch (here ACKs to host 4 queue
/// behind an incast into it). A flow whose final ACK was lost still finishes: the receiver
/// acknowledges the duplicates the sender's timeout resends.
#[test]
fn flows_finish_when_acks_are_dropped() {
    let s = run(r#"
        duration = "100ms"
        [topology]
        kind = "fat_tree"
        k = 4
        [switch]
        buffer_bytes = "2MB"
        ack_queue = "data"
        [switch.pfc]
        enabled = false
        [switch.admission]
        kind = "static_per_port"
        bytes = "30KB"
        [transport]
        rto = "200us"
        [[workload]]
        kind = "incast"
        receiver = 0
        fan_in = 12
        senders = [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
        size_min = "50KB"
        size_max = "50KB"
        period = "50us"
        stop = "400us"
        # A second incast into one of the senders: its ACKs from host 0 queue behind it.
        [[workload]]
        kind = "incast"
        receiver = 4
        fan_in = 8
        senders = [8, 9, 10, 11, 12, 13, 14, 15]
        size_min = "200KB"
        size_max = "200KB"
        period = "100us"
        stop = "400us"
    "#);
    let sum = s.summary();
    assert!(sum.control_drops > 0, "some ACKs were dropped");
    assert!(sum.drops.total() > 0);
    assert_drained(&s);
}

/// IRN behind PFC: a 100 µs RTO_low fires while packets wait out PAUSEs, with nothing lost
/// (every retransmission spurious). Under lossless flow control IRN's timeouts therefore
/// default to `transport.rto`; given explicitly, they are used as given.
#[test]
fn irn_behind_pfc_does_not_time_out_spuriously() {
    let scenario = |irn: &str| {
        format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 16\nright_hosts = 1\n\
             [transport]\ncc = \"none\"\nloss_recovery = \"irn\"\n{irn}\n\
             [workload]\nkind = \"incast\"\nreceiver = 16\nfan_in = 16\nsize_min = \"2KB\"\nsize_max = \"500KB\"\n\
             period = \"20us\"\nstop = \"400us\"\n"
        )
    };
    let auto = run(&scenario("")).summary();
    let paper = run(&scenario("[transport.irn]\nrto_low = \"100us\"\nrto_high = \"320us\"")).summary();
    assert_eq!(auto.drops.total(), 0);
    assert_eq!(paper.drops.total(), 0);
    assert_eq!((auto.timeouts, auto.retransmitted_bytes), (0, 0));
    assert!(paper.timeouts > 0 && paper.retransmitted_bytes > 0, "{} timeouts", paper.timeouts);
}
