//! The cluster bridge: the simulator on a fabric's links, routed by min-hop paths.

use dag_sched::models::Model;
use dag_sched::sim::{JitConfig, RestPolicy, Scheduler, SimConfig, SimResult, simulate};
use dag_sched::workload::{JobKind, SimJob, WorkloadConfig, file_job, generate};
use dag_sched::{Cluster, JobBuilder, MachineId, lat};
use fabric_model::{
    Bytes, DEFAULT_LATENCY, Fabric, FabricBuilder, HopTable, LinkRate, LinkSpeed, LinkWidth, Nanos,
    PortNo, generators,
};

fn schedulers() -> Vec<Scheduler> {
    let jit = JitConfig::default().with_slot(Nanos::from_millis(10));
    vec![
        Scheduler::TensorFlow,
        Scheduler::TicTac,
        Scheduler::Sincronia,
        Scheduler::Varys,
        Scheduler::Jit(jit),
        Scheduler::Jit(jit.with_rest(RestPolicy::Background)),
    ]
}

fn on_fabric(f: &Fabric) -> Cluster {
    Cluster::from_fabric(f, &HopTable::new(f).expect("hop table")).expect("routable fabric")
}

/// Ten DAG jobs and eight files of 256 MiB or 1 GiB between 16 machines, arriving in about
/// 40 ms.
fn workload(cluster: &Cluster) -> Vec<SimJob> {
    let cfg = WorkloadConfig::default()
        .with_dag_jobs(10)
        .with_file_jobs(8)
        .with_models(vec![Model::LeNet, Model::AlexNet])
        .with_file_sizes(vec![Bytes::from_mib(256), Bytes::from_mib(1024)])
        .with_mean_interarrival_secs(0.002)
        .with_seed(11);
    generate(cluster, &cfg).expect("valid workload")
}

fn run(cluster: &Cluster, s: Scheduler) -> SimResult {
    simulate(cluster, &workload(cluster), &SimConfig::new(s).with_seed(3)).expect("runs")
}

#[test]
fn single_switch_fabric_is_the_big_switch() {
    let rate = LinkRate::EDR_4X;
    let big = Cluster::uniform(16, rate.bandwidth()).unwrap();
    let fabric = on_fabric(&generators::single_switch(16, rate).unwrap());
    assert!(big.is_big_switch() && !fabric.is_big_switch());
    assert_eq!(workload(&big), workload(&fabric));
    for s in schedulers() {
        let (a, b) = (run(&big, s), run(&fabric, s));
        assert!(a.events > 10, "{}", s.name());
        assert_eq!(a, b, "{}", s.name());
    }
}

#[test]
fn a_tapered_core_slows_the_jobs() {
    // 4 leaves of 4 terminals under one spine: each leaf's 4 terminals share one up-link
    // (4:1 oversubscription), where the big switch of the same 16 terminals blocks nowhere.
    let rate = LinkRate::EDR_4X;
    let big = on_fabric(&generators::single_switch(16, rate).unwrap());
    let thin = on_fabric(&generators::tapered_fat_tree(4, 4, 1).unwrap());
    assert_eq!(workload(&big), workload(&thin));
    // Min-hop routing takes the lowest-numbered port towards the destination (no load
    // balancing), so four spines route every flow over the first one: the same results.
    let four = on_fabric(&generators::tapered_fat_tree(4, 4, 4).unwrap());
    for s in schedulers() {
        let (a, b) = (run(&big, s), run(&thin, s));
        assert!(a.max_conservation_error < 1e-9 && b.max_conservation_error < 1e-9);
        assert!(a.max_port_utilisation <= 1.0 + 1e-9 && b.max_port_utilisation <= 1.0 + 1e-9);
        let (ja, jb) = (a.mean_jct(None), b.mean_jct(None));
        assert!(jb > 1.05 * ja, "{}: {ja} vs {jb}", s.name());
        let files = Some(JobKind::File);
        assert!(b.mean_jct(files) > a.mean_jct(files), "{}", s.name());
        assert_eq!(run(&four, s).jobs, b.jobs, "{}", s.name());
    }
}

/// Two switches of two terminals each (terminals 0, 1 on the first, 2, 3 on the second),
/// joined by one link of `core`; terminal links are 4x EDR (100 Gb/s).
fn dumbbell(core: LinkRate) -> Fabric {
    let mut b = FabricBuilder::new();
    let s = [b.add_switch(3).unwrap(), b.add_switch(3).unwrap()];
    for (k, &sw) in [s[0], s[0], s[1], s[1]].iter().enumerate() {
        let t = b.add_terminal(1).unwrap();
        let port = PortNo::new(k as u16 % 2 + 1);
        b.link_with(
            t,
            PortNo::new(1),
            sw,
            port,
            LinkRate::EDR_4X,
            DEFAULT_LATENCY,
        )
        .unwrap();
    }
    b.link_with(
        s[0],
        PortNo::new(3),
        s[1],
        PortNo::new(3),
        core,
        DEFAULT_LATENCY,
    )
    .unwrap();
    b.build().unwrap()
}

#[test]
fn flows_share_the_links_they_cross() {
    // A 1x EDR (25 Gb/s) core link: a transfer across it runs at 25 Gb/s alone (trans(i) of
    // formula (1) is its size over the slowest link of its path), one inside a switch at
    // 100 Gb/s.
    let slow = LinkRate {
        width: LinkWidth::X1,
        speed: LinkSpeed::Edr,
    };
    let c = on_fabric(&dumbbell(slow));
    let m = MachineId::new;
    assert_eq!(c.path_capacity(m(0), m(2)), 25e9);
    assert_eq!(c.path_capacity(m(0), m(1)), 100e9);
    let mut jb = JobBuilder::new();
    let t = jb.transfer(Bytes::new(1_250_000), m(0), m(2));
    let job = jb.build(&c).unwrap();
    assert!((lat::trans(&job, &c, t).unwrap() - 4e-4).abs() < 1e-15);
    // Two files of 1 Gb: 0 -> 2 and 1 -> 3 share the core link (each at 12.5 Gb/s, 80 ms);
    // 0 -> 1 crosses no core link: alone on its links at 100 Gb/s it takes 10 ms, and
    // beside 0 -> 2 on machine 0's up-link it still gets 100 - 12.5 Gb/s after max-min
    // filling (the core holds 0 -> 2 back).
    let gb = Bytes::new(125_000_000);
    let jobs: Vec<SimJob> = [(0, 2), (1, 3), (0, 1)]
        .iter()
        .map(|&(a, b)| {
            SimJob::new(
                Nanos::ZERO,
                file_job(gb, m(a), m(b), &c).unwrap(),
                JobKind::File,
            )
        })
        .collect();
    let r = simulate(&c, &jobs, &SimConfig::new(Scheduler::TensorFlow)).unwrap();
    let fin: Vec<f64> = r.jobs.iter().map(|j| j.finish).collect();
    assert!(
        (fin[0] - 0.08).abs() < 1e-9 && (fin[1] - 0.08).abs() < 1e-9,
        "{fin:?}"
    );
    assert!((fin[2] - 1e9 / 87.5e9).abs() < 1e-9, "{fin:?}");
    // On the big switch the same three files finish at 20 ms (0 -> 2 and 0 -> 1 share
    // machine 0's up-link) and 10 ms.
    let big = Cluster::uniform(4, LinkRate::EDR_4X.bandwidth()).unwrap();
    let r = simulate(&big, &jobs, &SimConfig::new(Scheduler::TensorFlow)).unwrap();
    let fin: Vec<f64> = r.jobs.iter().map(|j| j.finish).collect();
    assert!(
        (fin[0] - 0.02).abs() < 1e-9 && (fin[1] - 0.01).abs() < 1e-9,
        "{fin:?}"
    );
    assert!((fin[2] - 0.02).abs() < 1e-9, "{fin:?}");
}

#[test]
fn unroutable_fabrics_are_errors() {
    // Two terminals wired to each other: no switch to hang off.
    let mut b = FabricBuilder::new();
    let (x, y) = (b.add_terminal(1).unwrap(), b.add_terminal(1).unwrap());
    b.link(x, PortNo::new(1), y, PortNo::new(1)).unwrap();
    let f = b.build().unwrap();
    assert_eq!(
        Cluster::from_fabric(&f, &HopTable::new(&f).unwrap()),
        Err(dag_sched::Error::NoSwitch { terminal: x.get() })
    );
    // Two switches that do not reach each other.
    let mut b = FabricBuilder::new();
    for _ in 0..2 {
        let s = b.add_switch(1).unwrap();
        let t = b.add_terminal(1).unwrap();
        b.link(t, PortNo::new(1), s, PortNo::new(1)).unwrap();
    }
    let f = b.build().unwrap();
    assert!(matches!(
        Cluster::from_fabric(&f, &HopTable::new(&f).unwrap()),
        Err(dag_sched::Error::Fabric(fabric_model::Error::NoPath { .. }))
    ));
    // A hop table of another fabric.
    let other = generators::fat_tree(4).unwrap();
    let f = generators::single_switch(4, LinkRate::EDR_4X).unwrap();
    assert!(matches!(
        Cluster::from_fabric(&f, &HopTable::new(&other).unwrap()),
        Err(dag_sched::Error::Fabric(
            fabric_model::Error::HopTableMismatch { .. }
        ))
    ));
}
