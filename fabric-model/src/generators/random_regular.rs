//! Random regular switch graphs (Jellyfish).

use rand::Rng;

use crate::rng::{SeededRng, seeded};

use super::{checked_mul, invalid, port_count};
use crate::{Error, Fabric, FabricBuilder, NodeId, PortNo};

/// Graphs tried before giving up on a connected one.
const MAX_ATTEMPTS: u32 = 64;

/// A random regular switch graph: `switches` switches of `radix` ports, each with
/// `terminals_per_switch` terminals and its other `d = radix − terminals_per_switch` ports
/// wired at random to `d` distinct other switches, into a connected simple graph.
///
/// The graph is drawn by random pairing of free ports that refuses self-loops and repeated
/// pairs (Steger–Wormald), restarting when it gets stuck, and redrawn until it is connected,
/// from a ChaCha8 stream seeded with `seed`: the same arguments give the same fabric on every
/// platform.
///
/// Port layout: switch ports `1..=d` in the order the links were drawn, then the terminal
/// ports. Terminals follow the switches in id order.
///
/// `random_regular(2048, 40, 20, seed)`: 2,048 switches, 40,960 terminals, 20,480 switch–switch
/// links.
///
/// # Errors
/// [`Error::InvalidParameter`] when `switches` is zero, `terminals_per_switch > radix`,
/// `d ≥ switches`, or `switches · d` is odd; [`Error::CannotConnect`] when no connected graph
/// was drawn in 64 attempts (always the case for `d = 0` with two or more switches, and for
/// `d = 1` with more than two).
///
/// # Complexity
/// Expected O(switches · d²) time, O(switches · d) memory per attempt.
///
/// ```
/// let f = fabric_model::generators::random_regular(64, 8, 4, 7)?;
/// assert!(f.is_connected());
/// assert_eq!(f, fabric_model::generators::random_regular(64, 8, 4, 7)?);
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn random_regular(
    switches: u32,
    radix: u32,
    terminals_per_switch: u32,
    seed: u64,
) -> Result<Fabric, Error> {
    const G: &str = "random_regular";
    if switches == 0 {
        return Err(invalid(G, "switches", "is zero"));
    }
    if radix == 0 {
        return Err(invalid(G, "radix", "is zero"));
    }
    let Some(d) = radix.checked_sub(terminals_per_switch) else {
        return Err(invalid(
            G,
            "terminals_per_switch",
            format!("= {terminals_per_switch} exceeds the radix {radix}"),
        ));
    };
    if d >= switches && !(d == 0 && switches == 1) {
        return Err(invalid(
            G,
            "radix",
            format!(
                "leaves {d} switch ports, but a simple graph on {switches} switches allows at most {}",
                switches - 1
            ),
        ));
    }
    if (u64::from(switches) * u64::from(d)) % 2 == 1 {
        return Err(invalid(
            G,
            "switches",
            format!("× switch ports ({switches} × {d}) is odd: no regular graph exists"),
        ));
    }
    let terminals = checked_mul(
        u64::from(switches),
        u64::from(terminals_per_switch),
        G,
        "terminals_per_switch",
    )?;
    if u64::from(switches) + terminals >= u64::from(u32::MAX) {
        return Err(invalid(
            G,
            "switches",
            "makes the fabric too large for 32-bit ids",
        ));
    }
    let radix16 = port_count(u64::from(radix), G, "radix")?;
    let mut rng = seeded(seed);
    let n = switches as usize;
    let d = d as usize;
    let mut last_reason = String::new();
    for _ in 0..MAX_ATTEMPTS {
        let Some(adj) = draw_regular(n, d, &mut rng) else {
            last_reason = "random pairing kept getting stuck".to_owned();
            continue;
        };
        if !connected(&adj) {
            last_reason = "the graphs drawn were disconnected".to_owned();
            continue;
        }
        let mut b = FabricBuilder::with_capacity(
            n + terminals as usize,
            n * usize::from(radix16) + terminals as usize,
            n * d / 2 + terminals as usize,
        );
        for s in 0..n {
            let id = b.add_switch(radix16)?;
            b.set_description(id, format!("random-regular switch {s}"))?;
        }
        // Port of s toward its k-th neighbour is k + 1.
        for (s, nbrs) in adj.iter().enumerate() {
            for (k, &t) in nbrs.iter().enumerate() {
                if s < t as usize {
                    let back = adj[t as usize].iter().position(|&x| x as usize == s);
                    let back = back.expect("adjacency is symmetric by construction");
                    b.link(
                        NodeId::new(s as u32),
                        PortNo::new(k as u16 + 1),
                        NodeId::new(t),
                        PortNo::new(back as u16 + 1),
                    )?;
                }
            }
        }
        for s in 0..n {
            for k in 0..terminals_per_switch {
                let id = b.add_terminal(1)?;
                b.link(
                    NodeId::new(s as u32),
                    PortNo::new((d as u32 + k + 1) as u16),
                    id,
                    PortNo::new(1),
                )?;
            }
        }
        return b.build();
    }
    Err(Error::CannotConnect {
        generator: G,
        attempts: MAX_ATTEMPTS,
        reason: last_reason,
    })
}

/// One Steger–Wormald draw: pair random free points, refusing loops and repeats; `None` when
/// stuck.
fn draw_regular(n: usize, d: usize, rng: &mut SeededRng) -> Option<Vec<Vec<u32>>> {
    let mut adj: Vec<Vec<u32>> = vec![Vec::with_capacity(d); n];
    let mut points: Vec<u32> = (0..n as u32)
        .flat_map(|v| std::iter::repeat_n(v, d))
        .collect();
    let mut failures = 0usize;
    while !points.is_empty() {
        let i = rng.random_range(0..points.len());
        let j = rng.random_range(0..points.len());
        let (u, v) = (points[i], points[j]);
        if i == j || u == v || adj[u as usize].contains(&v) {
            failures += 1;
            // Stuck when the remaining points cannot be paired any more.
            if failures > 64 + 8 * points.len() {
                if stuck(&points, &adj) {
                    return None;
                }
                failures = 0;
            }
            continue;
        }
        failures = 0;
        adj[u as usize].push(v);
        adj[v as usize].push(u);
        let (hi, lo) = if i > j { (i, j) } else { (j, i) };
        points.swap_remove(hi);
        points.swap_remove(lo);
    }
    Some(adj)
}

/// Whether no two remaining points can be paired.
fn stuck(points: &[u32], adj: &[Vec<u32>]) -> bool {
    let mut distinct: Vec<u32> = points.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    for (k, &u) in distinct.iter().enumerate() {
        for &v in &distinct[k + 1..] {
            if !adj[u as usize].contains(&v) {
                return false;
            }
        }
    }
    true
}

fn connected(adj: &[Vec<u32>]) -> bool {
    let mut seen = vec![false; adj.len()];
    let mut stack = vec![0u32];
    seen[0] = true;
    let mut count = 1;
    while let Some(v) = stack.pop() {
        for &w in &adj[v as usize] {
            if !seen[w as usize] {
                seen[w as usize] = true;
                count += 1;
                stack.push(w);
            }
        }
    }
    count == adj.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_simple_connected_and_seeded() {
        let f = random_regular(100, 10, 4, 1).unwrap();
        for &s in f.switches() {
            let mut peers: Vec<_> = f
                .neighbors(s)
                .filter(|n| f.is_switch(n.peer))
                .map(|n| n.peer)
                .collect();
            assert_eq!(peers.len(), 6);
            peers.sort_unstable();
            peers.dedup();
            assert_eq!(peers.len(), 6, "no parallel links");
            assert!(!peers.contains(&s));
        }
        assert!(f.is_connected());
        assert_ne!(f, random_regular(100, 10, 4, 2).unwrap());
    }

    #[test]
    fn impossible_requests_get_precise_errors() {
        assert!(matches!(
            random_regular(0, 4, 1, 0),
            Err(Error::InvalidParameter {
                parameter: "switches",
                ..
            })
        ));
        assert!(matches!(
            random_regular(4, 0, 0, 0),
            Err(Error::InvalidParameter {
                parameter: "radix",
                ..
            })
        ));
        assert!(matches!(
            random_regular(4, 2, 3, 0),
            Err(Error::InvalidParameter {
                parameter: "terminals_per_switch",
                ..
            })
        ));
        assert!(matches!(
            random_regular(4, 5, 1, 0),
            Err(Error::InvalidParameter {
                parameter: "radix",
                ..
            })
        ));
        assert!(matches!(
            random_regular(5, 4, 1, 0),
            Err(Error::InvalidParameter {
                parameter: "switches",
                ..
            })
        ));
        // No switch links: never connected.
        assert!(matches!(
            random_regular(3, 2, 2, 0),
            Err(Error::CannotConnect {
                generator: "random_regular",
                attempts: 64,
                ..
            })
        ));
        // A perfect matching on 6 switches is never connected.
        assert!(matches!(
            random_regular(6, 2, 1, 0),
            Err(Error::CannotConnect { .. })
        ));
        assert_eq!(random_regular(1, 2, 2, 0).unwrap().switch_count(), 1);
    }
}
