//! BFC, Backpressure Flow Control (Goyal et al., NSDI 2022): per-hop, per-flow flow control
//! with a bounded number of physical queues per port — Pyrrha's baseline with 32 and 128
//! queues (Pyrrha §2.3, §6.1) and Aquarius's with 8 and 32 (Aquarius §2.2.2).
//!
//! - **Dynamic queue assignment** (BFC §3.2). Each egress port keeps a flow table keyed by
//!   a flow identifier (FID: a hash of the 5-tuple, so distinct flows may share one). A flow
//!   with packets queued at the port is *active* and keeps its queue; a flow that becomes
//!   active gets an empty queue — one no active flow uses — and, when none is, a random one,
//!   which it then shares. A drained flow keeps its queue for `sticky` one-hop RTTs.
//! - **Backpressure** (BFC §3.1, §3.3). A packet carries the id of the queue it left at the
//!   previous hop (the upstream queue; at the first hop, the sender's queue pair). When a
//!   packet joins a queue longer than `Th = one-hop BDP / N_active` (N_active: queues of the
//!   port holding packets and not paused, at least 1), it is counted in the pause counter of
//!   its (ingress port, upstream queue); the counter going 0 → 1 sends PAUSE for that
//!   upstream queue, and going back to 0, when the last counted packet leaves, sends RESUME.
//!   The upstream — a switch port's queue, or the source NIC's flow — stops until resumed.
//!
//! **Choices** (the BFC paper's text was not available here; the Pyrrha paper's BFC runs
//! come from the BFC mode of its authors' simulator, Pyrrha-NS3, whose rules these follow):
//! the FID space per switch is `fids_per_queue` (100) × queues × ports, hashed with a
//! per-switch seed (`fids_per_queue = 0` gives every flow its own FID, Pyrrha-NS3's "ideal"
//! BFC); a drained flow stays on its queue for 2 one-hop RTTs (`STICKY_TH 2`) but a sticky
//! queue may be handed to another flow; the one-hop BDP of a port is its rate × twice its
//! propagation delay. ACKs queued with data get FIDs of their own (their reversed 5-tuple);
//! a host NIC never pauses ACKs, so an ACK from a host is never counted.
//!
//! **Pyrrha-NS3's rules** (`queue_assignment` and `scheduler` = `"pyrrha_ns3"`, off by
//! default): its queue assignment never gives queue 0 and skips paused queues; its switch
//! scheduler favours low-numbered queues (see `BfcQueueAssignment`, `BfcScheduler`;
//! `docs/ns3.md` measures both against Pyrrha-NS3).

use serde::{Deserialize, Serialize};

use super::hooks::{Arrival, FcBuild, FcCx, FlowControlPolicy, Hop, Outbox};
use super::keymap::{pair, KeyMap};
use crate::engine::{pick_below, RngStream};
use crate::fabric::frames::pause_resume_frame;
use crate::fabric::headers::{Field, HeaderLayout, Headers};
use crate::fabric::packet::{Packet, PacketKind};
use crate::fabric::port::Port;
use crate::host::FlowKey;
use crate::ids::{FlowId, PortId};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::two_f64;
use crate::time::{Delta, SimTime};
use crate::topology::routing::{mix64, Routing};
use crate::topology::Topology;

/// BFC parameters (`kind = "bfc"`). Defaults: 32 queues, as BFC's evaluation and Pyrrha's
/// "BFC" (§6.1); the flow table and sticky time of the BFC mode of Pyrrha's authors'
/// simulator (Pyrrha-NS3 `FLOWTB_SIZE 100`, `STICKY_TH 2`), which produced Pyrrha's BFC
/// results.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BfcSpec {
    /// Physical queues per port (BFC-8 in Aquarius, BFC-32 / BFC-128 in Pyrrha). Replaces
    /// `switch.queues` for BFC's ports.
    #[serde(default = "bfc_queues")]
    pub queues: u32,
    /// Flow identifiers per switch = this × queues × ports (5-tuples hashed into them);
    /// 0 gives every flow its own identifier.
    #[serde(default = "bfc_fids_per_queue")]
    pub fids_per_queue: u32,
    /// One-hop RTTs a drained flow keeps its queue.
    #[serde(default = "two_f64")]
    pub sticky: f64,
    /// Which queue a flow becoming active gets: `"empty"` (default; hopsim's reading of BFC
    /// §3.2: the lowest-numbered queue no active flow uses, paused or not, else a random one)
    /// or `"pyrrha_ns3"` (Pyrrha-NS3's `GetUsableQ`: never queue 0; the lowest of the rest
    /// with no active flow and not paused, else a random one of them, busy or not).
    #[serde(default)]
    pub queue_assignment: BfcQueueAssignment,
    /// How a switch port chooses among its queues: `"round_robin"` (default, as every hopsim
    /// port) or `"pyrrha_ns3"` (Pyrrha-NS3's `BEgressQueue::DoDequeueRR`: queue 0 first, then
    /// a pointer quirk that serves the lowest-numbered backlogged queue again and again).
    #[serde(default)]
    pub scheduler: BfcScheduler,
}

/// How BFC's switch ports serve their queues (`scheduler`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BfcScheduler {
    /// Round robin, one packet per turn (as every hopsim switch port).
    #[default]
    RoundRobin,
    /// hopsim's reading of Pyrrha-NS3's switch scheduler (`BEgressQueue::DoDequeueRR`):
    /// queue 0 first; queues 1..queues−1 scanned from a pointer that, after a send, becomes
    /// the served queue's distance from it instead of the position past it — so the
    /// lowest-numbered backlogged queue is served again and again (close to strict
    /// priority by queue number).
    PyrrhaNs3,
}

/// How BFC picks the queue of a flow that becomes active (`queue_assignment`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BfcQueueAssignment {
    /// The lowest-numbered queue no active flow uses, paused or not, among all `queues`;
    /// when there is none, a random one of them (BFC §3.2 as this model reads it).
    #[default]
    Empty,
    /// hopsim's reading of Pyrrha-NS3's BFC mode (`SwitchMmu::GetUsableQ` and
    /// `SwitchNode::MatchQ`): queue 0 is never a flow's; the lowest-numbered of queues
    /// 1..queues−1 that no active flow uses *and that is not paused*; when there is none, a
    /// random one of 1..queues−1, busy or paused alike.
    PyrrhaNs3,
}

fn bfc_queues() -> u32 {
    32
}
fn bfc_fids_per_queue() -> u32 {
    100
}

/// A BFC frame (BFC §3): stop (`pause`) or restart the upstream queue `queue` — a data
/// queue of the port the frame arrives on, or, at a host NIC, the flow with that id (the
/// NIC's queue pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BfcFrame {
    pub queue: u32,
    pub pause: bool,
}

pause_resume_frame!(BfcFrame, ["bfc_pause", "bfc_resume"], subject = |f| f.queue,);

/// The header fields a BFC packet carries: the queue it left at the previous hop, and
/// whether it is counted in that queue's pause counter here.
#[derive(Clone, Copy, Debug)]
pub struct BfcFields {
    pub upstream_queue: Field,
    pub mark: Field,
}

impl BfcFields {
    pub fn register(layout: &mut HeaderLayout) -> BfcFields {
        BfcFields {
            upstream_queue: layout.field("bfc.upstream_queue", 32),
            mark: layout.field("bfc.mark", 8),
        }
    }
}

/// Parameters of BFC (`[switch.flow_control]` with `kind = "bfc"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BfcConfig {
    /// Physical data queues per egress port.
    pub queues: u32,
    /// FIDs per switch = this × queues × ports; 0: every flow its own FID.
    pub fids_per_queue: u32,
    /// One-hop RTTs a drained flow keeps its queue.
    pub sticky_hrtt: f64,
    /// Which queue a flow becoming active gets.
    pub assignment: BfcQueueAssignment,
}

/// A flow's entry in an egress port's flow table.
#[derive(Clone, Copy, Debug)]
struct FlowEntry {
    queue: u32,
    /// Packets of the flow queued at the port (active while > 0).
    packets: u32,
    /// When the flow last had a packet enqueued or dequeued.
    last: SimTime,
}

/// The mark of a packet counted in its upstream queue's pause counter (`bfc.mark`).
const COUNTED: u8 = 1;

/// Counters of a BFC run.
#[derive(Clone, Copy, Debug, Default)]
pub struct BfcStats {
    /// Flows given a queue when they became active.
    pub assignments: u64,
    /// Of these, flows that had to share a queue with another active flow (no empty queue).
    pub shared_assignments: u64,
    /// Most active flows one queue held at once.
    pub max_flows_per_queue: u32,
}

/// BFC at every switch.
#[derive(Clone, Debug)]
pub struct Bfc {
    queues: usize,
    assignment: BfcQueueAssignment,
    /// The scheduler of every switch port, set at the start, and those ports.
    scheduler: BfcScheduler,
    switch_ports: Vec<std::ops::Range<u32>>,
    /// Per port (global id): Th before division (one-hop BDP, bytes) and the sticky time.
    hop_bdp: Vec<u64>,
    sticky: Vec<Delta>,
    /// Per port: its peer is a host (an upstream there is a NIC, paused per flow).
    peer_host: Vec<bool>,
    /// Per switch: FID space (0: exact flow ids), hash seed, random stream.
    fid_space: Vec<u64>,
    seeds: Vec<u64>,
    rngs: Vec<RngStream>,
    /// (egress port, FID) → entry.
    table: KeyMap<FlowEntry>,
    /// Per (port, queue): active flows assigned there.
    queue_flows: Vec<u32>,
    /// (ingress port, upstream queue) → packets counted.
    counters: KeyMap<u32>,
    /// Per flow: its source NIC was told to stop it.
    host_paused: Vec<bool>,
    outbox: Outbox<BfcFrame>,
    pub stats: BfcStats,
    fields: BfcFields,
}

/// Per-port facts BFC is built from.
pub struct BfcPort {
    /// One-hop BDP (rate × twice the propagation delay), bytes.
    pub hop_bdp: u64,
    /// Twice the propagation delay.
    pub hop_rtt: Delta,
    pub peer_host: bool,
}

impl Bfc {
    /// `ports`: every port's facts; `switch_ports[s]`: ports of switch `s`; `seeds` and
    /// `rngs`: per switch (`switch/<node>/bfc`); `flows`: flows in the run.
    pub fn new(
        cfg: BfcConfig,
        ports: &[BfcPort],
        switch_ports: &[u32],
        seeds: Vec<u64>,
        rngs: Vec<RngStream>,
        flows: usize,
        fields: BfcFields,
    ) -> Bfc {
        let queues = cfg.queues as usize;
        Bfc {
            queues,
            assignment: cfg.assignment,
            scheduler: BfcScheduler::RoundRobin,
            switch_ports: Vec::new(),
            hop_bdp: ports.iter().map(|p| p.hop_bdp).collect(),
            sticky: ports
                .iter()
                .map(|p| Delta((p.hop_rtt.0 as f64 * cfg.sticky_hrtt).round() as u64))
                .collect(),
            peer_host: ports.iter().map(|p| p.peer_host).collect(),
            fid_space: switch_ports
                .iter()
                .map(|&n| cfg.fids_per_queue as u64 * queues as u64 * n as u64)
                .collect(),
            seeds,
            rngs,
            table: KeyMap::default(),
            queue_flows: vec![0; ports.len() * queues],
            counters: KeyMap::default(),
            host_paused: vec![false; flows],
            outbox: Outbox::new(),
            stats: BfcStats::default(),
            fields,
        }
    }

    /// The FID of `pkt` at switch `sw`.
    #[inline]
    fn fid(&self, sw: usize, pkt: &Packet) -> u32 {
        let space = self.fid_space[sw];
        if space == 0 {
            return (pkt.flow.0 << 1) | (pkt.kind != PacketKind::Data) as u32;
        }
        let a = ((pkt.src.0 as u64) << 32) | pkt.dst.0 as u64;
        let b = ((pkt.sport as u64) << 16) | pkt.dport as u64;
        (mix64(mix64(a ^ self.seeds[sw]) ^ b) % space) as u32
    }

    /// The queue of `pkt`'s flow at `egress` (`port`): its own while it is active (or
    /// sticky), else an empty queue (under `pyrrha_ns3`: empty and not paused), else a
    /// random one.
    #[inline(never)]
    fn classify_flow(&mut self, sw: usize, egress: PortId, port: &Port, pkt: &Packet, now: SimTime) -> usize {
        let fid = self.fid(sw, pkt);
        let sticky = self.sticky[egress.idx()];
        let e = self.table.entry(pair(egress.0, fid)).or_insert(FlowEntry {
            queue: u32::MAX,
            packets: 0,
            last: SimTime::ZERO,
        });
        if e.packets > 0 || (e.queue != u32::MAX && now <= e.last + sticky) {
            return e.queue as usize;
        }
        let base = egress.idx() * self.queues;
        let flows = &self.queue_flows[base..base + self.queues];
        // Queues a flow may get: all, or 1.. in Pyrrha-NS3 (its queue 0 is for control).
        let first = match self.assignment {
            BfcQueueAssignment::Empty => 0,
            BfcQueueAssignment::PyrrhaNs3 => 1,
        };
        let usable = |q: usize| {
            flows[q] == 0
                && match self.assignment {
                    BfcQueueAssignment::Empty => true,
                    BfcQueueAssignment::PyrrhaNs3 => !port.queues.is_paused(q),
                }
        };
        let q = match (first..self.queues).find(|&q| usable(q)) {
            Some(q) => q,
            None => {
                self.stats.shared_assignments += 1;
                first + pick_below(&mut self.rngs[sw], self.queues - first)
            }
        };
        self.stats.assignments += 1;
        e.queue = q as u32;
        q
    }

    /// The queue a frame for the packet's upstream names: the sender's flow at the first
    /// hop (none for an ACK: NICs never pause them), else the queue it left upstream.
    #[inline]
    fn upstream(&self, in_port: PortId, pkt: &Packet, upstream_queue: u32) -> Option<u32> {
        if !self.peer_host[in_port.idx()] {
            Some(upstream_queue)
        } else if pkt.kind == PacketKind::Data {
            Some(pkt.flow.0)
        } else {
            None
        }
    }

    /// The packet joins `queue` of `egress` (which will hold `bytes_after`): the flow is
    /// active; above the threshold the packet is counted for its upstream queue, which is
    /// paused when its counter leaves 0. Returns whether a frame waits.
    #[allow(clippy::too_many_arguments)]
    fn arrive(
        &mut self,
        sw: usize,
        in_port: PortId,
        egress: PortId,
        port: &Port,
        queue: usize,
        bytes_after: u64,
        pkt: &Packet,
        headers: &mut Headers,
        slot: usize,
        now: SimTime,
    ) -> bool {
        let fid = self.fid(sw, pkt);
        let e = self.table.get_mut(&pair(egress.0, fid)).expect("classified before arrival");
        e.packets += 1;
        e.last = now;
        if e.packets == 1 {
            let n = &mut self.queue_flows[egress.idx() * self.queues + queue];
            *n += 1;
            self.stats.max_flows_per_queue = self.stats.max_flows_per_queue.max(*n);
        }
        let q = &port.queues;
        let joins_active = q.queue_len(queue) == 0 && !q.is_paused(queue);
        let active = (q.active_unpaused() + joins_active as u32).max(1) as u64;
        let f = self.fields;
        headers.set(slot, f.mark, 0);
        if bytes_after <= self.hop_bdp[egress.idx()] / active {
            return false;
        }
        let upstream_queue = headers.get(slot, f.upstream_queue) as u32;
        let Some(up) = self.upstream(in_port, pkt, upstream_queue) else { return false };
        headers.set(slot, f.mark, COUNTED as u64);
        let c = self.counters.entry(pair(in_port.0, up)).or_insert(0);
        *c += 1;
        if *c == 1 {
            self.outbox.push_back((in_port, BfcFrame { queue: up, pause: true }));
            return true;
        }
        false
    }

    /// The packet left `queue` of `egress`: the flow may become inactive; a counted packet
    /// leaving takes its upstream queue's counter down, to RESUME at 0. The packet now
    /// names this queue as its upstream. Returns whether a frame waits.
    #[allow(clippy::too_many_arguments)]
    fn depart(
        &mut self,
        sw: usize,
        in_port: PortId,
        egress: PortId,
        queue: usize,
        pkt: &Packet,
        headers: &mut Headers,
        slot: usize,
        now: SimTime,
    ) -> bool {
        let fid = self.fid(sw, pkt);
        let key = pair(egress.0, fid);
        let e = self.table.get_mut(&key).expect("a queued flow has an entry");
        e.packets -= 1;
        e.last = now;
        if e.packets == 0 {
            self.queue_flows[egress.idx() * self.queues + e.queue as usize] -= 1;
            if self.sticky[egress.idx()] == Delta::ZERO {
                self.table.remove(&key);
            }
        }
        let f = self.fields;
        let mut signal = false;
        if headers.get(slot, f.mark) == COUNTED as u64 {
            let upstream_queue = headers.get(slot, f.upstream_queue) as u32;
            let up = self.upstream(in_port, pkt, upstream_queue).expect("counted packets have an upstream");
            let ckey = pair(in_port.0, up);
            let c = self.counters.get_mut(&ckey).expect("a counted packet has a counter");
            *c -= 1;
            if *c == 0 {
                self.counters.remove(&ckey);
                self.outbox.push_back((in_port, BfcFrame { queue: up, pause: false }));
                signal = true;
            }
        }
        headers.set(slot, f.mark, 0);
        headers.set(slot, f.upstream_queue, queue as u64);
        signal
    }

    /// A frame for upstream queue `queue` arrived on `port`: pause or resume that queue (at
    /// a host NIC: that flow). Returns whether something may send again.
    fn on_frame_queue(
        &mut self,
        port: &mut Port,
        is_host: bool,
        queue: u32,
        pause: bool,
        now: SimTime,
    ) -> bool {
        if is_host {
            self.host_paused[queue as usize] = pause;
            return !pause;
        }
        port.queues.set_paused(queue as usize, pause, now) && !pause
    }

    /// Whether the source NIC of `flow` is told to stop it.
    #[inline]
    pub fn host_paused(&self, flow: FlowId) -> bool {
        self.host_paused[flow.idx()]
    }

    /// A host's link failed: its flows' pauses are gone.
    fn forget_hosts(&mut self, host_flows: &[FlowId]) {
        for f in host_flows {
            self.host_paused[f.idx()] = false;
        }
    }

    /// Active flows and pause counters still held (0 once the network drained).
    pub fn held(&self) -> usize {
        self.table.values().filter(|e| e.packets > 0).count() + self.counters.len()
    }

    /// Physical queues per port.
    pub fn queues(&self) -> usize {
        self.queues
    }

    /// Serve the queues of `switch_ports` (global port ranges, one per switch) with
    /// `scheduler` from the start of the run.
    pub fn with_scheduler(mut self, scheduler: BfcScheduler, switch_ports: Vec<std::ops::Range<u32>>) -> Bfc {
        self.scheduler = scheduler;
        self.switch_ports = switch_ports;
        self
    }
}

impl FlowControlPolicy for Bfc {
    const NAME: &'static str = "bfc";
    type Spec = BfcSpec;
    type Frame = BfcFrame;
    /// Flow tables and queue assignment per switch, pause frames by value: a partitioned
    /// run gives one thread's tables (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(b: &BfcSpec) -> Result<(), ScenarioError> {
        super::hooks::check_queues_per_port(b.queues)?;
        check(
            b.fids_per_queue <= 1_000_000,
            "switch.flow_control.fids_per_queue",
            format!("expected 0 (exact flow ids) to 1000000, got {}", b.fids_per_queue),
        )?;
        check(
            b.sticky.is_finite() && b.sticky >= 0.0,
            "switch.flow_control.sticky",
            format!("expected a number of one-hop RTTs ≥ 0, got {}", b.sticky),
        )?;
        check(
            b.queue_assignment != BfcQueueAssignment::PyrrhaNs3 || b.queues >= 2,
            "switch.flow_control.queues",
            format!(
                "queue_assignment = \"pyrrha_ns3\" keeps queue 0 from flows, so it needs at least 2 queues, got {}",
                b.queues
            ),
        )?;
        check(
            b.scheduler != BfcScheduler::PyrrhaNs3 || b.queues >= 2,
            "switch.flow_control.queues",
            format!(
                "scheduler = \"pyrrha_ns3\" serves queue 0 apart from the others, so it needs at least 2 queues, got {}",
                b.queues
            ),
        )
    }

    fn build(spec: &BfcSpec, b: &mut FcBuild) -> Self {
        let cfg = BfcConfig {
            queues: spec.queues,
            fids_per_queue: spec.fids_per_queue,
            sticky_hrtt: spec.sticky,
            assignment: spec.queue_assignment,
        };
        let ports: Vec<BfcPort> = (0..b.topo.ports.len())
            .map(|i| BfcPort { hop_bdp: b.hop_bdp(i), hop_rtt: b.hop_rtt(i), peer_host: b.peer_host(i) })
            .collect();
        let port_counts: Vec<u32> = b.switches.iter().map(|n| b.topo.ports_of(*n).len() as u32).collect();
        let seeds = b
            .switches
            .iter()
            .map(|n| crate::engine::stream_seed(b.seed, &format!("switch/{}/bfc-fid", n.0)))
            .collect();
        let fields = BfcFields::register(b.headers);
        let ranges = b.switches.iter().map(|n| b.topo.ports_of(*n)).collect();
        Bfc::new(cfg, &ports, &port_counts, seeds, b.switch_streams("bfc"), b.flows, fields)
            .with_scheduler(spec.scheduler, ranges)
    }

    /// Pyrrha-NS3's scheduler, when asked for, at every switch port.
    fn on_start(&mut self, cx: &mut FcCx) {
        if self.scheduler == BfcScheduler::PyrrhaNs3 {
            for p in self.switch_ports.iter().flat_map(|r| r.clone()) {
                cx.ports[p as usize].queues.set_scheduler(crate::fabric::queues::Scheduler::PyrrhaNs3);
            }
        }
    }

    /// BFC's own number of physical queues replaces `switch.queues` at its ports.
    fn data_queues(spec: &BfcSpec, _classes: usize) -> usize {
        spec.queues as usize
    }

    fn describe(spec: &BfcSpec, _pfc: Option<&super::pfc_spec::PfcConfig>) -> String {
        format!("bfc-{}", spec.queues)
    }

    fn outbox(&mut self) -> &mut Outbox<BfcFrame> {
        &mut self.outbox
    }

    #[inline(never)]
    fn classify(&mut self, cx: &mut FcCx, sw: usize, egress: PortId, pkt: &Packet, _slot: usize) -> usize {
        self.classify_flow(sw, egress, &cx.ports[egress.idx()], pkt, cx.now)
    }

    #[inline(never)]
    fn on_arrival(&mut self, cx: &mut FcCx, hop: &Hop, queue_bytes: u64) -> Arrival {
        let after = queue_bytes + hop.pkt.wire_bytes as u64;
        let port = &cx.ports[hop.egress.idx()];
        let frames = self.arrive(
            hop.sw,
            hop.in_port,
            hop.egress,
            port,
            hop.queue,
            after,
            hop.pkt,
            cx.headers,
            hop.slot,
            cx.now,
        );
        Arrival::admitted(frames)
    }

    #[inline(never)]
    fn on_dequeue(&mut self, cx: &mut FcCx, hop: &Hop) -> bool {
        self.depart(hop.sw, hop.in_port, hop.egress, hop.queue, hop.pkt, cx.headers, hop.slot, cx.now)
    }

    #[inline(never)]
    fn on_frame(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, f: BfcFrame) -> bool {
        self.on_frame_queue(&mut cx.ports[port.idx()], is_host, f.queue, f.pause, cx.now)
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
        !self.host_paused(flow.id)
    }

    fn on_link_down(&mut self, _cx: &mut FcCx, _port: PortId, _is_host: bool, host_flows: &[FlowId]) {
        self.forget_hosts(host_flows);
    }

    fn held(&self) -> Option<usize> {
        Some(Bfc::held(self))
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("bfc_assignments", self.stats.assignments),
            ("bfc_shared_assignments", self.stats.shared_assignments),
            ("bfc_max_flows_per_queue", self.stats.max_flows_per_queue as u64),
        ]
    }

    fn summary_line(&self, sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
        let (pauses, resumes) = (sent("bfc_pause"), sent("bfc_resume"));
        use crate::scenario::limits::count as thousands;
        // Printed when zero too: a mechanism that ran and never paused says so.
        Some(("BFC pauses", format!("{} (resumes {})", thousands(pauses), thousands(resumes))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng_stream;
    use crate::fabric::packet::test_packet;
    use crate::time::Rate;

    fn four_queue_bfc(assignment: BfcQueueAssignment) -> (Bfc, Headers, Port) {
        let ports = [BfcPort { hop_bdp: 25_000, hop_rtt: Delta::from_us(2), peer_host: false }];
        let cfg = BfcConfig { queues: 4, fids_per_queue: 0, sticky_hrtt: 1.0, assignment };
        let mut layout = HeaderLayout::default();
        let fields = BfcFields::register(&mut layout);
        let bfc = Bfc::new(cfg, &ports, &[1], vec![1], vec![rng_stream(1, "t")], 64, fields);
        let headers = Headers::new(&layout);
        let port = Port::new(
            crate::ids::NodeId(0),
            PortId(0),
            Rate::gbps(100),
            Delta::ZERO,
            4,
            4,
            Default::default(),
        );
        (bfc, headers, port)
    }

    fn packet(flow: u32) -> Packet {
        let mut p = test_packet(0);
        p.flow = FlowId(flow);
        p
    }

    /// Flow `f` becomes active at `egress` 0: classified, then its packet joins the queue.
    fn activate(bfc: &mut Bfc, headers: &mut Headers, port: &Port, f: u32, now: SimTime) -> usize {
        let p = packet(f);
        let q = bfc.classify_flow(0, PortId(0), port, &p, now);
        headers.reset(f as usize);
        bfc.arrive(0, PortId(0), PortId(0), port, q, 1048, &p, headers, f as usize, now);
        q
    }

    /// Four queues, one port: active flows take empty queues first, a fifth shares; a
    /// drained flow's queue is handed on once its sticky time is over.
    #[test]
    fn active_flows_take_empty_queues_then_share() {
        let (mut bfc, mut headers, port) = four_queue_bfc(BfcQueueAssignment::Empty);
        let egress = PortId(0);
        let now = SimTime::ZERO;
        let queues: Vec<usize> = (0..5).map(|f| activate(&mut bfc, &mut headers, &port, f, now)).collect();
        assert_eq!(&queues[..4], &[0, 1, 2, 3], "empty queues first");
        assert!(queues[4] < 4);
        assert_eq!((bfc.stats.assignments, bfc.stats.shared_assignments), (5, 1));
        assert_eq!(bfc.stats.max_flows_per_queue, 2);
        // Flow 0 leaves: its queue is free for a new flow once flow 0's sticky time is over.
        let p0 = packet(0);
        headers.reset(7);
        bfc.depart(0, PortId(0), egress, 0, &p0, &mut headers, 7, now);
        if queues[4] != 0 {
            assert_eq!(
                bfc.classify_flow(0, egress, &port, &packet(6), SimTime(1)),
                0,
                "queue 0 has no active flow"
            );
        }
        assert_eq!(bfc.classify_flow(0, egress, &port, &p0, SimTime(1)), 0, "flow 0 is still sticky");
    }

    /// The default rule hands a new flow an empty queue even when it is paused.
    #[test]
    fn empty_rule_hands_out_a_paused_empty_queue() {
        let (mut bfc, mut headers, mut port) = four_queue_bfc(BfcQueueAssignment::Empty);
        let now = SimTime::ZERO;
        assert!(port.queues.set_paused(0, true, now));
        assert_eq!(activate(&mut bfc, &mut headers, &port, 0, now), 0, "paused but empty");
        assert_eq!(bfc.stats.shared_assignments, 0);
    }

    /// Pyrrha-NS3's rule: queue 0 is never a flow's; a paused queue is skipped while an
    /// empty unpaused one exists; with none, a random one of 1..queues−1, paused or busy.
    #[test]
    fn pyrrha_ns3_rule_skips_paused_queues_and_queue_0() {
        let (mut bfc, mut headers, mut port) = four_queue_bfc(BfcQueueAssignment::PyrrhaNs3);
        let now = SimTime::ZERO;
        assert!(port.queues.set_paused(1, true, now));
        assert_eq!(activate(&mut bfc, &mut headers, &port, 0, now), 2, "not 0, not paused 1");
        assert_eq!(activate(&mut bfc, &mut headers, &port, 1, now), 3);
        assert_eq!(bfc.stats.shared_assignments, 0);
        // Queues 0 (reserved) and 1 (paused) are empty, 2 and 3 busy: no usable queue.
        let mut seen = [0u32; 4];
        for f in 2..42 {
            let q = activate(&mut bfc, &mut headers, &port, f, now);
            seen[q] += 1;
        }
        assert_eq!(seen[0], 0, "queue 0 is never a flow's");
        assert!(seen[1] > 0, "the random fallback may pick the paused queue");
        assert!(seen[2] > 0 && seen[3] > 0, "or a busy one: {seen:?}");
        assert_eq!(bfc.stats.shared_assignments, 40);
        // A fresh port with queues 1 and 2 paused: 3 is taken, then 1 once resumed.
        let (mut bfc, mut headers, mut port) = four_queue_bfc(BfcQueueAssignment::PyrrhaNs3);
        assert!(port.queues.set_paused(1, true, now));
        assert!(port.queues.set_paused(2, true, now));
        assert_eq!(activate(&mut bfc, &mut headers, &port, 0, now), 3);
        port.queues.set_paused(1, false, now);
        assert_eq!(activate(&mut bfc, &mut headers, &port, 1, now), 1, "resumed, so usable");
        // The default rule on the same state would have taken queue 0.
        let (mut bfc, mut headers, mut port) = four_queue_bfc(BfcQueueAssignment::Empty);
        assert!(port.queues.set_paused(1, true, now));
        assert_eq!(activate(&mut bfc, &mut headers, &port, 0, now), 0);
        assert_eq!(activate(&mut bfc, &mut headers, &port, 1, now), 1, "paused but empty");
    }
}
