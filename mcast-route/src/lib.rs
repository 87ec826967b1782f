//! # mcast-route
//!
//! MR4LMS: multicast routing for a limited multicast forwarding table (MFT), after
//! Chen Shuping, He Wangquan, Li Yi and Qi Fengbin, "Multicast Routing Algorithm for Limited
//! MFT Size in InfiniBand" (InfiniBand中面向有限多播表条目数的多播路由算法), *Journal of
//! Computer Research and Development* (计算机研究与发展), 2022, 59(4): 864–881,
//! doi:10.7544/issn1000-1239.20200767 ("the paper" below; algorithm, step and formula
//! numbers are its own). OpenSM's MINIHOP-MC and SSSP-MC multicast routing engines are the
//! baselines, behind the same interface.
//!
//! A subnet manager creates and deletes multicast groups one at a time, in arrival order, and
//! programs its switches from the router's tables. Each switch has `n_colors` MFT entries; a
//! tree uses one color (entry, MLID `0xC000 + color`) on every switch it passes, and trees
//! passing through one switch have different colors. MR4LMS builds minimal-height trees
//! that reuse colors on disjoint switches:
//!
//! - candidate roots: the switches of least maximum hop distance to the members, sorted by
//!   load (Alg. 1 step ①);
//! - FBTC (Alg. 1): build bottom-up along least-loaded min-hop ports (Alg. 2), then color
//!   first-fit;
//! - FCTB (Alg. 3): choose a color whose subgraph `G_color` connects the members within the
//!   least height, then build by Dijkstra in it (`G_color` is read off per-switch busy
//!   bitmaps, never built);
//! - merging (Alg. 4) when no color is left, keeping the old trees' links (Alg. 5) or
//!   rebuilding; the optimistic step merges the tree nearest the group by formula (1),
//!   `d(g, T) = (Σ_{x∈g} min_{y∈T} h(x, y) + Σ_{y∈T} min_{x∈g} h(y, x)) / (|g| + |T|)`
//!   over the member terminals of the group g and the tree T, with h the hop distance
//!   between two terminals (0 for the same terminal, else the hops between their switches
//!   plus 2);
//! - deletion (Alg. 6) and the adaptive FBTC/FCTB policy (Alg. 7).
//!
//! ```
//! use fabric_model::{generators, HopTable};
//! use mcast_route::{Config, Entries, Method, Router, patterns};
//!
//! let fabric = generators::fat_tree(8)?;
//! let hops = HopTable::new(&fabric)?;
//! let mut router = Router::new(&fabric, &hops, Config::mr4lms(Entries::Limit(16)))?;
//! // One group per line of an 8×4×4 process grid: 80 groups.
//! for members in patterns::grid(&fabric, &[8, 4, 4], 1)? {
//!     let made = router.create_group(&members)?;
//!     if made.method != Method::Merge {
//!         assert_eq!(made.height, made.min_height); // FBTC and FCTB trees are minimal
//!     }
//! }
//! let stats = router.stats();
//! assert!(stats.colors_used <= 16 && stats.colors_used >= stats.color_lower_bound.min(16) as usize);
//! // Program a switch: its MFT blocks, or the text dump of every table.
//! let leaf = fabric.switches()[0];
//! assert!(!router.mft_blocks(leaf)?.is_empty());
//! assert!(router.dump()?.starts_with("switch "));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Outputs
//! Per switch and color, the forwarding [`PortSet`] ([`Router::entries`],
//! [`Router::port_set`]); per group its tree, color, root and height ([`Router::group`]); the
//! same tables as InfiniBand [`MftBlock`]s (32 MLIDs per block, 16-port position masks, port
//! 0 counted) and as a text dump ([`Router::dump`], read back by [`mft::parse_dump`]). Every
//! switch of a tree has exactly one parent.
//!
//! ## Errors
//! One error type, [`Error`]: bad members (empty, unknown, a switch, duplicated,
//! unreachable), unknown or deleted groups, a zero entry limit, a hop table of another
//! fabric, a baseline out of entries. Nothing panics on bad input.
//!
//! ## Choices beyond the paper
//! - Dijkstra (FCTB, merging, SSSP-MC) orders paths by (hops, Σ EFI) so that trees stay of
//!   least height, as OpenSM's P² + load weights do.
//! - [`MergeRoot::HopTable`] picks a merged tree's root by hop-table distances in one BFS.
//!   The default, [`MergeRoot::Bfs`], gives the paper's root (least largest `G_color` BFS
//!   distance) but finds it with bounded BFS from the switches in hop-distance order instead
//!   of one BFS per member switch (falling back to the latter when more switches than
//!   members would have to be tried).
//! - Formula (1) is evaluated exactly but pruned by a lower bound, with per-tree leaf counts,
//!   instead of over every pair of members.
//! - FCTB reuses an existing tree spanning the group only if it is no higher than the least
//!   height, so FCTB trees stay minimal.
//! - Alg. 7 is literal: when FBTC fails the group is merged at once, and FCTB runs from the
//!   next group on.
//! - FBTC colors up to [`Config::with_fbtc_root_tries`] roots (default 16, the paper 1) and keeps
//!   the least color, stopping at the first color free on every member switch; with no such
//!   color it fails at once, as trying every root would.
//! - The default merge strategy is [`MergeStrategy::LeastAddedLoad`]: the color whose
//!   trees on the new group's member switches (which must all join) add the least load when
//!   merged, instead of formula (1)'s nearest tree (still
//!   [`MergeStrategy::OptimisticThenPessimistic`]). Formula (1) often picks a tree sharing a
//!   terminal with the group whose color is taken, on the group's other member switches, by
//!   unrelated trees that must all join: with 128 entries on the 8-up-path tapered fat tree
//!   and the 64×16×34 4-per-terminal grid one tree ended with 1,314 groups (max EFI 2,464);
//!   the default keeps the largest at 29 (max EFI 509). On `torus(&[30, 20, 20], 2)` with
//!   256 entries and 5,000 random groups of 16 it merges 595 groups instead of 4,170 (max
//!   EFI 63 instead of 900).
//! - [`Router::recolor`] (ours, an explicit call): DSatur then TabuCol over the trees' conflict
//!   graph gives the existing trees fewer colors, trees unchanged, and returns the MFT delta;
//!   the online coloring stays Alg. 1's first fit.
//! - [`Router::recolor_rerouting`] (ours, an explicit call): the trees routed again by FCTB in
//!   the colors of a coloring of the groups' forced conflicts, then recolored; it goes below
//!   what the same trees can be recolored to (on fat_tree(40), random-1000x16: 58 colors
//!   against 65).
//! - [`BottomUp::LeastLoadPath`] (an option) walks each member along the least-hop path of
//!   least summed EFI instead of the paper's least loaded next link (step ⑧,
//!   [`BottomUp::Greedy`]). The default, [`BottomUp::BestOfBoth`], chooses FBTC's root with
//!   greedy builds, builds that root's tree both ways and keeps the one of least (color,
//!   largest link EFI, summed link EFI): on `torus(&[30, 20, 20], 2)` with the 28×28×28
//!   grid, max EFI 32 instead of 64 (SSSP-MC 43).
//! - The pessimistic merge's temporary root and bottom-up tree prefer switches free in the
//!   color (the paper leaves the root open), so they merge only trees they cannot avoid.
//! - Searches bounded by a height (FCTB's, the merged tree's root) skip switches whose hop
//!   distance to every member exceeds what is left: same answers, smaller searches. FCTB
//!   skips the connectivity search of steps ③–④, a filter only, when at most 64 candidate
//!   roots are free in the color.
//! - Trees are stored compactly (sorted switch vector, parent edges, children in compressed
//!   rows: about 24 bytes a switch); [`Router::memory_bytes`] counts every vector at its
//!   capacity. A router with 5,000 random groups of 16 on `torus(&[30, 20, 20], 2)` holds
//!   46 MB (process peak 206 MB with the fabric and the 144 MB hop table).
//! - [`Router::create_group`] takes terminals only; [`Router::join`] also takes a switch as its
//!   own port 0 (its MFT entry then holds port 0), as OpenSM allows for enhanced port 0.
//!
//! ## A live subnet manager
//! - [`Router::join`] and [`Router::leave`] add and remove one port of a group keyed by its
//!   MGID ([`Gid`]); the group's MLID (its tree's color) stays the same from its first join
//!   to its last leave. A join grafts the member onto the tree in its color, FCTB rebuilds
//!   in the color when a graft would exceed the least height, and Alg. 4 merges only with
//!   trees of that color. A leave prunes as Alg. 6.
//! - [`Router::apply`] ([`TopologyEvent`]: links and switches down and up) updates the hop
//!   table edge by edge (dynamic BFS) and repairs only the trees that crossed what went
//!   down, in their color where they can; unreachable members leave, and the
//!   [`TopologyOutcome`] names every group that changed.
//! - [`Router::take_mft_delta`] covers every one of these operations.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// A map of the crate for its readers (the modules are private unless `pub`), one folder
// for each kind of thing:
// - `router`: what a router holds and how it is read: `view` (the fabric as routed over:
//   switch graph, attachments, hop table, what is down; changed only by topology events),
//   `state` (trees, groups, colors, EFI, MFT log; the trees change only through
//   `State::install`/`uninstall`/`reinstall_with`), `mod.rs` (the `Router` over the two),
//   `groups` (a group created by the configured algorithm, deleted by Alg. 6), `inspect`
//   (the tables and views handed out), `held`; beside it `config`, `error`, `types`, `gid`;
// - `mr4lms`: the paper's steps, one algorithm a file: `roots` (Alg. 1 step ① and Alg. 2's
//   bottom-up walks), `fbtc` (Alg. 1) and `fctb` (Alg. 3), functions over the view, the
//   state (read only but for the color table's first-fit buffer) and the `search` scratch
//   that return the tree for the caller to install; `merge` (Alg. 4–5, which uninstalls
//   the merged trees); `least_height` and `far` (ours) the distances they read; `mod.rs`
//   Alg. 7;
// - `baseline`: OpenSM's MINIHOP-MC and SSSP-MC (`mod.rs`: root, MLID, tree; `join`);
// - `live`: a live subnet manager: `membership` (join, leave by MGID; `graft`), `topology`
//   (links and switches down and up; `grow`, `distances`);
// - `recolor`: offline recoloring (ours): `mod.rs` (the trees kept), `reroute` (the trees
//   routed again; `route_search`);
// - `tables`: what a subnet manager sends and reads: `colors` (the per-switch entries),
//   `portset`, `mft` (blocks and dumps, public), `delta`, `stats`;
// - searches and parts: `search` (one search kind per file, oracles beside them), `tree`,
//   `coloring` (DSatur, TabuCol, public), `bits`, `patterns` (public);
// - checks: `invariants` (every test and fuzz target runs it), `tests`, `fuzz_harness`.
mod baseline;
mod bits;
pub mod coloring;
mod config;
mod error;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_harness;
mod gid;
#[cfg(any(test, fuzzing))]
mod invariants;
mod live;
mod mr4lms;
pub mod patterns;
mod recolor;
mod router;
mod search;
mod tables;
#[cfg(test)]
mod tests;
mod tree;
mod types;

/// The README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use config::{
    Algorithm, BottomUp, Config, DEFAULT_FBTC_ROOT_TRIES, Entries, JoinColor, MAX_ENTRIES,
    MergeRoot, MergeStrategy, Policy, Regraft, SwitchOrder,
};
pub use error::Error;
pub use gid::Gid;
pub use live::membership::{JoinMethod, JoinOutcome, LeaveOutcome};
pub use live::topology::{TopologyEvent, TopologyOutcome};
pub use recolor::Recolored;
pub use router::{GroupView, Router, TreeView};
#[doc(inline)]
pub use tables::mft;
pub use tables::mft::MftBlock;
pub use tables::portset::PortSet;
pub use tables::stats::Stats;
pub use types::{Color, CreateOutcome, GroupId, MLID_BASE, Method, TreeId};
