//! The `WVEC` bitmap written by hand (`Window`, on a `u128` for W = 128) against the same
//! window on bitvec's `BitArray<[u64; 2]>`, in one criterion run: the receiver's
//! accept/advance of every packet of a transfer, in order and with every block of 16 packets
//! reversed (so that the advance jumps by 16 after 15 stores).
//!
//! ```text
//! cargo bench -p criterion-benches --bench rdma_window_wvec_bitvec -- --measurement-time 3
//! ```
//!
//! (In this package rather than in the workspace's `benches` crate, which does not depend on
//! bitvec.)

use std::hint::black_box;

use bitvec::prelude::{BitArray, BitBox, BitVec, Lsb0};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rdma_window::{Arrival, Window};

const N: u32 = 4096;
const FIRST: u32 = u32::MAX - 1000;
const W: usize = 128;

/// The paper's window with `WVEC` as a bitvec array: the same four cases as
/// [`Window::on_data`].
struct BitvecWindow {
    wvec: BitArray<[u64; 2], Lsb0>,
    wbase: u32,
}

impl BitvecWindow {
    fn new(first: u32) -> Self {
        Self {
            wvec: BitArray::ZERO,
            wbase: first,
        }
    }

    #[inline(always)]
    fn on_data(&mut self, psn: u32) -> Arrival {
        let off = psn.wrapping_sub(self.wbase);
        if off == 0 {
            // In order with nothing held: the same shortcut as the hand-written window.
            if self.wvec.not_any() {
                self.wbase = self.wbase.wrapping_add(1);
                return Arrival::Advanced { by: 1 };
            }
            let by = 1 + self.wvec.leading_ones();
            if by >= W {
                self.wvec.fill(false);
            } else {
                self.wvec.shift_start(by);
            }
            let by = u32::try_from(by).unwrap_or(u32::MAX);
            self.wbase = self.wbase.wrapping_add(by);
            Arrival::Advanced { by }
        } else if off as usize <= W {
            let i = off as usize - 1;
            if self.wvec[i] {
                Arrival::Duplicate
            } else {
                self.wvec.set(i, true);
                Arrival::Stored
            }
        } else if off.cast_signed() < 0 {
            Arrival::Duplicate
        } else {
            Arrival::BeyondWindow
        }
    }
}

/// In order, and every block of 16 packets reversed.
fn orders() -> [(&'static str, Vec<u32>); 2] {
    let in_order: Vec<u32> = (0..N).map(|i| FIRST.wrapping_add(i)).collect();
    let ooo: Vec<u32> = (0..N)
        .map(|i| FIRST.wrapping_add((i & !15) + (15 - (i & 15))))
        .collect();
    [("in_order", in_order), ("out_of_order", ooo)]
}

fn wvec(c: &mut Criterion) {
    // Both give the same verdicts on both orders.
    for (_, psns) in orders() {
        let (mut a, mut b) = (Window::<2>::new(FIRST), BitvecWindow::new(FIRST));
        for &p in &psns {
            assert_eq!(a.on_data(p), b.on_data(p));
        }
        assert_eq!(a.wbase(), b.wbase);
    }
    let mut g = c.benchmark_group("rdma_window/wvec_bitvec");
    g.throughput(Throughput::Elements(u64::from(N)));
    for (name, psns) in orders() {
        g.bench_function(format!("hand_u128/{name}"), |b| {
            b.iter(|| {
                let mut w = Window::<2>::new(FIRST);
                for &p in &psns {
                    black_box(w.on_data(black_box(p)));
                }
                w.wbase()
            });
        });
        g.bench_function(format!("bitvec/{name}"), |b| {
            b.iter(|| {
                let mut w = BitvecWindow::new(FIRST);
                for &p in &psns {
                    black_box(w.on_data(black_box(p)));
                }
                w.wbase
            });
        });
    }
    g.finish();
}

/// The receiver's other bitmap, which contexts owe an ACK (`coalesce_acks`), for 64
/// contexts: mark the context of each of 4096 packets (7 apart, so that marks repeat), and
/// every 16 packets build the ACKs: find the lowest marked context and clear it until none
/// is left. Hand-written on `Box<[u64]>` as in the receiver, and on bitvec's `BitBox`.
fn ack_bitmap(c: &mut Criterion) {
    const CONTEXTS: usize = 64;
    let marks: Vec<usize> = (0..N as usize).map(|i| (i * 7) % CONTEXTS).collect();
    let mut g = c.benchmark_group("rdma_window/ack_bitmap");
    g.throughput(Throughput::Elements(u64::from(N)));
    g.bench_function("hand_words", |b| {
        let mut due = vec![0u64; CONTEXTS.div_ceil(64)].into_boxed_slice();
        b.iter(|| {
            let mut built = 0usize;
            for (k, &i) in marks.iter().enumerate() {
                let i = black_box(i);
                if let Some(w) = due.get_mut(i / 64) {
                    *w |= 1 << (i % 64);
                }
                if k % 16 == 15 {
                    while let Some((q, w)) = due.iter_mut().enumerate().find(|(_, w)| **w != 0) {
                        built += q * 64 + w.trailing_zeros() as usize;
                        *w &= *w - 1;
                    }
                }
            }
            built
        });
    });
    g.bench_function("bitvec", |b| {
        let mut due: BitBox<u64, Lsb0> = BitVec::repeat(false, CONTEXTS).into_boxed_bitslice();
        b.iter(|| {
            let mut built = 0usize;
            for (k, &i) in marks.iter().enumerate() {
                let i = black_box(i);
                if i < due.len() {
                    due.set(i, true);
                }
                if k % 16 == 15 {
                    while let Some(j) = due.first_one() {
                        built += j;
                        due.set(j, false);
                    }
                }
            }
            built
        });
    });
    g.finish();
}

criterion_group!(benches, wvec, ack_bitmap);
criterion_main!(benches);
