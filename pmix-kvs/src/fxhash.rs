//! A word-at-a-time multiplicative hasher (the `FxHash` of Firefox and rustc, written out
//! here rather than taken as a dependency) for the store's small keys: ranks, process ids and
//! key strings of a few dozen bytes, where SipHash's setup and FNV-1a's byte-at-a-time loop
//! (one dependent multiply per byte: 13 for `"btl.tcp.addr"`) dominate a lookup. This one
//! folds up to eight bytes per multiply (2 + 1 for the same key, the last for the string terminator). The keys come from the node's own
//! processes and the resource manager, not from the network, so hash flooding is not a
//! concern here.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The odd multiplier of rustc-hash 2 (`0xf1357aea2e62a9c5`).
const K: u64 = 0xf135_7aea_2e62_a9c5;

/// The hasher: `h = (h.rotl(5) ^ word) * K` per word of up to eight bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Fx(u64);

impl Fx {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for Fx {
    #[inline]
    fn finish(&self) -> u64 {
        // The product's entropy sits in the high bits; hashbrown indexes buckets by the low
        // ones, so bring the high bits down.
        self.0.rotate_left(26)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let len = bytes.len();
        // The length goes into the top byte of the last word so that "a" and "a\0" differ
        // (str's own terminator byte does not tell them apart once the tail is zero-padded).
        let tag = (len as u64) << 56;
        if len > 8 {
            let mut i = 0;
            while i + 8 < len {
                self.add(read8(bytes, i));
                i += 8;
            }
            // The last 1..=8 bytes, read as the (overlapping) last eight.
            self.add(read8(bytes, len - 8) ^ tag);
        } else if len >= 4 {
            // Two overlapping four-byte reads cover 4..=8 bytes without a copy loop.
            let lo = u64::from(read4(bytes, 0));
            let hi = u64::from(read4(bytes, len - 4));
            self.add((lo | hi << 32) ^ tag);
        } else if len > 0 {
            let w = u64::from(bytes[0])
                | u64::from(bytes[len / 2]) << 8
                | u64::from(bytes[len - 1]) << 16;
            self.add(w ^ tag);
        }
    }

    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.add(u64::from(v));
    }

    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }

    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
}

/// The hash of a (process, key) pair, for the client's cache table.
#[inline]
pub(crate) fn hash_pair(word: u64, key: &str) -> u64 {
    let mut h = Fx::default();
    h.write_u64(word);
    h.write(key.as_bytes());
    h.finish()
}

/// `a == b` for byte strings, comparing keys of up to 16 bytes as two (overlapping) words in
/// line rather than through a `memcmp` call.
#[inline]
pub(crate) fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    if (8..=16).contains(&len) {
        read8(a, 0) == read8(b, 0) && read8(a, len - 8) == read8(b, len - 8)
    } else if (4..8).contains(&len) {
        read4(a, 0) == read4(b, 0) && read4(a, len - 4) == read4(b, len - 4)
    } else {
        a == b
    }
}

/// Eight bytes of `b` from `i` (the caller keeps `i + 8 <= b.len()`).
#[inline]
fn read8(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// Four bytes of `b` from `i` (the caller keeps `i + 4 <= b.len()`).
#[inline]
fn read4(b: &[u8], i: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[i..i + 4]);
    u32::from_le_bytes(w)
}

/// A `HashMap` hashed with [`Fx`].
pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    use super::*;

    fn hash<T: std::hash::Hash + ?Sized>(v: &T) -> u64 {
        BuildHasherDefault::<Fx>::default().hash_one(v)
    }

    #[test]
    fn distinct_short_keys_hash_apart() {
        // Keys differing in the tail, in length only, or by trailing zero bytes.
        let keys: Vec<Vec<u8>> = vec![
            b"a".to_vec(),
            b"a\0".to_vec(),
            b"a\0\0\0\0\0\0\0".to_vec(),
            b"a\0\0\0\0\0\0\0\0".to_vec(),
            b"btl.tcp.addr".to_vec(),
            b"btl.tcp.adds".to_vec(),
            b"btl.tcp.addr0".to_vec(),
            Vec::new(),
        ];
        let hashes: HashSet<u64> = keys.iter().map(|k| hash(k.as_slice())).collect();
        assert_eq!(hashes.len(), keys.len());
    }

    #[test]
    fn bytes_eq_is_equality() {
        let words: Vec<&[u8]> = vec![
            b"",
            b"a",
            b"b",
            b"abc",
            b"abd",
            b"abcd",
            b"abce",
            b"abcdefg",
            b"abcdefh",
            b"bbcdefg",
            b"btl.tcp.addr",
            b"btl.tcp.adds",
            b"ctl.tcp.addr",
            b"btl.tcp.addr.v",
            b"0123456789abcdef",
            b"0123456789abcdeg",
            b"0123456789abcdef0",
            b"0123456789abcdef1",
            b"1123456789abcdef0",
        ];
        for a in &words {
            for b in &words {
                assert_eq!(bytes_eq(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn bucket_bits_spread_for_sequential_ranks() {
        // hashbrown takes the bucket from the low bits: 1024 consecutive ranks must not pile
        // into a few of 1024 buckets.
        let buckets: HashSet<u64> = (0u32..1024).map(|r| hash(&r) & 1023).collect();
        assert!(buckets.len() > 512, "{} buckets used", buckets.len());
    }
}
