//! Reads a fabric from an ibnetdiscover file (or generates a fat tree when no file is given),
//! prints its size, link rates and switch diameter, places ranks on it and prints the
//! rank-to-rank latencies the other crates of the workspace consume.
//!
//! ```sh
//! cargo run -p fabric-model --example inspect                  # fat_tree(8)
//! cargo run -p fabric-model --example inspect -- my-fabric.topo
//! ```

use std::collections::BTreeMap;
use std::error::Error;

use fabric_model::bridge::{self, LatencyModel, NodeMap};
use fabric_model::{Bytes, Fabric, HopTable, Nanos, Placement, generators, ibnet, place};

fn main() -> Result<(), Box<dyn Error>> {
    let fabric: Fabric = match std::env::args().nth(1) {
        Some(path) => ibnet::read_ibnetdiscover(&std::fs::read_to_string(&path)?)?,
        None => generators::fat_tree(8)?,
    };
    println!(
        "{} switches, {} terminals, {} links ({} between switches), largest radix {}",
        fabric.switch_count(),
        fabric.terminal_count(),
        fabric.link_count(),
        fabric.switch_link_count(),
        fabric.max_radix()
    );
    let mut rates: BTreeMap<String, usize> = BTreeMap::new();
    for link in fabric.links() {
        *rates
            .entry(format!("{} ({})", link.rate, link.rate.bandwidth()))
            .or_default() += 1;
    }
    for (rate, n) in &rates {
        println!("  {n} links at {rate}");
    }
    let hops = HopTable::new(&fabric)?;
    match hops.diameter() {
        Some(d) => println!("switch diameter: {d} hops"),
        None => println!("the switch graph is not connected"),
    }

    // Two ranks a terminal on the first 16 terminals, and their 8-byte message latencies.
    let terminals = &fabric.terminals()[..fabric.terminal_count().min(16)];
    let ranks = place(terminals, 2 * terminals.len() as u32, 2, Placement::Block)?;
    let map = NodeMap::new(&ranks);
    let model = LatencyModel::new(Bytes::new(8)).intra_node(Nanos::new(300));
    let lat = bridge::latency_matrix(&fabric, &hops, &ranks, &model)?;
    let n = ranks.len();
    let (min, max) = lat
        .iter()
        .enumerate()
        .filter(|(i, _)| i / n != i % n)
        .fold((Nanos::MAX, Nanos::ZERO), |(lo, hi), (_, &l)| {
            (lo.min(l), hi.max(l))
        });
    println!(
        "{n} ranks on {} nodes: latency {min} to {max} between distinct ranks",
        map.node_count()
    );
    println!(
        "rank 0 to each rank: {:?}",
        &lat[..n].iter().map(|l| l.get()).collect::<Vec<_>>()
    );
    Ok(())
}
