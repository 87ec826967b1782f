//! The crate's one error type.

use crate::{NodeId, PortNo};

/// Everything that can be wrong with input to this crate.
///
/// Builder and generator errors name the node, port or parameter; ibnetdiscover errors carry
/// the 1-based line number of the offending line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A port number is 0 or past the node's radix.
    #[error("{node}: {port} is outside 1..={radix}")]
    PortOutOfRange {
        /// The node.
        node: NodeId,
        /// The port asked for.
        port: PortNo,
        /// The node's number of ports.
        radix: u16,
    },
    /// A port already carries a link.
    #[error("{node}: {port} is already linked")]
    PortInUse {
        /// The node.
        node: NodeId,
        /// The port.
        port: PortNo,
    },
    /// A link would join a node to itself.
    #[error("{node}: a link from a node to itself")]
    SelfLoop {
        /// The node.
        node: NodeId,
    },
    /// A terminal has no link at all.
    #[error("{node} ({name}): a terminal with no link")]
    UnlinkedTerminal {
        /// The terminal.
        node: NodeId,
        /// Its name.
        name: String,
    },
    /// A node id that the builder never handed out.
    #[error("{node} does not exist")]
    UnknownNode {
        /// The id.
        node: NodeId,
    },
    /// Two nodes with the same name.
    #[error("two nodes are named {name:?}")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// A name or description that cannot be written in ibnetdiscover text.
    #[error("{what} {text:?} is empty or holds a quote or a control character")]
    InvalidName {
        /// `"name"` or `"description"`.
        what: &'static str,
        /// The text.
        text: String,
    },
    /// A node with zero ports.
    #[error("{name:?}: a node needs at least one port")]
    ZeroPorts {
        /// Its name.
        name: String,
    },
    /// More nodes or links than the 32-bit ids can number.
    #[error("too many {what} for 32-bit ids")]
    TooLarge {
        /// `"nodes"`, `"links"` or `"ports"`.
        what: &'static str,
    },
    /// A generator or builder parameter is out of its domain.
    #[error("{generator}: {parameter} {reason}")]
    InvalidParameter {
        /// The generator or function.
        generator: &'static str,
        /// The parameter.
        parameter: &'static str,
        /// Why it is refused.
        reason: String,
    },
    /// A random generator could not produce a connected graph.
    #[error("{generator}: no connected graph after {attempts} attempts ({reason})")]
    CannotConnect {
        /// The generator.
        generator: &'static str,
        /// How many graphs were tried.
        attempts: u32,
        /// Why the attempts failed.
        reason: String,
    },
    /// Switch-to-switch distances do not fit the hop table's `u8` entries.
    #[error("a switch-to-switch distance exceeds {max} hops")]
    HopOverflow {
        /// The largest storable distance.
        max: u8,
    },
    /// No path joins two nodes (they sit in different components, or a terminal hangs off no
    /// switch).
    #[error("no path from {from} to {to}")]
    NoPath {
        /// Where the path was to start.
        from: NodeId,
        /// Where it was to end.
        to: NodeId,
    },
    /// A hop table built for another fabric (its switch count differs).
    #[error("the hop table has {table} switches, the fabric {fabric}")]
    HopTableMismatch {
        /// Switches of the hop table.
        table: usize,
        /// Switches of the fabric.
        fabric: usize,
    },
    /// More ranks than the terminals can hold.
    #[error("{ranks} ranks do not fit {terminals} terminals of {per_terminal} processes")]
    PlacementOverflow {
        /// Ranks asked for.
        ranks: u32,
        /// Terminals offered.
        terminals: usize,
        /// Processes per terminal.
        per_terminal: u32,
    },
    /// ibnetdiscover: a line that starts a node record but is not `Kind N "id" …`.
    #[error("line {line}: malformed node header: {reason}")]
    MalformedHeader {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// ibnetdiscover: a port line that is not `[p] "peer"[q] …`.
    #[error("line {line}: malformed port line: {reason}")]
    MalformedPort {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// ibnetdiscover: a quoted string with no closing quote.
    #[error("line {line}: unterminated quoted string")]
    UnterminatedQuote {
        /// 1-based line number.
        line: usize,
    },
    /// ibnetdiscover: a GUID that is not hexadecimal or is longer than 64 bits.
    #[error("line {line}: malformed GUID {text:?}")]
    MalformedGuid {
        /// 1-based line number.
        line: usize,
        /// The text.
        text: String,
    },
    /// ibnetdiscover: a port past the node's radix (or port 0).
    #[error("line {line}: port {port} of {node:?} is outside 1..={radix}")]
    PortPastRadix {
        /// 1-based line number.
        line: usize,
        /// The node's name.
        node: String,
        /// The port.
        port: u32,
        /// The node's number of ports.
        radix: u16,
    },
    /// ibnetdiscover: a port listed twice in one record.
    #[error("line {line}: port {port} of {node:?} already listed on line {first_line}")]
    PortListedTwice {
        /// 1-based line number of the second listing.
        line: usize,
        /// The node's name.
        node: String,
        /// The port.
        port: u16,
        /// Line of the first listing.
        first_line: usize,
    },
    /// ibnetdiscover: a peer name that no record defines.
    #[error("line {line}: unknown peer {peer:?}")]
    UnknownPeer {
        /// 1-based line number.
        line: usize,
        /// The peer's name.
        peer: String,
    },
    /// ibnetdiscover: a link listed by one end only, or the two ends disagree.
    #[error(
        "line {line}: {node:?}[{port}] names {peer:?}[{peer_port}], which does not name it back"
    )]
    OneSidedLink {
        /// 1-based line number.
        line: usize,
        /// The node's name.
        node: String,
        /// Its port.
        port: u16,
        /// The peer's name.
        peer: String,
        /// The peer's port.
        peer_port: u16,
    },
    /// ibnetdiscover: the two ends of a link give different rates. No longer returned by the
    /// reader, which keeps the slower rate and reports
    /// [`Warning::RateMismatch`](crate::ibnet::Warning::RateMismatch); kept so that matching
    /// code still compiles.
    #[error("line {line}: rate {rate} differs from {other} given by the other end")]
    RateMismatch {
        /// 1-based line number.
        line: usize,
        /// The rate on this line.
        rate: String,
        /// The rate on the other end's line.
        other: String,
    },
    /// ibnetdiscover: a node record defined twice.
    #[error("line {line}: node {name:?} already defined on line {first_line}")]
    DuplicateNode {
        /// 1-based line number.
        line: usize,
        /// The name.
        name: String,
        /// Where it was first defined.
        first_line: usize,
    },
    /// ibnetdiscover: the text holds no node record (`Switch`, `Ca`, `Hca` or `Rt` header) at
    /// all: an empty file, a file of another kind (Markdown, `ibnetdiscover -p` output).
    #[error("no node record (`Switch`, `Ca`, `Hca` or `Rt` header) in {lines} lines")]
    NoNodeRecord {
        /// Number of lines read.
        lines: usize,
    },
    /// ibnetdiscover: a CA or router record with no port line.
    #[error("line {line}: terminal {name:?} has no link")]
    TerminalWithoutLink {
        /// 1-based line number of the record's header.
        line: usize,
        /// The name.
        name: String,
    },
}
