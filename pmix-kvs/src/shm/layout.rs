//! The store image's words: where each field sits in a region's data area, how records
//! are hashed, how bytes are packed into words and fixed-size values into one word.

use crate::ident::Rank;
use crate::keyhash::hash_pair;
use crate::keys;
use crate::value::{DataType, Value};

/// The image's magic, `b"PMIXKVS2"` as a native-endian `u64` (data word 0): image layout
/// 2, whose namespace entries carry the name's hash (layout 1's did not).
pub(crate) const STORE_MAGIC: u64 = u64::from_ne_bytes(*b"PMIXKVS2");

/// Data word 0: [`STORE_MAGIC`] once the first image is published.
pub(crate) const W_MAGIC: usize = 0;
/// Data word 1: which half holds the current image (bits 0..8: 0 none yet, 1 or 2; 3 the
/// store moved to another region) and the publish sequence (bits 8..).
pub(crate) const W_CURRENT: usize = 1;
/// Data word 2: after a move, the successor's identity the writer gave.
pub(crate) const W_SUCCESSOR: usize = 2;
/// Data word 3: after a move, the successor region's length in bytes.
pub(crate) const W_SUCCESSOR_LEN: usize = 3;
/// Control words before the first half.
pub(crate) const CONTROL: usize = 4;

/// `W_CURRENT`'s half code for "the store has moved".
pub(crate) const MOVED: u64 = 3;

/// Half header, in words from the half's start: words the image uses.
pub(crate) const H_USED: usize = 0;
/// The publish sequence of this image.
pub(crate) const H_SEQ: usize = 1;
/// The store's fence epoch when it was published.
pub(crate) const H_EPOCH: usize = 2;
/// Entries of the namespace table.
pub(crate) const H_NSPACES: usize = 3;
/// Offset of the namespace table.
pub(crate) const H_NSTAB: usize = 4;
/// Buckets of the record index (a power of two).
pub(crate) const H_BUCKETS: usize = 5;
/// Offset of the record index.
pub(crate) const H_BUCKTAB: usize = 6;
/// Records in the image.
pub(crate) const H_RECORDS: usize = 7;
/// Words of the half header.
pub(crate) const HALF_HEADER: usize = 8;

/// Words per namespace-table entry: size, name length and flags; name offset; name hash.
pub(crate) const NS_ENTRY: usize = 3;
/// Namespace entry flag: the entry is a namespace (not a gap in the indices).
pub(crate) const NS_PRESENT: u64 = 1 << 48;
/// Namespace entry flag: the job is registered.
pub(crate) const NS_REGISTERED: u64 = 1 << 49;

/// Words of a record before its key: process, descriptor, value word.
pub(crate) const REC_HEAD: usize = 3;
/// Record flag: the rank is on this node.
pub(crate) const REC_ON_NODE: u64 = 1;
/// Record flag: the key exists only where this node's processes cannot see it.
pub(crate) const REC_OUTSIDE: u64 = 2;

/// Words of each half of a data area of `words` words.
pub(crate) fn half_words(words: usize) -> usize {
    words.saturating_sub(CONTROL) / 2
}

/// The first word of half `which` (1 or 2).
pub(crate) fn half_base(which: u64, words: usize) -> Option<usize> {
    match which {
        1 => Some(CONTROL),
        2 => Some(CONTROL + half_words(words)),
        _ => None,
    }
}

/// The record word naming a process: namespace index (low half) and rank (high half).
pub(crate) fn proc_word(ns: u32, rank: Rank) -> u64 {
    u64::from(ns) | u64::from(rank.get()) << 32
}

/// The index hash of a record: the key hashed with its process word (a stable hash: every
/// process computes the same, whatever its address space).
pub(crate) fn record_hash(ns: u32, rank: Rank, key: &str) -> u64 {
    hash_pair(proc_word(ns, rank), key)
}

/// A record's descriptor word: key length, type code, scope code (0 for none) and flags.
pub(crate) fn descriptor(key_len: usize, code: u16, scope: u8, flags: u64) -> u64 {
    (key_len as u64 & 0xFFFF) | u64::from(code) << 16 | u64::from(scope) << 32 | flags << 40
}

/// The fields of a descriptor word: key length, type code, scope code, flags.
pub(crate) fn split_descriptor(d: u64) -> (usize, u16, u8, u64) {
    (
        (d & 0xFFFF) as usize,
        ((d >> 16) & 0xFFFF) as u16,
        ((d >> 32) & 0xFF) as u8,
        d >> 40,
    )
}

/// Words holding `len` bytes.
pub(crate) fn byte_words(len: usize) -> usize {
    len.div_ceil(8)
}

/// Word `i` of `bytes` packed little-endian, zero-padded at the end.
#[inline]
pub(crate) fn chunk(bytes: &[u8], i: usize) -> u64 {
    let start = i.saturating_mul(8);
    if let Some(w) = bytes.get(start..start.saturating_add(8)) {
        // A whole word: a fixed-size copy, one load (no `memcpy` call).
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        return u64::from_le_bytes(a);
    }
    bytes
        .get(start..)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .fold(0, |w, (k, &b)| w | u64::from(b) << (8 * k))
}

/// Appends `bytes` packed into words.
pub(crate) fn pack(bytes: &[u8], out: &mut Vec<u64>) {
    out.extend((0..byte_words(bytes.len())).map(|i| chunk(bytes, i)));
}

/// A fixed-size value as one word; `None` for strings, bytes, processes and arrays.
pub(crate) fn fixed_bits(v: &Value) -> Option<u64> {
    Some(match *v {
        Value::Bool(b) => u64::from(b),
        Value::Byte(b) | Value::U8(b) => u64::from(b),
        Value::Size(x) | Value::U64(x) => x,
        Value::Pid(x) | Value::U32(x) => u64::from(x),
        Value::I8(x) => u64::from(x.cast_unsigned()),
        Value::I16(x) => u64::from(x.cast_unsigned()),
        Value::I32(x) => u64::from(x.cast_unsigned()),
        Value::I64(x) => x.cast_unsigned(),
        Value::U16(x) => u64::from(x),
        Value::F32(x) => u64::from(x.to_bits()),
        Value::F64(x) => x.to_bits(),
        Value::Rank(r) => u64::from(r.get()),
        _ => return None,
    })
}

/// The fixed-size value of type `ty` held in `bits`; `None` when `ty` is not fixed-size or
/// `bits` is not a value of that type (out of its range).
pub(crate) fn fixed_value(ty: DataType, bits: u64) -> Option<Value> {
    let u8_ = || u8::try_from(bits).ok();
    let u16_ = || u16::try_from(bits).ok();
    let u32_ = || u32::try_from(bits).ok();
    Some(match ty {
        DataType::Bool => Value::Bool(match bits {
            0 => false,
            1 => true,
            _ => return None,
        }),
        DataType::Byte => Value::Byte(u8_()?),
        DataType::Uint8 => Value::U8(u8_()?),
        DataType::Size => Value::Size(bits),
        DataType::Uint64 => Value::U64(bits),
        DataType::Pid => Value::Pid(u32_()?),
        DataType::Uint32 => Value::U32(u32_()?),
        DataType::Int8 => Value::I8(u8_()?.cast_signed()),
        DataType::Int16 => Value::I16(u16_()?.cast_signed()),
        DataType::Int32 => Value::I32(u32_()?.cast_signed()),
        DataType::Int64 => Value::I64(bits.cast_signed()),
        DataType::Uint16 => Value::U16(u16_()?),
        DataType::Float => Value::F32(f32::from_bits(u32_()?)),
        DataType::Double => Value::F64(f64::from_bits(bits)),
        DataType::ProcRank => Value::Rank(Rank::new(u32_()?)),
        _ => return None,
    })
}

/// The hash of a namespace name that its table entry records and its handles carry (a
/// stable hash: every process computes the same).
pub(crate) fn name_hash(name: &str) -> u64 {
    hash_pair(u64::MAX, name)
}

/// Whether a reserved key is answered per rank (from the job's process map) rather than
/// from the job-level data.
pub(crate) fn per_rank_key(key: &str) -> bool {
    matches!(
        key,
        keys::RANK
            | keys::NODE_ID
            | keys::HOSTNAME
            | keys::LOCAL_RANK
            | keys::NODE_RANK
            | keys::LOCALITY
    )
}
