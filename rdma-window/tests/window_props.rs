//! Properties of the WBASE/WVEC window (paper §2.3.2): exactly-once acceptance under any mix
//! of permutation, duplication and out-of-window arrivals, WBASE monotone, final WBASE = n.

use std::collections::HashSet;

use proptest::prelude::*;
use rdma_window::{Arrival, Window};

/// Offsets (from the first psn) of a noisy prefix followed by a shuffled full permutation.
fn arrivals(max_n: u32) -> impl Strategy<Value = (u32, u32, Vec<u32>)> {
    (1..=max_n, any::<u32>(), any::<bool>()).prop_flat_map(move |(n, first, near_wrap)| {
        let first = if near_wrap {
            u32::MAX - (first % (2 * n + 8))
        } else {
            first
        };
        let noise = proptest::collection::vec(0..n + 300, 0..(2 * n as usize + 4));
        let perm = Just((0..n).collect::<Vec<_>>()).prop_shuffle();
        (Just(n), Just(first), noise, perm).prop_map(|(n, first, mut noise, perm)| {
            noise.extend(perm);
            (n, first, noise)
        })
    })
}

/// Runs `seq` then a recovery sweep of `0..n` in order (what retransmission on request
/// amounts to) and checks the window after every packet.
fn check<const WORDS: usize>(n: u32, first: u32, seq: &[u32]) {
    let w = Window::<WORDS>::W;
    let mut win = Window::<WORDS>::new(first);
    let mut got: HashSet<u32> = HashSet::new();
    let mut base_off = 0u32;
    for &off in seq.iter().chain(&(0..n).collect::<Vec<_>>()) {
        let psn = first.wrapping_add(off);
        let before = win.wbase();
        let rel = distance(before, psn);
        let a = win.on_data(psn);
        // The case taken is the one paper Fig. 3 names for this offset.
        match a {
            Arrival::Advanced { by } => {
                assert_eq!(rel, 0);
                assert!((1..=w + 1).contains(&by));
            }
            Arrival::Stored => assert!(rel > 0 && rel.cast_unsigned() <= w),
            Arrival::Duplicate => assert!(got.contains(&off)),
            Arrival::BeyondWindow => assert!(rel.cast_unsigned() > w && rel > 0),
        }
        let accepted = matches!(a, Arrival::Advanced { .. } | Arrival::Stored);
        if accepted {
            assert!(got.insert(off), "psn offset {off} accepted twice");
        } else if a == Arrival::BeyondWindow {
            assert!(!got.contains(&off));
        }
        let now_off = win.wbase().wrapping_sub(first);
        assert!(now_off >= base_off, "WBASE went back");
        base_off = now_off;
        // WBASE is the lowest offset not yet accepted.
        assert!((0..base_off).all(|o| got.contains(&o)));
        assert!(!got.contains(&base_off));
    }
    assert_eq!(
        win.wbase(),
        first.wrapping_add(n).wrapping_add(
            // noise past n may have been accepted too; WBASE is past every accepted offset run.
            (n..).take_while(|o| got.contains(o)).count() as u32,
        )
    );
    assert!((0..n).all(|o| got.contains(&o)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn exactly_once_w128((n, first, seq) in arrivals(400)) {
        check::<2>(n, first, &seq);
    }

    #[test]
    fn exactly_once_w64((n, first, seq) in arrivals(200)) {
        check::<1>(n, first, &seq);
    }

    #[test]
    fn exactly_once_w256((n, first, seq) in arrivals(600)) {
        check::<4>(n, first, &seq);
    }
}

#[test]
fn sizes_at_the_paper_boundaries() {
    for n in [1u32, 128, 129, 257] {
        let perm: Vec<u32> = (0..n).rev().collect();
        check::<2>(n, 5, &perm);
    }
}

/// Serial-number distance from `from` to `to` (RFC 1982, 32-bit), as the window computes it.
fn distance(from: u32, to: u32) -> i32 {
    to.wrapping_sub(from).cast_signed()
}
