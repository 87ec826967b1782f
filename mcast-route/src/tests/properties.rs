//! Properties of the paper's invariants on small generated fabrics and random sequences of
//! creates, deletes and recolorings, for MR4LMS (every policy, merge and regraft choice) and both
//! baselines.

use std::collections::{BTreeMap, BTreeSet};

use crate::{
    Algorithm, BottomUp, Config, Entries, GroupId, MergeRoot, MergeStrategy, Method, Policy,
    Regraft, Router,
};
use fabric_model::{Fabric, HopTable, LinkId, generators};
use proptest::prelude::*;

use crate::coloring::Tabu;
use crate::invariants::check_state;

fn fabric(kind: u8, seed: u64) -> Fabric {
    match kind % 6 {
        0 => generators::fat_tree(4),
        1 => generators::tapered_fat_tree(4, 6, 2),
        2 => generators::torus(&[4, 3], 2),
        3 => generators::dragonfly(3, 2, 1),
        4 => generators::random_regular(10, 5, 2, seed),
        _ => generators::xgft(&[3, 3, 2], &[1, 2, 2]),
    }
    .expect("small generator parameters are valid")
}

#[derive(Debug, Clone)]
enum Op {
    /// Create a group of terminals picked by these indices (mod the terminal count).
    Create(Vec<usize>),
    /// Delete the live group at this index (mod the live count).
    Delete(usize),
    /// Recolor the trees ([`Router::recolor`]), or route them again
    /// ([`Router::recolor_rerouting`]) when `true`.
    Recolor(bool),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::collection::vec(0usize..1000, 1..6).prop_map(Op::Create),
            1 => (0usize..1000).prop_map(Op::Delete),
            1 => any::<bool>().prop_map(Op::Recolor),
        ],
        1..28,
    )
}

fn config() -> impl Strategy<Value = Config> {
    (
        prop_oneof![Just(Entries::Unlimited), (1u32..5).prop_map(Entries::Limit)],
        prop_oneof![
            3 => Just(Algorithm::Mr4lms),
            1 => Just(Algorithm::MinihopMc),
            1 => Just(Algorithm::SsspMc)
        ],
        prop_oneof![
            (1u32..4).prop_map(|switch_back| Policy::Adaptive { switch_back }),
            Just(Policy::FbtcOnly),
            Just(Policy::FctbOnly)
        ],
        prop_oneof![
            Just(MergeStrategy::OptimisticThenPessimistic),
            Just(MergeStrategy::FewestGroupsColor),
            Just(MergeStrategy::LeastAddedLoad)
        ],
        prop_oneof![Just(Regraft::KeepOldTree), Just(Regraft::Rebuild)],
        prop_oneof![Just(MergeRoot::Bfs), Just(MergeRoot::HopTable)],
        0u32..4,
        prop_oneof![
            Just(BottomUp::Greedy),
            Just(BottomUp::LeastLoadPath),
            Just(BottomUp::BestOfBoth)
        ],
    )
        .prop_map(
            |(
                entries,
                algorithm,
                policy,
                merge,
                regraft,
                merge_root,
                fbtc_root_tries,
                bottom_up,
            )| {
                Config::default()
                    .with_entries(entries)
                    .with_algorithm(algorithm)
                    .with_policy(policy)
                    .with_merge(merge)
                    .with_regraft(regraft)
                    .with_merge_root(merge_root)
                    .with_fbtc_root_tries(fbtc_root_tries)
                    .with_bottom_up(bottom_up)
            },
        )
}

fn tree_links(r: &Router<'_>) -> BTreeMap<GroupId, BTreeSet<LinkId>> {
    r.group_ids()
        .map(|g| {
            let t = r.group(g).unwrap().tree;
            (g, r.tree(t).unwrap().links.into_iter().collect())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn invariants_hold_through_creates_and_deletes(
        kind in 0u8..6, seed in 0u64..1000, cfg in config(), ops in ops()
    ) {
        let f = fabric(kind, seed);
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, cfg).unwrap();
        let t = f.terminals();
        let mut live: Vec<GroupId> = Vec::new();
        for op in ops {
            match op {
                Op::Create(idx) => {
                    let mut members: Vec<_> = idx.iter().map(|&i| t[i % t.len()]).collect();
                    members.sort();
                    members.dedup();
                    let before = tree_links(&r);
                    let made = match r.create_group(&members) {
                        Ok(m) => m,
                        Err(crate::Error::EntriesExhausted { .. }) => {
                            prop_assert!(cfg.algorithm() != Algorithm::Mr4lms);
                            continue;
                        }
                        Err(e) => return Err(TestCaseError::fail(e.to_string())),
                    };
                    live.push(made.group);
                    // FBTC and FCTB trees have minimal height (and baselines, min-hop paths
                    // from an optimal root, too).
                    if made.method != Method::Merge && made.method != Method::ExistingTree {
                        prop_assert_eq!(made.height, made.min_height, "{:?}", made.method);
                    }
                    // Unlimited entries: nothing is merged.
                    if cfg.entries() == Entries::Unlimited {
                        prop_assert_ne!(made.method, Method::Merge);
                        prop_assert_eq!(r.stats().merged_groups, 0);
                    }
                    // Keep-old-tree: no existing group's tree loses a link.
                    if cfg.regraft() == Regraft::KeepOldTree || cfg.algorithm() != Algorithm::Mr4lms {
                        let after = tree_links(&r);
                        for (g, links) in &before {
                            prop_assert!(after[g].is_superset(links), "group {} lost a link", g);
                        }
                    }
                }
                Op::Delete(i) => {
                    if live.is_empty() { continue; }
                    let g = live.remove(i % live.len());
                    r.delete_group(g).unwrap();
                }
                Op::Recolor(rerouting) => {
                    let before = r.stats().colors_used;
                    let done = if rerouting {
                        r.recolor_rerouting(&Tabu::default().with_moves(300).with_seed(seed))
                    } else {
                        r.recolor()
                    };
                    prop_assert_eq!(done.colors_before, before);
                    prop_assert!(done.colors_after <= before);
                    prop_assert_eq!(r.stats().colors_used, done.colors_after);
                }
            }
            if let Err(e) = check_state(&r) {
                return Err(TestCaseError::fail(e));
            }
        }
        // Deleting every group empties every table.
        for g in live {
            r.delete_group(g).unwrap();
        }
        for &s in f.switches() {
            prop_assert!(r.entries(s).unwrap().is_empty());
        }
        prop_assert_eq!(r.tree_ids().count(), 0);
        let st = r.stats();
        prop_assert_eq!((st.max_efi, st.colors_used, st.color_lower_bound), (0, 0, 0));
        for l in 0..f.link_count() {
            prop_assert_eq!(r.efi(LinkId::new(l as u32)), 0);
        }
    }
}

#[test]
fn mr4lms_spreads_load_better_than_minihop_on_a_fat_tree() {
    let f = generators::fat_tree(8).unwrap();
    let h = HopTable::new(&f).unwrap();
    let groups = crate::patterns::grid(&f, &[8, 4, 4], 1).unwrap();
    let mut efi = Vec::new();
    for alg in [Algorithm::Mr4lms, Algorithm::MinihopMc, Algorithm::SsspMc] {
        let mut r = Router::new(&f, &h, Config::baseline(alg, Entries::Unlimited)).unwrap();
        for g in &groups {
            r.create_group(g).unwrap();
        }
        check_state(&r).unwrap();
        efi.push(r.stats().max_efi);
    }
    assert!(
        efi[0] < efi[1],
        "MR4LMS {} vs MINIHOP-MC {}",
        efi[0],
        efi[1]
    );
}
