//! Validation of the policy tables — `[switch.flow_control]`, `[switch.admission]`,
//! `[switch.deflection]`, `[routing]` load balancer, `switch.ack_queue`, the ECN random
//! stream — and of `[[faults]]`, resolved into the choices the simulator is built from.

use super::error::{check, fraction};
use super::tagged::NoFields;
use super::{
    AckQueue, AdmissionSpec, DeflectionSpec, DrillSpec, DynamicThresholdSpec, FlowControlSpec,
    LoadBalancerKind, PdAlgorithm, PriorityEstimate, RandomStream, Scenario, ScenarioError,
    StaticPerPortSpec,
};
use crate::ids::{NodeId, PortId};
use crate::sim::LinkFault;
use crate::switch::admission::{AifoConfig, DibsConfig, PreemptiveConfig, RelativePriority};
use crate::switch::flow_control::pfc::PfcConfig;
use crate::switch::load_balance::DrillConfig;
use crate::switch::BufferRule;
use crate::time::{Delta, SimTime};
use crate::topology::Topology;

/// The deflection policy chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DeflectionChoice {
    None,
    Dibs(DibsConfig),
    /// Simple Deflection, with its bitmap refresh interval.
    Simple {
        update_interval: Delta,
    },
    Preemptive {
        cfg: PreemptiveConfig,
        update_interval: Delta,
    },
    Vertigo,
    Aifo(AifoConfig),
}

impl DeflectionChoice {
    /// Whether the policy reads packet ranks (senders then mark SRPT unless told otherwise).
    pub fn reads_rank(&self) -> bool {
        matches!(
            self,
            DeflectionChoice::Preemptive { .. } | DeflectionChoice::Vertigo | DeflectionChoice::Aifo(_)
        )
    }
}

/// The load balancer chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadBalancerChoice {
    Ecmp,
    Drill(DrillConfig),
}

/// Every policy of a run, validated.
#[derive(Clone, Debug)]
pub struct Policies {
    /// The flow control the run builds: `[switch.flow_control]`, else PFC or none as
    /// `switch.pfc.enabled` says.
    pub flow_control: FlowControlSpec,
    /// PFC's settings, when PFC is the flow control.
    pub pfc: Option<PfcConfig>,
    pub buffer_rule: BufferRule,
    pub deflection: DeflectionChoice,
    /// Hop limit (IP TTL) packets leave their hosts with.
    pub hop_limit: u8,
    pub load_balancer: LoadBalancerChoice,
    pub ack_in_data_queue: bool,
    pub ecn_shared_stream: bool,
    pub faults: Vec<LinkFault>,
}

impl Policies {
    pub fn new(s: &Scenario, topo: &Topology) -> Result<Policies, ScenarioError> {
        let flow_control = flow_control(s)?;
        flow_control.validate()?;
        let pfc = match flow_control {
            FlowControlSpec::Pfc(_) => Some(s.switch.pfc.config(s.switch.queues as usize)?),
            _ => None,
        };
        if let Some(t) = &s.output.congestion_trees {
            check(
                matches!(flow_control, FlowControlSpec::Pyrrha(_)),
                "output.congestion_trees",
                "congestion trees are Pyrrha's; set switch.flow_control.kind = \"pyrrha\" or drop it",
            )?;
            if let Some(i) = t.interval {
                check(i.0 > Delta::ZERO, "output.congestion_trees.interval", "expected a positive duration")?;
            }
            for (k, a) in t.at.iter().enumerate() {
                check(
                    a.0 >= Delta::ZERO,
                    &format!("output.congestion_trees.at[{k}]"),
                    "expected a time ≥ 0",
                )?;
            }
        }
        let buffer_rule = buffer_rule(&s.switch.admission)?;
        let (deflection, hop_limit) = deflection(&s.switch.deflection, &flow_control)?;
        Ok(Policies {
            flow_control,
            pfc,
            buffer_rule,
            deflection,
            hop_limit,
            load_balancer: load_balancer(s)?,
            ack_in_data_queue: s.switch.ack_queue == AckQueue::Data,
            ecn_shared_stream: s.switch.ecn.random_stream == RandomStream::Shared,
            faults: faults(s, topo)?,
        })
    }
}

/// The flow control of the run: `[switch.flow_control]` when given (which `switch.pfc.enabled
/// = false` may not contradict), else PFC or none as `switch.pfc.enabled` says.
fn flow_control(s: &Scenario) -> Result<FlowControlSpec, ScenarioError> {
    let sw = &s.switch;
    match &sw.flow_control {
        None if sw.pfc.enabled => Ok(FlowControlSpec::Pfc(NoFields {})),
        None => Ok(FlowControlSpec::None(NoFields {})),
        Some(spec @ FlowControlSpec::Pfc(_)) => {
            check(
                sw.pfc.enabled,
                "switch.pfc.enabled",
                "false contradicts switch.flow_control.kind = \"pfc\"; drop one of them",
            )?;
            Ok(spec.clone())
        }
        Some(spec) => Ok(spec.clone()),
    }
}

fn buffer_rule(a: &AdmissionSpec) -> Result<BufferRule, ScenarioError> {
    Ok(match *a {
        AdmissionSpec::DynamicThreshold(DynamicThresholdSpec { alpha }) => {
            check(
                alpha.is_finite() && alpha > 0.0,
                "switch.admission.alpha",
                format!("expected a positive number, got {alpha}"),
            )?;
            BufferRule::DynamicThreshold { alpha }
        }
        AdmissionSpec::StaticPerPort(StaticPerPortSpec { bytes }) => {
            check(bytes.0 > 0, "switch.admission.bytes", "expected a positive size")?;
            BufferRule::StaticPerPort { bytes: bytes.0 }
        }
    })
}

fn deflection(d: &DeflectionSpec, fc: &FlowControlSpec) -> Result<(DeflectionChoice, u8), ScenarioError> {
    let field = |name: &str| format!("switch.deflection.{name}");
    let positive = |v: u32, name: &str, what: &str| {
        check((1..=100_000).contains(&v), &field(name), format!("expected 1 to 100,000 {what}, got {v}"))
    };
    let (choice, hop_limit) = match d {
        DeflectionSpec::None(_) => return Ok((DeflectionChoice::None, 64)),
        DeflectionSpec::Dibs(s) => (DeflectionChoice::Dibs(DibsConfig { filter_full: true }), s.hop_limit),
        DeflectionSpec::DibsNaive(s) => {
            (DeflectionChoice::Dibs(DibsConfig { filter_full: false }), s.hop_limit)
        }
        DeflectionSpec::Vertigo(s) => (DeflectionChoice::Vertigo, s.hop_limit),
        DeflectionSpec::Simple(s) => {
            check(s.update_interval.0 >= Delta::ZERO, &field("update_interval"), "expected a duration ≥ 0")?;
            (DeflectionChoice::Simple { update_interval: s.update_interval.0 }, s.hop_limit)
        }
        DeflectionSpec::Preemptive(s) => {
            fraction(s.alpha, &field("alpha"), false)?;
            positive(s.window, "window", "samples")?;
            positive(s.sample_every, "sample_every", "packets")?;
            check(s.update_interval.0 >= Delta::ZERO, &field("update_interval"), "expected a duration ≥ 0")?;
            let probabilistic = s.algorithm == PdAlgorithm::Probabilistic;
            check(
                !probabilistic || s.min_th.0 > 0,
                &field("min_th"),
                "expected a positive size for the probabilistic algorithm",
            )?;
            let cfg = PreemptiveConfig {
                priority: match s.priority {
                    PriorityEstimate::Quantile => RelativePriority::Quantile,
                    PriorityEstimate::Distribution => RelativePriority::Distribution,
                },
                alpha: s.alpha,
                window: s.window as usize,
                sample_every: s.sample_every,
                min_th: probabilistic.then_some(s.min_th.0),
            };
            (DeflectionChoice::Preemptive { cfg, update_interval: s.update_interval.0 }, s.hop_limit)
        }
        DeflectionSpec::Aifo(s) => {
            check(
                s.k.is_finite() && (0.0..1.0).contains(&s.k),
                &field("k"),
                format!("expected a number in [0, 1), got {}", s.k),
            )?;
            positive(s.window, "window", "samples")?;
            positive(s.sample_every, "sample_every", "packets")?;
            let cfg = AifoConfig { k: s.k, window: s.window as usize, sample_every: s.sample_every };
            (DeflectionChoice::Aifo(cfg), s.hop_limit)
        }
    };
    check(
        matches!(fc, FlowControlSpec::None(_)),
        "switch.deflection.kind",
        "deflection acts on packets a lossy queue refuses; it needs switch.flow_control.kind = \"none\" \
         (or switch.pfc.enabled = false)",
    )?;
    check(
        (1..=255).contains(&hop_limit),
        "switch.deflection.hop_limit",
        format!("expected a hop limit from 1 to 255, got {hop_limit}"),
    )?;
    Ok((choice, hop_limit as u8))
}

fn load_balancer(s: &Scenario) -> Result<LoadBalancerChoice, ScenarioError> {
    let r = &s.routing;
    match (r.load_balancer, &r.drill) {
        (LoadBalancerKind::Ecmp, None) => Ok(LoadBalancerChoice::Ecmp),
        (LoadBalancerKind::Ecmp, Some(_)) => Err(ScenarioError::field(
            "routing.drill",
            "given, but routing.load_balancer is \"ecmp\"; set load_balancer = \"drill\" or drop it",
        )),
        (LoadBalancerKind::Drill, spec) => {
            let DrillSpec { samples, memory } = spec.clone().unwrap_or_default();
            check(
                (1..=64).contains(&samples),
                "routing.drill.samples",
                format!("expected 1 to 64 sampled ports, got {samples}"),
            )?;
            check(
                memory <= 64,
                "routing.drill.memory",
                format!("expected 0 to 64 remembered ports, got {memory}"),
            )?;
            Ok(LoadBalancerChoice::Drill(DrillConfig { samples, memory }))
        }
    }
}

fn faults(s: &Scenario, topo: &Topology) -> Result<Vec<LinkFault>, ScenarioError> {
    let mut out = Vec::new();
    for (i, f) in s.faults.iter().enumerate() {
        let field = |name: &str| format!("faults[{i}].{name}");
        let [a, b] = f.link;
        let n = topo.node_count() as u32;
        check(a < n && b < n, &field("link"), format!("expected two node ids below {n}, got [{a}, {b}]"))?;
        let ports: Vec<PortId> = topo
            .ports_of(NodeId(a))
            .map(PortId)
            .filter(|p| topo.ports[topo.ports[p.idx()].peer.idx()].node == NodeId(b))
            .collect();
        check(!ports.is_empty(), &field("link"), format!("nodes {a} and {b} are not linked"))?;
        let port = *ports.get(f.index as usize).ok_or_else(|| {
            ScenarioError::field(
                field("index"),
                format!("nodes {a} and {b} have {} link(s); expected an index below that", ports.len()),
            )
        })?;
        let up = match f.up {
            Some(up) => {
                check(up.0 > f.down.0, &field("up"), "expected a time after `down`")?;
                Some(SimTime(up.0 .0))
            }
            None => None,
        };
        check(f.down.0 >= Delta::ZERO, &field("down"), "expected a time ≥ 0")?;
        out.push(LinkFault { ports: [port, topo.ports[port.idx()].peer], down: SimTime(f.down.0 .0), up });
    }
    Ok(out)
}
