//! FBTC, first build then color (Alg. 1).

use std::iter;

use crate::Router;
use crate::fctb::Built;
use crate::router::Members;
use crate::tree::Tree;

impl Router<'_> {
    /// Alg. 1: for each candidate root in order of load (step ②), build the tree bottom-up
    /// (step ③, Alg. 2) and color it first-fit (step ④); the first root whose tree can be
    /// colored wins. `None` when no root's tree can be colored (the caller merges).
    ///
    /// Complexity: O(R·(T·P + T·C/64)) for R roots tried, T tree switches, P ports, C colors.
    pub(crate) fn fbtc(&mut self, m: &Members, d: u8) -> Option<Built> {
        let roots = self.candidate_roots(d, true);
        for root in roots {
            let parents = self.bottom_up(root, &m.sw);
            let color = self
                .colors
                .first_fit(iter::once(root).chain(parents.iter().map(|p| p.0)));
            // Steps ⑤–⑦: no color, try the next root.
            let Some(color) = color else { continue };
            let leaves: Vec<_> = self.leaves_of(m.terminals.iter()).collect();
            return Some(Built::New(Tree::from_parts(color, root, &parents, &leaves)));
        }
        None
    }
}
