//! Measurements through the real servers (`pmix-kvs-host bench`): fence time per algorithm
//! and node count against the all-to-all baseline in the same run, and `PMIx_Get` latency of
//! OpenPMIx clients whose data came through the host's fence against one node (OpenPMIx's
//! own single-node path, where the fence upcall returns the node's data as it is).
//!
//! Each configuration runs `reps` times, the algorithms interleaved within a repetition so
//! that load drifts hit them alike. A run's figure is its worst client's median (every
//! client of a fence waits for the same collective).

use std::path::Path;

use crate::launch::Launch;
use crate::node::FenceAlg;

/// One client's summary line: `bench RANK WHAT n=.. min=.. p50=.. p90=.. p99=.. max=..`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The rank.
    pub rank: u32,
    /// `fence_ns` or `get_ns`.
    pub what: String,
    /// Its median in nanoseconds.
    pub p50: u64,
    /// Its 99th percentile.
    pub p99: u64,
}

/// Parses a client's `bench` line.
#[must_use]
pub fn parse(line: &str) -> Option<Summary> {
    let mut it = line.split(' ');
    if it.next()? != "bench" {
        return None;
    }
    let rank = it.next()?.parse().ok()?;
    let what = it.next()?.to_owned();
    let mut p50 = None;
    let mut p99 = None;
    for f in it {
        match f.split_once('=') {
            Some(("p50", v)) => p50 = v.parse().ok(),
            Some(("p99", v)) => p99 = v.parse().ok(),
            _ => {}
        }
    }
    Some(Summary {
        rank,
        what,
        p50: p50?,
        p99: p99?,
    })
}

/// Median and extremes of `v` (sorted in place).
fn spread(v: &mut [u64]) -> (u64, u64, u64) {
    v.sort_unstable();
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn run_once(job: &Launch, what: &str, filter: &dyn Fn(u32) -> bool) -> Result<(u64, u64), String> {
    let out = job.run()?;
    if !out.unfinished.is_empty()
        || out
            .hosts
            .iter()
            .any(|(s, _)| !s.is_some_and(|s| s.success()))
    {
        return Err(format!("run in {} failed", job.dir.display()));
    }
    let mut p50 = 0;
    let mut p99 = 0;
    for (rank, lines) in (0u32..).zip(&out.clients) {
        if !filter(rank) {
            continue;
        }
        let s = lines
            .iter()
            .filter_map(|l| parse(l))
            .find(|s| s.what == what)
            .ok_or_else(|| format!("rank {rank} printed no {what}"))?;
        p50 = p50.max(s.p50);
        p99 = p99.max(s.p99);
    }
    Ok((p50, p99))
}

/// Fence time through the real servers: `nodes` × `per_node` clients, each contributing a
/// `bytes`-byte value, `fences` timed fences with data collection per run. Prints one CSV row
/// per (algorithm, node count): the median over `reps` runs of each run's worst client
/// median, with the runs' minimum and maximum.
pub fn fences(
    host: &Path,
    dir: &Path,
    nodes: &[u32],
    per_node: u32,
    bytes: usize,
    fences: usize,
    reps: usize,
) -> Result<(), String> {
    let algs = ["tree", "ring", "bruck", "alltoall"].map(|a| FenceAlg::parse(a).expect("known"));
    println!(
        "algorithm,nodes,clients_per_node,value_bytes,fences,runs,fence_us_p50,fence_us_min,fence_us_max"
    );
    for &n in nodes {
        let mut times: Vec<Vec<u64>> = vec![Vec::new(); algs.len()];
        for rep in 0..reps {
            for (k, &alg) in algs.iter().enumerate() {
                let job = Launch::new(
                    host,
                    vec![
                        crate::CLIENT.to_owned(),
                        "bench".to_owned(),
                        fences.to_string(),
                        "0".to_owned(),
                        bytes.to_string(),
                    ],
                    n,
                    per_node,
                    alg,
                    &dir.join(format!("fence-{n}-{}-{rep}", alg.name())),
                );
                times[k].push(run_once(&job, "fence_ns", &|_| true)?.0);
            }
        }
        for (k, alg) in algs.iter().enumerate() {
            let (p50, min, max) = spread(&mut times[k]);
            let us = |ns: u64| format!("{}.{}", ns / 1000, ns % 1000 / 100);
            println!(
                "{},{n},{per_node},{bytes},{fences},{reps},{},{},{}",
                alg.name(),
                us(p50),
                us(min),
                us(max)
            );
        }
    }
    Ok(())
}

/// A get case: its name, nodes, ranks per node, and which ranks it reports.
type Case<'a> = (&'a str, u32, u32, &'a dyn Fn(u32) -> bool);

/// `PMIx_Get` of the next rank's `u64` after a fence: `clients` ranks on one node (OpenPMIx's
/// single-node path), then the same ranks on `nodes` nodes (the data of other nodes' ranks
/// came through the host's Bruck fence). On several nodes the ranks whose next rank is on
/// another node and those whose next rank is local are reported apart. Prints CSV rows: the
/// median over `reps` runs of the worst such client's p50 and p99.
pub fn gets(
    host: &Path,
    dir: &Path,
    clients: u32,
    nodes: u32,
    gets: usize,
    reps: usize,
) -> Result<(), String> {
    let bruck = FenceAlg::parse("bruck").expect("known");
    let per_node = clients / nodes.max(1);
    let remote_next = |r: u32| (r + 1) / per_node.max(1) % nodes.max(1) != r / per_node.max(1);
    let cases: [Case; 3] = [
        ("one node", 1, clients, &|_| true),
        ("peer on another node", nodes, per_node, &remote_next),
        ("peer on the same node", nodes, per_node, &|r| {
            !remote_next(r)
        }),
    ];
    println!("case,nodes,clients,gets,runs,get_ns_p50,get_ns_p50_min,get_ns_p50_max,get_ns_p99");
    let mut per_case: Vec<(Vec<u64>, Vec<u64>)> = vec![(Vec::new(), Vec::new()); cases.len()];
    for rep in 0..reps {
        for (k, (name, n, pn, filter)) in cases.iter().enumerate() {
            let job = Launch::new(
                host,
                vec![
                    crate::CLIENT.to_owned(),
                    "bench".to_owned(),
                    "1".to_owned(),
                    gets.to_string(),
                    "8".to_owned(),
                ],
                *n,
                *pn,
                bruck,
                &dir.join(format!("get-{k}-{rep}")),
            );
            let (p50, p99) =
                run_once(&job, "get_ns", *filter).map_err(|e| format!("{name}: {e}"))?;
            per_case[k].0.push(p50);
            per_case[k].1.push(p99);
        }
    }
    for (k, (name, n, pn, _)) in cases.iter().enumerate() {
        let (p50, min, max) = spread(&mut per_case[k].0);
        let (p99, _, _) = spread(&mut per_case[k].1);
        println!(
            "{name},{n},{},{gets},{reps},{p50},{min},{max},{p99}",
            n * pn
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_lines_parse() {
        let s = parse("bench 3 fence_ns n=50 min=10 p50=20 p90=30 p99=40 max=50").unwrap();
        assert_eq!(
            s,
            Summary {
                rank: 3,
                what: "fence_ns".to_owned(),
                p50: 20,
                p99: 40
            }
        );
        assert_eq!(parse("op 0 job * k SUCCESS -"), None);
        assert_eq!(parse("bench 3 get_ns n=5 p50=x p99=1"), None);
    }
}
