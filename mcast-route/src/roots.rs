//! Candidate roots (Alg. 1 step ①) and the bottom-up build (Alg. 2).

use crate::Router;
use crate::colors::ColorTable;
use crate::tree::Edge;

impl Router<'_> {
    /// Fills `scratch.maxd[s]` with the largest hop distance from switch `s` to a member
    /// switch, and returns the least of them: the least tree height over all roots, less the
    /// terminal link.
    ///
    /// Complexity: O(S·M) byte operations for S switches and M member switches.
    pub(crate) fn max_dist(&mut self, member_sw: &[u32]) -> u8 {
        let maxd = &mut self.s.maxd;
        maxd.fill(0);
        for &m in member_sw {
            // The hop table is symmetric: row m holds the distances from every switch to m.
            for (acc, &h) in maxd.iter_mut().zip(self.hops.row(m as usize)) {
                *acc = (*acc).max(h);
            }
        }
        maxd.iter().copied().min().unwrap_or(0)
    }

    /// Alg. 1 step ①: the switches whose largest distance to the members is `d` (the least,
    /// from [`max_dist`](Self::max_dist)), without those whose MFT is full when `skip_full`,
    /// in order of load: entries in use, then the summed EFI of their switch links, then
    /// index. The order is produced lazily: the first root costs O(S), the rest a sort.
    ///
    /// Complexity: O(S + R log R) for R candidates, O(S) when only the first is taken.
    pub(crate) fn candidate_roots(&self, d: u8, skip_full: bool) -> Roots {
        let keys: Vec<(usize, u64, u32)> = self
            .s
            .maxd
            .iter()
            .enumerate()
            .filter(|&(s, &m)| m == d && !(skip_full && self.colors.is_full(s as u32)))
            .map(|(s, _)| (self.colors.in_use(s as u32), self.sw_load[s], s as u32))
            .collect();
        Roots {
            keys,
            sorted: false,
            next: 0,
        }
    }

    /// Alg. 2 (`build_mct_from_down_to_up`): from every member switch, walk toward `root`;
    /// at each switch take, among the neighbours one hop nearer the root (the ports with the
    /// least hops in the min-hop table, step ⑦), the one over the least loaded link (step ⑧,
    /// ties to the lowest port); stop at the root or at a switch already visited (step ④).
    /// Returns `(child, edge to parent)` for every tree switch but the root.
    ///
    /// With `avoid = Some(color)` (the pessimistic merge's temporary tree, Alg. 4 step ⑥),
    /// neighbours free in `color` go before busy ones, then by load: every busy switch the
    /// temporary tree crosses merges its tree into the virtual group (steps ⑦–⑩), so a
    /// tree that crosses free switches where it can merges no more groups than needed.
    ///
    /// Complexity: O(T·P) for a tree of T switches of P ports.
    pub(crate) fn bottom_up(
        &mut self,
        root: u32,
        member_sw: &[u32],
        avoid: Option<u32>,
    ) -> Vec<(u32, Edge)> {
        let colors = &self.colors;
        let busy = |s: u32| avoid.is_some_and(|c| colors.is_busy(s, c));
        let row = self.hops.row(root as usize);
        let seen = &mut self.s.seen;
        seen.begin();
        let mut parents = Vec::new();
        for &m in member_sw {
            let mut cur = m;
            // Step ④.
            while cur != root && !seen.get(cur) {
                // Step ⑤.
                seen.set(cur);
                // Step ⑥.
                let least = row[cur as usize];
                let mut best: Option<((bool, u32), &crate::graph::Adj)> = None;
                // Steps ⑦–⑧.
                for a in self.g.adj(cur) {
                    if row[a.peer as usize].wrapping_add(1) == least {
                        let w = (busy(a.peer), self.efi[a.link.index()]);
                        if best.is_none_or(|(bw, _)| w < bw) {
                            best = Some((w, a));
                        }
                    }
                }
                let (_, a) = best.expect("a switch off the root has a neighbour one hop nearer");
                // Steps ⑨–⑩.
                parents.push((
                    cur,
                    Edge {
                        parent: a.peer,
                        up_port: a.port,
                        down_port: a.peer_port,
                        link: a.link,
                    },
                ));
                cur = a.peer;
            }
        }
        parents
    }
}

/// Candidate roots in order of load, sorted only when more than the first is asked for.
#[derive(Debug)]
pub(crate) struct Roots {
    keys: Vec<(usize, u64, u32)>,
    sorted: bool,
    next: usize,
}

impl Roots {
    /// The first candidate free in `color`, or the first of all when every one is busy
    /// (Alg. 4 step ⑤: a temporary root free in the color merges no tree by itself).
    pub(crate) fn free_first(mut self, colors: &ColorTable, color: u32) -> Option<u32> {
        self.keys
            .iter()
            .filter(|k| !colors.is_busy(k.2, color))
            .min()
            .or_else(|| self.keys.iter().min())
            .map(|k| k.2)
            .or_else(|| self.next())
    }

    /// Every candidate, in order.
    pub(crate) fn all(mut self) -> Vec<u32> {
        self.keys.sort_unstable();
        self.keys.into_iter().map(|k| k.2).collect()
    }
}

impl Iterator for Roots {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.next == 0 && !self.sorted {
            // The first root: a linear minimum, no sort.
            let (i, _) = self.keys.iter().enumerate().min_by_key(|&(_, k)| *k)?;
            self.keys.swap(0, i);
            self.next = 1;
            return Some(self.keys[0].2);
        }
        if !self.sorted {
            self.keys[self.next..].sort_unstable();
            self.sorted = true;
        }
        let k = self.keys.get(self.next)?;
        self.next += 1;
        Some(k.2)
    }
}
