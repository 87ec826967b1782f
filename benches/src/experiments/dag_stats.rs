//! Means over seeds with their 95 % intervals, for the `dag` family of experiments.
//!
//! Every figure `reproduce dag` reports at more than one seed is the mean of one value per
//! seed (each seed draws its own job set and TensorFlow order), with the half-width of the
//! two-sided 95 % Student-t interval of that mean: `t(0.975, n−1) · s / √n`, `s` the sample
//! standard deviation over the `n` seeds. Comparisons between two schedulers (the verdicts)
//! use the per-seed differences, so that the job set each seed draws cancels out.

/// A mean over seeds with its 95 % half-width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The mean of the finite values.
    pub mean: f64,
    /// Half-width of the 95 % interval of the mean (NaN with fewer than two values).
    pub half: f64,
    /// How many finite values.
    pub n: usize,
}

impl Estimate {
    /// The estimate of the finite values of `xs` (NaN values, e.g. a model absent from a
    /// seed, are left out).
    #[must_use]
    pub fn of(xs: &[f64]) -> Self {
        let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
        let n = v.len();
        if n == 0 {
            return Self {
                mean: f64::NAN,
                half: f64::NAN,
                n,
            };
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        if n < 2 {
            return Self {
                mean,
                half: f64::NAN,
                n,
            };
        }
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        Self {
            mean,
            half: t975(n - 1) * (var / n as f64).sqrt(),
            n,
        }
    }

    /// The lower end of the interval.
    #[must_use]
    pub fn lo(&self) -> f64 {
        self.mean - self.half
    }

    /// The upper end of the interval.
    #[must_use]
    pub fn hi(&self) -> f64 {
        self.mean + self.half
    }

    /// Whether `x` lies inside the interval (a single seed has none: only equality counts).
    #[must_use]
    pub fn contains(&self, x: f64) -> bool {
        if self.half.is_finite() {
            self.lo() <= x && x <= self.hi()
        } else {
            self.mean == x
        }
    }

    /// `1.234 ± 0.012` (`1.234` with one seed).
    #[must_use]
    pub fn text(&self, decimals: usize) -> String {
        if self.half.is_finite() {
            format!("{:.d$} ± {:.d$}", self.mean, self.half, d = decimals)
        } else {
            format!("{:.d$}", self.mean, d = decimals)
        }
    }
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom (exact to the three
/// decimals of the usual tables for 1–30, then the normal's 1.960 approached as `1.96 +
/// 2.4/df`, within 0.003 of the true quantile above 30).
#[must_use]
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// A table cell of `x` with `decimals` places, empty when `x` is not finite (an interval of
/// one seed, a figure a run does not have).
#[must_use]
pub fn cell(x: f64, decimals: usize) -> crate::Cell {
    if x.is_finite() {
        crate::Cell::float(x, decimals)
    } else {
        crate::Cell::Empty
    }
}

/// Per-seed differences `a[k] − b[k]`, NaN where either is.
#[must_use]
pub fn paired(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_of_known_sample() {
        // Mean 2, s = 1, n = 3: half = 4.303 / sqrt(3).
        let e = Estimate::of(&[1.0, 2.0, 3.0]);
        assert!((e.mean - 2.0).abs() < 1e-12);
        assert!((e.half - 4.303 / 3f64.sqrt()).abs() < 1e-9);
        assert!(e.contains(4.0) && !e.contains(4.6));
        assert_eq!(e.text(2), "2.00 ± 2.48");
    }

    #[test]
    fn nan_values_are_left_out_and_one_value_has_no_interval() {
        let e = Estimate::of(&[f64::NAN, 5.0]);
        assert_eq!(e.n, 1);
        assert!(e.half.is_nan());
        assert_eq!(e.text(1), "5.0");
        assert!(Estimate::of(&[]).mean.is_nan());
    }

    #[test]
    fn t_quantiles_fall_towards_the_normal() {
        assert!((t975(9) - 2.262).abs() < 1e-9);
        assert!(t975(31) > 1.96 && t975(31) < t975(30));
        assert!((t975(1000) - 1.96).abs() < 0.003);
    }
}
