//! Sincronia (Agarwal et al., "Sincronia: Near-Optimal Network Design for Coflows", SIGCOMM
//! 2018): the coflows of [`super::coflow`] ordered by BSSI over their remaining demand,
//! recomputed when a coflow arrives or completes (the paper's online re-ordering at coflow
//! arrivals and departures).

use super::coflow::Ranked;
use super::engine::Sim;
use super::policy::RatePolicy;
use crate::baselines::bssi_order;

/// The Sincronia baseline: the current BSSI rank of every job.
pub(crate) struct Sincronia(Ranked);

impl Sincronia {
    /// For a run over `jobs` jobs.
    pub(crate) fn new(jobs: usize) -> Self {
        Self(Ranked::new(jobs))
    }
}

impl RatePolicy for Sincronia {
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        false
    }

    fn rates(&mut self, sim: &mut Sim<'_>, rate: &mut [f64], free: &mut [f64]) -> f64 {
        self.0.rates(sim, rate, free, |sim, jobs, d| {
            bssi_order(d, &vec![1.0; jobs.len()], sim.cluster.capacities().len())
        });
        f64::INFINITY
    }
}
