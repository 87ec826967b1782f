//! The clients' scripted sequence (`c/client.c`, `script` mode) as data: the keys and values
//! each rank puts, the ranks it reads, what the PMIx Standard allows each read to answer
//! ([`check_standard`]), and the same sequence run through pmix-kvs's own store and client
//! ([`run_pmix_kvs`]), printing the same lines as the real clients for the differential test.
//!
//! The sequence of every rank: the job-level keys; put generation `a` (every scope × every
//! value type), commit, get its own `a` keys before any fence (another process's keys before
//! a fence race with its commit), fence without data collection, get every rank's
//! `a` keys (from the
//! node's store on the same node, by direct modex from another); put `b`, commit, fence with
//! data collection, get every rank's `b` keys; optionally a missing key with a 1 s timeout on
//! the detail targets; a last fence. Lines: `op ME PHASE TARGET KEY STATUS VALUE`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use fabric_model::Nanos;
use pmix_kvs::{
    Client, DmodexAnswer, GetOptions, GetOutcome, JobInfo, NodeStore, Nspace, ProcId, Rank, Scope,
    Value,
};

use crate::ffi::error_string;

/// The scopes, in the client's order (`local`, `remote`, `global`).
pub const SCOPES: [(&str, Scope); 3] = [
    ("local", Scope::Local),
    ("remote", Scope::Remote),
    ("global", Scope::Global),
];

/// The value types, in the client's order.
pub const TYPES: [&str; 7] = ["u64", "u32", "i32", "f64", "bool", "str", "bytes"];

/// The job-level keys read under `WILDCARD`, and the per-rank ones read of each detail target.
pub const JOB_KEYS: [&str; 4] = [
    "pmix.job.size",
    "pmix.univ.size",
    "pmix.num.nodes",
    "pmix.local.size",
];
/// The per-rank reserved keys read of each detail target.
pub const RANK_KEYS: [&str; 4] = ["pmix.lrank", "pmix.nrank", "pmix.nodeid", "pmix.hname"];

/// The value rank `rank` puts under generation `gen`, scope index `scope`, type index `ty`
/// (as `value_of` in `c/client.c`).
#[must_use]
pub fn value_of(generation: u32, scope: usize, ty: usize, rank: u32) -> Value {
    let base = u64::from(generation) * 1_000_000 + scope as u64 * 10_000 + u64::from(rank);
    let small = u32::try_from(base).unwrap_or(u32::MAX);
    match ty {
        0 => Value::U64(base),
        1 => Value::U32(small),
        2 => Value::I32(-i32::try_from(small).unwrap_or(i32::MAX)),
        3 => Value::F64(f64::from(small) + 0.5),
        4 => Value::Bool(base % 2 == 1),
        5 => Value::String(format!("g{generation}s{scope}r{rank}")),
        _ => Value::Bytes(vec![
            u8::try_from(generation).unwrap_or(0),
            u8::try_from(scope).unwrap_or(0),
            u8::try_from(rank & 0xff).unwrap_or(0),
            u8::try_from(rank >> 8).unwrap_or(0),
            0xab,
        ]),
    }
}

/// A value as the client prints it (`TYPE:TEXT`).
#[must_use]
pub fn render(v: &Value) -> String {
    match v {
        Value::U64(x) => format!("u64:{x}"),
        Value::U32(x) => format!("u32:{x}"),
        Value::U16(x) => format!("u16:{x}"),
        Value::I32(x) => format!("i32:{x}"),
        Value::F64(x) => format!("f64:{x}"),
        Value::Bool(b) => format!("bool:{}", u8::from(*b)),
        Value::String(s) => format!("str:{s}"),
        Value::Bytes(b) if b.is_empty() => "bytes:-".to_owned(),
        Value::Bytes(b) => b.iter().fold("bytes:".to_owned(), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        }),
        Value::Rank(r) => format!("rank:{}", r.get()),
        other => format!("{other:?}"),
    }
}

/// The ranks whose every key and type `me` reads: itself, the next rank on its node, the
/// rank of the same local index on the next node (as `detail_targets` in `c/client.c`).
#[must_use]
pub fn detail_targets(proc_nodes: &[u32], me: u32) -> Vec<u32> {
    let n = u32::try_from(proc_nodes.len()).unwrap_or(u32::MAX);
    let node = |r: u32| proc_nodes[r as usize];
    let mut out = vec![me];
    let nodes = proc_nodes.iter().max().map_or(0, |m| m + 1);
    let li = (0..me).filter(|&r| node(r) == node(me)).count();
    if let Some(r) = (1..n).map(|k| (me + k) % n).find(|&r| node(r) == node(me)) {
        out.push(r);
    }
    if nodes > 1 {
        let next = (node(me) + 1) % nodes;
        let on_next: Vec<u32> = (0..n).filter(|&r| node(r) == next).collect();
        if let Some(&r) = on_next.get(li).or(on_next.last()) {
            out.push(r);
        }
    }
    out
}

/// One read of the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// `job`, `before`, `nocollect`, `collect` or `missing`.
    pub phase: &'static str,
    /// The target rank (`None`: `WILDCARD`).
    pub target: Option<u32>,
    /// The key.
    pub key: String,
    /// `PMIX_TIMEOUT` in seconds (0: none).
    pub timeout_s: u32,
}

/// The reads of rank `me`, in order: the job's keys (before any put), its own `a` keys after
/// committing them and before any fence, every rank's `a` keys after the
/// barrier-only fence, its `b` keys after the collecting fence, the missing keys.
#[must_use]
pub fn reads(proc_nodes: &[u32], me: u32, missing: bool) -> [Vec<Read>; 5] {
    let detail = detail_targets(proc_nodes, me);
    let mut job = Vec::new();
    for k in JOB_KEYS {
        job.push(Read {
            phase: "job",
            target: None,
            key: k.to_owned(),
            timeout_s: 0,
        });
    }
    for &t in &detail {
        for k in RANK_KEYS {
            job.push(Read {
                phase: "job",
                target: Some(t),
                key: k.to_owned(),
                timeout_s: 0,
            });
        }
    }
    let generation = |g: u32, phase: &'static str| {
        let mut v = Vec::new();
        for r in 0..u32::try_from(proc_nodes.len()).unwrap_or(0) {
            let types = if detail.contains(&r) { TYPES.len() } else { 1 };
            for (s, _) in SCOPES {
                for ty in &TYPES[..types] {
                    v.push(Read {
                        phase,
                        target: Some(r),
                        key: format!("{}.{s}.{ty}", if g == 0 { 'a' } else { 'b' }),
                        timeout_s: 10,
                    });
                }
            }
        }
        v
    };
    let miss = if missing {
        detail
            .iter()
            .map(|&t| Read {
                phase: "missing",
                target: Some(t),
                key: "no.such.key".to_owned(),
                timeout_s: 1,
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut before = Vec::new();
    for (s, _) in SCOPES {
        for ty in TYPES {
            before.push(Read {
                phase: "before",
                target: Some(me),
                key: format!("a.{s}.{ty}"),
                timeout_s: 5,
            });
        }
    }
    [
        job,
        before,
        generation(0, "nocollect"),
        generation(1, "collect"),
        miss,
    ]
}

/// Parses a key of the script (`a.local.u64`) into (generation, scope index, type index).
#[must_use]
pub fn parse_key(key: &str) -> Option<(u32, usize, usize)> {
    let mut it = key.split('.');
    let g = match it.next()? {
        "a" => 0,
        "b" => 1,
        _ => return None,
    };
    let scope = it.next()?;
    let ty = it.next()?;
    if it.next().is_some() {
        return None;
    }
    let s = SCOPES.iter().position(|(n, _)| *n == scope)?;
    let t = TYPES.iter().position(|n| *n == ty)?;
    Some((g, s, t))
}

/// The line a client prints for one read.
#[must_use]
pub fn line(me: u32, read: &Read, status: i32, value: Option<&Value>) -> String {
    let target = read.target.map_or("*".to_owned(), |t| t.to_string());
    let value = value.map_or("-".to_owned(), render);
    format!(
        "op {me} {} {target} {} {} {value}",
        read.phase,
        read.key,
        error_string(status)
    )
}

/// The layout facts a check needs.
struct Layout<'a> {
    proc_nodes: &'a [u32],
    me: u32,
}

impl Layout<'_> {
    fn node(&self, r: u32) -> u32 {
        self.proc_nodes[r as usize]
    }
    fn local(&self, r: u32) -> bool {
        self.node(r) == self.node(self.me)
    }
    /// What a job-level or per-rank reserved key must be (the host registers these).
    fn job_value(&self, key: &str, target: Option<u32>) -> Option<String> {
        let n = self.proc_nodes.len();
        let nodes = self.proc_nodes.iter().max().map_or(0, |m| m + 1);
        let on_node = |node: u32| self.proc_nodes.iter().filter(|&&x| x == node).count();
        Some(match (key, target) {
            ("pmix.job.size" | "pmix.univ.size", None) => format!("u32:{n}"),
            ("pmix.num.nodes", None) => format!("u32:{nodes}"),
            ("pmix.local.size", None) => format!("u32:{}", on_node(self.node(self.me))),
            ("pmix.lrank" | "pmix.nrank", Some(t)) => {
                let li = (0..t).filter(|&r| self.node(r) == self.node(t)).count();
                format!("u16:{li}")
            }
            ("pmix.nodeid", Some(t)) => format!("u32:{}", self.node(t)),
            ("pmix.hname", Some(t)) => format!("str:node{}", self.node(t)),
            _ => return None,
        })
    }

    /// Why one read's (status, value) breaks the Standard's rules, if it does.
    fn verdict(&self, read: &Read, status: &str, value: &str) -> Option<String> {
        let ok = error_string(0);
        let not_found = error_string(-46);
        match read.phase {
            "job" => {
                let want = self.job_value(&read.key, read.target);
                // The one gap of OpenPMIx 4.2 (documented): pmix.nodeid of a rank on another
                // node is not found, although the host registered it.
                let remote_nodeid =
                    read.key == "pmix.nodeid" && read.target.is_some_and(|t| !self.local(t));
                let found = want.as_deref() == Some(value) && status == ok;
                (!(found || remote_nodeid && status == not_found)).then(|| format!("want {want:?}"))
            }
            "missing" => (status != not_found && status != error_string(-24))
                .then(|| "want NOT-FOUND or TIMEOUT".to_owned()),
            _ => {
                let (g, s, ty) = parse_key(&read.key)?;
                let target = read.target.unwrap_or(self.me);
                let visible = target == self.me
                    || match SCOPES[s].1 {
                        Scope::Local => self.local(target),
                        Scope::Remote => !self.local(target),
                        _ => true,
                    };
                if visible {
                    let want = render(&value_of(g, s, ty, target));
                    (status != ok || value != want).then(|| format!("want {want}"))
                } else {
                    (status != not_found && status != error_string(-62))
                        .then(|| "want NOT-FOUND or EXISTS-OUTSIDE-SCOPE".to_owned())
                }
            }
        }
    }
}

/// Checks one rank's output of the real client against the PMIx Standard: every value a
/// rank may see (`global` keys of every rank, `local` keys of ranks on its node, `remote`
/// keys of ranks on other nodes, a rank's own keys) found with the value put, every other
/// read an error (`PMIX_ERR_NOT_FOUND`, or `PMIX_ERR_EXISTS_OUTSIDE_SCOPE`), the missing key
/// `NOT_FOUND` or `TIMEOUT`, the job-level keys right, every fence a success, and one line
/// for every read of the script. Returns the violations.
#[must_use]
pub fn check_standard(proc_nodes: &[u32], me: u32, lines: &[String], missing: bool) -> Vec<String> {
    let mut bad = Vec::new();
    let ok = error_string(0);
    let mut got: BTreeMap<(String, String, String), (String, String)> = BTreeMap::new();
    let mut fences = 0;
    let mut done = false;
    for l in lines {
        let f: Vec<&str> = l.split(' ').collect();
        match (f.first(), f.len()) {
            (Some(&"op"), 7) => {
                got.insert(
                    (f[2].to_owned(), f[3].to_owned(), f[4].to_owned()),
                    (f[5].to_owned(), f[6].to_owned()),
                );
            }
            (Some(&"fence"), 4) => {
                fences += 1;
                if f[3] != ok {
                    bad.push(format!("rank {me}: {l}"));
                }
            }
            (Some(&"done"), 4) => {
                done = true;
                if f[2] != "0" || f[3] != ok {
                    bad.push(format!("rank {me}: {l}"));
                }
            }
            _ => bad.push(format!("rank {me}: unexpected line {l:?}")),
        }
    }
    if !done || fences != 3 {
        bad.push(format!("rank {me}: {fences} fences, done line {done}"));
    }
    let layout = Layout { proc_nodes, me };
    let mut expected = 0;
    for read in reads(proc_nodes, me, missing).iter().flatten() {
        expected += 1;
        let t = read.target.map_or("*".to_owned(), |t| t.to_string());
        let Some((status, value)) = got.get(&(read.phase.to_owned(), t.clone(), read.key.clone()))
        else {
            bad.push(format!(
                "rank {me}: no line for {} {t} {}",
                read.phase, read.key
            ));
            continue;
        };
        if let Some(why) = layout.verdict(read, status, value) {
            bad.push(format!(
                "rank {me}: {} {t} {}: {status} {value}: {why}",
                read.phase, read.key
            ));
        }
    }
    if got.len() != expected {
        bad.push(format!(
            "rank {me}: {} distinct reads, the script has {expected}",
            got.len()
        ));
    }
    bad
}

/// The script's world in pmix-kvs: a store per node, a client per rank, a clock.
struct Model<'a> {
    proc_nodes: &'a [u32],
    stores: Vec<(NodeStore, Nspace)>,
    clients: Vec<Client>,
    now: Nanos,
}

#[allow(clippy::needless_pass_by_value)] // used as `map_err(err)`
fn err(e: pmix_kvs::Error) -> String {
    e.to_string()
}

impl<'a> Model<'a> {
    fn new(proc_nodes: &'a [u32]) -> Result<Self, String> {
        let n = u32::try_from(proc_nodes.len()).map_err(|_| "too many ranks")?;
        let nodes = proc_nodes.iter().max().map_or(0, |m| m + 1);
        let hosts: Vec<String> = (0..nodes).map(|i| format!("node{i}")).collect();
        let mut stores = Vec::new();
        for node in 0..nodes {
            let mut store = NodeStore::new();
            // What the host registers with OpenPMIx (c/shim.c), in pmix-kvs's terms.
            let info = JobInfo::new(n, hosts[node as usize].clone())
                .with_local_peers(
                    (0..n)
                        .filter(|&r| proc_nodes[r as usize] == node)
                        .map(Rank::new),
                )
                .with_node_id(node)
                .with_num_nodes(nodes)
                .with_proc_nodes(proc_nodes.to_vec())
                .with_node_hostnames(hosts.clone())
                .with_extra("pmix.univ.size", Value::U32(n));
            let ns = store.register_job("kvsjob", &info).map_err(err)?;
            stores.push((store, ns));
        }
        let clients = (0..n)
            .map(|r| {
                Client::new(ProcId::new(
                    stores[proc_nodes[r as usize] as usize].1,
                    Rank::new(r),
                ))
            })
            .collect();
        Ok(Self {
            proc_nodes,
            stores,
            clients,
            now: Nanos::ZERO,
        })
    }

    /// Every rank puts generation `g` in every scope and type and commits.
    fn put_commit(&mut self, g: u32) -> Result<(), String> {
        for (r, c) in (0u32..).zip(&mut self.clients) {
            for (s, (scope_name, scope)) in SCOPES.iter().enumerate() {
                for (ty, name) in TYPES.iter().enumerate() {
                    let key = format!("{}.{scope_name}.{name}", if g == 0 { 'a' } else { 'b' });
                    c.put(*scope, &key, value_of(g, s, ty, r)).map_err(err)?;
                }
            }
            c.commit(&mut self.stores[self.proc_nodes[r as usize] as usize].0)
                .map_err(err)?;
        }
        Ok(())
    }

    /// A fence of every node, with or without data.
    fn fence(&mut self, collect: bool) -> Result<(), String> {
        let blobs = self
            .stores
            .iter()
            .map(|(s, ns)| s.fence_contribution(*ns, collect))
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        for (s, _) in &mut self.stores {
            s.apply_fence(&blobs).map_err(err)?;
        }
        Ok(())
    }

    /// One read of rank `r`, with direct modex served by the owner's store and the clock
    /// moved to a pending get's deadline.
    fn read(&mut self, r: u32, read: &Read) -> Result<String, String> {
        let my_node = self.proc_nodes[r as usize] as usize;
        let target = ProcId::new(
            self.stores[my_node].1,
            read.target.map_or(Rank::WILDCARD, Rank::new),
        );
        let mut opts = GetOptions::default();
        if read.timeout_s > 0 {
            let d = self
                .now
                .checked_add(Nanos::from_secs(u64::from(read.timeout_s)))
                .ok_or("clock")?;
            opts = opts.with_deadline(d);
        }
        let mut forwarded = false;
        loop {
            let outcome = self.clients[r as usize]
                .get(&self.stores[my_node].0, target, &read.key, &opts, self.now)
                .map_err(err)?;
            match outcome {
                GetOutcome::Forward(req) if !forwarded => {
                    forwarded = true;
                    let owner = req.node.ok_or("no node in a direct-modex request")? as usize;
                    let answer = self.stores[owner].0.answer_dmodex(&req).map_err(err)?;
                    if answer == DmodexAnswer::NotYet {
                        self.stores[my_node].0.note_dmodex_sent(&req).map_err(err)?;
                    } else {
                        self.stores[my_node]
                            .0
                            .apply_dmodex(&req, &answer)
                            .map_err(err)?;
                    }
                }
                GetOutcome::Pending { deadline: Some(d) } => self.now = d,
                GetOutcome::Pending { deadline: None } | GetOutcome::Forward(_) => {
                    return Err(format!("rank {r}: {read:?} would wait for ever"));
                }
                other => {
                    let status = other.status().unwrap_or(-1);
                    let value = if let GetOutcome::Found(v) = other {
                        Some(v)
                    } else {
                        None
                    };
                    return Ok(line(r, read, status, value.as_ref()));
                }
            }
        }
    }
}

/// Runs the script of every rank through pmix-kvs: one [`NodeStore`] per node, one
/// [`Client`] per rank, the fences by [`NodeStore::fence_contribution`] and
/// [`NodeStore::apply_fence`], direct modex by [`NodeStore::answer_dmodex`] and
/// [`NodeStore::apply_dmodex`], timeouts on a clock that jumps to the deadline when a get
/// would wait. Returns each rank's lines as the real client prints them (without the fence
/// and done lines).
pub fn run_pmix_kvs(proc_nodes: &[u32], missing: bool) -> Result<Vec<Vec<String>>, String> {
    let mut model = Model::new(proc_nodes)?;
    let n = u32::try_from(proc_nodes.len()).map_err(|_| "too many ranks")?;
    let all: Vec<[Vec<Read>; 5]> = (0..n).map(|r| reads(proc_nodes, r, missing)).collect();
    let mut out = vec![Vec::new(); n as usize];
    for step in 0..5 {
        match step {
            1 => model.put_commit(0)?,
            2 => model.fence(false)?,
            3 => {
                model.put_commit(1)?;
                model.fence(true)?;
            }
            _ => {}
        }
        for (r, rank_reads) in (0u32..).zip(&all) {
            for read in &rank_reads[step] {
                out[r as usize].push(model.read(r, read)?);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_back() {
        assert_eq!(parse_key("a.local.u64"), Some((0, 0, 0)));
        assert_eq!(parse_key("b.remote.bytes"), Some((1, 1, 6)));
        assert_eq!(parse_key("b.global.str"), Some((1, 2, 5)));
        assert_eq!(parse_key("c.global.str"), None);
        assert_eq!(parse_key("a.global.str.x"), None);
        assert_eq!(parse_key("no.such.key"), None);
    }

    #[test]
    fn detail_targets_are_self_a_node_peer_and_the_next_node() {
        let nodes = [0, 0, 0, 1, 1, 1];
        assert_eq!(detail_targets(&nodes, 0), vec![0, 1, 3]);
        assert_eq!(detail_targets(&nodes, 2), vec![2, 0, 5]);
        assert_eq!(detail_targets(&nodes, 4), vec![4, 5, 1]);
        assert_eq!(detail_targets(&[0, 1], 1), vec![1, 0]);
        assert_eq!(detail_targets(&[0], 0), vec![0]);
    }
}
