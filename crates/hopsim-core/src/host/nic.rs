//! The NIC scheduler: which packet a host sends next on its port.
//!
//! As the HPCC simulator's `QbbNetDevice`: control packets (ACK / NACK / CNP) first, then
//! round robin over the host's active flows, skipping those that flow control holds (a
//! paused PFC class, or a paused flow), that are window-bound, or whose rate limiter does
//! not allow a packet yet. If no flow is ready, the NIC wakes at the earliest time one
//! will be.

use crate::engine::Event;
use crate::sim::Simulator;
use crate::time::SimTime;

impl Simulator {
    /// Transmit on host `h`'s NIC if it is idle and something is ready.
    pub(crate) fn nic_try_send(&mut self, h: usize) {
        let port = self.hosts[h].port;
        let host_has_work = |sim: &Simulator| {
            !sim.ports[port.idx()].control_queue.is_empty() || !sim.hosts[h].active.is_empty()
        };
        let p = &self.ports[port.idx()];
        if p.is_busy(self.now) || p.down {
            if host_has_work(self) && !p.down {
                self.wake_when_idle(port);
            }
            return;
        }
        if let Some(pkt) = self.store.pop_front(&mut self.ports[port.idx()].control_queue) {
            self.start_tx(port, pkt);
            if host_has_work(self) {
                self.wake_when_idle(port);
            }
            return;
        }
        let n = self.hosts[h].active.len();
        if n == 0 {
            return;
        }
        let now = self.now;
        let mut earliest = SimTime::NEVER;
        let start = self.hosts[h].rr % n;
        for i in 0..n {
            // (start + i) mod n, without a division per flow scanned.
            let idx = if start + i < n { start + i } else { start + i - n };
            let f = self.hosts[h].active[idx];
            let mtu = self.transport.mtu;
            let flow = &mut self.flows[f.idx()];
            let Some((_, hole)) = flow.next_segment(mtu) else { continue };
            // IRN holes lie below snd_nxt: they do not grow the data in flight.
            if !self.fc.nic_may_send(port, &self.ports[port.idx()], flow, &self.routing, &self.topo)
                || (!hole && flow.window_bound())
            {
                continue;
            }
            if flow.next_avail > now {
                earliest = earliest.min(flow.next_avail);
                continue;
            }
            let pkt = self.make_data_packet(f);
            let host = &mut self.hosts[h];
            if self.flows[f.idx()].all_sent(mtu) {
                host.active.remove(idx);
                self.flows[f.idx()].in_active = false;
                host.rr = idx;
            } else {
                host.rr = idx + 1;
            }
            self.start_tx(port, pkt);
            if host_has_work(self) {
                self.wake_when_idle(port);
            }
            return;
        }
        if earliest < self.hosts[h].wake_at {
            self.hosts[h].wake_at = earliest;
            self.events.schedule(earliest, Event::NicWake { node: self.hosts[h].node });
        }
    }
}
