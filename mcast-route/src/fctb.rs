//! FCTB, first color then build (Alg. 3), over `G_color` read from the busy bitmaps.

use crate::Router;
use crate::TreeId;
use crate::router::Members;
use crate::tree::Tree;

/// Free candidate roots up to which FCTB skips the connectivity search of steps ③–④ (on
/// the 30×20×20 torus with 256 entries and random groups it saves a third of the time).
const FEW_ROOTS: usize = 64;

/// What a builder found for a new group.
#[derive(Debug)]
pub(crate) enum Built {
    /// A new tree, not yet installed.
    New(Tree),
    /// An existing tree that already spans every member (§3.2.1).
    Existing(TreeId),
}

impl Router<'_> {
    /// Alg. 3. For each color (step ②): BFS in `G_color` from one member (step ③), next color
    /// if a member is unreachable (step ④); otherwise the first candidate root reachable in
    /// `G_color` whose `G_color` distance to every member is at most its hop-table distance
    /// (step ⑤); then Dijkstra in `G_color` from that root (step ⑨, Alg. 5 without old trees),
    /// which is the search of step ⑤ itself (its bounded layered form answers as the BFS).
    /// When the member's island is an existing tree of that color holding every member as a
    /// leaf, the group uses that tree (if it is no higher than the least height).
    ///
    /// `G_color` is never built: a switch–switch link is in it when both ends are free in the
    /// color (or both busy on the same tree), a switch–terminal link when the switch is free
    /// or its tree already has the terminal as a leaf.
    ///
    /// Complexity: O(C·(S + L)) for the searches over C colors.
    pub(crate) fn fctb(&mut self, m: &Members, d: u8) -> Option<Built> {
        let roots = self.candidate_roots(d, true).all();
        self.s.fill_near(self.hops, &m.sw);
        let d = u32::from(d);
        let s0 = m.sw[0];
        let mut reachable_roots = Vec::new();
        for c in 0..self.colors.span() {
            // The island of the first member: an existing tree of color c.
            if let Some(t) = self.colors.tree_at(s0, c) {
                let tree = self.tree_ref(t);
                let spans = m
                    .terminals
                    .iter()
                    .all(|&x| self.attach[x.index()].is_some_and(|a| tree.has_leaf(a.sw, x)));
                // (The heights only when it spans: each costs a walk up the tree.)
                if spans && !m.sw.iter().any(|&s| tree.depth(s).is_none_or(|h| h > d)) {
                    return Some(Built::Existing(t));
                }
                continue;
            }
            // Cheap necessary conditions: every member switch and some root free in c.
            let colors = &self.colors;
            if m.sw.iter().any(|&s| colors.is_busy(s, c))
                || roots.iter().all(|&r| colors.is_busy(r, c))
            {
                continue;
            }
            let free = |x: u32| !colors.is_busy(x, c);
            reachable_roots.clear();
            reachable_roots.extend(roots.iter().copied().filter(|&r| free(r)));
            // Steps ③–④: a root within d of every member puts them within 2d of each other.
            // The search is a filter only (step ⑤ checks each root in full), so with few
            // free roots it is skipped: their own searches, bounded by d, cost less.
            if reachable_roots.len() > FEW_ROOTS {
                if !self.s.bfs(&self.g, s0, 2 * d, free, &m.sw, true) {
                    continue;
                }
                reachable_roots.retain(|&r| self.s.seen.get(r));
            }
            // Step ⑤, with step ⑨'s search: Dijkstra bounded by d goes by BFS layers, so it
            // reaches every member exactly when the BFS would, and leaves the tree's paths.
            let mut chosen = None;
            for &r in &reachable_roots {
                if self
                    .s
                    .dijkstra(&self.g, &self.efi, r, free, &m.sw, d, false, None, true)
                {
                    chosen = Some(r);
                    break;
                }
            }
            let Some(root) = chosen else { continue };
            // Step ⑨: the paths of the search from the root.
            let parents = self.s.collect_paths(&self.g, m.sw.iter().copied());
            let leaves: Vec<_> = self.leaves_of(m.terminals.iter()).collect();
            return Some(Built::New(Tree::from_parts(c, root, &parents, &leaves)));
        }
        None
    }
}
