//! Scenario field types that carry units: durations, rates and byte sizes.
//!
//! Durations and rates must be written with a unit (`"10us"`, `"100Gbps"`) so that a
//! bare number is never silently read in the wrong unit; sizes may be plain integers
//! (bytes) or strings with a unit (`"32MB"`).

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

use crate::time::{parse_bytes, parse_duration, parse_rate, Delta, Rate};

// Defaults shared by several sections (and by the mechanisms' own tables).
pub(crate) fn rate_100g() -> RateSpec {
    RateSpec::gbps(100)
}
pub(crate) fn delay_1us() -> Duration {
    Duration::us(1)
}
pub(crate) fn one() -> u32 {
    1
}
pub(crate) fn yes() -> bool {
    true
}
pub(crate) fn two_f64() -> f64 {
    2.0
}
pub(crate) fn one_f64() -> f64 {
    1.0
}
pub(crate) fn zero_duration() -> Duration {
    Duration(Delta::ZERO)
}

/// A duration written with a unit, e.g. `"1us"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration(pub Delta);

/// A rate written with a unit, e.g. `"100Gbps"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RateSpec(pub Rate);

/// A size in bytes: an integer or a string with a unit, e.g. `"32MB"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

impl Duration {
    pub fn us(us: u64) -> Self {
        Duration(Delta::from_us(us))
    }
    pub fn ns(ns: u64) -> Self {
        Duration(Delta::from_ns(ns))
    }
}

impl RateSpec {
    pub fn gbps(g: u64) -> Self {
        RateSpec(Rate::gbps(g))
    }
    pub fn mbps(m: u64) -> Self {
        RateSpec(Rate(m * 1_000_000))
    }
}

struct UnitVisitor<T> {
    expecting: &'static str,
    parse: fn(&str) -> Result<T, String>,
    from_int: Option<fn(u64) -> T>,
}

impl<T> Visitor<'_> for UnitVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(v).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        match self.from_int {
            Some(f) => Ok(f(v)),
            None => Err(E::custom(format!("expected {}, got the bare number {v}", self.expecting))),
        }
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        if v < 0 {
            return Err(E::custom(format!("expected {}, got the negative number {v}", self.expecting)));
        }
        self.visit_u64(v as u64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        if v >= 0.0 && v.fract() == 0.0 && self.from_int.is_some() {
            return self.visit_u64(v as u64);
        }
        Err(E::custom(format!("expected {}, got the number {v}", self.expecting)))
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            expecting: "a duration with a unit such as \"10us\" or \"1ms\"",
            parse: |s| {
                let d = parse_duration(s).map_err(|e| e.0)?;
                if d.0 > super::limits::MAX_TIME_PS {
                    return Err(format!("expected at most {}, got \"{s}\"", super::limits::max_time_text()));
                }
                Ok(Duration(d))
            },
            from_int: None,
        })
    }
}
impl<'de> Deserialize<'de> for RateSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            expecting: "a rate with a unit such as \"100Gbps\"",
            parse: |s| parse_rate(s).map(RateSpec).map_err(|e| e.0),
            from_int: None,
        })
    }
}
impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitVisitor {
            expecting: "a size in bytes (integer) or with a unit such as \"32MB\"",
            parse: |s| parse_bytes(s).map(Bytes).map_err(|e| e.0),
            from_int: Some(Bytes),
        })
    }
}

/// How a duration, a rate and a size are written (the JSON Schema's patterns).
/// (As loose as the parsers in `crate::time`: a number, then the unit.)
pub const DURATION_PATTERN: &str = r"^\s*[0-9.eE+-]+\s*(ps|ns|us|µs|ms|s)\s*$";
pub const RATE_PATTERN: &str = r"^\s*[0-9.eE+-]+\s*[A-Za-z]+(/s)?\s*$";
pub const BYTES_PATTERN: &str = r"^\s*[0-9.eE+-]+\s*([KMG]i?B|kB|B)?\s*$";

/// A unit type's JSON Schema: a string with its unit (or an integer for bytes).
macro_rules! unit_schema {
    ($ty:ident, $name:literal, $schema:tt) => {
        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}

unit_schema!(Duration, "Duration", {
    "type": "string", "pattern": DURATION_PATTERN,
    "description": "a duration with its unit: \"10us\", \"1ms\" (ps, ns, us, ms, s)"
});
unit_schema!(RateSpec, "Rate", {
    "type": "string", "pattern": RATE_PATTERN,
    "description": "a rate with its unit: \"100Gbps\" (bps, Kbps, Mbps, Gbps, Tbps)"
});
unit_schema!(Bytes, "Bytes", {
    "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": BYTES_PATTERN}],
    "description": "a size: bytes as an integer, or with a unit: \"32MB\", \"64KiB\""
});

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}ps", self.0 .0))
    }
}
impl Serialize for RateSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}bps", self.0 .0))
    }
}
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}
