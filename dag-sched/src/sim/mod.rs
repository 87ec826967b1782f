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
//!   handle several jobs", §4.1 ②, does not say whether its FIFO holds the files).
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
//! - [`Scheduler::Jit`]: at a DAG job's arrival, LAT estimation, α-selection and the LP are run
//!   once (paper §3.4); the LP's flows get their planned rate for the current slot first, then
//!   flows behind their plan (released late, or past their LAT) catch up greedily in deadline
//!   order (the gap to the plan counted continuously, so a flow at its planned rate is never
//!   behind); by default ([`RestPolicy::Background`], the paper's reading) the DAG transfers
//!   outside the LP share what the plans leave with the flows without a DAG (files, coflows),
//!   as background traffic; our option [`RestPolicy::LatPriority`] sends them and the files
//!   by strict priority, the job with the fewest bits left first, a job's transfers by LAT.
//!
//! Layout: the engine (events, flows, channels) drives a rate policy, one file per
//! scheduler (`tensorflow`, `tictac`, `sincronia`, `varys`, `jit`, behind the crate's
//! `RatePolicy` trait in `policy`); `metrics` keeps what a run reports. A user's scheduler is
//! one type implementing the public [`Policy`] (a read-only [`PolicyView`] of the engine in,
//! a [`RateGrant`] of capacity out), run by [`simulate_with`].
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
//! flows (`scaled`); their dense pass over every active flow is kept for the tests.

#[cfg(test)]
mod coflow;
#[cfg(test)]
mod coflow_tests;
mod engine;
mod jit;
mod metrics;
mod policy;
mod scaled;
mod sincronia;
mod tensorflow;
#[cfg(test)]
mod tests;
mod tictac;
mod varys;

use fabric_model::Nanos;

use crate::lat::LatMethod;
use crate::lp::{Backend, Objective};

pub use engine::{simulate, simulate_with};
pub use metrics::{JobOutcome, LpStats, SimResult};
pub use policy::{FlowView, Policy, PolicyView, RateGrant};

/// The most remaining-bandwidth samples (resource-windows with DAG traffic) a run may report
/// in [`SimResult::remaining`] (and as many in [`SimResult::remaining_planned`]): 2^24, 128 MiB
/// of `f64` each. A run whose DAG traffic spans more windows (a long run with short windows, or
/// a transfer that takes ages) is refused with [`Error::InvalidParameter`](crate::Error) naming
/// `sample_window`: choose a longer one. The paper's scale (100 ports, 1 s windows, a few
/// thousand seconds) needs a few hundred thousand.
pub const MAX_SAMPLES: u64 = 1 << 24;

/// The latest arrival a job may have, seconds: 2^30 s (about 34 years). The simulator keeps
/// time in `f64` seconds, whose resolution at 2^30 s is 2^-22 s (0.24 µs); at 10^20 s it would
/// be 16,384 s, and a short job's completion time would round to 0. [`simulate`] refuses an
/// arrival outside `[0, MAX_ARRIVAL_SECS]` (or NaN) with
/// [`Error::InvalidParameter`](crate::Error) naming `arrival`.
pub const MAX_ARRIVAL_SECS: f64 = 1_073_741_824.0;

/// How JIT sends the DAG transfers outside its LP (those beyond the α-selection, and every
/// transfer of a job the LP could not plan).
///
/// The paper leaves this to the administrator: the transfers outside the LP and the jobs
/// without a DAG "use the remaining bandwidth", with a scheduling algorithm the data-centre
/// administrator chooses (§3.1), and its model shows that "transfers with a smaller LAT should
/// have a higher priority" (§3.4 1)). Both policies below send them after the LP's plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RestPolicy {
    /// Ours, not the paper's: strict priority over the DAG transfers outside the LP and the
    /// files' channels, the job with the fewest bits left in its released transfers first
    /// (as Varys serves the smallest coflow first), a job's transfers in order of LAT; what
    /// is left is shared max-min fairly.
    LatPriority,
    /// The default, the paper's reading (§3.4 1): "transfers with a larger LAT can be treated
    /// as background traffic, sent in the remaining bandwidth"): the transfers outside the LP
    /// are background traffic exactly like the files: every (job, sender, receiver) channel
    /// shares what the plans leave max-min fairly with the files' channels, each channel
    /// sending its transfers one at a time in LAT order.
    #[default]
    Background,
}

/// JIT's parameters: [`JitConfig::default`] is the paper's (α = 0.4, 100 ms slots, Algorithm 1,
/// the lexicographic objective of P2–P4 in levels form with 3 levels (the level count is ours),
/// the transfers outside the LP as background traffic, microlp), changed with the `with_*`
/// setters.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct JitConfig {
    /// Share of each job's transfers, in topological order, that enter the LP (paper: 0.4):
    /// the first `⌈α·n⌉` of its `n` transfers ([`lp::alpha_prefix`](crate::lp::alpha_prefix)).
    pub alpha: f64,
    /// Slot length `τ` of the LP.
    pub slot: Nanos,
    /// LAT estimate.
    pub lat: LatMethod,
    /// LP objective.
    pub objective: Objective,
    /// LP backend.
    pub backend: Backend,
    /// How many times to double the LAT windows when the LP is infeasible before giving up
    /// on planning the job (its transfers then use what is left, like background traffic).
    pub max_relax: u32,
    /// How the transfers outside the LP are sent.
    pub rest: RestPolicy,
}

impl Default for JitConfig {
    fn default() -> Self {
        Self {
            alpha: 0.4,
            slot: Nanos::from_millis(100),
            lat: LatMethod::Algorithm1,
            objective: Objective::LexLevels { levels: 3 },
            backend: Backend::Microlp,
            max_relax: 4,
            rest: RestPolicy::Background,
        }
    }
}

impl JitConfig {
    /// This configuration with `α = alpha`.
    #[must_use]
    pub fn with_alpha(mut self, alpha: f64) -> Self {
        self.alpha = alpha;
        self
    }

    /// This configuration with slot length `slot`.
    #[must_use]
    pub fn with_slot(mut self, slot: Nanos) -> Self {
        self.slot = slot;
        self
    }

    /// This configuration with LAT estimate `lat`.
    #[must_use]
    pub fn with_lat(mut self, lat: LatMethod) -> Self {
        self.lat = lat;
        self
    }

    /// This configuration with LP objective `objective`.
    #[must_use]
    pub fn with_objective(mut self, objective: Objective) -> Self {
        self.objective = objective;
        self
    }

    /// This configuration with LP backend `backend`.
    #[must_use]
    pub fn with_backend(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }

    /// This configuration with at most `max_relax` doublings of the LAT windows.
    #[must_use]
    pub fn with_max_relax(mut self, max_relax: u32) -> Self {
        self.max_relax = max_relax;
        self
    }

    /// This configuration with the transfers outside the LP sent by `rest`.
    #[must_use]
    pub fn with_rest(mut self, rest: RestPolicy) -> Self {
        self.rest = rest;
        self
    }
}

/// The rate-allocation policy.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Scheduler {
    /// TensorFlow v1.13: random order per channel, max-min fair sharing.
    TensorFlow,
    /// FIFO across jobs + TicTac (TAC) inside a job; the files are jobs of the FIFO too.
    TicTac,
    /// Ours: FIFO + TicTac over the DAG jobs only; the jobs without compute (files,
    /// coflows) come after every DAG job's transfers, in arrival order among themselves
    /// (the paper's TicTac leaves the files as slow as TensorFlow's order does, Fig. 9, which
    /// suggests its FIFO held the DAG jobs only).
    TicTacFilesLast,
    /// Sincronia BSSI over jobs as coflows.
    Sincronia,
    /// Varys SEBF + MADD over jobs as coflows.
    Varys,
    /// JIT.
    Jit(JitConfig),
}

impl Scheduler {
    /// Short name (`tensorflow`, `tictac`, `tictac-files-last`, `sincronia`, `varys`, `jit`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::TensorFlow => "tensorflow",
            Self::TicTac => "tictac",
            Self::TicTacFilesLast => "tictac-files-last",
            Self::Sincronia => "sincronia",
            Self::Varys => "varys",
            Self::Jit(_) => "jit",
        }
    }
}

/// Simulation parameters: [`SimConfig::default`] is TensorFlow order, seed 1 and 1 s windows;
/// [`SimConfig::new`] sets the scheduler, the `with_*` setters the rest.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct SimConfig {
    /// The policy.
    pub scheduler: Scheduler,
    /// Seed of the TensorFlow random orders (ChaCha8, [`fabric_model::rng::seeded`]).
    pub seed: u64,
    /// Window over which the remaining-bandwidth ratio (paper (18)) is sampled.
    pub sample_window: Nanos,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            scheduler: Scheduler::TensorFlow,
            seed: 1,
            sample_window: Nanos::from_secs(1),
        }
    }
}

impl SimConfig {
    /// The defaults with `scheduler`.
    #[must_use]
    pub fn new(scheduler: Scheduler) -> Self {
        Self {
            scheduler,
            ..Self::default()
        }
    }

    /// This configuration with scheduler `scheduler`.
    #[must_use]
    pub fn with_scheduler(mut self, scheduler: Scheduler) -> Self {
        self.scheduler = scheduler;
        self
    }

    /// This configuration with seed `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// This configuration with remaining-bandwidth windows of `window`.
    #[must_use]
    pub fn with_sample_window(mut self, window: Nanos) -> Self {
        self.sample_window = window;
        self
    }
}
