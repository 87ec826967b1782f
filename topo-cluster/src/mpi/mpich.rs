//! MPICH's JSON collective selection file: the file named by the control variable
//! `MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`.
//!
//! The file is a decision tree of nested objects whose keys are tests, tried in order, the
//! first that holds is followed; a leaf `"algorithm=NAME"` holds the algorithm's parameters as
//! `"key=value": {}` entries. The writer writes, per collective:
//!
//! ```json
//! {
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
//!                             "k=1": {},
//!                             "is_non_blocking=0": {},
//!                             "chunk_size=1024": {},
//!                             "recv_pre_posted=0": {}
//!                         }
//!                     }
//!                 }
//!             }
//!         }
//!     }
//! }
//! ```
//!
//! A group size p of the table, followed by group size q, becomes `comm_size<=q-1` (the first
//! one also covers the sizes below it, as the table's lookup does; the last one is
//! `comm_size=any`); a rule from message size m to the next rule's n becomes
//! `avg_msg_size<=n-1`, the last `avg_msg_size=any`. Reading gives the first range the group
//! size 1 and every other range the previous bound + 1: the file does not hold the table's
//! smallest group size, every lookup is the same, and writing again gives the same text.
//!
//! # Levels
//! [`LevelMap::single`] writes `comm_hierarchy=any`; a two-level map writes
//! `comm_hierarchy=node` (intra-node) and `comm_hierarchy=node_roots` (inter-node), the kinds
//! of communicator MPICH's `csel.c` on its main branch tells apart. MPICH gives these kinds to
//! the communicators it builds itself for its SMP-aware algorithms; what kind it gives a
//! communicator the application splits by machine could not be confirmed (its own code calls
//! the others `parent` and `flat`), nor what MPICH does when no branch matches. Older MPICH
//! releases know only `comm_hierarchy=parent` and `any`.
//!
//! # Not confirmed
//! - MPICH compares `avg_msg_size` with its total byte count divided by the communicator
//!   size: that is m for bcast and alltoall; for scatter and gather the version we read
//!   multiplies the element count, not the bytes, by the size, so the sizes written (bytes)
//!   are right for byte-typed buffers only.
//! - `tree_type=kary` is read as a string by the newer container parser and with `atoi` by
//!   older ones, which gives 0: that 0 is the k-ary tree type is our reading.
//! - The readers use `atoi`, so every number must fit a C `int`: larger ones are refused.
//!
//! The JSON is written by hand (the keys are fixed ASCII and the layout must be stable for the
//! round trip) and read with `serde_json` into an order-keeping tree, since the order of keys
//! is the meaning of the file and duplicate keys must be refused.

use fabric_model::Bytes;

use crate::decision::Rule;
use crate::mpi::json::Json;
use crate::mpi::{LevelMap, Scope, check_levels, rules_for};
use crate::{Algorithm, Collective, DecisionTable, Error, Level};

const LIBRARY: &str = "MPICH";
const INT_MAX: u64 = i32::MAX as u64;

/// How [`write()`] and [`read`] place the table's levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    levels: LevelMap,
}

impl Default for Options {
    /// Every rule from [`Level::IntraCluster`], under `comm_hierarchy=any`.
    fn default() -> Self {
        Self {
            levels: LevelMap::single(Level::IntraCluster),
        }
    }
}

impl Options {
    /// The defaults.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
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
    let tree = |k: u32| {
        vec![
            "tree_type=kary".to_owned(),
            format!("k={k}"),
            "is_non_blocking=0".to_owned(),
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
/// [`DecisionTable::compute_among`].
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

/// Writes `table` as an MPICH JSON selection file (layout in the [module docs](self)).
///
/// # Errors
/// [`Error::LevelNotMapped`], [`Error::NoEquivalent`] for a tree MPICH lacks,
/// [`Error::MissingZeroRule`], [`Error::TooLarge`] for a bound above `i32::MAX`.
///
/// # Example
/// ```
/// use fabric_model::Bytes;
/// use topo_cluster::decision::Rule;
/// use topo_cluster::mpi::mpich::{Options, read, write};
/// use topo_cluster::{Algorithm, Collective, DecisionTable, Level};
/// let mut t = DecisionTable::new();
/// t.insert(Rule::new(Collective::Scatter, Level::IntraCluster, 4, Bytes::new(0), Algorithm::Binomial))?;
/// let json = write(&t, &Options::default())?;
/// assert!(json.contains("\"algorithm=MPIR_Scatter_intra_binomial\": {}"));
/// assert_eq!(write(&read(&json, &Options::default())?, &Options::default())?, json);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn write(table: &DecisionTable, options: &Options) -> Result<String, Error> {
    check_levels(table, &options.levels, LIBRARY)?;
    let mut top = Vec::new();
    for c in Collective::ALL {
        let mut scopes = Vec::new();
        for (scope, level) in options.levels.scopes() {
            let mut sizes: Vec<usize> = table
                .rules()
                .iter()
                .filter(|r| r.collective == c && r.level == level)
                .map(|r| r.procs)
                .collect();
            sizes.dedup();
            if sizes.is_empty() {
                continue;
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
                let mut msgs = Vec::new();
                for (j, r) in rules.iter().enumerate() {
                    let key = match rules.get(j + 1) {
                        Some(n) => {
                            format!("avg_msg_size<={}", bound("message size", n.min_size.get())?)
                        }
                        None => "avg_msg_size=any".to_owned(),
                    };
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
            scopes.push(Node::new(hierarchy_key(scope), comm));
        }
        if !scopes.is_empty() {
            top.push(Node::new(
                format!("collective={}", c.name()),
                vec![Node::new("comm_type=intra", scopes)],
            ));
        }
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

/// Ranges `prefix<=N` (N increasing) then `prefix=any`: for each, its lower end (0 first,
/// else the previous N + 1, plus `first`), its path and value.
fn ranges<'a>(
    entries: &'a [(String, Json)],
    path: &str,
    prefix: &str,
    first: u64,
) -> Result<Vec<(u64, String, &'a Json)>, Error> {
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
            out.push((lo, p, value));
            done = true;
        } else if let Some(n) = key.strip_prefix(&format!("{prefix}<=")) {
            let n = int(n, prefix, &p)?;
            if n < lo {
                return fail(
                    &p,
                    format!("bound {n} is below the range's start {lo} (never used)"),
                );
            }
            out.push((lo, p, value));
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

/// The topo-cluster tree of an MPICH algorithm leaf.
fn tree_of(
    collective: Collective,
    name: &str,
    params: &[(&str, &str)],
    path: &str,
) -> Result<(Algorithm, Option<Bytes>), Error> {
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

/// Reads an MPICH JSON selection file of the layout [`write()`] writes.
///
/// Stricter than MPICH: only the four collectives topo-cluster chooses for, each once, under
/// `comm_type=intra` alone, with the `comm_hierarchy` branches of the level map, ranges in
/// increasing order ending with `=any`, and algorithms that map to a topo-cluster tree.
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
    let mut table = DecisionTable::new();
    let mut seen: Vec<Collective> = Vec::new();
    for (key, value) in object(&root, "$")? {
        let path = child("$", key);
        let collective = key
            .strip_prefix("collective=")
            .and_then(Collective::from_name)
            .ok_or_else(|| Error::MpichParse {
                path: path.clone(),
                reason: "expected \"collective=NAME\" with NAME bcast, scatter, gather or alltoall"
                    .to_owned(),
            })?;
        if seen.contains(&collective) {
            return fail(&path, "collective given twice");
        }
        seen.push(collective);
        let [(ct, intra)] = object(value, &path)? else {
            return fail(&path, "expected exactly one key, \"comm_type=intra\"");
        };
        let path = child(&path, ct);
        if ct != "comm_type=intra" {
            return fail(&path, "expected \"comm_type=intra\"");
        }
        let mut scopes_seen = Vec::new();
        for (hk, hv) in object(intra, &path)? {
            let hpath = child(&path, hk);
            let scope = [Scope::Any, Scope::IntraNode, Scope::InterNode]
                .into_iter()
                .find(|&s| hierarchy_key(s) == hk)
                .ok_or_else(|| Error::MpichParse {
                    path: hpath.clone(),
                    reason: "expected comm_hierarchy=any, =node or =node_roots".to_owned(),
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
            for (lo, cpath, cv) in ranges(object(hv, &hpath)?, &hpath, "comm_size", 1)? {
                let procs = usize::try_from(lo).map_err(|_| Error::MpichParse {
                    path: cpath.clone(),
                    reason: "communicator size too large".to_owned(),
                })?;
                for (min, mpath, mv) in ranges(object(cv, &cpath)?, &cpath, "avg_msg_size", 0)? {
                    let [(ak, av)] = object(mv, &mpath)? else {
                        return fail(&mpath, "expected exactly one key, \"algorithm=NAME\"");
                    };
                    let apath = child(&mpath, ak);
                    let Some(name) = ak.strip_prefix("algorithm=") else {
                        return fail(&apath, "expected \"algorithm=NAME\"");
                    };
                    let (algorithm, seg) = tree_of(collective, name, &params(av, &apath)?, &apath)?;
                    let rule = Rule::new(collective, level, procs, Bytes::new(min), algorithm)
                        .segment(seg);
                    table.insert(rule).map_err(|e| Error::MpichParse {
                        path: apath.clone(),
                        reason: e.to_string(),
                    })?;
                }
            }
        }
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bcast(level: Level, procs: usize, m: u64, a: Algorithm, seg: Option<u64>) -> Rule {
        Rule::new(Collective::Broadcast, level, procs, Bytes::new(m), a)
            .segment(seg.map(Bytes::new))
    }

    fn two_level() -> Options {
        Options::new().with_levels(
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
        let json = write(&t, &Options::default()).unwrap();
        let doc = include_str!("mpich.rs");
        let start = doc.find("//! ```json\n").unwrap() + "//! ```json\n".len();
        let end = start + doc[start..].find("//! ```").unwrap();
        let want: String = doc[start..end]
            .lines()
            .map(|l| format!("{}\n", l.strip_prefix("//! ").unwrap_or("")))
            .collect();
        assert_eq!(json, want);
        let back = read(&json, &Options::default()).unwrap();
        assert_eq!(write(&back, &Options::default()).unwrap(), json);
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
        let o = two_level();
        let json = write(&t, &o).unwrap();
        assert!(json.contains("\"comm_hierarchy=node\""));
        assert!(json.contains("\"comm_hierarchy=node_roots\""));
        assert!(json.contains("\"k=2\": {}"));
        let back = read(&json, &o).unwrap();
        assert_eq!(write(&back, &o).unwrap(), json);
        assert!(matches!(
            read(&json, &Options::default()),
            Err(Error::MpichParse { path, .. }) if path == r#"$["collective=bcast"]["comm_type=intra"]["comm_hierarchy=node"]"#
        ));
        let mut f = DecisionTable::new();
        f.insert(bcast(Level::IntraCluster, 4, 0, Algorithm::Flat, None))
            .unwrap();
        assert_eq!(
            write(&f, &Options::default()),
            Err(Error::NoEquivalent {
                library: "MPICH",
                collective: "bcast",
                algorithm: "flat"
            })
        );
    }

    fn path_err(json: &str) -> (String, String) {
        match read(json, &Options::default()) {
            Err(Error::MpichParse { path, reason }) => (path, reason),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn bad_files_name_their_path() {
        let wrap = |inner: &str| {
            format!(
                r#"{{"collective=bcast": {{"comm_type=intra": {{"comm_hierarchy=any": {{"comm_size=any": {inner}}}}}}}}}"#
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
                "collective=NAME",
            ),
            (
                r#"{"collective=bcast": {"comm_type=inter": {}}}"#.into(),
                r#"$["collective=bcast"]["comm_type=inter"]"#.into(),
                "comm_type=intra",
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
                    r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_tree": {"tree_type=kary": {}, "k=3": {}}}}"#,
                ),
                format!(r#"{at}["avg_msg_size=any"]["algorithm=MPIR_Bcast_intra_tree"]"#),
                "3-ary",
            ),
            (
                wrap(
                    r#"{"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_pipelined_tree": {"tree_type=kary": {}, "k=1": {}}}}"#,
                ),
                format!(r#"{at}["avg_msg_size=any"]["algorithm=MPIR_Bcast_intra_pipelined_tree"]"#),
                "needs chunk_size",
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
                r#"{"collective=bcast": {"comm_type=intra": {}}, "collective=bcast": {}}"#.into(),
                r#"$["collective=bcast"]"#.into(),
                "twice",
            ),
        ];
        for (json, path, want) in cases {
            let (p, reason) = path_err(&json);
            assert_eq!(p, path, "{json}: {reason}");
            assert!(reason.contains(want), "{json}: {reason}");
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// write → read → write is the identity on the text, for one and two levels, and what
        /// is read back answers every lookup as the table did.
        #[test]
        fn write_read_write(rules in proptest::collection::vec(crate::mpi::testing::rule(&TREES, 1 << 30), 0..24), two in any::<bool>()) {
            let t = crate::mpi::testing::table(rules, two);
            let o = if two { two_level() } else { Options::default() };
            let json = write(&t, &o).unwrap();
            let back = read(&json, &o).unwrap();
            crate::mpi::testing::same_choices(&t, &back)?;
            prop_assert_eq!(write(&back, &o).unwrap(), json);
        }
    }
}
