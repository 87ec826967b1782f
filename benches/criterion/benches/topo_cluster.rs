//! Criterion benchmarks of `topo-cluster`: clustering generated multi-site matrices (up to
//! 4,096 machines) under ECO's per-node rule (the paper's) beside the subnet-min and strict
//! rules; the inter-cluster heuristics on 64 clusters (each, and the default run-all choice)
//! and the exhaustive optimum on 7; the algorithm choice by closed forms vs by simulation.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fabric_model::Bytes;
use topo_cluster::cluster::AcceptRule;
use topo_cluster::collective::{Evaluator, SegmentGrid};
use topo_cluster::inter::{CompletionModel, Heuristic, optimum, run_heuristic};
use topo_cluster::{
    ClusterParams, Collective, InterInstance, PLogP, best_algorithm, best_schedule, fixtures,
    logical_clusters,
};

fn clustering(c: &mut Criterion) {
    let mut g = c.benchmark_group("topo_clustering");
    g.sample_size(10);
    for machines in [1024_usize, 4096] {
        let f = fixtures::grid(4, machines / 4, 7);
        g.throughput(Throughput::Elements(machines as u64));
        for (name, rule) in [
            ("eco-min-edge", AcceptRule::EcoMinEdge),
            ("subnet-min", AcceptRule::SubnetMin),
            ("strict", AcceptRule::Strict),
        ] {
            let p = ClusterParams::new().rule(rule);
            g.bench_with_input(BenchmarkId::new(name, machines), &f, |b, f| {
                b.iter(|| {
                    let out = logical_clusters(black_box(&f.matrix), &p).expect("valid");
                    assert_eq!(out.labels(), f.truth.as_slice());
                    out
                });
            });
        }
    }
    g.finish();
}

fn heuristics(c: &mut Criterion) {
    let mut g = c.benchmark_group("topo_heuristics");
    let model = CompletionModel::Overlap;
    let inst = fixtures::random_inter_instance(64, 3);
    for h in Heuristic::ALL {
        g.bench_function(BenchmarkId::new(h.name(), 64), |b| {
            b.iter(|| run_heuristic(black_box(&inst), h, model));
        });
    }
    g.bench_function(BenchmarkId::new("all-keep-best", 64), |b| {
        b.iter(|| best_schedule(black_box(&inst), model));
    });
    let small = fixtures::random_inter_instance(7, 3);
    g.bench_function(BenchmarkId::new("all-keep-best", 7), |b| {
        b.iter(|| best_schedule(black_box(&small), model));
    });
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("exhaustive", 7), |b| {
        b.iter(|| optimum(black_box(&small), model).expect("7 clusters"));
    });
    g.finish();
}

fn algorithm_choice(c: &mut Criterion) {
    let mut g = c.benchmark_group("topo_algorithm_choice");
    let p = PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5).expect("valid");
    let grid = SegmentGrid::default();
    for (name, ev) in [
        ("closed-form", Evaluator::ClosedForm),
        ("simulated", Evaluator::Simulated),
    ] {
        g.bench_function(BenchmarkId::new(name, "bcast-P20-1MiB"), |b| {
            b.iter(|| {
                best_algorithm(
                    Collective::Broadcast,
                    20,
                    black_box(Bytes::from_mib(1)),
                    &p,
                    &grid,
                    ev,
                )
                .expect("valid")
            });
        });
    }
    g.finish();
}

/// The set of clusters holding the message in the exhaustive optimum's state (`holds`), as the
/// crate writes it (`Vec<bool>`) or as a `bitvec::BitVec`.
trait Holds: Clone {
    fn with_root(c: usize, root: usize) -> Self;
    fn get(&self, i: usize) -> bool;
    fn set(&mut self, i: usize, v: bool);
}

impl Holds for Vec<bool> {
    fn with_root(c: usize, root: usize) -> Self {
        let mut v = vec![false; c];
        v[root] = true;
        v
    }
    fn get(&self, i: usize) -> bool {
        self[i]
    }
    fn set(&mut self, i: usize, v: bool) {
        self[i] = v;
    }
}

impl Holds for bitvec::vec::BitVec {
    fn with_root(c: usize, root: usize) -> Self {
        let mut v = bitvec::bitvec![0; c];
        v.set(root, true);
        v
    }
    fn get(&self, i: usize) -> bool {
        self[i]
    }
    fn set(&mut self, i: usize, v: bool) {
        bitvec::slice::BitSlice::set(self, i, v);
    }
}

/// `topo_cluster::inter::optimum`'s branch and bound (overlap model, no heuristic seed, the
/// same state, bound and order), over either `Holds`; returns the optimal makespan.
fn exhaustive<H: Holds>(inst: &InterInstance) -> f64 {
    #[derive(Clone)]
    struct State<H> {
        ready: Vec<f64>,
        arrival: Vec<f64>,
        holds: H,
        sent: usize,
    }
    fn search<H: Holds>(
        inst: &InterInstance,
        sp: &[f64],
        s: &mut State<H>,
        last: f64,
        best: &mut f64,
    ) {
        let c = inst.clusters();
        if s.sent + 1 == c {
            // the crate clones the state to finish the schedule
            let t = s.clone();
            let done = (0..c)
                .map(|j| t.arrival[j] + inst.intra(j))
                .fold(0.0, f64::max);
            *best = best.min(done);
            return;
        }
        let mut lb: f64 = 0.0;
        for j in 0..c {
            let v = if s.holds.get(j) {
                s.arrival[j]
            } else {
                (0..c)
                    .filter(|&i| s.holds.get(i))
                    .map(|i| s.ready[i] + sp[i * c + j])
                    .fold(f64::INFINITY, f64::min)
            };
            lb = lb.max(v + inst.intra(j));
        }
        if lb >= *best {
            return;
        }
        for i in 0..c {
            if !s.holds.get(i) || s.ready[i] < last {
                continue;
            }
            for j in 0..c {
                if s.holds.get(j) {
                    continue;
                }
                let saved = (s.ready[i], s.ready[j], s.arrival[j]);
                let start = s.ready[i];
                let arrival = start + inst.edge(i, j);
                s.ready[i] = start + inst.busy(i, j);
                s.ready[j] = arrival;
                s.arrival[j] = arrival;
                s.holds.set(j, true);
                s.sent += 1;
                search(inst, sp, s, start, best);
                s.sent -= 1;
                s.holds.set(j, false);
                (s.ready[i], s.ready[j], s.arrival[j]) = saved;
            }
        }
    }
    let c = inst.clusters();
    let mut sp: Vec<f64> = (0..c * c)
        .map(|k| {
            if k / c == k % c {
                0.0
            } else {
                inst.edge(k / c, k % c)
            }
        })
        .collect();
    for k in 0..c {
        for i in 0..c {
            for j in 0..c {
                sp[i * c + j] = sp[i * c + j].min(sp[i * c + k] + sp[k * c + j]);
            }
        }
    }
    let mut s = State {
        ready: vec![0.0; c],
        arrival: vec![0.0; c],
        holds: H::with_root(c, inst.root()),
        sent: 0,
    };
    let mut best = best_schedule(inst, CompletionModel::Overlap).1.makespan_ns;
    search(inst, &sp, &mut s, 0.0, &mut best);
    best
}

/// bitvec against the hand-written `Vec<bool>` of the exhaustive optimum's visited set, in one
/// group: the same branch and bound with either set, over the 7-cluster instances of seed
/// 0 to 19 (one iteration solves all twenty).
fn bitvec_holds(c: &mut Criterion) {
    let mut g = c.benchmark_group("topo_bitvec_holds");
    g.sample_size(10);
    let insts: Vec<InterInstance> = (0..20)
        .map(|seed| fixtures::random_inter_instance(7, seed))
        .collect();
    for inst in &insts {
        let reference = optimum(inst, CompletionModel::Overlap)
            .expect("7 clusters")
            .makespan_ns;
        assert_eq!(exhaustive::<Vec<bool>>(inst), reference, "same search");
        assert_eq!(
            exhaustive::<bitvec::vec::BitVec>(inst),
            reference,
            "same search"
        );
    }
    g.bench_function("vec-bool 20x7", |b| {
        b.iter(|| {
            black_box(&insts)
                .iter()
                .map(exhaustive::<Vec<bool>>)
                .sum::<f64>()
        });
    });
    g.bench_function("bitvec 20x7", |b| {
        b.iter(|| {
            black_box(&insts)
                .iter()
                .map(exhaustive::<bitvec::vec::BitVec>)
                .sum::<f64>()
        });
    });
    g.finish();
}

criterion_group!(
    benches,
    clustering,
    heuristics,
    algorithm_choice,
    bitvec_holds
);
criterion_main!(benches);
