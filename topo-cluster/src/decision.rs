//! Decision tables: the best algorithm and segment size per (collective, level, group size,
//! message size), as Open MPI's tuned dynamic rules and HAN's per-level rules store them, with
//! a text form that can be saved and read back.
//!
//! Text form (one rule per line, `#` starts a comment, blank lines ignored):
//!
//! ```text
//! topo-decisions 1
//! # collective level procs min_bytes algorithm segment predicted_ns
//! bcast intra-cluster 8 0 binomial - 190562
//! bcast intra-cluster 8 16384 seg-chain 1024 2748957
//! ```
//!
//! A rule applies from `min_bytes` up to the next rule's size; every (collective, level,
//! procs) needs a rule at size 0. `segment` is `-` for unsegmented algorithms,
//! `predicted_ns` is `-` when unknown.

use std::fmt;

use fabric_model::{Bytes, Nanos};

use crate::collective::{Evaluator, SegmentGrid, best_algorithm_among};
use crate::{Algorithm, Collective, Error, Level, PLogP};

/// What [`DecisionTable::compute`] computes: one collective at one level over a pLogP
/// model, for group sizes and message sizes, among candidate trees (every tree of the
/// collective unless [`Compute::among`] says otherwise), with a segment grid (the default)
/// and an evaluator ([`Evaluator::ClosedForm`] unless set).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Compute<'a> {
    collective: Collective,
    level: Level,
    params: &'a PLogP,
    candidates: Option<Vec<Algorithm>>,
    group_sizes: Vec<usize>,
    message_sizes: Vec<Bytes>,
    grid: SegmentGrid,
    evaluator: Evaluator,
}

impl<'a> Compute<'a> {
    /// `collective` at `level` over `params`, no group or message size yet.
    #[must_use]
    pub fn new(collective: Collective, level: Level, params: &'a PLogP) -> Self {
        Self {
            collective,
            level,
            params,
            candidates: None,
            group_sizes: Vec::new(),
            message_sizes: Vec::new(),
            grid: SegmentGrid::default(),
            evaluator: Evaluator::ClosedForm,
        }
    }

    /// Chooses among `candidates` only (e.g. the trees an MPI library has).
    #[must_use]
    pub fn among(mut self, candidates: &[Algorithm]) -> Self {
        self.candidates = Some(candidates.to_vec());
        self
    }

    /// The group sizes (communicator sizes) to compute rules for.
    #[must_use]
    pub fn group_sizes(mut self, sizes: &[usize]) -> Self {
        self.group_sizes = sizes.to_vec();
        self
    }

    /// The message sizes to evaluate (size 0 is always added).
    #[must_use]
    pub fn message_sizes(mut self, sizes: &[Bytes]) -> Self {
        self.message_sizes = sizes.to_vec();
        self
    }

    /// The segment sizes tried for segmented trees.
    #[must_use]
    pub const fn grid(mut self, grid: SegmentGrid) -> Self {
        self.grid = grid;
        self
    }

    /// How candidates are evaluated.
    #[must_use]
    pub const fn evaluator(mut self, evaluator: Evaluator) -> Self {
        self.evaluator = evaluator;
        self
    }
}

/// The header line of the text form.
///
/// [`DecisionTable`]'s `Display` writes the whole text form, header included.
pub const HEADER: &str = "topo-decisions 1";

/// One rule of a decision table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub struct Rule {
    /// The collective.
    pub collective: Collective,
    /// The hierarchy level.
    pub level: Level,
    /// The group size (processes per communicator at that level).
    pub procs: usize,
    /// The smallest message size the rule applies to.
    pub min_size: Bytes,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Its segment size (segmented algorithms only).
    pub segment: Option<Bytes>,
    /// The predicted time at `min_size`, rounded to the nanosecond, when known.
    pub predicted: Option<Nanos>,
}

impl Rule {
    /// The rule choosing `algorithm` for `collective` at `level` over `procs` processes from
    /// message size `min_size` on, with no segment size and no predicted time.
    #[must_use]
    pub const fn new(
        collective: Collective,
        level: Level,
        procs: usize,
        min_size: Bytes,
        algorithm: Algorithm,
    ) -> Self {
        Self {
            collective,
            level,
            procs,
            min_size,
            algorithm,
            segment: None,
            predicted: None,
        }
    }

    /// Sets the segment size (segmented algorithms only).
    #[must_use]
    pub const fn segment(mut self, segment: Option<Bytes>) -> Self {
        self.segment = segment;
        self
    }

    /// Sets the predicted time at `min_size`.
    #[must_use]
    pub const fn predicted(mut self, predicted: Option<Nanos>) -> Self {
        self.predicted = predicted;
        self
    }

    fn key(&self) -> (Collective, Level, usize, Bytes) {
        (self.collective, self.level, self.procs, self.min_size)
    }
}

impl fmt::Display for Rule {
    /// The rule's line of the text form: `bcast intra-cluster 8 16384 seg-chain 1024 2748957`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
        write!(
            f,
            "{} {} {} {} {} {} {}",
            self.collective.name(),
            self.level.name(),
            self.procs,
            self.min_size.get(),
            self.algorithm.name(),
            opt(self.segment.map(Bytes::get)),
            opt(self.predicted.map(Nanos::get))
        )
    }
}

/// A set of rules, kept sorted by (collective, level, procs, min_size), one rule per key.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DecisionTable {
    rules: Vec<Rule>,
}

impl DecisionTable {
    /// An empty table.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The rules, sorted.
    #[must_use]
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Adds `rule`, replacing the rule with the same key (so measured rules can override
    /// model-derived ones).
    ///
    /// # Errors
    /// [`Error::NoProcesses`], [`Error::UnsupportedAlgorithm`],
    /// [`Error::ZeroSegment`] (a segmented algorithm without a segment size).
    pub fn insert(&mut self, rule: Rule) -> Result<(), Error> {
        validate(&rule)?;
        match self.rules.binary_search_by(|r| r.key().cmp(&rule.key())) {
            Ok(i) => self.rules[i] = rule,
            Err(i) => self.rules.insert(i, rule),
        }
        Ok(())
    }

    /// Computes the rules `spec` describes: for each of its group sizes, the best choice at
    /// each of its message sizes (and 0) among its candidate trees (every tree of the
    /// collective unless [`Compute::among`] restricts them), one rule each time the choice
    /// changes. **Each MPI library needs its own table**: a file names only the library's
    /// algorithms, so compute it among [`crate::mpi::open_mpi::Version::trees`] or
    /// [`crate::mpi::mpich::Version::trees`], or the writer reports [`Error::NoEquivalent`]
    /// for the best tree overall. Group sizes may come from a hierarchy
    /// ([`crate::Hierarchy::communicator_sizes`]).
    ///
    /// # Errors
    /// [`Error::NoProcesses`] for a group size of 0, [`Error::NoCandidate`] for an empty
    /// candidate list, [`Error::UnsupportedAlgorithm`] for a candidate of another collective.
    ///
    /// # Complexity
    /// O(|group sizes| · |message sizes|) calls of [`best_algorithm_among`].
    ///
    /// # Example
    /// ```
    /// use fabric_model::Bytes;
    /// use topo_cluster::decision::Compute;
    /// use topo_cluster::mpi::mpich;
    /// use topo_cluster::{Collective, DecisionTable, Level, PLogP};
    /// let p = PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5)?;
    /// let mut t = DecisionTable::new();
    /// let sizes = [1, 1024, 16 << 10, 1 << 20].map(Bytes::new);
    /// t.compute(&Compute::new(Collective::Broadcast, Level::IntraCluster, &p)
    ///     .group_sizes(&[8, 20])
    ///     .message_sizes(&sizes))?;
    /// let r = t.lookup(Collective::Broadcast, Level::IntraCluster, 8, Bytes::new(100_000))?;
    /// assert_eq!(r.algorithm.name(), "seg-chain");
    /// assert_eq!(r.to_string(), "bcast intra-cluster 8 16384 seg-chain 1024 2748957");
    /// assert_eq!(DecisionTable::parse(&t.to_text())?, t);
    ///
    /// // among the trees MPICH 4.0 has
    /// let c = Collective::Broadcast;
    /// let mut m = DecisionTable::new();
    /// m.compute(&Compute::new(c, Level::IntraCluster, &p)
    ///     .among(&mpich::Version::V4_0.trees(c))
    ///     .group_sizes(&[4, 16])
    ///     .message_sizes(&[1, 1 << 20].map(Bytes::new)))?;
    /// assert!(m.rules().iter().all(|r| r.algorithm.name() == "binomial"));
    /// # Ok::<(), topo_cluster::Error>(())
    /// ```
    pub fn compute(&mut self, spec: &Compute<'_>) -> Result<(), Error> {
        let collective = spec.collective;
        let level = spec.level;
        let candidates = spec
            .candidates
            .as_deref()
            .unwrap_or(collective.algorithms());
        let mut sizes: Vec<Bytes> = spec.message_sizes.clone();
        sizes.push(Bytes::new(0));
        sizes.sort_unstable();
        sizes.dedup();
        for &procs in &spec.group_sizes {
            let mut last: Option<(Algorithm, Option<Bytes>)> = None;
            for &m in &sizes {
                let c = best_algorithm_among(
                    collective,
                    candidates,
                    procs,
                    m,
                    spec.params,
                    &spec.grid,
                    spec.evaluator,
                )?;
                if last != Some((c.algorithm, c.segment)) {
                    last = Some((c.algorithm, c.segment));
                    self.insert(Rule {
                        collective,
                        level,
                        procs,
                        min_size: m,
                        algorithm: c.algorithm,
                        segment: c.segment,
                        predicted: Some(Nanos::new(c.time_ns.round() as u64)),
                    })?;
                }
            }
        }
        Ok(())
    }

    /// The rule for a query: among the rules of (collective, level), the group size is the
    /// largest one ≤ `procs` (the smallest one if all are larger), and the rule is the one with
    /// the largest `min_size` ≤ `m`.
    ///
    /// # Errors
    /// [`Error::NoRule`] when (collective, level) has no rule,
    /// [`Error::MissingZeroRule`] when the group size has no rule at size 0 (only possible
    /// in tables built by [`DecisionTable::insert`]).
    ///
    /// # Complexity
    /// O(log r + k) for r rules, k of them for (collective, level).
    pub fn lookup(
        &self,
        collective: Collective,
        level: Level,
        procs: usize,
        m: Bytes,
    ) -> Result<&Rule, Error> {
        let lo = self
            .rules
            .partition_point(|r| (r.collective, r.level) < (collective, level));
        let hi = self
            .rules
            .partition_point(|r| (r.collective, r.level) <= (collective, level));
        let group = &self.rules[lo..hi];
        let no_rule = Error::NoRule {
            collective: collective.name(),
            level: level.name(),
            procs,
        };
        let first = group.first().ok_or(no_rule)?;
        let size = group
            .iter()
            .map(|r| r.procs)
            .filter(|&p| p <= procs)
            .max()
            .unwrap_or(first.procs);
        group
            .iter()
            .filter(|r| r.procs == size && r.min_size <= m)
            .max_by_key(|r| r.min_size)
            .ok_or(Error::MissingZeroRule {
                collective: collective.name(),
                level: level.name(),
                procs: size,
            })
    }

    /// Writes the text form.
    ///
    /// # Errors
    /// The writer's error.
    pub fn write(&self, out: &mut impl fmt::Write) -> fmt::Result {
        writeln!(out, "{HEADER}")?;
        writeln!(
            out,
            "# collective level procs min_bytes algorithm segment predicted_ns"
        )?;
        for r in &self.rules {
            writeln!(out, "{r}")?;
        }
        Ok(())
    }

    /// The text form as a string (the same as `Display`).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        // writing to a String cannot fail
        let _ = self.write(&mut s);
        s
    }

    /// Reads the text form. Rules may come in any order; a key given twice, a missing header
    /// and a (collective, level, procs) without a size-0 rule are errors.
    ///
    /// # Errors
    /// [`Error::Parse`] with the 1-based line number, [`Error::MissingZeroRule`].
    ///
    /// # Complexity
    /// O(r log r) for r rules.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let mut table = Self::new();
        let mut header = false;
        for (n, raw) in text.lines().enumerate() {
            let line_no = n + 1;
            let err = |reason: String| Error::Parse {
                line: line_no,
                reason,
            };
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if !header {
                if line.split_whitespace().collect::<Vec<_>>()
                    != HEADER.split(' ').collect::<Vec<_>>()
                {
                    return Err(err(format!("expected header {HEADER:?}, found {line:?}")));
                }
                header = true;
                continue;
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            let [c, l, p, m, a, s, t] = f[..] else {
                return Err(err(format!("expected 7 fields, found {}", f.len())));
            };
            let collective =
                Collective::from_name(c).ok_or_else(|| err(format!("unknown collective {c:?}")))?;
            let level = Level::from_name(l).ok_or_else(|| err(format!("unknown level {l:?}")))?;
            let int = |what: &str, v: &str| -> Result<u64, Error> {
                if v.is_empty()
                    || !v.bytes().all(|b| b.is_ascii_digit())
                    || (v.len() > 1 && v.starts_with('0'))
                {
                    return Err(err(format!(
                        "{what} {v:?} is not a canonical unsigned integer"
                    )));
                }
                v.parse::<u64>()
                    .map_err(|e| err(format!("{what} {v:?}: {e}")))
            };
            let opt = |what: &str, v: &str| -> Result<Option<u64>, Error> {
                if v == "-" {
                    Ok(None)
                } else {
                    int(what, v).map(Some)
                }
            };
            let procs = usize::try_from(int("procs", p)?)
                .map_err(|_| err(format!("procs {p:?} too large")))?;
            let min_size = Bytes::new(int("min_bytes", m)?);
            let algorithm =
                Algorithm::from_name(a).ok_or_else(|| err(format!("unknown algorithm {a:?}")))?;
            let segment = opt("segment", s)?.map(Bytes::new);
            let predicted = opt("predicted_ns", t)?.map(Nanos::new);
            if algorithm.is_segmented() != segment.is_some() {
                return Err(err(format!(
                    "algorithm {a} {} a segment size",
                    if algorithm.is_segmented() {
                        "needs"
                    } else {
                        "takes no"
                    }
                )));
            }
            let rule = Rule {
                collective,
                level,
                procs,
                min_size,
                algorithm,
                segment,
                predicted,
            };
            if table
                .rules
                .binary_search_by(|r| r.key().cmp(&rule.key()))
                .is_ok()
            {
                return Err(err("a rule for the same key was given before".to_owned()));
            }
            table.insert(rule).map_err(|e| err(e.to_string()))?;
        }
        if !header {
            return Err(Error::Parse {
                line: text.lines().count().max(1),
                reason: format!("missing header {HEADER:?}"),
            });
        }
        let mut i = 0;
        while i < table.rules.len() {
            let r = table.rules[i];
            if r.min_size.get() != 0 {
                return Err(Error::MissingZeroRule {
                    collective: r.collective.name(),
                    level: r.level.name(),
                    procs: r.procs,
                });
            }
            while i < table.rules.len()
                && (
                    table.rules[i].collective,
                    table.rules[i].level,
                    table.rules[i].procs,
                ) == (r.collective, r.level, r.procs)
            {
                i += 1;
            }
        }
        Ok(table)
    }
}

fn validate(rule: &Rule) -> Result<(), Error> {
    crate::trees::check(
        rule.collective,
        rule.algorithm,
        rule.procs,
        rule.segment.map(Bytes::get),
    )?;
    if !rule.algorithm.is_segmented() && rule.segment.is_some() {
        return Err(Error::UnexpectedSegment {
            algorithm: rule.algorithm.name(),
        });
    }
    Ok(())
}

impl fmt::Display for DecisionTable {
    /// The text form, as [`DecisionTable::write`] writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fast_ethernet() -> PLogP {
        PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5).unwrap()
    }

    fn sample() -> DecisionTable {
        let mut t = DecisionTable::new();
        let sizes: Vec<Bytes> = (0..23).map(|k| Bytes::new(1 << k)).collect();
        for c in Collective::ALL {
            t.compute(
                &Compute::new(c, Level::IntraCluster, &fast_ethernet())
                    .group_sizes(&[2, 8, 20])
                    .message_sizes(&sizes),
            )
            .unwrap();
        }
        t
    }

    #[test]
    fn round_trip_and_lookup() {
        let t = sample();
        let text = t.to_text();
        assert!(text.starts_with(HEADER));
        let back = DecisionTable::parse(&text).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.to_text(), text);
        // lookups follow the model's choice at the breakpoints
        let r = t
            .lookup(
                Collective::Broadcast,
                Level::IntraCluster,
                8,
                Bytes::new(1 << 20),
            )
            .unwrap();
        assert_eq!(
            (r.algorithm, r.segment),
            (Algorithm::SegmentedChain, Some(Bytes::from_kib(8)))
        );
        // 12 processes use the 8-process rules; 1 process the smallest group size
        let r12 = t
            .lookup(
                Collective::Broadcast,
                Level::IntraCluster,
                12,
                Bytes::new(1 << 20),
            )
            .unwrap();
        assert_eq!(r12.procs, 8);
        assert_eq!(
            t.lookup(Collective::Broadcast, Level::IntraCluster, 1, Bytes::new(0))
                .unwrap()
                .procs,
            2
        );
        assert_eq!(
            t.lookup(Collective::Broadcast, Level::InterCluster, 8, Bytes::new(0)),
            Err(Error::NoRule {
                collective: "bcast",
                level: "inter-cluster",
                procs: 8
            })
        );
    }

    #[test]
    fn overrides_replace_model_rules() {
        let mut t = sample();
        let n = t.rules().len();
        let r = Rule::new(
            Collective::Broadcast,
            Level::IntraCluster,
            8,
            Bytes::new(0),
            Algorithm::Flat,
        );
        t.insert(r).unwrap();
        assert_eq!(t.rules().len(), n);
        assert_eq!(
            t.lookup(Collective::Broadcast, Level::IntraCluster, 8, Bytes::new(1))
                .unwrap(),
            &r
        );
        assert_eq!(
            t.insert(Rule {
                algorithm: Algorithm::SegmentedChain,
                ..r
            }),
            Err(Error::ZeroSegment)
        );
        assert_eq!(
            t.insert(Rule {
                segment: Some(Bytes::new(4)),
                ..r
            }),
            Err(Error::UnexpectedSegment { algorithm: "flat" })
        );
        // a table built by insert only may lack the size-0 rule
        let mut u = DecisionTable::new();
        u.insert(Rule {
            min_size: Bytes::new(10),
            ..r
        })
        .unwrap();
        assert_eq!(
            u.lookup(Collective::Broadcast, Level::IntraCluster, 8, Bytes::new(5)),
            Err(Error::MissingZeroRule {
                collective: "bcast",
                level: "intra-cluster",
                procs: 8
            })
        );
    }

    fn parse_err(text: &str) -> (usize, String) {
        match DecisionTable::parse(text) {
            Err(Error::Parse { line, reason }) => (line, reason),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn parse_errors_name_the_line() {
        let h = format!("{HEADER}\n");
        assert_eq!(parse_err("bcast intra-cluster 8 0 flat - -\n").0, 1);
        assert_eq!(parse_err("").0, 1);
        assert_eq!(parse_err("# only a comment\n").0, 1);
        let cases = [
            ("bcast intra-cluster 8 0 flat -", "7 fields"),
            ("reduce intra-cluster 8 0 flat - -", "unknown collective"),
            ("bcast grid 8 0 flat - -", "unknown level"),
            ("bcast intra-cluster x 0 flat - -", "procs"),
            ("bcast intra-cluster 8 -1 flat - -", "min_bytes"),
            ("bcast intra-cluster 8 00 flat - -", "canonical"),
            (
                "bcast intra-cluster 8 99999999999999999999 flat - -",
                "min_bytes",
            ),
            ("bcast intra-cluster 8 0 ring - -", "unknown algorithm"),
            ("bcast intra-cluster 8 0 seg-chain - -", "needs"),
            ("bcast intra-cluster 8 0 flat 1024 -", "takes no"),
            (
                "gather intra-cluster 8 0 binary - -",
                "not a gather algorithm",
            ),
            ("bcast intra-cluster 0 0 flat - -", "zero processes"),
            (
                "bcast intra-cluster 8 0 seg-chain 0 -",
                "segment size must be positive",
            ),
        ];
        for (line, want) in cases {
            let (n, reason) = parse_err(&format!("{h}\n{line}\n"));
            assert_eq!(n, 3, "{line}");
            assert!(reason.contains(want), "{line}: {reason}");
        }
        let dup =
            format!("{h}bcast intra-cluster 8 0 flat - -\nbcast intra-cluster 8 0 chain - -\n");
        assert_eq!(
            parse_err(&dup),
            (3, "a rule for the same key was given before".into())
        );
        let no_zero =
            format!("{h}bcast intra-cluster 8 0 flat - -\nscatter inter-cluster 4 64 flat - -\n");
        assert_eq!(
            DecisionTable::parse(&no_zero),
            Err(Error::MissingZeroRule {
                collective: "scatter",
                level: "inter-cluster",
                procs: 4
            })
        );
        // comments, blank lines and any order are fine
        let ok = format!(
            "# saved\n{h}\nbcast intra-cluster 8 64 chain - 5 # big\nbcast intra-cluster 8 0 flat - -\n"
        );
        let t = DecisionTable::parse(&ok).unwrap();
        assert_eq!(t.rules().len(), 2);
        assert_eq!(t.rules()[0].min_size, Bytes::new(0));
        assert_eq!(t.rules()[1].predicted, Some(Nanos::new(5)));
        assert_eq!(
            t.rules()[1].to_string(),
            "bcast intra-cluster 8 64 chain - 5"
        );
    }

    fn rule() -> impl Strategy<Value = Rule> {
        (
            0_usize..4,
            0_usize..3,
            1_usize..100,
            0_u64..5,
            any::<u64>(),
            0_usize..7,
            1_u64..u64::MAX,
            proptest::option::of(any::<u64>()),
        )
            .prop_map(|(c, l, procs, bucket, bytes, a, seg, t)| {
                let collective = Collective::ALL[c];
                let algs = collective.algorithms();
                let algorithm = algs[a % algs.len()];
                Rule::new(
                    collective,
                    Level::ALL[l],
                    procs,
                    Bytes::new(if bucket == 0 { 0 } else { bytes }),
                    algorithm,
                )
                .segment(algorithm.is_segmented().then_some(Bytes::new(seg)))
                .predicted(t.map(Nanos::new))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any valid table (with its size-0 rules) survives write → read unchanged, and the
        /// text is a fixed point of read → write.
        #[test]
        fn text_round_trips(rules in proptest::collection::vec(rule(), 0..20)) {
            let mut t = DecisionTable::new();
            for r in rules {
                t.insert(r).unwrap();
                t.insert(Rule { min_size: Bytes::new(0), ..r }).unwrap();
            }
            let text = t.to_text();
            let back = DecisionTable::parse(&text).unwrap();
            prop_assert_eq!(&back, &t);
            prop_assert_eq!(back.to_text(), text);
        }
    }
}
