//! The [`Router`]: groups, trees, colors and link loads, and the operations on them.

use std::fmt;
use std::sync::Arc;

use fabric_model::{Bytes, Fabric, HopTable, LinkId, NodeId, PortNo};

use fabric_model::hash::FxHashMap;

use crate::colors::ColorTable;
use crate::distances::Hops;
use crate::held::Held;
use crate::search::{Scratch, SwitchGraph};
use crate::tree::{Edge, Leaf, Tree};
use crate::{
    Algorithm, Color, Config, CreateOutcome, Error, GroupId, Method, Policy, PortSet, TreeId,
};

/// Where a terminal hangs: switch index, the switch's port, the cable.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attach {
    pub(crate) sw: u32,
    pub(crate) port: PortNo,
    pub(crate) link: LinkId,
}

/// A live group.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub(crate) members: Vec<NodeId>,
    /// Distinct member switches, sorted.
    pub(crate) member_sw: Vec<u32>,
    pub(crate) tree: TreeId,
    pub(crate) min_height: u32,
    pub(crate) merged: bool,
    /// The MGID it was joined under ([`Router::join`]), `None` for [`Router::create_group`]'s.
    pub(crate) mgid: Option<crate::Gid>,
}

/// What differs between an installed tree and its edit ([`Router::reinstall_with`]).
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

/// A validated member list.
#[derive(Debug, Clone)]
pub(crate) struct Members {
    pub(crate) terminals: Vec<NodeId>,
    pub(crate) sw: Vec<u32>,
}

/// Alg. 7's state: which builder runs next and how many FCTB successes in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Current {
    Fbtc,
    Fctb { streak: u32 },
}

/// What one group's tree looks like, for inspection and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeView {
    /// The tree.
    pub id: TreeId,
    /// Its color.
    pub color: Color,
    /// Its root switch.
    pub root: NodeId,
    /// Every switch with its parent switch (`None` for the root).
    pub switches: Vec<(NodeId, Option<NodeId>)>,
    /// Member terminals hanging off the tree.
    pub members: Vec<NodeId>,
    /// The groups using it (its TFI is their number).
    pub groups: Vec<GroupId>,
    /// Every link of the tree, switch–switch and terminal.
    pub links: Vec<LinkId>,
}

/// One group as the router holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GroupView {
    /// The group.
    pub id: GroupId,
    /// Its members, as given.
    pub members: Vec<NodeId>,
    /// Its tree.
    pub tree: TreeId,
    /// The tree's color.
    pub color: Color,
    /// The tree's root.
    pub root: NodeId,
    /// Hops from the root to the group's farthest member.
    pub height: u32,
    /// The least height possible for the group.
    pub min_height: u32,
    /// Whether it was merged with other groups (Alg. 4).
    pub merged: bool,
}

/// Multicast routing state over one fabric: groups are created and deleted one at a time, in
/// arrival order, and the switches' multicast forwarding tables follow.
///
/// The router borrows the fabric and its hop table (built once by the caller, shared by every
/// router of the same fabric). See the crate documentation for an example.
pub struct Router<'f> {
    pub(crate) fabric: Held<'f, Fabric>,
    /// The caller's hop table, or the router's own after a topology change.
    pub(crate) hops: Hops<'f>,
    pub(crate) config: Config,
    pub(crate) g: SwitchGraph,
    pub(crate) attach: Vec<Option<Attach>>,
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
    /// Per link, its two switch indices when it joins two switches.
    pub(crate) link_sw: Vec<Option<(u32, u32)>>,
    pub(crate) current: Current,
    pub(crate) s: Scratch,
    /// The switch indices in [`SwitchOrder::OpenSm`](crate::SwitchOrder::OpenSm) order when
    /// the config asks for it; empty for fabric order.
    pub(crate) switch_order: Vec<u32>,
    /// The entries touched since the last [`Router::take_mft_delta`], with their content
    /// before; `None` until the first call (no tracking, no cost).
    pub(crate) mft_log: Option<Vec<crate::delta::MftLogEntry>>,
    /// The groups joined by MGID ([`Router::join`]).
    pub(crate) mgids: FxHashMap<crate::Gid, GroupId>,
    /// The links and switches down ([`Router::link_down`], [`Router::switch_down`]).
    pub(crate) down: crate::topology::Down,
    /// Large trees' largest distances to their member switches (ours, [`crate::far`]).
    pub(crate) far: crate::far::FarCache,
}

impl fmt::Debug for Router<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Router")
            .field("config", &self.config)
            .field("switches", &self.g.len())
            .field("groups", &self.groups.iter().flatten().count())
            .field("trees", &self.trees.iter().flatten().count())
            .finish_non_exhaustive()
    }
}

impl Router<'static> {
    /// A router that shares `fabric` and its hop table `hops` instead of borrowing them, so
    /// that it can live beside them (or alone) in a daemon's state; otherwise as
    /// [`Router::new`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use fabric_model::{HopTable, generators};
    /// use mcast_route::{Config, Entries, Router};
    ///
    /// struct Daemon {
    ///     fabric: Arc<fabric_model::Fabric>,
    ///     router: Router<'static>,
    /// }
    ///
    /// let fabric = Arc::new(generators::fat_tree(4)?);
    /// let hops = Arc::new(HopTable::new(&fabric)?);
    /// let router = Router::new_shared(fabric.clone(), hops, Config::mr4lms(Entries::Limit(8)))?;
    /// let mut d = Daemon { fabric, router };
    /// let t = d.fabric.terminals().to_vec();
    /// d.router.create_group(&[t[0], t[9]])?;
    /// assert_eq!(d.router.group_ids().count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Router::new`].
    pub fn new_shared(
        fabric: Arc<Fabric>,
        hops: Arc<HopTable>,
        config: Config,
    ) -> Result<Self, Error> {
        Self::with_held(Held::Shared(fabric), Held::Shared(hops), config)
    }
}

/// The switch indices in OpenSM's order (increasing byte-reversed node GUID, switches without
/// a GUID last in fabric order), or empty for [`SwitchOrder::Fabric`](crate::SwitchOrder::Fabric).
fn opensm_order(fabric: &Fabric, order: crate::SwitchOrder) -> Vec<u32> {
    if order == crate::SwitchOrder::Fabric {
        return Vec::new();
    }
    let mut idx: Vec<u32> = (0..fabric.switch_count() as u32).collect();
    // Stable: switches without a GUID keep their fabric order after the others.
    idx.sort_by_key(|&i| {
        let guid = fabric.node(fabric.switches()[i as usize]).guid;
        (guid.is_none(), guid.map_or(0, u64::swap_bytes))
    });
    idx
}

impl<'f> Router<'f> {
    /// A router over `fabric` with the hop table `hops` of that fabric.
    ///
    /// # Errors
    /// [`Error::ZeroEntries`] or [`Error::TooManyEntries`] for a bad entry limit;
    /// [`Error::HopTableMismatch`] when `hops` was built for another fabric.
    ///
    /// # Complexity
    /// O(N + L) time and memory.
    pub fn new(fabric: &'f Fabric, hops: &'f HopTable, config: Config) -> Result<Self, Error> {
        Self::with_held(Held::Borrowed(fabric), Held::Borrowed(hops), config)
    }

    fn with_held(
        fabric: Held<'f, Fabric>,
        hops: Held<'f, HopTable>,
        config: Config,
    ) -> Result<Self, Error> {
        config.validate()?;
        if hops.switch_count() != fabric.switch_count() {
            return Err(Error::HopTableMismatch {
                table: hops.switch_count(),
                fabric: fabric.switch_count(),
            });
        }
        let s = fabric.switch_count();
        let mut attach = vec![None; fabric.node_count()];
        // A switch member is its own port 0 (no cable).
        for (i, &sw) in fabric.switches().iter().enumerate() {
            attach[sw.index()] = Some(Attach {
                sw: i as u32,
                port: PortNo::new(0),
                link: crate::tree::NO_LINK,
            });
        }
        for &t in fabric.terminals() {
            if let Some((sw, port)) = fabric.switch_of(t)
                && let (Some(i), Some(link)) = (fabric.switch_index(sw), fabric.link_at(sw, port))
            {
                attach[t.index()] = Some(Attach {
                    sw: i as u32,
                    port,
                    link,
                });
            }
        }
        Ok(Self {
            config,
            g: SwitchGraph::new(&fabric),
            attach,
            colors: ColorTable::new(s, config.entries.limit()),
            trees: Vec::new(),
            groups: Vec::new(),
            efi: vec![0; fabric.link_count()],
            attach_count: vec![0; s],
            sw_load: vec![0; s],
            efi_hist: Vec::new(),
            max_efi: 0,
            link_sw: fabric
                .links()
                .iter()
                .map(|l| {
                    let a = fabric.switch_index(l.ends[0].0)?;
                    let b = fabric.switch_index(l.ends[1].0)?;
                    Some((a as u32, b as u32))
                })
                .collect(),
            current: Current::Fbtc,
            s: Scratch::new(s),
            switch_order: opensm_order(&fabric, config.switch_order),
            mft_log: None,
            mgids: FxHashMap::default(),
            down: crate::topology::Down::new(&fabric),
            far: crate::far::FarCache::default(),
            fabric,
            hops: Hops::Table(hops),
        })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The fabric.
    #[must_use]
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }

    /// The hop table the router was made with, `None` once a topology change
    /// ([`Router::link_down`] and the others) made the router keep its own distances
    /// ([`Router::hop_distance`]).
    #[must_use]
    pub fn hops(&self) -> Option<&HopTable> {
        self.hops.table()
    }

    /// Hops between two nodes over the links up now (a terminal or a switch member counts
    /// from its switch, a terminal adds its own link), as [`HopTable::between`] over the
    /// fabric less the links and switches down. `None` when unreachable or unknown.
    #[must_use]
    pub fn hop_distance(&self, a: NodeId, b: NodeId) -> Option<u32> {
        let end = |n: NodeId| -> Option<(u32, u32)> {
            let at = (*self.attach.get(n.index())?)?;
            if self.down.attach_down(at) {
                return None;
            }
            Some((at.sw, u32::from(at.link != crate::tree::NO_LINK)))
        };
        if a == b && self.fabric.get(a).is_some() {
            return Some(0);
        }
        let (sa, ea) = end(a)?;
        let (sb, eb) = end(b)?;
        Some(u32::from(self.hops.hops(sa as usize, sb as usize)?) + ea + eb)
    }

    pub(crate) fn sw_node(&self, sw: u32) -> NodeId {
        self.fabric.switches()[sw as usize]
    }

    pub(crate) fn validate(&self, members: &[NodeId]) -> Result<Members, Error> {
        if members.is_empty() {
            return Err(Error::EmptyGroup);
        }
        let mut sorted = members.to_vec();
        sorted.sort_unstable();
        let dup = sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]);
        let mut sw = Vec::with_capacity(members.len());
        for &m in members {
            let Some(info) = self.fabric.get(m) else {
                return Err(Error::UnknownNode { node: m });
            };
            if self.fabric.is_switch(m) {
                return Err(Error::NotATerminal {
                    node: m,
                    name: info.name.clone(),
                });
            }
            if dup == Some(m) {
                return Err(Error::DuplicateMember {
                    node: m,
                    name: info.name.clone(),
                });
            }
            let Some(a) = self.attach[m.index()].filter(|&a| !self.down.attach_down(a)) else {
                return Err(Error::Disconnected {
                    a: members[0],
                    b: m,
                });
            };
            sw.push(a.sw);
        }
        let first = sw[0];
        for (i, &s) in sw.iter().enumerate() {
            if self.hops.hops(first as usize, s as usize).is_none() {
                return Err(Error::Disconnected {
                    a: members[0],
                    b: members[i],
                });
            }
        }
        sw.sort_unstable();
        sw.dedup();
        sw.shrink_to_fit();
        Ok(Members {
            terminals: members.to_vec(),
            sw,
        })
    }

    pub(crate) fn leaves_of<'a>(
        &'a self,
        terminals: impl Iterator<Item = &'a NodeId> + 'a,
    ) -> impl Iterator<Item = (u32, Leaf)> + 'a {
        terminals.filter_map(|&t| {
            self.attach[t.index()].map(|a| {
                (
                    a.sw,
                    Leaf {
                        port: a.port,
                        terminal: t,
                        link: a.link,
                    },
                )
            })
        })
    }

    /// Writes `tree` into the MFTs under id `id`: sets its color busy on its switches, adds its
    /// TFI to the EFI of its links (Alg. 1 steps ⑨–⑩).
    pub(crate) fn install(&mut self, id: TreeId, tree: Tree) {
        let tfi = tree.groups().len() as u32;
        for &sw in tree.switches() {
            self.log_mft(sw, tree.color);
            self.colors.set(sw, tree.color, id);
        }
        // Switch–switch links (their ends from the tree, not `link_sw`), then terminal ones.
        for (a, b, l) in tree.switch_links() {
            debug_assert!(self.link_sw[l.index()].is_some());
            let old = self.efi[l.index()];
            self.efi[l.index()] += tfi;
            self.sw_load[a as usize] += u64::from(tfi);
            self.sw_load[b as usize] += u64::from(tfi);
            self.move_efi(old, old + tfi);
        }
        for l in tree.leaf_links() {
            debug_assert!(self.link_sw[l.index()].is_none());
            self.efi[l.index()] += tfi;
        }
        self.colors.count(tree.color, 1, i64::from(tfi));
        let slot = id.0 as usize;
        if self.trees.len() <= slot {
            self.trees.resize(slot + 1, None);
        }
        self.trees[slot] = Some(tree);
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
        debug_assert_eq!((old.color, old.groups()), (new.color, new.groups()));
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
        debug_assert_eq!(
            (
                self.tree_ref(id).color,
                self.tree_ref(id).groups().len() as u32
            ),
            (color, tfi)
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

    /// Creates a multicast group of the terminals `members` and routes it with the configured
    /// algorithm. Existing groups are never rerouted, except when MR4LMS must merge with
    /// [`Regraft::Rebuild`](crate::Regraft::Rebuild).
    ///
    /// MR4LMS follows Alg. 7: FBTC (Alg. 1) or FCTB (Alg. 3) by the policy, and merging
    /// (Alg. 4) when neither finds a color.
    ///
    /// # Errors
    /// [`Error::EmptyGroup`], [`Error::UnknownNode`], [`Error::NotATerminal`],
    /// [`Error::DuplicateMember`], [`Error::Disconnected`]; for the baselines
    /// [`Error::EntriesExhausted`] when every entry is taken.
    ///
    /// # Complexity
    /// Candidate roots O(S·M) for S switches and M member switches. FBTC O(R·(M·D·P + T·C/64))
    /// for R candidate roots tried, depth D, P ports, T tree switches and C colors. FCTB
    /// O(C·(S + L)) BFS per color tried and O((S + L) log S) Dijkstra. Merging adds
    /// O(Σ tree members · M) for formula (1) and a Dijkstra.
    pub fn create_group(&mut self, members: &[NodeId]) -> Result<CreateOutcome, Error> {
        let m = self.validate(members)?;
        self.create_validated(m)
    }

    /// [`create_group`](Self::create_group) of checked members.
    pub(crate) fn create_validated(&mut self, m: Members) -> Result<CreateOutcome, Error> {
        self.create_with(m, None)
    }

    /// [`create_validated`](Self::create_validated), or with `preset` (a tree built for
    /// the members, not installed) as the group's tree.
    pub(crate) fn create_with(
        &mut self,
        m: Members,
        preset: Option<(Tree, Method)>,
    ) -> Result<CreateOutcome, Error> {
        let d = self.max_dist(&m.sw);
        let min_height = u32::from(d) + 1;
        let gid = GroupId(self.groups.len() as u32);
        let (tid, method, merged) = match (preset, self.config.algorithm) {
            (Some((tree, method)), _) => (self.add_new_tree(tree, gid, &m), method, Vec::new()),
            (None, Algorithm::MinihopMc | Algorithm::SsspMc) => {
                let tree = self.baseline(&m, d)?;
                (
                    self.add_new_tree(tree, gid, &m),
                    self.baseline_method(),
                    Vec::new(),
                )
            }
            (None, Algorithm::Mr4lms) => self.mr4lms(&m, d, gid),
        };
        for &o in &merged {
            if let Some(Some(g)) = self.groups.get_mut(o.0 as usize) {
                g.merged = true;
                g.tree = tid;
            }
        }
        for &sw in &m.sw {
            self.attach_count[sw as usize] += 1;
        }
        self.groups.push(Some(Group {
            members: m.terminals,
            member_sw: m.sw,
            tree: tid,
            min_height,
            merged: method == Method::Merge,
            mgid: None,
        }));
        let group = self.groups[gid.0 as usize]
            .as_ref()
            .expect("the group was just created");
        let tree = self.tree_ref(tid);
        Ok(CreateOutcome {
            group: gid,
            tree: tid,
            color: Color(tree.color),
            root: self.sw_node(tree.root),
            height: self.group_height(group),
            min_height,
            method,
            merged,
        })
    }

    fn baseline_method(&self) -> Method {
        if self.config.algorithm == Algorithm::SsspMc {
            Method::SsspMc
        } else {
            Method::MinihopMc
        }
    }

    /// Registers `gid` on a freshly built tree and installs it.
    pub(crate) fn add_new_tree(&mut self, mut tree: Tree, gid: GroupId, m: &Members) -> TreeId {
        tree.add_group(gid, &m.terminals);
        let id = self.new_tree_id();
        self.install(id, tree);
        id
    }

    /// Registers `gid` on the existing tree `id` (which already spans its members).
    pub(crate) fn join_tree(&mut self, id: TreeId, gid: GroupId, m: &Members) {
        let mut tree = self.uninstall(id);
        tree.add_group(gid, &m.terminals);
        self.install(id, tree);
    }

    /// Alg. 7: FBTC or FCTB by the policy, merging when the chosen one fails.
    fn mr4lms(&mut self, m: &Members, d: u8, gid: GroupId) -> (TreeId, Method, Vec<GroupId>) {
        let built = match (self.config.policy, self.current) {
            (Policy::FbtcOnly, _) | (Policy::Adaptive { .. }, Current::Fbtc) => {
                let t = self.fbtc(m, d);
                // Step ③: a failure switches to FCTB.
                if t.is_none() && matches!(self.config.policy, Policy::Adaptive { .. }) {
                    self.current = Current::Fctb { streak: 0 };
                }
                t.map(|t| (t, Method::Fbtc))
            }
            (Policy::FctbOnly, _) | (Policy::Adaptive { .. }, Current::Fctb { .. }) => {
                let t = self.fctb(m, d);
                // Step ⑥: enough successes in a row switch back to FBTC.
                if let (Policy::Adaptive { switch_back }, Current::Fctb { streak }) =
                    (self.config.policy, self.current)
                {
                    self.current = match t {
                        Some(_) if streak + 1 >= switch_back => Current::Fbtc,
                        Some(_) => Current::Fctb { streak: streak + 1 },
                        None => Current::Fctb { streak: 0 },
                    };
                }
                t.map(|t| (t, Method::Fctb))
            }
        };
        match built {
            Some((crate::fctb::Built::New(tree), method)) => {
                (self.add_new_tree(tree, gid, m), method, Vec::new())
            }
            Some((crate::fctb::Built::Existing(id), _)) => {
                self.join_tree(id, gid, m);
                (id, Method::ExistingTree, Vec::new())
            }
            // Step ⑧: merge (Alg. 4).
            None => {
                let (id, merged) = self.merge(m, gid);
                (id, Method::Merge, merged)
            }
        }
    }

    /// Deletes group `id` (Alg. 6): its members that no other group of the tree holds leave
    /// the tree, switches left with nothing below are pruned upward, and the tree and its
    /// entries are freed when its last group leaves.
    ///
    /// # Errors
    /// [`Error::UnknownGroup`] for an id never handed out, [`Error::GroupDeleted`] for one
    /// already deleted.
    ///
    /// # Complexity
    /// O(T log T) for a tree of T switches and leaves.
    pub fn delete_group(&mut self, id: GroupId) -> Result<(), Error> {
        let slot = self
            .groups
            .get_mut(id.0 as usize)
            .ok_or(Error::UnknownGroup { group: id })?;
        let group = slot.take().ok_or(Error::GroupDeleted { group: id })?;
        for &sw in &group.member_sw {
            self.attach_count[sw as usize] -= 1;
        }
        let mut tree = self.uninstall(group.tree);
        tree.remove_group(id, &group.members);
        if tree.groups().is_empty() {
            self.far.forget(group.tree);
        } else {
            tree.prune();
            self.install(group.tree, tree);
        }
        Ok(())
    }

    fn live_group(&self, id: GroupId) -> Result<&Group, Error> {
        match self.groups.get(id.0 as usize) {
            None => Err(Error::UnknownGroup { group: id }),
            Some(None) => Err(Error::GroupDeleted { group: id }),
            Some(Some(g)) => Ok(g),
        }
    }

    pub(crate) fn tree_ref(&self, id: TreeId) -> &Tree {
        self.trees[id.0 as usize]
            .as_ref()
            .expect("a live group's tree is live")
    }

    /// Hops from the root of the group's tree to its farthest member.
    pub(crate) fn group_height(&self, g: &Group) -> u32 {
        self.tree_ref(g.tree)
            .max_depth(&g.member_sw)
            .map_or(0, |d| d + 1)
    }

    /// The group `id`: members, tree, color, root, height.
    ///
    /// # Errors
    /// [`Error::UnknownGroup`] or [`Error::GroupDeleted`].
    pub fn group(&self, id: GroupId) -> Result<GroupView, Error> {
        let g = self.live_group(id)?;
        let t = self.tree_ref(g.tree);
        Ok(GroupView {
            id,
            members: g.members.clone(),
            tree: g.tree,
            color: Color(t.color),
            root: self.sw_node(t.root),
            height: self.group_height(g),
            min_height: g.min_height,
            merged: g.merged,
        })
    }

    /// The ids of the live groups, in creation order.
    pub fn group_ids(&self) -> impl Iterator<Item = GroupId> + '_ {
        self.groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.is_some())
            .map(|(i, _)| GroupId(i as u32))
    }

    /// The tree `id`, or `None` when it does not exist (any more).
    #[must_use]
    pub fn tree(&self, id: TreeId) -> Option<TreeView> {
        let t = self.trees.get(id.0 as usize)?.as_ref()?;
        Some(TreeView {
            id,
            color: Color(t.color),
            root: self.sw_node(t.root),
            switches: t
                .parents()
                .map(|(s, e)| (self.sw_node(s), e.map(|e| self.sw_node(e.parent))))
                .collect(),
            members: t.members().collect(),
            groups: t.groups().to_vec(),
            links: t.links().collect(),
        })
    }

    /// The ids of the live trees.
    pub fn tree_ids(&self) -> impl Iterator<Item = TreeId> + '_ {
        self.trees
            .iter()
            .enumerate()
            .filter(|(_, t)| t.is_some())
            .map(|(i, _)| TreeId(i as u32))
    }

    fn switch_idx(&self, switch: NodeId) -> Result<u32, Error> {
        self.fabric
            .switch_index(switch)
            .map(|i| i as u32)
            .ok_or(Error::NotASwitch { node: switch })
    }

    /// The MFT of `switch`: every entry in use, by color, with its forwarding ports.
    ///
    /// # Errors
    /// [`Error::NotASwitch`] when `switch` is not a switch of the fabric.
    pub fn entries(&self, switch: NodeId) -> Result<Vec<(Color, PortSet)>, Error> {
        let sw = self.switch_idx(switch)?;
        Ok(self
            .colors
            .entries(sw)
            .iter()
            .map(|&(c, t)| {
                let ports = self.tree_ref(t).port_set(sw).unwrap_or_default();
                (Color(c), ports)
            })
            .collect())
    }

    /// The forwarding ports of `switch` for `color`, or `None` when that entry is unused.
    ///
    /// # Errors
    /// [`Error::NotASwitch`] when `switch` is not a switch of the fabric.
    pub fn port_set(&self, switch: NodeId, color: Color) -> Result<Option<PortSet>, Error> {
        let sw = self.switch_idx(switch)?;
        Ok(self
            .colors
            .tree_at(sw, color.0)
            .and_then(|t| self.tree_ref(t).port_set(sw)))
    }

    /// The tree using `color` on `switch`, if any.
    ///
    /// # Errors
    /// [`Error::NotASwitch`] when `switch` is not a switch of the fabric.
    pub fn tree_at(&self, switch: NodeId, color: Color) -> Result<Option<TreeId>, Error> {
        Ok(self.colors.tree_at(self.switch_idx(switch)?, color.0))
    }

    /// The EFI of `link`: how many groups' traffic crosses it.
    #[must_use]
    pub fn efi(&self, link: LinkId) -> u32 {
        self.efi.get(link.index()).copied().unwrap_or(0)
    }

    /// Bytes held by the router's own tables, every vector counted at its capacity (the
    /// fabric and the caller's hop table excluded, the router's own copy after a topology
    /// change included; the allocator's own overhead,
    /// some 16 bytes per allocation, excluded).
    ///
    /// # Complexity
    /// O(S + trees + groups).
    #[must_use]
    pub fn memory_bytes(&self) -> Bytes {
        fn vec_bytes<T>(v: &Vec<T>) -> usize {
            v.capacity() * size_of::<T>()
        }
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
        let bytes = size_of::<Self>()
            + trees
            + groups
            + self.colors.memory_bytes()
            + self.g.memory_bytes()
            + self.s.memory_bytes()
            + vec_bytes(&self.efi)
            + vec_bytes(&self.efi_hist)
            + vec_bytes(&self.attach)
            + vec_bytes(&self.link_sw)
            + vec_bytes(&self.sw_load)
            + vec_bytes(&self.attach_count)
            + self.hops.memory_bytes()
            + self.down.memory_bytes()
            + self.far.memory_bytes();
        Bytes::new(bytes as u64)
    }
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
