//! The scope matrix through the real OpenPMIx: several host processes, each a node with its
//! own server, pmix-kvs serving fence and direct modex; real PMIx clients put in every scope
//! and type, fence with and without data collection, and read every rank's keys, the job's
//! keys and a missing key. Every line every client prints is checked against the PMIx
//! Standard ([`check_standard`]). `PMIX_KVS_HOST_FULL=1` runs every shape of 2–8 nodes ×
//! 1–8 clients with each algorithm; by default a spread of shapes, each algorithm on some.

use std::path::Path;

use pmix_kvs::fence::Algorithm;
use pmix_kvs_host::CLIENT;
use pmix_kvs_host::launch::Launch;
use pmix_kvs_host::node::FenceAlg;
use pmix_kvs_host::script::check_standard;

const ALGS: [FenceAlg; 4] = [
    FenceAlg::Kvs(Algorithm::TREE),
    FenceAlg::Kvs(Algorithm::Ring),
    FenceAlg::Kvs(Algorithm::Bruck),
    FenceAlg::AllToAll,
];

fn job(nodes: u32, per_node: u32, alg: FenceAlg, tag: &str) -> Launch {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("matrix-{tag}-{nodes}x{per_node}-{}", alg.name()));
    Launch::new(
        Path::new(env!("CARGO_BIN_EXE_pmix-kvs-host")),
        vec![CLIENT.to_owned(), "script".to_owned(), "1".to_owned()],
        nodes,
        per_node,
        alg,
        &dir,
    )
}

/// The Standard's violations in one run.
fn violations(job: &Launch) -> Vec<String> {
    let out = job.run().expect("run");
    let proc_nodes = job.proc_nodes();
    let mut bad: Vec<String> = out
        .unfinished
        .iter()
        .map(|r| format!("rank {r} never finished"))
        .collect();
    for (i, (st, log)) in out.hosts.iter().enumerate() {
        if !st.is_some_and(|s| s.success()) {
            bad.push(format!("host {i}: {st:?}\n{log}"));
        }
    }
    for (rank, lines) in (0u32..).zip(&out.clients) {
        bad.extend(check_standard(&proc_nodes, rank, lines, true));
    }
    eprintln!(
        "{}x{} {}: {} ms, {} violations",
        job.nodes,
        job.per_node,
        job.alg.name(),
        out.elapsed.as_millis(),
        bad.len()
    );
    bad
}

#[test]
fn every_client_sees_what_the_standard_allows() {
    let shapes: Vec<(u32, u32, FenceAlg)> = if std::env::var_os("PMIX_KVS_HOST_FULL").is_some() {
        let mut v = Vec::new();
        for nodes in 2..=8 {
            for per_node in 1..=8 {
                for alg in ALGS {
                    v.push((nodes, per_node, alg));
                }
            }
        }
        v
    } else {
        vec![
            (2, 1, ALGS[0]),
            (2, 8, ALGS[1]),
            (3, 3, ALGS[2]),
            (4, 2, ALGS[3]),
            (5, 1, ALGS[1]),
            (6, 3, ALGS[0]),
            (7, 2, ALGS[2]),
            (8, 1, ALGS[2]),
            (8, 8, ALGS[2]),
        ]
    };
    let mut bad = Vec::new();
    for (nodes, per_node, alg) in shapes {
        bad.extend(violations(&job(nodes, per_node, alg, "std")));
    }
    assert!(
        bad.is_empty(),
        "{} violations:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The check sees what the real clients saw: with one host corrupting every fence result it
/// hands its server, the clients of that node report it and the check fails.
#[test]
fn a_corrupted_fence_fails_the_check() {
    let mut j = job(2, 2, ALGS[2], "corrupt");
    j.corrupt_fence = Some((0, 0));
    let bad = violations(&j);
    assert!(
        bad.iter()
            .any(|b| b.starts_with("rank 0: fence 0 collect") && !b.ends_with("SUCCESS")),
        "{bad:?}"
    );
    assert!(
        bad.iter()
            .all(|b| b.starts_with("rank 0:") || b.starts_with("rank 1:")),
        "{bad:?}"
    );
}
