//! What a router hands out for inspection: a group's and a tree's view, the entries of a
//! switch, the link loads.

use fabric_model::{LinkId, NodeId};

use crate::router::state::Group;
use crate::{Color, Error, GroupId, PortSet, Router, TreeId};

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

impl Router<'_> {
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
}
