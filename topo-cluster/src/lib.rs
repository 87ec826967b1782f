//! # topo-cluster
//!
//! Logical homogeneous clusters from a latency matrix, SMP grouping, pLogP models and
//! collective tree choice, after L. A. Barchet-Estefanel and G. Mounié, *Identifying Logical
//! Homogeneous Clusters for Efficient Wide-area Communications*, EuroPVM/MPI 2004 (LNCS 3241).
//!
//! The paper's pipeline, one module per step:
//! 1. gather latencies per monitoring domain: a [`LatencyMatrix`] whose missing entries are
//!    the pairs nobody measured (paper §3.1), or one computed from a fabric and a placement of
//!    ranks ([`LatencyMatrix::from_fabric`]);
//! 2. split the machines into logical homogeneous clusters with ECO's Algorithm 1 (Lowekamp
//!    and Beguelin, *ECO: Efficient Collective Operations for communication on heterogeneous
//!    networks*, IPPS 1996) and a 20 % bound ([`logical_clusters`], paper §3.2), with a
//!    selectable acceptance rule ([`cluster::AcceptRule`]);
//! 3. group processes by host name and build the subnet → machine → rank hierarchy as
//!    communicator colour/key splits ([`hierarchy::group_by_host`], [`Hierarchy`], §3.3);
//! 4. measure pLogP once per cluster and once per pair of clusters, C(C+1)/2 measures with
//!    symmetric links ([`MeasurementPlan`], §4), and take the parameters back
//!    ([`plan::PlanResults`], [`PLogP`], with LogP/MPI's derivation from round trips and its
//!    interpolation: T. Kielmann, H. E. Bal and K. Verstoep, *Fast Measurement of LogP
//!    Parameters for Message Passing Platforms*, IPDPS 2000 Workshops, LNCS 1800);
//! 5. predict collective times per cluster with the pLogP cost models
//!    ([`collective::closed_form`], checked against the event simulator
//!    [`collective::simulate`]) and choose algorithm and segment size ([`best_algorithm`]),
//!    after the same authors' *Fast Tuning of Intra-Cluster Collective Communications*
//!    (EuroPVM/MPI 2004, LNCS 3241);
//! 6. schedule the inter-cluster broadcast with FEF, ECEF, ECEF with look-ahead (P. B. Bhat,
//!    C. S. Raghavendra and V. K. Prasanna, *Efficient collective communication in distributed
//!    heterogeneous systems*, ICDCS 1999) and the look-aheads with intra-cluster times and
//!    BottomUp of L. A. Barchet-Steffenel and G. Mounié, *Scheduling Heuristics for Efficient
//!    Broadcast Operations on Grid Environments* (IPDPS 2006 workshops), keeping the cheapest
//!    ([`best_schedule`]), or the exhaustive [`inter::optimum`] for few clusters;
//! 7. keep the choices per (collective, level, group size, message size) in a
//!    [`DecisionTable`] with a text form that round-trips, and write them in the files MPI
//!    libraries read ([`mpi`]: Open MPI's `coll_tuned` dynamic rules, MPICH's JSON selection),
//!    one level or intra-node and inter-node levels in one file.
//!
//! Everything is pure: no I/O, no clock, no threads; generators take a seed.
//!
//! # Modules
//! The root re-exports the entry points; everything else lives in the module of its step:
//! [`matrix`], [`cluster`], [`hierarchy`], [`plan`], [`plogp`], [`collective`], [`inter`],
//! [`decision`], [`mpi`], and the generated inputs of [`fixtures`].
//!
//! # Units
//! Latencies of the [`LatencyMatrix`] are [`Nanos`](fabric_model::Nanos) (integers, as measured) and throughputs
//! [`BitsPerSec`](fabric_model::BitsPerSec). The pLogP parameters, the predicted collective
//! times and the inter-cluster schedules are `f64` nanoseconds (their names end in `_ns`):
//! the models interpolate and divide (g(m) = 20 µs + m / 11.5 B/µs is not an integer number
//! of nanoseconds), so rounding them to whole nanoseconds would change the choices. Message
//! and segment sizes are [`Bytes`](fabric_model::Bytes); a decision table's predicted times
//! are whole [`Nanos`](fabric_model::Nanos) (rounded when the table is computed).
//!
//! # Faithful first, then better
//! - Clustering: the default [`cluster::AcceptRule::EcoMinEdge`] is ECO's per-node test as the
//!   paper used it; [`cluster::AcceptRule::Strict`] guarantees max/min ≤ 1 + ρ inside every
//!   cluster (the per-node rule can chain a gradual sequence into one cluster). By default a
//!   merge that would put an unmeasured pair inside a cluster is refused
//!   ([`ClusterParams::forbid_unmeasured`]); with per-site monitoring this changes nothing
//!   from the paper, whose clusters never span the missing interconnections.
//! - Cost models: the closed forms are the paper-family formulas; where they are only bounds
//!   (binary, binomial for non-powers of two, segments that do not divide the message),
//!   [`collective::Evaluator::Simulated`] uses the exact critical path of
//!   [`collective::simulate`].
//! - Inter-cluster: the default [`best_schedule`] runs every heuristic and keeps the cheapest;
//!   [`inter::optimum`] is the exhaustive reference for up to
//!   [`inter::MAX_EXHAUSTIVE_CLUSTERS`] clusters.
//!
//! # Example
//! ```
//! use topo_cluster::hierarchy::{Level, group_by_host};
//! use topo_cluster::{ClusterParams, Hierarchy, fixtures, logical_clusters};
//!
//! // The 20-machine, six-subnet fixture shaped like the paper's IDPOT figure.
//! let f = fixtures::idpot(Some(7));
//! let subnets = logical_clusters(&f.matrix, &ClusterParams::default())?;
//! assert_eq!(subnets.len(), 6);
//! assert_eq!(subnets.labels(), &[0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5]);
//!
//! // Two processes on A0, one on B0: three ranks, two machines.
//! let hosts = ["A0", "B0", "A0"];
//! assert_eq!(group_by_host(&hosts)?.len(), 2);
//! let h = Hierarchy::build(&hosts, &f.names, &subnets)?;
//! assert_eq!(h.communicators(Level::IntraMachine), vec![vec![0, 2], vec![1]]);
//! assert_eq!(h.communicators(Level::InterCluster), vec![vec![0, 1]]);
//! # Ok::<(), topo_cluster::Error>(())
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod cluster;
pub mod collective;
pub mod decision;
mod error;
pub mod fixtures;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_harness;
pub mod hierarchy;
pub mod inter;
pub mod matrix;
pub mod mpi;
mod partition;
pub mod plan;
pub mod plogp;
mod sim;
mod trees;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use cluster::{ClusterParams, Partition, logical_clusters};
pub use collective::{Algorithm, Collective, best_algorithm};
pub use decision::DecisionTable;
pub use error::Error;
pub use hierarchy::{Hierarchy, Level};
pub use inter::{InterInstance, Schedule, best_schedule};
pub use matrix::LatencyMatrix;
pub use plan::MeasurementPlan;
pub use plogp::PLogP;
