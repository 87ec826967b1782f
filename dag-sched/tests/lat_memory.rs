//! Algorithm 1 in memory linear in the DAG: the peak heap of `lat::estimate` on a wide fan-in
//! and on a long chain, measured by a counting allocator (this file's one test, so that no
//! other test allocates meanwhile).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, Ordering};

use dag_sched::{Cluster, JobBuilder, LatMethod, MachineId, lat};
use fabric_model::BitsPerSec;

struct Counting;

/// Bytes live (allocated less freed on the measuring thread) and their peak.
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    /// Only the measuring thread counts (the test harness allocates on its own threads).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note(delta: isize) {
    if COUNTING.with(Cell::get) {
        let now = LIVE.fetch_add(delta, Ordering::Relaxed) + delta;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

#[expect(
    unsafe_code,
    reason = "a counting allocator must implement GlobalAlloc"
)]
// SAFETY: forwards every call to the system allocator unchanged; only counts sizes (the
// default `realloc` goes through `alloc` and `dealloc`, so it is counted too).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize);
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as isize));
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak heap growth (bytes) of this thread while `f` runs.
fn peak_of(f: impl FnOnce()) -> isize {
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    PEAK.load(Ordering::Relaxed)
}

#[test]
fn algorithm1_needs_memory_linear_in_the_dag() {
    // Regression: the pred sets were stored, O(T²) pairs: 4,000 transfers into one task
    // took 4,000²/2 pairs of 16 bytes (about 128 MB); a chain of 2,000 transfers through
    // compute about 32 MB.
    let cluster = Cluster::uniform(2, BitsPerSec::new(1000)).unwrap();
    let mut b = JobBuilder::new();
    let sink = b.compute_secs(1.0);
    for k in 0..4000 {
        let t = b.transfer_bits(1.0 + k as f64, MachineId::new(0), MachineId::new(1));
        b.edge(t, sink);
    }
    let fan_in = b.build(&cluster).unwrap();
    let mut b = JobBuilder::new();
    let mut prev = b.compute_secs(0.5);
    for _ in 0..2000 {
        let t = b.transfer_bits(10.0, MachineId::new(0), MachineId::new(1));
        let c = b.compute_secs(0.5);
        b.edge(prev, t).edge(t, c);
        prev = c;
    }
    let chain = b.build(&cluster).unwrap();
    for (name, job) in [("fan-in", &fan_in), ("chain", &chain)] {
        let mut lats = None;
        let peak = peak_of(|| lats = Some(lat::estimate(job, &cluster, LatMethod::Algorithm1)));
        let lats = lats.unwrap();
        assert!(job.transfers().iter().all(|&t| lats.lat(t).is_some()));
        // A few vectors of V entries of at most 16 bytes each (and the result).
        let bound = 256 * job.len() as isize + 4096;
        assert!(peak < bound, "{name}: {peak} bytes at peak, bound {bound}");
    }
    // The chain's last transfer waits for every transfer and compute task before it.
    let lats = lat::estimate(&chain, &cluster, LatMethod::Algorithm1);
    let last = *chain.transfers().last().unwrap();
    assert!(lats.lat(last).unwrap() > 2000.0 * 0.5);
}
