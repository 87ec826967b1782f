//! FIFO + TicTac: jobs in arrival order, and inside a job TicTac's TAC order (Hashemi et al.,
//! "TicTac: Accelerating Distributed Deep Learning with Communication Scheduling", MLSys 2019),
//! by strict priority.

use std::collections::HashMap;

use super::engine::Sim;
use super::policy::RatePolicy;
use crate::Error;
use crate::baselines::tictac_order;
use crate::cluster::Cluster;
use crate::job::{Job, NodeKind, TaskId};
use crate::lat;
use crate::rates::{FlowDemand, priority_greedy};

/// The FIFO + TicTac baseline; jobs of one shape share their TAC order, computed once.
#[derive(Default)]
pub(crate) struct TicTac {
    tac_cache: HashMap<Vec<u64>, Vec<u32>>,
}

impl RatePolicy for TicTac {
    fn on_arrival(&mut self, sim: &mut Sim<'_>, j: usize) -> Result<(), Error> {
        let job = &sim.jobs[j].job;
        let order = self
            .tac_cache
            .entry(tictac_key(job, sim.cluster))
            .or_insert_with(|| tictac_order(job, sim.cluster, true));
        for (k, &p) in order.iter().enumerate() {
            sim.st[j].prio[job.transfers()[k].index()] = p;
        }
        Ok(())
    }

    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        false
    }

    /// Kept in TicTac's (static) priority order, so that the sort of every rate computation
    /// meets sorted input (linear time).
    fn active_position(&self, sim: &Sim<'_>, id: usize) -> usize {
        let key = sim.tictac_rank(id);
        sim.active.partition_point(|&a| sim.tictac_rank(a) < key)
    }

    fn rates(&mut self, sim: &mut Sim<'_>, rate: &mut [f64], free: &mut [f64]) -> f64 {
        // Keys gathered once, then one unstable sort (keys are unique through `k`).
        let mut keyed: Vec<(usize, u32, usize)> = sim
            .active
            .iter()
            .enumerate()
            .map(|(k, &id)| {
                let (a, b) = sim.tictac_rank(id);
                (a, b, k)
            })
            .collect();
        keyed.sort_unstable();
        let idx: Vec<usize> = keyed.into_iter().map(|(_, _, k)| k).collect();
        let d: Vec<FlowDemand<'_>> = idx
            .iter()
            .map(|&k| sim.flows[sim.active[k]].demand(f64::INFINITY))
            .collect();
        for (r, &k) in priority_greedy(&d, free).into_iter().zip(&idx) {
            rate[k] += r;
        }
        f64::INFINITY
    }
}

impl Sim<'_> {
    /// FIFO + TicTac's strict priority of flow `id` (smaller first): its job's arrival rank,
    /// then the TAC rank of its transfer inside the job. Static over the flow's life.
    pub(super) fn tictac_rank(&self, id: usize) -> (usize, u32) {
        let f = &self.flows[id];
        let st = &self.st[f.job];
        (st.fifo, st.prio[f.node.index()])
    }
}

/// Everything [`tictac_order`] reads of a job (its nodes' kinds, compute loads and transfer
/// times on `cluster`, its edges, topological order and transfer list), exactly, so that jobs
/// with equal keys have equal TAC orders.
pub(super) fn tictac_key(job: &Job, cluster: &Cluster) -> Vec<u64> {
    let mut key = vec![job.len() as u64];
    for i in 0..job.len() {
        let v = TaskId::new(i as u32);
        match job.node(v) {
            NodeKind::Compute { load } => key.extend([0, load.to_bits()]),
            NodeKind::Transfer { .. } => key.extend([1, lat::trans(job, cluster, v).to_bits()]),
        }
        key.push(job.preds(v).len() as u64);
        key.extend(job.preds(v).iter().map(|p| u64::from(p.get())));
    }
    key.extend(job.topo_order().iter().map(|v| u64::from(v.get())));
    key.extend(job.transfers().iter().map(|v| u64::from(v.get())));
    key
}
