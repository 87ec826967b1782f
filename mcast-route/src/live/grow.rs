//! A tree being grown by many grafts (a topology repair): its switches' depths in a dense
//! array over the fabric's switches and its parts in lists, so that each graft costs its
//! path and not a copy of the tree, and the tree is assembled once at the end.

use crate::live::graft::GraftTarget;
use crate::tree::{Edge, Leaf, SwitchIndex, Tree};

/// "Not in the tree" in [`Growing`]'s depths.
const ABSENT: u32 = u32::MAX;

/// A tree under repair: the parts of a [`Tree`] plus the paths and leaves grafted onto it.
/// [`finish`](Self::finish) gives the tree that [`Tree::grown`] would give, graft after
/// graft.
#[derive(Debug)]
pub(crate) struct Growing {
    color: u32,
    root: u32,
    /// Per switch of the fabric, its depth in the tree, [`ABSENT`] when not in it.
    depth: Vec<u32>,
    /// The tree's switches (to clear `depth` at the end).
    sw: Vec<u32>,
    parents: Vec<(u32, Edge)>,
    leaves: Vec<(u32, Leaf)>,
}

impl Growing {
    /// Starts from `tree`, with `depth` an array of at least the fabric's switch count, all
    /// [`ABSENT`] (as [`finish`](Self::finish) leaves it; empty or short is grown).
    ///
    /// Complexity: O(T) for T switches and leaves.
    pub(crate) fn new(tree: &Tree, mut depth: Vec<u32>, switches: usize) -> Self {
        if depth.len() < switches {
            depth.resize(switches, ABSENT);
        }
        let sw = tree.switches().to_vec();
        // Depths from the root down, node by node.
        let mut order: Vec<u32> = Vec::with_capacity(sw.len());
        if let Some(r) = tree.node_of(tree.root) {
            depth[tree.root as usize] = 0;
            order.push(r);
        }
        let mut head = 0;
        while head < order.len() {
            let i = order[head];
            head += 1;
            let d = depth[sw[i as usize] as usize] + 1;
            for (child, c, _, _) in tree.down_links(i) {
                depth[child as usize] = d;
                order.push(c);
            }
        }
        Self {
            color: tree.color,
            root: tree.root,
            depth,
            sw,
            parents: tree.edges().collect(),
            leaves: tree.leaves().collect(),
        }
    }

    /// Whether switch `s` is in the tree.
    #[inline]
    pub(crate) fn contains(&self, s: u32) -> bool {
        self.depth.get(s as usize).is_some_and(|&d| d != ABSENT)
    }

    /// Adds a graft path of [`crate::live::graft::graft_path`]: `(child, edge up)` from the child
    /// of a tree switch outward, every child new to the tree.
    ///
    /// Complexity: O(k) for k edges.
    pub(crate) fn add_path(&mut self, path: &[(u32, Edge)]) {
        for &(c, e) in path {
            debug_assert!(!self.contains(c) && self.contains(e.parent));
            self.depth[c as usize] = self.depth[e.parent as usize] + 1;
            self.sw.push(c);
            self.parents.push((c, e));
        }
    }

    /// Adds leaves on switches of the tree.
    pub(crate) fn add_leaves(&mut self, leaves: &[(u32, Leaf)]) {
        debug_assert!(leaves.iter().all(|&(s, _)| self.contains(s)));
        self.leaves.extend_from_slice(leaves);
    }

    /// The tree (with `like`'s members and groups), and the depth array back, all
    /// [`ABSENT`] again.
    ///
    /// Complexity: O(T + S/64) and the rows' sorts ([`Tree::from_parts_in`]).
    pub(crate) fn finish(self, index: &mut SwitchIndex, like: &Tree) -> (Tree, Vec<u32>) {
        let mut t = Tree::from_parts_in(index, self.color, self.root, &self.parents, &self.leaves);
        t.add_members(like.member_counts().iter().copied());
        t.add_groups(like.groups().iter().copied());
        let mut depth = self.depth;
        for &s in &self.sw {
            depth[s as usize] = ABSENT;
        }
        (t, depth)
    }
}

impl GraftTarget for Growing {
    fn color(&self) -> u32 {
        self.color
    }

    fn root(&self) -> u32 {
        self.root
    }

    fn reset_memo(&self, _memo: &mut Vec<u32>) {}

    #[inline]
    fn depth_of(&self, v: u32, _memo: &mut [u32], _chain: &mut Vec<u32>) -> Option<u32> {
        self.depth.get(v as usize).copied().filter(|&d| d != ABSENT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabric_model::{LinkId, NodeId, PortNo};

    use crate::GroupId;
    use crate::tree::tests::edge;

    fn leaf(port: u16, terminal: u32) -> (Leaf, NodeId) {
        let t = NodeId::new(terminal);
        (
            Leaf {
                port: PortNo::new(port),
                terminal: t,
                link: LinkId::new(terminal + 10_000),
            },
            t,
        )
    }

    /// Random grafts onto random trees: the grown tree is the tree `Tree::grown` gives graft
    /// after graft, its depths are the tree's at every step, and the depth array ends clear.
    #[test]
    fn grafts_give_the_tree_grown_graft_by_graft() {
        use rand::Rng;
        use rand::seq::SliceRandom;
        let mut rng = fabric_model::rng::seeded(5);
        let n = 300usize;
        let mut depth = Vec::new();
        let mut index = SwitchIndex::new(n);
        for case in 0..200 {
            // A random tree over 1 to 30 switches of 0..n, a leaf on some.
            let mut ids: Vec<u32> = (0..n as u32).collect();
            ids.shuffle(&mut rng);
            let k = rng.random_range(1..30);
            let mut parents = Vec::new();
            let mut leaves = Vec::new();
            let mut members = Vec::new();
            for i in 1..k {
                let p = ids[rng.random_range(0..i)];
                parents.push((ids[i], edge(p, 1, 2 + i as u16, i as u32)));
            }
            for (i, &s) in ids[..k].iter().enumerate() {
                if rng.random_bool(0.5) {
                    let (l, t) = leaf(40, 1000 + i as u32);
                    leaves.push((s, l));
                    members.push((t, 1));
                }
            }
            let mut tree = Tree::from_parts(2, ids[0], &parents, &leaves);
            tree.add_members(members);
            tree.add_groups([GroupId(case)]);
            let mut g = Growing::new(&tree, std::mem::take(&mut depth), n);
            let mut want = tree.clone();
            // Grafts: paths of fresh switches onto a switch of the tree so far, or leaves.
            let mut next = k;
            for j in 0..rng.random_range(0..8) {
                let mut path = Vec::new();
                if rng.random_bool(0.7) && next + 3 < n {
                    let in_tree = want.switches();
                    let mut at = in_tree[rng.random_range(0..in_tree.len())];
                    for _ in 0..rng.random_range(1..4) {
                        let c = ids[next];
                        next += 1;
                        path.push((c, edge(at, 1, 30 + j, 500 + c)));
                        at = c;
                    }
                }
                let on = path.last().map_or_else(|| want.switches()[0], |&(c, _)| c);
                let (l, _) = leaf(41 + j, 2000 + 10 * case + u32::from(j));
                g.add_path(&path);
                g.add_leaves(&[(on, l)]);
                want = want.grown(&path, &[(on, l)]);
                for &s in want.switches() {
                    let mut memo = Vec::new();
                    g.reset_memo(&mut memo);
                    assert_eq!(
                        g.depth_of(s, &mut memo, &mut Vec::new()),
                        want.depth(s),
                        "case {case}"
                    );
                }
            }
            assert!(!g.contains(ids[n - 1]) || want.node_of(ids[n - 1]).is_some());
            let (got, back) = g.finish(&mut index, &want);
            assert_eq!(got, want, "case {case}");
            assert!(back.iter().all(|&d| d == ABSENT), "case {case}");
            depth = back;
        }
    }
}
