//! # fabric-model
//!
//! The shared vocabulary of the fabric workspace: ids and units, the [`Fabric`] graph of
//! switches and terminals with numbered ports, topology [`generators`] for the fabrics of the
//! papers (fat trees, tapered fat trees, tori, dragonflies, random regular graphs), the
//! [`ibnet`] topology text of `ibnetdiscover`/`ibsim`, all-pairs switch [`HopTable`]s with
//! OpenSM's per-port min-hop query, and process [`placement`].
//!
//! Every algorithm crate of the workspace (`mcast-route`, `topo-cluster`, `dag-sched`, …)
//! builds on these types. The crate does no I/O: text is parsed from `&str` and written to a
//! `String` or any `fmt::Write`; randomised generators take a seed and are bit-identical on
//! every platform.
//!
//! ```
//! use fabric_model::{generators, ibnet, HopTable, NodeKind};
//!
//! // The paper's three-level fat tree, at k = 8.
//! let fabric = generators::fat_tree(8)?;
//! assert_eq!(fabric.switch_count(), 5 * 8 * 8 / 4);
//! assert_eq!(fabric.terminal_count(), 8 * 8 * 8 / 4);
//!
//! // Where does a terminal hang, and how far apart are two terminals?
//! let (a, b) = (fabric.terminals()[0], fabric.terminals()[127]);
//! let (leaf, _port) = fabric.switch_of(a).expect("every terminal is linked");
//! assert_eq!(fabric.kind(leaf), NodeKind::Switch);
//! let hops = HopTable::new(&fabric)?;
//! assert_eq!(hops.diameter(), Some(4));
//! assert_eq!(hops.between(&fabric, a, b), Some(6));
//!
//! // ibnetdiscover text round-trips.
//! let text = ibnet::write_ibnetdiscover(&fabric);
//! assert_eq!(ibnet::read_ibnetdiscover(&text)?, fabric);
//! # Ok::<(), fabric_model::Error>(())
//! ```
//!
//! ## The workspace's vocabulary
//! - Ids: [`NodeId`], [`PortNo`], [`LinkId`] (opaque, `new`/`get`), [`DirectedLink`].
//! - Units: [`Nanos`] for time, [`Bytes`] for size, [`BitsPerSec`] for rate, and the
//!   InfiniBand [`LinkRate`]s.
//! - [`rng`]: the seeded, platform-independent generators ([`rng::SplitMix64`], and ChaCha8
//!   as [`rng::SeededRng`] with the `rand` feature).
//! - [`hash`]: the fast deterministic hasher of the workspace's tables.
//! - [`paths`] and [`bridge`]: min-hop paths, rank-to-rank latency matrices and node maps,
//!   what the other crates take from a fabric.
//!
//! ## Features
//! - `generators` (default): the topology [`generators`]; enables `rand`.
//! - `rand`: [`rng::SeededRng`] and [`rng::seeded`] (rand and rand_chacha).
//! - `petgraph` (default): petgraph's visit traits for [`Fabric`] ([`visit`]).
//! - `parallel`: `HopTable::new_parallel` computes the rows on all cores with rayon.
//!
//! With `default-features = false` the crate depends on thiserror alone: ids, units, the
//! fabric graph, ibnetdiscover text, hop tables, paths, bridges, placement, [`rng`] and
//! [`hash`].
//!
//! ## Errors
//! One error type, [`Error`]: builders and generators name the parameter, node or port and
//! why; the ibnetdiscover reader gives the line number and what was wrong. Nothing panics on
//! bad input.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod bridge;
mod error;
mod fabric;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_harness;
#[cfg(feature = "generators")]
#[cfg_attr(docsrs, doc(cfg(feature = "generators")))]
pub mod generators;
pub mod hash;
mod hops;
pub mod ibnet;
mod ids;
pub mod paths;
pub mod placement;
pub mod rng;
mod units;
#[cfg(feature = "petgraph")]
#[cfg_attr(docsrs, doc(cfg(feature = "petgraph")))]
pub mod visit;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use error::Error;
pub use fabric::{
    DEFAULT_LATENCY, Fabric, FabricBuilder, GUID_BASE, Link, Neighbor, Neighbors, NodeInfo,
    PortAddress,
};
pub use hops::{HopTable, UNREACHABLE};
pub use ids::{LinkId, NodeId, NodeKind, PortNo};
pub use paths::DirectedLink;
pub use placement::{Placement, place};
pub use units::{BitsPerSec, Bytes, LinkRate, LinkSpeed, LinkWidth, Nanos, ParseRateError};
