//! Dense integer ids. Each indexes a `Vec` in the simulator; none is ever hashed on the
//! hot path.

macro_rules! dense_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            /// No such id (a sentinel, e.g. "no route").
            pub const NONE: $name = $name(u32::MAX);
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

dense_id!(
    /// A node of the topology (host or switch), numbered as in the topology.
    NodeId
);
dense_id!(
    /// One end of a link: the transmitter at its node. Ports of a node are contiguous.
    PortId
);
dense_id!(
    /// A flow (message / queue pair), numbered in start-time order.
    FlowId
);
dense_id!(
    /// A packet slot in the packet arena.
    PacketId
);
