//! What Sincronia and Varys share: each job's released, unfinished transfers form one coflow;
//! coflows are served in the policy's order, each with MADD rates (its flows finish together:
//! the paper's account of why Sincronia loses on DAG jobs, §4.2), then leftover capacity is
//! handed out greedily in the same order (work conservation), inside a coflow in the job's
//! arbitrary (random) order.
//!
//! The dense pass (every active flow at every event), kept for the tests as the oracle of
//! [`super::scaled`], which the schedulers run ([`Dense`] runs Sincronia or Varys through
//! it), and run by JIT over the flows outside its plans ([`Ranked::outside_plans`]).

#[cfg(test)]
use super::engine::RatePolicy;
use super::engine::Sim;
#[cfg(test)]
use super::scaled::Order;

#[cfg(test)]
/// Sincronia or Varys (by its order) through the dense pass: the engine's dense step, every
/// active flow's rate at every event.
pub(super) struct Dense {
    ranked: Ranked,
    order: Order,
}

#[cfg(test)]
impl Dense {
    /// Ordering coflows by `order`.
    pub(super) fn new(order: Order) -> Self {
        Self {
            ranked: Ranked::default(),
            order,
        }
    }
}

#[cfg(test)]
impl RatePolicy for Dense {
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        false
    }

    fn rates(&mut self, sim: &mut Sim<'_>, rate: &mut [f64], free: &mut [f64]) -> f64 {
        self.ranked.rates(sim, rate, free, self.order);
        f64::INFINITY
    }
}

/// A coflow scheduler's state: every job's rank in the order last computed (sized at the
/// first event), and the coflows' flows kept between events. Sincronia and Varys differ only
/// in the order.
#[derive(Default)]
pub(super) struct Ranked {
    rank: Vec<usize>,
    coflows: Coflows,
    /// Whether an order has been computed (the first event computes one).
    ranked: bool,
}

impl Ranked {
    /// Over the flows outside JIT's plans only (`Flow::lp` is `None`): each job's transfers
    /// outside the LP are its coflow, and the planned ones are left as they are
    /// ([`RestPolicy::Sincronia`](super::RestPolicy::Sincronia) and
    /// [`RestPolicy::Varys`](super::RestPolicy::Varys)).
    pub(super) fn outside_plans() -> Self {
        Self {
            coflows: Coflows {
                outside_plans: true,
                ..Coflows::default()
            },
            ..Self::default()
        }
    }

    /// One event's rates: follows the flow changes, recomputes the order when a coflow
    /// arrived or completed (a job's first active flow appeared, or its last one left: the
    /// papers' online algorithms re-order at coflow arrivals and departures, not at every
    /// flow event) — `order(sim, jobs, demands)` lists indices into `jobs` (the jobs with
    /// active flows, ascending, and their per-port remaining demands) first to last — then
    /// serves the coflows in it ([`Coflows::rates`]). A flow released into a coflow that is
    /// already active keeps the coflow's rank.
    pub(super) fn rates(
        &mut self,
        sim: &mut Sim<'_>,
        rate: &mut [f64],
        free: &mut [f64],
        order: impl FnOnce(&Sim<'_>, &[usize], &[Vec<(usize, f64)>]) -> Vec<usize>,
    ) {
        if self.rank.len() != sim.jobs.len() {
            self.rank = vec![usize::MAX; sim.jobs.len()];
        }
        let changed = self.coflows.update(sim);
        if changed || !self.ranked {
            self.ranked = true;
            let (jobs, d) = self.coflows.demands(sim);
            for (pos, &k) in order(sim, &jobs, &d).iter().enumerate() {
                self.rank[jobs[k]] = pos;
            }
        }
        self.coflows.rates(sim, &self.rank, rate, free);
    }
}

/// The active flows of every coflow, kept between events for [`Coflows::rates`]: per job its
/// active flows in the job's arbitrary (`tf_rank`) order, sorted once when they are released
/// and filtered when flows finish, instead of sorting every active flow at every event (the
/// sort was a fifth of a Sincronia run on the first 30 FB2010 coflows). Also holds the
/// buffers [`Coflows::demands`] reuses.
#[derive(Default)]
pub(super) struct Coflows {
    /// Per job: its active flow ids, ascending `tf_rank`.
    by_job: Vec<Vec<usize>>,
    /// The jobs with active flows, any order.
    live: Vec<usize>,
    /// Whether job `j` is in `live`.
    in_live: Vec<bool>,
    /// Flows with an id below this one have been added.
    seen: usize,
    /// Active flows at the end of the last call (fewer of them now, new ones aside, means
    /// some finished).
    active_seen: usize,
    /// Whether only the flows outside JIT's plans are tracked ([`Ranked::outside_plans`]).
    outside_plans: bool,
    /// Flow id → its position in `sim.active` (valid for the active flows).
    pos: Vec<u32>,
    /// Per job: its active flow ids in release (id) order, the order the per-port demand
    /// sums of [`Coflows::demands`] add them in.
    by_id: Vec<Vec<usize>>,
    acc: Vec<f64>,
    mark: Vec<bool>,
    /// Buffers of [`Coflows::rates`]: the jobs in rank order, per-resource bits of one
    /// coflow and the resources it touches.
    order: Vec<usize>,
    load: Vec<f64>,
    touched: Vec<u32>,
    /// Per job: the resources its active flows cross (any order), kept as flows come and go.
    ports: Vec<Vec<u32>>,
    /// Per job: per resource, how many of its active flows cross it (sized on first use).
    port_count: Vec<Vec<u32>>,
}

impl Coflows {
    /// Follows the flow changes since the last call: the flows released since (a suffix of
    /// `sim.active`, whose ids grow) join their job's list, which is then sorted by
    /// `tf_rank`; when flows finished (fewer of the old active flows than at the last call),
    /// the lists drop the flows with nothing left. With `outside_plans`, the flows JIT planned
    /// are left out. Returns whether a coflow arrived or completed: a job got its
    /// first active flow or lost its last one.
    ///
    /// # Complexity
    /// O(N · h + Σ n_j log n_j) for N new flows of h resources, over the jobs j that got
    /// some (n_j their active flows); O(F + E · h · P) more when flows finished (F active
    /// flows, E of them ended, P resources per job).
    pub(super) fn update(&mut self, sim: &Sim<'_>) -> bool {
        let jobs = sim.jobs.len();
        let mut changed = false;
        if self.by_job.len() != jobs {
            self.by_job = vec![Vec::new(); jobs];
            self.in_live = vec![false; jobs];
            self.by_id = vec![Vec::new(); jobs];
            self.ports = vec![Vec::new(); jobs];
            self.port_count = vec![Vec::new(); jobs];
        }
        let resources = sim.cluster.capacities().len();
        let first = sim.active.partition_point(|&id| id < self.seen);
        let mut touched: Vec<usize> = Vec::new();
        for &id in &sim.active[first..] {
            if self.outside_plans && sim.flows[id].lp.is_some() {
                continue;
            }
            let j = sim.flows[id].job;
            if !self.in_live[j] {
                self.in_live[j] = true;
                self.live.push(j);
                changed = true;
            }
            let count = &mut self.port_count[j];
            if count.len() != resources {
                count.resize(resources, 0);
            }
            for &p in &sim.flows[id].path {
                if count[p as usize] == 0 {
                    self.ports[j].push(p);
                }
                count[p as usize] += 1;
            }
            if self.by_job[j].last().is_none_or(|&l| l < self.seen) {
                touched.push(j);
            }
            self.by_job[j].push(id);
            self.by_id[j].push(id);
        }
        touched.sort_unstable();
        touched.dedup();
        for &j in &touched {
            let st = &sim.st[j];
            let flows = &sim.flows;
            self.by_job[j].sort_unstable_by_key(|&id| st.tf_rank[flows[id].node.index()]);
        }
        self.seen = sim.flows.len();
        // The flows active at the last call that are still active are the first `first`.
        if first != self.active_seen {
            let flows = &sim.flows;
            for &j in &self.live {
                self.by_job[j].retain(|&id| flows[id].remaining > 0.0);
                let (count, ports) = (&mut self.port_count[j], &mut self.ports[j]);
                self.by_id[j].retain(|&id| {
                    let f = &flows[id];
                    if f.remaining > 0.0 {
                        return true;
                    }
                    for &p in &f.path {
                        count[p as usize] -= 1;
                        if count[p as usize] == 0
                            && let Some(k) = ports.iter().position(|&q| q == p)
                        {
                            ports.swap_remove(k);
                        }
                    }
                    false
                });
            }
            let (by_job, in_live) = (&self.by_job, &mut self.in_live);
            self.live.retain(|&j| {
                let keep = !by_job[j].is_empty();
                in_live[j] = keep;
                changed |= !keep;
                keep
            });
        }
        self.active_seen = sim.active.len();
        changed
    }

    /// The jobs with active flows (ascending) and, per such job, its remaining demand on
    /// every resource its flows cross, in seconds at full capacity: one entry per resource,
    /// the sum over the job's flows in release order (the sum BSSI and SEBF take per port;
    /// one entry per flow and resource made BSSI's per-port lookups O(flows) on a trace's
    /// 20,000-flow coflow). Call after [`Coflows::update`].
    ///
    /// # Complexity
    /// O(F · h + J log J) for F active flows of h resources over J jobs.
    pub(super) fn demands(&mut self, sim: &Sim<'_>) -> (Vec<usize>, Vec<Vec<(usize, f64)>>) {
        let cap = sim.cluster.capacities();
        let mut jobs = self.live.clone();
        jobs.sort_unstable();
        self.acc.resize(cap.len(), 0.0);
        self.mark.resize(cap.len(), false);
        let (acc, seen) = (&mut self.acc, &mut self.mark);
        let d: Vec<Vec<(usize, f64)>> = jobs
            .iter()
            .map(|&j| {
                let mut ports = Vec::new();
                for &id in &self.by_id[j] {
                    let f = &sim.flows[id];
                    for &r in &f.path {
                        let p = r as usize;
                        if !seen[p] {
                            seen[p] = true;
                            ports.push(p);
                        }
                        acc[p] += f.remaining / cap[p];
                    }
                }
                ports
                    .into_iter()
                    .map(|p| {
                        seen[p] = false;
                        (p, std::mem::take(&mut acc[p]))
                    })
                    .collect()
            })
            .collect();
        #[cfg(test)]
        assert_eq!(
            (jobs.clone(), d.clone()),
            reference::demands(sim, self.outside_plans),
            "incremental coflow demands differ from the per-event sums"
        );
        (jobs, d)
    }

    /// Rates of the active flows with the coflows served in `rank` order (`rank[job]`,
    /// smaller first, distinct over the jobs with active flows): MADD coflow by coflow, then
    /// work conservation in the same order; inside a coflow its flows go by `tf_rank`. Call
    /// after [`Coflows::update`].
    ///
    /// The same arithmetic, in the same order, as [`madd`](crate::rates::madd) per coflow
    /// then [`priority_greedy`](crate::rates::priority_greedy) over every flow (checked
    /// against them in tests), but reading the kept per-job lists directly and writing each
    /// flow's rate in place: no per-event vectors of demands, positions or rates.
    ///
    /// # Complexity
    /// O(F · h + J · L + J log J) for F active flows of h resources over J jobs and L
    /// resources (MADD's per-resource sums).
    pub(super) fn rates(
        &mut self,
        sim: &Sim<'_>,
        rank: &[usize],
        rate: &mut [f64],
        free: &mut [f64],
    ) {
        #[cfg(test)]
        let (free0, expect) = (
            free.to_vec(),
            reference::rates(sim, rank, rate, free, self.outside_plans),
        );
        self.pos.resize(sim.flows.len(), u32::MAX);
        for (k, &id) in sim.active.iter().enumerate() {
            self.pos[id] = k as u32;
        }
        let mut jobs = std::mem::take(&mut self.order);
        jobs.clear();
        jobs.extend_from_slice(&self.live);
        jobs.sort_unstable_by_key(|&j| rank[j]);
        let flows = &sim.flows;
        self.load.resize(free.len(), 0.0);
        self.mark.resize(free.len(), false);
        for &j in &jobs {
            let ids = &self.by_job[j];
            // Every resource of a coflow carries some of its bits (its flows have bits left),
            // so MADD starves it (all zeros, `rate`'s value on entry) as soon as one of them
            // has no free capacity: known from its resources alone, without the flows.
            if ids.len() > self.ports[j].len()
                && self.ports[j].iter().any(|&p| free[p as usize] <= 0.0)
            {
                continue;
            }
            // MADD: Γ over the coflow's per-resource bits, then remaining / Γ per flow.
            self.touched.clear();
            for &id in ids {
                let f = &flows[id];
                for &p in &f.path {
                    let p = p as usize;
                    if !self.mark[p] {
                        self.mark[p] = true;
                        self.touched.push(p as u32);
                    }
                    self.load[p] += f.remaining;
                }
            }
            let mut gamma: f64 = 0.0;
            let mut starved = false;
            for &p in &self.touched {
                let p = p as usize;
                let bits = std::mem::take(&mut self.load[p]);
                self.mark[p] = false;
                if starved || bits <= 0.0 {
                    continue;
                }
                if free[p] <= 0.0 {
                    starved = true;
                    continue;
                }
                gamma = gamma.max(bits / free[p]);
            }
            if starved || gamma <= 0.0 {
                continue;
            }
            for &id in ids {
                let f = &flows[id];
                let head = f
                    .path
                    .iter()
                    .fold(f64::INFINITY, |x, &r| x.min(free[r as usize]));
                let x = (f.remaining / gamma).min(head).max(0.0);
                for &p in &f.path {
                    free[p as usize] -= x;
                }
                rate[self.pos[id] as usize] = x;
            }
        }
        // Work conservation: strict priority in the same order.
        for &j in &jobs {
            // A coflow none of whose resources has free capacity left gets nothing more
            // (each flow's headroom is at most 0): skipped on its resources alone.
            if self.by_job[j].len() > self.ports[j].len()
                && self.ports[j].iter().all(|&p| free[p as usize] <= 0.0)
            {
                continue;
            }
            for &id in &self.by_job[j] {
                let f = &flows[id];
                let r = f
                    .path
                    .iter()
                    .fold(f64::INFINITY, |x, &r| x.min(free[r as usize]))
                    .max(0.0);
                for &p in &f.path {
                    free[p as usize] -= r;
                }
                rate[self.pos[id] as usize] += r;
            }
        }
        self.order = jobs;
        #[cfg(test)]
        {
            let got: Vec<u64> = rate.iter().map(|r| r.to_bits()).collect();
            let (want_rate, want_free) = expect;
            let want: Vec<u64> = want_rate.iter().map(|r| r.to_bits()).collect();
            assert_eq!(
                got, want,
                "in-place coflow rates differ from madd + priority_greedy"
            );
            let gf: Vec<u64> = free.iter().map(|r| r.to_bits()).collect();
            let wf: Vec<u64> = want_free.iter().map(|r| r.to_bits()).collect();
            assert_eq!(
                gf, wf,
                "in-place coflow free capacity differs (from {free0:?})"
            );
        }
    }
}

/// The per-event computations [`Coflows`] replaced, checked against it at every call in
/// tests (every Sincronia and Varys run of the test suite, its proptests included).
#[cfg(test)]
mod reference {
    use super::Sim;
    use crate::rates::{FlowDemand, madd, priority_greedy};

    /// Every active job's per-resource demand, summed over all active flows afresh (those
    /// outside JIT's plans with `outside_plans`).
    pub(super) fn demands(
        sim: &Sim<'_>,
        outside_plans: bool,
    ) -> (Vec<usize>, Vec<Vec<(usize, f64)>>) {
        let cap = sim.cluster.capacities();
        let mut demand: Vec<Vec<(usize, f64)>> = vec![Vec::new(); sim.jobs.len()];
        let mut has = vec![false; sim.jobs.len()];
        for &id in &sim.active {
            let f = &sim.flows[id];
            if outside_plans && f.lp.is_some() {
                continue;
            }
            for &r in &f.path {
                demand[f.job].push((r as usize, f.remaining / cap[r as usize]));
            }
            has[f.job] = true;
        }
        let jobs: Vec<usize> = (0..sim.jobs.len()).filter(|&j| has[j]).collect();
        let mut acc = vec![0.0f64; cap.len()];
        let mut seen = vec![false; cap.len()];
        let d = jobs
            .iter()
            .map(|&j| {
                let mut ports = Vec::new();
                for &(p, x) in &demand[j] {
                    if !seen[p] {
                        seen[p] = true;
                        ports.push(p);
                    }
                    acc[p] += x;
                }
                ports
                    .into_iter()
                    .map(|p| {
                        seen[p] = false;
                        (p, std::mem::take(&mut acc[p]))
                    })
                    .collect()
            })
            .collect();
        (jobs, d)
    }

    /// The rates [`Coflows::rates`] computes, by the per-event vectors it replaced: the
    /// active flows (those outside JIT's plans with `outside_plans`, the others keeping their
    /// rate in `rate`) sorted by (job rank, `tf_rank`), [`madd`] per coflow, then
    /// [`priority_greedy`] over all; and the free capacity left. `rate` and `free` are not
    /// changed.
    pub(super) fn rates(
        sim: &Sim<'_>,
        rank: &[usize],
        rate: &[f64],
        free: &[f64],
        outside_plans: bool,
    ) -> (Vec<f64>, Vec<f64>) {
        let mut free = free.to_vec();
        let idx = order(sim, rank, outside_plans);
        let mut rate = rate.to_vec();
        let mut bounds = vec![0];
        for w in 1..idx.len() {
            if sim.flows[sim.active[idx[w]]].job != sim.flows[sim.active[idx[w - 1]]].job {
                bounds.push(w);
            }
        }
        bounds.push(idx.len());
        let d: Vec<FlowDemand<'_>> = idx
            .iter()
            .map(|&k| sim.flows[sim.active[k]].demand(f64::INFINITY))
            .collect();
        for w in bounds.windows(2) {
            let (a, b) = (w[0], w[1]);
            let left: Vec<f64> = idx[a..b]
                .iter()
                .map(|&k| sim.flows[sim.active[k]].remaining)
                .collect();
            for (r, &k) in madd(&d[a..b], &left, &mut free).into_iter().zip(&idx[a..b]) {
                rate[k] = r;
            }
        }
        for (r, &k) in priority_greedy(&d, &mut free).into_iter().zip(&idx) {
            rate[k] += r;
        }
        (rate, free)
    }

    /// Positions in `sim.active` (of the flows outside JIT's plans with `outside_plans`)
    /// sorted by (job rank, `tf_rank`).
    pub(super) fn order(sim: &Sim<'_>, rank: &[usize], outside_plans: bool) -> Vec<usize> {
        let mut keyed: Vec<(u64, u32)> = sim
            .active
            .iter()
            .enumerate()
            .filter(|&(_, &id)| !(outside_plans && sim.flows[id].lp.is_some()))
            .map(|(k, &id)| {
                let f = &sim.flows[id];
                let key = (rank[f.job].min(u32::MAX as usize) as u64) << 32
                    | u64::from(sim.st[f.job].tf_rank[f.node.index()]);
                (key, k as u32)
            })
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, k)| k as usize).collect()
    }
}
