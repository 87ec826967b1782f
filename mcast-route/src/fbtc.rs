//! FBTC, first build then color (Alg. 1).

use std::iter;

use crate::Router;
use crate::fctb::Built;
use crate::router::Members;
use crate::tree::{Edge, Tree};

/// A colorable FBTC tree: color, root, parent edges.
type Candidate = (u32, u32, Vec<(u32, Edge)>);

impl Router<'_> {
    /// Alg. 1: for each candidate root in order of load (step ②), build the tree bottom-up
    /// (step ③, Alg. 2) and color it first-fit (step ④); the first root whose tree can be
    /// colored wins. `None` when no root's tree can be colored (the caller merges).
    ///
    /// With [`Config::fbtc_root_tries`](crate::Config::fbtc_root_tries) = n > 1 (beyond the
    /// paper), the first n colorable roots are built and the one of least color kept (ties
    /// to the earlier root).
    ///
    /// Complexity: O(R·(T·P + T·C/64)) for R roots tried, T tree switches, P ports, C colors.
    pub(crate) fn fbtc(&mut self, m: &Members, d: u8) -> Option<Built> {
        let roots = self.candidate_roots(d, true);
        let tries = self.config.fbtc_root_tries.max(1);
        // (color, root, parent edges) of the best tree so far.
        let mut best: Option<Candidate> = None;
        let mut tried = 0;
        for root in roots {
            let parents = self.bottom_up(root, &m.sw, None);
            let color = self
                .colors
                .first_fit(iter::once(root).chain(parents.iter().map(|p| p.0)));
            // Steps ⑤–⑦: no color, try the next root.
            let Some(color) = color else { continue };
            if best.as_ref().is_none_or(|b| color < b.0) {
                best = Some((color, root, parents));
            }
            tried += 1;
            if tried >= tries {
                break;
            }
        }
        let (color, root, parents) = best?;
        let leaves: Vec<_> = self.leaves_of(m.terminals.iter()).collect();
        Some(Built::New(Tree::from_parts(color, root, &parents, &leaves)))
    }
}
