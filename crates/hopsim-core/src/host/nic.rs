//! The NIC scheduler: which packet a host sends next on its port.
//!
//! As the HPCC simulator's `QbbNetDevice`: control packets (ACK / NACK / CNP) first, then
//! round robin over the host's active flows, skipping those that flow control holds (a
//! paused PFC class, or a paused flow), that are window-bound, or whose rate limiter does
//! not allow a packet yet. If no flow is ready, the NIC wakes at the earliest time one
//! will be.

use super::Hosts;
use crate::engine::Event;
use crate::fabric::port::Port;
use crate::fabric::Fabric;
use crate::ids::{FlowId, PortId};
use crate::time::SimTime;
use crate::topology::routing::{FiveTuple, Routing};
use crate::topology::Topology;

/// What a NIC asks of flow control before it sends data of a flow: the flow-control
/// policy of the run answers (PFC by the flow's priority class, per-flow policies by the
/// flow), so the NIC obeys the PAUSE frames its port received.
pub trait NicGate {
    /// May the NIC on `nic` (`port`) send data of `flow` now?
    fn nic_may_send(
        &self,
        nic: PortId,
        port: &Port,
        flow: &FlowKey,
        routing: &Routing,
        topo: &Topology,
    ) -> bool;
}

/// The identity of a flow as flow control sees it at a NIC.
#[derive(Clone, Copy, Debug)]
pub struct FlowKey {
    pub id: FlowId,
    pub priority: u8,
    pub tuple: FiveTuple,
}

impl Hosts {
    /// Transmit on host `h`'s NIC if it is idle and something is ready.
    pub(crate) fn nic_try_send<G: NicGate>(&mut self, fab: &mut Fabric, gate: &G, h: usize) {
        let port = self.nodes[h].port;
        let host_has_work = |fab: &Fabric, hosts: &Hosts| {
            !fab.ports[port.idx()].control_queue.is_empty() || !hosts.nodes[h].active.is_empty()
        };
        let p = &fab.ports[port.idx()];
        if p.is_busy(fab.now) || p.down {
            if host_has_work(fab, self) && !p.down {
                fab.wake_when_idle(port);
            }
            return;
        }
        if let Some(pkt) = fab.store.pop_front(&mut fab.ports[port.idx()].control_queue) {
            fab.start_tx(port, pkt);
            if host_has_work(fab, self) {
                fab.wake_when_idle(port);
            }
            return;
        }
        let n = self.nodes[h].active.len();
        if n == 0 {
            return;
        }
        let now = fab.now;
        let mut earliest = SimTime::NEVER;
        let start = self.nodes[h].rr % n;
        for i in 0..n {
            // (start + i) mod n, without a division per flow scanned.
            let idx = if start + i < n { start + i } else { start + i - n };
            let f = self.nodes[h].active[idx];
            let mtu = self.cfg.mtu;
            let flow = &mut self.flows[f.idx()];
            let Some((_, hole)) = flow.next_segment(mtu) else { continue };
            // IRN holes lie below snd_nxt: they do not grow the data in flight.
            let key = FlowKey {
                id: flow.id,
                priority: flow.priority,
                tuple: FiveTuple { src: flow.src, dst: flow.dst, sport: flow.sport, dport: flow.dport },
            };
            if !gate.nic_may_send(port, &fab.ports[port.idx()], &key, &fab.routing, &fab.topo)
                || (!hole && flow.window_bound())
            {
                continue;
            }
            if flow.next_avail > now {
                earliest = earliest.min(flow.next_avail);
                continue;
            }
            let pkt = self.make_data_packet(fab, f);
            let host = &mut self.nodes[h];
            if self.flows[f.idx()].all_sent(mtu) {
                host.active.remove(idx);
                self.flows[f.idx()].in_active = false;
                host.rr = idx;
            } else {
                host.rr = idx + 1;
            }
            fab.start_tx(port, pkt);
            if host_has_work(fab, self) {
                fab.wake_when_idle(port);
            }
            return;
        }
        if earliest < self.nodes[h].wake_at {
            self.nodes[h].wake_at = earliest;
            fab.events.schedule(earliest, Event::NicWake { node: self.nodes[h].node });
        }
    }
}
