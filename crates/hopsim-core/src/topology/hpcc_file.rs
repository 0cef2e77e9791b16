//! Reader for the HPCC ns-3 simulator's topology file (`simulation/mix/topology.txt`):
//!
//! ```text
//! <nodes> <switches> <links>
//! <switch id> <switch id> ...            (exactly <switches> ids)
//! <a> <b> <rate, e.g. 100Gbps> <delay, e.g. 1000ns> <error rate>   (one line per link)
//! ```
//! Nodes not listed as switches are hosts. The error rate must be 0 (loss-free links).
//! Every switch id appears once; nothing may follow the last link.

use std::path::Path;

use super::{check_size, LinkSpec, NodeKind, Topology};
use crate::ids::NodeId;
use crate::scenario::ScenarioError;
use crate::time::{parse_duration, parse_rate};

pub fn read_hpcc_topology(path: &Path) -> Result<Topology, ScenarioError> {
    let text = crate::scenario::input::read_text(path, "topology file")?;
    parse_hpcc_topology(&text, &path.display().to_string())
}

/// Parse the text of an HPCC-format topology; `file` names it in errors.
pub fn parse_hpcc_topology(text: &str, file: &str) -> Result<Topology, ScenarioError> {
    let err = ScenarioError::in_file(file);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty());

    let (ln, header) =
        lines.next().ok_or_else(|| err(1, "empty file; expected \"<nodes> <switches> <links>\"".into()))?;
    let nums: Vec<u64> =
        header.split_whitespace().map(|t| t.parse::<u64>()).collect::<Result<_, _>>().map_err(|_| {
            err(
                ln,
                format!(
                    "expected \"<nodes> <switches> <links>\" as three non-negative integers, got \"{}\"",
                    header.trim()
                ),
            )
        })?;
    let [nodes, switches, link_count] = nums[..] else {
        return Err(err(ln, format!("expected \"<nodes> <switches> <links>\", got \"{}\"", header.trim())));
    };
    check_size(nodes, link_count).map_err(|m| err(ln, m))?;
    if switches > nodes {
        return Err(err(ln, format!("{switches} switches is more than the {nodes} nodes")));
    }
    let nodes = nodes as u32;

    let mut kinds = vec![NodeKind::Host; nodes as usize];
    let mut seen = 0u64;
    let mut last_line = ln;
    while seen < switches {
        let (ln, l) = lines
            .next()
            .ok_or_else(|| err(last_line + 1, format!("expected {switches} switch ids, found {seen}")))?;
        last_line = ln;
        for tok in l.split_whitespace() {
            let id: u32 =
                tok.parse().map_err(|_| err(ln, format!("expected a switch id (integer), got \"{tok}\"")))?;
            if id >= nodes {
                return Err(err(ln, format!("switch id {id} is not below the node count {nodes}")));
            }
            if kinds[id as usize] == NodeKind::Switch {
                return Err(err(ln, format!("switch id {id} is listed twice")));
            }
            kinds[id as usize] = NodeKind::Switch;
            seen += 1;
        }
    }
    if seen != switches {
        return Err(err(last_line, format!("expected {switches} switch ids, found {seen}")));
    }

    let mut links = Vec::with_capacity((link_count as usize).min(text.len() / 8));
    for (ln, l) in lines.by_ref().take(link_count as usize) {
        let t: Vec<&str> = l.split_whitespace().collect();
        if t.len() > 5 {
            return Err(err(
                ln,
                format!(
                    "expected \"<a> <b> <rate> <delay> <error_rate>\", got {} fields: \"{}\"",
                    t.len(),
                    l.trim()
                ),
            ));
        }
        if t.len() < 4 {
            return Err(err(
                ln,
                format!("expected \"<a> <b> <rate> <delay> <error_rate>\", got \"{}\"", l.trim()),
            ));
        }
        let node = |s: &str| -> Result<NodeId, ScenarioError> {
            let v: u32 = s.parse().map_err(|_| err(ln, format!("expected a node id, got \"{s}\"")))?;
            if v >= nodes {
                return Err(err(ln, format!("node id {v} is not below the node count {nodes}")));
            }
            Ok(NodeId(v))
        };
        let rate = parse_rate(t[2]).map_err(|e| err(ln, format!("link rate: {}", e.0)))?;
        if rate.0 == 0 {
            return Err(err(ln, "link rate: expected a positive rate".into()));
        }
        let delay = parse_duration(t[3]).map_err(|e| err(ln, format!("link delay: {}", e.0)))?;
        if delay.0 > crate::scenario::limits::MAX_TIME_PS {
            return Err(err(
                ln,
                format!(
                    "link delay: expected at most {}, got \"{}\"",
                    crate::scenario::limits::max_time_text(),
                    t[3]
                ),
            ));
        }
        if let Some(er) = t.get(4) {
            let v: f64 =
                er.parse().map_err(|_| err(ln, format!("expected an error rate (number), got \"{er}\"")))?;
            if !v.is_finite() || v != 0.0 {
                return Err(err(
                    ln,
                    format!("error rate {v} is not supported; links are loss-free (expected 0)"),
                ));
            }
        }
        links.push(LinkSpec { a: node(t[0])?, b: node(t[1])?, rate, delay });
    }
    if links.len() != link_count as usize {
        return Err(err(text.lines().count(), format!("expected {link_count} links, found {}", links.len())));
    }
    if let Some((ln, l)) = lines.next() {
        return Err(err(ln, format!("unexpected line after the {link_count} links: \"{}\"", l.trim())));
    }
    Topology::from_links(kinds, &links, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_small_file() {
        let t = parse_hpcc_topology(
            "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1us 0\n",
            "t",
        )
        .unwrap();
        assert_eq!(t.hosts.len(), 3);
        assert_eq!(t.ports.len(), 6);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_hpcc_topology(
            "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 fast 1000ns 0\n2 3 100Gbps 1us 0\n",
            "t.txt",
        );
        assert_eq!(e.unwrap_err().to_string().split(':').take(2).collect::<Vec<_>>(), ["t.txt", "4"]);
        let e = parse_hpcc_topology("4 1 2\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n", "t.txt")
            .unwrap_err();
        assert!(e.to_string().contains("host 2 has 0 links"), "{e}");
        let e = parse_hpcc_topology(
            "5 2 3\n3 4\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 4 100Gbps 1us 0\n",
            "t",
        )
        .unwrap_err();
        assert!(e.to_string().contains("not connected"), "{e}");
    }

    #[test]
    fn header_counts_repeats_extra_fields_and_trailing_lines_are_refused() {
        let bad = [
            ("4294967296 1 3\n3\n", "t:1: 4,294,967,296 nodes is more than"),
            ("1000000000000 1 3\n3\n", "t:1: 1,000,000,000,000 nodes"),
            ("4 1 9223372036854775808\n3\n", "t:1: 9,223,372,036,854,775,808 links"),
            ("4 5 3\n", "t:1: 5 switches is more than the 4 nodes"),
            ("4 2 3\n3 3\n", "t:2: switch id 3 is listed twice"),
            (
                "4 1 3\n3\n0 3 100Gbps 1us 0 9\n",
                "t:3: expected \"<a> <b> <rate> <delay> <error_rate>\", got 6 fields",
            ),
            ("4 1 1\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n", "t:4: unexpected line after the 1 links"),
            ("4 1 1\n3\n0 3 100Gbps 1us nan\n", "t:3: error rate NaN is not supported"),
            ("4 1 1\n3\n0 3 100Gbps 9999999s 0\n", "t:3: link delay: expected at most"),
        ];
        for (text, want) in bad {
            let e = parse_hpcc_topology(text, "t").unwrap_err().to_string();
            assert!(e.starts_with(want), "{e} does not start with {want}");
        }
    }
}
