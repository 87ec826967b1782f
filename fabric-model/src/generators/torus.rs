//! n-dimensional tori with wrap-around links.

use super::{checked_mul, invalid, port_count};
use crate::{Error, Fabric, FabricBuilder, NodeId, PortNo};

/// A torus of switches with `dims[d]` switches along dimension d, wrap-around links, and
/// `terminals_per_switch` terminals on each switch.
///
/// Switch `(x₀, x₁, …)` has id `x₀ + dims[0]·(x₁ + dims[1]·(…))`. Port layout: for each
/// dimension of size ≥ 2, in order, a `+` port (`2d + 1`, to `x_d + 1 mod dims[d]`) then a `−`
/// port (`2d + 2`); then the terminal ports. A dimension of size 1 has no link; one of size 2
/// has two parallel links between the pair (its `+` and `−` neighbour coincide).
///
/// `torus(&[30, 20, 20], 2)`: 12,000 switches, 24,000 terminals, 36,000 switch–switch links,
/// switch diameter 15 + 10 + 10 = 35.
///
/// # Errors
/// [`Error::InvalidParameter`] when `dims` is empty, holds a zero, or the fabric is too large.
///
/// # Complexity
/// O(switches · (dims + terminals_per_switch)) time and memory.
///
/// ```
/// let f = fabric_model::generators::torus(&[4, 3], 1)?;
/// assert_eq!((f.switch_count(), f.terminal_count(), f.switch_link_count()), (12, 12, 24));
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn torus(dims: &[u32], terminals_per_switch: u32) -> Result<Fabric, Error> {
    const G: &str = "torus";
    if dims.is_empty() {
        return Err(invalid(G, "dims", "is empty"));
    }
    if let Some(d) = dims.iter().position(|&d| d == 0) {
        return Err(invalid(G, "dims", format!("has size 0 in dimension {d}")));
    }
    let mut switches = 1u64;
    for &d in dims {
        switches = checked_mul(switches, u64::from(d), G, "dims")?;
    }
    let tps = u64::from(terminals_per_switch);
    let terminals = checked_mul(switches, tps, G, "terminals_per_switch")?;
    if switches + terminals >= u64::from(u32::MAX) {
        return Err(invalid(
            G,
            "dims",
            "makes the fabric too large for 32-bit ids",
        ));
    }
    let linked: Vec<usize> = (0..dims.len()).filter(|&d| dims[d] >= 2).collect();
    let isl_ports = 2 * linked.len() as u64;
    let radix = port_count(isl_ports + tps, G, "terminals_per_switch")?;
    if radix == 0 {
        return Err(invalid(
            G,
            "terminals_per_switch",
            "is zero and no dimension has two switches: switches would have no port",
        ));
    }
    let links = switches * linked.len() as u64 + terminals;
    let mut b = FabricBuilder::with_capacity(
        (switches + terminals) as usize,
        (switches * u64::from(radix) + terminals) as usize,
        links as usize,
    );
    let mut coord = vec![0u32; dims.len()];
    for s in 0..switches {
        let id = b.add_switch(radix)?;
        let c: Vec<String> = coord.iter().map(u32::to_string).collect();
        b.set_description(id, format!("torus ({})", c.join(",")))?;
        debug_assert_eq!(u64::from(id.get()), s);
        // Next coordinate, x0 fastest.
        for (x, &d) in coord.iter_mut().zip(dims) {
            *x += 1;
            if *x < d {
                break;
            }
            *x = 0;
        }
    }
    let mut stride = vec![1u64; dims.len()];
    for d in 1..dims.len() {
        stride[d] = stride[d - 1] * u64::from(dims[d - 1]);
    }
    for s in 0..switches {
        for (k, &d) in linked.iter().enumerate() {
            let size = u64::from(dims[d]);
            let x = (s / stride[d]) % size;
            let next = if x + 1 == size {
                s - x * stride[d]
            } else {
                s + stride[d]
            };
            b.link(
                NodeId::new(s as u32),
                PortNo::new((2 * k + 1) as u16),
                NodeId::new(next as u32),
                PortNo::new((2 * k + 2) as u16),
            )?;
        }
    }
    for s in 0..switches {
        for t in 0..tps {
            let id = b.add_terminal(1)?;
            b.link(
                NodeId::new(s as u32),
                PortNo::new((isl_ports + t + 1) as u16),
                id,
                PortNo::new(1),
            )?;
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_switch_has_two_neighbours_per_dimension() {
        let f = torus(&[5, 4, 3], 2).unwrap();
        assert_eq!(f.switch_count(), 60);
        assert_eq!(f.terminal_count(), 120);
        assert_eq!(f.switch_link_count(), 180);
        for &s in f.switches() {
            let isl = f.neighbors(s).filter(|n| f.is_switch(n.peer)).count();
            assert_eq!(isl, 6);
        }
    }

    #[test]
    fn ring_of_two_has_parallel_links_and_size_one_none() {
        let f = torus(&[2, 1], 1).unwrap();
        assert_eq!(f.switch_count(), 2);
        assert_eq!(f.switch_link_count(), 2);
        assert_eq!(f.radix(f.switches()[0]), 3);
    }

    #[test]
    fn bad_parameters_are_named() {
        assert!(matches!(
            torus(&[], 1),
            Err(Error::InvalidParameter {
                parameter: "dims",
                ..
            })
        ));
        assert!(matches!(
            torus(&[3, 0], 1),
            Err(Error::InvalidParameter {
                parameter: "dims",
                ..
            })
        ));
        assert!(matches!(
            torus(&[1], 0),
            Err(Error::InvalidParameter {
                parameter: "terminals_per_switch",
                ..
            })
        ));
        assert!(matches!(
            torus(&[65536, 65536], 1),
            Err(Error::InvalidParameter {
                parameter: "dims",
                ..
            })
        ));
    }
}
