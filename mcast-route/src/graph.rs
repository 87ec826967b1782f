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
    done: Marks,
    target: Marks,
    collected: Marks,
    pub(crate) hops: Vec<u32>,
    cost: Vec<u64>,
    parent: Vec<u32>,
    /// Nodes reached by the last BFS, in BFS order.
    pub(crate) queue: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u64, u32)>>,
    /// Per switch, the largest hop distance to a member switch (candidate roots).
    pub(crate) maxd: Vec<u8>,
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
            queue: Vec::with_capacity(n),
            heap: BinaryHeap::new(),
            maxd: vec![0; n],
        }
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        (self.seen.v.capacity()
            + self.done.v.capacity()
            + self.target.v.capacity()
            + self.collected.v.capacity()
            + self.hops.capacity()
            + self.parent.capacity()
            + self.queue.capacity())
            * 4
            + self.cost.capacity() * 8
            + self.heap.capacity() * size_of::<Reverse<(u32, u64, u32)>>()
            + self.maxd.capacity()
    }

    /// BFS from `start` over switches for which `avail` holds, at most `max_depth` hops.
    /// Returns whether every switch of `targets` was reached (it stops as soon as they are;
    /// with no target it searches the whole component).
    /// `queue` holds the reached switches afterwards and `hops` their distances.
    ///
    /// Complexity: O(S + L) over the part of `G_color` searched.
    pub(crate) fn bfs(
        &mut self,
        g: &SwitchGraph,
        start: u32,
        max_depth: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
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
                if !self.seen.get(a.peer) && avail(a.peer) {
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
    /// Returns whether every target was reached.
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
    ) -> bool {
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
                    if self.done.get(a.peer) || !avail(a.peer) {
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
