//! Validation of the policy tables — `[switch.flow_control]`, `[switch.admission]`,
//! `[switch.deflection]`, `[routing]` load balancer, `switch.ack_queue`, the ECN random
//! stream — and of `[[faults]]`, resolved into the choices the simulator is built from.

use super::validate::{check, fraction};
use super::{
    AckQueue, AdmissionSpec, BfcSpec, DeflectionSpec, DrillSpec, DynamicThresholdSpec, FlowControlSpec,
    IsolationQueues, LoadBalancerKind, PdAlgorithm, PerFlowSpec, PfcThreshold, PriorityEstimate, PyrrhaSpec,
    RandomStream, Scenario, ScenarioError, StaticPerPortSpec,
};
use crate::ids::{NodeId, PortId};
use crate::sim::LinkFault;
use crate::switch::admission::{AifoConfig, DibsConfig, PreemptiveConfig, RelativePriority};
use crate::switch::flow_control::{BfcConfig, IqStructure, PerFlowConfig, PyrrhaConfig};
use crate::switch::load_balance::DrillConfig;
use crate::switch::{BufferRule, PfcConfig, PfcMode};
use crate::time::{Delta, SimTime};
use crate::topology::Topology;

/// The flow control chosen.
#[derive(Clone, Debug)]
pub enum FlowControlChoice {
    None,
    Pfc(PfcConfig),
    PerFlow(PerFlowConfig),
    Bfc(BfcConfig),
    Pyrrha(PyrrhaConfig),
}

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
    pub flow_control: FlowControlChoice,
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
        if let Some(t) = &s.output.congestion_trees {
            check(
                matches!(flow_control, FlowControlChoice::Pyrrha(_)),
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

fn flow_control(s: &Scenario) -> Result<FlowControlChoice, ScenarioError> {
    let sw = &s.switch;
    let pfc_wanted = match &sw.flow_control {
        None => sw.pfc.enabled,
        Some(FlowControlSpec::Pfc(_)) => {
            check(
                sw.pfc.enabled,
                "switch.pfc.enabled",
                "false contradicts switch.flow_control.kind = \"pfc\"; drop one of them",
            )?;
            true
        }
        Some(FlowControlSpec::None(_)) => return Ok(FlowControlChoice::None),
        Some(FlowControlSpec::PerFlow(p)) => return per_flow(p).map(FlowControlChoice::PerFlow),
        Some(FlowControlSpec::Bfc(b)) => return bfc(b).map(FlowControlChoice::Bfc),
        Some(FlowControlSpec::Pyrrha(p)) => return pyrrha(p).map(FlowControlChoice::Pyrrha),
    };
    if !pfc_wanted {
        return Ok(FlowControlChoice::None);
    }
    let p = &sw.pfc;
    let mode = match p.threshold {
        PfcThreshold::Dynamic => {
            fraction(p.alpha, "switch.pfc.alpha", true)?;
            PfcMode::Dynamic { alpha: p.alpha }
        }
        PfcThreshold::Static => {
            let required =
                |f: &str| ScenarioError::field(f, "required when switch.pfc.threshold = \"static\"");
            let xoff = p.xoff_bytes.ok_or_else(|| required("switch.pfc.xoff_bytes"))?;
            let xon = p.xon_bytes.ok_or_else(|| required("switch.pfc.xon_bytes"))?;
            check(xon.0 <= xoff.0, "switch.pfc.xon_bytes", "expected xon_bytes ≤ xoff_bytes")?;
            check(xoff.0 > 0, "switch.pfc.xoff_bytes", "expected a positive size")?;
            PfcMode::Static { xoff: xoff.0, xon: xon.0 }
        }
    };
    Ok(FlowControlChoice::Pfc(PfcConfig {
        mode,
        headroom: p.headroom_bytes.map(|b| b.0),
        reserve: p.reserve_bytes.0,
        resume_offset: p.resume_offset_bytes.0,
        classes: sw.queues as usize,
    }))
}

fn per_flow(p: &PerFlowSpec) -> Result<PerFlowConfig, ScenarioError> {
    check(
        p.xoff.is_finite() && p.xoff > 0.0,
        "switch.flow_control.xoff",
        format!("expected a positive number of one-hop BDPs, got {}", p.xoff),
    )?;
    check(
        p.xon.is_finite() && p.xon >= 0.0 && p.xon < p.xoff,
        "switch.flow_control.xon",
        format!("expected a number of one-hop BDPs in [0, xoff = {}), got {}", p.xoff, p.xon),
    )?;
    Ok(PerFlowConfig { xoff_bdp: p.xoff, xon_bdp: p.xon })
}

fn bfc(b: &BfcSpec) -> Result<BfcConfig, ScenarioError> {
    check(
        (1..=1024).contains(&b.queues),
        "switch.flow_control.queues",
        format!("expected 1 to 1024 queues per port, got {}", b.queues),
    )?;
    check(
        b.fids_per_queue <= 1_000_000,
        "switch.flow_control.fids_per_queue",
        format!("expected 0 (exact flow ids) to 1000000, got {}", b.fids_per_queue),
    )?;
    check(
        b.sticky.is_finite() && b.sticky >= 0.0,
        "switch.flow_control.sticky",
        format!("expected a number of one-hop RTTs ≥ 0, got {}", b.sticky),
    )?;
    Ok(BfcConfig { queues: b.queues, fids_per_queue: b.fids_per_queue, sticky_hrtt: b.sticky })
}

fn pyrrha(p: &PyrrhaSpec) -> Result<PyrrhaConfig, ScenarioError> {
    check(
        p.k_pause.is_finite() && p.k_pause > 0.0,
        "switch.flow_control.k_pause",
        format!("expected a positive number of one-hop BDPs, got {}", p.k_pause),
    )?;
    check(
        p.k_resume.is_finite() && p.k_resume >= 0.0 && p.k_resume <= p.k_pause,
        "switch.flow_control.k_resume",
        format!("expected a number of one-hop BDPs in [0, k_pause = {}], got {}", p.k_pause, p.k_resume),
    )?;
    check(
        (1..=4096).contains(&p.iq_limit),
        "switch.flow_control.iq_limit",
        format!("expected 1 to 4096 isolation queues per port, got {}", p.iq_limit),
    )?;
    Ok(PyrrhaConfig {
        k_pause: p.k_pause,
        k_resume: p.k_resume,
        iq_limit: p.iq_limit,
        merge: p.merge,
        structure: match p.isolation_queues {
            IsolationQueues::Hierarchical => IqStructure::Hierarchical,
            IsolationQueues::SingleTier => IqStructure::SingleTier,
        },
    })
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

fn deflection(d: &DeflectionSpec, fc: &FlowControlChoice) -> Result<(DeflectionChoice, u8), ScenarioError> {
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
        matches!(fc, FlowControlChoice::None),
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
