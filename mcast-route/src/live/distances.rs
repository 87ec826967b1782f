//! The router's switch-to-switch hop distances: the caller's [`HopTable`] until the first
//! topology change, then the router's own distances, kept up to date edge by edge. Those
//! read the caller's table through and keep a copy of only the rows that change (copy on
//! write, ours), so that a link down costs the few rows it changes and not S² bytes; a
//! shared table with no other owner is taken over whole instead.
//!
//! The incremental updates are the classic dynamic breadth-first search for unit weights
//! (G. Ramalingam and T. Reps, "On the computational complexity of dynamic graph problems",
//! *Theoretical Computer Science* 158, 1996): each row is the BFS distances from one source.
//! - Removing edges: a switch's distance from source `s` rises only when every neighbour one
//!   hop nearer `s` (its *parents*) is gone or rose; those switches are found level by level
//!   from the far ends of the removed edges, then given their new distances by a bucket
//!   queue seeded from their unaffected neighbours.
//! - Adding edges: the far end of an edge falls to the near end's distance plus one where
//!   that is less, and the fall spreads by a bucket-queue search over the switches it
//!   improves.
//!
//! Only the sources where the two ends of a changed edge are at different distances can see
//! a change (read off the two ends' rows, the table being symmetric); the others are skipped.

use std::sync::Arc;

use fabric_model::{HopTable, UNREACHABLE};

use crate::router::held::Held;
use crate::search::{Scratch, SwitchGraph};

/// What the router reads its distances from.
#[derive(Debug)]
pub(crate) enum Hops<'f> {
    /// The caller's table (no topology change yet).
    Table(Held<'f, HopTable>),
    /// The router's own table, after a topology change.
    Live(LiveHops<'f>),
}

impl<'f> Hops<'f> {
    /// The caller's table while there is one.
    #[inline]
    pub(crate) fn table(&self) -> Option<&HopTable> {
        match self {
            Self::Table(t) => Some(t),
            Self::Live(_) => None,
        }
    }

    /// Row `a`: hops from switch `a` to every switch ([`UNREACHABLE`] where none).
    #[inline]
    pub(crate) fn row(&self, a: usize) -> &[u8] {
        match self {
            Self::Table(t) => t.row(a),
            Self::Live(l) => l.row(a),
        }
    }

    /// Hops between switches `a` and `b`, `None` when unreachable or out of range.
    #[inline]
    pub(crate) fn hops(&self, a: usize, b: usize) -> Option<u8> {
        match self {
            Self::Table(t) => t.hops(a, b),
            Self::Live(l) => l.hops(a, b),
        }
    }

    /// The router's own table from the first call: the caller's read through, only the
    /// rows that change copied (a shared table with no other owner is taken over instead).
    pub(crate) fn live(&mut self) -> &mut LiveHops<'f> {
        if matches!(self, Self::Table(_)) {
            // (An empty table, no allocation, while the caller's is taken out.)
            let Self::Table(t) =
                std::mem::replace(self, Self::Live(LiveHops::from_raw(0, Vec::new())))
            else {
                unreachable!("matched above")
            };
            *self = Self::Live(match t {
                Held::Shared(a) => match Arc::try_unwrap(a) {
                    Ok(t) => LiveHops::from_owned(t),
                    Err(a) => LiveHops::over(Held::Shared(a)),
                },
                Held::Borrowed(t) => LiveHops::over(Held::Borrowed(t)),
            });
        }
        match self {
            Self::Live(l) => l,
            Self::Table(_) => unreachable!("just made live"),
        }
    }

    /// Bytes of the router's own table (0 while it reads the caller's; then the rows it
    /// changed, or the whole table when it took it over).
    pub(crate) fn memory_bytes(&self) -> usize {
        match self {
            Self::Table(_) => 0,
            Self::Live(l) => l.memory_bytes(),
        }
    }
}

/// Folds the rows of `targets` into `out` with `op`, as [`crate::search::fold_rows`] does for
/// the caller's table.
///
/// Complexity: O(S·|targets|) byte operations.
pub(crate) fn fold_rows(
    hops: &Hops<'_>,
    targets: &[u32],
    out: &mut [u8],
    op: impl Fn(u8, u8) -> u8,
) {
    match hops {
        Hops::Table(t) => crate::search::fold_rows(t, targets, out, op),
        Hops::Live(l) => {
            let n = out.len();
            for &t in targets {
                for (a, &v) in out.iter_mut().zip(&l.row(t as usize)[..n]) {
                    *a = op(*a, v);
                }
            }
        }
    }
}

impl Scratch {
    /// [`fill_near`](Scratch::fill_near) over either table.
    pub(crate) fn near_of(&mut self, hops: &Hops<'_>, targets: &[u32]) {
        match hops.table() {
            Some(t) => self.fill_near(t, targets),
            None => {
                self.near.fill(u8::MAX);
                fold_rows(hops, targets, &mut self.near, u8::min);
            }
        }
    }

    /// [`fill_far`](Scratch::fill_far) over either table.
    pub(crate) fn far_of(&mut self, hops: &Hops<'_>, targets: &[u32]) {
        match hops.table() {
            Some(t) => self.fill_far(t, targets),
            None => {
                self.maxd.fill(0);
                fold_rows(hops, targets, &mut self.maxd, u8::max);
            }
        }
    }

    /// [`raise_far`](Scratch::raise_far) over either table.
    pub(crate) fn raise_far_of(&mut self, hops: &Hops<'_>, targets: &[u32]) -> bool {
        match hops.table() {
            Some(t) => self.raise_far(t, targets),
            None => {
                let mut before = std::mem::take(&mut self.merge.far);
                before.clear();
                before.extend_from_slice(&self.maxd);
                fold_rows(hops, targets, &mut self.maxd, u8::max);
                let raised = before != self.maxd;
                self.merge.far = before;
                raised
            }
        }
    }
}

/// An all-pairs hop table the router updates (one byte a pair, as [`HopTable`]): its own
/// bytes, or the caller's table read through with only the rows that changed kept beside it
/// (copy on write, ours: the paper keeps one table).
#[derive(Debug)]
pub(crate) struct LiveHops<'f> {
    rows: Rows<'f>,
    work: Work,
}

/// The rows of a [`LiveHops`].
#[derive(Debug)]
struct Rows<'f> {
    n: usize,
    /// The whole table (`n²` bytes) when the router owns it; empty over a base.
    hops: Vec<u8>,
    /// The caller's table, read where no row of `over` replaces it.
    base: Option<Held<'f, HopTable>>,
    /// Over a base, per source the row that differs from the base's (empty without a base).
    over: Vec<Option<Box<[u8]>>>,
    /// Rows of `over` held.
    copied: usize,
}

/// A [`LiveHops`]'s work arrays for one source's update.
#[derive(Debug)]
struct Work {
    /// Per switch, its state in the source being updated: 0 untouched, 1 candidate, 2
    /// affected (distance rising), 3 settled again.
    mark: Vec<u8>,
    /// Switches marked in the source being updated (to clear the marks).
    touched: Vec<u32>,
    /// The switches whose distance rises in the source being updated.
    affected: Vec<u32>,
    /// Bucket queue by distance.
    buckets: Vec<Vec<u32>>,
}

impl Rows<'_> {
    #[inline]
    fn row(&self, a: usize) -> &[u8] {
        match &self.base {
            None => &self.hops[a * self.n..(a + 1) * self.n],
            Some(b) => match self.over.get(a) {
                Some(Some(r)) => r,
                _ => b.row(a),
            },
        }
    }

    /// Row `a` to write, copied from the base first when it reads through.
    fn row_mut(&mut self, a: usize) -> &mut [u8] {
        let n = self.n;
        match &self.base {
            None => &mut self.hops[a * n..(a + 1) * n],
            Some(b) => {
                let slot = &mut self.over[a];
                if slot.is_none() {
                    self.copied += 1;
                }
                slot.get_or_insert_with(|| b.row(a).into())
            }
        }
    }

    /// Drops row `a`'s copy when it is the base's again.
    fn settle(&mut self, a: usize) {
        if let (Some(b), Some(slot)) = (&self.base, self.over.get_mut(a))
            && slot.as_deref().is_some_and(|r| r == b.row(a))
        {
            *slot = None;
            self.copied -= 1;
        }
    }
}

/// Pushes `x` at distance `d` into the bucket queue.
fn push(buckets: &mut Vec<Vec<u32>>, d: u8, x: u32) {
    let d = usize::from(d);
    if buckets.len() <= d {
        buckets.resize(d + 1, Vec::new());
    }
    buckets[d].push(x);
}

impl<'f> LiveHops<'f> {
    /// A copy of `t`.
    ///
    /// Complexity: O(S²) bytes copied.
    #[cfg(test)]
    pub(crate) fn from_table(t: &HopTable) -> Self {
        let n = t.switch_count();
        let mut hops = Vec::with_capacity(n * n);
        for a in 0..n {
            hops.extend_from_slice(t.row(a));
        }
        Self::from_raw(n, hops)
    }

    /// `t` read through: rows are copied only when they change.
    ///
    /// Complexity: O(S) (the work arrays and the row slots), no copy of the table.
    pub(crate) fn over(t: Held<'f, HopTable>) -> Self {
        let n = t.switch_count();
        let mut l = Self::from_raw(n, Vec::new());
        l.rows.over = vec![None; n];
        l.rows.base = Some(t);
        l
    }

    /// `t`'s bytes, taken over.
    ///
    /// Complexity: O(S) (the work arrays), no copy of the table.
    pub(crate) fn from_owned(t: HopTable) -> Self {
        let n = t.switch_count();
        let hops = t.into_bytes();
        debug_assert_eq!(hops.len(), n * n);
        Self::from_raw(n, hops)
    }

    fn from_raw(n: usize, hops: Vec<u8>) -> Self {
        Self {
            rows: Rows {
                n,
                hops,
                base: None,
                over: Vec::new(),
                copied: 0,
            },
            work: Work {
                mark: vec![0; n],
                touched: Vec::new(),
                affected: Vec::new(),
                buckets: Vec::new(),
            },
        }
    }

    /// Bytes the router holds for the table: its own rows (all, or those changed over the
    /// caller's table) and the work arrays.
    pub(crate) fn memory_bytes(&self) -> usize {
        let w = &self.work;
        self.rows.hops.capacity()
            + self.rows.over.capacity() * size_of::<Option<Box<[u8]>>>()
            + self.rows.copied * self.rows.n
            + w.mark.capacity()
            + (w.touched.capacity() + w.affected.capacity()) * 4
            + w.buckets.iter().map(|b| b.capacity() * 4).sum::<usize>()
    }

    /// Rows held as copies beside the caller's table (0 for a table the router owns).
    #[cfg(test)]
    pub(crate) fn copied_rows(&self) -> usize {
        self.rows.copied
    }

    #[inline]
    pub(crate) fn row(&self, a: usize) -> &[u8] {
        self.rows.row(a)
    }

    #[inline]
    pub(crate) fn hops(&self, a: usize, b: usize) -> Option<u8> {
        if a >= self.rows.n || b >= self.rows.n {
            return None;
        }
        let h = self.row(a)[b];
        (h != UNREACHABLE).then_some(h)
    }

    /// The sources whose row may change when the edges `edges` appear or disappear: those
    /// where the two ends of some edge are at different distances (read from the ends' rows,
    /// the table being symmetric), sorted.
    fn sources(&self, edges: &[(u32, u32)]) -> Vec<u32> {
        let n = self.rows.n;
        let mut hit = vec![false; n];
        for &(u, v) in edges {
            let (ru, rv) = (self.row(u as usize), self.row(v as usize));
            for (s, (a, b)) in ru.iter().zip(rv).enumerate() {
                if a != b {
                    hit[s] = true;
                }
            }
        }
        (0..n as u32).filter(|&s| hit[s as usize]).collect()
    }

    /// Updates every row after the switch–switch edges `removed` left `g` (which no longer
    /// holds them).
    ///
    /// Complexity: O(S·|removed|) to find the sources, then per source O(A·P) for the A
    /// switches whose distance rises, of P ports.
    pub(crate) fn remove_edges(&mut self, g: &SwitchGraph, removed: &[(u32, u32)]) {
        for s in self.sources(removed) {
            self.remove_in_row(g, s as usize, removed);
        }
    }

    fn remove_in_row(&mut self, g: &SwitchGraph, s: usize, removed: &[(u32, u32)]) {
        let Work {
            mark,
            touched,
            affected,
            buckets,
        } = &mut self.work;
        touched.clear();
        affected.clear();
        for b in buckets.iter_mut() {
            b.clear();
        }
        // First read only: which switches rise (none in most sources, whose row is then
        // neither copied nor written).
        let row = self.rows.row(s);
        // Candidates: the far end of each removed edge, by old distance.
        for &(u, v) in removed {
            let (du, dv) = (row[u as usize], row[v as usize]);
            let far = match du.cmp(&dv) {
                std::cmp::Ordering::Less => v,
                std::cmp::Ordering::Greater => u,
                std::cmp::Ordering::Equal => continue,
            };
            if mark[far as usize] == 0 {
                mark[far as usize] = 1;
                touched.push(far);
                push(buckets, row[far as usize], far);
            }
        }
        // Level by level: a candidate rises when no parent (a neighbour one hop nearer)
        // stays; its children become candidates.
        let mut d = 0;
        while d < buckets.len() {
            let mut level = std::mem::take(&mut buckets[d]);
            for &x in &level {
                let dx = row[x as usize];
                let kept = dx == 0
                    || g.adj(x)
                        .iter()
                        .any(|a| row[a.peer as usize] == dx - 1 && mark[a.peer as usize] != 2);
                if kept {
                    continue;
                }
                mark[x as usize] = 2;
                affected.push(x);
                for a in g.adj(x) {
                    let y = a.peer as usize;
                    if dx < UNREACHABLE - 1 && row[y] == dx + 1 && mark[y] == 0 {
                        mark[y] = 1;
                        touched.push(a.peer);
                        push(buckets, dx + 1, a.peer);
                    }
                }
            }
            level.clear();
            buckets[d] = level;
            d += 1;
        }
        if affected.is_empty() {
            for &x in touched.iter() {
                mark[x as usize] = 0;
            }
            return;
        }
        // New distances: each affected switch from its unaffected neighbours, then a bucket
        // queue among the affected.
        let row = self.rows.row_mut(s);
        for &x in affected.iter() {
            let best = g
                .adj(x)
                .iter()
                .filter(|a| mark[a.peer as usize] != 2)
                .map(|a| row[a.peer as usize])
                .min()
                .filter(|&h| h < UNREACHABLE - 1)
                .map_or(UNREACHABLE, |h| h + 1);
            row[x as usize] = best;
            if best != UNREACHABLE {
                push(buckets, best, x);
            }
        }
        let mut d = 0;
        while d < buckets.len() {
            let mut level = std::mem::take(&mut buckets[d]);
            for &x in &level {
                if mark[x as usize] != 2 || row[x as usize] as usize != d {
                    continue;
                }
                mark[x as usize] = 3;
                if d + 1 >= usize::from(UNREACHABLE) {
                    continue;
                }
                for a in g.adj(x) {
                    let y = a.peer as usize;
                    if mark[y] == 2 && usize::from(row[y]) > d + 1 {
                        row[y] = (d + 1) as u8;
                        push(buckets, (d + 1) as u8, a.peer);
                    }
                }
            }
            level.clear();
            buckets[d] = level;
            d += 1;
        }
        for &x in touched.iter() {
            mark[x as usize] = 0;
        }
        self.rows.settle(s);
    }

    /// Updates every row after the switch–switch edges `added` joined `g` (which holds them).
    ///
    /// Complexity: O(S·|added|) to find the sources, then per source O(B·P) for the B
    /// switches whose distance falls, of P ports.
    pub(crate) fn add_edges(&mut self, g: &SwitchGraph, added: &[(u32, u32)]) {
        for s in self.sources(added) {
            self.add_in_row(g, s as usize, added);
        }
    }

    fn add_in_row(&mut self, g: &SwitchGraph, s: usize, added: &[(u32, u32)]) {
        // Only a row where some edge brings a switch nearer changes (and is copied).
        let improves = |row: &[u8], a: u32, b: u32| {
            let da = row[a as usize];
            da < UNREACHABLE - 1 && da + 1 < row[b as usize]
        };
        {
            let row = self.rows.row(s);
            if !added
                .iter()
                .any(|&(u, v)| improves(row, u, v) || improves(row, v, u))
            {
                return;
            }
        }
        let buckets = &mut self.work.buckets;
        for b in buckets.iter_mut() {
            b.clear();
        }
        let row = self.rows.row_mut(s);
        for &(u, v) in added {
            for (a, b) in [(u, v), (v, u)] {
                if improves(row, a, b) {
                    let d = row[a as usize] + 1;
                    row[b as usize] = d;
                    push(buckets, d, b);
                }
            }
        }
        let mut d = 0;
        while d < buckets.len() {
            let mut level = std::mem::take(&mut buckets[d]);
            for &x in &level {
                if usize::from(row[x as usize]) != d || d + 1 >= usize::from(UNREACHABLE) {
                    continue;
                }
                for a in g.adj(x) {
                    let y = a.peer as usize;
                    if usize::from(row[y]) > d + 1 {
                        row[y] = (d + 1) as u8;
                        push(buckets, (d + 1) as u8, a.peer);
                    }
                }
            }
            level.clear();
            buckets[d] = level;
            d += 1;
        }
        self.rows.settle(s);
    }

    /// The table rebuilt from scratch over `g` by one BFS a source (the reference of the
    /// tests).
    #[cfg(test)]
    pub(crate) fn rebuilt(g: &SwitchGraph) -> Self {
        let n = g.len();
        let mut hops = vec![UNREACHABLE; n * n];
        let mut queue = Vec::with_capacity(n);
        for s in 0..n {
            let row = &mut hops[s * n..(s + 1) * n];
            row[s] = 0;
            queue.clear();
            queue.push(s as u32);
            let mut head = 0;
            while head < queue.len() {
                let x = queue[head];
                head += 1;
                for a in g.adj(x) {
                    if row[a.peer as usize] == UNREACHABLE {
                        row[a.peer as usize] = row[x as usize] + 1;
                        queue.push(a.peer);
                    }
                }
            }
        }
        Self::from_raw(n, hops)
    }

    /// Every row's bytes, row after row (for comparisons).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> Vec<u8> {
        (0..self.rows.n)
            .flat_map(|a| self.row(a).to_vec())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fabric_model::{HopTable, LinkId, generators};

    use super::{Hops, LiveHops};
    use crate::{Config, Router};

    /// A shared hop table with no other owner is taken over by the first topology change
    /// (the same bytes, not a copy); one still shared, or borrowed, is read through (row 0
    /// the caller's own bytes, no row copied), and all stay equal to it.
    #[test]
    fn a_sole_shared_table_is_taken_over_and_others_read_through() {
        let f = Arc::new(generators::torus(&[4, 3], 1).unwrap());
        let want = LiveHops::from_table(&HopTable::new(&f).unwrap());
        for other_owner in [false, true] {
            let hops = Arc::new(HopTable::new(&f).unwrap());
            let at = hops.row(0).as_ptr();
            let kept = other_owner.then(|| Arc::clone(&hops));
            let mut r = Router::new_shared(Arc::clone(&f), hops, Config::default()).unwrap();
            r.keep_own_hops();
            let Hops::Live(live) = &r.view.hops else {
                panic!("live after keep_own_hops")
            };
            assert_eq!(live.row(0).as_ptr(), at);
            assert_eq!(live.copied_rows(), 0);
            assert_eq!(live.bytes(), want.bytes());
            if let Some(k) = kept {
                assert_eq!(
                    Arc::strong_count(&k),
                    2,
                    "the router reads the shared table"
                );
            }
        }
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::default()).unwrap();
        r.keep_own_hops();
        let Hops::Live(live) = &r.view.hops else {
            panic!("live after keep_own_hops")
        };
        assert_eq!(live.row(3).as_ptr(), h.row(3).as_ptr());
        assert_eq!(live.copied_rows(), 0);
    }

    /// One link down on a torus copies only the rows whose distances rise (far fewer than
    /// S; the rest still read the caller's table), the rows equal a BFS rebuild, and the
    /// link back up returns every copied row to the caller's (none left).
    #[test]
    fn a_link_down_copies_only_the_rows_it_changes() {
        let f = generators::torus(&[8, 6, 4], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::default()).unwrap();
        let l = (0..f.link_count() as u32)
            .map(LinkId::new)
            .find(|&l| f.link(l).ends.iter().all(|&(n, _)| f.is_switch(n)))
            .unwrap();
        r.link_down(l).unwrap();
        let s = f.switch_count();
        let Hops::Live(live) = &r.view.hops else {
            panic!("live after a link down")
        };
        let copied = live.copied_rows();
        assert!(copied > 0, "some rows change");
        assert!(copied * 4 < s, "{copied} rows copied of {s}");
        assert_eq!(live.bytes(), LiveHops::rebuilt(&r.view.g).bytes());
        let changed = (0..s).filter(|&a| live.row(a) != h.row(a)).count();
        assert_eq!(copied, changed, "exactly the rows that differ are copied");
        r.link_up(l).unwrap();
        let Hops::Live(live) = &r.view.hops else {
            panic!("live after a link up")
        };
        assert_eq!(live.copied_rows(), 0);
        assert_eq!(live.bytes(), want_bytes(&h));
    }

    fn want_bytes(h: &HopTable) -> Vec<u8> {
        LiveHops::from_table(h).bytes()
    }
}
