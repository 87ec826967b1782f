//! [`PriorityClasses`]: strict priority over route classes, walking class heads in key order.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use fabric_model::hash::FxHashMap;

use super::{NONE, Route, class_index, ensure};

/// Classes a sender's walk in key order tries before it scans the open receivers instead.
const SKIPS: usize = 4;

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
    use crate::rates::{FlowDemand, priority_greedy};
    use proptest::prelude::*;

    /// Big switch of `m` machines: egress `s` is resource `s`, ingress `d` is `m + d`.
    fn route(m: u32, s: u32, d: u32) -> [u32; 2] {
        [s, m + d]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

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
