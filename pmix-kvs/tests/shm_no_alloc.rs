//! A hit on a fixed-size value, and a string copied into the caller's buffer, read from the
//! shared store without allocating: counted by a global allocator that counts this
//! thread's allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use pmix_kvs::region::Region;
use pmix_kvs::shm::{ShmAnswer, ShmReader, ShmWriter};
use pmix_kvs::{Client, DataType, JobInfo, NodeStore, ProcId, Rank, Scope, Value, keys};

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, counting allocations per thread.
struct Counting;

// SAFETY: forwards every call to `System` unchanged; the counter is a thread-local cell
// with a const initialiser and no destructor, so touching it never allocates or reenters.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract for `realloc`, passed on.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

#[test]
fn fixed_size_hits_and_copies_into_a_buffer_do_not_allocate() {
    let mut store = NodeStore::new();
    let ns = store
        .register_job("job", &JobInfo::new(8, "n0"))
        .expect("register");
    let mut p3 = Client::new(ProcId::new(ns, Rank::new(3)));
    p3.put(Scope::Local, "port", Value::U32(7000)).expect("put");
    p3.put(Scope::Local, "addr", Value::String("10.0.0.3".into()))
        .expect("put");
    p3.commit(&mut store).expect("commit");
    let layout = ShmWriter::layout(2, 8192);
    let mut mem = vec![0u8; layout.region_len().expect("small") + 8];
    let off = mem.as_ptr().align_offset(8);
    let len = mem.len() - 8;
    let region = Region::format(&mut mem[off..off + len], layout).expect("format");
    ShmWriter::new().publish(&region, &store).expect("publish");
    let mut r = ShmReader::new(&region).expect("slot");
    let job = r.nspace("job").expect("image").expect("published");
    let mut buf = [0u8; 32];
    let before = allocs();
    let mut sum = 0u64;
    for _ in 0..1000 {
        let ShmAnswer::Found(Value::U32(port)) =
            r.get_fixed(job, Rank::new(3), "port", None).expect("get")
        else {
            panic!("port not found");
        };
        sum += u64::from(port);
        let ShmAnswer::Found(Value::U16(lrank)) = r
            .get_fixed(job, Rank::new(3), keys::LOCAL_RANK, None)
            .expect("get")
        else {
            panic!("local rank not found");
        };
        sum += u64::from(lrank);
        let got = r
            .get_bytes_into(job, Rank::new(3), "addr", None, &mut buf)
            .expect("get");
        assert_eq!(got, ShmAnswer::Found((DataType::String, 8)));
        assert_eq!(
            r.get_fixed(job, Rank::new(3), "nope", None).expect("get"),
            ShmAnswer::Missing
        );
    }
    let after = allocs();
    assert_eq!(
        after - before,
        0,
        "lookups allocated {} times",
        after - before
    );
    assert_eq!(sum, 1000 * (7000 + 3));
    assert_eq!(&buf[..8], b"10.0.0.3");
    // The counter counts: the allocating accessor is seen.
    let before = allocs();
    let v = r.get(job, Rank::new(3), "addr", None).expect("get");
    assert_eq!(v, ShmAnswer::Found(Value::String("10.0.0.3".into())));
    assert!(allocs() > before);
}
