//! Pyrrha §6's incast-mix traffic as its authors' simulator generates it (Pyrrha-NS3,
//! `scratch/third.cc`, `generate_load_poisson_fromcdf_incast` and `generate_flow_qp_mode_poisson`,
//! with the `mix_withcc/config-CI-*.ini` configs). The rules are listed on
//! [`IncastMixSpec`]; what differs from the authors' code (the random streams, sizes
//! rounded rather than truncated, one receiver for every round) is in docs/model.md.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::Rng;

use crate::engine::RngStream;
use crate::ids::NodeId;
use crate::scenario::{IncastMixSpec, ScenarioError};
use crate::time::{SimTime, PS_PER_NS, PS_PER_S, PS_PER_US};
use crate::topology::Topology;

use super::{check_load, host_list, EmpiricalCdf, FlowSpec, DEFAULT_DPORT};

/// The rack of a host: the switch its one link leads to.
fn rack_of(topo: &Topology, host: u32) -> NodeId {
    let port = &topo.ports[topo.host_port(NodeId(host)).idx()];
    topo.ports[port.peer.idx()].node
}

/// An exponential gap in picoseconds for a rate in events per second.
fn exp_gap_ps(rate_per_s: f64, rng: &mut RngStream) -> f64 {
    let u: f64 = rng.gen();
    -(1.0 - u).ln() / rate_per_s * PS_PER_S as f64
}

pub(super) fn incast_mix_flows(
    m: &IncastMixSpec,
    topo: &Topology,
    field: &str,
    so_far: usize,
    rng: &mut RngStream,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let at = |f: &str| format!("{field}.{f}");
    let err = |f: &str, msg: String| ScenarioError::field(at(f), msg);
    let cdf = match (&m.size_dist, &m.cdf_file) {
        (Some(name), None) => EmpiricalCdf::builtin(name, &at("size_dist"))?,
        (None, Some(path)) => EmpiricalCdf::from_file(path)?,
        _ => {
            return Err(ScenarioError::field(
                field,
                "give exactly one of size_dist (a built-in name) or cdf_file",
            ))
        }
    };
    super::budget::check_size(
        cdf.largest(),
        &at(if m.cdf_file.is_some() { "cdf_file" } else { "size_dist" }),
    )?;
    check_load(m.load, &at("load"))?;
    check_load(m.incast_load, &at("incast_load"))?;
    if m.flow_num == 0 {
        return Err(err("flow_num", "expected a positive number of flows, got 0".into()));
    }
    let mean = match m.mean_size {
        Some(b) if b.0 == 0 => return Err(err("mean_size", "expected a positive size, got 0".into())),
        Some(b) => b.0 as f64,
        None => cdf.mean(),
    };
    host_list(topo, Some(std::slice::from_ref(&m.receiver)), &at("receiver"))?;
    if m.fan_in == 0 {
        return Err(err("fan_in", "expected a positive number, got 0".into()));
    }
    if m.incast_packets_min == 0 || m.incast_packets_max < m.incast_packets_min {
        return Err(err(
            "incast_packets_max",
            format!(
                "expected 0 < incast_packets_min ≤ incast_packets_max, got {} and {}",
                m.incast_packets_min, m.incast_packets_max
            ),
        ));
    }
    if m.payload.0 == 0 {
        return Err(err("payload", "expected a positive size, got 0".into()));
    }
    super::budget::check_size(m.incast_packets_max as u64 * m.payload.0, &at("incast_packets_max"))?;
    let jitter_ns = m.incast_jitter.0 .0 / PS_PER_NS;
    super::budget::check_count(
        field,
        m.flow_num as f64 + m.fan_in as f64,
        so_far,
        "lower flow_num or fan_in",
    )?;

    let hosts = host_list(topo, None, field)?;
    let racks: Vec<NodeId> = hosts.iter().map(|&h| rack_of(topo, h)).collect();
    // Connections: every ordered pair of hosts in different racks, numbered in (src, dst) order.
    let mut conns: Vec<(u32, u32, f64)> = Vec::new();
    for (i, &src) in hosts.iter().enumerate() {
        let dsts: Vec<u32> =
            hosts.iter().zip(&racks).filter(|(_, r)| **r != racks[i]).map(|(d, _)| *d).collect();
        if dsts.is_empty() {
            continue;
        }
        let rate = topo.ports[topo.host_port(NodeId(src)).idx()].rate.0 as f64;
        let per_conn = rate * m.load / (mean * 8.0) / dsts.len() as f64;
        conns.extend(dsts.into_iter().map(|d| (src, d, per_conn)));
    }
    let recv_rack = rack_of(topo, m.receiver);
    let senders: Vec<u32> =
        hosts.iter().zip(&racks).filter(|(_, r)| **r != recv_rack).map(|(h, _)| *h).collect();
    if conns.is_empty() || senders.is_empty() {
        return Err(ScenarioError::field(field, "needs hosts in at least two racks (first-hop switches)"));
    }

    // Poisson arrivals: each connection's first at time_shift plus a gap, then the earliest
    // arrivals across connections, in time order (ties by connection), up to flow_num.
    let shift = m.time_shift.0 .0 as f64;
    let mut next: Vec<f64> = conns.iter().map(|c| shift + exp_gap_ps(c.2, rng)).collect();
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
        next.iter().enumerate().map(|(i, t)| Reverse((*t as u64, i))).collect();
    let mut poisson = Vec::with_capacity(m.flow_num as usize);
    let mut last_arrival = 0u64;
    while poisson.len() < m.flow_num as usize {
        let Reverse((t, c)) = heap.pop().expect("every connection has a next arrival");
        let (src, dst, rate) = conns[c];
        poisson.push(FlowSpec {
            src,
            dst,
            size: cdf.sample(rng),
            start: SimTime(t),
            priority: None,
            dport: DEFAULT_DPORT,
            tag: m.tag.clone(),
            query: None,
            incast: false,
        });
        last_arrival = t;
        next[c] += exp_gap_ps(rate, rng);
        heap.push(Reverse((next[c] as u64, c)));
    }

    // Incast rounds: the authors space them by fan_in × mean size / (incast load × rate)
    // and make as many as fit before the last Poisson arrival (at least one), each round's
    // offset in whole microseconds.
    let recv_rate = topo.ports[topo.host_port(NodeId(m.receiver)).idx()].rate.0 as f64;
    let mean_incast = (m.incast_packets_min + m.incast_packets_max) as f64 / 2.0 * m.payload.0 as f64;
    let interval_ps = m.fan_in as f64 * mean_incast * 8.0 / (m.incast_load * recv_rate) * PS_PER_S as f64;
    let rounds = ((last_arrival as f64 / interval_ps) as u64).max(1);
    super::budget::check_count(
        field,
        (m.flow_num as u64 + rounds * m.fan_in as u64) as f64,
        so_far,
        "lower flow_num or fan_in, or raise incast_load",
    )?;
    let mut out: Vec<FlowSpec> =
        poisson.into_iter().filter(|f| f.src != m.receiver && f.dst != m.receiver).collect();
    for round in 0..rounds {
        let offset = (round as f64 * interval_ps / PS_PER_US as f64) as u64 * PS_PER_US;
        for _ in 0..m.fan_in {
            let jitter = if jitter_ns == 0 { 0 } else { rng.gen_range(0..jitter_ns) * PS_PER_NS };
            let src = senders[rng.gen_range(0..senders.len())];
            let packets = rng.gen_range(m.incast_packets_min..=m.incast_packets_max) as u64;
            out.push(FlowSpec {
                src,
                dst: m.receiver,
                size: packets * m.payload.0,
                start: SimTime(m.incast_start.0 .0 + offset + jitter),
                priority: None,
                dport: DEFAULT_DPORT,
                tag: m.incast_tag.clone(),
                query: None,
                incast: true,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// 4 leaves × 4 hosts, 100 Gb/s hosts.
    fn mix(extra: &str) -> Result<(Vec<FlowSpec>, Topology), ScenarioError> {
        let toml = format!(
            "seed = 3\n[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 4\nhosts_per_leaf = 4\n\
             host_rate = \"100Gbps\"\nfabric_rate = \"400Gbps\"\n\
             [workload]\nkind = \"incast_mix\"\nsize_dist = \"webserver_intracluster\"\nload = 0.8\n{extra}"
        );
        let s = Scenario::from_toml_str(&toml)?;
        let topo = crate::topology::build(&s.topology).unwrap();
        Ok((super::super::generate(s.workload.as_slice(), &topo, s.seed)?, topo))
    }

    /// The defining rules: inter-rack Poisson flows only, none from or to the receiver,
    /// flow_num taken before the removal, all after time_shift; the incast's fan_in flows
    /// in [100, 200) ns from other racks, whole packets of 30-40 × 1460 B.
    #[test]
    fn incast_mix_follows_the_authors_rules() {
        let (flows, topo) = mix("flow_num = 4000\n").unwrap();
        let poisson: Vec<&FlowSpec> = flows.iter().filter(|f| !f.incast).collect();
        let incast: Vec<&FlowSpec> = flows.iter().filter(|f| f.incast).collect();
        assert_eq!(incast.len(), 720, "one round: the Poisson flows last far less than the interval");
        // 16 hosts, 12 connections each: host 0's share of 4000 is 2 × 4000 / 16 = 500.
        assert!((3300..3700).contains(&poisson.len()), "{} Poisson flows kept", poisson.len());
        for f in &poisson {
            assert_ne!(rack_of(&topo, f.src), rack_of(&topo, f.dst));
            assert!(f.src != 0 && f.dst != 0);
            assert!(f.start.0 >= 30 * PS_PER_US);
        }
        for f in &incast {
            assert_eq!(f.dst, 0);
            assert!(f.src >= 4, "sender {} is in the receiver's rack", f.src);
            assert!((100 * PS_PER_NS..200 * PS_PER_NS).contains(&f.start.0));
            assert!(f.size % 1460 == 0 && (30..=40).contains(&(f.size / 1460)));
        }
        // Senders drawn with replacement: 720 flows from the 12 hosts of the other racks.
        let mut s: Vec<u32> = incast.iter().map(|f| f.src).collect();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), 12);
    }

    /// Rounds every fan_in × mean size / (incast_load × rate) while the Poisson arrivals
    /// last: 72 × 35 × 1460 B × 8 / 50 Gb/s = 588.7 µs, floored to 588 µs; the 4,000 flows
    /// span about 1.6 ms, so two rounds.
    #[test]
    fn incast_rounds_follow_the_incast_load() {
        let (flows, _) = mix("flow_num = 4000\nfan_in = 72\n").unwrap();
        let mut starts: Vec<u64> = flows.iter().filter(|f| f.incast).map(|f| f.start.0 / PS_PER_US).collect();
        starts.sort();
        starts.dedup();
        assert_eq!(starts, [0, 588]);
        assert_eq!(flows.iter().filter(|f| f.incast).count(), 144);
    }

    /// Each host offers load × line rate in bytes of the nominal mean's worth of flows: the
    /// arrival rate is 0.8 × 100 Gb/s / (8 × mean) per host, so the window of 20,000 flows
    /// spans 20,000 / (16 × rate); a doubled mean_size halves the rate (doubles the window).
    #[test]
    fn arrival_rate_follows_load_and_nominal_mean() {
        let window = |extra: &str| {
            let (flows, _) = mix(&format!("flow_num = 20000\n{extra}")).unwrap();
            let p: Vec<u64> = flows.iter().filter(|f| !f.incast).map(|f| f.start.0).collect();
            (p.iter().max().unwrap() - 30 * PS_PER_US) as f64 / PS_PER_S as f64
        };
        let rate = 0.8 * 100e9 / (8.0 * 62874.0);
        let w = window("mean_size = 62874\n");
        assert!((w / (20000.0 / (16.0 * rate)) - 1.0).abs() < 0.03, "window {w}");
        let w2 = window("mean_size = 125748\n");
        assert!((w2 / w - 2.0).abs() < 0.08, "{w2} vs {w}");
    }

    #[test]
    fn incast_mix_is_deterministic() {
        assert_eq!(mix("flow_num = 3000\n").unwrap().0, mix("flow_num = 3000\n").unwrap().0);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = |extra: &str| mix(extra).unwrap_err().to_string();
        assert!(e("flow_num = 0\n").contains("workload.flow_num"), "{}", e("flow_num = 0\n"));
        assert!(e("flow_num = 10\nincast_packets_min = 5\nincast_packets_max = 4\n")
            .contains("workload.incast_packets_max"));
        assert!(e("flow_num = 10\nreceiver = 99\n").contains("workload.receiver"));
        assert!(e("flow_num = 10\nincast_load = 0\n").contains("workload.incast_load"));
        assert!(e("flow_num = 10\nmean_size = 0\n").contains("workload.mean_size"));
        assert!(e("flow_num = 10\nfan_in = 0\n").contains("workload.fan_in"));
    }
}
