//! Hermes (Zhang et al., "Resilient Datacenter Load Balancing in the Wild", SIGCOMM 2017):
//! edge-based sensing of every path's condition and timely yet cautious rerouting.
//!
//! - **Sensing** (§3.1): per path, a smoothed RTT and the fraction of ECN-marked feedback.
//!   A path is **good** when its RTT is below `t_rtt_low` and its ECN fraction below
//!   `t_ecn`, **bad** when its RTT is above `t_rtt_high` and its ECN fraction above `t_ecn`,
//!   **gray** otherwise; a path with no fresh measurement is gray at (`t_rtt_low`, `t_ecn`),
//!   as the authors' simulator (`snowzjx/ns3-load-balance`, `Ipv4TLB::JudgePath`) takes
//!   unexplored paths.
//! - **Placement** (§3.2): a new flow takes a good path, else a gray one, else any, the
//!   least loaded of its class by the local sending rate (a DRE per uplink).
//! - **Cautious rerouting** (§3.2): a flow is moved only when its path is bad, it has sent
//!   less than `size_threshold` or its rate is below `rate_threshold` of its uplink, and the
//!   best good (else gray) path is notably better: lower RTT by at least `delta_rtt` and
//!   lower ECN fraction by at least `delta_ecn`. As in the authors' simulator, a flow is
//!   considered at most once per `retry_gap` and then only with `reroute_probability`,
//!   so flows sharing a bad path do not all leave for the same one at once.
//!
//! Hermes runs in the end-host hypervisor; here it runs at the **source ToR**, which sees
//! every data packet its hosts send and every ACK, NACK and CNP coming back to them:
//! - **RTT** is timed Karn-style without any header: one data packet per flow at a time is
//!   sampled as it leaves the ToR; the first cumulative ACK covering it closes the sample
//!   (RTT from the ToR to the receiver and back); a retransmission or NACK of the flow
//!   drops the open sample. Smoothed as TCP's SRTT (gain 1/8, RFC 6298).
//! - **ECN fraction**: every ACK returning to a flow counts for the flow's current path: 1
//!   if it echoes congestion or the flow had a CNP within `cnp_window` (DCQCN's receiver
//!   sends at most one CNP per interval, standing for marks over that long), 0 otherwise;
//!   smoothed with DCTCP's gain 1/16.
//! - **Paths** are the source ToR's uplinks; switches above (a fat-tree's aggregation and
//!   core) choose by ECMP. ACKs, NACKs and CNPs follow ECMP.
//! - **Probing** (§3.1's active probes) is not sent: passive sensing of all the ToR's flows
//!   replaces it (a path none of them uses is "unexplored": gray). Failure detection
//!   (§3.1.2: retransmissions, timeouts, blackholes) is not modelled.
//! - Thresholds left unset are derived from the fabric's base RTT as the authors' README
//!   describes (docs/model.md): `t_rtt_low` = one-way base RTT + 20 µs, `t_rtt_high` = base
//!   RTT + 100 µs, with the base RTT measured as the ToR sees it (ToR to the farthest host
//!   and back, propagation only).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::conga::{Dre, DreConfig};
use super::hooks::{LbBuild, LbCx, LeafUplinks, LoadBalancerPolicy};
use crate::engine::{pick_below, RngStream};
use crate::fabric::packet::{Packet, PacketKind};
use crate::ids::{NodeId, PortId};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::{Bytes, Duration};
use crate::time::{Delta, SimTime};
use crate::topology::routing::routing_tuple;
use crate::topology::{Tier, Topology};

/// `[routing.hermes]`. Defaults from the authors' README and simulator
/// (`snowzjx/ns3-load-balance`, TCP at 10 G) where they give one; the RTT thresholds, when
/// unset, derived from the fabric's base RTT as that README describes (docs/model.md).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HermesSpec {
    /// T_RTT_low: below it (and below `t_ecn`) a path is good. Default: the one-way base
    /// RTT + 20 µs, the authors' README (`--TLBMinRTT`, "20 + one-way base RTT").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_rtt_low: Option<Duration>,
    /// T_RTT_high: above it (and above `t_ecn`) a path is bad. Default: the base RTT +
    /// 100 µs, the authors' README's 180 µs (`--TLBHighRTT`) over its 80 µs base RTT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_rtt_high: Option<Duration>,
    /// T_ECN: the ECN fraction separating good from bad paths. Default 0.3: the authors'
    /// simulator (`Ipv4TLB`, `ECNPortionLow`).
    #[serde(default = "default_t_ecn")]
    pub t_ecn: f64,
    /// Δ_RTT: how much lower a path's RTT must be to reroute to it. Default 100 µs: the
    /// authors' README (`--TLBBetterPathRTT`).
    #[serde(default = "default_delta_rtt")]
    pub delta_rtt: Duration,
    /// Δ_ECN: how much lower a path's ECN fraction must be to reroute to it. Default 0.05:
    /// hopsim's choice (the authors' simulator compares RTT only).
    #[serde(default = "default_delta_ecn")]
    pub delta_ecn: f64,
    /// S: a flow that has sent less than this may be rerouted. Default 600 KB: the
    /// authors' README (`--TLBS`).
    #[serde(default = "default_size")]
    pub size_threshold: Bytes,
    /// R: a flow sending below this fraction of its uplink's rate may be rerouted.
    /// Default 0.3: hopsim's choice.
    #[serde(default = "default_rate")]
    pub rate_threshold: f64,
    /// A path's measurements older than this are stale (the path is unexplored again).
    /// Default 500 µs: hopsim's choice (the README's path aging T1 is 60 µs at 10 G with
    /// probes every 100–500 µs; here only the flows' own packets measure).
    #[serde(default = "default_path_aging")]
    pub path_aging: Duration,
    /// How long a CNP colours its flow's ACKs as ECN-marked (a DCQCN receiver sends at most
    /// one CNP per flow per interval, so a CNP stands for marks over that long). Default
    /// 50 µs: DCQCN's CNP interval (Zhu et al., SIGCOMM 2015 §3; `cnp_interval`).
    #[serde(default = "default_cnp_window")]
    pub cnp_window: Duration,
    /// Chance that a flow due for rerouting is considered at all, against herd behaviour
    /// (flows on one bad path all leaving for the same better one). Default 0.5: the
    /// authors' simulator (`Ipv4TLB`, `ChangePathPoss` 50 of 100).
    #[serde(default = "default_probability")]
    pub reroute_probability: f64,
    /// Least time between two rerouting considerations of one flow. Default 100 µs: the
    /// authors' simulator (`Ipv4TLB`, its `tryChangePath` hold-off).
    #[serde(default = "default_retry_gap")]
    pub retry_gap: Duration,
}

impl Default for HermesSpec {
    fn default() -> Self {
        HermesSpec {
            t_rtt_low: None,
            t_rtt_high: None,
            t_ecn: default_t_ecn(),
            delta_rtt: default_delta_rtt(),
            delta_ecn: default_delta_ecn(),
            size_threshold: default_size(),
            rate_threshold: default_rate(),
            path_aging: default_path_aging(),
            cnp_window: default_cnp_window(),
            reroute_probability: default_probability(),
            retry_gap: default_retry_gap(),
        }
    }
}

fn default_t_ecn() -> f64 {
    0.3
}
fn default_delta_rtt() -> Duration {
    Duration::us(100)
}
fn default_delta_ecn() -> f64 {
    0.05
}
fn default_size() -> Bytes {
    Bytes(600_000)
}
fn default_rate() -> f64 {
    0.3
}
fn default_path_aging() -> Duration {
    Duration::us(500)
}
fn default_cnp_window() -> Duration {
    Duration::us(50)
}
fn default_probability() -> f64 {
    0.5
}
fn default_retry_gap() -> Duration {
    Duration::us(100)
}

/// Gain of the smoothed RTT (RFC 6298's α).
const RTT_GAIN: f64 = 1.0 / 8.0;
/// Gain of the ECN fraction (DCTCP's g).
const ECN_GAIN: f64 = 1.0 / 16.0;
/// A flow idle this long is forgotten (memory only).
const FLOW_IDLE: Delta = Delta(10 * crate::time::PS_PER_MS);
/// The local rate estimators: ConWeave's CONGA DRE settings (50 µs, α = 0.2).
const DRE_PERIOD: Delta = Delta(50 * crate::time::PS_PER_US);
const DRE_ALPHA: f64 = 0.2;

/// Path classes (§3.1), best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    Good,
    Gray,
    Bad,
}

/// The thresholds that classify and compare paths.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Thresholds {
    pub rtt_low: f64,
    pub rtt_high: f64,
    pub ecn: f64,
    pub delta_rtt: f64,
    pub delta_ecn: f64,
}

/// What the ToR knows of one path (RTT in ps).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PathState {
    rtt: f64,
    ecn: f64,
    has_rtt: bool,
    has_ecn: bool,
    rtt_at: SimTime,
    ecn_at: SimTime,
}

impl PathState {
    pub(crate) fn rtt_sample(&mut self, now: SimTime, rtt: Delta, aging: Delta) {
        let fresh = self.has_rtt && now.since(self.rtt_at) <= aging;
        let r = rtt.0 as f64;
        self.rtt = if fresh { self.rtt + RTT_GAIN * (r - self.rtt) } else { r };
        self.has_rtt = true;
        self.rtt_at = now;
    }

    pub(crate) fn ecn_sample(&mut self, now: SimTime, marked: bool, aging: Delta) {
        let fresh = self.has_ecn && now.since(self.ecn_at) <= aging;
        let m = if marked { 1.0 } else { 0.0 };
        self.ecn = if fresh { self.ecn + ECN_GAIN * (m - self.ecn) } else { m };
        self.has_ecn = true;
        self.ecn_at = now;
    }

    /// (RTT, ECN fraction) at `now`; what is missing or stale reads as the gray default
    /// (`rtt_low`, `ecn`).
    pub(crate) fn view(&self, now: SimTime, aging: Delta, t: &Thresholds) -> (f64, f64) {
        let rtt = if self.has_rtt && now.since(self.rtt_at) <= aging { self.rtt } else { t.rtt_low };
        let ecn = if self.has_ecn && now.since(self.ecn_at) <= aging { self.ecn } else { t.ecn };
        (rtt, ecn)
    }
}

/// The class of a path seen as (RTT, ECN fraction) (§3.1).
pub(crate) fn classify((rtt, ecn): (f64, f64), t: &Thresholds) -> Class {
    if rtt < t.rtt_low && ecn < t.ecn {
        Class::Good
    } else if rtt > t.rtt_high && ecn > t.ecn {
        Class::Bad
    } else {
        Class::Gray
    }
}

/// Whether `to` is notably better than `from` (§3.2): lower RTT by Δ_RTT and lower ECN
/// fraction by Δ_ECN.
pub(crate) fn notably_better(from: (f64, f64), to: (f64, f64), t: &Thresholds) -> bool {
    from.0 - to.0 >= t.delta_rtt && from.1 - to.1 >= t.delta_ecn
}

/// One flow at its source ToR.
#[derive(Clone, Copy, Debug)]
struct FlowState {
    /// Its path: the uplink port and its index.
    port: PortId,
    uplink: u16,
    sent: u64,
    rate: Dre,
    /// The open RTT sample: the byte after the sampled packet, when it left, its uplink.
    sample: Option<(u64, SimTime, u16)>,
    last: SimTime,
    /// When its last CNP came back.
    last_cnp: Option<SimTime>,
    /// When it was last considered for rerouting.
    last_try: Option<SimTime>,
}

type FlowMap = HashMap<u32, FlowState, BuildHasherDefault<std::collections::hash_map::DefaultHasher>>;

/// Hermes at every source ToR.
#[derive(Clone, Debug)]
pub struct Hermes(Box<State>);

/// Hermes's state.
#[derive(Clone, Debug)]
pub struct State {
    t: Thresholds,
    aging: Delta,
    size_threshold: u64,
    rate_threshold: f64,
    cnp_window: Delta,
    reroute_probability: f64,
    retry_gap: Delta,
    dre_cfg: DreConfig,
    /// Per port id: its index among its leaf's uplinks (`u16::MAX`: not a leaf uplink).
    uplink_of_port: Vec<u16>,
    leaf_of_node: Vec<u32>,
    leaf_of_host: Vec<u32>,
    host_index: Vec<u32>,
    leaves: usize,
    width: usize,
    /// Per (source leaf, destination leaf, uplink).
    paths: Vec<PathState>,
    /// Per port id: the local sending rate (DRE) of an uplink.
    local: Vec<Dre>,
    /// Per port id: its rate in bytes per second.
    bytes_per_s: Vec<f64>,
    flows: FlowMap,
    next_sweep: SimTime,
    rngs: Vec<RngStream>,
    scratch: Vec<PortId>,
    n_flows: u64,
    n_reroutes: u64,
    n_rtt_samples: u64,
}

impl State {
    /// The view of the path from leaf `sl` to `dl` through uplink `u`.
    fn view(&self, now: SimTime, sl: usize, dl: usize, u: u16) -> (f64, f64) {
        if u == u16::MAX {
            return (self.t.rtt_low, self.t.ecn);
        }
        self.paths[(sl * self.leaves + dl) * self.width + u as usize].view(now, self.aging, &self.t)
    }

    fn path_mut(&mut self, sl: usize, dl: usize, u: u16) -> Option<&mut PathState> {
        (u != u16::MAX).then(|| &mut self.paths[(sl * self.leaves + dl) * self.width + u as usize])
    }

    /// The best path among `hops` for leaf `sl` to `dl`, of class at most `worst`: the best
    /// class, then the least local rate, ties at random; with its view.
    #[allow(clippy::too_many_arguments)]
    fn best(
        &mut self,
        now: SimTime,
        sw: usize,
        sl: usize,
        dl: usize,
        hops: &[PortId],
        worst: Class,
        except: PortId,
    ) -> Option<(PortId, (f64, f64))> {
        let mut key = (worst, u64::MAX);
        let mut found = false;
        self.scratch.clear();
        for &p in hops {
            if p == except {
                continue;
            }
            let class = classify(self.view(now, sl, dl, self.uplink_of_port[p.idx()]), &self.t);
            if class > worst {
                continue;
            }
            let k = (class, self.local[p.idx()].decayed(now, &self.dre_cfg));
            if !found || k < key {
                key = k;
                found = true;
                self.scratch.clear();
            }
            if k == key {
                self.scratch.push(p);
            }
        }
        if self.scratch.is_empty() {
            return None;
        }
        let p = self.scratch[pick_below(&mut self.rngs[sw], self.scratch.len())];
        Some((p, self.view(now, sl, dl, self.uplink_of_port[p.idx()])))
    }

    /// A data packet of flow `f` leaves source leaf `sl` for leaf `dl`.
    fn data(
        &mut self,
        now: SimTime,
        sw: usize,
        sl: usize,
        dl: usize,
        pkt: &Packet,
        hops: &[PortId],
    ) -> PortId {
        if now >= self.next_sweep {
            self.flows.retain(|_, f| now.since(f.last) <= FLOW_IDLE);
            self.next_sweep = now + FLOW_IDLE;
        }
        let id = pkt.flow.0;
        let mut flow = match self.flows.get(&id) {
            Some(f) if hops.contains(&f.port) => *f,
            _ => {
                let (port, _) =
                    self.best(now, sw, sl, dl, hops, Class::Bad, PortId::NONE).expect("a next hop");
                self.n_flows += 1;
                FlowState {
                    port,
                    uplink: self.uplink_of_port[port.idx()],
                    sent: 0,
                    rate: Dre::default(),
                    sample: None,
                    last: now,
                    last_cnp: None,
                    last_try: None,
                }
            }
        };
        // Cautious rerouting (§3.2).
        let here = self.view(now, sl, dl, flow.uplink);
        if classify(here, &self.t) == Class::Bad {
            let rate = flow.rate.decayed(now, &self.dre_cfg) as f64 / (DRE_PERIOD.as_secs_f64() / DRE_ALPHA);
            let slow = rate < self.rate_threshold * self.bytes_per_s[flow.port.idx()];
            let due = flow.last_try.is_none_or(|t| now.since(t) > self.retry_gap);
            if (flow.sent < self.size_threshold || slow) && due {
                flow.last_try = Some(now);
                let go = self.rngs[sw].gen_bool(self.reroute_probability);
                let target = match self.best(now, sw, sl, dl, hops, Class::Good, flow.port) {
                    Some(t) => Some(t),
                    None => self.best(now, sw, sl, dl, hops, Class::Gray, flow.port),
                };
                if let Some((port, there)) = target.filter(|_| go) {
                    if notably_better(here, there, &self.t) {
                        flow.port = port;
                        flow.uplink = self.uplink_of_port[port.idx()];
                        flow.sample = None;
                        self.n_reroutes += 1;
                    }
                }
            }
        }
        let bytes = pkt.payload as u64;
        if pkt.retransmit() {
            flow.sample = None; // Karn: no sample across a retransmission
        } else if flow.sample.is_none() {
            flow.sample = Some((pkt.seq + bytes, now, flow.uplink));
        }
        flow.sent += bytes;
        flow.rate.add(now, bytes, &self.dre_cfg);
        flow.last = now;
        self.local[flow.port.idx()].add(now, pkt.wire_bytes as u64, &self.dre_cfg);
        self.flows.insert(id, flow);
        flow.port
    }

    /// An ACK, NACK or CNP of a flow from leaf `sl` to `dl` returns to the source leaf.
    fn feedback(&mut self, now: SimTime, sl: usize, dl: usize, pkt: &Packet) {
        let Some(mut flow) = self.flows.get(&pkt.flow.0).copied() else { return };
        let aging = self.aging;
        match pkt.kind {
            PacketKind::Ack => {
                if let Some((end, sent, u)) = flow.sample {
                    if pkt.seq >= end {
                        if let Some(path) = self.path_mut(sl, dl, u) {
                            path.rtt_sample(now, now.since(sent), aging);
                            self.n_rtt_samples += 1;
                        }
                        flow.sample = None;
                    }
                }
                let notified = flow.last_cnp.is_some_and(|t| now.since(t) <= self.cnp_window);
                let marked = pkt.cnp_echo() || notified;
                if let Some(path) = self.path_mut(sl, dl, flow.uplink) {
                    path.ecn_sample(now, marked, aging);
                }
            }
            PacketKind::Nack => flow.sample = None,
            PacketKind::Cnp => flow.last_cnp = Some(now),
            _ => {}
        }
        self.flows.insert(pkt.flow.0, flow);
    }
}

/// The base RTT as a ToR measures it: twice the largest propagation delay from a ToR to
/// a host under another ToR (shortest by delay; hosts are not transit nodes).
fn tor_base_rtt(topo: &Topology) -> Delta {
    let mut worst = Delta::ZERO;
    for (n, _) in topo.tiers.iter().enumerate().filter(|(_, t)| **t == Tier::Tor) {
        let mut dist = vec![u64::MAX; topo.node_count()];
        let mut heap = BinaryHeap::new();
        dist[n] = 0;
        heap.push(Reverse((0u64, n)));
        while let Some(Reverse((d, x))) = heap.pop() {
            if d > dist[x] || (x != n && topo.is_host(NodeId(x as u32))) {
                continue;
            }
            for p in topo.ports_of(NodeId(x as u32)) {
                let spec = &topo.ports[p as usize];
                let y = topo.ports[spec.peer.idx()].node.idx();
                let dy = d + spec.delay.0;
                if dy < dist[y] {
                    dist[y] = dy;
                    heap.push(Reverse((dy, y)));
                }
            }
        }
        for &h in &topo.hosts {
            let tor = topo.tor_of(h).idx();
            if tor != n && dist[h.idx()] != u64::MAX {
                worst = worst.max(Delta(dist[h.idx()]));
            }
        }
    }
    Delta(2 * worst.0)
}

/// The derived thresholds (docs/model.md): (T_RTT_low, T_RTT_high) for base RTT `base`.
pub fn derived_rtt_thresholds(base: Delta) -> (Delta, Delta) {
    (Delta(base.0 / 2) + Delta::from_us(20), base + Delta::from_us(100))
}

impl LoadBalancerPolicy for Hermes {
    const NAME: &'static str = "hermes";
    type Spec = HermesSpec;
    /// Path sensing and flow placement live at each source ToR, fed by the ACKs, NACKs and
    /// CNPs its own hosts receive: a partition holds its ToRs with their hosts
    /// (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(spec: &HermesSpec) -> Result<(), ScenarioError> {
        if let Some(low) = spec.t_rtt_low {
            check(low.0 > Delta::ZERO, "routing.hermes.t_rtt_low", "expected a positive duration")?;
        }
        if let (Some(low), Some(high)) = (spec.t_rtt_low, spec.t_rtt_high) {
            check(
                high.0 >= low.0,
                "routing.hermes.t_rtt_high",
                format!(
                    "expected at least t_rtt_low ({} us), got {} us",
                    low.0.as_ns_f64() / 1e3,
                    high.0.as_ns_f64() / 1e3
                ),
            )?;
        }
        check(
            spec.t_ecn > 0.0 && spec.t_ecn < 1.0,
            "routing.hermes.t_ecn",
            format!("expected a fraction above 0 and below 1, got {}", spec.t_ecn),
        )?;
        check(
            (0.0..1.0).contains(&spec.delta_ecn),
            "routing.hermes.delta_ecn",
            format!("expected a fraction from 0 to below 1, got {}", spec.delta_ecn),
        )?;
        check(
            (0.0..=1.0).contains(&spec.rate_threshold),
            "routing.hermes.rate_threshold",
            format!("expected a fraction of the uplink's rate from 0 to 1, got {}", spec.rate_threshold),
        )?;
        check(spec.path_aging.0 > Delta::ZERO, "routing.hermes.path_aging", "expected a positive duration")?;
        check(spec.cnp_window.0 > Delta::ZERO, "routing.hermes.cnp_window", "expected a positive duration")?;
        check(
            spec.reroute_probability > 0.0 && spec.reroute_probability <= 1.0,
            "routing.hermes.reroute_probability",
            format!("expected a probability above 0, at most 1, got {}", spec.reroute_probability),
        )
    }

    fn describe(spec: &HermesSpec) -> String {
        match (spec.t_rtt_low, spec.t_rtt_high) {
            (None, None) => "hermes".to_string(),
            _ => "hermes (RTT thresholds set)".to_string(),
        }
    }

    fn build(spec: &HermesSpec, b: &mut LbBuild) -> Self {
        let topo = b.topo;
        let (low, high) = derived_rtt_thresholds(tor_base_rtt(topo));
        let low = spec.t_rtt_low.map_or(low, |d| d.0);
        let high = spec.t_rtt_high.map_or(high.max(low), |d| d.0);
        let LeafUplinks { leaf_of_node, uplink_of_port, leaf_of_host, leaves, width } = b.leaf_uplinks();
        Hermes(Box::new(State {
            t: Thresholds {
                rtt_low: low.0 as f64,
                rtt_high: high.0 as f64,
                ecn: spec.t_ecn,
                delta_rtt: spec.delta_rtt.0 .0 as f64,
                delta_ecn: spec.delta_ecn,
            },
            aging: spec.path_aging.0,
            size_threshold: spec.size_threshold.0,
            rate_threshold: spec.rate_threshold,
            cnp_window: spec.cnp_window.0,
            reroute_probability: spec.reroute_probability,
            retry_gap: spec.retry_gap.0,
            dre_cfg: DreConfig::new(DRE_PERIOD, DRE_ALPHA, 3),
            uplink_of_port,
            leaf_of_node,
            leaf_of_host,
            host_index: topo.host_index.clone(),
            leaves,
            width,
            paths: vec![PathState::default(); leaves * leaves * width],
            local: vec![Dre::default(); topo.ports.len()],
            bytes_per_s: topo.ports.iter().map(|p| p.rate.bps() as f64 / 8.0).collect(),
            flows: FlowMap::default(),
            next_sweep: SimTime::ZERO,
            rngs: b.switch_streams("hermes"),
            scratch: Vec::new(),
            n_flows: 0,
            n_reroutes: 0,
            n_rtt_samples: 0,
        }))
    }

    fn select(&mut self, cx: &mut LbCx, node: NodeId, sw: usize, pkt: &Packet, _slot: usize) -> PortId {
        let st = &mut *self.0;
        let tuple = routing_tuple(pkt);
        let (hs, hd) = (st.host_index[tuple.src.idx()], st.host_index[tuple.dst.idx()]);
        let here = st.leaf_of_node[node.idx()];
        if hs == u32::MAX || hd == u32::MAX || here == u32::MAX {
            return cx.routing.select(node, tuple);
        }
        let (sl, dl) = (st.leaf_of_host[hs as usize], st.leaf_of_host[hd as usize]);
        if sl == dl {
            return cx.routing.select(node, tuple);
        }
        if pkt.kind == PacketKind::Data {
            if here == sl {
                let hops = cx.routing.table.next_hops(node, tuple.dst);
                return match hops.len() {
                    0 => PortId::NONE,
                    _ => st.data(cx.now, sw, sl as usize, dl as usize, pkt, hops),
                };
            }
        } else if here == dl {
            // Feedback for the flow from `dl` (this leaf) to `sl`.
            st.feedback(cx.now, dl as usize, sl as usize, pkt);
        }
        cx.routing.select(node, tuple)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("hermes_flows", self.0.n_flows),
            ("hermes_reroutes", self.0.n_reroutes),
            ("hermes_rtt_samples", self.0.n_rtt_samples),
        ]
    }

    fn summary_line(&self) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count as thousands;
        let s = &self.0;
        let line = format!(
            "{} flows placed, {} rerouted off bad paths; {} RTT samples (T_RTT_low {:.1} us, T_RTT_high {:.1} us)",
            thousands(s.n_flows),
            thousands(s.n_reroutes),
            thousands(s.n_rtt_samples),
            s.t.rtt_low / 1e6,
            s.t.rtt_high / 1e6
        );
        Some(("Hermes", line))
    }

    fn join_partition(&mut self, other: &Self) {
        let (s, o) = (&mut self.0, &other.0);
        s.n_flows += o.n_flows;
        s.n_reroutes += o.n_reroutes;
        s.n_rtt_samples += o.n_rtt_samples;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Rate, PS_PER_US};
    use crate::topology::builders::leaf_spine;

    fn at_us(us: u64) -> SimTime {
        SimTime(us * PS_PER_US)
    }

    const AGING: Delta = Delta(500 * PS_PER_US);

    fn t() -> Thresholds {
        Thresholds {
            rtt_low: 30.0 * PS_PER_US as f64,
            rtt_high: 110.0 * PS_PER_US as f64,
            ecn: 0.3,
            delta_rtt: 50.0 * PS_PER_US as f64,
            delta_ecn: 0.05,
        }
    }

    /// A path fed `n` RTT samples of `rtt` µs (after a base of 10 µs) with every feedback
    /// marked.
    fn path_with(n: usize, rtt_us: u64) -> (PathState, SimTime) {
        let mut p = PathState::default();
        let mut now = at_us(0);
        for _ in 0..40 {
            now += Delta::from_us(10);
            p.rtt_sample(now, Delta::from_us(10), AGING);
            p.ecn_sample(now, true, AGING);
        }
        for _ in 0..n {
            now += Delta::from_us(10);
            p.rtt_sample(now, Delta::from_us(rtt_us), AGING);
            p.ecn_sample(now, true, AGING);
        }
        (p, now)
    }

    /// One RTT sample of 400 µs on a 10 µs path moves the smoothed RTT to about 59 µs:
    /// not bad (T_RTT_high 110 µs), so no flow leaves it; the same RTT sustained for a
    /// dozen samples makes it bad.
    #[test]
    fn a_transient_spike_does_not_make_a_path_bad_a_sustained_one_does() {
        let t = t();
        let (spike, now) = path_with(1, 400);
        let v = spike.view(now, AGING, &t);
        assert!((v.0 / 1e6 - 58.75).abs() < 0.01, "{v:?}");
        assert_ne!(classify(v, &t), Class::Bad);
        let (sustained, now) = path_with(12, 400);
        assert_eq!(classify(sustained.view(now, AGING, &t), &t), Class::Bad);
    }

    #[test]
    fn classes_follow_the_thresholds() {
        let t = t();
        let us = |x: f64| x * PS_PER_US as f64;
        assert_eq!(classify((us(20.0), 0.1), &t), Class::Good);
        assert_eq!(classify((us(20.0), 0.5), &t), Class::Gray, "low RTT but marked");
        assert_eq!(classify((us(200.0), 0.1), &t), Class::Gray, "high RTT but unmarked");
        assert_eq!(classify((us(200.0), 0.5), &t), Class::Bad);
        // An unexplored or stale path is gray at (T_RTT_low, T_ECN).
        let p = PathState::default();
        assert_eq!(p.view(at_us(5), AGING, &t), (t.rtt_low, t.ecn));
        assert_eq!(classify(p.view(at_us(5), AGING, &t), &t), Class::Gray);
        let (bad, now) = path_with(20, 400);
        assert_eq!(bad.view(now + Delta::from_us(501), AGING, &t), (t.rtt_low, t.ecn), "stale");
        // Notably better: both margins.
        assert!(notably_better((us(200.0), 0.6), (t.rtt_low, t.ecn), &t));
        assert!(!notably_better((us(200.0), 0.32), (t.rtt_low, t.ecn), &t), "ECN margin too small");
        assert!(!notably_better((us(70.0), 0.9), (t.rtt_low, t.ecn), &t), "RTT margin too small");
    }

    /// The derived thresholds: on hopsim's default leaf-spine (1 µs links) the ToR's base
    /// RTT is 2 × 3 µs; T_RTT_low = 3 + 20 µs, T_RTT_high = 6 + 100 µs.
    #[test]
    fn thresholds_derive_from_the_base_rtt() {
        let link = (Rate::gbps(100), Delta::from_us(1));
        let topo = leaf_spine(2, 2, 2, 1, link, link);
        assert_eq!(tor_base_rtt(&topo), Delta::from_us(6));
        assert_eq!(derived_rtt_thresholds(Delta::from_us(6)), (Delta::from_us(23), Delta::from_us(106)));
        // The authors' 10 G setting: 10 µs links, one-way 40 µs host to host → README's 60 µs.
        assert_eq!(derived_rtt_thresholds(Delta::from_us(80)).0, Delta::from_us(60));
    }

    /// Karn-style RTT sampling at the source ToR: one open sample per flow, closed by the
    /// first cumulative ACK covering it; a retransmission drops it; ACKs echoing
    /// congestion and CNPs feed the ECN fraction of the flow's path.
    #[test]
    fn rtt_samples_follow_karn() {
        use crate::fabric::headers::HeaderLayout;
        use crate::fabric::packet::{test_packet, PacketFlags};
        let link = (Rate::gbps(100), Delta::from_us(1));
        let topo = leaf_spine(2, 2, 1, 1, link, link);
        let switches: Vec<NodeId> = (2..6).map(NodeId).collect();
        let mut headers = HeaderLayout::default();
        let mut b = LbBuild { topo: &topo, switches: &switches, seed: 1, headers: &mut headers };
        let mut h = Hermes::build(&HermesSpec::default(), &mut b);
        let hops: Vec<PortId> = topo.ports_of(NodeId(2)).skip(1).map(PortId).collect();
        let st = &mut *h.0;
        let data = |seq: u64| test_packet(seq); // host 0 -> host 1, 1000 B
        let ack = |seq: u64, flags: PacketFlags| Packet {
            kind: PacketKind::Ack,
            flags,
            src: NodeId(1),
            dst: NodeId(0),
            ..test_packet(seq)
        };
        let p = st.data(at_us(0), 0, 0, 1, &data(0), &hops);
        assert_eq!(st.data(at_us(1), 0, 0, 1, &data(1000), &hops), p, "a flow keeps its path");
        let u = st.uplink_of_port[p.idx()] as usize;
        let path = |st: &State| st.paths[(st.width) + u]; // (sl 0, dl 1, u)
                                                          // The ACK of the first packet closes the sample opened at 0: RTT 10 µs.
        st.feedback(at_us(10), 0, 1, &ack(1000, PacketFlags::NONE));
        assert_eq!(st.n_rtt_samples, 1);
        assert_eq!(path(st).rtt, Delta::from_us(10).0 as f64);
        assert_eq!(path(st).ecn, 0.0);
        // A new sample opens at 11 µs (bytes 2000..3000); a retransmission drops it.
        st.data(at_us(11), 0, 0, 1, &data(2000), &hops);
        let mut retx = data(1000);
        retx.flags = PacketFlags::RETRANSMIT;
        st.data(at_us(12), 0, 0, 1, &retx, &hops);
        st.feedback(at_us(40), 0, 1, &ack(3000, PacketFlags::CNP_ECHO));
        assert_eq!(st.n_rtt_samples, 1, "no sample across a retransmission");
        assert_eq!(path(st).ecn, 1.0 / 16.0, "an echoing ACK counts as marked");
        // A CNP colours the ACKs of the next 50 µs.
        st.feedback(at_us(41), 0, 1, &Packet { kind: PacketKind::Cnp, ..ack(0, PacketFlags::NONE) });
        st.feedback(at_us(90), 0, 1, &ack(3000, PacketFlags::NONE));
        let after = path(st).ecn;
        assert!(after > 1.0 / 16.0, "{after}");
        st.feedback(at_us(92), 0, 1, &ack(3000, PacketFlags::NONE));
        assert!(path(st).ecn < after, "52 µs after the CNP an unmarked ACK counts 0");
    }
}
