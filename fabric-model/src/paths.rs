//! Min-hop paths through a fabric, link by link and direction by direction: what a flow
//! simulator routes on and what a latency model sums.
//!
//! The path is the one OpenSM's min-hop routing gives with no load balancing: at each switch,
//! the lowest-numbered port whose peer switch is one hop closer to the destination's switch
//! (hop counts from the [`HopTable`]).

use crate::{Error, Fabric, HopTable, LinkId, NodeId};

/// One direction of a link: links are full duplex, and each direction has the link's full
/// rate. A dense index (`2 × link + direction`) for per-direction tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DirectedLink(u32);

impl DirectedLink {
    /// `link` crossed from its first end (`ends[0]`) to its second, or the other way.
    #[inline]
    #[must_use]
    pub const fn new(link: LinkId, from_first_end: bool) -> Self {
        Self(link.get() << 1 | (!from_first_end) as u32)
    }

    /// The link crossed.
    #[inline]
    #[must_use]
    pub const fn link(self) -> LinkId {
        LinkId::new(self.0 >> 1)
    }

    /// Whether the link is crossed from its first end (`ends[0]`) to its second.
    #[inline]
    #[must_use]
    pub const fn from_first_end(self) -> bool {
        self.0 & 1 == 0
    }

    /// The dense index `2 × link + (0 forward, 1 backward)`, below `2 × link_count()`.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Appends to `out` the directed links of the min-hop path from `from` to `to` (nothing when
/// they are the same node). A terminal leaves and enters through its switch port
/// ([`Fabric::switch_of`]).
///
/// # Errors
/// [`Error::UnknownNode`] for an id outside the fabric, [`Error::HopTableMismatch`] for a
/// hop table of another fabric, [`Error::NoPath`] when the two cannot reach each other. On
/// error `out` is left as it was.
///
/// # Complexity
/// O(hops × radix), no allocation beyond `out`'s growth.
///
/// ```
/// use fabric_model::{generators, paths, HopTable};
///
/// let f = generators::fat_tree(4)?;
/// let hops = HopTable::new(&f)?;
/// let (a, b) = (f.terminals()[0], f.terminals()[15]);
/// let mut path = Vec::new();
/// paths::min_hop_path(&f, &hops, a, b, &mut path)?;
/// // Up to the core and down: six links, as the hop table says.
/// assert_eq!(path.len() as u32, hops.between(&f, a, b).unwrap());
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn min_hop_path(
    fabric: &Fabric,
    hops: &HopTable,
    from: NodeId,
    to: NodeId,
    out: &mut Vec<DirectedLink>,
) -> Result<(), Error> {
    for n in [from, to] {
        if fabric.get(n).is_none() {
            return Err(Error::UnknownNode { node: n });
        }
    }
    if hops.switch_count() != fabric.switch_count() {
        return Err(Error::HopTableMismatch {
            table: hops.switch_count(),
            fabric: fabric.switch_count(),
        });
    }
    if from == to {
        return Ok(());
    }
    let no_path = Error::NoPath { from, to };
    let start = out.len();
    // The switch each end hangs off, and the directed link between them.
    let anchor = |n: NodeId| -> Option<(NodeId, Option<DirectedLink>)> {
        if fabric.is_switch(n) {
            return Some((n, None));
        }
        let nb = fabric.neighbors(n).find(|nb| fabric.is_switch(nb.peer))?;
        let first = fabric.link(nb.link).ends[0].0 == n;
        Some((nb.peer, Some(DirectedLink::new(nb.link, first))))
    };
    let (Some((mut s, up)), Some((t, down))) = (anchor(from), anchor(to)) else {
        // Two terminals wired to each other only: one link.
        if let Some(nb) = fabric.neighbors(from).find(|nb| nb.peer == to) {
            let first = fabric.link(nb.link).ends[0].0 == from;
            out.push(DirectedLink::new(nb.link, first));
            return Ok(());
        }
        return Err(no_path);
    };
    let ti = fabric.switch_index(t).ok_or(no_path.clone())?;
    out.extend(up);
    while s != t {
        let si = fabric.switch_index(s).ok_or(no_path.clone())?;
        let Some(d) = hops.hops(si, ti) else {
            out.truncate(start);
            return Err(no_path);
        };
        let next = fabric.neighbors(s).find(|nb| {
            fabric
                .switch_index(nb.peer)
                .and_then(|pi| hops.hops(pi, ti))
                .is_some_and(|h| h + 1 == d)
        });
        let Some(nb) = next else {
            out.truncate(start);
            return Err(no_path);
        };
        let first = fabric.link(nb.link).ends[0].0 == s;
        out.push(DirectedLink::new(nb.link, first));
        s = nb.peer;
    }
    out.extend(down.map(|d| {
        // The terminal's link, crossed towards the terminal.
        DirectedLink::new(d.link(), !d.from_first_end())
    }));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FabricBuilder, PortNo, generators};

    /// Walks `path` from `from` and returns where it ends, checking each link starts where
    /// the previous ended.
    fn walk(f: &Fabric, from: NodeId, path: &[DirectedLink]) -> NodeId {
        let mut at = from;
        for d in path {
            let l = f.link(d.link());
            let (a, b) = if d.from_first_end() {
                (l.ends[0].0, l.ends[1].0)
            } else {
                (l.ends[1].0, l.ends[0].0)
            };
            assert_eq!(a, at, "the path is not contiguous");
            at = b;
        }
        at
    }

    #[test]
    fn paths_are_contiguous_and_of_min_hop_length() {
        for f in [
            generators::fat_tree(4).unwrap(),
            generators::torus(&[4, 3], 2).unwrap(),
            generators::dragonfly(4, 2, 2).unwrap(),
        ] {
            let hops = HopTable::new(&f).unwrap();
            let mut path = Vec::new();
            for &a in f.terminals().iter().step_by(3) {
                for &b in f.terminals().iter().step_by(5) {
                    path.clear();
                    min_hop_path(&f, &hops, a, b, &mut path).unwrap();
                    assert_eq!(walk(&f, a, &path), b);
                    let want = if a == b {
                        0
                    } else {
                        hops.between(&f, a, b).unwrap()
                    };
                    assert_eq!(path.len() as u32, want);
                }
            }
            // Switch to switch too.
            let (s, t) = (f.switches()[0], *f.switches().last().unwrap());
            path.clear();
            min_hop_path(&f, &hops, s, t, &mut path).unwrap();
            assert_eq!(walk(&f, s, &path), t);
            assert_eq!(path.len() as u32, hops.between(&f, s, t).unwrap());
        }
    }

    #[test]
    fn directed_links_index_densely() {
        let l = LinkId::new(5);
        let (f, b) = (DirectedLink::new(l, true), DirectedLink::new(l, false));
        assert_eq!((f.index(), b.index()), (10, 11));
        assert_eq!((f.link(), b.link()), (l, l));
        assert!(f.from_first_end() && !b.from_first_end());
    }

    #[test]
    fn unreachable_unknown_and_foreign_tables_are_errors() {
        // Two switches, each with a terminal, not linked to each other.
        let mut b = FabricBuilder::new();
        let (s0, s1) = (b.add_switch(2).unwrap(), b.add_switch(2).unwrap());
        let (t0, t1) = (b.add_terminal(1).unwrap(), b.add_terminal(1).unwrap());
        b.link(t0, PortNo::new(1), s0, PortNo::new(1)).unwrap();
        b.link(t1, PortNo::new(1), s1, PortNo::new(1)).unwrap();
        let f = b.build().unwrap();
        let hops = HopTable::new(&f).unwrap();
        let mut path = vec![DirectedLink::new(LinkId::new(0), true)];
        assert_eq!(
            min_hop_path(&f, &hops, t0, t1, &mut path),
            Err(Error::NoPath { from: t0, to: t1 })
        );
        assert_eq!(path.len(), 1, "left as it was");
        assert_eq!(
            min_hop_path(&f, &hops, t0, NodeId::new(99), &mut path),
            Err(Error::UnknownNode {
                node: NodeId::new(99)
            })
        );
        let other = HopTable::new(&generators::fat_tree(4).unwrap()).unwrap();
        assert!(matches!(
            min_hop_path(&f, &other, t0, t1, &mut path),
            Err(Error::HopTableMismatch { .. })
        ));
    }
}
