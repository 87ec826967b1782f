//! Restarting [`FairClasses`]'s filling from the first round an event can change instead of
//! from zero.
//!
//! A filling is a sequence of rounds; the last one's is kept ([`Log`]): each round's level,
//! increment and the resource that gave it, each resource's free capacity and unfrozen flow
//! count at the start of every round it took part in, the round at which each class froze.
//! Between two fillings flows come and go; a class whose flow count changed (or that came
//! or went) is *changed*, and so is every resource it crosses, and every resource whose
//! given free capacity differs. A round of the last filling is also a round of the new one,
//! bit for bit, while no changed resource could alter it: none gives the round a smaller
//! increment, saturates at it, or gave its increment or left the unfrozen set at it
//! ([`Log::check`] replays each changed resource over the logged rounds with its new counts).
//! Rounds before the first such round `k` are the same, so the new filling takes the state
//! at the start of round `k` from the log (the unchanged resources' snapshots, the changed
//! ones' replays, the classes frozen before `k`) and fills on from there: the same
//! arithmetic in the same order as a filling from zero, so the same rates, bit for bit (the
//! reference proptests).
//!
//! Measured on the whole FB2010 trace (TensorFlow's order, 52,008 events): see
//! [`FairClasses`]'s docs.

use super::{Entry, FairClasses, NONE, TOL};

/// A resource's free capacity and unfrozen flows at the start of a round.
#[derive(Clone, Copy)]
pub(super) struct Snap {
    /// Free capacity, bits/s.
    pub(super) free: f64,
    /// Unfrozen flows crossing it.
    pub(super) cnt: usize,
}

/// The last filling, and what changed since.
#[derive(Default)]
pub(super) struct Log {
    /// Parallel to `FairClasses::live`: the round at which the class froze in the last
    /// filling (`NONE` when it changed since or is new), and its flow count then (`NONE`:
    /// new since).
    pub(super) froze: Vec<u32>,
    fsize: Vec<u32>,
    /// Per round: the live classes, unchanged since, that froze at it.
    pub(super) nfroze: Vec<u32>,
    /// The classes that gained or lost flows since the last filling, once each, and per
    /// class whether it is in.
    touched: Vec<u32>,
    touched_in: Vec<bool>,
    /// The changed resources, once each, and per resource whether it is in.
    dres: Vec<u32>,
    dres_in: Vec<bool>,
    /// Per resource: its free capacity given to the last filling, the round after which it
    /// had no unfrozen flow (`NONE`: unused then), its free capacity left, and its state at
    /// the start of each round up to then.
    free_in: Vec<f64>,
    pub(super) exit: Vec<u32>,
    pub(super) free_out: Vec<f64>,
    pub(super) hist: Vec<Vec<Snap>>,
    /// Per round: the level at its start (one more: the end), the increment, and a resource
    /// that gave it.
    pub(super) rlevel: Vec<f64>,
    pub(super) rinc: Vec<f64>,
    pub(super) rarg: Vec<u32>,
    /// Whether the rounds describe the last filling (not before the first, nor after one
    /// that ended in the numerical corner).
    pub(super) valid: bool,
    /// Scratch, zero between uses: per round, the flows of one resource frozen at it.
    dec: Vec<usize>,
    /// Tests: the round the last filling restarted from.
    #[cfg(test)]
    pub(super) restarted_at: u32,
}

/// Where a filling starts: its first round, the level then, and the classes unfrozen.
pub(super) struct Start {
    pub(super) round: u32,
    pub(super) level: f64,
    pub(super) left: usize,
}

impl Log {
    /// Makes resource `r`'s entries exist. O(1) amortised.
    pub(super) fn ensure_resource(&mut self, r: usize) {
        if self.exit.len() <= r {
            self.exit.resize(r + 1, NONE);
            self.free_in.resize(r + 1, 0.0);
            self.free_out.resize(r + 1, 0.0);
            self.dres_in.resize(r + 1, false);
            self.hist.resize_with(r + 1, Vec::new);
        }
    }

    /// Class `c` gains or loses a flow. O(1) amortised.
    pub(super) fn touch(&mut self, c: usize) {
        if self.touched_in.len() <= c {
            self.touched_in.resize(c + 1, false);
        }
        if !self.touched_in[c] {
            self.touched_in[c] = true;
            self.touched.push(c as u32);
        }
    }

    /// A class is appended to `live`. O(1) amortised.
    pub(super) fn went_live(&mut self) {
        self.froze.push(NONE);
        self.fsize.push(NONE);
    }

    /// The class at live position `p` leaves (the last one moves into its place). O(1).
    pub(super) fn left_live(&mut self, p: usize) {
        let f = self.froze[p];
        if self.valid && f != NONE {
            self.nfroze[f as usize] -= 1;
        }
        self.froze.swap_remove(p);
        self.fsize.swap_remove(p);
    }

    /// Resource `r` changed.
    fn mark(&mut self, r: u32) {
        if !self.dres_in[r as usize] {
            self.dres_in[r as usize] = true;
            self.dres.push(r);
        }
    }

    /// Adds to `dec[f]` the flows of each class of `list` (a resource's) that froze at a
    /// round `f < k`.
    fn scatter(&mut self, list: &[Entry], k: usize) {
        if self.dec.len() < k {
            self.dec.resize(k, 0);
        }
        for e in list {
            let f = self.froze[e.p as usize] as usize;
            if f < k {
                self.dec[f] += e.size as usize;
            }
        }
    }

    /// The first round before `k` that changed resource `r` can change, `k` if none: `r`
    /// starts with `free0` free and `load` flows (of which those of the unchanged classes of
    /// `list`, its classes, freeze when they did). O(|list| + k).
    fn check(&mut self, r: usize, k: u32, free0: f64, load: usize, list: &[Entry]) -> u32 {
        // It left the unfrozen set at `exit` (saturated, or its classes frozen elsewhere).
        let kk = k.min(self.exit[r]) as usize;
        if load == 0 {
            // Gone: it matters where it gave the increment.
            let at = self.rarg[..kk].iter().position(|&a| a as usize == r);
            return at.unwrap_or(kk) as u32;
        }
        self.scatter(list, kk);
        let (mut c, mut f) = (load, free0);
        let mut out = kk;
        for i in 0..kk {
            if self.rarg[i] as usize == r {
                out = i;
                break;
            }
            if c > 0 {
                let x = f.max(0.0) / c as f64;
                // A smaller increment, or saturating: the round changes.
                if x < self.rinc[i] {
                    out = i;
                    break;
                }
                f -= self.rinc[i] * c as f64;
                if f <= TOL * (1.0 + self.rlevel[i + 1]) {
                    out = i;
                    break;
                }
            }
            c -= self.dec[i];
        }
        self.dec[..kk].fill(0);
        out as u32
    }

    /// Replays changed resource `r` over rounds `0..k` (which it does not change): rewrites
    /// its snapshots, sets its free capacity, and its unfrozen flows and place in `act` when
    /// it has some at round `k`, else the round it left. O(|list| + k).
    #[allow(clippy::too_many_arguments)]
    fn replay(
        &mut self,
        r: usize,
        k: usize,
        load: usize,
        list: &[Entry],
        free: &mut [f64],
        cnt: &mut [usize],
        act: &mut Vec<u32>,
    ) {
        self.hist[r].clear();
        if load == 0 {
            self.exit[r] = NONE;
            return;
        }
        self.scatter(list, k);
        let (mut c, mut f) = (load, free[r]);
        let mut exit = NONE;
        for i in 0..k {
            if c == 0 {
                break;
            }
            self.hist[r].push(Snap { free: f, cnt: c });
            f -= self.rinc[i] * c as f64;
            c -= self.dec[i];
            if c == 0 {
                exit = i as u32;
            }
        }
        self.dec[..k].fill(0);
        free[r] = f;
        if c > 0 {
            cnt[r] = c;
            act.push(r as u32);
        } else {
            self.exit[r] = exit;
        }
    }

    /// Forgets the rounds from `k` on.
    fn truncate(&mut self, k: usize) {
        self.rlevel.truncate(k);
        self.rinc.truncate(k);
        self.rarg.truncate(k);
        self.nfroze.truncate(k);
    }
}

impl FairClasses {
    /// Sets up the filling at the first round this one can change (see the module's docs):
    /// the unfrozen resources `act` with their free capacity and unfrozen flows `cnt`, the
    /// resources that left before with their free capacity left, and the frozen classes;
    /// `free` holds the given free capacities.
    ///
    /// # Complexity
    /// O(C · h + L + K + Σ_{r changed} (|on_r| + k)) for C changed classes, L resources in
    /// use and K live classes.
    pub(super) fn restart(&mut self, free: &mut [f64]) -> Start {
        let Self {
            classes,
            hops,
            live,
            live_pos,
            load,
            on,
            used,
            cnt,
            act,
            frozen,
            log,
            ..
        } = self;
        let k_live = live.len();
        // The changed classes and the resources they cross.
        let mut dirty = 0usize;
        for t in 0..log.touched.len() {
            let c = log.touched[t] as usize;
            log.touched_in[c] = false;
            let cl = &classes[c];
            let p = live_pos[c];
            if p != NONE {
                let p = p as usize;
                let n = cl.members.len() as u32;
                if log.fsize[p] == n {
                    continue;
                }
                log.fsize[p] = n;
                let f = log.froze[p];
                if f != NONE {
                    if log.valid {
                        log.nfroze[f as usize] -= 1;
                    }
                    log.froze[p] = NONE;
                }
                dirty += 1;
            }
            for &r in &hops[cl.start as usize..(cl.start + cl.len) as usize] {
                log.mark(r);
            }
        }
        log.touched.clear();
        // The resources given another free capacity.
        for &r in used.iter() {
            let r = r as usize;
            if free[r].to_bits() != log.free_in[r].to_bits() {
                log.mark(r as u32);
            }
            log.free_in[r] = free[r];
        }
        // The first round that can change.
        let mut k = if log.valid { log.rinc.len() as u32 } else { 0 };
        if k > 0 && dirty == 0 {
            // Only classes frozen last time: it ends after the last round one of them froze.
            let top = log.nfroze.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
            k = k.min(top as u32);
        }
        for d in 0..log.dres.len() {
            if k == 0 {
                break;
            }
            let r = log.dres[d] as usize;
            k = log.check(r, k, free[r], load[r], &on[r]);
        }
        #[cfg(test)]
        {
            log.restarted_at = k;
        }
        act.clear();
        frozen.clear();
        frozen.resize(k_live.div_ceil(64), 0);
        let ku = k as usize;
        // The level at the start of round k (the last filling logged one more than rounds).
        let level = if k > 0 { log.rlevel[ku] } else { 0.0 };
        log.truncate(ku);
        if k == 0 {
            for &r in used.iter() {
                cnt[r as usize] = load[r as usize];
                log.hist[r as usize].clear();
                act.push(r);
            }
            for &r in &log.dres {
                log.dres_in[r as usize] = false;
                if load[r as usize] == 0 {
                    log.exit[r as usize] = NONE;
                    log.hist[r as usize].clear();
                }
            }
            log.dres.clear();
            self.kept.clear();
            self.kept.resize(frozen.len(), 0);
            return Start {
                round: 0,
                level: 0.0,
                left: k_live,
            };
        }
        // The unchanged resources: unfrozen ones as they were at round k, the others as
        // they ended.
        for &r in used.iter() {
            let r = r as usize;
            if log.dres_in[r] {
                continue;
            }
            if log.exit[r] < k {
                free[r] = log.free_out[r];
            } else {
                let s = log.hist[r][ku];
                log.hist[r].truncate(ku);
                free[r] = s.free;
                cnt[r] = s.cnt;
                act.push(r as u32);
            }
        }
        for d in 0..log.dres.len() {
            let r = log.dres[d] as usize;
            log.dres_in[r] = false;
            log.replay(r, ku, load[r], &on[r], free, cnt, act);
        }
        log.dres.clear();
        // The classes frozen before round k.
        // A word at a time (a store per class was a third of the filling's time).
        let mut left = k_live;
        for (w, chunk) in frozen.iter_mut().zip(log.froze.chunks(64)) {
            let mut word = 0u64;
            for (i, &f) in chunk.iter().enumerate() {
                word |= u64::from(f < k) << i;
            }
            *w = word;
            left -= word.count_ones() as usize;
        }
        self.kept.clear();
        self.kept.extend_from_slice(frozen);
        Start {
            round: k,
            level,
            left,
        }
    }
}
