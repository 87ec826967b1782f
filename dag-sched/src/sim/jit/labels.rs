//! Order labels for [`RestPolicy::LatPriority`](crate::sim::RestPolicy::LatPriority)'s job
//! ranks when it runs incrementally ([`super::sparse`]): each job with flows gets a `u32`
//! label, equal for jobs tied in bits left and strictly increasing down the order, so that
//! a flow's strict-priority key is `label << 32 | id`. When the order moves (a job arrives,
//! or one overtakes another), as many jobs as possible keep their label (those along a
//! longest increasing run of the old labels in the new order) and the others are placed in
//! the gaps between them, so that only the flows of jobs whose label changed are re-keyed
//! (an order-maintenance list, as Dietz and Sleator's, with one relabelling of every job
//! when a gap is too narrow).

/// No label.
const NONE: u32 = u32::MAX;

/// The spacing of labels placed at either end of the order, or over it afresh: room for
/// 2¹⁶ insertions in a row at one place before a gap closes.
const STEP: u64 = 1 << 16;

/// The labels of the jobs, and the buffers of [`Labels::assign`].
#[derive(Debug, Default)]
pub(super) struct Labels {
    /// Per job: its label, `NONE` for none.
    label: Vec<u32>,
    /// Per tie of the order: the old label of its first member that had one.
    old: Vec<u32>,
    /// Whether group g keeps its label (on the longest increasing run).
    keep: Vec<bool>,
    /// The longest-increasing-run search: per length, the group ending the best run; per
    /// group, its predecessor on its run.
    tails: Vec<u32>,
    prev: Vec<u32>,
    /// The new label of each group.
    new: Vec<u32>,
}

impl Labels {
    /// Job `j`'s label (`u32::MAX` for none).
    pub(super) fn get(&self, j: usize) -> u32 {
        self.label.get(j).copied().unwrap_or(NONE)
    }

    /// Job `j` has no flows left: it gives up its label.
    pub(super) fn drop_job(&mut self, j: usize) {
        if let Some(l) = self.label.get_mut(j) {
            *l = NONE;
        }
    }

    /// Labels `order` (jobs, best first; `tied[i]` when job `i` ties with job `i - 1`) so
    /// that labels are equal within a tie and strictly increase from one tie to the next,
    /// below `u32::MAX`; pushes onto `changed` every job whose label changed (a job that had
    /// none included). Keeps the labels of a longest increasing run of the ties (a tie by the
    /// label of its first member that had one); places the others evenly in the gaps, or
    /// relabels every job when a gap is too narrow.
    ///
    /// # Complexity
    /// O(n log n) for n jobs.
    pub(super) fn assign(&mut self, order: &[usize], tied: &[bool], changed: &mut Vec<usize>) {
        debug_assert_eq!(order.len(), tied.len());
        if let Some(&m) = order.iter().max()
            && self.label.len() <= m
        {
            self.label.resize(m + 1, NONE);
        }
        // The ties, each with the old label of its first member that had one.
        self.old.clear();
        for (i, &j) in order.iter().enumerate() {
            let l = self.label[j];
            if i == 0 || !tied[i] {
                self.old.push(l);
            } else if let Some(last) = self.old.last_mut()
                && *last == NONE
            {
                *last = l;
            }
        }
        self.longest_run();
        if !self.fill() {
            self.spread();
        }
        let mut g = 0;
        for (i, &j) in order.iter().enumerate() {
            if i > 0 && !tied[i] {
                g += 1;
            }
            let l = self.new[g];
            if self.label[j] != l {
                self.label[j] = l;
                changed.push(j);
            }
        }
    }

    /// Marks in `keep` a longest strictly increasing run of the labelled ties' old labels
    /// (patience sorting).
    fn longest_run(&mut self) {
        let n = self.old.len();
        self.tails.clear();
        self.prev.clear();
        self.prev.resize(n, NONE);
        self.keep.clear();
        self.keep.resize(n, false);
        for g in 0..n {
            let l = self.old[g];
            if l == NONE {
                continue;
            }
            // The first run length whose best tail is not below `l`.
            let at = self.tails.partition_point(|&t| self.old[t as usize] < l);
            if at > 0 {
                self.prev[g] = self.tails[at - 1];
            }
            if at == self.tails.len() {
                self.tails.push(g as u32);
            } else {
                self.tails[at] = g as u32;
            }
        }
        let mut g = self.tails.last().copied().unwrap_or(NONE);
        while g != NONE {
            self.keep[g as usize] = true;
            g = self.prev[g as usize];
        }
    }

    /// New labels: the kept ties keep theirs, each run of others goes evenly in the gap
    /// between its kept neighbours (at `STEP` from the one neighbour at an end of the
    /// order). False if a gap is too narrow.
    fn fill(&mut self) -> bool {
        let n = self.old.len();
        self.new.clear();
        self.new.resize(n, NONE);
        let mut lo: Option<u64> = None;
        let mut g = 0;
        while g < n {
            if self.keep[g] {
                self.new[g] = self.old[g];
                lo = Some(u64::from(self.old[g]));
                g += 1;
                continue;
            }
            let start = g;
            while g < n && !self.keep[g] {
                g += 1;
            }
            let k = (g - start) as u64;
            let hi = (g < n).then(|| u64::from(self.old[g]));
            // The i-th of the run (1-based) goes at `at + step · i`, or evenly between two
            // kept neighbours.
            let (at, step, even) = match (lo, hi) {
                (None, None) => return false,
                (Some(lo), Some(hi)) => {
                    if hi - lo <= k {
                        return false;
                    }
                    (lo, hi - lo, true)
                }
                (None, Some(hi)) => {
                    // Labels are at least 0; `hi` above.
                    let step = STEP.min(hi / (k + 1));
                    if step == 0 {
                        return false;
                    }
                    (hi - step * (k + 1), step, false)
                }
                (Some(lo), None) => {
                    let step = STEP.min((u64::from(NONE) - 1 - lo) / (k + 1));
                    if step == 0 {
                        return false;
                    }
                    (lo, step, false)
                }
            };
            for i in 1..=k {
                let l = if even {
                    at + step * i / (k + 1)
                } else {
                    at + step * i
                };
                self.new[start + i as usize - 1] = l as u32;
            }
        }
        true
    }

    /// New labels for every tie, evenly over the labels' range around its middle.
    fn spread(&mut self) {
        let n = self.old.len() as u64;
        let span = u64::from(NONE) - 1;
        let step = STEP.min(span / (n + 1)).max(1);
        let base = (span - step * (n + 1)) / 2;
        self.new.clear();
        self.new.extend((1..=n).map(|i| (base + step * i) as u32));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The order of `rem` (bits left per job, `None`: no flows) with its ties.
    fn order_of(rem: &[Option<u32>]) -> (Vec<usize>, Vec<bool>) {
        let mut order: Vec<usize> = (0..rem.len()).filter(|&j| rem[j].is_some()).collect();
        order.sort_by_key(|&j| (rem[j], j));
        let tied = (0..order.len())
            .map(|i| i > 0 && rem[order[i]] == rem[order[i - 1]])
            .collect();
        (order, tied)
    }

    #[test]
    fn an_overtaking_job_alone_is_relabelled() {
        let mut l = Labels::default();
        let mut changed = Vec::new();
        l.assign(&[0, 1, 2, 3], &[false; 4], &mut changed);
        assert_eq!(changed, [0, 1, 2, 3]);
        let before: Vec<u32> = (0..4).map(|j| l.get(j)).collect();
        assert!(before.windows(2).all(|w| w[0] < w[1]));
        // Job 3 overtakes jobs 1 and 2: it alone moves, between jobs 0 and 1.
        changed.clear();
        l.assign(&[0, 3, 1, 2], &[false; 4], &mut changed);
        assert_eq!(changed, [3]);
        assert!(l.get(0) < l.get(3) && l.get(3) < l.get(1));
        // Job 2 ties with job 1: it takes job 1's label.
        changed.clear();
        l.assign(&[0, 3, 1, 2], &[false, false, false, true], &mut changed);
        assert_eq!(changed, [2]);
        assert_eq!(l.get(1), l.get(2));
        // A new job at the front, and job 0 gone.
        l.drop_job(0);
        changed.clear();
        l.assign(&[4, 3, 1, 2], &[false, false, false, true], &mut changed);
        assert_eq!(changed, [4]);
        assert!(l.get(4) < l.get(3));
    }

    #[test]
    fn a_closed_gap_relabels_every_job() {
        let mut l = Labels::default();
        let mut changed = Vec::new();
        l.assign(&[0, 1], &[false, false], &mut changed);
        // Insert between the two until their gap (`STEP`) closes: 16 halvings fit.
        let mut order = vec![0usize, 1];
        let mut relabelled = false;
        for new in 2..40 {
            order.insert(1, new);
            changed.clear();
            l.assign(&order, &vec![false; order.len()], &mut changed);
            let labels: Vec<u32> = order.iter().map(|&j| l.get(j)).collect();
            assert!(labels.windows(2).all(|w| w[0] < w[1]), "{labels:?}");
            if changed.len() > 1 {
                relabelled = true;
                assert_eq!(changed.len(), order.len());
            } else {
                assert_eq!(changed, [new]);
            }
        }
        assert!(relabelled);
    }

    proptest! {
        /// Over any sequence of orders: labels are equal within a tie and strictly increase
        /// from tie to tie, `changed` is exactly the jobs whose label changed, and a job
        /// whose place relative to every other is the same as before keeps its label when
        /// nothing is inserted next to it (here: when the order is the same).
        #[test]
        fn labels_follow_the_order(
            steps in proptest::collection::vec(
                proptest::collection::vec(proptest::option::of(0u32..6), 8),
                1..12),
        ) {
            let mut l = Labels::default();
            let mut last: Option<(Vec<usize>, Vec<bool>)> = None;
            for rem in &steps {
                let (order, tied) = order_of(rem);
                for (j, r) in rem.iter().enumerate() {
                    if r.is_none() {
                        l.drop_job(j);
                    }
                }
                let before: Vec<u32> = (0..rem.len()).map(|j| l.get(j)).collect();
                let mut changed = Vec::new();
                l.assign(&order, &tied, &mut changed);
                for i in 1..order.len() {
                    let (a, b) = (l.get(order[i - 1]), l.get(order[i]));
                    if tied[i] {
                        prop_assert_eq!(a, b);
                    } else {
                        prop_assert!(a < b);
                    }
                }
                for &j in &order {
                    prop_assert!(l.get(j) < NONE);
                    prop_assert_eq!(changed.contains(&j), before[j] != l.get(j));
                }
                if last.as_ref() == Some(&(order.clone(), tied.clone())) {
                    prop_assert!(changed.is_empty());
                }
                last = Some((order, tied));
            }
        }
    }
}
