//! Entry points for the cargo-fuzz targets in the workspace's `fuzz/` folder, kept in the
//! library so that a stable test replays the committed corpus (`tests/corpus/<target>/` of
//! this package) through the same code. Compiled only for tests and under `cfg(fuzzing)`
//! (cargo-fuzz sets it); not part of the public API.
//!
//! Each function takes arbitrary bytes, must never panic, and checks the invariants that hold
//! for any input (panicking only when one is broken, which is what the fuzzer looks for).

use crate::codec::{self, CompactOptions, IntEncoding, Layout};

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

#[cfg(test)]
mod tests {
    /// Replays every committed corpus file of the `pmix_blob_decode` target: hand-made valid
    /// blobs must decode, the broken ones (`truncated*`, `bad*`) must not.
    #[test]
    fn replay_pmix_blob_decode_corpus() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/pmix_blob_decode");
        let mut files = 0;
        for entry in std::fs::read_dir(dir).expect("the corpus directory exists") {
            let path = entry.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable corpus file");
            super::blob_decode(&data);
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let valid = !(name.starts_with("truncated") || name.starts_with("bad"));
            assert_eq!(
                crate::codec::decode(&data).is_ok(),
                valid,
                "{}",
                path.display()
            );
            files += 1;
        }
        assert!(files >= 5, "corpus at {dir} has {files} files");
    }
}
