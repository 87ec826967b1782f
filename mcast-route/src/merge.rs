//! Merging (Alg. 4) and the tree of a virtual group (Alg. 5 or rebuild).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fabric_model::NodeId;

use crate::colors::ColorTable;
use crate::router::Members;
use crate::tree::Tree;
use crate::{GroupId, MergeRoot, MergeStrategy, Regraft, Router, TreeId};

/// Switches [`merge_root_in`](Router::merge_root_in) examines one BFS each before it computes every
/// switch's largest distance at once when none has reached every member switch yet.
const MERGE_ROOT_TRIES: usize = 4;

/// The switches free in one color, as a dense bit set: `G_color`'s switches for the searches
/// of a merge (a bit test instead of a look-up in the switch's own busy bitmap).
#[derive(Debug, Clone, Default)]
pub(crate) struct FreeBits(Vec<u64>);

/// The distinct values of `items`, all below `n`, in increasing order (by a bit set: no
/// sort).
///
/// Complexity: O(|items| + n/64).
pub(crate) fn sorted_distinct(items: impl Iterator<Item = u32>, n: usize) -> Vec<u32> {
    let mut bits = vec![0u64; n.div_ceil(64)];
    let mut count = 0;
    for x in items {
        let w = &mut bits[x as usize / 64];
        let b = 1 << (x % 64);
        count += usize::from(*w & b == 0);
        *w |= b;
    }
    let mut out = Vec::with_capacity(count);
    for (i, &w) in bits.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            out.push((i * 64) as u32 + w.trailing_zeros());
            w &= w - 1;
        }
    }
    out
}

impl FreeBits {
    /// The switches of `colors` (of `n` switches) free in `color`.
    ///
    /// Complexity: O(S).
    pub(crate) fn of(colors: &ColorTable, n: usize, color: u32) -> Self {
        let mut words = vec![0u64; n.div_ceil(64)];
        for x in 0..n as u32 {
            words[x as usize / 64] |= u64::from(!colors.is_busy(x, color)) << (x % 64);
        }
        Self(words)
    }

    /// Whether switch `x` is free.
    #[inline]
    pub(crate) fn get(&self, x: u32) -> bool {
        self.0[x as usize / 64] >> (x % 64) & 1 == 1
    }
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
            let (sa, sb) = (self.attach[a.index()], self.attach[b.index()]);
            match (sa, sb) {
                (Some(x), Some(y)) => u64::from(self.hops.row(x.sw as usize)[y.sw as usize]) + 2,
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
        for &sm in &m.sw {
            for (acc, &h) in field.iter_mut().zip(self.hops.row(sm as usize)) {
                *acc = (*acc).min(h);
            }
        }
        let g = m.terminals.len() as u64;
        // (bound numerator, count, tree side sum, tree).
        let mut cands: Vec<(u64, u64, u64, u32)> = Vec::new();
        for (i, t) in self.trees.iter().enumerate() {
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
            let t = self.trees[i as usize].as_ref().expect("listed live");
            leaf_sw.clear();
            leaf_sw.extend(t.leaf_counts().map(|(s, _)| s as usize));
            let mut sum = side;
            for &x in &m.terminals {
                if t.has_member(x) {
                    continue;
                }
                let Some(a) = self.attach[x.index()] else {
                    continue;
                };
                let row = self.hops.row(a.sw as usize);
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
    /// Complexity: O(C·M·log E) for C colors, M member switches and E entries a switch.
    pub(crate) fn least_merging_color(&self, m: &Members) -> u32 {
        let mut ids: Vec<TreeId> = Vec::with_capacity(m.sw.len());
        // (load added, groups, color).
        let mut best: Option<(usize, usize, u32)> = None;
        for c in 0..self.colors.span() {
            self.trees_on(m.sw.iter().copied(), c, &mut ids);
            let key = self.added_load(&ids, m.sw.len(), c);
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
                .filter_map(|s| self.colors.tree_at(s, color)),
        );
        ids.sort_unstable();
        ids.dedup();
    }

    /// `(load added, groups, color)` of merging the trees `ids` of `color` with a new group
    /// of `member_sw` member switches (see [`MergeStrategy::LeastAddedLoad`]).
    pub(crate) fn added_load(
        &self,
        ids: &[TreeId],
        member_sw: usize,
        color: u32,
    ) -> (usize, usize, u32) {
        let groups: usize = ids.iter().map(|&t| self.tree_ref(t).groups().len()).sum();
        let total = groups + 1;
        let added = ids
            .iter()
            .map(|&t| {
                let t = self.tree_ref(t);
                (total - t.groups().len()) * t.switches().len()
            })
            .sum::<usize>()
            + total * member_sw;
        (added, groups, color)
    }

    /// [`merge_root_in`](Self::merge_root_in) with vMcg's component searched first.
    #[cfg(test)]
    fn merge_root(&mut self, color: u32, vm_sw: &[u32]) -> u32 {
        let free = FreeBits::of(&self.colors, self.g.len(), color);
        self.s.component(&self.g, vm_sw[0], |x| free.get(x), &[]);
        let comp = self.s.queue.clone();
        self.merge_root_in(&free, vm_sw, &comp)
    }

    /// §3.3.2: the root of vMcg's tree, the switch of its component in `G_color` of least
    /// largest BFS distance to vMcg's member switches, ties to fewest entries in use, then
    /// index (with [`MergeRoot::HopTable`]: least largest hop-table distance instead).
    ///
    /// The paper's argmin is found without one BFS per member when it can be: switches are
    /// tried in order of their hop-table distance (a lower bound of the `G_color` one), each
    /// with one BFS bounded by the best found and pruned by the distance to the members,
    /// until the bound passes the best. When `G_color` is so cut up that more switches are
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
        self.max_dist(vm_sw);
        // The switches by increasing key, lazily: few are ever taken.
        let mut order: BinaryHeap<Reverse<(u32, usize, u32)>> = comp
            .iter()
            .map(|&x| Reverse((u32::from(self.s.maxd[x as usize]), self.colors.in_use(x), x)))
            .collect();
        if self.config.merge_root == MergeRoot::HopTable {
            return order
                .peek()
                .expect("vMcg's first switch is in its component")
                .0
                .2;
        }
        self.s.fill_near(self.hops, vm_sw);
        let mut best: Option<(u32, usize, u32)> = None;
        let words = vm_sw.len().div_ceil(64);
        let mut tried = 0;
        while let Some(Reverse((lb, load, x))) = order.pop() {
            let tries = tried;
            tried += 1;
            if let Some(b) = best
                && (lb, load, x) > b
            {
                break;
            }
            if best.is_none() && tries > MERGE_ROOT_TRIES {
                return self.merge_root_by_members(free, vm_sw, comp, u32::MAX);
            }
            let depth = best.map_or(u32::MAX, |b| b.0);
            if !self.s.bfs(&self.g, x, depth, |x| free.get(x), vm_sw, true) {
                continue;
            }
            let far = vm_sw
                .iter()
                .map(|&t| self.s.hops[t as usize])
                .max()
                .unwrap_or(0);
            if best.is_none_or(|b| (far, load, x) < b) {
                best = Some((far, load, x));
                // The switches still to try, one BFS each, against the search of all member
                // switches at once: about one BFS a level and 64 member switches.
                let left = order.iter().filter(|r| r.0 < (far, load, x)).count();
                if left > (far as usize + 1) * words {
                    return self.merge_root_by_members(free, vm_sw, comp, far);
                }
            }
        }
        best.expect("vMcg's first switch is in its own component").2
    }

    /// §3.3.2 as the paper computes it: a BFS in `G_color` from every member switch of vMcg
    /// over its component `comp` (all of them at once, bit-parallel, up to the least largest
    /// distance: [`Scratch::least_farthest`](crate::graph::Scratch::least_farthest)); the
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
        let colors = &self.colors;
        // Ties to fewest entries in use, then index.
        let key = |x: u32| (colors.in_use(x) as u64) << 32 | u64::from(x);
        self.s
            .least_farthest(&self.g, vm_sw, |x| free.get(x), comp, bound, key)
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
                (self.tree_ref(t).color, vec![t])
            }
            MergeStrategy::LeastAddedLoad => {
                let c = self.least_merging_color(m);
                let mut ids = Vec::new();
                self.trees_on(m.sw.iter().copied(), c, &mut ids);
                (c, ids)
            }
            MergeStrategy::FewestGroupsColor => {
                let span = self.colors.span();
                let g = &self.colors.groups_per_color;
                let c = (0..span)
                    .min_by_key(|&c| (g.get(c as usize).copied().unwrap_or(0), c))
                    .unwrap_or(0);
                (c, Vec::new())
            }
        };
        // Step ②: vMcg.
        let mut old: Vec<Tree> = Vec::new();
        // vMcg's terminals, repeats included (sorted and deduplicated for the leaves).
        let mut terminals: Vec<NodeId> = m.terminals.clone();
        let take = |this: &mut Self, id: TreeId, old: &mut Vec<Tree>, terms: &mut Vec<NodeId>| {
            let t = this.uninstall(id);
            terms.extend(t.members());
            old.push(t);
        };
        for id in first {
            take(self, id, &mut old, &mut terminals);
        }
        let mut vm_sw: Vec<u32>;
        let mut free: FreeBits;
        loop {
            vm_sw = sorted_distinct(
                terminals
                    .iter()
                    .filter_map(|t| self.attach[t.index()].map(|a| a.sw)),
                self.g.len(),
            );
            // Step ④: connected in G_color (the uninstalled trees' switches are free now)?
            free = FreeBits::of(&self.colors, self.g.len(), color);
            // (The whole component: the root is chosen in it.)
            if self.s.component(&self.g, vm_sw[0], |x| free.get(x), &vm_sw) {
                break;
            }
            // Steps ⑤–⑥: a temporary tree in the whole fabric.
            let d = self.max_dist(&vm_sw);
            let root_tmp = self
                .candidate_roots(d, false)
                .free_first(&self.colors, color)
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
                take(self, id, &mut old, &mut terminals);
            }
        }
        // §3.3.2: the root.
        let comp = self.s.queue.clone();
        let root = self.merge_root_in(&free, &vm_sw, &comp);
        let keep = self.config.regraft == Regraft::KeepOldTree;
        let ok = self.s.dijkstra(
            &self.g,
            &self.efi,
            root,
            |x| free.get(x),
            &vm_sw,
            u32::MAX,
            false,
            keep.then_some(old.as_slice()),
            false,
        );
        assert!(ok, "vMcg is connected in G_color");
        let ends: Vec<u32> = if keep {
            let mut ends: Vec<u32> = old
                .iter()
                .flat_map(|t| t.switches().iter().copied())
                .collect();
            ends.sort_unstable();
            vm_sw.iter().copied().chain(ends).collect()
        } else {
            vm_sw.clone()
        };
        let parents = self.s.collect_paths(&self.g, ends.into_iter());
        let terminals: Vec<NodeId> = sorted_distinct(
            terminals.iter().map(|t| t.index() as u32),
            self.fabric.node_count(),
        )
        .into_iter()
        .map(NodeId)
        .collect();
        let leaves: Vec<_> = self.leaves_of(terminals.iter()).collect();
        let mut tree = Tree::from_parts(color, root, &parents, &leaves);
        let mut merged = Vec::new();
        for t in &old {
            merged.extend(t.groups().iter().copied());
        }
        tree.add_members(old.iter().flat_map(|t| t.member_counts().iter().copied()));
        tree.add_groups(merged.iter().copied());
        tree.add_group(gid, &m.terminals);
        merged.sort_unstable();
        let id = self.new_tree_id();
        self.install(id, tree);
        (id, merged)
    }
}

#[cfg(test)]
mod tests {
    use fabric_model::{HopTable, generators};

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
            let m = r.validate(g).unwrap();
            let color = (i % 2) as u32;
            let free = |x: u32| !r.colors.is_busy(x, color);
            if m.sw.iter().any(|&s| !free(s)) {
                continue;
            }
            // Literal: one BFS per member switch.
            let n = r.g.len();
            let mut far = vec![0u32; n];
            let mut reached = vec![0usize; n];
            let mut s = crate::graph::Scratch::new(n);
            for &src in &m.sw {
                s.bfs(&r.g, src, u32::MAX, free, &[], false);
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
                .min_by_key(|&x| (far[x as usize], r.colors.in_use(x), x))
                .unwrap();
            assert_eq!(
                r.merge_root(color, &m.sw),
                want,
                "group {g:?} color {color}"
            );
            let comp: Vec<u32> = (0..n as u32)
                .filter(|&x| reached[x as usize] == m.sw.len())
                .collect();
            let fb = super::FreeBits::of(&r.colors, n, color);
            let free = |x: u32| !r.colors.is_busy(x, color);
            assert!((0..n as u32).all(|x| fb.get(x) == free(x)));
            assert_eq!(r.merge_root_by_members(&fb, &m.sw, &comp, u32::MAX), want);
            let bound = far[want as usize];
            assert_eq!(r.merge_root_by_members(&fb, &m.sw, &comp, bound), want);
            checked += 1;
        }
        assert!(checked > 5, "{checked}");
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

    #[test]
    fn least_merging_color_takes_the_color_of_least_added_load() {
        let f = generators::fat_tree(4).unwrap();
        let h = HopTable::new(&f).unwrap();
        let cfg = Config {
            merge: MergeStrategy::LeastAddedLoad,
            ..Config::mr4lms(Entries::Limit(3))
        };
        let mut r = Router::new(&f, &h, cfg).unwrap();
        for g in patterns::random_groups(&f, 30, 3, 4).unwrap() {
            r.create_group(&g).unwrap();
        }
        for g in patterns::random_groups(&f, 20, 3, 5).unwrap() {
            let m = r.validate(&g).unwrap();
            // Literal: per color, the distinct trees on the member switches and the load
            // their merge with the group adds.
            let cost = |c: u32| {
                let mut ids: Vec<TreeId> =
                    m.sw.iter()
                        .filter_map(|&s| r.colors.tree_at(s, c))
                        .collect();
                ids.sort_unstable();
                ids.dedup();
                let groups: Vec<usize> =
                    ids.iter().map(|&t| r.tree_ref(t).groups().len()).collect();
                let total: usize = groups.iter().sum::<usize>() + 1;
                let added: usize = ids
                    .iter()
                    .zip(&groups)
                    .map(|(&t, &g)| (total - g) * r.tree_ref(t).switches().len())
                    .sum::<usize>()
                    + total * m.sw.len();
                (added, total - 1, c)
            };
            let want = (0..3).min_by_key(|&c| cost(c)).unwrap();
            assert_eq!(r.least_merging_color(&m), want, "group {g:?}");
            // A color with no tree on the members adds only the group's own switches.
            assert_eq!(r.added_load(&[], m.sw.len(), 0), (m.sw.len(), 0, 0));
        }
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
                let m = r.validate(&g).unwrap();
                let mut best: Option<(u64, u64, TreeId)> = None;
                for id in r.tree_ids().collect::<Vec<_>>() {
                    let (s, n) = r.distance(&m, r.tree_ref(id));
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
