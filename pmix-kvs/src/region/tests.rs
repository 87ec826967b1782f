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
        });
        assert_eq!(r.generation(), 2);
    }
    assert_eq!(&b.0[..8], b"PMIXSHM1");
    let r = Region::attach(&mut b.0).unwrap();
    assert_eq!((r.slots(), r.words(), r.generation()), (3, 10, 2));
    let mut rd = r.reader().unwrap();
    assert_eq!(
        rd.read(|w| (w.get(9), w.get(0), w.get(10), w.len())),
        (Some(77), Some(0), None, 10)
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
    v.0[8] = 2; // layout version 2
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
            needed: 2184,
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
                    let (first, all_same, generation) = me.read(|w| {
                        let first = w.get(0).unwrap();
                        (
                            (first),
                            (0..w.len()).all(|i| w.get(i) == Some(first)),
                            r.generation(),
                        )
                    });
                    assert!(all_same, "torn read");
                    assert!(first >= last, "went back from {last} to {first}");
                    assert_eq!(generation % 2, 0, "read during a write");
                    last = first;
                    reads += 1;
                }
                assert_eq!(me.read(|w| w.get(15)), Some(writes));
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
            });
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
    assert!(word.load(Ordering::Relaxed).wrapping_sub(seen) < 1 << 16);
    std::thread::yield_now();
}

fn counting_wake(_: &AtomicU32) {
    WAKES.fetch_add(1, Ordering::Relaxed);
}

/// The embedder's wait hook runs instead of the yield once the spins are spent, and its wake
/// hook after every unlock; the protocol stays whole.
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
    r.write(|w| w.set(0, 1));
    // One writer lock, one signal and one main lock released.
    assert_eq!(WAKES.load(Ordering::Relaxed) - before, 3);
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
            });
        });
        guard.wait();
        r.write(|w| w.set(0, 2));
    });
    assert!(IDLES.load(Ordering::Relaxed) > 0);
    assert_eq!(rd.read(|w| w.get(0)), Some(2));
}
