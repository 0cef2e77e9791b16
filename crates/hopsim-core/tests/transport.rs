//! Transports and their loss recovery: without PFC RoCE's go-back-N recovers an incast's
//! drops, IRN with fewer retransmitted bytes; behind PFC IRN does not time out spuriously;
//! flows finish when ACKs are dropped; a sending window caps the bytes in flight; TCP
//! receive window caps TCP's unacknowledged bytes; NewReno repairs losses by fast
//! retransmit and fast recovery; the receivers' ordering
//! layer hands TCP every flow in order despite per-packet load balancing and deflection.

mod common;

use common::{
    assert_drained, fct_us, records, refusal, run, sim, tcp_dumbbell, tcp_incast_leaf_spine, INCAST_32,
};
use hopsim_core::ids::FlowId;
use hopsim_core::time::SimTime;

/// The same incast without PFC and with a small buffer drops packets, and go-back-N
/// still delivers every flow.
#[test]
fn incast_without_pfc_drops_and_recovers() {
    let toml = INCAST_32
        .replace("buffer_bytes = \"2MB\"", "buffer_bytes = \"500KB\"\n[switch.pfc]\nenabled = false");
    let s = run(&toml);
    let sum = s.summary();
    assert!(sum.drops.total() > 0, "drops appear without PFC");
    assert_eq!(sum.pfc_pause_frames, 0);
    assert!(sum.retransmitted_bytes > 0);
    assert_drained(&s);
}

/// IRN without PFC recovers every loss of a 32-to-1 incast into a small buffer: every flow
/// finishes and every packet sent is delivered or counted as dropped. Go-back-N recovers
/// too, but resends whole windows: more retransmitted bytes than IRN's selective repair.
/// Both run with a BDP window (IRN's BDP-FC, §3.2) and fixed-rate senders.
#[test]
fn irn_recovers_losses_with_fewer_retransmissions_than_go_back_n() {
    let scenario = |recovery: &str| {
        INCAST_32
            .replace("buffer_bytes = \"2MB\"", "buffer_bytes = \"500KB\"\n[switch.pfc]\nenabled = false")
            .replace(
                "cc = \"none\"",
                &format!("cc = \"none\"\nwindow = \"bdp\"\nloss_recovery = \"{recovery}\""),
            )
    };
    let irn = run(&scenario("irn"));
    let gbn = run(&scenario("go_back_n"));
    for s in [&irn, &gbn] {
        assert!(s.summary().drops.total() > 0, "the buffer overflows");
        assert_drained(s);
    }
    let (r_irn, r_gbn) = (irn.summary().retransmitted_bytes, gbn.summary().retransmitted_bytes);
    eprintln!("retransmitted bytes: IRN {r_irn}, go-back-N {r_gbn}");
    assert!(r_irn < r_gbn, "IRN {r_irn} vs go-back-N {r_gbn}");
}

/// IRN behind PFC: a 100 µs RTO_low fires while packets wait out PAUSEs, with nothing lost
/// (every retransmission spurious). Under lossless flow control IRN's timeouts therefore
/// default to `transport.rto`; given explicitly, they are used as given.
#[test]
fn irn_behind_pfc_does_not_time_out_spuriously() {
    let scenario = |irn: &str| {
        format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 16\nright_hosts = 1\n\
             [transport]\ncc = \"none\"\nloss_recovery = \"irn\"\n{irn}\n\
             [workload]\nkind = \"incast\"\nreceiver = 16\nfan_in = 16\nsize_min = \"2KB\"\nsize_max = \"500KB\"\n\
             period = \"20us\"\nstop = \"400us\"\n"
        )
    };
    let auto = run(&scenario("")).summary();
    let paper = run(&scenario("[transport.irn]\nrto_low = \"100us\"\nrto_high = \"320us\"")).summary();
    assert_eq!(auto.drops.total(), 0);
    assert_eq!(paper.drops.total(), 0);
    assert_eq!((auto.timeouts, auto.retransmitted_bytes), (0, 0));
    assert!(paper.timeouts > 0 && paper.retransmitted_bytes > 0, "{} timeouts", paper.timeouts);
}

/// ACKs queued with data can be dropped by a lossy switch (here ACKs to host 4 queue
/// behind an incast into it). A flow whose final ACK was lost still finishes: the receiver
/// acknowledges the duplicates the sender's timeout resends.
#[test]
fn flows_finish_when_acks_are_dropped() {
    let s = run(r#"
        duration = "100ms"
        [topology]
        kind = "fat_tree"
        k = 4
        [switch]
        buffer_bytes = "2MB"
        ack_queue = "data"
        [switch.pfc]
        enabled = false
        [switch.admission]
        kind = "static_per_port"
        bytes = "30KB"
        [transport]
        rto = "200us"
        [[workload]]
        kind = "incast"
        receiver = 0
        fan_in = 12
        senders = [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
        size_min = "50KB"
        size_max = "50KB"
        period = "50us"
        stop = "400us"
        # A second incast into one of the senders: its ACKs from host 0 queue behind it.
        [[workload]]
        kind = "incast"
        receiver = 4
        fan_in = 8
        senders = [8, 9, 10, 11, 12, 13, 14, 15]
        size_min = "200KB"
        size_max = "200KB"
        period = "100us"
        stop = "400us"
    "#);
    let sum = s.summary();
    assert!(sum.control_drops > 0, "some ACKs were dropped");
    assert!(sum.drops.total() > 0);
    assert_drained(&s);
}

/// A sending window caps the bytes in flight: a lone flow with a window much smaller than
/// the path's bandwidth-delay product moves one window per round trip.
#[test]
fn window_bounds_bytes_in_flight() {
    let scenario = |window: &str| {
        format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
             [transport]\ncc = \"none\"\nwindow = {window}\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"1MB\" }}]\n"
        )
    };
    let open = run(&scenario("\"none\""));
    let bdp = run(&scenario("\"bdp\""));
    // Trace the bytes in flight every 100 ns: never above the window.
    let mut small = sim(&scenario("\"5KB\""));
    let (mut t, mut peak) = (0, 0);
    while !small.is_done() {
        t += 100_000;
        small.run_until(SimTime(t));
        peak = peak.max(small.flow_in_flight(FlowId(0)));
    }
    assert!(peak <= 5_000, "in flight {peak} B with a 5 KB window");
    assert!(peak >= 4_000, "the window is used: {peak} B in flight");
    let fct = |s: &hopsim_core::Simulator| fct_us(&s.flow_records()[0]);
    // A BDP window does not slow the flow; a 5 KB window does, to about one window per RTT.
    assert!((fct(&bdp) / fct(&open) - 1.0).abs() < 0.02, "bdp {} vs open {}", fct(&bdp), fct(&open));
    // RTT of a full window: 3 links × 2 × 1 µs propagation + serialization of 5 packets and an ACK.
    let rtt_us = 6.0 + (5.0 * 1048.0 + 60.0) * 8.0 / 100e3 + 2.0 * 1048.0 * 8.0 / 100e3;
    let predicted = 1_000_000.0 / 5_000.0 * rtt_us;
    let ratio = fct(&small) / predicted;
    assert!((0.9..1.1).contains(&ratio), "5 KB window: {:.1} us, predicted {predicted:.1} us", fct(&small));
    assert_drained(&small);
}

/// TCP's receive window (`transport.tcp.receive_window`): the sender keeps no more than the
/// advertised bytes unacknowledged, however far slow start has opened its congestion
/// window, so a long flow runs at about one receive window per round trip; without it the
/// same flow has far more in flight. Deterministic, and a zero window is refused by name.
#[test]
fn receive_window_caps_unacknowledged_bytes() {
    let flow = "{ src = 0, dst = 1, size = \"3MB\" }";
    // 100 Gb/s into 10 Gb/s with room to queue: slow start's window fills the buffer.
    let scenario = |extra: &str| tcp_dumbbell(1, "100Gbps", "10Gbps", "1MB", "reno", flow, extra);
    let rwnd = "[transport.tcp]\nreceive_window = \"2904B\"";
    let peak_of = |toml: &str| {
        let mut s = sim(toml);
        let (mut t, mut peak) = (0, 0);
        while !s.is_done() {
            t += 100_000;
            s.run_until(SimTime(t));
            peak = peak.max(s.flow_in_flight(FlowId(0)));
        }
        assert_drained(&s);
        (peak, fct_us(&s.flow_records()[0]))
    };
    let (open_peak, open_fct) = peak_of(&scenario(""));
    let (peak, fct) = peak_of(&scenario(rwnd));
    assert!(open_peak > 20 * 2_904, "without a receive window: {open_peak} B in flight");
    assert!(peak <= 2_904, "in flight {peak} B with a 2,904 B receive window");
    assert!(peak > 1_452, "the window is used: {peak} B in flight");
    assert!(fct > 1.5 * open_fct, "capped {fct:.0} us against {open_fct:.0} us");
    // Deterministic.
    let again = run(&scenario(rwnd));
    assert_eq!(fct, fct_us(&again.flow_records()[0]));
    // A zero window would stall the flow: refused, naming the field.
    let bad = refusal(&scenario("[transport.tcp]\nreceive_window = \"0B\""));
    assert!(bad.contains("transport.tcp.receive_window"), "{bad}");
}

/// NewReno: a slow-start burst into a 100→10 Gb/s step overflows a 60 KB buffer; every
/// loss is repaired by fast retransmit and fast recovery, with no timeout. With fast
/// retransmit off (as DIBS runs TCP) the same losses wait for the 10 ms timer.
#[test]
fn newreno_repairs_losses_by_fast_retransmit_without_timeout() {
    let flow = "{ src = 0, dst = 1, size = \"3MB\" }";
    let s = run(&tcp_dumbbell(1, "100Gbps", "10Gbps", "60KB", "reno", flow, ""));
    assert_drained(&s);
    let sum = s.summary();
    let r = &records(&s)[0];
    assert!(sum.drops.total() > 0, "slow start overflows the buffer");
    assert!(r.retransmitted_bytes > 0);
    assert_eq!(r.timeouts, 0, "fast recovery repairs every loss");
    assert!(fct_us(r) < 5_000.0, "no 10 ms timeout: {} us", fct_us(r));

    let no_fr = tcp_dumbbell(
        1,
        "100Gbps",
        "10Gbps",
        "60KB",
        "reno",
        flow,
        "[transport.tcp]\nfast_retransmit = false",
    );
    let s = run(&no_fr);
    let r = &records(&s)[0];
    assert!(r.timeouts >= 1, "without fast retransmit losses need the timer");
    assert!(fct_us(r) > 10_000.0, "{} us", fct_us(r));
}

/// The ordering layer: under per-packet spraying (DRILL with one sample and no memory: a
/// random uplink per packet; DCTCP keeps the queues short, so no packet waits longer than
/// the layer's timeout) packets of a flow overtake each other; with the layer, TCP sees
/// them in order (held, never released out of order) and sends no spurious retransmission;
/// without it, with nothing lost, duplicate ACKs trigger retransmissions. (DRILL(2, 0)
/// reorders too shallowly here for three duplicate ACKs: no resend either way.)
#[test]
fn ordering_layer_delivers_every_flow_in_order_despite_reordering() {
    let flows: String =
        (0..8).map(|i| format!("{{ src = {i}, dst = {}, size = \"1MB\" }}, ", 8 + i)).collect();
    let toml = |layer: &str| {
        format!(
            "seed = 2\n[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 2\nhosts_per_leaf = 8\n\
             host_rate = \"10Gbps\"\nfabric_rate = \"10Gbps\"\n\
             [routing]\nload_balancer = \"drill\"\n[routing.drill]\nsamples = 1\nmemory = 0\n\
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
    assert_drained(&without);
    let w = without.summary();
    eprintln!(
        "with the layer: reordering ratio {:.4}, {} held, {} released out of order, {} B resent; \
         without: reordering ratio {:.4}, {} B resent, {} drops",
        sum.reordering_ratio,
        sum.reorder_held,
        sum.reorder_released,
        sum.retransmitted_bytes,
        w.reordering_ratio,
        w.retransmitted_bytes,
        w.drops.total()
    );
    assert!(w.reordering_ratio > 0.0);
    assert_eq!(w.reorder_held, 0, "no layer, nothing held");
    assert_eq!(w.drops.total(), 0, "nothing lost without the layer either");
    assert!(w.retransmitted_bytes > 0, "without the layer, duplicate ACKs trigger spurious resends");

    // Deflection reorders too: Preemptive Deflection under an incast, with the layer,
    // delivers every byte of every flow.
    let pd =
        run(&tcp_incast_leaf_spine("dctcp", "preemptive", "[transport.tcp]\nreorder_timeout = \"360us\""));
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

/// RoCE over DRILL behind PFC: eight 1 MB flows across a leaf-spine, sprayed per packet.
fn roce_drill(extra: &str) -> String {
    let flows: String =
        (0..8).map(|i| format!("{{ src = {i}, dst = {}, size = \"1MB\" }}, ", 8 + i)).collect();
    format!(
        "seed = 2\n[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 2\nhosts_per_leaf = 8\n\
         [routing]\nload_balancer = \"drill\"\n[routing.drill]\nsamples = 1\nmemory = 0\n\
         [transport]\ncc = \"none\"\n{extra}\n\
         [workload]\nkind = \"flows\"\nflows = [{flows}]\n"
    )
}

/// The go-back-N receiver's reorder buffer (`transport.reorder_buffer`): under per-packet
/// spraying packets overtake each other; without the buffer every overtaking costs a NACK
/// and a resend from the gap; with it the receiver holds them (never more than its bound)
/// and delivers in order, with nothing resent. Reordering is counted at arrival either
/// way. A one-packet buffer overflows and falls back to NACKs; a gap timeout shorter than
/// the overtaking NACKs it.
#[test]
fn reorder_buffer_masks_reordering_from_go_back_n() {
    let without = run(&roce_drill(""));
    assert_drained(&without);
    let w = without.summary();
    assert!(w.reordering_ratio > 0.0, "DRILL reorders");
    assert!(w.retransmitted_bytes > 0, "go-back-N resends from every gap");
    assert_eq!(w.counter("reorder_buffer_held"), None, "no buffer, no counters");

    let with = run(&roce_drill("[transport.reorder_buffer]\nenabled = true\npackets = 64"));
    assert_drained(&with);
    let s = with.summary();
    let held = s.counter("reorder_buffer_held").unwrap();
    let max = s.counter("reorder_buffer_max_held").unwrap();
    eprintln!(
        "without: ratio {:.4}, {} B resent; with: ratio {:.4}, {} B resent, {held} held, max {max}, \
         {:?} full / {:?} timeout NACKs",
        w.reordering_ratio,
        w.retransmitted_bytes,
        s.reordering_ratio,
        s.retransmitted_bytes,
        s.counter("reorder_buffer_full_nacks"),
        s.counter("reorder_buffer_timeout_nacks"),
    );
    assert!(s.reordering_ratio > 0.0, "reordering is counted at arrival, buffer or not");
    assert!(held > 0 && max <= 64, "{held} held, at most {max} at once");
    assert_eq!(s.counter("reorder_buffer_full_nacks"), Some(0));
    assert_eq!(s.counter("reorder_buffer_timeout_nacks"), Some(0));
    assert_eq!(s.retransmitted_bytes, 0, "every held packet delivered in order, nothing resent");
    assert_eq!(with.flow_records()[0].loss_recovery, "go_back_n+reorder_buffer");
    assert!(
        with.notes().iter().all(|(topic, _)| *topic != "routing"),
        "no go-back-N warning with the buffer"
    );
    assert!(without.notes().iter().any(|(topic, _)| *topic == "routing"), "the warning without it");

    let tiny = run(&roce_drill("[transport.reorder_buffer]\nenabled = true\npackets = 1"));
    assert_drained(&tiny);
    let t = tiny.summary();
    assert!(t.counter("reorder_buffer_full_nacks").unwrap() > 0, "a one-packet buffer overflows");
    assert_eq!(t.counter("reorder_buffer_max_held"), Some(1));
    assert!(t.retransmitted_bytes > 0);

    let impatient = run(&roce_drill("[transport.reorder_buffer]\nenabled = true\ntimeout = \"1ns\""));
    assert_drained(&impatient);
    assert!(impatient.summary().counter("reorder_buffer_timeout_nacks").unwrap() > 0);

    // Real losses (no flow control, a small buffer): the gaps that never fill are NACKed once
    // they outlive the timeout, or the buffer fills; every flow still completes.
    let lossy = run(&roce_drill(
        "[transport.reorder_buffer]\nenabled = true\n[switch]\nbuffer_bytes = \"200KB\"\n\
         [switch.flow_control]\nkind = \"none\"",
    ));
    assert_drained(&lossy);
    let l = lossy.summary();
    assert!(l.drops.total() > 0, "the small buffer drops");
    let nacks =
        l.counter("reorder_buffer_timeout_nacks").unwrap() + l.counter("reorder_buffer_full_nacks").unwrap();
    eprintln!("lossy: {} drops, {nacks} NACKs from the buffer, {} timeouts", l.drops.total(), l.timeouts);
    assert!(nacks > 0, "lost packets' gaps are NACKed");

    // Deterministic.
    let again = run(&roce_drill("[transport.reorder_buffer]\nenabled = true\npackets = 64"));
    assert_eq!(format!("{:?}", again.flow_records()), format!("{:?}", with.flow_records()));
}

/// Bad reorder-buffer settings are refused naming the field.
#[test]
fn reorder_buffer_refuses_bad_settings_by_name() {
    use common::refusal;
    let base = |extra: &str| roce_drill(&format!("[transport.reorder_buffer]\nenabled = true\n{extra}"));
    assert!(refusal(&base("packets = 0")).contains("transport.reorder_buffer.packets"));
    assert!(refusal(&base("timeout = \"0us\"")).contains("transport.reorder_buffer.timeout"));
    assert!(refusal(&base("bogus = 1")).contains("bogus"));
    let irn = roce_drill("loss_recovery = \"irn\"\n[transport.reorder_buffer]\nenabled = true");
    assert!(refusal(&irn).contains("transport.reorder_buffer.enabled"), "{}", refusal(&irn));
    assert!(
        refusal(&roce_drill("[transport.reorder_buffer]\npackets = 0")).contains("packets"),
        "checked even off"
    );
    assert_eq!(refusal(&roce_drill("[transport.reorder_buffer]\npackets = 8")), "");
}

/// Leaf-spine with 4 spines, MP-RDMA (or `kind`) flows `flows` (TOML entries), `extra` TOML.
fn leaf_spine_flows(kind: &str, flows: &str, extra: &str) -> String {
    format!(
        "seed = 1\n[topology]\nkind = \"leaf_spine\"\nspines = 4\nleaves = 2\nhosts_per_leaf = 4\n\
         [transport]\nkind = \"{kind}\"\ncc = \"none\"\n{extra}\n\
         [workload]\nkind = \"flows\"\nflows = [{flows}]\n"
    )
}

/// MP-RDMA (`transport.kind = "mp_rdma"`): one flow's packets take many virtual paths
/// (source ports), so ECMP spreads the flow over every uplink of its leaf where RoCE's one
/// port pins it to one; the receiver never sees a packet more than Δ beyond its cumulative
/// point (nothing dropped beyond Δ); an incast of MP-RDMA flows behind PFC completes without
/// loss; deterministic.
#[test]
fn mp_rdma_spreads_a_flow_over_virtual_paths_within_delta() {
    let one = "{ src = 0, dst = 4, size = \"2MB\" }";
    let uplinks = |s: &hopsim_core::Simulator| -> Vec<u64> {
        (4..8).map(|p| s.port_stats(hopsim_core::ids::NodeId(8), p).tx_bytes).collect()
    };
    let roce = run(&leaf_spine_flows("roce", one, ""));
    let mp = run(&leaf_spine_flows("mp_rdma", one, ""));
    assert_drained(&mp);
    let (r, m) = (uplinks(&roce), uplinks(&mp));
    let s = mp.summary();
    eprintln!(
        "uplink bytes: roce {r:?}, mp_rdma {m:?}; fct roce {:.1} us, mp_rdma {:.1} us; counters {:?}",
        fct_us(&roce.flow_records()[0]),
        fct_us(&mp.flow_records()[0]),
        s.counters
    );
    assert_eq!(r.iter().filter(|&&b| b > 100_000).count(), 1, "RoCE: one path");
    assert!(m.iter().all(|&b| b > 100_000), "MP-RDMA: every uplink carries the flow: {m:?}");
    assert!(s.counter("mp_rdma_virtual_paths").unwrap() > 4);
    assert!(s.counter("mp_rdma_max_out_of_order").unwrap() < 64, "within Δ = 64");
    assert_eq!(s.counter("mp_rdma_beyond_delta"), Some(0));
    assert_eq!(mp.flow_records()[0].loss_recovery, "mp_rdma");

    // A 7-to-1 incast of MP-RDMA flows, four across the spines, behind PFC: lossless, complete.
    let incast: String =
        [0, 1, 2, 3, 5, 6, 7].iter().map(|i| format!("{{ src = {i}, dst = 4, size = \"1MB\" }}, ")).collect();
    let ecn = "[switch.ecn]\nkmin = \"30KB\"\nkmax = \"30KB\"\npmax = 1.0\nscale_with_rate = false";
    let toml =
        leaf_spine_flows("mp_rdma", &incast, "").replace("[transport]", &format!("{ecn}\n[transport]"));
    let inc = run(&toml);
    let unmarked = run(&leaf_spine_flows("mp_rdma", &incast, ""));
    // Mean queuing delay at the receiver's ToR port, where the incast queues.
    let dst_tor_delay = |s: &hopsim_core::Simulator| {
        s.queue_delay_stats()
            .iter()
            .find(|d| d.tier == hopsim_core::observe::HopTier::DstTor)
            .map(|d| d.mean_ns)
            .unwrap()
    };
    let (with, without) = (dst_tor_delay(&inc), dst_tor_delay(&unmarked));
    eprintln!(
        "incast mean queuing delay at the receiver's ToR: {without:.0} ns unmarked, {with:.0} ns marked"
    );
    assert!(with < 0.7 * without, "marked ACKs shrink the windows and the queue");
    assert_drained(&inc);
    let si = inc.summary();
    eprintln!(
        "incast: {} ECN marks, {} PAUSEs, {} B resent, {:?}",
        si.ecn_marks, si.pfc_pause_frames, si.retransmitted_bytes, si.counters
    );
    assert_eq!(si.drops.total(), 0, "lossless behind PFC");
    assert!(si.ecn_marks > 0, "the incast marks");
    let ooo = si.counter("mp_rdma_max_out_of_order").unwrap();
    assert!(ooo > 0 && ooo < 64, "congested paths reorder, within Δ = 64: {ooo}");
    assert_eq!(si.counter("mp_rdma_beyond_delta"), Some(0));
    let again = run(&toml);
    assert_eq!(format!("{:?}", again.flow_records()), format!("{:?}", inc.flow_records()), "deterministic");

    // Marking nearly every packet (a 1 KB threshold) drives the windows to their floor of one
    // packet; the clock never stalls and every flow completes.
    let harsh = "[switch.ecn]\nkmin = \"1KB\"\nkmax = \"1KB\"\npmax = 1.0\nscale_with_rate = false";
    let floor =
        run(&leaf_spine_flows("mp_rdma", &incast, "")
            .replace("[transport]", &format!("{harsh}\n[transport]")));
    assert_drained(&floor);

    // The unmarked incast into a small buffer behind PFC: paused, lossless, complete.
    let paused = run(&leaf_spine_flows("mp_rdma", &incast, "")
        .replace("[transport]", "[switch]\nbuffer_bytes = \"450KB\"\n[transport]"));
    assert_drained(&paused);
    let sp = paused.summary();
    assert!(
        sp.pfc_pause_frames > 0 && sp.drops.total() == 0,
        "{} PAUSEs, {} drops",
        sp.pfc_pause_frames,
        sp.drops.total()
    );

    // The unmarked incast into a small lossy buffer: packets are lost, recovery resends them
    // (the head of a Δ window missing, or a timeout) and every flow completes.
    let lossy = run(&leaf_spine_flows("mp_rdma", &incast, "").replace(
        "[transport]",
        "[switch]\nbuffer_bytes = \"150KB\"\n[switch.flow_control]\nkind = \"none\"\n[transport]",
    ));
    assert_drained(&lossy);
    let sl = lossy.summary();
    eprintln!(
        "lossy incast: {} drops, {} B resent, {} timeouts, {:?}",
        sl.drops.total(),
        sl.retransmitted_bytes,
        sl.timeouts,
        sl.counters
    );
    assert!(sl.drops.total() > 0 && sl.retransmitted_bytes > 0);
    assert!(sl.counter("mp_rdma_recoveries").unwrap() > 0);
}

/// MP-RDMA's bad settings are refused naming the field.
#[test]
fn mp_rdma_refuses_bad_settings_by_name() {
    use common::refusal;
    let one = "{ src = 0, dst = 4, size = \"10KB\" }";
    let bad = |extra: &str| refusal(&leaf_spine_flows("mp_rdma", one, extra));
    assert!(bad("[transport.mp_rdma]\ndelta = 0").contains("transport.mp_rdma.delta"));
    assert!(bad("[transport.mp_rdma]\ndelta = 8\nprune_lag = 8").contains("transport.mp_rdma.prune_lag"));
    assert!(bad("[transport.mp_rdma]\ninitial_window = 0").contains("transport.mp_rdma.initial_window"));
    assert!(bad("[transport.mp_rdma]\nbogus = 1").contains("bogus"));
    assert!(bad("loss_recovery = \"irn\"").contains("transport.loss_recovery"));
    let dcqcn = refusal(&leaf_spine_flows("mp_rdma", one, "").replace("cc = \"none\"", "cc = \"dcqcn\""));
    assert!(dcqcn.contains("transport.cc"), "{dcqcn}");
    assert_eq!(bad(""), "");
}

/// `transport.nack_signals_congestion` (ConWeave's ns-3): every NACK of an out-of-order
/// packet also cuts the sender's DCQCN rate, as an ECN echo does. Under DRILL's spraying
/// with go-back-N the senders slow down, so less is sent past each gap and resent; without
/// the flag a NACK only rewinds.
#[test]
fn nacks_that_signal_congestion_slow_dcqcn_senders() {
    let dcqcn = |flag: bool| {
        let cfg = roce_drill(&format!("nack_signals_congestion = {flag}"))
            .replace("cc = \"none\"", "cc = \"dcqcn\"");
        let s = run(&cfg);
        assert_drained(&s);
        s
    };
    let (plain, signalled) = (dcqcn(false), dcqcn(true));
    let (p, q) = (plain.summary(), signalled.summary());
    eprintln!(
        "resent: {} B plain, {} B with NACKs signalling congestion",
        p.retransmitted_bytes, q.retransmitted_bytes
    );
    assert!(p.retransmitted_bytes > 0, "DRILL reorders, go-back-N resends");
    assert!(q.retransmitted_bytes < p.retransmitted_bytes, "slower senders resend less");
    let again = dcqcn(true);
    assert_eq!(again.summary().retransmitted_bytes, q.retransmitted_bytes, "deterministic");
}
