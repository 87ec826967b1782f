//! Two DAG jobs scheduled by JIT and by TensorFlow's order: each job's completion time, and
//! the bandwidth the scheduler leaves on the ports it uses.
//!
//! `cargo run -p dag-sched --example two_jobs`
//!
//! Four machines at 1 Gb/s on a non-blocking switch. Job A is one AlexNet training iteration
//! on machine 0, job B one VGG16 iteration on machine 1 arriving 50 ms later; both pull their
//! parameters from the servers on machines 2 and 3, so they share those servers' up-links.

use dag_sched::models::Model;
use dag_sched::sim::{JitConfig, Scheduler, SimConfig, SimResult, simulate};
use dag_sched::workload::{ComputeModel, JobKind, PsTraffic, SimJob, ps_iteration};
use dag_sched::{Cluster, Error, MachineId};
use fabric_model::{BitsPerSec, HopTable, LinkRate, Nanos, generators};

fn two_jobs(cluster: &Cluster) -> Result<Vec<SimJob>, Error> {
    let ps = [MachineId::new(2), MachineId::new(3)];
    let compute = ComputeModel::default();
    [
        (Model::AlexNet, 0, Nanos::ZERO),
        (Model::Vgg16, 1, Nanos::from_millis(50)),
    ]
    .into_iter()
    .map(|(model, worker, arrival)| {
        let job = ps_iteration(
            model,
            MachineId::new(worker),
            &ps,
            &compute,
            PsTraffic::Pulls,
            cluster,
        )?;
        Ok(SimJob::new(arrival, job, JobKind::Dag(model)))
    })
    .collect()
}

fn report(name: &str, r: &SimResult) {
    println!("{name}:");
    for (label, job) in ["A", "B"].iter().zip(&r.jobs) {
        println!("  job {label} ({job})");
    }
    // Per port and 1 s window where the scheduler placed DAG traffic: 1 - its bits / capacity.
    let rem = &r.remaining;
    if let (Some(min), Some(med)) = (rem.first(), rem.get(rem.len() / 2)) {
        println!(
            "  remaining bandwidth: min {min:.3}, median {med:.3} over {} port-windows",
            rem.len()
        );
    }
    println!("  {r}");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cluster = Cluster::uniform(4, BitsPerSec::from_gbps(1))?;
    let jobs = two_jobs(&cluster)?;
    let tf = simulate(&cluster, &jobs, &SimConfig::new(Scheduler::TensorFlow))?;
    let jit = simulate(
        &cluster,
        &jobs,
        &SimConfig::new(Scheduler::Jit(JitConfig::default())),
    )?;
    report("TensorFlow order", &tf);
    report("JIT (alpha 0.4, 100 ms slots)", &jit);
    for (label, (a, b)) in ["A", "B"].iter().zip(tf.jobs.iter().zip(&jit.jobs)) {
        println!(
            "job {label}: JIT speedup over TensorFlow {:.3}",
            a.jct() / b.jct()
        );
    }

    // The same jobs on a fabric of 100 Gb/s links: two leaf switches of two terminals each
    // under one spine (the workers on one leaf, the parameter servers on the other, so every
    // pull crosses the spine), routed by min-hop paths.
    let fabric = generators::tapered_fat_tree(2, 2, 1)?;
    let on_fabric = Cluster::from_fabric(&fabric, &HopTable::new(&fabric)?)?;
    let r = simulate(
        &on_fabric,
        &two_jobs(&on_fabric)?,
        &SimConfig::new(Scheduler::Jit(JitConfig::default())),
    )?;
    println!(
        "JIT on a two-leaf fat tree at {}: {r}",
        LinkRate::EDR_4X.bandwidth()
    );
    Ok(())
}
