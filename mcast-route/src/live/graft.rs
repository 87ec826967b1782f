//! The graft search of [`Router::join`](crate::Router::join): a breadth-first search from a
//! new member's switch over the switches free in a tree's color, to the tree switch of least
//! depth plus distance.

use crate::tree::{Edge, Tree};
use crate::{Router, TreeId};

/// A tree a graft search joins a switch to: its color and root, and the depth of each of its
/// switches.
pub(crate) trait GraftTarget {
    /// The tree's color.
    fn color(&self) -> u32;
    /// The tree's root switch.
    fn root(&self) -> u32;
    /// Prepares `memo` for [`depth_of`](Self::depth_of)'s calls of one search.
    fn reset_memo(&self, memo: &mut Vec<u32>);
    /// `None` when switch `v` is not in the tree, else its depth (`u32::MAX` when it has
    /// none): `memo` holds per node of the tree its depth plus one once a call has walked
    /// through it, else 0, and `chain` is the walk's buffer.
    fn depth_of(&self, v: u32, memo: &mut [u32], chain: &mut Vec<u32>) -> Option<u32>;
}

impl GraftTarget for Tree {
    fn color(&self) -> u32 {
        self.color
    }

    fn root(&self) -> u32 {
        self.root
    }

    /// The depths are kept with the tree: no memo.
    fn reset_memo(&self, _memo: &mut Vec<u32>) {}

    #[inline]
    fn depth_of(&self, v: u32, _memo: &mut [u32], _chain: &mut Vec<u32>) -> Option<u32> {
        Some(self.node_depth(self.node_of(v)?).unwrap_or(u32::MAX))
    }
}

/// The edges joining switch `x` to `tree` (of id `own`: its own switches count as free in its
/// color, installed or not) along a path of switches free in the color, and the depth `x` then
/// has: the path of least resulting depth whose depth is at most `bound`, or else the
/// shortest path to the tree (the nearest tree switch of least depth), `None` when the
/// color's free switches do not join `x` to the tree.
///
/// A switch reached in `k` hops is not expanded, once a path was found, when `k` plus its
/// hop distance to the root exceeds `bound` or is no less than the best depth found: any
/// tree path through it would be deeper (tree depths are no less than hop distances from
/// the root), so it could not replace the best (only a strictly shallower path does), and
/// the switches it would have reached first lead only to paths as deep (ours: the second
/// test; the search finds the same path, it visits less).
///
/// Complexity: O(V·P) for the V switches searched, of P ports, and O(log T) for each tree
/// switch reached, for its depth (kept with the tree).
pub(crate) fn graft_path(
    r: &mut Router<'_>,
    tree: &impl GraftTarget,
    own: TreeId,
    x: u32,
    bound: u32,
) -> Option<(Vec<(u32, Edge)>, u32)> {
    graft_path_with(r, tree, own, x, bound, Skip::NoBetter)
}

/// Which switches [`graft_path_with`] leaves unexpanded once a path is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// Those past `bound` and those that cannot lead to a shallower path.
    NoBetter,
    /// Those past `bound` only (the search before the second test: the tests' reference).
    #[cfg(test)]
    PastBound,
}

/// [`graft_path`] with the switches left unexpanded chosen by `skip`.
fn graft_path_with(
    r: &mut Router<'_>,
    tree: &impl GraftTarget,
    own: TreeId,
    x: u32,
    bound: u32,
    skip: Skip,
) -> Option<(Vec<(u32, Edge)>, u32)> {
    let color = tree.color();
    let colors = &r.state.colors;
    let busy = |v: u32| colors.is_busy(v, color) && colors.tree_at(v, color) != Some(own);
    if busy(x) {
        return None;
    }
    let root_row = r.view.hops.row(tree.root() as usize);
    let s = &mut r.s;
    s.seen.begin();
    s.seen.set(x);
    s.queue.clear();
    s.queue.push(x);
    s.hops[x as usize] = 0;
    tree.reset_memo(&mut s.tree_depth);
    // (resulting depth, tree switch reached).
    let mut best: Option<(u32, u32)> = None;
    let mut head = 0;
    while head < s.queue.len() {
        let u = s.queue[head];
        head += 1;
        let k = s.hops[u as usize];
        if let Some((b, _)) = best
            && k + 1 >= b
        {
            // Nothing deeper in the queue can beat it (depths are ≥ 0, one more hop).
            break;
        }
        for (slot, a) in r.view.g.adj(u).iter().enumerate() {
            let v = a.peer;
            if s.seen.get(v) || busy(v) {
                continue;
            }
            s.seen.set(v);
            s.hops[v as usize] = k + 1;
            s.cost[v as usize] = (u64::from(u) << 32) | slot as u64;
            if let Some(h) = tree.depth_of(v, &mut s.tree_depth, &mut s.chain) {
                let depth = h.saturating_add(k + 1);
                if best.is_none_or(|(b, _)| depth < b) {
                    best = Some((depth, v));
                }
                continue;
            }
            let near = u32::from(root_row[v as usize]);
            if best.is_some_and(|(b, _)| {
                k + 1 + near > bound || (skip == Skip::NoBetter && k + 1 + near >= b)
            }) {
                continue;
            }
            s.queue.push(v);
        }
    }
    let (depth, mut v) = best?;
    // Walk back from the tree switch to x: each switch's parent is the next one toward
    // the tree.
    let mut path = Vec::new();
    while v != x {
        let packed = s.cost[v as usize];
        let (u, slot) = ((packed >> 32) as u32, (packed & 0xFFFF_FFFF) as usize);
        let a = r.view.g.adj(u)[slot];
        path.push((
            u,
            Edge {
                parent: v,
                up_port: a.port,
                down_port: a.peer_port,
                link: a.link,
            },
        ));
        v = u;
    }
    Some((path, depth))
}

#[cfg(test)]
mod tests {
    use fabric_model::{HopTable, generators};

    use super::{Skip, graft_path_with};
    use crate::{Config, Entries, Router};

    /// Random trees of a loaded router and random new switches and bounds: the search that
    /// also skips the switches that cannot lead to a shallower path finds the path and
    /// depth of the search that skips only those past the bound.
    #[test]
    fn skipping_no_better_switches_finds_the_same_path() {
        use rand::Rng;
        let mut rng = fabric_model::rng::seeded(31);
        for (dims, n_colors) in [(&[6, 5, 4][..], 4), (&[8, 8][..], 3), (&[5, 4, 3][..], 16)] {
            let f = generators::torus(dims, 1).unwrap();
            let h = HopTable::new(&f).unwrap();
            let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(n_colors))).unwrap();
            let t = f.terminals().to_vec();
            for _ in 0..60 {
                let size = rng.random_range(2..9);
                let mut g: Vec<_> = (0..size).map(|_| t[rng.random_range(0..t.len())]).collect();
                g.sort_unstable();
                g.dedup();
                let _ = r.create_group(&g);
            }
            let ids: Vec<_> = r.tree_ids().collect();
            let mut found = 0;
            for _ in 0..400 {
                let id = ids[rng.random_range(0..ids.len())];
                let tree = r.state.tree_ref(id).clone();
                let x = rng.random_range(0..r.view.g.len() as u32);
                let bound = rng.random_range(0..12);
                let want = graft_path_with(&mut r, &tree, id, x, bound, Skip::PastBound);
                let got = graft_path_with(&mut r, &tree, id, x, bound, Skip::NoBetter);
                assert_eq!(got, want, "tree {id:?} switch {x} bound {bound}");
                found += usize::from(want.is_some_and(|(p, _)| !p.is_empty()));
            }
            assert!(found > 100, "{found} paths found");
        }
    }
}
