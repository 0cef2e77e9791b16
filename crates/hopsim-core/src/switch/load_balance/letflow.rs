//! LetFlow (Vanini et al., "Let It Flow: Resilient Asymmetric Load Balancing with Flowlet
//! Switching", NSDI 2017, §3): flowlet switching with random path choice. A switch keeps,
//! per flow, the time of the flow's last packet and the path its current flowlet took; a
//! packet that follows its flow's previous one within the flowlet timeout takes the same
//! path, and one that comes after a longer gap starts a new flowlet on a uniformly random
//! next hop. Congestion needs no signal: a flowlet on a congested path is slowed, its gaps
//! grow, and it is more likely to move (§4).
//!
//! Choices where the paper leaves room, each a parameter of `[routing.letflow]`:
//! - **Where flowlets are cut** (`path_choice`). `"per_hop"` (default): every switch with
//!   more than one next hop keeps its own flowlet table and picks its own next hop (§3,
//!   a local decision at each switch). `"source_tor"`: as in ConWeave's ns-3 (SIGCOMM
//!   2023, `LetflowRouting`), only the sender's ToR detects flowlets; it draws a path for
//!   the whole flowlet and carries it in a header field (`letflow_path`), which the
//!   switches further on follow.
//! - **The flowlet table** is exact: one entry per 5-tuple, as ConWeave's per-QP map (the
//!   paper's hardware table is indexed by a hash of the 5-tuple, so flows may share an
//!   entry there; here they never do).
//! - **Aging** only bounds the table's size: entries idle longer than `aging` are dropped
//!   by a sweep at most once per `aging` per switch, done when a packet arrives (no timer
//!   events, so a run ends when its last packet does). With `aging >= flowlet_timeout`
//!   (enforced) dropping an entry never changes a decision: a packet that finds no entry
//!   would have found an expired one.
//!
//! Only data packets are balanced; ACKs, NACKs and CNPs follow ECMP (as DRILL here). Each
//! switch draws from its own random stream (`switch/<node>/letflow`). A flowlet's path is
//! a 64-bit draw; a switch maps it to one of its next hops by hashing it with its node id,
//! so a next hop lost to a link failure moves only the flowlets that used it.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use rand::RngCore;
use serde::{Deserialize, Serialize};

use super::hooks::{LbBuild, LbCx, LoadBalancerPolicy};
use crate::engine::RngStream;
use crate::fabric::headers::Field;
use crate::fabric::packet::{Packet, PacketKind};
use crate::ids::{NodeId, PortId};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::Duration;
use crate::time::{Delta, SimTime};
use crate::topology::routing::{mix64, routing_tuple, FiveTuple};

/// `[routing.letflow]`.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LetflowSpec {
    /// Gap after which a flow's next packet starts a new flowlet. Default 100 µs: ConWeave's
    /// ns-3 (`letflow_flowletTimeout` in `network-load-balance.cc`), the RDMA load-balancing
    /// evaluation LetFlow is usually compared in.
    #[serde(default = "default_timeout")]
    pub flowlet_timeout: Duration,
    /// Idle time after which an entry leaves the flowlet table (memory only, see the module
    /// doc). Default 2 ms: ConWeave's ns-3 (`letflow_agingTime`).
    #[serde(default = "default_aging")]
    pub aging: Duration,
    /// Where flowlets are detected and paths chosen: `"per_hop"` or `"source_tor"`.
    #[serde(default)]
    pub path_choice: PathChoice,
}

impl Default for LetflowSpec {
    fn default() -> Self {
        LetflowSpec {
            flowlet_timeout: default_timeout(),
            aging: default_aging(),
            path_choice: PathChoice::PerHop,
        }
    }
}

fn default_timeout() -> Duration {
    Duration::us(100)
}
fn default_aging() -> Duration {
    Duration::us(2_000)
}

/// Where LetFlow cuts flowlets and chooses their paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PathChoice {
    /// Every switch with a choice keeps its own flowlet table (the paper, §3).
    #[default]
    PerHop,
    /// The sender's ToR picks the flowlet's whole path; the others follow its header field
    /// (ConWeave's ns-3).
    SourceTor,
}

/// A flow's current flowlet at one switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Flowlet {
    /// The flowlet's path draw.
    path: u64,
    /// When the flow's last packet passed.
    last: SimTime,
}

/// Flowlet-table keys: the 5-tuple packed into 96 bits.
fn key(t: FiveTuple) -> u128 {
    ((t.src.0 as u128) << 64) | ((t.dst.0 as u128) << 32) | ((t.sport as u128) << 16) | t.dport as u128
}

/// One switch's flowlet table (deterministic hashing: nothing depends on the process).
#[derive(Clone, Debug)]
struct FlowletTable {
    entries: HashMap<u128, Flowlet, BuildHasherDefault<std::collections::hash_map::DefaultHasher>>,
    /// When the next aging sweep is due.
    next_sweep: SimTime,
}

/// What the flowlet table said of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Within its flowlet: the flowlet's path.
    Same(u64),
    /// A new flowlet (the flow's first packet, or one after a gap above the timeout).
    New(u64),
}

impl FlowletTable {
    fn new() -> FlowletTable {
        FlowletTable { entries: HashMap::default(), next_sweep: SimTime::ZERO }
    }

    /// The flowlet of the packet of flow `key` arriving at `now`; a new one draws its path
    /// from `rng`. Sweeps idle entries first when a sweep is due.
    fn packet(
        &mut self,
        key: u128,
        now: SimTime,
        timeout: Delta,
        aging: Delta,
        rng: &mut RngStream,
    ) -> Verdict {
        if now >= self.next_sweep {
            self.entries.retain(|_, f| now.since(f.last) <= aging);
            self.next_sweep = now + aging;
        }
        match self.entries.get_mut(&key) {
            Some(f) if now.since(f.last) <= timeout => {
                f.last = now;
                Verdict::Same(f.path)
            }
            slot => {
                let path = rng.next_u64();
                let flowlet = Flowlet { path, last: now };
                match slot {
                    Some(f) => *f = flowlet,
                    None => {
                        self.entries.insert(key, flowlet);
                    }
                }
                Verdict::New(path)
            }
        }
    }
}

/// The next hop of a flowlet with path draw `path` at `node` among `hops` (non-empty).
#[inline]
fn next_hop(path: u64, node: NodeId, hops: &[PortId]) -> PortId {
    let h = mix64(path ^ (node.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    hops[(h % hops.len() as u64) as usize]
}

/// LetFlow at every switch.
#[derive(Clone, Debug)]
pub struct Letflow {
    timeout: Delta,
    aging: Delta,
    /// Per switch.
    tables: Vec<FlowletTable>,
    rngs: Vec<RngStream>,
    /// Per host index: the node id of its ToR (`source_tor`).
    tor_of_host: Vec<NodeId>,
    host_index: Vec<u32>,
    /// The flowlet's path in its packets (`source_tor`).
    path_field: Option<Field>,
    /// Flowlets started (first packets included).
    flowlets: u64,
    /// Most entries one switch's table held.
    peak_entries: u64,
}

impl LoadBalancerPolicy for Letflow {
    const NAME: &'static str = "letflow";
    type Spec = LetflowSpec;
    /// Flowlet tables and random streams are per switch, a source-ToR path travels in its
    /// packet's header row: a partition holds everything a decision reads
    /// (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(spec: &LetflowSpec) -> Result<(), ScenarioError> {
        check(
            spec.flowlet_timeout.0 > Delta::ZERO,
            "routing.letflow.flowlet_timeout",
            "expected a positive duration (a zero timeout makes every packet a flowlet: per-packet spraying)",
        )?;
        check(
            spec.aging.0 >= spec.flowlet_timeout.0,
            "routing.letflow.aging",
            format!(
                "expected at least the flowlet timeout ({} us), got {} us (aging an entry before \
                 its flowlet times out would cut flowlets short)",
                spec.flowlet_timeout.0.as_ns_f64() / 1e3,
                spec.aging.0.as_ns_f64() / 1e3
            ),
        )
    }

    fn build(spec: &LetflowSpec, b: &mut LbBuild) -> Self {
        let topo = b.topo;
        let tor_of_host = topo.hosts.iter().map(|&h| topo.tor_of(h)).collect();
        let path_field =
            (spec.path_choice == PathChoice::SourceTor).then(|| b.headers.field("letflow_path", 64));
        Letflow {
            timeout: spec.flowlet_timeout.0,
            aging: spec.aging.0,
            tables: (0..b.switches.len()).map(|_| FlowletTable::new()).collect(),
            rngs: b.switch_streams("letflow"),
            tor_of_host,
            host_index: topo.host_index.clone(),
            path_field,
            flowlets: 0,
            peak_entries: 0,
        }
    }

    fn select(&mut self, cx: &mut LbCx, node: NodeId, sw: usize, pkt: &Packet, slot: usize) -> PortId {
        let tuple = routing_tuple(pkt);
        if pkt.kind != PacketKind::Data {
            return cx.routing.select(node, tuple);
        }
        let hops = cx.routing.table.next_hops(node, tuple.dst);
        let decides = match self.path_field {
            None => hops.len() > 1,
            Some(_) => self.tor_of_host[self.host_index[tuple.src.idx()] as usize] == node,
        };
        let path = if decides {
            let table = &mut self.tables[sw];
            let verdict = table.packet(key(tuple), cx.now, self.timeout, self.aging, &mut self.rngs[sw]);
            self.peak_entries = self.peak_entries.max(table.entries.len() as u64);
            let path = match verdict {
                Verdict::Same(p) => p,
                Verdict::New(p) => {
                    self.flowlets += 1;
                    p
                }
            };
            if let Some(f) = self.path_field {
                cx.headers.set(slot, f, path);
            }
            path
        } else {
            match self.path_field {
                Some(f) => cx.headers.get(slot, f),
                None => 0, // at most one next hop: nothing to choose
            }
        };
        match hops.len() {
            0 => PortId::NONE,
            1 => hops[0],
            _ => next_hop(path, node, hops),
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("letflow_flowlets", self.flowlets), ("letflow_peak_entries", self.peak_entries)]
    }

    fn summary_line(&self) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count as thousands;
        let line = format!(
            "{} flowlets (at most {} table entries at a switch)",
            thousands(self.flowlets),
            thousands(self.peak_entries)
        );
        Some(("LetFlow", line))
    }

    /// Flowlets are counted where they start (summed); the table peak is one switch's.
    fn join_partition(&mut self, other: &Self) {
        self.flowlets += other.flowlets;
        self.peak_entries = self.peak_entries.max(other.peak_entries);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng_stream;

    const TIMEOUT: Delta = Delta(100 * crate::time::PS_PER_US);
    const AGING: Delta = Delta(2_000 * crate::time::PS_PER_US);

    fn at_us(us: u64) -> SimTime {
        SimTime(us * crate::time::PS_PER_US)
    }

    /// A packet within the timeout of its flow's previous one stays in the flowlet; one
    /// after a longer gap starts a new flowlet with a fresh draw.
    #[test]
    fn a_gap_above_the_timeout_starts_a_new_flowlet() {
        let mut t = FlowletTable::new();
        let mut rng = rng_stream(1, "test");
        let Verdict::New(first) = t.packet(7, at_us(0), TIMEOUT, AGING, &mut rng) else {
            panic!("first packet")
        };
        assert_eq!(t.packet(7, at_us(60), TIMEOUT, AGING, &mut rng), Verdict::Same(first));
        // 100 µs after the previous packet (not the first): still the same flowlet.
        assert_eq!(t.packet(7, at_us(160), TIMEOUT, AGING, &mut rng), Verdict::Same(first));
        match t.packet(7, at_us(261), TIMEOUT, AGING, &mut rng) {
            Verdict::New(p) => assert_ne!(p, first, "a 64-bit draw repeats with negligible odds"),
            v => panic!("a 101 µs gap starts a flowlet, got {v:?}"),
        }
        // Another flow has its own entry.
        assert!(matches!(t.packet(8, at_us(262), TIMEOUT, AGING, &mut rng), Verdict::New(_)));
    }

    /// Aging drops idle entries and nothing else, and never changes a verdict.
    #[test]
    fn aging_drops_only_idle_entries() {
        let mut t = FlowletTable::new();
        let mut rng = rng_stream(1, "test");
        t.packet(1, at_us(0), TIMEOUT, AGING, &mut rng);
        t.packet(2, at_us(1_500), TIMEOUT, AGING, &mut rng);
        assert_eq!(t.entries.len(), 2);
        // At 2.1 ms a sweep is due (the first ran at 0): flow 1 is 2.1 ms idle, flow 2 0.6 ms.
        let v = t.packet(2, at_us(2_100), TIMEOUT, AGING, &mut rng);
        assert!(matches!(v, Verdict::New(_)), "0.6 ms is above the timeout");
        assert_eq!(t.entries.len(), 1);
        assert!(t.entries.contains_key(&2));
        assert_eq!(t.next_sweep, at_us(4_100));
    }

    /// A switch maps path draws uniformly onto its next hops, and two switches map one
    /// draw independently.
    #[test]
    fn paths_spread_evenly_over_next_hops() {
        let hops = [PortId(4), PortId(5), PortId(6), PortId(7)];
        let mut rng = rng_stream(3, "test");
        let mut counts = [0u32; 4];
        let mut same = 0;
        for _ in 0..40_000 {
            let path = rng.next_u64();
            let p = next_hop(path, NodeId(8), &hops);
            counts[(p.0 - 4) as usize] += 1;
            same += (next_hop(path, NodeId(9), &hops) == p) as u32;
        }
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
        assert!((9_500..10_500).contains(&same), "independent choices agree a quarter of the time: {same}");
    }

    #[test]
    fn keys_keep_every_field_apart() {
        let t = FiveTuple { src: NodeId(1), dst: NodeId(2), sport: 3, dport: 4 };
        let keys = [
            key(t),
            key(FiveTuple { src: NodeId(2), dst: NodeId(1), ..t }),
            key(FiveTuple { sport: 4, dport: 3, ..t }),
            key(FiveTuple { src: NodeId(1 << 20), ..t }),
        ];
        for i in 0..keys.len() {
            for j in 0..i {
                assert_ne!(keys[i], keys[j]);
            }
        }
    }
}
