//! The [`Router`]: the fabric as routed over ([`view`]), the routing state ([`state`]), and
//! the operations every algorithm shares: a group created by the configured algorithm and
//! deleted ([`groups`]), the tables and views handed out ([`inspect`]).

pub(crate) mod groups;
pub(crate) mod held;
pub(crate) mod inspect;
pub(crate) mod state;
pub(crate) mod view;

use std::fmt;
use std::sync::Arc;

use fabric_model::{Bytes, Fabric, HopTable, NodeId};

use crate::baseline::opensm_order;
use crate::router::held::Held;
use crate::router::state::State;
use crate::router::view::View;
use crate::search::Scratch;
use crate::{Config, Error};

pub use inspect::{GroupView, TreeView};

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
