//! Seeded corruptions of a published shared-memory store: a region that a writer formatted
//! and published into is copied, corrupted (a bit flipped, a word overwritten, a header
//! field changed, the mapping cut short, or lock words left in states no live process
//! holds or with values no party stores), then attached, read and re-published, each call
//! with a bounded wait ([`Patience::Idles`]). Half the cases run with a liveness check that
//! says every other process is dead, half with one that says every process is alive.
//!
//! Every call must return: a hang shows as a wait that gave up on a holder that is not
//! alive (recovery should have run), counted and required to be zero. A wait that gave up
//! on a live holder is the bound doing its job (a corrupted word naming a live process) and
//! is counted apart. After a re-publish that succeeded, every key must read back exactly
//! as published: the writer rewrote the whole image, whatever the corruption hit.
//!
//! `PMIX_CORRUPTIONS=100000 cargo test -p pmix-kvs --release --test shm_corruption --
//! --nocapture` runs the long experiment and prints the counts; the suite runs 10,000.

use std::collections::BTreeMap;

use pmix_kvs::region::{Patience, Region, RegionLiveness};
use pmix_kvs::shm::{ShmAnswer, ShmReader, ShmWriter};
use pmix_kvs::{Client, Error, JobInfo, NodeStore, ProcId, Rank, Scope, Value};

/// Idle rounds a call may wait: recovery runs at the first idle round and every 16th, so
/// this is ample; a call that needs more is stuck.
const BOUND: u64 = 2_000;
const READER: u64 = 1001;
const WRITER: u64 = 1002;
const SEIZED: u64 = u64::MAX;

// The region layout's offsets (its module documentation's table).
const HEADER: usize = 128;
const SLOT: usize = 128;
const OFF_WRITER: usize = 64;
const OFF_WRITER_HELD: usize = 72;
const SLOTS: usize = 4;
const WORDS: usize = 1 << 11;

fn only_us(token: u64) -> bool {
    token == READER || token == WRITER
}

fn everyone(_: u64) -> bool {
    true
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn store() -> NodeStore {
    let mut s = NodeStore::new();
    let info = JobInfo::new(4, "n0")
        .with_local_peers([Rank::new(0), Rank::new(1)])
        .with_num_nodes(2)
        .with_proc_nodes(vec![0, 0, 1, 1]);
    let ns = s.register_job("job", &info).expect("register");
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    p0.put(Scope::Local, "port", Value::U32(7000)).expect("put");
    p0.put(Scope::Global, "name", Value::String("mlx5_0".into()))
        .expect("put");
    p0.put(Scope::Remote, "addr", Value::Bytes(vec![1, 2, 3, 4, 5]))
        .expect("put");
    p0.commit(&mut s).expect("commit");
    let mut p1 = Client::new(ProcId::new(ns, Rank::new(1)));
    p1.put(Scope::Global, "bw", Value::F64(12.5)).expect("put");
    p1.commit(&mut s).expect("commit");
    s
}

/// The lookups each case makes, and what an intact image answers.
const KEYS: [(u32, &str); 5] = [
    (0, "port"),
    (0, "name"),
    (0, "addr"),
    (1, "bw"),
    (u32::MAX, "pmix.job.size"),
];

fn rank(r: u32) -> Rank {
    if r == u32::MAX {
        Rank::WILDCARD
    } else {
        Rank::new(r)
    }
}

/// An 8-aligned buffer.
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

fn put64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_ne_bytes());
}

fn put32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_ne_bytes());
}

fn token(rng: &mut Rng) -> u64 {
    match rng.below(6) {
        0 => 0,
        1 => SEIZED,
        2 => READER,
        3 => WRITER,
        4 => 7,
        _ => rng.next(),
    }
}

fn small(rng: &mut Rng) -> u32 {
    match rng.below(7) {
        0 => 0,
        1 | 2 => 1,
        3 => 2,
        4 => 3,
        5 => u32::MAX,
        _ => rng.next() as u32,
    }
}

/// Corrupts `b` (a published region of `len` bytes); returns the corruption's kind and the
/// length to attach with.
fn corrupt(rng: &mut Rng, b: &mut [u8], len: usize) -> (&'static str, usize) {
    match rng.below(20) {
        0..=3 => {
            let bit = rng.below(len * 8);
            b[bit / 8] ^= 1 << (bit % 8);
            ("bit flip", len)
        }
        4..=7 => {
            let w = rng.below(len / 8);
            put64(b, 8 * w, token(rng));
            ("word", len)
        }
        8..=10 => {
            let w = rng.below(HEADER / 8);
            let v = if rng.below(2) == 0 {
                rng.next()
            } else {
                u64::from_ne_bytes(b[8 * w..8 * w + 8].try_into().expect("8 bytes")) ^ 1
            };
            put64(b, 8 * w, v);
            ("header", len)
        }
        11 | 12 => ("truncation", rng.below(len)),
        _ => {
            for _ in 0..1 + rng.below(3) {
                match rng.below(4) {
                    0 => put64(b, OFF_WRITER, token(rng)),
                    1 => put32(b, OFF_WRITER_HELD, small(rng)),
                    2 => put64(b, HEADER + SLOT * rng.below(SLOTS), token(rng)),
                    _ => {
                        // A flag or turn word of a slot's signal or main lock.
                        let word = [8, 12, 16, 20, 24, 28][rng.below(6)];
                        put32(b, HEADER + SLOT * rng.below(SLOTS) + word, small(rng));
                    }
                }
            }
            ("lock words", len)
        }
    }
}

#[derive(Default)]
struct Tally {
    /// (operation, outcome) → count.
    outcomes: BTreeMap<(&'static str, String), u64>,
    /// Waits that gave up on a holder that is not alive: wedges.
    hangs: Vec<String>,
    /// Reads after a successful re-publish that did not answer what was published.
    wrong: Vec<String>,
}

impl Tally {
    fn note<T>(
        &mut self,
        op: &'static str,
        r: &Result<T, Error>,
        alive: fn(u64) -> bool,
        case: u64,
    ) {
        let outcome = match r {
            Ok(_) => "ok".to_owned(),
            Err(e) => {
                if let Error::LockWaitGaveUp { holder, .. } = e
                    && !alive(*holder)
                {
                    self.hangs.push(format!("case {case}: {op}: {e}"));
                }
                let name = format!("{e:?}");
                let kind = name.split([' ', '{', '(']).next().unwrap_or("?").to_owned();
                match e {
                    Error::LockWaitGaveUp { .. } => format!("{kind} (live holder)"),
                    _ => kind,
                }
            }
        };
        *self.outcomes.entry((op, outcome)).or_default() += 1;
    }
}

fn lookups(r: &mut ShmReader<'_, '_>) -> Result<Vec<ShmAnswer<Value>>, Error> {
    let ns = r.nspace("job")?.ok_or(Error::UnknownNspace {
        nspace: "job".into(),
    })?;
    KEYS.iter()
        .map(|&(k, key)| r.get(ns, rank(k), key, None))
        .collect()
}

fn run(cases: u64) -> Tally {
    let s = store();
    let layout = ShmWriter::layout(SLOTS, WORDS);
    let len = layout.region_len().expect("small layout");
    let mut pristine = Mem::new(len);
    let want = {
        let region = Region::format(pristine.bytes(), layout).expect("format");
        let mut w = ShmWriter::new();
        w.publish(&region, &s).expect("publish");
        w.publish(&region, &s)
            .expect("publish again: both halves used");
        let mut r = ShmReader::new(&region).expect("reader");
        lookups(&mut r).expect("intact lookups")
    };
    // Four values, and the `Remote` key of a local process: outside scope on its node.
    assert_eq!(
        want.iter()
            .filter(|a| matches!(a, ShmAnswer::Found(_)))
            .count(),
        4
    );
    assert_eq!(want[2], ShmAnswer::OutsideScope);
    let mut mem = Mem::new(len);
    let mut tally = Tally::default();
    let mut writer = ShmWriter::new();
    for case in 0..cases {
        let mut rng = Rng(case);
        let b = mem.bytes();
        b.copy_from_slice(pristine.bytes());
        let (kind, cut) = corrupt(&mut rng, b, len);
        let alive: fn(u64) -> bool = if case % 2 == 0 { only_us } else { everyone };
        *tally
            .outcomes
            .entry(("corruption", kind.to_owned()))
            .or_default() += 1;
        let attached = Region::attach(&mut b[..cut]);
        tally.note("attach", &attached, alive, case);
        let Ok(region) = attached else {
            continue;
        };
        let bound = Patience::Idles(BOUND);
        let handle = |token| {
            region
                .clone()
                .with_liveness(RegionLiveness::new(token, alive).expect("not reserved"))
                .with_patience(bound)
        };
        let (rh, wh) = (handle(READER), handle(WRITER));
        {
            let reader = ShmReader::new(&rh);
            tally.note("claim a slot", &reader, alive, case);
            if let Ok(mut reader) = reader {
                let read = lookups(&mut reader);
                tally.note("read", &read, alive, case);
            }
        }
        let published = writer.publish(&wh, &s);
        tally.note("re-publish", &published, alive, case);
        if published.is_ok() {
            let again = ShmReader::new(&rh).and_then(|mut r| lookups(&mut r));
            tally.note("read after re-publish", &again, alive, case);
            if again.as_ref() != Ok(&want) {
                tally.wrong.push(format!("case {case} ({kind}): {again:?}"));
            }
        }
    }
    tally
}

#[test]
fn corrupted_regions_never_wedge_and_republishing_restores_them() {
    let cases = std::env::var("PMIX_CORRUPTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let t = run(cases);
    println!("{cases} seeded corruptions (bound: {BOUND} idle rounds per call)");
    for ((op, outcome), n) in &t.outcomes {
        println!("  {op:<22} {outcome:<36} {n}");
    }
    println!(
        "  hangs (gave up on a holder that is not alive): {}",
        t.hangs.len()
    );
    println!("  wrong answers after a re-publish: {}", t.wrong.len());
    assert!(
        t.hangs.is_empty(),
        "wedged: {:?}",
        &t.hangs[..t.hangs.len().min(10)]
    );
    assert!(
        t.wrong.is_empty(),
        "wrong: {:?}",
        &t.wrong[..t.wrong.len().min(10)]
    );
    let republished = t
        .outcomes
        .get(&("re-publish", "ok".to_owned()))
        .copied()
        .unwrap_or(0);
    // Most corruptions leave a region the writer can publish into again (a truncation or a
    // header that no longer attaches cannot be).
    assert!(
        republished * 2 > cases,
        "only {republished} of {cases} re-published"
    );
}
