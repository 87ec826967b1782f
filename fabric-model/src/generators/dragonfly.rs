//! Canonical dragonfly networks.

use super::{checked_mul, invalid, port_count};
use crate::{Error, Fabric, FabricBuilder, NodeId, PortNo};

/// The canonical dragonfly (Kim, Dally, Scott, Abts 2008) with `a` routers per group, `p`
/// terminals per router and `h` global links per router: `g = a·h + 1` groups, all-to-all
/// local links inside a group, and exactly one global link between every pair of groups.
///
/// **Global-link arrangement: "absolute" (consecutive)**, the BookSim `DragonFlyNew` and SST
/// merlin default. Router `r` of group `G`, global port `c`, takes the "other group" index
/// `o = r·h + c` and reaches group `o` if `o < G`, else group `o + 1`. All arrangements with one
/// link per pair give the same group graph; they differ in which router owns which link.
///
/// Port layout of a router: local ports `1..=a−1` (to the other routers of its group in
/// increasing order), global ports `a..=a+h−1`, then `p` terminal ports. Router `r` of group
/// `G` has id `G·a + r`; terminals follow the routers.
///
/// `dragonfly(18, 9, 9)`: 163 groups, 2,934 routers of radix 35, 26,406 terminals, 24,939 local
/// and 13,203 global links, switch diameter 3.
///
/// # Errors
/// [`Error::InvalidParameter`] when `a`, `h` is zero or the fabric is too large (`p = 0` gives
/// a terminal-less router graph and is allowed).
///
/// # Complexity
/// O(g·a·(a + h + p)) time and memory.
///
/// ```
/// let f = fabric_model::generators::dragonfly(4, 2, 2)?;
/// assert_eq!(f.switch_count(), 9 * 4); // g = 4·2 + 1 = 9 groups
/// assert_eq!(f.terminal_count(), 9 * 4 * 2);
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn dragonfly(a: u32, p: u32, h: u32) -> Result<Fabric, Error> {
    const G: &str = "dragonfly";
    if a == 0 {
        return Err(invalid(G, "a", "(routers per group) is zero"));
    }
    if h == 0 {
        return Err(invalid(G, "h", "(global links per router) is zero"));
    }
    let (a64, p64, h64) = (u64::from(a), u64::from(p), u64::from(h));
    let groups = checked_mul(a64, h64, G, "h")? + 1;
    let routers = checked_mul(groups, a64, G, "a")?;
    let terminals = checked_mul(routers, p64, G, "p")?;
    if routers + terminals >= u64::from(u32::MAX) {
        return Err(invalid(G, "p", "makes the fabric too large for 32-bit ids"));
    }
    let radix = port_count(a64 - 1 + h64 + p64, G, "p")?;
    let local_links = groups * a64 * (a64 - 1) / 2;
    let global_links = groups * (groups - 1) / 2;
    let mut b = FabricBuilder::with_capacity(
        (routers + terminals) as usize,
        (routers * u64::from(radix) + terminals) as usize,
        (local_links + global_links + terminals) as usize,
    );
    for g in 0..groups {
        for r in 0..a64 {
            let id = b.add_switch(radix)?;
            b.set_description(id, format!("dragonfly group {g} router {r}"))?;
        }
    }
    let router = |g: u64, r: u64| NodeId::new((g * a64 + r) as u32);
    // Local: router i's port for router j is j+1 if j < i else j.
    for g in 0..groups {
        for i in 0..a64 {
            for j in i + 1..a64 {
                b.link(
                    router(g, i),
                    PortNo::new(j as u16),
                    router(g, j),
                    PortNo::new((i + 1) as u16),
                )?;
            }
        }
    }
    // Global, absolute arrangement; each pair once, from the lower group.
    let global_end = |g: u64, other: u64| {
        let o = if other < g { other } else { other - 1 };
        (router(g, o / h64), PortNo::new((a64 + o % h64) as u16))
    };
    for g in 0..groups {
        for t in g + 1..groups {
            let (x, px) = global_end(g, t);
            let (y, py) = global_end(t, g);
            b.link(x, px, y, py)?;
        }
    }
    for g in 0..groups {
        for r in 0..a64 {
            for k in 0..p64 {
                let id = b.add_terminal(1)?;
                b.link(
                    router(g, r),
                    PortNo::new((a64 + h64 + k) as u16),
                    id,
                    PortNo::new(1),
                )?;
            }
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_global_link_per_pair_of_groups() {
        let (a, p, h) = (4u32, 2u32, 2u32);
        let f = dragonfly(a, p, h).unwrap();
        let groups = (a * h + 1) as usize;
        let group_of = |n: NodeId| n.index() / a as usize;
        let mut pairs = vec![vec![0u32; groups]; groups];
        for l in f.links() {
            let (x, y) = (l.ends[0].0, l.ends[1].0);
            if f.is_switch(x) && f.is_switch(y) && group_of(x) != group_of(y) {
                pairs[group_of(x)][group_of(y)] += 1;
                pairs[group_of(y)][group_of(x)] += 1;
            }
        }
        for (i, row) in pairs.iter().enumerate() {
            for (j, &c) in row.iter().enumerate() {
                assert_eq!(c, u32::from(i != j), "groups {i},{j}");
            }
        }
        for &s in f.switches() {
            assert_eq!(f.degree(s), (a - 1 + h + p) as usize);
        }
    }

    #[test]
    fn zero_parameters_are_named() {
        assert!(matches!(
            dragonfly(0, 1, 1),
            Err(Error::InvalidParameter { parameter: "a", .. })
        ));
        assert!(matches!(
            dragonfly(2, 1, 0),
            Err(Error::InvalidParameter { parameter: "h", .. })
        ));
    }
}
