//! The route-aware tabu search: each tree has a color and a route among its candidates;
//! the cost is the overlaps between trees of one color; a move gives a tree in overlap
//! another color (with its best route there) or another route in its color.

use super::candidates::Candidates;
use super::occupancy::Occupancy;
use crate::coloring::{DEFAULT_TABU_SEED, Tabu, Xorshift};

/// The trees in overlap a search may examine, on average over its moves, before it
/// stops: on fat_tree(40) 3d-25x25x25 the weighted search reached 53 colors after 105,797
/// examined in 8,563 moves and 52 after 39,928; a run that fails at 51 had examined
/// 960,021 in its 20,000 moves (13 s).
pub(crate) const EVALS_PER_MOVE: usize = 8;

/// Every tree's color, body and root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placement {
    /// Per tree, its color.
    pub(crate) color: Vec<u32>,
    /// Per tree, its body (an id of [`Candidates`], one of the tree's).
    pub(crate) body: Vec<u32>,
    /// Per tree, its root (one of its body's root set).
    pub(crate) root: Vec<u32>,
}

impl Placement {
    /// Colors holding at least one tree.
    pub(crate) fn colors_used(&self) -> usize {
        let mut c = self.color.clone();
        c.sort_unstable();
        c.dedup();
        c.len()
    }
}

/// A move: tree, color, body, root, and the change in overlaps.
#[derive(Debug, Clone, Copy)]
struct Move {
    /// The change in overlaps.
    delta: i64,
    /// The generator's draw that breaks ties.
    tie: u64,
    /// The tree.
    t: usize,
    /// Its new color.
    c: usize,
    /// Its new body.
    b: usize,
    /// Its new root within its color (a move to another color picks the root when made).
    root: u32,
}

/// The search's state over `k` colors at most.
pub(crate) struct Search<'a> {
    /// Every tree's routes.
    cand: &'a Candidates,
    /// The bookkeeping of the placement.
    pub(crate) occ: Occupancy,
    /// Every tree's color and route.
    pub(crate) at: Placement,
    /// Ties and tenures, seeded by [`Tabu::seed`].
    rng: Xorshift,
    /// `tabu_color[t · k + c]`: the move after which tree `t` may go back to color `c`.
    tabu_color: Vec<usize>,
    /// Per body: the move after which its tree may take it again in its own color.
    tabu_body: Vec<usize>,
    /// Switches of the route being re-routed: `mark[s] == stamp`.
    mark: Vec<u32>,
    stamp: u32,
    /// Per color, the least body sum (with its root) and its body, for one tree.
    least: Vec<(u32, u32)>,
    /// The trees in overlap with their overlaps, for one move.
    bad: Vec<(u32, i64)>,
    /// Moves without a new least weighted cost after which [`run`](Self::run) raises the
    /// weights of the overlaps left (0: never, every weight stays 1).
    pub(crate) patience: usize,
}

impl<'a> Search<'a> {
    /// Makes `(t, c, b, root)`, changing the weighted overlaps by `delta`, the `best` move
    /// if it beats it: the smaller change, ties broken by a fresh draw of the generator.
    fn offer(
        &mut self,
        best: &mut Option<Move>,
        delta: i64,
        t: usize,
        c: usize,
        b: usize,
        root: u32,
    ) {
        let tie = self.rng.next();
        if best.is_none_or(|m| (delta, tie) < (m.delta, m.tie)) {
            *best = Some(Move {
                delta,
                tie,
                t,
                c,
                b,
                root,
            });
        }
    }

    /// Nothing placed yet, `k` colors. `None` when the tables would be too large
    /// ([`Occupancy::new`]).
    pub(crate) fn empty(
        cand: &'a Candidates,
        switches: usize,
        k: usize,
        tabu: &Tabu,
    ) -> Option<Self> {
        let n = cand.trees();
        Some(Self {
            cand,
            occ: Occupancy::new(cand, switches, k)?,
            at: Placement {
                color: vec![0; n],
                body: vec![0; n],
                root: vec![0; n],
            },
            rng: Xorshift(if tabu.seed() == 0 {
                DEFAULT_TABU_SEED
            } else {
                tabu.seed()
            }),
            tabu_color: vec![0; n * k],
            tabu_body: vec![0; cand.bodies()],
            mark: vec![0; switches],
            stamp: 0,
            least: vec![(0, 0); k],
            bad: Vec::new(),
            patience: 0,
        })
    }

    /// Every tree placed in its color of `start` (below `k`), one after another in
    /// `order`, each along its route of fewest overlaps with the trees placed before it.
    /// `None` when the tables would be too large ([`Occupancy::new`]) or a color of
    /// `start` is not below `k`.
    ///
    /// Complexity: O((S + trees + bodies) · k) for the tables, then one
    /// [`best_route`](Self::best_route) and one placement per tree.
    #[cfg(test)]
    pub(crate) fn new(
        cand: &'a Candidates,
        switches: usize,
        k: usize,
        start: &[u32],
        order: &[usize],
        tabu: &Tabu,
    ) -> Option<Self> {
        if start.len() != cand.trees() || start.iter().any(|&c| c as usize >= k) {
            return None;
        }
        let mut s = Self::empty(cand, switches, k, tabu)?;
        for &t in order {
            let c = start[t] as usize;
            let (_, b, root) = s.best_route(t, c);
            s.put(t, c, b, root);
        }
        Some(s)
    }

    /// Every tree placed as `at` says (colors below `k`, each body one of its tree's, each
    /// root one of its body's). `None` when the tables would be too large or `at` is not
    /// such a placement.
    ///
    /// Complexity: O((S + trees + bodies) · k) for the tables, then one placement per tree.
    pub(crate) fn placed(
        cand: &'a Candidates,
        switches: usize,
        k: usize,
        at: &Placement,
        tabu: &Tabu,
    ) -> Option<Self> {
        let n = cand.trees();
        if at.color.len() != n || at.body.len() != n || at.root.len() != n {
            return None;
        }
        let mut s = Self::empty(cand, switches, k, tabu)?;
        for t in 0..n {
            let (c, b, r) = (at.color[t] as usize, at.body[t] as usize, at.root[t]);
            let rooted = cand.roots(cand.root_set(b)).binary_search(&r).is_ok();
            if c >= k || !cand.bodies_of(t).contains(&b) || !rooted {
                return None;
            }
            s.put(t, c, b, r);
        }
        Some(s)
    }

    /// Places tree `t` (not placed) in color `c`, body `b`, from `root`.
    pub(super) fn put(&mut self, t: usize, c: usize, b: usize, root: u32) {
        self.occ.place(self.cand, t, c, b, root);
        self.at.color[t] = c as u32;
        self.at.body[t] = b as u32;
        self.at.root[t] = root;
    }

    /// Takes tree `t` out.
    fn take(&mut self, t: usize) {
        let (c, b, r) = (
            self.at.color[t] as usize,
            self.at.body[t] as usize,
            self.at.root[t],
        );
        self.occ.remove(self.cand, t, c, b, r);
    }

    /// The weighted overlaps tree `t` (placed) takes part in: Σ over its switches of the
    /// other trees of its color there times the switch's weight.
    ///
    /// Complexity: O(1).
    pub(crate) fn own(&self, t: usize) -> i64 {
        let (c, b, r) = (
            self.at.color[t] as usize,
            self.at.body[t] as usize,
            self.at.root[t],
        );
        let cand = self.cand;
        let occ = &self.occ;
        let mut v = i64::from(occ.fixed_sum(t, c)) - i64::from(occ.fixed_w(t, c))
            + i64::from(occ.body_sums(b)[c])
            - i64::from(occ.body_w(b, c));
        if !cand.root_fixed(b) {
            v += i64::from(occ.wat(c, r)) - i64::from(occ.weight(c, r));
        }
        v
    }

    /// The route of tree `t` (not placed in `c`) with the fewest weighted overlaps in
    /// color `c`: (overlaps, body, root); the first body and root of the least on ties.
    ///
    /// Complexity: O(bodies of `t` + the root set chosen).
    pub(crate) fn best_route(&self, t: usize, c: usize) -> (u32, usize, u32) {
        let cand = self.cand;
        let mut best = (u32::MAX, 0usize);
        for b in cand.bodies_of(t) {
            let root = if cand.root_fixed(b) {
                0
            } else {
                self.occ.root_min(cand, cand.root_set(b), c)
            };
            let v = self.occ.body_sums(b)[c] + root;
            if v < best.0 {
                best = (v, b);
            }
        }
        let b = best.1;
        (self.occ.fixed_sum(t, c) + best.0, b, self.pick_root(b, c))
    }

    /// The root of body `b`'s set least busy in color `c` (the first on ties).
    ///
    /// Complexity: O(|root set|).
    fn pick_root(&self, b: usize, c: usize) -> u32 {
        let cand = self.cand;
        let roots = cand.roots(cand.root_set(b));
        roots
            .iter()
            .copied()
            .min_by_key(|&s| self.occ.wat(c, s))
            .unwrap_or(0)
    }

    /// The weighted overlaps a tree of color `c` would have on switch `s` with the trees
    /// there other than itself (on the route marked).
    #[inline]
    fn here(&self, c: usize, s: u32) -> i64 {
        let own = u32::from(self.mark[s as usize] == self.stamp);
        i64::from(self.occ.weight(c, s)) * (i64::from(self.occ.at(c, s)) - i64::from(own))
    }

    /// Tree `t`'s best move within its own color: another body, or another root of its
    /// body; `None` when it has a single route.
    ///
    /// Complexity: O(Σ over `t`'s bodies of their switches and roots).
    fn best_reroute(&mut self, t: usize, own: i64) -> Option<(i64, usize, u32)> {
        let cand = self.cand;
        let (c, cur_b, cur_r) = (
            self.at.color[t] as usize,
            self.at.body[t] as usize,
            self.at.root[t],
        );
        if cand.bodies_of(t).len() == 1 && cand.roots(cand.root_set(cur_b)).len() == 1 {
            return None;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
        for s in cand.route(t, cur_b, cur_r) {
            self.mark[s as usize] = self.stamp;
        }
        let fixed = i64::from(self.occ.fixed_sum(t, c)) - i64::from(self.occ.fixed_w(t, c));
        let mut best: Option<(i64, usize, u32)> = None;
        for b in cand.bodies_of(t) {
            let mut v = fixed;
            for &s in cand.body(b) {
                v += self.here(c, s);
            }
            // A fixed root costs nothing here: the body's first (its own when it is the
            // tree's body now).
            let roots = cand.roots(cand.root_set(b));
            let mut root = if b == cur_b { cur_r } else { roots[0] };
            if !cand.root_fixed(b) {
                let mut least = i64::MAX;
                for &s in roots {
                    if b == cur_b && s == cur_r {
                        continue;
                    }
                    let x = self.here(c, s);
                    if x < least {
                        least = x;
                        root = s;
                    }
                }
                if least == i64::MAX {
                    continue;
                }
                v += least;
            } else if b == cur_b {
                continue;
            }
            if best.is_none_or(|x| v < x.0) {
                best = Some((v, b, root));
            }
        }
        best.map(|(v, b, r)| (v - own, b, r))
    }

    /// TabuCol's moves over colors `0..k` and routes, at most `moves` of them (and while
    /// the trees in overlap examined stay within [`EVALS_PER_MOVE`] a move on average),
    /// until no overlap is left: whether none is. A move takes, among the trees in
    /// overlap, the change of least weighted overlaps that is not tabu, or that is tabu
    /// but reaches fewer than any state seen since the weights last changed (aspiration);
    /// ties are broken by the seeded generator. A tree moved off color `c` may not come
    /// back to it, and a tree re-routed off a body may not take it again, for `0.6 ·
    /// trees in overlap + rand(0..10)` moves.
    ///
    /// Every weight is 1 unless [`patience`](Self::patience) is set: then after that many
    /// moves without fewer weighted overlaps, the weight of each (color, switch) still in
    /// overlap goes up by one ([`Occupancy::raise_weights`], the breakout method of
    /// Morris, or guided local search), so that overlaps that stay cost more and the
    /// search leaves the plateau they hold it on. The weights are back to 1 at the end.
    ///
    /// Complexity: per move O(trees + Σ over trees in overlap of (bodies · k + their
    /// re-routes)) to choose, then one take and one placement; a raise of the weights
    /// O(S · k) plus the fixed parts and bodies over the switches raised.
    pub(crate) fn run(&mut self, k: usize, moves: usize) -> bool {
        let cand = self.cand;
        let kk = self.occ.colors();
        let k = k.min(kk);
        self.tabu_color.fill(0);
        self.tabu_body.fill(0);
        self.occ.reset_weights();
        let mut best_cost = self.occ.wcost();
        let mut since = 0;
        let mut evals = 0usize;
        let evals_max = moves.saturating_mul(EVALS_PER_MOVE);
        for iter in 0..moves {
            if self.occ.cost() == 0 || evals > evals_max {
                break;
            }
            let cost = self.occ.wcost() as i64;
            let mut best: Option<Move> = None;
            self.bad.clear();
            for t in 0..cand.trees() {
                let own = self.own(t);
                if own > 0 {
                    self.bad.push((t as u32, own));
                }
            }
            let bad = self.bad.len();
            evals += bad;
            for i in 0..bad {
                let (t, own) = self.bad[i];
                let t = t as usize;
                let ct = self.at.color[t] as usize;
                // The least route in every color.
                self.least[..k].fill((u32::MAX, 0));
                for b in cand.bodies_of(t) {
                    let sums = self.occ.body_sums(b);
                    let rs = cand.root_set(b);
                    let zeros = self.occ.zeros(rs);
                    let fixed_root = cand.root_fixed(b);
                    for c in 0..k {
                        let root = if fixed_root || zeros[c] > 0 {
                            0
                        } else {
                            self.occ.root_min(cand, rs, c)
                        };
                        let v = sums[c] + root;
                        if v < self.least[c].0 {
                            self.least[c] = (v, b as u32);
                        }
                    }
                }
                for c in 0..k {
                    if c == ct {
                        continue;
                    }
                    let delta = i64::from(self.occ.fixed_sum(t, c) + self.least[c].0) - own;
                    if self.tabu_color[t * kk + c] > iter && cost + delta >= best_cost as i64 {
                        continue;
                    }
                    let b = self.least[c].1 as usize;
                    self.offer(&mut best, delta, t, c, b, u32::MAX);
                }
                if let Some((delta, b, root)) = self.best_reroute(t, own) {
                    let tabu = b != self.at.body[t] as usize && self.tabu_body[b] > iter;
                    if tabu && cost + delta >= best_cost as i64 {
                        continue;
                    }
                    self.offer(&mut best, delta, t, ct, b, root);
                }
            }
            let Some(m) = best else { continue };
            let tenure = iter + 1 + bad * 6 / 10 + (self.rng.next() % 10) as usize;
            let (ct, bt) = (self.at.color[m.t] as usize, self.at.body[m.t] as usize);
            self.take(m.t);
            let root = if m.c == ct {
                if bt != m.b {
                    self.tabu_body[bt] = tenure;
                }
                m.root
            } else {
                self.tabu_color[m.t * kk + ct] = tenure;
                self.pick_root(m.b, m.c)
            };
            self.put(m.t, m.c, m.b, root);
            if self.occ.wcost() < best_cost {
                best_cost = self.occ.wcost();
                since = 0;
            } else {
                since += 1;
                if self.patience > 0 && since >= self.patience {
                    self.occ.raise_weights();
                    best_cost = self.occ.wcost();
                    since = 0;
                }
            }
        }
        self.occ.reset_weights();
        self.occ.cost() == 0
    }

    /// Empties one of colors `0..k` into the others: each color is tried ([`empty_into`]
    /// then undone), and the one leaving the fewest overlaps (the highest on ties) swaps
    /// with color `k - 1` and is emptied.
    ///
    /// (Emptying the smallest color instead, as TabuCol's continued descent does, left
    /// fat_tree(40) 3d-25x25x25 at 50 overlaps that 200,000 moves did not remove: the
    /// color emptied held trees across the core, which already filled their 31 other
    /// colors, 20 a color.)
    ///
    /// Complexity: k times the placements of a color's trees, each O(k · bodies).
    ///
    /// [`empty_into`]: Self::empty_into
    pub(crate) fn fold(&mut self, k: usize, order: &[usize]) {
        if k < 2 {
            return;
        }
        let top = k - 1;
        let mut best = (u64::MAX, top);
        for c in 0..k {
            let saved = self.at.clone();
            let moved = self.relabel(c, top, order);
            self.empty_into(&moved, top);
            if self.occ.cost() <= best.0 {
                best = (self.occ.cost(), c);
            }
            // Undo: every tree back where it was.
            for t in 0..self.cand.trees() {
                if self.at.color[t] != saved.color[t]
                    || self.at.body[t] != saved.body[t]
                    || self.at.root[t] != saved.root[t]
                {
                    self.take(t);
                    let (c, b, r) = (
                        saved.color[t] as usize,
                        saved.body[t] as usize,
                        saved.root[t],
                    );
                    self.put(t, c, b, r);
                }
            }
        }
        let moved = self.relabel(best.1, top, order);
        self.empty_into(&moved, top);
    }

    /// Takes out the trees of color `c` (returned, in `order`) and gives those of color
    /// `top` color `c` on their routes.
    fn relabel(&mut self, c: usize, top: usize, order: &[usize]) -> Vec<usize> {
        let moved: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&t| self.at.color[t] as usize == c)
            .collect();
        for &t in &moved {
            self.take(t);
        }
        if c != top {
            for t in 0..self.cand.trees() {
                if self.at.color[t] as usize == top {
                    self.take(t);
                    let (b, r) = (self.at.body[t] as usize, self.at.root[t]);
                    self.put(t, c, b, r);
                }
            }
        }
        moved
    }

    /// Places each tree of `moved` (taken out), in turn, on its route of fewest overlaps
    /// in the color below `top` where that is least (the lowest on ties).
    fn empty_into(&mut self, moved: &[usize], top: usize) {
        for &t in moved {
            let mut best = (u32::MAX, 0usize, 0usize, 0u32);
            for c in 0..top {
                let (v, b, r) = self.best_route(t, c);
                if v < best.0 {
                    best = (v, c, b, r);
                }
            }
            self.put(t, best.1, best.2, best.3);
        }
    }
}

/// The fewest colors the route-aware search reaches from `s` (placed over `k` colors):
/// [`Search::run`] over `k` colors down to zero overlaps, and while it gets there and more
/// than `floor` colors are in use, [`Search::fold`] and again with one color fewer. Each
/// search has `moves` moves. The last placement without overlap, or `None` when the first
/// search fails.
///
/// Complexity: as [`Search::run`] times the color counts tried.
pub(crate) fn descend(
    mut s: Search<'_>,
    k: usize,
    order: &[usize],
    floor: usize,
    moves: usize,
) -> Option<Placement> {
    let mut best = None;
    let mut k = k;
    while s.run(k, moves) {
        best = Some(s.at.clone());
        if k <= floor.max(1) {
            break;
        }
        s.fold(k, order);
        k -= 1;
    }
    best
}
