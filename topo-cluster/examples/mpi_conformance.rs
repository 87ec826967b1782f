//! The planning and checking half of the conformance test (`conformance/run.sh` runs the
//! MPI half, `conformance/mpi.sh`): which files to run, which calls to make, what each call
//! must run, and whether it did.
//!
//! `cargo run -p topo-cluster --example mpi_conformance -- plan OUT EXAMPLE_DIR [TARGET]`
//! writes one folder per scenario under OUT, each with `library` (`openmpi` or `mpich`),
//! `file` (the rules file), `calls` (one `COLLECTIVE BYTES` per line: every size on both
//! sides of every rule boundary), `nps` (the communicator sizes to run), `env` (extra
//! environment of the runs), `expect` (`NP COLLECTIVE BYTES FUNCTION SEGSIZE FANOUT COMM`:
//! what the file means, on communicator COMM, `*` for any) and `outcome` (`follow`;
//! `differ` for a file the library must be seen not to follow: a corrupted file, a layout
//! the version ignores; `abort` for a file the version must refuse in `MPI_Init`). TARGET
//! chooses the libraries: `debian-12` (the default; Open MPI 4.1.4, MPICH 4.0.2) or
//! `debian-13` (Open MPI 5.0.7, MPICH 4.2.1). The scenarios: the `mpi_files` example's own
//! files for the versions (from EXAMPLE_DIR), generated tables covering every tree each
//! library version has, both levels, several communicator sizes and their size boundaries,
//! and the expected failures.
//!
//! Every scenario's calls also hold the collectives topo-cluster does not tune
//! ([`UNTUNED`]: a barrier, all-reduces of a small and of large messages; for MPICH also
//! [`UNTUNED_MPICH`], the other blocking collectives on both sides of MPICH's own
//! boundaries), whose `expect` line names `library-default`: with the file they must run
//! what the library runs without any file, observed in a run without one
//! (`OUT/untuned.LIBRARY.calls`, run by `mpi.sh` on every communicator size of the
//! library's scenarios). Scenario `mpich-4.0-catch-all`, the example's file with one
//! algorithm for each of those collectives, must be seen not to.
//!
//! MPICH 4.1 and later run a bcast of a communicator spanning "nodes" (one machine
//! included: there `MPI_COMM_WORLD` has a node-roots communicator of one rank) on MPICH's
//! node and node-roots communicators, each taking its own branch of the file at its own
//! size; for Debian 13 the MPICH observer records the communicator of each algorithm call
//! (`world`, `node:SIZE`, `roots:SIZE`) and `expect` holds what the file means on each
//! ([`Comms`]).
//!
//! `… check SCENARIO BASELINE_DIR LOG...` reads the observers' logs (`MARK COLLECTIVE BYTES
//! NP` then `ALG FUNCTION SEGSIZE FANOUT [COMM]`, one log per rank; BASELINE_DIR holds those
//! of the runs without a file) and prints, per case (communicator size, collective, bytes),
//! whether every rank ran the function the file means on the communicator it ran on; it
//! exits 0 when all cases did (1 otherwise, 2 on bad input).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use fabric_model::Bytes;
use topo_cluster::decision::Rule;
use topo_cluster::mpi::{LevelMap, mpich, open_mpi, open_mpi_json};
use topo_cluster::{Algorithm, Collective, DecisionTable, Level};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The calls of collectives topo-cluster does not tune, in every scenario: a barrier, and
/// all-reduces of bytes (`MPI_BOR`) of 4 B, 64 KiB and 1 MiB (both libraries change
/// algorithm with the size). With a file they must run what the library runs without one.
const UNTUNED: [(&str, u64); 4] = [
    ("barrier", 0),
    ("allreduce", 4),
    ("allreduce", 65536),
    ("allreduce", 1 << 20),
];

/// The calls of MPICH's own defaults for the other blocking collectives topo-cluster does not
/// tune, MPICH scenarios only (Open MPI's observer does not record them), each on both sides
/// of MPICH 4.0.2's boundaries on 4 to 16 ranks: allgather(v) blocks whose total is below
/// 80 KiB and above 512 KiB (recursive doubling or Bruck's, ring), reduces of 2 KiB and one
/// byte more (binomial, reduce-scatter + gather), reduce-scatter(-block) totals below and
/// above 512 KiB (recursive halving, pairwise), alltoall in place (MPICH's choice, not the
/// table's), alltoallv out of and in place, and the ones
/// with one algorithm (gatherv, scatterv) or one per communicator kind (scan, exscan).
const UNTUNED_MPICH: [(&str, u64); 17] = [
    ("allgather", 4096),
    ("allgather", 262_144),
    ("allgatherv", 4096),
    ("allgatherv", 262_144),
    ("reduce", 2048),
    ("reduce", 2049),
    ("reduce_scatter", 4096),
    ("reduce_scatter", 262_144),
    ("reduce_scatter_block", 4096),
    ("reduce_scatter_block", 262_144),
    ("alltoall_inplace", 4096),
    ("alltoallv", 4096),
    ("alltoallv_inplace", 4096),
    ("gatherv", 4096),
    ("scatterv", 4096),
    ("scan", 4096),
    ("exscan", 4096),
];

/// The untuned calls of `library`'s scenarios.
fn untuned(library: Library) -> Vec<(&'static str, u64)> {
    let mut v = UNTUNED.to_vec();
    if library == Library::Mpich {
        v.extend(UNTUNED_MPICH);
    }
    v
}

/// The collectives MPICH's own defaults choose for, and the one algorithm the writer gave
/// each before it wrote MPICH's defaults: the file of scenario `mpich-4.0-catch-all`, which
/// must be seen not to run what MPICH runs without a file. Alltoallv keeps MPICH's branch:
/// its old catch-all, the scattered algorithm, also for `MPI_IN_PLACE`, killed the program
/// on 5 ranks (MPICH runs pairwise sendrecv_replace in place).
const CATCH_ALL: [(&str, &str); 9] = [
    ("allgather", "MPIR_Allgather_intra_ring"),
    ("allgatherv", "MPIR_Allgatherv_intra_ring"),
    ("reduce", "MPIR_Reduce_intra_binomial"),
    (
        "reduce_scatter",
        "MPIR_Reduce_scatter_intra_recursive_doubling",
    ),
    (
        "reduce_scatter_block",
        "MPIR_Reduce_scatter_block_intra_recursive_doubling",
    ),
    ("gatherv", "MPIR_Gatherv_allcomm_linear"),
    ("scatterv", "MPIR_Scatterv_allcomm_linear"),
    ("scan", "MPIR_Scan_intra_recursive_doubling"),
    ("exscan", "MPIR_Exscan_intra_recursive_doubling"),
];

/// `json` (as the writer lays it out: each collective's branch from its line
/// `    "collective=NAME": {` to the next line `    }`) with `name`'s branch replaced by one
/// algorithm for every communicator.
fn one_algorithm(json: &str, name: &str, algorithm: &str) -> Res<String> {
    let head = format!("\n    \"collective={name}\": {{\n");
    let start = json
        .find(&head)
        .ok_or_else(|| format!("no {name} branch"))?;
    let body = start + head.len();
    let end = json[body..]
        .find("\n    }")
        .map(|e| body + e)
        .ok_or_else(|| format!("no end of the {name} branch"))?;
    let mut out = json.to_owned();
    out.replace_range(
        body..end,
        &format!("        \"algorithm={algorithm}\": {{}}"),
    );
    Ok(out)
}

/// The `expect` function of an [`UNTUNED`] call: what the run without a file ran.
const LIBRARY_DEFAULT: &str = "library-default";

/// Largest bcast message and scatter/gather/all-to-all block the runs use.
const MAX_MESSAGE: u64 = 4 << 20;
const MAX_BLOCK: u64 = 1 << 20;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("plan") if (3..=4).contains(&args.len()) => {
            match args.get(3).map_or("debian-12", String::as_str) {
                "debian-12" => plan(Path::new(&args[1]), Path::new(&args[2]), Target::Debian12),
                "debian-13" => plan(Path::new(&args[1]), Path::new(&args[2]), Target::Debian13),
                other => Err(format!("unknown target {other:?} (debian-12, debian-13)").into()),
            }
        }
        Some("check") if args.len() >= 4 => {
            match check(Path::new(&args[1]), Path::new(&args[2]), &args[3..]) {
                Ok(true) => Ok(()),
                Ok(false) => std::process::exit(1),
                Err(e) => Err(e),
            }
        }
        _ => Err(
            "usage: mpi_conformance plan OUT EXAMPLE_DIR [debian-12|debian-13] | check SCENARIO BASELINE_DIR LOG..."
                .into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("mpi_conformance: {e}");
        std::process::exit(2);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Library {
    OpenMpi,
    Mpich,
}

/// The function, segment size and fan-out the library runs for a tree.
fn function(lib: Library, c: Collective, a: Algorithm, seg: Option<Bytes>) -> Res<String> {
    let s = seg.map_or(0, Bytes::get);
    let (name, seg, fan) = match (lib, c, a) {
        (Library::OpenMpi, Collective::Broadcast, Algorithm::Flat) => {
            ("bcast_intra_basic_linear", 0, 0)
        }
        (Library::OpenMpi, Collective::Broadcast, Algorithm::Chain) => ("bcast_intra_chain", 0, 1),
        (Library::OpenMpi, Collective::Broadcast, Algorithm::SegmentedChain) => {
            ("bcast_intra_pipeline", s, 0)
        }
        (Library::OpenMpi, Collective::Broadcast, Algorithm::Binary) => {
            ("bcast_intra_bintree", 0, 0)
        }
        (Library::OpenMpi, Collective::Broadcast, Algorithm::Binomial) => {
            ("bcast_intra_binomial", 0, 0)
        }
        (Library::OpenMpi, Collective::Scatter, Algorithm::Flat) => {
            ("scatter_intra_basic_linear", 0, 0)
        }
        (Library::OpenMpi, Collective::Scatter, Algorithm::Binomial) => {
            ("scatter_intra_binomial", 0, 0)
        }
        (Library::OpenMpi, Collective::Gather, Algorithm::Flat) => {
            ("gather_intra_basic_linear", 0, 0)
        }
        (Library::OpenMpi, Collective::Gather, Algorithm::Binomial) => {
            ("gather_intra_binomial", 0, 0)
        }
        (Library::OpenMpi, Collective::AllToAll, Algorithm::Direct) => {
            ("alltoall_intra_pairwise", 0, 0)
        }
        (Library::Mpich, Collective::Broadcast, Algorithm::Binomial) => {
            ("MPIR_Bcast_intra_binomial", 0, 0)
        }
        // MPICH >= 4.1's k-ary trees: the observer reads k and the chunk size at the entry
        (Library::Mpich, Collective::Broadcast, Algorithm::Chain) => {
            ("MPIR_Bcast_intra_tree", 0, 1)
        }
        (Library::Mpich, Collective::Broadcast, Algorithm::Binary) => {
            ("MPIR_Bcast_intra_tree", 0, 2)
        }
        (Library::Mpich, Collective::Broadcast, Algorithm::SegmentedChain) => {
            ("MPIR_Bcast_intra_pipelined_tree", s, 1)
        }
        (Library::Mpich, Collective::Scatter, Algorithm::Binomial) => {
            ("MPIR_Scatter_intra_binomial", 0, 0)
        }
        (Library::Mpich, Collective::Gather, Algorithm::Binomial) => {
            ("MPIR_Gather_intra_binomial", 0, 0)
        }
        (Library::Mpich, Collective::AllToAll, Algorithm::Direct) => {
            ("MPIR_Alltoall_intra_pairwise", 0, 0)
        }
        _ => return Err(format!("no observable function for {c} {a}").into()),
    };
    Ok(match lib {
        Library::OpenMpi => format!("ompi_coll_base_{name} {seg} {fan}"),
        Library::Mpich => format!("{name} {seg} {fan}"),
    })
}

struct Scenario {
    name: &'static str,
    library: Library,
    file: String,
    table: DecisionTable,
    level: Level,
    nps: Vec<usize>,
    /// `follow`, `differ` or `abort` (the program must fail in `MPI_Init`).
    outcome: &'static str,
    /// Extra environment of the runs (`NAME=VALUE ...`); the untuned calls are left out of
    /// a scenario that has one (the runs without a file have none).
    env: &'static str,
    /// The communicators the algorithms may run on.
    comms: Comms,
}

/// The communicators a scenario's algorithms may run on, and the level of each.
#[derive(Clone, Copy)]
enum Comms {
    /// The communicator the program calls the collective on, not recorded (Open MPI, MPICH
    /// 4.0: Debian 12's gdb 13 cannot call the program's `tc_comm` at a breakpoint here), at
    /// the scenario's level; every 4.0 table has the same tree for every communicator size.
    Job,
    /// Recorded by the MPICH observer (MPICH >= 4.1): `MPI_COMM_WORLD` (`world`: the file's
    /// `comm_hierarchy=any` branch, the scenario's level), and for bcast and all-to-all also
    /// MPICH's node communicator (`node:SIZE`: one machine's ranks, or one clique's; the
    /// given level) and node-roots communicator (`roots:SIZE`: one rank per machine or
    /// clique; the scenario's level), on which MPICH 4.1 and later run a bcast of a
    /// communicator spanning "nodes", one machine included.
    Hierarchy(Level),
}

impl Comms {
    /// (communicator, level, size) of every communicator collective `c` may run its
    /// algorithm on in a run of `np` ranks of scenario `s`.
    fn of(self, s: &Scenario, c: Collective, np: usize) -> Vec<(String, Level, usize)> {
        let Self::Hierarchy(node_level) = self else {
            return vec![("*".to_owned(), s.level, np)];
        };
        let mut v = vec![("world".to_owned(), s.level, np)];
        if matches!(c, Collective::Broadcast | Collective::AllToAll) {
            let (nodes, roots) = if s.env == CLIQUES {
                (vec![np / 2, np - np / 2], 2)
            } else {
                (vec![np], 1)
            };
            for n in nodes {
                let comm = format!("node:{n}");
                if n > 1 && !v.iter().any(|(x, _, _)| *x == comm) {
                    v.push((comm, node_level, n));
                }
            }
            v.push((format!("roots:{roots}"), s.level, roots));
        }
        v
    }

    /// The levels whose rules the scenario's calls must cross the boundaries of.
    fn levels(self, s: &Scenario) -> Vec<Level> {
        match self {
            Self::Hierarchy(node) if node != s.level => vec![s.level, node],
            _ => vec![s.level],
        }
    }
}

fn rule(c: Collective, level: Level, p: usize, m: u64, a: Algorithm, seg: Option<u64>) -> Rule {
    Rule::new(c, level, p, Bytes::new(m), a).segment(seg.map(Bytes::new))
}

/// Every Open MPI tree at two levels, communicator sizes 4, 6 and 8 (and the job's, with
/// the rules of 8), odd boundaries.
fn open_mpi_table() -> Res<DecisionTable> {
    use Algorithm::{Binary, Binomial, Chain, Direct, Flat, SegmentedChain};
    use Collective::{AllToAll, Broadcast, Gather, Scatter};
    let mut t = DecisionTable::new();
    for (level, shift) in [(Level::IntraCluster, 0), (Level::IntraMachine, 1)] {
        let l = level;
        for r in [
            rule(Broadcast, l, 4, 0, Flat, None),
            rule(Broadcast, l, 4, 1000 << shift, Binomial, None),
            rule(Broadcast, l, 4, 65536, SegmentedChain, Some(8192)),
            rule(Broadcast, l, 6, 0, Binary, None),
            rule(Broadcast, l, 6, 3000, Chain, None),
            rule(Broadcast, l, 8, 0, Binomial, None),
            rule(Broadcast, l, 8, 2048 << shift, Flat, None),
            rule(Broadcast, l, 8, 262_144, SegmentedChain, Some(32768)),
            rule(Scatter, l, 4, 0, Binomial, None),
            rule(Scatter, l, 4, 500 << shift, Flat, None),
            rule(Scatter, l, 8, 0, Flat, None),
            rule(Scatter, l, 8, 3000, Binomial, None),
            rule(Gather, l, 4, 0, Flat, None),
            rule(Gather, l, 4, 1000, Binomial, None),
            rule(Gather, l, 6, 0, Binomial, None),
            rule(Gather, l, 6, 777 << shift, Flat, None),
            rule(AllToAll, l, 4, 0, Direct, None),
        ] {
            t.insert(r)?;
        }
    }
    cover_the_job(&mut t)?;
    Ok(t)
}

/// MPICH's debugging variables that split the ranks of one machine into two "nodes" of
/// consecutive ranks (MPICH 4.0.2's `MPIR_CVAR_NUM_CLIQUES`, `MPIR_CVAR_CLIQUES_BY_BLOCK`).
const CLIQUES: &str = "MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_CLIQUES_BY_BLOCK=1";

/// `json` with every binomial bcast of its `comm_hierarchy=HIERARCHY` branch replaced by
/// `other`.
fn corrupt_bcast_branch(json: &str, hierarchy: &str, other: &str) -> Res<String> {
    let bcast = json
        .find("\"collective=bcast\"")
        .ok_or("no bcast in the file")?;
    let key = format!("\"comm_hierarchy={hierarchy}\"");
    let start = bcast + json[bcast..].find(&key).ok_or("no such branch")?;
    let end = start
        + key.len()
        + json[start + key.len()..]
            .find("\"comm_hierarchy=")
            .ok_or("no branch after it")?;
    let branch = &json[start..end];
    if !branch.contains("MPIR_Bcast_intra_binomial") {
        return Err("no binomial bcast in the branch".into());
    }
    Ok(format!(
        "{}{}{}",
        &json[..start],
        branch.replace("MPIR_Bcast_intra_binomial", other),
        &json[end..]
    ))
}

/// The largest communicator the runs have (`MPI_COMM_WORLD` of the largest run).
const JOB: usize = 16;

/// Gives every (collective, level) rules at the job's size, those the lookup gives there:
/// what a table computed over [`topo_cluster::Hierarchy::communicator_sizes`] has, and what
/// makes a file exact for scatter, gather and all-to-all up to the job's size.
fn cover_the_job(t: &mut DecisionTable) -> Res<()> {
    let mut extra = Vec::new();
    for r in t.rules() {
        let at_job = t.lookup(r.collective, r.level, JOB, r.min_size)?;
        if at_job.procs == r.procs && r.procs < JOB {
            extra.push(
                Rule::new(r.collective, r.level, JOB, r.min_size, r.algorithm).segment(r.segment),
            );
        }
    }
    for r in extra {
        t.insert(r)?;
    }
    Ok(())
}

/// MPICH 4.0's trees (one per collective) at two levels, with size boundaries: the file
/// then differs from MPICH's own table (e.g. binomial bcasts of large messages, pairwise
/// all-to-all of small blocks), so following it is observable.
fn mpich_table() -> Res<DecisionTable> {
    use Algorithm::{Binomial, Direct};
    use Collective::{AllToAll, Broadcast, Gather, Scatter};
    let mut t = DecisionTable::new();
    for level in [Level::IntraMachine, Level::IntraCluster] {
        for r in [
            rule(Broadcast, level, 4, 0, Binomial, None),
            rule(Broadcast, level, 8, 0, Binomial, None),
            rule(Scatter, level, 4, 0, Binomial, None),
            rule(Gather, level, 4, 0, Binomial, None),
            rule(AllToAll, level, 4, 0, Direct, None),
            rule(AllToAll, level, 8, 0, Direct, None),
        ] {
            t.insert(r)?;
        }
    }
    cover_the_job(&mut t)?;
    Ok(t)
}

/// Every tree MPICH 4.1 has (bcast: binomial, chain and binary as k-ary trees with k = 1 and
/// 2, segmented chain as the pipelined k-ary tree with k = 1 in chunks of 4 to 128 KiB;
/// scatter and gather binomial; all-to-all pairwise) at two levels whose rules differ, so
/// that the communicator whose branch MPICH followed shows: group sizes 1 and 2 (MPICH's
/// node-roots communicators on one machine, one rank, and on two cliques), 4 and 8 (the node
/// communicators), with size boundaries on both sides of MPICH's own composition bounds.
fn mpich_41_table() -> Res<DecisionTable> {
    use Algorithm::{Binary, Binomial, Chain, Direct, SegmentedChain};
    use Collective::{AllToAll, Broadcast, Gather, Scatter};
    let node = Level::IntraMachine;
    let roots = Level::IntraCluster;
    let mut t = DecisionTable::new();
    for r in [
        rule(Broadcast, node, 2, 0, Binomial, None),
        rule(Broadcast, node, 2, 2000, Chain, None),
        rule(Broadcast, node, 2, 100_000, SegmentedChain, Some(16384)),
        rule(Broadcast, node, 4, 0, Chain, None),
        rule(Broadcast, node, 4, 1000, Binomial, None),
        rule(Broadcast, node, 4, 65536, SegmentedChain, Some(8192)),
        rule(Broadcast, node, 8, 0, Binomial, None),
        rule(Broadcast, node, 8, 4096, Binary, None),
        rule(Broadcast, node, 8, 262_144, SegmentedChain, Some(32768)),
        rule(Broadcast, roots, 1, 0, Binomial, None),
        rule(Broadcast, roots, 1, 3000, Binary, None),
        rule(Broadcast, roots, 1, 30000, SegmentedChain, Some(4096)),
        rule(Broadcast, roots, 2, 0, Chain, None),
        rule(Broadcast, roots, 2, 5000, Binomial, None),
        rule(Broadcast, roots, 2, 200_000, SegmentedChain, Some(65536)),
        rule(Broadcast, roots, 4, 0, Binary, None),
        rule(Broadcast, roots, 4, 10000, Chain, None),
        rule(Broadcast, roots, 4, 524_288, SegmentedChain, Some(16384)),
        rule(Broadcast, roots, 8, 0, Chain, None),
        rule(Broadcast, roots, 8, 12288, Binomial, None),
        rule(
            Broadcast,
            roots,
            8,
            1_000_000,
            SegmentedChain,
            Some(131_072),
        ),
    ] {
        t.insert(r)?;
    }
    for level in [node, roots] {
        for r in [
            rule(Scatter, level, 4, 0, Binomial, None),
            rule(Gather, level, 4, 0, Binomial, None),
            rule(AllToAll, level, 4, 0, Direct, None),
            rule(AllToAll, level, 8, 0, Direct, None),
        ] {
            t.insert(r)?;
        }
    }
    cover_the_job(&mut t)?;
    Ok(t)
}

/// The calls: 1 byte, and both sides of every boundary of the table's rules at `levels`.
fn calls(table: &DecisionTable, levels: &[Level]) -> Vec<(Collective, u64)> {
    let mut out: Vec<(Collective, u64)> = Vec::new();
    for c in Collective::ALL {
        let rules: Vec<&Rule> = table
            .rules()
            .iter()
            .filter(|r| r.collective == c && levels.contains(&r.level))
            .collect();
        if rules.is_empty() {
            continue;
        }
        let max = if c == Collective::Broadcast {
            MAX_MESSAGE
        } else {
            MAX_BLOCK
        };
        let mut sizes = vec![1, 100];
        for r in rules {
            let m = r.min_size.get();
            if m > 0 {
                sizes.extend([m - 1, m]);
            }
        }
        sizes.retain(|&m| m >= 1 && m <= max);
        sizes.sort_unstable();
        sizes.dedup();
        out.extend(sizes.into_iter().map(|m| (c, m)));
    }
    out
}

fn write_scenario(out: &Path, s: &Scenario) -> Res<()> {
    let dir = out.join(s.name);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("file"), &s.file)?;
    let lib = match s.library {
        Library::OpenMpi => "openmpi",
        Library::Mpich => "mpich",
    };
    std::fs::write(dir.join("library"), format!("{lib}\n"))?;
    let nps: Vec<String> = s.nps.iter().map(usize::to_string).collect();
    std::fs::write(dir.join("nps"), nps.join(" ") + "\n")?;
    std::fs::write(dir.join("outcome"), format!("{}\n", s.outcome))?;
    std::fs::write(dir.join("env"), format!("{}\n", s.env))?;
    let cs = calls(&s.table, &s.comms.levels(s));
    let mut calls_text = String::new();
    let mut expect = String::new();
    for &(c, m) in &cs {
        writeln!(calls_text, "{} {m}", c.name())?;
        for &np in &s.nps {
            for (comm, level, size) in s.comms.of(s, c, np) {
                let r = s.table.lookup(c, level, size, Bytes::new(m))?;
                let f = function(s.library, c, r.algorithm, r.segment)?;
                writeln!(expect, "{np} {} {m} {f} {comm}", c.name())?;
            }
        }
    }
    for (c, m) in untuned(s.library).into_iter().filter(|_| s.env.is_empty()) {
        writeln!(calls_text, "{c} {m}")?;
        for &np in &s.nps {
            writeln!(expect, "{np} {c} {m} {LIBRARY_DEFAULT} 0 0 *")?;
        }
    }
    std::fs::write(dir.join("calls"), calls_text)?;
    std::fs::write(dir.join("expect"), expect)?;
    println!(
        "{}: {} calls x {} communicator sizes",
        s.name,
        cs.len(),
        s.nps.len()
    );
    Ok(())
}

/// `text`, an Open MPI rules file, corrupted after writing: its first flat broadcast rule
/// from 0 bytes (the 4-rank one of [`open_mpi_table`]) becomes binomial.
fn corrupt_flat_bcast(text: &str) -> Res<String> {
    for (flat, binomial) in [
        ("\n0 1 0 0 # flat\n", "\n0 6 0 0 # flat\n"),
        ("\n0 1 0 0 0 # flat\n", "\n0 6 0 0 0 # flat\n"),
    ] {
        if text.contains(flat) {
            return Ok(text.replacen(flat, binomial, 1));
        }
    }
    Err("no rule to corrupt".into())
}

/// `json`, an MPICH file of [`mpich_table`] or [`mpich_41_table`], corrupted after writing:
/// the pairwise all-to-all of its catch-all for up to 7 ranks becomes Bruck's.
fn corrupt_alltoall(json: &str) -> Res<String> {
    let key = "\"comm_hierarchy=any\": {\n                    \"comm_size<=7\": {\n                        \"avg_msg_size=any\": {\n                            \"algorithm=MPIR_Alltoall_intra_pairwise\"";
    let at = json
        .find("\"collective=alltoall\"")
        .and_then(|a| json[a..].find(key).map(|k| a + k))
        .ok_or("no all-to-all rule to corrupt")?;
    let mut bad = json.to_owned();
    let name_at = at + key.len() - "MPIR_Alltoall_intra_pairwise\"".len();
    bad.replace_range(
        name_at..name_at + "MPIR_Alltoall_intra_pairwise".len(),
        "MPIR_Alltoall_intra_brucks",
    );
    Ok(bad)
}

/// Debian 13's scenarios: Open MPI 5.0.7 (which reads [`open_mpi::Version::V4_1_8`]'s
/// layouts) and MPICH 4.2.1 (which reads [`mpich::Version::V4_1`] files). MPICH runs on 4
/// and 8 ranks (every rank under gdb: 16 ranks take about 20 s a run on 2 cores): the
/// tables' group sizes are 1 to 8, and on 8, a power of two, MPICH's own bcast composition
/// switches from the node and node-roots communicators to `MPI_COMM_WORLD` at 512 KiB.
fn plan_debian13(example: &Path) -> Res<Vec<Scenario>> {
    let two = LevelMap::two_level(Level::IntraMachine, Level::IntraCluster)?;
    let mut scenarios = Vec::new();
    let scenario =
        |name, library, file, table, level, nps: &[usize], outcome, env, comms| Scenario {
            name,
            library,
            file,
            table,
            level,
            nps: nps.to_vec(),
            outcome,
            env,
            comms,
        };

    // Open MPI: the example's two files, read as the versions read them
    let classic = open_mpi::Options::for_job(JOB).with_levels(two);
    let v2 = classic
        .with_version(open_mpi::Version::V4_1_8)
        .with_layout(open_mpi::Layout::MaxRequests);
    for (name, file, o) in [
        ("openmpi-5.0-example", "coll_tuned_rules_4.1.txt", classic),
        ("openmpi-5.0-example-v2", "coll_tuned_rules_4.1.8.txt", v2),
    ] {
        let text = std::fs::read_to_string(example.join(file))?;
        scenarios.push(scenario(
            name,
            Library::OpenMpi,
            text.clone(),
            open_mpi::read(&text, &o)?,
            Level::IntraCluster,
            &[4, 5, 8, 16],
            "follow",
            "",
            Comms::Job,
        ));
    }
    // generated: every Open MPI tree, each level, both layouts; corrupted files of both
    let t = open_mpi_table()?;
    // (the classic layout written for the older releases, as 5.0.7 must still read it)
    for (version, layout, tag) in [
        (open_mpi::Version::V4_1, open_mpi::Layout::Classic, ""),
        (
            open_mpi::Version::V4_1_8,
            open_mpi::Layout::MaxRequests,
            "-v2",
        ),
    ] {
        for (level, at) in [
            (Level::IntraCluster, "inter-node"),
            (Level::IntraMachine, "intra-node"),
        ] {
            let o = open_mpi::Options::for_job(JOB)
                .with_version(version)
                .with_layout(layout)
                .with_levels(LevelMap::single(level));
            let mut only = DecisionTable::new();
            for r in t.rules().iter().filter(|r| r.level == level) {
                only.insert(*r)?;
            }
            let text = open_mpi::write(&only, &o)?;
            let name = format!("openmpi-5.0{tag}-{at}");
            if level == Level::IntraCluster {
                // corrupted after writing: the 4-rank flat broadcast becomes binomial
                scenarios.push(scenario(
                    leak(format!("openmpi-5.0{tag}-corrupted")),
                    Library::OpenMpi,
                    corrupt_flat_bcast(&text)?,
                    only.clone(),
                    level,
                    &[4],
                    "differ",
                    "",
                    Comms::Job,
                ));
            }
            scenarios.push(scenario(
                leak(name),
                Library::OpenMpi,
                text,
                only,
                level,
                &[4, 5, 6, 7, 8, 16],
                "follow",
                "",
                Comms::Job,
            ));
        }
    }
    // the JSON layout of Open MPI's main branch: Open MPI 5.0.7 must be seen to ignore it
    let mut inter = DecisionTable::new();
    for r in t.rules().iter().filter(|r| r.level == Level::IntraCluster) {
        inter.insert(*r)?;
    }
    scenarios.push(scenario(
        "openmpi-json-on-5.0",
        Library::OpenMpi,
        open_mpi_json::write(&inter, &LevelMap::single(Level::IntraCluster))?,
        inter,
        Level::IntraCluster,
        &[4],
        "differ",
        "",
        Comms::Job,
    ));

    // MPICH: the example's 4.1 file, read as 4.1 reads it
    let m41 = mpich::Options::for_job(JOB)
        .with_levels(two)
        .with_version(mpich::Version::V4_1);
    let json = std::fs::read_to_string(example.join("mpich_coll_selection_4.1.json"))?;
    let hierarchy = Comms::Hierarchy(Level::IntraMachine);
    scenarios.push(scenario(
        "mpich-4.1-example",
        Library::Mpich,
        json.clone(),
        mpich::read(&json, &m41)?,
        Level::IntraCluster,
        &[4, 8],
        "follow",
        "",
        hierarchy,
    ));
    // generated: every MPICH 4.1 tree at two levels, without and with two cliques; each
    // two-level branch corrupted
    let t = mpich_41_table()?;
    let json = mpich::write(&t, &m41)?;
    scenarios.push(scenario(
        "mpich-4.1-two-level",
        Library::Mpich,
        json.clone(),
        t.clone(),
        Level::IntraCluster,
        &[4, 8],
        "follow",
        "",
        hierarchy,
    ));
    scenarios.push(scenario(
        "mpich-4.1-two-level-cliques",
        Library::Mpich,
        json.clone(),
        t.clone(),
        Level::IntraCluster,
        &[4, 8],
        "follow",
        CLIQUES,
        hierarchy,
    ));
    for (name, branch, other) in [
        (
            "mpich-4.1-node-corrupted-cliques",
            "node",
            "MPIR_Bcast_intra_scatter_ring_allgather",
        ),
        (
            "mpich-4.1-node-roots-corrupted-cliques",
            "node_roots",
            "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
        ),
    ] {
        scenarios.push(scenario(
            name,
            Library::Mpich,
            corrupt_bcast_branch(&json, branch, other)?,
            t.clone(),
            Level::IntraCluster,
            &[4],
            "differ",
            CLIQUES,
            hierarchy,
        ));
    }
    // corrupted after writing: the all-to-all of the catch-all becomes Bruck's
    scenarios.push(scenario(
        "mpich-4.1-corrupted",
        Library::Mpich,
        corrupt_alltoall(&json)?,
        t.clone(),
        Level::IntraCluster,
        &[4],
        "differ",
        "",
        hierarchy,
    ));
    // one level: every communicator takes the comm_hierarchy=any branch at its own size
    let mut intra = DecisionTable::new();
    for r in t.rules().iter().filter(|r| r.level == Level::IntraMachine) {
        intra.insert(*r)?;
    }
    let single = mpich::Options::for_job(JOB)
        .with_levels(LevelMap::single(Level::IntraMachine))
        .with_version(mpich::Version::V4_1);
    scenarios.push(scenario(
        "mpich-4.1-one-level",
        Library::Mpich,
        mpich::write(&intra, &single)?,
        intra,
        Level::IntraMachine,
        &[4, 8],
        "follow",
        "",
        Comms::Hierarchy(Level::IntraMachine),
    ));
    // a file for MPICH 4.0 on MPICH 4.2.1: MPI_Init must abort on the barrier 4.1 renamed
    let t = mpich_table()?;
    scenarios.push(scenario(
        "mpich-4.0-file-on-4.1",
        Library::Mpich,
        mpich::write(&t, &mpich::Options::for_job(JOB).with_levels(two))?,
        t,
        Level::IntraCluster,
        &[2],
        "abort",
        "",
        Comms::Job,
    ));
    Ok(scenarios)
}

/// A scenario name built at run time (the program plans once).
fn leak(name: String) -> &'static str {
    Box::leak(name.into_boxed_str())
}

/// The machine the MPI half runs on: its library versions choose the scenarios.
#[derive(Clone, Copy)]
enum Target {
    /// Debian 12: Open MPI 4.1.4, MPICH 4.0.2.
    Debian12,
    /// Debian 13: Open MPI 5.0.7, MPICH 4.2.1.
    Debian13,
}

fn plan(out: &Path, example: &Path, target: Target) -> Res<()> {
    let (scenarios, mpich_file) = match target {
        Target::Debian12 => (plan_debian12(example)?, "mpich_coll_selection_4.0.json"),
        Target::Debian13 => (plan_debian13(example)?, "mpich_coll_selection_4.1.json"),
    };
    for s in &scenarios {
        write_scenario(out, s)?;
    }
    for (library, name) in [(Library::OpenMpi, "openmpi"), (Library::Mpich, "mpich")] {
        let calls: String = untuned(library)
            .iter()
            .map(|(c, m)| format!("{c} {m}\n"))
            .collect();
        std::fs::write(out.join(format!("untuned.{name}.calls")), calls)?;
    }
    // the example's file of the version, for mpich_builtin.py
    std::fs::copy(example.join(mpich_file), out.join("mpich-builtin.json"))?;
    if let Target::Debian13 = target {
        // the expectations name communicators: the MPICH observer must record them
        std::fs::write(out.join("observe-comms"), "1\n")?;
    }
    Ok(())
}

/// Debian 12's scenarios: Open MPI 4.1.4 and MPICH 4.0.2.
fn plan_debian12(example: &Path) -> Res<Vec<Scenario>> {
    let two = LevelMap::two_level(Level::IntraMachine, Level::IntraCluster)?;
    let mut scenarios = Vec::new();

    // the example's own files, read as the version reads them
    let o41 = open_mpi::Options::for_job(JOB).with_levels(two);
    let text = std::fs::read_to_string(example.join("coll_tuned_rules_4.1.txt"))?;
    scenarios.push(Scenario {
        name: "openmpi-4.1-example",
        library: Library::OpenMpi,
        table: open_mpi::read(&text, &o41)?,
        file: text,
        level: Level::IntraCluster,
        nps: vec![4, 5, 8, 16],
        outcome: "follow",
        env: "",
        comms: Comms::Job,
    });
    let m40 = mpich::Options::for_job(JOB).with_levels(two);
    let json = std::fs::read_to_string(example.join("mpich_coll_selection_4.0.json"))?;
    scenarios.push(Scenario {
        name: "mpich-4.0-example",
        library: Library::Mpich,
        table: mpich::read(&json, &m40)?,
        file: json,
        level: Level::IntraCluster,
        nps: vec![4, 8, 16],
        outcome: "follow",
        env: "",
        comms: Comms::Job,
    });

    // generated: every Open MPI tree, each level
    let t = open_mpi_table()?;
    for (name, level) in [
        ("openmpi-4.1-inter-node", Level::IntraCluster),
        ("openmpi-4.1-intra-node", Level::IntraMachine),
    ] {
        let o = open_mpi::Options::for_job(JOB).with_levels(LevelMap::single(level));
        let mut only = DecisionTable::new();
        for r in t.rules().iter().filter(|r| r.level == level) {
            only.insert(*r)?;
        }
        scenarios.push(Scenario {
            name,
            library: Library::OpenMpi,
            file: open_mpi::write(&only, &o)?,
            table: only,
            level,
            nps: vec![4, 5, 6, 7, 8, 16],
            outcome: "follow",
            env: "",
            comms: Comms::Job,
        });
    }
    let mut inter = DecisionTable::new();
    for r in t.rules().iter().filter(|r| r.level == Level::IntraCluster) {
        inter.insert(*r)?;
    }
    let good = open_mpi::write(&inter, &open_mpi::Options::for_job(JOB))?;
    // corrupted after writing: the 4-rank flat broadcast becomes binomial
    scenarios.push(Scenario {
        name: "openmpi-4.1-corrupted",
        library: Library::OpenMpi,
        file: corrupt_flat_bcast(&good)?,
        table: inter.clone(),
        level: Level::IntraCluster,
        nps: vec![4],
        outcome: "differ",
        env: "",
        comms: Comms::Job,
    });
    // the JSON layout of Open MPI's main branch: Open MPI 4.1.4 must be seen to ignore it
    scenarios.push(Scenario {
        name: "openmpi-json-on-4.1",
        library: Library::OpenMpi,
        file: open_mpi_json::write(&inter, &LevelMap::single(Level::IntraCluster))?,
        table: inter.clone(),
        level: Level::IntraCluster,
        nps: vec![4],
        outcome: "differ",
        env: "",
        comms: Comms::Job,
    });
    // rule-file-version-2: Open MPI 4.1.4 must be seen to ignore it
    let v2 = open_mpi::Options::for_job(JOB)
        .with_version(open_mpi::Version::V4_1_8)
        .with_layout(open_mpi::Layout::MaxRequests);
    scenarios.push(Scenario {
        name: "openmpi-4.1.8-layout-on-4.1",
        library: Library::OpenMpi,
        file: open_mpi::write(&inter, &v2)?,
        table: inter,
        level: Level::IntraCluster,
        nps: vec![4],
        outcome: "differ",
        env: "",
        comms: Comms::Job,
    });

    // generated: MPICH 4.0, two levels (MPI_COMM_WORLD takes the catch-all)
    let t = mpich_table()?;
    let json = mpich::write(&t, &m40)?;
    scenarios.push(Scenario {
        name: "mpich-4.0-two-level",
        library: Library::Mpich,
        file: json.clone(),
        table: t.clone(),
        level: Level::IntraCluster,
        nps: vec![4, 8, 16],
        outcome: "follow",
        env: "",
        comms: Comms::Job,
    });
    // the same file with MPICH's node cliques (two "nodes" of consecutive ranks on this
    // machine): MPICH 4.0.2's bcast then runs on the node and node-roots communicators,
    // whose selection takes the comm_hierarchy=node and node_roots branches; corrupting
    // either branch must be seen
    scenarios.push(Scenario {
        name: "mpich-4.0-two-level-cliques",
        library: Library::Mpich,
        file: json.clone(),
        table: t.clone(),
        level: Level::IntraCluster,
        nps: vec![4, 8],
        outcome: "follow",
        env: CLIQUES,
        comms: Comms::Job,
    });
    for (name, hierarchy, other) in [
        (
            "mpich-4.0-node-corrupted-cliques",
            "node",
            "MPIR_Bcast_intra_scatter_ring_allgather",
        ),
        (
            "mpich-4.0-node-roots-corrupted-cliques",
            "node_roots",
            "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
        ),
    ] {
        scenarios.push(Scenario {
            name,
            library: Library::Mpich,
            file: corrupt_bcast_branch(&json, hierarchy, other)?,
            table: t.clone(),
            level: Level::IntraCluster,
            nps: vec![4],
            outcome: "differ",
            env: CLIQUES,
            comms: Comms::Job,
        });
    }
    let single = mpich::Options::for_job(JOB).with_levels(LevelMap::single(Level::IntraMachine));
    let mut intra = DecisionTable::new();
    for r in t.rules().iter().filter(|r| r.level == Level::IntraMachine) {
        intra.insert(*r)?;
    }
    scenarios.push(Scenario {
        name: "mpich-4.0-one-level",
        library: Library::Mpich,
        file: mpich::write(&intra, &single)?,
        table: intra,
        level: Level::IntraMachine,
        nps: vec![4, 5, 8],
        outcome: "follow",
        env: "",
        comms: Comms::Job,
    });
    // corrupted after writing: the all-to-all of the catch-all becomes Bruck's
    scenarios.push(Scenario {
        name: "mpich-4.0-corrupted",
        library: Library::Mpich,
        file: corrupt_alltoall(&json)?,
        table: t,
        level: Level::IntraCluster,
        nps: vec![4],
        outcome: "differ",
        env: "",
        comms: Comms::Job,
    });

    // the example's file with the previous writer's one algorithm per untuned collective
    let mut catch_all = json.clone();
    for (name, algorithm) in CATCH_ALL {
        catch_all = one_algorithm(&catch_all, name, algorithm)?;
    }
    scenarios.push(Scenario {
        name: "mpich-4.0-catch-all",
        library: Library::Mpich,
        table: mpich::read(&json, &m40)?,
        file: catch_all,
        level: Level::IntraCluster,
        nps: vec![4, 5],
        outcome: "differ",
        env: "",
        comms: Comms::Job,
    });

    // a file for MPICH 4.1 on MPICH 4.0: MPI_Init must abort on an algorithm 4.0 lacks
    let t = mpich_table()?;
    scenarios.push(Scenario {
        name: "mpich-4.1-file-on-4.0",
        library: Library::Mpich,
        file: mpich::write(&t, &m40.with_version(mpich::Version::V4_1))?,
        table: t,
        level: Level::IntraCluster,
        nps: vec![2],
        outcome: "abort",
        env: "",
        comms: Comms::Job,
    });
    Ok(scenarios)
}

/// A case: communicator size of the run, collective, bytes.
type Case = (usize, String, u64);

/// An observer's `ALG FUNCTION SEGSIZE FANOUT [COMM]` line: ("FUNCTION SEGSIZE FANOUT", the
/// communicator, `world` where not recorded).
fn alg(f: &[&str]) -> Option<(String, String)> {
    match *f {
        ["ALG", func, seg, fan] => Some((format!("{func} {seg} {fan}"), "world".to_owned())),
        ["ALG", func, seg, fan, comm] => Some((format!("{func} {seg} {fan}"), comm.to_owned())),
        _ => None,
    }
}

/// Each log's cases with what the rank ran first for each: `MARK COLLECTIVE BYTES NP` then
/// an `ALG` line.
fn observed(path: &Path) -> Res<Vec<(Case, String, String)>> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Vec::new();
    let mut current: Option<Case> = None;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let ["MARK", c, m, np] = f[..] {
            current = Some((np.parse()?, c.to_owned(), m.parse()?));
        } else if let Some((ran, comm)) = alg(&f) {
            if let Some(case) = current.take() {
                out.push((case, ran, comm));
            }
        } else {
            return Err(format!("{}: bad line {line:?}", path.display()).into());
        }
    }
    Ok(out)
}

/// (np, collective, bytes) → the function, segment size and fan-out every rank ran, from the
/// logs of the runs without a file (a case where ranks disagree is left out: not observed).
fn baseline(dir: &Path) -> Res<BTreeMap<Case, String>> {
    let mut ran: BTreeMap<Case, Vec<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        for (case, r, _) in observed(&entry?.path())? {
            ran.entry(case).or_default().push(r);
        }
    }
    Ok(ran
        .into_iter()
        .filter_map(|(k, v)| {
            let first = v.first()?.clone();
            v.iter().all(|x| *x == first).then_some((k, first))
        })
        .collect())
}

/// (case, communicator: `*` for any) → what must run.
type Expect = BTreeMap<(Case, String), String>;

fn check(dir: &Path, baseline_dir: &Path, logs: &[String]) -> Res<bool> {
    let defaults = baseline(baseline_dir)?;
    let mut expect = Expect::new();
    for line in std::fs::read_to_string(dir.join("expect"))?.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [np, c, m, func, seg, fan, comm] = f[..] else {
            return Err(format!("bad expect line {line:?}").into());
        };
        let case: Case = (np.parse()?, c.to_owned(), m.parse()?);
        let want = if func == LIBRARY_DEFAULT {
            // unobserved without a file: no function has this name, the case fails
            defaults
                .get(&case)
                .cloned()
                .unwrap_or_else(|| "(not-observed-without-a-file) 0 0".to_owned())
        } else {
            format!("{func} {seg} {fan}")
        };
        expect.insert((case, comm.to_owned()), want);
    }
    let outcome = std::fs::read_to_string(dir.join("outcome"))?;
    if outcome.trim() == "abort" {
        return Err("an abort scenario has no logs to check".into());
    }
    let want_follow = outcome.trim() == "follow";
    let cases: std::collections::BTreeSet<&Case> = expect.keys().map(|(c, _)| c).collect();
    // case → (ranks that ran what the file means, ranks that did not, what they ran)
    let mut seen: BTreeMap<Case, (usize, usize, String)> = BTreeMap::new();
    // communicator kind → rank calls observed on it
    let mut on: BTreeMap<String, usize> = BTreeMap::new();
    let mut ranks = 0;
    for path in logs.iter().map(PathBuf::from) {
        ranks += 1;
        for (case, ran, comm) in observed(&path)? {
            if !cases.contains(&case) {
                continue;
            }
            let want = expect
                .get(&(case.clone(), comm.clone()))
                .or_else(|| expect.get(&(case.clone(), "*".to_owned())));
            *on.entry(comm.split(':').next().unwrap_or("").to_owned())
                .or_default() += 1;
            let e = seen.entry(case).or_insert((0, 0, String::new()));
            if want == Some(&ran) {
                e.0 += 1;
            } else {
                e.1 += 1;
                e.2 = if want.is_some() {
                    format!("{ran} on {comm}")
                } else {
                    format!("{ran} on {comm}, a communicator not planned for")
                };
            }
        }
    }
    let mut followed = 0;
    let mut unobserved = 0;
    let mut total = 0;
    let mut shown = 0;
    let (mut untuned_total, mut untuned_followed) = (0, 0);
    for key in cases {
        if !seen.keys().any(|k| k.0 == key.0) {
            continue; // that communicator size was not run
        }
        total += 1;
        let means = || {
            expect
                .iter()
                .filter(|((c, _), _)| c == key)
                .map(|((_, comm), want)| format!("{want} on {comm}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let ok = match seen.get(key) {
            Some(&(_, 0, _)) => true,
            Some((_, _, ran)) => {
                if shown < 12 {
                    println!(
                        "  np={} {} {} B: the file means {}; the library ran {ran}",
                        key.0,
                        key.1,
                        key.2,
                        means()
                    );
                    shown += 1;
                }
                false
            }
            None => {
                unobserved += 1;
                if shown < 12 {
                    println!(
                        "  np={} {} {} B: no algorithm observed (the file means {})",
                        key.0,
                        key.1,
                        key.2,
                        means()
                    );
                    shown += 1;
                }
                false
            }
        };
        followed += usize::from(ok);
        if UNTUNED
            .iter()
            .chain(&UNTUNED_MPICH)
            .any(|&(c, m)| c == key.1 && m == key.2)
        {
            untuned_total += 1;
            untuned_followed += usize::from(ok);
        }
    }
    let all = total > 0 && followed == total;
    let comms = if on.keys().any(|k| k != "world") {
        let v: Vec<String> = on.iter().map(|(k, n)| format!("{n} on {k}")).collect();
        format!("; rank calls {}", v.join(", "))
    } else {
        String::new()
    };
    println!(
        "{}: {followed} of {total} cases ran what the file means ({untuned_followed} of {untuned_total} untuned ones what the library runs without a file), {unobserved} not observed ({ranks} rank logs{comms}); expected: {}",
        dir.display(),
        if want_follow {
            "all"
        } else {
            "some differ, every case observed"
        }
    );
    Ok(if want_follow {
        all
    } else {
        total > 0 && unobserved == 0 && !all
    })
}
