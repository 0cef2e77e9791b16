//! Hop-by-hop control frames out of switch ports: building and sending one, sending the
//! frames flow control asked for, and handing a frame that arrived (at a switch or at a
//! host's NIC) to the flow-control policy.

use super::flow_control::{ControlEvent, ControlPayload};
use super::Switches;
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::Fabric;
use crate::ids::{FlowId, PortId};
use crate::metrics::DropCause;

/// A frame paused or resumed queues of switch port `port`: head-of-line blocking's account
/// (`observe::HolBlocking`) notes the pauses and walks the queues resumed after a long one.
#[cold]
#[inline(never)]
fn hol_blocking(fab: &mut Fabric, port: PortId, before: u64, after: u64) {
    let now = fab.now;
    for (q, start) in fab.obs.hol.on_pause_change(port, before, after, now) {
        if q >= fab.ports[port.idx()].queues.len() {
            continue;
        }
        for r in fab.store.iter(fab.ports[port.idx()].queues.list(q)) {
            let p = fab.store.get(r);
            if p.kind == PacketKind::Data {
                fab.obs.hol.on_waited(p.flow, p.enq_ns, start, now);
            }
        }
    }
}

impl Switches {
    /// Queue a hop-by-hop control frame on `port` (towards its peer) and kick the port.
    pub(crate) fn send_control_frame(&mut self, fab: &mut Fabric, port: PortId, payload: ControlPayload) {
        let node = fab.ports[port.idx()].node;
        let pkt = Packet {
            kind: PacketKind::Control,
            priority: 0,
            flags: PacketFlags::NONE,
            flow: FlowId(u32::MAX),
            src: node,
            dst: fab.ports[fab.ports[port.idx()].peer.idx()].node,
            sport: 0,
            dport: 0,
            seq: 0,
            payload: 0,
            wire_bytes: payload.wire_bytes(),
            sent_at: fab.now,
            ingress: 0,
            enq_ns: 0,
            sack: 0,
            ttl: 1,
        };
        self.frame_counts.sent[payload.kind_index()] += 1;
        let stats = &mut fab.ports[port.idx()].stats;
        match payload.pauses() {
            Some(true) => stats.pause_sent += 1,
            Some(false) => stats.resume_sent += 1,
            None => {}
        }
        if let Some(log) = &mut self.control_log {
            log.push(ControlEvent { time: fab.now, node, port, payload, order: fab.events.fired_key() });
        }
        let r = fab.store.insert(pkt);
        self.frames.put(r.index(), payload);
        if fab.ports[port.idx()].down {
            self.lose(fab, r, DropCause::LinkDown);
            return;
        }
        fab.store.push_back(&mut fab.ports[port.idx()].control_queue, r);
        self.switch_try_send(fab, port);
    }

    /// Send the frames flow-control hooks asked for.
    pub(crate) fn send_pending_frames(&mut self, fab: &mut Fabric) {
        while let Some((to, frame)) = self.fc.take_frame() {
            self.send_control_frame(fab, to, frame);
        }
    }

    /// A control frame arrived on `port`: it governs what `port` may send. Returns whether
    /// something was resumed there (the port should try to send).
    #[inline(never)]
    pub fn on_control_frame(&mut self, fab: &mut Fabric, port: PortId, payload: ControlPayload) -> bool {
        self.frame_counts.received[payload.kind_index()] += 1;
        let p = &mut fab.ports[port.idx()];
        if payload.pauses() == Some(true) {
            p.stats.pause_received += 1;
        }
        let is_host = fab.topo.is_host(p.node);
        let before = p.queues.paused_mask0();
        let resumed = self.fc.on_frame(fab, port, is_host, payload);
        let after = fab.ports[port.idx()].queues.paused_mask0();
        if after != before && !is_host {
            hol_blocking(fab, port, before, after);
        }
        self.send_pending_frames(fab);
        resumed
    }

    /// Packet `r` is lost outside admission (on a failed link): a control frame's payload
    /// is freed with it.
    pub fn lose(&mut self, fab: &mut Fabric, r: crate::fabric::store::PacketRef, cause: DropCause) {
        if fab.store.get(r).kind == PacketKind::Control {
            self.frames.take(r.index());
        }
        fab.lose(r, cause);
    }
}
