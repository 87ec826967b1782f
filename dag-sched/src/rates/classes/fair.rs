//! [`FairClasses`]: max-min fairness over route classes weighted by their flow counts.
//!
//! The per-resource flow counts and the lists of live classes on each resource are kept as
//! flows come and go, so that an event's filling starts from them instead of a pass over
//! every class, and each round passes over the resources that still have unfrozen flows
//! only (kept compact), not over every resource in use. The arithmetic is the same as that
//! of the filling it replaced ([`reference`], the tests' oracle), so are the rates, bit for
//! bit: the increment is a minimum (independent of the order it is taken in), and each
//! resource is decreased by the same `increment × count` at the same rounds.
//!
//! Each filling restarts from the first round the changes since the last one can alter
//! ([`restart`]), not from zero, and reports the classes it froze again only. On the whole
//! FB2010 trace (TensorFlow's order, 52,008 events, about 15,000 live classes) a filling
//! ran 52 rounds on average and restarted at round 30, refreezing about 4,700 classes; the
//! run (with the engine's scans of the moving groups eight lanes at a time) took 6.8 s
//! against 9.2 s before (load 3), the same mean CCT.

use fabric_model::hash::FxHashMap;

use super::{NONE, class_index, ensure};

/// Saturation tolerance, relative to `1 + level` (`max_min_fair`'s).
const TOL: f64 = 1e-12;

#[cfg(test)]
mod reference;
mod restart;

/// One route class: its resources are `FairClasses::hops[start..start + len]`.
struct FairClass {
    start: u32,
    len: u32,
    members: Vec<usize>,
}

/// A live class in the list of one resource it crosses: all the filling reads of it when
/// the resource saturates, where the list is read in order (the class's own record would
/// be a cache miss per class, a few thousand at an event).
#[derive(Clone, Copy)]
struct Entry {
    /// The class's position in `live`.
    p: u32,
    /// Its number of flows.
    size: u32,
    /// The route's other resource when the route has two, else `NONE`.
    other: u32,
    /// The class when its route has more than two resources (read from `hops`), else `NONE`.
    long: u32,
}

/// Flows sharing capacity max-min fairly, grouped by route; add and remove are O(h)
/// amortised for routes of h resources, [`FairClasses::changes`] is O(K + C · h + Σ_{r ∈ D}
/// (|on_r| + k) + K′ · h + Σ_{rounds ≥ k} L_i) for K classes with flows, C classes changed
/// since the last call, D the resources they cross (or given another free capacity), the
/// restart round k, K′ classes frozen again and L_i resources with unfrozen flows at round
/// i (at most L, the resources in use, over R ≤ L + K rounds); O(K · h + Σ_i L_i) when it
/// starts from zero.
#[derive(Default)]
pub(crate) struct FairClasses {
    of: FxHashMap<(u32, u32), u32>,
    classes: Vec<FairClass>,
    /// Every class's route, one after another.
    hops: Vec<u32>,
    /// Parallel to `hops`: the class's entry in `on` of that resource while it is live.
    on_pos: Vec<u32>,
    /// Per class: its position in `live`, or `NONE`.
    live_pos: Vec<u32>,
    /// Per flow id: its position in its class's members, or `NONE`.
    slot: Vec<u32>,
    /// Per flow id: its class.
    class: Vec<u32>,
    /// The classes with flows.
    live: Vec<u32>,
    /// Parallel to `live`: the rate [`FairClasses::changes`] last reported for the class's
    /// members (0 since it last had none), and its level at the last filling.
    prev: Vec<f64>,
    level: Vec<f64>,
    /// Flows added since [`FairClasses::changes`] last ran (they have no rate yet).
    fresh: Vec<usize>,
    /// Per resource: the flows of the live classes crossing it, and those classes.
    load: Vec<usize>,
    on: Vec<Vec<Entry>>,
    /// The resources with a positive `load`, and each one's position there (or `NONE`).
    used: Vec<u32>,
    used_pos: Vec<u32>,
    // Buffers of `fill`: per resource the unfrozen flows (0 outside `fill`); the resources
    // with unfrozen flows; those saturated at a round; per live position whether the class
    // is frozen (bits).
    cnt: Vec<usize>,
    act: Vec<u32>,
    sat: Vec<u32>,
    frozen: Vec<u64>,
    /// The frozen bits as the filling started: the classes frozen before its first round,
    /// whose rates it did not change.
    kept: Vec<u64>,
    /// The last filling, from which the next one restarts ([`restart`]).
    log: restart::Log,
}

impl FairClasses {
    /// Adds flow `id` from `src` to `dst` crossing `path` (no-op if it is already in).
    ///
    /// # Complexity
    /// O(h) amortised.
    pub(crate) fn add(&mut self, id: usize, src: u32, dst: u32, path: &[u32]) {
        ensure(&mut self.slot, id, NONE);
        ensure(&mut self.class, id, NONE);
        if self.slot[id] != NONE {
            return;
        }
        let hops = &mut self.hops;
        let on_pos = &mut self.on_pos;
        let c = class_index(&mut self.of, &mut self.classes, src, dst, || {
            let start = hops.len() as u32;
            hops.extend_from_slice(path);
            on_pos.resize(hops.len(), NONE);
            FairClass {
                start,
                len: path.len() as u32,
                members: Vec::new(),
            }
        });
        ensure(&mut self.live_pos, c, NONE);
        self.log.touch(c);
        self.fresh.push(id);
        let cl = &mut self.classes[c];
        self.slot[id] = cl.members.len() as u32;
        self.class[id] = c as u32;
        cl.members.push(id);
        let (start, end) = (cl.start as usize, (cl.start + cl.len) as usize);
        for &r in &self.hops[start..end] {
            let r = r as usize;
            ensure(&mut self.load, r, 0);
            ensure(&mut self.used_pos, r, NONE);
            self.log.ensure_resource(r);
            if self.on.len() <= r {
                self.on.resize_with(r + 1, Vec::new);
            }
            self.load[r] += 1;
            if self.used_pos[r] == NONE {
                self.used_pos[r] = self.used.len() as u32;
                self.used.push(r as u32);
            }
        }
        if self.live_pos[c] == NONE {
            let p = self.live.len() as u32;
            self.live_pos[c] = p;
            self.live.push(c as u32);
            self.prev.push(0.0);
            self.level.push(0.0);
            self.log.went_live();
            let len = end - start;
            for h in start..end {
                let r = self.hops[h] as usize;
                let other = if len == 2 {
                    self.hops[2 * start + 1 - h]
                } else {
                    NONE
                };
                self.on_pos[h] = self.on[r].len() as u32;
                self.on[r].push(Entry {
                    p,
                    size: 0,
                    other,
                    long: if len > 2 { c as u32 } else { NONE },
                });
            }
        }
        for h in start..end {
            self.on[self.hops[h] as usize][self.on_pos[h] as usize].size += 1;
        }
    }

    /// Removes flow `id` (no-op if it is not in).
    ///
    /// # Complexity
    /// O(h) when the class keeps flows, O(h²) when it empties.
    pub(crate) fn remove(&mut self, id: usize) {
        let Some(&s) = self.slot.get(id) else {
            return;
        };
        if s == NONE {
            return;
        }
        let c = self.class[id] as usize;
        self.log.touch(c);
        let cl = &mut self.classes[c];
        cl.members.swap_remove(s as usize);
        if let Some(&moved) = cl.members.get(s as usize) {
            self.slot[moved] = s;
        }
        self.slot[id] = NONE;
        let emptied = cl.members.is_empty();
        let (start, end) = (cl.start as usize, (cl.start + cl.len) as usize);
        for h in start..end {
            let r = self.hops[h] as usize;
            self.on[r][self.on_pos[h] as usize].size -= 1;
            self.load[r] -= 1;
            if self.load[r] == 0 {
                let p = self.used_pos[r] as usize;
                self.used.swap_remove(p);
                if let Some(&moved) = self.used.get(p) {
                    self.used_pos[moved as usize] = p as u32;
                }
                self.used_pos[r] = NONE;
            }
        }
        if !emptied {
            return;
        }
        // Out of every resource's list (the entry moved into its place re-pointed), then
        // out of `live` (the class moved into its place re-pointed in every list).
        for h in start..end {
            let r = self.hops[h] as usize;
            let q = self.on_pos[h] as usize;
            self.on_pos[h] = NONE;
            self.on[r].swap_remove(q);
            if let Some(&moved) = self.on[r].get(q) {
                let m = &self.classes[self.live[moved.p as usize] as usize];
                let (a, b) = (m.start as usize, (m.start + m.len) as usize);
                if let Some(k) = self.hops[a..b].iter().position(|&x| x as usize == r) {
                    self.on_pos[a + k] = q as u32;
                }
            }
        }
        let p = self.live_pos[c] as usize;
        self.live_pos[c] = NONE;
        self.live.swap_remove(p);
        self.prev.swap_remove(p);
        self.level.swap_remove(p);
        self.log.left_live(p);
        if let Some(&moved) = self.live.get(p) {
            self.live_pos[moved as usize] = p as u32;
            let m = &self.classes[moved as usize];
            for h in m.start as usize..(m.start + m.len) as usize {
                self.on[self.hops[h] as usize][self.on_pos[h] as usize].p = p as u32;
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
    /// hands out. The rates equal those of [`max_min_fair`](crate::rates::max_min_fair) over
    /// the same flows up to rounding.
    #[cfg(test)]
    pub(crate) fn rates(&mut self, free: &mut [f64], mut out: impl FnMut(usize, f64)) {
        self.fill(free);
        // The rates are not reported: the next filling starts afresh, and reports every
        // class whose rate differs from the last one reported.
        self.log.valid = false;
        for (&c, &rate) in self.live.iter().zip(&self.level) {
            if rate > 0.0 {
                for &id in &self.classes[c as usize].members {
                    out(id, rate);
                }
            }
        }
    }

    /// The same max-min fair rates as `FairClasses::rates`, the tests' reference (bit for bit), reported per
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
        // The classes the filling froze, in live order (the others kept their rates).
        let k = self.live.len();
        for (w, &bits) in self.kept.iter().enumerate() {
            let mut todo = !bits;
            while todo != 0 {
                let p = w * 64 + todo.trailing_zeros() as usize;
                todo &= todo - 1;
                if p >= k {
                    break;
                }
                let rate = self.level[p].max(0.0);
                let prev = &mut self.prev[p];
                if rate.to_bits() != prev.to_bits() {
                    *prev = rate;
                    class_rate(self.live[p], rate);
                }
            }
        }
    }

    /// Progressive filling over the live classes: `level[p]` is the rate of the class at
    /// `live[p]`; decreases `free` by what it hands out. Restarts from the first round the
    /// changes since the last filling can alter ([`restart`]), logging the rounds it runs.
    fn fill(&mut self, free: &mut [f64]) {
        if self.cnt.len() < self.load.len() {
            self.cnt.resize(self.load.len(), 0);
        }
        let restart::Start {
            round: first,
            mut level,
            mut left,
        } = self.restart(free);
        let Self {
            classes,
            hops,
            live,
            level: lev,
            on,
            used,
            cnt,
            act,
            sat,
            frozen,
            log,
            ..
        } = self;
        let k = live.len();
        // One slot past the classes' levels and freezing rounds, written for a class frozen
        // already (a store without a branch).
        lev.push(0.0);
        log.froze.push(NONE);
        log.valid = true;
        let mut round = first;
        while left > 0 {
            // Every resource in `act` has unfrozen flows.
            log.rlevel.push(level);
            let mut inc = f64::INFINITY;
            let mut arg = NONE;
            for &r in act.iter() {
                let r = r as usize;
                log.hist[r].push(restart::Snap {
                    free: free[r],
                    cnt: cnt[r],
                });
                // `min` without its NaN test (there is none): the same minimum, whatever
                // the order (a zero's sign aside, which no level keeps).
                let x = free[r].max(0.0) / cnt[r] as f64;
                if x < inc {
                    inc = x;
                    arg = r as u32;
                }
            }
            log.rinc.push(inc);
            log.rarg.push(arg);
            if !inc.is_finite() {
                log.valid = false;
                break;
            }
            level += inc;
            sat.clear();
            for &r in act.iter() {
                let r = r as usize;
                // Once, not `cnt` times (`max_min_fair`'s reason).
                free[r] -= inc * cnt[r] as f64;
                if free[r] <= TOL * (1.0 + level) {
                    sat.push(r as u32);
                }
            }
            let left_before = left;
            for &r in sat.iter() {
                let r = r as usize;
                if cnt[r] == 0 {
                    continue;
                }
                let route = Routes { classes, hops };
                let at = Frozen {
                    bits: frozen,
                    lev,
                    round: &mut log.froze,
                };
                left -= freeze(&on[r], r, level, round, route, at, cnt);
            }
            log.nfroze.push((left_before - left) as u32);
            if left == left_before {
                // Numerical corner: freeze every class left to guarantee progress.
                for p in 0..k {
                    if frozen[p / 64] & (1u64 << (p % 64)) == 0 {
                        frozen[p / 64] |= 1u64 << (p % 64);
                        lev[p] = level;
                    }
                }
                left = 0;
                log.valid = false;
            }
            act.retain(|&r| {
                let keep = cnt[r as usize] > 0;
                if !keep {
                    log.exit[r as usize] = round;
                }
                keep
            });
            round += 1;
        }
        log.rlevel.push(level);
        if left > 0 {
            for (p, l) in lev.iter_mut().take(k).enumerate() {
                if frozen[p / 64] & (1u64 << (p % 64)) == 0 {
                    *l = level;
                }
            }
        }
        lev.pop();
        log.froze.pop();
        for &r in used.iter() {
            let r = r as usize;
            cnt[r] = 0;
            if free[r] < 0.0 {
                free[r] = 0.0;
            }
            log.free_out[r] = free[r];
        }
    }
}

/// The routes of the classes with more than two resources.
#[derive(Clone, Copy)]
struct Routes<'a> {
    classes: &'a [FairClass],
    hops: &'a [u32],
}

/// Where [`freeze`] records a class it freezes, by live position (one slot past the
/// classes takes the stores for the classes frozen already): its frozen bit, its level and
/// the round.
struct Frozen<'a> {
    bits: &'a mut [u64],
    lev: &'a mut [f64],
    round: &'a mut [u32],
}

/// Freezes at `level`, at round `round`, every class of `list`, the list of resource `r`
/// (saturated), not frozen yet: records it in `at` and takes its flows off the unfrozen
/// counts `cnt` of its other resources; `r`'s count is 0 after. Returns how many it froze.
/// Slices, not the struct's vectors, so that the compiler keeps their addresses in
/// registers across the stores.
///
/// No branch on whether a class is frozen already (it is about every other time: a
/// mispredicted branch per class): a frozen one takes nothing off.
///
/// O(|list| · h).
fn freeze(
    list: &[Entry],
    r: usize,
    level: f64,
    round: u32,
    routes: Routes<'_>,
    at: Frozen<'_>,
    cnt: &mut [usize],
) -> usize {
    let Frozen {
        bits: frozen,
        lev,
        round: froze,
    } = at;
    let k = lev.len() - 1;
    let mut count = 0;
    for e in list {
        let p = e.p as usize;
        let (w, bit) = (p / 64, 1u64 << (p % 64));
        let fresh = frozen[w] & bit == 0;
        frozen[w] |= bit;
        let slot = if fresh { p } else { k };
        lev[slot] = level;
        froze[slot] = round;
        count += usize::from(fresh);
        let n = if fresh { e.size as usize } else { 0 };
        if e.long != NONE {
            let cl = &routes.classes[e.long as usize];
            for &q in &routes.hops[cl.start as usize..(cl.start + cl.len) as usize] {
                if q as usize != r {
                    cnt[q as usize] -= n;
                }
            }
        } else if e.other != NONE {
            cnt[e.other as usize] -= n;
        }
    }
    cnt[r] = 0;
    count
}

#[cfg(test)]
mod tests {
    use super::reference::ReferenceFairClasses;
    use super::*;
    use crate::rates::{FlowDemand, max_min_fair};
    use proptest::prelude::*;

    use crate::rates::classes::big_switch_route as route;

    /// What one `changes` call reported: the joins, the class rates (as bits) and the free
    /// capacities left (as bits).
    type Report = (Vec<(usize, u32)>, Vec<(u32, u64)>, Vec<u64>);

    fn report_of(
        changes: impl FnOnce(&mut [f64], &mut dyn FnMut(usize, u32), &mut dyn FnMut(u32, f64)),
        free0: &[f64],
    ) -> Report {
        let mut free = free0.to_vec();
        let mut joins = Vec::new();
        let mut rates = Vec::new();
        changes(&mut free, &mut |id, c| joins.push((id, c)), &mut |c, r| {
            rates.push((c, r.to_bits()))
        });
        (joins, rates, free.iter().map(|x| x.to_bits()).collect())
    }

    /// A flow whose resources saturate at the second round of the last filling: the next
    /// one restarts there (the first round, egress 0's, is kept) and reports what the
    /// reference does.
    #[test]
    fn a_change_late_in_the_filling_restarts_there() {
        let m = 4;
        let free0 = vec![1e8; 8];
        let mut fast = FairClasses::default();
        let mut slow = ReferenceFairClasses::default();
        // Egress 0 (four flows) saturates at round 0; ingress 3 (two) at round 1.
        let flows = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3)];
        for (id, &(s, d)) in flows.iter().enumerate() {
            fast.add(id, s, d, &route(m, s, d));
            slow.add(id, s, d, &route(m, s, d));
        }
        let a = report_of(|f, j, c| fast.changes(f, j, c), &free0);
        let b = report_of(|f, j, c| slow.changes(f, j, c), &free0);
        assert_eq!(a, b);
        assert_eq!(fast.log.restarted_at, 0);
        // A third flow into ingress 3, from an idle egress.
        fast.add(5, 2, 3, &route(m, 2, 3));
        slow.add(5, 2, 3, &route(m, 2, 3));
        let a = report_of(|f, j, c| fast.changes(f, j, c), &free0);
        let b = report_of(|f, j, c| slow.changes(f, j, c), &free0);
        assert_eq!(a, b);
        assert_eq!(fast.log.restarted_at, 1);
        // Egress 0's classes keep their rate (a quarter): only flows 4 and 5's are reported.
        assert_eq!(a.1.len(), 2);
        // Nothing changes: nothing to refill, nothing reported.
        let a = report_of(|f, j, c| fast.changes(f, j, c), &free0);
        assert!(a.0.is_empty() && a.1.is_empty());
        assert_eq!(fast.log.restarted_at, fast.log.rinc.len() as u32);
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

        /// Over a script of adds and removes (whole classes emptying and coming back, on
        /// routes of two to four resources), with the changes asked for after every step:
        /// the same joins, the same class rates in the same order and the same free
        /// capacities, bit for bit, as the filling it replaced.
        /// (The fillings restart from the round the step can change, and at some steps
        /// from a few other free capacities, as a policy handing the rest out gives.)
        #[test]
        fn fair_classes_report_what_the_reference_does(
            steps in proptest::collection::vec((0u32..6, 0u32..6, 0usize..40, any::<bool>(), 0u32..3), 1..80),
            caps in proptest::collection::vec(1u32..50, 14),
            other in proptest::collection::vec((0usize..14, 0u32..50, 0u32..8), 80),
            batch in proptest::collection::vec(0u32..3, 80),
        ) {
            let m = 6;
            // Resource 12 and 13: two shared core links some routes also cross.
            let caps0: Vec<f64> = caps.iter().map(|&c| f64::from(c) * 1e8 / 3.0).collect();
            let mut fast = FairClasses::default();
            let mut slow = ReferenceFairClasses::default();
            let mut next_id = 0usize;
            let mut ids: Vec<usize> = Vec::new();
            for (i, &(s, d, pick, add, extra)) in steps.iter().enumerate() {
                if add || ids.is_empty() {
                    let mut p = route(m, s, d).to_vec();
                    // The class is the (src, dst) pair: its route is a function of it.
                    p.extend((0..(s + d + extra) % 3).map(|k| 2 * m + k % 2));
                    p.dedup();
                    fast.add(next_id, s, d, &p);
                    slow.add(next_id, s, d, &p);
                    ids.push(next_id);
                    next_id += 1;
                } else {
                    let id = ids.swap_remove(pick % ids.len());
                    fast.remove(id);
                    slow.remove(id);
                }
                // Several steps between two fillings, some (a flow leaving, another of
                // its class coming) leaving a class as it was.
                if batch[i % batch.len()] != 0 && i + 1 < steps.len() {
                    continue;
                }
                // One filling in eight, one resource's free capacity differs.
                let mut free0 = caps0.clone();
                let (r, c, when) = other[ids.len() % other.len()];
                if when == 0 {
                    free0[r] = f64::from(c) * 1e8 / 7.0;
                }
                let a = report_of(|f, j, c| fast.changes(f, j, c), &free0);
                let b = report_of(|f, j, c| slow.changes(f, j, c), &free0);
                prop_assert_eq!(a, b);
                prop_assert_eq!(fast.len(), slow.len());
            }
        }
    }
}
