//! Identifiers: nodes, ports, links, and what kind a node is.
//!
//! Ids are opaque: construct them with `new` (or `from_index`) and read them back with `get`
//! (or `index`), so that their representation can change without breaking callers.

use std::fmt;

/// A node of a [`Fabric`](crate::Fabric): a dense index `0..node_count()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NodeId(u32);

impl NodeId {
    /// The node of dense index `id`.
    #[inline]
    #[must_use]
    pub const fn new(id: u32) -> Self {
        Self(id)
    }

    /// The node of index `index`, or `None` past `u32::MAX`.
    #[inline]
    #[must_use]
    pub fn from_index(index: usize) -> Option<Self> {
        u32::try_from(index).ok().map(Self)
    }

    /// The index as a `u32`.
    #[inline]
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// The index as a `usize`, for slicing per-node tables.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node {}", self.0)
    }
}

/// A port number, 1-based as in InfiniBand: a node of radix `r` has ports `1..=r`. Switch port
/// 0 is the management port and never carries a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PortNo(u16);

impl PortNo {
    /// Port 0: a switch's management port.
    pub const MANAGEMENT: Self = Self(0);

    /// Port number `port`.
    #[inline]
    #[must_use]
    pub const fn new(port: u16) -> Self {
        Self(port)
    }

    /// The port number.
    #[inline]
    #[must_use]
    pub const fn get(self) -> u16 {
        self.0
    }

    /// The index of this port within its node's port slots (`port - 1`), or `None` for port 0.
    #[inline]
    #[must_use]
    pub const fn slot(self) -> Option<usize> {
        match self.0 {
            0 => None,
            p => Some(p as usize - 1),
        }
    }
}

impl fmt::Display for PortNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "port {}", self.0)
    }
}

/// A link (cable) of a [`Fabric`](crate::Fabric): a dense index `0..link_count()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct LinkId(u32);

impl LinkId {
    /// The link of dense index `id`.
    #[inline]
    #[must_use]
    pub const fn new(id: u32) -> Self {
        Self(id)
    }

    /// The link of index `index`, or `None` past `u32::MAX`.
    #[inline]
    #[must_use]
    pub fn from_index(index: usize) -> Option<Self> {
        u32::try_from(index).ok().map(Self)
    }

    /// The index as a `u32`.
    #[inline]
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// The index as a `usize`, for slicing per-link tables.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for LinkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "link {}", self.0)
    }
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A switch: forwards packets, owns forwarding tables.
    Switch,
    /// An end point: a host channel adapter (or a router, seen from inside the subnet).
    Terminal,
}
