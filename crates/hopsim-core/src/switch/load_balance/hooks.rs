//! The shape of a load-balancer plug-in: the [`LoadBalancerPolicy`] trait, the context its
//! hook receives ([`LbCx`]: the clock, the ports it may compare, the routes, the packets'
//! header fields, its timers) and what it gets at build time ([`LbBuild`]).
//!
//! A load balancer chooses, at every switch, the egress port of each packet among the
//! equal-cost next hops towards its destination (`LbCx::routing`). It keeps its own state
//! per switch in its own arrays (remembered choices, flowlet tables, congestion
//! registers), may use the clock, its own random stream per switch, and header fields it
//! registers (a path id, piggybacked feedback), and owns its scenario table
//! (`[routing.<name>]`).

use crate::engine::RngStream;
use crate::fabric::headers::{HeaderLayout, Headers};
use crate::fabric::packet::Packet;
use crate::fabric::port::Port;
use crate::fabric::timers::Timers;
use crate::ids::{NodeId, PortId};
use crate::scenario::error::ScenarioError;
use crate::time::SimTime;
use crate::topology::routing::Routing;
use crate::topology::Topology;

/// What a load balancer's hook may use besides its own state.
pub struct LbCx<'a> {
    pub now: SimTime,
    /// Every port (read: queue lengths, rates, whether a link is down).
    pub ports: &'a [Port],
    pub routing: &'a Routing,
    pub topo: &'a Topology,
    /// Header fields of the packets.
    pub headers: &'a mut Headers,
    /// The load-balancing family's timers.
    pub timers: Timers<'a>,
}

/// What a load balancer is built from.
pub struct LbBuild<'a> {
    pub topo: &'a Topology,
    /// Node id of each switch, in switch order.
    pub switches: &'a [NodeId],
    pub seed: u64,
    /// Where the policy registers the header fields its packets carry.
    pub headers: &'a mut HeaderLayout,
}

/// The leaves (ToRs) of a topology and their uplinks, numbered for balancers that keep state
/// per (source leaf, destination leaf, uplink): CONGA's congestion tables, Hermes's paths.
pub struct LeafUplinks {
    /// Per node: its leaf index, or `u32::MAX` for a switch that is not a ToR (and hosts).
    pub leaf_of_node: Vec<u32>,
    /// Per port: its index among its leaf's uplinks (ports not facing a host), or
    /// `u16::MAX` for every other port.
    pub uplink_of_port: Vec<u16>,
    /// Per host index: the leaf index of its ToR.
    pub leaf_of_host: Vec<u32>,
    /// Number of leaves.
    pub leaves: usize,
    /// Most uplinks of any leaf (at least 1).
    pub width: usize,
}

impl LbBuild<'_> {
    /// The topology's leaves and their uplinks (see [`LeafUplinks`]).
    pub fn leaf_uplinks(&self) -> LeafUplinks {
        let topo = self.topo;
        let mut leaf_of_node = vec![u32::MAX; topo.node_count()];
        let mut leaves = 0;
        for &n in self.switches {
            if topo.tiers[n.idx()] == crate::topology::Tier::Tor {
                leaf_of_node[n.idx()] = leaves;
                leaves += 1;
            }
        }
        let mut uplink_of_port = vec![u16::MAX; topo.ports.len()];
        let mut width = 1;
        for &n in self.switches {
            if leaf_of_node[n.idx()] == u32::MAX {
                continue;
            }
            let mut u = 0;
            for p in topo.ports_of(n) {
                if !topo.is_host(topo.ports[topo.ports[p as usize].peer.idx()].node) {
                    uplink_of_port[p as usize] = u;
                    u += 1;
                }
            }
            width = width.max(u as usize);
        }
        let leaf_of_host = topo.hosts.iter().map(|&h| leaf_of_node[topo.tor_of(h).idx()]).collect();
        LeafUplinks { leaf_of_node, uplink_of_port, leaf_of_host, leaves: leaves as usize, width }
    }

    /// One named random stream per switch (`switch/<node>/<component>`).
    pub fn switch_streams(&self, component: &str) -> Vec<RngStream> {
        self.switches
            .iter()
            .map(|n| crate::engine::rng_stream(self.seed, &format!("switch/{}/{component}", n.0)))
            .collect()
    }
}

/// A load balancer (`[routing] load_balancer = NAME`, its parameters in
/// `[routing.NAME]`).
pub trait LoadBalancerPolicy: Sized {
    /// The kind's name in scenarios.
    const NAME: &'static str;
    /// Its table, `[routing.NAME]` (all fields defaulted: the table may be left out).
    /// (`JsonSchema`: its fields appear in `hopsim schema` and docs/formats.md.)
    type Spec: Default + schemars::JsonSchema;
    /// Whether its hook is inlined into the event loop (ECMP's is; the others are called
    /// out of line, so runs that do not use them carry none of their code).
    const INLINE: bool = false;
    /// Whether it spreads one flow's packets over several paths as a matter of course (per
    /// packet), so they arrive out of order: a run with go-back-N recovery is warned.
    const REORDERS: bool = false;
    /// Whether a parallel run (`engine.threads`) may cut the network across it: its state
    /// kept per switch, its random draws from per-switch streams, its signals carried by
    /// packets. Set once a `tests/parallel.rs` case shows a partitioned run identical to
    /// one thread's; until then a parallel run refuses it by field.
    const PARTITIONS: bool = false;

    /// Check the table; errors name the field (`routing.NAME.<field>`).
    fn validate(_spec: &Self::Spec) -> Result<(), ScenarioError> {
        Ok(())
    }

    /// A one-line description for summaries; the kind's name by default.
    fn describe(_spec: &Self::Spec) -> String {
        Self::NAME.to_string()
    }

    /// The balancer at every switch.
    fn build(spec: &Self::Spec, b: &mut LbBuild) -> Self;

    /// The egress port switch `node` (switch index `sw`) uses for `pkt` (in slot `slot`);
    /// `PortId::NONE` when link failures left no route.
    fn select(&mut self, cx: &mut LbCx, node: NodeId, sw: usize, pkt: &Packet, slot: usize) -> PortId;

    /// A timer the balancer set fired.
    fn on_timer(&mut self, _cx: &mut LbCx, _target: u32) {}

    /// The balancer's own counters, by name (prefixed with the kind's name). A parallel run
    /// sums each over its partitions, but takes the largest of one named as a maximum
    /// (`<kind>_max_...`).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// What a run's description shows of the balancer: a label and one line; none by
    /// default.
    fn summary_line(&self) -> Option<(&'static str, String)> {
        None
    }

    /// A parallel run has ended: fold what another partition's balancer holds of the run
    /// as a whole (what [`summary_line`](Self::summary_line) reports) into this one, the
    /// first partition's, which then reports for the run. Nothing by default (a balancer
    /// without a summary line, or one whose line reads only its per-switch state of
    /// switches it does not own, which a `tests/parallel.rs` case would show).
    fn join_partition(&mut self, _other: &Self) {}
}
