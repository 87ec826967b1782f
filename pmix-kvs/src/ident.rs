//! Identities: interned namespaces, ranks and process ids.

use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::{Error, Result};

/// Longest namespace, in bytes (`PMIX_MAX_NSLEN`).
pub const MAX_NSLEN: usize = 255;

/// A process rank within its namespace (`pmix_rank_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(pub(crate) u32);

impl Rank {
    /// Rank `r` (values from [`Rank::VALID`] up are PMIx's special ranks).
    #[must_use]
    pub const fn new(r: u32) -> Self {
        Self(r)
    }

    /// The rank's number.
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// `PMIX_RANK_UNDEF`: "any rank" in a `get` for a globally unique key (searches every rank).
    pub const UNDEF: Self = Self(u32::MAX);
    /// `PMIX_RANK_WILDCARD`: job-level data, or every process of a namespace.
    pub const WILDCARD: Self = Self(u32::MAX - 1);
    /// `PMIX_RANK_LOCAL_NODE`: every process of the namespace on the local node (a group, as
    /// in a fence's process list); holds no data of its own.
    pub const LOCAL_NODE: Self = Self(u32::MAX - 2);
    /// `PMIX_RANK_INVALID`: no process.
    pub const INVALID: Self = Self(u32::MAX - 3);
    /// `PMIX_RANK_LOCAL_PEERS`: the local peers of the namespace (a group); holds no data of
    /// its own.
    pub const LOCAL_PEERS: Self = Self(u32::MAX - 4);
    /// `PMIX_RANK_VALID`: ranks below this are real processes.
    pub const VALID: Self = Self(u32::MAX - 50);

    /// Whether this names a real process (below [`Rank::VALID`]).
    #[must_use]
    pub fn is_valid(self) -> bool {
        self.0 < Self::VALID.0
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UNDEF => f.write_str("UNDEF"),
            Self::WILDCARD => f.write_str("WILDCARD"),
            Self::LOCAL_NODE => f.write_str("LOCAL_NODE"),
            Self::INVALID => f.write_str("INVALID"),
            Self::LOCAL_PEERS => f.write_str("LOCAL_PEERS"),
            Self(r) => write!(f, "{r}"),
        }
    }
}

/// An interned namespace: a small integer handed out by a [`NodeStore`](crate::NodeStore)
/// ([`NodeStore::nspace`](crate::NodeStore::nspace)), tagged with that store's identity;
/// meaningful only to the store that made it (and its clones), which refuse it elsewhere
/// ([`Error::ForeignNspace`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nspace {
    /// The identity of the table that interned it.
    pub(crate) store: u32,
    /// Its index in that table.
    pub(crate) index: u32,
}

impl Nspace {
    /// The id's index in its table (0 for the first namespace interned).
    #[must_use]
    pub const fn index(self) -> usize {
        self.index as usize
    }
}

/// The identity of the next namespace table made (each store has its own, so that an
/// [`Nspace`] of one is told from an [`Nspace`] of another; wraps after 2^32 stores).
static NEXT_TABLE: AtomicU32 = AtomicU32::new(0);

/// A process identifier (`pmix_proc_t`) with its namespace interned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ProcId {
    /// The namespace.
    pub nspace: Nspace,
    /// The rank.
    pub rank: Rank,
}

impl Hash for ProcId {
    /// Hashes namespace and rank as one 64-bit word: one step of a word-at-a-time hasher
    /// instead of two on the `get` path.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(u64::from(self.nspace.index) << 32 | u64::from(self.rank.0));
    }
}

impl ProcId {
    /// A process id.
    #[must_use]
    pub fn new(nspace: Nspace, rank: Rank) -> Self {
        Self { nspace, rank }
    }
}

/// Interns namespace strings to [`Nspace`] integers and back. Each table made (not cloned)
/// has its own identity, which its ids carry.
#[derive(Debug, Clone)]
pub(crate) struct NspaceTable {
    table: u32,
    names: Vec<String>,
    ids: HashMap<String, Nspace>,
}

impl Default for NspaceTable {
    fn default() -> Self {
        Self {
            table: NEXT_TABLE.fetch_add(1, Ordering::Relaxed),
            names: Vec::new(),
            ids: HashMap::new(),
        }
    }
}

impl NspaceTable {
    /// An empty table.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Whether `id` was handed out by this table (or the table it was cloned from).
    #[must_use]
    pub(crate) fn owns(&self, id: Nspace) -> bool {
        id.store == self.table && id.index() < self.names.len()
    }

    /// The id of `name`, interning it on first use.
    ///
    /// # Errors
    /// [`Error::BadNspaceLength`] if `name` is empty or longer than [`MAX_NSLEN`].
    ///
    /// # Complexity
    /// O(|name|) expected.
    pub(crate) fn intern(&mut self, name: &str) -> Result<Nspace> {
        check_nspace(name)?;
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        let index = u32::try_from(self.names.len()).map_err(|_| Error::Encode {
            what: "namespace table",
            reason: "more than u32::MAX namespaces",
        })?;
        let id = Nspace {
            store: self.table,
            index,
        };
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        Ok(id)
    }

    /// The id of `name` if it was interned.
    #[must_use]
    pub(crate) fn lookup(&self, name: &str) -> Option<Nspace> {
        self.ids.get(name).copied()
    }

    /// The name of `id`, if this table handed it out.
    #[must_use]
    pub(crate) fn name(&self, id: Nspace) -> Option<&str> {
        if id.store != self.table {
            return None;
        }
        self.names.get(id.index()).map(String::as_str)
    }

    /// The id at `index` in this table, if there is one (for walks over every namespace).
    #[must_use]
    pub(crate) fn id_at(&self, index: usize) -> Option<Nspace> {
        let index = u32::try_from(index).ok()?;
        ((index as usize) < self.names.len()).then_some(Nspace {
            store: self.table,
            index,
        })
    }

    /// How many namespaces are interned.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
}

/// Checks a namespace's length (1..=[`MAX_NSLEN`] bytes).
///
/// # Errors
/// [`Error::BadNspaceLength`].
pub(crate) fn check_nspace(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NSLEN {
        return Err(Error::BadNspaceLength { len: name.len() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_ranks_have_pmix_values() {
        assert_eq!(Rank::UNDEF.0, 0xFFFF_FFFF);
        assert_eq!(Rank::WILDCARD.0, 0xFFFF_FFFE);
        assert!(!Rank::WILDCARD.is_valid());
        assert!(!Rank::UNDEF.is_valid());
        assert!(Rank(0).is_valid());
        assert!(Rank(u32::MAX - 51).is_valid());
        assert!(!Rank(u32::MAX - 50).is_valid());
        assert_eq!(Rank::WILDCARD.to_string(), "WILDCARD");
        // The values of pmix_common.h (OpenPMIx 4.2).
        assert_eq!(Rank::LOCAL_NODE.0, u32::MAX - 2);
        assert_eq!(Rank::INVALID.0, u32::MAX - 3);
        assert_eq!(Rank::LOCAL_PEERS.0, u32::MAX - 4);
        for r in [Rank::LOCAL_NODE, Rank::INVALID, Rank::LOCAL_PEERS] {
            assert!(!r.is_valid());
        }
        assert_eq!(Rank::LOCAL_PEERS.to_string(), "LOCAL_PEERS");
        assert_eq!(Rank::VALID.to_string(), "4294967245");
    }

    #[test]
    fn interning_is_stable_and_reversible() {
        let mut t = NspaceTable::new();
        let a = t.intern("slurm.pmix.42.0").unwrap();
        let b = t.intern("other").unwrap();
        assert_ne!(a, b);
        assert_eq!(t.intern("slurm.pmix.42.0").unwrap(), a);
        assert_eq!(t.name(a), Some("slurm.pmix.42.0"));
        assert_eq!(t.lookup("other"), Some(b));
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn bad_namespaces_are_refused() {
        let mut t = NspaceTable::new();
        assert_eq!(t.intern(""), Err(Error::BadNspaceLength { len: 0 }));
        let long = "n".repeat(256);
        assert_eq!(t.intern(&long), Err(Error::BadNspaceLength { len: 256 }));
        assert!(t.intern(&"n".repeat(255)).is_ok());
    }
}
