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

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use hopsim_core::tables::{Values, CATALOG, SUMMARY};
use hopsim_core::time::{SimTime, PS_PER_NS};
use hopsim_core::workload::EmpiricalCdf;
use hopsim_core::{Scenario, ScenarioError, Simulator};

/// The exceptions, named as Python shows them (`hopsim.ScenarioError`, the public class
/// `hopsim` re-exports; not `_core.HopsimScenarioError`).
mod exceptions {
    use pyo3::create_exception;
    use pyo3::exceptions::{PyRuntimeError, PyValueError};

    create_exception!(hopsim, ScenarioError, PyValueError, "A scenario field or input file is invalid.");
    create_exception!(hopsim, InternalError, PyRuntimeError, "hopsim failed: a bug, not bad input.");
}
use exceptions::{InternalError as HopsimInternalError, ScenarioError as HopsimScenarioError};

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

    /// Warnings about the scenario as run, (topic, sentence) pairs: settings that
    /// contradict its `compat` profile.
    fn notes(&self) -> Vec<(String, String)> {
        self.sim.notes().iter().map(|(t, n)| (t.to_string(), n.clone())).collect()
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

    /// The workload's progress: `flows_total`, `flows_finished`, `bytes_total` and
    /// `bytes_acked` (bytes acknowledged to their senders).
    fn work_done<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let w = self.sim.work_done();
        let d = PyDict::new_bound(py);
        d.set_item("flows_total", w.flows_total)?;
        d.set_item("flows_finished", w.flows_finished)?;
        d.set_item("bytes_total", w.bytes_total)?;
        d.set_item("bytes_acked", w.bytes_acked)?;
        Ok(d)
    }

    /// Output table `name` (see `hopsim_core::tables::CATALOG`) as a dict of columns.
    fn table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        let t =
            self.sim.table(name).ok_or_else(|| PyKeyError::new_err(format!("no output table {name:?}")))?;
        let d = PyDict::new_bound(py);
        for (c, values) in t.decl.columns.iter().zip(&t.columns) {
            match values {
                Values::Int(v) => d.set_item(c.name, v)?,
                Values::OptionalInt(v) => d.set_item(c.name, v)?,
                Values::Float(v) => d.set_item(c.name, v)?,
                Values::OptionalFloat(v) => d.set_item(c.name, v)?,
                Values::Bool(v) => d.set_item(c.name, v)?,
                Values::Text(v) => d.set_item(c.name, v)?,
            }
        }
        Ok(d)
    }

    /// The flow table (`table("flows")`).
    fn flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.table(py, "flows")
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

    /// Run-wide figures (see `hopsim_core::tables::SUMMARY`).
    /// What the parallel engine did (`None` for one thread): partitions, lookahead,
    /// windows, packets handed across, events per partition and on the critical path,
    /// wall seconds busy and waiting per partition.
    fn parallel<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(p) = self.sim.parallel_stats() else { return Ok(None) };
        let d = PyDict::new_bound(py);
        d.set_item("threads", p.threads)?;
        d.set_item("partitions", p.partitions)?;
        d.set_item("lookahead_ns", p.lookahead.0 as f64 / 1e3)?;
        d.set_item("windows", p.windows)?;
        d.set_item("transfers", p.transfers)?;
        d.set_item("critical_events", p.critical_events)?;
        d.set_item("events", p.events)?;
        d.set_item("nodes", p.nodes)?;
        d.set_item("hosts", p.hosts)?;
        d.set_item("busy_s", p.busy_s)?;
        d.set_item("waiting_s", p.waiting_s)?;
        Ok(Some(d))
    }

    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::Value::Object(self.sim.summary_record()))
    }
}

/// A JSON value as the Python object `json.loads` would make of it.
fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None().into_bound(py),
        J::Bool(b) => b.into_py(py).into_bound(py),
        J::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_py(py).into_bound(py),
            (None, Some(i)) => i.into_py(py).into_bound(py),
            _ => n.as_f64().unwrap_or(f64::NAN).into_py(py).into_bound(py),
        },
        J::String(s) => s.into_py(py).into_bound(py),
        J::Array(a) => {
            let items = a.iter().map(|x| json_to_py(py, x)).collect::<PyResult<Vec<_>>>()?;
            PyList::new_bound(py, items).into_any()
        }
        J::Object(m) => {
            let d = PyDict::new_bound(py);
            for (k, x) in m {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
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

/// A column or summary field as the catalog declares it: (name, type, unit, meaning).
type FieldInfo = (&'static str, &'static str, &'static str, &'static str);

/// Every output table: (name, file, what a row is, when it is written, columns), each
/// column (name, pandas dtype, unit, meaning).
#[pyfunction]
fn output_tables() -> Vec<(&'static str, String, &'static str, &'static str, Vec<FieldInfo>)> {
    CATALOG
        .iter()
        .map(|t| {
            let cols = t.columns.iter().map(|c| (c.name, c.dtype.pandas(), c.unit, c.doc)).collect();
            (t.name, t.file(), t.doc, t.when, cols)
        })
        .collect()
}

/// The JSON Schema of a scenario, as JSON text.
#[pyfunction]
fn scenario_schema() -> String {
    serde_json::to_string_pretty(&hopsim_core::scenario::json_schema()).expect("a schema serializes")
}

/// The run summary's fields: (name, type, unit, meaning).
#[pyfunction]
fn summary_fields() -> Vec<FieldInfo> {
    SUMMARY.iter().map(|f| (f.name, f.ty.name(), f.unit, f.doc)).collect()
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
    m.add_function(wrap_pyfunction!(output_tables, m)?)?;
    m.add_function(wrap_pyfunction!(summary_fields, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    quiet_panic_hook();
    m.add("ScenarioError", m.py().get_type_bound::<HopsimScenarioError>())?;
    m.add("InternalError", m.py().get_type_bound::<HopsimInternalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
