//! The conservative parallel engine (`engine.threads`, `sim::parallel`): the same
//! scenario run by 1, 2 and 4 partitions gives exactly the sequential run's flow table,
//! ports, switches and summary.

mod common;

use hopsim_core::switch::flow_control::ofc::Ofc;
use hopsim_core::Simulator;

/// A k = 4 fat-tree (4 pods below its cores: at most 4 partitions) under Web Search at
/// `load` with DCQCN, PFC and ECN at their defaults, for `us` microseconds.
fn fattree(load: f64, us: u32, extra: &str) -> String {
    format!(
        "seed = 7\nduration = \"{us}us\"\n[topology]\nkind = \"fat_tree\"\nk = 4\ndelay = \"1us\"\n\
         {extra}\n\
         [workload]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = {load}\nstop = \"{us}us\"\n"
    )
}

fn with_threads(toml: &str, threads: u32) -> String {
    if toml.contains("[engine]") {
        return toml.replace("[engine]\n", &format!("[engine]\nthreads = {threads}\n"));
    }
    format!("{toml}\n[engine]\nthreads = {threads}\n")
}

/// What must be identical: the flow table, the port and switch tables, the counters and
/// the summary (but for the peak of packets in flight: a sum of partition peaks).
fn results(s: &Simulator) -> Vec<(String, String)> {
    let mut summary = s.summary_record();
    summary.remove("peak_packets_in_flight");
    let mut out = vec![
        ("flows".into(), format!("{:?}", s.flow_records())),
        ("ports".into(), format!("{:?}", s.port_records())),
        ("counters".into(), format!("{:?}", s.counters())),
        ("summary".into(), format!("{summary:?}")),
        ("policy lines".into(), format!("{:?}", s.policy_lines())),
        ("policy counters".into(), format!("{:?}", s.policy_counters())),
    ];
    for t in ["switches", "queue_delay", "pfc_events", "control_frames"] {
        out.push((t.into(), format!("{:?}", s.table(t).expect("declared"))));
    }
    out
}

fn assert_same(toml: &str) -> Vec<(String, String)> {
    let seq = common::run(toml);
    let want = results(&seq);
    for threads in [1, 2, 4] {
        let mut par = common::sim(&with_threads(toml, threads));
        // In steps, as front ends run with a progress bar: splitting changes nothing.
        let mut t = hopsim_core::time::SimTime::ZERO;
        while !par.is_done() {
            t += hopsim_core::time::Delta::from_us(37);
            par.run_until(t);
        }
        for ((name, w), (_, g)) in want.iter().zip(results(&par)) {
            assert!(*w == g, "{threads} threads: {name} differs\nsequential {w}\nparallel   {g}");
        }
        let stats = par.parallel_stats();
        if threads > 1 {
            let stats = stats.expect("a parallel run");
            assert_eq!(stats.threads, threads as usize);
            assert!(stats.transfers > 1_000, "{threads} threads hand packets across: {stats:?}");
            assert!(stats.windows > 100, "{stats:?}");
            assert!(stats.hosts.iter().all(|&h| h > 0), "every partition has hosts: {stats:?}");
        } else {
            assert!(stats.is_none(), "one thread is the sequential engine");
        }
    }
    want
}

#[test]
fn one_two_and_four_threads_give_the_sequential_results_exactly() {
    for (load, extra) in [
        (0.6, ""),
        (0.8, "[switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"20KB\"\nxon_bytes = \"10KB\"\n"),
    ] {
        let toml = fattree(load, 2000, extra);
        let want = assert_same(&toml);
        let flows = &want[0].1;
        let finished = flows.matches("finish: Some").count();
        assert!(finished > 30, "flows finish: {finished}");
    }
}

#[test]
fn an_incast_into_one_pod_gets_a_partition_of_its_own() {
    // Pods are dealt by the packets their hosts send and receive: with every other host
    // sending into pod 0's hosts 0 and 1, two threads give pod 0 a partition of its own
    // (dealt by host count, it would share one with another pod), and the run is the
    // sequential one.
    let senders: Vec<String> = (4..16).map(|h| h.to_string()).collect();
    let incast = |receiver: u32| {
        format!(
            "[[workload]]\nkind = \"incast\"\nreceiver = {receiver}\nfan_in = 12\nsenders = [{}]\n\
             size_min = \"20KB\"\nsize_max = \"60KB\"\nperiod = \"40us\"\nstop = \"400us\"\n",
            senders.join(", ")
        )
    };
    let toml = format!(
        "seed = 5\nduration = \"600us\"\n[topology]\nkind = \"fat_tree\"\nk = 4\ndelay = \"1us\"\n{}{}",
        incast(0),
        incast(1)
    );
    let want = results(&common::run(&toml));
    let par = common::run(&with_threads(&toml, 2));
    for ((name, w), (_, g)) in want.iter().zip(results(&par)) {
        assert!(*w == g, "{name} differs\nsequential {w}\nparallel   {g}");
    }
    let stats = par.parallel_stats().expect("a parallel run");
    let mut hosts = stats.hosts.clone();
    hosts.sort();
    assert_eq!(hosts, [4, 12], "pod 0 alone, the three sending pods together: {stats:?}");
}

#[test]
fn more_partitions_than_threads_give_the_sequential_results() {
    // A thread simulating several partitions runs them one after the other in each window:
    // one thread with four partitions, two with four, three with four (uneven).
    let toml = fattree(
        0.8,
        1000,
        "[switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"20KB\"\nxon_bytes = \"10KB\"\n",
    );
    let want = results(&common::run(&toml));
    for (threads, parts) in [(1, 4), (2, 4), (3, 4), (1, 2)] {
        let par = common::run(&format!("{toml}\n[engine]\nthreads = {threads}\npartitions = {parts}\n"));
        for ((name, w), (_, g)) in want.iter().zip(results(&par)) {
            assert!(*w == g, "{threads} threads, {parts} partitions: {name} differs");
        }
        let stats = par.parallel_stats().expect("a partitioned run");
        assert_eq!((stats.threads, stats.partitions), (threads, parts));
        assert!(stats.transfers > 1_000, "{stats:?}");
    }
    let e = hopsim_core::scenario::Scenario::from_toml_str(&format!(
        "{toml}\n[engine]\nthreads = 2\npartitions = 1\n"
    ))
    .and_then(|s| Simulator::new(s).map(drop))
    .unwrap_err()
    .to_string();
    assert!(e.contains("engine.partitions") && e.contains("at least engine.threads = 2"), "{e}");
    let e = hopsim_core::scenario::Scenario::from_toml_str(&format!("{toml}\n[engine]\npartitions = 5\n"))
        .and_then(|s| Simulator::new(s).map(drop))
        .unwrap_err()
        .to_string();
    assert!(e.contains("engine.partitions") && e.contains("at most 4 partitions"), "{e}");
}

#[test]
fn pfc_pauses_cross_partitions_identically() {
    // Heavy load with small static thresholds: PAUSE frames cross the cut links.
    let toml = fattree(
        0.9,
        1000,
        "[output]\npfc_events = true\ncontrol_frames = true\n\
         [switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"10KB\"\nxon_bytes = \"5KB\"\n",
    );
    let want = assert_same(&toml);
    let ports = &want[1].1;
    let quiet = ports.matches("pause_sent: 0,").count();
    let all = ports.matches("pause_sent:").count();
    assert!(all - quiet >= 8, "ports pause: {} of {all}", all - quiet);
    let seq = common::run(&toml);
    let logged = seq.table("pfc_events").expect("declared").rows();
    assert!(logged > 100, "the compared PFC log holds the pauses: {logged} rows");
}

#[test]
fn hpcc_int_stacks_travel_with_their_packets() {
    // HPCC's window follows the INT each packet collects hop by hop: a stack lost or
    // mixed up at a partition's edge would change every rate.
    assert_same(&fattree(0.6, 600, "[transport]\ncc = \"hpcc\"\n"));
}

#[test]
fn drill_decides_per_switch() {
    // DRILL keeps its memory per switch and draws from per-switch streams: a partition
    // holds everything a decision reads.
    assert_same(&fattree(
        0.7,
        600,
        "[routing]\nload_balancer = \"drill\"\n[transport.reorder_buffer]\nenabled = true\n",
    ));
}

#[test]
fn letflow_cuts_flowlets_per_switch_or_at_the_source_tor() {
    // Flowlet tables and random draws per switch; with `source_tor` the path travels in a
    // header field across the cut. The LetFlow line (flowlets summed over the partitions,
    // the table peak the largest) is compared with the rest.
    for choice in ["per_hop", "source_tor"] {
        let toml = fattree(
            0.7,
            600,
            &format!(
                "[routing]\nload_balancer = \"letflow\"\n[routing.letflow]\npath_choice = \"{choice}\"\n\
                 flowlet_timeout = \"2us\"\naging = \"10us\"\n[transport.reorder_buffer]\nenabled = true\n"
            ),
        );
        // `assert_same` compares the policy lines (the LetFlow line among them) at 1, 2
        // and 4 threads; the sequential run's line says flowlets were cut.
        let want = assert_same(&toml);
        let lines = &want.iter().find(|(n, _)| n == "policy lines").expect("compared").1;
        let line = lines.split("\"LetFlow\", \"").nth(1).expect("a LetFlow line");
        let flowlets: u64 = line
            .split(' ')
            .next()
            .unwrap()
            .chars()
            .filter(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap();
        assert!(flowlets > 30, "{choice}: flowlets are cut: {line}");
    }
}

#[test]
fn bfc_pauses_per_flow_across_the_cut() {
    // BFC's per-flow pause frames and its upstream flow tables cross the partitions' cut.
    let toml = fattree(
        0.8,
        600,
        "[switch.flow_control]\nkind = \"bfc\"\nqueues = 32\n[output]\ncontrol_frames = true\n",
    );
    let want = assert_same(&toml);
    let frames = &want.iter().find(|(n, _)| n == "control_frames").expect("compared").1;
    assert!(frames.matches("bfc").count() > 10, "BFC frames are logged and compared");
}

#[test]
fn pyrrha_and_aquarius_isolate_across_the_cut() {
    // Their isolation and reserve queues are per switch port, their frames cross the cut,
    // and their summary lines report counts joined over the partitions.
    for fc in ["pyrrha", "aquarius"] {
        let toml = fattree(0.8, 600, &format!("[switch.flow_control]\nkind = \"{fc}\"\n"));
        let want = assert_same(&toml);
        let lines = &want.iter().find(|(n, _)| n == "policy lines").expect("compared").1;
        // Pyrrha's line counts its PAUSE frames even when none; Aquarius's is shown only
        // when it paused.
        let paused =
            lines.contains(" PAUSE frames") && !lines.contains("\"0 PAUSE") || lines.contains(" pauses (");
        assert!(paused, "{fc} paused: {lines}");
    }
}

/// Heavy load against 10 KB static PFC thresholds: every pause-based mechanism acts.
const SMALL_PFC: &str = "[switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"10KB\"\nxon_bytes = \"5KB\"\n";

/// The count before `what` in a policy line, e.g. `count_before(line, " PAUSEs")`.
fn count_before(lines: &str, what: &str) -> u64 {
    let at = lines.find(what).unwrap_or_else(|| panic!("{what:?} in {lines}"));
    let digits: String = lines[..at].chars().rev().take_while(|c| c.is_ascii_digit() || *c == ',').collect();
    digits.chars().rev().filter(char::is_ascii_digit).collect::<String>().parse().expect("a count")
}

/// `toml` runs identically with 1, 2 and 4 threads, and its mechanism acted: the count
/// before `what` in the compared policy lines exceeds 100.
fn acts_identically(name: &str, toml: &str, what: &str) {
    let want = assert_same(toml);
    let lines = &want.iter().find(|(n, _)| n == "policy lines").expect("compared").1;
    assert!(count_before(lines, what) > 100, "{name} acted: {lines}");
}

#[test]
fn the_pfc_family_and_per_flow_pauses_act_identically_across_the_cut() {
    // caPFC, P-PFC, G-PFC and GFC keep PFC's ingress accounting per switch and send frames
    // naming a class; per-flow flow control names a flow. Each pauses (or steps rates)
    // across the cut, its frames logged and compared, its summary line joined.
    for (fc, extra, what) in [
        ("capfc", "egress_threshold = \"5KB\"\n", " PAUSEs"),
        ("ppfc", "", " PAUSEs"),
        ("gpfc", "", " PAUSEs"),
        ("gfc", "", " (by step"),
        ("per_flow", "", " (resumes"),
    ] {
        let toml = fattree(
            0.9,
            1000,
            &format!(
                "{SMALL_PFC}[switch.flow_control]\nkind = \"{fc}\"\n{extra}[output]\ncontrol_frames = true\n"
            ),
        );
        acts_identically(fc, &toml, what);
    }
}

#[test]
fn ofc_flow_lists_and_table_peaks_cross_the_cut() {
    // OFC's frames name flow lists kept in the sender's arena (handed over as they cross),
    // and Table II's peaks are of sums over every switch port (replayed at the join from
    // the partitions' logs of changes): the frames it sent, its counters and its tables'
    // peaks and means are the sequential run's.
    let toml = fattree(
        0.9,
        1000,
        "[switch.flow_control]\nkind = \"ofc\"\nxoff_bytes = \"10KB\"\nxon_bytes = \"5KB\"\n\
         [output]\ncontrol_frames = true\n",
    );
    acts_identically("ofc", &toml, " pauses (");
    let ofc_of = |s: &Simulator| {
        let o = s.flow_control().get::<Ofc>().expect("an OFC run");
        let peaks: Vec<u64> = s
            .flow_control_counters()
            .into_iter()
            .filter(|(n, _)| n.contains("_tab_"))
            .map(|(_, v)| v)
            .collect();
        (format!("{:?}", o.log), peaks, o.table_entries(), s.flow_control_held())
    };
    let (want_log, want_tables, want_now, want_held) = ofc_of(&common::run(&toml));
    assert!(want_tables.iter().all(|v| *v > 0), "every table filled: {want_tables:?}");
    for threads in [2, 4] {
        let par = common::run(&with_threads(&toml, threads));
        let (log, tables, now, held) = ofc_of(&par);
        assert!(log == want_log, "{threads} threads: the frames OFC logged differ");
        assert_eq!((tables, now, held), (want_tables.clone(), want_now, want_held), "{threads} threads");
    }
}

#[test]
fn tcp_senders_and_receivers_on_either_side_of_the_cut() {
    // A TCP flow's sender and receiver live in different partitions: the sender's state
    // (window, RTO, recovery) in one replica, the receiver's (reassembly, delayed ACK,
    // ordering timeout) in the other. DRILL reorders packets, so the receivers' delayed
    // ACK and ordering timers fire and the senders recover from losses at the lossy
    // 30 KB egress limit.
    for extra in [
        "[switch.pfc]\nenabled = false\n[transport]\nkind = \"tcp\"\ncc = \"dctcp\"\n",
        "[routing]\nload_balancer = \"drill\"\n[transport]\nkind = \"tcp\"\ncc = \"dctcp\"\n\
         [transport.tcp]\ndelayed_ack = \"5us\"\nreorder_timeout = \"20us\"\n\
         [switch.pfc]\nenabled = false\n[switch.admission]\nkind = \"static_per_port\"\nbytes = \"30KB\"\n",
    ] {
        let want = assert_same(&fattree(0.7, 1000, extra));
        let counters = &want.iter().find(|(n, _)| n == "policy counters").expect("compared").1;
        assert!(want[0].1.matches("finish: Some").count() > 30, "flows finish");
        if extra.contains("reorder_timeout") {
            assert!(!counters.contains("(\"reorder_held\", 0)"), "segments held: {counters}");
        }
    }
}

#[test]
fn mp_rdma_spreads_flows_over_virtual_paths_across_the_cut() {
    // MP-RDMA picks a source port (an ECMP path) per packet at the sender and tracks
    // out-of-order arrivals at the receiver, in different partitions.
    let want = assert_same(&fattree(0.6, 1000, "[transport]\nkind = \"mp_rdma\"\ncc = \"none\"\n"));
    let counters = &want.iter().find(|(n, _)| n == "policy counters").expect("compared").1;
    assert!(!counters.contains("(\"mp_rdma_virtual_paths\", 0)"), "paths opened: {counters}");
    assert!(
        !counters.contains("(\"mp_rdma_max_out_of_order\", 0)"),
        "packets arrived out of order: {counters}"
    );
}

#[test]
fn path_sensing_load_balancers_decide_identically_across_the_cut() {
    // CONGA's congestion tables and Proteus's path tables are per switch and fed by
    // feedback piggybacked in header rows, which cross the cut with their packets; Hermes
    // senses paths at each source ToR from its own hosts' ACKs and CNPs. Each line counts
    // what drove its decisions, summed over the partitions.
    for (lb, extra, what) in [
        ("conga", "[routing.conga]\nflowlet_timeout = \"2us\"\n", " on another uplink"),
        ("hermes", "", " RTT samples"),
        ("proteus", "", " packets rerouted at paused hops"),
    ] {
        let toml = fattree(
            0.9,
            1000,
            &format!(
                "{SMALL_PFC}[routing]\nload_balancer = \"{lb}\"\n{extra}[transport.reorder_buffer]\nenabled = true\n"
            ),
        );
        acts_identically(lb, &toml, what);
    }
}

#[test]
fn deflection_decides_per_switch_across_the_cut() {
    // Lossy switches with 30 KB per port under heavy load: every deflection policy deflects
    // (AIFO refuses by rank) at switches of every partition, packets carry their hop limit
    // across the cut, and the extra-hop histogram is counted where packets arrive and summed.
    for kind in ["dibs", "dibs_naive", "simple", "preemptive", "vertigo", "aifo"] {
        let toml = fattree(
            0.9,
            1000,
            &format!(
                "[switch.pfc]\nenabled = false\n[switch.admission]\nkind = \"static_per_port\"\nbytes = \"30KB\"\n\
                 [switch.deflection]\nkind = \"{kind}\"\n[transport]\ncc = \"dctcp\"\nloss_recovery = \"irn\"\n"
            ),
        );
        let want = assert_same(&toml);
        let summary = &want.iter().find(|(n, _)| n == "summary").expect("compared").1;
        let number = |name: &str| -> u64 {
            let field = format!("\"{name}\": Number(");
            summary
                .split(&field)
                .nth(1)
                .and_then(|rest| rest.split(')').next())
                .and_then(|d| d.parse().ok())
                .unwrap_or_else(|| panic!("{field} in {summary}"))
        };
        // AIFO does not deflect: it refuses packets whose rank is high in its window.
        let acted = number("deflections") + number("drops_rank_admission");
        assert!(acted > 1_000, "{kind} deflected or refused by rank: {acted}");
    }
}

#[test]
fn a_leaf_spine_is_cut_by_rack() {
    let toml = "seed = 3\nduration = \"1ms\"\n[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 4\n\
                hosts_per_leaf = 8\n[workload]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = 0.7\n\
                stop = \"1ms\"\n";
    assert_same(toml);
}

#[test]
fn a_topology_file_without_pods_is_cut_by_min_cut() {
    // Eight switches in a ring, four hosts each (HPCC's topology format): no top tier to
    // remove, so the general min-cut lays out arcs of the ring.
    let (switches, per) = (8u32, 4u32);
    let hosts = switches * per;
    let mut text = format!("{} {switches} {}\n", hosts + switches, hosts + switches);
    text += &(hosts..hosts + switches).map(|s| s.to_string()).collect::<Vec<_>>().join(" ");
    text += "\n";
    for h in 0..hosts {
        text += &format!("{h} {} 100Gbps 1us 0\n", hosts + h / per);
    }
    for s in 0..switches {
        text += &format!("{} {} 100Gbps 1us 0\n", hosts + s, hosts + (s + 1) % switches);
    }
    let path = std::env::temp_dir().join(format!("hopsim-parallel-ring-{}.txt", std::process::id()));
    std::fs::write(&path, text).expect("written");
    let toml = format!(
        "seed = 11\nduration = \"1ms\"\n[topology]\nkind = \"file\"\nfile = \"{}\"\n\
         [workload]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = 0.5\nstop = \"1ms\"\n",
        path.display()
    );
    assert_same(&toml);
    let par = common::sim(&with_threads(&toml, 4));
    let s = par.parallel_stats().expect("a parallel run");
    // Whole switches with their hosts, each partition some (balanced by the traffic of
    // the hosts' flows, not by host count: `topology::partition` tests that).
    assert_eq!(s.hosts.iter().sum::<u64>(), 32, "{s:?}");
    assert!(s.hosts.iter().all(|&h| h > 0 && h % 4 == 0), "whole switches with their hosts: {s:?}");
    std::fs::remove_file(&path).ok();
}

#[test]
fn what_a_partitioned_run_cannot_reproduce_is_refused_by_field() {
    let refused = |extra: &str, threads: u32| -> String {
        let toml = with_threads(&fattree(0.3, 50, extra), threads);
        let s = hopsim_core::scenario::Scenario::from_toml_str(&toml).expect("scenario");
        match Simulator::new(s) {
            Ok(_) => panic!("{extra} ran"),
            Err(e) => e.to_string(),
        }
    };
    for (extra, field) in [
        ("[output]\nrate_trace = { flows = [0], interval = \"1us\" }\n", "output.rate_trace"),
        ("[engine]\ntie_order = \"scheduled\"\n", "engine.tie_order"),
        ("[switch.ecn]\nrandom_stream = \"shared\"\n", "switch.ecn.random_stream"),
    ] {
        let e = refused(extra, 2);
        assert!(e.contains(field), "{extra}: {e}");
    }
    let e = refused("", 9);
    assert!(e.contains("engine.threads") && e.contains("at most 4"), "{e}");
    let e = refused("", 0);
    assert!(e.contains("engine.threads"), "{e}");
}
