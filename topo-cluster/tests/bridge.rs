//! The fabric bridge: a latency matrix from a generated fat tree and a placement, clustered.

use fabric_model::bridge::LatencyModel;
use fabric_model::{Bytes, HopTable, Nanos, NodeId, Placement, generators, place};
use topo_cluster::{ClusterParams, LatencyMatrix, logical_clusters};

/// fat_tree(4): 4 pods of 2 leaf switches with 2 terminals each, 100 ns links at 4xEDR.
/// Ranks in block order, one per terminal: 16 ranks.
fn fat_tree_16() -> (fabric_model::Fabric, HopTable, Vec<NodeId>) {
    let f = generators::fat_tree(4).expect("k = 4 is valid");
    let hops = HopTable::new(&f).expect("connected");
    let ranks = place(f.terminals(), 16, 1, Placement::Block).expect("16 terminals");
    (f, hops, ranks)
}

#[test]
fn latencies_are_hops_times_link_latency_plus_serialisation() {
    let (f, hops, ranks) = fat_tree_16();
    let m = LatencyMatrix::from_fabric(&f, &hops, &ranks, &LatencyModel::new(Bytes::new(0)))
        .expect("bridge");
    assert_eq!(m.len(), 16);
    assert_eq!(m.pair(0, 0), Some(Nanos::ZERO));
    // same leaf: 2 links; same pod, other leaf: 4 links; other pod: 6 links
    assert_eq!(m.pair(0, 1), Some(Nanos::new(200)));
    assert_eq!(m.pair(0, 2), Some(Nanos::new(400)));
    assert_eq!(m.pair(0, 4), Some(Nanos::new(600)));
    assert_eq!(m.pair(15, 0), Some(Nanos::new(600)));

    // 12 500 bytes at 100 Gb/s serialise in 1 µs, once per path (cut-through), and two ranks
    // on one terminal get the intra-node latency
    let big = LatencyModel::new(Bytes::new(12_500)).intra_node(Nanos::new(30));
    let ranks2 = place(f.terminals(), 4, 2, Placement::Block).expect("2 per terminal");
    let m2 = LatencyMatrix::from_fabric(&f, &hops, &ranks2, &big).expect("bridge");
    assert_eq!(m2.pair(0, 1), Some(Nanos::new(30)));
    assert_eq!(m2.pair(0, 2), Some(Nanos::new(1_200)));
}

#[test]
fn clusters_follow_what_the_latencies_imply() {
    let (f, hops, ranks) = fat_tree_16();
    let params = ClusterParams::default(); // rho = 20 %
    // Zero-byte messages: 400 / 200 > 1.2, so each leaf switch is a cluster of two.
    let small = LatencyMatrix::from_fabric(&f, &hops, &ranks, &LatencyModel::new(Bytes::new(0)))
        .expect("bridge");
    let leaves = logical_clusters(&small, &params).expect("valid rho");
    let by_leaf: Vec<usize> = (0..16).map(|r| r / 2).collect();
    assert_eq!(leaves.labels(), by_leaf.as_slice());

    // 12 500-byte messages add 1 µs to every path: 1400 / 1200 ≤ 1.2 < 1600 / 1200, so the
    // clusters are the four pods.
    let mid = LatencyMatrix::from_fabric(&f, &hops, &ranks, &LatencyModel::new(Bytes::new(12_500)))
        .expect("bridge");
    let pods = logical_clusters(&mid, &params).expect("valid rho");
    let by_pod: Vec<usize> = (0..16).map(|r| r / 4).collect();
    assert_eq!(pods.labels(), by_pod.as_slice());
    assert_eq!(
        pods.to_string(),
        "{0 1 2 3} {4 5 6 7} {8 9 10 11} {12 13 14 15}"
    );

    // 1 MiB messages: serialisation dominates, the whole fabric is one cluster.
    let large =
        LatencyMatrix::from_fabric(&f, &hops, &ranks, &LatencyModel::new(Bytes::from_mib(1)))
            .expect("bridge");
    assert_eq!(logical_clusters(&large, &params).expect("valid").len(), 1);
}

#[test]
fn a_foreign_node_is_an_error() {
    let (f, hops, _) = fat_tree_16();
    let bad = [NodeId::new(1_000_000), NodeId::new(0)];
    let e = LatencyMatrix::from_fabric(&f, &hops, &bad, &LatencyModel::new(Bytes::new(0)));
    assert!(matches!(e, Err(topo_cluster::Error::Fabric(_))), "{e:?}");
}
