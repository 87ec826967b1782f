//! Breadth-first searches of `G_color`: bounded BFS and whole components.

use super::{Pruning, Scratch, SwitchGraph};

impl Scratch {
    /// BFS from `start` over switches for which `avail` holds, at most `max_depth` hops.
    /// Returns whether every switch of `targets` was reached (it stops as soon as they are;
    /// with no target it searches the whole component).
    /// `queue` holds the reached switches afterwards and `hops` their distances. With
    /// [`Pruning::Near`], switches too far from every target by [`near`](Self::near) (filled
    /// for `targets`) are not entered: the answer is the same, the search smaller.
    ///
    /// Complexity: O(S + L) over the part of `G_color` searched.
    pub(crate) fn bfs(
        &mut self,
        g: &SwitchGraph,
        start: u32,
        max_depth: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        pruning: Pruning,
    ) -> bool {
        self.search(g, start, max_depth, avail, targets, pruning)
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
    pub(super) fn search(
        &mut self,
        g: &SwitchGraph,
        start: u32,
        max_depth: u32,
        avail: impl Fn(u32) -> bool,
        targets: &[u32],
        pruning: Pruning,
    ) -> bool {
        let prune = pruning == Pruning::Near;
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
}

#[cfg(test)]
mod tests {

    use fabric_model::generators;

    use crate::search::*;

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
            let want = s.bfs(&g, start, u32::MAX, avail, &targets, Pruning::Off);
            s.bfs(&g, start, u32::MAX, avail, &[], Pruning::Off);
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
}
