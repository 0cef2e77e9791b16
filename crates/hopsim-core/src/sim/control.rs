//! Hop-by-hop control frames: building and sending one on a port, and handing one that
//! arrived to the flow-control policy.

use super::Simulator;
use crate::frames::ControlPayload;
use crate::ids::{FlowId, PortId};
use crate::metrics::{ControlEvent, DropCause};
use crate::packet::{Packet, PacketFlags, PacketKind};
use crate::store::PacketRef;

impl Simulator {
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
            wire_bytes: payload.wire_bytes(),
            sent_at: self.now,
            ingress: 0,
            enq_ns: 0,
            sack: 0,
            ttl: 1,
        };
        self.counters.frames.sent[payload.kind() as usize] += 1;
        let stats = &mut self.ports[port.idx()].stats;
        match payload.pauses() {
            Some(true) => stats.pause_sent += 1,
            Some(false) => stats.resume_sent += 1,
            None => {}
        }
        if let Some(log) = &mut self.control_log {
            log.push(ControlEvent { time: self.now, node, port, payload });
        }
        let r = self.store.insert(pkt);
        self.frames.put(r.index(), payload);
        if self.ports[port.idx()].down {
            self.lose(r, DropCause::LinkDown);
            return;
        }
        self.store.push_back(&mut self.ports[port.idx()].control_queue, r);
        self.try_send(port);
    }

    /// Send the frames flow-control hooks asked for.
    pub(crate) fn send_pending_frames(&mut self) {
        while let Some((to, frame)) = self.fc.take_pending() {
            self.send_control_frame(to, frame);
        }
    }

    /// A control frame arrived on `port`: it governs what `port` may send.
    #[inline(never)]
    pub(super) fn on_control_frame(&mut self, port: PortId, payload: ControlPayload) {
        self.counters.frames.received[payload.kind() as usize] += 1;
        let p = &mut self.ports[port.idx()];
        if payload.pauses() == Some(true) {
            p.stats.pause_received += 1;
        }
        let is_host = self.topo.is_host(p.node);
        let net = (&self.routing, &self.topo);
        let (ext, store) = (&mut self.ext, &mut self.store);
        let resumed = self.fc.on_frame(port, &mut self.ports, is_host, payload, self.now, ext, store, net);
        self.send_pending_frames();
        if resumed {
            self.try_send(port);
        }
    }

    /// Packet `r` is lost outside a switch's admission (on a failed link): count it and
    /// free its slot (and a control frame's payload).
    pub(crate) fn lose(&mut self, r: PacketRef, cause: DropCause) {
        match self.store.get(r).kind {
            PacketKind::Data => self.counters.drops.add(cause),
            PacketKind::Control => {
                self.frames.take(r.index());
                self.counters.control_drops += 1;
            }
            _ => self.counters.control_drops += 1,
        }
        self.consume(r);
    }
}
