//! All-pairs switch-to-switch hop counts and OpenSM's per-port min-hop query.

use crate::{Bytes, Error, Fabric, NodeId, PortNo};

/// Stored for a pair of switches that cannot reach each other.
pub const UNREACHABLE: u8 = u8::MAX;

/// All-pairs switch-to-switch hop counts over the switch graph, one `u8` per ordered pair
/// (`S²` bytes; 137 MiB for 12,000 switches). Rows and columns are switch indices
/// ([`Fabric::switch_index`]). Terminal distances are derived from their switch and never
/// stored.
///
/// Built by bit-parallel breadth-first search: 256 sources advance together, one bit per
/// source in four 64-bit words per switch, so each level costs one pass over the links for
/// 256 searches at once.
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
/// assert_eq!(hops.via_port(&f, a, PortNo::new(1), b), Some(3));
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

/// Sources per batch: four 64-bit words of bits.
///
/// The words are hand-written rather than bitvec's `BitArray<[u64; 4]>`: in one criterion run
/// (`cargo bench -p criterion-benches --bench fabric_model -- bitvec_hop_bfs`, the same search written
/// with `BitArray`'s `|=`, `&`, `!`, `==` and `iter_ones`) bitvec took 38.8 ms against 1.46 ms
/// for `fat_tree(24)` and 565 ms against 20.8 ms for `torus(16x16x8)`: its operators between
/// arrays go bit by bit, where these loops OR whole words.
const WORDS: usize = 4;
const BATCH: usize = 64 * WORDS;

type Bits = [u64; WORDS];

/// The switch graph in compressed rows: switch-index neighbours of each switch.
struct SwitchGraph {
    start: Vec<u32>,
    adj: Vec<u32>,
}

/// Scratch space of one batch of searches.
struct Batch {
    frontier: Vec<Bits>,
    next: Vec<Bits>,
    seen: Vec<Bits>,
    /// `dist[v * BATCH + k]`: hops from source `base + k` to `v`.
    dist: Vec<u8>,
}

impl Batch {
    fn new(n: usize) -> Self {
        Self {
            frontier: vec![[0; WORDS]; n],
            next: vec![[0; WORDS]; n],
            seen: vec![[0; WORDS]; n],
            dist: vec![UNREACHABLE; n * BATCH],
        }
    }
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

    fn n(&self) -> usize {
        self.start.len() - 1
    }

    /// Searches from sources `base..base + count` (count ≤ [`BATCH`]) together, filling
    /// `b.dist`; false when some distance reaches [`UNREACHABLE`].
    fn search(&self, base: usize, count: usize, b: &mut Batch) -> bool {
        let n = self.n();
        for x in [&mut b.frontier, &mut b.next, &mut b.seen] {
            x.fill([0; WORDS]);
        }
        b.dist.fill(UNREACHABLE);
        for k in 0..count {
            let v = base + k;
            b.frontier[v][k / 64] |= 1 << (k % 64);
            b.seen[v][k / 64] |= 1 << (k % 64);
            b.dist[v * BATCH + k] = 0;
        }
        let full = full_mask(count);
        let mut level: u8 = 0;
        loop {
            let mut progress = false;
            for v in 0..n {
                let seen = b.seen[v];
                if seen == full {
                    continue;
                }
                let mut acc = [0u64; WORDS];
                for &u in &self.adj[self.start[v] as usize..self.start[v + 1] as usize] {
                    let f = &b.frontier[u as usize];
                    for w in 0..WORDS {
                        acc[w] |= f[w];
                    }
                }
                let mut fresh = [0u64; WORDS];
                let mut any = 0;
                for w in 0..WORDS {
                    fresh[w] = acc[w] & !seen[w];
                    any |= fresh[w];
                }
                b.next[v] = fresh;
                if any == 0 {
                    continue;
                }
                if level == UNREACHABLE - 1 {
                    return false;
                }
                progress = true;
                let row = &mut b.dist[v * BATCH..(v + 1) * BATCH];
                for w in 0..WORDS {
                    b.seen[v][w] |= fresh[w];
                    let mut bits = fresh[w];
                    while bits != 0 {
                        row[w * 64 + bits.trailing_zeros() as usize] = level + 1;
                        bits &= bits - 1;
                    }
                }
            }
            if !progress {
                return true;
            }
            std::mem::swap(&mut b.frontier, &mut b.next);
            level += 1;
        }
    }
}

fn full_mask(count: usize) -> Bits {
    let mut m = [0u64; WORDS];
    for (w, word) in m.iter_mut().enumerate() {
        let lo = w * 64;
        *word = match count.saturating_sub(lo) {
            0 => 0,
            k if k >= 64 => u64::MAX,
            k => (1u64 << k) - 1,
        };
    }
    m
}

/// Copies a batch's distances into the table: distances are symmetric, so the batch's column
/// block of row `v` is the contiguous `dist[v * BATCH..][..count]`.
fn store(hops: &mut [u8], n: usize, base: usize, count: usize, dist: &[u8]) {
    for (v, row) in hops.chunks_exact_mut(n).enumerate() {
        row[base..base + count].copy_from_slice(&dist[v * BATCH..v * BATCH + count]);
    }
}

impl HopTable {
    /// Builds the table.
    ///
    /// # Errors
    /// [`Error::HopOverflow`] when two switches are 255 or more hops apart.
    ///
    /// # Complexity
    /// O(⌈S/256⌉·D·(S + L)) word operations for S switches, L switch–switch links and switch
    /// diameter D, plus the S² bytes of the table.
    pub fn new(f: &Fabric) -> Result<Self, Error> {
        let g = SwitchGraph::new(f);
        let n = g.n();
        let mut hops = vec![UNREACHABLE; n * n];
        let mut batch = Batch::new(n);
        for base in (0..n).step_by(BATCH) {
            let count = BATCH.min(n - base);
            if !g.search(base, count, &mut batch) {
                return Err(Error::HopOverflow {
                    max: UNREACHABLE - 1,
                });
            }
            store(&mut hops, n, base, count, &batch.dist);
        }
        Ok(Self { n, hops })
    }

    /// As [`new`](Self::new), with the batches of searches run on all cores (rayon), one
    /// batch per thread at a time.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    #[cfg(feature = "parallel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "parallel")))]
    pub fn new_parallel(f: &Fabric) -> Result<Self, Error> {
        use rayon::prelude::*;
        let g = SwitchGraph::new(f);
        let n = g.n();
        let mut hops = vec![UNREACHABLE; n * n];
        let threads = rayon::current_num_threads().max(1);
        let bases: Vec<usize> = (0..n).step_by(BATCH).collect();
        let mut batches: Vec<Batch> = (0..threads.min(bases.len()))
            .map(|_| Batch::new(n))
            .collect();
        for group in bases.chunks(threads) {
            let ok = batches
                .par_iter_mut()
                .zip(group)
                .map(|(b, &base)| g.search(base, BATCH.min(n - base), b))
                .all(|ok| ok);
            if !ok {
                return Err(Error::HopOverflow {
                    max: UNREACHABLE - 1,
                });
            }
            hops.par_chunks_mut(n.max(1))
                .enumerate()
                .for_each(|(v, row)| {
                    for (b, &base) in batches.iter().zip(group) {
                        let count = BATCH.min(n - base);
                        row[base..base + count]
                            .copy_from_slice(&b.dist[v * BATCH..v * BATCH + count]);
                    }
                });
        }
        Ok(Self { n, hops })
    }

    /// Number of switches (rows).
    #[must_use]
    pub fn switch_count(&self) -> usize {
        self.n
    }

    /// Bytes held by the table (S² for S switches).
    #[must_use]
    pub fn memory_bytes(&self) -> Bytes {
        Bytes::new(self.hops.len() as u64)
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

    /// The table's bytes, row after row (`S` rows of `S` bytes, as [`row`](Self::row)
    /// reads them), handed over without a copy: for a holder that goes on updating the
    /// distances in place.
    #[must_use]
    pub fn into_bytes(self) -> Vec<u8> {
        self.hops
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

    /// The bytes handed over are the rows, row after row.
    #[test]
    fn into_bytes_is_the_rows_in_order() {
        let f = generators::torus(&[5, 3, 2], 1).unwrap();
        let t = HopTable::new(&f).unwrap();
        let n = t.switch_count();
        let rows: Vec<u8> = (0..n).flat_map(|a| t.row(a).to_vec()).collect();
        let bytes = t.into_bytes();
        assert_eq!(bytes.len(), n * n);
        assert_eq!(bytes, rows);
    }

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
    fn several_batches_match_petgraph() {
        // 600 switches: two full batches of 256 and a partial one.
        let f = generators::random_regular(600, 5, 1, 3).unwrap();
        let t = HopTable::new(&f).unwrap();
        for i in [0usize, 255, 256, 511, 512, 599] {
            let d = petgraph::algo::dijkstra(&f, f.switches()[i], None, |_| 1u32);
            for (j, &u) in f.switches().iter().enumerate() {
                // Terminals hang off one switch each, so they are never on a shortest path
                // between switches.
                assert_eq!(t.hops(i, j).map(u32::from), d.get(&u).copied());
                assert_eq!(t.hops(i, j), t.hops(j, i));
            }
        }
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn parallel_equals_sequential() {
        let f = generators::torus(&[23, 29], 0).unwrap();
        assert_eq!(HopTable::new_parallel(&f), HopTable::new(&f));
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
