//! Aquarius (Li et al., APNet 2023): switch-driven per-hop flow control that controls the
//! flows sharing one queue one by one, so a few queues per port (8) isolate flows about as
//! well as BFC with 32.
//!
//! - **Dynamic flow mapping** (§3.1, Algorithm 1 lines 2–6). Every egress port keeps a
//!   FlowTable entry per active flow (one with packets queued at the port): its mapped
//!   queue, its queued size (packets) and its pause count. A newly active flow takes an
//!   empty queue, else the shortest; a flow with packets queued keeps its queue.
//! - **Contribution-aware pausing** (§3.2, Algorithm 1). When a packet joins a queue whose
//!   length exceeds `Q_high = 3 · HRTT · µ / NQ_active`, its flow's pause count goes up
//!   (the packet is *congested*); above `Q_low = HRTT · µ / NQ_active`, with the EWMA of
//!   the queue's arrival interval below `T_min = MTU · NQ_active / µ`, only a flow whose
//!   queued size exceeds its fair occupation `Occu_fair = ⌈L >> ⌈log2 N⌉⌉` (eq. 1; L the
//!   queue's length, N its active flows) is counted. A flow's pause count leaving 0 sends
//!   PAUSE(upstream queue, FID) to the upstream the packet came from; a congested packet
//!   leaving takes it down, and at 0 RESUME(FID) follows (Algorithm 2).
//! - **Opportunistic re-assigning** (§3.3), at the upstream that receives PAUSE: a flow
//!   alone on its queue pauses the queue; a flow sharing its queue sends its later packets
//!   to the reserved queue rsvQ (taken from the empty queues when first needed, shared by
//!   every congested flow of the port, released once empty), which is paused. rsvQ resumes
//!   only when every flow re-assigned to it is resumed **and** their older packets in their
//!   original queues have left (in-order delivery). A host NIC stops and restarts the
//!   flow the frame names.
//!
//! **Choices where the paper is silent** (each documented in `docs/model.md`; the ones
//! reasonable people differ on are parameters):
//! - *Units*: a flow's size and the `L` of eq. 1 count packets (Algorithm 1's `size += 1`,
//!   §3.1 "the number of queued packets"); `Q_low` and `Q_high` compare the queue's bytes.
//! - *HRTT* (`hrtt`): by default twice the egress link's propagation delay (BFC's one-hop
//!   RTT), e.g. 2 µs on §4's 1 µs links.
//! - *EWMA weight* (`ewma_weight`, α): 1/8; `T_avg` is updated on every arrival at the
//!   queue (Algorithm 1 prints the update inside the `Q_low` branch, which would freeze
//!   `T_avg` once it exceeds `T_min`), after the decision, starting from the first interval.
//! - *NQ_active* (`active_queues`): by default the port's queues holding packets and not
//!   paused, at least 1 — BFC's N_active, which Aquarius's thresholds are modelled on;
//!   `"unpaused"` counts every queue not paused, the text's literal reading.
//! - *N* in eq. 1: the flows mapped to the queue (the arriving one included).
//! - *Which flow sends PAUSE on a Q_high mark*: the first mark of a flow (count 0 → 1),
//!   as for the contribution-aware marks; RESUME goes to the port the PAUSE went to.
//! - *A new flow's queue*: an empty, unpaused queue other than rsvQ (lowest first), else
//!   the shortest unpaused one, else the shortest; `mapping_queues` limits the candidates
//!   (an experiment knob reproducing §4's forced sharing, not part of the design).
//! - *rsvQ*: the highest-numbered empty queue no flow is mapped to; when none is free the
//!   congested flow's shared queue is paused instead (BFC's behaviour), counted as a
//!   fallback. A flow paused while it has nothing queued sends its next packets to rsvQ.
//! - *FlowTable*: exact per flow (the paper sizes its hashed array so that collisions are
//!   rare, §5); ACKs queued with data are flows of their own (their reversed 5-tuple), and
//!   a host NIC never pauses ACKs, so an ACK from a host is never congested.
//!
//! **Not modelled**: FlowTable hash collisions; the multi-pipeline optimisation of §3.3
//! (moving a paused flow's already-queued packets to another egress queue); a flow reaching
//! one port over several ingress ports (per-packet load balancing) pauses only the upstream
//! of its first congested packet.

use serde::{Deserialize, Serialize};

use super::hooks::{Arrival, FcBuild, FcCx, FlowControlPolicy, Hop, Outbox};
use super::keymap::KeyMap;
use crate::fabric::frames::pause_resume_frame;
use crate::fabric::headers::{Field, HeaderLayout, Headers};
use crate::fabric::packet::{Packet, PacketKind};
use crate::fabric::port::Port;
use crate::host::FlowKey;
use crate::ids::{FlowId, PortId};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::Duration;
use crate::time::{SimTime, PS_PER_S};
use crate::topology::routing::Routing;
use crate::topology::Topology;

/// Aquarius parameters (`kind = "aquarius"`).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AquariusSpec {
    /// Physical queues per port. Default 8: Aquarius §4 ("all switches have 8 queues per
    /// port"; Aquarius-8 against BFC-8 and BFC-32). Replaces `switch.queues` at its ports.
    #[serde(default = "aquarius_queues")]
    pub queues: u32,
    /// The one-hop RTT of `Q_low`, `Q_high` (§3.2). The paper gives no value ("usually
    /// 1-2 µs", §2.2.1); default (omitted): hopsim's choice, twice the egress link's
    /// propagation delay (BFC's one-hop RTT), 2 µs on §4's 1 µs links.
    #[serde(default)]
    pub hrtt: Option<Duration>,
    /// EWMA weight α of the arrival interval (`T_avg = α·T + (1 − α)·T_avg`, Algorithm 1
    /// line 14). The paper gives no value; default 0.125 is hopsim's choice (the gain of
    /// TCP's smoothed RTT, RFC 6298): about eight packets of memory.
    #[serde(default = "aquarius_ewma")]
    pub ewma_weight: f64,
    /// What NQ_active counts (§3.2): `"busy"` (default, hopsim's choice: queues holding
    /// packets and not paused, BFC's N_active) or `"unpaused"` (every queue not paused,
    /// the text's literal words).
    #[serde(default)]
    pub active_queues: ActiveQueues,
    /// Queues dynamic flow mapping hands to newly active flows: the lowest this many (0,
    /// default: all). Not part of the design: an experiment knob that reproduces §4's
    /// forced sharing ("we limit f1 ~ f3 to the same egress queue"); the other queues
    /// still serve as rsvQ.
    #[serde(default)]
    pub mapping_queues: u32,
}

fn aquarius_queues() -> u32 {
    8
}
fn aquarius_ewma() -> f64 {
    0.125
}

impl Default for AquariusSpec {
    fn default() -> Self {
        AquariusSpec {
            queues: aquarius_queues(),
            hrtt: None,
            ewma_weight: aquarius_ewma(),
            active_queues: ActiveQueues::default(),
            mapping_queues: 0,
        }
    }
}

/// What Aquarius's NQ_active counts.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActiveQueues {
    /// Queues holding packets and not paused (at least 1), as BFC's N_active.
    #[default]
    Busy,
    /// Every queue of the port not paused (at least 1).
    Unpaused,
}

/// An Aquarius frame (§3.3): stop (`pause`) or restart flow `flow` (`reverse`: its ACKs)
/// at the upstream; `queue` is the upstream queue the flow's packet left (at a host, the
/// flow's queue pair), which the PAUSE names beside the FID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AquariusFrame {
    pub flow: FlowId,
    pub queue: u32,
    pub reverse: bool,
    pub pause: bool,
}

pause_resume_frame!(AquariusFrame, ["aquarius_pause", "aquarius_resume"], subject = |f| f.flow.0,);

/// The header fields an Aquarius packet carries: the queue it left at the previous hop,
/// and whether it is congested here (counted in its flow's pause count).
#[derive(Clone, Copy, Debug)]
struct Fields {
    upstream_queue: Field,
    congested: Field,
}

const NO_QUEUE: u32 = u32::MAX;
/// No arrival yet at a queue.
const NEVER: SimTime = SimTime(u64::MAX);

/// A flow's FlowTable entry at one egress port: what Algorithm 1 keeps (mapped queue,
/// size, pause count) and what the upstream side keeps of PAUSEs received (§3.3's
/// QueueTable, per flow).
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// mappedQ (`NO_QUEUE`: none yet).
    queue: u32,
    /// Packets of the flow queued at the port.
    size: u32,
    /// Of these, packets left in the queue it had before it was re-assigned to rsvQ.
    old: u32,
    /// Congested packets of the flow queued here (the upstream is paused while > 0).
    pause_num: u32,
    /// Where the PAUSE went (RESUME follows it there).
    pause_port: PortId,
    /// The downstream told this port to stop the flow.
    paused: bool,
    /// The flow, paused, holds its own queue paused (it was alone there).
    holds_queue: bool,
}

impl Entry {
    const NEW: Entry = Entry {
        queue: NO_QUEUE,
        size: 0,
        old: 0,
        pause_num: 0,
        pause_port: PortId::NONE,
        paused: false,
        holds_queue: false,
    };
}

/// (port, flow, reverse) packed in a u64.
fn key(port: PortId, flow: FlowId, reverse: bool) -> u64 {
    ((port.0 as u64) << 33) | ((flow.0 as u64) << 1) | reverse as u64
}

fn port_of(key: u64) -> PortId {
    PortId((key >> 33) as u32)
}

/// Eq. 1: `⌈L >> ⌈log2 N⌉⌉`, the fair occupation of one of `n` flows in a queue of `l`
/// packets (the division by the power of two at or above N rounded up).
pub fn occu_fair(l: u64, n: u64) -> u64 {
    let k = n.max(1).next_power_of_two().trailing_zeros();
    l.div_ceil(1u64 << k)
}

/// §3.2's thresholds for a port of one-hop BDP `hrtt_bdp` (HRTT · µ, bytes) and packet time
/// `mtu_time_ps` (MTU / µ) with `nq_active` active queues: (Q_low bytes, Q_high bytes,
/// T_min ps).
pub fn thresholds(hrtt_bdp: u64, mtu_time_ps: f64, nq_active: u32) -> (u64, u64, f64) {
    let nq = nq_active.max(1) as u64;
    (hrtt_bdp / nq, 3 * hrtt_bdp / nq, mtu_time_ps * nq as f64)
}

/// Counters of an Aquarius run.
#[derive(Clone, Copy, Debug, Default)]
pub struct AquariusStats {
    /// Flows given a queue when they became active.
    pub assignments: u64,
    /// Of these, flows that got a queue already holding packets (no empty queue).
    pub shared_assignments: u64,
    /// Packets marked congested above Q_high (Algorithm 1 line 7).
    pub high_marks: u64,
    /// Packets marked congested by contribution-aware pausing (line 11).
    pub fair_marks: u64,
    /// PAUSEs met by pausing the flow's own queue (it was alone there).
    pub queue_pauses: u64,
    /// Flows re-assigned to rsvQ (§3.3).
    pub reassignments: u64,
    /// rsvQs taken from the empty queues.
    pub rsv_allocations: u64,
    /// PAUSEs met by pausing a shared queue, no queue being free for rsvQ.
    pub fallback_pauses: u64,
}

/// Aquarius at every switch and NIC.
#[derive(Clone, Debug)]
pub struct Aquarius {
    queues: usize,
    /// Queues dynamic mapping hands out (the lowest ones).
    mapping: usize,
    alpha: f64,
    literal_nq: bool,
    /// Per port (global id): HRTT · µ (bytes) and MTU / µ (ps).
    hrtt_bdp: Vec<u64>,
    mtu_time: Vec<f64>,
    /// Per port: its peer is a host.
    peer_host: Vec<bool>,
    /// (port, flow, reverse) → entry.
    table: KeyMap<Entry>,
    /// Per (port, queue): flows mapped there; flows holding it paused; T_avg (ps; NaN
    /// before the first interval) and the last arrival.
    mapped: Vec<u32>,
    pausers: Vec<u32>,
    tavg: Vec<f64>,
    last_arrival: Vec<SimTime>,
    /// Per port: rsvQ (`NO_QUEUE`: none) and the flows re-assigned to it.
    rsv: Vec<u32>,
    rsv_flows: Vec<Vec<u64>>,
    /// Per flow: its source NIC was told to stop it.
    host_paused: Vec<bool>,
    outbox: Outbox<AquariusFrame>,
    pub stats: AquariusStats,
    fields: Fields,
}

/// Per-port facts Aquarius is built from.
pub struct AquariusPort {
    /// HRTT × the port's rate, bytes.
    pub hrtt_bdp: u64,
    /// A full-sized packet's serialization time at the port's rate, ps.
    pub mtu_time_ps: f64,
    pub peer_host: bool,
}

impl Aquarius {
    fn new(spec: &AquariusSpec, ports: &[AquariusPort], flows: usize, layout: &mut HeaderLayout) -> Aquarius {
        let queues = spec.queues as usize;
        let mapping = if spec.mapping_queues == 0 { queues } else { spec.mapping_queues as usize };
        let n = ports.len() * queues;
        Aquarius {
            queues,
            mapping,
            alpha: spec.ewma_weight,
            literal_nq: spec.active_queues == ActiveQueues::Unpaused,
            hrtt_bdp: ports.iter().map(|p| p.hrtt_bdp).collect(),
            mtu_time: ports.iter().map(|p| p.mtu_time_ps).collect(),
            peer_host: ports.iter().map(|p| p.peer_host).collect(),
            table: KeyMap::default(),
            mapped: vec![0; n],
            pausers: vec![0; n],
            tavg: vec![f64::NAN; n],
            last_arrival: vec![NEVER; n],
            rsv: vec![NO_QUEUE; ports.len()],
            rsv_flows: vec![Vec::new(); ports.len()],
            host_paused: vec![false; flows],
            outbox: Outbox::new(),
            stats: AquariusStats::default(),
            fields: Fields {
                upstream_queue: layout.field("aquarius.upstream_queue", 32),
                congested: layout.field("aquarius.congested", 8),
            },
        }
    }

    fn flow_of(pkt: &Packet) -> (FlowId, bool) {
        (pkt.flow, pkt.kind != PacketKind::Data)
    }

    /// Dynamic flow mapping (§3.1): an empty, unpaused queue (lowest first), else the
    /// shortest unpaused one, else the shortest; never rsvQ while another queue is a
    /// candidate.
    fn map_new_flow(&mut self, egress: PortId, port: &Port) -> u32 {
        let base = egress.idx() * self.queues;
        let rsv = self.rsv[egress.idx()];
        let q = &port.queues;
        let mut best: Option<(bool, u64, u32)> = None;
        for c in 0..self.mapping as u32 {
            if c == rsv {
                continue;
            }
            let paused = q.is_paused(c as usize);
            let bytes = q.queue_bytes(c as usize);
            if !paused && q.queue_len(c as usize) == 0 && self.mapped[base + c as usize] == 0 {
                self.stats.assignments += 1;
                return c;
            }
            if best.is_none_or(|b| (paused, bytes) < (b.0, b.1)) {
                best = Some((paused, bytes, c));
            }
        }
        self.stats.assignments += 1;
        self.stats.shared_assignments += 1;
        best.map_or(rsv, |b| b.2)
    }

    /// rsvQ of `egress`, taken now from the empty queues (the highest first) if there is
    /// none.
    fn rsv_queue(&mut self, egress: PortId, port: &Port) -> Option<u32> {
        let p = egress.idx();
        if self.rsv[p] != NO_QUEUE {
            return Some(self.rsv[p]);
        }
        let base = p * self.queues;
        let q = &port.queues;
        let free = (0..self.queues).rev().find(|&c| {
            q.queue_len(c) == 0
                && !q.is_paused(c)
                && self.mapped[base + c] == 0
                && self.pausers[base + c] == 0
        })?;
        self.rsv[p] = free as u32;
        self.stats.rsv_allocations += 1;
        Some(free as u32)
    }

    /// Map flow `k` at `egress` to queue `q` (it had `from`, or none).
    fn remap(&mut self, egress: PortId, k: u64, q: u32) {
        let base = egress.idx() * self.queues;
        let e = self.table.get_mut(&k).expect("an entry");
        if e.queue != NO_QUEUE {
            self.mapped[base + e.queue as usize] -= 1;
            e.old = e.size;
        }
        e.queue = q;
        self.mapped[base + q as usize] += 1;
        if q == self.rsv[egress.idx()] {
            self.rsv_flows[egress.idx()].push(k);
        }
    }

    /// Pause queue `q` of `port` for one more flow.
    fn hold(&mut self, port: &mut Port, egress: PortId, q: u32, now: SimTime) {
        let i = egress.idx() * self.queues + q as usize;
        self.pausers[i] += 1;
        if self.pausers[i] == 1 {
            port.queues.set_paused(q as usize, true, now);
        }
    }

    /// One flow less holds queue `q` paused. Returns whether it was resumed.
    fn unhold(&mut self, port: &mut Port, egress: PortId, q: u32, now: SimTime) -> bool {
        let i = egress.idx() * self.queues + q as usize;
        self.pausers[i] -= 1;
        self.pausers[i] == 0 && q != self.rsv[egress.idx()] && port.queues.set_paused(q as usize, false, now)
    }

    /// rsvQ is paused while one of its flows is paused or still has older packets in its
    /// original queue (§3.3). Returns whether it was resumed now.
    fn update_rsv(&mut self, port: &mut Port, egress: PortId, now: SimTime) -> bool {
        let p = egress.idx();
        let rsv = self.rsv[p];
        if rsv == NO_QUEUE {
            return false;
        }
        let table = &self.table;
        // CORRECTNESS: a flow's packets in rsvQ are younger than its packets left in its
        // original queue (`old`); rsvQ sends nothing before those have left, so no flow is
        // reordered (tested: removing `old` here reorders Fig 4's f3).
        let hold = self.rsv_flows[p].iter().any(|k| {
            let e = &table[k];
            e.paused || e.old > 0
        });
        port.queues.set_paused(rsv as usize, hold, now) && !hold
    }

    /// The paused flow `k` at `egress` is isolated (§3.3): alone on its queue, the queue
    /// is paused; sharing it, its later packets go to rsvQ, paused; with no queue free for
    /// rsvQ, its shared queue is paused. A flow with no queue yet gets one at its next
    /// packet.
    fn isolate(&mut self, port: &mut Port, egress: PortId, k: u64, now: SimTime) {
        let e = self.table[&k];
        if e.queue == NO_QUEUE {
            return;
        }
        let base = egress.idx() * self.queues;
        if e.queue == self.rsv[egress.idx()] {
            self.update_rsv(port, egress, now);
        } else if self.mapped[base + e.queue as usize] == 1 {
            self.stats.queue_pauses += 1;
            self.hold(port, egress, e.queue, now);
            self.table.get_mut(&k).expect("an entry").holds_queue = true;
        } else if let Some(rsv) = self.rsv_queue(egress, port) {
            self.stats.reassignments += 1;
            self.remap(egress, k, rsv);
            self.update_rsv(port, egress, now);
        } else {
            self.stats.fallback_pauses += 1;
            self.hold(port, egress, e.queue, now);
            self.table.get_mut(&k).expect("an entry").holds_queue = true;
        }
    }

    /// Forget flow `k` once it has nothing queued and is not paused; rsvQ is released when
    /// its last flow goes. Returns whether rsvQ was resumed.
    fn maybe_forget(&mut self, port: &mut Port, egress: PortId, k: u64, now: SimTime) -> bool {
        let e = self.table[&k];
        if e.size > 0 || e.paused {
            return false;
        }
        self.table.remove(&k);
        if e.queue == NO_QUEUE {
            return false;
        }
        let p = egress.idx();
        self.mapped[p * self.queues + e.queue as usize] -= 1;
        if e.queue != self.rsv[p] {
            return false;
        }
        let flows = &mut self.rsv_flows[p];
        if let Some(i) = flows.iter().position(|x| *x == k) {
            flows.swap_remove(i);
        }
        if flows.is_empty() {
            // CORRECTNESS: every flow with packets in rsvQ is mapped to it (a flow keeps its
            // queue while it has packets queued), so rsvQ is empty when its last flow goes.
            debug_assert_eq!(port.queues.queue_len(e.queue as usize), 0, "rsvQ drained with its flows");
            self.rsv[p] = NO_QUEUE;
            return port.queues.set_paused(e.queue as usize, false, now);
        }
        self.update_rsv(port, egress, now)
    }

    /// The queue of `pkt`'s flow at `egress`: its mapped queue while it has one, else a
    /// queue by dynamic mapping (rsvQ or a paused queue of its own if it is paused).
    fn classify_flow(&mut self, port: &mut Port, egress: PortId, pkt: &Packet, now: SimTime) -> usize {
        let (flow, reverse) = Self::flow_of(pkt);
        let k = key(egress, flow, reverse);
        let e = *self.table.entry(k).or_insert(Entry::NEW);
        if e.queue != NO_QUEUE {
            return e.queue as usize;
        }
        if e.paused {
            if let Some(rsv) = self.rsv_queue(egress, port) {
                self.stats.reassignments += 1;
                self.remap(egress, k, rsv);
                self.update_rsv(port, egress, now);
                return rsv as usize;
            }
        }
        let q = self.map_new_flow(egress, port);
        self.remap(egress, k, q);
        if e.paused {
            self.isolate(port, egress, k, now);
        }
        q as usize
    }

    /// The upstream a frame for the packet names: the sender's flow at the first hop (none
    /// for an ACK: NICs never pause them), else the queue it left upstream.
    fn upstream(&self, in_port: PortId, pkt: &Packet, headers: &Headers, slot: usize) -> Option<u32> {
        if !self.peer_host[in_port.idx()] {
            Some(headers.get(slot, self.fields.upstream_queue) as u32)
        } else if pkt.kind == PacketKind::Data {
            Some(pkt.flow.0)
        } else {
            None
        }
    }

    /// NQ_active of `port` for a packet joining queue `q`.
    fn nq_active(&self, port: &Port, q: usize) -> u32 {
        let qs = &port.queues;
        let n = if self.literal_nq {
            (0..self.queues).filter(|&c| !qs.is_paused(c)).count() as u32
        } else {
            let joins = qs.queue_len(q) == 0 && !qs.is_paused(q);
            qs.active_unpaused() + joins as u32
        };
        n.max(1)
    }

    /// Algorithm 1 after the queue is chosen: the packet joins queue `hop.queue` holding
    /// `queue_bytes`. Returns whether a frame waits.
    fn arrive(&mut self, cx: &mut FcCx, hop: &Hop, queue_bytes: u64) -> bool {
        let (flow, reverse) = Self::flow_of(hop.pkt);
        let k = key(hop.egress, flow, reverse);
        let port = &cx.ports[hop.egress.idx()];
        let p = hop.egress.idx();
        let i = p * self.queues + hop.queue;
        let l_bytes = queue_bytes + hop.pkt.wire_bytes as u64;
        let l_pkts = port.queues.queue_len(hop.queue) as u64 + 1;
        let (q_low, q_high, t_min) =
            thresholds(self.hrtt_bdp[p], self.mtu_time[p], self.nq_active(port, hop.queue));
        let t_avg = self.tavg[i];
        let n = self.mapped[i].max(1) as u64;
        let e = self.table.get_mut(&k).expect("classified before arrival");
        e.size += 1;
        // 1: above Q_high; 2: contribution-aware (above Q_low, T_avg < T_min, over Occu_fair).
        let rule = if l_bytes > q_high {
            1
        } else if l_bytes > q_low && t_avg < t_min && e.size as u64 > occu_fair(l_pkts, n) {
            2
        } else {
            0
        };
        // T_avg: every arrival, after the decision (α · T + (1 − α) · T_avg).
        if self.last_arrival[i] != NEVER {
            let t = (cx.now.0 - self.last_arrival[i].0) as f64;
            self.tavg[i] = if t_avg.is_nan() { t } else { self.alpha * t + (1.0 - self.alpha) * t_avg };
        }
        self.last_arrival[i] = cx.now;
        let f = self.fields;
        // An ACK from a host is never congested (NICs never pause ACKs).
        let up = if rule > 0 { self.upstream(hop.in_port, hop.pkt, cx.headers, hop.slot) } else { None };
        let Some(up) = up else {
            cx.headers.set(hop.slot, f.congested, 0);
            return false;
        };
        if rule == 1 {
            self.stats.high_marks += 1;
        } else {
            self.stats.fair_marks += 1;
        }
        cx.headers.set(hop.slot, f.congested, 1);
        let e = self.table.get_mut(&k).expect("classified before arrival");
        e.pause_num += 1;
        if e.pause_num == 1 {
            e.pause_port = hop.in_port;
            self.outbox.push_back((hop.in_port, AquariusFrame { flow, queue: up, reverse, pause: true }));
            return true;
        }
        false
    }

    /// Algorithm 2: the packet left `hop.queue`. Returns whether a frame waits.
    fn depart(&mut self, cx: &mut FcCx, hop: &Hop) -> bool {
        let (flow, reverse) = Self::flow_of(hop.pkt);
        let k = key(hop.egress, flow, reverse);
        let f = self.fields;
        let congested = cx.headers.get(hop.slot, f.congested) == 1;
        cx.headers.set(hop.slot, f.congested, 0);
        cx.headers.set(hop.slot, f.upstream_queue, hop.queue as u64);
        let e = self.table.get_mut(&k).expect("a queued flow has an entry");
        e.size -= 1;
        let mut old_drained = false;
        if hop.queue as u32 != e.queue && e.old > 0 {
            e.old -= 1;
            old_drained = e.old == 0;
        }
        let mut signal = false;
        if congested {
            e.pause_num -= 1;
            if e.pause_num == 0 {
                let to = e.pause_port;
                e.pause_port = PortId::NONE;
                self.outbox
                    .push_back((to, AquariusFrame { flow, queue: hop.queue as u32, reverse, pause: false }));
                signal = true;
            }
        }
        let port = &mut cx.ports[hop.egress.idx()];
        if old_drained {
            self.update_rsv(port, hop.egress, cx.now);
        }
        self.maybe_forget(port, hop.egress, k, cx.now);
        signal
    }

    /// A frame for a flow arrived on `port_id` (at a host: its NIC). Returns whether
    /// something may send again.
    fn on_frame_flow(&mut self, cx: &mut FcCx, port_id: PortId, is_host: bool, f: AquariusFrame) -> bool {
        if is_host {
            if !f.reverse {
                self.host_paused[f.flow.idx()] = f.pause;
            }
            return !f.pause;
        }
        let k = key(port_id, f.flow, f.reverse);
        let port = &mut cx.ports[port_id.idx()];
        if f.pause {
            let e = self.table.entry(k).or_insert(Entry::NEW);
            if e.paused {
                return false;
            }
            e.paused = true;
            self.isolate(port, port_id, k, cx.now);
            return false;
        }
        let Some(e) = self.table.get_mut(&k) else { return false };
        if !e.paused {
            return false;
        }
        e.paused = false;
        let (q, held) = (e.queue, e.holds_queue);
        e.holds_queue = false;
        let mut resumed = false;
        if held {
            resumed |= self.unhold(port, port_id, q, cx.now);
        }
        if q != NO_QUEUE && q == self.rsv[port_id.idx()] {
            resumed |= self.update_rsv(port, port_id, cx.now);
        }
        resumed |= self.maybe_forget(port, port_id, k, cx.now);
        resumed
    }

    /// The link of `port_id` failed: the pauses received there are gone.
    fn forget_port(&mut self, cx: &mut FcCx, port_id: PortId) {
        let mut keys: Vec<u64> =
            self.table.iter().filter(|(k, e)| port_of(**k) == port_id && e.paused).map(|(k, _)| *k).collect();
        keys.sort_unstable();
        for k in keys {
            let flow = FlowId(((k >> 1) & 0xffff_ffff) as u32);
            let frame = AquariusFrame { flow, queue: 0, reverse: k & 1 == 1, pause: false };
            self.on_frame_flow(cx, port_id, false, frame);
        }
    }

    /// Flow entries, pauses and rsvQs still held (0 once the network drained).
    pub fn held(&self) -> usize {
        self.table.values().filter(|e| e.size > 0 || e.paused || e.pause_num > 0).count()
            + self.rsv.iter().filter(|r| **r != NO_QUEUE).count()
            + self.host_paused.iter().filter(|p| **p).count()
    }

    /// Physical queues per port.
    pub fn queues(&self) -> usize {
        self.queues
    }
}

impl FlowControlPolicy for Aquarius {
    const NAME: &'static str = "aquarius";
    type Spec = AquariusSpec;
    type Frame = AquariusFrame;
    /// Queue assignment per switch and NIC, frames by value, counts joined in
    /// `join_partition` (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(s: &AquariusSpec) -> Result<(), ScenarioError> {
        super::hooks::check_queues_per_port(s.queues)?;
        check(
            s.mapping_queues <= s.queues,
            "switch.flow_control.mapping_queues",
            format!("expected 0 (all) to queues = {}, got {}", s.queues, s.mapping_queues),
        )?;
        check(
            s.ewma_weight.is_finite() && s.ewma_weight > 0.0 && s.ewma_weight <= 1.0,
            "switch.flow_control.ewma_weight",
            format!("expected a weight in (0, 1], got {}", s.ewma_weight),
        )?;
        if let Some(h) = s.hrtt {
            check(
                h.0 .0 > 0,
                "switch.flow_control.hrtt",
                "expected a positive one-hop RTT, got 0".to_string(),
            )?;
        }
        Ok(())
    }

    fn build(spec: &AquariusSpec, b: &mut FcBuild) -> Self {
        let ports: Vec<AquariusPort> = (0..b.topo.ports.len())
            .map(|i| {
                let s = &b.topo.ports[i];
                let hrtt_ps = spec.hrtt.map_or(2 * s.delay.0, |h| h.0 .0);
                let rate = s.rate.0.max(1) as u128;
                AquariusPort {
                    hrtt_bdp: (rate * hrtt_ps as u128 / 8 / PS_PER_S as u128) as u64,
                    mtu_time_ps: b.mtu_bytes as f64 * 8.0 * PS_PER_S as f64 / rate as f64,
                    peer_host: b.peer_host(i),
                }
            })
            .collect();
        Aquarius::new(spec, &ports, b.flows, b.headers)
    }

    /// Aquarius's own number of queues replaces `switch.queues` at its ports.
    fn data_queues(spec: &AquariusSpec, _classes: usize) -> usize {
        spec.queues as usize
    }

    fn describe(spec: &AquariusSpec, _pfc: Option<&super::pfc_spec::PfcConfig>) -> String {
        format!("aquarius-{}", spec.queues)
    }

    fn outbox(&mut self) -> &mut Outbox<AquariusFrame> {
        &mut self.outbox
    }

    #[inline(never)]
    fn classify(&mut self, cx: &mut FcCx, _sw: usize, egress: PortId, pkt: &Packet, _slot: usize) -> usize {
        self.classify_flow(&mut cx.ports[egress.idx()], egress, pkt, cx.now)
    }

    #[inline(never)]
    fn on_arrival(&mut self, cx: &mut FcCx, hop: &Hop, queue_bytes: u64) -> Arrival {
        Arrival::admitted(self.arrive(cx, hop, queue_bytes))
    }

    #[inline(never)]
    fn on_dequeue(&mut self, cx: &mut FcCx, hop: &Hop) -> bool {
        self.depart(cx, hop)
    }

    #[inline(never)]
    fn on_frame(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, f: AquariusFrame) -> bool {
        self.on_frame_flow(cx, port, is_host, f)
    }

    #[inline(never)]
    fn nic_may_send(
        &self,
        _nic: PortId,
        _port: &Port,
        flow: &FlowKey,
        _routing: &Routing,
        _topo: &Topology,
    ) -> bool {
        !self.host_paused[flow.id.idx()]
    }

    fn on_link_down(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, host_flows: &[FlowId]) {
        if is_host {
            for f in host_flows {
                self.host_paused[f.idx()] = false;
            }
        } else {
            self.forget_port(cx, port);
        }
    }

    fn held(&self) -> Option<usize> {
        Some(Aquarius::held(self))
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = &self.stats;
        vec![
            ("aquarius_assignments", s.assignments),
            ("aquarius_shared_assignments", s.shared_assignments),
            ("aquarius_high_marks", s.high_marks),
            ("aquarius_fair_marks", s.fair_marks),
            ("aquarius_queue_pauses", s.queue_pauses),
            ("aquarius_reassignments", s.reassignments),
            ("aquarius_rsv_allocations", s.rsv_allocations),
            ("aquarius_fallback_pauses", s.fallback_pauses),
        ]
    }

    fn summary_line(&self, sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
        let (pauses, resumes) = (sent("aquarius_pause"), sent("aquarius_resume"));
        use crate::scenario::limits::count;
        (pauses > 0).then(|| {
            (
                "Aquarius",
                format!(
                    "{} pauses (resumes {}); {} flows re-assigned to rsvQ, {} queues paused",
                    count(pauses),
                    count(resumes),
                    count(self.stats.reassignments),
                    count(self.stats.queue_pauses + self.stats.fallback_pauses)
                ),
            )
        })
    }

    /// Every count happened in one partition: summed.
    fn join_partition(&mut self, other: &Self) {
        let (s, o) = (&mut self.stats, &other.stats);
        s.assignments += o.assignments;
        s.shared_assignments += o.shared_assignments;
        s.high_marks += o.high_marks;
        s.fair_marks += o.fair_marks;
        s.queue_pauses += o.queue_pauses;
        s.reassignments += o.reassignments;
        s.rsv_allocations += o.rsv_allocations;
        s.fallback_pauses += o.fallback_pauses;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::packet::test_packet;
    use crate::time::{Delta, Rate};

    /// Eq. 1: the queue length shifted by ⌈log2 N⌉, rounded up.
    #[test]
    fn fair_occupation_is_eq_1() {
        assert_eq!(occu_fair(100, 1), 100);
        assert_eq!(occu_fair(100, 2), 50);
        assert_eq!(occu_fair(100, 3), 25, "N = 3 shifts by ⌈log2 3⌉ = 2");
        assert_eq!(occu_fair(100, 4), 25);
        assert_eq!(occu_fair(101, 4), 26, "rounded up");
        assert_eq!(occu_fair(100, 5), 13, "N = 5 shifts by 3: ⌈100 / 8⌉");
        assert_eq!(occu_fair(7, 8), 1);
        assert_eq!(occu_fair(0, 3), 0);
        assert_eq!(occu_fair(10, 0), 10, "no flow counts as one");
    }

    /// §3.2: Q_low = HRTT·µ/NQ, Q_high = 3·HRTT·µ/NQ, T_min = MTU·NQ/µ; at 100 Gb/s with
    /// a 2 µs HRTT and 1048-byte packets.
    #[test]
    fn thresholds_follow_the_active_queues() {
        let bdp = 25_000; // 100 Gb/s × 2 µs
        let mtu_ps = 1048.0 * 8.0 * 10.0; // 10 ps per bit at 100 Gb/s
        assert_eq!(thresholds(bdp, mtu_ps, 1), (25_000, 75_000, 83_840.0));
        assert_eq!(thresholds(bdp, mtu_ps, 4), (6_250, 18_750, 335_360.0));
        assert_eq!(thresholds(bdp, mtu_ps, 0), thresholds(bdp, mtu_ps, 1), "at least one queue");
        // Built from the topology: 100 Gb/s, 1 µs links → HRTT·µ = 25 KB; an explicit HRTT.
        let spec = AquariusSpec { hrtt: Some(Duration(Delta::from_us(1))), ..AquariusSpec::default() };
        let (a, _) = one_port(&spec);
        assert_eq!(a.hrtt_bdp[0], 12_500);
        let (a, _) = one_port(&AquariusSpec::default());
        assert_eq!(a.hrtt_bdp[0], 25_000);
        assert_eq!(a.mtu_time[0], 1048.0 * 80.0);
    }

    fn one_port(spec: &AquariusSpec) -> (Aquarius, Port) {
        let mut layout = HeaderLayout::default();
        let rate = Rate::gbps(100);
        let delay = Delta::from_us(1);
        let hrtt = spec.hrtt.map_or(2 * delay.0, |h| h.0 .0);
        let ports = [AquariusPort {
            hrtt_bdp: (rate.0 as u128 * hrtt as u128 / 8 / PS_PER_S as u128) as u64,
            mtu_time_ps: 1048.0 * 8.0 * PS_PER_S as f64 / rate.0 as f64,
            peer_host: false,
        }];
        let a = Aquarius::new(spec, &ports, 8, &mut layout);
        let q = spec.queues as usize;
        let port = Port::new(crate::ids::NodeId(0), PortId(0), rate, delay, q, q, Default::default());
        (a, port)
    }

    fn packet(flow: u32) -> Packet {
        let mut p = test_packet(0);
        p.flow = FlowId(flow);
        p
    }

    /// Dynamic mapping: new flows take empty queues, then the shortest; a flow with packets
    /// queued keeps its queue; `mapping_queues` = 1 puts every new flow on queue 0.
    #[test]
    fn new_flows_take_empty_queues_then_the_shortest() {
        let spec = AquariusSpec { queues: 4, ..AquariusSpec::default() };
        let (mut a, mut port) = one_port(&spec);
        let mut store = crate::fabric::store::PacketStore::new();
        let now = SimTime(1);
        let mut qs = Vec::new();
        for f in 0..4 {
            let q = a.classify_flow(&mut port, PortId(0), &packet(f), now);
            a.table.get_mut(&key(PortId(0), FlowId(f), false)).unwrap().size += 1;
            let r = store.insert(packet(f));
            port.queues.enqueue(&mut store, q, r);
            if f == 0 {
                let r = store.insert(packet(f));
                port.queues.enqueue(&mut store, q, r);
            }
            qs.push(q);
        }
        assert_eq!(qs, [0, 1, 2, 3]);
        assert_eq!(a.classify_flow(&mut port, PortId(0), &packet(9), now), 1, "the shortest, lowest first");
        assert_eq!(a.stats.shared_assignments, 1);
        assert_eq!(
            a.classify_flow(&mut port, PortId(0), &packet(0), now),
            0,
            "an active flow keeps its queue"
        );
        let spec = AquariusSpec { queues: 4, mapping_queues: 1, ..AquariusSpec::default() };
        let (mut a, mut port) = one_port(&spec);
        for f in 0..3 {
            assert_eq!(a.classify_flow(&mut port, PortId(0), &packet(f), now), 0);
        }
    }

    /// §3.3: a paused flow sharing its queue moves to rsvQ (paused; the highest empty
    /// queue), which resumes only once the flow is resumed and its older packets left the
    /// original queue; rsvQ is released when its last flow goes. A flow alone on its queue
    /// pauses that queue.
    #[test]
    fn a_congested_flow_sharing_its_queue_moves_to_the_reserved_queue() {
        let spec = AquariusSpec { queues: 4, mapping_queues: 1, ..AquariusSpec::default() };
        let (mut a, mut port) = one_port(&spec);
        let mut store = crate::fabric::store::PacketStore::new();
        let e0 = PortId(0);
        let now = SimTime(1);
        // Flows 1 and 2 share queue 0, two packets of flow 1 queued.
        for f in [1, 2, 1] {
            let q = a.classify_flow(&mut port, e0, &packet(f), now);
            assert_eq!(q, 0);
            a.table.get_mut(&key(e0, FlowId(f), false)).unwrap().size += 1;
            let r = store.insert(packet(f));
            port.queues.enqueue(&mut store, q, r);
        }
        let k1 = key(e0, FlowId(1), false);
        a.table.get_mut(&k1).unwrap().paused = true;
        a.isolate(&mut port, e0, k1, now);
        assert_eq!((a.rsv[0], a.table[&k1].queue, a.table[&k1].old), (3, 3, 2));
        assert!(port.queues.is_paused(3) && !port.queues.is_paused(0), "rsvQ paused, the shared queue not");
        assert_eq!(a.classify_flow(&mut port, e0, &packet(1), now), 3, "later packets go to rsvQ");
        // Resumed while its old packets are still queued: rsvQ stays paused.
        a.table.get_mut(&k1).unwrap().paused = false;
        assert!(!a.update_rsv(&mut port, e0, now));
        assert!(port.queues.is_paused(3));
        // The old packets leave: rsvQ resumes.
        a.table.get_mut(&k1).unwrap().old = 0;
        assert!(a.update_rsv(&mut port, e0, now));
        // Flow 1 drains; rsvQ is released.
        a.table.get_mut(&k1).unwrap().size = 0;
        a.maybe_forget(&mut port, e0, k1, now);
        assert_eq!(a.rsv[0], NO_QUEUE);
        // Flow 2, now alone on queue 0, is paused: queue 0 is paused.
        let k2 = key(e0, FlowId(2), false);
        a.table.get_mut(&k2).unwrap().paused = true;
        a.isolate(&mut port, e0, k2, now);
        assert!(port.queues.is_paused(0));
        assert_eq!(a.stats.queue_pauses, 1);
        assert!(a.unhold(&mut port, e0, 0, now));
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = |f: &dyn Fn(&mut AquariusSpec)| {
            let mut s = AquariusSpec::default();
            f(&mut s);
            Aquarius::validate(&s).unwrap_err().to_string()
        };
        assert!(bad(&|s| s.queues = 0).contains("switch.flow_control.queues"));
        assert!(bad(&|s| s.mapping_queues = 9).contains("switch.flow_control.mapping_queues"));
        assert!(bad(&|s| s.ewma_weight = 0.0).contains("switch.flow_control.ewma_weight"));
        assert!(bad(&|s| s.ewma_weight = f64::NAN).contains("switch.flow_control.ewma_weight"));
        assert!(bad(&|s| s.hrtt = Some(Duration(Delta::ZERO))).contains("switch.flow_control.hrtt"));
        assert!(Aquarius::validate(&AquariusSpec::default()).is_ok());
    }
}
