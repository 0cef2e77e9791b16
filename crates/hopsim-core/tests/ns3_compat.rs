//! `compat = "ns3"`, part by part, each shown on its own: the HPCC ns-3 simulator's packet
//! timing (serialization truncated to the nanosecond), TIMELY's timestamp bytes, HPCC's
//! window (global BDP, `window = "none"` honoured), and the profile's defaults giving way
//! to what a scenario writes. The ECMP hash and next-hop order are tested against ns-3's
//! own values in `topology/routing.rs`; flow-by-flow agreement in `tests/test_ns3_parity.py`.

mod common;

use common::{assert_drained, run};
use hopsim_core::ids::NodeId;
use hopsim_core::Simulator;

/// One 100-packet flow across a dumbbell: host 0 -> switch -> switch -> host 1, 100 Gb/s.
fn one_flow(extra: &str) -> String {
    format!(
        "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\nbottleneck_rate = \"100Gbps\"\n\
         [transport]\nmtu = 1000\n{extra}\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"100KB\" }}]\n"
    )
}

fn fct_ns(s: &Simulator) -> u64 {
    let r = &s.flow_records()[0];
    (r.finish.expect("finished").0 - r.start.0) / 1000
}

/// ns-3 serializes a 1048 B packet in 83 ns at 100 Gb/s, not 83.84, and a 60 B ACK in 4 ns,
/// not 4.8; the NIC's pacing follows the same clock.
#[test]
fn ns3_serialization_shortens_each_packet_to_whole_nanoseconds() {
    let exact = run(&one_flow("cc = \"none\""));
    let ns3 = run(&format!("[links]\nserialization = \"ns3\"\n{}", one_flow("cc = \"none\"")));
    for s in [&exact, &ns3] {
        assert_drained(s);
    }
    let (a, b) = (fct_ns(&exact), fct_ns(&ns3));
    // 100 packets out of the NIC and the last one again at each of the two switches
    // (102 × 0.84 ns), the last ACK over three links (3 × 0.8 ns): 88.08 ns.
    let saved = a as i64 - b as i64;
    assert!((87..=89).contains(&saved), "exact {a} ns, ns-3 timing {b} ns: saved {saved} ns");
    assert_eq!(exact.port_stats(NodeId(0), 0).tx_bytes, ns3.port_stats(NodeId(0), 0).tx_bytes);
}

/// The ns-3 variant of TIMELY carries its send timestamp in each data packet (8 B), and the
/// ideal FCT leaves it out as ns-3's `standalone_fct` does.
#[test]
fn timely_ns3_data_packets_carry_eight_timestamp_bytes() {
    let paper = run(&one_flow("cc = \"timely\""));
    let ns3 = run(&one_flow("cc = \"timely\"\n[transport.timely]\nvariant = \"ns3\""));
    let bytes = |s: &Simulator| s.port_stats(NodeId(0), 0).tx_bytes;
    assert_eq!(bytes(&ns3) - bytes(&paper), 100 * 8, "100 data packets, 8 B each");
    assert_eq!(paper.flow_records()[0].ideal_fct, ns3.flow_records()[0].ideal_fct);
    let written =
        run(&one_flow("cc = \"timely\"\n[transport.timely]\nvariant = \"ns3\"\ntimestamp_bytes = 0"));
    assert_eq!(bytes(&written), bytes(&paper), "a written timestamp_bytes wins");
}

/// A leaf-spine with one host two hops further: `bdp = "max"` gives every flow the largest
/// base RTT's window (ns-3's GLOBAL_T 1), `"path"` each its own.
fn windows(bdp: &str, window: &str) -> Vec<u64> {
    let toml = format!(
        "[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\n\
         [transport]\ncc = \"hpcc\"\nbdp = \"{bdp}\"\nwindow = \"{window}\"\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"200KB\" }}, \
         {{ src = 2, dst = 1, size = \"200KB\", start = \"1us\" }}]\n\
         [output.rate_trace]\nflows = [0, 1]\ninterval = \"1us\"\n"
    );
    let s = run(&toml);
    assert_drained(&s);
    (0..2)
        .map(|f| s.rate_trace().iter().find(|r| r.flow == f).map(|r| r.window_bytes).expect("sampled"))
        .collect()
}

#[test]
fn hpcc_window_from_the_global_bdp_and_none_honoured() {
    let own = windows("path", "auto");
    let global = windows("max", "auto");
    assert!(own[0] < own[1], "the same-leaf flow has the smaller BDP: {own:?}");
    assert_eq!(global, vec![own[1], own[1]], "both take the largest BDP");
    assert_eq!(windows("max", "none"), vec![0, 0], "window = \"none\" leaves HPCC unbounded");
}

/// The profile fills in only what the scenario leaves out.
#[test]
fn compat_defaults_give_way_to_written_fields() {
    let with = |extra: &str| run(&format!("compat = \"ns3\"\n{extra}{}", one_flow("cc = \"none\"")));
    let ns3 = with("");
    let exact = with("[links]\nserialization = \"exact\"\n");
    let plain = run(&one_flow("cc = \"none\""));
    assert_ne!(fct_ns(&ns3), fct_ns(&plain), "compat times packets as ns-3 does");
    assert_eq!(fct_ns(&exact), fct_ns(&plain), "a written serialization wins");
}
