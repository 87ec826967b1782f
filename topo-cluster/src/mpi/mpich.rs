//! MPICH's JSON collective selection file: the file named by the control variable
//! `MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`.
//!
//! The file is a decision tree of nested objects whose keys are tests, tried in order, the
//! first that holds is followed; a leaf `"algorithm=NAME"` holds the algorithm's parameters as
//! `"key=value": {}` entries. The file **replaces MPICH's whole built-in table**: a collective
//! without a branch, or a communicator no branch matches, aborts the program
//! (`mpir_coll.c`: `cnt`). So the writer writes every collective MPICH knows (its
//! `csel.c` list): topo-cluster's four from the table, the others as MPICH's own table
//! chooses (below). A broadcast branch, as written for [`Version::V4_1`]:
//!
//! ```json
//!     "collective=bcast": {
//!         "comm_type=intra": {
//!             "comm_hierarchy=any": {
//!                 "comm_size<=7": {
//!                     "avg_msg_size=any": {
//!                         "algorithm=MPIR_Bcast_intra_binomial": {}
//!                     }
//!                 },
//!                 "comm_size=any": {
//!                     "avg_msg_size<=16383": {
//!                         "algorithm=MPIR_Bcast_intra_binomial": {}
//!                     },
//!                     "avg_msg_size=any": {
//!                         "algorithm=MPIR_Bcast_intra_pipelined_tree": {
//!                             "tree_type=kary": {},
//!                             "is_non_blocking=0": {},
//!                             "k=1": {},
//!                             "chunk_size=1024": {},
//!                             "recv_pre_posted=0": {}
//!                         }
//!                     }
//!                 }
//!             }
//!         },
//!         "comm_type=inter": {
//!             "algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}
//!         }
//!     },
//! ```
//!
//! A group size p of the table, followed by group size q, becomes `comm_size<=q-1` (the first
//! one also covers the sizes below it, as the table's lookup does; the last one is
//! `comm_size=any`); a rule from message size m to the next rule's n becomes
//! `avg_msg_size<=n-1`, the last `avg_msg_size=any`. Reading gives the first range the group
//! size 1 and every other range the previous bound + 1 (for scatter and gather, whose
//! branches are one communicator size each, the range's bound): the file does not hold the
//! table's smallest group size, every lookup is the same, and writing again gives the same
//! text.
//!
//! # Sizes of scatter and gather
//! MPICH defines no `avg_msg_size` for scatter and gather (a file that tests it aborts in
//! `csel.c`); its `total_msg_size` is the receive count (scatter) or send count (gather)
//! times the communicator size, in elements, not bytes (the sizes written are right for
//! byte-typed buffers). The writer writes `total_msg_size<=n×c-1` with a `comm_size` branch
//! for every communicator size c from the table's smallest group size to its largest (or to
//! the job's size, [`Options::for_job`], if larger), as Open MPI's writer does
//! ([`crate::mpi::open_mpi`]).
//!
//! # Versions ([`Version`])
//! - [`Version::V4_0`] (the default; Debian 12 ships 4.0.2): among topo-cluster's trees only
//!   the binomial broadcast, scatter and gather and the pairwise all-to-all.
//!   `MPIR_Bcast_intra_tree` and `…_pipelined_tree` exist from 4.1 on; a 4.0 file naming them
//!   aborts `MPI_Init`, so [`write()`] reports [`Error::NoEquivalent`] for them.
//! - [`Version::V4_1`] (4.1 and later): also the k-ary trees. MPICH 4.1's parser stores the
//!   value of `is_non_blocking=…` in `k` (and leaves the container's non-blocking flag unset,
//!   which builds the same tree either way; 4.2 fixed it): the writer puts `is_non_blocking`
//!   before `k`, so that `k` wins, and the reader refuses the other order. Run on Debian 13's
//!   MPICH 4.2.1 (the crate's conformance test), every tree is followed: the observer read
//!   `tree_type` 0 (k-ary), `k`, the chunk size and non-blocking 0 at the entry of
//!   `MPIR_Bcast_intra_tree` and `MPIR_Bcast_intra_pipelined_tree`; a [`Version::V4_0`] file
//!   aborts `MPI_Init` there (`unrecognized key algorithm=MPIR_Barrier_intra_dissemination`).
//!
//! # Levels
//! [`LevelMap::single`] writes `comm_hierarchy=any`. A two-level map writes
//! `comm_hierarchy=node` (intra-node level) and `comm_hierarchy=node_roots` (inter-node
//! level), the kinds MPICH gives the communicators it builds for its SMP-aware algorithms,
//! then `comm_hierarchy=any` with the inter-node level's rules again, for the communicators
//! of the application (`MPI_COMM_WORLD` is a `parent` communicator, others `flat`), which no
//! other branch matches. MPICH 4.0.2's bcast on a communicator spanning nodes runs on the
//! node and node-roots communicators it built, whose selection takes the `node` and
//! `node_roots` branches: the conformance test sees it on one machine split into two "nodes"
//! (`MPIR_CVAR_NUM_CLIQUES=2`), following the file and not following a file with either
//! branch corrupted. Scatter, gather and all-to-all have no such algorithm in 4.0.2: they
//! take the catch-all. MPICH 4.2.1 (ch4, as Debian builds it) does the same on one machine
//! without cliques: `MPI_COMM_WORLD` there has a node communicator of every rank and a
//! node-roots communicator of one, and a bcast of it runs on those two (up to 7 ranks
//! always; from 8 ranks below 512 KiB on a power of two, below 12 KiB otherwise), each
//! taking its branch at its own size (`comm_size` 1 for the node roots), and on
//! `MPI_COMM_WORLD` itself (`comm_hierarchy=any`) above. The conformance test records on
//! which communicator each algorithm ran and sees every one follow its branch.
//!
//! # All-to-all in place
//! A tuned all-to-all's `comm_type=intra` branch starts with `is_sendbuf_inplace=yes`:
//! MPICH's own in-place algorithm (`MPIR_Alltoall_intra_pairwise_sendrecv_replace`), then
//! `is_sendbuf_inplace=no` with the table's branches. The table's pairwise algorithm requires
//! a send buffer: MPICH 4.0.2 killed a program calling `MPI_Alltoall` with `MPI_IN_PLACE`
//! under a file that sent it there (seen by the conformance test).
//!
//! # The collectives topo-cluster does not tune
//! Every collective topo-cluster does not tune (and a tuned one's inter-communicator branch,
//! and its level a table gives no rules) gets MPICH's own choice: its built-in default
//! table's branch, stated in the writer as our own data from reading MPICH 4.0.2's and 4.1's
//! `maint/tuning/coll/mpir/generic.json` (the two differ only in the barrier: 4.1's
//! k-dissemination with k = 2 where 4.0.2 has dissemination); the rules, with the keys they
//! test (`comm_size<N`, `comm_size=pow2`, `avg_msg_size`, `total_msg_size`, `count<pow2`,
//! `is_commutative`, `is_op_built_in`, `is_sendbuf_inplace`, `is_block_regular`,
//! `is_node_consecutive`, `comm_hierarchy=parent`), are listed in the writer's `defaults`
//! module. In short, for an intra-communicator of p ranks: allgather(v) by recursive
//! doubling (p a power of two, total below 512 KiB), Bruck's (other p, below 80 KiB) or ring;
//! all-reduce by recursive doubling up to 8 bytes, then reduce-scatter + all-gather for a
//! built-in operation; reduce binomial up to 2 KiB, then reduce-scatter + gather for a
//! built-in operation; reduce_scatter(_block) by recursive halving (commutative, below 512
//! KiB) or pairwise, noncommutative or recursive doubling otherwise; all-to-all(v/w)
//! in-place, Bruck's, scattered or pairwise by size; broadcast binomial, scatter +
//! recursive-doubling or ring all-gather by size; scan SMP-aware on node-consecutive ranks;
//! barrier, all-reduce and reduce SMP-aware where MPICH's table says so; gatherv, scatterv,
//! exscan and the neighbourhood collectives with MPICH's one algorithm. [`Version::V4_0`]'s
//! are MPICH's table at every 4.0 tag (v4.0 to v4.0.3), [`Version::V4_1`]'s its table at
//! every tag from v4.1 to v4.3.2 (`generic.json` unchanged, and the same at v5.0.0 and
//! v5.0.1). The conformance test checks these branches equal, key for key, the tables
//! compiled into Debian 12's libmpich 4.0.2 ([`Version::V4_0`]) and Debian 13's 4.2.1
//! ([`Version::V4_1`]), and sees both run the same algorithm with the file as without any
//! file for the blocking collectives on both sides of their boundaries.
//!
//! # Numbers
//! - `tree_type=kary` is read with `atoi`, which gives 0, `MPIR_TREE_TYPE_KARY` (seen at the
//!   entry of the trees on 4.2.1).
//! - The readers use `atoi`, so every number must fit a C `int`: larger ones are refused.
//!
//! The JSON is written by hand (the keys are fixed ASCII and the layout must be stable for the
//! round trip) and read with `serde_json` into an order-keeping tree, since the order of keys
//! is the meaning of the file and duplicate keys must be refused.

use fabric_model::Bytes;

use crate::decision::Rule;
use crate::mpi::json::Json;
use crate::mpi::{LevelMap, Scope, check_job, check_levels, rules_for};
use crate::{Algorithm, Collective, DecisionTable, Error, Level};

mod defaults;

use defaults::{COLLECTIVES, builtin};

const LIBRARY: &str = "MPICH";
const INT_MAX: u64 = i32::MAX as u64;

/// How [`write()`] and [`read`] place the table's levels, for a job of a given size.
///
/// The job's size is required ([`Options::for_job`]): `comm_hierarchy=any` tells
/// communicators apart by their size only, so a table whose largest group size at the level
/// written there is smaller than the job would give the job's `MPI_COMM_WORLD` the rules of
/// a smaller communicator. [`write()`] refuses such a table ([`Error::JobNotCovered`]), and
/// writes scatter and gather branches for every communicator size up to the job's. The
/// reader does not use the job's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    version: Version,
    levels: LevelMap,
    job_size: usize,
}

/// The MPICH releases a file is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Version {
    /// MPICH 4.0.x (Debian 12 ships 4.0.2): broadcast by binomial tree only among
    /// topo-cluster's trees (no `MPIR_Bcast_intra_tree`, no `…_pipelined_tree`).
    #[default]
    V4_0,
    /// MPICH 4.1 and later (Debian 13 ships 4.2.1): also the k-ary and pipelined k-ary
    /// broadcast trees.
    V4_1,
}

impl Version {
    /// The releases, in words.
    #[must_use]
    pub const fn releases(self) -> &'static str {
        match self {
            Self::V4_0 => "MPICH 4.0.x",
            Self::V4_1 => "MPICH >= 4.1",
        }
    }

    /// The library name in errors.
    const fn library(self) -> &'static str {
        match self {
            Self::V4_0 => "MPICH 4.0",
            Self::V4_1 => "MPICH 4.1",
        }
    }

    /// Whether this version has `algorithm` for `collective`.
    fn has(self, collective: Collective, algorithm: Algorithm) -> bool {
        algorithm_name(
            collective,
            algorithm,
            algorithm.is_segmented().then(|| Bytes::new(1)),
        )
        .is_ok()
            && (self != Self::V4_0
                || !matches!(
                    (collective, algorithm),
                    (
                        Collective::Broadcast,
                        Algorithm::Chain | Algorithm::Binary | Algorithm::SegmentedChain
                    )
                ))
    }

    /// The trees of `collective` this version has: the candidates to compute its table
    /// among ([`crate::decision::Compute::among`]).
    #[must_use]
    pub fn trees(self, collective: Collective) -> Vec<Algorithm> {
        collective
            .algorithms()
            .iter()
            .copied()
            .filter(|&a| self.has(collective, a))
            .collect()
    }
}

impl Options {
    /// The options for a job of `ranks` ranks (the size of its `MPI_COMM_WORLD`):
    /// [`Version::V4_0`], every rule from [`Level::IntraCluster`] under
    /// `comm_hierarchy=any`. Compute the table over every communicator size the job will
    /// have ([`crate::Hierarchy::communicator_sizes`], which ends with `ranks`).
    #[must_use]
    pub const fn for_job(ranks: usize) -> Self {
        Self {
            version: Version::V4_0,
            levels: LevelMap::single(Level::IntraCluster),
            job_size: ranks,
        }
    }

    /// Sets the MPICH version the file is for.
    #[must_use]
    pub const fn with_version(mut self, version: Version) -> Self {
        self.version = version;
        self
    }

    /// The MPICH version the file is for.
    #[must_use]
    pub const fn version(&self) -> Version {
        self.version
    }

    /// The job's size, set by [`Options::for_job`].
    #[must_use]
    pub const fn job_size(&self) -> usize {
        self.job_size
    }

    /// Sets the level map.
    #[must_use]
    pub const fn with_levels(mut self, levels: LevelMap) -> Self {
        self.levels = levels;
        self
    }

    /// The level map.
    #[must_use]
    pub const fn levels(&self) -> LevelMap {
        self.levels
    }
}

fn hierarchy_key(scope: Scope) -> &'static str {
    match scope {
        Scope::Any => "comm_hierarchy=any",
        Scope::IntraNode => "comm_hierarchy=node",
        Scope::InterNode => "comm_hierarchy=node_roots",
    }
}

/// MPICH's algorithm name and parameters for `algorithm` of `collective` (the table of
/// [`crate::mpi`]).
///
/// # Errors
/// [`Error::NoEquivalent`] for a tree MPICH does not have, [`Error::TooLarge`] for a segment
/// size above `i32::MAX`.
pub fn algorithm_name(
    collective: Collective,
    algorithm: Algorithm,
    segment: Option<Bytes>,
) -> Result<(&'static str, Vec<String>), Error> {
    use Algorithm::{Binary, Binomial, Chain, Direct, SegmentedChain};
    use Collective::{AllToAll, Broadcast, Gather, Scatter};
    // is_non_blocking before k: MPICH 4.1 stores the value of is_non_blocking=… in k
    let tree = |k: u32| {
        vec![
            "tree_type=kary".to_owned(),
            "is_non_blocking=0".to_owned(),
            format!("k={k}"),
        ]
    };
    Ok(match (collective, algorithm) {
        (Broadcast, Chain) => ("MPIR_Bcast_intra_tree", tree(1)),
        (Broadcast, Binary) => ("MPIR_Bcast_intra_tree", tree(2)),
        (Broadcast, SegmentedChain) => {
            let s = segment.map_or(0, Bytes::get);
            if s > INT_MAX {
                return Err(Error::TooLarge {
                    library: LIBRARY,
                    what: "chunk size",
                    value: s,
                    max: INT_MAX,
                });
            }
            let mut p = tree(1);
            p.push(format!("chunk_size={s}"));
            p.push("recv_pre_posted=0".to_owned());
            ("MPIR_Bcast_intra_pipelined_tree", p)
        }
        (Broadcast, Binomial) => ("MPIR_Bcast_intra_binomial", Vec::new()),
        (Scatter, Binomial) => ("MPIR_Scatter_intra_binomial", Vec::new()),
        (Gather, Binomial) => ("MPIR_Gather_intra_binomial", Vec::new()),
        (AllToAll, Direct) => ("MPIR_Alltoall_intra_pairwise", Vec::new()),
        _ => {
            return Err(Error::NoEquivalent {
                library: LIBRARY,
                collective: collective.name(),
                algorithm: algorithm.name(),
            });
        }
    })
}

/// The trees of `collective` that MPICH has (the rows of the mapping table of
/// [`crate::mpi`] that are not "none"), in [`Collective::algorithms`] order: the candidates of
/// [`DecisionTable::compute`].
#[must_use]
pub fn trees(collective: Collective) -> Vec<Algorithm> {
    collective
        .algorithms()
        .iter()
        .copied()
        .filter(|&a| algorithm_name(collective, a, a.is_segmented().then(|| Bytes::new(1))).is_ok())
        .collect()
}

/// A node of the written file: a key and its object.
#[derive(Clone)]
struct Node {
    key: String,
    children: Vec<Node>,
}

impl Node {
    fn new(key: impl Into<String>, children: Vec<Node>) -> Self {
        Self {
            key: key.into(),
            children,
        }
    }
}

fn render(out: &mut String, children: &[Node], indent: usize) {
    if children.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    for (i, c) in children.iter().enumerate() {
        out.push_str(&" ".repeat(indent + 4));
        // keys are plain ASCII: quoting cannot fail
        out.push_str(&serde_json::to_string(&c.key).unwrap_or_default());
        out.push_str(": ");
        render(out, &c.children, indent + 4);
        if i + 1 < children.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str(&" ".repeat(indent));
    out.push('}');
}

fn leaf(name: &str) -> Node {
    Node::new(format!("algorithm={name}"), Vec::new())
}

const IN_PLACE_YES: &str = "is_sendbuf_inplace=yes";
const IN_PLACE_NO: &str = "is_sendbuf_inplace=no";

/// MPICH's own algorithm for `collective` called in place (`MPI_IN_PLACE`), where the trees
/// of the table cannot run in place: all-to-all, whose pairwise algorithm requires a send
/// buffer (MPICH 4.0.2 killed a program calling it in place under a file without this
/// branch), runs pairwise sendrecv_replace, as MPICH's own table chooses.
const fn in_place(collective: Collective) -> Option<&'static str> {
    match collective {
        Collective::AllToAll => Some("MPIR_Alltoall_intra_pairwise_sendrecv_replace"),
        _ => None,
    }
}

/// Whether MPICH's size test for `collective` is `total_msg_size` (count × communicator
/// size; scatter and gather, for which `avg_msg_size` is undefined) rather than
/// `avg_msg_size` (bcast, all-to-all).
#[must_use]
pub const fn uses_total_size(collective: Collective) -> bool {
    matches!(collective, Collective::Scatter | Collective::Gather)
}

/// The most communicator-size branches a scatter or gather level may need.
pub const MAX_DENSE_SIZES: usize = 16_384;

fn bound(what: &'static str, next: u64) -> Result<u64, Error> {
    let v = next - 1;
    if v > INT_MAX {
        return Err(Error::TooLarge {
            library: LIBRARY,
            what,
            value: v,
            max: INT_MAX,
        });
    }
    Ok(v)
}

/// The `comm_size` branches of one level of `collective`.
fn level_branches(
    table: &DecisionTable,
    c: Collective,
    level: Level,
    version: Version,
    up_to: usize,
) -> Result<Vec<Node>, Error> {
    let mut sizes: Vec<usize> = table
        .rules()
        .iter()
        .filter(|r| r.collective == c && r.level == level)
        .map(|r| r.procs)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let total = uses_total_size(c);
    if total && let (Some(&lo), Some(&last)) = (sizes.first(), sizes.last()) {
        let hi = last.max(up_to);
        if hi - lo >= MAX_DENSE_SIZES {
            return Err(Error::TooLarge {
                library: LIBRARY,
                what: "range of communicator sizes of a scatter or gather",
                value: (hi - lo + 1) as u64,
                max: MAX_DENSE_SIZES as u64,
            });
        }
        sizes = (lo..=hi).collect();
    }
    let mut comm = Vec::new();
    for (i, &p) in sizes.iter().enumerate() {
        let key = match sizes.get(i + 1) {
            Some(&q) => format!("comm_size<={}", bound("communicator size", q as u64)?),
            None => "comm_size=any".to_owned(),
        };
        let rules = rules_for(table, c, level, p);
        if rules.first().is_some_and(|r| r.min_size.get() != 0) {
            return Err(Error::MissingZeroRule {
                collective: c.name(),
                level: level.name(),
                procs: p,
            });
        }
        let test = if total {
            "total_msg_size"
        } else {
            "avg_msg_size"
        };
        let mut msgs = Vec::new();
        for (j, r) in rules.iter().enumerate() {
            let key = match rules.get(j + 1) {
                Some(n) => {
                    let next = if total {
                        n.min_size.get().saturating_mul(p as u64)
                    } else {
                        n.min_size.get()
                    };
                    format!("{test}<={}", bound("message size", next)?)
                }
                None => format!("{test}=any"),
            };
            if !version.has(c, r.algorithm) {
                return Err(Error::NoEquivalent {
                    library: version.library(),
                    collective: c.name(),
                    algorithm: r.algorithm.name(),
                });
            }
            let (name, params) = algorithm_name(c, r.algorithm, r.segment)?;
            let leaf = Node::new(
                format!("algorithm={name}"),
                params
                    .into_iter()
                    .map(|p| Node::new(p, Vec::new()))
                    .collect(),
            );
            msgs.push(Node::new(key, vec![leaf]));
        }
        comm.push(Node::new(key, msgs));
    }
    Ok(comm)
}

/// Writes `table` as an MPICH JSON selection file for `options`' version (layout in the
/// [module docs](self)): every collective MPICH knows, topo-cluster's four from the table
/// with a branch for every kind of communicator, the others as MPICH's own table chooses.
///
/// # Errors
/// [`Error::NoProcesses`] for a job of no ranks, [`Error::JobNotCovered`] for a table whose
/// level under `comm_hierarchy=any` stops below the job's size, [`Error::LevelNotMapped`],
/// [`Error::NoEquivalent`] for a tree the version lacks, [`Error::MissingZeroRule`],
/// [`Error::TooLarge`] for a bound above `i32::MAX` or more than [`MAX_DENSE_SIZES`]
/// communicator sizes of a scatter or gather.
///
/// # Example
/// ```
/// use fabric_model::Bytes;
/// use topo_cluster::decision::Rule;
/// use topo_cluster::mpi::mpich::{Options, read, write};
/// use topo_cluster::{Algorithm, Collective, DecisionTable, Level};
/// let mut t = DecisionTable::new();
/// t.insert(Rule::new(Collective::Scatter, Level::IntraCluster, 4, Bytes::new(0), Algorithm::Binomial))?;
/// let json = write(&t, &Options::for_job(4))?;
/// assert!(json.contains("\"algorithm=MPIR_Scatter_intra_binomial\": {}"));
/// assert!(json.contains("\"collective=barrier\""));
/// // the file keeps bounds, not group sizes: read back, the rules start at one process
/// let back = read(&json, &Options::for_job(4))?;
/// assert_eq!(back.rules()[0].procs, 1);
/// assert_eq!(write(&back, &Options::for_job(1))?, json);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn write(table: &DecisionTable, options: &Options) -> Result<String, Error> {
    check_levels(table, &options.levels, LIBRARY)?;
    let version = options.version;
    let any_level = options.levels.one_level();
    check_job(table, any_level, options.job_size, LIBRARY)?;
    let mut top = Vec::new();
    for name in COLLECTIVES {
        let key = format!("collective={name}");
        // every name of COLLECTIVES has MPICH's branch (unit test every_collective_has_mpichs_branch)
        let Some(own) = builtin(version, name) else {
            continue;
        };
        let tuned = Collective::from_name(name)
            .filter(|&c| table.rules().iter().any(|r| r.collective == c));
        let Some(c) = tuned else {
            top.push(Node::new(key, own.branch()));
            continue;
        };
        let mut scopes = Vec::new();
        for (scope, level) in options.levels.scopes() {
            if scope == Scope::Any {
                continue;
            }
            let comm = level_branches(table, c, level, version, options.job_size)?;
            if !comm.is_empty() {
                scopes.push(Node::new(hierarchy_key(scope), comm));
            }
        }
        let any = level_branches(table, c, any_level, version, options.job_size)?;
        if any.is_empty() {
            // this level has no rules for c: MPICH's own choice for every communicator
            scopes.push(Node::new(hierarchy_key(Scope::Any), own.intra.clone()));
        } else {
            scopes.push(Node::new(hierarchy_key(Scope::Any), any));
        }
        let intra = match in_place(c) {
            // MPICH's choice in place first: the table's algorithm cannot run in place
            Some(alg) => vec![
                Node::new(IN_PLACE_YES, vec![leaf(alg)]),
                Node::new(IN_PLACE_NO, scopes),
            ],
            None => scopes,
        };
        let mut branch = vec![Node::new("comm_type=intra", intra)];
        if let Some(inter) = own.inter {
            branch.push(Node::new("comm_type=inter", inter));
        }
        top.push(Node::new(key, branch));
    }
    let mut out = String::new();
    render(&mut out, &top, 0);
    out.push('\n');
    Ok(out)
}

fn child(path: &str, key: &str) -> String {
    format!("{path}[{key:?}]")
}

fn fail<T>(path: &str, reason: impl Into<String>) -> Result<T, Error> {
    Err(Error::MpichParse {
        path: path.to_owned(),
        reason: reason.into(),
    })
}

fn object<'a>(v: &'a Json, path: &str) -> Result<&'a [(String, Json)], Error> {
    match v {
        Json::Object(e) => Ok(e),
        other => fail(path, format!("expected an object, found {}", other.kind())),
    }
}

fn int(v: &str, what: &str, path: &str) -> Result<u64, Error> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return fail(path, format!("{what} {v:?} is not a non-negative integer"));
    }
    match v.parse::<u64>() {
        Ok(n) if n <= INT_MAX => Ok(n),
        _ => fail(path, format!("{what} {v} exceeds {INT_MAX}")),
    }
}

/// One range of a `prefix<=N` / `prefix=any` chain: its lower end, its upper end (`None`
/// for `=any`), its path and value.
type Range<'a> = (u64, Option<u64>, String, &'a Json);

/// Ranges `prefix<=N` (N increasing) then `prefix=any`: for each, its lower end (`first`
/// first, else the previous N + 1), its upper end, its path and value.
fn ranges<'a>(
    entries: &'a [(String, Json)],
    path: &str,
    prefix: &str,
    first: u64,
) -> Result<Vec<Range<'a>>, Error> {
    let mut out = Vec::new();
    let mut lo = first;
    let mut done = false;
    for (key, value) in entries {
        let p = child(path, key);
        if done {
            return fail(
                &p,
                format!("follows \"{prefix}=any\", which catches everything"),
            );
        }
        if key == &format!("{prefix}=any") {
            out.push((lo, None, p, value));
            done = true;
        } else if let Some(n) = key.strip_prefix(&format!("{prefix}<=")) {
            let n = int(n, prefix, &p)?;
            if n < lo {
                return fail(
                    &p,
                    format!("bound {n} is below the range's start {lo} (never used)"),
                );
            }
            out.push((lo, Some(n), p, value));
            lo = n + 1;
        } else {
            return fail(&p, format!("expected \"{prefix}<=N\" or \"{prefix}=any\""));
        }
    }
    if !done {
        return fail(path, format!("the last test must be \"{prefix}=any\""));
    }
    Ok(out)
}

/// The parameters of an algorithm leaf as (key, value) pairs.
fn params<'a>(v: &'a Json, path: &str) -> Result<Vec<(&'a str, &'a str)>, Error> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for (key, value) in object(v, path)? {
        let p = child(path, key);
        if !object(value, &p)?.is_empty() {
            return fail(&p, "a parameter's object must be empty");
        }
        let Some((k, val)) = key.split_once('=') else {
            return fail(&p, "a parameter is \"key=value\"");
        };
        if out.iter().any(|&(o, _)| o == k) {
            return fail(&p, format!("parameter {k} is given twice"));
        }
        out.push((k, val));
    }
    Ok(out)
}

/// The topo-cluster tree of an MPICH algorithm leaf, as `version` reads it.
fn tree_of(
    version: Version,
    collective: Collective,
    name: &str,
    params: &[(&str, &str)],
    path: &str,
) -> Result<(Algorithm, Option<Bytes>), Error> {
    if version == Version::V4_0
        && (name == "MPIR_Bcast_intra_tree" || name == "MPIR_Bcast_intra_pipelined_tree")
    {
        return fail(
            path,
            format!(
                "{name} exists from MPICH 4.1 on: MPICH 4.0 aborts in MPI_Init (unrecognized key)"
            ),
        );
    }
    if let (Some(nb), Some(k)) = (
        params.iter().position(|&(k, _)| k == "is_non_blocking"),
        params.iter().position(|&(k, _)| k == "k"),
    ) && nb > k
    {
        return fail(
            path,
            "is_non_blocking after k: MPICH 4.1 stores is_non_blocking's value in k",
        );
    }
    let get = |k: &str| params.iter().find(|&&(o, _)| o == k).map(|&(_, v)| v);
    let only = |allowed: &[&str]| -> Result<(), Error> {
        match params.iter().find(|(k, _)| !allowed.contains(k)) {
            Some((k, _)) => fail(path, format!("parameter {k} is not read here")),
            None => Ok(()),
        }
    };
    let flag = |k: &str| -> Result<(), Error> {
        match get(k) {
            None | Some("0" | "1") => Ok(()),
            Some(v) => fail(path, format!("{k}={v} is neither 0 nor 1")),
        }
    };
    let kary = |path: &str| -> Result<u64, Error> {
        if get("tree_type") != Some("kary") {
            return fail(path, "only tree_type=kary trees are topo-cluster trees");
        }
        match get("k") {
            Some(k) => int(k, "k", path),
            None => fail(path, "a k-ary tree needs k"),
        }
    };
    let expected = match collective {
        Collective::Broadcast => "MPIR_Bcast_intra_",
        Collective::Scatter => "MPIR_Scatter_intra_",
        Collective::Gather => "MPIR_Gather_intra_",
        Collective::AllToAll => "MPIR_Alltoall_intra_",
    };
    let no_tree = || {
        fail(
            path,
            format!("{name} is no topo-cluster {} tree", collective.name()),
        )
    };
    let Some(kind) = name.strip_prefix(expected) else {
        return no_tree();
    };
    match (collective, kind) {
        (Collective::Broadcast, "tree") => {
            only(&["tree_type", "k", "is_non_blocking"])?;
            flag("is_non_blocking")?;
            match kary(path)? {
                1 => Ok((Algorithm::Chain, None)),
                2 => Ok((Algorithm::Binary, None)),
                k => fail(path, format!("a {k}-ary tree is no topo-cluster tree")),
            }
        }
        (Collective::Broadcast, "pipelined_tree") => {
            only(&[
                "tree_type",
                "k",
                "is_non_blocking",
                "chunk_size",
                "recv_pre_posted",
            ])?;
            flag("is_non_blocking")?;
            flag("recv_pre_posted")?;
            if kary(path)? != 1 {
                return fail(
                    path,
                    "only the pipelined 1-ary tree (a chain) is a topo-cluster tree",
                );
            }
            let chunk = match get("chunk_size") {
                Some(c) => int(c, "chunk_size", path)?,
                None => return fail(path, "a pipelined tree needs chunk_size"),
            };
            if chunk == 0 {
                return fail(path, "chunk_size must be positive");
            }
            Ok((Algorithm::SegmentedChain, Some(Bytes::new(chunk))))
        }
        (Collective::Broadcast | Collective::Scatter | Collective::Gather, "binomial") => {
            only(&[])?;
            Ok((Algorithm::Binomial, None))
        }
        (Collective::AllToAll, "pairwise") => {
            only(&[])?;
            Ok((Algorithm::Direct, None))
        }
        _ => no_tree(),
    }
}

/// Whether `json` is the object `nodes` render to.
fn same(json: &Json, nodes: &[Node]) -> bool {
    match json {
        Json::Object(e) => {
            e.len() == nodes.len()
                && e.iter()
                    .zip(nodes)
                    .all(|((k, v), n)| *k == n.key && same(v, &n.children))
        }
        _ => false,
    }
}

/// The rules of one `comm_hierarchy` branch of `collective`, into `level`.
fn read_level(
    table: &mut DecisionTable,
    version: Version,
    collective: Collective,
    level: Level,
    hv: &Json,
    hpath: &str,
) -> Result<(), Error> {
    let total = uses_total_size(collective);
    let (test, other) = if total {
        ("total_msg_size", "avg_msg_size")
    } else {
        ("avg_msg_size", "total_msg_size")
    };
    for (lo, hi, cpath, cv) in ranges(object(hv, hpath)?, hpath, "comm_size", 1)? {
        // a scatter's or gather's sizes are per communicator size: its range must be one size
        // (or the first range, up to its bound, or the last, from its start)
        let c = if total { hi.unwrap_or(lo) } else { lo };
        let procs = usize::try_from(c).map_err(|_| Error::MpichParse {
            path: cpath.clone(),
            reason: "communicator size too large".to_owned(),
        })?;
        let entries = object(cv, &cpath)?;
        if let Some((k, _)) = entries.iter().find(|(k, _)| k.starts_with(other)) {
            return fail(
                &child(&cpath, k),
                if total {
                    format!(
                        "MPICH defines no avg_msg_size for {} (it aborts in csel.c): use total_msg_size",
                        collective.name()
                    )
                } else {
                    format!("this writer uses avg_msg_size for {}", collective.name())
                },
            );
        }
        for (min, _, mpath, mv) in ranges(entries, &cpath, test, 0)? {
            let [(ak, av)] = object(mv, &mpath)? else {
                return fail(&mpath, "expected exactly one key, \"algorithm=NAME\"");
            };
            let apath = child(&mpath, ak);
            let Some(name) = ak.strip_prefix("algorithm=") else {
                return fail(&apath, "expected \"algorithm=NAME\"");
            };
            let (algorithm, seg) =
                tree_of(version, collective, name, &params(av, &apath)?, &apath)?;
            let block = if total { min.div_ceil(c.max(1)) } else { min };
            let rule =
                Rule::new(collective, level, procs, Bytes::new(block), algorithm).segment(seg);
            table.insert(rule).map_err(|e| Error::MpichParse {
                path: apath.clone(),
                reason: e.to_string(),
            })?;
        }
    }
    Ok(())
}

/// Reads an MPICH JSON selection file of the layout [`write()`] writes, as `options`'
/// version reads it.
///
/// Stricter than MPICH: every collective MPICH knows must be there, once (MPICH aborts when a
/// program calls one the file lacks); topo-cluster's four either as [`write()`] writes a
/// collective without rules or with the `comm_hierarchy` branches of the level map under
/// `comm_type=intra`, the last one `comm_hierarchy=any` (for a two-level map, the same as
/// `node_roots`), ranges in increasing order ending with `=any`, `total_msg_size` for scatter
/// and gather (MPICH defines no `avg_msg_size` for them) and `avg_msg_size` for the others,
/// algorithms that map to a topo-cluster tree and that the version has; the other
/// collectives as [`write()`] writes them. A `total_msg_size` bound b under communicator
/// size c reads as block size ⌈b / c⌉. The file keeps bounds, not the table's group sizes:
/// each collective's rules read back from one process up (the job's size in `options` is
/// not used), so they write again with [`Options::for_job`]`(1)`.
///
/// # Errors
/// [`Error::MpichParse`] with the JSON path (`$` and serde_json's line and column for a
/// syntax error).
///
/// # Complexity
/// O(n) in the file's size (and O(k²) for an object of k keys, to refuse duplicates).
pub fn read(text: &str, options: &Options) -> Result<DecisionTable, Error> {
    let root: Json = serde_json::from_str(text).map_err(|e| Error::MpichParse {
        path: "$".to_owned(),
        reason: e.to_string(),
    })?;
    let version = options.version;
    let mut table = DecisionTable::new();
    let mut seen: Vec<&str> = Vec::new();
    for (key, value) in object(&root, "$")? {
        let path = child("$", key);
        let Some((name, own)) = key
            .strip_prefix("collective=")
            .and_then(|n| COLLECTIVES.into_iter().find(|&k| k == n))
            .and_then(|n| Some((n, builtin(version, n)?)))
        else {
            return fail(
                &path,
                format!(
                    "expected \"collective=NAME\" with NAME a collective {} knows",
                    version.releases()
                ),
            );
        };
        if seen.contains(&name) {
            return fail(&path, "collective given twice");
        }
        seen.push(name);
        if same(value, &own.clone().branch()) {
            continue;
        }
        let Some(collective) = Collective::from_name(name) else {
            return fail(
                &path,
                format!("expected the branch this writer writes for {name}"),
            );
        };
        let entries = object(value, &path)?;
        let (intra_entry, rest) = match entries {
            [(k, v), rest @ ..] if k == "comm_type=intra" => ((k, v), rest),
            _ => return fail(&path, "expected \"comm_type=intra\" first"),
        };
        let top_path = path.clone();
        let mut path = child(&path, intra_entry.0);
        let mut hier = object(intra_entry.1, &path)?;
        if let Some(alg) = in_place(collective) {
            let [(yes, yv), (no, nv)] = hier else {
                return fail(
                    &path,
                    format!("expected \"{IN_PLACE_YES}\" then \"{IN_PLACE_NO}\""),
                );
            };
            if yes != IN_PLACE_YES || !same(yv, &[leaf(alg)]) {
                return fail(
                    &child(&path, yes),
                    format!("expected \"{IN_PLACE_YES}\" with {alg}, MPICH's choice in place"),
                );
            }
            if no != IN_PLACE_NO {
                return fail(&child(&path, no), format!("expected \"{IN_PLACE_NO}\""));
            }
            path = child(&path, no);
            hier = object(nv, &path)?;
        }
        let Some(((last_key, last_value), scoped)) = hier.split_last() else {
            return fail(&path, "no comm_hierarchy branch");
        };
        if last_key != hierarchy_key(Scope::Any) {
            return fail(
                &path,
                "the last branch must be \"comm_hierarchy=any\" (MPICH aborts for a communicator no branch matches)",
            );
        }
        let mut scopes_seen = Vec::new();
        let mut roots: Option<&Json> = None;
        for (hk, hv) in scoped {
            let hpath = child(&path, hk);
            let scope = [Scope::IntraNode, Scope::InterNode]
                .into_iter()
                .find(|&s| hierarchy_key(s) == hk)
                .ok_or_else(|| Error::MpichParse {
                    path: hpath.clone(),
                    reason: "expected comm_hierarchy=node or =node_roots before =any".to_owned(),
                })?;
            let level = options
                .levels
                .level(scope)
                .ok_or_else(|| Error::MpichParse {
                    path: hpath.clone(),
                    reason: format!("{hk} has no level in the level map"),
                })?;
            if scopes_seen.contains(&scope) {
                return fail(&hpath, "given twice");
            }
            scopes_seen.push(scope);
            if scope == Scope::InterNode {
                roots = Some(hv);
            }
            read_level(&mut table, version, collective, level, hv, &hpath)?;
        }
        let apath = child(&path, last_key);
        if options.levels.is_two_level() {
            let same_as_roots = match (roots, last_value) {
                (Some(Json::Object(a)), Json::Object(b)) => json_eq(a, b),
                (None, v) => same(v, &own.intra),
                _ => false,
            };
            if !same_as_roots {
                return fail(
                    &apath,
                    "with two levels the catch-all must repeat comm_hierarchy=node_roots",
                );
            }
        } else if !same(last_value, &own.intra) {
            read_level(
                &mut table,
                version,
                collective,
                options.levels.one_level(),
                last_value,
                &apath,
            )?;
        }
        match (rest, &own.inter) {
            ([], None) => {}
            ([(k, v)], Some(inter)) if k == "comm_type=inter" && same(v, inter) => {}
            _ => {
                return fail(
                    &top_path,
                    "expected \"comm_type=inter\" with MPICH's own inter-communicator branch after \"comm_type=intra\"",
                );
            }
        }
    }
    if let Some(name) = COLLECTIVES.iter().find(|n| !seen.contains(n)) {
        return fail(
            "$",
            format!("collective={name} is missing: MPICH aborts when a program calls it"),
        );
    }
    Ok(table)
}

/// Whether two objects have the same entries in the same order.
fn json_eq(a: &[(String, Json)], b: &[(String, Json)]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((ka, va), (kb, vb))| {
            ka == kb
                && match (va, vb) {
                    (Json::Object(x), Json::Object(y)) => json_eq(x, y),
                    _ => false,
                }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The job size of the tests whose tables stop at 8 processes or more.
    const JOB: usize = 8;
    use proptest::prelude::*;

    fn bcast(level: Level, procs: usize, m: u64, a: Algorithm, seg: Option<u64>) -> Rule {
        Rule::new(Collective::Broadcast, level, procs, Bytes::new(m), a)
            .segment(seg.map(Bytes::new))
    }

    fn two_level() -> Options {
        two_level_for(JOB)
    }

    fn two_level_for(job: usize) -> Options {
        Options::for_job(job).with_levels(
            LevelMap::two_level(Level::IntraMachine, Level::IntraCluster).expect("distinct"),
        )
    }

    #[test]
    fn writes_the_documented_layout() {
        let mut t = DecisionTable::new();
        for r in [
            bcast(Level::IntraCluster, 2, 0, Algorithm::Binomial, None),
            bcast(Level::IntraCluster, 8, 0, Algorithm::Binomial, None),
            bcast(
                Level::IntraCluster,
                8,
                16384,
                Algorithm::SegmentedChain,
                Some(1024),
            ),
        ] {
            t.insert(r).unwrap();
        }
        let o = Options::for_job(JOB).with_version(Version::V4_1);
        let json = write(&t, &o).unwrap();
        let doc = include_str!("mpich.rs");
        let start = doc.find("//! ```json\n").unwrap() + "//! ```json\n".len();
        let end = start + doc[start..].find("//! ```").unwrap();
        let want: String = doc[start..end]
            .lines()
            .map(|l| format!("{}\n", l.strip_prefix("//! ").unwrap_or("")))
            .collect();
        assert!(json.contains(&want), "{json}");
        let back = read(&json, &o).unwrap();
        assert_eq!(write(&back, &o).unwrap(), json);
        // the smallest group size is not in the file: it reads as 1
        assert_eq!(back.rules()[0].procs, 1);
    }

    #[test]
    fn two_levels_and_missing_trees() {
        let mut t = DecisionTable::new();
        for r in [
            bcast(Level::IntraMachine, 4, 0, Algorithm::Binomial, None),
            bcast(Level::IntraCluster, 8, 0, Algorithm::Binary, None),
            bcast(Level::IntraCluster, 8, 4096, Algorithm::Chain, None),
        ] {
            t.insert(r).unwrap();
        }
        let o = two_level().with_version(Version::V4_1);
        // the defect: MPICH 4.0 has no k-ary broadcast tree (MPI_Init aborts on its name)
        assert_eq!(
            write(&t, &two_level()),
            Err(Error::NoEquivalent {
                library: "MPICH 4.0",
                collective: "bcast",
                algorithm: "binary"
            })
        );
        let json = write(&t, &o).unwrap();
        assert!(json.contains("\"comm_hierarchy=node\""));
        assert!(json.contains("\"comm_hierarchy=node_roots\""));
        assert!(json.contains("\"k=2\": {}"));
        let back = read(&json, &o).unwrap();
        // the file keeps no group size beyond its bounds (the largest is `comm_size=any`):
        // read back, the rules start at one process, a table for a job of one rank
        assert!(matches!(
            write(&back, &o),
            Err(Error::JobNotCovered {
                largest: 1,
                job: JOB,
                ..
            })
        ));
        let one = two_level_for(1).with_version(Version::V4_1);
        assert_eq!(write(&back, &one).unwrap(), json);
        assert!(matches!(
            read(&json, &Options::for_job(JOB).with_version(Version::V4_1)),
            Err(Error::MpichParse { path, .. }) if path == r#"$["collective=bcast"]["comm_type=intra"]["comm_hierarchy=node"]"#
        ));
        // the defect: without a catch-all MPICH aborts on MPI_COMM_WORLD (a parent
        // communicator): the catch-all repeats the inter-node level
        let bc = json.find("\"collective=bcast\"").unwrap();
        let start = bc + json[bc..].find("\"comm_hierarchy=any\"").unwrap();
        let roots = bc + json[bc..].find("\"comm_hierarchy=node_roots\"").unwrap();
        assert!(roots < start);
        let body = |at: usize| {
            let s = &json[at..];
            let s = &s[s.find(':').unwrap()..];
            s[..s.find("\n            }").unwrap()].to_owned()
        };
        assert_eq!(body(start), body(roots));
        let mut f = DecisionTable::new();
        f.insert(bcast(Level::IntraCluster, 4, 0, Algorithm::Flat, None))
            .unwrap();
        assert_eq!(
            write(&f, &Options::for_job(4)),
            Err(Error::NoEquivalent {
                library: "MPICH 4.0",
                collective: "bcast",
                algorithm: "flat"
            })
        );
    }

    fn path_err(json: &str) -> (String, String) {
        match read(json, &Options::for_job(JOB)) {
            Err(Error::MpichParse { path, reason }) => (path, reason),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn bad_files_name_their_path() {
        let wrap = |inner: &str| {
            format!(
                r#"{{"collective=bcast": {{"comm_type=intra": {{"comm_hierarchy=any": {{"comm_size=any": {inner}}}}}, "comm_type=inter": {{"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {{}}}}}}}}"#
            )
        };
        let at =
            r#"$["collective=bcast"]["comm_type=intra"]["comm_hierarchy=any"]["comm_size=any"]"#;
        let cases: Vec<(String, String, &str)> = vec![
            ("{".into(), "$".into(), "EOF"),
            ("[]".into(), "$".into(), "found an array"),
            (
                r#"{"collective=reduce": {}}"#.into(),
                r#"$["collective=reduce"]"#.into(),
                "the branch this writer writes for reduce",
            ),
            (
                r#"{"collective=frobnicate": {}}"#.into(),
                r#"$["collective=frobnicate"]"#.into(),
                "a collective MPICH 4.0.x knows",
            ),
            (
                r#"{"collective=bcast": {"comm_type=inter": {}}}"#.into(),
                r#"$["collective=bcast"]"#.into(),
                "\"comm_type=intra\" first",
            ),
            (
                r#"{"collective=bcast": {"comm_type=intra": {"comm_hierarchy=node": {}}}}"#.into(),
                r#"$["collective=bcast"]["comm_type=intra"]"#.into(),
                "the last branch must be \"comm_hierarchy=any\"",
            ),
            (
                wrap(
                    r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_tree": {"tree_type=kary": {}, "k=2": {}}}}"#,
                ),
                format!(r#"{at}["avg_msg_size=any"]["algorithm=MPIR_Bcast_intra_tree"]"#),
                "MPICH 4.0 aborts in MPI_Init",
            ),
            (
                wrap(r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}"#),
                "$".into(),
                "collective=allgather is missing",
            ),
            (
                r#"{"collective=scatter": {"comm_type=intra": {"comm_hierarchy=any": {"comm_size=any": {"avg_msg_size=any": {"algorithm=MPIR_Scatter_intra_binomial": {}}}}}}}"#.into(),
                r#"$["collective=scatter"]["comm_type=intra"]["comm_hierarchy=any"]["comm_size=any"]["avg_msg_size=any"]"#.into(),
                "no avg_msg_size for scatter",
            ),
            (wrap("{}"), at.into(), "must be \"avg_msg_size=any\""),
            (
                wrap(
                    r#"{"avg_msg_size<=9": {"algorithm=MPIR_Bcast_intra_binomial": {}}, "avg_msg_size<=5": {}}"#,
                ),
                format!(r#"{at}["avg_msg_size<=5"]"#),
                "below the range's start 10",
            ),
            (
                wrap(r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_smp": {}}}"#),
                format!(r#"{at}["avg_msg_size=any"]["algorithm=MPIR_Bcast_intra_smp"]"#),
                "no topo-cluster bcast tree",
            ),
            (
                wrap(
                    r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {"k=1": 3}}}"#,
                ),
                format!(
                    r#"{at}["avg_msg_size=any"]["algorithm=MPIR_Bcast_intra_binomial"]["k=1"]"#
                ),
                "found a number",
            ),
            (
                wrap(
                    r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}, "avg_msg_size<=3": {}}"#,
                ),
                format!(r#"{at}["avg_msg_size<=3"]"#),
                "catches everything",
            ),
            (
                wrap(r#"{"avg_msg_size<=99999999999": {}}"#),
                format!(r#"{at}["avg_msg_size<=99999999999"]"#),
                "exceeds",
            ),
            (
                r#"{"collective=exscan": {"algorithm=MPIR_Exscan_intra_recursive_doubling": {}}, "collective=exscan": {}}"#.into(),
                r#"$["collective=exscan"]"#.into(),
                "twice",
            ),
        ];
        for (json, path, want) in cases {
            let (p, reason) = path_err(&json);
            assert_eq!(p, path, "{json}: {reason}");
            assert!(reason.contains(want), "{json}: {reason}");
        }
        // the k-ary trees of MPICH 4.1
        let v41 = Options::for_job(JOB).with_version(Version::V4_1);
        for (inner, want) in [
            (
                r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_tree": {"tree_type=kary": {}, "k=3": {}}}}"#,
                "3-ary",
            ),
            (
                r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_pipelined_tree": {"tree_type=kary": {}, "k=1": {}}}}"#,
                "needs chunk_size",
            ),
            (
                r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_tree": {"tree_type=kary": {}, "k=2": {}, "is_non_blocking=0": {}}}}"#,
                "stores is_non_blocking's value in k",
            ),
        ] {
            match read(&wrap(inner), &v41) {
                Err(Error::MpichParse { path, reason }) => {
                    assert!(
                        path.ends_with(r#"["algorithm=MPIR_Bcast_intra_tree"]"#)
                            || path.ends_with(r#"["algorithm=MPIR_Bcast_intra_pipelined_tree"]"#),
                        "{path}"
                    );
                    assert!(reason.contains(want), "{inner}: {reason}");
                }
                other => panic!("expected an error, got {other:?}"),
            }
        }
    }

    /// The trees the format has.
    const TREES: [(Collective, Algorithm); 7] = [
        (Collective::Broadcast, Algorithm::Chain),
        (Collective::Broadcast, Algorithm::SegmentedChain),
        (Collective::Broadcast, Algorithm::Binary),
        (Collective::Broadcast, Algorithm::Binomial),
        (Collective::Scatter, Algorithm::Binomial),
        (Collective::Gather, Algorithm::Binomial),
        (Collective::AllToAll, Algorithm::Direct),
    ];

    /// Every collective MPICH knows has MPICH's own branch, and the file writes each of
    /// them once.
    #[test]
    fn every_collective_has_mpichs_branch() {
        for version in [Version::V4_0, Version::V4_1] {
            let json = write(
                &DecisionTable::new(),
                &Options::for_job(1).with_version(version),
            )
            .unwrap();
            for name in COLLECTIVES {
                assert!(builtin(version, name).is_some(), "{name}");
                assert_eq!(json.matches(&format!("\"collective={name}\"")).count(), 1);
            }
            assert!(builtin(version, "allreduce_init").is_none());
        }
    }

    /// The collectives topo-cluster does not tune get MPICH's own choice (its default table
    /// at 4.0.2 and 4.1), as the model of its selection walks the file, on both sides of
    /// each of its boundaries.
    #[test]
    fn untuned_collectives_get_mpichs_own_choice() {
        let mut t = DecisionTable::new();
        t.insert(bcast(Level::IntraCluster, 4, 0, Algorithm::Binomial, None))
            .unwrap();
        for version in [Version::V4_0, Version::V4_1] {
            let json = write(&t, &Options::for_job(4).with_version(version)).unwrap();
            let alg = |c: &str, kind: &str, procs: u64, count: u64| {
                mpich_choice(&json, &Call::new(c, kind, procs, count)).map(|(n, _)| n)
            };
            let with = |call: Call<'_>| mpich_choice(&json, &call).map(|(n, _)| n);
            let is = |name: &str| Some(name.to_owned());
            let rd = is("MPIR_Allreduce_intra_recursive_doubling");
            let rsag = is("MPIR_Allreduce_intra_reduce_scatter_allgather");
            assert_eq!(alg("allreduce", "flat", 4, 4), rd);
            assert_eq!(alg("allreduce", "flat", 4, 8), rd);
            assert_eq!(alg("allreduce", "flat", 4, 9), rsag);
            assert_eq!(alg("allreduce", "flat", 16, 16), rsag);
            assert_eq!(alg("allreduce", "flat", 16, 1 << 20), rsag);
            // 15 bytes on 16 ranks, 7 on 12: above 8 bytes or not, below the power of two
            assert_eq!(alg("allreduce", "flat", 16, 15), rd);
            assert_eq!(alg("allreduce", "flat", 12, 9), rsag);
            assert_eq!(alg("allreduce", "flat", 12, 7), rd);
            assert_eq!(
                alg("allreduce", "flat", 4, 0),
                is("MPIR_Allreduce_intra_smp")
            );
            assert_eq!(
                with(Call::new("allreduce", "flat", 4, 64).op(true, false)),
                rd
            );
            assert_eq!(alg("barrier", "parent", 8, 0), is("MPIR_Barrier_intra_smp"));
            let flat = match version {
                Version::V4_0 => "MPIR_Barrier_intra_dissemination",
                Version::V4_1 => "MPIR_Barrier_intra_k_dissemination",
            };
            assert_eq!(alg("barrier", "flat", 8, 0), is(flat));

            // allgather(v): the total is block x p; 512 KiB on a power of two, 80 KiB else
            for v in ["", "v"] {
                let c = format!("allgather{v}");
                let name = |a: &str| is(&format!("MPIR_Allgather{v}_intra_{a}"));
                assert_eq!(alg(&c, "flat", 4, 131_071), name("recursive_doubling"));
                assert_eq!(alg(&c, "flat", 4, 131_072), name("ring"));
                assert_eq!(alg(&c, "flat", 5, 16_383), name("brucks"));
                assert_eq!(alg(&c, "flat", 5, 16_384), name("ring"));
            }
            // reduce: binomial to 2 KiB, then reduce-scatter + gather (count >= pow2)
            let binomial = is("MPIR_Reduce_intra_binomial");
            let rsg = is("MPIR_Reduce_intra_reduce_scatter_gather");
            assert_eq!(alg("reduce", "flat", 4, 2048), binomial);
            assert_eq!(alg("reduce", "flat", 4, 2049), rsg);
            assert_eq!(alg("reduce", "parent", 4, 2049), rsg);
            assert_eq!(alg("reduce", "parent", 4, 0), is("MPIR_Reduce_intra_smp"));
            assert_eq!(
                with(Call::new("reduce", "flat", 4, 4096).op(true, false)),
                binomial
            );
            // reduce_scatter(_block): a commutative operation by total size, else by p
            for b in ["", "_block"] {
                let c = format!("reduce_scatter{b}");
                let name = |a: &str| is(&format!("MPIR_Reduce_scatter{b}_intra_{a}"));
                assert_eq!(alg(&c, "flat", 4, 131_071), name("recursive_halving"));
                assert_eq!(alg(&c, "flat", 4, 131_072), name("pairwise"));
                let nc = |p| with(Call::new(&c, "flat", p, 64).op(false, true));
                assert_eq!(nc(4), name("noncommutative"));
                assert_eq!(nc(6), name("recursive_doubling"));
            }
            let irregular = Call {
                block_regular: false,
                ..Call::new("reduce_scatter", "flat", 4, 64).op(false, true)
            };
            assert_eq!(
                with(irregular),
                is("MPIR_Reduce_scatter_intra_recursive_doubling")
            );
            // alltoall(v/w): in place, sendrecv_replace; alltoall by p and size
            let a2a = |a: &str| is(&format!("MPIR_Alltoall_intra_{a}"));
            assert_eq!(alg("alltoall", "flat", 4, 32_768), a2a("scattered"));
            assert_eq!(alg("alltoall", "flat", 4, 32_769), a2a("pairwise"));
            assert_eq!(alg("alltoall", "flat", 8, 256), a2a("brucks"));
            assert_eq!(alg("alltoall", "flat", 8, 257), a2a("scattered"));
            for w in ["v", "w"] {
                let c = format!("alltoall{w}");
                let name = |a: &str| is(&format!("MPIR_Alltoall{w}_intra_{a}"));
                assert_eq!(alg(&c, "flat", 4, 64), name("scattered"));
                let inplace = Call {
                    inplace: true,
                    ..Call::new(&c, "flat", 4, 64)
                };
                assert_eq!(with(inplace), name("pairwise_sendrecv_replace"));
            }
            // scan: SMP-aware on node-consecutive ranks; one algorithm for the v-forms
            assert_eq!(alg("scan", "flat", 4, 64), is("MPIR_Scan_intra_smp"));
            let scattered = Call {
                node_consecutive: false,
                ..Call::new("scan", "flat", 4, 64)
            };
            assert_eq!(with(scattered), is("MPIR_Scan_intra_recursive_doubling"));
            assert_eq!(
                alg("exscan", "flat", 4, 64),
                is("MPIR_Exscan_intra_recursive_doubling")
            );
            assert_eq!(
                alg("gatherv", "flat", 4, 64),
                is("MPIR_Gatherv_allcomm_linear")
            );
            assert_eq!(
                alg("scatterv", "flat", 4, 64),
                is("MPIR_Scatterv_allcomm_linear")
            );
            // the non-blocking all-reduce: recursive doubling up to 2 KiB
            assert_eq!(
                alg("iallreduce", "flat", 4, 2049),
                is("MPIR_Iallreduce_intra_sched_reduce_scatter_allgather")
            );
            // inter-communicators: gather by total size
            let inter = |count| Call {
                inter: true,
                ..Call::new("gather", "flat", 4, count)
            };
            assert_eq!(
                with(inter(511)),
                is("MPIR_Gather_inter_local_gather_remote_send")
            );
            assert_eq!(with(inter(512)), is("MPIR_Gather_inter_linear"));
            // and it reads back
            assert!(read(&json, &Options::for_job(1).with_version(version)).is_ok());
        }
        // a table without broadcast rules: MPICH's own broadcast, with its size boundaries
        let mut t = DecisionTable::new();
        t.insert(Rule::new(
            Collective::Scatter,
            Level::IntraCluster,
            4,
            Bytes::new(0),
            Algorithm::Binomial,
        ))
        .unwrap();
        let json = write(&t, &Options::for_job(4)).unwrap();
        let alg = |procs: u64, count: u64| {
            mpich_choice(&json, &Call::new("bcast", "flat", procs, count)).map(|(n, _)| n)
        };
        let b = |a: &str| Some(format!("MPIR_Bcast_intra_{a}"));
        assert_eq!(alg(4, 1 << 20), b("binomial"));
        assert_eq!(alg(8, 12_288), b("binomial"));
        assert_eq!(alg(8, 12_289), b("scatter_recursive_doubling_allgather"));
        assert_eq!(alg(8, 524_289), b("scatter_ring_allgather"));
        assert_eq!(alg(12, 12_289), b("scatter_ring_allgather"));
    }

    /// A tuned all-to-all called in place runs MPICH's own in-place algorithm: the table's
    /// pairwise one needs a send buffer (MPICH 4.0.2 killed the program under a file that
    /// sent it there); out of place, the table's choice. A file without the in-place branch,
    /// or with another algorithm there, is refused.
    #[test]
    fn in_place_all_to_all_gets_mpichs_choice() {
        let mut t = DecisionTable::new();
        t.insert(Rule::new(
            Collective::AllToAll,
            Level::IntraCluster,
            4,
            Bytes::new(0),
            Algorithm::Direct,
        ))
        .unwrap();
        let o = Options::for_job(4);
        let json = write(&t, &o).unwrap();
        let call = Call::new("alltoall", "parent", 4, 64);
        let alg = |call: Call<'_>| mpich_choice(&json, &call).map(|(n, _)| n);
        assert_eq!(
            alg(Call {
                inplace: true,
                ..call
            }),
            Some("MPIR_Alltoall_intra_pairwise_sendrecv_replace".to_owned())
        );
        assert_eq!(alg(call), Some("MPIR_Alltoall_intra_pairwise".to_owned()));
        assert!(read(&json, &o).is_ok());
        let other = json.replacen(
            "\"is_sendbuf_inplace=yes\": {\n                \"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace\"",
            "\"is_sendbuf_inplace=yes\": {\n                \"algorithm=MPIR_Alltoall_intra_pairwise\"",
            1,
        );
        assert_ne!(other, json);
        let (path, reason) = path_err(&other);
        assert_eq!(
            path,
            r#"$["collective=alltoall"]["comm_type=intra"]["is_sendbuf_inplace=yes"]"#
        );
        assert!(reason.contains("sendrecv_replace"), "{reason}");
    }

    /// One call as MPICH's selection sees it: the collective, the communicator (its
    /// hierarchy kind `parent`, `node`, `node_roots` or `flat`, its size, intra or inter),
    /// `count` bytes per rank (MPI_BYTE), and the call's properties the table tests.
    #[derive(Clone, Copy)]
    struct Call<'a> {
        collective: &'a str,
        kind: &'a str,
        procs: u64,
        count: u64,
        inter: bool,
        inplace: bool,
        commutative: bool,
        built_in: bool,
        block_regular: bool,
        node_consecutive: bool,
    }

    impl<'a> Call<'a> {
        /// On an intra-communicator, not in place, a built-in commutative operation,
        /// equal blocks, each node's ranks consecutive.
        fn new(collective: &'a str, kind: &'a str, procs: u64, count: u64) -> Self {
            Self {
                collective,
                kind,
                procs,
                count,
                inter: false,
                inplace: false,
                commutative: true,
                built_in: true,
                block_regular: true,
                node_consecutive: true,
            }
        }

        fn op(self, commutative: bool, built_in: bool) -> Self {
            Self {
                commutative,
                built_in,
                ..self
            }
        }
    }

    /// MPICH 4.0's selection (`csel.c`), modelled independently of [`read`]: the first key
    /// whose test holds is followed; the algorithm leaf reached (its name and parameters),
    /// or `None` where MPICH would abort (no branch holds, a key it does not know, or
    /// `avg_msg_size` for a collective it does not define it for).
    fn mpich_choice(json: &str, call: &Call<'_>) -> Option<(String, Vec<String>)> {
        let yes = |b: bool| if b { "yes" } else { "no" };
        let root: Json = serde_json::from_str(json).ok()?;
        let mut node = &root;
        let total = call.count * call.procs;
        loop {
            let Json::Object(entries) = node else {
                return None;
            };
            let mut next = None;
            for (k, v) in entries {
                if let Some(name) = k.strip_prefix("algorithm=") {
                    let Json::Object(params) = v else { return None };
                    return Some((
                        name.to_owned(),
                        params.iter().map(|(p, _)| p.clone()).collect(),
                    ));
                }
                let (test, op, value) = if let Some((t, v)) = k.split_once("<=") {
                    (t, "<=", v)
                } else if let Some((t, v)) = k.split_once('=') {
                    (t, "=", v)
                } else if let Some((t, v)) = k.split_once('<') {
                    (t, "<", v)
                } else {
                    return None;
                };
                let n = value.parse::<u64>().ok();
                let cmp = |x: u64| match (op, n) {
                    ("<=", Some(n)) => Some(x <= n),
                    ("<", Some(n)) => Some(x < n),
                    _ => None,
                };
                let holds = match (test, op, value) {
                    ("collective", "=", c) => c == call.collective,
                    ("comm_type", "=", t) => t == if call.inter { "inter" } else { "intra" },
                    ("comm_hierarchy", "=", h) => h == "any" || h == call.kind,
                    (_, "=", "any") => true,
                    ("is_commutative", "=", v) => v == yes(call.commutative),
                    ("is_op_built_in", "=", v) => v == yes(call.built_in),
                    ("is_sendbuf_inplace", "=", v) => v == yes(call.inplace),
                    ("is_block_regular", "=", v) => v == yes(call.block_regular),
                    ("is_node_consecutive", "=", v) => v == yes(call.node_consecutive),
                    // the count (bytes here) below the largest power of two <= procs
                    ("count", "<", "pow2") => call.count < 1 << call.procs.ilog2(),
                    ("comm_size", "=", "pow2") => call.procs.is_power_of_two(),
                    ("comm_size", _, _) => cmp(call.procs)?,
                    ("avg_msg_size", _, _) => {
                        let defined = [
                            "allreduce",
                            "iallreduce",
                            "bcast",
                            "ibcast",
                            "reduce",
                            "ireduce",
                            "alltoall",
                            "ialltoall",
                        ];
                        if !defined.contains(&call.collective) {
                            return None; // csel.c aborts: undefined for it
                        }
                        cmp(call.count)?
                    }
                    ("total_msg_size", _, _) => cmp(total)?,
                    _ => return None, // a key this model does not know
                };
                if holds {
                    next = Some(v);
                    break;
                }
            }
            node = next?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// What MPICH makes of the file is what the table means: for every collective, every
        /// communicator size from the table's smallest group size to the job's size and every
        /// size around
        /// the table's boundaries, MPICH's selection on `MPI_COMM_WORLD` (a parent
        /// communicator: the catch-all) reaches the algorithm of the table's lookup; and every
        /// collective MPICH knows reaches an algorithm.
        #[test]
        fn mpich_follows_the_table(picks in proptest::collection::vec((0..TREES.len(), 0_usize..5, 0_u64..3, 1_u64..(1 << 20)), 1..40), two in any::<bool>()) {
            let job = 12;
            let t = crate::mpi::testing::job_table(&TREES, picks, job);
            let o = if two { two_level_for(job) } else { Options::for_job(job) }
                .with_version(Version::V4_1);
            let json = write(&t, &o).unwrap();
            for c in Collective::ALL {
                let Some((min_p, sizes)) = crate::mpi::testing::probes(&t, c) else { continue };
                let max_p = job;
                for p in min_p..=max_p {
                    for &m in &sizes {
                        let want = t.lookup(c, Level::IntraCluster, p, Bytes::new(m)).unwrap();
                        let (name, params) = algorithm_name(c, want.algorithm, want.segment).unwrap();
                        let got = mpich_choice(&json, &Call::new(c.name(), "parent", p as u64, m));
                        prop_assert_eq!(got, Some((name.to_owned(), params)), "{} P={} m={}", c, p, m);
                    }
                }
            }
            for name in COLLECTIVES {
                prop_assert!(mpich_choice(&json, &Call::new(name, "parent", 5, 64)).is_some(), "{}", name);
            }
        }

        /// MPICH never aborts on a file the writer wrote: every call of every collective it
        /// knows, on an intra- or inter-communicator of any hierarchy kind and size, with any
        /// size, operation, in-place or block layout, reaches an algorithm, and every size
        /// test on the way is one MPICH defines for that collective.
        #[test]
        fn every_call_reaches_an_algorithm(
            picks in proptest::collection::vec((0..TREES.len(), 0_usize..5, 0_u64..3, 1_u64..(1 << 20)), 1..12),
            two in any::<bool>(),
            version in prop_oneof![Just(Version::V4_0), Just(Version::V4_1)],
            calls in proptest::collection::vec((0_usize..4, 1_u64..40, 0_u64..(1 << 21), any::<[bool; 6]>()), 1..24),
        ) {
            let job = 12;
            let mut trees = TREES.to_vec();
            if version == Version::V4_0 {
                trees.retain(|&(c, a)| version.has(c, a));
            }
            let picks = picks.into_iter().map(|(i, p, k, m)| (i % trees.len(), p, k, m)).collect();
            let t = crate::mpi::testing::job_table(&trees, picks, job);
            let o = if two { two_level_for(job) } else { Options::for_job(job) }.with_version(version);
            let json = write(&t, &o).unwrap();
            for (kind, procs, count, [inter, inplace, commutative, built_in, regular, consecutive]) in calls {
                for name in COLLECTIVES {
                    let call = Call {
                        inter,
                        inplace,
                        commutative,
                        built_in,
                        block_regular: regular,
                        node_consecutive: consecutive,
                        ..Call::new(name, ["parent", "node", "node_roots", "flat"][kind], procs, count)
                    };
                    prop_assert!(mpich_choice(&json, &call).is_some(), "{} {:?}", name, (kind, procs, count));
                }
            }
        }

        /// write → read → write is the identity on the text, for one and two levels, and what
        /// is read back answers every lookup as the table did.
        #[test]
        fn write_read_write(rules in proptest::collection::vec(crate::mpi::testing::rule(&TREES, 1 << 22), 0..24), two in any::<bool>()) {
            let t = crate::mpi::testing::table(rules, two);
            // a job of one rank: every table covers it (the property is the round trip)
            let o = if two { two_level_for(1) } else { Options::for_job(1) }.with_version(Version::V4_1);
            let json = write(&t, &o).unwrap();
            let back = read(&json, &o).unwrap();
            crate::mpi::testing::same_choices(&t, &back)?;
            prop_assert_eq!(write(&back, &o).unwrap(), json);
        }
    }
}
