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
///
/// Row `x` owns slots `start[x]..start[x + 1]`, one per switch–switch link of the fabric's;
/// its links up are `adj[start[x]..end[x]]`, in the fabric's port order, so that a topology
/// change edits the rows at its ends in place ([`refresh_rows`](Self::refresh_rows)) and
/// every search sees exactly the graph a rebuild from the fabric without the links down
/// would give.
#[derive(Debug, Clone)]
pub(crate) struct SwitchGraph {
    pub(super) start: Vec<u32>,
    /// Per row, the end of its links up (`start[x] ≤ end[x] ≤ start[x + 1]`).
    pub(super) end: Vec<u32>,
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
            end: start[1..].to_vec(),
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

    /// Rewrites the rows of switch indices `rows` in place from `f` (the fabric this graph
    /// was built from) without the links for which `down` holds, and the reverse slots of
    /// every link in them: afterwards the graph is the one [`new`](Self::new) builds from
    /// the fabric with those links removed. A topology change calls it with the switches
    /// at the ends of the links it changed.
    ///
    /// Complexity: O(Σ P log P) over the rows, no allocation.
    pub(crate) fn refresh_rows(&mut self, f: &Fabric, rows: &[u32], down: impl Fn(LinkId) -> bool) {
        for &x in rows {
            let mut w = self.start[x as usize];
            for n in f.neighbors(f.switches()[x as usize]) {
                let Some(i) = f.switch_index(n.peer) else {
                    continue;
                };
                if down(n.link) {
                    continue;
                }
                self.adj[w as usize] = Adj {
                    peer: i as u32,
                    port: n.port,
                    peer_port: n.peer_port,
                    link: n.link,
                };
                w += 1;
            }
            debug_assert!(w <= self.start[x as usize + 1]);
            self.end[x as usize] = w;
        }
        // Every link up in a rewritten row: its slots at both ends point at each other.
        for &x in rows {
            for j in self.start[x as usize]..self.end[x as usize] {
                let a = self.adj[j as usize];
                let k = self
                    .slot_of_port(a.peer, a.peer_port)
                    .expect("a link up is up at its other end");
                let k = self.slot(a.peer, k);
                self.rev[j as usize] = k;
                self.rev[k as usize] = j;
            }
        }
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
        &self.adj[self.start[sw as usize] as usize..self.end[sw as usize] as usize]
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
        (self.start.capacity() + self.end.capacity() + self.rev.capacity()) * 4
            + self.adj.capacity() * size_of::<Adj>()
    }
}

#[cfg(test)]
mod tests {

    use fabric_model::{LinkId, PortNo, generators};

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

    /// The rows a sequence of topology changes edits in place are those a rebuild from the
    /// fabric without the links down gives (same links, same order), and every link up's
    /// two slots point at each other.
    #[test]
    fn rows_edited_in_place_equal_a_rebuild() {
        use fabric_model::HopTable;
        use fabric_model::rng::SplitMix64;

        use crate::{Config, Error, Router, TopologyEvent};

        let key = |a: &Adj| (a.peer, a.port, a.peer_port, a.link);
        for (seed, f) in [
            generators::torus(&[4, 3, 2], 2).unwrap(),
            generators::fat_tree(4).unwrap(),
            generators::tapered_fat_tree(8, 12, 2).unwrap(),
        ]
        .into_iter()
        .enumerate()
        {
            let h = HopTable::new(&f).unwrap();
            let mut r = Router::new(&f, &h, Config::default()).unwrap();
            let mut rng = SplitMix64::new(seed as u64 + 1);
            let mut applied = 0;
            for _ in 0..120 {
                let ev = if rng.below(4) == 0 {
                    let s = f.switches()[rng.below(f.switch_count() as u64) as usize];
                    if r.is_switch_down(s) {
                        TopologyEvent::SwitchUp(s)
                    } else {
                        TopologyEvent::SwitchDown(s)
                    }
                } else {
                    let l = LinkId::new(rng.below(f.link_count() as u64) as u32);
                    if r.is_link_down(l) {
                        TopologyEvent::LinkUp(l)
                    } else {
                        TopologyEvent::LinkDown(l)
                    }
                };
                match r.apply(ev) {
                    Ok(_) => applied += 1,
                    Err(Error::AlreadyInState { .. } | Error::EndDown { .. }) => continue,
                    Err(e) => panic!("{e}"),
                }
                let want =
                    SwitchGraph::new(&crate::live::topology::view(&r.view.fabric, &r.view.down));
                let g = &r.view.g;
                assert_eq!(g.len(), want.len());
                for x in 0..g.len() as u32 {
                    let got: Vec<_> = g.adj(x).iter().map(key).collect();
                    let exp: Vec<_> = want.adj(x).iter().map(key).collect();
                    assert_eq!(got, exp, "seed {seed} row {x} after {ev:?}");
                    for k in 0..g.adj(x).len() {
                        let j = g.slot(x, k);
                        let back = g.rev[j as usize];
                        assert_eq!(g.adj[back as usize].link, g.adj[j as usize].link);
                        assert_eq!(g.rev[back as usize], j);
                        assert_eq!(g.edge(j).0, g.adj[j as usize].peer);
                        assert_eq!(g.edge(j).1.parent, x);
                    }
                }
            }
            assert!(applied > 40, "{applied}");
        }
    }
}
