//! Incremental rate allocation at the size of real traces: flows kept in *route classes*
//! (every flow from one machine to another crosses the same resources), so that an event
//! costs work in the number of classes and resources, not in the number of flows.
//!
//! - [`FairClasses`]: max-min fairness. Flows of one class without a cap are
//!   indistinguishable to progressive filling (they grow together and freeze together), so
//!   the filling runs over classes weighted by their flow counts.
//! - [`PriorityClasses`]: strict priority. In the greedy walk a flow takes the smallest free
//!   capacity on its route, which leaves a resource of that route with none, so only the
//!   first flow of a class in priority order can move; the walk visits class heads in key
//!   order, source by source, and skips what cannot move. Same rates, bit for bit, as
//!   [`priority_greedy`](super::priority_greedy) over all flows sorted by key.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use fabric_model::hash::FxHashMap;
use smallvec::SmallVec;

const NONE: u32 = u32::MAX;

/// Classes a sender's walk in key order tries before it scans the open receivers instead.
const SKIPS: usize = 4;

/// The resources of one route, inline up to a three-level fat tree's six.
type Route = SmallVec<[u32; 6]>;

/// Finds or makes the class of route `src → dst` crossing `path`.
fn class_index<C>(
    of: &mut FxHashMap<(u32, u32), u32>,
    classes: &mut Vec<C>,
    src: u32,
    dst: u32,
    make: impl FnOnce() -> C,
) -> usize {
    *of.entry((src, dst)).or_insert_with(|| {
        classes.push(make());
        (classes.len() - 1) as u32
    }) as usize
}

/// Grows `v` so that index `i` exists, filling with `fill`.
fn ensure<T: Clone>(v: &mut Vec<T>, i: usize, fill: T) {
    if v.len() <= i {
        v.resize(i + 1, fill);
    }
}

struct FairClass {
    path: Route,
    members: Vec<usize>,
    /// Position in `FairClasses::live`, or `NONE`.
    live_pos: u32,
    /// The rate [`FairClasses::changes`] last reported for the class's members (0 while it
    /// has none).
    prev: f64,
}

/// Flows sharing capacity max-min fairly, grouped by route; add and remove are O(1)
/// amortised, [`FairClasses::rates`] is O(K · h + R · L) for K classes with flows, routes of
/// h resources, L resources in use and R ≤ L + K filling rounds.
#[derive(Default)]
pub(crate) struct FairClasses {
    of: FxHashMap<(u32, u32), u32>,
    classes: Vec<FairClass>,
    /// Per flow id: its position in its class's members, or `NONE`.
    slot: Vec<u32>,
    /// Per flow id: its class.
    class: Vec<u32>,
    live: Vec<u32>,
    /// Flows added since [`FairClasses::changes`] last ran (they have no rate yet).
    fresh: Vec<usize>,
    // Buffers of `rates`.
    cnt: Vec<usize>,
    on: Vec<Vec<u32>>,
    used: Vec<u32>,
    level_of: Vec<f64>,
    frozen: Vec<bool>,
}

impl FairClasses {
    /// Adds flow `id` from `src` to `dst` crossing `path` (no-op if it is already in).
    pub(crate) fn add(&mut self, id: usize, src: u32, dst: u32, path: &[u32]) {
        ensure(&mut self.slot, id, NONE);
        ensure(&mut self.class, id, NONE);
        if self.slot[id] != NONE {
            return;
        }
        let c = class_index(&mut self.of, &mut self.classes, src, dst, || FairClass {
            path: path.iter().copied().collect(),
            members: Vec::new(),
            live_pos: NONE,
            prev: 0.0,
        });
        self.fresh.push(id);
        let cl = &mut self.classes[c];
        self.slot[id] = cl.members.len() as u32;
        self.class[id] = c as u32;
        cl.members.push(id);
        if cl.live_pos == NONE {
            cl.live_pos = self.live.len() as u32;
            self.live.push(c as u32);
        }
    }

    /// Removes flow `id` (no-op if it is not in).
    pub(crate) fn remove(&mut self, id: usize) {
        let Some(&s) = self.slot.get(id) else {
            return;
        };
        if s == NONE {
            return;
        }
        let c = self.class[id] as usize;
        let cl = &mut self.classes[c];
        cl.members.swap_remove(s as usize);
        if let Some(&moved) = cl.members.get(s as usize) {
            self.slot[moved] = s;
        }
        self.slot[id] = NONE;
        if cl.members.is_empty() {
            let p = cl.live_pos as usize;
            cl.live_pos = NONE;
            cl.prev = 0.0;
            self.live.swap_remove(p);
            if let Some(&moved) = self.live.get(p) {
                self.classes[moved as usize].live_pos = p as u32;
            }
        }
    }

    /// Number of flows in.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.live
            .iter()
            .map(|&c| self.classes[c as usize].members.len())
            .sum()
    }

    /// Max-min fair rates of every flow in, by progressive filling over the classes: calls
    /// `out(id, rate)` for every flow with a positive rate and decreases `free` by what it
    /// hands out. The rates equal those of [`max_min_fair`](super::max_min_fair) over the
    /// same flows up to rounding: the filling subtracts `count · increment` from a resource
    /// once where the per-flow loop subtracts the increment `count` times.
    #[cfg(test)]
    pub(crate) fn rates(&mut self, free: &mut [f64], mut out: impl FnMut(usize, f64)) {
        self.fill(free);
        for (p, &c) in self.live.iter().enumerate() {
            let rate = self.level_of[p];
            if rate > 0.0 {
                for &id in &self.classes[c as usize].members {
                    out(id, rate);
                }
            }
        }
    }

    /// The same max-min fair rates as [`FairClasses::rates`] (bit for bit), reported per
    /// class, as changes: calls `join(id, class)` for every flow added since the last call
    /// (its rate is its class's from then on), then `class_rate(class, rate)` for every
    /// class whose rate differs (bit for bit) from the one last reported (a class not
    /// reported keeps its rate; a class that emptied is at 0 again). Class indices are
    /// stable, one per route. Decreases `free` by what it hands out.
    ///
    /// # Complexity
    /// The filling's, plus O(changes): no pass over the flows.
    pub(crate) fn changes(
        &mut self,
        free: &mut [f64],
        mut join: impl FnMut(usize, u32),
        mut class_rate: impl FnMut(u32, f64),
    ) {
        self.fill(free);
        for id in self.fresh.drain(..) {
            if self.slot[id] != NONE {
                join(id, self.class[id]);
            }
        }
        for (p, &c) in self.live.iter().enumerate() {
            let rate = self.level_of[p].max(0.0);
            let cl = &mut self.classes[c as usize];
            if rate.to_bits() != cl.prev.to_bits() {
                cl.prev = rate;
                class_rate(c, rate);
            }
        }
    }

    /// Progressive filling over the live classes: `level_of[p]` is the rate of the class at
    /// `live[p]`; decreases `free` by what it hands out.
    fn fill(&mut self, free: &mut [f64]) {
        let nr = free.len();
        if self.cnt.len() < nr {
            self.cnt.resize(nr, 0);
            self.on.resize_with(nr, Vec::new);
        }
        self.used.clear();
        for &c in &self.live {
            let cl = &self.classes[c as usize];
            for &r in &cl.path {
                let r = r as usize;
                if self.cnt[r] == 0 {
                    self.used.push(r as u32);
                    self.on[r].clear();
                }
                self.cnt[r] += cl.members.len();
                self.on[r].push(c);
            }
        }
        let k = self.live.len();
        self.level_of.clear();
        self.level_of.resize(k, 0.0);
        self.frozen.clear();
        self.frozen.resize(k, false);
        // Position of a class in `live` (live_pos), to index level_of / frozen.
        let mut left = k;
        let mut level = 0.0f64;
        let tol = 1e-12;
        while left > 0 {
            let mut inc = f64::INFINITY;
            for &r in &self.used {
                let c = self.cnt[r as usize];
                if c > 0 {
                    inc = inc.min(free[r as usize].max(0.0) / c as f64);
                }
            }
            if !inc.is_finite() {
                break;
            }
            level += inc;
            for &r in &self.used {
                let c = self.cnt[r as usize];
                if c > 0 {
                    free[r as usize] -= inc * c as f64;
                }
            }
            let mut froze_any = false;
            for ui in 0..self.used.len() {
                let r = self.used[ui] as usize;
                if self.cnt[r] == 0 || free[r] > tol * (1.0 + level) {
                    continue;
                }
                for oi in 0..self.on[r].len() {
                    let c = self.on[r][oi] as usize;
                    let p = self.classes[c].live_pos as usize;
                    if self.frozen[p] {
                        continue;
                    }
                    self.frozen[p] = true;
                    self.level_of[p] = level;
                    left -= 1;
                    froze_any = true;
                    let n = self.classes[c].members.len();
                    for &q in &self.classes[c].path {
                        self.cnt[q as usize] -= n;
                    }
                }
            }
            if !froze_any {
                // Numerical corner: freeze every class left to guarantee progress.
                for p in 0..k {
                    if !self.frozen[p] {
                        self.frozen[p] = true;
                        self.level_of[p] = level;
                        left -= 1;
                    }
                }
            }
        }
        for p in 0..k {
            if !self.frozen[p] {
                self.level_of[p] = level;
            }
        }
        for &r in &self.used {
            let r = r as usize;
            self.cnt[r] = 0;
            if free[r] < 0.0 {
                free[r] = 0.0;
            }
        }
    }
}

struct PriorityClass {
    src: u32,
    dst: u32,
    path: Route,
    /// The class's flows by (key, id).
    flows: BTreeSet<(u64, usize)>,
}

/// One sender's classes: by head key, and by receiver (`u64::MAX` and `NONE` where the
/// sender has no flow to that receiver), with the receivers it has flows to as a bit set.
#[derive(Default)]
struct Row {
    /// The sender's up-link (the first resource of its routes).
    res: u32,
    by_key: BTreeSet<(u64, u32)>,
    head: Vec<u64>,
    class: Vec<u32>,
    bits: Vec<u64>,
}

/// Flows served by strict priority (smaller key first), grouped by route (sender, receiver)
/// and by sender; add and remove are O(log n). [`PriorityClasses::rates`] costs
/// O(S log S + Σ_moves (log S + D/64 + D′)) for S senders with flows, a move per flow that
/// gets a rate (at most one per resource: each leaves a resource of its route full), D
/// receivers and D′ receivers with free capacity that the moving flow's sender sends to.
#[derive(Default)]
pub(crate) struct PriorityClasses {
    of: FxHashMap<(u32, u32), u32>,
    classes: Vec<PriorityClass>,
    rows: Vec<Row>,
    /// Senders with classes (may hold emptied rows, dropped when read).
    live_rows: Vec<u32>,
    row_live: Vec<bool>,
    /// Per receiver: the last resource of the routes into it (its down-link), or `NONE`.
    col_res: Vec<u32>,
    /// Per flow id: (class, key), class `NONE` when not in.
    of_flow: Vec<(u32, u64)>,
    // Buffers of `rates`.
    heap: BinaryHeap<Reverse<(u64, u32, u32)>>,
    open: Vec<u64>,
}

impl PriorityClasses {
    /// Adds flow `id` from `src` to `dst` crossing `path` (not empty) with priority `key`
    /// (smaller first; keys must be distinct).
    pub(crate) fn add(&mut self, id: usize, key: u64, src: u32, dst: u32, path: &[u32]) {
        ensure(&mut self.of_flow, id, (NONE, 0));
        if self.of_flow[id].0 != NONE || path.is_empty() {
            return;
        }
        let c = class_index(&mut self.of, &mut self.classes, src, dst, || {
            PriorityClass {
                src,
                dst,
                path: path.iter().copied().collect(),
                flows: BTreeSet::new(),
            }
        });
        self.of_flow[id] = (c as u32, key);
        let (s, d) = (src as usize, dst as usize);
        ensure(&mut self.col_res, d, NONE);
        self.col_res[d] = *path.last().unwrap_or(&NONE);
        if self.rows.len() <= s {
            self.rows.resize_with(s + 1, Row::default);
        }
        ensure(&mut self.row_live, s, false);
        let cl = &mut self.classes[c];
        let old = cl.flows.first().map(|&(k, _)| k);
        cl.flows.insert((key, id));
        if old.is_none_or(|o| key < o) {
            let row = &mut self.rows[s];
            row.res = path[0];
            if let Some(o) = old {
                row.by_key.remove(&(o, dst));
            }
            row.by_key.insert((key, dst));
            ensure(&mut row.head, d, u64::MAX);
            ensure(&mut row.class, d, NONE);
            ensure(&mut row.bits, d / 64, 0);
            row.head[d] = key;
            row.class[d] = c as u32;
            row.bits[d / 64] |= 1 << (d % 64);
            if !self.row_live[s] {
                self.row_live[s] = true;
                self.live_rows.push(src);
            }
        }
    }

    /// Removes flow `id` (no-op if it is not in).
    pub(crate) fn remove(&mut self, id: usize) {
        let Some(&(c, key)) = self.of_flow.get(id) else {
            return;
        };
        if c == NONE {
            return;
        }
        self.of_flow[id] = (NONE, 0);
        let cl = &mut self.classes[c as usize];
        let was_head = cl.flows.first() == Some(&(key, id));
        cl.flows.remove(&(key, id));
        if was_head {
            let (s, d) = (cl.src, cl.dst);
            let row = &mut self.rows[s as usize];
            row.by_key.remove(&(key, d));
            let d = d as usize;
            match self.classes[c as usize].flows.first() {
                Some(&(k, _)) => {
                    row.by_key.insert((k, d as u32));
                    row.head[d] = k;
                }
                None => {
                    row.head[d] = u64::MAX;
                    row.bits[d / 64] &= !(1 << (d % 64));
                }
            }
        }
    }

    /// Whether every resource of class `c`'s route has free capacity.
    fn open_route(&self, c: u32, free: &[f64]) -> bool {
        self.classes[c as usize]
            .path
            .iter()
            .all(|&r| free[r as usize] > 0.0)
    }

    /// The class of sender `s` with the smallest head key among those whose receiver is in
    /// `self.open` and whose whole route has free capacity.
    ///
    /// The row's classes are first walked in key order from `after` (when few receivers are
    /// full the first few serve), then, after [`SKIPS`] full ones, the open receivers are
    /// scanned in the bit sets (when most are full, few are left to scan).
    fn best_in_row(&self, s: usize, after: u64, free: &[f64]) -> Option<(u64, u32, u32)> {
        let row = &self.rows[s];
        for (n, &(key, d)) in row
            .by_key
            .range((
                std::ops::Bound::Excluded((after, u32::MAX)),
                std::ops::Bound::Unbounded,
            ))
            .enumerate()
        {
            if n == SKIPS {
                break;
            }
            if self.open_route(row.class[d as usize], free) {
                return Some((key, s as u32, d));
            }
        }
        let mut best: Option<(u64, u32, u32)> = None;
        for (w, (&bits, &open)) in row.bits.iter().zip(&self.open).enumerate() {
            let mut m = bits & open;
            while m != 0 {
                let d = w * 64 + m.trailing_zeros() as usize;
                m &= m - 1;
                let key = row.head[d];
                if best.is_none_or(|b| key < b.0) && self.open_route(row.class[d], free) {
                    best = Some((key, s as u32, d as u32));
                }
            }
        }
        best
    }

    /// Strict-priority rates: every flow, in key order, takes the smallest free capacity on
    /// its route; calls `out(id, rate)` for every flow with a positive rate, in key order,
    /// and decreases `free` by it.
    pub(crate) fn rates(&mut self, free: &mut [f64], mut out: impl FnMut(usize, f64)) {
        let mut heap = std::mem::take(&mut self.heap);
        heap.clear();
        // Receivers whose down-link has free capacity.
        let words = self.col_res.len().div_ceil(64);
        self.open.clear();
        self.open.resize(words, 0);
        for (d, &r) in self.col_res.iter().enumerate() {
            if r != NONE && free[r as usize] > 0.0 {
                self.open[d / 64] |= 1 << (d % 64);
            }
        }
        let mut k = 0;
        while k < self.live_rows.len() {
            let s = self.live_rows[k] as usize;
            let Some(&(key, d)) = self.rows[s].by_key.first() else {
                self.row_live[s] = false;
                self.live_rows.swap_remove(k);
                continue;
            };
            k += 1;
            if free[self.rows[s].res as usize] <= 0.0 {
                continue;
            }
            let c = self.rows[s].class[d as usize];
            if self.open_route(c, free) {
                heap.push(Reverse((key, s as u32, d)));
            } else if let Some(b) = self.best_in_row(s, key, free) {
                heap.push(Reverse(b));
            }
        }
        while let Some(Reverse((key, s, d))) = heap.pop() {
            let c = self.rows[s as usize].class[d as usize];
            if !self.open_route(c, free) {
                // Something on its route filled up since it was chosen.
                if let Some(b) = self.best_in_row(s as usize, key, free) {
                    heap.push(Reverse(b));
                }
                continue;
            }
            let cl = &self.classes[c as usize];
            let r = cl
                .path
                .iter()
                .fold(f64::INFINITY, |x, &p| x.min(free[p as usize]));
            let &(head, id) = cl.flows.first().expect("a row lists classes with flows");
            debug_assert_eq!(head, key);
            for &p in &cl.path {
                free[p as usize] -= r;
            }
            out(id, r);
            let last = self.col_res[d as usize] as usize;
            if free[last] <= 0.0 {
                self.open[d as usize / 64] &= !(1 << (d % 64));
            }
            if free[self.rows[s as usize].res as usize] > 0.0
                && let Some(b) = self.best_in_row(s as usize, key, free)
            {
                heap.push(Reverse(b));
            }
        }
        self.heap = heap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rates::{FlowDemand, max_min_fair, priority_greedy};
    use proptest::prelude::*;

    /// Big switch of `m` machines: egress `s` is resource `s`, ingress `d` is `m + d`.
    fn route(m: u32, s: u32, d: u32) -> [u32; 2] {
        [s, m + d]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The class filling gives every flow the per-flow max-min rate, to 1e-9 of the
        /// capacity, and leaves the same free capacity.
        #[test]
        fn fair_classes_are_max_min_fair(
            flows in proptest::collection::vec((0u32..5, 0u32..5), 0..60),
            drop in proptest::collection::vec(any::<bool>(), 60),
            caps in proptest::collection::vec(1u32..50, 10),
        ) {
            let m = 5;
            let free0: Vec<f64> = caps.iter().map(|&c| f64::from(c) * 1e8).collect();
            let mut fc = FairClasses::default();
            for (id, &(s, d)) in flows.iter().enumerate() {
                fc.add(id, s, d, &route(m, s, d));
            }
            // Some leave again, in any order.
            let kept: Vec<usize> = (0..flows.len()).filter(|&i| !drop[i]).collect();
            for i in (0..flows.len()).rev().filter(|&i| drop[i]) {
                fc.remove(i);
            }
            prop_assert_eq!(fc.len(), kept.len());
            let paths: Vec<[u32; 2]> = kept.iter().map(|&i| route(m, flows[i].0, flows[i].1)).collect();
            let d: Vec<FlowDemand<'_>> = paths.iter().map(|p| FlowDemand { path: p, cap: f64::INFINITY }).collect();
            let mut fa = free0.clone();
            let want = max_min_fair(&d, &mut fa);
            let mut fb = free0;
            let mut got = vec![0.0; flows.len()];
            fc.rates(&mut fb, |id, r| got[id] = r);
            for (k, &i) in kept.iter().enumerate() {
                prop_assert!((got[i] - want[k]).abs() <= 1e-9 * 5e9, "flow {}: {} vs {}", i, got[i], want[k]);
            }
            for (a, b) in fa.iter().zip(&fb) {
                prop_assert!((a - b).abs() <= 1e-9 * 5e9);
            }
        }

        /// The class walk gives, bit for bit, the greedy walk over every flow in key order.
        #[test]
        fn priority_classes_are_the_greedy_walk(
            flows in proptest::collection::vec((0u32..6, 0u32..6, 0u64..1000), 0..80),
            drop in proptest::collection::vec(any::<bool>(), 80),
            caps in proptest::collection::vec(1u32..50, 12),
        ) {
            let m = 6;
            let free0: Vec<f64> = caps.iter().map(|&c| f64::from(c) / 3.0).collect();
            let mut pc = PriorityClasses::default();
            // Distinct keys: the drawn key, then the id.
            let key = |i: usize| flows[i].2 * 1000 + i as u64;
            for (id, &(s, d, _)) in flows.iter().enumerate() {
                pc.add(id, key(id), s, d, &route(m, s, d));
            }
            for i in (0..flows.len()).filter(|&i| drop[i]) {
                pc.remove(i);
            }
            let mut kept: Vec<usize> = (0..flows.len()).filter(|&i| !drop[i]).collect();
            kept.sort_by_key(|&i| key(i));
            let paths: Vec<[u32; 2]> = kept.iter().map(|&i| route(m, flows[i].0, flows[i].1)).collect();
            let d: Vec<FlowDemand<'_>> = paths.iter().map(|p| FlowDemand { path: p, cap: f64::INFINITY }).collect();
            let mut fa = free0.clone();
            let want = priority_greedy(&d, &mut fa);
            let mut fb = free0;
            let mut got = vec![0.0f64; flows.len()];
            let mut order = Vec::new();
            pc.rates(&mut fb, |id, r| { got[id] = r; order.push(id); });
            for (k, &i) in kept.iter().enumerate() {
                prop_assert_eq!(got[i].to_bits(), want[k].to_bits(), "flow {}", i);
            }
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&fa), bits(&fb));
            // Reported in key order.
            prop_assert!(order.windows(2).all(|w| key(w[0]) < key(w[1])));
        }
    }
}
