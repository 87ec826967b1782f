//! FBTC, first build then color (Alg. 1).

use std::iter;

use crate::mr4lms::fctb::Built;
use crate::mr4lms::roots::{FullSwitches, bottom_up_greedy, bottom_up_least_load, candidate_roots};
use crate::router::state::State;
use crate::router::view::{Members, View};
use crate::search::Scratch;
use crate::tree::{Edge, Tree};
use crate::{BottomUp, Config, Router};

/// [`BottomUp::BestOfBoth`] builds the least-load tree only when the greedy tree has a link
/// whose EFI is at least the fabric's largest link EFI minus this: with 1, only where the new
/// group could raise the largest EFI (its links each gain 1). 0 (only trees on a link at the
/// largest) gave max EFI 42 on the torus 28×28×28 grid (SSSP-MC 43) against 38 with 1.
pub(crate) const GATE_SLACK: u32 = 1;

/// A colorable FBTC tree: color, root, parent edges, whether its walk had a choice of parent.
type Candidate = (u32, u32, Vec<(u32, Edge)>, bool);

impl Router<'_> {
    /// [`fbtc`] over this router's view, state and scratch.
    pub(crate) fn fbtc(&mut self, m: &Members, d: u8) -> Option<Built> {
        fbtc(&self.view, &mut self.state, &self.config, &mut self.s, m, d)
    }
}

/// Alg. 1: for each candidate root in order of load (step ②), build the tree bottom-up
/// (step ③, Alg. 2) and color it first-fit (step ④); the first root whose tree can be
/// colored wins. `None` when no root's tree can be colored (the caller merges).
///
/// With [`Config::with_fbtc_root_tries`](crate::Config::with_fbtc_root_tries) = n > 1 (beyond the
/// paper), the first n colorable roots are built and the one of least color kept (ties
/// to the earlier root).
///
/// With [`BottomUp::BestOfBoth`] (the default, beyond the paper) the roots' trees are
/// built greedily and the chosen root's tree is built again along least-load paths; the
/// least of the two by (color, largest link EFI, summed link EFI) is kept, ties to the
/// least-load tree. The second build runs only when the greedy tree has a link within
/// [`GATE_SLACK`] of the fabric's largest EFI.
///
/// Complexity: O(R·(T·P + T·C/64)) for R roots tried, T tree switches, P ports, C colors;
/// [`BottomUp::BestOfBoth`] adds O(A·P + T·C/64) for the A switches on least-hop paths
/// from the members to the chosen root.
pub(crate) fn fbtc(
    view: &View<'_>,
    state: &mut State,
    config: &Config,
    scratch: &mut Scratch,
    m: &Members,
    d: u8,
) -> Option<Built> {
    // Every tree holds the member switches: no color free on all of them, no tree can be
    // colored (the paper finds this out by trying every root), and a tree colored with
    // the first color free on them cannot be beaten.
    let floor = state.colors.first_fit(m.sw.iter().copied())?;
    let members_busy = state.colors.last_fit_busy().to_vec();
    let roots = candidate_roots(scratch, state, d, FullSwitches::Skip);
    let tries = config.fbtc_root_tries.max(1);
    // (color, root, parent edges, branched) of the best tree so far.
    let mut best: Option<Candidate> = None;
    let mut tried = 0;
    // Whether every tree is colored: unlimited entries, or a color below the limit still
    // unused.
    let every = state.colors.colors_every_tree();
    for root in roots {
        // While every tree is colored, a greedy build that can no longer beat the best
        // color (ties go to the earlier root) stops early, and counts as a try as the
        // finished tree would. Otherwise a tree with no color does not count as a try
        // (steps ⑤–⑦), so a build cut short must know whether it has one: it stops
        // early only once every color below the limit is busy on it.
        let cutoff = if every {
            best.as_ref().map(|b| b.0)
        } else {
            Some(state.colors.span())
        };
        let cutoff = cutoff.map(|c| (c, members_busy.as_slice()));
        let built = if config.bottom_up == BottomUp::LeastLoadPath {
            Some((
                bottom_up_least_load(view, state, scratch, root, &m.sw, None),
                false,
                None,
            ))
        } else {
            bottom_up_greedy(view, state, scratch, root, &m.sw, None, cutoff)
        };
        let Some((parents, branched, known)) = built else {
            if !every {
                // No color below the limit: the next root.
                continue;
            }
            tried += 1;
            if tried >= tries {
                break;
            }
            continue;
        };
        // A build with a cut-off found its first-fit color on the way.
        let color = known.or_else(|| {
            state
                .colors
                .first_fit(iter::once(root).chain(parents.iter().map(|p| p.0)))
        });
        // Steps ⑤–⑦: no color, try the next root.
        let Some(color) = color else { continue };
        if best.as_ref().is_none_or(|b| color < b.0) {
            best = Some((color, root, parents, branched));
        }
        tried += 1;
        if tried >= tries || color == floor {
            break;
        }
    }
    let (mut color, root, mut parents, branched) = best?;
    // The second build only where the greedy tree comes within GATE_SLACK of the
    // fabric's largest link EFI: elsewhere it cannot raise the largest EFI.
    if branched
        && config.bottom_up == BottomUp::BestOfBoth
        && load_of(state, &parents).0 + GATE_SLACK >= state.max_efi
    {
        let least = bottom_up_least_load(view, state, scratch, root, &m.sw, None);
        let least_color = state
            .colors
            .first_fit(iter::once(root).chain(least.iter().map(|p| p.0)));
        if let Some(c) = least_color
            && (c, load_of(state, &least)) <= (color, load_of(state, &parents))
        {
            (color, parents) = (c, least);
        }
    }
    let leaves: Vec<_> = view.leaves_of(m.terminals.iter()).collect();
    Some(Built::New(Tree::from_parts_in(
        &mut scratch.index,
        color,
        root,
        &parents,
        &leaves,
    )))
}

/// The largest and the summed EFI over the links of a tree's parent edges
/// ([`BottomUp::BestOfBoth`]'s comparison).
///
/// Complexity: O(T) for T edges.
fn load_of(state: &State, parents: &[(u32, Edge)]) -> (u32, u64) {
    parents.iter().fold((0, 0), |(max, sum), p| {
        let e = state.efi[p.1.link.index()];
        (max.max(e), sum + u64::from(e))
    })
}

#[cfg(test)]
mod tests {
    use std::iter;

    use fabric_model::{HopTable, generators};

    use super::GATE_SLACK;
    use crate::mr4lms::fctb::Built;
    use crate::mr4lms::roots::FullSwitches;
    use crate::router::view::Members;
    use crate::tree::Tree;
    use crate::{Config, Entries, Policy, Router, patterns};

    /// With every root allowed, FBTC's color is the least first-fit color over all
    /// candidate roots (the early stop at the member switches' first free color loses
    /// nothing), and it fails exactly when every root fails.
    #[test]
    fn root_tries_reach_the_least_color_of_all_roots() {
        let f = generators::fat_tree(6).unwrap();
        let h = HopTable::new(&f).unwrap();
        let cfg = Config {
            policy: Policy::FbtcOnly,
            fbtc_root_tries: u32::MAX,
            ..Config::mr4lms(Entries::Limit(14))
        };
        let mut r = Router::new(&f, &h, cfg).unwrap();
        let (mut colored, mut failed) = (0, 0);
        for g in patterns::random_groups(&f, 80, 5, 21).unwrap() {
            let m = r.view.validate(&g).unwrap();
            let d = r.max_dist(&m.sw);
            let roots = r.candidate_roots(d, FullSwitches::Skip).all();
            let best = roots
                .iter()
                .filter_map(|&root| {
                    let parents = r.bottom_up(root, &m.sw, None);
                    r.state
                        .colors
                        .first_fit(iter::once(root).chain(parents.iter().map(|p| p.0)))
                })
                .min();
            let d = r.max_dist(&m.sw);
            match (r.fbtc(&m, d), best) {
                (Some(Built::New(t)), Some(c)) => {
                    assert_eq!(t.color, c, "group {g:?}");
                    colored += 1;
                }
                (None, None) => failed += 1,
                (got, want) => panic!("group {g:?}: {got:?} vs {want:?}"),
            }
            r.create_group(&g).unwrap();
        }
        assert!(colored > 20 && failed > 0, "{colored} {failed}");
    }

    /// With an entry limit and a few root tries, FBTC picks the same root and color as the
    /// plain loop of Alg. 1 (every greedy tree built whole and colored first-fit, a tree
    /// with no color not counting as a try): the cut-offs, at the best color while a color
    /// below the limit is unused and at the limit after, change nothing. Both phases occur
    /// (a build cut at the best color past the limit, or counting a tree with no color as
    /// a try, each fails it).
    #[test]
    fn limited_root_tries_match_the_plain_loop() {
        let f = generators::fat_tree(6).unwrap();
        let h = HopTable::new(&f).unwrap();
        for tries in [2, 3] {
            let cfg = Config {
                policy: Policy::FbtcOnly,
                fbtc_root_tries: tries,
                bottom_up: crate::BottomUp::Greedy,
                ..Config::mr4lms(Entries::Limit(12))
            };
            let mut r = Router::new(&f, &h, cfg).unwrap();
            let (mut before, mut after, mut failed) = (0, 0, 0);
            for g in patterns::random_groups(&f, 70, 3, 17).unwrap() {
                let m = r.view.validate(&g).unwrap();
                let d = r.max_dist(&m.sw);
                let every = r.state.colors.colors_every_tree();
                let floor = r.state.colors.first_fit(m.sw.iter().copied());
                let mut want: Option<(u32, u32)> = None;
                let mut tried = 0;
                for root in r.candidate_roots(d, FullSwitches::Skip).all() {
                    if floor.is_none() {
                        break;
                    }
                    let parents = r.bottom_up_greedy(root, &m.sw, None, None).unwrap().0;
                    let tree = iter::once(root).chain(parents.iter().map(|p| p.0));
                    let Some(c) = r.state.colors.first_fit(tree) else {
                        continue;
                    };
                    if want.is_none_or(|w| c < w.0) {
                        want = Some((c, root));
                    }
                    tried += 1;
                    if tried >= tries || Some(c) == floor {
                        break;
                    }
                }
                let d = r.max_dist(&m.sw);
                let got = match r.fbtc(&m, d) {
                    Some(Built::New(t)) => Some((t.color, t.root)),
                    None => None,
                    Some(Built::Existing(_)) => unreachable!("FBTC builds new trees"),
                };
                assert_eq!(got, want, "tries {tries} group {g:?}");
                match (got, every) {
                    (None, _) => failed += 1,
                    (Some(_), true) => before += 1,
                    (Some(_), false) => after += 1,
                }
                r.create_group(&g).unwrap();
            }
            assert!(
                before > 0 && after > 0 && failed > 0,
                "{before} {after} {failed}"
            );
        }
    }

    /// The greedy build's cut-off: it gives up exactly when the finished tree's first-fit
    /// color would be at least the cut-off, and otherwise builds the same tree.
    #[test]
    fn greedy_cutoff_stops_exactly_when_the_tree_cannot_beat_it() {
        let f = generators::torus(&[7, 6], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
        let (mut cut, mut kept) = (0, 0);
        for g in patterns::random_groups(&f, 60, 4, 5).unwrap() {
            let m = r.view.validate(&g).unwrap();
            let d = r.max_dist(&m.sw);
            r.state.colors.first_fit(m.sw.iter().copied());
            let members_busy = r.state.colors.last_fit_busy().to_vec();
            for root in r
                .candidate_roots(d, FullSwitches::Skip)
                .all()
                .into_iter()
                .take(4)
            {
                let full = r.bottom_up_greedy(root, &m.sw, None, None).unwrap();
                let color = r
                    .state
                    .colors
                    .first_fit(iter::once(root).chain(full.0.iter().map(|p| p.0)))
                    .unwrap();
                for c in [1, color, color + 1, 70] {
                    // With the member switches' colors counted from the start, and without.
                    for busy in [&members_busy[..], &[]] {
                        match r.bottom_up_greedy(root, &m.sw, None, Some((c, busy))) {
                            None => {
                                assert!(color >= c, "group {g:?} root {root} cut {c}");
                                cut += 1;
                            }
                            Some(t) => {
                                let same = (&t.0, t.1) == (&full.0, full.1);
                                assert!(color < c && same, "group {g:?} root {root} cut {c}");
                                // The first-fit color found on the way is the tree's.
                                assert_eq!(t.2, Some(color), "group {g:?} root {root} cut {c}");
                                kept += 1;
                            }
                        }
                    }
                }
            }
            r.create_group(&g).unwrap();
        }
        assert!(cut > 0 && kept > 0, "{cut} {kept}");
    }

    /// FBTC's tree for `m` from the router's state with `BottomUp::Greedy` and with
    /// `BottomUp::BestOfBoth` (unlimited entries: both color).
    fn greedy_and_both(r: &mut Router<'_>, m: &Members, d: u8) -> (Tree, Tree) {
        let build = |r: &mut Router<'_>, b| {
            r.config.bottom_up = b;
            match r.fbtc(m, d) {
                Some(Built::New(t)) => t,
                other => panic!("unlimited entries always color: {other:?}"),
            }
        };
        let greedy = build(r, crate::BottomUp::Greedy);
        (greedy, build(r, crate::BottomUp::BestOfBoth))
    }

    /// `BottomUp::BestOfBoth`: from the same state, FBTC's tree is never worse than the
    /// greedy build's by (color, largest link EFI, summed link EFI), has the same root and
    /// the least height, and is better for some groups.
    #[test]
    fn best_of_both_is_no_worse_than_greedy() {
        let f = generators::torus(&[7, 6], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
        assert_eq!(r.config.bottom_up, crate::BottomUp::BestOfBoth);
        let key = |r: &Router<'_>, t: &Tree| {
            let e: Vec<u32> = t
                .parents()
                .filter_map(|(_, e)| e.map(|e| r.state.efi[e.link.index()]))
                .collect();
            let sum: u64 = e.iter().map(|&x| u64::from(x)).sum();
            (t.color, e.iter().copied().max().unwrap_or(0), sum)
        };
        let mut better = 0;
        for g in patterns::random_groups(&f, 60, 4, 5).unwrap() {
            let m = r.view.validate(&g).unwrap();
            let d = r.max_dist(&m.sw);
            let (greedy, both) = greedy_and_both(&mut r, &m, d);
            assert_eq!(both.root, greedy.root, "group {g:?}");
            assert_eq!(both.max_depth(&m.sw), Some(u32::from(d)), "group {g:?}");
            let (kb, kg) = (key(&r, &both), key(&r, &greedy));
            assert!(kb <= kg, "group {g:?}: {kb:?} > {kg:?}");
            better += usize::from(kb < kg);
            r.create_group(&g).unwrap();
        }
        assert!(better > 0);
    }

    /// The router's largest switch–switch link EFI stays equal to the statistics' through
    /// creates, merges (limited entries take trees out) and deletes.
    #[test]
    fn max_efi_follows_installs_merges_and_deletes() {
        let f = generators::torus(&[6, 5], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(6))).unwrap();
        let mut ids = Vec::new();
        let mut rose = false;
        for (i, g) in patterns::random_groups(&f, 50, 5, 3)
            .unwrap()
            .iter()
            .enumerate()
        {
            ids.push(r.create_group(g).unwrap().group);
            if i % 3 == 2 {
                r.delete_group(ids.swap_remove(i % ids.len())).unwrap();
            }
            assert_eq!(r.state.max_efi, r.stats().max_efi, "after group {i}");
            rose |= r.state.max_efi > 2;
        }
        assert!(r.stats().merged_groups > 0 && rose);
        for id in ids {
            r.delete_group(id).unwrap();
            assert_eq!(r.state.max_efi, r.stats().max_efi);
        }
        assert_eq!(r.state.max_efi, 0);
    }

    /// `BottomUp::BestOfBoth`'s gate: a greedy tree whose links stay more than
    /// `GATE_SLACK` below the fabric's largest EFI is kept as it is; otherwise the tree is
    /// the least of both builds. Both cases occur.
    #[test]
    fn best_of_both_keeps_the_greedy_tree_below_the_gate() {
        let f = generators::torus(&[7, 6], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
        let (mut kept, mut compared) = (0, 0);
        for g in patterns::random_groups(&f, 80, 4, 5).unwrap() {
            let m = r.view.validate(&g).unwrap();
            let d = r.max_dist(&m.sw);
            let (greedy, both) = greedy_and_both(&mut r, &m, d);
            let greedy_max = greedy
                .parents()
                .filter_map(|(_, e)| e.map(|e| r.state.efi[e.link.index()]))
                .max()
                .unwrap_or(0);
            if greedy_max + GATE_SLACK < r.state.max_efi {
                assert_eq!(both, greedy, "group {g:?}");
                kept += 1;
            } else {
                let least = r.bottom_up_least_load(greedy.root, &m.sw, None);
                let c = r
                    .state
                    .colors
                    .first_fit(iter::once(greedy.root).chain(least.iter().map(|p| p.0)));
                let from_least = c == Some(both.color)
                    && both
                        .parents()
                        .filter(|p| p.1.is_some())
                        .all(|(x, e)| least.iter().any(|p| p.0 == x && Some(p.1) == e));
                assert!(from_least || both == greedy, "group {g:?}");
                compared += 1;
            }
            r.create_group(&g).unwrap();
        }
        assert!(kept > 0 && compared > 0, "{kept} {compared}");
    }

    /// Alg. 2 with the least-load path choice: same height as the paper's greedy walk, and
    /// the first member's path to the root (walked whole by both) is a least-hop path whose
    /// summed EFI is no more than the greedy walk's.
    #[test]
    fn least_load_bottom_up_keeps_height_and_takes_least_loaded_paths() {
        let f = generators::torus(&[7, 6], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
        for g in patterns::random_groups(&f, 25, 4, 8).unwrap() {
            r.create_group(&g).unwrap();
        }
        let path = |r: &Router<'_>, parents: &[(u32, crate::tree::Edge)], mut x: u32| {
            let (mut hops, mut cost) = (0, 0u64);
            while let Some(&(_, e)) = parents.iter().find(|p| p.0 == x) {
                hops += 1;
                cost += u64::from(r.state.efi[e.link.index()]);
                x = e.parent;
            }
            (x, hops, cost)
        };
        let mut cheaper = 0;
        for g in patterns::random_groups(&f, 30, 4, 9).unwrap() {
            let m = r.view.validate(&g).unwrap();
            let d = r.max_dist(&m.sw);
            let root = r.candidate_roots(d, FullSwitches::Skip).all()[0];
            r.config.bottom_up = crate::BottomUp::Greedy;
            let greedy = r.bottom_up(root, &m.sw, None);
            r.config.bottom_up = crate::BottomUp::LeastLoadPath;
            let least = r.bottom_up(root, &m.sw, None);
            let row = h.row(root as usize);
            for &s in &m.sw {
                let (top, hops, _) = path(&r, &least, s);
                assert_eq!((top, hops), (root, row[s as usize]), "group {g:?}");
            }
            let (a, b) = (path(&r, &least, m.sw[0]).2, path(&r, &greedy, m.sw[0]).2);
            assert!(a <= b, "group {g:?}: {a} > {b}");
            cheaper += usize::from(a < b);
        }
        assert!(cheaper > 0);
    }
}
