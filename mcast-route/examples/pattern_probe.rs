//! Routes one grid pattern on one topology with MR4LMS (unlimited entries; limited entries
//! with each merge strategy) and the two baselines and prints the statistics and time per group: a quick look at one row of
//! `reproduce mcast`.
//!
//! `cargo run --release -p mcast-route --example pattern_probe -- <topology> <x,y[,z]> [ppt] [n_colors] [fbtc_root_tries] [fctb|least]`
//! where `<topology>` is `bluelight` (tapered 32×272, 8 up-paths), `taihulight` (32×1280, 2),
//! `fat_tree` (k = 40), `torus` (30×20×20), `dragonfly` (18, 9, 9) or `random` (2048 switches
//! of radix 40). `<x,y[,z]>` may also be `random-<count>x<size>` (seeded random groups, as in
//! `reproduce mcast`). `PROBE_ONLY=<label prefix>[,<prefix>…]` runs only the configurations
//! whose label starts with one of them (e.g. `mr4lms limited` under callgrind).

use std::time::Instant;

use fabric_model::{Fabric, HopTable, generators};
use mcast_route::{Algorithm, BottomUp, Config, Entries, MergeStrategy, Policy, Router, patterns};

fn topology(name: &str) -> Result<Fabric, Box<dyn std::error::Error>> {
    Ok(match name {
        "bluelight" => generators::tapered_fat_tree(32, 272, 8)?,
        "taihulight" => generators::tapered_fat_tree(32, 1280, 2)?,
        "fat_tree" => generators::fat_tree(40)?,
        "torus" => generators::torus(&[30, 20, 20], 2)?,
        "random" => generators::random_regular(2048, 40, 20, 1)?,
        "dragonfly" => generators::dragonfly(18, 9, 9)?,
        other => return Err(format!("unknown topology {other:?}").into()),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("bluelight", String::as_str);
    let shape = args.get(1).map_or("64,16,34", String::as_str);
    let ppt: u32 = args.get(2).map_or(Ok(4), |a| a.parse())?;
    let n: u32 = args.get(3).map_or(Ok(128), |a| a.parse())?;
    let tries: Option<u32> = args.get(4).map(|a| a.parse()).transpose()?;
    // A sixth argument `fctb` runs MR4LMS with FCTB only, `least` with least-load paths.
    let variant = args.get(5).map_or("", String::as_str);
    let fabric = topology(name)?;
    let hops = HopTable::new(&fabric)?;
    let (dims, groups) = if let Some(rest) = shape.strip_prefix("random-") {
        let (count, size) = rest.split_once('x').ok_or("random-<count>x<size>")?;
        let groups = patterns::random_groups(&fabric, count.parse()?, size.parse()?, 7)?;
        (Vec::new(), groups)
    } else {
        let dims: Vec<u32> = shape.split(',').map(str::parse).collect::<Result<_, _>>()?;
        let groups = patterns::grid(&fabric, &dims, ppt)?;
        (dims, groups)
    };
    let only = std::env::var("PROBE_ONLY").unwrap_or_default();
    let limited = |merge| Config::mr4lms(Entries::Limit(n)).with_merge(merge);
    let configs = [
        ("mr4lms unlimited", Config::mr4lms(Entries::Unlimited)),
        ("mr4lms limited", Config::mr4lms(Entries::Limit(n))),
        (
            "  paper's merge",
            limited(MergeStrategy::OptimisticThenPessimistic),
        ),
        (
            "  fewest-groups color",
            limited(MergeStrategy::FewestGroupsColor),
        ),
        (
            "sssp-mc",
            Config::baseline(Algorithm::SsspMc, Entries::Unlimited),
        ),
        (
            "minihop-mc",
            Config::baseline(Algorithm::MinihopMc, Entries::Unlimited),
        ),
    ];
    for (label, mut cfg) in configs {
        if !only.split(',').any(|o| label.starts_with(o)) {
            continue;
        }
        if let Some(t) = tries {
            cfg = cfg.with_fbtc_root_tries(t);
        }
        match variant {
            "fctb" => cfg = cfg.with_policy(Policy::FctbOnly),
            "least" => cfg = cfg.with_bottom_up(BottomUp::LeastLoadPath),
            _ => {}
        }
        let mut r = Router::new(&fabric, &hops, cfg)?;
        let start = Instant::now();
        for g in &groups {
            r.create_group(g)?;
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / groups.len() as f64;
        let s = r.stats();
        println!(
            "{name} {dims:?} ppt {ppt} {label:<21} groups {} colors {} (lb {}) max_efi {} max_tfi {} merged {} excess {} {us:.0} µs/group",
            s.groups,
            s.colors_used,
            s.color_lower_bound,
            s.max_efi,
            s.max_tfi,
            s.merged_groups,
            s.max_height_excess
        );
    }
    Ok(())
}
