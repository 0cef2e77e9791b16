//! `[engine]` checks that need the topology: what a partitioned run (`engine.threads` or
//! `engine.partitions` above 1) cannot reproduce exactly is refused at validation, naming
//! the field, so `hopsim validate` says what a run would.

use super::{Scenario, ScenarioError};
use crate::topology::Topology;

/// Refuse what a partitioned run cannot reproduce exactly, naming the field (called by
/// validation whenever the run has more than one partition).
pub(crate) fn check_parallel(scenario: &Scenario, topo: &Topology) -> Result<(), ScenarioError> {
    let parts = scenario.engine.partitions();
    let refuse = |field: &str, why: &str| {
        Err(ScenarioError::field(
            field,
            format!(
                "{why}: not available in a partitioned run (engine.threads or engine.partitions > 1; use 1 thread \
                 and 1 partition)"
            ),
        ))
    };
    if scenario.engine.tie_order != super::TieOrderSpec::Shuffled {
        return refuse(
            "engine.tie_order",
            "\"scheduled\" (set by compat = \"ns3\" unless written) orders simultaneous events by when they were \
             scheduled, which a partition cannot know",
        );
    }
    let o = &scenario.output;
    if o.rate_trace.is_some() {
        return refuse("output.rate_trace", "rate samples are taken across partitions");
    }
    if o.queues.is_some() {
        return refuse("output.queues", "queue samples are taken across partitions");
    }
    if o.throughput.is_some() {
        return refuse("output.throughput", "throughput samples are taken across partitions");
    }
    if o.packet_trace.is_some() {
        return refuse("output.packet_trace", "a packet trace is one timeline of the whole network");
    }
    if o.deadlock.is_some() {
        return refuse("output.deadlock", "the deadlock detector reads every switch at once");
    }
    if !scenario.faults.is_empty() {
        return refuse("faults", "a failing link changes routes at every switch");
    }
    if scenario.switch.ecn.random_stream == super::RandomStream::Shared {
        return refuse("switch.ecn.random_stream", "one random stream shared by every switch");
    }
    if !scenario.transport.kind.partitions() {
        return refuse(
            "transport.kind",
            &format!(
                "\"{}\" has not been checked for partitioned runs (see docs/parallel.md)",
                scenario.transport.kind.name()
            ),
        );
    }
    if let Some(fc) = scenario.switch.flow_control.as_ref().filter(|fc| !fc.partitions()) {
        return refuse(
            "switch.flow_control.kind",
            &format!("\"{}\" has not been checked for partitioned runs (see docs/parallel.md)", fc.kind()),
        );
    }
    let lb = &scenario.routing.load_balancer;
    if !lb.partitions() {
        return refuse(
            "routing.load_balancer",
            &format!("\"{}\" has not been checked for partitioned runs (see docs/parallel.md)", lb.kind()),
        );
    }
    let deflection = &scenario.switch.deflection;
    if !deflection.partitions() {
        return refuse(
            "switch.deflection.kind",
            &format!(
                "\"{}\" has not been checked for partitioned runs (see docs/parallel.md)",
                deflection.kind()
            ),
        );
    }
    let threads = scenario.engine.threads as usize;
    let field = if parts > threads { "engine.partitions" } else { "engine.threads" };
    crate::topology::partition::cut(topo, parts, field).map(drop)
}
