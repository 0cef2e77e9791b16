//! Reader for the HPCC ns-3 simulator's topology file (`simulation/mix/topology.txt`):
//!
//! ```text
//! <nodes> <switches> <links>
//! <switch id> <switch id> ...            (exactly <switches> ids)
//! <a> <b> <rate, e.g. 100Gbps> <delay, e.g. 1000ns> <error rate>   (one line per link)
//! ```
//! Nodes not listed as switches are hosts. The error rate must be 0 (loss-free links).

use std::path::Path;

use super::{LinkSpec, NodeKind, Topology};
use crate::ids::NodeId;
use crate::scenario::ScenarioError;
use crate::time::{parse_duration, parse_rate};

pub fn read_hpcc_topology(path: &Path) -> Result<Topology, ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::File {
        file: file.clone(),
        message: format!("cannot read topology file: {e}"),
    })?;
    parse_hpcc_topology(&text, &file)
}

/// Parse the text of an HPCC-format topology; `file` names it in errors.
pub fn parse_hpcc_topology(text: &str, file: &str) -> Result<Topology, ScenarioError> {
    let err = ScenarioError::in_file(file);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty());

    let (ln, header) =
        lines.next().ok_or_else(|| err(1, "empty file; expected \"<nodes> <switches> <links>\"".into()))?;
    let nums: Vec<u32> =
        header.split_whitespace().map(|t| t.parse::<u32>()).collect::<Result<_, _>>().map_err(|_| {
            err(
                ln,
                format!(
                    "expected \"<nodes> <switches> <links>\" as three integers, got \"{}\"",
                    header.trim()
                ),
            )
        })?;
    let [nodes, switches, link_count] = nums[..] else {
        return Err(err(ln, format!("expected \"<nodes> <switches> <links>\", got \"{}\"", header.trim())));
    };

    let mut kinds = vec![NodeKind::Host; nodes as usize];
    let mut seen = 0u32;
    while seen < switches {
        let (ln, l) = lines
            .next()
            .ok_or_else(|| err(ln + 1, format!("expected {switches} switch ids, found {seen}")))?;
        for tok in l.split_whitespace() {
            let id: u32 =
                tok.parse().map_err(|_| err(ln, format!("expected a switch id (integer), got \"{tok}\"")))?;
            if id >= nodes {
                return Err(err(ln, format!("switch id {id} is not below the node count {nodes}")));
            }
            kinds[id as usize] = NodeKind::Switch;
            seen += 1;
        }
    }
    if seen != switches {
        return Err(err(ln, format!("expected {switches} switch ids, found {seen}")));
    }

    let mut links = Vec::with_capacity(link_count as usize);
    for (ln, l) in lines.by_ref().take(link_count as usize) {
        let t: Vec<&str> = l.split_whitespace().collect();
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
        if let Some(er) = t.get(4) {
            let v: f64 =
                er.parse().map_err(|_| err(ln, format!("expected an error rate (number), got \"{er}\"")))?;
            if v != 0.0 {
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
}
