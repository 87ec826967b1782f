//! The switch graph in compressed rows, and the searches over it (BFS, Dijkstra) with reusable
//! scratch space. `G_color` is never built: searches take an availability predicate that reads
//! the per-switch busy bitmaps.

use fabric_model::{Fabric, LinkId, PortNo};

use crate::tree::{Edge, Tree};

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
    start: Vec<u32>,
    adj: Vec<Adj>,
    /// Whether every row is sorted by port (the fabric lists a node's ports in order), so
    /// that a port is found by binary search.
    by_port: bool,
    /// Per adjacency, the adjacency of the same link in the peer's row.
    rev: Vec<u32>,
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
    fn slot(&self, sw: u32, k: usize) -> u32 {
        self.start[sw as usize] + k as u32
    }

    pub(crate) fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The edge that joins `child` to its parent through adjacency slot `slot` of the parent.
    fn edge(&self, slot: u32) -> (u32, Edge) {
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

/// Epoch-stamped marks: `begin` clears in O(1).
#[derive(Debug, Clone, Default)]
pub(crate) struct Marks {
    v: Vec<u32>,
    epoch: u32,
}

impl Marks {
    fn new(n: usize) -> Self {
        Self {
            v: vec![0; n],
            epoch: 0,
        }
    }
    pub(crate) fn begin(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.v.fill(0);
            self.epoch = 1;
        }
    }
    #[inline]
    /// Starts a new round with exactly `items` marked; returns how many distinct items that is.
    pub(crate) fn begin_with(&mut self, items: &[u32]) -> usize {
        self.begin();
        let mut distinct = 0;
        for &i in items {
            if !self.get(i) {
                self.set(i);
                distinct += 1;
            }
        }
        distinct
    }

    pub(crate) fn get(&self, i: u32) -> bool {
        self.v[i as usize] == self.epoch
    }
    #[inline]
    pub(crate) fn set(&mut self, i: u32) {
        self.v[i as usize] = self.epoch;
    }
}

const NO_SLOT: u32 = u32::MAX;

/// Sorts (Σ EFI, switch) entries: as one word each (load above, switch below) when every
/// load fits in 32 bits, which orders them the same.
fn sort_entries(entries: &mut [(u64, u32)], packed: &mut Vec<u64>) {
    if entries.iter().all(|&(c, _)| c <= u64::from(u32::MAX)) {
        packed.clear();
        packed.extend(entries.iter().map(|&(c, x)| c << 32 | u64::from(x)));
        packed.sort_unstable();
        for (e, &k) in entries.iter_mut().zip(packed.iter()) {
            *e = (k >> 32, k as u32);
        }
    } else {
        entries.sort_unstable();
    }
}

/// ORs switch `x`'s row of `rows` (rows of `row.len()` words, one a switch) into `row`:
/// [`Scratch::least_farthest`]'s pulls. Hand-written words: bitvec's `BitSlice |=` took 617 µs
/// where this took 30 µs for 8,192 pulls of 4-word rows in one criterion run (`bitvec`
/// group of `benches/benches/mcast_route.rs`).
#[inline]
fn or_row(row: &mut [u64], rows: &[u64], x: u32) {
    let w = row.len();
    let src = &rows[x as usize * w..(x as usize + 1) * w];
    for (r, s) in row.iter_mut().zip(src) {
        *r |= s;
    }
}

/// Sorts `cands[..end]` when it reaches past the first `sorted`, already in order, and
/// records `end` as sorted: [`Scratch::least_farthest`]'s candidates, put in key order as
/// their levels come.
fn sort_prefix(cands: &mut [(u64, u32)], sorted: &mut usize, end: usize) {
    if end > *sorted {
        cands[..end].sort_unstable();
        *sorted = end;
    }
}

/// Folds the hop-table rows of `targets` into `out` (one byte a switch) with `op`: eight
/// rows at a time, a block of 64 switches at a time, so that each block is
/// loaded and stored once for eight rows (and held in registers between) instead of once
/// a row.
///
/// Complexity: O(S·|targets|) byte operations.
pub(crate) fn fold_rows(
    hops: &fabric_model::HopTable,
    targets: &[u32],
    out: &mut [u8],
    op: impl Fn(u8, u8) -> u8,
) {
    // Rows a pass, and switches a block.
    const ROWS: usize = 8;
    const BLOCK: usize = 64;
    let n = out.len();
    let blocks = n / BLOCK * BLOCK;
    let mut rows: [&[u8]; ROWS] = [&[]; ROWS];
    for chunk in targets.chunks(ROWS) {
        for (r, &t) in rows.iter_mut().zip(chunk) {
            *r = &hops.row(t as usize)[..n];
        }
        let rows = &rows[..chunk.len()];
        for start in (0..blocks).step_by(BLOCK) {
            let end = start + BLOCK;
            let mut acc = [0u8; BLOCK];
            acc.copy_from_slice(&out[start..end]);
            for row in rows {
                for (a, &v) in acc.iter_mut().zip(&row[start..end]) {
                    *a = op(*a, v);
                }
            }
            out[start..end].copy_from_slice(&acc);
        }
        // The switches past the blocks.
        for row in rows {
            for (a, &v) in out[blocks..].iter_mut().zip(&row[blocks..]) {
                *a = op(*a, v);
            }
        }
    }
}

/// A row width in 64-bit words for [`Scratch::least_farthest`]: fixed at compile time for
/// the common small widths (so that the word loops unroll), or any.
trait Width: Copy {
    fn get(self) -> usize;
}

/// `W` words.
#[derive(Debug, Clone, Copy)]
struct Words<const W: usize>;

impl<const W: usize> Width for Words<W> {
    #[inline(always)]
    fn get(self) -> usize {
        W
    }
}

/// Any number of words.
#[derive(Debug, Clone, Copy)]
struct AnyWords(usize);

impl Width for AnyWords {
    #[inline(always)]
    fn get(self) -> usize {
        self.0
    }
}

/// Reusable buffers of the bit-parallel search ([`Scratch::least_farthest`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct BitSearch {
    /// Per switch, the sources that have reached it, those new at the last level, those new
    /// at this one.
    seen: Vec<u64>,
    front: Vec<u64>,
    next: Vec<u64>,
    /// Every source's bit.
    full: Vec<u64>,
    /// Switches with new bits at the last level, at this one.
    active: Vec<u32>,
    reached: Vec<u32>,
    /// (key, switch) of the switches that may complete, sorted.
    cands: Vec<(u64, u32)>,
    /// One row being pulled.
    row: Vec<u64>,
}

impl BitSearch {
    fn memory_bytes(&self) -> usize {
        (self.active.capacity() + self.reached.capacity()) * 4
            + (self.seen.capacity()
                + self.front.capacity()
                + self.next.capacity()
                + self.full.capacity()
                + self.row.capacity()
                + self.cands.capacity())
                * 8
    }
}

/// Reusable per-switch arrays for the searches.
#[derive(Debug, Clone)]
pub(crate) struct Scratch {
    /// Dense switch → node numbers for building trees
    /// ([`Tree::from_parts_in`](crate::tree::Tree::from_parts_in)).
    pub(crate) index: crate::tree::SwitchIndex,
    /// The least-load build's depth-first search frames (switch, next adjacency slot, least
    /// cost so far, its slot), kept to build without allocating.
    pub(crate) dfs: Vec<(u32, u32, u64, u32)>,
    pub(crate) seen: Marks,
    pub(crate) done: Marks,
    target: Marks,
    collected: Marks,
    pub(crate) hops: Vec<u32>,
    pub(crate) cost: Vec<u64>,
    parent: Vec<u32>,
    /// Per switch, its parent switch in the last search ([`dijkstra`](Self::dijkstra),
    /// layered or not).
    via: Vec<u32>,
    /// Per switch, the adjacency index of its chosen next hop (least-load bottom-up build).
    pub(crate) choice: Vec<u32>,
    /// Nodes reached by the last BFS, in BFS order.
    pub(crate) queue: Vec<u32>,
    /// Per hop count, the (Σ EFI, switch) entries queued by [`dijkstra`](Self::dijkstra).
    buckets: Vec<Vec<u32>>,
    /// The live (Σ EFI, switch) entries of one bucket, to sort.
    entries: Vec<(u64, u32)>,
    /// Switches of the old trees of the last [`dijkstra`](Self::dijkstra), and their tree.
    owned: Marks,
    owner: Vec<u32>,
    /// Per old tree, whether it was adopted.
    adopted: Vec<bool>,
    /// The switches settled or adopted at once.
    adopt: Vec<u32>,
    /// Their node numbers in the tree being adopted.
    adopt_node: Vec<u32>,
    /// A bucket's entries packed into one word each, to sort.
    packed: Vec<u64>,
    /// Per switch, the largest hop distance to a member switch (candidate roots).
    pub(crate) maxd: Vec<u8>,
    /// Per switch, the least hop distance to a target switch
    /// ([`fill_near`](Self::fill_near)): searches with `prune` skip a switch `v` reached in
    /// `h` hops when `h + near[v]` exceeds their depth bound, since no path of at most that
    /// many hops to a target passes through it. `G_color` paths are no shorter than
    /// hop-table ones, so the pruning is exact.
    pub(crate) near: Vec<u8>,
    /// The busy colors of a tree being built, OR-ed as it grows (FBTC's cut-off).
    pub(crate) busy_or: Vec<u64>,
    /// The bit-parallel search's buffers.
    bits: BitSearch,
    /// The merge's buffers (Alg. 4).
    pub(crate) merge: MergeScratch,
}

/// Reusable buffers of a merge (Alg. 4 and the merged tree's assembly).
#[derive(Debug, Clone, Default)]
pub(crate) struct MergeScratch {
    /// Per member switch, the next of its entries (by color) to read.
    pub(crate) cursor: Vec<u32>,
    /// Per tree id, the last color whose trees counted it.
    pub(crate) stamp: Vec<u32>,
    /// The merged tree's switches, as found up the paths.
    pub(crate) path: Vec<u32>,
    /// Per switch, its node number in the merged tree.
    pub(crate) pos: Vec<u32>,
    /// Per node of the fabric, how many groups of the merged tree hold it as a member.
    pub(crate) count: Vec<u32>,
    /// A bit set, by switch or by node of the fabric.
    pub(crate) bits: Vec<u64>,
    /// vMcg's member switches, as a bit set over the switches.
    pub(crate) vm: Vec<u64>,
    /// A copy of the largest distances, to see whether more rows raise them.
    pub(crate) far: Vec<u8>,
    /// The merge root's candidates, as packed keys (the heap's storage between calls).
    pub(crate) keys: Vec<std::cmp::Reverse<u64>>,
}

impl MergeScratch {
    fn memory_bytes(&self) -> usize {
        (self.cursor.capacity()
            + self.stamp.capacity()
            + self.path.capacity()
            + self.pos.capacity()
            + self.count.capacity())
            * 4
            + (self.bits.capacity() + self.vm.capacity() + self.keys.capacity()) * 8
            + self.far.capacity()
    }
}

impl Scratch {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            index: crate::tree::SwitchIndex::new(n),
            dfs: Vec::new(),
            seen: Marks::new(n),
            done: Marks::new(n),
            target: Marks::new(n),
            collected: Marks::new(n),
            hops: vec![0; n],
            cost: vec![0; n],
            parent: vec![NO_SLOT; n],
            via: vec![0; n],
            choice: vec![0; n],
            queue: Vec::with_capacity(n),
            buckets: Vec::new(),
            entries: Vec::new(),
            owned: Marks::new(n),
            owner: vec![0; n],
            adopted: Vec::new(),
            adopt: Vec::new(),
            adopt_node: Vec::new(),
            packed: Vec::new(),
            maxd: vec![0; n],
            near: vec![0; n],
            busy_or: Vec::new(),
            bits: BitSearch::default(),
            merge: MergeScratch::default(),
        }
    }

    /// Fills [`near`](Self::near) with every switch's least hop distance to `targets`
    /// (255 for no target).
    ///
    /// Complexity: O(S·|targets|) byte operations.
    pub(crate) fn fill_near(&mut self, hops: &fabric_model::HopTable, targets: &[u32]) {
        self.near.fill(u8::MAX);
        fold_rows(hops, targets, &mut self.near, u8::min);
    }

    /// Fills [`maxd`](Self::maxd) with every switch's largest hop distance to `targets`
    /// (as `Router::max_dist` does; 0 for no target).
    ///
    /// Complexity: O(S·|targets|) byte operations.
    pub(crate) fn fill_far(&mut self, hops: &fabric_model::HopTable, targets: &[u32]) {
        self.maxd.fill(0);
        fold_rows(hops, targets, &mut self.maxd, u8::max);
    }

    /// Raises [`maxd`](Self::maxd) to the largest hop distance to `targets` where that is
    /// larger; returns whether it raised any.
    ///
    /// Complexity: O(S·|targets|) byte operations.
    pub(crate) fn raise_far(&mut self, hops: &fabric_model::HopTable, targets: &[u32]) -> bool {
        let before = &mut self.merge.far;
        before.clear();
        before.extend_from_slice(&self.maxd);
        fold_rows(hops, targets, &mut self.maxd, u8::max);
        *before != self.maxd
    }

    /// Whether a switch `v` reached in `h` hops is beyond `bound` by [`near`](Self::near)
    /// (the searches test it inline; the heap reference of the tests calls it).
    #[cfg(test)]
    fn pruned(&self, prune: bool, h: u32, v: u32, bound: u32) -> bool {
        prune && h.saturating_add(u32::from(self.near[v as usize])) > bound
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        (self.seen.v.capacity()
            + self.done.v.capacity()
            + self.target.v.capacity()
            + self.collected.v.capacity()
            + self.hops.capacity()
            + self.parent.capacity()
            + self.via.capacity()
            + self.choice.capacity()
            + self.queue.capacity())
            * 4
            + self.index.memory_bytes()
            + self.dfs.capacity() * size_of::<(u32, u32, u64, u32)>()
            + (self.cost.capacity() + self.busy_or.capacity()) * 8
            + self.buckets.capacity() * size_of::<Vec<u32>>()
            + self.entries.capacity() * size_of::<(u64, u32)>()
            + self.buckets.iter().map(|b| b.capacity() * 4).sum::<usize>()
            + (self.owned.v.capacity()
                + self.owner.capacity()
                + self.adopt.capacity()
                + self.adopt_node.capacity())
                * 4
            + self.packed.capacity() * 8
            + self.adopted.capacity()
            + self.maxd.capacity()
            + self.near.capacity()
            + self.bits.memory_bytes()
            + self.merge.memory_bytes()
    }

    /// BFS from `start` over switches for which `avail` holds, at most `max_depth` hops.
    /// Returns whether every switch of `targets` was reached (it stops as soon as they are;
    /// with no target it searches the whole component).
    /// `queue` holds the reached switches afterwards and `hops` their distances. With
    /// `prune`, switches too far from every target by [`near`](Self::near) (filled for
    /// `targets`) are not entered: the answer is the same, the search smaller.
    ///
    /// Complexity: O(S + L) over the part of `G_color` searched.
    pub(crate) fn bfs(
        &mut self,
        g: &SwitchGraph,
        start: u32,
        max_depth: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        prune: bool,
    ) -> bool {
        self.search(g, start, max_depth, avail, targets, prune)
    }

    /// The whole connected component of `start` among the switches of the bit set `avail`
    /// (bit `x % 64` of word `x / 64` for switch `x`), by BFS into [`queue`](Self::queue), in
    /// the order [`bfs`](Self::bfs) with no target leaves it; returns whether every switch
    /// of `targets` is in it. The switches not in `avail` are marked seen before the
    /// search (not their distances: the queue is what is left), so that one look-up a link
    /// stands for [`bfs`](Self::bfs)'s two (seen, then available), which it repeats for a
    /// busy switch at every link that leads to it.
    ///
    /// Complexity: O(S + L) over the component, O(S) for the busy switches.
    pub(crate) fn component(
        &mut self,
        g: &SwitchGraph,
        start: u32,
        avail: &[u64],
        targets: &[u32],
    ) -> bool {
        // The switches not available count as seen from the start.
        self.seen.begin();
        let n = self.hops.len();
        let epoch = self.seen.epoch;
        let seen = &mut self.seen.v[..n];
        for (k, &w) in avail.iter().enumerate() {
            let mut busy = !w;
            while busy != 0 {
                let x = k * 64 + busy.trailing_zeros() as usize;
                if x >= n {
                    break;
                }
                seen[x] = epoch;
                busy &= busy - 1;
            }
        }
        let queue = &mut self.queue;
        queue.clear();
        if seen[start as usize] != epoch {
            seen[start as usize] = epoch;
            queue.push(start);
            let mut head = 0;
            while head < queue.len() {
                let v = queue[head];
                head += 1;
                for a in g.adj(v) {
                    let p = a.peer as usize;
                    if seen[p] != epoch {
                        seen[p] = epoch;
                        queue.push(a.peer);
                    }
                }
            }
        }
        // A target is in the component when it was available and has been entered.
        targets
            .iter()
            .all(|&t| crate::bits::get(avail, t as usize) && seen[t as usize] == epoch)
    }

    /// [`bfs`](Self::bfs)'s search.
    #[inline]
    fn search(
        &mut self,
        g: &SwitchGraph,
        start: u32,
        max_depth: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        prune: bool,
    ) -> bool {
        let mut left = self.target.begin_with(targets);
        self.seen.begin();
        self.queue.clear();
        if !avail(start) {
            return left == 0;
        }
        self.seen.set(start);
        self.hops[start as usize] = 0;
        self.queue.push(start);
        if self.target.get(start) {
            left -= 1;
        }
        // The arrays as local slices (no reload of a vector's pointer and length a link).
        let n = self.hops.len();
        let epoch = self.seen.epoch;
        let Self {
            seen,
            target,
            hops,
            queue,
            near,
            ..
        } = self;
        let (seen, hops, near) = (&mut seen.v[..n], &mut hops[..n], &near[..n]);
        let mut head = 0;
        while head < queue.len() && (left > 0 || targets.is_empty()) {
            let v = queue[head];
            head += 1;
            let h = hops[v as usize];
            if h >= max_depth {
                continue;
            }
            for a in g.adj(v) {
                let p = a.peer as usize;
                if seen[p] != epoch
                    && !(prune && (h + 1).saturating_add(u32::from(near[p])) > max_depth)
                    && avail(a.peer)
                {
                    seen[p] = epoch;
                    hops[p] = h + 1;
                    queue.push(a.peer);
                    if target.get(a.peer) {
                        left -= 1;
                    }
                }
            }
        }
        left == 0
    }

    /// The switch `x` of `comp` of least (largest BFS distance to `sources`, `key(x)`), over
    /// switches for which `avail` holds, with that distance; or `None` when every switch is
    /// farther than `max_depth` from some source. `key` must differ between switches.
    /// `comp` must be the whole connected component of the sources among those switches
    /// and `sources` distinct; [`maxd`](Self::maxd) must hold, for every switch of `comp`, a
    /// lower bound of its largest distance to the sources (the hop-table one of
    /// `Router::max_dist`).
    ///
    /// One bit-parallel BFS from every source at once (64 sources a word): a switch's bits
    /// are the sources that have reached it, so its largest distance is the level at which
    /// its bits become complete. Levels go up until some switch completes: at each level the
    /// switches whose lower bound allows completing there are checked first, by key, by
    /// pulling their neighbours' new bits; then those that may complete at the next level
    /// are pulled two hops deep, for as many rows as a push reads; only if none completes
    /// is the level pushed to every switch. The answer is thus the first switch to
    /// complete, found without the levels after it (nor the last level's push, often not
    /// the one before, nor the other switches' pulls).
    ///
    /// Complexity: O(k·(S + L)·⌈|sources|/64⌉) over the component for k levels, k at most
    /// the answer, against O(|sources|·(S + L)) for one BFS a source.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn least_farthest(
        &mut self,
        g: &SwitchGraph,
        sources: &[u32],
        avail: impl Fn(u32) -> bool,
        comp: &[u32],
        max_depth: u32,
        key: impl Fn(u32) -> u64,
    ) -> Option<(u32, u32)> {
        match sources.len().div_ceil(64) {
            0 | 1 => self.least_farthest_in(Words::<1>, g, sources, avail, comp, max_depth, &key),
            2 => self.least_farthest_in(Words::<2>, g, sources, avail, comp, max_depth, &key),
            3 | 4 => self.least_farthest_in(Words::<4>, g, sources, avail, comp, max_depth, &key),
            5..=8 => self.least_farthest_in(Words::<8>, g, sources, avail, comp, max_depth, &key),
            9..=16 => self.least_farthest_in(Words::<16>, g, sources, avail, comp, max_depth, &key),
            17..=32 => {
                self.least_farthest_in(Words::<32>, g, sources, avail, comp, max_depth, &key)
            }
            w => self.least_farthest_in(AnyWords(w), g, sources, avail, comp, max_depth, &key),
        }
    }

    /// [`least_farthest`](Self::least_farthest) with rows of `width` words (at least
    /// enough for the sources; the words past them stay zero).
    #[allow(clippy::too_many_arguments)]
    fn least_farthest_in<W: Width>(
        &mut self,
        width: W,
        g: &SwitchGraph,
        sources: &[u32],
        avail: impl Fn(u32) -> bool,
        comp: &[u32],
        max_depth: u32,
        key: &impl Fn(u32) -> u64,
    ) -> Option<(u32, u32)> {
        let w = width.get();
        debug_assert!(w * 64 >= sources.len());
        debug_assert!(comp.iter().all(|&x| avail(x)));
        let b = &mut self.bits;
        let n = g.len();
        // Rows by switch. A switch outside the component starts with every bit seen, so
        // that nothing is ever new to it: it is never reached, and its front stays empty.
        b.seen.clear();
        b.seen.resize(n * w, u64::MAX);
        // `front` and `next` are all zero between calls (each search clears what it set):
        // only their length changes.
        debug_assert!(b.front.iter().chain(&b.next).all(|&x| x == 0));
        for v in [&mut b.front, &mut b.next] {
            v.resize(n * w, 0);
        }
        for &x in comp {
            let x = x as usize;
            b.seen[x * w..(x + 1) * w].fill(0);
        }
        b.full.clear();
        b.full.resize(w, 0);
        for k in 0..sources.len().div_ceil(64) {
            let bits = sources.len() - 64 * k;
            b.full[k] = if bits >= 64 {
                u64::MAX
            } else {
                (1 << bits) - 1
            };
        }
        b.active.clear();
        for (i, &src) in sources.iter().enumerate() {
            let p = src as usize;
            let bit = 1u64 << (i % 64);
            b.seen[p * w + i / 64] |= bit;
            b.front[p * w + i / 64] |= bit;
            b.active.push(src);
        }
        // The switches that may complete, by their lower bound (a counting sort: the
        // bounds are bytes); `upto[l]` of them have a bound of at most `l`. Those that may
        // complete at a level are sorted by key when that level comes.
        let mut upto = [0u32; 257];
        for &x in comp {
            upto[usize::from(self.maxd[x as usize]) + 1] += 1;
        }
        for l in 0..256 {
            upto[l + 1] += upto[l];
        }
        b.cands.clear();
        b.cands.resize(comp.len(), (0, 0));
        for &x in comp {
            let at = &mut upto[usize::from(self.maxd[x as usize])];
            b.cands[*at as usize] = (key(x), x);
            *at += 1;
        }
        // (`upto[l]` is now the end of bound `l`.)
        let upto = |l: u32| upto[l.min(255) as usize] as usize;
        let mut sorted = 0;
        let mut level = 0;
        b.row.clear();
        b.row.resize(w, 0);
        let found = 'levels: loop {
            // The switches that may complete at this level, by key: pull their new bits
            // (at level 0, a single source is complete).
            let end = upto(level);
            if end > 0 {
                sort_prefix(&mut b.cands, &mut sorted, end);
                let (seen, front) = (&b.seen[..], &b.front[..]);
                for &(_, q) in &b.cands[..end] {
                    let row = &mut b.row[..w];
                    row.copy_from_slice(&seen[q as usize * w..(q as usize + 1) * w]);
                    if level > 0 {
                        for a in g.adj(q) {
                            or_row(row, front, a.peer);
                        }
                    }
                    if *row == b.full[..w] {
                        break 'levels Some((level, q));
                    }
                }
            }
            if b.active.is_empty() || level >= max_depth {
                break None;
            }
            // Before the push, the next level by two-hop pulls: a switch that may complete
            // there gets its neighbours' sources so far and their neighbours' new ones (a
            // neighbour outside `G_color` passes nothing on; none is in another component).
            // In key order, the first one complete is the answer, since none completed at
            // this level. They are pulled for at most as many rows as the push reads, then
            // the push goes on: when the answer comes early, the widest push of all (the one
            // before the answer's level) is never made. (Half or a quarter of the push's
            // rows: random_regular 32x32x40 at 256 entries 3.53 and 3.63 G instructions in
            // `create_group` against 3.51; twice or four times: 3.50.)
            if level >= 1 {
                let end = upto(level + 1);
                sort_prefix(&mut b.cands, &mut sorted, end);
                let mut budget: usize = b.active.iter().map(|&p| g.adj(p).len()).sum();
                let (seen, front) = (&b.seen[..], &b.front[..]);
                for &(_, q) in &b.cands[..end] {
                    if budget == 0 {
                        break;
                    }
                    let row = &mut b.row[..w];
                    row.copy_from_slice(&seen[q as usize * w..(q as usize + 1) * w]);
                    for a in g.adj(q) {
                        if !avail(a.peer) {
                            continue;
                        }
                        or_row(row, seen, a.peer);
                        let adj = g.adj(a.peer);
                        for a2 in adj {
                            or_row(row, front, a2.peer);
                        }
                        budget = budget.saturating_sub(1 + adj.len());
                    }
                    if *row == b.full[..w] {
                        break 'levels Some((level + 1, q));
                    }
                }
            }
            level += 1;
            if level == 1 {
                // Level 1 is pulled from the sources themselves.
                continue;
            }
            // Push the last level to every switch (through local slices: no vector's
            // pointer and length reloaded a link).
            self.collected.begin();
            let epoch = self.collected.epoch;
            let collected = &mut self.collected.v[..];
            let (seen, front, next) = (&b.seen[..], &b.front[..], &mut b.next[..]);
            b.reached.clear();
            for &p in &b.active {
                let p = p as usize;
                let fp = &front[p * w..(p + 1) * w];
                for a in g.adj(p as u32) {
                    let q = a.peer as usize;
                    let sn = &seen[q * w..(q + 1) * w];
                    let nx = &mut next[q * w..(q + 1) * w];
                    let mut new = 0;
                    for k in 0..w {
                        let bits = fp[k] & !sn[k];
                        nx[k] |= bits;
                        new |= bits;
                    }
                    if new != 0 && collected[q] != epoch {
                        collected[q] = epoch;
                        b.reached.push(a.peer);
                    }
                }
            }
            for &p in &b.active {
                b.front[p as usize * w..(p as usize + 1) * w].fill(0);
            }
            for &q in &b.reached {
                let q = q as usize;
                for k in q * w..(q + 1) * w {
                    b.seen[k] |= b.next[k];
                    b.front[k] = b.next[k];
                    b.next[k] = 0;
                }
            }
            std::mem::swap(&mut b.active, &mut b.reached);
        };
        // `next` is zero after every level's push; `front` is set only for `active`.
        for &p in &b.active {
            b.front[p as usize * w..(p as usize + 1) * w].fill(0);
        }
        found
    }

    /// Dijkstra from `root` over the switches for which `avail` holds, with the key
    /// (hops, Σ EFI) compared lexicographically so that every path is a least-hop path and,
    /// among those, the least loaded; paths longer than `max_hops` are not followed. With
    /// `whole` it settles every reachable switch (SSSP-MC), otherwise it stops once every
    /// target is settled.
    ///
    /// Alg. 5: with `old` (the old trees, on distinct switches), settling a switch of an old
    /// tree adopts that whole tree along its own links (steps ⑤–⑩), so none of its links is
    /// lost.
    ///
    /// Switches are settled in the order of a binary heap on (hops, Σ EFI, switch) without
    /// one: every key pushed has one hop more than the switch it comes from, and settled
    /// (or adopted) switches never come back, so the keys settled never decrease and all
    /// those of a hop count are pushed before the first of them is settled. Each hop count
    /// is therefore a bucket of switches (each queued once, when its key enters that count),
    /// sorted by their (Σ EFI, switch) when its turn comes; stale ones are skipped as the
    /// heap skips them.
    ///
    /// Returns whether every target was reached. With `prune` (not with `old` or `whole`),
    /// switches too far from every target by [`near`](Self::near) are not entered.
    ///
    /// Complexity: O((S + L) log S) over the part searched, O(Σ|T|) for the old trees.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn dijkstra(
        &mut self,
        g: &SwitchGraph,
        efi: &[u32],
        root: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        max_hops: u32,
        whole: bool,
        old: Option<&[Tree]>,
        prune: bool,
    ) -> bool {
        debug_assert!(!prune || (old.is_none() && !whole));
        if old.is_none() && !whole {
            return self.layered(g, efi, root, avail, targets, max_hops, prune);
        }
        let mut left = self.target.begin_with(targets);
        self.seen.begin();
        self.done.begin();
        // Switch -> old tree, dense.
        self.owned.begin();
        self.adopted.clear();
        if let Some(trees) = old {
            for (k, t) in trees.iter().enumerate() {
                for &x in t.switches() {
                    debug_assert!(!self.owned.get(x), "old trees share switch {x}");
                    self.owned.set(x);
                    self.owner[x as usize] = k as u32;
                }
            }
            self.adopted.resize(trees.len(), false);
        }
        for b in &mut self.buckets {
            b.clear();
        }
        self.seen.set(root);
        self.hops[root as usize] = 0;
        self.cost[root as usize] = 0;
        self.parent[root as usize] = NO_SLOT;
        self.push_bucket(0, root);
        let mut h = 0;
        while h < self.buckets.len() {
            let mut bucket = std::mem::take(&mut self.buckets[h]);
            let mut entries = std::mem::take(&mut self.entries);
            // Each switch is queued once a hop count, when its key first enters it; its
            // load then is the least over the links relaxed into that count (all of them
            // from smaller counts). Switches settled or adopted since, or moved to a smaller
            // count, are stale.
            entries.clear();
            entries.extend(
                bucket
                    .iter()
                    .filter(|&&v| !self.done.get(v) && self.hops[v as usize] == h as u32)
                    .map(|&v| (self.cost[v as usize], v)),
            );
            sort_entries(&mut entries, &mut self.packed);
            let stop = self.settle_bucket(
                g, efi, &avail, h as u32, &entries, &mut left, max_hops, whole, old,
            );
            bucket.clear();
            self.buckets[h] = bucket;
            self.entries = entries;
            if stop {
                break;
            }
            h += 1;
        }
        left == 0
    }

    /// Queues `x` in bucket `h`.
    #[inline]
    fn push_bucket(&mut self, h: u32, x: u32) {
        let h = h as usize;
        if self.buckets.len() <= h {
            self.buckets.resize_with(h + 1, Vec::new);
        }
        self.buckets[h].push(x);
    }

    /// Settles the entries of hop count `h` (sorted) in order, for
    /// [`dijkstra`](Self::dijkstra): returns whether every target is settled (and the
    /// search not `whole`).
    #[allow(clippy::too_many_arguments)]
    fn settle_bucket(
        &mut self,
        g: &SwitchGraph,
        efi: &[u32],
        avail: &impl Fn(u32) -> bool,
        h: u32,
        bucket: &[(u64, u32)],
        left: &mut usize,
        max_hops: u32,
        whole: bool,
        old: Option<&[Tree]>,
    ) -> bool {
        let mut adopt = std::mem::take(&mut self.adopt);
        let mut stop = false;
        for &(c, u) in bucket {
            if self.done.get(u) || (h, c) != (self.hops[u as usize], self.cost[u as usize]) {
                continue;
            }
            // Step ③: settle u.
            self.done.set(u);
            if self.target.get(u) {
                *left -= 1;
            }
            adopt.clear();
            adopt.push(u);
            // Steps ⑤–⑩: u in an old tree adopts the tree.
            if let Some(trees) = old
                && self.owned.get(u)
                && !self.adopted[self.owner[u as usize] as usize]
            {
                let k = self.owner[u as usize] as usize;
                self.adopted[k] = true;
                let tree = &trees[k];
                // The tree walked by node number beside the switches (no search for a
                // child's node; one for a parent's, the way back to the old root).
                let mut nodes = std::mem::take(&mut self.adopt_node);
                nodes.clear();
                nodes.extend(tree.node_of(u));
                let mut head = 0;
                while head < nodes.len() {
                    let (x, i) = (adopt[head], nodes[head]);
                    head += 1;
                    // (Parent, then children by port: the order of `tree_ports`.)
                    let up = tree.up_link(i).filter(|l| !self.done.get(l.0));
                    let up = up.and_then(|(p, port, pp)| Some((p, tree.node_of(p)?, port, pp)));
                    for (peer, node, port, peer_port) in up.into_iter().chain(tree.down_links(i)) {
                        if self.done.get(peer) {
                            continue;
                        }
                        let Some(slot) = g.slot_of_link(x, port, peer, peer_port) else {
                            continue;
                        };
                        let a = g.adj[slot as usize];
                        debug_assert_eq!(a.peer, peer);
                        // Step ⑨: old-tree links are taken unconditionally.
                        self.seen.set(a.peer);
                        self.done.set(a.peer);
                        self.hops[a.peer as usize] = self.hops[x as usize] + 1;
                        self.cost[a.peer as usize] =
                            self.cost[x as usize] + u64::from(efi[a.link.index()]);
                        self.parent[a.peer as usize] = slot;
                        self.via[a.peer as usize] = x;
                        if self.target.get(a.peer) {
                            *left -= 1;
                        }
                        adopt.push(a.peer);
                        nodes.push(node);
                    }
                }
                self.adopt_node = nodes;
            }
            if *left == 0 && !whole {
                stop = true;
                break;
            }
            // Step ④ (and ⑩ for adopted switches): relax the links in G_color.
            self.relax(g, efi, avail, &adopt, max_hops);
        }
        self.adopt = adopt;
        stop
    }

    /// [`settle_bucket`](Self::settle_bucket)'s step ④: relaxes the links in `G_color` of
    /// the switches `from`, in order, queueing every switch whose key improves.
    fn relax(
        &mut self,
        g: &SwitchGraph,
        efi: &[u32],
        avail: &impl Fn(u32) -> bool,
        from: &[u32],
        max_hops: u32,
    ) {
        // The arrays as local slices (no reload of a vector's pointer and length a link).
        let n = self.hops.len();
        let (seen_epoch, done_epoch) = (self.seen.epoch, self.done.epoch);
        let Self {
            seen,
            done,
            hops,
            cost,
            parent,
            via,
            buckets,
            ..
        } = self;
        let (seen, done) = (&mut seen.v[..n], &done.v[..n]);
        let (hops, cost, parent) = (&mut hops[..n], &mut cost[..n], &mut parent[..n]);
        let via = &mut via[..n];
        for &x in from {
            let (hx, cx) = (hops[x as usize], cost[x as usize]);
            if hx >= max_hops {
                continue;
            }
            let base = g.slot(x, 0);
            for (k, a) in g.adj(x).iter().enumerate() {
                let v = a.peer as usize;
                // (A switch seen and not settled was relaxed before: it is available.)
                let unseen = seen[v] != seen_epoch;
                if done[v] == done_epoch || (unseen && !avail(a.peer)) {
                    continue;
                }
                let key = (hx + 1, cx + u64::from(efi[a.link.index()]));
                if unseen || key < (hops[v], cost[v]) {
                    // Queued when the key enters a hop count (not again when it only
                    // gets cheaper there).
                    let queue = unseen || hops[v] != key.0;
                    seen[v] = seen_epoch;
                    (hops[v], cost[v]) = key;
                    parent[v] = base + k as u32;
                    via[v] = x;
                    if queue {
                        let h = key.0 as usize;
                        if buckets.len() <= h {
                            buckets.resize_with(h + 1, Vec::new);
                        }
                        buckets[h].push(a.peer);
                    }
                }
            }
        }
    }

    /// [`dijkstra`](Self::dijkstra) without old trees and without `whole`, by BFS layers:
    /// the key is (hops, Σ EFI), so the heap settles every switch of one hop count before
    /// the next, and within a count by (Σ EFI, switch), relaxing links in adjacency order
    /// and keeping a parent unless a strictly cheaper one comes. A switch's parent is thus
    /// the least (Σ EFI through it, parent's Σ EFI, parent, adjacency slot) over the
    /// previous layer, which a plain BFS finds by comparing those keys: the same parents
    /// with no heap and no sort. It stops after the layer that reaches the last target (the
    /// heap stops within it; the parents of the targets and their ancestors are the same).
    ///
    /// Complexity: O(S + L) over the part searched.
    #[allow(clippy::too_many_arguments)]
    fn layered(
        &mut self,
        g: &SwitchGraph,
        efi: &[u32],
        root: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        max_hops: u32,
        prune: bool,
    ) -> bool {
        let mut left = self.target.begin_with(targets);
        self.seen.begin();
        self.seen.set(root);
        self.hops[root as usize] = 0;
        self.cost[root as usize] = 0;
        self.parent[root as usize] = NO_SLOT;
        if self.target.get(root) {
            left -= 1;
        }
        self.queue.clear();
        self.queue.push(root);
        // The arrays as local slices (no reload of a vector's pointer and length a link).
        let n = self.hops.len();
        let epoch = self.seen.epoch;
        let Self {
            seen,
            target,
            hops,
            cost,
            parent,
            via,
            queue,
            near,
            ..
        } = self;
        let (seen, hops, cost) = (&mut seen.v[..n], &mut hops[..n], &mut cost[..n]);
        let (parent, via, near) = (&mut parent[..n], &mut via[..n], &near[..n]);
        // `queue[start..]` is the current layer.
        let mut start = 0;
        let mut h = 0;
        while left > 0 && start < queue.len() && h < max_hops {
            let end = queue.len();
            for i in start..end {
                let x = queue[i];
                let cx = cost[x as usize];
                let base = g.slot(x, 0);
                for (k, a) in g.adj(x).iter().enumerate() {
                    let v = a.peer as usize;
                    let was_seen = seen[v] == epoch;
                    // Settled (an earlier layer) or in this layer: no shorter key through x.
                    if was_seen && hops[v] <= h {
                        continue;
                    }
                    // (The cheaper test first; a switch already in the next layer passed
                    // both when it entered it.)
                    if !was_seen
                        && ((prune && (h + 1).saturating_add(u32::from(near[v])) > max_hops)
                            || !avail(a.peer))
                    {
                        continue;
                    }
                    let c = cx + u64::from(efi[a.link.index()]);
                    if !was_seen {
                        seen[v] = epoch;
                        hops[v] = h + 1;
                        queue.push(a.peer);
                    } else {
                        let p = via[v];
                        // The heap's order: cheaper, then by the parent's key; the first
                        // slot of one parent stays.
                        if (c, cx, x) >= (cost[v], cost[p as usize], p) {
                            continue;
                        }
                    }
                    cost[v] = c;
                    parent[v] = base + k as u32;
                    via[v] = x;
                }
            }
            for &v in &queue[end..] {
                if target.get(v) {
                    left -= 1;
                }
            }
            start = end;
            h += 1;
        }
        left == 0
    }

    /// The union of the tree paths from each of `ends` up to the root of the last
    /// [`dijkstra`](Self::dijkstra): `(child, edge to parent)` for every switch but the root.
    pub(crate) fn collect_paths(
        &mut self,
        g: &SwitchGraph,
        ends: impl Iterator<Item = u32>,
    ) -> Vec<(u32, Edge)> {
        self.collected.begin();
        let mut out = Vec::new();
        for mut x in ends {
            while !self.collected.get(x) {
                self.collected.set(x);
                let slot = self.parent[x as usize];
                if slot == NO_SLOT {
                    break;
                }
                let (child, e) = g.edge(slot);
                debug_assert_eq!(child, x);
                out.push((child, e));
                x = e.parent;
            }
        }
        out
    }

    /// The switches of the tree paths from each of `ends` up to the root of the last
    /// [`dijkstra`](Self::dijkstra) (the root included), each once, into `out` (cleared
    /// first), in no particular order: the switches [`collect_paths`](Self::collect_paths)
    /// names, and the root.
    ///
    /// Complexity: O(|ends| + T) for T switches named.
    pub(crate) fn path_switches(&mut self, ends: impl Iterator<Item = u32>, out: &mut Vec<u32>) {
        self.collected.begin();
        out.clear();
        for mut x in ends {
            while !self.collected.get(x) {
                self.collected.set(x);
                out.push(x);
                if self.parent[x as usize] == NO_SLOT {
                    break;
                }
                x = self.via[x as usize];
            }
        }
    }

    /// The edge from `x` up to its parent in the last [`dijkstra`](Self::dijkstra), `None`
    /// for its root (the edge [`collect_paths`](Self::collect_paths) names, read without
    /// searching for the parent's row).
    #[inline]
    pub(crate) fn parent_edge(&self, g: &SwitchGraph, x: u32) -> Option<Edge> {
        let slot = self.parent[x as usize];
        (slot != NO_SLOT).then(|| {
            let a = g.adj[slot as usize];
            debug_assert_eq!(a.peer, x);
            Edge {
                parent: self.via[x as usize],
                up_port: a.peer_port,
                down_port: a.port,
                link: a.link,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use fabric_model::{HopTable, generators};

    use super::*;
    use std::cmp::Reverse;
    use std::collections::{BTreeMap, BinaryHeap};

    /// The Dijkstra with a binary heap and a map of old-tree switches that
    /// [`Scratch::dijkstra`] replaced (kept as the reference of its settle order).
    #[allow(clippy::too_many_arguments)]
    fn dijkstra_heap(
        s: &mut Scratch,
        g: &SwitchGraph,
        efi: &[u32],
        root: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        max_hops: u32,
        whole: bool,
        old: Option<(&[Tree], &BTreeMap<u32, usize>)>,
        prune: bool,
    ) -> bool {
        debug_assert!(!prune || (old.is_none() && !whole));
        if old.is_none() && !whole {
            return s.layered(g, efi, root, avail, targets, max_hops, prune);
        }
        // With a heap: settle switches by (hops, Σ EFI, switch).
        let mut left = s.target.begin_with(targets);
        s.seen.begin();
        s.done.begin();
        let mut heap: BinaryHeap<Reverse<(u32, u64, u32)>> = BinaryHeap::new();
        let mut adopted = vec![false; old.map_or(0, |(t, _)| t.len())];
        let mut bfs: Vec<u32> = Vec::new();
        s.seen.set(root);
        s.hops[root as usize] = 0;
        s.cost[root as usize] = 0;
        s.parent[root as usize] = NO_SLOT;
        heap.push(Reverse((0, 0, root)));
        while let Some(Reverse((h, c, u))) = heap.pop() {
            if s.done.get(u) || (h, c) != (s.hops[u as usize], s.cost[u as usize]) {
                continue;
            }
            // Step ③: settle u.
            s.done.set(u);
            if s.target.get(u) {
                left -= 1;
            }
            bfs.clear();
            bfs.push(u);
            // Steps ⑤–⑩: u in an old tree adopts the tree.
            if let Some((trees, owner)) = old
                && let Some(&k) = owner.get(&u)
                && !adopted[k]
            {
                adopted[k] = true;
                let tree = &trees[k];
                let mut head = 0;
                while head < bfs.len() {
                    let x = bfs[head];
                    head += 1;
                    let Some(ports) = tree.tree_ports(x) else {
                        continue;
                    };
                    for p in ports {
                        let Some(k) = g.adj(x).iter().position(|a| a.port == p) else {
                            continue;
                        };
                        let a = g.adj(x)[k];
                        if s.done.get(a.peer) {
                            continue;
                        }
                        // Step ⑨: old-tree links are taken unconditionally.
                        s.seen.set(a.peer);
                        s.done.set(a.peer);
                        s.hops[a.peer as usize] = s.hops[x as usize] + 1;
                        s.cost[a.peer as usize] =
                            s.cost[x as usize] + u64::from(efi[a.link.index()]);
                        s.parent[a.peer as usize] = g.slot(x, k);
                        if s.target.get(a.peer) {
                            left -= 1;
                        }
                        bfs.push(a.peer);
                    }
                }
            }
            if left == 0 && !whole {
                break;
            }
            // Step ④ (and ⑩ for adopted switches): relax the links in G_color.
            for &x in &bfs {
                let (hx, cx) = (s.hops[x as usize], s.cost[x as usize]);
                if hx >= max_hops {
                    continue;
                }
                for (k, a) in g.adj(x).iter().enumerate() {
                    if s.done.get(a.peer)
                        || !avail(a.peer)
                        || s.pruned(prune, hx + 1, a.peer, max_hops)
                    {
                        continue;
                    }
                    let key = (hx + 1, cx + u64::from(efi[a.link.index()]));
                    let v = a.peer as usize;
                    if !s.seen.get(a.peer) || key < (s.hops[v], s.cost[v]) {
                        s.seen.set(a.peer);
                        (s.hops[v], s.cost[v]) = key;
                        s.parent[v] = g.slot(x, k);
                        heap.push(Reverse((key.0, key.1, a.peer)));
                    }
                }
            }
        }
        left == 0
    }

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

    /// Packed or not, entries come out as a plain sort leaves them (ties in load, loads
    /// past 32 bits).
    #[test]
    fn sort_entries_sorts_as_tuples() {
        let mut packed = Vec::new();
        for big in [0u64, 1 << 32, u64::from(u32::MAX)] {
            let mut e: Vec<(u64, u32)> = (0..300u32)
                .map(|i| {
                    (
                        u64::from(i * 7 % 13) + if i % 50 == 0 { big } else { 0 },
                        i * 31 % 97,
                    )
                })
                .collect();
            let mut want = e.clone();
            want.sort_unstable();
            sort_entries(&mut e, &mut packed);
            assert_eq!(e, want, "{big}");
        }
    }

    /// Old trees for [`buckets_settle_as_the_heap`]: up to `count` BFS trees of depth at
    /// most 2 from pseudo-random roots over switches of no earlier tree.
    fn old_trees(g: &SwitchGraph, seed: u32, count: u32) -> Vec<Tree> {
        let n = g.len() as u32;
        let mut taken = vec![false; n as usize];
        let mut trees = Vec::new();
        for k in 0..count {
            let root = (seed * 31 + k * 53) % n;
            if taken[root as usize] {
                continue;
            }
            taken[root as usize] = true;
            let mut parents = Vec::new();
            let mut layer = vec![root];
            for _ in 0..2 {
                let mut next = Vec::new();
                for &x in &layer {
                    for (j, a) in g.adj(x).iter().enumerate() {
                        // Skip some links so that trees are not whole balls.
                        if taken[a.peer as usize] || (a.peer + j as u32 + seed).is_multiple_of(3) {
                            continue;
                        }
                        taken[a.peer as usize] = true;
                        parents.push(g.edge(g.slot(x, j)));
                        next.push(a.peer);
                    }
                }
                layer = next;
            }
            trees.push(Tree::from_parts(0, root, &parents, &[]));
        }
        trees
    }

    /// The bucketed Dijkstra settles exactly as the binary heap with the old-tree map did:
    /// the same switches settled, with the same hops, loads and parents, with and without
    /// old trees (Alg. 5), whole or stopping at the targets, bounded or not, on fabrics and
    /// loads with many ties (double links, few load values).
    #[test]
    fn buckets_settle_as_the_heap() {
        let fabrics = [
            (generators::torus(&[7, 6, 4], 1).unwrap(), 3),
            (generators::torus(&[7, 2, 3], 1).unwrap(), 1),
            (generators::random_regular(40, 8, 2, 3).unwrap(), 2),
        ];
        let mut adopted = 0;
        for (f, loads) in &fabrics {
            let g = SwitchGraph::new(f);
            let n = g.len() as u32;
            let efi: Vec<u32> = (0..f.link_count() as u32).map(|l| l * 11 % loads).collect();
            let (mut a, mut b) = (Scratch::new(n as usize), Scratch::new(n as usize));
            for seed in 0..12u32 {
                let trees = old_trees(&g, seed, 1 + seed % 4);
                let owner: BTreeMap<u32, usize> = trees
                    .iter()
                    .enumerate()
                    .flat_map(|(k, t)| t.switches().iter().map(move |&x| (x, k)))
                    .collect();
                // Old-tree switches are free (as merged trees are), some others not.
                let avail =
                    |x: u32| owner.contains_key(&x) || !(x * 37 + seed * 13).is_multiple_of(5);
                let targets: Vec<u32> = (0..6)
                    .map(|k| (seed * 17 + k * 41) % n)
                    .filter(|&t| avail(t))
                    .collect();
                for root in (0..n).filter(|&x| avail(x)).step_by(3) {
                    for (whole, depth, with_old) in [
                        (false, u32::MAX, true),
                        (true, u32::MAX, true),
                        (false, 4, true),
                        (true, u32::MAX, false),
                        (true, 3, false),
                    ] {
                        let old = with_old.then_some(trees.as_slice());
                        let ra =
                            a.dijkstra(&g, &efi, root, avail, &targets, depth, whole, old, false);
                        let old = with_old.then_some((trees.as_slice(), &owner));
                        let rb = dijkstra_heap(
                            &mut b, &g, &efi, root, avail, &targets, depth, whole, old, false,
                        );
                        assert_eq!(ra, rb, "seed {seed} root {root}");
                        for x in 0..n {
                            assert_eq!(a.done.get(x), b.done.get(x), "seed {seed} root {root} {x}");
                            if a.done.get(x) {
                                let key = |s: &Scratch| {
                                    let i = x as usize;
                                    (s.hops[i], s.cost[i], s.parent[i])
                                };
                                assert_eq!(key(&a), key(&b), "seed {seed} root {root} {x}");
                            }
                        }
                        adopted += usize::from(with_old && a.adopted.iter().any(|&t| t));
                    }
                }
            }
        }
        assert!(adopted > 100, "{adopted}");
    }

    /// The layered search sets the same parents as the heap's Dijkstra (ties in hops and
    /// load included: loads drawn from a few values make many), pruned or not, bounded or
    /// not: the same paths to the targets, with the same hops and loads (pruning removes
    /// no switch of a path within the bound).
    #[test]
    fn layered_search_builds_the_heaps_paths() {
        layered_as_heap(&generators::torus(&[7, 6, 4], 1).unwrap(), |l| l * 11 % 3);
        // A ring of two switches joins them by two links and no load anywhere: every
        // parent is decided by the tie rules (parent's key, then the first of two links).
        layered_as_heap(&generators::torus(&[7, 2, 3], 1).unwrap(), |_| 0);
    }

    fn layered_as_heap(f: &Fabric, load: impl Fn(u32) -> u32) {
        let h = HopTable::new(f).unwrap();
        let g = SwitchGraph::new(f);
        let n = g.len() as u32;
        let efi: Vec<u32> = (0..f.link_count() as u32).map(load).collect();
        let mut s = Scratch::new(n as usize);
        let mut found = 0;
        for seed in 0..30u32 {
            let avail = |x: u32| !(x * 37 + seed * 13).is_multiple_of(6);
            let targets: Vec<u32> = (0..5)
                .map(|k| (seed * 17 + k * 41) % n)
                .filter(|&t| avail(t))
                .collect();
            s.fill_near(&h, &targets);
            for root in (0..n).filter(|&x| avail(x)).step_by(5) {
                for (depth, prune) in [(3, true), (5, true), (5, false), (u32::MAX, false)] {
                    // `whole` takes the heap, which settles every switch in reach; the
                    // parents it sets on the way to the targets are those it stops with.
                    let mut run = |layered: bool| {
                        let ok = if layered {
                            s.dijkstra(&g, &efi, root, avail, &targets, depth, false, None, prune)
                        } else {
                            dijkstra_heap(
                                &mut s, &g, &efi, root, avail, &targets, depth, true, None, false,
                            )
                        };
                        if !ok {
                            return None;
                        }
                        let keys: Vec<(u32, u64)> = targets
                            .iter()
                            .map(|&t| (s.hops[t as usize], s.cost[t as usize]))
                            .collect();
                        Some((keys, s.collect_paths(&g, targets.iter().copied())))
                    };
                    let (a, b) = (run(true), run(false));
                    found += usize::from(a.is_some());
                    assert_eq!(a, b, "seed {seed} root {root} depth {depth}");
                }
            }
        }
        assert!(found > 100, "{found}");
    }

    /// The bit-parallel search names the switch of least (largest distance to the sources,
    /// key), as one BFS a source finds it, with keys that tie often in their high part (many
    /// switches at the least distance, checked in key order), with more sources than a word
    /// holds and a few; with the hop-table lower bound or none, and with a depth bound at
    /// the answer (the same) or below it (none).
    #[test]
    fn least_farthest_matches_one_bfs_a_source() {
        let f = generators::torus(&[9, 8, 3], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let g = SwitchGraph::new(&f);
        let n = g.len() as u32;
        let mut s = Scratch::new(n as usize);
        let mut ties = 0;
        for seed in 0..12u32 {
            let avail = |x: u32| !(x * 29 + seed * 11).is_multiple_of(5);
            let start = (0..n).find(|&x| avail(x)).unwrap();
            s.bfs(&g, start, u32::MAX, avail, &[], false);
            let comp = s.queue.clone();
            // Over 64 of the component's switches (3 words), over 128 (one past a power of
            // two), or a few.
            let step = [2, 1, 23, 7][seed as usize % 4];
            let sources: Vec<u32> = comp.iter().copied().step_by(step).collect();
            let mut want = vec![0u32; n as usize];
            for &src in &sources {
                s.bfs(&g, src, u32::MAX, avail, &[], false);
                assert_eq!(s.queue.len(), comp.len());
                for &x in &s.queue {
                    want[x as usize] = want[x as usize].max(s.hops[x as usize]);
                }
            }
            let radius = comp.iter().map(|&x| want[x as usize]).min().unwrap();
            // A few values in the high part, the switch below (distinct keys).
            let key = |x: u32| u64::from((x * 7 + seed) % 3) << 32 | u64::from(x);
            let argmin = comp
                .iter()
                .copied()
                .min_by_key(|&x| (want[x as usize], key(x)))
                .unwrap();
            ties += usize::from(comp.iter().filter(|&&x| want[x as usize] == radius).count() > 1);
            for hop_bound in [true, false] {
                s.maxd.fill(0);
                if hop_bound {
                    for &src in &sources {
                        for (m, &d) in s.maxd.iter_mut().zip(h.row(src as usize)) {
                            *m = (*m).max(d);
                        }
                    }
                }
                for bound in [u32::MAX, radius + 1, radius] {
                    let got = s.least_farthest(&g, &sources, avail, &comp, bound, key);
                    assert_eq!(got, Some((radius, argmin)), "seed {seed} bound {bound}");
                }
                if radius > 0 {
                    let got = s.least_farthest(&g, &sources, avail, &comp, radius - 1, key);
                    assert_eq!(got, None, "seed {seed}");
                }
            }
        }
        assert!(ties > 3, "{ties}");
    }

    /// The wide rows: 9 to 16 words and past 32 (the width taken at run time) answer as
    /// one BFS a source.
    #[test]
    fn least_farthest_with_wide_rows() {
        for dims in [[12, 12, 4], [16, 12, 11]] {
            let f = generators::torus(&dims, 1).unwrap();
            let g = SwitchGraph::new(&f);
            let n = g.len() as u32;
            let mut s = Scratch::new(n as usize);
            let avail = |x: u32| !x.is_multiple_of(97);
            let start = (0..n).find(|&x| avail(x)).unwrap();
            s.bfs(&g, start, u32::MAX, avail, &[], false);
            let comp = s.queue.clone();
            let sources = comp.clone();
            assert!(sources.len() > 512 && (sources.len() <= 1024 || sources.len() > 2048));
            let mut want = vec![0u32; n as usize];
            for &src in &sources {
                s.bfs(&g, src, u32::MAX, avail, &[], false);
                for &x in &s.queue {
                    want[x as usize] = want[x as usize].max(s.hops[x as usize]);
                }
            }
            let radius = comp.iter().map(|&x| want[x as usize]).min().unwrap();
            let argmin = comp
                .iter()
                .copied()
                .min_by_key(|&x| (want[x as usize], x))
                .unwrap();
            s.maxd.fill(0);
            let got = s.least_farthest(&g, &sources, avail, &comp, u32::MAX, u64::from);
            assert_eq!(got, Some((radius, argmin)), "{dims:?}");
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

    /// The blocked passes fill the least and the largest distance to the targets as one
    /// pass a row does, for target sets of none, one, a few and many (past a pass of eight
    /// rows), and switch counts of whole blocks and with a tail.
    #[test]
    fn far_and_near_are_the_row_by_row_largest_and_least() {
        for dims in [[4, 4, 4], [7, 5, 3]] {
            let f = generators::torus(&dims, 1).unwrap();
            let h = HopTable::new(&f).unwrap();
            let n = f.switch_count();
            let mut s = Scratch::new(n);
            let many: Vec<u32> = (0..n as u32).step_by(3).collect();
            for targets in [vec![], vec![3], vec![5, 1, 9], many] {
                let mut far = vec![0u8; n];
                let mut near = vec![u8::MAX; n];
                for &t in &targets {
                    for (x, &v) in h.row(t as usize).iter().enumerate() {
                        far[x] = far[x].max(v);
                        near[x] = near[x].min(v);
                    }
                }
                s.maxd.fill(7);
                s.near.fill(9);
                s.fill_far(&h, &targets);
                assert_eq!(s.maxd, far, "{dims:?} {targets:?}");
                assert!(s.near.iter().all(|&d| d == 9));
                s.fill_near(&h, &targets);
                assert_eq!(s.near, near, "{dims:?} {targets:?}");
                // Raising by the rows already in changes nothing; by a row of a switch
                // outside them, something (its own row holds its farthest switches).
                assert!(!s.raise_far(&h, &targets));
                assert_eq!(s.maxd, far);
                if let Some(&t) = targets.first() {
                    s.fill_far(&h, &[t]);
                    let other = (t + n as u32 / 2) % n as u32;
                    assert!(s.raise_far(&h, &[other]));
                    assert_eq!(s.maxd, {
                        let mut m = h.row(t as usize).to_vec();
                        for (a, &v) in m.iter_mut().zip(h.row(other as usize)) {
                            *a = (*a).max(v);
                        }
                        m
                    });
                }
            }
        }
    }

    /// `component` leaves the queue of a BFS with no target (the whole component, in the
    /// same order) and answers whether every target is in it, as a BFS to the targets does.
    #[test]
    fn component_is_the_whole_bfs_with_the_targets_answer() {
        let f = generators::torus(&[6, 5, 3], 1).unwrap();
        let g = SwitchGraph::new(&f);
        let n = g.len() as u32;
        let mut s = Scratch::new(n as usize);
        let mut split = [0; 2];
        for seed in 0..30u32 {
            // Every third switch busy cuts the torus into pieces for some offsets.
            let avail = |x: u32| !(x * 7 + seed).is_multiple_of(3);
            let start = (0..n).find(|&x| avail(x)).unwrap();
            let targets: Vec<u32> = (0..4)
                .map(|k| (seed * 19 + k * 23) % n)
                .filter(|&t| avail(t))
                .collect();
            let want = s.bfs(&g, start, u32::MAX, avail, &targets, false);
            s.bfs(&g, start, u32::MAX, avail, &[], false);
            let whole = s.queue.clone();
            let mut words = vec![0u64; (n as usize).div_ceil(64)];
            for x in (0..n).filter(|&x| avail(x)) {
                crate::bits::set(&mut words, x as usize);
            }
            assert_eq!(
                s.component(&g, start, &words, &targets),
                want,
                "seed {seed}"
            );
            assert_eq!(s.queue, whole, "seed {seed}");
            // A busy target is never in it (nor anything from a busy start), though the
            // busy switches are marked seen.
            let busy = (0..n).find(|&x| !avail(x)).unwrap();
            let with_busy = [targets.as_slice(), &[busy]].concat();
            assert!(!s.component(&g, start, &words, &with_busy));
            assert!(!s.component(&g, busy, &words, &[start]));
            assert!(s.component(&g, busy, &words, &[]) && s.queue.is_empty());
            split[usize::from(want)] += 1;
        }
        assert!(split[0] > 0 && split[1] > 0, "{split:?}");
    }

    /// Pruning by the distance to the targets changes what is searched, never the answer:
    /// bounded BFS and Dijkstra from every switch to pseudo-random target sets over a
    /// pseudo-random `G_color` agree with and without it.
    #[test]
    fn pruned_searches_answer_as_unpruned_ones() {
        let f = generators::torus(&[6, 5, 4], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let g = SwitchGraph::new(&f);
        let n = g.len() as u32;
        let efi: Vec<u32> = (0..f.link_count() as u32).map(|l| l * 7 % 5).collect();
        let mut s = Scratch::new(n as usize);
        let mut checked = 0;
        for seed in 0..40u32 {
            let avail = |x: u32| !(x * 31 + seed * 17).is_multiple_of(7);
            let targets: Vec<u32> = (0..4).map(|k| (seed * 13 + k * 29) % n).collect();
            let targets: Vec<u32> = targets.into_iter().filter(|&t| avail(t)).collect();
            s.fill_near(&h, &targets);
            for start in (0..n).filter(|&x| avail(x)) {
                for depth in [2, 4, 6] {
                    let plain = s.bfs(&g, start, depth, avail, &targets, false);
                    let far_plain: Vec<u32> = targets.iter().map(|&t| s.hops[t as usize]).collect();
                    let pruned = s.bfs(&g, start, depth, avail, &targets, true);
                    assert_eq!(plain, pruned, "bfs seed {seed} start {start} depth {depth}");
                    if plain {
                        let far: Vec<u32> = targets.iter().map(|&t| s.hops[t as usize]).collect();
                        assert_eq!(far, far_plain);
                        checked += 1;
                    }
                    let dj = |s: &mut Scratch, prune| {
                        let ok =
                            s.dijkstra(&g, &efi, start, avail, &targets, depth, false, None, prune);
                        let key: Vec<(u32, u64)> = targets
                            .iter()
                            .map(|&t| (s.hops[t as usize], s.cost[t as usize]))
                            .collect();
                        (ok, if ok { key } else { Vec::new() })
                    };
                    assert_eq!(dj(&mut s, false), dj(&mut s, true), "dijkstra seed {seed}");
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
