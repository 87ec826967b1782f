//! Topology changes: links and switches going down and coming back up.
//!
//! A change updates the switch graph, the hop table (edge by edge, [`crate::live::distances`]) and
//! then only the trees that crossed the failed element. Each such tree is repaired in its
//! color: the part still joined to its root is kept, and every member cut off from it is
//! grafted back along switches free in the color, as [`Router::join`] grafts. When that
//! leaves the tree above its least height FCTB (Alg. 3) rebuilds it in its color if it can;
//! when no graft reaches a member, FCTB in any color gives it a new color (its groups'
//! MLIDs change, and are reported); with every color taken, Alg. 4 merges it with the trees
//! of its color in the way. Members that cannot be reached any more (their cable or switch
//! down, or cut off from the most of their group) leave their groups and are reported.

use fabric_model::{Fabric, LinkId, NodeId};
#[cfg(test)]
use fabric_model::{FabricBuilder, NodeInfo, PortNo};

use crate::live::grow::Growing;
use crate::router::view::{Attach, Members};
use crate::tree::{Edge, Leaf, NO_LINK, Tree};
use crate::{Color, Error, GroupId, Router, TreeId};

/// Which links and switches are down.
#[derive(Debug, Clone, Default)]
pub(crate) struct Down {
    /// Per link, whether it was taken down by itself ([`Router::link_down`]).
    own: Vec<bool>,
    /// Per switch index, whether it is down.
    sw: Vec<bool>,
    /// Per link, its ends' switch indices (`u32::MAX` for a terminal end).
    ends: Vec<[u32; 2]>,
    /// Links down by themselves, and switches down.
    pub(crate) count: usize,
}

impl Down {
    pub(crate) fn new(f: &Fabric) -> Self {
        let ends = f
            .links()
            .iter()
            .map(|l| {
                l.ends
                    .map(|(n, _)| f.switch_index(n).map_or(u32::MAX, |i| i as u32))
            })
            .collect();
        Self {
            own: vec![false; f.link_count()],
            sw: vec![false; f.switch_count()],
            ends,
            count: 0,
        }
    }

    /// Whether `link` is down, by itself or with a switch at one of its ends.
    #[inline]
    pub(crate) fn link(&self, link: LinkId) -> bool {
        let i = link.index();
        self.own.get(i).copied().unwrap_or(false)
            || self
                .ends
                .get(i)
                .is_some_and(|e| e.iter().any(|&s| self.switch(s)))
    }

    /// Whether switch index `sw` is down.
    #[inline]
    pub(crate) fn switch(&self, sw: u32) -> bool {
        self.sw.get(sw as usize).copied().unwrap_or(false)
    }

    /// Whether a member attached by `a` cannot be reached: its cable or its switch is down.
    #[inline]
    pub(crate) fn attach_down(&self, a: Attach) -> bool {
        (a.link != NO_LINK && self.link(a.link)) || self.switch(a.sw)
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.own.capacity() + self.sw.capacity() + self.ends.capacity() * 8
    }
}

/// One topology change, for [`Router::apply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TopologyEvent {
    /// A cable goes down.
    LinkDown(LinkId),
    /// A cable comes back.
    LinkUp(LinkId),
    /// A switch goes down with every cable on it.
    SwitchDown(NodeId),
    /// A switch comes back with its cables (those not down by themselves).
    SwitchUp(NodeId),
}

/// What a topology change did to the groups.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TopologyOutcome {
    /// Every group whose tree changed (rerouted, deleted, or merged with one rerouted),
    /// sorted.
    pub changed: Vec<GroupId>,
    /// The trees that crossed the failed element and were routed again.
    pub rerouted: usize,
    /// `(group, member)` for every member that cannot be reached any more and left.
    pub left: Vec<(GroupId, NodeId)>,
    /// The groups that lost every member and were deleted (their MGIDs freed).
    pub deleted: Vec<GroupId>,
    /// `(group, old color, new color)` for the groups whose tree could not keep its color
    /// (their MLID changed).
    pub recolored: Vec<(GroupId, Color, Color)>,
}

impl Router<'_> {
    /// Takes `link` down (a cable pulled, a port gone): see [`apply`](Self::apply).
    ///
    /// # Errors
    /// As [`apply`](Self::apply).
    pub fn link_down(&mut self, link: LinkId) -> Result<TopologyOutcome, Error> {
        self.apply(TopologyEvent::LinkDown(link))
    }

    /// Brings `link` back up: see [`apply`](Self::apply).
    ///
    /// # Errors
    /// As [`apply`](Self::apply).
    pub fn link_up(&mut self, link: LinkId) -> Result<TopologyOutcome, Error> {
        self.apply(TopologyEvent::LinkUp(link))
    }

    /// Takes `switch` down with its cables: see [`apply`](Self::apply).
    ///
    /// # Errors
    /// As [`apply`](Self::apply).
    pub fn switch_down(&mut self, switch: NodeId) -> Result<TopologyOutcome, Error> {
        self.apply(TopologyEvent::SwitchDown(switch))
    }

    /// Brings `switch` back up: see [`apply`](Self::apply).
    ///
    /// # Errors
    /// As [`apply`](Self::apply).
    pub fn switch_up(&mut self, switch: NodeId) -> Result<TopologyOutcome, Error> {
        self.apply(TopologyEvent::SwitchUp(switch))
    }

    /// Makes the router keep its own distances now, as the first topology change would: it
    /// reads the caller's hop table through from then on and copies only the rows a change
    /// touches ([`Router::hops`] is then `None`). With [`Router::new_shared`] and no other
    /// owner, the table's bytes are taken over instead (and the caller's is no longer held).
    ///
    /// # Complexity
    /// O(S) the first time (the work arrays), O(1) after.
    pub fn keep_own_hops(&mut self) {
        self.view.hops.live();
    }

    /// Whether `link` is down (by itself or with a switch at one end).
    #[must_use]
    pub fn is_link_down(&self, link: LinkId) -> bool {
        self.view.down.link(link)
    }

    /// Whether `switch` is a switch that is down.
    #[must_use]
    pub fn is_switch_down(&self, switch: NodeId) -> bool {
        self.view
            .fabric
            .switch_index(switch)
            .is_some_and(|i| self.view.down.switch(i as u32))
    }

    /// Applies one topology change: the switch graph and the hop table follow (the table is
    /// updated edge by edge, [`crate`]'s `distances`; from the first change the router reads
    /// the caller's table through and keeps a copy of only the rows that changed, or takes
    /// over a shared one with no other owner), then every tree that
    /// crossed a link or switch that went down is routed again (see the module's
    /// documentation); trees are never moved when links come up. The MFT delta
    /// ([`take_mft_delta`](Self::take_mft_delta)) covers every entry changed.
    ///
    /// # Errors
    /// [`Error::UnknownLink`], [`Error::NotASwitch`]; [`Error::AlreadyInState`] for a link or
    /// switch already down (or up); [`Error::EndDown`] for a link brought up while a switch
    /// at one end is down.
    ///
    /// # Complexity
    /// The switch graph's rows at the ends of the links changed rewritten in place,
    /// O(Σ P log P) over them; the hop table O(S·E) for E switch–switch links
    /// changed plus O(P) a distance changed; O(Σ T) over the trees to find those crossing
    /// it, and a repair (a bounded search a member cut off) for each.
    pub fn apply(&mut self, event: TopologyEvent) -> Result<TopologyOutcome, Error> {
        let (links, going_down) = self.event_links(event)?;
        // The switch–switch edges that change.
        let was_down: Vec<bool> = links.iter().map(|&l| self.view.down.link(l)).collect();
        match event {
            TopologyEvent::LinkDown(l) => self.view.down.own[l.index()] = true,
            TopologyEvent::LinkUp(l) => self.view.down.own[l.index()] = false,
            TopologyEvent::SwitchDown(s) | TopologyEvent::SwitchUp(s) => {
                let i = self.switch_idx_of(s)?;
                self.view.down.sw[i as usize] = going_down;
            }
        }
        self.view.down.count = self.view.down.own.iter().filter(|&&d| d).count()
            + self.view.down.sw.iter().filter(|&&d| d).count();
        let edges: Vec<(u32, u32)> = links
            .iter()
            .zip(&was_down)
            .filter(|&(&l, &was)| was != self.view.down.link(l))
            .filter_map(|(&l, _)| self.view.link_sw[l.index()])
            .collect();
        if !edges.is_empty() {
            // The rows at both ends of every edge changed, edited in place.
            let mut rows: Vec<u32> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
            rows.sort_unstable();
            rows.dedup();
            let down = &self.view.down;
            self.view
                .g
                .refresh_rows(&self.view.fabric, &rows, |l| down.link(l));
            // Every cached distance may be stale.
            self.far.clear();
            // The least heights left to compute, over the distances they were asked over.
            self.settle_min_heights();
            let live = self.view.hops.live();
            if going_down {
                live.remove_edges(&self.view.g, &edges);
            } else {
                live.add_edges(&self.view.g, &edges);
            }
        }
        if !going_down {
            return Ok(TopologyOutcome::default());
        }
        let sw_down = match event {
            TopologyEvent::SwitchDown(s) => self.view.fabric.switch_index(s).map(|i| i as u32),
            _ => None,
        };
        // The trees crossing it: a down link among their links, or the down switch.
        let mut failed = vec![false; self.view.fabric.link_count()];
        for l in &links {
            failed[l.index()] = true;
        }
        let hit: Vec<TreeId> = self
            .tree_ids()
            .filter(|&t| {
                let tree = self.state.tree_ref(t);
                sw_down.is_some_and(|s| tree.node_of(s).is_some())
                    || tree.links().any(|l| failed[l.index()])
            })
            .collect();
        let mut out = TopologyOutcome::default();
        for t in hit {
            self.reroute(t, &mut out);
        }
        out.changed.sort_unstable();
        out.changed.dedup();
        out.left.sort_unstable();
        out.deleted.sort_unstable();
        Ok(out)
    }

    fn switch_idx_of(&self, s: NodeId) -> Result<u32, Error> {
        self.view
            .fabric
            .switch_index(s)
            .map(|i| i as u32)
            .ok_or(Error::NotASwitch { node: s })
    }

    /// The links an event touches and whether it takes them down, after checking it.
    fn event_links(&self, event: TopologyEvent) -> Result<(Vec<LinkId>, bool), Error> {
        match event {
            TopologyEvent::LinkDown(l) | TopologyEvent::LinkUp(l) => {
                if l.index() >= self.view.fabric.link_count() {
                    return Err(Error::UnknownLink { link: l });
                }
                let down = matches!(event, TopologyEvent::LinkDown(_));
                if self.view.down.own[l.index()] == down {
                    return Err(Error::AlreadyInState {
                        what: l.to_string(),
                        state: if down { "down" } else { "up" },
                    });
                }
                if !down
                    && let Some(&s) = self.view.down.ends[l.index()]
                        .iter()
                        .find(|&&s| self.view.down.switch(s))
                {
                    return Err(Error::EndDown {
                        link: l,
                        switch: self.view.sw_node(s),
                    });
                }
                Ok((vec![l], down))
            }
            TopologyEvent::SwitchDown(s) | TopologyEvent::SwitchUp(s) => {
                let i = self.switch_idx_of(s)?;
                let down = matches!(event, TopologyEvent::SwitchDown(_));
                if self.view.down.switch(i) == down {
                    return Err(Error::AlreadyInState {
                        what: format!("switch {s}"),
                        state: if down { "down" } else { "up" },
                    });
                }
                Ok((
                    self.view.fabric.neighbors(s).map(|n| n.link).collect(),
                    down,
                ))
            }
        }
    }

    /// Routes tree `tid` again after a failure (see the module's documentation), recording
    /// what changed in `out`.
    ///
    /// The tree stays installed while the part still joined to its root is kept and the
    /// member switches cut off are grafted back (a graft reads the tree's own switches as
    /// free in its color, as it would with the tree uninstalled), each graft costing its
    /// path ([`Growing`]); a repair within the height is then written by
    /// [`State::reinstall`](crate::router::state::State::reinstall), which touches only the switches and links that change. The
    /// least height of the members, O(S·M), is computed only when the largest hop distance
    /// from the kept root to a member could exceed the tree's height (the least height is
    /// no more than that distance), or when FCTB or a merge needs it.
    ///
    /// Complexity: O(T log T) for the tree's T switches and leaves, a bounded search per
    /// member switch cut off, and the fallbacks' (FCTB, a merge) when the grafts fail.
    fn reroute(&mut self, tid: TreeId, out: &mut TopologyOutcome) {
        // Out of its slot, its entries and link loads still installed.
        let old = self.state.lend(tid);
        out.rerouted += 1;
        let color = old.color;
        // The part still joined to the root (nothing when the root is down).
        let up = |this: &Self, sw: u32, e: Option<Edge>| {
            !this.view.down.switch(sw) && e.is_none_or(|e| !this.view.down.link(e.link))
        };
        let mut kept_nodes = vec![false; old.switches().len()];
        let root_up = !self.view.down.switch(old.root);
        // Walk down from the root, not across a link or switch down.
        if root_up {
            let mut stack = vec![old.node_of(old.root).expect("the root is in its tree")];
            while let Some(i) = stack.pop() {
                kept_nodes[i as usize] = true;
                for (child, c, _, _) in old.down_links(i) {
                    if up(self, child, old.edge_of(c)) {
                        stack.push(c);
                    }
                }
            }
        }
        // Reachable members: attached and up, in the largest piece of the group.
        let mut alive: Vec<(NodeId, u32)> = old
            .member_counts()
            .iter()
            .copied()
            .filter(|&(t, _)| {
                self.view.attach[t.index()].is_some_and(|a| !self.view.down.attach_down(a))
            })
            .collect();
        if let Some(anchor) = self.anchor(&alive) {
            alive.retain(|&(t, _)| {
                let a = self.view.attach[t.index()].expect("checked attached");
                self.view
                    .hops
                    .hops(anchor as usize, a.sw as usize)
                    .is_some()
            });
        } else {
            alive.clear();
        }
        let gone: Vec<NodeId> = old
            .members()
            .filter(|t| alive.binary_search_by_key(t, |&(m, _)| m).is_err())
            .collect();
        // The groups lose the members gone.
        let mut groups: Vec<GroupId> = old.groups().to_vec();
        for &gid in old.groups() {
            self.drop_members(gid, &gone, out);
        }
        out.changed.extend(groups.iter().copied());
        groups.retain(|g| self.state.groups[g.0 as usize].is_some());
        let same_groups = groups.len() == old.groups().len();
        if groups.is_empty() {
            self.state.put_back(tid, old);
            self.state.uninstall(tid);
            self.far.forget(tid);
            return;
        }
        let alive_sw = self.view.member_switches(alive.iter().map(|&(t, _)| t));
        // The kept part, as a tree (rooted at a member switch when the root is down or no
        // member's switch stays in it).
        let kept_root_ok = root_up
            && alive_sw
                .iter()
                .any(|&s| old.node_of(s).is_some_and(|i| kept_nodes[i as usize]));
        let (root, parents): (u32, Vec<(u32, Edge)>) = if kept_root_ok {
            (
                old.root,
                // (By node, in the node order `edges` walks: no search a switch.)
                old.parents()
                    .enumerate()
                    .filter(|&(i, _)| kept_nodes[i])
                    .filter_map(|(_, (s, e))| e.map(|e| (s, e)))
                    .collect(),
            )
        } else {
            (alive_sw[0], Vec::new())
        };
        let kept_set: Vec<u32> = {
            let mut v: Vec<u32> = parents.iter().map(|&(c, _)| c).chain([root]).collect();
            v.sort_unstable();
            v
        };
        let leaves: Vec<(u32, Leaf)> = self
            .view
            .leaves_of(alive.iter().map(|(t, _)| t))
            .filter(|(s, _)| kept_set.binary_search(s).is_ok())
            .collect();
        let mut kept = Tree::from_parts_in(&mut self.s.index, color, root, &parents, &leaves);
        kept.add_members(alive.iter().copied());
        kept.add_groups(groups.iter().copied());
        kept.prune();
        // Graft every member switch cut off, within the larger of the old height over the
        // members left, the kept part's height and the members' least height.
        let leaf_sw: Vec<u32> = kept.leaf_counts().map(|(s, _)| s).collect();
        let heights = old
            .max_depth(&alive_sw)
            .unwrap_or(0)
            .max(kept.max_depth(&leaf_sw).unwrap_or(0));
        // The least height is at most the kept root's largest distance to a member (the
        // table is symmetric): within the heights, it cannot raise the bound.
        let root_row = self.view.hops.row(kept.root as usize);
        let far_root = alive_sw
            .iter()
            .map(|&s| u32::from(root_row[s as usize]))
            .max()
            .unwrap_or(0);
        let bound = if far_root <= heights {
            heights
        } else {
            heights.max(u32::from(self.max_dist(&alive_sw)))
        };
        // `leaf_sw` is sorted (nodes are in switch order).
        let orphans: Vec<u32> = alive_sw
            .iter()
            .copied()
            .filter(|&s| kept.node_of(s).is_none() || leaf_sw.binary_search(&s).is_err())
            .collect();
        // The members' leaves by switch (stable: in member order on each).
        let mut alive_leaves: Vec<(u32, Leaf)> =
            self.view.leaves_of(alive.iter().map(|(t, _)| t)).collect();
        alive_leaves.sort_by_key(|&(s, _)| s);
        let mut grow = Growing::new(
            &kept,
            std::mem::take(&mut self.s.grow_depth),
            self.view.g.len(),
        );
        let mut ok = true;
        let mut higher = false;
        for &x in &orphans {
            let lo = alive_leaves.partition_point(|&(s, _)| s < x);
            let hi = alive_leaves.partition_point(|&(s, _)| s <= x);
            let leaves = &alive_leaves[lo..hi];
            if grow.contains(x) {
                grow.add_leaves(leaves);
                continue;
            }
            match crate::live::graft::graft_path(self, &grow, tid, x, bound) {
                Some((path, depth)) => {
                    higher |= depth > bound;
                    grow.add_path(&path);
                    grow.add_leaves(leaves);
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        let (tree, depth) = grow.finish(&mut self.s.index, &kept);
        self.s.grow_depth = depth;
        drop(kept);
        self.state.put_back(tid, old);
        if ok && !higher {
            // The same color and, unless a group left, the same groups: only what differs.
            if same_groups {
                self.state.reinstall(tid, tree);
            } else {
                self.state.uninstall(tid);
                self.state.install(tid, tree);
            }
            return;
        }
        // The other repairs search the color with the tree out of it.
        self.state.uninstall(tid);
        let d = self.max_dist(&alive_sw);
        let all = Members {
            terminals: alive.iter().map(|&(t, _)| t).collect(),
            sw: alive_sw,
        };
        let with_parts = |mut t: Tree| {
            t.add_members(alive.iter().copied());
            t.add_groups(groups.iter().copied());
            t
        };
        if ok && !higher {
            self.state.install(tid, tree);
            return;
        }
        if let Some(crate::mr4lms::fctb::Built::New(t)) = self.fctb_in(&all, d, Some(color)) {
            let t = with_parts(t);
            self.state.install(tid, t);
            return;
        }
        if ok {
            self.state.install(tid, tree);
            return;
        }
        // A new color (the groups' MLIDs change): FCTB over every color, which may find an
        // existing tree of another color already spanning the members (the groups then join
        // it, as a created group does), then FBTC's first free color; else a merge in the
        // color. (Without the last two a repair with entries to spare merged the groups
        // into an unrelated tree of their color, changing a group that crossed nothing.)
        let built = match self.fctb_in(&all, d, None) {
            Some(crate::mr4lms::fctb::Built::Existing(other)) => {
                let to = self.state.tree_ref(other).color;
                for &g in &groups {
                    let Some(Some(gr)) = self.state.groups.get(g.0 as usize) else {
                        continue;
                    };
                    let m = Members {
                        terminals: gr.members.clone(),
                        sw: gr.member_sw.clone(),
                    };
                    self.join_tree(other, g, &m);
                    if let Some(Some(gr)) = self.state.groups.get_mut(g.0 as usize) {
                        gr.tree = other;
                    }
                    out.recolored.push((g, Color(color), Color(to)));
                }
                return;
            }
            Some(crate::mr4lms::fctb::Built::New(t)) => Some(t),
            None => match self.fbtc(&all, d) {
                Some(crate::mr4lms::fctb::Built::New(t)) => Some(t),
                _ => None,
            },
        };
        if let Some(t) = built {
            let t = with_parts(t);
            for &g in &groups {
                out.recolored.push((g, Color(color), Color(t.color)));
            }
            self.state.install(tid, t);
            return;
        }
        // The kept part installed, then merged with the cut-off members' switches.
        let base_leaves: Vec<(u32, Leaf)> = self
            .view
            .leaves_of(alive.iter().map(|(t, _)| t))
            .filter(|(s, _)| kept_set.binary_search(s).is_ok())
            .collect();
        let mut base = Tree::from_parts(color, root, &parents, &base_leaves);
        base.add_members(alive.iter().copied());
        base.add_groups(groups.iter().copied());
        self.state.install(tid, base);
        let m = Members {
            terminals: Vec::new(),
            sw: all.sw.clone(),
        };
        let (id, merged) = self.merge_in(color, vec![tid], &m, None);
        for g in merged {
            if let Some(Some(gr)) = self.state.groups.get_mut(g.0 as usize) {
                gr.tree = id;
                gr.merged = true;
            }
            out.changed.push(g);
        }
    }

    /// The switch of the member whose side of the fabric holds the most members (ties to
    /// the first), `None` for no member.
    fn anchor(&self, members: &[(NodeId, u32)]) -> Option<u32> {
        let sw: Vec<u32> = members
            .iter()
            .filter_map(|&(t, _)| self.view.attach[t.index()].map(|a| a.sw))
            .collect();
        let mut best: Option<(usize, u32)> = None;
        let mut counted: Vec<u32> = Vec::new();
        for &s in &sw {
            if counted
                .iter()
                .any(|&c| self.view.hops.hops(c as usize, s as usize).is_some())
            {
                continue;
            }
            counted.push(s);
            let n = sw
                .iter()
                .filter(|&&o| self.view.hops.hops(s as usize, o as usize).is_some())
                .count();
            if best.is_none_or(|(b, _)| n > b) {
                best = Some((n, s));
            }
        }
        best.map(|(_, s)| s)
    }

    /// Removes the members of `gone` from group `gid` (each recorded in `out`), deleting the
    /// group when none is left.
    fn drop_members(&mut self, gid: GroupId, gone: &[NodeId], out: &mut TopologyOutcome) {
        let Some(g) = self.state.groups[gid.0 as usize].as_mut() else {
            return;
        };
        let before = g.members.len();
        // (`gone` is sorted.)
        g.members.retain(|m| {
            if gone.binary_search(m).is_ok() {
                out.left.push((gid, *m));
                false
            } else {
                true
            }
        });
        if g.members.len() == before {
            return;
        }
        let members = g.members.clone();
        let sw = self.view.member_switches(members.iter().copied());
        // (Live: read above.)
        let Ok(g) = self.state.group_mut(gid) else {
            return;
        };
        let old_sw = std::mem::replace(&mut g.member_sw, sw.clone());
        for s in old_sw {
            if sw.binary_search(&s).is_err() {
                self.state.member_switch_removed(s);
            }
        }
        if members.is_empty() {
            // Its member switches uncounted above; its MGID freed.
            if self.state.remove_group(gid).is_ok() {
                out.deleted.push(gid);
            }
        } else {
            let least = self.least(&sw);
            let epoch = self.hops_epoch;
            if let Some(g) = self.state.groups[gid.0 as usize].as_mut() {
                least.keep_in(g, epoch);
            }
        }
    }
}

/// The fabric as the switch graph must see it (the tests' oracle for the rows edited in
/// place): every node with its id, every link with its
/// id, but each switch–switch link down replaced by a cable from its lower end to a spare
/// terminal (added after every node, so that the canonical link numbering, by lower end,
/// keeps every id).
#[cfg(test)]
pub(crate) fn view(f: &Fabric, down: &Down) -> Fabric {
    let downs: Vec<usize> = (0..f.link_count())
        .filter(|&l| {
            let e = down.ends[l];
            e[0] != u32::MAX && e[1] != u32::MAX && down.link(LinkId::new(l as u32))
        })
        .collect();
    let mut b = FabricBuilder::with_capacity(
        f.node_count() + downs.len(),
        f.node_count() * 2,
        f.link_count(),
    );
    for n in f.node_ids() {
        b.add_node(f.node(n).clone())
            .expect("a fabric's own nodes are valid");
    }
    for (i, l) in f.links().iter().enumerate() {
        let [(a, pa), (z, pz)] = l.ends;
        if downs.binary_search(&i).is_ok() {
            // A name no node has.
            let mut name = format!("mcast-route spare {i}");
            let t = loop {
                match b.add_node(NodeInfo::terminal(name.clone(), 1)) {
                    Ok(t) => break t,
                    Err(_) => name.push('+'),
                }
            };
            b.link_with(a, pa, t, PortNo::new(1), l.rate, l.latency)
                .expect("the lower end's port is free");
        } else {
            b.link_with(a, pa, z, pz, l.rate, l.latency)
                .expect("the fabric's own cable");
        }
    }
    b.build().expect("every terminal keeps its cable")
}
