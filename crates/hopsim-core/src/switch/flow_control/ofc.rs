//! OFC (Xiao et al., "OFC: an Original congestion-based Fine-grained priority Flow
//! Control"): PFC's ingress thresholds, plus a lower *congested* pause threshold at which
//! only the flows of the original congestion are paused, named in the PAUSE frame and
//! passed on hop by hop; the upstream isolates them with a normal queue and two backup
//! queues so paused, resumed and newly arriving packets never mix and each flow stays in
//! order.
//!
//! - **Tables** (§III), per port and priority: `flow_in_port_tab` (the flows holding
//!   packets in the switch that entered by the port, with their packet counts and egress),
//!   `congested_flow_tab` (the flows named by PAUSE frames received on the port, i.e.
//!   stopped at its egress) and `pause_frame_tab` (the flows named by PAUSE frames sent out
//!   of the port to its upstream). Their sizes are counters (Table II's storage).
//! - **Algorithm 1** at the downstream ingress, on every arrival: with
//!   `X_OFF^c ≤ q_in < X_OFF` and an egress port fed by the ingress whose queue is at or
//!   above `X_OFF^c`, a port with *original* congestion (its `congested_flow_tab` empty)
//!   pauses its own flows — the flows of this ingress queued at it — and one with *local*
//!   congestion the stored congested flows; `q_in ≥ X_OFF` pauses everything (PFC's
//!   guarantee: PFC's [`PfcState`] accounting, headroom and XOFF underneath); when `q_in`
//!   falls to `X_ON`, RESUME names the flows `pause_frame_tab` holds for the upstream.
//!   PAUSE and RESUME carry their flow list (the frame grows with it on the wire).
//! - **Algorithm 2** upstream: a PAUSE's flows join `congested_flow_tab`; a RESUME's leave
//!   it, and a copy of the RESUME (an order mark) is placed in the paused queue.
//! - **Algorithm 3**, the nested hierarchical scheme: each priority has a normal queue and
//!   two backup queues. Packets of paused flows go to the paused (backup) queue; on
//!   RESUME the port serves the paused queue instead of the normal one (its resumed
//!   packets are sent, its still-paused ones move to the other, empty, backup queue, which
//!   becomes the paused queue) until the order mark reaches its head; then the normal queue
//!   is served again. Packets arriving meanwhile wait in the normal queue, behind the older
//!   packets of their flow.
//! - Hosts obey per-flow PAUSE / RESUME (and, for `q_in ≥ X_OFF`, stop the priority).
//!
//! **Choices where the paper is silent** (each in `docs/model.md`; parameters where
//! reasonable people differ):
//! - *Whose flows an original-congestion PAUSE names*: Algorithm 1 line 6 reads
//!   `flow_in_port_tab[pri].keys()`; hopsim names the flows of the ingress that are queued
//!   at a congested egress port (Fig 1: S_c pauses F1, not F0, at S_b). `q_in ≥ X_OFF`
//!   names every flow of the ingress.
//! - *Local congestion* (`local_flows`): `"stored"` (default, Algorithm 1 line 8 literally:
//!   every stored congested flow of the congested egress) or `"from_ingress"` (only those
//!   that enter by this ingress).
//! - *When PAUSE is sent*: Algorithm 1 runs on every arrival; a PAUSE is sent only when it
//!   names flows not already paused at that upstream (it names only those), so
//!   `pause_frame_tab` is the union of the PAUSEs sent (a later PAUSE does not overwrite
//!   an earlier one's flows, which would leave them paused for ever).
//! - *`q_in ≥ X_OFF`*: the frame also stops the whole priority at the upstream (a flag),
//!   as PFC does, so flows that start after the PAUSE cannot overflow the headroom.
//! - *Queue lengths*: `q_in` is PFC's ingress account (bytes of the ingress and priority
//!   in the switch); `q_out` is the priority's bytes at the egress port (normal and backup
//!   queues).
//! - *Moving packets*: Algorithm 3 moves a paused packet when it reaches the head of the
//!   queue being served; hopsim moves it at once (at arrival, at a PAUSE, at a rotation),
//!   which keeps the same order per flow and costs no time.
//! - *A RESUME while a rotation runs*: it waits until the order mark of the running one is
//!   served (a PAUSE meanwhile for one of its flows cancels it for that flow); the paper's
//!   `Rotate` swaps the two backup queues' roles.
//! - *Flow identity*: the flow (5-tuple, §III) rather than the (src, dst) pair; ACKs never
//!   enter the tables (a host NIC never pauses them).
//! - *Headroom* above `X_OFF` (`headroom_bytes`): by default 2 MTU + 3 × the port's one-way
//!   BDP (the paper gives none); *wire size* of PAUSE / RESUME: 28 bytes (Ethernet header,
//!   opcode, priority, count, FCS) + `flow_entry_bytes` per flow, at least 64.
//!
//! **Not modelled**: Tofino's recirculation cost of moving packets and its Cuckoo-hash
//! compression of the tables (§IV-B); a PAUSE longer than one MTU is one frame.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::hooks::{Arrival, FcBuild, FcCx, FlowControlPolicy, Hop, Outbox};
use super::keymap::{pair, KeyMap};
use super::pfc::PfcState;
use super::pfc_spec::{PfcConfig, PfcMode};
use crate::fabric::frames::{pause_resume_frame, ListArena, ListId, MIN_FRAME_BYTES};
use crate::fabric::packet::{Packet, PacketKind};
use crate::fabric::port::Port;
use crate::fabric::store::{PacketRef, PacketStore};
use crate::host::FlowKey;
use crate::ids::{FlowId, PortId};
use crate::metrics::DropCause;
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::Bytes;
use crate::time::{SimTime, PS_PER_S};
use crate::topology::routing::Routing;
use crate::topology::Topology;

/// OFC parameters (`kind = "ofc"`).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OfcSpec {
    /// Pause threshold X_OFF on the ingress queue length (bytes of an ingress port and
    /// priority in the switch): above it every flow is paused. Default 75 KB: OFC §IV-A1.
    #[serde(default = "ofc_xoff")]
    pub xoff_bytes: Bytes,
    /// Resume threshold X_ON: RESUME when the ingress queue falls to it. Default 45 KB:
    /// OFC §IV-A1.
    #[serde(default = "ofc_xon")]
    pub xon_bytes: Bytes,
    /// α of the congested pause threshold X_OFF^c = α · X_OFF (§III-C), with
    /// X_ON / X_OFF < α < 1. Default 0.9: §IV-C2's setting (§IV-A1's X_OFF^c "68 KB" is
    /// ≈ 0.9 × 75 KB).
    #[serde(default = "ofc_alpha")]
    pub alpha: f64,
    /// Headroom per (ingress port, priority) above X_OFF, absorbing what is in flight after
    /// the PAUSE. The paper gives none; default (omitted): hopsim's choice, 2 MTU + 3 × the
    /// port's one-way BDP.
    #[serde(default)]
    pub headroom_bytes: Option<Bytes>,
    /// Which flows a *local* congestion port's PAUSE names: `"stored"` (default: every
    /// stored congested flow of the congested egress, Algorithm 1 line 8) or
    /// `"from_ingress"` (only those entering by the pausing ingress). hopsim's parameter.
    #[serde(default)]
    pub local_flows: LocalFlows,
    /// Bytes of one flow entry (`flow_info = src, dst`, §III: two IPv4 addresses) in a
    /// PAUSE / RESUME frame and in the table sizes reported. Default 8.
    #[serde(default = "ofc_entry")]
    pub flow_entry_bytes: u32,
}

fn ofc_xoff() -> Bytes {
    Bytes(75_000)
}
fn ofc_xon() -> Bytes {
    Bytes(45_000)
}
fn ofc_alpha() -> f64 {
    0.9
}
fn ofc_entry() -> u32 {
    8
}

impl Default for OfcSpec {
    fn default() -> Self {
        OfcSpec {
            xoff_bytes: ofc_xoff(),
            xon_bytes: ofc_xon(),
            alpha: ofc_alpha(),
            headroom_bytes: None,
            local_flows: LocalFlows::default(),
            flow_entry_bytes: ofc_entry(),
        }
    }
}

/// Which stored congested flows a local congestion port's PAUSE names.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LocalFlows {
    /// Every stored congested flow of the congested egress (Algorithm 1 line 8).
    #[default]
    Stored,
    /// Only the stored congested flows that enter by the pausing ingress.
    FromIngress,
}

/// An OFC PAUSE or RESUME for priority `priority`: the flows it names are the list `list`
/// (`flows` of them, kept in the policy's arena); `all` (a PAUSE at `q_in ≥ X_OFF`, and
/// the RESUME that ends it) stops or restarts the whole priority too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OfcFrame {
    pub list: ListId,
    pub flows: u16,
    pub priority: u8,
    pub pause: bool,
    pub all: bool,
    /// Bytes per flow entry on the wire (`flow_entry_bytes`).
    pub entry_bytes: u8,
}

/// Fixed part of an OFC frame: Ethernet header (14), opcode (2), priority (2), flow count
/// (2), padding to 4-byte alignment (4), FCS (4).
pub const OFC_FRAME_FIXED_BYTES: u16 = 28;

pause_resume_frame!(
    OfcFrame,
    ["ofc_pause", "ofc_resume"],
    subject = |f| f.priority as u32,
    wire_bytes = |f| {
        // 28 bytes + one entry per flow named, at least a minimum frame.
        let n = OFC_FRAME_FIXED_BYTES as u32 + f.flows as u32 * f.entry_bytes as u32;
        n.clamp(MIN_FRAME_BYTES as u32, u16::MAX as u32) as u16
    },
);

/// Why a PAUSE was sent (Algorithm 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// `X_OFF^c ≤ q_in < X_OFF` at a port with original congestion (line 6).
    Original,
    /// `X_OFF^c ≤ q_in < X_OFF` at a port with local congestion (line 8).
    Local,
    /// `q_in ≥ X_OFF` (line 11).
    All,
    /// A RESUME (`q_in ≤ X_ON`, line 16).
    Resume,
}

/// A frame OFC sent (kept when `[output] control_frames` is on): when, out of which port,
/// why, for which priority, and the flows it named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfcRecord {
    pub time: SimTime,
    /// The tie key of the event that sent it: with `time`, its place in the run's order.
    pub order: u64,
    pub port: PortId,
    pub trigger: Trigger,
    pub priority: u8,
    pub flows: Vec<FlowId>,
}

/// A flow of `flow_in_port_tab`: packets it holds in the switch and the egress they wait at.
#[derive(Clone, Copy, Debug)]
struct FlowEntry {
    packets: u32,
    egress: PortId,
}

/// Algorithm 3's state of one (port, priority): which backup queue (1 or 2) is the paused
/// queue, whether a rotation runs (the other backup queue is served until its order mark),
/// and whether the downstream stopped the whole priority (`q_in ≥ X_OFF` there).
#[derive(Clone, Copy, Debug)]
struct Rotation {
    paused_q: u8,
    rotating: bool,
    all_paused: bool,
}

/// A (priority, flow) key of the ordered tables.
type Key = (u8, u32);

fn class_range(c: u8) -> std::ops::RangeInclusive<Key> {
    (c, 0)..=(c, u32::MAX)
}

/// Counters of an OFC run.
#[derive(Clone, Copy, Debug, Default)]
pub struct OfcStats {
    pub pause_original: u64,
    pub pause_local: u64,
    pub pause_all: u64,
    /// Flows named by PAUSE frames, in total.
    pub flows_paused: u64,
    /// RESUMEs that started a rotation, and that waited for a running one.
    pub rotations: u64,
    pub deferred_resumes: u64,
    /// Packets put in a paused queue: at arrival, and moved from a queue being served.
    pub paused_arrivals: u64,
    pub packets_moved: u64,
}

/// One table's size over time: entries now, the peak, and the integral (entry · ps).
#[derive(Clone, Copy, Debug, Default)]
struct TableSize {
    now: u64,
    peak: u64,
    integral: u128,
}

/// A change of one table's size, logged by a partition of a parallel run: when, in which
/// event (its tie key), by how much.
#[derive(Clone, Copy, Debug)]
struct TableChange {
    time: SimTime,
    order: u64,
    table: u8,
    n: i32,
}

/// The three tables' sizes summed over every switch port (Table II): now, peak, integral,
/// and in a partitioned run the log of changes that the join replays in the run's firing
/// order, since the peak of a network-wide sum is not the sum of the partitions' peaks.
#[derive(Clone, Debug, Default)]
struct TableSizes {
    sizes: [TableSize; 3],
    /// The last hook call (up to which the integrals run), and its event's tie key.
    last_change: SimTime,
    fired: u64,
    changes: Option<Vec<TableChange>>,
}

impl TableSizes {
    /// Advance the integrals to `now`, in the event of tie key `fired`.
    fn tick(&mut self, now: SimTime, fired: u64) {
        let dt = now.0.saturating_sub(self.last_change.0) as u128;
        if dt > 0 {
            for s in &mut self.sizes {
                s.integral += s.now as u128 * dt;
            }
            self.last_change = now;
        }
        self.fired = fired;
    }

    fn add(&mut self, table: usize, n: i64) {
        let s = &mut self.sizes[table];
        s.now = (s.now as i64 + n) as u64;
        s.peak = s.peak.max(s.now);
        if let Some(log) = self.changes.as_mut().filter(|_| n != 0) {
            log.push(TableChange {
                time: self.last_change,
                order: self.fired,
                table: table as u8,
                n: n as i32,
            });
        }
    }

    /// Fold another partition's sizes in: integrals carried to the later of the two last
    /// calls (each partition's tables stay constant after its own), sizes summed, the
    /// logs merged by (time, tie key) — the sequential run's order of the changes, a
    /// stable sort keeping one event's in its sequence — and the peaks replayed from it.
    fn join(&mut self, o: &TableSizes) {
        let end = self.last_change.max(o.last_change);
        for (a, b) in self.sizes.iter_mut().zip(&o.sizes) {
            let carry = |s: &TableSize, from: SimTime| s.integral + s.now as u128 * (end.0 - from.0) as u128;
            a.integral = carry(a, self.last_change) + carry(b, o.last_change);
            a.now += b.now;
        }
        self.last_change = end;
        let log = self.changes.as_mut().expect("a partitioned run logs its changes");
        log.extend_from_slice(o.changes.as_deref().unwrap_or(&[]));
        log.sort_by_key(|c| (c.time, c.order));
        let mut now = [0i64; 3];
        let mut peak = [0u64; 3];
        for c in log.iter() {
            let t = c.table as usize;
            now[t] += c.n as i64;
            peak[t] = peak[t].max(now[t] as u64);
        }
        for (s, p) in self.sizes.iter_mut().zip(peak) {
            s.peak = p;
        }
    }
}

/// OFC at every switch and NIC.
#[derive(Clone, Debug)]
pub struct Ofc {
    classes: usize,
    xoff_c: u64,
    xon: u64,
    local_flows: LocalFlows,
    entry_bytes: u8,
    /// Per switch: PFC's ingress accounting (static X_OFF / X_ON, headroom).
    states: Vec<PfcState>,
    /// Per port (global id): the tables of §III.
    flow_in_port: Vec<BTreeMap<Key, FlowEntry>>,
    congested: Vec<BTreeSet<Key>>,
    pause_frames: Vec<BTreeSet<Key>>,
    /// Per (port, priority): Algorithm 3's queues, and RESUMEs waiting for a rotation.
    rot: Vec<Rotation>,
    pending: Vec<VecDeque<Vec<u32>>>,
    /// Per port: a switch's.
    switch_port: Vec<bool>,
    /// Hosts: (NIC port, flow) paused; per NIC port, priorities stopped (bit per class).
    host_paused: KeyMap<()>,
    host_all: Vec<u64>,
    /// Flow lists of the frames in flight.
    arena: ListArena,
    outbox: Outbox<OfcFrame>,
    /// Sizes of the three tables (entries, over every port) over time.
    tables: TableSizes,
    /// Of a parallel run's first partition: what the others held when joined.
    held_elsewhere: usize,
    switch_ports: u64,
    pub stats: OfcStats,
    /// The frames sent (`[output] control_frames`).
    pub log: Option<Vec<OfcRecord>>,
    scratch: Vec<PacketRef>,
}

const FIP: usize = 0;
const CFT: usize = 1;
const PFT: usize = 2;

impl Ofc {
    /// `headroom` per port (global id); `switches` lists each switch's global port range
    /// and whether this instance simulates it (a switch of another partition gets an empty
    /// PFC state, as [`PfcState::per_switch`] gives it).
    fn new(
        spec: &OfcSpec,
        classes: usize,
        headroom: &[u64],
        switches: &[(std::ops::Range<u32>, bool)],
        log: bool,
    ) -> Ofc {
        let xoff = spec.xoff_bytes.0;
        let cfg = PfcConfig {
            mode: PfcMode::Static { xoff, xon: spec.xon_bytes.0 },
            headroom: None,
            headroom_bdps: 3.0,
            reserve: 0,
            resume_offset: 0,
            classes,
            headroom_from: Default::default(),
        };
        let n = headroom.len();
        let mut switch_port = vec![false; n];
        let states = switches
            .iter()
            .map(|(r, simulated)| {
                for p in r.clone() {
                    switch_port[p as usize] = true;
                }
                if !simulated {
                    return PfcState::new(&cfg, &[]);
                }
                let per_port: Vec<(u64, f64)> = r.clone().map(|p| (headroom[p as usize], 1.0)).collect();
                PfcState::new(&cfg, &per_port)
            })
            .collect();
        Ofc {
            classes,
            xoff_c: (spec.alpha * xoff as f64) as u64,
            xon: spec.xon_bytes.0,
            local_flows: spec.local_flows,
            entry_bytes: spec.flow_entry_bytes as u8,
            states,
            flow_in_port: vec![BTreeMap::new(); n],
            congested: vec![BTreeSet::new(); n],
            pause_frames: vec![BTreeSet::new(); n],
            rot: vec![Rotation { paused_q: 1, rotating: false, all_paused: false }; n * classes],
            pending: vec![VecDeque::new(); n * classes],
            switch_ports: switch_port.iter().filter(|s| **s).count() as u64,
            switch_port,
            host_paused: KeyMap::default(),
            host_all: vec![0; n],
            arena: ListArena::default(),
            outbox: Outbox::new(),
            tables: TableSizes::default(),
            held_elsewhere: 0,
            stats: OfcStats::default(),
            log: log.then(Vec::new),
            scratch: Vec::new(),
        }
    }

    /// The congested pause threshold X_OFF^c, bytes.
    pub fn xoff_c(&self) -> u64 {
        self.xoff_c
    }

    /// A hook was called: advance the tables' size integrals to now.
    fn tick(&mut self, cx: &FcCx) {
        self.tables.tick(cx.now, cx.timers.fired_key());
    }

    #[inline]
    fn ri(&self, port: PortId, c: u8) -> usize {
        port.idx() * self.classes + c as usize
    }

    /// Bytes of priority `c` at egress `port` (its normal and backup queues): `q_out`.
    fn class_bytes(&self, ports: &[Port], port: PortId, c: u8) -> u64 {
        let q = &ports[port.idx()].queues;
        let base = 3 * c as usize;
        (base..base + 3).map(|i| q.queue_bytes(i)).sum()
    }

    /// The queue being served for priority `c` at `port` (0: normal, else a backup).
    fn served_role(&self, port: PortId, c: u8) -> usize {
        let r = self.rot[self.ri(port, c)];
        if r.rotating {
            3 - r.paused_q as usize
        } else {
            0
        }
    }

    /// Hold every queue of (port, c) but the one served; stop all three while the
    /// downstream stopped the priority.
    fn gate(&self, port: &mut Port, port_id: PortId, c: u8, now: SimTime) {
        let served = self.served_role(port_id, c);
        let all = self.rot[self.ri(port_id, c)].all_paused;
        let base = 3 * c as usize;
        for k in 0..3 {
            port.queues.hold(base + k, k != served);
            port.queues.set_paused(base + k, all, now);
        }
    }

    /// Move the packets of paused flows of queue `from` (of priority `c` at `port_id`) to
    /// the tail of queue `to`, in their order; the others keep theirs.
    fn sift(
        &mut self,
        port: &mut Port,
        store: &mut PacketStore,
        port_id: PortId,
        c: u8,
        from: usize,
        to: usize,
    ) {
        let cft = &self.congested[port_id.idx()];
        let congested = |p: &Packet| p.kind == PacketKind::Data && cft.contains(&(c, p.flow.0));
        if !store.iter(port.queues.list(from)).any(|r| congested(store.get(r))) {
            return;
        }
        let n = port.queues.queue_len(from);
        self.scratch.clear();
        for _ in 0..n {
            let r = port.queues.dequeue(store, from).expect("counted");
            if congested(store.get(r)) {
                port.queues.enqueue(store, to, r);
                self.stats.packets_moved += 1;
            } else {
                self.scratch.push(r);
            }
        }
        for &r in &self.scratch {
            port.queues.enqueue(store, from, r);
        }
    }

    /// Send a frame out of `port` naming `flows`.
    fn send(
        &mut self,
        now: SimTime,
        port: PortId,
        c: u8,
        flows: &[u32],
        (pause, all): (bool, bool),
        trigger: Trigger,
    ) {
        let list = self.arena.alloc(flows.iter().copied());
        let frame = OfcFrame {
            list,
            flows: flows.len().min(u16::MAX as usize) as u16,
            priority: c,
            pause,
            all,
            entry_bytes: self.entry_bytes,
        };
        if let Some(log) = &mut self.log {
            let flows = flows.iter().map(|f| FlowId(*f)).collect();
            log.push(OfcRecord { time: now, order: self.tables.fired, port, trigger, priority: c, flows });
        }
        self.outbox.push_back((port, frame));
    }

    /// Add `flows` of priority `c` to `pause_frame_tab` of `in_port`; returns those new.
    fn note_paused(&mut self, in_port: PortId, c: u8, flows: impl IntoIterator<Item = u32>) -> Vec<u32> {
        let tab = &mut self.pause_frames[in_port.idx()];
        let new: Vec<u32> = flows.into_iter().filter(|f| tab.insert((c, *f))).collect();
        self.tables.add(PFT, new.len() as i64);
        new
    }

    /// Algorithm 1 lines 4–9 and 13–14: `X_OFF^c ≤ q_in < X_OFF` at ingress `in_port`.
    fn pause_congested(&mut self, cx: &mut FcCx, in_port: PortId, c: u8) -> bool {
        let fip = &self.flow_in_port[in_port.idx()];
        let mut egresses: Vec<PortId> = fip.range(class_range(c)).map(|(_, e)| e.egress).collect();
        egresses.sort_unstable();
        egresses.dedup();
        egresses.retain(|e| self.class_bytes(cx.ports, *e, c) >= self.xoff_c);
        if egresses.is_empty() {
            return false;
        }
        let mut flows = BTreeSet::new();
        let (mut original, mut local) = (false, false);
        for e in egresses {
            let stored: Vec<u32> = self.congested[e.idx()].range(class_range(c)).map(|k| k.1).collect();
            if stored.is_empty() {
                original = true;
                flows.extend(fip.range(class_range(c)).filter(|(_, v)| v.egress == e).map(|(k, _)| k.1));
            } else {
                local = true;
                let from_ingress = self.local_flows == LocalFlows::FromIngress;
                flows.extend(stored.into_iter().filter(|f| !from_ingress || fip.contains_key(&(c, *f))));
            }
        }
        let new = self.note_paused(in_port, c, flows);
        if new.is_empty() {
            return false;
        }
        let trigger = if original {
            self.stats.pause_original += 1;
            Trigger::Original
        } else {
            debug_assert!(local);
            self.stats.pause_local += 1;
            Trigger::Local
        };
        self.stats.flows_paused += new.len() as u64;
        self.send(cx.now, in_port, c, &new, (true, false), trigger);
        true
    }

    /// Algorithm 1 lines 10–14: `q_in ≥ X_OFF` at ingress `in_port`: every flow.
    fn pause_all(&mut self, cx: &mut FcCx, in_port: PortId, c: u8) {
        let flows: Vec<u32> =
            self.flow_in_port[in_port.idx()].range(class_range(c)).map(|(k, _)| k.1).collect();
        let new = self.note_paused(in_port, c, flows);
        self.stats.pause_all += 1;
        self.stats.flows_paused += new.len() as u64;
        self.send(cx.now, in_port, c, &new, (true, true), Trigger::All);
    }

    /// Algorithm 2 lines 7–9 and Algorithm 3: `flows` of priority `c` resume at `port_id`:
    /// they leave `congested_flow_tab`, an order mark follows the paused queue, which is
    /// served until the mark, its still-paused packets moving to the other backup queue.
    fn start_rotation(
        &mut self,
        port: &mut Port,
        store: &mut PacketStore,
        port_id: PortId,
        c: u8,
        flows: &[u32],
    ) {
        let tab = &mut self.congested[port_id.idx()];
        let removed = flows.iter().filter(|f| tab.remove(&(c, **f))).count();
        self.tables.add(CFT, -(removed as i64));
        let i = self.ri(port_id, c);
        let old = self.rot[i].paused_q as usize;
        let new = 3 - old;
        self.rot[i].paused_q = new as u8;
        self.rot[i].rotating = true;
        let base = 3 * c as usize;
        port.queues.push_marker(store, base + old, c as u64);
        self.sift(port, store, port_id, c, base + old, base + new);
        self.stats.rotations += 1;
    }

    /// A frame arrived at switch port `port_id`.
    fn on_switch_frame(&mut self, cx: &mut FcCx, port_id: PortId, f: OfcFrame, flows: &[u32]) -> bool {
        let c = f.priority;
        let i = self.ri(port_id, c);
        let port = &mut cx.ports[port_id.idx()];
        if f.pause {
            let tab = &mut self.congested[port_id.idx()];
            let added = flows.iter().filter(|fl| tab.insert((c, **fl))).count();
            self.tables.add(CFT, added as i64);
            for list in self.pending[i].iter_mut() {
                list.retain(|fl| !flows.contains(fl));
            }
            if f.all {
                self.rot[i].all_paused = true;
            }
            let base = 3 * c as usize;
            let served = self.served_role(port_id, c);
            let paused = self.rot[i].paused_q as usize;
            self.sift(port, cx.store, port_id, c, base + served, base + paused);
            self.gate(port, port_id, c, cx.now);
            return false;
        }
        if f.all {
            self.rot[i].all_paused = false;
        }
        if self.rot[i].rotating {
            self.pending[i].push_back(flows.to_vec());
            self.stats.deferred_resumes += 1;
        } else {
            self.start_rotation(port, cx.store, port_id, c, flows);
        }
        self.gate(port, port_id, c, cx.now);
        true
    }

    /// Entries, pauses and rotations still held (0 once the network drained).
    pub fn held(&self) -> usize {
        self.tables.sizes.iter().map(|s| s.now as usize).sum::<usize>() + self.held_beside_tables()
    }

    /// Pauses at hosts, rotations and waiting RESUMEs still held (the tables' entries
    /// aside), here and, once joined, in the other partitions.
    fn held_beside_tables(&self) -> usize {
        self.host_paused.len()
            + self.host_all.iter().filter(|b| **b != 0).count()
            + self.rot.iter().filter(|r| r.rotating || r.all_paused).count()
            + self.pending.iter().map(|p| p.len()).sum::<usize>()
            + self.held_elsewhere
    }

    /// Entries of (flow_in_port_tab, congested_flow_tab, pause_frame_tab) now, over every port.
    pub fn table_entries(&self) -> [u64; 3] {
        self.tables.sizes.map(|s| s.now)
    }

    /// Time-averaged size of each table over every switch port together, bytes (Table II
    /// reports it per port: divide by [`Ofc::switch_ports`]), up to the last change.
    pub fn mean_table_bytes(&self) -> [u64; 3] {
        let t = self.tables.last_change.0.max(1) as u128;
        self.tables.sizes.map(|s| (s.integral * self.entry_bytes as u128 / t) as u64)
    }

    /// Table II's statistics: each table's peak entries and mean bytes over every switch port.
    fn table_counters(&self) -> Vec<(&'static str, u64)> {
        let (peak, mean) = (self.tables.sizes.map(|s| s.peak), self.mean_table_bytes());
        vec![
            ("ofc_flow_in_port_tab_peak_entries", peak[FIP]),
            ("ofc_congested_flow_tab_peak_entries", peak[CFT]),
            ("ofc_pause_frame_tab_peak_entries", peak[PFT]),
            ("ofc_flow_in_port_tab_mean_bytes", mean[FIP]),
            ("ofc_congested_flow_tab_mean_bytes", mean[CFT]),
            ("ofc_pause_frame_tab_mean_bytes", mean[PFT]),
        ]
    }

    /// Switch ports in the run.
    pub fn switch_ports(&self) -> u64 {
        self.switch_ports
    }
}

impl FlowControlPolicy for Ofc {
    const NAME: &'static str = "ofc";
    type Spec = OfcSpec;
    type Frame = OfcFrame;
    /// Tables per port, a frame's flow list handed over as it crosses
    /// (`frame_leaves`), Table II's network-wide peaks replayed from the partitions' logs
    /// of changes (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(s: &OfcSpec) -> Result<(), ScenarioError> {
        check(s.xoff_bytes.0 > 0, "switch.flow_control.xoff_bytes", "expected a positive size")?;
        check(
            s.xon_bytes.0 < s.xoff_bytes.0,
            "switch.flow_control.xon_bytes",
            format!("expected X_ON below xoff_bytes = {}, got {}", s.xoff_bytes.0, s.xon_bytes.0),
        )?;
        let low = s.xon_bytes.0 as f64 / s.xoff_bytes.0 as f64;
        check(
            s.alpha.is_finite() && s.alpha > low && s.alpha < 1.0,
            "switch.flow_control.alpha",
            format!("expected X_ON / X_OFF = {low:.3} < alpha < 1 (OFC §III-C), got {}", s.alpha),
        )?;
        check(
            (1..=64).contains(&s.flow_entry_bytes),
            "switch.flow_control.flow_entry_bytes",
            format!("expected 1 to 64 bytes per flow entry, got {}", s.flow_entry_bytes),
        )?;
        if let Some(h) = s.headroom_bytes {
            check(h.0 > 0, "switch.flow_control.headroom_bytes", "expected a positive size")?;
        }
        Ok(())
    }

    fn build(spec: &OfcSpec, b: &mut FcBuild) -> Self {
        let headroom: Vec<u64> = (0..b.topo.ports.len())
            .map(|p| {
                spec.headroom_bytes.map_or_else(
                    || {
                        let s = &b.topo.ports[p];
                        let bdp = s.rate.0 as u128 * s.delay.0 as u128 / 8 / PS_PER_S as u128;
                        2 * b.mtu_bytes as u64 + 3 * bdp as u64
                    },
                    |h| h.0,
                )
            })
            .collect();
        let switches: Vec<(std::ops::Range<u32>, bool)> =
            b.switches.iter().map(|&n| (b.topo.ports_of(n), b.simulates(n))).collect();
        Ofc::new(spec, b.classes, &headroom, &switches, b.output.control_frames)
    }

    /// A normal queue and two backup queues per priority (Algorithm 3).
    fn data_queues(_spec: &OfcSpec, classes: usize) -> usize {
        3 * classes
    }

    fn describe(spec: &OfcSpec, _pfc: Option<&PfcConfig>) -> String {
        format!(
            "ofc (X_OFF {} KB, X_ON {} KB, alpha {})",
            spec.xoff_bytes.0 as f64 / 1e3,
            spec.xon_bytes.0 as f64 / 1e3,
            spec.alpha
        )
    }

    fn outbox(&mut self) -> &mut Outbox<OfcFrame> {
        &mut self.outbox
    }

    /// Backup queues are held until a rotation serves them.
    fn on_start(&mut self, cx: &mut FcCx) {
        for p in 0..self.switch_port.len() {
            if self.switch_port[p] {
                for c in 0..self.classes as u8 {
                    self.gate(&mut cx.ports[p], PortId(p as u32), c, cx.now);
                }
            }
        }
    }

    /// The normal queue of the packet's priority; a packet of a paused flow goes straight to
    /// the paused queue while no rotation runs (where Algorithm 3 would move it at the head).
    #[inline(never)]
    fn classify(&mut self, _cx: &mut FcCx, _sw: usize, egress: PortId, pkt: &Packet, _slot: usize) -> usize {
        let c = pkt.priority;
        let base = 3 * c as usize;
        if pkt.kind == PacketKind::Data {
            let r = self.rot[self.ri(egress, c)];
            if !r.rotating && self.congested[egress.idx()].contains(&(c, pkt.flow.0)) {
                self.stats.paused_arrivals += 1;
                return base + r.paused_q as usize;
            }
        }
        base
    }

    #[inline(never)]
    fn on_arrival(&mut self, cx: &mut FcCx, hop: &Hop, _queue_bytes: u64) -> Arrival {
        self.tick(cx);
        let (pkt, c) = (hop.pkt, hop.pkt.priority);
        let st = &mut self.states[hop.sw];
        let Some(xoff_now) = st.on_arrival(hop.local_in, c, pkt.wire_bytes as u64, hop.buffer) else {
            return Arrival::Refuse(DropCause::HeadroomOverflow);
        };
        let (q_in, x_off) = (st.ingress_bytes(hop.local_in, c), st.is_paused(hop.local_in, c));
        if pkt.kind == PacketKind::Data {
            let fip = &mut self.flow_in_port[hop.in_port.idx()];
            let e = fip.entry((c, pkt.flow.0)).or_insert(FlowEntry { packets: 0, egress: hop.egress });
            if e.packets == 0 {
                self.tables.add(FIP, 1);
            }
            e.packets += 1;
            e.egress = hop.egress;
        }
        if xoff_now {
            self.pause_all(cx, hop.in_port, c);
            return Arrival::AdmitAndSignal;
        }
        if !x_off && q_in >= self.xoff_c && self.pause_congested(cx, hop.in_port, c) {
            return Arrival::AdmitAndSignal;
        }
        Arrival::Admit
    }

    #[inline(never)]
    fn on_dequeue(&mut self, cx: &mut FcCx, hop: &Hop) -> bool {
        self.tick(cx);
        let (pkt, c) = (hop.pkt, hop.pkt.priority);
        let st = &mut self.states[hop.sw];
        st.on_dequeue(hop.local_in, c, pkt.wire_bytes as u64);
        if pkt.kind == PacketKind::Data {
            let fip = &mut self.flow_in_port[hop.in_port.idx()];
            if let Some(e) = fip.get_mut(&(c, pkt.flow.0)) {
                e.packets -= 1;
                if e.packets == 0 {
                    fip.remove(&(c, pkt.flow.0));
                    self.tables.add(FIP, -1);
                }
            }
        }
        if st.ingress_bytes(hop.local_in, c) > self.xon {
            return false;
        }
        let was_all = st.is_paused(hop.local_in, c);
        let all = was_all && st.take_resume(hop.local_in, c, hop.buffer);
        if was_all && !all {
            return false;
        }
        let tab = &mut self.pause_frames[hop.in_port.idx()];
        let flows: Vec<u32> = tab.range(class_range(c)).map(|k| k.1).collect();
        if flows.is_empty() && !all {
            return false;
        }
        for f in &flows {
            tab.remove(&(c, *f));
        }
        self.tables.add(PFT, -(flows.len() as i64));
        self.send(cx.now, hop.in_port, c, &flows, (false, all), Trigger::Resume);
        true
    }

    #[inline(never)]
    fn on_frame(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, f: OfcFrame) -> bool {
        self.tick(cx);
        let flows = self.arena.get(f.list).to_vec();
        self.arena.release(f.list);
        if !is_host {
            return self.on_switch_frame(cx, port, f, &flows);
        }
        for fl in &flows {
            let k = pair(port.0, *fl);
            if f.pause {
                self.host_paused.insert(k, ());
            } else {
                self.host_paused.remove(&k);
            }
        }
        if f.all {
            let bit = 1u64 << (f.priority & 63);
            if f.pause {
                self.host_all[port.idx()] |= bit;
            } else {
                self.host_all[port.idx()] &= !bit;
            }
        }
        !f.pause
    }

    /// The order mark of a rotation reached the head: the normal queue is served again (its
    /// packets of paused flows moving to the paused queue), and a RESUME that waited starts
    /// the next rotation.
    fn on_marker(&mut self, cx: &mut FcCx, port_id: PortId, id: u64) -> bool {
        self.tick(cx);
        let c = id as u8;
        let i = self.ri(port_id, c);
        self.rot[i].rotating = false;
        let port = &mut cx.ports[port_id.idx()];
        let base = 3 * c as usize;
        let paused = base + self.rot[i].paused_q as usize;
        self.sift(port, cx.store, port_id, c, base, paused);
        if let Some(next) = self.pending[i].pop_front() {
            self.start_rotation(port, cx.store, port_id, c, &next);
        }
        self.gate(port, port_id, c, cx.now);
        true
    }

    #[inline(never)]
    fn nic_may_send(
        &self,
        nic: PortId,
        _port: &Port,
        flow: &FlowKey,
        _routing: &Routing,
        _topo: &Topology,
    ) -> bool {
        self.host_all[nic.idx()] & (1u64 << (flow.priority & 63)) == 0
            && !self.host_paused.contains_key(&pair(nic.0, flow.id.0))
    }

    /// The link of `port` failed: what its downstream paused is released (at a host, every
    /// pause of the NIC); what was paused through it upstream is forgotten.
    fn on_link_down(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, _host_flows: &[FlowId]) {
        self.tick(cx);
        if is_host {
            self.host_paused.retain(|k, _| (k >> 32) as u32 != port.0);
            self.host_all[port.idx()] = 0;
            return;
        }
        let sent = std::mem::take(&mut self.pause_frames[port.idx()]);
        self.tables.add(PFT, -(sent.len() as i64));
        for c in 0..self.classes as u8 {
            let flows: Vec<u32> = self.congested[port.idx()].range(class_range(c)).map(|k| k.1).collect();
            let i = self.ri(port, c);
            self.rot[i].all_paused = false;
            if !flows.is_empty() {
                let f = OfcFrame {
                    list: self.arena.alloc(flows.iter().copied()),
                    flows: 0,
                    priority: c,
                    pause: false,
                    all: false,
                    entry_bytes: self.entry_bytes,
                };
                self.arena.release(f.list);
                self.on_switch_frame(cx, port, f, &flows);
            } else {
                self.gate(&mut cx.ports[port.idx()], port, c, cx.now);
            }
        }
    }

    fn held(&self) -> Option<usize> {
        Some(Ofc::held(self))
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = &self.stats;
        let mut all = vec![
            ("ofc_pause_original", s.pause_original),
            ("ofc_pause_local", s.pause_local),
            ("ofc_pause_all", s.pause_all),
            ("ofc_flows_paused", s.flows_paused),
            ("ofc_rotations", s.rotations),
            ("ofc_deferred_resumes", s.deferred_resumes),
            ("ofc_paused_arrivals", s.paused_arrivals),
            ("ofc_packets_moved", s.packets_moved),
        ];
        all.extend(self.table_counters());
        all
    }

    /// The tables' sizes log their changes, for the join's replay.
    fn partitioned(&mut self) {
        self.tables.changes = Some(Vec::new());
    }

    /// Counts summed (each happened in one partition), the tables' sizes joined exactly
    /// ([`TableSizes::join`]), the frame logs merged in the run's order.
    fn join_partition(&mut self, other: &Self) {
        let (s, o) = (&mut self.stats, &other.stats);
        s.pause_original += o.pause_original;
        s.pause_local += o.pause_local;
        s.pause_all += o.pause_all;
        s.flows_paused += o.flows_paused;
        s.rotations += o.rotations;
        s.deferred_resumes += o.deferred_resumes;
        s.paused_arrivals += o.paused_arrivals;
        s.packets_moved += o.packets_moved;
        self.tables.join(&other.tables);
        self.held_elsewhere += other.held_beside_tables();
        if let (Some(log), Some(theirs)) = (self.log.as_mut(), other.log.as_ref()) {
            log.extend(theirs.iter().cloned());
            log.sort_by_key(|r| (r.time, r.order));
        }
    }

    /// Table II's peaks are of a sum over every switch port: only the joined instance has them.
    fn run_wide_counters(&self) -> Vec<(&'static str, u64)> {
        self.table_counters()
    }

    /// The flow list leaves this instance's arena with the frame.
    fn frame_leaves(&mut self, f: &OfcFrame) -> Vec<u32> {
        let items = self.arena.get(f.list).to_vec();
        self.arena.release(f.list);
        items
    }

    fn frame_arrives(&mut self, f: &mut OfcFrame, items: Vec<u32>) {
        f.list = self.arena.alloc(items);
    }

    fn summary_line(&self, sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count;
        let (pauses, resumes) = (sent("ofc_pause"), sent("ofc_resume"));
        let s = &self.stats;
        (pauses > 0).then(|| {
            (
                "OFC",
                format!(
                    "{} pauses ({} original, {} local, {} at X_OFF; {} flows named), {} resumes; {} rotations",
                    count(pauses),
                    count(s.pause_original),
                    count(s.pause_local),
                    count(s.pause_all),
                    count(s.flows_paused),
                    count(resumes),
                    count(s.rotations)
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::frames::Frame;
    use crate::fabric::packet::test_packet;
    use crate::time::{Delta, Rate};

    /// The frame's wire size grows with the flows it names, from a minimum frame.
    #[test]
    fn frames_grow_with_their_flow_list() {
        let list = ListArena::default().alloc([]);
        let f = |n: u16| OfcFrame { list, flows: n, priority: 3, pause: true, all: false, entry_bytes: 8 };
        assert_eq!(f(0).wire_bytes(), 64);
        assert_eq!(f(4).wire_bytes(), 64, "28 + 32 fits a minimum frame");
        assert_eq!(f(5).wire_bytes(), 68);
        assert_eq!(f(100).wire_bytes(), 828);
        assert_eq!((f(1).kind(), f(1).subject()), (0, 3));
    }

    /// §III-C and §IV-A1: X_OFF^c = 0.9 × 75 KB = 67.5 KB ("68 KB"), X_ON 45 KB.
    #[test]
    fn defaults_are_section_iv() {
        let s = OfcSpec::default();
        assert_eq!((s.xoff_bytes.0, s.xon_bytes.0, s.alpha), (75_000, 45_000, 0.9));
        let o = Ofc::new(&s, 1, &[10_000, 10_000], &[(0..2, true)], false);
        assert_eq!(o.xoff_c(), 67_500);
    }

    fn one_port() -> (Ofc, Port, PacketStore) {
        let o = Ofc::new(&OfcSpec::default(), 1, &[10_000], &[(0..1, true)], false);
        let port = Port::new(
            crate::ids::NodeId(0),
            PortId(0),
            Rate::gbps(40),
            Delta::from_ns(20),
            3,
            1,
            Default::default(),
        );
        (o, port, PacketStore::new())
    }

    fn data(flow: u32, seq: u64) -> Packet {
        let mut p = test_packet(0);
        p.flow = FlowId(flow);
        p.seq = seq;
        p
    }

    /// Drain the served queue of priority 0, as the port would (markers end rotations).
    fn drain(o: &mut Ofc, port: &mut Port, store: &mut PacketStore) -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        while let Some(q) = port.queues.next_queue() {
            let r = port.queues.dequeue(store, q).unwrap();
            let p = store.remove(r);
            if p.kind == PacketKind::Marker {
                let i = o.ri(PortId(0), 0);
                o.rot[i].rotating = false;
                let paused = o.rot[i].paused_q as usize;
                o.sift(port, store, PortId(0), 0, 0, paused);
                if let Some(next) = o.pending[i].pop_front() {
                    o.start_rotation(port, store, PortId(0), 0, &next);
                }
                o.gate(port, PortId(0), 0, SimTime::ZERO);
            } else {
                out.push((p.flow.0, p.seq));
            }
        }
        out
    }

    fn arrive(o: &mut Ofc, port: &mut Port, store: &mut PacketStore, p: Packet) {
        let q = {
            let r = o.rot[0];
            if !r.rotating && o.congested[0].contains(&(0, p.flow.0)) {
                r.paused_q as usize
            } else {
                0
            }
        };
        let r = store.insert(p);
        port.queues.enqueue(store, q, r);
    }

    fn pause(o: &mut Ofc, port: &mut Port, store: &mut PacketStore, flows: &[u32]) {
        for f in flows {
            o.congested[0].insert((0, *f));
        }
        let paused = o.rot[0].paused_q as usize;
        let served = o.served_role(PortId(0), 0);
        o.sift(port, store, PortId(0), 0, served, paused);
        o.gate(port, PortId(0), 0, SimTime::ZERO);
    }

    fn resume(o: &mut Ofc, port: &mut Port, store: &mut PacketStore, flows: &[u32]) {
        if o.rot[0].rotating {
            o.pending[0].push_back(flows.to_vec());
        } else {
            o.start_rotation(port, store, PortId(0), 0, flows);
        }
        o.gate(port, PortId(0), 0, SimTime::ZERO);
    }

    /// Algorithm 3: flow 1 paused, then resumed while its newer packets wait in the normal
    /// queue: the older (paused) ones leave first, flow 2 stays paused in the other backup
    /// queue, and every flow leaves in order.
    #[test]
    fn rotation_keeps_each_flow_in_order() {
        let (mut o, mut port, mut store) = one_port();
        o.gate(&mut port, PortId(0), 0, SimTime::ZERO);
        for s in 0..3 {
            arrive(&mut o, &mut port, &mut store, data(1, s));
            arrive(&mut o, &mut port, &mut store, data(2, s));
            arrive(&mut o, &mut port, &mut store, data(3, s));
        }
        pause(&mut o, &mut port, &mut store, &[1, 2]);
        assert_eq!(port.queues.queue_len(1), 6, "flows 1 and 2 moved to the paused queue");
        for s in 3..5 {
            arrive(&mut o, &mut port, &mut store, data(1, s));
            arrive(&mut o, &mut port, &mut store, data(3, s));
        }
        // Only flow 3 is sent while 1 and 2 are paused.
        let sent = drain(&mut o, &mut port, &mut store);
        assert!(sent.iter().all(|(f, _)| *f == 3) && sent.len() == 5, "{sent:?}");
        resume(&mut o, &mut port, &mut store, &[1]);
        assert!(o.rot[0].rotating && o.rot[0].paused_q == 2);
        assert_eq!(port.queues.queue_len(2), 3, "flow 2 moved to the other backup queue");
        // Flow 1's newer packets arrive during the rotation: they wait in the normal queue.
        arrive(&mut o, &mut port, &mut store, data(1, 5));
        let sent = drain(&mut o, &mut port, &mut store);
        assert_eq!(sent, (0..6).map(|s| (1, s)).collect::<Vec<_>>());
        assert!(!o.rot[0].rotating);
        // A RESUME during a rotation waits for it; flow 2 comes out in order after.
        arrive(&mut o, &mut port, &mut store, data(2, 3));
        resume(&mut o, &mut port, &mut store, &[2]);
        let sent = drain(&mut o, &mut port, &mut store);
        assert_eq!(sent, (0..4).map(|s| (2, s)).collect::<Vec<_>>());
        assert_eq!(port.queues.backlog_bytes, 0);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = |f: &dyn Fn(&mut OfcSpec)| {
            let mut s = OfcSpec::default();
            f(&mut s);
            Ofc::validate(&s).unwrap_err().to_string()
        };
        assert!(bad(&|s| s.xoff_bytes = Bytes(0)).contains("switch.flow_control.xoff_bytes"));
        assert!(bad(&|s| s.xon_bytes = Bytes(80_000)).contains("switch.flow_control.xon_bytes"));
        assert!(bad(&|s| s.alpha = 0.5).contains("switch.flow_control.alpha"), "below X_ON / X_OFF");
        assert!(bad(&|s| s.alpha = 1.0).contains("switch.flow_control.alpha"));
        assert!(bad(&|s| s.flow_entry_bytes = 0).contains("switch.flow_control.flow_entry_bytes"));
        assert!(bad(&|s| s.headroom_bytes = Some(Bytes(0))).contains("switch.flow_control.headroom_bytes"));
        assert!(Ofc::validate(&OfcSpec::default()).is_ok());
    }
}
