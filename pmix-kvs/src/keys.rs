//! Keys: validation, the reserved `pmix` prefix and the reserved keys a resource manager
//! registers (PMIx Standard v5.0, chapter "Reserved Keys").

use crate::error::{Error, Result};

/// Longest key, in bytes (`PMIX_MAX_KEYLEN`).
pub const MAX_KEYLEN: usize = 511;

/// `PMIX_JOB_SIZE` (job realm, `u32`).
pub const JOB_SIZE: &str = "pmix.job.size";
/// `PMIX_LOCAL_PEERS` (job realm, comma-separated ranks of this namespace on the node).
pub const LOCAL_PEERS: &str = "pmix.lpeers";
/// `PMIX_LOCAL_SIZE` (job realm, `u32`).
pub const LOCAL_SIZE: &str = "pmix.local.size";
/// `PMIX_LOCALLDR` (job realm, lowest local rank).
pub const LOCALLDR: &str = "pmix.lldr";
/// `PMIX_NUM_NODES` (job realm, `u32`).
pub const NUM_NODES: &str = "pmix.num.nodes";
/// `PMIX_RANK` (process realm).
pub const RANK: &str = "pmix.rank";
/// `PMIX_LOCAL_RANK` (process realm, `u16`): the process's index among its job's processes on
/// its node, in rank order.
pub const LOCAL_RANK: &str = "pmix.lrank";
/// `PMIX_NODE_RANK` (process realm, `u16`): the process's index among all processes on its
/// node, of every job.
pub const NODE_RANK: &str = "pmix.nrank";
/// `PMIX_NODEID` (node realm, `u32`); asked with a rank, the id of that rank's node.
pub const NODE_ID: &str = "pmix.nodeid";
/// `PMIX_HOSTNAME` (node realm, string); asked with a rank, the host name of that rank's
/// node.
pub const HOSTNAME: &str = "pmix.hname";

/// `PMIX_LOCALITY` (process realm, `u16` `pmix_locality_t`): where the target process runs
/// relative to the process that asks, one of the [`locality`] bits. This store knows nodes,
/// not hardware topology: it answers [`locality::SHARE_NODE`] for two processes on this node,
/// [`locality::NONLOCAL`] for a target on another node, [`locality::UNKNOWN`] when the asker
/// is not on this node. (The Standard deprecates the key in favour of
/// `PMIx_Get_relative_locality`; OpenPMIx still answers it.)
pub const LOCALITY: &str = "pmix.loc";

/// The `pmix_locality_t` bits (`PMIX_LOCALITY_*` of `pmix_common.h`) this crate answers.
pub mod locality {
    /// `PMIX_LOCALITY_UNKNOWN`.
    pub const UNKNOWN: u16 = 0x0000;
    /// `PMIX_LOCALITY_NONLOCAL`: on another node.
    pub const NONLOCAL: u16 = 0x8000;
    /// `PMIX_LOCALITY_SHARE_NODE`: on the same node.
    pub const SHARE_NODE: u16 = 0x4000;
}

/// Whether `key` is in the reserved namespace (starts with `"pmix"`).
#[must_use]
pub fn is_reserved(key: &str) -> bool {
    key.starts_with("pmix")
}

/// Checks a key's length (1..=[`MAX_KEYLEN`] bytes).
///
/// # Errors
/// [`Error::BadKeyLength`].
pub(crate) fn check_key(key: &str) -> Result<()> {
    if key.is_empty() || key.len() > MAX_KEYLEN {
        return Err(Error::BadKeyLength { len: key.len() });
    }
    Ok(())
}

/// Checks a key given to `put`: a valid length and not reserved.
///
/// # Errors
/// [`Error::BadKeyLength`], or [`Error::ReservedKey`] (`PMIX_ERR_BAD_PARAM`).
pub(crate) fn check_put_key(key: &str) -> Result<()> {
    check_key(key)?;
    if is_reserved(key) {
        return Err(Error::ReservedKey {
            key: key.to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::status;

    #[test]
    fn reserved_prefix_is_refused_for_put() {
        let e = check_put_key("pmix.mykey").unwrap_err();
        assert_eq!(
            e,
            Error::ReservedKey {
                key: "pmix.mykey".into()
            }
        );
        assert_eq!(e.status(), status::ERR_BAD_PARAM);
        assert!(check_put_key("pmixfoo").is_err());
        assert!(check_put_key("my.pmix.key").is_ok());
    }

    #[test]
    fn key_lengths() {
        assert_eq!(check_key(""), Err(Error::BadKeyLength { len: 0 }));
        assert!(check_key(&"k".repeat(511)).is_ok());
        assert_eq!(
            check_key(&"k".repeat(512)),
            Err(Error::BadKeyLength { len: 512 })
        );
    }
}
