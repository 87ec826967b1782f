//! `pmix-kvs-host`: runs a PMIx job on several simulated nodes of this machine.
//!
//! ```text
//! pmix-kvs-host run --nodes N --per-node C [--alg tree|ring|bruck|alltoall] [--dir D]
//!                   [--kill NODE:FENCE [--freeze]] [--corrupt-fence NODE:BYTE]
//!                   [--fence-timeout S] [--slurm-env] [-- CLIENT ARGS...]
//! pmix-kvs-host bench fence [--nodes 2,4,8] [--per-node 1] [--bytes 64] [--fences 50] [--reps 5]
//! pmix-kvs-host bench get [--clients 4] [--nodes 2] [--gets 20000] [--reps 5]
//! pmix-kvs-host node ...   (what `run` starts for each node)
//! ```
//!
//! Without a client program, `run` uses the PMIx client built with it (`c/client.c`) in its
//! `script` mode. It prints every client's output, then one line per host.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use pmix_kvs_host::launch::Launch;
use pmix_kvs_host::node::{self, FenceAlg, NodeConfig};

fn value<'a>(args: &'a [String], i: &mut usize, name: &str) -> Result<&'a str, String> {
    *i += 1;
    args.get(*i)
        .map(String::as_str)
        .ok_or_else(|| format!("{name} needs a value"))
}

fn num<T: std::str::FromStr>(s: &str, name: &str) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("{name}: {s:?} is not a number"))
}

fn node_main(args: &[String]) -> Result<(), String> {
    let mut cfg = NodeConfig {
        node: 0,
        proc_nodes: Vec::new(),
        nodes: 0,
        nspace: "kvsjob".to_owned(),
        alg: FenceAlg::Kvs(pmix_kvs::fence::Algorithm::Bruck),
        dir: PathBuf::new(),
        client: Vec::new(),
        fence_timeout: Duration::from_secs(30),
        die_in_fence: None,
        freeze: false,
        deadline: Duration::from_secs(120),
        corrupt_fence_at: None,
        slurm_env: false,
    };
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--node" => cfg.node = num(value(args, &mut i, "--node")?, "--node")?,
            "--layout" => {
                cfg.proc_nodes = value(args, &mut i, "--layout")?
                    .split(',')
                    .map(|s| num(s, "--layout"))
                    .collect::<Result<_, _>>()?;
            }
            "--alg" => cfg.alg = FenceAlg::parse(value(args, &mut i, "--alg")?)?,
            "--fence-timeout" => {
                cfg.fence_timeout = Duration::from_secs(num(
                    value(args, &mut i, "--fence-timeout")?,
                    "--fence-timeout",
                )?);
            }
            "--deadline" => {
                cfg.deadline =
                    Duration::from_secs(num(value(args, &mut i, "--deadline")?, "--deadline")?);
            }
            "--die-in-fence" => {
                cfg.die_in_fence = Some(num(
                    value(args, &mut i, "--die-in-fence")?,
                    "--die-in-fence",
                )?);
            }
            "--dir" => cfg.dir = PathBuf::from(value(args, &mut i, "--dir")?),
            "--freeze" => cfg.freeze = true,
            "--slurm-env" => cfg.slurm_env = true,
            "--corrupt-fence-at" => {
                cfg.corrupt_fence_at = Some(num(
                    value(args, &mut i, "--corrupt-fence-at")?,
                    "--corrupt-fence-at",
                )?);
            }
            "--" => {
                cfg.client = args[i + 1..].to_vec();
                break;
            }
            a => return Err(format!("unknown argument {a:?}")),
        }
        i += 1;
    }
    cfg.nodes = cfg.proc_nodes.iter().max().map_or(0, |m| m + 1);
    if cfg.node >= cfg.nodes {
        return Err(format!("node {} is not in the layout", cfg.node));
    }
    for line in node::run(cfg)? {
        println!("{line}");
    }
    Ok(())
}

fn run_main(args: &[String]) -> Result<bool, String> {
    let host = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut job = Launch::new(
        &host,
        vec![pmix_kvs_host::CLIENT.to_owned(), "script".to_owned()],
        2,
        2,
        FenceAlg::Kvs(pmix_kvs::fence::Algorithm::Bruck),
        &std::env::temp_dir().join(format!("pmix-kvs-host.{}", std::process::id())),
    );
    // The run folder is kept when named or when the run failed.
    let mut keep = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--nodes" => job.nodes = num(value(args, &mut i, "--nodes")?, "--nodes")?,
            "--per-node" => job.per_node = num(value(args, &mut i, "--per-node")?, "--per-node")?,
            "--alg" => job.alg = FenceAlg::parse(value(args, &mut i, "--alg")?)?,
            "--dir" => {
                job.dir = PathBuf::from(value(args, &mut i, "--dir")?);
                keep = true;
            }
            "--corrupt-fence" => {
                let v = value(args, &mut i, "--corrupt-fence")?;
                let (n, at) = v.split_once(':').ok_or("--corrupt-fence wants NODE:BYTE")?;
                job.corrupt_fence = Some((num(n, "--corrupt-fence")?, num(at, "--corrupt-fence")?));
            }
            "--fence-timeout" => {
                job.fence_timeout_s =
                    num(value(args, &mut i, "--fence-timeout")?, "--fence-timeout")?;
            }
            "--kill" => {
                let v = value(args, &mut i, "--kill")?;
                let (n, f) = v.split_once(':').ok_or("--kill wants NODE:FENCE")?;
                job.kill = Some((num(n, "--kill")?, num(f, "--kill")?));
            }
            "--freeze" => job.freeze = true,
            "--slurm-env" => job.slurm_env = true,
            "--" => {
                // A program path, or a mode of the built-in client (script, fence, bench).
                job.client = args[i + 1..].to_vec();
                if job.client.first().is_some_and(|c| !c.contains('/')) {
                    job.client.insert(0, pmix_kvs_host::CLIENT.to_owned());
                }
                break;
            }
            a => return Err(format!("unknown argument {a:?}")),
        }
        i += 1;
    }
    if job.nodes == 0 || job.per_node == 0 || job.nodes > 64 || job.per_node > 64 {
        return Err("--nodes and --per-node must be 1..=64".to_owned());
    }
    let out = job.run()?;
    for lines in &out.clients {
        for line in lines {
            println!("{line}");
        }
    }
    let mut ok = out.unfinished.is_empty();
    for (i, (st, log)) in out.hosts.iter().enumerate() {
        ok &= st.is_some_and(|s| s.success());
        println!(
            "host {i}: {}",
            st.map_or("killed at the deadline".to_owned(), |s| s.to_string())
        );
        for line in log.lines() {
            println!("host {i}: {line}");
        }
    }
    if !out.unfinished.is_empty() {
        println!("unfinished ranks: {:?}", out.unfinished);
    }
    if ok && !keep {
        let _ = std::fs::remove_dir_all(&job.dir);
    }
    if keep || !ok {
        println!(
            "elapsed {} ms, folder {}",
            out.elapsed.as_millis(),
            job.dir.display()
        );
    } else {
        println!("elapsed {} ms", out.elapsed.as_millis());
    }
    Ok(ok)
}

fn bench_main(args: &[String]) -> Result<bool, String> {
    let host = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut dir = std::env::temp_dir().join(format!("pmix-kvs-bench.{}", std::process::id()));
    let mut nodes = vec![2, 4, 8];
    let mut per_node = 1;
    let mut bytes = 64;
    let mut fences = 50;
    let mut gets = 20_000;
    let mut clients = 4;
    let mut reps = 5;
    let mut what = "fence".to_owned();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "fence" | "get" => what.clone_from(&args[i]),
            "--dir" => dir = PathBuf::from(value(args, &mut i, "--dir")?),
            "--nodes" => {
                nodes = value(args, &mut i, "--nodes")?
                    .split(',')
                    .map(|s| num(s, "--nodes"))
                    .collect::<Result<_, _>>()?;
            }
            "--per-node" => per_node = num(value(args, &mut i, "--per-node")?, "--per-node")?,
            "--bytes" => bytes = num(value(args, &mut i, "--bytes")?, "--bytes")?,
            "--fences" => fences = num(value(args, &mut i, "--fences")?, "--fences")?,
            "--gets" => gets = num(value(args, &mut i, "--gets")?, "--gets")?,
            "--clients" => clients = num(value(args, &mut i, "--clients")?, "--clients")?,
            "--reps" => reps = num(value(args, &mut i, "--reps")?, "--reps")?,
            a => return Err(format!("unknown argument {a:?}")),
        }
        i += 1;
    }
    if reps == 0 || fences == 0 || gets == 0 || nodes.iter().any(|&n| n == 0 || n > 64) {
        return Err(
            "--reps, --fences, --gets and --nodes must be positive (nodes at most 64)".to_owned(),
        );
    }
    if what == "fence" {
        pmix_kvs_host::bench::fences(&host, &dir, &nodes, per_node, bytes, fences, reps)?;
    } else {
        let n = nodes.first().copied().unwrap_or(2);
        pmix_kvs_host::bench::gets(&host, &dir, clients, n, gets, reps)?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(true)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("node") => node_main(&args[1..]).map(|()| true),
        Some("run") => run_main(&args[1..]),
        Some("bench") => bench_main(&args[1..]),
        _ => Err("usage: pmix-kvs-host run|bench|node ... (see the crate README)".to_owned()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("pmix-kvs-host: {e}");
            ExitCode::from(2)
        }
    }
}
