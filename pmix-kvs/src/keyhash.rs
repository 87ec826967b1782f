//! The store's key hashing and comparison on top of the workspace's hasher
//! ([`fabric_model::hash::FxHasher`], a word-at-a-time multiplicative hash): the hash of a
//! (process, key) pair for the client's cache and the key maps, and a byte-string equality
//! that compares short keys as words. The keys come from the node's own processes and the
//! resource manager, not from the network, so hash flooding is not a concern here.

use std::hash::Hasher;

use fabric_model::hash::FxHasher;

/// The hash of a (process, key) pair, for the client's cache table.
#[inline]
pub(crate) fn hash_pair(word: u64, key: &str) -> u64 {
    let mut h = FxHasher::default();
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn distinct_short_keys_hash_apart() {
        // Keys differing in the tail, in length only, or by trailing zero bytes.
        let keys = [
            "a",
            "a\0",
            "a\0\0\0\0\0\0\0",
            "a\0\0\0\0\0\0\0\0",
            "btl.tcp.addr",
            "btl.tcp.adds",
            "btl.tcp.addr0",
            "",
        ];
        let hashes: HashSet<u64> = keys.iter().map(|k| hash_pair(0, k)).collect();
        assert_eq!(hashes.len(), keys.len());
        // The process word matters too.
        assert_ne!(hash_pair(1, "btl.tcp.addr"), hash_pair(2, "btl.tcp.addr"));
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
    fn bucket_bits_spread_for_sequential_processes() {
        // hashbrown takes the bucket from the low bits: 1024 consecutive ranks must not pile
        // into a few of 1024 buckets.
        let buckets: HashSet<u64> = (0u64..1024).map(|r| hash_pair(r, "k") & 1023).collect();
        assert!(buckets.len() > 512, "{} buckets used", buckets.len());
    }
}
