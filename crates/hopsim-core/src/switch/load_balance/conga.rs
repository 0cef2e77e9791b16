//! CONGA (Alizadeh et al., "CONGA: Distributed Congestion-Aware Load Balancing for
//! Datacenters", SIGCOMM 2014, §3): leaf-to-leaf congestion feedback and flowlet switching.
//!
//! - **DRE** (§3.5): every fabric link has a register X, incremented by the bytes of each
//!   packet sent on it and multiplied by (1 − α) every `T_dre`; X ≈ rate × τ with
//!   τ = T_dre / α, and the link's congestion metric is X / (link rate × τ) quantised to
//!   Q bits.
//! - **In the packets** (§3.2, four header fields): the source leaf writes the path it
//!   chose (`LBTag`, here the uplink's index at the source leaf) and its uplink's metric
//!   (`CE`); every later switch raises `CE` to its egress link's metric. The destination
//!   leaf stores `CE` in its Congestion-From-Leaf table (per source leaf and path) and
//!   piggybacks one of those entries (`FB_LBTag`, `FB_Metric`) on a packet going back to
//!   that leaf, which stores it in its Congestion-To-Leaf table.
//! - **Flowlets** (§3.4): a packet after a gap above `flowlet_timeout` starts a new
//!   flowlet, placed on the uplink minimising max(local DRE metric, remote metric), ties
//!   broken at random.
//! - **Aging** (§3.3): a remote metric not refreshed for `aging` counts as 0.
//!
//! Choices where the paper leaves room (each in docs/model.md):
//! - Everything is done in the `select` hook, lazily: a DRE is decayed when it is next read
//!   (by the whole periods elapsed, on the global grid of multiples of `T_dre`), and a
//!   packet's bytes are added when the switch chooses its egress (it is transmitted after
//!   any queueing there); no timer events.
//! - The metric is capped at 2^Q − 1 (the Q-bit field; ConWeave's ns-3 `QuantizingX` does
//!   not cap).
//! - Feedback: the destination leaf feeds back, round robin over the paths, the next entry
//!   that changed since it was last fed back, else the next valid one (§3.3: round robin,
//!   favouring changed entries; ConWeave's ns-3 picks uniformly at random).
//! - Which packets: data packets are placed by flowlets; ACKs, NACKs and CNPs follow ECMP
//!   but, with `piggyback_on_control` (default), carry the CONGA fields too (they are
//!   ordinary overlay packets in the paper; with RDMA's one-way flows they are the only
//!   reverse traffic). `piggyback_on_control = false` carries feedback on data only, as
//!   ConWeave's ns-3 does (its CONGA sees only UDP data).
//! - Topologies: CONGA is defined for 2-tier leaf-spine. The path is the source leaf's
//!   uplink; switches above (a fat-tree's aggregation and core) choose by ECMP, and `CE`
//!   accumulates every hop actually taken, so a path's metric is that of the uplink and
//!   the ECMP path beyond it.
//! - Flowlet table: exact per 5-tuple, aged by `aging` (entries idle that long are dropped,
//!   `aging >= flowlet_timeout` enforced) as LetFlow's.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use serde::{Deserialize, Serialize};

use super::hooks::{LbBuild, LbCx, LeafUplinks, LoadBalancerPolicy};
use crate::engine::{pick_below, RngStream};
use crate::fabric::headers::Field;
use crate::fabric::packet::{Packet, PacketKind};
use crate::ids::{NodeId, PortId};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::Duration;
use crate::time::{Delta, Rate, SimTime};
use crate::topology::routing::{routing_tuple, FiveTuple};

/// `[routing.conga]`. Defaults are ConWeave's ns-3 RDMA evaluation (Song et al., SIGCOMM
/// 2023; `scratch/network-load-balance.cc`, `conga_*`).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CongaSpec {
    /// Gap after which a flow's next data packet starts a new flowlet (§3.4). Default
    /// 100 µs: ConWeave's `conga_flowletTimeout`.
    #[serde(default = "default_timeout")]
    pub flowlet_timeout: Duration,
    /// The DRE's decay period T_dre (§3.5). Default 50 µs: ConWeave's `conga_dreTime`.
    #[serde(default = "default_dre_period")]
    pub dre_period: Duration,
    /// The DRE's decay factor α: X ← X × (1 − α) every period (§3.5). Default 0.2:
    /// ConWeave's `conga_alpha`.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Bits Q of the quantised congestion metric (§3.5). Default 3: ConWeave's
    /// `conga_quantizeBit` (the paper's 3 bits).
    #[serde(default = "default_bits")]
    pub quantize_bits: u32,
    /// Age after which a remote metric counts as 0, and an idle flowlet-table entry is
    /// dropped (§3.3). Default 500 µs: ConWeave's `conga_agingTime`.
    #[serde(default = "default_aging")]
    pub aging: Duration,
    /// Whether ACKs, NACKs and CNPs carry the CONGA fields (path metric and feedback).
    /// Default true (every packet is an overlay packet in the paper, §3.2); false carries
    /// them on data packets only, as ConWeave's ns-3.
    #[serde(default = "yes")]
    pub piggyback_on_control: bool,
}

impl Default for CongaSpec {
    fn default() -> Self {
        CongaSpec {
            flowlet_timeout: default_timeout(),
            dre_period: default_dre_period(),
            alpha: default_alpha(),
            quantize_bits: default_bits(),
            aging: default_aging(),
            piggyback_on_control: true,
        }
    }
}

fn default_timeout() -> Duration {
    Duration::us(100)
}
fn default_dre_period() -> Duration {
    Duration::us(50)
}
fn default_alpha() -> f64 {
    0.2
}
fn default_bits() -> u32 {
    3
}
fn default_aging() -> Duration {
    Duration::us(500)
}
fn yes() -> bool {
    true
}

/// A Discounting Rate Estimator (§3.5) on one link: a byte register decayed by (1 − α)
/// at every multiple of the period, lazily.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Dre {
    /// The register X, in bytes.
    x: u64,
    /// The period (index since time 0) X was last decayed into.
    period: u64,
}

/// How a DRE decays and is quantised.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DreConfig {
    period: Delta,
    /// 1 − α in 16-bit fixed point.
    keep: u64,
    /// τ = period / α, in seconds.
    tau_s: f64,
    /// The top metric, 2^Q − 1.
    top: u32,
}

impl DreConfig {
    pub(crate) fn new(period: Delta, alpha: f64, bits: u32) -> DreConfig {
        DreConfig {
            period,
            keep: ((1.0 - alpha) * 65_536.0).round() as u64,
            tau_s: period.as_secs_f64() / alpha,
            top: (1u32 << bits) - 1,
        }
    }
}

impl Dre {
    /// X at `now` (decayed by every period boundary passed since the last access).
    pub(crate) fn decayed(&mut self, now: SimTime, cfg: &DreConfig) -> u64 {
        let period = now.0 / cfg.period.0.max(1);
        let mut k = period.saturating_sub(self.period);
        self.period = self.period.max(period);
        while k > 0 && self.x > 0 {
            self.x = (self.x * cfg.keep) >> 16;
            k -= 1;
        }
        self.x
    }

    /// Count `bytes` sent at `now`; X after it.
    pub(crate) fn add(&mut self, now: SimTime, bytes: u64, cfg: &DreConfig) -> u64 {
        self.decayed(now, cfg);
        self.x += bytes;
        self.x
    }
}

/// X on a link of rate `rate` as a Q-bit metric: ⌊X / (rate × τ) × 2^Q⌋, at most 2^Q − 1.
pub(crate) fn quantise(x: u64, rate: Rate, cfg: &DreConfig) -> u32 {
    let full = rate.bps() as f64 / 8.0 * cfg.tau_s;
    let q = (x as f64 / full * (cfg.top + 1) as f64).floor();
    if q >= cfg.top as f64 {
        cfg.top
    } else {
        q as u32
    }
}

/// A remote metric in a source leaf's Congestion-To-Leaf table.
#[derive(Clone, Copy, Debug, Default)]
struct ToLeaf {
    metric: u8,
    updated: SimTime,
}

impl ToLeaf {
    /// The metric at `now`: 0 once older than `aging` (§3.3).
    fn aged(self, now: SimTime, aging: Delta) -> u32 {
        if now.since(self.updated) > aging {
            0
        } else {
            self.metric as u32
        }
    }
}

/// A path's metric in a destination leaf's Congestion-From-Leaf table.
#[derive(Clone, Copy, Debug, Default)]
struct FromLeaf {
    metric: u8,
    valid: bool,
    /// Changed since last fed back.
    changed: bool,
    /// When a packet last brought it.
    updated: SimTime,
}

impl FromLeaf {
    /// Whether it may be fed back at `now`: set within `aging` (older entries are dropped,
    /// as ConWeave's ns-3 drops them, so a path no longer used stops being reported).
    fn live(&self, now: SimTime, aging: Delta) -> bool {
        self.valid && now.since(self.updated) <= aging
    }
}

/// Flowlet-table keys: the 5-tuple packed into 96 bits.
fn key(t: FiveTuple) -> u128 {
    ((t.src.0 as u128) << 64) | ((t.dst.0 as u128) << 32) | ((t.sport as u128) << 16) | t.dport as u128
}

type FlowletMap =
    HashMap<u128, (PortId, SimTime), BuildHasherDefault<std::collections::hash_map::DefaultHasher>>;

/// The header fields CONGA's packets carry (§3.2); a tag is the uplink index + 1 (0: none).
#[derive(Clone, Copy, Debug)]
struct Fields {
    lb_tag: Field,
    ce: Field,
    fb_tag: Field,
    fb_metric: Field,
}

/// CONGA at every switch (its state boxed: the family's enum stays small).
#[derive(Clone, Debug)]
pub struct Conga(Box<State>);

impl std::ops::Deref for Conga {
    type Target = State;
    fn deref(&self) -> &State {
        &self.0
    }
}

impl std::ops::DerefMut for Conga {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.0
    }
}

/// CONGA's state at every switch.
#[derive(Clone, Debug)]
pub struct State {
    timeout: Delta,
    aging: Delta,
    dre_cfg: DreConfig,
    piggyback_on_control: bool,
    /// Per port id: its DRE.
    dre: Vec<Dre>,
    /// Per port id: its rate.
    rate: Vec<Rate>,
    /// Per port id: its index among its leaf's uplinks (`u16::MAX`: not a leaf uplink).
    uplink_of_port: Vec<u16>,
    /// Per node id: its leaf index (`u32::MAX`: not a leaf).
    leaf_of_node: Vec<u32>,
    /// Per host index: its leaf's index.
    leaf_of_host: Vec<u32>,
    host_index: Vec<u32>,
    leaves: usize,
    /// Most uplinks of a leaf.
    width: usize,
    /// Per (source leaf, destination leaf, uplink): Congestion-To-Leaf.
    to_leaf: Vec<ToLeaf>,
    /// Per (destination leaf, source leaf, uplink of the source): Congestion-From-Leaf.
    from_leaf: Vec<FromLeaf>,
    /// Per (destination leaf, source leaf): the round-robin position of the feedback.
    fb_next: Vec<u16>,
    /// Per leaf: flowlets (5-tuple → uplink port, last packet), next aging sweep.
    flowlets: Vec<(FlowletMap, SimTime)>,
    rngs: Vec<RngStream>,
    fields: Fields,
    /// Scratch: the best uplinks of a decision.
    best: Vec<PortId>,
    n_flowlets: u64,
    n_moves: u64,
    n_feedback: u64,
}

impl State {
    /// The metric of link `p` at `now` after counting `bytes` on it.
    fn count(&mut self, p: PortId, now: SimTime, bytes: u64) -> u32 {
        let x = self.dre[p.idx()].add(now, bytes, &self.dre_cfg);
        quantise(x, self.rate[p.idx()], &self.dre_cfg)
    }

    /// The uplink a new flowlet from leaf `sl` to leaf `dl` takes among `hops` (§3.4).
    fn best_uplink(&mut self, now: SimTime, sw: usize, sl: usize, dl: usize, hops: &[PortId]) -> PortId {
        let mut min = u32::MAX;
        self.best.clear();
        for &p in hops {
            let local = {
                let x = self.dre[p.idx()].decayed(now, &self.dre_cfg);
                quantise(x, self.rate[p.idx()], &self.dre_cfg)
            };
            let u = self.uplink_of_port[p.idx()] as usize;
            let remote = if u == u16::MAX as usize {
                0
            } else {
                self.to_leaf[(sl * self.leaves + dl) * self.width + u].aged(now, self.aging)
            };
            let m = local.max(remote);
            if m < min {
                min = m;
                self.best.clear();
            }
            if m == min {
                self.best.push(p);
            }
        }
        self.best[pick_below(&mut self.rngs[sw], self.best.len())]
    }

    /// The source leaf's choice for data packet `tuple` (flowlet switching).
    fn place_data(
        &mut self,
        now: SimTime,
        sw: usize,
        sl: usize,
        dl: usize,
        tuple: FiveTuple,
        hops: &[PortId],
    ) -> PortId {
        let (timeout, aging) = (self.timeout, self.aging);
        let (table, next_sweep) = &mut self.flowlets[sl];
        if now >= *next_sweep {
            table.retain(|_, (_, last)| now.since(*last) <= aging);
            *next_sweep = now + aging;
        }
        let k = key(tuple);
        let previous = table.get(&k).copied();
        if let Some((p, last)) = previous {
            if now.since(last) <= timeout && hops.contains(&p) {
                table.insert(k, (p, now));
                return p;
            }
        }
        let p = self.best_uplink(now, sw, sl, dl, hops);
        self.n_flowlets += 1;
        if previous.is_some_and(|(q, _)| q != p) {
            self.n_moves += 1;
        }
        self.flowlets[sl].0.insert(k, (p, now));
        p
    }

    /// The Congestion-From-Leaf entry leaf `dl` feeds back to leaf `sl` about the paths
    /// from `sl` to `dl` (§3.3): round robin, the next changed entry first, else the next
    /// live one.
    fn feedback(&mut self, now: SimTime, dl: usize, sl: usize) -> Option<(usize, u8)> {
        let base = (dl * self.leaves + sl) * self.width;
        let start = self.fb_next[dl * self.leaves + sl] as usize;
        let entries = &mut self.from_leaf[base..base + self.width];
        let aging = self.aging;
        let order = || (0..self.width).map(|i| (start + i) % self.width);
        let pick = order()
            .find(|&u| entries[u].changed && entries[u].live(now, aging))
            .or_else(|| order().find(|&u| entries[u].live(now, aging)))?;
        entries[pick].changed = false;
        self.fb_next[dl * self.leaves + sl] = ((pick + 1) % self.width) as u16;
        Some((pick, entries[pick].metric))
    }
}

impl LoadBalancerPolicy for Conga {
    const NAME: &'static str = "conga";
    type Spec = CongaSpec;
    /// Flowlet and congestion tables are per leaf; the congestion a packet carries and the
    /// feedback it returns travel in its header row across the cut (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(spec: &CongaSpec) -> Result<(), ScenarioError> {
        check(
            spec.flowlet_timeout.0 > Delta::ZERO,
            "routing.conga.flowlet_timeout",
            "expected a positive duration (a zero timeout makes every packet a flowlet)",
        )?;
        check(spec.dre_period.0 > Delta::ZERO, "routing.conga.dre_period", "expected a positive duration")?;
        check(
            spec.alpha > 0.0 && spec.alpha < 1.0,
            "routing.conga.alpha",
            format!("expected a decay factor above 0 and below 1, got {}", spec.alpha),
        )?;
        check(
            (1..=8).contains(&spec.quantize_bits),
            "routing.conga.quantize_bits",
            format!("expected 1 to 8 bits, got {}", spec.quantize_bits),
        )?;
        check(
            spec.aging.0 >= spec.flowlet_timeout.0,
            "routing.conga.aging",
            format!(
                "expected at least the flowlet timeout ({} us), got {} us",
                spec.flowlet_timeout.0.as_ns_f64() / 1e3,
                spec.aging.0.as_ns_f64() / 1e3
            ),
        )
    }

    fn build(spec: &CongaSpec, b: &mut LbBuild) -> Self {
        let topo = b.topo;
        let LeafUplinks { leaf_of_node, uplink_of_port, leaf_of_host, leaves, width } = b.leaf_uplinks();
        let fields = Fields {
            lb_tag: b.headers.field("conga_lb_tag", 16),
            ce: b.headers.field("conga_ce", 8),
            fb_tag: b.headers.field("conga_fb_lb_tag", 16),
            fb_metric: b.headers.field("conga_fb_metric", 8),
        };
        Conga(Box::new(State {
            timeout: spec.flowlet_timeout.0,
            aging: spec.aging.0,
            dre_cfg: DreConfig::new(spec.dre_period.0, spec.alpha, spec.quantize_bits),
            piggyback_on_control: spec.piggyback_on_control,
            dre: vec![Dre::default(); topo.ports.len()],
            rate: topo.ports.iter().map(|p| p.rate).collect(),
            uplink_of_port,
            leaf_of_node,
            leaf_of_host,
            host_index: topo.host_index.clone(),
            leaves,
            width,
            to_leaf: vec![ToLeaf::default(); leaves * leaves * width],
            from_leaf: vec![FromLeaf::default(); leaves * leaves * width],
            fb_next: vec![0; leaves * leaves],
            flowlets: (0..leaves).map(|_| (FlowletMap::default(), SimTime::ZERO)).collect(),
            rngs: b.switch_streams("conga"),
            fields,
            best: Vec::new(),
            n_flowlets: 0,
            n_moves: 0,
            n_feedback: 0,
        }))
    }

    fn select(&mut self, cx: &mut LbCx, node: NodeId, sw: usize, pkt: &Packet, slot: usize) -> PortId {
        let st = &mut *self.0;
        let tuple = routing_tuple(pkt);
        let (hs, hd) = (st.host_index[tuple.src.idx()], st.host_index[tuple.dst.idx()]);
        if hs == u32::MAX || hd == u32::MAX {
            return cx.routing.select(node, tuple); // a switch's own notice
        }
        let (sl, dl) = (st.leaf_of_host[hs as usize] as usize, st.leaf_of_host[hd as usize] as usize);
        if sl == dl {
            return cx.routing.select(node, tuple); // within a leaf: one path
        }
        let here = st.leaf_of_node[node.idx()] as usize;
        let f = st.fields;
        let carries = pkt.kind == PacketKind::Data || st.piggyback_on_control;
        if here == sl {
            // Source leaf: choose the uplink, start the path's CE, piggyback feedback.
            let hops = cx.routing.table.next_hops(node, tuple.dst);
            let egress = match hops.len() {
                0 => return PortId::NONE,
                1 => hops[0],
                _ if pkt.kind == PacketKind::Data => st.place_data(cx.now, sw, sl, dl, tuple, hops),
                _ => cx.routing.select(node, tuple),
            };
            let ce = st.count(egress, cx.now, pkt.wire_bytes as u64);
            let uplink = st.uplink_of_port[egress.idx()];
            // This leaf measured the paths from leaf `dl` to it: feed one back to `dl`.
            let fb = if carries { st.feedback(cx.now, sl, dl) } else { None };
            if carries && uplink != u16::MAX {
                cx.headers.set(slot, f.lb_tag, uplink as u64 + 1);
                cx.headers.set(slot, f.ce, ce as u64);
            } else {
                cx.headers.set(slot, f.lb_tag, 0);
            }
            match fb {
                Some((u, metric)) => {
                    cx.headers.set(slot, f.fb_tag, u as u64 + 1);
                    cx.headers.set(slot, f.fb_metric, metric as u64);
                }
                None => cx.headers.set(slot, f.fb_tag, 0),
            }
            egress
        } else if here == dl {
            // Destination leaf: record the path's CE, take in the feedback.
            let tag = cx.headers.get(slot, f.lb_tag) as usize;
            if tag != 0 {
                let e = &mut st.from_leaf[(dl * st.leaves + sl) * st.width + tag - 1];
                let metric = cx.headers.get(slot, f.ce) as u8;
                e.changed |= !e.valid || e.metric != metric;
                e.valid = true;
                e.metric = metric;
                e.updated = cx.now;
            }
            let fb = cx.headers.get(slot, f.fb_tag) as usize;
            if fb != 0 {
                let metric = cx.headers.get(slot, f.fb_metric) as u8;
                st.to_leaf[(dl * st.leaves + sl) * st.width + fb - 1] = ToLeaf { metric, updated: cx.now };
                st.n_feedback += 1;
            }
            cx.routing.select(node, tuple)
        } else {
            // Above the leaves: ECMP, and raise the path's CE to this link's metric.
            let egress = cx.routing.select(node, tuple);
            if egress != PortId::NONE {
                let local = st.count(egress, cx.now, pkt.wire_bytes as u64);
                if cx.headers.get(slot, f.lb_tag) != 0 && local as u64 > cx.headers.get(slot, f.ce) {
                    cx.headers.set(slot, f.ce, local as u64);
                }
            }
            egress
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("conga_flowlets", self.n_flowlets),
            ("conga_path_changes", self.n_moves),
            ("conga_feedback", self.n_feedback),
        ]
    }

    fn summary_line(&self) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count as thousands;
        let line = format!(
            "{} flowlets, {} on another uplink than their flow's previous one; {} feedback entries received",
            thousands(self.n_flowlets),
            thousands(self.n_moves),
            thousands(self.n_feedback)
        );
        Some(("CONGA", line))
    }

    fn join_partition(&mut self, other: &Self) {
        self.n_flowlets += other.n_flowlets;
        self.n_moves += other.n_moves;
        self.n_feedback += other.n_feedback;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_us(us: u64) -> SimTime {
        SimTime(us * crate::time::PS_PER_US)
    }

    fn cfg() -> DreConfig {
        DreConfig::new(Delta::from_us(50), 0.2, 3)
    }

    /// X is multiplied by 0.8 at each 50 µs boundary passed, never in between.
    #[test]
    fn the_dre_decays_by_alpha_every_period() {
        let c = cfg();
        let mut d = Dre::default();
        assert_eq!(d.add(at_us(10), 100_000, &c), 100_000);
        assert_eq!(d.decayed(at_us(49), &c), 100_000, "no boundary passed");
        assert_eq!(d.decayed(at_us(50), &c), 80_000);
        // Two more boundaries (100, 150): 80 000 × 0.8² (16-bit fixed point, truncated).
        let x = d.decayed(at_us(160), &c);
        assert!((51_190..=51_200).contains(&x), "{x}");
        // Long idle: decays to zero.
        assert_eq!(d.decayed(at_us(1_000_000), &c), 0);
        // An earlier time (another switch's clock cannot run back, but be safe) decays nothing.
        d.add(at_us(1_000_000), 10, &c);
        assert_eq!(d.decayed(at_us(999_000), &c), 10);
    }

    /// A link sending at rate R settles at X ≈ R × τ: the top metric; half the rate is
    /// about half the range; the metric never exceeds 2^Q − 1.
    #[test]
    fn the_dre_quantises_relative_to_rate_times_tau() {
        let c = cfg();
        let rate = Rate::gbps(100);
        // τ = 50 µs / 0.2 = 250 µs: 100 Gb/s × 250 µs = 3.125 MB.
        assert_eq!(quantise(0, rate, &c), 0);
        assert_eq!(quantise(3_125_000 / 8 - 1, rate, &c), 0);
        assert_eq!(quantise(3_125_000 / 8, rate, &c), 1);
        assert_eq!(quantise(3_125_000 / 2, rate, &c), 4);
        assert_eq!(quantise(3_125_000, rate, &c), 7);
        assert_eq!(quantise(30_000_000, rate, &c), 7, "capped at 2^3 - 1");
        // Feeding 1000 B every 80 ns (100 Gb/s) for 2 ms settles near the top.
        let mut d = Dre::default();
        let mut x = 0;
        for i in 0..25_000u64 {
            x = d.add(SimTime(i * 80_000), 1_000, &c);
        }
        assert!(quantise(x, rate, &c) >= 6, "full rate reads as congested: X = {x}");
        // At half the rate, half the range.
        let mut d = Dre::default();
        for i in 0..12_500u64 {
            x = d.add(SimTime(i * 160_000), 1_000, &c);
        }
        assert!((3..=4).contains(&quantise(x, rate, &c)), "X = {x}");
    }

    /// A remote metric holds for `aging` after its feedback, then reads 0; a
    /// Congestion-From-Leaf entry is fed back only while it is that fresh.
    #[test]
    fn remote_metrics_age_to_zero() {
        let aging = Delta::from_us(500);
        let e = ToLeaf { metric: 6, updated: at_us(100) };
        assert_eq!(e.aged(at_us(100), aging), 6);
        assert_eq!(e.aged(at_us(600), aging), 6);
        assert_eq!(e.aged(at_us(601), aging), 0);
        let f = FromLeaf { metric: 6, valid: true, changed: false, updated: at_us(100) };
        assert!(f.live(at_us(600), aging));
        assert!(!f.live(at_us(601), aging));
        assert!(!FromLeaf::default().live(SimTime::ZERO, aging), "never set");
    }

    /// A leaf-spine with 3 spines and 2 leaves of one host: CONGA's state at both leaves.
    fn conga() -> Conga {
        use crate::fabric::headers::HeaderLayout;
        use crate::topology::builders::leaf_spine;
        let link = (Rate::gbps(100), Delta::from_us(1));
        let topo = leaf_spine(3, 2, 1, 1, link, link);
        let switches: Vec<NodeId> = (2..7).map(NodeId).collect();
        let mut headers = HeaderLayout::default();
        let mut b = LbBuild { topo: &topo, switches: &switches, seed: 1, headers: &mut headers };
        Conga::build(&CongaSpec::default(), &mut b)
    }

    /// §3.3: the destination leaf feeds back round robin, entries changed since they were
    /// last fed back first, then the other live ones; an entry older than the aging is not
    /// fed back.
    #[test]
    fn feedback_is_round_robin_favouring_changed_entries() {
        let mut c = conga();
        assert_eq!((c.leaves, c.width), (2, 3));
        // At leaf 1 (the destination), about paths from leaf 0: uplinks 0 and 2 measured.
        let base = c.leaves * c.width; // (dl = 1, sl = 0)
        let set = |c: &mut Conga, u: usize, metric: u8, at: u64| {
            c.from_leaf[base + u] = FromLeaf { metric, valid: true, changed: true, updated: at_us(at) };
        };
        set(&mut c, 0, 5, 10);
        set(&mut c, 2, 1, 10);
        assert_eq!(c.feedback(at_us(20), 1, 0), Some((0, 5)));
        assert_eq!(c.feedback(at_us(20), 1, 0), Some((2, 1)));
        // Nothing changed since: round robin over the live entries.
        assert_eq!(c.feedback(at_us(20), 1, 0), Some((0, 5)));
        // Entry 2 changes: it goes first although the round is at entry 0.
        set(&mut c, 2, 7, 30);
        let at = c.leaves; // (dl = 1, sl = 0)
        c.fb_next[at] = 0;
        assert_eq!(c.feedback(at_us(30), 1, 0), Some((2, 7)));
        // Past the aging (500 µs) entry 0 (set at 10 µs) is no longer fed back; entry 2 is.
        assert_eq!(c.feedback(at_us(520), 1, 0), Some((2, 7)));
        assert_eq!(c.feedback(at_us(520), 1, 0), Some((2, 7)));
        assert_eq!(c.feedback(at_us(531), 1, 0), None, "every entry stale");
        // Leaf 0 has measured nothing about paths from leaf 1.
        assert_eq!(c.feedback(at_us(20), 0, 1), None);
    }
}
