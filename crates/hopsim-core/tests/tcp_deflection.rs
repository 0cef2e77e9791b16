//! The TCP family and the deflection policies: each mechanism's defining behaviour (the
//! deflection issue's "must show" list).

mod common;

use common::{assert_drained, fct_us, run};
use hopsim_core::metrics::FlowRecord;

/// A dumbbell: `left` senders at `host_rate` into one receiver behind a `bottleneck`,
/// TCP with congestion control `cc`, per-port buffers of `buffer`, plus `extra` TOML.
fn dumbbell(
    left: u32,
    host_rate: &str,
    bottleneck: &str,
    buffer: &str,
    cc: &str,
    flows: &str,
    extra: &str,
) -> String {
    format!(
        "seed = 1\n[topology]\nkind = \"dumbbell\"\nleft_hosts = {left}\nright_hosts = 1\n\
         host_rate = \"{host_rate}\"\nbottleneck_rate = \"{bottleneck}\"\n\
         [switch.pfc]\nenabled = false\n\
         [switch.admission]\nkind = \"static_per_port\"\nbytes = \"{buffer}\"\n\
         [transport]\nkind = \"tcp\"\ncc = \"{cc}\"\nmtu = 1452\n{extra}\n\
         [workload]\nkind = \"flows\"\nflows = [{flows}]\n"
    )
}

fn records(s: &hopsim_core::Simulator) -> Vec<FlowRecord> {
    s.flow_records()
}

/// NewReno: a slow-start burst into a 100→10 Gb/s step overflows a 60 KB buffer; every
/// loss is repaired by fast retransmit and fast recovery, with no timeout. With fast
/// retransmit off (as DIBS runs TCP) the same losses wait for the 10 ms timer.
#[test]
fn newreno_repairs_losses_by_fast_retransmit_without_timeout() {
    let flow = "{ src = 0, dst = 1, size = \"3MB\" }";
    let s = run(&dumbbell(1, "100Gbps", "10Gbps", "60KB", "reno", flow, ""));
    assert_drained(&s);
    let sum = s.summary();
    let r = &records(&s)[0];
    assert!(sum.drops.total() > 0, "slow start overflows the buffer");
    assert!(r.retransmitted_bytes > 0);
    assert_eq!(r.timeouts, 0, "fast recovery repairs every loss");
    assert!(fct_us(r) < 5_000.0, "no 10 ms timeout: {} us", fct_us(r));

    let no_fr =
        dumbbell(1, "100Gbps", "10Gbps", "60KB", "reno", flow, "[transport.tcp]\nfast_retransmit = false");
    let s = run(&no_fr);
    let r = &records(&s)[0];
    assert!(r.timeouts >= 1, "without fast retransmit losses need the timer");
    assert!(fct_us(r) > 10_000.0, "{} us", fct_us(r));
}

/// The window doubles per round trip in slow start and grows by about one segment per
/// round trip in congestion avoidance after the first loss.
#[test]
fn cwnd_follows_slow_start_then_congestion_avoidance() {
    let flow = "{ src = 0, dst = 1, size = \"20MB\" }";
    let toml = dumbbell(
        1,
        "100Gbps",
        "10Gbps",
        "200KB",
        "reno",
        flow,
        "[output.rate_trace]\nflows = [0]\ninterval = \"2us\"",
    );
    let s = run(&toml);
    let w: Vec<(f64, u64)> =
        s.rate_trace().iter().map(|t| (t.time.as_ns_f64() / 1000.0, t.window_bytes)).collect();
    let mss = 1452;
    // Slow start: from 10 segments, at least 4 doublings before the first decrease.
    let first_cut = w.windows(2).position(|p| p[1].1 < p[0].1).expect("a loss halves the window");
    let peak = w[first_cut].1;
    assert!(peak >= 10 * mss * 16, "slow start reached {} segments", peak / mss);
    // Congestion avoidance: after the last decrease, growth per round trip ≈ one segment.
    let last_cut = w.windows(2).rposition(|p| p[1].1 < p[0].1).expect("cuts") + 1;
    let tail = &w[last_cut..];
    assert!(tail.len() > 200, "a long congestion-avoidance phase: {} samples", tail.len());
    let (t0, w0) = tail[0];
    let (t1, w1) = *tail.last().expect("samples");
    // The round trip grows with the queue: bound it by the base RTT (≈ 9 µs) and the
    // RTT with a full 200 KB queue (≈ 170 µs).
    let segments = (w1 - w0) as f64 / mss as f64;
    let span = t1 - t0;
    assert!(segments > 0.0, "still growing");
    assert!(segments <= span / 9.0 + 2.0, "at most one segment per base RTT: {segments} in {span} us");
    assert!(segments >= span / 200.0 - 2.0, "about one per RTT: {segments} in {span} us");
}

/// Two NewReno flows through one 10 Gb/s bottleneck share it: they finish within 10 %
/// of each other.
#[test]
fn two_newreno_flows_share_a_bottleneck_fairly() {
    let flows = "{ src = 0, dst = 2, size = \"30MB\" }, { src = 1, dst = 2, size = \"30MB\" }";
    let s = run(&dumbbell(2, "10Gbps", "10Gbps", "150KB", "reno", flows, ""));
    assert_drained(&s);
    let r = records(&s);
    let (a, b) = (fct_us(&r[0]), fct_us(&r[1]));
    assert!((a - b).abs() / a.max(b) < 0.10, "{a} vs {b} us");
    // Together they use the link: 60 MB at 10 Gb/s (with headers) is ≈ 49.6 ms.
    assert!(a.max(b) < 49_587.0 * 1.10, "{} us", a.max(b));
}

/// DCTCP keeps the bottleneck queue near K (65 packets) while the link stays busy.
#[test]
fn dctcp_holds_the_queue_near_k_at_full_utilisation() {
    let flows = "{ src = 0, dst = 2, size = \"8MB\" }, { src = 1, dst = 2, size = \"8MB\" }";
    let extra = "[switch.ecn]\nenabled = true\nkmin = \"97500B\"\nkmax = \"97500B\"\npmax = 1.0\n\
                 scale_with_rate = false\nmark_at = \"enqueue\"\n[output.queues]\ninterval = \"20us\"";
    let s = run(&dumbbell(2, "10Gbps", "10Gbps", "300KB", "dctcp", flows, extra));
    assert_drained(&s);
    let r = records(&s);
    let done = fct_us(&r[0]).max(fct_us(&r[1]));
    let ideal = 16e6 * 1500.0 / 1452.0 * 8.0 / 10e9 * 1e6;
    assert!(done < ideal * 1.05, "full utilisation: {done} us against {ideal} us");
    assert_eq!(s.summary().drops.total(), 0, "the queue stays below the 300 KB buffer");
    // The left switch's port onto the bottleneck link: its samples after warm-up.
    let bottleneck = s.port_id(hopsim_core::ids::NodeId(3), 2);
    let q: Vec<u64> = s
        .queue_samples()
        .iter()
        .filter(|x| x.port == bottleneck && x.time.as_ns_f64() > 1e6 && x.time.as_ns_f64() < done * 1000.0)
        .map(|x| x.bytes)
        .collect();
    assert!(q.len() > 50, "{} samples", q.len());
    let mean = q.iter().sum::<u64>() as f64 / q.len() as f64;
    assert!((30_000.0..150_000.0).contains(&mean), "mean queue {mean} B against K = 97,500 B");
}

/// Swift holds the fabric delay at its target: with hop and flow scaling off, four flows
/// keep the bottleneck's queuing delay near `base_target − base RTT`.
#[test]
fn swift_holds_its_target_delay() {
    let flows: String =
        (0..4).map(|i| format!("{{ src = {i}, dst = 4, size = \"4MB\" }}, ")).collect::<String>();
    let extra = "[transport.swift]\nbase_target = \"60us\"\nhop_scale = \"0us\"\nfs_range = \"0us\"\n\
                 [output.queues]\ninterval = \"20us\"";
    let s = run(&dumbbell(4, "10Gbps", "10Gbps", "1MB", "swift", &flows, extra));
    assert_drained(&s);
    assert_eq!(s.summary().drops.total(), 0);
    let done = records(&s).iter().map(fct_us).fold(0.0, f64::max);
    let bottleneck = s.port_id(hopsim_core::ids::NodeId(5), 4);
    let q: Vec<f64> = s
        .queue_samples()
        .iter()
        .filter(|x| x.port == bottleneck && x.time.as_ns_f64() > 1e6 && x.time.as_ns_f64() < done * 900.0)
        .map(|x| x.bytes as f64 * 8.0 / 10e9 * 1e6)
        .collect();
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    // Base RTT ≈ 4 links × 2 × 1 µs + serialization ≈ 10 µs: the queue holds ≈ 50 µs.
    assert!((35.0..65.0).contains(&mean), "mean queuing delay {mean:.1} us, target 60 us less the base RTT");
}

/// Bolt: the first window cut comes within one base RTT of the queue crossing
/// `cc_thresh` — the switch's SRC reaches the sender before any ACK could.
#[test]
fn bolt_reacts_within_one_rtt_of_congestion() {
    let flows: String = (0..4)
        .map(|i| format!("{{ src = {i}, dst = 4, size = \"500KB\", start = \"{}us\" }}, ", 50 * i))
        .collect::<String>();
    let extra = "[transport.tcp]\ninitial_window = 10\n[transport.bolt]\ncc_thresh = \"10000B\"\n\
                 [output.queues]\ninterval = \"200ns\"\n[output.rate_trace]\nflows = [0, 1, 2, 3]\ninterval = \"200ns\"";
    let s = run(&dumbbell(4, "10Gbps", "10Gbps", "1MB", "bolt", &flows, extra));
    assert_drained(&s);
    assert!(s.summary().bolt_srcs > 0, "switches sent SRCs");
    let bottleneck = s.port_id(hopsim_core::ids::NodeId(5), 4);
    let crossed = s
        .queue_samples()
        .iter()
        .find(|x| x.port == bottleneck && x.bytes >= 10_000)
        .map(|x| x.time.as_ns_f64())
        .expect("the queue crosses cc_thresh");
    let trace = s.rate_trace();
    let mut cut = f64::INFINITY;
    for f in 0..4u32 {
        let w: Vec<_> = trace.iter().filter(|t| t.flow == f).collect();
        if let Some(p) = w.windows(2).find(|p| p[1].window_bytes < p[0].window_bytes) {
            cut = cut.min(p[1].time.as_ns_f64());
        }
    }
    let base_rtt_ns = 10_000.0;
    assert!(
        cut >= crossed && cut - crossed < base_rtt_ns,
        "queue crossed at {crossed} ns, first cut at {cut} ns"
    );
}

/// The same scenario and seed give the same flows, under every TCP congestion control
/// and deflection policy.
#[test]
fn tcp_and_deflection_runs_are_deterministic() {
    for (cc, deflection) in
        [("reno", "dibs"), ("dctcp", "preemptive"), ("swift", "vertigo"), ("bolt", "simple")]
    {
        let toml = leaf_spine(cc, deflection, "");
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

/// A small leaf-spine (2 spines, 2 leaves, 8 hosts per leaf, 10/10 Gb/s, 30 KB per port)
/// under a 15-to-1 incast plus background, with TCP `cc` and deflection `kind`.
fn leaf_spine(cc: &str, kind: &str, extra: &str) -> String {
    let incast: String =
        (1..16).map(|i| format!("{{ src = {i}, dst = 0, size = \"60KB\", tag = \"incast\" }}, ")).collect();
    format!(
        "seed = 3\n[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 2\nhosts_per_leaf = 8\n\
         host_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\n\
         [switch.pfc]\nenabled = false\n[switch.admission]\nkind = \"static_per_port\"\nbytes = \"30KB\"\n\
         [switch.deflection]\nkind = \"{kind}\"\n\
         [transport]\nkind = \"tcp\"\ncc = \"{cc}\"\nmtu = 1452\n{extra}\n\
         [[workload]]\nkind = \"flows\"\nflows = [{incast}{{ src = 2, dst = 12, size = \"2MB\", tag = \"long\" }}]\n"
    )
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
    let s = run(&dumbbell(2, "100Gbps", "10Gbps", "60KB", "reno", flows, &vertigo));
    assert_drained(&s);
    let r = records(&s);
    let (long, short) = (&r[0], &r[1]);
    assert!(long.deflections > 0, "the long flow's packets are taken out and deflected");
    assert_eq!(short.deflections, 0, "the short flow's never are");
    assert_eq!(short.retransmitted_bytes, 0, "nor lost");
}

/// The ordering layer: under per-packet load balancing (DCTCP keeps the queues short,
/// so no packet waits longer than the layer's timeout) packets of a flow overtake each
/// other; with the layer, TCP sees them in order (held, never released out of order) and
/// sends no spurious retransmission; without it, duplicate ACKs trigger them.
#[test]
fn ordering_layer_delivers_every_flow_in_order_despite_reordering() {
    let flows: String =
        (0..8).map(|i| format!("{{ src = {i}, dst = {}, size = \"1MB\" }}, ", 8 + i)).collect();
    let toml = |layer: &str| {
        format!(
            "seed = 2\n[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 2\nhosts_per_leaf = 8\n\
             host_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\n\
             [routing]\nload_balancer = \"drill\"\n[routing.drill]\nsamples = 2\nmemory = 0\n\
             [switch.pfc]\nenabled = false\n[switch.admission]\nkind = \"static_per_port\"\nbytes = \"1MB\"\n\
             [switch.ecn]\nenabled = true\nkmin = \"30KB\"\nkmax = \"30KB\"\npmax = 1.0\n\
             scale_with_rate = false\nmark_at = \"enqueue\"\n\
             [transport]\nkind = \"tcp\"\ncc = \"dctcp\"\nmtu = 1452\n{layer}\n\
             [workload]\nkind = \"flows\"\nflows = [{flows}]\n"
        )
    };
    let with = run(&toml("[transport.tcp]\nreorder_timeout = \"360us\""));
    assert_drained(&with);
    let sum = with.summary();
    assert_eq!(sum.drops.total(), 0);
    assert!(sum.reordering_ratio > 0.0, "packets arrive out of order");
    assert!(sum.reorder_held > 0, "the layer held them");
    assert_eq!(sum.reorder_released, 0, "and passed every one on in order");
    assert_eq!(sum.retransmitted_bytes, 0, "no spurious fast retransmit");
    let without = run(&toml(""));
    assert!(without.summary().reordering_ratio > 0.0);
    assert_eq!(without.summary().reorder_held, 0, "no layer, nothing held");

    // Deflection reorders too: Preemptive Deflection under an incast, with the layer,
    // delivers every byte of every flow.
    let pd = run(&leaf_spine("dctcp", "preemptive", "[transport.tcp]\nreorder_timeout = \"360us\""));
    assert_drained(&pd);
    let sum = pd.summary();
    assert!(
        sum.deflections > 0 && sum.reorder_held > 0,
        "{} deflections, {} held",
        sum.deflections,
        sum.reorder_held
    );
    // Every delivered data packet is counted by the extra switch hops its deflections cost:
    // a bounce off a neighbouring switch costs two.
    let hist = &sum.deflection_extra_hops;
    assert_eq!(hist.iter().sum::<u64>(), sum.data_packets_delivered);
    assert!(hist.iter().skip(2).sum::<u64>() > 0, "deflected packets took extra hops: {hist:?}");
    assert_eq!(hist.get(1).copied().unwrap_or(0), 0, "a detour is a round trip: {hist:?}");
}

/// Bad input: TCP-only congestion controls on RoCE, and the reverse, name the field.
#[test]
fn transport_and_cc_mismatches_are_refused() {
    let base = "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
                [workload]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = \"1KB\" }]\n";
    for (transport, field) in [
        ("[transport]\ncc = \"swift\"", "transport.cc"),
        ("[transport]\nkind = \"tcp\"\ncc = \"dcqcn\"", "transport.cc"),
        ("[transport]\nkind = \"tcp\"\ncc = \"reno\"", "transport.kind"),
    ] {
        let toml = format!("{base}{transport}\n");
        let s = hopsim_core::Scenario::from_toml_str(&toml).expect("parses");
        let e = hopsim_core::Simulator::new(s).err().expect("refused").to_string();
        assert!(e.starts_with(field), "{transport}: {e}");
    }
}

/// Bolt's supply matching: while a link is under-used its switch grants increase
/// requests (a segment per granted ACK), so a lone flow grows faster than by the
/// once-per-RTT additive increase alone (PRU and SM off). Grants stop once its packets
/// arrive back to back at the line rate (supply no longer exceeds demand).
#[test]
fn bolt_supply_matching_grants_increases_on_an_idle_link() {
    let flow = "{ src = 0, dst = 1, size = \"2MB\" }";
    let window_at = |extra: &str| {
        let toml = dumbbell(
            1,
            "10Gbps",
            "100Gbps",
            "1MB",
            "bolt",
            flow,
            &format!("[transport.tcp]\ninitial_window = 1\n{extra}[output.rate_trace]\nflows = [0]\ninterval = \"1us\""),
        );
        let s = run(&toml);
        assert_drained(&s);
        // The window 60 µs in (about six round trips).
        s.rate_trace()
            .iter()
            .find(|t| t.time.as_ns_f64() >= 60_000.0)
            .map(|t| t.window_bytes)
            .expect("sampled")
    };
    let with_sm = window_at("");
    let without = window_at("[transport.bolt]\npru = false\nsm = false\n");
    assert!(without <= 10 * 1452, "additive increase only: {} segments", without / 1452);
    assert!(with_sm * 2 >= 3 * without, "granted increases: {with_sm} B against {without} B");
}
