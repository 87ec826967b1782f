//! Per-color capacities: sets of which one color may hold a bounded number of vertices.

/// A side condition on colorings: vertex `v` needs every set of `needs(v)`, and at most
/// `cap(x)` vertices of one color may need set `x`.
///
/// `reproduce mcast-colors` uses it for a necessary condition of tree routing: a group
/// with two or more member switches holds, on every tree spanning it, a neighbour of each
/// member switch `s`, and trees of one color are switch-disjoint, so at most `|N(s)|` trees
/// of one color cross `N(s)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capacity {
    caps: Vec<u32>,
    needs: Vec<Vec<u32>>,
}

impl Capacity {
    /// Sets with capacities `caps` (`caps[x]` vertices of one color may need set `x`) and
    /// per vertex the sets it needs (`needs[v]`; vertices past the end need none). `None`
    /// when a capacity is 0 (no coloring could give a vertex needing it a color) or a need
    /// names a set past `caps`.
    #[must_use]
    pub fn new(caps: Vec<u32>, needs: Vec<Vec<u32>>) -> Option<Self> {
        let n = caps.len();
        (caps.iter().all(|&c| c > 0) && needs.iter().flatten().all(|&x| (x as usize) < n))
            .then_some(Self { caps, needs })
    }

    /// The capacity of each set.
    #[must_use]
    pub fn caps(&self) -> &[u32] {
        &self.caps
    }

    /// The sets vertex `v` needs.
    #[must_use]
    pub fn needs(&self, v: usize) -> &[u32] {
        self.needs.get(v).map_or(&[], Vec::as_slice)
    }
}

/// Per set and color, how many vertices of that color need the set.
#[derive(Debug, Clone, Default)]
pub(super) struct Load {
    load: Vec<Vec<u32>>,
}

impl Load {
    pub(super) fn new(cap: Option<&Capacity>) -> Self {
        Self {
            load: vec![Vec::new(); cap.map_or(0, |c| c.caps.len())],
        }
    }

    /// Whether color `c` has room in every set `v` needs.
    pub(super) fn fits(&self, cap: Option<&Capacity>, v: usize, c: usize) -> bool {
        cap.is_none_or(|cap| {
            cap.needs(v)
                .iter()
                .all(|&x| self.load[x as usize].get(c).copied().unwrap_or(0) < cap.caps[x as usize])
        })
    }

    /// Records color `c` of `v`.
    pub(super) fn add(&mut self, cap: Option<&Capacity>, v: usize, c: usize) {
        if let Some(cap) = cap {
            for &x in cap.needs(v) {
                let l = &mut self.load[x as usize];
                if l.len() <= c {
                    l.resize(c + 1, 0);
                }
                l[c] += 1;
            }
        }
    }
}

/// The smallest color for `v` that no colored neighbour has (`color[u] == u32::MAX`: not
/// colored yet) and, with `cap`, that has room in every set `v` needs. `used` is scratch.
///
/// Complexity: O(degree + colors · |needs(v)|).
pub(super) fn least_color(
    g: &super::Graph,
    v: usize,
    color: &[u32],
    cap: Option<&Capacity>,
    load: &Load,
    used: &mut Vec<bool>,
) -> usize {
    used.clear();
    for &u in g.neighbours(v) {
        let c = color[u as usize];
        if c != u32::MAX {
            if used.len() <= c as usize {
                used.resize(c as usize + 1, false);
            }
            used[c as usize] = true;
        }
    }
    // Terminates: past every neighbour's color and every load's length, a color is free and
    // has room (capacities are at least 1).
    (0..)
        .find(|&c| !used.get(c).copied().unwrap_or(false) && load.fits(cap, v, c))
        .unwrap_or(0)
}
