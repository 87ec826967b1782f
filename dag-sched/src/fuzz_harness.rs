//! Entry points for the cargo-fuzz targets in `fuzz/` (and the corpus replay test).

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
        for &id in &job.transfers()[..n] {
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
