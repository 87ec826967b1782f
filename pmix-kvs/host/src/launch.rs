//! The launcher: starts one host process per simulated node (this crate's binary,
//! `pmix-kvs-host node ...`), waits for them and for every client, and reads what the clients
//! printed. Ranks are placed in blocks: rank r on node r / clients-per-node.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::node::FenceAlg;
#[cfg(doc)]
use crate::node::NodeConfig;

/// A run of the job on several simulated nodes.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The host binary (`pmix-kvs-host`).
    pub host: PathBuf,
    /// The client program and its arguments.
    pub client: Vec<String>,
    /// Simulated nodes.
    pub nodes: u32,
    /// Clients per node.
    pub per_node: u32,
    /// The fence collective.
    pub alg: FenceAlg,
    /// A fence's deadline in the hosts, in seconds.
    pub fence_timeout_s: u64,
    /// Kill this node's host in this fence: `(node, fence number)`.
    pub kill: Option<(u32, u64)>,
    /// Freeze that host (SIGSTOP) instead: the others must time the fence out. Once they
    /// have exited, the launcher kills it.
    pub freeze: bool,
    /// Fault injection: this node's host flips every fence result's bytes from this byte on:
    /// `(node, byte)`.
    pub corrupt_fence: Option<(u32, usize)>,
    /// Give the clients Slurm's job-step variables (see [`NodeConfig::slurm_env`]).
    pub slurm_env: bool,
    /// The run folder (created; left for inspection).
    pub dir: PathBuf,
    /// Give up after this long.
    pub deadline: Duration,
}

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// Each host's exit status (`None`: killed at the deadline) and log.
    pub hosts: Vec<(Option<ExitStatus>, String)>,
    /// Each rank's output lines.
    pub clients: Vec<Vec<String>>,
    /// Ranks that never printed their `done` line.
    pub unfinished: Vec<u32>,
    /// Wall time of the whole run.
    pub elapsed: Duration,
}

impl Launch {
    /// A run of `nodes` × `per_node` clients of `client` with fence `alg` in `dir`.
    #[must_use]
    pub fn new(
        host: &Path,
        client: Vec<String>,
        nodes: u32,
        per_node: u32,
        alg: FenceAlg,
        dir: &Path,
    ) -> Self {
        Self {
            host: host.to_owned(),
            client,
            nodes,
            per_node,
            alg,
            fence_timeout_s: 30,
            kill: None,
            freeze: false,
            slurm_env: false,
            corrupt_fence: None,
            dir: dir.to_owned(),
            deadline: Duration::from_secs(120),
        }
    }

    /// Rank r's node.
    #[must_use]
    pub fn proc_nodes(&self) -> Vec<u32> {
        (0..self.nodes * self.per_node)
            .map(|r| r / self.per_node)
            .collect()
    }

    /// Runs the job.
    pub fn run(&self) -> Result<Outcome, String> {
        let start = Instant::now();
        let _ = fs::remove_dir_all(&self.dir);
        fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let layout: Vec<String> = self.proc_nodes().iter().map(u32::to_string).collect();
        let mut hosts = Vec::new();
        for i in 0..self.nodes {
            hosts.push(self.spawn_host(i, &layout.join(","))?);
        }
        let give_up = start + self.deadline + Duration::from_secs(10);
        let mut statuses: Vec<Option<ExitStatus>> = vec![None; hosts.len()];
        loop {
            for (i, h) in hosts.iter_mut().enumerate() {
                if statuses[i].is_none()
                    && let Ok(Some(st)) = h.try_wait()
                {
                    statuses[i] = Some(st);
                }
            }
            if statuses.iter().all(Option::is_some) || Instant::now() > give_up {
                break;
            }
            // A frozen victim is killed once every other host has ended.
            if let Some((k, _)) = self.kill
                && self.freeze
                && statuses
                    .iter()
                    .enumerate()
                    .all(|(i, s)| s.is_some() || i == k as usize)
                && let Some(h) = hosts.get_mut(k as usize)
            {
                let _ = h.kill();
            }
            thread::sleep(Duration::from_millis(10));
        }
        for (i, h) in hosts.iter_mut().enumerate() {
            if statuses[i].is_none() {
                let _ = h.kill();
                let _ = h.wait();
            }
        }
        // The clients of a killed host outlive it: wait for their last line.
        let n = self.nodes * self.per_node;
        let mut unfinished: Vec<u32> = (0..n).collect();
        loop {
            unfinished.retain(|&r| !self.client_done(r));
            if unfinished.is_empty() || Instant::now() > give_up {
                break;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let clients = (0..n)
            .map(|r| {
                fs::read_to_string(self.dir.join(format!("client.{r}.out")))
                    .unwrap_or_default()
                    .lines()
                    .map(str::to_owned)
                    .collect()
            })
            .collect();
        let hosts = statuses
            .into_iter()
            .enumerate()
            .map(|(i, st)| {
                let log =
                    fs::read_to_string(self.dir.join(format!("host.{i}.log"))).unwrap_or_default();
                (st, log)
            })
            .collect();
        Ok(Outcome {
            hosts,
            clients,
            unfinished,
            elapsed: start.elapsed(),
        })
    }

    fn spawn_host(&self, i: u32, layout: &str) -> Result<std::process::Child, String> {
        let log =
            fs::File::create(self.dir.join(format!("host.{i}.log"))).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&self.host);
        cmd.arg("node")
            .args(["--node", &i.to_string()])
            .args(["--layout", layout])
            .args(["--alg", self.alg.name()])
            .args(["--fence-timeout", &self.fence_timeout_s.to_string()])
            .args(["--deadline", &self.deadline.as_secs().to_string()])
            .arg("--dir")
            .arg(&self.dir);
        if let Some((k, f)) = self.kill
            && k == i
        {
            cmd.args(["--die-in-fence", &f.to_string()]);
            if self.freeze {
                cmd.arg("--freeze");
            }
        }
        if let Some((k, at)) = self.corrupt_fence
            && k == i
        {
            cmd.args(["--corrupt-fence-at", &at.to_string()]);
        }
        if self.slurm_env {
            cmd.arg("--slurm-env");
        }
        cmd.arg("--").args(&self.client);
        cmd.stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("start host {i}: {e}"))
    }

    fn client_done(&self, rank: u32) -> bool {
        fs::read_to_string(self.dir.join(format!("client.{rank}.out")))
            .is_ok_and(|s| s.lines().any(|l| l.starts_with("done ")))
    }
}
