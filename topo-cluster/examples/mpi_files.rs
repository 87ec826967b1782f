//! From a fabric to the files Open MPI and MPICH read: 64 ranks on a generated fat tree,
//! clustered by latency, two-level collective choices, written as an Open MPI `coll_tuned`
//! dynamic rules file and an MPICH JSON selection file.
//!
//! 1. A k = 4 fat tree (16 machines), 4 ranks per machine in block order: the bridge
//!    [`LatencyMatrix::from_fabric`] gives the 64 × 64 rank latencies of 12.5 kB messages
//!    (300 ns between ranks of one machine).
//! 2. The machines are clustered with the paper's 20 % bound ([`logical_clusters`]: the
//!    pods), and the rank → machine → cluster [`Hierarchy`] is built.
//! 3. Two illustrative pLogP models (not measurements): shared memory inside a machine,
//!    the 4xEDR links between the machines of a cluster. For each library version, the best
//!    tree among those it has is chosen per collective, level, communicator size and message
//!    size ([`DecisionTable::compute`]): the intra-machine level over the machines'
//!    sizes, the inter-node level over every communicator size of the job
//!    ([`Hierarchy::communicator_sizes`], `MPI_COMM_WORLD` included); the choices the library
//!    cannot express (the best tree overall is one it lacks) are listed.
//! 4. The files, each read back and checked: Open MPI 4.1.0-4.1.7 / 5.0.0-5.0.6 (classic,
//!    one level: the inter-node one), Open MPI >= 4.1.8 / 5.0.7 (`rule-file-version-2`),
//!    the JSON layout of Open MPI's main branch (read by no release yet), MPICH 4.0.x and
//!    MPICH >= 4.1 (both levels and a catch-all, every collective).
//!
//! Run with `cargo run -p topo-cluster --example mpi_files [DIR]` (default: a folder
//! `topo-cluster-mpi-files` under the system's temporary directory).

use std::path::PathBuf;

use fabric_model::bridge::{LatencyModel, NodeMap};
use fabric_model::{Bytes, HopTable, Nanos, Placement, generators, place};
use topo_cluster::decision::Compute;
use topo_cluster::mpi::{LevelMap, mpich, open_mpi, open_mpi_json};
use topo_cluster::{
    Algorithm, ClusterParams, Collective, DecisionTable, Hierarchy, LatencyMatrix, Level, PLogP,
    logical_clusters,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os().nth(1).map_or_else(
        || std::env::temp_dir().join("topo-cluster-mpi-files"),
        PathBuf::from,
    );

    // 1. fabric, placement, rank latencies
    let fabric = generators::fat_tree(4)?;
    let hops = HopTable::new(&fabric)?;
    let ranks = place(fabric.terminals(), 64, 4, Placement::Block)?;
    let intra_node = Nanos::new(300);
    let model = LatencyModel::new(Bytes::new(12_500)).intra_node(intra_node);
    let matrix = LatencyMatrix::from_fabric(&fabric, &hops, &ranks, &model)?;
    let show = |v: Option<Nanos>| v.map_or_else(|| "-".to_owned(), |n| n.to_string());
    println!(
        "fat_tree(4), {} ranks, 4 per machine: 12.5 kB take {} inside a machine, {} to the leaf neighbour, {} across the pod, {} across the spine",
        matrix.len(),
        show(matrix.pair(0, 1)),
        show(matrix.pair(0, 4)),
        show(matrix.pair(0, 8)),
        show(matrix.pair(0, 16)),
    );

    // 2. machines, their clusters, the hierarchy
    let nodes = NodeMap::new(&ranks);
    let machines: Vec<_> = (0..nodes.node_count())
        .filter_map(|n| nodes.terminal(n))
        .collect();
    let machine_matrix = LatencyMatrix::from_fabric(&fabric, &hops, &machines, &model)?;
    let clusters = logical_clusters(&machine_matrix, &ClusterParams::default())?;
    let names: Vec<String> = (0..machines.len()).map(|m| format!("node{m}")).collect();
    let hosts: Vec<&str> = (0..ranks.len() as u32)
        .map(|r| nodes.node_of(r).map_or("", |m| names[m].as_str()))
        .collect();
    let h = Hierarchy::build(&hosts, &names, &clusters)?;
    println!("machine clusters (rho = 20 %): {clusters}");
    for level in [Level::IntraMachine, Level::IntraCluster] {
        println!(
            "  {level}: {} communicators of sizes {:?}",
            h.communicators(level).len(),
            h.group_sizes(level)
        );
    }

    // 3. models and choices
    let rate = fabric.links().first().ok_or("no link")?.rate.bandwidth();
    let zero =
        LatencyMatrix::from_fabric(&fabric, &hops, &machines, &LatencyModel::new(Bytes::new(0)))?;
    let peer = clusters.groups()[0].get(1).copied().unwrap_or(0);
    let inter_l = zero.pair(0, peer).unwrap_or(Nanos::ZERO);
    let models = [
        (
            Level::IntraMachine,
            PLogP::linear(intra_node.as_f64(), 200.0, 0.1)?,
        ),
        (
            Level::IntraCluster,
            PLogP::linear(inter_l.as_f64(), 1_000.0, 8e9 / rate.as_f64())?,
        ),
    ];
    let sizes: Vec<Bytes> = (0..=22).step_by(2).map(|k| Bytes::new(1 << k)).collect();
    let job_sizes = h.communicator_sizes();
    let compute = |trees: &dyn Fn(Collective) -> Vec<Algorithm>| {
        let mut t = DecisionTable::new();
        for c in Collective::ALL {
            for (level, p) in &models {
                let procs = match level {
                    Level::IntraMachine => h.group_sizes(*level),
                    _ => job_sizes.clone(),
                };
                t.compute(
                    &Compute::new(c, *level, p)
                        .among(&trees(c))
                        .group_sizes(&procs)
                        .message_sizes(&sizes),
                )?;
            }
        }
        Ok::<_, topo_cluster::Error>(t)
    };
    println!("communicator sizes of the job: {job_sizes:?}");
    let best = compute(&|c| c.algorithms().to_vec())?;
    let levels = LevelMap::two_level(Level::IntraMachine, Level::IntraCluster)?;
    std::fs::create_dir_all(&dir)?;

    // 4. the files
    let ompi_table = compute(&|c| open_mpi::Version::V4_1.trees(c))?;
    report("Open MPI", &best, &ompi_table);
    for (version, layout, name) in [
        (
            open_mpi::Version::V4_1,
            open_mpi::Layout::Classic,
            "coll_tuned_rules_4.1.txt",
        ),
        (
            open_mpi::Version::V4_1_8,
            open_mpi::Layout::MaxRequests,
            "coll_tuned_rules_4.1.8.txt",
        ),
    ] {
        let o = open_mpi::Options::for_job(matrix.len())
            .with_version(version)
            .with_layout(layout)
            .with_levels(levels);
        let text = open_mpi::write(&ompi_table, &o)?;
        let back = open_mpi::read(&text, &o)?;
        assert_eq!(open_mpi::write(&back, &o)?, text, "round trip");
        let path = dir.join(name);
        std::fs::write(&path, &text)?;
        println!(
            "wrote {} for {} ({} lines; use with --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE)",
            path.display(),
            version.releases(),
            text.lines().count()
        );
    }
    // the same choices in the JSON layout of Open MPI's main branch (no release reads it yet)
    let ompi_json = open_mpi_json::write(&ompi_table, &levels)?;
    assert_eq!(
        open_mpi_json::write(&open_mpi_json::read(&ompi_json, &levels)?, &levels)?,
        ompi_json,
        "round trip"
    );
    let ompi_json_path = dir.join("coll_tuned_rules.json");
    std::fs::write(&ompi_json_path, &ompi_json)?;
    println!(
        "wrote {} ({} lines, the JSON layout of Open MPI's main branch: read by no release yet)",
        ompi_json_path.display(),
        ompi_json.lines().count()
    );

    for (version, name) in [
        (mpich::Version::V4_0, "mpich_coll_selection_4.0.json"),
        (mpich::Version::V4_1, "mpich_coll_selection_4.1.json"),
    ] {
        let mpich_table = compute(&|c| version.trees(c))?;
        report(version.releases(), &best, &mpich_table);
        let m = mpich::Options::for_job(matrix.len())
            .with_version(version)
            .with_levels(levels);
        let json = mpich::write(&mpich_table, &m)?;
        let back = mpich::read(&json, &m)?;
        assert_eq!(mpich::write(&back, &m)?, json, "round trip");
        let path = dir.join(name);
        std::fs::write(&path, &json)?;
        println!(
            "wrote {} for {} ({} lines; use with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE)",
            path.display(),
            version.releases(),
            json.lines().count()
        );
    }
    Ok(())
}

/// Lists the rules where the best tree overall is one `library` lacks, with the predicted
/// times of both.
fn report(library: &str, best: &DecisionTable, written: &DecisionTable) {
    let lost: Vec<_> = best
        .rules()
        .iter()
        .filter_map(|r| {
            let w = written
                .lookup(r.collective, r.level, r.procs, r.min_size)
                .ok()?;
            ((w.algorithm, w.segment) != (r.algorithm, r.segment)).then_some((r, w))
        })
        .collect();
    println!(
        "\n{library}: {} rules; {} choices it cannot express:",
        written.rules().len(),
        lost.len()
    );
    for (r, w) in lost.iter().take(6) {
        let ns = |n: Option<Nanos>| n.map_or_else(|| "?".to_owned(), |n| n.to_string());
        println!(
            "  {} {} P={} from {} B: best {} ({}), written {} ({} at {} B)",
            r.collective,
            r.level,
            r.procs,
            r.min_size.get(),
            r.algorithm,
            ns(r.predicted),
            w.algorithm,
            ns(w.predicted),
            w.min_size.get()
        );
    }
    if lost.len() > 6 {
        println!("  … and {} more", lost.len() - 6);
    }
}
