//! The simulator: owns the network state and runs the event loop.
//!
//! Handlers are methods on [`Simulator`] split by concern: links and control frames here,
//! switch forwarding in `switch`, host NICs and transport in `host`. A packet crossing a
//! switch costs no event of its own: arrival, routing, admission and enqueue happen in the
//! arrival handler, and each busy port has exactly one pending `TxDone`.

mod build;
mod classify;
mod control;
mod faults;
mod memory;
mod observe;
mod timers;
mod trees;

use crate::engine::{Event, EventQueue};
use crate::frames::ControlFrames;
use crate::host::{Flow, Host, TransportConfig};
use crate::ids::{FlowId, NodeId, PortId};
use crate::metrics::{
    ControlEvent, Counters, DropCause, FlowRecord, PfcEvent, PortRecord, RateSample, Summary,
};
use crate::observe::{Observers, PacketEvent};
use crate::packet::{Packet, PacketFlags, PacketKind};
use crate::port::Port;
use crate::scenario::{Scenario, ScenarioError};
use crate::store::{PacketRef, PacketStore};
use crate::switch::{Admission, EcnStreams, FlowControl, LoadBalancer, Switch, SwitchConfig};
use crate::time::SimTime;
use crate::topology::{Routing, Topology};

pub use crate::scenario::ValidScenario;
pub use classify::FlowClass;
pub use faults::LinkFault;
pub use memory::MemoryReport;
pub(crate) use timers::PolicyTimers;

/// How many events ahead the loop prefetches what an event will touch (0: the next one;
/// measured best on k=16 against 6 and against none).
const PREFETCH_AHEAD: usize = 0;

/// A whole simulation run.
pub struct Simulator {
    pub(crate) now: SimTime,
    pub(crate) events: EventQueue,
    /// Every packet in the network (on links and in queues), from creation to consumption.
    pub(crate) store: PacketStore,
    pub(crate) topo: Topology,
    pub(crate) routing: Routing,
    pub(crate) ports: Vec<Port>,
    /// Per node: its switch state (index into `switches`) or host state (into `hosts`).
    pub(crate) node_slot: Vec<u32>,
    pub(crate) switches: Vec<Switch>,
    pub(crate) hosts: Vec<Host>,
    pub(crate) flows: Vec<Flow>,
    pub(crate) tags: Vec<String>,
    pub(crate) switch_cfg: SwitchConfig,
    /// The switch pipeline's policies (see `switch`).
    pub(crate) lb: LoadBalancer,
    pub(crate) fc: FlowControl,
    pub(crate) admission: Admission,
    pub(crate) transport: TransportConfig,
    /// Next flow (in start order) whose `FlowStart` has not been scheduled yet.
    pub(crate) next_flow_to_schedule: usize,
    pub(crate) counters: Counters,
    /// The control frames sent (`[output] pfc_events` or `control_frames`), in time order.
    pub(crate) control_log: Option<Vec<ControlEvent>>,
    /// `[output] control_frames`: the log is reported whole, not only its PFC frames.
    pub(crate) log_all_frames: bool,
    /// Payloads of the control frames in flight, beside their slots.
    pub(crate) frames: ControlFrames,
    /// Extension header fields beside the slots (empty unless a policy uses them).
    pub(crate) ext: crate::ext::ExtTable,
    /// With a deflection policy: data packets delivered per extra switch hops taken.
    pub(crate) extra_hops: Option<Vec<u64>>,
    /// Bolt's switch state, when hosts run Bolt.
    pub(crate) bolt: Option<Box<crate::switch::bolt::BoltSwitches>>,
    /// Generations of switch-port and policy timers.
    pub(crate) timers: PolicyTimers,
    /// `[[faults]]`: links that go down (and maybe up) during the run.
    pub(crate) faults: Vec<LinkFault>,
    /// Traced flows, sampling interval and samples (`[output.rate_trace]`).
    pub(crate) trace_flows: Vec<FlowId>,
    pub(crate) trace_interval: crate::time::Delta,
    pub(crate) rate_trace: Vec<RateSample>,
    pub(crate) ecn_rngs: EcnStreams,
    /// INT stack of each packet-store slot (empty unless `switch.int`).
    pub(crate) int_stacks: Vec<crate::switch::IntStack>,
    /// Per flow: the INT stack of the last ACK the sender received.
    pub(crate) flow_int: Vec<crate::switch::IntStack>,
    pub(crate) limit: SimTime,
    pub(crate) seed: u64,
    /// Queuing delay, samplers and the packet trace.
    pub(crate) obs: Observers,
}

impl Simulator {
    /// Validate `scenario` and build the network.
    pub fn new(scenario: Scenario) -> Result<Simulator, ScenarioError> {
        let valid = ValidScenario::new(scenario)?;
        Ok(build::build(valid))
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The simulated-time limit (the scenario's `duration`, or never).
    pub fn limit(&self) -> SimTime {
        self.limit
    }

    /// Events waiting in the queue (including cancelled timers not yet popped).
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    pub fn events_processed(&self) -> u64 {
        self.counters.events
    }

    /// True once nothing is left to simulate: no pending event, or the time limit reached.
    pub fn is_done(&self) -> bool {
        match self.events.peek_time() {
            None => true,
            Some(t) => t > self.limit,
        }
    }

    /// Run until simulated time `until` (capped at the limit) or until nothing is left.
    /// Splitting a run into several calls never changes its results or final clock.
    pub fn run_until(&mut self, until: SimTime) {
        let stop = until.min(self.limit);
        while let Some((t, ev)) = self.events.pop_until(stop) {
            debug_assert!(t >= self.now, "time went backwards");
            if self.is_stale(&ev) {
                continue; // a cancelled timer: not an event of the model
            }
            self.now = t;
            self.counters.events += 1;
            // Start loading what the next event will read: a delivery's packet (written a
            // link delay ago, at k=16 often no longer even in L3) and link, a port's queues.
            match self.events.peek_drained(PREFETCH_AHEAD) {
                Some(&Event::Deliver { pkt, port }) => {
                    self.store.prefetch(pkt);
                    crate::prefetch::prefetch(&self.ports[port.idx()].in_flight);
                }
                Some(&Event::TxDone { port }) => crate::prefetch::prefetch(&self.ports[port.idx()].queues),
                _ => {}
            }
            self.dispatch(ev);
        }
        self.drop_stale_head();
        // With events still pending the clock reads `stop`; with none, the last event.
        if !self.events.is_empty() {
            self.now = self.now.max(stop);
        }
    }

    /// Discard cancelled timers at the head of the queue, so `is_done` and the clock see
    /// only events of the model.
    fn drop_stale_head(&mut self) {
        while let Some((_, ev)) = self.events.peek() {
            if !self.is_stale(&ev) {
                break;
            }
            self.events.pop();
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
                let f = &self.flows[flow.idx()];
                f.finish.is_some() || f.timer_gen[kind.slot()] != generation
            }
            Event::PolicyTimer { kind, target, generation } => {
                !self.timers.is_current(kind, target, generation)
            }
            _ => false,
        }
    }

    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Deliver { port, pkt: head } => {
                let p = &mut self.ports[port.idx()];
                let (pkt, next) =
                    self.store.pop_in_flight(&mut p.in_flight).expect("a pending delivery has a packet");
                debug_assert_eq!(pkt, head, "links deliver in order");
                let peer = p.peer;
                if let Some((at, next)) = next {
                    self.events.schedule(at, Event::Deliver { port, pkt: next });
                }
                self.on_arrive(peer, pkt);
            }
            Event::TxDone { port } => {
                self.ports[port.idx()].txdone_pending = false;
                self.try_send(port);
            }
            Event::NicWake { node } => {
                let h = self.node_slot[node.idx()] as usize;
                self.hosts[h].wake_at = SimTime::NEVER;
                self.nic_try_send(h);
            }
            Event::FlowStart { flow } => self.on_flow_start(flow),
            Event::FlowTimer { flow, kind, generation } => self.on_flow_timer(flow, kind, generation),
            Event::PolicyTimer { kind, target, .. } => self.on_policy_timer(kind, target),
            Event::LinkFault { fault, up } => self.on_link_fault(fault as usize, up),
            Event::TraceSample => self.on_trace_sample(),
            Event::QueueSample => self.on_queue_sample(),
        }
    }

    fn on_arrive(&mut self, port: PortId, r: PacketRef) {
        let node = self.ports[port.idx()].node;
        let p = self.store.get(r);
        let kind = p.kind;
        if kind == PacketKind::Control || p.flags.contains(PacketFlags::LOST) {
            if p.flags.contains(PacketFlags::LOST) {
                self.lose(r, DropCause::LinkDown);
                return;
            }
            let payload = self.frames.take(r.index());
            self.consume(r);
            self.on_control_frame(port, payload);
            return;
        }
        if self.topo.is_host(node) {
            if let Some(trace) = &mut self.obs.packet_trace {
                trace.record(self.now, PacketEvent::Receive, port, self.store.get(r), 0, 0);
            }
            self.host_receive(self.node_slot[node.idx()] as usize, r);
        } else {
            self.switch_receive(self.node_slot[node.idx()] as usize, port, r);
        }
    }

    /// A busy port has work waiting: make sure its `TxDone` is scheduled.
    #[inline]
    pub(crate) fn wake_when_idle(&mut self, port: PortId) {
        let p = &mut self.ports[port.idx()];
        if !p.txdone_pending {
            p.txdone_pending = true;
            self.events.schedule(p.busy_until, Event::TxDone { port });
        }
    }

    /// Give a port its next packet if it is idle; if it is busy, have it try again when
    /// its current packet is out.
    pub(crate) fn try_send(&mut self, port: PortId) {
        let node = self.ports[port.idx()].node;
        if self.topo.is_host(node) {
            self.nic_try_send(self.node_slot[node.idx()] as usize);
        } else {
            self.switch_try_send(port);
        }
    }

    /// A packet leaves the network (consumed at its destination or dropped): free its slot.
    #[inline]
    pub(crate) fn consume(&mut self, r: PacketRef) -> Packet {
        self.store.remove(r)
    }

    /// Serialize `pkt` on `port` (which must be idle) and schedule its arrival at the peer.
    #[inline]
    pub(crate) fn start_tx(&mut self, port: PortId, pkt: PacketRef) {
        let wire = self.store.get(pkt).wire_bytes as u64;
        let p = &mut self.ports[port.idx()];
        debug_assert!(!p.is_busy(self.now), "port {} already transmitting", port.0);
        let tx_time = p.byte_time.tx_time(wire);
        let tx_end = self.now + tx_time;
        p.busy_until = tx_end;
        p.stats.tx_bytes += wire;
        p.stats.tx_packets += 1;
        p.stats.busy_time += tx_time;
        p.stats.first_tx.get_or_insert(self.now);
        p.stats.last_tx_end = tx_end;
        if let Some(trace) = &mut self.obs.packet_trace {
            trace.record(
                self.now,
                PacketEvent::Transmit,
                port,
                self.store.get(pkt),
                0,
                p.queues.backlog_bytes,
            );
        }
        let arrive = tx_end + p.arrival_delay;
        let first_in_flight = self.store.push_in_flight(&mut p.in_flight, pkt, arrive);
        self.counters.packet_hops += 1;
        if first_in_flight {
            self.events.schedule(arrive, Event::Deliver { port, pkt });
        }
    }

    fn on_flow_start(&mut self, flow: FlowId) {
        self.schedule_next_flow_start();
        let src = self.flows[flow.idx()].src;
        let h = self.node_slot[src.idx()] as usize;
        self.flows[flow.idx()].last_progress = self.now;
        self.activate(h, flow);
        self.nic_try_send(h);
    }

    /// Record the traced flows that are running; keep sampling while any is unfinished.
    fn on_trace_sample(&mut self) {
        let mut pending = false;
        for &f in &self.trace_flows {
            let flow = &self.flows[f.idx()];
            if flow.finish.is_some() {
                continue;
            }
            pending = true;
            if flow.start <= self.now {
                self.rate_trace.push(RateSample {
                    time: self.now,
                    flow: f.0,
                    rate_bps: flow.rate,
                    window_bytes: flow.window,
                    in_flight_bytes: flow.snd_nxt - flow.snd_una,
                });
            }
        }
        if pending {
            self.events.schedule(self.now + self.trace_interval, Event::TraceSample);
        }
    }

    /// Samples of `[output.rate_trace]`, in time order.
    pub fn rate_trace(&self) -> &[RateSample] {
        &self.rate_trace
    }

    /// Flows start in time order; only the next start is ever pending.
    pub(crate) fn schedule_next_flow_start(&mut self) {
        if let Some(f) = self.flows.get(self.next_flow_to_schedule) {
            self.events
                .schedule(f.start, Event::FlowStart { flow: FlowId(self.next_flow_to_schedule as u32) });
            self.next_flow_to_schedule += 1;
        }
    }

    // ------------------------------------------------------------ results

    /// One record per flow, in flow-id order.
    pub fn flow_records(&self) -> Vec<FlowRecord> {
        self.flows.iter().map(|f| f.record(&self.tags)).collect()
    }

    /// One record per port.
    pub fn port_records(&self) -> Vec<PortRecord> {
        self.ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let first = self.topo.node_ports[p.node.idx()];
                PortRecord {
                    node: p.node.0,
                    port: i as u32 - first,
                    peer_node: self.ports[p.peer.idx()].node.0,
                    tier: self.topo.tiers[p.node.idx()].name(),
                    hop_tier: self.obs.hop_tier[i].name(),
                    rate_bps: p.rate.0,
                    stats: PortStats { paused_time: p.paused_time_until(self.now), ..p.stats },
                }
            })
            .collect()
    }

    /// The PFC frames sent (`[output] pfc_events`), in time order.
    pub fn pfc_events(&self) -> Vec<PfcEvent> {
        self.control_log
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .filter_map(|e| match e.payload {
                crate::frames::ControlPayload::Pfc { priority, pause } => {
                    Some(PfcEvent { time: e.time, node: e.node, port: e.port, priority, pause })
                }
                _ => None,
            })
            .collect()
    }

    /// Every control frame sent (`[output] control_frames`), in time order.
    pub fn control_events(&self) -> &[ControlEvent] {
        if !self.log_all_frames {
            return &[];
        }
        self.control_log.as_deref().unwrap_or(&[])
    }

    /// Run-wide counters and conservation figures.
    pub fn summary(&self) -> Summary {
        use crate::frames::FrameKind;
        let buffer_in_use = self.switches.iter().map(|s| s.mmu.used_bytes).sum();
        Summary {
            seed: self.seed,
            events: self.counters.events,
            sim_time: self.now,
            flows_total: self.flows.len() as u64,
            flows_finished: self.counters.flows_finished,
            packet_hops: self.counters.packet_hops,
            data_packets_sent: self.counters.data_packets_sent,
            data_packets_delivered: self.counters.data_packets_delivered,
            drops: self.counters.drops,
            pfc_pause_frames: self.counters.frames.sent(FrameKind::PfcPause),
            pfc_resume_frames: self.counters.frames.sent(FrameKind::PfcResume),
            control_frames: self.counters.frames,
            deflections: self.counters.deflections,
            control_drops: self.counters.control_drops,
            packets_in_flight: self.store.live(),
            peak_packets_in_flight: self.store.peak(),
            buffer_bytes_in_use: buffer_in_use,
            max_buffer_bytes: self.switches.iter().map(|s| s.mmu.peak_bytes).max().unwrap_or(0),
            retransmitted_bytes: self.flows.iter().map(|f| f.retransmitted_bytes).sum(),
            timeouts: self.flows.iter().map(|f| f.timeouts as u64).sum(),
            cnps: self.flows.iter().map(|f| f.cnps_received as u64).sum(),
            ecn_marks: self.counters.ecn_marks,
            reordering_ratio: if self.counters.data_packets_delivered == 0 {
                0.0
            } else {
                self.flows.iter().map(|f| f.reorder.reordered as f64).sum::<f64>()
                    / self.counters.data_packets_delivered as f64
            },
            packet_trace_dropped: self.obs.packet_trace.as_ref().map_or(0, |t| t.dropped),
            reorder_held: self
                .flows
                .iter()
                .filter_map(|f| f.tcp.as_ref())
                .map(|t| t.held_packets as u64)
                .sum(),
            reorder_released: self
                .flows
                .iter()
                .filter_map(|f| f.tcp.as_ref())
                .map(|t| t.released_packets as u64)
                .sum(),
            bolt_srcs: self.bolt.as_ref().map_or(0, |b| b.srcs),
            deflection_extra_hops: self.extra_hops.clone().unwrap_or_default(),
        }
    }

    /// Control frames sent, by kind name, in a fixed order (kinds never sent omitted).
    pub fn control_frames_sent(&self) -> Vec<(&'static str, u64)> {
        crate::frames::FrameKind::ALL
            .iter()
            .map(|k| (k.name(), self.counters.frames.sent(*k)))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Bytes acknowledged so far and current sending rate (bits/s) of a flow.
    pub fn flow_progress(&self, flow: FlowId) -> (u64, u64) {
        let f = &self.flows[flow.idx()];
        (f.snd_una, f.rate)
    }

    /// Bytes of a flow sent but not yet acknowledged (`snd_nxt − snd_una`).
    pub fn flow_in_flight(&self, flow: FlowId) -> u64 {
        let f = &self.flows[flow.idx()];
        f.snd_nxt - f.snd_una
    }

    /// Counters of one port, by node and port number within the node.
    pub fn port_stats(&self, node: NodeId, port: u32) -> PortStats {
        let p = &self.ports[(self.topo.node_ports[node.idx()] + port) as usize];
        PortStats { paused_time: p.paused_time_until(self.now), ..p.stats }
    }

    /// Bytes queued in the data queues of port number `port` of `node` right now.
    pub fn port_backlog_bytes(&self, node: NodeId, port: u32) -> u64 {
        self.ports[(self.topo.node_ports[node.idx()] + port) as usize].backlog_bytes()
    }

    /// The policies the switches run: (load balancer, flow control, deflection).
    pub fn policy_names(&self) -> (&'static str, &'static str, &'static str) {
        (self.lb.name(), self.fc.name(), self.admission.name())
    }

    /// Global port id of port number `port` of `node`.
    pub fn port_id(&self, node: NodeId, port: u32) -> PortId {
        PortId(self.topo.node_ports[node.idx()] + port)
    }

    /// Topology access for callers that need paths or tiers.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    pub fn routing(&self) -> &Routing {
        &self.routing
    }

    /// Node id of each host, in host order.
    pub fn hosts(&self) -> Vec<NodeId> {
        self.topo.hosts.clone()
    }
}

use crate::port::PortStats;
