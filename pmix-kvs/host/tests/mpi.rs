//! A real MPI program (`c/mpi_allreduce.c`: init, allreduce of the ranks, finalize) built
//! with Debian's Open MPI 4.1 (`mpicc`) and run as the clients of the host on several
//! simulated nodes: Open MPI's wire-up (its transports' addresses) goes through the host's
//! fence, and by direct modex when the fence's data is lost. Ignored by default: it needs
//! Open MPI, which `pmix-kvs/host/run.sh --mpi` installs and then runs it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use pmix_kvs::fence::Algorithm;
use pmix_kvs_host::launch::{Launch, Outcome};
use pmix_kvs_host::node::FenceAlg;

/// Builds the program once per test binary (the tests run in parallel).
fn mpi_program() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(build).clone()
}

fn build() -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mpi_allreduce");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("c/mpi_allreduce.c");
    let st = Command::new("mpicc")
        .args(["-O2", "-Wall", "-Werror", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .expect("mpicc (apt-get install libopenmpi-dev openmpi-bin)");
    assert!(st.success(), "mpicc failed");
    out
}

fn run(nodes: u32, per_node: u32, alg: FenceAlg, corrupt: bool) -> Outcome {
    let tag = if corrupt { "corrupt" } else { "ok" };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mpi-{tag}-{nodes}x{per_node}-{}", alg.name()));
    let mut job = Launch::new(
        Path::new(env!("CARGO_BIN_EXE_pmix-kvs-host")),
        vec![mpi_program().to_string_lossy().into_owned()],
        nodes,
        per_node,
        alg,
        &dir,
    );
    job.slurm_env = true;
    job.fence_timeout_s = 20;
    if corrupt {
        job.corrupt_fence = Some((0, 0));
    }
    let out = job.run().expect("run");
    assert!(
        out.unfinished.is_empty(),
        "ranks {:?} did not finish",
        out.unfinished
    );
    let n = nodes * per_node;
    for (rank, lines) in (0u32..).zip(&out.clients) {
        let want = format!("mpi {rank} {n} {} ", n * (n - 1) / 2);
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&want) && l.ends_with(" ok")),
            "rank {rank}: {lines:?}"
        );
        assert!(
            lines.iter().any(|l| l == &format!("done {rank} 0 SUCCESS")),
            "rank {rank}: {lines:?}"
        );
    }
    eprintln!(
        "MPI {nodes}x{per_node} {} {tag}: {} ms",
        alg.name(),
        out.elapsed.as_millis()
    );
    out
}

#[test]
#[ignore = "needs Open MPI: pmix-kvs/host/run.sh --mpi"]
fn mpi_allreduce_wires_up_through_the_hosts_fence() {
    for (nodes, per_node, alg) in [
        (2, 2, FenceAlg::Kvs(Algorithm::Bruck)),
        (3, 1, FenceAlg::Kvs(Algorithm::Ring)),
        (4, 2, FenceAlg::Kvs(Algorithm::TREE)),
    ] {
        let out = run(nodes, per_node, alg, false);
        // The wire-up fence carried every node's data (Open MPI's modex).
        for (i, (_, log)) in out.hosts.iter().enumerate() {
            let first = log
                .lines()
                .find(|l| l.starts_with("fence 0 "))
                .unwrap_or_default();
            assert!(
                first.contains(" done: ") && !first.contains("done: 0 bytes in"),
                "host {i}: {log}"
            );
        }
    }
}

#[test]
#[ignore = "needs Open MPI: pmix-kvs/host/run.sh --mpi"]
fn mpi_wires_up_by_direct_modex_when_the_fence_data_is_corrupt() {
    let out = run(2, 2, FenceAlg::Kvs(Algorithm::Bruck), true);
    let log = &out.hosts[0].1;
    assert!(log.contains("UNPACK-PAST-END"), "{log}");
    assert!(
        log.contains("dmodex 1 answered by node 1: status 0"),
        "{log}"
    );
}
