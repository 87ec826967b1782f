//! Varys (Chowdhury, Zhong and Stoica, "Efficient Coflow Scheduling with Varys", SIGCOMM
//! 2014): the order of the coflows of [`super::scaled`] (the policy, `scaled::Scaled` with
//! this [`order`]): SEBF (smallest effective bottleneck first: a coflow's largest remaining
//! bits on one port over that port's capacity, on the remaining bits when a coflow arrives
//! or completes, when the paper re-runs SEBF + MADD), ties by arrival.

use super::engine::Sim;

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
