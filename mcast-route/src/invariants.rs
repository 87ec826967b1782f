//! The invariants of a router's state, checked through its public tables: the fuzz targets
//! and the crate's tests run [`check_state`] after every operation. Compiled only for tests
//! and under `cfg(fuzzing)`.

use std::collections::{BTreeMap, BTreeSet};

use fabric_model::{Fabric, NodeId, PortNo};

use crate::{Color, GroupId, Router};

/// Floods a packet from `src` along the MFT entries of `color`: returns how many copies each
/// terminal received, or an error naming a switch reached twice (a loop or a second parent).
///
/// # Errors
/// A message naming the first fault met: a switch reached twice, a switch without an entry
/// for `color` that got the packet, a packet on a port outside the entry, an entry port
/// without a link.
pub(crate) fn flood(
    r: &Router<'_>,
    src: NodeId,
    color: Color,
) -> Result<BTreeMap<NodeId, u32>, String> {
    let f: &Fabric = r.fabric();
    // A switch member sends from its own port 0.
    let (sw, port) = if f.is_switch(src) {
        (src, PortNo::new(0))
    } else {
        f.switch_of(src).ok_or("member without switch")?
    };
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
            if p.get() == 0 {
                // Port 0: the switch itself receives (a switch member).
                *got.entry(s).or_insert(0) += 1;
                continue;
            }
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
pub(crate) fn check_state(r: &Router<'_>) -> Result<(), String> {
    let f = r.fabric();
    let limit = r.config().entries().limit();
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
        for &l in &t.links {
            if r.is_link_down(l) {
                return Err(format!("{id} crosses {l}, which is down"));
            }
        }
        for (s, _) in &t.switches {
            if r.is_switch_down(*s) {
                return Err(format!("{id} passes switch {s}, which is down"));
            }
            if owner.insert((*s, t.color.0), id).is_some() {
                return Err(format!("two trees on color {} at {s}", t.color.0));
            }
            if r.tree_at(*s, t.color).map_err(|e| e.to_string())? != Some(id) {
                return Err(format!("entry of {s} does not name its tree"));
            }
        }
    }
    // EFI: each link carries the TFI of every tree crossing it; max EFI the largest over
    // switch–switch links.
    let mut efi = vec![0u32; f.link_count()];
    for id in r.tree_ids() {
        let t = r.tree(id).ok_or("listed tree missing")?;
        for &l in &t.links {
            efi[l.index()] += t.groups.len() as u32;
        }
    }
    let mut max_efi = 0;
    for (i, &e) in efi.iter().enumerate() {
        let l = fabric_model::LinkId::new(i as u32);
        if r.efi(l) != e {
            return Err(format!("{l} has EFI {} but its trees give {e}", r.efi(l)));
        }
        if f.link(l).ends.iter().all(|&(n, _)| f.is_switch(n)) {
            max_efi = max_efi.max(e);
        }
    }
    if r.state.max_efi != max_efi {
        return Err(format!(
            "max EFI {} but the links give {max_efi}",
            r.state.max_efi
        ));
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
