//! Load balancing, each balancer shown by its defining behaviour on a leaf-spine whose
//! ECMP hash makes elephants collide: DRILL balances the uplinks per packet (and
//! reorders).

mod common;

use common::{assert_drained, fct_us, run, sim};
use hopsim_core::ids::{NodeId, PortId};
use hopsim_core::topology::FiveTuple;
use hopsim_core::Simulator;

/// Leaf-spine with 4 spines: four hosts of leaf 0 send 1 MB each to four hosts of leaf 1
/// at line rate, exactly filling leaf 0's four uplinks.
fn elephants(seed: u64, load_balancer: &str) -> String {
    let flows: Vec<String> =
        (0..4).map(|i| format!("{{ src = {i}, dst = {}, size = \"1MB\" }}", 4 + i)).collect();
    format!(
        "seed = {seed}\n[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 2\nhosts_per_leaf = 4\n\
         [routing]\nload_balancer = \"{load_balancer}\"\n[transport]\ncc = \"none\"\n\
         [workload]\nkind = \"flows\"\nflows = [{}]\n",
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

