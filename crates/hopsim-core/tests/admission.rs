//! Admission and deflection, each policy shown by its defining behaviour: DIBS turns the
//! drops of drop-tail into detours (its naive variant, which does not leave out full ports,
//! drops more); Vertigo takes the queued packets with the most remaining bytes out and
//! deflects them; every deflection policy (DIBS, Simple and Preemptive Deflection,
//! Vertigo) is deterministic by seed under TCP. Vertigo's surgery should keep a port within
//! its buffer rule; it does not yet (an ignored test says how). (Each policy's own
//! decisions, AIFO's admission among them: the unit tests in `src/switch/admission/`.)

mod common;

use common::{assert_drained, fct_us, records, run, tcp_dumbbell, tcp_incast_leaf_spine};
use hopsim_core::ids::NodeId;
use hopsim_core::Simulator;

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

/// Vertigo: a long flow keeps the bottleneck queue full; a short flow's packets, with
/// fewer remaining bytes, take the places of the queued packets with the most remaining
/// bytes — the long flow's, which are taken out — so the short flow loses nothing and is
/// never deflected. The short flow starts when the long flow alone has filled the 60 KB
/// queue (found from a run of the long flow with queue samples, after 500 µs): under Vertigo
/// a long-flow packet is taken out at the very instant a short-flow packet joins the full
/// queue, and every packet deflected or dropped is the long flow's. The control run,
/// drop-tail in the same scenario (ordering layer and all, the short flow starting when that
/// run's queue is full), drops short-flow packets at the full queue and finishes the short
/// flow later.
#[test]
fn vertigo_extracts_the_packets_with_the_most_remaining_bytes() {
    use hopsim_core::observe::PacketEvent;
    let long = "{ src = 0, dst = 2, size = \"4MB\", tag = \"long\" }";
    // When the long flow alone (under the same policy) first holds the bottleneck port
    // within a packet of full, after 500 µs; the short flow starts then.
    let bottleneck = NodeId(3);
    let with_short = |extra: &str| -> (String, u64) {
        let alone = run(&tcp_dumbbell(
            2,
            "100Gbps",
            "10Gbps",
            "60KB",
            "reno",
            long,
            &format!("{extra}\n[output.queues]\ninterval = \"1us\""),
        ));
        let port = alone.port_id(bottleneck, 2);
        let full = alone
            .queue_samples()
            .iter()
            .find(|q| q.port == port && q.time.0 >= 500_000_000 && q.bytes >= 58_500)
            .map(|q| q.time.0 / 1_000_000)
            .expect("the long flow fills the queue");
        let flows =
            format!("{long}, {{ src = 1, dst = 2, size = \"30KB\", start = \"{full}us\", tag = \"short\" }}");
        (flows, full)
    };
    // SRPT queues reorder a flow's own packets (its later ones rank lower): Vertigo runs
    // with the ordering layer at the receivers.
    let layer =
        "[transport.tcp]\nreorder_timeout = \"360us\"\n[output.packet_trace]\nmax_records = 1000000\n";
    let vertigo = format!("{layer}[switch.deflection]\nkind = \"vertigo\"");
    let (flows, full) = with_short(&vertigo);
    let s = run(&tcp_dumbbell(2, "100Gbps", "10Gbps", "60KB", "reno", &flows, &vertigo));
    assert_drained(&s);
    let r = records(&s);
    let (long, short) = (&r[0], &r[1]);
    assert!(long.deflections > 0, "the long flow's packets are taken out and deflected");
    assert_eq!(short.deflections, 0, "the short flow's never are");
    assert_eq!(short.retransmitted_bytes, 0, "nor lost");
    // The left switch's port onto the bottleneck: short-flow packets joining it when a
    // long-flow packet is taken out at the same instant (and deflected; on a dumbbell the
    // only other switch-facing port is that same full port, so the packet taken out then
    // meets a full queue and is dropped).
    let bottleneck = s.port_id(bottleneck, 2);
    let trace = s.packet_records();
    let taken_out: std::collections::BTreeSet<u64> = trace
        .iter()
        .filter(|e| matches!(e.event, PacketEvent::Deflect | PacketEvent::Drop) && e.flow == 0)
        .map(|e| e.time.0)
        .collect();
    let made_room = trace
        .iter()
        .filter(|e| e.event == PacketEvent::Enqueue && e.flow == 1 && e.port == bottleneck)
        .filter(|e| taken_out.contains(&e.time.0))
        .count();
    let victims = |s: &Simulator, flow: u32| {
        s.packet_records()
            .iter()
            .filter(|e| matches!(e.event, PacketEvent::Deflect | PacketEvent::Drop) && e.flow == flow)
            .count()
    };
    let (control_flows, control_full) = with_short(layer);
    let control = run(&tcp_dumbbell(2, "100Gbps", "10Gbps", "60KB", "reno", &control_flows, layer));
    assert_drained(&control);
    let c = records(&control);
    eprintln!(
        "Vertigo (short flow from {full} us): short flow {:.1} us, {} B resent; {} of its packets \
         made room; long flow {} deflections. Drop-tail (short flow from {control_full} us): short \
         flow {:.1} us, {} B resent ({} packets dropped)",
        fct_us(short),
        short.retransmitted_bytes,
        made_room,
        long.deflections,
        fct_us(&c[1]),
        c[1].retransmitted_bytes,
        victims(&control, 1),
    );
    assert!(made_room > 0, "short-flow packets took the places of long-flow packets");
    assert_eq!(victims(&s, 1), 0, "no short-flow packet deflected or dropped");
    assert_eq!(control.summary().deflections, 0);
    assert!(
        victims(&control, 1) > 0 && c[1].retransmitted_bytes > 0,
        "drop-tail drops the short flow's packets"
    );
    assert!(fct_us(short) < fct_us(&c[1]), "Vertigo finishes the short flow sooner");
}

/// Vertigo's surgery keeps a port within its buffer rule, as drop-tail does: a lone long
/// flow into a 60 KB port never makes it hold more than 60 KB.
#[test]
fn vertigo_keeps_each_port_within_its_buffer_limit() {
    let flow = "{ src = 0, dst = 1, size = \"4MB\" }";
    let layer = "[transport.tcp]\nreorder_timeout = \"360us\"\n";
    let held = |extra: &str| {
        let s = run(&tcp_dumbbell(1, "100Gbps", "10Gbps", "60KB", "reno", flow, extra));
        assert_drained(&s);
        s.port_stats(NodeId(2), 1).max_queue_bytes // the left switch's port onto the bottleneck
    };
    let drop_tail = held(layer);
    let vertigo = held(&format!("{layer}[switch.deflection]\nkind = \"vertigo\""));
    eprintln!("most bytes queued at the 60 KB port: drop-tail {drop_tail} B, Vertigo {vertigo} B");
    assert!(drop_tail <= 60_000);
    assert!(vertigo <= 60_000, "Vertigo held {vertigo} B in a 60 KB port");
}

/// The same scenario and seed give the same flows, under every TCP congestion control
/// and deflection policy; another seed gives others. Every run deflects.
#[test]
fn tcp_and_deflection_runs_are_deterministic() {
    for (cc, deflection) in
        [("reno", "dibs"), ("dctcp", "preemptive"), ("swift", "vertigo"), ("bolt", "simple")]
    {
        let toml = tcp_incast_leaf_spine(cc, deflection, "");
        let a = run(&toml);
        let b = run(&toml);
        assert_eq!(a.summary().events, b.summary().events, "{cc} {deflection}");
        let flows = |s: &Simulator| -> Vec<_> {
            s.flow_records().iter().map(|r| (r.finish, r.retransmitted_bytes, r.deflections)).collect()
        };
        let (fa, fb) = (flows(&a), flows(&b));
        assert_eq!(fa, fb, "{cc} {deflection}");
        let other = run(&toml.replace("seed = 3\n", "seed = 4\n"));
        let (ea, eo) = (a.summary().events, other.summary().events);
        eprintln!(
            "{cc} + {deflection}: {} deflections, {ea} events; seed 4: {} deflections, {eo} events",
            a.summary().deflections,
            other.summary().deflections
        );
        assert!(a.summary().deflections > 0, "{cc} {deflection}: packets were deflected");
        assert_ne!(fa, flows(&other), "{cc} {deflection}: another seed differs");
    }
}
