//! LAT estimation (`lat::estimate`) with the paper's Algorithm 1 (formula (1) as a sum) and
//! the max reading, on the shapes that decide its cost:
//!
//! - `lat_models`: one training iteration of Inception-v3 and ResNet-152 (pulls and pushes,
//!   two parameter servers), the jobs `reproduce dag` estimates.
//! - `lat_chain`: a chain of 20,000 transfers through compute (40,001 nodes), every transfer
//!   a predecessor of every later one: the walks end at the next transfer, so the pass is
//!   linear (the walks over everything each transfer reaches took 9.3 s here).
//! - `lat_chain_read_late`: a chain of 2,000 transfers each read again two tasks further down,
//!   the shape that keeps every walk going (quadratic, the documented worst case).
//!
//! `cargo bench -p criterion-benches --bench dag_sched_lat -- --measurement-time 2`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use dag_sched::models::Model;
use dag_sched::workload::{ComputeModel, ps_job};
use dag_sched::{Cluster, Job, JobBuilder, LatMethod, MachineId, TaskId, lat};
use fabric_model::BitsPerSec;

/// A chain C0 → T1 → C1 → … → Tn → Cn; with `late`, each Tk also feeds C(k+2).
fn chain(n: usize, late: bool, cluster: &Cluster) -> Job {
    let mut b = JobBuilder::new();
    let mut prev = b.compute_secs(0.5);
    let mut ts: Vec<TaskId> = Vec::with_capacity(n);
    let mut cs: Vec<TaskId> = vec![prev];
    for _ in 0..n {
        let t = b.transfer_bits(10.0, MachineId::new(0), MachineId::new(1));
        let c = b.compute_secs(0.5);
        b.edge(prev, t).edge(t, c);
        ts.push(t);
        cs.push(c);
        prev = c;
    }
    if late {
        for k in 0..n.saturating_sub(2) {
            b.edge(ts[k], cs[k + 3]);
        }
    }
    b.build(cluster).expect("a chain is a DAG")
}

fn estimates(c: &mut Criterion) {
    let methods = [
        ("sum", LatMethod::Algorithm1),
        ("max", LatMethod::Algorithm1Max),
    ];
    let cluster = Cluster::uniform(4, BitsPerSec::new(10_000_000_000)).expect("uniform cluster");
    let mut g = c.benchmark_group("lat_models");
    for model in [Model::Inception, Model::ResNet152] {
        let ps = [MachineId::new(1), MachineId::new(2)];
        let job = ps_job(
            model,
            MachineId::new(0),
            &ps,
            &ComputeModel::default(),
            &cluster,
        )
        .expect("model job");
        for (name, method) in methods {
            g.bench_with_input(BenchmarkId::new(name, model.name()), &job, |b, job| {
                b.iter(|| black_box(lat::estimate(job, &cluster, method)));
            });
        }
    }
    g.finish();
    for (group, n, late) in [
        ("lat_chain", 20_000, false),
        ("lat_chain_read_late", 2_000, true),
    ] {
        let job = chain(n, late, &cluster);
        let mut g = c.benchmark_group(group);
        for (name, method) in methods {
            g.bench_with_input(BenchmarkId::new(name, job.len()), &job, |b, job| {
                b.iter(|| black_box(lat::estimate(job, &cluster, method)));
            });
        }
        g.finish();
    }
}

criterion_group!(benches, estimates);
criterion_main!(benches);
