//! The event engine: jobs arrive, compute tasks run, transfers become flows (in channels where
//! the policy wants them), the policy sets rates, and the clock jumps to the next event.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use rand::seq::SliceRandom;
use smallvec::SmallVec;

use super::config::SimConfig;
use super::metrics::{JobOutcome, LpStats, SimResult, TransferTimes, Usage};
use crate::Error;
use crate::cluster::Cluster;
use crate::job::{NodeKind, TaskId};
use crate::lat::{self, LatMethod};
use crate::rates::FlowDemand;
use crate::workload::SimJob;

pub(super) struct Flow {
    pub(super) job: usize,
    pub(super) node: TaskId,
    pub(super) src: usize,
    pub(super) dst: usize,
    /// The resources the flow crosses.
    pub(super) path: Path,
    pub(super) size: f64,
    pub(super) remaining: f64,
    pub(super) sent: f64,
    /// Its index in its job's plan, when the policy planned it ([`JobState::lp_index`]).
    pub(super) lp: Option<usize>,
    /// JIT with [`RestPolicy::LatPriority`](super::RestPolicy::LatPriority) (ours): absolute LAT (s) of a DAG transfer
    /// outside the LP.
    pub(super) lat_abs: f64,
    pub(super) channel: bool,
    /// Whether the flow is its channel's head (the one transfer the channel sends now).
    pub(super) head: bool,
}

/// A flow's resources: two on the big switch, six across a three-level fat tree, kept inline
/// (`cargo bench -p criterion-benches --bench dag_sched_bits -- dag_flow_paths`: building 10,000 routes and
/// reading each ten times took 0.62 ms with `SmallVec<[u32; 6]>` against 1.30 ms with
/// `Vec<u32>` at two hops, 0.73 against 1.23 ms at six).
pub(super) type Path = SmallVec<[u32; 6]>;

impl Flow {
    /// The flow as a rate-allocation demand capped at `cap`.
    pub(super) fn demand(&self, cap: f64) -> FlowDemand<'_> {
        FlowDemand {
            path: &self.path,
            cap,
        }
    }
}

pub(super) struct JobState {
    pub(super) pending: Vec<u32>,
    pub(super) finish: Vec<f64>,
    pub(super) left: usize,
    pub(super) done_at: f64,
    pub(super) tf_rank: Vec<u32>,
    pub(super) prio: Vec<u32>,
    /// Per node: its index in the job's plan when the policy planned it at the job's arrival
    /// (JIT's LP), else `NONE`.
    pub(super) lp_index: Vec<u32>,
    pub(super) lat_abs: Vec<f64>,
    pub(super) fifo: usize,
    /// Whether the job has a compute task (a DAG job), computed once: [`Job::has_compute`](crate::Job::has_compute)
    /// scans the job, and a coflow of 10⁴ flows asked it once per flow.
    pub(super) dag: bool,
}

pub(super) const NONE: u32 = u32::MAX;

/// A change to the set of flows, logged for the policies that keep their own indices
/// ([`RatePolicy::dense`] false) instead of reading `Sim::active` at every event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FlowEvent {
    /// Flow `id` was released (it is active from now on).
    Start(usize),
    /// Flow `id` became its channel's head (the one transfer its channel sends now).
    Head(usize),
    /// Flow `id` delivered its last bit.
    End(usize),
}

/// A flow that moves in the current step: its rate, and (JIT) the planned part of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Moving {
    /// The flow.
    pub(super) id: usize,
    /// Its rate, bits/s (positive).
    pub(super) rate: f64,
    /// The part of `rate` that is an LP plan's (JIT; 0 otherwise).
    pub(super) planned: f64,
}

/// A flow's rate under an incremental policy, kept between events: it has sent at `rate`
/// since `t0`, when it had `Flow::remaining` bits left (materialised only when the rate
/// changes or the flow ends, so that an event does not touch every moving flow).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Lazy {
    /// The rate, bits/s (0: not moving).
    rate: f64,
    /// When `rate` was set (and `Flow::remaining` last materialised).
    t0: f64,
    /// Bumped at every rate change: older predictions in the finish heap are stale.
    generation: u32,
    /// Whether the flow delivered its last bit.
    ended: bool,
    /// Its rate group, or `NONE`.
    group: u32,
}

/// A set of flow ids with O(1) insert and remove (any order).
#[derive(Debug, Default)]
pub(super) struct IdSet {
    ids: Vec<usize>,
    pos: Vec<u32>,
}

impl IdSet {
    /// Adds `id` (no-op if it is in).
    pub(super) fn insert(&mut self, id: usize) {
        if self.pos.len() <= id {
            self.pos.resize(id + 1, NONE);
        }
        if self.pos[id] == NONE {
            self.pos[id] = self.ids.len() as u32;
            self.ids.push(id);
        }
    }

    /// Removes `id` (no-op if it is not in).
    pub(super) fn remove(&mut self, id: usize) {
        if let Some(&p) = self.pos.get(id)
            && p != NONE
        {
            self.ids.swap_remove(p as usize);
            if let Some(&moved) = self.ids.get(p as usize) {
                self.pos[moved] = p;
            }
            self.pos[id] = NONE;
        }
    }

    /// Whether `id` is in.
    pub(super) fn contains(&self, id: usize) -> bool {
        self.pos.get(id).is_some_and(|&p| p != NONE)
    }

    /// The ids in, in no particular order.
    pub(super) fn ids(&self) -> &[usize] {
        &self.ids
    }
}

/// The moving rate groups, each with its first member's predicted finish and that less the
/// time its last 1e-9 of bits takes (when it counts as done), side by side so that the scans
/// of every event read them in order. Insert, update and remove are O(1).
#[derive(Debug, Default)]
struct MovingGroups {
    ids: Vec<usize>,
    pos: Vec<u32>,
    next: Vec<f64>,
    due: Vec<f64>,
}

impl MovingGroups {
    /// Group `g` moves, its first member predicted to finish at `next` (done from `due`).
    fn set(&mut self, g: usize, next: f64, due: f64) {
        if self.pos.len() <= g {
            self.pos.resize(g + 1, NONE);
        }
        match self.pos[g] {
            NONE => {
                self.pos[g] = self.ids.len() as u32;
                self.ids.push(g);
                self.next.push(next);
                self.due.push(due);
            }
            p => {
                self.next[p as usize] = next;
                self.due[p as usize] = due;
            }
        }
    }

    /// Group `g` does not move.
    fn remove(&mut self, g: usize) {
        if let Some(&p) = self.pos.get(g)
            && p != NONE
        {
            let p = p as usize;
            self.ids.swap_remove(p);
            self.next.swap_remove(p);
            self.due.swap_remove(p);
            if let Some(&moved) = self.ids.get(p) {
                self.pos[moved] = p as u32;
            }
            self.pos[g] = NONE;
        }
    }
}

/// A rate change an incremental policy reports ([`RatePolicy::sparse_rates`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Change {
    /// Flow `id` moves at `rate` from now on (0: it stops).
    Flow {
        /// The flow.
        id: usize,
        /// Its rate, bits/s.
        rate: f64,
    },
    /// Flow `id` joins rate group `group` for the rest of its life: it moves at the group's
    /// rate. A group's members cross the same resources.
    Join {
        /// The flow.
        id: usize,
        /// The group.
        group: u32,
    },
    /// Every member of group `group` moves at `rate` from now on.
    Group {
        /// The group.
        group: u32,
        /// The members' rate, bits/s.
        rate: f64,
    },
}

/// A rate-allocation policy: what the engine asks a scheduler at its events. A scheduler is
/// one implementation in a file of its own (as quinn-proto's congestion controllers implement
/// one `Controller` trait each); the engine knows no scheduler, only this trait.
pub(super) trait RatePolicy {
    /// The policy that runs these `jobs` in its place, where the policy has a faster
    /// equivalent for them (JIT without a DAG job: nothing to plan, so fair sharing or one
    /// strict-priority walk, incrementally); `None` to run itself. [`simulate`](super::simulate)
    /// asks once, before the run; a user's [`Policy`](super::Policy) has none.
    fn driver(&self, _jobs: &[SimJob]) -> Option<Box<dyn RatePolicy>> {
        None
    }

    /// Whether the run reports the usage of the policy's planned transfers apart
    /// ([`SimResult::remaining_planned`]; otherwise it equals `remaining`). Asked once, before
    /// the run.
    fn reports_planned(&self) -> bool {
        false
    }

    /// Job `j` arrives at `sim.now`, before its first nodes are released (JIT plans it here,
    /// setting [`JobState::lp_index`], `lat_abs` and the channel order `tf_rank`; TicTac
    /// orders its transfers).
    fn on_arrival(&mut self, _sim: &mut Sim<'_>, _j: usize) -> Result<(), Error> {
        Ok(())
    }

    /// Whether a new flow waits in its (job, sender, receiver) channel, one transfer at a
    /// time (gRPC's channels), given whether it is in a plan and whether its job has a DAG.
    fn uses_channel(&self, lp: bool, dag: bool) -> bool;

    /// Whether the policy reads every active flow at every event (`sim.active` and
    /// [`RatePolicy::rates`]); an incremental policy returns false, follows the flow changes in
    /// `sim.log` and sets rates with [`RatePolicy::sparse_rates`].
    fn dense(&self) -> bool {
        true
    }

    /// Dense policies: sets `rate[k]` for every active flow `sim.active[k]` (all 0 on entry)
    /// from the free capacity `free` of every resource (decreased by what it hands out), and
    /// the planned part of each in `sim.on_plan[k]`; returns the time of the next event the
    /// policy itself needs (`f64::INFINITY` for none).
    fn rates(&mut self, _sim: &mut Sim<'_>, _rate: &mut [f64], _free: &mut [f64]) -> f64 {
        f64::INFINITY
    }

    /// Incremental policies: reads the flow changes in `sim.log` (cleared after the call),
    /// pushes onto `out` (empty on entry) the rate changes since the last call ([`Change`]:
    /// a flow's new rate, 0 to stop it; a flow joining a rate group; a group's new rate; a
    /// flow or group not reported keeps its rate, a new flow has rate 0), decreasing `free`
    /// by the rates of every flow that moves; returns the time of the next event the policy
    /// itself needs.
    fn sparse_rates(
        &mut self,
        _sim: &mut Sim<'_>,
        _out: &mut Vec<Change>,
        _free: &mut [f64],
    ) -> f64 {
        f64::INFINITY
    }

    /// Incremental policies that advance their own flows (Sincronia and Varys: the engine
    /// sees no rate changes from them): moves every flow from `sim.now` to `t1` (the next
    /// event) and pushes onto `done` the flows that deliver their last bit by then, having
    /// set their bits left to 0 and counted them as sent. The engine then ends them.
    fn advance(&mut self, _sim: &mut Sim<'_>, _t1: f64, _done: &mut Vec<usize>) {}

    /// Adds what the policy itself kept to the run's result (JIT: its LP statistics and
    /// plan peaks), once every job has finished.
    fn report(&mut self, _out: &mut SimResult) {}
}

/// A rate group: flows that always share one rate and one route (fair sharing's route
/// classes), so that a rate change costs O(1), not a pass over the members. Every member
/// has received `served` bits per member since `t0` (plus `rate` since then), counted from
/// the group's last empty moment; a member finishes when that count reaches its target.
///
/// What a rate change reads and writes, in one cache line (fair sharing changes thousands
/// of groups' rates at an event, in no order); the rest is in [`GroupMembers`].
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Group {
    rate: f64,
    t0: f64,
    served: f64,
    /// The first member's target key and size, as its members' heap holds them (`NO_TOP`
    /// for none): what [`Sim::predict_group`] reads (the heap's top, and the flow's size,
    /// were one cache miss each).
    top_key: u64,
    top_size: f64,
    /// Number of members.
    size: u32,
    /// Members of DAG jobs (their usage is recorded per window).
    dag: u32,
    /// The route when it has at most two resources (`near_len` of them; `u32::MAX`: it is
    /// `GroupMembers::path`).
    near: [u32; 2],
    near_len: u32,
    /// Whether the group is in `Sim::dag_groups`.
    in_dag: bool,
}

/// `Group::top_key` of a group without members (the bits of a NaN, which `key` never
/// returns).
const NO_TOP: u64 = u64::MAX;

impl Default for Group {
    fn default() -> Self {
        Self {
            rate: 0.0,
            t0: 0.0,
            served: 0.0,
            top_key: NO_TOP,
            top_size: 0.0,
            size: 0,
            dag: 0,
            near: [0; 2],
            near_len: 0,
            in_dag: false,
        }
    }
}

impl Group {
    /// Bits served per member by `t`.
    fn served_at(&self, t: f64) -> f64 {
        self.served + self.rate * (t - self.t0)
    }

    /// The route, `path` being the members' (kept in [`GroupMembers`]).
    fn route<'a>(&'a self, path: &'a Path) -> &'a [u32] {
        if self.near_len <= 2 {
            &self.near[..self.near_len as usize]
        } else {
            path
        }
    }
}

/// The members of a rate group and its route.
#[derive(Debug, Default)]
struct GroupMembers {
    /// Members by (target key, id, size as bits): the served count at which each has no
    /// bits left.
    heap: BinaryHeap<Reverse<(u64, usize, u64)>>,
    /// The members' route (that of the first member).
    path: Path,
    /// Reference step: the members (ended ones dropped when read).
    all: Vec<usize>,
}

/// The smallest of `xs` (`f64::INFINITY` for none; none is NaN), in eight lanes: the scan
/// of every moving group's next finish at every event was latency-bound one `min` at a
/// time (a sixth of fair sharing's run over the whole FB2010 trace). The same value as a
/// `min` fold, the order aside (a minimum; a zero's sign aside, which no time has). O(n).
fn min_of(xs: &[f64]) -> f64 {
    let mut lanes = [f64::INFINITY; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (m, &x) in lanes.iter_mut().zip(c) {
            if x < *m {
                *m = x;
            }
        }
    }
    let mut m = lanes.iter().fold(f64::INFINITY, |a, &b| a.min(b));
    for &x in chunks.remainder() {
        m = m.min(x);
    }
    m
}

/// Orders non-negative `f64` times in a heap.
fn key(t: f64) -> u64 {
    t.max(0.0).to_bits()
}

pub(super) struct Sim<'a> {
    pub(super) cluster: &'a Cluster,
    pub(super) jobs: &'a [SimJob],
    pub(super) cfg: SimConfig,
    pub(super) st: Vec<JobState>,
    pub(super) flows: Vec<Flow>,
    /// The active flows in release (id) order; kept only for the policies that read it
    /// ([`RatePolicy::dense`]), empty for the others, which follow `log` instead.
    pub(super) active: Vec<usize>,
    /// Whether the policy reads `active` and sets rates densely.
    pub(super) dense: bool,
    /// The flow changes since the policy last set rates (incremental policies only).
    pub(super) log: Vec<FlowEvent>,
    /// Dense policies (and the reference step): the flows with a positive rate in the
    /// current step. Incremental policies: the rate changes of the current step.
    pub(super) moving: Vec<Moving>,
    /// Incremental policies: every flow's rate since its last change.
    lazy: Vec<Lazy>,
    /// Incremental policies: the rate changes of the current step.
    changes: Vec<Change>,
    /// Incremental policies: the rate groups, and those moving (with members and a
    /// positive rate). Fair sharing changes nearly every group's rate at every event, so
    /// their first finishes are scanned, not kept in a heap (a heap filled with stale
    /// predictions: 66 % of a run in `BinaryHeap::pop` on the first 200 FB2010 coflows).
    groups: Vec<Group>,
    members: Vec<GroupMembers>,
    moving_groups: MovingGroups,
    /// Buffer of [`Sim::pop_finished`]: the groups with a member due.
    due_groups: Vec<usize>,
    /// Groups with DAG members and a positive rate.
    dag_groups: IdSet,
    /// Incremental policies: every moving flow's predicted finish (time, id, generation),
    /// stale entries (an older generation) skipped when they surface.
    finish_heap: BinaryHeap<Reverse<(u64, usize, u32)>>,
    /// The same predictions less the time the flow's last 1e-9 of its size takes at its
    /// rate: the reference step ends a flow with no more than that left at any event, so the
    /// flows ending at an event are popped from here (the next event comes from
    /// `finish_heap`).
    due_heap: BinaryHeap<Reverse<(u64, usize, u32)>>,
    /// [`Sim::pop_finished`]'s buffer of entries due by their key but not by the exact test.
    due_aside: Vec<Reverse<(u64, usize, u32)>>,
    /// Incremental policies: per resource, the total rate of the flows crossing it and how
    /// many move (the total reset to 0 when none does), for the utilisation maximum.
    port_rate: Vec<f64>,
    port_moving: Vec<u32>,
    /// The resources whose total rate grew at this event's changes, once each (thousands of
    /// groups' rates change at an event, on a few hundred resources), and per resource
    /// whether it is in.
    rate_up: Vec<u32>,
    port_up: Vec<bool>,
    /// Incremental policies: the moving flows of DAG jobs (their usage is recorded per
    /// window); and, in the reference step, every moving flow.
    dag_moving: IdSet,
    all_moving: IdSet,
    /// Whether incremental policies run the reference step (every moving flow advanced at
    /// every event, as before the lazy bookkeeping; tests compare the two).
    reference: bool,
    /// Reused buffers: the free capacity of every resource, the dense rates, the flows done.
    free: Vec<f64>,
    rate_buf: Vec<f64>,
    done_buf: Vec<usize>,
    ids_buf: Vec<usize>,
    /// Reused: the finish time of every moving flow at its current rate.
    fin_buf: Vec<f64>,
    pub(super) heads: BTreeMap<(usize, usize, usize), usize>,
    pub(super) queues: BTreeMap<(usize, usize, usize), Vec<usize>>,
    pub(super) heap: BinaryHeap<Reverse<(u64, usize, u32)>>,
    pub(super) now: f64,
    /// Whether the run reports the planned transfers' usage apart
    /// ([`RatePolicy::reports_planned`]).
    pub(super) planned: bool,
    /// Bits per (port, window) of JIT's planned (LP) transfers; empty for the baselines.
    pub(super) usage: Usage,
    /// The same over all DAG transfers (every scheduler).
    pub(super) usage_all: Usage,
    pub(super) max_util: f64,
    pub(super) unfinished: usize,
    /// JIT: the planned (pass-1) part of each active flow's rate, as `rates` returned it.
    pub(super) on_plan: Vec<f64>,
    pub(super) lp_bits_on_plan: f64,
    pub(super) lp_bits_catch_up: f64,
    /// The scheduler; taken out while it runs (it receives the engine).
    pub(super) policy: Option<Box<dyn RatePolicy>>,
}

impl Sim<'_> {
    pub(super) fn start_job(&mut self, j: usize) -> Result<(), Error> {
        let arrival = self.jobs[j].arrival;
        self.with_policy(|p, sim| p.on_arrival(sim, j))?;
        let job = &self.jobs[j].job;
        let sources: Vec<TaskId> = job
            .topo_order()
            .iter()
            .copied()
            .filter(|&n| job.preds(n).is_empty())
            .collect();
        if job.is_empty() {
            self.st[j].done_at = arrival;
            self.unfinished -= 1;
        }
        for n in sources {
            self.release(j, n);
        }
        Ok(())
    }

    /// Node `n` of job `j` has all its predecessors done at `self.now`.
    pub(super) fn release(&mut self, j: usize, n: TaskId) {
        let mut work = vec![(j, n)];
        while let Some((j, n)) = work.pop() {
            match self.jobs[j].job.node(n) {
                NodeKind::Compute { load } => {
                    if load <= 0.0 {
                        self.complete(j, n, &mut work);
                    } else {
                        self.heap.push(Reverse((key(self.now + load), j, n.get())));
                    }
                }
                NodeKind::Transfer { size, src, dst } => {
                    if size <= 0.0 {
                        self.complete(j, n, &mut work);
                        continue;
                    }
                    let li = self.st[j].lp_index[n.index()];
                    let lp = (li != NONE).then_some(li as usize);
                    let channel = self
                        .policy
                        .as_ref()
                        .is_none_or(|p| p.uses_channel(lp.is_some(), self.st[j].dag));
                    let lat_abs = self.st[j].lat_abs[n.index()];
                    let id = self.flows.len();
                    let mut path = Path::new();
                    self.cluster.route(src.index(), dst.index(), &mut path);
                    self.flows.push(Flow {
                        job: j,
                        node: n,
                        src: src.index(),
                        dst: dst.index(),
                        path,
                        size,
                        remaining: size,
                        sent: 0.0,
                        lp,
                        lat_abs,
                        channel,
                        head: false,
                    });
                    self.lazy.push(Lazy {
                        group: NONE,
                        ..Lazy::default()
                    });
                    if self.dense {
                        // Ids grow, so `active` stays in release order.
                        self.active.push(id);
                    } else {
                        self.log.push(FlowEvent::Start(id));
                    }
                    if channel {
                        let ch = (j, src.index(), dst.index());
                        if let std::collections::btree_map::Entry::Vacant(e) = self.heads.entry(ch)
                        {
                            e.insert(id);
                            self.flows[id].head = true;
                            if !self.dense {
                                self.log.push(FlowEvent::Head(id));
                            }
                        } else {
                            self.queues.entry(ch).or_default().push(id);
                        }
                    }
                }
            }
        }
    }

    pub(super) fn complete(&mut self, j: usize, n: TaskId, work: &mut Vec<(usize, TaskId)>) {
        let now = self.now;
        let st = &mut self.st[j];
        st.finish[n.index()] = now;
        st.left -= 1;
        if st.left == 0 {
            st.done_at = now;
            self.unfinished -= 1;
        }
        for &s in self.jobs[j].job.succs(n) {
            let st = &mut self.st[j];
            st.pending[s.index()] -= 1;
            if st.pending[s.index()] == 0 {
                work.push((j, s));
            }
        }
    }

    pub(super) fn finish_flow(&mut self, id: usize) {
        let (j, n, channel, src, dst) = {
            let f = &self.flows[id];
            (f.job, f.node, f.channel, f.src, f.dst)
        };
        if !self.dense {
            self.log.push(FlowEvent::End(id));
        }
        if channel {
            let ch = (j, src, dst);
            let next = self.queues.get_mut(&ch).and_then(|q| {
                let st = &self.st[j];
                let flows = &self.flows;
                let k = (0..q.len()).min_by_key(|&k| st.tf_rank[flows[q[k]].node.index()])?;
                Some(q.swap_remove(k))
            });
            match next {
                Some(h) => {
                    self.heads.insert(ch, h);
                    self.flows[h].head = true;
                    if !self.dense {
                        self.log.push(FlowEvent::Head(h));
                    }
                }
                None => {
                    self.heads.remove(&ch);
                }
            }
        }
        let mut work = Vec::new();
        self.complete(j, n, &mut work);
        while let Some((j, n)) = work.pop() {
            self.release(j, n);
        }
    }

    /// Flow `id`'s bits left at `self.now`: under an incremental policy what the lazy step
    /// materialises if its rate changes now (the dense and reference steps keep them).
    pub(super) fn remaining_now(&self, id: usize) -> f64 {
        let f = &self.flows[id];
        let lz = &self.lazy[id];
        if self.dense || self.reference || lz.ended || lz.rate <= 0.0 {
            return f.remaining;
        }
        f.remaining - (lz.rate * (self.now - lz.t0)).min(f.remaining)
    }

    pub(super) fn is_head(&self, id: usize) -> bool {
        self.flows[id].head
    }

    /// Runs `f` on the policy, which is out of `self` meanwhile.
    fn with_policy<T>(
        &mut self,
        f: impl FnOnce(&mut dyn RatePolicy, &mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut p = self.policy.take().ok_or(Error::Stalled {
            time: self.now,
            unfinished: self.unfinished,
        })?;
        let out = f(p.as_mut(), self);
        self.policy = Some(p);
        out
    }

    /// Sets `self.moving` (the flows with a positive rate, for a dense policy in `active`
    /// order) and returns the next policy event time.
    fn rates(&mut self) -> Result<f64, Error> {
        let mut free = std::mem::take(&mut self.free);
        free.clear();
        free.extend_from_slice(self.cluster.capacities());
        let mut moving = std::mem::take(&mut self.moving);
        moving.clear();
        let next = if self.dense {
            let mut rate = std::mem::take(&mut self.rate_buf);
            rate.clear();
            rate.resize(self.active.len(), 0.0);
            self.on_plan.clear();
            self.on_plan.resize(self.active.len(), 0.0);
            let next = self.with_policy(|p, sim| Ok(p.rates(sim, &mut rate, &mut free)));
            for (k, &id) in self.active.iter().enumerate() {
                if rate[k] > 0.0 {
                    moving.push(Moving {
                        id,
                        rate: rate[k],
                        planned: self.on_plan[k],
                    });
                }
            }
            self.rate_buf = rate;
            next
        } else {
            let mut changes = std::mem::take(&mut self.changes);
            changes.clear();
            let next = self.with_policy(|p, sim| Ok(p.sparse_rates(sim, &mut changes, &mut free)));
            self.log.clear();
            for &c in &changes {
                match c {
                    Change::Flow { id, rate } => self.set_rate(id, rate),
                    Change::Join { id, group } => self.join(id, group as usize),
                    Change::Group { group, rate } => self.set_group_rate(group as usize, rate),
                }
            }
            self.changes = changes;
            // The utilisation once every change is in (a flow that stops may come after the
            // one that takes its capacity).
            let cap = self.cluster.capacities();
            for &p in &self.rate_up {
                let p = p as usize;
                self.max_util = self.max_util.max(self.port_rate[p] / cap[p]);
                self.port_up[p] = false;
            }
            self.rate_up.clear();
            if self.reference {
                moving.clear();
                for &id in &self.all_moving.ids {
                    moving.push(Moving {
                        id,
                        rate: self.lazy[id].rate,
                        planned: 0.0,
                    });
                }
            }
            next
        };
        self.free = free;
        self.moving = moving;
        next
    }

    /// Incremental policies: flow `id` joins group `g` (ignored once it ended or if it is in
    /// a group already).
    fn join(&mut self, id: usize, g: usize) {
        let lz = self.lazy[id];
        if lz.ended || lz.group != NONE {
            return;
        }
        // Its own rate stops (materialising its bits left).
        self.set_rate(id, 0.0);
        self.ensure_group(g);
        self.lazy[id].group = g as u32;
        let now = self.now;
        let dag = self.st[self.flows[id].job].dag;
        let grp = &mut self.groups[g];
        let mem = &mut self.members[g];
        if mem.heap.is_empty() && mem.all.is_empty() {
            // Count afresh from an empty group (the served count stays small).
            grp.served = 0.0;
            grp.t0 = now;
            let path = &self.flows[id].path;
            mem.path = path.clone();
            if path.len() <= 2 {
                grp.near_len = path.len() as u32;
                for (n, &r) in grp.near.iter_mut().zip(path) {
                    *n = r;
                }
            } else {
                grp.near_len = u32::MAX;
            }
        }
        let rate = grp.rate;
        if dag {
            grp.dag += 1;
        }
        if self.reference {
            mem.all.push(id);
            self.set_rate_reference(id, rate);
            return;
        }
        let target = grp.served_at(now) + self.flows[id].remaining;
        let size = self.flows[id].size;
        let first = grp.top_key == NO_TOP || key(target) < grp.top_key;
        mem.heap.push(Reverse((key(target), id, size.to_bits())));
        grp.size += 1;
        if first {
            (grp.top_key, grp.top_size) = (key(target), size);
        }
        if first && rate > 0.0 {
            self.predict_group(g);
        }
        if rate > 0.0 {
            self.track_ports(g, true, 0.0, rate, 1);
        }
    }

    /// Makes group `g` exist.
    fn ensure_group(&mut self, g: usize) {
        if self.groups.len() <= g {
            self.groups.resize(g + 1, Group::default());
            self.members.resize_with(g + 1, GroupMembers::default);
        }
    }

    /// Incremental policies: every member of group `g` moves at `rate` from now on.
    fn set_group_rate(&mut self, g: usize, rate: f64) {
        self.ensure_group(g);
        let now = self.now;
        let grp = &mut self.groups[g];
        let old = grp.rate;
        if old.to_bits() == rate.to_bits() {
            return;
        }
        if self.reference {
            grp.rate = rate;
            let mut all = std::mem::take(&mut self.members[g].all);
            all.retain(|&id| !self.lazy[id].ended);
            for &id in &all {
                self.set_rate_reference(id, rate);
            }
            self.members[g].all = all;
            return;
        }
        grp.served = grp.served_at(now);
        grp.t0 = now;
        grp.rate = rate;
        let n = grp.size;
        if rate > 0.0 {
            self.predict_group(g);
        } else {
            self.moving_groups.remove(g);
        }
        if n > 0 {
            self.track_ports(g, true, old, rate, n);
        }
    }

    /// Sets group `g`'s first predicted finish (its smallest target at its rate, which is
    /// positive) and whether it is moving.
    fn predict_group(&mut self, g: usize) {
        let grp = &self.groups[g];
        match (grp.top_key, grp.top_size) {
            (t, size) if t != NO_TOP && grp.rate > 0.0 => {
                let left = (f64::from_bits(t) - grp.served).max(0.0);
                let next = grp.t0 + left / grp.rate;
                let due = next - 1e-9 * size / grp.rate;
                self.moving_groups.set(g, next, due);
            }
            _ => {
                self.moving_groups.remove(g);
            }
        }
    }

    /// Reference step: flow `id` of a group moves at `rate`.
    fn set_rate_reference(&mut self, id: usize, rate: f64) {
        self.lazy[id].rate = rate;
        if rate > 0.0 {
            self.all_moving.insert(id);
        } else {
            self.all_moving.remove(id);
        }
    }

    /// Incremental policies: flow `id` moves at `rate` from now on (ignored once it ended or
    /// when the rate is the same, bit for bit). Materialises its bits left at the old rate,
    /// predicts its finish at the new one.
    fn set_rate(&mut self, id: usize, rate: f64) {
        let lz = self.lazy[id];
        if lz.ended || lz.rate.to_bits() == rate.to_bits() {
            return;
        }
        if self.reference {
            // The reference step advances every moving flow itself.
            self.lazy[id].rate = rate;
            if rate > 0.0 {
                self.all_moving.insert(id);
            } else {
                self.all_moving.remove(id);
            }
            return;
        }
        let now = self.now;
        let f = &mut self.flows[id];
        if lz.rate > 0.0 {
            let moved = (lz.rate * (now - lz.t0)).min(f.remaining);
            f.remaining -= moved;
            f.sent += moved;
        }
        let generation = lz.generation.wrapping_add(1);
        self.lazy[id] = Lazy {
            rate,
            t0: now,
            generation,
            ended: false,
            group: lz.group,
        };
        if rate > 0.0 {
            let fin = now + f.remaining / rate;
            self.finish_heap.push(Reverse((key(fin), id, generation)));
            let due = fin - 1e-9 * f.size / rate;
            self.due_heap.push(Reverse((key(due), id, generation)));
        }
        self.track_port_rates(id, lz.rate, rate);
    }

    /// Incremental policies: flow `id`'s rate went from `old` to `new`: updates the
    /// per-resource totals, the utilisation maximum and the moving DAG flows.
    fn track_port_rates(&mut self, id: usize, old: f64, new: f64) {
        let dag = self.st[self.flows[id].job].dag;
        self.track_ports(id, false, old, new, 1);
        if dag {
            if new > 0.0 {
                self.dag_moving.insert(id);
            } else {
                self.dag_moving.remove(id);
            }
        }
    }

    /// Incremental policies: `n` flows on the route of flow `id` (of group `id` when
    /// `group`) went from rate `old` to `new` each: updates the per-resource totals, the
    /// resources whose total grew and (groups) the moving DAG groups.
    fn track_ports(&mut self, id: usize, group: bool, old: f64, new: f64, n: u32) {
        if self.port_rate.is_empty() {
            let r = self.cluster.capacities().len();
            self.port_rate = vec![0.0; r];
            self.port_moving = vec![0; r];
            self.port_up = vec![false; r];
        }
        let path = if group {
            self.groups[id].route(&self.members[id].path)
        } else {
            &self.flows[id].path
        };
        for &p in path {
            let p = p as usize;
            match (old > 0.0, new > 0.0) {
                (false, true) => self.port_moving[p] += n,
                (true, false) => self.port_moving[p] -= n,
                _ => {}
            }
            self.port_rate[p] = if self.port_moving[p] == 0 {
                0.0
            } else {
                self.port_rate[p] + (new - old) * f64::from(n)
            };
            if new > old && !self.port_up[p] {
                self.port_up[p] = true;
                self.rate_up.push(p as u32);
            }
        }
        if group {
            let grp = &mut self.groups[id];
            let in_dag = grp.dag > 0 && grp.rate > 0.0;
            if in_dag != grp.in_dag {
                grp.in_dag = in_dag;
                if in_dag {
                    self.dag_groups.insert(id);
                } else {
                    self.dag_groups.remove(id);
                }
            }
        }
    }

    /// Incremental policies: the earliest predicted finish of a moving flow (dropping stale
    /// predictions), `f64::INFINITY` for none.
    fn next_finish(&mut self) -> f64 {
        let mut t_next = f64::INFINITY;
        while let Some(&Reverse((t, id, g))) = self.finish_heap.peek() {
            let lz = &self.lazy[id];
            if lz.ended || lz.generation != g {
                self.finish_heap.pop();
                continue;
            }
            t_next = f64::from_bits(t);
            break;
        }
        t_next.min(min_of(&self.moving_groups.next))
    }

    /// Incremental policies: pushes onto `done` every flow that finishes by `t1` (predicted
    /// by then, or within 1e-9 of its size of its last bit then, as the reference step
    /// rounds) and ends it (all its bits sent).
    fn pop_finished(&mut self, t1: f64, done: &mut Vec<usize>) {
        // Entries due by their key but not by the exact test (rounding): set aside and put
        // back after the scan, so that they do not hide a flow behind them that is due (its
        // finish at `t1` is what `next_finish` reported: stopping at the first such entry
        // left that flow running and the clock at `t1` forever).
        let mut aside = std::mem::take(&mut self.due_aside);
        aside.clear();
        while let Some(&Reverse((due, id, g))) = self.due_heap.peek() {
            let lz = self.lazy[id];
            if lz.ended || lz.generation != g {
                self.due_heap.pop();
                continue;
            }
            let f = &self.flows[id];
            let fin = lz.t0 + f.remaining / lz.rate;
            let left = f.remaining - (lz.rate * (t1 - lz.t0)).min(f.remaining);
            if fin > t1 && left > 1e-9 * f.size {
                if f64::from_bits(due) > t1 {
                    break;
                }
                aside.push(Reverse((due, id, g)));
                self.due_heap.pop();
                continue;
            }
            self.due_heap.pop();
            let f = &mut self.flows[id];
            f.sent += f.remaining;
            f.remaining = 0.0;
            self.lazy[id] = Lazy {
                rate: 0.0,
                t0: t1,
                generation: lz.generation.wrapping_add(1),
                ended: true,
                group: lz.group,
            };
            self.track_port_rates(id, lz.rate, 0.0);
            done.push(id);
        }
        self.due_heap.extend(aside.drain(..));
        self.due_aside = aside;
        let mut due = std::mem::take(&mut self.due_groups);
        due.clear();
        // Due by `t1`, or its first member's bits left then within 1e-9 of its size; eight
        // at a time (a few are due among thousands).
        let (ids, dues) = (&self.moving_groups.ids, &self.moving_groups.due);
        for (c, chunk) in dues.chunks(8).enumerate() {
            if chunk.iter().fold(false, |any, &d| any | (d <= t1)) {
                for (k, &d) in chunk.iter().enumerate() {
                    if d <= t1 {
                        due.push(ids[8 * c + k]);
                    }
                }
            }
        }
        for &gi in &due {
            let served = self.groups[gi].served_at(t1);
            let mut ended = 0u32;
            let mut dag_ended = 0u32;
            // The first member finishes (its prediction is due, or it is within rounding);
            // the next ones as they are due by `t1` or within rounding then.
            let mut k = 0;
            while let Some(&Reverse((target, id, size))) = self.members[gi].heap.peek() {
                let grp = &self.groups[gi];
                let left = (f64::from_bits(target) - served).max(0.0);
                let due = grp.t0 + (f64::from_bits(target) - grp.served).max(0.0) / grp.rate;
                if k > 0 && due > t1 && left > 1e-9 * f64::from_bits(size) {
                    break;
                }
                k += 1;
                self.members[gi].heap.pop();
                let f = &mut self.flows[id];
                f.sent += f.remaining;
                f.remaining = 0.0;
                let lz = &mut self.lazy[id];
                lz.ended = true;
                lz.generation = lz.generation.wrapping_add(1);
                ended += 1;
                if self.st[f.job].dag {
                    dag_ended += 1;
                }
                done.push(id);
            }
            let grp = &mut self.groups[gi];
            (grp.top_key, grp.top_size) = self.members[gi]
                .heap
                .peek()
                .map_or((NO_TOP, 0.0), |&Reverse((t, _, size))| {
                    (t, f64::from_bits(size))
                });
            grp.size -= ended;
            let rate = self.groups[gi].rate;
            self.groups[gi].dag -= dag_ended;
            self.track_ports(gi, true, rate, 0.0, ended);
            self.predict_group(gi);
        }
        self.due_groups = due;
    }

    /// Incremental policies: records the usage of the moving DAG flows over `[t0, t1]` (the
    /// others add to no window; their utilisation is tracked per rate change).
    fn record_lazy_usage(&mut self, t0: f64, t1: f64) {
        if self.dag_moving.ids.is_empty() && self.dag_groups.ids.is_empty() {
            return;
        }
        if !self.dag_groups.ids.is_empty() {
            // Per resource: the rate of the moving DAG flows (none of an LP's), grouped or not.
            let n = self.cluster.capacities().len();
            let mut port = vec![(0.0f64, 0.0f64); n];
            for &id in &self.dag_moving.ids {
                let r = self.lazy[id].rate;
                for &p in &self.flows[id].path {
                    port[p as usize].1 += r;
                }
            }
            for &g in &self.dag_groups.ids {
                let grp = &self.groups[g];
                let r = grp.rate * f64::from(grp.dag);
                for &p in grp.route(&self.members[g].path) {
                    port[p as usize].1 += r;
                }
            }
            self.record_windows(&port, t0, t1);
            return;
        }
        let mut ids = std::mem::take(&mut self.ids_buf);
        let mut rates = std::mem::take(&mut self.rate_buf);
        ids.clear();
        rates.clear();
        for &id in &self.dag_moving.ids {
            ids.push(id);
            rates.push(self.lazy[id].rate);
        }
        std::mem::swap(&mut self.active, &mut ids);
        self.record_usage(&rates, t0, t1);
        std::mem::swap(&mut self.active, &mut ids);
        self.ids_buf = ids;
        self.rate_buf = rates;
    }

    /// Records the current step's usage over `[t0, t1]`: `record_usage` reads `active` and a
    /// rate per entry, so it is handed the moving flows alone (the others add nothing).
    fn record_moving_usage(&mut self, t0: f64, t1: f64) {
        let mut ids = std::mem::take(&mut self.ids_buf);
        let mut rates = std::mem::take(&mut self.rate_buf);
        ids.clear();
        rates.clear();
        for m in &self.moving {
            ids.push(m.id);
            rates.push(m.rate);
        }
        std::mem::swap(&mut self.active, &mut ids);
        self.record_usage(&rates, t0, t1);
        std::mem::swap(&mut self.active, &mut ids);
        self.ids_buf = ids;
        self.rate_buf = rates;
    }
}

/// Runs `jobs` (each validated against `cluster`, and `cfg` by the caller) under `cfg` with
/// rate policy `policy` until every job finishes. With `reference`, incremental
/// policies take the old recompute-everything step (every moving flow's bits and finish time
/// updated at every event): the oracle of the lazy step.
pub(super) fn run(
    cluster: &Cluster,
    jobs: &[SimJob],
    cfg: &SimConfig,
    policy: Box<dyn RatePolicy>,
    reference: bool,
) -> Result<SimResult, Error> {
    let planned = policy.reports_planned();
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| jobs[a].arrival.total_cmp(&jobs[b].arrival).then(a.cmp(&b)));
    let mut fifo = vec![0; jobs.len()];
    for (pos, &j) in order.iter().enumerate() {
        fifo[j] = pos;
    }
    let mut rng = fabric_model::rng::seeded(cfg.seed);
    let mut st = Vec::with_capacity(jobs.len());
    for (j, sj) in jobs.iter().enumerate() {
        let job = &sj.job;
        let n = job.len();
        let mut tf_rank = vec![NONE; n];
        let mut perm: Vec<u32> = (0..job.transfers().len() as u32).collect();
        perm.shuffle(&mut rng);
        for (k, &t) in job.transfers().iter().enumerate() {
            tf_rank[t.index()] = perm[k];
        }
        st.push(JobState {
            pending: (0..n)
                .map(|i| job.preds(TaskId::new(i as u32)).len() as u32)
                .collect(),
            finish: vec![f64::NAN; n],
            left: n,
            done_at: f64::NAN,
            tf_rank,
            prio: vec![NONE; n],
            lp_index: vec![NONE; n],
            lat_abs: vec![f64::INFINITY; n],
            fifo: fifo[j],
            dag: job.has_compute(),
        });
    }
    let mut sim = Sim {
        cluster,
        jobs,
        cfg: *cfg,
        st,
        flows: Vec::new(),
        active: Vec::new(),
        dense: policy.dense(),
        log: Vec::new(),
        moving: Vec::new(),
        lazy: Vec::new(),
        changes: Vec::new(),
        groups: Vec::new(),
        members: Vec::new(),
        moving_groups: MovingGroups::default(),
        due_groups: Vec::new(),
        dag_groups: IdSet::default(),
        finish_heap: BinaryHeap::new(),
        due_heap: BinaryHeap::new(),
        due_aside: Vec::new(),
        port_rate: Vec::new(),
        port_moving: Vec::new(),
        rate_up: Vec::new(),
        port_up: Vec::new(),
        dag_moving: IdSet::default(),
        all_moving: IdSet::default(),
        reference,
        free: Vec::new(),
        rate_buf: Vec::new(),
        done_buf: Vec::new(),
        ids_buf: Vec::new(),
        fin_buf: Vec::new(),
        heads: BTreeMap::new(),
        queues: BTreeMap::new(),
        heap: BinaryHeap::new(),
        now: 0.0,
        planned,
        usage: Usage::default(),
        usage_all: Usage::default(),
        max_util: 0.0,
        unfinished: jobs.len(),
        on_plan: Vec::new(),
        lp_bits_on_plan: 0.0,
        lp_bits_catch_up: 0.0,
        policy: Some(policy),
    };
    let mut next_job = 0;
    let mut events = 0usize;
    loop {
        events += 1;
        while next_job < order.len() && jobs[order[next_job]].arrival <= sim.now {
            sim.start_job(order[next_job])?;
            next_job += 1;
        }
        while let Some(&Reverse((t, j, n))) = sim.heap.peek() {
            if f64::from_bits(t) > sim.now {
                break;
            }
            sim.heap.pop();
            let mut work = Vec::new();
            sim.complete(j, TaskId::new(n), &mut work);
            while let Some((j, n)) = work.pop() {
                sim.release(j, n);
            }
        }
        if sim.unfinished == 0 && next_job == order.len() {
            break;
        }
        let policy_next = sim.rates()?;
        let mut t_next = policy_next;
        if let Some(&j) = order.get(next_job) {
            t_next = t_next.min(jobs[j].arrival);
        }
        if let Some(&Reverse((t, _, _))) = sim.heap.peek() {
            t_next = t_next.min(f64::from_bits(t));
        }
        let lazy = !sim.dense && !sim.reference;
        // Each moving flow's finish time at its rate, kept for the step below (the same
        // expression, so the same value, as it computed again before).
        let mut fin = std::mem::take(&mut sim.fin_buf);
        fin.clear();
        if lazy {
            t_next = t_next.min(sim.next_finish());
        } else {
            for m in &sim.moving {
                let t = sim.now + sim.flows[m.id].remaining / m.rate;
                fin.push(t);
                t_next = t_next.min(t);
            }
        }
        if !t_next.is_finite() {
            return Err(Error::Stalled {
                time: sim.now,
                unfinished: sim.unfinished,
            });
        }
        let t_next = t_next.max(sim.now);
        let dt = t_next - sim.now;
        let mut done = std::mem::take(&mut sim.done_buf);
        done.clear();
        if lazy {
            sim.record_lazy_usage(sim.now, t_next);
            sim.pop_finished(t_next, &mut done);
            sim.with_policy(|p, sim| {
                p.advance(sim, t_next, &mut done);
                Ok(())
            })?;
        } else {
            sim.record_moving_usage(sim.now, t_next);
            for (m, &t) in sim.moving.iter().zip(&fin) {
                let f = &mut sim.flows[m.id];
                let rate = m.rate;
                let moved = (rate * dt).min(f.remaining);
                let finishing = t <= t_next || f.remaining - moved <= 1e-9 * f.size;
                let delta = if finishing { f.remaining } else { moved };
                if f.lp.is_some() {
                    // Split what moved between the planned rate and the catch-up on top of it.
                    let planned = m.planned.min(rate);
                    let plan_part = delta * planned / rate;
                    sim.lp_bits_on_plan += plan_part;
                    sim.lp_bits_catch_up += delta - plan_part;
                }
                f.sent += delta;
                f.remaining = if finishing { 0.0 } else { f.remaining - moved };
                if finishing {
                    done.push(m.id);
                }
            }
            if !sim.dense {
                // The reference step: the ended flows leave the moving set.
                for &id in &done {
                    sim.lazy[id].ended = true;
                    sim.all_moving.remove(id);
                }
            }
        }
        sim.fin_buf = fin;
        sim.now = t_next;
        if !done.is_empty() {
            if sim.dense {
                // Finished flows have nothing left (one pass, not one per finished flow).
                let flows = &sim.flows;
                sim.active.retain(|&id| flows[id].remaining > 0.0);
            } else {
                // In release order, as a dense policy's `active` lists them.
                done.sort_unstable();
            }
            for &id in &done {
                sim.finish_flow(id);
            }
        }
        sim.done_buf = done;
    }
    let mut max_err: f64 = 0.0;
    for f in &sim.flows {
        max_err = max_err.max((f.sent - f.size).abs() / f.size.max(1.0));
    }
    let remaining = sim.remaining_ratios(&sim.usage_all)?;
    let remaining_planned = if sim.planned {
        sim.remaining_ratios(&sim.usage)?
    } else {
        remaining.clone()
    };
    let mut transfer_times = Vec::new();
    let outcomes = jobs
        .iter()
        .enumerate()
        .map(|(j, sj)| {
            let job = &sj.job;
            let s = &sim.st[j];
            let mut waits = Vec::new();
            let mut times = Vec::new();
            for &t in job.transfers() {
                let mut first: Option<f64> = None;
                for &c in job.succs(t) {
                    if let NodeKind::Compute { load } = job.node(c) {
                        let start = s.finish[c.index()] - load;
                        first = Some(first.map_or(start, |x: f64| x.min(start)));
                    }
                }
                let record = TransferTimes {
                    task: t,
                    arrived: s.finish[t.index()],
                    used: first,
                };
                waits.extend(record.wait());
                if cfg.transfer_times {
                    times.push(record);
                }
            }
            if cfg.transfer_times {
                transfer_times.push(times);
            }
            JobOutcome {
                kind: sj.kind,
                arrival: sj.arrival,
                finish: s.done_at,
                alone: lat::estimate(job, cluster, LatMethod::BackwardCpm).makespan(),
                mean_wait: (!waits.is_empty())
                    .then(|| waits.iter().sum::<f64>() / waits.len() as f64),
            }
        })
        .collect();
    let mut result = SimResult {
        jobs: outcomes,
        remaining,
        remaining_planned,
        lp: LpStats::default(),
        max_port_utilisation: sim.max_util,
        lp_bits_on_plan: sim.lp_bits_on_plan,
        lp_bits_catch_up: sim.lp_bits_catch_up,
        lp_peaks: Vec::new(),
        plans: Vec::new(),
        max_conservation_error: max_err,
        events,
        transfer_times,
    };
    if let Some(p) = sim.policy.as_mut() {
        p.report(&mut result);
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::min_of;
    use proptest::prelude::*;

    proptest! {
        /// The eight-lane minimum is the `min` fold's, bit for bit.
        #[test]
        fn min_of_is_the_fold(xs in proptest::collection::vec(0.0f64..1e6, 0..70)) {
            let fold = xs.iter().fold(f64::INFINITY, |a, &b| a.min(b));
            prop_assert_eq!(min_of(&xs).to_bits(), fold.to_bits());
        }
    }
}
