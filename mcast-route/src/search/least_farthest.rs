//! The bit-parallel search for the switch of least largest `G_color` distance to a set of
//! sources (a merged tree's root), one bit a source.

use super::{Scratch, SwitchGraph};

/// ORs switch `x`'s row of `rows` (rows of `row.len()` words, one a switch) into `row`:
/// [`Scratch::least_farthest`]'s pulls. Hand-written words: bitvec's `BitSlice |=` took 617 µs
/// where this took 30 µs for 8,192 pulls of 4-word rows in one criterion run (`bitvec`
/// group of `benches/criterion/benches/mcast_route.rs`).
#[inline]
pub(super) fn or_row(row: &mut [u64], rows: &[u64], x: u32) {
    let w = row.len();
    let src = &rows[x as usize * w..(x as usize + 1) * w];
    for (r, s) in row.iter_mut().zip(src) {
        *r |= s;
    }
}

/// Sorts `cands[..end]` when it reaches past the first `sorted`, already in order, and
/// records `end` as sorted: [`Scratch::least_farthest`]'s candidates, put in key order as
/// their levels come.
pub(super) fn sort_prefix(cands: &mut [(u64, u32)], sorted: &mut usize, end: usize) {
    if end > *sorted {
        cands[..end].sort_unstable();
        *sorted = end;
    }
}

/// A row width in 64-bit words for [`Scratch::least_farthest`]: fixed at compile time for
/// the common small widths (so that the word loops unroll), or any.
pub(super) trait Width: Copy {
    fn get(self) -> usize;
}

/// `W` words.
#[derive(Debug, Clone, Copy)]
pub(super) struct Words<const W: usize>;

impl<const W: usize> Width for Words<W> {
    #[inline(always)]
    fn get(self) -> usize {
        W
    }
}

/// Any number of words.
#[derive(Debug, Clone, Copy)]
pub(super) struct AnyWords(usize);

impl Width for AnyWords {
    #[inline(always)]
    fn get(self) -> usize {
        self.0
    }
}

/// Reusable buffers of the bit-parallel search ([`Scratch::least_farthest`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct BitSearch {
    /// Per switch, the sources that have reached it, those new at the last level, those new
    /// at this one.
    pub(super) seen: Vec<u64>,
    pub(super) front: Vec<u64>,
    pub(super) next: Vec<u64>,
    /// Every source's bit.
    pub(super) full: Vec<u64>,
    /// Switches with new bits at the last level, at this one.
    pub(super) active: Vec<u32>,
    pub(super) reached: Vec<u32>,
    /// (key, switch) of the switches that may complete, sorted.
    pub(super) cands: Vec<(u64, u32)>,
    /// One row being pulled.
    pub(super) row: Vec<u64>,
}

impl BitSearch {
    pub(super) fn memory_bytes(&self) -> usize {
        (self.active.capacity() + self.reached.capacity()) * 4
            + (self.seen.capacity()
                + self.front.capacity()
                + self.next.capacity()
                + self.full.capacity()
                + self.row.capacity()
                + self.cands.capacity())
                * 8
    }
}

impl Scratch {
    /// The switch `x` of `comp` of least (largest BFS distance to `sources`, `key(x)`), over
    /// switches for which `avail` holds, with that distance; or `None` when every switch is
    /// farther than `max_depth` from some source. `key` must differ between switches.
    /// `comp` must be the whole connected component of the sources among those switches
    /// and `sources` distinct; [`maxd`](Self::maxd) must hold, for every switch of `comp`, a
    /// lower bound of its largest distance to the sources (the hop-table one of
    /// `Router::max_dist`).
    ///
    /// One bit-parallel BFS from every source at once (64 sources a word): a switch's bits
    /// are the sources that have reached it, so its largest distance is the level at which
    /// its bits become complete. Levels go up until some switch completes: at each level the
    /// switches whose lower bound allows completing there are checked first, by key, by
    /// pulling their neighbours' new bits; then those that may complete at the next level
    /// are pulled two hops deep, for as many rows as a push reads; only if none completes
    /// is the level pushed to every switch. The answer is thus the first switch to
    /// complete, found without the levels after it (nor the last level's push, often not
    /// the one before, nor the other switches' pulls).
    ///
    /// Complexity: O(k·(S + L)·⌈|sources|/64⌉) over the component for k levels, k at most
    /// the answer, against O(|sources|·(S + L)) for one BFS a source.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn least_farthest(
        &mut self,
        g: &SwitchGraph,
        sources: &[u32],
        avail: impl Fn(u32) -> bool,
        comp: &[u32],
        max_depth: u32,
        key: impl Fn(u32) -> u64,
    ) -> Option<(u32, u32)> {
        match sources.len().div_ceil(64) {
            0 | 1 => self.least_farthest_in(Words::<1>, g, sources, avail, comp, max_depth, &key),
            2 => self.least_farthest_in(Words::<2>, g, sources, avail, comp, max_depth, &key),
            3 | 4 => self.least_farthest_in(Words::<4>, g, sources, avail, comp, max_depth, &key),
            5..=8 => self.least_farthest_in(Words::<8>, g, sources, avail, comp, max_depth, &key),
            9..=16 => self.least_farthest_in(Words::<16>, g, sources, avail, comp, max_depth, &key),
            17..=32 => {
                self.least_farthest_in(Words::<32>, g, sources, avail, comp, max_depth, &key)
            }
            w => self.least_farthest_in(AnyWords(w), g, sources, avail, comp, max_depth, &key),
        }
    }

    /// [`least_farthest`](Self::least_farthest) with rows of `width` words (at least
    /// enough for the sources; the words past them stay zero).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn least_farthest_in<W: Width>(
        &mut self,
        width: W,
        g: &SwitchGraph,
        sources: &[u32],
        avail: impl Fn(u32) -> bool,
        comp: &[u32],
        max_depth: u32,
        key: &impl Fn(u32) -> u64,
    ) -> Option<(u32, u32)> {
        let w = width.get();
        debug_assert!(w * 64 >= sources.len());
        debug_assert!(comp.iter().all(|&x| avail(x)));
        let b = &mut self.bits;
        let n = g.len();
        // Rows by switch. A switch outside the component starts with every bit seen, so
        // that nothing is ever new to it: it is never reached, and its front stays empty.
        b.seen.clear();
        b.seen.resize(n * w, u64::MAX);
        // `front` and `next` are all zero between calls (each search clears what it set):
        // only their length changes.
        debug_assert!(b.front.iter().chain(&b.next).all(|&x| x == 0));
        for v in [&mut b.front, &mut b.next] {
            v.resize(n * w, 0);
        }
        for &x in comp {
            let x = x as usize;
            b.seen[x * w..(x + 1) * w].fill(0);
        }
        b.full.clear();
        b.full.resize(w, 0);
        for k in 0..sources.len().div_ceil(64) {
            let bits = sources.len() - 64 * k;
            b.full[k] = if bits >= 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
        }
        b.active.clear();
        for (i, &src) in sources.iter().enumerate() {
            let p = src as usize;
            let bit = 1u64 << (i % 64);
            b.seen[p * w + i / 64] |= bit;
            b.front[p * w + i / 64] |= bit;
            b.active.push(src);
        }
        // The switches that may complete, by their lower bound (a counting sort: the
        // bounds are bytes); `upto[l]` of them have a bound of at most `l`. Those that may
        // complete at a level are sorted by key when that level comes.
        let mut upto = [0u32; 257];
        for &x in comp {
            upto[usize::from(self.maxd[x as usize]) + 1] += 1;
        }
        for l in 0..256 {
            upto[l + 1] += upto[l];
        }
        b.cands.clear();
        b.cands.resize(comp.len(), (0, 0));
        for &x in comp {
            let at = &mut upto[usize::from(self.maxd[x as usize])];
            b.cands[*at as usize] = (key(x), x);
            *at += 1;
        }
        // (`upto[l]` is now the end of bound `l`.)
        let upto = |l: u32| upto[l.min(255) as usize] as usize;
        let mut sorted = 0;
        let mut level = 0;
        b.row.clear();
        b.row.resize(w, 0);
        let found = 'levels: loop {
            // The switches that may complete at this level, by key: pull their new bits
            // (at level 0, a single source is complete).
            let end = upto(level);
            if end > 0 {
                sort_prefix(&mut b.cands, &mut sorted, end);
                let (seen, front) = (&b.seen[..], &b.front[..]);
                for &(_, q) in &b.cands[..end] {
                    let row = &mut b.row[..w];
                    row.copy_from_slice(&seen[q as usize * w..(q as usize + 1) * w]);
                    if level > 0 {
                        for a in g.adj(q) {
                            or_row(row, front, a.peer);
                        }
                    }
                    if *row == b.full[..w] {
                        break 'levels Some((level, q));
                    }
                }
            }
            if b.active.is_empty() || level >= max_depth {
                break None;
            }
            // Before the push, the next level by two-hop pulls: a switch that may complete
            // there gets its neighbours' sources so far and their neighbours' new ones (a
            // neighbour outside `G_color` passes nothing on; none is in another component).
            // In key order, the first one complete is the answer, since none completed at
            // this level. They are pulled for at most as many rows as the push reads, then
            // the push goes on: when the answer comes early, the widest push of all (the one
            // before the answer's level) is never made. (Half or a quarter of the push's
            // rows: random_regular 32x32x40 at 256 entries 3.53 and 3.63 G instructions in
            // `create_group` against 3.51; twice or four times: 3.50.)
            if level >= 1 {
                let end = upto(level + 1);
                sort_prefix(&mut b.cands, &mut sorted, end);
                let mut budget: usize = b.active.iter().map(|&p| g.adj(p).len()).sum();
                let (seen, front) = (&b.seen[..], &b.front[..]);
                for &(_, q) in &b.cands[..end] {
                    if budget == 0 {
                        break;
                    }
                    let row = &mut b.row[..w];
                    row.copy_from_slice(&seen[q as usize * w..(q as usize + 1) * w]);
                    for a in g.adj(q) {
                        if !avail(a.peer) {
                            continue;
                        }
                        or_row(row, seen, a.peer);
                        let adj = g.adj(a.peer);
                        for a2 in adj {
                            or_row(row, front, a2.peer);
                        }
                        budget = budget.saturating_sub(1 + adj.len());
                    }
                    if *row == b.full[..w] {
                        break 'levels Some((level + 1, q));
                    }
                }
            }
            level += 1;
            if level == 1 {
                // Level 1 is pulled from the sources themselves.
                continue;
            }
            // Push the last level to every switch (through local slices: no vector's
            // pointer and length reloaded a link).
            self.collected.begin();
            let epoch = self.collected.epoch;
            let collected = &mut self.collected.v[..];
            let (seen, front, next) = (&b.seen[..], &b.front[..], &mut b.next[..]);
            b.reached.clear();
            for &p in &b.active {
                let p = p as usize;
                let fp = &front[p * w..(p + 1) * w];
                for a in g.adj(p as u32) {
                    let q = a.peer as usize;
                    let sn = &seen[q * w..(q + 1) * w];
                    let nx = &mut next[q * w..(q + 1) * w];
                    let mut new = 0;
                    for k in 0..w {
                        let bits = fp[k] & !sn[k];
                        nx[k] |= bits;
                        new |= bits;
                    }
                    if new != 0 && collected[q] != epoch {
                        collected[q] = epoch;
                        b.reached.push(a.peer);
                    }
                }
            }
            for &p in &b.active {
                b.front[p as usize * w..(p as usize + 1) * w].fill(0);
            }
            for &q in &b.reached {
                let q = q as usize;
                for k in q * w..(q + 1) * w {
                    b.seen[k] |= b.next[k];
                    b.front[k] = b.next[k];
                    b.next[k] = 0;
                }
            }
            std::mem::swap(&mut b.active, &mut b.reached);
        };
        // `next` is zero after every level's push; `front` is set only for `active`.
        for &p in &b.active {
            b.front[p as usize * w..(p as usize + 1) * w].fill(0);
        }
        found
    }
}

#[cfg(test)]
mod tests {

    use fabric_model::{HopTable, generators};

    use crate::search::*;

    /// The bit-parallel search names the switch of least (largest distance to the sources,
    /// key), as one BFS a source finds it, with keys that tie often in their high part (many
    /// switches at the least distance, checked in key order), with more sources than a word
    /// holds and a few; with the hop-table lower bound or none, and with a depth bound at
    /// the answer (the same) or below it (none).
    #[test]
    fn least_farthest_matches_one_bfs_a_source() {
        let f = generators::torus(&[9, 8, 3], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let g = SwitchGraph::new(&f);
        let n = g.len() as u32;
        let mut s = Scratch::new(n as usize);
        let mut ties = 0;
        for seed in 0..12u32 {
            let avail = |x: u32| !(x * 29 + seed * 11).is_multiple_of(5);
            let start = (0..n).find(|&x| avail(x)).unwrap();
            s.bfs(&g, start, u32::MAX, avail, &[], Pruning::Off);
            let comp = s.queue.clone();
            // Over 64 of the component's switches (3 words), over 128 (one past a power of
            // two), or a few.
            let step = [2, 1, 23, 7][seed as usize % 4];
            let sources: Vec<u32> = comp.iter().copied().step_by(step).collect();
            let mut want = vec![0u32; n as usize];
            for &src in &sources {
                s.bfs(&g, src, u32::MAX, avail, &[], Pruning::Off);
                assert_eq!(s.queue.len(), comp.len());
                for &x in &s.queue {
                    want[x as usize] = want[x as usize].max(s.hops[x as usize]);
                }
            }
            let radius = comp.iter().map(|&x| want[x as usize]).min().unwrap();
            // A few values in the high part, the switch below (distinct keys).
            let key = |x: u32| u64::from((x * 7 + seed) % 3) << 32 | u64::from(x);
            let argmin = comp
                .iter()
                .copied()
                .min_by_key(|&x| (want[x as usize], key(x)))
                .unwrap();
            ties += usize::from(comp.iter().filter(|&&x| want[x as usize] == radius).count() > 1);
            for hop_bound in [true, false] {
                s.maxd.fill(0);
                if hop_bound {
                    for &src in &sources {
                        for (m, &d) in s.maxd.iter_mut().zip(h.row(src as usize)) {
                            *m = (*m).max(d);
                        }
                    }
                }
                for bound in [u32::MAX, radius + 1, radius] {
                    let got = s.least_farthest(&g, &sources, avail, &comp, bound, key);
                    assert_eq!(got, Some((radius, argmin)), "seed {seed} bound {bound}");
                }
                if radius > 0 {
                    let got = s.least_farthest(&g, &sources, avail, &comp, radius - 1, key);
                    assert_eq!(got, None, "seed {seed}");
                }
            }
        }
        assert!(ties > 3, "{ties}");
    }

    /// The wide rows: 9 to 16 words and past 32 (the width taken at run time) answer as
    /// one BFS a source.
    #[test]
    fn least_farthest_with_wide_rows() {
        for dims in [[12, 12, 4], [16, 12, 11]] {
            let f = generators::torus(&dims, 1).unwrap();
            let g = SwitchGraph::new(&f);
            let n = g.len() as u32;
            let mut s = Scratch::new(n as usize);
            let avail = |x: u32| !x.is_multiple_of(97);
            let start = (0..n).find(|&x| avail(x)).unwrap();
            s.bfs(&g, start, u32::MAX, avail, &[], Pruning::Off);
            let comp = s.queue.clone();
            let sources = comp.clone();
            assert!(sources.len() > 512 && (sources.len() <= 1024 || sources.len() > 2048));
            let mut want = vec![0u32; n as usize];
            for &src in &sources {
                s.bfs(&g, src, u32::MAX, avail, &[], Pruning::Off);
                for &x in &s.queue {
                    want[x as usize] = want[x as usize].max(s.hops[x as usize]);
                }
            }
            let radius = comp.iter().map(|&x| want[x as usize]).min().unwrap();
            let argmin = comp
                .iter()
                .copied()
                .min_by_key(|&x| (want[x as usize], x))
                .unwrap();
            s.maxd.fill(0);
            let got = s.least_farthest(&g, &sources, avail, &comp, u32::MAX, u64::from);
            assert_eq!(got, Some((radius, argmin)), "{dims:?}");
        }
    }
}
