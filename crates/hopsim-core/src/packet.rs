//! Packets.
//!
//! A packet is a compact plain `Copy` struct (64 B). It lives in one slot of the
//! [`PacketStore`](crate::store::PacketStore) from creation at a NIC or switch until it is
//! consumed; links and queues hold lists of slots, so forwarding never copies it. Control
//! frames (PFC, and later BFC / Pyrrha / OFC frames) carry a
//! typed [`ControlPayload`] and bypass data buffer accounting.

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
}

impl PacketKind {
    pub fn name(self) -> &'static str {
        match self {
            PacketKind::Data => "data",
            PacketKind::Ack => "ack",
            PacketKind::Nack => "nack",
            PacketKind::Cnp => "cnp",
            PacketKind::Control => "control",
        }
    }
}

/// Typed payload of a hop-by-hop control frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlPayload {
    None,
    /// IEEE 802.1Qbb PFC frame for one priority: XOFF (`pause = true`) or XON.
    Pfc {
        priority: u8,
        pause: bool,
    },
}

/// One packet on the wire or in a queue.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub kind: PacketKind,
    /// Traffic class (PFC priority). Control-class packets (ACK/NACK/CNP/PFC) ignore it.
    pub priority: u8,
    /// ECN Congestion Experienced.
    pub ecn_ce: bool,
    /// ACK/NACK: the receiver saw CE marks since its last ACK (DCQCN notification
    /// echoed in the ACK, as the HPCC simulator does when CNPs are not paced).
    pub cnp_echo: bool,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub sport: u16,
    pub dport: u16,
    pub seq: u64,
    pub payload: u32,
    /// Bytes on the wire (payload + headers).
    pub wire_bytes: u32,
    /// Data: when the sender emitted it; ACK: echo of that time (for RTT).
    pub sent_at: SimTime,
    /// At a switch: the port number (within the switch) the packet arrived on, for
    /// ingress / PFC accounting.
    pub ingress: u16,
    /// At a switch: when it entered its egress queue, in ns modulo 2^32 (queuing delay is
    /// the wrapping difference, exact for waits under 4.29 s).
    pub enq_ns: u32,
    /// At a switch: the egress queue index it was placed in.
    pub queue: u16,
    /// IRN NACK: index (seq / MTU) of the out-of-order packet that triggered it.
    pub sack: u32,
    /// Retransmitted data (counted in the flow's retransmitted bytes).
    pub retransmit: bool,
    pub control: ControlPayload,
    /// Slot of this packet's INT stack (`NO_INT` when INT is off).
    pub int: u32,
}

/// `Packet::int` of a packet without telemetry.
pub const NO_INT: u32 = u32::MAX;

impl Packet {
    /// Hop-by-hop control frames and the transport's control packets go to the
    /// strict-priority control queue, bypass buffer accounting and ignore PFC pause.
    #[inline]
    pub fn is_control_class(&self) -> bool {
        !matches!(self.kind, PacketKind::Data)
    }
}

/// A 1,000-byte data segment at `seq` of flow 0 from node 0 to node 1 (for unit tests).
#[cfg(test)]
pub(crate) fn test_packet(seq: u64) -> Packet {
    Packet {
        kind: PacketKind::Data,
        priority: 0,
        ecn_ce: false,
        cnp_echo: false,
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
        queue: 0,
        sack: 0,
        retransmit: false,
        control: ControlPayload::None,
        int: NO_INT,
    }
}

#[cfg(test)]
mod tests {
    /// A packet is read at every hop: keep it within one cache line.
    #[test]
    fn packet_fits_a_cache_line() {
        assert!(std::mem::size_of::<super::Packet>() <= 64, "{}", std::mem::size_of::<super::Packet>());
    }
}
