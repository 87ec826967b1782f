//! Recolors one pattern on fat_tree(40) both ways (`Router::recolor`, the trees kept, and
//! `Router::recolor_rerouting`, the trees built again) and prints the colors before and
//! after, the floors and the time: a quick look at one row of `reproduce mcast-colors`.
//!
//! `cargo run --release -p mcast-route --example recolor_probe -- [x,y,z[/ppt] | random-<count>x<size>] [seed]`
//! (default `25,25,25`; `/ppt` gives the processes per terminal, 1 by default, as in
//! `40,40,40/4`; `seed`, the re-routing's tabu seed, 0 (the default seed) by default).

use std::time::Instant;

use fabric_model::{HopTable, generators};
use mcast_route::coloring::Tabu;
use mcast_route::{Config, Entries, Router, patterns};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "25,25,25".into());
    let seed: u64 = std::env::args().nth(2).map_or(Ok(0), |s| s.parse())?;
    let fabric = generators::fat_tree(40)?;
    let hops = HopTable::new(&fabric)?;
    let groups = if let Some(rest) = arg.strip_prefix("random-") {
        let (count, size) = rest.split_once('x').ok_or("random-<count>x<size>")?;
        patterns::random_groups(&fabric, count.parse()?, size.parse()?, 7)?
    } else {
        let (dims, ppt) = arg.split_once('/').unwrap_or((&arg, "1"));
        let dims: Vec<u32> = dims.split(',').map(str::parse).collect::<Result<_, _>>()?;
        patterns::grid(&fabric, &dims, ppt.parse()?)?
    };
    let route = || -> Result<Router<'_>, Box<dyn std::error::Error>> {
        let mut r = Router::new(&fabric, &hops, Config::mr4lms(Entries::Unlimited))?;
        for g in &groups {
            r.create_group(g)?;
        }
        Ok(r)
    };
    let mut r = route()?;
    let before = r.stats();
    let t0 = Instant::now();
    let kept = r.recolor_with(&Tabu::DEFAULT);
    let t_kept = t0.elapsed();
    let mut r = route()?;
    let t0 = Instant::now();
    let rerouted = r.recolor_rerouting(&Tabu::DEFAULT.with_seed(seed));
    let t_re = t0.elapsed();
    println!(
        "{arg}: {} groups, {} colors online (bound {}); recolored {} (floor {}, {:.2} s); \
         re-routed {} (forced clique {}, {:.2} s, {} blocks changed)",
        before.groups,
        before.colors_used,
        before.color_lower_bound,
        kept.colors_after,
        kept.floor,
        t_kept.as_secs_f64(),
        rerouted.colors_after,
        rerouted.floor,
        t_re.as_secs_f64(),
        rerouted.delta.len()
    );
    Ok(())
}
