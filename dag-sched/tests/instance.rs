//! JSON job sets: the committed example, every bad input with its precise error, and the LP's
//! answer against the same problem built directly in Rust.

use dag_sched::instance::{DEFAULT_ALPHA, Instance};
use dag_sched::lp::{self, Backend, LpTransfer, Objective, Reservations};
use dag_sched::{Cluster, Error, Job, JobBuilder, LatMethod, MachineId, NodeKind, TaskId, lat};
use fabric_model::{BitsPerSec, Nanos};

const EXAMPLE: &str = include_str!("../instances/two_jobs.json");

#[test]
fn parses_the_committed_example() {
    let inst = Instance::parse(EXAMPLE).unwrap();
    assert_eq!(
        inst.cluster(),
        &Cluster::uniform(3, BitsPerSec::from_gbps(1)).unwrap()
    );
    assert_eq!(inst.slot_secs(), 0.4);
    assert_eq!(inst.alpha(), 1.0);
    assert_eq!(inst.arrivals(), &[0.0, 0.5]);
    let jobs = inst.jobs();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0].len(), 4);
    assert_eq!(
        jobs[0].node(TaskId::new(2)),
        NodeKind::Transfer {
            size: 2e9,
            src: MachineId::new(1),
            dst: MachineId::new(2)
        }
    );
    assert_eq!(
        jobs[0].node(TaskId::new(1)),
        NodeKind::Compute { load: 1.0 }
    );
    assert_eq!(
        jobs[0].preds(TaskId::new(3)),
        &[TaskId::new(1), TaskId::new(2)]
    );
    assert_eq!(jobs[1].transfers(), &[TaskId::new(0)]);
}

#[test]
fn alpha_and_edges_and_arrival_have_defaults() {
    let inst = Instance::parse(
        r#"{"machines":2,"capacity":1,"slot":1,"jobs":[{"nodes":[{"compute":1}]}]}"#,
    )
    .unwrap();
    assert_eq!(inst.alpha(), DEFAULT_ALPHA);
    assert_eq!(inst.arrivals(), &[0.0]);
    assert!(inst.jobs()[0].succs(TaskId::new(0)).is_empty());
}

fn json_err(text: &str) -> (usize, usize, String) {
    match Instance::parse(text) {
        Err(Error::InstanceJson {
            line,
            column,
            reason,
        }) => (line, column, reason),
        other => panic!("expected InstanceJson, got {other:?}"),
    }
}

fn at(text: &str) -> (String, Error) {
    match Instance::parse(text) {
        Err(Error::Instance { path, source }) => (path, *source),
        other => panic!("expected Instance, got {other:?}"),
    }
}

#[test]
fn missing_field_is_located() {
    let (line, column, reason) = json_err("{\"machines\": 2,\n \"capacity\": 1,\n \"jobs\": []\n}");
    assert_eq!(reason, "missing field `slot`");
    assert_eq!((line, column), (4, 1));
    let (line, _, reason) = json_err(
        "{\"machines\":2,\"capacity\":1,\"slot\":1,\"jobs\":[\n{\"nodes\":[{\"transfer\":{\"size\":1,\"src\":0}}]}]}",
    );
    assert_eq!(reason, "missing field `dst`");
    assert_eq!(line, 2);
}

#[test]
fn wrong_type_is_located() {
    let (line, column, reason) =
        json_err("{\"machines\": 2, \"capacity\": \"fast\", \"slot\": 1, \"jobs\": []}");
    assert!(
        reason.starts_with("invalid type: string \"fast\""),
        "{reason}"
    );
    assert_eq!((line, column), (1, 34));
    // A negative machine id is not a u32.
    let (_, _, reason) = json_err(
        r#"{"machines":2,"capacity":1,"slot":1,"jobs":[{"nodes":[{"transfer":{"size":1,"src":-1,"dst":0}}]}]}"#,
    );
    assert!(
        reason.starts_with("invalid value: integer `-1`"),
        "{reason}"
    );
}

#[test]
fn unknown_field_and_node_kind_are_refused() {
    let (_, _, reason) = json_err(r#"{"machines":2,"capacity":1,"slot":1,"jobs":[],"alfa":0.5}"#);
    assert!(reason.starts_with("unknown field `alfa`"), "{reason}");
    let (_, _, reason) =
        json_err(r#"{"machines":2,"capacity":1,"slot":1,"jobs":[{"nodes":[{"sleep":1}]}]}"#);
    assert!(reason.starts_with("unknown variant `sleep`"), "{reason}");
}

#[test]
fn syntax_error_is_located() {
    let (line, column, _) = json_err("{\"machines\": 2,\n  \"capacity\": 1,,\n}");
    assert_eq!((line, column), (2, 17));
}

#[test]
fn unknown_machine_names_job_and_node() {
    let (path, e) = at(
        r#"{"machines":2,"capacity":1,"slot":1,"jobs":[{"nodes":[{"compute":1}]},
            {"nodes":[{"compute":1},{"transfer":{"size":1,"src":0,"dst":2}}]}]}"#,
    );
    assert_eq!(path, "jobs[1]");
    assert_eq!(
        e,
        Error::UnknownMachine {
            node: TaskId::new(1),
            machine: MachineId::new(2),
            machines: 2
        }
    );
}

#[test]
fn cycle_is_named() {
    let (path, e) = at(
        r#"{"machines":2,"capacity":1,"slot":1,"jobs":[{"nodes":[{"compute":1},{"compute":1},{"compute":1}],"edges":[[0,1],[1,2],[2,1]]}]}"#,
    );
    assert_eq!(path, "jobs[0]");
    assert_eq!(
        e,
        Error::Cycle {
            cycle: vec![TaskId::new(1), TaskId::new(2), TaskId::new(1)]
        }
    );
}

#[test]
fn unknown_node_self_transfer_and_bad_size() {
    let base = r#"{"machines":2,"capacity":1,"slot":1,"jobs":[{"nodes":[NODES],"edges":[EDGES]}]}"#;
    let doc = |nodes: &str, edges: &str| base.replace("NODES", nodes).replace("EDGES", edges);
    let (_, e) = at(&doc(r#"{"compute":1}"#, "[0,3]"));
    assert_eq!(
        e,
        Error::UnknownNode {
            from: TaskId::new(0),
            to: TaskId::new(3),
            unknown: TaskId::new(3)
        }
    );
    let (_, e) = at(&doc(r#"{"transfer":{"size":1,"src":1,"dst":1}}"#, ""));
    assert_eq!(
        e,
        Error::SelfTransfer {
            node: TaskId::new(0),
            machine: MachineId::new(1)
        }
    );
    let (_, e) = at(&doc(r#"{"compute":-2}"#, ""));
    assert_eq!(
        e,
        Error::InvalidValue {
            node: TaskId::new(0),
            what: "load",
            value: -2.0
        }
    );
}

#[test]
fn zero_capacity() {
    let (path, e) = at(r#"{"machines":2,"capacity":0,"slot":1,"jobs":[]}"#);
    assert_eq!(path, "capacity");
    assert_eq!(
        e,
        Error::ZeroCapacity {
            machine: MachineId::new(0),
            direction: "egress",
            capacity: 0.0
        }
    );
}

#[test]
fn bad_alpha_slot_arrival_and_machines() {
    let (path, e) = at(r#"{"machines":2,"capacity":1,"slot":1,"alpha":1.5,"jobs":[]}"#);
    assert_eq!(path, "alpha");
    assert!(matches!(e, Error::InvalidParameter { name: "alpha", value, .. } if value == 1.5));
    let (path, e) = at(r#"{"machines":2,"capacity":1,"slot":0,"jobs":[]}"#);
    assert_eq!(path, "slot");
    assert!(matches!(e, Error::InvalidParameter { name: "slot", value, .. } if value == 0.0));
    let (path, e) = at(
        r#"{"machines":2,"capacity":1,"slot":1,"jobs":[{"nodes":[]},{"arrival":-1,"nodes":[]}]}"#,
    );
    assert_eq!(path, "jobs[1].arrival");
    assert!(matches!(
        e,
        Error::InvalidParameter {
            name: "arrival",
            ..
        }
    ));
    let (path, e) = at(r#"{"machines":4000000000,"capacity":1,"slot":1,"jobs":[]}"#);
    assert_eq!(path, "machines");
    assert!(matches!(
        e,
        Error::InvalidParameter {
            name: "machines",
            ..
        }
    ));
}

/// The same LP built by hand: JIT's rule for one job arriving at `arrival`.
fn direct(cluster: &Cluster, job: &Job, arrival: f64, alpha: f64) -> Vec<LpTransfer> {
    let est = lat::estimate(job, cluster, LatMethod::Algorithm1);
    let n = lp::alpha_prefix(job.transfers().len(), alpha).unwrap();
    // The n transfers of smallest LAT (ties: topological order), smallest first.
    let mut ids = job.transfers().to_vec();
    ids.sort_by(|&a, &b| est.lat(a).unwrap().total_cmp(&est.lat(b).unwrap()));
    ids[..n]
        .iter()
        .map(|&id| {
            let NodeKind::Transfer { size, src, dst } = job.node(id) else {
                unreachable!()
            };
            let tr = lat::trans(job, cluster, id).unwrap();
            let release = arrival + (est.eat(id).unwrap() - tr).max(0.0);
            let deadline = (arrival + est.lat(id).unwrap()).max(release + tr);
            LpTransfer::new(src, dst, size, release, deadline).for_task(id)
        })
        .collect()
}

#[test]
fn lp_answer_equals_the_solver_built_directly() {
    let inst = Instance::parse(EXAMPLE).unwrap();
    let cluster = Cluster::uniform(3, BitsPerSec::from_gbps(1)).unwrap();
    let mut b = JobBuilder::new();
    let t0 = b.transfer_bits(1e9, MachineId::new(0), MachineId::new(2));
    let c1 = b.compute_secs(1.0);
    let t2 = b.transfer_bits(2e9, MachineId::new(1), MachineId::new(2));
    let c3 = b.compute_secs(1.0);
    b.edge(t0, c1).edge(c1, c3).edge(t2, c3);
    let j0 = b.build(&cluster).unwrap();
    let mut b = JobBuilder::new();
    let t = b.transfer_bits(1e9, MachineId::new(1), MachineId::new(0));
    let c = b.compute_secs(0.5);
    b.edge(t, c);
    let j1 = b.build(&cluster).unwrap();
    assert_eq!(inst.jobs(), &[j0.clone(), j1.clone()]);

    let mut transfers = direct(&cluster, &j0, 0.0, 1.0);
    transfers.extend(direct(&cluster, &j1, 0.5, 1.0));
    assert_eq!(inst.lp_transfers().unwrap(), transfers);
    for backend in Backend::all() {
        let want = lp::solve(
            &cluster,
            &transfers,
            &Reservations::new(),
            Nanos::from_millis(400),
            Objective::MinMax,
            backend,
        )
        .unwrap();
        let got = inst.solve(backend).unwrap();
        assert!(
            (got.min_max - want.min_max).abs() < 1e-9,
            "{got:?} {want:?}"
        );
        assert_eq!(
            (got.variables, got.constraints),
            (want.variables, want.constraints)
        );
        // By hand: job 0's first transfer (1 Gb, LAT 1 s) must arrive by 1 s exactly (slots
        // 0 and 1 of 0.4 s whole, and the first half of slot 2), so it needs the whole port
        // throughout: U* = 1 (to the nanosecond of slack the window's rounding gets). With
        // windows rounded outward to whole slots (1.2 s) it was 1/1.2, a plan that ended
        // 0.2 s after the LAT.
        assert!((got.min_max - 1.0).abs() < 1e-8, "{got:?}");
    }
}

#[test]
fn lp_answer_on_a_hand_checked_instance() {
    // One 3-bit transfer that must be done by its LAT = 3 s on unit ports with 1 s slots
    // (nothing before it): it needs the full port in every slot, U* = 1. Doubling the capacity
    // halves its transfer time, and so its LAT and window.
    let text = r#"{"machines":2,"capacity":CAP,"slot":1,"alpha":1,
        "jobs":[{"nodes":[{"transfer":{"size":3,"src":0,"dst":1}},{"compute":1}],"edges":[[0,1]]}]}"#;
    let inst = Instance::parse(&text.replace("CAP", "1")).unwrap();
    let ts = inst.lp_transfers().unwrap();
    assert_eq!(ts.len(), 1);
    let plan = inst.solve(Backend::Microlp).unwrap();
    assert!((plan.min_max - 1.0).abs() < 1e-8, "{plan:?}");
    let inst = Instance::parse(&text.replace("CAP", "2")).unwrap();
    let plan = inst.solve(Backend::Microlp).unwrap();
    // LAT is now 1.5 s: slot 0 whole and the first half of slot 1, which carries at most 1 bit
    // at capacity 2, so slot 0 carries 2 bits: U* = 1. (Windows rounded outward to whole
    // slots gave 0.75: 1.5 bits a slot, a plan ending half a slot after the LAT.)
    assert!((plan.min_max - 1.0).abs() < 1e-8, "{plan:?}");
    assert!((plan.rate(0, 0) - 2.0).abs() < 1e-8 && (plan.rate(0, 1) - 1.0).abs() < 1e-8);
    // Sent as planned, it is done by its LAT: 2 bits/s throughout [0, 1.5 s), none after.
    assert!((plan.rate_at(0, 1.2) - 2.0).abs() < 1e-6 && plan.rate_at(0, 1.6) == 0.0);
    assert!((plan.planned_bits(0, 1.5) - 3.0).abs() < 1e-6);
}
