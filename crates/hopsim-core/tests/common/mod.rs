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
