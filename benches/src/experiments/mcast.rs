//! `reproduce mcast`: MR4LMS against MINIHOP-MC and SSSP-MC on the paper's topologies and
//! patterns (paper §4, Fig. 6, 7, 9, 10, 12): colors used, the lower bound, max EFI and TFI,
//! merges, height excess and the time per group creation.

use std::path::PathBuf;
use std::time::Instant;

use fabric_model::{Fabric, HopTable, NodeId, generators, ibnet};
use mcast_route::{Algorithm, Config, Entries, Router, patterns};

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
                    let n = cfg.entries.limit().unwrap_or(0);
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
                    let mut r = Router::new(&fabric, &hops, *cfg).map_err(|e| e.to_string())?;
                    let start = Instant::now();
                    for g in &groups {
                        r.create_group(g)
                            .map_err(|e| format!("{}: {e}", topo.name))?;
                    }
                    let us = start.elapsed().as_secs_f64() * 1e6 / groups.len().max(1) as f64;
                    let st = r.stats();
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
        table.note("max_efi counts switch-switch links only; us_per_group is wall time of create_group in this process, one core.");
        table.note("color_lower_bound: most groups with a member on one switch; max_height_excess: worst group height over its least possible height.");
        table.note("Tapered fat trees are two-level stand-ins shaped like the Sunway machines (8 and 2 up-paths), not their real cabling.");
        Ok(vec![table])
    }
}
