//! Golden fingerprints: a matrix of small scenarios covering every mechanism, each run to
//! the end and summed up in one readable line (events, packet-hops, drops by cause, frames
//! by kind, policy counters, and hashes of the flow, port and observer tables).
//!
//! A change that is meant to leave results alone (a refactor, a speed-up) must leave every
//! line as it is; a change meant to alter results re-records them with
//! `HOPSIM_BLESS=1 cargo test --release --test golden` and says why in its commit.

use std::fmt::Write as _;

use hopsim_core::{Scenario, Simulator};

/// FNV-1a, 64 bits: a stable hash with no dependency.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn text(&mut self, s: &str) {
        for b in s.bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(0x100_0000_01b3);
    }
}

fn hash_lines<T>(items: impl IntoIterator<Item = T>, line: impl Fn(&T) -> String) -> String {
    let mut h = Fnv::new();
    let mut n = 0;
    for item in items {
        h.text(&line(&item));
        n += 1;
    }
    format!("{n}:{:016x}", h.0)
}

/// The one-line fingerprint of a finished run.
fn fingerprint(sim: &Simulator) -> String {
    let s = sim.summary();
    let mut out = format!(
        "events={} hops={} flows={}/{} data={}/{} t={}",
        s.events,
        s.packet_hops,
        s.flows_finished,
        s.flows_total,
        s.data_packets_delivered,
        s.data_packets_sent,
        s.sim_time.0
    );
    let drops: Vec<String> =
        s.drops.by_cause().iter().filter(|(_, n)| *n > 0).map(|(c, n)| format!("{c}:{n}")).collect();
    write!(out, " drops=[{}] ctrl_drops={}", drops.join(","), s.control_drops).unwrap();
    let frames: Vec<String> = sim.control_frames_sent().iter().map(|(k, n)| format!("{k}:{n}")).collect();
    write!(out, " frames=[{}]", frames.join(",")).unwrap();
    let fc: Vec<String> = sim.flow_control_counters().iter().map(|(k, n)| format!("{k}:{n}")).collect();
    if !fc.is_empty() {
        write!(out, " fc=[{}]", fc.join(",")).unwrap();
    }
    write!(
        out,
        " ecn={} retx={} rto={} cnps={} defl={} held={}/{} srcs={} extra={:?} maxbuf={}",
        s.ecn_marks,
        s.retransmitted_bytes,
        s.timeouts,
        s.cnps,
        s.deflections,
        s.reorder_held,
        s.reorder_released,
        s.bolt_srcs,
        s.deflection_extra_hops,
        s.max_buffer_bytes
    )
    .unwrap();
    let flows = hash_lines(sim.flow_records(), |r| {
        format!(
            "{} {} {:?} {} {} {} {} {} {} {} {}",
            r.flow_id,
            r.start.0,
            r.finish.map(|f| f.0),
            r.retransmitted_bytes,
            r.timeouts,
            r.cnps_received,
            r.reordered_packets,
            r.deflections,
            r.cc,
            r.loss_recovery,
            r.path_hops
        )
    });
    let ports = hash_lines(sim.port_records(), |p| {
        let st = &p.stats;
        format!(
            "{} {} {} {} {} {} {} {} {} {} {}",
            p.node,
            p.port,
            st.tx_bytes,
            st.tx_packets,
            st.pause_sent,
            st.resume_sent,
            st.pause_received,
            st.deflections,
            st.paused_time.0,
            st.max_queue_bytes,
            st.busy_time.0
        )
    });
    let classes = hash_lines(sim.flow_classes(), |c| c.name().to_string());
    write!(out, " flows#{flows} ports#{ports} classes#{classes}").unwrap();
    let frames_log = hash_lines(sim.control_events(), |e| {
        let p = &e.payload;
        format!("{} {} {} {} {} {:?}", e.time.0, e.node.0, e.port.0, p.kind_name(), p.subject(), p.pauses())
    });
    let pfc_log = hash_lines(sim.pfc_events(), |e| format!("{:?}", e));
    let queues = hash_lines(sim.queue_samples(), |q| format!("{:?}", q));
    let buffers = hash_lines(sim.buffer_samples(), |q| format!("{:?}", q));
    let tput = hash_lines(sim.throughput_bins(), |q| format!("{:?}", q));
    let trace = hash_lines(sim.packet_records(), |q| format!("{:?}", q));
    let delay = hash_lines(sim.queue_delay_buckets(), |q| format!("{:?}", q));
    let trees = hash_lines(sim.congestion_trees(), |q| format!("{:?}", q));
    let iqs = hash_lines(sim.iq_usage(), |q| format!("{:?}", q));
    let rates = hash_lines(sim.rate_trace(), |q| format!("{:?}", q));
    write!(
        out,
        " obs#{frames_log},{pfc_log},{queues},{buffers},{tput},{trace},{delay},{trees},{iqs},{rates}"
    )
    .unwrap();
    out
}

/// `base` with the tables and keys of `extra` merged in (extra wins; tables merge).
fn merged(base: &str, extra: &str) -> String {
    fn merge(into: &mut toml::Table, from: toml::Table) {
        for (k, v) in from {
            match (into.get_mut(&k), v) {
                (Some(toml::Value::Table(a)), toml::Value::Table(b)) => merge(a, b),
                (_, v) => {
                    into.insert(k, v);
                }
            }
        }
    }
    let mut doc: toml::Table = base.parse().expect("base scenario");
    merge(&mut doc, extra.parse().unwrap_or_else(|e| panic!("variant {extra}: {e}")));
    doc.to_string()
}

/// A 16-host leaf-spine under RoCE with 1 MB buffers and ECN: Poisson Web Search plus a
/// periodic 8-to-1 incast.
fn roce(extra: &str) -> String {
    let base = "seed = 3\n\
         [topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 4\nhosts_per_leaf = 4\n\
         host_rate = \"100Gbps\"\nfabric_rate = \"100Gbps\"\nhost_delay = \"1us\"\nfabric_delay = \"1us\"\n\
         [switch]\nbuffer_bytes = \"1MB\"\n[switch.ecn]\nkmin = \"20KB\"\nkmax = \"100KB\"\n\
         [[workload]]\nkind = \"poisson\"\nsize_dist = \"websearch\"\nload = 0.6\nstop = \"200us\"\ntag = \"bg\"\n\
         [[workload]]\nkind = \"incast\"\nreceiver = 1\nfan_in = 8\nsize_min = \"64KB\"\nsize_max = \"64KB\"\n\
         period = \"100us\"\nstop = \"200us\"\ntag = \"incast\"\n";
    merged(base, extra)
}

/// A 32-host leaf-spine under TCP with per-port buffers, background and queries.
fn tcp(extra: &str) -> String {
    let base = "seed = 5\n\
         [topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 4\nhosts_per_leaf = 8\n\
         host_rate = \"10Gbps\"\nfabric_rate = \"40Gbps\"\nhost_delay = \"1us\"\nfabric_delay = \"2us\"\n\
         [switch.flow_control]\nkind = \"none\"\n\
         [switch.admission]\nkind = \"static_per_port\"\nbytes = \"60KB\"\n\
         [switch.ecn]\nenabled = true\nkmin = \"30KB\"\nkmax = \"30KB\"\npmax = 1.0\nscale_with_rate = false\n\
         [[workload]]\nkind = \"poisson\"\nsize_dist = \"cachefollower\"\nload = 0.4\nstop = \"2ms\"\ntag = \"bg\"\n\
         [[workload]]\nkind = \"query\"\nfan_out = 16\nresponse_size = \"20KB\"\nqps = 2000\nstop = \"2ms\"\ntag = \"query\"\n";
    merged(base, extra)
}

/// PFC with static thresholds, under the PFC family's rows (as `roce-pfc-static`).
const PFC_STATIC: &str =
    "[switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"40KB\"\nxon_bytes = \"20KB\"\n";

const TCP_DCTCP: &str = "[transport]\nkind = \"tcp\"\ncc = \"dctcp\"\nmtu = 1452\nheader_bytes = 48\n";

/// Every scenario of the matrix, by name.
fn matrix() -> Vec<(&'static str, String)> {
    let all_outputs = "[output]\ncontrol_frames = true\nrate_trace = { flows = [0, 3], interval = \"5us\" }\n\
                       queues = { interval = \"10us\", per_queue = true }\nthroughput = { interval = \"10us\" }\n\
                       packet_trace = { flows = [2, 5], max_records = 5000 }\n";
    let tcp_with = |defl: &str| tcp(&format!("{TCP_DCTCP}[switch.deflection]\n{defl}\n"));
    vec![
        ("roce-pfc-dcqcn", roce(all_outputs)),
        ("roce-pfc-01-settings", roce("[switch]\nack_queue = \"control\"\necn = { random_stream = \"shared\" }\n")),
        ("roce-pfc-static", roce(
            "[switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"40KB\"\nxon_bytes = \"20KB\"\n[output]\npfc_events = true\n",
        )),
        ("roce-hpcc", roce("[switch]\nint = true\n[transport]\ncc = \"hpcc\"\n")),
        // HPCC turns INT on by itself: the same run as above.
        ("roce-hpcc-implied-int", roce("[transport]\ncc = \"hpcc\"\n")),
        ("roce-timely", roce("[transport]\ncc = \"timely\"\n")),
        ("roce-dctcp", roce("[switch.ecn]\nenabled = true\n[transport]\ncc = \"dctcp\"\n")),
        ("roce-none-window", roce("[transport]\ncc = \"none\"\nwindow = \"bdp\"\n")),
        ("roce-ns3-compat", roce("compat = \"ns3\"\n[switch]\nint = true\n[transport]\ncc = \"hpcc\"\n")),
        ("roce-lossy-irn", roce(
            "[switch]\nbuffer_bytes = \"600KB\"\n[switch.flow_control]\nkind = \"none\"\n[transport]\nloss_recovery = \"irn\"\n",
        )),
        ("roce-lossy-gbn", roce("[switch]\nbuffer_bytes = \"600KB\"\n[switch.flow_control]\nkind = \"none\"\n")),
        ("roce-drill", roce("[routing]\nload_balancer = \"drill\"\n")),
        ("mp-rdma", roce("[transport]\nkind = \"mp_rdma\"\ncc = \"none\"\n")),
        (
            "roce-drill-reorder-buffer",
            roce("[routing]\nload_balancer = \"drill\"\n[transport.reorder_buffer]\nenabled = true\n"),
        ),
        ("roce-letflow", roce("[routing]\nload_balancer = \"letflow\"\n[routing.letflow]\nflowlet_timeout = \"5us\"\n")),
        (
            "roce-letflow-source-tor",
            roce("[routing]\nload_balancer = \"letflow\"\n[routing.letflow]\nflowlet_timeout = \"5us\"\npath_choice = \"source_tor\"\n"),
        ),
        ("roce-proteus", roce("[routing]\nload_balancer = \"proteus\"\n")),
        ("roce-conga", roce("[routing]\nload_balancer = \"conga\"\n[routing.conga]\nflowlet_timeout = \"5us\"\n")),
        ("roce-hermes", roce("[routing]\nload_balancer = \"hermes\"\n[routing.hermes]\nt_rtt_low = \"5us\"\nt_rtt_high = \"8us\"\ndelta_rtt = \"2us\"\n")),
        ("roce-per-flow", roce("[switch.flow_control]\nkind = \"per_flow\"\n[output]\ncontrol_frames = true\n")),
        ("roce-bfc8", roce("[switch.flow_control]\nkind = \"bfc\"\nqueues = 8\n[output]\ncontrol_frames = true\n")),
        ("roce-bfc-exact", roce("[switch.flow_control]\nkind = \"bfc\"\nfids_per_queue = 0\n")),
        (
            "roce-aquarius8",
            roce("[switch.flow_control]\nkind = \"aquarius\"\n[output]\ncontrol_frames = true\n"),
        ),
        ("roce-ofc", roce("[switch.flow_control]\nkind = \"ofc\"\n[output]\ncontrol_frames = true\n")),
        ("roce-capfc", roce(&format!("{PFC_STATIC}[switch.flow_control]\nkind = \"capfc\"\negress_threshold = \"100KB\"\n"))),
        ("roce-ppfc", roce(&format!("{PFC_STATIC}[switch.flow_control]\nkind = \"ppfc\"\n"))),
        ("roce-ppfc-derivative", roce(&format!("{PFC_STATIC}[switch.flow_control]\nkind = \"ppfc\"\nform = \"derivative\"\n"))),
        ("roce-gpfc", roce(&format!("{PFC_STATIC}[switch.flow_control]\nkind = \"gpfc\"\nlow_priority_from = 3\n"))),
        ("roce-gfc", roce(&format!("{PFC_STATIC}[switch.flow_control]\nkind = \"gfc\"\n[output]\ncontrol_frames = true\n"))),
        ("roce-faults-deadlock-detector", roce(
            "[[faults]]\nlink = [16, 20]\ndown = \"50us\"\nup = \"120us\"\n[[faults]]\nlink = [17, 21]\ndown = \"80us\"\n\
             [output.deadlock]\ninterval = \"5us\"\nhold = \"50us\"\nstop = false\n",
        )),
        ("roce-pyrrha", roce(
            "[switch.flow_control]\nkind = \"pyrrha\"\n[output]\ncontrol_frames = true\n\
             congestion_trees = { interval = \"20us\" }\n",
        )),
        ("roce-pyrrha-single-tier", roce(
            "[switch.flow_control]\nkind = \"pyrrha\"\nisolation_queues = \"single_tier\"\niq_limit = 4\n",
        )),
        ("roce-pyrrha-drill", roce("[routing]\nload_balancer = \"drill\"\n[switch.flow_control]\nkind = \"pyrrha\"\n")),
        ("roce-faults", roce(
            "[[faults]]\nlink = [16, 20]\ndown = \"50us\"\nup = \"120us\"\n[[faults]]\nlink = [17, 21]\ndown = \"80us\"\n",
        )),
        ("roce-groups", roce(
            "[switch]\nint = true\n[transport]\ncc = \"dcqcn\"\n[[transport.groups]]\nhosts = [0, 1, 2, 3]\ncc = \"hpcc\"\n",
        )),
        ("tcp-dctcp", tcp(TCP_DCTCP)),
        ("tcp-reno-sack-delack", tcp(
            "[transport]\nkind = \"tcp\"\ncc = \"reno\"\n[transport.tcp]\nsack = true\ndelayed_ack = \"20us\"\n",
        )),
        ("tcp-swift", tcp("[transport]\nkind = \"tcp\"\ncc = \"swift\"\n")),
        ("tcp-bolt", tcp("[transport]\nkind = \"tcp\"\ncc = \"bolt\"\n")),
        ("tcp-dibs", tcp(&format!(
            "{TCP_DCTCP}[transport.tcp]\nfast_retransmit = false\n[switch.deflection]\nkind = \"dibs\"\n"
        ))),
        ("tcp-dibs-naive", tcp_with("kind = \"dibs_naive\"")),
        ("tcp-simple", tcp_with("kind = \"simple\"")),
        ("tcp-simple-live", tcp_with("kind = \"simple\"\nupdate_interval = \"0ns\"")),
        ("tcp-pd-quantile", tcp(&format!(
            "{TCP_DCTCP}[transport.tcp]\nreorder_timeout = \"50us\"\n[switch.deflection]\nkind = \"preemptive\"\n"
        ))),
        ("tcp-pd-distribution-prob", tcp_with(
            "kind = \"preemptive\"\npriority = \"distribution\"\nalgorithm = \"probabilistic\"",
        )),
        ("tcp-vertigo", tcp(&format!(
            "{TCP_DCTCP}rank_retransmit_boost = true\n[transport.tcp]\nreorder_timeout = \"50us\"\n\
             [switch.deflection]\nkind = \"vertigo\"\n"
        ))),
        ("tcp-aifo-las", tcp(&format!(
            "{TCP_DCTCP}rank = \"las\"\n[switch.deflection]\nkind = \"aifo\"\n"
        ))),
    ]
}

#[test]
fn every_mechanism_reproduces_its_recorded_fingerprint() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/fingerprints.txt");
    let mut got = String::new();
    for (name, text) in matrix() {
        let scenario = Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut sim = Simulator::new(scenario).unwrap_or_else(|e| panic!("{name}: {e}"));
        sim.run();
        writeln!(got, "{name}: {}", fingerprint(&sim)).unwrap();
    }
    if std::env::var_os("HOPSIM_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want =
        std::fs::read_to_string(&path).expect("tests/golden/fingerprints.txt (HOPSIM_BLESS=1 records it)");
    let (want_lines, got_lines): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let differing: Vec<String> = got_lines
        .iter()
        .zip(want_lines.iter().chain(std::iter::repeat(&"")))
        .filter(|(g, w)| g != w)
        .map(|(g, w)| format!("  want {w}\n  got  {g}"))
        .collect();
    assert!(
        differing.is_empty() && got_lines.len() == want_lines.len(),
        "{} of {} fingerprints differ:\n{}",
        differing.len(),
        got_lines.len(),
        differing.join("\n")
    );
}
