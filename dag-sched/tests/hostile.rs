//! Hostile inputs to the simulator and the trace reader: each returns a typed error or runs in
//! bounded time and memory (a regression test per case).

use dag_sched::lp::Objective;
use dag_sched::sim::{JitConfig, Scheduler, SimConfig, simulate};
use dag_sched::trace::{Coflow, MAX_COFLOW_FLOWS, MAX_TRACE_FLOWS, Trace};
use dag_sched::workload::{JobKind, SimJob};
use dag_sched::{Cluster, Error, JobBuilder, MachineId};
use fabric_model::{BitsPerSec, Nanos};

/// One DAG job: a transfer of `bits` from machine 0 to 1 (1 Gbit/s ports), then a compute
/// task of 0 s, arriving at `arrival` s.
fn one_transfer(bits: f64, arrival: f64) -> (Cluster, Vec<SimJob>) {
    let cluster = Cluster::uniform(2, BitsPerSec::from_gbps(1)).unwrap();
    let mut b = JobBuilder::new();
    let t = b.transfer_bits(bits, MachineId::new(0), MachineId::new(1));
    let c = b.compute_secs(0.0);
    b.edge(t, c);
    let job = b.build(&cluster).unwrap();
    (
        cluster,
        vec![SimJob::at_secs(arrival, job, JobKind::CustomDag)],
    )
}

#[test]
fn remaining_bandwidth_windows_that_are_not_whole_seconds_lose_no_sample() {
    // Regression: the window walk stepped to `(⌊a/w⌋ + 1)·w`, which in `f64` can equal `a`
    // (0.1 s windows: 3 · 0.1 = 0.30000000000000004, and 0.30000000000000004 / 0.1 rounds to
    // 3.0000000000000004 but 0.6000000000000001 / 0.1 to 6.000000000000001...); where it did,
    // the loop stopped and the rest of the step was dropped. 20 s at full rate from 0.05 s
    // touch windows 0..=200 of 0.1 s on both ports: 201 samples each, every one full but the
    // first and last, and the bits add up to the transfer's.
    let (cluster, jobs) = one_transfer(20e9, 0.05);
    for (window, per_port) in [
        (Nanos::from_millis(100), 201),
        (Nanos::from_secs(1), 21),
        (Nanos::from_secs(10), 3),
    ] {
        for scheduler in [Scheduler::TensorFlow, Scheduler::Varys, Scheduler::TicTac] {
            let cfg = SimConfig::new(scheduler).with_sample_window(window);
            let r = simulate(&cluster, &jobs, &cfg).unwrap();
            assert_eq!(r.remaining.len(), 2 * per_port, "{window:?} {scheduler:?}");
            let w = window.as_secs_f64();
            let bits: f64 = r.remaining.iter().map(|x| (1.0 - x) * 1e9 * w).sum();
            assert!(
                (bits - 2.0 * 20e9).abs() < 1e-6 * 20e9,
                "{window:?}: {bits} bits"
            );
            let full = r.remaining.iter().filter(|&&x| x < 1e-9).count();
            assert_eq!(full, 2 * (per_port - 2), "{window:?} {scheduler:?}");
        }
    }
}

#[test]
fn a_transfer_of_1e300_bits_ends_in_bounded_time() {
    // Regression: usage was recorded window by window, so a finite transfer of 1e300 bits
    // (1e291 s at 1 Gbit/s) walked 1e291 windows under TensorFlow or Varys and never ended.
    // Its DAG traffic now spans too many windows to report, which is a typed error naming the
    // window; without a compute task (no DAG traffic to sample) it runs to its end.
    let (cluster, jobs) = one_transfer(1e300, 0.0);
    for scheduler in [
        Scheduler::TensorFlow,
        Scheduler::Varys,
        Scheduler::Sincronia,
        Scheduler::TicTac,
    ] {
        match simulate(&cluster, &jobs, &SimConfig::new(scheduler)) {
            Err(Error::InvalidParameter {
                name: "sample_window",
                ..
            }) => {}
            other => panic!("{scheduler:?}: {other:?}"),
        }
    }
    let mut b = JobBuilder::new();
    b.transfer_bits(1e300, MachineId::new(0), MachineId::new(1));
    let file = vec![SimJob::at_secs(
        0.0,
        b.build(&cluster).unwrap(),
        JobKind::File,
    )];
    for scheduler in [Scheduler::TensorFlow, Scheduler::Varys] {
        let r = simulate(&cluster, &file, &SimConfig::new(scheduler)).unwrap();
        assert!(
            (r.jobs[0].jct() / 1e291 - 1.0).abs() < 1e-12,
            "{scheduler:?}"
        );
    }
}

#[test]
fn arrivals_outside_the_documented_range_are_refused() {
    // Regression: an arrival near 1e20 s was accepted, and with `f64` seconds (resolution
    // 16,384 s there) the job's completion time came out as 0.
    for arrival in [
        1e20,
        dag_sched::sim::MAX_ARRIVAL_SECS * 2.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
    ] {
        let (cluster, jobs) = one_transfer(1e9, arrival);
        match simulate(&cluster, &jobs, &SimConfig::default()) {
            Err(Error::InvalidParameter {
                name: "arrival",
                value,
                ..
            }) => assert!(value.to_bits() == arrival.to_bits()),
            other => panic!("{arrival}: {other:?}"),
        }
    }
    // At the bound a 1 s job still measures 1 s (to 2^-22 s).
    let (cluster, jobs) = one_transfer(1e9, dag_sched::sim::MAX_ARRIVAL_SECS);
    let r = simulate(&cluster, &jobs, &SimConfig::default()).unwrap();
    assert!((r.jobs[0].jct() - 1.0).abs() <= 1e-6, "{}", r.jobs[0].jct());
}

#[test]
fn jit_level_and_relaxation_counts_are_bounded() {
    // Regression: `simulate` passed JIT's objective and `max_relax` to the LP unchecked (a
    // `Flutter { levels: u32::MAX }` plan allocated terabytes at the first DAG job).
    let (cluster, jobs) = one_transfer(1e9, 0.0);
    for (jit, name) in [
        (
            JitConfig::default().with_objective(Objective::Flutter { levels: u32::MAX }),
            "levels",
        ),
        (
            JitConfig::default().with_objective(Objective::LexLevels { levels: u32::MAX }),
            "levels",
        ),
        (JitConfig::default().with_max_relax(u32::MAX), "max_relax"),
    ] {
        match simulate(&cluster, &jobs, &SimConfig::new(Scheduler::Jit(jit))) {
            Err(Error::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{jit:?}: {other:?}"),
        }
    }
}

#[test]
fn a_coflow_line_of_too_many_flows_is_refused_before_any_flow_is_made() {
    // Regression: one line of 20,000 mappers and 20,000 reducers parsed, and `to_jobs` made
    // 400 million transfers of it.
    let ports = 20_000u32;
    let mut line = format!("1 0 {ports}");
    for p in 0..ports {
        line.push_str(&format!(" {p}"));
    }
    line.push_str(&format!(" {ports}"));
    for p in 0..ports {
        line.push_str(&format!(" {p}:1"));
    }
    let text = format!("{ports} 1\n{line}\n");
    match Trace::parse(&text) {
        Err(Error::Trace { line: 2, reason }) => {
            assert!(reason.contains("MAX_COFLOW_FLOWS"), "{reason}")
        }
        other => panic!("{:?}", other.map(|t| t.coflows.len())),
    }
    // The whole trace is bounded too: 17 coflows of 2^20 flows each cross MAX_TRACE_FLOWS on
    // the 17th (line 18).
    let per = 1u64 << 10;
    assert_eq!(per * per, MAX_COFLOW_FLOWS);
    let coflow = |id: u64| {
        let mut l = format!("{id} 0 {per}");
        for p in 0..per {
            l.push_str(&format!(" {p}"));
        }
        l.push_str(&format!(" {per}"));
        for p in 0..per {
            l.push_str(&format!(" {}:1", per + p));
        }
        l
    };
    let n = MAX_TRACE_FLOWS / MAX_COFLOW_FLOWS + 1;
    let mut text = format!("{} {n}\n", 2 * per);
    for id in 0..n {
        text.push_str(&coflow(id));
        text.push('\n');
    }
    match Trace::parse(&text) {
        Err(Error::Trace { line, reason }) => {
            assert_eq!(line as u64, n + 1, "{reason}");
            assert!(reason.contains("MAX_TRACE_FLOWS"), "{reason}");
        }
        other => panic!("{:?}", other.map(|t| t.coflows.len())),
    }
    // A trace built in code is checked by `to_jobs` as well.
    let wide = Trace {
        ports,
        coflows: vec![Coflow {
            id: 7,
            arrival_ms: 0,
            mappers: (0..ports).collect(),
            reducers: (0..ports).map(|p| (p, 1.0)).collect(),
        }],
    };
    let cluster = Cluster::uniform(ports as usize, BitsPerSec::from_gbps(1)).unwrap();
    assert!(matches!(
        wide.to_jobs(&cluster),
        Err(Error::Trace { line: 2, .. })
    ));
}

#[test]
fn a_transfer_after_a_compute_of_1e300_s_is_left_unplanned_by_jit() {
    // Regression (found by the `dag_builder` fuzz target): after a compute task of 1e300 s a
    // transfer's release and LAT round to the same `f64`, so its LP window is empty; JIT
    // returned the LP's `EmptyWindow` as the run's error. The job is now left unplanned (its
    // transfer goes as background traffic) and the run ends, the job no faster than alone.
    let cluster = Cluster::uniform(2, BitsPerSec::from_gbps(1)).unwrap();
    let mut b = JobBuilder::new();
    let c = b.compute_secs(1e300);
    let t = b.transfer_bits(1e6, MachineId::new(0), MachineId::new(1));
    let d = b.compute_secs(1.0);
    b.edge(c, t).edge(t, d);
    let jobs = [SimJob::at_secs(
        0.0,
        b.build(&cluster).unwrap(),
        JobKind::CustomDag,
    )];
    let r = simulate(
        &cluster,
        &jobs,
        &SimConfig::new(Scheduler::Jit(JitConfig::default())),
    )
    .unwrap();
    assert_eq!((r.lp.planned, r.lp.unplanned), (0, 1));
    assert!(r.jobs[0].finish >= 1e300 && r.jobs[0].jct() >= r.jobs[0].alone * (1.0 - 1e-9));
}
