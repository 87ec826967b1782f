//! The node store in shared memory: the server publishes its [`NodeStore`](crate::NodeStore)
//! into a [`Region`](crate::region::Region) ([`ShmWriter`]); processes of the node attach
//! to the same region and look values up through the region's 2N-lock ([`ShmReader`]),
//! decoding fixed-size values without allocating.
//!
//! The library stays no-I/O: the caller maps the memory (memfd, `shm_open`, a file) and
//! hands each process its bytes, under the region's safety contract
//! ([`crate::region`]); the package's `shm_node` example does so with a memfd and forked
//! readers.
//!
//! # Image layout (in the region's data words)
//!
//! | word | field |
//! |------|-------|
//! | 0 | magic `b"PMIXKVS2"` (0 before the first publish; image layout 2) |
//! | 1 | current half (bits 0..8: 1 or 2; 3 once the store moved) and publish sequence (bits 8..) |
//! | 2, 3 | after a move: the successor's identity and length in bytes |
//! | 4 .. 4+H | half 1; then half 2, H = (data words − 4) / 2 words each |
//!
//! A half holds one image; every offset in it counts words from the half's start:
//!
//! | word | field |
//! |------|-------|
//! | 0..8 | words used, publish sequence, fence epoch, namespaces, namespace table offset, index buckets (a power of two), index offset, records |
//! | names | each namespace's name, bytes packed little-endian into words |
//! | records | namespace index and rank (one word), descriptor (key length, type code, scope code, flags: on this node, exists outside scope), value word (a fixed-size value, or the byte length), the key's bytes, the value's bytes |
//! | table | per namespace: job size, name length and flags; name offset; the name's hash (checked against a [`ShmNspace`] handle's) |
//! | index | open addressing with linear probing: a record's offset or 0, at the FxHash of (namespace index, rank, key) |
//!
//! Strings and byte objects are stored as bytes; processes and arrays as a one-pair compact
//! blob ([`crate::codec`]).
//!
//! # Publishing
//!
//! Each [`ShmWriter::publish`] writes a whole image into the half that is not current,
//! then makes it current with one word, inside the region's write lock: readers see the old
//! image or the new one, and a writer killed mid-copy leaves the old one current (its lock
//! is the region's concern). O(image) per publish, which suits a node store that changes at
//! commits and fences and is read far more often.
//!
//! # Growth: refuse, then move
//!
//! A publish whose image does not fit half the data area is refused with
//! [`Error::RegionTooSmall`](crate::Error::RegionTooSmall), whose `needed` is the length of
//! a region that holds it; nothing is written and readers keep the previous image. The
//! library cannot map memory (it is no-I/O), so it cannot move the store by itself; the
//! server maps a region of that length, publishes there and [`ShmWriter::retire`]s the old
//! one, whose readers then get [`Error::StoreMoved`](crate::Error::StoreMoved) naming the
//! successor, and attach to it. Readers never follow a pointer into memory they did not map.

mod layout;
mod reader;
mod writer;

pub use reader::{ShmAnswer, ShmNspace, ShmReader};
pub use writer::{LockEvent, Published, ShmWriter};

#[cfg(test)]
mod tests;
