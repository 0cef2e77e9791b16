//! Proteus (Hu et al., "Load Balancing With Multi-Level Signals for Lossless Datacenter
//! Networks", IEEE/ACM ToN 2024, §III–IV): PFC-aware load balancing in two levels.
//!
//! - **RTT-level signals at the edge** (§III-A-1, §IV-C). The destination ToR measures, per
//!   (source ToR, path), the one-way delay of the data packets and the utilisation of the
//!   path's last link over a window of about an RTT, and piggybacks one (path, delay,
//!   utilisation) entry on each packet going back to that source ToR (ACKs, CNPs, data),
//!   round robin over the window's entries. The source ToR classes each path (Table II):
//!   *non-congested* (delay below `RTT_low` = `rtt_low_factor` × the pair's base one-way
//!   delay), *undetermined* (above `RTT_low`, utilisation below `full_utilisation`: PFC
//!   pausing) or *congested* (above `RTT_low`, full).
//! - **Algorithm 1 at the source ToR**: a new flow takes the non-congested path with the
//!   least delay, else the undetermined one with the most utilisation, else the congested
//!   one with the least delay. A flow already placed moves only to a path whose delay is
//!   lower than its current one by less than the gap since its previous packet, so that
//!   the packet does not overtake its predecessor. The packet carries (source routing) its path
//!   id, up to `alternatives` alternative path ids in the same order of preference, and
//!   its tolerable delay `t_td` = delay(first alternative) − delay(chosen path).
//! - **Algorithm 2 at every switch with a choice**: when the packet's egress (its path's
//!   next hop) has the packet's traffic class paused by flow control, the switch predicts
//!   the least queuing delay `t_qd` the packet faces there; if `t_td > t_qd` it waits
//!   (enqueues), else it moves to the first alternative path reachable from here and the
//!   paused egress is kicked out at this switch until it resumes ("better late than
//!   never", §III-C). With no usable alternative the packet stays.
//!
//! Choices where the paper is silent (all in docs/model.md, "Proteus"):
//! - **Paths.** A path id is the sequence of upward choices, as a mixed-radix number: at
//!   each switch with `n > 1` equal-cost next hops the digit `(id / r) % n` picks the hop,
//!   where `r` (carried in the packet) is the product of the radices used so far. In a
//!   leaf-spine the id is the spine; in a 3-tier fat-tree it is (aggregation, core). The
//!   source ToR counts a pair's paths by walking the first next hop of each level. A path
//!   id is reachable from a switch when its digits used so far agree with the packet's.
//! - **Measurement.** Delay: the mean, over the window, of (arrival at the destination ToR
//!   − arrival at the source ToR) of the pair's data packets on the path; the source ToR
//!   stamps its arrival time. Utilisation: bytes that arrived over the path's last link
//!   (from any source) in the window over what the link carries in that time. Windows
//!   close lazily when a packet reaches the destination ToR after `window` (no timer
//!   events). Entries at the source ToR older than `state_aging` are forgotten (a path no
//!   flow uses gets no feedback, so a stale "congested" would last for ever); a path with
//!   no entry counts as idle: base delay, utilisation 0. Base delay: the sum over the
//!   path's links of propagation, pipeline latency and the packet's own serialisation.
//! - **Order bound** (`order_bound`). Window-mean delays are stale and averaged: the
//!   paper's test alone lets packets overtake under load (tested). By default a move also
//!   needs the previous packet's worst delay — what was queued ahead of it at this ToR plus
//!   the larger of its path's largest delay in the last window and `RTT_low` — less the
//!   base delay to be below the gap, and no move while the current egress is paused.
//! - **Ties** among equal delays (idle paths) are broken by a rotation given by the flow's
//!   hash, so that new flows spread as with ECMP until feedback arrives.
//! - **`t_qd`**: the bytes queued ahead of the packet in its class's queue at the egress
//!   over the link rate — the least it waits even if the pause ended at once. A long pause
//!   fills the queue, so `t_qd` grows with it. The decision is taken once, on arrival:
//!   a packet that waits is not reconsidered.
//! - **`t_td`** loses, at each switch, the packet's sojourn there: the next switch
//!   computes (arrival − enqueue time at the previous switch − the previous link's
//!   serialisation, propagation and pipeline latency). A rerouted packet's `t_td` is 0 (it
//!   spent its tolerance): at a further paused hop it moves on at once if it can.
//! - **Kick-out** is per (switch, egress port): while kicked and still paused, packets of
//!   any path through it reroute without waiting; the first packet that sees it resumed
//!   clears it. At the source ToR a kicked path is not active for Algorithm 1.
//! - **Pause state**: the packet's traffic class queue (`priority`) at the egress, as PFC
//!   pauses it. Per-flow flow controls (BFC, Pyrrha's isolation queues) pause other queues,
//!   which Proteus does not see (it runs before the flow control classifies the packet).
//! - **Flow table**: exact per 5-tuple (the paper hashes to 16 bits); entries idle longer
//!   than `flow_aging` are dropped, and the flow's next packet is placed as a new flow.
//! - **Header overhead**: the 9-byte extension of §IV-A is carried as header fields but
//!   not added to the packet's wire bytes (0.9 % of a 1 KB packet; no load balancer here
//!   counts its metadata).
//!
//! Only data packets are balanced; ACKs, NACKs and CNPs follow ECMP (as DRILL and LetFlow
//! here) but carry feedback. Traffic between hosts of one ToR is not balanced.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;

use serde::{Deserialize, Serialize};

use super::hooks::{LbBuild, LbCx, LoadBalancerPolicy};
use crate::fabric::headers::Field;
use crate::fabric::packet::{Packet, PacketKind};
use crate::fabric::port::Port;
use crate::ids::{NodeId, PortId};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::Duration;
use crate::time::{Delta, SimTime, PS_PER_NS};
use crate::topology::routing::{mix64, routing_tuple, FiveTuple, Routing};

type Hasher = BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// Most alternative path ids a packet carries (four 16-bit ids fill one header word).
pub const MAX_ALTERNATIVES: u32 = 4;

/// `[routing.proteus]`.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProteusSpec {
    /// `RTT_low` as a multiple of a pair's base one-way delay: below it a path is
    /// non-congested. Default 1.3, the middle of the paper's 1.2–1.4 (§III-A-1, after
    /// Hermes).
    #[serde(default = "default_rtt_low")]
    pub rtt_low_factor: f64,
    /// Utilisation (0–1] from which a path above `RTT_low` counts as fully utilised
    /// (congested) rather than paused (undetermined). Table II says "= 1"; measured over a
    /// short window a busy link reads a little below 1. Default 0.9 (our choice,
    /// docs/model.md).
    #[serde(default = "default_full")]
    pub full_utilisation: f64,
    /// Measurement window at the destination ToR ("a certain period (e.g., RTT)", §IV-C).
    /// Default 10 µs (our choice): one to two base RTTs of this project's default
    /// leaf-spines (base delay ToR to ToR about 2.2 µs at 100 Gb/s).
    #[serde(default = "default_window")]
    pub window: Duration,
    /// Age after which a path's fed-back state is forgotten at the source ToR (the path
    /// counts as idle again). Default 100 µs, ten windows (our choice; the paper is
    /// silent).
    #[serde(default = "default_state_aging")]
    pub state_aging: Duration,
    /// Idle time after which a flow's entry leaves the source ToR's flow table (its next
    /// packet is placed as a new flow). Default 1 ms (our choice: only bounds memory).
    #[serde(default = "default_flow_aging")]
    pub flow_aging: Duration,
    /// Alternative path ids each packet carries for rerouting at paused hops (0 turns
    /// Algorithm 2 off). Default 3 (§III-B-2, §IV-A); at most 4.
    #[serde(default = "default_alternatives")]
    pub alternatives: u32,
    /// How Algorithm 1 makes sure a moved flow's packet does not overtake its predecessor:
    /// `"worst_case"` (default, our choice) or `"measured"` (the paper's comparison of
    /// measured delays alone, which window averages make fallible; docs/model.md).
    #[serde(default)]
    pub order_bound: OrderBound,
}

/// Algorithm 1's ordering condition for a flow moving to a faster path p' (lines 6–7:
/// `0 < d(p) − d(p') < gap since the flow's previous packet`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OrderBound {
    /// The paper's condition, and also: the previous packet's worst delay (the queue ahead
    /// of it at this ToR, plus the largest delay fed back for its path in the last window)
    /// less p''s base delay is below the gap; no move while the current path's egress here
    /// is paused.
    #[default]
    WorstCase,
    /// The paper's condition on the fed-back (window-mean) delays alone.
    Measured,
}

impl Default for ProteusSpec {
    fn default() -> Self {
        ProteusSpec {
            rtt_low_factor: default_rtt_low(),
            full_utilisation: default_full(),
            window: default_window(),
            state_aging: default_state_aging(),
            flow_aging: default_flow_aging(),
            alternatives: default_alternatives(),
            order_bound: OrderBound::WorstCase,
        }
    }
}

fn default_rtt_low() -> f64 {
    1.3
}
fn default_full() -> f64 {
    0.9
}
fn default_window() -> Duration {
    Duration::us(10)
}
fn default_state_aging() -> Duration {
    Duration::us(100)
}
fn default_flow_aging() -> Duration {
    Duration::us(1_000)
}
fn default_alternatives() -> u32 {
    3
}

/// Table II's path classes, in Algorithm 1's order of preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PathClass {
    NonCongested = 0,
    Undetermined = 1,
    Congested = 2,
}

/// Table II: the class of a path with one-way delay `delay` and utilisation `util`.
pub fn classify(delay: Delta, util: f64, rtt_low: Delta, full: f64) -> PathClass {
    if delay < rtt_low {
        PathClass::NonCongested
    } else if util >= full {
        PathClass::Congested
    } else {
        PathClass::Undetermined
    }
}

/// What a source ToR knows of one path towards one destination ToR.
#[derive(Clone, Copy, Debug, Default)]
struct PathView {
    delay_ns: u32,
    /// Largest delay of the window.
    max_ns: u32,
    /// Per mille.
    util: u16,
    /// When the entry arrived (`None`: never).
    at: Option<SimTime>,
}

/// The paths from one source ToR to one destination ToR.
#[derive(Clone, Debug)]
struct Pair {
    /// Number of path ids.
    paths: u32,
    /// Sum of the links' propagation and pipeline latency, and their byte times (for the
    /// packet's own serialisation), along the path of digit 0.
    latency: Delta,
    links: Vec<PortId>,
    /// The source ToR's view, per path id.
    view: Vec<PathView>,
}

/// A destination ToR's measurement of one path of one source ToR in the current window.
#[derive(Clone, Copy, Debug, Default)]
struct Acc {
    sum_ns: u64,
    max_ns: u32,
    packets: u32,
    /// The path's last link (the port into the destination ToR).
    link: PortId,
}

/// Feedback entry: path id, mean delay (ns), utilisation (per mille).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    path: u16,
    delay_ns: u32,
    util: u16,
    /// Largest delay (carried in its own field).
    max_ns: u32,
}

/// A destination ToR's measurement of one source ToR.
#[derive(Clone, Debug, Default)]
struct Measure {
    acc: BTreeMap<u16, Acc>,
    /// The last closed window's entries, piggybacked round robin.
    feedback: Vec<Entry>,
    next: usize,
}

/// A destination ToR's window.
#[derive(Clone, Debug, Default)]
struct Window {
    start: SimTime,
    /// Source ToRs measured in this window, and those holding feedback from the last.
    sources: Vec<u32>,
    fed: Vec<u32>,
    /// Links into this ToR that carried bytes in this window.
    links: Vec<PortId>,
}

/// A flow at its source ToR.
#[derive(Clone, Copy, Debug)]
struct FlowEntry {
    path: u16,
    /// Alternative ids + 1 (0: none), 16 bits each, first in the low bits.
    alts: u64,
    last: SimTime,
    /// What was queued ahead of the last packet at its egress here (drain time).
    ahead: Delta,
}

/// Header fields of a Proteus packet.
#[derive(Clone, Copy, Debug)]
struct Fields {
    /// Path id (16 bits; §IV-A uses 12).
    path: Field,
    /// Product of the radices used so far (0: not a Proteus-routed packet).
    radix: Field,
    /// Arrival at the source ToR, ns modulo 2^32.
    stamp: Field,
    /// Alternatives: 4 × 16 bits (id + 1).
    alts: Field,
    /// Tolerable delay left, ns (§IV-A: 24 bits).
    ttd: Field,
    /// Egress port at the previous switch + 1 (0: came from a host).
    prev: Field,
    /// Piggybacked feedback: valid (1) | path (16) | util (11) | delay ns (32).
    feedback: Field,
    /// The feedback entry's largest delay, ns.
    feedback_max: Field,
}

fn pack(e: Entry) -> u64 {
    1 | (e.path as u64) << 1 | ((e.util as u64) & 0x7ff) << 17 | (e.delay_ns as u64) << 28
}

fn unpack(v: u64) -> Option<Entry> {
    (v & 1 == 1).then_some(Entry {
        path: (v >> 1) as u16,
        util: ((v >> 17) & 0x7ff) as u16,
        delay_ns: (v >> 28) as u32,
        max_ns: 0,
    })
}

/// Alternative ids from the packed word.
fn alts_of(packed: u64) -> impl Iterator<Item = u16> {
    (0..MAX_ALTERNATIVES).map_while(move |i| match (packed >> (16 * i)) & 0xffff {
        0 => None,
        a => Some((a - 1) as u16),
    })
}

fn pack_alts(alts: &[u16]) -> u64 {
    alts.iter().enumerate().fold(0, |w, (i, &a)| w | ((a as u64 + 1) << (16 * i)))
}

fn key(t: FiveTuple) -> u128 {
    ((t.src.0 as u128) << 64) | ((t.dst.0 as u128) << 32) | ((t.sport as u128) << 16) | t.dport as u128
}

fn ns(d: Delta) -> u64 {
    d.0 / PS_PER_NS
}

/// Whether `class` is paused at `port`.
#[inline]
fn paused(port: &Port, class: usize) -> bool {
    class < port.queues.len() && port.queues.is_paused(class)
}

/// What Algorithm 2 decided at a paused egress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Not paused (or nothing to decide).
    Go,
    /// Paused, `t_td > t_qd`: wait in the queue.
    Wait,
    /// Paused and out of tolerance (or kicked out): move to the alternative at index `alt`
    /// of the packet's list, whose egress here is `to`; `kicked_now`: this packet kicked
    /// the paused egress out (it was not already).
    Reroute { alt: usize, to: PortId, kicked_now: bool },
    /// Paused and out of tolerance, but no alternative is usable here.
    Stay,
}

/// Algorithm 2 at a switch with next hops `hops` (more than one) for a packet of traffic
/// class `class` on path `path` (radix so far `radix`) with tolerable delay `ttd` left and
/// alternatives `alts`. `kicked` is the kick-out state per port (updated: a resumed egress
/// is let back, a rerouting packet kicks its paused egress out).
#[allow(clippy::too_many_arguments)]
fn algorithm2(
    ports: &[Port],
    kicked: &mut [bool],
    hops: &[PortId],
    class: usize,
    path: u64,
    radix: u64,
    ttd: Delta,
    alts: &[u16],
) -> Decision {
    let n = hops.len() as u64;
    let egress = hops[((path / radix) % n) as usize];
    let port = &ports[egress.idx()];
    let is_paused = paused(port, class);
    if !is_paused {
        kicked[egress.idx()] = false;
        return Decision::Go;
    }
    if !kicked[egress.idx()] {
        // The least queuing delay: what is queued ahead drains at line rate.
        let t_qd = port.byte_time.tx_time(port.queues.queue_bytes(class));
        if ttd > t_qd {
            return Decision::Wait;
        }
    }
    let reachable = |a: u64| a % radix == path % radix;
    for (i, &a) in alts.iter().enumerate() {
        let a = a as u64;
        if !reachable(a) {
            continue;
        }
        let e = hops[((a / radix) % n) as usize];
        if e != egress && !paused(&ports[e.idx()], class) {
            let kicked_now = !kicked[egress.idx()];
            kicked[egress.idx()] = true;
            return Decision::Reroute { alt: i, to: e, kicked_now };
        }
    }
    Decision::Stay
}

/// Proteus at every switch (its state boxed: the balancer enum stays small).
#[derive(Clone, Debug)]
pub struct Proteus(Box<State>);

/// Proteus's state at every switch.
#[derive(Clone, Debug)]
struct State {
    rtt_low_factor: f64,
    full: f64,
    window: Delta,
    state_aging: Delta,
    flow_aging: Delta,
    alternatives: usize,
    order_bound: OrderBound,
    tor_of_host: Vec<NodeId>,
    host_index: Vec<u32>,
    f: Fields,
    /// Per (source ToR, destination ToR).
    pairs: HashMap<u64, Pair, Hasher>,
    /// Per (destination ToR, source ToR).
    measures: HashMap<u64, Measure, Hasher>,
    /// Per destination ToR.
    windows: HashMap<u32, Window, Hasher>,
    /// Per port: bytes that arrived over it at the destination ToR in the current window.
    link_bytes: Vec<u64>,
    /// Per port: kicked out at its switch (Algorithm 2).
    kicked: Vec<bool>,
    flows: HashMap<u128, FlowEntry, Hasher>,
    next_sweep: SimTime,
    /// Reused candidate list.
    ranked: Vec<(PathClass, u64, u32, u16)>,
    // Counters.
    new_flows: u64,
    source_reroutes: u64,
    pause_reroutes: u64,
    kickouts: u64,
    stays: u64,
    feedback_sent: u64,
    feedback_applied: u64,
}

fn pair_key(a: NodeId, b: NodeId) -> u64 {
    (a.0 as u64) << 32 | b.0 as u64
}

impl State {
    fn tor(&self, host: NodeId) -> NodeId {
        self.tor_of_host[self.host_index[host.idx()] as usize]
    }

    /// The paths from source ToR `s` towards host `dst` (under ToR `d`).
    fn pair<'a>(
        pairs: &'a mut HashMap<u64, Pair, Hasher>,
        routing: &Routing,
        ports: &[Port],
        s: NodeId,
        d: NodeId,
        dst: NodeId,
    ) -> &'a mut Pair {
        pairs.entry(pair_key(s, d)).or_insert_with(|| {
            let mut paths = 1u64;
            let mut latency = Delta::ZERO;
            let mut links = Vec::new();
            let mut node = s;
            // Walk the digit-0 path down to the destination ToR (bounded by the diameter).
            for _ in 0..64 {
                if node == d {
                    break;
                }
                let hops = routing.table.next_hops(node, dst);
                let Some(&first) = hops.first() else { break };
                paths = (paths * hops.len() as u64).min(u16::MAX as u64);
                latency += ports[first.idx()].arrival_delay;
                links.push(first);
                node = ports[ports[first.idx()].peer.idx()].node;
            }
            let paths = if links.is_empty() { 0 } else { paths as u32 };
            Pair { paths, latency, links, view: vec![PathView::default(); paths as usize] }
        })
    }

    /// Base one-way delay of a `bytes`-byte packet over `pair`.
    fn base(pair: &Pair, ports: &[Port], bytes: u64) -> Delta {
        pair.links.iter().fold(pair.latency, |d, l| d + ports[l.idx()].byte_time.tx_time(bytes))
    }

    /// The destination ToR `d`: close its window if due, then account the data packet in
    /// `slot` from source ToR `s`.
    fn measure(&mut self, cx: &mut LbCx, d: NodeId, s: NodeId, pkt: &Packet, slot: usize) {
        self.close_window(cx, d);
        let f = self.f;
        if cx.headers.get(slot, f.radix) == 0 {
            return;
        }
        let delay_ns = cx.now.as_ns_wrapping().wrapping_sub(cx.headers.get(slot, f.stamp) as u32);
        let path = cx.headers.get(slot, f.path) as u16;
        let prev = cx.headers.get(slot, f.prev);
        let link = if prev == 0 { PortId::NONE } else { PortId((prev - 1) as u32) };
        let w = self.windows.get_mut(&d.0).expect("opened by close_window");
        if link != PortId::NONE {
            if self.link_bytes[link.idx()] == 0 {
                w.links.push(link);
            }
            self.link_bytes[link.idx()] += pkt.wire_bytes as u64;
        }
        let m = self.measures.entry(pair_key(d, s)).or_default();
        if m.acc.is_empty() {
            w.sources.push(s.0);
        }
        let a = m.acc.entry(path).or_default();
        a.sum_ns += delay_ns as u64;
        a.max_ns = a.max_ns.max(delay_ns);
        a.packets += 1;
        a.link = link;
    }

    /// Close destination ToR `d`'s window if `window` has passed: its entries become the
    /// feedback to piggyback.
    fn close_window(&mut self, cx: &LbCx, d: NodeId) {
        let now = cx.now;
        let w = self.windows.entry(d.0).or_insert_with(|| Window { start: now, ..Window::default() });
        if now.since(w.start) < self.window {
            return;
        }
        let elapsed = now.since(w.start);
        for s in w.fed.drain(..) {
            if let Some(m) = self.measures.get_mut(&pair_key(d, NodeId(s))) {
                m.feedback.clear();
            }
        }
        for &s in &w.sources {
            let m = self.measures.get_mut(&pair_key(d, NodeId(s))).expect("measured");
            m.feedback.clear();
            m.next = 0;
            for (&path, a) in &m.acc {
                let util = if a.link == PortId::NONE {
                    0
                } else {
                    let busy = cx.ports[a.link.idx()].byte_time.tx_time(self.link_bytes[a.link.idx()]);
                    ((busy.0 as u128 * 1000 / elapsed.0.max(1) as u128).min(1000)) as u16
                };
                let delay_ns = (a.sum_ns / a.packets.max(1) as u64).min(u32::MAX as u64) as u32;
                m.feedback.push(Entry { path, delay_ns, util, max_ns: a.max_ns });
            }
            m.acc.clear();
        }
        w.fed = std::mem::take(&mut w.sources);
        for l in w.links.drain(..) {
            self.link_bytes[l.idx()] = 0;
        }
        w.start = now;
    }

    /// Source ToR `s` of a packet towards ToR `d`: piggyback the next feedback entry `s`
    /// holds for `d` (or clear the field).
    fn piggyback(&mut self, cx: &mut LbCx, s: NodeId, d: NodeId, slot: usize) {
        let (value, max) = match self.measures.get_mut(&pair_key(s, d)) {
            Some(m) if !m.feedback.is_empty() => {
                let e = m.feedback[m.next % m.feedback.len()];
                m.next = (m.next + 1) % m.feedback.len();
                self.feedback_sent += 1;
                (pack(e), e.max_ns)
            }
            _ => (0, 0),
        };
        cx.headers.set(slot, self.f.feedback, value);
        cx.headers.set(slot, self.f.feedback_max, max as u64);
    }

    /// Destination ToR `d` of a packet from ToR `s`: apply the feedback it carries.
    fn apply_feedback(&mut self, cx: &mut LbCx, d: NodeId, s: NodeId, pkt: &Packet, slot: usize) {
        let Some(e) = unpack(cx.headers.get(slot, self.f.feedback)) else { return };
        let max_ns = cx.headers.get(slot, self.f.feedback_max) as u32;
        // The feedback is about paths from `d` (the measured pair's source) to `s`.
        let pair = Self::pair(&mut self.pairs, cx.routing, cx.ports, d, s, pkt.src);
        if let Some(v) = pair.view.get_mut(e.path as usize) {
            *v = PathView { delay_ns: e.delay_ns, max_ns, util: e.util, at: Some(cx.now) };
            self.feedback_applied += 1;
        }
    }

    /// Algorithm 1 at source ToR `s` for the data packet in `slot`: choose its path,
    /// alternatives and tolerable delay and write them in its header.
    fn place(&mut self, cx: &mut LbCx, s: NodeId, d: NodeId, pkt: &Packet, slot: usize) -> bool {
        let now = cx.now;
        if now >= self.next_sweep {
            let aging = self.flow_aging;
            self.flows.retain(|_, e| now.since(e.last) <= aging);
            self.next_sweep = now + aging;
        }
        let tuple = routing_tuple(pkt);
        let (rtt_low_factor, full, state_aging) = (self.rtt_low_factor, self.full, self.state_aging);
        let pair = Self::pair(&mut self.pairs, cx.routing, cx.ports, s, d, tuple.dst);
        if pair.paths == 0 {
            return false;
        }
        let base = Self::base(pair, cx.ports, pkt.wire_bytes as u64);
        let rtt_low = Delta((base.0 as f64 * rtt_low_factor) as u64);
        let hops = cx.routing.table.next_hops(s, tuple.dst);
        let n0 = hops.len().max(1) as u64;
        let class = pkt.priority as usize;
        let rotate = mix64(key(tuple) as u64 ^ (key(tuple) >> 64) as u64) % pair.paths as u64;
        // Every path with its class, delay, and utilisation.
        self.ranked.clear();
        for p in 0..pair.paths {
            let v = &mut pair.view[p as usize];
            if v.at.is_some_and(|at| now.since(at) > state_aging) {
                *v = PathView::default();
            }
            let (delay, util) = match v.at {
                Some(_) => (Delta(v.delay_ns as u64 * PS_PER_NS), v.util),
                None => (base, 0),
            };
            let e = hops[(p as u64 % n0) as usize];
            let active = !(self.kicked[e.idx()] && paused(&cx.ports[e.idx()], class));
            if !active {
                continue;
            }
            let c = classify(delay, util as f64 / 1000.0, rtt_low, full);
            self.ranked.push((c, delay.0, util as u32, p as u16));
        }
        let n = pair.paths as u64;
        let order = |&(c, delay, util, p): &(PathClass, u64, u32, u16)| {
            let tie = (p as u64 + n - rotate) % n;
            match c {
                PathClass::Undetermined => (c, u64::MAX - util as u64, tie),
                _ => (c, delay, tie),
            }
        };
        self.ranked.sort_by_key(order);
        let delay_of =
            |ranked: &[(PathClass, u64, u32, u16)], p: u16| ranked.iter().find(|r| r.3 == p).map(|r| r.1);
        let entry = self.flows.get(&key(tuple)).copied();
        let chosen = match entry {
            None => {
                self.new_flows += 1;
                self.ranked.first().map(|r| r.3)
            }
            Some(e) => {
                let gap = now.since(e.last).0;
                let current = delay_of(&self.ranked, e.path);
                // The previous packet's worst delay: the queue ahead of it here plus the
                // largest delay of its path's last window, and at least `RTT_low` (what a
                // non-congested path may take); a packet on p' takes at least the base
                // delay. While the path's egress here is paused, no bound holds.
                let cur_egress = hops[(e.path as u64 % n0) as usize];
                let safe = match self.order_bound {
                    OrderBound::Measured => true,
                    OrderBound::WorstCase => !paused(&cx.ports[cur_egress.idx()], class),
                };
                let worst = {
                    let v = pair.view.get(e.path as usize).copied().unwrap_or_default();
                    let max = if v.at.is_some() { Delta(v.max_ns as u64 * PS_PER_NS) } else { base };
                    (e.ahead + max.max(rtt_low)).0.saturating_sub(base.0)
                };
                let bounded = |_r: &(PathClass, u64, u32, u16)| match self.order_bound {
                    OrderBound::Measured => true,
                    OrderBound::WorstCase => worst < gap,
                };
                // Paths faster than the current one by less than the gap (Algorithm 1,
                // lines 6–7); the ranking keeps their order of preference. A kicked-out
                // current path (no delay: inactive) lets any path be chosen.
                let better = self.ranked.iter().find(|r| match current {
                    Some(cd) => safe && r.1 < cd && cd - r.1 < gap && bounded(r),
                    None => true,
                });
                match better {
                    Some(r) if r.3 != e.path => {
                        self.source_reroutes += 1;
                        Some(r.3)
                    }
                    _ => None,
                }
            }
        };
        let (path, alts) = match (chosen, entry) {
            (Some(p), _) => {
                let alts: Vec<u16> =
                    self.ranked.iter().map(|r| r.3).filter(|&a| a != p).take(self.alternatives).collect();
                (p, pack_alts(&alts))
            }
            (None, Some(e)) => (e.path, e.alts),
            (None, None) => (0, 0), // every path kicked out: path 0, no alternative
        };
        let egress = &cx.ports[hops[(path as u64 % n0) as usize].idx()];
        let ahead = if class < egress.queues.len() {
            egress.byte_time.tx_time(egress.queues.queue_bytes(class))
        } else {
            Delta::ZERO
        };
        self.flows.insert(key(tuple), FlowEntry { path, alts, last: now, ahead });
        let ttd = match (alts_of(alts).next(), delay_of(&self.ranked, path)) {
            (Some(a), Some(d)) => delay_of(&self.ranked, a).map_or(0, |da| da.saturating_sub(d)),
            (Some(_), None) => 0,
            (None, _) => u64::MAX,
        };
        let f = self.f;
        cx.headers.set(slot, f.path, path as u64);
        cx.headers.set(slot, f.alts, alts);
        cx.headers.set(slot, f.radix, 1);
        cx.headers.set(slot, f.stamp, now.as_ns_wrapping() as u64);
        cx.headers.set(slot, f.ttd, (ttd / PS_PER_NS).min(u32::MAX as u64));
        cx.headers.set(slot, f.prev, 0);
        true
    }

    /// Follow the packet's path at `node`, with Algorithm 2 where it has a choice.
    fn forward(&mut self, cx: &mut LbCx, node: NodeId, pkt: &Packet, slot: usize) -> PortId {
        let f = self.f;
        let h = &mut *cx.headers;
        let mut ttd = Delta(h.get(slot, f.ttd) * PS_PER_NS);
        let prev = h.get(slot, f.prev);
        if prev != 0 {
            // The sojourn at the previous switch: arrival here less its enqueue time and
            // the link's serialisation, propagation and pipeline latency.
            let p = &cx.ports[(prev - 1) as usize];
            let link = ns(p.arrival_delay + p.byte_time.tx_time(pkt.wire_bytes as u64));
            let since = cx.now.as_ns_wrapping().wrapping_sub(pkt.enq_ns) as u64;
            ttd = Delta(ttd.0.saturating_sub(since.saturating_sub(link) * PS_PER_NS));
        }
        let hops = cx.routing.table.next_hops(node, pkt.dst);
        let mut path = h.get(slot, f.path);
        let radix = h.get(slot, f.radix).max(1);
        let egress = match hops.len() {
            0 => return PortId::NONE,
            1 => hops[0],
            n => {
                let mut buf = [0u16; MAX_ALTERNATIVES as usize];
                let mut len = 0;
                for a in alts_of(h.get(slot, f.alts)) {
                    buf[len] = a;
                    len += 1;
                }
                let alts = &buf[..len];
                let class = pkt.priority as usize;
                let mut e = hops[((path / radix) % n as u64) as usize];
                if self.alternatives > 0 {
                    match algorithm2(cx.ports, &mut self.kicked, hops, class, path, radix, ttd, alts) {
                        Decision::Reroute { alt: i, to, kicked_now } => {
                            self.kickouts += kicked_now as u64;
                            self.pause_reroutes += 1;
                            path = alts[i] as u64;
                            h.set(slot, f.path, path);
                            h.set(slot, f.alts, pack_alts(&alts[i + 1..]));
                            ttd = Delta::ZERO;
                            e = to;
                        }
                        Decision::Stay => self.stays += 1,
                        Decision::Go | Decision::Wait => {}
                    }
                }
                h.set(slot, f.radix, (radix * n as u64).min(u32::MAX as u64));
                e
            }
        };
        h.set(slot, f.ttd, ns(ttd).min(u32::MAX as u64));
        h.set(slot, f.prev, egress.0 as u64 + 1);
        egress
    }
}

impl LoadBalancerPolicy for Proteus {
    const NAME: &'static str = "proteus";
    type Spec = ProteusSpec;
    /// Path tables and pause views are per switch; the feedback is piggybacked in packets'
    /// header rows, which cross the cut with them (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(spec: &ProteusSpec) -> Result<(), ScenarioError> {
        check(
            (1.0..=10.0).contains(&spec.rtt_low_factor),
            "routing.proteus.rtt_low_factor",
            format!(
                "expected a multiple of the base one-way delay from 1 to 10 (the paper uses 1.2 to 1.4), got {}",
                spec.rtt_low_factor
            ),
        )?;
        check(
            spec.full_utilisation > 0.0 && spec.full_utilisation <= 1.0,
            "routing.proteus.full_utilisation",
            format!("expected a utilisation in (0, 1], got {}", spec.full_utilisation),
        )?;
        check(
            spec.window.0 > Delta::ZERO,
            "routing.proteus.window",
            "expected a positive duration (the measurement window, about an RTT)",
        )?;
        check(
            spec.state_aging.0 >= spec.window.0,
            "routing.proteus.state_aging",
            format!(
                "expected at least the window ({} us), got {} us (feedback would be forgotten before the next arrives)",
                spec.window.0.as_ns_f64() / 1e3,
                spec.state_aging.0.as_ns_f64() / 1e3
            ),
        )?;
        check(spec.flow_aging.0 > Delta::ZERO, "routing.proteus.flow_aging", "expected a positive duration")?;
        check(
            spec.alternatives <= MAX_ALTERNATIVES,
            "routing.proteus.alternatives",
            format!("expected 0 to {MAX_ALTERNATIVES} alternative paths, got {}", spec.alternatives),
        )
    }

    fn describe(spec: &ProteusSpec) -> String {
        format!("proteus ({} alternatives)", spec.alternatives)
    }

    fn build(spec: &ProteusSpec, b: &mut LbBuild) -> Self {
        let topo = b.topo;
        let tor_of_host = topo.hosts.iter().map(|&h| topo.tor_of(h)).collect();
        let h = &mut *b.headers;
        let f = Fields {
            path: h.field("proteus_path", 16),
            radix: h.field("proteus_radix", 32),
            stamp: h.field("proteus_stamp", 32),
            alts: h.field("proteus_alternatives", 64),
            ttd: h.field("proteus_ttd", 32),
            prev: h.field("proteus_prev_egress", 32),
            feedback: h.field("proteus_feedback", 60),
            feedback_max: h.field("proteus_feedback_max", 32),
        };
        Proteus(Box::new(State {
            rtt_low_factor: spec.rtt_low_factor,
            full: spec.full_utilisation,
            window: spec.window.0,
            state_aging: spec.state_aging.0,
            flow_aging: spec.flow_aging.0,
            alternatives: spec.alternatives as usize,
            order_bound: spec.order_bound,
            tor_of_host,
            host_index: topo.host_index.clone(),
            f,
            pairs: HashMap::default(),
            measures: HashMap::default(),
            windows: HashMap::default(),
            link_bytes: vec![0; topo.ports.len()],
            kicked: vec![false; topo.ports.len()],
            flows: HashMap::default(),
            next_sweep: SimTime::ZERO,
            ranked: Vec::new(),
            new_flows: 0,
            source_reroutes: 0,
            pause_reroutes: 0,
            kickouts: 0,
            stays: 0,
            feedback_sent: 0,
            feedback_applied: 0,
        }))
    }

    fn select(&mut self, cx: &mut LbCx, node: NodeId, _sw: usize, pkt: &Packet, slot: usize) -> PortId {
        self.0.select(cx, node, pkt, slot)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let p = &self.0;
        vec![
            ("proteus_new_flows", p.new_flows),
            ("proteus_source_reroutes", p.source_reroutes),
            ("proteus_pause_reroutes", p.pause_reroutes),
            ("proteus_kickouts", p.kickouts),
            ("proteus_pause_stays", p.stays),
            ("proteus_feedback_sent", p.feedback_sent),
            ("proteus_feedback_applied", p.feedback_applied),
        ]
    }

    fn summary_line(&self) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count as thousands;
        let p = &self.0;
        let line = format!(
            "{} flows placed, {} moved at the source ToR; {} packets rerouted at paused hops \
             ({} kick-outs, {} stayed without an alternative); {} feedback entries piggybacked",
            thousands(p.new_flows),
            thousands(p.source_reroutes),
            thousands(p.pause_reroutes),
            thousands(p.kickouts),
            thousands(p.stays),
            thousands(p.feedback_sent)
        );
        Some(("Proteus", line))
    }

    fn join_partition(&mut self, other: &Self) {
        let (p, o) = (&mut self.0, &other.0);
        p.new_flows += o.new_flows;
        p.source_reroutes += o.source_reroutes;
        p.pause_reroutes += o.pause_reroutes;
        p.kickouts += o.kickouts;
        p.stays += o.stays;
        p.feedback_sent += o.feedback_sent;
        p.feedback_applied += o.feedback_applied;
    }
}

impl State {
    /// The balancer's hook (see [`LoadBalancerPolicy::select`]).
    fn select(&mut self, cx: &mut LbCx, node: NodeId, pkt: &Packet, slot: usize) -> PortId {
        let (s, d) = (self.tor(pkt.src), self.tor(pkt.dst));
        if s != d {
            if node == s {
                self.piggyback(cx, s, d, slot);
            } else if node == d {
                self.apply_feedback(cx, d, s, pkt, slot);
            }
        }
        if pkt.kind != PacketKind::Data {
            return cx.routing.select(node, routing_tuple(pkt));
        }
        if s != d && node == d {
            self.measure(cx, d, s, pkt, slot);
        }
        if s != d && node == s && !self.place(cx, s, d, pkt, slot) {
            return PortId::NONE;
        }
        if cx.headers.get(slot, self.f.radix) == 0 {
            return cx.routing.select(node, routing_tuple(pkt));
        }
        self.forward(cx, node, pkt, slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::packet::test_packet;
    use crate::fabric::store::PacketStore;
    use crate::scenario::EcmpHash;
    use crate::time::Rate;
    use crate::topology::builders::leaf_spine;

    /// Leaf 0 (node 2) of a leaf-spine with 4 spines and one host per leaf, 100 Gb/s: its
    /// 4 uplinks (paths 0–3 towards host 1) with one data queue each.
    struct Leaf {
        ports: Vec<Port>,
        store: PacketStore,
        uplinks: Vec<PortId>,
        kicked: Vec<bool>,
    }

    fn leaf() -> Leaf {
        let link = (Rate::gbps(100), Delta::from_us(1));
        let topo = leaf_spine(4, 2, 1, 1, link, link);
        let routing = Routing::new(&topo, EcmpHash::Mix, 1);
        let ports: Vec<Port> = topo
            .ports
            .iter()
            .map(|s| Port::new(s.node, s.peer, s.rate, s.delay, 1, 1, Default::default()))
            .collect();
        let uplinks = routing.table.next_hops(NodeId(2), NodeId(1)).to_vec();
        assert_eq!(uplinks.len(), 4);
        let kicked = vec![false; ports.len()];
        Leaf { ports, store: PacketStore::new(), uplinks, kicked }
    }

    impl Leaf {
        /// Queue `packets` packets (1,048 B: 84 ns each at 100 Gb/s) at uplink `i`.
        fn load(&mut self, i: usize, packets: u32) {
            let port = &mut self.ports[self.uplinks[i].idx()];
            for _ in 0..packets {
                let r = self.store.insert(test_packet(0));
                port.queues.enqueue(&mut self.store, 0, r);
            }
        }
        fn pause(&mut self, i: usize, on: bool) {
            self.ports[self.uplinks[i].idx()].queues.set_paused(0, on, SimTime::ZERO);
        }
        /// Algorithm 2 for a packet on path `path` (radix 1: at the source ToR).
        fn decide(&mut self, path: u64, ttd_ns: u64, alts: &[u16]) -> Decision {
            let ttd = Delta::from_ns(ttd_ns);
            algorithm2(&self.ports, &mut self.kicked, &self.uplinks, 0, path, 1, ttd, alts)
        }
        fn kicked(&self, i: usize) -> bool {
            self.kicked[self.uplinks[i].idx()]
        }
    }

    /// §III-B-2: a packet waits at a paused egress while its tolerable delay exceeds the
    /// least queuing delay ahead of it (a short pause), and moves to its first alternative
    /// once the queue built up by a long pause outweighs it, kicking the path out; while
    /// kicked out and paused, later packets move at once however tolerant; a RESUME lets
    /// the path back.
    #[test]
    fn a_short_pause_waits_and_a_long_one_reroutes_and_kicks_out_until_resume() {
        let mut l = leaf();
        assert_eq!(l.decide(0, 0, &[1, 2]), Decision::Go, "not paused: nothing to decide");
        l.pause(0, true);
        l.load(0, 5); // 420 ns ahead
        assert_eq!(l.decide(0, 1_000, &[1, 2]), Decision::Wait, "t_td 1 us > t_qd 0.42 us");
        assert!(!l.kicked(0));
        l.load(0, 10); // 1.26 us ahead
        let to = l.uplinks[1];
        assert_eq!(l.decide(0, 1_000, &[1, 2]), Decision::Reroute { alt: 0, to, kicked_now: true });
        assert!(l.kicked(0));
        // Kicked out: a packet that could wait 100 us moves anyway, and kicks nothing anew.
        assert_eq!(l.decide(0, 100_000, &[1, 2]), Decision::Reroute { alt: 0, to, kicked_now: false });
        // A paused alternative is skipped.
        l.pause(1, true);
        let to2 = l.uplinks[2];
        assert_eq!(l.decide(0, 0, &[1, 2]), Decision::Reroute { alt: 1, to: to2, kicked_now: false });
        // No usable alternative: the packet stays.
        assert_eq!(l.decide(0, 0, &[1]), Decision::Stay);
        assert_eq!(l.decide(0, 0, &[]), Decision::Stay);
        // RESUME: the path is back.
        l.pause(0, false);
        assert_eq!(l.decide(0, 0, &[1, 2]), Decision::Go);
        assert!(!l.kicked(0));
    }

    /// An alternative is usable at a switch only if its choices upstream agree with the
    /// path the packet took there (mixed-radix path ids).
    #[test]
    fn alternatives_must_share_the_upstream_choices() {
        let mut l = leaf();
        // At a second-level switch with 4 next hops after a first level of radix 2: the
        // packet is on path 1 (first digit 1, second digit 0).
        l.pause(0, true);
        let d = |l: &mut Leaf, alts: &[u16]| {
            algorithm2(&l.ports, &mut l.kicked, &l.uplinks, 0, 1, 2, Delta::ZERO, alts)
        };
        assert_eq!(d(&mut l, &[2, 4]), Decision::Stay, "paths 2 and 4 left by the other first hop");
        let to = l.uplinks[1];
        assert_eq!(d(&mut l, &[2, 3]), Decision::Reroute { alt: 1, to, kicked_now: true });
    }

    /// Table II.
    #[test]
    fn paths_are_classed_by_delay_and_utilisation() {
        let low = Delta::from_ns(1_300);
        assert_eq!(classify(Delta::from_ns(1_000), 1.0, low, 0.9), PathClass::NonCongested);
        assert_eq!(classify(Delta::from_ns(1_000), 0.1, low, 0.9), PathClass::NonCongested);
        assert_eq!(classify(Delta::from_ns(5_000), 0.5, low, 0.9), PathClass::Undetermined);
        assert_eq!(classify(Delta::from_ns(5_000), 0.95, low, 0.9), PathClass::Congested);
        assert_eq!(classify(Delta::from_ns(1_300), 0.9, low, 0.9), PathClass::Congested);
    }

    #[test]
    fn header_words_round_trip() {
        let e = Entry { path: 65_000, delay_ns: u32::MAX - 3, util: 1000, max_ns: 0 };
        assert_eq!(unpack(pack(e)), Some(e));
        assert!(pack(e) < 1 << 60, "fits the 60-bit field");
        assert_eq!(unpack(0), None);
        let alts = [7u16, 0, 65_534];
        assert_eq!(alts_of(pack_alts(&alts)).collect::<Vec<_>>(), alts);
        assert_eq!(alts_of(0).count(), 0);
    }
}
