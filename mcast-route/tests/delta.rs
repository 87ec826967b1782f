//! MFT deltas against a brute-force comparison of every switch's tables.

use std::collections::BTreeSet;

use fabric_model::{Fabric, HopTable, NodeId, generators, rng::SplitMix64};
use mcast_route::{Config, Entries, GroupId, Router};

/// Every switch's blocks, block number → the blocks at each position.
fn tables(r: &Router<'_>, f: &Fabric) -> Vec<Vec<Vec<[u16; 32]>>> {
    f.switches()
        .iter()
        .map(|&s| {
            let mut by_block: Vec<Vec<[u16; 32]>> = Vec::new();
            for b in r.mft_blocks(s).unwrap() {
                let i = usize::from(b.block);
                if by_block.len() <= i {
                    by_block.resize(i + 1, Vec::new());
                }
                by_block[i].push(b.masks);
            }
            by_block
        })
        .collect()
}

/// The (switch, block) pairs whose content differs between two snapshots (a missing block is
/// all zeros).
fn differ(
    f: &Fabric,
    a: &[Vec<Vec<[u16; 32]>>],
    b: &[Vec<Vec<[u16; 32]>>],
) -> BTreeSet<(NodeId, u16)> {
    let mut out = BTreeSet::new();
    for (k, &s) in f.switches().iter().enumerate() {
        let n = a[k].len().max(b[k].len());
        for blk in 0..n {
            let zero = |t: &Vec<Vec<[u16; 32]>>| {
                t.get(blk).is_none_or(|p| p.iter().all(|m| *m == [0; 32]))
            };
            let same = match (a[k].get(blk), b[k].get(blk)) {
                (Some(x), Some(y)) => x == y,
                _ => zero(&a[k]) && zero(&b[k]),
            };
            if !same {
                out.insert((s, blk as u16));
            }
        }
    }
    out
}

/// Runs random creates and deletes, checking every delta; returns the highest block seen and
/// how many groups were merged.
fn run(entries: Entries, seed: u64, delete_one_in: u64) -> (u16, usize) {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(entries)).unwrap();
    let t = f.terminals().to_vec();
    let mut rng = SplitMix64::new(seed);
    let mut live: Vec<GroupId> = Vec::new();
    let empty = tables(&r, &f);
    // Some groups before the first delta: it answers against the empty tables.
    for _ in 0..5 {
        let members: Vec<NodeId> = t.iter().copied().filter(|_| rng.below(3) == 0).collect();
        if let Ok(o) = r.create_group(&members) {
            live.push(o.group);
        }
    }
    let mut before = tables(&r, &f);
    let mut top = 0;
    let first: BTreeSet<_> = r.take_mft_delta().into_iter().collect();
    assert_eq!(first, differ(&f, &empty, &before));
    assert!(!first.is_empty());
    for round in 0..40 {
        for _ in 0..rng.below(4) + 1 {
            if !live.is_empty() && rng.below(delete_one_in) == 0 {
                let g = live.swap_remove(rng.below(live.len() as u64) as usize);
                r.delete_group(g).unwrap();
            } else {
                let members: Vec<NodeId> =
                    t.iter().copied().filter(|_| rng.below(4) == 0).collect();
                if let Ok(o) = r.create_group(&members) {
                    live.push(o.group);
                }
            }
        }
        let after = tables(&r, &f);
        let delta = r.take_mft_delta();
        let got: BTreeSet<_> = delta.iter().copied().collect();
        assert_eq!(got.len(), delta.len(), "no pair twice");
        assert_eq!(got, differ(&f, &before, &after), "round {round}");
        for &(s, b) in &delta {
            top = top.max(b);
            assert_eq!(r.mft_block(s, b).unwrap().len(), 1, "radix 4: one position");
        }
        before = after;
    }
    // Nothing happened: nothing to send.
    assert_eq!(r.take_mft_delta(), vec![]);
    // A group created and deleted between two calls changes nothing.
    let o = r.create_group(&[t[0], t[15]]).unwrap();
    r.delete_group(o.group).unwrap();
    assert_eq!(r.take_mft_delta(), vec![]);
    let merged = r
        .group_ids()
        .filter(|&g| r.group(g).unwrap().merged)
        .count();
    (top, merged)
}

#[test]
fn deltas_name_exactly_the_changed_blocks_with_unlimited_entries() {
    // Up to some 60 live groups: MLIDs past 0xC01F, two blocks.
    let (top, _) = run(Entries::Unlimited, 1, 8);
    assert!(top >= 1, "highest block {top}");
}

#[test]
fn deltas_name_exactly_the_changed_blocks_when_merging() {
    // Three entries a switch: merges uninstall and reinstall trees.
    let merged = run(Entries::Limit(3), 2, 3).1 + run(Entries::Limit(3), 3, 3).1;
    assert!(merged > 0);
}

#[test]
fn one_block_of_one_switch_is_the_full_tables_block() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
    let t = f.terminals();
    r.create_group(&[t[0], t[5], t[15]]).unwrap();
    let s = f.switches()[0];
    let full = r.mft_blocks(s).unwrap();
    assert_eq!(r.mft_block(s, 0).unwrap(), full);
    assert!(r.mft_block(s, 2000).is_err());
}
