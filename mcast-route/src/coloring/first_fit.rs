//! First fit: each vertex in turn takes the least color left to it.

use super::capacity::{Load, least_color};
use super::{Capacity, Coloring, Graph};

/// First fit in index order: vertex 0, 1, … each takes the smallest color that no colored
/// neighbour has and, with `cap`, that has room in every set it needs. As Alg. 1 step ④
/// colors trees online, in arrival order.
///
/// # Complexity
/// O(n + E + n · colors · needs).
#[must_use]
pub fn first_fit(g: &Graph, cap: Option<&Capacity>) -> Coloring {
    first_fit_in(g, 0..g.len(), cap)
}

/// First fit in the order `order`: its vertices first (entries past the graph or repeated
/// are skipped), then any vertex it left out, by index.
///
/// # Complexity
/// O(n + E + n · colors · needs).
#[must_use]
pub fn first_fit_in(
    g: &Graph,
    order: impl IntoIterator<Item = usize>,
    cap: Option<&Capacity>,
) -> Coloring {
    let n = g.len();
    let mut color = vec![u32::MAX; n];
    let mut load = Load::new(cap);
    let mut used = Vec::new();
    let mut put = |v: usize, color: &mut Vec<u32>| {
        if v < n && color[v] == u32::MAX {
            let c = least_color(g, v, color, cap, &load, &mut used);
            color[v] = c as u32;
            load.add(cap, v, c);
        }
    };
    for v in order {
        put(v, &mut color);
    }
    for v in 0..n {
        put(v, &mut color);
    }
    Coloring::from_colors(color)
}
