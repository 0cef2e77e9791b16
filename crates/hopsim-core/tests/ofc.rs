//! OFC (Xiao et al.) shown by what its paper claims, on the setting of its Fig 1 / Fig 2 /
//! Table I: three switches S_a → S_b → S_c in a line, ten servers, 40 Gb/s links of 20 ns.
//! Long-lived F0 (to R0) and F1 (to R1) share S_a → S_b → S_c and S_c's ingress P_a, then
//! leave by different egress ports; six bursts of 0–30 µs from S_c's other servers to R1
//! congest R1's port P_d. PFC pauses all of P_a's upstream (F0 with F1); OFC pauses F1
//! alone, named in the PAUSE, so the uncongested F0 finishes clearly sooner. Lossless,
//! every flow in order through the backup-queue rotation, deterministic; `q_in ≥ X_OFF`
//! keeps PFC's guarantee; a failed link leaves nothing paused or held.

mod common;

use common::{assert_drained, assert_flow_control_fields_named, fct_us, run};
use hopsim_core::ids::{FlowId, NodeId, PortId};
use hopsim_core::switch::flow_control::ofc::{Ofc, OfcRecord, Trigger};
use hopsim_core::Simulator;

/// Fig 1: hosts 0 (F0's sender) and 1 (F1's) at S_a (node 10); S_b (11) has none; hosts
/// 2–7 (the bursts), 8 (R0) and 9 (R1) at S_c (12). 40 Gb/s, 20 ns everywhere.
fn fig1_topology() -> String {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(write_fig1_topology).clone()
}

fn write_fig1_topology() -> String {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ofc_fig1_topology.txt");
    let mut text = String::from("13 3 12\n10 11 12\n0 10 40Gbps 20ns 0\n1 10 40Gbps 20ns 0\n");
    text += "10 11 40Gbps 20ns 0\n11 12 40Gbps 20ns 0\n";
    for h in 2..10 {
        text += &format!("{h} 12 40Gbps 20ns 0\n");
    }
    std::fs::write(&path, text).expect("write the topology file");
    path.display().to_string()
}

/// Table I's traffic under `[switch.flow_control]` `fc`: F0 (host 0 → 8) and F1 (1 → 9) of
/// 4 MB from 0; every 150 µs from 0 to 1.05 ms each of hosts 2–7 sends R1 a burst lasting
/// 0–30 µs at line rate (0–150 KB, drawn from `seed`). Flows 0 and 1 are F0 and F1. PFC
/// and OFC share X_OFF 75 KB, X_ON 45 KB and the headroom; 1500-byte packets (§IV-A1).
fn table1(fc: &str, seed: u64) -> String {
    table1_with(fc, seed, "cc = \"none\"", "")
}

/// [`table1`] with `[transport]` lines `transport` and extra sections `extra`.
fn table1_with(fc: &str, seed: u64, transport: &str, extra: &str) -> String {
    let topo = fig1_topology();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut flows = String::from(
        "{ src = 0, dst = 8, size = \"4MB\", tag = \"F0\" }, { src = 1, dst = 9, size = \"4MB\", tag = \"F1\" }",
    );
    for round in 0..8 {
        for h in 2..8 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let size = 1_500 + x % 148_500;
            flows += &format!(
                ", {{ src = {h}, dst = 9, size = {size}, start = \"{}us\", tag = \"burst\" }}",
                round * 150
            );
        }
    }
    format!(
        "seed = {seed}\n[topology]\nkind = \"file\"\nfile = \"{topo}\"\n\
         [switch]\nbuffer_bytes = \"4MB\"\n\
         [switch.pfc]\nthreshold = \"static\"\nxoff_bytes = \"75KB\"\nxon_bytes = \"45KB\"\n\
         headroom_bytes = 3300\nreserve_bytes = 0\n\
         [switch.flow_control]\n{fc}\n\
         [transport]\n{transport}\nmtu = 1452\n\
         [output]\ncontrol_frames = true\n{extra}\
         [workload]\nkind = \"flows\"\nflows = [{flows}]\n"
    )
}

const OFC: &str = "kind = \"ofc\"";
const PFC: &str = "kind = \"pfc\"";

fn fct_of(s: &Simulator, tag: &str) -> f64 {
    s.flow_records().iter().filter(|r| r.tag == tag).map(fct_us).fold(0.0, f64::max)
}

fn ofc(s: &Simulator) -> &Ofc {
    s.flow_control().get::<Ofc>().expect("an OFC run")
}

/// The port of `node` whose peer is `peer`.
fn port_towards(s: &Simulator, node: u32, peer: u32) -> PortId {
    let t = s.topology();
    t.ports_of(NodeId(node))
        .map(PortId)
        .find(|p| t.ports[t.ports[p.idx()].peer.idx()].node == NodeId(peer))
        .expect("a link")
}

fn records_out_of(s: &Simulator, port: PortId) -> Vec<&OfcRecord> {
    ofc(s).log.as_ref().expect("logged").iter().filter(|r| r.port == port).collect()
}

/// Table I: the uncongested long-lived flow F0 finishes clearly sooner under OFC than under
/// PFC (and every flow no later in the worst case), nothing is dropped, and S_c's first
/// PAUSE to S_b names exactly F1 — the one flow of P_a that crossed the congested port
/// P_d — while S_b, congested only locally, passes F1 on to S_a.
#[test]
fn table_1_ofc_frees_the_uncongested_flow_that_pfc_blocks() {
    let pfc = run(&table1(PFC, 1));
    let o = run(&table1(OFC, 1));
    for s in [&pfc, &o] {
        assert_eq!(s.summary().drops.total(), 0, "lossless");
        assert_drained(s);
    }
    assert_eq!(o.flow_control_held(), Some(0), "every table entry, pause and rotation released");
    let (f0_pfc, f0_ofc) = (fct_of(&pfc, "F0"), fct_of(&o, "F0"));
    let (f1_pfc, f1_ofc) = (fct_of(&pfc, "F1"), fct_of(&o, "F1"));
    let all = |s: &Simulator| s.flow_records().iter().map(fct_us).fold(0.0, f64::max);
    let c: std::collections::BTreeMap<_, _> = o.flow_control_counters().into_iter().collect();
    eprintln!(
        "F0 (uncongested) FCT: PFC {f0_pfc:.0} us, OFC {f0_ofc:.0} us; F1 (congested): PFC {f1_pfc:.0}, \
         OFC {f1_ofc:.0}; max of all: PFC {:.0}, OFC {:.0}\n{c:?}",
        all(&pfc),
        all(&o)
    );
    assert!(f0_ofc < 0.8 * f0_pfc, "F0 clearly faster under OFC: {f0_ofc:.0} vs PFC {f0_pfc:.0} us");
    assert!(all(&o) <= all(&pfc) * 1.02, "max FCT of all flows no worse");

    // S_c's PAUSEs to S_b: the first names F1 alone (F0 shares P_a but leaves by P_b).
    let sc_to_sb = port_towards(&o, 12, 11);
    let to_sb = records_out_of(&o, sc_to_sb);
    let first = to_sb.iter().find(|r| r.trigger != Trigger::Resume).expect("S_c paused S_b");
    assert_eq!((first.trigger, first.flows.clone()), (Trigger::Original, vec![FlowId(1)]), "{first:?}");
    assert!(to_sb.iter().all(|r| !r.flows.contains(&FlowId(0))), "F0 is never named by S_c: {to_sb:?}");
    // S_b, congested by the paused F1 alone, is a local congestion port: it names F1.
    let sb_to_sa = port_towards(&o, 11, 10);
    let to_sa = records_out_of(&o, sb_to_sa);
    assert!(to_sa.iter().any(|r| r.trigger == Trigger::Local), "{to_sa:?}");
    for r in to_sa.iter().filter(|r| r.trigger == Trigger::Local) {
        assert_eq!(r.flows, vec![FlowId(1)], "{r:?}");
    }
    // PAUSEs name only flows not yet paused there; one RESUME releases them all.
    let sum = o.summary();
    assert!(
        sum.frames_sent("ofc_resume") > 0 && sum.frames_sent("ofc_pause") >= sum.frames_sent("ofc_resume")
    );
    assert!(c["ofc_rotations"] > 0 && c["ofc_packets_moved"] + c["ofc_paused_arrivals"] > 0, "{c:?}");
    assert!(c["ofc_flow_in_port_tab_peak_entries"] > 0 && c["ofc_congested_flow_tab_peak_entries"] > 0);
}

/// Algorithm 3: through the backup-queue rotation every flow stays in order, over several
/// seeds of the Table I bursts; lossless and drained every time.
#[test]
fn flows_stay_in_order_through_the_backup_queue_rotation() {
    for seed in 1..=4 {
        let s = run(&table1(OFC, seed));
        let c: std::collections::BTreeMap<_, _> = s.flow_control_counters().into_iter().collect();
        assert!(c["ofc_rotations"] > 0, "seed {seed}: rotations ran: {c:?}");
        let reordered: u32 = s.flow_records().iter().map(|r| r.reordered_packets).sum();
        assert_eq!(reordered, 0, "seed {seed}: a packet arrived out of order");
        assert_eq!(s.summary().drops.total(), 0, "seed {seed}: lossless");
        assert_drained(&s);
        assert_eq!(s.flow_control_held(), Some(0), "seed {seed}");
    }
}

/// Same seed, same results; another seed, other results — with host congestion control
/// off, rate-based with ECN, and INT-based.
#[test]
fn ofc_is_deterministic() {
    for cc in ["none", "dcqcn", "hpcc"] {
        let table = |seed: u64| -> Vec<String> {
            let s = run(&table1_with(OFC, seed, &format!("cc = \"{cc}\""), ""));
            assert_drained(&s);
            assert_eq!(s.flow_control_held(), Some(0), "{cc}");
            assert_eq!(s.summary().drops.total(), 0, "{cc}");
            s.flow_records().iter().map(|r| format!("{:?}", (r.flow_id, r.finish))).collect()
        };
        let a = table(5);
        assert_eq!(a, table(5), "{cc}");
        assert_ne!(a, table(6), "{cc}: another seed differs");
    }
}

/// The link S_b – S_c fails while OFC holds pauses and rotations there, and comes back:
/// the pauses it carried are released, the packets it held lost and retransmitted, every
/// flow finishes, and nothing is left held.
#[test]
fn ofc_recovers_from_a_failed_link() {
    for down in [100, 330, 610] {
        let fault = format!("[[faults]]\nlink = [11, 12]\ndown = \"{down}us\"\nup = \"{}us\"\n", down + 40);
        let s = run(&table1_with(OFC, 1, "cc = \"none\"\nrto = \"100us\"", &fault));
        let sum = s.summary();
        eprintln!("down at {down} us: {:?}", s.flow_control_counters());
        assert!(sum.drops.link_down > 0 && sum.frames_sent("ofc_pause") > 0, "down at {down} us");
        assert_drained(&s);
        assert_eq!(s.flow_control_held(), Some(0), "down at {down} us");
    }
}

/// Bad parameters are refused with their field's full path.
#[test]
fn ofc_bad_parameters_name_their_field() {
    assert_flow_control_fields_named(
        "ofc",
        &[
            ("xoff_bytes", "0"),
            ("xon_bytes", "\"80KB\""),
            ("alpha", "0.5"),
            ("alpha", "1.0"),
            ("flow_entry_bytes", "0"),
            ("headroom_bytes", "0"),
            ("local_flows", "\"all\""),
            ("x_off", "3"),
        ],
    );
}

/// `q_in ≥ X_OFF` keeps PFC's guarantee: one server of S_c starts 32 flows to R1 a
/// microsecond apart while five others send it 300 KB each, with X_OFF^c at 0.99 · X_OFF so
/// per-flow pauses cannot keep up; the ingress crosses X_OFF, its PAUSE names every flow
/// of the ingress and stops the priority at the host, and nothing is dropped.
#[test]
fn x_off_pauses_everything_and_stays_lossless() {
    let mut flows: Vec<String> = (0..32)
        .map(|i| format!("{{ src = 2, dst = 9, size = \"100KB\", start = \"{i}us\", tag = \"many\" }}"))
        .collect();
    flows.extend((3..8).map(|h| format!("{{ src = {h}, dst = 9, size = \"300KB\", tag = \"burst\" }}")));
    let text = format!(
        "[topology]\nkind = \"file\"\nfile = \"{}\"\n[switch]\nbuffer_bytes = \"4MB\"\n\
         [switch.flow_control]\nkind = \"ofc\"\nalpha = 0.99\n\
         [transport]\ncc = \"none\"\nmtu = 1452\n[output]\ncontrol_frames = true\n\
         [workload]\nkind = \"flows\"\nflows = [{}]\n",
        fig1_topology(),
        flows.join(", ")
    );
    let s = run(&text);
    let c: std::collections::BTreeMap<_, _> = s.flow_control_counters().into_iter().collect();
    eprintln!("{c:?}");
    assert!(c["ofc_pause_all"] > 0, "X_OFF was crossed: {c:?}");
    assert_eq!(s.summary().drops.total(), 0, "lossless");
    assert_drained(&s);
    assert_eq!(s.flow_control_held(), Some(0));
    // Every X_OFF PAUSE out of S_c's port to server 2 names flows of server 2 only.
    let to_host = port_towards(&s, 12, 2);
    let all: Vec<_> = records_out_of(&s, to_host).into_iter().filter(|r| r.trigger == Trigger::All).collect();
    assert!(!all.is_empty());
    let of_server_2: Vec<FlowId> =
        s.flow_records().iter().filter(|r| r.src == 2).map(|r| FlowId(r.flow_id)).collect();
    assert!(all.iter().all(|r| r.flows.iter().all(|f| of_server_2.contains(f))), "{all:?}");
}

/// `local_flows = "from_ingress"` (a local congestion port names only the stored congested
/// flows that enter by the pausing ingress) keeps Table I's result: F0 clearly faster than
/// under PFC, lossless, in order, nothing held.
#[test]
fn local_flows_from_ingress_keeps_table_1() {
    let f0_pfc = fct_of(&run(&table1(PFC, 1)), "F0");
    let s = run(&table1("kind = \"ofc\"\nlocal_flows = \"from_ingress\"", 1));
    let f0 = fct_of(&s, "F0");
    eprintln!("F0: {f0:.0} us (PFC {f0_pfc:.0})");
    assert!(f0 < 0.8 * f0_pfc);
    assert_eq!(s.summary().drops.total(), 0);
    assert_eq!(s.flow_records().iter().map(|r| r.reordered_packets).sum::<u32>(), 0);
    assert_drained(&s);
    assert_eq!(s.flow_control_held(), Some(0));
}
