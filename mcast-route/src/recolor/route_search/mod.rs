//! Route-aware recoloring (ours, beyond the paper): a tabu search over each tree's color
//! *and* route, the way routing-and-wavelength-assignment solvers search, for
//! [`Router::recolor_rerouting`].
//!
//! A coloring of the forced conflicts (two trees with a member on one switch) cannot say
//! that at most so many trees of a set fit in one color: on fat_tree(40) 3d-25x25x25 the
//! 625 trees across the core meet in some pod two by two and a tree rooted at a core switch
//! takes the same aggregation index in every pod, so at most 20 fit a color, and TabuCol's
//! classes of 27 to 31 such trees left 1,600 trees without a route in their class's color
//! (57 colors against TabuCol's 48 for the forced conflicts). Here the route is chosen with
//! the color:
//!
//! - [`candidates`]: per tree, one least-height route per candidate root (Alg. 1 step ①),
//!   split into the switches every route holds and a body and root that vary; roots with
//!   the same switch neighbours share one search and one body.
//! - [`occupancy`]: per color and switch the trees there, and the sums a move reads.
//! - [`search`]: TabuCol's moves over (color, route), down one color at a time, with the
//!   overlaps that persist weighted up when asked (breakout).
//! - [`pack`]: a second start, recursive largest first over the forced conflicts with
//!   route choice, whose colors mix trees of every size.
//!
//! The result is installed tree by tree, each searched again (FCTB's least-height search
//! of step ⑨) over the switches of its chosen route that are free in its color.

pub(crate) mod candidates;
pub(crate) mod occupancy;
pub(crate) mod pack;
pub(crate) mod search;

use fabric_model::NodeId;
use fabric_model::hash::FxHashMap;

use crate::mr4lms::roots::{FullSwitches, candidate_roots, max_dist};
use crate::search::{Extent, Pruning};
use crate::tree::Tree;
use crate::{Router, TreeId};
use candidates::Candidates;
use search::Placement;

/// Candidate roots, in index order, whose routes a tree gets at most (one search each, and
/// none for a root with the same switch neighbours as one searched): a bound on the
/// search's tables on fabrics with many least-height centers (a fat tree's largest tree
/// has 20 such root classes).
pub(crate) const MAX_ROUTES: usize = 64;

impl Router<'_> {
    /// Each tree of `ids`'s candidate routes ([`Candidates`], tree `i` is `ids[i]`): for
    /// each candidate root at the least height of its members (Alg. 1 step ①, full
    /// switches included), in index order, the least-hop tree of step ⑨'s search from it
    /// over every switch; a root whose switch neighbours are those of a root already
    /// searched and that is not on that root's tree gets that tree with itself as the root
    /// instead. At most [`MAX_ROUTES`] searches a tree. `None` when a tree's members no
    /// longer validate or a search fails.
    ///
    /// Complexity: O(S · Δ) for the neighbour classes, then per tree O(S) for its
    /// distances and roots and one O((S + L) log S) search per root class (at most
    /// [`MAX_ROUTES`]).
    pub(crate) fn route_candidates(&mut self, ids: &[TreeId]) -> Option<Candidates> {
        let twin = self.twin_classes();
        let mut cand = Candidates::default();
        // Per twin class: the root searched and its switches, for the tree at hand.
        let mut built: FxHashMap<u32, (u32, Vec<u32>)> = FxHashMap::default();
        for &t in ids {
            let terminals: Vec<NodeId> = self.state.tree_ref(t).members().collect();
            let m = self.view.validate(&terminals).ok()?;
            let d = max_dist(&mut self.s, &self.view, &m.sw);
            let mut roots =
                candidate_roots(&self.s, &self.state, d, FullSwitches::Include).unordered();
            roots.sort_unstable();
            self.s.near_of(&self.view.hops, &m.sw);
            built.clear();
            let mut routes: Vec<(u32, Vec<u32>)> = Vec::new();
            let mut searched = 0;
            for r in roots {
                if let Some((r0, sw)) = built.get(&twin[r as usize])
                    && sw.binary_search(&r).is_err()
                {
                    let mut sw: Vec<u32> = sw.iter().copied().filter(|&s| s != *r0).collect();
                    let at = sw.partition_point(|&s| s < r);
                    sw.insert(at, r);
                    routes.push((r, sw));
                    continue;
                }
                if searched == MAX_ROUTES {
                    continue;
                }
                searched += 1;
                let found = self.s.dijkstra(
                    &self.view.g,
                    &self.state.efi,
                    r,
                    |_| true,
                    &m.sw,
                    u32::from(d),
                    Extent::Targets,
                    None,
                    Pruning::Near,
                );
                if !found {
                    return None;
                }
                let mut sw: Vec<u32> = self
                    .s
                    .collect_paths(&self.view.g, m.sw.iter().copied())
                    .into_iter()
                    .map(|(child, _)| child)
                    .collect();
                sw.push(r);
                sw.sort_unstable();
                sw.dedup();
                built.entry(twin[r as usize]).or_insert((r, sw.clone()));
                routes.push((r, sw));
            }
            if routes.is_empty() {
                return None;
            }
            cand.push_tree(&routes);
        }
        Some(cand)
    }

    /// The installed trees `ids` as a placement over `cand` (tree `i` is `ids[i]`): colors
    /// by rank among those in use, each tree's root, and the body of that root whose route
    /// has the fewest switches off the tree (the first of its bodies with its first root
    /// when no body has that root).
    ///
    /// Complexity: O(Σ over trees of their bodies' switches and roots).
    pub(crate) fn placement_now(&self, ids: &[TreeId], cand: &Candidates) -> Placement {
        let per_color = &self.state.colors.trees_per_color;
        let mut rank = vec![0u32; per_color.len()];
        let mut next = 0;
        for (c, &n) in per_color.iter().enumerate() {
            if n > 0 {
                rank[c] = next;
                next += 1;
            }
        }
        let mut at = Placement {
            color: Vec::with_capacity(ids.len()),
            body: Vec::with_capacity(ids.len()),
            root: Vec::with_capacity(ids.len()),
        };
        for (i, &t) in ids.iter().enumerate() {
            let tree = self.state.tree_ref(t);
            let sw = tree.switches();
            let first = cand.bodies_of(i).start;
            let mut best = (usize::MAX, first, cand.roots(cand.root_set(first))[0]);
            for b in cand.bodies_of(i) {
                if cand
                    .roots(cand.root_set(b))
                    .binary_search(&tree.root)
                    .is_err()
                {
                    continue;
                }
                let off = cand
                    .route(i, b, tree.root)
                    .filter(|s| sw.binary_search(s).is_err())
                    .count();
                if off < best.0 {
                    best = (off, b, tree.root);
                }
            }
            at.color.push(rank[tree.color as usize]);
            at.body.push(best.1 as u32);
            at.root.push(best.2);
        }
        at
    }

    /// Per switch, a class shared by the switches with the same switch neighbours.
    ///
    /// Complexity: O(S · Δ log Δ).
    fn twin_classes(&self) -> Vec<u32> {
        let mut ids: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
        (0..self.view.g.len() as u32)
            .map(|s| {
                let mut n: Vec<u32> = self.view.g.adj(s).iter().map(|a| a.peer).collect();
                n.sort_unstable();
                n.dedup();
                let next = ids.len() as u32;
                *ids.entry(n).or_insert(next)
            })
            .collect()
    }

    /// Replaces the trees `ids` (tree `i` is `ids[i]`, every one installed) by those of
    /// `at` over `cand`: each built by step ⑨'s least-height search from its root over
    /// the switches of its route free in its color, with the members and groups of the
    /// tree it replaces. When a tree cannot be built so (a placement with overlaps), the
    /// trees are put back as they were and `false` is returned.
    ///
    /// Complexity: one O((S + L) log S) search and one install per tree.
    pub(crate) fn install_placement(
        &mut self,
        ids: &[TreeId],
        cand: &Candidates,
        at: &Placement,
    ) -> bool {
        let old: Vec<Tree> = ids.iter().map(|&t| self.state.uninstall(t)).collect();
        let mut allowed = vec![false; self.view.g.len()];
        let mut done = 0;
        let mut ok = true;
        for (i, &t) in ids.iter().enumerate() {
            let (c, b, root) = (at.color[i], at.body[i] as usize, at.root[i]);
            let route: Vec<u32> = cand.route(i, b, root).collect();
            for &s in &route {
                allowed[s as usize] = true;
            }
            let tree = self.build_in_route(&old[i], c, root, &allowed);
            for &s in &route {
                allowed[s as usize] = false;
            }
            match tree {
                Some(tree) => {
                    self.state.install(t, tree);
                    done += 1;
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            for &t in &ids[..done] {
                let _ = self.state.uninstall(t);
            }
            for (&t, tree) in ids.iter().zip(old) {
                self.state.install(t, tree);
            }
        }
        ok
    }

    /// A tree for the members and groups of `old` in color `c` from `root`, by step ⑨'s
    /// least-height search over the switches `allowed` and free in `c`; `None` when it
    /// reaches not every member within the least height.
    fn build_in_route(&mut self, old: &Tree, c: u32, root: u32, allowed: &[bool]) -> Option<Tree> {
        let terminals: Vec<NodeId> = old.members().collect();
        let m = self.view.validate(&terminals).ok()?;
        let d = max_dist(&mut self.s, &self.view, &m.sw);
        self.s.near_of(&self.view.hops, &m.sw);
        let colors = &self.state.colors;
        let free = |x: u32| allowed[x as usize] && !colors.is_busy(x, c);
        if !self.s.dijkstra(
            &self.view.g,
            &self.state.efi,
            root,
            free,
            &m.sw,
            u32::from(d),
            Extent::Targets,
            None,
            Pruning::Near,
        ) {
            return None;
        }
        let parents = self.s.collect_paths(&self.view.g, m.sw.iter().copied());
        let leaves: Vec<_> = self.view.leaves_of(m.terminals.iter()).collect();
        let mut tree = Tree::from_parts(c, root, &parents, &leaves);
        tree.add_groups(old.groups().iter().copied());
        tree.add_members(old.member_counts().iter().copied());
        Some(tree)
    }
}

#[cfg(test)]
mod tests;
