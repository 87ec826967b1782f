//! Cluster the ranks of a generated fat tree by latency and write the decision table of their
//! broadcasts.
//!
//! 1. A k = 4 fat tree (4 pods of 4 terminals), one rank per terminal: the bridge
//!    [`LatencyMatrix::from_fabric`] gives the rank-to-rank latencies of 12.5 kB messages (link
//!    latencies plus serialisation at 4xEDR).
//! 2. [`logical_clusters`] with the paper's 20 % bound finds the pods.
//! 3. A pLogP model per cluster, g(m) = 1 µs + m / link rate and L = the cluster's 0-byte
//!    latency (an illustrative model, not a measurement), gives the best broadcast per message
//!    size ([`best_algorithm`]) and the decision table ([`DecisionTable`]), written in its text
//!    form.
//! 4. The inter-cluster broadcast of 1 MiB from cluster 0 ([`best_schedule`]).
//!
//! Run with `cargo run -p topo-cluster --example decision_table`.

use fabric_model::bridge::LatencyModel;
use fabric_model::{Bytes, HopTable, Nanos, Placement, generators, place};
use topo_cluster::collective::{Evaluator, SegmentGrid};
use topo_cluster::decision::Compute;
use topo_cluster::inter::CompletionModel;
use topo_cluster::plan::Links;
use topo_cluster::{
    ClusterParams, Collective, DecisionTable, InterInstance, LatencyMatrix, Level, MeasurementPlan,
    PLogP, best_algorithm, best_schedule, logical_clusters,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fabric = generators::fat_tree(4)?;
    let hops = HopTable::new(&fabric)?;
    let ranks = place(fabric.terminals(), 16, 1, Placement::Block)?;
    let message = Bytes::new(12_500);
    let matrix = LatencyMatrix::from_fabric(&fabric, &hops, &ranks, &LatencyModel::new(message))?;
    let zero_byte =
        LatencyMatrix::from_fabric(&fabric, &hops, &ranks, &LatencyModel::new(Bytes::new(0)))?;
    println!(
        "fat_tree(4): {} ranks; {message} messages take {} to a leaf neighbour, {} across a pod, {} across the spine",
        matrix.len(),
        show(matrix.pair(0, 1)),
        show(matrix.pair(0, 2)),
        show(matrix.pair(0, 4)),
    );

    let clusters = logical_clusters(&matrix, &ClusterParams::default())?;
    println!("logical clusters (rho = 20 %): {clusters}");
    let plan = MeasurementPlan::new(&clusters, Links::Symmetric);
    println!(
        "pLogP measures needed: {} (instead of {} machine pairs)",
        plan.len(),
        matrix.len() * (matrix.len() - 1) / 2
    );

    // One pLogP model per ordered pair of clusters, from the 0-byte latency between their
    // coordinators and the 4xEDR link rate (100 Gb/s: 0.08 ns a byte).
    let rate = fabric.links().first().ok_or("no link")?.rate.bandwidth();
    let ns_per_byte = 8e9 / rate.as_f64();
    let coordinators = plan.coordinators();
    let model = |a: usize, b: usize| -> Result<PLogP, topo_cluster::Error> {
        let peer = if a == b {
            clusters.groups()[a]
                .get(1)
                .copied()
                .unwrap_or(coordinators[a])
        } else {
            coordinators[b]
        };
        let l = zero_byte.pair(coordinators[a], peer).unwrap_or(Nanos::ZERO);
        PLogP::linear(l.as_f64(), 1_000.0, ns_per_byte)
    };

    let sizes: Vec<Bytes> = (0..=22).step_by(2).map(|k| Bytes::new(1 << k)).collect();
    let grid = SegmentGrid::default();
    let group = clusters.groups()[0].len();
    let intra = model(0, 0)?;
    println!("\nbest broadcast inside cluster 0 ({group} ranks):");
    for &m in &sizes {
        let c = best_algorithm(
            Collective::Broadcast,
            group,
            m,
            &intra,
            &grid,
            Evaluator::ClosedForm,
        )?;
        println!("  {:>10}: {c}", m.to_string());
    }

    let mut table = DecisionTable::new();
    let group_sizes: Vec<usize> = clusters.groups().iter().map(Vec::len).collect();
    table.compute(
        &Compute::new(Collective::Broadcast, Level::IntraCluster, &intra)
            .group_sizes(&group_sizes)
            .message_sizes(&sizes)
            .grid(grid),
    )?;
    println!("\ndecision table:\n{table}");

    // The inter-cluster broadcast of 1 MiB from cluster 0, each cluster then broadcasting
    // inside with its best algorithm.
    let m = Bytes::from_mib(1);
    let c = clusters.len();
    let mut latency = vec![0.0; c * c];
    let mut gap = vec![0.0; c * c];
    let mut intra_ns = Vec::with_capacity(c);
    for a in 0..c {
        for b in (0..c).filter(|&b| b != a) {
            let p = model(a, b)?;
            latency[a * c + b] = p.latency_ns();
            gap[a * c + b] = p.gap_ns(m);
        }
        let own = clusters.groups()[a].len();
        let best = best_algorithm(
            Collective::Broadcast,
            own,
            m,
            &model(a, a)?,
            &grid,
            Evaluator::ClosedForm,
        )?;
        intra_ns.push(best.time_ns);
    }
    let inst = InterInstance::new(0, latency, gap, intra_ns)?;
    let (heuristic, schedule) = best_schedule(&inst, CompletionModel::Overlap);
    println!("inter-cluster broadcast of 1 MiB from cluster 0 ({heuristic}): {schedule}");
    Ok(())
}

fn show(v: Option<Nanos>) -> String {
    v.map_or_else(|| "-".to_owned(), |n| n.to_string())
}
