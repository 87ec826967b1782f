//! Where a coflow's flows start and end, by resource: per resource the positions in the
//! coflow's greedy order (`by_rank`) of its flows whose first (or last) resource it is, so
//! that the greedy scan can go straight to the next flow touching a given resource instead
//! of reading every flow in between (see [`super::Memo`]: while one resource is open that
//! was closed at the same point of the last scan, only the flows starting or ending there
//! can have both ends open).

/// The positions of a coflow's flows grouped by one end's resource (first or last), each
/// group ascending.
#[derive(Default)]
pub(super) struct EndIndex {
    /// Per resource `r`, its group is `at[off[r]..off[r + 1]]`.
    off: Vec<u32>,
    at: Vec<u32>,
}

impl EndIndex {
    /// Groups the positions of `ends` (per position the two end resources) by end `side`
    /// (0 first, 1 last) over `resources` resources; an end at or past `resources` (an ended
    /// flow's) is left out. `fill` is a buffer.
    ///
    /// # Complexity
    /// O(n + R) for n positions and R resources.
    pub(super) fn build(
        &mut self,
        ends: &[[u16; 2]],
        side: usize,
        resources: usize,
        fill: &mut Vec<u32>,
    ) {
        self.off.clear();
        self.off.resize(resources + 1, 0);
        for e in ends {
            let r = usize::from(e[side & 1]);
            if r < resources {
                self.off[r + 1] += 1;
            }
        }
        for r in 1..self.off.len() {
            self.off[r] += self.off[r - 1];
        }
        fill.clear();
        fill.extend_from_slice(&self.off);
        self.at.clear();
        self.at.resize(self.off[resources] as usize, 0);
        for (k, e) in ends.iter().enumerate() {
            let r = usize::from(e[side & 1]);
            if r < resources {
                self.at[fill[r] as usize] = k as u32;
                fill[r] += 1;
            }
        }
    }

    /// The bounds in `at` of resource `r`'s group (empty past the resources).
    fn group(&self, r: usize) -> (u32, u32) {
        match (self.off.get(r), self.off.get(r + 1)) {
            (Some(&a), Some(&b)) => (a, b),
            _ => (0, 0),
        }
    }
}

/// Per (resource, side) a place in its [`EndIndex`] group, valid for one scan (a stamp per
/// entry tells which): the scan's position only grows, so each moves forward only.
#[derive(Default)]
pub(super) struct Cursors {
    /// Per resource and side (`2 r + side`): the scan it belongs to and its place in `at`.
    stamp: Vec<u32>,
    at: Vec<u32>,
    /// The current scan.
    now: u32,
}

impl Cursors {
    /// Starts a scan over `resources` resources (every cursor back to its group's start).
    ///
    /// # Complexity
    /// O(1), O(R) when sized anew or once in 2^32 scans.
    pub(super) fn begin(&mut self, resources: usize) {
        if self.stamp.len() != 2 * resources || self.now == u32::MAX {
            self.stamp.clear();
            self.stamp.resize(2 * resources, 0);
            self.at.resize(2 * resources, 0);
            self.now = 0;
        }
        self.now += 1;
    }

    /// The first position at or after `i` in resource `r`'s group of `index` (its end
    /// `side`), or `u32::MAX` for none.
    ///
    /// # Complexity
    /// Amortised O(1) over a scan plus the group entries passed.
    pub(super) fn next_at(&mut self, index: &EndIndex, side: usize, r: usize, i: u32) -> u32 {
        let (start, end) = index.group(r);
        let k = 2 * r + (side & 1);
        let (Some(stamp), Some(at)) = (self.stamp.get_mut(k), self.at.get_mut(k)) else {
            return u32::MAX;
        };
        if *stamp != self.now {
            *stamp = self.now;
            *at = start;
        }
        while *at < end && index.at.get(*at as usize).is_some_and(|&p| p < i) {
            *at += 1;
        }
        index
            .at
            .get(*at as usize)
            .filter(|_| *at < end)
            .copied()
            .unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Over increasing positions, each cursor finds the first flow at or after the position
        /// with that end, as a search of `ends` from the position finds it.
        #[test]
        fn cursors_find_the_next_flow_with_an_end(
            ends in proptest::collection::vec((0u16..7, 0u16..7), 0..60),
            steps in proptest::collection::vec((0usize..7, 0usize..2, 0u32..4), 0..40),
        ) {
            // Resources 0..6; 6 stands for an ended flow's ends (left out).
            let ends: Vec<[u16; 2]> = ends.into_iter().map(|(a, z)| [a, z]).collect();
            let mut index = [EndIndex::default(), EndIndex::default()];
            let mut fill = Vec::new();
            for (side, ix) in index.iter_mut().enumerate() {
                ix.build(&ends, side, 6, &mut fill);
            }
            let mut cur = Cursors::default();
            for round in 0..2 {
                cur.begin(6);
                let mut i = round;
                for &(r, side, step) in &steps {
                    i += step;
                    let want = (i as usize..ends.len())
                        .find(|&k| r < 6 && usize::from(ends[k][side]) == r)
                        .map_or(u32::MAX, |k| k as u32);
                    prop_assert_eq!(cur.next_at(&index[side], side, r, i), want);
                }
            }
        }
    }
}
