//! Lock states that no live process holds, impossible lock-word values and bounded waits:
//! each test leaves a formatted region's lock words in one such state, as corrupt memory
//! would, and checks that the next reader or writer recovers (or says precisely why not)
//! within a bounded wait, never waiting for ever.

use super::protocol::{Budget, Lock, READER, SEIZED, Shared, WRITER};
use super::*;

#[repr(C, align(128))]
struct Aligned([u8; 1024]);

fn buf() -> Box<Aligned> {
    Box::new(Aligned([0; 1024]))
}

/// A generous bound, in idle rounds: far more than any recovery needs (it runs at the first
/// idle round), so that a recovery that never happens shows as an error, not a hang.
const BOUND: Patience = Patience::Idles(10_000);

fn flag<'a>(r: &'a Region<'_>, slot: usize, l: Lock, party: usize) -> &'a AtomicU32 {
    r.pair(slot, l).flag[party]
}

fn all_clear(r: &Region<'_>) -> bool {
    (0..r.slots()).all(|i| {
        [Lock::Signal, Lock::Main].iter().all(|&l| {
            r.pair(i, l)
                .flag
                .iter()
                .all(|f| f.load(Ordering::Relaxed) == 0)
        })
    })
}

/// A reader flag set while its slot's claim is free (no owner): the writer seizes the slot,
/// clears the flag and frees the slot again (regression: the writer waited for ever, since
/// takeover ran only for a dead owner's token).
#[test]
fn a_reader_flag_without_an_owner_is_recovered_by_the_writer() {
    for l in [Lock::Signal, Lock::Main] {
        for v in [1, 2] {
            let mut b = buf();
            let r = Region::format(&mut b.0, RegionLayout::new(2, 2)).unwrap();
            flag(&r, 1, l, READER).store(v, Ordering::Relaxed);
            assert_eq!(r.slot_owner(1), Some(protocol::FREE));
            r.write_within(BOUND, |w| w.set(0, 7))
                .unwrap_or_else(|e| panic!("{l:?} flag {v}: {e}"));
            assert!(all_clear(&r), "{l:?} flag {v}");
            assert_eq!(
                r.slot_owner(1),
                Some(protocol::FREE),
                "the slot is free again"
            );
            assert_eq!(r.reader().unwrap().read(|w| w.get(0)).unwrap(), Some(7));
        }
    }
}

/// A slot left seized (the writer role's mark) with its reader flag set while no writer
/// holds the writers' lock: the next writer treats it as its own, clears it and frees it.
#[test]
fn a_seized_slot_without_a_writer_is_recovered() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(2, 2)).unwrap();
    r.claim(0).store(SEIZED, Ordering::Relaxed);
    flag(&r, 0, Lock::Main, READER).store(1, Ordering::Relaxed);
    r.write_within(BOUND, |w| w.set(1, 3)).unwrap();
    assert_eq!(r.slot_owner(0), Some(protocol::FREE));
    assert!(all_clear(&r));
}

/// A writer flag set while the writers' lock is free (or held by the reserved seized token,
/// or by a dead owner): the waiting reader takes the writers' lock over, cleans up and
/// releases it (regression: the reader waited for ever).
#[test]
fn a_writer_flag_without_a_live_writer_is_recovered_by_the_reader() {
    fn dead_beyond_one(token: u64) -> bool {
        token == 1
    }
    for owner in [protocol::FREE, SEIZED, 77] {
        for l in [Lock::Signal, Lock::Main] {
            let mut b = buf();
            let r = Region::format(&mut b.0, RegionLayout::new(1, 2))
                .unwrap()
                .with_liveness(RegionLiveness::new(1, dead_beyond_one).unwrap());
            Shared::writer_owner(&r).store(owner, Ordering::Relaxed);
            flag(&r, 0, l, WRITER).store(2, Ordering::Relaxed);
            let mut rd = r.reader().unwrap();
            rd.read_within(BOUND, |w| w.get(0))
                .unwrap_or_else(|e| panic!("owner {owner}, {l:?}: {e}"));
            assert_eq!(r.writer_owner(), protocol::FREE, "owner {owner}");
            assert!(all_clear(&r), "owner {owner}, {l:?}");
            drop(rd);
            r.write_within(BOUND, |w| w.set(0, 1)).unwrap();
        }
    }
}

/// The writers' owner word left as the reserved seized token: no writer has that token, so
/// the next writer takes the lock over (regression: it waited for ever).
#[test]
fn a_seized_writer_owner_word_is_taken_over() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(1, 2)).unwrap();
    Shared::writer_owner(&r).store(SEIZED, Ordering::Relaxed);
    r.writer_held().store(1, Ordering::Relaxed);
    r.write_within(BOUND, |w| w.set(0, 4)).unwrap();
    assert_eq!(r.writer_owner(), protocol::FREE);
    assert_eq!(r.writer_held().load(Ordering::Relaxed), 0);
}

/// An odd generation at rest (no write underway) is rolled on as a dead writer's unfinished
/// write would be: the generation is even again after the next write, and readers read the
/// words it wrote.
#[test]
fn an_odd_generation_at_rest_is_rolled_on() {
    for buffering in [Buffering::Double, Buffering::Single] {
        let mut b = buf();
        let layout = RegionLayout::new(1, 2).with_buffering(buffering);
        let r = Region::format(&mut b.0, layout).unwrap();
        r.write(|w| w.set(0, 1)).unwrap();
        Shared::generation(&r).store(5, Ordering::Relaxed);
        r.write_within(BOUND, |w| w.set(0, 2)).unwrap();
        assert_eq!(r.generation() % 2, 0, "{buffering:?}");
        assert!(r.generation() > 5);
        assert_eq!(r.reader().unwrap().read(|w| w.get(0)).unwrap(), Some(2));
    }
}

/// Values no party stores, in a lock that a live owner holds, are precise errors, at the
/// first idle round (regression: a flag beyond 2 made the waiter spin for ever without
/// calling its idle hook). The same values with no live owner are recovered.
#[test]
fn impossible_values_held_by_a_live_owner_are_errors() {
    let reader_main = HEADER + SLOT_MAIN;
    // A reader flag of 3 in a slot a live process (token 9) has claimed.
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(1, 2)).unwrap();
    r.claim(0).store(9, Ordering::Relaxed);
    flag(&r, 0, Lock::Main, READER).store(3, Ordering::Relaxed);
    let e = r.write_within(BOUND, |w| w.set(0, 1)).unwrap_err();
    assert_eq!(
        e,
        Error::CorruptLock {
            offset: reader_main,
            what: "a reader's flag of a slot's main lock",
            value: 3
        }
    );
    assert_eq!(e.status(), crate::status::ERROR);
    assert_eq!(
        r.writer_owner(),
        protocol::FREE,
        "the writer gave everything back"
    );
    assert_eq!(flag(&r, 0, Lock::Signal, WRITER).load(Ordering::Relaxed), 0);
    // The same flag with the claim free: recovered.
    r.claim(0).store(protocol::FREE, Ordering::Relaxed);
    r.write_within(BOUND, |w| w.set(0, 1)).unwrap();
    // The writers' sleep word beyond 2 while a live writer (token 9) holds the lock.
    Shared::writer_owner(&r).store(9, Ordering::Relaxed);
    r.writer_held().store(7, Ordering::Relaxed);
    assert_eq!(
        r.write_within(BOUND, |w| w.set(0, 1)).unwrap_err(),
        Error::CorruptLock {
            offset: OFF_WRITER_HELD,
            what: "the writers' lock's sleep word",
            value: 7
        }
    );
    // With the owner word free, the next writer takes the lock and resets the word.
    Shared::writer_owner(&r).store(protocol::FREE, Ordering::Relaxed);
    r.write_within(BOUND, |w| w.set(0, 2)).unwrap();
    assert_eq!(r.writer_held().load(Ordering::Relaxed), 0);
    // A turn word beyond 1 at rest is overwritten by the next acquirer.
    r.pair(0, Lock::Signal)
        .turn
        .store(u32::MAX, Ordering::Relaxed);
    r.write_within(BOUND, |w| w.set(0, 3)).unwrap();
    assert_eq!(r.reader().unwrap().read(|w| w.get(0)).unwrap(), Some(3));
}

/// A bounded wait on a lock a live process holds gives up, naming the word and the
/// holder's token, and leaves nothing of its own set; the holder then finishes and the next
/// call succeeds. Each bound: idle rounds, a deadline on the embedder's clock, a try.
#[test]
fn bounded_waits_give_up_naming_the_live_holder() {
    static CLOCK: AtomicU64 = AtomicU64::new(0);
    fn now() -> fabric_model::Nanos {
        // Each look at the clock advances it by 10 ns: a wait sees time pass.
        fabric_model::Nanos::new(CLOCK.fetch_add(10, Ordering::Relaxed))
    }
    fn alive(_: u64) -> bool {
        true
    }
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(2, 2)).unwrap();
    let holder = r
        .clone()
        .with_liveness(RegionLiveness::new(41, alive).unwrap());
    // A live reader inside its read: the writer gives up.
    let slot = protocol::claim_slot(&holder).unwrap();
    protocol::read_lock(&holder, slot, &Budget::forever(4)).unwrap();
    let reader_main = HEADER + slot * SLOT + SLOT_MAIN;
    for (patience, idles) in [
        (Patience::Idles(3), 3),
        (Patience::Try, 0),
        (
            Patience::Until {
                now,
                deadline: fabric_model::Nanos::new(50),
            },
            5,
        ),
    ] {
        CLOCK.store(0, Ordering::Relaxed);
        let e = r.write_within(patience, |w| w.set(0, 1)).unwrap_err();
        let Error::LockWaitGaveUp {
            offset,
            holder: who,
            idles: waited,
            what,
        } = e
        else {
            panic!("{patience:?}: {e}");
        };
        assert_eq!(
            (offset, who, what),
            (reader_main, 41, "a reader's flag of a slot's main lock")
        );
        assert!(waited >= idles, "{patience:?}: waited {waited}");
        assert_eq!(e.status(), crate::status::ERR_TIMEOUT);
        // Nothing of the writer's is left: its flags, the writers' lock.
        assert_eq!(r.writer_owner(), protocol::FREE);
        assert!((0..2).all(|i| {
            [Lock::Signal, Lock::Main]
                .iter()
                .all(|&l| flag(&r, i, l, WRITER).load(Ordering::Relaxed) == 0)
        }));
    }
    protocol::read_unlock(&holder, slot);
    r.try_write(|w| w.set(0, 1)).unwrap();
    // A live writer inside its write: a reader gives up and holds nothing.
    protocol::write_lock(&holder, &Budget::forever(4)).unwrap();
    let mut rd = r.reader().unwrap();
    let e = rd
        .read_within(Patience::Idles(2), |w| w.get(0))
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::LockWaitGaveUp {
                holder: 41,
                idles: 2,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        rd.try_read(|w| w.get(0)).map_err(|e| e.status()),
        Err(crate::status::ERR_TIMEOUT)
    );
    let i = rd.index();
    for l in [Lock::Signal, Lock::Main] {
        assert_eq!(flag(&r, i, l, READER).load(Ordering::Relaxed), 0, "{l:?}");
    }
    protocol::write_unlock(&holder);
    assert_eq!(rd.try_read(|w| w.get(0)).unwrap(), Some(1));
    drop(rd);
    // The handle's patience applies to its plain calls.
    protocol::write_lock(&holder, &Budget::forever(4)).unwrap();
    let patient = r.clone().with_patience(Patience::Idles(1));
    assert!(matches!(
        patient.reader().unwrap().read(|w| w.get(0)),
        Err(Error::LockWaitGaveUp { idles: 1, .. })
    ));
    assert!(matches!(
        patient.reclaim(),
        Err(Error::LockWaitGaveUp { holder: 41, .. })
    ));
    protocol::write_unlock(&holder);
    assert_eq!(patient.reclaim(), Ok(0));
}

/// The idle hook is called at every idle round of a wait that has to wait, including the
/// rounds before a recovery and before giving up.
#[test]
fn every_idle_round_calls_the_idle_hook() {
    static ROUNDS: AtomicU64 = AtomicU64::new(0);
    fn count(_: &AtomicU32, _: u32) {
        ROUNDS.fetch_add(1, Ordering::Relaxed);
    }
    fn alive(_: u64) -> bool {
        true
    }
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(1, 1))
        .unwrap()
        .with_wait(RegionWait::default().with_spins(0).with_idle(count));
    let holder = r
        .clone()
        .with_liveness(RegionLiveness::new(5, alive).unwrap());
    let slot = protocol::claim_slot(&holder).unwrap();
    protocol::read_lock(&holder, slot, &Budget::forever(0)).unwrap();
    assert!(r.write_within(Patience::Idles(20), |_| ()).is_err());
    assert_eq!(ROUNDS.load(Ordering::Relaxed), 20);
}

fn only_100_and_101(token: u64) -> bool {
    token == 100 || token == 101
}

proptest::proptest! {
    /// Any lock-word state at rest that no live process holds (every token other than the
    /// writer's and the reader's is dead; flags and the sleep word 0..=3, turns 0..=2,
    /// claims free, seized or dead, the writers' owner free, seized or dead) is recovered:
    /// a bounded write and a bounded read both succeed, and afterwards every flag is clear,
    /// the writers' lock free, and every slot free once the writer reclaims.
    #[test]
    fn every_state_without_a_live_owner_is_recovered(
        flags in proptest::collection::vec(0u32..4, 8),
        turns in proptest::collection::vec(0u32..3, 4),
        claims in proptest::collection::vec(proptest::sample::select(vec![protocol::FREE, SEIZED, 7, 9]), 2),
        owner in proptest::sample::select(vec![protocol::FREE, SEIZED, 7]),
        held in 0u32..4,
    ) {
        let mut b = buf();
        let r = Region::format(&mut b.0, RegionLayout::new(2, 2)).unwrap();
        for (k, &v) in flags.iter().enumerate() {
            let l = if k & 2 == 0 { Lock::Signal } else { Lock::Main };
            flag(&r, k / 4, l, k & 1).store(v, Ordering::Relaxed);
        }
        for (k, &t) in turns.iter().enumerate() {
            let l = if k & 1 == 0 { Lock::Signal } else { Lock::Main };
            r.pair(k / 2, l).turn.store(t, Ordering::Relaxed);
        }
        for (i, &c) in claims.iter().enumerate() {
            r.claim(i).store(c, Ordering::Relaxed);
        }
        Shared::writer_owner(&r).store(owner, Ordering::Relaxed);
        r.writer_held().store(held, Ordering::Relaxed);
        let as_ = |token| {
            r.clone()
                .with_liveness(RegionLiveness::new(token, only_100_and_101).unwrap())
                .with_patience(BOUND)
        };
        let (writer, reader) = (as_(100), as_(101));
        proptest::prop_assert_eq!(writer.write(|w| w.set(0, 5)), Ok(true));
        let mut rd = reader.reader().unwrap();
        proptest::prop_assert_eq!(rd.read(|w| w.get(0)), Ok(Some(5)));
        drop(rd);
        proptest::prop_assert!(all_clear(&r));
        proptest::prop_assert_eq!(r.writer_owner(), protocol::FREE);
        proptest::prop_assert_eq!(writer.write(|w| w.set(1, 6)), Ok(true));
        // A dead owner's claim with no flag set blocks no one (a new reader takes it over
        // when no slot is free); the writer's maintenance frees it.
        writer.reclaim().unwrap();
        proptest::prop_assert!((0..2).all(|i| r.slot_owner(i) == Some(protocol::FREE)));
    }
}
