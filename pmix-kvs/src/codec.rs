//! Fence-blob layouts: the naive one and the paper's compact one (§4.2.2).
//!
//! * **Naive** (PMIx ≤ 2.1 as the paper describes it): every process entry carries its full
//!   namespace string and rank, every pair its full key string; integers and lengths are
//!   fixed-width big-endian (network order, as OpenPMIx's `psquash/native`).
//! * **Compact**: the namespace is sent once and ranks become deltas of indices within it
//!   (§4.2.2 (1)); keys are sent once in a key table and pairs carry a table index
//!   (§4.2.2 (2): `(s+4)+4N` bytes instead of `N(s+4)`, and less with LEB128 indices);
//!   integers and lengths are LEB128, signed values zig-zag (§4.2.2 (3)); optionally the
//!   flex128 integer form for byte compatibility with OpenPMIx, and optionally a per-key
//!   shared prefix of string and byte values sent once ("dropping the fields shared by all",
//!   which took a UCX address from 51 B to 21 B, §4.2.1).
//!
//! Both start with a three-byte header: magic `b'P'`, layout (1 naive, 2 compact), flags.
//! [`decode`] reads either, validates everything and never panics on any input.

use std::fmt;

use crate::blob::{FenceBlob, ProcEntry};
use crate::error::{Error, Result};
use crate::ident::{MAX_NSLEN, Rank};
use crate::keys::MAX_KEYLEN;
use crate::value::{DataType, Value};
pub use crate::varint::IntEncoding;
use crate::varint::{self, Reader};
use fabric_model::hash::FxHashMap;

/// First byte of every blob.
pub const MAGIC: u8 = b'P';
/// Layout byte of the naive layout.
pub const LAYOUT_NAIVE: u8 = 1;
/// Layout byte of the compact layout.
pub const LAYOUT_COMPACT: u8 = 2;
/// How deep arrays may nest in a decoded value.
pub const MAX_DEPTH: usize = 8;

const FLAG_COLLECT: u8 = 1;
const FLAG_FLEX128: u8 = 2;
const FLAG_PREFIX: u8 = 4;

/// Options of the compact layout: [`CompactOptions::default`] (LEB128 integers, shared
/// prefixes on) and the `with_*` setters.
///
/// ```
/// use pmix_kvs::codec::{CompactOptions, IntEncoding};
///
/// let openpmix_ints = CompactOptions::default().with_ints(IntEncoding::Flex128);
/// assert!(openpmix_ints.shared_prefix);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct CompactOptions {
    /// Integer encoding: LEB128 (default) or flex128.
    pub ints: IntEncoding,
    /// Send the longest prefix shared by all string/byte values of a key once, in the key
    /// table, and only the rest per process.
    pub shared_prefix: bool,
}

impl Default for CompactOptions {
    fn default() -> Self {
        Self {
            ints: IntEncoding::Leb128,
            shared_prefix: true,
        }
    }
}

impl CompactOptions {
    /// Sets the integer encoding.
    #[must_use]
    pub fn with_ints(mut self, ints: IntEncoding) -> Self {
        self.ints = ints;
        self
    }

    /// Sets whether a key's shared value prefix is sent once.
    #[must_use]
    pub fn with_shared_prefix(mut self, shared_prefix: bool) -> Self {
        self.shared_prefix = shared_prefix;
        self
    }
}

/// Which layout to encode with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layout {
    /// Full strings, fixed-width integers, per process.
    Naive,
    /// Key table, rank indices, variable-length integers.
    Compact(CompactOptions),
}

impl fmt::Display for Layout {
    /// `naive`, or `compact` with `+flex128` and `-prefix` for options off the default.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Naive => f.write_str("naive"),
            Self::Compact(o) => {
                f.write_str("compact")?;
                if o.ints == IntEncoding::Flex128 {
                    f.write_str("+flex128")?;
                }
                if !o.shared_prefix {
                    f.write_str("-prefix")?;
                }
                Ok(())
            }
        }
    }
}

/// Encodes `blob` in `layout`.
///
/// # Errors
/// [`Error::Unordered`]/[`Error::BadRank`] for a blob whose entries are not strictly
/// increasing real ranks; [`Error::Encode`] for a length beyond `u32` in the naive layout.
///
/// # Complexity
/// O(size of the blob).
pub fn encode(blob: &FenceBlob, layout: Layout) -> Result<Vec<u8>> {
    blob.validate()?;
    match layout {
        Layout::Naive => encode_naive(blob),
        Layout::Compact(o) => Ok(encode_compact(blob, o)),
    }
}

/// Decodes a blob in either layout.
///
/// # Errors
/// [`Error::BadHeader`], [`Error::Truncated`], [`Error::Overlong`], [`Error::OutOfRange`],
/// [`Error::UnsupportedType`], [`Error::BadUtf8`], [`Error::TooDeep`], [`Error::Unordered`],
/// [`Error::Trailing`] — never a panic.
///
/// # Complexity
/// O(input length); allocation is bounded by the input length.
pub fn decode(bytes: &[u8]) -> Result<FenceBlob> {
    let mut r = Reader::new(bytes);
    let magic = r.u8("magic")?;
    if magic != MAGIC {
        return Err(Error::BadHeader {
            offset: 0,
            reason: "bad magic",
        });
    }
    let layout = r.u8("layout")?;
    let flags = r.u8("flags")?;
    let blob = match layout {
        LAYOUT_NAIVE => {
            if flags & !FLAG_COLLECT != 0 {
                return Err(Error::BadHeader {
                    offset: 2,
                    reason: "unknown flags",
                });
            }
            decode_naive(&mut r, flags & FLAG_COLLECT != 0)?
        }
        LAYOUT_COMPACT => {
            if flags & !(FLAG_COLLECT | FLAG_FLEX128 | FLAG_PREFIX) != 0 {
                return Err(Error::BadHeader {
                    offset: 2,
                    reason: "unknown flags",
                });
            }
            decode_compact(&mut r, flags)?
        }
        _ => {
            return Err(Error::BadHeader {
                offset: 1,
                reason: "unknown layout",
            });
        }
    };
    r.finish()?;
    Ok(blob)
}

// ---------------------------------------------------------------- naive

fn u32_len(n: usize, what: &'static str) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::Encode {
        what,
        reason: "longer than u32::MAX",
    })
}

fn naive_str(out: &mut Vec<u8>, b: &[u8], what: &'static str) -> Result<()> {
    out.extend_from_slice(&u32_len(b.len(), what)?.to_be_bytes());
    out.extend_from_slice(b);
    Ok(())
}

fn encode_naive(blob: &FenceBlob) -> Result<Vec<u8>> {
    let mut out = vec![
        MAGIC,
        LAYOUT_NAIVE,
        if blob.collect { FLAG_COLLECT } else { 0 },
    ];
    naive_str(&mut out, blob.nspace.as_bytes(), "namespace")?;
    out.extend_from_slice(&u32_len(blob.entries.len(), "entry count")?.to_be_bytes());
    for e in &blob.entries {
        naive_str(&mut out, blob.nspace.as_bytes(), "namespace")?;
        out.extend_from_slice(&e.rank.0.to_be_bytes());
        out.extend_from_slice(&u32_len(e.kvs.len(), "pair count")?.to_be_bytes());
        for (k, v) in &e.kvs {
            naive_str(&mut out, k.as_bytes(), "key")?;
            naive_value(&mut out, v)?;
        }
    }
    Ok(out)
}

fn naive_value(out: &mut Vec<u8>, v: &Value) -> Result<()> {
    out.extend_from_slice(&v.data_type().code().to_be_bytes());
    match v {
        Value::Bool(b) => out.push(u8::from(*b)),
        Value::Byte(b) | Value::U8(b) => out.push(*b),
        Value::I8(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::I16(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::U16(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::I32(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::U32(x) | Value::Pid(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::Rank(r) => out.extend_from_slice(&r.0.to_be_bytes()),
        Value::I64(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::U64(x) | Value::Size(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::F32(x) => out.extend_from_slice(&x.to_bits().to_be_bytes()),
        Value::F64(x) => out.extend_from_slice(&x.to_bits().to_be_bytes()),
        Value::String(s) => naive_str(out, s.as_bytes(), "string")?,
        Value::Bytes(b) => naive_str(out, b, "byte object")?,
        Value::Proc { nspace, rank } => {
            naive_str(out, nspace.as_bytes(), "process namespace")?;
            out.extend_from_slice(&rank.0.to_be_bytes());
        }
        Value::Array(items) => {
            out.extend_from_slice(&u32_len(items.len(), "array")?.to_be_bytes());
            for i in items {
                naive_value(out, i)?;
            }
        }
    }
    Ok(())
}

fn be_u32(r: &mut Reader<'_>, what: &'static str) -> Result<u32> {
    Ok(u32::from_be_bytes(r.array(what)?))
}

/// A length prefix that must fit in the rest of the input (every item is at least `min_item`
/// bytes), so no allocation exceeds the input.
fn bounded(
    n: u64,
    r: &Reader<'_>,
    min_item: usize,
    what: &'static str,
    offset: usize,
) -> Result<usize> {
    usize::try_from(n)
        .ok()
        .filter(|&n| n.saturating_mul(min_item) <= r.remaining())
        .ok_or(Error::OutOfRange { what, offset })
}

fn utf8(b: &[u8], what: &'static str, offset: usize) -> Result<String> {
    String::from_utf8(b.to_vec()).map_err(|_| Error::BadUtf8 { what, offset })
}

fn naive_bytes<'a>(r: &mut Reader<'a>, what: &'static str, max: usize) -> Result<&'a [u8]> {
    let offset = r.pos();
    let n = be_u32(r, what)?;
    let n = usize::try_from(n)
        .ok()
        .filter(|&n| n <= max)
        .ok_or(Error::OutOfRange { what, offset })?;
    r.bytes(n, what)
}

fn decode_naive(r: &mut Reader<'_>, collect: bool) -> Result<FenceBlob> {
    let offset = r.pos();
    let ns = naive_bytes(r, "namespace", MAX_NSLEN)?;
    if ns.is_empty() {
        return Err(Error::OutOfRange {
            what: "empty namespace",
            offset,
        });
    }
    let nspace = utf8(ns, "namespace", offset)?;
    let offset = r.pos();
    let count = be_u32(r, "entry count")?;
    let count = bounded(u64::from(count), r, 12, "entry count", offset)?;
    let mut entries = Vec::with_capacity(count);
    for index in 0..count {
        let offset = r.pos();
        let ns = naive_bytes(r, "namespace", MAX_NSLEN)?;
        if ns != nspace.as_bytes() {
            return Err(Error::OutOfRange {
                what: "entry namespace differs from the blob's",
                offset,
            });
        }
        let rank = Rank(be_u32(r, "rank")?);
        check_rank_order(&entries, index, rank)?;
        let offset = r.pos();
        let n = be_u32(r, "pair count")?;
        let n = bounded(u64::from(n), r, 6, "pair count", offset)?;
        let mut kvs = Vec::with_capacity(n);
        for _ in 0..n {
            let offset = r.pos();
            let k = naive_bytes(r, "key", MAX_KEYLEN)?;
            if k.is_empty() {
                return Err(Error::OutOfRange {
                    what: "empty key",
                    offset,
                });
            }
            let k = utf8(k, "key", offset)?;
            let v = naive_decode_value(r, 0)?;
            kvs.push((k, v));
        }
        entries.push(ProcEntry { rank, kvs });
    }
    Ok(FenceBlob {
        nspace,
        collect,
        entries,
    })
}

fn check_rank_order(entries: &[ProcEntry], index: usize, rank: Rank) -> Result<()> {
    if !rank.is_valid() {
        return Err(Error::BadRank {
            rank,
            reason: "blob entries must name real processes",
        });
    }
    if entries.last().is_some_and(|p| p.rank >= rank) {
        return Err(Error::Unordered { index, rank });
    }
    Ok(())
}

fn naive_decode_value(r: &mut Reader<'_>, depth: usize) -> Result<Value> {
    let offset = r.pos();
    if depth > MAX_DEPTH {
        return Err(Error::TooDeep {
            limit: MAX_DEPTH,
            offset,
        });
    }
    let t = DataType::from_code(u16::from_be_bytes(r.array("type")?))?;
    Ok(match t {
        DataType::Bool => Value::Bool(read_bool(r)?),
        DataType::Byte => Value::Byte(r.u8("byte")?),
        DataType::Uint8 => Value::U8(r.u8("u8")?),
        DataType::Int8 => Value::I8(i8::from_be_bytes(r.array("i8")?)),
        DataType::Int16 => Value::I16(i16::from_be_bytes(r.array("i16")?)),
        DataType::Uint16 => Value::U16(u16::from_be_bytes(r.array("u16")?)),
        DataType::Int32 => Value::I32(i32::from_be_bytes(r.array("i32")?)),
        DataType::Uint32 => Value::U32(be_u32(r, "u32")?),
        DataType::Pid => Value::Pid(be_u32(r, "pid")?),
        DataType::ProcRank => Value::Rank(Rank(be_u32(r, "rank")?)),
        DataType::Int64 => Value::I64(i64::from_be_bytes(r.array("i64")?)),
        DataType::Uint64 => Value::U64(u64::from_be_bytes(r.array("u64")?)),
        DataType::Size => Value::Size(u64::from_be_bytes(r.array("size")?)),
        DataType::Float => Value::F32(f32::from_bits(u32::from_be_bytes(r.array("f32")?))),
        DataType::Double => Value::F64(f64::from_bits(u64::from_be_bytes(r.array("f64")?))),
        DataType::String => {
            let o = r.pos();
            Value::String(utf8(naive_bytes(r, "string", usize::MAX)?, "string", o)?)
        }
        DataType::ByteObject => Value::Bytes(naive_bytes(r, "byte object", usize::MAX)?.to_vec()),
        DataType::Proc => {
            let o = r.pos();
            let ns = utf8(
                naive_bytes(r, "process namespace", MAX_NSLEN)?,
                "process namespace",
                o,
            )?;
            Value::Proc {
                nspace: ns,
                rank: Rank(be_u32(r, "process rank")?),
            }
        }
        DataType::DataArray => {
            let o = r.pos();
            let n = be_u32(r, "array")?;
            let n = bounded(u64::from(n), r, 2, "array length", o)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(naive_decode_value(r, depth + 1)?);
            }
            Value::Array(items)
        }
    })
}

fn read_bool(r: &mut Reader<'_>) -> Result<bool> {
    let offset = r.pos();
    match r.u8("bool")? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(Error::OutOfRange {
            what: "bool",
            offset,
        }),
    }
}

// ---------------------------------------------------------------- compact

fn prefixable(v: &Value) -> Option<&[u8]> {
    match v {
        Value::String(s) => Some(s.as_bytes()),
        Value::Bytes(b) => Some(b),
        _ => None,
    }
}

fn encode_compact(blob: &FenceBlob, o: CompactOptions) -> Vec<u8> {
    let enc = o.ints;
    let mut flags = 0;
    if blob.collect {
        flags |= FLAG_COLLECT;
    }
    if enc == IntEncoding::Flex128 {
        flags |= FLAG_FLEX128;
    }
    if o.shared_prefix {
        flags |= FLAG_PREFIX;
    }
    // The key table, in order of first use, and each key's shared prefix.
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    let mut table: Vec<&str> = Vec::new();
    let mut prefix: Vec<Option<&[u8]>> = Vec::new();
    // Each pair's key index, in blob order, so the second pass hashes nothing.
    let mut pair_keys: Vec<usize> = Vec::with_capacity(blob.pair_count());
    for e in &blob.entries {
        for (k, v) in &e.kvs {
            let i = *index.entry(k.as_str()).or_insert_with(|| {
                table.push(k);
                prefix.push(None);
                table.len() - 1
            });
            pair_keys.push(i);
            if let Some(b) = prefixable(v) {
                prefix[i] = Some(match prefix[i] {
                    None => b,
                    Some(p) => &p[..common_prefix(p, b)],
                });
            }
        }
    }
    let mut out = Vec::with_capacity(64 + blob.pair_count() * 8);
    out.extend_from_slice(&[MAGIC, LAYOUT_COMPACT, flags]);
    put_bytes(&mut out, blob.nspace.as_bytes(), enc);
    varint::put(&mut out, table.len() as u64, enc);
    for (i, k) in table.iter().enumerate() {
        put_bytes(&mut out, k.as_bytes(), enc);
        if o.shared_prefix {
            put_bytes(&mut out, prefix[i].unwrap_or(&[]), enc);
        }
    }
    varint::put(&mut out, blob.entries.len() as u64, enc);
    let mut next = 0u64;
    let mut pair_keys = pair_keys.into_iter();
    for e in &blob.entries {
        let r = u64::from(e.rank.0);
        varint::put(&mut out, r - next, enc);
        next = r + 1;
        varint::put(&mut out, e.kvs.len() as u64, enc);
        for ((_, v), i) in e.kvs.iter().zip(pair_keys.by_ref()) {
            varint::put(&mut out, i as u64, enc);
            let skip = if o.shared_prefix {
                prefix[i].map_or(0, <[u8]>::len)
            } else {
                0
            };
            compact_value(&mut out, v, enc, skip);
        }
    }
    out
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8], enc: IntEncoding) {
    varint::put(out, b.len() as u64, enc);
    out.extend_from_slice(b);
}

/// `skip`: bytes of a string/byte value already sent as the key's shared prefix.
fn compact_value(out: &mut Vec<u8>, v: &Value, enc: IntEncoding, skip: usize) {
    varint::put(out, u64::from(v.data_type().code()), enc);
    match v {
        Value::Bool(b) => out.push(u8::from(*b)),
        Value::Byte(b) | Value::U8(b) => out.push(*b),
        Value::I8(x) => out.push(*x as u8),
        Value::I16(x) => varint::put(out, varint::zigzag(i64::from(*x)), enc),
        Value::I32(x) => varint::put(out, varint::zigzag(i64::from(*x)), enc),
        Value::I64(x) => varint::put(out, varint::zigzag(*x), enc),
        Value::U16(x) => varint::put(out, u64::from(*x), enc),
        Value::U32(x) | Value::Pid(x) => varint::put(out, u64::from(*x), enc),
        Value::Rank(r) => varint::put(out, u64::from(r.0), enc),
        Value::U64(x) | Value::Size(x) => varint::put(out, *x, enc),
        Value::F32(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
        Value::F64(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
        Value::String(s) => put_bytes(out, &s.as_bytes()[skip..], enc),
        Value::Bytes(b) => put_bytes(out, &b[skip..], enc),
        Value::Proc { nspace, rank } => {
            put_bytes(out, nspace.as_bytes(), enc);
            varint::put(out, u64::from(rank.0), enc);
        }
        Value::Array(items) => {
            varint::put(out, items.len() as u64, enc);
            for i in items {
                compact_value(out, i, enc, 0);
            }
        }
    }
}

fn get_bytes<'a>(
    r: &mut Reader<'a>,
    enc: IntEncoding,
    max: usize,
    what: &'static str,
) -> Result<&'a [u8]> {
    let n = r.length(enc, max.min(r.remaining()), what)?;
    r.bytes(n, what)
}

fn decode_compact(r: &mut Reader<'_>, flags: u8) -> Result<FenceBlob> {
    let enc = if flags & FLAG_FLEX128 != 0 {
        IntEncoding::Flex128
    } else {
        IntEncoding::Leb128
    };
    let with_prefix = flags & FLAG_PREFIX != 0;
    let o = r.pos();
    let ns = get_bytes(r, enc, MAX_NSLEN, "namespace")?;
    if ns.is_empty() {
        return Err(Error::OutOfRange {
            what: "empty namespace",
            offset: o,
        });
    }
    let nspace = utf8(ns, "namespace", o)?;
    let o = r.pos();
    let nkeys = r.varint(enc, "key table size")?;
    let nkeys = bounded(nkeys, r, 2, "key table size", o)?;
    let mut table = Vec::with_capacity(nkeys);
    for _ in 0..nkeys {
        let o = r.pos();
        let k = get_bytes(r, enc, MAX_KEYLEN, "key")?;
        if k.is_empty() {
            return Err(Error::OutOfRange {
                what: "empty key",
                offset: o,
            });
        }
        let k = utf8(k, "key", o)?;
        let p = if with_prefix {
            get_bytes(r, enc, usize::MAX, "shared prefix")?
        } else {
            &[]
        };
        table.push((k, p));
    }
    let o = r.pos();
    let n = r.varint(enc, "entry count")?;
    let n = bounded(n, r, 2, "entry count", o)?;
    let mut entries = Vec::with_capacity(n);
    let mut next = 0u64;
    for index in 0..n {
        let o = r.pos();
        let delta = r.varint(enc, "rank delta")?;
        let rank = next
            .checked_add(delta)
            .and_then(|x| u32::try_from(x).ok())
            .ok_or(Error::OutOfRange {
                what: "rank",
                offset: o,
            })?;
        let rank = Rank(rank);
        check_rank_order(&entries, index, rank)?;
        next = u64::from(rank.0) + 1;
        let o = r.pos();
        let m = r.varint(enc, "pair count")?;
        let m = bounded(m, r, 2, "pair count", o)?;
        let mut kvs = Vec::with_capacity(m);
        for _ in 0..m {
            let o = r.pos();
            let i = r.varint(enc, "key index")?;
            let (k, p) =
                usize::try_from(i)
                    .ok()
                    .and_then(|i| table.get(i))
                    .ok_or(Error::OutOfRange {
                        what: "key index",
                        offset: o,
                    })?;
            let v = compact_decode_value(r, enc, 0, p)?;
            kvs.push((k.clone(), v));
        }
        entries.push(ProcEntry { rank, kvs });
    }
    Ok(FenceBlob {
        nspace,
        collect: flags & FLAG_COLLECT != 0,
        entries,
    })
}

fn narrow<T: TryFrom<u64>>(v: u64, what: &'static str, offset: usize) -> Result<T> {
    T::try_from(v).map_err(|_| Error::OutOfRange { what, offset })
}

fn snarrow<T: TryFrom<i64>>(v: i64, what: &'static str, offset: usize) -> Result<T> {
    T::try_from(v).map_err(|_| Error::OutOfRange { what, offset })
}

fn compact_decode_value(
    r: &mut Reader<'_>,
    enc: IntEncoding,
    depth: usize,
    prefix: &[u8],
) -> Result<Value> {
    let o = r.pos();
    if depth > MAX_DEPTH {
        return Err(Error::TooDeep {
            limit: MAX_DEPTH,
            offset: o,
        });
    }
    let code = r.varint(enc, "type")?;
    let t = DataType::from_code(narrow(code, "type", o)?)?;
    let o = r.pos();
    Ok(match t {
        DataType::Bool => Value::Bool(read_bool(r)?),
        DataType::Byte => Value::Byte(r.u8("byte")?),
        DataType::Uint8 => Value::U8(r.u8("u8")?),
        DataType::Int8 => Value::I8(i8::from_le_bytes(r.array("i8")?)),
        DataType::Int16 => Value::I16(snarrow(r.svarint(enc, "i16")?, "i16", o)?),
        DataType::Int32 => Value::I32(snarrow(r.svarint(enc, "i32")?, "i32", o)?),
        DataType::Int64 => Value::I64(r.svarint(enc, "i64")?),
        DataType::Uint16 => Value::U16(narrow(r.varint(enc, "u16")?, "u16", o)?),
        DataType::Uint32 => Value::U32(narrow(r.varint(enc, "u32")?, "u32", o)?),
        DataType::Pid => Value::Pid(narrow(r.varint(enc, "pid")?, "pid", o)?),
        DataType::ProcRank => Value::Rank(Rank(narrow(r.varint(enc, "rank")?, "rank", o)?)),
        DataType::Uint64 => Value::U64(r.varint(enc, "u64")?),
        DataType::Size => Value::Size(r.varint(enc, "size")?),
        DataType::Float => Value::F32(f32::from_bits(u32::from_le_bytes(r.array("f32")?))),
        DataType::Double => Value::F64(f64::from_bits(u64::from_le_bytes(r.array("f64")?))),
        DataType::String => {
            let rest = get_bytes(r, enc, usize::MAX, "string")?;
            let mut b = Vec::with_capacity(prefix.len() + rest.len());
            b.extend_from_slice(prefix);
            b.extend_from_slice(rest);
            Value::String(String::from_utf8(b).map_err(|_| Error::BadUtf8 {
                what: "string",
                offset: o,
            })?)
        }
        DataType::ByteObject => {
            let rest = get_bytes(r, enc, usize::MAX, "byte object")?;
            let mut b = Vec::with_capacity(prefix.len() + rest.len());
            b.extend_from_slice(prefix);
            b.extend_from_slice(rest);
            Value::Bytes(b)
        }
        DataType::Proc => {
            let ns = get_bytes(r, enc, MAX_NSLEN, "process namespace")?;
            let nspace = utf8(ns, "process namespace", o)?;
            let o2 = r.pos();
            let rank = Rank(narrow(r.varint(enc, "process rank")?, "process rank", o2)?);
            Value::Proc { nspace, rank }
        }
        DataType::DataArray => {
            let n = r.varint(enc, "array length")?;
            let n = bounded(n, r, 2, "array length", o)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(compact_decode_value(r, enc, depth + 1, &[])?);
            }
            Value::Array(items)
        }
    })
}

#[cfg(test)]
mod tests;
