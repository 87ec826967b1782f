//! Times joins and leaves on a live router, as the `join_leave` bench holds it:
//! `torus(&[30, 20, 20], 2)` with 256 entries or `fat_tree(40)` with 128, 5,000 random
//! groups of 16 joined member by member, then pairs of one join of a terminal not in a
//! group and the same port's leave, over a cycle of the groups (the bench's choice of
//! port). Prints the trees' sizes, the join and leave times (mean, and the pair's), and a
//! fingerprint of every outcome, MFT delta and final table dump, to check that a change
//! keeps the same trees.
//!
//! `cargo run --release -p mcast-route --example join_leave_probe -- [torus|fat] [pairs]
//! [groups] [delta]` (defaults torus 20000 5000; `delta` also logs and fingerprints the MFT
//! delta of every operation, which the bench does not track).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::Instant;

use fabric_model::{HopTable, generators};
use mcast_route::{Config, Entries, Gid, Router, patterns};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "torus".into());
    let pairs: usize = args.next().map_or(Ok(20_000), |a| a.parse())?;
    let count: usize = args.next().map_or(Ok(5000), |a| a.parse())?;
    let delta = args.next().is_some_and(|a| a == "delta");
    let (fabric, n_colors) = match which.as_str() {
        "fat" => (generators::fat_tree(40)?, 128),
        _ => (generators::torus(&[30, 20, 20], 2)?, 256),
    };
    let hops = HopTable::new(&fabric)?;
    let mut r = Router::new(&fabric, &hops, Config::mr4lms(Entries::Limit(n_colors)))?;
    let mgid = |k: usize| Gid::new(0xff12_401b_ffff_0000, k as u64);
    let groups = patterns::random_groups(&fabric, count, 16, 7)?;
    let start = Instant::now();
    for (k, g) in groups.iter().enumerate() {
        for &m in g {
            r.join(mgid(k), m)?;
        }
    }
    println!(
        "{count} groups joined in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let mut sizes: Vec<(usize, usize, usize)> = r
        .tree_ids()
        .filter_map(|id| r.tree(id))
        .map(|t| (t.switches.len(), t.members.len(), t.groups.len()))
        .collect();
    sizes.sort_unstable();
    let n = sizes.len();
    let pick = |q: usize| sizes[(n - 1) * q / 100];
    println!(
        "{n} trees (switches, members, groups): median {:?}, p90 {:?}, max {:?}",
        pick(50),
        pick(90),
        pick(100)
    );
    // Groups weighted as the bench cycles them: the switches of each group's tree.
    let mut per_group: Vec<usize> = (0..count)
        .filter_map(|k| r.group_of(mgid(k)))
        .filter_map(|g| r.group(g).ok())
        .filter_map(|g| r.tree(g.tree))
        .map(|t| t.switches.len())
        .collect();
    per_group.sort_unstable();
    let m = per_group.len();
    println!(
        "tree switches by group: median {}, p90 {}, mean {:.0}",
        per_group[m / 2],
        per_group[(m - 1) * 9 / 10],
        per_group.iter().sum::<usize>() as f64 / m as f64
    );
    if delta {
        r.take_mft_delta();
    }
    let t = fabric.terminals();
    // Per join method and per leave kind (pruned or not): count and seconds.
    let mut by_kind: std::collections::BTreeMap<String, (usize, f64)> = Default::default();
    let mut fp = DefaultHasher::new();
    let (mut join_s, mut leave_s) = (0.0, 0.0);
    let mut k = 0usize;
    for _ in 0..pairs {
        k = (k + 1) % groups.len();
        let mut port = t[(groups[k][0].index() * 7919 + k) % t.len()];
        while groups[k].contains(&port) {
            port = t[(port.index() + 1) % t.len()];
        }
        let a = Instant::now();
        let j = r.join(mgid(k), port)?;
        let b = Instant::now();
        let l = r.leave(mgid(k), port)?;
        let c = Instant::now();
        join_s += (b - a).as_secs_f64();
        leave_s += (c - b).as_secs_f64();
        for (kind, s) in [
            (format!("join {:?}", j.method), (b - a).as_secs_f64()),
            (
                format!("leave pruned={}", l.pruned > 0),
                (c - b).as_secs_f64(),
            ),
        ] {
            let e = by_kind.entry(kind).or_default();
            e.0 += 1;
            e.1 += s;
        }
        format!("{j:?} {l:?}").hash(&mut fp);
        if delta {
            r.take_mft_delta().hash(&mut fp);
        }
    }
    let us = |s: f64| s * 1e6 / pairs as f64;
    println!(
        "{pairs} pairs: join {:.1} µs, leave {:.1} µs, pair {:.1} µs (means)",
        us(join_s),
        us(leave_s),
        us(join_s + leave_s)
    );
    for (kind, (n, s)) in &by_kind {
        println!("  {kind:<24} {n:6} × {:8.1} µs", s * 1e6 / *n as f64);
    }
    r.dump()?.hash(&mut fp);
    format!("{}", r.stats()).hash(&mut fp);
    println!("fingerprint {:016x}", fp.finish());
    Ok(())
}
