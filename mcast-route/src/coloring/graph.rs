//! The conflict graph (compressed rows) and a coloring of it.

use crate::Error;

/// An undirected simple graph on the vertices `0..len()`, in compressed rows: each vertex's
/// neighbours sorted, without repeats or self loops.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    /// `offsets[v]..offsets[v + 1]` is `v`'s slice of `neighbours`.
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
}

/// The most vertices [`Graph::from_edges`] and [`Graph::from_adjacency`] take: 2²⁴ (a
/// conflict graph's vertices are multicast trees or groups, and a subnet has at most 2¹⁴
/// multicast LIDs; the bound keeps the rows' offsets, 4 bytes a vertex, under 64 MiB).
pub const MAX_VERTICES: usize = 1 << 24;

/// The most edges (each counted once per listing) [`Graph::from_edges`] and
/// [`Graph::from_adjacency`] take: 2²⁷, so that the edge list they sort, both directions at 8
/// bytes each, stays within 2 GiB and every row offset fits in a `u32`.
pub const MAX_EDGES: usize = 1 << 27;

impl Graph {
    /// The graph on `max(n, largest endpoint + 1)` vertices with the edges `edges`, each
    /// taken in both directions; repeated edges count once and self loops are dropped (a
    /// vertex does not conflict with itself).
    ///
    /// # Errors
    /// [`Error::GraphTooLarge`] when the graph would have more than [`MAX_VERTICES`]
    /// vertices or `edges` lists more than [`MAX_EDGES`] edges (at once where its size hint
    /// says so, else when the edge past the bound comes).
    ///
    /// # Complexity
    /// O(n + E log E) for E edges.
    pub fn from_edges(
        n: usize,
        edges: impl IntoIterator<Item = (u32, u32)>,
    ) -> Result<Self, Error> {
        let too_large = |vertices: usize, edges: usize| Error::GraphTooLarge {
            vertices,
            edges,
            max_vertices: MAX_VERTICES,
            max_edges: MAX_EDGES,
        };
        if n > MAX_VERTICES {
            return Err(too_large(n, 0));
        }
        let edges = edges.into_iter();
        if edges.size_hint().0 > MAX_EDGES {
            return Err(too_large(n, edges.size_hint().0));
        }
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut n = n;
        for (listed, (a, b)) in edges.enumerate() {
            n = n.max(a.max(b) as usize + 1);
            if n > MAX_VERTICES || listed >= MAX_EDGES {
                return Err(too_large(n, listed + 1));
            }
            if a != b {
                pairs.push((a, b));
                pairs.push((b, a));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        let mut i = 0;
        // n ≤ MAX_VERTICES and pairs.len() ≤ 2 · MAX_EDGES both fit in a u32.
        for v in 0..n as u32 {
            while i < pairs.len() && pairs[i].0 == v {
                i += 1;
            }
            offsets.push(i as u32);
        }
        Ok(Self {
            offsets,
            neighbours: pairs.into_iter().map(|p| p.1).collect(),
        })
    }

    /// The graph whose vertex `v` is joined to every vertex of `adjacency[v]` (made
    /// symmetric: an edge listed at one end only is taken at both), as
    /// [`from_edges`](Self::from_edges).
    ///
    /// # Errors
    /// [`Error::GraphTooLarge`], as [`from_edges`](Self::from_edges).
    ///
    /// # Complexity
    /// O(n + E log E).
    pub fn from_adjacency(adjacency: &[Vec<u32>]) -> Result<Self, Error> {
        Self::from_edges(
            adjacency.len(),
            adjacency
                .iter()
                .enumerate()
                .flat_map(|(v, row)| row.iter().map(move |&u| (v as u32, u))),
        )
    }

    /// The graph whose vertex `v`'s neighbours are `rows[v]`, each sorted, without repeats
    /// or `v` itself, and symmetric (the router's own conflict graphs, built that way).
    pub(crate) fn from_rows(rows: &[Vec<u32>]) -> Self {
        let mut g = Self::default();
        for row in rows {
            g.push_row(row);
        }
        g
    }

    /// Appends vertex `len()` with the neighbours `row`, which must be sorted, without
    /// repeats or the vertex itself, and symmetric once every row is in (the router builds
    /// its trees' conflict graph this way, without the edge list).
    pub(crate) fn push_row(&mut self, row: &[u32]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        debug_assert!(row.windows(2).all(|w| w[0] < w[1]));
        self.neighbours.extend_from_slice(row);
        self.offsets.push(self.neighbours.len() as u32);
    }

    /// The number of vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the graph has no vertex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of edges.
    #[must_use]
    pub fn edge_count(&self) -> usize {
        self.neighbours.len() / 2
    }

    /// The neighbours of `v`, sorted (empty for a vertex past the end).
    #[must_use]
    pub fn neighbours(&self, v: usize) -> &[u32] {
        match (self.offsets.get(v), self.offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.neighbours[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The degree of `v`.
    #[must_use]
    pub fn degree(&self, v: usize) -> usize {
        self.neighbours(v).len()
    }
}

/// A color per vertex, `0..count()`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coloring {
    colors: Vec<u32>,
}

impl Coloring {
    /// The coloring giving vertex `v` color `colors[v]`.
    #[must_use]
    pub fn from_colors(colors: Vec<u32>) -> Self {
        Self { colors }
    }

    /// Each vertex's color.
    #[must_use]
    pub fn colors(&self) -> &[u32] {
        &self.colors
    }

    /// The colors the coloring spans: the largest color plus one (0 for no vertex).
    #[must_use]
    pub fn count(&self) -> usize {
        self.colors.iter().max().map_or(0, |&c| c as usize + 1)
    }

    /// The edges of `g` whose two ends have one color (vertices past the coloring's end
    /// count as uncolored and clash with nothing).
    ///
    /// # Complexity
    /// O(n + E).
    #[must_use]
    pub fn conflicts(&self, g: &Graph) -> usize {
        (0..g.len().min(self.colors.len()))
            .map(|v| {
                g.neighbours(v)
                    .iter()
                    .filter(|&&u| {
                        (u as usize) > v && self.colors.get(u as usize) == Some(&self.colors[v])
                    })
                    .count()
            })
            .sum()
    }

    /// The same classes numbered `0..` in the order of their colors.
    ///
    /// Complexity: O(n log n).
    pub(crate) fn compacted(&self) -> Self {
        let mut used = self.colors.clone();
        used.sort_unstable();
        used.dedup();
        Self {
            colors: self
                .colors
                .iter()
                .map(|c| used.partition_point(|u| u < c) as u32)
                .collect(),
        }
    }

    /// Whether every vertex of `g` is colored and no edge joins two vertices of one color.
    #[must_use]
    pub fn is_proper(&self, g: &Graph) -> bool {
        self.colors.len() == g.len() && self.conflicts(g) == 0
    }
}
