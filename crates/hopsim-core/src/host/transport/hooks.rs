//! The shape of a transport plug-in: the [`TransportPolicy`] trait and the context its
//! hooks receive ([`HostCx`]: the fabric, and the hosts' shared state — their NICs, the
//! flows' common sender and receiver state, the transport settings).
//!
//! A transport keeps its own per-flow state in its own arrays (RoCE's NACK timer and IRN
//! bitmaps, TCP's scoreboard and timers); what every transport shares — the bytes sent and
//! acknowledged, the rate and window congestion control sets, the flow's timers — is in
//! [`Flow`]. The NIC asks the transport which segment of a flow to send next and tells it
//! what left; packets arriving at a host and transport timers are handed to it. A hook
//! returns the host whose NIC should try to send afterwards.

use super::super::core::HostCore;
use super::super::flow::Flow;
use crate::engine::TimerKind;
use crate::fabric::packet::Packet;
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::FlowId;
use crate::time::Delta;

/// What a transport hook may use besides the transport's own state.
pub struct HostCx<'a> {
    pub fab: &'a mut Fabric,
    pub core: &'a mut HostCore,
}

/// A host NIC to kick once a hook is done (it may have something to send).
pub type Kick = Option<usize>;

/// A reliable transport (`transport.kind = NAME`).
pub trait TransportPolicy: Sized {
    /// The transport for `flows` flows, from the hosts' resolved settings.
    fn build(cfg: &crate::host::TransportConfig, flows: usize) -> Self;

    /// The kind's name in scenarios.
    const NAME: &'static str;

    /// Whether its hooks are inlined into the event loop (RoCE's and TCP's are; another
    /// transport's are called out of line, so runs that do not use it carry none of its
    /// code in the loop — as the load-balancer family's `INLINE`).
    const INLINE: bool = false;

    /// Whether a parallel run (`engine.threads`) may put a flow's sender and receiver in
    /// different partitions: each side reads only its own state (the receiver's timers
    /// among them: `TimerKind::at_receiver`). Set once a `tests/parallel.rs` case shows a
    /// partitioned run identical to one thread's; until then a parallel run refuses it by
    /// field (`transport.kind`).
    const PARTITIONS: bool = false;

    /// The next segment of flow `f` to send: (first byte, whether it resends a hole below
    /// `snd_nxt`). May advance the transport's scan of holes.
    fn next_segment(&mut self, f: FlowId, flow: &Flow, mss: u64) -> Option<(u64, bool)>;

    /// Segment `seq` (`payload` bytes) of flow `f` left the NIC; `hole`: it was a resend
    /// chosen by [`next_segment`](Self::next_segment).
    fn on_sent(&mut self, f: FlowId, flow: &mut Flow, seq: u64, payload: u64, hole: bool);

    /// The UDP source port of the data packet of flow `f` starting at byte `seq` that the
    /// NIC is cutting (ECMP hashes it, so it picks the packet's path). Default: the flow's
    /// own port; a multipath transport (MP-RDMA's virtual paths) picks one per packet.
    #[inline(always)]
    fn source_port(&mut self, _f: FlowId, flow: &Flow, _seq: u64) -> u16 {
        flow.sport
    }

    /// The timeout the retransmission timer of flow `f` is first armed with.
    fn first_rto(&self, f: FlowId, default: Delta) -> Delta;

    /// Data packet `r` reached its receiver, host `h`.
    fn on_data(&mut self, cx: &mut HostCx, h: usize, r: PacketRef) -> Kick;

    /// An ACK or NACK `p` reached its sender, host `h`; `echo`: Bolt's bits it echoes.
    fn on_ack(&mut self, cx: &mut HostCx, h: usize, p: &Packet, echo: u8) -> Kick;

    /// A timer of flow `f` fired (the retransmission timer, a receiver's, or one congestion
    /// control asked for).
    fn on_timer(&mut self, cx: &mut HostCx, f: FlowId, kind: TimerKind, generation: u32) -> Kick;

    /// Whether flow `f`'s sender is in fast recovery (congestion control then leaves the
    /// window to it).
    fn in_recovery(&self, _f: FlowId) -> bool {
        false
    }

    /// How flow `f` recovers losses, for its record (`go_back_n`, `irn`, `tcp_newreno`, …).
    fn loss_recovery(&self, f: FlowId) -> &'static str;

    /// The transport's own counters, by name.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// Bytes of the transport's per-flow state (memory report).
    fn state_bytes(&self) -> u64 {
        0
    }
}
