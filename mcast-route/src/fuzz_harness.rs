//! Entry points for the cargo-fuzz targets `mcast_dump` and `mcast_router_ops`, kept in the
//! library so that a stable test replays the committed corpus (`tests/corpus/<target>/` of
//! this package) through the same code. Compiled only for tests and under `cfg(fuzzing)`
//! (cargo-fuzz sets it); not part of the public API.

use std::sync::OnceLock;

use fabric_model::{Fabric, HopTable, NodeId, generators};

use crate::coloring::Tabu;
use crate::invariants::check_state;
use crate::{
    Algorithm, BottomUp, Config, Entries, Gid, GroupId, MergeRoot, MergeStrategy, Policy, Regraft,
    Router, SwitchOrder, mft,
};

/// The fabrics [`router_ops`] routes over: small ones of each kind, built once.
fn fabrics() -> &'static [(Fabric, HopTable)] {
    static F: OnceLock<Vec<(Fabric, HopTable)>> = OnceLock::new();
    F.get_or_init(|| {
        [
            generators::fat_tree(4),
            generators::torus(&[4, 3], 2),
            generators::random_regular(12, 6, 2, 5),
            generators::dragonfly(4, 2, 2),
        ]
        .into_iter()
        .map(|f| {
            let f = f.expect("the fuzzed fabrics are valid");
            let h = HopTable::new(&f).expect("a small fabric has a hop table");
            (f, h)
        })
        .collect()
    })
}

/// Reads `data` as a dump over `fat_tree(4)`; when it parses, nothing else is checked (the
/// parser must just not panic).
pub fn dump(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = mft::parse_dump(text, &fabrics()[0].0);
    }
}

/// The configuration two bytes choose. `a`: bit 0 the baselines' switch order (OpenSM's or
/// the fabric's), 2–3 the entries
/// (1, 2 or 3, or unlimited), 4–5 the policy (adaptive with a switch-back of 2, FBTC only,
/// FCTB only, adaptive with the paper's 20), 6–7 the merge (the paper's, fewest-groups color,
/// least added load, least added load rebuilding the trees). `b`: bits 0–1 the algorithm
/// (MR4LMS twice, MINIHOP-MC, SSSP-MC), bit 2 the merge root (BFS or hop table), bits 3–4
/// the bottom-up build (greedy, least-load path, best of both twice), bits 5–7 FBTC's root
/// tries (1 to 8).
fn config(a: u8, b: u8) -> Config {
    Config {
        entries: match a >> 2 & 3 {
            3 => Entries::Unlimited,
            n => Entries::Limit(u32::from(n) + 1),
        },
        policy: match a >> 4 & 3 {
            0 => Policy::Adaptive { switch_back: 2 },
            1 => Policy::FbtcOnly,
            2 => Policy::FctbOnly,
            _ => Policy::Adaptive { switch_back: 20 },
        },
        merge: match a >> 6 {
            0 => MergeStrategy::OptimisticThenPessimistic,
            1 => MergeStrategy::FewestGroupsColor,
            _ => MergeStrategy::LeastAddedLoad,
        },
        regraft: if a >> 6 == 3 {
            Regraft::Rebuild
        } else {
            Regraft::KeepOldTree
        },
        algorithm: match b & 3 {
            2 => Algorithm::MinihopMc,
            3 => Algorithm::SsspMc,
            _ => Algorithm::Mr4lms,
        },
        merge_root: if b >> 2 & 1 == 1 {
            MergeRoot::HopTable
        } else {
            MergeRoot::Bfs
        },
        bottom_up: match b >> 3 & 3 {
            0 => BottomUp::Greedy,
            1 => BottomUp::LeastLoadPath,
            _ => BottomUp::BestOfBoth,
        },
        fbtc_root_tries: u32::from(b >> 5) + 1,
        switch_order: if a & 1 == 1 {
            SwitchOrder::Fabric
        } else {
            SwitchOrder::OpenSm
        },
        // Joins take the paper's color (first fit on the first member).
        join_color: crate::JoinColor::FirstFit,
    }
}

/// Operations [`router_ops`] runs at most (each is followed by a full check).
const MAX_OPS: usize = 48;

/// Runs `data` as a sequence of operations on a router. The first two bytes choose the
/// fabric and the configuration (see `config`); then each operation is one byte `b`,
/// followed by what it reads:
/// - `0x00..=0x7f`: creates a group of the terminals whose bits are set in the next two
///   bytes (bit `k`: the fabric's terminal `k · T / 16` of `T`);
/// - `0x80..=0xbf`: deletes group `b & 0x3f`;
/// - `0xc0..=0xdf`: joins the port of the next byte (see `port`) to MGID `b & 3`;
/// - `0xe0..=0xef`: makes that port leave MGID `b & 3`;
/// - `0xf0..=0xf7`: deletes MGID `b & 3`'s group ([`Router::delete_group`]);
/// - `0xf8..=0xfb`: [`Router::recolor`]; `0xfc..=0xff`: [`Router::recolor_rerouting`].
///
/// Bad input must give errors; after every operation the state must pass the invariants
/// (`check_state`), and at the end the dump must read back.
///
/// # Panics
/// When an invariant breaks or the dump of a state does not parse: the bugs the fuzzer hunts.
pub fn router_ops(data: &[u8]) {
    let (a, b) = (
        data.first().copied().unwrap_or(0),
        data.get(1).copied().unwrap_or(0),
    );
    let (f, h) = &fabrics()[usize::from(a & 3)];
    let Ok(mut r) = Router::new(f, h, config(a, b)) else {
        return;
    };
    let terminals = f.terminals();
    // A port: a switch (its port 0) when the high bit is set, else a terminal.
    let port = |x: u8| {
        if x & 0x80 != 0 {
            f.switches()[usize::from(x & 0x7f) % f.switch_count()]
        } else {
            terminals[usize::from(x) % terminals.len()]
        }
    };
    let mgid = |op: u8| Gid::new(0xff12_401b_ffff_0000, u64::from(op & 3));
    let mut i = 2;
    let mut ops = 0;
    while i < data.len() && ops < MAX_OPS {
        let op = data[i];
        i += 1;
        ops += 1;
        match op {
            0x00..=0x7f => {
                let mask = u16::from_le_bytes([
                    data.get(i).copied().unwrap_or(0),
                    data.get(i + 1).copied().unwrap_or(0),
                ]);
                i += 2;
                let members: Vec<NodeId> = (0..16)
                    .filter(|k| mask >> k & 1 == 1)
                    .map(|k| terminals[k * terminals.len() / 16])
                    .collect();
                let _ = r.create_group(&members);
            }
            0x80..=0xbf => {
                let _ = r.delete_group(GroupId(u32::from(op & 0x3f)));
            }
            0xc0..=0xef => {
                let p = port(data.get(i).copied().unwrap_or(0));
                i += 1;
                let _ = if op < 0xe0 {
                    r.join(mgid(op), p).map(|_| ())
                } else {
                    r.leave(mgid(op), p).map(|_| ())
                };
            }
            0xf0..=0xf7 => {
                if let Some(g) = r.group_of(mgid(op)) {
                    let _ = r.delete_group(g);
                    assert_eq!(r.group_of(mgid(op)), None, "a deleted group's MGID is free");
                }
            }
            0xf8..=0xfb => {
                r.recolor_with(&Tabu::default().with_moves(200));
            }
            0xfc..=0xff => {
                r.recolor_rerouting(&Tabu::default().with_moves(200));
            }
        }
        if let Err(e) = check_state(&r) {
            panic!("after operation {ops} ({op:#04x}): {e}");
        }
    }
    let text = r.dump().expect("a few dozen colors all have MLIDs");
    let parsed = mft::parse_dump(&text, f).expect("a dump reads back");
    assert_eq!(parsed.groups.len(), r.group_ids().count());
}

#[cfg(test)]
mod tests {
    /// Replays every committed corpus file of `target` through `run`; returns how many.
    fn replay(target: &str, run: fn(&[u8])) -> usize {
        let dir = format!("{}/tests/corpus/{target}", env!("CARGO_MANIFEST_DIR"));
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            run(&std::fs::read(entry.unwrap().path()).unwrap());
            n += 1;
        }
        n
    }

    /// Replays the committed corpus of the `mcast_dump` target.
    #[test]
    fn replay_mcast_dump_corpus() {
        assert!(replay("mcast_dump", super::dump) >= 2);
    }

    /// Replays the committed corpus of the `mcast_router_ops` target.
    #[test]
    fn replay_mcast_router_ops_corpus() {
        assert!(replay("mcast_router_ops", super::router_ops) >= 11);
    }
}
