//! [`RestPolicy::Sincronia`](crate::sim::RestPolicy::Sincronia) and
//! [`RestPolicy::Varys`](crate::sim::RestPolicy::Varys) (ours): the transfers outside JIT's
//! LP and the jobs without a DAG (files, coflows) sent by a coflow scheduler in what the
//! plans leave, the administrator's scheduler of the paper's §3.1 being Sincronia or Varys.
//!
//! Each job's released transfers outside the LP form one coflow (the LP's transfers of the
//! job are not part of it: they go by their plan first). The coflows are ordered as the
//! baselines order them ([`super::super::sincronia::order`], BSSI, or
//! [`super::super::varys::order`], SEBF, on their remaining bits at full capacity),
//! recomputed when a coflow arrives or completes (a job gets its first flow outside the LP or
//! loses its last one), served in that order with MADD rates in the capacity the plans left,
//! then the leftover handed out in the same order; inside a coflow its flows go by `tf_rank`,
//! which for a planned job is its LAT order ([`super::Jit::plan`]). The arithmetic is
//! [`madd`] per coflow then [`priority_greedy`] over all, as the baselines' reference pass.

use super::super::engine::Sim;
use super::super::scaled::Order;
use crate::rates::{FlowDemand, madd, priority_greedy};

/// The coflow scheduler's state between events.
pub(super) struct CoflowRest {
    order: Order,
    /// Each job's place in the last order (smaller first).
    rank: Vec<usize>,
    /// The jobs with flows outside the plans at the last ordering, ascending.
    live: Vec<usize>,
    /// Buffers: the jobs now (ascending), and the flows outside the plans keyed by (rank,
    /// `tf_rank`) with their position in `sim.active`.
    now: Vec<usize>,
    keyed: Vec<(u64, u32)>,
}

impl CoflowRest {
    /// The scheduler of coflow order `order`.
    pub(super) fn new(order: Order) -> Self {
        Self {
            order,
            rank: Vec::new(),
            live: Vec::new(),
            now: Vec::new(),
            keyed: Vec::new(),
        }
    }

    /// Rates of the active flows outside the plans in the capacity `free` the plans left
    /// (written into `rate` by position in `sim.active`; `free` is reduced by what they get).
    ///
    /// # Complexity
    /// O(F · h · log(F · h)) for F flows outside the plans of h resources, plus
    /// O(F · h · P + J log J) to order J coflows of at most P resources each when one
    /// arrived or completed.
    pub(super) fn rates(&mut self, sim: &Sim<'_>, rate: &mut [f64], free: &mut [f64]) {
        if self.rank.len() != sim.jobs.len() {
            self.rank = vec![usize::MAX; sim.jobs.len()];
        }
        let rest = |id: usize| sim.flows[id].lp.is_none();
        self.now.clear();
        self.now.extend(
            sim.active
                .iter()
                .filter(|&&id| rest(id))
                .map(|&id| sim.flows[id].job),
        );
        self.now.sort_unstable();
        self.now.dedup();
        if self.now != self.live {
            // A coflow arrived or completed: order them again on their bits left.
            let d = self.demands(sim);
            for (pos, &k) in (self.order)(sim, &self.now, &d).iter().enumerate() {
                self.rank[self.now[k]] = pos;
            }
            std::mem::swap(&mut self.live, &mut self.now);
        }
        self.keyed.clear();
        for (k, &id) in sim.active.iter().enumerate() {
            if !rest(id) {
                continue;
            }
            let f = &sim.flows[id];
            let rank = self.rank[f.job].min(u32::MAX as usize) as u64;
            let key = rank << 32 | u64::from(sim.st[f.job].tf_rank[f.node.index()]);
            self.keyed.push((key, k as u32));
        }
        self.keyed.sort_unstable();
        let d: Vec<FlowDemand<'_>> = self
            .keyed
            .iter()
            .map(|&(_, k)| sim.flows[sim.active[k as usize]].demand(f64::INFINITY))
            .collect();
        // MADD coflow by coflow (a coflow is a run of one job in the order).
        let mut a = 0;
        while a < self.keyed.len() {
            let job = sim.flows[sim.active[self.keyed[a].1 as usize]].job;
            let mut b = a + 1;
            while b < self.keyed.len() && sim.flows[sim.active[self.keyed[b].1 as usize]].job == job
            {
                b += 1;
            }
            let left: Vec<f64> = self.keyed[a..b]
                .iter()
                .map(|&(_, k)| sim.flows[sim.active[k as usize]].remaining)
                .collect();
            for (r, &(_, k)) in madd(&d[a..b], &left, free)
                .into_iter()
                .zip(&self.keyed[a..b])
            {
                rate[k as usize] = r;
            }
            a = b;
        }
        // Work conservation: strict priority in the same order.
        for (r, &(_, k)) in priority_greedy(&d, free).into_iter().zip(&self.keyed) {
            rate[k as usize] += r;
        }
    }

    /// Per job of `self.now`, its flows' remaining demand outside the plans on every
    /// resource they cross, in seconds at full capacity (summed in release order, one entry
    /// per resource in the order first crossed), as the baselines' orders take it.
    fn demands(&self, sim: &Sim<'_>) -> Vec<Vec<(usize, f64)>> {
        let cap = sim.cluster.capacities();
        let mut d: Vec<Vec<(usize, f64)>> = vec![Vec::new(); self.now.len()];
        for &id in &sim.active {
            let f = &sim.flows[id];
            if f.lp.is_some() {
                continue;
            }
            let Ok(j) = self.now.binary_search(&f.job) else {
                continue;
            };
            for &r in &f.path {
                let p = r as usize;
                let x = f.remaining / cap[p];
                match d[j].iter_mut().find(|e| e.0 == p) {
                    Some(e) => e.1 += x,
                    None => d[j].push((p, x)),
                }
            }
        }
        d
    }
}
