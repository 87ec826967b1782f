//! `reproduce mcast`: MR4LMS against MINIHOP-MC and SSSP-MC on the paper's topologies and
//! patterns (paper §4, Fig. 6, 7, 9, 10, 12): colors used, the lower bound, max EFI and TFI,
//! merges, height excess and the time per group creation.

use std::path::PathBuf;
use std::time::Instant;

use fabric_model::{Fabric, HopTable, NodeId, generators, ibnet};
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
        let mut peak = (0usize, String::new(), 0usize);
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
                    let mem = r.memory_bytes() + hops.memory_bytes();
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

/// Moves TabuCol may make for each color count it tries.
const TABU_MOVES: usize = 200_000;

/// The CSV header of `reproduce mcast-colors`.
pub const COLORS_HEADER: &str = "topology,pattern,groups,color_lower_bound,forced_first_fit,forced_dsatur,forced_tabu,capacity_first_fit,capacity_dsatur,mr4lms_colors,mr4lms_dsatur_order,mr4lms_over_bound,best_forced_over_bound";

/// Per-color capacities every routing obeys: `caps[x]` is the size of the `x`-th distinct
/// switch-neighbour set `X` of a member switch, and `needs[g]` the sets group `g` must cross.
/// A group with two or more member switches holds, on every tree spanning it, a neighbour of
/// each member switch `s` (the tree joins `s` to another switch), so a switch of `X = N(s)`;
/// trees of one color are switch-disjoint, so at most `|X|` of them cross `X`. On a fat tree
/// the `X` of a leaf is its pod's aggregation switches.
#[derive(Debug, Clone, Default)]
struct Capacity {
    caps: Vec<u32>,
    needs: Vec<Vec<u32>>,
}

/// The forced-conflict graph (per group, the groups sharing a member switch with it), the
/// most groups on one switch, and the [`Capacity`] constraints of `groups`.
fn forced_conflicts_and_capacity(
    f: &Fabric,
    groups: &[Vec<NodeId>],
) -> (usize, Vec<Vec<u32>>, Capacity) {
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
    let adj = member_sw
        .iter()
        .enumerate()
        .map(|(i, sw)| {
            let mut v: Vec<u32> = sw
                .iter()
                .flat_map(|&s| on[s].iter().copied())
                .filter(|&j| j as usize != i)
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let mut class_of: std::collections::HashMap<Vec<usize>, u32> = std::collections::HashMap::new();
    let mut cap = Capacity::default();
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
                    cap.caps.push(size);
                }
                needs.push(x);
            }
            needs.sort_unstable();
            needs.dedup();
        }
        cap.needs.push(needs);
    }
    (bound, adj, cap)
}

/// The smallest color for `v` that no colored neighbour has and, with `cap`, that leaves
/// room in every set `v` must cross (`load[x][c]`: groups of color `c` crossing set `x`).
fn least_color(
    v: usize,
    adj: &[Vec<u32>],
    color: &[u32],
    cap: Option<&Capacity>,
    load: &[Vec<u32>],
    used: &mut Vec<bool>,
) -> usize {
    used.clear();
    for &u in &adj[v] {
        let c = color[u as usize];
        if c != u32::MAX {
            if used.len() <= c as usize {
                used.resize(c as usize + 1, false);
            }
            used[c as usize] = true;
        }
    }
    (0..)
        .find(|&c| {
            !used.get(c).copied().unwrap_or(false)
                && cap.is_none_or(|cap| {
                    cap.needs[v].iter().all(|&x| {
                        load[x as usize].get(c).copied().unwrap_or(0) < cap.caps[x as usize]
                    })
                })
        })
        .unwrap_or(0)
}

/// Records color `c` of `v` in the capacity loads.
fn add_load(v: usize, c: usize, cap: Option<&Capacity>, load: &mut [Vec<u32>]) {
    if let Some(cap) = cap {
        for &x in &cap.needs[v] {
            let l = &mut load[x as usize];
            if l.len() <= c {
                l.resize(c + 1, 0);
            }
            l[c] += 1;
        }
    }
}

/// Colors used by first fit over `order` (the smallest color no colored neighbour has and,
/// with `cap`, with room in every set the group must cross).
fn first_fit(
    adj: &[Vec<u32>],
    order: impl Iterator<Item = usize>,
    cap: Option<&Capacity>,
) -> usize {
    let mut color = vec![u32::MAX; adj.len()];
    let mut load = vec![Vec::new(); cap.map_or(0, |c| c.caps.len())];
    let mut used: Vec<bool> = Vec::new();
    for v in order {
        let c = least_color(v, adj, &color, cap, &load, &mut used);
        color[v] = c as u32;
        add_load(v, c, cap, &mut load);
    }
    color
        .iter()
        .filter(|&&c| c != u32::MAX)
        .max()
        .map_or(0, |&c| c as usize + 1)
}

/// Colors used by DSatur (Brélaz 1979): repeatedly color, with its smallest free color (with
/// `cap`, one with room in every set it must cross), the uncolored vertex with the most
/// distinct neighbour colors (ties: most neighbours, then lowest index). Returns the colors
/// used and the order colored. O(n² + Σ degree · colors).
fn dsatur(adj: &[Vec<u32>], cap: Option<&Capacity>) -> (usize, Vec<usize>) {
    let n = adj.len();
    let mut color = vec![u32::MAX; n];
    // Per vertex, a bit set of the colors its neighbours have, and how many.
    let mut seen: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut sat = vec![0u32; n];
    let mut load = vec![Vec::new(); cap.map_or(0, |c| c.caps.len())];
    let mut used: Vec<bool> = Vec::new();
    let mut colors = 0;
    let mut order = Vec::with_capacity(n);
    for _ in 0..n {
        let Some(v) = (0..n)
            .filter(|&v| color[v] == u32::MAX)
            .max_by_key(|&v| (sat[v], adj[v].len(), std::cmp::Reverse(v)))
        else {
            break;
        };
        let c = least_color(v, adj, &color, cap, &load, &mut used);
        color[v] = c as u32;
        order.push(v);
        add_load(v, c, cap, &mut load);
        colors = colors.max(c + 1);
        for &u in &adj[v] {
            let w = &mut seen[u as usize];
            if w.len() <= c / 64 {
                w.resize(c / 64 + 1, 0);
            }
            if w[c / 64] >> (c % 64) & 1 == 0 {
                w[c / 64] |= 1 << (c % 64);
                sat[u as usize] += 1;
            }
        }
    }
    (colors, order)
}

/// Whether tabu search (TabuCol, Hertz and de Werra 1987) finds a `k`-coloring of `adj`
/// within `iters` moves, starting from first fit with the colors past `k` folded onto the
/// least conflicting ones. Deterministic (a fixed xorshift generator breaks ties).
fn tabucol(adj: &[Vec<u32>], k: usize, iters: usize) -> bool {
    let n = adj.len();
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    // gamma[v * k + c]: neighbours of v with color c.
    let mut gamma = vec![0u32; n * k];
    let mut color = vec![0usize; n];
    for v in 0..n {
        let row = &gamma[v * k..(v + 1) * k];
        let c = (0..k).min_by_key(|&c| row[c]).unwrap_or(0);
        color[v] = c;
        for &u in &adj[v] {
            gamma[u as usize * k + c] += 1;
        }
    }
    let mut conflicts: i64 = (0..n)
        .map(|v| i64::from(gamma[v * k + color[v]]))
        .sum::<i64>()
        / 2;
    let mut tabu = vec![0usize; n * k];
    for iter in 0..iters {
        if conflicts == 0 {
            return true;
        }
        let mut best: Option<(i64, u64, usize, usize)> = None;
        for v in 0..n {
            let own = i64::from(gamma[v * k + color[v]]);
            if own == 0 {
                continue;
            }
            for c in 0..k {
                if c == color[v] {
                    continue;
                }
                let delta = i64::from(gamma[v * k + c]) - own;
                if tabu[v * k + c] > iter && conflicts + delta > 0 {
                    continue;
                }
                let tie = next();
                if best.is_none_or(|b| (delta, tie) < (b.0, b.1)) {
                    best = Some((delta, tie, v, c));
                }
            }
        }
        let Some((delta, _, v, c)) = best else {
            continue;
        };
        let old = color[v];
        color[v] = c;
        conflicts += delta;
        tabu[v * k + old] = iter + 1 + (conflicts as usize * 6) / 10 + (next() % 10) as usize;
        for &u in &adj[v] {
            gamma[u as usize * k + old] -= 1;
            gamma[u as usize * k + c] += 1;
        }
    }
    conflicts == 0
}

/// The fewest colors TabuCol reaches going down from `start`, one color at a time, until a
/// `k` fails within `iters` moves (at least `floor`, a lower bound).
fn tabu_colors(adj: &[Vec<u32>], start: usize, floor: usize, iters: usize) -> usize {
    let mut k = start;
    while k > floor.max(1) && tabucol(adj, k - 1, iters) {
        k -= 1;
    }
    k
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
                let (bound, adj, cap) = forced_conflicts_and_capacity(&fabric, &groups);
                let ff = first_fit(&adj, 0..adj.len(), None);
                let (ds, ds_order) = dsatur(&adj, None);
                let cap_ff = first_fit(&adj, 0..adj.len(), Some(&cap));
                let cap_ds = dsatur(&adj, Some(&cap)).0;
                let tabu = tabu_colors(&adj, ds, bound, TABU_MOVES);
                let mut r = Router::new(&fabric, &hops, Config::mr4lms(Entries::Unlimited))
                    .map_err(|e| e.to_string())?;
                for g in &groups {
                    r.create_group(g)
                        .map_err(|e| format!("{}: {e}", topo.name))?;
                }
                let st = r.stats();
                // The same routing with the groups created in DSatur's order (offline).
                let mut r = Router::new(&fabric, &hops, Config::mr4lms(Entries::Unlimited))
                    .map_err(|e| e.to_string())?;
                for &g in &ds_order {
                    r.create_group(&groups[g])
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
                ]);
            }
        }
        t.note("forced conflicts: two groups with a member on one switch (every tree spanning either holds that switch, so their colors differ). Colorings of that graph ignore the conflicts trees add at aggregation and core switches: they are references, not lower bounds.");
        t.note(format!("forced_first_fit: first fit in arrival order (online, as MR4LMS colors); forced_dsatur: DSatur over the whole pattern (offline); forced_tabu: TabuCol from forced_dsatur down, {TABU_MOVES} moves per color count (offline)."));
        t.note("capacity_*: the same with a second necessary condition: a group with two or more member switches crosses N(s) of each member switch s (on a fat tree, the pod's aggregation switches), and one color holds at most |N(s)| such trees. Neither captures that a fat-tree tree spanning several pods uses the same aggregation position in each.");
        t.note("mr4lms_dsatur_order: MR4LMS (default configuration) with the groups created in forced_dsatur's order instead of arrival order (offline).");
        t.note("color_lower_bound: the most groups with a member on one switch (a clique of the forced-conflict graph); the target is mr4lms_colors <= 1.25x it.");
        Ok(vec![t])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 5-cycle (chromatic number 3) and `K_4` (4), as adjacency lists.
    fn cycle5() -> Vec<Vec<u32>> {
        (0..5u32).map(|v| vec![(v + 4) % 5, (v + 1) % 5]).collect()
    }

    fn k4() -> Vec<Vec<u32>> {
        (0..4u32)
            .map(|v| (0..4).filter(|&u| u != v).collect())
            .collect()
    }

    #[test]
    fn colorings_of_small_graphs() {
        assert_eq!(first_fit(&cycle5(), 0..5, None), 3);
        assert_eq!(dsatur(&cycle5(), None).0, 3);
        assert_eq!(dsatur(&k4(), None).0, 4);
        assert!(tabucol(&cycle5(), 3, 100) && !tabucol(&cycle5(), 2, 100));
        assert!(!tabucol(&k4(), 3, 100));
        assert_eq!(tabu_colors(&cycle5(), 5, 2, 100), 3);
        // First fit depends on the order: the path 0-2, 2-3, 3-1 in order 0, 1, 2, 3 needs 3.
        let path: Vec<Vec<u32>> = vec![vec![2], vec![3], vec![0, 3], vec![2, 1]];
        assert_eq!(first_fit(&path, 0..4, None), 3);
        assert_eq!(dsatur(&path, None).0, 2);
    }

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
        let (bound, adj, cap) = forced_conflicts_and_capacity(&f, &groups);
        assert_eq!(bound, 2);
        assert_eq!(adj, vec![vec![1, 2], vec![0], vec![0], vec![]]);
        // Group 0 spans two pods: it crosses both pods' two aggregation switches.
        assert_eq!(cap.caps, vec![2, 2]);
        assert_eq!(cap.needs, vec![vec![0, 1], vec![], vec![], vec![]]);
    }

    #[test]
    fn capacity_opens_a_color_when_a_set_is_full() {
        // Three groups with no forced conflict, all crossing one set of two switches.
        let adj = vec![Vec::new(); 3];
        let cap = Capacity {
            caps: vec![2],
            needs: vec![vec![0]; 3],
        };
        assert_eq!(first_fit(&adj, 0..3, None), 1);
        assert_eq!(first_fit(&adj, 0..3, Some(&cap)), 2);
        assert_eq!(dsatur(&adj, Some(&cap)).0, 2);
    }
}
