//! The fabric as a router sees it: the switch graph, where every terminal hangs, the hop
//! table and what is down. Changed only by topology events ([`Router::link_down`] and the
//! others); the routing algorithms read it beside the [`State`](crate::router::state::State) they
//! change.
//!
//! [`Router::link_down`]: crate::Router::link_down

use fabric_model::{Fabric, HopTable, LinkId, NodeId, PortNo};

use crate::Error;
use crate::live::distances::Hops;
use crate::live::topology::Down;
use crate::router::held::Held;
use crate::router::state::vec_bytes;
use crate::search::SwitchGraph;
use crate::tree::Leaf;

/// Where a terminal hangs: switch index, the switch's port, the cable.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attach {
    pub(crate) sw: u32,
    pub(crate) port: PortNo,
    pub(crate) link: LinkId,
}

/// A validated member list.
#[derive(Debug, Clone)]
pub(crate) struct Members {
    pub(crate) terminals: Vec<NodeId>,
    pub(crate) sw: Vec<u32>,
}

/// The immutable part of a router between topology events.
pub(crate) struct View<'f> {
    pub(crate) fabric: Held<'f, Fabric>,
    /// The caller's hop table, or the router's own after a topology change.
    pub(crate) hops: Hops<'f>,
    pub(crate) g: SwitchGraph,
    /// Per node, where it hangs (a switch member is its own port 0, no cable).
    pub(crate) attach: Vec<Option<Attach>>,
    /// Per link, its two switch indices when it joins two switches.
    pub(crate) link_sw: Vec<Option<(u32, u32)>>,
    /// The switch indices in [`SwitchOrder::OpenSm`](crate::SwitchOrder::OpenSm) order when
    /// the config asks for it; empty for fabric order.
    pub(crate) switch_order: Vec<u32>,
    /// The links and switches down ([`Router::link_down`](crate::Router::link_down),
    /// [`Router::switch_down`](crate::Router::switch_down)).
    pub(crate) down: Down,
}

impl<'f> View<'f> {
    /// The view of `fabric` with its hop table `hops`, nothing down; `switch_order` as
    /// [`View::switch_order`].
    ///
    /// Complexity: O(N + L).
    pub(crate) fn new(
        fabric: Held<'f, Fabric>,
        hops: Held<'f, HopTable>,
        switch_order: Vec<u32>,
    ) -> Self {
        let mut attach = vec![None; fabric.node_count()];
        // A switch member is its own port 0 (no cable).
        for (i, &sw) in fabric.switches().iter().enumerate() {
            attach[sw.index()] = Some(Attach {
                sw: i as u32,
                port: PortNo::new(0),
                link: crate::tree::NO_LINK,
            });
        }
        for &t in fabric.terminals() {
            if let Some((sw, port)) = fabric.switch_of(t)
                && let (Some(i), Some(link)) = (fabric.switch_index(sw), fabric.link_at(sw, port))
            {
                attach[t.index()] = Some(Attach {
                    sw: i as u32,
                    port,
                    link,
                });
            }
        }
        Self {
            g: SwitchGraph::new(&fabric),
            attach,
            link_sw: fabric
                .links()
                .iter()
                .map(|l| {
                    let a = fabric.switch_index(l.ends[0].0)?;
                    let b = fabric.switch_index(l.ends[1].0)?;
                    Some((a as u32, b as u32))
                })
                .collect(),
            switch_order,
            down: Down::new(&fabric),
            fabric,
            hops: Hops::Table(hops),
        }
    }

    /// The switch of index `sw`.
    pub(crate) fn sw_node(&self, sw: u32) -> NodeId {
        self.fabric.switches()[sw as usize]
    }

    /// Checks a member list: not empty, known terminals without repeats, attached by a link
    /// up and all reachable from the first; their distinct switches sorted.
    pub(crate) fn validate(&self, members: &[NodeId]) -> Result<Members, Error> {
        if members.is_empty() {
            return Err(Error::EmptyGroup);
        }
        let mut sorted = members.to_vec();
        sorted.sort_unstable();
        let dup = sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]);
        let mut sw = Vec::with_capacity(members.len());
        for &m in members {
            let Some(info) = self.fabric.get(m) else {
                return Err(Error::UnknownNode { node: m });
            };
            if self.fabric.is_switch(m) {
                return Err(Error::NotATerminal {
                    node: m,
                    name: info.name.clone(),
                });
            }
            if dup == Some(m) {
                return Err(Error::DuplicateMember {
                    node: m,
                    name: info.name.clone(),
                });
            }
            let Some(a) = self.attach[m.index()].filter(|&a| !self.down.attach_down(a)) else {
                return Err(Error::Disconnected {
                    a: members[0],
                    b: m,
                });
            };
            sw.push(a.sw);
        }
        let first = sw[0];
        for (i, &s) in sw.iter().enumerate() {
            if self.hops.hops(first as usize, s as usize).is_none() {
                return Err(Error::Disconnected {
                    a: members[0],
                    b: members[i],
                });
            }
        }
        sw.sort_unstable();
        sw.dedup();
        sw.shrink_to_fit();
        Ok(Members {
            terminals: members.to_vec(),
            sw,
        })
    }

    /// The distinct switches, sorted, that `terminals` hang on (those not attached are
    /// skipped). O(T log T).
    pub(crate) fn member_switches(&self, terminals: impl IntoIterator<Item = NodeId>) -> Vec<u32> {
        let mut sw: Vec<u32> = terminals
            .into_iter()
            .filter_map(|t| self.attach[t.index()].map(|a| a.sw))
            .collect();
        sw.sort_unstable();
        sw.dedup();
        sw
    }

    /// The leaves (switch, port, link) of the terminals attached.
    pub(crate) fn leaves_of<'a>(
        &'a self,
        terminals: impl Iterator<Item = &'a NodeId> + 'a,
    ) -> impl Iterator<Item = (u32, Leaf)> + 'a {
        terminals.filter_map(|&t| {
            self.attach[t.index()].map(|a| {
                (
                    a.sw,
                    Leaf {
                        port: a.port,
                        terminal: t,
                        link: a.link,
                    },
                )
            })
        })
    }

    /// Heap bytes held (the fabric and a borrowed hop table not counted).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.g.memory_bytes()
            + vec_bytes(&self.attach)
            + vec_bytes(&self.link_sw)
            + vec_bytes(&self.switch_order)
            + self.hops.memory_bytes()
            + self.down.memory_bytes()
    }
}
