//! DSatur (Brélaz, "New methods to color the vertices of a graph", Communications of the
//! ACM 22(4), 1979).

use std::cmp::Reverse;
use std::collections::BTreeSet;

use super::capacity::{Load, least_color};
use super::{Capacity, Coloring, Graph};

/// DSatur's coloring and the order it colored the vertices in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Dsatur {
    /// The coloring.
    pub coloring: Coloring,
    /// The vertices in the order they were colored.
    pub order: Vec<u32>,
}

/// DSatur: repeatedly colors, with its smallest free color (with `cap`, the smallest with
/// room in every set it needs), the uncolored vertex with the most distinct neighbour colors
/// (its saturation); ties go to the most neighbours, then the lowest index. Exact on
/// bipartite graphs, cycles and wheels.
///
/// # Complexity
/// O((n + E) log n + n · colors · needs): the uncolored vertices are kept ordered by
/// (saturation, degree, index), and each newly seen neighbour color moves one of them.
#[must_use]
pub fn dsatur(g: &Graph, cap: Option<&Capacity>) -> Dsatur {
    let n = g.len();
    let mut color = vec![u32::MAX; n];
    // Per vertex, a bit set of the colors its neighbours have, and how many.
    let mut seen: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut sat = vec![0u32; n];
    let key = |v: usize, sat: &[u32]| (sat[v], g.degree(v), Reverse(v));
    let mut queue: BTreeSet<(u32, usize, Reverse<usize>)> = (0..n).map(|v| key(v, &sat)).collect();
    let mut load = Load::new(cap);
    let mut used = Vec::new();
    let mut order = Vec::with_capacity(n);
    while let Some((_, _, Reverse(v))) = queue.pop_last() {
        let c = least_color(g, v, &color, cap, &load, &mut used);
        color[v] = c as u32;
        order.push(v as u32);
        load.add(cap, v, c);
        for &u in g.neighbours(v) {
            let u = u as usize;
            let w = &mut seen[u];
            if w.len() <= c / 64 {
                w.resize(c / 64 + 1, 0);
            }
            if w[c / 64] >> (c % 64) & 1 == 0 {
                w[c / 64] |= 1 << (c % 64);
                if color[u] == u32::MAX {
                    queue.remove(&key(u, &sat));
                    sat[u] += 1;
                    queue.insert(key(u, &sat));
                } else {
                    sat[u] += 1;
                }
            }
        }
    }
    Dsatur {
        coloring: Coloring::from_colors(color),
        order,
    }
}
