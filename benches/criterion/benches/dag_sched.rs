//! Criterion benchmarks of `dag-sched`: LAT estimation by the paper's Algorithm 1 beside the
//! backward critical-path pass on each model's training iteration; the LP for 1 to 8 VGG16
//! jobs (min-max, and the lexicographic levels form) with microlp; TicTac's TAC ordering; and
//! one simulated job mix under each scheduler.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use dag_sched::lp::{self, Backend, LpTransfer, Objective, Reservations};
use dag_sched::models::Model;
use dag_sched::sim::{JitConfig, RestPolicy, Scheduler, SimConfig, simulate};
use dag_sched::workload::{ComputeModel, WorkloadConfig, generate, ps_job};
use dag_sched::{Cluster, Job, LatMethod, MachineId, baselines, lat};
use fabric_model::{BitsPerSec, Nanos};

fn cluster() -> Cluster {
    Cluster::uniform(100, BitsPerSec::from_gbps(1)).expect("valid cluster")
}

/// One training iteration of `model`: worker on machine 0, parameter servers on 1 and 2.
fn one_worker_job(model: Model, cl: &Cluster) -> Job {
    ps_job(
        model,
        MachineId::new(0),
        &[MachineId::new(1), MachineId::new(2)],
        &ComputeModel::default(),
        cl,
    )
    .expect("valid job")
}

fn lat_estimation(c: &mut Criterion) {
    let cl = cluster();
    let mut g = c.benchmark_group("dag_lat");
    for model in Model::PAPER {
        let job = one_worker_job(model, &cl);
        for (name, m) in [
            ("algorithm1", LatMethod::Algorithm1),
            ("backward-cpm", LatMethod::BackwardCpm),
        ] {
            g.bench_with_input(BenchmarkId::new(name, model.name()), &job, |b, job| {
                b.iter(|| lat::estimate(black_box(job), &cl, m));
            });
        }
    }
    g.finish();
}

fn vgg_transfers(cl: &Cluster, jobs: usize) -> Vec<LpTransfer> {
    let mut out = Vec::new();
    for k in 0..jobs {
        let w = MachineId::new(k as u32);
        let ps = [
            MachineId::new((k + 37) as u32 % 100),
            MachineId::new((k + 71) as u32 % 100),
        ];
        let job = ps_job(Model::Vgg16, w, &ps, &ComputeModel::default(), cl).expect("valid job");
        let est = lat::estimate(&job, cl, LatMethod::Algorithm1);
        let n = lp::alpha_prefix(job.transfers().len(), 0.4).expect("alpha in range");
        out.extend(lp::job_transfers(&job, cl, &est, n, 0.0));
    }
    out
}

fn lp_solve(c: &mut Criterion) {
    let cl = cluster();
    let mut g = c.benchmark_group("dag_lp_vgg16");
    g.sample_size(10);
    for jobs in [1usize, 2, 4, 8] {
        let ts = vgg_transfers(&cl, jobs);
        for (name, obj) in [
            ("min-max", Objective::MinMax),
            ("lex-levels-3", Objective::LexLevels { levels: 3 }),
        ] {
            g.bench_with_input(BenchmarkId::new(name, jobs), &ts, |b, ts| {
                b.iter(|| {
                    lp::solve(
                        &cl,
                        black_box(ts),
                        &Reservations::new(),
                        Nanos::from_millis(100),
                        obj,
                        Backend::Microlp,
                    )
                    .expect("feasible")
                });
            });
        }
    }
    g.finish();
}

fn tictac(c: &mut Criterion) {
    let cl = cluster();
    let mut g = c.benchmark_group("dag_tictac");
    g.sample_size(10);
    for model in [Model::Vgg16, Model::Inception] {
        let job = one_worker_job(model, &cl);
        for (name, timing) in [("tic", false), ("tac", true)] {
            g.bench_with_input(BenchmarkId::new(name, model.name()), &job, |b, job| {
                b.iter(|| baselines::tictac_order(black_box(job), &cl, timing));
            });
        }
    }
    g.finish();
}

fn simulation(c: &mut Criterion) {
    let cl = cluster();
    let cfg = WorkloadConfig::default()
        .with_dag_jobs(10)
        .with_file_jobs(3)
        .with_models(vec![Model::LeNet, Model::AlexNet, Model::Vgg16])
        .with_mean_interarrival_secs(0.3);
    let jobs = generate(&cl, &cfg).expect("valid workload");
    let mut g = c.benchmark_group("dag_simulate");
    g.sample_size(10);
    for s in [
        Scheduler::TensorFlow,
        Scheduler::TicTac,
        Scheduler::Sincronia,
        Scheduler::Jit(JitConfig::default()),
    ] {
        g.bench_function(s.name(), |b| {
            b.iter(|| simulate(&cl, black_box(&jobs), &SimConfig::new(s)).expect("runs"));
        });
    }
    g.finish();
}

/// FIFO + TicTac and fair sharing over the first 12 coflows of the synthetic FB2010-shaped
/// trace (about 400 events, 10⁴ flows): the incremental policies at trace scale.
fn trace_prefix(c: &mut Criterion) {
    let mut trace = dag_sched::trace::synthesize(&dag_sched::trace::SynthConfig::default())
        .expect("the default synthetic trace");
    trace.coflows.truncate(12);
    let cl = Cluster::uniform(trace.ports as usize, BitsPerSec::from_gbps(1)).expect("cluster");
    let jobs = trace.to_jobs(&cl).expect("trace jobs");
    let mut g = c.benchmark_group("dag_trace_prefix");
    g.sample_size(10);
    for s in [Scheduler::TensorFlow, Scheduler::TicTac] {
        g.bench_function(BenchmarkId::from_parameter(s.name()), |b| {
            b.iter(|| simulate(&cl, black_box(&jobs), &SimConfig::new(s)).expect("runs"));
        });
    }
    g.finish();
}

/// Every scheduler over the first 4 coflows of the synthetic FB2010-shaped trace (the first
/// of the 11 that `reproduce dag-trace --scale small` takes on the big switch), every policy
/// incremental now (Sincronia's and Varys's through `scaled`, JIT with our `LatPriority`
/// through its priority classes). Small enough that `cargo test --benches` runs it in well
/// under a second.
fn trace_prefix_all(c: &mut Criterion) {
    let mut trace = dag_sched::trace::synthesize(&dag_sched::trace::SynthConfig::default())
        .expect("the default synthetic trace");
    trace.coflows.truncate(4);
    let cl = Cluster::uniform(trace.ports as usize, BitsPerSec::from_gbps(1)).expect("cluster");
    let jobs = trace.to_jobs(&cl).expect("trace jobs");
    let mut g = c.benchmark_group("dag_trace_prefix_all");
    g.sample_size(10);
    let lat = Scheduler::Jit(JitConfig::default().with_rest(RestPolicy::LatPriority));
    for (name, s) in [
        ("tensorflow", Scheduler::TensorFlow),
        ("tictac", Scheduler::TicTac),
        ("sincronia", Scheduler::Sincronia),
        ("varys", Scheduler::Varys),
        ("jit", Scheduler::Jit(JitConfig::default())),
        ("jit-ours-lat-priority", lat),
    ] {
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| simulate(&cl, black_box(&jobs), &SimConfig::new(s)).expect("runs"));
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    lat_estimation,
    lp_solve,
    tictac,
    simulation,
    trace_prefix,
    trace_prefix_all
);
criterion_main!(benches);
