//! FIFO + TicTac with the files inside its FIFO (the default) and outside it, behind every DAG
//! job (`Scheduler::TicTacFilesLast`, ours), on a job pair where the two differ.

use dag_sched::sim::{Scheduler, SimConfig, simulate};
use dag_sched::workload::{JobKind, SimJob};
use dag_sched::{Cluster, JobBuilder, MachineId};
use fabric_model::BitsPerSec;

/// A 4-bit file from machine 0 to machine 2 at time 0, then at 0.5 s a DAG job whose one
/// 1-bit pull from machine 1 into machine 2 feeds a 1 s compute task; 1 bit/s everywhere.
fn pair(cluster: &Cluster) -> Vec<SimJob> {
    let mut f = JobBuilder::new();
    f.transfer_bits(4.0, MachineId::new(0), MachineId::new(2));
    let mut d = JobBuilder::new();
    let t = d.transfer_bits(1.0, MachineId::new(1), MachineId::new(2));
    let c = d.compute_secs(1.0);
    d.edge(t, c);
    vec![
        SimJob::at_secs(0.0, f.build(cluster).unwrap(), JobKind::File),
        SimJob::at_secs(0.5, d.build(cluster).unwrap(), JobKind::CustomDag),
    ]
}

fn finishes(scheduler: Scheduler) -> Vec<f64> {
    let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
    let jobs = pair(&cluster);
    simulate(&cluster, &jobs, &SimConfig::new(scheduler))
        .unwrap()
        .jobs
        .iter()
        .map(|o| o.finish)
        .collect()
}

#[test]
fn files_in_the_fifo_go_first_when_they_arrive_first() {
    // The file holds machine 2's ingress 0..4; the pull 4..5, the compute 5..6.
    let f = finishes(Scheduler::TicTac);
    assert!((f[0] - 4.0).abs() < 1e-9, "{f:?}");
    assert!((f[1] - 6.0).abs() < 1e-9, "{f:?}");
}

#[test]
fn files_outside_the_fifo_wait_for_every_dag_transfer() {
    // The file 0..0.5 (half a bit), the pull 0.5..1.5 ahead of it, the compute 1.5..2.5;
    // the file's last 3.5 bits 1.5..5.
    let f = finishes(Scheduler::TicTacFilesLast);
    assert!((f[0] - 5.0).abs() < 1e-9, "{f:?}");
    assert!((f[1] - 2.5).abs() < 1e-9, "{f:?}");
    assert_eq!(Scheduler::TicTacFilesLast.name(), "tictac-files-last");
}
