//! Load balancing: the seam where a switch chooses among the equal-cost egress ports
//! towards a packet's destination.
//!
//! A load balancer may read the packet's fields and the switch's own port state, keep
//! per-switch state (remembered choices, flowlet tables, congestion registers), use the
//! clock and draw from its own random stream per switch. ECMP (per-flow hashing, in
//! `topology::routing`) is the default; DRILL decides per packet from local queue lengths.

mod drill;

pub use drill::{Drill, DrillConfig};

use crate::fabric::packet::Packet;
use crate::fabric::port::Port;
use crate::ids::{NodeId, PortId};
use crate::topology::routing::{routing_tuple, Routing};

/// The load balancer of every switch in a run (`[routing] load_balancer`), with a one-byte
/// tag (see `FlowControl`).
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum LoadBalancer {
    /// Hash of the 5-tuple with a per-switch seed: one path per flow.
    Ecmp,
    /// DRILL (Ghorbani et al., SIGCOMM 2017): per packet, the shortest of a few sampled
    /// local queues.
    Drill(Drill),
}

impl LoadBalancer {
    pub fn name(&self) -> &'static str {
        match self {
            LoadBalancer::Ecmp => "ecmp",
            LoadBalancer::Drill(_) => "drill",
        }
    }

    /// The egress port switch `node` (switch index `sw`) uses for `pkt`; `PortId::NONE`
    /// when link failures left no route.
    #[inline(always)]
    pub fn select(
        &mut self,
        routing: &Routing,
        node: NodeId,
        sw: usize,
        pkt: &Packet,
        ports: &[Port],
    ) -> PortId {
        let tuple = routing_tuple(pkt);
        match self {
            LoadBalancer::Ecmp => routing.select(node, tuple),
            LoadBalancer::Drill(d) => d.select(routing, node, sw, tuple, pkt.kind, ports),
        }
    }
}
