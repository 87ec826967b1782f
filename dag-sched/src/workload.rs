//! Job sets for the simulator: DL training iterations in the parameter-server pattern
//! (each tensor pulled from its server before the layer that reads it, forward, loss, backward in
//! reverse), file-transfer jobs, and Poisson arrivals (paper §4.1).

use fabric_model::rng::SeededRng;
use fabric_model::{Bytes, Nanos};
use rand::Rng;
use rand::seq::SliceRandom;

use crate::Error;
use crate::cluster::{Cluster, Machine, MachineId};
use crate::job::{Job, JobBuilder, TaskId};
use crate::models::Model;

/// How a model's layers become compute loads: a layer of `M` multiply-accumulates per image
/// runs forward for `2·M·batch / flops + op_overhead` seconds and backward for
/// `backward_factor · 2·M·batch / flops + op_overhead`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ComputeModel {
    /// Images per iteration.
    pub batch: u32,
    /// Effective device throughput in FLOP/s (2 FLOPs per multiply-accumulate).
    pub flops: f64,
    /// Fixed cost of every compute task, so tiny layers do not take zero time.
    pub op_overhead: Nanos,
    /// Backward time as a multiple of forward time.
    pub backward_factor: f64,
    /// Bytes per parameter on the wire (4 for fp32).
    pub bytes_per_param: u32,
}

impl Default for ComputeModel {
    /// Batch 32 on a 2019 GPU at an effective 1 TFLOP/s, 30 µs per op, backward 2× forward, fp32.
    fn default() -> Self {
        Self {
            batch: 32,
            flops: 1e12,
            op_overhead: Nanos::from_micros(30),
            backward_factor: 2.0,
            bytes_per_param: 4,
        }
    }
}

impl ComputeModel {
    /// This model with `batch` images per iteration.
    #[must_use]
    pub fn with_batch(mut self, batch: u32) -> Self {
        self.batch = batch;
        self
    }

    /// This model with an effective throughput of `flops` FLOP/s.
    #[must_use]
    pub fn with_flops(mut self, flops: f64) -> Self {
        self.flops = flops;
        self
    }

    /// This model with a fixed cost of `overhead` per compute task.
    #[must_use]
    pub fn with_op_overhead(mut self, overhead: Nanos) -> Self {
        self.op_overhead = overhead;
        self
    }

    /// This model with backward `factor` times as long as forward.
    #[must_use]
    pub fn with_backward_factor(mut self, factor: f64) -> Self {
        self.backward_factor = factor;
        self
    }

    /// This model with `bytes` bytes per parameter on the wire.
    #[must_use]
    pub fn with_bytes_per_param(mut self, bytes: u32) -> Self {
        self.bytes_per_param = bytes;
        self
    }

    /// Bits of a tensor of `numel` parameters.
    fn tensor_bits(&self, numel: u64) -> f64 {
        numel as f64 * f64::from(self.bytes_per_param) * 8.0
    }
}

/// Which transfers of a parameter-server iteration a job DAG holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PsTraffic {
    /// Only the parameter pulls (PS → worker), the roots of the DAG. This is the paper's job:
    /// "from our perspective network transfers have no predecessors" (§1.1), Inception has
    /// "190 transfers" (one per tensor, §1.1 Fig. 2), and "a job's transfers almost all start
    /// at the same time" (§3.4), as TicTac's recv ops.
    Pulls,
    /// Pulls, and a gradient push (worker → PS) after each layer's backward task.
    PullsAndPushes,
}

/// One training iteration of `model` on `worker` with parameters spread round-robin over
/// `ps` (tensor `v` on `ps[v mod P]`): pull every tensor (PS → worker), forward per layer
/// (after its inputs and its tensors), a loss task, backward per layer in reverse, push every
/// gradient (worker → PS) after its layer's backward. The job ends when the last push lands.
/// [`ps_iteration`] with [`PsTraffic::PullsAndPushes`].
///
/// Transfers are added pulls first in forward order, so the topological order used by the
/// α-selection is forward order for pulls, then pushes as backward releases them.
///
/// # Errors
/// [`Error::InvalidParameter`] when `ps` is empty; the validation errors of
/// [`JobBuilder::build`] (unknown machine, a worker that is also a PS).
///
/// # Complexity
/// O(layers + tensors) nodes and edges.
pub fn ps_job(
    model: Model,
    worker: MachineId,
    ps: &[MachineId],
    compute: &ComputeModel,
    cluster: &Cluster,
) -> Result<Job, Error> {
    ps_iteration(
        model,
        worker,
        ps,
        compute,
        PsTraffic::PullsAndPushes,
        cluster,
    )
}

/// One training iteration as in [`ps_job`], with the gradient pushes only when `traffic` is
/// [`PsTraffic::PullsAndPushes`]; with [`PsTraffic::Pulls`] the job ends with the backward
/// task of the first layer.
///
/// # Errors
/// As [`ps_job`].
///
/// # Complexity
/// O(layers + tensors) nodes and edges.
pub fn ps_iteration(
    model: Model,
    worker: MachineId,
    ps: &[MachineId],
    compute: &ComputeModel,
    traffic: PsTraffic,
    cluster: &Cluster,
) -> Result<Job, Error> {
    if ps.is_empty() {
        return Err(Error::InvalidParameter {
            name: "parameter servers",
            value: 0.0,
            reason: "at least one",
        });
    }
    let layers = model.layers();
    let mut b = JobBuilder::new();
    let mut pulls: Vec<Vec<TaskId>> = Vec::with_capacity(layers.len());
    let mut v = 0usize;
    for l in &layers {
        let mut ids = Vec::with_capacity(l.params.len());
        for (_, numel) in &l.params {
            let bits = compute.tensor_bits(*numel);
            ids.push(b.transfer_bits(bits, ps[v % ps.len()], worker));
            v += 1;
        }
        pulls.push(ids);
    }
    let overhead = compute.op_overhead.as_secs_f64();
    let fwd_time =
        |macs: u64| 2.0 * macs as f64 * f64::from(compute.batch) / compute.flops + overhead;
    let fwd: Vec<TaskId> = layers
        .iter()
        .map(|l| b.compute_secs(fwd_time(l.macs)))
        .collect();
    let mut consumed = vec![false; layers.len()];
    for (i, l) in layers.iter().enumerate() {
        for &j in &l.inputs {
            b.edge(fwd[j], fwd[i]);
            consumed[j] = true;
        }
        for &t in &pulls[i] {
            b.edge(t, fwd[i]);
        }
    }
    let loss = b.compute_secs(overhead);
    for (i, &f) in fwd.iter().enumerate() {
        if !consumed[i] {
            b.edge(f, loss);
        }
    }
    // Backward in reverse: bwd[i] after the backward of every layer reading i (or the loss).
    let mut bwd = vec![TaskId::new(0); layers.len()];
    for i in (0..layers.len()).rev() {
        bwd[i] = b.compute_secs(
            compute.backward_factor * (fwd_time(layers[i].macs) - overhead) + overhead,
        );
    }
    for (i, l) in layers.iter().enumerate() {
        if !consumed[i] {
            b.edge(loss, bwd[i]);
        }
        for &j in &l.inputs {
            b.edge(bwd[i], bwd[j]);
        }
    }
    if traffic == PsTraffic::Pulls {
        return b.build(cluster);
    }
    let mut v = 0usize;
    let mut push_ids = vec![Vec::new(); layers.len()];
    for (i, l) in layers.iter().enumerate() {
        for _ in &l.params {
            push_ids[i].push(v);
            v += 1;
        }
    }
    for i in (0..layers.len()).rev() {
        for (k, (_, numel)) in layers[i].params.iter().enumerate() {
            let bits = compute.tensor_bits(*numel);
            let t = b.transfer_bits(bits, worker, ps[push_ids[i][k] % ps.len()]);
            b.edge(bwd[i], t);
        }
    }
    b.build(cluster)
}

/// A job of one transfer and no compute (a file transfer, background traffic).
///
/// # Errors
/// The validation errors of [`JobBuilder::build`].
pub fn file_job(
    size: Bytes,
    src: MachineId,
    dst: MachineId,
    cluster: &Cluster,
) -> Result<Job, Error> {
    file_job_bits(size.bits_f64(), src, dst, cluster)
}

/// [`file_job`] of `size` bits.
pub(crate) fn file_job_bits(
    size: f64,
    src: MachineId,
    dst: MachineId,
    cluster: &Cluster,
) -> Result<Job, Error> {
    let mut b = JobBuilder::new();
    b.transfer_bits(size, src, dst);
    b.build(cluster)
}

/// `k` distinct machines by a partial Fisher–Yates shuffle.
fn pick_distinct(rng: &mut SeededRng, machines: &[MachineId], k: usize) -> Vec<MachineId> {
    let mut v = machines.to_vec();
    for i in 0..k.min(v.len()) {
        let j = rng.random_range(i..v.len());
        v.swap(i, j);
    }
    v.truncate(k);
    v
}

/// What a simulated job is, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JobKind {
    /// A DL training iteration of one of the paper's models, with its DAG.
    Dag(Model),
    /// A job with a DAG of the user's own (built with [`JobBuilder`]), not one of the paper's
    /// models: scheduled and measured as a DAG job, reported without a model.
    CustomDag,
    /// A file transfer without DAG (background).
    File,
    /// A coflow from a trace (no DAG; background).
    Coflow,
}

impl JobKind {
    /// Whether the job is a DAG job ([`JobKind::Dag`] or [`JobKind::CustomDag`]).
    #[must_use]
    pub fn is_dag(&self) -> bool {
        matches!(self, Self::Dag(_) | Self::CustomDag)
    }

    /// The paper's model the job runs, if it is one.
    #[must_use]
    pub fn model(&self) -> Option<Model> {
        match self {
            Self::Dag(m) => Some(*m),
            Self::CustomDag | Self::File | Self::Coflow => None,
        }
    }
}

/// A job and when it arrives.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SimJob {
    /// Arrival time, seconds (`f64`: Poisson arrivals are not whole nanoseconds).
    pub arrival: f64,
    /// The job.
    pub job: Job,
    /// Its kind.
    pub kind: JobKind,
}

impl SimJob {
    /// `job` of `kind`, arriving at `arrival`.
    #[must_use]
    pub fn new(arrival: Nanos, job: Job, kind: JobKind) -> Self {
        Self::at_secs(arrival.as_secs_f64(), job, kind)
    }

    /// `job` of `kind`, arriving at `arrival` seconds.
    #[must_use]
    pub fn at_secs(arrival: f64, job: Job, kind: JobKind) -> Self {
        Self { arrival, job, kind }
    }
}

/// The offered load of `jobs` on the busiest link of `cluster`: for every link (on the big
/// switch each machine's egress and ingress port; on a fabric every directed link of the
/// routes), the bits of the transfers routed over it over its capacity times the span of the
/// arrivals (last − first), and the largest of these. At 1 a link would be busy all through
/// the arrivals with nothing wasted; above it, no scheduler keeps up and the jobs' completion
/// times measure the backlog. A same-port transfer (`JobBuilder::allow_same_port`) crosses
/// its machine's egress and ingress. `Ok(None)` when the jobs carry no bits or arrive at one
/// instant.
///
/// # Errors
/// [`Error::UnknownMachine`] for a transfer naming a machine `cluster` does not have (a job
/// built for another cluster).
///
/// # Complexity
/// O(Σ transfers × route length) time, O(links) space.
pub fn busiest_link_load(cluster: &Cluster, jobs: &[SimJob]) -> Result<Option<f64>, Error> {
    let n = cluster.len();
    let mut bits = vec![0.0f64; cluster.capacities().len()];
    let mut route: Vec<u32> = Vec::new();
    for sj in jobs {
        for &t in sj.job.transfers() {
            let crate::job::NodeKind::Transfer { size, src, dst } = sj.job.node(t) else {
                continue;
            };
            for machine in [src, dst] {
                if machine.index() >= n {
                    return Err(Error::UnknownMachine {
                        node: t,
                        machine,
                        machines: n,
                    });
                }
            }
            route.clear();
            cluster.route(src.index(), dst.index(), &mut route);
            for &r in &route {
                bits[r as usize] += size;
            }
        }
    }
    let first = jobs.iter().map(|j| j.arrival).fold(f64::INFINITY, f64::min);
    let last = jobs
        .iter()
        .map(|j| j.arrival)
        .fold(f64::NEG_INFINITY, f64::max);
    let span = last - first;
    let busiest = bits
        .iter()
        .zip(cluster.capacities())
        .map(|(b, c)| b / c)
        .fold(0.0f64, f64::max);
    Ok((span > 0.0 && busiest > 0.0).then(|| busiest / span))
}

/// The paper's job mix (§4.1): [`WorkloadConfig::default`] is 50 DAG jobs over the five models,
/// 10 files of 5–40 Gb, a Poisson arrival every second on average, two parameter servers per
/// job, pulls only, seed 1; the `with_*` setters change it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WorkloadConfig {
    /// Number of DAG jobs (spread over `models` in equal shares).
    pub dag_jobs: usize,
    /// Number of file-transfer jobs.
    pub file_jobs: usize,
    /// The models of the DAG jobs.
    pub models: Vec<Model>,
    /// Mean time between arrivals of the Poisson process, seconds (`f64`:
    /// [`WorkloadConfig::at_load`] sets it from a load, rarely to whole nanoseconds).
    pub mean_interarrival: f64,
    /// Parameter servers per DAG job.
    pub ps_per_job: usize,
    /// Which transfers a DAG job holds (the paper's: [`PsTraffic::Pulls`]).
    pub traffic: PsTraffic,
    /// Compute-time model.
    pub compute: ComputeModel,
    /// File sizes to pick from; the paper's {5, 10, 20, 30, 40} Gb by default.
    pub file_sizes: Vec<Bytes>,
    /// Seed of the generator.
    pub seed: u64,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        Self {
            dag_jobs: 50,
            file_jobs: 10,
            models: Model::PAPER.to_vec(),
            mean_interarrival: 1.0,
            ps_per_job: 2,
            traffic: PsTraffic::Pulls,
            compute: ComputeModel::default(),
            file_sizes: [5, 10, 20, 30, 40]
                .map(|gb| Bytes::new(gb * 125_000_000))
                .to_vec(),
            seed: 1,
        }
    }
}

impl WorkloadConfig {
    /// This mix with `n` DAG jobs.
    #[must_use]
    pub fn with_dag_jobs(mut self, n: usize) -> Self {
        self.dag_jobs = n;
        self
    }

    /// This mix with `n` file jobs.
    #[must_use]
    pub fn with_file_jobs(mut self, n: usize) -> Self {
        self.file_jobs = n;
        self
    }

    /// This mix with the DAG jobs spread over `models`.
    #[must_use]
    pub fn with_models(mut self, models: Vec<Model>) -> Self {
        self.models = models;
        self
    }

    /// This mix with a mean interarrival time of `secs` seconds.
    #[must_use]
    pub fn with_mean_interarrival_secs(mut self, secs: f64) -> Self {
        self.mean_interarrival = secs;
        self
    }

    /// This mix with `n` parameter servers per DAG job.
    #[must_use]
    pub fn with_ps_per_job(mut self, n: usize) -> Self {
        self.ps_per_job = n;
        self
    }

    /// This mix with DAG jobs holding `traffic`.
    #[must_use]
    pub fn with_traffic(mut self, traffic: PsTraffic) -> Self {
        self.traffic = traffic;
        self
    }

    /// This mix with compute model `compute`.
    #[must_use]
    pub fn with_compute(mut self, compute: ComputeModel) -> Self {
        self.compute = compute;
        self
    }

    /// This mix with file sizes drawn from `sizes`.
    #[must_use]
    pub fn with_file_sizes(mut self, sizes: Vec<Bytes>) -> Self {
        self.file_sizes = sizes;
        self
    }

    /// This mix with generator seed `seed` (ChaCha8, [`fabric_model::rng::seeded`]).
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Bits one DAG job of `model` moves: every parameter tensor pulled once (and pushed once
    /// with [`PsTraffic::PullsAndPushes`]).
    ///
    /// # Complexity
    /// O(layers of the model).
    #[must_use]
    pub fn model_bits(&self, model: Model) -> f64 {
        let params: u64 = model
            .layers()
            .iter()
            .flat_map(|l| l.params.iter().map(|(_, n)| *n))
            .sum();
        let per_direction = self.compute.tensor_bits(params);
        match self.traffic {
            PsTraffic::Pulls => per_direction,
            PsTraffic::PullsAndPushes => 2.0 * per_direction,
        }
    }

    /// Mean bits of one job of the mix: the DAG jobs as [`generate`] assigns their models
    /// (job `i` runs `models[i mod len]`) and the file jobs at the mean of `file_sizes` (each
    /// size is drawn uniformly). `0` for an empty mix.
    ///
    /// # Complexity
    /// O(dag_jobs + layers of the models + file sizes).
    #[must_use]
    pub fn mean_job_bits(&self) -> f64 {
        let jobs = self.dag_jobs + self.file_jobs;
        if jobs == 0 {
            return 0.0;
        }
        let per_model: Vec<f64> = self.models.iter().map(|&m| self.model_bits(m)).collect();
        let dag: f64 = (0..self.dag_jobs)
            .map(|i| {
                per_model
                    .get(i % per_model.len().max(1))
                    .copied()
                    .unwrap_or(0.0)
            })
            .sum();
        let file_mean = if self.file_sizes.is_empty() {
            0.0
        } else {
            self.file_sizes.iter().map(|b| b.bits_f64()).sum::<f64>() / self.file_sizes.len() as f64
        };
        (dag + self.file_jobs as f64 * file_mean) / jobs as f64
    }

    /// The offered load of the mix on `cluster`: the bits per second the Poisson arrivals
    /// offer, `mean_job_bits / mean_interarrival`, over the aggregate ingress capacity
    /// `Σ_m ingress(m)`. Every bit crosses one egress and one ingress port, and [`generate`]
    /// draws both ends uniformly at random, so on a uniform cluster this is also every
    /// single port's expected utilisation (egress or ingress) in steady state; at load ρ
    /// the network alone would be busy a fraction ρ of the time if no scheduler wasted
    /// capacity. Not a measurement: a run of finitely many jobs starts empty and ends
    /// draining.
    ///
    /// # Complexity
    /// As [`WorkloadConfig::mean_job_bits`].
    #[must_use]
    pub fn offered_load(&self, cluster: &Cluster) -> f64 {
        let capacity: f64 = cluster.machines().iter().map(Machine::ingress_f64).sum();
        self.mean_job_bits() / self.mean_interarrival / capacity
    }

    /// This mix with `mean_interarrival` set so that [`WorkloadConfig::offered_load`] on
    /// `cluster` is `load` (`reproduce dag-load` sweeps 0.3–0.9).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`load`) unless `load` is positive and finite, or when the
    /// mix moves no bits (then no rate gives a load).
    pub fn at_load(&self, cluster: &Cluster, load: f64) -> Result<Self, Error> {
        if !(load.is_finite() && load > 0.0) {
            return Err(Error::InvalidParameter {
                name: "load",
                value: load,
                reason: "must be positive and finite",
            });
        }
        let capacity: f64 = cluster.machines().iter().map(Machine::ingress_f64).sum();
        let bits = self.mean_job_bits();
        if !(bits > 0.0 && capacity > 0.0) {
            return Err(Error::InvalidParameter {
                name: "load",
                value: load,
                reason: "the mix moves no bits, so no arrival rate gives a load",
            });
        }
        Ok(Self {
            mean_interarrival: bits / (load * capacity),
            ..self.clone()
        })
    }
}

/// Draws the job set: kinds shuffled, Poisson arrivals, machines chosen at random (a DAG job's
/// worker and parameter servers are distinct machines; a file job's ends are distinct).
///
/// # Errors
/// [`Error::InvalidParameter`] for an empty model list with DAG jobs, a cluster too small for
/// one job, a non-positive interarrival time or an empty size list with file jobs.
///
/// # Complexity
/// O(jobs · nodes per job).
pub fn generate(cluster: &Cluster, cfg: &WorkloadConfig) -> Result<Vec<SimJob>, Error> {
    if cfg.dag_jobs > 0 && cfg.models.is_empty() {
        return Err(Error::InvalidParameter {
            name: "models",
            value: 0.0,
            reason: "at least one model for DAG jobs",
        });
    }
    if cfg.file_jobs > 0 && cfg.file_sizes.is_empty() {
        return Err(Error::InvalidParameter {
            name: "file_sizes",
            value: 0.0,
            reason: "at least one size for file jobs",
        });
    }
    if cluster.len() < cfg.ps_per_job + 1 || cluster.len() < 2 {
        return Err(Error::InvalidParameter {
            name: "machines",
            value: cluster.len() as f64,
            reason: "need more machines than parameter servers per job, and at least 2",
        });
    }
    if !(cfg.mean_interarrival.is_finite() && cfg.mean_interarrival > 0.0) {
        return Err(Error::InvalidParameter {
            name: "mean_interarrival",
            value: cfg.mean_interarrival,
            reason: "must be positive and finite",
        });
    }
    let mut rng = fabric_model::rng::seeded(cfg.seed);
    let mut kinds: Vec<JobKind> = (0..cfg.dag_jobs)
        .map(|i| JobKind::Dag(cfg.models[i % cfg.models.len().max(1)]))
        .chain((0..cfg.file_jobs).map(|_| JobKind::File))
        .collect();
    kinds.shuffle(&mut rng);
    let mut t = 0.0;
    let mut out = Vec::with_capacity(kinds.len());
    let machines: Vec<MachineId> = (0..cluster.len() as u32).map(MachineId::new).collect();
    for kind in kinds {
        let u: f64 = rng.random::<f64>();
        t += -cfg.mean_interarrival * (1.0 - u).ln();
        let job = match kind {
            JobKind::Dag(model) => {
                let chosen: Vec<MachineId> = pick_distinct(&mut rng, &machines, cfg.ps_per_job + 1);
                ps_iteration(
                    model,
                    chosen[0],
                    &chosen[1..],
                    &cfg.compute,
                    cfg.traffic,
                    cluster,
                )?
            }
            JobKind::CustomDag | JobKind::File | JobKind::Coflow => {
                let chosen: Vec<MachineId> = pick_distinct(&mut rng, &machines, 2);
                let size = cfg.file_sizes[rng.random_range(0..cfg.file_sizes.len())];
                file_job(size, chosen[0], chosen[1], cluster)?
            }
        };
        out.push(SimJob {
            arrival: t,
            job,
            kind,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::NodeKind;
    use fabric_model::BitsPerSec;

    #[test]
    fn ps_job_shape() {
        let cluster = Cluster::uniform(4, BitsPerSec::from_gbps(1)).unwrap();
        let job = ps_job(
            Model::Vgg16,
            MachineId::new(0),
            &[MachineId::new(1), MachineId::new(2)],
            &ComputeModel::default(),
            &cluster,
        )
        .unwrap();
        // 32 pulls + 32 pushes; 16 forward + 16 backward + loss.
        assert_eq!(job.transfers().len(), 64);
        assert_eq!(job.len(), 64 + 33);
        // Topological order: all pulls (into the worker) before any push.
        let first_push = job
            .transfers()
            .iter()
            .position(|&t| {
                matches!(
                    job.node(t),
                    NodeKind::Transfer { src, .. } if src == MachineId::new(0)
                )
            })
            .unwrap();
        assert_eq!(first_push, 32);
        // Pulls alternate between the two PS, and bits = 32 × params.
        let bits: f64 = job.transfers()[..32]
            .iter()
            .map(|&t| match job.node(t) {
                NodeKind::Transfer { size, .. } => size,
                NodeKind::Compute { .. } => 0.0,
            })
            .sum();
        assert_eq!(bits, 138_357_544.0 * 32.0);
        // The first push is the last layer's gradient (fc8), released by the first backward task.
        let t = job.transfers()[32];
        assert_eq!(job.preds(t).len(), 1);
    }

    #[test]
    fn pulls_only_iteration() {
        let cluster = Cluster::uniform(4, BitsPerSec::from_gbps(1)).unwrap();
        let job = ps_iteration(
            Model::Vgg16,
            MachineId::new(0),
            &[MachineId::new(1), MachineId::new(2)],
            &ComputeModel::default(),
            PsTraffic::Pulls,
            &cluster,
        )
        .unwrap();
        // 32 pulls, no push; 16 forward + 16 backward + loss.
        assert_eq!(job.transfers().len(), 32);
        assert_eq!(job.len(), 32 + 33);
        // Every transfer is a root into the worker (paper §1.1: transfers have no predecessors).
        for &t in job.transfers() {
            assert!(job.preds(t).is_empty());
            assert!(matches!(
                job.node(t),
                NodeKind::Transfer { dst, .. } if dst == MachineId::new(0)
            ));
        }
    }

    #[test]
    fn generator_is_deterministic_and_balanced() {
        let cluster = Cluster::uniform(20, BitsPerSec::from_gbps(1)).unwrap();
        let cfg = WorkloadConfig {
            dag_jobs: 10,
            file_jobs: 3,
            models: vec![Model::LeNet, Model::AlexNet],
            ..WorkloadConfig::default()
        };
        let a = generate(&cluster, &cfg).unwrap();
        let b = generate(&cluster, &cfg).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 13);
        assert_eq!(
            a.iter()
                .filter(|j| j.kind == JobKind::Dag(Model::LeNet))
                .count(),
            5
        );
        assert!(a.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        let c = generate(
            &cluster,
            &WorkloadConfig {
                seed: 2,
                ..cfg.clone()
            },
        )
        .unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn busiest_link_load_of_jobs() {
        // Two machines at 1 Gbit/s on a big switch; jobs at 0 s and 10 s, 4 Gb and 1 Gb from
        // machine 0 to 1: machine 0's egress carries 5 Gb over 10 s of arrivals, 0.5.
        let cluster = Cluster::uniform(2, BitsPerSec::from_gbps(1)).unwrap();
        let job = |gb: f64| {
            let mut b = JobBuilder::new();
            b.transfer_bits(gb * 1e9, MachineId::new(0), MachineId::new(1));
            b.build(&cluster).unwrap()
        };
        let jobs = vec![
            SimJob::at_secs(0.0, job(4.0), JobKind::File),
            SimJob::at_secs(10.0, job(1.0), JobKind::File),
        ];
        let load = busiest_link_load(&cluster, &jobs).unwrap().unwrap();
        assert!((load - 0.5).abs() < 1e-12, "{load}");
        // One instant, or no jobs: no span.
        assert_eq!(busiest_link_load(&cluster, &jobs[..1]), Ok(None));
        assert_eq!(busiest_link_load(&cluster, &[]), Ok(None));
        // A job built for a bigger cluster names a machine this one lacks.
        let big = Cluster::uniform(4, BitsPerSec::from_gbps(1)).unwrap();
        let mut b = JobBuilder::new();
        let t = b.transfer_bits(1.0, MachineId::new(3), MachineId::new(0));
        let far = SimJob::at_secs(5.0, b.build(&big).unwrap(), JobKind::File);
        assert_eq!(
            busiest_link_load(&cluster, &[jobs[0].clone(), far]),
            Err(Error::UnknownMachine {
                node: t,
                machine: MachineId::new(3),
                machines: 2
            })
        );
    }

    #[test]
    fn offered_load_from_the_mix() {
        let cluster = Cluster::uniform(10, BitsPerSec::from_gbps(1)).unwrap();
        // VGG16 pulls: 138,357,544 parameters × 32 bits; with pushes twice that.
        let cfg = WorkloadConfig {
            dag_jobs: 2,
            file_jobs: 2,
            models: vec![Model::Vgg16],
            file_sizes: vec![Bytes::new(125_000_000), Bytes::new(375_000_000)],
            mean_interarrival: 2.0,
            ..WorkloadConfig::default()
        };
        let vgg = 138_357_544.0 * 32.0;
        assert_eq!(cfg.model_bits(Model::Vgg16), vgg);
        let pushes = WorkloadConfig {
            traffic: PsTraffic::PullsAndPushes,
            ..cfg.clone()
        };
        assert_eq!(pushes.model_bits(Model::Vgg16), 2.0 * vgg);
        // Mean job: (2 VGG16 + 2 files of mean 2 Gb) / 4.
        let mean = (2.0 * vgg + 2.0 * 2e9) / 4.0;
        assert!((cfg.mean_job_bits() - mean).abs() < 1e-6);
        assert!((cfg.offered_load(&cluster) - mean / 2.0 / 1e10).abs() < 1e-12);
        // at_load inverts offered_load.
        for load in [0.3, 0.6, 0.9] {
            let c = cfg.at_load(&cluster, load).unwrap();
            assert!((c.offered_load(&cluster) - load).abs() < 1e-12);
            assert_eq!(c.dag_jobs, cfg.dag_jobs);
        }
        // Twice the load, half the gap; the generated arrivals follow.
        let a = cfg.at_load(&cluster, 0.4).unwrap();
        let b = cfg.at_load(&cluster, 0.8).unwrap();
        assert!((a.mean_interarrival - 2.0 * b.mean_interarrival).abs() < 1e-12);
        let last = |c: &WorkloadConfig| generate(&cluster, c).unwrap().last().unwrap().arrival;
        assert!((last(&a) - 2.0 * last(&b)).abs() < 1e-9);
    }

    #[test]
    fn load_errors() {
        let cluster = Cluster::uniform(10, BitsPerSec::from_gbps(1)).unwrap();
        let cfg = WorkloadConfig::default();
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                cfg.at_load(&cluster, bad),
                Err(Error::InvalidParameter { name: "load", .. })
            ));
        }
        let empty = WorkloadConfig {
            dag_jobs: 0,
            file_jobs: 0,
            ..cfg
        };
        assert_eq!(empty.mean_job_bits(), 0.0);
        assert!(matches!(
            empty.at_load(&cluster, 0.5),
            Err(Error::InvalidParameter { name: "load", .. })
        ));
    }

    #[test]
    fn generator_errors() {
        let cluster = Cluster::uniform(2, BitsPerSec::from_gbps(1)).unwrap();
        let cfg = WorkloadConfig::default();
        assert!(matches!(
            generate(&cluster, &cfg),
            Err(Error::InvalidParameter {
                name: "machines",
                ..
            })
        ));
        let cluster = Cluster::uniform(5, BitsPerSec::from_gbps(1)).unwrap();
        let bad = WorkloadConfig {
            mean_interarrival: 0.0,
            ..cfg
        };
        assert!(matches!(
            generate(&cluster, &bad),
            Err(Error::InvalidParameter {
                name: "mean_interarrival",
                ..
            })
        ));
        assert!(matches!(
            ps_job(
                Model::LeNet,
                MachineId::new(0),
                &[],
                &ComputeModel::default(),
                &cluster
            ),
            Err(Error::InvalidParameter {
                name: "parameter servers",
                ..
            })
        ));
        assert!(matches!(
            ps_job(
                Model::LeNet,
                MachineId::new(0),
                &[MachineId::new(0)],
                &ComputeModel::default(),
                &cluster
            ),
            Err(Error::SelfTransfer { .. })
        ));
    }
}
