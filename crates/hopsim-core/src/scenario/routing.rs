//! `[routing]`: shortest-path routing and the load balancer among equal-cost next hops.

use serde::{Deserialize, Serialize};

/// Routing and load balancing.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// Load balancer among equal-cost next hops.
    #[serde(default)]
    pub load_balancer: LoadBalancerKind,
    /// Hash function of ECMP over the 5-tuple, with a per-switch seed.
    #[serde(default)]
    pub hash: EcmpHash,
    /// DRILL's parameters (with `load_balancer = "drill"`).
    #[serde(default)]
    pub drill: Option<DrillSpec>,
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec { load_balancer: LoadBalancerKind::Ecmp, hash: EcmpHash::Mix, drill: None }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadBalancerKind {
    /// Per-flow hashing over the shortest-path next hops.
    #[default]
    Ecmp,
    /// DRILL (Ghorbani et al., SIGCOMM 2017): per packet, the least-loaded of `samples`
    /// random next hops and `memory` remembered ones.
    Drill,
}

/// DRILL(d, m). Defaults d = 2, m = 1: DRILL(2, 1), the setting the DRILL authors
/// recommend (as ConWeave's evaluation uses it, SIGCOMM 2023 §6).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DrillSpec {
    /// Random next hops sampled per packet (d).
    #[serde(default = "two")]
    pub samples: u32,
    /// Least-loaded next hops remembered between decisions (m).
    #[serde(default = "one_u32")]
    pub memory: u32,
}

impl Default for DrillSpec {
    fn default() -> Self {
        DrillSpec { samples: 2, memory: 1 }
    }
}

fn two() -> u32 {
    2
}
fn one_u32() -> u32 {
    1
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcmpHash {
    /// A 64-bit avalanche mix (SplitMix64 finaliser) of the 5-tuple and the switch seed.
    #[default]
    Mix,
    /// CRC-32 (IEEE) of the 5-tuple bytes and the switch seed, output bits rotated per
    /// switch (without that, CRC's linearity polarizes ECMP across tiers).
    Crc32,
    /// The ns-3 RDMA simulator's: MurmurHash3 (32-bit) of the source and destination IPs
    /// ns-3 gives the nodes and the ports, seeded with the switch's node id, over next hops
    /// in ns-3's order — so the same flows take the same paths as in ns-3.
    Ns3,
}
