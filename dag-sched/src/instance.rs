//! JSON job sets: a cluster, DAG jobs, a slot length and `α`, read from `&str`, so that the LP
//! of JIT (paper §3, P1) can be solved on a given instance and its optimal maximum link load
//! checked against other solvers (`reproduce dag-lp --instance FILE.json`).
//!
//! # Format
//!
//! One JSON object; units are bits, bits/s and seconds (the models' own `f64` units).
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `machines` | integer, 0 to [`MAX_MACHINES`] | number of machines, ids `0 .. machines` |
//! | `capacity` | number > 0 | ingress and egress capacity of every machine port (bits/s) |
//! | `slot` | number > 0 | slot length `τ` of the time-indexed LP (s) |
//! | `alpha` | number in `[0, 1]`, optional (default 0.4) | share of each job's transfers, those of smallest LAT, that enter the LP |
//! | `jobs` | array of jobs | the job set |
//!
//! A job is an object with `nodes` (an array; a node's id is its index in it), `edges`
//! (optional, default none: an array of `[from, to]` pairs of node ids, `to` starts after
//! `from` is done) and `arrival` (optional, default 0: the time the job arrives, s). A node is
//! either `{"compute": LOAD}` (seconds of compute) or
//! `{"transfer": {"size": BITS, "src": MACHINE, "dst": MACHINE}}`. Unknown fields are refused.
//!
//! The committed example `dag-sched/instances/two_jobs.json`:
//!
//! ```json
#![doc = include_str!("../instances/two_jobs.json")]
//! ```
//!
//! # Errors
//!
//! Malformed JSON, a missing or unknown field, or a value of the wrong type (a negative or
//! fractional id, a string for a number) is [`Error::InstanceJson`] with the line and column
//! where the reader stopped. A well-formed value the crate's own validation refuses is
//! [`Error::Instance`] naming its JSON path (`capacity`, `slot`, `alpha`, `machines`,
//! `jobs[i]`, `jobs[i].arrival`) around that validation's error: [`Error::ZeroCapacity`]
//! from [`Cluster::uniform`], [`Error::Cycle`], [`Error::UnknownNode`],
//! [`Error::UnknownMachine`], [`Error::SelfTransfer`] or [`Error::InvalidValue`] from
//! [`JobBuilder::build`], [`Error::InvalidParameter`] for the slot, `α`, the arrival or the
//! machine count.
//!
//! # Example
//!
//! ```
//! use dag_sched::instance::Instance;
//! use dag_sched::lp::Backend;
//!
//! let text = include_str!("../instances/two_jobs.json");
//! let inst = Instance::parse(text)?;
//! assert_eq!((inst.cluster().len(), inst.jobs().len()), (3, 2));
//! // α = 1: all three transfers enter the LP.
//! assert_eq!(inst.lp_transfers()?.len(), 3);
//! let plan = inst.solve(Backend::Microlp)?;
//! // Job 0's first transfer (1 Gb, LAT 1 s) must arrive by 1 s: it needs a whole port from
//! // its release to its LAT, so the optimal maximum link load is 1 (1 Gb/s).
//! assert!((plan.min_max - 1.0).abs() < 1e-8);
//! # Ok::<(), dag_sched::Error>(())
//! ```

use serde::Deserialize;

use crate::Error;
use crate::cluster::{Cluster, MachineId};
use crate::job::{Job, JobBuilder, TaskId};
use crate::lat::{self, LatMethod};
use crate::lp::{self, Backend, LpTransfer, Objective, Reservations, Schedule};

/// The largest `machines` accepted (a bound on what one small file can make us allocate).
pub const MAX_MACHINES: u32 = 1 << 16;

/// `α` when the file does not give one (the paper's value).
pub const DEFAULT_ALPHA: f64 = 0.4;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInstance {
    machines: u32,
    capacity: f64,
    slot: f64,
    #[serde(default = "default_alpha")]
    alpha: f64,
    jobs: Vec<RawJob>,
}

fn default_alpha() -> f64 {
    DEFAULT_ALPHA
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    #[serde(default)]
    arrival: f64,
    nodes: Vec<RawNode>,
    #[serde(default)]
    edges: Vec<(u32, u32)>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum RawNode {
    Compute(f64),
    Transfer(RawTransfer),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTransfer {
    size: f64,
    src: u32,
    dst: u32,
}

fn at(path: impl Into<String>, source: Error) -> Error {
    Error::Instance {
        path: path.into(),
        source: Box::new(source),
    }
}

/// A validated job set: the cluster, the jobs with their arrival times, the LP's slot and `α`.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    cluster: Cluster,
    jobs: Vec<Job>,
    arrivals: Vec<f64>,
    capacity: f64,
    slot: f64,
    alpha: f64,
}

impl Instance {
    /// Reads a job set in the [module's format](self).
    ///
    /// # Errors
    /// [`Error::InstanceJson`] (with line and column) for text that is not the documented
    /// shape, [`Error::Instance`] (with the JSON path) for a value that validation refuses;
    /// see the [module docs](self#errors).
    ///
    /// # Complexity
    /// O(n) in the length of the text, plus O(V + E) per job for [`JobBuilder::build`].
    pub fn parse(text: &str) -> Result<Self, Error> {
        let raw: RawInstance = serde_json::from_str(text).map_err(|e| {
            let full = e.to_string();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let reason = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
            Error::InstanceJson {
                line: e.line(),
                column: e.column(),
                reason,
            }
        })?;
        if raw.machines > MAX_MACHINES {
            return Err(at(
                "machines",
                Error::InvalidParameter {
                    name: "machines",
                    value: f64::from(raw.machines),
                    reason: "at most 65536",
                },
            ));
        }
        let cluster = Cluster::uniform_f64(raw.machines as usize, raw.capacity)
            .map_err(|e| at("capacity", e))?;
        if !(raw.slot.is_finite() && raw.slot > 0.0) {
            return Err(at(
                "slot",
                Error::InvalidParameter {
                    name: "slot",
                    value: raw.slot,
                    reason: "must be positive and finite",
                },
            ));
        }
        lp::alpha_prefix(0, raw.alpha).map_err(|e| at("alpha", e))?;
        let mut jobs = Vec::with_capacity(raw.jobs.len());
        let mut arrivals = Vec::with_capacity(raw.jobs.len());
        for (j, rj) in raw.jobs.into_iter().enumerate() {
            if !(rj.arrival.is_finite() && rj.arrival >= 0.0) {
                return Err(at(
                    format!("jobs[{j}].arrival"),
                    Error::InvalidParameter {
                        name: "arrival",
                        value: rj.arrival,
                        reason: "must be finite and non-negative",
                    },
                ));
            }
            let mut b = JobBuilder::new();
            for node in rj.nodes {
                match node {
                    RawNode::Compute(load) => b.compute_secs(load),
                    RawNode::Transfer(t) => {
                        b.transfer_bits(t.size, MachineId::new(t.src), MachineId::new(t.dst))
                    }
                };
            }
            for (from, to) in rj.edges {
                b.edge(TaskId::new(from), TaskId::new(to));
            }
            jobs.push(b.build(&cluster).map_err(|e| at(format!("jobs[{j}]"), e))?);
            arrivals.push(rj.arrival);
        }
        Ok(Self {
            cluster,
            jobs,
            arrivals,
            capacity: raw.capacity,
            slot: raw.slot,
            alpha: raw.alpha,
        })
    }

    /// The machines.
    #[must_use]
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The jobs, in file order.
    #[must_use]
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// Arrival time of each job (s), in file order.
    #[must_use]
    pub fn arrivals(&self) -> &[f64] {
        &self.arrivals
    }

    /// Slot length of the LP, seconds (as the file gives it: not rounded to nanoseconds).
    #[must_use]
    pub fn slot_secs(&self) -> f64 {
        self.slot
    }

    /// The capacity of every machine port, bits/s, as the file gives it.
    #[must_use]
    pub fn capacity_bps(&self) -> f64 {
        self.capacity
    }

    /// Share of each job's transfers that enter the LP.
    #[must_use]
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The LP's transfers, as JIT plans a job at its arrival `a` (the same rule as
    /// [`crate::sim`]): for each job, LATs by Algorithm 1 (paper §2), the `⌈α·n⌉` of its `n`
    /// transfers of smallest LAT ([`lp::alpha_selection`], §3.4), each with release
    /// `a + max(0, EAT − trans)` and deadline `max(a + LAT, release + trans)`, where `trans`
    /// is the transfer's time alone on its path. Jobs in file order.
    ///
    /// # Errors
    /// None for a parsed instance (`α` was checked); the `Result` is the one of
    /// [`lp::alpha_prefix`].
    ///
    /// # Complexity
    /// O(V + E) per job.
    pub fn lp_transfers(&self) -> Result<Vec<LpTransfer>, Error> {
        let mut out = Vec::new();
        for (job, &arrival) in self.jobs.iter().zip(&self.arrivals) {
            let est = lat::estimate(job, &self.cluster, LatMethod::Algorithm1);
            let n_lp = lp::alpha_prefix(job.transfers().len(), self.alpha)?;
            out.extend(lp::job_transfers(job, &self.cluster, &est, n_lp, arrival));
        }
        Ok(out)
    }

    /// Solves P1 ([`Objective::MinMax`], no reservations) for [`Instance::lp_transfers`] with
    /// `backend`. The optimal maximum link load is [`Schedule::min_max`] (a fraction of the
    /// port capacity; times `capacity` in bits/s).
    ///
    /// # Errors
    /// Those of [`lp::solve`], e.g. [`Error::Infeasible`].
    ///
    /// # Complexity
    /// One LP; see [`lp::solve`].
    pub fn solve(&self, backend: Backend) -> Result<Schedule, Error> {
        lp::solve_secs(
            &self.cluster,
            &self.lp_transfers()?,
            &Reservations::new(),
            self.slot,
            Objective::MinMax,
            backend,
        )
    }
}
