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
        // Every tree holds the member switches: no color free on all of them, no tree can be
        // colored (the paper finds this out by trying every root), and a tree colored with
        // the first color free on them cannot be beaten.
        let floor = self.colors.first_fit(m.sw.iter().copied())?;
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
            if tried >= tries || color == floor {
                break;
            }
        }
        let (color, root, parents) = best?;
        let leaves: Vec<_> = self.leaves_of(m.terminals.iter()).collect();
        Some(Built::New(Tree::from_parts(color, root, &parents, &leaves)))
    }
}

#[cfg(test)]
mod tests {
    use std::iter;

    use fabric_model::{HopTable, generators};

    use crate::fctb::Built;
    use crate::{Config, Entries, Policy, Router, patterns};

    /// With every root allowed, FBTC's color is the least first-fit color over all
    /// candidate roots (the early stop at the member switches' first free color loses
    /// nothing), and it fails exactly when every root fails.
    #[test]
    fn root_tries_reach_the_least_color_of_all_roots() {
        let f = generators::fat_tree(6).unwrap();
        let h = HopTable::new(&f).unwrap();
        let cfg = Config {
            policy: Policy::FbtcOnly,
            fbtc_root_tries: u32::MAX,
            ..Config::mr4lms(Entries::Limit(14))
        };
        let mut r = Router::new(&f, &h, cfg).unwrap();
        let (mut colored, mut failed) = (0, 0);
        for g in patterns::random_groups(&f, 80, 5, 21).unwrap() {
            let m = r.validate(&g).unwrap();
            let d = r.max_dist(&m.sw);
            let roots = r.candidate_roots(d, true).all();
            let best = roots
                .iter()
                .filter_map(|&root| {
                    let parents = r.bottom_up(root, &m.sw, None);
                    r.colors
                        .first_fit(iter::once(root).chain(parents.iter().map(|p| p.0)))
                })
                .min();
            let d = r.max_dist(&m.sw);
            match (r.fbtc(&m, d), best) {
                (Some(Built::New(t)), Some(c)) => {
                    assert_eq!(t.color, c, "group {g:?}");
                    colored += 1;
                }
                (None, None) => failed += 1,
                (got, want) => panic!("group {g:?}: {got:?} vs {want:?}"),
            }
            r.create_group(&g).unwrap();
        }
        assert!(colored > 20 && failed > 0, "{colored} {failed}");
    }

    /// Alg. 2 with the least-load path choice: same height as the paper's greedy walk, and
    /// the first member's path to the root (walked whole by both) is a least-hop path whose
    /// summed EFI is no more than the greedy walk's.
    #[test]
    fn least_load_bottom_up_keeps_height_and_takes_least_loaded_paths() {
        let f = generators::torus(&[7, 6], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
        for g in patterns::random_groups(&f, 25, 4, 8).unwrap() {
            r.create_group(&g).unwrap();
        }
        let path = |r: &Router<'_>, parents: &[(u32, crate::tree::Edge)], mut x: u32| {
            let (mut hops, mut cost) = (0, 0u64);
            while let Some(&(_, e)) = parents.iter().find(|p| p.0 == x) {
                hops += 1;
                cost += u64::from(r.efi[e.link.index()]);
                x = e.parent;
            }
            (x, hops, cost)
        };
        let mut cheaper = 0;
        for g in patterns::random_groups(&f, 30, 4, 9).unwrap() {
            let m = r.validate(&g).unwrap();
            let d = r.max_dist(&m.sw);
            let root = r.candidate_roots(d, true).all()[0];
            r.config.bottom_up = crate::BottomUp::Greedy;
            let greedy = r.bottom_up(root, &m.sw, None);
            r.config.bottom_up = crate::BottomUp::LeastLoadPath;
            let least = r.bottom_up(root, &m.sw, None);
            let row = h.row(root as usize);
            for &s in &m.sw {
                let (top, hops, _) = path(&r, &least, s);
                assert_eq!((top, hops), (root, row[s as usize]), "group {g:?}");
            }
            let (a, b) = (path(&r, &least, m.sw[0]).2, path(&r, &greedy, m.sw[0]).2);
            assert!(a <= b, "group {g:?}: {a} > {b}");
            cheaper += usize::from(a < b);
        }
        assert!(cheaper > 0);
    }
}
