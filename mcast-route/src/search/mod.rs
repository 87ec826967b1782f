//! The switch graph in compressed rows, and the searches over it with reusable scratch space,
//! one kind of search per file, each with its reference oracle or property tests beside it.
//! `G_color` is never built: searches take an availability predicate that reads the
//! per-switch busy bitmaps.
//!
//! - [`switch_graph`]: the switch–switch adjacency ([`SwitchGraph`], [`Adj`]);
//! - [`scratch`], [`marks`]: the searches' reusable per-switch arrays ([`Scratch`]);
//! - [`rows`]: hop-table rows folded into least or largest distances ([`fold_rows`]);
//! - [`bfs`]: bounded BFS and whole components of `G_color`;
//! - [`least_farthest`]: the bit-parallel search for a merged tree's root;
//! - [`dijkstra`]: Dijkstra by (hops, Σ EFI), with old trees, and its paths (its oracle, the
//!   binary-heap Dijkstra it replaced, in its `oracle` test module);
//! - [`layered`]: the same without old trees, one hop level at a time.

mod bfs;
mod dijkstra;
mod layered;
mod least_farthest;
mod marks;
mod rows;
mod scratch;
mod switch_graph;
#[cfg(test)]
mod tests;

pub(crate) use marks::Marks;
pub(crate) use rows::fold_rows;
pub(crate) use scratch::Scratch;
pub(crate) use switch_graph::{Adj, SwitchGraph};

pub(super) const NO_SLOT: u32 = u32::MAX;

/// How far a search goes: as far as its targets, or over everything it can reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extent {
    /// It stops once every target is settled.
    Targets,
    /// It settles every reachable switch (SSSP-MC's shortest-path tree).
    Whole,
}

/// Whether a search enters switches that cannot lead to a target in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pruning {
    /// Every available switch within the bound is entered.
    Off,
    /// Switches too far from every target by [`Scratch::near`] (filled for the targets) are
    /// not entered: the answer is the same, the search smaller.
    Near,
}
