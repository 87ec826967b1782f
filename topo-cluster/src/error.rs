//! The crate's one error type.

use fabric_model::{Bytes, Nanos};

/// Everything that can go wrong in `topo-cluster`: each variant names what was wrong and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A row of a matrix does not have one entry per node.
    #[error("{matrix} matrix is not square: row {row} has {len} entries, expected {expected}")]
    NotSquare {
        /// `latency` or `throughput`.
        matrix: &'static str,
        /// The offending row.
        row: usize,
        /// Its number of entries.
        len: usize,
        /// The number of rows.
        expected: usize,
    },
    /// A value is `u64::MAX` (nanoseconds or bits per second), which the dense storage
    /// reserves for "not measured".
    #[error("{matrix} matrix: value at ({row}, {col}) is u64::MAX, reserved for \"not measured\"")]
    ValueTooLarge {
        /// `latency` or `throughput`.
        matrix: &'static str,
        /// Row (sender).
        row: usize,
        /// Column (receiver).
        col: usize,
    },
    /// A node's latency to itself is measured and not zero.
    #[error("latency matrix: nonzero diagonal {value} at node {node}")]
    NonzeroDiagonal {
        /// The node.
        node: usize,
        /// The value given.
        value: Nanos,
    },
    /// Symmetry was required and `(row, col)` differs from `(col, row)`.
    #[error("{matrix} matrix: asymmetric pair ({row}, {col}): {forward:?} vs {backward:?}")]
    Asymmetric {
        /// `latency` or `throughput`.
        matrix: &'static str,
        /// Row of the first entry.
        row: usize,
        /// Column of the first entry.
        col: usize,
        /// Value at `(row, col)` in nanoseconds or bits per second (`None`: not measured).
        forward: Option<u64>,
        /// Value at `(col, row)` (`None`: not measured).
        backward: Option<u64>,
    },
    /// The fabric bridge failed ([`crate::LatencyMatrix::from_fabric`]).
    #[error("fabric: {0}")]
    Fabric(#[from] fabric_model::Error),
    /// The throughput matrix has a different number of nodes than the latency matrix.
    #[error("throughput matrix has {throughput} nodes, latency matrix {latency}")]
    ThroughputSize {
        /// Nodes of the latency matrix.
        latency: usize,
        /// Nodes of the throughput matrix.
        throughput: usize,
    },
    /// The relative bound ρ is out of range.
    #[error("relative bound {rho_permille} per mille is out of range (0..=10000)")]
    InvalidBound {
        /// The bound given.
        rho_permille: u32,
    },
    /// A rank's host name is empty.
    #[error("rank {rank} has an empty host name")]
    EmptyHostName {
        /// The rank.
        rank: usize,
    },
    /// A rank's host is not a node of the clustered matrix.
    #[error("rank {rank} runs on host {host:?}, which is not a node of the latency matrix")]
    UnknownHost {
        /// The rank.
        rank: usize,
        /// Its host name.
        host: String,
    },
    /// Two nodes of the latency matrix carry the same name.
    #[error("node name {name:?} is given twice (nodes {first} and {second})")]
    DuplicateNodeName {
        /// The name.
        name: String,
        /// First node with it.
        first: usize,
        /// Second node with it.
        second: usize,
    },
    /// The partition and the node names disagree on the number of nodes.
    #[error("{names} node names for a partition of {nodes} nodes")]
    NameCount {
        /// Number of names.
        names: usize,
        /// Number of nodes in the partition.
        nodes: usize,
    },
    /// A pLogP table has no size point.
    #[error("pLogP table is empty")]
    EmptyTable,
    /// pLogP sizes are not strictly increasing.
    #[error(
        "pLogP table: size {size} at index {index} does not exceed the previous size {previous}"
    )]
    UnsortedSizes {
        /// Index of the offending point.
        index: usize,
        /// Its size.
        size: Bytes,
        /// The previous size.
        previous: Bytes,
    },
    /// A pLogP parameter is negative, infinite or NaN.
    #[error("pLogP parameter {what} is {value} at size {size} (must be finite and >= 0)")]
    BadParameter {
        /// `L`, `os`, `or`, `g` or `rtt`.
        what: &'static str,
        /// Message size of the point (0 for L).
        size: Bytes,
        /// The value given.
        value: f64,
    },
    /// Round-trip samples lack the zero-byte round trip needed for L and g(m).
    #[error("round-trip samples have no 0-byte sample (needed for L and g)")]
    MissingZeroRtt,
    /// A measurement was handed back for an item that is not in the plan.
    #[error("measurement {sender} -> {receiver} (clusters {from} -> {to}) is not in the plan")]
    NotInPlan {
        /// Sender cluster.
        from: usize,
        /// Receiver cluster.
        to: usize,
        /// Sender node.
        sender: usize,
        /// Receiver node.
        receiver: usize,
    },
    /// A plan item was handed back twice.
    #[error("plan item {item} (clusters {from} -> {to}) was measured twice")]
    DuplicateMeasurement {
        /// Index of the item in the plan.
        item: usize,
        /// Sender cluster.
        from: usize,
        /// Receiver cluster.
        to: usize,
    },
    /// A plan item has not been handed back.
    #[error("plan item {item} (clusters {from} -> {to}) has no measurement")]
    MissingMeasurement {
        /// Index of the item in the plan.
        item: usize,
        /// Sender cluster.
        from: usize,
        /// Receiver cluster.
        to: usize,
    },
    /// A plan item index is out of range.
    #[error("plan item {item} does not exist (plan has {len} items)")]
    NoSuchItem {
        /// The index given.
        item: usize,
        /// The plan's length.
        len: usize,
    },
    /// A collective needs at least one process.
    #[error("a collective over zero processes")]
    NoProcesses,
    /// A segment size of zero.
    #[error("segment size must be positive")]
    ZeroSegment,
    /// A segment size given to an algorithm that does not segment.
    #[error("algorithm {algorithm} takes no segment size")]
    UnexpectedSegment {
        /// The algorithm.
        algorithm: &'static str,
    },
    /// An algorithm that does not exist for that collective.
    #[error("algorithm {algorithm} is not a {collective} algorithm")]
    UnsupportedAlgorithm {
        /// The collective.
        collective: &'static str,
        /// The algorithm.
        algorithm: &'static str,
    },
    /// An empty list of candidate algorithms.
    #[error("no candidate algorithm for {collective}")]
    NoCandidate {
        /// The collective.
        collective: &'static str,
    },
    /// An inter-cluster instance whose vectors do not match its cluster count.
    #[error("inter-cluster instance: {what} has {len} entries, expected {expected}")]
    InstanceShape {
        /// Which vector.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The expected length.
        expected: usize,
    },
    /// A value of an inter-cluster instance is negative, infinite or NaN.
    #[error("inter-cluster instance: {what}[{index}] = {value} (must be finite and >= 0)")]
    InstanceValue {
        /// Which vector.
        what: &'static str,
        /// Index in it.
        index: usize,
        /// The value.
        value: f64,
    },
    /// The root cluster does not exist.
    #[error("root cluster {root} out of range ({clusters} clusters)")]
    RootOutOfRange {
        /// The root given.
        root: usize,
        /// Number of clusters.
        clusters: usize,
    },
    /// No pLogP model for a pair of clusters (or a cluster index out of range).
    #[error("no pLogP model for clusters {from} -> {to}")]
    MissingModel {
        /// Sender cluster.
        from: usize,
        /// Receiver cluster.
        to: usize,
    },
    /// A schedule decision that is not allowed at that point.
    #[error("decision {index}: cluster {from} -> {to} is not a valid step")]
    InvalidDecision {
        /// Index of the decision.
        index: usize,
        /// Sender cluster.
        from: usize,
        /// Receiver cluster.
        to: usize,
    },
    /// Exhaustive search was asked for too many clusters.
    #[error("exhaustive search is limited to {max} clusters, got {clusters}")]
    TooManyClusters {
        /// Clusters of the instance.
        clusters: usize,
        /// The limit.
        max: usize,
    },
    /// A decision-table text line could not be read.
    #[error("decision table line {line}: {reason}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// A decision table lacks the mandatory message-size-0 rule for a group size.
    #[error(
        "decision table: {collective} at level {level}, {procs} processes has no rule for message size 0"
    )]
    MissingZeroRule {
        /// The collective.
        collective: &'static str,
        /// The level.
        level: &'static str,
        /// The group size.
        procs: usize,
    },
    /// A decision table has no rule for a query.
    #[error("decision table: no rule for {collective} at level {level}, {procs} processes")]
    NoRule {
        /// The collective.
        collective: &'static str,
        /// The level.
        level: &'static str,
        /// The group size.
        procs: usize,
    },
    /// A line of an Open MPI `coll_tuned` dynamic rules file could not be read
    /// ([`crate::mpi::open_mpi::read`]).
    #[error("Open MPI rules file line {line}: {reason}")]
    OpenMpiParse {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// A part of an Open MPI JSON rules file could not be read
    /// ([`crate::mpi::open_mpi_json::read`]).
    #[error("Open MPI JSON rules file at {path}: {reason}")]
    OpenMpiJsonParse {
        /// Where: a JSON path such as `$["collectives"]["bcast"][0]`, `$` for the whole
        /// document (syntax errors add the line and column to `reason`).
        path: String,
        /// What was wrong.
        reason: String,
    },
    /// A part of an MPICH JSON collective selection file could not be read
    /// ([`crate::mpi::mpich::read`]).
    #[error("MPICH selection file at {path}: {reason}")]
    MpichParse {
        /// Where: a JSON path such as `$["collective=bcast"]["comm_type=intra"]`, `$` for the
        /// whole document (syntax errors add the line and column to `reason`).
        path: String,
        /// What was wrong.
        reason: String,
    },
    /// A tree of the decision table that the MPI library does not implement (the mapping
    /// tables are in [`crate::mpi`]).
    #[error("{library} has no {collective} algorithm for topo-cluster's {algorithm} tree")]
    NoEquivalent {
        /// `Open MPI` or `MPICH`.
        library: &'static str,
        /// The collective.
        collective: &'static str,
        /// The algorithm.
        algorithm: &'static str,
    },
    /// A rule of the decision table is at a level the [`crate::mpi::LevelMap`] does not place.
    #[error("{library} file: level {level} has no place in the level map")]
    LevelNotMapped {
        /// `Open MPI` or `MPICH`.
        library: &'static str,
        /// The level.
        level: &'static str,
    },
    /// The table holds rules for `collective` at the written level up to `largest`
    /// processes only, below the job's size: the library would apply the rules of a smaller
    /// communicator to the job's `MPI_COMM_WORLD`. Compute the table over every communicator
    /// size of the job ([`crate::Hierarchy::communicator_sizes`]).
    #[error(
        "{library} file for a job of {job} ranks: {collective} at level {level} has rules up to {largest} processes only"
    )]
    JobNotCovered {
        /// `Open MPI` or `MPICH`.
        library: &'static str,
        /// The collective.
        collective: &'static str,
        /// The level written for every communicator.
        level: &'static str,
        /// The largest group size of that collective at that level.
        largest: usize,
        /// The job's size ([`crate::mpi::open_mpi::Options::for_job`]).
        job: usize,
    },
    /// A value larger than the file format holds (the readers store C `int`s or `long`s).
    #[error("{library} file: {what} {value} exceeds the format's limit {max}")]
    TooLarge {
        /// `Open MPI` or `MPICH`.
        library: &'static str,
        /// Which value.
        what: &'static str,
        /// The value.
        value: u64,
        /// The largest value the format holds.
        max: u64,
    },
    /// A two-level [`crate::mpi::LevelMap`] with the same level on both sides.
    #[error("level map: intra-node and inter-node are both {level}")]
    SameLevelTwice {
        /// The level.
        level: &'static str,
    },
    /// An Open MPI layout that no Open MPI version reads with these options.
    #[error("Open MPI rules file: {reason}")]
    LayoutConflict {
        /// Why.
        reason: &'static str,
    },
}
