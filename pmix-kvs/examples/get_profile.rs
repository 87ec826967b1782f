//! A fixed number of `get` hits, for instruction counts under callgrind (stable on a loaded
//! machine, unlike wall time). Run it twice with different counts and take the difference:
//!
//! ```text
//! cargo build --release -p pmix-kvs --example get_profile
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/get_profile cache 100000
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/get_profile cache 200000
//! ```
//!
//! (instructions of the second run − the first) / 100000 = instructions per `get`. Modes:
//! `cache` (the client's cache hit, what a repeated `PMIx_Get` costs), `store` (a node-store
//! hit through a 2N-lock read slot, `refresh_cache`), `with` (the cache hit through
//! `Client::get_with`, no clone), `read` (a bare 2N-lock read), `shm` (a `ShmReader::get_fixed`
//! hit in a shared-memory region), `hashmap` (a `HashMap<String, Value>` get-and-clone, the
//! baseline).

use std::collections::HashMap;
use std::hint::black_box;

use fabric_model::Nanos;
use pmix_kvs::lock::TwoNLock;
use pmix_kvs::region::Region;
use pmix_kvs::shm::{ShmAnswer, ShmReader, ShmWriter};
use pmix_kvs::{Client, GetOptions, GetOutcome, JobInfo, NodeStore, ProcId, Rank, Scope, Value};

/// The key read.
const HIT_KEY: &str = "btl.tcp.addr";

/// A two-process job on one node where rank 0 committed [`HIT_KEY`] = `U64(0xdeadbeef)`
/// (`Global`): the store, rank 0 (the target) and a client for rank 1 (the reader). The
/// criterion bench `pmix_get_hit` reads the same store.
fn get_hit_store() -> pmix_kvs::Result<(NodeStore, ProcId, Client)> {
    let mut store = NodeStore::new();
    let ns = store.register_job("slurm.pmix.1234567.0", &JobInfo::new(2, "n0"))?;
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    p0.put(Scope::Global, HIT_KEY, Value::U64(0xdead_beef))?;
    p0.commit(&mut store)?;
    Ok((store, p0.id(), Client::new(ProcId::new(ns, Rank::new(1)))))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "cache".into());
    let n: u64 = args.next().map_or(Ok(100_000), |s| s.parse())?;
    let (store, target, mut p1) = get_hit_store()?;
    let mut found = 0u64;
    match mode.as_str() {
        "cache" => {
            let opts = GetOptions::default();
            for _ in 0..n {
                let o = p1.get(&store, target, black_box(HIT_KEY), &opts, Nanos::ZERO)?;
                found += u64::from(matches!(o, GetOutcome::Found(_)));
            }
        }
        "with" => {
            let opts = GetOptions::default();
            for _ in 0..n {
                let o = p1.get_with(
                    &store,
                    target,
                    black_box(HIT_KEY),
                    &opts,
                    Nanos::ZERO,
                    |v| matches!(v, Value::U64(_)),
                )?;
                found += u64::from(o == GetOutcome::Found(true));
            }
        }
        "store" => {
            let opts = GetOptions::default().with_refresh_cache(true);
            let shared = TwoNLock::new(store, 2)?;
            let mut slot = shared.reader()?;
            for _ in 0..n {
                let o = p1.get(&slot.read(), target, black_box(HIT_KEY), &opts, Nanos::ZERO)?;
                found += u64::from(matches!(o, GetOutcome::Found(_)));
            }
        }
        "read" => {
            let shared = TwoNLock::new([1u64; 8], 2)?;
            let mut slot = shared.reader()?;
            for _ in 0..n {
                found += u64::from(black_box(&*slot.read())[0] == 1);
            }
        }
        "hashmap" => {
            let mut m: HashMap<String, Value> = HashMap::new();
            m.insert(HIT_KEY.into(), Value::U64(0xdead_beef));
            for _ in 0..n {
                found += u64::from(m.get(black_box(HIT_KEY)).cloned().is_some());
            }
        }
        "shm" => {
            // The node store published into a shared-memory region (here the process's own
            // memory), read through the region's lock: `ShmReader::get_fixed` hits.
            let layout = ShmWriter::layout(2, 1 << 14);
            let len = layout.region_len().ok_or("layout size")?;
            let mut mem = vec![0u8; len + 8];
            let off = mem.as_ptr().align_offset(8);
            let region = Region::format(&mut mem[off..off + len], layout)?;
            ShmWriter::new().publish(&region, &store)?;
            let mut r = ShmReader::new(&region)?;
            let ns = r.nspace("slurm.pmix.1234567.0")?.ok_or("published")?;
            for _ in 0..n {
                let a = r.get_fixed(ns, target.rank, black_box(HIT_KEY), None)?;
                found += u64::from(matches!(a, ShmAnswer::Found(_)));
            }
        }
        other => return Err(format!("unknown mode {other}").into()),
    }
    println!("{mode}: {found} of {n} found");
    Ok(())
}
