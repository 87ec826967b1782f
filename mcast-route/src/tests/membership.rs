//! Port-level joins and leaves ([`Router::join`], [`Router::leave`]): each step of the
//! graft, the errors, switch members, and a property over random join/leave sequences.

use std::collections::BTreeMap;

use fabric_model::{Fabric, FabricBuilder, HopTable, NodeId, NodeInfo, PortNo, generators};
use proptest::prelude::*;

use crate::JoinColor;
use crate::coloring::Tabu;
use crate::invariants::check_state;
use crate::{Algorithm, Color, Config, Entries, Error, Gid, JoinMethod, Method, Policy, Router};

fn mgid(k: u64) -> Gid {
    Gid::new(0xff12_401b_ffff_0000, k)
}

#[test]
fn the_first_join_creates_and_later_joins_graft_in_the_same_color() {
    // fat_tree(4): two terminals an edge switch, two edge switches a pod.
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(8))).unwrap();
    let t = f.terminals();
    let first = r.join(mgid(1), t[0]).unwrap();
    assert_eq!(first.method, JoinMethod::Created(Method::Fbtc));
    assert_eq!(r.group_of(mgid(1)), Some(first.group));
    assert_eq!(r.mgid_of(first.group), Some(mgid(1)));
    // t[1] hangs off the same edge switch: a leaf.
    let same = r.join(mgid(1), t[1]).unwrap();
    assert_eq!(same.method, JoinMethod::Leaf);
    // A terminal of another pod: grafting at the edge root would give height 5 where a
    // core root gives 3, so FCTB rebuilds the tree in its color.
    let far = r.join(mgid(1), t[t.len() - 1]).unwrap();
    assert_eq!(far.method, JoinMethod::Rebuilt);
    // The other edge switch of the first pod: one hop below the tree's aggregation switch.
    let near = r.join(mgid(1), t[2]).unwrap();
    assert_eq!(near.method, JoinMethod::Graft);
    for o in [&same, &far, &near] {
        assert_eq!((o.group, o.color), (first.group, first.color));
    }
    let g = r.group(first.group).unwrap();
    assert_eq!(g.members, [t[0], t[1], t[t.len() - 1], t[2]]);
    assert_eq!(g.height, g.min_height);
    check_state(&r).unwrap();
    assert_eq!(r.members_of(mgid(1)).unwrap(), g.members.as_slice());
}

#[test]
fn grafts_rebuilds_and_higher_grafts_on_a_ring() {
    // A ring of 8 switches, terminal i on switch i.
    let f = generators::torus(&[8], 1).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
    let t = f.terminals();
    r.join(mgid(1), t[0]).unwrap();
    // Another group holds color 0 on switch 2.
    let other = r.join(mgid(2), t[2]).unwrap();
    assert_eq!(other.color, Color(0));
    let o = r.join(mgid(1), t[1]).unwrap();
    assert_eq!(o.method, JoinMethod::Graft);
    // {0, 1, 3}: least height through root 1 or 2, both needing switch 2 (busy in color
    // 0) within 2 hops; the only graft goes round the other way (5 hops).
    let o = r.join(mgid(1), t[3]).unwrap();
    assert_eq!(o.method, JoinMethod::HigherGraft);
    assert_eq!(o.color, Color(0));
    let g = r.group(o.group).unwrap();
    assert_eq!((g.height, g.min_height), (6, 3));
    check_state(&r).unwrap();
    // Once switch 2 is free, a member there grafts next to switch 1: the tree's height
    // (already above the least) is not raised, so the graft stands.
    r.leave(mgid(2), t[2]).unwrap();
    let o = r.join(mgid(1), t[2]).unwrap();
    assert_eq!(o.method, JoinMethod::Graft);
    let g = r.group(o.group).unwrap();
    assert_eq!((g.height, g.min_height), (6, 3));
    check_state(&r).unwrap();
}

#[test]
fn a_join_blocked_in_its_color_merges_with_the_trees_of_that_color() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(1))).unwrap();
    let t = f.terminals();
    let a = r.join(mgid(1), t[0]).unwrap();
    let b = r.join(mgid(2), t[t.len() - 1]).unwrap();
    assert_eq!((a.color, b.color), (Color(0), Color(0)));
    // t[1] is on group 1's switch, busy in color 0: group 2 must merge with group 1.
    let o = r.join(mgid(2), t[1]).unwrap();
    assert_eq!(o.method, JoinMethod::Merged);
    assert_eq!(o.merged, [a.group]);
    assert_eq!(o.color, Color(0));
    let (ga, gb) = (r.group(a.group).unwrap(), r.group(b.group).unwrap());
    assert_eq!(ga.tree, gb.tree);
    assert!(ga.merged && gb.merged);
    assert_eq!(ga.color, Color(0));
    check_state(&r).unwrap();
    // Leaving keeps both groups routed; the last leave frees the tree.
    r.leave(mgid(2), t[1]).unwrap();
    check_state(&r).unwrap();
    r.leave(mgid(1), t[0]).unwrap();
    r.leave(mgid(2), t[t.len() - 1]).unwrap();
    assert_eq!(r.tree_ids().count(), 0);
    assert_eq!(r.group_of(mgid(1)), None);
}

#[test]
fn leaves_prune_as_alg_6_and_the_last_one_deletes() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(8))).unwrap();
    let t = f.terminals();
    let id = r.join(mgid(3), t[0]).unwrap().group;
    r.join(mgid(3), t[t.len() - 1]).unwrap();
    let before = r.tree(r.group(id).unwrap().tree).unwrap().switches.len();
    assert!(before >= 3);
    let o = r.leave(mgid(3), t[t.len() - 1]).unwrap();
    assert!(!o.deleted);
    let after = r.tree(r.group(id).unwrap().tree).unwrap();
    // The far pod's branch is gone; the root stays.
    assert_eq!(o.pruned, before - after.switches.len());
    assert!(o.pruned >= 2);
    assert_eq!(after.members, [t[0]]);
    check_state(&r).unwrap();
    let o = r.leave(mgid(3), t[0]).unwrap();
    assert!(o.deleted);
    assert_eq!(r.group_ids().count(), 0);
    for &s in f.switches() {
        assert!(r.entries(s).unwrap().is_empty());
    }
    // The MGID is free: a new join creates a new group.
    let again = r.join(mgid(3), t[2]).unwrap();
    assert!(matches!(again.method, JoinMethod::Created(_)));
    assert_ne!(again.group, id);
}

#[test]
fn a_switch_member_sets_port_0() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(8))).unwrap();
    let t = f.terminals();
    let sw = f.switches()[f.switch_count() - 1];
    let o = r.join(mgid(4), t[0]).unwrap();
    r.join(mgid(4), sw).unwrap();
    let ports = r.port_set(sw, o.color).unwrap().unwrap();
    assert!(ports.contains(PortNo::new(0)));
    // Its MFT block shows port 0 (bit 0 of position 0).
    let block = &r.mft_block(sw, 0).unwrap()[0];
    assert_eq!(block.masks[o.color.0 as usize] & 1, 1);
    check_state(&r).unwrap();
    r.leave(mgid(4), sw).unwrap();
    assert!(
        r.port_set(sw, o.color)
            .unwrap()
            .is_none_or(|p| !p.contains(PortNo::new(0)))
    );
    check_state(&r).unwrap();
    // A switch may also create a group alone.
    r.join(mgid(5), sw).unwrap();
    check_state(&r).unwrap();
}

#[test]
fn least_used_join_colors_spread_the_first_joins() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let t = f.terminals();
    let mut colors = Vec::new();
    for jc in [JoinColor::FirstFit, JoinColor::LeastUsed] {
        let cfg = Config::mr4lms(Entries::Limit(8)).with_join_color(jc);
        let mut r = Router::new(&f, &h, cfg).unwrap();
        let a = r.join(mgid(1), t[0]).unwrap();
        let b = r.join(mgid(2), t[15]).unwrap();
        colors.push((a.color, b.color, b.method));
        check_state(&r).unwrap();
    }
    // First fit: color 0 again on the far switch; least used: color 1 (color 0 has a tree).
    assert_eq!(
        colors[0],
        (Color(0), Color(0), JoinMethod::Created(Method::Fbtc))
    );
    assert_eq!(
        colors[1],
        (
            Color(0),
            Color(1),
            JoinMethod::Created(Method::JoinLeastUsed)
        )
    );
}

#[test]
fn baselines_route_the_group_again_in_its_mlid() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    for alg in [Algorithm::MinihopMc, Algorithm::SsspMc] {
        let mut r = Router::new(&f, &h, Config::baseline(alg, Entries::Limit(4))).unwrap();
        let t = f.terminals();
        let a = r.join(mgid(1), t[0]).unwrap();
        let b = r.join(mgid(1), t[9]).unwrap();
        assert_eq!(b.method, JoinMethod::Rerouted);
        assert_eq!(a.color, b.color);
        check_state(&r).unwrap();
    }
}

/// Regression: `delete_group` on a group joined by MGID left its MGID mapped to the deleted
/// group, and the next `members_of`, `join` or `leave` on that MGID panicked.
#[test]
fn deleting_a_joined_group_frees_its_mgid() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    for cfg in [
        Config::default(),
        Config::baseline(Algorithm::MinihopMc, Entries::Limit(4)),
        Config::baseline(Algorithm::SsspMc, Entries::Limit(4)),
    ] {
        let mut r = Router::new(&f, &h, cfg).unwrap();
        let t = f.terminals();
        r.join(mgid(1), t[0]).unwrap();
        let g = r.join(mgid(1), t[9]).unwrap().group;
        r.delete_group(g).unwrap();
        assert_eq!(r.group_of(mgid(1)), None);
        assert_eq!(
            r.members_of(mgid(1)),
            Err(Error::UnknownMgid { mgid: mgid(1) })
        );
        assert_eq!(
            r.leave(mgid(1), t[0]),
            Err(Error::UnknownMgid { mgid: mgid(1) })
        );
        check_state(&r).unwrap();
        // The MGID starts afresh: a new group, created by its first join.
        let again = r.join(mgid(1), t[4]).unwrap();
        assert!(matches!(again.method, JoinMethod::Created(_)));
        assert_ne!(again.group, g);
        assert_eq!(r.members_of(mgid(1)).unwrap(), [t[4]]);
        assert_eq!(r.mgid_of(again.group), Some(mgid(1)));
        assert_eq!(r.mgid_of(g), None);
        check_state(&r).unwrap();
    }
}

/// Regression: on a baseline router, a recolor gives trees on disjoint switches one color;
/// a join then routed its group again in its color across a switch where another tree held
/// that color (two trees on one entry: a `debug_assert` in debug builds, one group's packets
/// forwarded along another's tree in release builds).
#[test]
fn a_baseline_join_after_a_recolor_never_takes_a_color_held_on_its_switches() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let t = f.terminals();
    for alg in [Algorithm::MinihopMc, Algorithm::SsspMc] {
        for rerouting in [false, true] {
            let mut r = Router::new(&f, &h, Config::baseline(alg, Entries::Limit(4))).unwrap();
            // Two groups, each on one edge switch of its own (t[0], t[1] on the first of pod
            // 0; t[4], t[5] on the first of pod 1): two colors, no switch shared.
            r.join(mgid(1), t[0]).unwrap();
            r.join(mgid(1), t[1]).unwrap();
            r.join(mgid(2), t[4]).unwrap();
            r.join(mgid(2), t[5]).unwrap();
            let recolored = if rerouting {
                r.recolor_rerouting(&Tabu::default())
            } else {
                r.recolor()
            };
            assert_eq!((recolored.colors_before, recolored.colors_after), (2, 1));
            let c = r.group(r.group_of(mgid(2)).unwrap()).unwrap().color;
            assert_eq!(r.group(r.group_of(mgid(1)).unwrap()).unwrap().color, c);
            check_state(&r).unwrap();
            // Group 1 now reaches t[4]'s switch, where group 2's tree holds the color.
            let o = r.join(mgid(1), t[4]).unwrap();
            assert_eq!(o.color, c, "the group keeps its MLID");
            check_state(&r).unwrap();
            // Both groups still reach their own members, and only those.
            assert_eq!(r.members_of(mgid(1)).unwrap(), [t[0], t[1], t[4]]);
            assert_eq!(r.members_of(mgid(2)).unwrap(), [t[4], t[5]]);
            r.leave(mgid(1), t[4]).unwrap();
            check_state(&r).unwrap();
        }
    }
}

#[test]
fn bad_joins_and_leaves_have_precise_errors() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::default()).unwrap();
    let t = f.terminals();
    let ghost = NodeId::new(f.node_count() as u32);
    assert_eq!(
        r.join(mgid(1), ghost),
        Err(Error::UnknownNode { node: ghost })
    );
    assert_eq!(
        r.group_of(mgid(1)),
        None,
        "a failed first join creates nothing"
    );
    r.join(mgid(1), t[0]).unwrap();
    assert_eq!(
        r.join(mgid(1), t[0]),
        Err(Error::AlreadyMember {
            mgid: mgid(1),
            node: t[0]
        })
    );
    assert_eq!(
        r.leave(mgid(1), t[1]),
        Err(Error::NotAMember {
            mgid: mgid(1),
            node: t[1]
        })
    );
    assert_eq!(
        r.leave(mgid(9), t[0]),
        Err(Error::UnknownMgid { mgid: mgid(9) })
    );
    assert_eq!(
        r.members_of(mgid(9)),
        Err(Error::UnknownMgid { mgid: mgid(9) })
    );
    check_state(&r).unwrap();
}

#[test]
fn a_port_in_another_island_is_disconnected() {
    // Two switches without a cable between them, a terminal on each.
    let mut b = FabricBuilder::new();
    let s0 = b.add_node(NodeInfo::switch("s0", 4)).unwrap();
    let s1 = b.add_node(NodeInfo::switch("s1", 4)).unwrap();
    let h0 = b.add_node(NodeInfo::terminal("h0", 1)).unwrap();
    let h1 = b.add_node(NodeInfo::terminal("h1", 1)).unwrap();
    b.link(s0, PortNo::new(1), h0, PortNo::new(1)).unwrap();
    b.link(s1, PortNo::new(1), h1, PortNo::new(1)).unwrap();
    let f = b.build().unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::default()).unwrap();
    r.join(mgid(1), h0).unwrap();
    assert_eq!(
        r.join(mgid(1), h1),
        Err(Error::Disconnected { a: h0, b: h1 })
    );
    assert_eq!(r.members_of(mgid(1)).unwrap(), [h0]);
    check_state(&r).unwrap();
}

pub(crate) fn fabric(kind: u8, seed: u64) -> Fabric {
    match kind % 4 {
        0 => generators::fat_tree(4),
        1 => generators::torus(&[4, 3], 2),
        2 => generators::dragonfly(3, 2, 1),
        _ => generators::random_regular(10, 5, 2, seed),
    }
    .expect("small generator parameters are valid")
}

pub(crate) fn config() -> impl Strategy<Value = Config> {
    (
        prop_oneof![Just(Entries::Unlimited), (1u32..5).prop_map(Entries::Limit)],
        prop_oneof![
            4 => Just(Algorithm::Mr4lms),
            1 => Just(Algorithm::MinihopMc),
            1 => Just(Algorithm::SsspMc)
        ],
        prop_oneof![
            (1u32..4).prop_map(|switch_back| Policy::Adaptive { switch_back }),
            Just(Policy::FbtcOnly),
            Just(Policy::FctbOnly)
        ],
        prop_oneof![
            Just(crate::Regraft::KeepOldTree),
            Just(crate::Regraft::Rebuild)
        ],
    )
        .prop_map(|(entries, algorithm, policy, regraft)| {
            Config::default()
                .with_entries(entries)
                .with_algorithm(algorithm)
                .with_policy(policy)
                .with_regraft(regraft)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random joins and leaves (terminals and switches, MGIDs out of 4), with deletes of
    /// joined groups ([`Router::delete_group`]) and recolorings ([`Router::recolor`],
    /// [`Router::recolor_rerouting`]) between them, on MR4LMS and both baselines: every
    /// invariant of the state holds after each (the tables flooded from every member), each
    /// group keeps its color from first join to last leave (a recoloring aside), its
    /// members are those joined and not left, and a deleted group's MGID is free.
    #[test]
    fn joins_and_leaves_keep_every_invariant_and_the_mlids(
        kind in 0u8..4, seed in 0u64..100, cfg in config(),
        ops in prop::collection::vec((0u64..4, 0usize..1000, 0u8..20, 0u8..10), 1..40)
    ) {
        let f = fabric(kind, seed);
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, cfg).unwrap();
        let mut model: BTreeMap<u64, (Color, Vec<NodeId>)> = BTreeMap::new();
        for (k, idx, action, pick) in ops {
            // One port in ten is a switch.
            let port = if pick == 0 {
                f.switches()[idx % f.switch_count()]
            } else {
                f.terminals()[idx % f.terminal_count()]
            };
            let member = model.get(&k).is_some_and(|(_, m)| m.contains(&port));
            match action {
                // Delete the MGID's group outright: its MGID is free afterwards.
                0 => {
                    if let Some(id) = r.group_of(mgid(k)) {
                        prop_assert!(model.contains_key(&k));
                        r.delete_group(id).unwrap();
                        model.remove(&k);
                        prop_assert_eq!(r.group_of(mgid(k)), None);
                        prop_assert_eq!(
                            r.members_of(mgid(k)),
                            Err(Error::UnknownMgid { mgid: mgid(k) })
                        );
                        prop_assert_eq!(
                            r.leave(mgid(k), port),
                            Err(Error::UnknownMgid { mgid: mgid(k) })
                        );
                    }
                }
                // Recolor (the trees kept, or routed again): the groups take their trees'
                // new colors.
                1 | 2 => {
                    if action == 1 {
                        r.recolor();
                    } else {
                        r.recolor_rerouting(&Tabu::default().with_moves(300).with_seed(seed));
                    }
                    for (&k, (c, _)) in model.iter_mut() {
                        *c = r.group(r.group_of(mgid(k)).unwrap()).unwrap().color;
                    }
                }
                _ if action % 2 == 1 && !member => match r.join(mgid(k), port) {
                    Ok(o) => {
                        let e = model.entry(k).or_insert((o.color, Vec::new()));
                        prop_assert_eq!(e.0, o.color, "group {} changed color", k);
                        e.1.push(port);
                        for other in &o.merged {
                            let g = r.mgid_of(*other).map(|m| m.guid());
                            prop_assert!(g.is_none_or(|g| model[&g].0 == o.color));
                        }
                    }
                    Err(Error::EntriesExhausted { .. }) => {
                        prop_assert!(cfg.algorithm() != Algorithm::Mr4lms);
                    }
                    Err(e) => return Err(TestCaseError::fail(e.to_string())),
                },
                _ if member => {
                    let o = r.leave(mgid(k), port).unwrap();
                    let e = model.get_mut(&k).unwrap();
                    e.1.retain(|&m| m != port);
                    prop_assert_eq!(o.deleted, e.1.is_empty());
                    if e.1.is_empty() {
                        model.remove(&k);
                    }
                }
                _ => prop_assert!(r.leave(mgid(k), port).is_err()),
            }
            if let Err(e) = check_state(&r) {
                return Err(TestCaseError::fail(e));
            }
            for (&k, (c, m)) in &model {
                let id = r.group_of(mgid(k)).unwrap();
                let g = r.group(id).unwrap();
                prop_assert_eq!(g.color, *c, "group {} changed color", k);
                prop_assert_eq!(&g.members, m);
            }
        }
    }
}
