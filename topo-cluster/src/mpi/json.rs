//! An order-keeping JSON tree for the readers: the order of an object's keys is the meaning of
//! MPICH's file and duplicate keys must be refused, where `serde_json::Map` sorts and merges.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A parsed JSON value.
pub(crate) enum Json {
    /// An object, its entries in file order (duplicates kept).
    Object(Vec<(String, Json)>),
    /// An array.
    Array(Vec<Json>),
    /// A non-negative integer.
    UInt(u64),
    /// Any other number (negative or fractional).
    OtherNumber,
    /// A string.
    Str(String),
    /// `true` or `false`.
    Bool,
    /// `null`.
    Null,
}

impl Json {
    /// What the value is, for error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Self::Object(_) => "an object",
            Self::Array(_) => "an array",
            Self::UInt(_) | Self::OtherNumber => "a number",
            Self::Str(_) => "a string",
            Self::Bool => "a boolean",
            Self::Null => "null",
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            entries.push((k, v));
        }
        Ok(Json::Object(entries))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Json>()? {
            items.push(v);
        }
        Ok(Json::Array(items))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Json, E> {
        Ok(Json::Bool)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(u64::try_from(v).map_or(Json::OtherNumber, Json::UInt))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::UInt(v))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Json, E> {
        Ok(Json::OtherNumber)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}
