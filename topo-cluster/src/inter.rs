//! Inter-cluster broadcast scheduling, after L. A. Barchet-Steffenel and G. Mounié, *Scheduling
//! Heuristics for Efficient Broadcast Operations on Grid Environments* (IPDPS 2006 workshops),
//! with the FEF, ECEF and ECEF-with-look-ahead heuristics of P. B. Bhat, C. S. Raghavendra and
//! V. K. Prasanna, *Efficient collective communication in distributed heterogeneous systems*
//! (ICDCS 1999).
//!
//! Clusters 1..C, one coordinator each, root cluster r. Sending from cluster i to cluster j
//! costs c_ij = L_ij + g_ij(m) end to end and keeps i busy g_ij(m). A = clusters holding the
//! message (initially {r}), B = the others; RT_i = time i may start its next send. Choosing
//! edge (i, j): arrival a_j = RT_i + c_ij, RT_i += g_ij, RT_j = a_j, j moves to A. Cluster j
//! then needs its own intra-cluster broadcast time T_j: it completes at a_j + T_j (overlap
//! model) or RT_j(final) + T_j (serialized: the coordinator forwards first). Makespan =
//! max_j completion.

use std::fmt;

use fabric_model::Bytes;

use crate::Error;
use crate::plan::LinkModels;

/// Most clusters [`optimum`] accepts.
pub const MAX_EXHAUSTIVE_CLUSTERS: usize = 7;

/// One inter-cluster broadcast problem (times in ns).
#[derive(Debug, Clone, PartialEq)]
pub struct InterInstance {
    clusters: usize,
    root: usize,
    latency: Vec<f64>,
    gap: Vec<f64>,
    intra: Vec<f64>,
}

fn check_values(what: &'static str, v: &[f64]) -> Result<(), Error> {
    match v.iter().position(|x| !x.is_finite() || *x < 0.0) {
        Some(index) => Err(Error::InstanceValue {
            what,
            index,
            value: v[index],
        }),
        None => Ok(()),
    }
}

impl InterInstance {
    /// An instance from row-major C×C latencies L_ij and gaps g_ij(m) (diagonals ignored) and
    /// the intra-cluster broadcast time T_j of every cluster.
    ///
    /// # Errors
    /// [`Error::InstanceShape`], [`Error::InstanceValue`], [`Error::RootOutOfRange`].
    pub fn new(
        root: usize,
        latency: Vec<f64>,
        gap: Vec<f64>,
        intra: Vec<f64>,
    ) -> Result<Self, Error> {
        let c = intra.len();
        for (what, v) in [("latency", &latency), ("gap", &gap)] {
            if v.len() != c * c {
                return Err(Error::InstanceShape {
                    what,
                    len: v.len(),
                    expected: c * c,
                });
            }
        }
        check_values("latency", &latency)?;
        check_values("gap", &gap)?;
        check_values("intra", &intra)?;
        if root >= c {
            return Err(Error::RootOutOfRange { root, clusters: c });
        }
        Ok(Self {
            clusters: c,
            root,
            latency,
            gap,
            intra,
        })
    }

    /// The instance for an `m`-byte broadcast over measured per-pair models (see
    /// [`crate::plan::PlanResults::finish`]) and intra-cluster times `intra`.
    ///
    /// # Errors
    /// As [`InterInstance::new`], and [`Error::MissingModel`] for a pair without a model.
    pub fn from_models(
        models: &LinkModels,
        m: Bytes,
        intra: Vec<f64>,
        root: usize,
    ) -> Result<Self, Error> {
        let c = models.clusters();
        if intra.len() != c {
            return Err(Error::InstanceShape {
                what: "intra",
                len: intra.len(),
                expected: c,
            });
        }
        let mut latency = vec![0.0; c * c];
        let mut gap = vec![0.0; c * c];
        for i in 0..c {
            for j in (0..c).filter(|&j| j != i) {
                let p = models
                    .get(i, j)
                    .ok_or(Error::MissingModel { from: i, to: j })?;
                latency[i * c + j] = p.latency_ns();
                gap[i * c + j] = p.gap_ns(m);
            }
        }
        Self::new(root, latency, gap, intra)
    }

    /// Number of clusters.
    #[must_use]
    pub fn clusters(&self) -> usize {
        self.clusters
    }

    /// The root cluster.
    #[must_use]
    pub fn root(&self) -> usize {
        self.root
    }

    /// End-to-end cost c_ij = L_ij + g_ij.
    #[must_use]
    pub fn edge(&self, i: usize, j: usize) -> f64 {
        self.latency[i * self.clusters + j] + self.gap[i * self.clusters + j]
    }

    /// Time the sender is busy, g_ij.
    #[must_use]
    pub fn busy(&self, i: usize, j: usize) -> f64 {
        self.gap[i * self.clusters + j]
    }

    /// Intra-cluster broadcast time T_j.
    #[must_use]
    pub fn intra(&self, j: usize) -> f64 {
        self.intra[j]
    }
}

/// When a cluster counts as done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CompletionModel {
    /// The local broadcast starts on arrival, overlapping the coordinator's forwarding.
    #[default]
    Overlap,
    /// The local broadcast starts once the coordinator has finished forwarding.
    Serialized,
}

/// One inter-cluster message.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Transfer {
    /// Sending cluster (its coordinator).
    pub from: usize,
    /// Receiving cluster.
    pub to: usize,
    /// When the send starts.
    pub start_ns: f64,
    /// When the message has arrived.
    pub arrival_ns: f64,
}

/// A broadcast schedule: who sends to whom and when, in decision order, with each cluster's
/// completion time.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Schedule {
    /// The messages.
    pub transfers: Vec<Transfer>,
    /// Completion of every cluster (arrival or forwarding end, plus T_j).
    pub done_ns: Vec<f64>,
    /// The latest completion.
    pub makespan_ns: f64,
}

impl fmt::Display for Schedule {
    /// The makespan, then one line per transfer in decision order:
    ///
    /// ```text
    /// makespan 174.700 ms, 5 transfers
    ///   0 -> 4: start 0.000 ms, arrival 17.600 ms
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |ns: f64| ns / 1e6;
        write!(
            f,
            "makespan {:.3} ms, {} transfers",
            ms(self.makespan_ns),
            self.transfers.len()
        )?;
        for t in &self.transfers {
            write!(
                f,
                "\n  {} -> {}: start {:.3} ms, arrival {:.3} ms",
                t.from,
                t.to,
                ms(t.start_ns),
                ms(t.arrival_ns)
            )?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct State {
    ready: Vec<f64>,
    arrival: Vec<f64>,
    /// The clusters holding the message. A `Vec<bool>`, not a `bitvec::BitVec`: on the exhaustive
    /// search (the hot path, 20 instances of 7 clusters, group `topo_bitvec_holds` of
    /// `benches/criterion/benches/topo_cluster.rs`) bitvec took 538 µs against 392 µs (and 608 against
    /// 474 µs in a second run), its bit reads and the leaf clones costing more than bytes.
    holds: Vec<bool>,
    transfers: Vec<Transfer>,
}

impl State {
    fn new(inst: &InterInstance) -> Self {
        let mut holds = vec![false; inst.clusters];
        holds[inst.root] = true;
        Self {
            ready: vec![0.0; inst.clusters],
            arrival: vec![0.0; inst.clusters],
            holds,
            transfers: Vec::with_capacity(inst.clusters.saturating_sub(1)),
        }
    }

    fn apply(&mut self, inst: &InterInstance, i: usize, j: usize) {
        let start = self.ready[i];
        let arrival = start + inst.edge(i, j);
        self.ready[i] = start + inst.busy(i, j);
        self.ready[j] = arrival;
        self.arrival[j] = arrival;
        self.holds[j] = true;
        self.transfers.push(Transfer {
            from: i,
            to: j,
            start_ns: start,
            arrival_ns: arrival,
        });
    }

    fn finish(self, inst: &InterInstance, model: CompletionModel) -> Schedule {
        let done_ns: Vec<f64> = (0..inst.clusters)
            .map(|j| {
                let base = match model {
                    CompletionModel::Overlap => self.arrival[j],
                    CompletionModel::Serialized => self.ready[j],
                };
                base + inst.intra[j]
            })
            .collect();
        let makespan_ns = done_ns.iter().copied().fold(0.0, f64::max);
        Schedule {
            transfers: self.transfers,
            done_ns,
            makespan_ns,
        }
    }

    fn pending(&self) -> Vec<usize> {
        (0..self.holds.len()).filter(|&j| !self.holds[j]).collect()
    }

    fn holders(&self) -> Vec<usize> {
        (0..self.holds.len()).filter(|&j| self.holds[j]).collect()
    }
}

/// Replays a decision sequence (each a (sender, receiver) pair of clusters, sends as early as
/// possible) into a schedule.
///
/// # Errors
/// [`Error::InvalidDecision`] when a sender does not hold the message yet, the receiver
/// already does, or a cluster index is out of range.
///
/// # Complexity
/// O(C + D) for D decisions.
pub fn evaluate(
    inst: &InterInstance,
    decisions: &[(usize, usize)],
    model: CompletionModel,
) -> Result<Schedule, Error> {
    let mut s = State::new(inst);
    for (index, &(from, to)) in decisions.iter().enumerate() {
        let c = inst.clusters;
        if from >= c || to >= c || !s.holds[from] || s.holds[to] {
            return Err(Error::InvalidDecision { index, from, to });
        }
        s.apply(inst, from, to);
    }
    Ok(s.finish(inst, model))
}

/// The look-ahead term F(j, B) that ECEF with look-ahead adds to RT_i + c_ij (pluggable).
pub trait LookAhead: fmt::Debug {
    /// The term for receiving cluster `j`, `pending` being B ∖ {j}.
    fn term(&self, inst: &InterInstance, j: usize, pending: &[usize]) -> f64;
}

/// Bhat et al.'s look-ahead: F_j = min_{k ∈ B∖{j}} c_jk (0 when B∖{j} is empty).
#[derive(Debug, Clone, Copy, Default)]
pub struct MinEdge;

impl LookAhead for MinEdge {
    fn term(&self, inst: &InterInstance, j: usize, pending: &[usize]) -> f64 {
        pending
            .iter()
            .map(|&k| inst.edge(j, k))
            .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.min(x))))
            .unwrap_or(0.0)
    }
}

/// Barchet-Steffenel and Mounié's variant with intra times: F_j = min_{k ∈ B∖{j}} (c_jk + T_k).
#[derive(Debug, Clone, Copy, Default)]
pub struct MinEdgeIntra;

impl LookAhead for MinEdgeIntra {
    fn term(&self, inst: &InterInstance, j: usize, pending: &[usize]) -> f64 {
        pending
            .iter()
            .map(|&k| inst.edge(j, k) + inst.intra(k))
            .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.min(x))))
            .unwrap_or(0.0)
    }
}

/// Barchet-Steffenel and Mounié's variant with intra times: F_j = max_{k ∈ B∖{j}} (c_jk + T_k).
#[derive(Debug, Clone, Copy, Default)]
pub struct MaxEdgeIntra;

impl LookAhead for MaxEdgeIntra {
    fn term(&self, inst: &InterInstance, j: usize, pending: &[usize]) -> f64 {
        pending
            .iter()
            .map(|&k| inst.edge(j, k) + inst.intra(k))
            .fold(0.0, f64::max)
    }
}

/// The built-in heuristics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Heuristic {
    /// The root sends to every cluster, larger T_j first.
    FlatTree,
    /// Fastest Edge First: minimise c_ij.
    Fef,
    /// Earliest Completing Edge First: minimise RT_i + c_ij.
    Ecef,
    /// ECEF with look-ahead [`MinEdge`].
    EcefLa,
    /// ECEF with look-ahead [`MinEdgeIntra`].
    EcefLaMinIntra,
    /// ECEF with look-ahead [`MaxEdgeIntra`].
    EcefLaMaxIntra,
    /// BottomUp (max-min): serve the pending cluster that would finish last, from the sender
    /// that reaches it first.
    BottomUp,
}

impl Heuristic {
    /// Every built-in heuristic, in the order [`best_schedule`] tries them.
    pub const ALL: [Self; 7] = [
        Self::FlatTree,
        Self::Fef,
        Self::Ecef,
        Self::EcefLa,
        Self::EcefLaMinIntra,
        Self::EcefLaMaxIntra,
        Self::BottomUp,
    ];

    /// Short name used in tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::FlatTree => "flat-tree",
            Self::Fef => "fef",
            Self::Ecef => "ecef",
            Self::EcefLa => "ecef-la",
            Self::EcefLaMinIntra => "ecef-la-tmin",
            Self::EcefLaMaxIntra => "ecef-la-tmax",
            Self::BottomUp => "bottom-up",
        }
    }
}

impl fmt::Display for Heuristic {
    /// The short name ([`Heuristic::name`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Greedy edge selection: `score(state, i, j, f_j)` over i ∈ A, j ∈ B, smallest wins (ties:
/// smaller i, then smaller j). `look(j, B∖{j})` is computed once per j and step.
fn greedy(
    inst: &InterInstance,
    model: CompletionModel,
    look: Option<&dyn LookAhead>,
    score: impl Fn(&State, usize, usize, f64) -> f64,
) -> Schedule {
    let mut s = State::new(inst);
    for _ in 1..inst.clusters {
        let pending = s.pending();
        let holders = s.holders();
        let mut best: Option<(f64, usize, usize)> = None;
        let mut others = Vec::with_capacity(pending.len());
        for &j in &pending {
            let f = match look {
                Some(la) => {
                    others.clear();
                    others.extend(pending.iter().copied().filter(|&k| k != j));
                    la.term(inst, j, &others)
                }
                None => 0.0,
            };
            for &i in &holders {
                let v = score(&s, i, j, f);
                if best.is_none_or(|(b, bi, bj)| v < b || (v == b && (i, j) < (bi, bj))) {
                    best = Some((v, i, j));
                }
            }
        }
        if let Some((_, i, j)) = best {
            s.apply(inst, i, j);
        }
    }
    s.finish(inst, model)
}

/// ECEF with any look-ahead term: minimise RT_i + c_ij + F(j, B∖{j}).
///
/// # Complexity
/// O(C³) plus C² look-ahead evaluations.
#[must_use]
pub fn ecef_with_lookahead(
    inst: &InterInstance,
    look: &dyn LookAhead,
    model: CompletionModel,
) -> Schedule {
    greedy(inst, model, Some(look), |s, i, j, f| {
        s.ready[i] + inst.edge(i, j) + f
    })
}

/// Runs one built-in heuristic.
///
/// # Complexity
/// O(C³) time (O(C² log C) for the flat tree), O(C) memory beyond the schedule.
#[must_use]
pub fn run_heuristic(inst: &InterInstance, h: Heuristic, model: CompletionModel) -> Schedule {
    match h {
        Heuristic::FlatTree => {
            let mut order: Vec<usize> = (0..inst.clusters).filter(|&j| j != inst.root).collect();
            order.sort_by(|&a, &b| inst.intra(b).total_cmp(&inst.intra(a)).then(a.cmp(&b)));
            let mut s = State::new(inst);
            for j in order {
                s.apply(inst, inst.root, j);
            }
            s.finish(inst, model)
        }
        Heuristic::Fef => greedy(inst, model, None, |_, i, j, _| inst.edge(i, j)),
        Heuristic::Ecef => greedy(inst, model, None, |s, i, j, _| s.ready[i] + inst.edge(i, j)),
        Heuristic::EcefLa => ecef_with_lookahead(inst, &MinEdge, model),
        Heuristic::EcefLaMinIntra => ecef_with_lookahead(inst, &MinEdgeIntra, model),
        Heuristic::EcefLaMaxIntra => ecef_with_lookahead(inst, &MaxEdgeIntra, model),
        Heuristic::BottomUp => {
            let mut s = State::new(inst);
            for _ in 1..inst.clusters {
                let holders = s.holders();
                // for every pending j: its earliest arrival and sender; take the j maximising
                // earliest arrival + T_j
                let mut pick: Option<(f64, usize, usize)> = None;
                for j in s.pending() {
                    let mut reach: Option<(f64, usize)> = None;
                    for &i in &holders {
                        let a = s.ready[i] + inst.edge(i, j);
                        if reach.is_none_or(|(b, _)| a < b) {
                            reach = Some((a, i));
                        }
                    }
                    if let Some((a, i)) = reach {
                        let v = a + inst.intra(j);
                        if pick.is_none_or(|(b, _, _)| v > b) {
                            pick = Some((v, i, j));
                        }
                    }
                }
                if let Some((_, i, j)) = pick {
                    s.apply(inst, i, j);
                }
            }
            s.finish(inst, model)
        }
    }
}

/// The default choice: runs every built-in heuristic and keeps the schedule with the smallest
/// makespan (ties: the first in [`Heuristic::ALL`] order).
///
/// # Complexity
/// O(C³).
///
/// # Example
/// ```
/// use topo_cluster::inter::{CompletionModel, optimum};
/// use topo_cluster::{best_schedule, fixtures};
/// let inst = fixtures::random_inter_instance(6, 42);
/// let (_, s) = best_schedule(&inst, CompletionModel::Overlap);
/// let opt = optimum(&inst, CompletionModel::Overlap)?;
/// assert!(opt.makespan_ns <= s.makespan_ns);
/// assert_eq!(s.transfers.len(), 5); // every non-root cluster receives once
/// # Ok::<(), topo_cluster::Error>(())
/// ```
#[must_use]
pub fn best_schedule(inst: &InterInstance, model: CompletionModel) -> (Heuristic, Schedule) {
    let mut best: Option<(Heuristic, Schedule)> = None;
    for h in Heuristic::ALL {
        let s = run_heuristic(inst, h, model);
        if best
            .as_ref()
            .is_none_or(|(_, b)| s.makespan_ns < b.makespan_ns)
        {
            best = Some((h, s));
        }
    }
    best.unwrap_or_else(|| {
        (
            Heuristic::FlatTree,
            run_heuristic(inst, Heuristic::FlatTree, model),
        )
    })
}

/// The optimal schedule by exhaustive search over decision sequences (branch and bound,
/// sends taken in non-decreasing start time, which loses no schedule), for at most
/// [`MAX_EXHAUSTIVE_CLUSTERS`] clusters. Starts from the best heuristic's makespan as bound.
///
/// # Errors
/// [`Error::TooManyClusters`].
///
/// # Complexity
/// O(((C−1)!)²) decision sequences in the worst case, far fewer with the bound.
pub fn optimum(inst: &InterInstance, model: CompletionModel) -> Result<Schedule, Error> {
    if inst.clusters > MAX_EXHAUSTIVE_CLUSTERS {
        return Err(Error::TooManyClusters {
            clusters: inst.clusters,
            max: MAX_EXHAUSTIVE_CLUSTERS,
        });
    }
    let (_, seed) = best_schedule(inst, model);
    let mut best = seed;
    let mut s = State::new(inst);
    // shortest end-to-end paths (Floyd–Warshall): the costs need not obey the triangle
    // inequality, so a relay may reach a cluster sooner than a direct send
    let c = inst.clusters;
    let mut sp: Vec<f64> = (0..c * c)
        .map(|k| {
            if k / c == k % c {
                0.0
            } else {
                inst.edge(k / c, k % c)
            }
        })
        .collect();
    for k in 0..c {
        for i in 0..c {
            for j in 0..c {
                let via = sp[i * c + k] + sp[k * c + j];
                if via < sp[i * c + j] {
                    sp[i * c + j] = via;
                }
            }
        }
    }
    let ctx = Search { inst, model, sp };
    ctx.search(&mut s, 0.0, &mut best);
    Ok(best)
}

struct Search<'a> {
    inst: &'a InterInstance,
    model: CompletionModel,
    sp: Vec<f64>,
}

impl Search<'_> {
    /// A lower bound on the makespan of any completion of `s`: a pending cluster cannot be
    /// reached before the earliest holder's ready time plus the shortest path from it.
    fn lower_bound(&self, s: &State) -> f64 {
        let (inst, model) = (self.inst, self.model);
        let mut lb: f64 = 0.0;
        for j in 0..inst.clusters {
            let v = if s.holds[j] {
                match model {
                    CompletionModel::Overlap => s.arrival[j],
                    CompletionModel::Serialized => s.ready[j],
                }
            } else {
                (0..inst.clusters)
                    .filter(|&i| s.holds[i])
                    .map(|i| s.ready[i] + self.sp[i * inst.clusters + j])
                    .fold(f64::INFINITY, f64::min)
            };
            lb = lb.max(v + inst.intra[j]);
        }
        lb
    }

    fn search(&self, s: &mut State, last_start: f64, best: &mut Schedule) {
        let (inst, model) = (self.inst, self.model);
        if s.transfers.len() + 1 == inst.clusters {
            let done = s.clone().finish(inst, model);
            if done.makespan_ns < best.makespan_ns {
                *best = done;
            }
            return;
        }
        if self.lower_bound(s) >= best.makespan_ns {
            return;
        }
        for i in 0..inst.clusters {
            if !s.holds[i] || s.ready[i] < last_start {
                continue;
            }
            for j in 0..inst.clusters {
                if s.holds[j] {
                    continue;
                }
                let saved = (s.ready[i], s.ready[j], s.arrival[j]);
                let start = s.ready[i];
                s.apply(inst, i, j);
                self.search(s, start, best);
                s.transfers.pop();
                s.holds[j] = false;
                (s.ready[i], s.ready[j], s.arrival[j]) = saved;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::random_inter_instance;
    use proptest::prelude::*;

    /// A hand-made six-cluster example (ms, m = 1 MiB, root A): L_ij / g_ij(m) and T_j. The
    /// makespans below come from an earlier Python prototype of the same model and pin every
    /// heuristic.
    fn grid_example() -> InterInstance {
        let pairs = [
            ("AB", 10.9, 17.8),
            ("AC", 14.2, 16.3),
            ("AD", 20.6, 66.0),
            ("AE", 5.3, 12.3),
            ("AF", 11.5, 33.7),
            ("BC", 29.9, 20.0),
            ("BD", 25.9, 19.8),
            ("BE", 21.0, 44.5),
            ("BF", 20.9, 11.9),
            ("CD", 18.1, 13.7),
            ("CE", 21.8, 66.5),
            ("CF", 24.0, 16.6),
            ("DE", 12.5, 82.0),
            ("DF", 26.6, 20.0),
            ("EF", 23.0, 11.8),
        ];
        let idx = |c: u8| usize::from(c - b'A');
        let mut lat = vec![0.0; 36];
        let mut gap = vec![0.0; 36];
        for (p, l, g) in pairs {
            let (a, b) = (idx(p.as_bytes()[0]), idx(p.as_bytes()[1]));
            for (x, y) in [(a, b), (b, a)] {
                lat[x * 6 + y] = l;
                gap[x * 6 + y] = g;
            }
        }
        let intra = vec![91.4, 112.1, 59.5, 100.1, 64.5, 113.6];
        InterInstance::new(0, lat, gap, intra).unwrap()
    }

    #[test]
    fn worked_example_makespans() {
        let inst = grid_example();
        let m = CompletionModel::Overlap;
        let got: Vec<(&str, f64)> = Heuristic::ALL
            .iter()
            .map(|&h| (h.name(), run_heuristic(&inst, h, m).makespan_ns))
            .collect();
        let want = [238.2, 192.5, 186.8, 186.8, 186.4, 180.2, 240.5];
        for ((name, v), w) in got.iter().zip(want) {
            assert!((v - w).abs() < 0.05, "{name}: {v} vs {w}");
        }
        let opt = optimum(&inst, m).unwrap();
        assert!(
            (opt.makespan_ns - 174.7).abs() < 0.05,
            "{}",
            opt.makespan_ns
        );
        let pairs: Vec<(usize, usize)> = opt.transfers.iter().map(|t| (t.from, t.to)).collect();
        let mut sorted = pairs.clone();
        sorted.sort_unstable();
        // A→E, A→C, A→B, E→F, C→D
        assert_eq!(sorted, vec![(0, 1), (0, 2), (0, 4), (2, 3), (4, 5)]);
        let (h, best) = best_schedule(&inst, m);
        assert_eq!(h, Heuristic::EcefLaMaxIntra);
        assert!((best.makespan_ns - 180.2).abs() < 0.05);
    }

    #[test]
    fn evaluate_replays_and_rejects() {
        let inst = grid_example();
        let s = evaluate(&inst, &[(0, 4), (4, 5)], CompletionModel::Overlap).unwrap();
        assert_eq!(s.transfers[0].start_ns, 0.0);
        assert!((s.transfers[0].arrival_ns - 17.6).abs() < 1e-9);
        assert!((s.transfers[1].start_ns - 17.6).abs() < 1e-9);
        // serialized: E finishes forwarding at 17.6 + 11.8 before its own broadcast
        let ser = evaluate(&inst, &[(0, 4), (4, 5)], CompletionModel::Serialized).unwrap();
        assert!((ser.done_ns[4] - (17.6 + 11.8 + 64.5)).abs() < 1e-9);
        assert_eq!(
            evaluate(&inst, &[(1, 2)], CompletionModel::Overlap),
            Err(Error::InvalidDecision {
                index: 0,
                from: 1,
                to: 2
            })
        );
        assert_eq!(
            evaluate(&inst, &[(0, 1), (1, 0)], CompletionModel::Overlap),
            Err(Error::InvalidDecision {
                index: 1,
                from: 1,
                to: 0
            })
        );
        assert_eq!(
            evaluate(&inst, &[(0, 9)], CompletionModel::Overlap),
            Err(Error::InvalidDecision {
                index: 0,
                from: 0,
                to: 9
            })
        );
    }

    #[test]
    fn instance_errors() {
        assert_eq!(
            InterInstance::new(0, vec![0.0; 3], vec![0.0; 4], vec![0.0; 2]),
            Err(Error::InstanceShape {
                what: "latency",
                len: 3,
                expected: 4
            })
        );
        assert_eq!(
            InterInstance::new(0, vec![0.0; 4], vec![0.0, -1.0, 0.0, 0.0], vec![0.0; 2]),
            Err(Error::InstanceValue {
                what: "gap",
                index: 1,
                value: -1.0
            })
        );
        assert_eq!(
            InterInstance::new(2, vec![0.0; 4], vec![0.0; 4], vec![0.0; 2]),
            Err(Error::RootOutOfRange {
                root: 2,
                clusters: 2
            })
        );
        let big = random_inter_instance(8, 1);
        assert_eq!(
            optimum(&big, CompletionModel::Overlap),
            Err(Error::TooManyClusters {
                clusters: 8,
                max: 7
            })
        );
    }

    #[test]
    fn from_models_uses_l_plus_g() {
        use crate::plan::{Links, MeasurementPlan};
        use crate::{PLogP, Partition};
        let p = Partition::from_raw_labels(&[0, 1, 2]);
        let plan = MeasurementPlan::new(&p, Links::Symmetric);
        let mut r = plan.collect();
        for (k, _) in plan.items().iter().enumerate() {
            r.record(k, PLogP::linear(10.0 * (k + 1) as f64, 1.0, 0.5).unwrap())
                .unwrap();
        }
        let models = r.finish().unwrap();
        let inst =
            InterInstance::from_models(&models, Bytes::new(100), vec![1.0, 2.0, 3.0], 0).unwrap();
        // item 1 is clusters 0-2: L = 20, g(100) = 51
        assert_eq!(inst.edge(2, 0), 71.0);
        assert_eq!(inst.busy(0, 2), 51.0);
        assert_eq!(
            InterInstance::from_models(&models, Bytes::new(100), vec![1.0], 0),
            Err(Error::InstanceShape {
                what: "intra",
                len: 1,
                expected: 3
            })
        );
    }

    #[test]
    fn single_cluster() {
        let inst = InterInstance::new(0, vec![0.0], vec![0.0], vec![5.0]).unwrap();
        for h in Heuristic::ALL {
            let s = run_heuristic(&inst, h, CompletionModel::Overlap);
            assert!(s.transfers.is_empty());
            assert_eq!(s.makespan_ns, 5.0);
        }
        assert_eq!(
            optimum(&inst, CompletionModel::Serialized)
                .unwrap()
                .makespan_ns,
            5.0
        );
    }

    /// Brute force without pruning or start-time ordering, for the oracle test.
    fn brute(inst: &InterInstance, model: CompletionModel, s: &mut State, best: &mut f64) {
        if s.transfers.len() + 1 == inst.clusters {
            *best = best.min(s.clone().finish(inst, model).makespan_ns);
            return;
        }
        for i in 0..inst.clusters {
            for j in 0..inst.clusters {
                if s.holds[i] && !s.holds[j] {
                    let mut t = s.clone();
                    t.apply(inst, i, j);
                    brute(inst, model, &mut t, best);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Every heuristic gives a valid broadcast (each non-root cluster receives once, from a
        /// holder, and its recorded times replay); the optimum is ≤ every heuristic and equals
        /// an unpruned brute force.
        #[test]
        fn heuristics_are_valid_and_bounded_by_the_optimum(seed in 0_u64..10_000, c in 1_usize..6, ser in any::<bool>()) {
            let inst = random_inter_instance(c, seed);
            let model = if ser { CompletionModel::Serialized } else { CompletionModel::Overlap };
            let opt = optimum(&inst, model).unwrap();
            let mut b = f64::INFINITY;
            brute(&inst, model, &mut State::new(&inst), &mut b);
            if c == 1 { b = inst.intra(0); }
            prop_assert!((opt.makespan_ns - b).abs() < 1e-6);
            for h in Heuristic::ALL {
                let s = run_heuristic(&inst, h, model);
                prop_assert_eq!(s.transfers.len(), c - 1);
                let decisions: Vec<(usize, usize)> = s.transfers.iter().map(|t| (t.from, t.to)).collect();
                let replay = evaluate(&inst, &decisions, model).unwrap();
                prop_assert_eq!(&replay, &s);
                prop_assert!(opt.makespan_ns <= s.makespan_ns + 1e-6);
            }
        }
    }
}
