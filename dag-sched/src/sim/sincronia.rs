//! Sincronia (Agarwal et al., "Sincronia: Near-Optimal Network Design for Coflows", SIGCOMM
//! 2018): the coflows of [`super::scaled`] ordered by BSSI over their remaining demand,
//! recomputed when a coflow arrives or completes (the paper's online re-ordering at coflow
//! arrivals and departures).

use super::engine::{Change, Sim};
use super::policy::RatePolicy;
use super::scaled::Scaled;
use crate::baselines::bssi_order;

/// The Sincronia baseline: the coflows, served incrementally ([`Scaled`]) in BSSI order.
pub(crate) struct Sincronia(Scaled);

impl Sincronia {
    /// For a run over `jobs` jobs.
    pub(crate) fn new(jobs: usize) -> Self {
        Self(Scaled::new(jobs, order))
    }
}

/// BSSI over the coflows' per-port remaining demands (`jobs`: the jobs with active flows,
/// `d`: their demands; returns indices into `jobs`, first to last), weights 1.
pub(super) fn order(sim: &Sim<'_>, jobs: &[usize], d: &[Vec<(usize, f64)>]) -> Vec<usize> {
    bssi_order(d, &vec![1.0; jobs.len()], sim.cluster.capacities().len())
}

impl RatePolicy for Sincronia {
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        false
    }

    fn dense(&self) -> bool {
        false
    }

    fn sparse_rates(&mut self, sim: &mut Sim<'_>, _out: &mut Vec<Change>, free: &mut [f64]) -> f64 {
        self.0.rates(sim, free)
    }

    fn advance(&mut self, sim: &mut Sim<'_>, t1: f64, done: &mut Vec<usize>) {
        self.0.step(sim, t1, done);
    }
}
