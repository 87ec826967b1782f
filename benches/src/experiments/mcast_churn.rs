//! `reproduce mcast-churn`: MR4LMS in a live subnet manager. Groups are joined member by
//! member by MGID; then random joins and leaves, then failures and repairs of random
//! switch–switch links and switches. Per kind of event: time, groups rerouted, MFT blocks
//! changed (the `(switch, block)` pairs of [`Router::take_mft_delta`]) beside the blocks of a
//! full reprogram. Beside it, in the same run, what OpenSM does: on a topology change it
//! rebuilds the hop table and routes every group again from scratch (timed here as
//! [`HopTable::new`] over the fabric less what is down plus a new router creating every live
//! group); on a join or a leave, its engine routes the group's tree again (timed here as a
//! MINIHOP-MC router applying the same joins and leaves, which builds a new tree in the
//! group's MLID on a join).

use std::sync::Arc;
use std::time::Instant;

use fabric_model::rng::SplitMix64;
use fabric_model::{Fabric, FabricBuilder, HopTable, LinkId, NodeId, generators};
use mcast_route::{Algorithm, Config, Entries, Gid, JoinColor, Router, TopologyEvent, patterns};

use crate::{Cell, Context, Experiment, Scale, Table};

/// The experiment.
#[derive(Debug, Clone, Copy, Default)]
pub struct McastChurn;

/// The CSV header of `reproduce mcast-churn`.
pub const HEADER: &str = "topology,event,events,groups_rerouted_mean,blocks_changed_mean,full_reprogram_blocks,us_per_event,rebuild_us_per_event";

type Build = fn() -> Result<Fabric, fabric_model::Error>;

/// One topology's run.
#[derive(Clone, Copy)]
struct Setup {
    name: &'static str,
    /// The color a group gets at its first join (the paper's first fit, or ours).
    join_color: JoinColor,
    build: Build,
    n_colors: u32,
    groups: usize,
    size: usize,
    /// Joins and as many leaves.
    churn: usize,
    link_failures: usize,
    switch_failures: usize,
    /// Events of each kind whose OpenSM rebuild is timed.
    rebuilds: usize,
}

fn setups(scale: Scale) -> Vec<Setup> {
    let mut v = base_setups(scale);
    // Ours beside the paper's at the small scale: the least used color at a group's first
    // join.
    if scale == Scale::Small {
        let ours: Vec<Setup> = v
            .iter()
            .map(|s| Setup {
                name: match s.name {
                    "fat_tree-k16" => "fat_tree-k16+least-used-color",
                    _ => "torus-8x8x8-2+least-used-color",
                },
                join_color: JoinColor::LeastUsed,
                ..*s
            })
            .collect();
        v.extend(ours);
    }
    v
}

fn base_setups(scale: Scale) -> Vec<Setup> {
    match scale {
        Scale::Small => vec![
            Setup {
                name: "fat_tree-k16",
                join_color: JoinColor::FirstFit,
                build: || generators::fat_tree(16),
                n_colors: 64,
                groups: 400,
                size: 16,
                churn: 400,
                link_failures: 10,
                switch_failures: 4,
                rebuilds: 2,
            },
            Setup {
                name: "torus-8x8x8-2",
                join_color: JoinColor::FirstFit,
                build: || generators::torus(&[8, 8, 8], 2),
                n_colors: 64,
                groups: 400,
                size: 16,
                churn: 400,
                link_failures: 10,
                switch_failures: 4,
                rebuilds: 2,
            },
        ],
        Scale::Paper => vec![
            Setup {
                name: "fat_tree-k40",
                join_color: JoinColor::FirstFit,
                build: || generators::fat_tree(40),
                n_colors: 128,
                groups: 5000,
                size: 16,
                churn: 1000,
                link_failures: 10,
                switch_failures: 3,
                rebuilds: 1,
            },
            Setup {
                name: "torus-30x20x20-2",
                join_color: JoinColor::FirstFit,
                build: || generators::torus(&[30, 20, 20], 2),
                n_colors: 256,
                groups: 5000,
                size: 16,
                churn: 1000,
                link_failures: 10,
                switch_failures: 3,
                rebuilds: 1,
            },
        ],
    }
}

fn mgid(k: usize) -> Gid {
    Gid::new(0xff12_401b_ffff_0000, k as u64)
}

/// Per kind of event: count, Σ groups rerouted, Σ blocks changed, Σ µs, and the rebuilds'
/// (count, Σ µs).
#[derive(Debug, Default, Clone, Copy)]
struct Acc {
    n: usize,
    rerouted: usize,
    blocks: usize,
    us: f64,
    rebuilds: usize,
    rebuild_us: f64,
}

impl Acc {
    fn add(&mut self, rerouted: usize, blocks: usize, us: f64) {
        self.n += 1;
        self.rerouted += rerouted;
        self.blocks += blocks;
        self.us += us;
    }

    fn mean(x: f64, n: usize) -> f64 {
        if n == 0 { 0.0 } else { x / n as f64 }
    }
}

/// The `(switch, block)` pairs holding an entry: what a full reprogram sends.
fn full_blocks(r: &Router<'_>, f: &Fabric) -> usize {
    f.switches()
        .iter()
        .map(|&s| {
            let mut blocks: Vec<u32> = r
                .entries(s)
                .map(|e| e.iter().map(|(c, _)| c.get() / 32).collect())
                .unwrap_or_default();
            blocks.dedup();
            blocks.len()
        })
        .sum()
}

/// The fabric less the switch–switch links down in `r` (node ids kept, a down switch left
/// with its terminals only): what OpenSM's sweep discovers.
fn reduced(f: &Fabric, r: &Router<'_>) -> Result<Fabric, String> {
    let mut b = FabricBuilder::with_capacity(f.node_count(), 0, f.link_count());
    for n in f.node_ids() {
        b.add_node(f.node(n).clone()).map_err(|e| e.to_string())?;
    }
    for (i, l) in f.links().iter().enumerate() {
        let both = l.ends.iter().all(|&(n, _)| f.is_switch(n));
        if both && r.is_link_down(LinkId::new(i as u32)) {
            continue;
        }
        let [(a, pa), (z, pz)] = l.ends;
        b.link_with(a, pa, z, pz, l.rate, l.latency)
            .map_err(|e| e.to_string())?;
    }
    b.build().map_err(|e| e.to_string())
}

/// OpenSM on a topology change: the hop table rebuilt and every live group of `r` routed
/// again by a new router; µs.
fn rebuild(f: &Fabric, r: &Router<'_>, cfg: Config) -> Result<f64, String> {
    let reduced = reduced(f, r)?;
    let groups: Vec<Vec<NodeId>> = r
        .group_ids()
        .filter_map(|g| r.group(g).ok().map(|v| v.members))
        .collect();
    let start = Instant::now();
    let hops = HopTable::new(&reduced).map_err(|e| e.to_string())?;
    let mut fresh = Router::new(&reduced, &hops, cfg).map_err(|e| e.to_string())?;
    for m in &groups {
        // Switch members are not in create_group's vocabulary: keep the terminals.
        let t: Vec<NodeId> = m.iter().copied().filter(|&n| !f.is_switch(n)).collect();
        if !t.is_empty() {
            fresh.create_group(&t).map_err(|e| e.to_string())?;
        }
    }
    Ok(start.elapsed().as_secs_f64() * 1e6)
}

/// The process's peak resident set in bytes (Linux `VmHWM`), if readable.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn run_one(ctx: &Context, s: &Setup, table: &mut Table) -> Result<(), String> {
    ctx.progress(&format!("mcast-churn: building {}", s.name));
    // As a daemon holds them: the router shares the fabric and is the hop table's last
    // owner once the baseline router is gone, so that its own copy replaces it.
    let fab = Arc::new((s.build)().map_err(|e| e.to_string())?);
    let f: &Fabric = &fab;
    let hops = Arc::new(HopTable::new(f).map_err(|e| e.to_string())?);
    let hop_bytes = hops.memory_bytes().get();
    let cfg = Config::mr4lms(Entries::Limit(s.n_colors)).with_join_color(s.join_color);
    let mut r =
        Router::new_shared(Arc::clone(&fab), Arc::clone(&hops), cfg).map_err(|e| e.to_string())?;
    let mut osm = Router::new_shared(
        Arc::clone(&fab),
        Arc::clone(&hops),
        Config::baseline(Algorithm::MinihopMc, Entries::Unlimited),
    )
    .map_err(|e| e.to_string())?;
    let groups = patterns::random_groups(f, s.groups, s.size, 7).map_err(|e| e.to_string())?;
    // Every group joined member by member (the first join creates it).
    let mut join = Acc::default();
    let mut leave = Acc::default();
    let mut osm_join = 0.0;
    let mut osm_leave = 0.0;
    let mut osm_joins = 0usize;
    let mut osm_leaves = 0usize;
    ctx.progress(&format!(
        "mcast-churn: {} joining {} groups",
        s.name, s.groups
    ));
    let start = Instant::now();
    for (k, g) in groups.iter().enumerate() {
        for &m in g {
            r.join(mgid(k), m).map_err(|e| e.to_string())?;
        }
    }
    let build_us = start.elapsed().as_secs_f64() * 1e6;
    let joins_made: usize = groups.iter().map(Vec::len).sum();
    for (k, g) in groups.iter().enumerate() {
        for &m in g {
            osm.join(mgid(k), m).map_err(|e| e.to_string())?;
        }
    }
    let router_bytes = r.memory_bytes().get();
    let stats = r.stats();
    r.take_mft_delta();
    let full = full_blocks(&r, f);
    // Churn: a random member of a random group leaves, a random terminal joins one.
    let mut rng = SplitMix64::new(17);
    let t = f.terminals();
    for _ in 0..s.churn {
        let k = rng.below(groups.len() as u64) as usize;
        let members = r.members_of(mgid(k)).map_err(|e| e.to_string())?.to_vec();
        if members.len() > 1 {
            let m = members[rng.below(members.len() as u64) as usize];
            let st = Instant::now();
            let o = r.leave(mgid(k), m).map_err(|e| e.to_string())?;
            let us = st.elapsed().as_secs_f64() * 1e6;
            let _ = o;
            leave.add(1, r.take_mft_delta().len(), us);
            let st = Instant::now();
            osm.leave(mgid(k), m).map_err(|e| e.to_string())?;
            osm_leave += st.elapsed().as_secs_f64() * 1e6;
            osm_leaves += 1;
        }
        let k = rng.below(groups.len() as u64) as usize;
        let m = t[rng.below(t.len() as u64) as usize];
        if r.members_of(mgid(k)).is_ok_and(|ms| ms.contains(&m)) {
            continue;
        }
        let st = Instant::now();
        let o = r.join(mgid(k), m).map_err(|e| e.to_string())?;
        let us = st.elapsed().as_secs_f64() * 1e6;
        join.add(1 + o.merged.len(), r.take_mft_delta().len(), us);
        let st = Instant::now();
        osm.join(mgid(k), m).map_err(|e| e.to_string())?;
        osm_join += st.elapsed().as_secs_f64() * 1e6;
        osm_joins += 1;
    }
    drop(osm);
    drop(hops);
    join.rebuilds = osm_joins;
    join.rebuild_us = osm_join;
    leave.rebuilds = osm_leaves;
    leave.rebuild_us = osm_leave;
    // Failures and repairs; the router's own copy of the hop table made first (once, S²
    // bytes), not in the first event's time.
    let st = Instant::now();
    r.keep_own_hops();
    let copy_us = st.elapsed().as_secs_f64() * 1e6;
    let switch_links: Vec<LinkId> = (0..f.link_count() as u32)
        .map(LinkId::new)
        .filter(|&l| f.link(l).ends.iter().all(|&(n, _)| f.is_switch(n)))
        .collect();
    let mut kinds = [Acc::default(); 4];
    let mut events: Vec<(TopologyEvent, TopologyEvent)> = Vec::new();
    for _ in 0..s.link_failures {
        let l = switch_links[rng.below(switch_links.len() as u64) as usize];
        events.push((TopologyEvent::LinkDown(l), TopologyEvent::LinkUp(l)));
    }
    for _ in 0..s.switch_failures {
        let sw = f.switches()[rng.below(f.switch_count() as u64) as usize];
        events.push((TopologyEvent::SwitchDown(sw), TopologyEvent::SwitchUp(sw)));
    }
    ctx.progress(&format!(
        "mcast-churn: {} {} failures and repairs",
        s.name,
        events.len()
    ));
    for (down, up) in events {
        for (e, slot) in [(down, 0usize), (up, 1)] {
            let slot = slot
                + if matches!(down, TopologyEvent::SwitchDown(_)) {
                    2
                } else {
                    0
                };
            let st = Instant::now();
            let o = r.apply(e).map_err(|e| e.to_string())?;
            let us = st.elapsed().as_secs_f64() * 1e6;
            kinds[slot].add(o.changed.len(), r.take_mft_delta().len(), us);
            if kinds[slot].rebuilds < s.rebuilds {
                kinds[slot].rebuild_us += rebuild(f, &r, cfg)?;
                kinds[slot].rebuilds += 1;
            }
        }
    }
    let full_after = full_blocks(&r, f);
    let row = |table: &mut Table, event: &str, a: &Acc, full: usize| {
        // Also on the progress line, so that a long run's figures show as they come.
        ctx.progress(&format!(
            "mcast-churn: {} {event}: {} events, {:.1} us each (rebuild {:.1} us), {:.1} blocks of {full}",
            s.name,
            a.n,
            Acc::mean(a.us, a.n),
            Acc::mean(a.rebuild_us, a.rebuilds),
            Acc::mean(a.blocks as f64, a.n),
        ));
        table.push(vec![
            Cell::text(s.name),
            Cell::text(event),
            Cell::count(a.n),
            Cell::float(Acc::mean(a.rerouted as f64, a.n), 2),
            Cell::float(Acc::mean(a.blocks as f64, a.n), 1),
            Cell::count(full),
            Cell::float(Acc::mean(a.us, a.n), 1),
            Cell::float(Acc::mean(a.rebuild_us, a.rebuilds), 1),
        ]);
    };
    let first = Acc {
        n: joins_made,
        rerouted: joins_made,
        blocks: 0,
        us: build_us,
        rebuilds: 0,
        rebuild_us: 0.0,
    };
    row(table, "first-joins", &first, full);
    row(table, "join", &join, full);
    row(table, "leave", &leave, full);
    for (name, a) in ["link-down", "link-up", "switch-down", "switch-up"]
        .iter()
        .zip(&kinds)
    {
        row(table, name, a, full_after);
    }
    table.note(format!(
        "{}: {} groups of {} joined member by member ({} entries: {stats}); router tables {:.1} MB after the joins \
         (the shared hop table {:.1} MB besides; before the first change the router takes its \
         own copy, in {:.0} µs, and the shared one is freed: {:.1} MB now with it); process peak {}",
        s.name,
        s.groups,
        s.size,
        s.n_colors,
        router_bytes as f64 / 1e6,
        hop_bytes as f64 / 1e6,
        copy_us,
        r.memory_bytes().get() as f64 / 1e6,
        peak_rss().map_or("unknown".into(), |b| format!("{:.0} MB", b as f64 / 1e6)),
    ));
    Ok(())
}

impl Experiment for McastChurn {
    fn name(&self) -> &'static str {
        "mcast-churn"
    }

    fn description(&self) -> &'static str {
        "MR4LMS live: joins, leaves, link and switch failures and repairs; time, groups rerouted, MFT blocks changed vs OpenSM's rebuild"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let mut table = Table::new(
            "mcast-churn",
            "Multicast routing in a live subnet manager: incremental updates vs OpenSM's rebuild",
            HEADER,
        );
        for s in setups(ctx.scale) {
            run_one(ctx, &s, &mut table)?;
        }
        table.note(
            "blocks_changed_mean: (switch, MFT block) pairs of take_mft_delta after each event; \
             full_reprogram_blocks: (switch, block) pairs holding an entry (after the joins for \
             join/leave rows, after the failures for the others). rebuild_us_per_event: for \
             topology events HopTable::new over the fabric less what is down plus a new router \
             creating every live group (the first events of each kind); for join/leave a \
             MINIHOP-MC router applying the same events (a new tree in the group's MLID on a join, \
             a prune on a leave). first-joins: the joins that built the groups, no delta taken.",
        );
        Ok(vec![table])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduced_fabric_drops_exactly_the_links_down() {
        let f = generators::fat_tree(4).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::default()).unwrap();
        let l = (0..f.link_count() as u32)
            .map(LinkId::new)
            .find(|&l| f.link(l).ends.iter().all(|&(n, _)| f.is_switch(n)))
            .unwrap();
        r.link_down(l).unwrap();
        let g = reduced(&f, &r).unwrap();
        assert_eq!(g.link_count(), f.link_count() - 1);
        assert_eq!(g.node_count(), f.node_count());
        let rh = HopTable::new(&g).unwrap();
        let [(a, _), (b, _)] = f.link(l).ends;
        assert_eq!(rh.between(&g, a, b), r.hop_distance(a, b));
    }
}
