//! The crate's one error type.

use fabric_model::NodeId;

use crate::{Color, Gid, GroupId};

/// Everything that can be wrong with input to this crate.
///
/// Each variant names the node, group, parameter or line that was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A group with no member.
    #[error("a multicast group needs at least one member")]
    EmptyGroup,
    /// A member id that is not a node of the fabric.
    #[error("member {node} is not in the fabric")]
    UnknownNode {
        /// The id given.
        node: NodeId,
    },
    /// A member that is a switch: members are terminals.
    #[error("member {node} ({name}) is a switch, not a terminal")]
    NotATerminal {
        /// The switch.
        node: NodeId,
        /// Its name.
        name: String,
    },
    /// The same terminal listed twice in one group.
    #[error("member {node} ({name}) is listed twice")]
    DuplicateMember {
        /// The terminal.
        node: NodeId,
        /// Its name.
        name: String,
    },
    /// Two members that no path of the fabric joins (or a terminal with no switch).
    #[error("members {a} and {b} cannot be connected in the fabric")]
    Disconnected {
        /// One member.
        a: NodeId,
        /// A member it cannot reach.
        b: NodeId,
    },
    /// A group id that was never handed out.
    #[error("group {group} does not exist")]
    UnknownGroup {
        /// The id.
        group: GroupId,
    },
    /// A group id that was deleted already.
    #[error("group {group} was already deleted")]
    GroupDeleted {
        /// The id.
        group: GroupId,
    },
    /// A node that is not a switch where a switch was asked for.
    #[error("{node} is not a switch")]
    NotASwitch {
        /// The id given.
        node: NodeId,
    },
    /// A configuration asking for zero MFT entries per switch.
    #[error("a switch needs at least one MFT entry")]
    ZeroEntries,
    /// A configuration asking for more entries than the MLID space (0xC000..=0xFFFE) holds.
    #[error("{entries} MFT entries exceed the {max} multicast LIDs")]
    TooManyEntries {
        /// Entries asked for.
        entries: u32,
        /// The largest possible number.
        max: u32,
    },
    /// The hop table was built for another fabric.
    #[error("the hop table has {table} switches but the fabric has {fabric}")]
    HopTableMismatch {
        /// Rows of the table.
        table: usize,
        /// Switches of the fabric.
        fabric: usize,
    },
    /// A baseline (one MLID per group) ran out of entries.
    #[error("all {limit} MFT entries are in use: the baseline cannot create another group")]
    EntriesExhausted {
        /// The configured limit.
        limit: u32,
    },
    /// A color past the MLID space cannot be written as an MLID (only with unlimited entries).
    #[error("color {color} has no multicast LID (0xC000 + color passes 0xFFFE)")]
    MlidOutOfRange {
        /// The color.
        color: Color,
    },
    /// A pattern generator's parameter is wrong.
    #[error("pattern parameter {parameter}: {reason}")]
    InvalidPattern {
        /// Which parameter.
        parameter: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A port to join whose cable, or whose switch, is down (or a terminal without a switch).
    #[error("{node} cannot join: its cable or its switch is down")]
    PortDown {
        /// The node.
        node: NodeId,
    },
    /// A port joining a group it is a member of already.
    #[error("{node} is already a member of group {mgid}")]
    AlreadyMember {
        /// The group's MGID.
        mgid: Gid,
        /// The port.
        node: NodeId,
    },
    /// A port leaving a group it is no member of.
    #[error("{node} is not a member of group {mgid}")]
    NotAMember {
        /// The group's MGID.
        mgid: Gid,
        /// The port.
        node: NodeId,
    },
    /// An MGID no group was joined under (or whose last member left).
    #[error("no multicast group has MGID {mgid}")]
    UnknownMgid {
        /// The MGID.
        mgid: Gid,
    },
    /// A link id that is not a link of the fabric.
    #[error("{link} is not a link of the fabric")]
    UnknownLink {
        /// The id given.
        link: fabric_model::LinkId,
    },
    /// A link, or a switch, taken down that is down already, or brought up that is up.
    #[error("{what} is {state} already")]
    AlreadyInState {
        /// The link or switch, as text.
        what: String,
        /// "down" or "up".
        state: &'static str,
    },
    /// A link that cannot come up while a switch at one of its ends is down.
    #[error("{link} cannot come up while switch {switch} is down")]
    EndDown {
        /// The link.
        link: fabric_model::LinkId,
        /// The switch down at one of its ends.
        switch: NodeId,
    },
    /// A conflict graph past the documented bounds of [`crate::coloring::Graph::from_edges`].
    #[error(
        "a conflict graph of {vertices} vertices and {edges} listed edges is past the bounds \
         ({max_vertices} vertices, {max_edges} edges)"
    )]
    GraphTooLarge {
        /// The vertices it would have (at least).
        vertices: usize,
        /// The edges listed so far.
        edges: usize,
        /// [`crate::coloring::MAX_VERTICES`].
        max_vertices: usize,
        /// [`crate::coloring::MAX_EDGES`].
        max_edges: usize,
    },
    /// A line of a text dump that cannot be read.
    #[error("dump line {line}: {reason}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}
