//! Vertigo's queue surgery (see `admission::vertigo`): a full rank-ordered queue gives up
//! its highest-ranked packets for a more urgent arrival. At the port a packet arrives
//! for, those packets are deflected; at the port a deflected packet is sent to, they are
//! dropped.

use super::admission::Deflection;
use super::Switches;
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::PortId;
use crate::metrics::DropCause;

impl Switches {
    /// Packet `r` found `queue` of `egress` full: take out enough packets ranked above it
    /// (from the highest) and deflect them, then enqueue it; if the queue holds too few,
    /// deflect `r` itself.
    #[cold]
    #[inline(never)]
    pub(crate) fn vertigo_make_room(
        &mut self,
        fab: &mut Fabric,
        sw: usize,
        r: PacketRef,
        local_in: u32,
        egress: PortId,
        queue: usize,
    ) {
        match self.vertigo_victims(fab, sw, r, egress, queue) {
            Some(victims) => {
                for v in victims {
                    self.vertigo_take_out(fab, egress, queue, v);
                    self.vertigo_deflect(fab, sw, v, egress);
                }
                self.enqueue(fab, sw, r, local_in, egress, queue);
                self.switch_try_send(fab, egress);
            }
            None => self.vertigo_deflect(fab, sw, r, egress),
        }
    }

    /// The highest-ranked packets of `queue` whose removal lets `r` fit, all ranked
    /// strictly above it; `None` if there are not enough.
    fn vertigo_victims(
        &self,
        fab: &Fabric,
        sw: usize,
        r: PacketRef,
        port: PortId,
        queue: usize,
    ) -> Option<Vec<PacketRef>> {
        let rule = self.admission.rule;
        let field = self.rank_read.expect("Vertigo reads ranks");
        let rank = fab.headers.get(r.index(), field);
        let size = fab.store.get(r).wire_bytes as u64;
        let used = self.nodes[sw].mmu.used_bytes;
        let cap = rule.capacity(used, self.cfg.buffer_bytes);
        let p = &fab.ports[port.idx()];
        let level = rule.level(p, queue);
        let list = p.queues.list(queue);
        let mut freed = 0;
        let mut victims = Vec::new();
        let mut at = p.queues.tail(queue);
        while level - freed + size > cap {
            let x = at?;
            if fab.headers.get(x.index(), field) <= rank {
                return None;
            }
            freed += fab.store.get(x).wire_bytes as u64;
            victims.push(x);
            at = fab.store.prev_of(list, x);
        }
        Some(victims)
    }

    /// Take queued packet `v` out of `queue` of `port` (its buffer is released).
    fn vertigo_take_out(&mut self, fab: &mut Fabric, port: PortId, queue: usize, v: PacketRef) {
        fab.ports[port.idx()].queues.remove(&mut fab.store, queue, v);
        let p = *fab.store.get(v);
        self.release_departure(fab, port, queue, v, &p);
    }

    /// Deflect packet `r` from `from`: to the less occupied of two random switch-facing
    /// ports, where a full queue drops its highest ranks for it or drops it.
    fn vertigo_deflect(&mut self, fab: &mut Fabric, sw: usize, r: PacketRef, from: PortId) {
        let rule = self.admission.rule;
        let pkt = *fab.store.get(r);
        let queue = self.fc.classify(fab, sw, from, &pkt, r);
        let Deflection::Vertigo(v) = &mut self.admission.deflection else {
            unreachable!("Vertigo's surgery runs under Vertigo")
        };
        let Some(to) = v.deflection_port(sw, queue, &rule, &fab.ports) else {
            self.drop_at(fab, sw, r, from, queue, DropCause::EgressAdmission);
            return;
        };
        self.count_deflection(fab, from, to, r);
        let queue = self.fc.classify(fab, sw, to, &pkt, r);
        let size = pkt.wire_bytes as u64;
        let used = self.nodes[sw].mmu.used_bytes;
        let buffer = self.cfg.buffer_bytes;
        if used + size > buffer {
            self.drop_at(fab, sw, r, to, queue, DropCause::BufferFull);
            return;
        }
        if !rule.fits(&fab.ports[to.idx()], queue, size, used, buffer) {
            match self.vertigo_victims(fab, sw, r, to, queue) {
                Some(victims) => {
                    for x in victims {
                        self.vertigo_take_out(fab, to, queue, x);
                        self.drop_at(fab, sw, x, to, queue, DropCause::RankAdmission);
                    }
                }
                None => {
                    self.drop_at(fab, sw, r, to, queue, DropCause::RankAdmission);
                    return;
                }
            }
        }
        self.enqueue(fab, sw, r, pkt.ingress as u32, to, queue);
        self.switch_try_send(fab, to);
    }
}
