//! Prints completion time over ideal for every method at a few loss rates (16 MiB, 400 Gb/s,
//! 10 µs RTT, 0.5 µs jitter).

use fabric_model::{Bytes, Nanos};
use rdma_window::sim::{Method, SimConfig};

fn main() -> Result<(), rdma_window::Error> {
    let size: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(16 << 20);
    let jitter: u64 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    for loss in [0.0, 1e-4, 1e-3, 1e-2] {
        for m in Method::ALL {
            let mut cfg = SimConfig::new(vec![Bytes::new(size)]);
            cfg.net.loss = loss;
            cfg.net.jitter = Nanos::new(jitter);
            cfg.reorder_tolerance = Nanos::new(jitter);
            let r = m.run(&cfg)?;
            let n = cfg.packets();
            #[expect(clippy::cast_precision_loss, reason = "display")]
            let (c, s) = (
                r.completion.as_f64() / cfg.ideal().as_f64(),
                r.data_sent as f64 / n as f64,
            );
            println!(
                "{loss:<7} {:<15} fin={} x{c:.3} sent x{s:.3} retx {} timeouts {} req {} once={}",
                m.name(),
                r.finished,
                r.retransmits,
                r.timeouts,
                r.requests,
                r.tally.exactly_once()
            );
        }
    }
    Ok(())
}
