//! # topo-cluster
//!
//! Logical homogeneous clusters from a latency matrix, SMP grouping, pLogP models and
//! collective tree choice, after Barchet-Estefanel & Mounié, *Identifying Logical Homogeneous
//! Clusters for Efficient Wide-area Communications* (EuroPVM/MPI 2004; `shared/seeds/003_…`).
//!
//! The paper's pipeline, one module per step:
//! 1. gather latencies per monitoring domain: a [`LatencyMatrix`] whose missing entries are the
//!    pairs nobody measured (§3.1);
//! 2. split the machines into logical homogeneous clusters with ECO's Algorithm 1 and a 20 %
//!    bound ([`logical_clusters`], §3.2), selectable acceptance rule ([`AcceptRule`]);
//! 3. group processes by host name and build the subnet → machine → rank hierarchy as
//!    communicator colour/key splits ([`group_by_host`], [`Hierarchy`], §3.3);
//! 4. measure pLogP once per cluster and once per pair of clusters, C(C+1)/2 measures with
//!    symmetric links ([`MeasurementPlan`], §4), and take the parameters back ([`PlanResults`],
//!    [`PLogP`], with LogP/MPI's derivation from round trips and interpolation);
//! 5. predict collective times per cluster with the pLogP cost models ([`closed_form`], checked
//!    against the event simulator [`simulate`]) and choose algorithm and segment size
//!    ([`best_algorithm`]);
//! 6. schedule the inter-cluster broadcast with FEF, ECEF, ECEF with look-ahead and BottomUp,
//!    keeping the cheapest ([`best_schedule`]), or the exhaustive [`optimum`] for few clusters;
//! 7. keep the choices per (collective, level, group size, message size) in a
//!    [`DecisionTable`] with a text form that round-trips.
//!
//! Everything is pure: no I/O, no clock, no threads; generators take a seed.
//!
//! # Faithful first, then better
//! - Clustering: the default [`AcceptRule::EcoMinEdge`] is ECO's per-node test as the paper
//!   used it; [`AcceptRule::Strict`] guarantees max/min ≤ 1 + ρ inside every cluster (the
//!   per-node rule can chain a gradual sequence into one cluster). By default a merge that
//!   would put an unmeasured pair inside a cluster is refused
//!   ([`ClusterParams::forbid_unmeasured`]); with per-site monitoring this changes nothing
//!   from the paper, whose clusters never span the missing interconnections.
//! - Cost models: the closed forms are the paper-family formulas; where they are only bounds
//!   (binary, binomial for non-powers of two, segments that do not divide the message),
//!   [`Evaluator::Simulated`] uses the exact critical path of [`simulate`].
//! - Inter-cluster: the default [`best_schedule`] runs every heuristic and keeps the cheapest;
//!   [`optimum`] is the exhaustive reference for up to [`MAX_EXHAUSTIVE_CLUSTERS`] clusters.
//!
//! # Example
//! ```
//! use topo_cluster::{fixtures, group_by_host, logical_clusters, ClusterParams, Hierarchy, Level};
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
//! # Ok::<(), topo_cluster::TopoError>(())
//! ```
#![forbid(unsafe_code)]

mod cluster;
mod collective;
mod decision;
mod error;
pub mod fixtures;
pub mod fuzz_harness;
mod hierarchy;
mod inter;
mod matrix;
mod partition;
mod plan;
mod plogp;
mod sim;
mod trees;

pub use cluster::{AcceptRule, ClusterParams, logical_clusters};
pub use collective::{
    Choice, Contention, Estimate, Evaluator, SegmentGrid, alltoall_contended, best_algorithm,
    chain_segment_optimum, closed_form,
};
pub use decision::{DecisionTable, HEADER as DECISION_TABLE_HEADER, Rule};
pub use error::TopoError;
pub use hierarchy::{Hierarchy, Level, Placement, Split, group_by_host};
pub use inter::{
    CompletionModel, Heuristic, InterInstance, LookAhead, MAX_EXHAUSTIVE_CLUSTERS, MaxEdgeIntra,
    MinEdge, MinEdgeIntra, Schedule, Transfer, best_schedule, ecef_with_lookahead, evaluate,
    optimum, run_heuristic,
};
pub use matrix::{LatencyMatrix, Symmetry};
pub use partition::Partition;
pub use plan::{LinkModels, Links, Measurement, MeasurementPlan, PlanResults};
pub use plogp::{PLogP, RttSample, SizePoint};
pub use sim::{SimResult, simulate};
pub use trees::{Algorithm, Collective};
