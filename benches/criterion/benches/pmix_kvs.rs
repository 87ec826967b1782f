//! pmix-kvs: `get` hits (target ≤ 50 ns uncontended) beside a bare `HashMap` get-and-clone:
//! the client's cache (`get`, and `get_with` that reads the value in place), the node store
//! with `refresh_cache`, bare and through a 2N-lock read slot; the naive and compact codecs
//! on the paper's blob (128 ranks × 8 keys); reads through the 2N-lock (default and parking
//! waits) beside `std::sync::RwLock`, `parking_lot::RwLock` and crossbeam's `ShardedLock` for
//! 1–16 reader threads (`iter_custom`, wall time of the slowest thread, throughput in reads);
//! the shared-memory store's reader (`get_fixed`, `get_bytes_into`, a miss) and a publish;
//! and the fence state machines at 64 nodes.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::{Barrier, RwLock};
use std::thread;
use std::time::{Duration, Instant};

use benches::experiments::pmix::layouts;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_utils::sync::ShardedLock;
use fabric_model::Nanos;
use pmix_kvs::codec;
use pmix_kvs::fence::{self, Algorithm};
use pmix_kvs::lock::{TwoNLock, WaitStrategy};
use pmix_kvs::region::Region;
use pmix_kvs::shm::{ShmAnswer, ShmReader, ShmWriter};
use pmix_kvs::workload::{ModexShape, modex_blob};
use pmix_kvs::{Client, GetOptions, GetOutcome, JobInfo, NodeStore, ProcId, Rank, Scope, Value};

/// The key the `get` benchmarks read.
const HIT_KEY: &str = "btl.tcp.addr";

/// A two-process job (`slurm.pmix.1234567.0`, both ranks on this node) where rank 0
/// committed [`HIT_KEY`] = `U64(0xdeadbeef)` with `Global` scope: the store, rank 0 (the
/// target) and a client for rank 1 (the reader).
fn get_hit_store() -> pmix_kvs::Result<(NodeStore, ProcId, Client)> {
    let mut store = NodeStore::new();
    let ns = store.register_job("slurm.pmix.1234567.0", &JobInfo::new(2, "n0"))?;
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    p0.put(Scope::Global, HIT_KEY, Value::U64(0xdead_beef))?;
    p0.commit(&mut store)?;
    Ok((store, p0.id(), Client::new(ProcId::new(ns, Rank::new(1)))))
}

fn get(c: &mut Criterion) {
    let (store, target, mut p1) = get_hit_store().expect("valid job and key");
    let cached = GetOptions::default();
    let refresh = GetOptions::default().with_refresh_cache(true);
    let t = Nanos::ZERO;
    let mut g = c.benchmark_group("pmix_get_hit");
    g.bench_function("client_cache", |b| {
        b.iter(|| {
            let o = p1
                .get(&store, target, black_box(HIT_KEY), &cached, t)
                .expect("valid");
            assert!(matches!(o, GetOutcome::Found(Value::U64(_))));
            o
        });
    });
    g.bench_function("client_cache_get_with", |b| {
        b.iter(|| {
            p1.get_with(
                &store,
                target,
                black_box(HIT_KEY),
                &cached,
                t,
                |v| match v {
                    Value::U64(x) => Some(*x),
                    _ => None,
                },
            )
            .expect("valid")
        });
    });
    g.bench_function("node_store_refresh", |b| {
        b.iter(|| {
            p1.get(&store, target, black_box(HIT_KEY), &refresh, t)
                .expect("valid")
        });
    });
    let shared = TwoNLock::new(store.clone(), 2).expect("2 slots");
    let mut slot = shared.reader().expect("a free slot");
    g.bench_function("node_store_refresh_2n_locked", |b| {
        b.iter(|| {
            p1.get(&slot.read(), target, black_box(HIT_KEY), &refresh, t)
                .expect("valid")
        });
    });
    drop(slot);
    let mut baseline: HashMap<String, Value> = HashMap::new();
    baseline.insert(HIT_KEY.into(), Value::U64(0xdead_beef));
    g.bench_function("baseline_hashmap", |b| {
        b.iter(|| baseline.get(black_box(HIT_KEY)).cloned());
    });
    g.finish();
}

/// The shared-memory node store (`pmix_kvs::shm`) in this process: a `get_fixed` hit, a 64-byte
/// `get_bytes_into` and a miss through a region's reader slot, beside the node store read
/// through the 2N-lock (the `pmix_get_hit` group's `node_store_refresh_2n_locked`), and a
/// whole publish of the store. Across processes: `reproduce pmix-shm`.
fn shm_get(c: &mut Criterion) {
    let (mut store, target, _) = get_hit_store().expect("valid job and key");
    let mut p0 = Client::new(target);
    p0.put(Scope::Local, "blob", Value::Bytes(vec![7; 64]))
        .expect("valid key");
    p0.commit(&mut store).expect("rank 0 is local");
    let layout = ShmWriter::layout(2, 1 << 14);
    let len = layout.region_len().expect("small layout");
    let mut mem = vec![0u8; len + 8];
    let off = mem.as_ptr().align_offset(8);
    let region = Region::format(&mut mem[off..off + len], layout).expect("aligned, large enough");
    let mut writer = ShmWriter::new();
    writer.publish(&region, &store).expect("fits");
    let mut r = ShmReader::new(&region).expect("a free slot");
    let ns = r
        .nspace("slurm.pmix.1234567.0")
        .expect("image")
        .expect("published");
    let rank = target.rank;
    let mut g = c.benchmark_group("pmix_shm_get");
    g.bench_function("get_fixed_hit", |b| {
        b.iter(|| {
            let a = r
                .get_fixed(ns, rank, black_box(HIT_KEY), None)
                .expect("valid");
            assert!(matches!(a, ShmAnswer::Found(Value::U64(_))));
            a
        });
    });
    let mut buf = [0u8; 64];
    g.bench_function("get_bytes_into_64", |b| {
        b.iter(|| {
            r.get_bytes_into(ns, rank, black_box("blob"), None, &mut buf)
                .expect("valid")
        });
    });
    g.bench_function("get_fixed_miss", |b| {
        b.iter(|| {
            r.get_fixed(ns, rank, black_box("absent.key"), None)
                .expect("valid")
        });
    });
    drop(r);
    g.bench_function("publish", |b| {
        b.iter(|| writer.publish(&region, black_box(&store)).expect("fits"));
    });
    g.finish();
}

fn codec_bench(c: &mut Criterion) {
    let blob = modex_blob(&ModexShape::default());
    let mut g = c.benchmark_group("pmix_codec_128x8");
    for (name, layout) in layouts() {
        let bytes = codec::encode(&blob, layout).expect("valid blob");
        g.throughput(Throughput::Elements(blob.pair_count() as u64));
        g.bench_function(BenchmarkId::new("encode", name), |b| {
            b.iter(|| codec::encode(black_box(&blob), layout).expect("valid"));
        });
        g.bench_function(BenchmarkId::new("decode", name), |b| {
            b.iter(|| codec::decode(black_box(&bytes)).expect("valid"));
        });
    }
    g.finish();
}

type Data = [u64; 8];

fn sum(d: &Data) -> u64 {
    black_box(d).iter().fold(0, |a, b| a.wrapping_add(*b))
}

/// Runs `threads` threads doing `iters` reads each; returns the slowest thread's time.
fn run_readers(threads: usize, iters: u64, read: &(dyn Fn(u64) + Sync)) -> Duration {
    let start = Barrier::new(threads);
    thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    start.wait();
                    let t0 = Instant::now();
                    read(iters);
                    t0.elapsed()
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("reader thread"))
            .max()
            .unwrap_or_default()
    })
}

fn locks(c: &mut Criterion) {
    let data: Data = [1; 8];
    let mut g = c.benchmark_group("pmix_lock_read");
    g.sample_size(20);
    for threads in [1usize, 2, 4, 8, 16] {
        g.throughput(Throughput::Elements(threads as u64));
        for (name, wait) in [
            ("2n_lock", WaitStrategy::default()),
            ("2n_lock_park", WaitStrategy::Park { spins: 64 }),
        ] {
            let two_n = TwoNLock::with_wait(data, 16, wait).expect("16 slots");
            g.bench_function(BenchmarkId::new(name, threads), |b| {
                b.iter_custom(|iters| {
                    run_readers(threads, iters, &|n| {
                        let mut slot = two_n.reader().expect("a free slot");
                        for _ in 0..n {
                            black_box(sum(&slot.read()));
                        }
                    })
                });
            });
        }
        let std_lock = RwLock::new(data);
        g.bench_function(BenchmarkId::new("std_rwlock", threads), |b| {
            b.iter_custom(|iters| {
                run_readers(threads, iters, &|n| {
                    for _ in 0..n {
                        black_box(sum(&std_lock.read().expect("not poisoned")));
                    }
                })
            });
        });
        let pl = parking_lot::RwLock::new(data);
        g.bench_function(BenchmarkId::new("parking_lot_rwlock", threads), |b| {
            b.iter_custom(|iters| {
                run_readers(threads, iters, &|n| {
                    for _ in 0..n {
                        black_box(sum(&pl.read()));
                    }
                })
            });
        });
        let sharded = ShardedLock::new(data);
        g.bench_function(BenchmarkId::new("crossbeam_shardedlock", threads), |b| {
            b.iter_custom(|iters| {
                run_readers(threads, iters, &|n| {
                    for _ in 0..n {
                        black_box(sum(&sharded.read().expect("not poisoned")));
                    }
                })
            });
        });
    }
    g.finish();
}

fn fences(c: &mut Criterion) {
    let mut g = c.benchmark_group("pmix_fence_sim_64x1k");
    for alg in [Algorithm::TREE, Algorithm::Ring, Algorithm::Bruck] {
        g.bench_function(alg.name(), |b| {
            b.iter(|| fence::simulate(alg, vec![vec![7u8; 1024]; 64], true).expect("valid"));
        });
    }
    g.finish();
}

criterion_group!(benches, get, shm_get, codec_bench, locks, fences);
criterion_main!(benches);
