//! Bridges from a fabric and a placement to what the other crates of the workspace take:
//!
//! - [`latency_matrix`]: rank-to-rank latencies (topo-cluster's latency matrix) from min-hop
//!   paths, the links' latencies and rates, and a [`LatencyModel`];
//! - [`NodeMap`]: which ranks share a node (pmix-kvs's node map), from a placement;
//! - the fabric's [`Link`](crate::Link)s carry the rate and latency that rdma-window's
//!   simulated link and dag-sched's per-link capacities take, and [`crate::paths`] the
//!   min-hop routes a flow simulator follows.

use crate::paths::{DirectedLink, min_hop_path};
use crate::{BitsPerSec, Bytes, Error, Fabric, HopTable, Nanos, NodeId};

/// How a message's one-way latency is made from its path (cut-through forwarding):
///
/// `latency = Σ link latency + switches crossed × per_switch + size / slowest link rate`
///
/// and `intra_node` for two ranks on one terminal. The link latencies are the fabric's own
/// ([`Link::latency`](crate::Link::latency): cable plus switch hop for generated fabrics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LatencyModel {
    /// Message size serialised once, at the slowest link of the path.
    pub message: Bytes,
    /// Added for every switch crossed, beyond the links' own latency.
    pub per_switch: Nanos,
    /// Latency between two ranks on the same terminal (shared memory).
    pub intra_node: Nanos,
}

impl LatencyModel {
    /// The latency of a `message`-byte message, with no per-switch extra and a zero
    /// intra-node latency.
    #[must_use]
    pub const fn new(message: Bytes) -> Self {
        Self {
            message,
            per_switch: Nanos::ZERO,
            intra_node: Nanos::ZERO,
        }
    }

    /// Sets the latency added per switch crossed.
    #[must_use]
    pub const fn per_switch(mut self, per_switch: Nanos) -> Self {
        self.per_switch = per_switch;
        self
    }

    /// Sets the latency between ranks on one terminal.
    #[must_use]
    pub const fn intra_node(mut self, intra_node: Nanos) -> Self {
        self.intra_node = intra_node;
        self
    }

    /// The latency of `path` by this model (`intra_node` for an empty path); saturates at
    /// [`Nanos::MAX`].
    #[must_use]
    pub fn path_latency(&self, fabric: &Fabric, path: &[DirectedLink]) -> Nanos {
        if path.is_empty() {
            return self.intra_node;
        }
        let mut total = Nanos::ZERO;
        let mut slowest = BitsPerSec::new(u64::MAX);
        for d in path {
            let l = fabric.link(d.link());
            total = total.saturating_add(l.latency);
            slowest = slowest.min(l.rate.bandwidth());
        }
        let switches = path.len() as u64 - 1;
        total = total.saturating_add(self.per_switch.checked_mul(switches).unwrap_or(Nanos::MAX));
        let ser = slowest.transfer_time(self.message).unwrap_or(Nanos::MAX);
        total.saturating_add(ser)
    }
}

/// The one-way latency between every pair of ranks, row-major (`out[a * n + b]` for
/// `n = ranks.len()`), where `ranks[r]` is the terminal of rank `r` (a placement, as
/// [`place`](crate::place) returns). Each terminal pair's path is computed once.
///
/// # Errors
/// The errors of [`min_hop_path`]: an unknown node, a foreign hop table, or two ranks that
/// cannot reach each other.
///
/// # Complexity
/// O(T² × hops × radix + n²) for T distinct terminals among the `n` ranks.
///
/// ```
/// use fabric_model::{bridge, generators, place, Bytes, HopTable, Nanos, Placement};
///
/// let f = generators::fat_tree(4)?;
/// let hops = HopTable::new(&f)?;
/// let ranks = place(f.terminals(), 8, 2, Placement::Block)?; // two ranks a terminal
/// let model = bridge::LatencyModel::new(Bytes::new(0)).intra_node(Nanos::new(50));
/// let m = bridge::latency_matrix(&f, &hops, &ranks, &model)?;
/// assert_eq!(m[0 * 8 + 1], Nanos::new(50)); // ranks 0 and 1 share a terminal
/// assert_eq!(m[0 * 8 + 2], Nanos::new(200)); // two 100 ns links through their leaf switch
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn latency_matrix(
    fabric: &Fabric,
    hops: &HopTable,
    ranks: &[NodeId],
    model: &LatencyModel,
) -> Result<Vec<Nanos>, Error> {
    let map = NodeMap::new(ranks);
    let t = map.node_count();
    let mut per_pair = vec![Nanos::ZERO; t * t];
    let mut path = Vec::new();
    for a in 0..t {
        for b in 0..t {
            if a == b {
                per_pair[a * t + b] = model.intra_node;
                continue;
            }
            path.clear();
            min_hop_path(fabric, hops, map.nodes[a], map.nodes[b], &mut path)?;
            per_pair[a * t + b] = model.path_latency(fabric, &path);
        }
    }
    let n = ranks.len();
    let mut out = Vec::with_capacity(n * n);
    for &na in &map.node_of {
        for &nb in &map.node_of {
            out.push(per_pair[na as usize * t + nb as usize]);
        }
    }
    Ok(out)
}

/// Which ranks share a node: the nodes of a placement, numbered in order of first
/// appearance, with each node's ranks in rank order.
///
/// ```
/// use fabric_model::{bridge::NodeMap, NodeId};
///
/// let map = NodeMap::new(&[NodeId::new(7), NodeId::new(9), NodeId::new(7)]);
/// assert_eq!(map.node_count(), 2);
/// assert_eq!(map.node_of(2), Some(0));
/// assert_eq!(map.ranks_on(0), &[0, 2]);
/// assert_eq!(map.terminal(1), Some(NodeId::new(9)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeMap {
    /// Node index of each rank.
    node_of: Vec<u32>,
    /// Terminal of each node index.
    nodes: Vec<NodeId>,
    /// Ranks of node `i`: `ranks[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    ranks: Vec<u32>,
}

impl NodeMap {
    /// The node map of a placement: `ranks[r]` is the terminal of rank `r`.
    ///
    /// # Complexity
    /// O(n) expected.
    #[must_use]
    pub fn new(ranks: &[NodeId]) -> Self {
        let mut index: crate::hash::FxHashMap<NodeId, u32> = crate::hash::FxHashMap::default();
        let mut nodes = Vec::new();
        let node_of: Vec<u32> = ranks
            .iter()
            .map(|&t| {
                *index.entry(t).or_insert_with(|| {
                    nodes.push(t);
                    (nodes.len() - 1) as u32
                })
            })
            .collect();
        let mut start = vec![0u32; nodes.len() + 1];
        for &n in &node_of {
            start[n as usize + 1] += 1;
        }
        for i in 0..nodes.len() {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut by_node = vec![0u32; node_of.len()];
        for (r, &n) in node_of.iter().enumerate() {
            by_node[fill[n as usize] as usize] = r as u32;
            fill[n as usize] += 1;
        }
        Self {
            node_of,
            nodes,
            start,
            ranks: by_node,
        }
    }

    /// Number of distinct nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of ranks.
    #[must_use]
    pub fn rank_count(&self) -> usize {
        self.node_of.len()
    }

    /// The node index of `rank`, or `None` past the last rank.
    #[must_use]
    pub fn node_of(&self, rank: u32) -> Option<usize> {
        self.node_of.get(rank as usize).map(|&n| n as usize)
    }

    /// The ranks on node `node`, in rank order (empty past the last node).
    #[must_use]
    pub fn ranks_on(&self, node: usize) -> &[u32] {
        match (self.start.get(node), self.start.get(node + 1)) {
            (Some(&a), Some(&b)) => &self.ranks[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The terminal of node `node`.
    #[must_use]
    pub fn terminal(&self, node: usize) -> Option<NodeId> {
        self.nodes.get(node).copied()
    }

    /// The node index of each rank, in rank order.
    #[must_use]
    pub fn nodes_of_ranks(&self) -> &[u32] {
        &self.node_of
    }
}

#[cfg(all(test, feature = "generators"))]
mod tests {
    use super::*;
    use crate::{Placement, generators, place};

    #[test]
    fn latency_follows_the_model_on_a_torus() {
        let f = generators::torus(&[4, 4], 1).unwrap();
        let hops = HopTable::new(&f).unwrap();
        let ranks = place(f.terminals(), 16, 1, Placement::Block).unwrap();
        let model = LatencyModel::new(Bytes::new(1250)).per_switch(Nanos::new(10));
        let m = latency_matrix(&f, &hops, &ranks, &model).unwrap();
        for a in 0..16 {
            for b in 0..16 {
                let want = if a == b {
                    Nanos::ZERO
                } else {
                    let links = u64::from(hops.between(&f, ranks[a], ranks[b]).unwrap());
                    // 100 ns a link, 10 ns a switch, 1250 B at 100 Gb/s = 100 ns.
                    Nanos::new(100 * links + 10 * (links - 1) + 100)
                };
                assert_eq!(m[a * 16 + b], want, "{a} {b}");
            }
        }
    }

    #[test]
    fn node_map_groups_ranks_by_terminal() {
        let t: Vec<NodeId> = (0..3).map(NodeId::new).collect();
        let ranks = place(&t, 7, 3, Placement::RoundRobin).unwrap();
        let map = NodeMap::new(&ranks);
        assert_eq!(map.node_count(), 3);
        assert_eq!(map.rank_count(), 7);
        assert_eq!(map.ranks_on(0), &[0, 3, 6]);
        assert_eq!(map.ranks_on(2), &[2, 5]);
        assert_eq!(map.ranks_on(3), &[] as &[u32]);
        assert_eq!(map.node_of(7), None);
        assert_eq!(map.nodes_of_ranks(), &[0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(map.terminal(1), Some(NodeId::new(1)));
    }
}
