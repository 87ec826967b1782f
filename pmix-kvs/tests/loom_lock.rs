//! Loom model check of the 2N-lock: every interleaving (up to a preemption bound) of readers
//! and a writer keeps readers from seeing a half-done write, and loom's tracked cell reports
//! any read overlapping the write.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p pmix-kvs --release --test loom_lock`.
//! Each test runs under the default wait strategy (spin then yield) and the parking ones
//! under `WaitStrategy::Park`, whose sleep and wake-up are loom's mutex and condition variable.
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use pmix_kvs::Error;
use pmix_kvs::lock::{TwoNLock, WaitStrategy};

fn model(bound: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(bound);
    // Spin locks take many branches while a holder is preempted.
    b.max_branches = 100_000;
    b.check(f);
}

#[test]
fn one_reader_one_writer() {
    one_reader_one_writer_with(WaitStrategy::default());
}

/// Parking: a waiter sleeps on the condition variable at once (no spin), so every
/// interleaving of its count-and-recheck with the holder's store-and-check is explored; a
/// lost wake-up shows as a deadlock.
#[test]
fn one_reader_one_writer_parking() {
    one_reader_one_writer_with(WaitStrategy::Park { spins: 0 });
}

/// Parking after one spin: the spin-then-sleep path.
#[test]
fn one_reader_one_writer_spin_then_park() {
    one_reader_one_writer_with(WaitStrategy::Park { spins: 1 });
}

#[test]
fn two_writers_serialise_parking() {
    model(2, || {
        let wait = WaitStrategy::Park { spins: 0 };
        let lock = Arc::new(TwoNLock::with_wait(0u32, 1, wait).unwrap());
        let l = lock.clone();
        let w = thread::spawn(move || *l.write() += 1);
        *lock.write() += 1;
        w.join().unwrap();
        let mut slot = lock.reader().unwrap();
        assert_eq!(*slot.read(), 2);
    });
}

fn one_reader_one_writer_with(wait: WaitStrategy) {
    model(2, move || {
        let lock = Arc::new(TwoNLock::with_wait((0u32, 0u32), 1, wait).unwrap());
        let l = lock.clone();
        let w = thread::spawn(move || {
            let mut g = l.write();
            g.0 += 1;
            g.1 += 1;
        });
        {
            let mut slot = lock.reader().unwrap();
            let g = slot.read();
            assert_eq!(g.0, g.1);
        }
        w.join().unwrap();
        let mut slot = lock.reader().unwrap();
        assert_eq!(*slot.read(), (1, 1));
    });
}

#[test]
fn two_readers_one_writer() {
    two_readers_one_writer_with(WaitStrategy::default());
}

#[test]
fn two_readers_one_writer_parking() {
    two_readers_one_writer_with(WaitStrategy::Park { spins: 0 });
}

fn two_readers_one_writer_with(wait: WaitStrategy) {
    // Three threads of spin locks: one preemption keeps the search to seconds.
    model(1, move || {
        let lock = Arc::new(TwoNLock::with_wait((0u32, 0u32), 2, wait).unwrap());
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let l = lock.clone();
                thread::spawn(move || {
                    let mut slot = l.reader().unwrap();
                    let g = slot.read();
                    assert_eq!(g.0, g.1);
                })
            })
            .collect();
        {
            let mut g = lock.write();
            g.0 += 1;
            g.1 += 1;
        }
        for r in readers {
            r.join().unwrap();
        }
    });
}

#[test]
fn two_writers_serialise() {
    model(2, || {
        let lock = Arc::new(TwoNLock::new(0u32, 2).unwrap());
        let l = lock.clone();
        let w = thread::spawn(move || *l.write() += 1);
        *lock.write() += 1;
        w.join().unwrap();
        let mut slot = lock.reader().unwrap();
        assert_eq!(*slot.read(), 2);
    });
}

#[test]
fn slot_claims_race() {
    model(2, || {
        let lock = Arc::new(TwoNLock::new(0u32, 1).unwrap());
        let l = lock.clone();
        let t = thread::spawn(move || l.reader().map(|s| s.index()).is_ok());
        let mine = lock.reader().map(|s| s.index());
        let theirs = t.join().unwrap();
        match &mine {
            Ok(i) => assert_eq!(*i, 0),
            Err(e) => assert_eq!(*e, Error::NoFreeSlot { slots: 1 }),
        }
        assert!(mine.is_ok() || theirs, "someone got the slot");
        // Both handles are dropped: the slot is free again.
        assert!(lock.reader().is_ok());
    });
}
