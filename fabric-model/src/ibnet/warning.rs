//! What a topology text says that the fabric cannot keep.

use std::fmt;

use crate::LinkRate;

/// Something in the text that the reader resolved rather than refused; see
/// [`read_ibnetdiscover_with_warnings`](super::read_ibnetdiscover_with_warnings).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// The two ends of a link report different rates; the link keeps `kept`, the slower (the
    /// one listed first when both have the same bandwidth).
    RateMismatch {
        /// 1-based line of the end listed first.
        line: usize,
        /// 1-based line of the other end.
        other_line: usize,
        /// The node of the end listed first.
        node: String,
        /// Its port.
        port: u16,
        /// The node at the other end.
        peer: String,
        /// Its port.
        peer_port: u16,
        /// The rate on `line`.
        rate: LinkRate,
        /// The rate on `other_line`.
        other: LinkRate,
        /// The rate the link got.
        kept: LinkRate,
    },
    /// A peer's line states a port GUID that the port's own line contradicts; the port keeps
    /// its own.
    PortGuidMismatch {
        /// 1-based line of the peer's line.
        line: usize,
        /// The node of the port.
        node: String,
        /// The port.
        port: u16,
        /// The GUID the peer's line states.
        stated: u64,
        /// The GUID the port's own line gives, which it keeps.
        kept: u64,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RateMismatch {
                line,
                other_line,
                node,
                port,
                peer,
                peer_port,
                rate,
                other,
                kept,
            } => write!(
                f,
                "line {line}: {node:?}[{port}] reports {rate}, {peer:?}[{peer_port}] on line \
                 {other_line} reports {other}; the link keeps {kept}"
            ),
            Self::PortGuidMismatch {
                line,
                node,
                port,
                stated,
                kept,
            } => write!(
                f,
                "line {line}: states GUID {stated:#x} for {node:?}[{port}], whose own line gives \
                 {kept:#x} (kept)"
            ),
        }
    }
}
