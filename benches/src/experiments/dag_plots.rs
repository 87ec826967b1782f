//! `reproduce dag --plots DIR`: the paper's Fig. 5 to 10 redrawn from the seeded runs (means
//! over the seeds, bars with their 95 % whiskers), the paper's published values marked as
//! black crosses on the same axes (Fig. 8: the minima of TensorFlow, TicTac, Sincronia and
//! JIT at CDF 0, TensorFlow's and JIT's medians at 0.5, JIT's largest value at 1). Fig. 7
//! (with Fig. 2, its TensorFlow counterpart): every transfer of one Inception job of the
//! first seed ([`fig7_job`](super::dag_runs::fig7_job)), when it arrived and when it was
//! first used, in order of first use, under TensorFlow's order and under JIT; the paper states no value for it, so
//! nothing is marked. Fig. 11 is drawn by `dag-lp`.

use super::dag::OURS;
use super::dag_claims::{PAPER_JIT_FILES, PAPER_JIT_SPEEDUP};
use super::dag_runs::{FILE_GB, GROUPS, SeedRuns, Summary, TF, group_name};
use crate::Context;
use crate::svg::{BarChart, BarMark, LineChart, Mark, Series};

/// The schedulers of the paper's figures, in its order, and ours.
const NAMED: [&str; 5] = [TF, "sincronia", "tictac", "jit", OURS];

/// Named bar values, one per category, and their 95 % half-widths.
type Bars = (Vec<(String, Vec<f64>)>, Vec<Vec<f64>>);

/// Bars of `f` per category for every scheduler of `NAMED` that ran: (series, halves).
fn bars(runs: &SeedRuns, cats: usize, f: &dyn Fn(&Summary, usize) -> f64) -> Bars {
    let mut series = Vec::new();
    let mut half = Vec::new();
    for name in NAMED.iter().filter(|n| runs.of(n).is_some()) {
        let e: Vec<_> = (0..cats).map(|c| runs.est(name, |s| f(s, c))).collect();
        series.push(((*name).to_owned(), e.iter().map(|x| x.mean).collect()));
        half.push(e.iter().map(|x| x.half).collect());
    }
    (series, half)
}

/// The index of `name` among the series drawn.
fn series_of(runs: &SeedRuns, name: &str) -> Option<usize> {
    NAMED
        .iter()
        .filter(|n| runs.of(n).is_some())
        .position(|n| *n == name)
}

/// Writes the figures under the `--plots` folder.
///
/// # Errors
/// A file that cannot be written.
pub fn draw(ctx: &Context, runs: &SeedRuns, alpha: &[(f64, String)]) -> Result<(), String> {
    let groups: Vec<String> = (0..GROUPS).map(|g| group_name(g).to_owned()).collect();
    let n = runs.seeds();
    let paper = "the paper";

    // Fig. 5: speedup per model.
    let (series, half) = bars(runs, GROUPS, &|s, g| s.speedup[g]);
    let mut marks = Vec::new();
    if let Some(j) = series_of(runs, "jit") {
        for (g, &p) in PAPER_JIT_SPEEDUP.iter().chain([&1.55]).enumerate() {
            marks.push(BarMark {
                category: g,
                series: j,
                y: p,
            });
        }
    }
    if let Some(t) = series_of(runs, "tictac") {
        marks.push(BarMark {
            category: 0,
            series: t,
            y: 1.40,
        });
        marks.push(BarMark {
            category: GROUPS - 1,
            series: t,
            y: 1.23,
        });
    }
    let chart = BarChart {
        title: format!("Fig. 5: speedup over TensorFlow ({n} seeds, 95 % whiskers)"),
        y_label: "mean JCT speedup".into(),
        categories: groups.clone(),
        series,
    };
    ctx.write_plot(
        "dag_fig5_speedup.svg",
        &chart.to_svg_marked(&half, &marks, paper),
    )?;

    // Fig. 6: data waiting time per model.
    let (series, half) = bars(runs, GROUPS, &|s, g| s.wait[g]);
    let mut marks = Vec::new();
    for (name, y) in [(TF, 2.1), ("jit", 0.12)] {
        if let Some(k) = series_of(runs, name) {
            marks.push(BarMark {
                category: 3,
                series: k,
                y,
            });
        }
    }
    let chart = BarChart {
        title: format!("Fig. 6: mean data waiting time ({n} seeds)"),
        y_label: "seconds".into(),
        categories: groups,
        series,
    };
    ctx.write_plot(
        "dag_fig6_wait.svg",
        &chart.to_svg_marked(&half, &marks, paper),
    )?;

    // Fig. 7 (and Fig. 2): one Inception job's transfers, arrival and first use.
    let mut series = Vec::new();
    for name in [TF, "jit"] {
        let Some(example) = runs.of(name).and_then(|s| s.first()).map(|s| &s.example) else {
            continue;
        };
        // In order of first use (the order the job consumes them).
        let mut example = example.clone();
        example.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
        for (what, pick) in [
            ("received", (|p: &(f64, f64)| p.0) as fn(&(f64, f64)) -> f64),
            ("used", |p| p.1),
        ] {
            series.push(Series {
                name: format!("{name} {what}"),
                points: example
                    .iter()
                    .enumerate()
                    .map(|(k, p)| (k as f64, pick(p)))
                    .collect(),
            });
        }
    }
    if !series.is_empty() {
        let chart = LineChart {
            title: "Fig. 7 (and Fig. 2): one Inception job's transfers, received and used (seed 0)"
                .into(),
            x_label: "transfer, in order of first use".into(),
            y_label: "seconds since the job's arrival".into(),
            log_x: false,
            series,
        };
        ctx.write_plot("dag_fig7_inception_transfers.svg", &chart.to_svg())?;
    }

    // Fig. 8: CDF of the remaining bandwidth (percentiles averaged over the seeds).
    let mut series = Vec::new();
    for name in NAMED.iter().filter(|n| runs.of(n).is_some()) {
        let points = (0..=100)
            .map(|p| {
                let x = runs
                    .est(name, |s| s.remaining.get(p).copied().unwrap_or(f64::NAN))
                    .mean;
                (x, p as f64 / 100.0)
            })
            .collect();
        series.push(Series {
            name: (*name).to_owned(),
            points,
        });
    }
    let mut marks: Vec<Mark> = [
        (0.173, 0.0, "0.173"),
        (0.175, 0.0, ""),
        (0.334, 0.0, "JIT 0.334"),
        (0.556, 0.5, "TF"),
        (0.665, 0.5, "JIT"),
    ]
    .iter()
    .map(|&(x, y, l)| Mark {
        x,
        y,
        label: l.to_owned(),
    })
    .collect();
    marks.push(Mark {
        x: 0.793,
        y: 1.0,
        label: "JIT 0.793".into(),
    });
    let chart = LineChart {
        title: format!(
            "Fig. 8: CDF of remaining bandwidth, all DAG traffic, 1 s windows ({n} seeds)"
        ),
        x_label: "remaining bandwidth ratio".into(),
        y_label: "CDF".into(),
        log_x: false,
        series,
    };
    ctx.write_plot(
        "dag_fig8_remaining_cdf.svg",
        &chart.to_svg_marked(&marks, paper),
    )?;

    // Fig. 9: the files' inflation per size and over all.
    let mut cats: Vec<String> = FILE_GB.iter().map(|g| format!("{g} Gb")).collect();
    cats.push("all".into());
    let (series, half) = bars(runs, cats.len(), &|s, c| {
        if c < FILE_GB.len() {
            s.files_by_size[c]
        } else {
            s.files
        }
    });
    let mut marks = Vec::new();
    if let Some(j) = series_of(runs, "jit") {
        for (c, &y) in PAPER_JIT_FILES.iter().enumerate() {
            marks.push(BarMark {
                category: c,
                series: j,
                y,
            });
        }
    }
    for (name, y) in [
        (TF, 2.23),
        ("sincronia", 2.05),
        ("tictac", 2.23),
        ("jit", 1.56),
    ] {
        if let Some(k) = series_of(runs, name) {
            marks.push(BarMark {
                category: FILE_GB.len(),
                series: k,
                y,
            });
        }
    }
    let chart = BarChart {
        title: format!("Fig. 9: file JCT over time alone ({n} seeds)"),
        y_label: "JCT / alone".into(),
        categories: cats,
        series,
    };
    ctx.write_plot(
        "dag_fig9_files.svg",
        &chart.to_svg_marked(&half, &marks, paper),
    )?;

    // Fig. 10: speedup and remaining bandwidth against alpha.
    let line = |f: &dyn Fn(&Summary) -> f64| -> Vec<(f64, f64)> {
        alpha
            .iter()
            .map(|(a, name)| (*a, runs.est(name, f).mean))
            .collect()
    };
    let chart = LineChart {
        title: format!("Fig. 10: JIT against alpha ({n} seeds)"),
        x_label: "alpha".into(),
        y_label: "speedup / remaining bandwidth".into(),
        log_x: false,
        series: vec![
            Series {
                name: "speedup".into(),
                points: line(&|s| s.speedup[GROUPS - 1]),
            },
            Series {
                name: "min rem., all DAG".into(),
                points: line(&|s| s.rem_min()),
            },
            Series {
                name: "min rem., LP only".into(),
                points: line(&|s| s.planned_min()),
            },
        ],
    };
    let marks: Vec<Mark> = [
        (0.1, 1.09, "speedup 1.09"),
        (0.6, 1.62, "1.62"),
        (0.1, 0.482, "remaining 0.482"),
        (0.6, 0.324, "0.324"),
    ]
    .iter()
    .map(|&(x, y, l)| Mark {
        x,
        y,
        label: l.to_owned(),
    })
    .collect();
    ctx.write_plot("dag_fig10_alpha.svg", &chart.to_svg_marked(&marks, paper))?;
    Ok(())
}
