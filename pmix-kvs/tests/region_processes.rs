//! The region across real processes: the parent formats a region in a shared anonymous
//! mapping and forks reader processes, which attach to the same bytes (at the same address,
//! as fork leaves it, though nothing in the layout depends on that) and read through the
//! 2N-lock in the region while the parent writes. Every reader checks that it never sees
//! half a write, that values never go back, and that the generation is even while it reads;
//! it reports by its exit status. A plain `main` (no test harness): the process is
//! single-threaded when it forks.
#![allow(unsafe_code)]

mod common;

#[cfg(unix)]
fn main() {
    use pmix_kvs::region::{Region, RegionLayout};

    const READERS: usize = 3;
    const WORDS: usize = 16;
    const WRITES: u64 = 300;
    let layout = RegionLayout::new(READERS + 1, WORDS);
    let len = layout.region_len().expect("small layout");
    let base = common::map_anonymous(len);
    // SAFETY: the mapping is `len` bytes, readable and writable, page-aligned, and stays
    // mapped until this process exits; in this process only this slice reaches it, and the
    // other processes touch it only through `Region` (the module's safety contract).
    let bytes = unsafe { std::slice::from_raw_parts_mut(base, len) };
    let region = Region::format(bytes, layout).expect("format");
    let mut children = Vec::new();
    for _ in 0..READERS {
        // This process is single-threaded (no harness): the child may run ordinary code.
        let pid = common::fork(|| {
            // SAFETY: as above, in the child: the inherited shared mapping, reached only
            // through this slice and `Region`.
            let bytes = unsafe { std::slice::from_raw_parts_mut(base, len) };
            reader(bytes, WORDS)
        });
        children.push(pid);
    }
    for k in 1..=WRITES {
        region
            .write(|w| {
                for i in 0..WORDS {
                    w.set(i, k);
                    if i == WORDS / 2 {
                        std::thread::yield_now(); // a writer preempted mid-update
                    }
                }
            })
            .unwrap();
    }
    region
        .write(|w| {
            for i in 0..WORDS {
                w.set(i, u64::MAX);
            }
        })
        .unwrap();
    let mut failed = 0;
    for pid in children {
        let (r, status) = common::wait(pid);
        assert_eq!(r, pid, "waitpid");
        if !common::exited_ok(status) {
            eprintln!("reader {pid} failed: status {status:#x}");
            failed += 1;
        }
    }
    assert_eq!(region.generation(), 2 * (WRITES + 1));
    assert_eq!(
        failed, 0,
        "{failed} reader process(es) saw a torn or stale read"
    );
    println!("region_processes: {READERS} reader processes, {WRITES} writes: ok");
}

/// A reader process: attaches, reads until the writer's final sentinel; 0 if every read
/// was whole, ordered and outside a write, else the number of the broken check.
#[cfg(unix)]
fn reader(bytes: &mut [u8], words: usize) -> i32 {
    use pmix_kvs::region::Region;
    let Ok(region) = Region::attach(bytes) else {
        return 10;
    };
    let Ok(mut me) = region.reader() else {
        return 11;
    };
    let mut last = 0;
    loop {
        let (first, whole, generation) = me
            .read(|w| {
                let first = w.get(0).unwrap_or(0);
                let whole = w.len() == words && (0..words).all(|i| w.get(i) == Some(first));
                (first, whole, region.generation())
            })
            .unwrap();
        if !whole {
            return 1;
        }
        if first < last {
            return 2;
        }
        if generation % 2 != 0 {
            return 3;
        }
        if first == u64::MAX {
            return 0;
        }
        last = first;
    }
}

#[cfg(not(unix))]
fn main() {}
