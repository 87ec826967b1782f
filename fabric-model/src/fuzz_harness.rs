//! Entry points for the cargo-fuzz targets in `fuzz/`, kept in the library so that a stable
//! test can replay the committed corpus (`tests/corpus/<target>/` of this package) through the
//! same code. Compiled only for tests and under `cfg(fuzzing)` (cargo-fuzz sets it); not part
//! of the public API.

/// Parses `data` as ibnetdiscover text; when it parses, writes it back and checks that reading
/// the written text gives the same fabric.
///
/// # Panics
/// When the round trip does not give back an equal fabric: that is the bug the fuzzer hunts.
pub fn ibnetdiscover(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(fabric) = crate::ibnet::read_ibnetdiscover(text) {
        let written = crate::ibnet::write_ibnetdiscover(&fabric);
        let again = crate::ibnet::read_ibnetdiscover(&written);
        assert_eq!(again.as_ref(), Ok(&fabric), "round trip of:\n{written}");
    }
}

#[cfg(test)]
mod tests {
    /// Replays every committed corpus file of the `ibnetdiscover` target.
    #[test]
    fn replay_ibnetdiscover_corpus() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/ibnetdiscover");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let data = std::fs::read(entry.unwrap().path()).unwrap();
            super::ibnetdiscover(&data);
            n += 1;
        }
        assert!(n >= 5, "corpus at {dir} has {n} files");
    }
}
