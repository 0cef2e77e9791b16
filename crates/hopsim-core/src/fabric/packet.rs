//! Packets.
//!
//! A packet is a compact plain `Copy` struct (52 B). It lives in one slot of the
//! [`PacketStore`](crate::fabric::store::PacketStore) from creation at a NIC or switch until it is
//! consumed; links and queues hold lists of slots, so forwarding never copies it. Control
//! frames (PFC, per-flow pause, and later BFC / Pyrrha / OFC frames) carry a typed payload
//! beside their slot (see [`frames`](crate::fabric::frames)) and bypass data buffer accounting.

use crate::ids::{FlowId, NodeId};
use crate::time::SimTime;

/// What a packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// RDMA data segment (`seq` = byte offset of its first payload byte).
    Data,
    /// Cumulative acknowledgement (`seq` = next byte expected).
    Ack,
    /// Negative acknowledgement (`seq` = the missing byte the receiver expects).
    Nack,
    /// DCQCN congestion notification packet, receiver → sender.
    Cnp,
    /// Hop-by-hop flow-control frame; never forwarded, consumed by the next node.
    Control,
    /// An entry inside a data queue that is never transmitted: when it reaches the head
    /// of its queue the switch's flow-control policy is told (`seq` names the marker).
    /// Order marks of OFC and Aquarius are markers.
    Marker,
}

impl PacketKind {
    pub fn name(self) -> &'static str {
        match self {
            PacketKind::Data => "data",
            PacketKind::Ack => "ack",
            PacketKind::Nack => "nack",
            PacketKind::Cnp => "cnp",
            PacketKind::Control => "control",
            PacketKind::Marker => "marker",
        }
    }
}

/// One-bit header fields of a [`Packet`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketFlags(u8);

impl PacketFlags {
    pub const NONE: PacketFlags = PacketFlags(0);
    /// ECN Congestion Experienced.
    pub const ECN_CE: PacketFlags = PacketFlags(1);
    /// ACK/NACK: the receiver saw CE marks since its last ACK (DCQCN notification echoed
    /// in the ACK, as the HPCC simulator does when CNPs are not paced).
    pub const CNP_ECHO: PacketFlags = PacketFlags(2);
    /// Retransmitted data (counted in the flow's retransmitted bytes).
    pub const RETRANSMIT: PacketFlags = PacketFlags(4);
    /// Carries an INT stack (kept beside the packet's slot, see `switch::int`).
    pub const INT: PacketFlags = PacketFlags(8);
    /// Was on the wire of a link that failed: dropped when it arrives.
    pub const LOST: PacketFlags = PacketFlags(16);
    /// A congestion notification a switch sent straight to the sender (Bolt's SRC): `seq`
    /// holds the queue length in bytes, `sack` the link rate in Mb/s, `sent_at` the send
    /// time of the data packet that triggered it.
    pub const SOURCE_NOTICE: PacketFlags = PacketFlags(32);

    #[inline]
    pub fn contains(self, flag: PacketFlags) -> bool {
        self.0 & flag.0 != 0
    }

    /// These flags with `flag` set when `on` (and left as they are otherwise).
    #[inline]
    pub fn with(self, flag: PacketFlags, on: bool) -> PacketFlags {
        if on {
            PacketFlags(self.0 | flag.0)
        } else {
            self
        }
    }
}

/// One packet on the wire or in a queue.
///
/// 52 bytes (50 used), 4-byte aligned, so that with its store links a packet fills exactly one
/// 64-byte cache line (`store::Slot`): a hop then touches one line of the packet, not
/// two. Hence 16-bit sizes (the scenario check caps a packet at 65,535 bytes on the
/// wire), one-bit fields in [`PacketFlags`], and INT stacks kept beside the slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct Packet {
    pub seq: u64,
    /// Data: when the sender emitted it; ACK: echo of that time (for RTT).
    pub sent_at: SimTime,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// IRN NACK: index (seq / MTU) of the out-of-order packet that triggered it.
    pub sack: u32,
    /// At a switch: when it entered its egress queue, in ns modulo 2^32 (queuing delay is
    /// the wrapping difference, exact for waits under 4.29 s).
    pub enq_ns: u32,
    pub sport: u16,
    pub dport: u16,
    pub payload: u16,
    /// Bytes on the wire (payload + headers).
    pub wire_bytes: u16,
    /// At a switch: the port number (within the switch) the packet arrived on, for
    /// ingress / PFC accounting.
    pub ingress: u16,
    pub kind: PacketKind,
    /// Traffic class (PFC priority). Control-class packets (ACK/NACK/CNP/PFC) ignore it.
    pub priority: u8,
    pub flags: PacketFlags,
    /// Hop limit (IP TTL): set by the sender, decremented per switch only by a policy that
    /// keeps one (DIBS), which drops the packet at 0.
    pub ttl: u8,
}

/// Largest packet on the wire, in bytes (`Packet::wire_bytes` is 16 bits).
pub const MAX_WIRE_BYTES: u32 = u16::MAX as u32;

impl Packet {
    /// Hop-by-hop control frames and the transport's control packets go to the
    /// strict-priority control queue, bypass buffer accounting and ignore PFC pause.
    #[inline]
    pub fn is_control_class(&self) -> bool {
        !matches!(self.kind, PacketKind::Data)
    }

    #[inline]
    pub fn ecn_ce(&self) -> bool {
        self.flags.contains(PacketFlags::ECN_CE)
    }

    #[inline]
    pub fn cnp_echo(&self) -> bool {
        self.flags.contains(PacketFlags::CNP_ECHO)
    }

    #[inline]
    pub fn retransmit(&self) -> bool {
        self.flags.contains(PacketFlags::RETRANSMIT)
    }

    /// Whether the packet carries an INT stack.
    #[inline]
    pub fn has_int(&self) -> bool {
        self.flags.contains(PacketFlags::INT)
    }

    /// Mark Congestion Experienced.
    #[inline]
    pub fn mark_ce(&mut self) {
        self.flags = self.flags.with(PacketFlags::ECN_CE, true);
    }
}

/// A 1,000-byte data segment at `seq` of flow 0 from node 0 to node 1 (for unit tests).
#[cfg(test)]
pub(crate) fn test_packet(seq: u64) -> Packet {
    Packet {
        kind: PacketKind::Data,
        priority: 0,
        flags: PacketFlags::NONE,
        flow: FlowId(0),
        src: NodeId(0),
        dst: NodeId(1),
        sport: 0,
        dport: 0,
        seq,
        payload: 1000,
        wire_bytes: 1048,
        sent_at: SimTime::ZERO,
        ingress: 0,
        enq_ns: 0,
        sack: 0,
        ttl: 64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packet and its store links fill one cache line (see `store::Slot`).
    #[test]
    fn packet_is_52_bytes() {
        assert_eq!(std::mem::size_of::<Packet>(), 52);
        assert_eq!(std::mem::align_of::<Packet>(), 4);
    }

    #[test]
    fn flags_are_independent_bits() {
        let f = PacketFlags::NONE.with(PacketFlags::ECN_CE, true).with(PacketFlags::INT, true);
        assert!(f.contains(PacketFlags::ECN_CE) && f.contains(PacketFlags::INT));
        assert!(!f.contains(PacketFlags::CNP_ECHO) && !f.contains(PacketFlags::RETRANSMIT));
        assert_eq!(f.with(PacketFlags::CNP_ECHO, false), f);
    }
}
