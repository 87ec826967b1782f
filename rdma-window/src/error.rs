//! The crate's one error type.

use crate::cid::Cid;

/// Everything that can go wrong in `rdma-window`: a malformed packet on the wire, a packet
/// that names a context or sequence number that cannot exist, or a transfer that cannot be
/// set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The buffer ends before the packet does.
    #[error("truncated {kind} packet: needs {needed} bytes, got {got}")]
    Truncated {
        /// Packet kind being decoded (`"header"` when even the header is short).
        kind: &'static str,
        /// Bytes the packet needs.
        needed: usize,
        /// Bytes available.
        got: usize,
    },
    /// The version byte is not the one this crate speaks.
    #[error("unsupported wire version {found} (expected {expected})")]
    Version {
        /// Version byte found.
        found: u8,
        /// Version this crate encodes.
        expected: u8,
    },
    /// The packet-type byte names no packet type.
    #[error("unknown packet type {tag:#04x}")]
    UnknownType {
        /// The type byte found.
        tag: u8,
    },
    /// Bytes follow a fixed-size packet.
    #[error("{extra} trailing bytes after a {kind} packet")]
    TrailingBytes {
        /// Packet kind decoded.
        kind: &'static str,
        /// How many bytes were left over.
        extra: usize,
    },
    /// A field that must be zero is not.
    #[error("{kind} packet: reserved field {field} is {value}, must be 0")]
    Reserved {
        /// Packet kind decoded.
        kind: &'static str,
        /// Name of the field.
        field: &'static str,
        /// Value found.
        value: u64,
    },
    /// A checked frame's CRC32C trailer does not match its bytes: it was corrupted on the
    /// way, and is dropped like a lost packet.
    #[error("frame checksum {carried:#010x} does not match its bytes ({computed:#010x})")]
    Checksum {
        /// CRC32C carried in the trailer.
        carried: u32,
        /// CRC32C of the bytes before it.
        computed: u32,
    },
    /// The output buffer is too small for the packet.
    #[error("encoding a {kind} packet needs {needed} bytes, buffer has {got}")]
    BufferTooSmall {
        /// Packet kind encoded.
        kind: &'static str,
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        got: usize,
    },
    /// An `RDMA_RSP` carries a status byte that means nothing.
    #[error("RDMA_RSP with unknown status {status}")]
    BadStatus {
        /// The status byte found.
        status: u8,
    },
    /// A data packet's declared payload length differs from the bytes that follow.
    #[error("data packet psn {psn} declares {declared} payload bytes but carries {actual}")]
    PayloadLength {
        /// Sequence number of the packet.
        psn: u32,
        /// Length in the header.
        declared: u32,
        /// Bytes actually present.
        actual: usize,
    },
    /// A transfer (or `RDMA_REQ`) with a zero length or a zero packet size.
    #[error("transfer with length {len} and packet size {mtu}: both must be non-zero")]
    EmptyTransfer {
        /// Length in bytes.
        len: u64,
        /// Packet size in bytes.
        mtu: u32,
    },
    /// A transfer needs more packets than the sequence space can tell apart.
    #[error("transfer of {packets} packets exceeds the limit of {limit}")]
    TooManyPackets {
        /// Packets the transfer needs.
        packets: u64,
        /// The most a transfer may have.
        limit: u64,
    },
    /// A packet names a context index outside the table.
    #[error("context {cid} is outside the table of {capacity} contexts")]
    UnknownContext {
        /// The context id in the packet.
        cid: Cid,
        /// Size of the table.
        capacity: usize,
    },
    /// A data packet's sequence number lies outside its transfer.
    #[error("psn {psn} is outside transfer {cid} (first psn {first}, {packets} packets)")]
    PsnOutOfRange {
        /// The receive context.
        cid: Cid,
        /// Sequence number in the packet.
        psn: u32,
        /// First sequence number of the transfer.
        first: u32,
        /// Packets in the transfer.
        packets: u32,
    },
    /// A data packet carries a payload of the wrong size for its position in the transfer.
    #[error("psn {psn} of context {cid} carries {got} bytes, expected {expected}")]
    BadPayloadSize {
        /// The receive context.
        cid: Cid,
        /// Sequence number in the packet.
        psn: u32,
        /// Payload bytes carried.
        got: u32,
        /// Payload bytes this packet must carry.
        expected: u32,
    },
    /// A transfer's address range runs past 2^64: its packets' addresses would wrap.
    #[error("{side} range of {len} bytes at {addr:#x} wraps past 2^64")]
    AddressWrap {
        /// `"destination"` or `"source"`.
        side: &'static str,
        /// First address.
        addr: u64,
        /// Length in bytes.
        len: u64,
    },
    /// The sender's own context table is full.
    #[error("all {capacity} sender contexts are in use")]
    SenderFull {
        /// Size of the sender's table.
        capacity: usize,
    },
    /// A configuration value is out of range: zero where a time must pass, above
    /// [`crate::config::MAX_INTERVAL`], or on the wrong side of a value it is bounded by.
    #[error("invalid configuration: {field} {reason}")]
    Config {
        /// The configuration field at fault, as it is spelled in the type
        /// (`"retry_interval"`, `"busy_backoff"`, …).
        field: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
}
