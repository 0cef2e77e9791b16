//! MP-RDMA (Lu et al., "Multi-Path Transport for RDMA in Datacenters", NSDI 2018): one
//! RDMA connection spread over many virtual paths (VPs), a VP being a UDP source port that
//! ECMP hashes onto some path.
//!
//! - **Multi-path ACK clocking** (§3.2). The connection keeps one congestion window `cwnd`
//!   (packets) and no per-path state. The receiver acknowledges every packet on the VP it
//!   came by (the ACK echoes its source port and its ECN mark). An ACK without a mark grows
//!   the window by 1/cwnd and clocks out 1 + 1/cwnd packets: one on the ACK's VP, the
//!   fractions adding up to packets on new VPs (probing new paths); a marked ACK shrinks it
//!   by 1/2 and clocks out half a packet on its VP. Congested VPs thus carry less. The first
//!   window goes out on new VPs.
//! - **Out-of-order aware path selection** (§3.3). The sender sends new data only below
//!   `snd_una + Δ` packets, so the receiver's out-of-order degree stays within Δ; the
//!   receiver tracks Δ packets beyond its cumulative point in a bitmap and drops anything
//!   beyond. An ACK for a packet lagging more than `prune_lag` packets behind the highest
//!   acknowledged one (`snd_ooh`) marks its VP slow: its clocked packet goes to a new VP.
//! - **Loss recovery**: a head packet still missing once the rest of the Δ window is
//!   acknowledged (`snd_ooh ≥ snd_una + Δ`), or a retransmission timeout, starts a recovery
//!   in which the ACK clock resends each unacknowledged packet below the highest sent, once,
//!   before new data; a timeout also restarts the clock with one packet on a new VP.
//!
//! Choices where the paper leaves room (docs/model.md, "MP-RDMA"): new VPs are drawn by a
//! hash of the flow and a counter (deterministic; ECMP's seeded hash maps them to paths);
//! the first window is the flow's BDP; the clock's quota is capped at the window; the
//! synchronise mechanism (§3.4) is not modelled — hopsim's flows are one message each,
//! complete when every byte is acknowledged.

use super::hooks::{HostCx, Kick, TransportPolicy};
use super::irn::PacketBitmap;
use crate::engine::{Event, TimerKind};
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::store::PacketRef;
use crate::host::flow::Flow;
use crate::ids::FlowId;
use crate::time::Delta;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[transport.mp_rdma]` (with `transport.kind = "mp_rdma"`).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MpRdmaSpec {
    /// Δ, the largest out-of-order degree (packets): the sender sends new data only below
    /// `snd_una + Δ` and the receiver's bitmap spans Δ packets. Default 64: the public ns-3
    /// port (`Cherries-Man/NS3-MP-RDMA`, `mp-rdma-hw.h`, `m_delta`).
    #[serde(default = "default_delta")]
    pub delta: u32,
    /// An ACK of a packet more than this many packets behind the highest acknowledged one
    /// marks its VP slow (§3.3). Default Δ / 2: hopsim's choice.
    #[serde(default)]
    pub prune_lag: Option<u32>,
    /// The first window (packets). Default: the flow's bandwidth-delay product, as RoCE
    /// flows start at line rate (hopsim's choice; the paper does not give one).
    #[serde(default)]
    pub initial_window: Option<u32>,
}

fn default_delta() -> u32 {
    64
}

impl Default for MpRdmaSpec {
    fn default() -> Self {
        MpRdmaSpec { delta: default_delta(), prune_lag: None, initial_window: None }
    }
}

/// The resolved settings.
#[derive(Clone, Copy, Debug)]
pub struct MpRdmaParams {
    pub delta: u64,
    pub prune_lag: u64,
    pub initial_window: Option<u32>,
}

impl MpRdmaSpec {
    /// The settings; errors name the field.
    pub fn resolve(&self) -> Result<MpRdmaParams, crate::scenario::ScenarioError> {
        use crate::scenario::error::check;
        check(self.delta > 0, "transport.mp_rdma.delta", "expected a positive packet count")?;
        let prune_lag = self.prune_lag.unwrap_or(self.delta / 2);
        check(
            prune_lag > 0 && prune_lag < self.delta,
            "transport.mp_rdma.prune_lag",
            "expected a packet count in 1 .. delta",
        )?;
        if let Some(w) = self.initial_window {
            check(w > 0, "transport.mp_rdma.initial_window", "expected a positive packet count")?;
        }
        Ok(MpRdmaParams {
            delta: self.delta as u64,
            prune_lag: prune_lag as u64,
            initial_window: self.initial_window,
        })
    }
}

/// One connection's state, sender and receiver.
#[derive(Clone, Debug, Default)]
struct MpFlow {
    started: bool,
    /// Congestion window, packets.
    cwnd: f64,
    /// The ACK clock's quota: the VP (source port) of each packet it lets go, in order.
    quota: VecDeque<u16>,
    /// Fractions of a packet earned: by unmarked ACKs (for new VPs) and marked ones.
    probe_credit: f64,
    half_credit: f64,
    /// VPs drawn so far (the next draw's counter).
    vps: u64,
    /// Packets acknowledged (by index) and the highest acknowledged index + 1.
    acked: PacketBitmap,
    snd_ooh: u64,
    /// Recovery: until the cumulative ACK reaches this byte; the next byte to examine.
    recovery_end: Option<u64>,
    retransmit_next: u64,
    /// Receiver: packets received beyond the cumulative point.
    received: PacketBitmap,
}

/// The MP-RDMA transport of every host.
#[derive(Clone, Debug)]
pub struct MpRdma {
    p: MpRdmaParams,
    flows: Vec<MpFlow>,
    /// VPs opened, slow VPs left, packets the receiver dropped beyond Δ, recoveries, and
    /// the largest out-of-order degree a receiver saw (packets beyond its cumulative point).
    opened: u64,
    pruned: u64,
    beyond_delta: u64,
    recoveries: u64,
    max_ooo: u64,
}

/// A new VP: a source port in 49152–65535 (the dynamic range the public ns-3 port draws
/// from), from a SplitMix64 hash of the flow and the draw's counter.
fn vp_port(f: FlowId, n: u64) -> u16 {
    let mut z = ((f.0 as u64) << 32 | (n & 0xffff_ffff)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    49152 + (z % 16384) as u16
}

impl MpRdma {
    fn new_vp(&mut self, f: FlowId) -> u16 {
        let s = &mut self.flows[f.idx()];
        s.vps += 1;
        self.opened += 1;
        vp_port(f, s.vps)
    }

    /// The first window, on new VPs.
    fn start(&mut self, f: FlowId, flow: &Flow, mss: u64) {
        let w = self.p.initial_window.map_or(flow.bdp.div_ceil(mss).max(1), |w| w as u64);
        self.flows[f.idx()].started = true;
        self.flows[f.idx()].cwnd = w as f64;
        for _ in 0..w {
            let port = self.new_vp(f);
            self.flows[f.idx()].quota.push_back(port);
        }
    }

    /// Queue a packet on `port`, the quota capped at the window.
    fn clock(&mut self, f: FlowId, port: u16) {
        let s = &mut self.flows[f.idx()];
        if (s.quota.len() as f64) < s.cwnd.ceil() {
            s.quota.push_back(port);
        }
    }

    /// The next hole to resend in recovery (advances past acknowledged packets).
    fn next_hole(&mut self, f: FlowId, flow: &Flow, mss: u64) -> Option<u64> {
        let s = &mut self.flows[f.idx()];
        let end = s.recovery_end?;
        s.retransmit_next = s.retransmit_next.max(flow.snd_una);
        while s.retransmit_next < end.min(flow.snd_nxt) {
            let seq = s.retransmit_next;
            if !s.acked.get(seq / mss) {
                return Some(seq);
            }
            s.retransmit_next += mss;
        }
        None
    }
}

impl TransportPolicy for MpRdma {
    fn build(cfg: &crate::host::TransportConfig, flows: usize) -> Self {
        let p = cfg.mp_rdma.expect("mp_rdma settings resolved with transport.kind = \"mp_rdma\"");
        MpRdma {
            p,
            flows: vec![MpFlow::default(); flows],
            opened: 0,
            pruned: 0,
            beyond_delta: 0,
            recoveries: 0,
            max_ooo: 0,
        }
    }

    const NAME: &'static str = "mp_rdma";
    /// Virtual paths and the ACK clock at the sender, the out-of-order bitmap at the
    /// receiver; counts summed, the largest out-of-order distance the largest
    /// (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn next_segment(&mut self, f: FlowId, flow: &Flow, mss: u64) -> Option<(u64, bool)> {
        if !self.flows[f.idx()].started {
            self.start(f, flow, mss);
        }
        if self.flows[f.idx()].quota.is_empty() {
            return None; // wait for the ACK clock
        }
        if let Some(seq) = self.next_hole(f, flow, mss) {
            return Some((seq, true));
        }
        let limit = (flow.snd_una / mss + self.p.delta) * mss;
        (flow.snd_nxt < flow.size && flow.snd_nxt < limit).then_some((flow.snd_nxt, false))
    }

    fn source_port(&mut self, f: FlowId, flow: &Flow, _seq: u64) -> u16 {
        self.flows[f.idx()].quota.pop_front().unwrap_or(flow.sport)
    }

    fn on_sent(&mut self, f: FlowId, flow: &mut Flow, seq: u64, payload: u64, hole: bool) {
        if hole {
            self.flows[f.idx()].retransmit_next = seq + payload;
        } else {
            flow.snd_nxt += payload;
        }
    }

    fn first_rto(&self, _f: FlowId, default: Delta) -> Delta {
        default
    }

    /// Receiver: ACK every packet within Δ of the cumulative point on its own VP, with its
    /// index and ECN mark; drop what lies beyond.
    fn on_data(&mut self, cx: &mut HostCx, h: usize, r: PacketRef) -> Kick {
        let fab = &mut *cx.fab;
        let core = &mut *cx.core;
        let data = *fab.store.get(r);
        fab.counters.data_packets_delivered += 1;
        let t = &core.cfg;
        let mtu = t.mtu as u64;
        let flow = &mut core.flows[data.flow.idx()];
        let s = &mut self.flows[data.flow.idx()];
        let index = data.seq / mtu;
        let next = flow.rcv_nxt / mtu;
        if index >= next + self.p.delta {
            self.beyond_delta += 1;
            fab.consume(r);
            return None;
        }
        flow.reorder.on_arrival(data.seq, data.payload as u32, data.retransmit());
        let new_data = data.seq >= flow.rcv_nxt && !s.received.get(index);
        if new_data {
            if let Some(tp) = &mut fab.obs.throughput {
                tp.add(fab.now, data.flow, data.payload as u64);
            }
        }
        if data.seq == flow.rcv_nxt {
            flow.rcv_nxt = (flow.rcv_nxt + data.payload as u64).min(flow.size);
            while flow.rcv_nxt < flow.size && s.received.get(flow.rcv_nxt / mtu) {
                flow.rcv_nxt = (flow.rcv_nxt + mtu).min(flow.size);
            }
        } else if data.seq > flow.rcv_nxt {
            s.received.set(index);
            self.max_ooo = self.max_ooo.max(index - next);
        }
        let int = data.has_int();
        let ack = Packet {
            kind: PacketKind::Ack,
            priority: data.priority,
            flags: PacketFlags::NONE.with(PacketFlags::CNP_ECHO, data.ecn_ce()).with(PacketFlags::INT, int),
            flow: data.flow,
            src: data.dst,
            dst: data.src,
            sport: data.dport,
            dport: data.sport,
            seq: flow.rcv_nxt,
            payload: 0,
            sack: index as u32,
            wire_bytes: (t.ack_bytes + if int { t.int_ack_bytes } else { 0 }) as u16,
            sent_at: data.sent_at,
            ingress: 0,
            enq_ns: 0,
            ttl: t.ttl,
        };
        *fab.store.get_mut(r) = ack;
        let port = core.nodes[h].port;
        fab.store.push_back(&mut fab.ports[port.idx()].control_queue, r);
        Some(h)
    }

    /// Sender: the ACK clock (window and VPs), Δ and recovery.
    fn on_ack(&mut self, cx: &mut HostCx, h: usize, p: &Packet, _echo: u8) -> Kick {
        let now = cx.fab.now;
        let core = &mut *cx.core;
        let mss = core.cfg.mtu as u64;
        let flow = &mut core.flows[p.flow.idx()];
        if flow.finish.is_some() {
            return None;
        }
        if p.seq > flow.snd_una {
            flow.snd_una = p.seq;
            flow.last_progress = now;
        }
        flow.snd_nxt = flow.snd_nxt.max(flow.snd_una);
        if flow.snd_una >= flow.size {
            core.finish_flow(cx.fab, h, p.flow);
            return None;
        }
        let f = p.flow;
        let index = p.sack as u64;
        let vp = p.dport; // the ACK's destination port is the data packet's source port
        let s = &mut self.flows[f.idx()];
        if s.recovery_end.is_some_and(|end| flow.snd_una >= end) {
            s.recovery_end = None;
        }
        if !s.acked.get(index) {
            s.acked.set(index);
            s.snd_ooh = s.snd_ooh.max(index + 1);
            let slow = index + self.p.prune_lag < s.snd_ooh;
            if p.cnp_echo() {
                // §3.2: a marked ACK takes half a packet off the window and clocks out half.
                s.cwnd = (s.cwnd - 0.5).max(1.0);
                s.half_credit += 0.5;
                if s.half_credit >= 1.0 {
                    s.half_credit -= 1.0;
                    let port = if slow { self.new_vp(f) } else { vp };
                    self.clock(f, port);
                }
            } else {
                // §3.2: an unmarked ACK adds 1/cwnd and clocks out 1 + 1/cwnd packets.
                let s = &mut self.flows[f.idx()];
                s.probe_credit += 1.0 / s.cwnd;
                s.cwnd += 1.0 / s.cwnd;
                let port = if slow { self.new_vp(f) } else { vp };
                self.clock(f, port);
                while self.flows[f.idx()].probe_credit >= 1.0 {
                    self.flows[f.idx()].probe_credit -= 1.0;
                    let port = self.new_vp(f);
                    self.clock(f, port);
                }
            }
            if slow {
                self.pruned += 1;
            }
            // A window of at least one packet: with nothing in flight and nothing clocked
            // (a marked ACK's half packet), one packet still goes, on the ACK's VP.
            if self.flows[f.idx()].quota.is_empty() && flow.snd_nxt <= flow.snd_una {
                self.flows[f.idx()].quota.push_back(vp);
            }
            // The head is missing while the rest of the Δ window is acknowledged: lost.
            let s = &mut self.flows[f.idx()];
            if s.recovery_end.is_none() && s.snd_ooh >= flow.snd_una / mss + self.p.delta {
                s.recovery_end = Some(flow.snd_nxt);
                s.retransmit_next = flow.snd_una;
                self.recoveries += 1;
            }
        }
        if !flow.in_active && self.next_segment(f, flow, mss).is_some() {
            flow.in_active = true;
            core.nodes[h].active.push(f);
        }
        Some(h)
    }

    fn on_timer(&mut self, cx: &mut HostCx, f: FlowId, kind: TimerKind, generation: u32) -> Kick {
        if kind != TimerKind::Rto {
            cx.core.cc_timer(cx.fab, f, kind);
            return None;
        }
        let now = cx.fab.now;
        let core = &mut *cx.core;
        let flow = &mut core.flows[f.idx()];
        flow.rto_pending = false;
        if flow.snd_una >= flow.snd_nxt {
            return None;
        }
        let deadline = flow.last_progress + core.cfg.rto;
        if now < deadline {
            flow.rto_pending = true;
            cx.fab.events.schedule(deadline, Event::FlowTimer { flow: f, kind, generation });
            return None;
        }
        // Timeout: resend everything unacknowledged; restart the clock on a new VP.
        flow.timeouts += 1;
        flow.last_progress = now;
        let s = &mut self.flows[f.idx()];
        s.recovery_end = Some(flow.snd_nxt);
        s.retransmit_next = flow.snd_una;
        s.quota.clear();
        self.recoveries += 1;
        let port = self.new_vp(f);
        self.flows[f.idx()].quota.push_back(port);
        let h = cx.fab.node_slot[flow.src.idx()] as usize;
        core.activate(h, f);
        Some(h)
    }

    fn loss_recovery(&self, _f: FlowId) -> &'static str {
        "mp_rdma"
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("mp_rdma_virtual_paths", self.opened),
            ("mp_rdma_slow_paths", self.pruned),
            ("mp_rdma_beyond_delta", self.beyond_delta),
            ("mp_rdma_recoveries", self.recoveries),
            ("mp_rdma_max_out_of_order", self.max_ooo),
        ]
    }

    fn state_bytes(&self) -> u64 {
        (self.flows.capacity() * std::mem::size_of::<MpFlow>()) as u64
            + self
                .flows
                .iter()
                .map(|s| s.acked.heap_bytes() + s.received.heap_bytes() + (s.quota.capacity() * 2) as u64)
                .sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_paths_are_deterministic_dynamic_ports_and_differ() {
        let a: Vec<u16> = (1..=8).map(|n| vp_port(FlowId(3), n)).collect();
        let b: Vec<u16> = (1..=8).map(|n| vp_port(FlowId(3), n)).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|&p| p >= 49152));
        let mut d = a.clone();
        d.sort_unstable();
        d.dedup();
        assert!(d.len() >= 7, "draws spread: {a:?}");
        assert_ne!(vp_port(FlowId(4), 1), vp_port(FlowId(3), 1));
    }
}
