//! All-pairs switch-to-switch hop counts and OpenSM's per-port min-hop query.

use crate::{Error, Fabric, NodeId, PortNo};

/// Stored for a pair of switches that cannot reach each other.
pub const UNREACHABLE: u8 = u8::MAX;

/// All-pairs switch-to-switch hop counts: one BFS per switch over the switch graph, one `u8`
/// per ordered pair (`S²` bytes; 137 MiB for 12,000 switches). Rows and columns are switch
/// indices ([`Fabric::switch_index`]). Terminal distances are derived from their switch and
/// never stored.
///
/// ```
/// use fabric_model::{generators, HopTable, PortNo};
///
/// let f = generators::torus(&[6], 1)?; // a ring of 6 switches
/// let hops = HopTable::new(&f)?;
/// let (a, b) = (f.switches()[0], f.switches()[3]);
/// assert_eq!(hops.between(&f, a, b), Some(3));
/// assert_eq!(hops.diameter(), Some(3));
/// // Port 1 is the `+` direction: 0 → 1 → 2 → 3.
/// assert_eq!(hops.via_port(&f, a, PortNo(1), b), Some(3));
/// // Terminals add their own link at each end.
/// let (ta, tb) = (f.terminals()[0], f.terminals()[3]);
/// assert_eq!(hops.between(&f, ta, tb), Some(5));
/// # Ok::<(), fabric_model::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HopTable {
    n: usize,
    hops: Vec<u8>,
}

/// The switch graph in compressed rows: switch-index neighbours of each switch.
struct SwitchGraph {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl SwitchGraph {
    fn new(f: &Fabric) -> Self {
        let mut start = Vec::with_capacity(f.switch_count() + 1);
        let mut adj = Vec::new();
        start.push(0);
        for &s in f.switches() {
            adj.extend(
                f.neighbors(s)
                    .filter_map(|n| f.switch_index(n.peer).map(|i| i as u32)),
            );
            start.push(adj.len() as u32);
        }
        Self { start, adj }
    }

    /// BFS from `src` writing distances into `row` (pre-filled with [`UNREACHABLE`]); returns
    /// false when a distance would reach [`UNREACHABLE`].
    fn bfs(&self, src: usize, row: &mut [u8], queue: &mut Vec<u32>) -> bool {
        queue.clear();
        row[src] = 0;
        queue.push(src as u32);
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head] as usize;
            head += 1;
            let next = row[v].wrapping_add(1);
            let (a, b) = (self.start[v] as usize, self.start[v + 1] as usize);
            for &w in &self.adj[a..b] {
                let cell = &mut row[w as usize];
                if *cell == UNREACHABLE {
                    if next == UNREACHABLE {
                        return false;
                    }
                    *cell = next;
                    queue.push(w);
                }
            }
        }
        true
    }
}

impl HopTable {
    /// Builds the table, one BFS per switch.
    ///
    /// # Errors
    /// [`Error::HopOverflow`] when two switches are 255 or more hops apart.
    ///
    /// # Complexity
    /// O(S·(S + L)) time for S switches and L switch–switch links; S² bytes.
    pub fn new(f: &Fabric) -> Result<Self, Error> {
        let g = SwitchGraph::new(f);
        let n = f.switch_count();
        let mut hops = vec![UNREACHABLE; n * n];
        let mut queue = Vec::with_capacity(n);
        for (s, row) in hops.chunks_exact_mut(n.max(1)).enumerate().take(n) {
            if !g.bfs(s, row, &mut queue) {
                return Err(Error::HopOverflow {
                    max: UNREACHABLE - 1,
                });
            }
        }
        Ok(Self { n, hops })
    }

    /// As [`new`](Self::new), with the rows computed on all cores (rayon).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    #[cfg(feature = "parallel")]
    pub fn new_parallel(f: &Fabric) -> Result<Self, Error> {
        use rayon::prelude::*;
        let g = SwitchGraph::new(f);
        let n = f.switch_count();
        let mut hops = vec![UNREACHABLE; n * n];
        let ok = hops
            .par_chunks_mut(n.max(1))
            .enumerate()
            .take(n)
            .map_init(
                || Vec::with_capacity(n),
                |queue, (s, row)| g.bfs(s, row, queue),
            )
            .all(|ok| ok);
        if !ok {
            return Err(Error::HopOverflow {
                max: UNREACHABLE - 1,
            });
        }
        Ok(Self { n, hops })
    }

    /// Number of switches (rows).
    #[must_use]
    pub fn switch_count(&self) -> usize {
        self.n
    }

    /// Bytes held by the table.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        self.hops.len()
    }

    /// Hops between switch indices `a` and `b`, or `None` if unreachable or out of range.
    #[inline]
    #[must_use]
    pub fn hops(&self, a: usize, b: usize) -> Option<u8> {
        if a >= self.n || b >= self.n {
            return None;
        }
        let h = self.hops[a * self.n + b];
        (h != UNREACHABLE).then_some(h)
    }

    /// The row of switch index `a`: hops to every switch index ([`UNREACHABLE`] where none).
    ///
    /// # Panics
    /// If `a` is not a switch index.
    #[must_use]
    pub fn row(&self, a: usize) -> &[u8] {
        &self.hops[a * self.n..(a + 1) * self.n]
    }

    /// Hops (links crossed) between any two nodes: a terminal counts from its switch
    /// ([`Fabric::switch_of`]) plus its own link. `None` when unreachable or unknown.
    #[must_use]
    pub fn between(&self, f: &Fabric, a: NodeId, b: NodeId) -> Option<u32> {
        if a == b && f.get(a).is_some() {
            return Some(0);
        }
        let (sa, ea) = Self::anchor(f, a)?;
        let (sb, eb) = Self::anchor(f, b)?;
        Some(u32::from(self.hops(sa, sb)?) + ea + eb)
    }

    fn anchor(f: &Fabric, n: NodeId) -> Option<(usize, u32)> {
        match f.switch_index(n) {
            Some(i) => Some((i, 0)),
            None => Some((f.switch_index(f.switch_of(n)?.0)?, 1)),
        }
    }

    /// Hops from switch `s` to switch `t` when leaving `s` through `port` (OpenSM's min-hop
    /// table entry): `1 + hops(peer, t)`. `None` when the port is unconnected, leads to a
    /// terminal, or `t` is unreachable that way.
    #[must_use]
    pub fn via_port(&self, f: &Fabric, s: NodeId, port: PortNo, t: NodeId) -> Option<u8> {
        f.switch_index(s)?;
        let ti = f.switch_index(t)?;
        let (peer, _) = f.peer(s, port)?;
        let pi = f.switch_index(peer)?;
        self.hops(pi, ti)?.checked_add(1)
    }

    /// The largest switch-to-switch distance, or `None` when some pair is unreachable (or
    /// there is no switch).
    #[must_use]
    pub fn diameter(&self) -> Option<u8> {
        if self.n == 0 || self.hops.contains(&UNREACHABLE) {
            return None;
        }
        self.hops.iter().copied().max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators;

    #[test]
    fn matches_petgraph_bfs_on_a_torus() {
        let f = generators::torus(&[5, 3], 1).unwrap();
        let t = HopTable::new(&f).unwrap();
        for (i, &s) in f.switches().iter().enumerate() {
            let d = petgraph::algo::dijkstra(&f, s, None, |_| 1u32);
            for (j, &u) in f.switches().iter().enumerate() {
                assert_eq!(t.hops(i, j).map(u32::from), d.get(&u).copied());
            }
        }
        assert_eq!(t.diameter(), Some(2 + 1));
    }

    #[test]
    fn via_port_is_one_plus_the_peer_row() {
        let f = generators::fat_tree(4).unwrap();
        let t = HopTable::new(&f).unwrap();
        for &s in f.switches() {
            for n in f.neighbors(s) {
                for &u in f.switches() {
                    let want = f
                        .switch_index(n.peer)
                        .and_then(|p| t.hops(p, f.switch_index(u).unwrap()))
                        .map(|h| h + 1);
                    assert_eq!(t.via_port(&f, s, n.port, u), want);
                }
            }
        }
    }

    #[test]
    fn disconnected_switches_have_no_diameter() {
        let mut b = crate::FabricBuilder::new();
        b.add_switch(1).unwrap();
        b.add_switch(1).unwrap();
        let f = b.build().unwrap();
        let t = HopTable::new(&f).unwrap();
        assert_eq!(t.hops(0, 1), None);
        assert_eq!(t.hops(0, 0), Some(0));
        assert_eq!(t.diameter(), None);
    }

    #[test]
    fn overlong_paths_overflow() {
        let f = generators::torus(&[600], 0).unwrap(); // ring diameter 300
        assert_eq!(HopTable::new(&f), Err(Error::HopOverflow { max: 254 }));
    }
}
