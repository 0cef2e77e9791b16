//! Hop-by-hop control frames: what a frame's payload must say of itself, the side table
//! that carries payloads beside their packet slots, counters per frame kind, and the arena
//! for variable-length payloads.
//!
//! A control frame is a packet of kind [`PacketKind::Control`](super::packet::PacketKind)
//! that crosses one link (serialization and propagation like any packet) and is consumed by
//! the node at the other end, whose flow-control policy acts on it. Its payload does not
//! live in the 52-byte packet header (which has no room for a flow id or a list of flows):
//! it is kept in [`FramePayloads`], indexed by the frame's packet-store slot, as INT stacks
//! are. Each flow-control mechanism defines its own payload type ([`Frame`]); the flow-control
//! family gathers them in one enum. Variable-length payloads (a list of flows, as OFC's
//! PAUSE carries) keep their items in a [`ListArena`] and name their list by id.

/// Wire size of a minimum Ethernet frame: PFC frames (IEEE 802.1Qbb MAC control frames are
/// padded to it) and every control frame whose payload fits in it.
pub const MIN_FRAME_BYTES: u16 = 64;

/// A control-frame payload: its kinds (named for counters and the event log), whether it
/// stops or restarts traffic, the class it names, and its size on the wire.
pub trait Frame: Copy + std::fmt::Debug {
    /// Names of the payload's kinds, e.g. `["pfc_pause", "pfc_resume"]`.
    const KINDS: &'static [&'static str];
    /// This frame's kind: an index into [`KINDS`](Self::KINDS).
    fn kind(&self) -> usize;
    /// Whether the frame stops (`Some(true)`) or restarts (`Some(false)`) traffic: what the
    /// per-port PAUSE / RESUME counters count.
    fn pauses(&self) -> Option<bool>;
    /// The class the frame names in the event log (a priority, a flow, a queue, a root).
    fn subject(&self) -> u32;
    /// The class whose pause at the receiver this frame ends, if any: a RESUME's own
    /// subject by default (what lets the event log be replayed into pauses in force).
    fn resumes(&self) -> Option<u32> {
        (self.pauses() == Some(false)).then(|| self.subject())
    }
    /// Bytes on the wire.
    fn wire_bytes(&self) -> u16 {
        MIN_FRAME_BYTES
    }
}

/// [`Frame`] for a PAUSE / RESUME payload with a `pause: bool` field: kinds
/// `[pause_name, resume_name]` (index `!pause`), `pauses() = Some(pause)`, `subject` the class
/// it names, and optionally its size on the wire (a minimum frame otherwise). Every
/// pause/resume mechanism's frame is written this way, so the kind numbering cannot drift.
macro_rules! pause_resume_frame {
    ($ty:ty, [$pause:literal, $resume:literal], subject = |$f:ident| $subject:expr
     $(, wire_bytes = |$w:ident| $wire:expr)? $(,)?) => {
        impl $crate::fabric::frames::Frame for $ty {
            const KINDS: &'static [&'static str] = &[$pause, $resume];
            fn kind(&self) -> usize {
                !self.pause as usize
            }
            fn pauses(&self) -> Option<bool> {
                Some(self.pause)
            }
            fn subject(&self) -> u32 {
                let $f = self;
                $subject
            }
            $(
                fn wire_bytes(&self) -> u16 {
                    let $w = self;
                    $wire
                }
            )?
        }
    };
}
pub(crate) use pause_resume_frame;

/// The payload of a mechanism that sends no frames (uninhabited).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoFrame {}

impl Frame for NoFrame {
    const KINDS: &'static [&'static str] = &[];
    fn kind(&self) -> usize {
        match *self {}
    }
    fn pauses(&self) -> Option<bool> {
        match *self {}
    }
    fn subject(&self) -> u32 {
        match *self {}
    }
}

/// Frames sent and received, per kind (indexed as the flow-control family numbers kinds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameCounters {
    pub sent: Vec<u64>,
    pub received: Vec<u64>,
}

impl FrameCounters {
    /// Counters for `kinds` frame kinds.
    pub fn new(kinds: usize) -> FrameCounters {
        FrameCounters { sent: vec![0; kinds], received: vec![0; kinds] }
    }
}

/// Payloads of the control frames in flight, indexed by packet-store slot. Grows to the
/// highest slot a frame ever used; data packets never touch it.
#[derive(Clone, Debug)]
pub struct FramePayloads<P> {
    payload: Vec<Option<P>>,
    /// Items of variable-length payloads.
    pub lists: ListArena,
}

impl<P> Default for FramePayloads<P> {
    fn default() -> Self {
        FramePayloads { payload: Vec::new(), lists: ListArena::default() }
    }
}

impl<P: Copy> FramePayloads<P> {
    /// Attach `payload` to the frame in slot `slot`.
    pub fn put(&mut self, slot: usize, payload: P) {
        if self.payload.len() <= slot {
            self.payload.resize(slot + 1, None);
        }
        debug_assert!(self.payload[slot].is_none(), "slot {slot} already carries a frame");
        self.payload[slot] = Some(payload);
    }

    /// Detach the payload of the frame in slot `slot` (the frame is being consumed).
    pub fn take(&mut self, slot: usize) -> P {
        self.payload[slot].take().expect("a control frame carries a payload")
    }
}

/// Identifies a list in a [`ListArena`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListId(u32);

/// Storage for variable-length frame payloads (lists of flow ids): a list is taken from the
/// arena when a frame is built and given back when the frame is consumed, and its buffer is
/// reused, so after warm-up no frame allocates.
#[derive(Clone, Debug, Default)]
pub struct ListArena {
    lists: Vec<Vec<u32>>,
    free: Vec<u32>,
}

impl ListArena {
    /// A new list holding `items`.
    pub fn alloc(&mut self, items: impl IntoIterator<Item = u32>) -> ListId {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.lists.push(Vec::new());
                (self.lists.len() - 1) as u32
            }
        };
        let list = &mut self.lists[id as usize];
        list.clear();
        list.extend(items);
        ListId(id)
    }

    pub fn get(&self, id: ListId) -> &[u32] {
        &self.lists[id.0 as usize]
    }

    /// Give list `id` back (its buffer is kept for the next `alloc`).
    pub fn release(&mut self, id: ListId) {
        debug_assert!(!self.free.contains(&id.0), "list {} released twice", id.0);
        self.free.push(id.0);
    }

    /// Lists allocated and not released.
    pub fn live(&self) -> usize {
        self.lists.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Stop(u8);

    #[test]
    fn payloads_travel_beside_their_slot() {
        let mut frames = FramePayloads::default();
        frames.put(7, Stop(1));
        frames.put(2, Stop(9));
        assert_eq!(frames.take(7), Stop(1));
        assert_eq!(frames.take(2), Stop(9));
        frames.put(7, Stop(3));
        assert_eq!(frames.take(7), Stop(3));
    }

    #[test]
    fn list_arena_reuses_released_lists() {
        let mut arena = ListArena::default();
        let a = arena.alloc([1, 2, 3]);
        let b = arena.alloc([4]);
        assert_eq!((arena.get(a), arena.get(b), arena.live()), (&[1, 2, 3][..], &[4][..], 2));
        arena.release(a);
        assert_eq!(arena.live(), 1);
        let c = arena.alloc([5, 6]);
        assert_eq!(c, a, "the released list is reused");
        assert_eq!(arena.get(c), &[5, 6]);
        assert_eq!(arena.lists.len(), 2, "no new list was allocated");
    }
}
