use super::*;
use std::sync::atomic::AtomicUsize;
use std::thread;

const STRATEGIES: [WaitStrategy; 4] = [
    WaitStrategy::Spin,
    WaitStrategy::SpinThenYield { spins: 64 },
    WaitStrategy::Park { spins: 16 },
    WaitStrategy::Park { spins: 0 },
];

#[test]
fn slots_are_claimed_and_reclaimed() {
    let lock = TwoNLock::new(0u32, 2).unwrap();
    let a = lock.reader().unwrap();
    let b = lock.reader().unwrap();
    assert_ne!(a.index(), b.index());
    assert_eq!(lock.reader().unwrap_err(), Error::NoFreeSlot { slots: 2 });
    let freed = a.index();
    drop(a);
    let c = lock.reader().unwrap();
    assert_eq!(c.index(), freed, "a released slot is claimed again");
    drop((b, c));
    assert_eq!(TwoNLock::new((), 0).unwrap_err(), Error::NoSlots);
    assert_eq!(RawTwoNLock::new(0).unwrap_err(), Error::NoSlots);
}

#[test]
fn reads_and_writes() {
    let lock = TwoNLock::new(vec![1, 2], 1).unwrap();
    {
        let mut w = lock.write();
        w.push(3);
    }
    let mut r = lock.reader().unwrap();
    assert_eq!(*r.read(), vec![1, 2, 3]);
    assert_eq!(r.try_read().map(|g| g.len()), Some(3));
    drop(r);
    assert_eq!(lock.into_inner(), vec![1, 2, 3]);
}

#[test]
fn a_waiting_writer_stops_new_readers_and_gets_in() {
    for wait in STRATEGIES {
        a_waiting_writer_stops_new_readers_and_gets_in_with(wait);
    }
}

fn a_waiting_writer_stops_new_readers_and_gets_in_with(wait: WaitStrategy) {
    // Reader 0 is inside; a writer arrives and takes every signal lock, then waits for
    // main[0]. Reader 1 cannot enter now (step 1 stops it): writers do not starve.
    let lock = TwoNLock::with_wait(0u64, 2, wait).unwrap();
    assert_eq!(lock.raw().wait_strategy(), wait);
    let mut r0 = lock.reader().unwrap();
    let mut r1 = lock.reader().unwrap();
    let inside = r0.read();
    thread::scope(|s| {
        let w = s.spawn(|| {
            *lock.write() += 1;
        });
        while !lock.raw().is_signalled(r1.index()) {
            thread::yield_now();
        }
        assert!(
            r1.try_read().is_none(),
            "a new reader waits behind the writer"
        );
        assert_eq!(*inside, 0);
        drop(inside);
        w.join().unwrap();
    });
    assert_eq!(*r1.read(), 1);
    assert_eq!(*r0.read(), 1);
}

#[test]
fn readers_never_see_a_half_write_and_the_writer_finishes() {
    for wait in STRATEGIES {
        readers_and_writers_with(wait, 2, 1, 50);
    }
}

#[test]
fn more_threads_than_cores_finish_with_every_strategy() {
    // Oversubscribed: more readers and writers than cores, so holders get preempted and
    // parked waiters must be woken by the unlocks (a lost wake-up hangs this test).
    let cores = thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    // Pure spinning is left out: it is correct here too, but a spinning waiter holds the
    // core its holder needs, and the run takes seconds (that cost is what `reproduce
    // pmix-lock` measures, not a unit test's business).
    for wait in &STRATEGIES[1..] {
        readers_and_writers_with(*wait, cores * 2, 2, 10);
    }
}

/// `readers` reader threads read until `writers` writer threads made `writes` writes each.
fn readers_and_writers_with(wait: WaitStrategy, readers: usize, writers: u64, writes: u64) {
    let lock = TwoNLock::with_wait((0u64, 0u64), readers, wait).unwrap();
    let done = AtomicUsize::new(0);
    let writers_left = AtomicUsize::new(writers as usize);
    thread::scope(|s| {
        for _ in 0..readers {
            s.spawn(|| {
                let mut slot = lock.reader().unwrap();
                let mut reads = 0u64;
                // Readers keep reading until the writer is done: it must not starve.
                while done.load(Ordering::Acquire) == 0 || reads == 0 {
                    let g = slot.read();
                    assert_eq!(g.0, g.1);
                    reads += 1;
                }
            });
        }
        let (lock, done, writers_left) = (&lock, &done, &writers_left);
        for _ in 0..writers {
            s.spawn(move || {
                for _ in 0..writes {
                    let mut g = lock.write();
                    g.0 += 1;
                    g.1 += 1;
                }
                if writers_left.fetch_sub(1, Ordering::AcqRel) == 1 {
                    done.store(1, Ordering::Release);
                }
            });
        }
    });
    assert_eq!(lock.into_inner(), (writes * writers, writes * writers));
}

#[test]
fn lock_is_send_and_sync_and_guards_debug() {
    fn send_sync<X: Send + Sync>() {}
    send_sync::<TwoNLock<Vec<u8>>>();
    let lock = TwoNLock::new(1, 1).unwrap();
    let mut r = lock.reader().unwrap();
    assert!(format!("{:?}", r.read()).contains("slot"));
    drop(r);
    assert!(format!("{:?}", lock.write()).contains("WriteGuard"));
    assert!(format!("{lock:?}").contains("slots: 1"));
}
