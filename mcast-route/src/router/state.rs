//! The routing state: trees, groups, colors (the MFT entries) and link loads (EFI), changed
//! only through [`State::install`], [`State::uninstall`] and [`State::reinstall_with`] so that
//! the loads, the color table and the MFT log always agree with the trees.

use fabric_model::{LinkId, NodeId};

use fabric_model::hash::FxHashMap;

use crate::tables::colors::ColorTable;
use crate::tree::{Edge, Leaf, Tree};
use crate::{Error, GroupId, TreeId};

/// A live group.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub(crate) members: Vec<NodeId>,
    /// Distinct member switches, sorted.
    pub(crate) member_sw: Vec<u32>,
    pub(crate) tree: TreeId,
    /// The least height, [`UNKNOWN`](crate::mr4lms::least_height::UNKNOWN) until asked for
    /// ([`crate::mr4lms::least_height`]).
    pub(crate) min_height: u32,
    /// A switch where the largest distance to the member switches is least, when
    /// `min_height` is known.
    pub(crate) center: u32,
    /// The hop table's epoch `min_height` and `center` were computed in.
    pub(crate) epoch: u32,
    pub(crate) merged: bool,
    /// The MGID it was joined under ([`Router::join`](crate::Router::join)), `None` for [`Router::create_group`](crate::Router::create_group)'s.
    pub(crate) mgid: Option<crate::Gid>,
}

/// What differs between an installed tree and its edit ([`State::reinstall_with`]).
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Switches whose forwarding ports change besides those below (any order, repeats
    /// allowed).
    pub(crate) touched: Vec<u32>,
    /// Switches leaving the tree, and joining it.
    pub(crate) left: Vec<u32>,
    pub(crate) joined: Vec<u32>,
    /// Switch–switch edges `(child, edge up)` leaving the tree, and joining it.
    pub(crate) gone_edges: Vec<(u32, Edge)>,
    pub(crate) new_edges: Vec<(u32, Edge)>,
    /// The links of the leaves leaving the tree, and joining it (a switch member's
    /// [`NO_LINK`](crate::tree::NO_LINK) allowed).
    pub(crate) gone_leaves: Vec<LinkId>,
    pub(crate) new_leaves: Vec<LinkId>,
}

/// A tree [`State::try_install`] refused: another tree holds its color on one of its
/// switches.
#[derive(Debug)]
pub(crate) struct Taken {
    /// The tree, as given.
    pub(crate) tree: Tree,
    /// The first of its switches where its color is taken, and the tree holding it there.
    pub(crate) switch: u32,
    pub(crate) holder: TreeId,
}

/// Alg. 7's state: which builder runs next and how many FCTB successes in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Current {
    Fbtc,
    Fctb { streak: u32 },
}

/// Trees, groups, colors and link loads.
pub(crate) struct State {
    pub(crate) colors: ColorTable,
    pub(crate) trees: Vec<Option<Tree>>,
    pub(crate) groups: Vec<Option<Group>>,
    /// EFI of every link: Σ over the trees crossing it of their TFI.
    pub(crate) efi: Vec<u32>,
    /// Per switch, the live groups with a member attached to it.
    pub(crate) attach_count: Vec<u32>,
    /// Per switch, the summed EFI of its switch–switch links (the candidate roots' load).
    pub(crate) sw_load: Vec<u64>,
    /// Per EFI value v > 0, how many switch–switch links carry EFI v (keeps `max_efi` exact
    /// when trees are taken out).
    pub(crate) efi_hist: Vec<u32>,
    /// The largest EFI over the switch–switch links ([`Stats::max_efi`](crate::Stats::max_efi)),
    /// kept up to date by install and uninstall ([`BottomUp::BestOfBoth`](crate::BottomUp::BestOfBoth)'s gate).
    pub(crate) max_efi: u32,
    pub(crate) current: Current,
    /// The entries touched since the last [`Router::take_mft_delta`](crate::Router::take_mft_delta),
    /// with their content before; `None` until the first call (no tracking, no cost).
    pub(crate) mft_log: Option<Vec<crate::tables::delta::MftLogEntry>>,
    /// The groups joined by MGID ([`Router::join`](crate::Router::join)).
    pub(crate) mgids: FxHashMap<crate::Gid, GroupId>,
}

impl State {
    /// Empty state for `switches` switches, `links` links and `entries` colors per switch.
    pub(crate) fn new(switches: usize, links: usize, entries: Option<u32>) -> Self {
        Self {
            colors: ColorTable::new(switches, entries),
            trees: Vec::new(),
            groups: Vec::new(),
            efi: vec![0; links],
            attach_count: vec![0; switches],
            sw_load: vec![0; switches],
            efi_hist: Vec::new(),
            max_efi: 0,
            current: Current::Fbtc,
            mft_log: None,
            mgids: FxHashMap::default(),
        }
    }

    /// Writes `tree` into the MFTs under id `id`: sets its color busy on its switches, adds its
    /// TFI to the EFI of its links (Alg. 1 steps ⑨–⑩).
    ///
    /// Every builder routes a tree over switches free in its color (FBTC's first fit,
    /// `G_color` for FCTB, the grafts and the merges, a proper coloring for the recolorings),
    /// so another tree never holds the color on one of its switches; a route that ignores
    /// the color table (a baseline's join) goes through [`try_install`](Self::try_install)
    /// instead. The check runs in every build: an entry shared by two trees would forward one
    /// group's packets along the other's tree.
    ///
    /// # Panics
    /// When another tree holds `tree`'s color on one of its switches (no call sequence
    /// reaches it: see above).
    pub(crate) fn install(&mut self, id: TreeId, tree: Tree) {
        if let Err(taken) = self.try_install(id, tree) {
            panic!(
                "tree {id} routed over switch {} where tree {} holds color {}",
                taken.switch, taken.holder, taken.tree.color
            );
        }
    }

    /// [`install`](Self::install), or `tree` back with nothing changed when another tree
    /// holds its color on one of its switches.
    ///
    /// Complexity: O(T) bit tests for T switches, before the install's own work.
    pub(crate) fn try_install(&mut self, id: TreeId, tree: Tree) -> Result<(), Box<Taken>> {
        if let Some((switch, holder)) = tree
            .switches()
            .iter()
            .find_map(|&sw| Some((sw, self.colors.tree_at(sw, tree.color)?)))
        {
            return Err(Box::new(Taken {
                tree,
                switch,
                holder,
            }));
        }
        let tfi = tree.groups().len() as u32;
        for &sw in tree.switches() {
            self.log_mft(sw, tree.color);
            self.colors.set(sw, tree.color, id);
        }
        // Switch–switch links (their ends from the tree, not `link_sw`), then terminal ones.
        for (a, b, l) in tree.switch_links() {
            let old = self.efi[l.index()];
            self.efi[l.index()] += tfi;
            self.sw_load[a as usize] += u64::from(tfi);
            self.sw_load[b as usize] += u64::from(tfi);
            self.move_efi(old, old + tfi);
        }
        for l in tree.leaf_links() {
            self.efi[l.index()] += tfi;
        }
        self.colors.count(tree.color, 1, i64::from(tfi));
        let slot = id.0 as usize;
        if self.trees.len() <= slot {
            self.trees.resize(slot + 1, None);
        }
        self.trees[slot] = Some(tree);
        Ok(())
    }

    /// Moves one switch–switch link from EFI `old` to EFI `new` in `efi_hist`, raising
    /// `max_efi` to `new` when it is larger (uninstall lowers it after its loop).
    ///
    /// Complexity: O(1) amortized.
    fn move_efi(&mut self, old: u32, new: u32) {
        if old > 0 {
            self.efi_hist[old as usize] -= 1;
        }
        if new > 0 {
            if self.efi_hist.len() <= new as usize {
                self.efi_hist.resize(new as usize + 1, 0);
            }
            self.efi_hist[new as usize] += 1;
        }
        self.max_efi = self.max_efi.max(new);
    }

    /// Takes tree `id` out of the MFTs and link loads.
    pub(crate) fn uninstall(&mut self, id: TreeId) -> Tree {
        let tree = self.trees[id.0 as usize]
            .take()
            .expect("uninstalling a live tree");
        let tfi = tree.groups().len() as u32;
        if let Some(log) = &mut self.mft_log {
            log.extend(
                tree.switches()
                    .iter()
                    .map(|&sw| (sw, tree.color, tree.port_set(sw))),
            );
        }
        for &sw in tree.switches() {
            self.colors.clear(sw, tree.color);
        }
        for (a, b, l) in tree.switch_links() {
            let old = self.efi[l.index()];
            self.efi[l.index()] -= tfi;
            self.sw_load[a as usize] -= u64::from(tfi);
            self.sw_load[b as usize] -= u64::from(tfi);
            self.move_efi(old, old - tfi);
        }
        for l in tree.leaf_links() {
            self.efi[l.index()] -= tfi;
        }
        while self.max_efi > 0 && self.efi_hist[self.max_efi as usize] == 0 {
            self.max_efi -= 1;
        }
        self.colors.count(tree.color, -1, -i64::from(tfi));
        tree
    }

    /// Replaces the installed tree `id` by `new`, of the same color and groups, touching only
    /// what differs: the switches that join or leave it get or lose the color, the links that
    /// join or leave it get or lose its TFI, and only the switches whose forwarding ports
    /// change are logged for the MFT delta. The same state as uninstalling `id` and
    /// installing `new`.
    ///
    /// Complexity: O(T + T') comparisons for trees of T and T' switches and leaves, and
    /// O(k·C/64) for k switches whose color changes.
    pub(crate) fn reinstall(&mut self, id: TreeId, new: Tree) {
        let old = self.trees[id.0 as usize]
            .take()
            .expect("reinstalling a live tree");
        // In every build: the loads move by the TFI, the entries stay in the color.
        assert_eq!(
            (old.color, old.groups()),
            (new.color, new.groups()),
            "a reinstall keeps the tree's color and groups"
        );
        // Switch–switch edges and leaves by switch: merge-walk the two sorted lists.
        let mut touched: Vec<u32> = Vec::new();
        // (Walked over the trees' rows, not copies of them.)
        let (mut oe, mut ne) = (old.edges().peekable(), new.edges().peekable());
        let mut gone_edges = Vec::new();
        let mut new_edges = Vec::new();
        loop {
            match (oe.peek().copied(), ne.peek().copied()) {
                (None, None) => break,
                (Some(a), Some(b)) if a == b => {
                    oe.next();
                    ne.next();
                }
                (Some(a), Some(b)) if a.0 == b.0 => {
                    gone_edges.push(a);
                    new_edges.push(b);
                    oe.next();
                    ne.next();
                }
                (Some(a), b) if b.is_none_or(|b| a.0 < b.0) => {
                    gone_edges.push(a);
                    oe.next();
                }
                (_, Some(b)) => {
                    new_edges.push(b);
                    ne.next();
                }
                _ => unreachable!("one list is left"),
            }
        }
        let key = |(s, l): (u32, Leaf)| (s, l.port, l.terminal, l.link);
        // Both already by (switch, port), and a port holds one leaf.
        let mut ol = old.leaves().map(key).peekable();
        let mut nl = new.leaves().map(key).peekable();
        debug_assert!(old.leaves().map(key).is_sorted() && new.leaves().map(key).is_sorted());
        let mut gone_leaves = Vec::new();
        let mut new_leaves = Vec::new();
        loop {
            match (ol.peek().copied(), nl.peek().copied()) {
                (None, None) => break,
                (Some(a), Some(b)) if a == b => {
                    ol.next();
                    nl.next();
                }
                (Some(a), b) if b.is_none_or(|b| a < b) => {
                    gone_leaves.push(a);
                    ol.next();
                }
                (_, Some(b)) => {
                    new_leaves.push(b);
                    nl.next();
                }
                _ => unreachable!("one list is left"),
            }
        }
        drop((oe, ne, ol, nl));
        for &(c, e) in gone_edges.iter().chain(&new_edges) {
            touched.push(c);
            touched.push(e.parent);
        }
        for &(s, ..) in gone_leaves.iter().chain(&new_leaves) {
            touched.push(s);
        }
        // Switches leaving and joining: one merge walk of the two sorted switch lists.
        let (left, joined) = sorted_difference(old.switches(), new.switches());
        self.trees[id.0 as usize] = Some(old);
        let changes = Changes {
            touched,
            left,
            joined,
            gone_edges,
            new_edges,
            gone_leaves: gone_leaves.iter().map(|&(.., l)| l).collect(),
            new_leaves: new_leaves.iter().map(|&(.., l)| l).collect(),
        };
        self.reinstall_with(id, changes, |t| *t = new);
    }

    /// Edits the installed tree `id` by `edit`, `changes` saying what differs (as
    /// [`reinstall`](Self::reinstall) finds it by comparing the two trees; the caller who
    /// edits a tree in place knows it without the comparison): the switches in
    /// `changes.touched` (and those joining or leaving, and the ends of the edges) are logged
    /// for the MFT delta with the tree before the edit, then the colors and the link loads
    /// follow. The color and the groups stay.
    ///
    /// Complexity: O(k log k + k·C/64) for k changes.
    pub(crate) fn reinstall_with(
        &mut self,
        id: TreeId,
        changes: Changes,
        edit: impl FnOnce(&mut Tree),
    ) {
        let Changes {
            mut touched,
            left,
            joined,
            gone_edges,
            new_edges,
            gone_leaves,
            new_leaves,
        } = changes;
        let (color, tfi) = {
            let old = self.tree_ref(id);
            (old.color, old.groups().len() as u32)
        };
        // As in `install`, in every build: the switches joining must be free in the color
        // (the grafts search switches free in it).
        if let Some((sw, holder)) = joined
            .iter()
            .find_map(|&sw| Some((sw, self.colors.tree_at(sw, color)?)))
        {
            panic!("tree {id} grafted over switch {sw} where tree {holder} holds color {color}");
        }
        for &(c, e) in gone_edges.iter().chain(&new_edges) {
            touched.push(c);
            touched.push(e.parent);
        }
        touched.extend_from_slice(&left);
        touched.extend_from_slice(&joined);
        touched.sort_unstable();
        touched.dedup();
        // Log with the old tree in place.
        for &sw in &touched {
            self.log_mft(sw, color);
        }
        if let Some(t) = self.trees[id.0 as usize].as_mut() {
            edit(t);
        }
        // In every build (two comparisons): the loads below move by the TFI of before.
        assert_eq!(
            (
                self.tree_ref(id).color,
                self.tree_ref(id).groups().len() as u32
            ),
            (color, tfi),
            "an edit in place keeps the tree's color and groups"
        );
        for &sw in &left {
            self.colors.clear(sw, color);
        }
        for &sw in &joined {
            self.colors.set(sw, color, id);
        }
        for &(c, e) in &gone_edges {
            let l = e.link;
            let was = self.efi[l.index()];
            self.efi[l.index()] -= tfi;
            self.sw_load[c as usize] -= u64::from(tfi);
            self.sw_load[e.parent as usize] -= u64::from(tfi);
            self.move_efi(was, was - tfi);
        }
        for &(c, e) in &new_edges {
            let l = e.link;
            let was = self.efi[l.index()];
            self.efi[l.index()] += tfi;
            self.sw_load[c as usize] += u64::from(tfi);
            self.sw_load[e.parent as usize] += u64::from(tfi);
            self.move_efi(was, was + tfi);
        }
        for &l in &gone_leaves {
            if l != crate::tree::NO_LINK {
                self.efi[l.index()] -= tfi;
            }
        }
        for &l in &new_leaves {
            if l != crate::tree::NO_LINK {
                self.efi[l.index()] += tfi;
            }
        }
        while self.max_efi > 0 && self.efi_hist[self.max_efi as usize] == 0 {
            self.max_efi -= 1;
        }
    }

    pub(crate) fn new_tree_id(&mut self) -> TreeId {
        self.trees.push(None);
        TreeId(self.trees.len() as u32 - 1)
    }

    pub(crate) fn tree_ref(&self, id: TreeId) -> &Tree {
        // Every caller names a tree read off a live group or the color table, which the
        // install and uninstall keep in step with `trees` (the public `Router::tree` looks
        // an id up with `get` instead).
        self.trees[id.0 as usize]
            .as_ref()
            .expect("a live group's tree is live")
    }

    /// Records the content of `(sw, color)` before a change, when deltas are being tracked.
    pub(crate) fn log_mft(&mut self, sw: u32, color: u32) {
        if let Some(log) = &mut self.mft_log {
            let before = self
                .colors
                .tree_at(sw, color)
                .and_then(|t| self.trees[t.0 as usize].as_ref())
                .and_then(|t| t.port_set(sw));
            log.push((sw, color, before));
        }
    }

    /// Adds the live group `g` under the next id, counting it on its member switches.
    pub(crate) fn add_group(&mut self, g: Group) -> GroupId {
        for &sw in &g.member_sw {
            self.attach_count[sw as usize] += 1;
        }
        self.groups.push(Some(g));
        GroupId(self.groups.len() as u32 - 1)
    }

    /// The live group `id`.
    ///
    /// # Errors
    /// [`Error::UnknownGroup`], [`Error::GroupDeleted`].
    pub(crate) fn group(&self, id: GroupId) -> Result<&Group, Error> {
        match self.groups.get(id.0 as usize) {
            None => Err(Error::UnknownGroup { group: id }),
            Some(None) => Err(Error::GroupDeleted { group: id }),
            Some(Some(g)) => Ok(g),
        }
    }

    /// Takes group `id` out (its slot stays, deleted), uncounting it on its member switches
    /// and freeing its MGID, if it was joined under one.
    ///
    /// # Errors
    /// [`Error::UnknownGroup`], [`Error::GroupDeleted`].
    pub(crate) fn remove_group(&mut self, id: GroupId) -> Result<Group, Error> {
        let group = match self.groups.get_mut(id.0 as usize) {
            None => return Err(Error::UnknownGroup { group: id }),
            Some(slot) => slot.take().ok_or(Error::GroupDeleted { group: id })?,
        };
        for &sw in &group.member_sw {
            self.attach_count[sw as usize] -= 1;
        }
        if let Some(mgid) = group.mgid {
            self.mgids.remove(&mgid);
        }
        Ok(group)
    }

    /// The live group `id`, to change.
    ///
    /// # Errors
    /// [`Error::UnknownGroup`], [`Error::GroupDeleted`].
    pub(crate) fn group_mut(&mut self, id: GroupId) -> Result<&mut Group, Error> {
        match self.groups.get_mut(id.0 as usize) {
            None => Err(Error::UnknownGroup { group: id }),
            Some(None) => Err(Error::GroupDeleted { group: id }),
            Some(Some(g)) => Ok(g),
        }
    }

    /// A live group's member switches gained `sw`: counts the group there.
    pub(crate) fn member_switch_added(&mut self, sw: u32) {
        self.attach_count[sw as usize] += 1;
    }

    /// A live group's member switches lost `sw`: uncounts the group there.
    pub(crate) fn member_switch_removed(&mut self, sw: u32) {
        self.attach_count[sw as usize] -= 1;
    }

    /// Lends tree `id` out of `trees`, so that it can be read while the rest of the router
    /// is borrowed mutably: its colors, link loads and MFT entries stay as installed (a
    /// search reads its own switches as busy on it), and [`State::put_back`] returns it
    /// before the state changes again.
    pub(crate) fn lend(&mut self, id: TreeId) -> Tree {
        self.trees[id.0 as usize]
            .take()
            .expect("lending a live tree")
    }

    /// Returns the tree [`State::lend`] lent, unchanged.
    pub(crate) fn put_back(&mut self, id: TreeId, tree: Tree) {
        assert!(
            self.trees[id.0 as usize].is_none(),
            "putting back a lent tree over another"
        );
        self.trees[id.0 as usize] = Some(tree);
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        let trees: usize = vec_bytes(&self.trees)
            + self
                .trees
                .iter()
                .flatten()
                .map(|t| t.memory_bytes() - size_of::<Tree>())
                .sum::<usize>();
        let groups: usize = vec_bytes(&self.groups)
            + self
                .groups
                .iter()
                .flatten()
                .map(|g| vec_bytes(&g.members) + vec_bytes(&g.member_sw))
                .sum::<usize>();
        trees
            + groups
            + self.colors.memory_bytes()
            + vec_bytes(&self.efi)
            + vec_bytes(&self.efi_hist)
            + vec_bytes(&self.sw_load)
            + vec_bytes(&self.attach_count)
    }
}

/// Heap bytes of a vector's buffer (its capacity, not its length).
pub(crate) fn vec_bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * size_of::<T>()
}

/// The elements only in `a` and those only in `b`, for two sorted lists without repeats, in
/// order: one merge walk.
///
/// Complexity: O(|a| + |b|).
fn sorted_difference(a: &[u32], b: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                only_a.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                only_b.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    only_a.extend_from_slice(&a[i..]);
    only_b.extend_from_slice(&b[j..]);
    (only_a, only_b)
}

#[cfg(test)]
mod tests {
    use super::sorted_difference;

    #[test]
    fn sorted_difference_splits_two_sorted_lists() {
        assert_eq!(
            sorted_difference(&[1, 3, 4, 8], &[2, 3, 8, 9, 10]),
            (vec![1, 4], vec![2, 9, 10])
        );
        assert_eq!(sorted_difference(&[], &[5]), (vec![], vec![5]));
        assert_eq!(sorted_difference(&[5, 6], &[]), (vec![5, 6], vec![]));
        assert_eq!(sorted_difference(&[7], &[7]), (vec![], vec![]));
    }
}
