//! What a workload may ask for: flow sizes within the clock's reach and a number of flows
//! one run can hold, estimated from the parameters *before* any flow is generated, so
//! that a Poisson `stop` of 1000 s or an incast `period` of 1 ps is an error naming the
//! field, not an allocation abort minutes later.

use crate::scenario::limits::{count, max_time_text, send_time_ps, MAX_FLOWS, MAX_FLOW_BYTES};
use crate::scenario::ScenarioError;
use crate::time::Rate;
use crate::topology::Topology;

use super::FlowSpec;

/// A flow size of at most `MAX_FLOW_BYTES`.
pub(super) fn check_size(size: u64, field: &str) -> Result<(), ScenarioError> {
    if size > MAX_FLOW_BYTES {
        return Err(ScenarioError::field(
            field,
            format!("expected at most {} bytes per flow, got {}", count(MAX_FLOW_BYTES), count(size)),
        ));
    }
    Ok(())
}

/// Refuse a workload entry expected to add `expected` flows to the `so_far` already made
/// when the total would pass `MAX_FLOWS`; `driver` says which fields make the count.
pub(super) fn check_count(
    field: &str,
    expected: f64,
    so_far: usize,
    driver: &str,
) -> Result<(), ScenarioError> {
    let total = so_far as f64 + expected;
    // NaN (an undefined estimate) is refused too.
    if total.is_nan() || total > MAX_FLOWS as f64 {
        let about = if expected.is_finite() && expected < 1e18 {
            count(expected.round() as u64)
        } else {
            format!("{expected:.3e}")
        };
        return Err(ScenarioError::field(
            field,
            format!(
                "would generate about {about} flows, more than the {} one run may hold; {driver}",
                count(MAX_FLOWS)
            ),
        ));
    }
    Ok(())
}

/// A generator that made more flows than it may (its estimate was low): refuse.
pub(super) fn check_made(field: &str, flows: usize) -> Result<(), ScenarioError> {
    check_count(field, 0.0, flows, "split the run")
}

/// Every flow can be sent within the clock's range at the slowest link of the topology.
pub(super) fn check_send_times(
    flows: &[FlowSpec],
    topo: &Topology,
    field: &str,
) -> Result<(), ScenarioError> {
    let slowest = topo.ports.iter().map(|p| p.rate).min().unwrap_or(Rate(1));
    if let Some(f) = flows.iter().max_by_key(|f| f.size) {
        if send_time_ps(f.size, slowest).is_none() {
            return Err(ScenarioError::field(
                field,
                format!(
                    "a flow of {} bytes ({} -> {}) takes longer than {} to send at the slowest link's {} bit/s",
                    count(f.size),
                    f.src,
                    f.dst,
                    max_time_text(),
                    count(slowest.0)
                ),
            ));
        }
    }
    Ok(())
}
