//! Reads a fabric from an ibnetdiscover file, routes a few multicast groups on it with MR4LMS
//! and a small MFT, and prints what a subnet manager would program: each group's tree and
//! the MFT dump of every switch.
//!
//! ```sh
//! cargo run -p mcast-route --example route_file                 # examples/data/fat_tree4.topo
//! cargo run -p mcast-route --example route_file -- my-fabric.topo
//! ```
//!
//! The sample file is `fabric_model::ibnet::write_ibnetdiscover` of
//! `fabric_model::generators::fat_tree(4)`: 20 four-port switches, 16 terminals.

use std::error::Error;

use fabric_model::{HopTable, ibnet};
use mcast_route::{Config, Entries, Router, patterns};

/// The sample fabric, committed with the crate.
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/fat_tree4.topo");

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| SAMPLE.to_owned());
    let fabric = ibnet::read_ibnetdiscover(&std::fs::read_to_string(&path)?)?;
    let hops = HopTable::new(&fabric)?;
    println!(
        "{path}: {} switches, {} terminals",
        fabric.switch_count(),
        fabric.terminal_count()
    );

    // Four MFT entries per switch, so that colors are shared by trees on disjoint switches.
    let mut router = Router::new(&fabric, &hops, Config::mr4lms(Entries::Limit(4)))?;
    // One group per row and per column of a process grid over the terminals (as many rows
    // of four as the terminals fill), and one group of every terminal.
    let rows = u32::try_from(fabric.terminal_count() / 4)?.max(1);
    let mut groups = patterns::grid(&fabric, &[4.min(fabric.terminal_count() as u32), rows], 1)?;
    groups.push(fabric.terminals().to_vec());
    for members in &groups {
        let made = router.create_group(members)?;
        let names: Vec<&str> = members
            .iter()
            .filter_map(|&m| fabric.get(m).map(|n| n.name.as_str()))
            .collect();
        println!(
            "group {} ({:?}): {}, color {}, root {}, height {} (least {}), members {}",
            made.group,
            made.method,
            made.tree,
            made.color,
            fabric.get(made.root).map_or("?", |n| n.name.as_str()),
            made.height,
            made.min_height,
            names.join(" ")
        );
    }
    println!("{}\n", router.stats());
    print!("{}", router.dump()?);
    Ok(())
}
