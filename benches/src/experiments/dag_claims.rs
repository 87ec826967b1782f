//! The paper's claims against a seeded `reproduce dag` run: one line per claim, the paper's
//! figure, ours (mean with its 95 % interval over the seeds, and the speedup of the means
//! where the claim is a speedup) and a verdict.
//!
//! Verdicts: for a figure, `reproduced` when the paper's value lies inside our interval;
//! `direction only` when it does not but ours is on the same side of the reference (1 for a
//! speedup or an inflation, TensorFlow's figure for a comparison) with the reference outside
//! our interval; `no effect` when the reference is inside it; `reversed` when ours is on the
//! other side. For an ordering ("A above B"), the per-seed differences: `reproduced` when
//! their interval is above 0, `reversed` when below, `not significant` otherwise. A figure
//! the paper draws without stating a value (Fig. 7) is `measured`: ours alone, its ordering
//! judged on the next rows.

use super::dag_runs::{ALL, FILE_GB, SeedRuns, Summary, TF};
use super::dag_stats::{Estimate, paired};
use crate::{Cell, Table};

/// The CSV header of the claims table of `reproduce dag` (`dag-claims`): `figure` the
/// paper's figure or section, `claim` what it says, `paper` its figure (empty for a claim
/// with none), `ours` and `ours_ci95` our mean over the seeds and the half-width of its 95 %
/// interval, `ours_of_means` the same claim with the speedup of the mean JCTs instead of the
/// mean of per-job speedups (speedup claims only), `verdict` as the module says.
pub const CLAIMS_HEADER: &str =
    "figure,claim,paper,ours,ours_ci95,ours_of_means,ours_of_means_ci95,verdict";

/// The paper's per-model JIT speedups over TensorFlow (Fig. 5), in `Model::PAPER` order.
pub const PAPER_JIT_SPEEDUP: [f64; 5] = [1.34, 1.53, 1.70, 1.81, 1.39];

/// The paper's file inflation under JIT per file size (Fig. 9), in [`FILE_GB`] order.
pub const PAPER_JIT_FILES: [f64; 5] = [1.20, 1.30, 1.45, 1.75, 2.10];

/// A figure's verdict against the paper's value `paper`. With a `reference` (the value of
/// "no effect": 1 for a speedup or an inflation): `reproduced` when our interval holds the
/// paper's value and not the reference, `inconclusive` when it holds both, `no effect` when
/// only the reference, `direction only` when neither but ours is on the paper's side of the
/// reference, `reversed` on the other side. Without one: `reproduced`, or `ours lower` /
/// `ours higher`.
#[must_use]
pub fn value_verdict(e: &Estimate, paper: f64, reference: Option<f64>) -> &'static str {
    if !e.mean.is_finite() {
        return "not measured";
    }
    let Some(r) = reference else {
        return if e.contains(paper) {
            "reproduced"
        } else if e.mean < paper {
            "ours lower"
        } else {
            "ours higher"
        };
    };
    match (e.contains(paper), e.contains(r)) {
        (true, false) => "reproduced",
        (true, true) => "inconclusive",
        (false, true) => "no effect",
        (false, false) if (e.mean - r) * (paper - r) > 0.0 => "direction only",
        (false, false) => "reversed",
    }
}

/// An ordering's verdict from the per-seed differences (the paper says they are positive).
#[must_use]
pub fn order_verdict(d: &Estimate) -> &'static str {
    if !d.mean.is_finite() {
        "not measured"
    } else if d.half.is_finite() && d.lo() > 0.0 || !d.half.is_finite() && d.mean > 0.0 {
        "reproduced"
    } else if d.half.is_finite() && d.hi() < 0.0 || !d.half.is_finite() && d.mean < 0.0 {
        "reversed"
    } else {
        "not significant"
    }
}

struct Claims {
    t: Table,
}

impl Claims {
    fn push(
        &mut self,
        figure: &str,
        claim: &str,
        paper: Option<f64>,
        ours: Estimate,
        of_means: Option<Estimate>,
        verdict: &str,
    ) {
        let f = |x: f64| super::dag_stats::cell(x, 3);
        let (om, omh) = of_means.map_or((Cell::Empty, Cell::Empty), |e| (f(e.mean), f(e.half)));
        self.t.push(vec![
            Cell::text(figure),
            Cell::text(claim),
            paper.map_or(Cell::Empty, f),
            f(ours.mean),
            f(ours.half),
            om,
            omh,
            Cell::text(verdict),
        ]);
    }
}

/// The claims table of `runs`. `jit`, `tictac`, `sincronia` name the rows of the paper's
/// schedulers, `alpha` the α-sweep's rows (α, name), `lp_ms` the LP's solve time at 70 VGG16
/// jobs when it was measured; `calibrated` when the load was fitted to TensorFlow's file
/// inflation (its claim is then the calibration, not a result).
#[must_use]
pub fn claims_table(
    runs: &SeedRuns,
    alpha: &[(f64, String)],
    lp_ms: Option<f64>,
    calibrated: bool,
) -> Table {
    let mut c = Claims {
        t: Table::new(
            "dag-claims",
            "The paper's claims against this run",
            CLAIMS_HEADER,
        )
        .with_text_view(&[
            ("figure", "figure"),
            ("claim", "claim"),
            ("paper", "paper"),
            ("ours", "ours"),
            ("ours_ci95", "±95%"),
            ("ours_of_means", "of_means"),
            ("verdict", "verdict"),
        ]),
    };
    let est = |name: &str, f: &dyn Fn(&Summary) -> f64| runs.est(name, f);
    let vals = |name: &str, f: &dyn Fn(&Summary) -> f64| runs.values(name, f);
    let diff = |a: Vec<f64>, b: Vec<f64>| Estimate::of(&paired(&a, &b));
    let speed = |g: usize| move |s: &Summary| s.speedup[g];
    let rom = |g: usize| move |s: &Summary| s.ratio_of_means(g);
    let jit = "jit";

    // Fig. 5: speedups.
    let e = est(jit, &speed(ALL));
    c.push(
        "Fig. 5",
        "JIT speedup over TensorFlow, all",
        Some(1.55),
        e,
        Some(est(jit, &rom(ALL))),
        value_verdict(&e, 1.55, Some(1.0)),
    );
    for (g, &p) in PAPER_JIT_SPEEDUP.iter().enumerate() {
        let e = est(jit, &speed(g));
        c.push(
            "Fig. 5",
            &format!("JIT's speedup, {}", super::dag_runs::group_name(g)),
            Some(p),
            e,
            Some(est(jit, &rom(g))),
            value_verdict(&e, p, Some(1.0)),
        );
    }
    let e = est("tictac", &speed(ALL));
    c.push(
        "Fig. 5",
        "FIFO+TicTac speedup, all",
        Some(1.23),
        e,
        Some(est("tictac", &rom(ALL))),
        value_verdict(&e, 1.23, Some(1.0)),
    );
    let e = est("tictac", &speed(0));
    c.push(
        "Fig. 5",
        "FIFO+TicTac speedup, lenet",
        Some(1.40),
        e,
        Some(est("tictac", &rom(0))),
        value_verdict(&e, 1.40, Some(1.0)),
    );
    let d = diff(vals(jit, &speed(ALL)), vals("tictac", &speed(ALL)));
    let dm = diff(vals(jit, &rom(ALL)), vals("tictac", &rom(ALL)));
    c.push(
        "Fig. 5",
        "JIT ahead of FIFO+TicTac (diff.)",
        Some(1.55 - 1.23),
        d,
        Some(dm),
        order_verdict(&d),
    );
    let d = diff(vals("tictac", &speed(0)), vals(jit, &speed(0)));
    c.push(
        "Fig. 5",
        "TicTac ahead of JIT on lenet (diff.)",
        Some(1.40 - 1.34),
        d,
        Some(diff(vals("tictac", &rom(0)), vals(jit, &rom(0)))),
        order_verdict(&d),
    );
    let e = est("sincronia", &speed(ALL));
    let v = if !e.mean.is_finite() {
        "not measured"
    } else if e.half.is_finite() && e.lo() > 1.0 || !e.half.is_finite() && e.mean > 1.0 {
        "not reproduced"
    } else if e.half.is_finite() && e.hi() <= 1.0 || !e.half.is_finite() && e.mean <= 1.0 {
        "reproduced"
    } else {
        "not significant"
    };
    c.push(
        "§4.2",
        "Sincronia no faster than TensorFlow",
        None,
        e,
        Some(est("sincronia", &rom(ALL))),
        v,
    );

    // Fig. 6: data waiting time (seconds).
    let inc = 3;
    let wait = |g: usize| move |s: &Summary| s.wait[g];
    let tf_w = est(TF, &wait(inc));
    c.push(
        "Fig. 6",
        "Inception wait, TensorFlow (s)",
        Some(2.1),
        tf_w,
        None,
        value_verdict(&tf_w, 2.1, None),
    );
    let jit_w = est(jit, &wait(inc));
    c.push(
        "Fig. 6",
        "Inception wait, JIT (s)",
        Some(0.12),
        jit_w,
        None,
        value_verdict(&jit_w, 0.12, None),
    );
    let cut: Vec<f64> = vals(jit, &wait(inc))
        .iter()
        .zip(vals(TF, &wait(inc)))
        .map(|(j, t)| 1.0 - j / t)
        .collect();
    let e = Estimate::of(&cut);
    c.push(
        "Fig. 6",
        "JIT's cut of Inception wait (share)",
        Some(0.943),
        e,
        None,
        value_verdict(&e, 0.943, Some(0.0)),
    );
    let d = diff(vals("sincronia", &wait(ALL)), vals(TF, &wait(ALL)));
    c.push(
        "Fig. 6",
        "Sincronia wait above TensorFlow (s)",
        None,
        d,
        None,
        order_verdict(&d),
    );
    let d = diff(vals(TF, &wait(ALL)), vals(jit, &wait(ALL)));
    c.push(
        "Fig. 6",
        "JIT's wait below TensorFlow's (s)",
        None,
        d,
        None,
        order_verdict(&d),
    );

    // Fig. 7: Inception's per-transfer waits (no value in the paper: "the gap between a
    // transfer's arrival and its use shrinks markedly").
    let p50 = |s: &Summary| s.inception_waits[0];
    let prompt = |s: &Summary| s.inception_waits[2];
    for name in [TF, jit] {
        c.push(
            "Fig. 7",
            &format!("Inception transfer wait, median, {name} (s)"),
            None,
            est(name, &p50),
            None,
            "measured",
        );
    }
    let d = diff(vals(TF, &p50), vals(jit, &p50));
    c.push(
        "Fig. 7",
        "JIT's median transfer wait below TF's (s)",
        None,
        d,
        None,
        order_verdict(&d),
    );
    let d = diff(vals(jit, &prompt), vals(TF, &prompt));
    c.push(
        "Fig. 7",
        "JIT uses more transfers within 0.1 s (share)",
        None,
        d,
        None,
        order_verdict(&d),
    );

    // Fig. 8: remaining bandwidth (all DAG traffic, 1 s windows).
    let min = |s: &Summary| s.rem_min();
    let med = |s: &Summary| s.rem_median();
    for (name, p) in [
        (TF, 0.173),
        ("sincronia", 0.175),
        ("tictac", 0.173),
        (jit, 0.334),
    ] {
        let e = est(name, &min);
        c.push(
            "Fig. 8",
            &format!("min. remaining bw, {name}"),
            Some(p),
            e,
            None,
            value_verdict(&e, p, None),
        );
    }
    let base_max: Vec<f64> = (0..runs.seeds())
        .map(|k| {
            [TF, "sincronia", "tictac"]
                .iter()
                .filter_map(|n| runs.of(n).and_then(|s| s.get(k)).map(Summary::rem_min))
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .collect();
    let d = diff(vals(jit, &min), base_max);
    c.push(
        "Fig. 8",
        "JIT's minimum above every baseline's",
        Some(0.334 - 0.175),
        d,
        None,
        order_verdict(&d),
    );
    let e = est(jit, &|s| s.remaining.last().copied().unwrap_or(f64::NAN));
    c.push(
        "Fig. 8",
        "JIT's max. remaining bandwidth",
        Some(0.793),
        e,
        None,
        value_verdict(&e, 0.793, None),
    );
    for (name, p) in [(TF, 0.556), (jit, 0.665)] {
        let e = est(name, &med);
        c.push(
            "Fig. 8",
            &format!("median remaining bw, {name}"),
            Some(p),
            e,
            None,
            value_verdict(&e, p, None),
        );
    }
    let d = diff(vals(jit, &med), vals(TF, &med));
    c.push(
        "Fig. 8",
        "JIT's median above TensorFlow's",
        Some(0.665 - 0.556),
        d,
        None,
        order_verdict(&d),
    );

    // Fig. 9: the files.
    let files = |s: &Summary| s.files;
    for (name, p, what) in [
        (TF, 2.23, if calibrated { "calibrated" } else { "" }),
        ("sincronia", 2.05, ""),
        ("tictac", 2.23, ""),
        (jit, 1.56, ""),
    ] {
        let e = est(name, &files);
        let verdict = if what.is_empty() {
            value_verdict(&e, p, Some(1.0))
        } else {
            what
        };
        c.push(
            "Fig. 9",
            &format!("file JCT / alone, {name}"),
            Some(p),
            e,
            None,
            verdict,
        );
    }
    let d = diff(vals(TF, &files), vals(jit, &files));
    c.push(
        "Fig. 9",
        "files faster under JIT than TF",
        Some(2.23 - 1.56),
        d,
        None,
        order_verdict(&d),
    );
    for (s, &p) in PAPER_JIT_FILES.iter().enumerate() {
        let e = est(jit, &|x: &Summary| x.files_by_size[s]);
        c.push(
            "Fig. 9",
            &format!("{} Gb files under JIT", FILE_GB[s]),
            Some(p),
            e,
            None,
            value_verdict(&e, p, Some(1.0)),
        );
    }
    let d = diff(
        vals(jit, &|x: &Summary| x.files_by_size[4]),
        vals(jit, &|x: &Summary| x.files_by_size[0]),
    );
    c.push(
        "Fig. 9",
        "JIT: 40 Gb files slower than 5 Gb",
        Some(2.10 - 1.20),
        d,
        None,
        order_verdict(&d),
    );

    // Fig. 10: alpha.
    if let (Some((a1, n1)), Some((a6, n6))) = (alpha.first(), alpha.last()) {
        for (a, n, p) in [(a1, n1, 1.09), (a6, n6, 1.62)] {
            let e = est(n, &speed(ALL));
            c.push(
                "Fig. 10",
                &format!("JIT's speedup at alpha {a:.1}"),
                Some(p),
                e,
                Some(est(n, &rom(ALL))),
                value_verdict(&e, p, Some(1.0)),
            );
        }
        let d = diff(vals(n6, &speed(ALL)), vals(n1, &speed(ALL)));
        c.push(
            "Fig. 10",
            &format!("speedup rises from alpha {a1:.1} to {a6:.1}"),
            Some(1.62 - 1.09),
            d,
            Some(diff(vals(n6, &rom(ALL)), vals(n1, &rom(ALL)))),
            order_verdict(&d),
        );
        for (a, n, p) in [(a1, n1, 0.482), (a6, n6, 0.324)] {
            let e = est(n, &min);
            c.push(
                "Fig. 10",
                &format!("min. remaining bw at alpha {a:.1}"),
                Some(p),
                e,
                None,
                value_verdict(&e, p, None),
            );
        }
        let planned = |s: &Summary| s.planned_min();
        for (a, n, p) in [(a1, n1, 0.482), (a6, n6, 0.324)] {
            let e = est(n, &planned);
            c.push(
                "Fig. 10",
                &format!("LP-only min. remaining, alpha {a:.1}"),
                Some(p),
                e,
                None,
                value_verdict(&e, p, None),
            );
        }
        let d = diff(vals(n1, &planned), vals(n6, &planned));
        c.push(
            "Fig. 10",
            "LP-only remaining falls with alpha",
            Some(0.482 - 0.324),
            d,
            None,
            order_verdict(&d),
        );
    }

    // Fig. 11: the LP's solve time.
    if let Some(ms) = lp_ms {
        let e = Estimate::of(&[ms]);
        c.push(
            "Fig. 11",
            "LP solve at 70 VGG16 jobs < 1000 ms",
            Some(1000.0),
            e,
            None,
            if ms < 1000.0 {
                "reproduced"
            } else {
                "not reproduced"
            },
        );
    }
    c.t.note("Verdicts: a figure is reproduced when the paper's value lies inside our 95 % interval and 'no effect' (1 for a speedup or an inflation) does not; inconclusive when both do; no effect when only 'no effect' does; direction only when neither does but ours is on the paper's side; reversed on the other side; ours lower / ours higher for a figure with no 'no effect' (remaining bandwidth, waits). An ordering (a row whose paper value is a difference) is judged on the per-seed differences: reproduced when their interval is above 0, reversed when below, not significant otherwise.");
    c.t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(mean: f64, half: f64) -> Estimate {
        Estimate { mean, half, n: 10 }
    }

    #[test]
    fn value_verdicts() {
        let one = Some(1.0);
        assert_eq!(value_verdict(&e(1.5, 0.1), 1.55, one), "reproduced");
        assert_eq!(value_verdict(&e(1.2, 0.4), 1.55, one), "inconclusive");
        assert_eq!(value_verdict(&e(1.1, 0.02), 1.55, one), "direction only");
        assert_eq!(value_verdict(&e(1.01, 0.02), 1.55, one), "no effect");
        assert_eq!(value_verdict(&e(0.8, 0.02), 1.55, one), "reversed");
        assert_eq!(value_verdict(&e(f64::NAN, 0.02), 1.55, one), "not measured");
        assert_eq!(value_verdict(&e(0.0, 0.0), 0.173, None), "ours lower");
        assert_eq!(value_verdict(&e(0.9, 0.05), 0.482, None), "ours higher");
        assert_eq!(value_verdict(&e(0.5, 0.05), 0.482, None), "reproduced");
    }

    #[test]
    fn order_verdicts() {
        assert_eq!(order_verdict(&e(0.3, 0.1)), "reproduced");
        assert_eq!(order_verdict(&e(-0.3, 0.1)), "reversed");
        assert_eq!(order_verdict(&e(0.05, 0.1)), "not significant");
        let one = Estimate {
            mean: 0.2,
            half: f64::NAN,
            n: 1,
        };
        assert_eq!(order_verdict(&one), "reproduced");
    }
}
