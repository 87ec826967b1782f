//! The switch graph in compressed rows, and the searches over it (BFS, Dijkstra) with reusable
//! scratch space. `G_color` is never built: searches take an availability predicate that reads
//! the per-switch busy bitmaps.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

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
        Self { start, adj }
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
        self.start.capacity() * 4 + self.adj.capacity() * size_of::<Adj>()
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

/// Reusable per-switch arrays for the searches.
#[derive(Debug, Clone)]
pub(crate) struct Scratch {
    pub(crate) seen: Marks,
    pub(crate) done: Marks,
    target: Marks,
    collected: Marks,
    pub(crate) hops: Vec<u32>,
    pub(crate) cost: Vec<u64>,
    parent: Vec<u32>,
    /// Per switch, its parent switch in the last layered search.
    via: Vec<u32>,
    /// Per switch, the adjacency index of its chosen next hop (least-load bottom-up build).
    pub(crate) choice: Vec<u32>,
    /// Nodes reached by the last BFS, in BFS order.
    pub(crate) queue: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u64, u32)>>,
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
}

impl Scratch {
    pub(crate) fn new(n: usize) -> Self {
        Self {
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
            heap: BinaryHeap::new(),
            maxd: vec![0; n],
            near: vec![0; n],
            busy_or: Vec::new(),
        }
    }

    /// Fills [`near`](Self::near) with every switch's least hop distance to `targets`.
    ///
    /// Complexity: O(S·|targets|) byte operations.
    pub(crate) fn fill_near(&mut self, hops: &fabric_model::HopTable, targets: &[u32]) {
        self.near.fill(u8::MAX);
        for &t in targets {
            for (acc, &h) in self.near.iter_mut().zip(hops.row(t as usize)) {
                *acc = (*acc).min(h);
            }
        }
    }

    #[inline]
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
            + (self.cost.capacity() + self.busy_or.capacity()) * 8
            + self.heap.capacity() * size_of::<Reverse<(u32, u64, u32)>>()
            + self.maxd.capacity()
            + self.near.capacity()
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
        let mut head = 0;
        while head < self.queue.len() && (left > 0 || targets.is_empty()) {
            let v = self.queue[head];
            head += 1;
            let h = self.hops[v as usize];
            if h >= max_depth {
                continue;
            }
            for a in g.adj(v) {
                if !self.seen.get(a.peer)
                    && avail(a.peer)
                    && !self.pruned(prune, h + 1, a.peer, max_depth)
                {
                    self.seen.set(a.peer);
                    self.hops[a.peer as usize] = h + 1;
                    self.queue.push(a.peer);
                    if self.target.get(a.peer) {
                        left -= 1;
                    }
                }
            }
        }
        left == 0
    }

    /// The largest BFS distance from each switch of `comp` to `sources`, over switches for
    /// which `avail` holds, into `far` (indexed by switch; entries outside `comp` untouched),
    /// `u32::MAX` where it exceeds `max_depth`. `comp` must be the whole connected component
    /// of the sources among those switches and `sources` distinct. One bit-parallel BFS from
    /// every source at once (64 sources a word): a switch's bits are the sources that have
    /// reached it, and it is pushed on at the levels where new ones arrive, so `far` is the
    /// level of its last arrival.
    ///
    /// Complexity: O(k·(S + L)·⌈|sources|/64⌉) over the component, k ≤ `max_depth` the
    /// number of distinct distances a switch has to the sources, against
    /// O(|sources|·(S + L)) for one BFS a source.
    pub(crate) fn farthest(
        &mut self,
        g: &SwitchGraph,
        sources: &[u32],
        avail: impl Fn(u32) -> bool,
        comp: &[u32],
        max_depth: u32,
        far: &mut [u32],
    ) {
        let w = sources.len().div_ceil(64);
        // Component switch -> its row in the bit arrays.
        self.done.begin();
        let mut links = 0;
        for (i, &x) in comp.iter().enumerate() {
            self.hops[x as usize] = i as u32;
            self.done.set(x);
            far[x as usize] = 0;
            links += g.adj(x).len();
        }
        debug_assert!(comp.iter().all(|&x| avail(x)));
        let n = comp.len();
        // The component's links in compressed rows of row numbers. A neighbour of the
        // component is in it exactly when `avail` holds for it.
        let mut start: Vec<u32> = Vec::with_capacity(n + 1);
        let mut adj: Vec<u32> = Vec::with_capacity(links);
        start.push(0);
        for &x in comp {
            for a in g.adj(x) {
                if self.done.get(a.peer) {
                    adj.push(self.hops[a.peer as usize]);
                }
            }
            start.push(adj.len() as u32);
        }
        let mut seen = vec![0u64; n * w];
        let mut front = vec![0u64; n * w];
        let mut next = vec![0u64; n * w];
        let mut active: Vec<u32> = Vec::new();
        let mut reached: Vec<u32> = Vec::new();
        for (i, &src) in sources.iter().enumerate() {
            let p = self.hops[src as usize] as usize;
            let bit = 1u64 << (i % 64);
            seen[p * w + i / 64] |= bit;
            front[p * w + i / 64] |= bit;
            active.push(p as u32);
        }
        let mut level = 0;
        while !active.is_empty() && level < max_depth {
            level += 1;
            self.collected.begin();
            reached.clear();
            for &p in &active {
                let p = p as usize;
                let fp = &front[p * w..(p + 1) * w];
                for &q in &adj[start[p] as usize..start[p + 1] as usize] {
                    let r = q as usize * w..(q as usize + 1) * w;
                    let mut new = 0;
                    for ((nx, &f), &sn) in next[r.clone()].iter_mut().zip(fp).zip(&seen[r]) {
                        let b = f & !sn;
                        *nx |= b;
                        new |= b;
                    }
                    if new != 0 && !self.collected.get(q) {
                        self.collected.set(q);
                        reached.push(q);
                    }
                }
            }
            for &p in &active {
                front[p as usize * w..(p as usize + 1) * w].fill(0);
            }
            for &q in &reached {
                let q = q as usize;
                for k in q * w..(q + 1) * w {
                    seen[k] |= next[k];
                    front[k] = next[k];
                    next[k] = 0;
                }
                far[comp[q] as usize] = level;
            }
            std::mem::swap(&mut active, &mut reached);
        }
        if !active.is_empty() {
            // Stopped at `max_depth`: switches some source has not reached are farther.
            let all = |k: usize| {
                let bits = sources.len() - 64 * k;
                if bits >= 64 {
                    u64::MAX
                } else {
                    (1 << bits) - 1
                }
            };
            for (p, row) in seen.chunks_exact(w).enumerate() {
                if row.iter().enumerate().any(|(k, &b)| b != all(k)) {
                    far[comp[p] as usize] = u32::MAX;
                }
            }
        }
    }

    /// Dijkstra from `root` over the switches for which `avail` holds, with the key
    /// (hops, Σ EFI) compared lexicographically so that every path is a least-hop path and,
    /// among those, the least loaded; paths longer than `max_hops` are not followed. With
    /// `whole` it settles every reachable switch (SSSP-MC), otherwise it stops once every
    /// target is settled.
    ///
    /// Alg. 5: with `old` (the old trees and the switch → old-tree map), settling a switch of
    /// an old tree adopts that whole tree along its own links (steps ⑤–⑩), so none of its
    /// links is lost.
    ///
    /// Returns whether every target was reached. With `prune` (not with `old` or `whole`),
    /// switches too far from every target by [`near`](Self::near) are not entered.
    ///
    /// Complexity: O((S + L) log S) over the part searched.
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
        old: Option<(&[Tree], &BTreeMap<u32, usize>)>,
        prune: bool,
    ) -> bool {
        debug_assert!(!prune || (old.is_none() && !whole));
        if old.is_none() && !whole {
            return self.layered(g, efi, root, avail, targets, max_hops, prune);
        }
        // With a heap: settle switches by (hops, Σ EFI, switch).
        let mut left = self.target.begin_with(targets);
        self.seen.begin();
        self.done.begin();
        self.heap.clear();
        let mut adopted = vec![false; old.map_or(0, |(t, _)| t.len())];
        let mut bfs: Vec<u32> = Vec::new();
        self.seen.set(root);
        self.hops[root as usize] = 0;
        self.cost[root as usize] = 0;
        self.parent[root as usize] = NO_SLOT;
        self.heap.push(Reverse((0, 0, root)));
        while let Some(Reverse((h, c, u))) = self.heap.pop() {
            if self.done.get(u) || (h, c) != (self.hops[u as usize], self.cost[u as usize]) {
                continue;
            }
            // Step ③: settle u.
            self.done.set(u);
            if self.target.get(u) {
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
                        if self.done.get(a.peer) {
                            continue;
                        }
                        // Step ⑨: old-tree links are taken unconditionally.
                        self.seen.set(a.peer);
                        self.done.set(a.peer);
                        self.hops[a.peer as usize] = self.hops[x as usize] + 1;
                        self.cost[a.peer as usize] =
                            self.cost[x as usize] + u64::from(efi[a.link.index()]);
                        self.parent[a.peer as usize] = g.slot(x, k);
                        if self.target.get(a.peer) {
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
                let (hx, cx) = (self.hops[x as usize], self.cost[x as usize]);
                if hx >= max_hops {
                    continue;
                }
                for (k, a) in g.adj(x).iter().enumerate() {
                    if self.done.get(a.peer)
                        || !avail(a.peer)
                        || self.pruned(prune, hx + 1, a.peer, max_hops)
                    {
                        continue;
                    }
                    let key = (hx + 1, cx + u64::from(efi[a.link.index()]));
                    let v = a.peer as usize;
                    if !self.seen.get(a.peer) || key < (self.hops[v], self.cost[v]) {
                        self.seen.set(a.peer);
                        (self.hops[v], self.cost[v]) = key;
                        self.parent[v] = g.slot(x, k);
                        self.heap.push(Reverse((key.0, key.1, a.peer)));
                    }
                }
            }
        }
        left == 0
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
        // `queue[start..]` is the current layer.
        let mut start = 0;
        let mut h = 0;
        while left > 0 && start < self.queue.len() && h < max_hops {
            let end = self.queue.len();
            for i in start..end {
                let x = self.queue[i];
                let cx = self.cost[x as usize];
                for (k, a) in g.adj(x).iter().enumerate() {
                    let v = a.peer as usize;
                    // Settled (an earlier layer) or in this layer: no shorter key through x.
                    if self.seen.get(a.peer) && self.hops[v] <= h {
                        continue;
                    }
                    if !avail(a.peer) || self.pruned(prune, h + 1, a.peer, max_hops) {
                        continue;
                    }
                    let c = cx + u64::from(efi[a.link.index()]);
                    if !self.seen.get(a.peer) {
                        self.seen.set(a.peer);
                        self.hops[v] = h + 1;
                        self.queue.push(a.peer);
                    } else {
                        let p = self.via[v];
                        // The heap's order: cheaper, then by the parent's key; the first
                        // slot of one parent stays.
                        if (c, cx, x) >= (self.cost[v], self.cost[p as usize], p) {
                            continue;
                        }
                    }
                    self.cost[v] = c;
                    self.parent[v] = g.slot(x, k);
                    self.via[v] = x;
                }
            }
            for &v in &self.queue[end..] {
                if self.target.get(v) {
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
}

#[cfg(test)]
mod tests {
    use fabric_model::{HopTable, generators};

    use super::*;

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
                            s.dijkstra(&g, &efi, root, avail, &targets, depth, true, None, false)
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

    /// The bit-parallel search gives every switch of the component its largest distance to
    /// the sources, as one BFS a source does, with more sources than a word holds; with a
    /// depth bound the switches beyond it read `u32::MAX` and the others are unchanged.
    #[test]
    fn farthest_matches_one_bfs_a_source() {
        let f = generators::torus(&[9, 8, 3], 1).unwrap();
        let g = SwitchGraph::new(&f);
        let n = g.len() as u32;
        let mut s = Scratch::new(n as usize);
        for seed in 0..6u32 {
            let avail = |x: u32| !(x * 29 + seed * 11).is_multiple_of(5);
            let start = (0..n).find(|&x| avail(x)).unwrap();
            s.bfs(&g, start, u32::MAX, avail, &[], false);
            let comp = s.queue.clone();
            // Every other switch of the component (over 64 of them), or a few.
            let step = if seed % 2 == 0 { 2 } else { 23 };
            let sources: Vec<u32> = comp.iter().copied().step_by(step).collect();
            let mut want = vec![0u32; n as usize];
            for &src in &sources {
                s.bfs(&g, src, u32::MAX, avail, &[], false);
                assert_eq!(s.queue.len(), comp.len());
                for &x in &s.queue {
                    want[x as usize] = want[x as usize].max(s.hops[x as usize]);
                }
            }
            assert!(seed % 2 == 1 || sources.len() > 64, "{}", sources.len());
            let mut far = vec![7u32; n as usize];
            s.farthest(&g, &sources, avail, &comp, u32::MAX, &mut far);
            for &x in &comp {
                assert_eq!(far[x as usize], want[x as usize], "seed {seed} switch {x}");
            }
            let radius = comp.iter().map(|&x| want[x as usize]).min().unwrap();
            s.farthest(&g, &sources, avail, &comp, radius, &mut far);
            for &x in &comp {
                let w = want[x as usize];
                assert_eq!(far[x as usize], if w > radius { u32::MAX } else { w });
            }
        }
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
