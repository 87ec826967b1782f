//! The seeded runs behind `reproduce dag`, `dag-variants` and `dag-sensitivity`: one job set
//! per seed, TensorFlow's order first (every speedup is against it, on the same job set),
//! then each variant, each run reduced to a [`Summary`] of the figures the paper reports.
//!
//! Seed `k` draws the job set with workload seed `2026 + k` and TensorFlow's random orders
//! with simulator seed `7 + k` (seed 0 is the single run `reproduce dag` printed before it
//! took several seeds).

use std::time::Instant;

use dag_sched::models::Model;
use dag_sched::sim::{Scheduler, SimConfig, SimResult, simulate};
use dag_sched::workload::{JobKind, SimJob, WorkloadConfig, generate};
use dag_sched::{Cluster, Job, NodeKind};
use fabric_model::Nanos;

use super::dag_stats::Estimate;
use crate::Context;

/// Figures per model group: the five models of [`Model::PAPER`], then all DAG jobs.
pub const GROUPS: usize = 6;

/// The group index of "all DAG jobs".
pub const ALL: usize = 5;

/// The group names, in [`GROUPS`] order.
pub fn group_name(g: usize) -> &'static str {
    Model::PAPER.get(g).map_or("all", |m| m.name())
}

/// The file sizes of the paper's background jobs, in Gb (§4.1 1)).
pub const FILE_GB: [u64; 5] = [5, 10, 20, 30, 40];

/// One scheduler configuration to run on every seed.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Its row name.
    pub name: String,
    /// The scheduler.
    pub scheduler: Scheduler,
    /// The remaining-bandwidth window (1 s unless a variant says otherwise).
    pub window: Nanos,
}

impl Variant {
    /// `scheduler` named `name`, with 1 s remaining-bandwidth windows.
    pub fn new(name: &str, scheduler: Scheduler) -> Self {
        Self {
            name: name.to_owned(),
            scheduler,
            window: Nanos::from_secs(1),
        }
    }

    /// This variant with remaining-bandwidth windows of `window`.
    #[must_use]
    pub fn with_window(mut self, window: Nanos) -> Self {
        self.window = window;
        self
    }
}

/// What one run of one seed reports. Ratios and speedups are plain numbers; times seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Mean over the group's DAG jobs of TensorFlow's JCT over this run's (the paper's (17),
    /// averaged per job).
    pub speedup: [f64; GROUPS],
    /// Mean JCT of the group's DAG jobs in this run.
    pub mean_jct: [f64; GROUPS],
    /// Mean JCT of the same jobs under TensorFlow's order.
    pub tf_mean_jct: [f64; GROUPS],
    /// Mean data waiting time of the group's DAG jobs (paper Fig. 6), seconds.
    pub wait: [f64; GROUPS],
    /// DAG jobs in the group.
    pub jobs: [usize; GROUPS],
    /// Mean file-job JCT over its time alone (paper Fig. 9).
    pub files: f64,
    /// The same per file size of [`FILE_GB`] (NaN where a seed drew none of that size).
    pub files_by_size: [f64; 5],
    /// Remaining bandwidth over all DAG traffic (paper (18), Fig. 8): percentiles 0..=100.
    pub remaining: Vec<f64>,
    /// The same over JIT's planned transfers alone (equal to `remaining` for the baselines).
    pub remaining_planned: Vec<f64>,
    /// JIT: the share of the DAG jobs' bits that its LP's transfers hold (NaN otherwise).
    pub lp_bit_share: f64,
    /// Mean over DAG jobs of JCT over the critical path alone at line rate.
    pub slowdown: f64,
    /// Inception's per-transfer data waiting times (paper Fig. 7), over every transfer of
    /// the seed's Inception jobs that has a consumer: the median (s), the 90th percentile
    /// (s) and the share used within [`PROMPT`] of arriving.
    pub inception_waits: [f64; 3],
    /// Fig. 7's example job ([`fig7_job`]): each transfer's arrival and first use, seconds
    /// from the job's arrival, in the job's transfer order (empty without one).
    pub example: Vec<(f64, f64)>,
    /// Seconds the simulation took (wall time on this machine).
    pub wall: f64,
}

impl Summary {
    /// TensorFlow's mean JCT over this run's, for group `g` (the speedup of the means).
    #[must_use]
    pub fn ratio_of_means(&self, g: usize) -> f64 {
        self.tf_mean_jct[g] / self.mean_jct[g]
    }

    /// The lowest remaining-bandwidth ratio.
    #[must_use]
    pub fn rem_min(&self) -> f64 {
        self.remaining.first().copied().unwrap_or(f64::NAN)
    }

    /// The median remaining-bandwidth ratio.
    #[must_use]
    pub fn rem_median(&self) -> f64 {
        self.remaining.get(50).copied().unwrap_or(f64::NAN)
    }

    /// The lowest remaining-bandwidth ratio over JIT's planned transfers alone.
    #[must_use]
    pub fn planned_min(&self) -> f64 {
        self.remaining_planned.first().copied().unwrap_or(f64::NAN)
    }
}

/// Bounds that hold for any scheduler on one seed's job set, against TensorFlow's JCTs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Isolated-job ceiling: mean over DAG jobs of TensorFlow's JCT over the job's critical
    /// path alone at line rate (every pull at the full port rate at once).
    pub isolated: f64,
    /// The same for the speedup of the means: TensorFlow's mean JCT over the mean critical
    /// path.
    pub isolated_of_means: f64,
    /// The ideal bound that counts the worker's shared ingress: mean over DAG jobs of
    /// TensorFlow's JCT over [`ingress_bound`].
    pub ingress: f64,
    /// The same bound for the speedup of the means: TensorFlow's mean JCT over the mean of
    /// [`ingress_bound`].
    pub ingress_of_means: f64,
}

/// The results of every variant on every seed.
#[derive(Debug, Clone, Default)]
pub struct SeedRuns {
    /// Row names, in run order (TensorFlow's order first).
    pub names: Vec<String>,
    /// `per_seed[v][k]`: variant `v` on seed `k`.
    pub per_seed: Vec<Vec<Summary>>,
    /// The bounds of each seed.
    pub bounds: Vec<Bounds>,
    /// TensorFlow's file inflation on each seed (the calibration's target, paper Fig. 9: 2.23).
    pub tf_files: Vec<f64>,
    /// Seconds from the first to the last arrival, per seed.
    pub span: Vec<f64>,
}

impl SeedRuns {
    /// The summaries of variant `name` over the seeds.
    #[must_use]
    pub fn of(&self, name: &str) -> Option<&[Summary]> {
        let v = self.names.iter().position(|n| n == name)?;
        Some(&self.per_seed[v])
    }

    /// `f` over the seeds of variant `name` (empty when there is none).
    pub fn values(&self, name: &str, f: impl Fn(&Summary) -> f64) -> Vec<f64> {
        self.of(name)
            .map_or_else(Vec::new, |s| s.iter().map(f).collect())
    }

    /// The mean and 95 % interval of `f` over the seeds of variant `name`.
    pub fn est(&self, name: &str, f: impl Fn(&Summary) -> f64) -> Estimate {
        Estimate::of(&self.values(name, f))
    }

    /// Number of seeds run.
    #[must_use]
    pub fn seeds(&self) -> usize {
        self.bounds.len()
    }
}

/// With `--dump DIR`, writes every table as `DIR/<table>.csv` (all its columns) and
/// `DIR/<table>.txt` (its text form), so that one long run gives both.
///
/// # Errors
/// A file that cannot be written.
pub fn dump_tables(ctx: &Context, tables: &[crate::Table]) -> Result<(), String> {
    let Some(dir) = ctx.dump_dir() else {
        return Ok(());
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    for t in tables {
        for (ext, text) in [("csv", t.to_csv()), ("txt", t.to_text())] {
            let path = dir.join(format!("{}.{ext}", t.experiment));
            std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// A transfer used within this many seconds of its arrival counts as "just in time" in
/// [`Summary::inception_waits`] (ours: the paper's Fig. 7 gives no threshold; 0.1 s is its
/// JIT's mean Inception wait, Fig. 6).
pub const PROMPT: f64 = 0.1;

/// Fig. 7's example job of a seed's `jobs` (sorted by arrival): the Inception job that
/// arrives nearest the middle arrival (mid-run, under contention); `None` without one.
#[must_use]
pub fn fig7_job(jobs: &[SimJob]) -> Option<usize> {
    let mid = jobs.get(jobs.len() / 2)?.arrival;
    jobs.iter()
        .enumerate()
        .filter(|(_, j)| j.kind.model() == Some(Model::Inception))
        .min_by(|a, b| {
            (a.1.arrival - mid)
                .abs()
                .total_cmp(&(b.1.arrival - mid).abs())
        })
        .map(|(k, _)| k)
}

/// The name of the baseline every run is compared with.
pub const TF: &str = "tensorflow";

/// Runs TensorFlow's order and then every variant on `seeds` job sets, `workload(k)` giving
/// seed `k`'s mix (its seed is set here), each run reported as progress after `label` (the
/// experiment and its point). Seeds run side by side on up to two threads (each seed's runs
/// are independent and are collected in seed order, so the result does not depend on the
/// threads).
///
/// # Errors
/// A generation or simulation error, as text.
pub fn run_seeds(
    ctx: &Context,
    cluster: &Cluster,
    workload: &(dyn Fn(u64) -> Result<WorkloadConfig, String> + Sync),
    seeds: usize,
    variants: &[Variant],
    label: &str,
) -> Result<SeedRuns, String> {
    type SeedOut = (Vec<Summary>, Bounds, f64, f64);
    let one_seed = |k: u64| -> Result<SeedOut, String> {
        let cfg = workload(k)?.with_seed(2026 + k);
        let jobs = generate(cluster, &cfg).map_err(|e| e.to_string())?;
        let tf_variant = Variant::new(TF, Scheduler::TensorFlow);
        let tf = run_one(ctx, cluster, &jobs, &tf_variant, k, label)?;
        let tf_sum = summarize(&tf.0, &tf.0, &jobs, tf.1);
        let b = bounds(cluster, &jobs, &tf.0);
        let files = tf_sum.files;
        let span = jobs.last().map_or(0.0, |j| j.arrival);
        let mut sums = vec![tf_sum];
        for variant in variants {
            let (res, wall) = run_one(ctx, cluster, &jobs, variant, k, label)?;
            sums.push(summarize(&res, &tf.0, &jobs, wall));
        }
        Ok((sums, b, files, span))
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 2)
        .min(seeds.max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: std::sync::Mutex<Vec<Option<Result<SeedOut, String>>>> =
        std::sync::Mutex::new((0..seeds).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= seeds {
                        break;
                    }
                    let r = one_seed(k as u64);
                    let failed = r.is_err();
                    if let Ok(mut v) = slots.lock() {
                        v[k] = Some(r);
                    }
                    if failed {
                        // Later seeds are not started after a failure.
                        next.store(seeds, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let slots = slots
        .into_inner()
        .map_err(|_| "a seed's thread panicked".to_owned())?;
    let mut out = SeedRuns {
        names: std::iter::once(TF.to_owned())
            .chain(variants.iter().map(|v| v.name.clone()))
            .collect(),
        per_seed: vec![Vec::with_capacity(seeds); variants.len() + 1],
        ..SeedRuns::default()
    };
    for (k, slot) in slots.into_iter().enumerate() {
        let (sums, b, files, span) =
            slot.ok_or_else(|| format!("seed {k} was not run (an earlier seed failed)"))??;
        for (v, s) in sums.into_iter().enumerate() {
            out.per_seed[v].push(s);
        }
        out.bounds.push(b);
        out.tf_files.push(files);
        out.span.push(span);
    }
    Ok(out)
}

/// One simulation of seed `k` and its wall time.
fn run_one(
    ctx: &Context,
    cluster: &Cluster,
    jobs: &[SimJob],
    variant: &Variant,
    k: u64,
    label: &str,
) -> Result<(SimResult, f64), String> {
    let t0 = Instant::now();
    let res = simulate(
        cluster,
        jobs,
        &SimConfig::new(variant.scheduler)
            .with_seed(7 + k)
            .with_sample_window(variant.window)
            .with_transfer_times(true),
    )
    .map_err(|e| format!("{} (seed {k}): {e}", variant.name))?;
    let wall = t0.elapsed().as_secs_f64();
    ctx.progress(&format!(
        "  {label}{}, seed {k}, {} jobs: done in {wall:.1}s ({} events, {} LPs)",
        variant.name,
        jobs.len(),
        res.events,
        res.lp.solves
    ));
    Ok((res, wall))
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Percentiles 0..=100 of an ascending `sorted` (nearest rank); empty when it is.
fn percentiles(sorted: &[f64]) -> Vec<f64> {
    if sorted.is_empty() {
        return Vec::new();
    }
    (0..=100)
        .map(|p| sorted[(p * (sorted.len() - 1) + 50) / 100])
        .collect()
}

/// The group of a job: its model's index in [`Model::PAPER`], `None` for a job without one.
fn group_of(kind: JobKind) -> Option<usize> {
    let m = kind.model()?;
    Model::PAPER.iter().position(|&p| p == m)
}

/// Reduces `res` against TensorFlow's run `tf` of the same `jobs`.
pub fn summarize(res: &SimResult, tf: &SimResult, jobs: &[SimJob], wall: f64) -> Summary {
    let mut speed: [Vec<f64>; GROUPS] = Default::default();
    let mut jct: [Vec<f64>; GROUPS] = Default::default();
    let mut tf_jct: [Vec<f64>; GROUPS] = Default::default();
    let mut wait: [Vec<f64>; GROUPS] = Default::default();
    let mut slow = Vec::new();
    let mut files = Vec::new();
    let mut by_size: [Vec<f64>; 5] = Default::default();
    for ((o, b), j) in res.jobs.iter().zip(&tf.jobs).zip(jobs) {
        if o.kind.is_dag() {
            for g in group_of(o.kind).into_iter().chain([ALL]) {
                speed[g].push(b.jct() / o.jct());
                jct[g].push(o.jct());
                tf_jct[g].push(b.jct());
                if let Some(w) = o.mean_wait {
                    wait[g].push(w);
                }
            }
            slow.push(o.jct() / o.alone);
        } else if o.kind == JobKind::File {
            let r = o.jct() / o.alone;
            files.push(r);
            let gb = j.job.total_bits() / 1e9;
            if let Some(s) = FILE_GB.iter().position(|&x| (x as f64 - gb).abs() < 1e-6) {
                by_size[s].push(r);
            }
        }
    }
    let mut inception: Vec<f64> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.kind.model() == Some(Model::Inception))
        .flat_map(|(k, _)| res.transfer_times(k).iter().filter_map(|t| t.wait()))
        .collect();
    inception.sort_by(f64::total_cmp);
    let pct = percentiles(&inception);
    let prompt = inception.iter().filter(|&&w| w <= PROMPT).count();
    let example = fig7_job(jobs).map_or_else(Vec::new, |k| {
        let a = jobs[k].arrival;
        res.transfer_times(k)
            .iter()
            .filter_map(|t| Some((t.arrived - a, t.used? - a)))
            .collect()
    });
    let lp_bits = res.lp_bits_on_plan + res.lp_bits_catch_up;
    let dag_bits: f64 = jobs
        .iter()
        .filter(|j| j.kind.is_dag())
        .map(|j| j.job.total_bits())
        .sum();
    Summary {
        speedup: speed.each_ref().map(|v| mean(v)),
        mean_jct: jct.each_ref().map(|v| mean(v)),
        tf_mean_jct: tf_jct.each_ref().map(|v| mean(v)),
        wait: wait.each_ref().map(|v| mean(v)),
        jobs: speed.each_ref().map(Vec::len),
        files: mean(&files),
        files_by_size: by_size.each_ref().map(|v| mean(v)),
        remaining: percentiles(&res.remaining),
        remaining_planned: percentiles(&res.remaining_planned),
        lp_bit_share: if res.lp.planned > 0 {
            lp_bits / dag_bits
        } else {
            f64::NAN
        },
        slowdown: mean(&slow),
        inception_waits: [
            pct.get(50).copied().unwrap_or(f64::NAN),
            pct.get(90).copied().unwrap_or(f64::NAN),
            if inception.is_empty() {
                f64::NAN
            } else {
                prompt as f64 / inception.len() as f64
            },
        ],
        example,
        wall,
    }
}

/// A lower bound on the JCT of `job` alone on an empty cluster that counts each port's
/// capacity as shared by the job's own transfers (the critical path alone lets all of a
/// worker's pulls use its ingress at full rate at once): on every port (each machine's
/// egress and ingress), the transfers through it are served one unit of capacity in all, so
/// the last of them to arrive, `i`, arrives no sooner than the sum of their transfer times,
/// and the job ends no sooner than that plus `i`'s tail (the longest compute path from a
/// consumer of `i` to the end). Jackson's rule (largest tail first) gives the best order on
/// one port, `max_k (Σ_{i≤k} trans(i) + tail(k))`; the bound is the largest over ports, and
/// never below the critical path `alone`. Compute is never shared (each job has its own
/// devices) and a transfer's release after compute is ignored, which keeps it a lower bound.
#[must_use]
pub fn ingress_bound(job: &Job, cluster: &Cluster, alone: f64) -> f64 {
    let n = job.len();
    // tail[v]: longest compute path starting at v (its own load included).
    let mut tail = vec![0.0f64; n];
    for &v in job.topo_order().iter().rev() {
        let own = match job.node(v) {
            NodeKind::Compute { load } => load,
            NodeKind::Transfer { .. } => 0.0,
        };
        let after = job
            .succs(v)
            .iter()
            .map(|s| tail[s.index()])
            .fold(0.0, f64::max);
        tail[v.index()] = own + after;
    }
    // (port, transfer time, tail): egress ports as 2m, ingress as 2m + 1.
    let mut items: Vec<(usize, f64, f64)> = Vec::with_capacity(2 * job.transfers().len());
    for &t in job.transfers() {
        if let NodeKind::Transfer { size, src, dst } = job.node(t) {
            let c = cluster.path_capacity(src, dst);
            let p = if c > 0.0 { size / c } else { f64::INFINITY };
            let q = tail[t.index()];
            items.push((2 * src.index(), p, q));
            items.push((2 * dst.index() + 1, p, q));
        }
    }
    items.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.total_cmp(&a.2)));
    let mut best = alone;
    let mut port = usize::MAX;
    let mut sum = 0.0;
    for (p, d, q) in items {
        if p != port {
            port = p;
            sum = 0.0;
        }
        sum += d;
        best = best.max(sum + q);
    }
    best
}

/// The bounds of one seed's job set against TensorFlow's run of it.
fn bounds(cluster: &Cluster, jobs: &[SimJob], tf: &SimResult) -> Bounds {
    let mut iso = Vec::new();
    let mut ing = Vec::new();
    let (mut tf_sum, mut lb_sum, mut alone_sum) = (0.0, 0.0, 0.0);
    for (j, o) in jobs.iter().zip(&tf.jobs) {
        if !j.kind.is_dag() {
            continue;
        }
        let lb = ingress_bound(&j.job, cluster, o.alone);
        iso.push(o.jct() / o.alone);
        ing.push(o.jct() / lb);
        tf_sum += o.jct();
        lb_sum += lb;
        alone_sum += o.alone;
    }
    Bounds {
        isolated: mean(&iso),
        isolated_of_means: tf_sum / alone_sum,
        ingress: mean(&ing),
        ingress_of_means: tf_sum / lb_sum,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dag_sched::JobBuilder;
    use dag_sched::MachineId;
    use fabric_model::BitsPerSec;

    /// The paper's Fig. 4 job (loads 1, 2, 1, 2, 1; T1, T2 of sizes 1, 2 from machine 1, T3,
    /// T4 of sizes 2, 1 from machine 2, all into machine 3; unit bandwidth): the critical path
    /// alone is 8 s, but the four transfers share machine 3's ingress (6 s of bits), and the
    /// best order ends at 9 s (T1, T2, T3, T4: C5 ends at 9), which Jackson's rule finds.
    #[test]
    fn ingress_bound_of_fig4_is_9_s() {
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let c: Vec<_> = [1.0, 2.0, 1.0, 2.0, 1.0]
            .iter()
            .map(|&l| b.compute_secs(l))
            .collect();
        for w in c.windows(2) {
            b.edge(w[0], w[1]);
        }
        let (m1, m2, m3) = (MachineId::new(0), MachineId::new(1), MachineId::new(2));
        for (k, (size, src)) in [(1.0, m1), (2.0, m1), (2.0, m2), (1.0, m2)]
            .into_iter()
            .enumerate()
        {
            let t = b.transfer_bits(size, src, m3);
            b.edge(t, c[k]);
        }
        let job = b.build(&cluster).unwrap();
        let alone =
            dag_sched::lat::estimate(&job, &cluster, dag_sched::LatMethod::BackwardCpm).makespan();
        assert!((alone - 8.0).abs() < 1e-9, "{alone}");
        assert!((ingress_bound(&job, &cluster, alone) - 9.0).abs() < 1e-9);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (0..11).map(f64::from).collect();
        let p = percentiles(&v);
        assert_eq!(p.len(), 101);
        assert_eq!((p[0], p[50], p[100]), (0.0, 5.0, 10.0));
        assert!(percentiles(&[]).is_empty());
    }
}
