//! Ids and the outcome of creating a group.

use std::fmt;

use fabric_model::NodeId;

/// The first multicast LID; color `c` is MLID `0xC000 + c`.
pub const MLID_BASE: u16 = 0xC000;

/// A multicast group, numbered in creation order from 0 (ids are never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GroupId(pub(crate) u32);

impl GroupId {
    /// The group numbered `n`.
    #[must_use]
    pub const fn new(n: u32) -> Self {
        Self(n)
    }

    /// Its number.
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Its number as an index.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for GroupId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A multicast tree, numbered in creation order from 0 (ids are never reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TreeId(pub(crate) u32);

impl TreeId {
    /// The tree numbered `n`.
    #[must_use]
    pub const fn new(n: u32) -> Self {
        Self(n)
    }

    /// Its number.
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Its number as an index.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "color {}", self.0)
    }
}

impl fmt::Display for TreeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tree {}", self.0)
    }
}

/// A color: an MFT entry number, the same on every switch of a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Color(pub(crate) u32);

impl Color {
    /// Color (MFT entry) `n`.
    #[must_use]
    pub const fn new(n: u32) -> Self {
        Self(n)
    }

    /// Its number.
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Its number as an index.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

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
