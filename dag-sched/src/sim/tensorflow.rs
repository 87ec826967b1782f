//! TensorFlow v1.13's order: every (job, sender, receiver) channel sends one transfer at a time
//! in a random order drawn per job (gRPC's arbitrary order, paper §4.1 ①); channels share the
//! ports max-min fairly, as TCP flows do.

use super::engine::Sim;
use super::policy::RatePolicy;
use crate::rates::{FlowDemand, max_min_fair};

/// The TensorFlow baseline.
pub(crate) struct TensorFlow;

impl RatePolicy for TensorFlow {
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        true
    }

    fn rates(&mut self, sim: &mut Sim<'_>, rate: &mut [f64], free: &mut [f64]) -> f64 {
        sim.share_channels(rate, free);
        f64::INFINITY
    }
}

impl Sim<'_> {
    /// The head flow of every channel, LP flows excepted, shares the free capacity max-min
    /// fairly (TCP between channels); sets those flows' entries of `rate`.
    pub(super) fn share_channels(&self, rate: &mut [f64], free: &mut [f64]) {
        let idx: Vec<usize> = (0..self.active.len())
            .filter(|&k| {
                let id = self.active[k];
                self.flows[id].lp.is_none() && self.is_head(id)
            })
            .collect();
        let d: Vec<FlowDemand<'_>> = idx
            .iter()
            .map(|&k| self.flows[self.active[k]].demand(f64::INFINITY))
            .collect();
        for (r, &k) in max_min_fair(&d, free).into_iter().zip(&idx) {
            rate[k] = r;
        }
    }
}
