//! Port-level membership: groups keyed by the MGID the caller gives, joined and left one
//! member at a time, as subnet administration's MCMemberRecord joins arrive.
//!
//! A group's MLID is its tree's color, so it stays the same for the group's whole life:
//! every tree a join, a leave or a merge gives the group has that color (a merge takes in
//! only trees of that color, whose groups keep theirs too).

use fabric_model::NodeId;

use crate::mr4lms::least_height::{Least, UNKNOWN};
use crate::router::state::{Changes, Group};
use crate::router::view::Members;
use crate::tree::Leaf;
use crate::{Algorithm, Color, Error, Gid, GroupId, JoinColor, Method, Router, TreeId};

/// How [`Router::join`] placed the new member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JoinMethod {
    /// The first member: the group was created and routed by the configured algorithm.
    Created(Method),
    /// The member's switch was in the tree already: a leaf added.
    Leaf,
    /// A path of switches free in the tree's color grafted onto the tree, within the least
    /// height of the group's new members (or the tree's height, when that is larger).
    Graft,
    /// No graft kept the height: FCTB (Alg. 3) rebuilt the tree in its color at the least
    /// height.
    Rebuilt,
    /// No tree of the least height in the color: the shortest graft, higher.
    HigherGraft,
    /// The color was taken on the way: the tree merged (Alg. 4) with the trees of its color
    /// in the way, their groups keeping their MLID.
    Merged,
    /// A baseline (one MLID per group): the group's tree routed again in its MLID. (After a
    /// recoloring, when the new route crosses a switch where another tree holds the MLID,
    /// the member joins as MR4LMS's join places it, by one of the methods above.)
    Rerouted,
}

/// What [`Router::join`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct JoinOutcome {
    /// The group of the MGID.
    pub group: GroupId,
    /// Its color, the same from its first join to its last leave.
    pub color: Color,
    /// Its tree after the join.
    pub tree: TreeId,
    /// How the member was placed.
    pub method: JoinMethod,
    /// The other groups whose tree changed (merged with this one, [`JoinMethod::Merged`]).
    pub merged: Vec<GroupId>,
}

/// What [`Router::leave`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaveOutcome {
    /// The group of the MGID.
    pub group: GroupId,
    /// Whether it was the last member: the group is deleted and its MLID free.
    pub deleted: bool,
    /// Switches the prune took out of the tree (Alg. 6).
    pub pruned: usize,
}

impl Router<'_> {
    /// The group joined under `mgid`, if any.
    #[must_use]
    pub fn group_of(&self, mgid: Gid) -> Option<GroupId> {
        self.state.mgids.get(&mgid).copied()
    }

    /// The MGID group `id` was joined under (`None` for a group of
    /// [`create_group`](Self::create_group) or an unknown id).
    #[must_use]
    pub fn mgid_of(&self, id: GroupId) -> Option<Gid> {
        self.state.groups.get(id.0 as usize)?.as_ref()?.mgid
    }

    /// Checks a port to join: a terminal on a live cable, or a switch (its port 0, which
    /// must be enhanced: the caller's to check, as OpenSM does).
    fn member_port(&self, node: NodeId) -> Result<Members, Error> {
        if self.view.fabric.get(node).is_none() {
            return Err(Error::UnknownNode { node });
        }
        let a = self.view.attach[node.index()]
            .filter(|&a| !self.view.down.attach_down(a))
            .ok_or(Error::PortDown { node })?;
        Ok(Members {
            terminals: vec![node],
            sw: vec![a.sw],
        })
    }

    /// Adds `port` (a terminal, or a switch as its own port 0) to the group keyed by `mgid`,
    /// creating the group on its first member: SA's join of one MCMemberRecord. The group's
    /// MLID (`0xC000 + color`) is chosen at its creation and kept until its last member
    /// leaves.
    ///
    /// On an existing group, the member's switch joins the tree (which stays a tree, of the
    /// same color):
    /// 1. its switch already in the tree: a leaf ([`JoinMethod::Leaf`]);
    /// 2. a breadth-first search from its switch over the switches free in the color reaches
    ///    the tree at the least depth; kept when the height stays within the least height
    ///    of the new member set, or the tree's own ([`JoinMethod::Graft`]);
    /// 3. otherwise FCTB (Alg. 3) in the color rebuilds the tree at the least height
    ///    ([`JoinMethod::Rebuilt`]), else the graft is kept higher
    ///    ([`JoinMethod::HigherGraft`]);
    /// 4. no graft at all (the color busy around the member): Alg. 4 merges the tree with the
    ///    trees of its color in the way ([`JoinMethod::Merged`]).
    ///
    /// With a baseline (one MLID per group) the group is routed again in its MLID; after a
    /// recoloring ([`recolor`](Self::recolor)) has given trees on disjoint switches one
    /// color, a route crossing a switch where another tree holds the group's is dropped and
    /// the member joins as above, in the MLID.
    ///
    /// # Errors
    /// [`Error::UnknownNode`]; [`Error::PortDown`] for a terminal without a live cable or a
    /// switch down; [`Error::AlreadyMember`]; [`Error::Disconnected`] when the port cannot
    /// reach the group's members; on a group's creation, as
    /// [`create_group`](Self::create_group) (a baseline out of MLIDs).
    ///
    /// # Complexity
    /// O(S·M) for the least height over M member switches, a breadth-first search bounded
    /// by the height for the graft, and a rebuild or a merge only when the graft fails.
    pub fn join(&mut self, mgid: Gid, port: NodeId) -> Result<JoinOutcome, Error> {
        let new = self.member_port(port)?;
        let Some(gid) = self.group_of(mgid) else {
            let preset = self.least_used_tree(&new);
            let made = self.create_with(new, preset)?;
            if let Some(Some(g)) = self.state.groups.get_mut(made.group.0 as usize) {
                g.mgid = Some(mgid);
            }
            self.state.mgids.insert(mgid, made.group);
            return Ok(JoinOutcome {
                group: made.group,
                color: made.color,
                tree: made.tree,
                method: JoinMethod::Created(made.method),
                merged: made.merged,
            });
        };
        let g = self.state.group(gid)?;
        if g.members.contains(&port) {
            return Err(Error::AlreadyMember { mgid, node: port });
        }
        let x = new.sw[0];
        let first = g.member_sw[0];
        if self.view.hops.hops(first as usize, x as usize).is_none() {
            return Err(Error::Disconnected {
                a: g.members[0],
                b: port,
            });
        }
        let tid = g.tree;
        // The group's new member switches and least height: kept through the join when
        // the new switch is within it from the kept center, computed when it was known,
        // and only when the graft needs it when it was not ([`crate::mr4lms::least_height`]).
        let mut sw = g.member_sw.clone();
        let fresh_switch = sw.binary_search(&x).map_err(|i| sw.insert(i, x)).is_err();
        let (kept, unknown) = (self.least_after_join(g, x), g.min_height == UNKNOWN);
        // (A baseline reads its root off the largest distances: always computed.)
        let baseline = matches!(
            self.config.algorithm,
            Algorithm::MinihopMc | Algorithm::SsspMc
        );
        let mut least = match kept {
            Some(l) if !baseline => Some(l),
            None if unknown && !baseline => None,
            _ => Some(self.least(&sw)),
        };
        let (method, tid, merged) = if baseline {
            let l = match least {
                Some(l) => l,
                None => self.least(&sw),
            };
            least = Some(l);
            self.reroute_baseline(tid, port, x, &sw, &mut least)?
        } else {
            self.graft(tid, port, x, &sw, &mut least)
        };
        let epoch = self.hops_epoch;
        // (Live: checked above, and no step of a join deletes a group.)
        let g = self.state.group_mut(gid)?;
        g.members.push(port);
        g.member_sw = sw;
        match least {
            Some(l) => l.keep_in(g, epoch),
            None => g.min_height = UNKNOWN,
        }
        g.tree = tid;
        if fresh_switch {
            self.state.member_switch_added(x);
        }
        let mut others = Vec::new();
        for &o in &merged {
            if o != gid
                && let Some(Some(og)) = self.state.groups.get_mut(o.0 as usize)
            {
                og.merged = true;
                og.tree = tid;
                others.push(o);
            }
        }
        if !others.is_empty() {
            self.state.group_mut(gid)?.merged = true;
        }
        Ok(JoinOutcome {
            group: gid,
            color: Color(self.state.tree_ref(tid).color),
            tree: tid,
            method,
            merged: others,
        })
    }

    /// Under [`JoinColor::LeastUsed`] (MR4LMS), the first member's tree: its switch alone in
    /// the color free there with the fewest trees (ties to the lowest); `None` otherwise or
    /// when every color is busy there.
    ///
    /// Complexity: O(C) for C colors.
    fn least_used_tree(&self, m: &Members) -> Option<(crate::tree::Tree, Method)> {
        if self.config.join_color != JoinColor::LeastUsed
            || self.config.algorithm != Algorithm::Mr4lms
        {
            return None;
        }
        let x = m.sw[0];
        let trees = &self.state.colors.trees_per_color;
        let c = (0..self.state.colors.span())
            .filter(|&c| !self.state.colors.is_busy(x, c))
            .min_by_key(|&c| (trees.get(c as usize).copied().unwrap_or(0), c))?;
        let leaves: Vec<_> = self.view.leaves_of(m.terminals.iter()).collect();
        Some((
            crate::tree::Tree::from_parts(c, x, &[], &leaves),
            Method::JoinLeastUsed,
        ))
    }

    /// MR4LMS's join of `port` on switch `x` to tree `tid` (steps 1–4 of
    /// [`join`](Self::join)); `least` is the new member switches `sw`'s least largest hop
    /// distance, computed here into it when the graft search needs it and it is `None`.
    pub(crate) fn graft(
        &mut self,
        tid: TreeId,
        port: NodeId,
        x: u32,
        sw: &[u32],
        least: &mut Option<Least>,
    ) -> (JoinMethod, TreeId, Vec<GroupId>) {
        // (`member_port` checked it attached; attachments never change.)
        let a = self.view.attach[port.index()].expect("a checked port is attached");
        let leaf = Leaf {
            port: a.port,
            terminal: port,
            link: a.link,
        };
        if self.state.tree_ref(tid).node_of(x).is_some() {
            // A leaf, edited in place: the switch's entry and the cable's load change.
            let mut changes = Changes::default();
            let fresh = !self.state.tree_ref(tid).has_leaf(x, port);
            if fresh {
                changes.touched.push(x);
                changes.new_leaves.push(leaf.link);
            }
            self.state.reinstall_with(tid, changes, |t| {
                if fresh {
                    t.add_leaf(x, leaf);
                }
                t.add_holder(port);
            });
            return (JoinMethod::Leaf, tid, Vec::new());
        }
        // The tree out of its slot (its entries stay: the graft search reads its own switches
        // as free), back before the reinstall.
        let tree = self.state.lend(tid);
        let color = tree.color;
        // The largest depth of a leaf switch (kept with the tree).
        let height = tree.height().unwrap_or(0);
        // The least distance is at most the root's largest distance to the members, which
        // is within the height but for the new switch's: within it, the bound is the height.
        let near_root = self
            .view
            .hops
            .hops(tree.root as usize, x as usize)
            .is_some_and(|h| u32::from(h) <= height);
        let bound = match *least {
            Some(l) => height.max(u32::from(l.d)),
            None if near_root => height,
            None => {
                let l = self.least(sw);
                *least = Some(l);
                height.max(u32::from(l.d))
            }
        };
        let found = crate::live::graft::graft_path(self, &tree, tid, x, bound);
        if let Some((path, depth)) = &found
            && *depth <= bound
        {
            let mut t = tree.grown(path, &[(x, leaf)]);
            t.add_holder(port);
            self.state.put_back(tid, tree);
            // What the graft adds: its switches and edges, the member's leaf, and the entry
            // of the tree switch it hangs from.
            let changes = Changes {
                joined: path.iter().map(|&(c, _)| c).collect(),
                new_edges: path.clone(),
                new_leaves: vec![leaf.link],
                touched: vec![x],
                ..Changes::default()
            };
            self.state.reinstall_with(tid, changes, |old| *old = t);
            return (JoinMethod::Graft, tid, Vec::new());
        }
        self.state.put_back(tid, tree);
        let tree = self.state.uninstall(tid);
        // Every member of the tree with the new one (the tree's own switches are free in
        // its color now).
        let mut terminals: Vec<NodeId> = tree.members().collect();
        terminals.push(port);
        let sw = self.view.member_switches(terminals.iter().copied());
        let all = Members { terminals, sw };
        let dd = self.max_dist_of_tree(tid, &all.sw);
        if let Some(crate::mr4lms::fctb::Built::New(mut t)) = self.fctb_in(&all, dd, Some(color)) {
            t.add_members(tree.member_counts().iter().copied());
            t.add_members([(port, 1)]);
            t.add_groups(tree.groups().iter().copied());
            self.state.install(tid, t);
            return (JoinMethod::Rebuilt, tid, Vec::new());
        }
        if let Some((path, _)) = found {
            let mut t = tree.grown(&path, &[(x, leaf)]);
            t.add_members([(port, 1)]);
            self.state.install(tid, t);
            return (JoinMethod::HigherGraft, tid, Vec::new());
        }
        // Alg. 4 in the tree's color, the tree itself first.
        self.state.install(tid, tree);
        let m = Members {
            terminals: vec![port],
            sw: vec![x],
        };
        let (id, merged) = self.merge_in(color, vec![tid], &m, None);
        (JoinMethod::Merged, id, merged)
    }

    /// Removes `port` from the group keyed by `mgid`: SA's leave of one MCMemberRecord. The
    /// tree is pruned as Alg. 6 prunes it (the member's leaf dropped if no other group of
    /// the tree holds it, then every switch left with nothing below, upward; the root
    /// stays); the last member's leave deletes the group
    /// ([`delete_group`](Self::delete_group)) and frees its MLID and MGID.
    ///
    /// # Errors
    /// [`Error::UnknownMgid`] when no group has that MGID; [`Error::NotAMember`] when
    /// `port` is not one of its members.
    ///
    /// # Complexity
    /// O(T log T) for a tree of T switches and leaves, and O(S·M) for the group's new least
    /// height.
    pub fn leave(&mut self, mgid: Gid, port: NodeId) -> Result<LeaveOutcome, Error> {
        let gid = self.group_of(mgid).ok_or(Error::UnknownMgid { mgid })?;
        let g = self.state.group(gid)?;
        let Some(i) = g.members.iter().position(|&m| m == port) else {
            return Err(Error::NotAMember { mgid, node: port });
        };
        // A member joined through `member_port`, attached (attachments never change).
        let x = self.view.attach[port.index()]
            .ok_or(Error::PortDown { node: port })?
            .sw;
        if g.members.len() == 1 {
            let before = self.state.tree_ref(g.tree).switches().len();
            // (Frees the MGID too.)
            self.delete_group(gid)?;
            return Ok(LeaveOutcome {
                group: gid,
                deleted: true,
                pruned: before,
            });
        }
        let tid = g.tree;
        // Out of its slot while the tree changes, back below.
        let mut g: Group = self
            .state
            .groups
            .get_mut(gid.0 as usize)
            .and_then(Option::take)
            .ok_or(Error::GroupDeleted { group: gid })?;
        g.members.remove(i);
        let still = g
            .members
            .iter()
            .any(|t| self.view.attach[t.index()].is_some_and(|a| a.sw == x));
        if !still {
            if let Ok(k) = g.member_sw.binary_search(&x) {
                g.member_sw.remove(k);
            }
            self.state.member_switch_removed(x);
        }
        // Edited in place, from the list of what changes.
        let tree = self.state.trees[tid.0 as usize]
            .as_mut()
            .expect("a live group's tree is live");
        tree.remove_holder(port);
        let tree = self.state.tree_ref(tid);
        let mut changes = Changes::default();
        let mut gone_nodes = None;
        let mut chain = None;
        let mut leaf_only = false;
        let mut pruned = 0;
        if !tree.has_member(port) {
            if tree.leaf_removable_in_place(x, port) {
                leaf_only = true;
                changes.touched.push(x);
                changes
                    .gone_leaves
                    .extend(tree.leaf_of(x, port).map(|l| l.link));
            } else if let Some(nodes) = tree.prunable_chain(x, port) {
                // Alg. 6 when only the member's branch goes (the same changes as below).
                for &i in &nodes {
                    let sw = tree.switches()[i as usize];
                    changes.left.push(sw);
                    changes.gone_edges.extend(tree.edge_of(i).map(|e| (sw, e)));
                }
                changes.touched.push(x);
                changes
                    .gone_leaves
                    .extend(tree.leaf_of(x, port).map(|l| l.link));
                pruned = nodes.len();
                chain = Some(nodes);
            } else {
                // Alg. 6: the switches left with nothing below, their edges, the leaves of
                // terminals no longer members, and the entries of the switches they hung from.
                let gone = tree.pruned_nodes();
                for (i, (sw, e)) in tree.parents().enumerate() {
                    if gone[i] {
                        changes.left.push(sw);
                        changes.gone_edges.extend(e.map(|e| (sw, e)));
                    }
                }
                for (sw, l) in tree.leaves() {
                    if !tree.has_member(l.terminal) {
                        changes.touched.push(sw);
                        changes.gone_leaves.push(l.link);
                    }
                }
                pruned = changes.left.len();
                gone_nodes = Some(gone);
            }
        }
        self.state.reinstall_with(tid, changes, |t| {
            if let Some(gone) = gone_nodes {
                t.keep_nodes(&gone);
            } else if let Some(nodes) = chain {
                t.remove_chain(&nodes);
            } else if leaf_only {
                t.remove_leaf_in_place(x, port);
            }
        });
        // Unknown until asked for, unless the member switches stay and it was known over
        // this hop table ([`crate::mr4lms::least_height`]).
        if !(still && g.epoch == self.hops_epoch) {
            g.min_height = UNKNOWN;
        }
        self.state.groups[gid.0 as usize] = Some(g);
        Ok(LeaveOutcome {
            group: gid,
            deleted: false,
            pruned,
        })
    }

    /// The members of the group keyed by `mgid`, in join order.
    ///
    /// # Errors
    /// [`Error::UnknownMgid`].
    pub fn members_of(&self, mgid: Gid) -> Result<&[NodeId], Error> {
        let gid = self.group_of(mgid).ok_or(Error::UnknownMgid { mgid })?;
        Ok(&self.state.group(gid)?.members)
    }
}
