//! A node's host killed (SIGKILL) in the middle of a fence: every client of every node gets an
//! error from `PMIx_Fence`, none hangs. The surviving hosts fail the fence when the dead
//! host's connection closes (`PMIX_ERR_UNREACH`), the dead host's clients lose their server.
//! A host frozen instead (SIGSTOP) is caught by the fence's deadline (`PMIX_ERR_TIMEOUT`): the
//! first surviving host to reach it reports a timeout; a host still waiting when that one has
//! ended and closed its connections may report the lost peer (`PMIX_ERR_UNREACH`) instead.

use std::path::Path;
use std::time::Duration;

use pmix_kvs::fence::Algorithm;
use pmix_kvs_host::CLIENT;
use pmix_kvs_host::launch::Launch;
use pmix_kvs_host::node::FenceAlg;

fn killed_mid_fence(nodes: u32, per_node: u32, victim: u32, alg: FenceAlg, freeze: bool) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "killed-{nodes}x{per_node}-{victim}-{}-{freeze}",
        alg.name()
    ));
    let mut job = Launch::new(
        Path::new(env!("CARGO_BIN_EXE_pmix-kvs-host")),
        vec![CLIENT.to_owned(), "fence".to_owned()],
        nodes,
        per_node,
        alg,
        &dir,
    );
    job.kill = Some((victim, 0));
    job.freeze = freeze;
    job.fence_timeout_s = if freeze { 3 } else { 20 };
    job.deadline = Duration::from_secs(60);
    let out = job.run().expect("run");
    assert!(out.unfinished.is_empty(), "ranks {:?} hang", out.unfinished);
    let victim_status = out.hosts[victim as usize].0;
    assert!(
        victim_status.is_some_and(|s| !s.success()),
        "the victim host exited: {victim_status:?}"
    );
    let proc_nodes = job.proc_nodes();
    let proc_node = |r: usize| proc_nodes[r];
    let mut timed_out = 0;
    for (rank, lines) in out.clients.iter().enumerate() {
        let fence = lines
            .iter()
            .find(|l| l.starts_with("fence "))
            .map(String::as_str);
        let failed = match fence {
            // A frozen host's peers give up at the fence's deadline, or see a peer that gave
            // up before them end.
            Some(l) if freeze && proc_node(rank) != victim => {
                timed_out += usize::from(l.ends_with(" TIMEOUT"));
                l.ends_with(" TIMEOUT") || l.ends_with(" UNREACHABLE")
            }
            Some(l) => !l.ends_with(" SUCCESS"),
            // The dead host's clients may lose their server before the fence reports.
            None => lines.iter().any(|l| l.starts_with("done ")),
        };
        assert!(failed, "rank {rank}: {lines:?}");
    }
    // Nothing but a deadline can see a frozen host: someone must have timed out.
    assert!(
        !freeze || timed_out > 0,
        "no client timed out: {:?}",
        out.clients
    );
    eprintln!(
        "{nodes}x{per_node}, node {victim} {}, {}: every client failed in {} ms",
        if freeze { "frozen" } else { "killed" },
        alg.name(),
        out.elapsed.as_millis()
    );
    assert!(
        out.elapsed < Duration::from_secs(15),
        "took {:?}",
        out.elapsed
    );
}

#[test]
fn a_host_killed_mid_fence_fails_every_client() {
    killed_mid_fence(3, 2, 1, FenceAlg::Kvs(Algorithm::Bruck), false);
    killed_mid_fence(4, 2, 0, FenceAlg::Kvs(Algorithm::TREE), false);
    killed_mid_fence(4, 1, 3, FenceAlg::Kvs(Algorithm::Ring), false);
    killed_mid_fence(3, 3, 2, FenceAlg::AllToAll, false);
}

/// A host frozen mid-fence (SIGSTOP: its sockets stay open) is seen by no connection: the
/// other hosts' fence deadline fails their clients' fences with `PMIX_ERR_TIMEOUT`.
#[test]
fn a_host_frozen_mid_fence_times_every_other_client_out() {
    killed_mid_fence(3, 2, 1, FenceAlg::Kvs(Algorithm::Bruck), true);
}
