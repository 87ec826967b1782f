//! Entry points for the cargo-fuzz targets (`coflow_trace`, `dag_instance`, `dag_builder`) and
//! the replay of their committed corpora (`tests/corpus/`). Compiled for tests and under
//! `--cfg fuzzing` only.

use crate::cluster::{Cluster, MachineId};
use crate::job::{JobBuilder, NodeKind, TaskId};
use crate::lat::{self, LatMethod};
use crate::sim::{JitConfig, Scheduler, SimConfig, simulate};
use crate::trace::Trace;
use crate::workload::{JobKind, SimJob};
use crate::{Error, Job};

/// A value for a load (s) or a size (Mbit) from one byte: small multiples of 1/16 mostly, and
/// the values a caller should not pass (NaN, negative, infinite, huge, zero).
fn value(b: u8) -> f64 {
    match b {
        250 => f64::NAN,
        251 => -1.0,
        252 => f64::INFINITY,
        253 => 1e300,
        254 => f64::MIN_POSITIVE,
        255 => 0.0,
        _ => f64::from(b) / 16.0,
    }
}

/// Builds a job through [`JobBuilder`] from arbitrary bytes, three at a time: an operation
/// (compute task, transfer, edge) and two operands (a value byte, machine or node ids, which
/// may name machines the cluster lacks and nodes the job lacks). On 4 machines of 1 Gbit/s.
///
/// When it builds: the topological order and the transfer list are consistent with the
/// edges, every node id is checked by [`Job::get`] and [`lat::trans`] (one past the end is
/// [`Error::ForeignNode`]), both LAT methods give every transfer a finite LAT no earlier than
/// its earliest arrival (to within rounding of the makespan), and the simulator (TensorFlow's
/// order; JIT too when the job is small) either runs it, each job no faster than alone, or
/// refuses it with a typed error. When it does not build, the error is one of the builder's.
/// Never panics on any input.
pub fn dag_builder(data: &[u8]) {
    let cluster = Cluster::uniform(4, fabric_model::BitsPerSec::from_gbps(1))
        .expect("four machines of 1 Gbit/s");
    let mut b = JobBuilder::new();
    for op in data.chunks_exact(3).take(256) {
        let n = b.len() as u32 + 2; // ids up to two past the end
        match op[0] % 4 {
            0 => {
                b.compute_secs(value(op[1]));
            }
            1 | 2 => {
                let (src, dst) = (u32::from(op[2] >> 4) % 6, u32::from(op[2] & 15) % 6);
                b.transfer_bits(value(op[1]) * 1e6, MachineId::new(src), MachineId::new(dst));
            }
            _ => {
                b.edge(
                    TaskId::new(u32::from(op[1]) % n),
                    TaskId::new(u32::from(op[2]) % n),
                );
            }
        }
    }
    let nodes = b.len();
    let job = match b.build(&cluster) {
        Ok(job) => job,
        Err(e) => {
            assert!(
                matches!(
                    e,
                    Error::UnknownNode { .. }
                        | Error::InvalidValue { .. }
                        | Error::UnknownMachine { .. }
                        | Error::SelfTransfer { .. }
                        | Error::Cycle { .. }
                ),
                "unexpected build error {e:?}"
            );
            return;
        }
    };
    check_built(&job, nodes, &cluster);
}

/// The checks of [`dag_builder`] on a job that built.
fn check_built(job: &Job, nodes: usize, cluster: &Cluster) {
    assert_eq!(job.len(), nodes);
    let mut pos = vec![usize::MAX; nodes];
    for (k, v) in job.topo_order().iter().enumerate() {
        assert_eq!(
            pos[v.index()],
            usize::MAX,
            "{v} twice in the topological order"
        );
        pos[v.index()] = k;
    }
    for v in 0..nodes {
        let id = TaskId::new(v as u32);
        assert!(job.get(id).is_ok() && lat::trans(job, cluster, id).is_ok());
        for &s in job.succs(id) {
            assert!(
                pos[v] < pos[s.index()],
                "edge {id} -> {s} against the order"
            );
        }
    }
    let foreign = TaskId::new(nodes as u32);
    assert_eq!(
        lat::trans(job, cluster, foreign),
        Err(Error::ForeignNode {
            node: foreign,
            nodes
        })
    );
    let transfers: Vec<TaskId> = job
        .topo_order()
        .iter()
        .copied()
        .filter(|&v| job.node(v).is_transfer())
        .collect();
    assert_eq!(job.transfers(), transfers.as_slice());
    for method in [LatMethod::Algorithm1, LatMethod::BackwardCpm] {
        let est = lat::estimate(job, cluster, method);
        for &t in job.transfers() {
            let (l, e) = (est.lat(t), est.eat(t));
            let (Some(l), Some(e)) = (l, e) else {
                panic!("{t}: LAT {l:?}, EAT {e:?}");
            };
            // Exact arithmetic gives LAT ≥ EAT; in `f64` both come within rounding of the
            // job's makespan (a 1e306-bit transfer after a short one: the backward pass's
            // `makespan − 1e297` is 0 where the short one's EAT is 1 ms).
            let slack = 1e-9 * est.makespan().max(1.0);
            assert!(
                l.is_finite() && l >= e - slack,
                "{t}: LAT {l} before EAT {e} (makespan {})",
                est.makespan()
            );
        }
        for v in job.topo_order() {
            if let NodeKind::Compute { .. } = job.node(*v) {
                assert_eq!(est.lat(*v), None);
            }
        }
    }
    let jobs = [SimJob::at_secs(0.0, job.clone(), JobKind::CustomDag)];
    let mut schedulers = vec![Scheduler::TensorFlow];
    if job.transfers().len() <= 8 && nodes <= 32 {
        schedulers.push(Scheduler::Jit(JitConfig::default()));
        schedulers.push(Scheduler::Jit(
            JitConfig::default().with_rest(crate::sim::RestPolicy::Varys),
        ));
    }
    for s in schedulers {
        match simulate(cluster, &jobs, &SimConfig::new(s)) {
            Ok(r) => {
                let o = r.jobs[0];
                assert!(o.jct() >= o.alone * (1.0 - 1e-9) - 1e-9, "{s:?}: {o}");
            }
            Err(e) => assert!(
                matches!(e, Error::InvalidParameter { .. }),
                "{s:?}: unexpected error {e:?}"
            ),
        }
    }
}

/// Parses arbitrary bytes as a coflow trace; when it parses, writing it back and reparsing must
/// give the same trace. Never panics on any input (a panic is a bug the fuzzer reports).
pub fn coflow_trace(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(trace) = Trace::parse(text) {
        let mut out = String::new();
        trace
            .write(&mut out)
            .expect("writing to a String cannot fail");
        let again = Trace::parse(&out).expect("a written trace parses");
        assert_eq!(again, trace, "write-parse round trip");
    }
}

/// Parses arbitrary bytes as a JSON job set ([`crate::instance`]); when it parses, the LP's
/// transfers must be `⌈α·n⌉` per job, on the cluster's machines, with the job's sizes and a
/// window that does not end before it starts. Never panics on any input.
#[cfg(feature = "json")]
pub fn dag_instance(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(inst) = crate::instance::Instance::parse(text) else {
        return;
    };
    let ts = inst
        .lp_transfers()
        .expect("a parsed instance has a valid alpha");
    let mut k = 0;
    for job in inst.jobs() {
        let n = crate::lp::alpha_prefix(job.transfers().len(), inst.alpha())
            .expect("a parsed instance has a valid alpha");
        let est = lat::estimate(job, inst.cluster(), LatMethod::Algorithm1);
        for id in crate::lp::alpha_selection(job, &est, n) {
            let t = ts.get(k).expect("one LP transfer per selected transfer");
            let NodeKind::Transfer { size, src, dst } = job.node(id) else {
                panic!("transfers() lists transfers");
            };
            assert_eq!((t.size, t.src, t.dst), (size, src, dst));
            assert!(inst.cluster().machine(t.src).is_some());
            assert!(inst.cluster().machine(t.dst).is_some());
            assert!(
                t.deadline >= t.release,
                "window ends before it starts: {t:?}"
            );
            k += 1;
        }
    }
    assert_eq!(k, ts.len(), "no extra LP transfer");
}

#[cfg(test)]
mod tests {
    /// Runs `check` on every file of the committed corpus of `target`; returns how many.
    fn replay(target: &str, check: fn(&[u8])) -> usize {
        let dir =
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus")).join(target);
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).expect("corpus directory exists") {
            let path = entry.expect("readable entry").path();
            check(&std::fs::read(&path).expect("readable corpus file"));
            n += 1;
        }
        n
    }

    #[test]
    fn replay_coflow_trace_corpus() {
        let n = replay("coflow_trace", super::coflow_trace);
        assert!(n >= 5, "expected the committed corpus, found {n} files");
    }

    #[test]
    fn replay_dag_builder_corpus() {
        let n = replay("dag_builder", super::dag_builder);
        assert!(n >= 5, "expected the committed corpus, found {n} files");
    }

    #[test]
    #[cfg(feature = "json")]
    fn replay_dag_instance_corpus() {
        let n = replay("dag_instance", super::dag_instance);
        assert!(n >= 5, "expected the committed corpus, found {n} files");
    }
}
