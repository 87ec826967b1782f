//! Dijkstra by (hops, Σ EFI) over `G_color`, bucketed by hop count, optionally growing from
//! old trees, and the reading of its paths.

use super::{Extent, NO_SLOT, Pruning, Scratch, SwitchGraph};
use crate::tree::{Edge, Tree};

/// Sorts (Σ EFI, switch) entries: as one word each (load above, switch below) when every
/// load fits in 32 bits, which orders them the same.
pub(super) fn sort_entries(entries: &mut [(u64, u32)], packed: &mut Vec<u64>) {
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

impl Scratch {
    /// Dijkstra from `root` over the switches for which `avail` holds, with the key
    /// (hops, Σ EFI) compared lexicographically so that every path is a least-hop path and,
    /// among those, the least loaded; paths longer than `max_hops` are not followed. With
    /// [`Extent::Whole`] it settles every reachable switch (SSSP-MC), with
    /// [`Extent::Targets`] it stops once every target is settled.
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
    /// Returns whether every target was reached. With [`Pruning::Near`] (not with `old` or
    /// [`Extent::Whole`]), switches too far from every target by [`near`](Self::near) are not
    /// entered.
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
        extent: Extent,
        old: Option<&[Tree]>,
        pruning: Pruning,
    ) -> bool {
        let whole = extent == Extent::Whole;
        debug_assert!(pruning == Pruning::Off || (old.is_none() && !whole));
        if old.is_none() && !whole {
            return self.layered(g, efi, root, avail, targets, max_hops, pruning);
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
                    // Trees of one color are switch-disjoint (`State::install` checks it in
                    // every build).
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
                g, efi, &avail, h as u32, &entries, &mut left, max_hops, extent, old,
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
    pub(super) fn push_bucket(&mut self, h: u32, x: u32) {
        let h = h as usize;
        if self.buckets.len() <= h {
            self.buckets.resize_with(h + 1, Vec::new);
        }
        self.buckets[h].push(x);
    }

    /// Settles the entries of hop count `h` (sorted) in order, for
    /// [`dijkstra`](Self::dijkstra): returns whether every target is settled (and the
    /// search not [`Extent::Whole`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn settle_bucket(
        &mut self,
        g: &SwitchGraph,
        efi: &[u32],
        avail: &impl Fn(u32) -> bool,
        h: u32,
        bucket: &[(u64, u32)],
        left: &mut usize,
        max_hops: u32,
        extent: Extent,
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
            if *left == 0 && extent == Extent::Targets {
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
    pub(super) fn relax(
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
pub(super) mod oracle {
    use std::cmp::Reverse;
    use std::collections::{BTreeMap, BinaryHeap};

    use crate::search::*;
    use crate::tree::Tree;

    /// The Dijkstra with a binary heap and a map of old-tree switches that
    /// [`Scratch::dijkstra`] replaced (kept as the reference of its settle order).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::search) fn dijkstra_heap(
        s: &mut Scratch,
        g: &SwitchGraph,
        efi: &[u32],
        root: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        max_hops: u32,
        extent: Extent,
        old: Option<(&[Tree], &BTreeMap<u32, usize>)>,
        pruning: Pruning,
    ) -> bool {
        let whole = extent == Extent::Whole;
        debug_assert!(pruning == Pruning::Off || (old.is_none() && !whole));
        if old.is_none() && !whole {
            return s.layered(g, efi, root, avail, targets, max_hops, pruning);
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
                        || s.pruned(pruning, hx + 1, a.peer, max_hops)
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
}

#[cfg(test)]
mod tests {

    use std::collections::BTreeMap;

    use fabric_model::generators;

    use super::oracle::dijkstra_heap;
    use super::sort_entries;
    use crate::search::*;
    use crate::tree::Tree;

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
                        (Extent::Targets, u32::MAX, true),
                        (Extent::Whole, u32::MAX, true),
                        (Extent::Targets, 4, true),
                        (Extent::Whole, u32::MAX, false),
                        (Extent::Whole, 3, false),
                    ] {
                        let old = with_old.then_some(trees.as_slice());
                        let ra = a.dijkstra(
                            &g,
                            &efi,
                            root,
                            avail,
                            &targets,
                            depth,
                            whole,
                            old,
                            Pruning::Off,
                        );
                        let old = with_old.then_some((trees.as_slice(), &owner));
                        let rb = dijkstra_heap(
                            &mut b,
                            &g,
                            &efi,
                            root,
                            avail,
                            &targets,
                            depth,
                            whole,
                            old,
                            Pruning::Off,
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
}
