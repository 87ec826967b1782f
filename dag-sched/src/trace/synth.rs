//! A seeded coflow trace with the shape of the public FB2010 trace (the coflow-benchmark's
//! `FB2010-1Hr-150-0.txt`: 150 ports, 526 coflows over an hour), for runs without the file.
//!
//! Each coflow draws one rank `u` uniform in [0, 1); its total megabytes are the FB2010
//! quantile function at `u`, and its mapper and reducer counts the quantile functions at `u`
//! moved by a uniform jitter of ±0.1 (in the trace the widest coflows carry the most bytes).
//! The quantile functions interpolate, in log space, the quantiles we measured on the public
//! file ([`MAPPER_QUANTILES`], [`REDUCER_QUANTILES`], [`MEGABYTE_QUANTILES`]); mappers and
//! reducers are distinct ports drawn uniformly; each reducer receives an equal share of the
//! coflow's megabytes; arrivals form a Poisson process with the trace's mean gap.

use rand::Rng;

use super::{Coflow, Trace};
use crate::Error;

/// The probabilities of the quantile tables below.
pub const QUANTILE_PROBS: [f64; 9] = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0];

/// Mappers per coflow in FB2010 at [`QUANTILE_PROBS`] (mean 20.4).
pub const MAPPER_QUANTILES: [f64; 9] = [1.0, 1.0, 1.0, 3.0, 15.0, 64.0, 138.0, 147.0, 147.0];

/// Reducers per coflow in FB2010 at [`QUANTILE_PROBS`] (mean 20.2).
pub const REDUCER_QUANTILES: [f64; 9] = [1.0, 1.0, 1.0, 1.0, 21.0, 73.0, 120.0, 141.0, 145.0];

/// Total shuffle megabytes per coflow in FB2010 at [`QUANTILE_PROBS`].
pub const MEGABYTE_QUANTILES: [f64; 9] = [
    1.0,
    1.0,
    3.0,
    25.0,
    246.0,
    11268.0,
    52668.0,
    1_618_764.0,
    8_501_205.0,
];

/// The synthetic trace's parameters: [`SynthConfig::default`] is FB2010's shape (150 ports,
/// 526 coflows, a mean gap of 6,913 ms between arrivals: 3,629 s over 525 gaps), seed 1.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct SynthConfig {
    /// Ports (machines).
    pub ports: u32,
    /// Coflows.
    pub coflows: usize,
    /// Mean gap between arrivals, milliseconds.
    pub mean_interarrival_ms: f64,
    /// Seed (ChaCha8, [`fabric_model::rng::seeded`]).
    pub seed: u64,
}

impl Default for SynthConfig {
    fn default() -> Self {
        Self {
            ports: 150,
            coflows: 526,
            mean_interarrival_ms: 6913.0,
            seed: 1,
        }
    }
}

impl SynthConfig {
    /// This configuration with `ports` ports.
    #[must_use]
    pub fn with_ports(mut self, ports: u32) -> Self {
        self.ports = ports;
        self
    }

    /// This configuration with `coflows` coflows.
    #[must_use]
    pub fn with_coflows(mut self, coflows: usize) -> Self {
        self.coflows = coflows;
        self
    }

    /// This configuration with a mean gap of `ms` milliseconds between arrivals.
    #[must_use]
    pub fn with_mean_interarrival_ms(mut self, ms: f64) -> Self {
        self.mean_interarrival_ms = ms;
        self
    }

    /// This configuration with seed `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

/// The quantile function through `(QUANTILE_PROBS[k], q[k])`, linear in `ln q` between points.
fn quantile(q: &[f64; 9], u: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    let k = QUANTILE_PROBS
        .windows(2)
        .position(|w| u <= w[1])
        .unwrap_or(QUANTILE_PROBS.len() - 2);
    let (p0, p1) = (QUANTILE_PROBS[k], QUANTILE_PROBS[k + 1]);
    let t = if p1 > p0 { (u - p0) / (p1 - p0) } else { 0.0 };
    (q[k].ln() + t * (q[k + 1].ln() - q[k].ln())).exp()
}

/// `k` distinct ports of `0..ports`, uniformly (partial Fisher–Yates).
fn distinct(rng: &mut impl Rng, ports: u32, k: usize, pool: &mut Vec<u32>) -> Vec<u32> {
    pool.clear();
    pool.extend(0..ports);
    let k = k.min(pool.len());
    for i in 0..k {
        let j = rng.random_range(i..pool.len());
        pool.swap(i, j);
    }
    pool[..k].to_vec()
}

/// A trace of `cfg.coflows` coflows on `cfg.ports` ports with FB2010's shape (see the module
/// documentation), the same for the same configuration.
///
/// # Errors
/// [`Error::InvalidParameter`] for zero ports or a mean gap that is negative or not finite.
///
/// # Complexity
/// O(coflows · ports) time.
pub fn synthesize(cfg: &SynthConfig) -> Result<Trace, Error> {
    if cfg.ports == 0 {
        return Err(Error::InvalidParameter {
            name: "ports",
            value: 0.0,
            reason: "must be positive",
        });
    }
    if !(cfg.mean_interarrival_ms.is_finite() && cfg.mean_interarrival_ms >= 0.0) {
        return Err(Error::InvalidParameter {
            name: "mean_interarrival_ms",
            value: cfg.mean_interarrival_ms,
            reason: "must be finite and non-negative",
        });
    }
    let mut rng = fabric_model::rng::seeded(cfg.seed);
    let mut pool = Vec::new();
    let mut t = 0.0f64;
    let mut coflows = Vec::with_capacity(cfg.coflows);
    for id in 0..cfg.coflows {
        if id > 0 {
            // Exponential gap by inversion; 1 − u lies in (0, 1].
            let u: f64 = rng.random();
            t += -cfg.mean_interarrival_ms * (1.0 - u).ln();
        }
        let u: f64 = rng.random();
        let jm: f64 = rng.random();
        let jr: f64 = rng.random();
        let width = |q: &[f64; 9], j: f64| {
            (quantile(q, u + 0.2 * (j - 0.5)).round() as usize).clamp(1, cfg.ports as usize)
        };
        let nm = width(&MAPPER_QUANTILES, jm);
        let nr = width(&REDUCER_QUANTILES, jr);
        let mb = quantile(&MEGABYTE_QUANTILES, u).round().max(1.0);
        let mappers = distinct(&mut rng, cfg.ports, nm, &mut pool);
        let share = mb / nr as f64;
        let reducers = distinct(&mut rng, cfg.ports, nr, &mut pool)
            .into_iter()
            .map(|p| (p, share))
            .collect();
        coflows.push(Coflow {
            id: id as u64 + 1,
            arrival_ms: t.round() as u64,
            mappers,
            reducers,
        });
    }
    Ok(Trace {
        ports: cfg.ports,
        coflows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_the_table() {
        for (k, &p) in QUANTILE_PROBS.iter().enumerate() {
            let q = quantile(&MEGABYTE_QUANTILES, p);
            assert!((q / MEGABYTE_QUANTILES[k] - 1.0).abs() < 1e-9, "{p}: {q}");
        }
        // Between 0.5 (25 MB) and 0.75 (246 MB), geometric: sqrt(25 · 246) at 0.625.
        let mid = quantile(&MEGABYTE_QUANTILES, 0.625);
        assert!((mid - (25.0f64 * 246.0).sqrt()).abs() < 1e-6);
    }

    #[test]
    fn has_the_shape_and_is_seeded() {
        let cfg = SynthConfig::default();
        let t = synthesize(&cfg).unwrap();
        assert_eq!((t.ports, t.coflows.len()), (150, 526));
        assert_eq!(synthesize(&cfg).unwrap(), t);
        assert_ne!(synthesize(&cfg.with_seed(2)).unwrap(), t);
        // Round trip through the format.
        let mut s = String::new();
        t.write(&mut s).unwrap();
        assert_eq!(Trace::parse(&s).unwrap(), t);
        let mut widths: Vec<usize> = t.coflows.iter().map(|c| c.mappers.len()).collect();
        widths.sort_unstable();
        // Median width 3 mappers in FB2010; the jitter moves it a little.
        assert!((1..=6).contains(&widths[263]), "{}", widths[263]);
        assert!(widths[520] >= 100, "{}", widths[520]);
        let last = t.coflows.last().unwrap().arrival_ms as f64;
        // 525 exponential gaps of mean 6.9 s: within 15 % of 3,629 s.
        assert!((last / 3_629_325.0 - 1.0).abs() < 0.15, "{last}");
        for c in &t.coflows {
            let mut m = c.mappers.clone();
            m.sort_unstable();
            m.dedup();
            assert_eq!(m.len(), c.mappers.len());
            assert!(c.reducers.iter().all(|&(p, mb)| p < 150 && mb > 0.0));
        }
    }

    #[test]
    fn bad_parameters() {
        assert!(matches!(
            synthesize(&SynthConfig::default().with_ports(0)),
            Err(Error::InvalidParameter { name: "ports", .. })
        ));
        assert!(matches!(
            synthesize(&SynthConfig::default().with_mean_interarrival_ms(f64::NAN)),
            Err(Error::InvalidParameter {
                name: "mean_interarrival_ms",
                ..
            })
        ));
    }
}
