//! Hop-by-hop control frames: typed payloads per mechanism, their wire sizes, counters per
//! frame kind, and the side table that carries a frame's payload beside its packet slot.
//!
//! A control frame is a packet of kind [`PacketKind::Control`](crate::fabric::packet::PacketKind)
//! that crosses one link (serialization and propagation like any packet) and is consumed by
//! the node at the other end, whose flow-control policy acts on it. Its payload does not
//! live in the 52-byte packet header (which has no room for a flow id or a list of flows):
//! it is kept in [`ControlFrames`], indexed by the frame's packet-store slot, as INT stacks
//! are. Variable-length payloads (a list of flows, as OFC's PAUSE carries) keep their items
//! in a [`ListArena`] and name their list by id.

use crate::ids::FlowId;

/// Wire size of a minimum Ethernet frame: PFC frames (IEEE 802.1Qbb MAC control frames are
/// padded to it) and every control frame whose payload fits in it.
pub const MIN_FRAME_BYTES: u16 = 64;

/// Typed payload of a hop-by-hop control frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlPayload {
    /// IEEE 802.1Qbb PFC frame for one priority: XOFF (`pause = true`) or XON.
    Pfc { priority: u8, pause: bool },
    /// Per-flow flow control: stop (`pause = true`) or restart one flow at the upstream
    /// port (the ideal per-flow baseline of Pyrrha §2.3 and Appendix B). `reverse` names
    /// the flow's ACKs (queued per flow too when ACKs share the data queues).
    Flow { flow: FlowId, reverse: bool, pause: bool },
    /// BFC (Goyal et al., NSDI 2022, §3): stop (`pause = true`) or restart the upstream
    /// queue `queue` — a data queue of the port the frame arrives on, or, at a host NIC,
    /// the flow with that id (the NIC's queue pair).
    Bfc { queue: u32, pause: bool },
    /// Pyrrha (§4.4): a signal about congestion root `root` (a switch egress port, by
    /// global port id) `hop` hops downstream of the receiving port. A MERGE also names the
    /// false-positive root `old_root` it replaces (§4.1).
    Pyrrha { signal: RootSignal, root: u32, old_root: u32, hop: u8 },
}

/// The four signals of Pyrrha's control frames (§4.1, §4.3, §4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootSignal {
    /// Stop the traffic that crosses the root.
    Pause,
    /// Restart it.
    Resume,
    /// The root replaces the false-positive root `old_root`: its isolation queues soft-merge.
    Merge,
    /// The sender's isolation queue for the root was unassigned: it is no longer a child in
    /// the root's congestion tree (what lets a tree dissolve from its leaves, §4.3).
    Unassign,
}

/// The kinds of control frame, for counters and the event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    PfcPause,
    PfcResume,
    FlowPause,
    FlowResume,
    BfcPause,
    BfcResume,
    PyrrhaPause,
    PyrrhaResume,
    PyrrhaMerge,
    PyrrhaUnassign,
}

impl FrameKind {
    /// Number of kinds (length of per-kind counter arrays).
    pub const COUNT: usize = 10;
    pub const ALL: [FrameKind; FrameKind::COUNT] = [
        FrameKind::PfcPause,
        FrameKind::PfcResume,
        FrameKind::FlowPause,
        FrameKind::FlowResume,
        FrameKind::BfcPause,
        FrameKind::BfcResume,
        FrameKind::PyrrhaPause,
        FrameKind::PyrrhaResume,
        FrameKind::PyrrhaMerge,
        FrameKind::PyrrhaUnassign,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FrameKind::PfcPause => "pfc_pause",
            FrameKind::PfcResume => "pfc_resume",
            FrameKind::FlowPause => "flow_pause",
            FrameKind::FlowResume => "flow_resume",
            FrameKind::BfcPause => "bfc_pause",
            FrameKind::BfcResume => "bfc_resume",
            FrameKind::PyrrhaPause => "pyrrha_pause",
            FrameKind::PyrrhaResume => "pyrrha_resume",
            FrameKind::PyrrhaMerge => "pyrrha_merge",
            FrameKind::PyrrhaUnassign => "pyrrha_unassign",
        }
    }
}

impl ControlPayload {
    pub fn kind(&self) -> FrameKind {
        match *self {
            ControlPayload::Pfc { pause: true, .. } => FrameKind::PfcPause,
            ControlPayload::Pfc { pause: false, .. } => FrameKind::PfcResume,
            ControlPayload::Flow { pause: true, .. } => FrameKind::FlowPause,
            ControlPayload::Flow { pause: false, .. } => FrameKind::FlowResume,
            ControlPayload::Bfc { pause: true, .. } => FrameKind::BfcPause,
            ControlPayload::Bfc { pause: false, .. } => FrameKind::BfcResume,
            ControlPayload::Pyrrha { signal, .. } => match signal {
                RootSignal::Pause => FrameKind::PyrrhaPause,
                RootSignal::Resume => FrameKind::PyrrhaResume,
                RootSignal::Merge => FrameKind::PyrrhaMerge,
                RootSignal::Unassign => FrameKind::PyrrhaUnassign,
            },
        }
    }

    /// Bytes on the wire. Every kind fits a minimum Ethernet frame (a PFC frame carries a
    /// class-enable vector and eight 2-byte timers; a per-flow frame a 4-byte flow id; a
    /// BFC frame a queue id; a Pyrrha frame two `switch:port` root ids and a hop count).
    pub fn wire_bytes(&self) -> u16 {
        MIN_FRAME_BYTES
    }

    /// Whether the frame stops (`Some(true)`) or restarts (`Some(false)`) traffic: what the
    /// per-port PAUSE / RESUME counters count.
    pub fn pauses(&self) -> Option<bool> {
        match *self {
            ControlPayload::Pfc { pause, .. }
            | ControlPayload::Flow { pause, .. }
            | ControlPayload::Bfc { pause, .. } => Some(pause),
            ControlPayload::Pyrrha { signal: RootSignal::Pause, .. } => Some(true),
            ControlPayload::Pyrrha { signal: RootSignal::Resume, .. } => Some(false),
            ControlPayload::Pyrrha { .. } => None,
        }
    }

    /// The class a frame names in the event log: the PFC priority, the flow id, the BFC
    /// queue or the Pyrrha congestion root (global port id).
    pub fn subject(&self) -> u32 {
        match *self {
            ControlPayload::Pfc { priority, .. } => priority as u32,
            ControlPayload::Flow { flow, .. } => flow.0,
            ControlPayload::Bfc { queue, .. } => queue,
            ControlPayload::Pyrrha { root, .. } => root,
        }
    }
}

/// Frames sent and received, per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameCounters {
    pub sent: [u64; FrameKind::COUNT],
    pub received: [u64; FrameKind::COUNT],
}

impl FrameCounters {
    pub fn sent(&self, kind: FrameKind) -> u64 {
        self.sent[kind as usize]
    }

    pub fn received(&self, kind: FrameKind) -> u64 {
        self.received[kind as usize]
    }
}

/// Payloads of the control frames in flight, indexed by packet-store slot. Grows to the
/// highest slot a frame ever used; data packets never touch it.
#[derive(Clone, Debug, Default)]
pub struct ControlFrames {
    payload: Vec<Option<ControlPayload>>,
    /// Items of variable-length payloads.
    pub lists: ListArena,
}

impl ControlFrames {
    /// Attach `payload` to the frame in slot `slot`.
    pub fn put(&mut self, slot: usize, payload: ControlPayload) {
        if self.payload.len() <= slot {
            self.payload.resize(slot + 1, None);
        }
        debug_assert!(self.payload[slot].is_none(), "slot {slot} already carries a frame");
        self.payload[slot] = Some(payload);
    }

    /// Detach the payload of the frame in slot `slot` (the frame is being consumed).
    pub fn take(&mut self, slot: usize) -> ControlPayload {
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

    #[test]
    fn kinds_names_and_sizes() {
        let p = ControlPayload::Pfc { priority: 3, pause: true };
        assert_eq!(
            (p.kind(), p.pauses(), p.subject(), p.wire_bytes()),
            (FrameKind::PfcPause, Some(true), 3, 64)
        );
        let f = ControlPayload::Flow { flow: FlowId(42), reverse: false, pause: false };
        assert_eq!((f.kind(), f.pauses(), f.subject()), (FrameKind::FlowResume, Some(false), 42));
        let names: Vec<_> = FrameKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(&names[..4], ["pfc_pause", "pfc_resume", "flow_pause", "flow_resume"]);
        let b = ControlPayload::Bfc { queue: 17, pause: true };
        assert_eq!((b.kind(), b.pauses(), b.subject()), (FrameKind::BfcPause, Some(true), 17));
        let merge = ControlPayload::Pyrrha { signal: RootSignal::Merge, root: 9, old_root: 4, hop: 2 };
        assert_eq!((merge.kind(), merge.pauses(), merge.subject()), (FrameKind::PyrrhaMerge, None, 9));
        assert!(std::mem::size_of::<ControlPayload>() <= 16, "a payload stays small");
        assert!(FrameKind::ALL.iter().enumerate().all(|(i, k)| *k as usize == i));
    }

    #[test]
    fn payloads_travel_beside_their_slot() {
        let mut frames = ControlFrames::default();
        frames.put(7, ControlPayload::Pfc { priority: 1, pause: true });
        frames.put(2, ControlPayload::Flow { flow: FlowId(9), reverse: true, pause: true });
        assert_eq!(frames.take(7), ControlPayload::Pfc { priority: 1, pause: true });
        assert_eq!(frames.take(2), ControlPayload::Flow { flow: FlowId(9), reverse: true, pause: true });
        frames.put(7, ControlPayload::Pfc { priority: 1, pause: false });
        assert_eq!(frames.take(7).pauses(), Some(false));
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
