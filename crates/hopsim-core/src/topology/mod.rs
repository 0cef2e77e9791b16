//! The network graph: hosts and switches joined by full-duplex links, plus the builders
//! that make common datacenter fabrics and the reader of the HPCC simulator's format.
//!
//! Each link becomes two ports (one per end); a port is the transmitter of one direction.
//! Ports of a node are numbered contiguously, in the order its links were listed.

pub(crate) mod builders;
mod hpcc_file;
pub mod partition;
pub mod routing;

pub use builders::build;
pub use hpcc_file::{parse_hpcc_topology, read_hpcc_topology};
pub use routing::{EcmpTable, FiveTuple, Routing};

use crate::ids::{NodeId, PortId};
use crate::scenario::limits::{count, MAX_LINKS, MAX_NODES, MAX_ROUTE_ENTRIES};
use crate::scenario::ScenarioError;
use crate::time::{Delta, Rate};

/// Refuse a topology too large to hold, before anything is allocated for it.
pub(crate) fn check_size(nodes: u64, links: u64) -> Result<(), String> {
    if nodes > MAX_NODES {
        return Err(format!(
            "{} nodes is more than the {} a topology may have",
            count(nodes),
            count(MAX_NODES)
        ));
    }
    if links > MAX_LINKS {
        return Err(format!(
            "{} links is more than the {} a topology may have",
            count(links),
            count(MAX_LINKS)
        ));
    }
    Ok(())
}

/// Refuse a topology whose ECMP table (one entry per switch and host) is too large.
pub(crate) fn check_route_entries(hosts: u64, switches: u64) -> Result<(), String> {
    let entries = hosts.saturating_mul(switches);
    if entries > MAX_ROUTE_ENTRIES {
        return Err(format!(
            "{} hosts × {} switches = {} routing entries, more than the {} hopsim holds",
            count(hosts),
            count(switches),
            count(entries),
            count(MAX_ROUTE_ENTRIES)
        ));
    }
    Ok(())
}

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

/// Where a switch sits in the fabric, for per-tier metrics (hosts are `Host`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    Host,
    /// A switch with hosts attached (top of rack / leaf / edge).
    Tor,
    /// A switch one hop above the ToRs with switches above it (a fat-tree's aggregation).
    Agg,
    /// A switch one hop above the ToRs with none above it: the top of a two-tier fabric
    /// (a leaf-spine's spine; the Pyrrha paper's "core" of its Clos, §6).
    Spine,
    /// A switch two or more hops above the ToRs.
    Core,
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::Host => "host",
            Tier::Tor => "tor",
            Tier::Agg => "agg",
            Tier::Spine => "spine",
            Tier::Core => "core",
        }
    }
}

/// A full-duplex link as listed in a topology description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkSpec {
    pub a: NodeId,
    pub b: NodeId,
    pub rate: Rate,
    pub delay: Delta,
}

/// One direction of a link, seen from its transmitting node.
#[derive(Clone, Copy, Debug)]
pub struct PortSpec {
    pub node: NodeId,
    /// The port at the other end (it receives what this port sends).
    pub peer: PortId,
    pub rate: Rate,
    pub delay: Delta,
}

/// A validated, connected topology.
#[derive(Clone, Debug)]
pub struct Topology {
    pub kinds: Vec<NodeKind>,
    pub ports: Vec<PortSpec>,
    /// `node_ports[n]` is the first port of node `n`; ports of `n` end at `node_ports[n+1]`.
    pub node_ports: Vec<u32>,
    pub tiers: Vec<Tier>,
    /// Host node ids in increasing order; `host_index[node]` is the position (or `u32::MAX`).
    pub hosts: Vec<NodeId>,
    pub host_index: Vec<u32>,
}

impl Topology {
    /// Build from a node list and links; checks self-loops, rates, single-homed hosts and
    /// connectivity. `what` names the source for error messages (e.g. `topology`).
    pub fn from_links(
        kinds: Vec<NodeKind>,
        links: &[LinkSpec],
        what: &str,
    ) -> Result<Topology, ScenarioError> {
        let n = kinds.len();
        let mut degree = vec![0u32; n];
        for (i, l) in links.iter().enumerate() {
            for end in [l.a, l.b] {
                if end.idx() >= n {
                    return Err(ScenarioError::field(
                        what,
                        format!("link {i} names node {} but the topology has {n} nodes", end.0),
                    ));
                }
            }
            if l.a == l.b {
                return Err(ScenarioError::field(
                    what,
                    format!("link {i} connects node {} to itself", l.a.0),
                ));
            }
            if l.rate.0 == 0 {
                return Err(ScenarioError::field(
                    what,
                    format!("link {i} has rate 0; expected a positive rate"),
                ));
            }
            degree[l.a.idx()] += 1;
            degree[l.b.idx()] += 1;
        }
        for (node, kind) in kinds.iter().enumerate() {
            if *kind == NodeKind::Host && degree[node] != 1 {
                return Err(ScenarioError::field(
                    what,
                    format!("host {node} has {} links; each host needs exactly one", degree[node]),
                ));
            }
        }
        // Ports: contiguous per node, in link order.
        let mut node_ports = vec![0u32; n + 1];
        for node in 0..n {
            node_ports[node + 1] = node_ports[node] + degree[node];
        }
        let mut next = node_ports.clone();
        let mut ports = vec![
            PortSpec { node: NodeId(0), peer: PortId(0), rate: Rate(0), delay: Delta::ZERO };
            node_ports[n] as usize
        ];
        for l in links {
            let pa = next[l.a.idx()];
            next[l.a.idx()] += 1;
            let pb = next[l.b.idx()];
            next[l.b.idx()] += 1;
            ports[pa as usize] = PortSpec { node: l.a, peer: PortId(pb), rate: l.rate, delay: l.delay };
            ports[pb as usize] = PortSpec { node: l.b, peer: PortId(pa), rate: l.rate, delay: l.delay };
        }
        let hosts: Vec<NodeId> =
            (0..n as u32).map(NodeId).filter(|h| kinds[h.idx()] == NodeKind::Host).collect();
        if hosts.is_empty() {
            return Err(ScenarioError::field(what, "the topology has no hosts"));
        }
        check_route_entries(hosts.len() as u64, (n - hosts.len()) as u64)
            .map_err(|m| ScenarioError::field(what, m))?;
        let mut host_index = vec![u32::MAX; n];
        for (i, h) in hosts.iter().enumerate() {
            host_index[h.idx()] = i as u32;
        }
        let mut topo = Topology { kinds, ports, node_ports, tiers: Vec::new(), hosts, host_index };
        // Connectivity: every node reachable from the first host.
        let dist = topo.hop_distances(topo.hosts[0]);
        if let Some(unreached) = dist.iter().position(|d| *d == u32::MAX) {
            return Err(ScenarioError::field(
                what,
                format!(
                    "the topology is not connected: node {unreached} cannot be reached from host {}",
                    topo.hosts[0].0
                ),
            ));
        }
        topo.tiers = topo.compute_tiers();
        Ok(topo)
    }

    pub fn node_count(&self) -> usize {
        self.kinds.len()
    }

    /// The ports of `node`.
    #[inline]
    pub fn ports_of(&self, node: NodeId) -> std::ops::Range<u32> {
        self.node_ports[node.idx()]..self.node_ports[node.idx() + 1]
    }

    /// The single port of a host.
    #[inline]
    pub fn host_port(&self, host: NodeId) -> PortId {
        PortId(self.node_ports[host.idx()])
    }

    /// The switch a host's single link leads to (its ToR).
    #[inline]
    pub fn tor_of(&self, host: NodeId) -> NodeId {
        self.ports[self.ports[self.host_port(host).idx()].peer.idx()].node
    }

    pub fn is_host(&self, node: NodeId) -> bool {
        self.kinds[node.idx()] == NodeKind::Host
    }

    /// Breadth-first hop counts from `from`; hosts other than `from` are not transit nodes.
    pub fn hop_distances(&self, from: NodeId) -> Vec<u32> {
        self.hop_distances_over(from, |_| true)
    }

    /// [`hop_distances`](Self::hop_distances) over the ports `up` accepts (links that have
    /// not failed).
    pub fn hop_distances_over(&self, from: NodeId, up: impl Fn(PortId) -> bool) -> Vec<u32> {
        let mut dist = vec![u32::MAX; self.node_count()];
        let mut frontier = std::collections::VecDeque::new();
        dist[from.idx()] = 0;
        frontier.push_back(from);
        while let Some(n) = frontier.pop_front() {
            if n != from && self.is_host(n) {
                continue;
            }
            for p in self.ports_of(n) {
                if !up(PortId(p)) {
                    continue;
                }
                let peer_node = self.ports[self.ports[p as usize].peer.idx()].node;
                if dist[peer_node.idx()] == u32::MAX {
                    dist[peer_node.idx()] = dist[n.idx()] + 1;
                    frontier.push_back(peer_node);
                }
            }
        }
        dist
    }

    /// Tier of each node: switches by hop distance from the nearest host (1 = ToR,
    /// 2 = Agg, ≥ 3 = Core), except that a switch two hops up with no switch further up
    /// tops a two-tier fabric (Spine).
    fn compute_tiers(&self) -> Vec<Tier> {
        let mut level = vec![u32::MAX; self.node_count()];
        let mut frontier = std::collections::VecDeque::new();
        for h in &self.hosts {
            level[h.idx()] = 0;
            frontier.push_back(*h);
        }
        while let Some(n) = frontier.pop_front() {
            for p in self.ports_of(n) {
                let peer_node = self.ports[self.ports[p as usize].peer.idx()].node;
                if level[peer_node.idx()] == u32::MAX {
                    level[peer_node.idx()] = level[n.idx()] + 1;
                    frontier.push_back(peer_node);
                }
            }
        }
        let has_higher_peer = |n: usize| {
            self.ports_of(NodeId(n as u32))
                .any(|p| level[self.ports[self.ports[p as usize].peer.idx()].node.idx()] > level[n])
        };
        (0..self.node_count())
            .map(|n| match level[n] {
                0 => Tier::Host,
                1 => Tier::Tor,
                2 if has_higher_peer(n) => Tier::Agg,
                2 => Tier::Spine,
                _ => Tier::Core,
            })
            .collect()
    }
}
