//! The rate-policy trait the engine drives: a scheduler is one implementation of
//! [`RatePolicy`] in a file of its own (as quinn-proto's congestion controllers implement one
//! `Controller` trait each), chosen from a [`Scheduler`] by [`for_scheduler`].

use super::engine::{Moving, Sim};
use super::{Scheduler, jit, sincronia, tensorflow, tictac, varys};
use crate::Error;

/// A rate-allocation policy: what the engine asks a scheduler at its events.
pub(crate) trait RatePolicy {
    /// Job `j` arrives at `sim.now`, before its first nodes are released (JIT plans it here,
    /// TicTac orders its transfers).
    fn on_arrival(&mut self, _sim: &mut Sim<'_>, _j: usize) -> Result<(), Error> {
        Ok(())
    }

    /// Whether a new flow waits in its (job, sender, receiver) channel, one transfer at a
    /// time (gRPC's channels), given whether it is in an LP plan and whether its job has a DAG.
    fn uses_channel(&self, lp: bool, dag: bool) -> bool;

    /// Whether the policy reads every active flow at every event (`sim.active` and
    /// [`RatePolicy::rates`]); an incremental policy returns false, follows the flow changes in
    /// `sim.log` and sets rates with [`RatePolicy::sparse_rates`].
    fn dense(&self) -> bool {
        true
    }

    /// Dense policies: sets `rate[k]` for every active flow `sim.active[k]` (all 0 on entry)
    /// from the free capacity `free` of every resource (decreased by what it hands out);
    /// returns the time of the next event the policy itself needs (`f64::INFINITY` for none).
    fn rates(&mut self, _sim: &mut Sim<'_>, _rate: &mut [f64], _free: &mut [f64]) -> f64 {
        f64::INFINITY
    }

    /// Incremental policies: reads the flow changes in `sim.log` (cleared after the call),
    /// pushes every flow with a positive rate onto `out` (empty on entry), decreasing `free`
    /// by what it hands out; returns the time of the next event the policy itself needs.
    fn sparse_rates(
        &mut self,
        _sim: &mut Sim<'_>,
        _out: &mut Vec<Moving>,
        _free: &mut [f64],
    ) -> f64 {
        f64::INFINITY
    }
}

/// The policy of `scheduler` for a run over `jobs` jobs.
pub(crate) fn for_scheduler(scheduler: Scheduler, jobs: usize) -> Box<dyn RatePolicy> {
    match scheduler {
        Scheduler::TensorFlow => Box::new(tensorflow::TensorFlow::default()),
        Scheduler::TicTac => Box::new(tictac::TicTac::default()),
        Scheduler::Sincronia => Box::new(sincronia::Sincronia::new(jobs)),
        Scheduler::Varys => Box::new(varys::Varys::new(jobs)),
        Scheduler::Jit(cfg) => Box::new(jit::Jit::new(cfg)),
    }
}
