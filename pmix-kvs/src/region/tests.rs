use super::*;

/// An 8-aligned byte buffer for tests.
#[repr(C, align(128))]
struct Aligned([u8; 2048]);

fn buf() -> Box<Aligned> {
    Box::new(Aligned([0xAA; 2048]))
}

#[test]
fn format_then_attach_sees_the_same_region() {
    let mut b = buf();
    let layout = RegionLayout::new(3, 10);
    {
        let r = Region::format(&mut b.0, layout).unwrap();
        assert_eq!((r.slots(), r.words(), r.generation()), (3, 10, 0));
        r.write(|w| {
            assert!(w.set(9, 77));
            assert!(!w.set(10, 1));
        })
        .unwrap();
        assert_eq!(r.generation(), 2);
    }
    assert_eq!(&b.0[..8], b"PMIXSHM1");
    let r = Region::attach(&mut b.0).unwrap();
    assert_eq!((r.slots(), r.words(), r.generation()), (3, 10, 2));
    let mut rd = r.reader().unwrap();
    assert_eq!(
        rd.read(|w| (w.get(9), w.get(0), w.get(10), w.len()))
            .unwrap(),
        (Some(77), Some(0), None, 10)
    );
}

#[test]
fn byte_len_is_the_formatted_layouts_length() {
    for buffering in [Buffering::Double, Buffering::Single] {
        let mut b = buf();
        let layout = RegionLayout::new(3, 10).with_buffering(buffering);
        let len = layout.region_len().unwrap();
        assert_eq!(Region::format(&mut b.0, layout).unwrap().byte_len(), len);
        assert_eq!(Region::attach(&mut b.0).unwrap().byte_len(), len);
    }
    assert_ne!(
        RegionLayout::new(3, 10).region_len(),
        RegionLayout::new(3, 10)
            .with_buffering(Buffering::Single)
            .region_len()
    );
}

#[test]
fn attach_names_the_bad_field() {
    let mut b = buf();
    let at = |b: &mut Aligned| Region::attach(&mut b.0).map(|r| r.slots());
    assert_eq!(
        at(&mut b),
        Err(Error::BadRegion {
            offset: 0,
            reason: "no region here (bad magic)"
        })
    );
    Region::format(&mut b.0, RegionLayout::new(2, 4)).unwrap();
    assert_eq!(at(&mut b), Ok(2));
    let mut v = buf();
    v.0 = b.0;
    v.0[8] = 1; // layout version 1 (ticket locks, one copy): refused
    assert!(matches!(
        at(&mut v),
        Err(Error::BadRegion { offset: 8, .. })
    ));
    let mut s = buf();
    s.0 = b.0;
    s.0[32] = 3; // three slots do not fit the recorded length
    assert!(matches!(
        at(&mut s),
        Err(Error::BadRegion { offset: 24, .. })
    ));
    let mut d = buf();
    d.0 = b.0;
    d.0[48] ^= 8; // data area moved
    assert!(matches!(
        at(&mut d),
        Err(Error::BadRegion { offset: 48, .. })
    ));
    // Shorter than the recorded length, shorter than a header, misaligned.
    let len = RegionLayout::new(2, 4).region_len().unwrap();
    assert_eq!(
        Region::attach(&mut b.0[..len - 1]).map(|r| r.slots()),
        Err(Error::RegionTooSmall {
            needed: len,
            len: len - 1
        })
    );
    assert!(matches!(
        Region::attach(&mut b.0[..64]),
        Err(Error::RegionTooSmall { needed: 128, .. })
    ));
    assert!(matches!(
        Region::attach(&mut b.0[1..]),
        Err(Error::BadRegion { offset: 0, .. })
    ));
}

#[test]
fn format_refuses_bad_shapes() {
    let mut b = buf();
    assert!(matches!(
        Region::format(&mut b.0, RegionLayout::new(0, 1)),
        Err(Error::BadRegion { .. })
    ));
    assert!(matches!(
        Region::format(&mut b.0, RegionLayout::new(16, 1)),
        Err(Error::RegionTooSmall {
            needed: 2192,
            len: 2048
        })
    ));
    assert!(matches!(
        Region::format(&mut b.0[4..], RegionLayout::new(1, 1)),
        Err(Error::BadRegion { offset: 0, .. })
    ));
    assert_eq!(RegionLayout::new(usize::MAX, 1).region_len(), None);
    assert!(Region::format(&mut b.0, RegionLayout::new(usize::MAX, 1)).is_err());
}

#[test]
fn slots_are_claimed_and_given_back() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(2, 1)).unwrap();
    let a = r.reader().unwrap();
    let c = r.reader().unwrap();
    assert_ne!(a.index(), c.index());
    assert_eq!(
        r.reader().map(|x| x.index()),
        Err(Error::NoFreeSlot { slots: 2 })
    );
    drop(a);
    assert!(r.reader().is_ok());
}

/// Readers on threads never see half a write: the writer sets every word to the same value,
/// each reader checks that all words agree, that the values never go back and that the
/// generation is even while it reads; the writer finishes all its writes (not starved).
#[test]
fn readers_never_see_a_torn_write_and_the_writer_finishes() {
    let writes: u64 = if cfg!(miri) { 5 } else { 200 };
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(4, 16)).unwrap();
    let done = AtomicU32::new(0);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                let mut me = r.reader().unwrap();
                let mut last = 0;
                let mut reads = 0u64;
                while done.load(Ordering::Acquire) == 0 || reads == 0 {
                    let (first, all_same, generation) = me
                        .read(|w| {
                            let first = w.get(0).unwrap();
                            (
                                (first),
                                (0..w.len()).all(|i| w.get(i) == Some(first)),
                                r.generation(),
                            )
                        })
                        .unwrap();
                    assert!(all_same, "torn read");
                    assert!(first >= last, "went back from {last} to {first}");
                    assert_eq!(generation % 2, 0, "read during a write");
                    last = first;
                    reads += 1;
                }
                assert_eq!(me.read(|w| w.get(15)).unwrap(), Some(writes));
            });
        }
        for k in 1..=writes {
            r.write(|w| {
                for i in 0..16 {
                    w.set(i, k);
                    if i == 7 {
                        // A writer preempted mid-update: readers must wait it out.
                        std::thread::yield_now();
                    }
                }
            })
            .unwrap();
        }
        done.store(1, Ordering::Release);
    });
    assert_eq!(r.generation(), 2 * writes);
}

#[test]
fn region_is_sync_and_errors_name_statuses() {
    fn sync<T: Sync + Send>() {}
    sync::<Region<'static>>();
    let e = Error::RegionTooSmall { needed: 2, len: 1 };
    assert_eq!(e.status(), crate::status::ERR_BAD_PARAM);
    assert_eq!(
        e.to_string(),
        "region of 1 bytes is too small: the layout needs 2"
    );
}

static IDLES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static WAKES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn counting_idle(word: &AtomicU32, seen: u32) {
    IDLES.fetch_add(1, Ordering::Relaxed);
    // A waiter idles on a flag it marked "a sleeper may be here".
    assert_eq!(seen, 2);
    assert!(word.load(Ordering::Relaxed) <= 2);
    std::thread::yield_now();
}

fn counting_wake(_: &AtomicU32) {
    WAKES.fetch_add(1, Ordering::Relaxed);
}

/// The embedder's wait hook runs instead of the yield once the spins are spent, and its wake
/// hook after an unlock that found a sleeper (and only then); the protocol stays whole.
#[test]
fn wait_hooks_are_called() {
    let mut b = buf();
    let wait = RegionWait::default()
        .with_spins(0)
        .with_idle(counting_idle)
        .with_wake(counting_wake);
    let r = Region::format(&mut b.0, RegionLayout::new(1, 1))
        .unwrap()
        .with_wait(wait);
    let before = WAKES.load(Ordering::Relaxed);
    r.write(|w| w.set(0, 1)).unwrap();
    // Nobody waited: no wake-up calls.
    assert_eq!(WAKES.load(Ordering::Relaxed) - before, 0);
    let mut rd = r.reader().unwrap();
    let guard = std::sync::Barrier::new(2);
    std::thread::scope(|s| {
        s.spawn(|| {
            rd.read(|w| {
                guard.wait();
                // Hold the main lock a while: the writer must idle on it.
                while IDLES.load(Ordering::Relaxed) == 0 {
                    std::thread::yield_now();
                }
                assert_eq!(w.get(0), Some(1));
            })
            .unwrap();
        });
        guard.wait();
        r.write(|w| w.set(0, 2)).unwrap();
    });
    assert!(IDLES.load(Ordering::Relaxed) > 0);
    // The reader's unlock found the writer's mark and woke it.
    assert!(WAKES.load(Ordering::Relaxed) > before);
    assert_eq!(rd.read(|w| w.get(0)).unwrap(), Some(2));
}

/// Tokens the tests below mark dead: bit `t` for token `t` (each test uses its own).
static DEAD: AtomicU64 = AtomicU64::new(0);

fn test_alive(token: u64) -> bool {
    token >= 64 || DEAD.load(Ordering::Acquire) & (1 << token) == 0
}

fn kill(token: u64) {
    DEAD.fetch_or(1 << token, Ordering::Release);
}

fn party<'a>(r: &Region<'a>, token: u64) -> Region<'a> {
    r.clone()
        .with_liveness(RegionLiveness::new(token, test_alive).unwrap())
        .with_wait(RegionWait::default().with_spins(4))
}

/// A reader that dies inside its read (its main lock held) is detected by the writer, whose
/// write completes; the writer frees the slot when it releases.
#[test]
fn writer_seizes_a_dead_readers_slot() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(2, 2)).unwrap();
    let (dead, writer) = (party(&r, 10), party(&r, 11));
    let slot = protocol::claim_slot(&dead).unwrap();
    protocol::read_lock(&dead, slot, &Budget::forever(64)).unwrap();
    kill(10);
    assert_eq!(r.slot_owner(slot), Some(10));
    writer
        .write(|w| {
            w.set(0, 5);
            w.set(1, 5);
        })
        .unwrap();
    assert_eq!(r.slot_owner(slot), Some(protocol::FREE));
    let mut rd = writer.reader().unwrap();
    assert_eq!(
        rd.read(|w| (w.get(0), w.get(1))).unwrap(),
        (Some(5), Some(5))
    );
    assert_eq!(r.generation(), 2);
    // Generation 2 lives in copy 1: after the header, 2 slots and copy 0's 2 words.
    let data = 128 + 2 * 128;
    assert_eq!(
        rd.read(|w| (w.byte_offset(1), w.byte_offset(2))).unwrap(),
        (Some(data + 8 * (2 + 1)), None)
    );
}

/// A reader that dies while waiting for its signal lock (its flag set, behind the writer)
/// does not wedge later writes.
#[test]
fn a_reader_dead_while_waiting_does_not_wedge() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(1, 1)).unwrap();
    let (dead, writer) = (party(&r, 12), party(&r, 13));
    let slot = protocol::claim_slot(&dead).unwrap();
    // The dead reader's half-done acquisition: flag set and turn given, never finished.
    let pair = dead.pair(slot, Lock::Signal);
    pair.flag[READER].store(1, Ordering::Relaxed);
    pair.turn.store(protocol::WRITER as u32, Ordering::Relaxed);
    kill(12);
    for k in 1..=3 {
        writer.write(|w| w.set(0, k)).unwrap();
    }
    assert_eq!(r.generation(), 6);
}

/// With every slot claimed, a new reader takes over a dead owner's slot (even one that died
/// holding its locks); live owners keep theirs.
#[test]
fn a_new_reader_takes_over_a_dead_owners_slot() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(2, 1)).unwrap();
    let (live, dead, late) = (party(&r, 14), party(&r, 15), party(&r, 16));
    let _kept = live.reader().unwrap();
    let slot = protocol::claim_slot(&dead).unwrap();
    protocol::read_lock(&dead, slot, &Budget::forever(64)).unwrap();
    assert_eq!(
        late.reader().map(|x| x.index()),
        Err(Error::NoFreeSlot { slots: 2 })
    );
    kill(15);
    let mut mine = late.reader().unwrap();
    assert_eq!(mine.index(), slot);
    assert_eq!(r.slot_owner(slot), Some(16));
    // Its inherited locks were cleared: writes and reads go on.
    late.write(|w| w.set(0, 9)).unwrap();
    assert_eq!(mine.read(|w| w.get(0)).unwrap(), Some(9));
}

/// `reclaim` frees dead owners' slots, whether they died inside a read or between reads, and
/// only those.
#[test]
fn reclaim_frees_only_dead_owners_slots() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(4, 1)).unwrap();
    let (a, c, live) = (party(&r, 17), party(&r, 18), party(&r, 19));
    let sa = protocol::claim_slot(&a).unwrap();
    protocol::read_lock(&a, sa, &Budget::forever(64)).unwrap();
    let sc = protocol::claim_slot(&c).unwrap();
    let _kept = live.reader().unwrap();
    assert_eq!(live.reclaim().unwrap(), 0);
    kill(17);
    kill(18);
    assert_eq!(live.reclaim().unwrap(), 2);
    assert_eq!(r.slot_owner(sa), Some(protocol::FREE));
    assert_eq!(r.slot_owner(sc), Some(protocol::FREE));
    assert_eq!(live.reclaim().unwrap(), 0);
    live.write(|w| w.set(0, 1)).unwrap();
}

/// A writer killed mid-update (generation odd, half the words of its copy written) exposes
/// nothing: the next writer takes the writers' lock over, the half write is rolled back
/// (the generation moves on to the next multiple of 4), and readers see the old words, then
/// the next writer's.
#[test]
fn a_dead_writers_half_write_is_never_seen() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(2, 4)).unwrap();
    let (dead, next, reader) = (party(&r, 20), party(&r, 21), party(&r, 22));
    dead.write(|w| (0..4).for_each(|i| _ = w.set(i, 1)))
        .unwrap();
    protocol::write_lock(&dead, &Budget::forever(64)).unwrap();
    let g = r.generation();
    Shared::generation(&dead).store(g + 1, Ordering::Release);
    let shadow = 1 - protocol::live_copy(g);
    Shared::data(&dead, shadow, 0).store(2, Ordering::Relaxed);
    Shared::data(&dead, shadow, 1).store(2, Ordering::Relaxed);
    kill(20);
    assert_eq!(r.writer_owner(), 20);
    let mut rd = reader.reader().unwrap();
    std::thread::scope(|s| {
        // The reader waits on the dead writer's locks until someone recovers.
        let t = s.spawn(move || {
            rd.read(|w| (0..4).map(|i| w.get(i)).collect::<Vec<_>>())
                .unwrap()
        });
        let seen = t.join().unwrap();
        assert_eq!(seen, vec![Some(1); 4], "the half write leaked");
    });
    assert_eq!(r.generation(), g + 4);
    next.write(|w| (0..4).for_each(|i| _ = w.set(i, 3)))
        .unwrap();
    let mut rd = reader.reader().unwrap();
    assert_eq!(rd.read(|w| w.get(3)).unwrap(), Some(3));
    assert_eq!(r.generation(), g + 6);
}

/// A writer that takes over from a dead one (rather than a reader) rolls back the same way.
#[test]
fn a_new_writer_takes_over_from_a_dead_one() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(1, 2)).unwrap();
    let (dead, next) = (party(&r, 23), party(&r, 24));
    protocol::write_lock(&dead, &Budget::forever(64)).unwrap();
    Shared::generation(&dead).store(1, Ordering::Release);
    Shared::data(&dead, 1, 0).store(7, Ordering::Relaxed);
    kill(23);
    next.write(|w| {
        // The new writer's copy starts from the last published words, not the half write.
        assert_eq!((w.get(0), w.get(1)), (Some(0), Some(0)));
        w.set(1, 8);
    })
    .unwrap();
    assert_eq!(r.generation(), 6);
    assert_eq!(r.writer_owner(), protocol::FREE);
    let mut rd = next.reader().unwrap();
    assert_eq!(
        rd.read(|w| (w.get(0), w.get(1))).unwrap(),
        (Some(0), Some(8))
    );
}

/// A panic inside a write or a read releases the locks; the write is not published.
#[test]
fn panics_release_the_locks_and_publish_nothing() {
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(1, 1)).unwrap();
    r.write(|w| w.set(0, 1)).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        r.write(|w| {
            w.set(0, 2);
            panic!("writer fails");
        })
        .unwrap()
    }));
    assert!(caught.is_err());
    // 2, then 3 while the write ran, rolled on to 6 (the copy of generation 2).
    assert_eq!(r.generation(), 6);
    let mut rd = r.reader().unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rd.read(|_| panic!("reader fails")).unwrap()
    }));
    assert!(caught.is_err());
    assert_eq!(rd.read(|w| w.get(0)).unwrap(), Some(1));
    r.write(|w| w.set(0, 3)).unwrap();
    assert_eq!(rd.read(|w| w.get(0)).unwrap(), Some(3));
}

/// The writer cannot starve: three readers loop as fast as they can on their slots (each
/// has read before the first write) while all the writer's writes complete.
#[test]
fn the_writer_is_not_starved_by_looping_readers() {
    let writes: u64 = if cfg!(miri) { 3 } else { 100 };
    let mut b = buf();
    let r = Region::format(&mut b.0, RegionLayout::new(3, 1)).unwrap();
    let (started, done) = (AtomicU32::new(0), AtomicU32::new(0));
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                let mut me = r.reader().unwrap();
                me.read(|w| w.get(0)).unwrap();
                started.fetch_add(1, Ordering::AcqRel);
                while done.load(Ordering::Acquire) == 0 {
                    me.read(|w| w.get(0)).unwrap();
                }
            });
        }
        while started.load(Ordering::Acquire) < 3 {
            std::thread::yield_now();
        }
        for k in 1..=writes {
            r.write(|w| w.set(0, k)).unwrap();
        }
        done.store(1, Ordering::Release);
    });
    assert_eq!(r.generation(), 2 * writes);
}

/// A single-buffered region: half the bytes, writes in place, the copies field checked on
/// attach; its locks and generation recover as a double-buffered one's do.
#[test]
fn single_buffering_writes_in_place() {
    let layout = RegionLayout::new(2, 4).with_buffering(Buffering::Single);
    assert_eq!(layout.region_len(), Some(128 + 2 * 128 + 4 * 8));
    let mut b = buf();
    {
        let r = Region::format(&mut b.0, layout).unwrap();
        r.write(|w| (0..4).for_each(|i| _ = w.set(i, 6))).unwrap();
        let mut rd = r.reader().unwrap();
        assert_eq!(
            rd.read(|w| (w.get(3), w.byte_offset(3))).unwrap(),
            (Some(6), Some(128 + 256 + 24))
        );
        let (dead, next) = (party(&r, 25), party(&r, 26));
        protocol::write_lock(&dead, &Budget::forever(64)).unwrap();
        Shared::generation(&dead).store(3, Ordering::Release);
        Shared::data(&dead, 0, 0).store(9, Ordering::Relaxed);
        kill(25);
        // In place: the dead writer's word stays (the caller's own flip must hide it).
        next.write(|w| assert_eq!((w.get(0), w.get(1)), (Some(9), Some(6))))
            .unwrap();
        assert_eq!(r.generation(), 8);
    }
    let len = layout.region_len().unwrap();
    assert_eq!(
        Region::attach(&mut b.0[..len]).map(|r| (r.words(), r.generation())),
        Ok((4, 8))
    );
    b.0[80] = 3; // three copies
    assert_eq!(
        Region::attach(&mut b.0).map(|r| r.words()),
        Err(Error::BadRegion {
            offset: 80,
            reason: "copies must be 1 or 2"
        })
    );
}
