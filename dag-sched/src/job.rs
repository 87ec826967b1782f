//! Jobs as DAGs of compute tasks and network transfers (paper §1.1).
//!
//! The builder takes sizes as [`Bytes`] and loads as [`Nanos`] ([`JobBuilder::transfer`],
//! [`JobBuilder::compute`]), or as the `f64` bits and seconds the models compute with
//! ([`JobBuilder::transfer_bits`], [`JobBuilder::compute_secs`]); a built job holds them as
//! `f64` bits and seconds ([`NodeKind`]).

use fabric_model::{Bytes, Nanos};

use crate::Error;
use crate::cluster::{Cluster, MachineId};

fabric_model::dense_id! {
    /// A task of one job: a compute task or a transfer (dense index in insertion order). Named
    /// `TaskId`, not `NodeId`, so that it does not clash with [`fabric_model::NodeId`], a node
    /// of a fabric. An id is an index into its own job: one of another job is refused where
    /// it falls outside this job ([`Job::get`], [`Error::ForeignNode`]; [`JobBuilder::build`]
    /// refuses such an edge with [`Error::UnknownNode`]), but one that happens to be in range
    /// cannot be told from this job's own.
    pub struct TaskId(u32);
    display = "n{}";
}

/// What a node of a job is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeKind {
    /// A compute task with load `L` (seconds of compute).
    Compute {
        /// Compute time in seconds.
        load: f64,
    },
    /// A network transfer of `size` bits from `src` to `dst`.
    Transfer {
        /// Size in bits.
        size: f64,
        /// Sending machine.
        src: MachineId,
        /// Receiving machine.
        dst: MachineId,
    },
}

impl NodeKind {
    /// Whether this node is a transfer.
    #[must_use]
    pub fn is_transfer(&self) -> bool {
        matches!(self, Self::Transfer { .. })
    }
}

/// Collects the nodes and edges of a job; [`JobBuilder::build`] validates them.
#[derive(Debug, Clone, Default)]
pub struct JobBuilder {
    nodes: Vec<NodeKind>,
    edges: Vec<(TaskId, TaskId)>,
    /// Whether a transfer may send from a machine to itself on a big switch.
    same_port: bool,
}

impl JobBuilder {
    /// An empty job.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Accepts transfers from a machine to itself on a big switch ([`Cluster::uniform`],
    /// [`Cluster::new`]), where such a transfer crosses the machine's egress port and then its
    /// ingress port, as any other transfer crosses its sender's egress and its receiver's
    /// ingress (coflowsim's model of a mapper and a reducer on one port). On a cluster built
    /// from a fabric ([`Cluster::from_fabric`]) they are still refused: a machine has no route
    /// to itself there. Off by default: [`JobBuilder::build`] refuses them with
    /// [`Error::SelfTransfer`].
    pub fn allow_same_port(&mut self) -> &mut Self {
        self.same_port = true;
        self
    }

    fn push(&mut self, kind: NodeKind) -> TaskId {
        let id = TaskId::new(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        self.nodes.push(kind);
        id
    }

    /// Adds a compute task that runs for `load`.
    pub fn compute(&mut self, load: Nanos) -> TaskId {
        self.compute_secs(load.as_secs_f64())
    }

    /// Adds a compute task of `load` seconds (a model's compute time is rarely a whole number
    /// of nanoseconds).
    pub fn compute_secs(&mut self, load: f64) -> TaskId {
        self.push(NodeKind::Compute { load })
    }

    /// Adds a transfer of `size` from `src` to `dst`.
    pub fn transfer(&mut self, size: Bytes, src: MachineId, dst: MachineId) -> TaskId {
        self.transfer_bits(size.bits_f64(), src, dst)
    }

    /// Adds a transfer of `size` bits from `src` to `dst` (a coflow trace splits a reducer's
    /// bytes over its mappers, so sizes need not be whole bytes).
    pub fn transfer_bits(&mut self, size: f64, src: MachineId, dst: MachineId) -> TaskId {
        self.push(NodeKind::Transfer { size, src, dst })
    }

    /// Adds the dependency `from → to` (`to` starts after `from` is done).
    pub fn edge(&mut self, from: TaskId, to: TaskId) -> &mut Self {
        self.edges.push((from, to));
        self
    }

    /// Number of nodes added so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Validates the job against `cluster` and freezes it.
    ///
    /// # Errors
    /// [`Error::UnknownNode`], [`Error::InvalidValue`], [`Error::UnknownMachine`],
    /// [`Error::SelfTransfer`] (unless [`JobBuilder::allow_same_port`] and `cluster` is a big
    /// switch), or [`Error::Cycle`] naming the nodes of one cycle.
    ///
    /// # Complexity
    /// O(V + E) time and space (Kahn's algorithm, then one DFS to name a cycle if any).
    pub fn build(self, cluster: &Cluster) -> Result<Job, Error> {
        let n = self.nodes.len();
        for (i, kind) in self.nodes.iter().enumerate() {
            let node = TaskId::new(u32::try_from(i).unwrap_or(u32::MAX));
            match *kind {
                NodeKind::Compute { load } => {
                    if !(load.is_finite() && load >= 0.0) {
                        return Err(Error::InvalidValue {
                            node,
                            what: "load",
                            value: load,
                        });
                    }
                }
                NodeKind::Transfer { size, src, dst } => {
                    if !(size.is_finite() && size >= 0.0) {
                        return Err(Error::InvalidValue {
                            node,
                            what: "size",
                            value: size,
                        });
                    }
                    for machine in [src, dst] {
                        if cluster.machine(machine).is_none() {
                            return Err(Error::UnknownMachine {
                                node,
                                machine,
                                machines: cluster.len(),
                            });
                        }
                    }
                    if src == dst && !(self.same_port && cluster.is_big_switch()) {
                        return Err(Error::SelfTransfer { node, machine: src });
                    }
                }
            }
        }
        let mut preds = vec![Vec::new(); n];
        let mut succs = vec![Vec::new(); n];
        for &(from, to) in &self.edges {
            for unknown in [from, to] {
                if unknown.index() >= n {
                    return Err(Error::UnknownNode { from, to, unknown });
                }
            }
            preds[to.index()].push(from);
            succs[from.index()].push(to);
        }
        for list in preds.iter_mut().chain(succs.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        let topo = kahn(&preds, &succs).ok_or_else(|| Error::Cycle {
            cycle: find_cycle(&succs),
        })?;
        let transfers = topo
            .iter()
            .copied()
            .filter(|id| self.nodes[id.index()].is_transfer())
            .collect();
        Ok(Job {
            nodes: self.nodes,
            preds,
            succs,
            topo,
            transfers,
        })
    }
}

fn kahn(preds: &[Vec<TaskId>], succs: &[Vec<TaskId>]) -> Option<Vec<TaskId>> {
    let n = preds.len();
    let mut indeg: Vec<usize> = preds.iter().map(Vec::len).collect();
    // A FIFO over ids keeps the order deterministic and close to insertion order.
    let mut queue: std::collections::VecDeque<TaskId> = (0..n)
        .filter(|&i| indeg[i] == 0)
        .map(|i| TaskId::new(i as u32))
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(v) = queue.pop_front() {
        order.push(v);
        for &s in &succs[v.index()] {
            indeg[s.index()] -= 1;
            if indeg[s.index()] == 0 {
                queue.push_back(s);
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// Iterative DFS with colours; returns one cycle (first node repeated at the end).
fn find_cycle(succs: &[Vec<TaskId>]) -> Vec<TaskId> {
    let n = succs.len();
    let mut colour = vec![0u8; n]; // 0 white, 1 on stack, 2 done
    let mut parent = vec![usize::MAX; n];
    for root in 0..n {
        if colour[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        colour[root] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&w) = succs[v].get(*next) {
                *next += 1;
                let w = w.index();
                if colour[w] == 0 {
                    colour[w] = 1;
                    parent[w] = v;
                    stack.push((w, 0));
                } else if colour[w] == 1 {
                    // Back edge v -> w: the cycle is w -> ... -> v -> w.
                    let mut cycle = vec![v];
                    let mut u = v;
                    while u != w {
                        u = parent[u];
                        cycle.push(u);
                    }
                    cycle.reverse();
                    cycle.push(w);
                    return cycle.into_iter().map(|i| TaskId::new(i as u32)).collect();
                }
            } else {
                colour[v] = 2;
                stack.pop();
            }
        }
    }
    Vec::new()
}

/// A validated job: an acyclic graph of compute tasks and transfers on machines of one cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    nodes: Vec<NodeKind>,
    preds: Vec<Vec<TaskId>>,
    succs: Vec<Vec<TaskId>>,
    topo: Vec<TaskId>,
    transfers: Vec<TaskId>,
}

impl Job {
    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the job has no node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node `id`.
    ///
    /// # Panics
    /// If `id` is not a node of this job; [`Job::get`] returns an error instead.
    #[must_use]
    pub fn node(&self, id: TaskId) -> NodeKind {
        self.nodes[id.index()]
    }

    /// The node `id`, checked.
    ///
    /// # Errors
    /// [`Error::ForeignNode`] when `id` is not a node of this job (an id of another job).
    pub fn get(&self, id: TaskId) -> Result<NodeKind, Error> {
        self.nodes
            .get(id.index())
            .copied()
            .ok_or(Error::ForeignNode {
                node: id,
                nodes: self.nodes.len(),
            })
    }

    /// Whether `id` is a node of this job.
    #[must_use]
    pub fn contains(&self, id: TaskId) -> bool {
        id.index() < self.nodes.len()
    }

    /// All nodes by id.
    #[must_use]
    pub fn nodes(&self) -> &[NodeKind] {
        &self.nodes
    }

    /// Direct predecessors of `id` (sorted).
    ///
    /// # Panics
    /// If `id` is not a node of this job (check with [`Job::get`] or [`Job::contains`]).
    #[must_use]
    pub fn preds(&self, id: TaskId) -> &[TaskId] {
        &self.preds[id.index()]
    }

    /// Direct successors of `id` (sorted).
    ///
    /// # Panics
    /// If `id` is not a node of this job (check with [`Job::get`] or [`Job::contains`]).
    #[must_use]
    pub fn succs(&self, id: TaskId) -> &[TaskId] {
        &self.succs[id.index()]
    }

    /// A topological order of all nodes (Kahn's, FIFO by id).
    #[must_use]
    pub fn topo_order(&self) -> &[TaskId] {
        &self.topo
    }

    /// The transfers in topological order.
    #[must_use]
    pub fn transfers(&self) -> &[TaskId] {
        &self.transfers
    }

    /// Total bits of all transfers.
    #[must_use]
    pub fn total_bits(&self) -> f64 {
        self.nodes
            .iter()
            .map(|k| match k {
                NodeKind::Transfer { size, .. } => *size,
                NodeKind::Compute { .. } => 0.0,
            })
            .sum()
    }

    /// Whether the job has at least one compute task (a "DAG job"; a job made of transfers only
    /// is a file-transfer or coflow job).
    #[must_use]
    pub fn has_compute(&self) -> bool {
        self.nodes.iter().any(|k| !k.is_transfer())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster() -> Cluster {
        Cluster::uniform(3, fabric_model::BitsPerSec::new(1)).unwrap()
    }

    #[test]
    fn topo_order_respects_edges() {
        let mut b = JobBuilder::new();
        let c2 = b.compute_secs(1.0);
        let t = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(1));
        let c1 = b.compute_secs(1.0);
        b.edge(t, c1).edge(c1, c2);
        let job = b.build(&cluster()).unwrap();
        let pos = |n: TaskId| job.topo_order().iter().position(|&x| x == n).unwrap();
        assert!(pos(t) < pos(c1) && pos(c1) < pos(c2));
        assert_eq!(job.transfers(), &[t]);
        assert!(job.has_compute());
    }

    #[test]
    fn cycle_is_named() {
        let mut b = JobBuilder::new();
        let a = b.compute_secs(1.0);
        let x = b.compute_secs(1.0);
        let y = b.compute_secs(1.0);
        let z = b.compute_secs(1.0);
        b.edge(a, x).edge(x, y).edge(y, z).edge(z, x);
        let err = b.build(&cluster()).unwrap_err();
        assert_eq!(
            err,
            Error::Cycle {
                cycle: vec![x, y, z, x]
            }
        );
        assert_eq!(
            err.to_string(),
            "job graph has a cycle: n1 -> n2 -> n3 -> n1"
        );
    }

    #[test]
    fn self_loop_is_a_cycle() {
        let mut b = JobBuilder::new();
        let a = b.compute_secs(1.0);
        b.edge(a, a);
        assert_eq!(
            b.build(&cluster()).unwrap_err(),
            Error::Cycle { cycle: vec![a, a] }
        );
    }

    #[test]
    fn unknown_node_in_edge() {
        let mut b = JobBuilder::new();
        let a = b.compute_secs(1.0);
        b.edge(a, TaskId::new(7));
        assert_eq!(
            b.build(&cluster()).unwrap_err(),
            Error::UnknownNode {
                from: a,
                to: TaskId::new(7),
                unknown: TaskId::new(7)
            }
        );
    }

    #[test]
    fn node_of_another_job_is_an_error() {
        // A job of 2 nodes and one of 4: the larger job's last id is not the smaller's.
        let mut small = JobBuilder::new();
        let a = small.compute_secs(1.0);
        let t = small.transfer_bits(1.0, MachineId::new(0), MachineId::new(1));
        small.edge(t, a);
        let small = small.build(&cluster()).unwrap();
        let mut big = JobBuilder::new();
        let ids: Vec<TaskId> = (0..4).map(|_| big.compute_secs(1.0)).collect();
        let big = big.build(&cluster()).unwrap();
        assert!(big.contains(ids[3]) && !small.contains(ids[3]));
        assert_eq!(
            small.get(ids[3]),
            Err(Error::ForeignNode {
                node: ids[3],
                nodes: 2
            })
        );
        assert_eq!(
            small.get(ids[3]).unwrap_err().to_string(),
            "node n3 is not a node of this job (2 nodes): an id from another job?"
        );
        assert_eq!(small.get(t), Ok(small.node(t)));
        // Estimating LATs never asks for it: a foreign id has no LAT.
        let lat = crate::lat::estimate(&small, &cluster(), crate::LatMethod::Algorithm1);
        assert_eq!(lat.lat(ids[3]), None);
        // An edge to another job's id is refused when the job is built.
        let mut b = JobBuilder::new();
        let c = b.compute_secs(1.0);
        b.edge(c, ids[3]);
        assert!(matches!(
            b.build(&cluster()),
            Err(Error::UnknownNode { unknown, .. }) if unknown == ids[3]
        ));
    }

    #[test]
    fn unknown_machine() {
        let mut b = JobBuilder::new();
        let t = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(3));
        assert_eq!(
            b.build(&cluster()).unwrap_err(),
            Error::UnknownMachine {
                node: t,
                machine: MachineId::new(3),
                machines: 3
            }
        );
    }

    #[test]
    fn self_transfer() {
        let mut b = JobBuilder::new();
        let t = b.transfer_bits(1.0, MachineId::new(2), MachineId::new(2));
        assert_eq!(
            b.build(&cluster()).unwrap_err(),
            Error::SelfTransfer {
                node: t,
                machine: MachineId::new(2)
            }
        );
    }

    #[test]
    fn invalid_values() {
        let mut b = JobBuilder::new();
        let c = b.compute_secs(-1.0);
        assert_eq!(
            b.build(&cluster()).unwrap_err(),
            Error::InvalidValue {
                node: c,
                what: "load",
                value: -1.0
            }
        );
        let mut b = JobBuilder::new();
        b.compute_secs(1.0);
        let t = b.transfer_bits(f64::INFINITY, MachineId::new(0), MachineId::new(1));
        assert!(matches!(
            b.build(&cluster()).unwrap_err(),
            Error::InvalidValue { node, what: "size", .. } if node == t
        ));
    }
}
