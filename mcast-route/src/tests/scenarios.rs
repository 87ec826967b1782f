//! Deterministic scenarios that walk through every branch of Alg. 4 and Alg. 7.

use crate::{Config, Entries, MergeRoot, MergeStrategy, Method, Policy, Regraft, Router, patterns};
use fabric_model::{HopTable, generators};

use crate::invariants::check_state;

#[test]
fn every_merge_strategy_and_regraft_merges_correctly() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let groups = patterns::random_groups(&f, 40, 4, 11).unwrap();
    for merge in [
        MergeStrategy::OptimisticThenPessimistic,
        MergeStrategy::FewestGroupsColor,
        MergeStrategy::LeastAddedLoad,
    ] {
        for (regraft, merge_root) in [
            (Regraft::KeepOldTree, MergeRoot::Bfs),
            (Regraft::Rebuild, MergeRoot::HopTable),
        ] {
            let cfg = Config::mr4lms(Entries::Limit(2))
                .with_merge(merge)
                .with_regraft(regraft)
                .with_merge_root(merge_root);
            let mut r = Router::new(&f, &h, cfg).unwrap();
            let mut merges = 0;
            for g in &groups {
                let made = r.create_group(g).unwrap();
                if made.method == Method::Merge {
                    merges += 1;
                    // Only the optimistic step always names a tree to merge; the others may
                    // find a color whose G_color connects the group by itself.
                    assert!(
                        !made.merged.is_empty()
                            || merge != MergeStrategy::OptimisticThenPessimistic
                    );
                }
                check_state(&r).unwrap_or_else(|e| panic!("{merge:?} {regraft:?}: {e}"));
            }
            assert!(merges > 0, "{merge:?} {regraft:?}");
            let st = r.stats();
            assert!(st.colors_used <= 2 && st.max_tfi > 1);
        }
    }
}

#[test]
fn adaptive_policy_switches_as_alg7() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let cfg = Config::mr4lms(Entries::Limit(3)).with_policy(Policy::Adaptive { switch_back: 2 });
    let mut r = Router::new(&f, &h, cfg).unwrap();
    let groups = patterns::random_groups(&f, 60, 3, 5).unwrap();
    let methods: Vec<Method> = groups
        .iter()
        .map(|g| r.create_group(g).unwrap().method)
        .collect();
    // Replay Alg. 7 on the methods seen: an FBTC failure (a merge while in FBTC) moves to
    // FCTB; two FCTB successes in a row move back.
    let mut in_fctb = false;
    let mut streak = 0;
    let mut saw_switch = false;
    for m in &methods {
        if in_fctb {
            assert!(
                matches!(m, Method::Fctb | Method::ExistingTree | Method::Merge),
                "{methods:?}"
            );
            if *m == Method::Merge {
                streak = 0;
            } else {
                streak += 1;
                if streak == 2 {
                    in_fctb = false;
                    streak = 0;
                    saw_switch = true;
                }
            }
        } else {
            assert!(matches!(m, Method::Fbtc | Method::Merge), "{methods:?}");
            if *m == Method::Merge {
                in_fctb = true;
            }
        }
    }
    assert!(saw_switch, "{methods:?}");
}

#[test]
fn fctb_reuses_a_tree_that_spans_the_group() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let cfg = Config::mr4lms(Entries::Limit(4)).with_policy(Policy::FctbOnly);
    let mut r = Router::new(&f, &h, cfg).unwrap();
    let t = f.terminals();
    let a = r.create_group(&[t[0], t[4], t[8]]).unwrap();
    assert_eq!(a.method, Method::Fctb);
    let b = r.create_group(&[t[0], t[4]]).unwrap();
    // t0 and t4 are in different pods: the tree of `a` spans them at least height.
    assert_eq!(b.height, b.min_height);
    assert_eq!((b.method, b.tree), (Method::ExistingTree, a.tree));
    assert_eq!(r.stats().max_tfi, 2);
    check_state(&r).unwrap();
    r.delete_group(a.group).unwrap();
    check_state(&r).unwrap();
    assert!(!r.tree(b.tree).unwrap().members.contains(&t[8]));
}

#[test]
fn more_fbtc_root_tries_never_use_more_colors_here_and_keep_heights() {
    let f = generators::fat_tree(8).unwrap();
    let h = HopTable::new(&f).unwrap();
    let groups = patterns::grid(&f, &[8, 4, 4], 1).unwrap();
    let mut used = Vec::new();
    for tries in [1, 8] {
        let cfg = Config::mr4lms(Entries::Unlimited).with_fbtc_root_tries(tries);
        let mut r = Router::new(&f, &h, cfg).unwrap();
        for g in &groups {
            let made = r.create_group(g).unwrap();
            assert_eq!((made.method, made.height), (Method::Fbtc, made.min_height));
        }
        check_state(&r).unwrap();
        used.push(r.stats().colors_used);
    }
    assert!(used[1] <= used[0], "{used:?}");
}
