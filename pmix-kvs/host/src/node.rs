//! One simulated node: its PMIx server instance, its clients, and the loop that serves the
//! server's `fence_nb` and `direct_modex` upcalls with pmix-kvs's fence and direct-modex
//! exchange over the mesh.
//!
//! Like Slurm's mpi/pmix plugin, the host hands each node's opaque fence contribution (the
//! server library's packed data of its local clients) to a collective across the nodes and
//! gives the server the contributions of every node, concatenated in node order. The
//! collective is one of pmix-kvs's [`FenceNode`] state machines (tree, ring, Bruck), or the
//! baseline [`FenceAlg::AllToAll`] (every node sends its contribution to every other). A
//! fence fails with `PMIX_ERR_UNREACH` once a peer's connection is lost and with
//! `PMIX_ERR_TIMEOUT` at its deadline, so no client waits for a dead node.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use pmix_kvs::fence::{Algorithm, FenceNode, Message};
use pmix_kvs::{DmodexAnswer, DmodexRequest, Rank};

use crate::ffi::{self, Upcall, status};
use crate::mesh::Mesh;
use crate::wire::Frame;

/// How the hosts run a fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenceAlg {
    /// One of pmix-kvs's collectives.
    Kvs(Algorithm),
    /// The baseline: every node sends its contribution to every other.
    AllToAll,
}

impl FenceAlg {
    /// `tree`, `ring`, `bruck` or `alltoall`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Kvs(a) => a.name(),
            Self::AllToAll => "alltoall",
        }
    }

    /// The algorithm named `s` (as [`FenceAlg::name`] writes it).
    pub fn parse(s: &str) -> Result<Self, String> {
        Ok(match s {
            "tree" => Self::Kvs(Algorithm::TREE),
            "ring" => Self::Kvs(Algorithm::Ring),
            "bruck" => Self::Kvs(Algorithm::Bruck),
            "alltoall" => Self::AllToAll,
            _ => return Err(format!("unknown fence algorithm {s:?}")),
        })
    }
}

/// What a node's host is told by the launcher.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// This node's number.
    pub node: u32,
    /// Rank r lives on node `proc_nodes[r]`.
    pub proc_nodes: Vec<u32>,
    /// How many nodes.
    pub nodes: u32,
    /// The job's namespace.
    pub nspace: String,
    /// The fence collective.
    pub alg: FenceAlg,
    /// The run folder (ports, client outputs, server temporary folders).
    pub dir: PathBuf,
    /// The client program and its arguments.
    pub client: Vec<String>,
    /// A fence's deadline when its clients give no timeout; also a direct modex's.
    pub fence_timeout: Duration,
    /// Kill this host (SIGKILL) in this fence: after its server's upcall, before its
    /// contribution leaves, so that no other node can complete the fence.
    pub die_in_fence: Option<u64>,
    /// Freeze this host (SIGSTOP) instead of killing it: its connections stay open, so the
    /// other hosts see nothing but the fence's deadline.
    pub freeze: bool,
    /// Give up (killing the clients) after this long.
    pub deadline: Duration,
    /// Start the clients with the variables Slurm's `srun` sets for a job step
    /// (`SLURM_NODELIST`, `SLURM_JOBID`, `SLURM_STEP_ID`): Open MPI 4.1 takes them as a direct
    /// launch by a resource manager and wires up through PMIx (its `ess/pmi`), where without
    /// them it starts as a singleton.
    pub slurm_env: bool,
    /// Fault injection for the tests: flip the bytes of every fence's result from this byte
    /// on before handing it to the server (a corrupted exchange must fail the tests).
    pub corrupt_fence_at: Option<usize>,
}

/// What reaches the node's loop.
#[derive(Debug)]
pub enum Event {
    /// The server's `fence_nb` upcall.
    Fence {
        /// To complete.
        upcall: Upcall,
        /// This node's opaque contribution.
        data: Vec<u8>,
        /// `PMIX_COLLECT_DATA` was given.
        collect: bool,
        /// The fence is over every rank of the job.
        whole_job: bool,
        /// `PMIX_TIMEOUT` in seconds (0: none given).
        timeout_s: u32,
    },
    /// The server's `direct_modex` upcall: a local client wants a remote process's data.
    Dmodex {
        /// To complete with the data.
        upcall: Upcall,
        /// The target's namespace.
        nspace: String,
        /// The target's rank.
        rank: u32,
        /// The key the get asked for (`PMIX_REQUIRED_KEY`), when the server gave it.
        key: Option<String>,
        /// The get's `PMIX_TIMEOUT` in seconds (0: none).
        timeout_s: u32,
    },
    /// This node's server answered `PMIx_server_dmodex_request`.
    DmodexAnswer {
        /// The token given with the request.
        token: u64,
        /// Its status.
        status: i32,
        /// Its data.
        data: Vec<u8>,
    },
    /// A frame from another host.
    Peer {
        /// The sending node.
        from: usize,
        /// The frame.
        frame: Frame,
    },
    /// A host's connection ended.
    PeerLost {
        /// The node.
        from: usize,
        /// Why.
        reason: String,
    },
}

enum Engine {
    Kvs(FenceNode),
    Direct {
        blocks: Vec<Option<Vec<u8>>>,
        held: usize,
    },
}

struct ActiveFence {
    seq: u64,
    engine: Engine,
    upcall: Upcall,
    deadline: Instant,
    started: Instant,
    bytes_in: usize,
}

/// Who waits for a direct-modex answer.
enum Waiter {
    /// A local client's get, through this node's upcall.
    Local(Upcall, Instant),
}

struct Node {
    cfg: NodeConfig,
    me: usize,
    n: usize,
    mesh: Mesh,
    next_fence: u64,
    active: Option<ActiveFence>,
    early: Vec<(u64, usize, Frame)>,
    lost: HashSet<usize>,
    next_id: u64,
    /// Our direct-modex requests sent to other nodes, by id.
    asked: HashMap<u64, (usize, Waiter)>,
    /// Requests we serve through our server, by token: (node, its id), or our own.
    serving: HashMap<u64, Option<(usize, u64)>>,
    local_asks: HashMap<u64, Waiter>,
    log: Vec<String>,
}

/// Runs node `cfg.node` until its clients have exited. Returns the host's log lines.
pub fn run(cfg: NodeConfig) -> Result<Vec<String>, String> {
    let start = Instant::now();
    let give_up = start + cfg.deadline;
    let (tx, rx) = mpsc::channel();
    let me = cfg.node as usize;
    let n = cfg.nodes as usize;
    let mesh = Mesh::connect(&cfg.dir, me, n, start + Duration::from_secs(30), &tx)?;
    let tmp = cfg.dir.join(format!("node{me}.tmp"));
    fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    let hosts: Vec<String> = (0..n).map(|i| format!("node{i}")).collect();
    ffi::server_init(&hosts[me], &tmp.to_string_lossy(), tx.clone())?;
    ffi::register_nspace(&cfg.nspace, &cfg.proc_nodes, cfg.node, &hosts)?;

    let mut children = spawn_clients(&cfg)?;
    let mut node = Node {
        me,
        n,
        mesh,
        next_fence: 0,
        active: None,
        early: Vec::new(),
        lost: HashSet::new(),
        next_id: 1,
        asked: HashMap::new(),
        serving: HashMap::new(),
        local_asks: HashMap::new(),
        log: vec![format!(
            "node {me}: {} local clients, fence {}",
            children.len(),
            cfg.alg.name()
        )],
        cfg,
    };
    drop(tx);
    loop {
        match rx.recv_timeout(Duration::from_millis(5)) {
            Ok(ev) => node.handle(ev),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        node.check_deadlines();
        children.retain_mut(|(rank, c)| match c.try_wait() {
            Ok(Some(st)) => {
                node.log.push(format!("client {rank} exited: {st}"));
                false
            }
            _ => true,
        });
        if children.is_empty() {
            break;
        }
        if Instant::now() > give_up {
            for (rank, c) in &mut children {
                node.log
                    .push(format!("client {rank} killed at the host's deadline"));
                let _ = c.kill();
                let _ = c.wait();
            }
            ffi::server_finalize();
            return Err(format!("node {me}: clients still running at the deadline"));
        }
    }
    ffi::server_finalize();
    Ok(node.log)
}

fn spawn_clients(cfg: &NodeConfig) -> Result<Vec<(u32, Child)>, String> {
    let layout: Vec<String> = cfg.proc_nodes.iter().map(u32::to_string).collect();
    let layout = layout.join(",");
    let (prog, args) = cfg
        .client
        .split_first()
        .ok_or_else(|| "no client program".to_owned())?;
    let tmp = cfg.dir.join(format!("node{}.tmp", cfg.node));
    let slurm: Vec<(&str, String)> = if cfg.slurm_env {
        vec![
            (
                "SLURM_NODELIST",
                format!("node[0-{}]", cfg.nodes.saturating_sub(1)),
            ),
            ("SLURM_JOBID", "1".to_owned()),
            ("SLURM_STEP_ID", "0".to_owned()),
        ]
    } else {
        Vec::new()
    };
    let mut children = Vec::new();
    for (rank, &on) in (0u32..).zip(&cfg.proc_nodes) {
        if on != cfg.node {
            continue;
        }
        let env = ffi::setup_client(rank)?;
        let out =
            File::create(cfg.dir.join(format!("client.{rank}.out"))).map_err(|e| e.to_string())?;
        let err =
            File::create(cfg.dir.join(format!("client.{rank}.err"))).map_err(|e| e.to_string())?;
        let child = Command::new(prog)
            .args(args)
            .env_clear()
            .envs(env)
            .env("PMIX_KVS_NODES", &layout)
            // Each simulated node keeps Open MPI's shared-memory segments in its own folder,
            // as separate machines would: the segment's name holds the host name (the same
            // for every simulated node here) and the local rank (the same on every node).
            .env("OMPI_MCA_btl_vader_backing_directory", &tmp)
            .envs(slurm.iter().cloned())
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("start client {rank} ({prog}): {e}"))?;
        children.push((rank, child));
    }
    Ok(children)
}

impl Node {
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Fence {
                upcall,
                data,
                collect,
                whole_job,
                timeout_s,
            } => self.start_fence(upcall, data, collect, whole_job, timeout_s),
            Event::Dmodex {
                upcall,
                nspace,
                rank,
                key,
                timeout_s,
            } => self.ask_dmodex(upcall, nspace, rank, key, timeout_s),
            Event::DmodexAnswer {
                token,
                status,
                data,
            } => self.answered(token, status, data),
            Event::Peer { from, frame } => self.frame(from, frame),
            Event::PeerLost { from, reason } => self.peer_lost(from, &reason),
        }
    }

    fn deadline(&self, timeout_s: u32) -> Instant {
        let t = if timeout_s > 0 {
            Duration::from_secs(u64::from(timeout_s))
        } else {
            self.cfg.fence_timeout
        };
        Instant::now() + t
    }

    fn start_fence(
        &mut self,
        upcall: Upcall,
        data: Vec<u8>,
        collect: bool,
        whole: bool,
        timeout_s: u32,
    ) {
        let seq = self.next_fence;
        self.next_fence += 1;
        if !whole {
            self.log
                .push(format!("fence {seq}: not over the whole job, refused"));
            upcall.done(status::ERR_NOT_SUPPORTED, &[]);
            return;
        }
        if let Some(f) = &self.active {
            // The server starts a fence only when the last one ended on this node.
            self.log.push(format!(
                "fence {seq}: fence {} still running, refused",
                f.seq
            ));
            upcall.done(status::ERROR, &[]);
            return;
        }
        if let Some(&j) = self.lost.iter().next() {
            self.log.push(format!("fence {seq}: node {j} is lost"));
            upcall.done(status::ERR_UNREACH, &[]);
            return;
        }
        let bytes_in = data.len();
        if self.cfg.die_in_fence == Some(seq) {
            self.log.push(format!(
                "fence {seq}: {} this host in the fence, before its contribution leaves",
                if self.cfg.freeze {
                    "freezing"
                } else {
                    "killing"
                }
            ));
            let _ = fs::write(
                self.cfg.dir.join(format!("host.{}.killed", self.me)),
                self.log.join("\n"),
            );
            let signal = if self.cfg.freeze {
                libc::SIGSTOP
            } else {
                libc::SIGKILL
            };
            // SAFETY: kill(2) on our own pid.
            unsafe {
                libc::kill(libc::getpid(), signal);
            }
        }
        let engine = match self.cfg.alg {
            FenceAlg::Kvs(alg) => {
                // A barrier-only fence (no PMIX_COLLECT_DATA) carries empty blocks; a
                // contribution the server hands anyway is carried.
                match FenceNode::new(alg, self.me, self.n, data, collect || bytes_in > 0) {
                    Ok(f) => Engine::Kvs(f),
                    Err(e) => {
                        self.log.push(format!("fence {seq}: {e}"));
                        upcall.done(status::ERROR, &[]);
                        return;
                    }
                }
            }
            FenceAlg::AllToAll => {
                for j in 0..self.n {
                    if j != self.me {
                        let f = Frame::Direct {
                            seq,
                            data: data.clone(),
                        };
                        if let Err(e) = self.mesh.send(j, &f) {
                            self.log.push(format!("fence {seq}: {e}"));
                        }
                    }
                }
                let mut blocks = vec![None; self.n];
                blocks[self.me] = Some(data);
                Engine::Direct { blocks, held: 1 }
            }
        };
        self.active = Some(ActiveFence {
            seq,
            engine,
            upcall,
            deadline: self.deadline(timeout_s),
            started: Instant::now(),
            bytes_in,
        });
        self.flush();
        let early = std::mem::take(&mut self.early);
        for (s, from, frame) in early {
            if s == seq {
                self.fence_frame(from, frame);
            } else {
                self.early.push((s, from, frame));
            }
        }
        self.try_complete();
    }

    /// Sends what the fence's state machine has to send.
    fn flush(&mut self) {
        let Some(f) = self.active.as_mut() else {
            return;
        };
        let Engine::Kvs(node) = &mut f.engine else {
            return;
        };
        let seq = f.seq;
        let mut out = Vec::new();
        while let Some(t) = node.poll_transmit() {
            out.push((
                t.to,
                Frame::Fence {
                    seq,
                    message: t.message.encode(),
                },
            ));
        }
        for (to, frame) in out {
            if let Err(e) = self.mesh.send(to, &frame) {
                self.log.push(format!("fence {seq}: {e}"));
            }
        }
    }

    fn fence_frame(&mut self, from: usize, frame: Frame) {
        let Some(f) = self.active.as_mut() else {
            return;
        };
        let result = match (&mut f.engine, frame) {
            (Engine::Kvs(node), Frame::Fence { message, .. }) => Message::decode(&message)
                .and_then(|m| node.handle(from, m))
                .map_err(|e| e.to_string()),
            (Engine::Direct { blocks, held }, Frame::Direct { data, .. }) => {
                match blocks.get_mut(from) {
                    Some(slot @ None) => {
                        *slot = Some(data);
                        *held += 1;
                        Ok(())
                    }
                    _ => Err(format!("a second or foreign contribution from node {from}")),
                }
            }
            _ => Err(format!("a frame of another algorithm from node {from}")),
        };
        if let Err(e) = result {
            let f = self.active.take().expect("active");
            self.log.push(format!("fence {}: {e}", f.seq));
            f.upcall.done(status::ERROR, &[]);
            return;
        }
        self.flush();
        self.try_complete();
    }

    fn try_complete(&mut self) {
        let complete = match self.active.as_ref().map(|f| &f.engine) {
            Some(Engine::Kvs(node)) => node.is_complete(),
            Some(Engine::Direct { held, .. }) => *held == self.n,
            None => false,
        };
        if !complete {
            return;
        }
        let f = self.active.take().expect("active");
        let blobs = match f.engine {
            Engine::Kvs(node) => node.into_blobs().map_err(|e| e.to_string()),
            Engine::Direct { blocks, .. } => {
                Ok(blocks.into_iter().map(Option::unwrap_or_default).collect())
            }
        };
        match blobs {
            Ok(blobs) => {
                let mut all: Vec<u8> = blobs.concat();
                if let Some(at) = self.cfg.corrupt_fence_at {
                    for b in all.iter_mut().skip(at) {
                        *b ^= 0x5a;
                    }
                }
                self.log.push(format!(
                    "fence {} {} done: {} bytes in, {} bytes out, {} us",
                    f.seq,
                    self.cfg.alg.name(),
                    f.bytes_in,
                    all.len(),
                    f.started.elapsed().as_micros()
                ));
                f.upcall.done(status::SUCCESS, &all);
            }
            Err(e) => {
                self.log.push(format!("fence {}: {e}", f.seq));
                f.upcall.done(status::ERROR, &[]);
            }
        }
    }

    fn ask_dmodex(
        &mut self,
        upcall: Upcall,
        nspace: String,
        rank: u32,
        key: Option<String>,
        timeout_s: u32,
    ) {
        let owner = self.cfg.proc_nodes.get(rank as usize).copied();
        let Some(owner) = owner.filter(|_| nspace == self.cfg.nspace) else {
            self.log
                .push(format!("dmodex {nspace}:{rank}: no such process"));
            upcall.done(status::ERR_NOT_FOUND, &[]);
            return;
        };
        let deadline = self.deadline(timeout_s);
        let id = self.next_id;
        self.next_id += 1;
        let owner = owner as usize;
        if owner == self.me {
            self.serving.insert(id, None);
            self.local_asks.insert(id, Waiter::Local(upcall, deadline));
            let rc = ffi::dmodex_request(&nspace, rank, id);
            if rc != status::SUCCESS {
                self.answered(id, rc, Vec::new());
            }
            return;
        }
        if self.lost.contains(&owner) {
            upcall.done(status::ERR_UNREACH, &[]);
            return;
        }
        let request = DmodexRequest {
            nspace,
            rank: Rank::new(rank),
            // The owner's server answers with the target's whole data whatever the key;
            // without PMIX_REQUIRED_KEY the request names "*".
            key: key.unwrap_or_else(|| "*".to_owned()),
            node: u32::try_from(owner).ok(),
        };
        let frame = Frame::DmodexRequest {
            id,
            timeout_s,
            request,
        };
        if let Err(e) = self.mesh.send(owner, &frame) {
            self.log.push(format!("dmodex {rank}: {e}"));
            upcall.done(status::ERR_UNREACH, &[]);
            return;
        }
        self.asked
            .insert(id, (owner, Waiter::Local(upcall, deadline)));
    }

    /// Our server answered a direct-modex request (for another node or for ourselves).
    fn answered(&mut self, token: u64, status: i32, data: Vec<u8>) {
        match self.serving.remove(&token) {
            Some(Some((to, id))) => {
                let answer = if status == status::SUCCESS {
                    DmodexAnswer::Data(data)
                } else {
                    DmodexAnswer::NotYet
                };
                if let Err(e) = self
                    .mesh
                    .send(to, &Frame::DmodexAnswer { id, status, answer })
                {
                    self.log.push(format!("dmodex answer: {e}"));
                }
            }
            Some(None) => {
                if let Some(Waiter::Local(u, _)) = self.local_asks.remove(&token) {
                    u.done(status, &data);
                }
            }
            None => {}
        }
    }

    fn frame(&mut self, from: usize, frame: Frame) {
        if self.lost.contains(&from) {
            return;
        }
        match frame {
            Frame::Fence { seq, .. } | Frame::Direct { seq, .. } => {
                if self.active.as_ref().is_some_and(|f| f.seq == seq) {
                    self.fence_frame(from, frame);
                } else if seq == self.next_fence {
                    // A peer can be one fence ahead (it finished ours), never two: it cannot
                    // complete a fence without this node.
                    self.early.push((seq, from, frame));
                } else if seq > self.next_fence {
                    self.peer_lost(from, &format!("a frame of fence {seq}, two fences ahead"));
                } else {
                    self.log
                        .push(format!("fence {seq}: late frame from node {from} dropped"));
                }
            }
            Frame::DmodexRequest { id, request, .. } => {
                let token = self.next_id;
                self.next_id += 1;
                self.serving.insert(token, Some((from, id)));
                let rc = ffi::dmodex_request(&request.nspace, request.rank.get(), token);
                if rc != status::SUCCESS {
                    self.answered(token, rc, Vec::new());
                }
            }
            Frame::DmodexAnswer { id, status, answer } => {
                if let Some((_, Waiter::Local(u, _))) = self.asked.remove(&id) {
                    let bytes = match &answer {
                        DmodexAnswer::Data(d) => d.len(),
                        _ => 0,
                    };
                    self.log.push(format!(
                        "dmodex {id} answered by node {from}: status {status}, {bytes} bytes"
                    ));
                    match answer {
                        DmodexAnswer::Data(d) => u.done(status, &d),
                        _ => u.done(if status == 0 { status::ERROR } else { status }, &[]),
                    }
                }
            }
        }
    }

    fn peer_lost(&mut self, from: usize, reason: &str) {
        self.log.push(format!("node {from} lost: {reason}"));
        self.lost.insert(from);
        self.mesh.drop_peer(from);
        if let Some(f) = self.active.take() {
            self.log
                .push(format!("fence {}: failed, node {from} lost", f.seq));
            f.upcall.done(status::ERR_UNREACH, &[]);
        }
        let ids: Vec<u64> = self
            .asked
            .iter()
            .filter(|(_, (o, _))| *o == from)
            .map(|(&id, _)| id)
            .collect();
        for id in ids {
            if let Some((_, Waiter::Local(u, _))) = self.asked.remove(&id) {
                u.done(status::ERR_UNREACH, &[]);
            }
        }
    }

    fn check_deadlines(&mut self) {
        let now = Instant::now();
        if self.active.as_ref().is_some_and(|f| now > f.deadline) {
            let f = self.active.take().expect("active");
            self.log.push(format!("fence {}: timed out", f.seq));
            f.upcall.done(status::ERR_TIMEOUT, &[]);
        }
        let late: Vec<u64> = self
            .asked
            .iter()
            .filter(|(_, (_, Waiter::Local(_, d)))| now > *d)
            .map(|(&id, _)| id)
            .collect();
        for id in late {
            if let Some((_, Waiter::Local(u, _))) = self.asked.remove(&id) {
                u.done(status::ERR_TIMEOUT, &[]);
            }
        }
    }
}
