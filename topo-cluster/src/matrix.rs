//! The latency (and optional throughput) matrix the clustering reads.
//!
//! Entries are [`Nanos`] (throughput: [`BitsPerSec`]), `None` meaning "not measured" (the
//! pairs that belong to different monitoring domains, paper §3.1). The matrix is directed:
//! `(i, j)` is the measurement from `i` to `j`; the clustering reads a symmetric value per pair
//! through the matrix's [`Symmetry`] policy.

use fabric_model::bridge::{LatencyModel, latency_matrix};
use fabric_model::{BitsPerSec, Fabric, HopTable, Nanos, NodeId};

use crate::Error;

/// Sentinel for "not measured" in the dense storage; an input of `u64::MAX` is refused
/// ([`Error::ValueTooLarge`]), so it cannot clash.
const MISSING: u64 = u64::MAX;

/// How the two directions of a pair are combined into one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Symmetry {
    /// Both directions must be equal (or both missing); anything else is
    /// [`Error::Asymmetric`].
    Require,
    /// The mean of both directions, rounded down, when both exist; otherwise the one present.
    #[default]
    Mean,
    /// The larger (conservative) of both directions when both exist; otherwise the one present.
    Max,
}

/// A validated square matrix of optional values (row-major, `n × n`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Dense {
    n: usize,
    values: Vec<u64>,
}

impl Dense {
    fn build(
        matrix: &'static str,
        n: usize,
        mut at: impl FnMut(usize, usize) -> Option<u64>,
        diagonal_zero: bool,
        symmetry: Symmetry,
    ) -> Result<Self, Error> {
        let mut values = Vec::with_capacity(n * n);
        for row in 0..n {
            for col in 0..n {
                let v = at(row, col);
                match v {
                    Some(MISSING) => return Err(Error::ValueTooLarge { matrix, row, col }),
                    Some(value) if diagonal_zero && row == col && value != 0 => {
                        return Err(Error::NonzeroDiagonal {
                            node: row,
                            value: Nanos::new(value),
                        });
                    }
                    Some(value) => values.push(value),
                    None => values.push(MISSING),
                }
            }
        }
        let dense = Self { n, values };
        if symmetry == Symmetry::Require {
            for row in 0..n {
                for col in row + 1..n {
                    let (f, b) = (dense.raw(row, col), dense.raw(col, row));
                    if f != b {
                        return Err(Error::Asymmetric {
                            matrix,
                            row,
                            col,
                            forward: f,
                            backward: b,
                        });
                    }
                }
            }
        }
        Ok(dense)
    }

    fn raw(&self, i: usize, j: usize) -> Option<u64> {
        let v = self.values[i * self.n + j];
        (v != MISSING).then_some(v)
    }

    fn pair(&self, i: usize, j: usize, symmetry: Symmetry) -> Option<u64> {
        combine(self.raw(i, j), self.raw(j, i), symmetry)
    }

    /// Calls `f(i, j, value)` for every measured pair i < j, in 64 × 64 tiles so that both
    /// directions are read from cache.
    fn for_each_pair(&self, symmetry: Symmetry, mut f: impl FnMut(usize, usize, u64)) {
        const TILE: usize = 64;
        let n = self.n;
        let v = &self.values;
        for bi in (0..n).step_by(TILE) {
            for bj in (bi..n).step_by(TILE) {
                for i in bi..(bi + TILE).min(n) {
                    let row = &v[i * n..(i + 1) * n];
                    for j in bj.max(i + 1)..(bj + TILE).min(n) {
                        let (a, b) = (row[j], v[j * n + i]);
                        if a == MISSING && b == MISSING {
                            continue;
                        }
                        let to = |x: u64| (x != MISSING).then_some(x);
                        if let Some(x) = combine(to(a), to(b), symmetry) {
                            f(i, j, x);
                        }
                    }
                }
            }
        }
    }
}

/// One value for a pair from its two directions.
fn combine(a: Option<u64>, b: Option<u64>, symmetry: Symmetry) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(match symmetry {
            Symmetry::Require | Symmetry::Mean => a / 2 + b / 2 + (a % 2 + b % 2) / 2,
            Symmetry::Max => a.max(b),
        }),
        (Some(a), None) | (None, Some(a)) => Some(a),
        (None, None) => None,
    }
}

fn check_rows<T>(matrix: &'static str, rows: &[Vec<T>]) -> Result<(), Error> {
    let n = rows.len();
    match rows.iter().position(|r| r.len() != n) {
        Some(row) => Err(Error::NotSquare {
            matrix,
            row,
            len: rows[row].len(),
            expected: n,
        }),
        None => Ok(()),
    }
}

/// Pairwise latencies between `n` nodes (machines, or ranks), some pairs unmeasured, with
/// optional throughputs of the same shape.
///
/// Validation on construction: square, a zero (or missing) diagonal, no value of `u64::MAX`
/// (reserved), and, under [`Symmetry::Require`], equal directions.
///
/// # Example
/// ```
/// use fabric_model::Nanos;
/// use topo_cluster::{LatencyMatrix, matrix::Symmetry};
/// let ns = |v| Some(Nanos::new(v));
/// let m = LatencyMatrix::from_rows(
///     &[vec![ns(0), ns(50), None], vec![ns(50), ns(0), None], vec![None, None, ns(0)]],
///     Symmetry::Require,
/// )?;
/// assert_eq!(m.pair(0, 1), Some(Nanos::new(50)));
/// assert_eq!(m.pair(0, 2), None);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatencyMatrix {
    latency: Dense,
    throughput: Option<Dense>,
    symmetry: Symmetry,
}

impl LatencyMatrix {
    /// A matrix from rows of optional latencies.
    ///
    /// # Errors
    /// [`Error::NotSquare`], [`Error::ValueTooLarge`], [`Error::NonzeroDiagonal`],
    /// [`Error::Asymmetric`] (only under [`Symmetry::Require`]).
    ///
    /// # Complexity
    /// O(n²) time and memory.
    pub fn from_rows(rows: &[Vec<Option<Nanos>>], symmetry: Symmetry) -> Result<Self, Error> {
        check_rows("latency", rows)?;
        Self::from_fn(rows.len(), |i, j| rows[i][j], symmetry)
    }

    /// A matrix of `n` nodes whose entry `(i, j)` is `at(i, j)` (for large generated inputs).
    ///
    /// # Errors
    /// As [`LatencyMatrix::from_rows`], except `NotSquare`.
    ///
    /// # Complexity
    /// O(n²) time and memory (8 bytes per entry).
    pub fn from_fn(
        n: usize,
        mut at: impl FnMut(usize, usize) -> Option<Nanos>,
        symmetry: Symmetry,
    ) -> Result<Self, Error> {
        Ok(Self {
            latency: Dense::build(
                "latency",
                n,
                |i, j| at(i, j).map(Nanos::get),
                true,
                symmetry,
            )?,
            throughput: None,
            symmetry,
        })
    }

    /// The bridge from a fabric: node `r` of the matrix is rank `r`, placed on terminal
    /// `ranks[r]` (as [`fabric_model::place`] returns), and the latency of `(a, b)` is
    /// [`fabric_model::bridge::latency_matrix`]'s: the sum of the link latencies on the min-hop
    /// path, plus `model.per_switch` per switch crossed, plus the serialisation of
    /// `model.message` at the slowest link's rate; `model.intra_node` between two ranks on one
    /// terminal, and 0 from a rank to itself. Every pair is measured; the directions are
    /// combined by [`Symmetry::Mean`] (min-hop paths may differ by direction).
    ///
    /// # Errors
    /// [`Error::Fabric`] for the errors of [`fabric_model::bridge::latency_matrix`] (an unknown
    /// node, a foreign hop table, two ranks that cannot reach each other);
    /// [`Error::ValueTooLarge`] if a latency saturated at [`Nanos::MAX`].
    ///
    /// # Complexity
    /// O(T² × hops × radix + n²) for T distinct terminals among the `n` ranks.
    ///
    /// # Example
    /// ```
    /// use fabric_model::{Bytes, HopTable, Nanos, Placement, bridge::LatencyModel, generators, place};
    /// use topo_cluster::LatencyMatrix;
    ///
    /// let f = generators::fat_tree(4)?;
    /// let hops = HopTable::new(&f)?;
    /// let ranks = place(f.terminals(), 4, 1, Placement::Block)?;
    /// let m = LatencyMatrix::from_fabric(&f, &hops, &ranks, &LatencyModel::new(Bytes::new(0)))?;
    /// assert_eq!(m.pair(0, 1), Some(Nanos::new(200))); // two 100 ns links via their leaf
    /// assert_eq!(m.pair(0, 2), Some(Nanos::new(400))); // up to the pod's spine and down
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_fabric(
        fabric: &Fabric,
        hops: &HopTable,
        ranks: &[NodeId],
        model: &LatencyModel,
    ) -> Result<Self, Error> {
        let n = ranks.len();
        let values = latency_matrix(fabric, hops, ranks, model)?;
        Self::from_fn(
            n,
            |i, j| {
                Some(if i == j {
                    Nanos::ZERO
                } else {
                    values[i * n + j]
                })
            },
            Symmetry::Mean,
        )
    }

    /// Adds throughputs, same shape; the diagonal is ignored.
    ///
    /// # Errors
    /// [`Error::NotSquare`], [`Error::ThroughputSize`], [`Error::ValueTooLarge`],
    /// [`Error::Asymmetric`] (under [`Symmetry::Require`]).
    pub fn with_throughput(mut self, rows: &[Vec<Option<BitsPerSec>>]) -> Result<Self, Error> {
        check_rows("throughput", rows)?;
        if rows.len() != self.len() {
            return Err(Error::ThroughputSize {
                latency: self.len(),
                throughput: rows.len(),
            });
        }
        self.throughput = Some(Dense::build(
            "throughput",
            rows.len(),
            |i, j| rows[i][j].map(BitsPerSec::get),
            false,
            self.symmetry,
        )?);
        Ok(self)
    }

    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.latency.n
    }

    /// Whether the matrix has no node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.latency.n == 0
    }

    /// The symmetry policy given at construction.
    #[must_use]
    pub fn symmetry(&self) -> Symmetry {
        self.symmetry
    }

    /// The directed measurement from `i` to `j`, if any.
    ///
    /// # Panics
    /// If `i` or `j` is not below [`LatencyMatrix::len`].
    #[must_use]
    pub fn directed(&self, i: usize, j: usize) -> Option<Nanos> {
        self.latency.raw(i, j).map(Nanos::new)
    }

    /// The latency of the pair `{i, j}` under the matrix's [`Symmetry`] policy.
    ///
    /// # Panics
    /// If `i` or `j` is not below [`LatencyMatrix::len`].
    #[must_use]
    pub fn pair(&self, i: usize, j: usize) -> Option<Nanos> {
        self.latency.pair(i, j, self.symmetry).map(Nanos::new)
    }

    /// The throughput of the pair `{i, j}`, when throughputs were given and the pair measured.
    ///
    /// # Panics
    /// If `i` or `j` is not below [`LatencyMatrix::len`].
    #[must_use]
    pub fn pair_throughput(&self, i: usize, j: usize) -> Option<BitsPerSec> {
        self.throughput
            .as_ref()
            .and_then(|t| t.pair(i, j, self.symmetry))
            .map(BitsPerSec::new)
    }

    /// Calls `f(i, j, latency)` for every measured pair `i < j` (symmetrised by the matrix's
    /// policy), in an unspecified but deterministic order.
    ///
    /// # Complexity
    /// O(n²), reading the matrix tile by tile.
    pub fn for_each_pair(&self, mut f: impl FnMut(usize, usize, Nanos)) {
        self.latency
            .for_each_pair(self.symmetry, |i, j, v| f(i, j, Nanos::new(v)));
    }

    /// Whether throughputs were given.
    #[must_use]
    pub fn has_throughput(&self) -> bool {
        self.throughput.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(rows: &[Vec<Option<u64>>]) -> Vec<Vec<Option<Nanos>>> {
        rows.iter()
            .map(|r| r.iter().map(|v| v.map(Nanos::new)).collect())
            .collect()
    }

    fn bps(rows: &[Vec<Option<u64>>]) -> Vec<Vec<Option<BitsPerSec>>> {
        rows.iter()
            .map(|r| r.iter().map(|v| v.map(BitsPerSec::new)).collect())
            .collect()
    }

    #[test]
    fn not_square() {
        let e = LatencyMatrix::from_rows(
            &ns(&[vec![Some(0), Some(1)], vec![Some(1)]]),
            Symmetry::Mean,
        );
        assert_eq!(
            e,
            Err(Error::NotSquare {
                matrix: "latency",
                row: 1,
                len: 1,
                expected: 2
            })
        );
    }

    #[test]
    fn reserved_value() {
        let e = LatencyMatrix::from_rows(
            &ns(&[vec![Some(0), Some(u64::MAX)], vec![Some(1), Some(0)]]),
            Symmetry::Mean,
        );
        assert_eq!(
            e,
            Err(Error::ValueTooLarge {
                matrix: "latency",
                row: 0,
                col: 1,
            })
        );
    }

    #[test]
    fn nonzero_diagonal() {
        let e = LatencyMatrix::from_rows(
            &ns(&[vec![Some(0), Some(3)], vec![Some(3), Some(7)]]),
            Symmetry::Mean,
        );
        assert_eq!(
            e,
            Err(Error::NonzeroDiagonal {
                node: 1,
                value: Nanos::new(7)
            })
        );
        // a missing diagonal is fine
        assert!(LatencyMatrix::from_rows(&[vec![None]], Symmetry::Require).is_ok());
    }

    #[test]
    fn asymmetry_only_when_required() {
        let rows = ns(&[
            vec![Some(0), Some(10), Some(4)],
            vec![Some(20), Some(0), None],
            vec![None, None, Some(0)],
        ]);
        assert_eq!(
            LatencyMatrix::from_rows(&rows, Symmetry::Require),
            Err(Error::Asymmetric {
                matrix: "latency",
                row: 0,
                col: 1,
                forward: Some(10),
                backward: Some(20)
            })
        );
        let mean = LatencyMatrix::from_rows(&rows, Symmetry::Mean).unwrap();
        assert_eq!(mean.pair(0, 1), Some(Nanos::new(15)));
        assert_eq!(mean.pair(2, 0), Some(Nanos::new(4)));
        assert_eq!(mean.directed(1, 0), Some(Nanos::new(20)));
        let max = LatencyMatrix::from_rows(&rows, Symmetry::Max).unwrap();
        assert_eq!(max.pair(1, 0), Some(Nanos::new(20)));
        assert_eq!(max.pair(1, 2), None);
    }

    #[test]
    fn mean_does_not_overflow() {
        let big = u64::MAX - 1;
        let m = LatencyMatrix::from_rows(
            &ns(&[vec![Some(0), Some(big)], vec![Some(big - 1), Some(0)]]),
            Symmetry::Mean,
        )
        .unwrap();
        assert_eq!(m.pair(0, 1), Some(Nanos::new(big - 1)));
    }

    #[test]
    fn throughput_validation() {
        let m = LatencyMatrix::from_rows(
            &ns(&[vec![Some(0), Some(1)], vec![Some(1), Some(0)]]),
            Symmetry::Require,
        )
        .unwrap();
        assert_eq!(
            m.clone().with_throughput(&[vec![None]]),
            Err(Error::ThroughputSize {
                latency: 2,
                throughput: 1
            })
        );
        assert_eq!(
            m.clone()
                .with_throughput(&bps(&[vec![None, Some(u64::MAX)], vec![Some(1), None]])),
            Err(Error::ValueTooLarge {
                matrix: "throughput",
                row: 0,
                col: 1,
            })
        );
        assert_eq!(
            m.clone()
                .with_throughput(&bps(&[vec![None, Some(2)], vec![Some(1)]])),
            Err(Error::NotSquare {
                matrix: "throughput",
                row: 1,
                len: 1,
                expected: 2
            })
        );
        assert!(matches!(
            m.clone()
                .with_throughput(&bps(&[vec![None, Some(2)], vec![Some(1), None]])),
            Err(Error::Asymmetric {
                matrix: "throughput",
                ..
            })
        ));
        let ok = m
            .with_throughput(&bps(&[vec![Some(9), Some(2)], vec![Some(2), None]]))
            .unwrap();
        assert_eq!(ok.pair_throughput(1, 0), Some(BitsPerSec::new(2)));
    }
}
