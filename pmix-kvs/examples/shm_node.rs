//! A node's PMIx server and its client processes sharing the node store through memory.
//!
//! The server maps a memfd, formats a region in it and publishes its `NodeStore` there;
//! it forks one process per local rank, and each maps the memfd afresh (at its own
//! address), attaches and reads: its own local rank, the job size, a peer's committed
//! endpoint, and, once the server has published the fence's result, the endpoint of a rank
//! on another node. Linux only (memfd); run with `cargo run -p pmix-kvs --example shm_node`.
#![allow(unsafe_code)]

#[cfg(target_os = "linux")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use pmix_kvs::region::Region;
    use pmix_kvs::shm::ShmWriter;
    use pmix_kvs::{Client, FenceBlob, JobInfo, NodeStore, ProcEntry, ProcId, Rank, Scope, Value};

    const LOCAL: u32 = 3;
    // A job of 6 ranks: 0..3 on this node (node 0), 3..6 on node 1.
    let info = JobInfo::new(2 * LOCAL, "node0")
        .with_local_peers((0..LOCAL).map(Rank::new))
        .with_num_nodes(2)
        .with_proc_nodes((0..2 * LOCAL).map(|r| r / LOCAL).collect())
        .with_node_hostnames(vec!["node0".into(), "node1".into()]);
    let mut store = NodeStore::new();
    let ns = store.register_job("app", &info)?;

    let layout = ShmWriter::layout(LOCAL as usize, 16 * 1024);
    let len = layout.region_len().ok_or("layout too large")?;
    // SAFETY: a NUL-terminated name; valid flags.
    let fd = unsafe { libc::memfd_create(c"pmix-node-store".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err("memfd_create failed".into());
    }
    // SAFETY: `fd` is the memfd just created.
    if unsafe { libc::ftruncate(fd, len as libc::off_t) } != 0 {
        return Err("ftruncate failed".into());
    }
    let base = map(fd, len).ok_or("mmap failed")?;
    // SAFETY: `len` mapped bytes, readable and writable, page-aligned, mapped until the
    // process exits; in this process only this slice reaches them, and every process
    // touches them only through `Region` (the region's safety contract).
    let region = Region::format(unsafe { std::slice::from_raw_parts_mut(base, len) }, layout)?;
    let mut writer = ShmWriter::new();

    // The local clients commit their endpoints (through the server, as PMIx_Commit does).
    for r in 0..LOCAL {
        let mut c = Client::new(ProcId::new(ns, Rank::new(r)));
        c.put(
            Scope::Global,
            "ep",
            Value::String(format!("node0:{}", 7000 + r)),
        )?;
        c.commit(&mut store)?;
    }
    let first = writer.publish(&region, &store)?;
    println!(
        "server: published {} records in {} of {} words (sequence {})",
        first.records, first.words, first.capacity, first.sequence
    );

    let mut children = Vec::new();
    for r in 0..LOCAL {
        // SAFETY: single-threaded here; the child runs `client` and leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err("fork failed".into());
        }
        if pid == 0 {
            let code = client(fd, len, Rank::new(r), first.sequence);
            // SAFETY: ends the child without the parent's exit handlers.
            unsafe { libc::_exit(code) };
        }
        children.push(pid);
    }

    // The fence brings node 1's endpoints; the server publishes again.
    let mut blob = FenceBlob::new("app", true);
    for r in LOCAL..2 * LOCAL {
        blob.entries.push(ProcEntry {
            rank: Rank::new(r),
            kvs: vec![("ep".into(), Value::String(format!("node1:{}", 7000 + r)))],
        });
    }
    store.apply_fence(&[blob])?;
    let second = writer.publish(&region, &store)?;
    println!(
        "server: fence applied, published sequence {}",
        second.sequence
    );

    let mut failed = 0;
    for pid in children {
        let mut status = 0;
        // SAFETY: a child of this process; `status` is a valid out-pointer.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
            failed += 1;
        }
    }
    if failed > 0 {
        return Err(format!("{failed} client(s) failed").into());
    }
    println!("server: every client read what it needed");
    Ok(())
}

/// Maps `len` bytes of `fd`, shared, at an address the kernel picks.
#[cfg(target_os = "linux")]
fn map(fd: i32, len: usize) -> Option<*mut u8> {
    // SAFETY: `len` bytes of an fd at least that long, no address hint; checked.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p.cast())
}

/// One client process: maps the store, reads its data; 0 when everything was there.
#[cfg(target_os = "linux")]
fn client(fd: i32, len: usize, me: pmix_kvs::Rank, first: u64) -> i32 {
    use pmix_kvs::region::Region;
    use pmix_kvs::shm::{ShmAnswer, ShmReader};
    use pmix_kvs::{Rank, Value, keys};

    let Some(base) = map(fd, len) else {
        return 1;
    };
    // SAFETY: a fresh shared mapping, `len` bytes, reached only through `Region`, mapped
    // until the process exits.
    let Ok(region) = Region::attach(unsafe { std::slice::from_raw_parts_mut(base, len) }) else {
        return 2;
    };
    let Ok(mut store) = ShmReader::new(&region) else {
        return 3;
    };
    let Ok(Some(app)) = store.nspace("app") else {
        return 4;
    };
    let fixed =
        |s: &mut ShmReader<'_, '_>, rank: Rank, key: &str| s.get_fixed(app, rank, key, None);
    let (Ok(ShmAnswer::Found(Value::U16(lrank))), Ok(ShmAnswer::Found(Value::U32(size)))) = (
        fixed(&mut store, me, keys::LOCAL_RANK),
        fixed(&mut store, Rank::WILDCARD, keys::JOB_SIZE),
    ) else {
        return 5;
    };
    let peer = Rank::new((me.get() + 1) % 3);
    let mut ep = [0u8; 64];
    let Ok(ShmAnswer::Found((_, n))) = store.get_bytes_into(app, peer, "ep", None, &mut ep) else {
        return 6;
    };
    let local_ep = String::from_utf8_lossy(&ep[..n]).into_owned();
    // The fence's data comes with a later publish: wait for the sequence to move on.
    let far = Rank::new(me.get() + 3);
    let remote_ep = loop {
        match store.get(app, far, "ep", None) {
            Ok(ShmAnswer::Found(Value::String(s))) => break s,
            Ok(ShmAnswer::Missing) => {
                while store.sequence().is_ok_and(|s| s == first) {
                    std::thread::yield_now();
                }
            }
            _ => return 7,
        }
    };
    println!(
        "client {me} (pid {}, store mapped at {base:p}): local rank {lrank} of {size}; \
         peer {peer} at {local_ep}; rank {far} at {remote_ep}",
        std::process::id()
    );
    0
}

#[cfg(not(target_os = "linux"))]
fn main() {}
