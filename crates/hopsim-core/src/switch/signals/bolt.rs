//! Bolt's switch (Arslan et al., NSDI 2023, §3): per egress port, on each arriving data
//! packet —
//!
//! - SRC (§3.1): with at least `cc_thresh` bytes queued, clear the packet's INC and, if no
//!   switch before did (its DEC bit), send the sender a source congestion notification
//!   carrying the queue, the link's rate and the packet's send time, and set DEC;
//! - PRU (§3.2): otherwise a LAST packet not of a first window adds a ramp-up token;
//! - SM (§3.3): otherwise an INC request takes a ramp-up token, else a supply token (one
//!   MTU of the bytes the link could have sent beyond what arrived, capped at two MTUs),
//!   else loses its INC.
//!
//! Units, token caps and the order of checks follow the Bolt authors' ns-3 code.

use super::hooks::{SignalBuild, SignalCx, SignalPolicy};
use crate::fabric::headers::Field;
use crate::fabric::packet::Packet;
use crate::host::cc::bolt::flags;
use crate::host::cc::{BoltParams, SourceNotice};
use crate::ids::{NodeId, PortId};
use crate::scenario::CcKind;
use crate::time::{SimTime, PS_PER_S};

/// PRU tokens a port may hold (the Bolt authors' ns-3 code).
const PRU_CAP: u32 = 256;

/// Bolt's state at every switch port.
#[derive(Clone, Debug)]
pub struct BoltSwitches {
    params: BoltParams,
    /// Supply tokens cap and the cost of a grant: the data packet's wire size.
    mtu_bytes: i64,
    ports: Vec<BoltPort>,
    /// SRCs sent.
    pub srcs: u64,
    /// The packets' Bolt header bits (FIRST, LAST, INC, DEC).
    field: Field,
    /// Hop limit of the SRCs.
    ttl: u8,
}

#[derive(Clone, Copy, Debug, Default)]
struct BoltPort {
    pru_tokens: u32,
    sm_tokens: i64,
    last_arrival: SimTime,
}

impl BoltSwitches {
    /// `field`: the packets' Bolt header bits; `ttl`: the SRCs' hop limit.
    pub fn new(params: BoltParams, mtu_bytes: u32, ports: usize, field: Field, ttl: u8) -> BoltSwitches {
        BoltSwitches {
            params,
            mtu_bytes: mtu_bytes as i64,
            ports: vec![BoltPort::default(); ports],
            srcs: 0,
            field,
            ttl,
        }
    }
}

impl SignalPolicy for BoltSwitches {
    const NAME: &'static str = "bolt";
    const ON_ARRIVAL: bool = true;

    /// Runs when any host runs Bolt.
    fn build(b: &mut SignalBuild) -> Option<Self> {
        let t = &b.scenario.transport;
        let bolt = t.cc == CcKind::Bolt || t.groups.iter().any(|g| g.cc == CcKind::Bolt);
        bolt.then(|| {
            let cfg = b.transport;
            let field = b.headers.field("bolt.flags", 8);
            let params = cfg.cc_params.bolt.clone();
            BoltSwitches::new(params, cfg.mtu + cfg.header_bytes, b.ports, field, cfg.ttl)
        })
    }

    /// Data packet `pkt` arrived at switch `node` for `egress`: Bolt's SRC, PRU and SM.
    #[inline(never)]
    fn on_arrival(
        &mut self,
        cx: &mut SignalCx,
        node: NodeId,
        egress: PortId,
        pkt: &Packet,
        slot: usize,
    ) -> Option<Packet> {
        let now = cx.now;
        let port = &cx.ports[egress.idx()];
        let queued = port.backlog_bytes();
        let rate = port.rate.0;
        let size = pkt.wire_bytes as i64;
        let mtu = self.mtu_bytes;
        let state = &mut self.ports[egress.idx()];
        // Supply matching's tokens: what the link could carry since the last arrival,
        // less what arrived.
        if self.params.sm {
            let supply =
                (rate as u128 * now.since(state.last_arrival).0 as u128 / 8 / PS_PER_S as u128) as i64;
            state.sm_tokens = (state.sm_tokens + supply - size).min(2 * mtu);
            state.last_arrival = now;
        }
        let field = self.field;
        let mut bits = cx.headers.get(slot, field) as u8;
        if queued >= self.params.cc_thresh {
            bits &= !flags::INC;
            if bits & flags::DEC == 0 {
                bits |= flags::DEC;
                self.srcs += 1;
                cx.headers.set(slot, field, bits as u64);
                let notice = SourceNotice { queue_bytes: queued, link_rate: rate, sent_at: pkt.sent_at };
                return Some(notice.packet(pkt, node, self.params.src_bytes as u16, self.ttl));
            }
        } else if bits & flags::LAST != 0 {
            if self.params.pru && bits & flags::FIRST == 0 {
                state.pru_tokens = (state.pru_tokens + 1).min(PRU_CAP);
            }
        } else if bits & flags::INC != 0 {
            if self.params.pru && state.pru_tokens > 0 {
                state.pru_tokens -= 1;
            } else if self.params.sm && state.sm_tokens >= mtu {
                state.sm_tokens -= mtu;
            } else {
                bits &= !flags::INC;
            }
        }
        cx.headers.set(slot, field, bits as u64);
        None
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("bolt_srcs", self.srcs)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::headers::{HeaderLayout, Headers};
    use crate::fabric::int::IntStack;
    use crate::fabric::packet::{test_packet, PacketFlags, PacketKind};
    use crate::fabric::port::Port;
    use crate::fabric::store::PacketStore;
    use crate::host::cc::bolt::flags::{DEC, FIRST, INC, LAST};
    use crate::time::{Delta, Rate};

    /// A 1,048 B packet serializes in 838.4 ns at 10 Gb/s.
    const SERIALIZE_PS: u64 = 838_400;

    /// Bolt at one 10 Gb/s switch port (port 0 of node 7), SRCs at 3 packets (3,144 B)
    /// queued; the port holds `queued` packets.
    struct Switch {
        bolt: BoltSwitches,
        ports: Vec<Port>,
        store: PacketStore,
        headers: Headers,
    }

    fn switch(pru: bool, sm: bool, queued: u32) -> Switch {
        let mut layout = HeaderLayout::default();
        let field = layout.field("bolt.flags", 8);
        let params = BoltParams { cc_thresh: 3 * 1048, pru, sm, src_bytes: 64 };
        let mut store = PacketStore::new();
        let mut port = Port::new(NodeId(7), PortId(9), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default());
        for _ in 0..queued {
            let r = store.insert(test_packet(0));
            port.queues.enqueue(&mut store, 0, r);
        }
        Switch {
            bolt: BoltSwitches::new(params, 1048, 1, field, 64),
            ports: vec![port],
            store,
            headers: Headers::new(&layout),
        }
    }

    impl Switch {
        /// A data packet with Bolt bits `bits`, sent at 1 µs, arrives at `ps` ps: its bits
        /// after the switch, and the SRC it sent back, if any.
        fn arrive(&mut self, ps: u64, bits: u8) -> (u8, Option<Packet>) {
            let pkt = Packet { sent_at: SimTime(1_000_000), src: NodeId(3), ..test_packet(0) };
            let slot = 0;
            self.headers.reset(slot);
            self.headers.set(slot, self.bolt.field, bits as u64);
            let mut stacks: Vec<IntStack> = Vec::new();
            let mut cx = SignalCx {
                now: SimTime(ps),
                ports: &self.ports,
                store: &self.store,
                headers: &mut self.headers,
                int_stacks: &mut stacks,
            };
            let src = self.bolt.on_arrival(&mut cx, NodeId(7), PortId(0), &pkt, slot);
            (self.headers.get(slot, self.bolt.field) as u8, src)
        }
    }

    /// Bolt §3.1: a data packet arriving to cc_thresh or more queued makes the switch send
    /// its sender an SRC (queue, link rate, the packet's send time) and set DEC, clearing
    /// INC; a packet already marked DEC by an earlier switch makes none. Below cc_thresh,
    /// nothing.
    #[test]
    fn a_queue_at_cc_thresh_sends_one_src_per_packet() {
        let mut s = switch(true, true, 3);
        let (bits, src) = s.arrive(1_000_000, INC);
        assert_eq!(bits, DEC, "INC cleared, DEC set");
        let src = src.expect("an SRC");
        assert_eq!((src.kind, src.src, src.dst, src.wire_bytes), (PacketKind::Cnp, NodeId(7), NodeId(3), 64));
        assert!(src.flags.contains(PacketFlags::SOURCE_NOTICE));
        let n = SourceNotice::of(&src);
        assert_eq!((n.queue_bytes, n.link_rate, n.sent_at), (3 * 1048, 10_000_000_000, SimTime(1_000_000)));
        let (bits, again) = s.arrive(1_000_000, INC | DEC);
        assert_eq!((bits, again.is_none()), (DEC, true), "one SRC per packet along its path");
        assert_eq!(s.bolt.srcs, 1);
        let mut below = switch(true, true, 2);
        assert!(below.arrive(1_000_000, 0).1.is_none(), "2,096 B queued: below cc_thresh");
        assert_eq!(below.bolt.srcs, 0);
    }

    /// Bolt §3.2 PRU: below cc_thresh a packet of a flow's last window (LAST, not FIRST)
    /// leaves a token, which grants the next increase request (INC kept); without tokens
    /// (and supply matching off) a request is refused (INC cleared).
    #[test]
    fn last_window_packets_leave_tokens_that_grant_increase_requests() {
        let mut s = switch(true, false, 0);
        assert_eq!(s.arrive(1_000, INC).0, 0, "no token yet: refused");
        assert_eq!(s.arrive(2_000, LAST | FIRST).0, LAST | FIRST, "a first window leaves no token");
        assert_eq!(s.arrive(3_000, INC).0, 0);
        s.arrive(4_000, LAST);
        s.arrive(5_000, LAST);
        assert_eq!(s.arrive(6_000, INC).0, INC, "granted from a token");
        assert_eq!(s.arrive(7_000, INC).0, INC, "and the second");
        assert_eq!(s.arrive(8_000, INC).0, 0, "none left");
        let mut off = switch(false, false, 0);
        off.arrive(1_000, LAST);
        assert_eq!(off.arrive(2_000, INC).0, 0, "PRU off: LAST leaves nothing");
    }

    /// Bolt §3.3 SM: the link's supply since the last arrival, less what arrived, builds
    /// tokens (capped at two MTUs); an increase request takes one MTU of them. Packets
    /// arriving back to back at the line rate leave no supply; at half the line rate each
    /// arrival leaves one MTU, so every request is granted.
    #[test]
    fn supply_beyond_demand_grants_increase_requests() {
        let mut s = switch(false, true, 0);
        // 100 µs idle: supply capped at 2 MTUs; the request takes one, leaving one.
        assert_eq!(s.arrive(100_000_000, INC).0, INC);
        assert_eq!(s.bolt.ports[0].sm_tokens, 1048);
        // A second packet at once: its 1,048 B use the rest; no supply left for it.
        assert_eq!(s.arrive(100_000_000, INC).0, 0);
        assert_eq!(s.bolt.ports[0].sm_tokens, 0);
        // Back to back at the line rate: supply equals demand, nothing is granted.
        let mut t = 100_000_000;
        for _ in 0..10 {
            t += SERIALIZE_PS;
            assert_eq!(s.arrive(t, INC).0, 0);
        }
        // At half the line rate every request is granted.
        for _ in 0..10 {
            t += 2 * SERIALIZE_PS;
            assert_eq!(s.arrive(t, INC).0, INC);
        }
        // Supply matching off: the same spacing grants nothing.
        let mut off = switch(false, false, 0);
        assert_eq!(off.arrive(100_000_000, INC).0, 0);
    }
}
