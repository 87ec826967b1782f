//! The node store's set of local peers (which ranks of a job are on this node) as today's
//! `BTreeSet` against bitvec's `BitVec` and a hand-written bit set (`Vec<u64>`), in one
//! criterion group: a membership test for every rank of the job (what applying a fence does
//! per received entry, and a `get` miss per target) and a walk of the local ranks in order
//! (a fence contribution, a registration). 16 384 ranks, 128 on this node (one node's share
//! at 128 ranks a node).
//!
//! ```text
//! cargo bench -p criterion-benches --bench pmix_kvs_local_peers -- --measurement-time 2
//! ```
//!
//! It lives in this package rather than in the workspace's `benches` crate because it needs
//! `bitvec` as a dependency.

use std::collections::BTreeSet;
use std::hint::black_box;

use bitvec::prelude::{BitVec, Lsb0};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const SIZE: u32 = 16_384;
const LOCAL: std::ops::Range<u32> = 8_192..8_320;

fn local_peers(c: &mut Criterion) {
    let tree: BTreeSet<u32> = LOCAL.collect();
    let mut bits: BitVec<u64, Lsb0> = BitVec::repeat(false, SIZE as usize);
    let mut words = vec![0u64; SIZE.div_ceil(64) as usize];
    for r in LOCAL {
        bits.set(r as usize, true);
        words[(r / 64) as usize] |= 1 << (r % 64);
    }
    let word_has = |r: u32| {
        words
            .get((r / 64) as usize)
            .is_some_and(|w| w >> (r % 64) & 1 == 1)
    };
    let mut g = c.benchmark_group("pmix_local_peers");
    g.throughput(Throughput::Elements(u64::from(SIZE)));
    g.bench_function("contains_every_rank/btreeset", |b| {
        b.iter(|| (0..SIZE).filter(|r| tree.contains(black_box(r))).count());
    });
    g.bench_function("contains_every_rank/bitvec", |b| {
        b.iter(|| {
            (0..SIZE)
                .filter(|&r| bits.get(black_box(r) as usize).is_some_and(|x| *x))
                .count()
        });
    });
    g.bench_function("contains_every_rank/hand_bitset", |b| {
        b.iter(|| (0..SIZE).filter(|&r| word_has(black_box(r))).count());
    });
    g.throughput(Throughput::Elements(LOCAL.len() as u64));
    g.bench_function("iter_local/btreeset", |b| {
        b.iter(|| black_box(&tree).iter().map(|&r| u64::from(r)).sum::<u64>());
    });
    g.bench_function("iter_local/bitvec", |b| {
        b.iter(|| black_box(&bits).iter_ones().map(|r| r as u64).sum::<u64>());
    });
    g.bench_function("iter_local/hand_bitset", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for (i, &w) in black_box(&words).iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    sum += (i * 64) as u64 + u64::from(w.trailing_zeros());
                    w &= w - 1;
                }
            }
            sum
        });
    });
    g.finish();
}

criterion_group!(benches, local_peers);
criterion_main!(benches);
