//! Load balancing, each balancer shown by its defining behaviour on a leaf-spine whose
//! ECMP hash makes elephants collide: DRILL balances the uplinks per packet (and
//! reorders); LetFlow moves flows between bursts, never inside a flowlet.

mod common;

use common::{assert_drained, fct_us, refusal, run, sim};
use hopsim_core::ids::{NodeId, PortId};
use hopsim_core::topology::FiveTuple;
use hopsim_core::Simulator;

/// Leaf-spine with 4 spines: four hosts of leaf 0 send 1 MB each to four hosts of leaf 1
/// at line rate, exactly filling leaf 0's four uplinks. Receivers keep out-of-order
/// arrivals (`transport.reorder_buffer`): a per-packet balancer reorders, and under plain
/// go-back-N every reordering would resend from the gap (the trap `hopsim` warns of), so
/// how much DRILL resends would depend on how its choices happen to interleave.
fn elephants(seed: u64, load_balancer: &str) -> String {
    let flows: Vec<String> =
        (0..4).map(|i| format!("{{ src = {i}, dst = {}, size = \"1MB\" }}", 4 + i)).collect();
    format!(
        "seed = {seed}\n[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 2\nhosts_per_leaf = 4\n\
         [routing]\nload_balancer = \"{load_balancer}\"\n[transport]\ncc = \"none\"\n\
         [transport.reorder_buffer]\nenabled = true\n[workload]\nkind = \"flows\"\nflows = [{}]\n",
        flows.join(", ")
    )
}

/// Bytes sent on each of leaf 0's uplinks (leaf 0 is node 8; ports 4–7 face the spines).
fn uplink_bytes(s: &Simulator) -> Vec<u64> {
    (4..8).map(|p| s.port_stats(NodeId(8), p).tx_bytes).collect()
}

/// The first seed whose ECMP hash puts two of the four elephants on one uplink.
fn colliding_seed() -> u64 {
    (1..100)
        .find(|&seed| {
            let s = sim(&elephants(seed, "ecmp"));
            let mut uplinks: Vec<PortId> = s
                .flow_records()
                .iter()
                .map(|r| {
                    let sport = 10_000 + r.flow_id as u16;
                    let tuple = FiveTuple { src: NodeId(r.src), dst: NodeId(r.dst), sport, dport: 100 };
                    s.routing().path_of(s.topology(), tuple)[1]
                })
                .collect();
            uplinks.sort();
            uplinks.dedup();
            uplinks.len() < 4
        })
        .expect("ECMP collides for most seeds")
}

/// DRILL: with the seed where ECMP's hash makes elephants collide, ECMP leaves an uplink
/// idle while another carries two flows; DRILL, choosing per packet the shorter of two
/// sampled queues and the remembered one, keeps the four uplinks within 10 % of each
/// other — and reorders packets, which the receivers count.
#[test]
fn drill_balances_uplinks_that_ecmp_skews() {
    let seed = colliding_seed();
    let ecmp = run(&elephants(seed, "ecmp"));
    let drill = run(&elephants(seed, "drill"));
    let spread = |b: &[u64]| {
        let (lo, hi) = (*b.iter().min().unwrap() as f64, *b.iter().max().unwrap() as f64);
        let mean = b.iter().sum::<u64>() as f64 / b.len() as f64;
        (hi - lo) / mean
    };
    let (e, d) = (uplink_bytes(&ecmp), uplink_bytes(&drill));
    eprintln!("seed {seed}: uplink bytes ECMP {e:?}, DRILL {d:?}");
    assert!(spread(&e) > 0.5, "ECMP collides: {e:?}");
    let mean = d.iter().sum::<u64>() as f64 / 4.0;
    assert!(d.iter().all(|&b| (b as f64 / mean - 1.0).abs() <= 0.10), "DRILL uplinks {d:?}");
    let reordered = |s: &Simulator| s.flow_records().iter().map(|r| r.reordered_packets).sum::<u32>();
    assert_eq!(reordered(&ecmp), 0, "one path per flow never reorders");
    assert!(reordered(&drill) > 0, "per-packet spraying reorders");
    let slowest = |s: &Simulator| s.flow_records().iter().map(fct_us).fold(0.0, f64::max);
    assert!(slowest(&drill) < slowest(&ecmp), "balanced uplinks finish the elephants sooner");
    assert_drained(&drill);
}

/// The elephants of [`elephants`] paced by a window: each flow sends `window` bytes, then
/// waits for their ACKs over 50 µs fabric links (an RTT of about 200 µs), so it comes in
/// bursts separated by gaps above LetFlow's 100 µs flowlet timeout.
fn bursty(seed: u64, load_balancer: &str, extra: &str) -> String {
    let flows: Vec<String> =
        (0..4).map(|i| format!("{{ src = {i}, dst = {}, size = \"4MB\" }}", 4 + i)).collect();
    format!(
        "seed = {seed}\n[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 2\nhosts_per_leaf = 4\n\
         fabric_delay = \"50us\"\n\
         [routing]\nload_balancer = \"{load_balancer}\"\n{extra}\n\
         [transport]\ncc = \"none\"\nwindow = \"32KB\"\n\
         [workload]\nkind = \"flows\"\nflows = [{}]\n",
        flows.join(", ")
    )
}

fn reordered(s: &Simulator) -> u32 {
    s.flow_records().iter().map(|r| r.reordered_packets).sum()
}

fn flowlets(s: &Simulator) -> u64 {
    s.summary().counter("letflow_flowlets").expect("a LetFlow run counts flowlets")
}

/// LetFlow (NSDI 2017 §3): with the seed where ECMP pins two bursty elephants to one
/// uplink for their whole lives (and leaves another idle), LetFlow gives every burst a new
/// random uplink — about 512 flowlets of 32 KB, which spread over the four uplinks within
/// 30 % of each other — and, as each burst travels on one path, delivers every packet in
/// order.
#[test]
fn letflow_moves_bursty_flows_between_flowlets() {
    let seed = colliding_seed();
    let ecmp = run(&bursty(seed, "ecmp", ""));
    let letflow = run(&bursty(seed, "letflow", ""));
    let (e, l) = (uplink_bytes(&ecmp), uplink_bytes(&letflow));
    eprintln!("seed {seed}: uplink bytes ECMP {e:?}, LetFlow {l:?}; {} flowlets", flowlets(&letflow));
    assert!(e.contains(&0), "ECMP leaves an uplink idle: {e:?}");
    let mean = l.iter().sum::<u64>() as f64 / 4.0;
    assert!(l.iter().all(|&b| (b as f64 / mean - 1.0).abs() <= 0.30), "LetFlow uplinks {l:?}");
    // 4 MB in 32 KB windows: 128 bursts per flow, each a flowlet at leaf 0 (the spines and
    // leaf 1 have one next hop each and decide nothing).
    let n = flowlets(&letflow);
    assert!((4 * 120..=4 * 130).contains(&n), "{n} flowlets");
    assert_eq!(reordered(&letflow), 0, "no flowlet is split across paths");
    assert_drained(&letflow);
}

/// Flows that never pause are one flowlet each: LetFlow picks one random uplink per flow
/// and keeps it (no reordering), where DRILL on the same flows reorders.
#[test]
fn letflow_keeps_a_flow_that_never_pauses_on_one_path() {
    let seed = colliding_seed();
    let letflow = run(&elephants(seed, "letflow"));
    assert_eq!(flowlets(&letflow), 4, "one flowlet per flow at leaf 0");
    assert_eq!(reordered(&letflow), 0);
    // Every uplink carries whole flows: its bytes are a multiple of one flow's.
    let per_flow = uplink_bytes(&letflow).iter().copied().filter(|&b| b > 0).min().unwrap();
    for b in uplink_bytes(&letflow) {
        assert_eq!(b % per_flow, 0, "uplink bytes {:?}", uplink_bytes(&letflow));
    }
    assert_drained(&letflow);
}

/// In a three-tier fat-tree, `path_choice = "per_hop"` cuts flowlets at the ToR and again
/// at the aggregation switch (two decisions per burst), `"source_tor"` (ConWeave's ns-3)
/// only at the sender's ToR, which carries the path in the packets; both deliver in order
/// and both use more than one core switch.
#[test]
fn letflow_path_choice_per_hop_or_at_the_source_tor() {
    let scenario = |choice: &str| {
        format!(
            "seed = 3\n[topology]\nkind = \"fat_tree\"\nk = 4\ndelay = \"50us\"\n\
             [routing]\nload_balancer = \"letflow\"\n[routing.letflow]\npath_choice = \"{choice}\"\n\
             [transport]\ncc = \"none\"\nwindow = \"32KB\"\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 15, size = \"2MB\" }}]\n"
        )
    };
    let (per_hop, source) = (run(&scenario("per_hop")), run(&scenario("source_tor")));
    let (h, s) = (flowlets(&per_hop), flowlets(&source));
    eprintln!("flowlets: per_hop {h}, source_tor {s}");
    // 2 MB in 32 KB windows: 64 bursts.
    assert!((60..=66).contains(&s), "{s}");
    assert_eq!(h, 2 * s, "per_hop decides at the ToR and at the aggregation switch");
    for sim in [&per_hop, &source] {
        assert_eq!(reordered(sim), 0);
        let topo = sim.topology();
        let cores_used = (0..topo.node_count() as u32)
            .filter(|&n| topo.tiers[n as usize] == hopsim_core::topology::Tier::Core)
            .filter(|&n| {
                topo.ports_of(NodeId(n))
                    .any(|p| sim.port_stats(NodeId(n), p - topo.node_ports[n as usize]).tx_bytes > 0)
            })
            .count();
        assert!(cores_used > 1, "bursts take more than one core switch: {cores_used}");
        assert_drained(sim);
    }
}

/// Same scenario and seed, same flowlets; another seed, other paths.
#[test]
fn letflow_is_deterministic_by_seed() {
    let bytes = |seed: u64| uplink_bytes(&run(&bursty(seed, "letflow", "")));
    assert_eq!(bytes(5), bytes(5));
    assert_ne!(bytes(5), bytes(6));
}

/// LetFlow's table refuses a zero timeout and an aging shorter than the timeout.
#[test]
fn letflow_parameters_name_the_field() {
    for (table, field) in [
        ("flowlet_timeout = \"0us\"", "routing.letflow.flowlet_timeout:"),
        ("flowlet_timeout = \"500us\"\naging = \"200us\"", "routing.letflow.aging:"),
        ("path_choice = \"random\"", "routing.letflow.path_choice:"),
        ("timeout = \"1us\"", "routing.letflow.timeout: unknown field"),
    ] {
        let text = bursty(1, "letflow", &format!("[routing.letflow]\n{table}"));
        let err = refusal(&text);
        assert!(err.starts_with(field), "{table:?}: {err}");
    }
}
