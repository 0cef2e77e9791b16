//! Host congestion control: one trait, one registration list.
//!
//! An algorithm reacts to what its flow's sender sees — ACKs (with their echoed ECN, send
//! time and INT), congestion notifications (CNPs, or ACKs echoing CE), bytes sent, and the
//! timers it asked for — by setting the flow's sending rate (the NIC's rate limiter) and
//! window (the cap on bytes in flight). Every hook has a no-op default, so an algorithm
//! implements only what it uses (the shape of smoltcp's `Controller`).
//!
//! Each algorithm is one file here behind [`CongestionControl`] and one line of the
//! registration list at the end, which generates the scenario's [`CcKind`]
//! (`transport.cc = NAME`, or per host group), the per-flow [`Cc`] enum (static dispatch),
//! the dispatch, the names, which transport each runs on, and the construction. A name may
//! have one implementation per transport (`dctcp`: a rate under RoCE, a window under TCP).
//! An algorithm's parameters are a table of `[transport]` (`[transport.dcqcn]`, ...),
//! gathered in [`CcParams`].

pub mod bolt;
pub mod dcqcn;
pub mod dctcp;
pub mod hpcc;
pub mod reno;
pub mod swift;
pub mod timely;

pub use bolt::{Bolt, BoltParams};
pub use dcqcn::{Dcqcn, DcqcnParams};
pub use dctcp::{Dctcp, DctcpParams};
pub use hpcc::{Hpcc, HpccParams};
pub use reno::{Reno, TcpDctcp, WindowParams};
pub use swift::{Swift, SwiftParams};
pub use timely::{Timely, TimelyParams, TimelyVariant};

use crate::engine::TimerKind;
use crate::fabric::int::IntStack;
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::ids::NodeId;
use crate::scenario::TransportKind;
use crate::time::{Delta, SimTime};

/// Parameters of every algorithm (each flow uses those of its own).
#[derive(Clone, Debug)]
pub struct CcParams {
    pub dcqcn: DcqcnParams,
    pub hpcc: HpccParams,
    pub dctcp: DctcpParams,
    pub timely: TimelyParams,
    /// Window-based (TCP) algorithms.
    pub window: WindowParams,
    pub swift: SwiftParams,
    pub bolt: BoltParams,
}

/// A timer an algorithm asks for: fire `kind` at `at`; `restart` first cancels the
/// pending one of that kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerRequest {
    pub kind: TimerKind,
    pub at: SimTime,
    pub restart: bool,
}

/// What an algorithm sees of its flow, and may change.
pub struct CcFlow<'a> {
    pub now: SimTime,
    /// Sending rate (bits/s), enforced by the NIC's rate limiter.
    pub rate: &'a mut u64,
    /// When the rate limiter next lets the flow send (set by the NIC at each send).
    pub next_avail: &'a mut SimTime,
    /// Cap on bytes in flight (0: none).
    pub window: &'a mut u64,
    pub line_rate: u64,
    /// Base RTT and bandwidth-delay product of the flow's path.
    pub base_rtt: Delta,
    pub bdp: u64,
    /// Next byte to send.
    pub snd_nxt: u64,
    /// Bytes of a full packet on the wire (payload and headers): the smallest window.
    pub packet_bytes: u64,
    /// At most one timer per hook call.
    pub timer: Option<TimerRequest>,
    /// Window-based transports (TCP): the slow-start threshold (bytes), whether the
    /// sender is in fast recovery (the window is then the sender's, not the algorithm's),
    /// the payload bytes of a full segment, and the switch hops of the flow's path.
    pub ssthresh: &'a mut u64,
    pub in_recovery: bool,
    pub mss: u64,
    pub hops: u32,
}

/// An acknowledgement as congestion control sees it.
#[derive(Clone, Copy, Debug)]
pub struct Ack<'a> {
    /// Bytes acknowledged (cumulative).
    pub seq: u64,
    /// The receiver saw CE marks since its last ACK.
    pub ecn_echo: bool,
    /// When the acknowledged packet was sent (echoed).
    pub sent_at: SimTime,
    /// Telemetry of the last ACK (INT on).
    pub int: Option<&'a IntStack>,
    /// Bytes this ACK newly acknowledges (0 for a duplicate).
    pub newly_acked: u64,
    /// Header bits of the acknowledged packet the receiver echoes (Bolt's INC and DEC).
    pub echo_flags: u8,
}

/// A loss the sender detected (window-based transports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    /// Three duplicate ACKs: fast retransmit and fast recovery (RFC 5681 §3.2). `flight`
    /// is the data outstanding when it was detected.
    FastRetransmit { flight: u64 },
    /// The retransmission timer expired (RFC 5681 §3.1, RFC 6298 §5).
    Timeout { flight: u64 },
}

/// A switch's congestion notification straight to the sender (Bolt's SRC, §3.1): the
/// queue it saw, the link's rate and when the packet that triggered it was sent.
#[derive(Clone, Copy, Debug)]
pub struct SourceNotice {
    pub queue_bytes: u64,
    pub link_rate: u64,
    pub sent_at: SimTime,
}

impl SourceNotice {
    /// The packet that carries the notice from a switch to the sender of `data` (the data
    /// packet that triggered it): a notification-class packet on the reversed 5-tuple,
    /// `wire_bytes` long, the queue in its sequence field and the rate (Mb/s) in its SACK
    /// field. [`SourceNotice::of`] reads it back; nothing else encodes or decodes it.
    pub fn packet(&self, data: &Packet, from: NodeId, wire_bytes: u16, ttl: u8) -> Packet {
        Packet {
            kind: PacketKind::Cnp,
            priority: data.priority,
            flags: PacketFlags::NONE.with(PacketFlags::SOURCE_NOTICE, true),
            flow: data.flow,
            src: from,
            dst: data.src,
            sport: data.dport,
            dport: data.sport,
            seq: self.queue_bytes,
            payload: 0,
            sack: (self.link_rate / 1_000_000) as u32,
            wire_bytes,
            sent_at: self.sent_at,
            ingress: 0,
            enq_ns: 0,
            ttl,
        }
    }

    /// The notice a [`packet`](Self::packet) carries.
    pub fn of(p: &Packet) -> SourceNotice {
        SourceNotice { queue_bytes: p.seq, link_rate: p.sack as u64 * 1_000_000, sent_at: p.sent_at }
    }
}

/// What an algorithm's per-flow state is built from.
#[derive(Clone, Copy, Debug)]
pub struct CcBuild {
    /// The sender's NIC rate (bits/s).
    pub line_rate: u64,
    /// The flow's initial window (bytes; 0: none).
    pub window: u64,
    /// Payload bytes of a full segment.
    pub mss: u64,
}

/// A congestion-control algorithm. Every hook defaults to doing nothing.
pub trait CongestionControl {
    /// Whether the algorithm reacts to explicit notifications paced by the receiver
    /// (DCQCN's CNPs); the others read ECN echoed in every ACK.
    const USES_CNP: bool = false;

    /// The algorithm's state for a new flow.
    fn new(b: &CcBuild) -> Self
    where
        Self: Sized;

    /// An ACK (or NACK) arrived.
    fn on_ack(&mut self, _ack: &Ack<'_>, _flow: &mut CcFlow<'_>, _p: &CcParams) {}
    /// A congestion notification arrived: a CNP, or an ACK echoing CE marks.
    fn on_congestion_notification(&mut self, _flow: &mut CcFlow<'_>, _p: &CcParams) {}
    /// The NIC sent `bytes` of the flow (after computing the packet's pacing gap).
    fn on_send(&mut self, _bytes: u64, _flow: &mut CcFlow<'_>, _p: &CcParams) {}
    /// A timer this algorithm asked for fired.
    fn on_timer(&mut self, _kind: TimerKind, _flow: &mut CcFlow<'_>, _p: &CcParams) {}
    /// The sender detected a loss (window-based transports).
    fn on_loss(&mut self, _loss: Loss, _flow: &mut CcFlow<'_>, _p: &CcParams) {}
    /// A switch sent a congestion notification straight to the sender (Bolt's SRC).
    fn on_source_notice(&mut self, _n: &SourceNotice, _flow: &mut CcFlow<'_>, _p: &CcParams) {}
}

/// No congestion control: line rate, window permitting.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineRate;

impl CongestionControl for LineRate {
    fn new(_: &CcBuild) -> Self {
        LineRate
    }
}

/// Generates [`CcKind`], [`Cc`] and their dispatch from the registration list.
macro_rules! cc_registry {
    ($(
        $(#[doc = $doc:literal])*
        $kind:ident $name:literal { $( $transport:ident => $variant:ident($ty:ty) ),+ $(,)? }
    )+) => {
        /// Host congestion control (`transport.cc`, or per host group).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        pub enum CcKind {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $kind, )+
        }

        impl CcKind {
            /// The name scenarios use.
            pub fn name(self) -> &'static str {
                match self {
                    $( CcKind::$kind => $name, )+
                }
            }

            /// Whether the algorithm has an implementation on transport `t`.
            pub fn runs_on(self, t: TransportKind) -> bool {
                match self {
                    $( CcKind::$kind => [$( TransportKind::$transport ),+].contains(&t), )+
                }
            }
        }

        /// Congestion-control state of a flow (static dispatch over the algorithms).
        #[derive(Clone, Debug)]
        pub enum Cc {
            $( $( $variant($ty), )+ )+
        }

        macro_rules! dispatch {
            ($self:ident, $cc:ident => $call:expr) => {
                match $self {
                    $( $( Cc::$variant($cc) => $call, )+ )+
                }
            };
        }

        impl Cc {
            /// Algorithm `kind`'s state for a new flow on transport `t` (which
            /// [`CcKind::runs_on`] accepts; validation refuses the others).
            pub fn build(kind: CcKind, t: TransportKind, b: &CcBuild) -> Cc {
                $( $( if kind == CcKind::$kind && t == TransportKind::$transport {
                    return Cc::$variant(<$ty as CongestionControl>::new(b));
                } )+ )+
                panic!("congestion control {} has no implementation on {t:?}", kind.name())
            }

            /// The scenario name of this congestion control.
            pub fn name(&self) -> &'static str {
                match self {
                    $( $( Cc::$variant(_) => $name, )+ )+
                }
            }

            /// Whether the algorithm reacts to explicit notifications paced by the receiver
            /// (DCQCN's CNPs); the others read ECN echoed in every ACK.
            pub fn uses_cnp(&self) -> bool {
                match self {
                    $( $( Cc::$variant(_) => <$ty as CongestionControl>::USES_CNP, )+ )+
                }
            }
        }
    };
}

// The registration list: one entry per algorithm — its doc line, its scenario name and its
// implementation on each transport it runs on.
cc_registry! {
    /// Send at line rate (window permitting).
    None "none" { Roce => None(LineRate), MpRdma => MpRdmaLineRate(LineRate) }
    /// DCQCN (Zhu et al., SIGCOMM 2015).
    Dcqcn "dcqcn" { Roce => Dcqcn(dcqcn::Dcqcn) }
    /// HPCC (Li et al., SIGCOMM 2019); turns on INT in the switches.
    Hpcc "hpcc" { Roce => Hpcc(hpcc::Hpcc) }
    /// DCTCP (Alizadeh et al., SIGCOMM 2010): its control law on a sending rate under RoCE
    /// (the HPCC simulator's DCTCP mode), on the window under TCP.
    Dctcp "dctcp" { Roce => Dctcp(dctcp::Dctcp), Tcp => TcpDctcp(reno::TcpDctcp) }
    /// TIMELY (Mittal et al., SIGCOMM 2015).
    Timely "timely" { Roce => Timely(timely::Timely) }
    /// TCP NewReno's window (RFC 5681; `transport.kind = "tcp"`).
    Reno "reno" { Tcp => Reno(reno::Reno) }
    /// Swift (Kumar et al., SIGCOMM 2020; `transport.kind = "tcp"`).
    Swift "swift" { Tcp => Swift(swift::Swift) }
    /// Bolt (Arslan et al., NSDI 2023; `transport.kind = "tcp"`).
    Bolt "bolt" { Tcp => Bolt(bolt::Bolt) }
}

impl Default for CcKind {
    /// DCQCN, the congestion control of RoCEv2 deployments.
    fn default() -> Self {
        CcKind::Dcqcn
    }
}

impl Cc {
    #[inline(always)]
    pub fn on_ack(&mut self, ack: &Ack<'_>, flow: &mut CcFlow<'_>, p: &CcParams) {
        dispatch!(self, cc => CongestionControl::on_ack(cc, ack, flow, p))
    }

    #[inline]
    pub fn on_congestion_notification(&mut self, flow: &mut CcFlow<'_>, p: &CcParams) {
        dispatch!(self, cc => cc.on_congestion_notification(flow, p))
    }

    #[inline(always)]
    pub fn on_send(&mut self, bytes: u64, flow: &mut CcFlow<'_>, p: &CcParams) {
        dispatch!(self, cc => cc.on_send(bytes, flow, p))
    }

    #[inline]
    pub fn on_timer(&mut self, kind: TimerKind, flow: &mut CcFlow<'_>, p: &CcParams) {
        dispatch!(self, cc => cc.on_timer(kind, flow, p))
    }

    pub fn on_loss(&mut self, loss: Loss, flow: &mut CcFlow<'_>, p: &CcParams) {
        dispatch!(self, cc => cc.on_loss(loss, flow, p))
    }

    pub fn on_source_notice(&mut self, n: &SourceNotice, flow: &mut CcFlow<'_>, p: &CcParams) {
        dispatch!(self, cc => cc.on_source_notice(n, flow, p))
    }
}
