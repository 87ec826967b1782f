//! Dense bit sets over switch or node numbers (bit `x % 64` of word `x / 64`), hand-written
//! where their hot operation is listing the set bits in order: the merge's vMcg switches, the
//! merged tree's switches and members, the tree builder's switch index, the busy switches
//! of `G_color` ([`Scratch::component`](crate::search::Scratch::component)). bitvec loses
//! there: in one criterion run (`bitvec` group of `benches/criterion/benches/mcast_route.rs`, 2,048
//! switches), setting 300 bits, listing them and clearing the set took 1.17 µs by hand and
//! 6.54 µs with `BitVec::iter_ones`; OR-ing 8,192 rows of 4 words (the bit-parallel
//! searches' pulls, `search::least_farthest::or_row`) took 30 µs by hand and 617 µs with `BitSlice |=`.
//! Plain set and test cost the same (3.10 µs by hand, 3.06 µs with bitvec, 300 sets and
//! 2,048 tests): a merge's `G_color` switches, only set and tested, are a bitvec `BitVec`
//! (`merge::FreeBits`); FCTB's reached roots stay hand-written, where bitvec cost 0.7% more
//! instructions in an FCTB-only run (see `fctb`).

/// Sets bit `x`.
#[inline]
pub(crate) fn set(words: &mut [u64], x: usize) {
    words[x / 64] |= 1 << (x % 64);
}

/// Clears bit `x`.
#[inline]
pub(crate) fn clear(words: &mut [u64], x: usize) {
    words[x / 64] &= !(1 << (x % 64));
}

/// Whether bit `x` is set.
#[inline]
pub(crate) fn get(words: &[u64], x: usize) -> bool {
    words[x / 64] >> (x % 64) & 1 == 1
}

/// The set bits, in increasing order.
///
/// Complexity: O(W + k) for W words and k set bits.
pub(crate) fn ones(words: &[u64]) -> Ones<'_> {
    Ones {
        words,
        word: 0,
        bits: words.first().copied().unwrap_or(0),
    }
}

/// The iterator of [`ones`].
#[derive(Debug, Clone)]
pub(crate) struct Ones<'a> {
    words: &'a [u64],
    /// The word being read, and its bits not handed out yet.
    word: usize,
    bits: u64,
}

impl Iterator for Ones<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.word += 1;
            self.bits = *self.words.get(self.word)?;
        }
        let x = self.word * 64 + self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(x)
    }
}

#[cfg(test)]
mod tests {
    use super::{get, ones, set};

    /// `ones` lists exactly the bits `set` set, in order, across word boundaries, with empty
    /// words between and none at all.
    #[test]
    fn ones_lists_the_set_bits_in_order() {
        assert_eq!(ones(&[]).count(), 0);
        assert_eq!(ones(&[0, 0]).count(), 0);
        let xs = [0, 1, 63, 64, 127, 200, 255, 320];
        let mut words = vec![0u64; 6];
        for &x in xs.iter().rev() {
            set(&mut words, x);
        }
        assert_eq!(ones(&words).collect::<Vec<_>>(), xs);
        for x in 0..384 {
            assert_eq!(get(&words, x), xs.contains(&x), "bit {x}");
        }
    }
}
