//! Prints every coflow's completion time under one scheduler, one line per coflow in trace
//! order: `<coflow id> <arrival s> <CCT s>`, for comparisons per coflow with another simulator
//! (`dag-sched/scripts/coflowsim.sh`).
//!
//! `cargo run --release -p dag-sched --example coflow_cct -- TRACE SCHEDULER [OPTION...]`,
//! SCHEDULER one of `fair` (max-min fair sharing, the TensorFlow order on coflows),
//! `coflow-fifo`, `varys`, `varys-coflowsim` (Varys as coflowsim runs it), `sincronia`,
//! `tictac` (FIFO + TicTac: a strict per-flow priority on coflows); on a big switch of
//! 1 Gbit/s ports. Options, each one of coflowsim's conventions:
//! - `same-port`: keep the flows whose mapper is on the reducer's port
//!   (`trace::SamePort::Coflowsim`);
//! - `epochs`: a coflow arrives at the start of the 10.24 s epoch that admits it (coflowsim
//!   admits at each multiple of 10,240 ms the coflows arriving up to the next one, and
//!   counts their completion time from there); the arrival and CCT printed are from it.

use dag_sched::Cluster;
use dag_sched::sim::{Scheduler, SimConfig, simulate};
use dag_sched::trace::{SamePort, Trace};
use fabric_model::BitsPerSec;

/// coflowsim's admission epoch, trace milliseconds.
const EPOCH_MS: u64 = 10_240;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, name, options @ ..] = args.as_slice() else {
        return Err("usage: coflow_cct TRACE SCHEDULER [same-port] [epochs]".into());
    };
    let scheduler = match name.as_str() {
        "fair" => Scheduler::TensorFlow,
        "coflow-fifo" => Scheduler::CoflowFifo,
        "varys" => Scheduler::Varys,
        "varys-coflowsim" => Scheduler::VarysCoflowsim,
        "sincronia" => Scheduler::Sincronia,
        "tictac" => Scheduler::TicTac,
        other => return Err(format!("unknown scheduler {other}").into()),
    };
    let (mut same_port, mut epochs) = (SamePort::Drop, false);
    for o in options {
        match o.as_str() {
            "same-port" => same_port = SamePort::Coflowsim,
            "epochs" => epochs = true,
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let mut trace = Trace::parse(&std::fs::read_to_string(path)?)?;
    if epochs {
        // Admitted at the first epoch start E with arrival <= E + EPOCH_MS.
        for c in &mut trace.coflows {
            c.arrival_ms = c.arrival_ms.saturating_sub(1).div_euclid(EPOCH_MS) * EPOCH_MS;
        }
    }
    let cluster = Cluster::uniform(trace.ports as usize, BitsPerSec::from_gbps(1))?;
    let jobs = trace.to_jobs_with(&cluster, same_port)?;
    let r = simulate(&cluster, &jobs, &SimConfig::new(scheduler))?;
    for (c, o) in trace.coflows.iter().zip(&r.jobs) {
        println!("{} {} {:.9}", c.id, o.arrival, o.jct());
    }
    Ok(())
}
