//! Trace replay from hopsim's own CSV flow format (see `FlowFileFormat::Csv`). A `class`
//! column, as in a flows table hopsim wrote, keeps each flow's class: a replayed
//! `congested` flow stays congested.

use crate::scenario::ScenarioError;
use crate::time::{SimTime, PS_PER_NS};
use crate::topology::Topology;

use super::{check_flow_line, read_flow_file, FlowSpec, DEFAULT_DPORT};

/// Split one CSV line into fields; double quotes enclose fields with commas, `""` is a
/// literal quote.
fn split_csv(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if cur.is_empty() => quoted = true,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if quoted {
        return Err("unterminated quoted field".into());
    }
    fields.push(cur);
    Ok(fields)
}

/// Nanoseconds (decimal, e.g. `1500.25`, or exponent form) to picoseconds: exact for plain
/// decimals with up to three fractional digits, rounded to the nearest picosecond otherwise.
fn parse_ns(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some((int, frac)) = s.split_once('.') {
        if !int.is_empty()
            && int.bytes().all(|b| b.is_ascii_digit())
            && frac.bytes().all(|b| b.is_ascii_digit())
        {
            let int: u64 = int.parse().ok()?;
            let frac3: String = frac.chars().chain("000".chars()).take(3).collect();
            // Sub-picosecond digits round to the nearest picosecond.
            let round_up = frac.chars().nth(3).is_some_and(|c| c >= '5');
            let ps = int.checked_mul(PS_PER_NS)?.checked_add(frac3.parse().ok()?)?;
            return ps.checked_add(round_up as u64);
        }
    }
    if let Ok(v) = s.parse::<u64>() {
        return v.checked_mul(PS_PER_NS);
    }
    let v: f64 = s.parse().ok()?;
    // Saturates at u64::MAX, which the caller refuses as beyond the clock.
    (v.is_finite() && v >= 0.0).then(|| (v * PS_PER_NS as f64).round() as u64)
}

/// Read a CSV flow trace (`src,dst,size_bytes,start_ns[,tag][,priority][,dport]`).
pub fn read_csv_flows(
    path: &std::path::Path,
    topo: &Topology,
    tag: &str,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    read_flow_file(path, |text, file| parse_csv_flows(text, file, topo, tag))
}

pub fn parse_csv_flows(
    text: &str,
    file: &str,
    topo: &Topology,
    tag: &str,
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let err = ScenarioError::in_file(file);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let (ln, head) = lines
        .by_ref()
        .find(|(_, l)| !l.trim().is_empty())
        .ok_or_else(|| err(1, "empty file; expected a header line (src,dst,size_bytes,start_ns)".into()))?;
    let names = split_csv(head).map_err(|m| err(ln, m))?;
    for (i, name) in names.iter().enumerate() {
        if names[..i].iter().any(|n| n.trim() == name.trim()) {
            return Err(err(ln, format!("column \"{}\" appears twice in the header", name.trim())));
        }
    }
    let col = |name: &str| names.iter().position(|n| n.trim() == name);
    let mut required = [0usize; 4];
    for (slot, name) in required.iter_mut().zip(["src", "dst", "size_bytes", "start_ns"]) {
        *slot = col(name).ok_or_else(|| {
            err(ln, format!("header has no \"{name}\" column; expected src,dst,size_bytes,start_ns"))
        })?;
    }
    let [c_src, c_dst, c_size, c_start] = required;
    let (c_tag, c_prio, c_dport, c_class) = (col("tag"), col("priority"), col("dport"), col("class"));
    let mut flows = Vec::new();
    for (ln, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let f = split_csv(l).map_err(|m| err(ln, m))?;
        if f.len() != names.len() {
            return Err(err(
                ln,
                format!("expected {} fields as in the header, got {}", names.len(), f.len()),
            ));
        }
        let int = |c: usize, what: &str| -> Result<u64, ScenarioError> {
            let v = f[c].trim();
            // Integers written by pandas as floats (`5.0`) are accepted.
            v.parse::<u64>()
                .ok()
                .or_else(|| v.strip_suffix(".0").and_then(|i| i.parse().ok()))
                .ok_or_else(|| err(ln, format!("{what}: expected a non-negative integer, got \"{v}\"")))
        };
        let (src, dst, size) = (int(c_src, "src")?, int(c_dst, "dst")?, int(c_size, "size_bytes")?);
        let start = parse_ns(&f[c_start]).ok_or_else(|| {
            err(ln, format!("start_ns: expected a non-negative number, got \"{}\"", f[c_start]))
        })?;
        if start > crate::scenario::limits::MAX_TIME_PS {
            return Err(err(
                ln,
                format!(
                    "start_ns: expected at most {}, got {}",
                    crate::scenario::limits::max_time_text(),
                    f[c_start].trim()
                ),
            ));
        }
        let congested = match c_class.map(|c| f[c].trim()) {
            None | Some("") => false,
            Some("congested") => true,
            Some("vulnerable" | "background") => false,
            Some(other) => {
                return Err(err(
                    ln,
                    format!("class: expected congested, vulnerable, background or empty, got \"{other}\""),
                ))
            }
        };
        let priority = match c_prio {
            Some(c) if !f[c].trim().is_empty() => {
                let p = int(c, "priority")?;
                Some(u8::try_from(p).map_err(|_| err(ln, format!("priority: expected 0 to 255, got {p}")))?)
            }
            _ => None,
        };
        let dport = match c_dport {
            Some(c) if !f[c].trim().is_empty() => {
                let p = int(c, "dport")?;
                u16::try_from(p).map_err(|_| err(ln, format!("dport: expected 0 to 65535, got {p}")))?
            }
            _ => DEFAULT_DPORT,
        };
        if src > u32::MAX as u64 || dst > u32::MAX as u64 {
            return Err(err(ln, "src or dst out of range".into()));
        }
        let spec = FlowSpec {
            src: src as u32,
            dst: dst as u32,
            size,
            start: SimTime(start),
            priority,
            dport,
            tag: c_tag.map(|c| f[c].clone()).filter(|t| !t.is_empty()).unwrap_or_else(|| tag.to_string()),
            query: None,
            incast: congested,
        };
        check_flow_line(topo, &spec, file, ln)?;
        if flows.len() as u64 >= crate::scenario::limits::MAX_FLOWS {
            return Err(err(
                ln,
                format!(
                    "more than the {} flows one run may hold",
                    crate::scenario::limits::count(crate::scenario::limits::MAX_FLOWS)
                ),
            ));
        }
        flows.push(spec);
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{DumbbellSpec, Duration, RateSpec, TopologySpec};
    use crate::time::Delta;

    /// Hosts 0-3, switches 4 and 5.
    fn star() -> Topology {
        crate::topology::build(&TopologySpec::Dumbbell(DumbbellSpec {
            left_hosts: 2,
            right_hosts: 2,
            host_rate: RateSpec::gbps(100),
            bottleneck_rate: RateSpec::gbps(100),
            delay: Duration(Delta::from_us(1)),
        }))
        .unwrap()
    }

    #[test]
    fn csv_reads_required_and_optional_columns_in_any_order() {
        let text = "flow_id,start_ns,src,dst,size_bytes,tag\n0,1500.25,2,3,1000,\"a,b\"\n1,2e3,3,2,5.0,\n";
        let f = parse_csv_flows(text, "t.csv", &star(), "trace").unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].src, f[0].dst, f[0].size, f[0].start), (2, 3, 1000, SimTime(1_500_250)));
        assert_eq!(f[0].tag, "a,b");
        assert_eq!((f[1].size, f[1].start, f[1].tag.as_str()), (5, SimTime(2_000_000), "trace"));
    }

    #[test]
    fn a_class_column_keeps_congested_flows_congested() {
        let text = "src,dst,size_bytes,start_ns,class\n0,3,10,0,congested\n1,3,10,0,vulnerable\n2,3,10,0,\n";
        let f = parse_csv_flows(text, "t.csv", &star(), "trace").unwrap();
        assert_eq!(f.iter().map(|f| f.incast).collect::<Vec<_>>(), [true, false, false]);
    }

    #[test]
    fn csv_errors_name_file_and_line() {
        let bad = [
            ("src,dst,size_bytes\n", "no \"start_ns\" column"),
            ("src,dst,size_bytes,start_ns\n2,3,10\n", "t.csv:2"),
            ("src,dst,size_bytes,start_ns\n2,3,-1,0\n", "size_bytes: expected a non-negative integer"),
            ("src,dst,size_bytes,start_ns\n2,4,10,0\n", "dst: node 4 is not a host"),
            ("src,dst,size_bytes,start_ns,src\n2,3,10,0,2\n", "t.csv:1: column \"src\" appears twice"),
            ("src,dst,size_bytes,start_ns\n2,3,10,1e30\n", "t.csv:2: start_ns: expected at most"),
            ("src,dst,size_bytes,start_ns\n2,3,10,9e18\n", "t.csv:2: start_ns: expected at most"),
            ("src,dst,size_bytes,start_ns,class\n2,3,10,0,hot\n", "t.csv:2: class: expected congested"),
            ("src,dst,size_bytes,start_ns\n2,3,18446744073709551615,0\n", "t.csv:2: size: expected at most"),
        ];
        for (text, want) in bad {
            let e = parse_csv_flows(text, "t.csv", &star(), "trace").unwrap_err().to_string();
            assert!(e.contains(want), "{e} lacks {want}");
        }
    }
}
