//! The paper's whole pipeline on the 20-machine fixture: clusters, hierarchy, measurement
//! plan, parameters taken back, per-cluster algorithm choice, inter-cluster schedule and a
//! decision table saved and read back.

use fabric_model::Bytes;
use topo_cluster::collective::{Evaluator, SegmentGrid};
use topo_cluster::decision::Compute;
use topo_cluster::inter::{CompletionModel, optimum};
use topo_cluster::plan::{LinkModels, Links};
use topo_cluster::plogp::RttSample;
use topo_cluster::{
    ClusterParams, Collective, DecisionTable, Error, Hierarchy, InterInstance, Level,
    MeasurementPlan, PLogP, best_algorithm, best_schedule, fixtures, logical_clusters,
};

/// A fake pLogP measurement between two machines: RTT(0) = 2 × matrix latency, 1 Gb/s.
fn measure(lat_ns: u64) -> PLogP {
    let rtt0 = 2.0 * lat_ns as f64;
    let samples: Vec<RttSample> = [0_u64, 1024, 65_536, 1 << 20]
        .iter()
        .map(|&b| RttSample::new(Bytes::new(b), rtt0 + 8.0 * b as f64, 2_000.0, 2_000.0))
        .collect();
    PLogP::from_round_trips(5_000.0, &samples).expect("valid samples")
}

#[test]
fn fixture_pipeline() {
    let f = fixtures::idpot(Some(5));
    let clusters = logical_clusters(&f.matrix, &ClusterParams::default()).unwrap();
    assert_eq!(clusters.len(), 6);

    // two processes per machine, one extra on A0: unbalanced
    let mut hosts: Vec<&str> = f
        .names
        .iter()
        .flat_map(|n| [n.as_str(), n.as_str()])
        .collect();
    hosts.push("A0");
    let h = Hierarchy::build(&hosts, &f.names, &clusters).unwrap();
    assert_eq!(h.communicators(Level::IntraMachine).len(), 20);
    assert_eq!(h.communicators(Level::IntraMachine)[0], vec![0, 1, 40]);
    let per_cluster: Vec<usize> = h
        .communicators(Level::IntraCluster)
        .iter()
        .map(Vec::len)
        .collect();
    assert_eq!(per_cluster, fixtures::IDPOT_SIZES);
    assert_eq!(
        h.communicators(Level::InterCluster),
        vec![vec![0, 10, 18, 24, 30, 36]]
    );

    // measure the plan and take the parameters back
    let plan = MeasurementPlan::new(&clusters, Links::Symmetric);
    assert_eq!(plan.len(), 21);
    let mut results = plan.collect();
    for m in plan.items() {
        let lat = f
            .matrix
            .pair(m.sender, m.receiver)
            .expect("fixture is complete");
        results
            .record_pair(m.sender, m.receiver, measure(lat.get()))
            .unwrap();
    }
    let models = results.finish().unwrap();

    // per-cluster broadcast choice, then the inter-cluster schedule
    let size = Bytes::from_mib(1);
    let grid = SegmentGrid::default();
    let intra: Vec<f64> = clusters
        .groups()
        .iter()
        .enumerate()
        .map(|(c, g)| {
            let p = models.get(c, c).expect("every cluster has two machines");
            best_algorithm(
                Collective::Broadcast,
                g.len(),
                size,
                p,
                &grid,
                Evaluator::ClosedForm,
            )
            .unwrap()
            .time_ns
        })
        .collect();
    let inst = InterInstance::from_models(&models, size, intra, 0).unwrap();
    let (_, sched) = best_schedule(&inst, CompletionModel::Overlap);
    let opt = optimum(&inst, CompletionModel::Overlap).unwrap();
    assert!(opt.makespan_ns <= sched.makespan_ns);
    let mut reached: Vec<usize> = sched.transfers.iter().map(|t| t.to).collect();
    reached.sort_unstable();
    assert_eq!(reached, vec![1, 2, 3, 4, 5]);
    for t in &sched.transfers {
        assert!(t.arrival_ns > t.start_ns);
    }

    // a decision table for the intra-cluster level, saved and read back
    let mut table = DecisionTable::new();
    let sizes: Vec<Bytes> = (0..21).map(|k| Bytes::new(1 << k)).collect();
    table
        .compute(
            &Compute::new(
                Collective::Broadcast,
                Level::IntraCluster,
                models.get(0, 0).unwrap(),
            )
            .group_sizes(&fixtures::IDPOT_SIZES)
            .message_sizes(&sizes)
            .grid(grid),
        )
        .unwrap();
    let back = DecisionTable::parse(&table.to_text()).unwrap();
    assert_eq!(back, table);
}

#[test]
fn link_models_by_hand() {
    let mut m = LinkModels::new(2);
    let p = PLogP::linear(1.0, 1.0, 0.0).unwrap();
    m.set(0, 1, p.clone()).unwrap();
    assert_eq!(
        InterInstance::from_models(&m, Bytes::new(1), vec![0.0, 0.0], 0),
        Err(Error::MissingModel { from: 1, to: 0 })
    );
    m.set(1, 0, p.clone()).unwrap();
    assert!(InterInstance::from_models(&m, Bytes::new(1), vec![0.0, 0.0], 0).is_ok());
    assert_eq!(m.set(2, 0, p), Err(Error::MissingModel { from: 2, to: 0 }));
}

#[test]
fn public_types_are_send_sync_debug_clone() {
    fn check<T: Send + Sync + std::fmt::Debug + Clone>() {}
    check::<topo_cluster::LatencyMatrix>();
    check::<topo_cluster::Partition>();
    check::<Hierarchy>();
    check::<MeasurementPlan>();
    check::<LinkModels>();
    check::<PLogP>();
    check::<InterInstance>();
    check::<topo_cluster::Schedule>();
    check::<DecisionTable>();
    check::<Error>();
    fn is_error<E: std::error::Error + Send + Sync + 'static>() {}
    is_error::<Error>();
}
