//! Entry points for the cargo-fuzz targets (`coflow_trace`, `dag_instance`) and the replay of
//! their committed corpora (`tests/corpus/`). Compiled for tests and under `--cfg fuzzing` only.

use crate::trace::Trace;

/// Parses arbitrary bytes as a coflow trace; when it parses, writing it back and reparsing must
/// give the same trace. Never panics on any input (a panic is a bug the fuzzer reports).
pub fn coflow_trace(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(trace) = Trace::parse(text) {
        let mut out = String::new();
        trace
            .write(&mut out)
            .expect("writing to a String cannot fail");
        let again = Trace::parse(&out).expect("a written trace parses");
        assert_eq!(again, trace, "write-parse round trip");
    }
}

/// Parses arbitrary bytes as a JSON job set ([`crate::instance`]); when it parses, the LP's
/// transfers must be `⌈α·n⌉` per job, on the cluster's machines, with the job's sizes and a
/// window that does not end before it starts. Never panics on any input.
#[cfg(feature = "json")]
pub fn dag_instance(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(inst) = crate::instance::Instance::parse(text) else {
        return;
    };
    let ts = inst
        .lp_transfers()
        .expect("a parsed instance has a valid alpha");
    let mut k = 0;
    for job in inst.jobs() {
        let n = crate::lp::alpha_prefix(job.transfers().len(), inst.alpha())
            .expect("a parsed instance has a valid alpha");
        let est = crate::lat::estimate(job, inst.cluster(), crate::LatMethod::Algorithm1);
        for id in crate::lp::alpha_selection(job, &est, n) {
            let t = ts.get(k).expect("one LP transfer per selected transfer");
            let crate::NodeKind::Transfer { size, src, dst } = job.node(id) else {
                panic!("transfers() lists transfers");
            };
            assert_eq!((t.size, t.src, t.dst), (size, src, dst));
            assert!(inst.cluster().machine(t.src).is_some());
            assert!(inst.cluster().machine(t.dst).is_some());
            assert!(
                t.deadline >= t.release,
                "window ends before it starts: {t:?}"
            );
            k += 1;
        }
    }
    assert_eq!(k, ts.len(), "no extra LP transfer");
}

#[cfg(test)]
mod tests {
    /// Runs `check` on every file of the committed corpus of `target`; returns how many.
    fn replay(target: &str, check: fn(&[u8])) -> usize {
        let dir =
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus")).join(target);
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).expect("corpus directory exists") {
            let path = entry.expect("readable entry").path();
            check(&std::fs::read(&path).expect("readable corpus file"));
            n += 1;
        }
        n
    }

    #[test]
    fn replay_coflow_trace_corpus() {
        let n = replay("coflow_trace", super::coflow_trace);
        assert!(n >= 5, "expected the committed corpus, found {n} files");
    }

    #[test]
    #[cfg(feature = "json")]
    fn replay_dag_instance_corpus() {
        let n = replay("dag_instance", super::dag_instance);
        assert!(n >= 5, "expected the committed corpus, found {n} files");
    }
}
