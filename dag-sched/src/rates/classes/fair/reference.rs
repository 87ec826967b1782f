//! The class filling [`FairClasses`](super::FairClasses) replaced: every event rebuilt the
//! per-resource counts from every live class and passed over every resource in use at every
//! round. Kept as the oracle of the faster one, which must report the same changes, bit for
//! bit.

use fabric_model::hash::FxHashMap;

use super::super::{NONE, Route, class_index, ensure};

struct FairClass {
    path: Route,
    members: Vec<usize>,
    /// Position in `ReferenceFairClasses::live`, or `NONE`.
    live_pos: u32,
    /// The rate [`ReferenceFairClasses::changes`] last reported for the class's members (0 while it
    /// has none).
    prev: f64,
}

/// Flows sharing capacity max-min fairly, grouped by route; add and remove are O(1)
/// amortised, [`ReferenceFairClasses::rates`] is O(K · h + R · L) for K classes with flows, routes of
/// h resources, L resources in use and R ≤ L + K filling rounds.
#[derive(Default)]
pub(crate) struct ReferenceFairClasses {
    of: FxHashMap<(u32, u32), u32>,
    classes: Vec<FairClass>,
    /// Per flow id: its position in its class's members, or `NONE`.
    slot: Vec<u32>,
    /// Per flow id: its class.
    class: Vec<u32>,
    live: Vec<u32>,
    /// Flows added since [`ReferenceFairClasses::changes`] last ran (they have no rate yet).
    fresh: Vec<usize>,
    // Buffers of `rates`.
    cnt: Vec<usize>,
    on: Vec<Vec<u32>>,
    used: Vec<u32>,
    level_of: Vec<f64>,
    frozen: Vec<bool>,
}

impl ReferenceFairClasses {
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
    pub(crate) fn len(&self) -> usize {
        self.live
            .iter()
            .map(|&c| self.classes[c as usize].members.len())
            .sum()
    }

    /// The same max-min fair rates as [`max_min_fair`](crate::rates::max_min_fair) up to rounding, reported per
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
