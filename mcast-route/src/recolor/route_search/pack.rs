//! A start for the route-aware search built color by color: recursive largest first
//! (Leighton's RLF) over the forced conflicts, each tree taken into a color only along a
//! route free there, so that one color can mix trees of every size.
//!
//! (Packing each color with the largest trees first instead left 200 of fat_tree(40)
//! 3d-25x25x25's 1,875 trees without a color among 57: the trees across the core take 20
//! colors of 20 and then 20 of 11 or 12, and no color mixes them with the trees across
//! 2–3 pods. RLF's rule gives colors of 25 short lines and 6 long ones: 59 colors, from
//! which the weighted search reaches 52.)

use super::search::{Placement, Search};
use crate::coloring::Graph;

/// Per tree, where it stands while a color is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stand {
    /// Not placed, and may still have a route free in the color.
    Open,
    /// Not placed, and has no route free in the color (RLF's set `U`).
    Shut,
    /// Placed.
    Placed,
}

/// Fills colors `0..k` of `s` (none placed) one at a time. A color's first tree is the
/// open tree with the fewest forced conflicts (`g`, over the trees not placed) with the
/// others; each next one, among the trees with a route free in the color (its best route,
/// [`Search::best_route`]), the one with the most forced conflicts with the trees that
/// have none (RLF's rule), then the most with the trees not placed, then the first of
/// `order`. The placement when every tree found a color below `k`, `None` otherwise.
///
/// Complexity: per tree placed O(Σ over the open trees of (bodies + the root set
/// chosen)) to choose, plus O(degree) per tree placed or shut; O(n² · bodies) at worst.
pub(crate) fn recursive_largest_first(
    s: &mut Search<'_>,
    k: usize,
    order: &[usize],
    g: &Graph,
) -> Option<Placement> {
    let n = order.len();
    if g.len() != n {
        return None;
    }
    let mut stand = vec![Stand::Open; n];
    // Per tree, its forced conflicts with the trees shut out of the color.
    let mut shut = vec![0u32; n];
    // Per tree, its forced conflicts with the trees not placed.
    let mut open_deg: Vec<u32> = (0..n).map(|t| g.degree(t) as u32).collect();
    let mut left = n;
    for c in 0..k {
        if left == 0 {
            break;
        }
        for x in &mut stand {
            if *x == Stand::Shut {
                *x = Stand::Open;
            }
        }
        shut.fill(0);
        let mut first = true;
        loop {
            // (key, tree, body, root), the greatest key taken, the first on ties.
            let mut best: Option<((u32, u32), usize, usize, u32)> = None;
            for &t in order {
                if stand[t] != Stand::Open {
                    continue;
                }
                let (v, b, root) = s.best_route(t, c);
                if v != 0 {
                    stand[t] = Stand::Shut;
                    for &w in g.neighbours(t) {
                        shut[w as usize] += 1;
                    }
                    continue;
                }
                let key = if first {
                    (0, u32::MAX - open_deg[t])
                } else {
                    (shut[t], open_deg[t])
                };
                if best.is_none_or(|x| key > x.0) {
                    best = Some((key, t, b, root));
                }
            }
            let Some((_, t, b, root)) = best else { break };
            first = false;
            s.put(t, c, b, root);
            stand[t] = Stand::Placed;
            left -= 1;
            for &w in g.neighbours(t) {
                open_deg[w as usize] -= 1;
            }
        }
    }
    (left == 0).then(|| s.at.clone())
}
