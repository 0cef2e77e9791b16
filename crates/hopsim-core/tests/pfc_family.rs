//! The PFC family (OFC §IV-A's baselines), each shown pausing where its rule says and not
//! before: caPFC and P-PFC leave an ingress filled by uncongested traffic unpaused where
//! PFC pauses it, G-PFC pauses the low-priority class first, GFC steps its upstream's rate
//! down between its thresholds (shaped, not stopped) without a drop. Each is deterministic.

mod common;

use common::{assert_drained, run, sim};
use hopsim_core::ids::NodeId;
use hopsim_core::switch::ControlPayload;
use hopsim_core::Simulator;

const PFC_STATIC: &str =
    "[switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"10KB\"\nxon_bytes = \"5KB\"\nheadroom_bytes = \"200KB\"\n";

/// One leaf (17 ports: 16 hosts and a spine): a 12-to-1 incast into host 0 (a congested
/// egress) and, from 10 µs, a mild 2-to-1 of 20 KB flows into host 15 (an egress that
/// never congests) — under `[switch.flow_control]` `fc`.
fn congested_and_mild(fc: &str) -> String {
    let incast: String =
        (1..13).map(|i| format!("{{ src = {i}, dst = 0, size = \"300KB\", tag = \"incast\" }}, ")).collect();
    format!(
        "seed = 1\n[topology]\nkind = \"leaf_spine\"\nspines = 1\nleaves = 1\nhosts_per_leaf = 16\nhost_delay = \"3us\"\n\
         [switch]\nbuffer_bytes = \"8MB\"\n{PFC_STATIC}[switch.flow_control]\n{fc}\n\
         [transport]\ncc = \"none\"\n[output]\ncontrol_frames = true\n\
         [workload]\nkind = \"flows\"\nflows = [{incast}\
         {{ src = 13, dst = 15, size = \"20KB\", start = \"10us\", tag = \"mild\" }}, \
         {{ src = 14, dst = 15, size = \"20KB\", start = \"10us\", tag = \"mild\" }}]\n"
    )
}

/// PAUSEs the NICs of `hosts` received.
fn pauses_at(s: &Simulator, hosts: impl IntoIterator<Item = u32>) -> u64 {
    hosts.into_iter().map(|h| s.port_stats(NodeId(h), 0).pause_received).sum()
}

/// Host 1 (class 1, high priority) and host 2 (class 5, low priority) each send `size`
/// bytes to host 0 at once, through one switch; PFC static XOFF 20 KB, XON 10 KB.
fn two_classes(fc: &str, size: u32) -> String {
    // One file per call: tests run in parallel, and a file rewritten by another test could be
    // read half-written.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!("hopsim-pfc-family-{}-{size}-{n}.txt", std::process::id()));
    std::fs::write(&file, format!("2\n1 0 1 100 {size} 0\n2 0 5 100 {size} 0\n")).unwrap();
    format!(
        "seed = 1\n[topology]\nkind = \"leaf_spine\"\nspines = 1\nleaves = 1\nhosts_per_leaf = 4\n\
         [switch]\nbuffer_bytes = \"4MB\"\n\
         [switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"20KB\"\nxon_bytes = \"10KB\"\nheadroom_bytes = \"100KB\"\n\
         [switch.flow_control]\n{fc}\n[transport]\ncc = \"none\"\n\
         [workload]\nkind = \"flows\"\nfile = \"{}\"\n",
        file.display()
    )
}

/// Four hosts at 100 Gb/s into a 400 Gb/s uplink, 2 MB each to one host behind the other
/// switch (at 100 Gb/s): the right switch's ingress from the left switch fills, and its
/// upstream is a switch port (which GFC shapes).
fn switch_upstream(fc: &str) -> String {
    let flows: String = (0..4).map(|i| format!("{{ src = {i}, dst = 4, size = \"2MB\" }}, ")).collect();
    format!(
        "seed = 1\n[topology]\nkind = \"dumbbell\"\nleft_hosts = 4\nright_hosts = 1\nbottleneck_rate = \"400Gbps\"\n\
         [switch]\nbuffer_bytes = \"4MB\"\n\
         [switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"80KB\"\nxon_bytes = \"40KB\"\n\
         [switch.flow_control]\n{fc}\n[transport]\ncc = \"none\"\n[output]\ncontrol_frames = true\n\
         [workload]\nkind = \"flows\"\nflows = [{flows}]\n"
    )
}

/// caPFC and P-PFC: the mild 2-to-1's ingresses go over PFC's XOFF, and PFC pauses their
/// senders; caPFC (their egress stays below 68 KB) and P-PFC (below the average of the
/// leaf's egress ports, which the incast's queue lifts) do not — both still pause the
/// incast's senders (their egress is congested), and nothing is dropped.
#[test]
fn capfc_and_ppfc_leave_an_uncongested_egress_unpaused() {
    let pfc = run(&congested_and_mild("kind = \"pfc\""));
    assert!(pauses_at(&pfc, 13..15) > 0, "PFC pauses the mild senders");
    for kind in ["capfc", "ppfc"] {
        let s = run(&congested_and_mild(&format!("kind = \"{kind}\"")));
        let counters = s.flow_control_counters();
        eprintln!(
            "{kind}: incast pauses {}, mild {}: {counters:?}",
            pauses_at(&s, 1..13),
            pauses_at(&s, 13..15)
        );
        assert_eq!(pauses_at(&s, 13..15), 0, "{kind} does not pause the mild senders");
        assert!(pauses_at(&s, 1..13) > 0, "{kind} pauses the incast's senders");
        let get = |name: &str| counters.iter().find(|(n, _)| n.ends_with(name)).unwrap().1;
        assert!(get("_held_back") > 0, "{kind}: arrivals over PFC's threshold were not paused");
        assert_eq!(get("_urgent_pauses"), 0, "{kind}: the headroom never ran short");
        assert_eq!(s.summary().drops.total(), 0, "{kind} is lossless");
        assert_drained(&s);
        assert_eq!(s.flow_control_held(), Some(0), "{kind}: ingress counters and pauses released");
    }
}

/// Where caPFC and P-PFC part: the mild 2-to-1 alone. Its egress is then the leaf's
/// busiest, above the egress average, so P-PFC pauses like PFC; caPFC pauses only once
/// its fixed threshold is lowered below the egress's 20 KB peak.
#[test]
fn capfc_pauses_by_its_fixed_threshold_ppfc_by_the_average() {
    let mild = |fc: &str| {
        let s = congested_and_mild(fc);
        let (head, tail) = s.split_once("flows = [").unwrap();
        let tail = tail.split("}, ").filter(|f| !f.contains("incast")).collect::<Vec<_>>().join("}, ");
        run(&format!("{head}flows = [{tail}"))
    };
    assert!(pauses_at(&mild("kind = \"pfc\""), 13..15) > 0);
    assert!(pauses_at(&mild("kind = \"ppfc\""), 13..15) > 0, "P-PFC: the egress is above the average");
    assert_eq!(pauses_at(&mild("kind = \"capfc\""), 13..15), 0, "caPFC: below 68 KB");
    let low = mild("kind = \"capfc\"\negress_threshold = \"8KB\"");
    assert!(pauses_at(&low, 13..15) > 0, "caPFC with an 8 KB egress threshold pauses");
    assert_drained(&low);
}

/// The time (µs) of the first PAUSE the leaf (node 16) sent.
fn first_pause_us(s: &Simulator) -> f64 {
    s.control_events()
        .iter()
        .find(|e| e.node == NodeId(16) && e.payload.pauses() == Some(true))
        .map(|e| e.time.as_ns_f64() / 1000.0)
        .expect("a PAUSE")
}

/// P-PFC's own predictive form (`form = "derivative"`): the incast's ingresses, filling
/// fast, are paused before they reach XOFF — earlier than under PFC — so the leaf's buffer
/// peaks lower; still lossless. OFC's form pauses at PFC's instant (the incast's egress is
/// above the average from the start).
#[test]
fn ppfc_derivative_pauses_before_xoff() {
    let pfc = run(&congested_and_mild("kind = \"pfc\""));
    let ofc = run(&congested_and_mild("kind = \"ppfc\""));
    // The leaf's host links have 3 µs of delay: the default window (⅛ of the 6 µs hop RTT)
    // would first close as the first ingress reaches XOFF; 200 ns sees the burst's slope.
    let derivative =
        run(&congested_and_mild("kind = \"ppfc\"\nform = \"derivative\"\nslope_window = \"200ns\""));
    let (t_pfc, t_ofc, t_der) = (first_pause_us(&pfc), first_pause_us(&ofc), first_pause_us(&derivative));
    let peak = |s: &Simulator| s.summary().max_buffer_bytes;
    eprintln!(
        "first PAUSE at {t_pfc:.3} / {t_ofc:.3} / {t_der:.3} us, buffer peak {} / {} / {} B (PFC / OFC's P-PFC / \
         derivative): {:?}",
        peak(&pfc),
        peak(&ofc),
        peak(&derivative),
        derivative.flow_control_counters()
    );
    assert_eq!(t_ofc, t_pfc);
    assert!(t_der < t_pfc, "the prediction pauses earlier");
    let predicted =
        derivative.flow_control_counters().iter().find(|c| c.0 == "ppfc_predicted_pauses").unwrap().1;
    assert!(predicted > 0);
    assert!(peak(&derivative) < peak(&pfc));
    assert_eq!(derivative.summary().drops.total(), 0);
    assert_drained(&derivative);
}

/// G-PFC: a high-priority (class 1) and a low-priority (class 5) sender share an egress.
/// With 20 or 30 KB each, their ingresses reach half of XOFF but not XOFF: PFC pauses
/// neither, G-PFC pauses only the low-priority one. With 60 KB both reach XOFF and both
/// are paused under either.
#[test]
fn gpfc_pauses_the_low_priority_class_first() {
    for size in [20_000, 30_000] {
        let pfc = run(&two_classes("kind = \"pfc\"", size));
        assert_eq!(pauses_at(&pfc, [1, 2]), 0, "{size} B: PFC pauses neither");
        let g = run(&two_classes("kind = \"gpfc\"", size));
        assert_eq!(pauses_at(&g, [1]), 0, "{size} B: G-PFC leaves the high class alone");
        assert_eq!(pauses_at(&g, [2]), 1, "{size} B: G-PFC pauses the low class");
        assert_drained(&g);
    }
    for kind in ["pfc", "gpfc"] {
        let s = run(&two_classes(&format!("kind = \"{kind}\""), 60_000));
        assert!(pauses_at(&s, [1]) > 0 && pauses_at(&s, [2]) > 0, "{kind}: both over XOFF");
        assert_drained(&s);
    }
    let off = run(&two_classes("kind = \"gpfc\"\nlow_priority_from = 6", 30_000));
    assert_eq!(pauses_at(&off, [1, 2]), 0, "class 5 is high priority when low starts at 6");
}

/// The right switch's rate frames to the left switch, as (time in µs, step), in order.
fn gfc_steps(s: &Simulator) -> Vec<(f64, u8)> {
    s.control_events()
        .iter()
        .filter(|e| e.node == NodeId(6))
        .filter_map(|e| match e.payload {
            ControlPayload::Gfc(f) => Some((e.time.as_ns_f64() / 1000.0, f.step)),
            _ => None,
        })
        .collect()
}

/// GFC: as the right switch's ingress from the left switch fills, it steps the left
/// switch's uplink down one rate step at a time (75 %, 50 %, 25 % of 400 Gb/s, shaped),
/// reaching zero at XOFF; it then holds the upstream mostly on intermediate steps, so
/// the uplink spends less time stopped than under PFC, and nothing is dropped.
#[test]
fn gfc_steps_the_upstream_rate_down_and_never_drops() {
    let g = run(&switch_upstream("kind = \"gfc\""));
    let steps = gfc_steps(&g);
    let first: Vec<u8> = steps.iter().take(4).map(|s| s.1).collect();
    assert_eq!(first, [1, 2, 3, 4], "one step at a time down to the stop: {steps:?}");
    assert!(steps.windows(2).all(|w| w[0].0 <= w[1].0), "frames in time order");
    let intermediate = steps.iter().filter(|s| (1..=3).contains(&s.1)).count();
    let stops = steps.iter().filter(|s| s.1 == 4).count();
    assert!(intermediate > stops, "mostly rate-limited, not stopped: {intermediate} vs {stops}");
    assert_eq!(g.summary().drops.total(), 0, "GFC is lossless");
    assert_drained(&g);
    assert_eq!(g.flow_control_held(), Some(0), "every step back to line rate");
    let p = run(&switch_upstream("kind = \"pfc\""));
    let uplink = |s: &Simulator| s.port_stats(NodeId(5), 4).paused_time.as_ns_f64();
    eprintln!("uplink stopped {:.1} us under GFC, {:.1} us under PFC", uplink(&g) / 1e3, uplink(&p) / 1e3);
    assert!(uplink(&g) < 0.8 * uplink(&p), "GFC stops its upstream less than PFC");
    assert_eq!(p.summary().drops.total(), 0);
}

/// Hosts 1 and 2 each send 2 MB to host 0 through one switch (100 Gb/s everywhere, a 2:1
/// incast): the ingresses from the two hosts fill, and their upstreams are host NICs.
fn host_upstream(fc: &str) -> String {
    format!(
        "seed = 1\n[topology]\nkind = \"leaf_spine\"\nspines = 1\nleaves = 1\nhosts_per_leaf = 4\n\
         [switch]\nbuffer_bytes = \"4MB\"\n\
         [switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"80KB\"\nxon_bytes = \"40KB\"\n\
         [switch.flow_control]\n{fc}\n[transport]\ncc = \"none\"\n[output]\ncontrol_frames = true\n\
         [workload]\nkind = \"flows\"\nflows = [{{ src = 1, dst = 0, size = \"2MB\" }}, {{ src = 2, dst = 0, size = \"2MB\" }}]\n"
    )
}

/// GFC at a host NIC: the switch steps host 1's class down (rate frames to the NIC), and
/// the NIC sends at that rate instead of line rate. Two senders at half rate each fill the
/// receiver's link exactly, so under GFC the NICs settle on a rate step and are seldom
/// stopped, where under PFC (and under GFC obeyed only at its zero step, as before the NIC
/// applied the steps) they spend much of the run paused. Nothing is dropped, and the host's
/// data leaves at the stepped rate: between its first and last packet the NIC's average
/// sending rate is about half its line rate while it is busy only that share of the time.
#[test]
fn gfc_steps_a_host_nics_rate_down_and_never_drops() {
    let g = run(&host_upstream("kind = \"gfc\""));
    let to_host: Vec<u8> = g
        .control_events()
        .iter()
        .filter(|e| e.node == NodeId(4))
        .filter_map(|e| match e.payload {
            ControlPayload::Gfc(f) => Some(f.step),
            _ => None,
        })
        .collect();
    assert!(to_host.iter().any(|s| (1..=3).contains(s)), "intermediate steps sent: {to_host:?}");
    let counters = g.flow_control_counters();
    let at_host = counters.iter().find(|(k, _)| *k == "gfc_rate_at_host").map(|c| c.1);
    assert!(at_host.unwrap_or(0) > 0, "the NICs applied rate steps: {counters:?}");
    assert_eq!(g.summary().drops.total(), 0, "GFC is lossless");
    assert_drained(&g);
    assert_eq!(g.flow_control_held(), Some(0), "every step back to line rate");
    let p = run(&host_upstream("kind = \"pfc\""));
    assert_eq!(p.summary().drops.total(), 0);
    let stopped =
        |s: &Simulator| (1..3).map(|h| s.port_stats(NodeId(h), 0).paused_time.as_ns_f64()).sum::<f64>();
    eprintln!(
        "host NICs stopped {:.1} us under GFC, {:.1} us under PFC",
        stopped(&g) / 1e3,
        stopped(&p) / 1e3
    );
    assert!(stopped(&g) < 0.25 * stopped(&p), "GFC rate-limits the NICs instead of stopping them");
    for h in 1..3 {
        let st = g.port_stats(NodeId(h), 0);
        let span = (st.last_tx_end - st.first_tx.unwrap()).as_ns_f64();
        let gbps = st.tx_bytes as f64 * 8.0 / span;
        eprintln!(
            "host {h}: {gbps:.1} Gb/s over its sending span, busy {:.2}",
            st.utilisation_while_active()
        );
        assert!((40.0..65.0).contains(&gbps), "host {h} at about half of 100 Gb/s: {gbps:.1}");
    }
}

/// The uplink between the two switches fails mid-incast (at 20 µs, back at 60 µs) while
/// the right switch holds the left switch's uplink on a GFC rate step. Once it is back, four
/// later flows (from 100 µs, left hosts to four distinct right hosts, so the 400 Gb/s uplink
/// is their bottleneck) run as fast as without the incast: the failure took the shaper
/// with it. Under every member nothing is held at the end.
#[test]
fn a_failed_link_leaves_nothing_paused_or_shaped() {
    let scenario = |kind: &str, incast: bool| {
        let early: String = if incast {
            (0..4).map(|i| format!("{{ src = {i}, dst = 4, size = \"500KB\" }}, ")).collect()
        } else {
            String::new()
        };
        let late: Vec<String> = (0..4)
            .map(|i| {
                format!("{{ src = {i}, dst = {}, size = \"1MB\", start = \"100us\", tag = \"late\" }}", 4 + i)
            })
            .collect();
        format!(
            "seed = 1\n[topology]\nkind = \"dumbbell\"\nleft_hosts = 4\nright_hosts = 4\nbottleneck_rate = \"400Gbps\"\n\
             [switch]\nbuffer_bytes = \"4MB\"\n\
             [switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"80KB\"\nxon_bytes = \"40KB\"\n\
             [switch.flow_control]\nkind = \"{kind}\"\n[transport]\ncc = \"none\"\n\
             [[faults]]\nlink = [8, 9]\ndown = \"20us\"\nup = \"60us\"\n\
             [workload]\nkind = \"flows\"\nflows = [{early}{}]\n",
            late.join(", ")
        )
    };
    let late_fct = |s: &Simulator| {
        s.flow_records()
            .iter()
            .filter(|r| r.tag == "late")
            .map(|r| r.fct().unwrap().as_ns_f64())
            .fold(0.0, f64::max)
    };
    for kind in ["gfc", "capfc", "ppfc", "gpfc"] {
        let s = run(&scenario(kind, true));
        let sum = s.summary();
        assert_eq!(sum.flows_finished, sum.flows_total, "{kind}");
        assert_eq!(s.flow_control_held(), Some(0), "{kind}: nothing held");
        assert_eq!(sum.packets_in_flight, 0, "{kind}");
        let alone = run(&scenario(kind, false));
        let (with, without) = (late_fct(&s), late_fct(&alone));
        eprintln!(
            "{kind}: late flows {:.1} us after the failed incast, {:.1} us alone",
            with / 1e3,
            without / 1e3
        );
        assert!(with < 1.05 * without, "{kind}: the uplink runs at line rate again");
    }
}

/// Same seed, same results; each member's counters and frames agree run to run.
#[test]
fn each_member_is_deterministic() {
    for kind in ["capfc", "ppfc", "ppfc\"\nform = \"derivative", "gpfc", "gfc"] {
        let text = congested_and_mild(&format!("kind = \"{kind}\""));
        let (a, b) = (run(&text), run(&text));
        let fcts = |s: &Simulator| s.flow_records().iter().map(|r| r.fct()).collect::<Vec<_>>();
        assert_eq!(fcts(&a), fcts(&b), "{kind}");
        assert_eq!(a.summary().events, b.summary().events, "{kind}");
        assert_eq!(a.flow_control_counters(), b.flow_control_counters(), "{kind}");
        assert_eq!(a.control_frames_sent(), b.control_frames_sent(), "{kind}");
        assert_drained(&a);
    }
}

/// Bad parameters name their field.
#[test]
fn bad_parameters_name_their_field() {
    let err = |fc: &str| {
        let text = congested_and_mild(fc);
        match hopsim_core::Scenario::from_toml_str(&text).map(Simulator::new) {
            Err(e) => e.to_string(),
            Ok(Err(e)) => e.to_string(),
            Ok(Ok(_)) => panic!("{fc} accepted"),
        }
    };
    for (fc, field) in [
        ("kind = \"capfc\"\negress_threshold = 0", "switch.flow_control.egress_threshold"),
        ("kind = \"gpfc\"\nlow_fraction = 1.5", "switch.flow_control.low_fraction"),
        ("kind = \"gpfc\"\nlow_priority_from = 64", "switch.flow_control.low_priority_from"),
        ("kind = \"gfc\"\nsteps = 0", "switch.flow_control.steps"),
        ("kind = \"gfc\"\nstart_fraction = 1.0", "switch.flow_control.start_fraction"),
        ("kind = \"ppfc\"\nform = \"second_derivative\"", "form"),
        ("kind = \"ppfc\"\nhorizon = \"1us\"", "switch.flow_control.horizon"),
        ("kind = \"ppfc\"\nform = \"derivative\"\nhorizon = \"0us\"", "switch.flow_control.horizon"),
        ("kind = \"ppfc\"\nslope_window = \"1us\"", "switch.flow_control.slope_window"),
        ("kind = \"capfc\"\negress = 1", "egress"),
    ] {
        let e = err(fc);
        assert!(e.contains(field), "{fc}: {e}");
    }
    // [switch.pfc] is validated for the family as for PFC.
    let text = congested_and_mild("kind = \"gfc\"").replace("xoff_bytes = \"10KB\"\n", "");
    let e = Simulator::new(hopsim_core::Scenario::from_toml_str(&text).unwrap()).err().unwrap().to_string();
    assert!(e.contains("switch.pfc.xoff_bytes"), "{e}");
    let _ = sim;
}

/// PFC's derived headroom (3 × rate × delay) is below a PAUSE's round trip on a 20 ns
/// link: the run says so (and, as measured on OFC's fat-tree, drops at the headroom); with
/// `headroom_bytes` set, or on 1 µs links, it does not.
#[test]
fn a_derived_headroom_too_short_for_the_link_is_noted() {
    let scenario = |delay: &str, headroom: &str| {
        format!(
            "seed = 1\n[topology]\nkind = \"dumbbell\"\nleft_hosts = 2\nright_hosts = 1\ndelay = \"{delay}\"\n\
             [switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"80KB\"\nxon_bytes = \"40KB\"\n{headroom}\
             [transport]\ncc = \"none\"\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 2, size = \"10KB\" }}]\n"
        )
    };
    let notes = |text: &str| {
        sim(text)
            .notes()
            .iter()
            .filter(|(topic, _)| *topic == "pfc")
            .map(|(_, n)| n.clone())
            .collect::<Vec<_>>()
    };
    let short = notes(&scenario("20ns", ""));
    assert_eq!(short.len(), 1, "{short:?}");
    assert!(short[0].contains("switch.pfc.headroom_bytes") && short[0].contains("20 ns"), "{}", short[0]);
    assert!(notes(&scenario("20ns", "headroom_bytes = \"5KB\"\n")).is_empty());
    assert!(notes(&scenario("1us", "")).is_empty(), "3 × BDP covers a 1 us link");
}
