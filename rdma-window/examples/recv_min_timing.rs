//! Ns per packet of the receive fast path as the criterion bench `rdma_window/receive`
//! measures it (4,096 packets of one transfer through `handle_data`, lazy ACKs polled every
//! 16 packets), beside the bare window, as the minimum and the median over many short
//! samples: on a loaded machine a 15 µs sample is rarely interrupted, so the minimum stays
//! close to the quiet figure while criterion's mean does not.
//!
//! `cargo run --release --example recv_min_timing -- [samples]`

use std::hint::black_box;
use std::time::Instant;

use rdma_window::packet::RspStatus;
use rdma_window::{Arrival, Cid, DataVerdict, Mode, Packet, Receiver, ReceiverConfig, Window};

const N: u32 = 4096;
const FIRST: u32 = u32::MAX - 1000;

fn main() {
    let samples: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    for (name, ooo) in [("in_order", false), ("out_of_order", true)] {
        let order: Vec<u32> = (0..N)
            .map(|i| FIRST.wrapping_add(if ooo { (i & !15) + (15 - (i & 15)) } else { i }))
            .collect();
        let window = per_packet(samples, || {
            let mut w = Window::<2>::new(FIRST);
            let t = Instant::now();
            for &p in black_box(order.as_slice()) {
                if let Arrival::Advanced { by } = w.on_data(p) {
                    black_box(by);
                }
            }
            black_box(w);
            t.elapsed().as_nanos()
        });
        let receiver = per_packet(samples, || {
            let (mut rx, cid) = receiver();
            let t = Instant::now();
            feed_verdicts(&mut rx, cid, &order);
            let ns = t.elapsed().as_nanos();
            let wbase = rx.context(cid).map(|c| c.window().wbase());
            assert_eq!(wbase, Some(FIRST.wrapping_add(N)));
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

/// (minimum, median) ns per packet over `samples` runs of `run` (which returns ns for N).
fn per_packet(samples: usize, mut run: impl FnMut() -> u128) -> (f64, f64) {
    let mut ns: Vec<u128> = (0..samples).map(|_| run()).collect();
    ns.sort_unstable();
    #[expect(clippy::cast_precision_loss, reason = "ns of a short sample")]
    let per = |x: u128| x as f64 / f64::from(N);
    (per(ns[0]), per(ns[ns.len() / 2]))
}

/// A paper-mode receiver with the bench's transfer open, ACKs lazy, one per `WBASE` move.
fn receiver() -> (Receiver, Cid) {
    let mut rx: Receiver = Receiver::new(ReceiverConfig {
        mode: Mode::Paper,
        ack_stride: 1,
        coalesce_acks: true,
        ..ReceiverConfig::default()
    })
    .expect("valid configuration");
    rx.handle(
        Packet::Req {
            scid: Cid::from_bits(0),
            src_node: 1,
            dst_addr: 0,
            len: u64::from(N) * 4096 + 4096,
            mtu: 4096,
            first_psn: FIRST,
        },
        0,
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

/// The bench's loop: every packet through `handle_data`, the address used at once, the lazy
/// ACKs polled after every 16 packets.
#[inline(never)]
fn feed_verdicts(rx: &mut Receiver, cid: Cid, order: &[u32]) {
    for (k, &p) in order.iter().enumerate() {
        if let Ok(DataVerdict::Write { addr, .. }) = rx.handle_data(cid, black_box(p), 4096, 1) {
            black_box(addr);
        }
        if k % 16 == 15 {
            while let Some(t) = rx.poll_transmit() {
                black_box(t);
            }
        }
    }
}
