//! The largest hop distances to a large tree's member switches, kept per tree between joins
//! (ours: the paper computes them afresh). A join that cannot graft within the least height
//! rebuilds the tree by FCTB, which needs every switch's largest distance to all the tree's
//! member switches: O(S·M) for M of them, thousands on a merged tree. The row is kept for
//! the member switches it was computed for; a later call for a superset raises a copy by
//! the rows of the switches added only, and a call for a set that lost a switch (a member
//! left) or after a topology change computes it again.

use fabric_model::hash::FxHashMap;

use crate::{Router, TreeId};

/// Trees with fewer member switches are not cached (the rows cost less than the copy).
pub(crate) const FAR_MIN_SWITCHES: usize = 64;

/// A cached row is computed again when more than this many switches were added since.
const MAX_ADDED: usize = 32;

/// The member switches (sorted) a row of largest distances was computed for, and the row.
type Cached = (Vec<u32>, Box<[u8]>);

/// Per tree (by id) its [`Cached`] row, for the trees that have one: a map, not a slot per
/// tree id, since ids are never reused and few trees are large (a slot vector held 389 kB of
/// empty slots after 5,000 groups joined on torus(30x20x20, 2)).
#[derive(Debug, Default)]
pub(crate) struct FarCache {
    rows: FxHashMap<u32, Cached>,
}

impl FarCache {
    /// Forgets every row (the distances changed).
    pub(crate) fn clear(&mut self) {
        self.rows.clear();
    }

    /// Forgets tree `id`'s row.
    pub(crate) fn forget(&mut self, id: TreeId) {
        self.rows.remove(&id.0);
    }

    /// Bytes held, at capacity.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.rows.capacity() * (size_of::<(u32, Cached)>() + 1)
            + self
                .rows
                .values()
                .map(|(sw, row)| sw.capacity() * 4 + row.len())
                .sum::<usize>()
    }

    /// Rows held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }
}

/// The elements of `b` not in `a`, when every element of `a` is in `b` (both sorted and
/// distinct), at most `limit` of them; `None` otherwise.
///
/// Complexity: O(|a| + |b|).
fn added(a: &[u32], b: &[u32], limit: usize) -> Option<Vec<u32>> {
    if a.len() > b.len() || b.len() - a.len() > limit {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() - a.len());
    let mut i = 0;
    for &x in b {
        if i < a.len() && a[i] == x {
            i += 1;
        } else if i < a.len() && a[i] < x {
            return None;
        } else {
            out.push(x);
        }
    }
    (i == a.len()).then_some(out)
}

impl Router<'_> {
    /// [`max_dist`](Self::max_dist) of `sw`, the member switches (sorted, distinct) of tree
    /// `id`: the same value and the same largest distances left in the scratch, read from
    /// the tree's cached row when it was computed for a subset of `sw` (raised by the rows of
    /// the switches added), computed and cached otherwise for a large tree.
    ///
    /// Complexity: O(S·k) for k switches added since the cached row, O(S·M) without one.
    pub(crate) fn max_dist_of_tree(&mut self, id: TreeId, sw: &[u32]) -> u8 {
        if sw.len() < FAR_MIN_SWITCHES {
            return self.max_dist(sw);
        }
        if let Some((base, row)) = self.far.rows.get(&id.0)
            && let Some(extra) = added(base, sw, MAX_ADDED)
            && row.len() == self.s.maxd.len()
        {
            self.s.maxd.copy_from_slice(row);
            crate::live::distances::fold_rows(&self.view.hops, &extra, &mut self.s.maxd, u8::max);
            return self.s.maxd.iter().copied().min().unwrap_or(0);
        }
        let d = self.max_dist(sw);
        self.far
            .rows
            .insert(id.0, (sw.to_vec(), self.s.maxd.clone().into_boxed_slice()));
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Entries};
    use fabric_model::{HopTable, generators};

    #[test]
    fn added_is_the_difference_of_a_subset() {
        assert_eq!(added(&[1, 3], &[1, 2, 3, 4], 5), Some(vec![2, 4]));
        assert_eq!(added(&[], &[7], 5), Some(vec![7]));
        assert_eq!(added(&[1, 3], &[1, 3], 5), Some(vec![]));
        assert_eq!(added(&[1, 3], &[1, 2, 4], 5), None);
        assert_eq!(added(&[1, 3], &[0, 1], 5), None);
        assert_eq!(added(&[5], &[1, 2, 3, 5], 2), None);
        assert_eq!(added(&[1, 9], &[1, 2, 3], 5), None);
    }

    /// Growing and shrinking member sets on one tree id: the cached distances equal the
    /// plain fold every time, and only large sets are cached.
    #[test]
    fn cached_largest_distances_equal_the_plain_ones() {
        use rand::Rng;
        let f = generators::torus(&[9, 8, 4], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(8))).unwrap();
        let n = r.view.g.len() as u32;
        let mut rng = fabric_model::rng::seeded(3);
        let mut sw: Vec<u32> = (0..n).filter(|_| rng.random_bool(0.3)).collect();
        for step in 0..200 {
            match rng.random_range(0..10) {
                // A member switch left, or several (a merge).
                0 if sw.len() > 1 => {
                    sw.remove(rng.random_range(0..sw.len()));
                }
                1 => sw.retain(|_| rng.random_bool(0.7)),
                _ => {
                    for _ in 0..rng.random_range(1..4) {
                        let x = rng.random_range(0..n);
                        if let Err(i) = sw.binary_search(&x) {
                            sw.insert(i, x);
                        }
                    }
                }
            }
            if sw.is_empty() {
                sw.push(0);
            }
            let id = TreeId(step % 3);
            let got = r.max_dist_of_tree(id, &sw);
            let got_row = r.s.maxd.clone();
            let want = r.max_dist(&sw);
            assert_eq!((got, &got_row), (want, &r.s.maxd), "step {step}");
        }
        assert!(r.far.len() > 0 && r.far.len() <= 3);
        r.far.forget(TreeId(0));
        r.far.clear();
        assert_eq!(r.far.len(), 0);
    }
}
