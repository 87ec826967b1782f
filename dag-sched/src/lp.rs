//! The time-indexed LP of JIT (paper §3, model P1) and its lexicographic refinements, built with
//! `good_lp`.
//!
//! Time is cut into slots of length `τ`; slot `k` covers `[kτ, (k+1)τ)`. A transfer `f` may send
//! at a rate `x_{f,k}` in the slots of its window `[release, deadline]` and at rate 0 outside it
//! (constraint (7)); it must send its whole size there (6); at every machine port and slot the
//! rates of the transfers plus what earlier schedules reserved stay within the port's capacity
//! ((4), (5)). The objective is one of [`Objective`]:
//!
//! - [`Objective::MinMax`]: P1's (3), minimise the largest port load `U` over all port-slots;
//! - [`Objective::LexLevels`]: the exactly equivalent, numerically sound form of the
//!   lexicographic problem P2/P3 (the levels method of Ogryczak and Śliwiński, "On direct
//!   methods for lexicographic min-max optimization", ICCSA 2006): after `U*`, minimise the excess
//!   `E_j = Σ_u max(0, L_u − θ_j)` above each threshold `θ_j = U*·(J−j)/J`, top level first,
//!   with only 0/±1 coefficients (one LP per level);
//! - [`Objective::Flutter`]: the literal `g(δ) = Σ_u |δ|^{δ_u}` of formula (9) linearised by the
//!   λ-representation of P4 ((12)–(16)), only where its largest coefficient `|δ|^J` is at most
//!   [`FLUTTER_COEFFICIENT_LIMIT`]; refused with [`Error::ObjectiveNotRepresentable`] otherwise.
//!
//! Loads are normalised by the largest port capacity so that every coefficient is 0, ±1, a
//! size in capacity-slots, or (Flutter only) a power of `|δ|`.

use std::collections::BTreeMap;

use good_lp::{
    Expression, ProblemVariables, ResolutionError, Solution, Solver, SolverModel, Variable,
    variable,
};

use fabric_model::Nanos;

use crate::Error;
use crate::cluster::{Cluster, MachineId};
use crate::job::{Job, NodeKind, TaskId};
use crate::lat;

/// Largest objective coefficient accepted for the literal λ-representation: solvers advise
/// keeping the ratio of the largest to the smallest coefficient below 10⁹ (Gurobi's numerical
/// guidelines), and the smallest here is 1.
pub const FLUTTER_COEFFICIENT_LIMIT: f64 = 1e9;

/// The most levels an [`Objective`] may have: each [`Objective::LexLevels`] level is one more
/// LP (with one more threshold row per port-slot), each [`Objective::Flutter`] level one more
/// λ variable per port-slot. JIT uses 3; a number of levels above this is refused with
/// [`Error::InvalidParameter`] before anything is allocated.
pub const MAX_LEVELS: u32 = 64;

/// The most window doublings [`solve_relaxed`] (and JIT's `max_relax`) may ask for: each one
/// doubles every window, so about doubles the LP's variables (up to
/// [`MAX_LP_VARIABLES`]), and costs one more solve.
pub const MAX_WIDENINGS: u32 = 16;

/// How much larger than the LP as given [`solve_relaxed`] lets a widened LP grow (in rate
/// variables, one per transfer-slot): each doubling of the windows about doubles it, so 32
/// allows about five doublings of windows of several slots (JIT's default of four stays
/// within it). Widening stops there, as if the LP stayed infeasible.
pub const MAX_RELAXED_GROWTH: usize = 32;

/// Checks an objective's level count against `1..=MAX_LEVELS`.
pub(crate) fn check_objective(objective: Objective) -> Result<(), Error> {
    let levels = match objective {
        Objective::MinMax => return Ok(()),
        Objective::LexLevels { levels } | Objective::Flutter { levels } => levels,
    };
    if (1..=MAX_LEVELS).contains(&levels) {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name: "levels",
            value: f64::from(levels),
            reason: "must lie in 1..=MAX_LEVELS (64)",
        })
    }
}

/// Checks a number of window doublings against `MAX_WIDENINGS`.
pub(crate) fn check_widenings(name: &'static str, widenings: u32) -> Result<(), Error> {
    if widenings <= MAX_WIDENINGS {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value: f64::from(widenings),
            reason: "must be at most MAX_WIDENINGS (16)",
        })
    }
}

/// A transfer handed to the LP. Sizes and times are `f64` bits and seconds: a transfer's
/// window comes from its LAT, which is rarely a whole number of nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct LpTransfer {
    /// Sender.
    pub src: MachineId,
    /// Receiver.
    pub dst: MachineId,
    /// Size in bits.
    pub size: f64,
    /// Earliest time it may send (s, absolute).
    pub release: f64,
    /// Time by which it must have arrived: its LAT (s, absolute).
    pub deadline: f64,
    /// The job's transfer it is, when it came from a job ([`job_transfers`] sets it), so that
    /// the [`Schedule`] can be read by task ([`Schedule::position`]).
    pub task: Option<TaskId>,
}

impl LpTransfer {
    /// A transfer of `size` bits from `src` to `dst` that may send from `release` and must
    /// have arrived by `deadline` (both absolute, in seconds), of no job's task.
    #[must_use]
    pub fn new(src: MachineId, dst: MachineId, size: f64, release: f64, deadline: f64) -> Self {
        Self {
            src,
            dst,
            size,
            release,
            deadline,
            task: None,
        }
    }

    /// This transfer, marked as the job's transfer `task`.
    #[must_use]
    pub fn for_task(self, task: TaskId) -> Self {
        Self {
            task: Some(task),
            ..self
        }
    }

    /// This transfer with its window `deadline − release` stretched `factor` times from its
    /// release (the deadline relaxation of [`solve_relaxed`]; `factor ≥ 1`).
    #[must_use]
    pub fn widened(self, factor: f64) -> Self {
        Self {
            deadline: self.release + (self.deadline - self.release) * factor,
            ..self
        }
    }
}

/// Rates already promised on resource-slots by earlier schedules (bits/s), the background of
/// a new LP.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reservations {
    map: BTreeMap<(u32, i64), f64>,
}

impl Reservations {
    /// No reservation.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The rate reserved on resource `resource` in slot `slot`.
    pub(crate) fn get(&self, resource: u32, slot: i64) -> f64 {
        self.map.get(&(resource, slot)).copied().unwrap_or(0.0)
    }

    /// Reserves every rate of `schedule` for `transfers` (the ones it was solved for) on every
    /// resource of their routes in `cluster`.
    pub fn add_schedule(
        &mut self,
        cluster: &Cluster,
        transfers: &[LpTransfer],
        schedule: &Schedule,
    ) {
        let mut path = Vec::new();
        for (f, t) in transfers.iter().enumerate() {
            path.clear();
            cluster.route(t.src.index(), t.dst.index(), &mut path);
            for (k, r) in schedule.rates(f) {
                if r > 0.0 {
                    for &p in &path {
                        *self.map.entry((p, k)).or_insert(0.0) += r;
                    }
                }
            }
        }
    }

    /// Drops every slot before `slot` (they are in the past).
    pub fn forget_before(&mut self, slot: i64) {
        self.map.retain(|&(_, k), _| k >= slot);
    }
}

/// What the LP minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Objective {
    /// P1's objective (3): the maximum port load over all port-slots.
    MinMax,
    /// Lexicographic refinement in levels form: `U*`, then the
    /// excess above `J − 1` thresholds, one LP each. `levels = 1` is [`Objective::MinMax`].
    LexLevels {
        /// Number of levels `J` (1 to [`MAX_LEVELS`]).
        levels: u32,
    },
    /// The paper's literal objective (9) by the λ-representation (P4), with the capacity cut
    /// into `levels` integer levels; refused when `|δ|^levels` exceeds
    /// [`FLUTTER_COEFFICIENT_LIMIT`].
    Flutter {
        /// Number of capacity levels (1 to [`MAX_LEVELS`]).
        levels: u32,
    },
}

/// Which `good_lp` backend solves the LP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Backend {
    /// `microlp`: pure Rust simplex, always built.
    #[default]
    Microlp,
    /// HiGHS (C++). Solving with it needs the `highs` cargo feature; without it [`solve`]
    /// returns [`Error::BackendUnavailable`].
    Highs,
}

impl Backend {
    /// Every backend built into this binary ([`Backend::Microlp`], and [`Backend::Highs`]
    /// with the `highs` feature).
    #[must_use]
    pub fn all() -> Vec<Self> {
        [Self::Microlp, Self::Highs]
            .into_iter()
            .filter(|b| b.is_available())
            .collect()
    }

    /// Whether this backend is built in.
    #[must_use]
    pub const fn is_available(self) -> bool {
        match self {
            Self::Microlp => true,
            Self::Highs => cfg!(feature = "highs"),
        }
    }

    /// Short name (`microlp`, `highs`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Microlp => "microlp",
            Self::Highs => "highs",
        }
    }
}

/// The LP's answer: per transfer, a rate (bits/s) in each slot of its window.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Schedule {
    slot: f64,
    /// The slot length in nanoseconds (≥ 1).
    slot_ns: i128,
    first: Vec<i64>,
    rates: Vec<Vec<f64>>,
    /// Per transfer, its window `[release, deadline)` in nanoseconds (rounded to the nearest).
    windows: Vec<(i128, i128)>,
    /// Per transfer, the job's task it is ([`LpTransfer::task`]).
    tasks: Vec<Option<TaskId>>,
    /// The largest port load of the final solution as a fraction of the largest capacity,
    /// reservations included.
    pub peak: f64,
    /// The stage-0 optimum `U*` (fraction of the largest capacity).
    pub min_max: f64,
    /// Excess above each threshold `θ_1 > θ_2 > …` ([`Objective::LexLevels`] only; capacity-slots).
    pub excess: Vec<f64>,
    /// The final LP's objective value.
    pub objective: f64,
    /// Variables of the largest LP solved.
    pub variables: usize,
    /// Constraints of the largest LP solved.
    pub constraints: usize,
    /// Number of LPs solved.
    pub solves: usize,
}

impl Schedule {
    /// Slot length (s).
    #[must_use]
    pub fn slot(&self) -> f64 {
        self.slot
    }

    /// Number of transfers scheduled.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rates.len()
    }

    /// The job's task that transfer `f` (its position in the LP's input) is, when the input
    /// said ([`LpTransfer::task`], set by [`job_transfers`]).
    #[must_use]
    pub fn task(&self, f: usize) -> Option<TaskId> {
        self.tasks.get(f).copied().flatten()
    }

    /// The position of `task` among the scheduled transfers, to read its rates with
    /// [`Schedule::rates`] and the other methods taking a position; `None` when no transfer
    /// of the input was marked as `task`. Task ids are a job's own: in one LP over several
    /// jobs' transfers (a JSON instance's, from `instance::Instance::lp_transfers`), each id
    /// may stand once per job and this finds the first; read each job's range of positions
    /// with [`Schedule::task`] instead. O(F) for F transfers.
    #[must_use]
    pub fn position(&self, task: TaskId) -> Option<usize> {
        self.tasks.iter().position(|&t| t == Some(task))
    }

    /// Whether no transfer was scheduled.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rates.is_empty()
    }

    /// `(absolute slot index, rate in bits/s)` of transfer `f` over its window.
    pub fn rates(&self, f: usize) -> impl Iterator<Item = (i64, f64)> + '_ {
        let first = self.first.get(f).copied().unwrap_or(0);
        self.rates
            .get(f)
            .into_iter()
            .flatten()
            .enumerate()
            .map(move |(k, &r)| (first + k as i64, r))
    }

    /// The rate of transfer `f` in absolute slot `slot` (0 outside its window).
    #[must_use]
    pub fn rate(&self, f: usize, slot: i64) -> f64 {
        let (Some(&first), Some(r)) = (self.first.get(f), self.rates.get(f)) else {
            return 0.0;
        };
        usize::try_from(slot - first)
            .ok()
            .and_then(|k| r.get(k))
            .copied()
            .unwrap_or(0.0)
    }

    /// The last slot of transfer `f`'s window.
    #[must_use]
    pub fn last_slot(&self, f: usize) -> Option<i64> {
        Some(self.first.get(f)? + self.rates.get(f)?.len() as i64 - 1)
    }

    /// Transfer `f`'s window `(release, deadline)` in seconds, as the LP kept it (to the
    /// nearest nanosecond): the plan sends nothing outside it.
    #[must_use]
    pub fn window_secs(&self, f: usize) -> Option<(f64, f64)> {
        let &(r, d) = self.windows.get(f)?;
        Some((r as f64 * 1e-9, d as f64 * 1e-9))
    }

    /// The part of slot `slot` inside transfer `f`'s window, in nanoseconds.
    fn overlap_ns(&self, f: usize, slot: i64) -> i128 {
        let Some(&(r, d)) = self.windows.get(f) else {
            return 0;
        };
        let a = i128::from(slot) * self.slot_ns;
        (d.min(a + self.slot_ns) - r.max(a)).max(0)
    }

    /// The planned rate (bits/s) of transfer `f` at time `t` (seconds, taken to the nearest
    /// nanosecond): in slot `k`, the slot's bits (`rate(f, k)·τ`) sent evenly over the part of
    /// the slot inside the window, so a plan starts at its release and ends by its deadline
    /// exactly; 0 outside the window.
    #[must_use]
    pub fn rate_at(&self, f: usize, t: f64) -> f64 {
        let Some(&(r, d)) = self.windows.get(f) else {
            return 0.0;
        };
        let t = ns(t);
        if t < r || t >= d {
            return 0.0;
        }
        let k = t.div_euclid(self.slot_ns);
        let k = k.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        let o = self.overlap_ns(f, k);
        if o <= 0 {
            return 0.0;
        }
        self.rate(f, k) * self.slot_ns as f64 / o as f64
    }

    /// Bits transfer `f`'s plan has sent by time `t` (seconds, to the nearest nanosecond): the
    /// integral of [`Schedule::rate_at`] from the window's start; its size from the deadline on.
    ///
    /// # Complexity
    /// O(slots of the window before `t`).
    #[must_use]
    pub fn planned_bits(&self, f: usize, t: f64) -> f64 {
        let t = ns(t);
        let tau = self.slot_ns as f64 * 1e-9;
        let mut bits = 0.0;
        for (k, r) in self.rates(f) {
            let a = i128::from(k) * self.slot_ns;
            if t >= a + self.slot_ns {
                bits += r * tau;
            } else {
                let Some(&(rel, d)) = self.windows.get(f) else {
                    break;
                };
                let part = (t.min(d) - rel.max(a)).max(0);
                let o = self.overlap_ns(f, k);
                if o > 0 {
                    bits += r * tau * part as f64 / o as f64;
                }
                break;
            }
        }
        bits
    }

    /// The first time after `t` (seconds) at which [`Schedule::rate_at`] of transfer `f` may
    /// change: its window's start or end or the next slot boundary inside the window;
    /// `f64::INFINITY` once the window is over. Always later than `t`.
    #[must_use]
    pub fn next_change(&self, f: usize, t: f64) -> f64 {
        let Some(&(r, d)) = self.windows.get(f) else {
            return f64::INFINITY;
        };
        let tn = ns(t);
        let next = if tn < r {
            r
        } else if tn >= d {
            return f64::INFINITY;
        } else {
            ((tn.div_euclid(self.slot_ns) + 1) * self.slot_ns).min(d)
        };
        (next as f64 * 1e-9).max(t + f64::EPSILON * t.abs().max(1.0))
    }
}

/// `secs` to the nearest nanosecond (saturating; NaN gives 0).
fn ns(secs: f64) -> i128 {
    (secs * 1e9).round() as i128
}

/// The most slots one transfer's window may span in the LP: a bound on what a bad slot length
/// or deadline can ask for (70 VGG16 jobs at 100 ms slots need a few dozen per transfer).
pub const MAX_SLOTS_PER_TRANSFER: i64 = 100_000;

/// The most rate variables the LP may have (70 VGG16 jobs need 12,461).
pub const MAX_LP_VARIABLES: usize = 2_000_000;

/// The slots `[first, last]` a transfer's window touches for slot length `slot` (s).
///
/// `first = ⌊release/τ⌋`, `last = max(first, ⌈deadline/τ⌉ − 1)`, computed exactly in integer
/// nanoseconds (the shared model's time unit, [`Nanos`]): the times and the slot are first
/// rounded to the nearest nanosecond, so a transfer released at 0.3 s with 0.1 s slots starts in
/// slot 3 (in `f64`, `0.3 / 0.1` is 2.999…96 and its floor would start it a slot early).
///
/// The first and last slots may be cut by the window: the LP lets a transfer send in slot `k`
/// at most what its route's capacity carries in the part of the slot inside its window
/// (`x_{f,k}·τ ≤ C_f·|[kτ, (k+1)τ) ∩ [release, deadline)|`), and [`Schedule::rate_at`] sends it
/// there, so a plan starts at its release and ends by its deadline (its LAT) exactly.
#[must_use]
pub fn window(t: &LpTransfer, slot: f64) -> (i64, i64) {
    let tau = ns(slot).max(1);
    let first = ns(t.release).div_euclid(tau);
    let last = (-(-ns(t.deadline)).div_euclid(tau) - 1).max(first);
    let clamp = |k: i128| k.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    (clamp(first), clamp(last))
}

struct Built {
    vars: ProblemVariables,
    x: Vec<Vec<Variable>>,
    first: Vec<i64>,
    windows: Vec<(i128, i128)>,
    /// port-slot → (variables on it, reserved fraction, capacity fraction)
    ports: Vec<(Vec<Variable>, f64, f64)>,
    rows: usize,
}

fn build(
    cluster: &Cluster,
    transfers: &[LpTransfer],
    reserved: &Reservations,
    slot: f64,
    c_ref: f64,
) -> Result<Built, Error> {
    let mut vars = ProblemVariables::new();
    let mut x = Vec::with_capacity(transfers.len());
    let mut first = Vec::with_capacity(transfers.len());
    // Keyed by (the resource's LP order, slot): machine ports in (machine, egress, ingress)
    // order, then the other links of a fabric.
    let mut ports: BTreeMap<(u64, i64), (u32, Vec<Variable>)> = BTreeMap::new();
    let mut path: Vec<u32> = Vec::new();
    let mut total_vars = 0usize;
    let mut windows = Vec::with_capacity(transfers.len());
    for (index, t) in transfers.iter().enumerate() {
        if !(t.release.is_finite() && t.deadline.is_finite())
            || t.deadline < t.release
            || (t.deadline <= t.release && t.size > 0.0)
        {
            return Err(Error::EmptyWindow {
                index,
                release: t.release,
                deadline: t.deadline,
            });
        }
        if !(t.size.is_finite() && t.size >= 0.0) {
            return Err(Error::InvalidParameter {
                name: "transfer size",
                value: t.size,
                reason: "must be finite and non-negative",
            });
        }
        for m in [t.src, t.dst] {
            if cluster.machine(m).is_none() {
                return Err(Error::InvalidParameter {
                    name: "transfer machine",
                    value: f64::from(m.get()),
                    reason: "not a machine of the cluster",
                });
            }
        }
        let (a, b) = window(t, slot);
        let n = b
            .checked_sub(a)
            .and_then(|d| d.checked_add(1))
            .filter(|&n| (1..=MAX_SLOTS_PER_TRANSFER).contains(&n))
            .ok_or(Error::InvalidParameter {
                name: "slot",
                value: slot,
                reason: "gives a transfer a window of more than MAX_SLOTS_PER_TRANSFER slots",
            })? as usize;
        total_vars += n;
        if total_vars > MAX_LP_VARIABLES {
            return Err(Error::InvalidParameter {
                name: "slot",
                value: slot,
                reason: "gives the LP more than MAX_LP_VARIABLES rate variables",
            });
        }
        // Each slot's share of the window bounds the rate: a cut slot carries at most what
        // the route carries in the part of it inside the window.
        let (r_ns, d_ns) = (ns(t.release), ns(t.deadline));
        let tau = ns(slot).max(1);
        let c_f = cluster.path_capacity(t.src, t.dst) / c_ref;
        let xs: Vec<Variable> = (0..n)
            .map(|k| {
                let s0 = i128::from(a + k as i64) * tau;
                let o = (d_ns.min(s0 + tau) - r_ns.max(s0)).max(0);
                // One nanosecond of slack in a cut slot absorbs the rounding of the window's
                // ends to whole nanoseconds (a window exactly as long as the transfer's time
                // at line rate stays feasible).
                let frac = if o < tau { (o + 1) as f64 } else { o as f64 } / tau as f64;
                vars.add(variable().min(0.0).max(c_f * frac))
            })
            .collect();
        windows.push((r_ns, d_ns));
        path.clear();
        cluster.route(t.src.index(), t.dst.index(), &mut path);
        for (k, &v) in xs.iter().enumerate() {
            let s = a + k as i64;
            for &r in &path {
                ports
                    .entry((cluster.lp_key(r), s))
                    .or_insert_with(|| (r, Vec::new()))
                    .1
                    .push(v);
            }
        }
        x.push(xs);
        first.push(a);
    }
    let ports = ports
        .into_iter()
        .map(|((_, s), (r, v))| {
            let cap = cluster.capacities()[r as usize];
            (v, reserved.get(r, s) / c_ref, cap / c_ref)
        })
        .collect::<Vec<_>>();
    let rows = transfers.len() + 2 * ports.len();
    Ok(Built {
        vars,
        x,
        first,
        windows,
        ports,
        rows,
    })
}

fn map_err(e: ResolutionError, transfers: usize) -> Error {
    match e {
        ResolutionError::Infeasible => Error::Infeasible { transfers },
        other => Error::Solver(other.to_string()),
    }
}

fn load_expr(vs: &[Variable], reserved: f64) -> Expression {
    let mut e = Expression::with_capacity(vs.len());
    for &v in vs {
        e.add_mul(1.0, v);
    }
    e + reserved
}

/// Which extra rows a stage carries.
enum Stage<'a> {
    /// min U.
    MinMax,
    /// min E_j with L ≤ U* and earlier excesses fixed.
    Level {
        u_star: f64,
        thresholds: &'a [f64],
        fixed: &'a [f64],
    },
    /// min Σ n^k λ_{u,k}.
    Flutter { levels: u32 },
}

struct StageResult {
    rates: Vec<Vec<f64>>,
    loads: Vec<f64>,
    objective: f64,
    variables: usize,
    constraints: usize,
}

fn solve_stage<S>(
    solver: S,
    cluster: &Cluster,
    transfers: &[LpTransfer],
    reserved: &Reservations,
    slot: f64,
    c_ref: f64,
    stage: &Stage<'_>,
) -> Result<StageResult, Error>
where
    S: Solver,
    S::Model: SolverModel<Error = ResolutionError>,
{
    let Built {
        mut vars,
        x,
        first: _,
        windows: _,
        ports,
        mut rows,
    } = build(cluster, transfers, reserved, slot, c_ref)?;
    let mut constraints = Vec::with_capacity(rows + 8);
    // (6), (7): the whole size inside the window; variables exist only there.
    for (t, xs) in transfers.iter().zip(&x) {
        let mut e = Expression::with_capacity(xs.len());
        for &v in xs {
            e.add_mul(1.0, v);
        }
        constraints.push(e.eq(t.size / (c_ref * slot)));
    }
    // (4), (5): capacity.
    for (vs, r, cap) in &ports {
        constraints.push(load_expr(vs, *r).leq(*cap));
    }
    let objective: Expression = match stage {
        Stage::MinMax => {
            let u = vars.add(variable().min(0.0));
            for (vs, r, _) in &ports {
                constraints.push(load_expr(vs, *r).leq(u));
            }
            u.into()
        }
        Stage::Level {
            u_star,
            thresholds,
            fixed,
        } => {
            let tol = 1e-7;
            for (vs, r, _) in &ports {
                constraints.push(load_expr(vs, *r).leq(u_star * (1.0 + 1e-9) + tol));
            }
            let mut excess = Vec::with_capacity(thresholds.len());
            for &theta in thresholds.iter() {
                let mut sum = Expression::with_capacity(ports.len());
                for (vs, r, _) in &ports {
                    let e = vars.add(variable().min(0.0));
                    constraints.push((load_expr(vs, *r) - e).leq(theta));
                    sum.add_mul(1.0, e);
                    rows += 1;
                }
                excess.push(sum);
            }
            let last = excess.len() - 1;
            for (j, e) in excess.iter().take(fixed.len()).enumerate() {
                debug_assert!(j < last);
                constraints.push(e.clone().leq(fixed[j] * (1.0 + 1e-9) + tol));
                rows += 1;
            }
            excess.swap_remove(last)
        }
        Stage::Flutter { levels } => {
            let n = ports.len();
            let base = n as f64;
            let mut obj = Expression::with_capacity(n * (*levels as usize + 1));
            for (vs, r, _) in &ports {
                let lam = vars.add_vector(variable().min(0.0), *levels as usize + 1);
                // (13): Σ λ = 1; (12): δ_u = Σ k λ_k, with the load in units of C/levels.
                let mut one = Expression::with_capacity(lam.len());
                let mut delta = Expression::with_capacity(lam.len());
                for (k, &l) in lam.iter().enumerate() {
                    one.add_mul(1.0, l);
                    delta.add_mul(k as f64 / f64::from(*levels), l);
                    obj.add_mul(base.powi(k as i32), l);
                }
                constraints.push(one.eq(1.0));
                constraints.push((load_expr(vs, *r) - delta).eq(0.0));
                rows += 2;
            }
            obj
        }
    };
    rows += match stage {
        Stage::MinMax => ports.len(),
        _ => ports.len(),
    };
    let variables = vars.len();
    let mut model = vars.minimise(objective.clone()).using(solver);
    for c in constraints {
        model.add_constraint(c);
    }
    let sol = model.solve().map_err(|e| map_err(e, transfers.len()))?;
    let rates: Vec<Vec<f64>> = x
        .iter()
        .map(|xs| xs.iter().map(|&v| sol.value(v).max(0.0)).collect())
        .collect();
    let loads = ports
        .iter()
        .map(|(vs, r, _)| vs.iter().map(|&v| sol.value(v).max(0.0)).sum::<f64>() + r)
        .collect();
    Ok(StageResult {
        rates,
        loads,
        objective: sol.eval(&objective),
        variables,
        constraints: rows,
    })
}

/// Solves the LP for `transfers` over `cluster`, above what `reserved` already holds, with
/// slot length `slot`.
///
/// P1 (paper §3.1): with `x_{f,k}` transfer `f`'s rate in slot `k` and `τ` the slot length,
/// minimise `U` subject to `Σ_k x_{f,k}·τ = S_f` (6), `x_{f,k} = 0` outside `f`'s window
/// (7), and, for every resource `u` (on the big switch a machine's egress (4) or ingress (5))
/// and slot `k`, `reserved + Σ_{f crosses u} x_{f,k} ≤ C_u` and `≤ U` (3).
///
/// # Errors
/// [`Error::InvalidParameter`] for a bad slot length or level count, [`Error::EmptyWindow`] for
/// a transfer with an empty window, [`Error::ObjectiveNotRepresentable`] for a literal objective
/// beyond floating point, [`Error::Infeasible`] when the deadlines cannot be met, and
/// [`Error::Solver`] for anything else the solver reports.
///
/// # Complexity
/// One LP of `V = Σ_f |window_f|` variables and `F + 2P` rows (P = port-slots touched) for
/// [`Objective::MinMax`]; `J` LPs of up to `V + (J−1)P` variables for [`Objective::LexLevels`];
/// one LP of `V + (J+1)P` variables for [`Objective::Flutter`]. Simplex time is polynomial in
/// practice (exponential in the worst case).
pub fn solve(
    cluster: &Cluster,
    transfers: &[LpTransfer],
    reserved: &Reservations,
    slot: Nanos,
    objective: Objective,
    backend: Backend,
) -> Result<Schedule, Error> {
    solve_secs(
        cluster,
        transfers,
        reserved,
        slot.as_secs_f64(),
        objective,
        backend,
    )
}

/// [`solve`] with the slot length in seconds (a JSON instance's slot need not be a whole
/// number of nanoseconds).
pub(crate) fn solve_secs(
    cluster: &Cluster,
    transfers: &[LpTransfer],
    reserved: &Reservations,
    slot: f64,
    objective: Objective,
    backend: Backend,
) -> Result<Schedule, Error> {
    match backend {
        Backend::Microlp => solve_with(
            good_lp::microlp,
            cluster,
            transfers,
            reserved,
            slot,
            objective,
        ),
        #[cfg(feature = "highs")]
        Backend::Highs => solve_with(
            good_lp::highs,
            cluster,
            transfers,
            reserved,
            slot,
            objective,
        ),
        #[cfg(not(feature = "highs"))]
        Backend::Highs => Err(Error::BackendUnavailable {
            backend: "highs",
            feature: "highs",
        }),
    }
}

fn solve_with<S>(
    solver: S,
    cluster: &Cluster,
    transfers: &[LpTransfer],
    reserved: &Reservations,
    slot: f64,
    objective: Objective,
) -> Result<Schedule, Error>
where
    S: Solver + Copy,
    S::Model: SolverModel<Error = ResolutionError>,
{
    if !(slot.is_finite() && slot > 0.0) {
        return Err(Error::InvalidParameter {
            name: "slot",
            value: slot,
            reason: "must be positive and finite",
        });
    }
    let c_ref = cluster.capacities().iter().copied().fold(0.0, f64::max);
    if c_ref <= 0.0 {
        return Err(Error::InvalidParameter {
            name: "cluster size",
            value: 0.0,
            reason: "the cluster has no machine",
        });
    }
    check_objective(objective)?;
    // Validate windows once and learn the port-slot count for the Flutter guard.
    let built = build(cluster, transfers, reserved, slot, c_ref)?;
    let first = built.first.clone();
    let windows = built.windows.clone();
    let tasks: Vec<Option<TaskId>> = transfers.iter().map(|t| t.task).collect();
    let n_ports = built.ports.len();
    let finish = |res: StageResult,
                  min_max: f64,
                  excess: Vec<f64>,
                  solves: usize,
                  vars: usize,
                  rows: usize| {
        let peak = res.loads.iter().copied().fold(0.0, f64::max);
        Schedule {
            slot,
            slot_ns: ns(slot).max(1),
            first: first.clone(),
            windows: windows.clone(),
            tasks: tasks.clone(),
            rates: res
                .rates
                .iter()
                .map(|r| r.iter().map(|x| x * c_ref).collect())
                .collect(),
            peak,
            min_max,
            excess,
            objective: res.objective,
            variables: vars.max(res.variables),
            constraints: rows.max(res.constraints),
            solves,
        }
    };
    if transfers.is_empty() {
        let empty = StageResult {
            rates: Vec::new(),
            loads: Vec::new(),
            objective: 0.0,
            variables: 0,
            constraints: 0,
        };
        return Ok(finish(empty, 0.0, Vec::new(), 0, 0, 0));
    }
    match objective {
        Objective::Flutter { levels } => {
            // 1 ≤ levels ≤ MAX_LEVELS (checked above): no wrap-around as an `i32` power had.
            let largest = (n_ports as f64).powf(f64::from(levels));
            if largest.is_nan() || largest > FLUTTER_COEFFICIENT_LIMIT {
                return Err(Error::ObjectiveNotRepresentable {
                    base: n_ports,
                    levels,
                    largest,
                    limit: FLUTTER_COEFFICIENT_LIMIT,
                });
            }
            let res = solve_stage(
                solver,
                cluster,
                transfers,
                reserved,
                slot,
                c_ref,
                &Stage::Flutter { levels },
            )?;
            let peak = res.loads.iter().copied().fold(0.0, f64::max);
            let (v, r) = (res.variables, res.constraints);
            Ok(finish(res, peak, Vec::new(), 1, v, r))
        }
        Objective::MinMax | Objective::LexLevels { .. } => {
            let levels = match objective {
                Objective::LexLevels { levels } => levels,
                _ => 1,
            };
            let stage0 = solve_stage(
                solver,
                cluster,
                transfers,
                reserved,
                slot,
                c_ref,
                &Stage::MinMax,
            )?;
            let u_star = stage0.objective;
            let (mut vars, mut rows) = (stage0.variables, stage0.constraints);
            let mut best = stage0;
            let thresholds: Vec<f64> = (1..levels)
                .map(|j| u_star * f64::from(levels - j) / f64::from(levels))
                .collect();
            let mut fixed: Vec<f64> = Vec::with_capacity(thresholds.len());
            for j in 0..thresholds.len() {
                let res = solve_stage(
                    solver,
                    cluster,
                    transfers,
                    reserved,
                    slot,
                    c_ref,
                    &Stage::Level {
                        u_star,
                        thresholds: &thresholds[..=j],
                        fixed: &fixed,
                    },
                )?;
                fixed.push(res.objective.max(0.0));
                vars = vars.max(res.variables);
                rows = rows.max(res.constraints);
                best = res;
            }
            Ok(finish(best, u_star, fixed, levels as usize, vars, rows))
        }
    }
}

/// `α`-selection (paper §3.4 (1)): how many of a job's `n` transfers enter the LP,
/// `⌈α·n⌉`; [`alpha_selection`] says which.
///
/// # Errors
/// [`Error::InvalidParameter`] when `α` is not in `[0, 1]`.
pub fn alpha_prefix(n: usize, alpha: f64) -> Result<usize, Error> {
    if !(0.0..=1.0).contains(&alpha) {
        return Err(Error::InvalidParameter {
            name: "alpha",
            value: alpha,
            reason: "must lie in [0, 1]",
        });
    }
    Ok(((alpha * n as f64) - 1e-9).ceil().max(0.0) as usize)
}

/// The transfers of `job` that enter the LP (paper §3.4 (1)): the `n` with the smallest LAT
/// in `est` ("transfers with a smaller LAT should have a higher priority"; the paper's
/// "first 40 % in topological order" are the transfers of smallest LAT), ties broken by
/// topological position, so the result does not depend on how the nodes are numbered. In
/// LP order (smallest LAT first); `n` past the job's transfer count takes them all.
///
/// # Complexity
/// O(T log T) for T transfers.
#[must_use]
pub fn alpha_selection(job: &Job, est: &lat::Lat, n: usize) -> Vec<TaskId> {
    let mut ids: Vec<(usize, TaskId)> = job.transfers().iter().copied().enumerate().collect();
    ids.sort_by(|&(pa, a), &(pb, b)| {
        let (la, lb) = (est.lat(a).unwrap_or(0.0), est.lat(b).unwrap_or(0.0));
        la.total_cmp(&lb).then(pa.cmp(&pb))
    });
    ids.truncate(n);
    ids.into_iter().map(|(_, id)| id).collect()
}

/// The LP's transfers for one job as JIT plans it at its arrival `arrival` (paper §3.4): the
/// `n` of [`alpha_selection`], in its order, each with release `arrival + max(0, EAT − trans)`
/// and deadline `max(arrival + LAT, release + trans)` from `est`, where `trans` is the
/// transfer's time alone on its path ([`lat::trans`]).
///
/// # Complexity
/// O(T log T) time, O(T) space for T transfers.
#[must_use]
pub fn job_transfers(
    job: &Job,
    cluster: &Cluster,
    est: &lat::Lat,
    n: usize,
    arrival: f64,
) -> Vec<LpTransfer> {
    alpha_selection(job, est, n)
        .into_iter()
        .filter_map(|id| {
            let NodeKind::Transfer { size, src, dst } = job.node(id) else {
                return None;
            };
            let tr = lat::trans_of(job.node(id), cluster);
            let release = arrival + (est.eat(id).unwrap_or(tr) - tr).max(0.0);
            let deadline = (arrival + est.lat(id).unwrap_or(0.0)).max(release + tr);
            Some(LpTransfer::new(src, dst, size, release, deadline).for_task(id))
        })
        .collect()
}

/// A plan that may have needed wider windows: what [`solve_relaxed`] returns.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Relaxed {
    /// The plan.
    pub schedule: Schedule,
    /// The transfers as solved (their deadlines widened `2^widenings` times from release).
    pub transfers: Vec<LpTransfer>,
    /// How many times the windows were doubled before the LP became feasible (0: as given).
    pub widenings: u32,
    /// LP solves in all, the infeasible attempts included.
    pub solves: usize,
}

/// [`solve`], and when the LP is infeasible, the deadline relaxation JIT's simulator applies:
/// every window `deadline − release` doubled from its release ([`LpTransfer::widened`]), up to
/// `max_widenings` times, until the LP is feasible.
///
/// The paper gives no rule for an infeasible instance (its LATs are estimates, and a transfer
/// that misses its LAT must still be sent, §1.2); this one is ours. Algorithm 1's LATs assume a
/// transfer alone on its route, so plans of several jobs on one port (through `reserved`), or
/// transfers that share a port inside one job, can leave the LP infeasible; doubling every
/// window of the job keeps their order and stretches the job's plan uniformly. A user calls it
/// instead of [`solve`], or after [`solve`] returned [`Error::Infeasible`].
///
/// # Errors
/// [`Error::InvalidParameter`] when `max_widenings` exceeds [`MAX_WIDENINGS`];
/// [`Error::Infeasible`] when the LP is still infeasible after `max_widenings` doublings, or
/// when the next doubling would give the LP more than [`MAX_RELAXED_GROWTH`] times the rate
/// variables it had as given; any other error of [`solve`] at once.
///
/// # Complexity
/// Up to `max_widenings + 1` times [`solve`], each LP at most [`MAX_RELAXED_GROWTH`] times
/// the first.
pub fn solve_relaxed(
    cluster: &Cluster,
    transfers: &[LpTransfer],
    reserved: &Reservations,
    slot: Nanos,
    objective: Objective,
    backend: Backend,
    max_widenings: u32,
) -> Result<Relaxed, Error> {
    check_widenings("max_widenings", max_widenings)?;
    // Rate variables of a set of transfers: one per slot of each window.
    let tau = slot.as_secs_f64();
    let variables = |ts: &[LpTransfer]| -> usize {
        ts.iter()
            .map(|t| {
                let (a, b) = window(t, tau);
                usize::try_from(b.saturating_sub(a).saturating_add(1)).unwrap_or(usize::MAX)
            })
            .fold(0usize, usize::saturating_add)
    };
    let limit = variables(transfers)
        .max(1)
        .saturating_mul(MAX_RELAXED_GROWTH);
    let mut solves = 0;
    for widenings in 0..=max_widenings {
        let factor = f64::from(1u32 << widenings);
        let ts: Vec<LpTransfer> = transfers.iter().map(|t| t.widened(factor)).collect();
        if widenings > 0 && variables(&ts) > limit {
            break;
        }
        match solve(cluster, &ts, reserved, slot, objective, backend) {
            Ok(schedule) => {
                solves += schedule.solves.max(1);
                return Ok(Relaxed {
                    schedule,
                    transfers: ts,
                    widenings,
                    solves,
                });
            }
            Err(Error::Infeasible { .. }) => solves += 1,
            Err(e) => return Err(e),
        }
    }
    Err(Error::Infeasible {
        transfers: transfers.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobBuilder;
    use crate::lat::LatMethod;
    use fabric_model::BitsPerSec;

    fn unit(n: usize) -> Cluster {
        Cluster::uniform(n, BitsPerSec::new(1)).unwrap()
    }

    fn solve1(c: &Cluster, ts: &[LpTransfer], slot: Nanos) -> Result<Schedule, Error> {
        solve(
            c,
            ts,
            &Reservations::new(),
            slot,
            Objective::MinMax,
            Backend::Microlp,
        )
    }

    #[test]
    fn a_plan_ends_by_its_deadline_inside_a_cut_slot() {
        // 1.5 bits from 0.25 s to 1.75 s on unit ports, 1 s slots: the window cuts both slots
        // in half... of [0, 1) it holds 0.75 s, of [1, 2) 0.75 s. Each slot carries at most
        // 0.75 bits; the plan needs them all: U* = 0.75 and nothing after 1.75 s.
        let c = unit(2);
        let t = LpTransfer::new(MachineId::new(0), MachineId::new(1), 1.5, 0.25, 1.75);
        let s = solve1(&c, &[t], Nanos::from_secs(1)).unwrap();
        assert!((s.rate(0, 0) - 0.75).abs() < 1e-6 && (s.rate(0, 1) - 0.75).abs() < 1e-6);
        assert!((s.min_max - 0.75).abs() < 1e-6, "{s:?}");
        assert_eq!(s.rate_at(0, 0.2), 0.0);
        assert!((s.rate_at(0, 0.5) - 1.0).abs() < 1e-6);
        assert!((s.rate_at(0, 1.7) - 1.0).abs() < 1e-6);
        assert_eq!(s.rate_at(0, 1.75), 0.0);
        assert!((s.planned_bits(0, 1.0) - 0.75).abs() < 1e-6);
        assert!((s.planned_bits(0, 1.75) - 1.5).abs() < 1e-6);
        assert_eq!(s.window_secs(0), Some((0.25, 1.75)));
        // Its rate changes at the window's start, the slot boundary and the window's end.
        assert_eq!(s.next_change(0, 0.0), 0.25);
        assert_eq!(s.next_change(0, 0.25), 1.0);
        assert_eq!(s.next_change(0, 1.0), 1.75);
        assert!(s.next_change(0, 1.75).is_infinite());
        // 1.6 bits do not fit before 1.75 s (windows rounded outward let them: 2 slots of 1 s).
        let t = LpTransfer::new(MachineId::new(0), MachineId::new(1), 1.6, 0.25, 1.75);
        assert_eq!(
            solve1(&c, &[t], Nanos::from_secs(1)),
            Err(Error::Infeasible { transfers: 1 })
        );
    }

    #[test]
    fn relaxation_doubles_the_windows_until_feasible() {
        // Two 2-bit transfers into one unit port, both due by 2 s: 4 bits cannot arrive in
        // 2 s. Doubled once (deadline 4 s), they fit.
        let c = unit(3);
        let ts = [
            LpTransfer::new(MachineId::new(0), MachineId::new(2), 2.0, 0.0, 2.0),
            LpTransfer::new(MachineId::new(1), MachineId::new(2), 2.0, 0.0, 2.0),
        ];
        let slot = Nanos::from_secs(1);
        assert_eq!(
            solve1(&c, &ts, slot),
            Err(Error::Infeasible { transfers: 2 })
        );
        let r = solve_relaxed(
            &c,
            &ts,
            &Reservations::new(),
            slot,
            Objective::MinMax,
            Backend::Microlp,
            4,
        )
        .unwrap();
        assert_eq!(r.widenings, 1);
        assert_eq!(r.solves, 2);
        assert_eq!(r.transfers[0].deadline, 4.0);
        assert_eq!(r.transfers[1], ts[1].widened(2.0));
        assert!((r.schedule.min_max - 1.0).abs() < 1e-9);
        assert_eq!(
            solve_relaxed(
                &c,
                &ts,
                &Reservations::new(),
                slot,
                Objective::MinMax,
                Backend::Microlp,
                0
            ),
            Err(Error::Infeasible { transfers: 2 })
        );
        // A feasible LP is solved as given.
        let one = solve_relaxed(
            &c,
            &ts[..1],
            &Reservations::new(),
            slot,
            Objective::MinMax,
            Backend::Microlp,
            4,
        )
        .unwrap();
        assert_eq!((one.widenings, one.transfers[0]), (0, ts[0]));
    }

    /// C1 (4 s) -> C2 (0 s); T_late (1 bit) feeds C2 and is listed first in topological
    /// order, T_early (1 bit) feeds C1: the job and T_early, T_late, C1.
    fn late_listed_first(c: &Cluster) -> (Job, TaskId, TaskId, TaskId) {
        let mut b = JobBuilder::new();
        let late = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(1));
        let early = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(1));
        let c1 = b.compute_secs(4.0);
        let c2 = b.compute_secs(0.0);
        b.edge(early, c1).edge(c1, c2).edge(late, c2);
        (b.build(c).unwrap(), early, late, c1)
    }

    #[test]
    fn alpha_takes_the_smallest_lats_whatever_the_topological_order() {
        // C1 (4 s) -> C2 (0 s); T_late (1 bit) feeds C2 and is listed first in topological
        // order, T_early (1 bit) feeds C1. LATs: T_early 1 s, T_late 1 + 4 + 1 = 6 s. α = 0.5
        // takes T_early, where the first transfer in topological order would be T_late.
        let c = unit(2);
        let (job, early, late, _) = late_listed_first(&c);
        assert_eq!(job.transfers()[0], late);
        let est = lat::estimate(&job, &c, LatMethod::Algorithm1);
        assert_eq!((est.lat(early), est.lat(late)), (Some(1.0), Some(6.0)));
        let n = alpha_prefix(2, 0.5).unwrap();
        assert_eq!(alpha_selection(&job, &est, n), vec![early]);
        assert_eq!(alpha_selection(&job, &est, 5), vec![early, late]);
        let ts = job_transfers(&job, &c, &est, n, 10.0);
        assert_eq!(ts.len(), 1);
        assert_eq!((ts[0].release, ts[0].deadline), (10.0, 11.0));
    }

    /// A job's LP is read by task: `job_transfers` marks each transfer with its task, and the
    /// schedule answers by task in the LP's order; a transfer of no job has no task.
    #[test]
    fn a_jobs_schedule_is_read_by_task() {
        let c = unit(2);
        let (job, early, late, c1) = late_listed_first(&c);
        let est = lat::estimate(&job, &c, LatMethod::Algorithm1);
        let ts = job_transfers(&job, &c, &est, 2, 0.0);
        assert_eq!(
            ts.iter().map(|t| t.task).collect::<Vec<_>>(),
            vec![Some(early), Some(late)]
        );
        let plan = solve(
            &c,
            &ts,
            &Reservations::new(),
            Nanos::from_millis(500),
            Objective::MinMax,
            Backend::Microlp,
        )
        .unwrap();
        assert_eq!(plan.position(early), Some(0));
        assert_eq!(plan.position(late), Some(1));
        assert_eq!(plan.task(1), Some(late));
        assert_eq!(plan.position(c1), None);
        assert_eq!(plan.task(2), None);
        // Every bit of `early` arrives by its LAT (1 s), by task.
        let f = plan.position(early).unwrap();
        assert!((plan.planned_bits(f, 1.0) - 1.0).abs() < 1e-9);
        let plain = LpTransfer::new(MachineId::new(0), MachineId::new(1), 1.0, 0.0, 1.0);
        assert_eq!(plain.task, None);
        assert_eq!(plain.for_task(late).task, Some(late));
    }
}
