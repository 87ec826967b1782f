//! The planning and checking half of the conformance test (`conformance/run.sh` runs the
//! MPI half): which files to run, which calls to make, what each call must run, and whether
//! it did.
//!
//! `cargo run -p topo-cluster --example mpi_conformance -- plan OUT EXAMPLE_DIR` writes one
//! folder per scenario under OUT, each with `library` (`openmpi` or `mpich`), `file` (the
//! rules file), `calls` (one `COLLECTIVE BYTES` per line: every size on both sides of every
//! rule boundary), `nps` (the communicator sizes to run), `expect` (`NP COLLECTIVE BYTES
//! FUNCTION SEGSIZE FANOUT`: what the file means) and `outcome` (`follow`; `differ` for a
//! file the library must be seen not to follow: a corrupted file, a layout the version
//! ignores; `abort` for a file the version must refuse in `MPI_Init`). The scenarios: the `mpi_files` example's own Open MPI 4.1 and MPICH 4.0 files
//! (from EXAMPLE_DIR), generated tables covering every tree each library version has, both
//! levels, several communicator sizes and their size boundaries, and the expected failures.
//!
//! Every scenario's calls also hold the collectives topo-cluster does not tune
//! ([`UNTUNED`]: a barrier, all-reduces of a small and of large messages; for MPICH also
//! [`UNTUNED_MPICH`], the other blocking collectives on both sides of MPICH's own
//! boundaries), whose `expect` line names `library-default`: with the file they must run
//! what the library runs without any file, observed in a run without one
//! (`OUT/untuned.LIBRARY.calls`, run by `run.sh` on every communicator size of the
//! library's scenarios). Scenario `mpich-4.0-catch-all`, the example's file with one
//! algorithm for each of those collectives, must be seen not to.
//!
//! `… check SCENARIO BASELINE_DIR LOG...` reads the observers' logs (`MARK COLLECTIVE BYTES
//! NP` then `ALG FUNCTION SEGSIZE FANOUT`, one log per rank; BASELINE_DIR holds those of the
//! runs without a file) and prints, per case (communicator size, collective, bytes), whether
//! every rank ran the function the file means; it exits 0 when all cases did (1 otherwise,
//! 2 on bad input).

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
        Some("plan") if args.len() == 3 => plan(Path::new(&args[1]), Path::new(&args[2])),
        Some("check") if args.len() >= 4 => {
            match check(Path::new(&args[1]), Path::new(&args[2]), &args[3..]) {
                Ok(true) => Ok(()),
                Ok(false) => std::process::exit(1),
                Err(e) => Err(e),
            }
        }
        _ => Err(
            "usage: mpi_conformance plan OUT EXAMPLE_DIR | check SCENARIO BASELINE_DIR LOG..."
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

/// The calls: 1 byte, and both sides of every boundary of the table's rules at `level`.
fn calls(table: &DecisionTable, level: Level) -> Vec<(Collective, u64)> {
    let mut out: Vec<(Collective, u64)> = Vec::new();
    for c in Collective::ALL {
        let rules: Vec<&Rule> = table
            .rules()
            .iter()
            .filter(|r| r.collective == c && r.level == level)
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
    let cs = calls(&s.table, s.level);
    let mut calls_text = String::new();
    let mut expect = String::new();
    for &(c, m) in &cs {
        writeln!(calls_text, "{} {m}", c.name())?;
        for &np in &s.nps {
            let r = s.table.lookup(c, s.level, np, Bytes::new(m))?;
            let f = function(s.library, c, r.algorithm, r.segment)?;
            writeln!(expect, "{np} {} {m} {f}", c.name())?;
        }
    }
    for (c, m) in untuned(s.library).into_iter().filter(|_| s.env.is_empty()) {
        writeln!(calls_text, "{c} {m}")?;
        for &np in &s.nps {
            writeln!(expect, "{np} {c} {m} {LIBRARY_DEFAULT} 0 0")?;
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

fn plan(out: &Path, example: &Path) -> Res<()> {
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
        });
    }
    let mut inter = DecisionTable::new();
    for r in t.rules().iter().filter(|r| r.level == Level::IntraCluster) {
        inter.insert(*r)?;
    }
    let good = open_mpi::write(&inter, &open_mpi::Options::for_job(JOB))?;
    // corrupted after writing: the 4-rank flat broadcast becomes binomial
    let bad = good.replacen("\n0 1 0 0 # flat\n", "\n0 6 0 0 # flat\n", 1);
    if bad == good {
        return Err("no rule to corrupt".into());
    }
    scenarios.push(Scenario {
        name: "openmpi-4.1-corrupted",
        library: Library::OpenMpi,
        file: bad,
        table: inter.clone(),
        level: Level::IntraCluster,
        nps: vec![4],
        outcome: "differ",
        env: "",
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
    });
    // corrupted after writing: the all-to-all of the catch-all becomes Bruck's
    let key = "\"comm_hierarchy=any\": {\n                    \"comm_size<=7\": {\n                        \"avg_msg_size=any\": {\n                            \"algorithm=MPIR_Alltoall_intra_pairwise\"";
    let at = json
        .find("\"collective=alltoall\"")
        .and_then(|a| json[a..].find(key).map(|k| a + k))
        .ok_or("no all-to-all rule to corrupt")?;
    let mut bad = json.clone();
    let name_at = at + key.len() - "MPIR_Alltoall_intra_pairwise\"".len();
    bad.replace_range(
        name_at..name_at + "MPIR_Alltoall_intra_pairwise".len(),
        "MPIR_Alltoall_intra_brucks",
    );
    scenarios.push(Scenario {
        name: "mpich-4.0-corrupted",
        library: Library::Mpich,
        file: bad,
        table: t,
        level: Level::IntraCluster,
        nps: vec![4],
        outcome: "differ",
        env: "",
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
    });

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
    Ok(())
}

/// (np, collective, bytes) → the function, segment size and fan-out every rank ran, from the
/// logs of the runs without a file (a case where ranks disagree is left out: not observed).
fn baseline(dir: &Path) -> Res<Expect> {
    let mut ran: BTreeMap<(usize, String, u64), Vec<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let text = std::fs::read_to_string(&path)?;
        let mut current: Option<(usize, String, u64)> = None;
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            match f[..] {
                ["MARK", c, m, np] => current = Some((np.parse()?, c.to_owned(), m.parse()?)),
                ["ALG", func, seg, fan] => {
                    if let Some(key) = current.take() {
                        ran.entry(key)
                            .or_default()
                            .push(format!("{func} {seg} {fan}"));
                    }
                }
                _ => return Err(format!("{}: bad line {line:?}", path.display()).into()),
            }
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

/// (np, collective, bytes) → what must run.
type Expect = BTreeMap<(usize, String, u64), String>;

fn check(dir: &Path, baseline_dir: &Path, logs: &[String]) -> Res<bool> {
    let defaults = baseline(baseline_dir)?;
    let mut expect = Expect::new();
    for line in std::fs::read_to_string(dir.join("expect"))?.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [np, c, m, func, seg, fan] = f[..] else {
            return Err(format!("bad expect line {line:?}").into());
        };
        let key = (np.parse()?, c.to_owned(), m.parse()?);
        let want = if func == LIBRARY_DEFAULT {
            // unobserved without a file: no function has this name, the case fails
            defaults
                .get(&key)
                .cloned()
                .unwrap_or_else(|| "(not-observed-without-a-file) 0 0".to_owned())
        } else {
            format!("{func} {seg} {fan}")
        };
        expect.insert(key, want);
    }
    let outcome = std::fs::read_to_string(dir.join("outcome"))?;
    if outcome.trim() == "abort" {
        return Err("an abort scenario has no logs to check".into());
    }
    let want_follow = outcome.trim() == "follow";
    // case → (ranks that ran what the file means, ranks that did not, what they ran)
    let mut seen: BTreeMap<(usize, String, u64), (usize, usize, String)> = BTreeMap::new();
    let mut ranks = 0;
    for path in logs.iter().map(PathBuf::from) {
        ranks += 1;
        let text = std::fs::read_to_string(&path)?;
        let mut current: Option<(usize, String, u64)> = None;
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            match f[..] {
                ["MARK", c, m, np] => {
                    let key = (np.parse()?, c.to_owned(), m.parse()?);
                    current = expect.contains_key(&key).then_some(key);
                }
                ["ALG", func, seg, fan] => {
                    if let Some(key) = current.take() {
                        let ran = format!("{func} {seg} {fan}");
                        let e = seen.entry(key.clone()).or_insert((0, 0, String::new()));
                        if expect.get(&key) == Some(&ran) {
                            e.0 += 1;
                        } else {
                            e.1 += 1;
                            e.2 = ran;
                        }
                    }
                }
                _ => return Err(format!("{}: bad line {line:?}", path.display()).into()),
            }
        }
    }
    let mut followed = 0;
    let mut unobserved = 0;
    let mut total = 0;
    let mut shown = 0;
    let (mut untuned_total, mut untuned_followed) = (0, 0);
    for (key, want) in &expect {
        if !seen.keys().any(|k| k.0 == key.0) {
            continue; // that communicator size was not run
        }
        total += 1;
        let ok = match seen.get(key) {
            Some(&(_, 0, _)) => true,
            Some((_, _, ran)) => {
                if shown < 12 {
                    println!(
                        "  np={} {} {} B: the file means {want}, the library ran {ran}",
                        key.0, key.1, key.2
                    );
                    shown += 1;
                }
                false
            }
            None => {
                unobserved += 1;
                if shown < 12 {
                    println!(
                        "  np={} {} {} B: no algorithm observed (the file means {want})",
                        key.0, key.1, key.2
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
    println!(
        "{}: {followed} of {total} cases ran what the file means ({untuned_followed} of {untuned_total} untuned ones what the library runs without a file), {unobserved} not observed ({ranks} rank logs); expected: {}",
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
