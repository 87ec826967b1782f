//! Entry points for the cargo-fuzz targets in `fuzz/` (and the corpus replay test).
//!
//! Each function takes arbitrary bytes, must never panic, and checks the invariants that hold
//! for any input (panicking only when one is broken, which is what the fuzzer looks for).

use crate::codec::{self, CompactOptions, Layout};
use crate::varint::IntEncoding;

/// Target `pmix_blob_decode`: decodes arbitrary bytes as a fence blob; whatever decodes must
/// re-encode in every layout and decode back to the same blob.
///
/// # Panics
/// Only when that round trip fails (a codec bug).
pub fn blob_decode(data: &[u8]) {
    let Ok(blob) = codec::decode(data) else {
        return;
    };
    for layout in [
        Layout::Naive,
        Layout::Compact(CompactOptions::default()),
        Layout::Compact(CompactOptions {
            ints: IntEncoding::Flex128,
            shared_prefix: false,
        }),
    ] {
        let bytes = codec::encode(&blob, layout).expect("a decoded blob re-encodes");
        let again = codec::decode(&bytes).expect("an encoded blob decodes");
        assert_eq!(again, blob, "round trip through {layout:?}");
    }
}
