//! The latency (and optional throughput) matrix the clustering reads.
//!
//! Entries are integer nanoseconds (throughput: bytes per second), `None` meaning "not measured"
//! (the pairs that belong to different monitoring domains, paper §3.1). The matrix is directed:
//! `(i, j)` is the measurement from `i` to `j`; the clustering reads a symmetric value per pair
//! through the matrix's [`Symmetry`] policy.

use crate::TopoError;

/// Sentinel for "not measured" in the dense storage (input values are `i64`, so it cannot clash).
const MISSING: u64 = u64::MAX;

/// How the two directions of a pair are combined into one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Symmetry {
    /// Both directions must be equal (or both missing); anything else is
    /// [`TopoError::Asymmetric`].
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
        mut at: impl FnMut(usize, usize) -> Option<i64>,
        diagonal_zero: bool,
        symmetry: Symmetry,
    ) -> Result<Self, TopoError> {
        let mut values = Vec::with_capacity(n * n);
        for row in 0..n {
            for col in 0..n {
                let v = at(row, col);
                match v {
                    Some(value) if value < 0 => {
                        return Err(TopoError::Negative {
                            matrix,
                            row,
                            col,
                            value,
                        });
                    }
                    Some(value) if diagonal_zero && row == col && value != 0 => {
                        return Err(TopoError::NonzeroDiagonal { node: row, value });
                    }
                    Some(value) => values.push(value.unsigned_abs()),
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
                        return Err(TopoError::Asymmetric {
                            matrix,
                            row,
                            col,
                            forward: f.and_then(|x| i64::try_from(x).ok()),
                            backward: b.and_then(|x| i64::try_from(x).ok()),
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

fn check_rows<T>(matrix: &'static str, rows: &[Vec<T>]) -> Result<(), TopoError> {
    let n = rows.len();
    match rows.iter().position(|r| r.len() != n) {
        Some(row) => Err(TopoError::NotSquare {
            matrix,
            row,
            len: rows[row].len(),
            expected: n,
        }),
        None => Ok(()),
    }
}

/// Pairwise latencies (integer nanoseconds) between `n` nodes (machines), some pairs unmeasured,
/// with optional throughputs (bytes per second) of the same shape.
///
/// Validation on construction: square, no negative value, a zero (or missing) diagonal, and,
/// under [`Symmetry::Require`], equal directions.
///
/// # Example
/// ```
/// use topo_cluster::{LatencyMatrix, Symmetry};
/// let m = LatencyMatrix::from_rows(
///     &[vec![Some(0), Some(50), None], vec![Some(50), Some(0), None], vec![None, None, Some(0)]],
///     Symmetry::Require,
/// )?;
/// assert_eq!(m.pair(0, 1), Some(50));
/// assert_eq!(m.pair(0, 2), None);
/// # Ok::<(), topo_cluster::TopoError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatencyMatrix {
    latency: Dense,
    throughput: Option<Dense>,
    symmetry: Symmetry,
}

impl LatencyMatrix {
    /// A matrix from rows of optional nanosecond values.
    ///
    /// # Errors
    /// [`TopoError::NotSquare`], [`TopoError::Negative`], [`TopoError::NonzeroDiagonal`],
    /// [`TopoError::Asymmetric`] (only under [`Symmetry::Require`]).
    ///
    /// # Complexity
    /// O(n²) time and memory.
    pub fn from_rows(rows: &[Vec<Option<i64>>], symmetry: Symmetry) -> Result<Self, TopoError> {
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
        at: impl FnMut(usize, usize) -> Option<i64>,
        symmetry: Symmetry,
    ) -> Result<Self, TopoError> {
        Ok(Self {
            latency: Dense::build("latency", n, at, true, symmetry)?,
            throughput: None,
            symmetry,
        })
    }

    /// Adds throughputs (bytes per second), same shape; the diagonal is ignored.
    ///
    /// # Errors
    /// [`TopoError::NotSquare`], [`TopoError::ThroughputSize`], [`TopoError::Negative`],
    /// [`TopoError::Asymmetric`] (under [`Symmetry::Require`]).
    pub fn with_throughput(mut self, rows: &[Vec<Option<i64>>]) -> Result<Self, TopoError> {
        check_rows("throughput", rows)?;
        if rows.len() != self.len() {
            return Err(TopoError::ThroughputSize {
                latency: self.len(),
                throughput: rows.len(),
            });
        }
        self.throughput = Some(Dense::build(
            "throughput",
            rows.len(),
            |i, j| rows[i][j],
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
    pub fn directed(&self, i: usize, j: usize) -> Option<u64> {
        self.latency.raw(i, j)
    }

    /// The latency of the pair `{i, j}` under the matrix's [`Symmetry`] policy.
    ///
    /// # Panics
    /// If `i` or `j` is not below [`LatencyMatrix::len`].
    #[must_use]
    pub fn pair(&self, i: usize, j: usize) -> Option<u64> {
        self.latency.pair(i, j, self.symmetry)
    }

    /// The throughput of the pair `{i, j}`, when throughputs were given and the pair measured.
    ///
    /// # Panics
    /// If `i` or `j` is not below [`LatencyMatrix::len`].
    #[must_use]
    pub fn pair_throughput(&self, i: usize, j: usize) -> Option<u64> {
        self.throughput
            .as_ref()
            .and_then(|t| t.pair(i, j, self.symmetry))
    }

    /// Calls `f(i, j, latency)` for every measured pair `i < j` (symmetrised by the matrix's
    /// policy), in an unspecified but deterministic order.
    ///
    /// # Complexity
    /// O(n²), reading the matrix tile by tile.
    pub fn for_each_pair(&self, f: impl FnMut(usize, usize, u64)) {
        self.latency.for_each_pair(self.symmetry, f);
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

    #[test]
    fn not_square() {
        let e = LatencyMatrix::from_rows(&[vec![Some(0), Some(1)], vec![Some(1)]], Symmetry::Mean);
        assert_eq!(
            e,
            Err(TopoError::NotSquare {
                matrix: "latency",
                row: 1,
                len: 1,
                expected: 2
            })
        );
    }

    #[test]
    fn negative() {
        let e = LatencyMatrix::from_rows(
            &[vec![Some(0), Some(-3)], vec![Some(1), Some(0)]],
            Symmetry::Mean,
        );
        assert_eq!(
            e,
            Err(TopoError::Negative {
                matrix: "latency",
                row: 0,
                col: 1,
                value: -3
            })
        );
    }

    #[test]
    fn nonzero_diagonal() {
        let e = LatencyMatrix::from_rows(
            &[vec![Some(0), Some(3)], vec![Some(3), Some(7)]],
            Symmetry::Mean,
        );
        assert_eq!(e, Err(TopoError::NonzeroDiagonal { node: 1, value: 7 }));
        // a missing diagonal is fine
        assert!(LatencyMatrix::from_rows(&[vec![None]], Symmetry::Require).is_ok());
    }

    #[test]
    fn asymmetry_only_when_required() {
        let rows = [
            vec![Some(0), Some(10), Some(4)],
            vec![Some(20), Some(0), None],
            vec![None, None, Some(0)],
        ];
        assert_eq!(
            LatencyMatrix::from_rows(&rows, Symmetry::Require),
            Err(TopoError::Asymmetric {
                matrix: "latency",
                row: 0,
                col: 1,
                forward: Some(10),
                backward: Some(20)
            })
        );
        let mean = LatencyMatrix::from_rows(&rows, Symmetry::Mean).unwrap();
        assert_eq!(mean.pair(0, 1), Some(15));
        assert_eq!(mean.pair(2, 0), Some(4));
        assert_eq!(mean.directed(1, 0), Some(20));
        let max = LatencyMatrix::from_rows(&rows, Symmetry::Max).unwrap();
        assert_eq!(max.pair(1, 0), Some(20));
        assert_eq!(max.pair(1, 2), None);
    }

    #[test]
    fn mean_does_not_overflow() {
        let big = i64::MAX;
        let m = LatencyMatrix::from_rows(
            &[vec![Some(0), Some(big)], vec![Some(big - 1), Some(0)]],
            Symmetry::Mean,
        )
        .unwrap();
        assert_eq!(m.pair(0, 1), Some(big.unsigned_abs() - 1));
    }

    #[test]
    fn throughput_validation() {
        let m = LatencyMatrix::from_rows(
            &[vec![Some(0), Some(1)], vec![Some(1), Some(0)]],
            Symmetry::Require,
        )
        .unwrap();
        assert_eq!(
            m.clone().with_throughput(&[vec![None]]),
            Err(TopoError::ThroughputSize {
                latency: 2,
                throughput: 1
            })
        );
        assert_eq!(
            m.clone()
                .with_throughput(&[vec![None, Some(-1)], vec![Some(1), None]]),
            Err(TopoError::Negative {
                matrix: "throughput",
                row: 0,
                col: 1,
                value: -1
            })
        );
        assert_eq!(
            m.clone()
                .with_throughput(&[vec![None, Some(2)], vec![Some(1)]]),
            Err(TopoError::NotSquare {
                matrix: "throughput",
                row: 1,
                len: 1,
                expected: 2
            })
        );
        assert!(matches!(
            m.clone()
                .with_throughput(&[vec![None, Some(2)], vec![Some(1), None]]),
            Err(TopoError::Asymmetric {
                matrix: "throughput",
                ..
            })
        ));
        let ok = m
            .with_throughput(&[vec![Some(9), Some(2)], vec![Some(2), None]])
            .unwrap();
        assert_eq!(ok.pair_throughput(1, 0), Some(2));
    }
}
