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

/// The fixture job's size: 40 ranks (its `MPI_COMM_WORLD`).
const JOB: usize = 40;

/// Intra-node choices over the machines' sizes and inter-node choices over every
/// communicator size of the job, for every collective among `trees`.
fn table(h: &Hierarchy, trees: fn(Collective) -> Vec<Algorithm>) -> DecisionTable {
    table_over(h, trees, &h.communicator_sizes())
}

/// [`table`] with the inter-node level over `inter_sizes`.
fn table_over(
    h: &Hierarchy,
    trees: fn(Collective) -> Vec<Algorithm>,
    inter_sizes: &[usize],
) -> DecisionTable {
    // illustrative models (not measurements): shared memory, and the fixture's Fast Ethernet
    let intra = PLogP::linear(1_000.0, 500.0, 0.1).expect("valid");
    let inter = PLogP::linear(50_000.0, 20_000.0, 1000.0 / 11.5).expect("valid");
    let sizes: Vec<Bytes> = (0..=22).step_by(2).map(|k| Bytes::new(1 << k)).collect();
    let mut t = DecisionTable::new();
    for c in Collective::ALL {
        for (level, model) in [(Level::IntraMachine, &intra), (Level::IntraCluster, &inter)] {
            t.compute(
                &Compute::new(c, level, model)
                    .among(&trees(c))
                    .group_sizes(&match level {
                        Level::IntraMachine => h.group_sizes(level),
                        _ => inter_sizes.to_vec(),
                    })
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

/// Regression: a table computed over the inter-node level's group sizes only (2 to 5 here)
/// gave a 40-rank job's `MPI_COMM_WORLD` the rules of a 5-rank communicator; the writers
/// now take the job's size and refuse such a table.
#[test]
fn a_table_short_of_the_job_is_refused() {
    let h = hierarchy();
    let short = table_over(&h, open_mpi::trees, &h.group_sizes(Level::IntraCluster));
    let o = open_mpi::Options::for_job(JOB).with_levels(two_level());
    assert!(matches!(
        open_mpi::write(&short, &o),
        Err(Error::JobNotCovered {
            library: "Open MPI",
            level: "intra-cluster",
            largest: 5,
            job: JOB,
            ..
        })
    ));
    let short = table_over(&h, mpich::trees, &h.group_sizes(Level::IntraCluster));
    let m = mpich::Options::for_job(JOB).with_levels(two_level());
    assert!(matches!(
        mpich::write(&short, &m),
        Err(Error::JobNotCovered {
            library: "MPICH",
            largest: 5,
            job: JOB,
            ..
        })
    ));
    // over every communicator size of the job, the 40-rank entry is the job's own
    let t = table(&h, open_mpi::trees);
    let text = open_mpi::write(&t, &o).expect("covers the job");
    let back = open_mpi::read(&text, &o).expect("reads back");
    for c in Collective::ALL {
        let own = t
            .lookup(c, Level::IntraCluster, JOB, Bytes::new(0))
            .expect("rule");
        assert_eq!(own.procs, JOB);
        let read = back
            .lookup(c, Level::IntraCluster, JOB, Bytes::new(0))
            .expect("rule");
        assert_eq!(
            read.procs, JOB,
            "{c}: the file has an entry for the job's size"
        );
    }
    // a job of no ranks is refused
    assert!(matches!(
        open_mpi::write(&t, &open_mpi::Options::for_job(0).with_levels(two_level())),
        Err(Error::NoProcesses)
    ));
}

#[test]
fn open_mpi_file_carries_the_inter_node_level() {
    let h = hierarchy();
    let t = table(&h, open_mpi::trees);
    let o = open_mpi::Options::for_job(JOB).with_levels(two_level());
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
    let o = mpich::Options::for_job(JOB)
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
        &Compute::new(Collective::Scatter, Level::IntraCluster, &p)
            .group_sizes(&[8])
            .message_sizes(&[Bytes::new(1)]),
    )
    .expect("valid");
    let first = t.rules()[0].algorithm;
    assert_ne!(first, Binomial, "the flat or chain tree wins at 1 byte");
    assert!(matches!(
        mpich::write(&t, &mpich::Options::for_job(8)),
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
