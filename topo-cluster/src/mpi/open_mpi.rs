//! Open MPI's `coll_tuned` dynamic rules file: the file named by the MCA parameter
//! `coll_tuned_dynamic_rules_filename` (read when `coll_tuned_use_dynamic_rules` is true).
//!
//! The file is a stack of counts and values, separated by white space, `#` starting a comment
//! to the end of the line:
//!
//! ```text
//! 1 # number of collectives
//! 7 # collective id: bcast
//! 2 # number of communicator sizes
//! 2 # communicator size
//! 1 # number of message size rules
//! 0 6 0 0 # from 0 bytes: algorithm 6 (binomial), faninout 0, segment size 0
//! 8 # communicator size
//! 2 # number of message size rules
//! 0 6 0 0 # binomial
//! 16384 3 0 1024 # pipeline (seg-chain) in 1024-byte segments
//! ```
//!
//! A communicator-size entry applies from its size up to the next one's, the first one also
//! below its size; a message-size rule from its size up to the next one's; the first rule of
//! every communicator size must be for size 0. The mapping of algorithms is the table of
//! [`crate::mpi`].
//!
//! # Versions ([`Version`]) and layouts ([`Layout`])
//! - [`Version::V4_1`] (the default; Open MPI 4.1.0 to 4.1.7 and 5.0.0 to 5.0.6, Debian 12's
//!   4.1.4 among them): [`Layout::Classic`] only, four numbers per rule. These releases read
//!   a `rule-file-version-2` line as numbers (the `-2` is a negative count) and silently fall
//!   back to their fixed rules, so [`write()`] refuses [`Layout::MaxRequests`] for them.
//! - [`Version::V4_1_8`] (Open MPI 4.1.8 and later 4.1 releases, 5.0.7 and later): also
//!   [`Layout::MaxRequests`], the file opening with `rule-file-version-2` and every rule
//!   having a fifth number, the maximum of outstanding requests (read by the all-to-all
//!   `linear_sync` only). The value comes from [`Options::with_max_requests`]; the reader
//!   checks it and does not keep it (no tree of topo-cluster uses it).
//!
//! The crate's conformance test ran both on the libraries: Debian 12's 4.1.4 follows the
//! classic files and ignores a `rule-file-version-2` file; Debian 13's 5.0.7 follows both
//! layouts (its `coll/tuned`, built into `libmpi`, on one machine: `coll/han` leaves a
//! communicator of one machine to it), and neither follows a file corrupted after writing.
//!
//! # Message sizes per collective
//! Open MPI compares a rule's message size with the bytes of the call: for bcast the
//! message (count × type size), but for scatter, gather and all-to-all the block a rank
//! sends or receives **times the communicator size**. The table's sizes are per block, so
//! for these three collectives the writer writes m × c under communicator size c, with an
//! entry for every communicator size c from the table's smallest group size to its largest
//! (the rules of c are those the table's lookup gives for c), which is at least the job's
//! size ([`Options::for_job`]; [`write()`] refuses a table that stops below it): the file
//! then means the table's choice for every communicator of the job from the smallest group
//! size on. Above that, the last entry's
//! thresholds m × c_max apply, a block threshold of m × c_max / c (below the smallest group
//! size, m × c_min / c). Open MPI computes
//! the size from the send count and type on every rank, the root included: a program must
//! pass the same send arguments on every rank (MPI lets non-roots pass anything), or ranks
//! may choose different algorithms.
//!
//! # Topology levels
//! No released Open MPI tells communicators apart by anything but their size (4.1.x and
//! 5.0.x read the message size with `fscanf`'s `%li` and drop any text after it character
//! by character, so tags like `0@singlenode` from an unreleased 2024 branch merge both
//! levels' rules, the later line winning). The writer therefore writes one level, untagged:
//! the map's single level, or for a two-level map its **inter-node** level (the
//! communicators that span machines, which is what `MPI_COMM_WORLD` of a job over several
//! machines is, and what Open MPI's `coll/han` hands to `coll/tuned` between machines). For a
//! job on one machine, use `LevelMap::single(Level::IntraMachine)`. The reader refuses tags.
//! Compute the table over every communicator size the job will have
//! ([`crate::Hierarchy::communicator_sizes`]), since the file has nothing else.
//!
//! Not confirmed: Open MPI's main branch (2025) reads a communicator size in the classic
//! layout as the upper end of a range (a size-8 entry following a size-2 entry covers 2 to 7)
//! where the releases (and this module) take it as the lower end. Files whose communicator
//! sizes all have the same rules read the same either way.

use std::fmt::Write as _;

use fabric_model::Bytes;

use crate::decision::Rule;
use crate::mpi::{LevelMap, check_job, check_levels, rules_for};
use crate::{Algorithm, Collective, DecisionTable, Error, Level};

const LIBRARY: &str = "Open MPI";
/// Open MPI's `COLLCOUNT`: collective ids are below it.
const COLLECTIVE_COUNT: u64 = 22;
/// The version line of [`Layout::MaxRequests`].
pub const VERSION_2: &str = "rule-file-version-2";
const INT_MAX: u64 = i32::MAX as u64;
const LONG_MAX: u64 = i64::MAX as u64;

/// The Open MPI releases a file is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Version {
    /// Open MPI 4.1.0 to 4.1.7 and 5.0.0 to 5.0.6 (Debian 12 ships 4.1.4): the classic
    /// layout only.
    #[default]
    V4_1,
    /// Open MPI 4.1.8 and later 4.1 releases, 5.0.7 and later: the classic layout or
    /// `rule-file-version-2`.
    V4_1_8,
}

impl Version {
    /// Whether this version reads `layout`.
    #[must_use]
    pub const fn reads(self, layout: Layout) -> bool {
        match (self, layout) {
            (_, Layout::Classic) | (Self::V4_1_8, Layout::MaxRequests) => true,
            (Self::V4_1, Layout::MaxRequests) => false,
        }
    }

    /// The releases, in words.
    #[must_use]
    pub const fn releases(self) -> &'static str {
        match self {
            Self::V4_1 => "Open MPI 4.1.0-4.1.7, 5.0.0-5.0.6",
            Self::V4_1_8 => "Open MPI >= 4.1.8, >= 5.0.7",
        }
    }

    /// The trees of `collective` this version has: the candidates to compute its table
    /// among ([`crate::decision::Compute::among`]). The same for every released version.
    #[must_use]
    pub fn trees(self, collective: Collective) -> Vec<Algorithm> {
        trees(collective)
    }
}

/// The layout of a rules file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Layout {
    /// No version line, four numbers per rule.
    #[default]
    Classic,
    /// `rule-file-version-2` first, a fifth number per rule (maximum outstanding requests).
    MaxRequests,
}

/// What [`write()`] writes and how [`read`] places the rules, for a job of a given size.
///
/// The job's size is required ([`Options::for_job`]): Open MPI tells communicators apart by
/// their size only, and applies the entry of the largest communicator size at or below a
/// communicator's to it, so a file whose largest entry is smaller than the job would give
/// the job's `MPI_COMM_WORLD` the rules of a smaller communicator. [`write()`] refuses such a
/// table ([`Error::JobNotCovered`]), and writes scatter, gather and all-to-all entries for
/// every communicator size up to the job's. The reader does not use the job's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    version: Version,
    layout: Layout,
    levels: LevelMap,
    max_requests: u32,
    job_size: usize,
}

impl Options {
    /// The options for a job of `ranks` ranks (the size of its `MPI_COMM_WORLD`):
    /// [`Version::V4_1`], [`Layout::Classic`], every rule from [`Level::IntraCluster`],
    /// max requests 0. Compute the table over every communicator size the job will have
    /// ([`crate::Hierarchy::communicator_sizes`], which ends with `ranks`).
    #[must_use]
    pub const fn for_job(ranks: usize) -> Self {
        Self {
            version: Version::V4_1,
            layout: Layout::Classic,
            levels: LevelMap::single(Level::IntraCluster),
            max_requests: 0,
            job_size: ranks,
        }
    }

    /// Sets the Open MPI version the file is for.
    #[must_use]
    pub const fn with_version(mut self, version: Version) -> Self {
        self.version = version;
        self
    }

    /// The Open MPI version the file is for.
    #[must_use]
    pub const fn version(&self) -> Version {
        self.version
    }

    /// Sets the layout.
    #[must_use]
    pub const fn with_layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// Sets the level map (a two-level map writes its inter-node level: see the
    /// [module docs](self)).
    #[must_use]
    pub const fn with_levels(mut self, levels: LevelMap) -> Self {
        self.levels = levels;
        self
    }

    /// Sets the max-requests value written in [`Layout::MaxRequests`].
    #[must_use]
    pub const fn with_max_requests(mut self, max_requests: u32) -> Self {
        self.max_requests = max_requests;
        self
    }

    /// The job's size, set by [`Options::for_job`].
    #[must_use]
    pub const fn job_size(&self) -> usize {
        self.job_size
    }

    /// The layout.
    #[must_use]
    pub const fn layout(&self) -> Layout {
        self.layout
    }

    /// The level map.
    #[must_use]
    pub const fn levels(&self) -> LevelMap {
        self.levels
    }

    /// The max-requests value.
    #[must_use]
    pub const fn max_requests(&self) -> u32 {
        self.max_requests
    }
}

/// Open MPI's collective id (`coll_base_functions.h`).
#[must_use]
pub fn collective_id(collective: Collective) -> u64 {
    match collective {
        Collective::Broadcast => 7,
        Collective::Scatter => 15,
        Collective::Gather => 9,
        Collective::AllToAll => 3,
    }
}

fn collective_of_id(id: u64) -> Option<Collective> {
    Collective::ALL
        .into_iter()
        .find(|&c| collective_id(c) == id)
}

/// The Open MPI algorithm number, faninout and segment size of `algorithm` for `collective`
/// (the table of [`crate::mpi`]).
///
/// # Errors
/// [`Error::NoEquivalent`] for a tree Open MPI does not have, [`Error::TooLarge`] for a
/// segment size above `i32::MAX` (Open MPI keeps it in an `int`).
pub fn algorithm_number(
    collective: Collective,
    algorithm: Algorithm,
    segment: Option<Bytes>,
) -> Result<(u32, u32, u64), Error> {
    use Algorithm::{Binary, Binomial, Chain, Direct, Flat, SegmentedChain};
    use Collective::{AllToAll, Broadcast, Gather, Scatter};
    let seg = segment.map_or(0, Bytes::get);
    if seg > INT_MAX {
        return Err(Error::TooLarge {
            library: LIBRARY,
            what: "segment size",
            value: seg,
            max: INT_MAX,
        });
    }
    Ok(match (collective, algorithm) {
        (Broadcast, Flat) => (1, 0, 0),
        (Broadcast, Chain) => (2, 1, 0),
        (Broadcast, SegmentedChain) => (3, 0, seg),
        (Broadcast, Binary) => (5, 0, 0),
        (Broadcast, Binomial) => (6, 0, 0),
        (Scatter | Gather, Flat) => (1, 0, 0),
        (Scatter | Gather, Binomial) => (2, 0, 0),
        (AllToAll, Direct) => (2, 0, 0),
        _ => {
            return Err(Error::NoEquivalent {
                library: LIBRARY,
                collective: collective.name(),
                algorithm: algorithm.name(),
            });
        }
    })
}

/// The trees of `collective` that Open MPI has (the rows of the mapping table of
/// [`crate::mpi`] that are not "none"), in [`Collective::algorithms`] order: the candidates of
/// [`DecisionTable::compute`].
#[must_use]
pub fn trees(collective: Collective) -> Vec<Algorithm> {
    collective
        .algorithms()
        .iter()
        .copied()
        .filter(|&a| {
            algorithm_number(collective, a, a.is_segmented().then(|| Bytes::new(1))).is_ok()
        })
        .collect()
}

/// Open MPI's name of algorithm `number` of `collective` (`coll_tuned_*_decision.c`).
pub(crate) fn algorithm_name(collective: Collective, number: u64) -> &'static str {
    let names: &[&str] = match collective {
        Collective::Broadcast => &[
            "ignore",
            "basic_linear",
            "chain",
            "pipeline",
            "split_binary_tree",
            "binary_tree",
            "binomial",
            "knomial",
            "scatter_allgather",
            "scatter_allgather_ring",
        ],
        Collective::Scatter => &["ignore", "basic_linear", "binomial", "linear_nb"],
        Collective::Gather => &["ignore", "basic_linear", "binomial", "linear_sync"],
        Collective::AllToAll => &[
            "ignore",
            "linear",
            "pairwise",
            "modified_bruck",
            "linear_sync",
            "two_proc",
        ],
    };
    usize::try_from(number)
        .ok()
        .and_then(|i| names.get(i))
        .copied()
        .unwrap_or("unknown")
}

/// The topo-cluster tree of an Open MPI rule, or why there is none.
pub(crate) fn tree_of(
    collective: Collective,
    number: u64,
    faninout: u64,
    segment: u64,
) -> Result<(Algorithm, Option<Bytes>), String> {
    let seg = (segment > 0).then(|| Bytes::new(segment));
    let found = match (collective, number) {
        (Collective::Broadcast, 1) | (Collective::Scatter | Collective::Gather, 1) => {
            Some((Algorithm::Flat, None))
        }
        (Collective::Broadcast, 2) if faninout == 1 => Some(match seg {
            None => (Algorithm::Chain, None),
            Some(s) => (Algorithm::SegmentedChain, Some(s)),
        }),
        (Collective::Broadcast, 3) => Some(match seg {
            None => (Algorithm::Chain, None),
            Some(s) => (Algorithm::SegmentedChain, Some(s)),
        }),
        (Collective::Broadcast, 5) if seg.is_none() => Some((Algorithm::Binary, None)),
        (Collective::Broadcast, 6) if seg.is_none() => Some((Algorithm::Binomial, None)),
        (Collective::Scatter | Collective::Gather, 2) => Some((Algorithm::Binomial, None)),
        (Collective::AllToAll, 2) => Some((Algorithm::Direct, None)),
        _ => None,
    };
    found.ok_or_else(|| {
        format!(
            "{} algorithm {number} ({}) with faninout {faninout} and segment size {segment} is no topo-cluster tree",
            collective.name(),
            algorithm_name(collective, number)
        )
    })
}

/// Whether Open MPI compares block size × communicator size with the file's sizes for
/// `collective` (it does for scatter, gather and all-to-all).
#[must_use]
pub const fn scales_with_communicator(collective: Collective) -> bool {
    matches!(
        collective,
        Collective::Scatter | Collective::Gather | Collective::AllToAll
    )
}

/// The most communicator-size entries a size-scaled collective may need (the file lists
/// every size from the table's smallest group size to its largest).
pub const MAX_DENSE_SIZES: usize = 16_384;

/// The communicator sizes written for `collective`: the table's group sizes, or every size
/// between the smallest and the largest when Open MPI scales the message size.
fn written_sizes(
    table: &DecisionTable,
    collective: Collective,
    level: Level,
) -> Result<Vec<usize>, Error> {
    let mut sizes: Vec<usize> = table
        .rules()
        .iter()
        .filter(|r| r.collective == collective && r.level == level)
        .map(|r| r.procs)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    if scales_with_communicator(collective)
        && let (Some(&lo), Some(&last)) = (sizes.first(), sizes.last())
    {
        if last - lo >= MAX_DENSE_SIZES {
            return Err(Error::TooLarge {
                library: LIBRARY,
                what: "range of communicator sizes of a size-scaled collective",
                value: (last - lo + 1) as u64,
                max: MAX_DENSE_SIZES as u64,
            });
        }
        sizes = (lo..=last).collect();
    }
    Ok(sizes)
}

/// Writes `table` as an Open MPI dynamic rules file for `options`' version.
///
/// Collectives come in Open MPI's id order, communicator sizes and message sizes increasing,
/// one level untagged (see the [module docs](self)); scatter, gather and all-to-all sizes are
/// block size × communicator size. Comments name the trees.
///
/// # Errors
/// [`Error::LevelNotMapped`] for a rule at a level `options` does not place,
/// [`Error::NoProcesses`] for a job of no ranks, [`Error::JobNotCovered`] for a table whose
/// written level stops below the job's size, [`Error::NoEquivalent`] for a tree Open MPI lacks, [`Error::MissingZeroRule`],
/// [`Error::TooLarge`] for a size Open MPI cannot hold or more than [`MAX_DENSE_SIZES`]
/// communicator sizes, [`Error::LayoutConflict`] for [`Layout::MaxRequests`] with
/// [`Version::V4_1`].
///
/// # Example
/// ```
/// use fabric_model::Bytes;
/// use topo_cluster::decision::Rule;
/// use topo_cluster::mpi::open_mpi::{Options, read, write};
/// use topo_cluster::{Algorithm, Collective, DecisionTable, Level};
/// let mut t = DecisionTable::new();
/// let r = Rule::new(Collective::Broadcast, Level::IntraCluster, 8, Bytes::new(0), Algorithm::Binomial);
/// t.insert(r)?;
/// t.insert(Rule::new(Collective::Broadcast, Level::IntraCluster, 8, Bytes::new(16384),
///     Algorithm::SegmentedChain).segment(Some(Bytes::new(1024))))?;
/// let text = write(&t, &Options::for_job(8))?;
/// assert!(text.contains("\n16384 3 0 1024 # seg-chain\n"));
/// let back = read(&text, &Options::for_job(8))?;
/// assert_eq!(write(&back, &Options::for_job(8))?, text);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn write(table: &DecisionTable, options: &Options) -> Result<String, Error> {
    if !options.version.reads(options.layout) {
        return Err(Error::LayoutConflict {
            reason: "rule-file-version-2 is read from Open MPI 4.1.8 / 5.0.7 on; 4.1.0-4.1.7 and 5.0.0-5.0.6 ignore the whole file",
        });
    }
    if u64::from(options.max_requests) > INT_MAX {
        return Err(Error::TooLarge {
            library: LIBRARY,
            what: "max requests",
            value: u64::from(options.max_requests),
            max: INT_MAX,
        });
    }
    check_levels(table, &options.levels, LIBRARY)?;
    let level = options.levels.one_level();
    check_job(table, level, options.job_size, LIBRARY)?;
    let mut collectives: Vec<Collective> = Collective::ALL
        .into_iter()
        .filter(|&c| {
            table
                .rules()
                .iter()
                .any(|r| r.collective == c && r.level == level)
        })
        .collect();
    collectives.sort_by_key(|&c| collective_id(c));
    let mut out = String::new();
    // writing to a String cannot fail
    let mut line = |s: std::fmt::Arguments<'_>| {
        let _ = out.write_fmt(s);
        out.push('\n');
    };
    if options.layout == Layout::MaxRequests {
        line(format_args!("{VERSION_2}"));
    }
    line(format_args!(
        "# topo-cluster decision table as an Open MPI coll_tuned dynamic rules file ({}, level {})",
        options.version.releases(),
        level.name()
    ));
    line(format_args!(
        "{} # number of collectives",
        collectives.len()
    ));
    for c in collectives {
        let sizes = written_sizes(table, c, level)?;
        let scaled = scales_with_communicator(c);
        line(format_args!(
            "{} # collective id: {}{}",
            collective_id(c),
            c.name(),
            if scaled {
                " (sizes: block x communicator size)"
            } else {
                ""
            }
        ));
        line(format_args!(
            "{} # number of communicator sizes",
            sizes.len()
        ));
        for &p in &sizes {
            if p as u64 > INT_MAX {
                return Err(Error::TooLarge {
                    library: LIBRARY,
                    what: "communicator size",
                    value: p as u64,
                    max: INT_MAX,
                });
            }
            let rules = rules_for(table, c, level, p);
            if let Some(first) = rules.first()
                && first.min_size.get() != 0
            {
                return Err(Error::MissingZeroRule {
                    collective: c.name(),
                    level: level.name(),
                    procs: first.procs,
                });
            }
            line(format_args!("{p} # communicator size"));
            line(format_args!(
                "{} # number of message size rules",
                rules.len()
            ));
            for r in rules {
                let block = r.min_size.get();
                let m = if scaled {
                    block.checked_mul(p as u64)
                } else {
                    Some(block)
                };
                let m = match m {
                    Some(m) if m <= LONG_MAX => m,
                    _ => {
                        return Err(Error::TooLarge {
                            library: LIBRARY,
                            what: "message size",
                            value: block,
                            max: LONG_MAX / if scaled { p as u64 } else { 1 },
                        });
                    }
                };
                let (alg, fan, seg) = algorithm_number(c, r.algorithm, r.segment)?;
                let max_req = match options.layout {
                    Layout::Classic => String::new(),
                    Layout::MaxRequests => format!(" {}", options.max_requests),
                };
                line(format_args!(
                    "{m} {alg} {fan} {seg}{max_req} # {}",
                    r.algorithm.name()
                ));
            }
        }
    }
    Ok(out)
}

/// One white-space separated token and its 1-based line.
struct Tokens<'a> {
    toks: Vec<(&'a str, usize)>,
    at: usize,
    last_line: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        let mut toks = Vec::new();
        let mut last_line = 1;
        for (n, raw) in text.lines().enumerate() {
            last_line = n + 1;
            let content = raw.split('#').next().unwrap_or("");
            toks.extend(content.split_whitespace().map(|t| (t, n + 1)));
        }
        Self {
            toks,
            at: 0,
            last_line,
        }
    }

    fn peek(&self) -> Option<(&'a str, usize)> {
        self.toks.get(self.at).copied()
    }

    fn next(&mut self, what: &str) -> Result<(&'a str, usize), Error> {
        let t = self.peek().ok_or_else(|| Error::OpenMpiParse {
            line: self.last_line,
            reason: format!("the file ends where the {what} was expected"),
        })?;
        self.at += 1;
        Ok(t)
    }

    fn number(&mut self, what: &str, max: u64) -> Result<(u64, usize), Error> {
        let (t, line) = self.next(what)?;
        Ok((parse_number(t, what, max, line)?, line))
    }
}

fn parse_number(t: &str, what: &str, max: u64, line: usize) -> Result<u64, Error> {
    let err = |reason: String| Error::OpenMpiParse { line, reason };
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(format!(
            "{what} {t:?} is not a non-negative decimal integer"
        )));
    }
    if t.len() > 1 && t.starts_with('0') {
        return Err(err(format!(
            "{what} {t:?} has a leading zero: Open MPI reads it as octal"
        )));
    }
    let v: u64 = t
        .parse()
        .map_err(|_| err(format!("{what} {t:?} is too large")))?;
    if v > max {
        return Err(err(format!("{what} {v} exceeds {max}")));
    }
    Ok(v)
}

/// Reads an Open MPI dynamic rules file as `options`' version reads it, into the level the
/// options write (the single level, or a two-level map's inter-node level); layout and
/// max-requests value come from the file.
///
/// Stricter than Open MPI, which ignores what it cannot use: every collective must be one of
/// the four topo-cluster chooses for and appear once, communicator sizes must be ≥ 1 and
/// increasing, message sizes increasing with a size-0 rule first, every algorithm must map
/// to a topo-cluster tree, and nothing may follow the last collective. What the version would
/// misread is refused: a `rule-file-version-2` line for [`Version::V4_1`] (which ignores the
/// file), a topology tag after a message size (dropped by every release), a number with a
/// leading zero (read as octal), and scatter, gather or all-to-all sizes that give two rules
/// the same block size. Those sizes are block × communicator size: a size s under
/// communicator size c reads as block ⌈s / c⌉, the smallest block Open MPI applies it to.
///
/// # Errors
/// [`Error::OpenMpiParse`] with the 1-based line.
///
/// # Complexity
/// O(n log n) for a file of n tokens.
pub fn read(text: &str, options: &Options) -> Result<DecisionTable, Error> {
    let level = options.levels.one_level();
    let mut toks = Tokens::new(text);
    let mut version = 1;
    if let Some((first, line)) = toks.peek()
        && let Some(v) = first.strip_prefix("rule-file-version-")
    {
        if !text.starts_with(first) {
            return Err(Error::OpenMpiParse {
                line,
                reason: format!("{first} must open the file, before any space or comment"),
            });
        }
        version = match v {
            "1" => 1,
            "2" => 2,
            _ => {
                return Err(Error::OpenMpiParse {
                    line,
                    reason: format!("unknown version line {first:?} (1 and 2 are known)"),
                });
            }
        };
        if options.version == Version::V4_1 {
            return Err(Error::OpenMpiParse {
                line,
                reason: format!(
                    "{first}: Open MPI 4.1.0-4.1.7 and 5.0.0-5.0.6 read no version line and ignore the whole file (read from 4.1.8 / 5.0.7 on)"
                ),
            });
        }
        toks.at += 1;
    }
    let mut table = DecisionTable::new();
    let (ncol, _) = toks.number("number of collectives", COLLECTIVE_COUNT)?;
    let mut seen: Vec<Collective> = Vec::new();
    for _ in 0..ncol {
        let (id, id_line) = toks.number("collective id", COLLECTIVE_COUNT - 1)?;
        let collective = collective_of_id(id).ok_or_else(|| Error::OpenMpiParse {
            line: id_line,
            reason: format!(
                "collective id {id} is none of bcast (7), scatter (15), gather (9), alltoall (3)"
            ),
        })?;
        if seen.contains(&collective) {
            return Err(Error::OpenMpiParse {
                line: id_line,
                reason: format!("collective {} is given twice", collective.name()),
            });
        }
        seen.push(collective);
        let scaled = scales_with_communicator(collective);
        let (ncomm, _) = toks.number("number of communicator sizes", INT_MAX)?;
        let mut last_comm: Option<u64> = None;
        for _ in 0..ncomm {
            let (procs, p_line) = toks.number("communicator size", INT_MAX)?;
            if procs == 0 {
                return Err(Error::OpenMpiParse {
                    line: p_line,
                    reason: "communicator size 0 (topo-cluster's groups have at least 1 process)"
                        .to_owned(),
                });
            }
            if last_comm.is_some_and(|l| procs <= l) {
                return Err(Error::OpenMpiParse {
                    line: p_line,
                    reason: format!(
                        "communicator size {procs} is not above the previous one (Open MPI would never use it)"
                    ),
                });
            }
            last_comm = Some(procs);
            let procs_usize = usize::try_from(procs).map_err(|_| Error::OpenMpiParse {
                line: p_line,
                reason: format!("communicator size {procs} too large"),
            })?;
            let (nmsg, n_line) = toks.number("number of message size rules", INT_MAX)?;
            if nmsg == 0 {
                return Err(Error::OpenMpiParse {
                    line: n_line,
                    reason: "a communicator size without message size rules".to_owned(),
                });
            }
            let mut last: Option<u64> = None;
            let mut last_block: Option<u64> = None;
            for _ in 0..nmsg {
                let (size_tok, line) = toks.next("message size")?;
                let err = |reason: String| Error::OpenMpiParse { line, reason };
                if let Some((_, t)) = size_tok.split_once('@') {
                    return Err(err(format!(
                        "topology tag @{t}: no released Open MPI reads tags (4.1 and 5.0 read the size and drop the tag, merging the levels' rules)"
                    )));
                }
                let m = parse_number(size_tok, "message size", LONG_MAX, line)?;
                match last {
                    None if m != 0 => {
                        return Err(err(format!(
                            "the first rule of a communicator size must be for message size 0, not {m}"
                        )));
                    }
                    Some(prev) if m <= prev => {
                        return Err(err(format!(
                            "message size {m} is not above the previous one ({prev})"
                        )));
                    }
                    _ => last = Some(m),
                }
                let (number, _) = toks.number("algorithm", INT_MAX)?;
                let (faninout, _) = toks.number("faninout", INT_MAX)?;
                let (segment, seg_line) = toks.number("segment size", INT_MAX)?;
                if version >= 2
                    && let Some((t, l)) = toks.peek()
                    && l == seg_line
                    && t.starts_with(|c: char| c.is_ascii_digit())
                {
                    toks.number("max requests", INT_MAX)?;
                }
                let (algorithm, seg) =
                    tree_of(collective, number, faninout, segment).map_err(&err)?;
                let block = if scaled { m.div_ceil(procs) } else { m };
                if last_block == Some(block) {
                    return Err(err(format!(
                        "message size {m} is block size {block} under communicator size {procs}, as is the previous rule's (Open MPI would never use that one)"
                    )));
                }
                last_block = Some(block);
                let rule = Rule::new(collective, level, procs_usize, Bytes::new(block), algorithm)
                    .segment(seg);
                table.insert(rule).map_err(|e| err(e.to_string()))?;
            }
        }
    }
    if let Some((t, line)) = toks.peek() {
        return Err(Error::OpenMpiParse {
            line,
            reason: format!("{t:?} follows the last collective"),
        });
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The job size of the tests: their tables reach 4 processes or more.
    const JOB: usize = 4;
    use crate::PLogP;
    use crate::decision::Compute;
    use proptest::prelude::*;

    fn two_level() -> Options {
        two_level_for(JOB)
    }

    fn two_level_for(job: usize) -> Options {
        Options::for_job(job).with_levels(
            LevelMap::two_level(Level::IntraMachine, Level::IntraCluster).expect("distinct"),
        )
    }

    fn bcast(level: Level, procs: usize, m: u64, a: Algorithm, seg: Option<u64>) -> Rule {
        Rule::new(Collective::Broadcast, level, procs, Bytes::new(m), a)
            .segment(seg.map(Bytes::new))
    }

    #[test]
    fn writes_the_classic_layout_and_reads_it_back() {
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
            Rule::new(
                Collective::AllToAll,
                Level::IntraCluster,
                4,
                Bytes::new(0),
                Algorithm::Direct,
            ),
        ] {
            t.insert(r).unwrap();
        }
        let text = write(&t, &Options::for_job(JOB)).unwrap();
        let want = "# topo-cluster decision table as an Open MPI coll_tuned dynamic rules file (Open MPI 4.1.0-4.1.7, 5.0.0-5.0.6, level intra-cluster)
2 # number of collectives
3 # collective id: alltoall (sizes: block x communicator size)
1 # number of communicator sizes
4 # communicator size
1 # number of message size rules
0 2 0 0 # direct
7 # collective id: bcast
2 # number of communicator sizes
2 # communicator size
1 # number of message size rules
0 6 0 0 # binomial
8 # communicator size
2 # number of message size rules
0 6 0 0 # binomial
16384 3 0 1024 # seg-chain
";
        assert_eq!(text, want);
        let back = read(&text, &Options::for_job(JOB)).unwrap();
        assert_eq!(back, t);
        // the max-requests layout
        let v2 = Options::for_job(JOB)
            .with_version(Version::V4_1_8)
            .with_layout(Layout::MaxRequests)
            .with_max_requests(4);
        // Open MPI 4.1.0-4.1.7 ignore a version-2 file: neither written nor read for them
        assert!(matches!(
            write(&t, &v2.with_version(Version::V4_1)),
            Err(Error::LayoutConflict { .. })
        ));
        let text2 = write(&t, &v2).unwrap();
        assert!(text2.starts_with("rule-file-version-2\n"));
        assert!(text2.contains("\n16384 3 0 1024 4 # seg-chain\n"));
        assert_eq!(read(&text2, &v2).unwrap(), t);
        assert_eq!(write(&read(&text2, &v2).unwrap(), &v2).unwrap(), text2);
        // a version-1 file never has a fifth column: the 4 reads as the next message size
        let v1 = text2.replacen(VERSION_2, "rule-file-version-1", 1);
        assert!(matches!(
            read(&v1, &v2),
            Err(Error::OpenMpiParse { line: 8, .. })
        ));
        let (line, reason) = read_err(&text2, &Options::for_job(JOB));
        assert_eq!(line, 1);
        assert!(reason.contains("ignore the whole file"), "{reason}");
    }

    #[test]
    fn trees_open_mpi_lacks_are_reported() {
        let mut t = DecisionTable::new();
        t.insert(bcast(
            Level::IntraCluster,
            4,
            0,
            Algorithm::SegmentedFlat,
            Some(512),
        ))
        .unwrap();
        assert_eq!(
            write(&t, &Options::for_job(JOB)),
            Err(Error::NoEquivalent {
                library: "Open MPI",
                collective: "bcast",
                algorithm: "seg-flat"
            })
        );
        let mut g = DecisionTable::new();
        g.insert(Rule::new(
            Collective::Gather,
            Level::IntraCluster,
            4,
            Bytes::new(0),
            Algorithm::Chain,
        ))
        .unwrap();
        assert!(matches!(
            write(&g, &Options::for_job(JOB)),
            Err(Error::NoEquivalent {
                algorithm: "chain",
                ..
            })
        ));
        // a level the map does not place
        let mut m = DecisionTable::new();
        m.insert(bcast(Level::InterCluster, 4, 0, Algorithm::Flat, None))
            .unwrap();
        assert_eq!(
            write(&m, &Options::for_job(JOB)),
            Err(Error::LevelNotMapped {
                library: "Open MPI",
                level: "inter-cluster"
            })
        );
        assert!(matches!(
            write(
                &m,
                &Options::for_job(JOB)
                    .with_layout(Layout::MaxRequests)
                    .with_levels(two_level().levels())
            ),
            Err(Error::LayoutConflict { .. })
        ));
        // a block size × communicator size beyond what Open MPI holds
        let mut big = DecisionTable::new();
        for (m, a) in [(0, Algorithm::Flat), (1 << 62, Algorithm::Binomial)] {
            big.insert(Rule::new(
                Collective::Scatter,
                Level::IntraCluster,
                4,
                Bytes::new(m),
                a,
            ))
            .unwrap();
        }
        assert!(matches!(
            write(&big, &Options::for_job(JOB)),
            Err(Error::TooLarge {
                what: "message size",
                ..
            })
        ));
    }

    #[test]
    fn two_levels_fall_back_to_the_inter_node_level() {
        let mut t = DecisionTable::new();
        for r in [
            bcast(Level::IntraMachine, 4, 0, Algorithm::Flat, None),
            bcast(Level::IntraCluster, 8, 0, Algorithm::Binomial, None),
            bcast(Level::IntraCluster, 8, 65536, Algorithm::Chain, None),
        ] {
            t.insert(r).unwrap();
        }
        let o = two_level();
        let text = write(&t, &o).unwrap();
        // no tag any release would drop: the inter-node level alone
        assert!(!text.contains('@'));
        let body: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            body,
            [
                "1 # number of collectives",
                "7 # collective id: bcast",
                "1 # number of communicator sizes",
                "8 # communicator size",
                "2 # number of message size rules",
                "0 6 0 0 # binomial",
                "65536 2 1 0 # chain",
            ]
        );
        let back = read(&text, &o).unwrap();
        assert!(back.rules().iter().all(|r| r.level == Level::IntraCluster));
        assert_eq!(write(&back, &o).unwrap(), text);
    }

    /// The defect: Open MPI compares a scatter's, gather's or all-to-all's block size times
    /// the communicator size with the file's sizes, and the file held the block size.
    #[test]
    fn scaled_collectives_write_block_times_communicator_size() {
        let mut t = DecisionTable::new();
        for (p, m, a) in [
            (4, 0, Algorithm::Flat),
            (4, 2048, Algorithm::Binomial),
            (6, 0, Algorithm::Flat),
            (6, 1000, Algorithm::Binomial),
        ] {
            t.insert(Rule::new(
                Collective::Scatter,
                Level::IntraCluster,
                p,
                Bytes::new(m),
                a,
            ))
            .unwrap();
        }
        let text = write(&t, &Options::for_job(JOB)).unwrap();
        let body: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            body,
            [
                "1 # number of collectives",
                "15 # collective id: scatter (sizes: block x communicator size)",
                "3 # number of communicator sizes",
                "4 # communicator size",
                "2 # number of message size rules",
                "0 1 0 0 # flat",
                "8192 2 0 0 # binomial",
                "5 # communicator size",
                "2 # number of message size rules",
                "0 1 0 0 # flat",
                "10240 2 0 0 # binomial",
                "6 # communicator size",
                "2 # number of message size rules",
                "0 1 0 0 # flat",
                "6000 2 0 0 # binomial",
            ]
        );
        let back = read(&text, &Options::for_job(JOB)).unwrap();
        for p in 4..=6 {
            for m in [0, 999, 1000, 2047, 2048] {
                let want = t
                    .lookup(Collective::Scatter, Level::IntraCluster, p, Bytes::new(m))
                    .unwrap();
                let got = back
                    .lookup(Collective::Scatter, Level::IntraCluster, p, Bytes::new(m))
                    .unwrap();
                assert_eq!(want.algorithm, got.algorithm, "P={p} m={m}");
            }
        }
        assert_eq!(write(&back, &Options::for_job(JOB)).unwrap(), text);
        // a size that is no multiple of the communicator size reads as the next block
        let odd = text.replacen("8192 2 0 0", "8186 2 0 0", 1);
        let r = read(&odd, &Options::for_job(JOB)).unwrap();
        assert_eq!(
            r.lookup(
                Collective::Scatter,
                Level::IntraCluster,
                4,
                Bytes::new(2047)
            )
            .unwrap()
            .algorithm,
            Algorithm::Binomial
        );
        // two sizes of the same block are refused
        let clash = "1\n15\n1\n4\n3\n0 1 0 0\n5 2 0 0\n7 1 0 0\n";
        let (n, reason) = read_err(clash, &Options::for_job(JOB));
        assert_eq!(n, 8);
        assert!(reason.contains("block size 2"), "{reason}");
    }

    fn read_err(text: &str, o: &Options) -> (usize, String) {
        match read(text, o) {
            Err(Error::OpenMpiParse { line, reason }) => (line, reason),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn bad_files_name_their_line() {
        let d = Options::for_job(JOB);
        let cases = [
            ("", 1, "ends where the number of collectives"),
            ("x\n", 1, "not a non-negative"),
            ("1\n5\n", 2, "none of bcast"),
            ("23\n", 1, "exceeds 22"),
            ("1\n7\n1\n0\n", 4, "communicator size 0"),
            ("1\n7\n2\n8\n1\n0 1 0 0\n8\n", 7, "not above the previous"),
            ("1\n7\n1\n8\n0\n", 5, "without message size rules"),
            ("1\n7\n1\n8\n1\n64 1 0 0\n", 6, "must be for message size 0"),
            (
                "1\n7\n1\n8\n2\n0 1 0 0\n0 1 0 0\n",
                7,
                "not above the previous one (0)",
            ),
            ("1\n7\n1\n8\n1\n0 7 0 0\n", 6, "algorithm 7 (knomial)"),
            ("1\n7\n1\n8\n1\n0 0 0 0\n", 6, "algorithm 0 (ignore)"),
            ("1\n7\n1\n8\n1\n0 2 3 0\n", 6, "faninout 3"),
            ("1\n7\n1\n8\n1\n0 6 0 1024\n", 6, "segment size 1024"),
            ("1\n9\n1\n8\n1\n0 3 0 0\n", 6, "linear_sync"),
            (
                "1\n7\n1\n8\n1\n0@disjoint 1 0 0\n",
                6,
                "no released Open MPI reads tags",
            ),
            ("1\n7\n1\n8\n1\n0 1 0 010\n", 6, "octal"),
            ("1\n7\n1\n8\n1\n0 1 0\n", 6, "ends where the segment size"),
            (
                "1\n7\n1\n8\n1\n0 1 0 0 9\n",
                6,
                "follows the last collective",
            ),
            ("2\n7\n1\n8\n1\n0 1 0 0\n7\n", 7, "given twice"),
            ("1\n7\n1\n8\n1\n0 1 -1 0\n", 6, "faninout \"-1\""),
            (" rule-file-version-2\n", 1, "must open the file"),
            ("rule-file-version-3\n", 1, "unknown version"),
        ];
        for (text, line, want) in cases {
            let (n, reason) = read_err(text, &d);
            assert_eq!(n, line, "{text:?}: {reason}");
            assert!(reason.contains(want), "{text:?}: {reason}");
        }
        // comments anywhere, values across lines, the same-tree variants
        let ok = "# tuned\n1 # one\n7\n1 8 2\n0 3 0 0 # pipeline without segments: chain\n128\n2 1 4096\n";
        let t = read(ok, &d).unwrap();
        assert_eq!(t.rules()[0].algorithm, Algorithm::Chain);
        assert_eq!(
            (t.rules()[1].algorithm, t.rules()[1].segment),
            (Algorithm::SegmentedChain, Some(Bytes::new(4096)))
        );
    }

    #[test]
    fn a_computed_table_round_trips() {
        let p = PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5).unwrap();
        let mut t = DecisionTable::new();
        let sizes: Vec<Bytes> = (0..23).map(|k| Bytes::new(1 << k)).collect();
        t.compute(
            &Compute::new(Collective::Broadcast, Level::IntraCluster, &p)
                .group_sizes(&[2, 8, 20])
                .message_sizes(&sizes),
        )
        .unwrap();
        let text = write(&t, &Options::for_job(JOB)).unwrap();
        let back = read(&text, &Options::for_job(JOB)).unwrap();
        // predicted times are not in the file
        assert_eq!(back.rules().len(), t.rules().len());
        for (a, b) in back.rules().iter().zip(t.rules()) {
            assert_eq!(*a, b.predicted(None));
        }
    }

    /// Only trees Open MPI has.
    const TREES: [(Collective, Algorithm); 8] = [
        (Collective::Broadcast, Algorithm::Flat),
        (Collective::Broadcast, Algorithm::Chain),
        (Collective::Broadcast, Algorithm::SegmentedChain),
        (Collective::Broadcast, Algorithm::Binary),
        (Collective::Broadcast, Algorithm::Binomial),
        (Collective::Scatter, Algorithm::Binomial),
        (Collective::Gather, Algorithm::Flat),
        (Collective::AllToAll, Algorithm::Direct),
    ];

    /// Open MPI 4.1's reading of a classic file, modelled independently of [`read`] (the
    /// numbers in order, `#` to the end of the line skipped) and its lookup: the entry of the
    /// largest communicator size ≤ `procs` (else the first), the rule of the largest message
    /// size ≤ `bytes`; the algorithm number.
    fn open_mpi_choice(text: &str, id: u64, procs: u64, bytes: u64) -> Option<u64> {
        let mut nums = text
            .lines()
            .flat_map(|l| l.split('#').next().unwrap_or("").split_whitespace())
            .map(|t| t.parse::<u64>().ok());
        let mut next = || nums.next().flatten();
        for _ in 0..next()? {
            let cid = next()?;
            let mut best: Option<Vec<(u64, u64)>> = None;
            for k in 0..next()? {
                let cs = next()?;
                let mut rules = Vec::new();
                for _ in 0..next()? {
                    let (ms, alg, _fan, _seg) = (next()?, next()?, next()?, next()?);
                    rules.push((ms, alg));
                }
                if k == 0 || cs <= procs {
                    best = Some(rules);
                }
            }
            if cid == id {
                let rules = best?;
                return rules
                    .iter()
                    .take_while(|&&(ms, _)| ms <= bytes)
                    .last()
                    .or(rules.first())
                    .map(|&(_, a)| a);
            }
        }
        None
    }

    /// Every tree Open MPI has.
    const ALL_TREES: [(Collective, Algorithm); 10] = [
        (Collective::Broadcast, Algorithm::Flat),
        (Collective::Broadcast, Algorithm::Chain),
        (Collective::Broadcast, Algorithm::SegmentedChain),
        (Collective::Broadcast, Algorithm::Binary),
        (Collective::Broadcast, Algorithm::Binomial),
        (Collective::Scatter, Algorithm::Flat),
        (Collective::Scatter, Algorithm::Binomial),
        (Collective::Gather, Algorithm::Flat),
        (Collective::Gather, Algorithm::Binomial),
        (Collective::AllToAll, Algorithm::Direct),
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// What Open MPI makes of the file is what the table means: for every collective,
        /// every communicator size from the table's smallest group size to the job's size
        /// and every block size around the table's boundaries, Open MPI's lookup (on block size × communicator size for
        /// scatter, gather and all-to-all) names the algorithm of the table's lookup.
        #[test]
        fn open_mpi_follows_the_table(picks in proptest::collection::vec((0..ALL_TREES.len(), 0_usize..5, 0_u64..3, 1_u64..(1 << 20)), 1..40)) {
            // few communicator sizes, so that most get several rules
            let job = 12;
            let t = crate::mpi::testing::job_table(&ALL_TREES, picks, job);
            let text = write(&t, &Options::for_job(job)).unwrap();
            for c in Collective::ALL {
                let Some((min_p, blocks)) = crate::mpi::testing::probes(&t, c) else { continue };
                let max_p = job;
                for p in min_p..=max_p {
                    for &b in &blocks {
                        let want = t.lookup(c, Level::IntraCluster, p, Bytes::new(b)).unwrap();
                        let bytes = if scales_with_communicator(c) { b * p as u64 } else { b };
                        let got = open_mpi_choice(&text, collective_id(c), p as u64, bytes);
                        let (alg, _, _) = algorithm_number(c, want.algorithm, want.segment).unwrap();
                        prop_assert_eq!(got, Some(u64::from(alg)), "{} P={} block {}", c, p, b);
                    }
                }
            }
        }

        /// write → read → write is the identity on the text, in both layouts and level maps,
        /// and what is read back answers every lookup as the table did.
        #[test]
        fn write_read_write(rules in proptest::collection::vec(crate::mpi::testing::rule(&TREES, 1 << 40), 0..24), two in any::<bool>(), v2 in any::<bool>()) {
            let t = crate::mpi::testing::table(rules, two);
            // a job of one rank: every table covers it (the property is the round trip)
            let o = if two { two_level_for(1) } else {
                Options::for_job(1)
                    .with_version(Version::V4_1_8)
                    .with_layout(if v2 { Layout::MaxRequests } else { Layout::Classic })
            };
            let text = write(&t, &o).unwrap();
            let back = read(&text, &o).unwrap();
            crate::mpi::testing::same_choices(&t, &back)?;
            prop_assert_eq!(write(&back, &o).unwrap(), text);
        }
    }
}
