//! Entry points for the cargo-fuzz targets in `fuzz/` (and the corpus replay test).
//!
//! Each function takes arbitrary bytes and panics only when an invariant breaks.

use crate::DecisionTable;

/// Decision-table text reader: any input either fails with an error or reads into a table
/// whose written form reads back to the same table and is a fixed point of read → write.
///
/// # Panics
/// When that round trip breaks (a bug).
pub fn decision_table(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(table) = DecisionTable::parse(text) {
        let written = table.to_text();
        let back = DecisionTable::parse(&written).expect("a written table reads back");
        assert_eq!(back, table, "write then read changed the table");
        assert_eq!(back.to_text(), written, "written form is not a fixed point");
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Replays every committed corpus file through the harness (stable `cargo test`).
    #[test]
    fn replay_corpus() {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/topo_decision_table"
        ));
        let mut n = 0;
        for entry in std::fs::read_dir(dir).expect("corpus folder exists") {
            let path = entry.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable corpus file");
            super::decision_table(&data);
            n += 1;
        }
        assert!(n >= 3, "corpus has {n} files");
    }
}
