//! The differential test: the clients' script through the real OpenPMIx (several host
//! processes, each a node with its own server, pmix-kvs serving fence and direct modex) and
//! through pmix-kvs's own store and client; every status and value is compared. Each
//! difference must be one of the documented ones (the crate README gives the Standard's text
//! for each), and each documented difference must be seen.

use std::path::Path;

use pmix_kvs::fence::Algorithm;
use pmix_kvs_host::CLIENT;
use pmix_kvs_host::launch::Launch;
use pmix_kvs_host::node::FenceAlg;
use pmix_kvs_host::script::{parse_key, run_pmix_kvs};

/// The documented differences (the crate README quotes the Standard for each).
const DOCUMENTED: [&str; 5] = [
    "remote-nodeid",
    "remote-nrank",
    "remote-get-of-local-key",
    "local-get-of-remote-key",
    "missing-key-on-another-node",
];

/// Which documented difference a (real, pmix-kvs) pair of lines is, if any.
fn classify(proc_nodes: &[u32], real: &str, ours: &str) -> Option<&'static str> {
    let r: Vec<&str> = real.split(' ').collect();
    let o: Vec<&str> = ours.split(' ').collect();
    if r.len() != 7 || o.len() != 7 || r[..5] != o[..5] {
        return None;
    }
    let me: usize = r[1].parse().ok()?;
    let target: usize = r[3].parse().ok()?;
    let same_node = proc_nodes[target] == proc_nodes[me];
    let scope = parse_key(r[4]).map(|(_, s, _)| s);
    let class = match (r[2], r[4], scope, r[5], o[5]) {
        // OpenPMIx 4.2 does not answer the node id of a process on another node, though the
        // host registered it per process; pmix-kvs answers it from the process map.
        ("job", "pmix.nodeid", _, "NOT-FOUND", "SUCCESS") => "remote-nodeid",
        // pmix-kvs counts node ranks across the jobs of its own node only, so it has none for
        // a process on another node; OpenPMIx answers what the host registered.
        ("job", "pmix.nrank", _, "SUCCESS", "NOT-FOUND") => "remote-nrank",
        // A key put with PMIX_LOCAL asked from another node, and one put with PMIX_REMOTE asked
        // on its own node: OpenPMIx says NOT_FOUND, pmix-kvs EXISTS_OUTSIDE_SCOPE.
        ("before" | "nocollect" | "collect", _, Some(0), "NOT-FOUND", "OUTSIDE-SCOPE") => {
            "remote-get-of-local-key"
        }
        ("before" | "nocollect" | "collect", _, Some(1), "NOT-FOUND", "OUTSIDE-SCOPE") => {
            "local-get-of-remote-key"
        }
        // A missing key of a process on another node whose data is here: OpenPMIx says
        // NOT_FOUND at once, pmix-kvs holds the get until its timeout.
        ("missing", _, _, "NOT-FOUND", "TIMEOUT") => "missing-key-on-another-node",
        _ => return None,
    };
    let right_place = match class {
        "local-get-of-remote-key" => same_node && target != me,
        "remote-nodeid"
        | "remote-nrank"
        | "missing-key-on-another-node"
        | "remote-get-of-local-key" => !same_node,
        _ => false,
    };
    right_place.then_some(class)
}

fn differential(nodes: u32, per_node: u32, seen: &mut std::collections::BTreeSet<&'static str>) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-{nodes}x{per_node}"));
    let job = Launch::new(
        Path::new(env!("CARGO_BIN_EXE_pmix-kvs-host")),
        vec![CLIENT.to_owned(), "script".to_owned(), "1".to_owned()],
        nodes,
        per_node,
        FenceAlg::Kvs(Algorithm::Bruck),
        &dir,
    );
    let out = job.run().expect("run");
    assert!(out.unfinished.is_empty(), "{:?}", out.unfinished);
    let proc_nodes = job.proc_nodes();
    let ours = run_pmix_kvs(&proc_nodes, true).expect("pmix-kvs");
    let mut classes = std::collections::BTreeMap::new();
    let mut unexplained = Vec::new();
    for (rank, (real, ours)) in out.clients.iter().zip(&ours).enumerate() {
        let real: Vec<&String> = real.iter().filter(|l| l.starts_with("op ")).collect();
        assert_eq!(real.len(), ours.len(), "rank {rank}: number of reads");
        for (a, b) in real.iter().zip(ours) {
            if *a == b {
                *classes.entry("same").or_insert(0) += 1;
            } else if let Some(c) = classify(&proc_nodes, a, b) {
                *classes.entry(c).or_insert(0) += 1;
                seen.insert(c);
            } else {
                unexplained.push(format!("openpmix: {a}\npmix-kvs: {b}"));
            }
        }
    }
    eprintln!("{nodes}x{per_node}: {classes:?}");
    assert!(
        unexplained.is_empty(),
        "{} unexplained differences:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
}

#[test]
fn openpmix_and_pmix_kvs_agree_but_for_the_documented_differences() {
    let mut seen = std::collections::BTreeSet::new();
    for (nodes, per_node) in [(2, 2), (3, 1), (2, 3)] {
        differential(nodes, per_node, &mut seen);
    }
    let unseen: Vec<&str> = DOCUMENTED
        .iter()
        .copied()
        .filter(|c| !seen.contains(c))
        .collect();
    assert!(
        unseen.is_empty(),
        "documented differences not seen (fixed? update the README): {unseen:?}"
    );
}
