use super::layout::{CONTROL, W_CURRENT, half_words};
use super::*;
use crate::region::{Region, RegionLayout};
use crate::{
    Client, Error, FenceBlob, GetOptions, GetOutcome, JobInfo, NodeStore, ProcEntry, ProcId, Rank,
    Scope, Value, keys,
};
use fabric_model::Nanos;
use proptest::prelude::*;

/// An 8-aligned byte buffer of `len` bytes carved out of a vector.
struct Mem(Vec<u8>);

impl Mem {
    fn new(len: usize) -> Self {
        Self(vec![0; len + 8])
    }
    fn bytes(&mut self) -> &mut [u8] {
        let off = self.0.as_ptr().align_offset(8);
        let len = self.0.len() - 8;
        &mut self.0[off..off + len]
    }
}

fn mem_for(layout: RegionLayout) -> Mem {
    Mem::new(layout.region_len().unwrap())
}

/// Publishes `s` once into `region` (with a writer of its own) and attaches a reader: the
/// reader and the namespace of the job `store()` registers.
fn publish_and_attach<'r, 'a>(
    region: &'r Region<'a>,
    s: &NodeStore,
) -> (ShmReader<'r, 'a>, ShmNspace) {
    ShmWriter::new().publish(region, s).unwrap();
    let mut r = ShmReader::new(region).unwrap();
    let job = r.nspace("job").unwrap().unwrap();
    (r, job)
}

/// Ranks 0, 1 on this node (node 0), ranks 2, 3 on node 1.
fn store() -> (NodeStore, crate::Nspace) {
    let mut s = NodeStore::new();
    let info = JobInfo::new(4, "n0")
        .with_local_peers([Rank::new(0), Rank::new(1)])
        .with_num_nodes(2)
        .with_proc_nodes(vec![0, 0, 1, 1])
        .with_node_hostnames(vec!["n0".into(), "n1".into()])
        .with_extra("app.flavour", Value::String("vanilla".into()));
    let ns = s.register_job("job", &info).unwrap();
    (s, ns)
}

fn all_values() -> Vec<Value> {
    vec![
        Value::Bool(true),
        Value::Byte(0xAB),
        Value::String("eth0:10.0.0.1".into()),
        Value::Size(1 << 40),
        Value::Pid(4242),
        Value::I8(-5),
        Value::I16(-300),
        Value::I32(-70_000),
        Value::I64(i64::MIN),
        Value::U8(200),
        Value::U16(65_000),
        Value::U32(4_000_000_000),
        Value::U64(u64::MAX),
        Value::F32(-1.5e-7),
        Value::F64(f64::NAN),
        Value::Proc {
            nspace: "other".into(),
            rank: Rank::new(9),
        },
        Value::Bytes((0..=20).collect()),
        Value::Array(vec![Value::U32(1), Value::String("x".into())]),
        Value::Rank(Rank::new(3)),
        Value::String(String::new()),
    ]
}

#[test]
fn every_value_type_round_trips_through_the_region() {
    let (mut s, ns) = store();
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    for (i, v) in all_values().into_iter().enumerate() {
        p0.put(Scope::Global, &format!("k{i}"), v).unwrap();
    }
    p0.commit(&mut s).unwrap();
    let layout = ShmWriter::layout(2, 8192);
    let mut m = mem_for(layout);
    let region = Region::format(m.bytes(), layout).unwrap();
    let mut w = ShmWriter::new();
    let p = w.publish(&region, &s).unwrap();
    assert_eq!(p.sequence, 1);
    assert!(p.words <= p.capacity);
    let mut r = ShmReader::new(&region).unwrap();
    let job = r.nspace("job").unwrap().unwrap();
    assert_eq!(job.index(), 0);
    assert_eq!(r.nspace("nope").unwrap(), None);
    for (i, v) in all_values().into_iter().enumerate() {
        let key = format!("k{i}");
        let got = r.get(job, Rank::new(0), &key, None).unwrap();
        assert_eq!(got, ShmAnswer::Found(v.clone()), "{key}");
        let fixed = r.get_fixed(job, Rank::new(0), &key, None).unwrap();
        let mut buf = [0u8; 64];
        let bytes = r
            .get_bytes_into(job, Rank::new(0), &key, None, &mut buf)
            .unwrap();
        match &v {
            Value::String(x) => {
                assert_eq!(fixed, ShmAnswer::OtherType(v.data_type()));
                assert_eq!(bytes, ShmAnswer::Found((v.data_type(), x.len())));
                assert_eq!(&buf[..x.len()], x.as_bytes());
            }
            Value::Bytes(x) => {
                assert_eq!(bytes, ShmAnswer::Found((v.data_type(), x.len())));
                assert_eq!(&buf[..x.len()], &x[..]);
            }
            Value::Proc { .. } | Value::Array(_) => {
                assert_eq!(fixed, ShmAnswer::OtherType(v.data_type()));
                assert_eq!(bytes, ShmAnswer::OtherType(v.data_type()));
            }
            _ => {
                assert_eq!(fixed, ShmAnswer::Found(v.clone()));
                assert_eq!(bytes, ShmAnswer::OtherType(v.data_type()));
            }
        }
    }
    // A buffer too short: the full length, the first bytes copied.
    let mut short = [0u8; 4];
    assert_eq!(
        r.get_bytes_into(job, Rank::new(0), "k2", None, &mut short)
            .unwrap(),
        ShmAnswer::Found((crate::DataType::String, 13))
    );
    assert_eq!(&short, b"eth0");
}

#[test]
fn reserved_keys_answer_per_rank_and_from_the_job() {
    let (s, _) = store();
    let layout = ShmWriter::layout(1, 4096);
    let mut m = mem_for(layout);
    let region = Region::format(m.bytes(), layout).unwrap();
    let (mut r, job) = publish_and_attach(&region, &s);
    let get =
        |r: &mut ShmReader<'_, '_>, rank: Rank, key: &str| r.get(job, rank, key, None).unwrap();
    let f = ShmAnswer::Found;
    assert_eq!(
        get(&mut r, Rank::WILDCARD, keys::JOB_SIZE),
        f(Value::U32(4))
    );
    // A job-level reserved key asked of a rank answers the job's value.
    assert_eq!(get(&mut r, Rank::new(3), keys::JOB_SIZE), f(Value::U32(4)));
    assert_eq!(
        get(&mut r, Rank::WILDCARD, "app.flavour"),
        f(Value::String("vanilla".into()))
    );
    // Per rank: the peer on node 1 has node 1's id and host name (the per-rank reserved keys' rule).
    assert_eq!(get(&mut r, Rank::new(2), keys::NODE_ID), f(Value::U32(1)));
    assert_eq!(
        get(&mut r, Rank::new(2), keys::HOSTNAME),
        f(Value::String("n1".into()))
    );
    assert_eq!(
        get(&mut r, Rank::new(1), keys::HOSTNAME),
        f(Value::String("n0".into()))
    );
    assert_eq!(
        get(&mut r, Rank::new(3), keys::LOCAL_RANK),
        f(Value::U16(1))
    );
    assert_eq!(get(&mut r, Rank::new(1), keys::NODE_RANK), f(Value::U16(1)));
    assert_eq!(
        get(&mut r, Rank::new(2), keys::NODE_RANK),
        ShmAnswer::Missing
    );
    assert_eq!(
        get(&mut r, Rank::new(2), keys::RANK),
        f(Value::Rank(Rank::new(2)))
    );
    assert_eq!(
        get(&mut r, Rank::new(0), keys::LOCALITY),
        f(Value::U16(keys::locality::SHARE_NODE))
    );
    assert_eq!(
        get(&mut r, Rank::new(3), keys::LOCALITY),
        f(Value::U16(keys::locality::NONLOCAL))
    );
    // Ranks that hold no data, and ranks beyond the job: the store's errors.
    for bad in [
        Rank::LOCAL_PEERS,
        Rank::INVALID,
        Rank::LOCAL_NODE,
        Rank::UNDEF,
        Rank::new(4),
    ] {
        assert!(
            matches!(r.get(job, bad, "k", None), Err(Error::BadRank { rank, .. }) if rank == bad),
            "{bad}"
        );
    }
    assert_eq!(
        r.get(job, Rank::new(0), "", None),
        Err(Error::BadKeyLength { len: 0 })
    );
}

#[test]
fn scopes_and_fence_data_answer_as_the_store_does() {
    let (mut s, ns) = store();
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    p0.put(Scope::Local, "l", Value::U32(1)).unwrap();
    p0.put(Scope::Remote, "r", Value::U32(2)).unwrap();
    p0.put(Scope::Global, "g", Value::U32(3)).unwrap();
    p0.commit(&mut s).unwrap();
    let mut blob = FenceBlob::new("job", true);
    blob.entries.push(ProcEntry {
        rank: Rank::new(2),
        kvs: vec![("addr".into(), Value::U64(77))],
    });
    s.apply_fence(&[blob]).unwrap();
    let layout = ShmWriter::layout(1, 4096);
    let mut m = mem_for(layout);
    let region = Region::format(m.bytes(), layout).unwrap();
    let (mut r, job) = publish_and_attach(&region, &s);
    let r0 = Rank::new(0);
    assert_eq!(
        r.get_fixed(job, r0, "l", None),
        Ok(ShmAnswer::Found(Value::U32(1)))
    );
    // Remote-only data of a local process: not visible on the node.
    assert_eq!(r.get_fixed(job, r0, "r", None), Ok(ShmAnswer::OutsideScope));
    assert_eq!(
        r.get_fixed(job, r0, "g", Some(Scope::Local)),
        Ok(ShmAnswer::Found(Value::U32(3)))
    );
    assert_eq!(
        r.get_fixed(job, r0, "g", Some(Scope::Remote)),
        Ok(ShmAnswer::OutsideScope)
    );
    assert_eq!(
        r.get_fixed(job, r0, "l", Some(Scope::Internal)),
        Ok(ShmAnswer::OutsideScope)
    );
    assert_eq!(r.get_fixed(job, r0, "x", None), Ok(ShmAnswer::Missing));
    // What the fence brought of a remote process.
    assert_eq!(
        r.get_fixed(job, Rank::new(2), "addr", None),
        Ok(ShmAnswer::Found(Value::U64(77)))
    );
    assert_eq!(
        r.get_fixed(job, Rank::new(2), "addr", Some(Scope::Local)),
        Ok(ShmAnswer::OutsideScope)
    );
}

#[test]
fn before_the_first_publish_nothing_is_there() {
    let layout = ShmWriter::layout(1, 64);
    let mut m = mem_for(layout);
    let region = Region::format(m.bytes(), layout).unwrap();
    let mut r = ShmReader::new(&region).unwrap();
    assert_eq!(r.sequence(), Ok(0));
    assert_eq!(r.nspace("job"), Ok(None));
}

#[test]
fn publishes_alternate_halves_and_a_torn_copy_is_never_seen() {
    let (mut s, ns) = store();
    let layout = ShmWriter::layout(1, 2048);
    let mut m = mem_for(layout);
    let region = Region::format(m.bytes(), layout).unwrap();
    let mut w = ShmWriter::new();
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    let mut r = ShmReader::new(&region).unwrap();
    for v in 1..=4u32 {
        p0.put(Scope::Local, "v", Value::U32(v)).unwrap();
        p0.commit(&mut s).unwrap();
        let p = w.publish(&region, &s).unwrap();
        assert_eq!(p.sequence, u64::from(v));
        let half = region.write(|w| w.get(W_CURRENT).unwrap() & 0xFF).unwrap();
        assert_eq!(half, if v % 2 == 1 { 1 } else { 2 });
        assert_eq!(r.sequence(), Ok(u64::from(v)));
    }
    let job = r.nspace("job").unwrap().unwrap();
    // A writer killed while copying the next image: the half that is not current is
    // garbage, the current word unchanged. Readers still see the last whole image.
    let words = region.words();
    region
        .write(|w| {
            for i in CONTROL..CONTROL + half_words(words) {
                w.set(i, 0xDEAD_BEEF_DEAD_BEEF);
            }
        })
        .unwrap();
    assert_eq!(
        r.get_fixed(job, Rank::new(0), "v", None),
        Ok(ShmAnswer::Found(Value::U32(4)))
    );
    // The next publish overwrites the garbage and is read whole.
    p0.put(Scope::Local, "v", Value::U32(5)).unwrap();
    p0.commit(&mut s).unwrap();
    w.publish(&region, &s).unwrap();
    assert_eq!(
        r.get_fixed(job, Rank::new(0), "v", None),
        Ok(ShmAnswer::Found(Value::U32(5)))
    );
}

#[test]
fn a_full_region_refuses_precisely_then_the_store_moves() {
    let (mut s, ns) = store();
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    p0.put(Scope::Local, "small", Value::U32(1)).unwrap();
    p0.commit(&mut s).unwrap();
    let small = ShmWriter::layout(2, 512);
    let mut m = mem_for(small);
    let region = Region::format(m.bytes(), small).unwrap();
    let mut w = ShmWriter::new();
    w.publish(&region, &s).unwrap();
    p0.put(Scope::Local, "big", Value::Bytes(vec![7; 8000]))
        .unwrap();
    p0.commit(&mut s).unwrap();
    let err = w.publish(&region, &s).unwrap_err();
    let needed = w.region_len_needed(2).unwrap();
    assert_eq!(
        err,
        Error::RegionTooSmall {
            needed,
            len: small.region_len().unwrap()
        }
    );
    // Nothing was written: readers keep the previous image.
    let mut r = ShmReader::new(&region).unwrap();
    let job = r.nspace("job").unwrap().unwrap();
    assert_eq!(r.sequence(), Ok(1));
    assert_eq!(
        r.get_fixed(job, Rank::new(0), "big", None),
        Ok(ShmAnswer::Missing)
    );
    // A region of exactly the length asked for holds it.
    let big = ShmWriter::layout(2, w.words_needed());
    assert_eq!(big.region_len(), Some(needed));
    let mut m2 = mem_for(big);
    let region2 = Region::format(m2.bytes(), big).unwrap();
    w.publish(&region2, &s).unwrap();
    w.retire(&region, 2, needed).unwrap();
    assert_eq!(
        r.get_fixed(job, Rank::new(0), "small", None),
        Err(Error::StoreMoved {
            successor: 2,
            len: needed
        })
    );
    assert!(matches!(
        w.publish(&region, &NodeStore::new()),
        Err(Error::StoreMoved { successor: 2, .. })
    ));
    let mut r2 = ShmReader::new(&region2).unwrap();
    let job2 = r2.nspace("job").unwrap().unwrap();
    let mut buf = vec![0u8; 8000];
    assert_eq!(
        r2.get_bytes_into(job2, Rank::new(0), "big", None, &mut buf),
        Ok(ShmAnswer::Found((crate::DataType::ByteObject, 8000)))
    );
    assert!(buf.iter().all(|&b| b == 7));
}

#[test]
fn readers_in_threads_see_whole_images_while_the_writer_publishes() {
    let (mut s, ns) = store();
    let layout = ShmWriter::layout(3, 4096);
    let mut m = mem_for(layout);
    let region = Region::format(m.bytes(), layout).unwrap();
    let mut w = ShmWriter::new();
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    let publish = |s: &mut NodeStore, w: &mut ShmWriter, p0: &mut Client, v: u32| {
        p0.put(Scope::Local, "a", Value::U32(v)).unwrap();
        p0.put(Scope::Local, "b", Value::String(format!("v{v}")))
            .unwrap();
        p0.commit(s).unwrap();
        w.publish(&region, s).unwrap();
    };
    publish(&mut s, &mut w, &mut p0, 0);
    let rounds = if cfg!(miri) { 5 } else { 200 };
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| {
                let mut r = ShmReader::new(&region).unwrap();
                let job = r.nspace("job").unwrap().unwrap();
                let mut last = 0;
                while last < rounds {
                    let ShmAnswer::Found(Value::U32(a)) =
                        r.get(job, Rank::new(0), "a", None).unwrap()
                    else {
                        panic!("a missing");
                    };
                    assert!(a >= last, "went back from {last} to {a}");
                    last = a;
                    let ShmAnswer::Found(Value::String(b)) =
                        r.get(job, Rank::new(0), "b", None).unwrap()
                    else {
                        panic!("b missing");
                    };
                    let b: u32 = b[1..].parse().unwrap();
                    assert!(b >= a, "b {b} older than a {a}");
                }
            });
        }
        for v in 1..=rounds {
            publish(&mut s, &mut w, &mut p0, v);
        }
    });
}

/// One store operation of the equivalence property.
#[derive(Debug, Clone)]
enum Op {
    Put {
        rank: u32,
        scope: u8,
        key: u8,
        val: u32,
        commit: bool,
    },
    Fence {
        rank: u32,
        key: u8,
        val: u32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u32..2, 1u8..=4, 0u8..6, any::<u32>(), any::<bool>()).prop_map(
            |(rank, scope, key, val, commit)| Op::Put {
                rank,
                scope,
                key,
                val,
                commit
            }
        ),
        (2u32..4, 0u8..6, any::<u32>()).prop_map(|(rank, key, val)| Op::Fence { rank, key, val }),
    ]
}

fn as_shm(o: GetOutcome) -> Option<ShmAnswer<Value>> {
    match o {
        GetOutcome::Found(v) => Some(ShmAnswer::Found(v)),
        GetOutcome::NotFound => Some(ShmAnswer::Missing),
        GetOutcome::ExistsOutsideScope => Some(ShmAnswer::OutsideScope),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// After any puts, commits and fences, the shared store answers every (rank, key, scope)
    /// as the node store answers a local process that re-reads it.
    #[cfg_attr(miri, ignore = "thousands of lookups per case: too slow under Miri")]
    #[test]
    fn the_shared_store_answers_as_the_node_store(ops in proptest::collection::vec(op(), 0..30)) {
        let (mut s, ns) = store();
        let mut clients: Vec<Client> = (0..2).map(|r| Client::new(ProcId::new(ns, Rank::new(r)))).collect();
        for o in ops {
            match o {
                Op::Put { rank, scope, key, val, commit } => {
                    let c = &mut clients[rank as usize];
                    c.put(Scope::from_code(scope).unwrap(), &format!("k{key}"), Value::U32(val)).unwrap();
                    if commit {
                        c.commit(&mut s).unwrap();
                    }
                }
                Op::Fence { rank, key, val } => {
                    let mut b = FenceBlob::new("job", true);
                    b.entries.push(ProcEntry { rank: Rank::new(rank), kvs: vec![(format!("k{key}"), Value::U32(val))] });
                    s.apply_fence(&[b]).unwrap();
                }
            }
        }
        let layout = ShmWriter::layout(1, 8192);
        let mut m = mem_for(layout);
        let region = Region::format(m.bytes(), layout).unwrap();
        let (mut r, job) = publish_and_attach(&region, &s);
        // The asker: a local process that put nothing (no own data, no cache).
        let mut asker = Client::new(ProcId::new(ns, Rank::new(1)));
        let mut keys_: Vec<String> = (0..6).map(|k| format!("k{k}")).collect();
        keys_.extend([keys::JOB_SIZE, keys::HOSTNAME, keys::NODE_ID, keys::LOCAL_RANK, keys::NODE_RANK, keys::RANK, keys::LOCALITY, keys::LOCAL_PEERS, "app.flavour"].map(String::from));
        for rank in [0, 1, 2, 3].map(Rank::new).into_iter().chain([Rank::WILDCARD]) {
            for key in &keys_ {
                for scope in [None, Some(Scope::Local), Some(Scope::Remote), Some(Scope::Global), Some(Scope::Internal)] {
                    let mut opts = GetOptions::default().with_refresh_cache(true);
                    if let Some(sc) = scope {
                        opts = opts.with_scope(sc);
                    }
                    if rank == Rank::new(1) && !keys::is_reserved(key) {
                        continue; // the asker's own data is its own business
                    }
                    let want = asker.get(&s, ProcId::new(ns, rank), key, &opts, Nanos::ZERO).unwrap();
                    let got = r.get(job, rank, key, scope).unwrap();
                    prop_assert_eq!(Some(got), as_shm(want), "{} {} {:?}", rank, key, scope);
                }
            }
        }
    }

    /// Whatever the data words hold, a lookup ends (no panic, no endless probe) with an
    /// answer or an error.
    #[cfg_attr(miri, ignore = "proptest cases are too slow under Miri")]
    #[test]
    fn garbage_images_never_panic(words in proptest::collection::vec(any::<u64>(), 0..200), half in 0u64..4, small in 0u64..64) {
        let (s, _) = store();
        let layout = ShmWriter::layout(1, 512);
        let mut m = mem_for(layout);
        let region = Region::format(m.bytes(), layout).unwrap();
        ShmWriter::new().publish(&region, &s).unwrap();
        // The handle of the intact image (a garbage name hash refuses it, an intact one
        // lets the lookup walk the garbage).
        let ns = ShmReader::new(&region).unwrap().nspace("job").unwrap().unwrap();
        region.write(|w| {
            for (i, &v) in words.iter().enumerate() {
                // Mostly small numbers (offsets and lengths that point inside), some raw.
                w.set(2 + i, if v % 3 == 0 { v } else { v % (small + 8) });
            }
            w.set(1, (w.get(1).unwrap() & !0xFF) | half);
        }).unwrap();
        let mut r = ShmReader::new(&region).unwrap();
        let _ = r.sequence();
        let _ = r.nspace("job");
        let _ = r.get(ns, Rank::new(0), "pmix.hname", None);
        let _ = r.get(ns, Rank::WILDCARD, "app.flavour", None);
        let mut buf = [0u8; 16];
        let _ = r.get_bytes_into(ns, Rank::new(1), "k1", None, &mut buf);
    }
}

#[test]
fn publish_noting_lock_reports_asking_then_holding() {
    let (s, _) = store();
    let layout = ShmWriter::layout(1, 4096);
    let mut m = mem_for(layout);
    let region = Region::format(m.bytes(), layout).unwrap();
    let mut events = Vec::new();
    let generation = region.generation();
    ShmWriter::new()
        .publish_noting_lock(&region, &s, |e| events.push((e, region.generation())))
        .unwrap();
    // Asked before the write began (generation even), held inside it (odd).
    assert_eq!(
        events,
        [
            (LockEvent::Taking, generation),
            (LockEvent::Held, generation + 1)
        ]
    );
    // Refused (too small): no event.
    let tiny = ShmWriter::layout(1, 8);
    let mut m2 = mem_for(tiny);
    let small = Region::format(m2.bytes(), tiny).unwrap();
    let mut called = false;
    assert!(matches!(
        ShmWriter::new().publish_noting_lock(&small, &s, |_| called = true),
        Err(Error::RegionTooSmall { .. })
    ));
    assert!(!called);
}

/// A store of `jobs` registered in this order, each with rank 0's `port` set to `port + i`.
fn store_of(jobs: &[&str], port: u32) -> NodeStore {
    let mut s = NodeStore::new();
    for (i, job) in jobs.iter().enumerate() {
        let ns = s.register_job(job, &JobInfo::new(2, "n0")).unwrap();
        let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
        p0.put(Scope::Local, "port", Value::U32(port + i as u32))
            .unwrap();
        p0.commit(&mut s).unwrap();
    }
    s
}

/// A handle of one region's namespace, used on another region whose store registered
/// another job first (at the same index), is refused, whether the embedder named the
/// regions or not (regression: it answered the other job's data).
#[test]
fn a_handle_of_another_region_is_refused() {
    let a = store_of(&["jobA"], 100);
    let b = store_of(&["jobB", "jobA"], 200);
    for (id_a, id_b) in [(0, 0), (5, 6)] {
        let layout = ShmWriter::layout(2, 1024);
        let (mut ma, mut mb) = (mem_for(layout), mem_for(layout));
        let ra = Region::format(ma.bytes(), layout.with_id(id_a)).unwrap();
        let rb = Region::format(mb.bytes(), layout.with_id(id_b)).unwrap();
        ShmWriter::new().publish(&ra, &a).unwrap();
        ShmWriter::new().publish(&rb, &b).unwrap();
        let mut reader_a = ShmReader::new(&ra).unwrap();
        let mut reader_b = ShmReader::new(&rb).unwrap();
        let ha = reader_a.nspace("jobA").unwrap().unwrap();
        assert_eq!(ha.index(), 0);
        assert_eq!(
            reader_b.get_fixed(ha, Rank::new(0), "port", None),
            Err(Error::ForeignNspace { index: 0 }),
            "ids {id_a}, {id_b}"
        );
        assert_eq!(
            Error::ForeignNspace { index: 0 }.status(),
            crate::status::ERR_BAD_PARAM
        );
        let hb = reader_b.nspace("jobA").unwrap().unwrap();
        assert_eq!(hb.index(), 1);
        assert_eq!(
            reader_b.get_fixed(hb, Rank::new(0), "port", None).unwrap(),
            ShmAnswer::Found(Value::U32(201))
        );
        assert_eq!(
            reader_a.get_fixed(ha, Rank::new(0), "port", None).unwrap(),
            ShmAnswer::Found(Value::U32(100))
        );
        assert!(reader_a.get_fixed(hb, Rank::new(0), "port", None).is_err());
    }
}

/// A handle from before the region's memory was formatted again (a new generation of the
/// same region) is refused, even for the same job at the same index; the new generation's
/// handle answers.
#[test]
fn a_handle_of_an_older_generation_is_refused() {
    let s = store_of(&["job"], 7);
    let layout = ShmWriter::layout(2, 1024);
    let mut m = mem_for(layout);
    let (old, old_id) = {
        let region = Region::format(m.bytes(), layout).unwrap();
        ShmWriter::new().publish(&region, &s).unwrap();
        let mut r = ShmReader::new(&region).unwrap();
        (r.nspace("job").unwrap().unwrap(), region.id())
    };
    assert_eq!(old_id, 1, "fresh memory");
    let region = Region::format(m.bytes(), layout).unwrap();
    assert_eq!(region.id(), 2, "one more than the region these bytes held");
    ShmWriter::new().publish(&region, &s).unwrap();
    let mut r = ShmReader::new(&region).unwrap();
    assert_eq!(
        r.get(old, Rank::new(0), "port", None),
        Err(Error::ForeignNspace { index: 0 })
    );
    let new = r.nspace("job").unwrap().unwrap();
    assert_eq!(new.index(), old.index());
    assert_ne!(new, old);
    assert_eq!(
        r.get(new, Rank::new(0), "port", None).unwrap(),
        ShmAnswer::Found(Value::U32(7))
    );
    drop(r);
    assert_eq!(
        Region::attach(m.bytes()).unwrap().id(),
        2,
        "attach reads the id"
    );
}
