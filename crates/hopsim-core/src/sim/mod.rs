//! The simulator: owns the network state and runs the event loop.
//!
//! Handlers are methods on [`Simulator`] split by concern: links and control frames here,
//! switch forwarding in `switch`, host NICs and transport in `host`. A packet crossing a
//! switch costs no event of its own: arrival, routing, admission and enqueue happen in the
//! arrival handler, and each busy port has exactly one pending `TxDone`.

mod build;
mod classify;
mod deadlock;
mod faults;
mod memory;
mod observe;
pub mod parallel;
mod query;
mod tables;
mod timers;
mod trees;

use crate::engine::Event;
use crate::fabric::packet::{PacketFlags, PacketKind};
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::host::Hosts;
use crate::ids::{FlowId, NodeId, PortId};
use crate::metrics::{DropCause, FlowRecord, FrameCount, PfcEvent, PortRecord, RateSample, Summary};
use crate::observe::PacketEvent;
use crate::scenario::{Scenario, ScenarioError};
use crate::switch::flow_control::frame_kinds;
use crate::switch::{ControlEvent, ControlPayload, Switches};
use crate::time::SimTime;
use crate::topology::{Routing, Topology};

pub use crate::scenario::ValidScenario;
pub use classify::FlowClass;
pub use deadlock::{Deadlock, DeadlockMember};
pub use faults::LinkFault;
pub use memory::MemoryReport;

/// The workload's progress: what a progress bar measures (simulated time alone says little
/// about how much is left: a run's last flows may finish long before its time limit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkDone {
    pub flows_total: u64,
    /// Flows whose last byte was acknowledged.
    pub flows_finished: u64,
    /// The flows' sizes summed.
    pub bytes_total: u64,
    /// Bytes acknowledged to their senders, summed over the flows.
    pub bytes_acked: u64,
}

/// Valid settings that rarely do what a reader expects, said before the run: a load
/// balancer that reorders a flow's packets under go-back-N recovery (every reordering
/// costs a resend from the gap), and an incast asking more flows a round than it has
/// senders (senders repeat).
fn traps(v: &ValidScenario) -> Vec<(&'static str, String)> {
    use crate::scenario::{LossRecovery, TransportKind, WorkloadSpec};
    let mut out = Vec::new();
    let t = &v.scenario.transport;
    let lb = &v.policies.load_balancer;
    if lb.reorders()
        && *t.kind == TransportKind::Roce
        && t.loss_recovery == LossRecovery::GoBackN
        && !t.reorder_buffer.enabled
    {
        out.push((
            "routing",
            format!(
                "routing.load_balancer = \"{}\" sends a flow's packets over several paths, so they arrive \
                 out of order, and transport.loss_recovery = \"go_back_n\" resends everything from the first \
                 gap: expect retransmissions and slow flows (\"irn\", or transport.reorder_buffer.enabled = true, \
                 keeps what arrives out of order)",
                lb.kind()
            ),
        ));
    }
    if let Some(msg) = short_pfc_headroom(v) {
        out.push(("pfc", msg));
    }
    let hosts = v.topo.hosts.len();
    for (i, w) in v.scenario.workload.as_slice().iter().enumerate() {
        let WorkloadSpec::Incast(inc) = w else { continue };
        let senders = match &inc.senders {
            Some(list) => {
                let mut s: Vec<u32> = list.iter().copied().filter(|h| *h != inc.receiver).collect();
                s.sort_unstable();
                s.dedup();
                s.len()
            }
            None => hosts.saturating_sub(1),
        };
        let fan_in = inc.fan_in as usize;
        if senders > 0 && fan_in > senders {
            let (lo, hi) = (fan_in / senders, fan_in.div_ceil(senders));
            let each = if lo == hi { format!("{lo}") } else { format!("{lo} or {hi}") };
            out.push((
                "workload",
                format!(
                    "workload[{i}].fan_in = {fan_in} exceeds the {senders} hosts that may send: senders \
                     repeat, each sending {each} flows a round (an N-to-1 incast of distinct senders needs \
                     fan_in <= {senders})"
                ),
            ));
        }
    }
    out
}

/// PFC's derived headroom (3 × rate × delay, the HPCC simulator's) on a switch port whose
/// link is too short for it: a PAUSE's round trip can meet three packets (one on the wire
/// when XOFF is crossed, one the PAUSE waits behind downstream, one the upstream is
/// sending) plus twice the link's bytes in flight; below that, expect headroom-overflow
/// drops (measured: 40 Gb/s, 20 ns links drop at 4 KB, not at 4.6 KB). Only when
/// `switch.pfc.headroom_bytes` is not set.
fn short_pfc_headroom(v: &ValidScenario) -> Option<String> {
    let pfc = v.policies.pfc.as_ref().filter(|p| p.headroom.is_none())?;
    let t = &v.transport;
    let packet = (t.mtu + t.header_bytes) as u64 + t.int_data_bytes as u64;
    v.topo.ports.iter().filter(|p| !v.topo.is_host(p.node)).find_map(|p| {
        let have = pfc.headroom_for(p.rate, p.delay);
        let bdp = (p.rate.0 as u128 * p.delay.0 as u128 / 8 / crate::time::PS_PER_S as u128) as u64;
        let need = 3 * packet + 2 * bdp;
        (have < need).then(|| {
            format!(
                "switch.pfc.headroom_bytes is derived as 3 × rate × delay = {have} B on a {} Gb/s, {} ns link, \
                 less than a PAUSE's round trip can bring in (3 packets + 2 × rate × delay = {need} B): \
                 expect headroom-overflow drops; set switch.pfc.headroom_bytes (e.g. {need})",
                p.rate.0 as f64 / 1e9,
                p.delay.0 as f64 / 1e3
            )
        })
    })
}

/// A whole simulation run: the fabric and the components on it.
pub struct Simulator {
    /// Clock, events, packets, ports, routes, counters and observers: what every
    /// component shares.
    pub(crate) fab: Fabric,
    /// The switches and their pipeline's policies.
    pub(crate) switches: Switches,
    /// The hosts, their flows and transport.
    pub(crate) hosts: Hosts,
    /// `[[faults]]`: links that go down (and maybe up) during the run.
    pub(crate) faults: Vec<LinkFault>,
    /// Traced flows, sampling interval and samples (`[output.rate_trace]`).
    pub(crate) trace_flows: Vec<FlowId>,
    pub(crate) trace_interval: crate::time::Delta,
    pub(crate) rate_trace: Vec<RateSample>,
    pub(crate) limit: SimTime,
    pub(crate) seed: u64,
    /// Each policy family's one-line description of what ran ("bfc-32", "pfc (dynamic)").
    pub(crate) policies: Vec<(&'static str, String)>,
    /// `[output.deadlock]`'s detector (None: off).
    pub(crate) deadlock: Option<Box<deadlock::DeadlockDetector>>,
    /// What the user should hear before the run starts: a setting that contradicts the
    /// `compat` profile the scenario asked for (`scenario::compat::contradictions`).
    pub(crate) notes: Vec<(&'static str, String)>,
    /// With more than one partition (`engine.threads` or `engine.partitions`): the other
    /// partitions of the parallel run this simulator is the first of (`parallel`).
    pub(crate) par: Option<Box<parallel::Group>>,
}

impl Simulator {
    /// Validate `scenario` and build the network (with more than one partition, one replica
    /// per partition of the parallel engine).
    pub fn new(scenario: Scenario) -> Result<Simulator, ScenarioError> {
        let (threads, parts) = (scenario.engine.threads as usize, scenario.engine.partitions());
        let sim = Self::new_one(scenario.clone())?;
        if parts > 1 {
            return parallel::attach(sim, &scenario, parts, threads);
        }
        Ok(sim)
    }

    /// One sequential simulator of `scenario` (whatever its `engine.threads`).
    fn new_one(scenario: Scenario) -> Result<Simulator, ScenarioError> {
        Self::new_replica(scenario, None)
    }

    /// One simulator of `scenario`, or one replica of a partitioned run (`build::build`).
    fn new_replica(scenario: Scenario, replica: Option<build::Replica>) -> Result<Simulator, ScenarioError> {
        let compat = crate::scenario::compat::contradictions(&scenario);
        let valid = ValidScenario::new(scenario)?;
        let mut notes: Vec<(&'static str, String)> = compat.into_iter().map(|n| ("compat", n)).collect();
        notes.extend(traps(&valid));
        let mut sim = build::build(valid, replica);
        sim.notes = notes;
        Ok(sim)
    }

    /// Warnings about the scenario as run, as (topic, sentence) pairs: settings that
    /// contradict its `compat` profile, and valid settings that rarely do what they read
    /// as (see [`traps`]). Front ends show them before the run starts.
    pub fn notes(&self) -> &[(&'static str, String)] {
        &self.notes
    }

    pub fn now(&self) -> SimTime {
        self.fab.now
    }

    /// The simulated-time limit (the scenario's `duration`, or never).
    pub fn limit(&self) -> SimTime {
        self.limit
    }

    /// Events waiting in the queue (including cancelled timers not yet popped).
    pub fn pending_events(&self) -> usize {
        self.fab.events.len()
    }

    pub fn events_processed(&self) -> u64 {
        self.fab.counters.events
    }

    /// True once nothing is left to simulate: no pending event, or the time limit reached.
    pub fn is_done(&self) -> bool {
        if let Some(g) = &self.par {
            return g.joined.is_some();
        }
        match self.fab.events.peek_time() {
            None => true,
            Some(t) => t > self.limit,
        }
    }

    /// Run until simulated time `until` (capped at the limit) or until nothing is left.
    /// Splitting a run into several calls never changes its results or final clock.
    pub fn run_until(&mut self, until: SimTime) {
        if self.par.is_some() {
            return parallel::run_until(self, until);
        }
        let stop = until.min(self.limit);
        while let Some((t, ev)) = self.fab.events.pop_until(stop) {
            debug_assert!(t >= self.fab.now, "time went backwards");
            if self.is_stale(&ev) {
                continue; // a cancelled timer: not an event of the model
            }
            self.fab.now = t;
            self.fab.counters.events += 1;
            self.prefetch_ahead();
            self.dispatch(ev);
        }
        self.drop_stale_head();
        // With events still pending the clock reads `stop`; with none, the last event.
        if !self.fab.events.is_empty() {
            self.fab.now = self.fab.now.max(stop);
        }
    }

    /// Start loading what the next events will read, in two stages. For the event after
    /// next: a delivery's packet (written a link delay ago, at k = 32 often no longer even
    /// in L3), which names the port it arrives at. For the next event, whose packet the
    /// previous stage loaded: the receiving port (a delivery) or the port's queues (a
    /// transmitter falling idle).
    #[inline(always)]
    fn prefetch_ahead(&self) {
        use crate::fabric::prefetch::prefetch;
        match self.fab.events.peek_drained(1) {
            Some(&Event::Deliver { pkt, .. }) => self.fab.store.prefetch(pkt),
            Some(&Event::TxDone { port }) => prefetch(&self.fab.ports[port.idx()].queues),
            _ => {}
        }
        match self.fab.events.peek_drained(0) {
            Some(&Event::Deliver { pkt, .. }) => {
                prefetch(&self.fab.ports[self.fab.store.arrives_at(pkt).idx()].busy_until);
            }
            Some(&Event::TxDone { port }) => {
                let p = &self.fab.ports[port.idx()];
                if let Some(q) = p.queues.next_queue() {
                    prefetch(p.queues.list(q));
                }
                prefetch(&p.stats.tx_bytes);
            }
            _ => {}
        }
    }

    /// Discard cancelled timers at the head of the queue, so `is_done` and the clock see
    /// only events of the model.
    fn drop_stale_head(&mut self) {
        while let Some((_, ev)) = self.fab.events.peek() {
            if !self.is_stale(&ev) {
                break;
            }
            self.fab.events.pop();
        }
    }

    /// Run to completion.
    pub fn run(&mut self) {
        self.run_until(SimTime::NEVER);
    }

    /// A timer cancelled after it was scheduled (generation bumped).
    #[inline(always)]
    fn is_stale(&self, ev: &Event) -> bool {
        match *ev {
            Event::FlowTimer { flow, kind, generation } => {
                let f = &self.hosts.core.flows[flow.idx()];
                f.timer_gen[kind.slot()] != generation || (f.finish.is_some() && !kind.at_receiver())
            }
            Event::PolicyTimer { kind, target, generation } => {
                !self.fab.timers.is_current(kind, target, generation)
            }
            _ => false,
        }
    }

    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Deliver { port, pkt } => {
                if self.fab.wires.is_some() {
                    self.fab.next_on_wire(port);
                }
                self.on_arrive(self.fab.store.arrives_at(pkt), pkt)
            }
            Event::TxDone { port } => {
                self.fab.ports[port.idx()].txdone_pending = false;
                self.try_send(port);
            }
            Event::NicWake { node } => {
                let h = self.fab.node_slot[node.idx()] as usize;
                self.hosts.core.nodes[h].wake_at = SimTime::NEVER;
                self.hosts.nic_try_send(&mut self.fab, &self.switches.fc, h);
            }
            Event::FlowStart { flow } => self.hosts.on_flow_start(&mut self.fab, &self.switches.fc, flow),
            Event::FlowTimer { flow, kind, generation } => {
                self.hosts.on_flow_timer(&mut self.fab, &self.switches.fc, flow, kind, generation)
            }
            Event::PolicyTimer { kind, target, .. } => self.on_policy_timer(kind, target),
            Event::LinkFault { fault, up } => self.on_link_fault(fault as usize, up),
            Event::TraceSample => self.on_trace_sample(),
            Event::QueueSample => self.on_queue_sample(),
            Event::DeadlockCheck => self.on_deadlock_check(),
        }
    }

    #[inline(always)]
    fn on_arrive(&mut self, port: PortId, r: PacketRef) {
        let node = self.fab.ports[port.idx()].node;
        let p = self.fab.store.get(r);
        let kind = p.kind;
        if kind == PacketKind::Control || p.flags.contains(PacketFlags::LOST) {
            if p.flags.contains(PacketFlags::LOST) {
                self.switches.lose(&mut self.fab, r, DropCause::LinkDown);
                return;
            }
            let payload = self.switches.frames.take(r.index());
            self.fab.consume(r);
            if self.switches.on_control_frame(&mut self.fab, port, payload) {
                self.try_send(port);
            }
            return;
        }
        if self.fab.topo.is_host(node) {
            if let Some(trace) = &mut self.fab.obs.packet_trace {
                trace.record(self.fab.now, PacketEvent::Receive, port, self.fab.store.get(r), 0, 0);
            }
            let h = self.fab.node_slot[node.idx()] as usize;
            self.hosts.host_receive(&mut self.fab, &self.switches.fc, h, r);
        } else {
            let sw = self.fab.node_slot[node.idx()] as usize;
            self.switches.switch_receive(&mut self.fab, sw, port, r);
        }
    }

    /// Give a port its next packet if it is idle; if it is busy, have it try again when
    /// its current packet is out.
    #[inline]
    pub(crate) fn try_send(&mut self, port: PortId) {
        let node = self.fab.ports[port.idx()].node;
        if self.fab.topo.is_host(node) {
            let h = self.fab.node_slot[node.idx()] as usize;
            self.hosts.nic_try_send(&mut self.fab, &self.switches.fc, h);
        } else {
            self.switches.switch_try_send(&mut self.fab, port);
        }
    }

    /// Record the traced flows that are running; keep sampling while any is unfinished.
    fn on_trace_sample(&mut self) {
        let mut pending = false;
        for &f in &self.trace_flows {
            let flow = &self.hosts.core.flows[f.idx()];
            if flow.finish.is_some() {
                continue;
            }
            pending = true;
            if flow.start <= self.fab.now {
                self.rate_trace.push(RateSample {
                    time: self.fab.now,
                    flow: f.0,
                    rate_bps: flow.rate,
                    window_bytes: flow.window,
                    in_flight_bytes: flow.snd_nxt - flow.snd_una,
                });
            }
        }
        if pending {
            self.fab.events.schedule(self.fab.now + self.trace_interval, Event::TraceSample);
        }
    }

    /// Samples of `[output.rate_trace]`, in time order.
    pub fn rate_trace(&self) -> &[RateSample] {
        &self.rate_trace
    }

    // ------------------------------------------------------------ results

    /// One record per flow, in flow-id order.
    pub fn flow_records(&self) -> Vec<FlowRecord> {
        let mut records = self.hosts.flow_records(&self.fab.flow_deflections);
        for r in &mut records {
            r.hol_blocked = self.fab.obs.hol.is_blocked(crate::ids::FlowId(r.flow_id));
        }
        records
    }

    /// One record per port.
    pub fn port_records(&self) -> Vec<PortRecord> {
        self.fab
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let first = self.fab.topo.node_ports[p.node.idx()];
                PortRecord {
                    node: p.node.0,
                    port: i as u32 - first,
                    peer_node: self.fab.ports[p.peer.idx()].node.0,
                    tier: self.fab.topo.tiers[p.node.idx()].name(),
                    hop_tier: self.fab.obs.hop_tier[i].name(),
                    rate_bps: p.rate.0,
                    stats: PortStats { paused_time: p.paused_time_until(self.fab.now), ..p.stats },
                }
            })
            .collect()
    }

    /// The PFC frames sent (`[output] pfc_events`), in time order.
    pub fn pfc_events(&self) -> Vec<PfcEvent> {
        self.switches
            .control_log
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .filter_map(|e| match e.payload {
                ControlPayload::Pfc(f) => Some(PfcEvent {
                    time: e.time,
                    node: e.node,
                    port: e.port,
                    priority: f.priority,
                    pause: f.pause,
                }),
                _ => None,
            })
            .collect()
    }

    /// Every control frame sent (`[output] control_frames`), in time order.
    pub fn control_events(&self) -> &[ControlEvent] {
        if !self.switches.log_all_frames {
            return &[];
        }
        self.switches.control_log.as_deref().unwrap_or(&[])
    }

    /// Run-wide counters and conservation figures.
    pub fn summary(&self) -> Summary {
        let buffer_in_use = self.switches.nodes.iter().map(|s| s.mmu.used_bytes).sum();
        Summary {
            seed: self.seed,
            events: self.fab.counters.events,
            sim_time: self.fab.now,
            flows_total: self.hosts.core.flows.len() as u64,
            flows_finished: self.fab.counters.flows_finished,
            packet_hops: self.fab.counters.packet_hops,
            data_packets_sent: self.fab.counters.data_packets_sent,
            data_packets_delivered: self.fab.counters.data_packets_delivered,
            drops: self.fab.counters.drops,
            pfc_pause_frames: self.frames_sent_of("pfc_pause"),
            pfc_resume_frames: self.frames_sent_of("pfc_resume"),
            control_frames: frame_kinds()
                .into_iter()
                .enumerate()
                .map(|(i, kind)| FrameCount {
                    kind,
                    sent: self.switches.frame_counts.sent[i],
                    received: self.switches.frame_counts.received[i],
                })
                .collect(),
            deflections: self.fab.counters.deflections,
            control_drops: self.fab.counters.control_drops,
            packets_in_flight: self
                .par
                .as_ref()
                .and_then(|g| g.joined.as_ref())
                .map_or(self.fab.store.live(), |j| j.packets_live),
            peak_packets_in_flight: self
                .par
                .as_ref()
                .and_then(|g| g.joined.as_ref())
                .map_or(self.fab.store.peak(), |j| j.packets_peak),
            buffer_bytes_in_use: buffer_in_use,
            max_buffer_bytes: self.switches.nodes.iter().map(|s| s.mmu.peak_bytes).max().unwrap_or(0),
            retransmitted_bytes: self.hosts.core.flows.iter().map(|f| f.retransmitted_bytes).sum(),
            timeouts: self.hosts.core.flows.iter().map(|f| f.timeouts as u64).sum(),
            cnps: self.hosts.core.flows.iter().map(|f| f.cnps_received as u64).sum(),
            ecn_marks: self.fab.counters.ecn_marks,
            reordering_ratio: if self.fab.counters.data_packets_delivered == 0 {
                0.0
            } else {
                self.hosts.core.flows.iter().map(|f| f.reorder.reordered as f64).sum::<f64>()
                    / self.fab.counters.data_packets_delivered as f64
            },
            packet_trace_dropped: self.fab.obs.packet_trace.as_ref().map_or(0, |t| t.dropped),
            hol_blocked_flows: self.fab.obs.hol.flows,
            reorder_held: self.transport_counter("reorder_held"),
            reorder_released: self.transport_counter("reorder_released"),
            bolt_srcs: self.signal_counter("bolt_srcs"),
            deflection_extra_hops: self.hosts.core.extra_hops.clone().unwrap_or_default(),
            counters: self.policy_counters(),
        }
    }

    /// Control frames sent, by kind name, in a fixed order (kinds never sent omitted).
    pub fn control_frames_sent(&self) -> Vec<(&'static str, u64)> {
        frame_kinds()
            .into_iter()
            .zip(self.switches.frame_counts.sent.iter().copied())
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Every mechanism's own counters: flow control, load balancer, switch signals,
    /// transport.
    pub fn policy_counters(&self) -> Vec<(&'static str, u64)> {
        if let Some(j) = self.par.as_ref().and_then(|g| g.joined.as_ref()) {
            return j.policy_counters.clone();
        }
        let mut all = self.switches.fc.counters();
        all.extend(self.switches.lb.counters());
        all.extend(self.switches.signals.iter().flat_map(|s| s.counters()));
        all.extend(self.hosts.transport.counters());
        all
    }

    /// What each mechanism reports of itself in a run's description: (label, line).
    pub fn policy_lines(&self) -> Vec<(&'static str, String)> {
        let sent = |kind: &str| self.frames_sent_of(kind);
        let deadlock = self.deadlock_message().map(|m| ("Deadlock", m));
        [self.switches.fc.summary_line(&sent), self.switches.lb.summary_line(), deadlock]
            .into_iter()
            .flatten()
            .collect()
    }

    /// A switch signal's counter `name` (0 if no signal keeps one of that name).
    fn signal_counter(&self, name: &str) -> u64 {
        if self.par.as_ref().is_some_and(|g| g.joined.is_some()) {
            return self.policy_counters().iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v);
        }
        self.switches
            .signals
            .iter()
            .flat_map(|s| s.counters())
            .find(|(n, _)| *n == name)
            .map_or(0, |(_, v)| v)
    }

    /// The transport's counter `name` (0 if it keeps none of that name).
    fn transport_counter(&self, name: &str) -> u64 {
        if self.par.as_ref().is_some_and(|g| g.joined.is_some()) {
            return self.policy_counters().iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v);
        }
        self.hosts.transport.counters().iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v)
    }

    /// Frames of kind `name` sent.
    fn frames_sent_of(&self, name: &str) -> u64 {
        frame_kinds().iter().position(|k| *k == name).map_or(0, |i| self.switches.frame_counts.sent[i])
    }

    /// How much of the workload is done (for progress reporting; one pass over the flows).
    pub fn work_done(&self) -> WorkDone {
        if let Some(w) = self.parallel_work_done() {
            return w;
        }
        let flows = &self.hosts.core.flows;
        WorkDone {
            flows_total: flows.len() as u64,
            flows_finished: self.fab.counters.flows_finished,
            bytes_total: flows.iter().map(|f| f.size).sum(),
            bytes_acked: flows.iter().map(|f| f.snd_una.min(f.size)).sum(),
        }
    }

    /// Bytes acknowledged so far and current sending rate (bits/s) of a flow.
    pub fn flow_progress(&self, flow: FlowId) -> (u64, u64) {
        let f = &self.hosts.core.flows[flow.idx()];
        (f.snd_una, f.rate)
    }

    /// Bytes of a flow sent but not yet acknowledged (`snd_nxt − snd_una`).
    pub fn flow_in_flight(&self, flow: FlowId) -> u64 {
        let f = &self.hosts.core.flows[flow.idx()];
        f.snd_nxt - f.snd_una
    }

    /// Counters of one port, by node and port number within the node.
    pub fn port_stats(&self, node: NodeId, port: u32) -> PortStats {
        let p = &self.fab.ports[(self.fab.topo.node_ports[node.idx()] + port) as usize];
        PortStats { paused_time: p.paused_time_until(self.fab.now), ..p.stats }
    }

    /// Bytes queued in the data queues of port number `port` of `node` right now.
    pub fn port_backlog_bytes(&self, node: NodeId, port: u32) -> u64 {
        self.fab.ports[(self.fab.topo.node_ports[node.idx()] + port) as usize].backlog_bytes()
    }

    /// The policies the switches run: (load balancer, flow control, deflection).
    pub fn policy_names(&self) -> (&'static str, &'static str, &'static str) {
        (self.switches.lb.name(), self.switches.fc.name(), self.switches.admission.name())
    }

    /// Global port id of port number `port` of `node`.
    pub fn port_id(&self, node: NodeId, port: u32) -> PortId {
        PortId(self.fab.topo.node_ports[node.idx()] + port)
    }

    /// Topology access for callers that need paths or tiers.
    pub fn topology(&self) -> &Topology {
        &self.fab.topo
    }

    pub fn routing(&self) -> &Routing {
        &self.fab.routing
    }

    /// Node id of each host, in host order.
    pub fn hosts(&self) -> Vec<NodeId> {
        self.fab.topo.hosts.clone()
    }
}

use crate::fabric::port::PortStats;
