//! Hosts: a NIC that schedules among active flows, the RoCEv2-like reliable transport
//! (sender and receiver) and its congestion control, each in its own module:
//!
//! - `nic`: the NIC scheduler (as the HPCC simulator's `QbbNetDevice`): control packets
//!   (ACK / NACK / CNP) first; then round robin over active flows that flow control lets
//!   send (PFC class or per-flow pause), that are not window-bound and whose rate limiter
//!   allows a packet now (`next_avail ≤ now`; after each packet `next_avail = now +
//!   wire_bytes / rate`). If none is ready, the NIC wakes up at the earliest `next_avail`.
//! - `roce`: the sender — segments, the retransmission timer, ACK / NACK handling
//!   (go-back-N, or IRN's selective retransmission) — and the hooks into congestion
//!   control.
//! - `receiver`: cumulative ACKs every `ack_every` in-order packets, a NACK for the first
//!   missing byte (at most once per `nack_interval` for the same byte), CNPs or ECN echo,
//!   reordering counters.
//! - [`cc`]: the [`CongestionControl`] trait and the [`Cc`] enum of DCQCN, HPCC, TIMELY,
//!   DCTCP. A window-based transport (TCP) plugs in beside `roce` with the same NIC and
//!   the same trait.
//!
//! A flow finishes when its last byte is acknowledged. A flow's path is its source port
//! (ECMP hashes it) and may change mid-flow: nothing caches it.

pub mod cc;
mod flow;
pub mod irn;
pub mod nic;
mod receiver;
mod roce;
pub mod tcp;

pub use cc::{
    Cc, CcParams, CongestionControl, Dcqcn, DcqcnParams, Dctcp, DctcpParams, Hpcc, HpccParams, Timely,
    TimelyParams,
};
pub use flow::Flow;
pub use nic::{FlowKey, NicGate};
pub use tcp::{TcpFlow, TcpParams};

use crate::engine::Event;
use crate::fabric::packet::PacketKind;
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::{FlowId, NodeId, PortId};
use crate::scenario::CcKind;
use crate::time::{Delta, SimTime};

/// Transport settings resolved from the scenario.
#[derive(Clone, Debug)]
pub struct TransportConfig {
    pub mtu: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    pub ack_every: u32,
    pub rto: Delta,
    pub nack_interval: Delta,
    pub cc: CcKind,
    /// Parameters of every congestion control.
    pub cc_params: CcParams,
    /// Bytes INT adds to data packets and to ACKs (0 when INT is off): 42 and 28 in the
    /// HPCC simulator (5 hops × 8 B + 2 B; ACKs grow from 60 to 88 B).
    pub int_data_bytes: u32,
    pub int_ack_bytes: u32,
    /// IRN loss recovery (`None`: go-back-N).
    pub irn: Option<IrnParams>,
    /// 0: echo congestion in ACKs; otherwise send a CNP at most once per interval.
    pub cnp_interval: Delta,
    /// Hop limit (IP TTL) of every packet a host sends.
    pub ttl: u8,
    /// How the NIC paces a flow: the gap after a packet is its serialization time at the
    /// flow's rate, computed as the links compute it (`[links] serialization`).
    pub serialization: crate::time::Serialization,
    /// TCP settings when the hosts run TCP (`transport.kind = "tcp"`).
    pub tcp: Option<TcpParams>,
    /// What rank data packets carry (in their extension fields).
    pub rank: Rank,
    /// Halve a resent segment's rank per resend (Vertigo's marking layer).
    pub rank_boost: bool,
}

/// The rank a sender writes in each data packet (`transport.rank`), read by rank-aware
/// switches (Vertigo, AIFO, Preemptive Deflection): lower is more urgent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rank {
    #[default]
    None,
    /// Shortest remaining processing time: the flow's bytes from this packet on.
    Srpt,
    /// Least attained service: the flow's bytes before this packet.
    Las,
}

/// IRN timeouts (IRN paper §3.1).
#[derive(Clone, Debug)]
pub struct IrnParams {
    pub rto_low: Delta,
    pub rto_high: Delta,
    pub rto_low_packets: u32,
}

/// Every host of a run: their NICs, the flows and the transport they run.
pub struct Hosts {
    /// Per host (by host index).
    pub nodes: Vec<Host>,
    pub flows: Vec<Flow>,
    /// Flow tags, by tag index.
    pub tags: Vec<String>,
    pub cfg: TransportConfig,
    /// Data packets carry INT (`switch.int`).
    pub int_enabled: bool,
    /// Per flow: the INT stack of the last ACK the sender received.
    pub flow_int: Vec<crate::fabric::int::IntStack>,
    /// With a deflection policy: data packets delivered per extra switch hops taken.
    pub extra_hops: Option<Vec<u64>>,
    /// Next flow (in start order) whose `FlowStart` has not been scheduled yet.
    pub next_flow_to_schedule: usize,
    /// The header field senders write ranks in (when switches read ranks).
    pub rank_field: Option<crate::fabric::headers::Field>,
    /// Bolt's header bits (FIRST, LAST, INC, DEC), when hosts run Bolt.
    pub bolt_flags: Option<crate::fabric::headers::Field>,
}

/// One host: its NIC port and the flows it is sending.
pub struct Host {
    pub node: NodeId,
    pub port: PortId,
    /// Flows with data left to send, in round-robin order.
    pub active: Vec<FlowId>,
    pub rr: usize,
    /// Time of the pending `NicWake`, or `NEVER`.
    pub wake_at: SimTime,
}

impl Host {
    pub fn new(node: NodeId, port: PortId) -> Host {
        Host { node, port, active: Vec::new(), rr: 0, wake_at: SimTime::NEVER }
    }
}

impl Hosts {
    /// Data packet `r` arrived with a deflection policy running: count the switch hops it
    /// took beyond its flow's routed path (every switch spent one of its hop limit).
    #[cold]
    #[inline(never)]
    fn count_extra_hops(&mut self, fab: &mut Fabric, r: PacketRef) {
        let p = fab.store.get(r);
        let taken = self.cfg.ttl.saturating_sub(p.ttl) as u32;
        let routed = self.flows[p.flow.idx()].path_hops.saturating_sub(1);
        let extra = taken.saturating_sub(routed) as usize;
        let h = self.extra_hops.as_mut().expect("counting");
        if h.len() <= extra {
            h.resize(extra + 1, 0);
        }
        h[extra] += 1;
    }

    /// Put flow `f` in host `h`'s round-robin list (once; the flow's flag says whether it
    /// is there, so this costs no scan on every ACK).
    pub(crate) fn activate(&mut self, h: usize, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        if !flow.in_active {
            flow.in_active = true;
            self.nodes[h].active.push(f);
        }
    }

    /// A packet reached host `h`.
    pub(crate) fn host_receive<G: NicGate>(&mut self, fab: &mut Fabric, gate: &G, h: usize, r: PacketRef) {
        let tcp = self.cfg.tcp.is_some();
        let kind = fab.store.get(r).kind;
        if kind == PacketKind::Data && self.extra_hops.is_some() {
            self.count_extra_hops(fab, r);
        }
        match kind {
            PacketKind::Data if tcp => self.tcp_receive_data(fab, gate, h, r),
            PacketKind::Data => self.receive_data(fab, gate, h, r),
            PacketKind::Ack | PacketKind::Nack => {
                let pkt = *fab.store.get(r);
                if pkt.has_int() {
                    self.flow_int[pkt.flow.idx()] = fab.int_stacks[r.index()];
                }
                let echo = self.bolt_flags.map_or(0, |f| fab.headers.get(r.index(), f) as u8);
                fab.consume(r);
                if tcp {
                    self.tcp_receive_ack(fab, gate, h, &pkt, echo);
                } else {
                    self.receive_ack(fab, gate, h, &pkt);
                }
            }
            PacketKind::Cnp => {
                let pkt = fab.consume(r);
                if pkt.flags.contains(crate::fabric::packet::PacketFlags::SOURCE_NOTICE) {
                    self.on_source_notice(fab, gate, &pkt);
                } else {
                    self.on_congestion_notification(fab, pkt.flow);
                }
            }
            PacketKind::Control | PacketKind::Marker => {
                unreachable!("control frames are consumed at the port, markers never leave a queue")
            }
        }
    }

    pub(crate) fn on_flow_start<G: NicGate>(&mut self, fab: &mut Fabric, gate: &G, flow: FlowId) {
        self.schedule_next_flow_start(fab);
        let src = self.flows[flow.idx()].src;
        let h = fab.node_slot[src.idx()] as usize;
        self.flows[flow.idx()].last_progress = fab.now;
        self.activate(h, flow);
        self.nic_try_send(fab, gate, h);
    }

    /// Flows start in time order; only the next start is ever pending.
    pub(crate) fn schedule_next_flow_start(&mut self, fab: &mut Fabric) {
        if let Some(f) = self.flows.get(self.next_flow_to_schedule) {
            fab.events
                .schedule(f.start, Event::FlowStart { flow: FlowId(self.next_flow_to_schedule as u32) });
            self.next_flow_to_schedule += 1;
        }
    }
}
