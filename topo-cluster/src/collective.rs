//! pLogP cost models of the intra-cluster collectives, and the choice of the best algorithm
//! and segment size ("fast tuning": evaluate every strategy and segment size on the cluster's
//! pLogP table).
//!
//! The closed forms are those of L. A. Barchet-Estefanel and G. Mounié, *Performance
//! characterisation of intra-cluster collective communications* (SBAC-PAD 2004) and *Fast
//! Tuning of Intra-Cluster Collective Communications* (EuroPVM/MPI 2004, LNCS 3241), in the
//! pLogP model of MagPIe (T. Kielmann, R. F. H. Hofman, H. E. Bal, A. Plaat and
//! R. A. F. Bhoedjang, *MagPIe: MPI's collective communication operations for clustered wide
//! area systems*, PPoPP 1999); they are listed on [`closed_form`]. The module also holds the
//! trees ([`Collective`], [`Algorithm`]) and the event simulator ([`simulate`]) that checks
//! them.

use std::fmt;

use fabric_model::Bytes;

pub use crate::sim::{SimResult, simulate};
pub use crate::trees::{Algorithm, Collective};
use crate::trees::{ceil_log2, check};
use crate::{Error, PLogP};

/// A predicted completion time.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Estimate {
    /// The predicted time.
    pub time_ns: f64,
    /// Whether the closed form is the exact critical path of the simulated tree (otherwise it
    /// is an upper bound, given a nondecreasing g).
    pub exact: bool,
}

impl fmt::Display for Estimate {
    /// `17306.342 µs (exact)` or `… (bound)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.exact { "exact" } else { "bound" };
        write!(f, "{:.3} µs ({kind})", self.time_ns / 1000.0)
    }
}

fn is_pow2(p: usize) -> bool {
    p.is_power_of_two()
}

/// The closed-form cost of `collective` with `algorithm` over `procs` ranks, `m` bytes per
/// block and segments of `segment` bytes (segmented broadcasts only; a segment larger than
/// the message is the message).
///
/// With P ranks, k = ⌈m/s⌉, d = ⌈log₂P⌉:
/// - broadcast: flat (P−1)·g(m) + L; segmented flat (P−1)·k·g(s) + L; chain (P−1)·(g(m) + L);
///   segmented chain (P−1)·(g(s) + L) + (k−1)·g(s); binary d·(2g(m) + L) (a bound);
///   binomial d·(g(m) + L) (exact for P a power of two, a bound otherwise);
/// - scatter and gather: flat (P−1)·g(m) + L; chain Σ_{j=1}^{P−1} g(j·m) + (P−1)·L;
///   binomial Σ_{j=0}^{d−1} g(2^j·m) + d·L (exact for powers of two);
/// - all-to-all direct: (P−1)·g(m) + L (contention-free).
///
/// The segmented forms are exact when s divides m. One rank costs 0.
///
/// # Errors
/// [`Error::NoProcesses`], [`Error::UnsupportedAlgorithm`], [`Error::ZeroSegment`].
///
/// # Complexity
/// O(P log t) at worst (the chain sums), O(log t) otherwise, for t table points.
///
/// # Example
/// ```
/// use topo_cluster::collective::closed_form;
/// use topo_cluster::{Algorithm, Collective, PLogP};
/// // an illustrative Fast Ethernet-like link (not a measurement): L = 50 µs,
/// // g(x) = 20 µs + x / 11.5 B/µs; m = 64 KiB, P = 8: 7·g(m) + L = 40 081.5 µs
/// let p = PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5)?;
/// let m = fabric_model::Bytes::from_kib(64);
/// let flat = closed_form(Collective::Broadcast, Algorithm::Flat, 8, m, None, &p)?;
/// assert!((flat.time_ns / 1000.0 - 40_081.5).abs() < 0.1);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn closed_form(
    collective: Collective,
    algorithm: Algorithm,
    procs: usize,
    m: Bytes,
    segment: Option<Bytes>,
    params: &PLogP,
) -> Result<Estimate, Error> {
    let (m, segment) = (m.get(), segment.map(Bytes::get));
    check(collective, algorithm, procs, segment)?;
    if procs == 1 {
        return Ok(Estimate {
            time_ns: 0.0,
            exact: true,
        });
    }
    let l = params.latency_ns();
    let g = |x: u64| params.gap_raw(x);
    let p1 = (procs - 1) as f64;
    let d = ceil_log2(procs);
    let s = segment.unwrap_or(m).min(m);
    let k = if s == 0 { 1 } else { m.div_ceil(s) };
    let divides = s == 0 || m.is_multiple_of(s);
    let (time_ns, exact) = match (collective, algorithm) {
        (_, Algorithm::Flat) | (Collective::AllToAll, Algorithm::Direct) => (p1 * g(m) + l, true),
        (Collective::Broadcast, Algorithm::SegmentedFlat) => (p1 * k as f64 * g(s) + l, divides),
        (Collective::Broadcast, Algorithm::Chain) => (p1 * (g(m) + l), true),
        (Collective::Broadcast, Algorithm::SegmentedChain) => {
            (p1 * (g(s) + l) + (k - 1) as f64 * g(s), divides)
        }
        (Collective::Broadcast, Algorithm::Binary) => (f64::from(d) * (2.0 * g(m) + l), false),
        (Collective::Broadcast, Algorithm::Binomial) => (f64::from(d) * (g(m) + l), is_pow2(procs)),
        (_, Algorithm::Chain) => {
            let sum: f64 = (1..procs as u64).map(|j| g(j.saturating_mul(m))).sum();
            (sum + p1 * l, true)
        }
        (_, Algorithm::Binomial) => {
            let sum: f64 = (0..d).map(|j| g((1_u64 << j).saturating_mul(m))).sum();
            (sum + f64::from(d) * l, is_pow2(procs))
        }
        _ => unreachable!("check() accepted an unmodelled pair"),
    };
    Ok(Estimate { time_ns, exact })
}

/// Contention calibration of the all-to-all, after L. A. Barchet-Steffenel and G. Mounié,
/// *Total exchange performance modelling under network contention* (PPAM 2005, LNCS 3911):
/// from message size `threshold` on, the contention-free time (P−1)·g(m) is scaled by `gamma`, and
/// `delta_ns` is added.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Contention {
    /// Multiplicative factor γ (≥ 1 normally), fitted by the caller.
    pub gamma: f64,
    /// Additive term δ.
    pub delta_ns: f64,
    /// Message size M from which contention applies.
    pub threshold: Bytes,
}

impl Contention {
    /// The calibration γ, δ (ns) from message size `threshold` on.
    #[must_use]
    pub const fn new(gamma: f64, delta_ns: f64, threshold: Bytes) -> Self {
        Self {
            gamma,
            delta_ns,
            threshold,
        }
    }
}

/// All-to-all time under contention: T₀ = (P−1)·g(m) + L below M, γ·(P−1)·g(m) + L + δ from M.
///
/// # Errors
/// [`Error::NoProcesses`]; [`Error::BadParameter`] for a negative or non-finite γ or δ.
pub fn alltoall_contended(
    params: &PLogP,
    procs: usize,
    m: Bytes,
    contention: &Contention,
) -> Result<f64, Error> {
    for (what, v) in [("gamma", contention.gamma), ("delta", contention.delta_ns)] {
        if !v.is_finite() || v < 0.0 {
            return Err(Error::BadParameter {
                what,
                size: m,
                value: v,
            });
        }
    }
    let base = closed_form(
        Collective::AllToAll,
        Algorithm::Direct,
        procs,
        m,
        None,
        params,
    )?;
    if procs == 1 || m < contention.threshold {
        return Ok(base.time_ns);
    }
    let p1 = (procs - 1) as f64;
    Ok(contention.gamma * p1 * params.gap_ns(m) + params.latency_ns() + contention.delta_ns)
}

/// How candidate algorithms are evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Evaluator {
    /// The closed forms of [`closed_form`] (the paper's way).
    #[default]
    ClosedForm,
    /// The event simulator (exact critical paths, slower).
    Simulated,
}

/// Candidate segment sizes: powers of two from `min_segment` to `max_segment` (inclusive),
/// only those smaller than the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SegmentGrid {
    /// Smallest candidate (rounded up to a power of two).
    pub min_segment: Bytes,
    /// Largest candidate.
    pub max_segment: Bytes,
}

impl Default for SegmentGrid {
    /// 1 KiB to 1 MiB.
    fn default() -> Self {
        Self {
            min_segment: Bytes::from_kib(1),
            max_segment: Bytes::from_mib(1),
        }
    }
}

impl SegmentGrid {
    /// Powers of two from `min_segment` (rounded up to a power of two) to `max_segment`.
    #[must_use]
    pub const fn new(min_segment: Bytes, max_segment: Bytes) -> Self {
        Self {
            min_segment,
            max_segment,
        }
    }

    /// Sets the smallest candidate.
    #[must_use]
    pub const fn min_segment(mut self, min_segment: Bytes) -> Self {
        self.min_segment = min_segment;
        self
    }

    /// Sets the largest candidate.
    #[must_use]
    pub const fn max_segment(mut self, max_segment: Bytes) -> Self {
        self.max_segment = max_segment;
        self
    }

    /// The candidates for an `m`-byte message, increasing.
    #[must_use]
    pub fn candidates(&self, m: Bytes) -> Vec<Bytes> {
        let (m, max) = (m.get(), self.max_segment.get());
        let mut out = Vec::new();
        let mut s = self.min_segment.get().max(1).next_power_of_two();
        while s <= max && s < m {
            out.push(Bytes::new(s));
            match s.checked_mul(2) {
                Some(n) => s = n,
                None => break,
            }
        }
        out
    }
}

/// The best algorithm for one (collective, group size, message size).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Choice {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Its segment size (segmented algorithms only).
    pub segment: Option<Bytes>,
    /// Its predicted time.
    pub time_ns: f64,
}

impl fmt::Display for Choice {
    /// `seg-chain, segments of 8192 B: 8625.781 µs` or `binomial: 17306.342 µs`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.algorithm)?;
        if let Some(s) = self.segment {
            write!(f, ", segments of {s}")?;
        }
        write!(f, ": {:.3} µs", self.time_ns / 1000.0)
    }
}

/// Evaluates every algorithm of `collective` (and every candidate segment size of the
/// segmented ones) and returns the fastest; ties go to the first in
/// [`Collective::algorithms`] order, then the smaller segment.
///
/// # Errors
/// [`Error::NoProcesses`].
///
/// # Complexity
/// O(A·S) evaluations for A algorithms and S candidate segments (each O(P log t) in closed
/// form, a simulation otherwise).
///
/// # Example
/// ```
/// use fabric_model::Bytes;
/// use topo_cluster::collective::{Evaluator, SegmentGrid};
/// use topo_cluster::{best_algorithm, Algorithm, Collective, PLogP};
/// let p = PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5)?;
/// let c = best_algorithm(Collective::Broadcast, 8, Bytes::from_mib(1), &p,
///                        &SegmentGrid::default(), Evaluator::ClosedForm)?;
/// assert_eq!((c.algorithm, c.segment), (Algorithm::SegmentedChain, Some(Bytes::from_kib(8))));
/// assert_eq!(c.to_string(), "seg-chain, segments of 8192 B: 98484.609 µs");
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn best_algorithm(
    collective: Collective,
    procs: usize,
    m: Bytes,
    params: &PLogP,
    grid: &SegmentGrid,
    evaluator: Evaluator,
) -> Result<Choice, Error> {
    best_algorithm_among(
        collective,
        collective.algorithms(),
        procs,
        m,
        params,
        grid,
        evaluator,
    )
}

/// [`best_algorithm`] among `candidates` only (ties to the first in `candidates` order): the
/// best tree an MPI library has, given the trees of [`crate::mpi::open_mpi::trees`] or
/// [`crate::mpi::mpich::trees`].
///
/// # Errors
/// [`Error::NoProcesses`], [`Error::NoCandidate`] for an empty list,
/// [`Error::UnsupportedAlgorithm`] for a candidate that is not an algorithm of `collective`.
///
/// # Complexity
/// As [`best_algorithm`], over the candidates.
pub fn best_algorithm_among(
    collective: Collective,
    candidates: &[Algorithm],
    procs: usize,
    m: Bytes,
    params: &PLogP,
    grid: &SegmentGrid,
    evaluator: Evaluator,
) -> Result<Choice, Error> {
    if procs == 0 {
        return Err(Error::NoProcesses);
    }
    let mut best: Option<Choice> = None;
    for &a in candidates {
        let segs: Vec<Option<Bytes>> = if a.is_segmented() {
            grid.candidates(m).into_iter().map(Some).collect()
        } else {
            vec![None]
        };
        for s in segs {
            let t = match evaluator {
                Evaluator::ClosedForm => closed_form(collective, a, procs, m, s, params)?.time_ns,
                Evaluator::Simulated => simulate(collective, a, procs, m, s, params)?.makespan_ns,
            };
            if best.is_none_or(|b| t < b.time_ns) {
                best = Some(Choice {
                    algorithm: a,
                    segment: s,
                    time_ns: t,
                });
            }
        }
    }
    best.ok_or(Error::NoCandidate {
        collective: collective.name(),
    })
}

/// The segment size that minimises the segmented chain for a linear gap g(s) = a + b·s:
/// s* = √(a·m / ((P−2)·b)), with a = g(0) and b the slope of g between 0 and
/// m. `None` when P ≤ 2, b ≤ 0 or m = 0 (the model then prefers no segmentation).
///
/// Derivation: the segmented chain costs T(s) = (P−1)·(g(s) + L) + (m/s − 1)·g(s)
/// = (P−1)·(a + L) + (P−2)·b·s + a·m/s + b·m − a, and dT/ds = 0 gives s*. The result is a
/// size in bytes, not rounded (round it to the candidate grid).
#[must_use]
pub fn chain_segment_optimum(params: &PLogP, procs: usize, m: Bytes) -> Option<f64> {
    let m = m.get();
    if procs <= 2 || m == 0 {
        return None;
    }
    let a = params.gap_raw(0);
    let b = (params.gap_raw(m) - a) / m as f64;
    (b > 0.0).then(|| (a * m as f64 / ((procs - 2) as f64 * b)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plogp::SizePoint;
    use proptest::prelude::*;

    // The tests speak raw byte counts; these wrap the public functions.
    fn b(x: u64) -> Bytes {
        Bytes::new(x)
    }

    fn cf(
        c: Collective,
        a: Algorithm,
        p: usize,
        m: u64,
        s: Option<u64>,
        params: &PLogP,
    ) -> Result<Estimate, Error> {
        closed_form(c, a, p, b(m), s.map(b), params)
    }

    fn sim(
        c: Collective,
        a: Algorithm,
        p: usize,
        m: u64,
        s: Option<u64>,
        params: &PLogP,
    ) -> Result<SimResult, Error> {
        simulate(c, a, p, b(m), s.map(b), params)
    }

    fn best(
        c: Collective,
        p: usize,
        m: u64,
        params: &PLogP,
        grid: &SegmentGrid,
        ev: Evaluator,
    ) -> Result<Choice, Error> {
        best_algorithm(c, p, b(m), params, grid, ev)
    }

    fn candidates(grid: &SegmentGrid, m: u64) -> Vec<u64> {
        grid.candidates(b(m)).into_iter().map(Bytes::get).collect()
    }

    /// An illustrative Fast Ethernet-like link: L = 50 µs, g(x) = 20 µs + x / 11.5 B/µs. The
    /// expected figures below are this model's closed forms worked by hand.
    fn fast_ethernet() -> PLogP {
        PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5).unwrap()
    }

    fn us(c: Collective, a: Algorithm, p: usize, m: u64, s: Option<u64>) -> f64 {
        cf(c, a, p, m, s, &fast_ethernet()).unwrap().time_ns / 1000.0
    }

    #[test]
    fn worked_values() {
        use Algorithm::*;
        let b = Collective::Broadcast;
        let m = 64 * 1024;
        assert!((us(b, Flat, 8, m, None) - 40_081.5).abs() < 0.1);
        assert!((us(b, Chain, 8, m, None) - 40_381.5).abs() < 0.1);
        assert!((us(b, SegmentedChain, 8, m, Some(4096)) - 8_625.8).abs() < 0.1);
        assert!((us(b, SegmentedFlat, 8, m, Some(4096)) - 42_181.5).abs() < 0.1);
        assert!((us(b, Binomial, 8, m, None) - 17_306.3).abs() < 0.1);
        // P = 5: the exact binomial critical path is 3g + 2L, below the closed form
        let exact = sim(b, Binomial, 5, m, None, &fast_ethernet()).unwrap();
        assert!((exact.makespan_ns / 1000.0 - 17_256.3).abs() < 0.1);
        assert!(!cf(b, Binomial, 5, m, None, &fast_ethernet()).unwrap().exact);
        // scatter m = 4096
        let s = Collective::Scatter;
        assert!((us(s, Flat, 8, 4096, None) - 2_683.0).abs() < 1.0);
        assert!((us(s, Binomial, 8, 4096, None) - 2_703.0).abs() < 1.0);
        assert!((us(s, Chain, 8, 4096, None) - 10_463.0).abs() < 1.0);
    }

    #[test]
    fn fast_tuning_table() {
        // (P, m, algorithm, segment) of the fast-tuning procedure on this link, where the
        // binomial form is exact
        use Algorithm::*;
        let rows = [
            (8, 1024, Binomial, None),
            (8, 16 * 1024, SegmentedChain, Some(1024)),
            (8, 128 * 1024, SegmentedChain, Some(2048)),
            (8, 1 << 20, SegmentedChain, Some(8192)),
            (8, 4 << 20, SegmentedChain, Some(16_384)),
            (20, 16 * 1024, SegmentedChain, Some(1024)),
            (20, 1 << 20, SegmentedChain, Some(4096)),
            (20, 4 << 20, SegmentedChain, Some(8192)),
        ];
        for (p, m, a, s) in rows {
            let c = best(
                Collective::Broadcast,
                p,
                m,
                &fast_ethernet(),
                &SegmentGrid::default(),
                Evaluator::ClosedForm,
            )
            .unwrap();
            assert_eq!((c.algorithm, c.segment), (a, s.map(b)), "P={p} m={m}");
        }
        // the closed-form optimum lands next to the grid choice (6.3 KB → 8 KiB, 3.7 KB → 4 KiB)
        let s8 = chain_segment_optimum(&fast_ethernet(), 8, Bytes::from_mib(1)).unwrap();
        assert!((s8 - 6_300.0).abs() < 100.0, "{s8}");
        let s20 = chain_segment_optimum(&fast_ethernet(), 20, Bytes::from_mib(1)).unwrap();
        assert!((s20 - 3_700.0).abs() < 100.0, "{s20}");
        assert_eq!(
            chain_segment_optimum(&fast_ethernet(), 2, Bytes::from_mib(1)),
            None
        );
    }

    #[test]
    fn one_rank_costs_nothing_and_errors() {
        let p = fast_ethernet();
        for c in Collective::ALL {
            for &a in c.algorithms() {
                let s = a.is_segmented().then_some(1024);
                assert_eq!(cf(c, a, 1, 100, s, &p).unwrap().time_ns, 0.0);
                assert_eq!(sim(c, a, 1, 100, s, &p).unwrap().makespan_ns, 0.0);
            }
        }
        assert_eq!(
            cf(Collective::AllToAll, Algorithm::Flat, 2, 1, None, &p),
            Err(Error::UnsupportedAlgorithm {
                collective: "alltoall",
                algorithm: "flat"
            })
        );
        assert_eq!(
            best(
                Collective::Gather,
                0,
                1,
                &p,
                &SegmentGrid::default(),
                Evaluator::ClosedForm
            ),
            Err(Error::NoProcesses)
        );
    }

    #[test]
    fn contention() {
        let p = fast_ethernet();
        let c = Contention::new(2.0, 5.0, b(1000));
        let free = cf(Collective::AllToAll, Algorithm::Direct, 4, 999, None, &p).unwrap();
        assert_eq!(alltoall_contended(&p, 4, b(999), &c).unwrap(), free.time_ns);
        let t = alltoall_contended(&p, 4, b(1000), &c).unwrap();
        assert_eq!(t, 2.0 * 3.0 * p.gap_ns(b(1000)) + p.latency_ns() + 5.0);
        assert!(matches!(
            alltoall_contended(&p, 4, b(1), &Contention { gamma: -1.0, ..c }),
            Err(Error::BadParameter { what: "gamma", .. })
        ));
    }

    #[test]
    fn grid_candidates() {
        let g = SegmentGrid::new(b(1000), b(8192));
        assert_eq!(candidates(&g, 100_000), vec![1024, 2048, 4096, 8192]);
        assert_eq!(candidates(&g, 4096), vec![1024, 2048]);
        assert!(candidates(&g, 1024).is_empty());
        let shifted = SegmentGrid::default()
            .min_segment(b(2048))
            .max_segment(b(4096));
        assert_eq!(candidates(&shifted, 1 << 20), vec![2048, 4096]);
    }

    /// A nondecreasing pLogP table with integer values.
    fn table() -> impl Strategy<Value = PLogP> {
        (
            0_u32..100_000,
            0_u32..50_000,
            proptest::collection::vec((1_u64..20_000, 0_u32..40_000), 1..6),
        )
            .prop_map(|(l, g0, steps)| {
                let mut pts = vec![SizePoint::new(b(0), 0.0, 0.0, f64::from(g0))];
                for (db, dg) in steps {
                    let last = pts[pts.len() - 1];
                    pts.push(SizePoint::new(
                        b(last.bytes.get() + db),
                        0.0,
                        0.0,
                        last.gap_ns + f64::from(dg),
                    ));
                }
                PLogP::new(f64::from(l), pts).unwrap()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Closed forms against the event simulator: equal where exact, upper bounds otherwise.
        #[test]
        fn closed_forms_match_the_simulator(
            params in table(), procs in 1_usize..24, m in 0_u64..100_000, s in 1_u64..20_000,
        ) {
            for c in Collective::ALL {
                for &a in c.algorithms() {
                    let seg = a.is_segmented().then_some(s);
                    let f = cf(c, a, procs, m, seg, &params).unwrap();
                    let simulated = sim(c, a, procs, m, seg, &params).unwrap().makespan_ns;
                    let tol = 1e-9 * f.time_ns.max(1.0);
                    if f.exact {
                        prop_assert!((f.time_ns - simulated).abs() <= tol,
                            "{c:?} {a:?} P={procs} m={m} s={s}: {} vs {simulated}", f.time_ns);
                    } else {
                        prop_assert!(simulated <= f.time_ns + tol,
                            "{c:?} {a:?} P={procs} m={m} s={s}: {} < {simulated}", f.time_ns);
                    }
                }
            }
        }

        /// The chosen algorithm is never beaten by any single candidate.
        #[test]
        fn best_is_a_minimum(params in table(), procs in 1_usize..24, m in 0_u64..300_000) {
            let grid = SegmentGrid::default();
            for c in Collective::ALL {
                let best = best(c, procs, m, &params, &grid, Evaluator::ClosedForm).unwrap();
                for &a in c.algorithms() {
                    let segs: Vec<Option<u64>> = if a.is_segmented() {
                        candidates(&grid, m).into_iter().map(Some).collect()
                    } else { vec![None] };
                    for s in segs {
                        let t = cf(c, a, procs, m, s, &params).unwrap().time_ns;
                        prop_assert!(best.time_ns <= t);
                    }
                }
            }
        }
    }
}
