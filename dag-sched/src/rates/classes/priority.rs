//! [`PriorityClasses`]: strict priority over route classes, the greedy walk repaired from
//! the last event's walk instead of redone.
//!
//! The greedy walk (every flow in key order takes the smallest free capacity on its route)
//! only lets a class's first flow move, so it is a walk over class heads. Between two events
//! a few heads change; the walk before the first change is the same, and after it a head can
//! only do something else than last time if a resource of its route has another free
//! capacity at its turn than last time. Every head that did not move *watches* one resource
//! of its route that was full at its turn (as SAT solvers watch literals).
//! [`PriorityClasses::rates`] replays the last walk's moves (at most one per resource: each
//! leaves a resource of its route full) beside the new one and evaluates only
//! - the last walk's movers (their rate is recomputed on the new free capacities),
//! - the heads that changed since,
//! - the heads watching a resource that the last walk had filled by then and the new one
//!   has not (*reopened*): only those can move where they were blocked before; one still
//!   blocked watches a resource full now instead,
//!
//! which gives, bit for bit, the walk from scratch (`priority_classes_repair_is_the_greedy_walk`).

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::ops::Bound;

use fabric_model::hash::FxHashMap;

use super::{NONE, Route, class_index, ensure};

struct PriorityClass {
    path: Route,
    /// The class's flows by (key, id).
    flows: BTreeSet<(u64, usize)>,
}

/// A head that got a positive rate in a walk.
#[derive(Debug, Clone, Copy)]
struct Mover {
    key: u64,
    class: u32,
    id: usize,
    rate: f64,
}

/// Flows served by strict priority (smaller key first), grouped by route (sender, receiver);
/// every resource lists the blocked heads watching it. Add and remove are O(log n).
///
/// [`PriorityClasses::rates`] costs O(L + (M + C + E) · (h + log n)) for L resources, routes
/// of h resources, M moves of the last walk (at most L), C heads changed since and E heads
/// watching a reopened resource after it reopened; the first call (or one from other free
/// capacities than the last) walks every head: O(L + H · (h + log n)) for H heads.
#[derive(Default)]
pub(crate) struct PriorityClasses {
    of: FxHashMap<(u32, u32), u32>,
    classes: Vec<PriorityClass>,
    /// Per resource: the heads (key, class) watching it, blocked there at the last walk.
    watchers: Vec<BTreeSet<(u64, u32)>>,
    /// Per class: its head (key, flow id), key `u64::MAX` for none.
    head: Vec<(u64, usize)>,
    /// Per class: the resource its head watches (`NONE`: it moved, or is new since).
    watch: Vec<u32>,
    /// Per flow id: (class, key), class `NONE` when not in.
    of_flow: Vec<(u32, u64)>,
    /// Heads set since the last walk (key, class); those no longer heads are dropped there.
    changed: Vec<(u64, u32)>,
    /// The smallest key of a head set or unset since the last walk (`u64::MAX`: none; 0
    /// before the first walk): the walk up to it is the last one.
    first_change: u64,
    /// The last walk's movers in key order, and the free capacities it started from.
    movers: Vec<Mover>,
    base: Vec<f64>,
    walked: bool,
    // Buffers of `rates`.
    next: Vec<Mover>,
    /// The last walk's free capacities as the repair goes (the new ones for a full walk).
    old_free: Vec<f64>,
    reopened: Vec<bool>,
    /// Per reopened resource: the next head watching it (key, class, resource).
    heap: BinaryHeap<Reverse<(u64, u32, u32)>>,
    popped: Vec<u32>,
    stopped: Vec<usize>,
    /// Per flow id: the walk at which it last moved, and the walk count: a flow removed and
    /// added again under another key is one of the last walk's movers at its old key but
    /// may move at its new one, where it is not reported stopped.
    moved_at: Vec<u32>,
    walks: u32,
}

impl PriorityClasses {
    /// Adds flow `id` from `src` to `dst` crossing `path` (not empty) with priority `key`
    /// (smaller first; keys must be distinct and below `u64::MAX`). O(h log n).
    pub(crate) fn add(&mut self, id: usize, key: u64, src: u32, dst: u32, path: &[u32]) {
        ensure(&mut self.of_flow, id, (NONE, 0));
        ensure(&mut self.moved_at, id, 0);
        debug_assert!(key < u64::MAX, "u64::MAX is no head's key");
        if self.of_flow[id].0 != NONE || path.is_empty() {
            return;
        }
        let c = class_index(&mut self.of, &mut self.classes, src, dst, || {
            PriorityClass {
                path: path.iter().copied().collect(),
                flows: BTreeSet::new(),
            }
        });
        self.of_flow[id] = (c as u32, key);
        ensure(&mut self.head, c, (u64::MAX, 0));
        ensure(&mut self.watch, c, NONE);
        let cl = &mut self.classes[c];
        let old = cl.flows.first().map(|&(k, _)| k);
        cl.flows.insert((key, id));
        if old.is_none_or(|o| key < o) {
            self.unwatch(c as u32);
            self.head[c] = (key, id);
            self.first_change = self.first_change.min(key);
            self.changed.push((key, c as u32));
        }
    }

    /// Removes flow `id` (no-op if it is not in). O(h log n).
    pub(crate) fn remove(&mut self, id: usize) {
        let Some(&(c, key)) = self.of_flow.get(id) else {
            return;
        };
        if c == NONE {
            return;
        }
        self.of_flow[id] = (NONE, 0);
        let was_head = self.head[c as usize] == (key, id);
        self.classes[c as usize].flows.remove(&(key, id));
        if was_head {
            self.unwatch(c);
            let first = self.classes[c as usize].flows.first().copied();
            self.head[c as usize] = first.unwrap_or((u64::MAX, 0));
            self.first_change = self.first_change.min(key);
            if let Some((k, _)) = first {
                self.changed.push((k, c));
            }
        }
    }

    /// The key of class `c`'s head, if it has flows.
    fn head(&self, c: u32) -> Option<u64> {
        Some(self.head[c as usize].0).filter(|&k| k != u64::MAX)
    }

    /// Class `c`'s head stops watching (no-op if it does not).
    fn unwatch(&mut self, c: u32) {
        let w = std::mem::replace(&mut self.watch[c as usize], NONE);
        if w != NONE {
            self.watchers[w as usize].remove(&(self.head[c as usize].0, c));
        }
    }

    /// Class `c`'s head (key `k`), blocked now, watches a full resource of its route, the
    /// one it watches if that is still full.
    fn rewatch(&mut self, c: u32, k: u64, free: &[f64]) {
        let w = self.watch[c as usize];
        if w != NONE && free[w as usize] <= 0.0 {
            return;
        }
        self.unwatch(c);
        if let Some(&p) = self.classes[c as usize]
            .path
            .iter()
            .find(|&&p| free[p as usize] <= 0.0)
        {
            self.watchers[p as usize].insert((k, c));
            self.watch[c as usize] = p;
        }
    }

    /// Queues the first head watching resource `p` after key `after`, if any.
    fn queue_next(&mut self, p: u32, after: u64) {
        if let Some(&(k, c)) = self.watchers[p as usize]
            .range((Bound::Excluded((after, u32::MAX)), Bound::Unbounded))
            .next()
        {
            self.heap.push(Reverse((k, c, p)));
        }
    }

    /// Marks and queues the resources of `c`'s route that the last walk had filled by now
    /// and the new one has not (the last one just passed key `at`).
    fn reopen(&mut self, c: u32, at: u64, free: &[f64]) {
        for k in 0..self.classes[c as usize].path.len() {
            let p = self.classes[c as usize].path[k];
            let i = p as usize;
            if !self.reopened[i] && self.old_free[i] <= 0.0 && free[i] > 0.0 {
                self.reopened[i] = true;
                self.queue_next(p, at);
            }
        }
    }

    /// Strict-priority rates: every flow, in key order, takes the smallest free capacity on
    /// its route, and `free` is decreased by it. Calls `out(id, rate)` for every flow whose
    /// rate changed since the last call: first those with a positive rate, in key order,
    /// then those that stopped (rate 0, flows removed since included), in key order. The
    /// first call (or one from other free capacities than the last) reports every flow
    /// with a positive rate, then the last walk's other movers.
    pub(crate) fn rates(&mut self, free: &mut [f64], mut out: impl FnMut(usize, f64)) {
        let n = free.len();
        // Every element compared (no early exit), which vectorises.
        let full = !self.walked
            || self.base.len() != n
            || self
                .base
                .iter()
                .zip(free.iter())
                .fold(false, |d, (a, b)| d | (a.to_bits() != b.to_bits()));
        if full {
            self.walked = true;
            self.base.clear();
            self.base.extend_from_slice(free);
        }
        if self.watchers.len() < n {
            self.watchers.resize_with(n, BTreeSet::new);
        }
        self.old_free.clear();
        self.reopened.clear();
        self.reopened.resize(n, false);
        self.heap.clear();
        self.next.clear();
        self.stopped.clear();
        let old = std::mem::take(&mut self.movers);
        self.walks = self.walks.wrapping_add(1);
        let mut changed = std::mem::take(&mut self.changed);
        let first_change = std::mem::replace(&mut self.first_change, u64::MAX);
        // The last walk's movers before the first change move as they did (the walk is the
        // same up to there).
        let same = if full {
            0
        } else {
            old.partition_point(|m| m.key < first_change)
        };
        if full {
            // Every head is evaluated, as if all had changed; none watches yet.
            self.old_free.extend_from_slice(free);
            self.watchers.iter_mut().for_each(BTreeSet::clear);
            self.watch.iter_mut().for_each(|w| *w = NONE);
            changed.clear();
            changed
                .extend((0..self.head.len() as u32).filter_map(|c| self.head(c).map(|k| (k, c))));
            changed.sort_unstable();
        } else {
            for m in &old[..same] {
                for &p in &self.classes[m.class as usize].path {
                    free[p as usize] -= m.rate;
                }
            }
            self.next.extend_from_slice(&old[..same]);
            for m in &old[..same] {
                self.moved_at[m.id] = self.walks;
            }
            self.old_free.extend_from_slice(free);
            changed.retain(|&(k, c)| self.head(c) == Some(k));
            changed.sort_unstable();
            changed.dedup();
        }
        let replay: &[Mover] = if full { &[] } else { &old[same..] };
        let (mut oi, mut ci) = (0, 0);
        loop {
            // Keys are below `u64::MAX` (a head's key is distinct from `head`'s "none").
            let ko = replay.get(oi).map_or(u64::MAX, |m| m.key);
            let kc = changed.get(ci).map_or(u64::MAX, |&(k, _)| k);
            let kh = self.heap.peek().map_or(u64::MAX, |&Reverse((k, _, _))| k);
            let k = ko.min(kc).min(kh);
            if k == u64::MAX {
                break;
            }
            // The head at `k` now (if any) and the last walk's mover at `k` (if any).
            let mut cur: Option<u32> = None;
            let mut was: Option<Mover> = None;
            if ko == k {
                let m = replay[oi];
                oi += 1;
                if self.head(m.class) == Some(k) {
                    cur = Some(m.class);
                }
                for &p in &self.classes[m.class as usize].path {
                    self.old_free[p as usize] -= m.rate;
                }
                was = Some(m);
            }
            if kc == k {
                cur = Some(changed[ci].1);
                ci += 1;
            }
            self.popped.clear();
            while let Some(&Reverse((hk, c, p))) = self.heap.peek() {
                if hk != k {
                    break;
                }
                self.heap.pop();
                cur = Some(c);
                self.popped.push(p);
            }
            let mut moved = 0.0;
            if let Some(c) = cur {
                let cl = &self.classes[c as usize];
                if !cl.path.iter().all(|&p| free[p as usize] > 0.0) {
                    self.rewatch(c, k, free);
                } else {
                    let r = cl
                        .path
                        .iter()
                        .fold(f64::INFINITY, |x, &p| x.min(free[p as usize]));
                    for &p in &cl.path {
                        free[p as usize] -= r;
                    }
                    let id = self.head[c as usize].1;
                    self.moved_at[id] = self.walks;
                    self.next.push(Mover {
                        key: k,
                        class: c,
                        id,
                        rate: r,
                    });
                    moved = r;
                    if was.is_none_or(|m| m.rate.to_bits() != r.to_bits()) {
                        out(id, r);
                    }
                    self.unwatch(c);
                }
            }
            if let Some(m) = was
                && moved <= 0.0
            {
                self.stopped.push(m.id);
            }
            if let Some(c) = cur.or(was.map(|m| m.class)) {
                self.reopen(c, k, free);
            }
            for i in 0..self.popped.len() {
                let p = self.popped[i];
                let q = p as usize;
                if self.old_free[q] <= 0.0 && free[q] > 0.0 {
                    self.queue_next(p, k);
                }
            }
        }
        if full {
            // The last walk's movers that do not move now (both lists in key order).
            let mut j = 0;
            for m in &old {
                while j < self.next.len() && self.next[j].key < m.key {
                    j += 1;
                }
                if self.next.get(j).is_none_or(|x| x.key != m.key) {
                    self.stopped.push(m.id);
                }
            }
        }
        for &id in &self.stopped {
            if self.moved_at[id] != self.walks {
                out(id, 0.0);
            }
        }
        changed.clear();
        self.changed = changed;
        self.movers = std::mem::replace(&mut self.next, old);
    }

    /// The flows with a positive rate at the last walk and their rates, in key order.
    #[cfg(test)]
    fn moving(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.movers.iter().map(|m| (m.id, m.rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rates::{FlowDemand, priority_greedy};
    use proptest::prelude::*;

    use crate::rates::classes::big_switch_route as route;

    /// Through one of two core links (resources `2m` and `2m + 1`, by the parity of
    /// `s + d`) between egress and ingress, when `core`: routes that share a middle resource.
    fn route3(m: u32, s: u32, d: u32, core: bool) -> Vec<u32> {
        if core {
            vec![s, 2 * m + (s + d) % 2, m + d]
        } else {
            route(m, s, d).to_vec()
        }
    }

    /// [`priority_greedy`] over the flows `kept` (ids into `flows`) sorted by `key`, on
    /// [`route3`]'s routes: the rate of every flow id, and the free capacities left.
    fn greedy(
        (m, core): (u32, bool),
        flows: &[(u32, u32, u64)],
        kept: &[usize],
        key: impl Fn(usize) -> u64,
        free0: &[f64],
    ) -> (Vec<f64>, Vec<f64>) {
        let mut kept = kept.to_vec();
        kept.sort_by_key(|&i| key(i));
        let paths: Vec<Vec<u32>> = kept
            .iter()
            .map(|&i| route3(m, flows[i].0, flows[i].1, core))
            .collect();
        let d: Vec<FlowDemand<'_>> = paths
            .iter()
            .map(|p| FlowDemand {
                path: p,
                cap: f64::INFINITY,
            })
            .collect();
        let mut free = free0.to_vec();
        let want = priority_greedy(&d, &mut free);
        let mut rate = vec![0.0; flows.len()];
        for (k, &i) in kept.iter().enumerate() {
            rate[i] = want[k];
        }
        (rate, free)
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

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
            let kept: Vec<usize> = (0..flows.len()).filter(|&i| !drop[i]).collect();
            let (want, fa) = greedy((m, false), &flows, &kept, key, &free0);
            let mut fb = free0;
            let mut got = vec![0.0f64; flows.len()];
            let mut order = Vec::new();
            pc.rates(&mut fb, |id, r| { got[id] = r; order.push(id); });
            prop_assert_eq!(bits(&got), bits(&want));
            prop_assert_eq!(bits(&fa), bits(&fb));
            // Reported in key order.
            prop_assert!(order.windows(2).all(|w| key(w[0]) < key(w[1])));
        }

        /// Repaired walk after walk, through random arrivals, departures and flows removed
        /// and added again under another key (several at once: LatPriority's re-ranked
        /// jobs), and a change of capacities now and then (which walks afresh), on the big
        /// switch or through shared core links: the rates the changes reported add up, bit
        /// for bit, to the greedy walk from scratch, as do the movers and the free
        /// capacities left.
        #[test]
        fn priority_classes_repair_is_the_greedy_walk(
            flows in proptest::collection::vec((0u32..6, 0u32..6, 0u64..1000), 1..60),
            script in proptest::collection::vec(
                (0u8..3, 0usize..60, 0u8..20, proptest::collection::vec(0u64..1000, 1..4)),
                1..60),
            caps in proptest::collection::vec(1u32..50, 14),
            core in any::<bool>(),
        ) {
            let m = 6;
            let mut free0: Vec<f64> = caps.iter().map(|&c| f64::from(c) / 3.0).collect();
            let mut keys: Vec<u64> = (0..flows.len()).map(|i| flows[i].2 * 1000 + i as u64).collect();
            let mut pc = PriorityClasses::default();
            let mut in_set = vec![false; flows.len()];
            let mut rate = vec![0.0f64; flows.len()];
            for (op, i, tweak, new_keys) in &script {
                let (op, i, tweak) = (*op, *i % flows.len(), *tweak);
                if op == 0 && !in_set[i] {
                    let (s, d, _) = flows[i];
                    pc.add(i, keys[i], s, d, &route3(m, s, d, core));
                    in_set[i] = true;
                } else if op == 1 && in_set[i] {
                    pc.remove(i);
                    in_set[i] = false;
                } else if op == 2 {
                    // Flows i, i + 1, ... (those in) take new keys.
                    for (n, &k) in new_keys.iter().enumerate() {
                        let f = (i + n) % flows.len();
                        if in_set[f] {
                            let (s, d, _) = flows[f];
                            keys[f] = k * 1000 + f as u64;
                            pc.remove(f);
                            pc.add(f, keys[f], s, d, &route3(m, s, d, core));
                        }
                    }
                }
                if tweak == 0 {
                    free0[i % 14] += 1.0;
                }
                let kept: Vec<usize> = (0..flows.len()).filter(|&i| in_set[i]).collect();
                let (want, fa) = greedy((m, core), &flows, &kept, |i| keys[i], &free0);
                let mut fb = free0.clone();
                pc.rates(&mut fb, |id, r| rate[id] = r);
                for i in (0..flows.len()).filter(|&i| !in_set[i]) {
                    // A removed flow is reported as stopped (or never moved).
                    prop_assert_eq!(rate[i], 0.0);
                }
                prop_assert_eq!(bits(&rate), bits(&want));
                prop_assert_eq!(bits(&fa), bits(&fb));
                let mut moving = vec![0.0f64; flows.len()];
                for (id, r) in pc.moving() {
                    moving[id] = r;
                }
                prop_assert_eq!(bits(&moving), bits(&want));
            }
        }
    }
}
