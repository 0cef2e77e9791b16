//! Calendar (bucketed) event queue: events fire by time, ties by the event's own order key.
//!
//! Almost every event of a packet simulation is scheduled a little ahead of now (a
//! serialization time, a link delay), so a calendar queue makes scheduling O(1): time is
//! cut into buckets of 2^10 ps (~1 ns); a ring sized to the network's link delays (2^11
//! buckets, ~2 µs, for 1 µs links) covers what packets schedule; events further out
//! (timers) wait in an overflow heap and move into the ring as it advances. The bucket
//! being drained is a vector sorted by (time, order key), so the firing order is exactly that of
//! a single priority queue keyed by (time, [`Event::order_key`]). Bucket width was chosen
//! by instruction counts (cachegrind) on the k=8 fat-tree: 1 ns buckets hold about five
//! events each there (256 ps and 512 ps buckets cost 3 % and 0.3 % more instructions).
//!
//! Ring buckets are chains of 256-byte blocks of sixteen 16-byte entries, drawn from one
//! last-in first-out pool: the ring's memory follows the events pending (about 1,400 on
//! that fat-tree), not the most each of its 2,048 buckets ever held. With a vector per
//! bucket the ring cycled through ~1 MB and missed the 512 KiB L2 on most schedules
//! (cachegrind, k=8 3 ms: 57 M → 33 M simulated last-level misses with the pool).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::fabric::store::PacketRef;
use crate::ids::{FlowId, NodeId, PortId};
use crate::time::SimTime;

/// Host-side timers. Each flow keeps a generation number per timer kind; a fired timer
/// whose generation is stale is ignored, which is how timers are cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// DCQCN rate-decrease check (at most one decrease per interval).
    DcqcnDecrease,
    /// DCQCN rate-increase timer.
    DcqcnIncrease,
    /// Retransmission timeout.
    Rto,
    /// TCP receiver: a delayed ACK is due.
    TcpDelayedAck,
    /// TCP receiver: the ordering layer stops waiting for a gap to fill.
    TcpReorder,
}

impl TimerKind {
    /// Which of a flow's three timer generations the kind uses. The RoCE transport's
    /// DCQCN timers and TCP's receiver timers never run on the same flow, so they share.
    #[inline(always)]
    pub fn slot(self) -> usize {
        match self {
            TimerKind::DcqcnDecrease | TimerKind::TcpDelayedAck => 0,
            TimerKind::DcqcnIncrease | TimerKind::TcpReorder => 1,
            TimerKind::Rto => 2,
        }
    }

    /// Whether the flow's receiver keeps the timer (TCP's delayed ACK and ordering
    /// timeout): the receiver cancels its own timers, and a sender finishing (which the
    /// receiver does not learn, and in a partitioned run does not even share state with)
    /// leaves them be. Every other timer is the sender's and dies with the flow.
    #[inline(always)]
    pub fn at_receiver(self) -> bool {
        matches!(self, TimerKind::TcpDelayedAck | TimerKind::TcpReorder)
    }
}

/// Timers of switch ports and policies. A timer is cancelled by bumping the generation
/// kept for its (kind, target) (see `sim::timers`); a fired timer of an older generation
/// is ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyTimerKind {
    /// A port's rate-shaped queue may send again (target: the port).
    Shaper,
    /// A timer of the flow-control policy (target: the policy's own id).
    FlowControl,
    /// A timer of the load balancer.
    LoadBalance,
}

impl PolicyTimerKind {
    pub const COUNT: usize = 3;
}

/// A scheduled happening. Small and `Copy`: it names its target by id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// Timers come last, so that telling a timer (which may be stale) from the rest is one
/// comparison of the tag.
#[repr(u8)]
pub enum Event {
    /// Packet `pkt`, sent on the link leaving `port`, finishes arriving (last bit received)
    /// at the peer port. Scheduled when the packet starts serializing, one event per packet
    /// on a wire (under scheduled ties, one per link: `fabric::wires`); `pkt` lets the loop
    /// start loading the packet while the event before it runs. A link's deliveries never
    /// share a picosecond (each packet serializes for at least one).
    Deliver { port: PortId, pkt: PacketRef },
    /// `port` finished serializing its current packet and may start the next one.
    TxDone { port: PortId },
    /// A host NIC should try to transmit (a rate limiter or window may have opened).
    NicWake { node: NodeId },
    /// The next flow of the workload starts (flows start in time order).
    FlowStart { flow: FlowId },
    /// Link `fault` of `[[faults]]` goes down, or back up.
    LinkFault { fault: u32, up: bool },
    /// Sample the traced flows' rates (`[output.rate_trace]`).
    TraceSample,
    /// Snapshot switch queues and buffers (`[output.queues]`).
    QueueSample,
    /// Look for a frozen cyclic buffer dependency (`[output.deadlock]`).
    DeadlockCheck,
    /// A per-flow transport / congestion-control timer.
    FlowTimer { kind: TimerKind, flow: FlowId, generation: u32 },
    /// A switch-port or policy timer (target: a port, switch or policy-defined id).
    PolicyTimer { kind: PolicyTimerKind, target: u32, generation: u32 },
}

impl Event {
    /// The tie-break among events of one picosecond `time`: the event's kind (in
    /// declaration order: deliveries, then transmitter wake-ups, NIC wake-ups, flow
    /// starts, ..., timers last), then the entity it acts on (port, node, flow, fault,
    /// timer target) in an order shuffled afresh at every picosecond (by `salt`, drawn
    /// from the run's seed: the tie order is part of the run's randomness).
    ///
    /// It depends on the event and its time alone, never on when or by whom it was
    /// scheduled, so a network cut into partitions, each with its own queue, fires every
    /// partition's events in the order one queue does (what makes the parallel engine
    /// bit-identical to the sequential one). The shuffle keeps coincident arrivals from
    /// always favouring the same port: with a fixed order by port number, two equal
    /// senders through a drop-tail bottleneck (same rates, same delays) lose their packets
    /// unequally at every tie and one finishes 1.6× later (the phase effect of Floyd and
    /// Jacobson, 1992; with the shuffle, the gap between two NewReno flows varies with the
    /// seed, 1–23 % over twelve seeds on `tests/cc.rs`'s dumbbell). Within a kind the map from entity to key is a bijection (an XOR
    /// with a hash of the time, then a multiplication by an odd constant, modulo 2^56), so
    /// distinct entities never tie. Two pending events with equal keys at one time cannot
    /// be told apart by their handlers: a link's deliveries are a serialization time apart
    /// and a port has one `TxDone` (a key ignores the packet reference, which differs
    /// between partitions' stores), equal wake-ups are interchangeable, and of two timers
    /// of one (kind, target) at most one is of the current generation (a stale one does
    /// nothing).
    #[inline]
    pub fn order_key(&self, time: SimTime, salt: u64) -> u64 {
        const LOW: u64 = (1 << 56) - 1;
        let (tag, id): (u64, u64) = match *self {
            Event::Deliver { port, .. } => (0, port.0 as u64),
            Event::TxDone { port } => (1, port.0 as u64),
            Event::NicWake { node } => (2, node.0 as u64),
            Event::FlowStart { flow } => (3, flow.0 as u64),
            Event::LinkFault { fault, up } => (4, ((fault as u64) << 1) | up as u64),
            Event::TraceSample => (5, 0),
            Event::QueueSample => (6, 0),
            Event::DeadlockCheck => (7, 0),
            Event::FlowTimer { kind, flow, .. } => (8, ((kind as u64) << 32) | flow.0 as u64),
            Event::PolicyTimer { kind, target, .. } => (9, ((kind as u64) << 32) | target as u64),
        };
        let mut h = (time.0 ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 31;
        let shuffled = ((id ^ h) & LOW).wrapping_mul(0xBF58_476D_1CE4_E5B9) & LOW;
        (tag << 56) | shuffled
    }
}

/// An event of the bucket being drained (or of the overflow heap), with its full time.
#[derive(Clone, Copy)]
struct Entry {
    /// The firing order: the time in the high 64 bits, the tie key in the low ones
    /// ([`Event::order_key`] when ties are shuffled, computed only for events that share
    /// their picosecond with another pending one; 0 otherwise, and when ties keep
    /// scheduling order, which the stable sorts then preserve). One integer, so
    /// sorting a bucket compares once per pair (against a (time, key) tuple, and with no
    /// crowding scan of small buckets: 2.4 % fewer instructions on the k = 8 fat-tree).
    order: u128,
    event: Event,
}

/// An event in a ring bucket: its time below the bucket's start (the bucket gives the
/// rest), so an entry is 16 bytes and four fill a cache line.
#[derive(Clone, Copy)]
struct RingEntry {
    offset: u32,
    event: Event,
}

/// Entries of a block: as many as a small bucket holds, so that a small bucket is one
/// block. On the k = 8 fat-tree at 1 ms (cachegrind), blocks of 4, 8 and 16 entries cost
/// 3,504.5 M, 3,458.4 M and 3,448.8 M instructions: fewer schedules find their bucket's
/// last block full (a third of them with blocks of four), and a drain follows no chain.
/// At k = 32 (0.2 ms, a simulated 2 MiB cache) misses moved +0.9 % for 2.4 % fewer
/// instructions.
const BLOCK_ENTRIES: usize = 16;
const _: () = assert!(SMALL_BUCKET <= BLOCK_ENTRIES, "a small bucket fits one block");
const _: () = assert!(MIN_RING_BITS >= 6, "the occupancy bitmap has a word for every 64 ring slots");

/// Sixteen ring entries on four cache lines. A bucket is a chain of blocks; drained
/// blocks go back to a last-in first-out free list, so the next events scheduled land on
/// lines just read (the ring touches about as many lines as events are pending, not as
/// many as its buckets ever held: a block's lines past its last entry are not touched).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Block([RingEntry; BLOCK_ENTRIES]);

/// One ring slot's chain of blocks.
#[derive(Clone, Copy, Default)]
struct Bucket {
    head: u32,
    tail: u32,
    len: u32,
}

/// An overflow event, ordered by `(time, order key)` (earliest first out of the max-heap).
#[derive(Clone, Copy)]
struct Overflow {
    key: u128,
    event: Event,
}

impl Overflow {
    #[inline]
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
    #[inline]
    fn bucket(&self) -> u64 {
        (self.key >> (64 + BUCKET_SHIFT)) as u64
    }
}

impl PartialEq for Overflow {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Overflow {}
impl PartialOrd for Overflow {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Overflow {
    // Reversed: `BinaryHeap` is a max-heap and the earliest key must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Block `i` of `blocks`, reached without a bounds check, on the queue's two hottest paths
/// (scheduling into a bucket's last block, draining a one-block bucket). With the ring's
/// slot and bitmap word also reached unchecked ([`EventQueue::bucket_mut`],
/// [`EventQueue::occupied_word`]): 35.9 M fewer instructions on the k = 8 fat-tree at
/// 1 ms, about ten per packet-hop. Checked for real in debug builds and this module's tests.
///
/// # Safety
///
/// `i < blocks.len()`. Every block number the queue holds (a bucket's head and tail while
/// it holds events, a block's successor, the free list's head when not `NIL`) was made by
/// [`EventQueue::grow_pool`] as the index of the block it pushed, and blocks are never
/// removed: a caller passes such a number.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn block_at(blocks: &mut [Block], i: u32) -> &mut Block {
    if cfg!(any(test, debug_assertions)) {
        assert!((i as usize) < blocks.len(), "block {i} of {}", blocks.len());
    }
    // SAFETY: the caller's promise.
    unsafe { blocks.get_unchecked_mut(i as usize) }
}

/// The blocks of `bucket`'s chain, each as the slice of its events.
fn chain<'a>(blocks: &'a [Block], next: &'a [u32], bucket: Bucket) -> impl Iterator<Item = &'a [RingEntry]> {
    let n = bucket.len as usize;
    let mut block = bucket.head;
    (0..n.div_ceil(BLOCK_ENTRIES)).map(move |i| {
        let entries = &blocks[block as usize].0[..(n - i * BLOCK_ENTRIES).min(BLOCK_ENTRIES)];
        block = next[block as usize];
        entries
    })
}

/// How events of one picosecond are ordered (`engine.tie_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieOrder {
    /// By [`Event::order_key`], shuffled by this salt: independent of scheduling, what
    /// the parallel engine needs (the default).
    Shuffled(u64),
    /// In the order they were scheduled, as ns-3's default scheduler does (`(ts, uid)`,
    /// the uid a global insertion count): what exact agreement with the ns-3 RDMA
    /// simulator needs (`compat = "ns3"`). A partitioned run cannot keep it.
    Scheduled,
}

impl Entry {
    #[inline(always)]
    fn new(time: SimTime, key: u64, event: Event) -> Entry {
        Entry { order: ((time.0 as u128) << 64) | key as u128, event }
    }

    #[inline(always)]
    fn time(&self) -> SimTime {
        SimTime((self.order >> 64) as u64)
    }

    /// The same event with its tie key under `tie` (a function of the event and its time
    /// alone, so keying an entry again changes nothing).
    #[inline]
    fn keyed(self, tie: TieOrder) -> Entry {
        let time = self.time();
        Entry::new(time, tie.key(time, &self.event), self.event)
    }

    /// Firing order: time, then the tie key.
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        self.order < other.order
    }
}

impl TieOrder {
    /// The tie key of `event` at `time`.
    #[inline(always)]
    fn key(self, time: SimTime, event: &Event) -> u64 {
        match self {
            TieOrder::Shuffled(salt) => event.order_key(time, salt),
            TieOrder::Scheduled => 0,
        }
    }
}

/// Sort a bucket by time alone (`time` of an entry), stably: events of one picosecond
/// stay in scheduling order. An insertion sort: a small bucket's events are about two
/// places out when out of order, a large one's within 64 ps of their place after the
/// counting sort. Returns whether two events share a picosecond (then adjacent), which
/// needs their tie keys.
#[inline(always)]
fn sort_by_time<T: Copy>(v: &mut [T], time: impl Fn(&T) -> u64) -> bool {
    let mut ties = false;
    for i in 1..v.len() {
        let e = v[i];
        let t = time(&e);
        let prev = time(&v[i - 1]);
        if t >= prev {
            ties |= t == prev;
            continue;
        }
        let mut j = i - 1;
        v[i] = v[j];
        while j > 0 && t < time(&v[j - 1]) {
            v[j] = v[j - 1];
            j -= 1;
        }
        ties |= j > 0 && time(&v[j - 1]) == t;
        v[j] = e;
    }
    ties
}

/// Sort a nearly sorted run by (time, tie order), stably: an insertion sort.
fn insertion_sort(v: &mut [Entry]) {
    for i in 1..v.len() {
        let e = v[i];
        if !e.before(&v[i - 1]) {
            continue;
        }
        let mut j = i;
        while j > 0 && e.before(&v[j - 1]) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

/// log2 of the bucket width in picoseconds.
const BUCKET_SHIFT: u32 = 10;
/// Bounds of log2 of the number of buckets in the ring.
const MIN_RING_BITS: u32 = 8;
const MAX_RING_BITS: u32 = 16;
/// Ring size when no horizon is given (~4 µs).
const DEFAULT_RING_BITS: u32 = 12;
/// Buckets of at most this many events are sorted by insertion alone: the counting sort's
/// fixed cost (clearing and summing its sub-bucket counts) is more than an insertion sort
/// of so few. On the k = 8 fat-tree (5.3 events a bucket): 4, 8 and 16 cost 4,355.8 M,
/// 4,307.0 M and 4,302.6 M instructions (cachegrind, 1 ms), with 37.7 M, 38.8 M and
/// 38.2 M simulated branch mispredictions.
const SMALL_BUCKET: usize = 16;
/// A bucket's counting sort keys: sub-buckets of 2^SUB_SHIFT ps.
const SUB_SHIFT: u32 = 6;
const SUB_BUCKETS: usize = 1 << (BUCKET_SHIFT - SUB_SHIFT);
/// More events than this in one sub-bucket may be far from sorted (bursts of timers,
/// overflow drains): the library's sort then, not an insertion sort.
const CROWDED: usize = 32;
/// End of a block chain (and of the free list).
const NIL: u32 = u32::MAX;

/// The pending-event set.
///
/// Order: by time, ties as [`TieOrder`] says. Shuffled: by [`Event::order_key`],
/// wherever an event waited (the ring's buckets are sorted by both when drained, the
/// overflow heap keys by both), so the order does not depend on when an event was
/// scheduled. Scheduled: ring buckets keep scheduling order by appending and a stable
/// sort; the overflow heap orders by `(time, seq)`. The two never disagree because no
/// overflow event ever lies inside the ring: `place` sends an event to the overflow only
/// beyond the ring, and every move of the calendar (`advance_bucket`) pulls in the
/// overflow events the ring now covers before anything else is scheduled.
pub struct EventQueue {
    /// Buckets in the ring (a power of two) and `ring_len - 1`.
    ring_len: u64,
    mask: u64,
    /// Absolute index (time >> BUCKET_SHIFT) of the bucket being drained.
    cur: u64,
    /// Events of bucket `cur` (and of any earlier bucket scheduled late), sorted by time
    /// ascending from `head` (the events before `head` have fired). A bucket is 1 ns wide
    /// and holds a handful of events in scheduling order (on the k = 8 fat-tree 5.3, half
    /// of them after a later one, each then about two places out): an insertion sort puts
    /// so few in order, and late arrivals are inserted in place; cheaper than a heap.
    current: Vec<Entry>,
    head: usize,
    /// Events of buckets `cur+1 .. cur+ring_len`, unsorted, at `bucket & mask`.
    ring: Vec<Bucket>,
    /// The blocks of the ring's chains, each block's successor, and the free list's head.
    blocks: Vec<Block>,
    block_next: Vec<u32>,
    free_block: u32,
    /// One bit per ring slot: the slot holds events.
    occupied: Vec<u64>,
    /// Events at or beyond bucket `cur + ring_len`.
    overflow: BinaryHeap<Overflow>,
    len: usize,
    tie: TieOrder,
    /// Scheduling sequence (orders scheduled ties in the overflow heap).
    next_seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::with_ring_bits(DEFAULT_RING_BITS)
    }
}

impl EventQueue {
    /// A queue whose ring covers at least `horizon` ahead of now (most events should be
    /// scheduled within it: link delays plus serialization). A smaller ring keeps the
    /// buckets in cache, a larger one keeps long-delay events out of the overflow heap.
    pub fn with_horizon(horizon: crate::time::Delta) -> Self {
        let buckets = (horizon.0 >> BUCKET_SHIFT).max(1);
        let bits = (64 - buckets.leading_zeros()).clamp(MIN_RING_BITS, MAX_RING_BITS);
        Self::with_ring_bits(bits)
    }

    fn with_ring_bits(bits: u32) -> Self {
        let ring_len = 1u64 << bits;
        EventQueue {
            ring_len,
            mask: ring_len - 1,
            cur: 0,
            current: Vec::new(),
            head: 0,
            ring: vec![Bucket::default(); ring_len as usize],
            blocks: Vec::new(),
            block_next: Vec::new(),
            free_block: NIL,
            occupied: vec![0; (ring_len / 64) as usize],
            overflow: BinaryHeap::new(),
            len: 0,
            tie: TieOrder::Shuffled(0),
            next_seq: 0,
        }
    }

    pub fn new() -> Self {
        Self::default()
    }

    /// Order equal-time events as `tie` says (shuffled by a salt a run draws from its
    /// seed, or as scheduled); set before the first event is scheduled.
    pub fn with_tie_order(mut self, tie: TieOrder) -> Self {
        debug_assert!(self.is_empty(), "the tie order is fixed before events are scheduled");
        self.tie = tie;
        self
    }

    pub fn tie_order(&self) -> TieOrder {
        self.tie
    }

    /// Schedule `event` at `time`. Equal times fire in the queue's [`TieOrder`].
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        self.len += 1;
        self.place(time, event);
    }

    /// Put a pending event where its time belongs: the current bucket, the ring or the
    /// overflow heap. The common case (a bucket of the ring with room in its last block)
    /// is a leaf that needs no stack frame; the rest is out of line (the whole of it in
    /// one function saved and restored six registers on every schedule).
    #[inline]
    fn place(&mut self, time: SimTime, event: Event) {
        let b = time.0 >> BUCKET_SHIFT;
        if b > self.cur && b - self.cur < self.ring_len {
            let bucket = self.bucket_mut(b);
            let fill = bucket.len as usize % BLOCK_ENTRIES;
            if fill != 0 {
                // Room in the bucket's last block (which a bucket holding events has).
                bucket.len += 1;
                let tail = bucket.tail;
                let offset = (time.0 & ((1 << BUCKET_SHIFT) - 1)) as u32;
                // SAFETY: the tail of a bucket holding events (`fill != 0`).
                #[allow(unsafe_code)]
                let block = unsafe { block_at(&mut self.blocks, tail) };
                block.0[fill] = RingEntry { offset, event };
                return;
            }
        }
        self.place_rare(b, time, event);
    }

    /// The rest of [`place`](Self::place): the bucket being drained, the overflow heap,
    /// or a ring bucket that needs a new block.
    #[inline(never)]
    fn place_rare(&mut self, b: u64, time: SimTime, event: Event) {
        if b <= self.cur {
            self.insert_current(time, event);
        } else if b - self.cur < self.ring_len {
            self.push_ring_new_block(b, time, event);
        } else {
            let tie = match self.tie {
                TieOrder::Shuffled(_) => self.tie.key(time, &event),
                TieOrder::Scheduled => {
                    self.next_seq += 1;
                    self.next_seq
                }
            };
            let key = ((time.0 as u128) << 64) | tie as u128;
            self.overflow.push(Overflow { key, event });
        }
    }

    /// Append an event to ring bucket `b` (within the ring) whose last block is full or
    /// which has none: the event opens a new block ([`place`](Self::place) fills the
    /// others in line).
    #[inline(always)]
    fn push_ring_new_block(&mut self, b: u64, time: SimTime, event: Event) {
        let bucket = *self.bucket_mut(b);
        debug_assert_eq!(bucket.len as usize % BLOCK_ENTRIES, 0, "the bucket's last block is full");
        if self.free_block == NIL {
            self.grow_pool();
        }
        // The most recently drained block, so the next events land on a line just read.
        let block = self.free_block;
        self.free_block = self.block_next[block as usize];
        self.block_next[block as usize] = NIL;
        if bucket.len == 0 {
            self.bucket_mut(b).head = block;
            *self.occupied_word_mut(b) |= 1 << (b % 64);
        } else {
            self.block_next[bucket.tail as usize] = block;
        }
        let offset = (time.0 & ((1 << BUCKET_SHIFT) - 1)) as u32;
        self.blocks[block as usize].0[0] = RingEntry { offset, event };
        let bucket = self.bucket_mut(b);
        bucket.tail = block;
        bucket.len += 1;
    }

    /// The ring slot of absolute bucket `b`, reached without a bounds check: the ring's
    /// length is `mask + 1` from construction on (it is never resized), so `b & mask` is
    /// always inside it.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn bucket_mut(&mut self, b: u64) -> &mut Bucket {
        let slot = (b & self.mask) as usize;
        debug_assert!(slot < self.ring.len());
        // SAFETY: `slot <= mask < ring.len()` (above).
        unsafe { self.ring.get_unchecked_mut(slot) }
    }

    /// The occupancy bitmap's word of absolute bucket `b`, reached without a bounds check:
    /// the bitmap has `ring_len / 64` words from construction on (a ring has at least
    /// 2^MIN_RING_BITS slots), so `(b & mask) / 64` is inside it.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn occupied_word(&self, b: u64) -> &u64 {
        let w = self.occupied_index(b);
        // SAFETY: `w < occupied.len()` (`occupied_index`).
        unsafe { self.occupied.get_unchecked(w) }
    }

    #[inline(always)]
    #[allow(unsafe_code)]
    fn occupied_word_mut(&mut self, b: u64) -> &mut u64 {
        let w = self.occupied_index(b);
        // SAFETY: `w < occupied.len()` (`occupied_index`).
        unsafe { self.occupied.get_unchecked_mut(w) }
    }

    /// The bitmap word of bucket `b`: `(b & mask) / 64 <= mask / 64 < ring_len / 64`, the
    /// bitmap's length.
    #[inline(always)]
    fn occupied_index(&self, b: u64) -> usize {
        let w = ((b & self.mask) / 64) as usize;
        debug_assert!(w < self.occupied.len());
        w
    }

    /// A new block on the free list (which was empty).
    #[cold]
    fn grow_pool(&mut self) {
        let empty = RingEntry { offset: 0, event: Event::TraceSample };
        self.blocks.push(Block([empty; BLOCK_ENTRIES]));
        self.block_next.push(self.free_block);
        self.free_block = (self.blocks.len() - 1) as u32;
    }

    /// First occupied ring bucket after `cur` (absolute index), if any: nearly always in
    /// the bitmap's word of `cur + 1` (on the k = 8 fat-tree all but 708 of 930,460 moves
    /// of the calendar), else found by a scan of the words after it. The scan's loop for
    /// every move cost 18.4 M more instructions there (1 ms).
    #[inline]
    fn next_ring_bucket(&self) -> Option<u64> {
        let start = (self.cur + 1) & self.mask;
        let first_word = (start / 64) as usize;
        let bits = *self.occupied_word(start) & (!0u64 << (start % 64));
        if bits != 0 {
            return Some(self.ring_bucket_at(first_word, bits));
        }
        self.next_ring_bucket_beyond(start)
    }

    /// [`next_ring_bucket`](Self::next_ring_bucket) past the word of `start`: the later
    /// words, wrapping once around the ring to the bits of `start`'s word below it.
    #[inline(never)]
    fn next_ring_bucket_beyond(&self, start: u64) -> Option<u64> {
        let words = self.occupied.len();
        let first_word = (start / 64) as usize;
        for step in 1..=words {
            let w = (first_word + step) & (words - 1); // words is a power of two
            let mut bits = self.occupied[w];
            if step == words {
                bits &= (1u64 << (start % 64)).wrapping_sub(1);
            }
            if bits != 0 {
                return Some(self.ring_bucket_at(w, bits));
            }
        }
        None
    }

    /// The absolute index of the first ring bucket marked in `bits`, word `w` of the bitmap.
    #[inline(always)]
    fn ring_bucket_at(&self, w: usize, bits: u64) -> u64 {
        let slot = w as u64 * 64 + bits.trailing_zeros() as u64;
        let ahead = (slot.wrapping_sub(self.cur) & self.mask).max(1);
        self.cur + ahead
    }

    /// The events of ring bucket `b`, unsorted.
    fn ring_events(&self, b: u64) -> impl Iterator<Item = Entry> + '_ {
        let bucket = self.ring[(b & self.mask) as usize];
        let base = b << BUCKET_SHIFT;
        chain(&self.blocks, &self.block_next, bucket)
            .flatten()
            .map(move |e| Entry::new(SimTime(base + e.offset as u64), 0, e.event))
    }

    /// Make `current` hold the earliest events; false when the queue is empty.
    #[inline]
    fn advance(&mut self) -> bool {
        self.head < self.current.len() || self.advance_bucket()
    }

    /// `current` is empty: move the calendar to the next non-empty bucket.
    fn advance_bucket(&mut self) -> bool {
        self.current.clear();
        self.head = 0;
        if self.len == 0 {
            return false;
        }
        let from_ring = self.next_ring_bucket();
        let from_overflow = self.overflow.peek().map(|e| e.bucket());
        let next = match (from_ring, from_overflow) {
            (Some(r), Some(o)) => r.min(o),
            (Some(r), None) => r,
            (None, Some(o)) => o,
            (None, None) => unreachable!("len > 0 but no event"),
        };
        self.cur = next;
        if from_ring == Some(next) {
            self.drain_ring_bucket(next);
        }
        // The ring now reaches further: pull in overflow events that fall inside it.
        while let Some(e) = self.overflow.peek() {
            if e.bucket() - self.cur >= self.ring_len {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            self.place(e.time(), e.event);
        }
        true
    }

    /// Move ring bucket `b` (= `cur`) into `current` (empty), sorted by time, and free its
    /// blocks; events that share a picosecond are then ordered by their tie keys.
    fn drain_ring_bucket(&mut self, b: u64) {
        *self.occupied_word_mut(b) &= !(1 << (b % 64));
        let bucket = std::mem::take(self.bucket_mut(b));
        let base = b << BUCKET_SHIFT;
        let ties = if bucket.len as usize <= SMALL_BUCKET {
            self.drain_small(bucket, base)
        } else {
            self.drain_counted(bucket, base)
        };
        if ties {
            self.key_ties();
        }
    }

    /// A bucket of a few events (nearly all of them: 5.3 on average on the k = 8
    /// fat-tree), which fit one block: sorted there (16-byte entries by their offsets),
    /// then copied out in one pass, and the block returned to the free list. Inserting each
    /// event in time order into `current` as it was copied cost more (3,448.1 M against
    /// 3,421.7 M instructions on the k = 8 fat-tree at 1 ms): the vector's length and
    /// capacity were read and written at every push. Returns whether two events share a
    /// picosecond.
    #[inline(always)]
    fn drain_small(&mut self, bucket: Bucket, base: u64) -> bool {
        let n = bucket.len as usize;
        let at = bucket.head;
        // SAFETY: the head of a bucket holding events (it is drained only then).
        #[allow(unsafe_code)]
        let entries = &mut unsafe { block_at(&mut self.blocks, at) }.0[..n];
        let ties = sort_by_time(entries, |e| e.offset as u64);
        self.current.extend(entries.iter().map(|e| Entry::new(SimTime(base + e.offset as u64), 0, e.event)));
        self.block_next[at as usize] = self.free_block;
        self.free_block = at;
        ties
    }

    /// A crowded bucket holds its events in scheduling order with times spread over its
    /// nanosecond, so an insertion sort alone would move each several places on
    /// unpredictable branches. Its events are first placed by a counting sort on their
    /// 64 ps sub-bucket (stable, no data-dependent branches), which leaves only the rare
    /// inversions within a sub-bucket for the final insertion pass. Returns whether two
    /// events share a picosecond.
    fn drain_counted(&mut self, bucket: Bucket, base: u64) -> bool {
        let n = bucket.len as usize;
        let entry = |e: &RingEntry| Entry::new(SimTime(base + e.offset as u64), 0, e.event);
        // Sub-bucket starts (counts, then running sums).
        let mut start = [0u32; SUB_BUCKETS + 1];
        for block in chain(&self.blocks, &self.block_next, bucket) {
            for e in block {
                start[(e.offset >> SUB_SHIFT) as usize + 1] += 1;
            }
        }
        // More than this many events in one sub-bucket may be far from sorted: the
        // library's stable sort then (bursts of timers, overflow drains).
        let crowded = n > CROWDED && start.iter().any(|&c| c as usize > CROWDED);
        for k in 1..=SUB_BUCKETS {
            start[k] += start[k - 1];
        }
        let filler = Entry::new(SimTime::ZERO, 0, Event::TraceSample);
        self.current.resize(n, filler);
        for block in chain(&self.blocks, &self.block_next, bucket) {
            for e in block {
                let at = &mut start[(e.offset >> SUB_SHIFT) as usize];
                self.current[*at as usize] = entry(e);
                *at += 1;
            }
        }
        // Return the chain to the free list head first, so its tail (the line written
        // last) is reused first.
        let mut block = bucket.head;
        for _ in 0..n.div_ceil(BLOCK_ENTRIES) {
            let next = self.block_next[block as usize];
            self.block_next[block as usize] = self.free_block;
            self.free_block = block;
            block = next;
        }
        if crowded {
            self.current.sort_by_key(|e| e.order);
            self.current.windows(2).any(|w| w[0].time() == w[1].time())
        } else {
            sort_by_time(&mut self.current, |e| e.time().0)
        }
    }

    /// Order the events of `current` (just drained) that share their picosecond by their
    /// tie keys. Sorting puts events in time order with their keys left at 0 (stable:
    /// scheduling order within a picosecond); only events that tie need a key, so it is
    /// computed for them alone (on the k = 8 fat-tree one drained bucket in five holds a
    /// tie; hashing every event cost it about 20 instructions). Entries without the key
    /// (24 bytes instead of 32, keys computed at each comparison of a tie) cost 0.1 %
    /// more instructions there.
    #[cold]
    fn key_ties(&mut self) {
        let TieOrder::Shuffled(_) = self.tie else { return };
        let v = &mut self.current[..];
        let mut i = 1;
        while i < v.len() {
            if v[i].time() != v[i - 1].time() {
                i += 1;
                continue;
            }
            let start = i - 1;
            let time = v[start].time();
            let mut end = i + 1;
            while end < v.len() && v[end].time() == time {
                end += 1;
            }
            let run = &mut v[start..end];
            for e in run.iter_mut() {
                *e = e.keyed(self.tie);
            }
            insertion_sort(run);
            i = end + 1;
        }
    }

    /// Put an event due in the bucket being drained among its pending events, by (time,
    /// tie order): under shuffled ties the events of its picosecond get their keys first
    /// ([`Entry::keyed`]); scheduled ties go after every pending event of the same time.
    fn insert_current(&mut self, time: SimTime, event: Event) {
        let pending = &mut self.current[self.head..];
        let lo = pending.partition_point(|e| e.time() < time);
        let hi = lo + pending[lo..].partition_point(|e| e.time() == time);
        let key = match self.tie {
            TieOrder::Shuffled(_) => {
                for e in &mut pending[lo..hi] {
                    *e = e.keyed(self.tie);
                }
                self.tie.key(time, &event)
            }
            TieOrder::Scheduled => 0,
        };
        let new = Entry::new(time, key, event);
        let at = lo + pending[lo..hi].partition_point(|e| !new.before(e));
        self.current.insert(self.head + at, new);
    }

    /// Remove and return the earliest event if it is due at or before `limit`.
    ///
    /// The head of the drained bucket is read once (one bounds check: the run loop's pop
    /// as `advance`, index and [`take_head`](Self::take_head) checked it three times).
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, Event)> {
        let e = match self.current.get(self.head).copied() {
            Some(e) => e,
            None if self.advance_bucket() => self.current[self.head],
            None => return None,
        };
        let time = e.time();
        if time > limit {
            return None;
        }
        self.head += 1;
        self.len -= 1;
        Some((time, e.event))
    }

    /// Remove the earliest pending event.
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        if !self.advance() {
            return None;
        }
        Some(self.take_head())
    }

    /// Pop the head of `current` (which `advance` filled).
    #[inline]
    fn take_head(&mut self) -> (SimTime, Event) {
        let e = self.current[self.head];
        self.head += 1;
        self.len -= 1;
        (e.time(), e.event)
    }

    /// The tie key of the event popped last (0 under scheduled ties): with its time, where
    /// the event stands in the run's firing order, which orders what several partitions
    /// of a parallel run logged. Computed here, on demand: the queue itself keys only
    /// events that share their picosecond. The event is still in the drained bucket,
    /// just before `head`, until the next pop (handlers only schedule, which inserts
    /// after `head`).
    #[inline]
    pub fn fired_key(&self) -> u64 {
        match self.head.checked_sub(1).and_then(|i| self.current.get(i)) {
            Some(e) => self.tie.key(e.time(), &e.event),
            None => 0,
        }
    }

    /// The event `ahead` places after the next one in the bucket being drained, if any,
    /// without moving the calendar: a look-ahead for prefetching (it fires soon, unless
    /// earlier events are scheduled in between).
    #[inline]
    pub fn peek_drained(&self, ahead: usize) -> Option<&Event> {
        self.current.get(self.head + ahead).map(|e| &e.event)
    }

    /// The earliest pending event (may move the calendar forward; order is unaffected).
    pub fn peek(&mut self) -> Option<(SimTime, Event)> {
        if !self.advance() {
            return None;
        }
        self.current.get(self.head).map(|e| (e.time(), e.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        if let Some(e) = self.current.get(self.head) {
            return Some(e.time());
        }
        let ring_min = self
            .next_ring_bucket()
            .map(|b| self.ring_events(b).map(|e| e.time()).min().expect("occupied bucket"));
        let overflow_min = self.overflow.peek().map(|e| e.time());
        match (ring_min, overflow_min) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Every pending event, in no particular order (the drained bucket's unfired events,
    /// the ring's, the overflow heap's). For what is rare enough to afford a scan of them
    /// all: a link failing finds the packets on its wire among the pending deliveries.
    pub fn pending(&self) -> impl Iterator<Item = &Event> + '_ {
        let drained = self.current[self.head..].iter().map(|e| &e.event);
        let ring =
            self.ring.iter().flat_map(|&bucket| chain(&self.blocks, &self.block_next, bucket).flatten());
        let overflow = self.overflow.iter().map(|e| &e.event);
        drained.chain(ring.map(|e| &e.event)).chain(overflow)
    }

    /// Bytes allocated by the ring (buckets, blocks, bitmap), the current bucket and the
    /// overflow heap.
    pub fn allocated_bytes(&self) -> u64 {
        use std::mem::size_of;
        (self.ring.len() * size_of::<Bucket>()
            + self.blocks.capacity() * size_of::<Block>()
            + self.block_next.capacity() * 4
            + self.occupied.len() * 8
            + self.current.capacity() * size_of::<Entry>()
            + self.overflow.capacity() * size_of::<Overflow>()) as u64
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn wake(n: u32) -> Event {
        Event::NicWake { node: NodeId(n) }
    }

    /// `pending` lists every event not yet fired, wherever it waits: the drained bucket
    /// (its unfired part), ring buckets of one and of several blocks, the overflow heap.
    #[test]
    fn pending_lists_every_unfired_event() {
        let mut q = EventQueue::with_horizon(crate::time::Delta::from_ns(300));
        let mut scheduled = Vec::new();
        let mut at = |q: &mut EventQueue, t: u64, n: u32| {
            q.schedule(SimTime(t), wake(n));
            scheduled.push((t, n));
        };
        at(&mut q, 1_000, 0);
        at(&mut q, 1_100, 1); // same bucket as the first: drained with it
        for n in 0..40 {
            at(&mut q, 50_000 + n as u64, 100 + n); // a bucket of three blocks
        }
        at(&mut q, 90_000, 2);
        at(&mut q, 5_000_000, 3); // beyond the ring
        assert_eq!(q.pop().unwrap(), (SimTime(1_000), wake(0)));
        let mut left: Vec<Event> = q.pending().copied().collect();
        let mut expect: Vec<Event> = scheduled[1..].iter().map(|&(_, n)| wake(n)).collect();
        let key = |e: &Event| e.order_key(SimTime::ZERO, 0);
        left.sort_by_key(key);
        expect.sort_by_key(key);
        assert_eq!(left, expect);
        assert_eq!(q.pending().count(), q.len());
    }

    #[test]
    fn ring_entries_are_16_bytes() {
        assert_eq!(std::mem::size_of::<Event>(), 12);
        assert_eq!(std::mem::size_of::<RingEntry>(), 16);
        assert_eq!(std::mem::size_of::<Block>(), 256);
    }

    /// Wakes 19..10 at one far time while it is beyond the ring (overflow), then 9..0
    /// once it is inside (ring); returns that time.
    fn overflow_then_ring(q: &mut EventQueue) -> SimTime {
        let far = SimTime(5_000_000);
        for n in (10..20).rev() {
            q.schedule(far, wake(n));
        }
        q.schedule(SimTime(4_900_000), wake(100));
        assert_eq!(q.pop().unwrap(), (SimTime(4_900_000), wake(100)));
        for n in (0..10).rev() {
            q.schedule(far, wake(n));
        }
        far
    }

    #[test]
    fn equal_times_fire_by_order_key_across_ring_and_overflow() {
        // Events at one time, scheduled while that time is beyond the ring (overflow)
        // and again once it is inside (ring), in reverse key order: they fire by key,
        // wherever they waited.
        let mut q = EventQueue::with_horizon(crate::time::Delta::from_ns(300));
        let far = overflow_then_ring(&mut q);
        let mut expect: Vec<Event> = (0..20).map(wake).collect();
        expect.sort_by_key(|e| e.order_key(far, 0));
        for e in expect {
            assert_eq!(q.pop().unwrap(), (far, e));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn scheduled_ties_fire_in_insertion_order_across_ring_and_overflow() {
        let mut q =
            EventQueue::with_horizon(crate::time::Delta::from_ns(300)).with_tie_order(TieOrder::Scheduled);
        let far = overflow_then_ring(&mut q);
        for n in (10..20).rev().chain((0..10).rev()) {
            assert_eq!(q.pop().unwrap(), (far, wake(n)));
        }
        q.schedule(SimTime(6_000_000), wake(5));
        q.schedule(SimTime(6_000_000), wake(1));
        assert_eq!(q.pop().unwrap().1, wake(5));
        q.schedule(SimTime(6_000_000), wake(0));
        assert_eq!(q.pop().unwrap().1, wake(1));
        assert_eq!(q.pop().unwrap().1, wake(0));
        assert!(q.is_empty());
    }

    #[test]
    fn equal_times_fire_by_kind_then_target_whatever_the_scheduling_order() {
        let port = |p| crate::ids::PortId(p);
        let timer = |flow| Event::FlowTimer { kind: TimerKind::Rto, flow: FlowId(flow), generation: 0 };
        let mut expect = [
            Event::Deliver { port: port(1), pkt: PacketRef::from_index(9) },
            Event::Deliver { port: port(2), pkt: PacketRef::from_index(0) },
            Event::TxDone { port: port(0) },
            wake(3),
            timer(1),
        ];
        // The two deliveries in the order of this picosecond's shuffle, then by kind.
        if expect[1].order_key(SimTime(5), 0) < expect[0].order_key(SimTime(5), 0) {
            expect.swap(0, 1);
        }
        for order in [[4, 3, 2, 1, 0], [2, 0, 4, 1, 3], [0, 1, 2, 3, 4]] {
            let mut q = EventQueue::new();
            for i in order {
                q.schedule(SimTime(5), expect[i]);
            }
            let got: Vec<Event> =
                std::iter::from_fn(|| q.pop_until(SimTime::NEVER).map(|(_, e)| e)).collect();
            assert_eq!(got, expect, "scheduled in order {order:?}");
        }
        // An event scheduled for now with a smaller key than the one just fired fires next.
        let mut nodes: Vec<u32> = (0..3).collect();
        nodes.sort_by_key(|&n| wake(n).order_key(SimTime(5), 0));
        let [lo, mid, hi] = [nodes[0], nodes[1], nodes[2]];
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), wake(mid));
        q.schedule(SimTime(5), wake(hi));
        assert_eq!(q.pop().unwrap().1, wake(mid));
        q.schedule(SimTime(5), wake(lo));
        assert_eq!(q.pop().unwrap().1, wake(lo));
        assert_eq!(q.pop().unwrap().1, wake(hi));
        // The shuffle differs from one picosecond to the next, and never ties two entities.
        let order = |t| {
            let mut v: Vec<u32> = (0..64).collect();
            v.sort_by_key(|&n| wake(n).order_key(SimTime(t), 0));
            v
        };
        assert_ne!(order(5), order(6));
        let keys: std::collections::BTreeSet<u64> =
            (0..10_000).map(|n| wake(n).order_key(SimTime(5), 0)).collect();
        assert_eq!(keys.len(), 10_000);
    }

    #[test]
    fn matches_a_sorted_shadow_across_buckets_and_overflow() {
        // Schedule at or after the last popped time, as the simulator does, over spans
        // from one picosecond to several ring lengths.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut q = EventQueue::with_horizon(crate::time::Delta::from_ns(300));
        let mut shadow = std::collections::BTreeMap::new();
        let mut now = 0u64;
        for round in 0..200_000u32 {
            if rng.gen_bool(0.55) {
                let span = [100u64, 100_000, 10_000_000, 5_000_000_000][rng.gen_range(0..4)];
                let t = now + rng.gen_range(0..span);
                q.schedule(SimTime(t), wake(round));
                shadow.insert((t, wake(round).order_key(SimTime(t), 0)), wake(round));
            } else {
                let expect = shadow.pop_first().map(|((t, _), e)| (SimTime(t), e));
                let got = q.pop_until(SimTime::NEVER);
                assert_eq!(got, expect);
                if let Some((t, _)) = got {
                    now = t.0;
                }
            }
            assert_eq!(q.len(), shadow.len());
            assert_eq!(q.peek_time(), shadow.keys().next().map(|(t, _)| SimTime(*t)));
        }
    }

    #[test]
    fn ties_in_drained_buckets_fire_by_key_and_report_it() {
        // Buckets ahead of now holding few, a counting sort's worth and a crowd of
        // events, on a handful of picoseconds each: keys are computed only for the
        // events that tie, so check the order and `fired_key` against a shadow.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let salt = 0x1234_5678;
        let mut q = EventQueue::with_horizon(crate::time::Delta::from_ns(300))
            .with_tie_order(TieOrder::Shuffled(salt));
        let mut shadow = std::collections::BTreeMap::new();
        let mut id = 0u32;
        for (bucket, n, distinct) in [(3u64, 3, 2), (5, 12, 3), (9, 20, 4), (12, 80, 2), (20, 200, 50)] {
            for _ in 0..n {
                let t = SimTime((bucket << BUCKET_SHIFT) + 7 * rng.gen_range(0..distinct));
                id += 1;
                q.schedule(t, wake(id));
                shadow.insert((t, wake(id).order_key(t, salt)), wake(id));
            }
        }
        while let Some(((t, key), e)) = shadow.pop_first() {
            assert_eq!(q.pop(), Some((t, e)));
            assert_eq!(q.fired_key(), key);
            // Now and then an event scheduled into the bucket being drained, tied
            // with what is pending there.
            if key % 3 == 0 {
                if let Some((&(t2, _), _)) = shadow.iter().next() {
                    id += 1;
                    q.schedule(t2, wake(id));
                    shadow.insert((t2, wake(id).order_key(t2, salt)), wake(id));
                }
            }
        }
        assert!(q.pop().is_none());
    }

    #[test]
    fn an_event_due_before_a_peeked_bucket_fires_first() {
        // `peek` moves the calendar to a later bucket; an event then scheduled before
        // that bucket's start still fires first.
        let mut q = EventQueue::new();
        q.schedule(SimTime(5_000), wake(1));
        q.schedule(SimTime(5_100), wake(3));
        assert_eq!(q.peek(), Some((SimTime(5_000), wake(1))));
        q.schedule(SimTime(100), wake(2));
        assert_eq!(q.pop(), Some((SimTime(100), wake(2))));
        assert_eq!(q.pop(), Some((SimTime(5_000), wake(1))));
        assert_eq!(q.pop(), Some((SimTime(5_100), wake(3))));
        assert!(q.pop().is_none());
    }

    #[test]
    fn matches_a_sorted_shadow() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut q = EventQueue::new();
        let mut shadow = std::collections::BTreeMap::new();
        for round in 0..2000 {
            if rng.gen_bool(0.6) {
                let t = rng.gen_range(0..50u64);
                q.schedule(SimTime(t), wake(round));
                shadow.insert((t, wake(round).order_key(SimTime(t), 0)), wake(round));
            } else {
                let expect = shadow.pop_first().map(|((t, _), e)| (SimTime(t), e));
                assert_eq!(q.pop_until(SimTime::NEVER), expect);
            }
        }
    }
}
