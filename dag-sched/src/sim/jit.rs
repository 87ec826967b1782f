//! JIT (the paper, §3.4): at a DAG job's arrival, LAT estimation, α-selection and the LP are
//! run once; the LP's flows get their planned rate for the current slot first, then flows
//! behind their plan (released late, or past their LAT) catch up greedily in deadline order
//! (the gap to the plan counted continuously, so a flow at its planned rate is never behind);
//! with [`RestPolicy::Background`] (the default, the paper's reading) the transfers outside the
//! LP and the flows without a DAG (files, coflows) share what is left as in the TensorFlow
//! policy; with [`RestPolicy::LatPriority`] (ours) the DAG transfers outside the LP and the
//! files' channel heads come next by strict priority, the job with the fewest bits left first
//! and a job's transfers in LAT order, and what is left is shared as in the TensorFlow policy;
//! with [`RestPolicy::Sincronia`] or [`RestPolicy::Varys`] (ours) each job's transfers
//! outside the LP form a coflow, and the coflows share what the plans leave as those
//! schedulers share a fabric (their dense pass, [`Ranked::outside_plans`]).
//!
//! Without a DAG job, JIT hands the engine a faster driver ([`RatePolicy::driver`]): the
//! TensorFlow policy's fair sharing for [`RestPolicy::Background`] ([`is_fair_sharing`]) and
//! [`SparseLat`] for [`RestPolicy::LatPriority`] ([`is_sparse_lat`]): the same runs without a
//! pass over every active flow at every event.

use super::coflow::Ranked as Coflows;
use super::config::{JitConfig, RestPolicy};
use super::engine::{RatePolicy, Sim};
use super::metrics::{JobPlan, LpStats, SimResult};
use super::scaled::Order;
use super::tensorflow::TensorFlow;
use crate::Error;
use crate::job::TaskId;
use crate::lat;
use crate::lp::{self, Reservations, Schedule};
use crate::rates::{FlowDemand, greedy_take, priority_greedy};
use crate::workload::SimJob;

mod labels;
mod rank;
mod sparse;

use rank::Ranked;
pub(crate) use sparse::SparseLat;

/// The JIT policy with its parameters.
pub(crate) struct Jit {
    cfg: JitConfig,
    /// Reused by [`RestPolicy::LatPriority`]'s pass: each job's bits left, the flows it
    /// ranks, and the channel heads' rates (position in `active`, rate).
    job_rem: Vec<f64>,
    rest: Vec<Ranked>,
    first: Vec<(usize, f64)>,
    /// The buffers of the pass's sort.
    order: rank::Order,
    /// Each job's plan (`None` until planned, or when the LP could not plan it).
    plans: Vec<Option<JobPlan>>,
    /// The rates the plans so far promise on every resource-slot.
    reserved: Reservations,
    /// The LP's statistics and each planned job's `U*`, for the result.
    stats: LpStats,
    peaks: Vec<f64>,
    /// [`RestPolicy::Sincronia`] and [`RestPolicy::Varys`]: the coflow scheduler's state over
    /// the flows outside the plans, and its order.
    coflows: Option<(Coflows, Order)>,
}

impl Jit {
    /// JIT with `cfg`.
    pub(crate) fn new(cfg: JitConfig) -> Self {
        Self {
            cfg,
            job_rem: Vec::new(),
            rest: Vec::new(),
            first: Vec::new(),
            order: rank::Order::default(),
            plans: Vec::new(),
            reserved: Reservations::new(),
            stats: LpStats::default(),
            peaks: Vec::new(),
            coflows: match cfg.rest {
                RestPolicy::Sincronia => Some((Coflows::outside_plans(), super::sincronia::order)),
                RestPolicy::Varys => Some((Coflows::outside_plans(), super::varys::order)),
                RestPolicy::Background | RestPolicy::LatPriority => None,
            },
        }
    }

    /// The last slot of planned flow `id`'s window (`i64::MAX` for a flow outside the plans).
    fn deadline_slot(&self, sim: &Sim<'_>, id: usize) -> i64 {
        let f = &sim.flows[id];
        match (self.plan_of(f.job), f.lp) {
            (Some(p), Some(i)) => p.last_slot(i).unwrap_or(i64::MAX),
            _ => i64::MAX,
        }
    }

    /// Job `j`'s plan, if it has one.
    fn plan_of(&self, j: usize) -> Option<&Schedule> {
        self.plans
            .get(j)
            .and_then(Option::as_ref)
            .map(JobPlan::schedule)
    }
}

/// Whether JIT with `cfg` over `jobs` is the TensorFlow policy: no job has a DAG (nothing
/// to plan: every flow is outside the LP) and [`RestPolicy::Background`] sends every flow
/// as background traffic, each (job, sender, receiver) channel one transfer at a time in
/// its job's random order (only a planned job's channels go in LAT order), the channels
/// sharing the capacity max-min fairly. Then [`simulate`](super::simulate) runs the
/// TensorFlow policy's incremental filling instead of this one's dense passes over every
/// active flow at every event: the same rates, bit for bit
/// ([`max_min_fair`](crate::rates::max_min_fair) and the route classes do the same
/// arithmetic), the engine's lazy step instead of its dense one (the same figures to 1e-9,
/// `jit_without_dags_is_fair_sharing`, but for the event count: the lazy step may end a
/// flow within rounding of its last bit at an event where the dense one gives it its own).
/// O(J) for J jobs.
pub(crate) fn is_fair_sharing(cfg: &JitConfig, jobs: &[SimJob]) -> bool {
    cfg.rest == RestPolicy::Background && !jobs.iter().any(|j| j.job.has_compute())
}

/// Whether JIT with `cfg` over `jobs` runs as [`SparseLat`]: [`RestPolicy::LatPriority`]
/// and no job has a DAG (nothing to plan, no LAT: one strict-priority walk over the channel
/// heads, the job with the fewest bits left first), and flow ids fit its keys' 32 bits.
/// O(J) for J jobs.
pub(crate) fn is_sparse_lat(cfg: &JitConfig, jobs: &[SimJob]) -> bool {
    let flows: usize = jobs.iter().map(|j| j.job.transfers().len()).sum();
    cfg.rest == RestPolicy::LatPriority
        && !jobs.iter().any(|j| j.job.has_compute())
        && flows < 1 << 32
}

impl RatePolicy for Jit {
    fn driver(&self, jobs: &[SimJob]) -> Option<Box<dyn RatePolicy>> {
        if is_fair_sharing(&self.cfg, jobs) {
            // Nothing to plan and every flow background traffic: the fair sharing of the
            // TensorFlow policy's channels, incrementally.
            Some(Box::new(TensorFlow::reporting_planned()))
        } else if is_sparse_lat(&self.cfg, jobs) {
            // Nothing to plan and our LatPriority: its one strict-priority walk, incrementally.
            Some(Box::new(SparseLat::default()))
        } else {
            None
        }
    }

    fn reports_planned(&self) -> bool {
        true
    }

    fn on_arrival(&mut self, sim: &mut Sim<'_>, j: usize) -> Result<(), Error> {
        if sim.jobs[j].job.has_compute() {
            self.plan(sim, j)?;
        }
        Ok(())
    }

    fn report(&mut self, out: &mut SimResult) {
        out.lp = self.stats;
        out.lp_peaks = std::mem::take(&mut self.peaks);
        out.plans = std::mem::take(&mut self.plans);
        out.plans.resize(out.jobs.len(), None);
    }

    /// Not in the LP, not a DAG transfer that LatPriority sends by LAT instead, and no flow
    /// under a coflow scheduler (which sends each coflow's flows together).
    fn uses_channel(&self, lp: bool, dag: bool) -> bool {
        !(lp || self.coflows.is_some() || (dag && self.cfg.rest == RestPolicy::LatPriority))
    }

    fn rates(&mut self, sim: &mut Sim<'_>, rate: &mut [f64], free: &mut [f64]) -> f64 {
        let jit = self.cfg;
        let mut next = f64::INFINITY;
        let now = sim.now;
        let mut lp_idx: Vec<usize> = (0..sim.active.len())
            .filter(|&k| sim.flows[sim.active[k]].lp.is_some())
            .collect();
        // Earliest planned end first (its last slot, then the end inside it: its LAT, or its
        // widened deadline).
        let end = |sim: &Sim<'_>, k: usize| {
            let f = &sim.flows[sim.active[k]];
            self.plan_of(f.job)
                .and_then(|p| p.window_secs(f.lp.unwrap_or(0)))
                .map_or(f64::INFINITY, |w| w.1)
        };
        lp_idx.sort_by(|&a, &b| {
            let (fa, fb) = (&sim.flows[sim.active[a]], &sim.flows[sim.active[b]]);
            self.deadline_slot(sim, sim.active[a])
                .cmp(&self.deadline_slot(sim, sim.active[b]))
                .then(end(sim, a).total_cmp(&end(sim, b)))
                .then((fa.job, fa.node.index()).cmp(&(fb.job, fb.node.index())))
        });
        // Pass 1: planned rates, each slot's bits over the part of the slot inside the window.
        let planned: Vec<FlowDemand<'_>> = lp_idx
            .iter()
            .map(|&k| {
                let f = &sim.flows[sim.active[k]];
                let fi = f.lp.unwrap_or(0);
                let r = self.plan_of(f.job).map_or(0.0, |p| {
                    next = next.min(p.next_change(fi, now));
                    p.rate_at(fi, now)
                });
                f.demand(r)
            })
            .collect();
        for (r, &k) in priority_greedy(&planned, free).into_iter().zip(&lp_idx) {
            rate[k] = r;
            sim.on_plan[k] = r;
        }
        // Pass 2: flows behind their plan catch up, earliest planned end first.
        let mut behind = Vec::new();
        let mut owed = Vec::new();
        for &k in &lp_idx {
            let f = &sim.flows[sim.active[k]];
            let Some(plan) = self.plan_of(f.job) else {
                continue;
            };
            let fi = f.lp.unwrap_or(0);
            // Bits planned up to now (a flow that moves at its planned rate is never behind).
            let cum = plan.planned_bits(fi, now).min(f.size);
            let late = plan.next_change(fi, now).is_infinite();
            let tol = 1e-9 * f.size.max(1.0);
            if late || f.sent + tol < cum {
                behind.push(k);
                owed.push(if late { f.remaining } else { cum - f.sent });
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
            let at = now + o / r;
            if r > 0.0 && at > now {
                next = next.min(at);
            }
        }
        // Pass 3 (RestPolicy::Sincronia and Varys, ours): every flow outside the plans as a
        // coflow scheduler sends it, in what the plans left; nothing else shares.
        if let Some((c, order)) = self.coflows.as_mut() {
            c.rates(sim, rate, free, *order);
            return next;
        }
        // Pass 3 (RestPolicy::LatPriority, ours): the DAG transfers outside the LP and the
        // files' channel heads by strict priority, the job with the fewest bits left in its
        // released transfers first (its LP transfers included), a job's transfers in order of
        // LAT (on a tie a DAG job before a file, which has no LAT). Measured against strict LAT priority ahead of every file, and against earliest
        // deadline first (a file due at its arrival plus twice its time alone), with 150 DAG
        // jobs and 40 files at load 0.9 (`examples/load_probe`): DAG speedup 1.441 and files
        // 1.375x alone here, 1.353 and 1.690 for LAT priority, 1.349 and 1.390 for EDF
        // (TensorFlow's order: files 1.621; Varys 1.332).
        let mut first = std::mem::take(&mut self.first);
        first.clear();
        // Whether every flow of pass 3 ends it blocked (a resource of its route with no
        // free capacity; it stays so, a later flow crossing it taking 0).
        let mut blocked = true;
        if jit.rest == RestPolicy::LatPriority {
            // One pass over the active flows: each job's bits left (in `active` order, as
            // before), and the flows ranked here.
            let job_rem = &mut self.job_rem;
            job_rem.clear();
            job_rem.resize(sim.jobs.len(), 0.0);
            let rest = &mut self.rest;
            rest.clear();
            for (k, &id) in sim.active.iter().enumerate() {
                let f = &sim.flows[id];
                job_rem[f.job] += f.remaining;
                if f.lp.is_some() {
                    continue;
                }
                if !f.channel {
                    rest.push(Ranked {
                        job: f.job,
                        lat: f.lat_abs,
                        id,
                        k,
                    });
                } else if !sim.st[f.job].dag && sim.is_head(id) {
                    rest.push(Ranked {
                        job: f.job,
                        lat: f64::INFINITY,
                        id,
                        k,
                    });
                }
            }
            self.order.sort(job_rem, rest);
            let rest = &self.rest;
            // `priority_greedy` over them, a flow at a time.
            for &Ranked { id, k, .. } in rest.iter() {
                let f = &sim.flows[id];
                let r = greedy_take(&f.path, f64::INFINITY, free);
                blocked &= f.path.iter().any(|&p| free[p as usize] <= 0.0);
                if f.channel {
                    first.push((k, r));
                } else {
                    rate[k] = r;
                }
            }
        }
        // Pass 4: everything else (with RestPolicy::Background, the paper's reading, the
        // transfers outside the LP and the files) shares what is left, channel by channel.
        // After LatPriority's pass (which ranked every channel head that shares here) with
        // every flow blocked, `max_min_fair`'s first round freezes every head at 0 and
        // nothing else changes but the negative free capacities it clips: that alone is
        // done (the same rates and capacities, bit for bit; `max_min_fair` giving every head
        // 0 was a fifth of a LatPriority run on 100 FB2010 coflows).
        if jit.rest == RestPolicy::LatPriority && blocked {
            for e in free.iter_mut() {
                if *e < 0.0 {
                    *e = 0.0;
                }
            }
        } else {
            sim.share_channels(rate, free);
        }
        for &(k, r) in &first {
            rate[k] += r;
        }
        self.first = first;
        next
    }
}

impl Jit {
    /// Plans job `j` at its arrival (paper §3.4): its LATs, the α-selection and the LP,
    /// widened when infeasible; its channels send in LAT order.
    fn plan(&mut self, sim: &mut Sim<'_>, j: usize) -> Result<(), Error> {
        let jit = self.cfg;
        let arrival = sim.jobs[j].arrival;
        if self.plans.len() < sim.jobs.len() {
            self.plans.resize(sim.jobs.len(), None);
        }
        let job = &sim.jobs[j].job;
        let est = lat::estimate(job, sim.cluster, jit.lat);
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
            sim.st[j].tf_rank[t.index()] = rank as u32;
            sim.st[j].lat_abs[t.index()] = arrival + est.lat(t).unwrap_or(0.0);
        }
        let selected = lp::alpha_selection(job, &est, n_lp);
        let base = lp::job_transfers(job, sim.cluster, &est, n_lp, arrival);
        if base.is_empty() {
            return Ok(());
        }
        self.reserved
            .forget_before((sim.now / jit.slot.as_secs_f64()).floor() as i64);
        match lp::solve_relaxed(
            sim.cluster,
            &base,
            &self.reserved,
            jit.slot,
            jit.objective,
            jit.backend,
            jit.max_relax,
        ) {
            Ok(r) => {
                self.stats.solves += r.solves;
                self.stats.planned += 1;
                self.stats.relaxed += usize::from(r.widenings > 0);
                self.stats.max_variables = self.stats.max_variables.max(r.schedule.variables);
                self.peaks.push(r.schedule.min_max);
                self.reserved
                    .add_schedule(sim.cluster, &r.transfers, &r.schedule);
                for (f, &t) in selected.iter().enumerate() {
                    sim.st[j].lp_index[t.index()] = f as u32;
                }
                self.plans[j] = Some(JobPlan::new(r.schedule, selected));
                Ok(())
            }
            Err(Error::Infeasible { .. }) => {
                self.stats.solves += jit.max_relax as usize + 1;
                self.stats.unplanned += 1;
                Ok(())
            }
            // A transfer whose window is empty in `f64` (its time alone below the resolution
            // of its release: after a compute of 1e300 s, release and LAT round to the same
            // number): no plan can be written for the job, whose transfers then go as
            // background traffic, as an infeasible job's do.
            Err(Error::EmptyWindow { .. }) => {
                self.stats.unplanned += 1;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::job::JobBuilder;
    use crate::sim::{JitConfig, RestPolicy, Scheduler, SimConfig, simulate};
    use crate::workload::{JobKind, SimJob};
    use crate::{Cluster, MachineId};
    use fabric_model::{BitsPerSec, Nanos};

    /// A chain T1 → C1 (2 s) → C2 ← T2 of unit ports, built by the user (no paper model).
    fn custom(cluster: &Cluster) -> crate::Job {
        let mut b = JobBuilder::new();
        let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
        let t2 = b.transfer_bits(2.0, MachineId::new(1), MachineId::new(2));
        let c1 = b.compute_secs(2.0);
        let c2 = b.compute_secs(1.0);
        b.edge(t1, c1).edge(c1, c2).edge(t2, c2);
        b.build(cluster).unwrap()
    }

    #[test]
    fn a_custom_dag_is_planned_and_measured_as_a_dag_job() {
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        // Arriving inside a slot: the plan starts at the arrival, not at the slot's start.
        let jobs = [SimJob::at_secs(0.25, custom(&cluster), JobKind::CustomDag)];
        let jit = JitConfig::default()
            .with_alpha(1.0)
            .with_slot(Nanos::from_millis(500));
        let r = simulate(&cluster, &jobs, &SimConfig::new(Scheduler::Jit(jit))).unwrap();
        assert_eq!(r.lp.planned, 1);
        assert_eq!(r.jobs[0].kind, JobKind::CustomDag);
        assert!(r.jobs[0].kind.is_dag() && r.jobs[0].kind.model().is_none());
        // Algorithm 1's LATs: T1 1 s, T2 l1 + C1 + trans(T2) = 1 + 2 + 2 = 5 s, past C1's end
        // (3 s): the lexicographic plan spreads T2 to its LAT, C2 starts at 5 s, and the job
        // takes 6 s where its critical path is 4 s (the paper's formula (1), followed).
        let bits = r.lp_bits_on_plan + r.lp_bits_catch_up;
        assert!((bits - 3.0).abs() < 1e-9);
        assert!((r.jobs[0].finish - 6.25).abs() < 1e-6, "{}", r.jobs[0]);
        assert!((r.jobs[0].alone - 4.0).abs() < 1e-9);
        // The plans keep each port's capacity per slot on average (P1's (4)-(5)): in the cut
        // first slot [0.25, 0.5) T1 needs the whole ingress and T2's share of that slot
        // waits, then catches up (0.125 bits); everything else moves on plan.
        assert!((r.lp_bits_catch_up - 0.125).abs() < 1e-6, "{r:?}");
        // Both definitions of remaining bandwidth see the custom job's traffic.
        assert!(!r.remaining.is_empty() && !r.remaining_planned.is_empty());
        assert!(r.jobs[0].to_string().starts_with("dag: arrival 0.250 s"));
    }

    #[test]
    fn planned_transfers_arrive_by_their_lat_and_the_rest_is_background() {
        // T2 (outside the LP at α = 0.5) and a 4-bit file share machine 2's ingress: by default
        // as background traffic, fairly; under our LatPriority T2 goes first, and under our
        // coflow rests too (T2's 2 bits are the smaller coflow).
        let cluster = Cluster::uniform(4, BitsPerSec::new(1)).unwrap();
        let file =
            crate::workload::file_job_bits(4.0, MachineId::new(3), MachineId::new(2), &cluster)
                .unwrap();
        let jobs = [
            SimJob::at_secs(0.0, custom(&cluster), JobKind::CustomDag),
            SimJob::at_secs(0.0, file, JobKind::File),
        ];
        let run = |rest| {
            let jit = JitConfig::default()
                .with_alpha(0.5)
                .with_slot(Nanos::from_millis(500))
                .with_rest(rest);
            simulate(&cluster, &jobs, &SimConfig::new(Scheduler::Jit(jit))).unwrap()
        };
        let bg = run(RestPolicy::Background);
        let ours = run(RestPolicy::LatPriority);
        assert_eq!(JitConfig::default().rest, RestPolicy::Background);
        // T1 (LAT 1 s) is planned at line rate over [0, 1): the file waits for it under both.
        // Then T2 (2 bits) and the file (4 bits) from 1 s: fair, T2 lands at 5 and the file
        // at 7; LAT priority, T2 at 3 and the file at 7.
        assert!((bg.jobs[0].finish - 6.0).abs() < 1e-6, "{}", bg.jobs[0]);
        assert!((ours.jobs[0].finish - 4.0).abs() < 1e-6, "{}", ours.jobs[0]);
        assert!((bg.jobs[1].finish - 7.0).abs() < 1e-6 && (ours.jobs[1].finish - 7.0).abs() < 1e-6);
        // One definition of remaining bandwidth: all DAG traffic, T2 included, leaves less
        // than the planned T1 alone.
        assert!(bg.remaining[0] <= bg.remaining_planned[0]);
        for rest in [RestPolicy::Sincronia, RestPolicy::Varys] {
            let r = run(rest);
            assert_eq!(r.lp.planned, 1, "{}", rest.name());
            assert!(
                (r.jobs[0].finish - 4.0).abs() < 1e-6,
                "{}: {}",
                rest.name(),
                r.jobs[0]
            );
            assert!(
                (r.jobs[1].finish - 7.0).abs() < 1e-6,
                "{}: {}",
                rest.name(),
                r.jobs[1]
            );
        }
    }

    /// Drawn inputs of [`coflows_and_files`]: ports, coflows, files, and a seed.
    type Drawn = (
        u32,
        Vec<crate::sim::tests::DrawnCoflow>,
        Vec<(u32, u32, u32)>,
        u64,
    );

    /// A strategy for [`Drawn`] inputs.
    fn drawn() -> impl proptest::strategy::Strategy<Value = Drawn> {
        use proptest::collection::vec;
        (
            2u32..7,
            vec(
                (0u32..40, vec(0u32..7, 1..4), vec((0u32..7, 1u32..20), 1..4)),
                1..10,
            ),
            vec((0u32..7, 0u32..7, 1u32..30), 0..4),
            0u64..100,
        )
    }

    /// A random coflow trace on `ports` unit-rate (1 Gbit/s) ports and files of `files`'
    /// (sender, receiver, MB) arriving at 10 ms, each file between two different machines.
    fn coflows_and_files(
        ports: u32,
        coflows: &[crate::sim::tests::DrawnCoflow],
        files: &[(u32, u32, u32)],
    ) -> (Cluster, Vec<SimJob>) {
        let text = crate::sim::tests::random_trace(ports, coflows);
        let cluster = Cluster::uniform(ports as usize, BitsPerSec::from_gbps(1)).unwrap();
        let mut jobs = crate::trace::Trace::parse(&text)
            .unwrap()
            .to_jobs(&cluster)
            .unwrap();
        for &(s, d, mb) in files {
            // Another machine than the sender's.
            let (s, d) = (s % ports, (s % ports + 1 + d % (ports - 1)) % ports);
            let (s, d) = (MachineId::new(s), MachineId::new(d));
            let job = crate::workload::file_job_bits(f64::from(mb) * 8e6, s, d, &cluster).unwrap();
            jobs.push(SimJob::at_secs(0.01, job, JobKind::File));
        }
        (cluster, jobs)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// Coflows and files alone (no DAG job), the rest as background: `simulate` runs the
        /// TensorFlow policy's incremental filling for JIT, with the figures of JIT's own
        /// dense passes (every job's finish to 1e-9 relative, the same LP figures), and
        /// keeps JIT's own passes for LatPriority and for DAG jobs.
        #[test]
        fn jit_without_dags_is_fair_sharing(
            (ports, coflows, files, seed) in drawn(),
        ) {
            let (cluster, mut jobs) = coflows_and_files(ports, &coflows, &files);
            let cfg = SimConfig::new(Scheduler::Jit(JitConfig::default())).with_seed(seed);
            proptest::prop_assert!(super::is_fair_sharing(&JitConfig::default(), &jobs));
            let fast = simulate(&cluster, &jobs, &cfg).unwrap();
            let dense = crate::sim::engine::run(
                &cluster,
                &jobs,
                &cfg,
                crate::sim::run::for_scheduler(cfg.scheduler, jobs.len()),
                false,
            )
            .unwrap();
            // (Not the event counts: the lazy step may end a flow within rounding of its
            // last bit at an event where the dense one gives it an event of its own.)
            proptest::prop_assert_eq!(fast.lp, dense.lp);
            proptest::prop_assert_eq!(&fast.remaining_planned, &dense.remaining_planned);
            for (a, b) in fast.jobs.iter().zip(&dense.jobs) {
                proptest::prop_assert!(
                    (a.finish - b.finish).abs() <= 1e-9 * b.finish.abs().max(1e-12),
                    "{} vs {}", a.finish, b.finish
                );
            }
            proptest::prop_assert!((fast.max_port_utilisation - dense.max_port_utilisation).abs() <= 1e-9);
            let lat = JitConfig::default().with_rest(RestPolicy::LatPriority);
            proptest::prop_assert!(!super::is_fair_sharing(&lat, &jobs));
            jobs.push(SimJob::at_secs(0.0, custom(&Cluster::uniform(3, BitsPerSec::new(1)).unwrap()), JobKind::CustomDag));
            proptest::prop_assert!(!super::is_fair_sharing(&JitConfig::default(), &jobs));
        }
    }

    #[test]
    fn transfer_times_give_each_transfers_arrival_and_first_use() {
        // Under TensorFlow's order T1 (1 bit) and T2 (2 bits) share machine 2's ingress from
        // 0.25 s: T1 arrives at 2.25 s and C1 starts at once; T2 arrives at 3.25 s and waits
        // for C2, which starts when C1 ends (4.25 s): waits 0 and 1 s, mean 0.5 s.
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let jobs = [SimJob::at_secs(0.25, custom(&cluster), JobKind::CustomDag)];
        let cfg = SimConfig::new(Scheduler::TensorFlow);
        assert!(
            simulate(&cluster, &jobs, &cfg)
                .unwrap()
                .transfer_times(0)
                .is_empty()
        );
        let r = simulate(&cluster, &jobs, &cfg.with_transfer_times(true)).unwrap();
        let t = r.transfer_times(0);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].task, jobs[0].job.transfers()[0]);
        assert!(
            (t[0].arrived - 2.25).abs() < 1e-9 && t[0].wait() == Some(0.0),
            "{t:?}"
        );
        assert!((t[1].arrived - 3.25).abs() < 1e-9, "{t:?}");
        assert!((t[1].used.unwrap() - 4.25).abs() < 1e-9, "{t:?}");
        assert!((r.jobs[0].mean_wait.unwrap() - 0.5).abs() < 1e-9);
        assert!(r.transfer_times(1).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Without a DAG job nothing is planned and every flow is JIT's rest: JIT with
        /// Sincronia or Varys as its rest policy runs exactly the baseline's dense pass (every
        /// job's finish to 1e-9 relative), on coflows and files. (The dense pass is the
        /// baselines' oracle; their incremental runs may order two coflows of equal
        /// bottleneck differently, by a rounding, which these integer sizes produce.)
        #[test]
        fn a_coflow_rest_without_dags_is_the_baseline(
            (ports, coflows, files, seed) in drawn(),
        ) {
            let (cluster, jobs) = coflows_and_files(ports, &coflows, &files);
            for (rest, order) in [
                (RestPolicy::Sincronia, crate::sim::sincronia::order as crate::sim::scaled::Order),
                (RestPolicy::Varys, crate::sim::varys::order),
            ] {
                let jit = Scheduler::Jit(JitConfig::default().with_rest(rest));
                let cfg = SimConfig::new(jit).with_seed(seed);
                let a = simulate(&cluster, &jobs, &cfg).unwrap();
                let dense = Box::new(crate::sim::coflow::Dense::new(order));
                let b = crate::sim::engine::run(&cluster, &jobs, &cfg, dense, false).unwrap();
                proptest::prop_assert_eq!(a.lp.planned, 0);
                for (x, y) in a.jobs.iter().zip(&b.jobs) {
                    proptest::prop_assert!(
                        (x.finish - y.finish).abs() <= 1e-9 * y.finish.abs().max(1e-12),
                        "{}: {} vs {}", rest.name(), x.finish, y.finish
                    );
                }
            }
        }
    }

    #[test]
    fn lat_priority_and_the_coflow_rests_send_the_job_with_fewer_bits_left_first() {
        // A 1-bit file against T2 (2 bits left in its job once T1 is done) on machine 2's
        // ingress, after the planned T1 [0, 1): the file goes first (1 to 2 s), T2 after it
        // (2 to 4 s), and C2 starts at 4 s (C1 ends at 3 s). Under Sincronia and Varys the
        // file is the smaller coflow.
        let cluster = Cluster::uniform(4, BitsPerSec::new(1)).unwrap();
        let file =
            crate::workload::file_job_bits(1.0, MachineId::new(3), MachineId::new(2), &cluster)
                .unwrap();
        let jobs = [
            SimJob::at_secs(0.0, custom(&cluster), JobKind::CustomDag),
            SimJob::at_secs(0.0, file, JobKind::File),
        ];
        for rest in [
            RestPolicy::LatPriority,
            RestPolicy::Sincronia,
            RestPolicy::Varys,
        ] {
            let jit = JitConfig::default()
                .with_alpha(0.5)
                .with_slot(Nanos::from_millis(500))
                .with_rest(rest);
            let r = simulate(&cluster, &jobs, &SimConfig::new(Scheduler::Jit(jit))).unwrap();
            assert!(
                (r.jobs[1].finish - 2.0).abs() < 1e-6,
                "{}: {}",
                rest.name(),
                r.jobs[1]
            );
            assert!(
                (r.jobs[0].finish - 5.0).abs() < 1e-6,
                "{}: {}",
                rest.name(),
                r.jobs[0]
            );
        }
    }
}
