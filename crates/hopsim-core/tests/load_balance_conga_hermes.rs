//! CONGA and Hermes, each shown by its defining behaviour on small leaf-spines: CONGA
//! places new flowlets by leaf-to-leaf congestion (local DREs and remote feedback, which
//! ages); Hermes moves a flow off a path that stays bad and not off one that spikes.

mod common;

use common::{assert_drained, refusal, run};
use hopsim_core::ids::NodeId;
use hopsim_core::Simulator;

fn reordered(s: &Simulator) -> u32 {
    s.flow_records().iter().map(|r| r.reordered_packets).sum()
}

fn counter(s: &Simulator, name: &str) -> u64 {
    s.summary().counter(name).unwrap_or_else(|| panic!("counter {name}"))
}

/// Bytes sent on ports `ports` of `node`.
fn tx(s: &Simulator, node: u32, ports: std::ops::Range<u32>) -> Vec<u64> {
    ports.map(|p| s.port_stats(NodeId(node), p).tx_bytes).collect()
}

/// Two spines, two leaves of four hosts (leaf 0 is node 8, its uplinks ports 4 and 5): an
/// elephant from host 0 fills one uplink from time 0; three short flows from the other
/// hosts of leaf 0 start later, one after another.
fn busy_uplink(seed: u64, load_balancer: &str) -> String {
    format!(
        "seed = {seed}\n[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 2\nhosts_per_leaf = 4\n\
         [routing]\nload_balancer = \"{load_balancer}\"\n[transport]\ncc = \"none\"\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 4, size = \"10MB\" }}, \
         {{ src = 1, dst = 5, size = \"200KB\", start = \"100us\" }}, \
         {{ src = 2, dst = 6, size = \"200KB\", start = \"200us\" }}, \
         {{ src = 3, dst = 7, size = \"200KB\", start = \"300us\" }}]\n"
    )
}

/// CONGA (§3.4): while the elephant's uplink has a high DRE metric and the other uplink is
/// idle, each new flowlet takes the idle uplink — for every seed (ECMP's hash puts some
/// of them on the busy one for most seeds). Nothing is reordered.
#[test]
fn conga_moves_new_flowlets_off_a_congested_uplink() {
    let mut ecmp_collisions = 0;
    for seed in 1..=6 {
        let conga = run(&busy_uplink(seed, "conga"));
        let up = tx(&conga, 8, 4..6);
        let (busy, idle) = (up.iter().max().copied().unwrap(), up.iter().min().copied().unwrap());
        eprintln!("seed {seed}: leaf 0 uplink bytes {up:?}");
        assert!(busy > 10_000_000, "the elephant's uplink: {up:?}");
        assert!(idle >= 600_000, "all three short flows on the idle uplink: {up:?}");
        assert!(busy < 10_000_000 * 105 / 100, "no short flow on the elephant's uplink: {up:?}");
        assert_eq!(reordered(&conga), 0);
        assert_eq!(counter(&conga, "conga_flowlets"), 4, "one flowlet per flow at leaf 0");
        assert_drained(&conga);
        let ecmp = tx(&run(&busy_uplink(seed, "ecmp")), 8, 4..6);
        ecmp_collisions += (ecmp.iter().min().copied().unwrap() < 600_000) as u32;
    }
    assert!(ecmp_collisions > 0, "ECMP, blind to load, puts a short flow beside the elephant");
}

/// Three leaves of two hosts, two spines (nodes 9, 10; a spine's port 1 faces leaf 1; leaf
/// 0 is node 6, its uplinks ports 2 and 3). An elephant from leaf 2 to leaf 1 fills one
/// spine's downlink to leaf 1 for its first ~1 ms; leaf 0 starts a 20 KB flow to leaf 1
/// every 50 µs for 3 ms. Leaf 0 cannot see that downlink: only feedback tells it.
fn remote_congestion(seed: u64, aging: &str) -> String {
    let flows: Vec<String> = (0..60)
        .map(|i| format!("{{ src = 0, dst = 2, size = \"20KB\", start = \"{}us\" }}", 20 + 50 * i))
        .collect();
    format!(
        "seed = {seed}\n[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 3\nhosts_per_leaf = 2\n\
         [routing]\nload_balancer = \"conga\"\n[routing.conga]\naging = \"{aging}\"\n\
         [transport]\ncc = \"none\"\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 4, dst = 3, size = \"12500KB\" }}, {}]\n",
        flows.join(", ")
    )
}

/// Leaf 0's bytes on its uplink towards the spine that carried the elephant, and on the
/// other.
fn toward_elephant(s: &Simulator) -> (u64, u64) {
    let down = [s.port_stats(NodeId(9), 1).tx_bytes, s.port_stats(NodeId(10), 1).tx_bytes];
    let e = if down[0] > down[1] { 0 } else { 1 };
    let up = tx(s, 6, 2..4);
    (up[e], up[1 - e])
}

/// CONGA's feedback (§3.2–3.3) and aging: leaf 0 learns from leaf 1's feedback that the
/// path through the elephant's spine is congested and keeps its flowlets off it; once the
/// elephant ends, the stale metric ages out (500 µs) and that path is used again. With an
/// aging far above the run's length the stale report is fed back forever and the path
/// stays shunned.
#[test]
fn conga_learns_remote_congestion_and_the_metric_ages() {
    for seed in [1, 2, 3] {
        let aged = run(&remote_congestion(seed, "500us"));
        let stale = run(&remote_congestion(seed, "1s"));
        let (a_on, a_off) = toward_elephant(&aged);
        let (s_on, s_off) = toward_elephant(&stale);
        eprintln!(
            "seed {seed}: leaf 0 bytes towards the elephant's spine / the other: aging 500us {a_on} / {a_off}, \
             1s {s_on} / {s_off}; feedback {}",
            counter(&aged, "conga_feedback")
        );
        let total = (a_on + a_off) as f64;
        // 60 flows of 20 KB; leaf 0 learns within its first flows; once the report is
        // older than the aging (at leaf 1, then at leaf 0) the path is tried again — and
        // after the elephant (about 1 ms) used by about half the flows (measured 18–23 %
        // of the bytes in all; 3 % with a stale report).
        assert!(a_on as f64 > 0.12 * total, "aged metric: the path is used again ({a_on} of {total})");
        assert!((s_on as f64) < 0.06 * total, "stale metric: the path stays shunned ({s_on} of {total})");
        assert!(counter(&aged, "conga_feedback") > 0);
        for s in [&aged, &stale] {
            assert_eq!(reordered(s), 0);
            assert_drained(s);
        }
    }
}

/// With `piggyback_on_control = false` (ConWeave's ns-3: feedback rides on data only) and
/// no data flowing back, leaf 0 never hears of the congested downlink: no feedback, and
/// more of its bytes cross the elephant's spine than when ACKs carry the feedback.
#[test]
fn conga_feedback_on_data_only_needs_reverse_data() {
    let text = remote_congestion(1, "1s").replace("aging = ", "piggyback_on_control = false\naging = ");
    let data_only = run(&text);
    let with_acks = run(&remote_congestion(1, "1s"));
    assert_eq!(counter(&data_only, "conga_feedback"), 0);
    let (blind, _) = toward_elephant(&data_only);
    let (informed, _) = toward_elephant(&with_acks);
    eprintln!("leaf 0 bytes via the elephant's spine: {blind} without feedback, {informed} with");
    assert!(blind > 4 * informed);
    assert_drained(&data_only);
}

/// CONGA and Hermes on a k = 4 fat-tree (three tiers): the source ToR chooses the uplink,
/// the aggregation switches ECMP; window-paced flows between pods finish in order, and
/// CONGA's ACKs bring feedback back.
#[test]
fn conga_and_hermes_run_on_three_tiers() {
    for lb in ["conga", "hermes"] {
        let text = format!(
            "seed = 3\n[topology]\nkind = \"fat_tree\"\nk = 4\ndelay = \"20us\"\n\
             [routing]\nload_balancer = \"{lb}\"\n\
             [transport]\ncc = \"none\"\nwindow = \"32KB\"\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 15, size = \"1MB\" }}, \
             {{ src = 1, dst = 14, size = \"1MB\" }}]\n"
        );
        let s = run(&text);
        assert_eq!(reordered(&s), 0, "{lb}");
        assert_drained(&s);
        if lb == "conga" {
            assert!(counter(&s, "conga_feedback") > 0);
            assert!(counter(&s, "conga_flowlets") > 2, "window-paced bursts are flowlets");
        } else {
            assert!(counter(&s, "hermes_rtt_samples") > 0);
            assert_eq!(counter(&s, "hermes_flows"), 2);
        }
    }
}

/// Same scenario and seed, same result; the tie-breaks come from the seed.
#[test]
fn conga_is_deterministic_by_seed() {
    let result = |seed: u64| {
        let s = run(&remote_congestion(seed, "500us"));
        (tx(&s, 6, 2..4), tx(&s, 8, 2..4), s.summary().counters)
    };
    assert_eq!(result(4), result(4));
    assert!((5..12).any(|seed| result(seed).0 != result(4).0), "other seeds break ties otherwise");
}

/// CONGA's table refuses values that would break it, naming the field.
#[test]
fn conga_parameters_name_the_field() {
    for (table, field) in [
        ("flowlet_timeout = \"0us\"", "routing.conga.flowlet_timeout:"),
        ("dre_period = \"0us\"", "routing.conga.dre_period:"),
        ("alpha = 0.0", "routing.conga.alpha:"),
        ("alpha = 1.0", "routing.conga.alpha:"),
        ("quantize_bits = 0", "routing.conga.quantize_bits:"),
        ("quantize_bits = 9", "routing.conga.quantize_bits:"),
        ("aging = \"50us\"", "routing.conga.aging:"),
        ("dre = \"1us\"", "routing.conga.dre: unknown field"),
    ] {
        let text =
            busy_uplink(1, "conga").replace("[transport]", &format!("[routing.conga]\n{table}\n[transport]"));
        let err = refusal(&text);
        assert!(err.starts_with(field), "{table:?}: {err}");
    }
}

/// Three leaves of two hosts, two spines, 10 G links (a spine's port 1 faces leaf 1; leaf 0
/// is node 6, its uplinks ports 2 and 3): an elephant from leaf 2 to leaf 1 shares one
/// spine's downlink to leaf 1 with a flow from leaf 0, if that flow lands on it.
fn shared_downlink(seed: u64, hermes: &str, victim: &str) -> String {
    format!(
        "seed = {seed}\n[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 3\nhosts_per_leaf = 2\n\
         host_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\n\
         [routing]\nload_balancer = \"hermes\"\n[routing.hermes]\n{hermes}\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 4, dst = 3, size = \"20MB\" }}, {victim}]\n"
    )
}

/// Thresholds for the 10 G tests below (base RTT at the ToR about 8.7 µs): good below
/// 10 µs, bad above 20 µs, notably better by 5 µs.
const TIGHT: &str = "t_rtt_low = \"10us\"\nt_rtt_high = \"20us\"\ndelta_rtt = \"5us\"";

/// Hermes (§3.2): a 2 MB flow from leaf 0 that lands on the spine whose downlink an
/// elephant from leaf 2 keeps congested sees its path turn bad (RTT above 20 µs, ECN
/// fraction above 0.3) and, having sent less than S, moves to the other spine, finishing
/// sooner than when no path is ever bad (T_RTT_high 1 s). In every seed the two flows end
/// up apart (the elephant, slowed below R by DCQCN, may be the one that moves).
/// T_RTT_high beyond any RTT: no path is bad, nothing is rerouted.
const NEVER_BAD: &str = "t_rtt_low = \"10us\"\nt_rtt_high = \"1s\"";

#[test]
fn hermes_reroutes_a_flow_whose_path_stays_bad() {
    let victim = "{ src = 0, dst = 2, size = \"2MB\", start = \"200us\", tag = \"victim\" }";
    let mut moved = 0;
    for seed in 1..=8 {
        let s = run(&shared_downlink(seed, TIGHT, victim));
        let down = [s.port_stats(NodeId(9), 1).tx_bytes, s.port_stats(NodeId(10), 1).tx_bytes];
        let e = if down[0] > down[1] { 0 } else { 1 };
        let up = tx(&s, 6, 2..4);
        let (on, off) = (up[e], up[1 - e]);
        let reroutes = counter(&s, "hermes_reroutes");
        eprintln!("seed {seed}: leaf 0 bytes via the elephant's spine {on}, via the other {off}; {reroutes} reroutes");
        assert!(off > 3 * on, "the flows end up apart: {on} / {off}");
        if on > 0 {
            // The victim started beside the elephant and left.
            moved += 1;
            assert!(reroutes >= 1);
            let plain = run(&shared_downlink(seed, NEVER_BAD, victim));
            assert_eq!(counter(&plain, "hermes_reroutes"), 0, "no path is ever bad");
            let (fast, slow) = (common::victim_fct(&s), common::victim_fct(&plain));
            eprintln!("  victim FCT {fast:.0} us, {slow:.0} us when never rerouted");
            assert!(fast < slow, "rerouting pays");
        }
        assert_drained(&s);
    }
    assert!(moved >= 2, "the victim left the elephant's path in {moved} seeds");
}

/// Two leaves of two hosts, two spines, 10 G (leaf 0 is node 4, its uplinks ports 2 and
/// 3): a 2 MB flow from host 0, then a second flow of `burst` from host 1 at 300 µs. The
/// second flow joins the first one's path (known good, preferred to the unexplored other)
/// and both share leaf 0's uplink while it lasts.
fn burst_on_the_path(seed: u64, burst: &str) -> String {
    format!(
        "seed = {seed}\n[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 2\nhosts_per_leaf = 2\n\
         host_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\n\
         [routing]\nload_balancer = \"hermes\"\n[routing.hermes]\n{TIGHT}\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 2, size = \"2MB\" }}, \
         {{ src = 1, dst = 3, size = \"{burst}\", start = \"300us\" }}]\n"
    )
}

/// Hermes's caution (§3.1–3.2): a 20 KB burst beside the flow raises the RTT of a few
/// samples (to about 40 µs), but the smoothed RTT stays below T_RTT_high and nothing is
/// moved: every byte stays on one uplink. The same path loaded for long (a 3 MB second
/// flow) turns bad and a flow is moved to the other uplink.
#[test]
fn hermes_rides_out_a_transient_spike_and_moves_off_a_lasting_one() {
    for seed in 1..=4 {
        let spike = run(&burst_on_the_path(seed, "20KB"));
        let lasting = run(&burst_on_the_path(seed, "3MB"));
        let (s_up, l_up) = (tx(&spike, 4, 2..4), tx(&lasting, 4, 2..4));
        eprintln!(
            "seed {seed}: leaf 0 uplinks with a 20 KB burst {s_up:?} ({} reroutes), with a 3 MB one {l_up:?} ({} reroutes)",
            counter(&spike, "hermes_reroutes"),
            counter(&lasting, "hermes_reroutes")
        );
        assert_eq!(counter(&spike, "hermes_reroutes"), 0);
        assert!(s_up.contains(&0), "both flows on one path: {s_up:?}");
        assert!(counter(&lasting, "hermes_reroutes") >= 1);
        assert!(l_up.iter().all(|&b| b > 500_000), "the lasting load is split: {l_up:?}");
        assert_eq!(reordered(&spike), 0);
        assert_drained(&spike);
        assert_drained(&lasting);
    }
}

/// Same scenario and seed, same result; another seed may place flows otherwise.
#[test]
fn hermes_is_deterministic_by_seed() {
    let victim = "{ src = 0, dst = 2, size = \"2MB\", start = \"200us\" }";
    let result = |seed: u64| {
        let s = run(&shared_downlink(seed, TIGHT, victim));
        (
            tx(&s, 6, 2..4),
            s.summary().counters,
            s.flow_records().iter().map(common::fct_us).collect::<Vec<_>>(),
        )
    };
    assert_eq!(result(1), result(1));
    assert!((2..10).any(|seed| result(seed).0 != result(1).0));
}

/// Hermes's table refuses values that would break it, naming the field.
#[test]
fn hermes_parameters_name_the_field() {
    for (table, field) in [
        ("t_rtt_low = \"0us\"", "routing.hermes.t_rtt_low:"),
        ("t_rtt_low = \"50us\"\nt_rtt_high = \"20us\"", "routing.hermes.t_rtt_high:"),
        ("t_ecn = 0.0", "routing.hermes.t_ecn:"),
        ("t_ecn = 1.5", "routing.hermes.t_ecn:"),
        ("delta_ecn = -0.1", "routing.hermes.delta_ecn:"),
        ("rate_threshold = 2.0", "routing.hermes.rate_threshold:"),
        ("path_aging = \"0us\"", "routing.hermes.path_aging:"),
        ("cnp_window = \"0us\"", "routing.hermes.cnp_window:"),
        ("reroute_probability = 0.0", "routing.hermes.reroute_probability:"),
        ("probes = 3", "routing.hermes.probes: unknown field"),
    ] {
        let err = refusal(&shared_downlink(1, table, "{ src = 0, dst = 2, size = \"2MB\" }"));
        assert!(err.starts_with(field), "{table:?}: {err}");
    }
}
