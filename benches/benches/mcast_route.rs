//! Criterion benchmarks of `mcast-route`: time per group creation for MR4LMS (unlimited and
//! with the paper's recommended entries) against MINIHOP-MC and SSSP-MC in the same run, on
//! `fat_tree(40)`, the 30×20×20 torus and the random regular fabric; and a whole pattern of
//! 5,000 groups on `fat_tree(40)`.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use fabric_model::{Fabric, HopTable, NodeId, generators};
use mcast_route::{Algorithm, Config, Entries, Router, patterns};

fn configs(n_colors: u32) -> [(&'static str, Config); 4] {
    [
        ("mr4lms-unlimited", Config::mr4lms(Entries::Unlimited)),
        ("mr4lms-limited", Config::mr4lms(Entries::Limit(n_colors))),
        (
            "minihop-mc",
            Config::baseline(Algorithm::MinihopMc, Entries::Unlimited),
        ),
        (
            "sssp-mc",
            Config::baseline(Algorithm::SsspMc, Entries::Unlimited),
        ),
    ]
}

/// Time per `create_group`, measured over a batch of `groups` created on a fresh router per
/// batch (routers start empty, as a subnet manager's do).
fn per_group(c: &mut Criterion, name: &str, f: &Fabric, groups: &[Vec<NodeId>], n_colors: u32) {
    let hops = HopTable::new(f).expect("hop table");
    let mut g = c.benchmark_group(format!("create_group/{name}"));
    g.sample_size(10);
    g.throughput(Throughput::Elements(groups.len() as u64));
    for (label, cfg) in configs(n_colors) {
        g.bench_function(label, |b| {
            b.iter_batched(
                || Router::new(f, &hops, cfg).expect("valid config"),
                |mut r| {
                    for m in groups {
                        black_box(r.create_group(black_box(m)).expect("routable"));
                    }
                    r
                },
                BatchSize::LargeInput,
            );
        });
    }
    g.finish();
}

fn fat_tree(c: &mut Criterion) {
    let f = generators::fat_tree(40).expect("valid");
    // 40×20×20: 2,000 groups of 20–40 members.
    let groups = patterns::grid(&f, &[40, 20, 20], 1).expect("fits");
    per_group(c, "fat_tree(40)/3d-40x20x20", &f, &groups[..500], 128);
}

fn pattern_5000(c: &mut Criterion) {
    let f = generators::fat_tree(40).expect("valid");
    let hops = HopTable::new(&f).expect("hop table");
    // 25×25×25 gives 1,875 groups; 40×40×40 with 4 per terminal 4,800; random fills to 5,000.
    let mut groups = patterns::grid(&f, &[40, 40, 40], 4).expect("fits");
    groups.extend(patterns::random_groups(&f, 5000 - groups.len(), 16, 3).expect("fits"));
    let mut g = c.benchmark_group("pattern_5000/fat_tree(40)");
    g.sample_size(10);
    for (label, cfg) in configs(128) {
        g.bench_function(label, |b| {
            b.iter_batched(
                || Router::new(&f, &hops, cfg).expect("valid config"),
                |mut r| {
                    for m in &groups {
                        black_box(r.create_group(m).expect("routable"));
                    }
                    r
                },
                BatchSize::LargeInput,
            );
        });
    }
    g.finish();
}

fn torus_and_random(c: &mut Criterion) {
    let t = generators::torus(&[30, 20, 20], 2).expect("valid");
    let groups = patterns::grid(&t, &[60, 20, 20], 1).expect("fits");
    per_group(c, "torus(30x20x20)/3d-60x20x20", &t, &groups[..200], 256);
    drop(t);
    let r = generators::random_regular(2048, 40, 20, 1).expect("valid");
    let groups = patterns::grid(&r, &[32, 32, 40], 1).expect("fits");
    per_group(
        c,
        "random_regular(2048)/3d-32x32x40",
        &r,
        &groups[..300],
        256,
    );
}

criterion_group!(benches, fat_tree, pattern_5000, torus_and_random);
criterion_main!(benches);
