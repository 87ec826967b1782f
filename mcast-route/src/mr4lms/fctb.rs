//! FCTB, first color then build (Alg. 3), over `G_color` read from the busy bitmaps.

use crate::Router;
use crate::TreeId;
use crate::mr4lms::roots::{FullSwitches, candidate_roots};
use crate::router::state::State;
use crate::router::view::{Members, View};
use crate::search::Scratch;
use crate::search::{Extent, Pruning};
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
        self.fctb_in(m, d, None)
    }

    /// [`fctb_in`] over this router's view, state and scratch.
    pub(crate) fn fctb_in(&mut self, m: &Members, d: u8, only: Option<u32>) -> Option<Built> {
        fctb_in(&self.view, &self.state, &mut self.s, m, d, only)
    }
}

/// [`Router::fctb`] over every color, or over `only` that color: reads the view and the
/// state, writes only the searches' `scratch`, and returns the tree for the caller to
/// install.
pub(crate) fn fctb_in(
    view: &View<'_>,
    state: &State,
    scratch: &mut Scratch,
    m: &Members,
    d: u8,
    only: Option<u32>,
) -> Option<Built> {
    // The candidates in order only as far as step ⑤ takes them (usually the first free
    // one succeeds): the necessary conditions need them in no order.
    let mut order = candidate_roots(scratch, state, d, FullSwitches::Skip);
    let roots = order.unordered();
    let mut in_order: Vec<u32> = Vec::new();
    // The free roots the filtering BFS reached, as a bit set over the switches. Hand-written
    // words: with a bitvec `BitVec` an FCTB-only run (dragonfly(18, 9, 9), 600 random
    // groups of 16, 256 entries) took 2.1210 G instructions instead of 2.1068 G.
    let mut reached = vec![0u64; view.g.len().div_ceil(64)];
    scratch.near_of(&view.hops, &m.sw);
    let d = u32::from(d);
    let s0 = m.sw[0];
    let mut reachable_roots = Vec::new();
    let colors = only.map_or(0..state.colors.span(), |c| c..c + 1);
    for c in colors {
        // The island of the first member: an existing tree of color c.
        if let Some(t) = state.colors.tree_at(s0, c) {
            let tree = state.tree_ref(t);
            let spans = m
                .terminals
                .iter()
                .all(|&x| view.attach[x.index()].is_some_and(|a| tree.has_leaf(a.sw, x)));
            // (The heights only when it spans: each costs a walk up the tree.)
            if spans && !m.sw.iter().any(|&s| tree.depth(s).is_none_or(|h| h > d)) {
                return Some(Built::Existing(t));
            }
            continue;
        }
        // Cheap necessary conditions: every member switch and some root free in c.
        let colors = &state.colors;
        if m.sw.iter().any(|&s| colors.is_busy(s, c)) || roots.iter().all(|&r| colors.is_busy(r, c))
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
            if !scratch.bfs(&view.g, s0, 2 * d, free, &m.sw, Pruning::Near) {
                continue;
            }
            reachable_roots.retain(|&r| scratch.seen.get(r));
        }
        for &r in &reachable_roots {
            crate::bits::set(&mut reached, r as usize);
        }
        // Step ⑤, with step ⑨'s search: Dijkstra bounded by d goes by BFS layers, so it
        // reaches every member exactly when the BFS would, and leaves the tree's paths.
        // The roots in order, as many as taken so far and then from `order`.
        let mut chosen = None;
        let mut left = reachable_roots.len();
        let mut k = 0;
        while left > 0 {
            let r = match in_order.get(k) {
                Some(&r) => r,
                None => {
                    let r = order.next().expect("every reachable root is a candidate");
                    in_order.push(r);
                    r
                }
            };
            k += 1;
            if !crate::bits::get(&reached, r as usize) {
                continue;
            }
            left -= 1;
            if scratch.dijkstra(
                &view.g,
                &state.efi,
                r,
                free,
                &m.sw,
                d,
                Extent::Targets,
                None,
                Pruning::Near,
            ) {
                chosen = Some(r);
                break;
            }
        }
        for &r in &reachable_roots {
            crate::bits::clear(&mut reached, r as usize);
        }
        let Some(root) = chosen else { continue };
        // Step ⑨: the paths of the search from the root.
        let parents = scratch.collect_paths(&view.g, m.sw.iter().copied());
        let leaves: Vec<_> = view.leaves_of(m.terminals.iter()).collect();
        return Some(Built::New(Tree::from_parts(c, root, &parents, &leaves)));
    }
    None
}

#[cfg(test)]
mod tests {
    use fabric_model::{HopTable, generators};

    use super::{Built, FEW_ROOTS};
    use crate::mr4lms::roots::FullSwitches;
    use crate::router::view::Members;
    use crate::search::{Extent, Pruning};
    use crate::tree::Tree;
    use crate::{Config, Entries, Policy, Router, patterns};

    /// Alg. 3 as [`Router::fctb`] was written before it took the candidate roots in order
    /// lazily: every candidate sorted first, then filtered a color. The reference of
    /// [`fctb_matches_the_sorted_roots_reference`].
    fn fctb_sorted(r: &mut Router<'_>, m: &Members, d: u8) -> Option<Built> {
        let roots = r.candidate_roots(d, FullSwitches::Skip).all();
        r.s.near_of(&r.view.hops, &m.sw);
        let d = u32::from(d);
        let s0 = m.sw[0];
        for c in 0..r.state.colors.span() {
            if let Some(t) = r.state.colors.tree_at(s0, c) {
                let tree = r.state.tree_ref(t);
                let spans = m
                    .terminals
                    .iter()
                    .all(|&x| r.view.attach[x.index()].is_some_and(|a| tree.has_leaf(a.sw, x)));
                if spans && !m.sw.iter().any(|&s| tree.depth(s).is_none_or(|h| h > d)) {
                    return Some(Built::Existing(t));
                }
                continue;
            }
            let colors = &r.state.colors;
            if m.sw.iter().any(|&s| colors.is_busy(s, c))
                || roots.iter().all(|&x| colors.is_busy(x, c))
            {
                continue;
            }
            let free = |x: u32| !colors.is_busy(x, c);
            let mut reachable: Vec<u32> = roots.iter().copied().filter(|&x| free(x)).collect();
            if reachable.len() > FEW_ROOTS {
                if !r.s.bfs(&r.view.g, s0, 2 * d, free, &m.sw, Pruning::Near) {
                    continue;
                }
                reachable.retain(|&x| r.s.seen.get(x));
            }
            let mut chosen = None;
            for &x in &reachable {
                if r.s.dijkstra(
                    &r.view.g,
                    &r.state.efi,
                    x,
                    free,
                    &m.sw,
                    d,
                    Extent::Targets,
                    None,
                    Pruning::Near,
                ) {
                    chosen = Some(x);
                    break;
                }
            }
            let Some(root) = chosen else { continue };
            let parents = r.s.collect_paths(&r.view.g, m.sw.iter().copied());
            let leaves: Vec<_> = r.view.leaves_of(m.terminals.iter()).collect();
            return Some(Built::New(Tree::from_parts(c, root, &parents, &leaves)));
        }
        None
    }

    /// FCTB takes the same root, color and tree as with every candidate sorted first, on
    /// fabrics with few candidate roots a group (a torus) and with more than [`FEW_ROOTS`]
    /// (a random regular fabric: the filtering BFS runs), through creates that fill every
    /// entry; new trees, reused trees and failures all occur.
    #[test]
    fn fctb_matches_the_sorted_roots_reference() {
        let (mut existing, mut many) = (0, 0);
        for (f, limit) in [
            (generators::torus(&[7, 6], 1).unwrap(), 5),
            (generators::random_regular(160, 6, 2, 3).unwrap(), 6),
            (generators::fat_tree(18).unwrap(), 3),
        ] {
            let h = HopTable::new(&f).unwrap();
            let cfg = Config {
                policy: Policy::FctbOnly,
                ..Config::mr4lms(Entries::Limit(limit))
            };
            let mut r = Router::new(&f, &h, cfg).unwrap();
            let (mut new, mut failed) = (0, 0);
            for g in patterns::random_groups(&f, 120, 3, 11).unwrap() {
                let m = r.view.validate(&g).unwrap();
                let d = r.max_dist(&m.sw);
                many += usize::from(
                    r.candidate_roots(d, FullSwitches::Skip).unordered().len() > FEW_ROOTS,
                );
                let want = fctb_sorted(&mut r, &m, d);
                let d = r.max_dist(&m.sw);
                let got = r.fctb(&m, d);
                match (&got, &want) {
                    (Some(Built::New(a)), Some(Built::New(b))) => {
                        assert_eq!(a, b, "group {g:?}");
                        new += 1;
                    }
                    (Some(Built::Existing(a)), Some(Built::Existing(b))) => {
                        assert_eq!(a, b, "group {g:?}");
                        existing += 1;
                    }
                    (None, None) => failed += 1,
                    _ => panic!("group {g:?}: {got:?} vs {want:?}"),
                }
                r.create_group(&g).unwrap();
            }
            assert!(new > 0 && failed > 0, "{new} {failed}");
        }
        assert!(existing > 0 && many > 0, "{existing} {many}");
    }
}
