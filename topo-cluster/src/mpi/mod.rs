//! The decision table in the files MPI libraries read: Open MPI's `coll_tuned` dynamic rules
//! file ([`open_mpi`]), the JSON layout of Open MPI's main branch ([`open_mpi_json`], read
//! by no release yet), and MPICH's JSON collective selection file ([`mpich`]).
//!
//! **Each file is for one library version** ([`open_mpi::Version`], [`mpich::Version`] in
//! the writers' options) and holds only what that version reads; **each library needs its
//! own table**, computed among the trees the version has ([`open_mpi::Version::trees`],
//! [`mpich::Version::trees`], passed to [`Compute::among`](crate::decision::Compute::among)).
//! The writers take a [`DecisionTable`](crate::DecisionTable) and a [`LevelMap`]; both
//! readers give a table back and refuse, with its line (Open MPI) or JSON path (MPICH), a
//! bad file and a file the version would misread. Writing, reading and writing again gives
//! the same text.
//!
//! # Which library reads which file
//!
//! | file (writer options) | Open MPI 4.1.0–4.1.7, 5.0.0–5.0.6 | Open MPI ≥ 4.1.8, ≥ 5.0.7 | MPICH 4.0.x | MPICH ≥ 4.1 |
//! |---|---|---|---|---|
//! | [`open_mpi`], `Version::V4_1` (classic, one level) | read and followed: run on Debian 12's 4.1.4, every case observed | read and followed: run on Debian 13's 5.0.7, every case observed | – | – |
//! | [`open_mpi`], `Version::V4_1_8` with `Layout::MaxRequests` | **not read**: the whole file is ignored, run on 4.1.4 | read and followed: run on Debian 13's 5.0.7, every case observed | – | – |
//! | topology tags (`0@singlenode`), no longer written | **misread**: tag dropped, levels merged (source; the reader refuses them) | misread (source) | – | – |
//! | [`open_mpi_json`] | **not read**: ignored, run on 4.1.4 (no release has the JSON reader) | **not read**: ignored, run on 5.0.7 | – | – |
//! | [`mpich`], `Version::V4_0` | – | – | read and followed: run on Debian 12's 4.0.2, every case observed | **aborts** in `MPI_Init` (`unrecognized key algorithm=MPIR_Barrier_intra_dissemination`): run on Debian 13's MPICH 4.2.1 |
//! | [`mpich`], `Version::V4_1` | – | – | **aborts** in `MPI_Init` (`unrecognized key`): run on 4.0.2 | read and followed: run on Debian 13's MPICH 4.2.1, every case observed |
//!
//! "Run" means the conformance script of the crate (`conformance/run.sh`, `--debian 13` for
//! Debian 13's libraries) ran a program under the file and observed in the library which
//! algorithm function each collective called (for MPICH 4.2.1 also with which k-ary tree
//! parameters and on which communicator); "source" means read from the library's source at
//! that release, not run.
//!
//! # Mapping of topo-cluster's trees
//!
//! | collective | topo-cluster | Open MPI `coll_tuned` algorithm (faninout, segsize) | MPICH algorithm (parameters) |
//! |---|---|---|---|
//! | bcast | `flat` | 1 `basic_linear` (0, 0) | none |
//! | bcast | `seg-flat` | none | none |
//! | bcast | `chain` | 2 `chain` (1, 0) | from 4.1: `MPIR_Bcast_intra_tree` (`tree_type=kary`, `is_non_blocking=0`, `k=1`) |
//! | bcast | `seg-chain` s | 3 `pipeline` (0, s) | from 4.1: `MPIR_Bcast_intra_pipelined_tree` (`tree_type=kary`, `is_non_blocking=0`, `k=1`, `chunk_size=s`, `recv_pre_posted=0`) |
//! | bcast | `binary` | 5 `binary_tree` (0, 0) | from 4.1: `MPIR_Bcast_intra_tree` (`tree_type=kary`, `is_non_blocking=0`, `k=2`) |
//! | bcast | `binomial` | 6 `binomial` (0, 0) | `MPIR_Bcast_intra_binomial` |
//! | scatter | `flat` | 1 `basic_linear` (0, 0) | none |
//! | scatter | `chain` | none | none |
//! | scatter | `binomial` | 2 `binomial` (0, 0) | `MPIR_Scatter_intra_binomial` |
//! | gather | `flat` | 1 `basic_linear` (0, 0) | none |
//! | gather | `chain` | none | none |
//! | gather | `binomial` | 2 `binomial` (0, 0) | `MPIR_Gather_intra_binomial` |
//! | alltoall | `direct` | 2 `pairwise` (0, 0) | `MPIR_Alltoall_intra_pairwise` |
//!
//! A "none" is reported: the writers fail with [`Error::NoEquivalent`]
//! naming the library, the collective and the tree, and never write another tree in its place.
//! The readers accept the pairs of the table, and in Open MPI files also algorithm 2 `chain`
//! with faninout 1 and a segment size (read as `seg-chain`) and algorithm 3 `pipeline` with
//! segment size 0 (read as `chain`), which build the same trees; anything else (Open MPI's
//! algorithm 0, which defers to its fixed rules, a chain of several chains, a segmented binary
//! or binomial tree, a k-ary tree with k > 2, …) is refused with its line or path.
//!
//! What the table equates is the tree's shape (who sends to whom); the libraries may order a
//! rank's sends differently (Open MPI's and MPICH's binomial trees, MPICH's pairwise exchange,
//! which pairs ranks by exclusive or when P is a power of two, where `direct` sends to
//! (i + k) mod P). A flat broadcast could be written for MPICH as a k-ary tree with k ≥ P − 1,
//! but a rule covers a range of communicator sizes, the last one unbounded: not done.
//!
//! # Sources and versions followed
//! Read from the public source of Open MPI at v4.1.4, v4.1.8, v5.0.7 and its main branch
//! (August 2026): `ompi/mca/coll/tuned/coll_tuned_dynamic_file.c`,
//! `coll_tuned_dynamic_rules.c`, `coll_tuned_decision_dynamic.c` (the sizes compared), the
//! `coll_tuned_*_decision.c` algorithm lists, `ompi/mca/coll/base/coll_base_util.c` (the
//! number reader) and the collective ids of `coll_base_functions.h` (bcast 7, scatter 15,
//! gather 9, alltoall 3); and of MPICH at v4.0.2, v4.1 and v4.2.1: `src/mpi/coll/src/csel.c`,
//! `csel_container.c` and `maint/tuning/coll/mpir/generic.json`. The files were run through
//! Open MPI 4.1.4 and MPICH 4.0.2 (Debian 12's packages) and Open MPI 5.0.7 and MPICH 4.2.1
//! (Debian 13's).

use crate::{Error, Level};

mod json;
pub mod mpich;
pub mod open_mpi;
pub mod open_mpi_json;

/// Which hierarchy level a file's rules describe.
///
/// [`LevelMap::single`] writes one level's rules for every communicator (Open MPI's rules,
/// MPICH's `comm_hierarchy=any`); [`LevelMap::two_level`] writes one level as the intra-node
/// rules (the communicators of one machine) and one as the inter-node rules (communicators
/// with one rank per machine), as the hierarchy of [`Hierarchy`](crate::Hierarchy) splits
/// them: `two_level(IntraMachine, IntraCluster)` is machines, then the machine leaders of a
/// cluster. A format without levels (every released Open MPI) writes a two-level map's
/// inter-node level: the communicators that span machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelMap {
    any: Option<Level>,
    intra_node: Option<Level>,
    inter_node: Option<Level>,
}

/// The topology scope of a rule in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Scope {
    /// Every communicator.
    Any,
    /// Communicators inside one machine.
    IntraNode,
    /// Communicators with one rank per machine.
    InterNode,
}

impl LevelMap {
    /// `level`'s rules for every communicator.
    #[must_use]
    pub const fn single(level: Level) -> Self {
        Self {
            any: Some(level),
            intra_node: None,
            inter_node: None,
        }
    }

    /// `intra_node`'s rules for the communicators of one machine and `inter_node`'s for the
    /// communicators with one rank per machine.
    ///
    /// # Errors
    /// [`Error::SameLevelTwice`] when both are the same level.
    pub fn two_level(intra_node: Level, inter_node: Level) -> Result<Self, Error> {
        if intra_node == inter_node {
            return Err(Error::SameLevelTwice {
                level: intra_node.name(),
            });
        }
        Ok(Self {
            any: None,
            intra_node: Some(intra_node),
            inter_node: Some(inter_node),
        })
    }

    /// Whether the map has the two levels of [`LevelMap::two_level`].
    #[must_use]
    pub const fn is_two_level(&self) -> bool {
        self.any.is_none()
    }

    /// The scopes of the map with their levels, in the order files list them.
    pub(crate) fn scopes(&self) -> Vec<(Scope, Level)> {
        [
            (Scope::Any, self.any),
            (Scope::IntraNode, self.intra_node),
            (Scope::InterNode, self.inter_node),
        ]
        .into_iter()
        .filter_map(|(s, l)| l.map(|l| (s, l)))
        .collect()
    }

    /// The one level of a format without topology levels: the single level, or the
    /// inter-node level of a two-level map (the communicators that span machines).
    pub(crate) fn one_level(&self) -> Level {
        match (self.any, self.inter_node) {
            (Some(l), _) | (None, Some(l)) => l,
            // two_level always sets both levels
            (None, None) => Level::IntraCluster,
        }
    }

    /// The level of `scope`, if the map has one.
    pub(crate) fn level(&self, scope: Scope) -> Option<Level> {
        match scope {
            Scope::Any => self.any,
            Scope::IntraNode => self.intra_node,
            Scope::InterNode => self.inter_node,
        }
    }
}

/// Checks that every rule's level has a scope in `levels`.
pub(crate) fn check_levels(
    table: &crate::DecisionTable,
    levels: &LevelMap,
    library: &'static str,
) -> Result<(), Error> {
    let mapped = levels.scopes();
    for r in table.rules() {
        if !mapped.iter().any(|&(_, l)| l == r.level) {
            return Err(Error::LevelNotMapped {
                library,
                level: r.level.name(),
            });
        }
    }
    Ok(())
}

/// Checks that `job` is at least one rank and that every collective with rules at `level`
/// (the level written for every communicator) has rules for a group of `job` processes or
/// more, so that the job's `MPI_COMM_WORLD` gets its own rules, not a smaller
/// communicator's.
pub(crate) fn check_job(
    table: &crate::DecisionTable,
    level: Level,
    job: usize,
    library: &'static str,
) -> Result<(), Error> {
    if job == 0 {
        return Err(Error::NoProcesses);
    }
    for c in crate::Collective::ALL {
        let largest = table
            .rules()
            .iter()
            .filter(|r| r.collective == c && r.level == level)
            .map(|r| r.procs)
            .max();
        if let Some(largest) = largest
            && largest < job
        {
            return Err(Error::JobNotCovered {
                library,
                collective: c.name(),
                level: level.name(),
                largest,
                job,
            });
        }
    }
    Ok(())
}

/// The rules of `collective` at `level` that apply to `procs` processes under the table's
/// lookup (the largest group size ≤ `procs`, else the smallest), sorted by message size.
pub(crate) fn rules_for(
    table: &crate::DecisionTable,
    collective: crate::Collective,
    level: Level,
    procs: usize,
) -> Vec<crate::decision::Rule> {
    let own: Vec<&crate::decision::Rule> = table
        .rules()
        .iter()
        .filter(|r| r.collective == collective && r.level == level)
        .collect();
    let Some(smallest) = own.iter().map(|r| r.procs).min() else {
        return Vec::new();
    };
    let size = own
        .iter()
        .map(|r| r.procs)
        .filter(|&p| p <= procs)
        .max()
        .unwrap_or(smallest);
    own.into_iter()
        .filter(|r| r.procs == size)
        .copied()
        .collect()
}

/// What the three formats' round-trip property tests share: random rules over the trees a
/// library has, the table built from them, and the check that a table read back answers as
/// the one written.
#[cfg(test)]
pub(crate) mod testing {
    use fabric_model::Bytes;
    use proptest::prelude::*;

    use crate::decision::Rule;
    use crate::{Algorithm, Collective, DecisionTable, Level};

    /// A rule of one of `trees` on either level, for 1 to 199 processes; a third of them from
    /// size 0, the others from a size below `max_size`; segmented trees get a segment.
    pub(crate) fn rule(
        trees: &'static [(Collective, Algorithm)],
        max_size: u64,
    ) -> impl Strategy<Value = Rule> {
        (
            0..trees.len(),
            0_usize..2,
            1_usize..200,
            0_u64..3,
            0..max_size,
            1_u64..(1 << 31),
        )
            .prop_map(move |(k, l, procs, bucket, m, seg)| {
                let (c, a) = trees[k];
                let level = [Level::IntraMachine, Level::IntraCluster][l];
                Rule::new(
                    c,
                    level,
                    procs,
                    Bytes::new(if bucket == 0 { 0 } else { m }),
                    a,
                )
                .segment(a.is_segmented().then(|| Bytes::new(seg)))
            })
    }

    /// The table of `rules`, each with its twin from size 0 (so that every size is covered),
    /// all on the intra-cluster level unless `two_levels`.
    pub(crate) fn table(rules: Vec<Rule>, two_levels: bool) -> DecisionTable {
        let mut t = DecisionTable::new();
        for r in rules {
            let r = if two_levels {
                r
            } else {
                Rule {
                    level: Level::IntraCluster,
                    ..r
                }
            };
            t.insert(r).unwrap();
            t.insert(Rule {
                min_size: Bytes::new(0),
                ..r
            })
            .unwrap();
        }
        t
    }

    /// The picks of a "follows the table" property as a table on the intra-cluster level:
    /// each `(tree, group, zero, size)` pick is a rule of `trees[tree]` for `[2, 3, 4, 6, 8][group]`
    /// processes from size 0 (the first of its group, or when `zero` is 0) or `size`; then the
    /// rules of the largest group below `job` again for `job` processes, so that the table
    /// covers the job (the writers refuse a table that stops below it).
    pub(crate) fn job_table(
        trees: &[(Collective, Algorithm)],
        picks: Vec<(usize, usize, u64, u64)>,
        job: usize,
    ) -> DecisionTable {
        let mut t = DecisionTable::new();
        for (k, pi, zero, m) in picks {
            let (c, a) = trees[k];
            let p = [2, 3, 4, 6, 8][pi];
            let has_zero = t.rules().iter().any(|r| r.collective == c && r.procs == p);
            let m = if zero == 0 || !has_zero { 0 } else { m };
            let seg = a.is_segmented().then(|| Bytes::new(1024));
            t.insert(Rule::new(c, Level::IntraCluster, p, Bytes::new(m), a).segment(seg))
                .unwrap();
        }
        let extra: Vec<Rule> = t
            .rules()
            .iter()
            .filter(|r| {
                t.lookup(r.collective, r.level, job, r.min_size)
                    .is_ok_and(|at| at.procs == r.procs)
            })
            .map(|r| Rule { procs: job, ..*r })
            .collect();
        for r in extra {
            t.insert(r).unwrap();
        }
        t
    }

    /// For collective `c` of `t`: its smallest group size, and the sizes on both sides of each
    /// of its rules' boundaries (and 2 MiB); `None` when `t` has no rule for `c`.
    pub(crate) fn probes(t: &DecisionTable, c: Collective) -> Option<(usize, Vec<u64>)> {
        let own: Vec<&Rule> = t.rules().iter().filter(|r| r.collective == c).collect();
        let min_p = own.iter().map(|r| r.procs).min()?;
        let mut sizes: Vec<u64> = own
            .iter()
            .flat_map(|r| {
                let m = r.min_size.get();
                [m.saturating_sub(1), m, m + 1]
            })
            .collect();
        sizes.push(1 << 21);
        Some((min_p, sizes))
    }

    /// Every rule read `back` chooses what `written` chooses for its collective, level, size
    /// and communicator size.
    pub(crate) fn same_choices(
        written: &DecisionTable,
        back: &DecisionTable,
    ) -> Result<(), TestCaseError> {
        for r in back.rules() {
            let orig = written
                .lookup(r.collective, r.level, r.procs, r.min_size)
                .unwrap();
            prop_assert_eq!((orig.algorithm, orig.segment), (r.algorithm, r.segment));
        }
        Ok(())
    }
}
