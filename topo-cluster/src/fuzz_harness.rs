//! Entry points for the cargo-fuzz targets in `fuzz/` (and the corpus replay test).
//!
//! Each function takes arbitrary bytes and panics only when an invariant breaks.

use crate::mpi::{LevelMap, mpich, open_mpi, open_mpi_json};
use crate::{DecisionTable, Level};

/// The job size the harness writes for: one rank, which every table read back covers (the
/// readers do not use the job's size).
const ONE_RANK: usize = 1;

fn level_maps() -> [LevelMap; 2] {
    [
        LevelMap::single(Level::IntraCluster),
        // two distinct levels: cannot fail
        LevelMap::two_level(Level::IntraMachine, Level::IntraCluster)
            .unwrap_or(LevelMap::single(Level::IntraMachine)),
    ]
}

/// Every rule of `back` answers as `table`'s lookup does.
fn same_lookups(table: &DecisionTable, back: &DecisionTable) {
    for r in back.rules() {
        let orig = table
            .lookup(r.collective, r.level, r.procs, r.min_size)
            .expect("the read table has the rule's collective and level");
        assert_eq!(
            (orig.algorithm, orig.segment),
            (r.algorithm, r.segment),
            "write then read changed a choice"
        );
    }
}

/// Open MPI rules file readers (classic and JSON), with a single level and with two: any input either fails with
/// an error or reads into a table that writes, reads back with the same lookups, and whose
/// written form is a fixed point of read → write.
///
/// # Panics
/// When that round trip breaks (a bug).
pub fn open_mpi_rules(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (levels, version) in level_maps()
        .into_iter()
        .flat_map(|l| [(l, open_mpi::Version::V4_1), (l, open_mpi::Version::V4_1_8)])
    {
        let o = open_mpi::Options::for_job(ONE_RANK)
            .with_levels(levels)
            .with_version(version);
        if let Ok(table) = open_mpi::read(text, &o) {
            let written = open_mpi::write(&table, &o).expect("a table read back writes");
            let back = open_mpi::read(&written, &o).expect("a written file reads back");
            same_lookups(&table, &back);
            let again = open_mpi::write(&back, &o).expect("writes again");
            assert_eq!(again, written, "written form is not a fixed point");
        }
        // Open MPI tries the JSON layout first, then the classic one: so does the target
        if let Ok(table) = open_mpi_json::read(text, &levels) {
            let written = open_mpi_json::write(&table, &levels).expect("a table read back writes");
            let back = open_mpi_json::read(&written, &levels).expect("a written file reads back");
            same_lookups(&table, &back);
            let again = open_mpi_json::write(&back, &levels).expect("writes again");
            assert_eq!(again, written, "written JSON is not a fixed point");
        }
    }
}

/// MPICH JSON selection file reader: the same invariants as [`open_mpi_rules`].
///
/// # Panics
/// When the round trip breaks (a bug).
pub fn mpich_selection(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (levels, version) in level_maps()
        .into_iter()
        .flat_map(|l| [(l, mpich::Version::V4_0), (l, mpich::Version::V4_1)])
    {
        let o = mpich::Options::for_job(ONE_RANK)
            .with_levels(levels)
            .with_version(version);
        if let Ok(table) = mpich::read(text, &o) {
            let written = mpich::write(&table, &o).expect("a table read back writes");
            let back = mpich::read(&written, &o).expect("a written file reads back");
            same_lookups(&table, &back);
            let again = mpich::write(&back, &o).expect("writes again");
            assert_eq!(again, written, "written form is not a fixed point");
        }
    }
}

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

    fn replay(dir: &str, harness: fn(&[u8])) -> usize {
        let mut n = 0;
        for entry in std::fs::read_dir(Path::new(dir)).expect("corpus folder exists") {
            let path = entry.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable corpus file");
            harness(&data);
            n += 1;
        }
        n
    }

    /// Replays every committed corpus file through the harness (stable `cargo test`).
    #[test]
    fn replay_corpus() {
        let n = replay(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/corpus/topo_decision_table"
            ),
            super::decision_table,
        );
        assert!(n >= 3, "corpus has {n} files");
    }

    /// The Open MPI rules corpus, which holds files that read (so the round trip runs).
    #[test]
    fn replay_open_mpi_corpus() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/topo_open_mpi_rules"
        );
        assert!(replay(dir, super::open_mpi_rules) >= 4);
        let good = std::fs::read_to_string(format!("{dir}/classic.txt")).expect("corpus file");
        let o = crate::mpi::open_mpi::Options::for_job(super::ONE_RANK)
            .with_levels(super::level_maps()[1]);
        assert!(crate::mpi::open_mpi::read(&good, &o).is_ok());
        // tags are read by no release
        let tagged = std::fs::read_to_string(format!("{dir}/two_level.txt")).expect("file");
        assert!(crate::mpi::open_mpi::read(&tagged, &o).is_err());
        let json = std::fs::read_to_string(format!("{dir}/json_two_level.json")).expect("file");
        assert!(crate::mpi::open_mpi_json::read(&json, &super::level_maps()[1]).is_ok());
    }

    /// The MPICH selection corpus, which holds files that read.
    #[test]
    fn replay_mpich_corpus() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/topo_mpich_selection"
        );
        assert!(replay(dir, super::mpich_selection) >= 4);
        let good = std::fs::read_to_string(format!("{dir}/complete_two_level.json")).expect("file");
        let o = crate::mpi::mpich::Options::for_job(super::ONE_RANK)
            .with_levels(super::level_maps()[1]);
        assert!(crate::mpi::mpich::read(&good, &o).is_ok());
        // a file without every collective makes MPICH abort: refused
        let partial = std::fs::read_to_string(format!("{dir}/single.json")).expect("file");
        assert!(
            crate::mpi::mpich::read(
                &partial,
                &crate::mpi::mpich::Options::for_job(super::ONE_RANK)
            )
            .is_err()
        );
    }
}
