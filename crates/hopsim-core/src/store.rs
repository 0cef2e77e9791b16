//! The packet store: every packet in the network lives in one slot from the moment a NIC
//! or switch creates it until a host, a port or a drop consumes it.
//!
//! Links and queues are FIFO lists threaded through the slots ([`PacketList`]), so moving a
//! packet from a queue onto a link and from a link into the next queue relinks its slot
//! instead of copying it. Freed slots are reused last-in first-out, so the slot a new
//! packet lands in is usually one that was read a moment ago and is still in cache — a
//! per-queue ring would instead write each packet into a slot last touched a whole ring
//! length ago (the profile's top source of cache misses before the store). The slots grow
//! in fixed chunks, so the store holds what the busiest moment needed (no doubling slack,
//! no copying on growth), shared by every queue and link: bytes per in-flight packet stay
//! close to the slot size.

use crate::packet::Packet;
use crate::time::SimTime;

/// log2 of the slots per chunk (4,096 slots of 80 B: 320 KiB).
const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
/// End of a list (and of the free list).
const NIL: u32 = u32::MAX;

/// A packet's slot in the [`PacketStore`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketRef(u32);

/// One slot: the packet, when it finishes arriving at the far end of the link it is on,
/// and the next slot of the list it is in.
#[derive(Clone, Copy)]
struct Slot {
    pkt: Packet,
    arrive: SimTime,
    next: u32,
}

/// A FIFO of packets (a link's packets in flight, a control or data queue).
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
}

/// Slab of packet slots shared by every port of a simulation.
#[derive(Default)]
pub struct PacketStore {
    chunks: Vec<Vec<Slot>>,
    /// Head of the free-slot list (linked through `Slot::next`).
    free: u32,
    /// Slots holding a packet now, and the most ever.
    live: u32,
    peak: u32,
}

impl PacketStore {
    pub fn new() -> PacketStore {
        PacketStore { chunks: Vec::new(), free: NIL, live: 0, peak: 0 }
    }

    #[inline]
    fn slot(&self, r: u32) -> &Slot {
        &self.chunks[(r >> CHUNK_BITS) as usize][r as usize & (CHUNK - 1)]
    }

    #[inline]
    fn slot_mut(&mut self, r: u32) -> &mut Slot {
        &mut self.chunks[(r >> CHUNK_BITS) as usize][r as usize & (CHUNK - 1)]
    }

    /// Store a new packet (in the most recently freed slot, if any).
    #[inline]
    pub fn insert(&mut self, pkt: Packet) -> PacketRef {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        let slot = Slot { pkt, arrive: SimTime::ZERO, next: NIL };
        if self.free != NIL {
            let r = self.free;
            let s = self.slot_mut(r);
            let next_free = s.next;
            *s = slot;
            self.free = next_free;
            return PacketRef(r);
        }
        if self.chunks.last().is_none_or(|c| c.len() == CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        let index = ((self.chunks.len() - 1) << CHUNK_BITS) | self.chunks.last().map_or(0, Vec::len);
        self.chunks.last_mut().expect("a chunk with room").push(slot);
        PacketRef(u32::try_from(index).expect("fewer than 2^32 packets in flight"))
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

    /// When the packet finishes arriving at the far end of its link.
    #[inline]
    pub fn arrival(&self, r: PacketRef) -> SimTime {
        self.slot(r.0).arrive
    }

    #[inline]
    pub fn set_arrival(&mut self, r: PacketRef, at: SimTime) {
        self.slot_mut(r.0).arrive = at;
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

    /// Unlink the oldest packet of `list`.
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
        }
        Some(PacketRef(r))
    }

    /// Packets stored now.
    pub fn live(&self) -> u64 {
        self.live as u64
    }

    /// Most packets ever stored at once.
    pub fn peak(&self) -> u64 {
        self.peak as u64
    }

    /// Bytes allocated for slots.
    pub fn allocated_bytes(&self) -> u64 {
        self.chunks.iter().map(|c| (c.capacity() * std::mem::size_of::<Slot>()) as u64).sum()
    }

    /// Bytes of one slot.
    pub const SLOT_BYTES: usize = std::mem::size_of::<Slot>();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::test_packet as pkt;

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
        assert_eq!(store.get(r).seq, 0);
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
        assert_eq!(store.get(last_freed).seq, 99);
        assert_eq!(store.live(), 5);
        assert_eq!(store.peak(), 10);
        assert_eq!(store.allocated_bytes(), (CHUNK * PacketStore::SLOT_BYTES) as u64);
    }

    #[test]
    fn grows_in_chunks_beyond_one() {
        let mut store = PacketStore::new();
        let mut list = PacketList::default();
        for seq in 0..(CHUNK as u64 + 3) {
            let r = store.insert(pkt(seq));
            store.set_arrival(r, SimTime(seq));
            store.push_back(&mut list, r);
        }
        assert_eq!(store.allocated_bytes(), (2 * CHUNK * PacketStore::SLOT_BYTES) as u64);
        for seq in 0..(CHUNK as u64 + 3) {
            let r = store.pop_front(&mut list).unwrap();
            assert_eq!((store.get(r).seq, store.arrival(r)), (seq, SimTime(seq)));
        }
        assert!(store.pop_front(&mut list).is_none());
    }
}
