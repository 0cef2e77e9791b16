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
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec { load_balancer: LoadBalancerKind::Ecmp, hash: EcmpHash::Mix }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadBalancerKind {
    /// Per-flow hashing over the shortest-path next hops.
    #[default]
    Ecmp,
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
}
