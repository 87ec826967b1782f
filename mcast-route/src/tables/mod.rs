//! What a subnet manager sends and reads: the per-switch entries ([`colors`]), their
//! forwarding ports ([`portset`]), InfiniBand MFT blocks and text dumps ([`mft`]), the
//! blocks changed since the last call ([`delta`]) and the figures of the tables
//! ([`stats`]).

pub(crate) mod colors;
pub(crate) mod delta;
pub mod mft;
pub(crate) mod portset;
pub(crate) mod stats;
