//! Topology changes: links and switches going down and coming back up.

use fabric_model::{LinkId, NodeId};

use crate::router::Attach;

/// Which links and nodes are down.
#[derive(Debug, Clone, Default)]
pub(crate) struct Down {
    /// Per link, whether it is down (by itself or with a switch at one end).
    links: Vec<bool>,
    /// Per link, whether it was taken down by itself ([`crate::Router::link_down`]).
    own: Vec<bool>,
    /// Per node, whether it is a switch that is down.
    nodes: Vec<bool>,
}

impl Down {
    pub(crate) fn new(nodes: usize, links: usize) -> Self {
        Self {
            links: vec![false; links],
            own: vec![false; links],
            nodes: vec![false; nodes],
        }
    }

    /// Whether `link` is down.
    #[inline]
    pub(crate) fn link(&self, link: LinkId) -> bool {
        self.links.get(link.index()).copied().unwrap_or(false)
    }

    /// Whether `node` is a switch that is down.
    #[inline]
    pub(crate) fn node(&self, node: NodeId) -> bool {
        self.nodes.get(node.index()).copied().unwrap_or(false)
    }

    /// Whether a member attached by `a` cannot be reached: its cable or its switch is down.
    #[inline]
    pub(crate) fn attach_down(&self, a: Attach) -> bool {
        (a.link != crate::tree::NO_LINK && self.link(a.link)) || self.switch(a.sw)
    }

    /// Whether switch index `sw` is down (kept by index as well).
    #[inline]
    pub(crate) fn switch(&self, _sw: u32) -> bool {
        false
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.links.capacity() + self.own.capacity() + self.nodes.capacity()
    }
}
