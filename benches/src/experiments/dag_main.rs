//! `reproduce dag`: JIT, the paper's baselines and the readings the paper leaves open, on
//! the paper's job mix over several seeds (paper §4.2, Fig. 5 to 11).
//!
//! One set of seeded runs feeds every table: `dag` (the means over the seeds, the CSV
//! contract of the single-seed report it replaces), `dag-intervals` (the same with 95 %
//! intervals and both speedup metrics), `dag-variants` (each choice the paper leaves open,
//! side by side, named as the paper's reading or ours, with the bounds), `dag-claims`
//! (every claim of the paper with ours beside it and a verdict) and `dag-waits` (Inception's
//! per-transfer waits, Fig. 7).

use std::time::Instant;

use dag_sched::lp::{self, Backend, Objective, Reservations};
use dag_sched::models::Model;
use dag_sched::sim::{JitConfig, RestPolicy, Scheduler};
use dag_sched::workload::{ComputeModel, PsTraffic, ps_iteration};
use dag_sched::{Cluster, LatMethod, MachineId, lat};
use fabric_model::{BitsPerSec, Nanos};

use super::dag::{
    DagSchedulers, HEADER, MACHINES, OURS, PAPER_LOAD, jit_ours, main_load, paper_cells,
    workload_at,
};
use super::dag_claims::claims_table;
use super::dag_plots;
use super::dag_runs::{GROUPS, SeedRuns, Summary, TF, Variant, group_name, run_seeds};
use super::dag_stats::Estimate;
use crate::{Cell, Context, Experiment, Scale, Table};

/// The CSV header of `reproduce dag`'s intervals table (`dag-intervals`): per scheduler and
/// model group (`all` for every DAG job), over `seeds` seeds, the mean and 95 % half-width of:
/// `speedup` (mean over jobs of TensorFlow's JCT over this scheduler's), `speedup_of_means`
/// (TensorFlow's mean JCT over this scheduler's), `mean_wait_ms` (Fig. 6), the files'
/// `background_jct_ratio` (Fig. 9), and the minimum and median remaining bandwidth over all
/// DAG traffic in 1 s windows (Fig. 8); `jobs` is the DAG jobs of the group per seed.
pub const INTERVALS_HEADER: &str = "scheduler,model,seeds,jobs,speedup,speedup_ci95,speedup_of_means,speedup_of_means_ci95,mean_wait_ms,mean_wait_ms_ci95,background_jct_ratio,background_jct_ratio_ci95,min_remaining_bw,min_remaining_bw_ci95,median_remaining_bw,median_remaining_bw_ci95";

/// The CSV header of `reproduce dag`'s variants table (`dag-variants`): one row per variant,
/// `reading` saying whose it is (`paper`: the paper's text read literally; `ours`: a choice
/// the paper leaves open, or a reading of ours; `baseline`: a scheduler run on the same job
/// sets; `bound`: no scheduler can beat it), then over all DAG jobs and the seeds the mean
/// and 95 % half-width of the speedup (both metrics), the files' inflation, the minimum and
/// median remaining bandwidth over all DAG traffic, and the minimum and median over JIT's
/// LP transfers alone (`lp_only_*`, empty for the baselines).
pub const VARIANTS_HEADER: &str = "variant,reading,seeds,speedup,speedup_ci95,speedup_of_means,speedup_of_means_ci95,background_jct_ratio,background_jct_ratio_ci95,min_remaining_bw,min_remaining_bw_ci95,median_remaining_bw,median_remaining_bw_ci95,lp_only_min_remaining_bw,lp_only_median_remaining_bw";

/// Seeds of `dag` at `scale`.
fn seeds(scale: Scale) -> usize {
    match scale {
        Scale::Small => 2,
        Scale::Paper => 10,
    }
}

/// The α values run beside the default 0.4 (Fig. 10): the paper's sweep, 0.1 to 0.6 in steps
/// of 0.1, at the paper's scale; its two ends at the small scale (CI's quick check).
fn alphas(scale: Scale) -> &'static [f64] {
    match scale {
        Scale::Small => &[0.1, 0.6],
        Scale::Paper => &[0.1, 0.2, 0.3, 0.5, 0.6],
    }
}

/// The variants of `dag` at `scale` besides TensorFlow's order (always run first), each with
/// its reading and what it is, in table order.
fn variants(scale: Scale) -> Vec<(Variant, &'static str, &'static str)> {
    let jit = JitConfig::default();
    let ten = Nanos::from_secs(10);
    let mut v = vec![
        (
            Variant::new("tictac", Scheduler::TicTac),
            "ours",
            "FIFO + TicTac, the files inside its FIFO (the paper does not say)",
        ),
        (
            Variant::new("tictac-files-last", Scheduler::TicTacFilesLast),
            "ours",
            "FIFO + TicTac over the DAG jobs only, the files behind them",
        ),
        (
            Variant::new("sincronia", Scheduler::Sincronia),
            "baseline",
            "Sincronia, each job's released transfers one coflow",
        ),
        (
            Variant::new("varys", Scheduler::Varys),
            "baseline",
            "Varys (SEBF + MADD): cited by the paper, not in its evaluation",
        ),
        (
            Variant::new("jit", Scheduler::Jit(jit)),
            "paper",
            "JIT: the rest of the DAG bits fair-shared as background (the default)",
        ),
        (
            Variant::new(OURS, Scheduler::Jit(jit_ours())),
            "ours",
            "JIT, the rest by strict priority (fewest bits left first, LAT order)",
        ),
        (
            Variant::new(
                "jit-rest-sincronia",
                Scheduler::Jit(jit.with_rest(RestPolicy::Sincronia)),
            ),
            "ours",
            "JIT, the rest as coflows in what the plans leave: Sincronia's order, MADD",
        ),
        (
            Variant::new(
                "jit-rest-varys",
                Scheduler::Jit(jit.with_rest(RestPolicy::Varys)),
            ),
            "ours",
            "JIT, the rest as coflows in what the plans leave: Varys's SEBF, MADD",
        ),
        (
            Variant::new(
                "jit-lat-max",
                Scheduler::Jit(jit.with_lat(LatMethod::Algorithm1Max)),
            ),
            "ours",
            "JIT with formula (1) read as a max (Fig. 4: 1, 3, 5, 6 s)",
        ),
    ];
    if scale == Scale::Paper {
        v.extend([
            (
                Variant::new(
                    "jit-lat-backward-cpm",
                    Scheduler::Jit(jit.with_lat(LatMethod::BackwardCpm)),
                ),
                "ours",
                "JIT with the backward critical-path LAT (Fig. 4: 1, 2, 4, 5 s)",
            ),
            (
                Variant::new("jit-window-10s", Scheduler::Jit(jit)).with_window(ten),
                "ours",
                "JIT, remaining bandwidth over 10 s windows",
            ),
        ]);
    }
    v.push((
        Variant::new("tensorflow-window-10s", Scheduler::TensorFlow).with_window(ten),
        "ours",
        "TensorFlow's order, remaining bandwidth over 10 s windows",
    ));
    for &a in alphas(scale) {
        v.push((
            Variant::new(
                &format!("jit-alpha-{a:.1}"),
                Scheduler::Jit(jit.with_alpha(a)),
            ),
            "paper",
            "JIT at another alpha (Fig. 10)",
        ));
    }
    v
}

/// The α sweep's rows, (α, row name), the default's row `jit` at 0.4.
fn alpha_rows(scale: Scale) -> Vec<(f64, String)> {
    let mut v: Vec<(f64, String)> = alphas(scale)
        .iter()
        .map(|&a| (a, format!("jit-alpha-{a:.1}")))
        .chain([(JitConfig::default().alpha, "jit".to_owned())])
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// The rows of the `dag` and `dag-intervals` tables, in order: the paper's schedulers, ours,
/// and the α sweep (the default's row repeated as `jit-alpha-0.4`).
fn main_rows(runs: &SeedRuns, scale: Scale) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = [TF, "tictac", "sincronia", "varys", "jit", OURS]
        .iter()
        .chain(
            [
                "jit-rest-sincronia",
                "jit-rest-varys",
                "jit-p1-minmax",
                "jit-lat-backward-cpm",
                "jit-lat-max",
                "tictac-files-last",
            ]
            .iter(),
        )
        .filter(|n| runs.of(n).is_some())
        .map(|n| ((*n).to_owned(), (*n).to_owned()))
        .collect();
    for (a, name) in alpha_rows(scale) {
        rows.push((format!("jit-alpha-{a:.1}"), name));
    }
    rows
}

fn f3(x: f64) -> Cell {
    super::dag_stats::cell(x, 3)
}

impl Experiment for DagSchedulers {
    fn name(&self) -> &'static str {
        "dag"
    }

    fn description(&self) -> &'static str {
        "JIT vs TensorFlow order, FIFO+TicTac, Sincronia and Varys on DL training DAGs plus file transfers, over seeds, with the readings the paper leaves open and a verdict per claim (paper Fig. 5 to 11)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let scale = ctx.scale;
        let cluster =
            Cluster::uniform(MACHINES, BitsPerSec::from_gbps(1)).map_err(|e| e.to_string())?;
        let load = main_load(scale);
        let cfg = workload_at(scale, &cluster, load)?;
        let vs = variants(scale);
        let all: Vec<Variant> = vs.iter().map(|(v, _, _)| v.clone()).collect();
        let runs = run_seeds(
            ctx,
            &cluster,
            &|_| workload_at(scale, &cluster, load),
            seeds(scale),
            &all,
            "dag: ",
        )?;
        let n = runs.seeds();
        let lp_ms = match scale {
            Scale::Paper => Some(lp_time_70(&cluster)?),
            Scale::Small => None,
        };
        let mut tables = vec![
            means_table(&runs, scale),
            intervals_table(&runs, scale),
            variants_table(&runs, &vs),
            claims_table(&runs, &alpha_rows(scale), lp_ms, scale == Scale::Paper),
            waits_table(&runs, &vs),
        ];
        let tf_files = Estimate::of(&runs.tf_files);
        let span = Estimate::of(&runs.span);
        let share = runs.est("jit", |s: &Summary| s.lp_bit_share);
        let setting = format!(
            "{MACHINES} machines at 1 Gbps; per seed {} DAG jobs (one worker iteration each, 2 parameter servers, equal shares of LeNet, AlexNet, VGG16, Inception-v3, ResNet-152) and {} file jobs of 5-40 Gb, Poisson arrivals at offered load {load} (mean gap {:.4} s); {n} seeds (job set 2026+k, TensorFlow's random order 7+k), every variant on every seed; every figure is the mean over the seeds with its 95 % interval (Student t). Arrivals span {} s; TensorFlow's files take {}x their time alone (the paper: 2.23). {}",
            cfg.dag_jobs,
            cfg.file_jobs,
            cfg.mean_interarrival,
            span.text(1),
            tf_files.text(3),
            match scale {
                Scale::Paper => format!(
                    "The load {PAPER_LOAD} is calibrated on that baseline figure alone (reproduce dag-calibrate: TensorFlow's order only, never JIT's figures)."
                ),
                Scale::Small => "Small scale: the 40 jobs arrive within seconds and barely meet (no contention, unlike the paper's), so the verdicts here do not judge the paper; --scale paper runs the calibrated mix.".to_owned(),
            }
        );
        tables[0].note(setting.clone());
        tables[3].note(setting);
        tables[0].note(format!(
            "JIT (the paper's reading by default): alpha 0.4, slot 0.1 s (ours: the paper gives no slot length), the lexicographic objective (P2-P4) in levels form with 3 levels (ours), Algorithm 1's LAT with formula (1) as a sum, the alpha share of each job's transfers of smallest LAT in the LP, the rest fair-shared with the files as background traffic; microlp. The LP's transfers hold {} of the DAG jobs' bits (the large tensors have the largest LATs), so the background policy decides most of a job's JCT.",
            share.text(3)
        ));
        tables[0].note("Speedup = TensorFlow JCT / scheduler JCT per DAG job, averaged (the speedup of the mean JCTs is in dag-intervals). Remaining bandwidth (18) = 1 - bits of all DAG transfers / capacity per port and 1 s window in which DAG transfers moved bits (the window is ours); jit_planned_only_min_remaining_bw counts JIT's LP transfers alone. Every column is the mean over the seeds; dag-intervals has the intervals.");
        if let Some(dir) = ctx.plots_dir() {
            let _ = dir;
            dag_plots::draw(ctx, &runs, &alpha_rows(scale))?;
        }
        super::dag_runs::dump_tables(ctx, &tables)?;
        Ok(tables)
    }
}

/// `dag`'s table (its CSV header unchanged from the single-seed report): the means over the
/// seeds.
fn means_table(runs: &SeedRuns, scale: Scale) -> Table {
    let mut t = Table::new(
        "dag",
        "JIT and baselines on the paper's job mix (means over the seeds)",
        HEADER,
    )
    .with_paper_columns(&[
        "paper_speedup",
        "paper_min_remaining_bw",
        "paper_median_remaining_bw",
        "paper_background_jct_ratio",
    ])
    .with_text_view(&[
        ("scheduler", "scheduler"),
        ("model", "model"),
        ("mean_speedup_vs_tf", "speedup"),
        ("mean_wait_ms", "wait_ms"),
        ("background_jct_ratio", "files"),
        ("min_remaining_bw", "min_rem"),
        ("median_remaining_bw", "med_rem"),
        ("paper:paper_speedup", "p:speedup"),
        ("paper:paper_background_jct_ratio", "p:files"),
    ]);
    for (row, name) in main_rows(runs, scale) {
        for g in 0..GROUPS {
            let e = |f: &dyn Fn(&Summary) -> f64| runs.est(&name, f).mean;
            let planned = if name.starts_with("jit") {
                f3(e(&|s| s.planned_min()))
            } else {
                Cell::Empty
            };
            t.push_with_paper(
                vec![
                    Cell::text(&row),
                    Cell::text(group_name(g)),
                    Cell::float(e(&|s| s.jobs[g] as f64), 0),
                    f3(e(&|s| s.speedup[g])),
                    f3(e(&|s| s.rem_min())),
                    f3(e(&|s| s.rem_median())),
                    Cell::float(e(&|s| s.wait[g]) * 1e3, 1),
                    f3(e(&|s| s.files)),
                    planned,
                ],
                paper_cells(&row, group_name(g)),
            );
        }
    }
    t
}

/// `dag-intervals`: the same rows with the 95 % intervals and the speedup of the means.
fn intervals_table(runs: &SeedRuns, scale: Scale) -> Table {
    let mut t = Table::new(
        "dag-intervals",
        "The same with 95 % intervals over the seeds, both speedup metrics",
        INTERVALS_HEADER,
    )
    .with_text_view(&[
        ("scheduler", "scheduler"),
        ("model", "model"),
        ("speedup", "speedup"),
        ("speedup_ci95", "±95%"),
        ("speedup_of_means", "of_means"),
        ("speedup_of_means_ci95", "±95%"),
        ("mean_wait_ms", "wait_ms"),
        ("background_jct_ratio", "files"),
        ("background_jct_ratio_ci95", "±95%"),
    ]);
    for (row, name) in main_rows(runs, scale) {
        for g in 0..GROUPS {
            let e = |f: &dyn Fn(&Summary) -> f64| runs.est(&name, f);
            let pair = |x: Estimate, k: f64, d: usize| {
                [
                    super::dag_stats::cell(x.mean * k, d),
                    super::dag_stats::cell(x.half * k, d),
                ]
            };
            let mut cells = vec![
                Cell::text(&row),
                Cell::text(group_name(g)),
                Cell::count(runs.of(&name).map_or(0, <[Summary]>::len)),
                Cell::float(e(&|s| s.jobs[g] as f64).mean, 0),
            ];
            cells.extend(pair(e(&|s| s.speedup[g]), 1.0, 3));
            cells.extend(pair(e(&|s| s.ratio_of_means(g)), 1.0, 3));
            cells.extend(pair(e(&|s| s.wait[g]), 1e3, 1));
            cells.extend(pair(e(&|s| s.files), 1.0, 3));
            cells.extend(pair(e(&|s| s.rem_min()), 1.0, 3));
            cells.extend(pair(e(&|s| s.rem_median()), 1.0, 3));
            t.push(cells);
        }
    }
    t.note("speedup = mean over a group's DAG jobs of TensorFlow's JCT over this scheduler's (the paper's (17) averaged per job); of_means = TensorFlow's mean JCT over this scheduler's mean JCT (the two differ when the jobs a scheduler slows are the long ones). Both are averaged over the seeds, each seed's job set run under every scheduler.");
    t
}

/// `dag-variants`: every variant over all DAG jobs, with its reading, and the two bounds.
fn variants_table(runs: &SeedRuns, vs: &[(Variant, &str, &str)]) -> Table {
    let mut t = Table::new(
        "dag-variants",
        "The readings the paper leaves open, side by side (all DAG jobs)",
        VARIANTS_HEADER,
    )
    .with_text_view(&[
        ("variant", "variant"),
        ("reading", "reading"),
        ("speedup", "speedup"),
        ("speedup_ci95", "±95%"),
        ("speedup_of_means", "of_means"),
        ("background_jct_ratio", "files"),
        ("min_remaining_bw", "min_rem"),
        ("median_remaining_bw", "med_rem"),
        ("lp_only_min_remaining_bw", "lp_min"),
        ("lp_only_median_remaining_bw", "lp_med"),
    ]);
    let all = super::dag_runs::ALL;
    let row = |name: &str, reading: &str, t: &mut Table| {
        let e = |f: &dyn Fn(&Summary) -> f64| runs.est(name, f);
        let jit = name.starts_with("jit");
        let lp = |f: &dyn Fn(&Summary) -> f64| {
            if jit { f3(e(f).mean) } else { Cell::Empty }
        };
        let sp = e(&|s| s.speedup[all]);
        let om = e(&|s| s.ratio_of_means(all));
        let fi = e(&|s| s.files);
        let mi = e(&|s| s.rem_min());
        let me = e(&|s| s.rem_median());
        t.push(vec![
            Cell::text(name),
            Cell::text(reading),
            Cell::count(runs.of(name).map_or(0, <[Summary]>::len)),
            f3(sp.mean),
            f3(sp.half),
            f3(om.mean),
            f3(om.half),
            f3(fi.mean),
            f3(fi.half),
            f3(mi.mean),
            f3(mi.half),
            f3(me.mean),
            f3(me.half),
            lp(&|s| s.planned_min()),
            lp(&|s| s.remaining_planned.get(50).copied().unwrap_or(f64::NAN)),
        ]);
    };
    row(TF, "paper", &mut t);
    let mut notes = vec![format!(
        "{TF} (paper): TensorFlow v1.13's random order per channel, max-min fair sharing; remaining bandwidth over 1 s windows (the window is ours)"
    )];
    for (v, reading, what) in vs {
        if v.name.starts_with("jit-alpha-") {
            continue;
        }
        row(&v.name, reading, &mut t);
        notes.push(format!("{} ({reading}): {what}", v.name));
    }
    for (name, f, what) in [
        (
            "bound-ingress",
            (|b: &super::dag_runs::Bounds| (b.ingress, b.ingress_of_means))
                as fn(&super::dag_runs::Bounds) -> (f64, f64),
            "each job alone with its transfers sharing their ports (the worker's ingress) in the best order (Jackson's rule on the compute after each): TensorFlow's JCT over that lower bound",
        ),
        (
            "bound-isolated",
            |b| (b.isolated, b.isolated_of_means),
            "the isolated-job ceiling: TensorFlow's JCT over the critical path alone at line rate (every pull at the full port rate at once, which no port allows)",
        ),
    ] {
        let per: Vec<(f64, f64)> = runs.bounds.iter().map(f).collect();
        let a = Estimate::of(&per.iter().map(|p| p.0).collect::<Vec<_>>());
        let b = Estimate::of(&per.iter().map(|p| p.1).collect::<Vec<_>>());
        t.push(vec![
            Cell::text(name),
            Cell::text("bound"),
            Cell::count(runs.seeds()),
            f3(a.mean),
            f3(a.half),
            f3(b.mean),
            f3(b.half),
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
        ]);
        notes.push(format!(
            "{name} (bound): {what}; no scheduler's speedup exceeds it"
        ));
    }
    t.note(format!("Rows: {}.", notes.join("; ")));
    t.note("Remaining bandwidth (18) over all DAG traffic counts every DAG transfer, JIT's LP transfers and the rest; lp_min and lp_med count JIT's LP transfers alone (what its plans take; the paper's Fig. 8 and 10 do not say which traffic they count). The 10 s rows change only the window, not the schedule.");
    t
}

/// The CSV header of `dag-waits` (paper Fig. 7): per scheduler, over the seeds, the median
/// and 90th percentile of Inception's per-transfer data waiting times (s) and the share of its
/// transfers used within 0.1 s of arriving, each with its 95 % half-width; then the first
/// seed's example job (Fig. 7's plot): its transfers and their mean wait (s).
pub const WAITS_HEADER: &str = "scheduler,seeds,wait_p50_s,wait_p50_s_ci95,wait_p90_s,wait_p90_s_ci95,used_within_100ms,used_within_100ms_ci95,example_transfers,example_mean_wait_s";

/// `dag-waits`: Inception's per-transfer waits (paper Fig. 7) under every scheduler.
fn waits_table(runs: &SeedRuns, vs: &[(Variant, &str, &str)]) -> Table {
    let mut t = Table::new(
        "dag-waits",
        "Inception's per-transfer data waiting time, arrival to first use (paper Fig. 7)",
        WAITS_HEADER,
    )
    .with_text_view(&[
        ("scheduler", "scheduler"),
        ("wait_p50_s", "p50_s"),
        ("wait_p50_s_ci95", "±95%"),
        ("wait_p90_s", "p90_s"),
        ("wait_p90_s_ci95", "±95%"),
        ("used_within_100ms", "within_0.1s"),
        ("used_within_100ms_ci95", "±95%"),
        ("example_mean_wait_s", "example_s"),
    ]);
    let names = std::iter::once(TF).chain(
        vs.iter()
            .map(|(v, _, _)| v.name.as_str())
            .filter(|n| !n.starts_with("jit-alpha-") && !n.ends_with("-window-10s")),
    );
    for name in names {
        let e = |i: usize| runs.est(name, |s: &Summary| s.inception_waits[i]);
        let (a, b, c) = (e(0), e(1), e(2));
        let example = runs
            .of(name)
            .and_then(|s| s.first())
            .map_or(&[][..], |s| s.example.as_slice());
        let mean_wait = if example.is_empty() {
            f64::NAN
        } else {
            example.iter().map(|p| (p.1 - p.0).max(0.0)).sum::<f64>() / example.len() as f64
        };
        t.push(vec![
            Cell::text(name),
            Cell::count(runs.of(name).map_or(0, <[Summary]>::len)),
            f3(a.mean),
            f3(a.half),
            f3(b.mean),
            f3(b.half),
            f3(c.mean),
            f3(c.half),
            Cell::count(example.len()),
            f3(mean_wait),
        ]);
    }
    t.note("Every transfer of every Inception job of a seed that a compute task consumes: its wait runs from its last bit's arrival to the start of its first consumer (the paper's Fig. 2 and 7 draw these for one job). The 0.1 s threshold is ours (the paper's JIT mean Inception wait, Fig. 6). The example job of `--plots`' Fig. 7 is the first seed's Inception job arriving nearest the middle arrival.");
    t
}

/// The LP's solve time (ms, microlp, P1's min-max, one LP) for 70 VGG16 jobs arriving
/// together, as `dag-lp` builds them (paper Fig. 11: under 1 s at 70 jobs); the median of
/// three solves.
fn lp_time_70(cluster: &Cluster) -> Result<f64, String> {
    let jit = JitConfig::default();
    let compute = ComputeModel::default();
    let mut transfers = Vec::new();
    for k in 0..70usize {
        let w = MachineId::new((k % MACHINES) as u32);
        let ps = [
            MachineId::new(((k + 37) % MACHINES) as u32),
            MachineId::new(((k + 71) % MACHINES) as u32),
        ];
        let job = ps_iteration(Model::Vgg16, w, &ps, &compute, PsTraffic::Pulls, cluster)
            .map_err(|e| e.to_string())?;
        let est = lat::estimate(&job, cluster, jit.lat);
        let n_lp = lp::alpha_prefix(job.transfers().len(), jit.alpha).map_err(|e| e.to_string())?;
        transfers.extend(lp::job_transfers(&job, cluster, &est, n_lp, 0.0));
    }
    let mut ms = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        lp::solve(
            cluster,
            &transfers,
            &Reservations::new(),
            jit.slot,
            Objective::MinMax,
            Backend::Microlp,
        )
        .map_err(|e| e.to_string())?;
        ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms[1])
}
