//! Varys (Chowdhury, Zhong and Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM
//! 2014): the coflows of [`super::coflow`] ordered by SEBF (smallest effective bottleneck
//! first: a coflow's largest remaining bits on one port over that port's capacity, on the
//! remaining bits when a coflow arrives or completes, when the paper re-runs SEBF + MADD),
//! ties by arrival.

use super::coflow::Ranked;
use super::engine::Sim;
use super::policy::RatePolicy;

/// The Varys baseline: the current SEBF rank of every job.
pub(crate) struct Varys(Ranked);

impl Varys {
    /// For a run over `jobs` jobs.
    pub(crate) fn new(jobs: usize) -> Self {
        Self(Ranked::new(jobs))
    }
}

impl RatePolicy for Varys {
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        false
    }

    fn rates(&mut self, sim: &mut Sim<'_>, rate: &mut [f64], free: &mut [f64]) -> f64 {
        self.0.rates(sim, rate, free, |sim, jobs, d| {
            // Γ over full capacities: per port, the coflow's remaining seconds there.
            // `demands` gives one sum per port already.
            let gamma: Vec<f64> = d
                .iter()
                .map(|dj| dj.iter().map(|&(_, x)| x).fold(0.0, f64::max))
                .collect();
            let mut o: Vec<usize> = (0..jobs.len()).collect();
            o.sort_by(|&a, &b| {
                gamma[a]
                    .total_cmp(&gamma[b])
                    .then(sim.st[jobs[a]].fifo.cmp(&sim.st[jobs[b]].fifo))
            });
            o
        });
        f64::INFINITY
    }
}
