//! The data path allocates nothing: a counting global allocator watches the receiver's and
//! the sender's per-packet calls once their contexts exist.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use fabric_model::{Bytes, Nanos};
use rdma_window::packet::RspStatus;
use rdma_window::{Mode, Packet, Receiver, ReceiverConfig, Sender, SenderConfig, Transfer};

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
/// Bytes asked for by those allocations (a reallocation counts its new size).
static BYTES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Only the measuring thread counts (the test harness allocates on its own threads).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note(bytes: usize) {
    if COUNTING.with(Cell::get) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

#[expect(
    unsafe_code,
    reason = "a counting allocator must implement GlobalAlloc"
)]
// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        note(new);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One measurement at a time: the counter is shared, so two tests counting at once on two
/// threads would see each other's allocations.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn count<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let (r, n, _) = count_bytes(f);
    (r, n)
}

/// What `f` returns, the allocations it made and the bytes they asked for.
fn count_bytes<R>(f: impl FnOnce() -> R) -> (R, u64, u64) {
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (before, bytes) = (ALLOCS.load(Ordering::SeqCst), BYTES.load(Ordering::SeqCst));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (
        r,
        ALLOCS.load(Ordering::SeqCst) - before,
        BYTES.load(Ordering::SeqCst) - bytes,
    )
}

#[test]
fn data_path_allocates_nothing() {
    for (mode, coalesce_acks) in [
        (Mode::Paper, false),
        (Mode::Improved, false),
        (Mode::Paper, true),
        (Mode::Improved, true),
    ] {
        let mut rx: Receiver = Receiver::new(
            ReceiverConfig::default()
                .with_mode(mode)
                .with_coalesce_acks(coalesce_acks),
        )
        .unwrap();
        let mut tx = Sender::new(1, SenderConfig::default()).unwrap();
        let id = tx
            .start(
                Transfer::new(2, Bytes::new(4096 * 5000), 4096).with_first_psn(u32::MAX - 100),
                Nanos::new(0),
            )
            .unwrap();
        let req = tx.poll_transmit().unwrap().packet;
        rx.handle(req, Nanos::new(0)).unwrap();
        let rsp = rx.poll_transmit().unwrap().packet;
        assert!(matches!(
            rsp,
            Packet::Rsp {
                status: RspStatus::Granted(_),
                ..
            }
        ));
        tx.handle(rsp, Nanos::new(0)).unwrap();
        while tx.poll_event().is_some() {}
        let ((), n) = count(|| {
            let mut now = 1;
            for k in 0..20_000u32 {
                now += 84;
                // Drop every 50th packet, so that holes, out-of-order arrivals and repairs
                // all happen.
                if let Some(out) = tx.poll_transmit()
                    && k % 50 != 7
                {
                    rx.handle(out.packet, Nanos::new(now)).unwrap();
                }
                if rx.poll_timeout().map(Nanos::get).is_some_and(|t| t <= now) {
                    rx.handle_timeout(Nanos::new(now));
                }
                while let Some(e) = rx.poll_event() {
                    std::hint::black_box(e);
                }
                while let Some(back) = rx.poll_transmit() {
                    tx.handle(back.packet, Nanos::new(now)).unwrap();
                }
                while let Some(e) = tx.poll_event() {
                    std::hint::black_box(e);
                }
            }
        });
        assert_eq!(n, 0, "{mode:?}: {n} allocations on the data path");
        let st = rx.stats();
        assert!(st.written > 3_000 && st.resend_packets > 10, "{st:?}");
        let _ = id;
    }
}

/// Regression: serving many expired timers in one call (several receive
/// contexts giving up, several transfers failing or asking again) allocates nothing.
#[test]
fn timeouts_of_many_contexts_allocate_nothing() {
    let mut rx: Receiver =
        Receiver::new(ReceiverConfig::default().with_max_idle_timeouts(1)).unwrap();
    let mut tx = Sender::new(1, SenderConfig::default().with_max_probes(0)).unwrap();
    let mut requesting = Sender::new(1, SenderConfig::default()).unwrap();
    for _ in 0..32 {
        let t = Transfer::new(2, Bytes::new(4096 * 100), 4096);
        tx.start(t, Nanos::new(0)).unwrap();
        requesting.start(t, Nanos::new(0)).unwrap();
    }
    while let Some(req) = tx.poll_transmit() {
        rx.handle(req.packet, Nanos::new(0)).unwrap();
    }
    while requesting.poll_transmit().is_some() {}
    while let Some(rsp) = rx.poll_transmit() {
        tx.handle(rsp.packet, Nanos::new(0)).unwrap();
    }
    while tx.poll_event().is_some() {}
    assert_eq!(rx.active(), 32);
    let (aborted, n) = count(|| {
        let mut aborted = 0;
        for _ in 0..2 {
            let t = rx.poll_timeout().unwrap();
            rx.handle_timeout(t);
            while rx.poll_transmit().is_some() {}
            while let Some(e) = rx.poll_event() {
                aborted += usize::from(matches!(e, rdma_window::RecvEvent::Aborted { .. }));
            }
        }
        let t = tx.poll_timeout().unwrap();
        tx.handle_timeout(t);
        while tx.poll_event().is_some() {}
        let t = requesting.poll_timeout().unwrap();
        requesting.handle_timeout(t);
        while requesting.poll_transmit().is_some() {}
        aborted
    });
    assert_eq!(n, 0, "{n} allocations serving the timers");
    assert_eq!((aborted, rx.active(), tx.active()), (32, 0, 0));
}

/// Regression, in improved mode: many contexts declaring their holes lost in one call
/// allocate nothing (one `RDMA_RESEND` each, within the queue's room).
#[test]
fn improved_loss_timers_of_many_contexts_allocate_nothing() {
    let mut rx: Receiver =
        Receiver::new(ReceiverConfig::default().with_mode(Mode::Improved)).unwrap();
    let mut cids = Vec::new();
    for k in 0..48u16 {
        rx.handle(
            Packet::Req {
                scid: rdma_window::Cid::new(k, 0),
                src_node: 1,
                dst_addr: 0,
                len: 4096 * 10,
                mtu: 4096,
                first_psn: 0,
            },
            Nanos::new(0),
        )
        .unwrap();
        match rx.poll_transmit().unwrap().packet {
            Packet::Rsp {
                status: RspStatus::Granted(c),
                ..
            } => cids.push(c),
            other => panic!("{other:?}"),
        }
    }
    // Packet 1 of every transfer arrives, packet 0 does not: a hole in each context.
    for &c in &cids {
        rx.handle(
            Packet::Data {
                dcid: c,
                psn: 1,
                len: 4096,
            },
            Nanos::new(10),
        )
        .unwrap();
    }
    while rx.poll_event().is_some() {}
    while rx.poll_transmit().is_some() {}
    let (resends, n) = count(|| {
        let t = rx.poll_timeout().unwrap();
        rx.handle_timeout(t);
        std::iter::from_fn(|| rx.poll_transmit()).count()
    });
    assert_eq!(n, 0, "{n} allocations serving the loss timers");
    assert_eq!(resends, 48);
}

/// A configuration past a documented bound is refused before anything is allocated, and
/// one at the bounds allocates what the bounds' documentation says, not more.
#[test]
fn configurations_are_checked_before_allocating_and_bound_what_they_allocate() {
    use rdma_window::config::{MAX_COMPLETIONS_KEPT, MAX_CONTEXTS, MAX_WINDOW};
    let (r, n, _) = count_bytes(|| {
        Receiver::<2>::new(ReceiverConfig::default().with_completions_kept(usize::MAX)).is_err()
    });
    assert!(r);
    assert_eq!(n, 0, "{n} allocations before refusing completions_kept");
    let (r, n, _) = count_bytes(|| {
        Sender::new(1, SenderConfig::default().with_window(MAX_WINDOW + 1)).is_err()
    });
    assert!(r);
    assert_eq!(n, 0, "{n} allocations before refusing the window");
    // The largest receiver: every table at its bound. Documented: about 17 MiB of table at
    // W = 128, 12 bytes a completion, and output queues of one packet and one event a
    // context (the ACK bitmap and the free list are a few KiB more).
    let big = ReceiverConfig::default()
        .with_capacity(MAX_CONTEXTS)
        .with_completions_kept(MAX_COMPLETIONS_KEPT);
    let (rx, _, bytes) = count_bytes(|| Receiver::<2>::new(big).unwrap());
    let table = rx.table_bytes() as u64;
    assert!(table <= 18 << 20, "table {table} B");
    let queues = MAX_CONTEXTS
        * (size_of::<rdma_window::RecvTransmit>() + size_of::<rdma_window::RecvEvent>());
    let bound = table + 12 * MAX_COMPLETIONS_KEPT as u64 + queues as u64 + (64 << 10);
    assert!(bytes <= bound, "{bytes} B, more than {bound} B");
    drop(rx);
    // The widest sender window: one queue of W + 1 sequence numbers per transfer.
    let mut tx = Sender::new(1, SenderConfig::default().with_window(MAX_WINDOW)).unwrap();
    let t = Transfer::new(2, Bytes::from_mib(1), 4096);
    let (id, n, bytes) = count_bytes(|| tx.start(t, Nanos::new(0)));
    assert!(id.is_ok());
    assert!(
        n <= 1 && bytes <= 4 * u64::from(MAX_WINDOW + 1),
        "{n} allocations, {bytes} B"
    );
}

/// The simulator's loss bursts: it used to keep every burst it drew, so that a run with
/// short bursts grew by 16 bytes each few nanoseconds of simulated time. It keeps the last.
#[test]
fn loss_bursts_take_no_memory_that_grows_with_time() {
    use rdma_window::sim::{Method, NetConfig, SimConfig};
    let net = NetConfig::default()
        .with_bursts(Nanos::new(1), Nanos::new(10), 1.0)
        .with_seed(5);
    let cfg = SimConfig::new(vec![Bytes::from_kib(64)])
        .with_net(net)
        .with_limit(Nanos::from_millis(50));
    let (r, _, bytes) = count_bytes(|| Method::Paper.run(&cfg).unwrap());
    assert!(r.completion > Nanos::from_millis(1), "{r}");
    assert!(bytes < 1 << 20, "{bytes} B for {r}");
}

/// The simulator asks for memory in proportion to the packets it simulates, within the
/// documented bound of `MAX_RUN_PACKETS`: measured here, 55 bytes a packet in all for the
/// paper's method and 65 for go-back-N at 16,384 packets (reallocations counted at their
/// new size).
#[test]
fn a_simulated_run_asks_for_at_most_80_bytes_a_packet() {
    use rdma_window::sim::{Method, SimConfig};
    for m in Method::ALL {
        let cfg = SimConfig::new(vec![Bytes::from_mib(64)]);
        let (r, _, bytes) = count_bytes(|| m.run(&cfg).unwrap());
        assert!(r.finished, "{m:?}: {r}");
        let per = bytes / cfg.packets();
        assert!(per <= 80, "{m:?}: {bytes} B, {per} B a packet");
    }
}
