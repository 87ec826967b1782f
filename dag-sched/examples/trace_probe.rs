//! Replays a coflow trace (the coflow-benchmark format, [`dag_sched::trace`]) through every
//! scheduler on a big switch of 1 Gbit/s ports and prints each one's mean coflow completion
//! time, its event count and the wall time the run took: a profiling probe for the simulator
//! at the size of real traces.
//!
//! `cargo run --release -p dag-sched --example trace_probe -- FILE [COFLOWS] [SCHEDULERS]`
//! (FILE `synthetic` for [`dag_sched::trace::synthesize`]'s trace) where COFLOWS keeps the first that many coflows (default all) and SCHEDULERS is a comma
//! list of `tf`, `tictac`, `sincronia`, `varys`, `coflow-fifo`, `jit`, `jit-lat` (JIT with
//! [`RestPolicy::LatPriority`](dag_sched::sim::RestPolicy::LatPriority)) (default all but
//! `jit-lat`).

use std::time::Instant;

use dag_sched::Cluster;
use dag_sched::sim::{JitConfig, RestPolicy, Scheduler, SimConfig, simulate};
use dag_sched::trace::Trace;
use fabric_model::BitsPerSec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: trace_probe FILE [COFLOWS] [SCHEDULERS]")?;
    // `synthetic`: the seeded trace with FB2010's shape.
    let mut trace = if path == "synthetic" {
        dag_sched::trace::synthesize(&dag_sched::trace::SynthConfig::default())?
    } else {
        Trace::parse(&std::fs::read_to_string(path)?)?
    };
    if let Some(n) = args.get(1) {
        trace.coflows.truncate(n.parse()?);
    }
    let which = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "tf,tictac,sincronia,varys,jit".into());
    let cluster = Cluster::uniform(trace.ports as usize, BitsPerSec::from_gbps(1))?;
    let jobs = trace.to_jobs(&cluster)?;
    let flows: usize = jobs.iter().map(|j| j.job.transfers().len()).sum();
    println!(
        "{} coflows, {flows} flows, {} ports",
        jobs.len(),
        trace.ports
    );
    for name in which.split(',') {
        let s = match name {
            "tf" => Scheduler::TensorFlow,
            "tictac" => Scheduler::TicTac,
            "sincronia" => Scheduler::Sincronia,
            "varys" => Scheduler::Varys,
            "coflow-fifo" => Scheduler::CoflowFifo,
            "jit" => Scheduler::Jit(JitConfig::default()),
            "jit-lat" => Scheduler::Jit(JitConfig::default().with_rest(RestPolicy::LatPriority)),
            other => return Err(format!("unknown scheduler {other}").into()),
        };
        let t0 = Instant::now();
        let r = simulate(&cluster, &jobs, &SimConfig::new(s))?;
        println!(
            "{name:>10}: mean CCT {:.9} s, {} events, {:.2} s wall",
            r.mean_jct(None),
            r.events,
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
