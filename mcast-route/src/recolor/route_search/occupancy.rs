//! The route-aware search's bookkeeping: per color and switch the trees placed there, the
//! overlaps they make, and per tree and body the sums a move reads, kept up to date as
//! trees are placed and taken out.

use super::candidates::Candidates;

/// Occupancy of `k` colors over the switches by the placed trees, with the sums the moves
/// read.
///
/// - `occ[c · S + s]`: trees of color `c` on switch `s`;
/// - `fixed_sum[t · k + c]`: Σ over tree `t`'s fixed switches of their occupancy in `c`
///   times their weight there (every weight 1 unless raised);
/// - `body_sum[b · k + c]`: the same over body `b`'s switches;
/// - `zero[r · k + c]`: switches of root set `r` that no tree of color `c` holds;
/// - `cost`: the overlaps, Σ over colors and switches of (trees there choose 2), and
///   `wcost` the same weighted.
#[derive(Debug, Clone)]
pub(crate) struct Occupancy {
    /// Colors.
    k: usize,
    /// Switches.
    switches: usize,
    /// Trees per (color, switch).
    occ: Vec<u32>,
    /// Per (tree, color), the weighted occupancy summed over its fixed switches.
    fixed_sum: Vec<u32>,
    /// Per (body, color), the weighted occupancy summed over its switches.
    body_sum: Vec<u32>,
    /// Per (root set, color), its switches free in the color.
    zero: Vec<u32>,
    /// Per (color, switch), the weight of an overlap there (1 until
    /// [`raise_weights`](Self::raise_weights)).
    w: Vec<u32>,
    /// Per (tree, color), the weights summed over its fixed switches.
    fixed_w: Vec<u32>,
    /// Per (body, color), the weights summed over its switches.
    body_w: Vec<u32>,
    /// Overlaps.
    cost: u64,
    /// Overlaps weighted: Σ over colors and switches of the weight times (trees there
    /// choose 2).
    wcost: u64,
    /// Per switch: trees with it fixed, bodies holding it, root sets holding it
    /// (compressed rows from [`Candidates::by_switch`]).
    by_switch: [(Vec<u32>, Vec<u32>); 3],
}

/// Table entries the bookkeeping may hold (bodies and trees times colors) before the
/// search declines to run: 16 M entries of 4 bytes, 64 MiB.
pub(crate) const MAX_ENTRIES: usize = 1 << 24;

/// The most a weight grows to: the weighted sums stay within 256 times the unweighted
/// ones, far from `u32`'s range, however many moves a search is given.
pub(crate) const MAX_WEIGHT: u32 = 256;

/// Adds `by` to `x`, which stays in range (checked under debug assertions, as `+=` is).
fn shift(x: &mut u32, by: i32) {
    debug_assert!(
        x.checked_add_signed(by).is_some(),
        "a weighted sum in range"
    );
    *x = x.wrapping_add_signed(by);
}

impl Occupancy {
    /// Nothing placed, `k` colors over `switches` switches. `None` when the tables would
    /// exceed [`MAX_ENTRIES`].
    ///
    /// Complexity: O((S + trees + bodies + root sets) · k).
    pub(crate) fn new(cand: &Candidates, switches: usize, k: usize) -> Option<Self> {
        let entries =
            (switches + cand.trees() + cand.bodies() + cand.root_sets()).checked_mul(k)?;
        if entries > MAX_ENTRIES {
            return None;
        }
        let mut zero = vec![0u32; cand.root_sets() * k];
        for r in 0..cand.root_sets() {
            let n = cand.roots(r).len() as u32;
            zero[r * k..(r + 1) * k].fill(n);
        }
        Some(Self {
            k,
            switches,
            occ: vec![0; switches * k],
            fixed_sum: vec![0; cand.trees() * k],
            body_sum: vec![0; cand.bodies() * k],
            zero,
            w: vec![1; switches * k],
            fixed_w: (0..cand.trees())
                .flat_map(|t| std::iter::repeat_n(cand.fixed(t).len() as u32, k))
                .collect(),
            body_w: (0..cand.bodies())
                .flat_map(|b| std::iter::repeat_n(cand.body(b).len() as u32, k))
                .collect(),
            cost: 0,
            wcost: 0,
            by_switch: cand.by_switch(switches),
        })
    }

    /// Colors.
    pub(crate) fn colors(&self) -> usize {
        self.k
    }

    /// The overlaps: pairs of trees of one color on one switch, summed over switches.
    pub(crate) fn cost(&self) -> u64 {
        self.cost
    }

    /// The weighted overlaps (equal to [`cost`](Self::cost) until
    /// [`raise_weights`](Self::raise_weights)).
    pub(crate) fn wcost(&self) -> u64 {
        self.wcost
    }

    /// The weight of switch `s` in color `c`.
    #[inline]
    pub(crate) fn weight(&self, c: usize, s: u32) -> u32 {
        self.w[c * self.switches + s as usize]
    }

    /// Trees of color `c` on switch `s` times its weight.
    #[inline]
    pub(crate) fn wat(&self, c: usize, s: u32) -> u32 {
        let i = c * self.switches + s as usize;
        self.occ[i] * self.w[i]
    }

    /// Σ over tree `t`'s fixed switches of their weights in color `c`.
    #[inline]
    pub(crate) fn fixed_w(&self, t: usize, c: usize) -> u32 {
        self.fixed_w[t * self.k + c]
    }

    /// Σ over body `b`'s switches of their weights in color `c`.
    #[inline]
    pub(crate) fn body_w(&self, b: usize, c: usize) -> u32 {
        self.body_w[b * self.k + c]
    }

    /// Raises by one the weight of every (color, switch) with an overlap and a weight
    /// below [`MAX_WEIGHT`] (the breakout step of a weighted local search at a local
    /// minimum), with the sums over it.
    ///
    /// Complexity: O(S · k) plus, per switch raised, the fixed parts and bodies holding it.
    pub(crate) fn raise_weights(&mut self) {
        for c in 0..self.k {
            for s in 0..self.switches {
                let i = c * self.switches + s;
                if self.occ[i] >= 2 && self.w[i] < MAX_WEIGHT {
                    self.set_weight(c, s, self.w[i] + 1);
                }
            }
        }
    }

    /// Every weight back to 1, with the sums over them.
    ///
    /// Complexity: O(S · k) plus, per switch whose weight was above 1, the fixed parts
    /// and bodies holding it.
    pub(crate) fn reset_weights(&mut self) {
        for c in 0..self.k {
            for s in 0..self.switches {
                if self.w[c * self.switches + s] != 1 {
                    self.set_weight(c, s, 1);
                }
            }
        }
    }

    /// Sets the weight of (color `c`, switch `s`) to `to`, with the sums over it: the
    /// weighted cost (its trees' pairs there count `to` times) and, for the fixed parts and
    /// bodies holding `s`, their weighted occupancy and weight in `c`.
    ///
    /// Complexity: O(1) plus the fixed parts and bodies holding `s`.
    fn set_weight(&mut self, c: usize, s: usize, to: u32) {
        let k = self.k;
        let i = c * self.switches + s;
        let (from, n) = (self.w[i], self.occ[i]);
        self.w[i] = to;
        // Weights are at most `MAX_WEIGHT` and occupancies at most the trees, so the
        // changes fit in `i32`.
        let d = to as i32 - from as i32;
        let pairs = u64::from(n) * u64::from(n.saturating_sub(1)) / 2;
        let dc = i64::from(d) * pairs as i64;
        debug_assert!(
            self.wcost.checked_add_signed(dc).is_some(),
            "weighted cost in range"
        );
        self.wcost = self.wcost.wrapping_add_signed(dc);
        let dn = d * n as i32;
        let [(fs, fi), (bs, bi), _] = &self.by_switch;
        for &t in &fi[fs[s] as usize..fs[s + 1] as usize] {
            let x = t as usize * k + c;
            shift(&mut self.fixed_sum[x], dn);
            shift(&mut self.fixed_w[x], d);
        }
        for &b in &bi[bs[s] as usize..bs[s + 1] as usize] {
            let x = b as usize * k + c;
            shift(&mut self.body_sum[x], dn);
            shift(&mut self.body_w[x], d);
        }
    }

    /// Trees of color `c` on switch `s`.
    #[inline]
    pub(crate) fn at(&self, c: usize, s: u32) -> u32 {
        self.occ[c * self.switches + s as usize]
    }

    /// Σ over tree `t`'s fixed switches of their weighted occupancy in color `c`.
    #[inline]
    pub(crate) fn fixed_sum(&self, t: usize, c: usize) -> u32 {
        self.fixed_sum[t * self.k + c]
    }

    /// Body `b`'s weighted sums, one per color.
    #[inline]
    pub(crate) fn body_sums(&self, b: usize) -> &[u32] {
        &self.body_sum[b * self.k..(b + 1) * self.k]
    }

    /// Root set `r`'s switches free in each color, one per color.
    #[inline]
    pub(crate) fn zeros(&self, r: usize) -> &[u32] {
        &self.zero[r * self.k..(r + 1) * self.k]
    }

    /// The least weighted occupancy in color `c` over root set `r` (0 without a scan
    /// while one of its switches is free in `c`).
    ///
    /// Complexity: O(1), O(|r|) when every switch of `r` is busy in `c`.
    pub(crate) fn root_min(&self, cand: &Candidates, r: usize, c: usize) -> u32 {
        if self.zero[r * self.k + c] > 0 {
            return 0;
        }
        cand.roots(r)
            .iter()
            .map(|&s| self.wat(c, s))
            .min()
            .unwrap_or(0)
    }

    /// Places tree `t` in color `c` along body `b` from `root`.
    ///
    /// Complexity: O(Σ over the route's switches of the fixed parts, bodies and root
    /// sets holding them).
    pub(crate) fn place(&mut self, cand: &Candidates, t: usize, c: usize, b: usize, root: u32) {
        for s in cand.route(t, b, root) {
            self.add(c, s);
        }
    }

    /// Takes tree `t` out of color `c`, body `b`, root `root` (as placed).
    ///
    /// Complexity: as [`place`](Self::place).
    pub(crate) fn remove(&mut self, cand: &Candidates, t: usize, c: usize, b: usize, root: u32) {
        for s in cand.route(t, b, root) {
            self.sub(c, s);
        }
    }

    /// One more tree of color `c` on switch `s`.
    fn add(&mut self, c: usize, s: u32) {
        let i = c * self.switches + s as usize;
        let before = self.occ[i];
        self.cost += u64::from(before);
        let w = self.w[i];
        self.wcost += u64::from(before) * u64::from(w);
        self.occ[i] = before + 1;
        self.bump(c, s, w, before == 0, true);
    }

    /// One tree fewer of color `c` on switch `s` (which has one).
    fn sub(&mut self, c: usize, s: u32) {
        let i = c * self.switches + s as usize;
        let after = self.occ[i] - 1;
        self.occ[i] = after;
        self.cost -= u64::from(after);
        let w = self.w[i];
        self.wcost -= u64::from(after) * u64::from(w);
        self.bump(c, s, w, after == 0, false);
    }

    /// The sums over switch `s` in color `c` up (`up`) or down by its weight `w`; `edge`
    /// when `s` goes between free and busy in `c`.
    fn bump(&mut self, c: usize, s: u32, w: u32, edge: bool, up: bool) {
        let k = self.k;
        let s = s as usize;
        let [(fs, fi), (bs, bi), (rs, ri)] = &self.by_switch;
        let step = |x: &mut u32| {
            if up {
                *x += w;
            } else {
                *x -= w;
            }
        };
        for &t in &fi[fs[s] as usize..fs[s + 1] as usize] {
            step(&mut self.fixed_sum[t as usize * k + c]);
        }
        for &b in &bi[bs[s] as usize..bs[s + 1] as usize] {
            step(&mut self.body_sum[b as usize * k + c]);
        }
        if edge {
            for &r in &ri[rs[s] as usize..rs[s + 1] as usize] {
                let z = &mut self.zero[r as usize * k + c];
                if up {
                    *z -= 1;
                } else {
                    *z += 1;
                }
            }
        }
    }
}
