//! bitvec and smallvec against the crate's hand-written code, on the two places the crate
//! keeps bit sets and short lists:
//!
//! - `dag_dep_sets`: TicTac's dependency sets (`baselines::tictac_order`): per node of a
//!   training iteration, the set of transfers it depends on, the OR of its predecessors' sets,
//!   then the members of every compute task's set read back in order. Hand-written `u64`
//!   words against `bitvec::BitVec<u64, Lsb0>`.
//! - `dag_flow_paths`: the resources every simulated flow crosses (two on the big switch, six
//!   across a three-level fat tree), built once per flow and read at every rate computation.
//!   `Vec<u32>` against `SmallVec<[u32; 6]>`.
//!
//! `cargo bench -p criterion-benches --bench dag_sched_bits -- --measurement-time 2`

use std::hint::black_box;

use bitvec::prelude::{BitVec, Lsb0};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use dag_sched::models::Model;
use dag_sched::workload::{ComputeModel, PsTraffic, ps_iteration};
use dag_sched::{Cluster, Job, MachineId};
use fabric_model::BitsPerSec;
use smallvec::SmallVec;

/// Transfer index of every node (`usize::MAX` for compute).
fn transfer_index(job: &Job) -> Vec<usize> {
    let mut tindex = vec![usize::MAX; job.len()];
    for (k, &t) in job.transfers().iter().enumerate() {
        tindex[t.index()] = k;
    }
    tindex
}

/// The crate's code: `u64` words by hand.
fn deps_words(job: &Job, tindex: &[usize]) -> usize {
    let t_count = job.transfers().len();
    let words = t_count.div_ceil(64).max(1);
    let mut dep = vec![vec![0u64; words]; job.len()];
    for &v in job.topo_order() {
        if let Some(&k) = tindex.get(v.index()).filter(|&&k| k != usize::MAX) {
            dep[v.index()][k / 64] |= 1 << (k % 64);
        } else {
            let mut acc = vec![0u64; words];
            for p in job.preds(v) {
                for (a, b) in acc.iter_mut().zip(&dep[p.index()]) {
                    *a |= *b;
                }
            }
            dep[v.index()] = acc;
        }
    }
    let mut n = 0;
    for &v in job.topo_order() {
        if tindex[v.index()] == usize::MAX {
            n += (0..t_count)
                .filter(|&k| dep[v.index()][k / 64] >> (k % 64) & 1 == 1)
                .map(|k| k + 1)
                .sum::<usize>();
        }
    }
    n
}

/// The same with bitvec.
fn deps_bitvec(job: &Job, tindex: &[usize]) -> usize {
    let t_count = job.transfers().len();
    let mut dep: Vec<BitVec<u64, Lsb0>> = vec![BitVec::repeat(false, t_count); job.len()];
    for &v in job.topo_order() {
        if let Some(&k) = tindex.get(v.index()).filter(|&&k| k != usize::MAX) {
            dep[v.index()].set(k, true);
        } else {
            let mut acc: BitVec<u64, Lsb0> = BitVec::repeat(false, t_count);
            for p in job.preds(v) {
                acc |= &dep[p.index()];
            }
            dep[v.index()] = acc;
        }
    }
    let mut n = 0;
    for &v in job.topo_order() {
        if tindex[v.index()] == usize::MAX {
            n += dep[v.index()].iter_ones().map(|k| k + 1).sum::<usize>();
        }
    }
    n
}

/// bitvec's storage and `iter_ones`, the OR done word by word on the raw slices (bitvec's
/// `|=` takes any iterator of bools and goes bit by bit).
fn deps_bitvec_words(job: &Job, tindex: &[usize]) -> usize {
    let t_count = job.transfers().len();
    let mut dep: Vec<BitVec<u64, Lsb0>> = vec![BitVec::repeat(false, t_count); job.len()];
    for &v in job.topo_order() {
        if let Some(&k) = tindex.get(v.index()).filter(|&&k| k != usize::MAX) {
            dep[v.index()].set(k, true);
        } else {
            let mut acc: BitVec<u64, Lsb0> = BitVec::repeat(false, t_count);
            for p in job.preds(v) {
                for (a, b) in acc
                    .as_raw_mut_slice()
                    .iter_mut()
                    .zip(dep[p.index()].as_raw_slice())
                {
                    *a |= *b;
                }
            }
            dep[v.index()] = acc;
        }
    }
    let mut n = 0;
    for &v in job.topo_order() {
        if tindex[v.index()] == usize::MAX {
            n += dep[v.index()].iter_ones().map(|k| k + 1).sum::<usize>();
        }
    }
    n
}

fn dep_sets(c: &mut Criterion) {
    let cluster = Cluster::uniform(3, BitsPerSec::from_gbps(1)).expect("valid cluster");
    let mut g = c.benchmark_group("dag_dep_sets");
    for model in [Model::Vgg16, Model::Inception, Model::ResNet152] {
        let job = ps_iteration(
            model,
            MachineId::new(0),
            &[MachineId::new(1), MachineId::new(2)],
            &ComputeModel::default(),
            PsTraffic::PullsAndPushes,
            &cluster,
        )
        .expect("valid job");
        let tindex = transfer_index(&job);
        assert_eq!(deps_words(&job, &tindex), deps_bitvec(&job, &tindex));
        g.bench_with_input(BenchmarkId::new("u64-words", model.name()), &job, |b, j| {
            b.iter(|| deps_words(black_box(j), &tindex));
        });
        assert_eq!(deps_words(&job, &tindex), deps_bitvec_words(&job, &tindex));
        g.bench_with_input(BenchmarkId::new("bitvec", model.name()), &job, |b, j| {
            b.iter(|| deps_bitvec(black_box(j), &tindex));
        });
        g.bench_with_input(
            BenchmarkId::new("bitvec-raw-or", model.name()),
            &job,
            |b, j| {
                b.iter(|| deps_bitvec_words(black_box(j), &tindex));
            },
        );
    }
    g.finish();
}

/// Builds `flows` routes of `hops` resources and reads each route ten times (a flow lives
/// through several rate computations).
fn paths<P: Default + Extend<u32> + std::ops::Deref<Target = [u32]>>(flows: u32, hops: u32) -> u64 {
    let routes: Vec<P> = (0..flows)
        .map(|f| {
            let mut p = P::default();
            p.extend((0..hops).map(|h| f.wrapping_mul(31).wrapping_add(h) % 4096));
            p
        })
        .collect();
    let mut sum = 0u64;
    for _ in 0..10 {
        for r in &routes {
            sum += r.iter().map(|&x| u64::from(x)).sum::<u64>();
        }
    }
    sum
}

fn flow_paths(c: &mut Criterion) {
    let mut g = c.benchmark_group("dag_flow_paths");
    for hops in [2u32, 6] {
        g.bench_with_input(BenchmarkId::new("vec", hops), &hops, |b, &h| {
            b.iter(|| paths::<Vec<u32>>(black_box(10_000), h));
        });
        g.bench_with_input(BenchmarkId::new("smallvec-6", hops), &hops, |b, &h| {
            b.iter(|| paths::<SmallVec<[u32; 6]>>(black_box(10_000), h));
        });
    }
    g.finish();
}

criterion_group!(benches, dep_sets, flow_paths);
criterion_main!(benches);
