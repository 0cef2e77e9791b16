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
