//! Admission and deflection, each policy shown by its defining behaviour: DIBS turns the
//! drops of drop-tail into detours (its naive variant, which does not leave out full ports,
//! drops more); Vertigo takes the queued packets with the most remaining bytes out and
//! deflects them; every deflection policy (DIBS, Simple and Preemptive Deflection,
//! Vertigo) is deterministic by seed under TCP. (Each policy's own decisions, AIFO's
//! admission among them: the unit tests in `src/switch/admission/`.)

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
/// bytes — the long flow's, which are deflected — so the short flow loses nothing and is
/// never deflected.
#[test]
fn vertigo_extracts_the_packets_with_the_most_remaining_bytes() {
    let flows = "{ src = 0, dst = 2, size = \"4MB\", tag = \"long\" }, \
                 { src = 1, dst = 2, size = \"30KB\", start = \"800us\", tag = \"short\" }";
    // SRPT queues reorder a flow's own packets (its later ones rank lower): Vertigo runs
    // with the ordering layer at the receivers.
    let layer = "[transport.tcp]\nreorder_timeout = \"360us\"\n";
    let vertigo = format!("{layer}[switch.deflection]\nkind = \"vertigo\"");
    let s = run(&tcp_dumbbell(2, "100Gbps", "10Gbps", "60KB", "reno", flows, &vertigo));
    assert_drained(&s);
    let r = records(&s);
    let (long, short) = (&r[0], &r[1]);
    assert!(long.deflections > 0, "the long flow's packets are taken out and deflected");
    assert_eq!(short.deflections, 0, "the short flow's never are");
    assert_eq!(short.retransmitted_bytes, 0, "nor lost");
}

/// The same scenario and seed give the same flows, under every TCP congestion control
/// and deflection policy.
#[test]
fn tcp_and_deflection_runs_are_deterministic() {
    for (cc, deflection) in
        [("reno", "dibs"), ("dctcp", "preemptive"), ("swift", "vertigo"), ("bolt", "simple")]
    {
        let toml = tcp_incast_leaf_spine(cc, deflection, "");
        let a = run(&toml);
        let b = run(&toml);
        assert_eq!(a.summary().events, b.summary().events, "{cc} {deflection}");
        let fa: Vec<_> =
            a.flow_records().iter().map(|r| (r.finish, r.retransmitted_bytes, r.deflections)).collect();
        let fb: Vec<_> =
            b.flow_records().iter().map(|r| (r.finish, r.retransmitted_bytes, r.deflections)).collect();
        assert_eq!(fa, fb, "{cc} {deflection}");
    }
}
