//! Criterion benchmarks of `topo-cluster`: clustering generated multi-site matrices (up to
//! 4,096 machines) under ECO's per-node rule (the paper's) beside the subnet-min and strict
//! rules; the inter-cluster heuristics on 64 clusters (each, and the default run-all choice)
//! and the exhaustive optimum on 7; the algorithm choice by closed forms vs by simulation.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use topo_cluster::cluster::AcceptRule;
use topo_cluster::collective::{Evaluator, SegmentGrid};
use topo_cluster::inter::{CompletionModel, Heuristic, optimum, run_heuristic};
use topo_cluster::{
    ClusterParams, Collective, PLogP, best_algorithm, best_schedule, fixtures, logical_clusters,
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
                best_algorithm(Collective::Broadcast, 20, black_box(1 << 20), &p, &grid, ev)
                    .expect("valid")
            });
        });
    }
    g.finish();
}

criterion_group!(benches, clustering, heuristics, algorithm_choice);
criterion_main!(benches);
