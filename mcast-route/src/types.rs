//! Ids and the outcome of creating a group.

use fabric_model::NodeId;

/// The first multicast LID; color `c` is MLID `0xC000 + c`.
pub const MLID_BASE: u16 = 0xC000;

fabric_model::dense_id! {
    /// A multicast group, numbered in creation order from 0 (ids are never reused).
    pub struct GroupId(pub(crate) u32);
    display = "{}";
}

fabric_model::dense_id! {
    /// A multicast tree, numbered in creation order from 0 (ids are never reused).
    pub struct TreeId(pub(crate) u32);
    display = "tree {}";
}

fabric_model::dense_id! {
    /// A color: an MFT entry number, the same on every switch of a tree. It displays as its
    /// number (`7`), as users print it; its MLID is [`Color::mlid`].
    pub struct Color(pub(crate) u32);
    display = "{}";
}

impl Color {
    /// The multicast LID `0xC000 + color`, or `None` past 0xFFFE.
    #[must_use]
    pub fn mlid(self) -> Option<u16> {
        if self.0 < crate::MAX_ENTRIES {
            u16::try_from(self.0).ok().map(|c| MLID_BASE + c)
        } else {
            None
        }
    }
}

/// Which step of the paper produced a group's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// FBTC (Alg. 1): built bottom-up, then colored first-fit.
    Fbtc,
    /// FCTB (Alg. 3): a color chosen, then built by Dijkstra in `G_color`.
    Fctb,
    /// FCTB found that an existing tree of the color already spans every member (§3.2.1).
    ExistingTree,
    /// Merged with existing groups (Alg. 4) into one virtual group.
    Merge,
    /// A group's first join under [`JoinColor::LeastUsed`](crate::JoinColor::LeastUsed): its
    /// member's switch alone, in the color free there with the fewest trees.
    JoinLeastUsed,
    /// MINIHOP-MC baseline.
    MinihopMc,
    /// SSSP-MC baseline.
    SsspMc,
}

/// What [`Router::create_group`](crate::Router::create_group) did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CreateOutcome {
    /// The new group.
    pub group: GroupId,
    /// The tree it uses.
    pub tree: TreeId,
    /// The tree's color.
    pub color: Color,
    /// The tree's root switch.
    pub root: NodeId,
    /// Hops from the root to the group's farthest member along the tree.
    pub height: u32,
    /// The least height any tree could have for this group (hop-table bound).
    pub min_height: u32,
    /// The step that built the tree.
    pub method: Method,
    /// Existing groups merged with this one (empty unless `method` is [`Method::Merge`]).
    pub merged: Vec<GroupId>,
}
