//! Every switch's depth in a [`Tree`] and the number of leaves at each depth, kept with the
//! tree (ours: the paper walks the tree for them). A graft search reads a switch's depth in
//! O(log T) instead of walking up to the root, and the tree's height (the depth of its
//! deepest leaf switch) is the last depth holding a leaf, O(1) instead of a walk down the
//! whole tree.

use super::Tree;

/// The depth of a node the walk down from the root does not reach (a malformed tree only).
pub(super) const NO_DEPTH: u32 = u32::MAX;

// `Tree::depth` holds, in one vector (the tree's size stays within clippy's enum-variant
// bound, a tree being a variant of FCTB's result): each node's depth, then the count of bare
// switches (see [`chain`](super::chain)), then per depth the leaves on switches at that
// depth, the last of those not 0.

impl Tree {
    /// Where the leaf counts start in `depth`.
    #[inline]
    fn counts_at(&self) -> usize {
        self.sw.len() + 1
    }

    /// The switches other than the root with no child and no leaf (kept count).
    #[inline]
    pub(super) fn bare(&self) -> u32 {
        self.depth[self.sw.len()]
    }

    /// Sets the kept count of bare switches.
    #[inline]
    pub(super) fn set_bare(&mut self, bare: u32) {
        let n = self.sw.len();
        self.depth[n] = bare;
    }

    /// Per depth, the leaves on switches at that depth.
    #[inline]
    pub(super) fn leaf_counts_by_depth(&self) -> &[u32] {
        &self.depth[self.counts_at()..]
    }

    /// Fills the depths by one walk down from the root, counts the leaves by depth and the
    /// bare switches, as [`max_depth`](Self::max_depth)'s walk once did on every call (a node
    /// it does not reach counts its leaves at depth 0; the root's depth 0 is never
    /// overwritten).
    ///
    /// Complexity: O(T + L) for T switches and L leaves.
    pub(super) fn compute_depths(&mut self) {
        let n = self.sw.len();
        self.depth.clear();
        self.depth.resize(n, NO_DEPTH);
        if let Some(r) = self.node(self.root) {
            self.depth[r] = 0;
            // The nodes in walk order, reusing no buffer of the tree's: a local queue.
            let mut order: Vec<u32> = Vec::with_capacity(n);
            order.push(r as u32);
            let mut head = 0;
            while head < order.len() {
                let i = order[head] as usize;
                head += 1;
                let d = self.depth[i] + 1;
                for k in self.kid_start[i]..self.kid_start[i + 1] {
                    let c = self.kids[k as usize];
                    // Each node once (a malformed tree, a child in two rows, is walked
                    // without looping).
                    if self.depth[c as usize] == NO_DEPTH {
                        self.depth[c as usize] = d;
                        order.push(c);
                    }
                }
            }
        }
        self.recount_leaves();
    }

    /// Counts the bare switches and the leaves by depth again from the node depths (the
    /// first `T` entries of `depth`, all that is read of it).
    ///
    /// Complexity: O(T + L + H) for L leaves and height H.
    pub(super) fn recount_leaves(&mut self) {
        let n = self.sw.len();
        self.depth.truncate(n);
        let bare = self.count_bare();
        self.depth.push(bare);
        for k in 0..self.leaves.len() {
            let d = self.leaf_depth(self.leaves[k].0) as usize;
            if self.depth.len() <= n + 1 + d {
                self.depth.resize(n + 2 + d, 0);
            }
            self.depth[n + 1 + d] += 1;
        }
        self.depth.shrink_to_fit();
    }

    /// The depth a leaf on node `i` counts at (0 for a node not reached from the root).
    #[inline]
    pub(super) fn leaf_depth(&self, i: u32) -> u32 {
        match self.depth[i as usize] {
            NO_DEPTH => 0,
            d => d,
        }
    }

    /// One more leaf on node `i` (`added`), or one less.
    ///
    /// Complexity: O(1) amortized, O(H) when the deepest leaf goes.
    pub(super) fn count_leaf(&mut self, i: u32, added: bool) {
        let at = self.counts_at() + self.leaf_depth(i) as usize;
        if added {
            if self.depth.len() <= at {
                self.depth.resize(at + 1, 0);
            }
            self.depth[at] += 1;
        } else {
            self.depth[at] -= 1;
            while self.depth.len() > self.counts_at() && self.depth.last() == Some(&0) {
                self.depth.pop();
            }
        }
    }

    /// Node `i`'s depth, `None` for a node not reached from the root.
    #[inline]
    pub(crate) fn node_depth(&self, i: u32) -> Option<u32> {
        let d = self.depth[i as usize];
        (d != NO_DEPTH).then_some(d)
    }

    /// The tree's height: the largest depth of a switch with a leaf, `None` without leaves
    /// (what [`max_depth`](Self::max_depth) gives for the leaf switches).
    ///
    /// Complexity: O(1).
    #[inline]
    pub(crate) fn height(&self) -> Option<u32> {
        (self.leaf_counts_by_depth().len() as u32).checked_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::random_tree;
    use super::*;

    impl Tree {
        /// The walk up from `sw` to the root: the reference of the kept depths.
        fn depth_walked(&self, sw: u32) -> Option<u32> {
            let mut i = self.node(sw)?;
            let mut d = 0;
            while let Some(e) = self.edge(i) {
                d += 1;
                i = self.node(e.parent)?;
                if d as usize > self.sw.len() {
                    return None;
                }
            }
            Some(d)
        }

        /// The walk down from the root for the largest depth of `switches`: the reference
        /// of [`max_depth`](Self::max_depth) and [`height`](Self::height).
        pub(crate) fn max_depth_walked(&self, switches: &[u32]) -> Option<u32> {
            let mut depth = vec![0u32; self.sw.len()];
            let mut order: Vec<u32> = vec![self.node(self.root)? as u32];
            let mut head = 0;
            while head < order.len() {
                let i = order[head] as usize;
                head += 1;
                for &c in self.kids_of(i) {
                    depth[c as usize] = depth[i] + 1;
                    order.push(c);
                }
            }
            switches
                .iter()
                .filter_map(|&s| self.node(s))
                .map(|i| depth[i])
                .max()
        }

        /// Checks the kept depths, leaf counts and bare count against the walks.
        pub(crate) fn assert_depths(&self) {
            assert_eq!(self.bare(), self.count_bare());
            for &s in &self.sw {
                assert_eq!(self.depth(s), self.depth_walked(s), "switch {s}");
            }
            let leaf_sw: Vec<u32> = self.leaf_counts().map(|(s, _)| s).collect();
            assert_eq!(self.height(), self.max_depth_walked(&leaf_sw));
            let mut counts: Vec<u32> = Vec::new();
            for &(i, _) in &self.leaves {
                let d = self.leaf_depth(i) as usize;
                if counts.len() <= d {
                    counts.resize(d + 1, 0);
                }
                counts[d] += 1;
            }
            assert_eq!(self.leaf_counts_by_depth(), counts);
            for k in 0..self.sw.len() {
                let some: Vec<u32> = self.sw.iter().copied().step_by(k + 1).collect();
                assert_eq!(self.max_depth(&some), self.max_depth_walked(&some));
            }
        }
    }

    /// Random trees edited every way the router edits them (leaves added and removed in
    /// place, graft paths grown, prunes): the kept depths, leaf counts and height equal the
    /// walks after every edit.
    #[test]
    fn kept_depths_equal_the_walks_after_every_edit() {
        use rand::Rng;
        let mut rng = fabric_model::rng::seeded(17);
        for case in 0..300 {
            let mut t = random_tree(&mut rng);
            t.assert_depths();
            for step in 0..12 {
                match rng.random_range(0..4) {
                    0 => {
                        let s = t.sw[rng.random_range(0..t.sw.len())];
                        let leaf = super::super::Leaf {
                            port: fabric_model::PortNo::new(60 + step),
                            terminal: fabric_model::NodeId::new(
                                5000 + 100 * case + u32::from(step),
                            ),
                            link: fabric_model::LinkId::new(9000 + u32::from(step)),
                        };
                        t.add_leaf(s, leaf);
                    }
                    1 => {
                        if let Some(&(i, l)) =
                            t.leaves.get(rng.random_range(0..t.leaves.len().max(1)))
                        {
                            let s = t.sw[i as usize];
                            t.remove_leaf_in_place(s, l.terminal);
                        }
                    }
                    2 => {
                        // A path of fresh switches (above 200, random_tree's range) onto a
                        // tree switch, a leaf at its end.
                        let mut at = t.sw[rng.random_range(0..t.sw.len())];
                        let mut path = Vec::new();
                        for j in 0..rng.random_range(1..4u32) {
                            let c = 300 + 10 * u32::from(step) + j + 1000 * (case % 3);
                            path.push((c, super::super::tests::edge(at, 1, 40 + j as u16, c)));
                            at = c;
                        }
                        let leaf = super::super::Leaf {
                            port: fabric_model::PortNo::new(70),
                            terminal: fabric_model::NodeId::new(
                                7000 + 100 * case + u32::from(step),
                            ),
                            link: fabric_model::LinkId::new(9500 + u32::from(step)),
                        };
                        if path.iter().all(|&(c, _)| t.node(c).is_none()) {
                            t = t.grown(&path, &[(at, leaf)]);
                        }
                    }
                    _ => t.prune(),
                }
                t.assert_depths();
            }
        }
    }
}
