//! Entry points for the cargo-fuzz targets in `fuzz/`, kept in the library so that a stable
//! test replays the committed corpus through the same code, and the invariant checks they
//! (and the crate's tests) run on a router's state.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use fabric_model::{Fabric, HopTable, NodeId, PortNo, generators};

use crate::{
    Algorithm, BottomUp, Color, Config, Entries, GroupId, MergeRoot, MergeStrategy, Policy,
    Regraft, Router, mft,
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

/// The configuration two bytes choose. `a`: bits 0–1 the fabric (none here), 2–3 the entries
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
    }
}

/// Operations [`router_ops`] runs at most (each is followed by a full check).
const MAX_OPS: usize = 48;

/// Runs `data` as a sequence of operations on a router. The first two bytes choose the
/// fabric and the configuration (see `config`); then byte `b` with the high bit clear
/// creates a group of the terminals whose bits are set in the next two bytes (bit `k`: the
/// fabric's terminal `k · T / 16` of `T`), and with the high bit set deletes group
/// `b & 0x7f`. Bad input must give errors; after every operation the state must pass
/// [`check_state`], and at the end the dump must read back.
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
    let mut i = 2;
    let mut ops = 0;
    while i < data.len() && ops < MAX_OPS {
        let op = data[i];
        i += 1;
        ops += 1;
        if op & 0x80 != 0 {
            let _ = r.delete_group(GroupId(u32::from(op & 0x7f)));
        } else {
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
        if let Err(e) = check_state(&r) {
            panic!("after operation {ops}: {e}");
        }
    }
    let text = r.dump().expect("a few dozen colors all have MLIDs");
    let parsed = mft::parse_dump(&text, f).expect("a dump reads back");
    assert_eq!(parsed.groups.len(), r.group_ids().count());
}

/// Floods a packet from `src` along the MFT entries of `color`: returns how many copies each
/// terminal received, or an error naming a switch reached twice (a loop or a second parent).
///
/// # Errors
/// A message naming the first fault met: a switch reached twice, a switch without an entry
/// for `color` that got the packet, a packet on a port outside the entry, an entry port
/// without a link.
pub fn flood(r: &Router<'_>, src: NodeId, color: Color) -> Result<BTreeMap<NodeId, u32>, String> {
    let f: &Fabric = r.fabric();
    let (sw, port) = f.switch_of(src).ok_or("member without switch")?;
    let mut got: BTreeMap<NodeId, u32> = BTreeMap::new();
    let mut visited = BTreeSet::new();
    let mut stack: Vec<(NodeId, PortNo)> = vec![(sw, port)];
    while let Some((s, in_port)) = stack.pop() {
        if !visited.insert(s) {
            return Err(format!("switch {s} reached twice"));
        }
        let Some(ports) = r.port_set(s, color).map_err(|e| e.to_string())? else {
            return Err(format!(
                "switch {s} has no entry for {color:?} but got the packet"
            ));
        };
        if !ports.contains(in_port) {
            return Err(format!(
                "switch {s} got the packet on a port outside its entry"
            ));
        }
        for p in ports.iter().filter(|&p| p != in_port) {
            let (peer, peer_port) = f.peer(s, p).ok_or("entry port not linked")?;
            if f.is_switch(peer) {
                stack.push((peer, peer_port));
            } else {
                *got.entry(peer).or_insert(0) += 1;
            }
        }
    }
    Ok(got)
}

/// Checks every invariant of the router's state: one parent per switch, flooding from each
/// member reaches each member of its group exactly once, no color clash, limit respected.
/// The fuzz targets and the crate's tests call it after every operation.
///
/// # Errors
/// A message naming the first invariant broken.
pub fn check_state(r: &Router<'_>) -> Result<(), String> {
    let f = r.fabric();
    let limit = r.config().entries.limit();
    let mut owner: BTreeMap<(NodeId, u32), crate::TreeId> = BTreeMap::new();
    for id in r.tree_ids() {
        let t = r.tree(id).ok_or("listed tree missing")?;
        // A tree: every switch but the root has a parent in the tree, walks end at the root.
        let parents: BTreeMap<NodeId, Option<NodeId>> = t.switches.iter().copied().collect();
        for (&s, &p) in &parents {
            match p {
                None if s != t.root => {
                    return Err(format!("{s} has no parent and is not the root"));
                }
                Some(p) if !parents.contains_key(&p) => {
                    return Err(format!("parent {p} of {s} not in tree"));
                }
                _ => {}
            }
            let mut x = s;
            let mut steps = 0;
            while let Some(Some(p)) = parents.get(&x) {
                x = *p;
                steps += 1;
                if steps > parents.len() {
                    return Err(format!("cycle above {s}"));
                }
            }
            if x != t.root {
                return Err(format!("{s} does not reach the root"));
            }
        }
        for (s, _) in &t.switches {
            if owner.insert((*s, t.color.0), id).is_some() {
                return Err(format!("two trees on color {} at {s}", t.color.0));
            }
            if r.tree_at(*s, t.color).map_err(|e| e.to_string())? != Some(id) {
                return Err(format!("entry of {s} does not name its tree"));
            }
        }
    }
    if let Some(l) = limit {
        for &s in f.switches() {
            let n = r.entries(s).map_err(|e| e.to_string())?.len();
            if n > l as usize {
                return Err(format!("{s} holds {n} entries, limit {l}"));
            }
        }
    }
    let ids: Vec<GroupId> = r.group_ids().collect();
    for id in ids {
        let g = r.group(id).map_err(|e| e.to_string())?;
        for &src in &g.members {
            let got = flood(r, src, g.color)?;
            for &m in &g.members {
                if m != src && got.get(&m).copied() != Some(1) {
                    return Err(format!(
                        "group {id}: member {m} got {:?} copies from {src}",
                        got.get(&m)
                    ));
                }
            }
            if got.get(&src).copied().unwrap_or(0) != 0 {
                return Err(format!("group {id}: {src} got its own packet back"));
            }
        }
    }
    Ok(())
}
