//! The policy API for schedulers written outside the crate: [`Policy`] over a read-only
//! [`PolicyView`], handing out capacity through a [`RateGrant`], run by the engine as any
//! built-in scheduler through [`UserPolicy`].

use super::engine::{RatePolicy, Sim};

/// A rate policy written outside the crate: at every event it reads the engine through a
/// [`PolicyView`] and hands out capacity through a [`RateGrant`]. A scheduler is one type
/// implementing this trait, in a file of its own, run by [`simulate_with`](super::simulate_with).
///
/// ```
/// use dag_sched::Cluster;
/// use dag_sched::sim::{Policy, PolicyView, RateGrant, SimConfig, simulate_with};
/// use dag_sched::trace::Trace;
/// use fabric_model::BitsPerSec;
///
/// /// Smallest remaining flow first, by strict priority.
/// struct Srpt;
///
/// impl Policy for Srpt {
///     fn rates(&mut self, view: &PolicyView<'_>, grant: &mut RateGrant<'_>) {
///         let mut order: Vec<usize> = (0..view.len()).collect();
///         order.sort_by(|&a, &b| view.flow(a).remaining.total_cmp(&view.flow(b).remaining));
///         for k in order {
///             grant.give(view, k, f64::INFINITY);
///         }
///     }
/// }
///
/// let trace = Trace::parse("3 2\n1 0 1 0 1 2:1\n2 0 1 1 1 2:2\n")?;
/// let cluster = Cluster::uniform(3, BitsPerSec::from_gbps(1))?;
/// let jobs = trace.to_jobs(&cluster)?;
/// let r = simulate_with(&cluster, &jobs, &SimConfig::default(), Box::new(Srpt))?;
/// // The 1 MB coflow first (8 ms at 1 Gbit/s), then the 2 MB one (24 ms in all).
/// assert!((r.jobs[0].jct() - 0.008).abs() < 1e-9 && (r.jobs[1].jct() - 0.024).abs() < 1e-9);
/// # Ok::<(), dag_sched::Error>(())
/// ```
pub trait Policy {
    /// Hands out capacity to the active flows of `view` through `grant` (every flow's rate is
    /// 0 on entry). Called at every event; a flow's rate holds until the next one.
    fn rates(&mut self, view: &PolicyView<'_>, grant: &mut RateGrant<'_>);
}

/// What a [`Policy`] sees of one active flow.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FlowView {
    /// Index of its job in the input.
    pub job: usize,
    /// Its transfer in the job.
    pub node: crate::TaskId,
    /// Sender and receiver machines.
    pub src: crate::MachineId,
    /// Receiver machine.
    pub dst: crate::MachineId,
    /// Its size, bits.
    pub size: f64,
    /// Bits left to send.
    pub remaining: f64,
}

/// A read-only view of the engine at an event: the time, the jobs, the active flows.
pub struct PolicyView<'a> {
    sim: &'a Sim<'a>,
}

impl std::fmt::Debug for PolicyView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyView")
            .field("now", &self.sim.now)
            .field("active", &self.sim.active.len())
            .finish()
    }
}

impl PolicyView<'_> {
    /// Simulated time, seconds.
    #[must_use]
    pub fn now(&self) -> f64 {
        self.sim.now
    }

    /// The run's jobs, in input order.
    #[must_use]
    pub fn jobs(&self) -> &[crate::workload::SimJob] {
        self.sim.jobs
    }

    /// Number of active flows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sim.active.len()
    }

    /// Whether no flow is active.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sim.active.is_empty()
    }

    /// Active flow `k` (`k < len()`), in release order.
    ///
    /// # Panics
    /// If `k` is not below [`PolicyView::len`].
    #[must_use]
    pub fn flow(&self, k: usize) -> FlowView {
        let f = &self.sim.flows[self.sim.active[k]];
        FlowView {
            job: f.job,
            node: f.node,
            src: crate::MachineId::new(f.src as u32),
            dst: crate::MachineId::new(f.dst as u32),
            size: f.size,
            remaining: f.remaining,
        }
    }
}

/// The capacity a [`Policy`] hands out at an event: each grant is capped by the free
/// capacity of every link the flow crosses, so no link is ever oversubscribed.
#[derive(Debug)]
pub struct RateGrant<'a> {
    rate: &'a mut [f64],
    free: &'a mut [f64],
}

impl RateGrant<'_> {
    /// Gives active flow `k` up to `rate` more bits/s (`f64::INFINITY`: all it can take), at
    /// most the free capacity left on its route; returns what it got.
    ///
    /// # Complexity
    /// O(h) for a route of h links.
    ///
    /// # Panics
    /// If `k` is not below `view.len()`.
    pub fn give(&mut self, view: &PolicyView<'_>, k: usize, rate: f64) -> f64 {
        let f = &view.sim.flows[view.sim.active[k]];
        let r = f
            .path
            .iter()
            .fold(rate, |x, &p| x.min(self.free[p as usize]))
            .max(0.0);
        for &p in &f.path {
            self.free[p as usize] -= r;
        }
        self.rate[k] += r;
        r
    }

    /// The rate active flow `k` has been given so far at this event.
    #[must_use]
    pub fn rate(&self, k: usize) -> f64 {
        self.rate[k]
    }
}

/// Runs a user's [`Policy`] as the engine's (dense) rate policy: every flow in `active`, no
/// channels.
pub(crate) struct UserPolicy(pub(crate) Box<dyn Policy>);

impl RatePolicy for UserPolicy {
    fn uses_channel(&self, _lp: bool, _dag: bool) -> bool {
        false
    }

    fn rates(&mut self, sim: &mut Sim<'_>, rate: &mut [f64], free: &mut [f64]) -> f64 {
        let view = PolicyView { sim };
        let mut grant = RateGrant { rate, free };
        self.0.rates(&view, &mut grant);
        f64::INFINITY
    }
}
