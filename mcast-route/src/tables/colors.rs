//! Per-switch color state: busy bitmaps (`colorBusy`) and the tree on each color (`mcts`).

use crate::TreeId;

/// The paper's per-switch `colorBusy[color]` bitmaps and `mcts[color]` maps, plus per-color
/// counts of trees and groups.
#[derive(Debug, Clone, Default)]
pub(crate) struct ColorTable {
    limit: Option<u32>,
    /// Per switch, its busy bitmap. A `Vec`, not an inline `SmallVec<[u64; 4]>`: reading one
    /// color's bit on every switch of 2,048 (as `merge::FreeBits::of` does), 7 colors of 256,
    /// took 16.3 µs with `Vec`s and 23.9 µs with `SmallVec`s in one criterion run (`smallvec`
    /// group of `benches/criterion/benches/mcast_route.rs`).
    busy: Vec<Vec<u64>>,
    /// Per switch, `(color, tree)` sorted by color (small: a sorted vector beats a map). A
    /// `Vec`, not a `SmallVec<[_; 16]>`: in the same run filling every switch's list took
    /// 125 µs inline against 242 µs for 8 entries a switch, but 1.69 ms against 1.86 ms for
    /// 40 (spilled: fat trees hold 41 to 122 at the paper's sizes), a one-time cost per
    /// switch of a router's life, while inline storage would grow every switch's list from 24
    /// to 136 bytes.
    tree: Vec<Vec<(u32, TreeId)>>,
    pub(crate) trees_per_color: Vec<u32>,
    pub(crate) groups_per_color: Vec<u32>,
    scratch: Vec<u64>,
}

impl ColorTable {
    pub(crate) fn new(switches: usize, limit: Option<u32>) -> Self {
        Self {
            limit,
            busy: vec![Vec::new(); switches],
            tree: vec![Vec::new(); switches],
            ..Self::default()
        }
    }

    #[inline]
    pub(crate) fn is_busy(&self, sw: u32, color: u32) -> bool {
        let (w, b) = (color as usize / 64, color % 64);
        self.busy[sw as usize]
            .get(w)
            .is_some_and(|x| x >> b & 1 == 1)
    }

    #[inline]
    pub(crate) fn tree_at(&self, sw: u32, color: u32) -> Option<TreeId> {
        if self.is_busy(sw, color) {
            let e = &self.tree[sw as usize];
            e.binary_search_by_key(&color, |x| x.0).ok().map(|i| e[i].1)
        } else {
            None
        }
    }

    /// Entries in use on `sw`.
    pub(crate) fn in_use(&self, sw: u32) -> usize {
        self.tree[sw as usize].len()
    }

    /// Whether every entry of `sw` is in use.
    pub(crate) fn is_full(&self, sw: u32) -> bool {
        self.limit.is_some_and(|l| self.in_use(sw) >= l as usize)
    }

    /// `(color, tree)` of every entry of `sw`, by color.
    pub(crate) fn entries(&self, sw: u32) -> &[(u32, TreeId)] {
        &self.tree[sw as usize]
    }

    pub(crate) fn set(&mut self, sw: u32, color: u32, tree: TreeId) {
        let (w, b) = (color as usize / 64, color % 64);
        let words = &mut self.busy[sw as usize];
        if words.len() <= w {
            words.resize(w + 1, 0);
        }
        // Its callers, `State::install` and `State::reinstall_with`, check in every build
        // that no other tree holds the color on the switches they set.
        debug_assert!(
            words[w] >> b & 1 == 0,
            "color {color} busy twice on switch {sw}"
        );
        words[w] |= 1 << b;
        let e = &mut self.tree[sw as usize];
        if e.len() == e.capacity() {
            // Sixteen entries at first, not four then eight: most switches hold more, and
            // every growth is a reallocation.
            e.reserve(e.len().max(16));
        }
        let i = e.partition_point(|x| x.0 < color);
        e.insert(i, (color, tree));
    }

    pub(crate) fn clear(&mut self, sw: u32, color: u32) {
        let (w, b) = (color as usize / 64, color % 64);
        if let Some(x) = self.busy[sw as usize].get_mut(w) {
            *x &= !(1 << b);
        }
        let e = &mut self.tree[sw as usize];
        if let Ok(i) = e.binary_search_by_key(&color, |x| x.0) {
            e.remove(i);
        }
    }

    /// Adds `trees` trees and `groups` groups to `color`'s counts (negative to remove).
    pub(crate) fn count(&mut self, color: u32, trees: i64, groups: i64) {
        let c = color as usize;
        if self.trees_per_color.len() <= c {
            self.trees_per_color.resize(c + 1, 0);
            self.groups_per_color.resize(c + 1, 0);
        }
        self.trees_per_color[c] = (i64::from(self.trees_per_color[c]) + trees) as u32;
        self.groups_per_color[c] = (i64::from(self.groups_per_color[c]) + groups) as u32;
    }

    /// The number of colors a search may try: the limit, or with unlimited entries every color
    /// in use plus one fresh color.
    pub(crate) fn span(&self) -> u32 {
        self.limit
            .unwrap_or_else(|| self.trees_per_color.len() as u32 + 1)
    }

    /// Whether first-fit colors every tree: with unlimited entries, or while some color
    /// below the limit has never been installed on any switch (colors are installed with
    /// their counts, so every color from `trees_per_color.len()` on is free everywhere).
    pub(crate) fn colors_every_tree(&self) -> bool {
        self.limit
            .is_none_or(|l| (self.trees_per_color.len() as u32) < l)
    }

    /// ORs the first `acc.len()` words of `sw`'s busy bitmap into `acc`, and returns whether
    /// every color below `below` is then busy in `acc` (`acc` holds at least `below` bits):
    /// a tree holding the switches OR-ed so far cannot be colored below `below`.
    ///
    /// `full` counts the leading words of `acc` known to be all busy (start it at 0 for a
    /// fresh `acc`): those are skipped, since OR-ing into them changes nothing, and it is
    /// advanced past the words that become all busy.
    ///
    /// Complexity: O(`below` / 64 − `full`) words.
    #[inline]
    pub(crate) fn or_busy_covers(
        &self,
        sw: u32,
        acc: &mut [u64],
        full: &mut usize,
        below: u32,
    ) -> bool {
        let busy = &self.busy[sw as usize];
        if let (Some(a), Some(w)) = (acc.get_mut(*full..), busy.get(*full..)) {
            for (a, w) in a.iter_mut().zip(w) {
                *a |= w;
            }
        }
        while acc.get(*full) == Some(&u64::MAX) {
            *full += 1;
        }
        Self::first_free(acc, *full) >= below
    }

    /// The first color free in `acc` (busy bitmap words) whose first `full` words are all
    /// busy: the first color free on every switch OR-ed into it by
    /// [`or_busy_covers`](Self::or_busy_covers) (`acc.len()` · 64 when none is).
    ///
    /// Complexity: O(1).
    pub(crate) fn first_free(acc: &[u64], full: usize) -> u32 {
        acc.get(full)
            .map_or(acc.len() * 64, |w| full * 64 + w.trailing_ones() as usize) as u32
    }

    /// Alg. 1 step ④ (`color_mcast_tree`): the first color free on every switch of `switches`,
    /// found by OR-ing their busy bitmaps. `None` when all colors within the limit are taken.
    ///
    /// Complexity: O(|switches| · N_color / 64).
    pub(crate) fn first_fit(&mut self, switches: impl Iterator<Item = u32>) -> Option<u32> {
        self.scratch.clear();
        for sw in switches {
            let words = &self.busy[sw as usize];
            if self.scratch.len() < words.len() {
                self.scratch.resize(words.len(), 0);
            }
            for (acc, w) in self.scratch.iter_mut().zip(words) {
                *acc |= w;
            }
        }
        let free = self
            .scratch
            .iter()
            .enumerate()
            .find(|&(_, &w)| w != u64::MAX)
            .map_or(self.scratch.len() as u32 * 64, |(i, w)| {
                i as u32 * 64 + w.trailing_ones()
            });
        match self.limit {
            Some(l) if free >= l => None,
            _ => Some(free),
        }
    }

    /// The colors busy on some switch of the last [`first_fit`](Self::first_fit)'s
    /// switches, as bitmap words (colors past the end are free on all of them).
    pub(crate) fn last_fit_busy(&self) -> &[u64] {
        &self.scratch
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.busy.capacity() * size_of::<Vec<u64>>()
            + self.busy.iter().map(|w| w.capacity() * 8).sum::<usize>()
            + self.tree.capacity() * size_of::<Vec<(u32, TreeId)>>()
            + self
                .tree
                .iter()
                .map(|m| m.capacity() * size_of::<(u32, TreeId)>())
                .sum::<usize>()
            + (self.trees_per_color.capacity() + self.groups_per_color.capacity()) * 4
            + self.scratch.capacity() * 8
    }

    /// The lowest color with no tree anywhere (the baselines' `get_new_mlid`).
    pub(crate) fn lowest_unused(&self) -> Option<u32> {
        let c = self
            .trees_per_color
            .iter()
            .position(|&t| t == 0)
            .map_or(self.trees_per_color.len() as u32, |c| c as u32);
        match self.limit {
            Some(l) if c >= l => None,
            _ => Some(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_skips_colors_busy_anywhere_on_the_tree() {
        let mut t = ColorTable::new(3, Some(3));
        t.set(0, 0, TreeId(0));
        t.set(1, 1, TreeId(1));
        assert_eq!(t.first_fit([0, 1].into_iter()), Some(2));
        assert_eq!(t.first_fit([2].into_iter()), Some(0));
        t.set(2, 2, TreeId(2));
        assert_eq!(t.first_fit([0, 1, 2].into_iter()), None);
        t.clear(1, 1);
        assert_eq!(t.first_fit([0, 1, 2].into_iter()), Some(1));
        assert!(!t.is_busy(1, 1) && t.tree_at(0, 0) == Some(TreeId(0)));
    }

    #[test]
    fn unlimited_first_fit_opens_a_new_color_past_a_full_word() {
        let mut t = ColorTable::new(1, None);
        for c in 0..64 {
            t.set(0, c, TreeId(c));
        }
        assert_eq!(t.first_fit([0].into_iter()), Some(64));
        assert!(!t.is_full(0));
    }
}
