//! Sincronia (Agarwal et al., "Sincronia: Near-Optimal Network Design for Coflows", SIGCOMM
//! 2018): the order of the coflows of [`super::scaled`] (the policy, `scaled::Scaled` with
//! this [`order`]): BSSI over their remaining demand, recomputed when a coflow arrives or
//! completes (the paper's online re-ordering at coflow arrivals and departures).

use super::engine::Sim;
use crate::baselines::bssi_order;

/// BSSI over the coflows' per-port remaining demands (`jobs`: the jobs with active flows,
/// `d`: their demands; returns indices into `jobs`, first to last), weights 1.
pub(super) fn order(sim: &Sim<'_>, jobs: &[usize], d: &[Vec<(usize, f64)>]) -> Vec<usize> {
    bssi_order(d, &vec![1.0; jobs.len()], sim.cluster.capacities().len())
}
