//! The crate's one error type, and the status code each error answers across the C ABI.

use crate::status;

/// What went wrong in a call from C. Each variant maps to one `MCR_ERR_*` status code
/// ([`Error::status`]); its text is what `mcr_last_error` gives.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A pointer argument was null.
    #[error("argument `{0}` is a null pointer")]
    Null(&'static str),
    /// An argument out of its domain (an unknown algorithm or node kind, a bad length, text
    /// that is not UTF-8).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The fabric could not be built or read.
    #[error("fabric: {0}")]
    Fabric(#[from] fabric_model::Error),
    /// No node of the fabric has this GUID.
    #[error("no node has GUID 0x{0:016x}")]
    UnknownGuid(u64),
    /// No cable at this port.
    #[error("no link at port {port} of node 0x{guid:016x}")]
    NoLink {
        /// The node's GUID.
        guid: u64,
        /// The port.
        port: u16,
    },
    /// An index past the end (a delta entry, an MFT block or port position).
    #[error("{what} {index} is out of range (0..{len})")]
    OutOfRange {
        /// What was indexed.
        what: &'static str,
        /// The index given.
        index: usize,
        /// The number of valid indices.
        len: usize,
    },
    /// The router refused the operation.
    #[error("{0}")]
    Route(#[from] mcast_route::Error),
    /// A call on this router panicked earlier: its state may be half-updated.
    #[error("the router is poisoned: an earlier call panicked")]
    Poisoned,
    /// The call panicked (a defect): caught at the boundary.
    #[error("internal error (panic caught at the C boundary): {0}")]
    Panic(String),
}

impl Error {
    /// The `MCR_ERR_*` code of this error.
    #[must_use]
    pub fn status(&self) -> i32 {
        use mcast_route::Error as R;
        match self {
            Self::Null(_) => status::MCR_ERR_NULL,
            Self::InvalidArgument(_) => status::MCR_ERR_INVALID_ARGUMENT,
            Self::Fabric(_) => status::MCR_ERR_FABRIC,
            Self::UnknownGuid(_) => status::MCR_ERR_UNKNOWN_GUID,
            Self::NoLink { .. } => status::MCR_ERR_NO_LINK,
            Self::OutOfRange { .. } => status::MCR_ERR_OUT_OF_RANGE,
            Self::Poisoned => status::MCR_ERR_POISONED,
            Self::Panic(_) => status::MCR_ERR_PANIC,
            Self::Route(e) => match e {
                R::EntriesExhausted { .. } | R::MlidOutOfRange { .. } => status::MCR_ERR_ENTRIES,
                R::UnknownMgid { .. } => status::MCR_ERR_UNKNOWN_MGID,
                R::AlreadyMember { .. } | R::NotAMember { .. } | R::NotATerminal { .. } => {
                    status::MCR_ERR_MEMBERSHIP
                }
                R::AlreadyInState { .. } | R::EndDown { .. } | R::PortDown { .. } => {
                    status::MCR_ERR_TOPOLOGY
                }
                R::ZeroEntries | R::TooManyEntries { .. } => status::MCR_ERR_INVALID_ARGUMENT,
                _ => status::MCR_ERR_ROUTE,
            },
        }
    }
}
