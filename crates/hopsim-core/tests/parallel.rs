//! The conservative parallel engine (`sim::parallel`): the same scenario run by 1, 2 and
//! 4 partitions gives exactly the sequential run's flow table, ports and counters.

mod common;

use hopsim_core::scenario::Scenario;
use hopsim_core::sim::parallel;

/// A k = 4 fat-tree (4 pods below its cores: at most 4 partitions) under Web Search
/// at `load` with DCQCN, PFC and ECN at their defaults, for `us` microseconds.
fn fattree(load: f64, us: u32, extra: &str) -> String {
    format!(
        "seed = 7\nduration = \"{us}us\"\n[topology]\nkind = \"fat_tree\"\nk = 4\ndelay = \"1us\"\n\
         [output]\npfc_events = false\n{extra}\n\
         [workload]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = {load}\nstop = \"{us}us\"\n"
    )
}

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml).expect("scenario")
}

/// Flow table, ports and counters as text: what must be identical.
fn sequential(toml: &str) -> (String, String, String, u64) {
    let s = common::run(toml);
    let c = *s.counters();
    (format!("{:?}", s.flow_records()), format!("{:?}", s.port_records()), format!("{c:?}"), c.packet_hops)
}

fn parallel(toml: &str, threads: usize) -> (String, String, String, parallel::ParallelRun) {
    let run = parallel::run(scenario(toml), threads).unwrap_or_else(|e| panic!("{threads} threads: {e}"));
    (
        format!("{:?}", run.flow_records()),
        format!("{:?}", run.port_records()),
        format!("{:?}", run.counters()),
        run,
    )
}

#[test]
fn one_two_and_four_threads_give_the_sequential_results_exactly() {
    for (load, extra) in [
        (0.6, ""),
        (0.8, "[switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"20KB\"\nxon_bytes = \"10KB\"\n"),
    ] {
        let toml = fattree(load, 2000, extra);
        let (flows, ports, counters, hops) = sequential(&toml);
        assert!(hops > 100_000, "a busy run: {hops} packet-hops");
        let finished = flows.matches("finish: Some").count();
        eprintln!("load {load}: {hops} packet-hops, {finished} flows finished");
        assert!(finished > 30, "flows finish: {finished}");
        for threads in [1, 2, 4] {
            let (f, p, c, run) = parallel(&toml, threads);
            assert_eq!(c, counters, "{threads} threads: counters");
            assert!(f == flows, "{threads} threads: the flow table differs");
            assert!(p == ports, "{threads} threads: the port table differs");
            if threads > 1 {
                assert!(run.transfers > 1_000, "{threads} threads hand packets across: {}", run.transfers);
                assert!(run.windows > 100, "{} windows", run.windows);
            }
        }
    }
}

#[test]
fn pfc_pauses_cross_partitions_identically() {
    // Heavy load with small static thresholds: PAUSE frames cross the cut links.
    let toml = fattree(
        0.9,
        1000,
        "[switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"10KB\"\nxon_bytes = \"5KB\"\n",
    );
    let (_, ports, _, _) = sequential(&toml);
    let quiet = ports.matches("pause_sent: 0,").count();
    let all = ports.matches("pause_sent:").count();
    eprintln!("{} of {all} ports sent PAUSE frames", all - quiet);
    assert!(all - quiet >= 8, "ports pause: {} of {all}", all - quiet);
    let (_, p, _, _) = parallel(&toml, 4);
    assert!(p == ports, "pauses and paused times per port");
}

#[test]
fn what_a_partitioned_run_cannot_reproduce_is_refused_by_field() {
    let refused = |extra: &str, threads: usize| -> String {
        let mut toml = fattree(0.3, 50, "");
        toml = toml.replace("[output]\npfc_events = false\n", extra);
        match parallel::run(scenario(&toml), threads) {
            Ok(_) => panic!("{extra} ran"),
            Err(e) => e.to_string(),
        }
    };
    let e = refused("[output]\npfc_events = true\n", 2);
    assert!(e.contains("output.pfc_events"), "{e}");
    let e = refused("[output]\npfc_events = false\n[routing]\nload_balancer = \"drill\"\n", 2);
    assert!(e.contains("routing.load_balancer"), "{e}");
    let e = refused("[output]\npfc_events = false\n[engine]\ntie_order = \"scheduled\"\n", 2);
    assert!(e.contains("engine.tie_order"), "{e}");
    let e = refused("[output]\npfc_events = false\n", 9);
    assert!(e.contains("engine.threads") && e.contains("at most 4"), "{e}");
}
