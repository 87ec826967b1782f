//! JIT (the paper, §3.4): at a DAG job's arrival, LAT estimation, α-selection and the LP are
//! run once; the LP's flows get their planned rate for the current slot first, then flows
//! behind their plan (released late, or past their LAT) catch up greedily in deadline order
//! (the gap to the plan counted continuously, so a flow at its planned rate is never behind);
//! with [`RestPolicy::LatPriority`] the DAG transfers outside the LP come next by strict
//! priority in order of absolute LAT, and the flows left (files, coflows, and with
//! [`RestPolicy::Background`] the transfers outside the LP) share what is left as in the
//! TensorFlow policy.

use super::engine::Sim;
use super::policy::RatePolicy;
use super::{JitConfig, RestPolicy};
use crate::Error;
use crate::job::TaskId;
use crate::lat;
use crate::lp::{self, LpTransfer};
use crate::rates::{FlowDemand, priority_greedy};

/// The JIT policy with its parameters.
pub(crate) struct Jit {
    cfg: JitConfig,
}

impl Jit {
    /// JIT with `cfg`.
    pub(crate) fn new(cfg: JitConfig) -> Self {
        Self { cfg }
    }
}

impl RatePolicy for Jit {
    fn on_arrival(&mut self, sim: &mut Sim<'_>, j: usize) -> Result<(), Error> {
        if sim.jobs[j].job.has_compute() {
            let arrival = sim.jobs[j].arrival;
            sim.plan(j, &self.cfg, arrival)?;
        }
        Ok(())
    }

    /// Not in the LP, and not a DAG transfer that LatPriority sends by LAT instead.
    fn uses_channel(&self, lp: bool, dag: bool) -> bool {
        !(lp || (dag && self.cfg.rest == RestPolicy::LatPriority))
    }

    fn rates(&mut self, sim: &mut Sim<'_>, rate: &mut [f64], free: &mut [f64]) -> f64 {
        let jit = self.cfg;
        let mut next = f64::INFINITY;
        let slot = jit.slot.as_secs_f64();
        let k_now = (sim.now / slot + 1e-9).floor() as i64;
        let mut lp_idx: Vec<usize> = (0..sim.active.len())
            .filter(|&k| sim.flows[sim.active[k]].lp.is_some())
            .collect();
        lp_idx.sort_by_key(|&k| {
            let f = &sim.flows[sim.active[k]];
            (f.deadline_slot, f.job, f.node.index())
        });
        if !lp_idx.is_empty() {
            next = next.min((k_now + 1) as f64 * slot);
        }
        // Pass 1: planned rates.
        let planned: Vec<FlowDemand<'_>> = lp_idx
            .iter()
            .map(|&k| {
                let f = &sim.flows[sim.active[k]];
                let plan = sim.st[f.job].plan.as_ref();
                let r = plan.map_or(0.0, |p| p.rate(f.lp.unwrap_or(0), k_now));
                f.demand(r)
            })
            .collect();
        for (r, &k) in priority_greedy(&planned, free).into_iter().zip(&lp_idx) {
            rate[k] = r;
            sim.on_plan[k] = r;
        }
        // Pass 2: flows behind their plan catch up, earliest deadline first.
        let mut behind = Vec::new();
        let mut owed = Vec::new();
        for &k in &lp_idx {
            let f = &sim.flows[sim.active[k]];
            let Some(plan) = sim.st[f.job].plan.as_ref() else {
                continue;
            };
            let fi = f.lp.unwrap_or(0);
            // Bits planned up to now: whole slots before the current one, and the
            // current slot's rate for the part of it already elapsed (a flow that
            // moves at its planned rate is never behind).
            let into_slot = (sim.now - k_now as f64 * slot).clamp(0.0, slot);
            let cum: f64 = plan
                .rates(fi)
                .take_while(|&(s, _)| s <= k_now)
                .map(|(s, r)| r * if s < k_now { slot } else { into_slot })
                .sum();
            let late = k_now > f.deadline_slot;
            let tol = 1e-9 * f.size.max(1.0);
            if late || f.sent + tol < cum.min(f.size) {
                behind.push(k);
                owed.push(if late {
                    f.remaining
                } else {
                    cum.min(f.size) - f.sent
                });
            }
        }
        let d: Vec<FlowDemand<'_>> = behind
            .iter()
            .map(|&k| sim.flows[sim.active[k]].demand(f64::INFINITY))
            .collect();
        for ((r, &k), &o) in priority_greedy(&d, free)
            .into_iter()
            .zip(&behind)
            .zip(&owed)
        {
            rate[k] += r;
            // The gap to the plan closes at the catch-up rate on top of the plan. A
            // gap too small to move the clock closes within the next step anyway
            // (and an event at `now` would repeat forever).
            let at = sim.now + o / r;
            if r > 0.0 && at > sim.now {
                next = next.min(at);
            }
        }
        // Pass 3 (RestPolicy::LatPriority, the default): the DAG transfers outside the
        // LP by absolute LAT, strict priority.
        if jit.rest == RestPolicy::LatPriority {
            let mut rest: Vec<usize> = (0..sim.active.len())
                .filter(|&k| {
                    let f = &sim.flows[sim.active[k]];
                    f.lp.is_none() && !f.channel
                })
                .collect();
            rest.sort_by(|&a, &b| {
                let (fa, fb) = (&sim.flows[sim.active[a]], &sim.flows[sim.active[b]]);
                fa.lat_abs
                    .total_cmp(&fb.lat_abs)
                    .then(sim.active[a].cmp(&sim.active[b]))
            });
            let d: Vec<FlowDemand<'_>> = rest
                .iter()
                .map(|&k| sim.flows[sim.active[k]].demand(f64::INFINITY))
                .collect();
            for (r, &k) in priority_greedy(&d, free).into_iter().zip(&rest) {
                rate[k] = r;
            }
        }
        // Pass 4: everything else shares what is left, channel by channel.
        sim.share_channels(rate, free);
        next
    }
}

impl Sim<'_> {
    pub(super) fn plan(&mut self, j: usize, jit: &JitConfig, arrival: f64) -> Result<(), Error> {
        let job = &self.jobs[j].job;
        let est = lat::estimate(job, self.cluster, jit.lat);
        let n_lp = lp::alpha_prefix(job.transfers().len(), jit.alpha)?;
        // The transfers left out of the LP are background traffic (paper §3.4 1)), but JIT,
        // the central scheduler that hands its plan to the machines (§1.3), knows their LATs,
        // and "transfers with a smaller LAT should have a higher priority" (§3.4 1)): each
        // channel sends them in LAT order instead of gRPC's random one.
        let mut by_lat: Vec<TaskId> = job.transfers().to_vec();
        by_lat.sort_by(|&a, &b| {
            let (la, lb) = (est.lat(a).unwrap_or(0.0), est.lat(b).unwrap_or(0.0));
            la.total_cmp(&lb).then(a.cmp(&b))
        });
        for (rank, &t) in by_lat.iter().enumerate() {
            self.st[j].tf_rank[t.index()] = rank as u32;
            self.st[j].lat_abs[t.index()] = arrival + est.lat(t).unwrap_or(0.0);
        }
        let base = lp::job_transfers(job, self.cluster, &est, n_lp, arrival);
        if base.is_empty() {
            return Ok(());
        }
        self.reserved
            .forget_before((self.now / jit.slot.as_secs_f64()).floor() as i64);
        let mut relaxed = false;
        for attempt in 0..=jit.max_relax {
            let scale = f64::from(1u32 << attempt.min(20));
            let ts: Vec<LpTransfer> = base
                .iter()
                .map(|t| LpTransfer {
                    deadline: t.release + (t.deadline - t.release) * scale,
                    ..*t
                })
                .collect();
            match lp::solve(
                self.cluster,
                &ts,
                &self.reserved,
                jit.slot,
                jit.objective,
                jit.backend,
            ) {
                Ok(s) => {
                    self.lp.solves += s.solves.max(1);
                    self.lp.planned += 1;
                    self.lp.relaxed += usize::from(relaxed);
                    self.lp.max_variables = self.lp.max_variables.max(s.variables);
                    self.lp_peaks.push(s.min_max);
                    self.reserved.add_schedule(self.cluster, &ts, &s);
                    for (f, &t) in self.jobs[j].job.transfers()[..n_lp].iter().enumerate() {
                        self.st[j].lp_index[t.index()] = f as u32;
                    }
                    self.st[j].plan = Some(s);
                    return Ok(());
                }
                Err(Error::Infeasible { .. }) => {
                    self.lp.solves += 1;
                    relaxed = true;
                }
                Err(e) => return Err(e),
            }
        }
        self.lp.unplanned += 1;
        Ok(())
    }
}
