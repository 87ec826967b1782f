//! Vertex colorings of conflict graphs: the offline colorings behind [`Router::recolor`]
//! and `reproduce mcast-colors`, one algorithm per file.
//!
//! A [`Graph`] is an undirected simple graph in compressed rows; a [`Coloring`] gives each
//! vertex a color `0..count`, proper when no edge joins two vertices of one color.
//!
//! - [`first_fit()`] / [`first_fit_in`]: each vertex in turn takes the least color its colored
//!   neighbours leave (what Alg. 1's online coloring does with the trees' conflicts);
//! - [`dsatur()`]: Brélaz's DSatur, the vertex of most distinct neighbour colors first;
//! - [`tabucol()`] / [`tabu_descend`]: Hertz and de Werra's tabu search for a `k`-coloring,
//!   and the fewest colors it reaches going down one color at a time;
//! - [`greedy_clique`]: a clique, whose size no proper coloring can go below.
//!
//! First fit and DSatur also take an optional [`Capacity`]: sets of vertices' resources of
//! which one color may hold at most a given number.
//!
//! Everything here is deterministic: tabu search draws its ties from a generator seeded by
//! [`Tabu::with_seed`].
//!
//! ```
//! use mcast_route::coloring::{Graph, Tabu, dsatur, tabu_descend};
//!
//! // The 5-cycle: chromatic number 3.
//! let g = Graph::from_edges(5, (0..5).map(|v| (v, (v + 1) % 5)))?;
//! let d = dsatur(&g, None);
//! assert!(d.coloring.is_proper(&g) && d.coloring.count() == 3);
//! let t = tabu_descend(&g, d.coloring, 2, &Tabu::default());
//! assert_eq!(t.count(), 3);
//! # Ok::<(), mcast_route::Error>(())
//! ```
//!
//! [`Router::recolor`]: crate::Router::recolor

mod capacity;
mod clique;
mod dsatur;
mod first_fit;
mod graph;
mod tabucol;

pub use capacity::Capacity;
pub use clique::greedy_clique;
pub use dsatur::{Dsatur, dsatur};
pub use first_fit::{first_fit, first_fit_in};
pub use graph::{Coloring, Graph, MAX_EDGES, MAX_VERTICES};
pub(crate) use tabucol::Xorshift;
pub use tabucol::{DEFAULT_TABU_MOVES, DEFAULT_TABU_SEED, Descent, Tabu, tabu_descend, tabucol};

#[cfg(test)]
mod tests;
