//! The simulator's configuration: which scheduler, JIT's parameters, the seed, the sampling
//! window, and the bounds on what a run accepts.

use fabric_model::Nanos;

use crate::lat::LatMethod;
use crate::lp::{Backend, Objective};

/// The most remaining-bandwidth samples (resource-windows with DAG traffic) a run may report
/// in [`SimResult::remaining`](super::SimResult::remaining) (and as many in [`SimResult::remaining_planned`](super::SimResult::remaining_planned)): 2^24, 128 MiB
/// of `f64` each. A run whose DAG traffic spans more windows (a long run with short windows, or
/// a transfer that takes ages) is refused with [`Error::InvalidParameter`](crate::Error) naming
/// `sample_window`: choose a longer one. The paper's scale (100 ports, 1 s windows, a few
/// thousand seconds) needs a few hundred thousand.
pub const MAX_SAMPLES: u64 = 1 << 24;

/// The latest arrival a job may have, seconds: 2^30 s (about 34 years). The simulator keeps
/// time in `f64` seconds, whose resolution at 2^30 s is 2^-22 s (0.24 µs); at 10^20 s it would
/// be 16,384 s, and a short job's completion time would round to 0. [`simulate`](super::simulate) refuses an
/// arrival outside `[0, MAX_ARRIVAL_SECS]` (or NaN) with
/// [`Error::InvalidParameter`](crate::Error) naming `arrival`.
pub const MAX_ARRIVAL_SECS: f64 = 1_073_741_824.0;

/// How JIT sends the DAG transfers outside its LP (those beyond the α-selection, and every
/// transfer of a job the LP could not plan).
///
/// The paper leaves this to the administrator: the transfers outside the LP and the jobs
/// without a DAG "use the remaining bandwidth", with a scheduling algorithm the data-centre
/// administrator chooses (§3.1), and its model shows that "transfers with a smaller LAT should
/// have a higher priority" (§3.4 1)). Every policy below sends them after the LP's plans.
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
    /// Ours, not the paper's: the administrator's scheduler is Sincronia (Agarwal et al.,
    /// SIGCOMM 2018): each job's released transfers outside the LP form one coflow (a file
    /// is a coflow of one flow), ordered by BSSI on their bits left when a coflow arrives or
    /// completes, served with MADD rates in what the plans leave, the leftover handed out in
    /// the same order; a planned job's transfers go in LAT order inside its coflow.
    Sincronia,
    /// Ours, not the paper's: as [`RestPolicy::Sincronia`], the coflows ordered by Varys's
    /// SEBF (Chowdhury, Zhong and Stoica, SIGCOMM 2014), smallest effective bottleneck first.
    Varys,
}

impl RestPolicy {
    /// Short name: `background`, `lat-priority`, `sincronia`, `varys`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::LatPriority => "lat-priority",
            Self::Background => "background",
            Self::Sincronia => "sincronia",
            Self::Varys => "varys",
        }
    }
}

/// JIT's parameters: [`JitConfig::default`] is the paper's (α = 0.4, 100 ms slots, Algorithm 1,
/// the lexicographic objective of P2–P4 in levels form with 3 levels (the level count is ours),
/// the transfers outside the LP as background traffic, microlp), changed with the `with_*`
/// setters.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct JitConfig {
    /// Share of each job's transfers that enter the LP (paper: 0.4): the `⌈α·n⌉` of its `n`
    /// transfers ([`lp::alpha_prefix`](crate::lp::alpha_prefix)) of smallest LAT, ties by
    /// topological position ([`lp::alpha_selection`](crate::lp::alpha_selection); the paper's
    /// "first 40 % in topological order" read as its §3.4 ranks them, by LAT).
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
    /// The coflow papers' FIFO: jobs as coflows in arrival order, each with MADD rates, the
    /// leftover handed out in the same order (Varys, SIGCOMM 2014; Aalo, SIGCOMM 2015).
    CoflowFifo,
    /// Varys as its authors' simulator coflowsim runs it, not ours ([`Scheduler::Varys`] is
    /// ours): a coflow's place fixed once by its initial effective bottleneck, rates
    /// recomputed only when a coflow arrives or completes, the leftover in deadline order
    /// (see the rules in the simulator's `varys_coflowsim` module and the crate's README).
    VarysCoflowsim,
    /// JIT.
    Jit(JitConfig),
}

impl Scheduler {
    /// Short name (`tensorflow`, `tictac`, `tictac-files-last`, `sincronia`, `varys`,
    /// `coflow-fifo`, `varys-coflowsim`, `jit`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::TensorFlow => "tensorflow",
            Self::TicTac => "tictac",
            Self::TicTacFilesLast => "tictac-files-last",
            Self::Sincronia => "sincronia",
            Self::Varys => "varys",
            Self::CoflowFifo => "coflow-fifo",
            Self::VarysCoflowsim => "varys-coflowsim",
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
    /// Whether the result lists every transfer's arrival and first use
    /// ([`SimResult::transfer_times`](super::SimResult::transfer_times)); off by default (a
    /// record per transfer of every job).
    pub transfer_times: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            scheduler: Scheduler::TensorFlow,
            seed: 1,
            sample_window: Nanos::from_secs(1),
            transfer_times: false,
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

    /// This configuration with every transfer's arrival and first use reported (`true`) or
    /// not (the default).
    #[must_use]
    pub fn with_transfer_times(mut self, on: bool) -> Self {
        self.transfer_times = on;
        self
    }
}
