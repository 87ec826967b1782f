//! `reproduce dag-sensitivity`: `dag`'s figures when one parameter the paper does not give
//! changes: the devices' compute speed, the parameter servers per job, and JIT's slot length
//! (100 ms is ours; the paper gives none). Each point is its own seeded runs on `dag`'s mix
//! and load, TensorFlow's order first (the speedups are against it, at the same point).

use dag_sched::Cluster;
use dag_sched::sim::{JitConfig, Scheduler};
use fabric_model::{BitsPerSec, Nanos};

use super::dag::{MACHINES, main_load, workload_at};
use super::dag_runs::{ALL, Summary, TF, Variant, run_seeds};
use super::dag_stats::cell;
use crate::{Cell, Context, Experiment, Scale, Table};

/// The CSV header of `reproduce dag-sensitivity`: the `parameter` changed (`default`,
/// `compute_tflops`, `ps_per_job`, `slot_ms`) and its `value`, the scheduler, the seeds, then
/// over all DAG jobs the mean and 95 % half-width of the speedup over TensorFlow's order at
/// the same point (mean of per-job ratios, and of the mean JCTs), of the files' inflation, and
/// TensorFlow's own file inflation at that point.
pub const SENSITIVITY_HEADER: &str = "parameter,value,scheduler,seeds,speedup,speedup_ci95,speedup_of_means,speedup_of_means_ci95,background_jct_ratio,background_jct_ratio_ci95,tf_file_inflation";

/// `dag` against the compute speed, the parameter servers per job and the slot length.
#[derive(Debug, Clone, Copy, Default)]
pub struct DagSensitivity;

/// One point: what changes, its value, and the schedulers run there besides TensorFlow's.
struct Point {
    parameter: &'static str,
    value: f64,
    flops: f64,
    ps: usize,
    schedulers: Vec<(&'static str, Scheduler)>,
}

impl Experiment for DagSensitivity {
    fn name(&self) -> &'static str {
        "dag-sensitivity"
    }

    fn description(&self) -> &'static str {
        "dag's speedups and file inflation against the compute speed, parameter servers per job and JIT's slot length (values the paper does not give)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let scale = ctx.scale;
        let cluster =
            Cluster::uniform(MACHINES, BitsPerSec::from_gbps(1)).map_err(|e| e.to_string())?;
        let load = main_load(scale);
        let seeds = match scale {
            Scale::Small => 1,
            Scale::Paper => 10,
        };
        let jit = |slot_ms: u64| JitConfig::default().with_slot(Nanos::from_millis(slot_ms));
        let all = |slot: u64| -> Vec<(&'static str, Scheduler)> {
            match scale {
                Scale::Small => vec![("jit", Scheduler::Jit(jit(slot)))],
                Scale::Paper => vec![
                    ("tictac", Scheduler::TicTac),
                    ("jit", Scheduler::Jit(jit(slot))),
                ],
            }
        };
        let jits = |slot: u64| -> Vec<(&'static str, Scheduler)> {
            vec![("jit", Scheduler::Jit(jit(slot)))]
        };
        let base = |parameter, value| Point {
            parameter,
            value,
            flops: 1e12,
            ps: 2,
            schedulers: all(100),
        };
        let mut points = vec![
            base("default", f64::NAN),
            Point {
                flops: 5e12,
                ..base("compute_tflops", 5.0)
            },
            Point {
                ps: 1,
                ..base("ps_per_job", 1.0)
            },
        ];
        if scale == Scale::Paper {
            points.push(Point {
                ps: 4,
                ..base("ps_per_job", 4.0)
            });
            points.push(Point {
                schedulers: jits(50),
                ..base("slot_ms", 50.0)
            });
        }
        points.push(Point {
            schedulers: jits(500),
            ..base("slot_ms", 500.0)
        });
        let mut t = Table::new(
            "dag-sensitivity",
            "dag against parameters the paper does not give (all DAG jobs)",
            SENSITIVITY_HEADER,
        )
        .with_text_view(&[
            ("parameter", "parameter"),
            ("value", "value"),
            ("scheduler", "scheduler"),
            ("speedup", "speedup"),
            ("speedup_ci95", "±95%"),
            ("speedup_of_means", "of_means"),
            ("speedup_of_means_ci95", "±95%"),
            ("background_jct_ratio", "files"),
            ("tf_file_inflation", "tf_files"),
        ]);
        for p in &points {
            let variants: Vec<Variant> = p
                .schedulers
                .iter()
                .map(|(n, s)| Variant::new(n, *s))
                .collect();
            let (flops, ps) = (p.flops, p.ps);
            let runs = run_seeds(
                ctx,
                &cluster,
                &|_| {
                    let mut cfg = workload_at(scale, &cluster, load)?.with_ps_per_job(ps);
                    cfg.compute.flops = flops;
                    // The same offered load: the arrival rate follows the mix's bits.
                    cfg.at_load(&cluster, load).map_err(|e| e.to_string())
                },
                seeds,
                &variants,
                &format!("dag-sensitivity: {} {}, ", p.parameter, p.value),
            )?;
            let tf_files = super::dag_stats::Estimate::of(&runs.tf_files);
            for name in std::iter::once(TF).chain(p.schedulers.iter().map(|(n, _)| *n)) {
                let e = |f: &dyn Fn(&Summary) -> f64| runs.est(name, f);
                let sp = e(&|s| s.speedup[ALL]);
                let om = e(&|s| s.ratio_of_means(ALL));
                let fi = e(&|s| s.files);
                t.push(vec![
                    Cell::text(p.parameter),
                    if p.value.is_finite() {
                        Cell::float(p.value, 0)
                    } else {
                        Cell::Empty
                    },
                    Cell::text(name),
                    Cell::count(runs.seeds()),
                    cell(sp.mean, 3),
                    cell(sp.half, 3),
                    cell(om.mean, 3),
                    cell(om.half, 3),
                    cell(fi.mean, 3),
                    cell(fi.half, 3),
                    cell(tf_files.mean, 3),
                ]);
            }
        }
        t.note(format!(
            "default: dag's mix at load {load}: 1 TFLOP/s effective per device at batch 32, 2 parameter servers per job, JIT's slot 100 ms (all three ours: the paper gives none of them). Each point changes one of them and keeps the offered load (the arrival rate follows the mix's bits); {seeds} seed(s) per point (job set 2026+k, TensorFlow order 7+k){}.",
            if seeds < 10 {
                ": the small scale's quick check of the machinery; --scale paper runs 10"
            } else {
                ": JIT is the paper's reading; dag-variants has ours beside it at the default point"
            }
        ));
        let tables = vec![t];
        super::dag_runs::dump_tables(ctx, &tables)?;
        Ok(tables)
    }
}
