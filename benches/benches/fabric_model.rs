//! Criterion benchmarks of `fabric-model`: building each generator at the papers' sizes, the
//! all-pairs hop table for `fat_tree(40)` and the 12,000-switch torus, and parsing a large
//! ibnetdiscover file written from a generator.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fabric_model::{HopTable, generators, ibnet};

fn generators(c: &mut Criterion) {
    let mut g = c.benchmark_group("generate");
    g.sample_size(10);
    g.bench_function("fat_tree(40)", |b| {
        b.iter(|| generators::fat_tree(black_box(40)).expect("valid"));
    });
    g.bench_function("torus(30x20x20,2)", |b| {
        b.iter(|| generators::torus(black_box(&[30, 20, 20]), 2).expect("valid"));
    });
    g.bench_function("dragonfly(18,9,9)", |b| {
        b.iter(|| generators::dragonfly(black_box(18), 9, 9).expect("valid"));
    });
    g.bench_function("random_regular(2048,40,20)", |b| {
        b.iter(|| generators::random_regular(black_box(2048), 40, 20, 1).expect("valid"));
    });
    g.bench_function("tapered_fat_tree(32,128,8)", |b| {
        b.iter(|| generators::tapered_fat_tree(black_box(32), 128, 8).expect("valid"));
    });
    g.finish();
}

fn hop_tables(c: &mut Criterion) {
    let mut g = c.benchmark_group("hop_table");
    g.sample_size(10);
    let ft = generators::fat_tree(40).expect("valid");
    g.bench_function("fat_tree(40)", |b| {
        b.iter(|| HopTable::new(black_box(&ft)).expect("fits"));
    });
    let torus = generators::torus(&[30, 20, 20], 2).expect("valid");
    g.bench_function("torus(30x20x20)", |b| {
        b.iter(|| HopTable::new(black_box(&torus)).expect("fits"));
    });
    g.finish();
}

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("ibnetdiscover");
    g.sample_size(10);
    let torus = generators::torus(&[30, 20, 20], 2).expect("valid");
    let text = ibnet::write_ibnetdiscover(&torus);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("read torus(30x20x20)", |b| {
        b.iter(|| ibnet::read_ibnetdiscover(black_box(&text)).expect("parses"));
    });
    g.bench_function("write torus(30x20x20)", |b| {
        b.iter(|| ibnet::write_ibnetdiscover(black_box(&torus)));
    });
    g.finish();
}

criterion_group!(benches, generators, hop_tables, parse);
criterion_main!(benches);
