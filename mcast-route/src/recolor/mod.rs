//! Offline recoloring (ours, beyond the paper): new colors for the existing trees, so that
//! fewer colors are used, with the MFT delta it causes.
//!
//! Alg. 1 colors each tree once, first fit in arrival order, and never revisits it; after a
//! run of creates and deletes the trees often fit in far fewer colors. [`Router::recolor`]
//! colors the trees' conflict graph (two trees conflict when they share a switch) offline:
//! DSatur, then TabuCol one color at a time down to a clique bound (the most trees on one
//! switch, or a larger clique found greedily), keeps the result only when it uses fewer colors than the trees do now, and maps
//! its color classes onto the old colors so that as many entries as possible stay put.

pub(crate) mod reroute;
mod route_search;

use fabric_model::NodeId;

use crate::coloring::{Coloring, Graph, Tabu, dsatur, greedy_clique, tabu_descend};
use crate::mft::MLIDS_PER_BLOCK;
use crate::tree::Tree;
use crate::{PortSet, Router, TreeId};

/// What [`Router::recolor`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Recolored {
    /// Colors used by at least one tree before (as [`Stats::colors_used`](crate::Stats::colors_used)).
    pub colors_before: usize,
    /// Colors used after: at most `colors_before`.
    pub colors_after: usize,
    /// A lower bound on the colors of any recoloring of these trees: the larger of the most
    /// trees on one switch and a clique of their conflict graph found greedily
    /// ([`greedy_clique`]).
    pub floor: usize,
    /// Trees given another color.
    pub trees_recolored: usize,
    /// The (switch, MFT block) pairs whose content changed, as
    /// [`Router::take_mft_delta`] reports them (switch order, then block).
    pub delta: Vec<(NodeId, u16)>,
}

impl Router<'_> {
    /// Recolors the existing trees with fewer colors when it can ([`Tabu::default`]'s
    /// budget); see [`recolor_with`](Self::recolor_with).
    ///
    /// ```
    /// use fabric_model::{HopTable, generators};
    /// use mcast_route::{Config, Entries, Router, patterns};
    ///
    /// let fabric = generators::fat_tree(8)?;
    /// let hops = HopTable::new(&fabric)?;
    /// let mut router = Router::new(&fabric, &hops, Config::mr4lms(Entries::Unlimited))?;
    /// for g in patterns::random_groups(&fabric, 60, 6, 3)? {
    ///     router.create_group(&g)?;
    /// }
    /// let before = router.stats().colors_used;
    /// let r = router.recolor();
    /// assert_eq!(r.colors_before, before);
    /// assert!(r.colors_after <= before && router.stats().colors_used == r.colors_after);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn recolor(&mut self) -> Recolored {
        self.recolor_with(&Tabu::default())
    }

    /// Gives the existing trees new colors, the trees themselves unchanged, when that uses
    /// fewer colors (ours, beyond the paper, which colors each tree once, online; an
    /// explicit call, never made by the routing itself).
    ///
    /// Colors the trees' conflict graph (two trees conflict when they share a switch) with
    /// DSatur, then TabuCol ([`tabu_descend`], budget `tabu`) from the better of DSatur's
    /// coloring and the current one down to [`Recolored::floor`] (the most trees on one
    /// switch, or a larger clique found greedily: no coloring needs fewer). When the best coloring found uses fewer colors than the trees
    /// do now, its color classes are mapped onto the old colors, greedily by the switches
    /// whose entries then stay (the heaviest (class, old color) pair first), and the trees
    /// whose color changes are reinstalled; otherwise nothing changes. Colors never
    /// increase, and every color used afterwards was used before, so an entry limit holds.
    ///
    /// A group's MLID is its tree's color: an SM must announce the new MLIDs of the groups
    /// of the recolored trees. The returned delta is also recorded for
    /// [`take_mft_delta`](Self::take_mft_delta) once tracking has started.
    ///
    /// # Complexity
    /// O(S) when the most trees on one switch already use every color; otherwise building
    /// the conflict graph O(Σ over trees of Σ over their switches of the entries in use
    /// there), its greedy clique O(T · ω · Δ); DSatur O((T + E) log T) for T trees and E conflicts; each TabuCol count
    /// tried up to `tabu.moves()` moves of O(T / 64 + conflicting trees · colors); the
    /// reinstall O(switches of the recolored trees).
    pub fn recolor_with(&mut self, tabu: &Tabu) -> Recolored {
        let used: Vec<u32> = (0..self.state.colors.trees_per_color.len() as u32)
            .filter(|&c| self.state.colors.trees_per_color[c as usize] > 0)
            .collect();
        let before = used.len();
        let most = (0..self.view.g.len() as u32)
            .map(|sw| self.state.colors.in_use(sw))
            .max()
            .unwrap_or(0);
        if most >= before {
            // The trees on one switch already need every color: nothing to gain.
            return Recolored {
                colors_before: before,
                colors_after: before,
                floor: most,
                ..Recolored::default()
            };
        }
        let (ids, g) = self.tree_conflicts();
        let mut rank = vec![0u32; self.state.colors.trees_per_color.len()];
        for (r, &c) in used.iter().enumerate() {
            rank[c as usize] = r as u32;
        }
        let current = Coloring::from_colors(
            ids.iter()
                .map(|&t| rank[self.state.tree_ref(t).color as usize])
                .collect(),
        );
        let floor = most.max(greedy_clique(&g).len());
        let unchanged = Recolored {
            colors_before: before,
            colors_after: before,
            floor,
            ..Recolored::default()
        };
        let ds = dsatur(&g, None).coloring;
        let start = if ds.count() < before { ds } else { current };
        let best = tabu_descend(&g, start, floor, tabu);
        if best.count() >= before {
            return unchanged;
        }
        let new = self.relabel(&ids, &best, &used);
        let moved: Vec<(TreeId, u32)> = ids
            .iter()
            .zip(new)
            .filter(|&(&t, c)| self.state.tree_ref(t).color != c)
            .map(|(&t, c)| (t, c))
            .collect();
        let delta = self.move_trees(&moved);
        Recolored {
            colors_before: before,
            colors_after: best.count(),
            floor,
            trees_recolored: moved.len(),
            delta,
        }
    }

    /// The live trees (by id) and their conflict graph: vertex `i` is `ids[i]`, joined to
    /// every tree sharing a switch with it.
    fn tree_conflicts(&self) -> (Vec<TreeId>, Graph) {
        let ids: Vec<TreeId> = self.tree_ids().collect();
        let mut vertex = vec![u32::MAX; self.state.trees.len()];
        for (i, t) in ids.iter().enumerate() {
            vertex[t.0 as usize] = i as u32;
        }
        let mut stamp = vec![u32::MAX; ids.len()];
        let mut row = Vec::new();
        let mut g = Graph::default();
        for (i, &t) in ids.iter().enumerate() {
            row.clear();
            stamp[i] = i as u32;
            for &sw in self.state.tree_ref(t).switches() {
                for &(_, other) in self.state.colors.entries(sw) {
                    let j = vertex[other.0 as usize];
                    if stamp[j as usize] != i as u32 {
                        stamp[j as usize] = i as u32;
                        row.push(j);
                    }
                }
            }
            row.sort_unstable();
            g.push_row(&row);
        }
        (ids, g)
    }

    /// The old color each class of `best` takes: the (class, old color) pairs by the
    /// switches of the trees they hold in common, heaviest first, each class and color taken
    /// once; classes left over take the old colors left over, in order. `used` holds the
    /// colors in use (more than `best` has classes).
    fn relabel(&self, ids: &[TreeId], best: &Coloring, used: &[u32]) -> Vec<u32> {
        let mut rank = vec![0usize; self.state.colors.trees_per_color.len()];
        for (r, &c) in used.iter().enumerate() {
            rank[c as usize] = r;
        }
        // (class, old color's rank, switches), summed per pair.
        let mut w: Vec<(u32, usize, u64)> = ids
            .iter()
            .zip(best.colors())
            .map(|(&t, &class)| {
                let tree = self.state.tree_ref(t);
                (
                    class,
                    rank[tree.color as usize],
                    tree.switches().len() as u64,
                )
            })
            .collect();
        w.sort_unstable_by_key(|e| (e.0, e.1));
        let mut pairs: Vec<(u32, usize, u64)> = Vec::with_capacity(w.len());
        for e in w {
            match pairs.last_mut() {
                Some(p) if (p.0, p.1) == (e.0, e.1) => p.2 += e.2,
                _ => pairs.push(e),
            }
        }
        pairs.sort_unstable_by_key(|p| (std::cmp::Reverse(p.2), p.0, p.1));
        let k = best.count();
        let mut of_class: Vec<Option<u32>> = vec![None; k];
        let mut taken = vec![false; used.len()];
        for (class, r, _) in pairs {
            if of_class[class as usize].is_none() && !taken[r] {
                of_class[class as usize] = Some(used[r]);
                taken[r] = true;
            }
        }
        let mut free = (0..used.len()).filter(|&r| !taken[r]).map(|r| used[r]);
        for c in &mut of_class {
            if c.is_none() {
                *c = free.next();
            }
        }
        best.colors()
            .iter()
            .map(|&class| of_class[class as usize].unwrap_or(used[0]))
            .collect()
    }

    /// Gives each tree of `moved` its new color (a proper recoloring with the trees not in
    /// `moved`): takes them all out, then installs them all back. Returns the (switch,
    /// block) pairs whose content changed.
    fn move_trees(&mut self, moved: &[(TreeId, u32)]) -> Vec<(NodeId, u16)> {
        let content = |r: &Self, sw: u32, c: u32| -> Option<PortSet> {
            r.state
                .colors
                .tree_at(sw, c)
                .and_then(|t| r.state.tree_ref(t).port_set(sw))
        };
        let mut touched: Vec<(u32, u32, Option<PortSet>)> = Vec::new();
        for &(t, new) in moved {
            let tree = self.state.tree_ref(t);
            for &sw in tree.switches() {
                for c in [tree.color, new] {
                    touched.push((sw, c, content(self, sw, c)));
                }
            }
        }
        touched.sort_unstable_by_key(|e| (e.0, e.1));
        touched.dedup_by_key(|e| (e.0, e.1));
        let out: Vec<(TreeId, Tree)> = moved
            .iter()
            .map(|&(t, _)| (t, self.state.uninstall(t)))
            .collect();
        for ((t, mut tree), &(_, new)) in out.into_iter().zip(moved) {
            tree.color = new;
            self.state.install(t, tree);
        }
        let mut changed: Vec<(u32, u16)> = touched
            .into_iter()
            .filter(|(sw, c, before)| content(self, *sw, *c) != *before)
            .map(|(sw, c, _)| (sw, (c / MLIDS_PER_BLOCK) as u16))
            .collect();
        changed.dedup();
        changed
            .into_iter()
            .map(|(sw, b)| (self.view.sw_node(sw), b))
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests;
