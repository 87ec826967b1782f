//! The crate's one error type.

use crate::cluster::MachineId;
use crate::job::TaskId;

/// Everything that can go wrong in `dag-sched`: bad input (named, with where) or an LP that cannot be solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The job graph has a cycle; the nodes on it are listed in order, the first repeated at the end.
    #[error("job graph has a cycle: {}", fmt_cycle(.cycle))]
    Cycle {
        /// The nodes of one cycle, in edge order, the first node repeated last.
        cycle: Vec<TaskId>,
    },
    /// An edge names a node that was never added to the job.
    #[error("edge {from} -> {to} names unknown node {unknown}")]
    UnknownNode {
        /// Tail of the edge.
        from: TaskId,
        /// Head of the edge.
        to: TaskId,
        /// The id that does not exist.
        unknown: TaskId,
    },
    /// A node id that is not a node of the job it was given with (an id of another job,
    /// larger than this job's node count): [`crate::Job::get`] and the functions that take a
    /// job's node id check it instead of indexing out of bounds.
    #[error("node {node} is not a node of this job ({nodes} nodes): an id from another job?")]
    ForeignNode {
        /// The id given.
        node: TaskId,
        /// Number of nodes of the job.
        nodes: usize,
    },
    /// A node id of the job that names a compute task where a transfer is asked for
    /// ([`crate::Lat::get`]).
    #[error("node {node} is a compute task, not a transfer")]
    NotATransfer {
        /// The id given.
        node: TaskId,
    },
    /// A transfer names a machine that the cluster does not have.
    #[error("transfer {node} names machine {machine}, but the cluster has {machines} machines")]
    UnknownMachine {
        /// The transfer node.
        node: TaskId,
        /// The machine id it names.
        machine: MachineId,
        /// Number of machines in the cluster.
        machines: usize,
    },
    /// A machine has a zero (or negative, or non-finite) ingress or egress capacity.
    #[error(
        "machine {machine} has {direction} capacity {capacity}; capacities must be positive and finite"
    )]
    ZeroCapacity {
        /// The machine.
        machine: MachineId,
        /// `"ingress"` or `"egress"`.
        direction: &'static str,
        /// The value given.
        capacity: f64,
    },
    /// A transfer whose sender is its receiver.
    #[error("transfer {node} sends from machine {machine} to itself")]
    SelfTransfer {
        /// The transfer node.
        node: TaskId,
        /// The machine.
        machine: MachineId,
    },
    /// A compute load or a transfer size that is negative or not finite.
    #[error("node {node} has invalid {what} {value}; it must be finite and non-negative")]
    InvalidValue {
        /// The node.
        node: TaskId,
        /// `"load"` or `"size"`.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A parameter outside its domain (slot length, α, number of levels, …).
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// What the domain is.
        reason: &'static str,
    },
    /// A transfer given to the LP whose window (release to deadline) is empty or misplaced.
    #[error(
        "LP transfer {index} has release {release} s and deadline {deadline} s: the window is empty or before the horizon start"
    )]
    EmptyWindow {
        /// Index of the transfer in the LP problem.
        index: usize,
        /// Its release time (s).
        release: f64,
        /// Its deadline (s).
        deadline: f64,
    },
    /// The literal λ-representation of `Σ |δ|^δ_u` needs coefficients no LP solver can hold.
    #[error(
        "the literal objective needs coefficient {base}^{levels} = {largest:e}, above the representable limit {limit:e}; use LexLevels"
    )]
    ObjectiveNotRepresentable {
        /// `|δ|`, the number of link-slots.
        base: usize,
        /// Number of capacity levels.
        levels: u32,
        /// The largest coefficient `base^levels`.
        largest: f64,
        /// The limit we accept.
        limit: f64,
    },
    /// The LP has no feasible point: the deadlines cannot be met within the capacities.
    #[error(
        "LP infeasible: {transfers} transfers cannot meet their deadlines within the port capacities"
    )]
    Infeasible {
        /// Number of transfers in the problem.
        transfers: usize,
    },
    /// The LP backend asked for is not built in (its cargo feature is off).
    #[error("LP backend {backend} is not built in: enable dag-sched's `{feature}` feature")]
    BackendUnavailable {
        /// The backend's name.
        backend: &'static str,
        /// The cargo feature that builds it.
        feature: &'static str,
    },
    /// A fabric that [`crate::Cluster::from_fabric`] cannot route on: a hop table of another
    /// fabric, or two terminals that cannot reach each other.
    #[error("fabric: {0}")]
    Fabric(#[from] fabric_model::Error),
    /// A terminal of the fabric given to [`crate::Cluster::from_fabric`] hangs off no switch.
    #[error("terminal {terminal} of the fabric hangs off no switch")]
    NoSwitch {
        /// The terminal's node number in the fabric.
        terminal: u32,
    },
    /// The solver failed for another reason.
    #[error("LP solver failed: {0}")]
    Solver(String),
    /// The simulator found no next event while jobs were unfinished (a scheduler starved every flow).
    #[error("simulation stalled at {time} s with {unfinished} unfinished jobs")]
    Stalled {
        /// Simulated time (s).
        time: f64,
        /// Jobs not finished.
        unfinished: usize,
    },
    /// A JSON job set (the `instance` module, feature `json`) that is not well-formed JSON or
    /// not of the documented shape: a syntax error, a missing or unknown field, a value of the
    /// wrong type.
    #[error("instance JSON line {line}, column {column}: {reason}")]
    InstanceJson {
        /// 1-based line of the input where the reader stopped.
        line: usize,
        /// 1-based column of the input where the reader stopped.
        column: usize,
        /// What is wrong there.
        reason: String,
    },
    /// A well-formed JSON job set (the `instance` module, feature `json`) with an invalid
    /// value; `path` says where (`capacity`, `slot`, `alpha`, `jobs[1]`, `jobs[0].arrival`,
    /// …) and `source` is the error the crate's own validation gives for it.
    #[error("instance {path}: {source}")]
    Instance {
        /// JSON path of the value (or job) that was refused.
        path: String,
        /// The validation error.
        source: Box<Error>,
    },
    /// A line of a coflow trace that cannot be read.
    #[error("trace line {line}: {reason}")]
    Trace {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

fn fmt_cycle(cycle: &[TaskId]) -> String {
    cycle
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" -> ")
}
