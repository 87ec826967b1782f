//! The paper's receive window: `WBASE` and the W-bit vector `WVEC` (paper §2.3.2–§2.3.3).
//!
//! `WBASE` is the lowest sequence number not yet received; bit *i* of `WVEC` (1-based, as in
//! the paper) says packet `WBASE + i` has arrived. W = 64 × `WORDS` bits, 128 by default, kept
//! in `[u64; WORDS]` so that a window of 128 is 16 bytes and a whole receive context fits in
//! 32 (see [`crate::receiver::RecvContext`]).
//!
//! The operations do no division and allocate nothing; the advance uses `trailing_ones`
//! (the paper's `LOC`) and a word shift that is correct for every amount from 1 to W + 1 (a
//! full window advances by W + 1, one more than the bit width, so a bare `>>` would panic in
//! debug builds and wrap in release).

// Why not bitvec: the same window on `bitvec::BitArray<[u64; 2]>` (leading_ones for LOC,
// shift_start for the advance, the same empty-window shortcut) measured against this one in
// one criterion run (`cargo bench -p criterion-benches --bench rdma_window_wvec_bitvec`, 4096 packets, 2-vCPU
// VM): in order 9.36 µs against 39.1 µs (2.3 against 9.6 ns a packet, bitvec 4.2× slower),
// every block of 16 reversed 13.9 µs against 27.8 µs (3.4 against 6.8 ns, 2.0× slower); a
// second run on a busier machine gave 11.4 against 49.0 µs and 15.9 against 49.6 µs. The
// shift through `copy_within` is what costs; the hand-written `u128` shift stays.

use crate::psn::distance;

/// What one data packet did to the window (the four cases of paper Fig. 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// `PIDX = WBASE`: written, and `WBASE` moved forward by `by` = 1 + `LOC(WVEC)`.
    Advanced {
        /// How far `WBASE` moved (1 ..= W + 1).
        by: u32,
    },
    /// `WBASE < PIDX ≤ WBASE + W` and bit `PIDX − WBASE` was clear: written and marked.
    Stored,
    /// `PIDX < WBASE`, or its bit was already set: a duplicate, dropped without writing.
    Duplicate,
    /// `PIDX > WBASE + W`: dropped without writing; the paper answers `RDMA_RESEND(PIDX)`.
    BeyondWindow,
}

/// `WBASE` and `WVEC` of one receive context, with W = 64 × `WORDS` bits; `WORDS` is 1 ..=
/// 64, so that W is at most [`crate::config::MAX_WINDOW`] (a wider window does not compile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window<const WORDS: usize = 2> {
    wvec: [u64; WORDS],
    wbase: u32,
}

impl<const WORDS: usize> Window<WORDS> {
    /// W, the number of bits in `WVEC`: packets `WBASE + 1 ..= WBASE + W` can be held.
    pub const W: u32 = {
        assert!(
            WORDS >= 1 && WORDS as u64 * 64 <= crate::config::MAX_WINDOW as u64,
            "WORDS must be 1 ..= 64 (W at most MAX_WINDOW)"
        );
        #[expect(
            clippy::cast_possible_truncation,
            reason = "bounded by the assert above"
        )]
        let w = (WORDS as u32) * 64;
        w
    };

    /// A window expecting `first` next, with nothing received beyond it.
    #[must_use]
    pub const fn new(first: u32) -> Self {
        Self {
            wvec: [0; WORDS],
            wbase: first,
        }
    }

    /// `WBASE`: the lowest sequence number not yet received.
    #[inline]
    #[must_use]
    pub const fn wbase(&self) -> u32 {
        self.wbase
    }

    /// The raw `WVEC` words; bit *j* of the whole (0-based) is the paper's bit *j + 1*.
    #[must_use]
    pub const fn wvec(&self) -> &[u64; WORDS] {
        &self.wvec
    }

    /// Whether packet `psn` has been received (below `WBASE`, or its bit is set).
    #[must_use]
    pub fn has(&self, psn: u32) -> bool {
        let off = distance(self.wbase, psn);
        if off < 0 {
            return true;
        }
        if off == 0 || off.cast_unsigned() > Self::W {
            return false;
        }
        self.bit(off.cast_unsigned() - 1)
    }

    /// Whether `WVEC` is empty: nothing is held above `WBASE`.
    ///
    /// # Complexity
    /// O(`WORDS`) word operations.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.wvec.iter().fold(0, |a, &w| a | w) == 0
    }

    /// The number of packets held above `WBASE` (bits set in `WVEC`).
    ///
    /// # Complexity
    /// O(`WORDS`) word operations.
    #[must_use]
    pub fn held(&self) -> u32 {
        self.wvec.iter().map(|w| w.count_ones()).sum()
    }

    /// The in-order case of [`Window::on_data`] alone, for a caller that already knows the
    /// packet is `WBASE` and `WVEC` is empty (`LOC = 0`): `WBASE` becomes `next`, the
    /// packet's sequence number plus one (stored from the input rather than from `WBASE`,
    /// so that consecutive packets do not chain through memory).
    #[inline]
    pub(crate) fn advance_in_order(&mut self, next: u32) {
        debug_assert!(next == self.wbase.wrapping_add(1) && self.is_empty());
        self.wbase = next;
    }

    /// Handles data packet `PIDX = psn` (paper Fig. 3).
    ///
    /// # Complexity
    /// O(`WORDS`) word operations, no loops over bits, no division.
    #[inline(always)]
    pub fn on_data(&mut self, psn: u32) -> Arrival {
        let off = psn.wrapping_sub(self.wbase);
        if off == 0 {
            // Step "PIDX = WBASE": WBASE += 1 + LOC(WVEC), WVEC shifted down as much.
            if self.is_empty() {
                // In order: LOC = 0 and the shift leaves the empty vector empty.
                self.wbase = self.wbase.wrapping_add(1);
                return Arrival::Advanced { by: 1 };
            }
            let by = if WORDS == 2 {
                // W = 128: the whole vector as one u128, LOC by trailing_ones, and a shift
                // that treats 128 and 129 as "everything out".
                let v = u128::from(self.wvec[0]) | (u128::from(self.wvec[1]) << 64);
                let by = 1 + v.trailing_ones();
                let v = v.checked_shr(by).unwrap_or(0);
                #[expect(clippy::cast_possible_truncation, reason = "splitting into halves")]
                {
                    self.wvec[0] = v as u64;
                    self.wvec[1] = (v >> 64) as u64;
                }
                by
            } else {
                let by = 1 + self.loc();
                self.shift_down(by);
                by
            };
            self.wbase = self.wbase.wrapping_add(by);
            Arrival::Advanced { by }
        } else if off <= Self::W {
            let i = off - 1;
            let word = &mut self.wvec[(i >> 6) as usize];
            let mask = 1u64 << (i & 63);
            if *word & mask == 0 {
                *word |= mask;
                Arrival::Stored
            } else {
                Arrival::Duplicate
            }
        } else if off.cast_signed() < 0 {
            Arrival::Duplicate
        } else {
            Arrival::BeyondWindow
        }
    }

    /// `LOC(WVEC)`: the number of consecutive ones from the lowest bit.
    #[inline]
    #[must_use]
    pub fn loc(&self) -> u32 {
        let mut n = 0;
        for w in &self.wvec {
            let t = w.trailing_ones();
            n += t;
            if t < 64 {
                break;
            }
        }
        n
    }

    /// Sequence-space offset of the highest received packet above `WBASE` (0 when none).
    #[must_use]
    pub fn highest_offset(&self) -> u32 {
        for (k, w) in self.wvec.iter().enumerate().rev() {
            if *w != 0 {
                #[expect(clippy::cast_possible_truncation, reason = "k < WORDS ≤ 64")]
                let base = (k as u32) * 64;
                return base + 64 - w.leading_zeros();
            }
        }
        0
    }

    /// The 64 bits of `WVEC` for offsets `from + 1 ..= from + 64` (bit *j* is offset
    /// `from + 1 + j`); bits past W read as zero.
    #[must_use]
    pub fn bits_after(&self, from: u32) -> u64 {
        let q = (from >> 6) as usize;
        let r = from & 63;
        let lo = self.wvec.get(q).copied().unwrap_or(0);
        if r == 0 {
            return lo;
        }
        let hi = self.wvec.get(q + 1).copied().unwrap_or(0);
        (lo >> r) | (hi << (64 - r))
    }

    #[inline]
    fn bit(&self, i: u32) -> bool {
        self.wvec[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }

    /// Shifts `WVEC` down by `n` bits, 1 ≤ n ≤ W + 1; anything ≥ W clears it.
    #[inline]
    fn shift_down(&mut self, n: u32) {
        let q = (n >> 6) as usize;
        let r = n & 63;
        if q >= WORDS {
            self.wvec = [0; WORDS];
            return;
        }
        for i in 0..WORDS {
            let lo = if i + q < WORDS { self.wvec[i + q] } else { 0 };
            let hi = if i + q + 1 < WORDS {
                self.wvec[i + q + 1]
            } else {
                0
            };
            self.wvec[i] = if r == 0 {
                lo
            } else {
                (lo >> r) | (hi << (64 - r))
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type W128 = Window<2>;

    #[test]
    fn paper_example_2_1_0_4_3() {
        // Paper §2.3.2: five packets 0..4 arrive as 2, 1, 0, 4, 3.
        let mut w = W128::new(0);
        assert_eq!(w.on_data(2), Arrival::Stored);
        assert_eq!(w.wvec()[0], 0b10);
        assert_eq!(w.on_data(1), Arrival::Stored);
        assert_eq!(w.wvec()[0], 0b11);
        assert_eq!(w.on_data(0), Arrival::Advanced { by: 3 });
        assert_eq!((w.wbase(), w.wvec()[0]), (3, 0));
        assert_eq!(w.on_data(4), Arrival::Stored);
        assert_eq!(w.on_data(3), Arrival::Advanced { by: 2 });
        assert_eq!((w.wbase(), w.wvec()[0]), (5, 0));
    }

    #[test]
    fn boundaries_around_wbase() {
        let base = 1000;
        let mut w = W128::new(base);
        assert_eq!(w.on_data(base - 1), Arrival::Duplicate);
        assert_eq!(w.on_data(base + 1), Arrival::Stored);
        assert_eq!(w.on_data(base + 1), Arrival::Duplicate);
        assert_eq!(w.on_data(base + 127), Arrival::Stored);
        assert_eq!(w.on_data(base + 128), Arrival::Stored);
        assert_eq!(w.on_data(base + 129), Arrival::BeyondWindow);
        assert_eq!(w.wbase(), base, "nothing but WBASE moves WBASE");
        assert_eq!(w.on_data(base), Arrival::Advanced { by: 2 });
        assert_eq!(w.on_data(base), Arrival::Duplicate);
        assert!(w.has(base + 128) && !w.has(base + 2) && w.has(base + 1));
    }

    #[test]
    fn advance_of_w_plus_one_clears_the_vector() {
        let mut w = W128::new(0);
        for p in 1..=128 {
            assert_eq!(w.on_data(p), Arrival::Stored);
        }
        assert_eq!(w.loc(), 128);
        assert_eq!(w.on_data(0), Arrival::Advanced { by: 129 });
        assert_eq!(w.wbase(), 129);
        assert_eq!(*w.wvec(), [0, 0]);
        assert_eq!(w.on_data(129 + 128), Arrival::Stored);
        assert_eq!(w.on_data(129 + 129), Arrival::BeyondWindow);
    }

    #[test]
    fn advance_across_a_word_boundary_keeps_later_bits() {
        let mut w = W128::new(0);
        for p in (1..=70).chain([72, 128]) {
            w.on_data(p);
        }
        assert_eq!(w.on_data(0), Arrival::Advanced { by: 71 });
        assert_eq!(w.wbase(), 71);
        assert!(w.has(72) && w.has(128) && !w.has(73) && !w.has(71));
        assert_eq!(w.highest_offset(), 128 - 71);
    }

    #[test]
    fn wrap_around_of_the_sequence_field() {
        let first = u32::MAX - 2;
        let mut w = W128::new(first);
        assert_eq!(w.on_data(1), Arrival::Stored); // offset 4 across the wrap
        assert_eq!(w.on_data(first.wrapping_sub(1)), Arrival::Duplicate);
        assert_eq!(w.on_data(first.wrapping_add(129)), Arrival::BeyondWindow);
        for p in [first, first + 1, first + 2, 0] {
            assert!(matches!(w.on_data(p), Arrival::Advanced { .. }));
        }
        assert_eq!(w.wbase(), 2);
        assert_eq!(w.on_data(u32::MAX), Arrival::Duplicate);
    }

    #[test]
    fn other_widths() {
        let mut w = Window::<1>::new(0);
        assert_eq!(Window::<1>::W, 64);
        assert_eq!(w.on_data(64), Arrival::Stored);
        assert_eq!(w.on_data(65), Arrival::BeyondWindow);
        let mut w4 = Window::<4>::new(0);
        for p in 1..=256 {
            assert_eq!(w4.on_data(p), Arrival::Stored);
        }
        assert_eq!(w4.on_data(257), Arrival::BeyondWindow);
        assert_eq!(w4.on_data(0), Arrival::Advanced { by: 257 });
        assert_eq!(*w4.wvec(), [0; 4]);
    }

    #[test]
    fn bits_after_reads_across_words() {
        let mut w = W128::new(0);
        for p in [1, 60, 66, 128] {
            w.on_data(p);
        }
        assert_eq!(w.bits_after(0) & 1, 1);
        assert_eq!(w.bits_after(59), 1 | 1 << 6);
        assert_eq!(w.bits_after(100) >> 27, 1);
        assert_eq!(w.bits_after(128), 0);
    }
}
