//! Hosts: the NIC that schedules among active flows, the transport that delivers them
//! reliably and the congestion control that paces them, each behind its own seam:
//!
//! - `core` ([`HostCore`]): what every transport shares — the hosts, their flows (the
//!   fields all transports use, in `flow`), flow start and finish, flow timers, the hooks
//!   into congestion control, extra-hop counts of deflected packets.
//! - `nic`: the NIC scheduler (as the HPCC simulator's `QbbNetDevice`): control packets
//!   (ACK / NACK / CNP) first; then round robin over active flows that flow control lets
//!   send (it answers through [`NicGate`]), that are not window-bound and whose rate
//!   limiter allows a packet now (`next_avail ≤ now`; after each packet `next_avail = now +
//!   wire_bytes / rate`). If none is ready, the NIC wakes up at the earliest `next_avail`.
//! - [`transport`]: the reliable transports behind [`transport::TransportPolicy`], one
//!   registration list — `roce` (per-packet or coalesced ACKs, NACKs with go-back-N or
//!   IRN's selective retransmission in `irn`, timeouts, CNPs) and `tcp` (NewReno fast
//!   recovery, optional SACK, RFC 6298 timers, delayed ACKs, Vertigo's ordering layer),
//!   each with its own per-flow state and its own receiver.
//! - [`cc`]: congestion control behind [`CongestionControl`], one registration list —
//!   DCQCN, HPCC, TIMELY, DCTCP (rate or window), Reno, Swift, Bolt.
//!
//! A flow finishes when its last byte is acknowledged. A flow's path is its source port
//! (ECMP hashes it), written into each packet as it is cut, so it may change per packet
//! (room for MP-RDMA and Hermes): nothing caches it.

pub mod cc;
mod core;
mod flow;
pub mod nic;
pub mod transport;

pub use self::core::HostCore;
pub use cc::{
    Cc, CcParams, CongestionControl, Dcqcn, DcqcnParams, Dctcp, DctcpParams, Hpcc, HpccParams, Timely,
    TimelyParams,
};
pub use flow::{Flow, ReorderCounter};
pub use nic::{FlowKey, NicGate};
pub use transport::tcp::{TcpFlow, TcpParams};
pub use transport::Transport;

use crate::engine::TimerKind;
use crate::fabric::packet::{PacketFlags, PacketKind};
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::ids::{FlowId, NodeId, PortId};
use crate::scenario::CcKind;
use crate::time::{Delta, SimTime};
use transport::HostCx;

/// Transport settings resolved from the scenario.
#[derive(Clone, Debug)]
pub struct TransportConfig {
    pub mtu: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    pub ack_every: u32,
    pub rto: Delta,
    pub nack_interval: Delta,
    /// A NACK also signals congestion (`transport.nack_signals_congestion`).
    pub nack_signals_congestion: bool,
    pub cc: CcKind,
    /// Parameters of every congestion control.
    pub cc_params: CcParams,
    /// Bytes INT adds to data packets and to ACKs (0 when INT is off): 42 and 28 in the
    /// HPCC simulator (5 hops × 8 B + 2 B; ACKs grow from 60 to 88 B).
    pub int_data_bytes: u32,
    pub int_ack_bytes: u32,
    /// IRN loss recovery (`None`: go-back-N).
    pub irn: Option<IrnParams>,
    /// MP-RDMA's settings (`transport.kind = "mp_rdma"`).
    pub mp_rdma: Option<transport::mp_rdma::MpRdmaParams>,
    /// The go-back-N receiver's reorder buffer (`None`: off).
    pub reorder_buffer: Option<transport::reorder_buffer::ReorderBufferParams>,
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
    /// ACKs and NACKs are accounted in their data class at switches (`switch.ack_queue =
    /// "data"`), so the NIC holds them while that class is PAUSEd at its port, as the HPCC
    /// simulator's NIC holds its ACK queue while `ack_q_idx`'s class is paused
    /// (`qbb-net-device.cc`, `RdmaEgressQueue::GetNextQindex`). Without it a lossless
    /// fabric would take ACKs into headroom that a PAUSE was meant to keep free.
    pub acks_obey_pause: bool,
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

/// Every host of a run: their shared state and the transport they run.
pub struct Hosts {
    pub core: HostCore,
    pub transport: Transport,
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
    /// A packet reached host `h`.
    pub(crate) fn host_receive<G: NicGate>(&mut self, fab: &mut Fabric, gate: &G, h: usize, r: PacketRef) {
        let kind = fab.store.get(r).kind;
        if kind == PacketKind::Data && self.core.extra_hops.is_some() {
            self.core.count_extra_hops(fab, r);
        }
        let kick = match kind {
            PacketKind::Data => self.transport.on_data(&mut HostCx { fab, core: &mut self.core }, h, r),
            PacketKind::Ack | PacketKind::Nack => {
                let pkt = *fab.store.get(r);
                let core = &mut self.core;
                if pkt.has_int() {
                    core.flow_int[pkt.flow.idx()] = fab.int_stacks[r.index()];
                }
                let echo = core.bolt_flags.map_or(0, |f| fab.headers.get(r.index(), f) as u8);
                fab.consume(r);
                self.transport.on_ack(&mut HostCx { fab, core }, h, &pkt, echo)
            }
            PacketKind::Cnp => {
                let pkt = fab.consume(r);
                if pkt.flags.contains(PacketFlags::SOURCE_NOTICE) {
                    let in_recovery = self.transport.in_recovery(pkt.flow);
                    self.core.on_source_notice(fab, &pkt, in_recovery)
                } else {
                    self.core.on_congestion_notification(fab, pkt.flow);
                    None
                }
            }
            PacketKind::Control | PacketKind::Marker => {
                unreachable!("control frames are consumed at the port, markers never leave a queue")
            }
        };
        if let Some(h) = kick {
            self.nic_try_send(fab, gate, h);
        }
    }

    pub(crate) fn on_flow_start<G: NicGate>(&mut self, fab: &mut Fabric, gate: &G, flow: FlowId) {
        self.core.schedule_next_flow_start(fab);
        let src = self.core.flows[flow.idx()].src;
        let h = fab.node_slot[src.idx()] as usize;
        self.core.flows[flow.idx()].last_progress = fab.now;
        self.core.activate(h, flow);
        self.nic_try_send(fab, gate, h);
    }

    /// A timer of flow `f` fired (stale ones, and those of finished flows, do nothing).
    pub(crate) fn on_flow_timer<G: NicGate>(
        &mut self,
        fab: &mut Fabric,
        gate: &G,
        f: FlowId,
        kind: TimerKind,
        generation: u32,
    ) {
        let flow = &self.core.flows[f.idx()];
        if flow.timer_gen[kind.slot()] != generation || (flow.finish.is_some() && !kind.at_receiver()) {
            return;
        }
        let kick = self.transport.on_timer(&mut HostCx { fab, core: &mut self.core }, f, kind, generation);
        if let Some(h) = kick {
            self.nic_try_send(fab, gate, h);
        }
    }

    /// The record of every flow, in flow-id order (`deflections`: per flow).
    pub fn flow_records(&self, deflections: &[u32]) -> Vec<crate::metrics::FlowRecord> {
        let c = &self.core;
        c.flows
            .iter()
            .map(|f| f.record(&c.tags, deflections[f.id.idx()], self.transport.loss_recovery(f.id)))
            .collect()
    }
}
