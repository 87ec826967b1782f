//! Two DAG jobs scheduled by JIT (the paper's reading, and our LAT-priority option) and by
//! TensorFlow's order: each job's completion time, and the bandwidth the scheduler leaves on
//! the ports it uses; then a job of the user's own DAG planned by the LP, with the deadline
//! relaxation when its LATs cannot be met.
//!
//! `cargo run -p dag-sched --example two_jobs`
//!
//! Four machines at 1 Gb/s on a non-blocking switch. Job A is one AlexNet training iteration
//! on machine 0, job B one VGG16 iteration on machine 1 arriving 50 ms later; both pull their
//! parameters from the servers on machines 2 and 3, so they share those servers' up-links.

use dag_sched::lp::{self, Backend, Objective, Reservations};
use dag_sched::models::Model;
use dag_sched::sim::{JitConfig, RestPolicy, Scheduler, SimConfig, SimResult, simulate};
use dag_sched::workload::{ComputeModel, JobKind, PsTraffic, SimJob, ps_iteration};
use dag_sched::{Cluster, Error, JobBuilder, LatMethod, MachineId, lat};
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
    let ours = simulate(
        &cluster,
        &jobs,
        &SimConfig::new(Scheduler::Jit(
            JitConfig::default().with_rest(RestPolicy::LatPriority),
        )),
    )?;
    report("TensorFlow order", &tf);
    report("JIT, the paper's reading (alpha 0.4, 100 ms slots)", &jit);
    report("JIT with our LAT-priority option", &ours);
    for (label, (a, (b, c))) in ["A", "B"]
        .iter()
        .zip(tf.jobs.iter().zip(jit.jobs.iter().zip(&ours.jobs)))
    {
        println!(
            "job {label}: speedup over TensorFlow: JIT {:.3}, ours {:.3}",
            a.jct() / b.jct(),
            a.jct() / c.jct()
        );
    }

    // A job of the user's own: two 1 Gb transfers into machine 0 feed one compute task each;
    // both are due by 1 s, which one ingress port cannot meet. The LP says so, and the
    // deadline relaxation widens both windows until it can.
    let mut b = JobBuilder::new();
    let c1 = b.compute(Nanos::from_millis(200));
    let c2 = b.compute(Nanos::from_millis(200));
    let t1 = b.transfer_bits(1e9, MachineId::new(2), MachineId::new(0));
    let t2 = b.transfer_bits(1e9, MachineId::new(3), MachineId::new(0));
    b.edge(t1, c1).edge(t2, c2);
    let mine = b.build(&cluster)?;
    let est = lat::estimate(&mine, &cluster, LatMethod::Algorithm1);
    let transfers = lp::job_transfers(&mine, &cluster, &est, 2, 0.0);
    let slot = Nanos::from_millis(100);
    let none = Reservations::new();
    let objective = Objective::LexLevels { levels: 3 };
    match lp::solve(
        &cluster,
        &transfers,
        &none,
        slot,
        objective,
        Backend::Microlp,
    ) {
        Err(Error::Infeasible { .. }) => println!("custom job: infeasible at its LATs"),
        other => println!("custom job: {:?}", other.map(|s| s.min_max)),
    }
    let r = lp::solve_relaxed(
        &cluster,
        &transfers,
        &none,
        slot,
        objective,
        Backend::Microlp,
        4,
    )?;
    println!(
        "custom job: feasible after {} doubling(s) of its windows, due by {:.1} s, peak load {:.3}",
        r.widenings,
        r.transfers.iter().map(|t| t.deadline).fold(0.0, f64::max),
        r.schedule.min_max
    );
    let run = simulate(
        &cluster,
        &[SimJob::new(Nanos::ZERO, mine, JobKind::CustomDag)],
        &SimConfig::new(Scheduler::Jit(JitConfig::default().with_alpha(1.0))),
    )?;
    println!("custom job under JIT: {}", run.jobs[0]);

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
