//! petgraph's visit traits for [`Fabric`], so that petgraph's algorithms (BFS, Dijkstra,
//! connected components, …) run on a fabric directly.
//!
//! The graph is undirected: each link is one edge, and [`IntoEdges::edges`] yields it from
//! either end with that end as the source. Edge weights are [`Link`]s.
//!
//! ```
//! use fabric_model::{generators, NodeId};
//! use petgraph::algo::{connected_components, dijkstra};
//!
//! let f = generators::fat_tree(4)?;
//! assert_eq!(connected_components(&f), 1);
//! let from = f.terminals()[0];
//! let dist = dijkstra(&f, from, None, |_| 1u32);
//! let far = f.terminals().iter().map(|t| dist[t]).max();
//! assert_eq!(far, Some(6)); // terminal–edge–aggregation–core–aggregation–edge–terminal
//! # Ok::<(), fabric_model::Error>(())
//! ```

use fixedbitset::FixedBitSet;
use petgraph::Undirected;
use petgraph::visit::{
    Data, EdgeCount, EdgeIndexable, EdgeRef, GraphBase, GraphProp, IntoEdgeReferences, IntoEdges,
    IntoNeighbors, IntoNodeIdentifiers, NodeCompactIndexable, NodeCount, NodeIndexable, VisitMap,
    Visitable,
};

use crate::{Fabric, Link, LinkId, Neighbor, NodeId, NodeInfo};

/// A set of visited nodes: one bit per node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeSet(FixedBitSet);

impl NodeSet {
    /// An empty set for a fabric of `nodes` nodes.
    #[must_use]
    pub fn with_capacity(nodes: usize) -> Self {
        Self(FixedBitSet::with_capacity(nodes))
    }
}

impl VisitMap<NodeId> for NodeSet {
    fn visit(&mut self, a: NodeId) -> bool {
        self.0.grow(a.index() + 1);
        !self.0.put(a.index())
    }

    fn is_visited(&self, a: &NodeId) -> bool {
        self.0.contains(a.index())
    }

    fn unvisit(&mut self, a: NodeId) -> bool {
        let was = self.0.contains(a.index());
        if was {
            self.0.set(a.index(), false);
        }
        was
    }
}

/// One link seen from one of its ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkRef<'a> {
    source: NodeId,
    target: NodeId,
    id: LinkId,
    link: &'a Link,
}

impl EdgeRef for LinkRef<'_> {
    type NodeId = NodeId;
    type EdgeId = LinkId;
    type Weight = Link;

    fn source(&self) -> NodeId {
        self.source
    }

    fn target(&self) -> NodeId {
        self.target
    }

    fn weight(&self) -> &Link {
        self.link
    }

    fn id(&self) -> LinkId {
        self.id
    }
}

impl GraphBase for Fabric {
    type EdgeId = LinkId;
    type NodeId = NodeId;
}

impl Data for Fabric {
    type NodeWeight = NodeInfo;
    type EdgeWeight = Link;
}

impl GraphProp for Fabric {
    type EdgeType = Undirected;
}

impl NodeCount for Fabric {
    fn node_count(&self) -> usize {
        Self::node_count(self)
    }
}

impl EdgeCount for Fabric {
    fn edge_count(&self) -> usize {
        self.link_count()
    }
}

impl NodeIndexable for Fabric {
    fn node_bound(&self) -> usize {
        Self::node_count(self)
    }

    fn to_index(&self, a: NodeId) -> usize {
        a.index()
    }

    fn from_index(&self, i: usize) -> NodeId {
        NodeId::new(i as u32)
    }
}

impl NodeCompactIndexable for Fabric {}

impl EdgeIndexable for Fabric {
    fn edge_bound(&self) -> usize {
        self.link_count()
    }

    fn to_index(&self, a: LinkId) -> usize {
        a.index()
    }

    fn from_index(&self, i: usize) -> LinkId {
        LinkId::new(i as u32)
    }
}

impl Visitable for Fabric {
    type Map = NodeSet;

    fn visit_map(&self) -> NodeSet {
        NodeSet::with_capacity(Self::node_count(self))
    }

    fn reset_map(&self, map: &mut NodeSet) {
        map.0.clear();
        map.0.grow(Self::node_count(self));
    }
}

/// Neighbours of a node, one per connected port (parallel links repeat a neighbour).
pub type Neighbors<'a> = std::iter::Map<crate::fabric::Neighbors<'a>, fn(Neighbor) -> NodeId>;

/// Links at a node, as [`LinkRef`]s with the node as source.
#[derive(Debug, Clone)]
pub struct Edges<'a> {
    fabric: &'a Fabric,
    source: NodeId,
    inner: crate::fabric::Neighbors<'a>,
}

impl<'a> Iterator for Edges<'a> {
    type Item = LinkRef<'a>;

    fn next(&mut self) -> Option<LinkRef<'a>> {
        let n = self.inner.next()?;
        Some(LinkRef {
            source: self.source,
            target: n.peer,
            id: n.link,
            link: self.fabric.link(n.link),
        })
    }
}

/// Every link once, from its lower end.
#[derive(Debug, Clone)]
pub struct EdgeReferences<'a> {
    links: std::iter::Enumerate<std::slice::Iter<'a, Link>>,
}

impl<'a> Iterator for EdgeReferences<'a> {
    type Item = LinkRef<'a>;

    fn next(&mut self) -> Option<LinkRef<'a>> {
        let (i, l) = self.links.next()?;
        Some(LinkRef {
            source: l.ends[0].0,
            target: l.ends[1].0,
            id: LinkId::new(i as u32),
            link: l,
        })
    }
}

fn peer_of(n: Neighbor) -> NodeId {
    n.peer
}

impl<'a> IntoNeighbors for &'a Fabric {
    type Neighbors = Neighbors<'a>;

    fn neighbors(self, a: NodeId) -> Neighbors<'a> {
        Fabric::neighbors(self, a).map(peer_of as fn(Neighbor) -> NodeId)
    }
}

impl<'a> IntoEdgeReferences for &'a Fabric {
    type EdgeRef = LinkRef<'a>;
    type EdgeReferences = EdgeReferences<'a>;

    fn edge_references(self) -> EdgeReferences<'a> {
        EdgeReferences {
            links: self.links().iter().enumerate(),
        }
    }
}

impl<'a> IntoEdges for &'a Fabric {
    type Edges = Edges<'a>;

    fn edges(self, a: NodeId) -> Edges<'a> {
        Edges {
            fabric: self,
            source: a,
            inner: Fabric::neighbors(self, a),
        }
    }
}

impl IntoNodeIdentifiers for &Fabric {
    type NodeIdentifiers = std::iter::Map<std::ops::Range<u32>, fn(u32) -> NodeId>;

    fn node_identifiers(self) -> Self::NodeIdentifiers {
        (0..Fabric::node_count(self) as u32).map(NodeId::new as fn(u32) -> NodeId)
    }
}
