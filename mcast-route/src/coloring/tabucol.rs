//! TabuCol: tabu search for a `k`-coloring (Hertz and de Werra, "Using tabu search
//! techniques for graph coloring", Computing 39(4), 1987), with the dynamic tabu tenure of
//! Galinier and Hao ("Hybrid evolutionary algorithms for graph coloring", Journal of
//! Combinatorial Optimization 3(4), 1999).

use super::{Coloring, Graph};

/// The moves [`Tabu::default`] allows per color count.
pub const DEFAULT_TABU_MOVES: usize = 200_000;

/// The seed of [`Tabu::default`]'s tie-breaking generator.
pub const DEFAULT_TABU_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// TabuCol's budget and seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tabu {
    moves: usize,
    seed: u64,
    descent: Descent,
}

impl Default for Tabu {
    /// [`Tabu::DEFAULT`].
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl Tabu {
    /// [`DEFAULT_TABU_MOVES`] moves per color count, seed [`DEFAULT_TABU_SEED`],
    /// [`Descent::Restart`].
    pub const DEFAULT: Self = Self {
        moves: DEFAULT_TABU_MOVES,
        seed: DEFAULT_TABU_SEED,
        descent: Descent::Restart,
    };

    /// The most moves one search for a `k`-coloring makes before it gives up.
    #[must_use]
    pub const fn with_moves(mut self, moves: usize) -> Self {
        self.moves = moves;
        self
    }

    /// The seed of the xorshift generator that breaks ties between equal moves and draws
    /// the random part of the tenure (0, which xorshift cannot leave, stands for
    /// [`DEFAULT_TABU_SEED`]).
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = if seed == 0 { DEFAULT_TABU_SEED } else { seed };
        self
    }

    /// How [`tabu_descend`] starts each search.
    #[must_use]
    pub fn with_descent(mut self, descent: Descent) -> Self {
        self.descent = descent;
        self
    }

    /// The descent.
    #[must_use]
    pub fn descent(&self) -> Descent {
        self.descent
    }

    /// The move budget per color count.
    #[must_use]
    pub fn moves(&self) -> usize {
        self.moves
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// Marsaglia's xorshift64 (13, 7, 17).
pub(crate) struct Xorshift(pub(crate) u64);

impl Xorshift {
    /// The next draw (the state must not be 0). Inlined: TabuCol draws one per candidate
    /// move.
    #[inline]
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Searches a proper coloring of `g` with at most `k` colors within `tabu.moves()` moves.
///
/// Start: each vertex in index order takes the color fewest of its earlier neighbours have
/// (the lowest on ties). Move: among the vertices in conflict, the recoloring of least
/// change in conflicting edges that is not tabu, or that is tabu but leaves no conflict
/// (aspiration); ties are broken by the seeded generator. Moving `v` off color `c` makes
/// `(v, c)` tabu for `0.6 · conflicts + rand(0..10)` moves. `None` when the budget runs out
/// first, or when `k` is 0 and the graph has a vertex. A `k` past the vertex count is
/// taken as the vertex count (the start then colors every vertex apart from its
/// neighbours: the same coloring).
///
/// # Complexity
/// O(n · min(k, n) + E) memory and start, then per move O(n / 64 + conflicting vertices ·
/// k + degree).
#[must_use]
pub fn tabucol(g: &Graph, k: usize, tabu: &Tabu) -> Option<Coloring> {
    let n = g.len();
    if n == 0 {
        return Some(Coloring::default());
    }
    if k == 0 {
        return None;
    }
    // (Bounds the n · k counts: n colors always suffice.)
    let k = k.min(n);
    search(g, k, greedy_start(g, k, None), tabu)
}

/// Each vertex in index order takes the color below `k` fewest of its earlier neighbours
/// have (the lowest on ties); with `keep`, a vertex whose color in `keep` is below `k` keeps
/// it instead.
fn greedy_start(g: &Graph, k: usize, keep: Option<&[u32]>) -> Vec<u32> {
    let n = g.len();
    let mut gamma = vec![0u32; n * k];
    let mut color = vec![0u32; n];
    for v in 0..n {
        let row = &gamma[v * k..(v + 1) * k];
        let c = match keep.and_then(|k| k.get(v)) {
            Some(&c) if (c as usize) < k => c as usize,
            _ => (0..k).min_by_key(|&c| row[c]).unwrap_or(0),
        };
        color[v] = c as u32;
        for &u in g.neighbours(v) {
            gamma[u as usize * k + c] += 1;
        }
    }
    color
}

/// TabuCol's moves from the assignment `color` (every color below `k`).
fn search(g: &Graph, k: usize, mut color: Vec<u32>, tabu: &Tabu) -> Option<Coloring> {
    let n = g.len();
    let mut rng = Xorshift(if tabu.seed == 0 {
        DEFAULT_TABU_SEED
    } else {
        tabu.seed
    });
    // gamma[v * k + c]: neighbours of v with color c.
    let mut gamma = vec![0u32; n * k];
    for v in 0..n {
        for &u in g.neighbours(v) {
            gamma[u as usize * k + color[v] as usize] += 1;
        }
    }
    let own = |gamma: &[u32], color: &[u32], v: usize| gamma[v * k + color[v] as usize];
    let mut conflicts: i64 = (0..n)
        .map(|v| i64::from(own(&gamma, &color, v)))
        .sum::<i64>()
        / 2;
    // The vertices in conflict, as a bit set read in index order.
    let mut bad = vec![0u64; n.div_ceil(64)];
    let mark = |bad: &mut [u64], v: usize, on: bool| {
        if on {
            bad[v / 64] |= 1 << (v % 64);
        } else {
            bad[v / 64] &= !(1 << (v % 64));
        }
    };
    for v in 0..n {
        mark(&mut bad, v, own(&gamma, &color, v) > 0);
    }
    let mut tabu_until = vec![0usize; n * k];
    for iter in 0..tabu.moves {
        if conflicts == 0 {
            return Some(Coloring::from_colors(color));
        }
        let mut best: Option<(i64, u64, usize, usize)> = None;
        for (wi, &word) in bad.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let v = wi * 64 + w.trailing_zeros() as usize;
                w &= w - 1;
                let here = i64::from(own(&gamma, &color, v));
                for c in 0..k {
                    if c == color[v] as usize {
                        continue;
                    }
                    let delta = i64::from(gamma[v * k + c]) - here;
                    if tabu_until[v * k + c] > iter && conflicts + delta > 0 {
                        continue;
                    }
                    let tie = rng.next();
                    if best.is_none_or(|b| (delta, tie) < (b.0, b.1)) {
                        best = Some((delta, tie, v, c));
                    }
                }
            }
        }
        let Some((delta, _, v, c)) = best else {
            continue;
        };
        let old = color[v] as usize;
        color[v] = c as u32;
        conflicts += delta;
        tabu_until[v * k + old] =
            iter + 1 + (conflicts as usize * 6) / 10 + (rng.next() % 10) as usize;
        for &u in g.neighbours(v) {
            let u = u as usize;
            gamma[u * k + old] -= 1;
            gamma[u * k + c] += 1;
            mark(&mut bad, u, own(&gamma, &color, u) > 0);
        }
        mark(&mut bad, v, own(&gamma, &color, v) > 0);
    }
    (conflicts == 0).then(|| Coloring::from_colors(color))
}

/// How [`tabu_descend`] starts each search for one color fewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Descent {
    /// From scratch, as [`tabucol`] does (Hertz and de Werra's scheme).
    #[default]
    Restart,
    /// From the last coloring found, its smallest color class folded onto the other colors
    /// (each of its vertices, in index order, takes the color fewest of its neighbours
    /// have): the search starts near a solution instead of from scratch.
    Continue,
}

/// The fewest colors [`tabucol`] reaches going down from `start` (a proper coloring), one
/// color at a time, until a count fails within the budget or reaches `floor` (a lower bound,
/// such as a clique's size; at least 1): the last coloring found, or `start` when none is.
/// Each search starts as `tabu`'s [`Descent`] says. A `start` that is not a proper
/// coloring of `g` ([`Coloring::is_proper`]) comes back unchanged; one spanning more colors
/// than `g` has vertices is first renumbered onto its colors in use, in order.
///
/// # Complexity
/// O(n + E) to check `start`, then one [`tabucol`] search per color count tried.
#[must_use]
pub fn tabu_descend(g: &Graph, start: Coloring, floor: usize, tabu: &Tabu) -> Coloring {
    if !start.is_proper(g) {
        return start;
    }
    let start = if start.count() > g.len() {
        start.compacted()
    } else {
        start
    };
    let mut k = start.count();
    let mut best = start;
    while k > floor.max(1) {
        let found = match tabu.descent {
            Descent::Restart => tabucol(g, k - 1, tabu),
            Descent::Continue => search(g, k - 1, fold_smallest(g, best.colors(), k), tabu),
        };
        match found {
            Some(c) => {
                best = c;
                k -= 1;
            }
            None => break,
        }
    }
    best
}

/// `colors` (below `k`) with its smallest class folded onto the `k - 1` others: the class
/// swaps labels with color `k - 1`, then each of its vertices in index order takes the color
/// below `k - 1` fewest of its neighbours have (the lowest on ties).
fn fold_smallest(g: &Graph, colors: &[u32], k: usize) -> Vec<u32> {
    let mut size = vec![0usize; k];
    for &c in colors {
        size[c as usize] += 1;
    }
    let small = (0..k)
        .min_by_key(|&c| (size[c], std::cmp::Reverse(c)))
        .unwrap_or(0) as u32;
    let top = k as u32 - 1;
    let mut color: Vec<u32> = colors
        .iter()
        .map(|&c| {
            if c == small {
                top
            } else if c == top {
                small
            } else {
                c
            }
        })
        .collect();
    let mut count = vec![0u32; k];
    for v in 0..color.len() {
        if color[v] != top {
            continue;
        }
        count.iter_mut().for_each(|x| *x = 0);
        for &u in g.neighbours(v) {
            count[color[u as usize] as usize] += 1;
        }
        color[v] = (0..top).min_by_key(|&c| count[c as usize]).unwrap_or(0);
    }
    color
}
