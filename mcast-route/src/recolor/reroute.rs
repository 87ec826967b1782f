//! Offline recoloring with re-routing (ours, beyond the paper): the trees are routed again,
//! each in a color chosen for its members, so that fewer colors are used than any recoloring
//! of the existing trees can reach.
//!
//! [`Router::recolor`] keeps every tree and only renames colors, so it can never go below the
//! trees' own conflicts: two trees crossing one aggregation or core switch need two colors
//! even when no member switch of one is a member switch of the other.
//! [`Router::recolor_rerouting`] colors the *forced* conflicts instead (two trees with a
//! member on one switch: every tree spanning either holds that switch), then builds each tree
//! again by FCTB (Alg. 3) in the color its class was given, so that trees of one class only
//! meet where their members force them to, and finishes with [`Router::recolor`] over the
//! new trees.

use fabric_model::NodeId;

use crate::coloring::{Coloring, Graph, Tabu, dsatur, greedy_clique, tabu_descend};
use crate::mft::MLIDS_PER_BLOCK;
use crate::mr4lms::fctb::Built;
use crate::recolor::route_search::pack::recursive_largest_first;
use crate::recolor::route_search::search::{Placement, Search, descend};
use crate::tree::Tree;
use crate::{Algorithm, PortSet, Recolored, Router, TreeId};

/// The route-aware search's moves per color count are `tabu.moves()` over this: a move
/// there reads every body of each tree in overlap in every color (on fat_tree(40)
/// 3d-25x25x25, 55 to 75 µs a move), TabuCol's one row of counts a vertex.
pub(crate) const ROUTE_MOVES_DIVISOR: usize = 10;

/// Where step 5 of [`Router::recolor_rerouting`] (the route-aware search) starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Starts {
    /// No step 5: what the crate did before the search.
    None,
    /// From the installed trees only (before the RLF start).
    #[cfg(test)]
    Trees,
    /// From the installed trees and from RLF's colors (the default).
    Both,
}

/// Moves without fewer weighted overlaps after which the search from RLF's colors raises
/// the weights of the overlaps left ([`Search::patience`]): on fat_tree(40) 3d-25x25x25
/// (load 3) 10 reached 52 colors, 5, 15 and 20 53, 30 to 200 54, and no weighting 58.
pub(crate) const ROUTE_WEIGHT_PATIENCE: usize = 10;

/// Seeds the weighted search from RLF's colors is run with (the caller's, then the next
/// ones), the fewest colors kept: on fat_tree(40) 3d-25x25x25 one seed gave 52, 54, 52,
/// 54, 52 colors for tabu seeds 0 to 4, two 52 for all five (1.5–2 s more).
pub(crate) const RLF_SEEDS: u64 = 2;

/// RLF's start may use up to this many times the colors to beat (on fat_tree(40)
/// 3d-25x25x25 it takes 59 where 57 are to beat).
pub(crate) const RLF_COLORS_PER_TARGET: usize = 2;

impl Router<'_> {
    /// Routes every tree again in a color given by a coloring of the forced conflicts, then
    /// recolors the new trees, when that uses fewer colors than the trees do now (ours,
    /// beyond the paper; an explicit call, never made by the routing itself).
    ///
    /// 1. The forced-conflict graph of the live trees: two trees conflict when one has a
    ///    member terminal on a switch where the other has one too. It is colored with DSatur,
    ///    then TabuCol ([`tabu_descend`], budget `tabu`) down to its clique bound.
    /// 2. Every tree is taken out, and the trees are built again, the larger first (by the
    ///    switches of the tree they replace; then the larger classes first), by FCTB
    ///    (Alg. 3) restricted to the class's color: the least height, over the switches free
    ///    in that color. A tree FCTB cannot build in its class's color is built in the first
    ///    color that takes it (FCTB over every color). Each new tree keeps its id, its groups
    ///    and its members, so every group keeps its tree and its height stays the least.
    /// 3. The highest color in use is emptied while each of its trees can be built again
    ///    (FCTB) in a lower color, then the next highest, until a tree cannot move.
    /// 4. [`recolor_with`](Self::recolor_with) over the new trees (or, when steps 2–3 gained
    ///    nothing, over the old trees put back).
    /// 5. Where TabuCol's classes are fewer than the colors now in use and the clique
    ///    leaves room, a route-aware tabu search (the crate's `route_search`) starts from the
    ///    trees installed and goes down one color at a time, each tree's color and route
    ///    (one least-height tree per candidate root) chosen together, to no overlap
    ///    between trees of one color; and a second time from recursive largest first's
    ///    colors (RLF over the forced conflicts, each tree taken into a color along a route
    ///    free there), with the overlaps that persist weighted up (breakout; two seeds).
    ///    When the best of these uses fewer colors than step 4, its trees are installed
    ///    (each searched again over its route's switches free in its color) and recolored
    ///    by [`recolor_with`](Self::recolor_with). Otherwise step 4 stands, so this step
    ///    never adds a color.
    ///
    /// On success the returned [`Recolored::floor`] is the clique found in the forced-conflict
    /// graph, a lower bound on the colors of any routing of these members, and
    /// [`Recolored::trees_recolored`] counts the trees given another color or another route.
    ///
    /// When some tree cannot be built again (a limited table with every color busy on its
    /// switches), or the result does not use fewer colors than before, the old trees are put
    /// back and nothing changes (the returned [`Recolored`] then has `colors_after ==
    /// colors_before` and an empty delta). Only MR4LMS's routers are re-routed: with a
    /// baseline algorithm the trees are OpenSM's and this is [`recolor_with`](Self::recolor_with).
    ///
    /// Unlike [`recolor`](Self::recolor), trees change: besides the new MLIDs (a group's
    /// MLID is its tree's color), an SM must send the returned delta, which is also recorded
    /// for [`take_mft_delta`](Self::take_mft_delta) once tracking has started.
    ///
    /// ```
    /// use fabric_model::{HopTable, generators};
    /// use mcast_route::coloring::Tabu;
    /// use mcast_route::{Config, Entries, Router, patterns};
    ///
    /// let fabric = generators::fat_tree(8)?;
    /// let hops = HopTable::new(&fabric)?;
    /// let mut router = Router::new(&fabric, &hops, Config::mr4lms(Entries::Unlimited))?;
    /// for g in patterns::random_groups(&fabric, 60, 6, 3)? {
    ///     router.create_group(&g)?;
    /// }
    /// let before = router.stats().colors_used;
    /// let r = router.recolor_rerouting(&Tabu::default());
    /// assert_eq!(r.colors_before, before);
    /// assert!(r.colors_after <= before && router.stats().colors_used == r.colors_after);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Complexity
    /// The forced-conflict graph O(Σ over switches of (trees with a member there)²); its
    /// coloring as in [`recolor_with`](Self::recolor_with); one FCTB per tree (O(S + L) BFS
    /// and O((S + L) log S) Dijkstra in its class's color, O(C·(S + L)) when it falls back
    /// to every color); the recoloring of the new trees. Step 5: one O((S + L) log S)
    /// search per tree and root class for the candidates, then per color count up to
    /// `tabu.moves() / 10` moves of O(trees + Σ over trees in overlap of bodies · colors),
    /// each color emptied tried once per count, twice (from the trees and from RLF, whose
    /// colors take O(n² · bodies) at worst); its recoloring.
    pub fn recolor_rerouting(&mut self, tabu: &Tabu) -> Recolored {
        self.recolor_rerouting_by(tabu, Starts::Both)
    }

    /// [`recolor_rerouting`](Self::recolor_rerouting), with step 5 (the route-aware
    /// search) from the `starts` given (without it, what the crate did before the search;
    /// the tests compare them).
    pub(crate) fn recolor_rerouting_by(&mut self, tabu: &Tabu, starts: Starts) -> Recolored {
        let before = self.colors_in_use();
        if self.config.algorithm != Algorithm::Mr4lms {
            return self.recolor_with(tabu);
        }
        let ids: Vec<TreeId> = self.tree_ids().collect();
        let g = self.forced_tree_conflicts(&ids);
        let floor = greedy_clique(&g).len();
        let ds = dsatur(&g, None).coloring;
        let classes = tabu_descend(&g, ds, floor, tabu);
        if classes.count() >= before {
            // Not even the forced conflicts fit in fewer colors: re-routing cannot help.
            return self.recolor_with(tabu);
        }
        // Every entry in use now, to compare with what the new trees write.
        let old_entries = self.entries_of(&ids);
        let old: Vec<Tree> = ids
            .iter()
            .map(|&t| self.state.tree_ref(t).clone())
            .collect();
        let first = self.reroute_by_classes(tabu, &ids, &classes, floor, before);
        // (Where TabuCol's classes are no fewer than the colors reached, the search measured
        // nothing to gain: on fat_tree(40) 2d-128x125 and random-1000x16 the same 24 and
        // 58 colors, 1.3 and 1.9 s more.)
        let room = classes.count() < first.colors_after && floor < first.colors_after;
        if starts == Starts::None
            || !room
            || !self.reroute_by_search(tabu, &ids, &g, floor, first.colors_after, starts)
        {
            return first;
        }
        let _ = self.recolor_with(tabu);
        self.rerouted(before, floor, &ids, &old, &old_entries)
    }

    /// Steps 2 to 4 of [`recolor_rerouting`](Self::recolor_rerouting): the trees built
    /// again in the colors of `classes` (a coloring of the forced conflicts of `ids`, whose
    /// clique is `floor`), the top colors emptied, then recolored; when that uses fewer
    /// colors than `before`, the trees stay so, otherwise they are put back and recolored
    /// as they are ([`recolor_with`](Self::recolor_with)).
    fn reroute_by_classes(
        &mut self,
        tabu: &Tabu,
        ids: &[TreeId],
        classes: &Coloring,
        floor: usize,
        before: usize,
    ) -> Recolored {
        let Some(order) = self.reroute_order(ids, classes) else {
            return self.recolor_with(tabu);
        };
        let old_entries = self.entries_of(ids);
        let old: Vec<(TreeId, Tree)> = ids.iter().map(|&t| (t, self.state.uninstall(t))).collect();
        let slot_of = |t: TreeId| ids.iter().position(|&x| x == t);
        let mut built: Vec<TreeId> = Vec::with_capacity(ids.len());
        let mut ok = true;
        for &(t, class) in &order {
            let Some(i) = slot_of(t) else { continue };
            // (Deferring the trees that fail their class's color until every class is placed,
            // or trying only the colors already placed, measured no better: on fat_tree(40)
            // 3d-25x25x25 both ended at 60 colors against 59 in the class-by-class order, and
            // deferring at 60 against 57 in this one.)
            let new = self
                .build_again(&old[i].1, Some(class))
                .or_else(|| self.build_again(&old[i].1, None));
            match new {
                Some(new) => {
                    self.state.install(t, new);
                    built.push(t);
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            self.evict_top_colors();
        }
        if !ok || self.colors_in_use() >= before {
            // Put the old trees back exactly.
            for &t in &built {
                let _ = self.state.uninstall(t);
            }
            for (t, tree) in old {
                self.state.install(t, tree);
            }
            // (The MFT log holds both directions of the undo: an entry changed and changed
            // back is no change to `take_mft_delta`.)
            return self.recolor_with(tabu);
        }
        let _ = self.recolor_with(tabu);
        let old: Vec<Tree> = old.into_iter().map(|(_, tree)| tree).collect();
        self.rerouted(before, floor, ids, &old, &old_entries)
    }

    /// Step 5 of [`recolor_rerouting`](Self::recolor_rerouting), called when the forced
    /// conflicts' classes (whose clique is `floor`) leave room below `target` colors (what
    /// steps 2 to 4 reached, installed now): the route-aware search
    /// ([`crate::recolor::route_search`]) down to `floor`, each tree's color and route chosen
    /// together, [`ROUTE_MOVES_DIVISOR`]-th of `tabu`'s moves per color count, from the
    /// `starts` given: the installed trees (`target` colors), and with [`Starts::Both`]
    /// RLF's colors ([`recursive_largest_first`] over the forced conflicts `g`, with up to
    /// [`RLF_COLORS_PER_TARGET`] times `target` colors) searched with weighted overlaps
    /// ([`ROUTE_WEIGHT_PATIENCE`], [`RLF_SEEDS`] seeds). When the fewest colors found
    /// (the installed trees' on ties) are fewer than `target`, those trees replace the
    /// installed ones and `true` is returned (the caller recolors them). Otherwise
    /// nothing changes.
    ///
    /// (On fat_tree(40) 3d-25x25x25 steps 2 to 4 stop at 57 colors, TabuCol's classes
    /// of the forced conflicts having 48, and the search from them finds no 56: each
    /// color it empties leaves at least 53 overlaps. The 57 are 32 colors holding the 625
    /// lines across 25 pods (31 × 20 + 5; 20 a color at most) and 25 holding the 625
    /// lines across 2–3 pods (25 cliques of 25 in the forced conflicts), no color holding
    /// both. RLF's 59 colors mix them (most colors of 25 short lines hold 6 long ones),
    /// and the weighted search from there reaches 52; unweighted it stops at 58.)
    fn reroute_by_search(
        &mut self,
        tabu: &Tabu,
        ids: &[TreeId],
        g: &Graph,
        floor: usize,
        target: usize,
        starts: Starts,
    ) -> bool {
        let Some(cand) = self.route_candidates(ids) else {
            return false;
        };
        // The larger routes first (fixed switches and first body).
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| {
            let b = cand.bodies_of(i).start;
            (
                std::cmp::Reverse(cand.fixed(i).len() + cand.body(b).len()),
                i,
            )
        });
        let switches = self.view.g.len();
        let moves = tabu.moves() / ROUTE_MOVES_DIVISOR;
        let start = self.placement_now(ids, &cand);
        let from_trees = Search::placed(&cand, switches, target, &start, tabu)
            .and_then(|search| descend(search, target, &order, floor, moves));
        // The second start: RLF's colors, searched with weighted overlaps.
        let from_rlf = (starts == Starts::Both)
            .then(|| Search::empty(&cand, switches, RLF_COLORS_PER_TARGET * target, tabu))
            .flatten()
            .and_then(|mut s| {
                recursive_largest_first(&mut s, RLF_COLORS_PER_TARGET * target, &order, g)
            })
            .and_then(|start| {
                let k = start.colors_used();
                let mut best: Option<Placement> = None;
                for i in 0..RLF_SEEDS {
                    let seeded = tabu.with_seed(tabu.seed().wrapping_add(i));
                    let Some(mut search) = Search::placed(&cand, switches, k, &start, &seeded)
                    else {
                        break;
                    };
                    search.patience = ROUTE_WEIGHT_PATIENCE;
                    let found = descend(search, k, &order, floor, moves);
                    if let Some(p) = found
                        && best
                            .as_ref()
                            .is_none_or(|b| p.colors_used() < b.colors_used())
                    {
                        best = Some(p);
                    }
                }
                best
            });
        let best = match (from_trees, from_rlf) {
            (Some(a), Some(b)) if b.colors_used() < a.colors_used() => Some(b),
            (a, b) => a.or(b),
        };
        let Some(at) = best.filter(|at| at.colors_used() < target) else {
            return false;
        };
        self.install_placement(ids, &cand, &at)
    }

    /// What [`recolor_rerouting`](Self::recolor_rerouting) did to trees `ids`, which were
    /// `old` with entries `old_entries` and `before` colors.
    fn rerouted(
        &self,
        before: usize,
        floor: usize,
        ids: &[TreeId],
        old: &[Tree],
        old_entries: &[(u32, u32, PortSet)],
    ) -> Recolored {
        let new_entries = self.entries_of(ids);
        let moved = ids
            .iter()
            .zip(old)
            .filter(|(t, was)| {
                let now = self.state.tree_ref(**t);
                now.color != was.color
                    || now.switches() != was.switches()
                    || now
                        .switches()
                        .iter()
                        .any(|&sw| now.port_set(sw) != was.port_set(sw))
            })
            .count();
        Recolored {
            colors_before: before,
            colors_after: self.colors_in_use(),
            floor,
            trees_recolored: moved,
            delta: entry_delta(self, old_entries, &new_entries),
        }
    }

    /// Step 3 of [`recolor_rerouting`](Self::recolor_rerouting): empties the highest color
    /// in use while every tree of it can be built again (FCTB) in a lower color, then the
    /// next; stops at the first color with a tree that cannot move (the trees moved out of
    /// it stay moved).
    fn evict_top_colors(&mut self) {
        loop {
            let Some(top) = self
                .state
                .colors
                .trees_per_color
                .iter()
                .rposition(|&n| n > 0)
                .map(|c| c as u32)
            else {
                return;
            };
            if top == 0 {
                return;
            }
            let in_top: Vec<TreeId> = self
                .tree_ids()
                .filter(|&t| self.state.tree_ref(t).color == top)
                .collect();
            let mut all = true;
            for t in in_top {
                let old = self.state.uninstall(t);
                match self.build_again(&old, None).filter(|tree| tree.color < top) {
                    Some(tree) => self.state.install(t, tree),
                    None => {
                        self.state.install(t, old);
                        all = false;
                    }
                }
            }
            if !all {
                return;
            }
        }
    }

    /// Colors used by at least one tree.
    fn colors_in_use(&self) -> usize {
        self.state
            .colors
            .trees_per_color
            .iter()
            .filter(|&&n| n > 0)
            .count()
    }

    /// The forced-conflict graph of trees `ids` (vertex `i` is `ids[i]`): two trees conflict
    /// when both have a member terminal on one switch.
    pub(crate) fn forced_tree_conflicts(&self, ids: &[TreeId]) -> Graph {
        let member_sw: Vec<Vec<u32>> = ids
            .iter()
            .map(|&t| {
                let mut sw: Vec<u32> = self
                    .state
                    .tree_ref(t)
                    .leaf_counts()
                    .map(|(s, _)| s)
                    .collect();
                sw.sort_unstable();
                sw.dedup();
                sw
            })
            .collect();
        let mut at: Vec<Vec<u32>> = vec![Vec::new(); self.view.g.len()];
        for (i, sws) in member_sw.iter().enumerate() {
            for &s in sws {
                at[s as usize].push(i as u32);
            }
        }
        let mut adjacency: Vec<Vec<u32>> = vec![Vec::new(); ids.len()];
        for here in &at {
            for &a in here {
                adjacency[a as usize].extend(here.iter().copied().filter(|&b| b != a));
            }
        }
        for row in &mut adjacency {
            row.sort_unstable();
            row.dedup();
        }
        Graph::from_rows(&adjacency)
    }

    /// The trees in the order they are built again, each with its class's color: the larger
    /// trees first (switches in the tree now: a tree crossing more switches finds fewer
    /// routes free in its class's color once the class's other trees are in), then the
    /// classes by size (larger first, then by class), then by id. `None` when the table has
    /// fewer colors than `classes` has classes.
    ///
    /// (Class by class, the trees with more member switches first in a class, gave 59
    /// colors on fat_tree(40) 3d-25x25x25 against 57 this way: a class's 30 trees through
    /// the core switches took its aggregation switches before the trees of the later
    /// classes could.)
    fn reroute_order(&self, ids: &[TreeId], classes: &Coloring) -> Option<Vec<(TreeId, u32)>> {
        let k = classes.count();
        if (k as u32) > self.state.colors.span() {
            return None;
        }
        let mut size = vec![0usize; k];
        for &c in classes.colors() {
            size[c as usize] += 1;
        }
        let mut class_rank: Vec<u32> = (0..k as u32).collect();
        class_rank.sort_by_key(|&c| (std::cmp::Reverse(size[c as usize]), c));
        let mut color_of = vec![0u32; k];
        for (color, &c) in class_rank.iter().enumerate() {
            color_of[c as usize] = color as u32;
        }
        let mut order: Vec<(TreeId, u32, usize)> = ids
            .iter()
            .zip(classes.colors())
            .map(|(&t, &c)| {
                let n = self.state.tree_ref(t).switches().len();
                (t, color_of[c as usize], n)
            })
            .collect();
        order.sort_by_key(|&(t, color, n)| (std::cmp::Reverse(n), color, t));
        Some(order.into_iter().map(|(t, c, _)| (t, c)).collect())
    }

    /// A tree for the members and groups of `old` (not installed), built by FCTB in `color`,
    /// or with `None` in the first color that takes it; `None` when it cannot be built so.
    fn build_again(&mut self, old: &Tree, color: Option<u32>) -> Option<Tree> {
        let terminals: Vec<NodeId> = old.members().collect();
        let m = self.view.validate(&terminals).ok()?;
        let d = self.max_dist(&m.sw);
        // An existing tree spanning the members would merge two trees: not ours to do.
        let Some(Built::New(mut tree)) = self.fctb_in(&m, d, color) else {
            return None;
        };
        tree.add_groups(old.groups().iter().copied());
        tree.add_members(old.member_counts().iter().copied());
        Some(tree)
    }

    /// Every (switch, color, ports) entry of trees `ids`, sorted.
    fn entries_of(&self, ids: &[TreeId]) -> Vec<(u32, u32, PortSet)> {
        let mut v: Vec<(u32, u32, PortSet)> = Vec::new();
        for &t in ids {
            if let Some(Some(tree)) = self.state.trees.get(t.0 as usize) {
                for &sw in tree.switches() {
                    if let Some(p) = tree.port_set(sw) {
                        v.push((sw, tree.color, p));
                    }
                }
            }
        }
        v.sort_unstable_by_key(|e| (e.0, e.1));
        v
    }
}

/// The (switch, MFT block) pairs where `old` and `new` (sorted (switch, color, ports) entries)
/// differ, in switch order then block.
fn entry_delta(
    r: &Router<'_>,
    old: &[(u32, u32, PortSet)],
    new: &[(u32, u32, PortSet)],
) -> Vec<(NodeId, u16)> {
    let (mut i, mut j) = (0, 0);
    let mut changed: Vec<(u32, u16)> = Vec::new();
    let block = |c: u32| (c / MLIDS_PER_BLOCK) as u16;
    while i < old.len() || j < new.len() {
        let a = old.get(i).map(|e| (e.0, e.1));
        let b = new.get(j).map(|e| (e.0, e.1));
        match (a, b) {
            (Some(ka), Some(kb)) if ka == kb => {
                if old[i].2 != new[j].2 {
                    changed.push((ka.0, block(ka.1)));
                }
                i += 1;
                j += 1;
            }
            (Some(ka), Some(kb)) if ka < kb => {
                changed.push((ka.0, block(ka.1)));
                i += 1;
            }
            (Some(_), None) => {
                let (sw, c, _) = old[i];
                changed.push((sw, block(c)));
                i += 1;
            }
            (_, Some(kb)) => {
                changed.push((kb.0, block(kb.1)));
                j += 1;
            }
            (None, None) => break,
        }
    }
    changed.sort_unstable();
    changed.dedup();
    changed
        .into_iter()
        .map(|(sw, b)| (r.view.sw_node(sw), b))
        .collect()
}

#[cfg(test)]
#[path = "reroute_tests.rs"]
mod tests;
