//! The packet store: every packet in the network lives in one slot from the moment a NIC
//! or switch creates it until a host, a port or a drop consumes it.
//!
//! Queues are FIFO lists threaded through the slots ([`PacketList`]) and a packet on a
//! wire is named by its delivery event, so forwarding a packet moves its reference (from a
//! queue to an event and into the next queue), never the packet. Freed slots are reused
//! last-in first-out, so the slot a new
//! packet lands in is usually one that was read a moment ago and is still in cache — a
//! per-queue ring would instead write each packet into a slot last touched a whole ring
//! length ago (the profile's top source of cache misses before the store). The slots are
//! one array shared by every queue and link, so reaching a slot is one address computation
//! (fixed chunks of slots, a second load and check per access, cost 5 % more instructions
//! on the k = 8 fat-tree; a bounds check per access 4 %, so there is none: `check`). The
//! array reserves address space for a million slots (64 MiB) at once, above glibc's
//! largest threshold (32 MiB) for giving an allocation a mapping of its own:
//! its pages cost memory only once a slot on them is used (memory follows the busiest
//! moment of the run), and growing beyond it remaps pages instead of copying them (growing
//! a small array by copying held the old and new copies at once: at k = 32, 1 ms, 171 MB
//! peak against 113 MB).

use crate::fabric::packet::Packet;
use crate::ids::PortId;

/// Slots the array reserves address space for at first (64 MiB, untouched until used).
const RESERVED: usize = 1 << 20;
/// Slots in use from which the array asks for huge pages (2 MiB of slots: a store this
/// large is reached at random by every hop, `fabric::huge_pages`).
const HUGE_SLOTS: usize = super::huge_pages::HUGE_PAGE / std::mem::size_of::<Slot>();
/// End of a list (and of the free list).
const NIL: u32 = u32::MAX;

/// A packet's slot in the [`PacketStore`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketRef(u32);

impl PacketRef {
    /// The slot's number (dense: below the most packets ever stored at once, rounded up
    /// to a chunk), for state kept beside a packet (its INT stack).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    #[cfg(test)]
    pub(crate) fn from_index(i: u32) -> PacketRef {
        PacketRef(i)
    }
}

/// One slot: the packet, the next slot of the list it is in and, while it is on a wire,
/// the port it arrives at. Exactly one cache line, aligned to one, so reading or writing
/// a packet touches one line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    pkt: Packet,
    next: u32,
    arrives_at: PortId,
}

/// A FIFO of packets (a control or data queue).
#[derive(Clone, Copy, Debug)]
pub struct PacketList {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for PacketList {
    fn default() -> Self {
        PacketList { head: NIL, tail: NIL, len: 0 }
    }
}

impl PacketList {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// The oldest packet.
    #[inline]
    pub fn front(&self) -> Option<PacketRef> {
        (self.len > 0).then_some(PacketRef(self.head))
    }

    /// The newest packet.
    #[inline]
    pub fn back(&self) -> Option<PacketRef> {
        (self.len > 0).then_some(PacketRef(self.tail))
    }
}

/// Slab of packet slots shared by every port of a simulation.
pub struct PacketStore {
    /// Every slot ever used (its length is the next never-used slot).
    slots: Vec<Slot>,
    /// Slot count at which a new slot needs [`grow_or_advise`](Self::grow_or_advise) first.
    check_at: u32,
    /// Head of the free-slot list (linked through `Slot::next`).
    free: u32,
    /// Slots holding a packet now, and the most ever.
    live: u32,
    peak: u32,
    /// Back links (slot → the slot before it in its list), kept only by the `*_linked`
    /// methods, for the lists whose owner removes packets from the middle (a queue with
    /// O(1) extraction). Empty until first used.
    prev: Vec<u32>,
}

impl PacketStore {
    /// An empty store. Crate-only: the unchecked slot access relies on refs never
    /// crossing stores ([`check`](Self::check)).
    pub(crate) fn new() -> PacketStore {
        PacketStore {
            slots: Vec::with_capacity(RESERVED),
            check_at: HUGE_SLOTS as u32,
            free: NIL,
            live: 0,
            peak: 0,
            prev: Vec::new(),
        }
    }

    /// Slot `r`, reached without a bounds check: with one, the store's eight or so
    /// accesses a packet-hop cost 37 more instructions per hop on the k = 8 fat-tree
    /// (3,377.1 M against 3,245.2 M at 1 ms), the checks themselves and the loads their
    /// panic paths kept LLVM from sharing.
    #[inline]
    #[allow(unsafe_code)]
    fn slot(&self, r: u32) -> &Slot {
        self.check(r);
        // SAFETY: `r < slots.len()` (see `check`).
        unsafe { self.slots.get_unchecked(r as usize) }
    }

    #[inline]
    #[allow(unsafe_code)]
    fn slot_mut(&mut self, r: u32) -> &mut Slot {
        self.check(r);
        // SAFETY: `r < slots.len()` (see `check`).
        unsafe { self.slots.get_unchecked_mut(r as usize) }
    }

    /// Every slot number a store is asked for is below its length, because:
    /// - a [`PacketRef`] is made only by [`insert`](Self::insert), from a slot it has just
    ///   pushed or reused (its field is private; `from_index` exists in unit tests only,
    ///   for events that never reach a store), and a [`PacketList`] links only such refs;
    /// - the array only grows (nothing here removes a slot: freed ones go to the free
    ///   list);
    /// - a store is made only inside this crate ([`new`](Self::new) is `pub(crate)`), one
    ///   per fabric, and a fabric's refs stay in its own lists and events: the partitions
    ///   of a parallel run hand packets over by value and insert them anew
    ///   (`sim::parallel`).
    ///
    /// Checked for real in debug builds and in this crate's unit tests.
    #[inline(always)]
    fn check(&self, r: u32) {
        if cfg!(any(test, debug_assertions)) {
            assert!((r as usize) < self.slots.len(), "slot {r} of a store of {}", self.slots.len());
        }
    }

    /// Store a new packet (in the most recently freed slot, if any).
    #[inline]
    pub fn insert(&mut self, pkt: Packet) -> PacketRef {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        let slot = Slot { pkt, next: NIL, arrives_at: PortId::NONE };
        if self.free != NIL {
            let r = self.free;
            let s = self.slot_mut(r);
            let next_free = s.next;
            *s = slot;
            self.free = next_free;
            return PacketRef(r);
        }
        let r = self.slots.len() as u32;
        assert!(r != NIL, "fewer than 2^32 - 1 packets in flight");
        if r == self.check_at {
            self.grow_or_advise();
        }
        self.slots.push(slot);
        PacketRef(r)
    }

    /// The array is full (room for a quarter more slots: beyond the first million, more
    /// packets in flight than ever before) or has just reached [`HUGE_SLOTS`] (huge pages
    /// for the whole of it, including what growth adds).
    #[cold]
    fn grow_or_advise(&mut self) {
        if self.slots.len() == self.slots.capacity() {
            self.slots.reserve_exact(self.slots.len() / 4);
        }
        if self.slots.len() >= HUGE_SLOTS {
            super::huge_pages::advise_vec(&self.slots);
        }
        self.check_at = self.slots.capacity().min(NIL as usize) as u32;
    }

    /// Take a packet out of the store (it must not be in any list).
    #[inline]
    pub fn remove(&mut self, r: PacketRef) -> Packet {
        self.live -= 1;
        let free = self.free;
        let s = self.slot_mut(r.0);
        s.next = free;
        let pkt = s.pkt;
        self.free = r.0;
        pkt
    }

    #[inline]
    pub fn get(&self, r: PacketRef) -> &Packet {
        &self.slot(r.0).pkt
    }

    #[inline]
    pub fn get_mut(&mut self, r: PacketRef) -> &mut Packet {
        &mut self.slot_mut(r.0).pkt
    }

    /// Put `r` on a wire towards `port`. The delivery then finds its receiver in the line
    /// it reads for the packet anyway, rather than in the sending port's (a line the
    /// delivery touches for nothing else; at k = 32 it missed the cache on most hops).
    #[inline(always)]
    pub fn send_towards(&mut self, r: PacketRef, port: PortId) {
        self.slot_mut(r.0).arrives_at = port;
    }

    /// The port packet `r`, on a wire, arrives at ([`send_towards`](Self::send_towards)).
    #[inline(always)]
    pub fn arrives_at(&self, r: PacketRef) -> PortId {
        self.slot(r.0).arrives_at
    }

    /// Start loading slot `r` into cache: the packet will be read soon (the new head of a
    /// queue, or the packet a coming delivery brings), and slots of a deep queue are
    /// scattered, which hardware prefetchers cannot follow.
    #[inline]
    pub fn prefetch(&self, r: PacketRef) {
        self.prefetch_slot(r.0);
    }

    #[inline]
    fn prefetch_slot(&self, r: u32) {
        crate::fabric::prefetch::prefetch(self.slot(r));
    }

    /// Append `r` to `list`.
    #[inline]
    pub fn push_back(&mut self, list: &mut PacketList, r: PacketRef) {
        self.slot_mut(r.0).next = NIL;
        if list.len == 0 {
            list.head = r.0;
        } else {
            self.slot_mut(list.tail).next = r.0;
        }
        list.tail = r.0;
        list.len += 1;
    }

    /// Unlink the oldest packet of `list` (and start loading the next one).
    #[inline]
    pub fn pop_front(&mut self, list: &mut PacketList) -> Option<PacketRef> {
        if list.len == 0 {
            return None;
        }
        let r = list.head;
        list.head = self.slot(r).next;
        list.len -= 1;
        if list.len == 0 {
            list.tail = NIL;
        } else {
            self.prefetch_slot(list.head);
        }
        Some(PacketRef(r))
    }

    /// The packet after `r` in its list.
    #[inline]
    pub fn next_of(&self, r: PacketRef) -> Option<PacketRef> {
        let next = self.slot(r.0).next;
        (next != NIL).then_some(PacketRef(next))
    }

    /// The packets of `list`, oldest first.
    pub fn iter<'a>(&'a self, list: &PacketList) -> impl Iterator<Item = PacketRef> + 'a {
        let mut at = list.front();
        let mut left = list.len();
        std::iter::from_fn(move || {
            let r = at.filter(|_| left > 0)?;
            left -= 1;
            at = self.next_of(r);
            Some(r)
        })
    }

    #[inline]
    fn set_prev(&mut self, r: u32, prev: u32) {
        let i = r as usize;
        if self.prev.len() <= i {
            self.prev.resize((i + 1).next_power_of_two(), NIL);
        }
        self.prev[i] = prev;
    }

    /// [`push_back`](Self::push_back) keeping the back link of `r`.
    pub fn push_back_linked(&mut self, list: &mut PacketList, r: PacketRef) {
        self.set_prev(r.0, if list.len == 0 { NIL } else { list.tail });
        self.push_back(list, r);
    }

    /// [`pop_front`](Self::pop_front) keeping the back link of the new head.
    pub fn pop_front_linked(&mut self, list: &mut PacketList) -> Option<PacketRef> {
        let r = self.pop_front(list)?;
        if list.len > 0 {
            self.set_prev(list.head, NIL);
        }
        Some(r)
    }

    /// Insert `r` into linked `list` right after `after` (`None`: at the front).
    pub fn insert_after_linked(&mut self, list: &mut PacketList, after: Option<PacketRef>, r: PacketRef) {
        let Some(a) = after else {
            self.set_prev(r.0, NIL);
            self.slot_mut(r.0).next = if list.len == 0 { NIL } else { list.head };
            if list.len == 0 {
                list.tail = r.0;
            } else {
                self.set_prev(list.head, r.0);
            }
            list.head = r.0;
            list.len += 1;
            return;
        };
        if a.0 == list.tail {
            self.push_back_linked(list, r);
            return;
        }
        let next = self.slot(a.0).next;
        self.slot_mut(r.0).next = next;
        self.slot_mut(a.0).next = r.0;
        self.set_prev(r.0, a.0);
        self.set_prev(next, r.0);
        list.len += 1;
    }

    /// The packet before `r` in its linked list (`None` at the head).
    pub fn prev_of(&self, list: &PacketList, r: PacketRef) -> Option<PacketRef> {
        (r.0 != list.head).then(|| PacketRef(self.prev[r.index()]))
    }

    /// Take `r` out of linked `list`, wherever it is, in O(1) (its back link says which
    /// slot points to it).
    pub fn unlink(&mut self, list: &mut PacketList, r: PacketRef) {
        debug_assert!(self.iter(list).any(|x| x == r), "slot {} is not in the list", r.0);
        let prev = if r.0 == list.head { NIL } else { self.prev[r.index()] };
        let next = self.slot(r.0).next;
        if prev == NIL {
            list.head = next;
        } else {
            self.slot_mut(prev).next = next;
        }
        if r.0 == list.tail {
            list.tail = prev;
        } else {
            self.set_prev(next, prev);
        }
        list.len -= 1;
        self.slot_mut(r.0).next = NIL;
    }

    /// Packets stored now.
    pub fn live(&self) -> u64 {
        self.live as u64
    }

    /// Most packets ever stored at once.
    pub fn peak(&self) -> u64 {
        self.peak as u64
    }

    /// Bytes of the slots ever used (the address space reserved beyond them costs no
    /// memory) and of the back links, if any list keeps them.
    pub fn allocated_bytes(&self) -> u64 {
        (self.slots.len() * std::mem::size_of::<Slot>() + self.prev.capacity() * 4) as u64
    }

    /// Bytes of one slot.
    pub const SLOT_BYTES: usize = std::mem::size_of::<Slot>();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::packet::test_packet as pkt;

    #[test]
    fn a_slot_is_one_cache_line() {
        assert_eq!(PacketStore::SLOT_BYTES, 64);
        assert_eq!(std::mem::align_of::<Slot>(), 64);
    }

    #[test]
    fn lists_are_fifo_and_slots_are_reused_last_in_first_out() {
        let mut store = PacketStore::new();
        let (mut a, mut b) = (PacketList::default(), PacketList::default());
        for seq in 0..10 {
            let r = store.insert(pkt(seq));
            store.push_back(if seq % 2 == 0 { &mut a } else { &mut b }, r);
        }
        assert_eq!((a.len(), b.len(), store.live()), (5, 5, 10));
        let r = store.pop_front(&mut a).unwrap();
        assert_eq!({ store.get(r).seq }, 0);
        // Relink onto the other list: it goes to the back.
        store.push_back(&mut b, r);
        let mut order = Vec::new();
        while let Some(r) = store.pop_front(&mut b) {
            order.push(store.remove(r).seq);
        }
        assert_eq!(order, vec![1, 3, 5, 7, 9, 0]);
        assert!(b.is_empty() && b.front().is_none());
        // The slot freed last is handed out first.
        let last_freed = store.insert(pkt(99));
        assert_eq!({ store.get(last_freed).seq }, 99);
        assert_eq!(store.live(), 5);
        assert_eq!(store.peak(), 10);
        assert_eq!(store.allocated_bytes(), (10 * PacketStore::SLOT_BYTES) as u64, "the slots used");
    }

    #[test]
    fn linked_lists_unlink_anywhere_and_insert_in_order() {
        let mut store = PacketStore::new();
        let mut list = PacketList::default();
        let refs: Vec<PacketRef> = (0..6).map(|seq| store.insert(pkt(seq))).collect();
        for &r in &refs {
            store.push_back_linked(&mut list, r);
        }
        let seqs = |store: &PacketStore, list: &PacketList| -> Vec<u64> {
            store.iter(list).map(|r| store.get(r).seq).collect()
        };
        store.unlink(&mut list, refs[3]); // middle
        store.unlink(&mut list, refs[5]); // tail
        store.unlink(&mut list, refs[0]); // head
        assert_eq!(seqs(&store, &list), vec![1, 2, 4]);
        assert_eq!(list.len(), 3);
        // Insert at the front, after the new tail and in the middle, then remove by the
        // back links those insertions set.
        store.insert_after_linked(&mut list, None, refs[0]);
        store.insert_after_linked(&mut list, Some(refs[4]), refs[5]);
        store.insert_after_linked(&mut list, Some(refs[2]), refs[3]);
        assert_eq!(seqs(&store, &list), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(store.pop_front_linked(&mut list), Some(refs[0]));
        store.unlink(&mut list, refs[1]); // the head after a pop
        store.unlink(&mut list, refs[4]);
        assert_eq!(seqs(&store, &list), vec![2, 3, 5]);
        store.push_back_linked(&mut list, refs[4]);
        store.unlink(&mut list, refs[5]);
        assert_eq!(seqs(&store, &list), vec![2, 3, 4]);
        while let Some(r) = store.pop_front_linked(&mut list) {
            store.remove(r);
        }
        assert!(list.is_empty() && store.iter(&list).next().is_none());
    }

    #[test]
    fn grows_beyond_its_reservation() {
        let mut store = PacketStore::new();
        let mut list = PacketList::default();
        let n = RESERVED as u64 + 3;
        for seq in 0..n {
            let r = store.insert(pkt(seq));
            store.push_back(&mut list, r);
        }
        assert_eq!(store.allocated_bytes(), n * PacketStore::SLOT_BYTES as u64);
        for seq in 0..n {
            let r = store.pop_front(&mut list).unwrap();
            assert_eq!({ store.get(r).seq }, seq);
        }
        assert!(store.pop_front(&mut list).is_none());
    }
}
