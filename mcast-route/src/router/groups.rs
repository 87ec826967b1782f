//! A group's life in a router of any algorithm: created by the configured algorithm
//! (MR4LMS's Alg. 7 or an OpenSM baseline), its tree installed, and deleted as Alg. 6
//! deletes it.

use fabric_model::NodeId;

use crate::router::state::Group;
use crate::router::view::Members;
use crate::tree::Tree;
use crate::{Algorithm, Color, CreateOutcome, Error, GroupId, Method, Router, TreeId};

impl Router<'_> {
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
        let m = self.view.validate(members)?;
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
        let least = self.least(&m.sw);
        let d = least.d;
        let min_height = u32::from(d) + 1;
        let gid = GroupId(self.state.groups.len() as u32);
        let (tid, method, merged) = match (preset, self.config.algorithm) {
            (Some((tree, method)), _) => (self.add_new_tree(tree, gid, &m), method, Vec::new()),
            (None, Algorithm::MinihopMc | Algorithm::SsspMc) => {
                let color = self.baseline_color()?;
                let tree = self.baseline_tree(&m, d, color)?;
                (
                    self.add_new_tree(tree, gid, &m),
                    self.baseline_method(),
                    Vec::new(),
                )
            }
            (None, Algorithm::Mr4lms) => self.mr4lms(&m, d, gid),
        };
        for &o in &merged {
            if let Some(Some(g)) = self.state.groups.get_mut(o.0 as usize) {
                g.merged = true;
                g.tree = tid;
            }
        }
        let added = self.state.add_group(Group {
            members: m.terminals,
            member_sw: m.sw,
            tree: tid,
            min_height,
            center: least.center,
            epoch: self.hops_epoch,
            merged: method == Method::Merge,
            mgid: None,
        });
        debug_assert_eq!(added, gid);
        // (Just added under `gid`: nothing between took it.)
        let group = self.state.groups[gid.0 as usize]
            .as_ref()
            .expect("the group was just created");
        let tree = self.state.tree_ref(tid);
        Ok(CreateOutcome {
            group: gid,
            tree: tid,
            color: Color(tree.color),
            root: self.view.sw_node(tree.root),
            height: self.group_height(group),
            min_height,
            method,
            merged,
        })
    }

    /// Registers `gid` on a freshly built tree and installs it.
    pub(crate) fn add_new_tree(&mut self, mut tree: Tree, gid: GroupId, m: &Members) -> TreeId {
        tree.add_group(gid, &m.terminals);
        let id = self.state.new_tree_id();
        self.state.install(id, tree);
        id
    }

    /// Registers `gid` on the existing tree `id` (which already spans its members).
    pub(crate) fn join_tree(&mut self, id: TreeId, gid: GroupId, m: &Members) {
        let mut tree = self.state.uninstall(id);
        tree.add_group(gid, &m.terminals);
        self.state.install(id, tree);
    }

    /// Deletes group `id` (Alg. 6): its members that no other group of the tree holds leave
    /// the tree, switches left with nothing below are pruned upward, and the tree and its
    /// entries are freed when its last group leaves. A group joined under an MGID
    /// ([`Router::join`]) frees its MGID too: [`Router::members_of`] and [`Router::leave`]
    /// then answer [`Error::UnknownMgid`], and the next [`Router::join`] under it creates a
    /// new group.
    ///
    /// # Errors
    /// [`Error::UnknownGroup`] for an id never handed out, [`Error::GroupDeleted`] for one
    /// already deleted.
    ///
    /// # Complexity
    /// O(T log T) for a tree of T switches and leaves.
    pub fn delete_group(&mut self, id: GroupId) -> Result<(), Error> {
        let group = self.state.remove_group(id)?;
        let mut tree = self.state.uninstall(group.tree);
        tree.remove_group(id, &group.members);
        if tree.groups().is_empty() {
            self.far.forget(group.tree);
        } else {
            tree.prune();
            self.state.install(group.tree, tree);
        }
        Ok(())
    }
}
