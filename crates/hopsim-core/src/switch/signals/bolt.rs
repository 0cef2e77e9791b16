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
