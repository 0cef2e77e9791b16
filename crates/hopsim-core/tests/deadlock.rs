//! The deadlock detector (`[output.deadlock]`) on OFC's Fig 9 setting: a leaf-spine of
//! 2 spines × 4 leaves with two failed links (spine 0 – leaf 3 and spine 1 – leaf 0), so
//! traffic between leaves 0 and 3 bounces through a middle leaf, and four flow groups —
//! leaf 0 → 3, leaf 3 → 0, leaf 1 → 2, leaf 2 → 1 — whose paths close a cyclic buffer
//! dependency (spine 0 → leaf 1 → spine 1 → leaf 2 → spine 0 and back) (Hu et al.,
//! HotNets 2016; OFC §IV-A "deadlock scenario").

mod common;

use common::{assert_drained, run};
use hopsim_core::Simulator;

/// Hosts 0–7 (two per leaf, 100 Gb/s), leaves 8–11, spines 12–13 (40 Gb/s fabric links, so
/// every fabric hop is a bottleneck). `failed`: the two links down from the start; `m[g]`
/// flows of 1 MB in group g (sent round robin by the group's hosts, to its two receivers),
/// no congestion control; the seed moves the ECMP hashes (which middle leaf a bounce
/// takes, which spine a leaf 1 ↔ 2 flow takes);
/// `fc`: `[switch.flow_control]`'s body; `detector`: `[output.deadlock]`'s body.
pub fn fig9(seed: u64, fc: &str, failed: bool, m: [u32; 4], detector: &str) -> String {
    let groups = [([0, 1], [6, 7]), ([6, 7], [0, 1]), ([2, 3], [4, 5]), ([4, 5], [2, 3])];
    let mut flows = Vec::new();
    for (g, (src, dst)) in groups.iter().enumerate() {
        for k in 0..m[g] as usize {
            flows.push(format!(
                "{{ src = {}, dst = {}, size = \"1MB\", start = \"1us\", tag = \"f{}\" }}",
                src[k % 2],
                dst[(k / 2) % 2],
                g + 1
            ));
        }
    }
    let faults = if failed {
        "[[faults]]\nlink = [12, 11]\ndown = \"0ns\"\n[[faults]]\nlink = [13, 8]\ndown = \"0ns\"\n"
    } else {
        ""
    };
    format!(
        "seed = {seed}\nduration = \"50ms\"\n[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 4\nhosts_per_leaf = 2\nfabric_rate = \"40Gbps\"\n\
         [switch]\nbuffer_bytes = \"1MB\"\n[switch.flow_control]\n{fc}\n[transport]\ncc = \"none\"\n\
         [output.deadlock]\n{detector}\n{faults}\
         [workload]\nkind = \"flows\"\nflows = [{}]\n",
        flows.join(", ")
    )
}

/// Leaves and spines: `12:1` is spine 0's port to leaf 1, and so on.
const S0: u32 = 12;
const S1: u32 = 13;
const L1: u32 = 9;
const L2: u32 = 10;

/// Under PFC (seed 2), the four groups freeze the cycle spine 0 → leaf 1 → spine 1 →
/// leaf 2 → spine 0 within 100 µs: the detector finds it once `hold` (200 µs) has passed,
/// names its four queues in wait-for order (each paused by the next one's switch) and the
/// flows it holds, and ends the run there with a message — where without `stop` the run
/// idles, every flow unfinished, to its 50 ms limit.
#[test]
fn the_detector_finds_the_fig9_deadlock_under_pfc_and_stops_the_run() {
    let s = run(&fig9(2, "kind = \"pfc\"", true, [4, 4, 4, 4], ""));
    let found = s.deadlocks();
    assert_eq!(found.len(), 1, "one deadlock");
    let d = &found[0];
    let nodes: Vec<u32> = d.members.iter().map(|m| s.topology().ports[m.port.idx()].node.0).collect();
    let mut sorted = nodes.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [L1, L2, S0, S1], "the cycle through both spines and the two middle leaves");
    for (i, m) in d.members.iter().enumerate() {
        let next = &d.members[(i + 1) % d.members.len()];
        let peer = s.topology().ports[s.topology().ports[m.port.idx()].peer.idx()].node;
        assert_eq!(peer, s.topology().ports[next.port.idx()].node, "each waits on the next");
        assert!(m.bytes > 0 && !m.flows.is_empty(), "a member holds packets of flows");
        assert!(m.stuck_since + hopsim_core::time::Delta::from_us(200) <= d.time);
    }
    assert!(!d.flows.is_empty());
    let sum = s.summary();
    assert!(s.stopped_by_deadlock());
    assert!(sum.sim_time.as_ns_f64() < 1e6, "stopped at the deadlock, not at 50 ms");
    assert!(sum.flows_finished < sum.flows_total);
    let msg = s.deadlock_message().unwrap();
    eprintln!("{msg}");
    assert!(msg.starts_with("deadlock at ") && msg.contains("the run was stopped there"), "{msg}");
    assert!(s.policy_lines().iter().any(|(label, line)| *label == "Deadlock" && *line == msg));
    let table = s.table("deadlocks").unwrap();
    assert_eq!(table.rows(), 4);
    let record = s.summary_record();
    assert_eq!(record["deadlocks"], 1);
    assert_eq!(record["deadlock_message"], msg.as_str());

    let idle = run(&fig9(2, "kind = \"pfc\"", true, [4, 4, 4, 4], "stop = false"));
    assert_eq!(idle.deadlocks(), s.deadlocks(), "the same deadlock, reported once");
    assert!(!idle.stopped_by_deadlock());
    assert_eq!(idle.summary().sim_time.as_ns_f64(), 50e6, "runs to its time limit");
    assert_eq!(idle.summary().flows_finished, sum.flows_finished, "nothing moved after the freeze");
}

/// On the same leaf-spine with no failed link (up-down routing, no cyclic dependency) no
/// deadlock is reported and every run drains, over several seeds; with failed links, seeds
/// whose hashes do not close the cycle drain too, and nothing is reported for them.
#[test]
fn no_deadlock_on_a_loop_free_topology() {
    for seed in 1..=5 {
        let s = run(&fig9(seed, "kind = \"pfc\"", false, [4, 4, 4, 4], ""));
        assert!(s.deadlocks().is_empty(), "seed {seed}");
        assert_eq!(s.deadlock_message(), None);
        assert_drained(&s);
    }
    for seed in [1, 4] {
        let s = run(&fig9(seed, "kind = \"pfc\"", true, [4, 4, 4, 4], ""));
        assert!(s.deadlocks().is_empty(), "seed {seed}: the flows finish");
        assert_drained(&s);
    }
}

/// The detector only watches: with it on, every flow's completion is what it is with it
/// off; and its reports are deterministic.
#[test]
fn the_detector_does_not_change_the_run_and_is_deterministic() {
    let on = run(&fig9(1, "kind = \"pfc\"", true, [4, 4, 4, 4], ""));
    let off_text = fig9(1, "kind = \"pfc\"", true, [4, 4, 4, 4], "").replace("[output.deadlock]\n\n", "");
    assert!(!off_text.contains("deadlock"));
    let off = run(&off_text);
    let fcts = |s: &Simulator| s.flow_records().iter().map(|r| r.fct()).collect::<Vec<_>>();
    assert_eq!(fcts(&on), fcts(&off));
    assert_eq!(off.deadlocks().len(), 0);
    let again = run(&fig9(3, "kind = \"pfc\"", true, [8, 8, 8, 8], ""));
    let twice = run(&fig9(3, "kind = \"pfc\"", true, [8, 8, 8, 8], ""));
    assert_eq!(again.deadlocks(), twice.deadlocks());
    assert_eq!(again.deadlocks().len(), 1);
}

/// Fig 9 in small: deadlocks over seeds 1–8 and group splits, under PFC and the PFC family
/// (a record, not the paper's 1,000 trials; OFC is not here).
#[test]
fn fig9_deadlocks_by_mechanism() {
    let splits = [[4, 4, 4, 4], [8, 2, 4, 2], [2, 6, 6, 2]];
    let mut counts = Vec::new();
    for kind in ["pfc", "capfc", "ppfc", "gfc", "gpfc"] {
        let mut n = 0;
        for seed in 1..=8 {
            for m in splits {
                let s = run(&fig9(seed, &format!("kind = \"{kind}\""), true, m, ""));
                n += s.deadlocks().len();
                if s.deadlocks().is_empty() {
                    assert_drained(&s);
                }
            }
        }
        counts.push((kind, n));
    }
    eprintln!("deadlocks of 24 trials: {counts:?}");
    assert!(counts[0].1 > 0, "PFC deadlocks in this setting");
}

/// Bad detector settings name their field.
#[test]
fn bad_detector_settings_name_their_field() {
    let text = fig9(1, "kind = \"pfc\"", true, [1, 1, 1, 1], "interval = \"0us\"");
    let e = Simulator::new(hopsim_core::Scenario::from_toml_str(&text).unwrap()).err().unwrap().to_string();
    assert!(e.contains("output.deadlock.interval"), "{e}");
    let text = fig9(1, "kind = \"pfc\"", true, [1, 1, 1, 1], "holdd = \"1us\"");
    let e = hopsim_core::Scenario::from_toml_str(&text).err().unwrap().to_string();
    assert!(e.contains("holdd"), "{e}");
}
