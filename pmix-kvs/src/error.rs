//! The crate's one error type and its mapping onto PMIx status codes.

use crate::ident::Rank;

/// PMIx status codes (`pmix_status_t`) that this crate reports (PMIx Standard v5.0,
/// chapter "Data Structures and Types").
pub mod status {
    /// `PMIX_SUCCESS`.
    pub const SUCCESS: i32 = 0;
    /// `PMIX_ERROR`.
    pub const ERROR: i32 = -1;
    /// `PMIX_ERR_TYPE_MISMATCH`.
    pub const ERR_TYPE_MISMATCH: i32 = -18;
    /// `PMIX_ERR_UNPACK_FAILURE`.
    pub const ERR_UNPACK_FAILURE: i32 = -20;
    /// `PMIX_ERR_PACK_FAILURE`.
    pub const ERR_PACK_FAILURE: i32 = -21;
    /// `PMIX_ERR_TIMEOUT`.
    pub const ERR_TIMEOUT: i32 = -24;
    /// `PMIX_ERR_UNREACH`.
    pub const ERR_UNREACH: i32 = -25;
    /// `PMIX_ERR_BAD_PARAM`.
    pub const ERR_BAD_PARAM: i32 = -27;
    /// `PMIX_ERR_INIT`.
    pub const ERR_INIT: i32 = -31;
    /// `PMIX_ERR_NOMEM`.
    pub const ERR_NOMEM: i32 = -32;
    /// `PMIX_ERR_NOT_FOUND`.
    pub const ERR_NOT_FOUND: i32 = -46;
    /// `PMIX_ERR_NOT_SUPPORTED`.
    pub const ERR_NOT_SUPPORTED: i32 = -47;
    /// `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER`.
    pub const ERR_UNPACK_READ_PAST_END_OF_BUFFER: i32 = -50;
    /// `PMIX_ERR_PARTIAL_SUCCESS`.
    pub const ERR_PARTIAL_SUCCESS: i32 = -52;
    /// `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`.
    pub const ERR_EXISTS_OUTSIDE_SCOPE: i32 = -62;
    /// `PMIX_OPERATION_SUCCEEDED`.
    pub const OPERATION_SUCCEEDED: i32 = -157;
}

/// Everything that can go wrong in this crate. Each variant maps to a PMIx status code with
/// [`Error::status`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `put` was given a key in the reserved `pmix` namespace (PMIx Standard: `PMIX_ERR_BAD_PARAM`).
    #[error("key {key:?} is reserved: keys starting with \"pmix\" cannot be put")]
    ReservedKey {
        /// The key refused.
        key: String,
    },
    /// A key is empty or longer than `PMIX_MAX_KEYLEN` (511) bytes.
    #[error("key of {len} bytes is invalid: keys must be 1..=511 bytes")]
    BadKeyLength {
        /// Its length in bytes.
        len: usize,
    },
    /// A namespace is empty or longer than `PMIX_MAX_NSLEN` (255) bytes.
    #[error("namespace of {len} bytes is invalid: namespaces must be 1..=255 bytes")]
    BadNspaceLength {
        /// Its length in bytes.
        len: usize,
    },
    /// A namespace that was never registered with the store.
    #[error("namespace {nspace:?} is not known to this store")]
    UnknownNspace {
        /// Its name.
        nspace: String,
    },
    /// An [`Nspace`](crate::Nspace) interned by another store, or a
    /// [`ShmNspace`](crate::shm::ShmNspace) of another region (or of an older region in the
    /// same memory, or naming another namespace than the table entry at its index): ids are
    /// meaningful only to the store that made them.
    #[error("namespace id #{index} was interned by another store")]
    ForeignNspace {
        /// Its index in the store that made it.
        index: usize,
    },
    /// A node-store region whose header or shape is wrong.
    #[error("bad region at offset {offset}: {reason}")]
    BadRegion {
        /// Byte offset of the bad field (0 for the region's base).
        offset: usize,
        /// What was wrong.
        reason: &'static str,
    },
    /// A node-store region shorter than its layout needs.
    #[error("region of {len} bytes is too small: the layout needs {needed}")]
    RegionTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        len: usize,
    },
    /// A rank that is not valid where it was used (e.g. `put` for `WILDCARD`, or beyond the job size).
    #[error("rank {rank} is not valid here: {reason}")]
    BadRank {
        /// The rank.
        rank: Rank,
        /// Why.
        reason: &'static str,
    },
    /// A process id that the operation expected to be local to this node is not.
    #[error("process {nspace}:{rank} is not local to this node")]
    NotLocal {
        /// Its namespace.
        nspace: String,
        /// Its rank.
        rank: Rank,
    },
    /// A numeric PMIx data type code that this crate does not carry.
    #[error("data type code {code} is not supported")]
    UnsupportedType {
        /// The `pmix_data_type_t` code.
        code: u16,
    },
    /// A scope code outside 1..=4 (`PMIX_SCOPE_UNDEF` is 0).
    #[error("scope code {code} is not a valid scope")]
    BadScope {
        /// The code.
        code: u8,
    },
    /// All reader slots of a 2N-lock are claimed (ds21 returns `PMIX_ERR_NOT_FOUND` here too).
    #[error("all {slots} reader slots of the lock are claimed")]
    NoFreeSlot {
        /// How many slots the lock has.
        slots: usize,
    },
    /// A 2N-lock was asked for zero reader slots.
    #[error("a 2N-lock needs at least one reader slot")]
    NoSlots,
    /// Decoding ran past the end of the input.
    #[error("truncated input: needed {needed} more byte(s) at offset {offset} reading {what}")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Byte offset where the read started.
        offset: usize,
        /// How many bytes were missing.
        needed: usize,
    },
    /// A variable-length integer longer than its type allows.
    #[error("overlong integer at offset {offset}")]
    Overlong {
        /// Byte offset where the integer started.
        offset: usize,
    },
    /// A decoded number does not fit where it goes (a value too big for its width, an index past
    /// a table, a length past the input, a bad tag).
    #[error("value out of range at offset {offset} reading {what}")]
    OutOfRange {
        /// What was being read.
        what: &'static str,
        /// Byte offset of the field.
        offset: usize,
    },
    /// Input left over after a complete blob was decoded.
    #[error("{extra} trailing byte(s) after the blob at offset {offset}")]
    Trailing {
        /// Offset of the first extra byte.
        offset: usize,
        /// How many bytes were left.
        extra: usize,
    },
    /// A blob header that does not start with this crate's magic and version.
    #[error("bad blob header at offset {offset}: {reason}")]
    BadHeader {
        /// Offset of the bad byte.
        offset: usize,
        /// What was wrong.
        reason: &'static str,
    },
    /// A string field that is not UTF-8.
    #[error("invalid UTF-8 at offset {offset} reading {what}")]
    BadUtf8 {
        /// What was being read.
        what: &'static str,
        /// Offset of the string.
        offset: usize,
    },
    /// Arrays nested deeper than the decoder allows.
    #[error("values nested deeper than {limit} at offset {offset}")]
    TooDeep {
        /// The nesting limit.
        limit: usize,
        /// Offset where the limit was hit.
        offset: usize,
    },
    /// Entries of a blob are not in strictly increasing rank order.
    #[error("blob entries not in strictly increasing rank order at entry {index} (rank {rank})")]
    Unordered {
        /// Index of the entry.
        index: usize,
        /// Its rank.
        rank: Rank,
    },
    /// A value cannot be encoded (e.g. a length beyond `u32` in the naive layout).
    #[error("cannot encode {what}: {reason}")]
    Encode {
        /// What.
        what: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// A fence message that does not belong where it arrived.
    #[error("fence node {node}: unexpected message from {from}: {reason}")]
    BadFenceMessage {
        /// The node that received it.
        node: usize,
        /// Its sender.
        from: usize,
        /// What was wrong.
        reason: &'static str,
    },
    /// A fence of zero participants, or a node id outside the participants.
    #[error("bad fence shape: node {node} of {nodes}")]
    BadFenceShape {
        /// The node id.
        node: usize,
        /// The number of participants.
        nodes: usize,
    },
    /// A tree fence with a radix below 2.
    #[error("tree radix {radix} is below 2")]
    BadRadix {
        /// The radix given.
        radix: usize,
    },
    /// A node index outside a placement's nodes, or a placement whose terminal the fabric does
    /// not hold.
    #[error("node {node} is not in the placement: {reason}")]
    UnknownNode {
        /// The node index.
        node: usize,
        /// What was wrong.
        reason: &'static str,
    },
    /// The shared-memory store left this region for a larger one (it grew): the writer
    /// retired it, naming where it went.
    #[error("the shared store moved to region {successor} of {len} bytes")]
    StoreMoved {
        /// The successor's identity, as the writer's embedder named it.
        successor: u64,
        /// The successor region's length in bytes.
        len: usize,
    },
    /// A lock word of a shared region holds a value that no state of the lock protocol gives
    /// it (a flag or sleep word beyond 2, a turn word beyond 1) while a live process holds the
    /// lock: no unlock would ever clear it, so the waiter stops instead of waiting for ever.
    #[error("corrupt lock word at offset {offset} ({what}): {value}")]
    CorruptLock {
        /// Byte offset of the word from the region's start.
        offset: usize,
        /// Which word it is.
        what: &'static str,
        /// The value it held.
        value: u64,
    },
    /// A bounded wait for a lock of a shared region gave up: the lock's holder is alive, by
    /// the region's liveness check, and kept it for the whole
    /// [`Patience`](crate::region::Patience).
    #[error(
        "gave up after {idles} idle round(s) waiting on the lock word at offset {offset} ({what}): held by live owner {holder}"
    )]
    LockWaitGaveUp {
        /// Byte offset of the word waited on.
        offset: usize,
        /// Which word it is.
        what: &'static str,
        /// The holder's owner token (a pid with `region::PidLiveness`).
        holder: u64,
        /// Idle rounds waited.
        idles: u64,
    },
    /// A direct-modex answer that matches no outstanding request.
    #[error("direct-modex answer {seq} matches no outstanding request")]
    UnknownDmodex {
        /// Its sequence number.
        seq: u64,
    },
}

impl Error {
    /// The PMIx status code (`pmix_status_t`) for this error.
    #[must_use]
    pub fn status(&self) -> i32 {
        use status::*;
        match self {
            Self::ReservedKey { .. }
            | Self::BadKeyLength { .. }
            | Self::BadNspaceLength { .. }
            | Self::BadRank { .. }
            | Self::ForeignNspace { .. }
            | Self::BadRegion { .. }
            | Self::RegionTooSmall { .. }
            | Self::BadScope { .. }
            | Self::NotLocal { .. }
            | Self::NoSlots
            | Self::BadFenceShape { .. }
            | Self::BadRadix { .. }
            | Self::UnknownNode { .. } => ERR_BAD_PARAM,
            Self::UnknownNspace { .. }
            | Self::NoFreeSlot { .. }
            | Self::UnknownDmodex { .. }
            | Self::StoreMoved { .. } => ERR_NOT_FOUND,
            Self::UnsupportedType { .. } => ERR_NOT_SUPPORTED,
            Self::Truncated { .. } => ERR_UNPACK_READ_PAST_END_OF_BUFFER,
            Self::Overlong { .. }
            | Self::OutOfRange { .. }
            | Self::Trailing { .. }
            | Self::BadHeader { .. }
            | Self::BadUtf8 { .. }
            | Self::TooDeep { .. }
            | Self::Unordered { .. }
            | Self::BadFenceMessage { .. } => ERR_UNPACK_FAILURE,
            Self::Encode { .. } => ERR_PACK_FAILURE,
            Self::CorruptLock { .. } => ERROR,
            Self::LockWaitGaveUp { .. } => ERR_TIMEOUT,
        }
    }
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
