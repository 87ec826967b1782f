//! `reproduce pmix-shm`: the node store in shared memory, measured
//! across real processes: get latency of a reader process through the shared store
//! ([`pmix_kvs::shm`]) while the server process publishes every 200 µs, reader scaling (1,
//! 2, the cores, twice the cores), the writer's p99 wait for its readers, and kill runs
//! (readers and the writer SIGKILLed at random points: kills, wedged runs, torn reads);
//! beside the in-process store (a `NodeStore` behind the crate's 2N-lock, read by threads
//! with `Client::get_with`) as the baseline.
//!
//! Processes are forked from `reproduce` itself (single-threaded at that point: every
//! experiment's threads are joined) and share two anonymous shared mappings: the region and
//! a board of atomics where they report. Readers allocate nothing after the fork.
#![allow(unsafe_code)]

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use fabric_model::Nanos;
use fabric_model::rng::SplitMix64;
use pmix_kvs::lock::TwoNLock;
use pmix_kvs::region::{PidLiveness, Region, RegionLiveness};
use pmix_kvs::shm::{LockEvent, ShmAnswer, ShmReader, ShmWriter};
use pmix_kvs::{Client, GetOptions, GetOutcome, JobInfo, NodeStore, ProcId, Rank, Scope, Value};

use crate::{Cell, Context, Experiment, Scale, Table};

/// The CSV header of `reproduce pmix-shm`.
pub const SHM_HEADER: &str =
    "store,readers,value_bytes,get_ns_p50,get_ns_p99,writer_p99_wait_ns,kills,wedged,torn";

/// Gets per timed batch: a sample is the mean of one batch (a clock read costs about as
/// much as a get).
const BATCH: usize = 16;
/// Ranks of the job whose data the readers read.
const RANKS: u32 = 64;
/// Keys every rank committed (fixed-size `U64` values).
const KEYS: [&str; 8] = ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"];
/// The self-checking value the writer rewrites at every publish: its counter, then the
/// counter's low byte, [`BLOB_BYTES`] bytes in all.
const BLOB: &str = "blob";
/// Bytes of [`BLOB`] (the `value_bytes` of the variable-size rows).
const BLOB_BYTES: usize = 64;
/// The writer's pause between publishes.
const GAP: Duration = Duration::from_micros(200);
/// How long nothing may move before a run counts as wedged. A wedged lock never recovers
/// (nothing in the region times out), so a long window costs nothing when all is well (the
/// check returns at the first progress) and keeps a loaded machine's scheduling stalls out
/// of the count: with 100 ms, 1 of 10 control runs (no kill) counted as wedged at load 5.
const WEDGE: Duration = Duration::from_secs(1);
/// Samples a reader keeps.
const SAMPLES: usize = 1 << 15;
/// Most reader processes one run has (kill runs respawn).
const MAX_READERS: usize = 64;

/// Board words: run phase, writer publishes, torn reads, readers ready, writer waits kept.
const B_PHASE: usize = 0;
const B_PUBLISHES: usize = 1;
const B_TORN: usize = 2;
const B_READY: usize = 3;
/// Per reader: progress (batches or checks done) and samples kept.
const B_PROGRESS: usize = 8;
const B_NSAMPLES: usize = B_PROGRESS + MAX_READERS;
const B_SAMPLES: usize = B_NSAMPLES + MAX_READERS;
const BOARD_WORDS: usize = B_SAMPLES + MAX_READERS * SAMPLES;

const WARM_UP: u64 = 0;
const MEASURE: u64 = 1;
const STOP: u64 = 2;

/// Shared-memory node store across processes against the in-process store.
#[derive(Debug, Clone, Copy, Default)]
pub struct PmixShm;

/// An anonymous shared mapping, inherited by forked children.
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    fn new(len: usize) -> Result<Self, String> {
        // SAFETY: an anonymous shared mapping of `len` bytes, no address hint; checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(format!("mmap of {len} bytes failed"));
        }
        Ok(Self {
            ptr: ptr.cast(),
            len,
        })
    }

    /// The mapping's bytes, for a `Region`: every caller hands the slice straight to
    /// `Region::format` or `Region::attach`, which turn it into atomics and never read or
    /// write it plainly, so the slices of several handles (the parent's, a child's) alias
    /// only as atomics (the region's safety contract).
    #[allow(clippy::mut_from_ref)]
    fn bytes(&self) -> &mut [u8] {
        // SAFETY: `len` mapped bytes, page-aligned, mapped while `self` lives; the slice
        // only ever reaches `Region`, which accesses it atomically (see above).
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// The mapping as `u64` atomics (the board).
    fn atomics(&self) -> &[AtomicU64] {
        // SAFETY: page-aligned (so 8-aligned), `len / 8` whole words, zero-initialised by
        // the kernel, mapped while `self` lives; every process only uses atomic accesses.
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<AtomicU64>(), self.len / 8) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping `new` made; nothing borrows it any more.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Forks a child that runs `f` and leaves with its return value as exit status.
fn fork(f: impl FnOnce() -> i32) -> Result<libc::pid_t, String> {
    // SAFETY: `reproduce` is single-threaded here (every experiment joins its threads), so
    // the child may run ordinary code; it leaves with `_exit`, never returning.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err("fork failed".into());
    }
    if pid == 0 {
        let code = f();
        // SAFETY: ends the child without running the parent's exit handlers.
        unsafe { libc::_exit(code) };
    }
    Ok(pid)
}

/// Sends SIGKILL to `pid` and reaps it.
fn kill(pid: libc::pid_t) {
    // SAFETY: `pid` is a child of this process that has not been reaped.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
}

/// Waits up to `limit` for `pid` to exit; kills it after; whether it exited by itself.
fn reap(pid: libc::pid_t, limit: Duration) -> bool {
    let t0 = Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: a child of this process; `status` is a valid out-pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            return true;
        }
        if t0.elapsed() > limit {
            kill(pid);
            return false;
        }
        thread::sleep(Duration::from_micros(500));
    }
}

/// The job every run publishes: `RANKS` ranks on this node, each with [`KEYS`] committed
/// as `U64`s; rank 0 also holds [`BLOB`].
fn fixture() -> Result<(NodeStore, Client), String> {
    let e = |e: pmix_kvs::Error| e.to_string();
    let mut store = NodeStore::new();
    let ns = store
        .register_job("bench", &JobInfo::new(RANKS, "n0"))
        .map_err(e)?;
    for r in 0..RANKS {
        let mut c = Client::new(ProcId::new(ns, Rank::new(r)));
        for (k, key) in KEYS.iter().enumerate() {
            c.put(Scope::Local, key, Value::U64(u64::from(r) * 100 + k as u64))
                .map_err(e)?;
        }
        c.commit(&mut store).map_err(e)?;
    }
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    put_blob(&mut store, &mut p0, 0)?;
    Ok((store, p0))
}

/// Commits rank 0's self-checking blob for counter `k`.
fn put_blob(store: &mut NodeStore, p0: &mut Client, k: u64) -> Result<(), String> {
    let mut blob = k.to_le_bytes().to_vec();
    blob.resize(BLOB_BYTES, k as u8);
    p0.put(Scope::Local, BLOB, Value::Bytes(blob))
        .and_then(|()| p0.commit(store))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// This process's owner token (its pid) with the pid check (`kill(pid, 0)`) the region's
/// locks call when they wait on a slot or the writers' lock, so that a killed process's claim
/// is taken over; evaluated in the process that attaches (a forked child gets its own pid).
fn liveness() -> RegionLiveness {
    PidLiveness::this_process()
}

/// Whether a blob's bytes are one publish's (its counter, then the counter's low byte).
fn blob_whole(b: &[u8]) -> bool {
    b.len() == BLOB_BYTES && b[8..].iter().all(|&x| x == b[0])
}

/// A reader process: attaches to the region, reads until the board says stop; `fixed`
/// reads `U64`s with `get_fixed`, else the blob with `get_bytes_into`. Each round is a
/// timed batch (kept while measuring) and one self-check of the blob.
fn reader(region_map: &Mapping, board: &[AtomicU64], me: usize, fixed: bool) -> i32 {
    let Ok(region) = Region::attach(region_map.bytes()).map(|r| r.with_liveness(liveness())) else {
        return 10;
    };
    let Ok(mut r) = ShmReader::new(&region) else {
        return 11; // no free slot
    };
    let Ok(Some(job)) = r.nspace("bench") else {
        return 12;
    };
    board[B_READY].fetch_add(1, Ordering::Relaxed);
    let mut buf = [0u8; BLOB_BYTES];
    let mut n = 0usize;
    let mut i = me as u32;
    loop {
        let phase = board[B_PHASE].load(Ordering::Relaxed);
        if phase == STOP {
            break;
        }
        let t0 = Instant::now();
        let mut sum = 0u64;
        for _ in 0..BATCH {
            i = i.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            if fixed {
                let key = KEYS[(i >> 8) as usize % KEYS.len()];
                if let Ok(ShmAnswer::Found(Value::U64(v))) =
                    r.get_fixed(job, Rank::new((i >> 16) % RANKS), key, None)
                {
                    sum = sum.wrapping_add(v);
                }
            } else if let Ok(ShmAnswer::Found((_, len))) =
                r.get_bytes_into(job, Rank::new(0), BLOB, None, &mut buf)
            {
                sum = sum.wrapping_add(len as u64);
            }
        }
        let dt = t0.elapsed().as_nanos() as u64 / BATCH as u64;
        black_box(sum);
        if phase == MEASURE && n < SAMPLES {
            board[B_SAMPLES + me * SAMPLES + n].store(dt, Ordering::Relaxed);
            n += 1;
        }
        let whole = matches!(
            r.get_bytes_into(job, Rank::new(0), BLOB, None, &mut buf),
            Ok(ShmAnswer::Found((_, BLOB_BYTES)))
        ) && blob_whole(&buf);
        if !whole {
            board[B_TORN].fetch_add(1, Ordering::Relaxed);
        }
        board[B_PROGRESS + me].fetch_add(1, Ordering::Relaxed);
        board[B_NSAMPLES + me].store(n as u64, Ordering::Relaxed);
    }
    0
}

/// The writer process of the kill runs: commit a new blob and publish, every [`GAP`],
/// until the board says stop.
fn writer_loop(
    region: &Region<'_>,
    board: &[AtomicU64],
    store: &mut NodeStore,
    p0: &mut Client,
    first: u64,
) -> Result<(), String> {
    let mut w = ShmWriter::new();
    let mut k = first;
    loop {
        thread::sleep(GAP);
        let phase = board[B_PHASE].load(Ordering::Relaxed);
        if phase == STOP {
            return Ok(());
        }
        k += 1;
        put_blob(store, p0, k)?;
        publish_timed(&mut w, region, store)?;
        board[B_PUBLISHES].fetch_add(1, Ordering::Relaxed);
    }
}

/// Publishes `store`; returns the nanoseconds from asking for the write lock to holding it.
fn publish_timed(w: &mut ShmWriter, region: &Region<'_>, store: &NodeStore) -> Result<u64, String> {
    let (mut asked, mut held) = (None, None);
    w.publish_noting_lock(region, store, |e| {
        let now = Some(Instant::now());
        match e {
            LockEvent::Taking => asked = now,
            _ => held = now,
        }
    })
    .map_err(|e| e.to_string())?;
    Ok(match (asked, held) {
        (Some(a), Some(h)) => h.duration_since(a).as_nanos() as u64,
        _ => 0,
    })
}

fn reset(board: &[AtomicU64]) {
    for w in &board[..B_SAMPLES] {
        w.store(0, Ordering::Relaxed);
    }
}

/// The `q`-quantile of sorted `xs` (0 when empty).
fn quantile(xs: &[u64], q: f64) -> u64 {
    if xs.is_empty() {
        return 0;
    }
    xs[((xs.len() as f64 * q) as usize).min(xs.len() - 1)]
}

/// One measured shared-store row.
struct Row {
    p50: u64,
    p99: u64,
    wait_p99: u64,
    wedged: usize,
    torn: u64,
}

#[derive(Debug, Clone, Copy)]
struct Timing {
    warm_up: Duration,
    measure: Duration,
    kill_runs: usize,
    kills_per_run: usize,
}

/// Readers in `readers` processes, the writer in this one publishing every [`GAP`].
fn shm_run(
    region_map: &Mapping,
    board_map: &Mapping,
    readers: usize,
    fixed: bool,
    t: Timing,
) -> Result<Row, String> {
    let board = board_map.atomics();
    reset(board);
    let layout = ShmWriter::layout(readers, 1 << 16);
    let region = Region::format(region_map.bytes(), layout)
        .map_err(|e| e.to_string())?
        .with_liveness(liveness());
    let (mut store, mut p0) = fixture()?;
    ShmWriter::new()
        .publish(&region, &store)
        .map_err(|e| e.to_string())?;
    let mut pids = Vec::new();
    for me in 0..readers {
        pids.push(fork(|| reader(region_map, board, me, fixed))?);
    }
    let t0 = Instant::now();
    while (board[B_READY].load(Ordering::Relaxed) as usize) < readers && t0.elapsed() < WEDGE * 10 {
        thread::sleep(Duration::from_micros(200));
    }
    let mut waits = Vec::new();
    let start = Instant::now();
    let phase_at = |d: Duration, p: u64| {
        if start.elapsed() >= d {
            board[B_PHASE].fetch_max(p, Ordering::Relaxed);
        }
    };
    let mut k = 0;
    let mut w = ShmWriter::new();
    while board[B_PHASE].load(Ordering::Relaxed) != STOP {
        thread::sleep(GAP);
        phase_at(t.warm_up, MEASURE);
        phase_at(t.warm_up + t.measure, STOP);
        let phase = board[B_PHASE].load(Ordering::Relaxed);
        k += 1;
        put_blob(&mut store, &mut p0, k)?;
        let wait = publish_timed(&mut w, &region, &store)?;
        if phase == MEASURE {
            waits.push(wait);
        }
    }
    let wedged = pids.iter().filter(|&&p| !reap(p, WEDGE * 10)).count();
    let mut samples = Vec::new();
    for me in 0..readers {
        let n = (board[B_NSAMPLES + me].load(Ordering::Relaxed) as usize).min(SAMPLES);
        let base = B_SAMPLES + me * SAMPLES;
        samples.extend(
            board[base..base + n]
                .iter()
                .map(|a| a.load(Ordering::Relaxed)),
        );
    }
    samples.sort_unstable();
    waits.sort_unstable();
    Ok(Row {
        p50: quantile(&samples, 0.5),
        p99: quantile(&samples, 0.99),
        wait_p99: quantile(&waits, 0.99),
        wedged,
        torn: board[B_TORN].load(Ordering::Relaxed),
    })
}

/// The baseline: the same job in a `NodeStore` behind the crate's 2N-lock, `readers`
/// threads reading it with `Client::get_with` (`refresh_cache`: the node store, not the
/// client's cache), the writer committing and taking the write lock every [`GAP`].
fn in_process_run(readers: usize, fixed: bool, t: Timing) -> Result<Row, String> {
    let (store, mut p0) = fixture()?;
    let ns = p0.id().nspace;
    let lock = TwoNLock::new(store, readers).map_err(|e| e.to_string())?;
    let phase = AtomicU64::new(WARM_UP);
    let torn = AtomicU64::new(0);
    let refresh = GetOptions::default().with_refresh_cache(true);
    let (samples, waits) = thread::scope(|s| {
        let handles: Vec<_> =
            (0..readers)
                .map(|me| {
                    let (lock, phase, torn) = (&lock, &phase, &torn);
                    s.spawn(move || {
                        let mut samples = Vec::with_capacity(SAMPLES);
                        let Ok(mut slot) = lock.reader() else {
                            return samples;
                        };
                        let mut client = Client::new(ProcId::new(ns, Rank::new(RANKS - 1)));
                        let mut i = me as u32;
                        let blob_of = |v: &Value| match v {
                            Value::Bytes(b) => blob_whole(b),
                            _ => false,
                        };
                        loop {
                            let p = phase.load(Ordering::Relaxed);
                            if p == STOP {
                                return samples;
                            }
                            let t0 = Instant::now();
                            let mut sum = 0u64;
                            for _ in 0..BATCH {
                                i = i.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                                let g = slot.read();
                                let (target, key) = if fixed {
                                    (
                                        ProcId::new(ns, Rank::new((i >> 16) % RANKS)),
                                        KEYS[(i >> 8) as usize % KEYS.len()],
                                    )
                                } else {
                                    (ProcId::new(ns, Rank::new(0)), BLOB)
                                };
                                let got =
                                    client.get_with(&g, target, key, &refresh, Nanos::ZERO, |v| {
                                        match v {
                                            Value::U64(x) => *x,
                                            Value::Bytes(b) => b.len() as u64,
                                            _ => 0,
                                        }
                                    });
                                if let Ok(GetOutcome::Found(x)) = got {
                                    sum = sum.wrapping_add(x);
                                }
                            }
                            let dt = t0.elapsed().as_nanos() as u64 / BATCH as u64;
                            black_box(sum);
                            if p == MEASURE && samples.len() < SAMPLES {
                                samples.push(dt);
                            }
                            let g = slot.read();
                            let whole = client.get_with(
                                &g,
                                ProcId::new(ns, Rank::new(0)),
                                BLOB,
                                &refresh,
                                Nanos::ZERO,
                                blob_of,
                            );
                            if !matches!(whole, Ok(GetOutcome::Found(true))) {
                                torn.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    })
                })
                .collect();
        let mut waits = Vec::new();
        let start = Instant::now();
        let mut k = 0u64;
        while phase.load(Ordering::Relaxed) != STOP {
            thread::sleep(GAP);
            if start.elapsed() >= t.warm_up {
                phase.fetch_max(MEASURE, Ordering::Relaxed);
            }
            if start.elapsed() >= t.warm_up + t.measure {
                phase.store(STOP, Ordering::Relaxed);
            }
            k += 1;
            let mut blob = k.to_le_bytes().to_vec();
            blob.resize(BLOB_BYTES, k as u8);
            if p0.put(Scope::Local, BLOB, Value::Bytes(blob)).is_err() {
                break;
            }
            let t0 = Instant::now();
            let mut g = lock.write();
            let waited = t0.elapsed().as_nanos() as u64;
            let _ = p0.commit(&mut g);
            drop(g);
            if phase.load(Ordering::Relaxed) == MEASURE {
                waits.push(waited);
            }
        }
        let samples: Vec<u64> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect();
        (samples, waits)
    });
    let (mut samples, mut waits) = (samples, waits);
    samples.sort_unstable();
    waits.sort_unstable();
    Ok(Row {
        p50: quantile(&samples, 0.5),
        p99: quantile(&samples, 0.99),
        wait_p99: quantile(&waits, 0.99),
        wedged: 0,
        torn: torn.load(Ordering::Relaxed),
    })
}

/// Whether the writer and every reader in `live` made progress within [`WEDGE`].
fn moving(board: &[AtomicU64], live: &[usize]) -> bool {
    let load = |i: usize| board[i].load(Ordering::Relaxed);
    let before: Vec<u64> = live.iter().map(|&r| load(B_PROGRESS + r)).collect();
    let publishes = load(B_PUBLISHES);
    let t0 = Instant::now();
    while t0.elapsed() < WEDGE {
        thread::sleep(Duration::from_millis(2));
        if load(B_PUBLISHES) > publishes
            && live
                .iter()
                .zip(&before)
                .all(|(&r, &b)| load(B_PROGRESS + r) > b)
        {
            return true;
        }
    }
    false
}

/// What the kill runs of one kind counted.
#[derive(Debug, Default)]
struct KillTally {
    kills: usize,
    wedged: usize,
    torn: u64,
}

/// Which process the kill runs kill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Victim {
    Reader,
    Writer,
    /// The control: the same runs and checks, no kill (counts the checker's false wedges).
    Nobody,
}

/// Kill runs: a writer process publishing every [`GAP`] and `readers` reader processes;
/// SIGKILL at random moments (a random reader, replaced at once, or the writer, replaced
/// by a new writer attaching to the region); after each kill, a run whose writer or live
/// readers all stop for [`WEDGE`] is wedged and ends.
fn kill_runs(
    region_map: &Mapping,
    board_map: &Mapping,
    readers: usize,
    victim: Victim,
    t: Timing,
    rng: &mut SplitMix64,
) -> Result<KillTally, String> {
    let board = board_map.atomics();
    let mut tally = KillTally::default();
    let kills = match victim {
        Victim::Reader | Victim::Nobody => t.kills_per_run,
        Victim::Writer => 1,
    };
    for _ in 0..t.kill_runs {
        reset(board);
        // Slots for every reader a run may start, so that this counts the lock's wedges, not
        // slot exhaustion (a dead reader's slot is reclaimed only when someone waits on it).
        let layout = ShmWriter::layout(readers + kills, 1 << 16);
        let region = Region::format(region_map.bytes(), layout)
            .map_err(|e| e.to_string())?
            .with_liveness(liveness());
        let (store, p0) = fixture()?;
        ShmWriter::new()
            .publish(&region, &store)
            .map_err(|e| e.to_string())?;
        let spawn_writer = |first: u64| {
            let (mut store, mut p0) = (store.clone(), p0.clone());
            fork(move || {
                let Ok(region) =
                    Region::attach(region_map.bytes()).map(|r| r.with_liveness(liveness()))
                else {
                    return 20;
                };
                match writer_loop(&region, board, &mut store, &mut p0, first) {
                    Ok(()) => 0,
                    Err(_) => 21,
                }
            })
        };
        let mut writer = spawn_writer(0)?;
        let mut live: Vec<(usize, libc::pid_t)> = Vec::new();
        for me in 0..readers {
            live.push((me, fork(|| reader(region_map, board, me, true))?));
        }
        let mut next = readers;
        let mut wedged = !moving(board, &live.iter().map(|l| l.0).collect::<Vec<_>>());
        for k in 0..kills {
            if wedged {
                break;
            }
            thread::sleep(Duration::from_micros(500 + rng.below(5_000)));
            match victim {
                Victim::Reader => {
                    let i = rng.below(live.len() as u64) as usize;
                    kill(live[i].1);
                    live[i] = (next, fork(|| reader(region_map, board, next, true))?);
                    next += 1;
                }
                Victim::Writer => {
                    kill(writer);
                    writer = spawn_writer(1_000_000 * (k as u64 + 1))?;
                }
                Victim::Nobody => {}
            }
            tally.kills += usize::from(victim != Victim::Nobody);
            wedged = !moving(board, &live.iter().map(|l| l.0).collect::<Vec<_>>());
        }
        tally.wedged += usize::from(wedged);
        board[B_PHASE].store(STOP, Ordering::Relaxed);
        for pid in live.iter().map(|l| l.1).chain([writer]) {
            reap(pid, if wedged { Duration::ZERO } else { WEDGE });
        }
        tally.torn += board[B_TORN].load(Ordering::Relaxed);
    }
    Ok(tally)
}

/// Reader counts: 1, 2, the cores, twice the cores (oversubscribed), without repeats.
fn reader_counts() -> Vec<usize> {
    let cores = thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let mut v = vec![1, 2, cores, 2 * cores];
    v.retain(|&n| n <= MAX_READERS / 2);
    v.dedup();
    v.sort_unstable();
    v.dedup();
    v
}

fn row(t: &mut Table, store: &str, readers: usize, bytes: usize, r: &Row) {
    t.push(vec![
        Cell::text(store),
        Cell::count(readers),
        Cell::count(bytes),
        Cell::count(r.p50),
        Cell::count(r.p99),
        Cell::count(r.wait_p99),
        Cell::count(0u32),
        Cell::count(r.wedged),
        Cell::count(r.torn),
    ]);
}

impl Experiment for PmixShm {
    fn name(&self) -> &'static str {
        "pmix-shm"
    }

    fn description(&self) -> &'static str {
        "the node store in shared memory: get latency from reader processes, reader scaling and the writer's p99 wait (publishing every 200 us), SIGKILL runs; the in-process store as baseline"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let t = match ctx.scale {
            Scale::Small => Timing {
                warm_up: Duration::from_millis(50),
                measure: Duration::from_millis(200),
                kill_runs: 10,
                kills_per_run: 4,
            },
            Scale::Paper => Timing {
                warm_up: Duration::from_millis(200),
                measure: Duration::from_secs(1),
                kill_runs: 100,
                kills_per_run: 8,
            },
        };
        let load = std::fs::read_to_string("/proc/loadavg").ok();
        let region_len = ShmWriter::layout(MAX_READERS, 1 << 16)
            .region_len()
            .ok_or("region layout overflows")?;
        let region_map = Mapping::new(region_len)?;
        let board_map = Mapping::new(BOARD_WORDS * 8)?;
        let mut table = Table::new(
            "pmix-shm",
            "Shared-memory node store across processes vs the in-process store",
            SHM_HEADER,
        );
        let counts = reader_counts();
        for &n in &counts {
            ctx.progress(&format!("pmix-shm: {n} reader process(es)"));
            let r = shm_run(&region_map, &board_map, n, true, t)?;
            row(&mut table, "shm", n, 8, &r);
        }
        let r = shm_run(&region_map, &board_map, 1, false, t)?;
        row(&mut table, "shm", 1, BLOB_BYTES, &r);
        for &n in &counts {
            ctx.progress(&format!("pmix-shm: in-process, {n} reader thread(s)"));
            let r = in_process_run(n, true, t)?;
            row(&mut table, "in-process", n, 8, &r);
        }
        let r = in_process_run(1, false, t)?;
        row(&mut table, "in-process", 1, BLOB_BYTES, &r);
        let mut rng = SplitMix64::new(0x5EED_0018);
        let kill_readers = 2;
        for (name, victim) in [
            ("shm-kill-none", Victim::Nobody),
            ("shm-kill-reader", Victim::Reader),
            ("shm-kill-writer", Victim::Writer),
        ] {
            ctx.progress(&format!("pmix-shm: {} kill runs ({name})", t.kill_runs));
            let k = kill_runs(&region_map, &board_map, kill_readers, victim, t, &mut rng)?;
            table.push(vec![
                Cell::text(name),
                Cell::count(kill_readers),
                Cell::count(8u32),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                Cell::count(k.kills),
                Cell::count(k.wedged),
                Cell::count(k.torn),
            ]);
        }
        table.note(format!(
            "get_ns: the mean of a batch of {BATCH} gets (a clock read costs about a get), p50 and p99 over every batch of every reader; shm readers are processes forked from this one reading a {RANKS}-rank job's U64s with ShmReader::get_fixed (value_bytes 8) or a {BLOB_BYTES}-byte value with get_bytes_into, through the region's 2N-lock, while this process commits and publishes every 200 us; in-process readers are threads calling Client::get_with (refresh_cache) through the crate's TwoNLock<NodeStore>."
        ));
        table.note(format!(
            "writer_p99_wait_ns: from the publish call to holding the write lock (in-process: to holding the TwoNLock's write guard). torn: reads of the self-checking value that were not one publish's whole value (every round of every reader checks one). Kill runs: {} runs per row, a writer process and {kill_readers} readers, SIGKILL at random moments 0.5-5.5 ms apart ({} kills per reader run, a new reader or a new writer attaching after each); wedged counts runs where the writer or a live reader made no progress for {} ms after a kill; shm-kill-none runs the same schedule and checks without killing (the checker's false wedges).",
            t.kill_runs,
            t.kills_per_run,
            WEDGE.as_millis()
        ));
        table.note(
            "Target: a hit on a fixed-size value from another process in at most 100 ns. Every process attaches with a liveness check (kill(pid, 0)): a waiter that finds a dead reader's slot or a dead writer's lock takes it over (the region's recovery), and the kill rows measure whether anything still wedges or tears.",
        );
        if let Some(load) = load {
            table.note(format!(
                "load average before the run: {}",
                load.split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        Ok(vec![table])
    }
}
