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
