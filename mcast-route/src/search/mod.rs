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
