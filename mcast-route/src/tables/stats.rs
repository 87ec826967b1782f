//! Statistics the paper reports: colors used and their lower bound, EFI, TFI, merges, height.

use std::fmt;

use crate::Router;

/// The figures of the paper's §4 for the router's current state.
///
/// Its `Display` is one line, e.g. `80 groups on 80 trees, 16 colors (lower bound 16), max
/// EFI 4, max TFI 1, 0 merged groups, max height excess 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Stats {
    /// Live groups.
    pub groups: usize,
    /// Live trees.
    pub trees: usize,
    /// Colors (MFT entries) used by at least one tree.
    pub colors_used: usize,
    /// Lower bound on colors without merging: the most live groups with a member on one switch.
    pub color_lower_bound: u32,
    /// The largest EFI over switch–switch links (groups whose traffic crosses the link).
    pub max_efi: u32,
    /// The largest TFI (groups sharing one tree).
    pub max_tfi: usize,
    /// Live groups that were merged with others (Alg. 4).
    pub merged_groups: usize,
    /// The largest excess of a group's height over its least possible height.
    pub max_height_excess: u32,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} groups on {} trees, {} colors (lower bound {}), max EFI {}, max TFI {}, \
             {} merged groups, max height excess {}",
            self.groups,
            self.trees,
            self.colors_used,
            self.color_lower_bound,
            self.max_efi,
            self.max_tfi,
            self.merged_groups,
            self.max_height_excess
        )
    }
}

impl Router<'_> {
    /// The statistics of the current state.
    ///
    /// # Complexity
    /// O(S + L + Σ group members · tree depth).
    #[must_use]
    pub fn stats(&self) -> Stats {
        let live = self.state.groups.iter().flatten();
        let max_efi = self
            .view
            .fabric
            .links()
            .iter()
            .zip(&self.state.efi)
            .filter(|(l, _)| {
                self.view.fabric.is_switch(l.ends[0].0) && self.view.fabric.is_switch(l.ends[1].0)
            })
            .map(|(_, &e)| e)
            .max()
            .unwrap_or(0);
        Stats {
            groups: live.clone().count(),
            trees: self.state.trees.iter().flatten().count(),
            colors_used: self
                .state
                .colors
                .trees_per_color
                .iter()
                .filter(|&&t| t > 0)
                .count(),
            color_lower_bound: self.state.attach_count.iter().copied().max().unwrap_or(0),
            max_efi,
            max_tfi: self
                .state
                .trees
                .iter()
                .flatten()
                .map(|t| t.groups().len())
                .max()
                .unwrap_or(0),
            merged_groups: live.clone().filter(|g| g.merged).count(),
            max_height_excess: live
                .map(|g| self.group_height(g).saturating_sub(self.min_height_of(g)))
                .max()
                .unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Stats;

    #[test]
    fn display_names_every_figure() {
        let s = Stats {
            groups: 80,
            trees: 79,
            colors_used: 16,
            color_lower_bound: 15,
            max_efi: 4,
            max_tfi: 2,
            merged_groups: 3,
            max_height_excess: 1,
        };
        assert_eq!(
            s.to_string(),
            "80 groups on 79 trees, 16 colors (lower bound 15), max EFI 4, max TFI 2, \
             3 merged groups, max height excess 1"
        );
    }
}
