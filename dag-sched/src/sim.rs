//! A deterministic flow-level simulator of DAG jobs on a [`Cluster`] (the paper's non-blocking
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
//! - [`Scheduler::Sincronia`]: each job's released, unfinished transfers form one coflow;
//!   BSSI over remaining demand, recomputed whenever a flow arrives or leaves; coflows served
//!   in that order, each with MADD rates (its flows finish together: the paper's account of
//!   why Sincronia loses on DAG jobs, §4.2), then leftover capacity handed out greedily in the
//!   same order (work conservation). Sincronia does not look inside a coflow, so the
//!   leftover goes to a coflow's flows in the job's arbitrary (random) order.
//! - [`Scheduler::Varys`]: the same coflows, data plane and recomputation, ordered by SEBF
//!   (smallest effective bottleneck first: a coflow's largest remaining bits on one port over
//!   that port's capacity, recomputed on remaining bits: the dynamic variant of Chowdhury,
//!   Zhong and Stoica's SEBF, "Efficient Coflow Scheduling with Varys", SIGCOMM 2014), ties by arrival.
//! - [`Scheduler::Jit`]: at a DAG job's arrival, LAT estimation, α-selection and the LP are run
//!   once (paper §3.4); the LP's flows get their planned rate for the current slot first, then
//!   flows behind their plan (released late, or past their LAT) catch up greedily in deadline
//!   order (the gap to the plan counted continuously, so a flow at its planned rate is never
//!   behind); by default ([`RestPolicy::LatPriority`]) the DAG transfers outside the LP come
//!   next by strict priority in order of absolute LAT, and the flows without a DAG (files,
//!   coflows) share what is left as in the TensorFlow policy; [`RestPolicy::Background`] lets
//!   the transfers outside the LP share with the files instead.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use std::fmt;

use fabric_model::Nanos;
use rand::seq::SliceRandom;
use smallvec::SmallVec;

use crate::Error;
use crate::baselines::{bssi_order, tictac_order};
use crate::cluster::Cluster;
use crate::job::{Job, NodeKind, TaskId};
use crate::lat::{self, LatMethod};
use crate::lp::{self, Backend, LpTransfer, Objective, Reservations, Schedule};
use crate::rates::{FlowDemand, madd, max_min_fair, priority_greedy};
use crate::workload::{JobKind, SimJob};

/// How JIT sends a DAG job's transfers that are not in its LP (the `1 − α` suffix, and every
/// transfer of a job the LP could not plan).
///
/// The paper leaves this to the administrator: the transfers outside the LP and the jobs
/// without a DAG "use the remaining bandwidth", with a scheduling algorithm the data-centre
/// administrator chooses (§3.1), and its model shows that "transfers with a smaller LAT should
/// have a higher priority" (§3.4 1)). Both policies below send them after the LP's plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RestPolicy {
    /// The default: strict priority in order of absolute LAT (job arrival + LAT) across all
    /// jobs, ahead of the flows without a DAG (which have no LAT), which share what is left
    /// max-min fairly. This is the policy under which JIT reaches the paper's speedup
    /// (`reproduce dag --scale paper`); like every priority to DAG jobs it slows the files
    /// somewhat more than TensorFlow's fair sharing does.
    #[default]
    LatPriority,
    /// The transfers outside the LP are background traffic exactly like the files: every
    /// (job, sender, receiver) channel shares what the plans leave max-min fairly with the
    /// files' channels, each channel sending its transfers one at a time in LAT order.
    Background,
}

/// JIT's parameters: [`JitConfig::default`] is the paper's (α = 0.4, 100 ms slots, Algorithm 1,
/// P1's min-max objective, microlp), changed with the `with_*` setters.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct JitConfig {
    /// Share of each job's transfers, in topological order, that enter the LP (paper: 0.4):
    /// the first `⌈α·n⌉` of its `n` transfers ([`lp::alpha_prefix`]).
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
            objective: Objective::MinMax,
            backend: Backend::Microlp,
            max_relax: 4,
            rest: RestPolicy::LatPriority,
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
    /// FIFO across jobs + TicTac (TAC) inside a job.
    TicTac,
    /// Sincronia BSSI over jobs as coflows.
    Sincronia,
    /// Varys SEBF + MADD over jobs as coflows.
    Varys,
    /// JIT.
    Jit(JitConfig),
}

impl Scheduler {
    /// Short name (`tensorflow`, `tictac`, `sincronia`, `varys`, `jit`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::TensorFlow => "tensorflow",
            Self::TicTac => "tictac",
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

/// What happened to one job. Times are `f64` seconds of simulated time (the simulator's own
/// clock, not rounded to nanoseconds, so that ratios of them are exact).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct JobOutcome {
    /// Its kind.
    pub kind: JobKind,
    /// Arrival (s).
    pub arrival: f64,
    /// Completion of its last node (s).
    pub finish: f64,
    /// Completion time of the job alone on an empty cluster: the critical path at full rate
    /// (s).
    pub alone: f64,
    /// Mean data waiting time of its transfers (s): from a transfer's arrival to the start of
    /// its first consumer (paper Fig. 2, 6); `None` when no transfer has a consumer.
    pub mean_wait: Option<f64>,
}

impl JobOutcome {
    /// Job completion time (s).
    #[must_use]
    pub fn jct(&self) -> f64 {
        self.finish - self.arrival
    }

    /// Job completion time, to the nearest nanosecond.
    #[must_use]
    pub fn jct_nanos(&self) -> Nanos {
        Nanos::from_secs_f64(self.jct()).unwrap_or(Nanos::MAX)
    }
}

impl fmt::Display for JobOutcome {
    /// `dag vgg16: arrival 0.100 s, JCT 1.234 s (1.50x alone), wait 12.3 ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            JobKind::Dag(m) => write!(f, "dag {}", m.name())?,
            JobKind::File => f.write_str("file")?,
            JobKind::Coflow => f.write_str("coflow")?,
        }
        write!(
            f,
            ": arrival {:.3} s, JCT {:.3} s ({:.2}x alone)",
            self.arrival,
            self.jct(),
            self.jct() / self.alone
        )?;
        if let Some(w) = self.mean_wait {
            write!(f, ", wait {:.1} ms", w * 1e3)?;
        }
        Ok(())
    }
}

/// JIT's LP bookkeeping over a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LpStats {
    /// Jobs planned by the LP.
    pub planned: usize,
    /// LP solves in all (including infeasible attempts and levels).
    pub solves: usize,
    /// Jobs whose windows had to be widened at least once.
    pub relaxed: usize,
    /// Jobs left unplanned after `max_relax` widenings.
    pub unplanned: usize,
    /// Variables of the largest LP.
    pub max_variables: usize,
}

impl fmt::Display for LpStats {
    /// `12 planned (3 widened, 1 unplanned), 40 LP solves, largest 2381 variables`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} planned ({} widened, {} unplanned), {} LP solves, largest {} variables",
            self.planned, self.relaxed, self.unplanned, self.solves, self.max_variables
        )
    }
}

/// The result of a run. Ratios are fractions; bits are `f64` bits.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SimResult {
    /// One outcome per input job, in input order.
    pub jobs: Vec<JobOutcome>,
    /// Remaining-bandwidth ratios (paper (18), Fig. 8: the bandwidth left "after the scheduler
    /// has allocated the DAG jobs' resources"): for every port and window in which the
    /// scheduler allocated bandwidth to DAG transfers it schedules,
    /// `1 − those bits / (capacity × window)`; sorted ascending. The baselines schedule every
    /// DAG transfer; JIT schedules the LP's transfers, and the rest of a job's transfers use
    /// what is left (paper §3.4 1)), like the file jobs, in the order its [`RestPolicy`] gives.
    /// This is the reading under which the paper's α sweep (Fig. 10: more transfers in the LP,
    /// less remaining bandwidth) holds; see `remaining_all_dag` for all DAG traffic.
    pub remaining: Vec<f64>,
    /// The same ratio over all DAG traffic, scheduled or background (for JIT, LP and non-LP
    /// transfers together; for the baselines equal to `remaining`); sorted ascending.
    pub remaining_all_dag: Vec<f64>,
    /// LP statistics (JIT only).
    pub lp: LpStats,
    /// Largest port utilisation seen at any event (≤ 1 when capacities are kept).
    pub max_port_utilisation: f64,
    /// JIT only: bits the LP's transfers moved at their planned rate of the current slot.
    pub lp_bits_on_plan: f64,
    /// JIT only: bits the LP's transfers moved beyond their plan while catching up with it
    /// (released after their first planned slot began, or past their last one). Together with
    /// `lp_bits_on_plan` this is all the LP transfers' bits: they never take spare capacity
    /// ahead of their plan.
    pub lp_bits_catch_up: f64,
    /// JIT only: the LP optimum `U*` (peak planned port load, reservations of earlier jobs
    /// included, as a fraction of capacity) of every planned job, in planning order.
    pub lp_peaks: Vec<f64>,
    /// Largest relative difference between the bits a flow was credited and its size.
    pub max_conservation_error: f64,
    /// Number of events processed.
    pub events: usize,
}

impl SimResult {
    /// Mean JCT (s) of the jobs of `kind` (`None` for every job); NaN when there is none.
    #[must_use]
    pub fn mean_jct(&self, kind: Option<JobKind>) -> f64 {
        let v: Vec<f64> = self
            .jobs
            .iter()
            .filter(|j| kind.is_none_or(|k| k == j.kind))
            .map(JobOutcome::jct)
            .collect();
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    }
}

impl fmt::Display for SimResult {
    /// One paragraph: jobs, mean JCT, last finish, remaining bandwidth, events and (JIT) the
    /// LP statistics.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dag = self
            .jobs
            .iter()
            .filter(|j| matches!(j.kind, JobKind::Dag(_)))
            .count();
        let last = self.jobs.iter().map(|j| j.finish).fold(0.0, f64::max);
        write!(
            f,
            "{} jobs ({dag} with a DAG), mean JCT {:.3} s, last finish {:.3} s",
            self.jobs.len(),
            self.mean_jct(None),
            last
        )?;
        if let (Some(min), Some(med)) = (
            self.remaining.first(),
            self.remaining.get(self.remaining.len() / 2),
        ) {
            write!(f, ", remaining bandwidth min {min:.3} median {med:.3}")?;
        }
        write!(f, ", {} events", self.events)?;
        if self.lp.solves > 0 {
            write!(f, "; LP: {}", self.lp)?;
        }
        Ok(())
    }
}

struct Flow {
    job: usize,
    node: TaskId,
    src: usize,
    dst: usize,
    /// The resources the flow crosses.
    path: Path,
    size: f64,
    remaining: f64,
    sent: f64,
    lp: Option<usize>,
    deadline_slot: i64,
    /// JIT with [`RestPolicy::LatPriority`] (the default): absolute LAT (s) of a DAG transfer
    /// outside the LP.
    lat_abs: f64,
    channel: bool,
}

/// A flow's resources: two on the big switch, six across a three-level fat tree, kept inline
/// (`cargo bench -p dag-sched --bench bits -- dag_flow_paths`: building 10,000 routes and
/// reading each ten times took 0.62 ms with `SmallVec<[u32; 6]>` against 1.30 ms with
/// `Vec<u32>` at two hops, 0.73 against 1.23 ms at six).
type Path = SmallVec<[u32; 6]>;

impl Flow {
    /// The flow as a rate-allocation demand capped at `cap`.
    fn demand(&self, cap: f64) -> FlowDemand<'_> {
        FlowDemand {
            path: &self.path,
            cap,
        }
    }
}

struct JobState {
    pending: Vec<u32>,
    finish: Vec<f64>,
    left: usize,
    done_at: f64,
    tf_rank: Vec<u32>,
    prio: Vec<u32>,
    plan: Option<Schedule>,
    lp_index: Vec<u32>,
    lat_abs: Vec<f64>,
    fifo: usize,
}

const NONE: u32 = u32::MAX;

/// Orders non-negative `f64` times in a heap.
fn key(t: f64) -> u64 {
    t.max(0.0).to_bits()
}

struct Sim<'a> {
    cluster: &'a Cluster,
    jobs: &'a [SimJob],
    cfg: SimConfig,
    st: Vec<JobState>,
    flows: Vec<Flow>,
    active: Vec<usize>,
    heads: BTreeMap<(usize, usize, usize), usize>,
    queues: BTreeMap<(usize, usize, usize), Vec<usize>>,
    heap: BinaryHeap<Reverse<(u64, usize, u32)>>,
    now: f64,
    reserved: Reservations,
    lp: LpStats,
    sinc_rank: Vec<usize>,
    dirty: bool,
    /// Bits per (port, window) of the DAG transfers the scheduler schedules.
    usage: HashMap<(usize, i64), f64>,
    /// The same over all DAG transfers; kept for JIT only (for the baselines it equals `usage`).
    usage_all: HashMap<(usize, i64), f64>,
    max_util: f64,
    unfinished: usize,
    /// JIT: the planned (pass-1) part of each active flow's rate, as `rates` returned it.
    on_plan: Vec<f64>,
    lp_bits_on_plan: f64,
    lp_bits_catch_up: f64,
    lp_peaks: Vec<f64>,
}

impl<'a> Sim<'a> {
    fn uses_channel(&self, lp: bool, dag: bool) -> bool {
        match self.cfg.scheduler {
            Scheduler::TensorFlow => true,
            // Not in the LP, and not a DAG transfer that LatPriority sends by LAT instead.
            Scheduler::Jit(jit) => !(lp || (dag && jit.rest == RestPolicy::LatPriority)),
            Scheduler::TicTac | Scheduler::Sincronia | Scheduler::Varys => false,
        }
    }

    fn start_job(&mut self, j: usize) -> Result<(), Error> {
        let job = &self.jobs[j].job;
        let arrival = self.jobs[j].arrival;
        if let Scheduler::Jit(jit) = self.cfg.scheduler
            && job.has_compute()
        {
            self.plan(j, &jit, arrival)?;
        }
        let sources: Vec<TaskId> = job
            .topo_order()
            .iter()
            .copied()
            .filter(|&n| job.preds(n).is_empty())
            .collect();
        if job.is_empty() {
            self.st[j].done_at = arrival;
            self.unfinished -= 1;
        }
        for n in sources {
            self.release(j, n);
        }
        Ok(())
    }

    fn plan(&mut self, j: usize, jit: &JitConfig, arrival: f64) -> Result<(), Error> {
        let job = &self.jobs[j].job;
        let est = lat::estimate(job, self.cluster, jit.lat);
        let n_lp = lp::alpha_prefix(job.transfers().len(), jit.alpha)?;
        // The transfers left out of the LP are background traffic (paper §3.4 1)), but JIT,
        // the central scheduler that hands its plan to the machines (§1.3), knows their LATs,
        // and "transfers with a smaller LAT should have a higher priority" (§3.4 1)): each
        // channel sends them in LAT order instead of gRPC's random one.
        let mut by_lat: Vec<TaskId> = job.transfers().to_vec();
        by_lat.sort_by(|&a, &b| {
            let (la, lb) = (est.lat(a).unwrap_or(0.0), est.lat(b).unwrap_or(0.0));
            la.total_cmp(&lb).then(a.cmp(&b))
        });
        for (rank, &t) in by_lat.iter().enumerate() {
            self.st[j].tf_rank[t.index()] = rank as u32;
            self.st[j].lat_abs[t.index()] = arrival + est.lat(t).unwrap_or(0.0);
        }
        let base = lp::job_transfers(job, self.cluster, &est, n_lp, arrival);
        if base.is_empty() {
            return Ok(());
        }
        self.reserved
            .forget_before((self.now / jit.slot.as_secs_f64()).floor() as i64);
        let mut relaxed = false;
        for attempt in 0..=jit.max_relax {
            let scale = f64::from(1u32 << attempt.min(20));
            let ts: Vec<LpTransfer> = base
                .iter()
                .map(|t| LpTransfer {
                    deadline: t.release + (t.deadline - t.release) * scale,
                    ..*t
                })
                .collect();
            match lp::solve(
                self.cluster,
                &ts,
                &self.reserved,
                jit.slot,
                jit.objective,
                jit.backend,
            ) {
                Ok(s) => {
                    self.lp.solves += s.solves.max(1);
                    self.lp.planned += 1;
                    self.lp.relaxed += usize::from(relaxed);
                    self.lp.max_variables = self.lp.max_variables.max(s.variables);
                    self.lp_peaks.push(s.min_max);
                    self.reserved.add_schedule(self.cluster, &ts, &s);
                    for (f, &t) in self.jobs[j].job.transfers()[..n_lp].iter().enumerate() {
                        self.st[j].lp_index[t.index()] = f as u32;
                    }
                    self.st[j].plan = Some(s);
                    return Ok(());
                }
                Err(Error::Infeasible { .. }) => {
                    self.lp.solves += 1;
                    relaxed = true;
                }
                Err(e) => return Err(e),
            }
        }
        self.lp.unplanned += 1;
        Ok(())
    }

    /// Node `n` of job `j` has all its predecessors done at `self.now`.
    fn release(&mut self, j: usize, n: TaskId) {
        let mut work = vec![(j, n)];
        while let Some((j, n)) = work.pop() {
            match self.jobs[j].job.node(n) {
                NodeKind::Compute { load } => {
                    if load <= 0.0 {
                        self.complete(j, n, &mut work);
                    } else {
                        self.heap.push(Reverse((key(self.now + load), j, n.get())));
                    }
                }
                NodeKind::Transfer { size, src, dst } => {
                    if size <= 0.0 {
                        self.complete(j, n, &mut work);
                        continue;
                    }
                    let li = self.st[j].lp_index[n.index()];
                    let lp = (li != NONE).then_some(li as usize);
                    let deadline_slot = match (&self.st[j].plan, lp) {
                        (Some(p), Some(f)) => p.last_slot(f).unwrap_or(i64::MAX),
                        _ => i64::MAX,
                    };
                    let channel = self.uses_channel(lp.is_some(), self.jobs[j].job.has_compute());
                    let lat_abs = self.st[j].lat_abs[n.index()];
                    let id = self.flows.len();
                    let mut path = Path::new();
                    self.cluster.route(src.index(), dst.index(), &mut path);
                    self.flows.push(Flow {
                        job: j,
                        node: n,
                        src: src.index(),
                        dst: dst.index(),
                        path,
                        size,
                        remaining: size,
                        sent: 0.0,
                        lp,
                        deadline_slot,
                        lat_abs,
                        channel,
                    });
                    if matches!(self.cfg.scheduler, Scheduler::TicTac) {
                        // Kept in TicTac's (static) priority order, so that the sort of every
                        // rate computation meets sorted input (linear time).
                        let key = self.tictac_rank(id);
                        let pos = self.active.partition_point(|&a| self.tictac_rank(a) < key);
                        self.active.insert(pos, id);
                    } else {
                        self.active.push(id);
                    }
                    self.dirty = true;
                    if channel {
                        let ch = (j, src.index(), dst.index());
                        if let std::collections::btree_map::Entry::Vacant(e) = self.heads.entry(ch)
                        {
                            e.insert(id);
                        } else {
                            self.queues.entry(ch).or_default().push(id);
                        }
                    }
                }
            }
        }
    }

    fn complete(&mut self, j: usize, n: TaskId, work: &mut Vec<(usize, TaskId)>) {
        let now = self.now;
        let st = &mut self.st[j];
        st.finish[n.index()] = now;
        st.left -= 1;
        if st.left == 0 {
            st.done_at = now;
            self.unfinished -= 1;
        }
        for &s in self.jobs[j].job.succs(n) {
            let st = &mut self.st[j];
            st.pending[s.index()] -= 1;
            if st.pending[s.index()] == 0 {
                work.push((j, s));
            }
        }
    }

    fn finish_flow(&mut self, id: usize) {
        let (j, n, channel, src, dst) = {
            let f = &self.flows[id];
            (f.job, f.node, f.channel, f.src, f.dst)
        };
        self.dirty = true;
        if channel {
            let ch = (j, src, dst);
            let next = self.queues.get_mut(&ch).and_then(|q| {
                let st = &self.st[j];
                let flows = &self.flows;
                let k = (0..q.len()).min_by_key(|&k| st.tf_rank[flows[q[k]].node.index()])?;
                Some(q.swap_remove(k))
            });
            match next {
                Some(h) => {
                    self.heads.insert(ch, h);
                }
                None => {
                    self.heads.remove(&ch);
                }
            }
        }
        let mut work = Vec::new();
        self.complete(j, n, &mut work);
        while let Some((j, n)) = work.pop() {
            self.release(j, n);
        }
    }

    /// FIFO + TicTac's strict priority of flow `id` (smaller first): its job's arrival rank,
    /// then the TAC rank of its transfer inside the job. Static over the flow's life.
    fn tictac_rank(&self, id: usize) -> (usize, u32) {
        let f = &self.flows[id];
        let st = &self.st[f.job];
        (st.fifo, st.prio[f.node.index()])
    }

    fn is_head(&self, id: usize) -> bool {
        let f = &self.flows[id];
        self.heads.get(&(f.job, f.src, f.dst)) == Some(&id)
    }

    /// Rates of the active flows (same order as `self.active`) and the next policy event time.
    fn rates(&mut self) -> (Vec<f64>, f64) {
        let mut free = self.cluster.capacities().to_vec();
        let mut rate = vec![0.0; self.active.len()];
        let mut next = f64::INFINITY;
        self.on_plan.clear();
        self.on_plan.resize(self.active.len(), 0.0);
        match self.cfg.scheduler {
            Scheduler::TensorFlow => self.share_channels(&mut rate, &mut free),
            Scheduler::TicTac | Scheduler::Sincronia | Scheduler::Varys => {
                if !matches!(self.cfg.scheduler, Scheduler::TicTac) && self.dirty {
                    self.coflow_order();
                }
                let tictac = matches!(self.cfg.scheduler, Scheduler::TicTac);
                // Keys gathered once, then one unstable sort (keys are unique through `k`).
                let mut keyed: Vec<(usize, u32, usize)> = self
                    .active
                    .iter()
                    .enumerate()
                    .map(|(k, &id)| {
                        let (a, b) = if tictac {
                            self.tictac_rank(id)
                        } else {
                            let f = &self.flows[id];
                            (
                                self.sinc_rank[f.job],
                                self.st[f.job].tf_rank[f.node.index()],
                            )
                        };
                        (a, b, k)
                    })
                    .collect();
                keyed.sort_unstable();
                let idx: Vec<usize> = keyed.into_iter().map(|(_, _, k)| k).collect();
                let d: Vec<FlowDemand<'_>> = idx
                    .iter()
                    .map(|&k| self.flows[self.active[k]].demand(f64::INFINITY))
                    .collect();
                if !tictac {
                    // Sincronia and Varys: coflow by coflow in BSSI or SEBF order, MADD inside
                    // a coflow (its flows finish together, as the paper describes Sincronia,
                    // §4.2).
                    let mut a = 0;
                    while a < idx.len() {
                        let job = self.flows[self.active[idx[a]]].job;
                        let mut b = a;
                        while b < idx.len() && self.flows[self.active[idx[b]]].job == job {
                            b += 1;
                        }
                        let left: Vec<f64> = idx[a..b]
                            .iter()
                            .map(|&k| self.flows[self.active[k]].remaining)
                            .collect();
                        for (r, &k) in madd(&d[a..b], &left, &mut free).into_iter().zip(&idx[a..b])
                        {
                            rate[k] = r;
                        }
                        a = b;
                    }
                }
                // TicTac: strict priority; coflows: work conservation in the same order.
                for (r, &k) in priority_greedy(&d, &mut free).into_iter().zip(&idx) {
                    rate[k] += r;
                }
            }
            Scheduler::Jit(jit) => {
                let slot = jit.slot.as_secs_f64();
                let k_now = (self.now / slot + 1e-9).floor() as i64;
                let mut lp_idx: Vec<usize> = (0..self.active.len())
                    .filter(|&k| self.flows[self.active[k]].lp.is_some())
                    .collect();
                lp_idx.sort_by_key(|&k| {
                    let f = &self.flows[self.active[k]];
                    (f.deadline_slot, f.job, f.node.index())
                });
                if !lp_idx.is_empty() {
                    next = next.min((k_now + 1) as f64 * slot);
                }
                // Pass 1: planned rates.
                let planned: Vec<FlowDemand<'_>> = lp_idx
                    .iter()
                    .map(|&k| {
                        let f = &self.flows[self.active[k]];
                        let plan = self.st[f.job].plan.as_ref();
                        let r = plan.map_or(0.0, |p| p.rate(f.lp.unwrap_or(0), k_now));
                        f.demand(r)
                    })
                    .collect();
                for (r, &k) in priority_greedy(&planned, &mut free)
                    .into_iter()
                    .zip(&lp_idx)
                {
                    rate[k] = r;
                    self.on_plan[k] = r;
                }
                // Pass 2: flows behind their plan catch up, earliest deadline first.
                let mut behind = Vec::new();
                let mut owed = Vec::new();
                for &k in &lp_idx {
                    let f = &self.flows[self.active[k]];
                    let Some(plan) = self.st[f.job].plan.as_ref() else {
                        continue;
                    };
                    let fi = f.lp.unwrap_or(0);
                    // Bits planned up to now: whole slots before the current one, and the
                    // current slot's rate for the part of it already elapsed (a flow that
                    // moves at its planned rate is never behind).
                    let into_slot = (self.now - k_now as f64 * slot).clamp(0.0, slot);
                    let cum: f64 = plan
                        .rates(fi)
                        .take_while(|&(s, _)| s <= k_now)
                        .map(|(s, r)| r * if s < k_now { slot } else { into_slot })
                        .sum();
                    let late = k_now > f.deadline_slot;
                    let tol = 1e-9 * f.size.max(1.0);
                    if late || f.sent + tol < cum.min(f.size) {
                        behind.push(k);
                        owed.push(if late {
                            f.remaining
                        } else {
                            cum.min(f.size) - f.sent
                        });
                    }
                }
                let d: Vec<FlowDemand<'_>> = behind
                    .iter()
                    .map(|&k| self.flows[self.active[k]].demand(f64::INFINITY))
                    .collect();
                for ((r, &k), &o) in priority_greedy(&d, &mut free)
                    .into_iter()
                    .zip(&behind)
                    .zip(&owed)
                {
                    rate[k] += r;
                    // The gap to the plan closes at the catch-up rate on top of the plan. A
                    // gap too small to move the clock closes within the next step anyway
                    // (and an event at `now` would repeat forever).
                    let at = self.now + o / r;
                    if r > 0.0 && at > self.now {
                        next = next.min(at);
                    }
                }
                // Pass 3 (RestPolicy::LatPriority, the default): the DAG transfers outside the
                // LP by absolute LAT, strict priority.
                if jit.rest == RestPolicy::LatPriority {
                    let mut rest: Vec<usize> = (0..self.active.len())
                        .filter(|&k| {
                            let f = &self.flows[self.active[k]];
                            f.lp.is_none() && !f.channel
                        })
                        .collect();
                    rest.sort_by(|&a, &b| {
                        let (fa, fb) = (&self.flows[self.active[a]], &self.flows[self.active[b]]);
                        fa.lat_abs
                            .total_cmp(&fb.lat_abs)
                            .then(self.active[a].cmp(&self.active[b]))
                    });
                    let d: Vec<FlowDemand<'_>> = rest
                        .iter()
                        .map(|&k| self.flows[self.active[k]].demand(f64::INFINITY))
                        .collect();
                    for (r, &k) in priority_greedy(&d, &mut free).into_iter().zip(&rest) {
                        rate[k] = r;
                    }
                }
                // Pass 4: everything else shares what is left, channel by channel.
                self.share_channels(&mut rate, &mut free);
            }
        }
        (rate, next)
    }

    /// The head flow of every channel, LP flows excepted, shares the free capacity max-min
    /// fairly (TCP between channels); sets those flows' entries of `rate`.
    fn share_channels(&self, rate: &mut [f64], free: &mut [f64]) {
        let idx: Vec<usize> = (0..self.active.len())
            .filter(|&k| {
                let id = self.active[k];
                self.flows[id].lp.is_none() && self.is_head(id)
            })
            .collect();
        let d: Vec<FlowDemand<'_>> = idx
            .iter()
            .map(|&k| self.flows[self.active[k]].demand(f64::INFINITY))
            .collect();
        for (r, &k) in max_min_fair(&d, free).into_iter().zip(&idx) {
            rate[k] = r;
        }
    }

    /// Ranks the jobs with active flows as coflows: BSSI (Sincronia) or SEBF (Varys).
    fn coflow_order(&mut self) {
        let cap = self.cluster.capacities();
        let mut demand: Vec<Vec<(usize, f64)>> = vec![Vec::new(); self.jobs.len()];
        let mut has = vec![false; self.jobs.len()];
        for &id in &self.active {
            let f = &self.flows[id];
            for &r in &f.path {
                demand[f.job].push((r as usize, f.remaining / cap[r as usize]));
            }
            has[f.job] = true;
        }
        let jobs: Vec<usize> = (0..self.jobs.len()).filter(|&j| has[j]).collect();
        let d: Vec<Vec<(usize, f64)>> = jobs
            .iter()
            .map(|&j| std::mem::take(&mut demand[j]))
            .collect();
        let order = if matches!(self.cfg.scheduler, Scheduler::Varys) {
            // Γ over full capacities: per port, the coflow's remaining seconds there.
            let gamma: Vec<f64> = d
                .iter()
                .map(|dj| {
                    let mut per_port: BTreeMap<usize, f64> = BTreeMap::new();
                    for &(p, x) in dj {
                        *per_port.entry(p).or_default() += x;
                    }
                    per_port.values().copied().fold(0.0, f64::max)
                })
                .collect();
            let mut o: Vec<usize> = (0..jobs.len()).collect();
            o.sort_by(|&a, &b| {
                gamma[a]
                    .total_cmp(&gamma[b])
                    .then(self.st[jobs[a]].fifo.cmp(&self.st[jobs[b]].fifo))
            });
            o
        } else {
            bssi_order(&d, &vec![1.0; jobs.len()], cap.len())
        };
        for (pos, &k) in order.iter().enumerate() {
            self.sinc_rank[jobs[k]] = pos;
        }
        self.dirty = false;
    }

    fn record_usage(&mut self, rate: &[f64], t0: f64, t1: f64) {
        let w = self.cfg.sample_window.as_secs_f64();
        let jit = matches!(self.cfg.scheduler, Scheduler::Jit(_));
        // Per port: (scheduled DAG rate, all DAG rate).
        let mut port_rate: BTreeMap<usize, (f64, f64)> = BTreeMap::new();
        let mut util: BTreeMap<usize, f64> = BTreeMap::new();
        for (k, &id) in self.active.iter().enumerate() {
            let f = &self.flows[id];
            if rate[k] <= 0.0 {
                continue;
            }
            for &p in &f.path {
                *util.entry(p as usize).or_default() += rate[k];
            }
            if matches!(self.jobs[f.job].kind, JobKind::Dag(_)) {
                let scheduled = if !jit || f.lp.is_some() { rate[k] } else { 0.0 };
                for &p in &f.path {
                    let e = port_rate.entry(p as usize).or_default();
                    e.0 += scheduled;
                    e.1 += rate[k];
                }
            }
        }
        for (&p, &u) in &util {
            let cap = self.port_cap(p);
            self.max_util = self.max_util.max(u / cap);
        }
        if t1 <= t0 {
            return;
        }
        for (&p, &(r, r_all)) in &port_rate {
            let mut a = t0;
            while a < t1 {
                let win = (a / w).floor() as i64;
                let b = ((win + 1) as f64 * w).min(t1);
                if r > 0.0 {
                    *self.usage.entry((p, win)).or_default() += r * (b - a);
                }
                if jit {
                    *self.usage_all.entry((p, win)).or_default() += r_all * (b - a);
                }
                if b <= a {
                    break;
                }
                a = b;
            }
        }
    }

    /// `1 − bits / (capacity × window)` per (port, window) of `usage`, sorted ascending.
    fn remaining_ratios(&self, usage: &HashMap<(usize, i64), f64>) -> Vec<f64> {
        let w = self.cfg.sample_window.as_secs_f64();
        let mut v: Vec<f64> = usage
            .iter()
            .map(|(&(p, _), &bits)| (1.0 - bits / (self.port_cap(p) * w)).max(0.0))
            .collect();
        v.sort_by(f64::total_cmp);
        v
    }

    fn port_cap(&self, p: usize) -> f64 {
        self.cluster.capacities()[p]
    }
}

/// Everything [`tictac_order`] reads of a job (its nodes' kinds, compute loads and transfer
/// times on `cluster`, its edges, topological order and transfer list), exactly, so that jobs
/// with equal keys have equal TAC orders.
fn tictac_key(job: &Job, cluster: &Cluster) -> Vec<u64> {
    let mut key = vec![job.len() as u64];
    for i in 0..job.len() {
        let v = TaskId::new(i as u32);
        match job.node(v) {
            NodeKind::Compute { load } => key.extend([0, load.to_bits()]),
            NodeKind::Transfer { .. } => key.extend([1, lat::trans(job, cluster, v).to_bits()]),
        }
        key.push(job.preds(v).len() as u64);
        key.extend(job.preds(v).iter().map(|p| u64::from(p.get())));
    }
    key.extend(job.topo_order().iter().map(|v| u64::from(v.get())));
    key.extend(job.transfers().iter().map(|v| u64::from(v.get())));
    key
}

/// Runs `jobs` (each validated against `cluster`) under `cfg` until every job finishes.
///
/// # Errors
/// [`Error::InvalidParameter`] for a bad window, slot or α; LP errors other than
/// infeasibility (infeasible plans are widened, then dropped); [`Error::Stalled`] if no flow
/// can progress (a bug guard).
///
/// # Complexity
/// O(E · (F log F + M)) time for E events, F active flows and M machines, plus one LP per DAG
/// job under JIT and one TAC ordering per job under TicTac.
pub fn simulate(cluster: &Cluster, jobs: &[SimJob], cfg: &SimConfig) -> Result<SimResult, Error> {
    if cfg.sample_window == Nanos::ZERO {
        return Err(Error::InvalidParameter {
            name: "sample_window",
            value: 0.0,
            reason: "must be positive and finite",
        });
    }
    if let Scheduler::Jit(j) = cfg.scheduler {
        lp::alpha_prefix(0, j.alpha)?;
        if j.slot == Nanos::ZERO {
            return Err(Error::InvalidParameter {
                name: "slot",
                value: 0.0,
                reason: "must be positive and finite",
            });
        }
    }
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| jobs[a].arrival.total_cmp(&jobs[b].arrival).then(a.cmp(&b)));
    let mut rng = fabric_model::rng::seeded(cfg.seed);
    let mut tac_cache: HashMap<Vec<u64>, Vec<u32>> = HashMap::new();
    let mut st = Vec::with_capacity(jobs.len());
    for (j, sj) in jobs.iter().enumerate() {
        let job = &sj.job;
        let n = job.len();
        let mut tf_rank = vec![NONE; n];
        let mut perm: Vec<u32> = (0..job.transfers().len() as u32).collect();
        perm.shuffle(&mut rng);
        for (k, &t) in job.transfers().iter().enumerate() {
            tf_rank[t.index()] = perm[k];
        }
        let mut prio = vec![NONE; n];
        if matches!(cfg.scheduler, Scheduler::TicTac) {
            // Jobs of one model share their TAC order: computed once per distinct input.
            let order = tac_cache
                .entry(tictac_key(job, cluster))
                .or_insert_with(|| tictac_order(job, cluster, true));
            for (k, &p) in order.iter().enumerate() {
                prio[job.transfers()[k].index()] = p;
            }
        }
        st.push(JobState {
            pending: (0..n)
                .map(|i| job.preds(TaskId::new(i as u32)).len() as u32)
                .collect(),
            finish: vec![f64::NAN; n],
            left: n,
            done_at: f64::NAN,
            tf_rank,
            prio,
            plan: None,
            lp_index: vec![NONE; n],
            lat_abs: vec![f64::INFINITY; n],
            fifo: order.iter().position(|&o| o == j).unwrap_or(j),
        });
    }
    let mut sim = Sim {
        cluster,
        jobs,
        cfg: *cfg,
        st,
        flows: Vec::new(),
        active: Vec::new(),
        heads: BTreeMap::new(),
        queues: BTreeMap::new(),
        heap: BinaryHeap::new(),
        now: 0.0,
        reserved: Reservations::new(),
        lp: LpStats::default(),
        sinc_rank: vec![usize::MAX; jobs.len()],
        dirty: true,
        usage: HashMap::new(),
        usage_all: HashMap::new(),
        max_util: 0.0,
        unfinished: jobs.len(),
        on_plan: Vec::new(),
        lp_bits_on_plan: 0.0,
        lp_bits_catch_up: 0.0,
        lp_peaks: Vec::new(),
    };
    let mut next_job = 0;
    let mut events = 0usize;
    loop {
        events += 1;
        while next_job < order.len() && jobs[order[next_job]].arrival <= sim.now {
            sim.start_job(order[next_job])?;
            next_job += 1;
        }
        while let Some(&Reverse((t, j, n))) = sim.heap.peek() {
            if f64::from_bits(t) > sim.now {
                break;
            }
            sim.heap.pop();
            let mut work = Vec::new();
            sim.complete(j, TaskId::new(n), &mut work);
            while let Some((j, n)) = work.pop() {
                sim.release(j, n);
            }
        }
        if sim.unfinished == 0 && next_job == order.len() {
            break;
        }
        let (rate, policy_next) = sim.rates();
        let mut t_next = policy_next;
        if let Some(&j) = order.get(next_job) {
            t_next = t_next.min(jobs[j].arrival);
        }
        if let Some(&Reverse((t, _, _))) = sim.heap.peek() {
            t_next = t_next.min(f64::from_bits(t));
        }
        for (k, &id) in sim.active.iter().enumerate() {
            if rate[k] > 0.0 {
                t_next = t_next.min(sim.now + sim.flows[id].remaining / rate[k]);
            }
        }
        if !t_next.is_finite() {
            return Err(Error::Stalled {
                time: sim.now,
                unfinished: sim.unfinished,
            });
        }
        let t_next = t_next.max(sim.now);
        let dt = t_next - sim.now;
        sim.record_usage(&rate, sim.now, t_next);
        let mut done = Vec::new();
        for (k, &id) in sim.active.iter().enumerate() {
            let f = &mut sim.flows[id];
            if rate[k] <= 0.0 {
                continue;
            }
            let moved = (rate[k] * dt).min(f.remaining);
            let finishing =
                sim.now + f.remaining / rate[k] <= t_next || f.remaining - moved <= 1e-9 * f.size;
            let delta = if finishing { f.remaining } else { moved };
            if f.lp.is_some() {
                // Split what moved between the planned rate and the catch-up on top of it.
                let planned = sim.on_plan.get(k).copied().unwrap_or(0.0).min(rate[k]);
                let plan_part = delta * planned / rate[k];
                sim.lp_bits_on_plan += plan_part;
                sim.lp_bits_catch_up += delta - plan_part;
            }
            f.sent += delta;
            f.remaining = if finishing { 0.0 } else { f.remaining - moved };
            if finishing {
                done.push(id);
            }
        }
        sim.now = t_next;
        if !done.is_empty() {
            sim.active.retain(|id| !done.contains(id));
            for id in done {
                sim.finish_flow(id);
            }
        }
    }
    let mut max_err: f64 = 0.0;
    for f in &sim.flows {
        max_err = max_err.max((f.sent - f.size).abs() / f.size.max(1.0));
    }
    let remaining = sim.remaining_ratios(&sim.usage);
    let remaining_all_dag = if matches!(cfg.scheduler, Scheduler::Jit(_)) {
        sim.remaining_ratios(&sim.usage_all)
    } else {
        remaining.clone()
    };
    let outcomes = jobs
        .iter()
        .enumerate()
        .map(|(j, sj)| {
            let job = &sj.job;
            let s = &sim.st[j];
            let mut waits = Vec::new();
            for &t in job.transfers() {
                let mut first: Option<f64> = None;
                for &c in job.succs(t) {
                    if let NodeKind::Compute { load } = job.node(c) {
                        let start = s.finish[c.index()] - load;
                        first = Some(first.map_or(start, |x: f64| x.min(start)));
                    }
                }
                if let Some(start) = first {
                    waits.push((start - s.finish[t.index()]).max(0.0));
                }
            }
            JobOutcome {
                kind: sj.kind,
                arrival: sj.arrival,
                finish: s.done_at,
                alone: lat::estimate(job, cluster, LatMethod::BackwardCpm).makespan(),
                mean_wait: (!waits.is_empty())
                    .then(|| waits.iter().sum::<f64>() / waits.len() as f64),
            }
        })
        .collect();
    Ok(SimResult {
        jobs: outcomes,
        remaining,
        remaining_all_dag,
        lp: sim.lp,
        max_port_utilisation: sim.max_util,
        lp_bits_on_plan: sim.lp_bits_on_plan,
        lp_bits_catch_up: sim.lp_bits_catch_up,
        lp_peaks: sim.lp_peaks,
        max_conservation_error: max_err,
        events,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::MachineId;
    use crate::job::JobBuilder;
    use crate::models::Model;
    use crate::workload::{
        ComputeModel, PsTraffic, WorkloadConfig, file_job_bits, generate, ps_job,
    };
    use fabric_model::{BitsPerSec, Bytes};
    use proptest::prelude::*;

    fn all_schedulers() -> [Scheduler; 6] {
        [
            Scheduler::TensorFlow,
            Scheduler::TicTac,
            Scheduler::Sincronia,
            Scheduler::Varys,
            Scheduler::Jit(JitConfig {
                slot: Nanos::from_millis(500),
                ..JitConfig::default()
            }),
            Scheduler::Jit(JitConfig {
                slot: Nanos::from_millis(500),
                rest: RestPolicy::Background,
                ..JitConfig::default()
            }),
        ]
    }

    fn run(cluster: &Cluster, jobs: &[SimJob], s: Scheduler) -> SimResult {
        simulate(
            cluster,
            jobs,
            &SimConfig {
                scheduler: s,
                ..SimConfig::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn single_file_transfer_runs_at_line_rate() {
        let cluster = Cluster::uniform(2, BitsPerSec::new(2)).unwrap();
        let job = file_job_bits(10.0, MachineId::new(0), MachineId::new(1), &cluster).unwrap();
        let jobs = [SimJob {
            arrival: 1.0,
            job,
            kind: JobKind::File,
        }];
        for s in all_schedulers() {
            let r = run(&cluster, &jobs, s);
            assert!(
                (r.jobs[0].jct() - 5.0).abs() < 1e-9,
                "{}: {}",
                s.name(),
                r.jobs[0].jct()
            );
            assert!((r.jobs[0].alone - 5.0).abs() < 1e-12);
        }
    }

    #[test]
    fn fair_sharing_and_priority() {
        // Two 4-bit files into the same receiver at capacity 1.
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let jobs: Vec<SimJob> = [0, 1]
            .iter()
            .map(|&s| SimJob {
                arrival: 0.0,
                job: file_job_bits(4.0, MachineId::new(s), MachineId::new(2), &cluster).unwrap(),
                kind: JobKind::File,
            })
            .collect();
        // Max-min fair: both finish at 8.
        let tf = run(&cluster, &jobs, Scheduler::TensorFlow);
        assert!(tf.jobs.iter().all(|j| (j.finish - 8.0).abs() < 1e-9));
        // Strict priority (FIFO by input order at equal arrival): 4 then 8.
        let tt = run(&cluster, &jobs, Scheduler::TicTac);
        assert!((tt.jobs[0].finish - 4.0).abs() < 1e-9 && (tt.jobs[1].finish - 8.0).abs() < 1e-9);
        for s in [Scheduler::Sincronia, Scheduler::Varys] {
            let sc = run(&cluster, &jobs, s);
            let mut f: Vec<f64> = sc.jobs.iter().map(|j| j.finish).collect();
            f.sort_by(f64::total_cmp);
            assert!((f[0] - 4.0).abs() < 1e-9 && (f[1] - 8.0).abs() < 1e-9);
        }
    }

    #[test]
    fn coflow_schedulers_finish_a_job_together() {
        // T1 (1 bit) -> C1 (10 s) -> C2 <- T2 (3 bits), both into machine 2 at capacity 1.
        // MADD sends both at 1/4 and 3/4: both land at 4, C1 runs 4..14, so the job takes 14 s
        // and T2 waits 10 s (T1 none), where T1 first would finish at 11.
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
        let t2 = b.transfer_bits(3.0, MachineId::new(1), MachineId::new(2));
        let c1 = b.compute_secs(10.0);
        let c2 = b.compute_secs(0.5);
        b.edge(t1, c1).edge(c1, c2).edge(t2, c2);
        let jobs = [SimJob {
            arrival: 0.0,
            job: b.build(&cluster).unwrap(),
            kind: JobKind::Dag(Model::LeNet),
        }];
        for s in [Scheduler::Sincronia, Scheduler::Varys] {
            let r = run(&cluster, &jobs, s);
            assert!((r.jobs[0].jct() - 14.5).abs() < 1e-9, "{}", s.name());
            assert!((r.jobs[0].mean_wait.unwrap() - 5.0).abs() < 1e-9);
        }
    }

    #[test]
    fn varys_serves_the_smallest_bottleneck_first() {
        // A 6-bit file then a 2-bit file into the same receiver: FIFO (TicTac) finishes them
        // at 6 and 8, SEBF at 8 and 2.
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let jobs: Vec<SimJob> = [(0, 6.0), (1, 2.0)]
            .iter()
            .map(|&(s, size)| SimJob {
                arrival: 0.0,
                job: file_job_bits(size, MachineId::new(s), MachineId::new(2), &cluster).unwrap(),
                kind: JobKind::File,
            })
            .collect();
        let v = run(&cluster, &jobs, Scheduler::Varys);
        assert!((v.jobs[0].finish - 8.0).abs() < 1e-9 && (v.jobs[1].finish - 2.0).abs() < 1e-9);
        let f = run(&cluster, &jobs, Scheduler::TicTac);
        assert!((f.jobs[0].finish - 6.0).abs() < 1e-9 && (f.jobs[1].finish - 8.0).abs() < 1e-9);
    }

    #[test]
    fn compute_waits_for_data() {
        // T (4 bits at rate 2) -> C (3 s): JCT 5, wait 0.
        let cluster = Cluster::uniform(2, BitsPerSec::new(2)).unwrap();
        let mut b = JobBuilder::new();
        let t = b.transfer_bits(4.0, MachineId::new(0), MachineId::new(1));
        let c = b.compute_secs(3.0);
        b.edge(t, c);
        let job = b.build(&cluster).unwrap();
        let jobs = [SimJob {
            arrival: 0.0,
            job,
            kind: JobKind::Dag(Model::LeNet),
        }];
        for s in all_schedulers() {
            let r = run(&cluster, &jobs, s);
            assert!(
                (r.jobs[0].jct() - 5.0).abs() < 1e-9,
                "{}: {}",
                s.name(),
                r.jobs[0].jct()
            );
            assert_eq!(r.jobs[0].mean_wait, Some(0.0));
        }
    }

    #[test]
    fn jit_plans_and_keeps_capacity() {
        let cluster = Cluster::uniform(4, BitsPerSec::from_gbps(1)).unwrap();
        let c = ComputeModel::default();
        let jobs: Vec<SimJob> = (0..2)
            .map(|k| SimJob {
                arrival: f64::from(k) * 0.05,
                job: ps_job(
                    Model::AlexNet,
                    MachineId::new(k),
                    &[MachineId::new(2), MachineId::new(3)],
                    &c,
                    &cluster,
                )
                .unwrap(),
                kind: JobKind::Dag(Model::AlexNet),
            })
            .collect();
        let r = run(
            &cluster,
            &jobs,
            Scheduler::Jit(JitConfig {
                slot: Nanos::from_millis(200),
                ..JitConfig::default()
            }),
        );
        assert_eq!(r.lp.planned + r.lp.unplanned, 2);
        assert!(r.lp.planned >= 1);
        assert!(r.max_port_utilisation <= 1.0 + 1e-9);
        assert!(r.max_conservation_error < 1e-9);
        assert!(r.jobs.iter().all(|j| j.jct() >= j.alone - 1e-9));
        assert!(r.remaining.iter().all(|&h| (-1e-9..=1.0).contains(&h)));
        // JIT's scheduled DAG traffic is a part of all DAG traffic: never less left over.
        assert!(!r.remaining.is_empty());
        assert!(r.remaining_all_dag[0] <= r.remaining[0] + 1e-12);
        let tf = run(&cluster, &jobs, Scheduler::TensorFlow);
        assert_eq!(tf.remaining, tf.remaining_all_dag);
    }

    /// When a transfer's planned bits reach its size, from its LP rates (bits, slot length).
    fn planned_finish(plan: &Schedule, f: usize, size: f64) -> f64 {
        let mut cum = 0.0;
        for (k, r) in plan.rates(f) {
            let bits = r * plan.slot();
            if r > 0.0 && cum + bits >= size - 1e-9 {
                return k as f64 * plan.slot() + (size - cum) / r;
            }
            cum += bits;
        }
        f64::INFINITY
    }

    #[test]
    fn jit_lp_transfers_follow_their_plan_and_background_gets_the_rest() {
        // T1 (1 bit) -> C1 (4 s) -> C2 (1 s) <- T2 (2 bits), both into machine 2 at capacity 1;
        // α = 1 puts both in the LP. Algorithm 1: l1 = 1, l2 = 1 + 4 + 2 = 7. A 4-bit file
        // from machine 3 into machine 2 is background traffic.
        let cluster = Cluster::uniform(4, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
        let t2 = b.transfer_bits(2.0, MachineId::new(1), MachineId::new(2));
        let c1 = b.compute_secs(4.0);
        let c2 = b.compute_secs(1.0);
        b.edge(t1, c1).edge(c1, c2).edge(t2, c2);
        let job = b.build(&cluster).unwrap();
        let jit = JitConfig {
            alpha: 1.0,
            slot: Nanos::from_secs(1),
            objective: Objective::LexLevels { levels: 3 },
            ..JitConfig::default()
        };
        // The plan the simulator makes at the job's arrival (time 0, nothing reserved).
        let est = lat::estimate(&job, &cluster, jit.lat);
        let ts = lp::job_transfers(&job, &cluster, &est, 2, 0.0);
        let plan = lp::solve(
            &cluster,
            &ts,
            &Reservations::new(),
            jit.slot,
            jit.objective,
            jit.backend,
        )
        .unwrap();
        let (f1, f2) = (planned_finish(&plan, 0, 1.0), planned_finish(&plan, 1, 2.0));
        assert!(f2 <= 7.0 + 1e-9, "{f2}");
        let expected_jct = (f1 + 4.0).max(f2) + 1.0;
        let dag = SimJob {
            arrival: 0.0,
            job,
            kind: JobKind::Dag(Model::LeNet),
        };
        let file = SimJob {
            arrival: 0.0,
            job: file_job_bits(4.0, MachineId::new(3), MachineId::new(2), &cluster).unwrap(),
            kind: JobKind::File,
        };
        // Alone and beside the file, the LP's transfers move exactly at their planned rates
        // (none of the idle capacity ahead of plan), so the job ends as the plan says.
        for jobs in [vec![dag.clone()], vec![dag.clone(), file]] {
            let r = run(&cluster, &jobs, Scheduler::Jit(jit));
            assert_eq!(r.lp.planned, 1);
            assert!(
                (r.jobs[0].jct() - expected_jct).abs() < 1e-9,
                "{:?}",
                r.jobs[0]
            );
            assert!(
                (r.lp_bits_on_plan - 3.0).abs() < 1e-9,
                "{}",
                r.lp_bits_on_plan
            );
            assert!(r.lp_bits_catch_up.abs() < 1e-9, "{}", r.lp_bits_catch_up);
            assert_eq!(r.lp_peaks.len(), 1);
            assert!((r.lp_peaks[0] - plan.min_max).abs() < 1e-9);
            if jobs.len() == 2 {
                // The file takes everything the plan leaves on machine 2's ingress: 7 s of
                // capacity hold the plan's 3 bits (all planned before l2 = 7) and its 4 bits.
                assert!((r.jobs[1].finish - 7.0).abs() < 1e-9, "{:?}", r.jobs[1]);
            }
        }
        // A baseline has no plan.
        let tf = run(&cluster, &[dag], Scheduler::TensorFlow);
        assert_eq!((tf.lp_bits_on_plan, tf.lp_bits_catch_up), (0.0, 0.0));
        assert!(tf.lp_peaks.is_empty());
    }

    #[test]
    fn jit_rest_is_background_or_lat_priority() {
        // α = 0: the DAG job's 4-bit transfer (-> 1 s compute) is outside the LP; a 4-bit file
        // shares machine 2's ingress (capacity 1) from time 0.
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let t = b.transfer_bits(4.0, MachineId::new(0), MachineId::new(2));
        let c = b.compute_secs(1.0);
        b.edge(t, c);
        let jobs = [
            SimJob {
                arrival: 0.0,
                job: b.build(&cluster).unwrap(),
                kind: JobKind::Dag(Model::LeNet),
            },
            SimJob {
                arrival: 0.0,
                job: file_job_bits(4.0, MachineId::new(1), MachineId::new(2), &cluster).unwrap(),
                kind: JobKind::File,
            },
        ];
        let jit = |rest| {
            Scheduler::Jit(JitConfig {
                alpha: 0.0,
                slot: Nanos::from_secs(1),
                rest,
                ..JitConfig::default()
            })
        };
        // Background: fair with the file, both land at 8.
        let r = run(&cluster, &jobs, jit(RestPolicy::Background));
        assert!((r.jobs[0].finish - 9.0).abs() < 1e-9 && (r.jobs[1].finish - 8.0).abs() < 1e-9);
        // The default: the DAG transfer goes first (4), the file after it (8).
        assert_eq!(JitConfig::default().rest, RestPolicy::LatPriority);
        let r = run(&cluster, &jobs, jit(RestPolicy::LatPriority));
        assert!((r.jobs[0].finish - 5.0).abs() < 1e-9 && (r.jobs[1].finish - 8.0).abs() < 1e-9);
        assert_eq!(r.lp.planned, 0);
    }

    #[test]
    fn tictac_key_separates_what_the_order_reads() {
        // Equal shapes share a key; a different load, size, capacity or edge does not.
        let shape = |load: f64, size: f64, edge: bool| {
            let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
            let mut b = JobBuilder::new();
            let t1 = b.transfer_bits(size, MachineId::new(0), MachineId::new(2));
            let t2 = b.transfer_bits(1.0, MachineId::new(1), MachineId::new(2));
            let c1 = b.compute_secs(load);
            let c2 = b.compute_secs(1.0);
            b.edge(t1, c1);
            b.edge(t2, c2);
            if edge {
                b.edge(c1, c2);
            }
            b.build(&cluster).unwrap()
        };
        let c1 = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let c2 = Cluster::uniform(3, BitsPerSec::new(2)).unwrap();
        let base = tictac_key(&shape(3.0, 1.0, true), &c1);
        assert_eq!(base, tictac_key(&shape(3.0, 1.0, true), &c1));
        assert_ne!(base, tictac_key(&shape(2.0, 1.0, true), &c1));
        assert_ne!(base, tictac_key(&shape(3.0, 2.0, true), &c1));
        assert_ne!(base, tictac_key(&shape(3.0, 1.0, false), &c1));
        assert_ne!(base, tictac_key(&shape(3.0, 1.0, true), &c2));
    }

    #[test]
    fn tictac_is_fifo_across_jobs_and_tac_inside() {
        // Two jobs of the Fig. 1 shape, T2 -> C2 <- C1 <- T1 with T2 added first (so it leads
        // the topological order), all into machine 2 at capacity 1; job B arrives at 0.5.
        // TAC sends T1 first (it unlocks C1's 3 s); FIFO serves all of A before any of B:
        // A: T1 0..1, T2 1..2, C1 1..4, C2 4..5; B: T1 2..3, T2 3..4, C1 3..6, C2 6..7.
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let shape = || {
            let mut b = JobBuilder::new();
            let t2 = b.transfer_bits(1.0, MachineId::new(1), MachineId::new(2));
            let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
            let c1 = b.compute_secs(3.0);
            let c2 = b.compute_secs(1.0);
            b.edge(t1, c1).edge(c1, c2).edge(t2, c2);
            b.build(&cluster).unwrap()
        };
        let jobs: Vec<SimJob> = [0.0, 0.5]
            .iter()
            .map(|&arrival| SimJob {
                arrival,
                job: shape(),
                kind: JobKind::Dag(Model::LeNet),
            })
            .collect();
        let r = run(&cluster, &jobs, Scheduler::TicTac);
        assert!((r.jobs[0].finish - 5.0).abs() < 1e-9, "{:?}", r.jobs[0]);
        assert!((r.jobs[1].finish - 7.0).abs() < 1e-9, "{:?}", r.jobs[1]);
        // The later job's wait: its T2 lands at 4, C2 starts at 6.
        assert!((r.jobs[1].mean_wait.unwrap() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn bad_parameters() {
        let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
        let cfg = SimConfig {
            sample_window: Nanos::ZERO,
            ..SimConfig::default()
        };
        assert!(matches!(
            simulate(&cluster, &[], &cfg),
            Err(Error::InvalidParameter {
                name: "sample_window",
                ..
            })
        ));
        let cfg = SimConfig {
            scheduler: Scheduler::Jit(JitConfig {
                alpha: 2.0,
                ..JitConfig::default()
            }),
            ..SimConfig::default()
        };
        assert!(matches!(
            simulate(&cluster, &[], &cfg),
            Err(Error::InvalidParameter { name: "alpha", .. })
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Every scheduler delivers every bit exactly and never exceeds a port's capacity.
        #[test]
        fn conserves_bytes_and_capacity(seed in 0u64..1000, files in 0usize..4, dags in 1usize..4) {
            let cluster = Cluster::uniform(6, BitsPerSec::from_gbps(1)).unwrap();
            let cfg = WorkloadConfig {
                dag_jobs: dags,
                file_jobs: files,
                models: vec![Model::LeNet, Model::AlexNet],
                mean_interarrival: 0.3,
                file_sizes: vec![Bytes::new(12_500_000), Bytes::new(37_500_000)],
                traffic: if seed % 2 == 0 { PsTraffic::Pulls } else { PsTraffic::PullsAndPushes },
                seed,
                ..WorkloadConfig::default()
            };
            let jobs = generate(&cluster, &cfg).unwrap();
            let total: f64 = jobs.iter().map(|j| j.job.total_bits()).sum();
            for s in all_schedulers() {
                let r = simulate(&cluster, &jobs, &SimConfig { scheduler: s, seed, sample_window: Nanos::from_millis(500) }).unwrap();
                prop_assert!(r.max_port_utilisation <= 1.0 + 1e-9, "{}: {}", s.name(), r.max_port_utilisation);
                prop_assert!(r.max_conservation_error < 1e-9, "{}: {}", s.name(), r.max_conservation_error);
                for (o, j) in r.jobs.iter().zip(&jobs) {
                    prop_assert!(o.finish.is_finite() && o.finish >= o.arrival);
                    // No job beats its own critical path on an empty cluster.
                    prop_assert!(o.jct() >= o.alone * (1.0 - 1e-9), "{} {:?}: {} < {}", s.name(), j.kind, o.jct(), o.alone);
                }
                // Makespan is at least the busiest port's bits over its capacity.
                let last = r.jobs.iter().map(|o| o.finish).fold(0.0, f64::max);
                prop_assert!(last * 1e9 * 6.0 >= total * (1.0 - 1e-9));
            }
        }
    }
}
