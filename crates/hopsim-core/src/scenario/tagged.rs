//! Deserialization of `kind`-tagged tables and of "one table or an array of tables"
//! that keeps the full field path in error messages.
//!
//! serde's internally tagged enums buffer the table and lose the path of an error inside
//! it (`topology: invalid type` instead of `topology.spines: invalid type`). Here the
//! table is read into a JSON value, `kind` picks the variant struct, and that struct is
//! deserialized with its own path tracking; the inner path travels to
//! [`super::Scenario::from_toml_str`] inside the message, between [`NESTED`] markers, and
//! is joined to the outer path there.

use serde::de::{self, Deserialize, Deserializer};
use serde::Serialize;
use serde_json::Value;

/// A policy table with no parameters (only its `kind`).
#[derive(Clone, Debug, Default, serde::Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoFields {}

/// Marks an inner field path carried inside an error message.
pub const NESTED: char = '\u{1}';

/// Encode an error found at `path` inside a nested table.
pub fn nested<E: de::Error>(path: &str, message: impl std::fmt::Display) -> E {
    E::custom(format!("{NESTED}{path}{NESTED}{message}"))
}

/// Split a message produced by [`nested`] into (inner path, message).
pub fn split_nested(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix(NESTED)?;
    rest.split_once(NESTED)
}

/// Join an outer and an inner dotted path (`[i]` indices attach without a dot).
pub fn join_path(outer: &str, inner: &str) -> String {
    match (outer, inner) {
        (".", i) | ("", i) => i.to_string(),
        (o, ".") | (o, "") => o.to_string(),
        (o, i) if i.starts_with('[') => format!("{o}{i}"),
        (o, i) => format!("{o}.{i}"),
    }
}

/// Deserialize `value` as `T`, re-encoding any error with its inner path.
pub fn inner<T: de::DeserializeOwned, E: de::Error>(value: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // An error from a deeper nested table already carries its own path.
        match split_nested(&inner) {
            Some((p, m)) => nested(&join_path(&path, p), m),
            None => nested(&path, inner),
        }
    })
}

/// Read a table, take its `kind`, and return (kind, rest of the table).
pub fn take_kind<'de, D: Deserializer<'de>>(d: D, kinds: &[&str]) -> Result<(String, Value), D::Error> {
    let mut map = serde_json::Map::<String, Value>::deserialize(d)?;
    let expected = kinds.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ");
    match map.remove("kind") {
        Some(Value::String(k)) if kinds.contains(&k.as_str()) => Ok((k, Value::Object(map))),
        Some(Value::String(k)) => {
            Err(nested("kind", format!("unknown kind \"{k}\"; expected one of {expected}")))
        }
        Some(other) => Err(nested("kind", format!("expected one of {expected}, got {other}"))),
        None => Err(de::Error::custom(format!("missing field `kind` (one of {expected})"))),
    }
}

/// Implement `Deserialize` for an enum of newtype variants selected by `kind`.
macro_rules! kind_tagged {
    ($enum:ident { $($kind:literal => $variant:ident),+ $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (kind, rest) = $crate::scenario::tagged::take_kind(d, &[$($kind),+])?;
                match kind.as_str() {
                    $($kind => $crate::scenario::tagged::inner(rest).map($enum::$variant),)+
                    _ => unreachable!("take_kind checked the kind"),
                }
            }
        }
    };
}
pub(crate) use kind_tagged;

/// The JSON Schema of a `kind`-tagged table: one of the variants' tables, each with its
/// `kind` (`variants`: the kind's name and its table's schema, inline).
pub fn kind_schema(description: &str, variants: Vec<(&'static str, schemars::Schema)>) -> schemars::Schema {
    let one_of: Vec<Value> = variants
        .into_iter()
        .map(|(kind, schema)| {
            let mut v = schema.to_value();
            if let Some(obj) = v.as_object_mut() {
                obj.entry("type").or_insert_with(|| "object".into());
                let props = obj.entry("properties").or_insert_with(|| Value::Object(Default::default()));
                if let Some(p) = props.as_object_mut() {
                    p.insert("kind".into(), serde_json::json!({"type": "string", "const": kind}));
                }
                let required = obj.entry("required").or_insert_with(|| Value::Array(Vec::new()));
                if let Some(r) = required.as_array_mut() {
                    r.insert(0, "kind".into());
                }
            }
            v
        })
        .collect();
    schemars::json_schema!({"description": description, "oneOf": one_of})
}

/// Serialize `spec` (a table) with `kind = "<kind>"` in front of its fields, which keep
/// their declared order.
pub fn serialize_with_kind<T: Serialize, S: serde::Serializer>(
    kind: &str,
    spec: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Tagged<'a, T> {
        kind: &'a str,
        #[serde(flatten)]
        spec: &'a T,
    }
    Tagged { kind, spec }.serialize(s)
}

/// A value that remembers whether the scenario wrote it or took its default: what lets a
/// check refuse a setting written where it has no effect (`[transport.tcp]` under RoCE,
/// `switch.pfc.enabled = true` beside another flow control) while the defaults pass.
/// It reads, writes and documents itself as the value alone.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Written<T> {
    pub value: T,
    /// Whether the scenario gave it (false: the default).
    pub written: bool,
}

impl<T> Written<T> {
    /// A default, not written by the scenario.
    pub const fn default_to(value: T) -> Written<T> {
        Written { value, written: false }
    }
}

impl<T> std::ops::Deref for Written<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Written<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(|value| Written { value, written: true })
    }
}

impl<T: Serialize> Serialize for Written<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Written<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(g)
    }
}
