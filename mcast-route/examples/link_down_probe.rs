//! Times link failures on a live router: `torus(&[30, 20, 20], 2)`, 256 entries, 5,000
//! random groups of 16 joined member by member (as the `join_leave` and `link_failure`
//! benches hold them), then random switch–switch links taken down and brought back up, one
//! at a time. Prints each link-down's time (hop table update and repair), the trees
//! rerouted and the groups changed, then fastest/median/slowest, and a fingerprint of every
//! outcome, MFT delta and final table dump, to check that a change keeps the same trees.
//!
//! `cargo run --release -p mcast-route --example link_down_probe -- [links] [groups] [seed]
//! [only]` (defaults 20 5000 1; `only`, an index into the drawn links, runs that failure
//! alone after the joins, five times over, for a profiler).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::Instant;

use fabric_model::rng::SplitMix64;
use fabric_model::{HopTable, LinkId, generators};
use mcast_route::{Config, Entries, Gid, Router, patterns};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>());
    let count = args.next().transpose()?.unwrap_or(20) as usize;
    let groups = args.next().transpose()?.unwrap_or(5000) as usize;
    let seed = args.next().transpose()?.unwrap_or(1);
    let only = args.next().transpose()?.map(|i| i as usize);
    let fabric = generators::torus(&[30, 20, 20], 2)?;
    let hops = HopTable::new(&fabric)?;
    let mut r = Router::new(&fabric, &hops, Config::mr4lms(Entries::Limit(256)))?;
    let mgid = |k: usize| Gid::new(0xff12_401b_ffff_0000, k as u64);
    let start = Instant::now();
    for (k, g) in patterns::random_groups(&fabric, groups, 16, 7)?
        .iter()
        .enumerate()
    {
        for &m in g {
            r.join(mgid(k), m)?;
        }
    }
    println!(
        "{groups} groups joined in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    r.take_mft_delta();
    let links: Vec<LinkId> = (0..fabric.link_count() as u32)
        .map(LinkId::new)
        .filter(|&l| {
            fabric
                .link(l)
                .ends
                .iter()
                .all(|&(n, _)| fabric.is_switch(n))
        })
        .collect();
    let mut rng = SplitMix64::new(seed);
    let drawn: Vec<LinkId> = (0..count)
        .map(|_| links[(rng.next_u64() % links.len() as u64) as usize])
        .collect();
    let mut fp = DefaultHasher::new();
    let mut ms = Vec::new();
    let runs: Vec<LinkId> = match only {
        Some(i) => {
            // Time for a profiler to attach.
            std::thread::sleep(std::time::Duration::from_secs(3));
            vec![*drawn.get(i).ok_or("`only` is past the links drawn")?; 5]
        }
        None => drawn,
    };
    for &l in &runs {
        let t = Instant::now();
        let out = r.link_down(l)?;
        let down = t.elapsed().as_secs_f64() * 1e3;
        let delta = r.take_mft_delta();
        r.link_up(l)?;
        r.take_mft_delta().hash(&mut fp);
        println!(
            "{l}: down {down:9.2} ms, {} trees rerouted, {} groups changed, {} blocks",
            out.rerouted,
            out.changed.len(),
            delta.len()
        );
        format!("{out:?}").hash(&mut fp);
        delta.hash(&mut fp);
        ms.push(down);
    }
    ms.sort_by(f64::total_cmp);
    if let (Some(lo), Some(hi)) = (ms.first(), ms.last()) {
        println!(
            "link down fastest/median/slowest {lo:.1}/{:.1}/{hi:.1} ms over {}",
            ms[ms.len() / 2],
            ms.len()
        );
    }
    r.dump()?.hash(&mut fp);
    println!("fingerprint {:016x}", fp.finish());
    Ok(())
}
