//! `[topology]`: the network graph.

use super::tagged::kind_tagged;
use super::{delay_1us, one, rate_100g, Duration, RateSpec};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The network graph.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TopologySpec {
    /// Two-tier leaf-spine (2-tier Clos): every leaf connects to every spine.
    LeafSpine(LeafSpineSpec),
    /// Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods, k³/4 hosts.
    FatTree(FatTreeSpec),
    /// Two switches joined by one bottleneck link, hosts on either side.
    Dumbbell(DumbbellSpec),
    /// A topology file, e.g. the HPCC ns-3 simulator's `fat.txt`.
    File(TopologyFileSpec),
}

kind_tagged!(TopologySpec { "leaf_spine" => LeafSpine, "fat_tree" => FatTree, "dumbbell" => Dumbbell, "file" => File });

/// Two-tier leaf-spine (2-tier Clos): every leaf connects to every spine.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineSpec {
    pub spines: u32,
    pub leaves: u32,
    pub hosts_per_leaf: u32,
    #[serde(default = "rate_100g")]
    pub host_rate: RateSpec,
    #[serde(default = "rate_100g")]
    pub fabric_rate: RateSpec,
    #[serde(default = "delay_1us")]
    pub host_delay: Duration,
    #[serde(default = "delay_1us")]
    pub fabric_delay: Duration,
    /// Parallel links between each leaf and each spine.
    #[serde(default = "one")]
    pub links_per_spine: u32,
}

/// Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods, k³/4 hosts.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    pub k: u32,
    #[serde(default = "rate_100g")]
    pub host_rate: RateSpec,
    #[serde(default = "rate_100g")]
    pub fabric_rate: RateSpec,
    #[serde(default = "delay_1us")]
    pub delay: Duration,
}

/// Two switches joined by one bottleneck link, hosts on either side.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub left_hosts: u32,
    pub right_hosts: u32,
    #[serde(default = "rate_100g")]
    pub host_rate: RateSpec,
    #[serde(default = "rate_100g")]
    pub bottleneck_rate: RateSpec,
    #[serde(default = "delay_1us")]
    pub delay: Duration,
}

/// A topology file, e.g. the HPCC ns-3 simulator's `fat.txt`.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologyFileSpec {
    pub file: PathBuf,
    #[serde(default)]
    pub format: TopologyFormat,
}

/// Format of a topology file. Only the HPCC simulator's format is read; any other name
/// is refused (it would otherwise be parsed as HPCC text).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TopologyFormat {
    /// `nodes switches links` / switch ids / `a b RATE DELAY error_rate` per link.
    #[default]
    Hpcc,
}
