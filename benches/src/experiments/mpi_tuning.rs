//! `reproduce mpi-tuning`: topo-cluster's tuning files, written from pLogP parameters
//! measured with the real MPI library, timed against the library's built-in decision rules.
//!
//! For each MPI library installed (Debian's `openmpi-bin` + `libopenmpi-dev`, `mpich` +
//! `libmpich-dev`): `mpi_tuning.c` is built with the library's `mpicc`; a ping-pong between two
//! ranks over its shared-memory transport measures round trips, send and receive overheads
//! and the 0-byte gap, from which [`PLogP::from_round_trips`] derives the model (Kielmann, Bal
//! and Verstoep, IPDPS 2000 workshops); topo-cluster chooses per collective and message size
//! among the trees the library version has ([`DecisionTable::compute`]) for the
//! communicator of the run and writes the file (Open MPI 4.1 classic, MPICH 4.0 JSON, one
//! level: every rank is on this machine). Then every covered collective is timed at each size
//! under the library's own rules and under the file, in alternating launches (the library
//! reads the file when MPI starts), and the ratio ours / library is taken per launch pair:
//! the table gives its median and its range over the pairs.
//!
//! Without an MPI library the experiment says so and returns an empty table. On a machine
//! with fewer cores than ranks the runs are oversubscribed, and timings are noisy: the load
//! average at the start and the end is in the notes.

use std::path::{Path, PathBuf};
use std::process::Command;

use fabric_model::Bytes;
use topo_cluster::decision::Compute;
use topo_cluster::mpi::{LevelMap, mpich, open_mpi};
use topo_cluster::plogp::RttSample;
use topo_cluster::{Collective, DecisionTable, Level, PLogP};

use crate::{Cell, Context, Experiment, Scale, Table};

/// The CSV header of `reproduce mpi-tuning`.
pub const HEADER: &str =
    "library,collective,ranks,bytes,ours,library_us,ours_us,ratio_median,ratio_min,ratio_max,pairs";

/// The C program, built with each library's `mpicc`.
const SOURCE: &str = include_str!("mpi_tuning.c");

/// Topo-cluster's tuning files against the MPI library's built-in rules.
#[derive(Debug, Clone, Copy, Default)]
pub struct MpiTuning;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Library {
    OpenMpi,
    Mpich,
}

impl Library {
    fn name(self) -> &'static str {
        match self {
            Self::OpenMpi => "Open MPI 4.1",
            Self::Mpich => "MPICH 4.0",
        }
    }
    fn mpicc(self) -> &'static str {
        match self {
            Self::OpenMpi => "mpicc.openmpi",
            Self::Mpich => "mpicc.mpich",
        }
    }
    fn launcher(self) -> &'static str {
        match self {
            Self::OpenMpi => "mpirun.openmpi",
            Self::Mpich => "mpiexec.mpich",
        }
    }
    fn installed(self) -> bool {
        [self.mpicc(), self.launcher()].iter().all(|tool| {
            Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    }
}

/// What one run does: ranks, message sizes, launch pairs, calls per timing.
struct Plan {
    ranks: usize,
    sizes: Vec<u64>,
    pairs: usize,
    iters: usize,
    pingpong_reps: usize,
}

fn plan(scale: Scale) -> Plan {
    match scale {
        Scale::Small => Plan {
            ranks: 4,
            sizes: vec![64, 8192, 1 << 20],
            pairs: 3,
            iters: 10,
            pingpong_reps: 50,
        },
        Scale::Paper => Plan {
            ranks: std::thread::available_parallelism()
                .map_or(4, usize::from)
                .clamp(4, 16),
            sizes: (0..=22).step_by(2).map(|k| 1_u64 << k).collect(),
            pairs: 15,
            iters: 30,
            pingpong_reps: 200,
        },
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// Runs `ranks` processes of `program` with `args`, `file` as the library's rules when given.
fn launch(
    lib: Library,
    ranks: usize,
    program: &Path,
    args: &[String],
    file: Option<&Path>,
) -> Result<String, String> {
    let mut cmd = Command::new(lib.launcher());
    match lib {
        Library::OpenMpi => {
            cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .args(["--oversubscribe", "--bind-to", "none", "-np"])
                .arg(ranks.to_string());
            if let Some(f) = file {
                cmd.args(["--mca", "coll_tuned_use_dynamic_rules", "1"])
                    .args(["--mca", "coll_tuned_dynamic_rules_filename"])
                    .arg(f);
            }
        }
        Library::Mpich => {
            cmd.arg("-n").arg(ranks.to_string());
            if let Some(f) = file {
                cmd.env("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", f);
            }
        }
    }
    let out = cmd
        .arg(program)
        .args(args)
        .output()
        .map_err(|e| format!("{}: {e}", lib.launcher()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            lib.launcher(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(3)
                .collect::<Vec<_>>()
                .join(" / ")
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// The pLogP model from a ping-pong between two ranks.
fn measure(lib: Library, program: &Path, p: &Plan) -> Result<PLogP, String> {
    let mut sizes: Vec<u64> = vec![0];
    sizes.extend(p.sizes.iter().copied());
    sizes.sort_unstable();
    sizes.dedup();
    let mut args = vec!["pingpong".to_owned(), p.pingpong_reps.to_string()];
    args.extend(sizes.iter().map(u64::to_string));
    let out = launch(lib, 2, program, &args, None)?;
    let mut samples = Vec::new();
    let mut g0 = None;
    for line in out.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |s: &str| s.parse::<f64>().map_err(|e| format!("{line:?}: {e}"));
        match f[..] {
            ["G0", g] => g0 = Some(num(g)?),
            [m, rtt, os, or] => samples.push(RttSample::new(
                Bytes::new(m.parse().map_err(|e| format!("{line:?}: {e}"))?),
                num(rtt)?,
                num(os)?,
                num(or)?,
            )),
            _ => return Err(format!("unexpected ping-pong line {line:?}")),
        }
    }
    let g0 = g0.ok_or("the ping-pong printed no gap")?;
    PLogP::from_round_trips(g0, &samples).map_err(|e| e.to_string())
}

/// (collective, bytes) and the time per call in nanoseconds, one per case.
type Timings = Vec<((String, u64), f64)>;

/// Times every case.
fn time_cases(
    lib: Library,
    program: &Path,
    p: &Plan,
    file: Option<&Path>,
) -> Result<Timings, String> {
    let mut args = vec!["time".to_owned(), p.iters.to_string()];
    for c in Collective::ALL {
        for m in &p.sizes {
            args.push(format!("{}:{m}", c.name()));
        }
    }
    let out = launch(lib, p.ranks, program, &args, file)?;
    out.lines()
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            match f[..] {
                [c, m, ns] => Ok((
                    (
                        c.to_owned(),
                        m.parse().map_err(|e| format!("{line:?}: {e}"))?,
                    ),
                    ns.parse().map_err(|e| format!("{line:?}: {e}"))?,
                )),
                _ => Err(format!("unexpected timing line {line:?}")),
            }
        })
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run_library(
    lib: Library,
    p: &Plan,
    dir: &Path,
    ctx: &Context,
    t: &mut Table,
) -> Result<(), String> {
    let src = dir.join("mpi_tuning.c");
    std::fs::write(&src, SOURCE).map_err(|e| e.to_string())?;
    let program = dir.join(match lib {
        Library::OpenMpi => "mpi_tuning_openmpi",
        Library::Mpich => "mpi_tuning_mpich",
    });
    let built = Command::new(lib.mpicc())
        .args(["-O2", "-o"])
        .arg(&program)
        .arg(&src)
        .output()
        .map_err(|e| format!("{}: {e}", lib.mpicc()))?;
    if !built.status.success() {
        return Err(format!(
            "{} failed: {}",
            lib.mpicc(),
            String::from_utf8_lossy(&built.stderr)
        ));
    }
    ctx.progress(&format!("mpi-tuning: {}: ping-pong", lib.name()));
    let model = measure(lib, &program, p)?;
    let sizes: Vec<Bytes> = p.sizes.iter().copied().map(Bytes::new).collect();
    let mut table = DecisionTable::new();
    for c in Collective::ALL {
        let trees = match lib {
            Library::OpenMpi => open_mpi::Version::V4_1.trees(c),
            Library::Mpich => mpich::Version::V4_0.trees(c),
        };
        table
            .compute(
                &Compute::new(c, Level::IntraMachine, &model)
                    .among(&trees)
                    .group_sizes(&[p.ranks])
                    .message_sizes(&sizes),
            )
            .map_err(|e| e.to_string())?;
    }
    let levels = LevelMap::single(Level::IntraMachine);
    let (text, name) = match lib {
        Library::OpenMpi => (
            open_mpi::write(
                &table,
                &open_mpi::Options::for_job(p.ranks).with_levels(levels),
            ),
            "coll_tuned_rules.txt",
        ),
        Library::Mpich => (
            mpich::write(
                &table,
                &mpich::Options::for_job(p.ranks).with_levels(levels),
            ),
            "mpich_coll_selection.json",
        ),
    };
    let file = dir.join(name);
    std::fs::write(&file, text.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    if let Some(d) = ctx.dump_dir() {
        let _ = std::fs::copy(&file, d.join(format!("mpi-tuning-{name}")));
    }
    let mut ratios: Vec<Vec<f64>> = Vec::new();
    let mut lib_ns: Vec<Vec<f64>> = Vec::new();
    let mut ours_ns: Vec<Vec<f64>> = Vec::new();
    let mut keys: Vec<(String, u64)> = Vec::new();
    for pair in 0..p.pairs {
        ctx.progress(&format!(
            "mpi-tuning: {}: launch pair {}/{}",
            lib.name(),
            pair + 1,
            p.pairs
        ));
        // alternate which goes first
        let (a, b) = if pair % 2 == 0 {
            let a = time_cases(lib, &program, p, None)?;
            (a, time_cases(lib, &program, p, Some(&file))?)
        } else {
            let b = time_cases(lib, &program, p, Some(&file))?;
            (time_cases(lib, &program, p, None)?, b)
        };
        if keys.is_empty() {
            keys = a.iter().map(|(k, _)| k.clone()).collect();
            ratios = vec![Vec::new(); keys.len()];
            lib_ns = vec![Vec::new(); keys.len()];
            ours_ns = vec![Vec::new(); keys.len()];
        }
        for (i, k) in keys.iter().enumerate() {
            let find = |v: &[((String, u64), f64)]| v.iter().find(|(x, _)| x == k).map(|x| x.1);
            let (Some(l), Some(o)) = (find(&a), find(&b)) else {
                return Err(format!("case {k:?} missing from a launch"));
            };
            ratios[i].push(o / l);
            lib_ns[i].push(l);
            ours_ns[i].push(o);
        }
    }
    let (mut wins, mut losses) = (Vec::new(), Vec::new());
    for (i, (c, m)) in keys.iter().enumerate() {
        let collective = Collective::from_name(c).ok_or("unknown collective")?;
        let rule = table
            .lookup(collective, Level::IntraMachine, p.ranks, Bytes::new(*m))
            .map_err(|e| e.to_string())?;
        let ours = match rule.segment {
            Some(s) => format!("{} {}", rule.algorithm.name(), s.get()),
            None => rule.algorithm.name().to_owned(),
        };
        let r = &mut ratios[i];
        let (lo, hi) = (
            r.iter().copied().fold(f64::INFINITY, f64::min),
            r.iter().copied().fold(0.0, f64::max),
        );
        let mid = median(r);
        // a clear result: every pair on the same side of 1
        if hi < 1.0 {
            wins.push(format!("{c} {m} B ({mid:.2})"));
        } else if lo > 1.0 {
            losses.push(format!("{c} {m} B ({mid:.2})"));
        }
        t.push(vec![
            Cell::text(lib.name()),
            Cell::text(c.clone()),
            Cell::Int(p.ranks as i64),
            Cell::Int(*m as i64),
            Cell::text(ours),
            Cell::Float(median(&mut lib_ns[i]) / 1000.0, 1),
            Cell::Float(median(&mut ours_ns[i]) / 1000.0, 1),
            Cell::Float(mid, 2),
            Cell::Float(lo, 2),
            Cell::Float(hi, 2),
            Cell::Int(p.pairs as i64),
        ]);
    }
    t.note(format!(
        "{}: the file faster in every pair: {}; slower in every pair: {}; the other {} cases mixed",
        lib.name(),
        if wins.is_empty() {
            "none".to_owned()
        } else {
            wins.join(", ")
        },
        if losses.is_empty() {
            "none".to_owned()
        } else {
            losses.join(", ")
        },
        keys.len() - wins.len() - losses.len()
    ));
    t.note(format!(
        "{}: measured pLogP L = {:.0} ns, g(0) = {:.0} ns, g(64 KiB) = {:.0} ns",
        lib.name(),
        model.latency_ns(),
        model.gap_ns(Bytes::new(0)),
        model.gap_ns(Bytes::new(65536))
    ));
    Ok(())
}

impl Experiment for MpiTuning {
    fn name(&self) -> &'static str {
        "mpi-tuning"
    }

    fn description(&self) -> &'static str {
        "topo-cluster's Open MPI / MPICH files from measured pLogP, timed against the library's own rules (ratio ours/library per launch pair)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let mut t = Table::new(
            "mpi-tuning",
            "Collectives under topo-cluster's file vs the library's built-in rules",
            HEADER,
        );
        let p = plan(ctx.scale);
        let libs: Vec<Library> = [Library::OpenMpi, Library::Mpich]
            .into_iter()
            .filter(|l| l.installed())
            .collect();
        if libs.is_empty() {
            t.note("skipped: no MPI library installed (install Debian's openmpi-bin and libopenmpi-dev, or mpich and libmpich-dev)");
            return Ok(vec![t]);
        }
        let dir: PathBuf =
            std::env::temp_dir().join(format!("reproduce-mpi-tuning-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let start_load = loadavg();
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        for lib in libs {
            run_library(lib, &p, &dir, ctx, &mut t)?;
        }
        let _ = std::fs::remove_dir_all(&dir);
        t.note(format!(
            "{} ranks on {cores} cores{}; load average {start_load} at the start, {} at the end",
            p.ranks,
            if p.ranks > cores {
                " (oversubscribed: timings are noisy)"
            } else {
                ""
            },
            loadavg()
        ));
        t.note("ratio = time under topo-cluster's file / time under the library's built-in rules, per pair of launches (median, min, max over the pairs); below 1 the file is faster");
        t.note("ours: the tree the file names for that size (MPICH 4.0 has only the binomial trees and the pairwise exchange among topo-cluster's trees)");
        t.note("the library's own choice is not shown: where it is the tree the file names (e.g. MPICH's binomial bcast of small messages), a ratio away from 1 is noise; the conformance test (topo-cluster/conformance) observes what each ran");
        Ok(vec![t])
    }
}
