//! Helpers shared by the behaviour tests.
#![allow(dead_code)]

use hopsim_core::metrics::FlowRecord;
use hopsim_core::{Scenario, Simulator};

pub fn sim(toml: &str) -> Simulator {
    let s = Scenario::from_toml_str(toml).unwrap_or_else(|e| panic!("scenario: {e}"));
    Simulator::new(s).unwrap_or_else(|e| panic!("build: {e}"))
}

pub fn run(toml: &str) -> Simulator {
    let mut s = sim(toml);
    s.run();
    s
}

pub fn fct_us(r: &FlowRecord) -> f64 {
    r.fct().expect("flow finished").as_ns_f64() / 1000.0
}

/// Packet conservation and drained buffers after a run that ran to completion.
pub fn assert_drained(s: &Simulator) {
    let sum = s.summary();
    assert_eq!(sum.flows_finished, sum.flows_total, "all flows finish");
    assert_eq!(sum.packets_in_flight, 0, "no packet left in queues or on links");
    assert_eq!(
        sum.data_packets_sent,
        sum.data_packets_delivered + sum.drops.total(),
        "sent = delivered + dropped"
    );
    assert_eq!(sum.buffer_bytes_in_use, 0, "shared buffers back to zero");
    assert_eq!(s.pfc_ingress_bytes(), 0, "PFC ingress counters back to zero");
}

/// The FCT of the flow tagged `victim`, in µs.
pub fn victim_fct(s: &Simulator) -> f64 {
    s.flow_records().into_iter().find(|r| r.tag == "victim").map(|r| fct_us(&r)).expect("a victim flow")
}

/// A 4-to-1 incast into host 5 shares the left switch's uplink with a victim flow from
/// host 4 to idle host 6, under `[switch.flow_control]` `flow_control` (its TOML body).
pub fn incast_with_victim(flow_control: &str, with_incast: bool) -> String {
    let incast: String = if with_incast {
        (0..4).map(|i| format!("{{ src = {i}, dst = 5, size = \"2MB\", tag = \"incast\" }}, ")).collect()
    } else {
        String::new()
    };
    format!(
        "[topology]\nkind = \"dumbbell\"\nleft_hosts = 5\nright_hosts = 2\nbottleneck_rate = \"400Gbps\"\n\
         [switch]\nbuffer_bytes = \"1MB\"\n[switch.flow_control]\n{flow_control}\n\
         [transport]\ncc = \"none\"\n\
         [output]\ncontrol_frames = true\n\
         [workload]\nkind = \"flows\"\nflows = [{incast}{{ src = 4, dst = 6, size = \"500KB\", start = \"20us\", tag = \"victim\" }}]\n"
    )
}

pub const INCAST_32: &str = r#"
[topology]
kind = "dumbbell"
left_hosts = 32
right_hosts = 1
[switch]
buffer_bytes = "2MB"
[transport]
cc = "none"
[workload]
kind = "incast"
receiver = 32
fan_in = 32
size_min = "300KB"
size_max = "300KB"
period = "10ms"
stop = "1us"
"#;

/// A dumbbell: `left` senders at `host_rate` into one receiver behind a `bottleneck`,
/// TCP with congestion control `cc`, per-port buffers of `buffer`, plus `extra` TOML.
pub fn tcp_dumbbell(
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

pub fn records(s: &hopsim_core::Simulator) -> Vec<FlowRecord> {
    s.flow_records()
}

/// A small leaf-spine (2 spines, 2 leaves, 8 hosts per leaf, 10/10 Gb/s, 30 KB per port)
/// under a 15-to-1 incast plus background, with TCP `cc` and deflection `kind`.
pub fn tcp_incast_leaf_spine(cc: &str, kind: &str, extra: &str) -> String {
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

/// The error `toml` is refused with, when parsed or when built ("" if it is accepted).
pub fn refusal(toml: &str) -> String {
    match hopsim_core::Scenario::from_toml_str(toml) {
        Err(e) => e.to_string(),
        Ok(s) => Simulator::new(s).err().map(|e| e.to_string()).unwrap_or_default(),
    }
}

/// Each `field = value` of `[switch.flow_control] kind = kind` on a one-flow dumbbell is
/// refused with an error naming `switch.flow_control.<field>`.
pub fn assert_flow_control_fields_named(kind: &str, cases: &[(&str, &str)]) {
    for (field, value) in cases {
        let text = format!(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
             [switch.flow_control]\nkind = \"{kind}\"\n{field} = {value}\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"10KB\" }}]\n"
        );
        let err = refusal(&text);
        assert!(err.contains(&format!("switch.flow_control.{field}")), "{kind}: {field} = {value}: {err:?}");
    }
}
