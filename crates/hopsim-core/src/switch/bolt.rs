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

use super::Switches;
use crate::fabric::headers::Field;
use crate::fabric::packet::{Packet, PacketFlags, PacketKind};
use crate::fabric::store::PacketRef;
use crate::fabric::Fabric;
use crate::host::cc::bolt::flags;
use crate::host::cc::BoltParams;
use crate::ids::PortId;
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
}

#[derive(Clone, Copy, Debug, Default)]
struct BoltPort {
    pru_tokens: u32,
    sm_tokens: i64,
    last_arrival: SimTime,
}

impl BoltSwitches {
    /// `field`: the packets' Bolt header bits.
    pub fn new(params: BoltParams, mtu_bytes: u32, ports: usize, field: Field) -> BoltSwitches {
        BoltSwitches {
            params,
            mtu_bytes: mtu_bytes as i64,
            ports: vec![BoltPort::default(); ports],
            srcs: 0,
            field,
        }
    }
}

impl Switches {
    /// Data packet `r` arrived at switch `sw` for `egress`: Bolt's SRC, PRU and SM.
    #[cold]
    #[inline(never)]
    pub(crate) fn bolt_on_arrival(&mut self, fab: &mut Fabric, sw: usize, egress: PortId, r: PacketRef) {
        let now = fab.now;
        let port = &fab.ports[egress.idx()];
        let queued = port.backlog_bytes();
        let rate = port.rate.0;
        let size = fab.store.get(r).wire_bytes as i64;
        let bolt = self.bolt.as_mut().expect("Bolt runs");
        let mtu = bolt.mtu_bytes;
        let state = &mut bolt.ports[egress.idx()];
        // Supply matching's tokens: what the link could carry since the last arrival,
        // less what arrived.
        if bolt.params.sm {
            let supply =
                (rate as u128 * now.since(state.last_arrival).0 as u128 / 8 / PS_PER_S as u128) as i64;
            state.sm_tokens = (state.sm_tokens + supply - size).min(2 * mtu);
            state.last_arrival = now;
        }
        let field = bolt.field;
        let mut bits = fab.headers.get(r.index(), field) as u8;
        if queued >= bolt.params.cc_thresh {
            bits &= !flags::INC;
            if bits & flags::DEC == 0 {
                bits |= flags::DEC;
                bolt.srcs += 1;
                fab.headers.set(r.index(), field, bits as u64);
                self.bolt_send_src(fab, sw, r, queued, rate);
                return;
            }
        } else if bits & flags::LAST != 0 {
            if bolt.params.pru && bits & flags::FIRST == 0 {
                state.pru_tokens = (state.pru_tokens + 1).min(PRU_CAP);
            }
        } else if bits & flags::INC != 0 {
            if bolt.params.pru && state.pru_tokens > 0 {
                state.pru_tokens -= 1;
            } else if bolt.params.sm && state.sm_tokens >= mtu {
                state.sm_tokens -= mtu;
            } else {
                bits &= !flags::INC;
            }
        }
        fab.headers.set(r.index(), field, bits as u64);
    }

    /// Send data packet `r`'s sender an SRC from switch `sw`.
    fn bolt_send_src(&mut self, fab: &mut Fabric, sw: usize, r: PacketRef, queued: u64, link_rate: u64) {
        let data = *fab.store.get(r);
        let bytes = self.bolt.as_ref().expect("Bolt runs").params.src_bytes;
        let node = self.nodes[sw].node;
        let src = Packet {
            kind: PacketKind::Cnp,
            priority: data.priority,
            flags: PacketFlags::NONE.with(PacketFlags::SOURCE_NOTICE, true),
            flow: data.flow,
            src: node,
            dst: data.src,
            sport: data.dport,
            dport: data.sport,
            seq: queued,
            payload: 0,
            sack: (link_rate / 1_000_000) as u32,
            wire_bytes: bytes as u16,
            sent_at: data.sent_at,
            ingress: 0,
            enq_ns: 0,
            ttl: self.ttl,
        };
        let s = fab.store.insert(src);
        fab.headers.reset(s.index());
        let egress = self.lb.select(fab, node, sw, &src, s);
        if egress == PortId::NONE {
            fab.consume(s);
            return;
        }
        fab.store.push_back(&mut fab.ports[egress.idx()].control_queue, s);
        self.switch_try_send(fab, egress);
    }
}
