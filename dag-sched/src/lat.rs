//! Latest-arrival-time (LAT) estimation: the paper's Algorithm 1 with formula (1), read
//! literally (a sum, the default) and with a max (ours), and the textbook backward
//! critical-path pass beside them.
//!
//! Terms (paper §2): transfer `j` is a *predecessor transfer* of `i` (`j ∈ pred(i)`) when a path
//! leads from `j` to `i` or to a compute task that consumes `i`. Which transfers these are does
//! not depend on how the job's nodes are numbered. The paper's example has one transfer per
//! compute task; when two transfers feed the same task (a layer's weights and biases) each
//! would otherwise precede the other, and the larger is counted first (on equal sizes, the one
//! first in topological order), which keeps `pred` acyclic. `comp(j→i)` is the longest
//! compute time on such a path (compute tasks strictly between the two ends), and
//! `trans(i) = S_i / C_i` is `i`'s transfer time at full rate, with `C_i` the smallest capacity
//! on its route ([`Cluster::path_capacity`]: `min(egress(src), ingress(dst))` on the big
//! switch). Times are `f64` seconds after the job's start.
//!
//! What is ours and not the paper's: `trans(i)` is the time alone at the full rate of the
//! route. The paper says its heuristic "considers the DAG and the network state together"
//! (§2) and that LAT "is closely tied to the cluster's resources" (§1.2), but gives no
//! formula for the network state; the estimate here ignores the load the route carries when
//! the job arrives. The lower bound `head(i) + trans(i)` for a transfer that follows compute
//! is ours too (the paper's transfers have no predecessors).
//!
//! # Formula (1) on the paper's Fig. 4, three ways
//!
//! The job (as we read the figure): a compute chain C1→C2→C3→C4→C5 with loads 1, 2, 1, 2, 1 on
//! machine 3; T1, T2 (sizes 1, 2) from machine 1 and T3, T4 (sizes 2, 1) from machine 2 feed
//! C1, C2, C3, C4; every port at rate 1. `pred(T4) = {T1, T2, T3}` as the paper says, with
//! `comp(T1→T4) = L1 + L2 + L3 = 4`, `comp(T2→T4) = 3`, `comp(T3→T4) = 1`.
//!
//! | transfer | literal sum ([`LatMethod::Algorithm1`], default) | max reading ([`LatMethod::Algorithm1Max`], ours) | critical path ([`LatMethod::BackwardCpm`], ours) |
//! |---|---|---|---|
//! | T1 | 1 | 1 | 1 |
//! | T2 | 1 + 1 + 2 = 4 | 1 + max(1, 2) = 3 | 2 |
//! | T3 | max(1 + 3 + 2, 4 + 2 + 2) = 8 | max(1 + 3, 3 + 2) = 5 | 4 |
//! | T4 | max(1 + 4 + 1, 4 + 3 + 1, 8 + 1 + 1) = 10 | max(1 + 4, 3 + 3, 5 + 1) = 6 | 5 |
//! | the job ends (T4 at its LAT, then L4 + L5) | 13 | 9 | 8 |
//!
//! The paper defines LAT as the latest arrival that does not delay the consumer (§1.2). The
//! literal sum adds `trans(i)` after the compute between `j` and `i`, though `i` can be sent
//! while that compute runs, so each LAT lands later than its consumer could start and a plan
//! that sends a transfer just before its LAT delays the job (13 s). The max reading counts the
//! compute and `i`'s own sending as overlapping: with the four transfers sent one after
//! another through machine 3's ingress (6 s of bits), each arrives exactly at its LAT and C5
//! ends at 9 s, the earliest the shared ingress allows. The critical path at full rate lets
//! every transfer use the ingress at once: its LATs (1, 2, 4, 5 s) cannot all be met through
//! one port of rate 1 (8 s would need 6 s of bits in 5 s).

use crate::Error;
use crate::cluster::Cluster;
use crate::job::{Job, NodeKind, TaskId};

/// Which LAT estimate to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum LatMethod {
    /// The paper's Algorithm 1 and formula (1): `l_i = max_{j∈pred(i)} (l_j + comp(j→i) + trans(i))`.
    #[default]
    Algorithm1,
    /// Backward critical-path pass: the latest finish of each transfer that does not delay the
    /// job's critical-path makespan when every transfer runs alone at full rate.
    BackwardCpm,
    /// Ours, a reading of formula (1) with a max where the paper writes a sum:
    /// `l_i = max_{j∈pred(i)} (l_j + max(comp(j→i), trans(i)))`, with the same lower bound
    /// `head(i) + trans(i)` and the same rounds as [`LatMethod::Algorithm1`]. `i` is due no
    /// sooner than the compute between `j` and `i`'s consumer allows after `j` arrives, and no
    /// sooner than `trans(i)` after `j` (sent after it on the link they share). On the paper's
    /// Fig. 4 job this gives 1, 3, 5, 6 s and the job ends at 9 s, the transfers arriving just
    /// as their consumers can start (the paper's definition of LAT, §1.2), where the literal
    /// sum gives 1, 4, 8, 10 s and an end at 13 s.
    Algorithm1Max,
}

/// LAT (and earliest arrival) of every transfer of one job, relative to the job's start.
#[derive(Debug, Clone, PartialEq)]
pub struct Lat {
    lat: Vec<Option<f64>>,
    eat: Vec<Option<f64>>,
    makespan: f64,
}

impl Lat {
    /// The LAT of `node` (seconds after the job's start), `None` for a compute task or an unknown id.
    #[must_use]
    pub fn lat(&self, node: TaskId) -> Option<f64> {
        self.lat.get(node.index()).copied().flatten()
    }

    /// The LAT of transfer `node` (seconds after the job's start), checked: what a caller
    /// with a transfer id of the job (from [`Job::transfers`]) can use without unwrapping.
    ///
    /// # Errors
    /// [`Error::ForeignNode`] for an id that is not a node of the job; [`Error::NotATransfer`]
    /// for a compute task.
    pub fn get(&self, node: TaskId) -> Result<f64, Error> {
        match self.lat.get(node.index()) {
            Some(Some(l)) => Ok(*l),
            Some(None) => Err(Error::NotATransfer { node }),
            None => Err(Error::ForeignNode {
                node,
                nodes: self.lat.len(),
            }),
        }
    }

    /// The earliest arrival of transfer `node` when everything runs at full rate (forward pass).
    #[must_use]
    pub fn eat(&self, node: TaskId) -> Option<f64> {
        self.eat.get(node.index()).copied().flatten()
    }

    /// The critical-path length of the job at full rate (the forward pass's makespan).
    #[must_use]
    pub fn makespan(&self) -> f64 {
        self.makespan
    }
}

/// `trans(i)`: transfer time of a transfer node alone at full rate; 0 for compute.
///
/// # Errors
/// [`Error::ForeignNode`] when `node` is not a node of `job`.
pub fn trans(job: &Job, cluster: &Cluster, node: TaskId) -> Result<f64, Error> {
    Ok(trans_of(job.get(node)?, cluster))
}

/// `trans` of a node of a job validated against `cluster`.
pub(crate) fn trans_of(node: NodeKind, cluster: &Cluster) -> f64 {
    match node {
        NodeKind::Transfer { size, src, dst } => {
            let c = cluster.path_capacity(src, dst);
            if c > 0.0 { size / c } else { f64::INFINITY }
        }
        NodeKind::Compute { .. } => 0.0,
    }
}

fn load(job: &Job, n: TaskId) -> f64 {
    match job.node(n) {
        NodeKind::Compute { load } => load,
        NodeKind::Transfer { .. } => 0.0,
    }
}

/// Forward and backward passes shared by both methods: earliest finish of every node.
fn forward(job: &Job, cluster: &Cluster) -> (Vec<f64>, f64) {
    let mut ef = vec![0.0f64; job.len()];
    for &n in job.topo_order() {
        let start = job
            .preds(n)
            .iter()
            .map(|p| ef[p.index()])
            .fold(0.0, f64::max);
        let dur = match job.node(n) {
            NodeKind::Compute { load } => load,
            NodeKind::Transfer { .. } => trans_of(job.node(n), cluster),
        };
        ef[n.index()] = start + dur;
    }
    let makespan = ef.iter().copied().fold(0.0, f64::max);
    (ef, makespan)
}

/// The order in which Algorithm 1 counts transfers that reach each other's consumers: by the
/// depth of the first consumer (a sink transfer counts as consuming itself one level below),
/// then the larger transfer first, then the topological position. For transfers with one
/// consumer each, a strict path between their consumers always agrees with the first key, so
/// only transfers that share a consumer (a layer's weights and biases) are ordered by size, and
/// only equal-sized ones sharing a consumer fall back to the numbering.
fn count_order(job: &Job, pos: &[usize], level: &[usize]) -> Vec<(usize, f64, usize)> {
    let n = job.len();
    (0..n)
        .map(|v| {
            let id = TaskId::new(v as u32);
            let size = match job.node(id) {
                NodeKind::Transfer { size, .. } => size,
                NodeKind::Compute { .. } => 0.0,
            };
            (first_consumer_level(job, level, id), size, pos[v])
        })
        .collect()
}

/// The depth of every node: 0 without predecessors, else one more than its deepest predecessor.
fn levels(job: &Job) -> Vec<usize> {
    let mut level = vec![0usize; job.len()];
    for &v in job.topo_order() {
        level[v.index()] = job
            .preds(v)
            .iter()
            .map(|p| level[p.index()] + 1)
            .max()
            .unwrap_or(0);
    }
    level
}

/// The depth of `v`'s shallowest consumer (one below `v` for a node without any).
fn first_consumer_level(job: &Job, level: &[usize], v: TaskId) -> usize {
    job.succs(v)
        .iter()
        .map(|s| level[s.index()])
        .min()
        .unwrap_or(level[v.index()] + 1)
}

/// Whether transfer `t` has a *late* consumer: one deeper than its shallowest.
fn reads_late(job: &Job, level: &[usize], t: TaskId) -> bool {
    let first = first_consumer_level(job, level, t);
    job.succs(t).iter().any(|c| level[c.index()] > first)
}

/// For every node `v`, the smallest count rank (from `from` on) of a transfer with a late
/// consumer strictly below `v` (`usize::MAX` for none): a walk may end at `v` only for a guard
/// counted before that rank (see [`algorithm1`]). `rank` is every transfer's place in the
/// count order (`usize::MAX` for compute tasks). O(V + E).
fn late_under(job: &Job, level: &[usize], rank: &[usize], from: usize) -> Vec<usize> {
    let n = job.len();
    // The smallest such rank at `v` or below it.
    let mut at_or_below = vec![usize::MAX; n];
    for &t in job.transfers() {
        if rank[t.index()] < from {
            continue;
        }
        let first = first_consumer_level(job, level, t);
        for &c in job.succs(t) {
            if level[c.index()] > first {
                at_or_below[c.index()] = at_or_below[c.index()].min(rank[t.index()]);
            }
        }
    }
    let mut under = vec![usize::MAX; n];
    for &v in job.topo_order().iter().rev() {
        let below = job
            .succs(v)
            .iter()
            .map(|s| at_or_below[s.index()])
            .min()
            .unwrap_or(usize::MAX);
        under[v.index()] = below;
        at_or_below[v.index()] = at_or_below[v.index()].min(below);
    }
    under
}

/// Where [`algorithm1`]'s walks end: at a node `v` with a *guard*, a transfer not yet in
/// DoneSet that is `v` or feeds `v`, counted before every transfer not in DoneSet that reads
/// late below `v`.
struct Guards {
    enabled: bool,
    level: Vec<usize>,
    rank: Vec<usize>,
    /// [`late_under`] for the transfers not in DoneSet; recomputed each time a transfer that
    /// reads late joins DoneSet (O(L · (V + E)) for L such transfers).
    late_under: Vec<usize>,
}

impl Guards {
    /// `j` has joined DoneSet (every transfer counted before it is there already).
    fn done(&mut self, job: &Job, j: TaskId) {
        if self.enabled && reads_late(job, &self.level, j) {
            self.late_under = late_under(job, &self.level, &self.rank, self.rank[j.index()] + 1);
        }
    }

    /// Whether the walk of `j` ends at `v`.
    fn ends_at(&self, job: &Job, j: TaskId, v: TaskId) -> bool {
        if !self.enabled {
            return false;
        }
        let done = self.rank[j.index()];
        let own = if job.node(v).is_transfer() {
            self.rank[v.index()]
        } else {
            usize::MAX
        };
        let guard = job
            .preds(v)
            .iter()
            .map(|p| self.rank[p.index()])
            .filter(|&r| r > done && r != usize::MAX)
            .fold(own, usize::min);
        guard < self.late_under[v.index()]
    }
}

/// `head(i)` of every node: the longest compute path that must finish before it can start
/// (for a transfer, the compute that must precede it being sent).
fn heads(job: &Job) -> Vec<f64> {
    let n = job.len();
    let mut ef_comp = vec![0.0f64; n];
    for &v in job.topo_order() {
        let start = job
            .preds(v)
            .iter()
            .map(|p| ef_comp[p.index()])
            .fold(0.0, f64::max);
        ef_comp[v.index()] = start + load(job, v);
    }
    (0..n)
        .map(|v| {
            job.preds(TaskId::new(v as u32))
                .iter()
                .map(|p| ef_comp[p.index()])
                .fold(0.0, f64::max)
        })
        .collect()
}

/// Topological position of every node.
fn positions(job: &Job) -> Vec<usize> {
    let mut pos = vec![0usize; job.len()];
    for (k, v) in job.topo_order().iter().enumerate() {
        pos[v.index()] = k;
    }
    pos
}

/// The transfers of `job` in [`count_order`]: every `j ∈ pred(i)` comes before `i`.
fn counted_transfers(job: &Job, pos: &[usize], level: &[usize]) -> Vec<TaskId> {
    let key = count_order(job, pos, level);
    let mut order = job.transfers().to_vec();
    order.sort_by(|&j, &i| {
        let (a, b) = (key[j.index()], key[i.index()]);
        a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2))
    });
    order
}

/// The longest compute paths out of one transfer, over the nodes it reaches: `best[v]` is the
/// longest sum of compute loads strictly between the transfer and `v`, `-∞` where it does not
/// reach. Reused from one transfer to the next (only the nodes reached are reset), so that
/// Algorithm 1 needs O(V) memory however many transfers precede each other.
struct Reach {
    best: Vec<f64>,
    queued: Vec<bool>,
    /// Topological positions to visit, smallest first.
    heap: std::collections::BinaryHeap<std::cmp::Reverse<usize>>,
    /// The nodes reached by the last [`Reach::from`], in topological order.
    reached: Vec<TaskId>,
    /// The reached transfers whose consumers were not walked (a guard ended the walk there).
    stopped: Vec<TaskId>,
}

impl Reach {
    fn new(n: usize) -> Self {
        Self {
            best: vec![f64::NEG_INFINITY; n],
            queued: vec![false; n],
            heap: std::collections::BinaryHeap::new(),
            reached: Vec::new(),
            stopped: Vec::new(),
        }
    }

    /// Fills `best` and `reached` for the paths out of transfer `j` (the previous call's are
    /// reset first), not walking past a reached node with a guard (the transfers among them
    /// listed in `stopped`). O(R log R) for the R nodes and edges walked.
    fn from(&mut self, job: &Job, pos: &[usize], guards: &Guards, j: TaskId) {
        for v in self.reached.drain(..) {
            self.best[v.index()] = f64::NEG_INFINITY;
            self.queued[v.index()] = false;
        }
        self.stopped.clear();
        let topo = job.topo_order();
        self.best[j.index()] = 0.0;
        self.queued[j.index()] = true;
        self.reached.push(j);
        for &s in job.succs(j) {
            if !self.queued[s.index()] {
                self.queued[s.index()] = true;
                self.heap.push(std::cmp::Reverse(pos[s.index()]));
            }
        }
        while let Some(std::cmp::Reverse(k)) = self.heap.pop() {
            let v = topo[k];
            // Every predecessor of `v` that `j` reaches comes before `v` in topological
            // order, so its value is final (the others are -∞).
            let mut b = f64::NEG_INFINITY;
            for &p in job.preds(v) {
                let bp = self.best[p.index()];
                if bp > f64::NEG_INFINITY {
                    let add = if p == j { 0.0 } else { load(job, p) };
                    b = b.max(bp + add);
                }
            }
            self.best[v.index()] = b;
            self.reached.push(v);
            if guards.ends_at(job, j, v) {
                if job.node(v).is_transfer() {
                    self.stopped.push(v);
                }
                continue;
            }
            for &s in job.succs(v) {
                if !self.queued[s.index()] {
                    self.queued[s.index()] = true;
                    self.heap.push(std::cmp::Reverse(pos[s.index()]));
                }
            }
        }
    }
}

/// Estimates the LAT of every transfer of `job` with `method`.
///
/// Algorithm 1 (paper §2), step by step:
/// - ①: loop while TodoSet or ReadySet is non-empty;
/// - ②–⑥: move every transfer of TodoSet whose predecessor transfers are all in DoneSet to ReadySet;
/// - ⑦–⑪: for each transfer `i` of ReadySet, start from `l_i = 0` and raise it to
///   `l_j + comp(j→i) + trans(i)` for every `j ∈ pred(i)` (formula (1)); move `i` to DoneSet.
///
/// A transfer without predecessor transfers gets `head(i) + trans(i)`, where `head(i)` is the
/// compute that must precede it (0 in the paper, where transfers have no predecessors): line ⑧'s
/// `l_i = 0` would otherwise give a transfer no time to be sent. The same lower bound is kept for
/// every transfer.
///
/// Which transfers are ready together does not change any value: `l_i` reads only the
/// `l_j` of `pred(i)`, which are final once in DoneSet. The transfers are therefore taken
/// one at a time in an order that every `pred` relation follows (the count order below), each
/// ready when it is reached, and each done transfer `j` is pushed into the running maximum of
/// every later transfer it reaches (or whose consumer it reaches) by one walk over the nodes
/// it reaches: the `pred` sets, O(T²) pairs, are never stored.
///
/// A walk from `j` ends at a transfer `i` it reaches, once `i`'s own running maximum and
/// those of the transfers sharing `i`'s consumers have `j`'s value: every transfer further
/// down is counted after `i` and gets from `i` at least what it would get from `j` through
/// `i` (`l_i ≥ l_j + comp(j→i)`, and `l_i ≥ l_j` in the max reading). That holds unless a
/// transfer counted after `j` and before `i` has a consumer below `i` deeper than its
/// shallowest one (a weight read again far down the DAG); the walk goes on past such an `i`.
/// The values are the
/// paper's rounds up to the rounding of the sums (a path's loads added from `i` rather than
/// from `j`): the tests compare them with the rounds over stored `pred` sets, and the walks
/// without this ending bit for bit.
///
/// # Complexity
/// O(V + E) for the passes over the DAG, plus O(Σ_j W_j log W_j) for the walks, W_j the nodes
/// and edges transfer `j` reaches before the transfers that end its walk, and O(V + E) again
/// each time a transfer that reads late is counted: linear in the DAG when every transfer's
/// consumers sit at one depth (a long chain of transfers through compute, the layered jobs of
/// [`workload`](crate::workload), whose transfers each feed one task) or a few transfers read
/// late, at worst O(T · (V + E) log V) for T transfers. O(V) memory besides the job (linear however many
/// transfers precede each other: a 10,000-way fan-in or a long chain).
#[must_use]
pub fn estimate(job: &Job, cluster: &Cluster, method: LatMethod) -> Lat {
    let (ef, makespan) = forward(job, cluster);
    let eat: Vec<Option<f64>> = job
        .nodes()
        .iter()
        .enumerate()
        .map(|(i, k)| k.is_transfer().then(|| ef[i]))
        .collect();
    let lat = match method {
        LatMethod::Algorithm1 => algorithm1(job, cluster, false, Walks::Ended),
        LatMethod::Algorithm1Max => algorithm1(job, cluster, true, Walks::Ended),
        LatMethod::BackwardCpm => backward(job, cluster, makespan),
    };
    Lat { lat, eat, makespan }
}

/// How far [`algorithm1`]'s walks go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walks {
    /// Ended at the transfers that dominate what lies below them (the default).
    Ended,
    /// Over everything each transfer reaches (the tests' bit-exact reference).
    #[cfg_attr(not(test), allow(dead_code))]
    Whole,
}

/// Algorithm 1 with formula (1) as a sum, or with `max_reading` as
/// [`LatMethod::Algorithm1Max`].
fn algorithm1(job: &Job, cluster: &Cluster, max_reading: bool, walks: Walks) -> Vec<Option<f64>> {
    let n = job.len();
    let pos = positions(job);
    let level = levels(job);
    let order = counted_transfers(job, &pos, &level);
    let rank = ranks(n, &order);
    let enabled = walks == Walks::Ended;
    let late_under = if enabled {
        late_under(job, &level, &rank, 0)
    } else {
        Vec::new()
    };
    let guards = Guards {
        enabled,
        level,
        rank,
        late_under,
    };
    walk(job, cluster, max_reading, &pos, order, guards)
}

/// Every transfer's place in `order` (`usize::MAX` for the other nodes).
fn ranks(n: usize, order: &[TaskId]) -> Vec<usize> {
    let mut rank = vec![usize::MAX; n];
    for (k, t) in order.iter().enumerate() {
        rank[t.index()] = k;
    }
    rank
}

/// [`algorithm1`]'s rounds over the transfers in count `order`, walks ending at `guards`.
fn walk(
    job: &Job,
    cluster: &Cluster,
    max_reading: bool,
    pos: &[usize],
    order: Vec<TaskId>,
    mut guards: Guards,
) -> Vec<Option<f64>> {
    let n = job.len();
    let head = heads(job);
    // Per transfer not yet in DoneSet: the largest `l_j + comp(j→i)` over the transfers `j`
    // already done that reach it or its consumers, -∞ for none; and (the max reading) the
    // largest such `l_j`.
    let mut acc = vec![f64::NEG_INFINITY; n];
    let mut acc_l = vec![f64::NEG_INFINITY; if max_reading { n } else { 0 }];
    let mut done = vec![false; n];
    let mut l: Vec<Option<f64>> = vec![None; n];
    let mut reach = Reach::new(n);
    // ①–⑥: in the count order every transfer's pred set is in DoneSet when it is reached,
    // so it is ready then, and the rounds are walked one transfer at a time.
    for j in order {
        // ⑦–⑪: formula (1), `l_i = max_j (l_j + comp(j→i) + trans(i))`, with `head(i) +
        // trans(i)` as the lower bound; the same value as raising `l_i` pred by pred (adding
        // `trans(i)` after the maximum rounds the same way as before it).
        let t = trans_of(job.node(j), cluster);
        let lj = if max_reading {
            // max_j (l_j + max(comp, t)) = max(max_j (l_j + comp), max_j l_j + t).
            (head[j.index()] + t)
                .max(acc[j.index()])
                .max(acc_l[j.index()] + t)
        } else {
            head[j.index()].max(acc[j.index()]) + t
        };
        l[j.index()] = Some(lj);
        done[j.index()] = true;
        // `j` joins the pred set of every transfer after it in the count order that it
        // reaches, or whose consumer it reaches.
        guards.done(job, j);
        reach.from(job, pos, &guards, j);
        for &v in &reach.reached[1..] {
            let c = lj + reach.best[v.index()];
            if job.node(v).is_transfer() && !done[v.index()] {
                acc[v.index()] = acc[v.index()].max(c);
                if max_reading {
                    acc_l[v.index()] = acc_l[v.index()].max(lj);
                }
            }
            for &i in job.preds(v) {
                if !done[i.index()] && job.node(i).is_transfer() {
                    acc[i.index()] = acc[i.index()].max(c);
                    if max_reading {
                        acc_l[i.index()] = acc_l[i.index()].max(lj);
                    }
                }
            }
        }
        // A walk ended at `i`: the transfers sharing `i`'s consumers still get `j`'s value
        // through `i` (a transfer adds no load); `i` gives everything below.
        for &i in &reach.stopped {
            let c = lj + reach.best[i.index()];
            for &s in job.succs(i) {
                for &k in job.preds(s) {
                    if k != i && !done[k.index()] && job.node(k).is_transfer() {
                        acc[k.index()] = acc[k.index()].max(c);
                        if max_reading {
                            acc_l[k.index()] = acc_l[k.index()].max(lj);
                        }
                    }
                }
            }
        }
    }
    l
}

fn backward(job: &Job, cluster: &Cluster, makespan: f64) -> Vec<Option<f64>> {
    let n = job.len();
    let mut lf = vec![makespan; n];
    for &v in job.topo_order().iter().rev() {
        let mut f = makespan;
        for &s in job.succs(v) {
            let dur = match job.node(s) {
                NodeKind::Compute { load } => load,
                NodeKind::Transfer { .. } => trans_of(job.node(s), cluster),
            };
            f = f.min(lf[s.index()] - dur);
        }
        lf[v.index()] = f;
    }
    job.nodes()
        .iter()
        .enumerate()
        .map(|(i, k)| k.is_transfer().then(|| lf[i]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::MachineId;
    use crate::job::JobBuilder;
    use fabric_model::BitsPerSec;

    /// The quadratic-memory reading kept as the oracle of [`algorithm1`]: every `pred(i)` with
    /// `comp(j→i)` stored (O(T²) pairs), and `head(i)`.
    fn pred_transfers(job: &Job) -> (Vec<Vec<(TaskId, f64)>>, Vec<f64>) {
        let n = job.len();
        let topo = job.topo_order();
        let pos = positions(job);
        let key = count_order(job, &pos, &levels(job));
        let before = |j: TaskId, i: TaskId| {
            let (a, b) = (key[j.index()], key[i.index()]);
            a.0.cmp(&b.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.cmp(&b.2))
                .is_lt()
        };
        let mut preds: Vec<Vec<(TaskId, f64)>> = vec![Vec::new(); n];
        let mut best = vec![f64::NEG_INFINITY; n];
        for &j in job.transfers() {
            best.iter_mut().for_each(|b| *b = f64::NEG_INFINITY);
            best[j.index()] = 0.0;
            for &v in &topo[pos[j.index()] + 1..] {
                let mut b = f64::NEG_INFINITY;
                for &p in job.preds(v) {
                    let bp = best[p.index()];
                    if bp > f64::NEG_INFINITY {
                        let add = if p == j { 0.0 } else { load(job, p) };
                        b = b.max(bp + add);
                    }
                }
                best[v.index()] = b;
            }
            for &i in job.transfers() {
                if i == j || !before(j, i) {
                    continue;
                }
                // Targets: i itself and the compute tasks consuming i (a path into i's consumer
                // passes through i's own compute predecessor, never through i's load, which is 0).
                let mut c = best[i.index()];
                for &s in job.succs(i) {
                    c = c.max(best[s.index()]);
                }
                if c > f64::NEG_INFINITY {
                    preds[i.index()].push((j, c));
                }
            }
        }
        let head = heads(job);
        (preds, head)
    }

    /// The oracle of [`algorithm1`]: the paper's rounds over stored `pred` sets, readiness
    /// counted per transfer.
    fn algorithm1_rounds(job: &Job, cluster: &Cluster) -> Vec<Option<f64>> {
        let (pred, head) = pred_transfers(job);
        let mut l: Vec<Option<f64>> = vec![None; job.len()];
        // For each transfer, how many of its predecessor transfers are not yet in DoneSet, and the
        // reverse relation, so a round touches only the transfers whose state changes.
        let mut missing: Vec<usize> = pred.iter().map(Vec::len).collect();
        let mut succ: Vec<Vec<TaskId>> = vec![Vec::new(); job.len()];
        for &i in job.transfers() {
            for &(j, _) in &pred[i.index()] {
                succ[j.index()].push(i);
            }
        }
        let mut todo = job.transfers().len();
        // ②–⑥ for the first round: transfers with no predecessor transfer are ready.
        let mut ready: Vec<TaskId> = job
            .transfers()
            .iter()
            .copied()
            .filter(|i| missing[i.index()] == 0)
            .collect();
        todo -= ready.len();
        // ①
        while todo > 0 || !ready.is_empty() {
            assert!(
                !ready.is_empty(),
                "pred(i) follows the topological order, so some transfer is always ready"
            );
            // ⑦–⑪: l_i from formula (1), then i moves to DoneSet.
            let mut next = Vec::new();
            for &i in &ready {
                let t = trans_of(job.node(i), cluster);
                let mut li = head[i.index()] + t;
                for &(j, comp) in &pred[i.index()] {
                    let lj = l[j.index()].unwrap_or(0.0);
                    li = li.max(lj + comp + t); // formula (1)
                }
                l[i.index()] = Some(li);
            }
            // ②–⑥ for the next round: TodoSet members whose predecessors are now all done.
            for &i in &ready {
                for &k in &succ[i.index()] {
                    missing[k.index()] -= 1;
                    if missing[k.index()] == 0 {
                        next.push(k);
                    }
                }
            }
            todo -= next.len();
            ready = next;
        }
        l
    }

    /// Fig. 4 as we read it: compute chain C1→C2→C3→C4→C5 with loads 1,2,1,2,1 on machine 3
    /// (index 2); T1, T2 (sizes 1, 2) from machine 1 and T3, T4 (sizes 2, 1) from machine 2 feed
    /// C1..C4; unit bandwidth. This gives pred(T1) = ∅ and pred(T4) = {T1, T2, T3}, as the paper says.
    fn fig4() -> (Job, Cluster, [TaskId; 4]) {
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let c: Vec<TaskId> = [1.0, 2.0, 1.0, 2.0, 1.0]
            .iter()
            .map(|&l| b.compute_secs(l))
            .collect();
        let src = [
            MachineId::new(0),
            MachineId::new(0),
            MachineId::new(1),
            MachineId::new(1),
        ];
        let t: Vec<TaskId> = [1.0, 2.0, 2.0, 1.0]
            .iter()
            .zip(src)
            .map(|(&s, m)| b.transfer_bits(s, m, MachineId::new(2)))
            .collect();
        for k in 0..4 {
            b.edge(c[k], c[k + 1]);
            b.edge(t[k], c[k]);
        }
        (
            b.build(&cluster).unwrap(),
            cluster,
            [t[0], t[1], t[2], t[3]],
        )
    }

    #[test]
    fn fig4_pred_sets() {
        let (job, _, t) = fig4();
        let (pred, _) = pred_transfers(&job);
        assert!(pred[t[0].index()].is_empty());
        let p4: Vec<(TaskId, f64)> = pred[t[3].index()].clone();
        assert_eq!(p4, vec![(t[0], 4.0), (t[1], 3.0), (t[2], 1.0)]);
    }

    #[test]
    fn fig4_algorithm1() {
        let (job, cluster, t) = fig4();
        let lat = estimate(&job, &cluster, LatMethod::Algorithm1);
        // l1 = trans(1) = 1; l2 = 1 + L1 + 2 = 4; l3 = max(1+3+2, 4+2+2) = 8; l4 = max(1+4+1, 4+3+1, 8+1+1) = 10.
        let got: Vec<f64> = t.iter().map(|&n| lat.lat(n).unwrap()).collect();
        assert_eq!(got, vec![1.0, 4.0, 8.0, 10.0]);
        assert_eq!(lat.lat(TaskId::new(0)), None);
    }

    /// The max reading of formula (1) on Fig. 4: l1 = 1; l2 = 1 + max(L1, 2) = 3;
    /// l3 = max(1 + max(3, 2), 3 + max(2, 2)) = 5; l4 = max(1 + max(4, 1), 3 + max(3, 1),
    /// 5 + max(1, 1)) = 6. Sent in that order through machine 3's ingress, each transfer
    /// arrives exactly then (1, 3, 5, 6) and the job ends at 6 + L4 + L5 = 9 s, as early as
    /// the shared ingress allows; the literal sum's LATs end it at 10 + 3 = 13 s.
    #[test]
    fn fig4_algorithm1_max_reading() {
        let (job, cluster, t) = fig4();
        let lat = estimate(&job, &cluster, LatMethod::Algorithm1Max);
        let got: Vec<f64> = t.iter().map(|&n| lat.lat(n).unwrap()).collect();
        assert_eq!(got, vec![1.0, 3.0, 5.0, 6.0]);
        let sum = estimate(&job, &cluster, LatMethod::Algorithm1);
        // The job's end when its last transfer arrives at its LAT: + L4 + L5.
        assert_eq!(lat.lat(t[3]).unwrap() + 3.0, 9.0);
        assert_eq!(sum.lat(t[3]).unwrap() + 3.0, 13.0);
        assert_eq!(lat.lat(TaskId::new(0)), None);
    }

    #[test]
    fn fig4_backward() {
        let (job, cluster, t) = fig4();
        let lat = estimate(&job, &cluster, LatMethod::BackwardCpm);
        assert_eq!(lat.makespan(), 8.0);
        let got: Vec<f64> = t.iter().map(|&n| lat.lat(n).unwrap()).collect();
        assert_eq!(got, vec![1.0, 2.0, 4.0, 5.0]);
        let eat: Vec<f64> = t.iter().map(|&n| lat.eat(n).unwrap()).collect();
        assert_eq!(eat, vec![1.0, 2.0, 2.0, 1.0]);
    }

    #[test]
    fn chain_of_transfers_through_compute() {
        // T1 -> C1(3) -> T2 -> C2(1): T2 is sent after C1; pred(T2) = {T1}, comp = 3.
        let cluster = Cluster::uniform(2, BitsPerSec::new(2)).unwrap();
        let mut b = JobBuilder::new();
        let t1 = b.transfer_bits(4.0, MachineId::new(0), MachineId::new(1));
        let c1 = b.compute_secs(3.0);
        let t2 = b.transfer_bits(2.0, MachineId::new(1), MachineId::new(0));
        let c2 = b.compute_secs(1.0);
        b.edge(t1, c1).edge(c1, t2).edge(t2, c2);
        let job = b.build(&cluster).unwrap();
        let a1 = estimate(&job, &cluster, LatMethod::Algorithm1);
        assert_eq!(a1.lat(t1), Some(2.0));
        assert_eq!(a1.lat(t2), Some(2.0 + 3.0 + 1.0));
        let bw = estimate(&job, &cluster, LatMethod::BackwardCpm);
        // A chain is all critical: LAT = EAT.
        assert_eq!(bw.lat(t1), bw.eat(t1));
        assert_eq!(bw.lat(t2), Some(6.0));
        assert_eq!(bw.makespan(), 7.0);
    }

    #[test]
    fn diamond() {
        // T1 -> C1(1) -> {C2(4), C3(1)} -> C4(1); T2 -> C3, T3 -> C4. Unit sizes, bandwidth 1.
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let c1 = b.compute_secs(1.0);
        let c2 = b.compute_secs(4.0);
        let c3 = b.compute_secs(1.0);
        let c4 = b.compute_secs(1.0);
        let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
        let t2 = b.transfer_bits(1.0, MachineId::new(1), MachineId::new(2));
        let t3 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
        b.edge(t1, c1)
            .edge(c1, c2)
            .edge(c1, c3)
            .edge(c2, c4)
            .edge(c3, c4);
        b.edge(t2, c3).edge(t3, c4);
        let job = b.build(&cluster).unwrap();
        let a1 = estimate(&job, &cluster, LatMethod::Algorithm1);
        assert_eq!(a1.lat(t1), Some(1.0));
        // pred(T2) = {T1}: comp = C1 = 1.
        assert_eq!(a1.lat(t2), Some(1.0 + 1.0 + 1.0));
        // pred(T3) = {T1, T2}: via T1 the longest compute path is C1 + C2 = 5; via T2 it is C3 = 1.
        assert_eq!(a1.lat(t3), Some((1.0f64 + 5.0 + 1.0).max(3.0 + 1.0 + 1.0)));
        let bw = estimate(&job, &cluster, LatMethod::BackwardCpm);
        // Critical path T1 C1 C2 C4: makespan 7; T2 may arrive as late as C3's latest start 5.
        assert_eq!(bw.makespan(), 7.0);
        assert_eq!(bw.lat(t2), Some(5.0));
        assert_eq!(bw.lat(t3), Some(6.0));
        assert_eq!(bw.lat(t1), Some(1.0));
    }

    #[test]
    fn shared_consumer_is_ordered_topologically() {
        // Weights (2) and biases (1) of one layer feed the same task: the earlier transfer in
        // topological order counts first on the shared link, the later gets l = l_w + 0 + 1.
        let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let w = b.transfer_bits(2.0, MachineId::new(0), MachineId::new(1));
        let bias = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(1));
        let c = b.compute_secs(1.0);
        b.edge(w, c).edge(bias, c);
        let job = b.build(&cluster).unwrap();
        let a1 = estimate(&job, &cluster, LatMethod::Algorithm1);
        assert_eq!(a1.lat(w), Some(2.0));
        assert_eq!(a1.lat(bias), Some(3.0));
    }

    /// A chain C1→C2→C3 fed by T1, T2, T3, its nodes created in `order` (indices into
    /// [C1, C2, C3, T1, T2, T3]); returns the job and the ids of T1..T3.
    fn chain(order: [usize; 6]) -> (Job, Cluster, [TaskId; 3]) {
        let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let mut id = [TaskId::new(0); 6];
        for k in order {
            id[k] = if k < 3 {
                b.compute_secs(1.0)
            } else {
                b.transfer_bits(1.0, MachineId::new(0), MachineId::new(1))
            };
        }
        b.edge(id[0], id[1]).edge(id[1], id[2]);
        for k in 0..3 {
            b.edge(id[3 + k], id[k]);
        }
        (b.build(&cluster).unwrap(), cluster, [id[3], id[4], id[5]])
    }

    #[test]
    fn chain_listed_in_reverse_keeps_its_predecessors() {
        // Regression: pred(i) was limited to transfers before i in topological order, which
        // for transfers (no predecessors) is their id order: listing T3, T2, T1 first dropped
        // every predecessor and each LAT collapsed to the transfer's own time.
        let (fwd, cluster, tf) = chain([0, 1, 2, 3, 4, 5]);
        let (rev, _, tr) = chain([5, 4, 3, 2, 1, 0]);
        let (pf, _) = pred_transfers(&fwd);
        let (pr, _) = pred_transfers(&rev);
        assert_eq!(pf[tf[2].index()], vec![(tf[0], 2.0), (tf[1], 1.0)]);
        let mut p3 = pr[tr[2].index()].clone();
        p3.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert_eq!(p3, vec![(tr[0], 2.0), (tr[1], 1.0)]);
        let a = estimate(&fwd, &cluster, LatMethod::Algorithm1);
        let b = estimate(&rev, &cluster, LatMethod::Algorithm1);
        // l1 = 1; l2 = 1 + 1 + 1 = 3; l3 = max(1 + 2 + 1, 3 + 1 + 1) = 5.
        for k in 0..3 {
            assert_eq!(a.lat(tf[k]), Some([1.0, 3.0, 5.0][k]));
            assert_eq!(b.lat(tr[k]), a.lat(tf[k]), "T{}", k + 1);
        }
    }

    #[test]
    fn shared_consumer_order_does_not_depend_on_ids() {
        // The biases created before the weights: the larger (weights) is still counted first.
        let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let bias = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(1));
        let w = b.transfer_bits(2.0, MachineId::new(0), MachineId::new(1));
        let c = b.compute_secs(1.0);
        b.edge(w, c).edge(bias, c);
        let job = b.build(&cluster).unwrap();
        let a1 = estimate(&job, &cluster, LatMethod::Algorithm1);
        assert_eq!(a1.lat(w), Some(2.0));
        assert_eq!(a1.lat(bias), Some(3.0));
    }

    /// One abstract node of a random job: a compute load or a transfer `(size, src, dst)`.
    #[derive(Clone, Copy)]
    enum Spec {
        Compute(f64),
        Transfer(f64, u32, u32),
    }

    /// Builds `specs` with `edges` (spec indices), creating the nodes in the order of `keys`
    /// (a renumbering); returns the job and each spec's id.
    fn build_renumbered(
        specs: &[Spec],
        edges: &[(usize, usize)],
        keys: &[u32],
        cluster: &Cluster,
    ) -> (Job, Vec<TaskId>) {
        let mut order: Vec<usize> = (0..specs.len()).collect();
        order.sort_by_key(|&k| (keys[k % keys.len()], k));
        let mut b = JobBuilder::new();
        let mut id = vec![TaskId::new(0); specs.len()];
        for k in order {
            id[k] = match specs[k] {
                Spec::Compute(l) => b.compute_secs(l),
                Spec::Transfer(s, from, to) => {
                    b.transfer_bits(s, MachineId::new(from), MachineId::new(to))
                }
            };
        }
        for &(x, y) in edges {
            b.edge(id[x], id[y]);
        }
        (b.build(cluster).unwrap(), id)
    }

    #[test]
    fn trans_of_a_foreign_node_is_a_typed_error() {
        // Regression: `trans` indexed the job with the id and panicked on one of another job.
        let (job, cluster, t) = fig4();
        assert_eq!(trans(&job, &cluster, t[1]), Ok(2.0));
        assert_eq!(trans(&job, &cluster, TaskId::new(0)), Ok(0.0));
        assert_eq!(
            trans(&job, &cluster, TaskId::new(9)),
            Err(Error::ForeignNode {
                node: TaskId::new(9),
                nodes: 9
            })
        );
    }

    #[test]
    fn checked_lat_names_what_is_wrong() {
        let (job, cluster, t) = fig4();
        let lat = estimate(&job, &cluster, LatMethod::Algorithm1);
        assert_eq!(lat.get(t[3]), Ok(10.0));
        assert_eq!(
            lat.get(TaskId::new(0)),
            Err(Error::NotATransfer {
                node: TaskId::new(0)
            })
        );
        assert_eq!(
            lat.get(TaskId::new(9)),
            Err(Error::ForeignNode {
                node: TaskId::new(9),
                nodes: 9
            })
        );
    }

    #[test]
    fn the_linear_pass_gives_the_rounds_values_on_the_worked_examples() {
        let (job, cluster, _) = fig4();
        for walks in [Walks::Whole, Walks::Ended] {
            assert_eq!(
                algorithm1(&job, &cluster, false, walks),
                algorithm1_rounds(&job, &cluster)
            );
        }
        for order in [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [3, 0, 4, 1, 5, 2]] {
            let (job, cluster, _) = chain(order);
            for walks in [Walks::Whole, Walks::Ended] {
                assert_eq!(
                    algorithm1(&job, &cluster, false, walks),
                    algorithm1_rounds(&job, &cluster)
                );
            }
        }
    }

    /// A walk does not end at a transfer below which an earlier-counted transfer reads again:
    /// Ta (2 b) → C0 (1 s) → Ti (1 b) → C1 (2 s) → C2 (3 s) → C3; Tt (1 b) feeds Cx first
    /// and C3 late. Count order Ta, Tt (both first consumed at depth 1, the larger first), Ti.
    /// `pred(Tt) ∋ Ta` through Ti's consumers to C3: l_Tt = l_Ta + (1 + 2 + 3) + 1 = 9. Ti is
    /// counted after Tt and gives it nothing, so a walk from Ta ended at Ti would give 1.
    #[test]
    fn a_late_consumer_keeps_walks_going() {
        let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let c: Vec<TaskId> = [1.0, 2.0, 3.0, 1.0, 1.0]
            .iter()
            .map(|&l| b.compute_secs(l))
            .collect();
        let (c0, c1, c2, c3, cx) = (c[0], c[1], c[2], c[3], c[4]);
        let (m0, m1) = (MachineId::new(0), MachineId::new(1));
        let ta = b.transfer_bits(2.0, m0, m1);
        let ti = b.transfer_bits(1.0, m0, m1);
        let tt = b.transfer_bits(1.0, m0, m1);
        b.edge(ta, c0)
            .edge(c0, ti)
            .edge(ti, c1)
            .edge(c1, c2)
            .edge(c2, c3);
        b.edge(tt, cx).edge(tt, c3);
        let job = b.build(&cluster).unwrap();
        let rounds = algorithm1_rounds(&job, &cluster);
        assert_eq!(rounds[ta.index()], Some(2.0));
        assert_eq!(rounds[tt.index()], Some(9.0));
        assert_eq!(algorithm1(&job, &cluster, false, Walks::Ended), rounds);
        let pos = positions(&job);
        let level = levels(&job);
        let order = counted_transfers(&job, &pos, &level);
        assert_eq!(order, vec![ta, tt, ti]);
        let rank = ranks(job.len(), &order);
        let guards = |late_under| Guards {
            enabled: true,
            level: level.clone(),
            rank: rank.clone(),
            late_under,
        };
        let faithful = guards(late_under(&job, &level, &rank, 0));
        // Ta's walk: Ti guards itself (counted after Ta) but Tt, counted before Ti, reads
        // late at C3 below it; nothing guards C0 (Ta is in DoneSet).
        assert!(!faithful.ends_at(&job, ta, ti), "Tt reads again below Ti");
        assert!(!faithful.ends_at(&job, ta, c0));
        // Ti's walk: Tt is in DoneSet, C2 has no guard.
        assert!(!faithful.ends_at(&job, ti, c2));
        // Walks that ignore late reads end at Ti and lose Ta's path to C3 through it.
        let blind = guards(vec![usize::MAX; job.len()]);
        assert!(blind.ends_at(&job, ta, ti));
        let wrong = walk(&job, &cluster, false, &pos, order, blind);
        assert_eq!(wrong[tt.index()], Some(1.0));
    }

    /// Equal up to the rounding of sums of at most a few dozen terms.
    fn close(
        a: &[Option<f64>],
        b: &[Option<f64>],
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        proptest::prop_assert_eq!(a.len(), b.len());
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            match (x, y) {
                (Some(x), Some(y)) => proptest::prop_assert!(
                    (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0),
                    "node {}: {} vs {}",
                    k,
                    x,
                    y
                ),
                _ => proptest::prop_assert_eq!(x.is_some(), y.is_some(), "node {}", k),
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Renumbering the nodes of a random job changes neither a transfer's LAT (both
        /// methods) nor the LP optimum over the LAT windows. Transfer sizes are distinct, so
        /// no tie is left to the numbering.
        #[test]
        fn renumbering_changes_no_lat_nor_the_lp_optimum(
            loads in proptest::collection::vec(0u32..4, 2..7),
            transfers in 1usize..6,
            cedges in proptest::collection::vec((0usize..8, 0usize..8), 0..10),
            feeds in proptest::collection::vec((0usize..8, proptest::option::of(0usize..8), 0u32..3), 6),
            keys_a in proptest::collection::vec(proptest::prelude::any::<u32>(), 16),
            keys_b in proptest::collection::vec(proptest::prelude::any::<u32>(), 16),
        ) {
            let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
            let nc = loads.len();
            let mut specs: Vec<Spec> = loads.iter().map(|&l| Spec::Compute(f64::from(l))).collect();
            let mut edges = Vec::new();
            for &(x, y) in &cedges {
                let (x, y) = (x % nc, y % nc);
                if x < y {
                    edges.push((x, y));
                }
            }
            for (k, &(feed, pre, m)) in feeds.iter().take(transfers).enumerate() {
                let t = specs.len();
                // Distinct sizes 1.5, 2.5, ... so that no tie is broken by the numbering.
                specs.push(Spec::Transfer(k as f64 + 1.5, m, (m + 1) % 3));
                let feed = feed % nc;
                edges.push((t, feed));
                if let Some(p) = pre.map(|p| p % nc).filter(|&p| p < feed) {
                    edges.push((p, t));
                }
            }
            let (ja, ia) = build_renumbered(&specs, &edges, &keys_a, &cluster);
            let (jb, ib) = build_renumbered(&specs, &edges, &keys_b, &cluster);
            let mut lp_in = [Vec::new(), Vec::new()];
            for method in [LatMethod::Algorithm1, LatMethod::BackwardCpm] {
                let la = estimate(&ja, &cluster, method);
                let lb = estimate(&jb, &cluster, method);
                proptest::prop_assert_eq!(la.makespan(), lb.makespan());
                for (k, spec) in specs.iter().enumerate() {
                    proptest::prop_assert_eq!(la.lat(ia[k]), lb.lat(ib[k]), "spec {}", k);
                    if let (Spec::Transfer(s, from, to), LatMethod::Algorithm1) = (*spec, method) {
                        for (side, (lat, id)) in [(&la, &ia), (&lb, &ib)].into_iter().enumerate() {
                            let deadline = lat.lat(id[k]).unwrap();
                            lp_in[side].push(crate::lp::LpTransfer::new(
                                MachineId::new(from), MachineId::new(to), s, 0.0, deadline));
                        }
                    }
                }
            }
            let solve = |ts: &[crate::lp::LpTransfer]| crate::lp::solve(
                &cluster, ts, &crate::lp::Reservations::new(), fabric_model::Nanos::from_millis(500),
                crate::lp::Objective::MinMax, crate::lp::Backend::Microlp,
            ).map(|s| s.min_max);
            match (solve(&lp_in[0]), solve(&lp_in[1])) {
                (Ok(a), Ok(b)) => proptest::prop_assert!((a - b).abs() < 1e-9, "{} vs {}", a, b),
                (a, b) => proptest::prop_assert_eq!(a.is_ok(), b.is_ok()),
            }
        }


        /// On random DAGs with real-valued loads, sizes and capacities, shared consumers,
        /// transfers read again further down and transfers that feed transfers, the
        /// linear-memory pass gives the paper's rounds over stored `pred` sets: bit for bit
        /// with whole walks, and up to the sums' rounding with walks ended where the tail is
        /// dominated (both readings).
        #[test]
        fn the_linear_pass_is_the_rounds_bit_for_bit(
            loads in proptest::collection::vec(0.0f64..3.0, 1..9),
            sizes in proptest::collection::vec(0.001f64..5.0, 1..9),
            cedges in proptest::collection::vec((0usize..9, 0usize..9), 0..14),
            feeds in proptest::collection::vec((0usize..9, proptest::option::of(0usize..9), 0u32..3, proptest::bool::ANY), 9),
            again in proptest::collection::vec(proptest::option::of(0usize..9), 9),
            caps in proptest::collection::vec((1u64..4000, 1u64..4000), 3),
        ) {
            let machines: Vec<crate::cluster::Machine> = caps
                .iter()
                .map(|&(e, i)| crate::cluster::Machine::new(BitsPerSec::new(e), BitsPerSec::new(i)))
                .collect();
            let cluster = Cluster::new(machines).unwrap();
            let mut b = JobBuilder::new();
            let c: Vec<TaskId> = loads.iter().map(|&l| b.compute_secs(l)).collect();
            for &(x, y) in &cedges {
                let (x, y) = (x % c.len(), y % c.len());
                if x < y {
                    b.edge(c[x], c[y]);
                }
            }
            let mut ts: Vec<TaskId> = Vec::new();
            for (k, &s) in sizes.iter().enumerate() {
                let (feed, pre, m, chained) = feeds[k];
                let t = b.transfer_bits(s, MachineId::new(m), MachineId::new((m + 1) % 3));
                let feed = feed % c.len();
                // Sometimes into the previous transfer instead of a compute task.
                match ts.last() {
                    Some(&prev) if chained => b.edge(t, prev),
                    _ => b.edge(t, c[feed]),
                };
                if let Some(p) = pre.map(|p| p % c.len()).filter(|&p| p < feed) {
                    b.edge(c[p], t);
                }
                // Sometimes read again further down (a late consumer); a cycle is refused
                // by `build` and the case skipped.
                if let Some(x) = again[k].map(|x| x % c.len()).filter(|&x| x != feed) {
                    b.edge(t, c[x]);
                }
                ts.push(t);
            }
            let Ok(job) = b.build(&cluster) else {
                return Ok(());
            };
            let whole = algorithm1(&job, &cluster, false, Walks::Whole);
            let ended = algorithm1(&job, &cluster, false, Walks::Ended);
            let old = algorithm1_rounds(&job, &cluster);
            let bits = |v: &[Option<f64>]| v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(&whole), bits(&old));
            close(&ended, &old)?;
            // The max reading: ended walks against whole ones.
            close(
                &algorithm1(&job, &cluster, true, Walks::Ended),
                &algorithm1(&job, &cluster, true, Walks::Whole),
            )?;

        }

        /// On random layered DAGs: the backward LAT is never before the earliest arrival, some
        /// transfer on the critical path has no slack when a transfer ends it, and Algorithm 1's
        /// estimate is never below the transfer's own earliest arrival.
        #[test]
        fn lat_bounds(
            loads in proptest::collection::vec(0u32..4, 2..8),
            sizes in proptest::collection::vec(1u32..4, 1..6),
            edges in proptest::collection::vec((0usize..8, 0usize..8), 0..12),
            feeds in proptest::collection::vec(0usize..8, 6),
        ) {
            let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
            let mut b = JobBuilder::new();
            let c: Vec<TaskId> = loads.iter().map(|&l| b.compute_secs(f64::from(l))).collect();
            for &(x, y) in &edges {
                let (x, y) = (x % c.len(), y % c.len());
                if x < y {
                    b.edge(c[x], c[y]);
                }
            }
            let mut ts = Vec::new();
            for (k, &s) in sizes.iter().enumerate() {
                let t = b.transfer_bits(f64::from(s), MachineId::new(0), MachineId::new(1));
                b.edge(t, c[feeds[k] % c.len()]);
                ts.push(t);
            }
            let job = b.build(&cluster).unwrap();
            let bw = estimate(&job, &cluster, LatMethod::BackwardCpm);
            let a1 = estimate(&job, &cluster, LatMethod::Algorithm1);
            let am = estimate(&job, &cluster, LatMethod::Algorithm1Max);
            for &t in &ts {
                let eat = bw.eat(t).unwrap();
                proptest::prop_assert!(bw.lat(t).unwrap() >= eat - 1e-9);
                proptest::prop_assert!(bw.lat(t).unwrap() <= bw.makespan() + 1e-9);
                proptest::prop_assert!(a1.lat(t).unwrap() >= eat - 1e-9);
                // The max reading: never before the earliest arrival, never after the sum
                // (max(a, b) <= a + b for times and loads >= 0).
                proptest::prop_assert!(am.lat(t).unwrap() >= eat - 1e-9);
                proptest::prop_assert!(am.lat(t).unwrap() <= a1.lat(t).unwrap() + 1e-9);
            }
            let min_slack = ts.iter().map(|&t| bw.lat(t).unwrap() - bw.eat(t).unwrap()).fold(f64::INFINITY, f64::min);
            // Every compute chain starts from transfers or from time 0; when the longest path
            // starts at a transfer, that transfer has zero slack.
            let comp_only = {
                let mut ef = vec![0.0f64; job.len()];
                for &v in job.topo_order() {
                    let s = job.preds(v).iter().filter(|p| !job.node(**p).is_transfer()).map(|p| ef[p.index()]).fold(0.0, f64::max);
                    ef[v.index()] = s + load(&job, v);
                }
                ef.into_iter().fold(0.0, f64::max)
            };
            if bw.makespan() > comp_only + 1e-9 {
                proptest::prop_assert!(min_slack.abs() < 1e-9, "min slack {min_slack}");
            }
        }
    }
}
