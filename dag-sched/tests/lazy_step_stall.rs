//! Regression: the lazy step's finished-flow scan stopped at the first flow due by its heap
//! key but not by the exact test (a rounding difference), which could hide a flow behind it
//! whose finish time was the clock itself; the clock then stayed there forever. Found on the
//! seventh seed of `reproduce dag --scale paper` under FIFO + TicTac (600 DAG jobs, 160 files
//! at load 0.625: the clock stuck at 36.14 s with 533 jobs unfinished).

use std::sync::mpsc;
use std::time::Duration;

use dag_sched::Cluster;
use dag_sched::models::Model;
use dag_sched::sim::{Scheduler, SimConfig, simulate};
use dag_sched::workload::{ComputeModel, PsTraffic, WorkloadConfig, generate};
use fabric_model::{BitsPerSec, Bytes};

#[test]
fn tictac_finishes_the_paper_mix_that_stalled_it() {
    let cluster = Cluster::uniform(100, BitsPerSec::from_gbps(1)).unwrap();
    let cfg = WorkloadConfig::default()
        .with_dag_jobs(600)
        .with_file_jobs(160)
        .with_models(Model::PAPER.to_vec())
        .with_ps_per_job(2)
        .with_traffic(PsTraffic::Pulls)
        .with_compute(ComputeModel::default())
        .with_file_sizes(
            [5, 10, 20, 30, 40]
                .map(|gb| Bytes::new(gb * 125_000_000))
                .to_vec(),
        )
        .with_seed(2026 + 7)
        .at_load(&cluster, 0.625)
        .unwrap();
    let jobs = generate(&cluster, &cfg).unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = simulate(
            &cluster,
            &jobs,
            &SimConfig::new(Scheduler::TicTac).with_seed(7 + 7),
        );
        let _ = tx.send(r.map(|r| (r.events, r.jobs.len())));
    });
    // Under a second in release; without the fix it never ends.
    let (events, jobs) = rx
        .recv_timeout(Duration::from_secs(300))
        .expect("the simulation ends")
        .unwrap();
    assert_eq!(jobs, 760);
    assert!(events > 100_000, "{events}");
}
