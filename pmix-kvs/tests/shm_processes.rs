//! The shared store across real processes: the parent (the server) formats a region in a
//! memfd, publishes its node store there, and forks reader processes that map the memfd
//! again (at an address of their own: the layout holds offsets only), attach, and look
//! values up while the parent keeps committing and publishing. Every reader checks that a
//! value is never torn (a byte object holding its publish's counter, then that counter's low
//! byte as many times as the counter says), that
//! the counter never goes back, and that a reserved key answers; it reports by its exit
//! status. A plain `main` (no test harness): the process is single-threaded when it forks.
#![allow(unsafe_code)]

mod common;

#[cfg(target_os = "linux")]
fn main() {
    use pmix_kvs::region::Region;
    use pmix_kvs::shm::ShmWriter;
    use pmix_kvs::{Client, JobInfo, NodeStore, ProcId, Rank, Scope, Value};

    const READERS: usize = 3;
    const PUBLISHES: u64 = 300;
    let layout = ShmWriter::layout(READERS, 4096);
    let len = layout.region_len().expect("small layout");
    let fd = common::memfd(c"pmix-shm-test", len);
    let base = common::map_fd(fd, len);
    // SAFETY: the mapping is `len` bytes, readable and writable, page-aligned, and stays
    // mapped until this process exits; in this process only this slice reaches it, and the
    // readers touch it only through `Region` (the region's safety contract).
    let bytes = unsafe { std::slice::from_raw_parts_mut(base, len) };
    let region = Region::format(bytes, layout).expect("format");
    let mut store = NodeStore::new();
    let ns = store
        .register_job("job", &JobInfo::new(2, "n0"))
        .expect("register");
    let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
    let mut writer = ShmWriter::new();
    let mut publish = |k: u64| {
        p0.put(Scope::Local, "counter", Value::U64(k)).expect("put");
        // Self-checking: the counter, then its low byte 192 + k % 7 times.
        let mut blob = k.to_le_bytes().to_vec();
        blob.resize(8 + 192 + (k % 7) as usize, k as u8);
        p0.put(Scope::Local, "blob", Value::Bytes(blob))
            .expect("put");
        p0.commit(&mut store).expect("commit");
        writer.publish(&region, &store).expect("publish");
    };
    publish(0);
    let mut children = Vec::new();
    for _ in 0..READERS {
        // This process is single-threaded (no harness): the child may run ordinary code.
        children.push(common::fork(|| reader(fd, len, base)));
    }
    for k in 1..PUBLISHES {
        publish(k);
        std::thread::yield_now();
    }
    publish(u64::MAX);
    let mut failed = 0;
    for pid in children {
        let (r, status) = common::wait(pid);
        assert_eq!(r, pid, "waitpid");
        if !common::exited_ok(status) {
            eprintln!("reader {pid} failed: status {status:#x}");
            failed += 1;
        }
    }
    assert_eq!(
        failed, 0,
        "{failed} reader process(es) saw a torn, stale or missing value"
    );
    println!("shm_processes: {READERS} reader processes, {PUBLISHES} publishes: ok");
}

/// A reader process: maps the memfd again, attaches, reads until the final counter; 0 if
/// every check held, else the number of the broken one.
#[cfg(target_os = "linux")]
fn reader(fd: i32, len: usize, parent_base: *mut u8) -> i32 {
    use pmix_kvs::region::Region;
    use pmix_kvs::shm::{ShmAnswer, ShmReader};
    use pmix_kvs::{DataType, Rank, Value, keys};

    let base = common::map_fd(fd, len);
    if base == parent_base {
        return 9; // the inherited mapping is still there: a new one cannot be at its address
    }
    // SAFETY: a fresh shared mapping of the memfd, `len` bytes, reached only through this
    // slice and `Region`; it stays mapped until the process exits.
    let bytes = unsafe { std::slice::from_raw_parts_mut(base, len) };
    let Ok(region) = Region::attach(bytes) else {
        return 10;
    };
    let Ok(mut r) = ShmReader::new(&region) else {
        return 11;
    };
    let Ok(Some(job)) = r.nspace("job") else {
        return 12;
    };
    let mut last = 0;
    let mut buf = [0u8; 256];
    loop {
        let Ok(ShmAnswer::Found(Value::U64(k))) = r.get_fixed(job, Rank::new(0), "counter", None)
        else {
            return 1;
        };
        if k < last {
            return 2;
        }
        last = k;
        let Ok(ShmAnswer::Found((DataType::ByteObject, n))) =
            r.get_bytes_into(job, Rank::new(0), "blob", None, &mut buf)
        else {
            return 3;
        };
        // One image: the length and bytes the publish of the counter inside wrote.
        let mut head = [0u8; 8];
        head.copy_from_slice(&buf[..8]);
        let kb = u64::from_le_bytes(head);
        if kb < k || n != 200 + (kb % 7) as usize || !buf[8..n].iter().all(|&b| b == kb as u8) {
            return 4;
        }
        if r.get_fixed(job, Rank::new(1), keys::LOCAL_RANK, None)
            != Ok(ShmAnswer::Found(Value::U16(1)))
        {
            return 5;
        }
        if k == u64::MAX {
            return 0;
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {}
