//! Replays every committed fuzz corpus file through the fuzz harness, on stable.

#[test]
fn replay_ibnetdiscover_corpus() {
    let dir = format!(
        "{}/../fuzz/corpus/ibnetdiscover",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        fabric_model::fuzz_harness::ibnetdiscover(&data);
        n += 1;
    }
    assert!(n >= 5, "corpus at {dir} has {n} files");
}
