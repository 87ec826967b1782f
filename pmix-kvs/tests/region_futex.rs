//! The region's locks across real processes with the `futex` feature's wait hook (Linux),
//! and with the default spin-then-yield for comparison of behaviour (not of speed):
//!
//! 1. readers never block each other: reader process A stays inside one read until reader
//!    process B has completed many reads (bounded by a deadline), so B read while A held its
//!    slot's main lock;
//! 2. the writer cannot starve: reader processes loop on reads as fast as they can while the
//!    writer completes all its writes within a deadline; a reader that holds its read for a
//!    while makes the writer sleep on the futex (it marks the reader's flag), and the
//!    reader's unlock wakes it;
//! 3. every read is whole (all words equal) and never goes back, and no write publishes
//!    while a reader is inside a read (the generation A sees at the start of a 200 µs read
//!    is the one it sees at its end: exclusion itself, which the double-buffered data alone
//!    would hide).
//!
//! A plain `main` (no harness): the process is single-threaded when it forks. Run with
//! `cargo test -p pmix-kvs --features futex --test region_futex`.
#![allow(unsafe_code)]

mod common;

#[cfg(all(target_os = "linux", feature = "futex"))]
mod linux {
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use pmix_kvs::region::{Region, RegionLayout, RegionWait, futex_wait};

    use crate::common::{fork, map_anonymous, reap, shared_zeroed};

    const WORDS: usize = 8;
    const DEADLINE: Duration = Duration::from_secs(10);

    #[repr(C)]
    struct Ctl {
        stop: AtomicU32,
        a_inside: AtomicU32,
        b_reads: AtomicU64,
        bad: AtomicU64,
        ready: AtomicU32,
        /// A's reads after its first.
        a_reads: AtomicU64,
        /// A's reads during which the generation moved.
        overlapped: AtomicU64,
    }

    /// Checks one read: all words equal and not below `last`.
    fn check(words: &[Option<u64>], last: &mut u64, ctl: &Ctl) {
        let first = words[0].unwrap_or(0);
        if words.iter().any(|w| *w != Some(first)) || first < *last {
            ctl.bad.fetch_add(1, Ordering::Relaxed);
        }
        *last = first;
    }

    fn run(wait: RegionWait, name: &str, writes: u64) {
        let layout = RegionLayout::new(3, WORDS);
        let len = layout.region_len().expect("small layout");
        let base = map_anonymous(len);
        // SAFETY: `Ctl` is atomics only (all-zero is valid), reached only atomically.
        let ctl = unsafe { shared_zeroed::<Ctl>() };
        // SAFETY: the mapping is `len` bytes, page-aligned, mapped for the process's life and
        // reached only through `Region` (the module's safety contract); each process makes
        // this slice once.
        let bytes = || unsafe { std::slice::from_raw_parts_mut(base, len) };
        let region = Region::format(bytes(), layout)
            .expect("format")
            .with_wait(wait);
        let read_all = |w: &pmix_kvs::region::Words<'_, '_>| -> Vec<Option<u64>> {
            (0..WORDS).map(|i| w.get(i)).collect()
        };
        // A: enters one read and stays until B has read 1000 times, then reads in a loop,
        // holding each read for 200 µs (the writer sleeps meanwhile).
        let a = fork(|| {
            let Ok(r) = Region::attach(bytes()) else {
                return 10;
            };
            let r = r.with_wait(wait);
            let Ok(mut me) = r.reader() else { return 11 };
            let mut last = 0;
            let start = Instant::now();
            let waited = me
                .read(|w| {
                    ctl.a_inside.store(1, Ordering::Release);
                    while ctl.b_reads.load(Ordering::Acquire) < 1000 {
                        if start.elapsed() > DEADLINE {
                            return false;
                        }
                        std::thread::yield_now();
                    }
                    check(&read_all(w), &mut last, ctl);
                    true
                })
                .unwrap();
            if !waited {
                return 1;
            }
            ctl.ready.fetch_add(1, Ordering::AcqRel);
            while ctl.stop.load(Ordering::Acquire) == 0 {
                me.read(|w| {
                    let before = r.generation();
                    check(&read_all(w), &mut last, ctl);
                    std::thread::sleep(Duration::from_micros(200));
                    // No write may publish while a reader holds its main lock.
                    if r.generation() != before {
                        ctl.overlapped.fetch_add(1, Ordering::Relaxed);
                    }
                })
                .unwrap();
                ctl.a_reads.fetch_add(1, Ordering::AcqRel);
            }
            0
        });
        // B: reads as fast as it can (counting the reads made while A is inside).
        let b = fork(|| {
            let Ok(r) = Region::attach(bytes()) else {
                return 10;
            };
            let r = r.with_wait(wait);
            let Ok(mut me) = r.reader() else { return 11 };
            let mut last = 0;
            while ctl.a_inside.load(Ordering::Acquire) == 0 {
                std::thread::yield_now();
            }
            let mut counted = false;
            while ctl.stop.load(Ordering::Acquire) == 0 {
                let words = me.read(read_all).unwrap();
                check(&words, &mut last, ctl);
                ctl.b_reads.fetch_add(1, Ordering::AcqRel);
                if !counted && ctl.b_reads.load(Ordering::Acquire) >= 1000 {
                    ctl.ready.fetch_add(1, Ordering::AcqRel);
                    counted = true;
                }
            }
            0
        });
        // The writer: once both readers loop, `writes` writes within the deadline.
        let start = Instant::now();
        while ctl.ready.load(Ordering::Acquire) < 2 && start.elapsed() < DEADLINE {
            std::thread::sleep(Duration::from_millis(1));
        }
        let readers_ran_side_by_side = ctl.ready.load(Ordering::Acquire) == 2;
        let a_before = ctl.a_reads.load(Ordering::Acquire);
        let start = Instant::now();
        for k in 1..=writes {
            region
                .write(|w| {
                    for i in 0..WORDS {
                        w.set(i, k);
                    }
                })
                .unwrap();
        }
        let took = start.elapsed();
        let a_during = ctl.a_reads.load(Ordering::Acquire) - a_before;
        ctl.stop.store(1, Ordering::Release);
        let (a_ok, b_ok) = (reap(a), reap(b));
        let bad = ctl.bad.load(Ordering::Acquire);
        println!(
            "region_futex ({name}): B read {} times while A held a read; {writes} writes in \
             {took:?} beside looping readers (A read {a_during} times meanwhile); bad reads {bad}, writes inside a read {}",
            ctl.b_reads.load(Ordering::Acquire),
            ctl.overlapped.load(Ordering::Acquire),
        );
        assert!(
            readers_ran_side_by_side,
            "reader B could not read while A held its read"
        );
        assert!(a_ok && b_ok, "a reader process failed");
        assert_eq!(bad, 0, "torn or backward reads");
        assert_eq!(
            ctl.overlapped.load(Ordering::Acquire),
            0,
            "a write published while a reader held its read"
        );
        assert!(took < DEADLINE, "the writer starved");
        assert_eq!(region.generation(), 2 * writes);
    }

    pub(crate) fn main() {
        run(futex_wait(), "futex", 200);
        // Yielding waiters give their time slice to whatever else runs (on a loaded
        // machine, milliseconds a write): fewer writes keep the test short.
        run(RegionWait::default(), "spin then yield", 20);
    }
}

#[cfg(all(target_os = "linux", feature = "futex"))]
fn main() {
    linux::main();
}

#[cfg(not(all(target_os = "linux", feature = "futex")))]
fn main() {}
