//! Loom model check of the 2N-lock: every interleaving (up to a preemption bound) of readers
//! and a writer keeps readers from seeing a half-done write, and loom's tracked cell reports
//! any read overlapping the write. The second half checks the in-region lock
//! (`pmix_kvs::region`), dead readers and writers included.
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

// The in-region 2N-lock (`pmix_kvs::region`): the same protocol code over loom's atomics in
// a heap stand-in for the region (`region::loom_model`), threads standing in for processes
// and a "dead" mask for the embedder's liveness check. Each model checks that readers see
// whole writes only (both words equal) and that nobody wedges (loom fails a model whose
// threads never finish within its branch bound).

use pmix_kvs::region::loom_model::Model;

/// One reader, one writer of two writes: the reader sees (0, 0), (1, 1) or (2, 2), never
/// half of a write. Two writes, because the second one fills the copy that a reader of the
/// first generation may still be reading: only the lock keeps them apart.
#[test]
fn region_one_reader_one_writer() {
    model(2, || {
        let m = Arc::new(Model::new(1, 2));
        let w = m.clone();
        let t = thread::spawn(move || {
            let writer = w.party(2);
            writer.write(1);
            writer.write(2);
        });
        let me = m.party(1);
        let slot = me.claim().unwrap();
        let seen = me.read(slot);
        assert!(seen[0] == seen[1], "torn: {seen:?}");
        t.join().unwrap();
        assert_eq!(me.read(slot), [2, 2]);
        assert_eq!(m.generation(), 4);
    });
}

/// Two writers (a server and its successor) serialise on the writers' lock.
#[test]
fn region_two_writers_serialise() {
    model(2, || {
        let m = Arc::new(Model::new(1, 1));
        let w = m.clone();
        let t = thread::spawn(move || w.party(2).write(7));
        m.party(3).write(9);
        t.join().unwrap();
        assert_eq!(m.generation(), 4);
    });
}

/// A reader that dies inside its read: the writer seizes its slot and finishes; a reader
/// that comes later gets a slot and sees the write.
#[test]
fn region_dead_reader_is_seized() {
    model(2, || {
        let m = Arc::new(Model::new(1, 2));
        let d = m.clone();
        let t = thread::spawn(move || {
            let dead = d.party(1);
            let slot = dead.claim().unwrap();
            dead.die_reading(slot);
        });
        m.party(2).write(1);
        t.join().unwrap();
        let late = m.party(3);
        let slot = late
            .claim()
            .expect("the dead reader's slot was freed or taken over");
        assert_eq!(late.read(slot), [1, 1]);
    });
}

/// A writer that dies mid-write (generation odd, one of two words written): a reader waiting
/// on it recovers by itself and sees the previous write whole; a second writer then
/// publishes its own.
#[test]
fn region_dead_writer_is_rolled_back() {
    model(1, || {
        let m = Arc::new(Model::new(1, 2));
        m.party(2).write(1);
        let d = m.clone();
        let t = thread::spawn(move || d.party(3).die_writing(2, 1));
        let me = m.party(1);
        let slot = me.claim().unwrap();
        let seen = me.read(slot);
        assert_eq!(seen, [1, 1], "a dead writer's half write leaked");
        t.join().unwrap();
        m.party(4).write(5);
        assert_eq!(me.read(slot), [5, 5]);
    });
}

/// Slot claims and a takeover race: with one slot held by a dead reader, two new readers
/// race for it; exactly one gets it.
#[test]
fn region_takeover_race() {
    model(2, || {
        let m = Arc::new(Model::new(1, 1));
        let dead = m.party(1);
        let slot = dead.claim().unwrap();
        dead.die_reading(slot);
        let o = m.clone();
        let t = thread::spawn(move || o.party(2).claim().is_some());
        let mine = m.party(3).claim().is_some();
        let theirs = t.join().unwrap();
        assert!(
            mine ^ theirs,
            "one and only one takes the dead reader's slot"
        );
    });
}

/// Two readers (two processes) and a writer of two writes: each reader sees a whole write.
#[test]
fn region_two_readers_one_writer() {
    model(1, || {
        let m = Arc::new(Model::new(2, 2));
        let readers: Vec<_> = (1..=2)
            .map(|token| {
                let r = m.clone();
                thread::spawn(move || {
                    let me = r.party(token);
                    let slot = me.claim().unwrap();
                    let seen = me.read(slot);
                    assert!(seen[0] == seen[1], "torn: {seen:?}");
                    me.release(slot);
                })
            })
            .collect();
        let writer = m.party(3);
        writer.write(1);
        writer.write(2);
        for r in readers {
            r.join().unwrap();
        }
        assert_eq!(m.generation(), 4);
    });
}

/// A reader flag left set with no owner (its slot's claim free), as corrupt memory would:
/// a writer recovers it while a new reader may claim the slot at the same time; the reader
/// sees whole writes, nobody wedges, and every flag is clear at the end.
#[test]
fn region_orphaned_reader_flag() {
    model(2, || {
        let m = Arc::new(Model::new(1, 2));
        m.set_flag(0, true, false, 1);
        let w = m.clone();
        let t = thread::spawn(move || w.party(2).write(1));
        let me = m.party(1);
        // The writer may hold the slot seized while it clears the flag: then no slot.
        if let Some(slot) = me.claim() {
            let seen = me.read(slot);
            assert!(seen[0] == seen[1], "torn: {seen:?}");
            me.release(slot);
        }
        t.join().unwrap();
        assert!(m.flags_clear());
        let slot = me.claim().expect("the slot is free again");
        assert_eq!(me.read(slot), [1, 1]);
    });
}

/// A writer flag left set with the writers' lock free, as corrupt memory would: a reader
/// waiting on it takes the lock over and clears it while a writer may start at the same
/// time; the reader sees whole writes and nobody wedges.
#[test]
fn region_orphaned_writer_flag() {
    model(2, || {
        let m = Arc::new(Model::new(1, 2));
        m.set_flag(0, false, true, 2);
        let w = m.clone();
        let t = thread::spawn(move || w.party(2).write(1));
        let me = m.party(1);
        let slot = me.claim().unwrap();
        let seen = me.read(slot);
        assert!(seen[0] == seen[1], "torn: {seen:?}");
        t.join().unwrap();
        assert_eq!(me.read(slot), [1, 1]);
        assert!(m.flags_clear());
    });
}

/// The writers' owner word left as the reserved seized token: two writers race to take it
/// over; both finish, one after the other.
#[test]
fn region_seized_writer_owner() {
    model(2, || {
        let m = Arc::new(Model::new(1, 1));
        m.set_writer_owner(u64::MAX);
        let w = m.clone();
        let t = thread::spawn(move || w.party(2).write(7));
        m.party(3).write(9);
        t.join().unwrap();
        assert_eq!(m.generation(), 4);
    });
}
