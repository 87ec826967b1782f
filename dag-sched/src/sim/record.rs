//! The engine's usage records: per resource and window, the bits DAG transfers moved (all of
//! them, and the planned ones apart), from which a run's remaining-bandwidth samples come.

use super::config::MAX_SAMPLES;
use super::engine::Sim;
use super::metrics::{Span, Usage};
use crate::Error;

impl Sim<'_> {
    pub(super) fn record_usage(&mut self, rate: &[f64], t0: f64, t1: f64) {
        let jit = self.planned;
        // Per resource: (JIT's planned DAG rate, all DAG rate), and the total rate; dense vectors
        // (a resource carries DAG traffic iff its all-DAG rate is positive, as every rate
        // added is).
        let n = self.cluster.capacities().len();
        let mut port_rate = vec![(0.0f64, 0.0f64); n];
        let mut util = vec![0.0f64; n];
        for (k, &id) in self.active.iter().enumerate() {
            let f = &self.flows[id];
            if rate[k] <= 0.0 {
                continue;
            }
            for &p in &f.path {
                util[p as usize] += rate[k];
            }
            if self.st[f.job].dag {
                let scheduled = if jit && f.lp.is_some() { rate[k] } else { 0.0 };
                for &p in &f.path {
                    let e = &mut port_rate[p as usize];
                    e.0 += scheduled;
                    e.1 += rate[k];
                }
            }
        }
        for (p, &u) in util.iter().enumerate() {
            if u > 0.0 {
                let cap = self.port_cap(p);
                self.max_util = self.max_util.max(u / cap);
            }
        }
        self.record_windows(&port_rate, t0, t1);
    }

    /// Adds `port_rate[p]` (JIT's planned DAG rate, all DAG rate) on every resource `p`
    /// over `[t0, t1]` to the per-window usage. O(resources), however many windows the step
    /// spans.
    pub(super) fn record_windows(&mut self, port_rate: &[(f64, f64)], t0: f64, t1: f64) {
        let w = self.cfg.sample_window.as_secs_f64();
        if t1 <= t0 {
            return;
        }
        let span = Span::new(t0, t1, w);
        for (p, &(r, r_all)) in port_rate.iter().enumerate() {
            if r_all <= 0.0 {
                continue;
            }
            // `usage_all`: all DAG traffic (every scheduler); `usage`: JIT's planned
            // transfers only.
            if r > 0.0 {
                self.usage.add(p, r, &span);
            }
            self.usage_all.add(p, r_all, &span);
        }
    }

    /// `1 − bits / (capacity × window)` per (port, window) of `usage`, sorted ascending.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`sample_window`) when there are more than
    /// [`MAX_SAMPLES`] samples.
    pub(super) fn remaining_ratios(&self, usage: &Usage) -> Result<Vec<f64>, Error> {
        let w = self.cfg.sample_window.as_secs_f64();
        let count = usage.samples();
        if count > MAX_SAMPLES {
            return Err(Error::InvalidParameter {
                name: "sample_window",
                value: w,
                reason: "gives more than MAX_SAMPLES (2^24) remaining-bandwidth samples: use a longer window",
            });
        }
        let ratio = |p: usize, bits: f64| (1.0 - bits / (self.port_cap(p) * w)).max(0.0);
        let mut v: Vec<f64> = Vec::with_capacity(count as usize);
        v.extend(usage.partial.iter().map(|(&(p, _), &bits)| ratio(p, bits)));
        for (&(p, _), &(n, bits)) in &usage.full {
            v.extend(std::iter::repeat_n(ratio(p, bits), n as usize));
        }
        v.sort_by(f64::total_cmp);
        Ok(v)
    }

    fn port_cap(&self, p: usize) -> f64 {
        self.cluster.capacities()[p]
    }
}
