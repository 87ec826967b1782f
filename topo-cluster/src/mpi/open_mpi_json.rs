//! Open MPI's JSON dynamic rules file, on its main branch since 2025 (for Open MPI 6.0),
//! read from the same `coll_tuned_dynamic_rules_filename`.
//!
//! **No released Open MPI reads this file**: no release tag up to 5.0.7 (nor any later tag in
//! Open MPI's repository as of August 2026) contains the JSON reader. 4.1.x and 5.0.x read
//! any rules file as the classic layout, skipping every character that does not start a
//! number; run on Open MPI 4.1.4 and 5.0.7 (the crate's conformance test, on Debian 12 and
//! 13), the JSON file is ignored: every collective runs what Open MPI's fixed rules choose. Write
//! [`crate::mpi::open_mpi`]'s classic file for a released Open MPI.
//!
//! The layout: per collective a list of communicator rules
//! (`comm_size_min`, `comm_size_max`, `comm_rank_distribution`, `rules`), each with message
//! rules (`msg_size_min`, `msg_size_max`, `alg`, `faninout`, `seg_size`), first match wins.
//!
//! This is the topology-aware layout Open MPI's main branch reads: with a two-level
//! [`LevelMap`], the intra-node level's communicator rules carry
//! `"comm_rank_distribution": "single-node"` and come first, the inter-node level's carry
//! `"one-per-node"`; a single level writes `"any"`. Communicator sizes cover 0 up to the next
//! size − 1 for the first group size (as the table's lookup does), the last one has no
//! `comm_size_max` (Open MPI's default, `INT_MAX`); message sizes are contiguous ranges, the
//! last up to `"inf"`. `alg` is written as the classic number (the mapping of
//! [`crate::mpi`]); the reader takes a number or Open MPI's name of the algorithm.
//!
//! Read from Open MPI's `coll_tuned_dynamic_file.c`, `coll_tuned_dynamic_rules.c` and
//! `docs/tuning-apps/collectives/tuned.rst` (main, August 2026). Not confirmed: no Open MPI
//! release with this reader was available to run the file through; the documentation's example
//! carries `"rule_file_version": 3` and `"module": "tuned"`, which the reader we read does not
//! check (we write both and require neither).

use fabric_model::Bytes;

use crate::decision::Rule;
use crate::mpi::json::Json;
use crate::mpi::open_mpi::{algorithm_name, algorithm_number, collective_id, tree_of};
use crate::mpi::{LevelMap, Scope, check_levels, rules_for};
use crate::{Collective, DecisionTable, Error};

const LIBRARY: &str = "Open MPI";
const INT_MAX: u64 = i32::MAX as u64;

fn distribution(scope: Scope) -> &'static str {
    match scope {
        Scope::Any => "any",
        Scope::IntraNode => "single-node",
        Scope::InterNode => "one-per-node",
    }
}

fn too_large(what: &'static str, value: u64, max: u64) -> Error {
    Error::TooLarge {
        library: LIBRARY,
        what,
        value,
        max,
    }
}

/// Writes `table` as an Open MPI JSON rules file; `levels` places the table's levels.
///
/// # Errors
/// [`Error::LevelNotMapped`], [`Error::NoEquivalent`], [`Error::MissingZeroRule`],
/// [`Error::TooLarge`] for a communicator size or segment size above `i32::MAX`.
///
/// # Example
/// ```
/// use fabric_model::Bytes;
/// use topo_cluster::decision::Rule;
/// use topo_cluster::mpi::{LevelMap, open_mpi_json};
/// use topo_cluster::{Algorithm, Collective, DecisionTable, Level};
/// let mut t = DecisionTable::new();
/// t.insert(Rule::new(Collective::Broadcast, Level::IntraMachine, 4, Bytes::new(0), Algorithm::Flat))?;
/// t.insert(Rule::new(Collective::Broadcast, Level::IntraCluster, 4, Bytes::new(0), Algorithm::Binomial))?;
/// let levels = LevelMap::two_level(Level::IntraMachine, Level::IntraCluster)?;
/// let json = open_mpi_json::write(&t, &levels)?;
/// assert!(json.contains("\"comm_rank_distribution\": \"single-node\""));
/// assert_eq!(open_mpi_json::write(&open_mpi_json::read(&json, &levels)?, &levels)?, json);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn write(table: &DecisionTable, levels: &LevelMap) -> Result<String, Error> {
    check_levels(table, levels, LIBRARY)?;
    let mut collectives: Vec<Collective> = Collective::ALL
        .into_iter()
        .filter(|&c| table.rules().iter().any(|r| r.collective == c))
        .collect();
    collectives.sort_by_key(|&c| collective_id(c));
    let mut out = String::from(
        "{\n    \"rule_file_version\": 3,\n    \"module\": \"tuned\",\n    \"collectives\": {",
    );
    for (ci, c) in collectives.iter().enumerate() {
        out.push_str(if ci == 0 { "\n" } else { ",\n" });
        out.push_str(&format!("        \"{}\": [", c.name()));
        let mut first_comm = true;
        for (scope, level) in levels.scopes() {
            let mut sizes: Vec<usize> = table
                .rules()
                .iter()
                .filter(|r| r.collective == *c && r.level == level)
                .map(|r| r.procs)
                .collect();
            sizes.dedup();
            for (i, &p) in sizes.iter().enumerate() {
                let min = if i == 0 { 0 } else { p as u64 };
                if min > INT_MAX {
                    return Err(too_large("communicator size", min, INT_MAX));
                }
                let max = match sizes.get(i + 1) {
                    Some(&q) if (q as u64) - 1 < INT_MAX => {
                        format!("\n                \"comm_size_max\": {},", q - 1)
                    }
                    Some(&q) => return Err(too_large("communicator size", q as u64, INT_MAX)),
                    None => String::new(),
                };
                let rules = rules_for(table, *c, level, p);
                if rules.first().is_some_and(|r| r.min_size.get() != 0) {
                    return Err(Error::MissingZeroRule {
                        collective: c.name(),
                        level: level.name(),
                        procs: p,
                    });
                }
                out.push_str(if first_comm { "\n" } else { ",\n" });
                first_comm = false;
                out.push_str(&format!(
                    "            {{\n                \"comm_size_min\": {min},{max}\n                \"comm_rank_distribution\": \"{}\",\n                \"rules\": [",
                    distribution(scope)
                ));
                for (j, r) in rules.iter().enumerate() {
                    let (alg, fan, seg) = algorithm_number(*c, r.algorithm, r.segment)?;
                    let msg_max = match rules.get(j + 1) {
                        Some(n) => (n.min_size.get() - 1).to_string(),
                        None => "\"inf\"".to_owned(),
                    };
                    out.push_str(if j == 0 { "\n" } else { ",\n" });
                    out.push_str(&format!(
                        "                    {{ \"msg_size_min\": {}, \"msg_size_max\": {msg_max}, \"alg\": {alg}, \"faninout\": {fan}, \"seg_size\": {seg} }}",
                        r.min_size.get()
                    ));
                }
                out.push_str("\n                ]\n            }");
            }
        }
        out.push_str("\n        ]");
    }
    out.push_str("\n    }\n}\n");
    Ok(out)
}

fn fail<T>(path: &str, reason: impl Into<String>) -> Result<T, Error> {
    Err(Error::OpenMpiJsonParse {
        path: path.to_owned(),
        reason: reason.into(),
    })
}

fn child(path: &str, key: &str) -> String {
    format!("{path}[{key:?}]")
}

fn object<'a>(v: &'a Json, path: &str) -> Result<&'a [(String, Json)], Error> {
    match v {
        Json::Object(e) => Ok(e),
        other => fail(path, format!("expected an object, found {}", other.kind())),
    }
}

/// The integer field `key` of `obj` (`"inf"` → `None` where `inf_ok`), `None` when absent.
fn field(
    obj: &[(String, Json)],
    key: &str,
    path: &str,
    inf_ok: bool,
) -> Result<Option<Option<u64>>, Error> {
    let mut found = obj.iter().filter(|(k, _)| k == key);
    let Some((_, v)) = found.next() else {
        return Ok(None);
    };
    let p = child(path, key);
    if found.next().is_some() {
        return fail(&p, "given twice");
    }
    match v {
        Json::UInt(n) => Ok(Some(Some(*n))),
        Json::Str(s) if inf_ok && s.eq_ignore_ascii_case("inf") => Ok(Some(None)),
        other => fail(
            &p,
            format!("expected a non-negative integer, found {}", other.kind()),
        ),
    }
}

fn only(obj: &[(String, Json)], keys: &[&str], path: &str) -> Result<(), Error> {
    match obj.iter().find(|(k, _)| !keys.contains(&k.as_str())) {
        Some((k, _)) => fail(&child(path, k), "unknown field"),
        None => Ok(()),
    }
}

/// Reads an Open MPI JSON rules file of the layout [`write()`] writes: the four collectives,
/// communicator rules per distribution in increasing, contiguous ranges from 0 with the last
/// one open, message rules contiguous from 0 to `"inf"`, algorithms that map to a
/// topo-cluster tree.
///
/// # Errors
/// [`Error::OpenMpiJsonParse`] with the JSON path (`$` and serde_json's line and column for a
/// syntax error).
pub fn read(text: &str, levels: &LevelMap) -> Result<DecisionTable, Error> {
    let root: Json = serde_json::from_str(text).map_err(|e| Error::OpenMpiJsonParse {
        path: "$".to_owned(),
        reason: e.to_string(),
    })?;
    let top = object(&root, "$")?;
    only(
        top,
        &["$schema", "rule_file_version", "module", "collectives"],
        "$",
    )?;
    let Some((_, colls)) = top.iter().find(|(k, _)| k == "collectives") else {
        return fail("$", "no \"collectives\" field");
    };
    let cpath = child("$", "collectives");
    let mut table = DecisionTable::new();
    let mut seen = Vec::new();
    for (name, list) in object(colls, &cpath)? {
        let path = child(&cpath, name);
        let Some(collective) = Collective::from_name(name) else {
            return fail(&path, "not bcast, scatter, gather or alltoall");
        };
        if seen.contains(&collective) {
            return fail(&path, "given twice");
        }
        seen.push(collective);
        let Json::Array(comms) = list else {
            return fail(&path, format!("expected an array, found {}", list.kind()));
        };
        // per distribution: the next expected comm_size_min, or None once a range is open
        let mut next: Vec<(Scope, Option<u64>)> = Vec::new();
        for (i, comm) in comms.iter().enumerate() {
            let path = format!("{path}[{i}]");
            let obj = object(comm, &path)?;
            only(
                obj,
                &[
                    "comm_size_min",
                    "comm_size_max",
                    "comm_rank_distribution",
                    "rules",
                ],
                &path,
            )?;
            let scope = match obj.iter().find(|(k, _)| k == "comm_rank_distribution") {
                None => Scope::Any,
                Some((_, Json::Str(d))) => [Scope::Any, Scope::IntraNode, Scope::InterNode]
                    .into_iter()
                    .find(|&s| distribution(s) == d)
                    .map_or_else(
                        || {
                            fail(
                                &child(&path, "comm_rank_distribution"),
                                format!("unknown distribution {d:?}"),
                            )
                        },
                        Ok,
                    )?,
                Some((_, v)) => {
                    return fail(
                        &child(&path, "comm_rank_distribution"),
                        format!("expected a string, found {}", v.kind()),
                    );
                }
            };
            let Some(level) = levels.level(scope) else {
                return fail(
                    &path,
                    format!(
                        "distribution {:?} has no level in the level map",
                        distribution(scope)
                    ),
                );
            };
            let min = field(obj, "comm_size_min", &path, false)?
                .flatten()
                .unwrap_or(0);
            let max = field(obj, "comm_size_max", &path, false)?.flatten();
            let expected = match next.iter().find(|(s, _)| *s == scope) {
                None => Some(0),
                Some((_, e)) => *e,
            };
            if expected != Some(min) {
                return fail(
                    &path,
                    match expected {
                        Some(e) => {
                            format!("comm_size_min {min}: expected {e} (contiguous ranges from 0)")
                        }
                        None => "follows this distribution's open-ended range".to_owned(),
                    },
                );
            }
            if min > INT_MAX || max.is_some_and(|m| m < min || m >= INT_MAX) {
                return fail(
                    &path,
                    "communicator sizes must be increasing and below i32::MAX",
                );
            }
            let after = max.map(|m| m + 1);
            match next.iter_mut().find(|(s, _)| *s == scope) {
                Some((_, e)) => *e = after,
                None => next.push((scope, after)),
            }
            let procs = usize::try_from(min.max(1)).map_err(|_| Error::OpenMpiJsonParse {
                path: path.clone(),
                reason: "communicator size too large".to_owned(),
            })?;
            let Some((_, rules)) = obj.iter().find(|(k, _)| k == "rules") else {
                return fail(&path, "no \"rules\" field");
            };
            let rpath = child(&path, "rules");
            let Json::Array(rules) = rules else {
                return fail(&rpath, format!("expected an array, found {}", rules.kind()));
            };
            let mut expect_msg = Some(0_u64);
            for (j, rule) in rules.iter().enumerate() {
                let path = format!("{rpath}[{j}]");
                let obj = object(rule, &path)?;
                only(
                    obj,
                    &[
                        "msg_size_min",
                        "msg_size_max",
                        "alg",
                        "faninout",
                        "seg_size",
                        "reqs",
                    ],
                    &path,
                )?;
                let m = field(obj, "msg_size_min", &path, false)?
                    .flatten()
                    .unwrap_or(0);
                if expect_msg != Some(m) {
                    return fail(
                        &path,
                        match expect_msg {
                            Some(e) => {
                                format!("msg_size_min {m}: expected {e} (contiguous ranges from 0)")
                            }
                            None => "follows the rule up to \"inf\"".to_owned(),
                        },
                    );
                }
                expect_msg = match field(obj, "msg_size_max", &path, true)? {
                    None | Some(None) => None,
                    Some(Some(x)) if x >= m && x < u64::MAX => Some(x + 1),
                    Some(Some(x)) => {
                        return fail(&path, format!("msg_size_max {x} is below msg_size_min {m}"));
                    }
                };
                let fan = field(obj, "faninout", &path, false)?.flatten().unwrap_or(0);
                let seg = field(obj, "seg_size", &path, false)?.flatten().unwrap_or(0);
                field(obj, "reqs", &path, false)?;
                if fan > INT_MAX || seg > INT_MAX {
                    return fail(&path, "faninout and seg_size must fit an int");
                }
                let apath = child(&path, "alg");
                let number = match obj.iter().find(|(k, _)| k == "alg") {
                    Some((_, Json::UInt(n))) => *n,
                    Some((_, Json::Str(s))) => {
                        match (0..16).find(|&n| algorithm_name(collective, n) == s) {
                            Some(n) => n,
                            None => {
                                return fail(
                                    &apath,
                                    format!("unknown {} algorithm {s:?}", collective.name()),
                                );
                            }
                        }
                    }
                    Some((_, v)) => {
                        return fail(
                            &apath,
                            format!("expected a number or a name, found {}", v.kind()),
                        );
                    }
                    None => return fail(&path, "no \"alg\" field"),
                };
                let (algorithm, s) = tree_of(collective, number, fan, seg).map_err(|reason| {
                    Error::OpenMpiJsonParse {
                        path: apath.clone(),
                        reason,
                    }
                })?;
                table
                    .insert(
                        Rule::new(collective, level, procs, Bytes::new(m), algorithm).segment(s),
                    )
                    .map_err(|e| Error::OpenMpiJsonParse {
                        path: path.clone(),
                        reason: e.to_string(),
                    })?;
            }
            if expect_msg.is_some() {
                return fail(&rpath, "the last rule must reach \"inf\"");
            }
        }
        if let Some((s, _)) = next.iter().find(|(_, e)| e.is_some()) {
            return fail(
                &path,
                format!(
                    "the last {:?} range must be open (no comm_size_max)",
                    distribution(*s)
                ),
            );
        }
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Algorithm, Level};
    use proptest::prelude::*;

    /// The trees the format has.
    const TREES: [(Collective, Algorithm); 6] = [
        (Collective::Broadcast, Algorithm::Flat),
        (Collective::Broadcast, Algorithm::Chain),
        (Collective::Broadcast, Algorithm::SegmentedChain),
        (Collective::Broadcast, Algorithm::Binary),
        (Collective::Gather, Algorithm::Binomial),
        (Collective::AllToAll, Algorithm::Direct),
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// write → read → write is the identity on the text; lookups agree.
        #[test]
        fn write_read_write(rules in proptest::collection::vec(crate::mpi::testing::rule(&TREES, 1 << 40), 0..24), two in any::<bool>()) {
            let t = crate::mpi::testing::table(rules, two);
            let lv = if two { two_level() } else { LevelMap::single(Level::IntraCluster) };
            let json = write(&t, &lv).unwrap();
            let back = read(&json, &lv).unwrap();
            crate::mpi::testing::same_choices(&t, &back)?;
            prop_assert_eq!(write(&back, &lv).unwrap(), json);
        }
    }

    fn two_level() -> LevelMap {
        LevelMap::two_level(Level::IntraMachine, Level::IntraCluster).expect("distinct")
    }

    fn sample() -> DecisionTable {
        let mut t = DecisionTable::new();
        for r in [
            Rule::new(
                Collective::Broadcast,
                Level::IntraMachine,
                4,
                Bytes::new(0),
                Algorithm::Flat,
            ),
            Rule::new(
                Collective::Broadcast,
                Level::IntraCluster,
                2,
                Bytes::new(0),
                Algorithm::Binomial,
            ),
            Rule::new(
                Collective::Broadcast,
                Level::IntraCluster,
                8,
                Bytes::new(0),
                Algorithm::Binomial,
            ),
            Rule::new(
                Collective::Broadcast,
                Level::IntraCluster,
                8,
                Bytes::new(16384),
                Algorithm::SegmentedChain,
            )
            .segment(Some(Bytes::new(1024))),
            Rule::new(
                Collective::AllToAll,
                Level::IntraCluster,
                8,
                Bytes::new(0),
                Algorithm::Direct,
            ),
        ] {
            t.insert(r).unwrap();
        }
        t
    }

    #[test]
    fn two_levels_round_trip() {
        let t = sample();
        let json = write(&t, &two_level()).unwrap();
        assert!(
            json.contains("\"comm_rank_distribution\": \"single-node\""),
            "{json}"
        );
        assert!(
            json.contains("\"comm_rank_distribution\": \"one-per-node\""),
            "{json}"
        );
        assert!(json.contains("{ \"msg_size_min\": 16384, \"msg_size_max\": \"inf\", \"alg\": 3, \"faninout\": 0, \"seg_size\": 1024 }"), "{json}");
        // it is valid JSON for serde_json too
        let _: serde_json::Value = serde_json::from_str(&json).unwrap();
        let back = read(&json, &two_level()).unwrap();
        for r in back.rules() {
            let o = t
                .lookup(r.collective, r.level, r.procs, r.min_size)
                .unwrap();
            assert_eq!((o.algorithm, o.segment), (r.algorithm, r.segment));
        }
        assert_eq!(write(&back, &two_level()).unwrap(), json);
        // single level: "any"
        let mut one = DecisionTable::new();
        for r in t.rules().iter().filter(|r| r.level == Level::IntraCluster) {
            one.insert(*r).unwrap();
        }
        let single = LevelMap::single(Level::IntraCluster);
        let j1 = write(&one, &single).unwrap();
        assert!(j1.contains("\"any\""));
        assert_eq!(write(&read(&j1, &single).unwrap(), &single).unwrap(), j1);
    }

    #[test]
    fn bad_files_name_their_path() {
        let lv = LevelMap::single(Level::IntraCluster);
        let cases = [
            ("{", "$", "EOF"),
            (
                r#"{"collectives": {"reduce": []}}"#,
                r#"$["collectives"]["reduce"]"#,
                "not bcast",
            ),
            (
                r#"{"collectives": {"bcast": [{"comm_size_min": 4, "rules": []}]}}"#,
                r#"$["collectives"]["bcast"][0]"#,
                "expected 0",
            ),
            (
                r#"{"collectives": {"bcast": [{"rules": [{"msg_size_min": 0, "alg": 7}]}]}}"#,
                r#"$["collectives"]["bcast"][0]["rules"][0]["alg"]"#,
                "knomial",
            ),
            (
                r#"{"collectives": {"bcast": [{"rules": [{"alg": "binomial", "msg_size_max": 9}]}]}}"#,
                r#"$["collectives"]["bcast"][0]["rules"]"#,
                "reach \"inf\"",
            ),
            (
                r#"{"collectives": {"bcast": [{"comm_size_max": 3, "rules": [{"alg": 1}]}]}}"#,
                r#"$["collectives"]["bcast"]"#,
                "must be open",
            ),
            (
                r#"{"collectives": {"bcast": [{"comm_rank_distribution": "one-per-node", "rules": [{"alg": 1}]}]}}"#,
                r#"$["collectives"]["bcast"][0]"#,
                "no level",
            ),
            (
                r#"{"collectives": {"bcast": [{"rules": [{"alg": 1, "faninout": -1}]}]}}"#,
                r#"$["collectives"]["bcast"][0]["rules"][0]["faninout"]"#,
                "non-negative",
            ),
            (
                r#"{"collectives": {"bcast": [{"rules": [{"alg": 1, "color": 1}]}]}}"#,
                r#"$["collectives"]["bcast"][0]["rules"][0]["color"]"#,
                "unknown field",
            ),
        ];
        for (json, path, want) in cases {
            match read(json, &lv) {
                Err(Error::OpenMpiJsonParse { path: p, reason }) => {
                    assert_eq!(p, path, "{json}: {reason}");
                    assert!(reason.contains(want), "{json}: {reason}");
                }
                other => panic!("{json}: expected an error, got {other:?}"),
            }
        }
        // names and numbers, omitted defaults
        let ok = r#"{"collectives": {"bcast": [{"rules": [{"alg": "binomial"}]}]}}"#;
        let t = read(ok, &lv).unwrap();
        assert_eq!(t.rules()[0].algorithm, Algorithm::Binomial);
        assert_eq!(t.rules()[0].procs, 1);
    }
}
