//! Python bindings of hopsim-core: a thin layer that takes a scenario (JSON text) in and
//! hands columnar results (dicts of lists) out. All logic lives in the core crate.
//!
//! A Rust panic never reaches Python as `PanicException` (which `except Exception` does
//! not catch): every call into the core runs under `catch_unwind`, and a panic becomes a
//! `HopsimInternalError` (a `RuntimeError`) saying where it happened; a simulation that
//! panicked refuses further calls.

// pyo3 0.22's #[pymethods] expansion trips this lint on every PyResult return.
#![allow(clippy::useless_conversion)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use hopsim_core::ids::PortId;
use hopsim_core::time::{SimTime, PS_PER_NS};
use hopsim_core::workload::EmpiricalCdf;
use hopsim_core::{Scenario, ScenarioError, Simulator};

create_exception!(_core, HopsimScenarioError, PyValueError, "A scenario field or input file is invalid.");
create_exception!(_core, HopsimInternalError, PyRuntimeError, "hopsim failed: a bug, not bad input.");

fn to_py_err(e: ScenarioError) -> PyErr {
    HopsimScenarioError::new_err(e.to_string())
}

/// The message and place of the last panic, kept by the panic hook (which prints nothing).
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

fn quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = match (info.payload().downcast_ref::<&str>(), info.payload().downcast_ref::<String>()) {
            (Some(s), _) => s.to_string(),
            (_, Some(s)) => s.clone(),
            _ => "unknown panic".to_string(),
        };
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{message}{place}"));
        }
    }));
}

/// Run `f`, turning a panic into the text of an internal error.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| {
        let detail = LAST_PANIC.lock().ok().and_then(|mut l| l.take()).unwrap_or_default();
        format!("internal error while {what} (a hopsim bug; please report it with the scenario): {detail}")
    })
}

fn internal(message: String) -> PyErr {
    HopsimInternalError::new_err(message)
}

fn ns(t: SimTime) -> f64 {
    t.0 as f64 / PS_PER_NS as f64
}

fn parse(scenario_json: &str, base_dir: &str) -> Result<Scenario, ScenarioError> {
    let mut s = Scenario::from_json_str(scenario_json)?;
    s.resolve_paths(std::path::Path::new(base_dir));
    Ok(s)
}

/// One simulation run, advanced from Python in steps (for progress reporting).
#[pyclass(module = "hopsim._core", unsendable)]
struct Simulation {
    sim: Simulator,
    /// The scenario as run, every default filled in, as JSON.
    resolved: String,
    /// Set when a call panicked: the simulator's state can no longer be trusted.
    failed: Option<String>,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(py: Python<'_>, scenario_json: &str, base_dir: &str) -> PyResult<Self> {
        let built = py.allow_threads(|| {
            guarded("building the simulation", || {
                let scenario = parse(scenario_json, base_dir)?;
                let resolved = serde_json::to_string(&scenario).expect("a scenario serializes");
                Simulator::new(scenario).map(|sim| (sim, resolved))
            })
        });
        let (sim, resolved) = built.map_err(internal)?.map_err(to_py_err)?;
        Ok(Simulation { sim, resolved, failed: None })
    }

    /// The scenario as run with every default filled in (JSON text; durations in `ps`,
    /// rates in `bps`).
    fn resolved_scenario(&self) -> String {
        self.resolved.clone()
    }

    /// Advance to simulated time `t_ns` (capped at the scenario duration).
    fn run_until(&mut self, py: Python<'_>, t_ns: f64) -> PyResult<()> {
        let t = SimTime((t_ns.max(0.0) * PS_PER_NS as f64) as u64);
        self.step(py, |sim| sim.run_until(t))
    }

    /// Run to the end.
    fn run(&mut self, py: Python<'_>) -> PyResult<()> {
        self.step(py, |sim| sim.run())
    }

    fn is_done(&self) -> bool {
        self.sim.is_done()
    }

    #[getter]
    fn now_ns(&self) -> f64 {
        ns(self.sim.now())
    }

    /// The time limit in ns, or None when the run goes until nothing is left.
    #[getter]
    fn limit_ns(&self) -> Option<f64> {
        (self.sim.limit() != SimTime::NEVER).then(|| ns(self.sim.limit()))
    }

    #[getter]
    fn events(&self) -> u64 {
        self.sim.events_processed()
    }

    /// Last flow start time in ns (a lower bound on how long the run lasts).
    #[getter]
    fn last_flow_start_ns(&self) -> f64 {
        self.sim.flow_records().last().map_or(0.0, |f| ns(f.start))
    }

    /// Per-flow table as a dict of columns.
    fn flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let recs = self.sim.flow_records();
        let d = PyDict::new_bound(py);
        d.set_item("flow_id", recs.iter().map(|r| r.flow_id).collect::<Vec<_>>())?;
        d.set_item("src", recs.iter().map(|r| r.src).collect::<Vec<_>>())?;
        d.set_item("dst", recs.iter().map(|r| r.dst).collect::<Vec<_>>())?;
        d.set_item("size_bytes", recs.iter().map(|r| r.size_bytes).collect::<Vec<_>>())?;
        d.set_item("start_ns", recs.iter().map(|r| ns(r.start)).collect::<Vec<_>>())?;
        d.set_item("finish_ns", recs.iter().map(|r| r.finish.map(ns)).collect::<Vec<_>>())?;
        d.set_item("fct_ns", recs.iter().map(|r| r.fct().map(|f| f.as_ns_f64())).collect::<Vec<_>>())?;
        d.set_item("ideal_fct_ns", recs.iter().map(|r| r.ideal_fct.as_ns_f64()).collect::<Vec<_>>())?;
        d.set_item("slowdown", recs.iter().map(|r| r.slowdown()).collect::<Vec<_>>())?;
        d.set_item("tag", recs.iter().map(|r| r.tag.as_str()).collect::<Vec<_>>())?;
        d.set_item("query_id", recs.iter().map(|r| r.query_id).collect::<Vec<_>>())?;
        d.set_item("class", self.sim.flow_classes().iter().map(|c| c.name()).collect::<Vec<_>>())?;
        d.set_item("cc", recs.iter().map(|r| r.cc).collect::<Vec<_>>())?;
        d.set_item("loss_recovery", recs.iter().map(|r| r.loss_recovery).collect::<Vec<_>>())?;
        d.set_item("priority", recs.iter().map(|r| r.priority).collect::<Vec<_>>())?;
        d.set_item("retransmitted_bytes", recs.iter().map(|r| r.retransmitted_bytes).collect::<Vec<_>>())?;
        d.set_item("timeouts", recs.iter().map(|r| r.timeouts).collect::<Vec<_>>())?;
        d.set_item("cnps_received", recs.iter().map(|r| r.cnps_received).collect::<Vec<_>>())?;
        d.set_item("path_hops", recs.iter().map(|r| r.path_hops).collect::<Vec<_>>())?;
        d.set_item("reordered_packets", recs.iter().map(|r| r.reordered_packets).collect::<Vec<_>>())?;
        d.set_item("deflections", recs.iter().map(|r| r.deflections).collect::<Vec<_>>())?;
        let ports = self.sim.flow_ports();
        d.set_item("sport", ports.iter().map(|p| p.0).collect::<Vec<_>>())?;
        d.set_item("dport", ports.iter().map(|p| p.1).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// Per-port counters as a dict of columns.
    fn ports<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let recs = self.sim.port_records();
        let d = PyDict::new_bound(py);
        d.set_item("node", recs.iter().map(|r| r.node).collect::<Vec<_>>())?;
        d.set_item("port", recs.iter().map(|r| r.port).collect::<Vec<_>>())?;
        d.set_item("peer_node", recs.iter().map(|r| r.peer_node).collect::<Vec<_>>())?;
        let topo = self.sim.topology();
        let peer_port = |i: usize| {
            let peer = topo.ports[i].peer;
            peer.0 - topo.node_ports[topo.ports[peer.idx()].node.idx()]
        };
        d.set_item("peer_port", (0..recs.len()).map(peer_port).collect::<Vec<_>>())?;
        d.set_item("tier", recs.iter().map(|r| r.tier).collect::<Vec<_>>())?;
        d.set_item("hop_tier", recs.iter().map(|r| r.hop_tier).collect::<Vec<_>>())?;
        d.set_item("rate_bps", recs.iter().map(|r| r.rate_bps).collect::<Vec<_>>())?;
        d.set_item("tx_bytes", recs.iter().map(|r| r.stats.tx_bytes).collect::<Vec<_>>())?;
        d.set_item("tx_packets", recs.iter().map(|r| r.stats.tx_packets).collect::<Vec<_>>())?;
        d.set_item("pause_sent", recs.iter().map(|r| r.stats.pause_sent).collect::<Vec<_>>())?;
        d.set_item("resume_sent", recs.iter().map(|r| r.stats.resume_sent).collect::<Vec<_>>())?;
        d.set_item("pause_received", recs.iter().map(|r| r.stats.pause_received).collect::<Vec<_>>())?;
        d.set_item("deflections", recs.iter().map(|r| r.stats.deflections).collect::<Vec<_>>())?;
        d.set_item(
            "paused_time_ns",
            recs.iter().map(|r| r.stats.paused_time.as_ns_f64()).collect::<Vec<_>>(),
        )?;
        d.set_item("max_queue_bytes", recs.iter().map(|r| r.stats.max_queue_bytes).collect::<Vec<_>>())?;
        d.set_item("busy_time_ns", recs.iter().map(|r| r.stats.busy_time.as_ns_f64()).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// PFC frames sent (only when `output.pfc_events = true`).
    fn pfc_events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ev = self.sim.pfc_events();
        let topo = self.sim.topology();
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", ev.iter().map(|e| ns(e.time)).collect::<Vec<_>>())?;
        d.set_item("node", ev.iter().map(|e| e.node.0).collect::<Vec<_>>())?;
        d.set_item("port", ev.iter().map(|e| e.port.0 - topo.node_ports[e.node.idx()]).collect::<Vec<_>>())?;
        d.set_item("priority", ev.iter().map(|e| e.priority).collect::<Vec<_>>())?;
        d.set_item("pause", ev.iter().map(|e| e.pause).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// Every control frame sent, of any kind (only when `output.control_frames = true`).
    fn control_frames<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ev = self.sim.control_events();
        let topo = self.sim.topology();
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", ev.iter().map(|e| ns(e.time)).collect::<Vec<_>>())?;
        d.set_item("node", ev.iter().map(|e| e.node.0).collect::<Vec<_>>())?;
        d.set_item("port", ev.iter().map(|e| e.port.0 - topo.node_ports[e.node.idx()]).collect::<Vec<_>>())?;
        d.set_item("kind", ev.iter().map(|e| e.payload.kind_name()).collect::<Vec<_>>())?;
        d.set_item("subject", ev.iter().map(|e| e.payload.subject()).collect::<Vec<_>>())?;
        d.set_item("pause", ev.iter().map(|e| e.payload.pauses() == Some(true)).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// Samples of `[output.rate_trace]`.
    fn rate_trace<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let tr = self.sim.rate_trace();
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", tr.iter().map(|r| ns(r.time)).collect::<Vec<_>>())?;
        d.set_item("flow_id", tr.iter().map(|r| r.flow).collect::<Vec<_>>())?;
        d.set_item("rate_bps", tr.iter().map(|r| r.rate_bps).collect::<Vec<_>>())?;
        d.set_item("window_bytes", tr.iter().map(|r| r.window_bytes).collect::<Vec<_>>())?;
        d.set_item("in_flight_bytes", tr.iter().map(|r| r.in_flight_bytes).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// `[output.queues]` egress-queue samples (non-empty queues only).
    fn queues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let q = self.sim.queue_samples();
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", q.iter().map(|r| ns(r.time)).collect::<Vec<_>>())?;
        d.set_item("node", q.iter().map(|r| self.node_of(r.port)).collect::<Vec<_>>())?;
        d.set_item("port", q.iter().map(|r| self.local_port(r.port)).collect::<Vec<_>>())?;
        d.set_item("queue", q.iter().map(|r| r.queue.map_or(-1, i32::from)).collect::<Vec<_>>())?;
        d.set_item("hop_tier", q.iter().map(|r| self.sim.hop_tier(r.port).name()).collect::<Vec<_>>())?;
        d.set_item("bytes", q.iter().map(|r| r.bytes).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// `[output.queues]` shared-buffer samples (non-empty switches only).
    fn buffers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = self.sim.buffer_samples();
        let tiers = &self.sim.topology().tiers;
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", b.iter().map(|r| ns(r.time)).collect::<Vec<_>>())?;
        d.set_item("node", b.iter().map(|r| r.node.0).collect::<Vec<_>>())?;
        d.set_item("tier", b.iter().map(|r| tiers[r.node.idx()].name()).collect::<Vec<_>>())?;
        d.set_item("bytes", b.iter().map(|r| r.bytes).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// One row per switch: tier and peak shared-buffer occupancy.
    fn switches<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.sim.switch_records();
        let d = PyDict::new_bound(py);
        d.set_item("node", s.iter().map(|r| r.node).collect::<Vec<_>>())?;
        d.set_item("tier", s.iter().map(|r| r.tier).collect::<Vec<_>>())?;
        d.set_item("max_buffer_bytes", s.iter().map(|r| r.max_buffer_bytes).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// Queuing-delay histogram per hop tier (non-empty buckets, `[lower_ns, upper_ns)`).
    fn queue_delay<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = self.sim.queue_delay_buckets();
        let d = PyDict::new_bound(py);
        d.set_item("hop_tier", b.iter().map(|r| r.tier.name()).collect::<Vec<_>>())?;
        d.set_item("lower_ns", b.iter().map(|r| r.lower_ns).collect::<Vec<_>>())?;
        d.set_item("upper_ns", b.iter().map(|r| r.upper_ns).collect::<Vec<_>>())?;
        d.set_item("packets", b.iter().map(|r| r.packets).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// `[output.throughput]`: delivered payload bytes per flow per bin.
    fn throughput<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = self.sim.throughput_bins();
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", b.iter().map(|r| ns(r.time)).collect::<Vec<_>>())?;
        d.set_item("flow_id", b.iter().map(|r| r.flow).collect::<Vec<_>>())?;
        d.set_item("bytes", b.iter().map(|r| r.bytes).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// `[output.packet_trace]` records.
    fn packet_trace<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.sim.packet_records();
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", r.iter().map(|x| ns(x.time)).collect::<Vec<_>>())?;
        d.set_item("event", r.iter().map(|x| x.event.name()).collect::<Vec<_>>())?;
        d.set_item("node", r.iter().map(|x| self.node_of(x.port)).collect::<Vec<_>>())?;
        d.set_item("port", r.iter().map(|x| self.local_port(x.port)).collect::<Vec<_>>())?;
        d.set_item("kind", r.iter().map(|x| x.kind.name()).collect::<Vec<_>>())?;
        let flow = |x: &hopsim_core::observe::PacketRecord| (x.flow != u32::MAX).then_some(x.flow);
        d.set_item("flow_id", r.iter().map(flow).collect::<Vec<_>>())?;
        d.set_item("seq", r.iter().map(|x| x.seq).collect::<Vec<_>>())?;
        d.set_item("wire_bytes", r.iter().map(|x| x.wire_bytes).collect::<Vec<_>>())?;
        d.set_item("queue", r.iter().map(|x| x.queue).collect::<Vec<_>>())?;
        d.set_item("port_backlog_bytes", r.iter().map(|x| x.port_backlog).collect::<Vec<_>>())?;
        d.set_item("ecn_ce", r.iter().map(|x| x.ecn_ce).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// Every change of a port's number of Pyrrha isolation queues.
    fn iq_usage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let u = self.sim.iq_usage();
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", u.iter().map(|r| ns(r.time)).collect::<Vec<_>>())?;
        d.set_item("node", u.iter().map(|r| self.node_of(r.port)).collect::<Vec<_>>())?;
        d.set_item("port", u.iter().map(|r| self.local_port(r.port)).collect::<Vec<_>>())?;
        d.set_item("hop_tier", u.iter().map(|r| self.sim.hop_tier(r.port).name()).collect::<Vec<_>>())?;
        d.set_item("iqs", u.iter().map(|r| r.iqs).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// `[output.congestion_trees]` snapshots: one row per (root, port) at each instant.
    fn congestion_trees<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = self.sim.congestion_trees();
        let d = PyDict::new_bound(py);
        d.set_item("time_ns", t.iter().map(|r| ns(r.time)).collect::<Vec<_>>())?;
        d.set_item("root_node", t.iter().map(|r| self.node_of(r.root)).collect::<Vec<_>>())?;
        d.set_item("root_port", t.iter().map(|r| self.local_port(r.root)).collect::<Vec<_>>())?;
        d.set_item("node", t.iter().map(|r| self.node_of(r.port)).collect::<Vec<_>>())?;
        d.set_item("port", t.iter().map(|r| self.local_port(r.port)).collect::<Vec<_>>())?;
        d.set_item("role", t.iter().map(|r| r.role.name()).collect::<Vec<_>>())?;
        d.set_item("state", t.iter().map(|r| r.state).collect::<Vec<_>>())?;
        d.set_item("hop", t.iter().map(|r| r.hop).collect::<Vec<_>>())?;
        d.set_item("bytes", t.iter().map(|r| r.bytes).collect::<Vec<_>>())?;
        d.set_item("paused_children", t.iter().map(|r| r.paused_children).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// Allocated bytes by component (see `hopsim_core::sim::MemoryReport`).
    fn memory<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let m = self.sim.memory_report();
        let d = PyDict::new_bound(py);
        d.set_item("packet_store_bytes", m.packet_store_bytes)?;
        d.set_item("port_bytes", m.port_bytes)?;
        d.set_item("flow_bytes", m.flow_bytes)?;
        d.set_item("event_bytes", m.event_bytes)?;
        d.set_item("routing_bytes", m.routing_bytes)?;
        d.set_item("int_bytes", m.int_bytes)?;
        d.set_item("peak_packets_in_flight", m.peak_packets_in_flight)?;
        d.set_item("bytes_per_packet_in_flight", m.bytes_per_packet_in_flight())?;
        d.set_item("bytes_per_flow", m.bytes_per_flow())?;
        Ok(d)
    }

    /// Run-wide counters.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.sim.summary();
        let d = PyDict::new_bound(py);
        d.set_item("seed", s.seed)?;
        d.set_item("events", s.events)?;
        d.set_item("sim_time_ns", ns(s.sim_time))?;
        d.set_item("flows_total", s.flows_total)?;
        d.set_item("flows_finished", s.flows_finished)?;
        d.set_item("packet_hops", s.packet_hops)?;
        d.set_item("data_packets_sent", s.data_packets_sent)?;
        d.set_item("data_packets_delivered", s.data_packets_delivered)?;
        d.set_item("drops", s.drops.total())?;
        d.set_item("drops_buffer_full", s.drops.buffer_full)?;
        d.set_item("drops_headroom_overflow", s.drops.headroom_overflow)?;
        d.set_item("drops_egress_admission", s.drops.egress_admission)?;
        d.set_item("drops_hop_limit", s.drops.hop_limit)?;
        d.set_item("drops_rank_admission", s.drops.rank_admission)?;
        d.set_item("drops_link_down", s.drops.link_down)?;
        d.set_item("drops_no_route", s.drops.no_route)?;
        d.set_item("control_drops", s.control_drops)?;
        d.set_item("deflections", s.deflections)?;
        d.set_item("pfc_pause_frames", s.pfc_pause_frames)?;
        d.set_item("pfc_resume_frames", s.pfc_resume_frames)?;
        let frames = PyDict::new_bound(py);
        for c in &s.control_frames {
            frames.set_item(c.kind, c.sent)?;
        }
        d.set_item("control_frames_sent", frames)?;
        let fc = PyDict::new_bound(py);
        for (name, value) in self.sim.flow_control_counters() {
            fc.set_item(name, value)?;
        }
        d.set_item("flow_control_counters", fc)?;
        let (lb, fc, deflection) = self.sim.policy_names();
        d.set_item("load_balancer", lb)?;
        d.set_item("flow_control", fc)?;
        d.set_item("deflection", deflection)?;
        d.set_item("packets_in_flight", s.packets_in_flight)?;
        d.set_item("peak_packets_in_flight", s.peak_packets_in_flight)?;
        d.set_item("buffer_bytes_in_use", s.buffer_bytes_in_use)?;
        d.set_item("max_switch_buffer_bytes", s.max_buffer_bytes)?;
        d.set_item("retransmitted_bytes", s.retransmitted_bytes)?;
        d.set_item("timeouts", s.timeouts)?;
        d.set_item("cnps", s.cnps)?;
        d.set_item("ecn_marks", s.ecn_marks)?;
        d.set_item("reordering_ratio", s.reordering_ratio)?;
        d.set_item("reorder_held", s.reorder_held)?;
        d.set_item("reorder_released", s.reorder_released)?;
        d.set_item("bolt_srcs", s.bolt_srcs)?;
        d.set_item("deflection_extra_hops", s.deflection_extra_hops.clone())?;
        d.set_item("packet_trace_dropped", s.packet_trace_dropped)?;
        let counters = PyDict::new_bound(py);
        for (name, value) in &s.counters {
            counters.set_item(*name, *value)?;
        }
        d.set_item("counters", counters)?;
        d.set_item("queue_sample_interval_ns", self.sim.queue_sample_interval().map(|i| i.as_ns_f64()))?;
        d.set_item("throughput_interval_ns", self.sim.throughput_interval().map(|i| i.as_ns_f64()))?;
        let delay = PyDict::new_bound(py);
        for st in self.sim.queue_delay_stats() {
            let t = PyDict::new_bound(py);
            t.set_item("packets", st.packets)?;
            t.set_item("mean_ns", st.mean_ns)?;
            t.set_item("max_ns", st.max_ns)?;
            delay.set_item(st.tier.name(), t)?;
        }
        d.set_item("queue_delay_ns", delay)?;
        Ok(d)
    }
}

impl Simulation {
    /// Advance the simulator with `f` under `catch_unwind`; a panic fails this simulation.
    fn step(&mut self, py: Python<'_>, f: impl FnOnce(&mut Simulator) + Send) -> PyResult<()> {
        if let Some(why) = &self.failed {
            return Err(internal(why.clone()));
        }
        let sim = &mut self.sim;
        let outcome = py.allow_threads(|| guarded("simulating", || f(sim)));
        outcome.map_err(|why| {
            self.failed = Some(why.clone());
            internal(why)
        })
    }

    fn node_of(&self, port: PortId) -> u32 {
        self.sim.port_node(port).0
    }
    fn local_port(&self, port: PortId) -> u32 {
        port.0 - self.sim.topology().node_ports[self.sim.port_node(port).idx()]
    }
}

/// Check a scenario without running it; raises `ScenarioError`.
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str, base_dir: &str) -> PyResult<()> {
    let checked = py.allow_threads(|| {
        guarded("checking the scenario", || {
            parse(scenario_json, base_dir).and_then(hopsim_core::sim::ValidScenario::new).map(drop)
        })
    });
    checked.map_err(internal)?.map_err(to_py_err)
}

/// Panics inside the guard (for the tests of the panic guard): must raise `InternalError`.
#[pyfunction]
fn _panic_for_tests() -> PyResult<()> {
    guarded("testing the panic guard", || panic!("deliberate test panic")).map_err(internal)
}

/// (name, mean bytes, [(quantile, size bytes)]) of one built-in distribution.
type WorkloadInfo = (String, f64, Vec<(f64, f64)>);

/// Built-in flow-size distributions.
#[pyfunction]
fn builtin_workloads() -> Vec<WorkloadInfo> {
    EmpiricalCdf::builtin_names()
        .into_iter()
        .map(|n| {
            let c = EmpiricalCdf::builtin(n, "workload").expect("built-in");
            let qs = [0.1, 0.5, 0.9, 0.99].iter().map(|q| (*q, c.quantile(*q))).collect();
            (n.to_string(), c.mean(), qs)
        })
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_workloads, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    quiet_panic_hook();
    m.add("ScenarioError", m.py().get_type_bound::<HopsimScenarioError>())?;
    m.add("InternalError", m.py().get_type_bound::<HopsimInternalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
