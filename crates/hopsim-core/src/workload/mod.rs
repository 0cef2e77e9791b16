//! Workload generation: explicit flow lists, HPCC and CSV flow files (trace replay),
//! Poisson arrivals from a size CDF at a target load, periodic N-to-1 incast, query /
//! response incast, permutations and MoE all-to-all. Each generator draws from its
//! own random stream (`workload/<index>/<kind>`), so adding one leaves the others intact.

mod budget;
pub mod cdf;
mod incast_mix;
mod moe;
#[cfg(test)]
mod parser_corpus;
mod trace;

use std::collections::HashMap;

use rand::seq::SliceRandom;
use rand::Rng;

use crate::engine::{rng_stream, RngStream};
use crate::scenario::{
    FlowFileFormat, FlowsSpec, IncastSpec, PermutationSpec, PoissonSpec, QuerySpec, ScenarioError,
    WorkloadSpec,
};
use crate::time::{Rate, SimTime, PS_PER_S};
use crate::topology::Topology;
pub use cdf::EmpiricalCdf;
pub use trace::{parse_csv_flows, read_csv_flows};

/// Destination port of generated flows (the HPCC simulator's flow files use 100 for
/// background traffic).
pub const DEFAULT_DPORT: u16 = 100;

/// A flow to simulate, before ids are assigned.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub src: u32,
    pub dst: u32,
    pub size: u64,
    pub start: SimTime,
    /// Priority from a flow file, or `None` for the transport default.
    pub priority: Option<u8>,
    pub dport: u16,
    pub tag: String,
    /// The query this flow answers (query workloads), numbered across the run.
    pub query: Option<u32>,
    /// Part of many-to-one traffic (incast and query workloads): a source of congestion
    /// for flow classification.
    pub incast: bool,
}

/// Names of the flow classes (`sim::FlowClass`); a workload tag may not take one, so a
/// tag and a class never read alike in the outputs.
pub const CLASS_NAMES: [&str; 3] = ["congested", "vulnerable", "background"];

fn check_tag(tag: &str, field: &str) -> Result<(), ScenarioError> {
    if CLASS_NAMES.contains(&tag) {
        return Err(ScenarioError::field(
            field,
            format!(
                "\"{tag}\" is the name of a flow class ({}); choose another tag (e.g. \"poisson\")",
                CLASS_NAMES.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The tag field of a workload entry.
fn tag_of(spec: &WorkloadSpec) -> &str {
    match spec {
        WorkloadSpec::Flows(s) => &s.tag,
        WorkloadSpec::Poisson(s) => &s.tag,
        WorkloadSpec::Incast(s) => &s.tag,
        WorkloadSpec::Query(s) => &s.tag,
        WorkloadSpec::Permutation(s) => &s.tag,
        WorkloadSpec::Moe(s) => &s.tag,
        WorkloadSpec::IncastMix(s) => &s.tag,
    }
}

/// Generate the flows of every workload entry, sorted by start time (stable).
pub fn generate(specs: &[WorkloadSpec], topo: &Topology, seed: u64) -> Result<Vec<FlowSpec>, ScenarioError> {
    if specs.is_empty() {
        return Err(ScenarioError::field(
            "workload",
            "expected at least one workload table, got an empty list",
        ));
    }
    let mut flows = Vec::new();
    let mut next_query = 0u32;
    for (i, spec) in specs.iter().enumerate() {
        let field = if specs.len() == 1 { "workload".to_string() } else { format!("workload[{i}]") };
        let mut rng = rng_stream(seed, &format!("workload/{i}"));
        check_tag(tag_of(spec), &format!("{field}.tag"))?;
        match spec {
            WorkloadSpec::Flows(FlowsSpec { flows: list, file, format, tag, congested }) => {
                if list.is_empty() && file.is_none() {
                    return Err(ScenarioError::field(
                        &field,
                        "a flows workload needs flows = [...] or file = \"...\"; it has neither",
                    ));
                }
                budget::check_count(&field, list.len() as f64, flows.len(), "list fewer flows")?;
                for (j, f) in list.iter().enumerate() {
                    let at = format!("{field}.flows[{j}]");
                    if let Some(t) = &f.tag {
                        check_tag(t, &format!("{at}.tag"))?;
                    }
                    flows.push(FlowSpec {
                        src: f.src,
                        dst: f.dst,
                        size: f.size.0,
                        start: SimTime(f.start.0 .0),
                        priority: None,
                        dport: DEFAULT_DPORT,
                        tag: f.tag.clone().unwrap_or_else(|| tag.clone()),
                        query: None,
                        incast: f.congested.unwrap_or(*congested),
                    });
                    check_flow(topo, flows.last().unwrap(), &at)?;
                }
                if let Some(path) = file {
                    let mut read = match format {
                        FlowFileFormat::Hpcc => read_hpcc_flows(path, topo, tag)?,
                        FlowFileFormat::Csv => read_csv_flows(path, topo, tag)?,
                    };
                    // A CSV `class` column marks its own congested flows; otherwise the
                    // workload's `congested` applies to every flow of the file.
                    if *congested {
                        read.iter_mut().for_each(|f| f.incast = true);
                    }
                    flows.extend(read);
                    budget::check_made(&format!("{field}.file"), flows.len())?;
                }
            }
            WorkloadSpec::Poisson(PoissonSpec {
                size_dist,
                cdf_file,
                load,
                hosts,
                exclude_dst,
                start,
                stop,
                tag,
            }) => {
                let cdf = match (size_dist, cdf_file) {
                    (Some(name), None) => EmpiricalCdf::builtin(name, &format!("{field}.size_dist"))?,
                    (None, Some(path)) => EmpiricalCdf::from_file(path)?,
                    _ => {
                        return Err(ScenarioError::field(
                            &field,
                            "give exactly one of size_dist (a built-in name) or cdf_file",
                        ))
                    }
                };
                check_load(*load, &format!("{field}.load"))?;
                let senders = host_list(topo, hosts.as_deref(), &format!("{field}.hosts"))?;
                host_list(topo, Some(exclude_dst), &format!("{field}.exclude_dst"))?;
                let dsts: Vec<u32> = senders.iter().copied().filter(|h| !exclude_dst.contains(h)).collect();
                if dsts.len() < 2 && senders.iter().all(|s| dsts.iter().all(|d| d == s)) {
                    return Err(ScenarioError::field(&field, "needs at least two hosts to send between"));
                }
                if stop.0 <= start.0 {
                    return Err(ScenarioError::field(format!("{field}.stop"), "expected a time after start"));
                }
                let source = if cdf_file.is_some() { "cdf_file" } else { "size_dist" };
                budget::check_size(cdf.largest(), &format!("{field}.{source}"))?;
                let window_s = (stop.0 .0 - start.0 .0) as f64 / PS_PER_S as f64;
                let expected: f64 = senders
                    .iter()
                    .map(|&s| {
                        let rate = topo.ports[topo.host_port(crate::ids::NodeId(s)).idx()].rate;
                        window_s * load * rate.0 as f64 / (cdf.mean() * 8.0)
                    })
                    .sum();
                budget::check_count(&field, expected, flows.len(), "shorten stop - start or lower the load")?;
                flows.extend(poisson(
                    &cdf,
                    *load,
                    &senders,
                    &dsts,
                    topo,
                    (start.0 .0, stop.0 .0),
                    tag,
                    &mut rng,
                ));
            }
            WorkloadSpec::Incast(IncastSpec {
                receiver,
                fan_in,
                senders,
                size_min,
                size_max,
                period,
                load,
                start,
                stop,
                tag,
            }) => {
                host_list(topo, Some(std::slice::from_ref(receiver)), &format!("{field}.receiver"))?;
                if *fan_in == 0 {
                    return Err(ScenarioError::field(
                        format!("{field}.fan_in"),
                        "expected a positive number, got 0",
                    ));
                }
                let candidates: Vec<u32> = host_list(topo, senders.as_deref(), &format!("{field}.senders"))?
                    .into_iter()
                    .filter(|h| h != receiver)
                    .collect();
                if candidates.is_empty() {
                    return Err(ScenarioError::field(
                        format!("{field}.senders"),
                        "no sender other than the receiver",
                    ));
                }
                if size_min.0 == 0 || size_max.0 < size_min.0 {
                    return Err(ScenarioError::field(
                        format!("{field}.size_max"),
                        "expected 0 < size_min ≤ size_max",
                    ));
                }
                budget::check_size(size_max.0, &format!("{field}.size_max"))?;
                if stop.0 <= start.0 {
                    return Err(ScenarioError::field(format!("{field}.stop"), "expected a time after start"));
                }
                let period_ps = match (period, load) {
                    (Some(p), None) if p.0 .0 > 0 => p.0 .0,
                    (None, Some(l)) => {
                        check_load(*l, &format!("{field}.load"))?;
                        let rate = topo.ports[topo.host_port(crate::ids::NodeId(*receiver)).idx()].rate;
                        let mean = (size_min.0 + size_max.0) as f64 / 2.0;
                        (*fan_in as f64 * mean * 8.0 / (l * rate.0 as f64) * PS_PER_S as f64) as u64
                    }
                    _ => {
                        return Err(ScenarioError::field(
                            &field,
                            "give exactly one of period (a positive duration) or load",
                        ))
                    }
                };
                let rounds = (stop.0 .0 - start.0 .0).div_ceil(period_ps.max(1));
                budget::check_count(
                    &field,
                    rounds as f64 * *fan_in as f64,
                    flows.len(),
                    "lengthen the period (or lower the load), shorten stop - start or lower fan_in",
                )?;
                let mut round_start = start.0 .0;
                let mut pool: Vec<u32> = Vec::new();
                while round_start < stop.0 .0 {
                    for _ in 0..*fan_in {
                        if pool.is_empty() {
                            pool = candidates.clone();
                            pool.shuffle(&mut rng);
                        }
                        let src = pool.pop().expect("refilled");
                        flows.push(FlowSpec {
                            src,
                            dst: *receiver,
                            size: rng.gen_range(size_min.0..=size_max.0),
                            start: SimTime(round_start),
                            priority: None,
                            dport: DEFAULT_DPORT,
                            tag: tag.clone(),
                            query: None,
                            incast: true,
                        });
                    }
                    pool.clear();
                    round_start += period_ps.max(1);
                }
            }
            WorkloadSpec::Query(q) => {
                let made = query_flows(q, topo, &field, next_query, flows.len(), &mut rng)?;
                flows.extend(made);
                next_query = flows.iter().filter_map(|f| f.query).max().map_or(next_query, |m| m + 1);
            }
            WorkloadSpec::Permutation(p) => {
                budget::check_count(&field, topo.hosts.len() as f64, flows.len(), "split the run")?;
                flows.extend(permutation(p, topo, &field, &mut rng)?)
            }
            WorkloadSpec::Moe(m) => flows.extend(moe::moe_flows(m, topo, &field, flows.len(), &mut rng)?),
            WorkloadSpec::IncastMix(m) => {
                flows.extend(incast_mix::incast_mix_flows(m, topo, &field, flows.len(), &mut rng)?)
            }
        }
        budget::check_made(&field, flows.len())?;
    }
    if flows.is_empty() {
        return Err(ScenarioError::field(
            "workload",
            "the workload makes no flows, so there is nothing to simulate (check the files and the start / stop windows)",
        ));
    }
    budget::check_send_times(&flows, topo, "workload")?;
    flows.sort_by_key(|f| f.start);
    Ok(flows)
}

/// Query / response incast: per client, Poisson query arrivals at `qps`; each query draws
/// `fan_out` distinct servers (not the client) that each send `response_size` bytes back.
fn query_flows(
    q: &QuerySpec,
    topo: &Topology,
    field: &str,
    first_query: u32,
    so_far: usize,
    rng: &mut RngStream,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let clients = host_list(topo, q.clients.as_deref(), &format!("{field}.clients"))?;
    let servers = host_list(topo, q.servers.as_deref(), &format!("{field}.servers"))?;
    if !(q.qps.is_finite() && q.qps > 0.0) {
        return Err(ScenarioError::field(
            format!("{field}.qps"),
            format!("expected a positive rate, got {}", q.qps),
        ));
    }
    if q.response_size.0 == 0 {
        return Err(ScenarioError::field(format!("{field}.response_size"), "expected a positive size"));
    }
    budget::check_size(q.response_size.0, &format!("{field}.response_size"))?;
    if q.stop.0 <= q.start.0 {
        return Err(ScenarioError::field(format!("{field}.stop"), "expected a time after start"));
    }
    let most = clients.iter().map(|c| servers.iter().filter(|s| *s != c).count()).min().unwrap_or(0);
    if q.fan_out == 0 || q.fan_out as usize > most {
        return Err(ScenarioError::field(
            format!("{field}.fan_out"),
            format!("expected 1 to {most} (servers available to every client), got {}", q.fan_out),
        ));
    }
    let window_s = (q.stop.0 .0 - q.start.0 .0) as f64 / PS_PER_S as f64;
    let expected = clients.len() as f64 * q.qps * window_s * q.fan_out as f64;
    budget::check_count(field, expected, so_far, "lower qps or fan_out, or shorten stop - start")?;
    let mut out = Vec::new();
    let mut query = first_query;
    for &client in &clients {
        let mut candidates: Vec<u32> = servers.iter().copied().filter(|s| *s != client).collect();
        let mut t = q.start.0 .0 as f64;
        loop {
            let u: f64 = rng.gen();
            t += -(1.0 - u).ln() / q.qps * PS_PER_S as f64;
            if t >= q.stop.0 .0 as f64 {
                break;
            }
            // Partial Fisher–Yates: the first `fan_out` entries become a uniform sample.
            let k = q.fan_out as usize;
            for i in 0..k {
                let j = rng.gen_range(i..candidates.len());
                candidates.swap(i, j);
            }
            for &server in &candidates[..k] {
                out.push(FlowSpec {
                    src: server,
                    dst: client,
                    size: q.response_size.0,
                    start: SimTime(t as u64),
                    priority: None,
                    dport: DEFAULT_DPORT,
                    tag: q.tag.clone(),
                    query: Some(query),
                    incast: true,
                });
            }
            query += 1;
        }
    }
    Ok(out)
}

/// A random derangement of the hosts: host `i` sends to `perm[i] ≠ i`.
fn permutation(
    p: &PermutationSpec,
    topo: &Topology,
    field: &str,
    rng: &mut RngStream,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    if p.size.0 == 0 {
        return Err(ScenarioError::field(format!("{field}.size"), "expected a positive size"));
    }
    budget::check_size(p.size.0, &format!("{field}.size"))?;
    let hosts: Vec<u32> = topo.hosts.iter().map(|h| h.0).collect();
    if hosts.len() < 2 {
        return Err(ScenarioError::field(field, "a permutation needs at least two hosts"));
    }
    // Shuffle until no host maps to itself (expected ~e tries).
    let mut dst = hosts.clone();
    loop {
        dst.shuffle(rng);
        if hosts.iter().zip(&dst).all(|(a, b)| a != b) {
            break;
        }
    }
    Ok(hosts
        .iter()
        .zip(&dst)
        .map(|(&src, &dst)| FlowSpec {
            src,
            dst,
            size: p.size.0,
            start: SimTime(p.start.0 .0),
            priority: None,
            dport: DEFAULT_DPORT,
            tag: p.tag.clone(),
            query: None,
            incast: false,
        })
        .collect())
}

fn check_load(load: f64, field: &str) -> Result<(), ScenarioError> {
    if !(load > 0.0 && load <= 1.0) {
        return Err(ScenarioError::field(field, format!("expected a load in (0, 1], got {load}")));
    }
    Ok(())
}

/// Validate a list of host ids (or take every host).
fn host_list(topo: &Topology, hosts: Option<&[u32]>, field: &str) -> Result<Vec<u32>, ScenarioError> {
    match hosts {
        None => Ok(topo.hosts.iter().map(|h| h.0).collect()),
        Some(list) => {
            for h in list {
                if (*h as usize) >= topo.node_count() || !topo.is_host(crate::ids::NodeId(*h)) {
                    return Err(ScenarioError::field(field, format!("node {h} is not a host")));
                }
            }
            Ok(list.to_vec())
        }
    }
}

fn check_flow(topo: &Topology, f: &FlowSpec, field: &str) -> Result<(), ScenarioError> {
    for (name, h) in [("src", f.src), ("dst", f.dst)] {
        if (h as usize) >= topo.node_count() || !topo.is_host(crate::ids::NodeId(h)) {
            return Err(ScenarioError::field(format!("{field}.{name}"), format!("node {h} is not a host")));
        }
    }
    if f.src == f.dst {
        return Err(ScenarioError::field(field, format!("src and dst are both {}", f.src)));
    }
    if f.size == 0 {
        return Err(ScenarioError::field(format!("{field}.size"), "expected a positive size"));
    }
    budget::check_size(f.size, &format!("{field}.size"))?;
    if f.start.0 > crate::scenario::limits::MAX_TIME_PS {
        return Err(ScenarioError::field(
            format!("{field}.start"),
            format!("expected at most {}", crate::scenario::limits::max_time_text()),
        ));
    }
    Ok(())
}

/// Per-sender Poisson arrivals: mean inter-arrival = mean size × 8 / (load × link rate),
/// destination uniform over `dsts` other than the sender (HPCC `traffic_gen` style).
#[allow(clippy::too_many_arguments)]
fn poisson(
    cdf: &EmpiricalCdf,
    load: f64,
    senders: &[u32],
    dsts: &[u32],
    topo: &Topology,
    (start, stop): (u64, u64),
    tag: &str,
    rng: &mut RngStream,
) -> Vec<FlowSpec> {
    let mut out = Vec::new();
    // Where each host stands in `dsts` (the destination draw skips the sender without
    // building a list per sender, which cost O(hosts²) at k = 48); a host listed twice
    // takes the general path.
    let mut at = vec![u32::MAX; topo.node_count()];
    let mut repeats = false;
    for (i, &d) in dsts.iter().enumerate() {
        let slot = &mut at[d as usize];
        repeats |= *slot != u32::MAX;
        *slot = i as u32;
    }
    let mut general: Vec<u32> = Vec::new();
    for &src in senders {
        // The destinations other than the sender, as a view of `dsts`: index k of the
        // list without `src` is `dsts[k]` below its place and `dsts[k + 1]` from it on.
        let skip = if repeats { u32::MAX } else { at[src as usize] };
        let count = if repeats {
            general.clear();
            general.extend(dsts.iter().copied().filter(|d| *d != src));
            general.len()
        } else {
            dsts.len() - usize::from(skip != u32::MAX)
        };
        if count == 0 {
            continue;
        }
        let choose = |k: usize| {
            if repeats {
                general[k]
            } else if k < skip as usize {
                dsts[k]
            } else {
                dsts[k + 1]
            }
        };
        let rate: Rate = topo.ports[topo.host_port(crate::ids::NodeId(src)).idx()].rate;
        let mean_gap_s = cdf.mean() * 8.0 / (load * rate.0 as f64);
        let mut t = start as f64;
        loop {
            let u: f64 = rng.gen();
            t += -(1.0 - u).ln() * mean_gap_s * PS_PER_S as f64;
            if t >= stop as f64 {
                break;
            }
            let dst = choose(rng.gen_range(0..count));
            out.push(FlowSpec {
                src,
                dst,
                size: cdf.sample(rng),
                start: SimTime(t as u64),
                priority: None,
                dport: DEFAULT_DPORT,
                tag: tag.to_string(),
                query: None,
                incast: false,
            });
        }
    }
    out
}

/// Parse seconds written in decimal (e.g. `2.000000962`) exactly into picoseconds.
fn parse_seconds_exact(s: &str) -> Option<u64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let int: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    if frac.len() > 12 || !frac.chars().all(|c| c.is_ascii_digit()) {
        let v: f64 = s.parse().ok()?;
        return (v.is_finite() && v >= 0.0).then(|| (v * PS_PER_S as f64).round() as u64);
    }
    let frac_ps: u64 =
        if frac.is_empty() { 0 } else { frac.parse::<u64>().ok()? * 10u64.pow(12 - frac.len() as u32) };
    int.checked_mul(PS_PER_S)?.checked_add(frac_ps)
}

/// Read a flow file and hand its text and name to `parse`.
fn read_flow_file(
    path: &std::path::Path,
    parse: impl FnOnce(&str, &str) -> Result<Vec<FlowSpec>, ScenarioError>,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let text = crate::scenario::input::read_text(path, "flow file")?;
    parse(&text, &path.display().to_string())
}

/// `check_flow` for a flow read from line `line` of `file`: errors name the file and line.
fn check_flow_line(topo: &Topology, f: &FlowSpec, file: &str, line: usize) -> Result<(), ScenarioError> {
    check_flow(topo, f, "flow").map_err(|e| match e {
        ScenarioError::Field { path, message } => ScenarioError::FileLine {
            file: file.to_string(),
            line,
            message: format!("{}: {message}", path.trim_start_matches("flow.")),
        },
        other => other,
    })
}

/// Read an HPCC simulator flow file: a count line, then `src dst priority dport size
/// start_seconds`, or ConWeave's ns-3 form without the port, `src dst priority size
/// start_seconds` (its destination ports count up per destination host from 100, as
/// `ScheduleFlowInputs` in `network-load-balance.cc` assigns them). One form per file.
pub fn read_hpcc_flows(
    path: &std::path::Path,
    topo: &Topology,
    tag: &str,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    read_flow_file(path, |text, file| parse_hpcc_flows(text, file, topo, tag))
}

pub fn parse_hpcc_flows(
    text: &str,
    file: &str,
    topo: &Topology,
    tag: &str,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let err = ScenarioError::in_file(file);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty());
    let (ln, head) = lines.next().ok_or_else(|| err(1, "empty file; expected the flow count".into()))?;
    let count: u64 = head
        .parse()
        .map_err(|_| err(ln, format!("expected the flow count (a non-negative integer), got \"{head}\"")))?;
    if count > crate::scenario::limits::MAX_FLOWS {
        return Err(err(
            ln,
            format!(
                "a flow count of {} is more than the {} flows one run may hold",
                crate::scenario::limits::count(count),
                crate::scenario::limits::count(crate::scenario::limits::MAX_FLOWS)
            ),
        ));
    }
    let count = count as usize;
    // Never reserve more than the text can hold (a line per flow).
    let mut flows = Vec::with_capacity(count.min(text.len() / 12));
    // The form of the first flow line (6 fields: HPCC's; 5: ConWeave's) holds for the file.
    let mut form: Option<usize> = None;
    let mut dports: HashMap<u64, u64> = HashMap::new();
    for (ln, l) in lines {
        let t: Vec<&str> = l.split_whitespace().collect();
        let fields = *form.get_or_insert(if t.len() == 5 { 5 } else { 6 });
        if t.len() != fields {
            let expected = if fields == 6 {
                "\"src dst priority dport size start_seconds\""
            } else {
                "\"src dst priority size start_seconds\" (the file's first flow has no port column)"
            };
            return Err(err(ln, format!("expected {expected}, got \"{l}\"")));
        }
        let int = |i: usize, what: &str| -> Result<u64, ScenarioError> {
            t[i].parse::<u64>()
                .map_err(|_| err(ln, format!("{what}: expected a non-negative integer, got \"{}\"", t[i])))
        };
        let (src, dst, priority) = (int(0, "src")?, int(1, "dst")?, int(2, "priority")?);
        let (dport, size, start_at) = if fields == 6 {
            (int(3, "dport")?, int(4, "size")?, 5)
        } else {
            let next = dports.entry(dst).or_insert(100);
            let port = *next;
            *next += 1;
            (port, int(3, "size")?, 4)
        };
        let start = parse_seconds_exact(t[start_at]).ok_or_else(|| {
            err(ln, format!("start: expected seconds as a non-negative number, got \"{}\"", t[start_at]))
        })?;
        if start > crate::scenario::limits::MAX_TIME_PS {
            return Err(err(
                ln,
                format!(
                    "start: expected at most {}, got {}",
                    crate::scenario::limits::max_time_text(),
                    t[start_at]
                ),
            ));
        }
        if priority > 255 || dport > 65535 || src > u32::MAX as u64 || dst > u32::MAX as u64 {
            return Err(err(ln, "priority, dport or node id out of range".into()));
        }
        let f = FlowSpec {
            src: src as u32,
            dst: dst as u32,
            size,
            start: SimTime(start),
            priority: Some(priority as u8),
            dport: dport as u16,
            tag: tag.to_string(),
            query: None,
            incast: false,
        };
        check_flow_line(topo, &f, file, ln)?;
        if flows.len() == count {
            return Err(err(ln, format!("the header says {count} flows but the file has more")));
        }
        flows.push(f);
    }
    if flows.len() != count {
        return Err(err(
            text.lines().count().max(1),
            format!("the header says {count} flows but the file has {}", flows.len()),
        ));
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Delta;
    use crate::topology::build;

    fn star() -> Topology {
        crate::topology::build(&crate::scenario::TopologySpec::Dumbbell(crate::scenario::DumbbellSpec {
            left_hosts: 4,
            right_hosts: 4,
            host_rate: crate::scenario::RateSpec::gbps(100),
            bottleneck_rate: crate::scenario::RateSpec::gbps(100),
            delay: crate::scenario::Duration(Delta::from_us(1)),
        }))
        .unwrap()
    }

    #[test]
    fn seconds_parse_exactly() {
        assert_eq!(parse_seconds_exact("2.000000962"), Some(2 * PS_PER_S + 962_000));
        assert_eq!(parse_seconds_exact("0.5"), Some(PS_PER_S / 2));
        assert_eq!(parse_seconds_exact("x"), None);
    }

    #[test]
    fn hpcc_flow_file_parses_and_errors_name_lines() {
        let t = star();
        let f = parse_hpcc_flows("2\n0 5 3 100 1000 2.0\n1 6 3 100 5000 2.000001\n", "f", &t, "x").unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[1].start, SimTime(2 * PS_PER_S + 1_000_000));
        let e =
            parse_hpcc_flows("2\n0 5 3 100 1000 2.0\n1 9 3 100 5000 2.0\n", "f.txt", &t, "x").unwrap_err();
        assert_eq!(e.to_string(), "f.txt:3: dst: node 9 is not a host");
        let e = parse_hpcc_flows("3\n0 5 3 100 1000 2.0\n", "f.txt", &t, "x").unwrap_err();
        assert!(e.to_string().contains("says 3 flows"), "{e}");
        let e = parse_hpcc_flows("1\n0 5 3 100 -4 2.0\n", "f.txt", &t, "x").unwrap_err();
        assert!(e.to_string().starts_with("f.txt:2: size"), "{e}");
        let _ = build;
    }

    /// ConWeave's form has no port column: destination ports count per destination from
    /// 100; a file does not mix the forms.
    #[test]
    fn conweave_flow_file_numbers_ports_per_destination() {
        let t = star();
        let text = "3\n0 5 3 1000 2.0\n1 5 3 5000 2.0\n0 6 3 700 2.1\n";
        let f = parse_hpcc_flows(text, "f", &t, "x").unwrap();
        assert_eq!(
            f.iter().map(|f| (f.dport, f.size)).collect::<Vec<_>>(),
            [(100, 1000), (101, 5000), (100, 700)]
        );
        let e = parse_hpcc_flows("2\n0 5 3 1000 2.0\n1 5 3 100 5000 2.0\n", "f.txt", &t, "x").unwrap_err();
        assert!(
            e.to_string().starts_with("f.txt:3: expected \"src dst priority size start_seconds\""),
            "{e}"
        );
        let e = parse_hpcc_flows("2\n0 5 3 100 1000 2.0\n1 5 3 5000 2.0\n", "f.txt", &t, "x").unwrap_err();
        assert!(e.to_string().starts_with("f.txt:3: expected \"src dst priority dport"), "{e}");
    }
}

#[cfg(test)]
mod generator_tests {
    use super::*;
    use crate::scenario::Scenario;

    fn flows_of(workload: &str) -> (Vec<FlowSpec>, Topology) {
        let toml = format!("[topology]\nkind = \"dumbbell\"\nleft_hosts = 8\nright_hosts = 8\n{workload}");
        let s = Scenario::from_toml_str(&toml).unwrap();
        let topo = crate::topology::build(&s.topology).unwrap();
        (generate(s.workload.as_slice(), &topo, s.seed).unwrap(), topo)
    }

    /// Poisson at load 0.5: the bytes offered per host over a long window are within 3 %
    /// of half its link rate.
    #[test]
    fn poisson_offers_the_configured_load() {
        let (flows, _) = flows_of(
            "[workload]\nkind = \"poisson\"\nsize_dist = \"webserver\"\nload = 0.5\nstop = \"200ms\"\n",
        );
        let bytes: u64 = flows.iter().map(|f| f.size).sum();
        let offered = bytes as f64 * 8.0 / (16.0 * 100e9 * 0.2);
        assert!((offered / 0.5 - 1.0).abs() < 0.03, "offered load {offered:.4}");
        assert!(flows.iter().all(|f| f.src != f.dst));
    }

    /// Incast: rounds of exactly `fan_in` flows to the receiver, sizes in range, distinct
    /// senders within a round while candidates last, rounds every `period`.
    #[test]
    fn incast_has_the_configured_fan_in_sizes_and_period() {
        let (flows, _) = flows_of(
            "[workload]\nkind = \"incast\"\nreceiver = 15\nfan_in = 10\nsize_min = 30000\nsize_max = 40000\n\
             period = \"100us\"\nstop = \"1ms\"\n",
        );
        assert_eq!(flows.len(), 100);
        for round in flows.chunks(10) {
            let start = round[0].start;
            assert!(round.iter().all(|f| f.start == start && f.dst == 15));
            assert!(round.iter().all(|f| (30_000..=40_000).contains(&f.size)));
            let mut senders: Vec<u32> = round.iter().map(|f| f.src).collect();
            senders.sort();
            senders.dedup();
            assert_eq!(senders.len(), 10, "10 distinct senders among 15 candidates");
        }
        let starts: Vec<u64> = flows.chunks(10).map(|r| r[0].start.0).collect();
        assert!(starts.windows(2).all(|w| w[1] - w[0] == 100 * crate::time::PS_PER_US));
    }

    /// MoE all-to-all: every period each worker sends to every other worker, its bytes
    /// split `hot_share` to the hot experts; two groups offset by half a period interleave.
    #[test]
    fn moe_all_to_all_is_imbalanced_periodic_and_phased() {
        let group = |hosts: &str, start: &str| {
            format!(
                "[[workload]]\nkind = \"moe\"\nhosts = {hosts}\nbytes_per_worker = 700000\nhot_experts = 2\n\
                 hot_share = 0.6\nperiod = \"1ms\"\nstart = \"{start}\"\nstop = \"3ms\"\ntag = \"g\"\n"
            )
        };
        let (flows, _) = flows_of(
            &(group("[0, 1, 2, 3, 4, 5, 6, 7]", "0ms") + &group("[8, 9, 10, 11, 12, 13, 14, 15]", "500us")),
        );
        // 2 groups x 3 iterations x 8 workers x 7 receivers.
        assert_eq!(flows.len(), 2 * 3 * 8 * 7);
        let ms = crate::time::PS_PER_US * 1000;
        let mut starts: Vec<u64> = flows.iter().map(|f| f.start.0).collect();
        starts.dedup();
        assert_eq!(starts, vec![0, ms / 2, ms, 3 * ms / 2, 2 * ms, 5 * ms / 2]);
        for iteration in flows.chunks(56) {
            let hot: std::collections::BTreeSet<u32> =
                iteration.iter().filter(|f| f.incast).map(|f| f.dst).collect();
            assert_eq!(hot.len(), 2, "two hot experts per iteration");
            for src in iteration.iter().map(|f| f.src) {
                let out: Vec<&FlowSpec> = iteration.iter().filter(|f| f.src == src).collect();
                let total: u64 = out.iter().map(|f| f.size).sum();
                assert!(total.abs_diff(700_000) <= 7, "worker {src} sends {total}");
                if !hot.contains(&src) {
                    let to_hot: u64 = out.iter().filter(|f| f.incast).map(|f| f.size).sum();
                    assert!(to_hot.abs_diff(420_000) <= 2, "hot share {to_hot}");
                }
            }
        }
        assert!(flows.iter().all(|f| f.src != f.dst && (f.src < 8) == (f.dst < 8)));
    }
}
