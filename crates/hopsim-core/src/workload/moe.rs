//! Mixture-of-Experts all-to-all (Pyrrha §2.2 and Appendix B).
//!
//! Expert-parallel training exchanges tokens with an imbalanced all-to-all: a few popular
//! ("hot") experts receive a large share of every worker's tokens (FasterMoE, PPoPP'22),
//! and synchronous training makes the exchange periodic — an "on" phase when every worker
//! sends at once, then an "off" phase of computation. The paper gives neither the hot
//! share nor the number of hot experts; both are parameters (docs/model.md).

use rand::seq::SliceRandom;

use crate::engine::RngStream;
use crate::scenario::{MoeSpec, ScenarioError};
use crate::time::SimTime;
use crate::topology::Topology;

use super::{host_list, FlowSpec, DEFAULT_DPORT};

/// The flows of one MoE group: at `start + i × period` (before `stop`), every worker sends
/// `hot_share × bytes_per_worker` split evenly over the hot experts other than itself and
/// the rest split evenly over the other workers. Flows to hot experts are many-to-one
/// traffic (`incast`) for flow classification.
pub(super) fn moe_flows(
    m: &MoeSpec,
    topo: &Topology,
    field: &str,
    so_far: usize,
    rng: &mut RngStream,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let workers = host_list(topo, m.hosts.as_deref(), &format!("{field}.hosts"))?;
    let err = |f: &str, msg: String| ScenarioError::field(format!("{field}.{f}"), msg);
    if workers.len() < 2 {
        return Err(err("hosts", format!("expected at least 2 workers, got {}", workers.len())));
    }
    let mut distinct = workers.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != workers.len() {
        return Err(err("hosts", "a worker is listed twice".into()));
    }
    if m.bytes_per_worker.0 == 0 {
        return Err(err("bytes_per_worker", "expected a positive size".into()));
    }
    if m.hot_experts as usize > workers.len() {
        return Err(err(
            "hot_experts",
            format!("expected at most the number of workers ({}), got {}", workers.len(), m.hot_experts),
        ));
    }
    if !(0.0..=1.0).contains(&m.hot_share) {
        return Err(err("hot_share", format!("expected a fraction in [0, 1], got {}", m.hot_share)));
    }
    if m.period.0 .0 == 0 {
        return Err(err("period", "expected a positive duration".into()));
    }
    if m.stop.0 <= m.start.0 {
        return Err(err("stop", "expected a time after start".into()));
    }
    super::budget::check_size(m.bytes_per_worker.0, &format!("{field}.bytes_per_worker"))?;
    let rounds = (m.stop.0 .0 - m.start.0 .0).div_ceil(m.period.0 .0);
    let per_round = workers.len() as f64 * (workers.len() - 1) as f64;
    super::budget::check_count(
        field,
        rounds as f64 * per_round,
        so_far,
        "lengthen the period, shorten stop - start or use fewer hosts",
    )?;
    let mut out = Vec::new();
    let mut hot: Vec<u32> = Vec::new();
    let mut t = m.start.0 .0;
    while t < m.stop.0 .0 {
        if hot.is_empty() || m.reselect_hot {
            let mut pool = workers.clone();
            pool.shuffle(rng);
            hot = pool[..m.hot_experts as usize].to_vec();
        }
        for &src in &workers {
            let hot_dsts: Vec<u32> = hot.iter().copied().filter(|&d| d != src).collect();
            let cold_dsts: Vec<u32> =
                workers.iter().copied().filter(|d| *d != src && !hot.contains(d)).collect();
            let bytes = m.bytes_per_worker.0 as f64;
            // With no receiver on one side, its share goes to the other.
            let hot_bytes = match (hot_dsts.is_empty(), cold_dsts.is_empty()) {
                (true, _) => 0.0,
                (false, true) => bytes,
                (false, false) => bytes * m.hot_share,
            };
            let groups = [(hot_dsts, hot_bytes, true), (cold_dsts, bytes - hot_bytes, false)];
            for (dsts, total, incast) in groups {
                if dsts.is_empty() || total <= 0.0 {
                    continue;
                }
                let each = (total / dsts.len() as f64).round().max(1.0) as u64;
                for dst in dsts {
                    out.push(FlowSpec {
                        src,
                        dst,
                        size: each,
                        start: SimTime(t),
                        priority: None,
                        dport: DEFAULT_DPORT,
                        tag: m.tag.clone(),
                        query: None,
                        incast,
                    });
                }
            }
        }
        t += m.period.0 .0;
    }
    Ok(out)
}
