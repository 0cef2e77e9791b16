//! The data queues of one egress port and the scheduler among them.
//!
//! A port has any number of data queues (8 traffic classes by default; BFC and Pyrrha
//! need 128 or more, per-flow flow control one per active flow, allocated and released at
//! run time). Each queue is a FIFO list of packet-store slots with its byte count. A queue
//! is *eligible* to send when it holds an entry, is not paused by flow control and is not
//! held by its rate shaper; the scheduler picks among eligible queues by round robin or
//! strict priority.
//!
//! Eligibility is a bitmap, never a scan of the queues: word 0 (queues 0–63) lives inline,
//! so a port with at most 64 queues answers "which queue next" with a few bit operations;
//! larger ports keep further words and a summary bitmap (bit w: word w has an eligible
//! queue), so finding the next eligible queue reads O(queues / 4096) summary words.
//!
//! Beyond FIFO service the model offers what later mechanisms need, each off unless a
//! policy asks for it: O(1) removal of a packet from the middle of a queue (Vertigo's
//! extraction; back links kept by the store), rank-ordered queues (SRPT by a packet rank,
//! as Vertigo's and pFabric-style PIFO service), marker entries that are never transmitted
//! (OFC and Aquarius order marks; see [`PacketKind::Marker`](crate::fabric::packet::PacketKind)),
//! moving a dequeued packet into another queue (Pyrrha's hierarchical isolation queues),
//! and a rate shaper per queue (GFC).

use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::store::{PacketList, PacketRef, PacketStore};
use crate::time::{ByteTime, Delta, Rate, SimTime};

/// How the port chooses among eligible data queues.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// Round robin, one packet per turn (the HPCC simulator's switch and NIC).
    #[default]
    RoundRobin,
    /// The lowest-numbered eligible queue first.
    StrictPriority,
    /// Pyrrha-NS3's switch scheduler (`BEgressQueue::DoDequeueRR` with its default two
    /// priorities, `third.cc`): queue 0 first; queues 1..n−1 scanned from a pointer, which
    /// after a send becomes the served queue's distance from the pointer rather than the
    /// position past it (`m_rrlasts = rrlast`, the loop offset). With every queue backlogged
    /// it serves queue 1 again and again: close to strict priority, not round robin.
    PyrrhaNs3,
}

/// Order of packets inside one queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QueueOrder {
    /// First in, first out.
    #[default]
    Fifo,
    /// Ascending rank, ties first in first out (a PIFO: SRPT when the rank is the flow's
    /// remaining bytes). Insertion walks the queue, so it suits bounded queues.
    Rank,
}

/// One data queue. Aligned to 32 bytes so that it never straddles two cache lines (its
/// length and byte count are read by admission, written by enqueue and dequeue).
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(32))]
pub struct DataQueue {
    /// The queued entries (slots of the [`PacketStore`]).
    pub packets: PacketList,
    /// Wire bytes of the packets queued (markers count none).
    pub bytes: u64,
}

/// A per-queue rate limit (token bucket without burst): after sending `b` bytes at `t` the
/// queue may send again at `t + b / rate`.
#[derive(Clone, Copy, Debug)]
struct Shaper {
    byte_time: ByteTime,
    next_free: SimTime,
}

/// The pause bookkeeping of a port (touched only when a frame arrives), and what ports
/// with more than 64 queues, dynamic queues, ordered queues or shapers keep.
#[derive(Clone, Debug, Default)]
struct Extras {
    /// Word 0 of the paused bitmap (queues or, on a host port, classes 0–63).
    paused0: u64,
    /// Queues paused now (for the paused-time account) and since when some queue is.
    paused_count: u32,
    paused_since: SimTime,
    /// Total time during which at least one queue was paused.
    paused_time: Delta,
    /// Back links are kept for every queue of this port (O(1) `remove`).
    linked: bool,
    /// Allocated the first time the port needs it: most ports never do, and kept in every
    /// port (eight vectors, four of them sized for every queue up front) it was the larger
    /// part of a port's memory: a k = 48 fat-tree's peak fell from 270 to 197 MB without.
    wide: Option<Box<Wide>>,
}

/// What only some ports need: the bitmaps' words beyond the first, the summary, the free
/// list, rank orders and shapers. `held`, `ranked` and `shapers` are sized on first use (a
/// missing entry reads as not held, FIFO, unshaped).
#[derive(Clone, Debug, Default)]
struct Wide {
    /// Words 1.. of the bitmaps (word 0 is inline in `EgressQueues`).
    nonempty: Vec<u64>,
    blocked: Vec<u64>,
    paused: Vec<u64>,
    /// Every word of the held-by-shaper bitmap (shaping is never on the fast path).
    held: Vec<u64>,
    /// Bit w: word w has an eligible queue (all words, 0 included; > 64 queues only).
    summary: Vec<u64>,
    /// Queues released and free for `allocate`, lowest last.
    free: Vec<u32>,
    /// Per queue: rank-ordered (else FIFO), and its shaper.
    ranked: Vec<bool>,
    shapers: Vec<Option<Shaper>>,
}

impl Extras {
    fn wide(&self) -> Option<&Wide> {
        self.wide.as_deref()
    }

    fn wide_mut(&mut self) -> &mut Wide {
        self.wide.get_or_insert_with(Default::default)
    }

    /// Queue `q`'s shaper, if it has one.
    fn shaper(&self, q: usize) -> Option<Shaper> {
        self.wide()?.shapers.get(q).copied().flatten()
    }

    fn shaper_mut(&mut self, q: usize) -> Option<&mut Shaper> {
        self.wide.as_mut()?.shapers.get_mut(q)?.as_mut()
    }
}

/// The data queues of one port, their eligibility and the scheduler. The fields a
/// packet-hop reads take 56 bytes, so a port's queue state shares one cache line with its
/// transmitter's flags.
#[derive(Clone, Debug)]
pub struct EgressQueues {
    /// Sum of the data queues' bytes.
    pub backlog_bytes: u64,
    /// Word 0 of the bitmaps: queue q < 64 holds an entry / is blocked (paused by flow
    /// control or held by its shaper). A host port has no data queues but blocks its
    /// traffic classes here.
    nonempty: u64,
    blocked: u64,
    queues: Box<[DataQueue]>,
    more: Box<Extras>,
    /// Round-robin position: the queue served next if eligible.
    rr_next: u32,
    scheduler: Scheduler,
    /// At most 64 queues, all FIFO, no back links, no shaper, round robin: the common case,
    /// served by the inline bitmaps alone.
    simple: bool,
}

const fn bit(q: usize) -> u64 {
    1 << (q & 63)
}

impl EgressQueues {
    /// `queues` data queues; `classes` traffic classes that can be paused (a host port has
    /// no queues, its NIC pauses per class).
    pub fn new(queues: usize, classes: usize) -> EgressQueues {
        assert!(classes <= 64 || classes <= queues, "classes beyond 64 are queues");
        let mut q = EgressQueues {
            backlog_bytes: 0,
            nonempty: 0,
            blocked: 0,
            queues: Box::default(),
            rr_next: 0,
            scheduler: Scheduler::RoundRobin,
            simple: true,
            more: Box::default(),
        };
        q.grow_to(queues);
        q
    }

    /// Queue slots (allocated or free).
    pub fn len(&self) -> usize {
        self.queues.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queues.is_empty()
    }

    fn refresh_simple(&mut self) {
        let m = &self.more;
        self.simple = self.queues.len() <= 64
            && self.scheduler == Scheduler::RoundRobin
            && !m.linked
            && m.wide()
                .is_none_or(|w| !w.ranked.iter().any(|r| *r) && !w.shapers.iter().any(|s| s.is_some()));
    }

    fn grow_to(&mut self, n: usize) {
        if n <= self.queues.len() {
            return;
        }
        let mut queues = std::mem::take(&mut self.queues).into_vec();
        queues.resize(n, DataQueue::default());
        self.queues = queues.into_boxed_slice();
        let words = n.div_ceil(64).max(1);
        if n > 64 {
            let m = self.more.wide_mut();
            for v in [&mut m.nonempty, &mut m.blocked, &mut m.paused] {
                v.resize(words - 1, 0);
            }
            m.summary.resize(words.div_ceil(64), 0);
        }
        self.refresh_simple();
        if n > 64 {
            // Summary bit of word 0, which the inline fast path never needed.
            self.update_summary(0);
        }
    }

    /// Use `scheduler` among the queues.
    pub fn set_scheduler(&mut self, scheduler: Scheduler) {
        self.scheduler = scheduler;
        self.refresh_simple();
    }

    /// Keep back links for every queue, so that [`remove`](Self::remove) is O(1). Only
    /// while the port is empty.
    pub fn keep_back_links(&mut self) {
        assert_eq!(self.backlog_bytes, 0, "set before any packet is queued");
        self.more.linked = true;
        self.refresh_simple();
    }

    /// Serve queue `q` in rank order (see [`QueueOrder`]). Only while it is empty.
    pub fn set_order(&mut self, q: usize, order: QueueOrder) {
        assert!(self.queues[q].packets.is_empty(), "set before any packet is queued");
        if order == QueueOrder::Rank {
            let w = self.more.wide_mut();
            if w.ranked.len() <= q {
                w.ranked.resize(q + 1, false);
            }
            w.ranked[q] = true;
        } else if let Some(r) = self.more.wide.as_mut().and_then(|w| w.ranked.get_mut(q)) {
            *r = false;
        }
        self.refresh_simple();
    }

    // ------------------------------------------------------------ bitmaps

    #[inline]
    fn word(&self, which: Word, w: usize) -> u64 {
        let m = &self.more;
        match (which, w) {
            (Word::Nonempty, 0) => self.nonempty,
            (Word::Blocked, 0) => self.blocked,
            (Word::Paused, 0) => m.paused0,
            (which, w) => {
                let Some(x) = m.wide() else { return 0 };
                match which {
                    Word::Nonempty => x.nonempty[w - 1],
                    Word::Blocked => x.blocked[w - 1],
                    Word::Paused => x.paused[w - 1],
                    Word::Held => x.held.get(w).copied().unwrap_or(0),
                }
            }
        }
    }

    fn word_mut(&mut self, which: Word, w: usize) -> &mut u64 {
        let m = &mut self.more;
        match (which, w) {
            (Word::Nonempty, 0) => &mut self.nonempty,
            (Word::Blocked, 0) => &mut self.blocked,
            (Word::Paused, 0) => &mut m.paused0,
            (Word::Nonempty, w) => &mut m.wide_mut().nonempty[w - 1],
            (Word::Blocked, w) => &mut m.wide_mut().blocked[w - 1],
            (Word::Paused, w) => &mut m.wide_mut().paused[w - 1],
            (Word::Held, w) => {
                let held = &mut m.wide_mut().held;
                if held.len() <= w {
                    held.resize(w + 1, 0);
                }
                &mut held[w]
            }
        }
    }

    fn set_bit(&mut self, which: Word, q: usize, on: bool) {
        let word = self.word_mut(which, q / 64);
        if on {
            *word |= bit(q);
        } else {
            *word &= !bit(q);
        }
    }

    #[inline]
    fn get_bit(&self, which: Word, q: usize) -> bool {
        self.word(which, q / 64) & bit(q) != 0
    }

    /// Eligible queues of word `w`.
    #[inline]
    fn eligible_word(&self, w: usize) -> u64 {
        self.word(Word::Nonempty, w) & !self.word(Word::Blocked, w)
    }

    fn update_summary(&mut self, w: usize) {
        if self.queues.len() <= 64 {
            return;
        }
        let on = self.eligible_word(w) != 0;
        let s = &mut self.more.wide_mut().summary[w / 64];
        if on {
            *s |= bit(w);
        } else {
            *s &= !bit(w);
        }
    }

    /// Queue `q` is blocked when paused or held by its shaper.
    fn refresh_blocked(&mut self, q: usize) {
        let blocked = self.get_bit(Word::Paused, q) || self.get_bit(Word::Held, q);
        self.set_bit(Word::Blocked, q, blocked);
        self.update_summary(q / 64);
    }

    fn set_held(&mut self, q: usize, held: bool) {
        self.set_bit(Word::Held, q, held);
        self.refresh_blocked(q);
    }

    fn is_held(&self, q: usize) -> bool {
        self.get_bit(Word::Held, q)
    }

    // ------------------------------------------------------------ queue contents

    /// Every queue is a plain FIFO without back links (the fast path).
    #[inline(always)]
    pub fn is_simple(&self) -> bool {
        self.simple
    }

    /// Queue `q` is served in rank order.
    pub fn is_ranked(&self, q: usize) -> bool {
        self.more.wide().and_then(|w| w.ranked.get(q).copied()).unwrap_or(false)
    }

    /// The last (highest-ranked) packet of queue `q`.
    pub fn tail(&self, q: usize) -> Option<PacketRef> {
        self.queues[q].packets.back()
    }

    /// Append stored packet `pkt` to data queue `queue` (a rank-ordered queue takes
    /// [`enqueue_with`](Self::enqueue_with)).
    #[inline(always)]
    pub fn enqueue(&mut self, store: &mut PacketStore, queue: usize, pkt: PacketRef) {
        self.enqueue_with(store, queue, pkt, |_| 0);
    }

    /// Append stored packet `pkt` to data queue `queue`, or insert it by rank if the queue
    /// is rank-ordered (`rank` gives the rank of any stored packet; never called for FIFO
    /// queues).
    #[inline(always)]
    pub fn enqueue_with(
        &mut self,
        store: &mut PacketStore,
        queue: usize,
        pkt: PacketRef,
        rank: impl Fn(PacketRef) -> u64,
    ) {
        if self.simple {
            let wire = store.get(pkt).wire_bytes as u64;
            let q = &mut self.queues[queue];
            q.bytes += wire;
            store.push_back(&mut q.packets, pkt);
            self.backlog_bytes += wire;
            self.nonempty |= bit(queue);
            return;
        }
        self.enqueue_general(store, queue, pkt, rank);
    }

    /// Enqueue into a rank-ordered queue: `rank` gives the rank of any stored packet.
    pub fn enqueue_ranked(
        &mut self,
        store: &mut PacketStore,
        queue: usize,
        pkt: PacketRef,
        rank: impl Fn(PacketRef) -> u64,
    ) {
        self.enqueue_general(store, queue, pkt, rank);
    }

    #[inline(never)]
    fn enqueue_general(
        &mut self,
        store: &mut PacketStore,
        queue: usize,
        pkt: PacketRef,
        rank: impl Fn(PacketRef) -> u64,
    ) {
        let wire = store.get(pkt).wire_bytes as u64;
        let ranked = self.is_ranked(queue);
        let linked = self.more.linked || ranked;
        let q = &mut self.queues[queue];
        q.bytes += wire;
        if ranked {
            // After the last entry whose rank is not above this one's.
            let r = rank(pkt);
            let mut after = None;
            let mut at = q.packets.front();
            while let Some(x) = at {
                if rank(x) > r {
                    break;
                }
                after = Some(x);
                at = store.next_of(x);
            }
            store.insert_after_linked(&mut q.packets, after, pkt);
        } else if linked {
            store.push_back_linked(&mut q.packets, pkt);
        } else {
            store.push_back(&mut q.packets, pkt);
        }
        self.backlog_bytes += wire;
        self.set_bit(Word::Nonempty, queue, true);
        self.update_summary(queue / 64);
    }

    /// Take the head of data queue `queue`.
    #[inline(always)]
    pub fn dequeue(&mut self, store: &mut PacketStore, queue: usize) -> Option<PacketRef> {
        if !self.simple {
            return self.dequeue_general(store, queue);
        }
        let q = &mut self.queues[queue];
        let pkt = store.pop_front(&mut q.packets)?;
        let wire = store.get(pkt).wire_bytes as u64;
        q.bytes -= wire;
        self.backlog_bytes -= wire;
        if q.packets.is_empty() {
            self.nonempty &= !bit(queue);
        }
        Some(pkt)
    }

    #[inline(never)]
    fn dequeue_general(&mut self, store: &mut PacketStore, queue: usize) -> Option<PacketRef> {
        let linked = self.more.linked || self.is_ranked(queue);
        let q = &mut self.queues[queue];
        let pkt =
            if linked { store.pop_front_linked(&mut q.packets)? } else { store.pop_front(&mut q.packets)? };
        self.account_removed(store, queue, pkt);
        Some(pkt)
    }

    /// Packet `pkt` left `queue` (dequeued or taken out): its bytes leave the counts, and an
    /// emptied queue its bit.
    #[inline(always)]
    fn account_removed(&mut self, store: &PacketStore, queue: usize, pkt: PacketRef) {
        let wire = store.get(pkt).wire_bytes as u64;
        let q = &mut self.queues[queue];
        q.bytes -= wire;
        self.backlog_bytes -= wire;
        if q.packets.is_empty() {
            self.set_bit(Word::Nonempty, queue, false);
            self.update_summary(queue / 64);
        }
    }

    /// Take packet `pkt` out of queue `queue`, wherever it is (O(1); the port must keep
    /// back links or the queue be rank-ordered).
    pub fn remove(&mut self, store: &mut PacketStore, queue: usize, pkt: PacketRef) {
        assert!(self.more.linked || self.is_ranked(queue), "remove needs back links");
        store.unlink(&mut self.queues[queue].packets, pkt);
        self.account_removed(store, queue, pkt);
    }

    /// Move the head of queue `from` to the tail of queue `to` (a hierarchical queue
    /// passing a packet to the next level). Returns the packet moved.
    pub fn requeue(&mut self, store: &mut PacketStore, from: usize, to: usize) -> Option<PacketRef> {
        let pkt = self.dequeue(store, from)?;
        self.enqueue(store, to, pkt);
        Some(pkt)
    }

    /// Append a marker entry named `id` to queue `queue`: it takes no bytes and is never
    /// transmitted; the port's owner is told when it reaches the head.
    pub fn push_marker(&mut self, store: &mut PacketStore, queue: usize, id: u64) -> PacketRef {
        let marker = store.insert(Packet::marker(id));
        self.enqueue(store, queue, marker);
        marker
    }

    /// Bytes in data queue `queue`.
    #[inline(always)]
    pub fn queue_bytes(&self, queue: usize) -> u64 {
        // An empty queue of the inline round robin answers from the bitmap in the port's
        // line, not from its record (at k = 32 a cache miss on most hops).
        if self.simple && self.nonempty & bit(queue) == 0 {
            return 0;
        }
        self.queues[queue].bytes
    }

    /// Entries (packets and markers) in queue `queue`.
    pub fn queue_len(&self, queue: usize) -> usize {
        self.queues[queue].packets.len()
    }

    /// The oldest entry of queue `queue`.
    pub fn head(&self, queue: usize) -> Option<PacketRef> {
        self.queues[queue].packets.front()
    }

    /// The packets of queue `queue`, head first.
    pub fn list(&self, queue: usize) -> &PacketList {
        &self.queues[queue].packets
    }

    /// Bytes per queue, in queue order.
    pub fn bytes_per_queue(&self) -> impl Iterator<Item = u64> + '_ {
        self.queues.iter().map(|q| q.bytes)
    }

    /// Queues holding an entry and not paused by flow control (BFC's active queues, whose
    /// count divides its pause threshold). Reads the bitmaps, one word per 64 queues.
    pub fn active_unpaused(&self) -> u32 {
        let words = self.queues.len().div_ceil(64).max(1);
        (0..words).map(|w| (self.word(Word::Nonempty, w) & !self.word(Word::Paused, w)).count_ones()).sum()
    }

    // ------------------------------------------------------------ scheduling

    /// Some queue holds an entry that could be sent now.
    #[inline(always)]
    pub fn has_eligible(&self) -> bool {
        if self.queues.len() <= 64 {
            return self.nonempty & !self.blocked != 0;
        }
        self.more.wide().is_some_and(|w| w.summary.iter().any(|s| *s != 0))
    }

    /// Every data queue is empty, `queue` is not blocked and the queues are served by the
    /// inline round robin: a packet enqueued in `queue` now would be the next dequeued.
    #[inline(always)]
    pub fn all_empty_and_eligible(&self, queue: usize) -> bool {
        self.simple && self.nonempty == 0 && self.blocked & bit(queue) == 0
    }

    /// The queue to serve next, if any is eligible.
    #[inline(always)]
    pub fn next_queue(&self) -> Option<usize> {
        if self.simple {
            let eligible = self.nonempty & !self.blocked;
            if eligible == 0 {
                return None;
            }
            let from_start = eligible & (!0u64 << self.rr_next);
            let bits = if from_start != 0 { from_start } else { eligible };
            return Some(bits.trailing_zeros() as usize);
        }
        self.next_queue_general()
    }

    #[inline(never)]
    fn next_queue_general(&self) -> Option<usize> {
        let start = match self.scheduler {
            Scheduler::RoundRobin => self.rr_next as usize,
            Scheduler::StrictPriority => 0,
            Scheduler::PyrrhaNs3 => {
                if self.eligible_word(0) & 1 != 0 {
                    return Some(0);
                }
                return self
                    .next_eligible_from(1 + self.rr_next as usize)
                    .or_else(|| self.next_eligible_from(1));
            }
        };
        self.next_eligible_from(start).or_else(|| self.next_eligible_from(0))
    }

    /// The first eligible queue at or after `start` (no wrap).
    fn next_eligible_from(&self, start: usize) -> Option<usize> {
        let n = self.queues.len();
        if start >= n {
            return None;
        }
        let w0 = start / 64;
        let first = self.eligible_word(w0) & (!0u64 << (start & 63));
        if first != 0 {
            return Some(w0 * 64 + first.trailing_zeros() as usize);
        }
        if n <= 64 {
            return None;
        }
        // Later words through the summary.
        let words = n.div_ceil(64);
        let mut w = w0 + 1;
        while w < words {
            let s = self.more.wide().map_or(0, |x| x.summary[w / 64]) & (!0u64 << (w & 63));
            if s != 0 {
                let found = (w / 64) * 64 + s.trailing_zeros() as usize;
                let bits = self.eligible_word(found);
                debug_assert!(bits != 0, "summary bit of word {found} is stale");
                return Some(found * 64 + bits.trailing_zeros() as usize);
            }
            w = (w / 64 + 1) * 64;
        }
        None
    }

    /// Queue `served` just sent: round robin moves past it.
    #[inline(always)]
    pub fn served(&mut self, served: usize) {
        if self.scheduler == Scheduler::PyrrhaNs3 {
            // The pointer becomes the offset of `served` from it among queues 1..n−1.
            if served != 0 {
                let m = self.queues.len() as u32 - 1;
                self.rr_next = (served as u32 - 1 + m - self.rr_next) % m;
            }
            return;
        }
        self.rr_next = if served + 1 == self.queues.len() { 0 } else { served as u32 + 1 };
    }

    // ------------------------------------------------------------ pause

    /// Pause or resume queue (or, on a host port, traffic class) `queue`; returns whether
    /// the state changed.
    pub fn set_paused(&mut self, queue: usize, pause: bool, now: SimTime) -> bool {
        if self.is_paused(queue) == pause {
            return false;
        }
        self.set_bit(Word::Paused, queue, pause);
        self.refresh_blocked(queue);
        let m = &mut self.more;
        if pause {
            if m.paused_count == 0 {
                m.paused_since = now;
            }
            m.paused_count += 1;
        } else {
            m.paused_count -= 1;
            if m.paused_count == 0 {
                m.paused_time += now.since(m.paused_since);
            }
        }
        true
    }

    /// Keep queue `queue` out of the scheduler (`held`) or let it back, without pausing it:
    /// its owner serves it another way (Pyrrha's hierarchical isolation queues pass their
    /// packets to the next level instead of sending them). Released queues are let back.
    pub fn hold(&mut self, queue: usize, held: bool) {
        self.set_held(queue, held);
    }

    /// Whether flow control paused queue (or, on a host port, class) `queue`.
    pub fn is_paused(&self, queue: usize) -> bool {
        self.get_bit(Word::Paused, queue)
    }

    /// Whether queue (or host class) `queue` < 64 may send: neither paused nor held. The
    /// inline word only, for a host NIC's per-flow check.
    #[inline]
    pub fn may_send(&self, queue: usize) -> bool {
        debug_assert!(queue < 64);
        self.blocked & bit(queue) == 0
    }

    /// Which of queues (or host classes) 0–63 flow control paused, as a bitmap.
    pub fn paused_mask0(&self) -> u64 {
        self.more.paused0
    }

    pub fn any_paused(&self) -> bool {
        self.more.paused_count > 0
    }

    /// Time during which at least one queue was paused, up to `now`.
    /// Take `other`'s paused-time account (the same port in another partition of a
    /// parallel run, which simulated it).
    pub fn copy_pause_account(&mut self, other: &EgressQueues) {
        let (m, o) = (&mut self.more, &other.more);
        m.paused_count = o.paused_count;
        m.paused_since = o.paused_since;
        m.paused_time = o.paused_time;
    }

    pub fn paused_time_until(&self, now: SimTime) -> Delta {
        let m = &self.more;
        let mut t = m.paused_time;
        if m.paused_count > 0 {
            t += now.since(m.paused_since);
        }
        t
    }

    // ------------------------------------------------------------ dynamic queues

    /// A free queue (a released one, lowest first, or a new one): empty, unpaused, FIFO.
    /// The port's queue slots double when none is free (so a port growing one queue at a
    /// time copies its queues O(log n) times).
    pub fn allocate(&mut self) -> usize {
        if let Some(q) = self.more.wide.as_mut().and_then(|w| w.free.pop()) {
            return q as usize;
        }
        let n = self.queues.len();
        self.grow_to((2 * n).max(8));
        // The new slots, lowest last: `pop` hands out the lowest first.
        let end = self.queues.len() as u32;
        self.more.wide_mut().free.extend((n as u32 + 1..end).rev());
        n
    }

    /// Give back queue `queue`, which must be empty; it is resumed and loses its shaper.
    pub fn release(&mut self, queue: usize, now: SimTime) {
        assert!(self.queues[queue].packets.is_empty(), "released queue {queue} holds packets");
        self.set_paused(queue, false, now);
        self.set_shaper(queue, None);
        self.set_order(queue, QueueOrder::Fifo);
        // Keep the free list sorted descending, so the lowest free queue is reused first.
        let free = &mut self.more.wide_mut().free;
        let at = free.partition_point(|&f| f > queue as u32);
        free.insert(at, queue as u32);
    }

    /// Queues in use: allocated (or configured) and not released.
    pub fn allocated(&self) -> usize {
        self.queues.len() - self.more.wide().map_or(0, |w| w.free.len())
    }

    // ------------------------------------------------------------ shaping

    /// Limit queue `queue` to `rate` (`None`: no limit). On a port without data queues (a
    /// host NIC's) `queue` is a class, whose shaper the NIC asks (`shaper_due`).
    pub fn set_shaper(&mut self, queue: usize, rate: Option<Rate>) {
        let shaped = self.more.wide().is_some_and(|w| queue < w.shapers.len());
        if !shaped {
            if rate.is_none() {
                return;
            }
            self.more.wide_mut().shapers.resize(queue + 1, None);
        }
        self.more.wide_mut().shapers[queue] =
            rate.map(|r| Shaper { byte_time: ByteTime::new(r), next_free: SimTime::ZERO });
        if rate.is_none() && queue < self.queues.len() && self.is_held(queue) {
            self.set_held(queue, false);
        }
        self.refresh_simple();
    }

    /// Queue `queue` sent `bytes` at `now`: if it is shaped, it is held until its rate
    /// allows the next packet, and that time is returned (the caller wakes the port then
    /// with [`release_shaped`](Self::release_shaped)).
    #[inline(always)]
    pub fn after_send(&mut self, queue: usize, bytes: u64, now: SimTime) -> Option<SimTime> {
        if self.simple {
            return None;
        }
        self.after_send_shaped(queue, bytes, now)
    }

    #[inline(never)]
    fn after_send_shaped(&mut self, queue: usize, bytes: u64, now: SimTime) -> Option<SimTime> {
        let shaper = self.more.shaper_mut(queue)?;
        shaper.next_free = shaper.next_free.max(now) + shaper.byte_time.tx_time(bytes);
        let at = shaper.next_free;
        if at > now {
            self.set_held(queue, true);
            Some(at)
        } else {
            None
        }
    }

    /// When queue `queue`'s shaper next lets a packet go (`None`: not shaped). For a sender
    /// that schedules its own packets instead of dequeuing them (a host NIC, whose data
    /// waits in its flows), with [`charge_shaper`](Self::charge_shaper); no cost on a port
    /// without shapers.
    #[inline]
    pub fn shaper_due(&self, queue: usize) -> Option<SimTime> {
        if self.simple {
            return None;
        }
        self.more.shaper(queue).map(|s| s.next_free)
    }

    /// Class `queue` sent `bytes` at `now` past its shaper (see
    /// [`shaper_due`](Self::shaper_due)): the shaper's next free time moves on; the queue is
    /// not marked held (its sender asks `shaper_due` itself).
    #[inline]
    pub fn charge_shaper(&mut self, queue: usize, bytes: u64, now: SimTime) {
        if self.simple {
            return;
        }
        if let Some(s) = self.more.shaper_mut(queue) {
            s.next_free = s.next_free.max(now) + s.byte_time.tx_time(bytes);
        }
    }

    /// Release the shaped queues whose time has come; returns the earliest time a queue
    /// still held is due, if any.
    pub fn release_shaped(&mut self, now: SimTime) -> Option<SimTime> {
        let mut next: Option<SimTime> = None;
        for q in 0..self.queues.len() {
            let Some(s) = self.more.shaper(q) else { continue };
            if !self.is_held(q) {
                continue;
            }
            if s.next_free <= now {
                self.set_held(q, false);
            } else {
                next = Some(next.map_or(s.next_free, |t| t.min(s.next_free)));
            }
        }
        next
    }
}

#[derive(Clone, Copy)]
enum Word {
    Nonempty,
    Blocked,
    Paused,
    Held,
}

impl Packet {
    /// A marker entry named `id` (see [`PacketKind::Marker`]).
    pub fn marker(id: u64) -> Packet {
        Packet {
            kind: PacketKind::Marker,
            priority: 0,
            flags: PacketFlags::NONE,
            flow: crate::ids::FlowId(u32::MAX),
            src: crate::ids::NodeId(u32::MAX),
            dst: crate::ids::NodeId(u32::MAX),
            sport: 0,
            dport: 0,
            seq: id,
            payload: 0,
            wire_bytes: 0,
            sent_at: SimTime::ZERO,
            ingress: 0,
            enq_ns: 0,
            sack: 0,
            ttl: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::packet::test_packet;

    fn fill(q: &mut EgressQueues, store: &mut PacketStore, queue: usize, seq: u64) -> PacketRef {
        let r = store.insert(test_packet(seq));
        q.enqueue(store, queue, r);
        r
    }

    /// Pyrrha-NS3's scheduler: queue 0 first; among the others its pointer quirk serves
    /// the lowest backlogged queue to exhaustion (round robin would alternate), and skips
    /// paused ones.
    #[test]
    fn pyrrha_ns3_scheduler_serves_low_queues_first() {
        for queues in [4usize, 100] {
            let mut q = EgressQueues::new(queues, 8);
            q.set_scheduler(Scheduler::PyrrhaNs3);
            let mut store = PacketStore::new();
            for queue in [1, 2, 3] {
                for k in 0..3 {
                    fill(&mut q, &mut store, queue, (queue * 10 + k) as u64);
                }
            }
            let mut order = Vec::new();
            let mut step = |q: &mut EgressQueues, order: &mut Vec<usize>| {
                let next = q.next_queue().expect("a queue is eligible");
                q.dequeue(&mut store, next).expect("it holds a packet");
                q.served(next);
                order.push(next);
            };
            step(&mut q, &mut order);
            q.set_paused(1, true, SimTime::ZERO);
            step(&mut q, &mut order);
            step(&mut q, &mut order);
            q.set_paused(1, false, SimTime::ZERO);
            for _ in 0..6 {
                step(&mut q, &mut order);
            }
            assert_eq!(order, [1, 2, 2, 1, 1, 2, 3, 3, 3], "{queues} queues");
            fill(&mut q, &mut store, 2, 99);
            fill(&mut q, &mut store, 0, 98);
            assert_eq!(q.next_queue(), Some(0), "queue 0 before the others");
        }
    }

    /// Round robin over non-empty, unpaused queues, with the inline bitmap (≤ 64 queues)
    /// and with the summary bitmap (> 64 queues) alike.
    #[test]
    fn round_robin_skips_empty_and_paused_queues() {
        for queues in [8usize, 128, 5000] {
            let mut q = EgressQueues::new(queues, 8);
            let mut store = PacketStore::new();
            assert_eq!(q.next_queue(), None);
            let high = queues - 1;
            for queue in [1, 3, 6, high] {
                fill(&mut q, &mut store, queue, queue as u64);
            }
            q.served(1);
            assert_eq!(q.next_queue(), Some(3));
            q.set_paused(3, true, SimTime::ZERO);
            assert_eq!(q.next_queue(), Some(6));
            q.served(6);
            let expect_high = if high == 6 { 1 } else { high };
            assert_eq!(q.next_queue(), Some(expect_high), "{queues} queues");
            q.served(high);
            assert_eq!(q.next_queue(), Some(1), "wraps around");
            for queue in [1, 6, high] {
                q.dequeue(&mut store, queue);
            }
            assert_eq!(q.next_queue(), None, "only the paused queue holds packets");
            assert!(!q.has_eligible());
            q.set_paused(3, false, SimTime(5));
            assert_eq!(q.next_queue(), Some(3));
            assert_eq!(q.paused_time_until(SimTime(9)), Delta(5));
            assert_eq!(q.backlog_bytes, 1048);
        }
    }

    /// What a switch's straight pass (a packet reaching an idle port with every queue
    /// empty leaves at once) relies on: the queue is the one served next exactly when all
    /// queues are empty and it is not paused, and empty queues report no bytes.
    #[test]
    fn an_empty_eligible_queue_is_served_next() {
        let mut q = EgressQueues::new(8, 8);
        let mut store = PacketStore::new();
        assert!(q.all_empty_and_eligible(3));
        assert_eq!(q.queue_bytes(3), 0);
        q.set_paused(3, true, SimTime::ZERO);
        assert!(!q.all_empty_and_eligible(3), "a paused queue keeps its packet");
        assert!(q.all_empty_and_eligible(4));
        fill(&mut q, &mut store, 5, 0);
        assert!(!q.all_empty_and_eligible(4), "another queue may be served first");
        assert_eq!(q.queue_bytes(5), 1048);
        assert_eq!(q.queue_bytes(4), 0);
        q.dequeue(&mut store, 5);
        assert_eq!(q.queue_bytes(5), 0);
        assert!(q.all_empty_and_eligible(4));
        q.set_scheduler(Scheduler::StrictPriority);
        assert!(!q.all_empty_and_eligible(4), "only the inline round robin");
    }

    #[test]
    fn strict_priority_serves_the_lowest_eligible_queue() {
        for queues in [8usize, 200] {
            let mut q = EgressQueues::new(queues, 8);
            q.set_scheduler(Scheduler::StrictPriority);
            let mut store = PacketStore::new();
            for queue in [queues - 1, 5, 2] {
                fill(&mut q, &mut store, queue, 0);
            }
            q.served(5);
            assert_eq!(q.next_queue(), Some(2));
            q.set_paused(2, true, SimTime::ZERO);
            assert_eq!(q.next_queue(), Some(5));
            q.dequeue(&mut store, 5);
            assert_eq!(q.next_queue(), Some(queues - 1));
        }
    }

    /// Queues allocated at run time reuse released ones, lowest first, and a port grows
    /// past 64 queues without losing track of eligibility.
    #[test]
    fn queues_are_allocated_and_released_at_run_time() {
        let mut q = EgressQueues::new(0, 0);
        let mut store = PacketStore::new();
        let ids: Vec<usize> = (0..300).map(|_| q.allocate()).collect();
        assert_eq!(ids, (0..300).collect::<Vec<_>>());
        assert_eq!(q.len(), 512, "slots double");
        for &i in &[7usize, 70, 299] {
            fill(&mut q, &mut store, i, i as u64);
        }
        q.set_paused(70, true, SimTime::ZERO);
        q.release(5, SimTime::ZERO);
        q.release(200, SimTime::ZERO);
        q.release(3, SimTime::ZERO);
        assert_eq!(q.allocated(), 297);
        assert_eq!((q.allocate(), q.allocate(), q.allocate(), q.allocate()), (3, 5, 200, 300));
        assert!(std::mem::size_of::<EgressQueues>() <= 56, "hot queue state fits with the port's flags");
        let mut served = Vec::new();
        while let Some(next) = q.next_queue() {
            let r = q.dequeue(&mut store, next).unwrap();
            served.push(store.remove(r).seq);
            q.served(next);
        }
        assert_eq!(served, vec![7, 299], "queue 70 is paused");
        q.set_paused(70, false, SimTime(1));
        assert_eq!(q.next_queue(), Some(70));
    }

    #[test]
    fn removal_from_the_middle_and_rank_order() {
        let mut q = EgressQueues::new(2, 2);
        q.keep_back_links();
        q.set_order(1, QueueOrder::Rank);
        let mut store = PacketStore::new();
        let a: Vec<PacketRef> = (0..4).map(|s| fill(&mut q, &mut store, 0, s)).collect();
        q.remove(&mut store, 0, a[2]);
        assert_eq!(q.queue_len(0), 3);
        assert_eq!(q.queue_bytes(0), 3 * 1048);
        store.remove(a[2]);
        let order: Vec<u64> = store.iter(q.list(0)).map(|r| store.get(r).seq).collect();
        assert_eq!(order, vec![0, 1, 3]);
        // Rank = seq: packets come out in ascending rank, ties in arrival order.
        let rank = |store: &PacketStore, r: PacketRef| store.get(r).seq / 10;
        for seq in [50u64, 10, 30, 11, 51, 0] {
            let r = store.insert(test_packet(seq));
            let snapshot: Vec<(PacketRef, u64)> =
                store.iter(q.list(1)).map(|x| (x, rank(&store, x))).chain([(r, rank(&store, r))]).collect();
            q.enqueue_ranked(&mut store, 1, r, |x| snapshot.iter().find(|(p, _)| *p == x).unwrap().1);
        }
        let mut out = Vec::new();
        while let Some(r) = q.dequeue(&mut store, 1) {
            out.push(store.remove(r).seq);
        }
        assert_eq!(out, vec![0, 10, 11, 30, 50, 51]);
        assert_eq!(q.backlog_bytes, 3 * 1048);
    }

    #[test]
    fn markers_take_no_bytes_and_requeue_moves_the_head() {
        let mut q = EgressQueues::new(3, 3);
        let mut store = PacketStore::new();
        fill(&mut q, &mut store, 0, 1);
        let m = q.push_marker(&mut store, 0, 77);
        fill(&mut q, &mut store, 0, 2);
        assert_eq!((q.queue_len(0), q.queue_bytes(0)), (3, 2 * 1048));
        let moved = q.requeue(&mut store, 0, 2).unwrap();
        assert_eq!({ store.get(moved).seq }, 1);
        assert_eq!((q.queue_bytes(0), q.queue_bytes(2), q.backlog_bytes), (1048, 1048, 2 * 1048));
        let head = q.dequeue(&mut store, 0).unwrap();
        assert_eq!(head, m);
        assert_eq!(q.active_unpaused(), 2, "queues 0 and 2 hold entries");
        q.set_paused(2, true, SimTime::ZERO);
        assert_eq!(q.active_unpaused(), 1, "a paused queue is not active");
        q.set_paused(2, false, SimTime::ZERO);
        q.hold(0, true);
        assert_eq!(q.next_queue(), Some(2), "a held queue is not scheduled");
        assert!(!q.is_paused(0) && !q.any_paused(), "nor counted as paused");
        q.hold(0, false);
        q.set_paused(2, true, SimTime::ZERO);
        assert_eq!(q.next_queue(), Some(0), "let back");
        assert_eq!((store.get(head).kind, { store.get(head).seq }), (PacketKind::Marker, 77));
    }

    #[test]
    fn a_shaped_queue_waits_for_its_rate() {
        let mut q = EgressQueues::new(2, 2);
        q.set_shaper(0, Some(Rate::gbps(10)));
        let mut store = PacketStore::new();
        for s in 0..3 {
            fill(&mut q, &mut store, 0, s);
        }
        fill(&mut q, &mut store, 1, 9);
        let t0 = SimTime::ZERO;
        assert_eq!(q.next_queue(), Some(0));
        q.dequeue(&mut store, 0);
        let due = q.after_send(0, 1048, t0).expect("held");
        assert_eq!(due, t0 + Rate::gbps(10).tx_time(1048));
        assert_eq!(q.next_queue(), Some(1), "the shaped queue is held");
        q.dequeue(&mut store, 1);
        assert_eq!(q.next_queue(), None);
        assert_eq!(q.release_shaped(SimTime(due.0 - 1)), Some(due));
        assert_eq!(q.release_shaped(due), None);
        assert_eq!(q.next_queue(), Some(0));
        // Pausing a held queue and resuming it keeps it held.
        q.dequeue(&mut store, 0);
        let due = q.after_send(0, 1048, due).unwrap();
        q.set_paused(0, true, SimTime::ZERO);
        q.set_paused(0, false, SimTime::ZERO);
        assert_eq!(q.next_queue(), None, "still held by the shaper");
        q.release_shaped(due);
        assert_eq!(q.next_queue(), Some(0));
    }
}
