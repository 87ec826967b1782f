//! Recoloring: invariants, unchanged trees, no more colors, and the delta against a
//! brute-force diff of every switch's MFT blocks.

use std::collections::BTreeMap;

use fabric_model::{Fabric, HopTable, LinkId, NodeId, generators};
use proptest::prelude::*;

use crate::coloring::Tabu;
use crate::invariants::check_state;
use crate::{Algorithm, Config, Entries, GroupId, MftBlock, Router, TreeId, patterns};

/// Every tree without its color: root, switches with parents, members, groups, links.
type Shape = (
    NodeId,
    Vec<(NodeId, Option<NodeId>)>,
    Vec<NodeId>,
    Vec<GroupId>,
    Vec<LinkId>,
);

fn shapes(r: &Router<'_>) -> BTreeMap<TreeId, Shape> {
    r.tree_ids()
        .map(|id| {
            let t = r.tree(id).expect("listed");
            (id, (t.root, t.switches, t.members, t.groups, t.links))
        })
        .collect()
}

/// Blocks `0..blocks` of every switch.
pub(crate) fn blocks(r: &Router<'_>, blocks: u16) -> BTreeMap<(NodeId, u16), Vec<MftBlock>> {
    let f = r.fabric();
    f.switches()
        .iter()
        .flat_map(|&s| (0..blocks).map(move |b| ((s, b), r.mft_block(s, b).expect("a switch"))))
        .collect()
}

/// The MFT blocks in use on the most used switch.
pub(crate) fn block_count(r: &Router<'_>) -> u16 {
    r.fabric()
        .switches()
        .iter()
        .flat_map(|&s| r.entries(s).expect("a switch"))
        .map(|(c, _)| (c.get() / 32 + 1) as u16)
        .max()
        .unwrap_or(0)
}

/// Recolors `r` and checks everything: returns (colors before, after).
fn recolor_and_check(r: &mut Router<'_>, tabu: &Tabu) -> Result<(usize, usize), String> {
    r.take_mft_delta();
    let before_stats = r.stats();
    let before_shapes = shapes(r);
    let n = block_count(r);
    let before_blocks = blocks(r, n);
    let out = r.recolor_with(tabu);
    check_state(r)?;
    let after_stats = r.stats();
    if shapes(r) != before_shapes {
        return Err("a tree changed".into());
    }
    if out.colors_before != before_stats.colors_used || out.colors_after != after_stats.colors_used
    {
        return Err(format!("{out:?} against {before_stats} then {after_stats}"));
    }
    if out.colors_after > out.colors_before {
        return Err("colors increased".into());
    }
    // The floor is a lower bound: the most trees on one switch at least, never above the
    // colors a proper coloring reached.
    let most = r
        .fabric()
        .switches()
        .iter()
        .map(|&s| r.entries(s).map_or(0, |e| e.len()))
        .max()
        .unwrap_or(0);
    if out.floor < most || out.floor > out.colors_after {
        return Err(format!(
            "floor {} with {most} trees on a switch: {out:?}",
            out.floor
        ));
    }
    // Recoloring changes nothing but colors.
    if (
        after_stats.max_efi,
        after_stats.max_tfi,
        after_stats.groups,
        after_stats.trees,
    ) != (
        before_stats.max_efi,
        before_stats.max_tfi,
        before_stats.groups,
        before_stats.trees,
    ) {
        return Err(format!("{before_stats} then {after_stats}"));
    }
    if n < block_count(r) {
        return Err("recoloring opened a new MFT block".into());
    }
    let after_blocks = blocks(r, n);
    let diff: Vec<(NodeId, u16)> = before_blocks
        .iter()
        .filter(|(k, v)| after_blocks.get(k) != Some(v))
        .map(|(k, _)| *k)
        .collect();
    // Brute force in (NodeId, block) order; the delta is in switch order, then block.
    let mut delta = out.delta.clone();
    delta.sort_unstable();
    if delta != diff {
        return Err(format!("delta {:?} against diff {diff:?}", out.delta));
    }
    if r.take_mft_delta() != out.delta {
        return Err("take_mft_delta disagrees with recolor's delta".into());
    }
    if (out.trees_recolored == 0) != out.delta.is_empty() {
        return Err(format!("{out:?}"));
    }
    Ok((out.colors_before, out.colors_after))
}

/// A router of `cfg` with `groups` created in order.
pub(crate) fn routed<'f>(
    f: &'f Fabric,
    h: &'f HopTable,
    cfg: Config,
    groups: &[Vec<NodeId>],
) -> Router<'f> {
    let mut r = Router::new(f, h, cfg).expect("valid config");
    for g in groups {
        r.create_group(g).expect("valid group");
    }
    r
}

#[test]
fn recoloring_random_groups_uses_fewer_colors() {
    let f = generators::fat_tree(8).unwrap();
    let h = HopTable::new(&f).unwrap();
    let groups = patterns::random_groups(&f, 60, 6, 3).unwrap();
    let mut r = routed(&f, &h, Config::mr4lms(Entries::Unlimited), &groups);
    let (before, after) = recolor_and_check(&mut r, &Tabu::default().with_moves(5_000)).unwrap();
    assert!(after < before, "{before} -> {after}");
    // The clique bound: the most trees on one switch.
    let most = f
        .switches()
        .iter()
        .map(|&s| r.entries(s).unwrap().len())
        .max()
        .unwrap();
    assert!(after >= most);
    // A second recoloring finds nothing better: it changes nothing.
    let again = r.recolor_with(&Tabu::default().with_moves(5_000));
    assert_eq!((again.colors_before, again.colors_after), (after, after));
    assert_eq!(again.trees_recolored, 0);
    assert!(again.delta.is_empty() && r.take_mft_delta().is_empty());
    // Creates and deletes go on over the recolored state.
    for g in patterns::random_groups(&f, 10, 5, 11).unwrap() {
        r.create_group(&g).unwrap();
    }
    r.delete_group(GroupId(0)).unwrap();
    check_state(&r).unwrap();
}

#[test]
fn recoloring_a_full_table_frees_entries_and_keeps_the_limit() {
    let f = generators::fat_tree(8).unwrap();
    let h = HopTable::new(&f).unwrap();
    let groups = patterns::random_groups(&f, 60, 6, 3).unwrap();
    let mut r = routed(&f, &h, Config::mr4lms(Entries::Limit(12)), &groups);
    let (before, after) = recolor_and_check(&mut r, &Tabu::default().with_moves(5_000)).unwrap();
    assert!(after <= before && after <= 12);
}

#[test]
fn recoloring_an_empty_router_or_one_at_the_bound_changes_nothing() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = routed(&f, &h, Config::default(), &[]);
    assert_eq!(recolor_and_check(&mut r, &Tabu::default()).unwrap(), (0, 0));
    // One group per leaf pair of a grid: already at the clique bound.
    let groups = patterns::grid(&f, &[4, 4], 1).unwrap();
    let mut r = routed(&f, &h, Config::default(), &groups);
    let st = r.stats();
    let (b, a) = recolor_and_check(&mut r, &Tabu::default()).unwrap();
    assert_eq!((b, a), (st.colors_used, st.colors_used));
}

/// One of four small fabric kinds.
pub(crate) fn fabric(kind: u8, seed: u64) -> Fabric {
    match kind % 4 {
        0 => generators::fat_tree(4),
        1 => generators::tapered_fat_tree(4, 6, 2),
        2 => generators::torus(&[4, 3], 2),
        _ => generators::random_regular(10, 5, 2, seed),
    }
    .expect("small generator parameters are valid")
}

/// Random creates and deletes: an op 0 deletes a live group (when there is one), any other
/// creates a group of the terminals `idx` picks (repeats dropped; refused groups skipped).
pub(crate) fn run_script(r: &mut Router<'_>, f: &Fabric, ops: Vec<(u8, Vec<usize>)>) {
    let t = f.terminals();
    let mut live: Vec<GroupId> = Vec::new();
    for (op, idx) in ops {
        if op == 0 && !live.is_empty() {
            let g = live.remove(idx[0] % live.len());
            r.delete_group(g).unwrap();
            continue;
        }
        let mut members: Vec<NodeId> = idx.iter().map(|&i| t[i % t.len()]).collect();
        members.sort();
        members.dedup();
        if let Ok(made) = r.create_group(&members) {
            live.push(made.group);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// After random creates and deletes, recoloring keeps every invariant and tree, never
    /// adds a color, and its delta is exactly the blocks whose content changed.
    #[test]
    fn recoloring_keeps_trees_and_reports_exactly_the_changed_blocks(
        kind in 0u8..4,
        seed in 0u64..1000,
        limit in prop_oneof![Just(Entries::Unlimited), (1u32..6).prop_map(Entries::Limit)],
        alg in prop_oneof![3 => Just(Algorithm::Mr4lms), 1 => Just(Algorithm::MinihopMc)],
        ops in prop::collection::vec((0u8..4, prop::collection::vec(0usize..1000, 1..6)), 1..24),
    ) {
        let f = fabric(kind, seed);
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::baseline(alg, limit)).unwrap();
        run_script(&mut r, &f, ops);
        let tabu = Tabu::default().with_moves(300).with_seed(seed + 1);
        if let Err(e) = recolor_and_check(&mut r, &tabu) {
            return Err(TestCaseError::fail(e));
        }
    }
}
