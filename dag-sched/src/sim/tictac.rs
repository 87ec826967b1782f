//! FIFO + TicTac: jobs in arrival order, and inside a job TicTac's TAC order (Hashemi et al.,
//! "TicTac: Accelerating Distributed Deep Learning with Communication Scheduling", MLSys 2019),
//! by strict priority.

use std::collections::HashMap;

use super::engine::RatePolicy;
use super::engine::{Change, FlowEvent, Sim};
use crate::Error;
use crate::baselines::tictac_order;
use crate::cluster::Cluster;
use crate::job::{Job, NodeKind, TaskId};
use crate::lat;
use crate::rates::PriorityClasses;

/// The FIFO + TicTac baseline; jobs of one shape share their TAC order, computed once. The
/// active flows are kept by route and priority ([`PriorityClasses`]), which repairs the last
/// event's strict-priority walk and reports the flows whose rate changed, so that an event
/// walks what it changed, not every flow.
#[derive(Default)]
pub(crate) struct TicTac {
    tac_cache: HashMap<Vec<u64>, Vec<u32>>,
    flows: PriorityClasses,
    /// [`Scheduler::TicTacFilesLast`](super::Scheduler::TicTacFilesLast): the jobs without
    /// compute after every DAG job.
    files_last: bool,
}

impl TicTac {
    /// FIFO + TicTac over the DAG jobs, the jobs without compute after them all.
    pub(crate) fn files_last() -> Self {
        Self {
            files_last: true,
            ..Self::default()
        }
    }
}

impl RatePolicy for TicTac {
    fn on_arrival(&mut self, sim: &mut Sim<'_>, j: usize) -> Result<(), Error> {
        let job = &sim.jobs[j].job;
        if !sim.st[j].dag {
            // No compute task: every transfer unlocks nothing and TAC's loop keeps the
            // transfers' own order (`tac_is_the_transfer_order_without_compute`), which
            // `tictac_order` finds in O(T²) time (minutes for a trace's 20,000-flow coflow).
            for (k, &t) in job.transfers().iter().enumerate() {
                sim.st[j].prio[t.index()] = k as u32;
            }
            return Ok(());
        }
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

    fn dense(&self) -> bool {
        false
    }

    fn sparse_rates(&mut self, sim: &mut Sim<'_>, out: &mut Vec<Change>, free: &mut [f64]) -> f64 {
        for &e in &sim.log {
            match e {
                FlowEvent::Start(id) => {
                    let (mut fifo, prio) = sim.tictac_rank(id);
                    if self.files_last && !sim.st[sim.flows[id].job].dag {
                        fifo += sim.jobs.len();
                    }
                    let key = (fifo as u64) << 32 | u64::from(prio);
                    let f = &sim.flows[id];
                    self.flows.add(id, key, f.src as u32, f.dst as u32, &f.path);
                }
                FlowEvent::End(id) => self.flows.remove(id),
                FlowEvent::Head(_) => {}
            }
        }
        // The changes only (the engine keeps every other flow's rate): flows that move at
        // another rate, then flows that stop (those that ended are ignored by the engine).
        self.flows
            .rates(free, |id, rate| out.push(Change::Flow { id, rate }));
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
            NodeKind::Transfer { .. } => {
                key.extend([1, lat::trans_of(job.node(v), cluster).to_bits()])
            }
        }
        key.push(job.preds(v).len() as u64);
        key.extend(job.preds(v).iter().map(|p| u64::from(p.get())));
    }
    key.extend(job.topo_order().iter().map(|v| u64::from(v.get())));
    key.extend(job.transfers().iter().map(|v| u64::from(v.get())));
    key
}
