//! Runs a few schedulers on one Poisson job mix and prints each one's mean speedup over the
//! TensorFlow order, JIT's remaining bandwidth and the files' slowdown: a quick look at one
//! load point without the whole `reproduce dag-load` sweep.
//!
//! `cargo run --release -p dag-sched --example load_probe -- LOAD PER_MODEL FILES [SCHEDULERS]`
//! where SCHEDULERS is a comma list of `tf`, `tictac`, `sincronia`, `varys`, `jit`,
//! `jit-bg`, `jit-lat` (default `tf,sincronia,jit,jit-bg`).

use std::time::Instant;

use dag_sched::Cluster;
use dag_sched::models::Model;
use dag_sched::sim::{JitConfig, RestPolicy, Scheduler, SimConfig, simulate};
use dag_sched::workload::{JobKind, WorkloadConfig, generate};
use fabric_model::BitsPerSec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let load: f64 = args.first().map_or(Ok(0.7), |s| s.parse())?;
    let per_model: usize = args.get(1).map_or(Ok(30), |s| s.parse())?;
    let files: usize = args.get(2).map_or(Ok(40), |s| s.parse())?;
    let which = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| "tf,sincronia,jit,jit-bg".into());
    let cluster = Cluster::uniform(100, BitsPerSec::from_gbps(1))?;
    let cfg = WorkloadConfig::default()
        .with_dag_jobs(per_model * Model::PAPER.len())
        .with_file_jobs(files)
        .with_seed(2026)
        .at_load(&cluster, load)?;
    let jobs = generate(&cluster, &cfg)?;
    let mut tf = None;
    for name in std::iter::once("tf").chain(which.split(',').filter(|&s| s != "tf")) {
        let scheduler = match name {
            "tf" => Scheduler::TensorFlow,
            "tictac" => Scheduler::TicTac,
            "sincronia" => Scheduler::Sincronia,
            "varys" => Scheduler::Varys,
            "jit" => Scheduler::Jit(JitConfig::default()),
            "jit-bg" => Scheduler::Jit(JitConfig::default().with_rest(RestPolicy::Background)),
            "jit-lat" => Scheduler::Jit(JitConfig::default().with_rest(RestPolicy::LatPriority)),
            other => return Err(format!("unknown scheduler {other}").into()),
        };
        let t0 = Instant::now();
        let res = simulate(&cluster, &jobs, &SimConfig::new(scheduler))?;
        let secs = t0.elapsed().as_secs_f64();
        let base = tf.get_or_insert_with(|| res.clone());
        let (mut sp, mut n, mut fr, mut nf) = (0.0, 0.0, 0.0, 0.0);
        for (o, b) in res.jobs.iter().zip(&base.jobs) {
            match o.kind {
                JobKind::Dag(_) => {
                    sp += b.jct() / o.jct();
                    n += 1.0;
                }
                _ => {
                    fr += o.jct() / o.alone;
                    nf += 1.0;
                }
            }
        }
        println!(
            "{name:10} speedup {:.3} files {:.3} min_rem {:.3} min_rem_planned {:.3} ({secs:.1} s)",
            sp / n,
            fr / nf,
            res.remaining.first().copied().unwrap_or(f64::NAN),
            res.remaining_planned.first().copied().unwrap_or(f64::NAN),
        );
    }
    Ok(())
}
