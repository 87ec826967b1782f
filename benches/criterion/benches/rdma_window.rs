//! Receive path of rdma-window: ns per data packet for in-order and out-of-order arrivals,
//! all measured in the same run:
//! - the bare WBASE/WVEC window;
//! - `Receiver::handle`, the whole entry point (the write queued as an event, the ACK queued
//!   at once, both drained after every packet);
//! - `Receiver::handle_data`, the fast path returning its verdict (context lookup, checks,
//!   window, timer; the caller takes the write at once), with eager ACKs drained after every
//!   packet (every packet, or every 16 with `ack_stride` 16);
//! - the same with lazy, coalesced ACKs (`coalesce_acks`), polled after every packet or
//!   after every 16 (then one ACK per poll);
//! - a baseline software reorder tracker (a `BTreeSet` of early packets, as a
//!   general-purpose stack would keep).

use std::collections::BTreeSet;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use fabric_model::Nanos;
use rdma_window::packet::RspStatus;
use rdma_window::{Arrival, Cid, DataVerdict, Mode, Packet, Receiver, ReceiverConfig, Window};

const N: u32 = 4096;
const FIRST: u32 = u32::MAX - 1000;

/// In order, and out of order: every block of 16 packets arrives reversed (displacement < W).
fn orders() -> [(&'static str, Vec<u32>); 2] {
    let in_order: Vec<u32> = (0..N).map(|i| FIRST.wrapping_add(i)).collect();
    let ooo: Vec<u32> = (0..N)
        .map(|i| FIRST.wrapping_add((i & !15) + (15 - (i & 15))))
        .collect();
    [("in_order", in_order), ("out_of_order", ooo)]
}

/// The baseline: lowest missing plus a sorted set of early arrivals.
struct TreeTracker {
    base: u32,
    early: BTreeSet<u32>,
}

impl TreeTracker {
    fn on_data(&mut self, off: u32) -> bool {
        if off < self.base || self.early.contains(&off) {
            return false;
        }
        if off == self.base {
            self.base += 1;
            while self.early.remove(&self.base) {
                self.base += 1;
            }
        } else {
            self.early.insert(off);
        }
        true
    }
}

/// A receiver (paper mode) with one context open for the bench's transfer, sending an ACK
/// each time `WBASE` has moved `ack_stride` packets, lazily built when `coalesce_acks`.
fn receiver_acking_every(ack_stride: u32, coalesce_acks: bool) -> (Receiver, Cid) {
    let mut rx: Receiver = Receiver::new(
        ReceiverConfig::default()
            .with_mode(Mode::Paper)
            .with_ack_stride(ack_stride)
            .with_coalesce_acks(coalesce_acks),
    )
    .expect("valid configuration");
    rx.handle(
        Packet::Req {
            scid: Cid::new(0, 0),
            src_node: 1,
            dst_addr: 0,
            len: u64::from(N) * 4096 + 4096,
            mtu: 4096,
            first_psn: FIRST,
        },
        Nanos::new(0),
    )
    .expect("valid request");
    let Some(t) = rx.poll_transmit() else {
        unreachable!("a request is always answered")
    };
    let Packet::Rsp {
        status: RspStatus::Granted(cid),
        ..
    } = t.packet
    else {
        unreachable!("an empty table grants")
    };
    (rx, cid)
}

/// Feeds every packet of `order` as a data packet of `cid`, draining the write event and any
/// ACK after each, as a user of the sans-IO receiver does.
fn feed<const WHOLE: bool>(rx: &mut Receiver, cid: Cid, order: &[u32]) {
    for &p in order {
        let psn = black_box(p);
        let r = if WHOLE {
            rx.handle(
                Packet::Data {
                    dcid: cid,
                    psn,
                    len: 4096,
                },
                Nanos::new(1),
            )
        } else {
            rx.handle_data(cid, psn, 4096, Nanos::new(1)).map(|v| {
                if let DataVerdict::Write { addr, .. } = v {
                    black_box(addr);
                }
            })
        };
        debug_assert!(r.is_ok());
        while let Some(e) = rx.poll_event() {
            black_box(e);
        }
        while let Some(t) = rx.poll_transmit() {
            black_box(t);
        }
    }
    assert_eq!(rx.stats().written, u64::from(N));
}

/// The fast path: every packet of `order` through `handle_data`, its verdict used at once
/// (the address a NIC would write the payload to), the (lazy) ACKs polled after every
/// `POLL` packets (after each whole chunk of `POLL`: an inner loop over the chunk rather than
/// a `k % POLL` test per packet, the same calls in the same order).
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
    // A last partial chunk is not followed by a poll.
    for &p in rest {
        verdict(rx, cid, p);
    }
    assert_eq!(rx.stats().written, u64::from(N));
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

fn receive_path(c: &mut Criterion) {
    let mut g = c.benchmark_group("rdma_window/receive");
    g.throughput(Throughput::Elements(u64::from(N)));
    for (name, order) in orders() {
        g.bench_function(format!("window_w128/{name}"), |b| {
            b.iter(|| {
                let mut w = Window::<2>::new(FIRST);
                let mut adv = 0;
                for &p in black_box(order.as_slice()) {
                    if let Arrival::Advanced { by } = w.on_data(p) {
                        adv += by;
                    }
                }
                assert_eq!(adv, N);
                w
            });
        });
        // (label, ACK stride, through the whole `handle` rather than `handle_data`)
        for (label, stride, whole) in [
            ("receiver_handle", 1, true),
            ("receiver_handle_data", 1, false),
            ("receiver_handle_data_ack16", 16, false),
        ] {
            g.bench_function(format!("{label}/{name}"), |b| {
                b.iter_batched_ref(
                    || receiver_acking_every(stride, false),
                    |(rx, cid)| {
                        if whole {
                            feed::<true>(rx, *cid, &order);
                        } else {
                            feed::<false>(rx, *cid, &order);
                        }
                    },
                    BatchSize::SmallInput,
                );
            });
        }
        // (label, ACKs polled after every this many packets)
        for (label, poll) in [("receiver_verdict", 1), ("receiver_verdict_poll16", 16)] {
            g.bench_function(format!("{label}/{name}"), |b| {
                b.iter_batched_ref(
                    || receiver_acking_every(1, true),
                    |(rx, cid)| {
                        if poll == 1 {
                            feed_verdicts::<1>(rx, *cid, &order);
                        } else {
                            feed_verdicts::<16>(rx, *cid, &order);
                        }
                    },
                    BatchSize::SmallInput,
                );
            });
        }
        g.bench_function(format!("baseline_btreeset/{name}"), |b| {
            b.iter(|| {
                let mut t = TreeTracker {
                    base: 0,
                    early: BTreeSet::new(),
                };
                for &p in black_box(order.as_slice()) {
                    t.on_data(p.wrapping_sub(FIRST));
                }
                assert_eq!(t.base, N);
            });
        });
    }
    g.finish();
}

criterion_group!(benches, receive_path);
criterion_main!(benches);
