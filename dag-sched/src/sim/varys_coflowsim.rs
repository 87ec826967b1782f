//! Varys as its authors' simulator runs it (coflowsim, github.com/coflow/coflowsim, its
//! `CoflowSimulator` under `SEBF`), beside our [`Scheduler::Varys`](super::Scheduler::Varys).
//! Chowdhury, Zhong and Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM 2014, §5
//! (Pseudocode 1: `allocBandwidth`, `minCCTOffline`, `distributeUnusedBandwidth`,
//! `minCCTOnline`). The rules, each with where the paper has it:
//!
//! 1. **Static order.** A coflow's place is fixed once, when it arrives, by its *initial*
//!    effective bottleneck `Γ₀`: the largest total of its bits on one resource over that
//!    resource's capacity (coflowsim's per-coflow `alpha`, computed once from the whole
//!    demand; smallest first, ties by arrival: a new coflow goes after those with an equal
//!    `Γ₀`). The paper's SEBF (§5.1) orders by `Γ` and its online algorithm re-sorts the
//!    coflows at every call (`minCCTOffline` sorts `C_old ∪ C_new`); coflowsim does not
//!    re-sort, and neither does this variant. Ours ([`Scheduler::Varys`]) re-sorts by the
//!    remaining bits.
//! 2. **Recomputation at coflow events only.** Rates are computed when a coflow arrives or
//!    completes (the paper's §5.3: the scheduler re-runs when coflows arrive or leave) and
//!    held in between: the capacity of a flow that ends idles until the next coflow event,
//!    as in coflowsim. (A flow released into a coflow that is already active, which a
//!    trace's coflows never do, also recomputes: it has no rate otherwise.)
//! 3. **MADD in that order** (the paper's `allocBandwidth`, §5.1): each coflow in turn gets
//!    `Γ` over the capacity the coflows before it left (its remaining bits on a resource over
//!    that resource's free capacity, the largest), and each of its flows `remaining / Γ`,
//!    at most the free capacity of its route as it was before the coflow.
//! 4. **A coflow that finds a resource full** (no free capacity on one it crosses: `Γ` is
//!    undefined) is skipped by MADD; the skipped coflows' flows then share what MADD left as
//!    coflowsim shares it: a flow none of whose resources is full gets the least, over its
//!    route, of a resource's free capacity divided by the number of such flows crossing it.
//!    This is coflowsim's rule; the paper's pseudocode gives such a coflow nothing before
//!    work conservation.
//! 5. **Work conservation** (the paper's `distributeUnusedBandwidth`): what is left goes to
//!    the flows greedily, coflow by coflow in deadline order (earliest first; ties in the
//!    static order), each flow up to the least free capacity on its route, a coflow's flows
//!    by receiver then sender (coflowsim's reducer-then-mapper order). Without deadlines
//!    coflowsim still gives every coflow one: its admission time plus `Γ₀` times a
//!    multiplier drawn uniformly from [1, 2) by Java's `Random` seeded 17; here the
//!    multiplier is 1 (the deadline is the coflow's arrival plus `Γ₀`), the one convention of
//!    this variant that differs from coflowsim's algorithm.
//!
//! coflowsim's conventions of time and input (10.24 s admission epochs, 8 ms steps,
//! megabytes of 2^20 bytes rounded up per flow, same-port flows kept) are not the
//! algorithm's and are not reproduced here; see [`trace`](crate::trace) and
//! `scripts/coflowsim.sh`.

use super::engine::{Change, FlowEvent, RatePolicy, Sim};

/// The share of a resource's capacity at or below which it counts as full (coflowsim's
/// `ZERO`, 10^-3 bit/s, is 10^-12 of its 2^30 bit/s ports).
const FULL: f64 = 1e-12;

/// Two rates of a flow this close (relative) are the same rate: a recomputation that gives a
/// flow its held rate again, up to rounding, leaves it as it is.
const SAME: f64 = 1e-12;

/// One coflow: its active flows and static keys.
#[derive(Default)]
struct Coflow {
    /// Active flow ids, by (receiver, sender, id) once sorted.
    ids: Vec<usize>,
    /// Whether `ids` is sorted.
    sorted: bool,
    /// Whether `gamma0` and `deadline` are set (at the coflow's first recomputation).
    keyed: bool,
    /// `Γ₀`, seconds: the initial effective bottleneck.
    gamma0: f64,
    /// Its deadline for work conservation: first release + `Γ₀`.
    deadline: f64,
    /// Whether it has active flows.
    live: bool,
    /// How many.
    left: usize,
    /// The resources its active flows cross, and per resource how many do (sized on first
    /// use): a coflow crossing a full resource is skipped by MADD, and one whose every
    /// resource is full gets nothing, both known without reading its flows.
    ports: Vec<u32>,
    count: Vec<u32>,
}

/// The policy: coflows in static SEBF order, rates recomputed at coflow events.
pub(super) struct VarysCoflowsim {
    coflows: Vec<Coflow>,
    /// Jobs with active flows, any order.
    live: Vec<usize>,
    /// Per flow: whether it ended; its rate being built; the rate last reported.
    ended: Vec<bool>,
    rate: Vec<f64>,
    held: Vec<f64>,
    /// The flows given a rate at this recomputation, and those moving since the last one.
    given: Vec<usize>,
    moving: Vec<usize>,
    /// Buffers: per-resource bits, rates or counts, the order, the skipped coflows.
    acc: Vec<f64>,
    used: Vec<f64>,
    count: Vec<u32>,
    order: Vec<usize>,
    skipped: Vec<usize>,
}

impl VarysCoflowsim {
    /// For a run over `jobs` jobs.
    pub(super) fn new(jobs: usize) -> Self {
        Self {
            coflows: (0..jobs).map(|_| Coflow::default()).collect(),
            live: Vec::new(),
            ended: Vec::new(),
            rate: Vec::new(),
            held: Vec::new(),
            given: Vec::new(),
            moving: Vec::new(),
            acc: Vec::new(),
            used: Vec::new(),
            count: Vec::new(),
            order: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// Every active flow's rate by rules 3–5 (`free`: full capacities on entry), into
    /// `self.rate[id]` (0 on entry).
    ///
    /// # Complexity
    /// O(F · h + J log J) for F active flows of h resources over J coflows.
    fn recompute(&mut self, sim: &Sim<'_>, free: &mut [f64]) {
        let cap = sim.cluster.capacities();
        let n = cap.len();
        self.acc.clear();
        self.acc.resize(n, 0.0);
        self.used.clear();
        self.used.resize(n, 0.0);
        let full = |p: usize, free: &[f64]| free[p] <= FULL * cap[p];
        // Rule 1: the static order (Γ₀, then arrival).
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend_from_slice(&self.live);
        let cf = &self.coflows;
        order.sort_by(|&a, &b| {
            cf[a]
                .gamma0
                .total_cmp(&cf[b].gamma0)
                .then(sim.st[a].fifo.cmp(&sim.st[b].fifo))
        });
        self.skipped.clear();
        // Rule 3: MADD coflow by coflow over what the ones before left.
        for &j in &order {
            let c = &self.coflows[j];
            if c.ports.iter().any(|&p| full(p as usize, free)) {
                self.skipped.push(j);
                continue;
            }
            let ids = &c.ids;
            let mut gamma: f64 = 0.0;
            let mut skip = false;
            for &id in ids {
                let left = sim.remaining_now(id);
                for &p in &sim.flows[id].path {
                    self.acc[p as usize] += left;
                }
            }
            for &id in ids {
                for &p in &sim.flows[id].path {
                    let p = p as usize;
                    let bits = std::mem::take(&mut self.acc[p]);
                    if bits > 0.0 {
                        if full(p, free) {
                            skip = true;
                        } else {
                            gamma = gamma.max(bits / free[p]);
                        }
                    }
                }
            }
            if skip {
                self.skipped.push(j);
                continue;
            }
            if gamma <= 0.0 {
                continue;
            }
            for i in 0..self.coflows[j].ids.len() {
                let id = self.coflows[j].ids[i];
                let f = &sim.flows[id];
                let head = f
                    .path
                    .iter()
                    .fold(f64::INFINITY, |x, &p| x.min(free[p as usize]));
                let r = (sim.remaining_now(id) / gamma).min(head).max(0.0);
                for &p in &f.path {
                    self.used[p as usize] += r;
                }
                self.give(id, r);
            }
            for &id in &self.coflows[j].ids {
                for &p in &sim.flows[id].path {
                    let p = p as usize;
                    free[p] -= std::mem::take(&mut self.used[p]);
                }
            }
        }
        // Rule 4: the skipped coflows' flows share what is left per resource.
        if !self.skipped.is_empty() {
            self.count.clear();
            self.count.resize(n, 0);
            let open = |id: usize, free: &[f64]| {
                sim.flows[id].path.iter().all(|&p| !full(p as usize, free))
            };
            let blocked =
                |c: &Coflow, free: &[f64]| c.ports.iter().all(|&p| full(p as usize, free));
            for &j in &self.skipped {
                if blocked(&self.coflows[j], free) {
                    continue;
                }
                for &id in &self.coflows[j].ids {
                    if open(id, free) {
                        for &p in &sim.flows[id].path {
                            self.count[p as usize] += 1;
                        }
                    }
                }
            }
            for k in 0..self.skipped.len() {
                let j = self.skipped[k];
                if blocked(&self.coflows[j], free) {
                    continue;
                }
                for i in 0..self.coflows[j].ids.len() {
                    let id = self.coflows[j].ids[i];
                    if !open(id, free) {
                        continue;
                    }
                    let f = &sim.flows[id];
                    let r = f
                        .path
                        .iter()
                        .map(|&p| free[p as usize] / f64::from(self.count[p as usize]))
                        .fold(f64::INFINITY, f64::min)
                        .max(0.0);
                    for &p in &f.path {
                        self.used[p as usize] += r;
                    }
                    self.give(id, r);
                }
            }
            for (p, u) in self.used.iter_mut().enumerate() {
                free[p] -= std::mem::take(u);
            }
        }
        // Rule 5: the leftover in deadline order (a stable sort: ties stay in the static
        // order), a flow with a full resource getting nothing.
        let cf = &self.coflows;
        order.sort_by(|&a, &b| cf[a].deadline.total_cmp(&cf[b].deadline));
        for &j in &order {
            if self.coflows[j]
                .ports
                .iter()
                .all(|&p| full(p as usize, free))
            {
                continue;
            }
            for i in 0..self.coflows[j].ids.len() {
                let id = self.coflows[j].ids[i];
                let f = &sim.flows[id];
                if f.path.iter().any(|&p| full(p as usize, free)) {
                    continue;
                }
                let x = f
                    .path
                    .iter()
                    .fold(f64::INFINITY, |x, &p| x.min(free[p as usize]));
                for &p in &f.path {
                    free[p as usize] -= x;
                }
                let base = self.rate[id];
                self.give(id, base + x);
            }
        }
        self.order = order;
    }

    /// Flow `id`'s rate at this recomputation is `r`.
    fn give(&mut self, id: usize, r: f64) {
        if self.rate[id] == 0.0 && r > 0.0 {
            self.given.push(id);
        }
        self.rate[id] = r;
    }
}

impl RatePolicy for VarysCoflowsim {
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        false
    }

    fn dense(&self) -> bool {
        false
    }

    /// Follows the flows that start and end; at a coflow event (rule 2) recomputes every
    /// active flow's rate and reports them all, otherwise reports nothing (every flow keeps
    /// its rate). `free` is the recomputation's working copy of the capacities.
    fn sparse_rates(&mut self, sim: &mut Sim<'_>, out: &mut Vec<Change>, free: &mut [f64]) -> f64 {
        let cap = sim.cluster.capacities();
        if self.ended.len() < sim.flows.len() {
            self.ended.resize(sim.flows.len(), false);
            self.rate.resize(sim.flows.len(), 0.0);
            self.held.resize(sim.flows.len(), 0.0);
        }
        let mut changed = false;
        for &e in &sim.log {
            match e {
                FlowEvent::Start(id) => {
                    let j = sim.flows[id].job;
                    let c = &mut self.coflows[j];
                    if !c.live {
                        c.live = true;
                        self.live.push(j);
                    }
                    c.ids.push(id);
                    c.left += 1;
                    c.sorted = false;
                    if c.count.len() != cap.len() {
                        c.count = vec![0; cap.len()];
                    }
                    for &p in &sim.flows[id].path {
                        if c.count[p as usize] == 0 {
                            c.ports.push(p);
                        }
                        c.count[p as usize] += 1;
                    }
                    changed = true;
                }
                FlowEvent::End(id) => {
                    self.ended[id] = true;
                    let c = &mut self.coflows[sim.flows[id].job];
                    c.left -= 1;
                    for &p in &sim.flows[id].path {
                        c.count[p as usize] -= 1;
                        if c.count[p as usize] == 0
                            && let Some(k) = c.ports.iter().position(|&q| q == p)
                        {
                            c.ports.swap_remove(k);
                        }
                    }
                    if c.left == 0 {
                        // The coflow completed.
                        c.live = false;
                        changed = true;
                    }
                }
                FlowEvent::Head(_) => {}
            }
        }
        if !changed {
            return f64::INFINITY;
        }
        // Drop the coflows that completed and the flows that ended.
        let (coflows, done) = (&mut self.coflows, &self.ended);
        self.live.retain(|&j| {
            let c = &mut coflows[j];
            c.ids.retain(|&id| !done[id]);
            c.live
        });
        for &j in &self.live {
            let c = &mut self.coflows[j];
            if !c.sorted {
                let flows = &sim.flows;
                c.ids
                    .sort_unstable_by_key(|&id| (flows[id].dst, flows[id].src, id));
                c.sorted = true;
            }
            if !c.keyed {
                // Rule 1: Γ₀ from the coflow's whole demand when it arrives.
                self.acc.clear();
                self.acc.resize(cap.len(), 0.0);
                for &id in &c.ids {
                    let f = &sim.flows[id];
                    for &p in &f.path {
                        self.acc[p as usize] += f.size / cap[p as usize];
                    }
                }
                c.gamma0 = self.acc.iter().copied().fold(0.0, f64::max);
                c.deadline = sim.now + c.gamma0;
                c.keyed = true;
            }
        }
        self.recompute(sim, free);
        // The rates that changed by more than rounding (MADD's `remaining / Γ` of a coflow
        // served at its held rates is the same rate again, a few ulps apart, and reporting it
        // would re-predict the flow's end): those given one now, then those that moved
        // before and get none now.
        let mut given = std::mem::take(&mut self.given);
        for &id in &given {
            let r = self.rate[id];
            let old = self.held[id];
            if (r - old).abs() > SAME * old.max(r) || old == 0.0 {
                self.held[id] = r;
                out.push(Change::Flow { id, rate: r });
            }
        }
        for &id in &self.moving {
            if self.rate[id] == 0.0 && self.held[id] > 0.0 {
                self.held[id] = 0.0;
                if !self.ended[id] {
                    out.push(Change::Flow { id, rate: 0.0 });
                }
            }
        }
        for &id in &given {
            self.rate[id] = 0.0;
        }
        std::mem::swap(&mut self.moving, &mut given);
        given.clear();
        self.given = given;
        f64::INFINITY
    }
}
