//! A deterministic flow-level simulator of DAG jobs on a [`Cluster`](crate::Cluster) (the paper's non-blocking
//! core, §4.1, or a fabric's links), with JIT and the baselines as rate-allocation policies.
//!
//! Time is simulated seconds (`f64`). Rates change only at events: a job arrival, a compute
//! task finishing, a flow finishing, a JIT slot boundary, or a JIT flow catching up with its
//! plan. Compute tasks do not contend (each job has its own devices); flows share the capacity
//! of every link they cross (on the big switch: each machine's egress and ingress).
//!
//! Policies:
//! - [`Scheduler::TensorFlow`]: every (job, sender, receiver) channel sends one transfer at a
//!   time in a random order drawn per job (gRPC's arbitrary order, paper §4.1 ①); channels
//!   share ports max-min fairly, as TCP flows do.
//! - [`Scheduler::TicTac`]: FIFO over jobs, TAC priority inside a job, strict priority.
//!   Every job is in the FIFO, files included (our reading: the paper's "FIFO + TicTac to
//!   handle several jobs", §4.1 ③, does not say whether its FIFO holds the files).
//! - [`Scheduler::TicTacFilesLast`] (ours): the same FIFO over the DAG jobs only, the files
//!   behind every DAG transfer (in arrival order among themselves).
//! - [`Scheduler::Sincronia`]: each job's released, unfinished transfers form one coflow;
//!   BSSI over remaining demand, recomputed when a coflow arrives or completes (a job's first
//!   active transfer appears or its last one leaves: the paper's online algorithm re-orders
//!   at coflow arrivals and departures, not at every flow event); coflows served
//!   in that order, each with MADD rates (its flows finish together: the paper's account of
//!   why Sincronia loses on DAG jobs, §4.2), then leftover capacity handed out greedily in the
//!   same order (work conservation). Sincronia does not look inside a coflow, so the
//!   leftover goes to a coflow's flows in the job's arbitrary (random) order.
//! - [`Scheduler::Varys`]: the same coflows, data plane and recomputation, ordered by SEBF
//!   (smallest effective bottleneck first: a coflow's largest remaining bits on one port over
//!   that port's capacity, on the remaining bits when a coflow arrives or completes, as
//!   Chowdhury, Zhong and Stoica's SEBF + MADD re-runs, "Efficient Coflow Scheduling with
//!   Varys", SIGCOMM 2014), ties by arrival.
//! - [`Scheduler::CoflowFifo`]: the coflow papers' FIFO baseline (Varys, SIGCOMM 2014; Aalo,
//!   SIGCOMM 2015): the same coflows, data plane and recomputation, in arrival order. Not
//!   [`Scheduler::TicTac`], which on coflows is a strict per-flow priority (a coflow's flows
//!   do not finish together, and a later coflow gets only what every earlier flow leaves);
//!   compare the coflow papers' FIFO figures with this one.
//! - [`Scheduler::VarysCoflowsim`]: Varys as its authors' simulator coflowsim runs it, beside
//!   ours: each coflow's place fixed once by its initial effective bottleneck, rates
//!   recomputed only when a coflow arrives or completes (held in between), MADD in that
//!   order, coflows that find a resource full sharing what is left per resource, the leftover
//!   by deadline (arrival plus the initial bottleneck); the rules and where the Varys paper
//!   has each are in `varys_coflowsim`.
//! - [`Scheduler::Jit`]: at a DAG job's arrival, LAT estimation, α-selection and the LP are run
//!   once (paper §3.4); the LP's flows get their planned rate for the current slot first, then
//!   flows behind their plan (released late, or past their LAT) catch up greedily in deadline
//!   order (the gap to the plan counted continuously, so a flow at its planned rate is never
//!   behind); by default ([`RestPolicy::Background`], the paper's reading) the DAG transfers
//!   outside the LP share what the plans leave with the flows without a DAG (files, coflows),
//!   as background traffic; our option [`RestPolicy::LatPriority`] sends them and the files
//!   by strict priority, the job with the fewest bits left first, a job's transfers by LAT;
//!   our options [`RestPolicy::Sincronia`] and [`RestPolicy::Varys`] send them and the files
//!   as coflows (each job's transfers outside the LP one coflow) in what the plans leave, in
//!   the baselines' order with MADD rates.
//!
//! [`SimConfig::with_transfer_times`] adds each transfer's arrival and first use to the result
//! ([`SimResult::transfer_times`], the data waiting time of the paper's Fig. 2 and 7).
//!
//! Layout, each file importing only those before it: `config` (the run's parameters and
//! bounds), `metrics` (what a run reports), `engine` (events, flows, channels, and the crate's
//! `RatePolicy` trait, the one thing it knows of a scheduler), `record` (the engine's usage
//! samples), one file per scheduler implementing that trait (`tensorflow`, `tictac`,
//! `sincronia` and `varys` over `scaled`, `jit`), `policy` (the public [`Policy`] for a
//! user's scheduler, run by the same engine), and `run` ([`simulate`], which picks the
//! scheduler's policy, and [`simulate_with`]). A policy may hand the engine a faster driver
//! for a given set of jobs (JIT without a DAG job runs as fair sharing or as one strict-priority
//! walk); the engine itself has no special case for any scheduler. A user's scheduler is one
//! type implementing the public [`Policy`] (a read-only [`PolicyView`] of the engine in, a
//! [`RateGrant`] of capacity out), run by [`simulate_with`].
//!
//! At trace size (10⁵–10⁶ flows) the TensorFlow and TicTac policies are incremental: they
//! follow the flows that start, become channel heads and end, keep them by route, and set
//! the rates of the flows that can move without a pass over every active flow; the engine
//! advances only the flows with a rate. JIT over jobs without a DAG (coflows, files) with
//! the rest as background traffic has nothing to plan and is the TensorFlow policy's fair
//! sharing, and runs it; with [`RestPolicy::LatPriority`] it is one strict-priority walk
//! over the channel heads by job rank, which runs on FIFO + TicTac's priority classes, a
//! job's flows re-keyed when its rank moves (`jit::sparse`).
//!
//! Sincronia and Varys keep each flow's bits left as a base times its coflow's MADD scale
//! and hand out the greedy leftover to the few flows that can take it, advancing their own
//! flows (`scaled`); their dense pass over every active flow (`coflow`) is the tests' oracle
//! of it, and sends JIT's transfers outside its plans under
//! [`RestPolicy::Sincronia`] and [`RestPolicy::Varys`].

mod coflow;
mod coflow_fifo;
#[cfg(test)]
mod coflow_tests;
mod config;
mod engine;
mod jit;
mod metrics;
mod policy;
mod record;
mod run;
mod scaled;
mod sincronia;
mod tensorflow;
#[cfg(test)]
mod tests;
mod tictac;
mod varys;
mod varys_coflowsim;

pub use config::{JitConfig, MAX_ARRIVAL_SECS, MAX_SAMPLES, RestPolicy, Scheduler, SimConfig};
pub use metrics::{JobOutcome, JobPlan, LpStats, SimResult, TransferTimes};
pub use policy::{FlowView, Policy, PolicyView, RateGrant};
pub use run::{simulate, simulate_with};
