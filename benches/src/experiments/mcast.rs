//! `reproduce mcast`: MR4LMS against MINIHOP-MC and SSSP-MC on the paper's topologies and
//! patterns (paper §4, Fig. 6, 7, 9, 10, 12): colors used, the lower bound, max EFI and TFI,
//! merges, height excess and the time per group creation.

use std::path::PathBuf;
use std::time::Instant;

use fabric_model::{Fabric, HopTable, NodeId, generators, ibnet};
use mcast_route::coloring::{self, Capacity, Graph, Tabu};
use mcast_route::{Algorithm, Config, Entries, Router, Stats, patterns};

use crate::svg::BarChart;
use crate::{Cell, Context, Experiment, Scale, Table};

/// The experiment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mcast;

/// The CSV header of `reproduce mcast`.
pub const HEADER: &str = "topology,pattern,groups,algorithm,n_colors,colors_used,color_lower_bound,max_efi,max_tfi,merged_groups,max_height_excess,us_per_group";

/// A pattern: name and how to make it.
#[derive(Debug, Clone, Copy)]
enum Pattern {
    Grid(&'static [u32], u32),
    Random { count: usize, size: usize },
}

impl Pattern {
    fn name(self) -> String {
        match self {
            Self::Grid(d, ppt) => {
                let dims: Vec<String> = d.iter().map(u32::to_string).collect();
                let ppt = if ppt > 1 {
                    format!("-{ppt}ppt")
                } else {
                    String::new()
                };
                format!("{}d-{}{ppt}", d.len(), dims.join("x"))
            }
            Self::Random { count, size } => format!("random-{count}x{size}"),
        }
    }

    fn groups(self, f: &Fabric) -> Result<Vec<Vec<NodeId>>, String> {
        match self {
            Self::Grid(d, ppt) => patterns::grid(f, d, ppt),
            Self::Random { count, size } => patterns::random_groups(f, count, size, 7),
        }
        .map_err(|e| e.to_string())
    }
}

type Build = fn() -> Result<Fabric, fabric_model::Error>;

/// A topology: name, builder, the paper's recommended `N_color`, patterns.
struct Topo {
    name: &'static str,
    build: Build,
    n_colors: u32,
    patterns: Vec<Pattern>,
}

const fn grid(d: &'static [u32], ppt: u32) -> Pattern {
    Pattern::Grid(d, ppt)
}

fn topologies(scale: Scale) -> Vec<Topo> {
    match scale {
        Scale::Small => vec![
            Topo {
                name: "fat_tree-k40",
                build: || generators::fat_tree(40),
                n_colors: 128,
                patterns: vec![
                    grid(&[40, 20, 20], 1),
                    grid(&[160, 100], 1),
                    grid(&[40, 40, 40], 4),
                ],
            },
            Topo {
                name: "tapered_fat_tree-32x64-up2",
                build: || generators::tapered_fat_tree(32, 64, 2),
                n_colors: 128,
                patterns: vec![grid(&[16, 16, 8], 1), grid(&[32, 16, 16], 4)],
            },
            Topo {
                name: "torus-10x10x10-t2",
                build: || generators::torus(&[10, 10, 10], 2),
                n_colors: 256,
                patterns: vec![grid(&[20, 10, 10], 1)],
            },
            Topo {
                name: "dragonfly-a6-p3-h3",
                build: || generators::dragonfly(6, 3, 3),
                n_colors: 256,
                patterns: vec![grid(&[18, 19], 1), Pattern::Random { count: 64, size: 8 }],
            },
            Topo {
                name: "random_regular-256-r16-t8-seed1",
                build: || generators::random_regular(256, 16, 8, 1),
                n_colors: 256,
                patterns: vec![grid(&[16, 16, 8], 1)],
            },
        ],
        Scale::Paper => vec![
            Topo {
                name: "bluelight-tapered-32x272-up8",
                build: || generators::tapered_fat_tree(32, 272, 8),
                n_colors: 128,
                patterns: vec![
                    grid(&[256, 34], 1),
                    grid(&[90, 90], 1),
                    grid(&[32, 16, 17], 1),
                    grid(&[20, 20, 20], 1),
                    Pattern::Random {
                        count: 544,
                        size: 16,
                    },
                    grid(&[64, 16, 34], 4),
                ],
            },
            Topo {
                name: "taihulight-tapered-32x1280-up2",
                build: || generators::tapered_fat_tree(32, 1280, 2),
                n_colors: 128,
                patterns: vec![
                    grid(&[256, 160], 1),
                    grid(&[200, 200], 1),
                    grid(&[32, 32, 40], 1),
                    grid(&[34, 34, 34], 1),
                    Pattern::Random {
                        count: 2560,
                        size: 16,
                    },
                    grid(&[128, 32, 40], 4),
                ],
            },
            Topo {
                name: "fat_tree-k40",
                build: || generators::fat_tree(40),
                n_colors: 128,
                patterns: vec![
                    grid(&[160, 100], 1),
                    grid(&[128, 125], 1),
                    grid(&[40, 20, 20], 1),
                    grid(&[25, 25, 25], 1),
                    Pattern::Random {
                        count: 1000,
                        size: 16,
                    },
                    grid(&[40, 40, 40], 4),
                ],
            },
            Topo {
                name: "torus-30x20x20-t2",
                build: || generators::torus(&[30, 20, 20], 2),
                n_colors: 256,
                patterns: vec![
                    grid(&[240, 100], 1),
                    grid(&[150, 160], 1),
                    grid(&[60, 20, 20], 1),
                    grid(&[28, 28, 28], 1),
                    Pattern::Random {
                        count: 1500,
                        size: 16,
                    },
                    grid(&[60, 40, 40], 4),
                ],
            },
            Topo {
                name: "dragonfly-a18-p9-h9",
                build: || generators::dragonfly(18, 9, 9),
                n_colors: 256,
                patterns: vec![
                    grid(&[162, 163], 1),
                    grid(&[160, 160], 1),
                    grid(&[30, 30, 29], 1),
                    grid(&[27, 27, 27], 1),
                    Pattern::Random {
                        count: 1650,
                        size: 16,
                    },
                    grid(&[60, 40, 44], 4),
                ],
            },
            Topo {
                name: "random_regular-2048-r40-t20-seed1",
                build: || generators::random_regular(2048, 40, 20, 1),
                n_colors: 256,
                patterns: vec![
                    grid(&[256, 160], 1),
                    grid(&[200, 200], 1),
                    grid(&[32, 32, 40], 1),
                    grid(&[34, 34, 34], 1),
                    Pattern::Random {
                        count: 2560,
                        size: 16,
                    },
                    grid(&[128, 32, 40], 4),
                ],
            },
        ],
    }
}

/// The paper's figures where its text states them: `(topology prefix, pattern, n_colors or 0
/// for unlimited, colors used, max EFI)`.
/// `(topology prefix, pattern, n_colors (0: unlimited), colors used, max EFI)`.
type PaperRow = (&'static str, &'static str, u32, Option<i64>, Option<i64>);

const PAPER: &[PaperRow] = &[
    ("bluelight", "2d-256x34", 0, Some(29), None),
    ("bluelight", "2d-90x90", 0, Some(50), None),
    ("bluelight", "3d-64x16x34-4ppt", 0, None, Some(24)),
    ("bluelight", "3d-64x16x34-4ppt", 128, None, Some(58)),
    ("taihulight", "3d-128x32x40-4ppt", 0, Some(269), Some(37)),
    ("taihulight", "3d-128x32x40-4ppt", 128, None, Some(300)),
    ("random_regular", "2d-256x160", 0, None, Some(20)),
    ("random_regular", "2d-256x160", 256, None, Some(34)),
    ("random_regular", "3d-128x32x40-4ppt", 0, None, Some(139)),
    ("random_regular", "3d-128x32x40-4ppt", 256, None, Some(4687)),
];

fn paper_cells(topo: &str, pattern: &str, alg: &str, n: u32) -> Vec<Cell> {
    let hit = PAPER
        .iter()
        .find(|p| alg == "mr4lms" && topo.starts_with(p.0) && p.1 == pattern && p.2 == n);
    let cell = |v: Option<i64>| v.map_or(Cell::Empty, Cell::Int);
    match hit {
        Some(p) => vec![cell(p.3), cell(p.4)],
        None => vec![Cell::Empty, Cell::Empty],
    }
}

/// Bar series: `(name, one value per pattern)`.
type Bars = Vec<(String, Vec<f64>)>;

/// Per topology: name, pattern names, colors used and max EFI series.
type ChartData = (String, Vec<String>, Bars, Bars);

/// Times the pattern's group creations are run, each on a fresh router, for
/// `us_per_group`: the median of these runs, so that one run slowed by the machine (this
/// table is wall time on shared cores) does not make the figure.
pub const TIMING_RUNS: usize = 3;

/// Creates `groups` in order on a fresh router [`TIMING_RUNS`] times; returns the first
/// run's router with its statistics, and the median time per group in µs. Every run must
/// end with the same statistics (the routers are deterministic), or this is an error.
fn timed_runs<'f>(
    fabric: &'f Fabric,
    hops: &'f HopTable,
    cfg: Config,
    groups: &[Vec<NodeId>],
) -> Result<(Router<'f>, Stats, f64), String> {
    let mut first: Option<(Router<'f>, Stats)> = None;
    let mut times = Vec::with_capacity(TIMING_RUNS);
    for _ in 0..TIMING_RUNS {
        let mut r = Router::new(fabric, hops, cfg).map_err(|e| e.to_string())?;
        let start = Instant::now();
        for g in groups {
            r.create_group(g).map_err(|e| e.to_string())?;
        }
        times.push(start.elapsed().as_secs_f64() * 1e6 / groups.len().max(1) as f64);
        let st = r.stats();
        match &first {
            None => first = Some((r, st)),
            Some((_, s)) if *s != st => {
                return Err(format!("runs differ: {s:?} then {st:?}"));
            }
            Some(_) => {}
        }
    }
    times.sort_by(f64::total_cmp);
    let (r, st) = first.ok_or("no run")?;
    Ok((r, st, times[times.len() / 2]))
}

/// One run's figures.
struct Run {
    colors_used: usize,
    max_efi: u32,
}

impl Experiment for Mcast {
    fn name(&self) -> &'static str {
        "mcast"
    }

    fn description(&self) -> &'static str {
        "MR4LMS vs MINIHOP-MC and SSSP-MC: colors, max EFI/TFI, merges, time per group (paper Fig. 6, 7, 9, 10, 12)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let mut table = Table::new(
            "mcast",
            "Multicast routing with a limited MFT: MR4LMS vs OpenSM baselines",
            HEADER,
        )
        .with_paper_columns(&["paper_colors_used", "paper_max_efi"]);
        // `reproduce mcast --dump DIR`: every fabric as an ibnetdiscover file, and the text
        // dump of every run's tables.
        let dump_dir = ctx.dump_dir().map(PathBuf::from);
        let mut charts: Vec<ChartData> = Vec::new();
        // (bytes, which run, groups): the largest router, hop table included.
        let mut peak = (0u64, String::new(), 0usize);
        for topo in topologies(ctx.scale) {
            ctx.progress(&format!("mcast: building {}", topo.name));
            let fabric = (topo.build)().map_err(|e| e.to_string())?;
            let hops = HopTable::new(&fabric).map_err(|e| e.to_string())?;
            if let Some(dir) = &dump_dir {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
                std::fs::write(
                    dir.join(format!("{}.topo", topo.name)),
                    ibnet::write_ibnetdiscover(&fabric),
                )
                .map_err(|e| e.to_string())?;
            }
            let algs: [(&str, Config); 4] = [
                ("mr4lms", Config::mr4lms(Entries::Unlimited)),
                ("mr4lms", Config::mr4lms(Entries::Limit(topo.n_colors))),
                (
                    "minihop-mc",
                    Config::baseline(Algorithm::MinihopMc, Entries::Unlimited),
                ),
                (
                    "sssp-mc",
                    Config::baseline(Algorithm::SsspMc, Entries::Unlimited),
                ),
            ];
            let mut cats = Vec::new();
            let mut colors: Vec<(String, Vec<f64>)> = Vec::new();
            let mut efis: Vec<(String, Vec<f64>)> = Vec::new();
            for &pattern in &topo.patterns {
                let pname = pattern.name();
                let groups = pattern.groups(&fabric)?;
                cats.push(pname.clone());
                for (k, (alg, cfg)) in algs.iter().enumerate() {
                    let n = cfg.entries().limit().unwrap_or(0);
                    ctx.progress(&format!(
                        "mcast: {} {pname} ({} groups) {alg} n_colors={}",
                        topo.name,
                        groups.len(),
                        if n == 0 {
                            "unlimited".into()
                        } else {
                            n.to_string()
                        }
                    ));
                    let (r, st, us) = timed_runs(&fabric, &hops, *cfg, &groups)
                        .map_err(|e| format!("{} {pname} {alg}: {e}", topo.name))?;
                    let mem = r.memory_bytes().get() + hops.memory_bytes().get();
                    if mem > peak.0 {
                        peak = (mem, format!("{} {pname} {alg}", topo.name), groups.len());
                    }
                    let run = Run {
                        colors_used: st.colors_used,
                        max_efi: st.max_efi,
                    };
                    table.push_with_paper(
                        vec![
                            Cell::text(topo.name),
                            Cell::text(pname.clone()),
                            Cell::count(groups.len()),
                            Cell::text(*alg),
                            if n == 0 {
                                Cell::text("unlimited")
                            } else {
                                Cell::count(n)
                            },
                            Cell::count(st.colors_used),
                            Cell::count(st.color_lower_bound),
                            Cell::count(st.max_efi),
                            Cell::count(st.max_tfi),
                            Cell::count(st.merged_groups),
                            Cell::count(st.max_height_excess),
                            Cell::float(us, 1),
                        ],
                        paper_cells(topo.name, &pname, alg, n),
                    );
                    let series = if n == 0 {
                        (*alg).to_owned()
                    } else {
                        format!("{alg}-{n}")
                    };
                    if colors.len() <= k {
                        colors.push((series.clone(), Vec::new()));
                        efis.push((series, Vec::new()));
                    }
                    colors[k].1.push(run.colors_used as f64);
                    efis[k].1.push(f64::from(run.max_efi));
                    if let Some(dir) = &dump_dir {
                        let file = dir.join(format!(
                            "{}.{pname}.{series_name}.mft",
                            topo.name,
                            series_name = colors[k].0
                        ));
                        let text = r.dump().unwrap_or_else(|e| format!("# {e}\n"));
                        std::fs::write(file, text).map_err(|e| e.to_string())?;
                    }
                }
            }
            charts.push((topo.name.to_owned(), cats, colors, efis));
        }
        if ctx.plots_dir().is_some() {
            for (topo, cats, colors, efis) in charts {
                for (what, series, file) in [
                    ("colors used (Fig. 6)", colors, "colors"),
                    ("max EFI (Fig. 7, 9)", efis, "max_efi"),
                ] {
                    let chart = BarChart {
                        title: format!("{topo}: {what}"),
                        y_label: what.split(" (").next().unwrap_or(what).to_owned(),
                        categories: cats.clone(),
                        series,
                    };
                    ctx.write_plot(&format!("mcast-{topo}-{file}.svg"), &chart.to_svg())?;
                }
            }
        }
        table.note(format!(
            "largest router: {:.1} MB with its hop table ({}, {} groups)",
            peak.0 as f64 / 1e6,
            peak.1,
            peak.2
        ));
        table.note("n_colors: MFT entries per switch (the paper's recommended 128 on fat trees, 256 elsewhere); baselines use one MLID per group, so their colors_used = groups.");
        table.note(format!("max_efi counts switch-switch links only; us_per_group is wall time of create_group in this process, one core: the median of {TIMING_RUNS} runs of the whole pattern, each on a fresh router (every run must end with the same statistics)."));
        table.note("color_lower_bound: most groups with a member on one switch; max_height_excess: worst group height over its least possible height.");
        table.note("Tapered fat trees are two-level stand-ins shaped like the Sunway machines (8 and 2 up-paths), not their real cabling.");
        Ok(vec![table])
    }
}

/// `reproduce mcast-colors`: how close to the color lower bound colorings of the paper's
/// `fat_tree(40)` patterns get, as a reference for MR4LMS's colors with unlimited entries.
///
/// Two groups sharing a member switch must take different colors whatever trees they get (a
/// member's switch is on every tree spanning it); these are the "forced conflicts". Coloring
/// the forced-conflict graph is a relaxation of the real problem (it ignores the conflicts
/// trees add at aggregation and core switches), so its colorings show what even a perfect
/// choice of trees would leave: first fit in arrival order (what online first-fit coloring
/// gives with no tree conflicts at all), and DSatur and tabu search over the whole pattern at
/// once (offline, beyond the paper's online model); then the same with the per-color
/// capacity of the switches above each member switch (a tree of one color per switch), and
/// MR4LMS itself fed the groups in DSatur's order. None is a lower bound; the lower bound is
/// the most groups with a member on one switch (a clique of this graph).
#[derive(Debug, Clone, Copy, Default)]
pub struct McastColors;

/// TabuCol's budget and seed, for the forced conflicts and for recoloring: the crate's
/// default ([`coloring::DEFAULT_TABU_MOVES`] moves per color count).
const TABU: Tabu = Tabu::DEFAULT;

/// The CSV header of `reproduce mcast-colors`.
pub const COLORS_HEADER: &str = "topology,pattern,groups,color_lower_bound,forced_first_fit,forced_dsatur,forced_tabu,capacity_first_fit,capacity_dsatur,mr4lms_colors,mr4lms_dsatur_order,mr4lms_over_bound,best_forced_over_bound,mr4lms_recolored,recolored_over_tabu,recolor_floor,recolor_blocks_changed,recolor_entries,mr4lms_rerouted,rerouted_over_tabu,rerouted_blocks_changed";

/// The forced-conflict graph (per group, the groups sharing a member switch with it), the
/// most groups on one switch, and the [`Capacity`] constraints of `groups`.
fn forced_conflicts_and_capacity(
    f: &Fabric,
    groups: &[Vec<NodeId>],
) -> Result<(usize, Graph, Capacity), String> {
    let member_sw: Vec<Vec<usize>> = groups
        .iter()
        .map(|g| {
            let mut v: Vec<usize> = g
                .iter()
                .filter_map(|&t| f.switch_of(t).and_then(|(s, _)| f.switch_index(s)))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let mut on = vec![Vec::new(); f.switch_count()];
    for (i, sw) in member_sw.iter().enumerate() {
        for &s in sw {
            on[s].push(i as u32);
        }
    }
    let bound = on.iter().map(Vec::len).max().unwrap_or(0);
    let adj = Graph::from_edges(
        member_sw.len(),
        member_sw.iter().enumerate().flat_map(|(i, sw)| {
            let on = &on;
            sw.iter()
                .flat_map(move |&s| on[s].iter().map(move |&j| (i as u32, j)))
        }),
    )
    .map_err(|e| e.to_string())?;
    let mut class_of: std::collections::HashMap<Vec<usize>, u32> = std::collections::HashMap::new();
    let (mut caps, mut all_needs) = (Vec::new(), Vec::new());
    for sw in &member_sw {
        let mut needs = Vec::new();
        if sw.len() >= 2 {
            for &s in sw {
                let mut n: Vec<usize> = f
                    .neighbors(f.switches()[s])
                    .filter_map(|n| f.switch_index(n.peer))
                    .collect();
                n.sort_unstable();
                n.dedup();
                let size = n.len() as u32;
                let next = class_of.len() as u32;
                let x = *class_of.entry(n).or_insert(next);
                if x == next {
                    caps.push(size);
                }
                needs.push(x);
            }
            needs.sort_unstable();
            needs.dedup();
        }
        all_needs.push(needs);
    }
    let cap = Capacity::new(caps, all_needs)
        .ok_or("a member switch without a switch neighbour: no capacity set")?;
    Ok((bound, adj, cap))
}

impl Experiment for McastColors {
    fn name(&self) -> &'static str {
        "mcast-colors"
    }

    fn description(&self) -> &'static str {
        "fat-tree colors: MR4LMS against first-fit, DSatur and TabuCol colorings of the forced-conflict graph, and the lower bound"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let mut t = Table::new(
            "mcast-colors",
            "Colors on fat trees (unlimited entries): MR4LMS vs colorings of the forced conflicts",
            COLORS_HEADER,
        );
        // The paper's fat_tree(40) patterns at every scale: the whole table takes seconds.
        for topo in topologies(Scale::Paper)
            .into_iter()
            .filter(|t| t.name.starts_with("fat_tree"))
        {
            let fabric = (topo.build)().map_err(|e| e.to_string())?;
            let hops = HopTable::new(&fabric).map_err(|e| e.to_string())?;
            for &pattern in &topo.patterns {
                let pname = pattern.name();
                ctx.progress(&format!("mcast-colors: {} {pname}", topo.name));
                let groups = pattern.groups(&fabric)?;
                let (bound, adj, cap) = forced_conflicts_and_capacity(&fabric, &groups)?;
                let ff = coloring::first_fit(&adj, None).count();
                let ds = coloring::dsatur(&adj, None);
                let ds_order = ds.order;
                let ds = ds.coloring;
                let cap_ff = coloring::first_fit(&adj, Some(&cap)).count();
                let cap_ds = coloring::dsatur(&adj, Some(&cap)).coloring.count();
                let tabu = coloring::tabu_descend(&adj, ds.clone(), bound, &TABU).count();
                let ds = ds.count();
                let mut r = Router::new(&fabric, &hops, Config::mr4lms(Entries::Unlimited))
                    .map_err(|e| e.to_string())?;
                for g in &groups {
                    r.create_group(g)
                        .map_err(|e| format!("{}: {e}", topo.name))?;
                }
                let st = r.stats();
                // The same trees recolored offline (ours).
                r.take_mft_delta();
                let recolored = r.recolor_with(&TABU);
                let blocks = r.take_mft_delta().len();
                let full: usize = fabric
                    .switches()
                    .iter()
                    .map(|&s| r.entries(s).map_or(0, |e| e.len()))
                    .sum();
                // The same trees routed again in the forced conflicts' colors, then
                // recolored (ours).
                let mut r = Router::new(&fabric, &hops, Config::mr4lms(Entries::Unlimited))
                    .map_err(|e| e.to_string())?;
                for g in &groups {
                    r.create_group(g)
                        .map_err(|e| format!("{}: {e}", topo.name))?;
                }
                r.take_mft_delta();
                let rerouted = r.recolor_rerouting(&TABU);
                let rerouted_blocks = r.take_mft_delta().len();
                // The same routing with the groups created in DSatur's order (offline).
                let mut r = Router::new(&fabric, &hops, Config::mr4lms(Entries::Unlimited))
                    .map_err(|e| e.to_string())?;
                for &g in &ds_order {
                    r.create_group(&groups[g as usize])
                        .map_err(|e| format!("{}: {e}", topo.name))?;
                }
                let offline = r.stats().colors_used;
                let ratio = |c: usize| c as f64 / bound.max(1) as f64;
                t.push(vec![
                    Cell::text(topo.name),
                    Cell::text(pname),
                    Cell::count(groups.len()),
                    Cell::count(st.color_lower_bound),
                    Cell::count(ff),
                    Cell::count(ds),
                    Cell::count(tabu),
                    Cell::count(cap_ff),
                    Cell::count(cap_ds),
                    Cell::count(st.colors_used),
                    Cell::count(offline),
                    Cell::float(ratio(st.colors_used), 2),
                    Cell::float(ratio(tabu), 2),
                    Cell::count(recolored.colors_after),
                    Cell::float(recolored.colors_after as f64 / tabu.max(1) as f64, 2),
                    Cell::count(recolored.floor),
                    Cell::count(blocks),
                    Cell::count(full),
                    Cell::count(rerouted.colors_after),
                    Cell::float(rerouted.colors_after as f64 / tabu.max(1) as f64, 2),
                    Cell::count(rerouted_blocks),
                ]);
            }
        }
        t.note("forced conflicts: two groups with a member on one switch (every tree spanning either holds that switch, so their colors differ). Colorings of that graph ignore the conflicts trees add at aggregation and core switches: they are references, not lower bounds.");
        t.note(format!("forced_first_fit: first fit in arrival order (online, as MR4LMS colors); forced_dsatur: DSatur over the whole pattern (offline); forced_tabu: TabuCol from forced_dsatur down, {} moves per color count (offline).", TABU.moves()));
        t.note("mr4lms_recolored: MR4LMS's trees (mr4lms_colors) recolored offline by Router::recolor (ours: DSatur then TabuCol over the trees' conflict graph, two trees conflicting when they share a switch; trees unchanged); recolored_over_tabu: it over forced_tabu (target <= 1.10); recolor_floor: no recoloring of these trees needs fewer colors (the most trees on one switch, or a larger clique of their conflict graph found greedily), so the trees, not the coloring, keep recolored_over_tabu above 1.10 where recolor_floor is near mr4lms_recolored; recolor_blocks_changed: the (switch, MFT block) pairs it changed (take_mft_delta), against recolor_entries, the entries in use.");
        t.note("capacity_*: the same with a second necessary condition: a group with two or more member switches crosses N(s) of each member switch s (on a fat tree, the pod's aggregation switches), and one color holds at most |N(s)| such trees. Neither captures that a fat-tree tree spanning several pods uses the same aggregation position in each.");
        t.note("mr4lms_rerouted: MR4LMS's trees routed again by Router::recolor_rerouting (ours: the forced conflicts colored by DSatur then TabuCol, each tree built again by FCTB (Alg. 3) in its class's color, at its least height, then Router::recolor over the new trees; then, where TabuCol's classes are fewer than the colors reached, a tabu search over each tree's color and least-height route together, from those trees and from a recursive-largest-first packing with persistent overlaps weighted up, kept only when it uses fewer colors; groups keep their trees and members); rerouted_over_tabu: it over forced_tabu (target <= 1.10, where the trees, not the coloring, held mr4lms_recolored above it); rerouted_blocks_changed: the (switch, MFT block) pairs it changed.");
        t.note("mr4lms_dsatur_order: MR4LMS (default configuration) with the groups created in forced_dsatur's order instead of arrival order (offline).");
        t.note("color_lower_bound: the most groups with a member on one switch (a clique of the forced-conflict graph). The online colors (mr4lms_colors, Alg. 1 first fit in arrival order) have no target; the target is on the recolored trees: mr4lms_recolored <= 1.10x forced_tabu.");
        Ok(vec![t])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timed_runs_keep_the_first_router_and_a_median_time() {
        let f = generators::fat_tree(4).unwrap();
        let h = HopTable::new(&f).unwrap();
        let groups = patterns::grid(&f, &[4, 4], 1).unwrap();
        let cfg = Config::mr4lms(Entries::Limit(2));
        let (r, st, us) = timed_runs(&f, &h, cfg, &groups).unwrap();
        // The router returned is one that created every group, as a single run does.
        let mut once = Router::new(&f, &h, cfg).unwrap();
        for g in &groups {
            once.create_group(g).unwrap();
        }
        assert_eq!(r.stats(), once.stats());
        assert_eq!(st, once.stats());
        assert_eq!(st.groups, groups.len());
        assert!(us.is_finite() && us > 0.0);
        // A failing run is reported, not timed: a group of no member.
        let bad = vec![Vec::new()];
        assert!(timed_runs(&f, &h, cfg, &bad).is_err());
    }

    #[test]
    fn forced_conflicts_join_groups_sharing_a_member_switch() {
        let f = generators::fat_tree(4).unwrap();
        let t = f.terminals();
        // Terminals 0 and 1 share a leaf switch; terminal 4 is in another pod.
        let groups = vec![vec![t[0], t[4]], vec![t[1]], vec![t[5]], vec![t[12]]];
        let (bound, adj, cap) = forced_conflicts_and_capacity(&f, &groups).unwrap();
        assert_eq!(bound, 2);
        let rows: Vec<&[u32]> = (0..adj.len()).map(|v| adj.neighbours(v)).collect();
        assert_eq!(rows, vec![&[1, 2][..], &[0], &[0], &[]]);
        // Group 0 spans two pods: it crosses both pods' two aggregation switches.
        assert_eq!(cap.caps(), &[2, 2]);
        let needs: Vec<&[u32]> = (0..4).map(|v| cap.needs(v)).collect();
        assert_eq!(needs, vec![&[0, 1][..], &[], &[], &[]]);
    }
}

/// `reproduce mcast-recolor`: with a limited table, the merges offline recoloring
/// ([`Router::recolor`], ours) saves on patterns that fill the table.
///
/// Each pattern is created in arrival order twice on a fresh MR4LMS router (default
/// configuration, `n_colors` entries): once as the paper does, then with a recoloring at
/// each of `c` evenly spaced checkpoints (for each `c` of [`RECOLOR_CHECKPOINTS`]) where
/// every color is in use, as a subnet manager might run it between bursts of joins.
#[derive(Debug, Clone, Copy, Default)]
pub struct McastRecolor;

/// The CSV header of `reproduce mcast-recolor`.
pub const RECOLOR_HEADER: &str = "topology,pattern,groups,n_colors,checkpoints,merged_groups,merged_groups_recolored,recolors,colors_freed,blocks_changed,max_efi,max_efi_recolored";

/// Recoloring checkpoints per pattern: each pattern runs with each count.
pub const RECOLOR_CHECKPOINTS: [usize; 2] = [8, 32];

/// TabuCol's budget for each recoloring of `reproduce mcast-recolor`.
const RECOLOR_TABU: Tabu = Tabu::DEFAULT.with_moves(20_000);

impl Experiment for McastRecolor {
    fn name(&self) -> &'static str {
        "mcast-recolor"
    }

    fn description(&self) -> &'static str {
        "limited MFT: merges with and without offline recoloring (ours) at checkpoints"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let mut t = Table::new(
            "mcast-recolor",
            "Limited MFT: MR4LMS merges without and with offline recoloring at checkpoints",
            RECOLOR_HEADER,
        );
        let cases: [(&str, Build, Pattern, u32); 3] = [
            (
                "tapered_fat_tree-32x64-up2",
                || generators::tapered_fat_tree(32, 64, 2),
                grid(&[16, 16, 8], 1),
                128,
            ),
            (
                "dragonfly-a6-p3-h3",
                || generators::dragonfly(6, 3, 3),
                Pattern::Random { count: 64, size: 8 },
                16,
            ),
            (
                "random_regular-256-r16-t8-seed1",
                || generators::random_regular(256, 16, 8, 1),
                grid(&[16, 16, 8], 1),
                96,
            ),
        ];
        for (name, build, pattern, n) in cases {
            let pname = pattern.name();
            ctx.progress(&format!("mcast-recolor: {name} {pname} n_colors={n}"));
            let fabric = build().map_err(|e| e.to_string())?;
            let hops = HopTable::new(&fabric).map_err(|e| e.to_string())?;
            let groups = pattern.groups(&fabric)?;
            let cfg = Config::mr4lms(Entries::Limit(n));
            let mut plain = Router::new(&fabric, &hops, cfg).map_err(|e| e.to_string())?;
            for g in &groups {
                plain.create_group(g).map_err(|e| e.to_string())?;
            }
            let a = plain.stats();
            for checkpoints in RECOLOR_CHECKPOINTS {
                let mut r = Router::new(&fabric, &hops, cfg).map_err(|e| e.to_string())?;
                r.take_mft_delta();
                let every = groups.len().div_ceil(checkpoints).max(1);
                let (mut recolors, mut freed, mut blocks) = (0usize, 0usize, 0usize);
                for (i, g) in groups.iter().enumerate() {
                    if i > 0 && i % every == 0 && r.stats().colors_used >= n as usize {
                        // The blocks the groups created since the last checkpoint changed
                        // are not recoloring's: take them first.
                        r.take_mft_delta();
                        let out = r.recolor_with(&RECOLOR_TABU);
                        recolors += 1;
                        freed += out.colors_before - out.colors_after;
                        blocks += out.delta.len();
                    }
                    r.create_group(g).map_err(|e| e.to_string())?;
                }
                let b = r.stats();
                t.push(vec![
                    Cell::text(name),
                    Cell::text(pname.clone()),
                    Cell::count(groups.len()),
                    Cell::count(n),
                    Cell::count(checkpoints),
                    Cell::count(a.merged_groups),
                    Cell::count(b.merged_groups),
                    Cell::count(recolors),
                    Cell::count(freed),
                    Cell::count(blocks),
                    Cell::count(a.max_efi),
                    Cell::count(b.max_efi),
                ]);
            }
        }
        t.note(format!("merged_groups: MR4LMS (default configuration) in arrival order, as in reproduce mcast; merged_groups_recolored: the same with Router::recolor (ours; TabuCol {} moves per color count) at each of `checkpoints` evenly spaced points of the pattern where every color is in use; recolors, colors_freed and blocks_changed (the (switch, MFT block) pairs the recolorings changed) sum over those checkpoints.", RECOLOR_TABU.moves()));
        t.note("n_colors: the paper's 128 on the tapered fat tree (reproduce mcast's row); 16 and 96 elsewhere, below what first fit needs there, so that the table fills.");
        Ok(vec![t])
    }
}
