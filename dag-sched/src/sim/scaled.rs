//! The coflow data plane of Sincronia and Varys at trace size, incrementally: the same MADD
//! rates and greedy leftover as the dense pass over every active flow at every event (kept
//! for the tests, `coflow`), without reading every active flow at every event.
//!
//! MADD gives each flow of a served coflow `remaining / Γ`, so between two events all the
//! flows of a coflow shrink by one common factor, and a starved coflow's flows do not move.
//! Each flow therefore keeps its bits left as `b · S`: a base `b` of its own times its
//! coflow's scale `S`, which falls linearly at `σ = S / Γ` per second while the coflow is
//! served. Per coflow and resource the sum of the bases gives MADD's load (`S · Σ b`), so
//! `Γ`, the rates and the free capacity left come from the coflow's resources alone.
//! Work conservation (a greedy extra in rank order, each flow up to the least free capacity
//! on its route) zeroes at least one resource per positive grant, so at most one flow per
//! resource gets one at an event; those flows alone are advanced and re-based at the next
//! event. The policy advances its own flows
//! ([`RatePolicy::advance`]): the engine sees no rate
//! changes, only the flows that end.
//!
//! The greedy pass reads a coflow's flows in `tf_rank` order, eight at a time against a
//! byte per resource (open or not), until none of its first or last resources is open (a
//! count from bit words per coflow, [`bits`], kept as flows come and go, as is whether a
//! coflow crosses a resource without free capacity: recounting them per resource at every
//! event was a pass over about 200 resources per coflow); when it has read, since its last
//! grant, more than twice as many flows as there are open (first, last) pairs, it takes the
//! open two-resource routes' first flows instead. On the whole FB2010 trace it grants about
//! 200 extras per event (Varys). Each coflow keeps what its last scan found ([`Memo`]):
//! while nothing is open that was closed at the same point of that scan, the flows up to its
//! next grant are skipped unread; while one to [`JUMP_MAX`] such resources are open (one on
//! average), only a flow starting or ending at one of them can have both ends open there,
//! and the scan goes from one such flow to the next ([`EndIndex`]). On the whole trace, of
//! the 9.2 billion flow positions Varys's scans cover, 4.60 billion are skipped, 4.38
//! billion jumped over (75.6 million jumps) and 0.21 billion read (about 410 an event, from
//! about 5,600 before the jumps), and 424,037 passes go by the routes.
//! Measured back to back on the whole trace: the memo took Sincronia and Varys from 11.86
//! and 11.85 s to 10.59 and 10.70 s (load 0.5-1.0); the bit words, the jumps and smaller
//! changes (minima by comparison, each flow's rank in its entry) to 8.2 and 8.3 s (load 1.0),
//! then not counting the flows jumped over as read in vain (towards the routes) to 7.3 s
//! (load 1.7).
//!
//! Routes of more than two resources (a fat tree's 4 and 6 links) are blocked mostly in
//! their middle (the oversubscribed aggregation links), which a flow's first and last
//! resources do not show. There a flow's `ends` are two resources of its route, not
//! necessarily its first and last: when the scan reads such a flow and finds it blocked,
//! a resource of its route without free capacity becomes the first of its `ends` (the old
//! first the second; kept in the flow's state across re-sorts), so that the eight-wide
//! filter reads where it was blocked (exact: a flow with a closed resource takes nothing).
//! Such a coflow still neither jumps nor goes by the routes. Jumps over every resource of
//! the longer routes (a third [`EndIndex`], of the resources between the `ends`) are exact
//! too and were tried first: alone they took Sincronia on the first 100 FB2010 coflows on
//! the 2:1 fat tree from 5.07 to 1.87 s, its scans of coflows with longer routes reading
//! 33.6 million flows past the filter, 5.2 million with the moved `ends` and 1.2 million
//! once these were kept across re-sorts; but with the moved `ends` the jumps cost more than
//! they skip (most flows cross a reopened aggregation link): whole trace on the fat tree,
//! 43.8 and 43.8 s (Sincronia, Varys; with jumps, and filtering the next 1,024 positions
//! after a jump of under 64) against 35.9 and 36.5 s without them (load 1.0-1.2, back to
//! back).

//! Per event: O(J · R / 64 + Σ_s P_s + X · h + G + E) for J coflows over R resources, the
//! served coflows' resources P_s, X greedy recipients of h resources, G flows read by the
//! greedy pass and E end-index entries its jumps pass (plus S · D route look-ups where it
//! goes by the routes, for S open first and D open last resources), plus O(n_c) for a
//! coflow of n_c flows when one of them comes within rounding of its end before the rest;
//! O(F · h + J log J) more when a coflow arrives or completes (the order is recomputed from
//! every flow's bits left, as the dense pass did), O(n_c log n_c) to re-sort a coflow's n_c
//! flows after flows were released into it, and O(n_c + Σ h + R) to index them at its
//! first jump after that (Σ h resources on its longer routes).

use super::engine::RatePolicy;
use super::engine::{Change, FlowEvent, Sim};

mod bits;
mod ends;

use ends::{Cursors, EndIndex};

/// The most resources open now that were closed at the same point of a coflow's last greedy
/// scan for which the scan goes from one flow starting or ending at one of them to the next
/// ([`EndIndex`]) instead of reading every flow (on the whole FB2010 trace there was one
/// such resource, on average 1.06, where the scan read in the memo's range).
const JUMP_MAX: usize = 4;

/// A coflow order: `(sim, jobs, demands)` → indices into `jobs` first to last, as the
/// dense pass takes it (`jobs`: the jobs with active flows, ascending;
/// `demands`: their per-resource remaining demand in seconds at full capacity).
pub(super) type Order = fn(&Sim<'_>, &[usize], &[Vec<(usize, f64)>]) -> Vec<usize>;

/// One coflow (a job's active flows).
#[derive(Default)]
struct Coflow {
    /// Active flow ids in release order (ended ones dropped when the order is recomputed or
    /// when they pass a quarter of the live ones).
    ids: Vec<usize>,
    /// The same by `tf_rank` (the greedy order inside the coflow), with their routes: read
    /// in order by the greedy pass (through the flows' ids it was a cache miss a flow, 84 %
    /// of a Varys run on the first 200 FB2010 coflows).
    by_rank: Vec<Entry>,
    /// Whether `by_rank` is sorted (flows released since are appended) and `ends` is of its
    /// entries.
    sorted: bool,
    /// Per entry of `by_rank`: its flow's first and last resources (on a longer route, two
    /// resources of it: see [`FlowState::ends`]), or the number of resources (a slot never
    /// open) once it ended; empty when that does not fit in 16 bits. The greedy scan reads
    /// 4 bytes a flow, eight flows at a time without a branch, and looks closer only at a
    /// flow whose two ends are open (first 200 FB2010 coflows, Varys: 4.0 -> 3.4 s user,
    /// and 2.3 s once ended flows no longer looked open).
    ends: Vec<[u16; 2]>,
    /// Active flows.
    live: usize,
    /// Ended flows still in `ids` and `by_rank`.
    dead: usize,
    /// The resources its active flows cross (any order).
    ports: Vec<u32>,
    /// Per resource: the sum of the bases of its active flows crossing it, and how many.
    base: Vec<f64>,
    count: Vec<u32>,
    /// Per resource: how many of its active flows start (first resource) or end (last
    /// resource) there: the greedy scan stops when none of these has free capacity.
    first: Vec<u32>,
    last: Vec<u32>,
    /// The same as sets ([`bits`]): the resources its active flows cross, and those where
    /// one starts or ends (a count above 0).
    port_bits: Vec<u64>,
    first_bits: Vec<u64>,
    last_bits: Vec<u64>,
    /// The scale `S` at the last event, and its fall per second in the current step.
    scale: f64,
    sigma: f64,
    /// At least the largest `size / b` of its active flows: a flow whose bits left (`b · S`)
    /// fall within 1e-9 of its size at an event ends there, as the dense step rounds, and
    /// none does while `S` stays above `1e-9 · near`. (A heap of them, re-keyed at every
    /// greedy grant, was 11 % of a run.)
    near: f64,
    /// Whether the job has a compute task (its usage is recorded per window).
    dag: bool,
    /// Its two-resource routes (the big switch's (egress, ingress) pairs), each with its
    /// flows by `tf_rank`.
    pairs: Vec<Pair>,
    /// The route of each (first, last) resource pair: per resource its row (as a first
    /// resource) and column (as a last one), `u32::MAX` for none, the rows' resources and
    /// the columns' in order, and per row the route of each column (`u32::MAX`: none). A
    /// hash map of (first, last) keys took twice as long on the whole FB2010 trace.
    row_of: Vec<u32>,
    col_of: Vec<u32>,
    rows: Vec<u32>,
    cols: Vec<u32>,
    grid: Vec<Vec<u32>>,
    /// Active flows whose route has another length than two (the greedy pass then reads
    /// every flow, never going by the routes).
    long: usize,
    /// What its last greedy scan found, for the next to skip what is still read in vain.
    memo: Memo,
    /// The positions in `by_rank` by first and by last resource (built with `ends`; used
    /// while the coflow has no longer route).
    at_ends: [EndIndex; 2],
}

/// What a coflow's last greedy scan (in `by_rank` order) found: the resources open when it
/// began, each grant's position and the resources the grant closed, and how far the scan
/// went. Between two of its grants every flow had a closed resource under what was open
/// then; resources only close during a pass and flows only end, so while no resource of
/// the coflow is open now that was closed at the same point of the last scan, the flows up
/// to its next grant still have one and are skipped unread. (The grants mostly repeat from
/// one event to the next: on the whole FB2010 trace the scan read about 60 flows a grant.)
#[derive(Default)]
struct Memo {
    /// Whether it describes the current `by_rank` positions (none was re-sorted, released
    /// or dropped since).
    valid: bool,
    /// The resources with free capacity when the scan began ([`bits`]; those of the coflow
    /// are the ones read).
    start_open: Vec<u64>,
    /// The grants in scan order: (position, a resource it closed, or `u32::MAX` for none),
    /// one entry per resource closed.
    grants: Vec<(u32, u32)>,
    /// The position the scan reached (past it, nothing is known).
    end: u32,
}

/// A flow in a coflow's greedy order: its id and, on two resources, its route (`a` is
/// `u32::MAX` otherwise).
#[derive(Clone, Copy)]
struct Entry {
    a: u32,
    z: u32,
    id: u32,
    /// Its `tf_rank`, the sort key (through the flows' states the sort was 5 % of a Varys run
    /// on the whole FB2010 trace).
    rank: u32,
}

/// The flows of one coflow on one two-resource route, by `tf_rank` (ended ones skipped).
#[derive(Default)]
struct Pair {
    ids: Vec<usize>,
    /// Position of the first flow not known to have ended.
    head: usize,
}

/// Per flow: its base, its greedy extra rate in the current step and whether it is active.
///
/// Also its `tf_rank` and, for a two-resource route, the route (`u32::MAX` otherwise): what
/// the greedy pass reads, without the engine's flow.
#[derive(Default, Clone, Copy)]
struct FlowState {
    b: f64,
    extra: f64,
    alive: bool,
    rank: u32,
    route: [u32; 2],
    /// Its job and size (what the step reads of a greedy recipient).
    job: u32,
    size: f64,
    /// Its position in its coflow's `by_rank` (valid while that is sorted).
    slot: u32,
    /// On a longer route: two resources of it for its coflow's [`Coflow::ends`] (its first
    /// and last at first, then the last resources found without free capacity when the
    /// greedy scan read it), kept when the coflow's flows are re-sorted.
    ends: [u16; 2],
}

/// Sincronia's or Varys's state: the coflows, their order, the current step's greedy
/// recipients.
pub(super) struct Scaled {
    order_fn: Order,
    coflows: Vec<Coflow>,
    flows: Vec<FlowState>,
    /// The jobs with active flows, in rank order (recomputed when a coflow arrives or
    /// completes).
    order: Vec<usize>,
    /// Whether a coflow arrived or completed since the order was computed.
    dirty: bool,
    /// Coflows of DAG jobs with active flows (their usage is recorded per window).
    dag_live: usize,
    /// The flows with a positive extra in the current step.
    extras: Vec<usize>,
    /// Their extras, in the same order (written into their states once the pass is over).
    heads: Vec<f64>,
    /// When the current step began.
    t0: f64,
    /// The current step's per-resource rates and open resources.
    pass: Pass,
    /// Buffers: per-resource DAG rates, demand sums.
    port: Vec<(f64, f64)>,
    acc: Vec<f64>,
    mark: Vec<bool>,
    /// Buffers of the greedy pass over a coflow's routes: its open first and last
    /// resources, the candidate flows (`tf_rank`, id).
    open_s: Vec<u32>,
    open_d: Vec<u32>,
    cands: Vec<(u32, usize)>,
}

impl Scaled {
    /// For a run over `jobs` jobs, ordering coflows by `order_fn`.
    pub(super) fn new(jobs: usize, order_fn: Order) -> Self {
        Self {
            order_fn,
            coflows: (0..jobs).map(|_| Coflow::default()).collect(),
            flows: Vec::new(),
            order: Vec::new(),
            dirty: true,
            dag_live: 0,
            extras: Vec::new(),
            heads: Vec::new(),
            t0: 0.0,
            pass: Pass::default(),
            port: Vec::new(),
            acc: Vec::new(),
            mark: Vec::new(),
            open_s: Vec::new(),
            open_d: Vec::new(),
            cands: Vec::new(),
        }
    }

    /// Flow `id` was released: it joins its coflow with base `size / S`.
    ///
    /// # Complexity
    /// O(h + log n) for h resources and n flows in the coflow.
    fn start(&mut self, sim: &Sim<'_>, id: usize) {
        let resources = sim.cluster.capacities().len();
        let f = &sim.flows[id];
        if self.flows.len() <= id {
            self.flows.resize(id + 1, FlowState::default());
        }
        let c = &mut self.coflows[f.job];
        if c.base.len() != resources {
            c.base = vec![0.0; resources];
            c.count = vec![0; resources];
            c.first = vec![0; resources];
            c.last = vec![0; resources];
            c.row_of = vec![u32::MAX; resources];
            c.col_of = vec![u32::MAX; resources];
            let words = bits::words(resources);
            c.port_bits = vec![0; words];
            c.first_bits = vec![0; words];
            c.last_bits = vec![0; words];
            c.memo.start_open = vec![0; words];
            c.dag = sim.st[f.job].dag;
        }
        if c.live == 0 {
            c.scale = 1.0;
            c.sigma = 0.0;
            self.dirty = true;
            self.dag_live += usize::from(c.dag);
        }
        let b = f.remaining / c.scale;
        let rank = sim.st[f.job].tf_rank[f.node.index()];
        let st = &mut self.flows[id];
        st.b = b;
        st.extra = 0.0;
        st.alive = true;
        st.rank = rank;
        st.job = f.job as u32;
        st.size = f.size;
        st.route = [u32::MAX; 2];
        let small = |r: &u32| u16::try_from(*r).unwrap_or(u16::MAX);
        st.ends = [
            f.path.first().map_or(u16::MAX, small),
            f.path.last().map_or(u16::MAX, small),
        ];
        if let [a, z] = f.path[..] {
            st.route = [a, z];
            if c.row_of[a as usize] == u32::MAX {
                c.row_of[a as usize] = c.rows.len() as u32;
                c.rows.push(a);
                c.grid.push(Vec::new());
            }
            if c.col_of[z as usize] == u32::MAX {
                c.col_of[z as usize] = c.cols.len() as u32;
                c.cols.push(z);
            }
            let row = &mut c.grid[c.row_of[a as usize] as usize];
            let col = c.col_of[z as usize] as usize;
            if row.len() <= col {
                row.resize(col + 1, u32::MAX);
            }
            if row[col] == u32::MAX {
                row[col] = c.pairs.len() as u32;
                c.pairs.push(Pair::default());
            }
            let pi = row[col] as usize;
            let pair = &mut c.pairs[pi];
            let flows = &self.flows;
            let at = pair.head + pair.ids[pair.head..].partition_point(|&i| flows[i].rank < rank);
            pair.ids.insert(at, id);
        } else {
            c.long += 1;
        }
        c.near = c.near.max(f.size / b);
        let route = self.flows[id].route;
        c.ids.push(id);
        c.by_rank.push(Entry {
            a: route[0],
            z: route[1],
            id: id as u32,
            rank,
        });
        c.sorted = false;
        c.live += 1;
        for &p in &f.path {
            let p = p as usize;
            if c.count[p] == 0 {
                c.ports.push(p as u32);
                bits::insert(&mut c.port_bits, p);
            }
            c.count[p] += 1;
            c.base[p] += b;
        }
        if let (Some(&a), Some(&z)) = (f.path.first(), f.path.last()) {
            let (a, z) = (a as usize, z as usize);
            c.first[a] += 1;
            c.last[z] += 1;
            bits::insert(&mut c.first_bits, a);
            bits::insert(&mut c.last_bits, z);
        }
    }

    /// Writes flow `id`'s bits left (`rem`) into the engine's flow, counting what it sent.
    fn write(sim: &mut Sim<'_>, id: usize, rem: f64) {
        let f = &mut sim.flows[id];
        f.sent += f.remaining - rem;
        f.remaining = rem;
    }

    /// Flow `id` delivered its last bit: it leaves its coflow (and the coflow completes
    /// with its last flow).
    ///
    /// # Complexity
    /// O(h · P) for h resources and the coflow's P resources (a resource leaving the list).
    fn end(&mut self, sim: &mut Sim<'_>, id: usize, done: &mut Vec<usize>) {
        let f = &mut sim.flows[id];
        f.sent += f.remaining;
        f.remaining = 0.0;
        let st = &mut self.flows[id];
        st.alive = false;
        st.extra = 0.0;
        let b = st.b;
        let slot = st.slot as usize;
        done.push(id);
        let c = &mut self.coflows[f.job];
        c.live -= 1;
        c.dead += 1;
        if c.sorted
            && let Some(e) = c.ends.get_mut(slot)
        {
            // Never open: the scan passes it by without a closer look.
            let dead = sim.cluster.capacities().len() as u16;
            *e = [dead; 2];
        }
        if c.live == 0 {
            self.dirty = true;
            self.dag_live -= usize::from(c.dag);
            Self::clear(c);
            return;
        }
        for &p in &f.path {
            let p = p as usize;
            c.count[p] -= 1;
            if c.count[p] == 0 {
                c.base[p] = 0.0;
                bits::remove(&mut c.port_bits, p);
                if let Some(k) = c.ports.iter().position(|&q| q as usize == p) {
                    c.ports.swap_remove(k);
                }
            } else {
                c.base[p] -= b;
            }
        }
        if let (Some(&a), Some(&z)) = (f.path.first(), f.path.last()) {
            let (a, z) = (a as usize, z as usize);
            c.first[a] -= 1;
            c.last[z] -= 1;
            if c.first[a] == 0 {
                bits::remove(&mut c.first_bits, a);
            }
            if c.last[z] == 0 {
                bits::remove(&mut c.last_bits, z);
            }
        }
        if f.path.len() != 2 {
            c.long -= 1;
        }
        // (Dropped at a quarter of the live ones rather than at as many: whole FB2010
        // trace, Varys 12.34 and 12.33 -> 11.99 and 12.03 s user, back to back at load 2.2.)
        if 4 * c.dead > c.live {
            let flows = &self.flows;
            c.ids.retain(|&i| flows[i].alive);
            c.by_rank.retain(|e| flows[e.id as usize].alive);
            c.sorted = false;
            c.dead = 0;
        }
    }

    /// Empties coflow `c` (its last flow ended).
    fn clear(c: &mut Coflow) {
        for &p in &c.ports {
            let p = p as usize;
            c.base[p] = 0.0;
            c.count[p] = 0;
            c.first[p] = 0;
            c.last[p] = 0;
        }
        c.port_bits.fill(0);
        c.first_bits.fill(0);
        c.last_bits.fill(0);
        c.ports.clear();
        c.ids.clear();
        c.by_rank.clear();
        c.sorted = false;
        c.near = 0.0;
        c.dead = 0;
        c.sigma = 0.0;
        c.pairs.clear();
        for &a in &c.rows {
            c.row_of[a as usize] = u32::MAX;
        }
        for &z in &c.cols {
            c.col_of[z as usize] = u32::MAX;
        }
        c.rows.clear();
        c.cols.clear();
        c.grid.clear();
        c.long = 0;
    }

    /// Recomputes the order: writes every active flow's bits left, re-bases each coflow at
    /// scale 1 (its per-resource sums afresh, in release order), and ranks the coflows by
    /// `order_fn` on their per-resource demands.
    ///
    /// # Complexity
    /// O(F · h + J log J) plus the order's, for F active flows of h resources over J jobs.
    fn rank(&mut self, sim: &mut Sim<'_>) {
        let cap = sim.cluster.capacities();
        let mut jobs: Vec<usize> = (0..self.coflows.len())
            .filter(|&j| self.coflows[j].live > 0)
            .collect();
        jobs.sort_unstable();
        let mut demands = Vec::with_capacity(jobs.len());
        self.acc.resize(cap.len(), 0.0);
        self.mark.resize(cap.len(), false);
        for &j in &jobs {
            let c = &mut self.coflows[j];
            let flows = &mut self.flows;
            c.ids.retain(|&i| flows[i].alive);
            c.by_rank.retain(|e| flows[e.id as usize].alive);
            c.sorted = false;
            c.dead = 0;
            c.near = 0.0;
            for &p in &c.ports {
                c.base[p as usize] = 0.0;
            }
            let mut d = Vec::new();
            for &id in &c.ids {
                let rem = flows[id].b * c.scale;
                Self::write(sim, id, rem);
                let st = &mut flows[id];
                st.b = rem;
                let f = &sim.flows[id];
                c.near = c.near.max(f.size / rem);
                for &r in &f.path {
                    let p = r as usize;
                    c.base[p] += rem;
                    if !self.mark[p] {
                        self.mark[p] = true;
                        d.push(p);
                    }
                    self.acc[p] += rem / cap[p];
                }
            }
            c.scale = 1.0;
            demands.push(
                d.into_iter()
                    .map(|p| {
                        self.mark[p] = false;
                        (p, std::mem::take(&mut self.acc[p]))
                    })
                    .collect::<Vec<_>>(),
            );
        }
        let o = (self.order_fn)(sim, &jobs, &demands);
        self.order.clear();
        self.order.extend(o.iter().map(|&k| jobs[k]));
        self.dirty = false;
    }

    /// The current step's rates from the free capacity `free` (decreased by them): MADD
    /// per coflow in rank order, then the greedy extras; records the utilisation maximum
    /// and returns the next predicted finish.
    fn allocate(&mut self, sim: &mut Sim<'_>, free: &mut [f64]) -> f64 {
        let now = sim.now;
        self.t0 = now;
        for &id in &self.extras {
            self.flows[id].extra = 0.0;
        }
        self.extras.clear();
        self.heads.clear();
        self.pass.util.resize(free.len(), 0.0);
        self.pass.touched.clear();
        // The resources with free capacity, kept through the pass.
        bits::set_positive(&mut self.pass.open_bits, free);
        let mut next = f64::INFINITY;
        for &j in &self.order {
            let c = &mut self.coflows[j];
            c.sigma = 0.0;
            // Starved: a resource without free capacity (asked of the sets at once).
            let starved = bits::any_outside(&c.port_bits, &self.pass.open_bits);
            debug_assert_eq!(
                starved,
                c.ports.iter().any(|&p| free[p as usize] <= 0.0),
                "starved by the sets, and by the resources"
            );
            if starved {
                continue;
            }
            // Γ / S: the largest base sum over free capacity; starved (0) when a resource
            // has none. One pass, its maximum by comparison (`f64::max`'s NaN handling in
            // the chain of a fold was 6 % of a run; no ratio here is NaN).
            let mut m = 0.0f64;
            for &p in &c.ports {
                let f = free[p as usize];
                if f <= 0.0 {
                    m = 0.0;
                    break;
                }
                let r = c.base[p as usize] / f;
                if r > m {
                    m = r;
                }
            }
            if m <= 0.0 {
                continue;
            }
            let sigma = 1.0 / m;
            c.sigma = sigma;
            next = next.min(now + c.scale / sigma);
            for &p in &c.ports {
                let p = p as usize;
                let x = sigma * c.base[p];
                free[p] = (free[p] - x).max(0.0);
                if free[p] <= 0.0 {
                    bits::remove(&mut self.pass.open_bits, p);
                }
                if self.pass.util[p] == 0.0 {
                    self.pass.touched.push(p as u32);
                }
                self.pass.util[p] += x;
            }
        }
        // Work conservation: strict priority in the same order, a coflow's flows by
        // `tf_rank`, each up to the least free capacity on its route.
        let open_len = free.len().max(usize::from(u16::MAX)) + 1;
        if self.pass.open_now.len() != open_len {
            self.pass.open_now = vec![0; open_len];
        }
        // The resources' flags; those past them (the slot of ended flows' ends) stay 0.
        for (o, &x) in self.pass.open_now.iter_mut().zip(free.iter()) {
            *o = u8::from(x > 0.0);
        }
        for k in 0..self.order.len() {
            let j = self.order[k];
            let c = &self.coflows[j];
            let open_bits = &self.pass.open_bits;
            let mut open = (
                bits::count_both(&c.first_bits, open_bits),
                bits::count_both(&c.last_bits, open_bits),
            );
            #[cfg(debug_assertions)]
            {
                let (mut s, mut d) = (0, 0);
                for &p in &c.ports {
                    let p = p as usize;
                    if free[p] > 0.0 {
                        s += usize::from(c.first[p] > 0);
                        d += usize::from(c.last[p] > 0);
                    }
                }
                debug_assert_eq!(open, (s, d), "open first and last resources, recounted");
            }
            if open.0 == 0 || open.1 == 0 {
                self.coflows[j].memo.valid = false;
                continue;
            }
            // The last scan's memo holds while the positions are the same.
            let use_memo = self.coflows[j].sorted && self.coflows[j].memo.valid;
            if !self.coflows[j].sorted {
                let c = &mut self.coflows[j];
                c.by_rank.sort_unstable_by_key(|e| e.rank);
                c.sorted = true;
                c.ends.clear();
                if free.len() < usize::from(u16::MAX) {
                    // An ended flow's ends are the slot past the resources, never open.
                    let dead = free.len() as u16;
                    let flows = &mut self.flows;
                    c.ends.extend(c.by_rank.iter().enumerate().map(|(k, e)| {
                        let st = &mut flows[e.id as usize];
                        st.slot = k as u32;
                        if !st.alive {
                            return [dead; 2];
                        }
                        if e.a != u32::MAX {
                            return [e.a as u16, e.z as u16];
                        }
                        st.ends
                    }));
                    for (side, index) in c.at_ends.iter_mut().enumerate() {
                        index.build(&c.ends, side, free.len(), &mut self.pass.fill);
                    }
                }
            }
            let n = self.coflows[j].by_rank.len();
            let mut i = 0;
            // Flows read in vain since the last grant.
            let mut missed = 0;
            // The memo: the last scan's resources open at its start become `prev_open`
            // (and this scan's are kept), its grants are `old`, and `extra` counts the
            // resources open now but closed at the same point of the last scan.
            let mut extra = 0usize;
            let (old, old_end) = {
                let c = &mut self.coflows[j];
                let pass = &mut self.pass;
                pass.prev_open.clear();
                if use_memo {
                    // Of the coflow's resources: those open at the last scan's start, and
                    // how many are open now that were not then.
                    pass.prev_open.extend(
                        c.memo
                            .start_open
                            .iter()
                            .zip(&c.port_bits)
                            .map(|(w, m)| w & m),
                    );
                    extra = c
                        .port_bits
                        .iter()
                        .zip(&pass.open_bits)
                        .zip(&c.memo.start_open)
                        .map(|((m, o), w)| (m & o & !w).count_ones() as usize)
                        .sum();
                } else {
                    pass.prev_open.resize(pass.open_bits.len(), 0);
                }
                c.memo.start_open.clear();
                c.memo.start_open.extend_from_slice(&pass.open_bits);
                let old = std::mem::take(&mut c.memo.grants);
                let end = if use_memo { c.memo.end as usize } else { 0 };
                (old, end)
            };
            let mut g = 0usize;
            self.pass.new_grants.clear();
            self.pass.cursors.begin(free.len());
            while open.0 > 0 && open.1 > 0 && i < n {
                // More flows read in vain than twice the open (first, last) pairs: the open
                // routes' first flows instead (none of the flows read so far can take an
                // extra any more: each had a closed resource, or its grant closed one).
                let limit = if self.coflows[j].long == 0 {
                    2 * open.0 * open.1
                } else {
                    usize::MAX
                };
                let c = &self.coflows[j];
                // The next flow whose resources all have free capacity, and that capacity.
                let mut found = None;
                let ends = &c.ends;
                // Every resource number of `ends` indexes it (no bounds checks in the loop).
                let open_now: Option<&[u8; 1 << 16]> = self
                    .pass
                    .open_now
                    .get(..1 << 16)
                    .and_then(|o| o.try_into().ok());
                while i < n && missed <= limit {
                    // The last scan's closings before `i`, then a skip to its next grant
                    // while nothing is open that was closed then.
                    while let Some(&(pos, r)) = old.get(g)
                        && (pos as usize) < i
                    {
                        let r = r as usize;
                        if bits::contains(&self.pass.prev_open, r) {
                            bits::remove(&mut self.pass.prev_open, r);
                            extra += usize::from(free[r] > 0.0);
                        }
                        g += 1;
                    }
                    if extra == 0 && i < old_end {
                        let to = old.get(g).map_or(old_end, |&(pos, _)| pos as usize);
                        if to > i {
                            i = to.min(old_end);
                            continue;
                        }
                    }
                    // A few resources open now that were closed at this point of the last scan
                    // (`E`): until its next grant, a flow with both ends open starts or ends
                    // in `E` (its other resources were open then), so the scan goes to the
                    // next such flow. The flows passed do not count as read in vain (towards
                    // going by the routes): counted, whole FB2010 trace, 8.06 and 8.00 s
                    // (Sincronia, Varys) against 7.28 and 7.33 s, back to back at load 1.7.
                    let mut jumped = false;
                    if use_memo
                        && i < old_end
                        && extra <= JUMP_MAX
                        && c.long == 0
                        && !ends.is_empty()
                    {
                        let to = old
                            .get(g)
                            .map_or(old_end, |&(pos, _)| pos as usize)
                            .min(old_end);
                        if to > i {
                            let mut p = to;
                            #[cfg(debug_assertions)]
                            let mut in_e = 0;
                            let words = self
                                .pass
                                .open_bits
                                .iter()
                                .zip(&c.port_bits)
                                .zip(&self.pass.prev_open);
                            for (w, ((&o, &m), &was)) in words.enumerate() {
                                let mut e = o & m & !was;
                                while e != 0 {
                                    let r = 64 * w + e.trailing_zeros() as usize;
                                    e &= e - 1;
                                    #[cfg(debug_assertions)]
                                    {
                                        in_e += 1;
                                    }
                                    for (side, index) in c.at_ends.iter().enumerate() {
                                        let q = self.pass.cursors.next_at(index, side, r, i as u32);
                                        p = p.min(q as usize);
                                    }
                                }
                            }
                            #[cfg(debug_assertions)]
                            debug_assert_eq!(in_e, extra, "resources open now, closed then");
                            #[cfg(test)]
                            MEMO_JUMPS.with(|n| n.set(n.get() + 1));
                            i = p;
                            if p == to {
                                continue;
                            }
                            jumped = true;
                        }
                    }
                    if !jumped
                        && let (Some(open_now), Some(Ok(chunk))) =
                            (open_now, ends.get(i..i + 8).map(<&[[u16; 2]; 8]>::try_from))
                    {
                        // Eight flows at once: which have both ends open.
                        let mut m = 0u32;
                        for (k, &[a, z]) in chunk.iter().enumerate() {
                            m |=
                                u32::from(open_now[usize::from(a)] & open_now[usize::from(z)]) << k;
                        }
                        let k = m.trailing_zeros() as usize;
                        i += k.min(8);
                        missed += k.min(8);
                        if k >= 8 {
                            continue;
                        }
                    } else if jumped
                        && let (Some(open_now), Some(&[a, z])) = (open_now, ends.get(i))
                        && open_now[usize::from(a)] & open_now[usize::from(z)] == 0
                    {
                        // A flow gone to whose two ends are not both open: passed by from
                        // its `ends` alone (its entry was a cache miss).
                        i += 1;
                        missed += 1;
                        continue;
                    }
                    let e = c.by_rank[i];
                    i += 1;
                    let head = if e.a == u32::MAX {
                        sim.flows[e.id as usize]
                            .path
                            .iter()
                            .fold(f64::INFINITY, |x, &r| x.min(free[r as usize]))
                    } else {
                        least(free[e.a as usize], free[e.z as usize])
                    };
                    // Whether it is active: its `ends` say so, read just now (the flow's
                    // state was a cache miss, 3 % of a Varys run on the whole FB2010 trace).
                    let alive = ends.get(i - 1).map_or_else(
                        || self.flows[e.id as usize].alive,
                        |&[a, _]| usize::from(a) < free.len(),
                    );
                    debug_assert_eq!(alive, self.flows[e.id as usize].alive, "ended by `ends`");
                    if head > 0.0 && alive {
                        found = Some((e, head));
                        break;
                    }
                    if e.a == u32::MAX && alive && !ends.is_empty() {
                        // Blocked on a longer route: a resource without free capacity becomes
                        // the first of its `ends`, which the filter reads from now on.
                        let path = &sim.flows[e.id as usize].path;
                        if let Some(&w) = path.iter().find(|&&r| free[r as usize] <= 0.0) {
                            self.pass.witness.push((i as u32 - 1, w as u16));
                        }
                    }
                    missed += 1;
                }
                // The blocked flows' new `ends` (their positions are behind the scan).
                let c = &mut self.coflows[j];
                for &(q, w) in &self.pass.witness {
                    if let (Some(x), Some(e)) =
                        (c.ends.get_mut(q as usize), c.by_rank.get(q as usize))
                        && x[0] != w
                    {
                        *x = [w, x[0]];
                        self.flows[e.id as usize].ends = *x;
                        #[cfg(test)]
                        WITNESSES.with(|n| n.set(n.get() + 1));
                    }
                }
                self.pass.witness.clear();
                let c = &self.coflows[j];
                let Some((e, head)) = found else {
                    if missed > limit {
                        self.greedy_routes(j, free, &mut open);
                    }
                    break;
                };
                missed = 0;
                let id = e.id as usize;
                let route = [e.a, e.z];
                let path: &[u32] = if e.a == u32::MAX {
                    &sim.flows[id].path
                } else {
                    &route
                };
                self.pass.closed.clear();
                grant(free, &mut self.pass, path, head, c, &mut open);
                let q = (i - 1) as u32;
                if self.pass.closed.is_empty() {
                    self.pass.new_grants.push((q, u32::MAX));
                }
                for &r in &self.pass.closed {
                    self.pass.new_grants.push((q, r));
                    extra -=
                        usize::from(!bits::contains(&self.pass.prev_open, r as usize) && use_memo);
                }
                self.extras.push(id);
                self.heads.push(head);
            }
            let c = &mut self.coflows[j];
            c.memo.valid = true;
            c.memo.end = i as u32;
            c.memo.grants = std::mem::replace(&mut self.pass.new_grants, old);
        }
        // The recipients' rates and predicted finishes, once the pass is over (loads that do
        // not wait on one another: in the scan, 5 % of a Varys run on the whole FB2010 trace).
        for (&id, &head) in self.extras.iter().zip(&self.heads) {
            let st = &mut self.flows[id];
            st.extra = head;
            let c = &self.coflows[st.job as usize];
            let rem = st.b * c.scale;
            next = least(next, now + rem / (st.b * c.sigma + head));
        }
        let cap = sim.cluster.capacities();
        // The maximum in a local, by comparison (through `sim` and `f64::max` it was 4 % of
        // a Varys run on the whole FB2010 trace; a NaN is passed over either way).
        let mut max_util = sim.max_util;
        for &p in &self.pass.touched {
            let p = p as usize;
            let u = self.pass.util[p] / cap[p];
            if u > max_util {
                max_util = u;
            }
            self.pass.util[p] = 0.0;
        }
        sim.max_util = max_util;
        next
    }

    /// The greedy pass over coflow `j`'s open routes (every flow on two resources): the
    /// first active flow of each route whose resources both have free capacity, by
    /// `tf_rank`, each granted the least free capacity of its two resources if both still
    /// have some (a grant closes one, so a route takes at most one). `open` counts the
    /// coflow's first and last resources with free capacity; the recipients join
    /// `extras` and `heads`.
    ///
    /// # Complexity
    /// O(P + S · D + C log C) for the coflow's P resources, S and D open first and last
    /// resources and C candidates.
    fn greedy_routes(&mut self, j: usize, free: &mut [f64], open: &mut (usize, usize)) {
        let c = &mut self.coflows[j];
        self.open_s.clear();
        self.open_d.clear();
        for &p in &c.ports {
            if free[p as usize] > 0.0 {
                if c.first[p as usize] > 0 {
                    self.open_s.push(p);
                }
                if c.last[p as usize] > 0 {
                    self.open_d.push(p);
                }
            }
        }
        self.cands.clear();
        for &a in &self.open_s {
            let Some(row) = c.grid.get(c.row_of[a as usize] as usize) else {
                continue;
            };
            for &z in &self.open_d {
                let pi = row
                    .get(c.col_of[z as usize] as usize)
                    .copied()
                    .unwrap_or(u32::MAX);
                if pi == u32::MAX {
                    continue;
                }
                let pair = &mut c.pairs[pi as usize];
                while pair.head < pair.ids.len() && !self.flows[pair.ids[pair.head]].alive {
                    pair.head += 1;
                }
                if let Some(&id) = pair.ids.get(pair.head) {
                    self.cands.push((self.flows[id].rank, id));
                }
            }
        }
        self.cands.sort_unstable();
        #[cfg(test)]
        ROUTE_PASSES.with(|n| n.set(n.get() + 1));
        let c = &self.coflows[j];
        for &(_, id) in &self.cands {
            let path = self.flows[id].route;
            let head = least(free[path[0] as usize], free[path[1] as usize]);
            if head <= 0.0 {
                continue;
            }
            grant(free, &mut self.pass, &path, head, c, open);
            self.extras.push(id);
            self.heads.push(head);
        }
    }

    /// Moves every flow to `t1`: records the DAG coflows' usage over the step, ends the
    /// flows that finish (pushed onto `done`: a served coflow whose scale runs out, a greedy
    /// recipient whose bits run out, a flow within 1e-9 of its size of its last bit) and
    /// re-bases the greedy recipients.
    pub(super) fn step(&mut self, sim: &mut Sim<'_>, t1: f64, done: &mut Vec<usize>) {
        let t0 = self.t0;
        let dt = t1 - t0;
        self.record_usage(sim, t0, t1);
        // Coflows whose scale runs out end with every flow.
        for k in 0..self.order.len() {
            let j = self.order[k];
            let c = &mut self.coflows[j];
            if c.sigma <= 0.0 || c.live == 0 {
                continue;
            }
            let s1 = c.scale - c.sigma * dt;
            if t0 + c.scale / c.sigma <= t1 || s1 <= 0.0 {
                for &id in &c.ids {
                    let st = &mut self.flows[id];
                    if st.alive {
                        st.alive = false;
                        st.extra = 0.0;
                        let f = &mut sim.flows[id];
                        f.sent += f.remaining;
                        f.remaining = 0.0;
                        done.push(id);
                    }
                }
                c.live = 0;
                Self::clear(c);
                self.dirty = true;
                self.dag_live -= usize::from(c.dag);
            }
        }
        // The greedy recipients: advanced, ended or re-based on the coflow's new scale.
        for k in 0..self.extras.len() {
            let id = self.extras[k];
            let st = self.flows[id];
            if !st.alive {
                continue;
            }
            let j = st.job as usize;
            let c = &self.coflows[j];
            let rem0 = st.b * c.scale;
            let rate = st.b * c.sigma + st.extra;
            let moved = least(rate * dt, rem0);
            let size = st.size;
            let s1 = c.scale - c.sigma * dt;
            if t0 + rem0 / rate <= t1 || rem0 - moved <= 1e-9 * size || s1 <= 0.0 {
                Self::write(sim, id, rem0);
                self.end(sim, id, done);
                continue;
            }
            // Its bits left are written into the engine's flow when it ends or the order is
            // recomputed (what it sent adds up the same).
            let rem = rem0 - moved;
            let b = rem / s1;
            let c = &mut self.coflows[j];
            let route = st.route;
            let path: &[u32] = if route[0] == u32::MAX {
                &sim.flows[id].path
            } else {
                &route
            };
            for &p in path {
                c.base[p as usize] += b - st.b;
            }
            c.near = c.near.max(size / b);
            self.flows[id].b = b;
        }
        // The served coflows' new scales, and their flows within rounding of the end.
        for k in 0..self.order.len() {
            let j = self.order[k];
            let c = &mut self.coflows[j];
            if c.sigma <= 0.0 || c.live == 0 {
                continue;
            }
            let s1 = c.scale - c.sigma * dt;
            c.scale = s1;
            if s1 > 1e-9 * c.near {
                continue;
            }
            // Some flow may be within rounding of its end: every flow is read (rare: near a
            // coflow's end, when its flows have not all ended together).
            let mut ending = std::mem::take(&mut self.cands);
            ending.clear();
            let mut near = 0.0f64;
            for &id in &c.ids {
                let st = &self.flows[id];
                if !st.alive {
                    continue;
                }
                let size = sim.flows[id].size;
                if st.b * s1 <= 1e-9 * size {
                    ending.push((0, id));
                } else {
                    near = near.max(size / st.b);
                }
            }
            c.near = near;
            for &(_, id) in &ending {
                let rem = self.flows[id].b * s1;
                Self::write(sim, id, rem);
                self.end(sim, id, done);
            }
            self.cands = ending;
        }
    }

    /// Records the usage of the DAG coflows' flows over `[t0, t1]` (per resource: MADD's
    /// rate `σ · Σ b` plus the greedy extras).
    fn record_usage(&mut self, sim: &mut Sim<'_>, t0: f64, t1: f64) {
        if self.dag_live == 0 {
            return;
        }
        let dag = |c: &Coflow| c.dag && c.live > 0;
        let mut any = false;
        let n = sim.cluster.capacities().len();
        self.port.clear();
        self.port.resize(n, (0.0, 0.0));
        for &j in &self.order {
            let c = &self.coflows[j];
            if !dag(c) || c.sigma <= 0.0 {
                continue;
            }
            any = true;
            for &p in &c.ports {
                self.port[p as usize].1 += c.sigma * c.base[p as usize];
            }
        }
        for &id in &self.extras {
            let st = &self.flows[id];
            if !dag(&self.coflows[st.job as usize]) {
                continue;
            }
            any = true;
            for &p in &sim.flows[id].path {
                self.port[p as usize].1 += st.extra;
            }
        }
        if any {
            sim.record_windows(&self.port, t0, t1);
        }
    }
}

/// Sincronia and Varys: one policy, the order being [`Scaled::new`]'s `order_fn`
/// (`sincronia::order`, `varys::order`).
impl RatePolicy for Scaled {
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        false
    }

    fn dense(&self) -> bool {
        false
    }

    fn sparse_rates(&mut self, sim: &mut Sim<'_>, _out: &mut Vec<Change>, free: &mut [f64]) -> f64 {
        self.rates(sim, free)
    }

    fn advance(&mut self, sim: &mut Sim<'_>, t1: f64, done: &mut Vec<usize>) {
        self.step(sim, t1, done);
    }
}

impl Scaled {
    /// One event's rates: follows the released flows, recomputes the order when a coflow
    /// arrived or completed, and sets the step's rates; returns the next predicted finish.
    pub(super) fn rates(&mut self, sim: &mut Sim<'_>, free: &mut [f64]) -> f64 {
        for k in 0..sim.log.len() {
            if let FlowEvent::Start(id) = sim.log[k] {
                self.start(sim, id);
            }
        }
        if self.dirty {
            self.rank(sim);
        }
        self.allocate(sim, free)
    }
}

/// What an event's allocation keeps per resource.
#[derive(Default)]
struct Pass {
    /// The rate handed out so far (0 until touched), and the resources touched.
    util: Vec<f64>,
    touched: Vec<u32>,
    /// In the greedy pass: 1 while the resource has free capacity, else 0; and 0 past the
    /// resources (the ends of an ended flow in [`Coflow::ends`]), for at least 2^16
    /// entries.
    open_now: Vec<u8>,
    /// The resources the last grant closed.
    closed: Vec<u32>,
    /// The resources with free capacity ([`bits`]), kept with `open_now` (and through MADD).
    open_bits: Vec<u64>,
    /// The greedy scan's places in the coflow's [`EndIndex`]es, and a buffer to build them.
    cursors: Cursors,
    fill: Vec<u32>,
    /// During a coflow's scan: the resources of the coflow open at the same point of its
    /// last scan ([`Memo`]; none without a memo), and the grants of this scan.
    prev_open: Vec<u64>,
    new_grants: Vec<(u32, u32)>,
    /// During a coflow's scan: flows on longer routes read and found blocked, each with a
    /// resource of its route without free capacity (written into [`Coflow::ends`] once the
    /// scan is past them).
    witness: Vec<(u32, u16)>,
}

/// The less of `a` and `b`, neither NaN (as `f64::min`, without its NaN handling: on the
/// whole FB2010 trace `f64::min` was 7 % of a Varys run).
fn least(a: f64, b: f64) -> f64 {
    if b < a { b } else { a }
}

/// A greedy grant of `head` on `path` (a flow of coflow `c`): takes it from every resource's
/// free capacity (marking in `pass.open_now` each it closes), adds it to their rates
/// (`pass.util`, the resources in `pass.touched` once each), and
/// counts in `open` the coflow's first and last resources it closes.
#[inline(always)]
fn grant(
    free: &mut [f64],
    pass: &mut Pass,
    path: &[u32],
    head: f64,
    c: &Coflow,
    open: &mut (usize, usize),
) {
    for &p in path {
        let p = p as usize;
        let before = free[p];
        free[p] -= head;
        if before > 0.0 && free[p] <= 0.0 {
            open.0 -= usize::from(c.first[p] > 0);
            open.1 -= usize::from(c.last[p] > 0);
            pass.open_now[p] = 0;
            bits::remove(&mut pass.open_bits, p);
            pass.closed.push(p as u32);
        }
        if pass.util[p] == 0.0 {
            pass.touched.push(p as u32);
        }
        pass.util[p] += head;
    }
}

#[cfg(test)]
thread_local! {
    /// How many greedy passes went by the open routes ([`Scaled::greedy_routes`]) on this
    /// thread: the tests check that their runs take that branch.
    pub(super) static ROUTE_PASSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many times a greedy scan went to the next flow starting or ending at a resource
    /// open now that was closed at the same point of the last scan, on this thread.
    pub(super) static MEMO_JUMPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many blocked flows on routes of more than two resources had their `ends` moved
    /// to a resource without free capacity, on this thread.
    pub(super) static WITNESSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}
