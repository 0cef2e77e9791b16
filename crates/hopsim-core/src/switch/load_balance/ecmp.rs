//! ECMP: per-flow hashing of the 5-tuple (with a per-switch seed) over the shortest-path
//! next hops; the hash function is `[routing] hash` (see `topology::routing`). Every packet
//! of a flow takes the same path, so ECMP never reorders.

use super::hooks::{LbBuild, LbCx, LoadBalancerPolicy};
use crate::fabric::packet::Packet;
use crate::ids::{NodeId, PortId};
use crate::scenario::tagged::NoFields;
use crate::topology::routing::routing_tuple;

/// ECMP at every switch (its state is the routing table's hash seeds).
#[derive(Clone, Copy, Debug, Default)]
pub struct Ecmp;

impl LoadBalancerPolicy for Ecmp {
    const NAME: &'static str = "ecmp";
    type Spec = NoFields;
    const INLINE: bool = true;
    const PARTITIONS: bool = true;

    fn build(_spec: &NoFields, _b: &mut LbBuild) -> Self {
        Ecmp
    }

    #[inline(always)]
    fn select(&mut self, cx: &mut LbCx, node: NodeId, _sw: usize, pkt: &Packet, _slot: usize) -> PortId {
        cx.routing.select(node, routing_tuple(pkt))
    }
}
