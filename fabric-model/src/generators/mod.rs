//! Topology generators: the fabrics of the papers, built deterministically.
//!
//! | generator | shape | paper size |
//! |---|---|---|
//! | [`fat_tree`] | three-level k-ary fat tree of k-port switches | `fat_tree(40)`: 2,000 switches, 16,000 terminals |
//! | [`xgft`], [`tapered_fat_tree`] | extended generalised fat trees, pruned (tapered) fat trees | Sunway-style pruned trees |
//! | [`torus`] | n-dimensional torus with wrap-around links | `torus(&[30, 20, 20], 2)`: 12,000 switches, 24,000 terminals |
//! | [`dragonfly`] | canonical dragonfly, one global link per pair of groups | `dragonfly(18, 9, 9)`: 163 groups, 2,934 switches |
//! | [`single_switch`] | one non-blocking switch, a terminal a port (the flow schedulers' big switch) | `single_switch(150, LinkRate::EDR_4X)` |
//! | [`random_regular`] | random regular switch graph (Jellyfish), seeded | `random_regular(2048, 40, 20, seed)`: 40,960 terminals |
//!
//! Every generated switch is named `S-<guid>` and every terminal `H-<guid>` (GUIDs from
//! [`GUID_BASE`](crate::GUID_BASE)), with a description saying where it sits; links are 4xEDR
//! with [`DEFAULT_LATENCY`](crate::DEFAULT_LATENCY). Switches come first in id order, then
//! terminals. Each generator documents its port layout.

mod dragonfly;
mod fat_tree;
mod random_regular;
mod single_switch;
mod torus;

pub use dragonfly::dragonfly;
pub use fat_tree::{fat_tree, tapered_fat_tree, xgft};
pub use random_regular::random_regular;
pub use single_switch::single_switch;
pub use torus::torus;

use crate::Error;

fn invalid(generator: &'static str, parameter: &'static str, reason: impl Into<String>) -> Error {
    Error::InvalidParameter {
        generator,
        parameter,
        reason: reason.into(),
    }
}

/// `a * b`, or the error naming `parameter` when it overflows `limit`.
fn checked_mul(
    a: u64,
    b: u64,
    generator: &'static str,
    parameter: &'static str,
) -> Result<u64, Error> {
    a.checked_mul(b)
        .filter(|&v| v < u64::from(u32::MAX))
        .ok_or_else(|| {
            invalid(
                generator,
                parameter,
                "makes the fabric too large for 32-bit ids",
            )
        })
}

fn port_count(n: u64, generator: &'static str, parameter: &'static str) -> Result<u16, Error> {
    u16::try_from(n)
        .ok()
        .filter(|&p| p < u16::MAX)
        .ok_or_else(|| {
            invalid(
                generator,
                parameter,
                format!("gives {n} ports per switch, more than a u16"),
            )
        })
}
