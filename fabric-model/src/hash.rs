//! The workspace's hasher: a word-at-a-time multiplicative hash (the `FxHash` of Firefox and
//! rustc, with rustc-hash 2's multiplier) for small keys: node names, ranks, process ids and
//! key strings of a few dozen bytes, where SipHash's set-up and FNV-1a's byte-at-a-time loop
//! dominate a look-up. It folds up to eight bytes per multiply, tags the last word with the
//! length (so `"a"` and `"a\0"` differ) and rotates the product's high bits down in
//! `finish`, since hashbrown takes buckets from the low bits.
//!
//! It is deterministic (no random seed) and **not** resistant to hash flooding: use it for
//! keys that come from the caller's own files and processes, not from an attacker.
//!
//! ```
//! use fabric_model::hash::FxHashMap;
//!
//! let mut m: FxHashMap<&str, u32> = FxHashMap::default();
//! m.insert("btl.tcp.addr", 7);
//! assert_eq!(m.get("btl.tcp.addr"), Some(&7));
//! ```

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The odd multiplier of rustc-hash 2 (`0xf1357aea2e62a9c5`).
const K: u64 = 0xf135_7aea_2e62_a9c5;

/// The hasher: `h = (h.rotl(5) ^ word) * K` per word of up to eight bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
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

/// The [`BuildHasher`](std::hash::BuildHasher) of [`FxHasher`].
pub type FxBuildHasher = BuildHasherDefault<FxHasher>;

/// A `HashMap` hashed with [`FxHasher`].
pub type FxHashMap<K, V> = HashMap<K, V, FxBuildHasher>;

/// A `HashSet` hashed with [`FxHasher`].
pub type FxHashSet<T> = HashSet<T, FxBuildHasher>;

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::*;

    fn hash<T: std::hash::Hash + ?Sized>(v: &T) -> u64 {
        FxBuildHasher::default().hash_one(v)
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
        let hashes: FxHashSet<u64> = keys.iter().map(|k| hash(k.as_slice())).collect();
        assert_eq!(hashes.len(), keys.len());
    }

    #[test]
    fn bucket_bits_spread_for_sequential_ranks() {
        // hashbrown takes the bucket from the low bits: 1024 consecutive ranks must not pile
        // into a few of 1024 buckets.
        let buckets: FxHashSet<u64> = (0u32..1024).map(|r| hash(&r) & 1023).collect();
        assert!(buckets.len() > 512, "{} buckets used", buckets.len());
    }
}
