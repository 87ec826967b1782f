//! The receive path, `Receiver::handle_data` (its verdict returned) or `Receiver::handle` with
//! a data packet (the write queued as an event), with the queued outputs drained after every
//! packet (or every 16 with `batch`, which lets the lazy ACKs coalesce), for
//! in-order and out-of-order arrivals: a binary to run under `valgrind --tool=callgrind`
//! (instruction counts per packet are stable on a loaded machine) or to time roughly.
//!
//! `cargo run --release --example recv_timing -- [in_order|out_of_order] [packets] [paper|improved] [handle|data|batch|lazy|lazy1]`
//!
//! `data`: `handle_data`, eager ACKs, outputs drained after every packet; `batch`: the same,
//! drained after every 16; `lazy`: `handle_data` with `coalesce_acks`, drained after every
//! 16 packets (one ACK per 16); `lazy1`: with `coalesce_acks`, drained after every packet.
//!
//! `cargo run --release --example recv_timing -- min [samples]` times the criterion bench
//! `rdma_window/receive`'s `receiver_verdict_poll16` loop (4,096 packets of one transfer,
//! paper mode, lazy ACKs polled every 16) beside the bare window, as the minimum and the
//! median over many short samples: on a loaded machine a 15 µs sample is rarely
//! interrupted, so the minimum stays close to the quiet figure while criterion's mean does
//! not.

use std::hint::black_box;
use std::time::Instant;

use fabric_model::Nanos;
use rdma_window::packet::RspStatus;
use rdma_window::{Arrival, Cid, DataVerdict, Mode, Packet, Receiver, ReceiverConfig, Window};

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "in_order".to_owned());
    if which == "min" {
        let samples = args.next().and_then(|s| s.parse().ok()).unwrap_or(20_000);
        min_timing(samples);
        return;
    }
    let n: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1 << 20);
    let first = u32::MAX - 1000;
    let order: Vec<u32> = (0..n)
        .map(|i| {
            let k = if which == "out_of_order" {
                (i & !15) + (15 - (i & 15))
            } else {
                i
            };
            first.wrapping_add(k)
        })
        .collect();
    let modes = match args.next().as_deref() {
        Some("paper") => vec![Mode::Paper],
        Some("improved") => vec![Mode::Improved],
        _ => vec![Mode::Paper, Mode::Improved],
    };
    // `handle`: the whole entry point; otherwise `handle_data`, the decoded receive path.
    let how = args.next();
    let whole = how.as_deref() == Some("handle");
    // `batch`: drain the outputs after every 16 packets (the rings hold 64), to separate the
    // receive path's own cost from that of handing each output over.
    let lazy = matches!(how.as_deref(), Some("lazy" | "lazy1"));
    let batch = matches!(how.as_deref(), Some("batch" | "lazy"));
    for mode in modes {
        let (mut rx, cid) = open(mode, lazy, n + 1, first);
        let t = Instant::now();
        if lazy {
            if batch {
                feed_verdicts::<16>(&mut rx, cid, &order);
            } else {
                feed_verdicts::<1>(&mut rx, cid, &order);
            }
        }
        let rest = if lazy { &order[..0] } else { &order[..] };
        for (k, &p) in rest.iter().enumerate() {
            let r = if whole {
                rx.handle(
                    Packet::Data {
                        dcid: cid,
                        psn: black_box(p),
                        len: 4096,
                    },
                    Nanos::new(1),
                )
            } else {
                // The verdict is the write: the caller does it at once (here: takes the
                // address it would write to).
                rx.handle_data(cid, black_box(p), 4096, Nanos::new(1))
                    .map(|v| {
                        if let DataVerdict::Write { addr, .. } = v {
                            black_box(addr);
                        }
                    })
            };
            debug_assert!(r.is_ok());
            if batch && k % 16 != 15 {
                continue;
            }
            while let Some(e) = rx.poll_event() {
                black_box(e);
            }
            while let Some(t) = rx.poll_transmit() {
                black_box(t);
            }
        }
        let ns = t.elapsed().as_secs_f64() * 1e9 / f64::from(n);
        println!(
            "{which} {mode:?}: {ns:.2} ns/packet (written {})",
            rx.stats().written
        );
    }
}

/// The fast path as a NIC model runs it: every packet through `handle_data`, its verdict used
/// at once (the address to write to), the lazy ACKs polled after every `POLL` packets (the
/// criterion bench's loop: an inner loop per chunk of `POLL`, no partial chunk polled).
#[inline(never)]
fn feed_verdicts<const POLL: usize>(rx: &mut Receiver, cid: Cid, order: &[u32]) {
    let chunks = order.chunks_exact(POLL);
    let rest = chunks.remainder();
    for chunk in chunks {
        for &p in chunk {
            verdict(rx, cid, p);
        }
        while let Some(t) = rx.poll_transmit() {
            black_box(t);
        }
    }
    for &p in rest {
        verdict(rx, cid, p);
    }
}

/// One packet through `handle_data`, its verdict used at once.
#[inline(always)]
fn verdict(rx: &mut Receiver, cid: Cid, psn: u32) {
    if let Ok(DataVerdict::Write { addr, .. }) =
        rx.handle_data(cid, black_box(psn), 4096, Nanos::new(1))
    {
        black_box(addr);
    }
}

/// A receiver in `mode` (ACK every packet, lazily when `lazy`) with one transfer of
/// `packets` 4 KiB packets from `first` open.
fn open(mode: Mode, lazy: bool, packets: u32, first: u32) -> (Receiver, Cid) {
    let mut rx: Receiver = Receiver::new(
        ReceiverConfig::default()
            .with_mode(mode)
            .with_coalesce_acks(lazy),
    )
    .expect("valid configuration");
    rx.handle(
        Packet::Req {
            scid: Cid::from_bits(0),
            src_node: 1,
            dst_addr: 0,
            len: u64::from(packets) * 4096,
            mtu: 4096,
            first_psn: first,
        },
        Nanos::new(0),
    )
    .expect("valid request");
    let Some(Packet::Rsp {
        status: RspStatus::Granted(cid),
        ..
    }) = rx.poll_transmit().map(|t| t.packet)
    else {
        unreachable!("an empty table grants")
    };
    (rx, cid)
}

/// `min`: the criterion bench's in-order and out-of-order loops, min and median ns/packet.
fn min_timing(samples: usize) {
    const N: u32 = 4096;
    let first = u32::MAX - 1000;
    for (name, ooo) in [("in_order", false), ("out_of_order", true)] {
        let order: Vec<u32> = (0..N)
            .map(|i| first.wrapping_add(if ooo { (i & !15) + (15 - (i & 15)) } else { i }))
            .collect();
        let window = per_packet(samples, N, || {
            let mut w = Window::<2>::new(first);
            let t = Instant::now();
            for &p in black_box(order.as_slice()) {
                if let Arrival::Advanced { by } = w.on_data(p) {
                    black_box(by);
                }
            }
            black_box(w);
            t.elapsed().as_nanos()
        });
        let receiver = per_packet(samples, N, || {
            let (mut rx, cid) = open(Mode::Paper, true, N + 1, first);
            let t = Instant::now();
            feed_verdicts::<16>(&mut rx, cid, &order);
            let ns = t.elapsed().as_nanos();
            let wbase = rx.context(cid).map(|c| c.window().wbase());
            assert_eq!(wbase, Some(first.wrapping_add(N)));
            ns
        });
        println!(
            "{name}: window min {:.2} median {:.2} ns; receiver_verdict_poll16 min {:.2} median {:.2} ns; ratio of minima {:.2}",
            window.0,
            window.1,
            receiver.0,
            receiver.1,
            receiver.0 / window.0
        );
    }
}

/// (minimum, median) ns per packet over `samples` runs of `run` (which returns ns for `n`).
fn per_packet(samples: usize, n: u32, mut run: impl FnMut() -> u128) -> (f64, f64) {
    let mut ns: Vec<u128> = (0..samples).map(|_| run()).collect();
    ns.sort_unstable();
    #[expect(clippy::cast_precision_loss, reason = "ns of a short sample")]
    let per = |x: u128| x as f64 / f64::from(n);
    (per(ns[0]), per(ns[ns.len() / 2]))
}
