//! Rough ns per packet of the bare window, in order and with blocks of 16 reversed.

use std::hint::black_box;
use std::time::Instant;

use rdma_window::{Arrival, Window};

fn main() {
    let n: u32 = 1 << 24;
    for (name, ooo) in [("in_order", false), ("out_of_order", true)] {
        let order: Vec<u32> = (0..n)
            .map(|i| if ooo { (i & !15) + (15 - (i & 15)) } else { i })
            .collect();
        let order = black_box(order);
        let t = Instant::now();
        let mut w = Window::<2>::new(0);
        let mut adv = 0u64;
        for &p in &order {
            if let Arrival::Advanced { by } = w.on_data(p) {
                adv += u64::from(by);
            }
        }
        black_box(w);
        let ns = t.elapsed().as_secs_f64() * 1e9 / f64::from(n);
        println!("{name}: {ns:.2} ns/packet (advanced {adv})");
    }
}
