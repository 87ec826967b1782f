//! The prune of one leaf's branch (ours): when a leave drops the only leaf of a switch that
//! has no children, Alg. 6's prune removes that switch and, upward, each switch left with
//! nothing below. When nothing else in the tree is left to prune (no switch but the root
//! without children and leaves, no leaf of a terminal no longer a member), those switches
//! are the chain up from the leaf's switch, found in O(chain · log T) instead of a pass
//! over the whole tree, and removed in one compacting pass without a search per leaf.

use fabric_model::NodeId;

use super::Tree;

impl Tree {
    /// The switches other than the root with no child and no leaf, counted again.
    ///
    /// Complexity: O(T + L).
    pub(super) fn count_bare(&self) -> u32 {
        let root = self.node(self.root);
        let mut with_leaf = 0;
        let mut bare = 0;
        for i in 0..self.sw.len() {
            let mut has = false;
            while with_leaf < self.leaves.len() && (self.leaves[with_leaf].0 as usize) <= i {
                has |= self.leaves[with_leaf].0 as usize == i;
                with_leaf += 1;
            }
            if Some(i) != root && !has && self.kids_of(i).is_empty() {
                bare += 1;
            }
        }
        bare
    }

    /// Whether node `i` (not the root) has no child and no leaf.
    pub(super) fn is_bare(&self, i: usize) -> bool {
        self.sw[i] != self.root && self.kids_of(i).is_empty() && self.leaves_of(i).is_empty()
    }

    /// The nodes [`prune`](Self::prune) would remove after `terminal`, no longer a member,
    /// lost its leaf on switch `sw`, when that is all there is to prune: `sw`'s node (not
    /// the root, no child, no other leaf) and upward each node left with nothing below, in
    /// node order. `None` when the tree has another leaf of a terminal no longer a member
    /// (read off the counts: every member has one leaf) or a switch with nothing below, or
    /// when `sw`'s node keeps something else.
    ///
    /// Complexity: O(k log T) for the k nodes returned.
    pub(crate) fn prunable_chain(&self, sw: u32, terminal: NodeId) -> Option<Vec<u32>> {
        if self.bare() != 0
            || self.leaves.len() != self.members.len() + 1
            || self.has_member(terminal)
        {
            return None;
        }
        debug_assert_eq!(
            self.leaves
                .iter()
                .filter(|(_, l)| !self.has_member(l.terminal))
                .count(),
            1,
            "every member has one leaf"
        );
        let mut i = self.node(sw)?;
        let row = self.leaves_of(i);
        if sw == self.root
            || !self.kids_of(i).is_empty()
            || row.len() != 1
            || row[0].1.terminal != terminal
        {
            return None;
        }
        let mut chain = vec![i as u32];
        while let Some(e) = self.edge(i) {
            let p = self.node(e.parent)?;
            if e.parent == self.root || self.kids_of(p).len() != 1 || !self.leaves_of(p).is_empty()
            {
                break;
            }
            chain.push(p as u32);
            i = p;
        }
        chain.sort_unstable();
        Some(chain)
    }

    /// Removes the nodes of [`prunable_chain`](Self::prunable_chain) and the one leaf on
    /// them: the tree [`keep_nodes`](Self::keep_nodes) gives for them (the same vectors, at
    /// the same capacities), by compacting each vector in place.
    ///
    /// Complexity: O(T + L) moves, O(log k) a child or leaf renumbered.
    pub(crate) fn remove_chain(&mut self, chain: &[u32]) {
        debug_assert!(chain.is_sorted() && !chain.is_empty());
        // Node i's new number: i less the chain's nodes before it.
        let renum = |i: u32| i - chain.partition_point(|&c| c < i) as u32;
        let gone = |i: u32| chain.binary_search(&i).is_ok();
        // The chain's one leaf, on its bottom node.
        let lost: Vec<u32> = self
            .leaves
            .iter()
            .filter(|&&(i, _)| gone(i))
            .map(|&(i, _)| i)
            .collect();
        for i in lost {
            self.count_leaf(i, false);
        }
        let n = self.sw.len();
        let old_kids = self.kids.len();
        let (mut w, mut wk) = (0usize, 0usize);
        for i in 0..n {
            let (lo, hi) = (self.kid_start[i] as usize, self.kid_start[i + 1] as usize);
            if gone(i as u32) {
                continue;
            }
            self.sw[w] = self.sw[i];
            self.up[w] = self.up[i];
            self.depth[w] = self.depth[i];
            self.kid_start[w] = wk as u32;
            for k in lo..hi {
                let c = self.kids[k];
                if !gone(c) {
                    self.kids[wk] = renum(c);
                    wk += 1;
                }
            }
            w += 1;
        }
        self.kid_start[w] = wk as u32;
        self.sw.truncate(w);
        self.up.truncate(w);
        // The bare count and the leaf counts follow the node depths down.
        let tail = self.depth.len() - n;
        self.depth.copy_within(n.., w);
        self.depth.truncate(w + tail);
        self.kid_start.truncate(w + 1);
        self.kids.truncate(wk);
        self.leaves.retain(|&(i, _)| !gone(i));
        for (i, _) in &mut self.leaves {
            *i = renum(*i);
        }
        // keep_nodes's capacities: its vectors at their length, the children's at the
        // length before.
        self.sw.shrink_to_fit();
        self.up.shrink_to_fit();
        self.depth.shrink_to_fit();
        self.kid_start.shrink_to_fit();
        self.kids.shrink_to(old_kids);
        self.leaves.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::random_tree;

    /// Random pruned trees losing a member: when the chain is offered, removing it gives
    /// the tree (and the capacities) the full prune gives, and the bare count stays exact.
    #[test]
    fn the_chain_removed_is_the_full_prune() {
        use rand::Rng;
        let mut rng = fabric_model::rng::seeded(29);
        let mut offered = 0;
        for case in 0..2000 {
            let mut t = random_tree(&mut rng);
            t.prune();
            // Every leaf a member's (the router's trees at rest).
            let members: Vec<_> = t.leaves.iter().map(|&(_, l)| (l.terminal, 1)).collect();
            t.members.clear();
            t.add_members(members);
            assert_eq!(t.bare(), t.count_bare());
            let Some(&(i, l)) = t.leaves.get(rng.random_range(0..t.leaves.len().max(1))) else {
                continue;
            };
            let sw = t.sw[i as usize];
            t.remove_holder(l.terminal);
            // Both from copies, of the same capacities.
            let mut want = t.clone();
            want.prune();
            let mut t = t.clone();
            match t.prunable_chain(sw, l.terminal) {
                Some(chain) => {
                    offered += 1;
                    let mut gone = vec![false; t.sw.len()];
                    for &c in &chain {
                        gone[c as usize] = true;
                    }
                    assert_eq!(gone, t.pruned_nodes(), "case {case}");
                    t.remove_chain(&chain);
                    assert_eq!(t, want, "case {case}");
                    assert_eq!(t.memory_bytes(), want.memory_bytes(), "case {case}");
                    assert_eq!(t.bare(), t.count_bare(), "case {case}");
                    t.assert_depths();
                }
                None => assert!(
                    t.leaf_removable_in_place(sw, l.terminal) || sw == t.root || t.bare() > 0,
                    "case {case}: a lone leaf's branch not offered"
                ),
            }
        }
        assert!(offered > 300, "{offered} chains offered");
    }
}
