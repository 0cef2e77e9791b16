//! Isolation queues of one egress port (Pyrrha §4.3, §4.5, Appendix C).
//!
//! A port knows the congestion roots downstream that told it to stop (PAUSE) or merged into
//! another (MERGE), each in one of the states of Fig 6 — paused, resumed, soft-merging —
//! and keeps physical queues for them above its output queues (OQs):
//!
//! - **Hierarchical** (§4.3, the default): one isolation queue (IQ) per known root; a
//!   packet enters the IQ of the nearest root on its onward path and, each time it leaves an
//!   IQ, the IQ of the next root further on, or the OQ: levels by distance to the root,
//!   matched near to far, so a packet is sent only once every root it crosses is resumed.
//! - **Single tier** (Appendix C): one IQ per *set* of known roots a packet crosses
//!   (IQ_{A∧B} for flows through A and B), sent from directly, paused while any of its roots
//!   is; when flows move to a new IQ, order marks in the queues they used before hold it
//!   until the flows' earlier packets have left.
//!
//! At most `iq_limit` physical IQs per port (§4.5, default 100); beyond, a root (or set) is
//! hashed onto one of the IQs in use and shares it, "at a cost of sacrificing precise
//! isolation".

use super::types::RootId;
use crate::fabric::port::Port;
use crate::fabric::store::PacketStore;
use crate::time::SimTime;

/// State of a known root's isolation at this port (Fig 6; "unassigned" is absence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IqState {
    /// The root's downstream told this port to stop its traffic.
    Paused,
    /// Told to restart it.
    Resumed,
    /// The root was a false positive, merged into another: its IQ drains, packets crossing
    /// the real root move on to its IQ, the others to the OQ (§4.1, §4.3).
    Merging,
}

impl IqState {
    pub fn name(self) -> &'static str {
        match self {
            IqState::Paused => "paused",
            IqState::Resumed => "resumed",
            IqState::Merging => "merging",
        }
    }
}

/// A congestion root this port knows of.
#[derive(Clone, Copy, Debug)]
pub struct KnownRoot {
    pub root: RootId,
    /// Hops from this port to the root, as the frames told (1: the next switch's port).
    pub hop: u8,
    pub state: IqState,
    /// Hierarchical: the physical queue of the root's IQ.
    pub queue: u32,
}

/// A physical isolation queue in use.
#[derive(Clone, Debug)]
pub struct Slot {
    pub queue: u32,
    /// The roots whose traffic it holds (several once roots are hashed onto it).
    pub roots: Vec<RootId>,
    /// Single tier: the root sets mapped here (each sorted near to far).
    pub sets: Vec<Vec<RootId>>,
    /// Order marks still ahead of this queue's flows in the queues they used before.
    pub order_blocks: u32,
}

/// The isolation queues of one port.
#[derive(Clone, Debug, Default)]
pub struct PortIqs {
    pub known: Vec<KnownRoot>,
    pub slots: Vec<Slot>,
}

/// How a root (or set) got a physical queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assigned {
    /// A queue of its own, newly allocated.
    New(u32),
    /// The IQ limit was reached: it shares this queue (hashed onto it).
    Shared(u32),
}

impl Assigned {
    pub fn queue(self) -> u32 {
        match self {
            Assigned::New(q) | Assigned::Shared(q) => q,
        }
    }
}

impl PortIqs {
    pub fn find(&self, root: RootId) -> Option<usize> {
        self.known.iter().position(|k| k.root == root)
    }

    pub fn state_of(&self, root: RootId) -> Option<IqState> {
        self.find(root).map(|i| self.known[i].state)
    }

    fn slot_of_queue(&self, queue: u32) -> Option<usize> {
        self.slots.iter().position(|s| s.queue == queue)
    }

    /// A physical queue for `key_hash`'s traffic: a new one while fewer than `limit` are in
    /// use, else one of those in use chosen by the hash (§4.5).
    fn assign(&mut self, port: &mut Port, limit: usize, key_hash: u64) -> (Assigned, usize) {
        if self.slots.len() < limit {
            let queue = port.queues.allocate() as u32;
            self.slots.push(Slot { queue, roots: Vec::new(), sets: Vec::new(), order_blocks: 0 });
            (Assigned::New(queue), self.slots.len() - 1)
        } else {
            let i = (key_hash % self.slots.len() as u64) as usize;
            (Assigned::Shared(self.slots[i].queue), i)
        }
    }

    /// Hierarchical: learn `root` (`hop` away) in `state`, with an IQ of its own or shared.
    pub fn add_root(
        &mut self,
        port: &mut Port,
        limit: usize,
        root: RootId,
        hop: u8,
        state: IqState,
    ) -> Assigned {
        let (assigned, slot) = self.assign(port, limit, crate::topology::routing::mix64(root as u64));
        self.slots[slot].roots.push(root);
        self.known.push(KnownRoot { root, hop, state, queue: assigned.queue() });
        assigned
    }

    /// Single tier: learn `root` (its IQs come with the root sets packets cross).
    pub fn add_root_untiered(&mut self, root: RootId, hop: u8, state: IqState) {
        self.known.push(KnownRoot { root, hop, state, queue: u32::MAX });
    }

    /// Single tier: the queue of root set `set` (sorted near to far), assigning one if it
    /// has none; a new IQ gets an order mark in each non-empty queue its flows may have
    /// used before (the OQs and IQs of subsets of `set`, soft-merging roots aside), named
    /// by the new queue, and stays blocked until they all reach their heads. Returns the
    /// queue and how it was assigned (`None`: it had one).
    pub fn queue_for_set(
        &mut self,
        port: &mut Port,
        store: &mut PacketStore,
        limit: usize,
        oq_classes: usize,
        set: &[RootId],
    ) -> (u32, Option<Assigned>) {
        if let Some(s) = self.slots.iter().find(|s| s.sets.iter().any(|x| x == set)) {
            return (s.queue, None);
        }
        let hash = set.iter().fold(0u64, |h, r| crate::topology::routing::mix64(h ^ *r as u64));
        let (assigned, slot) = self.assign(port, limit, hash);
        let queue = assigned.queue();
        let mut marks = 0;
        let merging = |r: &RootId, known: &[KnownRoot]| {
            known.iter().any(|k| k.root == *r && k.state == IqState::Merging)
        };
        let earlier: Vec<u32> = (0..oq_classes as u32)
            .chain(
                self.slots
                    .iter()
                    .filter(|s| s.queue != queue)
                    .filter(|s| {
                        s.sets.iter().any(|x| {
                            x.len() < set.len() + x.iter().filter(|r| merging(r, &self.known)).count()
                                && x.iter().all(|r| set.contains(r) || merging(r, &self.known))
                        })
                    })
                    .map(|s| s.queue),
            )
            .collect();
        for q in earlier {
            if port.queues.queue_len(q as usize) > 0 {
                port.queues.push_marker(store, q as usize, queue as u64);
                marks += 1;
            }
        }
        let s = &mut self.slots[slot];
        s.sets.push(set.to_vec());
        for r in set {
            if !s.roots.contains(r) {
                s.roots.push(*r);
            }
        }
        s.order_blocks += marks;
        (queue, Some(assigned))
    }

    /// An order mark naming `queue` reached the head of its queue.
    pub fn mark_passed(&mut self, queue: u32) {
        if let Some(i) = self.slot_of_queue(queue) {
            let s = &mut self.slots[i];
            s.order_blocks = s.order_blocks.saturating_sub(1);
        }
    }

    /// Whether physical queue `queue` must hold: one of its roots is paused here, or (single
    /// tier) order marks are still ahead of it.
    pub fn queue_held(&self, queue: u32) -> bool {
        let Some(i) = self.slot_of_queue(queue) else { return false };
        let s = &self.slots[i];
        s.order_blocks > 0 || s.roots.iter().any(|r| self.state_of(*r) == Some(IqState::Paused))
    }

    /// Set the pause bit of every IQ from the roots' states and order marks. Returns
    /// whether a queue was released (may send again).
    pub fn refresh(&self, port: &mut Port, now: SimTime) -> bool {
        let mut resumed = false;
        for s in &self.slots {
            let hold = self.queue_held(s.queue);
            resumed |= port.queues.set_paused(s.queue as usize, hold, now) && !hold;
        }
        resumed
    }

    /// Forget `root` here (unassigned, or its link failed): it leaves its slot, and a slot
    /// left without roots gives its queue back (it must be empty). Returns whether a
    /// physical queue was released.
    pub fn remove_root(&mut self, port: &mut Port, root: RootId, now: SimTime) -> bool {
        if let Some(i) = self.find(root) {
            self.known.swap_remove(i);
        }
        let mut released = false;
        let mut i = 0;
        while i < self.slots.len() {
            let s = &mut self.slots[i];
            s.roots.retain(|r| *r != root);
            let tiered = !s.sets.is_empty();
            s.sets.retain(|x| !x.contains(&root));
            if tiered && s.sets.is_empty() {
                s.roots.clear();
            }
            if s.roots.is_empty() && s.order_blocks == 0 && port.queues.queue_len(s.queue as usize) == 0 {
                port.queues.release(s.queue as usize, now);
                self.slots.swap_remove(i);
                released = true;
            } else {
                i += 1;
            }
        }
        released
    }

    /// Whether the IQ(s) holding `root`'s traffic are empty (packets and marks).
    pub fn root_queues_empty(&self, port: &Port, root: RootId) -> bool {
        self.slots
            .iter()
            .filter(|s| s.roots.contains(&root))
            .all(|s| port.queues.queue_len(s.queue as usize) == 0)
    }

    /// Physical IQs in use.
    pub fn in_use(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::packet::test_packet;
    use crate::ids::{NodeId, PortId};
    use crate::time::{Delta, Rate};

    fn port() -> Port {
        Port::new(NodeId(0), PortId(1), Rate::gbps(100), Delta::ZERO, 8, 8, Default::default())
    }

    /// Beyond the IQ limit roots share queues by hash; a shared queue is paused while any
    /// of its roots is; removing the roots gives the queues back.
    #[test]
    fn roots_beyond_the_limit_share_queues() {
        let mut p = port();
        let mut iqs = PortIqs::default();
        let a = iqs.add_root(&mut p, 2, 100, 1, IqState::Paused);
        let b = iqs.add_root(&mut p, 2, 101, 2, IqState::Resumed);
        let c = iqs.add_root(&mut p, 2, 102, 1, IqState::Resumed);
        assert_eq!((a, b), (Assigned::New(8), Assigned::New(9)), "IQs above the 8 OQs");
        assert!(matches!(c, Assigned::Shared(8 | 9)));
        assert_eq!(iqs.in_use(), 2);
        iqs.refresh(&mut p, SimTime::ZERO);
        assert!(p.queues.is_paused(8) && !p.queues.is_paused(9));
        let shared = c.queue();
        iqs.known
            .iter_mut()
            .filter(|k| k.root == 101 || k.root == 102)
            .for_each(|k| k.state = IqState::Paused);
        iqs.refresh(&mut p, SimTime::ZERO);
        assert!(p.queues.is_paused(shared as usize));
        for r in [100, 101, 102] {
            iqs.remove_root(&mut p, r, SimTime::ZERO);
        }
        assert_eq!((iqs.in_use(), p.queues.allocated()), (0, 8), "every IQ given back");
    }

    /// Single tier: a new IQ for {A, B} gets order marks in the non-empty OQ and in IQ_{A},
    /// and is held until both marks pass.
    #[test]
    fn a_new_single_tier_iq_waits_for_its_order_marks() {
        let mut p = port();
        let mut store = PacketStore::new();
        let mut iqs = PortIqs::default();
        iqs.add_root_untiered(100, 1, IqState::Resumed);
        iqs.add_root_untiered(200, 2, IqState::Resumed);
        let (qa, _) = iqs.queue_for_set(&mut p, &mut store, 100, 8, &[100]);
        let r = store.insert(test_packet(1));
        p.queues.enqueue(&mut store, qa as usize, r);
        let r0 = store.insert(test_packet(0));
        p.queues.enqueue(&mut store, 0, r0);
        let (qab, how) = iqs.queue_for_set(&mut p, &mut store, 100, 8, &[100, 200]);
        assert_eq!(how, Some(Assigned::New(qab)));
        assert_eq!(iqs.slots[1].order_blocks, 2, "marks behind the OQ's and IQ_A's packets");
        assert!(iqs.queue_held(qab));
        assert_eq!(p.queues.queue_len(qa as usize), 2);
        iqs.mark_passed(qab);
        iqs.mark_passed(qab);
        assert!(!iqs.queue_held(qab));
        assert_eq!(iqs.queue_for_set(&mut p, &mut store, 100, 8, &[100, 200]), (qab, None));
    }
}
