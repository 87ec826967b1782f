//! The route-aware search's steps: candidates, the bookkeeping against a recount, moves.

use fabric_model::{HopTable, generators};
use proptest::prelude::*;

use super::candidates::Candidates;
use super::occupancy::Occupancy;
use super::pack::recursive_largest_first;
use super::search::Search;
use crate::coloring::Tabu;
use crate::{Config, Entries, Router, TreeId, patterns};

/// Candidates from synthetic routes: `(root, switches)` lists per tree.
fn synthetic(trees: &[Vec<(u32, Vec<u32>)>]) -> Candidates {
    let mut c = Candidates::default();
    for routes in trees {
        c.push_tree(routes);
    }
    c
}

#[test]
fn routes_split_into_fixed_bodies_and_shared_root_sets() {
    // Tree 0: members on 0 and 1; roots 10 and 11 over body {5}, root 12 over body {6},
    // root 13 over body {5} too. Tree 1: one route, rooted on its member switch 1.
    let c = synthetic(&[
        vec![
            (10, vec![0, 1, 5, 10]),
            (12, vec![0, 1, 6, 12]),
            (11, vec![0, 1, 5, 11]),
            (13, vec![0, 1, 5, 13]),
        ],
        vec![(1, vec![1])],
    ]);
    assert_eq!(c.trees(), 2);
    assert_eq!(c.fixed(0), &[0, 1]);
    let b: Vec<usize> = c.bodies_of(0).collect();
    assert_eq!(b, vec![0, 1]);
    assert_eq!(c.body(0), &[5]);
    assert_eq!(c.roots(c.root_set(0)), &[10, 11, 13]);
    assert_eq!(c.body(1), &[6]);
    assert_eq!(c.roots(c.root_set(1)), &[12]);
    assert!(!c.root_fixed(0));
    // Tree 1's root is its fixed switch: an empty body whose root costs nothing more.
    assert_eq!(c.fixed(1), &[1]);
    let b1 = c.bodies_of(1).start;
    assert!(c.body(b1).is_empty() && c.root_fixed(b1));
    assert_eq!(c.route(1, b1, 1).collect::<Vec<_>>(), vec![1]);
    assert_eq!(c.route(0, 0, 11).collect::<Vec<_>>(), vec![0, 1, 5, 11]);
    // Root set {12} is shared with another tree's body rooted there; two routes whose
    // bodies are equal (empty) share one body with both roots.
    let c2 = synthetic(&[
        vec![(12, vec![3, 12])],
        vec![(12, vec![4, 7, 12]), (9, vec![4, 8, 9])],
        vec![(12, vec![5, 12]), (9, vec![5, 9])],
    ]);
    assert_eq!(c2.root_sets(), 3);
    assert_eq!(c2.root_set(0), c2.root_set(1));
    assert_eq!(c2.roots(c2.root_set(2)), &[9]);
    assert_eq!(c2.bodies_of(3 - 1).len(), 1);
    let b = c2.bodies_of(2).start;
    assert_eq!(c2.roots(c2.root_set(b)), &[9, 12]);
}

/// A router over fat_tree(`k`) with `groups` created.
fn fat_router<'f>(
    f: &'f fabric_model::Fabric,
    h: &'f HopTable,
    groups: &[Vec<fabric_model::NodeId>],
) -> Router<'f> {
    let mut r = Router::new(f, h, Config::mr4lms(Entries::Unlimited)).unwrap();
    for g in groups {
        r.create_group(g).unwrap();
    }
    r
}

/// The route candidates of `count` random groups of `size` (seed `seed`) on fat_tree(8),
/// and its switch count.
fn random_fat_candidates(count: usize, size: usize, seed: u64) -> (Candidates, usize) {
    let f = generators::fat_tree(8).unwrap();
    let h = HopTable::new(&f).unwrap();
    let groups = patterns::random_groups(&f, count, size, seed).unwrap();
    let mut r = fat_router(&f, &h, &groups);
    let ids: Vec<TreeId> = r.tree_ids().collect();
    (r.route_candidates(&ids).unwrap(), r.view.g.len())
}

/// Removes the placed tree `t % trees` if it is in `placed`, else places it in color `col`
/// on a body and root drawn from `b` and `root` (a step of the bookkeeping proptests).
fn toggle(
    c: &Candidates,
    occ: &mut Occupancy,
    placed: &mut Vec<(usize, usize, usize, u32)>,
    (t, col, b, root): (usize, usize, usize, usize),
) {
    let t = t % c.trees();
    if let Some(i) = placed.iter().position(|p| p.0 == t) {
        let (t, col, b, root) = placed.swap_remove(i);
        occ.remove(c, t, col, b, root);
    } else {
        let bodies = c.bodies_of(t);
        let b = bodies.start + b % bodies.len();
        let roots = c.roots(c.root_set(b));
        let root = roots[root % roots.len()];
        occ.place(c, t, col, b, root);
        placed.push((t, col, b, root));
    }
}

#[test]
fn a_fat_tree_tree_across_the_core_has_one_body_per_aggregation_index() {
    // fat_tree(8): 16 core switches, 4 aggregation switches a pod; the core switches above
    // one aggregation index have the same neighbours, so they share one body.
    let f = generators::fat_tree(8).unwrap();
    let h = HopTable::new(&f).unwrap();
    let t = f.terminals();
    // Terminals 0 and 20 are in pods 0 and 1 (16 a pod); 0 and 4 in one pod, two edges.
    let groups = vec![vec![t[0], t[20]], vec![t[0], t[4]], vec![t[1]]];
    let mut r = fat_router(&f, &h, &groups);
    let ids: Vec<TreeId> = r.tree_ids().collect();
    let c = r.route_candidates(&ids).unwrap();
    assert_eq!(c.trees(), 3);
    // Across the core: two edge switches fixed, 4 bodies of 2 aggregation switches, each
    // with 4 core roots.
    assert_eq!(c.fixed(0).len(), 2);
    assert_eq!(c.bodies_of(0).len(), 4);
    for b in c.bodies_of(0) {
        assert_eq!(c.body(b).len(), 2);
        assert_eq!(c.roots(c.root_set(b)).len(), 4);
        assert!(!c.root_fixed(b));
    }
    // Within a pod: the two edge switches fixed, one empty body, the 4 aggregation roots.
    assert_eq!(c.fixed(1).len(), 2);
    assert_eq!(c.bodies_of(1).len(), 1);
    let b = c.bodies_of(1).start;
    assert!(c.body(b).is_empty());
    assert_eq!(c.roots(c.root_set(b)).len(), 4);
    // One member switch: the tree is that switch.
    assert_eq!(c.fixed(2).len(), 1);
    let b = c.bodies_of(2).start;
    assert!(c.body(b).is_empty() && c.root_fixed(b));
}

/// The sums [`Occupancy`] keeps, recounted from the placements with every weight 1.
fn recount(
    c: &Candidates,
    occ: &Occupancy,
    placed: &[(usize, usize, usize, u32)],
    switches: usize,
) {
    recount_weighted(c, occ, placed, switches, &vec![1; occ.colors() * switches]);
}

/// The sums [`Occupancy`] keeps, recounted from the placements and the weights `w` (per
/// (color, switch), `c · S + s`): per (color, switch) the occupancy and weight, the cost
/// and weighted cost, per (tree, color) the weighted fixed sums and their weights, per
/// (body, color) the same, per (root set, color) the free roots and the least weighted
/// occupancy.
fn recount_weighted(
    c: &Candidates,
    occ: &Occupancy,
    placed: &[(usize, usize, usize, u32)],
    switches: usize,
    w: &[u32],
) {
    let k = occ.colors();
    let mut n = vec![0u32; k * switches];
    for &(t, col, b, root) in placed {
        for s in c.route(t, b, root) {
            n[col * switches + s as usize] += 1;
        }
    }
    let pairs = |x: u32| u64::from(x) * u64::from(x.saturating_sub(1)) / 2;
    let cost: u64 = n.iter().map(|&x| pairs(x)).sum();
    assert_eq!(occ.cost(), cost);
    let wcost: u64 = n
        .iter()
        .zip(w)
        .map(|(&x, &wt)| pairs(x) * u64::from(wt))
        .sum();
    assert_eq!(occ.wcost(), wcost);
    let wn = |col: usize, s: u32| {
        let i = col * switches + s as usize;
        n[i] * w[i]
    };
    let wt = |col: usize, s: u32| w[col * switches + s as usize];
    for col in 0..k {
        for s in 0..switches as u32 {
            assert_eq!(occ.at(col, s), n[col * switches + s as usize]);
            assert_eq!(occ.weight(col, s), wt(col, s));
            assert_eq!(occ.wat(col, s), wn(col, s));
        }
        for t in 0..c.trees() {
            let want: u32 = c.fixed(t).iter().map(|&s| wn(col, s)).sum();
            assert_eq!(occ.fixed_sum(t, col), want);
            let want: u32 = c.fixed(t).iter().map(|&s| wt(col, s)).sum();
            assert_eq!(occ.fixed_w(t, col), want);
        }
        for b in 0..c.bodies() {
            let want: u32 = c.body(b).iter().map(|&s| wn(col, s)).sum();
            assert_eq!(occ.body_sums(b)[col], want);
            let want: u32 = c.body(b).iter().map(|&s| wt(col, s)).sum();
            assert_eq!(occ.body_w(b, col), want);
        }
        for rs in 0..c.root_sets() {
            let want = c
                .roots(rs)
                .iter()
                .filter(|&&s| n[col * switches + s as usize] == 0)
                .count();
            assert_eq!(occ.zeros(rs)[col] as usize, want);
            let least = c.roots(rs).iter().map(|&s| wn(col, s)).min().unwrap();
            assert_eq!(occ.root_min(c, rs, col), least);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Placing and taking out trees in random colors and routes keeps every sum equal to
    /// its recount.
    #[test]
    fn occupancy_matches_a_recount(
        seed in 0u64..1000,
        steps in prop::collection::vec((0usize..1000, 0usize..4, 0usize..1000, 0usize..1000), 1..40),
    ) {
        let (c, switches) = random_fat_candidates(12, 4, seed);
        let k = 4;
        let mut occ = Occupancy::new(&c, switches, k).unwrap();
        let mut placed: Vec<(usize, usize, usize, u32)> = Vec::new();
        for (t, col, b, root) in steps {
            toggle(&c, &mut occ, &mut placed, (t, col, b, root));
            recount(&c, &occ, &placed, switches);
        }
    }

    /// Raising the weights of the overlaps, between placements and removals, keeps every
    /// weighted sum equal to its recount (each (color, switch) with two trees or more one
    /// weight up), and putting every weight back to 1 gives the unweighted sums again.
    #[test]
    fn weighted_occupancy_matches_a_recount(
        seed in 0u64..1000,
        steps in prop::collection::vec((0usize..1000, 0usize..3, 0usize..1000, 0usize..1000, any::<bool>()), 1..40),
    ) {
        let (c, switches) = random_fat_candidates(12, 4, seed);
        let k = 3;
        let mut occ = Occupancy::new(&c, switches, k).unwrap();
        let mut w = vec![1u32; k * switches];
        let mut placed: Vec<(usize, usize, usize, u32)> = Vec::new();
        for (t, col, b, root, raise) in steps {
            toggle(&c, &mut occ, &mut placed, (t, col, b, root));
            if raise {
                for col in 0..k {
                    for s in 0..switches as u32 {
                        if occ.at(col, s) >= 2 {
                            w[col * switches + s as usize] += 1;
                        }
                    }
                }
                occ.raise_weights();
            }
            recount_weighted(&c, &occ, &placed, switches, &w);
        }
        occ.reset_weights();
        recount(&c, &occ, &placed, switches);
    }

    /// The search's moves, with weights raised every `patience` moves without progress
    /// or never, keep its bookkeeping equal to a recount (weights back to 1 after the
    /// run), each tree's overlaps equal to those counted from the placement, and a
    /// successful run ends without an overlap.
    #[test]
    fn search_moves_keep_the_bookkeeping(
        seed in 0u64..1000,
        k in 2usize..6,
        moves in 1usize..200,
        patience in 0usize..4,
    ) {
        let (c, switches) = random_fat_candidates(24, 5, seed);
        let start: Vec<u32> = (0..c.trees() as u32).map(|t| t % k as u32).collect();
        let order: Vec<usize> = (0..c.trees()).collect();
        let tabu = Tabu::default().with_seed(seed + 1);
        let mut s = Search::new(&c, switches, k, &start, &order, &tabu).unwrap();
        s.patience = patience;
        let ok = s.run(k, moves);
        let placed: Vec<(usize, usize, usize, u32)> = (0..c.trees())
            .map(|t| (t, s.at.color[t] as usize, s.at.body[t] as usize, s.at.root[t]))
            .collect();
        recount(&c, &s.occ, &placed, switches);
        for &(t, col, b, root) in &placed {
            prop_assert!(c.bodies_of(t).contains(&b));
            prop_assert!(c.roots(c.root_set(b)).contains(&root));
            let others: i64 = c
                .route(t, b, root)
                .map(|sw| i64::from(s.occ.at(col, sw)) - 1)
                .sum();
            prop_assert_eq!(s.own(t), others);
        }
        prop_assert_eq!(ok, s.occ.cost() == 0);
    }
}

/// Tree 0 on switch 0 and tree 1 on switch 1, each up through switch 5 (roots 10, 12) or
/// switch 6 (roots 11, 13); with `forced`, tree 2 on switch 0 as well (one route, root 0).
fn two_ways(forced: bool) -> Candidates {
    let mut trees = vec![
        vec![(10, vec![0, 5, 10]), (11, vec![0, 6, 11])],
        vec![(12, vec![1, 5, 12]), (13, vec![1, 6, 13])],
    ];
    if forced {
        trees.push(vec![(0, vec![0])]);
    }
    synthetic(&trees)
}

#[test]
fn a_move_reroutes_within_the_color_when_a_route_is_free() {
    let c = two_ways(false);
    let tabu = Tabu::default();
    // Both through switch 5 in the one color: one overlap.
    let at = super::search::Placement {
        color: vec![0, 0],
        body: vec![0, 2],
        root: vec![10, 12],
    };
    let mut s = Search::placed(&c, 14, 1, &at, &tabu).unwrap();
    assert_eq!(s.occ.cost(), 1);
    assert_eq!((s.own(0), s.own(1)), (1, 1));
    assert!(s.run(1, 1));
    assert_eq!(s.occ.cost(), 0);
    // One of them now goes through switch 6, still in color 0.
    assert_eq!(s.at.color, vec![0, 0]);
    let mut bodies = [s.at.body[0], s.at.body[1]];
    bodies.sort_unstable();
    assert!(bodies == [0, 3] || bodies == [1, 2], "{bodies:?}");
    // Placing tree 1 greedily after tree 0 takes the free route at once.
    let s = Search::new(&c, 14, 1, &[0, 0], &[0, 1], &tabu).unwrap();
    assert_eq!(s.occ.cost(), 0);
    assert_eq!((s.at.body[0], s.at.body[1]), (0, 3));
}

#[test]
fn a_move_recolors_a_forced_conflict_and_fold_empties_a_color() {
    let c = two_ways(true);
    let tabu = Tabu::default();
    // Trees 0 and 2 share their member switch 0: no route separates them in one color.
    let mut s = Search::new(&c, 14, 2, &[0, 0, 0], &[0, 1, 2], &tabu).unwrap();
    assert_eq!(s.occ.cost(), 1);
    assert!(s.run(2, 5));
    assert_ne!(s.at.color[0], s.at.color[2]);
    // Three colors, one tree each: folding one away leaves a proper placement in two.
    let mut s = Search::new(&c, 14, 3, &[0, 1, 2], &[0, 1, 2], &tabu).unwrap();
    assert_eq!(s.occ.cost(), 0);
    s.fold(3, &[0, 1, 2]);
    assert!(s.at.color.iter().all(|&x| x < 2));
    assert!(s.run(2, 5));
    assert_eq!(s.at.colors_used(), 2);
    // One color cannot hold trees 0 and 2.
    s.fold(2, &[0, 1, 2]);
    assert!(!s.run(1, 50));
    assert!(s.occ.cost() > 0);
}

#[test]
fn a_tree_overlaps_count_their_weights() {
    // Trees 0 and 1 both through switch 5 in color 0: one overlap there, weight 1, then 2.
    let c = two_ways(false);
    let at = super::search::Placement {
        color: vec![0, 0],
        body: vec![0, 2],
        root: vec![10, 12],
    };
    let mut s = Search::placed(&c, 14, 2, &at, &Tabu::default()).unwrap();
    assert_eq!((s.own(0), s.occ.wcost()), (1, 1));
    s.occ.raise_weights();
    assert_eq!(s.occ.weight(0, 5), 2);
    assert_eq!(s.occ.weight(0, 0), 1);
    assert_eq!(
        (s.own(0), s.own(1), s.occ.cost(), s.occ.wcost()),
        (2, 2, 1, 2)
    );
    // In color 1, empty, tree 1's best route has no overlap whatever the weights.
    assert_eq!(s.best_route(1, 1).0, 0);
    s.occ.raise_weights();
    assert_eq!((s.own(0), s.occ.wcost()), (3, 3));
    s.occ.reset_weights();
    assert_eq!((s.own(0), s.occ.wcost(), s.occ.weight(0, 5)), (1, 1, 1));
    // Weights stop at MAX_WEIGHT.
    for _ in 0..super::occupancy::MAX_WEIGHT + 10 {
        s.occ.raise_weights();
    }
    let top = super::occupancy::MAX_WEIGHT;
    assert_eq!(s.occ.weight(0, 5), top);
    assert_eq!((s.own(0), s.occ.wcost()), (i64::from(top), u64::from(top)));
    s.occ.reset_weights();
    assert_eq!((s.own(0), s.occ.wcost()), (1, 1));
}

#[test]
fn rlf_packs_every_tree_without_overlap_and_splits_forced_conflicts() {
    // Trees 0 and 2 share member switch 0 (a forced conflict); tree 1 routes around
    // tree 0 in one color.
    let c = two_ways(true);
    let g = crate::coloring::Graph::from_edges(3, [(0, 2)]).unwrap();
    let mut s = Search::empty(&c, 14, 3, &Tabu::default()).unwrap();
    let at = recursive_largest_first(&mut s, 3, &[0, 1, 2], &g).unwrap();
    assert_eq!(s.occ.cost(), 0);
    assert_eq!(at.colors_used(), 2);
    assert_ne!(at.color[0], at.color[2]);
    // One color is not enough.
    let mut s = Search::empty(&c, 14, 1, &Tabu::default()).unwrap();
    assert!(recursive_largest_first(&mut s, 1, &[0, 1, 2], &g).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// On fat_tree(8) with random groups, RLF with as many colors as trees places every
    /// tree, in colors `0..m` each used, with no overlap, and trees with a forced
    /// conflict in different colors.
    #[test]
    fn rlf_places_every_tree_without_overlap(seed in 0u64..1000, size in 2usize..8) {
        let f = generators::fat_tree(8).unwrap();
        let h = HopTable::new(&f).unwrap();
        let groups = patterns::random_groups(&f, 30, size, seed).unwrap();
        let mut r = fat_router(&f, &h, &groups);
        let ids: Vec<TreeId> = r.tree_ids().collect();
        let c = r.route_candidates(&ids).unwrap();
        let g = r.forced_tree_conflicts(&ids);
        let switches = r.view.g.len();
        let n = c.trees();
        let order: Vec<usize> = (0..n).collect();
        let mut s = Search::empty(&c, switches, n, &Tabu::default()).unwrap();
        let at = recursive_largest_first(&mut s, n, &order, &g).unwrap();
        prop_assert_eq!(s.occ.cost(), 0);
        let m = at.colors_used();
        prop_assert!(at.color.iter().all(|&x| (x as usize) < m));
        for t in 0..n {
            for &u in g.neighbours(t) {
                prop_assert_ne!(at.color[t], at.color[u as usize]);
            }
        }
        let placed: Vec<(usize, usize, usize, u32)> = (0..n)
            .map(|t| (t, at.color[t] as usize, at.body[t] as usize, at.root[t]))
            .collect();
        recount(&c, &s.occ, &placed, switches);
    }
}
