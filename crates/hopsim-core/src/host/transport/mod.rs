//! Transports: the reliable delivery a host runs for its flows (`transport.kind`).
//!
//! Each transport is one file here behind [`TransportPolicy`] (in `hooks`) and one line in
//! the registration list below, which generates the [`Transport`] enum and its dispatch:
//!
//! - `roce`: the RoCEv2-like transport — per-packet or coalesced ACKs, NACKs with
//!   go-back-N or IRN's selective retransmission (`irn`), timeouts, CNPs;
//! - `tcp`: TCP with NewReno fast recovery, optional SACK, RFC 6298 timers, delayed ACKs
//!   and Vertigo's ordering layer;
//! - `mp_rdma`: MP-RDMA, one connection over many virtual paths (a source port per packet,
//!   through `TransportPolicy::source_port`), ACK-clocked by an ECN window, its
//!   out-of-order degree bounded by Δ.
//!
//! A transport keeps its own per-flow state; what all of them share is in `Flow`. A flow's
//! path is its source port (ECMP hashes it), written into each packet as it is cut, so a
//! transport may spread one flow over several paths.

mod hooks;

pub mod irn;
pub mod mp_rdma;
pub mod reorder_buffer;
pub mod roce;
pub mod tcp;

pub use hooks::{HostCx, Kick, TransportPolicy};

use super::flow::Flow;
use crate::engine::TimerKind;
use crate::fabric::packet::Packet;
use crate::fabric::store::PacketRef;
use crate::ids::FlowId;
use crate::time::Delta;

/// Generates the family's enum and dispatch from the registration list.
macro_rules! transport_registry {
    ($( $(#[doc = $doc:literal])* $variant:ident $name:literal => $policy:ty ),+ $(,)?) => {
        /// Which reliable transport the hosts run (`transport.kind`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        pub enum TransportKind {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $variant, )+
        }

        impl TransportKind {
            /// The name scenarios use.
            pub fn name(self) -> &'static str {
                match self {
                    $( TransportKind::$variant => $name, )+
                }
            }

            /// Whether a parallel run may put its senders and receivers in different
            /// partitions ([`TransportPolicy::PARTITIONS`]).
            pub fn partitions(self) -> bool {
                match self {
                    $( TransportKind::$variant => <$policy as TransportPolicy>::PARTITIONS, )+
                }
            }
        }

        /// The transport every host of a run uses, with its per-flow state.
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub enum Transport {
            $( $variant($policy), )+
        }

        impl Transport {
            /// Every kind's name, in registration order.
            pub const KINDS: &'static [&'static str] = &[$( <$policy as TransportPolicy>::NAME ),+];

            /// The kind's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Transport::$variant(_) => <$policy as TransportPolicy>::NAME, )+
                }
            }

            /// Transport `kind` for `flows` flows.
            pub fn build(kind: TransportKind, cfg: &crate::host::TransportConfig, flows: usize) -> Transport {
                match kind {
                    $( TransportKind::$variant => Transport::$variant(<$policy as TransportPolicy>::build(cfg, flows)), )+
                }
            }

            #[inline(always)]
            pub fn next_segment(&mut self, f: FlowId, flow: &Flow, mss: u64) -> Option<(u64, bool)> {
                match self {
                    $( Transport::$variant(t) if <$policy as TransportPolicy>::INLINE => t.next_segment(f, flow, mss), )+
                    _ => self.next_segment_out_of_line(f, flow, mss),
                }
            }

            /// [`Self::next_segment`] of a transport that is not [`TransportPolicy::INLINE`], out of
            /// the event loop's line.
            #[cold]
            #[inline(never)]
            fn next_segment_out_of_line(&mut self, f: FlowId, flow: &Flow, mss: u64) -> Option<(u64, bool)> {
                match self {
                    $( Transport::$variant(t) => t.next_segment(f, flow, mss), )+
                }
            }

            /// Nothing left to send of flow `f`.
            #[inline(always)]
            pub fn all_sent(&mut self, f: FlowId, flow: &Flow, mss: u64) -> bool {
                self.next_segment(f, flow, mss).is_none()
            }

            #[inline(always)]
            pub fn on_sent(&mut self, f: FlowId, flow: &mut Flow, seq: u64, payload: u64, hole: bool) {
                match self {
                    $( Transport::$variant(t) if <$policy as TransportPolicy>::INLINE => t.on_sent(f, flow, seq, payload, hole), )+
                    _ => self.on_sent_out_of_line(f, flow, seq, payload, hole),
                }
            }

            /// [`Self::on_sent`] of a transport that is not [`TransportPolicy::INLINE`], out of
            /// the event loop's line.
            #[cold]
            #[inline(never)]
            fn on_sent_out_of_line(&mut self, f: FlowId, flow: &mut Flow, seq: u64, payload: u64, hole: bool) {
                match self {
                    $( Transport::$variant(t) => t.on_sent(f, flow, seq, payload, hole), )+
                }
            }

            #[inline(always)]
            pub fn source_port(&mut self, f: FlowId, flow: &Flow, seq: u64) -> u16 {
                match self {
                    $( Transport::$variant(t) if <$policy as TransportPolicy>::INLINE => t.source_port(f, flow, seq), )+
                    _ => self.source_port_out_of_line(f, flow, seq),
                }
            }

            /// [`Self::source_port`] of a transport that is not [`TransportPolicy::INLINE`], out of
            /// the event loop's line.
            #[cold]
            #[inline(never)]
            fn source_port_out_of_line(&mut self, f: FlowId, flow: &Flow, seq: u64) -> u16 {
                match self {
                    $( Transport::$variant(t) => t.source_port(f, flow, seq), )+
                }
            }

            #[inline(always)]
            pub fn first_rto(&self, f: FlowId, default: Delta) -> Delta {
                match self {
                    $( Transport::$variant(t) if <$policy as TransportPolicy>::INLINE => t.first_rto(f, default), )+
                    _ => self.first_rto_out_of_line(f, default),
                }
            }

            /// [`Self::first_rto`] of a transport that is not [`TransportPolicy::INLINE`], out of
            /// the event loop's line.
            #[cold]
            #[inline(never)]
            fn first_rto_out_of_line(&self, f: FlowId, default: Delta) -> Delta {
                match self {
                    $( Transport::$variant(t) => t.first_rto(f, default), )+
                }
            }

            #[inline(always)]
            pub fn on_data(&mut self, cx: &mut HostCx, h: usize, r: PacketRef) -> Kick {
                match self {
                    $( Transport::$variant(t) if <$policy as TransportPolicy>::INLINE => t.on_data(cx, h, r), )+
                    _ => self.on_data_out_of_line(cx, h, r),
                }
            }

            /// [`Self::on_data`] of a transport that is not [`TransportPolicy::INLINE`], out of
            /// the event loop's line.
            #[cold]
            #[inline(never)]
            fn on_data_out_of_line(&mut self, cx: &mut HostCx, h: usize, r: PacketRef) -> Kick {
                match self {
                    $( Transport::$variant(t) => t.on_data(cx, h, r), )+
                }
            }

            #[inline(always)]
            pub fn on_ack(&mut self, cx: &mut HostCx, h: usize, p: &Packet, echo: u8) -> Kick {
                match self {
                    $( Transport::$variant(t) if <$policy as TransportPolicy>::INLINE => t.on_ack(cx, h, p, echo), )+
                    _ => self.on_ack_out_of_line(cx, h, p, echo),
                }
            }

            /// [`Self::on_ack`] of a transport that is not [`TransportPolicy::INLINE`], out of
            /// the event loop's line.
            #[cold]
            #[inline(never)]
            fn on_ack_out_of_line(&mut self, cx: &mut HostCx, h: usize, p: &Packet, echo: u8) -> Kick {
                match self {
                    $( Transport::$variant(t) => t.on_ack(cx, h, p, echo), )+
                }
            }

            pub fn on_timer(&mut self, cx: &mut HostCx, f: FlowId, kind: TimerKind, generation: u32) -> Kick {
                match self {
                    $( Transport::$variant(t) => t.on_timer(cx, f, kind, generation), )+
                }
            }

            pub fn in_recovery(&self, f: FlowId) -> bool {
                match self {
                    $( Transport::$variant(t) => t.in_recovery(f), )+
                }
            }

            pub fn loss_recovery(&self, f: FlowId) -> &'static str {
                match self {
                    $( Transport::$variant(t) => t.loss_recovery(f), )+
                }
            }

            /// The transport's counters, by name.
            pub fn counters(&self) -> Vec<(&'static str, u64)> {
                match self {
                    $( Transport::$variant(t) => t.counters(), )+
                }
            }

            /// Bytes of per-flow state.
            pub fn state_bytes(&self) -> u64 {
                match self {
                    $( Transport::$variant(t) => t.state_bytes(), )+
                }
            }
        }
    };
}

// The registration list: one entry per transport (its doc line, its scenario name, its type).
transport_registry! {
    /// The RoCEv2-like transport (go-back-N or IRN) with a rate-based NIC.
    Roce "roce" => roce::Roce,
    /// TCP: a byte stream with a congestion window, NewReno loss recovery and RFC 6298
    /// timers; `transport.cc` is then `"reno"`, `"dctcp"`, `"swift"` or `"bolt"`.
    Tcp "tcp" => tcp::Tcp,
    /// MP-RDMA (Lu et al., NSDI 2018): one connection over many virtual paths (source ports),
    /// an ECN window clocked by per-packet ACKs, out-of-order degree bounded by Δ;
    /// `transport.cc` is then `"none"`.
    MpRdma "mp_rdma" => mp_rdma::MpRdma,
}

impl Default for TransportKind {
    /// RoCE, the transport of RDMA datacenters.
    fn default() -> Self {
        TransportKind::Roce
    }
}
