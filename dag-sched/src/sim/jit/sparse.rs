//! [`RestPolicy::LatPriority`](crate::sim::RestPolicy::LatPriority) over jobs without a DAG
//! (coflows, files), incrementally. With nothing to plan and no LAT, JIT's four passes come
//! down to one strict-priority walk over the channel heads, the job with the fewest bits
//! left first and by flow id within a job (and across jobs tied in bits left); the dense
//! policy sorts every head again at every event (641 s over the whole FB2010 trace). Here
//! the heads are kept in [`PriorityClasses`] under the key `label << 32 | id`, a job's
//! label following its rank ([`Labels`]), so that an event repairs the last walk and
//! re-keys only the heads of the jobs whose rank moved.
//!
//! A job's bits left are summed exactly (fixed point, 2⁻⁶⁴ bits) over its flows that do not
//! move, kept as they start, end, start moving and stop, plus its moving flows' bits left
//! now (at most one per resource moves in a strict-priority walk), and rounded once: the
//! dense pass's sum in `f64` wherever that sum is exact (whole bits, as the trace's sizes
//! are), so that jobs tied there are tied here. The moving flows' bits left are the lazy
//! step's, not the dense step's (they differ in the last bits), so the runs agree to a
//! stated tolerance, not bit for bit (`sparse_lat_priority_is_the_dense_one`, 1e-9 relative
//! on every job's finish); two jobs that reach the same bits left by different service,
//! in exact arithmetic, are ordered by how each step rounds, which can differ.

use super::labels::Labels;
use crate::rates::PriorityClasses;
use crate::sim::engine::{Change, FlowEvent, IdSet, RatePolicy, Sim};

/// No position.
const NONE: u32 = u32::MAX;

/// `x` in fixed point, 2⁻⁶⁴ bits (exact for bits left from 2⁻¹² to 2⁶³; less only drops
/// bits below 2⁻⁶⁴).
fn fixed(x: f64) -> i128 {
    (x * 18_446_744_073_709_551_616.0) as i128
}

/// A fixed-point sum back in bits, rounded once (to nearest).
fn unfixed(x: i128) -> f64 {
    x as f64 / 18_446_744_073_709_551_616.0
}

/// The incremental LatPriority policy for jobs without a DAG.
#[derive(Default)]
pub(crate) struct SparseLat {
    /// The channel heads, by route, keyed by job label and id.
    classes: PriorityClasses,
    labels: Labels,
    /// Per job: the exact bits left of its flows that do not move, its live flows, its
    /// channel heads.
    still: Vec<i128>,
    live: Vec<u32>,
    heads: Vec<Vec<usize>>,
    /// The jobs with live flows (those with none dropped when the order is next built).
    jobs: Vec<usize>,
    in_jobs: Vec<bool>,
    /// Per flow: what it adds to its job's `still` (0 while it moves), its position in its
    /// job's `heads`, whether it is live.
    part: Vec<i128>,
    head_pos: Vec<u32>,
    alive: Vec<bool>,
    /// The moving flows.
    moving: IdSet,
    // Buffers of `sparse_rates`.
    acc: Vec<i128>,
    rem: Vec<f64>,
    tied: Vec<bool>,
    changed: Vec<usize>,
    new_heads: Vec<usize>,
}

impl SparseLat {
    /// Grows the per-flow and per-job tables for flow `id` of job `j`.
    fn ensure(&mut self, id: usize, j: usize) {
        if self.part.len() <= id {
            let n = id + 1;
            self.part.resize(n, 0);
            self.head_pos.resize(n, NONE);
            self.alive.resize(n, false);
        }
        if self.still.len() <= j {
            let n = j + 1;
            self.still.resize(n, 0);
            self.live.resize(n, 0);
            self.heads.resize_with(n, Vec::new);
            self.in_jobs.resize(n, false);
            self.acc.resize(n, 0);
            self.rem.resize(n, 0.0);
        }
    }

    /// Flow `id` moves from now on: its bits leave its job's still sum.
    fn start_moving(&mut self, j: usize, id: usize) {
        self.still[j] -= std::mem::take(&mut self.part[id]);
        self.moving.insert(id);
    }

    /// Follows the flow changes of `sim.log`.
    fn follow(&mut self, sim: &Sim<'_>) {
        for &e in &sim.log {
            match e {
                FlowEvent::Start(id) => {
                    let f = &sim.flows[id];
                    let j = f.job;
                    self.ensure(id, j);
                    self.alive[id] = true;
                    self.part[id] = fixed(f.remaining);
                    self.still[j] += self.part[id];
                    self.live[j] += 1;
                    if !self.in_jobs[j] {
                        self.in_jobs[j] = true;
                        self.jobs.push(j);
                    }
                }
                FlowEvent::Head(id) => {
                    let j = sim.flows[id].job;
                    self.head_pos[id] = self.heads[j].len() as u32;
                    self.heads[j].push(id);
                    self.new_heads.push(id);
                }
                FlowEvent::End(id) => {
                    let j = sim.flows[id].job;
                    self.classes.remove(id);
                    self.alive[id] = false;
                    let p = std::mem::replace(&mut self.head_pos[id], NONE);
                    if p != NONE {
                        let h = &mut self.heads[j];
                        h.swap_remove(p as usize);
                        if let Some(&m) = h.get(p as usize) {
                            self.head_pos[m] = p;
                        }
                    }
                    if self.moving.contains(id) {
                        self.moving.remove(id);
                    } else {
                        self.still[j] -= std::mem::take(&mut self.part[id]);
                    }
                    self.live[j] -= 1;
                    if self.live[j] == 0 {
                        self.labels.drop_job(j);
                    }
                }
            }
        }
    }

    /// Each live job's bits left now, the jobs in LatPriority's order (fewest first, then
    /// index) with their ties, and the new labels; re-keys the heads of the jobs whose label
    /// changed and adds the new heads.
    fn rank(&mut self, sim: &Sim<'_>) {
        let live = &self.live;
        let in_jobs = &mut self.in_jobs;
        self.jobs.retain(|&j| {
            let keep = live[j] > 0;
            in_jobs[j] = keep;
            keep
        });
        for &id in self.moving.ids() {
            self.acc[sim.flows[id].job] += fixed(sim.remaining_now(id));
        }
        for &j in &self.jobs {
            self.rem[j] = unfixed(self.still[j] + std::mem::take(&mut self.acc[j]));
        }
        let rem = &self.rem;
        self.jobs
            .sort_unstable_by(|&a, &b| rem[a].total_cmp(&rem[b]).then(a.cmp(&b)));
        self.tied.clear();
        self.tied.extend(
            (0..self.jobs.len())
                .map(|i| i > 0 && rem[self.jobs[i - 1]].total_cmp(&rem[self.jobs[i]]).is_eq()),
        );
        self.changed.clear();
        self.labels
            .assign(&self.jobs, &self.tied, &mut self.changed);
        for &j in &self.changed {
            let key = u64::from(self.labels.get(j)) << 32;
            for &id in &self.heads[j] {
                let f = &sim.flows[id];
                self.classes.remove(id);
                self.classes
                    .add(id, key | id as u64, f.src as u32, f.dst as u32, &f.path);
            }
        }
        for &id in &self.new_heads {
            if !self.alive[id] || self.head_pos[id] == NONE {
                continue;
            }
            let f = &sim.flows[id];
            let key = u64::from(self.labels.get(f.job)) << 32 | id as u64;
            // (No-op for a head re-keyed above.)
            self.classes
                .add(id, key, f.src as u32, f.dst as u32, &f.path);
        }
        self.new_heads.clear();
    }
}

impl RatePolicy for SparseLat {
    /// It runs JIT (over jobs without a DAG: no plan, so no planned usage to report).
    fn reports_planned(&self) -> bool {
        true
    }

    /// Every flow of a job without a DAG waits in its channel (as the dense JIT's do).
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        true
    }

    fn dense(&self) -> bool {
        false
    }

    /// # Complexity
    /// O(E + J log J + M + R · (h + log F)) plus [`PriorityClasses::rates`]'s repair, for E
    /// logged flow changes, J jobs with flows, M moving flows (at most one per resource), and
    /// R heads of the jobs whose label changed.
    fn sparse_rates(&mut self, sim: &mut Sim<'_>, out: &mut Vec<Change>, free: &mut [f64]) -> f64 {
        self.follow(sim);
        self.rank(sim);
        let start = out.len();
        self.classes
            .rates(free, |id, rate| out.push(Change::Flow { id, rate }));
        for c in &out[start..] {
            let Change::Flow { id, rate } = *c else {
                continue;
            };
            if !self.alive.get(id).copied().unwrap_or(false) {
                continue;
            }
            let j = sim.flows[id].job;
            match (self.moving.contains(id), rate > 0.0) {
                (false, true) => self.start_moving(j, id),
                (true, false) => {
                    self.moving.remove(id);
                    // Its bits left as the engine materialises them now.
                    self.part[id] = fixed(sim.remaining_now(id));
                    self.still[j] += self.part[id];
                }
                _ => {}
            }
        }
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::Cluster;
    use crate::MachineId;
    use crate::sim::coflow_tests::{RealCoflow, coflow_jobs, fat_tree, wide_coflows};
    use crate::sim::{
        JitConfig, RestPolicy, Scheduler, SimConfig, SimResult, engine, jit, simulate,
    };
    use crate::workload::{JobKind, SimJob, file_job_bits};
    use fabric_model::BitsPerSec;

    /// LatPriority on a run (its seed drawing the channels' orders).
    fn cfg(seed: u64) -> SimConfig {
        let lat = JitConfig::default().with_rest(RestPolicy::LatPriority);
        SimConfig::new(Scheduler::Jit(lat)).with_seed(seed)
    }

    /// The dense JIT with `cfg` (its four passes over every active flow at every event).
    fn dense(cluster: &Cluster, jobs: &[SimJob], cfg: &SimConfig) -> SimResult {
        engine::run(
            cluster,
            jobs,
            cfg,
            crate::sim::run::for_scheduler(cfg.scheduler, jobs.len()),
            false,
        )
        .unwrap()
    }

    /// The jobs of `coflows` and of `files` (sender, receiver drawn apart, bits; from 10 ms).
    ///
    /// Sizes and arrivals are real-valued: with whole megabytes a job served for a while can
    /// come to exactly the bits left of another in exact arithmetic, and which comes first
    /// then hangs on how each step rounds (a drawn case: a file at 56 Mbit left against a
    /// waiting 7 MB coflow, the dense step's 104e6 − 16e6 − 32e6 rounding one way and the
    /// lazy step's 104e6 − 48e6 the other, 28 ms apart). Ties between jobs that have not
    /// moved, which rounding cannot break, are tested on their own
    /// (`jobs_tied_in_bits_left_are_served_by_flow_id`).
    fn lat_jobs(
        cluster: &Cluster,
        coflows: &[RealCoflow],
        files: &[(u32, u32, f64)],
    ) -> Vec<SimJob> {
        let m = cluster.machines().len() as u32;
        let mut jobs = coflow_jobs(cluster, coflows);
        for &(s, d, bits) in files {
            let (s, d) = (s % m, (s % m + 1 + d % (m - 1)) % m);
            let job = file_job_bits(bits, MachineId::new(s), MachineId::new(d), cluster).unwrap();
            jobs.push(SimJob::at_secs(0.01, job, JobKind::File));
        }
        jobs
    }

    /// Whether the incremental run of `jobs` is the dense one: every job's finish to 1e-9
    /// relative (the lazy step's bits left differ from the dense step's in the last bits,
    /// and a job's are summed exactly here, in order there), the utilisation maximum to
    /// 1e-9, every bit delivered, the same (empty) LP figures.
    fn sparse_is_dense(cluster: &Cluster, jobs: &[SimJob], seed: u64) -> Result<(), TestCaseError> {
        let cfg = cfg(seed);
        let Scheduler::Jit(lat) = cfg.scheduler else {
            unreachable!()
        };
        prop_assert!(jit::is_sparse_lat(&lat, jobs));
        let fast = simulate(cluster, jobs, &cfg).unwrap();
        let slow = dense(cluster, jobs, &cfg);
        prop_assert_eq!(fast.lp, slow.lp);
        prop_assert!(fast.max_conservation_error < 1e-9);
        for (k, (a, b)) in fast.jobs.iter().zip(&slow.jobs).enumerate() {
            prop_assert!(
                (a.finish - b.finish).abs() <= 1e-9 * b.finish.abs().max(1e-12),
                "job {}: incremental {} vs dense {}",
                k,
                a.finish,
                b.finish
            );
        }
        prop_assert!(
            (fast.max_port_utilisation - slow.max_port_utilisation).abs() <= 1e-9,
            "{} vs {}",
            fast.max_port_utilisation,
            slow.max_port_utilisation
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Coflows and files on a big switch of few ports: the incremental LatPriority is the
        /// dense one.
        #[test]
        fn sparse_lat_priority_is_the_dense_one(
            coflows in proptest::collection::vec(
                (0.0f64..0.04,
                 proptest::collection::vec(0u32..5, 1..4),
                 proptest::collection::vec((0u32..5, 1e5f64..2e7), 1..4)),
                1..12),
            files in proptest::collection::vec((0u32..5, 0u32..5, 1e5f64..3e7), 0..4),
            seed in 0u64..100,
        ) {
            let cluster = Cluster::uniform(5, BitsPerSec::from_gbps(1)).unwrap();
            sparse_is_dense(&cluster, &lat_jobs(&cluster, &coflows, &files), seed)?;
        }

        /// The same on a 4-ary fat tree (routes of two and six links, sharing the core).
        #[test]
        fn sparse_lat_priority_is_the_dense_one_on_a_fat_tree(
            coflows in wide_coflows(16),
            files in proptest::collection::vec((0u32..16, 0u32..16, 1e5f64..3e7), 0..4),
            seed in 0u64..100,
        ) {
            let cluster = fat_tree();
            sparse_is_dense(&cluster, &lat_jobs(&cluster, &coflows, &files), seed)?;
        }
    }

    #[test]
    fn jobs_tied_in_bits_left_are_served_by_flow_id() {
        // A (job 1, 2 bits from machine 1 to 2) waits behind F (job 2, 1 bit, 0 to 2) from 0;
        // B (job 0, as A) arrives at 0.5 s, when F has 0.5 bits left. At 1 s A and B tie at
        // 2 bits, neither having moved: tied jobs' flows go by id, so A's (released first)
        // goes first, A ends at 3 s and B at 5 s (by job index, B would go first).
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let file = |bits, s, d| {
            file_job_bits(bits, MachineId::new(s), MachineId::new(d), &cluster).unwrap()
        };
        let jobs = [
            SimJob::at_secs(0.5, file(2.0, 1, 2), JobKind::File),
            SimJob::at_secs(0.0, file(2.0, 1, 2), JobKind::File),
            SimJob::at_secs(0.0, file(1.0, 0, 2), JobKind::File),
        ];
        for r in [
            simulate(&cluster, &jobs, &cfg(0)).unwrap(),
            dense(&cluster, &jobs, &cfg(0)),
        ] {
            let finish: Vec<f64> = r.jobs.iter().map(|j| j.finish).collect();
            assert_eq!(finish, [5.0, 3.0, 1.0]);
        }
    }

    #[test]
    fn a_job_with_a_dag_or_the_background_rest_is_not_sparse() {
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let file = file_job_bits(4.0, MachineId::new(0), MachineId::new(1), &cluster).unwrap();
        let mut jobs = vec![SimJob::at_secs(0.0, file, JobKind::File)];
        let lat = JitConfig::default().with_rest(RestPolicy::LatPriority);
        assert!(jit::is_sparse_lat(&lat, &jobs));
        assert!(!jit::is_sparse_lat(&JitConfig::default(), &jobs));
        let mut b = crate::job::JobBuilder::new();
        let t = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
        let c = b.compute_secs(1.0);
        b.edge(t, c);
        jobs.push(SimJob::at_secs(
            0.0,
            b.build(&cluster).unwrap(),
            JobKind::CustomDag,
        ));
        assert!(!jit::is_sparse_lat(&lat, &jobs));
    }
}
