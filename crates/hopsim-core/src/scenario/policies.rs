//! Validation of the policy tables — `[switch.flow_control]`, `[switch.admission]`,
//! `[switch.deflection]`, `[routing]` load balancer, `switch.ack_queue`, the ECN random
//! stream — and of `[[faults]]`, resolved into the choices the simulator is built from.

use super::error::check;
use super::faults::LinkFault;
use super::tagged::NoFields;
use super::{
    AckQueue, AdmissionSpec, DeflectionSpec, DynamicThresholdSpec, FlowControlSpec, LoadBalancerSpec,
    RandomStream, Scenario, ScenarioError, StaticPerPortSpec,
};
use crate::ids::{NodeId, PortId};
use crate::switch::flow_control::pfc::PfcConfig;
use crate::switch::BufferRule;
use crate::time::{Delta, SimTime};
use crate::topology::Topology;

/// Every policy of a run, validated.
#[derive(Clone, Debug)]
pub struct Policies {
    /// The flow control the run builds: `[switch.flow_control]`, else PFC or none as
    /// `switch.pfc.enabled` says.
    pub flow_control: FlowControlSpec,
    /// PFC's settings, when the flow control keeps PFC's accounting (PFC, the PFC family).
    pub pfc: Option<PfcConfig>,
    pub buffer_rule: BufferRule,
    pub deflection: DeflectionSpec,
    /// Hop limit (IP TTL) packets leave their hosts with.
    pub hop_limit: u8,
    pub load_balancer: LoadBalancerSpec,
    pub ack_in_data_queue: bool,
    pub ecn_shared_stream: bool,
    pub faults: Vec<LinkFault>,
}

impl Policies {
    pub fn new(s: &Scenario, topo: &Topology) -> Result<Policies, ScenarioError> {
        let flow_control = flow_control(s)?;
        flow_control.validate()?;
        let pfc = match flow_control.uses_pfc() {
            true => Some(s.switch.pfc.config(s.switch.queues as usize)?),
            false => None,
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
        if let Some(d) = &s.output.deadlock {
            check(d.interval.0 > Delta::ZERO, "output.deadlock.interval", "expected a positive duration")?;
            check(d.hold.0 >= Delta::ZERO, "output.deadlock.hold", "expected a duration ≥ 0")?;
        }
        let buffer_rule = buffer_rule(&s.switch.admission)?;
        let (deflection, hop_limit) = deflection(&s.switch.deflection, &flow_control)?;
        Ok(Policies {
            flow_control,
            pfc,
            buffer_rule,
            deflection,
            hop_limit,
            load_balancer: {
                s.routing.load_balancer.validate()?;
                s.routing.load_balancer.clone()
            },
            ack_in_data_queue: s.switch.ack_queue == AckQueue::Data,
            ecn_shared_stream: s.switch.ecn.random_stream == RandomStream::Shared,
            faults: faults(s, topo)?,
        })
    }
}

/// The flow control of the run: `[switch.flow_control]` when given, else PFC or none as
/// `switch.pfc.enabled` says. `switch.pfc.enabled = false` turns PFC off on any scenario,
/// the one way the docs give: beside `kind = "pfc"` it runs without flow control.
fn flow_control(s: &Scenario) -> Result<FlowControlSpec, ScenarioError> {
    let sw = &s.switch;
    match &sw.flow_control {
        None if *sw.pfc.enabled => Ok(FlowControlSpec::Pfc(NoFields {})),
        None => Ok(FlowControlSpec::None(NoFields {})),
        Some(FlowControlSpec::Pfc(_)) if !*sw.pfc.enabled => Ok(FlowControlSpec::None(NoFields {})),
        Some(spec @ FlowControlSpec::Pfc(_)) => Ok(spec.clone()),
        Some(spec) => {
            // PFC asked for by name beside another flow control would silently not run.
            check(
                !(sw.pfc.enabled.written && *sw.pfc.enabled),
                "switch.pfc.enabled",
                format!(
                    "true asks for PFC, but switch.flow_control.kind = \"{}\" runs instead of it: \
                     drop switch.pfc.enabled (or set it to false), or set switch.flow_control.kind = \"pfc\"",
                    spec.kind()
                ),
            )?;
            Ok(spec.clone())
        }
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

/// `[switch.deflection]`, checked, and the hop limit packets leave their hosts with.
fn deflection(d: &DeflectionSpec, fc: &FlowControlSpec) -> Result<(DeflectionSpec, u8), ScenarioError> {
    if d.is_none() {
        return Ok((d.clone(), d.hop_limit()));
    }
    d.validate()?;
    check(
        matches!(fc, FlowControlSpec::None(_)),
        "switch.deflection.kind",
        "deflection acts on packets a lossy queue refuses; it needs switch.flow_control.kind = \"none\" \
         (or switch.pfc.enabled = false)",
    )?;
    Ok((d.clone(), d.hop_limit()))
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
