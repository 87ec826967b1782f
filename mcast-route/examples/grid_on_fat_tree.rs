//! Routes a 3-D process grid on a k-ary fat tree with MR4LMS and prints the statistics.
//!
//! `cargo run --release -p mcast-route --example grid_on_fat_tree -- [k] [n_colors] [repeats]`

use std::time::Instant;

use fabric_model::{HopTable, generators};
use mcast_route::{Config, Entries, Router, patterns};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u32>());
    let k = args.next().transpose()?.unwrap_or(16);
    let n = args.next().transpose()?.unwrap_or(0);
    let repeats = args.next().transpose()?.unwrap_or(1);
    let fabric = generators::fat_tree(k)?;
    let hops = HopTable::new(&fabric)?;
    let half = k / 2;
    let groups = patterns::grid(&fabric, &[k, half, half], 1)?;
    let entries = if n == 0 {
        Entries::Unlimited
    } else {
        Entries::Limit(n)
    };
    for _ in 0..repeats {
        let mut r = Router::new(&fabric, &hops, Config::mr4lms(entries))?;
        let start = Instant::now();
        for g in &groups {
            r.create_group(g)?;
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / groups.len() as f64;
        println!(
            "{} groups, {us:.1} µs per group, {:?}",
            groups.len(),
            r.stats()
        );
    }
    Ok(())
}
