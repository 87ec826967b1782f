//! Readers and writers killed with `SIGKILL` at random points: nothing lost, torn or wedged.
//!
//! The coordinator (this process, single-threaded: no harness) formats one region in a
//! shared anonymous mapping and forks a writer process and reader processes. The writer sets
//! every data word to the next value (spinning between words, so that kills land mid-write)
//! and, after each write returns, records the value in a control block outside the region.
//! Readers check every read: all words equal (not torn), never going back, generation even.
//! At random moments (a fixed seed; `PMIX_KILL_EVENTS` sets how many, 40 by default) the
//! coordinator kills a random reader, the writer, or both, reaps them, forks replacements,
//! and then requires progress (a new write and a new read) within a deadline, or counts a
//! wedge. Each new writer checks that its first write starts from the last value a write
//! returned (or the one after, if the dead writer died between publishing and recording): a
//! published write is never lost and a half write never shows. At the end every process must
//! exit when asked, `reclaim` frees the dead owners' slots, and the counts are printed.
//!
//! The liveness check is the embedder's: here the `futex` feature's `PidLiveness`
//! (`kill(pid, 0)`), with the coordinator reaping each killed child at once (a zombie still
//! answers `kill`). Run with `cargo test -p pmix-kvs --features futex --test region_kill`.
#![allow(unsafe_code)]

mod common;

#[cfg(all(target_os = "linux", feature = "futex"))]
mod linux {
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use fabric_model::rng::SplitMix64;
    use pmix_kvs::region::{PidLiveness, Region, RegionLayout, RegionLiveness, RegionWait};

    use crate::common::{exited_ok, fork, kill_and_reap, map_anonymous, shared_zeroed, try_wait};

    const READERS: usize = 3;
    const SLOTS: usize = READERS + 1;
    const WORDS: usize = 16;
    /// How long progress may take after a kill before it counts as a wedge.
    const DEADLINE: Duration = Duration::from_secs(5);

    /// The control block, in a second shared mapping (outside the region).
    #[repr(C)]
    struct Ctl {
        stop: AtomicU32,
        /// The value of the last write that returned.
        last_done: AtomicU64,
        writes: AtomicU64,
        reads: AtomicU64,
        torn: AtomicU64,
        backwards: AtomicU64,
        odd: AtomicU64,
        lost: AtomicU64,
        /// 1 while the writer is inside its write's closure.
        in_write: AtomicU32,
    }

    fn me() -> RegionLiveness {
        PidLiveness::this_process()
    }

    struct Shm {
        base: *mut u8,
        len: usize,
        ctl: &'static Ctl,
    }

    impl Shm {
        /// The region's bytes. Each process makes one slice and keeps it.
        #[allow(clippy::mut_from_ref)]
        fn bytes(&self) -> &mut [u8] {
            // SAFETY: the mapping is `len` bytes, page-aligned and mapped for the process's
            // life; each process makes this slice once and reaches the bytes only through
            // `Region` (the module's safety contract).
            unsafe { std::slice::from_raw_parts_mut(self.base, self.len) }
        }

        fn ctl(&self) -> &Ctl {
            self.ctl
        }
    }

    fn writer(shm: &Shm) -> i32 {
        let Ok(region) = Region::attach(shm.bytes()) else {
            return 10;
        };
        let region = region
            .with_liveness(me())
            .with_wait(RegionWait::default().with_spins(16));
        let ctl = shm.ctl();
        let mut first = true;
        while ctl.stop.load(Ordering::Acquire) == 0 {
            let done = ctl.last_done.load(Ordering::Acquire);
            let (now, whole) = region
                .write(|w| {
                    ctl.in_write.store(1, Ordering::Release);
                    let now = w.get(0).unwrap_or(0);
                    let whole = (0..WORDS).all(|i| w.get(i) == Some(now));
                    for i in 0..WORDS {
                        w.set(i, now + 1);
                        for _ in 0..200 {
                            std::hint::spin_loop();
                        }
                    }
                    ctl.in_write.store(0, Ordering::Release);
                    (now, whole)
                })
                .unwrap();
            if !whole {
                ctl.torn.fetch_add(1, Ordering::Relaxed);
            }
            // The words start from the last write that returned, or (only for a new
            // writer, whose predecessor may have died between publishing and recording)
            // the one after it.
            if now != done && !(first && now == done + 1) {
                ctl.lost.fetch_add(1, Ordering::Relaxed);
            }
            first = false;
            ctl.last_done.store(now + 1, Ordering::Release);
            ctl.writes.fetch_add(1, Ordering::Relaxed);
        }
        0
    }

    fn reader(shm: &Shm) -> i32 {
        let Ok(region) = Region::attach(shm.bytes()) else {
            return 10;
        };
        let region = region
            .with_liveness(me())
            .with_wait(RegionWait::default().with_spins(16));
        let ctl = shm.ctl();
        // A slot frees when a dead owner's is seized or taken over: retry.
        let start = Instant::now();
        let mut me = loop {
            match region.reader() {
                Ok(r) => break r,
                Err(_) if start.elapsed() < DEADLINE => std::thread::yield_now(),
                Err(_) => return 11,
            }
        };
        let mut last = 0;
        while ctl.stop.load(Ordering::Acquire) == 0 {
            let (first, whole, generation) = me
                .read(|w| {
                    let first = w.get(0).unwrap_or(0);
                    let whole = (0..WORDS).all(|i| w.get(i) == Some(first));
                    (first, whole, region.generation())
                })
                .unwrap();
            if !whole {
                ctl.torn.fetch_add(1, Ordering::Relaxed);
            }
            if first < last {
                ctl.backwards.fetch_add(1, Ordering::Relaxed);
            }
            if generation % 2 != 0 {
                ctl.odd.fetch_add(1, Ordering::Relaxed);
            }
            last = first;
            ctl.reads.fetch_add(1, Ordering::Relaxed);
        }
        0
    }

    /// Waits until `f` holds, or the deadline passes: whether it held.
    fn within(f: impl Fn() -> bool) -> bool {
        let start = Instant::now();
        while !f() {
            if start.elapsed() > DEADLINE {
                return false;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        true
    }

    /// Waits for a child to exit by itself; false (and killed) past the deadline.
    fn exits(pid: libc::pid_t) -> bool {
        let start = Instant::now();
        loop {
            let (r, status) = try_wait(pid);
            if r == pid {
                return exited_ok(status);
            }
            if start.elapsed() > DEADLINE {
                kill_and_reap(pid);
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    pub(crate) fn main() {
        let events: u64 = std::env::var("PMIX_KILL_EVENTS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(40);
        let layout = RegionLayout::new(SLOTS, WORDS);
        let len = layout.region_len().expect("small layout");
        let shm = Shm {
            base: map_anonymous(len),
            len,
            // SAFETY: `Ctl` is atomics only (all-zero is valid), reached only atomically.
            ctl: unsafe { shared_zeroed::<Ctl>() },
        };
        let region = Region::format(shm.bytes(), layout)
            .expect("format")
            .with_liveness(me());
        let ctl = shm.ctl();
        let mut rng = SplitMix64::new(0x5eed_0018);
        let mut writer_pid = fork(|| writer(&shm));
        let mut readers: Vec<libc::pid_t> = (0..READERS).map(|_| fork(|| reader(&shm))).collect();
        let (mut reader_kills, mut writer_kills, mut wedged) = (0u64, 0u64, 0u64);
        let mut mid_write = 0u64;
        for _ in 0..events {
            std::thread::sleep(Duration::from_micros(200 + rng.below(2_000)));
            let what = rng.below(3); // 0: a reader, 1: the writer, 2: both
            if what != 1 {
                let k = usize::try_from(rng.below(READERS as u64)).expect("small");
                kill_and_reap(readers[k]);
                reader_kills += 1;
                readers[k] = fork(|| reader(&shm));
            }
            if what != 0 {
                // Half the writer kills aim inside a write (between two of its words).
                if rng.below(2) == 0 {
                    within(|| ctl.in_write.load(Ordering::Acquire) == 1);
                }
                kill_and_reap(writer_pid);
                writer_kills += 1;
                if ctl.in_write.swap(0, Ordering::AcqRel) == 1 {
                    mid_write += 1;
                }
                writer_pid = fork(|| writer(&shm));
            }
            let (w0, r0) = (
                ctl.writes.load(Ordering::Acquire),
                ctl.reads.load(Ordering::Acquire),
            );
            let moved = within(|| {
                ctl.writes.load(Ordering::Acquire) > w0
                    && ctl.reads.load(Ordering::Acquire) > r0 + READERS as u64
            });
            if !moved {
                wedged += 1;
            }
        }
        ctl.stop.store(1, Ordering::Release);
        let mut stuck = 0u64;
        for pid in readers.into_iter().chain([writer_pid]) {
            if !exits(pid) {
                stuck += 1;
            }
        }
        // Every survivor gave its slot back; the slots of the killed are freed here, if
        // no one seized or took them over already.
        let freed = region.reclaim().unwrap();
        let free = (0..SLOTS).all(|i| region.slot_owner(i) == Some(0));
        let load = |a: &AtomicU64| a.load(Ordering::Acquire);
        let (torn, backwards, odd, lost) = (
            load(&ctl.torn),
            load(&ctl.backwards),
            load(&ctl.odd),
            load(&ctl.lost),
        );
        println!(
            "region_kill: {events} kill events ({reader_kills} readers, {writer_kills} writers \
             killed, {mid_write} of them mid-write), {} writes, {} reads; torn {torn}, backwards {backwards}, odd {odd}, \
             lost {lost}, wedged {wedged}, stuck at exit {stuck}; reclaim freed {freed}",
            load(&ctl.writes),
            load(&ctl.reads),
        );
        assert_eq!(
            (torn, backwards, odd, lost, wedged, stuck),
            (0, 0, 0, 0, 0, 0),
            "torn, backwards, odd, lost, wedged, stuck"
        );
        assert!(free, "a slot is still claimed after every process left");
        assert_eq!(region.generation() % 2, 0);
        assert!(reader_kills > 0 && mid_write > 0);
    }
}

#[cfg(all(target_os = "linux", feature = "futex"))]
fn main() {
    linux::main();
}

#[cfg(not(all(target_os = "linux", feature = "futex")))]
fn main() {
    println!("region_kill: skipped (its liveness check needs the `futex` feature, on Linux)");
}
