//! Reader and writer of the public coflow trace format of the coflow-benchmark
//! (`FB2010-1Hr-150-0.txt`), so users can replay their own traces through the simulator.
//!
//! ```text
//! <#ports> <#coflows>
//! <coflow id> <arrival ms> <#mappers> <mapper port>… <#reducers> <reducer port>:<shuffle MB>…
//! ```
//!
//! Ports are 0-based machine indices. As in coflowsim (the Varys authors' simulator), reducer
//! `r`'s megabytes are split equally over the mappers, one flow per (mapper, reducer) pair.
//! By default ([`SamePort::Drop`]), unlike coflowsim, a mapper on the reducer's own machine
//! sends nothing over the network (its share is dropped): in the public FB2010 trace that is
//! 4,911 of 706,397 pairs and 0.69 % of the megabytes. [`SamePort::Coflowsim`]
//! ([`Trace::to_jobs_with`]) keeps them as coflowsim does: on a big switch such a flow
//! crosses its port's egress and then the same port's ingress, as coflowsim charges it to the
//! port's send and receive capacity. coflowsim differs in two more conventions, not
//! reproduced here: a megabyte is 2^20 bytes there (10^6 here), and each reducer's bytes are
//! rounded up to a whole number of megabytes per mapper, so no flow is smaller than one such
//! megabyte.
//!
//! [`synthesize`] makes a seeded trace with the public FB2010 trace's shape, for runs without
//! the file.

use std::fmt;

mod synth;

pub use synth::{
    MAPPER_QUANTILES, MEGABYTE_QUANTILES, QUANTILE_PROBS, REDUCER_QUANTILES, SynthConfig,
    synthesize,
};

use crate::Error;
use crate::cluster::{Cluster, MachineId};
use crate::job::JobBuilder;
use crate::workload::{JobKind, SimJob};

/// What [`Trace::to_jobs_with`] does with a mapper on its reducer's own port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SamePort {
    /// Ours, the default: its share is dropped (it does not cross the network).
    #[default]
    Drop,
    /// coflowsim's convention: it is a flow like any other, crossing the port's egress and
    /// then its ingress ([`JobBuilder::allow_same_port`]); only on a big switch.
    Coflowsim,
}

/// One coflow of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Coflow {
    /// The coflow's id in the trace.
    pub id: u64,
    /// Arrival time in milliseconds.
    pub arrival_ms: u64,
    /// Mapper ports.
    pub mappers: Vec<u32>,
    /// Reducer ports and the megabytes each receives.
    pub reducers: Vec<(u32, f64)>,
}

/// A parsed trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Number of ports (machines) the trace declares.
    pub ports: u32,
    /// The coflows in file order.
    pub coflows: Vec<Coflow>,
}

/// The most flows (mappers × reducers) one coflow line may describe: 2^20, about 50 times
/// the largest coflow of the public FB2010 trace (21,170). A line beyond it is refused with
/// [`Error::Trace`] before any flow is made ([`Trace::to_jobs`] makes one transfer per pair).
pub const MAX_COFLOW_FLOWS: u64 = 1 << 20;

/// The most flows (Σ mappers × reducers) a whole trace may describe: 2^24, about 24 times the
/// public FB2010 trace's 706,397 pairs. A trace beyond it is refused with [`Error::Trace`] on
/// the line that crosses it.
pub const MAX_TRACE_FLOWS: u64 = 1 << 24;

fn err(line: usize, reason: impl Into<String>) -> Error {
    Error::Trace {
        line,
        reason: reason.into(),
    }
}

fn num<T: std::str::FromStr>(tok: Option<&str>, line: usize, what: &str) -> Result<T, Error> {
    let tok = tok.ok_or_else(|| err(line, format!("missing {what}")))?;
    tok.parse()
        .map_err(|_| err(line, format!("{what} {tok:?} is not a valid number")))
}

impl Trace {
    /// Parses a trace from text.
    ///
    /// # Errors
    /// [`Error::Trace`] with the 1-based line number: a missing or malformed header or field,
    /// a port outside `0..#ports`, a negative or non-finite size, extra fields on a line, a
    /// number of coflow lines different from the header's, a coflow of more than
    /// [`MAX_COFLOW_FLOWS`] mapper–reducer pairs or a trace of more than [`MAX_TRACE_FLOWS`].
    ///
    /// # Complexity
    /// O(length of the input).
    pub fn parse(text: &str) -> Result<Self, Error> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty());
        let (hl, header) = lines
            .next()
            .ok_or_else(|| err(1, "empty trace: no header line"))?;
        let mut h = header.split_whitespace();
        let ports: u32 = num(h.next(), hl, "number of ports")?;
        let count: usize = num(h.next(), hl, "number of coflows")?;
        if h.next().is_some() {
            return Err(err(hl, "header has more than two fields"));
        }
        if ports == 0 {
            return Err(err(hl, "the trace declares zero ports"));
        }
        let port = |tok: Option<&str>, line: usize, what: &str| -> Result<u32, Error> {
            let p: u32 = num(tok, line, what)?;
            if p >= ports {
                return Err(err(
                    line,
                    format!("{what} {p} is not below the {ports} ports"),
                ));
            }
            Ok(p)
        };
        let mut coflows = Vec::with_capacity(count.min(1 << 16));
        let mut flows = 0u64;
        for (ln, line) in lines {
            if coflows.len() == count {
                return Err(err(
                    ln,
                    format!("more coflow lines than the {count} the header declares"),
                ));
            }
            let mut t = line.split_whitespace();
            let id: u64 = num(t.next(), ln, "coflow id")?;
            let arrival_ms: u64 = num(t.next(), ln, "arrival time")?;
            let nm: usize = num(t.next(), ln, "number of mappers")?;
            let mut mappers = Vec::with_capacity(nm.min(4096));
            for _ in 0..nm {
                mappers.push(port(t.next(), ln, "mapper port")?);
            }
            let nr: usize = num(t.next(), ln, "number of reducers")?;
            let mut reducers = Vec::with_capacity(nr.min(4096));
            for _ in 0..nr {
                let tok = t.next().ok_or_else(|| err(ln, "missing reducer port:MB"))?;
                let (p, mb) = tok
                    .split_once(':')
                    .ok_or_else(|| err(ln, format!("reducer {tok:?} is not port:MB")))?;
                let p = port(Some(p), ln, "reducer port")?;
                let mb: f64 = num(Some(mb), ln, "reducer megabytes")?;
                if !(mb.is_finite() && mb >= 0.0) {
                    return Err(err(
                        ln,
                        format!("reducer megabytes {mb} must be finite and non-negative"),
                    ));
                }
                reducers.push((p, mb));
            }
            if let Some(extra) = t.next() {
                return Err(err(
                    ln,
                    format!("unexpected field {extra:?} after the reducers"),
                ));
            }
            // Both counts were read token by token, so each is below the line's length.
            let pairs = (nm as u64).saturating_mul(nr as u64);
            if pairs > MAX_COFLOW_FLOWS {
                return Err(err(
                    ln,
                    format!(
                        "{nm} mappers × {nr} reducers = {pairs} flows, more than MAX_COFLOW_FLOWS ({MAX_COFLOW_FLOWS})"
                    ),
                ));
            }
            flows += pairs;
            if flows > MAX_TRACE_FLOWS {
                return Err(err(
                    ln,
                    format!(
                        "the trace reaches {flows} flows here, more than MAX_TRACE_FLOWS ({MAX_TRACE_FLOWS})"
                    ),
                ));
            }
            coflows.push(Coflow {
                id,
                arrival_ms,
                mappers,
                reducers,
            });
        }
        if coflows.len() != count {
            let last = text.lines().count().max(1);
            return Err(err(
                last,
                format!(
                    "the header declares {count} coflows but the trace has {}",
                    coflows.len()
                ),
            ));
        }
        Ok(Self { ports, coflows })
    }

    /// Writes the trace back in the same format (`parse(write(t)) == t`).
    ///
    /// # Errors
    /// Only the writer's own error.
    pub fn write(&self, out: &mut impl fmt::Write) -> fmt::Result {
        writeln!(out, "{} {}", self.ports, self.coflows.len())?;
        for c in &self.coflows {
            write!(out, "{} {} {}", c.id, c.arrival_ms, c.mappers.len())?;
            for m in &c.mappers {
                write!(out, " {m}")?;
            }
            write!(out, " {}", c.reducers.len())?;
            for (p, mb) in &c.reducers {
                write!(out, " {p}:{mb:?}")?;
            }
            writeln!(out)?;
        }
        Ok(())
    }

    /// Turns every coflow into a job without compute (one transfer per mapper–reducer pair on
    /// different machines, `MB · 8·10⁶ / #mappers` bits each; a pair on one machine is
    /// dropped, see the module's doc), arriving at its trace time: [`Trace::to_jobs_with`]
    /// with [`SamePort::Drop`].
    ///
    /// # Errors
    /// As [`Trace::to_jobs_with`].
    ///
    /// # Complexity
    /// O(Σ mappers × reducers).
    pub fn to_jobs(&self, cluster: &Cluster) -> Result<Vec<SimJob>, Error> {
        self.to_jobs_with(cluster, SamePort::Drop)
    }

    /// [`Trace::to_jobs`], with the pairs on one machine treated as `same_port` says.
    ///
    /// # Errors
    /// [`Error::UnknownMachine`] when the trace has more ports than the cluster has machines;
    /// [`Error::Trace`] (the coflow's line in the written trace) for a coflow or a trace
    /// beyond [`MAX_COFLOW_FLOWS`] or [`MAX_TRACE_FLOWS`]; [`Error::SelfTransfer`] for a
    /// pair on one machine under [`SamePort::Coflowsim`] on a cluster that is not a big switch.
    ///
    /// # Complexity
    /// O(Σ mappers × reducers).
    pub fn to_jobs_with(
        &self,
        cluster: &Cluster,
        same_port: SamePort,
    ) -> Result<Vec<SimJob>, Error> {
        let keep = same_port == SamePort::Coflowsim;
        // A trace built in code has not been through `parse`'s bounds.
        let mut flows = 0u64;
        for (k, c) in self.coflows.iter().enumerate() {
            let pairs = (c.mappers.len() as u64).saturating_mul(c.reducers.len() as u64);
            flows = flows.saturating_add(pairs);
            if pairs > MAX_COFLOW_FLOWS || flows > MAX_TRACE_FLOWS {
                return Err(err(
                    k + 2,
                    format!(
                        "coflow {} makes the trace {flows} flows ({pairs} its own): more than MAX_COFLOW_FLOWS ({MAX_COFLOW_FLOWS}) or MAX_TRACE_FLOWS ({MAX_TRACE_FLOWS})",
                        c.id
                    ),
                ));
            }
        }
        self.coflows
            .iter()
            .map(|c| {
                let mut b = JobBuilder::new();
                if keep {
                    b.allow_same_port();
                }
                for &(r, mb) in &c.reducers {
                    let share = mb * 8e6 / c.mappers.len().max(1) as f64;
                    for &m in &c.mappers {
                        if keep || m != r {
                            b.transfer_bits(share, MachineId::new(m), MachineId::new(r));
                        }
                    }
                }
                Ok(SimJob {
                    arrival: c.arrival_ms as f64 / 1e3,
                    job: b.build(cluster)?,
                    kind: JobKind::Coflow,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabric_model::BitsPerSec;

    const SAMPLE: &str = "150 2\n1 0 2 104 132 1 140:48.0\n2 10833 1 7 2 3:1.5 7:2\n";

    #[test]
    fn parses_the_readme_example() {
        let t = Trace::parse(SAMPLE).unwrap();
        assert_eq!(t.ports, 150);
        assert_eq!(
            t.coflows[0],
            Coflow {
                id: 1,
                arrival_ms: 0,
                mappers: vec![104, 132],
                reducers: vec![(140, 48.0)]
            }
        );
        assert_eq!(t.coflows[1].reducers, vec![(3, 1.5), (7, 2.0)]);
        let mut s = String::new();
        t.write(&mut s).unwrap();
        assert_eq!(Trace::parse(&s).unwrap(), t);
    }

    #[test]
    fn to_jobs_splits_reducer_bytes() {
        let t = Trace::parse(SAMPLE).unwrap();
        let cluster = Cluster::uniform(150, BitsPerSec::from_gbps(1)).unwrap();
        let jobs = t.to_jobs(&cluster).unwrap();
        assert_eq!(jobs[0].job.transfers().len(), 2);
        assert_eq!(jobs[0].job.total_bits(), 48.0 * 8e6);
        // Coflow 2: mapper 7 to reducer 3 (1.5 MB); reducer 7 is local to the mapper.
        assert_eq!(jobs[1].job.transfers().len(), 1);
        assert_eq!(jobs[1].arrival, 10.833);
        let small = Cluster::uniform(100, BitsPerSec::from_gbps(1)).unwrap();
        assert!(matches!(
            t.to_jobs(&small),
            Err(Error::UnknownMachine { .. })
        ));
    }

    #[test]
    fn same_port_pairs_are_kept_as_coflowsim_keeps_them() {
        let t = Trace::parse(SAMPLE).unwrap();
        let cluster = Cluster::uniform(150, BitsPerSec::from_gbps(1)).unwrap();
        let jobs = t.to_jobs_with(&cluster, SamePort::Coflowsim).unwrap();
        // Coflow 2: mapper 7 to reducers 3 (1.5 MB) and 7 (2 MB), the latter kept.
        assert_eq!(jobs[1].job.transfers().len(), 2);
        assert_eq!(jobs[1].job.total_bits(), 3.5 * 8e6);
        assert_eq!(jobs[0].job.total_bits(), 48.0 * 8e6);
        // It crosses egress 7 then ingress 7: alone, 2 MB at 1 Gbit/s next to the 1.5 MB
        // 7→3 flow on the same egress: 3.5 MB through egress 7 take 28 ms.
        let r = crate::sim::simulate(
            &cluster,
            &jobs[1..],
            &crate::sim::SimConfig::new(crate::sim::Scheduler::TensorFlow),
        )
        .unwrap();
        assert!((r.jobs[0].jct() - 0.028).abs() < 1e-9, "{}", r.jobs[0]);
        // The default drops it, as does to_jobs.
        let dropped = t.to_jobs_with(&cluster, SamePort::Drop).unwrap();
        assert_eq!(dropped[1].job.total_bits(), 1.5 * 8e6);
        assert_eq!(dropped[1].job.transfers().len(), 1);
        // No route from a machine to itself on a fabric: refused there.
        let fabric =
            fabric_model::generators::single_switch(150, fabric_model::LinkRate::EDR_4X).unwrap();
        let hops = fabric_model::HopTable::new(&fabric).unwrap();
        let fab = Cluster::from_fabric(&fabric, &hops).unwrap();
        assert!(matches!(
            t.to_jobs_with(&fab, SamePort::Coflowsim),
            Err(Error::SelfTransfer { .. })
        ));
        assert!(t.to_jobs_with(&fab, SamePort::Drop).is_ok());
    }

    #[test]
    fn errors_name_the_line() {
        let cases: [(&str, usize, &str); 9] = [
            ("", 1, "empty trace"),
            ("10\n", 1, "missing number of coflows"),
            ("10 1 3\n", 1, "more than two"),
            ("0 0\n", 1, "zero ports"),
            ("10 1\n1 0 1 12 1 3:1\n", 2, "mapper port 12"),
            ("10 1\n\n1 0 1 2 1 3-1\n", 3, "not port:MB"),
            ("10 1\n1 0 1 2 1 3:-1\n", 2, "finite and non-negative"),
            ("10 1\n1 0 1 2 1 3:1 9\n", 2, "unexpected field"),
            (
                "10 1\n1 0 1 2 1 3:1\n2 0 1 2 1 3:1\n",
                3,
                "more coflow lines",
            ),
        ];
        for (text, line, what) in cases {
            match Trace::parse(text) {
                Err(Error::Trace { line: l, reason }) => {
                    assert_eq!(l, line, "{text:?}: {reason}");
                    assert!(reason.contains(what), "{text:?}: {reason}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        assert!(matches!(
            Trace::parse("10 2\n1 0 1 2 1 3:1\n"),
            Err(Error::Trace { line: 2, .. })
        ));
    }
}
