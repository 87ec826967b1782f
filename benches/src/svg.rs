//! Small, dependency-free SVG charts for `reproduce --plots`: line charts (one polyline per
//! series, optional log-scale x) and grouped bar charts.

use std::fmt::Write as _;

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

/// One named series of `(x, y)` points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points, drawn in the given order.
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// Title above the plot.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// Log-scale (base 10) x axis; points with x ≤ 0 are dropped.
    pub log_x: bool,
    /// The series.
    pub series: Vec<Series>,
}

/// A grouped bar chart: one group per category, one bar per series.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// Title above the plot.
    pub title: String,
    /// Label of the y axis.
    pub y_label: String,
    /// Category names along x.
    pub categories: Vec<String>,
    /// `(series name, one value per category)`.
    pub series: Vec<(String, Vec<f64>)>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn frame(out: &mut String, title: &str, x_label: &str, y_label: &str) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">
<rect width="{W}" height="{H}" fill="white"/>
<text x="{tx}" y="22" text-anchor="middle" font-size="15">{t}</text>
<text x="{xx}" y="{xy}" text-anchor="middle">{xl}</text>
<text x="16" y="{yy}" text-anchor="middle" transform="rotate(-90 16 {yy})">{yl}</text>
<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="black"/>
"#,
        tx = W / 2.0,
        t = esc(title),
        xx = LEFT + (W - LEFT - RIGHT) / 2.0,
        xy = H - 15.0,
        xl = esc(x_label),
        yy = TOP + (H - TOP - BOTTOM) / 2.0,
        yl = esc(y_label),
        pw = W - LEFT - RIGHT,
        ph = H - TOP - BOTTOM,
    );
}

fn legend(out: &mut String, names: &[&str]) {
    for (i, name) in names.iter().enumerate() {
        let y = TOP + 10.0 + 18.0 * i as f64;
        let x = W - RIGHT + 12.0;
        let c = COLORS[i % COLORS.len()];
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{y0}" width="12" height="12" fill="{c}"/><text x="{tx}" y="{ty}">{n}</text>"#,
            y0 = y - 10.0,
            tx = x + 18.0,
            ty = y,
            n = esc(name)
        );
    }
}

fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(mag * 10.0);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 20 {
        out.push(t);
        t += step;
    }
    out
}

/// Horizontal grid lines with their labels at the ticks of `lo..=hi`.
fn y_grid(out: &mut String, lo: f64, hi: f64, py: &dyn Fn(f64) -> f64) {
    for t in ticks(lo, hi) {
        let y = py(t);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" x2="{x2}" y1="{y}" y2="{y}" stroke="#ddd"/><text x="{tx}" y="{ty}" text-anchor="end">{l}</text>"##,
            x2 = W - RIGHT,
            tx = LEFT - 6.0,
            ty = y + 4.0,
            l = fmt_tick(t)
        );
    }
}

fn fmt_tick(v: f64) -> String {
    if v.abs() >= 1e4 || (v != 0.0 && v.abs() < 1e-2) {
        format!("{v:.1e}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// A reference value drawn over a line chart: a black cross at `(x, y)` with a short label
/// (`reproduce --plots` marks the paper's published figures this way).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// x of the mark, in data units.
    pub x: f64,
    /// y of the mark, in data units.
    pub y: f64,
    /// Text beside the cross.
    pub label: String,
}

/// A reference value drawn over a bar chart: a black cross on bar `series` of category
/// `category` at height `y`.
#[derive(Debug, Clone, PartialEq)]
pub struct BarMark {
    /// Index into [`BarChart::categories`].
    pub category: usize,
    /// Index into [`BarChart::series`].
    pub series: usize,
    /// Height of the mark.
    pub y: f64,
}

/// A cross of half-size 5 px at `(x, y)` (pixels).
fn cross(out: &mut String, x: f64, y: f64) {
    let _ = writeln!(
        out,
        r#"<path d="M{a:.1},{b:.1}L{c:.1},{d:.1}M{a:.1},{d:.1}L{c:.1},{b:.1}" stroke="black" stroke-width="2"/>"#,
        a = x - 5.0,
        b = y - 5.0,
        c = x + 5.0,
        d = y + 5.0
    );
}

/// The legend line that explains the crosses, under the series' legend.
fn mark_legend(out: &mut String, row: usize, text: &str) {
    let y = TOP + 10.0 + 18.0 * row as f64;
    let x = W - RIGHT + 12.0;
    cross(out, x + 6.0, y - 4.0);
    let _ = writeln!(
        out,
        r#"<text x="{tx}" y="{y}">{t}</text>"#,
        tx = x + 18.0,
        t = esc(text)
    );
}

impl LineChart {
    /// The chart as an SVG document.
    #[must_use]
    pub fn to_svg(&self) -> String {
        self.to_svg_marked(&[], "")
    }

    /// The chart with `marks` drawn as black crosses on the same axes (the axes span them
    /// too) and `mark_name` in the legend when there are any.
    #[must_use]
    pub fn to_svg_marked(&self, marks: &[Mark], mark_name: &str) -> String {
        let tx = |x: f64| if self.log_x { x.log10() } else { x };
        let pts: Vec<Vec<(f64, f64)>> = self
            .series
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .filter(|(x, y)| x.is_finite() && y.is_finite() && (!self.log_x || *x > 0.0))
                    .map(|&(x, y)| (tx(x), y))
                    .collect()
            })
            .collect();
        let marked: Vec<(f64, f64)> = marks
            .iter()
            .filter(|m| m.x.is_finite() && m.y.is_finite() && (!self.log_x || m.x > 0.0))
            .map(|m| (tx(m.x), m.y))
            .collect();
        let all = pts.iter().flatten().chain(&marked);
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        y0 = y0.min(0.0);
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
        let pw = W - LEFT - RIGHT;
        let ph = H - TOP - BOTTOM;
        let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
        let py = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;
        let mut out = String::new();
        frame(&mut out, &self.title, &self.x_label, &self.y_label);
        y_grid(&mut out, y0, y1, &py);
        for t in ticks(x0, x1) {
            let label = if self.log_x {
                fmt_tick(10f64.powf(t))
            } else {
                fmt_tick(t)
            };
            let _ = writeln!(
                out,
                r#"<text x="{x}" y="{y}" text-anchor="middle">{label}</text>"#,
                x = px(t),
                y = TOP + ph + 18.0
            );
        }
        for (i, series) in pts.iter().enumerate() {
            let c = COLORS[i % COLORS.len()];
            let path: Vec<String> = series
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                .collect();
            let _ = writeln!(
                out,
                r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
                path.join(" ")
            );
        }
        let labels = marks
            .iter()
            .filter(|m| m.x.is_finite() && m.y.is_finite() && (!self.log_x || m.x > 0.0));
        for (&(x, y), m) in marked.iter().zip(labels) {
            cross(&mut out, px(x), py(y));
            if !m.label.is_empty() {
                let _ = writeln!(
                    out,
                    r#"<text x="{tx:.1}" y="{ty:.1}" font-size="10">{l}</text>"#,
                    tx = px(x) + 7.0,
                    ty = py(y) - 6.0,
                    l = esc(&m.label)
                );
            }
        }
        let names: Vec<&str> = self.series.iter().map(|s| s.name.as_str()).collect();
        legend(&mut out, &names);
        if !marked.is_empty() && !mark_name.is_empty() {
            mark_legend(&mut out, names.len(), mark_name);
        }
        out.push_str("</svg>\n");
        out
    }
}

impl BarChart {
    /// The chart as an SVG document.
    #[must_use]
    pub fn to_svg(&self) -> String {
        self.to_svg_marked(&[], &[], "")
    }

    /// The chart with a 95 % interval whisker on each bar (`half[s][c]`, the half-width for
    /// series `s` and category `c`, cut at the axis' 0; missing or non-finite ones are not
    /// drawn) and `marks` as
    /// black crosses on their bars (the y axis spans them), `mark_name` in the legend when
    /// there are any marks.
    #[must_use]
    pub fn to_svg_marked(&self, half: &[Vec<f64>], marks: &[BarMark], mark_name: &str) -> String {
        let hw = |s: usize, c: usize| {
            half.get(s)
                .and_then(|v| v.get(c))
                .copied()
                .filter(|h| h.is_finite())
        };
        let tops = self.series.iter().enumerate().flat_map(|(s, (_, v))| {
            v.iter()
                .enumerate()
                .map(move |(c, &y)| y + hw(s, c).unwrap_or(0.0))
        });
        let y1 = tops
            .chain(marks.iter().map(|m| m.y))
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max)
            .max(f64::MIN_POSITIVE);
        let pw = W - LEFT - RIGHT;
        let ph = H - TOP - BOTTOM;
        let py = |y: f64| TOP + ph - y / y1 * ph;
        let mut out = String::new();
        frame(&mut out, &self.title, "", &self.y_label);
        y_grid(&mut out, 0.0, y1, &py);
        let groups = self.categories.len().max(1) as f64;
        let group_w = pw / groups;
        let bar_w = group_w * 0.8 / self.series.len().max(1) as f64;
        for (g, cat) in self.categories.iter().enumerate() {
            let gx = LEFT + group_w * g as f64 + group_w * 0.1;
            for (s, (_, values)) in self.series.iter().enumerate() {
                let v = values.get(g).copied().unwrap_or(0.0);
                if !v.is_finite() {
                    continue;
                }
                let _ = writeln!(
                    out,
                    r#"<rect x="{x:.1}" y="{y:.1}" width="{bar_w:.1}" height="{h:.1}" fill="{c}"/>"#,
                    x = gx + bar_w * s as f64,
                    y = py(v),
                    h = TOP + ph - py(v),
                    c = COLORS[s % COLORS.len()]
                );
                if let Some(h) = hw(s, g) {
                    let _ = writeln!(
                        out,
                        r#"<line x1="{x:.1}" x2="{x:.1}" y1="{a:.1}" y2="{b:.1}" stroke="black"/>"#,
                        x = gx + bar_w * (s as f64 + 0.5),
                        a = py((v - h).max(0.0)),
                        b = py(v + h)
                    );
                }
            }
            let _ = writeln!(
                out,
                r#"<text x="{x:.1}" y="{y}" text-anchor="middle">{c}</text>"#,
                x = gx + group_w * 0.4,
                y = TOP + ph + 18.0,
                c = esc(cat)
            );
        }
        for m in marks {
            if m.category < self.categories.len() && m.series < self.series.len() && m.y.is_finite()
            {
                let x = LEFT
                    + group_w * m.category as f64
                    + group_w * 0.1
                    + bar_w * (m.series as f64 + 0.5);
                cross(&mut out, x, py(m.y));
            }
        }
        let names: Vec<&str> = self.series.iter().map(|(n, _)| n.as_str()).collect();
        legend(&mut out, &names);
        if !marks.is_empty() && !mark_name.is_empty() {
            mark_legend(&mut out, names.len(), mark_name);
        }
        out.push_str("</svg>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_chart_draws_one_polyline_per_series() {
        let chart = LineChart {
            title: "t <1>".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: true,
            series: vec![
                Series {
                    name: "a".into(),
                    points: vec![(1.0, 1.0), (10.0, 2.0), (0.0, 5.0)],
                },
                Series {
                    name: "b".into(),
                    points: vec![(1.0, 3.0)],
                },
            ],
        };
        let svg = chart.to_svg();
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("t &lt;1&gt;"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    }

    #[test]
    fn bar_chart_draws_one_bar_per_value() {
        let chart = BarChart {
            title: "b".into(),
            y_label: "y".into(),
            categories: vec!["c1".into(), "c2".into()],
            series: vec![("s1".into(), vec![1.0, 2.0]), ("s2".into(), vec![3.0, 4.0])],
        };
        // Two bars per category plus the background, the frame and two legend squares.
        assert_eq!(chart.to_svg().matches("<rect").count(), 4 + 2 + 2);
        // Marks are crosses (one more in the legend), whiskers lines, and a mark above every
        // bar raises the axis: the tallest bar no longer reaches the top of the plot.
        let marked = chart.to_svg_marked(
            &[vec![0.5, f64::NAN]],
            &[BarMark {
                category: 1,
                series: 1,
                y: 8.0,
            }],
            "paper",
        );
        assert_eq!(marked.matches("<path").count(), 2);
        // The frame, and the one finite whisker.
        assert_eq!(marked.matches(r#"stroke="black"/>"#).count(), 2);
        assert_eq!(chart.to_svg().matches(r#"stroke="black"/>"#).count(), 1);
        assert!(marked.contains(">paper<"));
        let top = format!(r#"y="{TOP:.1}""#);
        assert!(chart.to_svg().contains(&top) && !marked.contains(&top));
    }

    #[test]
    fn line_chart_marks_widen_the_axes() {
        let chart = LineChart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: false,
            series: vec![Series {
                name: "a".into(),
                points: vec![(0.0, 0.0), (1.0, 1.0)],
            }],
        };
        let m = [Mark {
            x: 2.0,
            y: 2.0,
            label: "paper 2".into(),
        }];
        let svg = chart.to_svg_marked(&m, "paper");
        assert_eq!(svg.matches("<path").count(), 2);
        assert!(svg.contains(">paper 2<"));
        // The series' last point is now mid-plot, not at the right edge.
        assert!(!svg.contains(&format!("{:.1},{:.1}", W - RIGHT, TOP)));
        assert!(
            chart
                .to_svg()
                .contains(&format!("{:.1},{:.1}", W - RIGHT, TOP))
        );
    }
}
