//! `reproduce dag-calibrate`: how the paper-scale load of `reproduce dag` was chosen.
//!
//! The paper gives no arrival rate. It does give the baselines' figures, and one of them
//! measures contention directly: under TensorFlow's order the background files take 2.23×
//! their time alone (Fig. 9). This experiment runs TensorFlow's order alone (never JIT: the
//! load is not fitted to JIT's figures) on the paper-scale mix at offered loads 0.50–0.90 and
//! reports the files' inflation with its 95 % interval over the seeds, and the load at which
//! the mean crosses 2.23 (linear interpolation between the two loads around it).
//! [`PAPER_LOAD`](super::dag::PAPER_LOAD) is that load, rounded, measured with this
//! experiment.

use dag_sched::Cluster;
use fabric_model::BitsPerSec;

use super::dag::{MACHINES, workload_at};
use super::dag_runs::run_seeds;
use super::dag_stats::Estimate;
use crate::{Cell, Context, Experiment, Scale, Table};

/// The CSV header of `reproduce dag-calibrate`: one row per offered load, TensorFlow's order
/// only; `tf_file_inflation` is the mean over seeds of the files' mean JCT over their time
/// alone, `tf_file_inflation_ci95` the half-width of its 95 % interval, `arrival_span_s` the
/// mean time from the first arrival to the last.
pub const CALIBRATE_HEADER: &str =
    "load,seeds,tf_file_inflation,tf_file_inflation_ci95,arrival_span_s";

/// TensorFlow's file inflation in the paper (Fig. 9): the calibration's target.
pub const TF_FILE_INFLATION: f64 = 2.23;

/// TensorFlow's order at a sweep of loads: the calibration of the paper-scale load.
#[derive(Debug, Clone, Copy, Default)]
pub struct DagCalibrate;

impl Experiment for DagCalibrate {
    fn name(&self) -> &'static str {
        "dag-calibrate"
    }

    fn description(&self) -> &'static str {
        "the load of dag's paper scale: TensorFlow's file inflation against the offered load, to meet the paper's 2.23 (Fig. 9; baselines only)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let cluster =
            Cluster::uniform(MACHINES, BitsPerSec::from_gbps(1)).map_err(|e| e.to_string())?;
        let (loads, seeds): (Vec<f64>, usize) = match ctx.scale {
            Scale::Small => (vec![0.5, 0.9], 2),
            Scale::Paper => ((10..=18).map(|k| f64::from(k) * 0.05).collect(), 10),
        };
        let mut t = Table::new(
            "dag-calibrate",
            "TensorFlow's file inflation against the offered load",
            CALIBRATE_HEADER,
        );
        let mut points = Vec::new();
        for &load in &loads {
            let runs = run_seeds(
                ctx,
                &cluster,
                &|_| workload_at(ctx.scale, &cluster, load),
                seeds,
                &[],
                &format!("dag-calibrate: load {load:.2}, "),
            )?;
            let e = Estimate::of(&runs.tf_files);
            let span = Estimate::of(&runs.span);
            points.push((load, e.mean));
            t.push(vec![
                Cell::float(load, 2),
                Cell::count(seeds),
                Cell::float(e.mean, 3),
                Cell::float(e.half, 3),
                Cell::float(span.mean, 1),
            ]);
        }
        let crossing = points.windows(2).find_map(|w| {
            let ((l0, f0), (l1, f1)) = (w[0], w[1]);
            ((f0 - TF_FILE_INFLATION) * (f1 - TF_FILE_INFLATION) <= 0.0 && f1 != f0)
                .then(|| l0 + (TF_FILE_INFLATION - f0) * (l1 - l0) / (f1 - f0))
        });
        t.note(format!(
            "The paper's TensorFlow files take {TF_FILE_INFLATION}x their time alone (Fig. 9); here the mean crosses it at load {}. Only TensorFlow's order is run: the load is never fitted to JIT's figures. The mix is dag's at this scale; the seeds are dag's (job set 2026+k, TensorFlow order 7+k).",
            crossing.map_or_else(|| "outside the sweep".to_owned(), |l| format!("{l:.3}"))
        ));
        let tables = vec![t];
        super::dag_runs::dump_tables(ctx, &tables)?;
        Ok(tables)
    }
}
