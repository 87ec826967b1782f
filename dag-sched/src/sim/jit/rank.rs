//! [`RestPolicy::LatPriority`](crate::sim::RestPolicy::LatPriority)'s order of the flows it
//! ranks: the job with the fewest bits left first, then LAT, then id. A counting sort by
//! job instead of a comparison sort of every flow (a fifth of a LatPriority run on 100
//! FB2010 coflows was sorting tens of thousands of channel heads at every event, a few
//! dozen jobs among them).

use std::cmp::Ordering;

/// A flow LatPriority's pass ranks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Ranked {
    /// Its job.
    pub(super) job: usize,
    /// Its absolute LAT, s (`f64::INFINITY` for a channel head without one).
    pub(super) lat: f64,
    /// The flow.
    pub(super) id: usize,
    /// Its position in `Sim::active`.
    pub(super) k: usize,
}

/// Within one job rank: by LAT, then id.
fn by_lat(a: &Ranked, b: &Ranked) -> Ordering {
    a.lat.total_cmp(&b.lat).then(a.id.cmp(&b.id))
}

/// Reused buffers of [`Order::sort`].
#[derive(Default)]
pub(super) struct Order {
    /// Per job: its flows among those ranked (0 for the others), and its rank.
    count: Vec<u32>,
    rank: Vec<u32>,
    /// The jobs with flows ranked.
    jobs: Vec<usize>,
    /// Per rank: where its flows start (one more: the end), and where the next one goes.
    start: Vec<u32>,
    next: Vec<u32>,
    out: Vec<Ranked>,
}

impl Order {
    /// Sorts `rest` by (`job_rem` of the job, LAT, id), floats by `total_cmp`: ids are
    /// distinct, so this is the one order any comparison sort gives. Jobs with the same bits
    /// left share a rank, their flows merged by LAT and id.
    ///
    /// # Complexity
    /// O(n + J log J + Σ b log b) for n flows of J jobs, b over the ranks whose flows are
    /// not in (LAT, id) order already (none when the LATs are all equal and `rest` is in id
    /// order, as LatPriority's pass over the channel heads builds it).
    pub(super) fn sort(&mut self, job_rem: &[f64], rest: &mut Vec<Ranked>) {
        self.count.clear();
        self.count.resize(job_rem.len(), 0);
        self.rank.resize(job_rem.len(), 0);
        self.jobs.clear();
        for r in rest.iter() {
            if self.count[r.job] == 0 {
                self.jobs.push(r.job);
            }
            self.count[r.job] += 1;
        }
        self.jobs
            .sort_unstable_by(|&a, &b| job_rem[a].total_cmp(&job_rem[b]).then(a.cmp(&b)));
        self.start.clear();
        let mut off = 0u32;
        for (i, &j) in self.jobs.iter().enumerate() {
            let tied = i > 0 && job_rem[self.jobs[i - 1]].total_cmp(&job_rem[j]).is_eq();
            if !tied {
                self.start.push(off);
            }
            self.rank[j] = (self.start.len() - 1) as u32;
            off += self.count[j];
        }
        self.start.push(off);
        self.next.clear();
        self.next.extend_from_slice(&self.start);
        self.out.clear();
        self.out.extend_from_slice(rest);
        for r in rest.iter() {
            let q = &mut self.next[self.rank[r.job] as usize];
            self.out[*q as usize] = *r;
            *q += 1;
        }
        for w in self.start.windows(2) {
            let bucket = &mut self.out[w[0] as usize..w[1] as usize];
            if !bucket.windows(2).all(|p| by_lat(&p[0], &p[1]).is_le()) {
                bucket.sort_unstable_by(by_lat);
            }
        }
        std::mem::swap(rest, &mut self.out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The comparison sort's order: by bits left (ties between jobs too), LAT, id.
        #[test]
        fn the_counting_sort_is_the_comparison_sort(
            flows in proptest::collection::vec((0usize..6, 0u32..4, any::<bool>()), 0..60),
            rem in proptest::collection::vec(0u32..4, 6),
            shuffled in any::<bool>(),
        ) {
            let job_rem: Vec<f64> = rem.iter().map(|&r| f64::from(r) * 0.5).collect();
            let mut rest: Vec<Ranked> = flows
                .iter()
                .enumerate()
                .map(|(id, &(job, lat, file))| Ranked {
                    job,
                    lat: if file { f64::INFINITY } else { f64::from(lat) },
                    id,
                    k: id,
                })
                .collect();
            if shuffled {
                rest.reverse();
            }
            let mut want = rest.clone();
            want.sort_by(|a, b| {
                job_rem[a.job]
                    .total_cmp(&job_rem[b.job])
                    .then(a.lat.total_cmp(&b.lat))
                    .then(a.id.cmp(&b.id))
            });
            let mut order = Order::default();
            order.sort(&job_rem, &mut rest);
            prop_assert_eq!(&rest, &want);
            // Reused buffers: the same again.
            order.sort(&job_rem, &mut rest);
            prop_assert_eq!(rest, want);
        }
    }
}
