//! `reproduce pmix-codec`, `pmix-lock` and `pmix-fence`: the data-representation (§4.2),
//! 2N-lock (§4.1) and fence-collective (§4.3) claims of the survey pmix-kvs implements
//! (Zhang Kun et al., "A survey on the process management interface for exascale computing
//! systems", Computer Engineering & Science 42(10), 2020).

use std::hint::black_box;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Barrier, RwLock};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_utils::sync::ShardedLock;
use fabric_model::Bytes;
use pmix_kvs::codec::{self, CompactOptions, IntEncoding, Layout};
use pmix_kvs::fence::{self, Algorithm, AlphaBeta};
use pmix_kvs::lock::{TwoNLock, WaitStrategy};
use pmix_kvs::workload::{ModexShape, modex_blob};

use crate::svg::{LineChart, Series};
use crate::{Cell, Context, Experiment, Scale, Table};

/// The CSV header of `reproduce pmix-codec`.
pub const CODEC_HEADER: &str = "layout,ranks,keys_per_rank,key_len,value_len,bytes,ratio_vs_naive";
/// The CSV header of `reproduce pmix-lock`.
pub const LOCK_HEADER: &str = "lock,threads,reads_per_sec,writer_p99_wait_ns";
/// The CSV header of `reproduce pmix-fence`.
pub const FENCE_HEADER: &str = "algorithm,nodes,rounds,messages,max_bytes_per_node,modeled_us";

/// Fence-blob sizes of the naive layout, the compact one and compact with flex128 integers.
#[derive(Debug, Clone, Copy, Default)]
pub struct PmixCodec;

/// The layouts compared, by the name in the `layout` column (the criterion bench uses them too).
pub fn layouts() -> [(&'static str, Layout); 3] {
    [
        ("naive", Layout::Naive),
        ("compact", Layout::Compact(CompactOptions::default())),
        (
            "flex128",
            Layout::Compact(CompactOptions::default().with_ints(IntEncoding::Flex128)),
        ),
    ]
}

impl Experiment for PmixCodec {
    fn name(&self) -> &'static str {
        "pmix-codec"
    }

    fn description(&self) -> &'static str {
        "fence blob bytes: naive vs compact (key table, rank index, LEB128) vs flex128 (survey §4.2.2)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let mut t = Table::new("pmix-codec", "Fence blob size by layout", CODEC_HEADER);
        // (ranks, keys, key_len, value lengths)
        let mut shapes: Vec<(u32, usize, usize, (usize, usize))> = vec![
            (1, 8, 16, (21, 51)),
            (16, 8, 16, (21, 51)),
            (128, 8, 16, (21, 51)),
            (168, 8, 16, (21, 51)),
            (128, 1, 16, (21, 51)),
            (128, 20, 16, (21, 51)),
            (128, 8, 64, (21, 51)),
            (128, 8, 16, (21, 21)),
            (128, 8, 16, (51, 51)),
            (128, 8, 16, (248, 248)),
        ];
        if ctx.scale == Scale::Paper {
            shapes.extend([(1024, 8, 16, (21, 51)), (4096, 8, 16, (21, 51))]);
        }
        let mut no_prefix = Vec::new();
        for (ranks, keys, key_len, value_len) in shapes {
            let blob = modex_blob(
                &ModexShape::default()
                    .with_ranks(ranks)
                    .with_keys_per_rank(keys)
                    .with_key_len(key_len)
                    .with_value_len(value_len.0, value_len.1),
            );
            let naive = codec::encode(&blob, Layout::Naive)
                .map_err(|e| e.to_string())?
                .len();
            let vl = if value_len.0 == value_len.1 {
                value_len.0.to_string()
            } else {
                format!("{}-{}", value_len.0, value_len.1)
            };
            for (name, layout) in layouts() {
                let bytes = codec::encode(&blob, layout).map_err(|e| e.to_string())?;
                if codec::decode(&bytes).map_err(|e| e.to_string())? != blob {
                    return Err(format!("{name} does not round-trip"));
                }
                t.push(vec![
                    Cell::text(name),
                    Cell::count(ranks),
                    Cell::count(keys),
                    Cell::count(key_len),
                    Cell::text(vl.clone()),
                    Cell::count(bytes.len()),
                    Cell::float(bytes.len() as f64 / naive as f64, 3),
                ]);
            }
            let plain = codec::encode(
                &blob,
                Layout::Compact(CompactOptions::default().with_shared_prefix(false)),
            )
            .map_err(|e| e.to_string())?
            .len();
            no_prefix.push(format!(
                "{ranks}x{keys}x{key_len}/{vl}: {:.3}",
                plain as f64 / naive as f64
            ));
        }
        t.note("values are UCX-like addresses: the last 21 bytes differ per rank, the rest is a per-key descriptor shared by all ranks (survey §4.2.1: 51 B -> 21 B by dropping shared fields); compact and flex128 send that shared prefix once per key");
        t.note(format!("compact without the shared-prefix option (key table + rank index + LEB128 only): ratio {}", no_prefix.join("; ")));
        t.note("paper's key-table anchor (s = 16, N = 128): N(s+4) = 2560 B of keys naive vs (s+4)+4N = 532 B; here (s+1)+N = 145 B (one-byte LEB128 length and index)");
        t.note("target: compact <= 0.40 of naive at 128 ranks x 8 keys x 16 B, values 21-51 B");
        Ok(vec![t])
    }
}

/// Read throughput and writer wait of the 2N-lock beside `std`, `parking_lot` and crossbeam.
#[derive(Debug, Clone, Copy, Default)]
pub struct PmixLock;

/// The data behind every lock: a small record read whole.
type Data = [u64; 8];

/// Phases of one run, in [`Run::phase`]: readers and the writer work during both the warm-up
/// and the measurement, and count only during the measurement.
const WARM_UP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

/// What the threads of one run share.
struct Run {
    phase: AtomicU8,
}

impl Run {
    fn phase(&self) -> u8 {
        self.phase.load(Ordering::Relaxed)
    }
}

/// One contender: claim what a reader needs, read, write.
trait Contender: Sync {
    fn reader_loop(&self, run: &Run) -> u64;
    fn write(&self, v: u64);
}

fn read_sum(d: &Data) -> u64 {
    black_box(d).iter().fold(0, |a, b| a.wrapping_add(*b))
}

/// Calls `read` until the run stops; returns how many reads were made while measuring.
fn count_until(run: &Run, mut read: impl FnMut() -> u64) -> u64 {
    let mut n = 0;
    loop {
        let phase = run.phase();
        if phase == STOP {
            return n;
        }
        black_box(read());
        n += u64::from(phase == MEASURE);
    }
}

impl Contender for TwoNLock<Data> {
    fn reader_loop(&self, run: &Run) -> u64 {
        let Ok(mut slot) = self.reader() else {
            return 0;
        };
        count_until(run, || read_sum(&slot.read()))
    }
    fn write(&self, v: u64) {
        self.write()[0] = v;
    }
}

impl Contender for RwLock<Data> {
    fn reader_loop(&self, run: &Run) -> u64 {
        count_until(run, || {
            read_sum(
                &self
                    .read()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            )
        })
    }
    fn write(&self, v: u64) {
        self.write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)[0] = v;
    }
}

impl Contender for parking_lot::RwLock<Data> {
    fn reader_loop(&self, run: &Run) -> u64 {
        count_until(run, || read_sum(&self.read()))
    }
    fn write(&self, v: u64) {
        self.write()[0] = v;
    }
}

impl Contender for ShardedLock<Data> {
    fn reader_loop(&self, run: &Run) -> u64 {
        count_until(run, || {
            read_sum(
                &self
                    .read()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            )
        })
    }
    fn write(&self, v: u64) {
        self.write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)[0] = v;
    }
}

/// How long one run lasts and how often the writer writes.
#[derive(Debug, Clone, Copy)]
struct Timing {
    warm_up: Duration,
    measure: Duration,
    gap: Duration,
}

/// Runs `threads` readers while one writer writes every `gap`: a warm-up, then a measured
/// window of fixed length. Returns reads per second and the writer's p99 wait in
/// nanoseconds, both over the measured window only.
fn measure(lock: &dyn Contender, threads: usize, timing: Timing) -> (f64, u64) {
    let run = Run {
        phase: AtomicU8::new(WARM_UP),
    };
    let start = Barrier::new(threads + 2);
    let (reads, mut waits) = thread::scope(|s| {
        let readers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    start.wait();
                    lock.reader_loop(&run)
                })
            })
            .collect();
        let writer = s.spawn(|| {
            start.wait();
            let mut waits = Vec::new();
            let mut v = 0;
            loop {
                thread::sleep(timing.gap);
                let phase = run.phase();
                if phase == STOP {
                    return waits;
                }
                let t0 = Instant::now();
                lock.write(v);
                if phase == MEASURE {
                    waits.push(t0.elapsed().as_nanos() as u64);
                }
                v += 1;
            }
        });
        start.wait();
        thread::sleep(timing.warm_up);
        run.phase.store(MEASURE, Ordering::Relaxed);
        let t0 = Instant::now();
        thread::sleep(timing.measure);
        run.phase.store(STOP, Ordering::Relaxed);
        let elapsed = t0.elapsed().as_secs_f64();
        let reads: u64 = readers.into_iter().map(|h| h.join().unwrap_or(0)).sum();
        (reads as f64 / elapsed, writer.join().unwrap_or_default())
    });
    waits.sort_unstable();
    let p99 = if waits.is_empty() {
        0
    } else {
        waits[(waits.len() * 99 / 100).min(waits.len() - 1)]
    };
    (reads, p99)
}

/// The median of `xs` (the upper one of an even count); `xs` is not empty.
fn median<T: Copy + PartialOrd>(mut xs: Vec<T>) -> T {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    xs[xs.len() / 2]
}

/// The locks compared, by the name in the `lock` column.
const LOCKS: [&str; 5] = [
    "2n-lock",
    "2n-lock-park",
    "std-rwlock",
    "parking_lot-rwlock",
    "crossbeam-shardedlock",
];

/// One run of lock `name` with `threads` readers.
fn measure_lock(name: &str, threads: usize, timing: Timing) -> Result<(f64, u64), String> {
    let data: Data = [1; 8];
    Ok(match name {
        "2n-lock" => measure(
            &TwoNLock::new(data, threads).map_err(|e| e.to_string())?,
            threads,
            timing,
        ),
        "2n-lock-park" => measure(
            &TwoNLock::with_wait(data, threads, WaitStrategy::Park { spins: 64 })
                .map_err(|e| e.to_string())?,
            threads,
            timing,
        ),
        "std-rwlock" => measure(&RwLock::new(data), threads, timing),
        "parking_lot-rwlock" => measure(&parking_lot::RwLock::new(data), threads, timing),
        _ => measure(&ShardedLock::new(data), threads, timing),
    })
}

/// The 1-minute load average, where the system tells it (Linux), to note beside the figures.
fn load_average() -> Option<String> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().next().map(str::to_owned)
}

impl Experiment for PmixLock {
    fn name(&self) -> &'static str {
        "pmix-lock"
    }

    fn description(&self) -> &'static str {
        "reader throughput and writer p99 wait: 2N-lock (spin-then-yield and parking) vs std RwLock, parking_lot RwLock, crossbeam ShardedLock (survey §4.1)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let cores = thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let mut counts = vec![1];
        while counts.last().is_some_and(|&c| c * 2 <= cores) {
            counts.push(counts.last().copied().unwrap_or(1) * 2);
        }
        if counts.last() != Some(&cores) {
            counts.push(cores);
        }
        // One row above the cores: oversubscribed, where the wait strategy matters.
        counts.push(cores * 2);
        let (timing, reps) = match ctx.scale {
            Scale::Small => (
                Timing {
                    warm_up: Duration::from_millis(50),
                    measure: Duration::from_millis(200),
                    gap: Duration::from_micros(200),
                },
                3,
            ),
            Scale::Paper => (
                Timing {
                    warm_up: Duration::from_millis(200),
                    measure: Duration::from_secs(1),
                    gap: Duration::from_micros(200),
                },
                5,
            ),
        };
        let load_before = load_average();
        let mut t = Table::new(
            "pmix-lock",
            "Reader throughput and writer wait",
            LOCK_HEADER,
        );
        let mut scaling = Vec::new();
        let mut series = Vec::new();
        // Rounds of every (lock, threads) pair, so that a burst of load on a shared machine
        // falls on all locks alike rather than on one lock's repetitions.
        let mut runs: Vec<Vec<(Vec<f64>, Vec<u64>)>> =
            vec![vec![(Vec::new(), Vec::new()); counts.len()]; LOCKS.len()];
        for round in 0..reps {
            for (li, name) in LOCKS.iter().enumerate() {
                ctx.progress(&format!("pmix-lock round {}/{reps}: {name}", round + 1));
                for (ti, &threads) in counts.iter().enumerate() {
                    let (r, w) = measure_lock(name, threads, timing)?;
                    runs[li][ti].0.push(r);
                    runs[li][ti].1.push(w);
                }
            }
        }
        for (name, lock_runs) in LOCKS.iter().zip(runs) {
            let mut points = Vec::new();
            let mut single = 0.0;
            let mut ratios = Vec::new();
            for (&threads, (rps, p99)) in counts.iter().zip(lock_runs) {
                let (rps, p99) = (median(rps), median(p99));
                if threads == 1 {
                    single = rps;
                }
                t.push(vec![
                    Cell::text(*name),
                    Cell::count(threads),
                    Cell::float(rps, 0),
                    Cell::count(p99),
                ]);
                points.push((threads as f64, rps));
                if threads > 1 && single > 0.0 {
                    let over = if threads > cores {
                        " (oversubscribed)"
                    } else {
                        ""
                    };
                    ratios.push(format!(
                        "T={threads}{over} {:.2}",
                        rps / (threads as f64 * single)
                    ));
                }
            }
            scaling.push(format!("{name}: {}", ratios.join(", ")));
            series.push(Series {
                name: (*name).into(),
                points,
            });
        }
        t.note(format!(
            "{cores} core(s) available (threads above that are oversubscribed); each run has the reader threads plus one writer writing every {} us; {} ms warm-up, then {} ms measured; each row is the median of {reps} runs made in {reps} rounds over all locks (reads/s and p99 taken separately); the paper's figure is for 168 processes per node",
            timing.gap.as_micros(),
            timing.warm_up.as_millis(),
            timing.measure.as_millis(),
        ));
        t.note(format!(
            "read scaling reads(T) / (T x reads(1)), target >= 0.9 up to the cores: {}",
            scaling.join("; ")
        ));
        t.note(format!(
            "2n-lock waits spinning 64 times then yielding (the default WaitStrategy); 2n-lock-park spins 64 times then sleeps on a condition variable until the unlock wakes it; 1-minute load average before / after: {} / {}",
            load_before.as_deref().unwrap_or("unknown"),
            load_average().as_deref().unwrap_or("unknown"),
        ));
        ctx.write_plot(
            "pmix-lock.svg",
            &LineChart {
                title: "Reads per second".into(),
                x_label: "reader threads".into(),
                y_label: "reads/s".into(),
                log_x: false,
                series,
            }
            .to_svg(),
        )?;
        Ok(vec![t])
    }
}

/// Rounds, messages, bytes and modeled time of the tree, ring and Bruck fences.
#[derive(Debug, Clone, Copy, Default)]
pub struct PmixFence;

impl Experiment for PmixFence {
    fn name(&self) -> &'static str {
        "pmix-fence"
    }

    fn description(&self) -> &'static str {
        "fence collectives (tree radix 16, ring, Bruck): rounds, messages, bytes and alpha-beta time up to 1e5 nodes (survey §4.3)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let ab = AlphaBeta::default();
        let m = 1024u64;
        let mut nodes = vec![2usize, 4, 16, 17, 64, 108, 1_000, 10_000, 100_000];
        if ctx.scale == Scale::Paper {
            nodes.push(1_000_000);
        }
        let algs = [Algorithm::TREE, Algorithm::Ring, Algorithm::Bruck];
        let mut t = Table::new("pmix-fence", "Fence collectives", FENCE_HEADER);
        for &n in &nodes {
            for alg in algs {
                let mc = fence::model(alg, n, Bytes::new(m), ab).map_err(|e| e.to_string())?;
                if n <= 108 {
                    // Run the state machines and check the model's counts against them.
                    let r = fence::simulate(alg, vec![vec![0xA5; m as usize]; n], true)
                        .map_err(|e| e.to_string())?;
                    if r.rounds != mc.rounds || r.messages != mc.messages {
                        return Err(format!(
                            "{} n={n}: simulation and model disagree",
                            alg.name()
                        ));
                    }
                }
                t.push(vec![
                    Cell::text(alg.name()),
                    Cell::count(n),
                    Cell::count(mc.rounds),
                    Cell::count(mc.messages),
                    Cell::count(mc.max_bytes_per_node.get()),
                    Cell::float(mc.time_us, 1),
                ]);
            }
        }
        t.note(format!(
            "{m} B per node; alpha = {} us, beta = 1/{:.0} us per byte (100 Gb/s); max_bytes_per_node is data bytes sent or received by the busiest node; rows up to 108 nodes also ran the state machines (rounds and messages checked)",
            ab.alpha_us(),
            1.0 / ab.beta_us_per_byte()
        ));
        t.note("paper (Slurm 18.08, 108 nodes, 2^0..2^14 B): Bruck below tree and ring; no raw numbers published");
        // The paper's sweep at 108 nodes as a chart.
        let series = algs
            .iter()
            .map(|&alg| Series {
                name: alg.name().into(),
                points: (0..=14)
                    .filter_map(|e| {
                        let bytes = 1u64 << e;
                        fence::model(alg, 108, Bytes::new(bytes), ab)
                            .ok()
                            .map(|c| (bytes as f64, c.time_us))
                    })
                    .collect(),
            })
            .collect();
        ctx.write_plot(
            "pmix-fence-108.svg",
            &LineChart {
                title: "Modeled fence time, 108 nodes".into(),
                x_label: "bytes per node".into(),
                y_label: "us".into(),
                log_x: true,
                series,
            }
            .to_svg(),
        )?;
        Ok(vec![t])
    }
}
