//! Replays every committed fuzz corpus file through the same harness the fuzz targets call.

use std::path::Path;

fn replay(target: &str, harness: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("corpus folder exists") {
        let path = entry.expect("readable entry").path();
        harness(&std::fs::read(&path).expect("readable corpus file"));
        n += 1;
    }
    assert!(n >= 3, "corpus {} has {n} files", dir.display());
}

#[test]
fn rdma_decode_corpus() {
    replay("rdma_decode", rdma_window::fuzz_harness::decode);
}

#[test]
fn rdma_receiver_corpus() {
    replay("rdma_receiver", rdma_window::fuzz_harness::receiver);
}

#[test]
fn harnesses_take_arbitrary_bytes() {
    // A deterministic sweep of short inputs, as a smoke test of the no-panic contract.
    let mut x = 0x1234_5678_9abc_def0u64;
    for len in 0..200 {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()[0]
            })
            .collect();
        rdma_window::fuzz_harness::decode(&bytes);
        rdma_window::fuzz_harness::receiver(&bytes);
    }
}
