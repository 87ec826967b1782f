//! Two-level choices from a hierarchy, written in Open MPI's and MPICH's files and read back.

use fabric_model::Bytes;
use topo_cluster::collective::{Evaluator, SegmentGrid, best_algorithm_among};
use topo_cluster::decision::Compute;
use topo_cluster::mpi::{LevelMap, mpich, open_mpi};
use topo_cluster::{
    Algorithm, ClusterParams, Collective, DecisionTable, Error, Hierarchy, Level, PLogP, fixtures,
    logical_clusters,
};

/// The IDPOT-like fixture (20 machines, six subnets), two ranks per machine.
fn hierarchy() -> Hierarchy {
    let f = fixtures::idpot(Some(7));
    let clusters = logical_clusters(&f.matrix, &ClusterParams::default()).expect("valid bound");
    let hosts: Vec<&str> = f
        .names
        .iter()
        .flat_map(|n| [n.as_str(), n.as_str()])
        .collect();
    Hierarchy::build(&hosts, &f.names, &clusters).expect("every host is a node")
}

/// Intra-node and inter-node choices for every collective among `trees`.
fn table(h: &Hierarchy, trees: fn(Collective) -> Vec<Algorithm>) -> DecisionTable {
    // illustrative models (not measurements): shared memory, and the fixture's Fast Ethernet
    let intra = PLogP::linear(1_000.0, 500.0, 0.1).expect("valid");
    let inter = PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5).expect("valid");
    let sizes: Vec<Bytes> = (0..=22).step_by(2).map(|k| Bytes::new(1 << k)).collect();
    let mut t = DecisionTable::new();
    for c in Collective::ALL {
        for (level, model) in [(Level::IntraMachine, &intra), (Level::IntraCluster, &inter)] {
            t.compute_among(
                &Compute::new(c, level, model)
                    .among(&trees(c))
                    .group_sizes(&h.group_sizes(level))
                    .message_sizes(&sizes),
            )
            .expect("valid sizes");
        }
    }
    t
}

fn two_level() -> LevelMap {
    LevelMap::two_level(Level::IntraMachine, Level::IntraCluster).expect("distinct levels")
}

fn same_lookups(table: &DecisionTable, back: &DecisionTable) {
    assert!(!back.rules().is_empty());
    for r in back.rules() {
        let orig = table
            .lookup(r.collective, r.level, r.procs, r.min_size)
            .expect("rule");
        assert_eq!((orig.algorithm, orig.segment), (r.algorithm, r.segment));
    }
}

#[test]
fn group_sizes_come_from_the_hierarchy() {
    let h = hierarchy();
    assert_eq!(h.group_sizes(Level::IntraMachine), vec![2]);
    // the six subnets hold 5, 4, 3, 3, 3 and 2 machines
    assert_eq!(h.group_sizes(Level::IntraCluster), vec![2, 3, 4, 5]);
}

#[test]
fn group_sizes_cover_the_job() {
    // 40 ranks: MPI_COMM_WORLD is a communicator of the job too
    assert_eq!(hierarchy().communicator_sizes(), vec![2, 3, 4, 5, 6, 40]);
}

#[test]
fn open_mpi_file_carries_the_inter_node_level() {
    let h = hierarchy();
    let t = table(&h, open_mpi::trees);
    let o = open_mpi::Options::new().with_levels(two_level());
    let text = open_mpi::write(&t, &o).expect("only Open MPI trees");
    // no release reads topology tags: one level, untagged
    assert!(!text.contains('@'), "{text}");
    let back = open_mpi::read(&text, &o).expect("reads back");
    same_lookups(&t, &back);
    assert!(back.rules().iter().all(|r| r.level == Level::IntraCluster));
    assert_eq!(open_mpi::write(&back, &o).expect("writes"), text);
}

#[test]
fn mpich_file_carries_both_levels() {
    let h = hierarchy();
    let t = table(&h, mpich::trees);
    let o = mpich::Options::new()
        .with_levels(two_level())
        .with_version(mpich::Version::V4_1);
    let json = mpich::write(&t, &o).expect("only MPICH trees");
    assert!(json.contains("\"comm_hierarchy=node\""));
    assert!(json.contains("\"comm_hierarchy=node_roots\""));
    assert!(json.contains("\"comm_hierarchy=any\""));
    assert!(json.contains("\"collective=barrier\""));
    let back = mpich::read(&json, &o).expect("reads back");
    same_lookups(&t, &back);
    assert_eq!(mpich::write(&back, &o).expect("writes"), json);
}

#[test]
fn the_libraries_trees() {
    use Algorithm::{Binary, Binomial, Chain, Direct, Flat, SegmentedChain};
    assert_eq!(
        open_mpi::trees(Collective::Broadcast),
        vec![Flat, Chain, SegmentedChain, Binary, Binomial]
    );
    assert_eq!(open_mpi::trees(Collective::Gather), vec![Flat, Binomial]);
    assert_eq!(open_mpi::trees(Collective::AllToAll), vec![Direct]);
    assert_eq!(
        mpich::trees(Collective::Broadcast),
        vec![Chain, SegmentedChain, Binary, Binomial]
    );
    assert_eq!(mpich::trees(Collective::Scatter), vec![Binomial]);
    assert_eq!(
        mpich::Version::V4_0.trees(Collective::Broadcast),
        vec![Binomial]
    );
    assert_eq!(
        mpich::Version::V4_1.trees(Collective::Broadcast),
        mpich::trees(Collective::Broadcast)
    );
    // the unrestricted choice may be a tree a library lacks: the writer reports it
    let p = PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5).expect("valid");
    let mut t = DecisionTable::new();
    t.compute(
        Collective::Scatter,
        Level::IntraCluster,
        &p,
        &[8],
        &[Bytes::new(1)],
        &SegmentGrid::default(),
        Evaluator::ClosedForm,
    )
    .expect("valid");
    let first = t.rules()[0].algorithm;
    assert_ne!(first, Binomial, "the flat or chain tree wins at 1 byte");
    assert!(matches!(
        mpich::write(&t, &mpich::Options::new()),
        Err(Error::NoEquivalent {
            library: "MPICH 4.0",
            collective: "scatter",
            ..
        })
    ));
    assert_eq!(
        best_algorithm_among(
            Collective::Scatter,
            &[],
            8,
            Bytes::new(1),
            &p,
            &SegmentGrid::default(),
            Evaluator::ClosedForm
        ),
        Err(Error::NoCandidate {
            collective: "scatter"
        })
    );
}
