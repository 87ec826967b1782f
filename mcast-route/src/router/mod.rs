//! The [`Router`]: groups, trees, colors and link loads, and the operations on them.

pub(crate) mod held;
pub(crate) mod state;
pub(crate) mod view;

use std::fmt;
use std::sync::Arc;

use fabric_model::{Bytes, Fabric, HopTable, LinkId, NodeId};

use crate::router::held::Held;
use crate::router::state::{Current, Group, State};
use crate::router::view::{Members, View};
use crate::search::Scratch;
use crate::tree::Tree;
use crate::{
    Algorithm, Color, Config, CreateOutcome, Error, GroupId, Method, Policy, PortSet, TreeId,
};

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
    /// The fabric as routed over: changed only by topology events.
    pub(crate) view: View<'f>,
    /// Trees, groups, colors and loads: changed only through install and uninstall.
    pub(crate) state: State,
    pub(crate) config: Config,
    /// The searches' buffers.
    pub(crate) s: Scratch,
    /// Large trees' largest distances to their member switches (ours, [`crate::mr4lms::far`]).
    pub(crate) far: crate::mr4lms::far::FarCache,
    /// Bumped whenever the hop table changes: the epoch of the groups' kept least heights
    /// ([`crate::mr4lms::least_height`]).
    pub(crate) hops_epoch: u32,
}

impl fmt::Debug for Router<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Router")
            .field("config", &self.config)
            .field("switches", &self.view.g.len())
            .field("groups", &self.state.groups.iter().flatten().count())
            .field("trees", &self.state.trees.iter().flatten().count())
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
        let switches = fabric.switch_count();
        let links = fabric.link_count();
        let order = opensm_order(&fabric, config.switch_order);
        Ok(Self {
            config,
            view: View::new(fabric, hops, order),
            state: State::new(switches, links, config.entries.limit()),
            s: Scratch::new(switches),
            far: crate::mr4lms::far::FarCache::default(),
            hops_epoch: 0,
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
        &self.view.fabric
    }

    /// The hop table the router was made with, `None` once a topology change
    /// ([`Router::link_down`] and the others) made the router keep its own distances
    /// ([`Router::hop_distance`]).
    #[must_use]
    pub fn hops(&self) -> Option<&HopTable> {
        self.view.hops.table()
    }

    /// Hops between two nodes over the links up now (a terminal or a switch member counts
    /// from its switch, a terminal adds its own link), as [`HopTable::between`] over the
    /// fabric less the links and switches down. `None` when unreachable or unknown.
    #[must_use]
    pub fn hop_distance(&self, a: NodeId, b: NodeId) -> Option<u32> {
        let end = |n: NodeId| -> Option<(u32, u32)> {
            let at = (*self.view.attach.get(n.index())?)?;
            if self.view.down.attach_down(at) {
                return None;
            }
            Some((at.sw, u32::from(at.link != crate::tree::NO_LINK)))
        };
        if a == b && self.view.fabric.get(a).is_some() {
            return Some(0);
        }
        let (sa, ea) = end(a)?;
        let (sb, eb) = end(b)?;
        Some(u32::from(self.view.hops.hops(sa as usize, sb as usize)?) + ea + eb)
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

    /// Alg. 7: FBTC or FCTB by the policy, merging when the chosen one fails.
    fn mr4lms(&mut self, m: &Members, d: u8, gid: GroupId) -> (TreeId, Method, Vec<GroupId>) {
        let built = match (self.config.policy, self.state.current) {
            (Policy::FbtcOnly, _) | (Policy::Adaptive { .. }, Current::Fbtc) => {
                let t = self.fbtc(m, d);
                // Step ③: a failure switches to FCTB.
                if t.is_none() && matches!(self.config.policy, Policy::Adaptive { .. }) {
                    self.state.current = Current::Fctb { streak: 0 };
                }
                t.map(|t| (t, Method::Fbtc))
            }
            (Policy::FctbOnly, _) | (Policy::Adaptive { .. }, Current::Fctb { .. }) => {
                let t = self.fctb(m, d);
                // Step ⑥: enough successes in a row switch back to FBTC.
                if let (Policy::Adaptive { switch_back }, Current::Fctb { streak }) =
                    (self.config.policy, self.state.current)
                {
                    self.state.current = match t {
                        Some(_) if streak + 1 >= switch_back => Current::Fbtc,
                        Some(_) => Current::Fctb { streak: streak + 1 },
                        None => Current::Fctb { streak: 0 },
                    };
                }
                t.map(|t| (t, Method::Fctb))
            }
        };
        match built {
            Some((crate::mr4lms::fctb::Built::New(tree), method)) => {
                (self.add_new_tree(tree, gid, m), method, Vec::new())
            }
            Some((crate::mr4lms::fctb::Built::Existing(id), _)) => {
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

    /// Hops from the root of the group's tree to its farthest member.
    pub(crate) fn group_height(&self, g: &Group) -> u32 {
        self.state
            .tree_ref(g.tree)
            .max_depth(&g.member_sw)
            .map_or(0, |d| d + 1)
    }

    /// The group `id`: members, tree, color, root, height.
    ///
    /// # Errors
    /// [`Error::UnknownGroup`] or [`Error::GroupDeleted`].
    pub fn group(&self, id: GroupId) -> Result<GroupView, Error> {
        let g = self.state.group(id)?;
        let t = self.state.tree_ref(g.tree);
        Ok(GroupView {
            id,
            members: g.members.clone(),
            tree: g.tree,
            color: Color(t.color),
            root: self.view.sw_node(t.root),
            height: self.group_height(g),
            min_height: self.min_height_of(g),
            merged: g.merged,
        })
    }

    /// The ids of the live groups, in creation order.
    pub fn group_ids(&self) -> impl Iterator<Item = GroupId> + '_ {
        self.state
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.is_some())
            .map(|(i, _)| GroupId(i as u32))
    }

    /// The tree `id`, or `None` when it does not exist (any more).
    #[must_use]
    pub fn tree(&self, id: TreeId) -> Option<TreeView> {
        let t = self.state.trees.get(id.0 as usize)?.as_ref()?;
        Some(TreeView {
            id,
            color: Color(t.color),
            root: self.view.sw_node(t.root),
            switches: t
                .parents()
                .map(|(s, e)| (self.view.sw_node(s), e.map(|e| self.view.sw_node(e.parent))))
                .collect(),
            members: t.members().collect(),
            groups: t.groups().to_vec(),
            links: t.links().collect(),
        })
    }

    /// The ids of the live trees.
    pub fn tree_ids(&self) -> impl Iterator<Item = TreeId> + '_ {
        self.state
            .trees
            .iter()
            .enumerate()
            .filter(|(_, t)| t.is_some())
            .map(|(i, _)| TreeId(i as u32))
    }

    fn switch_idx(&self, switch: NodeId) -> Result<u32, Error> {
        self.view
            .fabric
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
            .state
            .colors
            .entries(sw)
            .iter()
            .map(|&(c, t)| {
                let ports = self.state.tree_ref(t).port_set(sw).unwrap_or_default();
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
            .state
            .colors
            .tree_at(sw, color.0)
            .and_then(|t| self.state.tree_ref(t).port_set(sw)))
    }

    /// The tree using `color` on `switch`, if any.
    ///
    /// # Errors
    /// [`Error::NotASwitch`] when `switch` is not a switch of the fabric.
    pub fn tree_at(&self, switch: NodeId, color: Color) -> Result<Option<TreeId>, Error> {
        Ok(self.state.colors.tree_at(self.switch_idx(switch)?, color.0))
    }

    /// The EFI of `link`: how many groups' traffic crosses it.
    #[must_use]
    pub fn efi(&self, link: LinkId) -> u32 {
        self.state.efi.get(link.index()).copied().unwrap_or(0)
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
        let bytes = size_of::<Self>()
            + self.view.memory_bytes()
            + self.state.memory_bytes()
            + self.s.memory_bytes()
            + self.far.memory_bytes();
        Bytes::new(bytes as u64)
    }
}
