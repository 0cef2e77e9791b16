//! Host congestion control: one trait, one enum.
//!
//! An algorithm reacts to what its flow's sender sees — ACKs (with their echoed ECN, send
//! time and INT), congestion notifications (CNPs, or ACKs echoing CE), bytes sent, and the
//! timers it asked for — by setting the flow's sending rate (the NIC's rate limiter) and
//! window (the cap on bytes in flight). Every hook has a no-op default, so an algorithm
//! implements only what it uses (the shape of smoltcp's `Controller`). [`Cc`] gathers the
//! algorithms for static dispatch; a scenario picks one per flow (`transport.cc`, or per
//! host group).

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

/// A congestion-control algorithm. Every hook defaults to doing nothing.
pub trait CongestionControl {
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

impl CongestionControl for LineRate {}

/// Congestion-control state of a flow (static dispatch over the algorithms).
#[derive(Clone, Debug)]
pub enum Cc {
    None(LineRate),
    Dcqcn(Dcqcn),
    Hpcc(Hpcc),
    Dctcp(Dctcp),
    Timely(Timely),
    /// TCP NewReno's window (RFC 5681).
    Reno(Reno),
    /// DCTCP's window (Alizadeh et al., SIGCOMM 2010).
    TcpDctcp(TcpDctcp),
    /// Swift (Kumar et al., SIGCOMM 2020).
    Swift(Swift),
    /// Bolt (Arslan et al., NSDI 2023).
    Bolt(Bolt),
}

macro_rules! dispatch {
    ($self:ident, $cc:ident => $call:expr) => {
        match $self {
            Cc::None($cc) => $call,
            Cc::Dcqcn($cc) => $call,
            Cc::Hpcc($cc) => $call,
            Cc::Dctcp($cc) => $call,
            Cc::Timely($cc) => $call,
            Cc::Reno($cc) => $call,
            Cc::TcpDctcp($cc) => $call,
            Cc::Swift($cc) => $call,
            Cc::Bolt($cc) => $call,
        }
    };
}

impl Cc {
    /// The scenario name of this congestion control.
    pub fn name(&self) -> &'static str {
        match self {
            Cc::None(_) => "none",
            Cc::Dcqcn(_) => "dcqcn",
            Cc::Hpcc(_) => "hpcc",
            Cc::Dctcp(_) => "dctcp",
            Cc::Timely(_) => "timely",
            Cc::Reno(_) => "reno",
            Cc::TcpDctcp(_) => "dctcp",
            Cc::Swift(_) => "swift",
            Cc::Bolt(_) => "bolt",
        }
    }

    /// Whether the algorithm reacts to explicit notifications paced by the receiver
    /// (DCQCN's CNPs); the others read ECN echoed in every ACK.
    pub fn uses_cnp(&self) -> bool {
        matches!(self, Cc::Dcqcn(_))
    }

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

impl CongestionControl for Dcqcn {
    fn on_congestion_notification(&mut self, f: &mut CcFlow<'_>, p: &CcParams) {
        if let Some(at) = self.on_cnp(f.now, &p.dcqcn) {
            f.timer = Some(TimerRequest { kind: TimerKind::DcqcnDecrease, at, restart: false });
        }
    }

    fn on_send(&mut self, bytes: u64, f: &mut CcFlow<'_>, p: &CcParams) {
        self.on_bytes_sent(bytes, &p.dcqcn, f.rate, f.line_rate);
    }

    fn on_timer(&mut self, kind: TimerKind, f: &mut CcFlow<'_>, p: &CcParams) {
        match kind {
            TimerKind::DcqcnDecrease => {
                if let Some(at) = self.on_decrease_check(f.now, &p.dcqcn, f.rate) {
                    f.timer = Some(TimerRequest { kind: TimerKind::DcqcnIncrease, at, restart: true });
                }
            }
            TimerKind::DcqcnIncrease => {
                if let Some(at) = self.on_increase_timer(f.now, &p.dcqcn, f.rate, f.line_rate) {
                    f.timer = Some(TimerRequest { kind, at, restart: false });
                }
            }
            _ => {}
        }
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        if let Some(r) = Dctcp::on_ack(self, ack.seq, ack.ecn_echo, f.snd_nxt, *f.rate, f.line_rate, &p.dctcp)
        {
            *f.rate = r;
        }
    }
}

impl CongestionControl for Timely {
    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        let t = &p.timely;
        let rate = match t.variant {
            TimelyVariant::Paper => Timely::on_ack(
                self,
                f.now,
                ack.sent_at,
                ack.seq,
                f.snd_nxt,
                *f.rate,
                f.line_rate,
                f.base_rtt,
                t,
            ),
            TimelyVariant::Ns3 => {
                self.on_ack_ns3(f.now, ack.sent_at, ack.seq, f.snd_nxt, *f.rate, f.line_rate, t)
            }
        };
        if let Some(r) = rate {
            *f.rate = r;
        }
    }
}

impl CongestionControl for Hpcc {
    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        let Some(int) = ack.int else { return };
        if let Some(rate) = Hpcc::on_ack(self, int, ack.seq, f.snd_nxt, f.base_rtt, f.line_rate, &p.hpcc) {
            *f.rate = rate;
            // The window, if the flow has one, follows the rate (the HPCC simulator's
            // VAR_WIN).
            if *f.window != 0 {
                *f.window = ((f.bdp as u128 * rate as u128 / f.line_rate as u128) as u64).max(f.packet_bytes);
            }
        }
    }
}
