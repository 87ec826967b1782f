//! Merging (Alg. 4) and the tree of a virtual group (Alg. 5 or rebuild).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use bitvec::prelude::{BitVec, Lsb0};
use fabric_model::NodeId;

use crate::bits;
use crate::mr4lms::roots::FullSwitches;
use crate::router::view::Members;
use crate::search::{Extent, Pruning};
use crate::tables::colors::ColorTable;
use crate::tree::{Leaf, Tree};
use crate::{GroupId, MergeRoot, MergeStrategy, Regraft, Router, TreeId};

/// [`merge_root_in`](Router::merge_root_in) with more than twice this many member switches
/// orders the switches it tries by a lower bound from this many of their hop rows, when as
/// many others do not raise it.
const SAMPLE_ROWS: usize = 32;

/// Switches [`merge_root_in`](Router::merge_root_in) examines one BFS each before it computes every
/// switch's largest distance at once when none has reached every member switch yet.
const MERGE_ROOT_TRIES: usize = 4;

/// The switches free in one color, as a dense bit set: `G_color`'s switches for the searches
/// of a merge (a bit test instead of a look-up in the switch's own busy bitmap). A bitvec
/// `BitVec`: its set and test cost what hand-written words do (`bitvec` group of
/// `benches/criterion/benches/mcast_route.rs`: 300 sets and 2,048 tests in 3.06 µs against 3.10 µs;
/// a merge-heavy run, the 64×16×34 4-per-terminal grid on `tapered_fat_tree(32, 272, 8)`
/// with 128 entries, 645.8 M instructions against 648.2 M);
/// [`Scratch::component`](crate::search::Scratch::component) reads its busy switches off the
/// raw words ([`FreeBits::words`]), since listing bits is where bitvec loses (see `bits`).
#[derive(Debug, Clone, Default)]
pub(crate) struct FreeBits(BitVec<u64, Lsb0>);

/// The distinct values of `items`, all below `n`, in increasing order (by a bit set: no
/// sort).
///
/// Complexity: O(|items| + n/64).
#[cfg(test)]
pub(crate) fn sorted_distinct(items: impl Iterator<Item = u32>, n: usize) -> Vec<u32> {
    let mut words = vec![0u64; n.div_ceil(64)];
    for x in items {
        bits::set(&mut words, x as usize);
    }
    bits::ones(&words).map(|x| x as u32).collect()
}

/// A merge-root key `(bound, entries in use, switch)` as one word in the same order: the
/// bound is a byte and the entries in use are at most `MAX_ENTRIES` (merging happens with
/// an entry limit only).
fn pack_key((lb, load, x): (u32, usize, u32)) -> u64 {
    debug_assert!(lb < 256 && load < 1 << 24);
    u64::from(lb) << 56 | (load as u64) << 32 | u64::from(x)
}

/// The key [`pack_key`] packed.
fn unpack_key(k: u64) -> (u32, usize, u32) {
    ((k >> 56) as u32, (k >> 32 & 0xFF_FFFF) as usize, k as u32)
}

impl FreeBits {
    /// The switches of `colors` (of `n` switches) free in `color`.
    ///
    /// Complexity: O(S).
    pub(crate) fn of(colors: &ColorTable, n: usize, color: u32) -> Self {
        // Built a word at a time, without a branch a switch.
        let mut words = vec![0u64; n.div_ceil(64)];
        for x in 0..n as u32 {
            words[x as usize / 64] |= u64::from(!colors.is_busy(x, color)) << (x % 64);
        }
        let mut bits = BitVec::from_vec(words);
        bits.truncate(n);
        Self(bits)
    }

    /// Marks switch `x` free.
    #[inline]
    pub(crate) fn set(&mut self, x: u32) {
        self.0.set(x as usize, true);
    }

    /// Whether switch `x` is free.
    #[inline]
    pub(crate) fn get(&self, x: u32) -> bool {
        self.0[x as usize]
    }

    /// The bits as words: bit `x % 64` of word `x / 64` is switch `x`, the bits past the
    /// switches clear.
    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        self.0.as_raw_slice()
    }
}

/// What the merge-root search's distances (`Scratch::maxd`) hold: a lower bound from a
/// sample of the member switches' rows, or every member switch's largest distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    Sampled,
    Whole,
}

impl Router<'_> {
    /// Formula (1), literally: the mean, over the members of both the group and the tree, of
    /// each member's least hop distance to the other side, as `(sum, count)`. The oracle of
    /// [`nearest_tree`](Self::nearest_tree)'s faster evaluation.
    ///
    /// Complexity: O(|g|·|T|).
    #[cfg(test)]
    pub(crate) fn distance(&self, m: &Members, tree: &Tree) -> (u64, u64) {
        let between = |a: NodeId, b: NodeId| -> u64 {
            if a == b {
                return 0;
            }
            let (sa, sb) = (self.view.attach[a.index()], self.view.attach[b.index()]);
            match (sa, sb) {
                (Some(x), Some(y)) => {
                    u64::from(self.view.hops.row(x.sw as usize)[y.sw as usize]) + 2
                }
                _ => u64::MAX / 4,
            }
        };
        let mut sum = 0;
        for &x in &m.terminals {
            sum += tree.members().map(|t| between(x, t)).min().unwrap_or(0);
        }
        for t in tree.members() {
            sum += m
                .terminals
                .iter()
                .map(|&x| between(t, x))
                .min()
                .unwrap_or(0);
        }
        (sum, (m.terminals.len() + tree.member_count()) as u64)
    }

    /// Alg. 4 step ①: the live tree nearest the group by formula (1), ties to the lowest id.
    ///
    /// Evaluated exactly but pruned: the tree side of the sum costs O(|T|) through the
    /// group's distance field (one pass over M hop rows), the group side is bounded below by
    /// 2 per member not in the tree, and trees are examined by increasing bound until the
    /// bound exceeds the best mean found.
    ///
    /// Complexity: O(S·M + Σ|T| + k·|g|·|T_sw|) for k trees evaluated in full.
    pub(crate) fn nearest_tree(&mut self, m: &Members) -> Option<TreeId> {
        // Least hops from every switch to the group's switches.
        let field = &mut self.s.maxd;
        field.fill(u8::MAX);
        crate::live::distances::fold_rows(&self.view.hops, &m.sw, field, u8::min);
        let g = m.terminals.len() as u64;
        // (bound numerator, count, tree side sum, tree).
        let mut cands: Vec<(u64, u64, u64, u32)> = Vec::new();
        for (i, t) in self.state.trees.iter().enumerate() {
            let Some(t) = t else { continue };
            // A member shared with the group sits on a group switch (field 0): it counts 2
            // in the sum below and 0 in formula (1).
            let common = m.terminals.iter().filter(|&&x| t.has_member(x)).count() as u64;
            let side = t
                .leaf_counts()
                .map(|(s, n)| u64::from(n) * (u64::from(field[s as usize]) + 2))
                .sum::<u64>()
                - 2 * common;
            let n = g + t.member_count() as u64;
            cands.push((side + 2 * (g - common), n, side, i as u32));
        }
        cands.sort_unstable_by(|a, b| {
            (u128::from(a.0) * u128::from(b.1))
                .cmp(&(u128::from(b.0) * u128::from(a.1)))
                .then(a.3.cmp(&b.3))
        });
        let mut best: Option<(u64, u64, u32)> = None;
        let mut leaf_sw: Vec<usize> = Vec::new();
        for (bound, n, side, i) in cands {
            if let Some((bs, bn, _)) = best
                && u128::from(bound) * u128::from(bn) > u128::from(bs) * u128::from(n)
            {
                break;
            }
            let t = self.state.trees[i as usize].as_ref().expect("listed live");
            leaf_sw.clear();
            leaf_sw.extend(t.leaf_counts().map(|(s, _)| s as usize));
            let mut sum = side;
            for &x in &m.terminals {
                if t.has_member(x) {
                    continue;
                }
                let Some(a) = self.view.attach[x.index()] else {
                    continue;
                };
                let row = self.view.hops.row(a.sw as usize);
                sum += leaf_sw
                    .iter()
                    .map(|&s| u64::from(row[s]))
                    .min()
                    .unwrap_or(0)
                    + 2;
            }
            let better = best.is_none_or(|(bs, bn, bi)| {
                let (l, r) = (
                    u128::from(sum) * u128::from(bn),
                    u128::from(bs) * u128::from(n),
                );
                l < r || (l == r && i < bi)
            });
            if better {
                best = Some((sum, n, i));
            }
        }
        best.map(|(_, _, i)| TreeId(i))
    }

    /// [`MergeStrategy::LeastAddedLoad`]: the color whose trees on the group's member
    /// switches add the least load when merged with it (see the variant), ties to fewer
    /// groups, then the lowest color.
    ///
    /// One walk over the member switches' entries, all colors at once: each switch's
    /// entries are sorted by color, so a cursor a switch hands out the trees of each color
    /// in turn, deduplicated by the last color that counted each tree (no search and no
    /// sort a color), and the sum of `added_load` (the tests' reference) is kept as three running
    /// sums.
    ///
    /// Complexity: O(C·M + E) for C colors, M member switches and E entries on them.
    pub(crate) fn least_merging_color(&mut self, m: &Members) -> u32 {
        let ms = &mut self.s.merge;
        ms.cursor.clear();
        ms.cursor.resize(m.sw.len(), 0);
        ms.stamp.clear();
        ms.stamp.resize(self.state.trees.len(), u32::MAX);
        let member_sw = m.sw.len();
        // (load added, groups, color).
        let mut best: Option<(usize, usize, u32)> = None;
        for c in 0..self.state.colors.span() {
            // Σ groups, Σ switches, Σ groups × switches over the distinct trees of c.
            let (mut g, mut sw, mut gs) = (0usize, 0usize, 0usize);
            for (&s, at) in m.sw.iter().zip(ms.cursor.iter_mut()) {
                let row = self.state.colors.entries(s);
                if let Some(&(col, t)) = row.get(*at as usize)
                    && col == c
                {
                    *at += 1;
                    let stamp = &mut ms.stamp[t.0 as usize];
                    if *stamp != c {
                        *stamp = c;
                        let tree = self.state.trees[t.0 as usize]
                            .as_ref()
                            .expect("a live group's tree is live");
                        let (tg, ts) = (tree.groups().len(), tree.switches().len());
                        g += tg;
                        sw += ts;
                        gs += tg * ts;
                    }
                }
            }
            // Σ (G + 1 − g_t)·s_t + (G + 1)·M, as `added_load` sums it.
            let total = g + 1;
            let key = (total * sw - gs + total * member_sw, g, c);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.map_or(0, |b| b.2)
    }

    /// The distinct trees of `color` on `switches` into `ids` (cleared first), sorted.
    fn trees_on(&self, switches: impl IntoIterator<Item = u32>, color: u32, ids: &mut Vec<TreeId>) {
        ids.clear();
        ids.extend(
            switches
                .into_iter()
                .filter_map(|s| self.state.colors.tree_at(s, color)),
        );
        ids.sort_unstable();
        ids.dedup();
    }

    /// `(load added, groups, color)` of merging the trees `ids` of `color` with a new group
    /// of `member_sw` member switches (see [`MergeStrategy::LeastAddedLoad`]): the
    /// reference of [`least_merging_color`](Self::least_merging_color)'s running sums.
    #[cfg(test)]
    pub(crate) fn added_load(
        &self,
        ids: &[TreeId],
        member_sw: usize,
        color: u32,
    ) -> (usize, usize, u32) {
        let groups: usize = ids
            .iter()
            .map(|&t| self.state.tree_ref(t).groups().len())
            .sum();
        let total = groups + 1;
        let added = ids
            .iter()
            .map(|&t| {
                let t = self.state.tree_ref(t);
                (total - t.groups().len()) * t.switches().len()
            })
            .sum::<usize>()
            + total * member_sw;
        (added, groups, color)
    }

    /// [`merge_root_in`](Self::merge_root_in) with vMcg's component searched first.
    #[cfg(test)]
    fn merge_root(&mut self, color: u32, vm_sw: &[u32]) -> u32 {
        let free = FreeBits::of(&self.state.colors, self.view.g.len(), color);
        self.s.component(&self.view.g, vm_sw[0], free.words(), &[]);
        let comp = self.s.queue.clone();
        self.merge_root_in(&free, vm_sw, &comp)
    }

    /// §3.3.2: the root of vMcg's tree, the switch of its component in `G_color` of least
    /// largest BFS distance to vMcg's member switches, ties to fewest entries in use, then
    /// index (with [`MergeRoot::HopTable`]: least largest hop-table distance instead).
    ///
    /// The paper's argmin is found without one BFS per member when it can be: switches are
    /// tried in order of their hop-table distance (a lower bound of the `G_color` one), each
    /// with one BFS bounded by the best found, until the bound passes the best (the BFS is
    /// not pruned by the distance to the members: filling that distance read every member
    /// switch's hop row a second time, which cost more than it saved: TaihuLight 34^3 at
    /// 128 entries 5.75 -> 5.52 G instructions, random_regular 32x32x40 at 256 5.15 ->
    /// 5.09 G). When `G_color` is so cut up that more switches are
    /// left to try than the all-at-once search costs BFSs (about one a level and 64 member
    /// switches), or more than [`MERGE_ROOT_TRIES`] reach no member, the paper's way (a BFS
    /// from each member switch over the component, all at once bit-parallel, no deeper than
    /// the best found) is used instead; both give the same root. On the dragonfly
    /// (18, 9, 9) with 4 processes a terminal at 256 entries this took the time a group from
    /// 5.0 to 1.2 ms.
    ///
    /// `free` holds `G_color`'s switches and `comp` is vMcg's whole component in it.
    ///
    /// Complexity: O(S·M + k·(S + L)) for k switches tried (usually one or two), then
    /// [`merge_root_by_members`](Self::merge_root_by_members)'s when it is cheaper.
    fn merge_root_in(&mut self, free: &FreeBits, vm_sw: &[u32], comp: &[u32]) -> u32 {
        // `max_dist(vm_sw)` (blocked) for the hop-table root and few member switches.
        // Otherwise first a lower bound of it from 32 of their rows spread over them, kept
        // when 32 other rows do not raise it (on a fat tree two rows give every switch's
        // distance): the one BFS a switch tried needs only a lower bound, and it is
        // completed when more than one switch is to be tried (or the all-at-once search
        // runs).
        let mut bound =
            if self.config.merge_root != MergeRoot::HopTable && vm_sw.len() > 2 * SAMPLE_ROWS {
                Bound::Sampled
            } else {
                Bound::Whole
            };
        if bound == Bound::Sampled {
            let step = vm_sw.len() / SAMPLE_ROWS;
            let mut sample = std::mem::take(&mut self.s.merge.path);
            sample.clear();
            sample.extend(vm_sw.iter().copied().step_by(step).take(SAMPLE_ROWS));
            self.s.far_of(&self.view.hops, &sample);
            sample.clear();
            sample.extend(
                vm_sw
                    .iter()
                    .copied()
                    .skip(step / 2)
                    .step_by(step)
                    .take(SAMPLE_ROWS),
            );
            if self.s.raise_far_of(&self.view.hops, &sample) {
                bound = Bound::Whole;
            }
            self.s.merge.path = sample;
        }
        if bound == Bound::Whole {
            self.s.far_of(&self.view.hops, vm_sw);
        }
        // The switches by increasing key, lazily: few are ever taken. Keys packed in one
        // word, in the same order: the bound is a byte and the entries in use are at most
        // MAX_ENTRIES (merging happens with an entry limit only).
        let (pack, unpack) = (pack_key, unpack_key);
        let mut keys = std::mem::take(&mut self.s.merge.keys);
        keys.clear();
        keys.extend(comp.iter().map(|&x| {
            Reverse(pack((
                u32::from(self.s.maxd[x as usize]),
                self.state.colors.in_use(x),
                x,
            )))
        }));
        let mut order = BinaryHeap::from(keys);
        if self.config.merge_root == MergeRoot::HopTable {
            let root = unpack(
                order
                    .peek()
                    .expect("vMcg's first switch is in its component")
                    .0,
            )
            .2;
            self.s.merge.keys = order.into_vec();
            return root;
        }
        let root = self.merge_root_from(free, vm_sw, comp, &mut order, bound);
        self.s.merge.keys = order.into_vec();
        root
    }

    /// [`merge_root_in`](Self::merge_root_in)'s search, over the switches of `order`.
    fn merge_root_from(
        &mut self,
        free: &FreeBits,
        vm_sw: &[u32],
        comp: &[u32],
        order: &mut BinaryHeap<Reverse<u64>>,
        mut bound: Bound,
    ) -> u32 {
        let (pack, unpack) = (pack_key, unpack_key);
        let mut best: Option<(u32, usize, u32)> = None;
        let words = vm_sw.len().div_ceil(64);
        let mut tried = 0;
        // The switches popped (tried) while the bound is sampled.
        let mut popped: Vec<u32> = Vec::new();
        while let Some(Reverse(k)) = order.pop() {
            let (lb, load, x) = unpack(k);
            let tries = tried;
            tried += 1;
            if bound == Bound::Sampled {
                popped.push(x);
            }
            if let Some(b) = best
                && (lb, load, x) > b
            {
                break;
            }
            if best.is_none() && tries > MERGE_ROOT_TRIES {
                if bound == Bound::Sampled {
                    self.s.far_of(&self.view.hops, vm_sw);
                }
                return self.merge_root_by_members(free, vm_sw, comp, u32::MAX);
            }
            let depth = best.map_or(u32::MAX, |b| b.0);
            if !self
                .s
                .bfs(&self.view.g, x, depth, |x| free.get(x), vm_sw, Pruning::Off)
            {
                continue;
            }
            let far = vm_sw
                .iter()
                .map(|&t| self.s.hops[t as usize])
                .max()
                .unwrap_or(0);
            if best.is_none_or(|b| (far, load, x) < b) {
                best = Some((far, load, x));
                // A sampled bound that lets switches below the best: the whole bound, and
                // the switches not tried yet ordered by it.
                if bound == Bound::Sampled
                    && order.peek().is_some_and(|r| unpack(r.0) < (far, load, x))
                {
                    bound = Bound::Whole;
                    self.s.far_of(&self.view.hops, vm_sw);
                    let mut keys = std::mem::take(order).into_vec();
                    keys.clear();
                    let (maxd, colors) = (&self.s.maxd, &self.state.colors);
                    keys.extend(comp.iter().filter(|c| !popped.contains(c)).map(|&c| {
                        Reverse(pack((u32::from(maxd[c as usize]), colors.in_use(c), c)))
                    }));
                    *order = BinaryHeap::from(keys);
                }
                // The switches still to try, one BFS each, against the search of all member
                // switches at once: about one BFS a level and 64 member switches.
                // (A bound is a byte: every key is below a distance past 255.)
                let left = if far < 256 {
                    let b = pack((far, load, x));
                    order.iter().filter(|r| r.0 < b).count()
                } else {
                    order.len()
                };
                if left > (far as usize + 1) * words {
                    if bound == Bound::Sampled {
                        self.s.far_of(&self.view.hops, vm_sw);
                    }
                    return self.merge_root_by_members(free, vm_sw, comp, far);
                }
            }
        }
        best.expect("vMcg's first switch is in its own component").2
    }

    /// §3.3.2 as the paper computes it: a BFS in `G_color` from every member switch of vMcg
    /// over its component `comp` (all of them at once, bit-parallel, up to the least largest
    /// distance: [`Scratch::least_farthest`](crate::search::Scratch::least_farthest)); the
    /// switch of least largest distance, ties to fewest entries in use, then index.
    ///
    /// `free` holds `G_color`'s switches. Switches farther than `bound` from a member
    /// switch are not candidates (`bound` is
    /// the largest distance of a switch already known, or `u32::MAX`). `self.s.maxd` must
    /// hold [`max_dist`](Self::max_dist)`(vm_sw)`.
    ///
    /// Complexity: O(k·(S + L)·⌈M/64⌉), k at most the answer's largest distance.
    pub(crate) fn merge_root_by_members(
        &mut self,
        free: &FreeBits,
        vm_sw: &[u32],
        comp: &[u32],
        bound: u32,
    ) -> u32 {
        let colors = &self.state.colors;
        // Ties to fewest entries in use, then index.
        let key = |x: u32| (colors.in_use(x) as u64) << 32 | u64::from(x);
        self.s
            .least_farthest(&self.view.g, vm_sw, |x| free.get(x), comp, bound, key)
            .expect("some switch of vMcg's component is within the bound")
            .1
    }

    /// Alg. 4: merges the new group with existing groups into a virtual group (vMcg) that
    /// shares one tree and one color, and builds that tree. Returns the tree and the groups
    /// merged in.
    ///
    /// Optimistic step (①–④): the nearest tree by formula (1) and its color; if vMcg is not
    /// connected in `G_color` (the merged trees' switches counting as free), the pessimistic
    /// step (⑤–⑩) builds a temporary tree bottom-up in the whole fabric and merges every tree
    /// of that color on its switches. [`MergeStrategy::FewestGroupsColor`] skips the
    /// optimistic step and takes the color with the fewest groups;
    /// [`MergeStrategy::LeastAddedLoad`] takes the color whose trees on the group's member
    /// switches add the least load and merges those trees before step ④. The pessimistic
    /// step's temporary root and tree prefer switches free in the color (step ⑤–⑥ leave the
    /// choice open), so they merge no tree they can avoid.
    ///
    /// The tree is then built by Dijkstra in `G_color` from the root of
    /// [`merge_root_in`](Self::merge_root_in), keeping every link of the old trees (Alg. 5) or
    /// rebuilding ([`Regraft::Rebuild`]).
    ///
    /// Complexity: O(Σ|T|·|g|) for formula (1), O(k·(S + L)) for k pessimistic rounds,
    /// O((S + L) log S) for Dijkstra.
    pub(crate) fn merge(&mut self, m: &Members, gid: GroupId) -> (TreeId, Vec<GroupId>) {
        // The color, and the trees merged before step ④.
        let (color, first) = match self.config.merge {
            MergeStrategy::OptimisticThenPessimistic => {
                let t = self
                    .nearest_tree(m)
                    .expect("merging needs an existing tree");
                (self.state.tree_ref(t).color, vec![t])
            }
            MergeStrategy::LeastAddedLoad => {
                let c = self.least_merging_color(m);
                let mut ids = Vec::new();
                self.trees_on(m.sw.iter().copied(), c, &mut ids);
                (c, ids)
            }
            MergeStrategy::FewestGroupsColor => {
                let span = self.state.colors.span();
                let g = &self.state.colors.groups_per_color;
                let c = (0..span)
                    .min_by_key(|&c| (g.get(c as usize).copied().unwrap_or(0), c))
                    .unwrap_or(0);
                (c, Vec::new())
            }
        };
        self.merge_in(color, first, m, Some(gid))
    }

    /// Alg. 4 from step ② on in `color`, the trees `first` merged before step ④: `m` joins
    /// them (as the new group `gid`, or as new members of the groups of `first` when `gid`
    /// is `None`, for [`Router::join`]). Every tree merged has `color`, and so has the
    /// merged tree: the groups merged keep their MLID.
    ///
    /// Complexity: as [`merge`](Self::merge) without the choice of the color.
    pub(crate) fn merge_in(
        &mut self,
        color: u32,
        first: Vec<TreeId>,
        m: &Members,
        gid: Option<GroupId>,
    ) -> (TreeId, Vec<GroupId>) {
        // Step ②: vMcg.
        let mut old: Vec<Tree> = Vec::new();
        // vMcg's terminals, repeats included (sorted and deduplicated for the leaves).
        // vMcg's member switches, as a bit set over the switches (its terminals' switches).
        let n = self.view.g.len();
        let mut vm_bits = std::mem::take(&mut self.s.merge.vm);
        vm_bits.clear();
        vm_bits.resize(n.div_ceil(64), 0);
        for &s in &m.sw {
            bits::set(&mut vm_bits, s as usize);
        }
        // Takes tree `id` out: its members join vMcg, its switches are free in the color.
        let take = |this: &mut Self,
                    id: TreeId,
                    old: &mut Vec<Tree>,
                    vm_bits: &mut Vec<u64>,
                    free: Option<&mut FreeBits>| {
            let t = this.state.uninstall(id);
            this.far.forget(id);
            for a in t.members().filter_map(|x| this.view.attach[x.index()]) {
                bits::set(vm_bits, a.sw as usize);
            }
            if let Some(free) = free {
                for &x in t.switches() {
                    free.set(x);
                }
            }
            old.push(t);
        };
        for id in first {
            take(self, id, &mut old, &mut vm_bits, None);
        }
        // G_color's switches; the trees taken from now on free theirs (as computing it
        // again would find).
        let mut free = FreeBits::of(&self.state.colors, n, color);
        let mut vm_sw: Vec<u32> = Vec::new();
        loop {
            vm_sw.clear();
            vm_sw.extend(bits::ones(&vm_bits).map(|x| x as u32));
            #[cfg(test)]
            assert_eq!(free.0, FreeBits::of(&self.state.colors, n, color).0);
            // Step ④: connected in G_color (the uninstalled trees' switches are free now)?
            // (The whole component: the root is chosen in it.)
            if self
                .s
                .component(&self.view.g, vm_sw[0], free.words(), &vm_sw)
            {
                break;
            }
            // Steps ⑤–⑥: a temporary tree in the whole fabric.
            let d = self.max_dist(&vm_sw);
            let root_tmp = self
                .candidate_roots(d, FullSwitches::Include)
                .free_first(&self.state.colors, color)
                .expect("some switch is at the least distance");
            let parents = self.bottom_up(root_tmp, &vm_sw, Some(color));
            // Steps ⑦–⑩: merge the trees of this color on its switches.
            let mut ids = Vec::new();
            self.trees_on(
                std::iter::once(root_tmp).chain(parents.iter().map(|p| p.0)),
                color,
                &mut ids,
            );
            assert!(
                !ids.is_empty(),
                "a temporary tree on free switches would have connected vMcg"
            );
            for id in ids {
                take(self, id, &mut old, &mut vm_bits, Some(&mut free));
            }
        }
        self.s.merge.vm = vm_bits;
        // §3.3.2: the root.
        let comp = self.s.queue.clone();
        let root = self.merge_root_in(&free, &vm_sw, &comp);
        let regraft = self.config.regraft;
        let keep = regraft == Regraft::KeepOldTree;
        let ok = self.s.dijkstra(
            &self.view.g,
            &self.state.efi,
            root,
            |x| free.get(x),
            &vm_sw,
            u32::MAX,
            Extent::Targets,
            keep.then_some(old.as_slice()),
            Pruning::Off,
        );
        assert!(ok, "vMcg is connected in G_color");
        let (tree, merged) = self.merged_tree(color, root, &vm_sw, &old, regraft, m, gid);
        #[cfg(test)]
        assert_eq!(
            tree,
            self.merged_tree_reference(color, root, &vm_sw, &old, regraft, m, gid),
            "the merged tree as its parts make it"
        );
        let id = self.state.new_tree_id();
        self.state.install(id, tree);
        (id, merged)
    }
}

impl Router<'_> {
    /// The tree of vMcg after [`merge`](Self::merge)'s Dijkstra from `root` (Alg. 5 with the
    /// old trees `old` under [`Regraft::KeepOldTree`]): the paths up from every member switch
    /// in `vm_sw` (and every switch of the old trees under that `regraft`), a leaf for every member terminal, the
    /// members of `old` and `m` with their holders, the groups of `old` and `gid`; and the
    /// groups of `old`, sorted.
    ///
    /// The same tree as [`Tree::from_parts`] on those parts (the reference of the tests),
    /// assembled in order: the switches by a bit set over the switches, members by a count
    /// a node and a bit set over the nodes, leaves from the members (already in switch
    /// order on fabrics that number terminals by switch), each switch's edge from the
    /// search's parent without looking its row up.
    ///
    /// Complexity: O(T + S/64 + N/64) for T switches, leaves and members, S switches and
    /// N nodes in the fabric, O(T log T) when the terminals are not numbered by switch.
    #[allow(clippy::too_many_arguments)]
    fn merged_tree(
        &mut self,
        color: u32,
        root: u32,
        vm_sw: &[u32],
        old: &[Tree],
        regraft: Regraft,
        m: &Members,
        gid: Option<GroupId>,
    ) -> (Tree, Vec<GroupId>) {
        let keep = regraft == Regraft::KeepOldTree;
        let mut ms = std::mem::take(&mut self.s.merge);
        // The switches: up the paths from the ends.
        let olds = old.iter().filter(|_| keep).flat_map(|t| t.switches());
        self.s
            .path_switches(vm_sw.iter().chain(olds).copied(), &mut ms.path);
        let n = self.view.g.len();
        ms.bits.clear();
        ms.bits.resize(n.div_ceil(64), 0);
        for &x in &ms.path {
            bits::set(&mut ms.bits, x as usize);
        }
        let mut sw = Vec::with_capacity(ms.path.len());
        ms.pos.resize(n, 0);
        for x in bits::ones(&ms.bits) {
            ms.pos[x] = sw.len() as u32;
            sw.push(x as u32);
        }
        // The members with their holders, by node.
        let nodes = self.view.fabric.node_count();
        ms.count.resize(nodes, 0);
        ms.bits.clear();
        ms.bits.resize(nodes.div_ceil(64), 0);
        let mut distinct = 0;
        let held = old
            .iter()
            .flat_map(|t| t.member_counts().iter().copied())
            .chain(m.terminals.iter().map(|&t| (t, 1)));
        for (t, c) in held {
            distinct += usize::from(!bits::get(&ms.bits, t.index()));
            bits::set(&mut ms.bits, t.index());
            ms.count[t.index()] += c;
        }
        let mut members = Vec::with_capacity(distinct);
        for t in bits::ones(&ms.bits) {
            members.push((NodeId::new(t as u32), ms.count[t]));
            ms.count[t] = 0;
        }
        // A leaf a member.
        let pos = &ms.pos;
        let mut leaves: Vec<(u32, Leaf)> = Vec::with_capacity(members.len());
        leaves.extend(
            self.view
                .leaves_of(members.iter().map(|(t, _)| t))
                .map(|(s, l)| (pos[s as usize], l)),
        );
        if !leaves.is_sorted_by_key(|&(i, l)| (i, l.port)) {
            leaves.sort_unstable_by_key(|&(i, l)| (i, l.port));
        }
        // The groups.
        let mut merged: Vec<GroupId> = old
            .iter()
            .flat_map(|t| t.groups().iter().copied())
            .collect();
        merged.sort_unstable();
        let mut groups = Vec::with_capacity(merged.len() + 1);
        groups.extend_from_slice(&merged);
        groups.dedup();
        if let Some(gid) = gid {
            debug_assert!(groups.last().is_none_or(|&g| g < gid));
            groups.push(gid);
        }
        let (s, g) = (&self.s, &self.view.g);
        let tree = Tree::from_sorted(
            color,
            root,
            sw,
            |x| s.parent_edge(g, x),
            |x| pos[x as usize],
            leaves,
            members,
            groups,
        );
        self.s.merge = ms;
        (tree, merged)
    }

    /// [`merged_tree`](Self::merged_tree)'s tree as [`Tree::from_parts`] builds it from
    /// the search's paths and the members' leaves, members and groups added after: the
    /// reference it is checked against on every merge of the tests.
    #[cfg(test)]
    #[allow(clippy::too_many_arguments)]
    fn merged_tree_reference(
        &mut self,
        color: u32,
        root: u32,
        vm_sw: &[u32],
        old: &[Tree],
        regraft: Regraft,
        m: &Members,
        gid: Option<GroupId>,
    ) -> Tree {
        let ends: Vec<u32> = if regraft == Regraft::KeepOldTree {
            let mut ends: Vec<u32> = old
                .iter()
                .flat_map(|t| t.switches().iter().copied())
                .collect();
            ends.sort_unstable();
            vm_sw.iter().copied().chain(ends).collect()
        } else {
            vm_sw.to_vec()
        };
        let parents = self.s.collect_paths(&self.view.g, ends.into_iter());
        let mut terminals: Vec<NodeId> = m.terminals.clone();
        terminals.extend(old.iter().flat_map(|t| t.members()));
        let terminals: Vec<NodeId> = sorted_distinct(
            terminals.iter().map(|t| t.index() as u32),
            self.view.fabric.node_count(),
        )
        .into_iter()
        .map(NodeId::new)
        .collect();
        let leaves: Vec<_> = self.view.leaves_of(terminals.iter()).collect();
        let mut tree = Tree::from_parts(color, root, &parents, &leaves);
        let mut merged = Vec::new();
        for t in old {
            merged.extend(t.groups().iter().copied());
        }
        tree.add_members(old.iter().flat_map(|t| t.member_counts().iter().copied()));
        tree.add_groups(merged.iter().copied());
        match gid {
            Some(gid) => tree.add_group(gid, &m.terminals),
            None => tree.add_members(m.terminals.iter().map(|&t| (t, 1))),
        }
        tree
    }
}

#[cfg(test)]
mod tests {
    use fabric_model::{HopTable, generators};

    use crate::search::Pruning;
    use crate::{Config, Entries, MergeStrategy, Router, TreeId, patterns};

    #[test]
    fn merge_root_is_the_argmin_of_bfs_distances() {
        let f = generators::torus(&[6, 5], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(2))).unwrap();
        for g in patterns::random_groups(&f, 3, 3, 9).unwrap() {
            r.create_group(&g).unwrap();
        }
        let mut checked = 0;
        for (i, g) in patterns::random_groups(&f, 40, 3, 10)
            .unwrap()
            .iter()
            .enumerate()
        {
            let m = r.view.validate(g).unwrap();
            let color = (i % 2) as u32;
            let free = |x: u32| !r.state.colors.is_busy(x, color);
            if m.sw.iter().any(|&s| !free(s)) {
                continue;
            }
            // Literal: one BFS per member switch.
            let n = r.view.g.len();
            let mut far = vec![0u32; n];
            let mut reached = vec![0usize; n];
            let mut s = crate::search::Scratch::new(n);
            for &src in &m.sw {
                s.bfs(&r.view.g, src, u32::MAX, free, &[], Pruning::Off);
                for &x in &s.queue {
                    far[x as usize] = far[x as usize].max(s.hops[x as usize]);
                    reached[x as usize] += 1;
                }
            }
            if reached[m.sw[0] as usize] != m.sw.len() {
                continue; // not connected in G_color
            }
            let want = (0..n as u32)
                .filter(|&x| reached[x as usize] == m.sw.len())
                .min_by_key(|&x| (far[x as usize], r.state.colors.in_use(x), x))
                .unwrap();
            assert_eq!(
                r.merge_root(color, &m.sw),
                want,
                "group {g:?} color {color}"
            );
            let comp: Vec<u32> = (0..n as u32)
                .filter(|&x| reached[x as usize] == m.sw.len())
                .collect();
            let fb = super::FreeBits::of(&r.state.colors, n, color);
            let free = |x: u32| !r.state.colors.is_busy(x, color);
            assert!((0..n as u32).all(|x| fb.get(x) == free(x)));
            assert_eq!(r.merge_root_by_members(&fb, &m.sw, &comp, u32::MAX), want);
            let bound = far[want as usize];
            assert_eq!(r.merge_root_by_members(&fb, &m.sw, &comp, bound), want);
            checked += 1;
        }
        assert!(checked > 5, "{checked}");
    }

    /// With more member switches than the sampled bound's rows (whose bound is kept on a
    /// fat tree, where few rows give every distance, and completed on a torus), the root is
    /// still the argmin of one BFS a member switch, in colors left busy on some switches.
    #[test]
    fn merge_root_with_many_member_switches_is_the_argmin() {
        let fabrics = [
            generators::tapered_fat_tree(4, 90, 2).unwrap(),
            generators::torus(&[12, 10], 1).unwrap(),
        ];
        let mut checked = [0; 2];
        for (i, f) in fabrics.iter().enumerate() {
            let h = HopTable::new(f).unwrap();
            let mut r = Router::new(f, &h, Config::mr4lms(Entries::Limit(3))).unwrap();
            for g in patterns::random_groups(f, 4, 3, 3).unwrap() {
                r.create_group(&g).unwrap();
            }
            let n = r.view.g.len() as u32;
            for seed in 0..16u32 {
                let color = seed % 3;
                let free = |x: u32| !r.state.colors.is_busy(x, color);
                let cands: Vec<u32> = (0..n).filter(|&x| free(x)).collect();
                // 70 to 84 member switches, spread.
                let k = 70 + (seed as usize * 2) % 15;
                if cands.len() < k {
                    continue;
                }
                let mut vm_sw: Vec<u32> = (0..k)
                    .map(|i| cands[(i * cands.len() / k + seed as usize) % cands.len()])
                    .collect();
                vm_sw.sort_unstable();
                vm_sw.dedup();
                let mut s = crate::search::Scratch::new(n as usize);
                let mut far = vec![0u32; n as usize];
                let mut reached = vec![0usize; n as usize];
                for &src in &vm_sw {
                    s.bfs(&r.view.g, src, u32::MAX, free, &[], Pruning::Off);
                    for &x in &s.queue {
                        far[x as usize] = far[x as usize].max(s.hops[x as usize]);
                        reached[x as usize] += 1;
                    }
                }
                if reached[vm_sw[0] as usize] != vm_sw.len() {
                    continue;
                }
                let want = (0..n)
                    .filter(|&x| reached[x as usize] == vm_sw.len())
                    .min_by_key(|&x| (far[x as usize], r.state.colors.in_use(x), x))
                    .unwrap();
                assert_eq!(r.merge_root(color, &vm_sw), want, "seed {seed}");
                checked[i] += 1;
            }
        }
        assert!(checked[0] >= 5 && checked[1] >= 5, "{checked:?}");
    }

    /// Every merge of these runs checks its tree against the tree `Tree::from_parts`
    /// builds from the same search (the assertion in `merge`, compiled for the tests):
    /// creates and deletes with few entries on a torus, a fat tree and a random fabric
    /// (terminals numbered by switch or not, double links), each merge strategy, keeping
    /// the old trees or rebuilding. Here the runs are made to merge often, with trees of
    /// many groups and switches of many children.
    #[test]
    fn merged_trees_are_the_trees_of_their_parts() {
        use crate::{Method, Regraft};
        let fabrics = [
            generators::torus(&[6, 5, 3], 2).unwrap(),
            generators::fat_tree(6).unwrap(),
            generators::random_regular(24, 8, 3, 5).unwrap(),
            generators::tapered_fat_tree(8, 12, 2).unwrap(),
        ];
        let mut merges = [0usize; 2];
        for (k, f) in fabrics.iter().enumerate() {
            let h = HopTable::new(f).unwrap();
            for (merge, regraft) in [
                (MergeStrategy::LeastAddedLoad, Regraft::KeepOldTree),
                (
                    MergeStrategy::OptimisticThenPessimistic,
                    Regraft::KeepOldTree,
                ),
                (MergeStrategy::FewestGroupsColor, Regraft::KeepOldTree),
                (MergeStrategy::LeastAddedLoad, Regraft::Rebuild),
            ] {
                let cfg = Config {
                    merge,
                    regraft,
                    ..Config::mr4lms(Entries::Limit(3))
                };
                let mut r = Router::new(f, &h, cfg).unwrap();
                let groups = patterns::random_groups(f, 60, 5, 20 + k as u64).unwrap();
                for (i, g) in groups.iter().enumerate() {
                    let made = r.create_group(g).unwrap();
                    if made.method == Method::Merge {
                        merges[usize::from(regraft == Regraft::Rebuild)] += 1;
                    }
                    // Deletes between the creates leave pruned trees to merge.
                    if i % 4 == 3 {
                        r.delete_group(crate::GroupId(i as u32 - 2)).unwrap();
                    }
                }
            }
        }
        assert!(merges[0] > 200 && merges[1] > 50, "{merges:?}");
    }

    /// The bit-set dedup gives what sorting and deduplicating gives, repeats and word
    /// edges included.
    #[test]
    fn sorted_distinct_is_sort_then_dedup() {
        for (len, n, step) in [
            (0u32, 1usize, 1u32),
            (200, 130, 7),
            (50, 64, 13),
            (500, 1000, 389),
        ] {
            let items: Vec<u32> = (0..len).map(|i| i * step % n as u32).collect();
            let mut want = items.clone();
            want.sort_unstable();
            want.dedup();
            assert_eq!(
                super::sorted_distinct(items.iter().copied(), n),
                want,
                "{len} {n}"
            );
        }
    }

    /// The one walk over the member switches' entries picks the color a literal count per
    /// color picks (distinct trees of each color on the member switches, the load their
    /// merge adds), and [`added_load`](super::Router::added_load) counts the same: on a fat
    /// tree and a torus whose switches hold several trees of a color among the members.
    #[test]
    fn least_merging_color_takes_the_color_of_least_added_load() {
        let cases = [
            (generators::fat_tree(4).unwrap(), 3, 30, 3),
            (generators::torus(&[5, 4], 1).unwrap(), 4, 40, 4),
        ];
        let mut shared = 0;
        for (f, limit, groups, size) in cases {
            let h = HopTable::new(&f).unwrap();
            let cfg = Config {
                merge: MergeStrategy::LeastAddedLoad,
                ..Config::mr4lms(Entries::Limit(limit))
            };
            let mut r = Router::new(&f, &h, cfg).unwrap();
            for g in patterns::random_groups(&f, groups, size, 4).unwrap() {
                r.create_group(&g).unwrap();
            }
            for g in patterns::random_groups(&f, 20, size, 5).unwrap() {
                let m = r.view.validate(&g).unwrap();
                // Literal: per color, the distinct trees on the member switches and the load
                // their merge adds.
                let trees_of = |c: u32| {
                    let mut ids: Vec<TreeId> =
                        m.sw.iter()
                            .filter_map(|&s| r.state.colors.tree_at(s, c))
                            .collect();
                    ids.sort_unstable();
                    ids.dedup();
                    ids
                };
                let cost = |c: u32| {
                    let ids = trees_of(c);
                    let groups: Vec<usize> = ids
                        .iter()
                        .map(|&t| r.state.tree_ref(t).groups().len())
                        .collect();
                    let total: usize = groups.iter().sum::<usize>() + 1;
                    let added: usize = ids
                        .iter()
                        .zip(&groups)
                        .map(|(&t, &g)| (total - g) * r.state.tree_ref(t).switches().len())
                        .sum::<usize>()
                        + total * m.sw.len();
                    (added, total - 1, c)
                };
                for c in 0..limit {
                    assert_eq!(r.added_load(&trees_of(c), m.sw.len(), c), cost(c));
                    let n = trees_of(c).len();
                    shared += usize::from(n > 0 && n < m.sw.len());
                }
                let want = (0..limit).min_by_key(|&c| cost(c)).unwrap();
                assert_eq!(r.least_merging_color(&m), want, "group {g:?}");
                // A color with no tree on the members adds only the group's own switches.
                assert_eq!(r.added_load(&[], m.sw.len(), 0), (m.sw.len(), 0, 0));
            }
        }
        assert!(shared > 10, "{shared}");
    }

    #[test]
    fn pruned_nearest_tree_is_the_argmin_of_formula_1() {
        for (k, seed) in [(4u32, 1u64), (6, 2), (6, 3)] {
            let f = generators::fat_tree(k).unwrap();
            let h = HopTable::new(&f).unwrap();
            let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
            for g in patterns::random_groups(&f, 12, 3, seed).unwrap() {
                r.create_group(&g).unwrap();
            }
            for g in patterns::random_groups(&f, 20, 4, seed + 100).unwrap() {
                let m = r.view.validate(&g).unwrap();
                let mut best: Option<(u64, u64, TreeId)> = None;
                for id in r.tree_ids().collect::<Vec<_>>() {
                    let (s, n) = r.distance(&m, r.state.tree_ref(id));
                    if best.is_none_or(|(bs, bn, _)| {
                        u128::from(s) * u128::from(bn) < u128::from(bs) * u128::from(n)
                    }) {
                        best = Some((s, n, id));
                    }
                }
                assert_eq!(r.nearest_tree(&m), best.map(|b| b.2), "k={k} group {g:?}");
            }
        }
    }
}
