//! The simulator's entry points: the configuration checked, the scheduler's rate policy chosen
//! ([`for_scheduler`]), and the engine run with it.

use super::config::{MAX_ARRIVAL_SECS, Scheduler, SimConfig};
use super::engine::{RatePolicy, run};
use super::metrics::SimResult;
use super::policy::{Policy, UserPolicy};
use super::{coflow_fifo, jit, scaled, sincronia, tensorflow, tictac, varys, varys_coflowsim};
use crate::Error;
use crate::cluster::Cluster;
use crate::lp;
use crate::workload::SimJob;
use fabric_model::Nanos;

/// Runs `jobs` (each validated against `cluster`) under `cfg` until every job finishes.
///
/// # Errors
/// [`Error::InvalidParameter`] for a bad window, slot, α, level count
/// ([`lp::MAX_LEVELS`]) or `max_relax` ([`lp::MAX_WIDENINGS`]), for an arrival outside
/// [`[0, MAX_ARRIVAL_SECS]`](super::MAX_ARRIVAL_SECS), and (naming `sample_window`) when the DAG
/// traffic spans more than [`MAX_SAMPLES`](super::MAX_SAMPLES) resource-windows; LP errors
/// other than infeasibility (infeasible plans are widened, then dropped); [`Error::Stalled`]
/// if no flow can progress (a bug guard).
///
/// # Complexity
/// Per event, for F active flows of h resources, M machines, J jobs and F′ flows with a
/// rate: O(Σ_c P_c + X · h + G + M) under Sincronia and Varys (the served coflows'
/// resources P_c, X greedy recipients and G flows read by the greedy pass; O(F · h +
/// J log J) more, BSSI's or SEBF's order of the J coflows, when one arrives or completes);
/// O(F log F + M) under JIT (the TensorFlow order's without a
/// DAG job and with [`RestPolicy::Background`](super::RestPolicy::Background); without a DAG
/// job and with [`RestPolicy::LatPriority`](super::RestPolicy::LatPriority), FIFO + TicTac's
/// below plus O(J log J + R · (h + log F)) for J jobs with flows and R channel heads of the
/// jobs whose rank moved); O(K · h +
/// Σ_k L_k + F′) under the TensorFlow order (K routes with channel heads, L_k resources with
/// unfrozen flows at filling round k); and
/// O(L + (M + C + E) · (h + log F) + F′) under FIFO + TicTac (the last walk's M movers, at
/// most L resources, repaired from C changed class heads and E heads watching a resource
/// that reopened; see its priority classes). Plus
/// one LP per DAG job under JIT and one TAC ordering per job with compute under TicTac.
pub fn simulate(cluster: &Cluster, jobs: &[SimJob], cfg: &SimConfig) -> Result<SimResult, Error> {
    validate(cfg, jobs)?;
    let policy = for_scheduler(cfg.scheduler, jobs.len());
    // The policy's faster equivalent for these jobs, where it has one.
    let policy = policy.driver(jobs).unwrap_or(policy);
    run(cluster, jobs, cfg, policy, false)
}

/// Runs `jobs` under `cfg` with a user's rate policy instead of `cfg.scheduler`'s (which
/// still names the run; JIT's LP is not run): see [`Policy`](super::Policy).
///
/// # Errors
/// As [`simulate`]; [`Error::Stalled`] when the policy gives no flow a rate while flows wait
/// and no other event is due.
///
/// # Complexity
/// O(E · (F + M)) time for E events, F active flows and M machines, plus the policy's.
pub fn simulate_with(
    cluster: &Cluster,
    jobs: &[SimJob],
    cfg: &SimConfig,
    policy: Box<dyn Policy>,
) -> Result<SimResult, Error> {
    validate(cfg, jobs)?;
    run(cluster, jobs, cfg, Box::new(UserPolicy(policy)), false)
}

/// The checks of `cfg` and of the jobs' arrivals that [`simulate`] makes before it runs.
fn validate(cfg: &SimConfig, jobs: &[SimJob]) -> Result<(), Error> {
    for sj in jobs {
        if !(0.0..=MAX_ARRIVAL_SECS).contains(&sj.arrival) {
            return Err(Error::InvalidParameter {
                name: "arrival",
                value: sj.arrival,
                reason: "must lie in [0, MAX_ARRIVAL_SECS] (2^30 s)",
            });
        }
    }
    if cfg.sample_window == Nanos::ZERO {
        return Err(Error::InvalidParameter {
            name: "sample_window",
            value: 0.0,
            reason: "must be positive and finite",
        });
    }
    if let Scheduler::Jit(j) = cfg.scheduler {
        lp::alpha_prefix(0, j.alpha)?;
        lp::check_objective(j.objective)?;
        lp::check_widenings("max_relax", j.max_relax)?;
        if j.slot == Nanos::ZERO {
            return Err(Error::InvalidParameter {
                name: "slot",
                value: 0.0,
                reason: "must be positive and finite",
            });
        }
    }
    Ok(())
}

/// The policy of `scheduler` for a run over `jobs` jobs.
pub(super) fn for_scheduler(scheduler: Scheduler, jobs: usize) -> Box<dyn RatePolicy> {
    match scheduler {
        Scheduler::TensorFlow => Box::new(tensorflow::TensorFlow::default()),
        Scheduler::TicTac => Box::new(tictac::TicTac::default()),
        Scheduler::TicTacFilesLast => Box::new(tictac::TicTac::files_last()),
        Scheduler::Sincronia => Box::new(scaled::Scaled::new(jobs, sincronia::order)),
        Scheduler::Varys => Box::new(scaled::Scaled::new(jobs, varys::order)),
        Scheduler::CoflowFifo => Box::new(scaled::Scaled::new(jobs, coflow_fifo::order)),
        Scheduler::VarysCoflowsim => Box::new(varys_coflowsim::VarysCoflowsim::new(jobs)),
        Scheduler::Jit(cfg) => Box::new(jit::Jit::new(cfg)),
    }
}

/// [`simulate`] with the old recompute-everything step for incremental policies (every
/// moving flow's bits and finish time updated at every event), the policy run as given: the
/// oracle of the lazy step.
#[cfg(test)]
pub(super) fn run_reference(
    cluster: &Cluster,
    jobs: &[SimJob],
    cfg: &SimConfig,
) -> Result<SimResult, Error> {
    validate(cfg, jobs)?;
    run(
        cluster,
        jobs,
        cfg,
        for_scheduler(cfg.scheduler, jobs.len()),
        true,
    )
}
