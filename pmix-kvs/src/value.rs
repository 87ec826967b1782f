//! Typed values with PMIx's numeric data type codes (`pmix_data_type_t`), and scopes.

use crate::error::{Error, Result};
use crate::ident::Rank;

/// The PMIx data types this crate carries, with their `pmix_data_type_t` codes (PMIx
/// Standard v5.0, chapter "Data Structures and Types").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
#[non_exhaustive]
pub enum DataType {
    /// `PMIX_BOOL`.
    Bool = 1,
    /// `PMIX_BYTE`.
    Byte = 2,
    /// `PMIX_STRING`.
    String = 3,
    /// `PMIX_SIZE`.
    Size = 4,
    /// `PMIX_PID`.
    Pid = 5,
    /// `PMIX_INT8`.
    Int8 = 7,
    /// `PMIX_INT16`.
    Int16 = 8,
    /// `PMIX_INT32`.
    Int32 = 9,
    /// `PMIX_INT64`.
    Int64 = 10,
    /// `PMIX_UINT8`.
    Uint8 = 12,
    /// `PMIX_UINT16`.
    Uint16 = 13,
    /// `PMIX_UINT32`.
    Uint32 = 14,
    /// `PMIX_UINT64`.
    Uint64 = 15,
    /// `PMIX_FLOAT`.
    Float = 16,
    /// `PMIX_DOUBLE`.
    Double = 17,
    /// `PMIX_PROC`.
    Proc = 22,
    /// `PMIX_BYTE_OBJECT`.
    ByteObject = 27,
    /// `PMIX_DATA_ARRAY` (here always of `PMIX_VALUE` elements).
    DataArray = 39,
    /// `PMIX_PROC_RANK`.
    ProcRank = 40,
}

impl DataType {
    /// The numeric code.
    #[must_use]
    pub fn code(self) -> u16 {
        self as u16
    }

    /// The type with numeric code `code`.
    ///
    /// # Errors
    /// [`Error::UnsupportedType`] for codes this crate does not carry.
    pub fn from_code(code: u16) -> Result<Self> {
        Ok(match code {
            1 => Self::Bool,
            2 => Self::Byte,
            3 => Self::String,
            4 => Self::Size,
            5 => Self::Pid,
            7 => Self::Int8,
            8 => Self::Int16,
            9 => Self::Int32,
            10 => Self::Int64,
            12 => Self::Uint8,
            13 => Self::Uint16,
            14 => Self::Uint32,
            15 => Self::Uint64,
            16 => Self::Float,
            17 => Self::Double,
            22 => Self::Proc,
            27 => Self::ByteObject,
            39 => Self::DataArray,
            40 => Self::ProcRank,
            _ => return Err(Error::UnsupportedType { code }),
        })
    }
}

/// A typed value (`pmix_value_t`). Floats are kept bit-exact (OpenPMIx sends them as `"%f"`
/// text, which loses precision; this crate does not).
///
/// Equality compares floats by their bits, so `NaN == NaN` and `0.0 != -0.0` here: a value
/// equals what was put.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Value {
    /// `PMIX_BOOL`.
    Bool(bool),
    /// `PMIX_BYTE`.
    Byte(u8),
    /// `PMIX_STRING`.
    String(String),
    /// `PMIX_SIZE` (`size_t`, carried as 64 bits).
    Size(u64),
    /// `PMIX_PID`.
    Pid(u32),
    /// `PMIX_INT8`.
    I8(i8),
    /// `PMIX_INT16`.
    I16(i16),
    /// `PMIX_INT32`.
    I32(i32),
    /// `PMIX_INT64`.
    I64(i64),
    /// `PMIX_UINT8`.
    U8(u8),
    /// `PMIX_UINT16`.
    U16(u16),
    /// `PMIX_UINT32`.
    U32(u32),
    /// `PMIX_UINT64`.
    U64(u64),
    /// `PMIX_FLOAT`, bit-exact.
    F32(f32),
    /// `PMIX_DOUBLE`, bit-exact.
    F64(f64),
    /// `PMIX_PROC`: a process named by its namespace string (values cross nodes, whose
    /// interning tables differ).
    Proc {
        /// Namespace name.
        nspace: String,
        /// Rank.
        rank: Rank,
    },
    /// `PMIX_BYTE_OBJECT`.
    Bytes(Vec<u8>),
    /// `PMIX_DATA_ARRAY` of `PMIX_VALUE` elements.
    Array(Vec<Value>),
    /// `PMIX_PROC_RANK`.
    Rank(Rank),
}

impl Value {
    /// This value's PMIx data type.
    #[must_use]
    pub fn data_type(&self) -> DataType {
        match self {
            Self::Bool(_) => DataType::Bool,
            Self::Byte(_) => DataType::Byte,
            Self::String(_) => DataType::String,
            Self::Size(_) => DataType::Size,
            Self::Pid(_) => DataType::Pid,
            Self::I8(_) => DataType::Int8,
            Self::I16(_) => DataType::Int16,
            Self::I32(_) => DataType::Int32,
            Self::I64(_) => DataType::Int64,
            Self::U8(_) => DataType::Uint8,
            Self::U16(_) => DataType::Uint16,
            Self::U32(_) => DataType::Uint32,
            Self::U64(_) => DataType::Uint64,
            Self::F32(_) => DataType::Float,
            Self::F64(_) => DataType::Double,
            Self::Proc { .. } => DataType::Proc,
            Self::Bytes(_) => DataType::ByteObject,
            Self::Array(_) => DataType::DataArray,
            Self::Rank(_) => DataType::ProcRank,
        }
    }

    /// The value as a `u32`, for the reserved keys of that type.
    #[must_use]
    pub fn as_u32(&self) -> Option<u32> {
        match *self {
            Self::U32(v) | Self::Pid(v) => Some(v),
            Self::Rank(r) => Some(r.0),
            _ => None,
        }
    }

    /// The value as a string slice.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Bool(a), Bool(b)) => a == b,
            (Byte(a), Byte(b)) | (U8(a), U8(b)) => a == b,
            (String(a), String(b)) => a == b,
            (Size(a), Size(b)) | (U64(a), U64(b)) => a == b,
            (Pid(a), Pid(b)) | (U32(a), U32(b)) => a == b,
            (I8(a), I8(b)) => a == b,
            (I16(a), I16(b)) => a == b,
            (I32(a), I32(b)) => a == b,
            (I64(a), I64(b)) => a == b,
            (U16(a), U16(b)) => a == b,
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            (
                Proc {
                    nspace: na,
                    rank: ra,
                },
                Proc {
                    nspace: nb,
                    rank: rb,
                },
            ) => na == nb && ra == rb,
            (Bytes(a), Bytes(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Rank(a), Rank(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

/// Who may see a put value (`pmix_scope_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Scope {
    /// `PMIX_LOCAL`: processes on the same node only; never sent to other nodes.
    Local = 1,
    /// `PMIX_REMOTE`: processes on other nodes only; not shared on the node.
    Remote = 2,
    /// `PMIX_GLOBAL`: everyone.
    Global = 3,
    /// `PMIX_INTERNAL`: the putting process only.
    Internal = 4,
}

impl Scope {
    /// The numeric `pmix_scope_t` code.
    #[must_use]
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The scope with code `code`.
    ///
    /// # Errors
    /// [`Error::BadScope`] for 0 (`PMIX_SCOPE_UNDEF`) and codes above 4.
    pub fn from_code(code: u8) -> Result<Self> {
        match code {
            1 => Ok(Self::Local),
            2 => Ok(Self::Remote),
            3 => Ok(Self::Global),
            4 => Ok(Self::Internal),
            _ => Err(Error::BadScope { code }),
        }
    }

    /// Whether data put with this scope is visible on the putter's own node to other processes.
    #[must_use]
    pub fn visible_on_node(self) -> bool {
        matches!(self, Self::Local | Self::Global)
    }

    /// Whether data put with this scope leaves the node (fences, direct modex).
    #[must_use]
    pub fn visible_off_node(self) -> bool {
        matches!(self, Self::Remote | Self::Global)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_codes_round_trip_and_match_pmix() {
        let all = [
            (DataType::Bool, 1),
            (DataType::Byte, 2),
            (DataType::String, 3),
            (DataType::Size, 4),
            (DataType::Pid, 5),
            (DataType::Int8, 7),
            (DataType::Int16, 8),
            (DataType::Int32, 9),
            (DataType::Int64, 10),
            (DataType::Uint8, 12),
            (DataType::Uint16, 13),
            (DataType::Uint32, 14),
            (DataType::Uint64, 15),
            (DataType::Float, 16),
            (DataType::Double, 17),
            (DataType::Proc, 22),
            (DataType::ByteObject, 27),
            (DataType::DataArray, 39),
            (DataType::ProcRank, 40),
        ];
        for (t, code) in all {
            assert_eq!(t.code(), code);
            assert_eq!(DataType::from_code(code), Ok(t));
        }
        assert_eq!(
            DataType::from_code(21),
            Err(Error::UnsupportedType { code: 21 })
        );
        assert_eq!(
            DataType::from_code(0),
            Err(Error::UnsupportedType { code: 0 })
        );
    }

    #[test]
    fn scope_codes() {
        for s in [Scope::Local, Scope::Remote, Scope::Global, Scope::Internal] {
            assert_eq!(Scope::from_code(s.code()), Ok(s));
        }
        assert_eq!(Scope::from_code(0), Err(Error::BadScope { code: 0 }));
        assert_eq!(Scope::from_code(5), Err(Error::BadScope { code: 5 }));
        assert!(Scope::Global.visible_on_node() && Scope::Global.visible_off_node());
        assert!(!Scope::Local.visible_off_node() && !Scope::Remote.visible_on_node());
    }

    #[test]
    fn floats_compare_by_bits() {
        assert_eq!(Value::F64(f64::NAN), Value::F64(f64::NAN));
        assert_ne!(Value::F64(0.0), Value::F64(-0.0));
        assert_ne!(Value::U32(1), Value::Pid(1));
        assert_eq!(Value::F32(1e-9).data_type(), DataType::Float);
    }
}
