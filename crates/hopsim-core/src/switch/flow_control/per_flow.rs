//! Ideal per-flow flow control: a dedicated queue per active flow at every egress port,
//! paused and resumed per flow by its downstream queue — the upper bound that Pyrrha (§2.3,
//! Fig 2(b); Appendix B, Fig 22) and Aquarius (§2.2.1) compare fine-grained flow control
//! against.
//!
//! The papers give no thresholds for it, so this follows Pyrrha's own rule (§6,
//! "Parameters"): a flow's queue at a port that reaches `xoff` one-hop BDPs sends a PAUSE
//! naming the flow to the upstream port the packet came from; once it falls to `xon`
//! one-hop BDPs it sends RESUME to every upstream it paused. The one-hop BDP of a queue is
//! its port's rate times twice the port's propagation delay. A queue is taken when the
//! flow's first packet arrives at the port and given back once it is empty and not paused.
//! The upstream — a switch port or the source host's NIC — stops only that flow.
//!
//! When ACKs share the data queues (`switch.ack_queue = "data"`) a flow's ACKs get a
//! queue of their own on the reverse path (`reverse` in the key and the frame); a host NIC
//! never pauses ACKs (they leave from its control queue).

use serde::{Deserialize, Serialize};

use super::hooks::{Arrival, FcBuild, FcCx, FlowControlPolicy, Hop, Outbox};
use super::keymap::KeyMap;
use crate::fabric::frames::pause_resume_frame;
use crate::fabric::packet::{Packet, PacketKind};
use crate::fabric::port::Port;
use crate::host::FlowKey;
use crate::ids::{FlowId, PortId};
use crate::scenario::error::{check, ScenarioError};
use crate::scenario::units::{one_f64, two_f64};
use crate::time::SimTime;
use crate::topology::routing::Routing;
use crate::topology::Topology;

/// Per-flow flow control thresholds, in one-hop BDPs of the port (its rate × twice its
/// propagation delay). Defaults: Pyrrha's K_pause 2 and K_resume 1 (Pyrrha §6,
/// "Parameters"), since the papers give no thresholds for the per-flow baseline.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerFlowSpec {
    /// PAUSE the flow's upstream when its queue reaches this many one-hop BDPs.
    #[serde(default = "two_f64")]
    pub xoff: f64,
    /// RESUME when it falls to this many.
    #[serde(default = "one_f64")]
    pub xon: f64,
}

/// A per-flow frame: stop (`pause`) or restart one flow at the upstream port. `reverse`
/// names the flow's ACKs (queued per flow too when ACKs share the data queues).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowFrame {
    pub flow: FlowId,
    pub reverse: bool,
    pub pause: bool,
}

pause_resume_frame!(FlowFrame, ["flow_pause", "flow_resume"], subject = |f| f.flow.0,);

/// Parameters of per-flow flow control (`[switch.flow_control]` with `kind = "per_flow"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerFlowConfig {
    /// PAUSE when a flow's queue reaches this many one-hop BDPs (Pyrrha's K_pause, 2).
    pub xoff_bdp: f64,
    /// RESUME when it falls to this many (Pyrrha's K_resume, 1).
    pub xon_bdp: f64,
}

/// A flow's queue at one port, or the pause state of a flow at one port.
#[derive(Clone, Debug)]
struct Entry {
    /// The queue holding the flow's packets (`NO_QUEUE`: none now).
    queue: u32,
    /// The downstream told this port to stop the flow.
    paused: bool,
    /// Upstream ports this port told to stop the flow (usually one; several when the
    /// flow's packets arrive over several ports, e.g. under per-packet load balancing).
    paused_upstreams: Vec<PortId>,
}

const NO_QUEUE: u32 = u32::MAX;

/// (port, flow, reverse) packed in a u64.
type Key = u64;

fn key(port: PortId, flow: FlowId, reverse: bool) -> Key {
    ((port.0 as u64) << 33) | ((flow.0 as u64) << 1) | reverse as u64
}

/// Per-flow flow control of every switch.
#[derive(Clone, Debug)]
pub struct PerFlow {
    /// Per port (global id): PAUSE and RESUME thresholds in bytes.
    xoff: Vec<u64>,
    xon: Vec<u64>,
    entries: KeyMap<Entry>,
    /// Per flow: its source NIC was told to stop it.
    host_paused: Vec<bool>,
    /// Frames a hook asked to send, not sent yet.
    outbox: Outbox<FlowFrame>,
}

impl PerFlow {
    /// `hop_bdp[p]`: the one-hop BDP of port `p` in bytes; `flows`: how many flows the run has.
    pub fn new(cfg: PerFlowConfig, hop_bdp: &[u64], flows: usize) -> PerFlow {
        let scale = |k: f64| hop_bdp.iter().map(|b| (*b as f64 * k).ceil() as u64).collect();
        PerFlow {
            xoff: scale(cfg.xoff_bdp),
            xon: scale(cfg.xon_bdp),
            entries: KeyMap::default(),
            host_paused: vec![false; flows],
            outbox: Outbox::new(),
        }
    }

    fn flow_of(pkt: &Packet) -> (FlowId, bool) {
        (pkt.flow, pkt.kind != PacketKind::Data)
    }

    /// The flow's queue at `egress` (taken now if it has none).
    fn classify_flow(&mut self, egress: PortId, port: &mut Port, pkt: &Packet, now: SimTime) -> usize {
        let (flow, reverse) = Self::flow_of(pkt);
        let e = self.entries.entry(key(egress, flow, reverse)).or_insert_with(|| Entry {
            queue: NO_QUEUE,
            paused: false,
            paused_upstreams: Vec::new(),
        });
        if e.queue == NO_QUEUE {
            let q = port.queues.allocate();
            if e.paused {
                port.queues.set_paused(q, true, now);
            }
            e.queue = q as u32;
        }
        e.queue as usize
    }

    /// The packet will make its flow's queue at `egress` hold `bytes_after`: PAUSE the
    /// upstream it came over if that reaches the threshold and it is not paused yet.
    fn on_arrival_flow(
        &mut self,
        in_port: PortId,
        egress: PortId,
        _queue: usize,
        bytes_after: u64,
        pkt: &Packet,
    ) -> Option<FlowFrame> {
        if bytes_after < self.xoff[egress.idx()] {
            return None;
        }
        let (flow, reverse) = Self::flow_of(pkt);
        let e = self.entries.get_mut(&key(egress, flow, reverse)).expect("classified before arrival");
        if e.paused_upstreams.contains(&in_port) {
            return None;
        }
        e.paused_upstreams.push(in_port);
        Some(FlowFrame { flow, reverse, pause: true })
    }

    /// A packet left the flow's queue: RESUME its upstreams once the queue is short enough,
    /// and give the queue back once it is empty and not paused.
    fn on_dequeue_flow(
        &mut self,
        egress: PortId,
        port: &mut Port,
        queue: usize,
        pkt: &Packet,
        now: SimTime,
    ) -> bool {
        let (flow, reverse) = Self::flow_of(pkt);
        let k = key(egress, flow, reverse);
        let e = self.entries.get_mut(&k).expect("a queued flow has an entry");
        let bytes = port.queues.queue_bytes(queue);
        let mut emit = false;
        if bytes <= self.xon[egress.idx()] && !e.paused_upstreams.is_empty() {
            let frame = FlowFrame { flow, reverse, pause: false };
            self.outbox.extend(e.paused_upstreams.drain(..).map(|up| (up, frame)));
            emit = true;
        }
        if port.queues.queue_len(queue) == 0 && !e.paused {
            debug_assert!(e.paused_upstreams.is_empty(), "an empty queue resumed its upstreams");
            port.queues.release(queue, now);
            self.entries.remove(&k);
        }
        emit
    }

    /// A frame for `flow` arrived on `port_id`: pause or resume the flow there. Returns
    /// whether the flow was resumed with packets waiting (the port should try to send).
    #[allow(clippy::too_many_arguments)]
    fn on_frame_flow(
        &mut self,
        port_id: PortId,
        port: &mut Port,
        is_host: bool,
        flow: FlowId,
        reverse: bool,
        pause: bool,
        now: SimTime,
    ) -> bool {
        if is_host {
            // The source NIC stops the flow's data; its ACKs leave from the control queue.
            if !reverse {
                self.host_paused[flow.idx()] = pause;
            }
            return !pause;
        }
        let k = key(port_id, flow, reverse);
        let e = self.entries.entry(k).or_insert_with(|| Entry {
            queue: NO_QUEUE,
            paused: false,
            paused_upstreams: Vec::new(),
        });
        e.paused = pause;
        if e.queue == NO_QUEUE {
            if !pause && e.paused_upstreams.is_empty() {
                self.entries.remove(&k);
            }
            return false;
        }
        port.queues.set_paused(e.queue as usize, pause, now) && !pause
    }

    /// The link of `port_id` failed: its flows' pause states and empty queues go.
    fn on_link_down_flow(&mut self, port_id: PortId, port: &mut Port, host_flows: &[FlowId], now: SimTime) {
        for f in host_flows {
            self.host_paused[f.idx()] = false;
        }
        self.entries.retain(|k, e| {
            if (k >> 33) as u32 != port_id.0 {
                return true;
            }
            if e.queue != NO_QUEUE {
                if port.queues.queue_len(e.queue as usize) > 0 {
                    e.paused = false;
                    return true;
                }
                port.queues.release(e.queue as usize, now);
            }
            false
        });
    }

    /// Whether the source NIC of `flow` is told to stop it.
    #[inline]
    pub fn host_paused(&self, flow: FlowId) -> bool {
        self.host_paused[flow.idx()]
    }

    /// Per-flow entries still held (queues or pause states); 0 once the network drained.
    pub fn entries(&self) -> usize {
        self.entries.len()
    }
}

impl FlowControlPolicy for PerFlow {
    const NAME: &'static str = "per_flow";
    type Spec = PerFlowSpec;
    type Frame = FlowFrame;
    /// Per-flow queues and pause state are per port, its frames name a flow; its summary
    /// line reads only the frame counts the engine joins (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(p: &PerFlowSpec) -> Result<(), ScenarioError> {
        check(
            p.xoff.is_finite() && p.xoff > 0.0,
            "switch.flow_control.xoff",
            format!("expected a positive number of one-hop BDPs, got {}", p.xoff),
        )?;
        check(
            p.xon.is_finite() && p.xon >= 0.0 && p.xon < p.xoff,
            "switch.flow_control.xon",
            format!("expected a number of one-hop BDPs in [0, xoff = {}), got {}", p.xoff, p.xon),
        )
    }

    fn build(p: &PerFlowSpec, b: &mut FcBuild) -> Self {
        let hop_bdp: Vec<u64> = (0..b.topo.ports.len()).map(|i| b.hop_bdp(i)).collect();
        PerFlow::new(PerFlowConfig { xoff_bdp: p.xoff, xon_bdp: p.xon }, &hop_bdp, b.flows)
    }

    /// Queues are taken at run time, one per active flow.
    fn data_queues(_spec: &PerFlowSpec, _classes: usize) -> usize {
        0
    }

    fn outbox(&mut self) -> &mut Outbox<FlowFrame> {
        &mut self.outbox
    }

    #[inline(never)]
    fn classify(&mut self, cx: &mut FcCx, _sw: usize, egress: PortId, pkt: &Packet, _slot: usize) -> usize {
        self.classify_flow(egress, &mut cx.ports[egress.idx()], pkt, cx.now)
    }

    #[inline(never)]
    fn on_arrival(&mut self, _cx: &mut FcCx, hop: &Hop, queue_bytes: u64) -> Arrival {
        let after = queue_bytes + hop.pkt.wire_bytes as u64;
        match self.on_arrival_flow(hop.in_port, hop.egress, hop.queue, after, hop.pkt) {
            None => Arrival::Admit,
            Some(frame) => {
                self.outbox.push_back((hop.in_port, frame));
                Arrival::AdmitAndSignal
            }
        }
    }

    #[inline(never)]
    fn on_dequeue(&mut self, cx: &mut FcCx, hop: &Hop) -> bool {
        self.on_dequeue_flow(hop.egress, &mut cx.ports[hop.egress.idx()], hop.queue, hop.pkt, cx.now)
    }

    #[inline(never)]
    fn on_frame(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, f: FlowFrame) -> bool {
        self.on_frame_flow(port, &mut cx.ports[port.idx()], is_host, f.flow, f.reverse, f.pause, cx.now)
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

    fn on_link_down(&mut self, cx: &mut FcCx, port: PortId, _is_host: bool, host_flows: &[FlowId]) {
        self.on_link_down_flow(port, &mut cx.ports[port.idx()], host_flows, cx.now);
    }

    fn held(&self) -> Option<usize> {
        Some(self.entries())
    }

    fn summary_line(&self, sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count as thousands;
        let (pauses, resumes) = (sent("flow_pause"), sent("flow_resume"));
        // Printed when zero too: a mechanism that ran and never paused says so.
        Some(("flow pauses", format!("{} (resumes {})", thousands(pauses), thousands(resumes))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::packet::test_packet;
    use crate::fabric::store::PacketStore;
    use crate::ids::NodeId;
    use crate::time::{Delta, Rate};

    /// Port 0 of a switch (no queues until flows take them); ports 1 and 2 face upstreams.
    /// One-hop BDP 10,000 B everywhere: PAUSE at 20,000 B queued, RESUME at 10,000 B.
    const EGRESS: PortId = PortId(0);
    const UP_A: PortId = PortId(1);
    const UP_B: PortId = PortId(2);

    fn per_flow() -> (PerFlow, Port, PacketStore) {
        let cfg = PerFlowConfig { xoff_bdp: 2.0, xon_bdp: 1.0 };
        let port = Port::new(NodeId(0), PortId(9), Rate::gbps(100), Delta::ZERO, 0, 1, Default::default());
        (PerFlow::new(cfg, &[10_000; 3], 4), port, PacketStore::new())
    }

    fn packet(flow: u32) -> Packet {
        Packet { flow: FlowId(flow), ..test_packet(0) }
    }

    fn ack(flow: u32) -> Packet {
        Packet { kind: PacketKind::Ack, ..packet(flow) }
    }

    /// A packet arrives over `up`, for `egress`: classified, checked, queued. Returns the
    /// frame the arrival asked for.
    fn arrive(
        pf: &mut PerFlow,
        port: &mut Port,
        store: &mut PacketStore,
        up: PortId,
        pkt: Packet,
    ) -> Option<FlowFrame> {
        let q = pf.classify_flow(EGRESS, port, &pkt, SimTime::ZERO);
        let after = port.queues.queue_bytes(q) + pkt.wire_bytes as u64;
        let frame = pf.on_arrival_flow(up, EGRESS, q, after, &pkt);
        let r = store.insert(pkt);
        port.queues.enqueue(store, q, r);
        frame
    }

    /// The head packet of `flow`'s queue leaves; returns whether RESUMEs were queued.
    fn depart(pf: &mut PerFlow, port: &mut Port, store: &mut PacketStore, pkt: Packet) -> bool {
        let q = pf.classify_flow(EGRESS, port, &pkt, SimTime::ZERO);
        let r = port.queues.dequeue(store, q).expect("a queued packet");
        store.remove(r);
        pf.on_dequeue_flow(EGRESS, port, q, &pkt, SimTime::ZERO)
    }

    /// Pyrrha §2.3 (Fig 2(b)) per-flow baseline: each active flow at a port has a queue of
    /// its own — taken at its first packet, kept for its later ones — and a flow's ACKs
    /// (queued with data) have another.
    #[test]
    fn each_active_flow_takes_a_queue_of_its_own() {
        let (mut pf, mut port, _) = per_flow();
        let q1 = pf.classify_flow(EGRESS, &mut port, &packet(1), SimTime::ZERO);
        let q2 = pf.classify_flow(EGRESS, &mut port, &packet(2), SimTime::ZERO);
        let q1_ack = pf.classify_flow(EGRESS, &mut port, &ack(1), SimTime::ZERO);
        assert!(q1 != q2 && q1 != q1_ack && q2 != q1_ack, "{q1} {q2} {q1_ack}");
        assert_eq!(pf.classify_flow(EGRESS, &mut port, &packet(1), SimTime::ZERO), q1, "kept");
        assert_eq!((pf.entries(), port.queues.allocated()), (3, 3));
        // The same flow at another port is another entry.
        let mut other =
            Port::new(NodeId(0), PortId(8), Rate::gbps(100), Delta::ZERO, 0, 1, Default::default());
        pf.classify_flow(PortId(2), &mut other, &packet(1), SimTime::ZERO);
        assert_eq!(pf.entries(), 4);
    }

    /// §6 "Parameters" (K_pause 2, K_resume 1 one-hop BDPs): the arrival that takes a flow's
    /// queue to 20,000 B sends PAUSE(flow) to the upstream it came over, once per upstream;
    /// once the queue falls to 10,000 B every paused upstream is sent RESUME(flow). Another
    /// flow at the same port is never paused.
    #[test]
    fn a_flow_is_paused_upstream_at_xoff_and_resumed_at_xon() {
        let (mut pf, mut port, mut store) = per_flow();
        let pause = FlowFrame { flow: FlowId(1), reverse: false, pause: true };
        // 19 packets of 1,048 B: 19,912 B, below xoff.
        for _ in 0..19 {
            assert_eq!(arrive(&mut pf, &mut port, &mut store, UP_A, packet(1)), None);
        }
        assert_eq!(arrive(&mut pf, &mut port, &mut store, UP_A, packet(1)), Some(pause), "20,960 B");
        assert_eq!(arrive(&mut pf, &mut port, &mut store, UP_A, packet(1)), None, "paused already");
        assert_eq!(arrive(&mut pf, &mut port, &mut store, UP_B, packet(1)), Some(pause), "a second upstream");
        // Flow 2's queue is its own: 10 packets are under xoff whatever flow 1 holds.
        for _ in 0..10 {
            assert_eq!(arrive(&mut pf, &mut port, &mut store, UP_A, packet(2)), None, "flow 2: under xoff");
        }
        // Flow 1 holds 22 packets; RESUME goes once 9 (9,432 B ≤ 10,000) are left.
        for left in (9..22).rev() {
            let resumed = depart(&mut pf, &mut port, &mut store, packet(1));
            assert_eq!(resumed, left == 9, "{left} packets left");
            if left > 9 {
                assert!(pf.outbox.is_empty());
            }
        }
        let resume = FlowFrame { flow: FlowId(1), reverse: false, pause: false };
        assert_eq!(pf.outbox.drain(..).collect::<Vec<_>>(), [(UP_A, resume), (UP_B, resume)]);
        assert!(!depart(&mut pf, &mut port, &mut store, packet(1)), "resumed once");
    }

    /// Per-flow PAUSE at the receiving end: a switch port stops only that flow's queue (a
    /// flow not seen yet gets its queue paused when its first packet comes); a host NIC
    /// stops only that flow's data, never its ACKs.
    #[test]
    fn a_pause_stops_exactly_one_flow() {
        let (mut pf, mut port, mut store) = per_flow();
        let q1 = pf.classify_flow(EGRESS, &mut port, &packet(1), SimTime::ZERO);
        let q2 = pf.classify_flow(EGRESS, &mut port, &packet(2), SimTime::ZERO);
        let r = store.insert(packet(1));
        port.queues.enqueue(&mut store, q1, r);
        assert!(!pf.on_frame_flow(EGRESS, &mut port, false, FlowId(1), false, true, SimTime::ZERO));
        assert!(port.queues.is_paused(q1) && !port.queues.is_paused(q2));
        // Flow 3 is paused before its first packet arrives here.
        pf.on_frame_flow(EGRESS, &mut port, false, FlowId(3), false, true, SimTime::ZERO);
        let q3 = pf.classify_flow(EGRESS, &mut port, &packet(3), SimTime::ZERO);
        assert!(port.queues.is_paused(q3), "its queue starts paused");
        assert!(
            pf.on_frame_flow(EGRESS, &mut port, false, FlowId(1), false, false, SimTime::ZERO),
            "may send"
        );
        assert!(!port.queues.is_paused(q1));
        // The source NIC (host port 5).
        let mut nic = Port::new(NodeId(1), PortId(5), Rate::gbps(100), Delta::ZERO, 0, 1, Default::default());
        assert!(!pf.on_frame_flow(PortId(5), &mut nic, true, FlowId(2), false, true, SimTime::ZERO));
        assert!(pf.host_paused(FlowId(2)) && !pf.host_paused(FlowId(1)));
        pf.on_frame_flow(PortId(5), &mut nic, true, FlowId(1), true, true, SimTime::ZERO);
        assert!(!pf.host_paused(FlowId(1)), "a NIC never pauses ACKs");
        assert!(pf.on_frame_flow(PortId(5), &mut nic, true, FlowId(2), false, false, SimTime::ZERO));
        assert!(!pf.host_paused(FlowId(2)));
    }

    /// Per-flow state is given back: a flow's queue once it is empty and not paused (the
    /// next flow reuses it), a RESUME for a flow without a queue here leaves no entry.
    #[test]
    fn a_drained_flow_gives_its_entry_back() {
        let (mut pf, mut port, mut store) = per_flow();
        for _ in 0..3 {
            arrive(&mut pf, &mut port, &mut store, UP_A, packet(1));
        }
        let q1 = pf.classify_flow(EGRESS, &mut port, &packet(1), SimTime::ZERO);
        for _ in 0..2 {
            depart(&mut pf, &mut port, &mut store, packet(1));
            assert_eq!((pf.entries(), port.queues.allocated()), (1, 1), "still holds a packet");
        }
        depart(&mut pf, &mut port, &mut store, packet(1));
        assert_eq!((pf.entries(), port.queues.allocated()), (0, 0), "empty: given back");
        assert_eq!(pf.classify_flow(EGRESS, &mut port, &packet(2), SimTime::ZERO), q1, "and reused");
        // A PAUSE then RESUME for a flow with no queue here: nothing is left.
        pf.on_frame_flow(EGRESS, &mut port, false, FlowId(3), false, true, SimTime::ZERO);
        assert_eq!(pf.entries(), 2);
        pf.on_frame_flow(EGRESS, &mut port, false, FlowId(3), false, false, SimTime::ZERO);
        assert_eq!(pf.entries(), 1);
    }
}
