//! ECO-style logical homogeneous clusters (paper §3.2, ECO's Algorithm 1).
//!
//! Edges (measured pairs) are taken in non-decreasing latency order, ties broken by node
//! indices, and two groups are merged when the edge is acceptable under the chosen
//! [`AcceptRule`] with the relative bound ρ (20 % by default). All comparisons are in integer
//! arithmetic: `w · 1000 ≤ best · (1000 + ρ‰)`, so the bound is inclusive and exact.

use std::collections::HashSet;

use fabric_model::{BitsPerSec, Nanos};

pub use crate::partition::Partition;
use crate::{Error, LatencyMatrix};

/// When an edge may join two groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AcceptRule {
    /// ECO's per-node rule as the paper used it: edge `(a, b)` of latency `w` is acceptable
    /// when `w ≤ (1+ρ)·minedge(a)` and `w ≤ (1+ρ)·minedge(b)`, `minedge(v)` being the smallest
    /// measured latency incident on `v`. Can chain a gradual sequence into one cluster.
    #[default]
    EcoMinEdge,
    /// Per-subnet reading: acceptable to group `S` when `|S| = 1` or
    /// `w ≤ (1+ρ)·min{lat(x, y) : x, y ∈ S}`; merged when acceptable to both groups.
    SubnetMin,
    /// Homogeneity guaranteed: merge `A` and `B` only when, over every measured pair of
    /// `A ∪ B`, `max ≤ (1+ρ)·min`.
    Strict,
}

/// Parameters of [`logical_clusters`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClusterParams {
    /// The relative bound ρ in per mille (200 = 20 %, the paper's default).
    pub rho_permille: u32,
    /// The acceptance rule.
    pub rule: AcceptRule,
    /// Refuse any merge that would put an unmeasured pair inside one cluster (default `true`).
    /// An unmeasured pair is never an edge under any setting; this option also stops a chain
    /// of measured edges from joining two nodes whose own pair was not measured.
    pub forbid_unmeasured: bool,
    /// Apply the same relative test to throughputs (higher is better) when the matrix has them;
    /// a pair then needs both latency and throughput measured to be an edge.
    pub use_throughput: bool,
}

impl Default for ClusterParams {
    fn default() -> Self {
        Self {
            rho_permille: 200,
            rule: AcceptRule::EcoMinEdge,
            forbid_unmeasured: true,
            use_throughput: false,
        }
    }
}

impl ClusterParams {
    /// The defaults: ρ = 20 % (the paper's), [`AcceptRule::EcoMinEdge`], unmeasured pairs
    /// forbidden inside a cluster, throughputs not used.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the relative bound ρ in per mille (200 = 20 %).
    #[must_use]
    pub const fn rho_permille(mut self, rho_permille: u32) -> Self {
        self.rho_permille = rho_permille;
        self
    }

    /// Sets the acceptance rule.
    #[must_use]
    pub const fn rule(mut self, rule: AcceptRule) -> Self {
        self.rule = rule;
        self
    }

    /// Sets whether a merge may put an unmeasured pair inside one cluster (`true`: refused).
    #[must_use]
    pub const fn forbid_unmeasured(mut self, forbid: bool) -> Self {
        self.forbid_unmeasured = forbid;
        self
    }

    /// Sets whether throughputs are tested too (when the matrix has them).
    #[must_use]
    pub const fn use_throughput(mut self, use_throughput: bool) -> Self {
        self.use_throughput = use_throughput;
        self
    }
}

/// `w ≤ (1+ρ)·best` in integers (latency: lower is better).
fn lat_within(best: u64, w: u64, rho: u32) -> bool {
    u128::from(w) * 1000 <= u128::from(best) * (1000 + u128::from(rho))
}

/// `best ≤ (1+ρ)·w` in integers (throughput: higher is better).
fn thr_within(best: u64, w: u64, rho: u32) -> bool {
    u128::from(best) * 1000 <= u128::from(w) * (1000 + u128::from(rho))
}

/// Range of values inside a group (`None` while the group has no internal pair).
#[derive(Debug, Clone, Copy)]
struct Range {
    min: u64,
    max: u64,
}

impl Range {
    fn join(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Self {
                min: a.min.min(b.min),
                max: a.max.max(b.max),
            }),
            (x, None) | (None, x) => x,
        }
    }

    fn point(v: u64) -> Self {
        Self { min: v, max: v }
    }
}

struct Groups {
    parent: Vec<u32>,
    members: Vec<Vec<u32>>,
    lat: Vec<Option<Range>>,
    thr: Vec<Option<Range>>,
}

impl Groups {
    fn new(n: usize) -> Self {
        Self {
            parent: (0..n as u32).collect(),
            members: (0..n as u32).map(|v| vec![v]).collect(),
            lat: vec![None; n],
            thr: vec![None; n],
        }
    }

    fn find(&mut self, mut v: u32) -> u32 {
        while self.parent[v as usize] != v {
            let p = self.parent[v as usize];
            self.parent[v as usize] = self.parent[p as usize];
            v = p;
        }
        v
    }
}

struct Cross {
    lat: Option<Range>,
    thr: Option<Range>,
    unmeasured: bool,
}

/// Scans every pair across `a × b`.
fn cross(m: &LatencyMatrix, a: &[u32], b: &[u32], thr: bool) -> Cross {
    let mut out = Cross {
        lat: None,
        thr: None,
        unmeasured: false,
    };
    for &x in a {
        for &y in b {
            let (x, y) = (x as usize, y as usize);
            let l = m.pair(x, y).map(Nanos::get);
            let t = if thr {
                m.pair_throughput(x, y).map(BitsPerSec::get)
            } else {
                None
            };
            match (l, thr, t) {
                (Some(l), false, _) => out.lat = Range::join(out.lat, Some(Range::point(l))),
                (Some(l), true, Some(t)) => {
                    out.lat = Range::join(out.lat, Some(Range::point(l)));
                    out.thr = Range::join(out.thr, Some(Range::point(t)));
                }
                _ => out.unmeasured = true,
            }
        }
    }
    out
}

/// Splits the nodes of `m` into logical homogeneous clusters (ECO's Algorithm 1 with the
/// acceptance rule of `params`). The result is a flat list of subnets, labelled in
/// first-appearance order. Deterministic: edges are sorted by (latency, lower node, higher node).
///
/// Steps (ECO Algorithm 1): (1) every node alone; (2) per-node minimum edge (rule
/// `EcoMinEdge`); (3) edges sorted by non-decreasing latency; (4) for each edge whose ends are in
/// different groups, merge when acceptable.
///
/// # Errors
/// [`Error::InvalidBound`] when `rho_permille > 10000`.
///
/// # Complexity
/// O(n² + E log E) time for E measured pairs (the edges are sorted once; each cross pair is
/// scanned once per merge, O(n²) over a run, plus one scan per refused pair of groups under
/// `Strict` or `forbid_unmeasured`); O(n + E) extra memory.
///
/// # Example
/// ```
/// use fabric_model::Nanos;
/// use topo_cluster::matrix::Symmetry;
/// use topo_cluster::{logical_clusters, ClusterParams, LatencyMatrix};
/// // two machines 50 µs apart, a third 500 µs from both
/// let us = |v| Some(Nanos::from_micros(v));
/// let m = LatencyMatrix::from_rows(
///     &[vec![us(0), us(50), us(500)], vec![us(50), us(0), us(500)], vec![us(500), us(500), us(0)]],
///     Symmetry::Require,
/// )?;
/// let p = logical_clusters(&m, &ClusterParams::default())?;
/// assert_eq!(p.labels(), &[0, 0, 1]);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn logical_clusters(m: &LatencyMatrix, params: &ClusterParams) -> Result<Partition, Error> {
    let rho = params.rho_permille;
    if rho > 10_000 {
        return Err(Error::InvalidBound { rho_permille: rho });
    }
    let n = m.len();
    let use_thr = params.use_throughput && m.has_throughput();
    // Step 1-2: the edges (measured pairs) and, for EcoMinEdge, each node's best edge.
    let mut edges: Vec<u128> = Vec::new();
    let mut min_lat = vec![u64::MAX; n];
    let mut max_thr = vec![0_u64; n];
    m.for_each_pair(|i, j, l| {
        let l = l.get();
        let t = if use_thr {
            match m.pair_throughput(i, j).map(BitsPerSec::get) {
                Some(t) => Some(t),
                None => return,
            }
        } else {
            None
        };
        if let Some(t) = t {
            max_thr[i] = max_thr[i].max(t);
            max_thr[j] = max_thr[j].max(t);
        }
        min_lat[i] = min_lat[i].min(l);
        min_lat[j] = min_lat[j].min(l);
        edges.push((u128::from(l) << 64) | ((i as u128) << 32) | j as u128);
    });
    if params.rule == AcceptRule::EcoMinEdge {
        // The per-node test does not depend on the groups: filter before sorting.
        edges.retain(|&e| {
            let (l, a, b) = split(e);
            let ok = lat_within(min_lat[a], l, rho) && lat_within(min_lat[b], l, rho);
            ok && (!use_thr || {
                let t = m.pair_throughput(a, b).map_or(0, BitsPerSec::get);
                thr_within(max_thr[a], t, rho) && thr_within(max_thr[b], t, rho)
            })
        });
    }
    // Step 3: non-decreasing latency, ties by node indices.
    edges.sort_unstable();
    // Step 4: merge.
    let mut g = Groups::new(n);
    let mut refused: HashSet<(u32, u32)> = HashSet::new();
    for e in edges {
        let (l, a, b) = split(e);
        let (ra, rb) = (g.find(a as u32), g.find(b as u32));
        if ra == rb {
            continue;
        }
        let (ia, ib) = (ra as usize, rb as usize);
        let t = if use_thr {
            m.pair_throughput(a, b).map(BitsPerSec::get)
        } else {
            None
        };
        let acceptable = match params.rule {
            AcceptRule::EcoMinEdge => true,
            AcceptRule::SubnetMin => {
                let ok_lat = |r: Option<Range>| r.is_none_or(|r| lat_within(r.min, l, rho));
                let ok_thr = |r: Option<Range>| {
                    t.is_none_or(|t| r.is_none_or(|r| thr_within(r.max, t, rho)))
                };
                ok_lat(g.lat[ia]) && ok_lat(g.lat[ib]) && ok_thr(g.thr[ia]) && ok_thr(g.thr[ib])
            }
            AcceptRule::Strict => {
                let lr = Range::join(Range::join(g.lat[ia], g.lat[ib]), Some(Range::point(l)));
                let tr = Range::join(Range::join(g.thr[ia], g.thr[ib]), t.map(Range::point));
                lr.is_none_or(|r| lat_within(r.min, r.max, rho))
                    && tr.is_none_or(|r| thr_within(r.max, r.min, rho))
            }
        };
        if !acceptable {
            continue;
        }
        let need_scan = params.forbid_unmeasured || params.rule != AcceptRule::EcoMinEdge;
        let key = (ra.min(rb), ra.max(rb));
        let (lat, thr) = if need_scan {
            if refused.contains(&key) {
                continue;
            }
            let c = cross(m, &g.members[ia], &g.members[ib], use_thr);
            let lat = Range::join(Range::join(g.lat[ia], g.lat[ib]), c.lat);
            let thr = Range::join(Range::join(g.thr[ia], g.thr[ib]), c.thr);
            let homogeneous = params.rule != AcceptRule::Strict
                || (lat.is_none_or(|r| lat_within(r.min, r.max, rho))
                    && thr.is_none_or(|r| thr_within(r.max, r.min, rho)));
            if (params.forbid_unmeasured && c.unmeasured) || !homogeneous {
                refused.insert(key);
                continue;
            }
            (lat, thr)
        } else {
            (
                Range::join(Range::join(g.lat[ia], g.lat[ib]), Some(Range::point(l))),
                Range::join(Range::join(g.thr[ia], g.thr[ib]), t.map(Range::point)),
            )
        };
        // Union by size; the larger group's root stays.
        let (big, small) = if g.members[ia].len() >= g.members[ib].len() {
            (ia, ib)
        } else {
            (ib, ia)
        };
        let moved = std::mem::take(&mut g.members[small]);
        g.members[big].extend(moved);
        g.parent[small] = big as u32;
        g.lat[big] = lat;
        g.thr[big] = thr;
    }
    let raw: Vec<usize> = (0..n as u32).map(|v| g.find(v) as usize).collect();
    Ok(Partition::from_raw_labels(&raw))
}

fn split(e: u128) -> (u64, usize, usize) {
    (
        (e >> 64) as u64,
        ((e >> 32) & 0xffff_ffff) as usize,
        (e & 0xffff_ffff) as usize,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::matrix::Symmetry;
    use proptest::prelude::*;

    /// Rows of optional integer nanoseconds as the matrix takes them.
    fn ns(rows: &[Vec<Option<u64>>]) -> Vec<Vec<Option<Nanos>>> {
        rows.iter()
            .map(|r| r.iter().map(|v| v.map(Nanos::new)).collect())
            .collect()
    }

    fn params(rule: AcceptRule) -> ClusterParams {
        ClusterParams {
            rule,
            ..ClusterParams::default()
        }
    }

    const RULES: [AcceptRule; 3] = [
        AcceptRule::EcoMinEdge,
        AcceptRule::SubnetMin,
        AcceptRule::Strict,
    ];

    /// A gradual chain: path 0-1-2-3-4 with 100, 115, 132, 152 µs (each step within 20 % of
    /// the previous), other pairs
    /// 100·1.15^(b−a)·1.25 µs.
    fn chain() -> LatencyMatrix {
        let path = [100_000_u64, 115_000, 132_000, 152_000];
        LatencyMatrix::from_fn(
            5,
            |a, b| {
                let (a, b) = (a.min(b), a.max(b));
                Some(Nanos::new(match b - a {
                    0 => 0,
                    1 => path[a],
                    d => (100_000.0 * 1.15_f64.powi(d as i32) * 1.25) as u64,
                }))
            },
            Symmetry::Require,
        )
        .unwrap()
    }

    #[test]
    fn gradual_chain_separates_the_three_rules() {
        let m = chain();
        let run = |r| logical_clusters(&m, &params(r)).unwrap().labels().to_vec();
        assert_eq!(run(AcceptRule::EcoMinEdge), [0, 0, 0, 0, 0]);
        assert_eq!(run(AcceptRule::SubnetMin), [0, 0, 0, 1, 1]);
        assert_eq!(run(AcceptRule::Strict), [0, 0, 1, 1, 2]);
    }

    #[test]
    fn fixture_gives_six_subnets_under_every_rule() {
        for seed in [None, Some(1), Some(2), Some(3)] {
            let f = fixtures::idpot(seed);
            for rule in RULES {
                let p = logical_clusters(&f.matrix, &params(rule)).unwrap();
                assert_eq!(p.labels(), f.truth.as_slice(), "{rule:?} {seed:?}");
                assert_eq!(
                    p.labels(),
                    &[0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5]
                );
            }
        }
    }

    fn triangle(w: u64) -> LatencyMatrix {
        LatencyMatrix::from_rows(
            &ns(&[
                vec![Some(0), Some(100_000), Some(w)],
                vec![Some(100_000), Some(0), Some(w)],
                vec![Some(w), Some(w), Some(0)],
            ]),
            Symmetry::Require,
        )
        .unwrap()
    }

    #[test]
    fn bound_is_inclusive_and_exact() {
        for rule in RULES {
            let at = logical_clusters(&triangle(120_000), &params(rule)).unwrap();
            assert_eq!(at.labels(), &[0, 0, 0], "{rule:?}");
            let past = logical_clusters(&triangle(120_001), &params(rule)).unwrap();
            assert_eq!(past.labels(), &[0, 0, 1], "{rule:?}");
        }
    }

    #[test]
    fn missing_entries_separate_sites() {
        // two sites of three, only intra-site pairs measured, nearly equal latencies
        let site = |i: usize| i / 3;
        let m = LatencyMatrix::from_fn(
            6,
            |i, j| match (i == j, site(i) == site(j)) {
                (true, _) => Some(Nanos::ZERO),
                (false, true) => Some(Nanos::new(if site(i) == 0 { 50_000 } else { 52_000 })),
                (false, false) => None,
            },
            Symmetry::Require,
        )
        .unwrap();
        for rule in RULES {
            for forbid in [true, false] {
                let p = ClusterParams {
                    forbid_unmeasured: forbid,
                    ..params(rule)
                };
                assert_eq!(
                    logical_clusters(&m, &p).unwrap().labels(),
                    &[0, 0, 0, 1, 1, 1]
                );
            }
        }
    }

    #[test]
    fn unmeasured_pair_never_ends_up_inside_a_cluster() {
        // 0-1 and 1-2 measured at 100 µs, 0-2 missing: a chain would join 0 and 2.
        let m = LatencyMatrix::from_rows(
            &ns(&[
                vec![Some(0), Some(100_000), None],
                vec![Some(100_000), Some(0), Some(100_000)],
                vec![None, Some(100_000), Some(0)],
            ]),
            Symmetry::Require,
        )
        .unwrap();
        for rule in RULES {
            let p = logical_clusters(&m, &params(rule)).unwrap();
            assert_eq!(p.labels(), &[0, 0, 1], "{rule:?}");
            let loose = ClusterParams {
                forbid_unmeasured: false,
                ..params(rule)
            };
            assert_eq!(logical_clusters(&m, &loose).unwrap().labels(), &[0, 0, 0]);
        }
    }

    #[test]
    fn edge_cases() {
        let empty = LatencyMatrix::from_rows(&[], Symmetry::Require).unwrap();
        assert!(
            logical_clusters(&empty, &ClusterParams::default())
                .unwrap()
                .is_empty()
        );
        let one = LatencyMatrix::from_rows(&[vec![None]], Symmetry::Require).unwrap();
        assert_eq!(
            logical_clusters(&one, &ClusterParams::default())
                .unwrap()
                .groups(),
            &[vec![0]]
        );
        // a machine with no measured edge stays alone
        let lonely = LatencyMatrix::from_rows(
            &ns(&[
                vec![Some(0), Some(10), None],
                vec![Some(10), Some(0), None],
                vec![None, None, Some(0)],
            ]),
            Symmetry::Require,
        )
        .unwrap();
        assert_eq!(
            logical_clusters(&lonely, &ClusterParams::default())
                .unwrap()
                .labels(),
            &[0, 0, 1]
        );
    }

    #[test]
    fn rho_out_of_range_is_an_error() {
        let p = ClusterParams {
            rho_permille: 10_001,
            ..ClusterParams::default()
        };
        assert_eq!(
            logical_clusters(&triangle(1), &p),
            Err(Error::InvalidBound {
                rho_permille: 10_001
            })
        );
    }

    #[test]
    fn throughput_can_split_a_latency_cluster() {
        let m = triangle(100_000);
        let t = |x: u64| Some(BitsPerSec::new(x));
        let with = m
            .with_throughput(&[
                vec![None, t(1000), t(500)],
                vec![t(1000), None, t(500)],
                vec![t(500), t(500), None],
            ])
            .unwrap();
        for rule in RULES {
            let off = logical_clusters(&with, &params(rule)).unwrap();
            assert_eq!(off.labels(), &[0, 0, 0]);
            let on = ClusterParams {
                use_throughput: true,
                ..params(rule)
            };
            assert_eq!(
                logical_clusters(&with, &on).unwrap().labels(),
                &[0, 0, 1],
                "{rule:?}"
            );
        }
    }

    /// Max/min of the measured latencies inside each cluster.
    fn spread_ok(m: &LatencyMatrix, p: &Partition, rho: u32) -> bool {
        p.groups().iter().all(|g| {
            let v: Vec<u64> = g
                .iter()
                .flat_map(|&a| g.iter().filter(move |&&b| b > a).map(move |&b| (a, b)))
                .filter_map(|(a, b)| m.pair(a, b).map(Nanos::get))
                .collect();
            match (v.iter().min(), v.iter().max()) {
                (Some(&lo), Some(&hi)) => lat_within(lo, hi, rho),
                _ => true,
            }
        })
    }

    fn random_matrix() -> impl Strategy<Value = LatencyMatrix> {
        (1_usize..12).prop_flat_map(|n| {
            proptest::collection::vec(proptest::option::weighted(0.85, 1_u64..400), n * n).prop_map(
                move |v| {
                    LatencyMatrix::from_fn(
                        n,
                        |i, j| {
                            if i == j {
                                Some(Nanos::ZERO)
                            } else {
                                v[i.min(j) * n + i.max(j)].map(|x| Nanos::new(x * 1000))
                            }
                        },
                        Symmetry::Require,
                    )
                    .unwrap()
                },
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Strict output is homogeneous; forbid_unmeasured keeps unmeasured pairs apart;
        /// every rule is deterministic and yields a partition of all nodes.
        #[test]
        fn invariants(m in random_matrix(), rho in 0_u32..600) {
            for rule in RULES {
                let p = ClusterParams { rho_permille: rho, ..params(rule) };
                let a = logical_clusters(&m, &p).unwrap();
                prop_assert_eq!(&a, &logical_clusters(&m, &p).unwrap());
                prop_assert_eq!(a.node_count(), m.len());
                let mut seen: Vec<usize> = a.groups().concat();
                seen.sort_unstable();
                prop_assert_eq!(seen, (0..m.len()).collect::<Vec<_>>());
                for g in a.groups() {
                    for &x in g { for &y in g {
                        prop_assert!(x == y || m.pair(x, y).is_some());
                    }}
                }
                if rule == AcceptRule::Strict {
                    prop_assert!(spread_ok(&m, &a, rho));
                }
            }
        }

        /// Under ECO's rule, every node of a multi-node cluster has a measured edge inside it
        /// that passes the per-node test at both ends.
        #[test]
        fn every_cluster_of_size_two_or_more_has_an_accepted_edge(m in random_matrix()) {
            let p = logical_clusters(&m, &params(AcceptRule::EcoMinEdge)).unwrap();
            let n = m.len();
            let minedge: Vec<Option<u64>> = (0..n)
                .map(|v| (0..n).filter(|&u| u != v).filter_map(|u| m.pair(u, v).map(Nanos::get)).min())
                .collect();
            for g in p.groups().iter().filter(|g| g.len() > 1) {
                for &x in g {
                    let ok = g.iter().any(|&y| y != x && m.pair(x, y).is_some_and(|w| {
                        lat_within(minedge[x].unwrap(), w.get(), 200)
                            && lat_within(minedge[y].unwrap(), w.get(), 200)
                    }));
                    prop_assert!(ok);
                }
            }
        }
    }
}
