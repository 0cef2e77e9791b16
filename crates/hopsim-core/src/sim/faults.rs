//! Link failures (`[[faults]]`): a link goes down at a time and, optionally, back up.
//!
//! When a link fails, both of its ports stop: the packets on its wire are lost (dropped
//! when they arrive), the packets queued for it (control and data) are dropped — leaving the switch
//! buffer and flow-control accounting as if they had been sent, so PFC and per-flow
//! pauses they held are released — and the pauses the dead neighbour had imposed are
//! lifted. Routing is recomputed over the remaining links (each switch keeps its ECMP
//! seed); a switch left without a path to a destination drops what it receives for it
//! (`no_route`). When the link comes back, routing is recomputed again. Drops are counted
//! by cause (`link_down`, `no_route`).

use super::Simulator;
use crate::engine::Event;
use crate::ids::PortId;
use crate::metrics::DropCause;
pub use crate::scenario::faults::LinkFault;

impl Simulator {
    pub(super) fn on_link_fault(&mut self, fault: usize, up: bool) {
        let ports = self.faults[fault].ports;
        for p in ports {
            if up {
                self.fab.ports[p.idx()].down = false;
            } else {
                self.take_port_down(p);
            }
        }
        let alive: Vec<bool> = self.fab.ports.iter().map(|p| !p.down).collect();
        self.fab.routing.reroute(&self.fab.topo, &alive);
        if up {
            for p in ports {
                self.try_send(p);
            }
        }
    }

    /// Stop port `p`: lose what is on its wire, drop what is queued for it, lift the
    /// pauses its peer imposed.
    fn take_port_down(&mut self, p: PortId) {
        let now = self.fab.now;
        let port = &mut self.fab.ports[p.idx()];
        if port.down {
            return;
        }
        port.down = true;
        // What is on the wire is lost: marked now, dropped when it arrives.
        let on_wire: Vec<_> = match &self.fab.wires {
            Some(wires) => wires.on_wire(p).collect(),
            None => self
                .fab
                .events
                .pending()
                .filter_map(|e| match *e {
                    Event::Deliver { port, pkt } if port == p => Some(pkt),
                    _ => None,
                })
                .collect(),
        };
        for r in on_wire {
            let pkt = self.fab.store.get_mut(r);
            pkt.flags = pkt.flags.with(crate::fabric::packet::PacketFlags::LOST, true);
        }
        while let Some(r) = self.fab.store.pop_front(&mut self.fab.ports[p.idx()].control_queue) {
            self.switches.lose(&mut self.fab, r, DropCause::LinkDown);
        }
        let node = self.fab.ports[p.idx()].node;
        let is_host = self.fab.topo.is_host(node);
        if !is_host {
            self.drain_for_failure(p);
        }
        let host_flows: Vec<_> = if is_host {
            self.hosts.core.flows.iter().filter(|f| f.src == node).map(|f| f.id).collect()
        } else {
            Vec::new()
        };
        self.switches.fc.on_link_down(&mut self.fab, p, is_host, &host_flows);
        self.switches.send_pending_frames(&mut self.fab);
        let port = &mut self.fab.ports[p.idx()];
        for q in 0..64.max(port.queues.len()) {
            if port.queues.is_paused(q) {
                port.queues.set_paused(q, false, now);
            }
        }
    }

    /// Drop every packet queued on switch port `p`, releasing buffer and flow-control
    /// accounting as a departure would (frames the release triggers are sent).
    fn drain_for_failure(&mut self, p: PortId) {
        for queue in 0..self.fab.ports[p.idx()].queues.len() {
            while let Some(r) = self.fab.ports[p.idx()].queues.dequeue(&mut self.fab.store, queue) {
                let pkt = *self.fab.store.get(r);
                if pkt.kind == crate::fabric::packet::PacketKind::Marker {
                    self.fab.consume(r);
                    self.switches.fc.on_marker(&mut self.fab, p, pkt.seq);
                    continue;
                }
                let (sw, signal) = self.switches.release_departure(&mut self.fab, p, queue, r, &pkt);
                if pkt.kind == crate::fabric::packet::PacketKind::Data {
                    self.switches.nodes[sw].drops.add(DropCause::LinkDown);
                }
                self.switches.lose(&mut self.fab, r, DropCause::LinkDown);
                if signal {
                    self.switches.send_pending_frames(&mut self.fab);
                }
            }
        }
    }
}
