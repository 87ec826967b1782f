//! Measures the memory of a router with many random groups on a fabric, hop table included:
//! the process's peak and current resident set (`VmHWM`, `VmRSS` from `/proc/self/status`,
//! Linux only) after each phase, beside the router's own [`Router::memory_bytes`] estimate.
//!
//! `cargo run --release -p mcast-route --example memory_probe -- [groups] [size] [n_colors]`
//! (defaults 5000 16 256; `n_colors` 0 is unlimited) on `torus(&[30, 20, 20], 2)`.

use std::time::Instant;

use fabric_model::{HopTable, generators};
use mcast_route::{Config, Entries, Router, patterns};

/// `(VmHWM, VmRSS)` in MB, or zeros where `/proc` is missing.
fn rss_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kb| kb * 1024.0 / 1e6)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn report(phase: &str) {
    let (hwm, rss) = rss_mb();
    println!("{phase:<12} peak {hwm:7.1} MB  now {rss:7.1} MB");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u32>());
    let count = args.next().transpose()?.unwrap_or(5000) as usize;
    let size = args.next().transpose()?.unwrap_or(16) as usize;
    let n = args.next().transpose()?.unwrap_or(256);
    report("start");
    let fabric = generators::torus(&[30, 20, 20], 2)?;
    report("fabric");
    let hops = HopTable::new(&fabric)?;
    report("hop table");
    let groups = patterns::random_groups(&fabric, count, size, 11)?;
    report("groups");
    let entries = if n == 0 {
        Entries::Unlimited
    } else {
        Entries::Limit(n)
    };
    let mut r = Router::new(&fabric, &hops, Config::mr4lms(entries))?;
    report("router");
    let start = Instant::now();
    for g in &groups {
        r.create_group(g)?;
    }
    let secs = start.elapsed().as_secs_f64();
    report("created");
    let st = r.stats();
    let (mut switches, mut leaves) = (0usize, 0usize);
    for id in r.tree_ids() {
        if let Some(t) = r.tree(id) {
            switches += t.switches.len();
            leaves += t.members.len();
        }
    }
    println!("trees hold {switches} switches and {leaves} member leaves");
    println!(
        "{count} groups of {size} in {secs:.2} s ({:.0} µs/group); router estimate {:.1} MB, hop table {:.1} MB; {st:?}",
        secs * 1e6 / count as f64,
        r.memory_bytes().get() as f64 / 1e6,
        hops.memory_bytes().get() as f64 / 1e6,
    );
    Ok(())
}
