//! Replays the committed fuzz corpus (`fuzz/corpus/pmix_blob_decode/`) through the same
//! harness as the cargo-fuzz target, so that `cargo test` covers it on stable.

use std::path::Path;

#[test]
fn replay_pmix_blob_decode_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/pmix_blob_decode");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("the corpus directory exists") {
        let path = entry.expect("readable entry").path();
        let data = std::fs::read(&path).expect("readable corpus file");
        pmix_kvs::fuzz_harness::blob_decode(&data);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // Hand-made valid blobs must decode; the broken ones must not.
        let valid = !(name.starts_with("truncated") || name.starts_with("bad"));
        assert_eq!(
            pmix_kvs::codec::decode(&data).is_ok(),
            valid,
            "{}",
            path.display()
        );
        files += 1;
    }
    assert!(files >= 5, "corpus has {files} files");
}
