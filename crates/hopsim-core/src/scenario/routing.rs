//! `[routing]`: shortest-path routing, its ECMP hash, and the load balancer among
//! equal-cost next hops (`load_balancer = NAME`, its parameters in `[routing.NAME]`; each
//! balancer owns its table, see `switch::load_balance`).

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tagged;
pub use crate::switch::load_balance::LoadBalancerSpec;

/// Routing and load balancing.
#[derive(Clone, Debug, Default)]
pub struct RoutingSpec {
    /// Load balancer among equal-cost next hops, with its table. Default ECMP.
    pub load_balancer: LoadBalancerSpec,
    /// Hash function of ECMP over the 5-tuple, with a per-switch seed.
    pub hash: EcmpHash,
}

impl<'de> Deserialize<'de> for RoutingSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = serde_json::Map::<String, Value>::deserialize(d)?;
        let hash = match map.remove("hash") {
            Some(v) => tagged::inner(v).map_err(|e: D::Error| rename(e, "hash"))?,
            None => EcmpHash::default(),
        };
        let kind = match map.remove("load_balancer") {
            Some(Value::String(k)) => k,
            Some(other) => {
                return Err(tagged::nested(
                    "load_balancer",
                    format!("expected a load balancer name, got {other}"),
                ))
            }
            None => "ecmp".to_string(),
        };
        if !LoadBalancerSpec::KINDS.contains(&kind.as_str()) {
            let expected =
                LoadBalancerSpec::KINDS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            return Err(tagged::nested(
                "load_balancer",
                format!("unknown variant `{kind}`, expected one of {expected}"),
            ));
        }
        // A table for another balancer than the one chosen is a mistake the user should hear of.
        if let Some(other) = map.keys().find(|k| LoadBalancerSpec::KINDS.contains(&k.as_str()) && **k != kind)
        {
            return Err(tagged::nested(
                other,
                format!(
                    "given, but routing.load_balancer is \"{kind}\"; set load_balancer = \"{other}\" or drop \
                     the table (on the command line: --unset routing.{other})"
                ),
            ));
        }
        let table = map.remove(&kind);
        if let Some(unknown) = map.keys().next() {
            let mut expected = vec!["`load_balancer`".to_string(), "`hash`".to_string()];
            expected.extend(LoadBalancerSpec::KINDS.iter().map(|k| format!("`{k}`")));
            return Err(de::Error::custom(format!(
                "unknown field `{unknown}`, expected one of {}",
                expected.join(", ")
            )));
        }
        let load_balancer = LoadBalancerSpec::with_table::<D::Error>(&kind, table).map_err(|e| {
            let msg = e.to_string();
            match tagged::split_nested(&msg) {
                Some((p, m)) => tagged::nested(&tagged::join_path(&kind, p), m),
                None => tagged::nested(&kind, msg),
            }
        })?;
        Ok(RoutingSpec { load_balancer, hash })
    }
}

/// An error inside the value of field `field`, with that field in its path.
fn rename<E: de::Error>(e: E, field: &str) -> E {
    let msg = e.to_string();
    match tagged::split_nested(&msg) {
        Some((p, m)) => tagged::nested(&tagged::join_path(field, p), m),
        None => tagged::nested(field, msg),
    }
}

impl schemars::JsonSchema for RoutingSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RoutingSpec".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut props = serde_json::Map::new();
        props.insert(
            "load_balancer".into(),
            serde_json::json!({
                "description": "Load balancer among equal-cost next hops; its parameters in `[routing.NAME]`.",
                "enum": LoadBalancerSpec::KINDS,
                "default": "ecmp",
            }),
        );
        let hash = g.subschema_for::<EcmpHash>().to_value();
        props.insert(
            "hash".into(),
            serde_json::json!({"allOf": [hash], "default": "mix",
            "description": "Hash function of ECMP over the 5-tuple, with a per-switch seed."}),
        );
        for (name, schema) in LoadBalancerSpec::table_schemas(g) {
            let doc = format!("The parameters of `load_balancer = \"{name}\"` (only with it).");
            props.insert(name.into(), serde_json::json!({"allOf": [schema.to_value()], "description": doc}));
        }
        schemars::json_schema!({
            "description": "Routing and load balancing (`[routing]`).",
            "type": "object",
            "properties": props,
            "additionalProperties": false,
        })
    }
}

impl Serialize for RoutingSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let table = self.load_balancer.table();
        let mut map = s.serialize_map(Some(2 + table.is_some() as usize))?;
        map.serialize_entry("load_balancer", self.load_balancer.kind())?;
        map.serialize_entry("hash", &self.hash)?;
        if let Some(t) = table {
            map.serialize_entry(self.load_balancer.kind(), &t)?;
        }
        map.end()
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
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
