//! The switch graph: switch–switch adjacency in compressed rows.

use fabric_model::{Fabric, LinkId, PortNo};

use crate::tree::Edge;

/// One switch–switch adjacency: from the row's switch through `port` to `peer`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Adj {
    pub(crate) peer: u32,
    pub(crate) port: PortNo,
    pub(crate) peer_port: PortNo,
    pub(crate) link: LinkId,
}

impl Adj {
    /// The tree edge from the row's switch up to `peer` as its parent.
    pub(crate) fn up_edge(&self) -> Edge {
        Edge {
            parent: self.peer,
            up_port: self.port,
            down_port: self.peer_port,
            link: self.link,
        }
    }
}

/// Switch–switch adjacency by switch index.
#[derive(Debug, Clone)]
pub(crate) struct SwitchGraph {
    pub(super) start: Vec<u32>,
    pub(super) adj: Vec<Adj>,
    /// Whether every row is sorted by port (the fabric lists a node's ports in order), so
    /// that a port is found by binary search.
    pub(super) by_port: bool,
    /// Per adjacency, the adjacency of the same link in the peer's row.
    pub(super) rev: Vec<u32>,
}

impl SwitchGraph {
    pub(crate) fn new(f: &Fabric) -> Self {
        let mut start = Vec::with_capacity(f.switch_count() + 1);
        let mut adj = Vec::new();
        start.push(0);
        for &s in f.switches() {
            for n in f.neighbors(s) {
                if let Some(i) = f.switch_index(n.peer) {
                    adj.push(Adj {
                        peer: i as u32,
                        port: n.port,
                        peer_port: n.peer_port,
                        link: n.link,
                    });
                }
            }
            start.push(adj.len() as u32);
        }
        let by_port = start
            .windows(2)
            .all(|w| adj[w[0] as usize..w[1] as usize].is_sorted_by(|a, b| a.port < b.port));
        let mut g = Self {
            start,
            adj,
            by_port,
            rev: Vec::new(),
        };
        g.rev = (0..g.len() as u32)
            .flat_map(|x| g.adj(x).iter().map(move |a| (x, a)))
            .map(|(x, a)| {
                let k = g
                    .slot_of_port(a.peer, a.peer_port)
                    .expect("a link's other end is in its peer's row");
                debug_assert_eq!(g.adj(a.peer)[k].peer, x);
                g.slot(a.peer, k)
            })
            .collect();
        g
    }

    /// The adjacency slot of `x`'s link through `port` (to `peer`, reached there through
    /// `peer_port`): found by binary search in the shorter of the two rows.
    ///
    /// Complexity: O(log min(P_x, P_peer)).
    #[inline]
    pub(crate) fn slot_of_link(
        &self,
        x: u32,
        port: PortNo,
        peer: u32,
        peer_port: PortNo,
    ) -> Option<u32> {
        if self.adj(x).len() <= self.adj(peer).len() {
            self.slot_of_port(x, port).map(|k| self.slot(x, k))
        } else {
            self.slot_of_port(peer, peer_port)
                .map(|k| self.rev[self.slot(peer, k) as usize])
        }
    }

    /// The adjacency index in `sw`'s row of its link through `port`, if that port leads
    /// to a switch.
    ///
    /// Complexity: O(log P) (O(P) if the fabric did not list ports in order).
    #[inline]
    pub(crate) fn slot_of_port(&self, sw: u32, port: PortNo) -> Option<usize> {
        let row = self.adj(sw);
        if self.by_port {
            row.binary_search_by_key(&port, |a| a.port).ok()
        } else {
            row.iter().position(|a| a.port == port)
        }
    }

    #[inline]
    pub(crate) fn adj(&self, sw: u32) -> &[Adj] {
        &self.adj[self.start[sw as usize] as usize..self.start[sw as usize + 1] as usize]
    }

    #[inline]
    pub(super) fn slot(&self, sw: u32, k: usize) -> u32 {
        self.start[sw as usize] + k as u32
    }

    pub(crate) fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The edge that joins `child` to its parent through adjacency slot `slot` of the parent.
    pub(super) fn edge(&self, slot: u32) -> (u32, Edge) {
        let a = self.adj[slot as usize];
        // The parent is the row owning `slot`.
        let parent = self.start.partition_point(|&s| s <= slot) as u32 - 1;
        (
            a.peer,
            Edge {
                parent,
                up_port: a.peer_port,
                down_port: a.port,
                link: a.link,
            },
        )
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        (self.start.capacity() + self.rev.capacity()) * 4 + self.adj.capacity() * size_of::<Adj>()
    }
}

#[cfg(test)]
mod tests {

    use fabric_model::{PortNo, generators};

    use crate::search::*;

    /// A port is found at the index a linear scan finds, on fabrics whose rows are listed
    /// by port, and by the scan when a row is not.
    #[test]
    fn slot_of_port_is_the_scans_index() {
        for f in [
            generators::torus(&[4, 2, 3], 1).unwrap(),
            generators::fat_tree(4).unwrap(),
            generators::random_regular(30, 8, 3, 5).unwrap(),
        ] {
            let mut g = SwitchGraph::new(&f);
            assert!(g.by_port);
            for round in 0..2 {
                for x in 0..g.len() as u32 {
                    for p in 0..=f.radix(f.switches()[x as usize]) + 1 {
                        let p = PortNo::new(p);
                        let want = g.adj(x).iter().position(|a| a.port == p);
                        assert_eq!(g.slot_of_port(x, p), want, "round {round} {x} {p:?}");
                    }
                }
                // The same answers from an unsorted row.
                let r = g.start[0] as usize..g.start[1] as usize;
                g.adj[r].reverse();
                g.by_port = false;
            }
        }
    }

    /// A link's slot found from either end is the slot of its port in the row asked for,
    /// on a fabric whose rows differ in length (a fat tree's) and one with double links.
    #[test]
    fn slot_of_link_from_either_end() {
        // Slots found from the shorter row at x's end, at the peer's.
        let mut shorter = [0; 2];
        for f in [
            generators::tapered_fat_tree(8, 12, 2).unwrap(),
            generators::torus(&[7, 2, 3], 1).unwrap(),
        ] {
            let g = SwitchGraph::new(&f);
            for x in 0..g.len() as u32 {
                for (k, a) in g.adj(x).iter().enumerate() {
                    let got = g.slot_of_link(x, a.port, a.peer, a.peer_port);
                    assert_eq!(got, Some(g.slot(x, k)), "{x} {k}");
                    shorter[usize::from(g.adj(x).len() > g.adj(a.peer).len())] += 1;
                }
            }
        }
        assert!(shorter[0] > 100 && shorter[1] > 10, "{shorter:?}");
    }
}
