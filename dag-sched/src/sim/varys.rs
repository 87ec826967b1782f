//! Varys (Chowdhury, Zhong and Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM
//! 2014): the coflows of [`super::scaled`] ordered by SEBF (smallest effective bottleneck
//! first: a coflow's largest remaining bits on one port over that port's capacity, on the
//! remaining bits when a coflow arrives or completes, when the paper re-runs SEBF + MADD),
//! ties by arrival.

use super::engine::{Change, Sim};
use super::policy::RatePolicy;
use super::scaled::Scaled;

/// The Varys baseline: the coflows, served incrementally ([`Scaled`]) in SEBF order.
pub(crate) struct Varys(Scaled);

impl Varys {
    /// For a run over `jobs` jobs.
    pub(crate) fn new(jobs: usize) -> Self {
        Self(Scaled::new(jobs, order))
    }
}

/// SEBF over the coflows' per-port remaining demands (`jobs`: the jobs with active flows,
/// `d`: their demands in seconds at full capacity; returns indices into `jobs`, first to
/// last), ties by arrival.
///
/// # Complexity
/// O(Σ_j P_j + J log J) for J coflows of P_j ports.
pub(super) fn order(sim: &Sim<'_>, jobs: &[usize], d: &[Vec<(usize, f64)>]) -> Vec<usize> {
    // Γ over full capacities: per port, the coflow's remaining seconds there. `d` gives one
    // sum per port already.
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
}

impl RatePolicy for Varys {
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
