//! The simulator's tests: every scheduler end to end on small jobs.

use super::tictac::tictac_key;
use super::*;
use crate::Error;
use crate::cluster::Cluster;
use crate::cluster::MachineId;
use crate::job::JobBuilder;
use crate::lat;
use crate::lp::{self, Objective, Reservations, Schedule};
use crate::models::Model;
use crate::workload::{ComputeModel, PsTraffic, WorkloadConfig, file_job_bits, generate, ps_job};
use crate::workload::{JobKind, SimJob};
use fabric_model::{BitsPerSec, Bytes, Nanos};
use proptest::prelude::*;

fn all_schedulers() -> [Scheduler; 6] {
    [
        Scheduler::TensorFlow,
        Scheduler::TicTac,
        Scheduler::Sincronia,
        Scheduler::Varys,
        Scheduler::Jit(JitConfig {
            slot: Nanos::from_millis(500),
            ..JitConfig::default()
        }),
        Scheduler::Jit(JitConfig {
            slot: Nanos::from_millis(500),
            rest: RestPolicy::Background,
            ..JitConfig::default()
        }),
    ]
}

fn run(cluster: &Cluster, jobs: &[SimJob], s: Scheduler) -> SimResult {
    simulate(
        cluster,
        jobs,
        &SimConfig {
            scheduler: s,
            ..SimConfig::default()
        },
    )
    .unwrap()
}

#[test]
fn single_file_transfer_runs_at_line_rate() {
    let cluster = Cluster::uniform(2, BitsPerSec::new(2)).unwrap();
    let job = file_job_bits(10.0, MachineId::new(0), MachineId::new(1), &cluster).unwrap();
    let jobs = [SimJob {
        arrival: 1.0,
        job,
        kind: JobKind::File,
    }];
    for s in all_schedulers() {
        let r = run(&cluster, &jobs, s);
        assert!(
            (r.jobs[0].jct() - 5.0).abs() < 1e-9,
            "{}: {}",
            s.name(),
            r.jobs[0].jct()
        );
        assert!((r.jobs[0].alone - 5.0).abs() < 1e-12);
    }
}

#[test]
fn fair_sharing_and_priority() {
    // Two 4-bit files into the same receiver at capacity 1.
    let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
    let jobs: Vec<SimJob> = [0, 1]
        .iter()
        .map(|&s| SimJob {
            arrival: 0.0,
            job: file_job_bits(4.0, MachineId::new(s), MachineId::new(2), &cluster).unwrap(),
            kind: JobKind::File,
        })
        .collect();
    // Max-min fair: both finish at 8.
    let tf = run(&cluster, &jobs, Scheduler::TensorFlow);
    assert!(tf.jobs.iter().all(|j| (j.finish - 8.0).abs() < 1e-9));
    // Strict priority (FIFO by input order at equal arrival): 4 then 8.
    let tt = run(&cluster, &jobs, Scheduler::TicTac);
    assert!((tt.jobs[0].finish - 4.0).abs() < 1e-9 && (tt.jobs[1].finish - 8.0).abs() < 1e-9);
    for s in [Scheduler::Sincronia, Scheduler::Varys] {
        let sc = run(&cluster, &jobs, s);
        let mut f: Vec<f64> = sc.jobs.iter().map(|j| j.finish).collect();
        f.sort_by(f64::total_cmp);
        assert!((f[0] - 4.0).abs() < 1e-9 && (f[1] - 8.0).abs() < 1e-9);
    }
}

#[test]
fn coflow_schedulers_finish_a_job_together() {
    // T1 (1 bit) -> C1 (10 s) -> C2 <- T2 (3 bits), both into machine 2 at capacity 1.
    // MADD sends both at 1/4 and 3/4: both land at 4, C1 runs 4..14, so the job takes 14 s
    // and T2 waits 10 s (T1 none), where T1 first would finish at 11.
    let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
    let mut b = JobBuilder::new();
    let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
    let t2 = b.transfer_bits(3.0, MachineId::new(1), MachineId::new(2));
    let c1 = b.compute_secs(10.0);
    let c2 = b.compute_secs(0.5);
    b.edge(t1, c1).edge(c1, c2).edge(t2, c2);
    let jobs = [SimJob {
        arrival: 0.0,
        job: b.build(&cluster).unwrap(),
        kind: JobKind::Dag(Model::LeNet),
    }];
    for s in [Scheduler::Sincronia, Scheduler::Varys] {
        let r = run(&cluster, &jobs, s);
        assert!((r.jobs[0].jct() - 14.5).abs() < 1e-9, "{}", s.name());
        assert!((r.jobs[0].mean_wait.unwrap() - 5.0).abs() < 1e-9);
    }
}

#[test]
fn varys_serves_the_smallest_bottleneck_first() {
    // A 6-bit file then a 2-bit file into the same receiver: FIFO (TicTac) finishes them
    // at 6 and 8, SEBF at 8 and 2.
    let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
    let jobs: Vec<SimJob> = [(0, 6.0), (1, 2.0)]
        .iter()
        .map(|&(s, size)| SimJob {
            arrival: 0.0,
            job: file_job_bits(size, MachineId::new(s), MachineId::new(2), &cluster).unwrap(),
            kind: JobKind::File,
        })
        .collect();
    let v = run(&cluster, &jobs, Scheduler::Varys);
    assert!((v.jobs[0].finish - 8.0).abs() < 1e-9 && (v.jobs[1].finish - 2.0).abs() < 1e-9);
    let f = run(&cluster, &jobs, Scheduler::TicTac);
    assert!((f.jobs[0].finish - 6.0).abs() < 1e-9 && (f.jobs[1].finish - 8.0).abs() < 1e-9);
}

#[test]
fn compute_waits_for_data() {
    // T (4 bits at rate 2) -> C (3 s): JCT 5, wait 0.
    let cluster = Cluster::uniform(2, BitsPerSec::new(2)).unwrap();
    let mut b = JobBuilder::new();
    let t = b.transfer_bits(4.0, MachineId::new(0), MachineId::new(1));
    let c = b.compute_secs(3.0);
    b.edge(t, c);
    let job = b.build(&cluster).unwrap();
    let jobs = [SimJob {
        arrival: 0.0,
        job,
        kind: JobKind::Dag(Model::LeNet),
    }];
    for s in all_schedulers() {
        let r = run(&cluster, &jobs, s);
        assert!(
            (r.jobs[0].jct() - 5.0).abs() < 1e-9,
            "{}: {}",
            s.name(),
            r.jobs[0].jct()
        );
        assert_eq!(r.jobs[0].mean_wait, Some(0.0));
    }
}

#[test]
fn jit_plans_and_keeps_capacity() {
    let cluster = Cluster::uniform(4, BitsPerSec::from_gbps(1)).unwrap();
    let c = ComputeModel::default();
    let jobs: Vec<SimJob> = (0..2)
        .map(|k| SimJob {
            arrival: f64::from(k) * 0.05,
            job: ps_job(
                Model::AlexNet,
                MachineId::new(k),
                &[MachineId::new(2), MachineId::new(3)],
                &c,
                &cluster,
            )
            .unwrap(),
            kind: JobKind::Dag(Model::AlexNet),
        })
        .collect();
    let r = run(
        &cluster,
        &jobs,
        Scheduler::Jit(JitConfig {
            slot: Nanos::from_millis(200),
            ..JitConfig::default()
        }),
    );
    assert_eq!(r.lp.planned + r.lp.unplanned, 2);
    assert!(r.lp.planned >= 1);
    assert!(r.max_port_utilisation <= 1.0 + 1e-9);
    assert!(r.max_conservation_error < 1e-9);
    assert!(r.jobs.iter().all(|j| j.jct() >= j.alone - 1e-9));
    assert!(r.remaining.iter().all(|&h| (-1e-9..=1.0).contains(&h)));
    // JIT's planned DAG traffic is a part of all DAG traffic: never less left over.
    assert!(!r.remaining.is_empty());
    assert!(r.remaining[0] <= r.remaining_planned[0] + 1e-12);
    let tf = run(&cluster, &jobs, Scheduler::TensorFlow);
    assert_eq!(tf.remaining, tf.remaining_planned);
}

/// When a transfer's planned bits reach its size, from its LP rates (bits, slot length).
fn planned_finish(plan: &Schedule, f: usize, size: f64) -> f64 {
    let mut cum = 0.0;
    for (k, r) in plan.rates(f) {
        let bits = r * plan.slot();
        if r > 0.0 && cum + bits >= size - 1e-9 {
            return k as f64 * plan.slot() + (size - cum) / r;
        }
        cum += bits;
    }
    f64::INFINITY
}

#[test]
fn jit_lp_transfers_follow_their_plan_and_background_gets_the_rest() {
    // T1 (1 bit) -> C1 (4 s) -> C2 (1 s) <- T2 (2 bits), both into machine 2 at capacity 1;
    // α = 1 puts both in the LP. Algorithm 1: l1 = 1, l2 = 1 + 4 + 2 = 7. A 4-bit file
    // from machine 3 into machine 2 is background traffic.
    let cluster = Cluster::uniform(4, BitsPerSec::new(1)).unwrap();
    let mut b = JobBuilder::new();
    let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
    let t2 = b.transfer_bits(2.0, MachineId::new(1), MachineId::new(2));
    let c1 = b.compute_secs(4.0);
    let c2 = b.compute_secs(1.0);
    b.edge(t1, c1).edge(c1, c2).edge(t2, c2);
    let job = b.build(&cluster).unwrap();
    let jit = JitConfig {
        alpha: 1.0,
        slot: Nanos::from_secs(1),
        objective: Objective::LexLevels { levels: 3 },
        ..JitConfig::default()
    };
    // The plan the simulator makes at the job's arrival (time 0, nothing reserved).
    let est = lat::estimate(&job, &cluster, jit.lat);
    let ts = lp::job_transfers(&job, &cluster, &est, 2, 0.0);
    let plan = lp::solve(
        &cluster,
        &ts,
        &Reservations::new(),
        jit.slot,
        jit.objective,
        jit.backend,
    )
    .unwrap();
    let (f1, f2) = (planned_finish(&plan, 0, 1.0), planned_finish(&plan, 1, 2.0));
    assert!(f2 <= 7.0 + 1e-9, "{f2}");
    let expected_jct = (f1 + 4.0).max(f2) + 1.0;
    let dag = SimJob {
        arrival: 0.0,
        job,
        kind: JobKind::Dag(Model::LeNet),
    };
    let file = SimJob {
        arrival: 0.0,
        job: file_job_bits(4.0, MachineId::new(3), MachineId::new(2), &cluster).unwrap(),
        kind: JobKind::File,
    };
    // Alone and beside the file, the LP's transfers move exactly at their planned rates
    // (none of the idle capacity ahead of plan), so the job ends as the plan says.
    for jobs in [vec![dag.clone()], vec![dag.clone(), file]] {
        let r = run(&cluster, &jobs, Scheduler::Jit(jit));
        assert_eq!(r.lp.planned, 1);
        assert!(
            (r.jobs[0].jct() - expected_jct).abs() < 1e-9,
            "{:?}",
            r.jobs[0]
        );
        assert!(
            (r.lp_bits_on_plan - 3.0).abs() < 1e-9,
            "{}",
            r.lp_bits_on_plan
        );
        assert!(r.lp_bits_catch_up.abs() < 1e-9, "{}", r.lp_bits_catch_up);
        assert_eq!(r.lp_peaks.len(), 1);
        assert!((r.lp_peaks[0] - plan.min_max).abs() < 1e-9);
        // The result holds the plan it ran, read by the job's own transfer ids.
        assert_eq!(r.plans.len(), jobs.len());
        let ran = r.plans[0].as_ref().expect("the DAG job was planned");
        assert_eq!(ran.schedule(), &plan);
        assert_eq!(ran.transfers(), [t1, t2]);
        assert_eq!(ran.position(t2), Some(1));
        assert_eq!(ran.rate_at(t1, 0.5), Some(plan.rate_at(0, 0.5)));
        assert_eq!(ran.rate_at(c1, 0.5), None);
        if jobs.len() == 2 {
            assert!(r.plans[1].is_none(), "a file has no plan");
        }
        if jobs.len() == 2 {
            // The file takes everything the plan leaves on machine 2's ingress: 7 s of
            // capacity hold the plan's 3 bits (all planned before l2 = 7) and its 4 bits.
            assert!((r.jobs[1].finish - 7.0).abs() < 1e-9, "{:?}", r.jobs[1]);
        }
    }
    // A baseline has no plan.
    let tf = run(&cluster, &[dag], Scheduler::TensorFlow);
    assert_eq!((tf.lp_bits_on_plan, tf.lp_bits_catch_up), (0.0, 0.0));
    assert!(tf.lp_peaks.is_empty() && tf.plans.is_empty());
}

#[test]
fn jit_rest_is_background_or_lat_priority() {
    // α = 0: the DAG job's 4-bit transfer (-> 1 s compute) is outside the LP; a 4-bit file
    // shares machine 2's ingress (capacity 1) from time 0.
    let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
    let mut b = JobBuilder::new();
    let t = b.transfer_bits(4.0, MachineId::new(0), MachineId::new(2));
    let c = b.compute_secs(1.0);
    b.edge(t, c);
    let jobs = [
        SimJob {
            arrival: 0.0,
            job: b.build(&cluster).unwrap(),
            kind: JobKind::Dag(Model::LeNet),
        },
        SimJob {
            arrival: 0.0,
            job: file_job_bits(4.0, MachineId::new(1), MachineId::new(2), &cluster).unwrap(),
            kind: JobKind::File,
        },
    ];
    let jit = |rest| {
        Scheduler::Jit(JitConfig {
            alpha: 0.0,
            slot: Nanos::from_secs(1),
            rest,
            ..JitConfig::default()
        })
    };
    // Background: fair with the file, both land at 8.
    let r = run(&cluster, &jobs, jit(RestPolicy::Background));
    assert!((r.jobs[0].finish - 9.0).abs() < 1e-9 && (r.jobs[1].finish - 8.0).abs() < 1e-9);
    // The default is the paper's background reading; ours sends the DAG transfer first (4),
    // the file after it (8).
    assert_eq!(JitConfig::default().rest, RestPolicy::Background);
    let r = run(&cluster, &jobs, jit(RestPolicy::LatPriority));
    assert!((r.jobs[0].finish - 5.0).abs() < 1e-9 && (r.jobs[1].finish - 8.0).abs() < 1e-9);
    assert_eq!(r.lp.planned, 0);
}

#[test]
fn tictac_key_separates_what_the_order_reads() {
    // Equal shapes share a key; a different load, size, capacity or edge does not.
    let shape = |load: f64, size: f64, edge: bool| {
        let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let t1 = b.transfer_bits(size, MachineId::new(0), MachineId::new(2));
        let t2 = b.transfer_bits(1.0, MachineId::new(1), MachineId::new(2));
        let c1 = b.compute_secs(load);
        let c2 = b.compute_secs(1.0);
        b.edge(t1, c1);
        b.edge(t2, c2);
        if edge {
            b.edge(c1, c2);
        }
        b.build(&cluster).unwrap()
    };
    let c1 = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
    let c2 = Cluster::uniform(3, BitsPerSec::new(2)).unwrap();
    let base = tictac_key(&shape(3.0, 1.0, true), &c1);
    assert_eq!(base, tictac_key(&shape(3.0, 1.0, true), &c1));
    assert_ne!(base, tictac_key(&shape(2.0, 1.0, true), &c1));
    assert_ne!(base, tictac_key(&shape(3.0, 2.0, true), &c1));
    assert_ne!(base, tictac_key(&shape(3.0, 1.0, false), &c1));
    assert_ne!(base, tictac_key(&shape(3.0, 1.0, true), &c2));
}

#[test]
fn tictac_is_fifo_across_jobs_and_tac_inside() {
    // Two jobs of the Fig. 1 shape, T2 -> C2 <- C1 <- T1 with T2 added first (so it leads
    // the topological order), all into machine 2 at capacity 1; job B arrives at 0.5.
    // TAC sends T1 first (it unlocks C1's 3 s); FIFO serves all of A before any of B:
    // A: T1 0..1, T2 1..2, C1 1..4, C2 4..5; B: T1 2..3, T2 3..4, C1 3..6, C2 6..7.
    let cluster = Cluster::uniform(3, BitsPerSec::new(1)).unwrap();
    let shape = || {
        let mut b = JobBuilder::new();
        let t2 = b.transfer_bits(1.0, MachineId::new(1), MachineId::new(2));
        let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(2));
        let c1 = b.compute_secs(3.0);
        let c2 = b.compute_secs(1.0);
        b.edge(t1, c1).edge(c1, c2).edge(t2, c2);
        b.build(&cluster).unwrap()
    };
    let jobs: Vec<SimJob> = [0.0, 0.5]
        .iter()
        .map(|&arrival| SimJob {
            arrival,
            job: shape(),
            kind: JobKind::Dag(Model::LeNet),
        })
        .collect();
    let r = run(&cluster, &jobs, Scheduler::TicTac);
    assert!((r.jobs[0].finish - 5.0).abs() < 1e-9, "{:?}", r.jobs[0]);
    assert!((r.jobs[1].finish - 7.0).abs() < 1e-9, "{:?}", r.jobs[1]);
    // The later job's wait: its T2 lands at 4, C2 starts at 6.
    assert!((r.jobs[1].mean_wait.unwrap() - 1.0).abs() < 1e-9);
}

/// Three coflows on two receivers where BSSI and SEBF disagree (the two policies gave the
/// same mean CCT on the first 30 FB2010 coflows; this checks that the simulator tells them
/// apart where their orders differ). Capacity 1 bit/s; A = {R0: 3}, B = {R0: 1, R1: 2.5},
/// C = {R1: 2.5}, every flow from its own sender.
#[test]
fn sincronia_and_varys_differ_where_bssi_and_sebf_do() {
    let cluster = Cluster::uniform(6, BitsPerSec::new(1)).unwrap();
    let coflow = |flows: &[(f64, u32, u32)]| {
        let mut b = JobBuilder::new();
        for &(size, s, d) in flows {
            b.transfer_bits(size, MachineId::new(s), MachineId::new(d));
        }
        SimJob {
            arrival: 0.0,
            job: b.build(&cluster).unwrap(),
            kind: JobKind::Coflow,
        }
    };
    let jobs = [
        coflow(&[(3.0, 2, 0)]),
        coflow(&[(1.0, 3, 0), (2.5, 4, 1)]),
        coflow(&[(2.5, 5, 1)]),
    ];
    let finish = |s| -> Vec<f64> {
        run(&cluster, &jobs, s)
            .jobs
            .iter()
            .map(|o| o.finish)
            .collect()
    };
    // SEBF: Γ = 3, 2.5, 2.5: B (MADD: 0.4 into R0, 1 into R1), then C (R1 full), then A (0.6
    // into R0); at 2.5 B is done, A has 1.5 left (done at 4) and C all (done at 5).
    let v = finish(Scheduler::Varys);
    // BSSI: R1 is the bottleneck (load 5): B and C tie at w/d = 1/2.5, B goes last and C's
    // weight drops to 0; then R0 (load 3) holds only A, which goes before B: C, A, B. C and
    // A run at full rate (done at 2.5 and 3); B, starved by MADD while R0 is full, gets R1's
    // leftover from 2.5 (work conservation): at 3 it has 1 and 2 bits left, Γ = 2, done at 5.
    let s = finish(Scheduler::Sincronia);
    for (got, want) in [(&v, [4.0, 2.5, 5.0]), (&s, [3.0, 5.0, 2.5])] {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{got:?} vs {want:?}");
        }
    }
}

#[test]
fn tac_is_the_transfer_order_without_compute() {
    // What the TicTac policy relies on to skip `tictac_order` for a job without compute.
    let cluster = Cluster::uniform(4, BitsPerSec::new(1)).unwrap();
    let mut b = JobBuilder::new();
    for (k, (s, d)) in [(0, 1), (2, 1), (3, 0), (1, 2), (0, 3)]
        .into_iter()
        .enumerate()
    {
        b.transfer_bits(1.0 + (5 - k) as f64, MachineId::new(s), MachineId::new(d));
    }
    let job = b.build(&cluster).unwrap();
    assert!(!job.has_compute());
    let order = crate::baselines::tictac_order(&job, &cluster, true);
    assert_eq!(order, (0..5).collect::<Vec<u32>>());
}

#[test]
fn bad_parameters() {
    let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
    let cfg = SimConfig {
        sample_window: Nanos::ZERO,
        ..SimConfig::default()
    };
    assert!(matches!(
        simulate(&cluster, &[], &cfg),
        Err(Error::InvalidParameter {
            name: "sample_window",
            ..
        })
    ));
    let cfg = SimConfig {
        scheduler: Scheduler::Jit(JitConfig {
            alpha: 2.0,
            ..JitConfig::default()
        }),
        ..SimConfig::default()
    };
    assert!(matches!(
        simulate(&cluster, &[], &cfg),
        Err(Error::InvalidParameter { name: "alpha", .. })
    ));
}

/// Six 1 Gbit/s machines and a seeded workload of `dags` LeNet/AlexNet jobs and `files` file
/// transfers (pulls, or pulls and pushes by the seed's parity), for the properties below.
pub(super) fn small_workload(seed: u64, files: usize, dags: usize) -> (Cluster, Vec<SimJob>) {
    let cluster = Cluster::uniform(6, BitsPerSec::from_gbps(1)).unwrap();
    let cfg = WorkloadConfig {
        dag_jobs: dags,
        file_jobs: files,
        models: vec![Model::LeNet, Model::AlexNet],
        mean_interarrival: 0.3,
        file_sizes: vec![Bytes::new(12_500_000), Bytes::new(37_500_000)],
        traffic: if seed.is_multiple_of(2) {
            PsTraffic::Pulls
        } else {
            PsTraffic::PullsAndPushes
        },
        seed,
        ..WorkloadConfig::default()
    };
    let jobs = generate(&cluster, &cfg).unwrap();
    (cluster, jobs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Every scheduler delivers every bit exactly and never exceeds a port's capacity.
    #[test]
    fn conserves_bytes_and_capacity(seed in 0u64..1000, files in 0usize..4, dags in 1usize..4) {
        let (cluster, jobs) = small_workload(seed, files, dags);
        let total: f64 = jobs.iter().map(|j| j.job.total_bits()).sum();
        for s in all_schedulers() {
            let r = simulate(&cluster, &jobs, &SimConfig::new(s).with_seed(seed).with_sample_window(Nanos::from_millis(500))).unwrap();
            prop_assert!(r.max_port_utilisation <= 1.0 + 1e-9, "{}: {}", s.name(), r.max_port_utilisation);
            prop_assert!(r.max_conservation_error < 1e-9, "{}: {}", s.name(), r.max_conservation_error);
            for (o, j) in r.jobs.iter().zip(&jobs) {
                prop_assert!(o.finish.is_finite() && o.finish >= o.arrival);
                // No job beats its own critical path on an empty cluster.
                prop_assert!(o.jct() >= o.alone * (1.0 - 1e-9), "{} {:?}: {} < {}", s.name(), j.kind, o.jct(), o.alone);
            }
            // Makespan is at least the busiest port's bits over its capacity.
            let last = r.jobs.iter().map(|o| o.finish).fold(0.0, f64::max);
            prop_assert!(last * 1e9 * 6.0 >= total * (1.0 - 1e-9));
        }
    }
}

/// A drawn coflow: arrival (ms), mapper ports, (reducer port, shuffle MB).
pub(super) type DrawnCoflow = (u32, Vec<u32>, Vec<(u32, u32)>);

/// A random coflow trace in the coflow-benchmark format: `coflows` coflows over `ports`
/// ports, each with up to three mappers and three reducers, arrivals within 40 ms.
pub(super) fn random_trace(ports: u32, coflows: &[DrawnCoflow]) -> String {
    let mut s = format!("{ports} {}\n", coflows.len());
    for (i, (arrival, mappers, reducers)) in coflows.iter().enumerate() {
        s.push_str(&format!("{} {arrival} {}", i + 1, mappers.len()));
        for m in mappers {
            s.push_str(&format!(" {}", m % ports));
        }
        s.push_str(&format!(" {}", reducers.len()));
        for (r, mb) in reducers {
            s.push_str(&format!(" {}:{mb}", r % ports));
        }
        s.push('\n');
    }
    s
}

/// The lazy step of the incremental policies (TensorFlow's fair sharing, FIFO + TicTac)
/// against the reference step that advances every moving flow at every event: the same
/// completion time for every job, to 1e-9 relative, and the same remaining-bandwidth samples.
fn lazy_matches_reference(
    cluster: &Cluster,
    jobs: &[SimJob],
    seed: u64,
) -> Result<(), TestCaseError> {
    for s in [Scheduler::TensorFlow, Scheduler::TicTac] {
        let cfg = SimConfig::new(s)
            .with_seed(seed)
            .with_sample_window(Nanos::from_millis(500));
        let lazy = simulate(cluster, jobs, &cfg).unwrap();
        let reference = run::run_reference(cluster, jobs, &cfg).unwrap();
        prop_assert_eq!(lazy.jobs.len(), reference.jobs.len());
        for (k, (a, b)) in lazy.jobs.iter().zip(&reference.jobs).enumerate() {
            prop_assert!(
                (a.finish - b.finish).abs() <= 1e-9 * b.finish.abs().max(1e-12),
                "{} job {}: lazy {} vs reference {}",
                s.name(),
                k,
                a.finish,
                b.finish
            );
        }
        prop_assert!(lazy.max_conservation_error < 1e-9, "{}", s.name());
        prop_assert!((lazy.max_port_utilisation - reference.max_port_utilisation).abs() <= 1e-9);
        prop_assert_eq!(
            lazy.remaining.len(),
            reference.remaining.len(),
            "{}",
            s.name()
        );
        for (a, b) in lazy.remaining.iter().zip(&reference.remaining) {
            prop_assert!((a - b).abs() <= 1e-9, "{}: {} vs {}", s.name(), a, b);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random coflow traces (many flows sharing few ports, rates changing at every event).
    #[test]
    fn lazy_step_matches_reference_on_coflows(
        ports in 2u32..7,
        coflows in proptest::collection::vec(
            (0u32..40,
             proptest::collection::vec(0u32..7, 1..4),
             proptest::collection::vec((0u32..7, 1u32..20), 1..4)),
            1..12),
        seed in 0u64..100,
    ) {
        let trace = crate::trace::Trace::parse(&random_trace(ports, &coflows)).unwrap();
        let cluster = Cluster::uniform(ports as usize, BitsPerSec::from_gbps(1)).unwrap();
        let jobs = trace.to_jobs(&cluster).unwrap();
        lazy_matches_reference(&cluster, &jobs, seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Random DAG workloads with files (channels, compute, usage windows).
    #[test]
    fn lazy_step_matches_reference_on_dag_jobs(seed in 0u64..1000, files in 0usize..4, dags in 1usize..4) {
        let (cluster, jobs) = small_workload(seed, files, dags);
        lazy_matches_reference(&cluster, &jobs, seed)?;
    }
}
