//! Checks across fields: settings that are each valid alone but contradict each other or
//! the topology (a buffer smaller than PFC sets aside, a CC floor above line rate), and
//! workloads that a run could never finish without a time limit.

use crate::host::TransportConfig;
use crate::ids::NodeId;
use crate::switch::flow_control::pfc::PfcMode;
use crate::switch::{BufferRule, SwitchConfig};
use crate::time::Rate;
use crate::topology::Topology;
use crate::workload::FlowSpec;

use super::error::check;
use super::limits::{count, MAX_PACKETS_WITHOUT_DURATION};
use super::{CcKind, Policies, Scenario, ScenarioError, WindowSpec};

/// Every cross-field check, in the order a user would fix them.
pub(crate) fn check_all(
    s: &Scenario,
    topo: &Topology,
    switch: &SwitchConfig,
    transport: &TransportConfig,
    policies: &Policies,
    flows: &[FlowSpec],
) -> Result<(), ScenarioError> {
    check(
        s.transport.window != WindowSpec::Bytes(0),
        "transport.window",
        "expected a positive size, \"bdp\" or \"none\", got 0 (no flow could send)",
    )?;
    cc_floors(s, topo, transport)?;
    let packet = (transport.mtu + transport.header_bytes) as u64 + transport.int_data_bytes as u64;
    buffer_holds_a_packet(switch, policies, packet)?;
    pfc_fits_the_buffer(switch, policies, topo, packet)?;
    if s.duration.is_none() {
        bounded_without_duration(flows, transport.mtu)?;
    }
    Ok(())
}

/// The slowest host link: a congestion-control floor above it could never be met.
fn cc_floors(s: &Scenario, topo: &Topology, transport: &TransportConfig) -> Result<(), ScenarioError> {
    let t = &s.transport;
    let line = topo.hosts.iter().map(|h| topo.ports[topo.host_port(NodeId(h.0)).idx()].rate).min();
    let Some(line) = line else { return Ok(()) };
    let in_use = |cc: CcKind| t.cc == cc || t.groups.iter().any(|g| g.cc == cc);
    for (cc, name, floor) in [
        (CcKind::Dcqcn, "dcqcn", t.dcqcn.min_rate.0),
        (CcKind::Hpcc, "hpcc", t.hpcc.min_rate.0),
        (CcKind::Dctcp, "dctcp", t.dctcp.min_rate.0),
        (CcKind::Timely, "timely", Rate(transport.cc_params.timely.min_rate)),
    ] {
        if in_use(cc) && floor > line {
            return Err(ScenarioError::field(
                format!("transport.{name}.min_rate"),
                format!(
                    "expected at most the host line rate ({}), got {}",
                    rate_text(line),
                    rate_text(floor)
                ),
            ));
        }
    }
    Ok(())
}

/// A switch buffer (and a static per-port limit) must hold one full data packet, or every
/// packet is dropped and retransmitted for ever.
fn buffer_holds_a_packet(
    switch: &SwitchConfig,
    policies: &Policies,
    packet: u64,
) -> Result<(), ScenarioError> {
    check(
        switch.buffer_bytes >= packet,
        "switch.buffer_bytes",
        format!(
            "expected at least one data packet ({packet} B: mtu + header_bytes), got {} B",
            switch.buffer_bytes
        ),
    )?;
    if let BufferRule::StaticPerPort { bytes } = policies.buffer_rule {
        check(
            bytes >= packet,
            "switch.admission.bytes",
            format!("expected at least one data packet ({packet} B: mtu + header_bytes), got {bytes} B"),
        )?;
    }
    Ok(())
}

/// PFC sets aside, per switch, a headroom and a reserve for every port (the HPCC
/// simulator's MMU); the shared pool is what the buffer has beyond that. A buffer that
/// cannot hold the set-aside bytes plus a packet is not lossless: refuse it, naming the
/// minimum.
fn pfc_fits_the_buffer(
    switch: &SwitchConfig,
    policies: &Policies,
    topo: &Topology,
    packet: u64,
) -> Result<(), ScenarioError> {
    let Some(pfc) = &policies.pfc else { return Ok(()) };
    let buffer = switch.buffer_bytes;
    if let PfcMode::Static { xoff, .. } = pfc.mode {
        check(
            xoff <= buffer,
            "switch.pfc.xoff_bytes",
            format!("expected at most switch.buffer_bytes ({buffer} B), got {xoff} B"),
        )?;
    } else {
        check(
            pfc.resume_offset < buffer,
            "switch.pfc.resume_offset_bytes",
            format!(
                "expected less than switch.buffer_bytes ({} B), got {} B (a paused queue would \
                 resume only once empty)",
                count(buffer),
                count(pfc.resume_offset)
            ),
        )?;
    }
    let mut worst: Option<(u64, NodeId, usize)> = None;
    for (n, _) in topo.kinds.iter().enumerate().filter(|(n, _)| !topo.is_host(NodeId(*n as u32))) {
        let ports = topo.ports_of(NodeId(n as u32));
        let n_ports = ports.len();
        let set_aside: u64 = ports
            .map(|p| {
                let spec = &topo.ports[p as usize];
                pfc.headroom_for(spec.rate, spec.delay).saturating_add(pfc.reserve)
            })
            .fold(0u64, u64::saturating_add);
        if worst.is_none_or(|(w, _, _)| set_aside > w) {
            worst = Some((set_aside, NodeId(n as u32), n_ports));
        }
    }
    let Some((set_aside, node, ports)) = worst else { return Ok(()) };
    // One packet of shared pool: the least that lets a lossless queue form.
    let minimum = set_aside.saturating_add(packet);
    check(
        buffer >= minimum,
        "switch.buffer_bytes",
        format!(
            "{} B is too small for PFC: switch {} sets aside {} B for the headroom and reserve of its \
             {ports} ports (switch.pfc.headroom_bytes, default 3 × rate × delay per port, plus \
             reserve_bytes), leaving no shared pool; expected at least {} B, or a smaller \
             switch.pfc.headroom_bytes, or switch.pfc.enabled = false",
            count(buffer),
            node.0,
            count(set_aside),
            count(minimum)
        ),
    )
}

/// Without `duration` a run goes on until every flow finished: refuse a workload whose
/// packets alone would take hours to days of wall time.
fn bounded_without_duration(flows: &[FlowSpec], mtu: u32) -> Result<(), ScenarioError> {
    let bytes: u128 = flows.iter().map(|f| f.size as u128).sum();
    let packets: u128 = flows.iter().map(|f| f.size.div_ceil(mtu as u64) as u128).sum();
    check(
        packets <= MAX_PACKETS_WITHOUT_DURATION as u128,
        "duration",
        format!(
            "required for this workload: its {} flows carry {bytes} bytes ({packets} packets), more than the \
             {} packets a run without a time limit may take on (it would run for hours or never end); set \
             duration",
            count(flows.len() as u64),
            count(MAX_PACKETS_WITHOUT_DURATION)
        ),
    )
}

fn rate_text(r: Rate) -> String {
    match r.0 {
        r if r >= 1_000_000_000 && r % 1_000_000 == 0 => format!("{}Gbps", r as f64 / 1e9),
        r if r >= 1_000_000 => format!("{}Mbps", r as f64 / 1e6),
        r => format!("{r}bps"),
    }
}
