//! What Sincronia and Varys share: each job's released, unfinished transfers form one coflow;
//! coflows are served in the policy's order, each with MADD rates (its flows finish together:
//! the paper's account of why Sincronia loses on DAG jobs, §4.2), then leftover capacity is
//! handed out greedily in the same order (work conservation), inside a coflow in the job's
//! arbitrary (random) order.

use super::engine::Sim;
use crate::rates::{FlowDemand, madd, priority_greedy};

/// The jobs with active flows (ascending) and, per such job, its remaining demand on every
/// resource its flows cross, in seconds at full capacity: one entry per resource, the sum
/// over the job's flows in release order (the sum BSSI and SEBF take per port; one entry per
/// flow and resource made BSSI's per-port lookups O(flows) on a trace's 20,000-flow coflow).
pub(super) fn demands(sim: &Sim<'_>) -> (Vec<usize>, Vec<Vec<(usize, f64)>>) {
    let cap = sim.cluster.capacities();
    let mut demand: Vec<Vec<(usize, f64)>> = vec![Vec::new(); sim.jobs.len()];
    let mut has = vec![false; sim.jobs.len()];
    for &id in &sim.active {
        let f = &sim.flows[id];
        for &r in &f.path {
            demand[f.job].push((r as usize, f.remaining / cap[r as usize]));
        }
        has[f.job] = true;
    }
    let jobs: Vec<usize> = (0..sim.jobs.len()).filter(|&j| has[j]).collect();
    let mut acc = vec![0.0f64; cap.len()];
    let mut seen = vec![false; cap.len()];
    let d: Vec<Vec<(usize, f64)>> = jobs
        .iter()
        .map(|&j| {
            let mut ports = Vec::new();
            for &(p, x) in &demand[j] {
                if !seen[p] {
                    seen[p] = true;
                    ports.push(p);
                }
                acc[p] += x;
            }
            ports
                .into_iter()
                .map(|p| {
                    seen[p] = false;
                    (p, std::mem::take(&mut acc[p]))
                })
                .collect()
        })
        .collect();
    (jobs, d)
}

/// Rates of the active flows with the coflows served in `rank` order (`rank[job]`, smaller
/// first): MADD coflow by coflow, then work conservation in the same order.
pub(super) fn rates(sim: &Sim<'_>, rank: &[usize], rate: &mut [f64], free: &mut [f64]) {
    // Keys gathered once, then one unstable sort (keys are unique through `k`).
    // (rank, tf_rank) packed in one word: the same order (ranks count jobs, below 2³²), and
    // unique, so the unstable sort is deterministic.
    let mut keyed: Vec<(u64, u32)> = sim
        .active
        .iter()
        .enumerate()
        .map(|(k, &id)| {
            let f = &sim.flows[id];
            let key = (rank[f.job].min(u32::MAX as usize) as u64) << 32
                | u64::from(sim.st[f.job].tf_rank[f.node.index()]);
            (key, k as u32)
        })
        .collect();
    keyed.sort_unstable();
    let idx: Vec<usize> = keyed.into_iter().map(|(_, k)| k as usize).collect();
    let d: Vec<FlowDemand<'_>> = idx
        .iter()
        .map(|&k| sim.flows[sim.active[k]].demand(f64::INFINITY))
        .collect();
    let mut a = 0;
    while a < idx.len() {
        let job = sim.flows[sim.active[idx[a]]].job;
        let mut b = a;
        while b < idx.len() && sim.flows[sim.active[idx[b]]].job == job {
            b += 1;
        }
        let left: Vec<f64> = idx[a..b]
            .iter()
            .map(|&k| sim.flows[sim.active[k]].remaining)
            .collect();
        for (r, &k) in madd(&d[a..b], &left, free).into_iter().zip(&idx[a..b]) {
            rate[k] = r;
        }
        a = b;
    }
    for (r, &k) in priority_greedy(&d, free).into_iter().zip(&idx) {
        rate[k] += r;
    }
}
