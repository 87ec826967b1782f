//! Merging (Alg. 4) and the tree of a virtual group (Alg. 5 or rebuild).

use std::collections::{BTreeMap, BTreeSet};

use fabric_model::NodeId;

use crate::router::Members;
use crate::tree::Tree;
use crate::{GroupId, MergeStrategy, Regraft, Router, TreeId};

impl Router<'_> {
    /// Formula (1): the distance between a group and a tree is the mean, over the members of
    /// both, of each member's least hop distance to the other side. Returned as
    /// `(sum, count)` so that comparisons are exact.
    ///
    /// Complexity: O(|g|·|T|).
    pub(crate) fn distance(&self, m: &Members, tree: &Tree) -> (u64, u64) {
        let sw_of = |t: NodeId| self.attach[t.index()].map(|a| a.sw as usize);
        let mine: Vec<(NodeId, usize)> = m
            .terminals
            .iter()
            .filter_map(|&t| Some((t, sw_of(t)?)))
            .collect();
        let mut best_mine = vec![u64::MAX; mine.len()];
        let mut sum = 0u64;
        for &t in tree.members.keys() {
            let Some(st) = sw_of(t) else { continue };
            let row = self.hops.row(st);
            let mut best = u64::MAX;
            for (i, &(x, sx)) in mine.iter().enumerate() {
                let h = if x == t { 0 } else { u64::from(row[sx]) + 2 };
                best = best.min(h);
                best_mine[i] = best_mine[i].min(h);
            }
            sum += best;
        }
        sum += best_mine.iter().sum::<u64>();
        (sum, (mine.len() + tree.members.len()) as u64)
    }

    /// Alg. 4 step ①: the live tree nearest the group by formula (1), ties to the lowest id.
    fn nearest_tree(&self, m: &Members) -> Option<TreeId> {
        let mut best: Option<(TreeId, (u64, u64))> = None;
        for (i, t) in self.trees.iter().enumerate() {
            let Some(t) = t else { continue };
            let (s, n) = self.distance(m, t);
            if best.is_none_or(|(_, (bs, bn))| {
                u128::from(s) * u128::from(bn) < u128::from(bs) * u128::from(n)
            }) {
                best = Some((TreeId(i as u32), (s, n)));
            }
        }
        best.map(|(t, _)| t)
    }

    /// Alg. 4: merges the new group with existing groups into a virtual group (vMcg) that
    /// shares one tree and one color, and builds that tree. Returns the tree and the groups
    /// merged in.
    ///
    /// Optimistic step (①–④): the nearest tree by formula (1) and its color; if vMcg is not
    /// connected in `G_color` (the merged trees' switches counting as free), the pessimistic
    /// step (⑤–⑩) builds a temporary tree bottom-up in the whole fabric and merges every tree
    /// of that color on its switches. [`MergeStrategy::FewestGroupsColor`] skips the
    /// optimistic step and takes the color with the fewest groups.
    ///
    /// The tree is then built by Dijkstra in `G_color` from the reachable switch of least
    /// hop-table distance to vMcg's members (ties by entries in use), keeping every link of
    /// the old trees (Alg. 5) or rebuilding ([`Regraft::Rebuild`]).
    ///
    /// Complexity: O(Σ|T|·|g|) for formula (1), O(k·(S + L)) for k pessimistic rounds,
    /// O((S + L) log S) for Dijkstra.
    pub(crate) fn merge(&mut self, m: &Members, gid: GroupId) -> (TreeId, Vec<GroupId>) {
        let (color, first) = match self.config.merge {
            MergeStrategy::OptimisticThenPessimistic => {
                let t = self
                    .nearest_tree(m)
                    .expect("merging needs an existing tree");
                (self.tree_ref(t).color, Some(t))
            }
            MergeStrategy::FewestGroupsColor => {
                let span = self.colors.span();
                let g = &self.colors.groups_per_color;
                let c = (0..span)
                    .min_by_key(|&c| (g.get(c as usize).copied().unwrap_or(0), c))
                    .unwrap_or(0);
                (c, None)
            }
        };
        // Step ②: vMcg.
        let mut old: Vec<Tree> = Vec::new();
        let mut terminals: BTreeSet<NodeId> = m.terminals.iter().copied().collect();
        let take =
            |this: &mut Self, id: TreeId, old: &mut Vec<Tree>, terms: &mut BTreeSet<NodeId>| {
                let t = this.uninstall(id);
                terms.extend(t.members.keys().copied());
                old.push(t);
            };
        if let Some(t) = first {
            take(self, t, &mut old, &mut terminals);
        }
        let mut vm_sw: Vec<u32>;
        loop {
            vm_sw = terminals
                .iter()
                .filter_map(|t| self.attach[t.index()].map(|a| a.sw))
                .collect();
            vm_sw.sort_unstable();
            vm_sw.dedup();
            // Step ④: connected in G_color (the uninstalled trees' switches are free now)?
            let colors = &self.colors;
            let free = |x: u32| !colors.is_busy(x, color);
            if self.s.bfs(&self.g, vm_sw[0], u32::MAX, free, &vm_sw) {
                break;
            }
            // Steps ⑤–⑥: a temporary tree in the whole fabric.
            let d = self.max_dist(&vm_sw);
            let root_tmp = self
                .candidate_roots(d, false)
                .next()
                .expect("some switch is at the least distance");
            let parents = self.bottom_up(root_tmp, &vm_sw);
            // Steps ⑦–⑩: merge the trees of this color on its switches.
            let mut ids: Vec<TreeId> = std::iter::once(root_tmp)
                .chain(parents.iter().map(|p| p.0))
                .filter_map(|s| self.colors.tree_at(s, color))
                .collect();
            ids.sort_unstable();
            ids.dedup();
            assert!(
                !ids.is_empty(),
                "a temporary tree on free switches would have connected vMcg"
            );
            for id in ids {
                take(self, id, &mut old, &mut terminals);
            }
        }
        // The BFS of the last round left the reachable switches in the queue: the root is the
        // one of least hop-table distance to vMcg's members, then fewest entries, then index.
        let reach = std::mem::take(&mut self.s.queue);
        self.max_dist(&vm_sw);
        let root = reach
            .iter()
            .copied()
            .min_by_key(|&s| (self.s.maxd[s as usize], self.colors.in_use(s), s))
            .expect("the BFS reached vMcg's first switch");
        self.s.queue = reach;
        let owner: BTreeMap<u32, usize> = old
            .iter()
            .enumerate()
            .flat_map(|(k, t)| t.nodes.keys().map(move |&s| (s, k)))
            .collect();
        let keep = self.config.regraft == Regraft::KeepOldTree;
        let colors = &self.colors;
        let free = |x: u32| !colors.is_busy(x, color);
        let ok = self.s.dijkstra(
            &self.g,
            &self.efi,
            root,
            free,
            &vm_sw,
            u32::MAX,
            false,
            keep.then_some((old.as_slice(), &owner)),
        );
        assert!(ok, "vMcg is connected in G_color");
        let ends: Vec<u32> = if keep {
            vm_sw.iter().copied().chain(owner.keys().copied()).collect()
        } else {
            vm_sw.clone()
        };
        let parents = self.s.collect_paths(&self.g, ends.into_iter());
        let leaves: Vec<_> = self.leaves_of(terminals.iter()).collect();
        let mut tree = Tree::from_parts(color, root, &parents, &leaves);
        let mut merged = Vec::new();
        for t in &old {
            merged.extend(t.groups.iter().copied());
            for (&x, &n) in &t.members {
                *tree.members.entry(x).or_insert(0) += n;
            }
        }
        tree.groups.extend(merged.iter().copied());
        tree.groups.insert(gid);
        for &x in &m.terminals {
            *tree.members.entry(x).or_insert(0) += 1;
        }
        merged.sort_unstable();
        let id = self.new_tree_id();
        self.install(id, tree);
        (id, merged)
    }
}
