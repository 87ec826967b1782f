//! Prints every coflow's completion time under one scheduler, one line per coflow in trace
//! order: `<coflow id> <arrival s> <CCT s>`, for comparisons per coflow with another simulator
//! (`dag-sched/scripts/coflowsim.sh`).
//!
//! `cargo run --release -p dag-sched --example coflow_cct -- TRACE SCHEDULER`, SCHEDULER one
//! of `fair` (max-min fair sharing, the TensorFlow order on coflows), `coflow-fifo`, `varys`,
//! `sincronia`, `tictac` (FIFO + TicTac: a strict per-flow priority on coflows); on a big
//! switch of 1 Gbit/s ports.

use dag_sched::Cluster;
use dag_sched::sim::{Scheduler, SimConfig, simulate};
use dag_sched::trace::Trace;
use fabric_model::BitsPerSec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, name] = args.as_slice() else {
        return Err("usage: coflow_cct TRACE SCHEDULER".into());
    };
    let scheduler = match name.as_str() {
        "fair" => Scheduler::TensorFlow,
        "coflow-fifo" => Scheduler::CoflowFifo,
        "varys" => Scheduler::Varys,
        "sincronia" => Scheduler::Sincronia,
        "tictac" => Scheduler::TicTac,
        other => return Err(format!("unknown scheduler {other}").into()),
    };
    let trace = Trace::parse(&std::fs::read_to_string(path)?)?;
    let cluster = Cluster::uniform(trace.ports as usize, BitsPerSec::from_gbps(1))?;
    let jobs = trace.to_jobs(&cluster)?;
    let r = simulate(&cluster, &jobs, &SimConfig::new(scheduler))?;
    for (c, o) in trace.coflows.iter().zip(&r.jobs) {
        println!("{} {} {:.9}", c.id, o.arrival, o.jct());
    }
    Ok(())
}
