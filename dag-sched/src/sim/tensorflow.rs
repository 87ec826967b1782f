//! TensorFlow v1.13's order: every (job, sender, receiver) channel sends one transfer at a time
//! in a random order drawn per job (gRPC's arbitrary order, paper §4.1 ①); channels share the
//! ports max-min fairly, as TCP flows do.
//!
//! Incremental: the channel heads are kept in route classes ([`FairClasses`]) as they come
//! and go, each event fills the classes, not every flow, and reports only the flows whose
//! rate changed.

use super::engine::{Change, FlowEvent, RatePolicy, Sim};
use crate::rates::{FairClasses, FlowDemand, max_min_fair};

/// The TensorFlow baseline: the channel heads by route.
#[derive(Default)]
pub(crate) struct TensorFlow {
    heads: FairClasses,
    /// Reused: an event's class rate changes, which go after its joins.
    group_rates: Vec<Change>,
    /// Whether it runs as JIT's driver (JIT reports its planned transfers' usage apart, none
    /// here).
    planned: bool,
}

impl TensorFlow {
    /// The policy as JIT's driver over jobs without a DAG.
    pub(crate) fn reporting_planned() -> Self {
        Self {
            planned: true,
            ..Self::default()
        }
    }
}

impl RatePolicy for TensorFlow {
    fn reports_planned(&self) -> bool {
        self.planned
    }

    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        true
    }

    fn dense(&self) -> bool {
        false
    }

    fn sparse_rates(&mut self, sim: &mut Sim<'_>, out: &mut Vec<Change>, free: &mut [f64]) -> f64 {
        for &e in &sim.log {
            match e {
                FlowEvent::Head(id) => {
                    let f = &sim.flows[id];
                    if f.lp.is_none() {
                        self.heads.add(id, f.src as u32, f.dst as u32, &f.path);
                    }
                }
                FlowEvent::End(id) => self.heads.remove(id),
                FlowEvent::Start(_) => {}
            }
        }
        // A class's flows join its rate group; a class's rate is its group's. The joins
        // come first.
        let rates = &mut self.group_rates;
        rates.clear();
        self.heads.changes(
            free,
            |id, group| out.push(Change::Join { id, group }),
            |group, rate| rates.push(Change::Group { group, rate }),
        );
        out.append(rates);
        f64::INFINITY
    }
}

impl Sim<'_> {
    /// The head flow of every channel, LP flows excepted, shares the free capacity max-min
    /// fairly (TCP between channels); sets those flows' entries of `rate` (dense policies).
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
