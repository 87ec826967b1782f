//! Fat trees as extended generalised fat trees (XGFT, Öhring et al.).

use super::{checked_mul, invalid, port_count};
use crate::{Error, Fabric, FabricBuilder, NodeId, PortNo};

/// The extended generalised fat tree XGFT(h; m₁…m_h; w₁…w_h).
///
/// Level 0 holds the terminals and levels 1…h the switches. A node of level i − 1 has `w_i`
/// parents at level i, and a switch of level i has `m_i` children, so there are
/// `m₁·…·m_h` terminals, and level i has `(m_{i+1}·…·m_h)·(w₁·…·w_i)` switches. A leaf
/// reaches the top level by `w₂·…·w_h` distinct up-paths: a full fat tree has as many
/// up-paths as terminals per leaf, a tapered (pruned) one fewer.
///
/// Port layout: a switch of level i has its `m_i` down ports first (`1..=m_i`, child `a_i` on
/// port `a_i + 1`), then its `w_{i+1}` up ports; a terminal has `w₁` ports, one per leaf.
/// Switch ids go level by level from the leaves up; terminals follow.
///
/// # Errors
/// [`Error::InvalidParameter`] when the slices are empty or of different lengths, hold a zero,
/// or make the fabric too large.
///
/// # Complexity
/// O(nodes + links) time and memory.
///
/// ```
/// use fabric_model::generators::xgft;
///
/// // Two-level, 4 terminals per leaf, 2 up-paths (tapered 2:1).
/// let f = xgft(&[4, 8], &[1, 2])?;
/// assert_eq!((f.terminal_count(), f.switch_count()), (32, 8 + 2));
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn xgft(children: &[u32], parents: &[u32]) -> Result<Fabric, Error> {
    const G: &str = "xgft";
    let h = children.len();
    if h == 0 {
        return Err(invalid(G, "children", "is empty"));
    }
    if parents.len() != h {
        return Err(invalid(
            G,
            "parents",
            format!("has {} levels but children has {h}", parents.len()),
        ));
    }
    if children.contains(&0) {
        return Err(invalid(G, "children", "holds a zero"));
    }
    if parents.contains(&0) {
        return Err(invalid(G, "parents", "holds a zero"));
    }
    let m: Vec<u64> = children.iter().map(|&x| u64::from(x)).collect();
    let w: Vec<u64> = parents.iter().map(|&x| u64::from(x)).collect();
    // count[i] = nodes at level i; a_size[i] = prod m_{i+1..h}; b_size[i] = prod w_{1..i}.
    let mut a_size = vec![1u64; h + 1];
    for i in (0..h).rev() {
        a_size[i] = checked_mul(a_size[i + 1], m[i], G, "children")?;
    }
    let mut b_size = vec![1u64; h + 1];
    for i in 1..=h {
        b_size[i] = checked_mul(b_size[i - 1], w[i - 1], G, "parents")?;
    }
    let count: Vec<u64> = (0..=h)
        .map(|i| checked_mul(a_size[i], b_size[i], G, "children"))
        .collect::<Result<_, _>>()?;
    let total: u64 = count.iter().sum();
    if total >= u64::from(u32::MAX) {
        return Err(invalid(
            G,
            "children",
            "makes the fabric too large for 32-bit ids",
        ));
    }
    let links: u64 = (1..=h).map(|i| count[i - 1] * w[i - 1]).sum();
    let mut b = FabricBuilder::with_capacity(total as usize, (links * 2) as usize, links as usize);
    // first[i] = NodeId of the first node of level i (switch levels 1..=h, then terminals).
    let mut first = vec![0u64; h + 1];
    let mut next = 0u64;
    for i in 1..=h {
        first[i] = next;
        let up = if i < h { w[i] } else { 0 };
        let ports = port_count(m[i - 1] + up, G, "children")?;
        for k in 0..count[i] {
            let id = b.add_switch(ports)?;
            b.set_description(id, format!("xgft L{i} #{k}"))?;
        }
        next += count[i];
    }
    first[0] = next;
    let term_ports = port_count(w[0], G, "parents")?;
    for k in 0..count[0] {
        let id = b.add_terminal(term_ports)?;
        b.set_description(id, format!("xgft host #{k}"))?;
    }
    // Child at level i-1: index a_c * B_{i-1} + b_c with a_c = a_i + m_i * a_p.
    // Parent at level i:  index a_p * B_i + b_c + B_{i-1} * b_i.
    for i in 1..=h {
        let child_down = if i >= 2 { m[i - 2] } else { 0 };
        for a_p in 0..a_size[i] {
            for a_i in 0..m[i - 1] {
                let a_c = a_i + m[i - 1] * a_p;
                for b_c in 0..b_size[i - 1] {
                    let child = first[i - 1] + a_c * b_size[i - 1] + b_c;
                    for b_i in 0..w[i - 1] {
                        let parent = first[i] + a_p * b_size[i] + b_c + b_size[i - 1] * b_i;
                        b.link(
                            NodeId::new(child as u32),
                            PortNo::new((child_down + b_i + 1) as u16),
                            NodeId::new(parent as u32),
                            PortNo::new((a_i + 1) as u16),
                        )?;
                    }
                }
            }
        }
    }
    b.build()
}

/// The three-level k-ary fat tree of k-port switches (Al-Fares et al.): k pods of k/2 edge and
/// k/2 aggregation switches, (k/2)² core switches, k³/4 terminals and 5k²/4 switches; every
/// switch uses all k ports. This is [`xgft`]`(&[k/2, k/2, k], &[1, k/2, k/2])`, with that port
/// layout (down ports first).
///
/// `fat_tree(40)`: 16,000 terminals, 2,000 switches (800 edge, 800 aggregation, 400 core),
/// switch diameter 4.
///
/// # Errors
/// [`Error::InvalidParameter`] when `k` is odd or zero.
///
/// # Complexity
/// O(k³) time and memory.
///
/// ```
/// let f = fabric_model::generators::fat_tree(4)?;
/// assert_eq!((f.switch_count(), f.terminal_count()), (20, 16));
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn fat_tree(k: u32) -> Result<Fabric, Error> {
    if k == 0 || k % 2 == 1 {
        return Err(invalid(
            "fat_tree",
            "k",
            format!("= {k} must be even and at least 2"),
        ));
    }
    xgft(&[k / 2, k / 2, k], &[1, k / 2, k / 2])
}

/// A two-level tapered (pruned) fat tree: `leaves` leaf switches, each with
/// `terminals_per_leaf` terminals and `up_paths` up-links, one to each of `up_paths` spine
/// switches of radix `leaves`. With `up_paths < terminals_per_leaf` the tree is tapered
/// `terminals_per_leaf : up_paths`; for three-level tapering use [`xgft`] (the number of
/// up-paths is the product of its `parents[1..]`).
///
/// This is [`xgft`]`(&[terminals_per_leaf, leaves], &[1, up_paths])`.
///
/// # Errors
/// [`Error::InvalidParameter`] when a parameter is zero or the fabric too large.
///
/// ```
/// let f = fabric_model::generators::tapered_fat_tree(16, 8, 4)?;
/// assert_eq!((f.switch_count(), f.terminal_count()), (8 + 4, 128));
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn tapered_fat_tree(
    terminals_per_leaf: u32,
    leaves: u32,
    up_paths: u32,
) -> Result<Fabric, Error> {
    const G: &str = "tapered_fat_tree";
    for (name, v) in [
        ("terminals_per_leaf", terminals_per_leaf),
        ("leaves", leaves),
        ("up_paths", up_paths),
    ] {
        if v == 0 {
            return Err(invalid(G, name, "is zero"));
        }
    }
    xgft(&[terminals_per_leaf, leaves], &[1, up_paths])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fat_tree_counts_follow_the_formulas() {
        for k in [2u32, 4, 6, 8] {
            let f = fat_tree(k).unwrap();
            assert_eq!(f.terminal_count() as u32, k * k * k / 4, "k={k}");
            assert_eq!(f.switch_count() as u32, 5 * k * k / 4, "k={k}");
            for &s in f.switches() {
                assert_eq!(f.degree(s) as u32, k, "every port used, k={k}");
            }
        }
    }

    #[test]
    fn fat_tree_refuses_odd_and_zero_k() {
        for k in [0, 3, 41] {
            assert!(matches!(
                fat_tree(k),
                Err(Error::InvalidParameter {
                    generator: "fat_tree",
                    parameter: "k",
                    ..
                })
            ));
        }
    }

    #[test]
    fn xgft_refuses_bad_shapes() {
        assert!(matches!(
            xgft(&[], &[]),
            Err(Error::InvalidParameter {
                parameter: "children",
                ..
            })
        ));
        assert!(matches!(
            xgft(&[2, 2], &[1]),
            Err(Error::InvalidParameter {
                parameter: "parents",
                ..
            })
        ));
        assert!(matches!(
            xgft(&[2, 0], &[1, 1]),
            Err(Error::InvalidParameter {
                parameter: "children",
                ..
            })
        ));
        assert!(matches!(
            xgft(&[2, 2], &[1, 0]),
            Err(Error::InvalidParameter {
                parameter: "parents",
                ..
            })
        ));
        assert!(matches!(
            xgft(&[65536, 65536, 65536], &[1, 1, 1]),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            tapered_fat_tree(4, 0, 2),
            Err(Error::InvalidParameter {
                generator: "tapered_fat_tree",
                parameter: "leaves",
                ..
            })
        ));
    }

    #[test]
    fn tapered_tree_has_the_asked_up_paths() {
        let f = tapered_fat_tree(16, 8, 4).unwrap();
        let leaves: Vec<_> = f
            .switches()
            .iter()
            .copied()
            .filter(|&s| f.radix(s) == 20)
            .collect();
        assert_eq!(leaves.len(), 8);
        for s in leaves {
            let ups = f.neighbors(s).filter(|n| f.is_switch(n.peer)).count();
            assert_eq!(ups, 4);
        }
    }
}
