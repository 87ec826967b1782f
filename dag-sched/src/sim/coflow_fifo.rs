//! The coflow papers' FIFO baseline (Varys: Chowdhury, Zhong and Stoica, SIGCOMM 2014; Aalo:
//! Chowdhury and Stoica, SIGCOMM 2015): the order of the coflows of [`super::scaled`] (the
//! policy, `scaled::Scaled` with this [`order`]) is their arrival order. Each coflow in turn
//! gets MADD rates (its flows finish together), and what is left goes greedily to the flows
//! in the same order (work conservation): FIFO at the coflow level, not the strict per-flow
//! priority of FIFO + TicTac, whose order only starts from the job's arrival.

use super::engine::Sim;

/// The coflows with active flows in arrival order (`jobs`: the jobs with active flows;
/// returns indices into `jobs`, first to last); on equal arrivals, input order.
///
/// # Complexity
/// O(J log J) for J coflows.
pub(super) fn order(sim: &Sim<'_>, jobs: &[usize], _d: &[Vec<(usize, f64)>]) -> Vec<usize> {
    let mut o: Vec<usize> = (0..jobs.len()).collect();
    o.sort_by_key(|&a| sim.st[jobs[a]].fifo);
    o
}
