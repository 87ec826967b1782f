//! The [`Fabric`] graph and its validating [`FabricBuilder`].

use crate::hash::FxHashMap;
use crate::{Error, LinkId, LinkRate, Nanos, NodeId, NodeKind, PortNo};

const NONE: u32 = u32::MAX;

/// Latency given to generated links: 100 ns, a short copper cable plus a switch hop.
pub const DEFAULT_LATENCY: Nanos = Nanos::new(100);

/// What one port of a node is known by: its port GUID, LID and LMC, each when known.
///
/// Port 0 is a switch's management port (the one with the switch's LID); a terminal's ports
/// are `1..=ports`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct PortAddress {
    /// The port GUID.
    pub guid: Option<u64>,
    /// The port's base LID.
    pub lid: Option<u16>,
    /// The port's LID mask count: it answers to `2^lmc` LIDs from `lid`.
    pub lmc: Option<u8>,
}

impl PortAddress {
    /// Nothing known.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            guid: None,
            lid: None,
            lmc: None,
        }
    }

    /// Sets the port GUID.
    #[must_use]
    pub const fn with_guid(mut self, guid: u64) -> Self {
        self.guid = Some(guid);
        self
    }

    /// Sets the base LID.
    #[must_use]
    pub const fn with_lid(mut self, lid: u16) -> Self {
        self.lid = Some(lid);
        self
    }

    /// Sets the LMC.
    #[must_use]
    pub const fn with_lmc(mut self, lmc: u8) -> Self {
        self.lmc = Some(lmc);
        self
    }

    fn is_empty(&self) -> bool {
        *self == Self::new()
    }
}

/// What is known of one node.
///
/// Besides its public fields it keeps a per-port table of [`PortAddress`]es, read and set
/// through [`port_address`](Self::port_address) and
/// [`set_port_address`](Self::set_port_address); because of it, a `NodeInfo` is built with
/// [`NodeInfo::switch`] or [`NodeInfo::terminal`], not by a struct literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeInfo {
    /// Switch or terminal.
    pub kind: NodeKind,
    /// Number of external ports (the radix); ports are `1..=ports`.
    pub ports: u16,
    /// The node's unique name: ibnetdiscover's quoted id (`"S-0002c90300001234"`).
    pub name: String,
    /// Node GUID, when known.
    pub guid: Option<u64>,
    /// The node description (ibnetdiscover's `# "…"`), when known.
    pub description: Option<String>,
    /// LID of the switch's port 0, or of the terminal's first port, when known. A port with no
    /// LID of its own in the port table answers to this one (see [`port_lid`](Self::port_lid)).
    pub lid: Option<u16>,
    /// A router (`Rt` record) rather than a channel adapter; only for terminals.
    pub router: bool,
    /// Per port `0..=ports`, what it is known by; empty when nothing is.
    port_table: Vec<PortAddress>,
}

impl NodeInfo {
    /// A switch named `name` with `ports` ports and nothing else known.
    #[must_use]
    pub fn switch(name: impl Into<String>, ports: u16) -> Self {
        Self::new(NodeKind::Switch, name, ports)
    }

    /// A terminal named `name` with `ports` ports and nothing else known.
    #[must_use]
    pub fn terminal(name: impl Into<String>, ports: u16) -> Self {
        Self::new(NodeKind::Terminal, name, ports)
    }

    fn new(kind: NodeKind, name: impl Into<String>, ports: u16) -> Self {
        Self {
            kind,
            ports,
            name: name.into(),
            guid: None,
            description: None,
            lid: None,
            router: false,
            port_table: Vec::new(),
        }
    }

    /// What `port` (0 for a switch's management port) is known by, as set: nothing falls back
    /// to the node's own [`guid`](Self::guid) or [`lid`](Self::lid). Nothing known for ports
    /// past the radix.
    #[must_use]
    pub fn port_address(&self, port: PortNo) -> PortAddress {
        self.port_table
            .get(usize::from(port.get()))
            .copied()
            .unwrap_or_default()
    }

    /// The LID `port` answers to: its own from the port table, else the node's
    /// [`lid`](Self::lid) (a switch's ports all answer to port 0's LID).
    #[must_use]
    pub fn port_lid(&self, port: PortNo) -> Option<u16> {
        self.port_address(port).lid.or(self.lid)
    }

    /// Sets what `port` is known by; `false` (and nothing set) when `port` is past the radix.
    pub fn set_port_address(&mut self, port: PortNo, address: PortAddress) -> bool {
        let i = usize::from(port.get());
        if i > usize::from(self.ports) {
            return false;
        }
        if self.port_table.is_empty() {
            if address.is_empty() {
                return true;
            }
            self.port_table = vec![PortAddress::new(); usize::from(self.ports) + 1];
        }
        self.port_table[i] = address;
        if self.port_table.iter().all(PortAddress::is_empty) {
            self.port_table = Vec::new();
        }
        true
    }

    /// Sets what `port` is known by (nothing when `port` is past the radix).
    #[must_use]
    pub fn with_port_address(mut self, port: PortNo, address: PortAddress) -> Self {
        self.set_port_address(port, address);
        self
    }

    /// The ports with something known, in port order.
    pub fn port_addresses(&self) -> impl Iterator<Item = (PortNo, PortAddress)> + '_ {
        self.port_table
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.is_empty())
            .map(|(i, a)| (PortNo::new(i as u16), *a))
    }

    /// Sets the GUID.
    #[must_use]
    pub fn with_guid(mut self, guid: u64) -> Self {
        self.guid = Some(guid);
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, desc: impl Into<String>) -> Self {
        self.description = Some(desc.into());
        self
    }
}

/// One cable: two `(node, port)` ends, a rate and a latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// The two ends, in the order the link was added.
    pub ends: [(NodeId, PortNo); 2],
    /// Lanes and speed; the bandwidth is [`LinkRate::bandwidth`].
    pub rate: LinkRate,
    /// One-way latency.
    pub latency: Nanos,
}

impl Link {
    /// Given one end's node, the other end (links never join a node to itself).
    #[must_use]
    pub fn other(&self, node: NodeId) -> (NodeId, PortNo) {
        if self.ends[0].0 == node {
            self.ends[1]
        } else {
            self.ends[0]
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    peer: u32,
    link: u32,
    peer_port: u16,
}

const EMPTY_SLOT: Slot = Slot {
    peer: NONE,
    link: NONE,
    peer_port: 0,
};

/// One connected port as [`Fabric::neighbors`] yields it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Neighbor {
    /// The local port.
    pub port: PortNo,
    /// The node at the other end.
    pub peer: NodeId,
    /// The port at the other end.
    pub peer_port: PortNo,
    /// The cable.
    pub link: LinkId,
}

/// The connected ports of one node, in port order: see [`Fabric::neighbors`].
#[derive(Debug, Clone)]
pub struct Neighbors<'a> {
    slots: std::slice::Iter<'a, Slot>,
    next_port: u16,
}

impl Iterator for Neighbors<'_> {
    type Item = Neighbor;

    #[inline]
    fn next(&mut self) -> Option<Neighbor> {
        for s in self.slots.by_ref() {
            let port = PortNo::new(self.next_port);
            self.next_port += 1;
            if s.peer != NONE {
                return Some(Neighbor {
                    port,
                    peer: NodeId::new(s.peer),
                    peer_port: PortNo::new(s.peer_port),
                    link: LinkId::new(s.link),
                });
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.slots.len()))
    }
}

/// A fabric: switches and terminals with numbered ports, joined by links.
///
/// Adjacency is stored CSR-like: the port slots of a node are contiguous, so walking a node's
/// ports reads one or two cache lines. Node ids are dense (`0..node_count()`), as are link ids.
/// Built by a [`FabricBuilder`], a generator in [`generators`](crate::generators), or
/// [`read_ibnetdiscover`](crate::ibnet::read_ibnetdiscover); always valid once built (no port
/// used twice, none past its radix, no self-loop, every terminal linked, unique names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fabric {
    nodes: Vec<NodeInfo>,
    port_start: Vec<u32>,
    slots: Vec<Slot>,
    links: Vec<Link>,
    switches: Vec<NodeId>,
    terminals: Vec<NodeId>,
    switch_index: Vec<u32>,
    by_name: FxHashMap<String, NodeId>,
}

impl Fabric {
    /// Number of nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of links (cables), switch-terminal links included.
    #[must_use]
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// Number of links whose two ends are switches.
    #[must_use]
    pub fn switch_link_count(&self) -> usize {
        self.links
            .iter()
            .filter(|l| l.ends.iter().all(|(n, _)| self.is_switch(*n)))
            .count()
    }

    /// Number of switches.
    #[must_use]
    pub fn switch_count(&self) -> usize {
        self.switches.len()
    }

    /// Number of terminals.
    #[must_use]
    pub fn terminal_count(&self) -> usize {
        self.terminals.len()
    }

    /// The switches, in increasing id order.
    #[must_use]
    pub fn switches(&self) -> &[NodeId] {
        &self.switches
    }

    /// The terminals, in increasing id order.
    #[must_use]
    pub fn terminals(&self) -> &[NodeId] {
        &self.terminals
    }

    /// All node ids.
    pub fn node_ids(&self) -> impl ExactSizeIterator<Item = NodeId> + '_ {
        (0..self.nodes.len() as u32).map(NodeId::new)
    }

    /// Everything known of `node`.
    ///
    /// # Panics
    /// If `node` is not a node of this fabric.
    #[must_use]
    pub fn node(&self, node: NodeId) -> &NodeInfo {
        &self.nodes[node.index()]
    }

    /// `node`'s info, or `None` if it is not a node of this fabric.
    #[must_use]
    pub fn get(&self, node: NodeId) -> Option<&NodeInfo> {
        self.nodes.get(node.index())
    }

    /// Switch or terminal.
    ///
    /// # Panics
    /// If `node` is not a node of this fabric.
    #[must_use]
    pub fn kind(&self, node: NodeId) -> NodeKind {
        self.nodes[node.index()].kind
    }

    /// Whether `node` exists and is a switch.
    #[must_use]
    pub fn is_switch(&self, node: NodeId) -> bool {
        self.nodes
            .get(node.index())
            .is_some_and(|n| n.kind == NodeKind::Switch)
    }

    /// Whether `node` exists and is a terminal.
    #[must_use]
    pub fn is_terminal(&self, node: NodeId) -> bool {
        self.nodes
            .get(node.index())
            .is_some_and(|n| n.kind == NodeKind::Terminal)
    }

    /// Number of ports of `node`.
    ///
    /// # Panics
    /// If `node` is not a node of this fabric.
    #[must_use]
    pub fn radix(&self, node: NodeId) -> u16 {
        self.nodes[node.index()].ports
    }

    /// The largest radix of any node (0 for an empty fabric).
    #[must_use]
    pub fn max_radix(&self) -> u16 {
        self.nodes.iter().map(|n| n.ports).max().unwrap_or(0)
    }

    /// The node called `name`.
    #[must_use]
    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    /// Position of `node` in [`switches`](Self::switches), the row of hop tables; `None` for
    /// terminals and unknown ids.
    #[inline]
    #[must_use]
    pub fn switch_index(&self, node: NodeId) -> Option<usize> {
        match self.switch_index.get(node.index()) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }

    #[inline]
    fn slots_of(&self, node: NodeId) -> &[Slot] {
        let i = node.index();
        &self.slots[self.port_start[i] as usize..self.port_start[i + 1] as usize]
    }

    /// The `(node, port)` at the other end of `port`, or `None` when the port is unconnected,
    /// out of range, or `node` does not exist.
    #[inline]
    #[must_use]
    pub fn peer(&self, node: NodeId, port: PortNo) -> Option<(NodeId, PortNo)> {
        if node.index() >= self.nodes.len() {
            return None;
        }
        let s = self.slots_of(node).get(port.slot()?)?;
        (s.peer != NONE).then_some((NodeId::new(s.peer), PortNo::new(s.peer_port)))
    }

    /// The link on `port` of `node`, if connected.
    #[must_use]
    pub fn link_at(&self, node: NodeId, port: PortNo) -> Option<LinkId> {
        if node.index() >= self.nodes.len() {
            return None;
        }
        let s = self.slots_of(node).get(port.slot()?)?;
        (s.link != NONE).then_some(LinkId::new(s.link))
    }

    /// The connected ports of `node` in increasing port order.
    ///
    /// # Panics
    /// If `node` is not a node of this fabric.
    #[must_use]
    pub fn neighbors(&self, node: NodeId) -> Neighbors<'_> {
        Neighbors {
            slots: self.slots_of(node).iter(),
            next_port: 1,
        }
    }

    /// Number of connected ports of `node`.
    ///
    /// # Panics
    /// If `node` is not a node of this fabric.
    #[must_use]
    pub fn degree(&self, node: NodeId) -> usize {
        self.slots_of(node)
            .iter()
            .filter(|s| s.peer != NONE)
            .count()
    }

    /// The link `id`.
    ///
    /// # Panics
    /// If `id` is not a link of this fabric.
    #[must_use]
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.index()]
    }

    /// All links, indexed by [`LinkId`].
    #[must_use]
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The switch a terminal hangs off, and the switch's port: the peer of the terminal's
    /// lowest-numbered port that leads to a switch. `None` for switches, unknown ids and
    /// terminals wired only to terminals.
    #[must_use]
    pub fn switch_of(&self, terminal: NodeId) -> Option<(NodeId, PortNo)> {
        if !self.is_terminal(terminal) {
            return None;
        }
        self.neighbors(terminal)
            .find(|n| self.is_switch(n.peer))
            .map(|n| (n.peer, n.peer_port))
    }

    /// Whether every node can reach every other (an empty fabric is connected).
    #[must_use]
    pub fn is_connected(&self) -> bool {
        let n = self.nodes.len();
        if n == 0 {
            return true;
        }
        let mut seen = vec![false; n];
        let mut stack = vec![0u32];
        seen[0] = true;
        let mut count = 1;
        while let Some(v) = stack.pop() {
            for s in self.slots_of(NodeId::new(v)) {
                if s.peer != NONE && !seen[s.peer as usize] {
                    seen[s.peer as usize] = true;
                    count += 1;
                    stack.push(s.peer);
                }
            }
        }
        count == n
    }
}

/// Builds a [`Fabric`], checking every node and link as it is added.
///
/// ```
/// use fabric_model::{FabricBuilder, NodeInfo, PortNo};
///
/// let mut b = FabricBuilder::new();
/// let s = b.add_switch(4)?;
/// let h = b.add_node(NodeInfo::terminal("host-a", 1))?;
/// b.link(s, PortNo::new(1), h, PortNo::new(1))?;
/// assert!(b.link(s, PortNo::new(1), h, PortNo::new(1)).is_err()); // port in use
/// let fabric = b.build()?;
/// assert_eq!(fabric.switch_of(h), Some((s, PortNo::new(1))));
/// # Ok::<(), fabric_model::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct FabricBuilder {
    nodes: Vec<NodeInfo>,
    port_start: Vec<u32>,
    slots: Vec<Slot>,
    links: Vec<Link>,
    by_name: FxHashMap<String, NodeId>,
}

impl Default for FabricBuilder {
    /// An empty builder, as [`FabricBuilder::new`] (`port_start` needs its leading 0).
    fn default() -> Self {
        Self::new()
    }
}

/// Base of the GUIDs that [`FabricBuilder::add_switch`] and
/// [`FabricBuilder::add_terminal`] give: `GUID_BASE + node id + 1`.
pub const GUID_BASE: u64 = 0x0002_c900_0000_0000;

fn valid_text(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(|c| c == '"' || c.is_control())
}

impl FabricBuilder {
    /// An empty builder.
    #[must_use]
    pub fn new() -> Self {
        Self::with_capacity(0, 0, 0)
    }

    /// An empty builder with room for `nodes` nodes, `ports` port slots and `links` links.
    #[must_use]
    pub fn with_capacity(nodes: usize, ports: usize, links: usize) -> Self {
        let mut port_start = Vec::with_capacity(nodes + 1);
        port_start.push(0);
        Self {
            nodes: Vec::with_capacity(nodes),
            port_start,
            slots: Vec::with_capacity(ports),
            links: Vec::with_capacity(links),
            by_name: FxHashMap::with_capacity_and_hasher(nodes, Default::default()),
        }
    }

    /// Number of nodes added so far.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Adds a node.
    ///
    /// # Errors
    /// [`Error::ZeroPorts`], [`Error::InvalidName`] (empty, or a quote or control character in
    /// the name or description), [`Error::DuplicateName`], [`Error::TooLarge`].
    pub fn add_node(&mut self, info: NodeInfo) -> Result<NodeId, Error> {
        if info.ports == 0 {
            return Err(Error::ZeroPorts { name: info.name });
        }
        if !valid_text(&info.name) {
            return Err(Error::InvalidName {
                what: "name",
                text: info.name,
            });
        }
        if let Some(d) = &info.description
            && !valid_text(d)
        {
            return Err(Error::InvalidName {
                what: "description",
                text: d.clone(),
            });
        }
        let id = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&i| i != NONE)
            .ok_or(Error::TooLarge { what: "nodes" })?;
        let end = u32::try_from(self.slots.len() + usize::from(info.ports))
            .map_err(|_| Error::TooLarge { what: "ports" })?;
        match self.by_name.entry(info.name.clone()) {
            std::collections::hash_map::Entry::Occupied(_) => {
                return Err(Error::DuplicateName { name: info.name });
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(NodeId::new(id));
            }
        }
        self.slots
            .extend(std::iter::repeat_n(EMPTY_SLOT, usize::from(info.ports)));
        self.port_start.push(end);
        self.nodes.push(info);
        Ok(NodeId::new(id))
    }

    /// Adds a switch named `S-<guid>` with GUID [`GUID_BASE`]` + id + 1`.
    ///
    /// # Errors
    /// As [`add_node`](Self::add_node).
    pub fn add_switch(&mut self, ports: u16) -> Result<NodeId, Error> {
        let guid = GUID_BASE + self.nodes.len() as u64 + 1;
        self.add_node(NodeInfo::switch(format!("S-{guid:016x}"), ports).with_guid(guid))
    }

    /// Adds a terminal (a channel adapter) named `H-<guid>` with GUID
    /// [`GUID_BASE`]` + id + 1`.
    ///
    /// # Errors
    /// As [`add_node`](Self::add_node).
    pub fn add_terminal(&mut self, ports: u16) -> Result<NodeId, Error> {
        let guid = GUID_BASE + self.nodes.len() as u64 + 1;
        self.add_node(NodeInfo::terminal(format!("H-{guid:016x}"), ports).with_guid(guid))
    }

    /// Sets the description of an added node.
    ///
    /// # Errors
    /// [`Error::UnknownNode`], [`Error::InvalidName`].
    pub fn set_description(&mut self, node: NodeId, desc: impl Into<String>) -> Result<(), Error> {
        let desc = desc.into();
        if !valid_text(&desc) {
            return Err(Error::InvalidName {
                what: "description",
                text: desc,
            });
        }
        self.nodes
            .get_mut(node.index())
            .ok_or(Error::UnknownNode { node })?
            .description = Some(desc);
        Ok(())
    }

    fn slot_index(&self, node: NodeId, port: PortNo) -> Result<usize, Error> {
        let info = self
            .nodes
            .get(node.index())
            .ok_or(Error::UnknownNode { node })?;
        match port.slot() {
            Some(s) if port.get() <= info.ports => Ok(self.port_start[node.index()] as usize + s),
            _ => Err(Error::PortOutOfRange {
                node,
                port,
                radix: info.ports,
            }),
        }
    }

    /// Links `(a, pa)` to `(b, pb)` at the default rate (4xEDR) and latency
    /// ([`DEFAULT_LATENCY`]).
    ///
    /// # Errors
    /// As [`link_with`](Self::link_with).
    pub fn link(&mut self, a: NodeId, pa: PortNo, b: NodeId, pb: PortNo) -> Result<(), Error> {
        self.link_with(a, pa, b, pb, LinkRate::default(), DEFAULT_LATENCY)
    }

    /// Links `(a, pa)` to `(b, pb)` with the given rate and latency.
    ///
    /// # Errors
    /// [`Error::UnknownNode`], [`Error::PortOutOfRange`], [`Error::SelfLoop`],
    /// [`Error::PortInUse`], [`Error::TooLarge`].
    pub fn link_with(
        &mut self,
        a: NodeId,
        pa: PortNo,
        b: NodeId,
        pb: PortNo,
        rate: LinkRate,
        latency: Nanos,
    ) -> Result<(), Error> {
        let sa = self.slot_index(a, pa)?;
        let sb = self.slot_index(b, pb)?;
        if a == b {
            return Err(Error::SelfLoop { node: a });
        }
        for (n, p, s) in [(a, pa, sa), (b, pb, sb)] {
            if self.slots[s].peer != NONE {
                return Err(Error::PortInUse { node: n, port: p });
            }
        }
        let id = u32::try_from(self.links.len())
            .ok()
            .filter(|&i| i != NONE)
            .ok_or(Error::TooLarge { what: "links" })?;
        // Provisional id; `build` renumbers canonically.
        self.slots[sa] = Slot {
            peer: b.get(),
            link: id,
            peer_port: pb.get(),
        };
        self.slots[sb] = Slot {
            peer: a.get(),
            link: id,
            peer_port: pa.get(),
        };
        let ends = if (a, pa) < (b, pb) {
            [(a, pa), (b, pb)]
        } else {
            [(b, pb), (a, pa)]
        };
        self.links.push(Link {
            ends,
            rate,
            latency,
        });
        Ok(())
    }

    /// Whether `(node, port)` is free (exists and carries no link).
    #[must_use]
    pub fn is_free(&self, node: NodeId, port: PortNo) -> bool {
        self.slot_index(node, port)
            .is_ok_and(|s| self.slots[s].peer == NONE)
    }

    /// Finishes the fabric. Links are numbered canonically, in increasing order of their lower
    /// `(node, port)` end, so that a fabric's link ids depend only on its wiring, not on the
    /// order links were added (an ibnetdiscover round trip keeps them).
    ///
    /// # Errors
    /// [`Error::UnlinkedTerminal`] for the first terminal with no link.
    pub fn build(mut self) -> Result<Fabric, Error> {
        let mut switches = Vec::new();
        let mut terminals = Vec::new();
        let mut switch_index = vec![NONE; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            let id = NodeId::new(i as u32);
            match n.kind {
                NodeKind::Switch => {
                    switch_index[i] = switches.len() as u32;
                    switches.push(id);
                }
                NodeKind::Terminal => {
                    let slots =
                        &self.slots[self.port_start[i] as usize..self.port_start[i + 1] as usize];
                    if slots.iter().all(|s| s.peer == NONE) {
                        return Err(Error::UnlinkedTerminal {
                            node: id,
                            name: n.name.clone(),
                        });
                    }
                    terminals.push(id);
                }
            }
        }
        // Canonical link numbering: walk the port slots in order, numbering each link at its
        // lower end.
        let mut renumber = vec![NONE; self.links.len()];
        let mut links = Vec::with_capacity(self.links.len());
        for node in 0..self.nodes.len() {
            let base = self.port_start[node] as usize;
            let end = self.port_start[node + 1] as usize;
            for (k, slot) in self.slots[base..end].iter().enumerate() {
                if slot.link == NONE {
                    continue;
                }
                let l = &self.links[slot.link as usize];
                if l.ends[0] == (NodeId::new(node as u32), PortNo::new(k as u16 + 1)) {
                    renumber[slot.link as usize] = links.len() as u32;
                    links.push(*l);
                }
            }
        }
        for slot in &mut self.slots {
            if slot.link != NONE {
                slot.link = renumber[slot.link as usize];
            }
        }
        Ok(Fabric {
            nodes: self.nodes,
            port_start: self.port_start,
            slots: self.slots,
            links,
            switches,
            terminals,
            switch_index,
            by_name: self.by_name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_switches() -> (FabricBuilder, NodeId, NodeId) {
        let mut b = FabricBuilder::new();
        let s0 = b.add_switch(3).unwrap();
        let s1 = b.add_switch(3).unwrap();
        (b, s0, s1)
    }

    #[test]
    fn default_builder_links_as_new_does() {
        // Regression: the derived Default left out port_start's leading 0, so the first
        // link of a Default builder indexed past its port slots and panicked.
        let mut b = FabricBuilder::default();
        let s = b.add_switch(2).unwrap();
        let h = b.add_terminal(1).unwrap();
        b.link(s, PortNo::new(2), h, PortNo::new(1)).unwrap();
        let f = b.build().unwrap();
        assert_eq!(f.switch_of(h), Some((s, PortNo::new(2))));
        assert_eq!(f.peer(s, PortNo::new(2)), Some((h, PortNo::new(1))));
    }

    #[test]
    fn builder_refuses_each_bad_link_precisely() {
        let (mut b, s0, s1) = two_switches();
        assert_eq!(
            b.link(s0, PortNo::new(4), s1, PortNo::new(1)),
            Err(Error::PortOutOfRange {
                node: s0,
                port: PortNo::new(4),
                radix: 3
            })
        );
        assert_eq!(
            b.link(s0, PortNo::new(1), s1, PortNo::new(0)),
            Err(Error::PortOutOfRange {
                node: s1,
                port: PortNo::new(0),
                radix: 3
            })
        );
        assert_eq!(
            b.link(s0, PortNo::new(1), s0, PortNo::new(2)),
            Err(Error::SelfLoop { node: s0 })
        );
        assert_eq!(
            b.link(s0, PortNo::new(1), NodeId::new(9), PortNo::new(1)),
            Err(Error::UnknownNode {
                node: NodeId::new(9)
            })
        );
        b.link(s0, PortNo::new(1), s1, PortNo::new(1)).unwrap();
        assert_eq!(
            b.link(s1, PortNo::new(2), s0, PortNo::new(1)),
            Err(Error::PortInUse {
                node: s0,
                port: PortNo::new(1)
            })
        );
        // A failed link leaves no trace.
        assert!(b.is_free(s1, PortNo::new(2)));
    }

    #[test]
    fn builder_refuses_bad_nodes() {
        let mut b = FabricBuilder::new();
        assert_eq!(
            b.add_node(NodeInfo::switch("a", 0)),
            Err(Error::ZeroPorts { name: "a".into() })
        );
        assert!(matches!(
            b.add_node(NodeInfo::switch("a\"b", 2)),
            Err(Error::InvalidName { what: "name", .. })
        ));
        assert!(matches!(
            b.add_node(NodeInfo::switch("", 2)),
            Err(Error::InvalidName { what: "name", .. })
        ));
        assert!(matches!(
            b.add_node(NodeInfo::switch("x", 2).with_description("line\nbreak")),
            Err(Error::InvalidName {
                what: "description",
                ..
            })
        ));
        b.add_node(NodeInfo::switch("a", 2)).unwrap();
        assert_eq!(
            b.add_node(NodeInfo::terminal("a", 1)),
            Err(Error::DuplicateName { name: "a".into() })
        );
    }

    #[test]
    fn unlinked_terminal_is_an_error() {
        let mut b = FabricBuilder::new();
        b.add_switch(2).unwrap();
        let t = b.add_node(NodeInfo::terminal("lonely", 1)).unwrap();
        assert_eq!(
            b.build(),
            Err(Error::UnlinkedTerminal {
                node: t,
                name: "lonely".into()
            })
        );
    }

    #[test]
    fn queries_answer_from_the_csr() {
        let (mut b, s0, s1) = two_switches();
        let t = b.add_terminal(2).unwrap();
        b.link(s0, PortNo::new(2), s1, PortNo::new(3)).unwrap();
        b.link(t, PortNo::new(2), s1, PortNo::new(1)).unwrap();
        let f = b.build().unwrap();
        assert_eq!(f.node_count(), 3);
        assert_eq!((f.switch_count(), f.terminal_count()), (2, 1));
        assert_eq!((f.link_count(), f.switch_link_count()), (2, 1));
        assert_eq!(f.peer(s0, PortNo::new(2)), Some((s1, PortNo::new(3))));
        assert_eq!(f.peer(s1, PortNo::new(3)), Some((s0, PortNo::new(2))));
        assert_eq!(f.peer(s0, PortNo::new(1)), None);
        assert_eq!(f.peer(s0, PortNo::new(0)), None);
        assert_eq!(f.peer(s0, PortNo::new(9)), None);
        assert_eq!(f.peer(NodeId::new(7), PortNo::new(1)), None);
        assert_eq!(f.degree(s1), 2);
        assert_eq!(f.switch_of(t), Some((s1, PortNo::new(1))));
        assert_eq!(f.switch_of(s0), None);
        assert_eq!(f.switch_index(s1), Some(1));
        assert_eq!(f.switch_index(t), None);
        assert_eq!(f.node_by_name(&f.node(t).name), Some(t));
        let ns: Vec<_> = f.neighbors(s1).map(|n| (n.port, n.peer)).collect();
        assert_eq!(ns, vec![(PortNo::new(1), t), (PortNo::new(3), s0)]);
        assert_eq!(f.link(LinkId::new(1)).other(t), (s1, PortNo::new(1)));
        assert_eq!(f.max_radix(), 3);
        assert!(f.is_connected());
    }
}
