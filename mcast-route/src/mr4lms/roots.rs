//! Candidate roots (Alg. 1 step ①) and the bottom-up build (Alg. 2).

use crate::router::state::State;
use crate::router::view::View;
use crate::search::Scratch;
use crate::tables::colors::ColorTable;
use crate::tree::Edge;
use crate::{Config, Router};

/// Whether [`Router::candidate_roots`] lists the switches whose MFT has no free entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FullSwitches {
    /// Left out: FBTC and FCTB need a free entry at the root (Alg. 1 step ①).
    Skip,
    /// Listed: merging reuses an entry the merged trees free.
    Include,
}

/// Fills `scratch.maxd[s]` with the largest hop distance from switch `s` to a member
/// switch, and returns the least of them: the least tree height over all roots, less the
/// terminal link.
///
/// Complexity: O(S·M) byte operations for S switches and M member switches.
pub(crate) fn max_dist(scratch: &mut Scratch, view: &View<'_>, member_sw: &[u32]) -> u8 {
    // The hop table is symmetric: row m holds the distances from every switch to m.
    scratch.far_of(&view.hops, member_sw);
    scratch.maxd.iter().copied().min().unwrap_or(0)
}

/// Alg. 1 step ①: the switches whose largest distance to the members is `d` (the least,
/// from [`max_dist`], left in `scratch.maxd`), without those whose MFT is full by `full`,
/// in order of load: entries in use, then the summed EFI of their switch links, then
/// index. The order is produced lazily: the first root costs O(S), the next ones a
/// linear selection every [`ROOT_BATCH`].
///
/// Complexity: O(S + ⌈k/16⌉·R) for R candidates of which k are taken, O(S) when only
/// the first is.
pub(crate) fn candidate_roots(
    scratch: &Scratch,
    state: &State,
    d: u8,
    full: FullSwitches,
) -> Roots {
    const CHUNK: usize = 32;
    let maxd = &scratch.maxd;
    // Switches at the least distance in a chunk (a test without branches a byte).
    let at_d = |chunk: &[u8]| chunk.iter().fold(0u8, |n, &m| n + u8::from(m == d));
    let total: usize = maxd.chunks(CHUNK).map(|c| usize::from(at_d(c))).sum();
    let mut keys: Vec<u128> = Vec::with_capacity(total);
    // Few switches are at the least distance: skip the chunks without one.
    for (c, chunk) in maxd.chunks(CHUNK).enumerate() {
        if at_d(chunk) == 0 {
            continue;
        }
        for (i, &m) in chunk.iter().enumerate() {
            let s = (c * CHUNK + i) as u32;
            if m == d && !(full == FullSwitches::Skip && state.colors.is_full(s)) {
                keys.push(root_key(
                    state.colors.in_use(s),
                    state.sw_load[s as usize],
                    s,
                ));
            }
        }
    }
    Roots::new(keys)
}

impl Router<'_> {
    /// [`max_dist`] over this router's scratch and hop distances.
    pub(crate) fn max_dist(&mut self, member_sw: &[u32]) -> u8 {
        max_dist(&mut self.s, &self.view, member_sw)
    }

    /// [`candidate_roots`] over this router's scratch and state.
    pub(crate) fn candidate_roots(&self, d: u8, full: FullSwitches) -> Roots {
        candidate_roots(&self.s, &self.state, d, full)
    }

    /// [`bottom_up`] over this router's view, state and scratch.
    pub(crate) fn bottom_up(
        &mut self,
        root: u32,
        member_sw: &[u32],
        avoid: Option<u32>,
    ) -> Vec<(u32, Edge)> {
        bottom_up(
            &self.view,
            &self.state,
            &self.config,
            &mut self.s,
            root,
            member_sw,
            avoid,
        )
    }

    /// [`bottom_up_greedy`] over this router's view, state and scratch (for the tests).
    #[cfg(test)]
    pub(crate) fn bottom_up_greedy(
        &mut self,
        root: u32,
        member_sw: &[u32],
        avoid: Option<u32>,
        cutoff: Option<(u32, &[u64])>,
    ) -> Option<Greedy> {
        bottom_up_greedy(
            &self.view,
            &self.state,
            &mut self.s,
            root,
            member_sw,
            avoid,
            cutoff,
        )
    }

    /// [`bottom_up_least_load`] over this router's view, state and scratch (for the tests).
    #[cfg(test)]
    pub(crate) fn bottom_up_least_load(
        &mut self,
        root: u32,
        member_sw: &[u32],
        avoid: Option<u32>,
    ) -> Vec<(u32, Edge)> {
        bottom_up_least_load(&self.view, &self.state, &mut self.s, root, member_sw, avoid)
    }
}

/// A greedy build: the parent edges, whether some switch had a choice of parent, and with a
/// cut-off the tree's first-fit color.
pub(crate) type Greedy = (Vec<(u32, Edge)>, bool, Option<u32>);

/// Reads `row` once from end to end and returns it. A tree build then reads the root's row
/// at the neighbours of the switches it walks, scattered over the row and one walk step
/// after another: on a large fabric each would wait for memory (12 KB a row on the
/// 12,000-switch torus), where one sequential pass lets the hardware stream the row in.
///
/// Complexity: O(S).
fn warm(row: &[u8]) -> &[u8] {
    std::hint::black_box(row.iter().fold(0u8, |a, &h| a | h));
    row
}

/// A candidate root's key, `(entries in use, load, switch)` packed so that the integers
/// order as the tuples do (a switch has fewer than 2³² entries: colors are `u32`).
fn root_key(in_use: usize, load: u64, sw: u32) -> u128 {
    (in_use as u128) << 96 | u128::from(load) << 32 | u128::from(sw)
}

/// The switch of a [`root_key`].
fn key_switch(key: u128) -> u32 {
    key as u32
}

/// Candidates [`Roots`] orders at a time after the first ones: FBTC takes up to
/// [`Config::with_fbtc_root_tries`](crate::Config::with_fbtc_root_tries) (16 by default) of hundreds.
const ROOT_BATCH: usize = 16;

/// Candidates [`Roots`] orders on its first call: the first root and a batch, so that FBTC's
/// default tries cost one pass over the keys.
const FIRST: usize = 1 + ROOT_BATCH;

/// Candidate roots in order of load, produced lazily: the first [`FIRST`] by one pass
/// keeping the least keys seen in order, the next ones [`ROOT_BATCH`] at a time by a linear
/// selection and a sort of the batch (FBTC takes a few of many roots, so sorting them all
/// would cost more than the trees).
#[derive(Debug)]
pub(crate) struct Roots {
    /// [`root_key`]s: every candidate; once `head` is used up, those not in it, with
    /// `keys[..ordered]` the least of them, in order.
    keys: Vec<u128>,
    /// The least keys, in order (up to [`FIRST`]), from the first call on.
    head: Vec<u128>,
    ordered: usize,
    /// Roots handed out.
    next: usize,
}

impl Roots {
    fn new(keys: Vec<u128>) -> Self {
        Self {
            keys,
            head: Vec::new(),
            ordered: 0,
            next: 0,
        }
    }

    /// The first candidate free in `color`, or the first of all when every one is busy
    /// (Alg. 4 step ⑤: a temporary root free in the color merges no tree by itself).
    pub(crate) fn free_first(mut self, colors: &ColorTable, color: u32) -> Option<u32> {
        self.keys
            .iter()
            .filter(|&&k| !colors.is_busy(key_switch(k), color))
            .min()
            .or_else(|| self.keys.iter().min())
            .map(|&k| key_switch(k))
            .or_else(|| self.next())
    }

    /// Every candidate, in no particular order (before any is taken).
    pub(crate) fn unordered(&self) -> Vec<u32> {
        debug_assert_eq!(self.next, 0);
        self.keys.iter().map(|&k| key_switch(k)).collect()
    }

    /// Every candidate, in order.
    #[cfg(test)]
    pub(crate) fn all(mut self) -> Vec<u32> {
        self.keys.sort_unstable();
        self.keys.into_iter().map(key_switch).collect()
    }
}

/// The `n` least of `keys` (or all), in order, by one pass keeping the least seen.
///
/// Complexity: O(K + m·n) for K keys of which m were among the least so far when met.
fn least_keys(keys: &[u128], n: usize) -> Vec<u128> {
    let mut least: Vec<u128> = Vec::with_capacity(n + 1);
    for &k in keys {
        if least.len() < n || least.last().is_some_and(|&l| k < l) {
            let at = least.partition_point(|&x| x < k);
            least.insert(at, k);
            least.truncate(n);
        }
    }
    least
}

impl Iterator for Roots {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.next == 0 {
            self.head = least_keys(&self.keys, FIRST);
        }
        if let Some(&k) = self.head.get(self.next) {
            self.next += 1;
            return Some(key_switch(k));
        }
        // Past the head: the keys not in it (all were, when fewer than FIRST).
        let last = *self.head.last().filter(|_| self.head.len() == FIRST)?;
        if self.next == FIRST {
            self.keys.retain(|&k| k > last);
        }
        let at = self.next - FIRST;
        if at == self.ordered {
            let rest = self.keys.get_mut(at..).filter(|r| !r.is_empty())?;
            // Keys are distinct (they end with the switch): the order is the sort's.
            let batch = ROOT_BATCH.min(rest.len());
            let least = least_keys(rest, batch);
            let last = least[batch - 1];
            let mut front = 0;
            for i in 0..rest.len() {
                if rest[i] <= last {
                    rest.swap(i, front);
                    front += 1;
                }
            }
            rest[..batch].copy_from_slice(&least);
            self.ordered += batch;
        }
        let k = self.keys[at];
        self.next += 1;
        Some(key_switch(k))
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
    view: &View<'_>,
    state: &State,
    config: &Config,
    scratch: &mut Scratch,
    root: u32,
    member_sw: &[u32],
    avoid: Option<u32>,
) -> Vec<(u32, Edge)> {
    if config.bottom_up == crate::BottomUp::LeastLoadPath {
        return bottom_up_least_load(view, state, scratch, root, member_sw, avoid);
    }
    bottom_up_greedy(view, state, scratch, root, member_sw, avoid, None)
        .expect("no cut-off")
        .0
}

/// Alg. 2 with the paper's step ⑧ (see [`bottom_up`]), and whether some
/// switch of the walk had two or more neighbours one hop nearer the root (when none had,
/// every bottom-up build from this root gives this tree).
///
/// With `cutoff = Some((c, members_busy))`, where `members_busy` holds the colors busy
/// on some member switch (as [`ColorTable::last_fit_busy`] words), the build stops and
/// returns `None` as soon as every color below `c` is busy on some switch of the tree
/// so far, the member switches counted from the start (every tree holds them): the
/// finished tree could not be colored below `c` (FBTC's tries that cannot beat the best
/// tree found).
///
/// A finished build with a cut-off also returns the tree's first-fit color (the first
/// color free on all its switches, below `c`): the busy colors OR-ed for the cut-off are
/// those of every tree switch, so [`ColorTable::first_fit`] over the tree would find
/// the same.
///
/// Complexity: O(T·P) for a tree of T switches of P ports, plus O(T·c/64) with a
/// cut-off.
pub(crate) fn bottom_up_greedy(
    view: &View<'_>,
    state: &State,
    scratch: &mut Scratch,
    root: u32,
    member_sw: &[u32],
    avoid: Option<u32>,
    cutoff: Option<(u32, &[u64])>,
) -> Option<Greedy> {
    let mut branched = false;
    let colors = &state.colors;
    let acc = &mut scratch.busy_or;
    acc.clear();
    // The leading words of `acc` all busy.
    let mut full = 0;
    if let Some((c, members_busy)) = cutoff {
        acc.resize(c as usize / 64 + 1, 0);
        for (a, &w) in acc.iter_mut().zip(members_busy) {
            *a = w;
        }
        if colors.or_busy_covers(root, acc, &mut full, c) {
            return None;
        }
    }
    let cutoff = cutoff.map(|c| c.0);
    // Whether the tree so far, with `sw`, can no longer be colored below the cut-off.
    let mut covered =
        |sw: u32| cutoff.is_some_and(|c| colors.or_busy_covers(sw, acc, &mut full, c));
    let busy = |s: u32| avoid.is_some_and(|c| colors.is_busy(s, c));
    let row = warm(view.hops.row(root as usize));
    let seen = &mut scratch.seen;
    seen.begin();
    // Each member's walk adds at most its hops to the root.
    let mut parents = Vec::with_capacity(
        member_sw
            .iter()
            .map(|&m| usize::from(row[m as usize]))
            .sum(),
    );
    for &m in member_sw {
        let mut cur = m;
        // Step ④.
        while cur != root && !seen.get(cur) {
            // Step ⑤.
            seen.set(cur);
            // Step ⑥.
            let least = row[cur as usize];
            let mut best: Option<((bool, u32), &crate::search::Adj)> = None;
            // Steps ⑦–⑧.
            for a in view.g.adj(cur) {
                if row[a.peer as usize].wrapping_add(1) == least {
                    let w = (busy(a.peer), state.efi[a.link.index()]);
                    branched |= best.is_some();
                    if best.is_none_or(|(bw, _)| w < bw) {
                        best = Some((w, a));
                    }
                }
            }
            let (_, a) = best.expect("a switch off the root has a neighbour one hop nearer");
            // Steps ⑨–⑩.
            parents.push((cur, a.up_edge()));
            if covered(cur) {
                return None;
            }
            cur = a.peer;
        }
    }
    let color = cutoff.map(|_| ColorTable::first_free(acc, full));
    Some((parents, branched, color))
}

/// [`BottomUp::LeastLoadPath`](crate::BottomUp::LeastLoadPath): Alg. 2 with step ⑧ looking
/// at the whole way to the root instead of the next link. The switches on least-hop paths
/// from the members to `root` (the ones Alg. 2 may walk) get, nearest the root first, the
/// least summed EFI of a least-hop path to the root (with `avoid`, the fewest switches busy
/// in that color first); every member then walks its least path, stopping at the root or
/// at a switch already walked, as in Alg. 2. The tree has the same height as Alg. 2's.
///
/// Complexity: O(A·P) for A switches on least-hop paths, P ports.
pub(crate) fn bottom_up_least_load(
    view: &View<'_>,
    state: &State,
    scratch: &mut Scratch,
    root: u32,
    member_sw: &[u32],
    avoid: Option<u32>,
) -> Vec<(u32, Edge)> {
    const BUSY: u64 = 1 << 40;
    let colors = &state.colors;
    let busy = |s: u32| avoid.is_some_and(|c| colors.is_busy(s, c));
    let row = view.hops.row(root as usize);
    let s = scratch;
    let (g, efi) = (&view.g, &state.efi[..]);
    let (cost, choice, done) = (&mut s.cost[..], &mut s.choice[..], &mut s.done);
    // Least load to the root of every switch on least-hop paths from the members, by a
    // depth-first search toward the root that settles a switch once every neighbour one
    // hop nearer is settled (`done`: `cost` and `choice` known). Frames: switch, next
    // adjacency slot to look at, least cost so far and its slot.
    done.begin();
    done.set(root);
    cost[root as usize] = 0;
    let stack = &mut s.dfs;
    stack.clear();
    for &m in member_sw {
        if done.get(m) {
            continue;
        }
        stack.push((m, 0, u64::MAX, 0));
        while let Some(&(v, mut k, mut bc, mut bk)) = stack.last() {
            let adj = g.adj(v);
            let least = row[v as usize];
            let mut deeper = None;
            while let Some(a) = adj.get(k as usize) {
                if row[a.peer as usize].wrapping_add(1) == least {
                    if !done.get(a.peer) {
                        deeper = Some(a.peer);
                        break;
                    }
                    // Ties to the first slot, as a scan in adjacency order.
                    let c = cost[a.peer as usize]
                        + u64::from(efi[a.link.index()])
                        + if busy(a.peer) { BUSY } else { 0 };
                    if c < bc {
                        (bc, bk) = (c, k);
                    }
                }
                k += 1;
            }
            let top = stack.len() - 1;
            if let Some(p) = deeper {
                // Come back to slot k once `p` is settled.
                stack[top] = (v, k, bc, bk);
                stack.push((p, 0, u64::MAX, 0));
            } else {
                assert!(
                    bc != u64::MAX,
                    "a switch off the root has a neighbour one hop nearer"
                );
                cost[v as usize] = bc;
                choice[v as usize] = bk;
                done.set(v);
                stack.pop();
            }
        }
    }
    // Steps ④–⑩ along the chosen next hops.
    s.seen.begin();
    let mut parents = Vec::new();
    for &m in member_sw {
        let mut cur = m;
        while cur != root && !s.seen.get(cur) {
            s.seen.set(cur);
            let a = view.g.adj(cur)[s.choice[cur as usize] as usize];
            parents.push((cur, a.up_edge()));
            cur = a.peer;
        }
    }
    parents
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The least-load build's depth-first search settles every switch on least-hop paths
    /// from the members with the least cost to the root over its nearer neighbours (link
    /// EFI, plus a large step per switch busy in the avoided color) and the first slot of
    /// that least cost: the equations that define the least loads, checked over the whole
    /// area found by a plain search.
    #[test]
    fn least_load_search_settles_the_area_with_least_costs() {
        use crate::{Config, Entries, Router, patterns};
        use fabric_model::{HopTable, generators};
        let fabrics = [
            generators::torus(&[7, 6], 1).unwrap(),
            generators::random_regular(24, 8, 2, 3).unwrap(),
        ];
        for f in &fabrics {
            let h = HopTable::new(f).unwrap();
            let mut r = Router::new(f, &h, Config::mr4lms(Entries::Limit(4))).unwrap();
            let mut checked = 0;
            for (i, g) in patterns::random_groups(f, 40, 4, 11)
                .unwrap()
                .iter()
                .enumerate()
            {
                let m = r.view.validate(g).unwrap();
                let d = r.max_dist(&m.sw);
                let avoid = (i % 2 == 1).then_some(0);
                for root in r
                    .candidate_roots(d, FullSwitches::Include)
                    .all()
                    .into_iter()
                    .take(3)
                {
                    let parents = r.bottom_up_least_load(root, &m.sw, avoid);
                    let row = h.row(root as usize);
                    // The area: every switch reached from the members by nearer neighbours.
                    let mut area = m.sw.clone();
                    let mut head = 0;
                    while head < area.len() {
                        let v = area[head];
                        head += 1;
                        for a in r.view.g.adj(v) {
                            if row[a.peer as usize] + 1 == row[v as usize]
                                && !area.contains(&a.peer)
                            {
                                area.push(a.peer);
                            }
                        }
                    }
                    for &v in area.iter().filter(|&&v| v != root) {
                        let want = r
                            .view
                            .g
                            .adj(v)
                            .iter()
                            .enumerate()
                            .filter(|(_, a)| row[a.peer as usize] + 1 == row[v as usize])
                            .map(|(k, a)| {
                                let peer = if a.peer == root {
                                    0
                                } else {
                                    r.s.cost[a.peer as usize]
                                };
                                let busy = avoid.is_some_and(|c| r.state.colors.is_busy(a.peer, c));
                                let c = peer
                                    + u64::from(r.state.efi[a.link.index()])
                                    + if busy { 1 << 40 } else { 0 };
                                (c, k as u32)
                            })
                            .min()
                            .unwrap();
                        assert_eq!((r.s.cost[v as usize], r.s.choice[v as usize]), want);
                        checked += 1;
                    }
                    // The tree follows the choices.
                    for &(x, e) in &parents {
                        assert_eq!(
                            e.parent,
                            r.view.g.adj(x)[r.s.choice[x as usize] as usize].peer
                        );
                    }
                }
                r.create_group(g).unwrap();
            }
            assert!(checked > 100, "{checked}");
        }
    }

    /// `max_dist` is the largest hop distance to a member switch, switch by switch (member
    /// counts around the passes of eight rows), and `candidate_roots` lists exactly the
    /// switches at the least of them, in key order, without the full ones when asked.
    #[test]
    fn max_dist_and_candidates_match_a_plain_scan() {
        use crate::{Config, Entries, Router, patterns};
        use fabric_model::{HopTable, generators};
        let f = generators::torus(&[9, 8], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(3))).unwrap();
        for (i, size) in [1, 2, 8, 9, 16, 17, 23, 40]
            .into_iter()
            .cycle()
            .take(48)
            .enumerate()
        {
            let g = &patterns::random_groups(&f, 1, size, i as u64).unwrap()[0];
            let m = r.view.validate(g).unwrap();
            let d = r.max_dist(&m.sw);
            let want: Vec<u8> = (0..r.view.g.len())
                .map(|s| m.sw.iter().map(|&x| h.row(x as usize)[s]).max().unwrap())
                .collect();
            assert_eq!(r.s.maxd, want, "group {g:?}");
            assert_eq!(Some(&d), want.iter().min());
            for full in [FullSwitches::Include, FullSwitches::Skip] {
                let mut keys: Vec<u128> = (0..r.view.g.len() as u32)
                    .filter(|&s| {
                        want[s as usize] == d
                            && !(full == FullSwitches::Skip && r.state.colors.is_full(s))
                    })
                    .map(|s| root_key(r.state.colors.in_use(s), r.state.sw_load[s as usize], s))
                    .collect();
                keys.sort_unstable();
                let want: Vec<u32> = keys.into_iter().map(key_switch).collect();
                assert_eq!(r.candidate_roots(d, full).all(), want, "group {g:?}");
            }
            r.create_group(g).unwrap();
        }
    }

    /// Taken one at a time, over several batches, the roots come in the order of a full
    /// sort of their keys (ties in entries and load broken by the switch).
    #[test]
    fn roots_come_in_sorted_order_batch_by_batch() {
        let tuples: Vec<(usize, u64, u32)> = (0..100u32)
            .map(|s| ((s * 7 % 5) as usize, u64::from(s * 13 % 11) << 30, s))
            .collect();
        let keys: Vec<u128> = tuples.iter().map(|&(u, l, s)| root_key(u, l, s)).collect();
        let mut want = tuples.clone();
        want.sort_unstable();
        let want: Vec<u32> = want.iter().map(|k| k.2).collect();
        let roots = |keys: &[_]| Roots::new(keys.to_vec());
        assert_eq!(roots(&keys).collect::<Vec<_>>(), want);
        assert_eq!(roots(&keys).all(), want);
        assert_eq!(roots(&keys[..1]).collect::<Vec<_>>(), [0]);
        assert_eq!(roots(&[]).next(), None);
        // Around the first call's FIRST keys and the batches after it.
        for n in [
            FIRST - 1,
            FIRST,
            FIRST + 1,
            FIRST + ROOT_BATCH,
            FIRST + ROOT_BATCH + 3,
        ] {
            let mut want: Vec<_> = tuples[..n].to_vec();
            want.sort_unstable();
            let want: Vec<u32> = want.iter().map(|k| k.2).collect();
            assert_eq!(roots(&keys[..n]).collect::<Vec<_>>(), want, "{n} keys");
        }
    }
}
