//! Replays every committed fuzz corpus file through the same harness the fuzz target calls.

#[test]
fn replay_coflow_trace_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/coflow_trace");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("corpus directory exists") {
        let path = entry.expect("readable entry").path();
        let data = std::fs::read(&path).expect("readable corpus file");
        dag_sched::fuzz_harness::coflow_trace(&data);
        n += 1;
    }
    assert!(n >= 5, "expected the committed corpus, found {n} files");
}

#[test]
fn replay_dag_instance_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/dag_instance");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("corpus directory exists") {
        let path = entry.expect("readable entry").path();
        let data = std::fs::read(&path).expect("readable corpus file");
        dag_sched::fuzz_harness::dag_instance(&data);
        n += 1;
    }
    assert!(n >= 5, "expected the committed corpus, found {n} files");
}
