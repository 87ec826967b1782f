//! The fence blob: what a node contributes to a fence with data collection, and what a
//! direct-modex answer carries.
//!
//! Paper §4.2.2: "a data block consists of header information and per-process components
//! ordered by rank; each component is the process identifier and its key-value pairs". The
//! byte layouts are in [`crate::codec`].

use crate::codec::MAX_DEPTH;
use crate::error::{Error, Result};
use crate::ident::{MAX_NSLEN, Rank, check_nspace};
use crate::keys::check_key;
use crate::value::Value;

/// One process's component of a blob: its rank and its key-value pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcEntry {
    /// The process's rank in the blob's namespace.
    pub rank: Rank,
    /// Its key-value pairs, in the order they were committed.
    pub kvs: Vec<(String, Value)>,
}

/// A blob: one namespace, per-process entries in strictly increasing rank order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenceBlob {
    /// The namespace of every process in the blob (a fence's participants share one; paper
    /// §4.2.2 (1)).
    pub nspace: String,
    /// Whether the fence collects data (`PMIX_COLLECT_DATA`); a barrier-only blob has no entries.
    pub collect: bool,
    /// Per-process entries, strictly increasing by rank.
    pub entries: Vec<ProcEntry>,
}

impl FenceBlob {
    /// An empty blob for `nspace`.
    #[must_use]
    pub fn new(nspace: impl Into<String>, collect: bool) -> Self {
        Self {
            nspace: nspace.into(),
            collect,
            entries: Vec::new(),
        }
    }

    /// Checks what every layout needs: a valid namespace and keys, entries naming real
    /// processes in strictly increasing rank order, and values nested at most
    /// [`crate::codec::MAX_DEPTH`] deep with valid process namespaces.
    ///
    /// # Errors
    /// [`Error::BadNspaceLength`], [`Error::BadKeyLength`], [`Error::Unordered`],
    /// [`Error::BadRank`] or [`Error::TooDeep`].
    pub fn validate(&self) -> Result<()> {
        check_nspace(&self.nspace)?;
        for e in &self.entries {
            for (k, v) in &e.kvs {
                check_key(k)?;
                check_value(v, 0)?;
            }
        }
        let mut prev: Option<Rank> = None;
        for (index, e) in self.entries.iter().enumerate() {
            if !e.rank.is_valid() {
                return Err(Error::BadRank {
                    rank: e.rank,
                    reason: "blob entries must name real processes",
                });
            }
            if prev.is_some_and(|p| p >= e.rank) {
                return Err(Error::Unordered {
                    index,
                    rank: e.rank,
                });
            }
            prev = Some(e.rank);
        }
        Ok(())
    }

    /// Total number of key-value pairs.
    #[must_use]
    pub fn pair_count(&self) -> usize {
        self.entries.iter().map(|e| e.kvs.len()).sum()
    }
}

fn check_value(v: &Value, depth: usize) -> Result<()> {
    match v {
        Value::Array(items) => {
            if depth >= MAX_DEPTH {
                return Err(Error::TooDeep {
                    limit: MAX_DEPTH,
                    offset: 0,
                });
            }
            items.iter().try_for_each(|i| check_value(i, depth + 1))
        }
        Value::Proc { nspace, .. } if nspace.len() > MAX_NSLEN => {
            Err(Error::BadNspaceLength { len: nspace.len() })
        }
        _ => Ok(()),
    }
}
