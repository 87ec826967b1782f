//! What a run reports: per-job outcomes, JIT's LP bookkeeping, the result, and the per-port
//! usage behind the remaining-bandwidth figures (recorded by the engine, `record`).

use std::collections::HashMap;
use std::fmt;

use fabric_model::Nanos;

use crate::job::TaskId;
use crate::lp::Schedule;
use crate::workload::JobKind;

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
            JobKind::CustomDag => f.write_str("dag")?,
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

/// When one transfer of a job arrived and when it was first used: the data waiting time of
/// the paper's Fig. 2 and Fig. 7 (every transfer of one Inception job, under TensorFlow and
/// under JIT). Reported per job in [`SimResult::transfer_times`] when the run was asked for
/// them ([`SimConfig::with_transfer_times`](super::SimConfig::with_transfer_times)).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TransferTimes {
    /// The transfer.
    pub task: TaskId,
    /// When its last bit arrived (s).
    pub arrived: f64,
    /// When its first consumer (a compute task) started (s); `None` when none consumes it.
    pub used: Option<f64>,
}

impl TransferTimes {
    /// Its data waiting time (s): from its arrival to the start of its first consumer
    /// (never negative); `None` when none consumes it.
    #[must_use]
    pub fn wait(&self) -> Option<f64> {
        self.used.map(|u| (u - self.arrived).max(0.0))
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
    /// Jobs left unplanned: still infeasible after `max_relax` widenings, or with a transfer
    /// whose window is empty in floating point (its time alone below the resolution of its
    /// release time).
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

/// The plan JIT ran for one job: the LP's schedule and, for each of its transfers (in the
/// LP's order), the job's transfer it is, so that a plan can be read by [`TaskId`].
#[derive(Debug, Clone, PartialEq)]
pub struct JobPlan {
    schedule: Schedule,
    transfers: Vec<TaskId>,
}

impl JobPlan {
    pub(super) fn new(schedule: Schedule, transfers: Vec<TaskId>) -> Self {
        Self {
            schedule,
            transfers,
        }
    }

    /// The LP's schedule (its transfers in [`JobPlan::transfers`] order; times absolute, as
    /// the run's, widened windows included).
    #[must_use]
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The job's transfers the LP planned, in the schedule's order.
    #[must_use]
    pub fn transfers(&self) -> &[TaskId] {
        &self.transfers
    }

    /// The position of `task` in the schedule, `None` when the LP did not plan it.
    ///
    /// # Complexity
    /// O(n) for the n planned transfers.
    #[must_use]
    pub fn position(&self, task: TaskId) -> Option<usize> {
        self.transfers.iter().position(|&t| t == task)
    }

    /// The planned rate of `task` (bits/s) at time `t` (s), `None` when the LP did not plan it.
    #[must_use]
    pub fn rate_at(&self, task: TaskId, t: f64) -> Option<f64> {
        self.position(task).map(|f| self.schedule.rate_at(f, t))
    }
}

/// The result of a run. Ratios are fractions; bits are `f64` bits.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SimResult {
    /// One outcome per input job, in input order.
    pub jobs: Vec<JobOutcome>,
    /// Remaining-bandwidth ratios (paper (18), Fig. 8: the bandwidth left "after the scheduler
    /// has allocated the DAG jobs' resources"), one definition for every scheduler: for every
    /// port and window in which DAG transfers moved bits, `1 − those bits / (capacity ×
    /// window)`, all of the DAG jobs' transfers counted (for JIT, the LP's and the rest);
    /// sorted ascending.
    pub remaining: Vec<f64>,
    /// JIT only: the same ratio over the LP's planned transfers alone (the rest of a job's
    /// transfers and the files use what is left, paper §3.4 1)), for the ports and windows in
    /// which they moved bits; sorted ascending. For the baselines, equal to `remaining`.
    pub remaining_planned: Vec<f64>,
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
    /// JIT only: the plan each job ran with, by input index (`None` for a job the LP did not
    /// plan: no DAG, no transfer selected, or still infeasible after the widenings); empty for
    /// the baselines, and for JIT over jobs without a DAG (nothing to plan).
    pub plans: Vec<Option<JobPlan>>,
    /// Largest relative difference between the bits a flow was credited and its size.
    pub max_conservation_error: f64,
    /// Number of events processed.
    pub events: usize,
    /// Per job, by input index, each of its transfers' arrival and first use, in the job's
    /// transfer order; empty unless the run was asked for them
    /// ([`SimConfig::with_transfer_times`](super::SimConfig::with_transfer_times)).
    pub transfer_times: Vec<Vec<TransferTimes>>,
}

impl SimResult {
    /// Job `j`'s transfer times (empty when the run was not asked for them, or `j` is not
    /// an input index).
    #[must_use]
    pub fn transfer_times(&self, j: usize) -> &[TransferTimes] {
        self.transfer_times.get(j).map_or(&[], Vec::as_slice)
    }

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
        let dag = self.jobs.iter().filter(|j| j.kind.is_dag()).count();
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

/// The windows one step `[t0, t1]` touches: window `k` is `[k·w, (k+1)·w)`, found as
/// `⌊t / w⌋` in `f64` (a window index, not a time, so its rounding cannot drop a piece of the
/// step: the pieces are the first window's part, the whole windows between, the last
/// window's part).
pub(super) struct Span {
    /// First and last window, as `f64` (exact integers up to 2^53).
    k0: f64,
    k1: f64,
    /// Time of the step in its first window, and in its last when that is another.
    head: f64,
    tail: f64,
    /// Window length (s).
    w: f64,
}

impl Span {
    pub(super) fn new(t0: f64, t1: f64, w: f64) -> Self {
        let (k0, k1) = ((t0 / w).floor(), (t1 / w).floor());
        if k0 >= k1 {
            return Self {
                k0,
                k1: k0,
                head: t1 - t0,
                tail: 0.0,
                w,
            };
        }
        Self {
            k0,
            k1,
            head: ((k0 + 1.0) * w - t0).max(0.0),
            tail: (t1 - k1 * w).max(0.0),
            w,
        }
    }
}

/// Bits per (resource, window) moved by DAG transfers: the windows a step covers in part one
/// entry each, the windows it covers whole one run per step (all with the same bits), so that
/// a step costs O(1) per resource however many windows it spans.
#[derive(Debug, Default)]
pub(super) struct Usage {
    /// (resource, window) → bits, for windows a step covers in part.
    pub(super) partial: HashMap<(usize, i64), f64>,
    /// (resource, first window) → (number of windows, bits in each), for windows a step covers
    /// whole (no other step touches them; two calls for one step add up).
    pub(super) full: HashMap<(usize, i64), (u64, f64)>,
}

impl Usage {
    /// Rate `r` on resource `p` over `span`.
    pub(super) fn add(&mut self, p: usize, r: f64, span: &Span) {
        let key = |k: f64| k.clamp(i64::MIN as f64, i64::MAX as f64) as i64;
        if span.head > 0.0 {
            *self.partial.entry((p, key(span.k0))).or_default() += r * span.head;
        }
        if span.k1 > span.k0 {
            let whole = span.k1 - span.k0 - 1.0;
            if whole >= 1.0 {
                let e = self
                    .full
                    .entry((p, key(span.k0 + 1.0)))
                    .or_insert((whole as u64, 0.0));
                e.1 += r * span.w;
            }
            if span.tail > 0.0 {
                *self.partial.entry((p, key(span.k1))).or_default() += r * span.tail;
            }
        }
    }

    /// Number of (resource, window) samples.
    pub(super) fn samples(&self) -> u64 {
        self.full
            .values()
            .fold(self.partial.len() as u64, |n, &(k, _)| n.saturating_add(k))
    }
}
