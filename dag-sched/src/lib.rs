//! # dag-sched
//!
//! JIT ("just in time"), the DAG-aware network scheduler of Shi Yang, Wen Mei, Fei Jiawei and
//! Zhang Chunyuan (College of Computer, National University of Defense Technology, Changsha),
//! "一種基于DAG的網絡流量調度器" ("A DAG-based network traffic scheduler"). The text we worked
//! from names no venue or year; it compares against TensorFlow v1.13 and TicTac (MLSys 2019),
//! so it dates from 2019 or later.
//!
//! A job is a DAG of compute tasks and network transfers. JIT estimates each transfer's
//! *latest arrival time* (LAT, paper §2, Algorithm 1 and formula (1)), the latest it may
//! arrive without delaying the job, and plans the rates of the share `α` of each job's
//! transfers of smallest LAT with a time-indexed LP (paper §3: P1's peak link load, refined
//! lexicographically as in P2–P4), so that transfers arrive just in time (by their LAT) and
//! leave bandwidth to the rest, which is background traffic like the jobs that have no DAG.
//!
//! - [`Cluster`]: machines and the links between them: the paper's non-blocking switch
//!   ([`Cluster::uniform`]) or any [`fabric_model::Fabric`] with its links' rates and min-hop
//!   routes ([`Cluster::from_fabric`]).
//! - [`job`]: jobs as validated DAGs ([`JobBuilder`], [`Job`], [`TaskId`]).
//! - [`lat`]: Algorithm 1 with formula (1) read literally (a sum, the default), and beside it
//!   our max reading and the backward critical-path pass (the three worked through on the
//!   paper's Fig. 4 in [`lat`]'s documentation).
//! - [`lp`]: P1 with `good_lp` (pure-Rust `microlp` by default, HiGHS with the `highs`
//!   feature), its lexicographic levels refinement and the literal λ-representation where
//!   representable; α-selection of the transfers that enter it (smallest LAT first), and the
//!   deadline relaxation for an infeasible plan ([`lp::solve_relaxed`]).
//! - [`sim`]: the flow-level simulator with JIT and the paper's baselines (TensorFlow order,
//!   FIFO + TicTac, Sincronia), and Varys (cited by the paper, §5, not among its baselines);
//!   its rate allocations (max-min fairness, strict priority, MADD) run over the links each
//!   flow crosses.
//! - [`baselines`]: TicTac's TIC/TAC priorities and Sincronia's BSSI order.
//! - [`models`]: per-layer tensors and MACs of LeNet, AlexNet, VGG16, Inception-v3, ResNet-152.
//! - [`workload`]: parameter-server training iterations as job DAGs, file jobs, Poisson mixes.
//! - [`trace`]: the coflow-benchmark trace format, from `&str`, with line-numbered errors.
//! - `instance` (feature `json`, off by default): JSON job sets (machines, capacity, DAG jobs,
//!   slot, α) for the LP, from `&str`.
//!
//! The crate does no I/O and reads no clock; every randomised part takes a seed (ChaCha8 from
//! [`fabric_model::rng::seeded`]).
//!
//! Units: the public API takes sizes as [`fabric_model::Bytes`], rates as
//! [`fabric_model::BitsPerSec`] and times as [`fabric_model::Nanos`] where they are given
//! (capacities, transfer sizes, compute loads, the LP's slot length, file sizes, the sampling
//! window); the models compute in `f64` bits, bits/s and seconds, and what they compute
//! (LATs, completion times, LP rates) is returned as such, the unit in the name or the doc.
//!
//! # Example
//!
//! The paper's Fig. 4 job (as we read the figure: a compute chain fed by four transfers), its
//! LATs by Algorithm 1 (formula (1) read literally; [`lat`] has the other readings), and the
//! LP for its transfers:
//!
//! ```
//! use dag_sched::lp::{self, Backend, LpTransfer, Objective, Reservations};
//! use dag_sched::{Cluster, JobBuilder, LatMethod, MachineId, NodeKind, lat};
//! use fabric_model::{BitsPerSec, Bytes, Nanos};
//!
//! // One byte a second in and out of every machine: the figure's unit sizes and loads.
//! let cluster = Cluster::uniform(3, BitsPerSec::new(8))?;
//! let mut b = JobBuilder::new();
//! let c: Vec<_> = [1, 2, 1, 2, 1].iter().map(|&l| b.compute(Nanos::from_secs(l))).collect();
//! let from = [0, 0, 1, 1].map(MachineId::new);
//! for (k, &s) in [1, 2, 2, 1].iter().enumerate() {
//!     let t = b.transfer(Bytes::new(s), from[k], MachineId::new(2));
//!     b.edge(t, c[k]).edge(c[k], c[k + 1]);
//! }
//! let job = b.build(&cluster)?;
//! let lats = lat::estimate(&job, &cluster, LatMethod::Algorithm1);
//! let l: Vec<f64> = job.transfers().iter().map(|&t| lats.lat(t).unwrap()).collect();
//! assert_eq!(l, [1.0, 4.0, 8.0, 10.0]); // seconds after the job's start
//!
//! // Every transfer sent between time 0 and its LAT, with the peak port load minimised.
//! let transfers: Vec<LpTransfer> = job
//!     .transfers()
//!     .iter()
//!     .map(|&t| match job.node(t) {
//!         NodeKind::Transfer { size, src, dst } => {
//!             LpTransfer::new(src, dst, size, 0.0, lats.lat(t).unwrap())
//!         }
//!         NodeKind::Compute { .. } => unreachable!(),
//!     })
//!     .collect();
//! let slot = Nanos::from_secs(1);
//! let plan = lp::solve(&cluster, &transfers, &Reservations::new(), slot, Objective::MinMax, Backend::Microlp)?;
//! // T1's LAT equals its transfer time, so it needs the full port in slot 0: U* = 1.
//! assert!((plan.min_max - 1.0).abs() < 1e-9);
//! assert!((plan.rate(0, 0) - 8.0).abs() < 1e-9); // bits/s
//! # Ok::<(), dag_sched::Error>(())
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod baselines;
pub mod cluster;
mod error;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_harness;
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub mod instance;
pub mod job;
pub mod lat;
pub mod lp;
pub mod models;
mod rates;
pub mod sim;
pub mod trace;
pub mod workload;

pub use cluster::{Cluster, Machine, MachineId};
pub use error::Error;
pub use job::{Job, JobBuilder, NodeKind, TaskId};
pub use lat::{Lat, LatMethod};

/// The README's quick start, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
