//! Queue surgery for admission policies that make room ([`Verdict::MakeRoom`]: Vertigo's
//! Selective Deflection). The policy names the queued packets to take out
//! ([`DeflectionPolicy::victims`](super::admission::DeflectionPolicy::victims)) and where
//! a deflected packet goes; the switch takes them out (releasing their buffer and flow
//! control accounting as a departure would) and deflects them. At the port a packet was
//! deflected to, a full queue gives up its packets to it the same way, but those are
//! dropped.
//!
//! [`Verdict::MakeRoom`]: super::admission::Verdict::MakeRoom

use super::admission::{AdmCx, SurgeryCx};
use super::{Placement, Switches};
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::PortId;
use crate::metrics::DropCause;

impl Switches {
    /// Packet `r` found `queue` of `egress` full: take out the packets the policy names,
    /// enqueue `r` in the room they leave, then deflect them; if the policy names none,
    /// deflect `r` itself.
    #[cold]
    #[inline(never)]
    pub(crate) fn make_room(&mut self, fab: &mut Fabric, at: Placement) {
        let Placement { sw, r, egress, queue, .. } = at;
        match self.victims(fab, sw, r, egress, queue) {
            Some(victims) => {
                // The arriving packet takes the room first: a victim deflected back to this
                // very port (the only switch-facing port of a dumbbell) then meets a full
                // queue like any other packet, and the port never holds more than its rule
                // allows.
                for &v in &victims {
                    self.take_out(fab, egress, queue, v);
                }
                self.enqueue(fab, at);
                for v in victims {
                    self.deflect_taken(fab, sw, v, egress);
                }
                self.switch_try_send(fab, egress);
            }
            None => self.deflect_taken(fab, sw, r, egress),
        }
    }

    /// The queued packets of `queue` at `port` the policy gives up for `r`.
    fn victims(
        &self,
        fab: &Fabric,
        sw: usize,
        r: PacketRef,
        port: PortId,
        queue: usize,
    ) -> Option<Vec<PacketRef>> {
        let rank = self.rank_read.expect("a policy that makes room reads ranks");
        let cx = SurgeryCx {
            rule: &self.admission.rule,
            ports: &fab.ports,
            store: &fab.store,
            headers: &fab.headers,
            rank,
        };
        let arriving_rank = fab.headers.get(r.index(), rank);
        let size = fab.store.get(r).wire_bytes as u64;
        let used = self.nodes[sw].mmu.used_bytes;
        self.admission.deflection.victims(&cx, port, queue, arriving_rank, size, used, self.cfg.buffer_bytes)
    }

    /// Take queued packet `v` out of `queue` of `port` (its buffer is released).
    fn take_out(&mut self, fab: &mut Fabric, port: PortId, queue: usize, v: PacketRef) {
        fab.ports[port.idx()].queues.remove(&mut fab.store, queue, v);
        let p = *fab.store.get(v);
        self.release_departure(fab, port, queue, v, &p);
    }

    /// Deflect packet `r` from `from` to the port the policy picks, where a full queue
    /// gives up the packets the policy names (dropped) for it, or drops it.
    fn deflect_taken(&mut self, fab: &mut Fabric, sw: usize, r: PacketRef, from: PortId) {
        let rule = self.admission.rule;
        let pkt = *fab.store.get(r);
        let queue = self.fc.classify(fab, sw, from, &pkt, r);
        let cx = AdmCx { rule: &rule, ports: &fab.ports };
        let Some(to) = self.admission.deflection.deflection_port(&cx, sw, queue) else {
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
            match self.victims(fab, sw, r, to, queue) {
                Some(victims) => {
                    for x in victims {
                        self.take_out(fab, to, queue, x);
                        self.drop_at(fab, sw, x, to, queue, DropCause::RankAdmission);
                    }
                }
                None => {
                    self.drop_at(fab, sw, r, to, queue, DropCause::RankAdmission);
                    return;
                }
            }
        }
        self.enqueue(fab, Placement { sw, r, local_in: pkt.ingress as u32, egress: to, queue });
        self.switch_try_send(fab, to);
    }
}
