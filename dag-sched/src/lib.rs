//! # dag-sched
//!
//! JIT ("just in time"), the DAG-aware network scheduler of Shi, Wen, Fei and Zhang (paper
//! `004_b41a277a99ffb983.txt` in `shared/seeds/`; the contract is the "dag-sched" section of
//! `shared/DESIGN.md`). A job is a DAG of compute tasks and network transfers; JIT estimates
//! each transfer's *latest arrival time* (LAT, paper §2, Algorithm 1) and then plans the rates
//! of the first `α` of each job's transfers with a time-indexed LP (paper §3, P1) that
//! minimises the peak port load, so that transfers arrive just in time and leave bandwidth to
//! the jobs that have no DAG.
//!
//! - [`job`]: machines with ingress and egress capacity, jobs as validated DAGs.
//! - [`lat`]: Algorithm 1 with formula (1), and the backward critical-path pass beside it.
//! - [`lp`]: P1 with `good_lp` (pure-Rust `microlp` by default, HiGHS with the `highs`
//!   feature), its lexicographic levels refinement and the literal λ-representation where
//!   representable; α-selection of the transfers that enter it.
//! - [`baselines`]: TicTac's TIC/TAC priorities and Sincronia's BSSI order.
//! - [`rates`]: max-min fair, strict-priority and MADD (coflow) rate allocation.
//! - [`models`]: per-layer tensors and MACs of LeNet, AlexNet, VGG16, Inception-v3, ResNet-152.
//! - [`workload`]: parameter-server training iterations as job DAGs, file jobs, Poisson mixes.
//! - [`sim`]: the flow-level simulator with JIT, TensorFlow order, FIFO + TicTac, Sincronia
//!   and Varys.
//! - [`trace`]: the coflow-benchmark trace format, from `&str`, with line-numbered errors.
//! - [`instance`]: JSON job sets (machines, capacity, DAG jobs, slot, α) for the LP, from `&str`.
//! - [`fuzz_harness`]: what the fuzz targets call.
//!
//! The crate does no I/O and reads no clock; every randomised part takes a seed.
//!
//! # Example
//!
//! The paper's Fig. 4 job (as we read the figure: a compute chain fed by four transfers), its
//! LATs by Algorithm 1, and the LP for its transfers:
//!
//! ```
//! use dag_sched::lp::{self, Backend, LpTransfer, Objective, Reservations};
//! use dag_sched::{Cluster, JobBuilder, LatMethod, MachineId, NodeKind, lat};
//!
//! let cluster = Cluster::uniform(3, 1.0)?; // unit ingress and egress bandwidth
//! let mut b = JobBuilder::new();
//! let c: Vec<_> = [1.0, 2.0, 1.0, 2.0, 1.0].iter().map(|&l| b.compute(l)).collect();
//! let from = [MachineId(0), MachineId(0), MachineId(1), MachineId(1)];
//! for (k, &s) in [1.0, 2.0, 2.0, 1.0].iter().enumerate() {
//!     let t = b.transfer(s, from[k], MachineId(2));
//!     b.edge(t, c[k]).edge(c[k], c[k + 1]);
//! }
//! let job = b.build(&cluster)?;
//! let lats = lat::estimate(&job, &cluster, LatMethod::Algorithm1);
//! let l: Vec<f64> = job.transfers().iter().map(|&t| lats.lat(t).unwrap()).collect();
//! assert_eq!(l, [1.0, 4.0, 8.0, 10.0]);
//!
//! // Every transfer sent between time 0 and its LAT, with the peak port load minimised.
//! let transfers: Vec<LpTransfer> = job
//!     .transfers()
//!     .iter()
//!     .map(|&t| match job.node(t) {
//!         NodeKind::Transfer { size, src, dst } => {
//!             LpTransfer { src, dst, size, release: 0.0, deadline: lats.lat(t).unwrap() }
//!         }
//!         NodeKind::Compute { .. } => unreachable!(),
//!     })
//!     .collect();
//! let plan = lp::solve(&cluster, &transfers, &Reservations::new(), 1.0, Objective::MinMax, Backend::Microlp)?;
//! // T1's LAT equals its transfer time, so it needs the full port in slot 0: U* = 1.
//! assert!((plan.min_max - 1.0).abs() < 1e-9);
//! assert!((plan.rate(0, 0) - 1.0).abs() < 1e-9);
//! # Ok::<(), dag_sched::Error>(())
//! ```
#![forbid(unsafe_code)]

pub mod baselines;
mod error;
pub mod fuzz_harness;
pub mod instance;
pub mod job;
pub mod lat;
pub mod lp;
pub mod models;
pub mod rates;
pub mod sim;
pub mod trace;
pub mod workload;

pub use error::Error;
pub use job::{Cluster, Job, JobBuilder, Machine, MachineId, NodeId, NodeKind};
pub use lat::{Lat, LatMethod};
