//! The scenario: a serde description of one simulation run, and its validation.
//!
//! A scenario is read from TOML (or JSON, which the Python front end sends after applying
//! `--set` overrides). Unknown fields are rejected, and every error names the dotted path
//! of the offending field. Every field but `topology` and `workload` has a default, each
//! documented with its source in `docs/model.md`.

pub mod error;
pub mod input;
pub mod limits;
pub(crate) mod tagged;
pub mod units;

pub(crate) mod compat;
mod cross_checks;
mod engine;
pub mod faults;
mod messages;
pub mod output;
mod policies;
mod routing;
mod switch;
mod tcp;
mod topology;
mod transport;
mod validate;
mod workload;

pub use error::ScenarioError;
pub use faults::FaultSpec;
pub use output::*;
pub use policies::Policies;
pub use routing::*;
pub use switch::*;
pub use tcp::{BoltSpec, RankSpec, SwiftSpec, TcpSpec, TransportKind};
pub use topology::*;
pub use transport::*;
pub(crate) use units::{delay_1us, one, rate_100g, yes, zero_duration};
pub use units::{Bytes, Duration, RateSpec};
pub use validate::{default_cc_params, ValidScenario};
pub use workload::*;

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One simulation run.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label copied into the outputs.
    #[serde(default)]
    pub name: Option<String>,
    /// Seed of every random stream (workload generation, ECN marking, ECMP hash seeds).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time limit. Default: run until no event remains (all flows finished
    /// and the network drained, or a deadlock left nothing to do).
    #[serde(default)]
    pub duration: Option<Duration>,
    pub topology: TopologySpec,
    #[serde(default)]
    pub routing: RoutingSpec,
    #[serde(default)]
    pub switch: SwitchSpec,
    #[serde(default)]
    pub transport: TransportSpec,
    pub workload: OneOrMany<WorkloadSpec>,
    /// Links that fail (and maybe recover) during the run.
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// How links time packets.
    #[serde(default)]
    pub links: LinksSpec,
    /// How the event engine runs: threads, and the order of simultaneous events.
    #[serde(default)]
    pub engine: EngineSpec,
    /// Follow another simulator's behaviour where the scenario does not say otherwise:
    /// `"ns3"`, the HPCC ns-3 RDMA simulator; `"conweave_ns3"`, ConWeave's ns-3 (the
    /// RDMA load-balancing simulator of the same lineage; see `compat.rs` and
    /// `docs/ns3.md`).
    #[serde(default)]
    pub compat: Option<Compat>,
    #[serde(default)]
    pub output: OutputSpec,
}

/// `[links]`: how every link (switch ports, NIC ports and NIC pacing) times a packet.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinksSpec {
    /// `"exact"` (default: `bytes × 8 / rate`, to the picosecond) or `"ns3"` (truncated to
    /// the nanosecond through a double, as the ns-3 RDMA simulator times packets).
    #[serde(default)]
    pub serialization: crate::time::Serialization,
}

/// `[engine]`: how the discrete-event engine runs the scenario.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// Threads of the conservative parallel engine (default 1: sequential). The network
    /// is cut into as many partitions (a fat-tree by pod, a leaf-spine by leaf, any other
    /// network by a balanced min-cut), each run
    /// by its own thread in windows as long as the shortest link delay between
    /// partitions; the flow table, ports, switches and summary are those of a one-thread
    /// run (`docs/parallel.md` lists what a parallel run refuses).
    #[serde(default = "one_thread")]
    pub threads: u32,
    /// Partitions of the parallel engine, when more than `threads` (default: one per
    /// thread): each thread then simulates several, one after the other in every window.
    /// On one thread this runs a large network in pieces whose state fits the processor's
    /// caches better (results unchanged: they are the one-thread run's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<u32>,
    /// Order of events at the same picosecond: `"shuffled"` (default: by kind, then by
    /// the entity acted on in an order drawn per picosecond from the seed, independent of
    /// when they were scheduled, as a partitioned parallel run needs) or `"scheduled"` (in
    /// the order they were scheduled, as ns-3's scheduler does; `compat = "ns3"` sets it).
    #[serde(default)]
    pub tie_order: TieOrderSpec,
}

impl Default for EngineSpec {
    fn default() -> Self {
        EngineSpec { threads: 1, partitions: None, tie_order: TieOrderSpec::default() }
    }
}

fn one_thread() -> u32 {
    1
}

impl EngineSpec {
    /// Partitions the network is cut into (1: the sequential engine).
    pub fn partitions(&self) -> usize {
        self.partitions.map_or(self.threads, |p| p.max(self.threads)) as usize
    }
}

/// `engine.tie_order`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TieOrderSpec {
    #[default]
    Shuffled,
    Scheduled,
}

fn default_seed() -> u64 {
    1
}

/// A simulator whose behaviour `compat` follows.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Compat {
    /// The HPCC ns-3 RDMA simulator (alibaba-edu/High-Precision-Congestion-Control).
    Ns3,
    /// ConWeave's ns-3 (conweave-project/conweave-ns3, SIGCOMM 2023): HPCC's lineage with
    /// load balancers, high-priority ACKs and a Broadcom-style MMU.
    ConweaveNs3,
}

impl Compat {
    /// The name a scenario writes.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Ns3 => "ns3",
            Compat::ConweaveNs3 => "conweave_ns3",
        }
    }
}

/// A single table or an array of tables (`[workload]` or `[[workload]]`).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

/// The JSON Schema of a scenario (`hopsim schema`): every table, kind and field with its
/// type, default and meaning (the fields' doc comments, which cite their sources).
pub fn json_schema() -> serde_json::Value {
    schemars::schema_for!(Scenario).to_value()
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for OneOrMany<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("OneOrMany_{}", T::schema_name()).into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let one = g.subschema_for::<T>();
        schemars::json_schema!({"anyOf": [one, {"type": "array", "items": one}]})
    }
}

impl<T> OneOrMany<T> {
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t),
            OneOrMany::Many(v) => v,
        }
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    tagged::inner::<T, D::Error>(v).map_err(|e| {
                        let msg = e.to_string();
                        match tagged::split_nested(&msg) {
                            Some((p, m)) => tagged::nested(&tagged::join_path(&format!("[{i}]"), p), m),
                            None => tagged::nested(&format!("[{i}]"), msg),
                        }
                    })
                })
                .collect::<Result<Vec<T>, D::Error>>()
                .map(OneOrMany::Many),
            v @ serde_json::Value::Object(_) => tagged::inner(v).map(OneOrMany::One),
            other => {
                Err(serde::de::Error::custom(format!("expected a table or an array of tables, got {other}")))
            }
        }
    }
}

// ---------------------------------------------------------------- parsing

/// Turn a deserialization error at `path` into a `ScenarioError`, joining any inner path
/// carried by the message (see `tagged`). A root-level error without a path is a syntax
/// error, described by `syntax`.
fn field_error(path: &str, message: &str, syntax: impl FnOnce() -> String) -> ScenarioError {
    let message = message.trim();
    let (path, message) = match tagged::split_nested(message) {
        Some((inner, m)) => (tagged::join_path(path, inner), m.trim().replace('\n', " ")),
        None if path == "." || path.is_empty() => return ScenarioError::Syntax(syntax()),
        None => (path.to_string(), message.replace('\n', " ")),
    };
    let hint = pfc_field_elsewhere(&path, &message).unwrap_or_default();
    ScenarioError::Field { path, message: message + &hint }
}

/// An unknown field of `[switch.flow_control]` that `[switch.pfc]` has (`alpha`,
/// `threshold`, ...): where it belongs.
fn pfc_field_elsewhere(path: &str, message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let name = &rest[..rest.find('`')?];
    if !path.starts_with("switch.flow_control") {
        return None;
    }
    let schema =
        serde_json::to_value(schemars::schema_for!(crate::switch::flow_control::pfc_spec::PfcSpec)).ok()?;
    let known = schema.get("properties")?.get(name).is_some();
    known.then(|| format!("; `{name}` is PFC's setting: set it as switch.pfc.{name}"))
}

impl Scenario {
    /// Parse TOML text. Errors name the field path (and line for syntax errors).
    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        let de = toml::Deserializer::new(text);
        let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            field_error(&path, inner.message(), || inner.to_string().trim().replace('\n', " "))
        })?;
        if scenario.compat.is_none() {
            return Ok(scenario);
        }
        // A compatibility profile fills in the document's missing fields: read it again
        // with them.
        let doc: serde_json::Value =
            toml::from_str(text).map_err(|e| ScenarioError::Syntax(e.to_string()))?;
        Scenario::from_json_str(&doc.to_string())
    }

    /// Read and parse a scenario file; its relative input paths are resolved against the
    /// file's folder.
    pub fn from_toml_file(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = input::read_text(path, "scenario file")?;
        let mut scenario = Scenario::from_toml_str(&text)?;
        scenario.resolve_paths(path.parent().unwrap_or(Path::new(".")));
        Ok(scenario)
    }

    /// Parse JSON text (as sent by the Python front end). Type errors say what was
    /// expected and found (see `messages`).
    pub fn from_json_str(text: &str) -> Result<Scenario, ScenarioError> {
        let strip = |message: String| match message.find(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        let mut doc: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ScenarioError::Syntax(strip(e.to_string())))?;
        compat::apply(&mut doc)?;
        let attempt = |doc: serde_json::Value| -> Result<Scenario, (String, String)> {
            serde_path_to_error::deserialize(doc).map_err(
                |e: serde_path_to_error::Error<serde_json::Error>| {
                    (e.path().to_string(), strip(e.into_inner().to_string()))
                },
            )
        };
        // The path of an error, with any inner path of a `kind` table joined to it.
        let located = |(path, message): (String, String)| match field_error(&path, &message, String::new) {
            ScenarioError::Field { path, message } => (path, message),
            _ => (path, message),
        };
        attempt(doc.clone()).map_err(|e| {
            let (path, message) = located(e);
            if path == "." || path.is_empty() {
                return ScenarioError::Syntax(message);
            }
            let message = messages::reword(&doc, &path, &message, |probe| attempt(probe).err().map(&located));
            ScenarioError::Field { path, message }
        })
    }

    /// Make relative input paths absolute against `base` (the scenario file's folder).
    pub fn resolve_paths(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        if let TopologySpec::File(TopologyFileSpec { file, .. }) = &mut self.topology {
            fix(file);
        }
        let workloads = match &mut self.workload {
            OneOrMany::One(w) => std::slice::from_mut(w),
            OneOrMany::Many(v) => v.as_mut_slice(),
        };
        for w in workloads {
            match w {
                WorkloadSpec::Flows(FlowsSpec { file: Some(f), .. }) => fix(f),
                WorkloadSpec::Poisson(PoissonSpec { cdf_file: Some(f), .. }) => fix(f),
                WorkloadSpec::IncastMix(IncastMixSpec { cdf_file: Some(f), .. }) => fix(f),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_file_resolves_its_inputs_beside_it_and_a_missing_one_is_named() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let s = Scenario::from_toml_file(&data.join("star.toml")).expect("valid");
        let TopologySpec::File(TopologyFileSpec { file, .. }) = &s.topology else {
            panic!("star.toml reads its topology from a file")
        };
        assert_eq!(file, &data.join("star_topology.txt"));
        let missing = data.join("no_such.toml");
        let err = Scenario::from_toml_file(&missing).expect_err("missing file").to_string();
        assert!(err.starts_with(&missing.display().to_string()), "{err}");
    }

    const MINIMAL: &str = r#"
        [topology]
        kind = "dumbbell"
        left_hosts = 2
        right_hosts = 1
        [workload]
        kind = "flows"
        flows = [{ src = 0, dst = 2, size = "10KB" }]
    "#;

    #[test]
    fn minimal_scenario_gets_defaults() {
        let s = Scenario::from_toml_str(MINIMAL).unwrap();
        assert_eq!(s.seed, 1);
        assert!(*s.switch.pfc.enabled);
        assert_eq!(s.transport.mtu, 1000);
        assert_eq!(s.transport.irn.rto_low_packets, 3, "IRN's N (IRN §3.1)");
        assert_eq!(s.workload.as_slice().len(), 1);
    }

    /// Settings written where they have no effect are refused, naming the field; their
    /// defaults pass.
    #[test]
    fn settings_that_would_be_silently_ignored_are_refused() {
        let err = |text: &str| {
            let s = Scenario::from_toml_str(text).unwrap();
            assert!(!s.transport.tcp.written || text.contains("[transport.tcp]"));
            ValidScenario::new(s).err().map(|e| e.to_string())
        };
        assert_eq!(err(MINIMAL), None, "defaults alone");
        let tcp_under_roce = format!("{MINIMAL}\n[transport.tcp]\nsack = true\n");
        let e = err(&tcp_under_roce).expect("refused");
        assert!(
            e.starts_with("transport.tcp: configures the TCP transport") && e.contains("transport.kind"),
            "{e}"
        );
        // A TCP scenario switched to RoCE by name keeps its table for its TCP runs.
        let named_roce = format!("{MINIMAL}\n[transport]\nkind = \"roce\"\n[transport.tcp]\nsack = true\n");
        assert_eq!(err(&named_roce), None);
        let pfc_beside_pyrrha =
            format!("{MINIMAL}\n[switch.pfc]\nenabled = true\n[switch.flow_control]\nkind = \"pyrrha\"\n");
        let e = err(&pfc_beside_pyrrha).expect("refused");
        assert!(e.starts_with("switch.pfc.enabled: true asks for PFC") && e.contains("\"pyrrha\""), "{e}");
        let off_beside_pyrrha = pfc_beside_pyrrha.replace("enabled = true", "enabled = false");
        assert_eq!(err(&off_beside_pyrrha), None);
        let alpha_beside_pyrrha = pfc_beside_pyrrha.replace("enabled = true", "alpha = 0.25");
        assert_eq!(err(&alpha_beside_pyrrha), None, "a PFC baseline's table, another kind swapped in");
        // switch.pfc.enabled = false turns PFC off beside kind = "pfc" too (no flow control).
        let off_beside_pfc = off_beside_pyrrha.replace("\"pyrrha\"", "\"pfc\"");
        let v = ValidScenario::new(Scenario::from_toml_str(&off_beside_pfc).unwrap()).unwrap();
        assert_eq!(v.policies.flow_control.kind(), "none");
        assert!(v.policies.pfc.is_none());
    }

    #[test]
    fn unknown_and_mistyped_fields_are_named() {
        let bad = MINIMAL.replace("left_hosts = 2", "left_hosts = 2\nleft_hostz = 3");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.contains("left_hostz"), "{e}");

        let bad = format!("{MINIMAL}\n[switch.pfc]\nenabled = \"yes\"\n");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("switch.pfc.enabled"), "{e}");

        // A field of [switch.pfc] written in [switch.flow_control] says where it belongs.
        let bad = format!("{MINIMAL}\n[switch.flow_control]\nkind = \"pfc\"\nalpha = 0.3\n");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.ends_with("`alpha` is PFC's setting: set it as switch.pfc.alpha"), "{e}");
        let e = Scenario::from_json_str(
            &serde_json::to_string(&toml::from_str::<serde_json::Value>(&bad).unwrap()).unwrap(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("switch.flow_control.alpha: unknown field") && e.contains("switch.pfc.alpha"),
            "{e}"
        );

        let bad = format!("{MINIMAL}\n[switch.ecn]\nkmin = \"12 parsecs\"\n");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("switch.ecn.kmin"), "{e}");

        let bad = MINIMAL.replace("kind = \"dumbbell\"", "kind = \"torus\"");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.contains("topology") && e.contains("torus"), "{e}");
    }

    #[test]
    fn errors_inside_tagged_tables_keep_their_path() {
        let bad = MINIMAL.replace("left_hosts = 2", "left_hosts = \"two\"");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("topology.left_hosts: invalid type"), "{e}");
        let bad = MINIMAL.replace("kind = \"flows\"", "kind = \"flows\"\nflowz = 3");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("workload.flowz: unknown field `flowz`"), "{e}");
        let bad = MINIMAL.replace("size = \"10KB\"", "size = \"10 parsecs\"");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("workload.flows[0].size:"), "{e}");
        let many =
            MINIMAL.replace("[workload]", "[[workload]]") + "[[workload]]\nkind = \"poisson\"\nlod = 1\n";
        let e = Scenario::from_toml_str(&many).unwrap_err().to_string();
        assert!(e.starts_with("workload[1].lod: unknown field `lod`"), "{e}");
    }

    #[test]
    fn durations_need_units() {
        let bad = format!("duration = 5\n{MINIMAL}");
        let e = Scenario::from_toml_str(&bad).unwrap_err().to_string();
        assert!(e.starts_with("duration") && e.contains("unit"), "{e}");
    }
}
