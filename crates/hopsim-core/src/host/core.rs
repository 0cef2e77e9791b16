//! What every host shares whatever transport it runs: the NICs and their lists of flows
//! with data to send, the flows' common state, the transport settings, and the steps every
//! transport takes — put a flow in its NIC's round robin, finish it, schedule its timers,
//! hand congestion notices to its congestion control.

use super::cc::{SourceNotice, TimerRequest};
use super::flow::Flow;
use super::{Host, TransportConfig};
use crate::engine::{Event, TimerKind};
use crate::fabric::headers::Field;
use crate::fabric::int::IntStack;
use crate::fabric::packet::Packet;
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::FlowId;

/// The hosts' shared state.
pub struct HostCore {
    /// Per host (by host index).
    pub nodes: Vec<Host>,
    pub flows: Vec<Flow>,
    /// Flow tags, by tag index.
    pub tags: Vec<String>,
    pub cfg: TransportConfig,
    /// Data packets carry INT (`switch.int`).
    pub int_enabled: bool,
    /// Per flow: the INT stack of the last ACK the sender received.
    pub flow_int: Vec<IntStack>,
    /// With a deflection policy: data packets delivered per extra switch hops taken.
    pub extra_hops: Option<Vec<u64>>,
    /// Next flow (in start order) whose `FlowStart` has not been scheduled yet.
    pub next_flow_to_schedule: usize,
    /// Per flow: its source is simulated by another partition of a parallel run, so its
    /// start is not scheduled here (empty in a sequential run).
    pub starts_elsewhere: Vec<bool>,
    /// The header field senders write ranks in (when switches read ranks).
    pub rank_field: Option<Field>,
    /// Bolt's header bits (FIRST, LAST, INC, DEC), when hosts run Bolt.
    pub bolt_flags: Option<Field>,
}

impl HostCore {
    /// Put flow `f` in host `h`'s round-robin list (once; the flow's flag says whether it
    /// is there, so this costs no scan on every ACK).
    pub fn activate(&mut self, h: usize, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        if !flow.in_active {
            flow.in_active = true;
            self.nodes[h].active.push(f);
        }
    }

    /// Flow `f` of host `h` is fully acknowledged.
    pub fn finish_flow(&mut self, fab: &mut Fabric, h: usize, f: FlowId) {
        let now = fab.now;
        let flow = &mut self.flows[f.idx()];
        flow.finish = Some(now);
        fab.counters.flows_finished += 1;
        // The sender's pending timers are stale from now on (`TimerKind::at_receiver`).
        if std::mem::take(&mut flow.in_active) {
            let i = self.nodes[h].active.iter().position(|x| *x == f).expect("flagged as active");
            self.nodes[h].active.remove(i);
        }
    }

    /// Schedule a congestion-control timer of flow `f`.
    pub fn schedule_flow_timer(&mut self, fab: &mut Fabric, f: FlowId, t: TimerRequest) {
        let flow = &mut self.flows[f.idx()];
        if t.restart {
            flow.timer_gen[t.kind.slot()] += 1;
        }
        let generation = flow.timer_gen[t.kind.slot()];
        fab.events.schedule(t.at, Event::FlowTimer { flow: f, kind: t.kind, generation });
    }

    /// A timer congestion control asked for fired for flow `f`.
    pub fn cc_timer(&mut self, fab: &mut Fabric, f: FlowId, kind: TimerKind) {
        let t = &self.cfg;
        let flow = &mut self.flows[f.idx()];
        let (cc, mut view) = flow.cc_parts(fab.now, (t.mtu + t.header_bytes) as u64, t.mtu as u64);
        cc.on_timer(kind, &mut view, &t.cc_params);
        if let Some(timer) = view.timer {
            self.schedule_flow_timer(fab, f, timer);
        }
    }

    /// A congestion notification for flow `f`: a CNP, or an ACK echoing CE marks.
    pub fn on_congestion_notification(&mut self, fab: &mut Fabric, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        flow.cnps_received += 1;
        if flow.finish.is_some() {
            return;
        }
        let t = &self.cfg;
        let (cc, mut view) = flow.cc_parts(fab.now, (t.mtu + t.header_bytes) as u64, t.mtu as u64);
        cc.on_congestion_notification(&mut view, &t.cc_params);
        if let Some(timer) = view.timer {
            self.schedule_flow_timer(fab, f, timer);
        }
    }

    /// A switch's notice straight to the sender (Bolt's SRC); `in_recovery`: the sender
    /// is in fast recovery. Returns the host to kick.
    #[inline(never)]
    pub fn on_source_notice(&mut self, fab: &mut Fabric, p: &Packet, in_recovery: bool) -> Option<usize> {
        let t = &self.cfg;
        let flow = &mut self.flows[p.flow.idx()];
        if flow.finish.is_some() {
            return None;
        }
        let n = SourceNotice::of(p);
        let mss = t.mtu as u64;
        let (cc, mut view) = flow.cc_parts(fab.now, mss + t.header_bytes as u64, mss);
        view.in_recovery = in_recovery;
        cc.on_source_notice(&n, &mut view, &t.cc_params);
        Some(fab.node_slot[p.dst.idx()] as usize)
    }

    /// Data packet `r` arrived with a deflection policy running: count the switch hops it
    /// took beyond its flow's routed path (every switch spent one of its hop limit).
    #[cold]
    #[inline(never)]
    pub fn count_extra_hops(&mut self, fab: &Fabric, r: PacketRef) {
        let p = fab.store.get(r);
        let taken = self.cfg.ttl.saturating_sub(p.ttl) as u32;
        let routed = self.flows[p.flow.idx()].path_hops.saturating_sub(1);
        let extra = taken.saturating_sub(routed) as usize;
        let h = self.extra_hops.as_mut().expect("counting");
        if h.len() <= extra {
            h.resize(extra + 1, 0);
        }
        h[extra] += 1;
    }

    /// Flows start in time order; only the next start is ever pending.
    pub fn schedule_next_flow_start(&mut self, fab: &mut Fabric) {
        while self.starts_elsewhere.get(self.next_flow_to_schedule) == Some(&true) {
            self.next_flow_to_schedule += 1;
        }
        if let Some(f) = self.flows.get(self.next_flow_to_schedule) {
            fab.events
                .schedule(f.start, Event::FlowStart { flow: FlowId(self.next_flow_to_schedule as u32) });
            self.next_flow_to_schedule += 1;
        }
    }
}
