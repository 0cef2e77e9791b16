//! The simulator: owns the network state and runs the event loop.
//!
//! Handlers are methods on [`Simulator`] split by concern: links and control frames here,
//! switch forwarding in `switch`, host NICs and transport in `host`. A packet crossing a
//! switch costs no event of its own: arrival, routing, admission and enqueue happen in the
//! arrival handler, and each busy port has exactly one pending `TxDone`.

mod build;
mod classify;
mod memory;
mod observe;

use crate::engine::{Event, EventQueue, RngStream};
use crate::host::{Flow, Host, TransportConfig};
use crate::ids::{FlowId, NodeId, PortId};
use crate::metrics::{Counters, FlowRecord, PfcEvent, PortRecord, RateSample, Summary};
use crate::observe::{Observers, PacketEvent};
use crate::packet::{ControlPayload, Packet, PacketFlags, PacketKind};
use crate::port::Port;
use crate::scenario::{Scenario, ScenarioError};
use crate::store::{PacketRef, PacketStore};
use crate::switch::{Switch, SwitchConfig};
use crate::time::SimTime;
use crate::topology::{Routing, Topology};

pub use crate::scenario::ValidScenario;
pub use classify::FlowClass;
pub use memory::MemoryReport;

/// Wire size of a PFC frame: the 64-byte minimum Ethernet frame (IEEE 802.1Qbb frames
/// are MAC control frames padded to the minimum size).
pub const PFC_FRAME_BYTES: u16 = 64;

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
    pub(crate) transport: TransportConfig,
    /// Next flow (in start order) whose `FlowStart` has not been scheduled yet.
    pub(crate) next_flow_to_schedule: usize,
    pub(crate) counters: Counters,
    pub(crate) pfc_log: Option<Vec<PfcEvent>>,
    /// Traced flows, sampling interval and samples (`[output.rate_trace]`).
    pub(crate) trace_flows: Vec<FlowId>,
    pub(crate) trace_interval: crate::time::Delta,
    pub(crate) rate_trace: Vec<RateSample>,
    pub(crate) ecn_rng: RngStream,
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

    /// A flow timer cancelled after it was scheduled (generation bumped).
    #[inline]
    fn is_stale(&self, ev: &Event) -> bool {
        match *ev {
            Event::FlowTimer { flow, kind, generation } => {
                let f = &self.flows[flow.idx()];
                f.finish.is_some() || f.timer_gen[kind as usize] != generation
            }
            _ => false,
        }
    }

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
            Event::TraceSample => self.on_trace_sample(),
            Event::QueueSample => self.on_queue_sample(),
        }
    }

    fn on_arrive(&mut self, port: PortId, r: PacketRef) {
        let node = self.ports[port.idx()].node;
        let kind = self.store.get(r).kind;
        if kind == PacketKind::Control {
            let pkt = self.consume(r);
            self.on_control_frame(port, pkt.control);
            return;
        }
        if self.topo.is_host(node) {
            if let Some(trace) = &mut self.obs.packet_trace {
                trace.record(self.now, PacketEvent::Receive, port, self.store.get(r), 0);
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
            trace.record(self.now, PacketEvent::Transmit, port, self.store.get(pkt), p.backlog_bytes);
        }
        let arrive = tx_end + p.arrival_delay;
        let first_in_flight = self.store.push_in_flight(&mut p.in_flight, pkt, arrive);
        self.counters.packet_hops += 1;
        if first_in_flight {
            self.events.schedule(arrive, Event::Deliver { port, pkt });
        }
    }

    /// Queue a hop-by-hop control frame on `port` (towards its peer) and kick the port.
    pub(crate) fn send_control_frame(&mut self, port: PortId, payload: ControlPayload) {
        let node = self.ports[port.idx()].node;
        let pkt = Packet {
            kind: PacketKind::Control,
            priority: 0,
            flags: PacketFlags::NONE,
            flow: FlowId(u32::MAX),
            src: node,
            dst: self.ports[self.ports[port.idx()].peer.idx()].node,
            sport: 0,
            dport: 0,
            seq: 0,
            payload: 0,
            wire_bytes: PFC_FRAME_BYTES,
            sent_at: self.now,
            ingress: 0,
            enq_ns: 0,
            sack: 0,
            control: payload,
        };
        if let ControlPayload::Pfc { priority, pause } = payload {
            let stats = &mut self.ports[port.idx()].stats;
            if pause {
                stats.pause_sent += 1;
                self.counters.pfc_pause_frames += 1;
            } else {
                stats.resume_sent += 1;
                self.counters.pfc_resume_frames += 1;
            }
            if let Some(log) = &mut self.pfc_log {
                log.push(PfcEvent { time: self.now, node, port, priority, pause });
            }
        }
        let r = self.store.insert(pkt);
        self.store.push_back(&mut self.ports[port.idx()].control_queue, r);
        self.try_send(port);
    }

    /// A control frame arrived on `port`: it governs what `port` may send.
    fn on_control_frame(&mut self, port: PortId, payload: ControlPayload) {
        match payload {
            ControlPayload::Pfc { priority, pause } => {
                let now = self.now;
                let p = &mut self.ports[port.idx()];
                if pause {
                    p.stats.pause_received += 1;
                }
                let changed = p.set_paused(priority as usize, pause, now);
                if changed && !pause {
                    self.try_send(port);
                }
            }
            ControlPayload::None => {}
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

    pub fn pfc_events(&self) -> &[PfcEvent] {
        self.pfc_log.as_deref().unwrap_or(&[])
    }

    /// Run-wide counters and conservation figures.
    pub fn summary(&self) -> Summary {
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
            pfc_pause_frames: self.counters.pfc_pause_frames,
            pfc_resume_frames: self.counters.pfc_resume_frames,
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
        }
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
        self.ports[(self.topo.node_ports[node.idx()] + port) as usize].backlog_bytes
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
