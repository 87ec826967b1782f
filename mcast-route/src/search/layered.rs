//! The layered search: [`dijkstra`](super::Scratch::dijkstra) without old trees, one hop
//! level at a time.

use super::{NO_SLOT, Pruning, Scratch, SwitchGraph};

impl Scratch {
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
    pub(super) fn layered(
        &mut self,
        g: &SwitchGraph,
        efi: &[u32],
        root: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        max_hops: u32,
        pruning: Pruning,
    ) -> bool {
        let prune = pruning == Pruning::Near;
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
}

#[cfg(test)]
mod tests {

    use fabric_model::{Fabric, HopTable, generators};

    use crate::search::*;

    use crate::search::dijkstra::oracle::dijkstra_heap;

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
                for (depth, prune) in [
                    (3, Pruning::Near),
                    (5, Pruning::Near),
                    (5, Pruning::Off),
                    (u32::MAX, Pruning::Off),
                ] {
                    // `whole` takes the heap, which settles every switch in reach; the
                    // parents it sets on the way to the targets are those it stops with.
                    let mut run = |layered: bool| {
                        let ok = if layered {
                            s.dijkstra(
                                &g,
                                &efi,
                                root,
                                avail,
                                &targets,
                                depth,
                                Extent::Targets,
                                None,
                                prune,
                            )
                        } else {
                            dijkstra_heap(
                                &mut s,
                                &g,
                                &efi,
                                root,
                                avail,
                                &targets,
                                depth,
                                Extent::Whole,
                                None,
                                Pruning::Off,
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
}
