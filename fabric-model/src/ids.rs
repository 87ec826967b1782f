//! Identifiers: nodes, ports, links, and what kind a node is.
//!
//! Ids are opaque: construct them with `new` (or `from_index`) and read them back with `get`
//! (or `index`), so that their representation can change without breaking callers.

use std::fmt;

/// Defines an opaque dense id: a `Copy` newtype over `u32` numbering things `0..n` in a table,
/// with `new`, `from_index`, `get`, `index` and a `Display` from the given format (one `{}`
/// for the number). Every id of the workspace is made this way, so that they all read alike.
///
/// The field's visibility is the caller's (`pub(crate) u32` lets the defining crate use
/// `.0`); users of the id construct it with `new` and read it with `get`/`index`.
///
/// ```
/// fabric_model::dense_id! {
///     /// A job of my scheduler.
///     pub struct JobId(u32);
///     display = "job {}";
/// }
///
/// let j = JobId::new(7);
/// assert_eq!((j.get(), j.index(), j.to_string()), (7, 7, "job 7".to_owned()));
/// assert_eq!(JobId::from_index(7), Some(j));
/// assert_eq!(JobId::from_index(usize::MAX), None);
/// ```
#[macro_export]
macro_rules! dense_id {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident($field_vis:vis u32);
        display = $fmt:literal;
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        $vis struct $name($field_vis u32);

        impl $name {
            /// The id numbered `id`.
            #[inline]
            #[must_use]
            pub const fn new(id: u32) -> Self {
                Self(id)
            }

            /// The id of index `index`, or `None` past `u32::MAX`.
            #[inline]
            #[must_use]
            pub fn from_index(index: usize) -> ::core::option::Option<Self> {
                match u32::try_from(index) {
                    Ok(id) => Some(Self(id)),
                    Err(_) => None,
                }
            }

            /// The number.
            #[inline]
            #[must_use]
            pub const fn get(self) -> u32 {
                self.0
            }

            /// The number as a `usize`, for slicing per-id tables.
            #[inline]
            #[must_use]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, $fmt, self.0)
            }
        }
    };
}

dense_id! {
    /// A node of a [`Fabric`](crate::Fabric): a dense index `0..node_count()`.
    pub struct NodeId(u32);
    display = "node {}";
}

dense_id! {
    /// A link (cable) of a [`Fabric`](crate::Fabric): a dense index `0..link_count()`.
    pub struct LinkId(u32);
    display = "link {}";
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

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A switch: forwards packets, owns forwarding tables.
    Switch,
    /// An end point: a host channel adapter (or a router, seen from inside the subnet).
    Terminal,
}
