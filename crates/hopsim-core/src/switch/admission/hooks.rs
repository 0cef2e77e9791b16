//! The shape of an admission / deflection plug-in: the buffer rule every lossy queue is
//! judged by ([`BufferRule`]), what a policy sees of an arriving packet ([`Arrival`]) and
//! of the switch ([`AdmCx`]), what it decides ([`Verdict`]), and the
//! [`DeflectionPolicy`] trait with what it gets at build time ([`AdmBuild`]).
//!
//! A policy decides for every packet that no lossless flow control vouched for: enqueue,
//! mark, deflect to another port, drop — or make room by taking queued packets out
//! ([`Verdict::MakeRoom`], Vertigo's surgery, carried out by the switch with the policy's
//! [`DeflectionPolicy::victims`] and [`DeflectionPolicy::deflection_port`]).

use serde::{Deserialize, Serialize};

use crate::engine::{pick_below, RngStream};
use crate::fabric::headers::{Field, Headers};
use crate::fabric::port::Port;
use crate::fabric::store::{PacketRef, PacketStore};
use crate::ids::{NodeId, PortId};
use crate::metrics::DropCause;
use crate::scenario::error::ScenarioError;
use crate::time::SimTime;
use crate::topology::Topology;

/// Occupancy of a switch's shared buffer (data packets, and ACKs queued with data).
#[derive(Clone, Debug, Default)]
pub struct SharedBuffer {
    pub used_bytes: u64,
    pub peak_bytes: u64,
}

/// Whether an egress queue may take a lossy packet (`[switch.admission]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferRule {
    /// A queue may hold up to `alpha × free buffer` (Choudhury & Hahne, 1998).
    DynamicThreshold { alpha: f64 },
    /// A port may hold up to this many bytes in all its data queues.
    StaticPerPort { bytes: u64 },
}

impl BufferRule {
    /// Would `queue` of `port` take `size` more bytes, with `used` of the switch's `buffer`
    /// bytes in use?
    #[inline]
    pub fn fits(&self, port: &Port, queue: usize, size: u64, used: u64, buffer: u64) -> bool {
        match *self {
            BufferRule::DynamicThreshold { alpha } => {
                let free = (buffer - used) as f64;
                (port.queues.queue_bytes(queue) + size) as f64 <= alpha * free
            }
            BufferRule::StaticPerPort { bytes } => port.backlog_bytes() + size <= bytes,
        }
    }

    /// The occupancy the rule limits: the queue's bytes (dynamic threshold) or the port's
    /// (static per port).
    #[inline]
    pub fn level(&self, port: &Port, queue: usize) -> u64 {
        match *self {
            BufferRule::DynamicThreshold { .. } => port.queues.queue_bytes(queue),
            BufferRule::StaticPerPort { .. } => port.backlog_bytes(),
        }
    }

    /// The limit on [`level`](Self::level) now (`Q` of the deflection paper's Eq. 1).
    #[inline]
    pub fn capacity(&self, used: u64, buffer: u64) -> u64 {
        match *self {
            BufferRule::DynamicThreshold { alpha } => (alpha * (buffer - used) as f64) as u64,
            BufferRule::StaticPerPort { bytes } => bytes,
        }
    }
}

/// What admission decided for a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with ECN Congestion Experienced set.
    Mark,
    /// Send it out of this port instead (re-admitted there).
    Deflect(PortId),
    Drop(DropCause),
    /// Vertigo: the queue is full; take out higher-ranked packets to make room, or
    /// deflect this one.
    MakeRoom,
}

/// Everything admission reads about the arriving packet and the switch.
pub struct Arrival<'a> {
    /// The switch (index).
    pub sw: usize,
    pub egress: PortId,
    pub queue: usize,
    pub size: u64,
    /// Shared buffer in use and its size.
    pub used: u64,
    pub buffer: u64,
    /// The packet's remaining hop limit (decremented here when a deflection policy keeps
    /// one).
    pub ttl: &'a mut u8,
    /// The packet's rank (0 unless the policy reads ranks).
    pub rank: u64,
    pub now: SimTime,
}

impl Arrival<'_> {
    /// Spend one hop of the packet's limit (every switch of a deflecting policy does, as
    /// DIBS decrements the IP TTL); `false` when the limit ran out.
    #[inline]
    pub fn spend_hop(&mut self) -> bool {
        *self.ttl = self.ttl.saturating_sub(1);
        *self.ttl != 0
    }
}

/// What a policy reads of the switch: the buffer rule and the ports.
pub struct AdmCx<'a> {
    pub rule: &'a BufferRule,
    pub ports: &'a [Port],
}

/// What Vertigo-style surgery reads: the ports and their queued packets with their ranks.
pub struct SurgeryCx<'a> {
    pub rule: &'a BufferRule,
    pub ports: &'a [Port],
    pub store: &'a PacketStore,
    pub headers: &'a Headers,
    /// The rank field.
    pub rank: Field,
}

/// What a policy is built from.
pub struct AdmBuild<'a> {
    pub topo: &'a Topology,
    /// Node id of each switch, in switch order.
    pub switches: &'a [NodeId],
    pub seed: u64,
}

impl AdmBuild<'_> {
    /// Each switch's ports towards another switch (the port a packet came in on included):
    /// where a packet can be deflected.
    pub fn switch_facing_ports(&self) -> Vec<Vec<PortId>> {
        let topo = self.topo;
        self.switches
            .iter()
            .map(|&n| {
                topo.ports_of(n)
                    .map(PortId)
                    .filter(|p| !topo.is_host(topo.ports[topo.ports[p.idx()].peer.idx()].node))
                    .collect()
            })
            .collect()
    }

    /// One named random stream per switch (`switch/<node>/<component>`).
    pub fn switch_streams(&self, component: &str) -> Vec<RngStream> {
        self.switches
            .iter()
            .map(|n| crate::engine::rng_stream(self.seed, &format!("switch/{}/{component}", n.0)))
            .collect()
    }

    /// Per switch: its first port id and its number of ports.
    pub fn ports_of(&self) -> Vec<(u32, u32)> {
        self.switches
            .iter()
            .map(|&n| {
                let r = self.topo.ports_of(n);
                (r.start, r.len() as u32)
            })
            .collect()
    }
}

/// The hop limit a deflection policy's packets leave their hosts with (`hop_limit`).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HopLimitSpec {
    /// Hop limit (IP TTL) packets leave their hosts with; every switch decrements it and
    /// drops the packet at 0. Default 250, as the practical-deflection paper's DIBS runs.
    #[serde(default = "default_hop_limit")]
    pub hop_limit: u32,
}

impl Default for HopLimitSpec {
    fn default() -> Self {
        HopLimitSpec { hop_limit: default_hop_limit() }
    }
}

pub(crate) fn default_hop_limit() -> u32 {
    250
}

/// Check a `hop_limit` field.
pub fn check_hop_limit(hop_limit: u32) -> Result<(), ScenarioError> {
    crate::scenario::error::check(
        (1..=255).contains(&hop_limit),
        "switch.deflection.hop_limit",
        format!("expected a hop limit from 1 to 255, got {hop_limit}"),
    )
}

/// An admission / deflection policy (`[switch.deflection] kind = NAME`).
pub trait DeflectionPolicy: Sized {
    /// The kind's name in scenarios.
    const NAME: &'static str;

    /// A one-line description for summaries; the kind's name by default.
    fn describe(_spec: &Self::Spec) -> String {
        Self::NAME.to_string()
    }
    /// Its table (the fields of `[switch.deflection]` beside `kind`).
    /// (`JsonSchema`: its fields appear in `hopsim schema` and docs/formats.md.)
    type Spec: schemars::JsonSchema;
    /// Whether its hook is inlined into the event loop (drop-tail's is).
    const INLINE: bool = false;
    /// Whether it reads packet ranks (senders then write them).
    const READS_RANK: bool = false;
    /// Whether every switch queue serves the lowest rank first (Vertigo's SRPT queues).
    const RANK_ORDERED: bool = false;
    /// Whether a parallel run (`engine.threads`) may cut the network across it: its state
    /// and random draws kept per switch. Set once a `tests/parallel.rs` case shows a
    /// partitioned run identical to one thread's; until then a parallel run refuses it by
    /// field.
    const PARTITIONS: bool = false;

    /// Check the table; errors name the field (`switch.deflection.<field>`).
    fn validate(_spec: &Self::Spec) -> Result<(), ScenarioError> {
        Ok(())
    }

    /// The hop limit packets leave their hosts with: 64 (a common IP TTL) unless the
    /// policy deflects.
    fn hop_limit(_spec: &Self::Spec) -> u8 {
        64
    }

    /// The policy at every switch.
    fn build(spec: &Self::Spec, b: &mut AdmBuild) -> Self;

    /// Decide for lossy packet `a`; `fits`: whether its queue takes it by the buffer rule.
    fn admit(&mut self, cx: &AdmCx, a: &mut Arrival, fits: bool) -> Verdict;

    /// After [`Verdict::MakeRoom`]: the queued packets of `queue` at `port` to take out so
    /// that `arriving` (of rank `rank`, `size` bytes) fits, or `None` if it cannot have
    /// them.
    #[allow(clippy::too_many_arguments)]
    fn victims(
        &self,
        _cx: &SurgeryCx,
        _port: PortId,
        _queue: usize,
        _rank: u64,
        _size: u64,
        _used: u64,
        _buffer: u64,
    ) -> Option<Vec<PacketRef>> {
        None
    }

    /// After [`Verdict::MakeRoom`]: where switch `sw` deflects a packet taken out (or the
    /// arriving one).
    fn deflection_port(&mut self, _cx: &AdmCx, _sw: usize, _queue: usize) -> Option<PortId> {
        None
    }
}

/// Two distinct ports drawn uniformly from `candidates` (one if there is one, none if
/// there are none).
pub(crate) fn pick_two(rng: &mut RngStream, candidates: &[PortId]) -> (Option<PortId>, Option<PortId>) {
    match candidates.len() {
        0 => (None, None),
        1 => (Some(candidates[0]), None),
        n => {
            let i = pick_below(rng, n);
            let j = (i + 1 + pick_below(rng, n - 1)) % n;
            (Some(candidates[i]), Some(candidates[j]))
        }
    }
}

/// Drop-tail's verdict: enqueue if the queue takes it, else drop.
#[inline(always)]
pub fn drop_tail(fits: bool) -> Verdict {
    if fits {
        Verdict::Enqueue
    } else {
        Verdict::Drop(DropCause::EgressAdmission)
    }
}
