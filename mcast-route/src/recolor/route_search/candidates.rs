//! Each tree's candidate routes for the route-aware search, split into the switches every
//! route of the tree holds (its fixed part: the member switches at least) and the part
//! that varies (a body and a root), with the routes whose bodies are equal folded into
//! one body and a set of roots.
//!
//! On fat_tree(40) a tree across the core has 400 candidate roots (every core switch) but
//! only 20 routes up to the root: a core switch reaches one aggregation switch per pod, so
//! the 20 core switches above one aggregation index give one body (the aggregation
//! switches) and a set of 20 roots.

use fabric_model::hash::FxHashMap;

/// The routes of every tree, in compressed rows: tree `t`'s fixed switches are
/// `fixed[fixed_start[t]..fixed_start[t + 1]]`, its bodies the ids
/// `body_start[t]..body_start[t + 1]`; body `b`'s switches are
/// `body_sw[body_sw_start[b]..body_sw_start[b + 1]]` and its roots the root set
/// `body_roots[b]`.
#[derive(Debug, Clone)]
pub(crate) struct Candidates {
    /// Per tree, where its fixed switches start in `fixed` (one more entry at the end).
    fixed_start: Vec<u32>,
    /// Every tree's fixed switches, sorted per tree.
    fixed: Vec<u32>,
    /// Per tree, its first body id (one more entry at the end).
    body_start: Vec<u32>,
    /// Per body, where its switches start in `body_sw` (one more entry at the end).
    body_sw_start: Vec<u32>,
    /// Every body's switches, sorted per body.
    body_sw: Vec<u32>,
    /// Per body, its root set.
    body_roots: Vec<u32>,
    /// Per body, whether its roots are among the tree's fixed switches (then a root costs
    /// nothing beyond the fixed part).
    root_fixed: Vec<bool>,
    /// Per root set, where its switches start in `roots` (one more entry at the end);
    /// a root set is shared by the bodies (and trees) with the same roots.
    root_start: Vec<u32>,
    /// Every root set's switches, sorted per set.
    roots: Vec<u32>,
    /// Root set by its sorted switches.
    root_ids: FxHashMap<Vec<u32>, u32>,
}

impl Default for Candidates {
    /// No tree.
    fn default() -> Self {
        Self {
            fixed_start: vec![0],
            fixed: Vec::new(),
            body_start: vec![0],
            body_sw_start: vec![0],
            body_sw: Vec::new(),
            body_roots: Vec::new(),
            root_fixed: Vec::new(),
            root_start: vec![0],
            roots: Vec::new(),
            root_ids: FxHashMap::default(),
        }
    }
}

impl Candidates {
    /// Adds the next tree with its routes: `(root, switches)` with each route's switches
    /// sorted and holding its root; at least one route. The fixed part is the switches in
    /// every route; each route's body is the rest without its root, and routes with equal
    /// bodies (and roots equally fixed or not) share one body, in the order of their first
    /// route, with their roots sorted.
    ///
    /// Complexity: O(R · W log R) for R routes of W switches.
    pub(crate) fn push_tree(&mut self, routes: &[(u32, Vec<u32>)]) {
        let Some((_, first)) = routes.first() else {
            self.fixed_start.push(self.fixed.len() as u32);
            self.body_start.push(self.body_roots.len() as u32);
            return;
        };
        let fixed: Vec<u32> = first
            .iter()
            .copied()
            .filter(|s| routes.iter().all(|(_, sw)| sw.binary_search(s).is_ok()))
            .collect();
        // (body, root fixed) -> roots, in the order of first appearance.
        let mut bodies: Vec<(Vec<u32>, bool, Vec<u32>)> = Vec::new();
        for (root, sw) in routes {
            let root_fixed = fixed.binary_search(root).is_ok();
            let body: Vec<u32> = sw
                .iter()
                .copied()
                .filter(|s| s != root && fixed.binary_search(s).is_err())
                .collect();
            match bodies
                .iter_mut()
                .find(|(b, f, _)| *f == root_fixed && *b == body)
            {
                Some((_, _, roots)) => roots.push(*root),
                None => bodies.push((body, root_fixed, vec![*root])),
            }
        }
        self.fixed.extend_from_slice(&fixed);
        self.fixed_start.push(self.fixed.len() as u32);
        for (body, root_fixed, mut roots) in bodies {
            roots.sort_unstable();
            roots.dedup();
            let next = self.root_start.len() as u32 - 1;
            let id = *self.root_ids.entry(roots.clone()).or_insert(next);
            if id == next {
                self.roots.extend_from_slice(&roots);
                self.root_start.push(self.roots.len() as u32);
            }
            self.body_sw.extend_from_slice(&body);
            self.body_sw_start.push(self.body_sw.len() as u32);
            self.body_roots.push(id);
            self.root_fixed.push(root_fixed);
        }
        self.body_start.push(self.body_roots.len() as u32);
    }

    /// Trees.
    pub(crate) fn trees(&self) -> usize {
        self.fixed_start.len() - 1
    }

    /// Bodies over all trees.
    pub(crate) fn bodies(&self) -> usize {
        self.body_roots.len()
    }

    /// Root sets.
    pub(crate) fn root_sets(&self) -> usize {
        self.root_start.len() - 1
    }

    /// Tree `t`'s fixed switches, sorted.
    pub(crate) fn fixed(&self, t: usize) -> &[u32] {
        &self.fixed[self.fixed_start[t] as usize..self.fixed_start[t + 1] as usize]
    }

    /// Tree `t`'s bodies (ids).
    pub(crate) fn bodies_of(&self, t: usize) -> std::ops::Range<usize> {
        self.body_start[t] as usize..self.body_start[t + 1] as usize
    }

    /// Body `b`'s switches (neither fixed nor a root), sorted.
    pub(crate) fn body(&self, b: usize) -> &[u32] {
        &self.body_sw[self.body_sw_start[b] as usize..self.body_sw_start[b + 1] as usize]
    }

    /// Body `b`'s root set.
    pub(crate) fn root_set(&self, b: usize) -> usize {
        self.body_roots[b] as usize
    }

    /// Whether body `b`'s roots are fixed switches of its tree.
    pub(crate) fn root_fixed(&self, b: usize) -> bool {
        self.root_fixed[b]
    }

    /// Root set `r`'s switches, sorted.
    pub(crate) fn roots(&self, r: usize) -> &[u32] {
        &self.roots[self.root_start[r] as usize..self.root_start[r + 1] as usize]
    }

    /// The switches of tree `t` routed by body `b` from `root`: fixed, body, then the
    /// root when it is not fixed.
    pub(crate) fn route(&self, t: usize, b: usize, root: u32) -> impl Iterator<Item = u32> + '_ {
        let extra = (!self.root_fixed(b)).then_some(root);
        self.fixed(t)
            .iter()
            .chain(self.body(b))
            .copied()
            .chain(extra)
    }

    /// Per switch of `switches`, the trees holding it in their fixed part, the bodies
    /// holding it, and the root sets holding it (compressed rows, each `(start, items)`).
    ///
    /// Complexity: O(S + Σ fixed + Σ bodies + Σ root sets).
    pub(crate) fn by_switch(&self, switches: usize) -> [(Vec<u32>, Vec<u32>); 3] {
        let fixed = rows(
            switches,
            (0..self.trees()).flat_map(|t| self.fixed(t).iter().map(move |&s| (s, t as u32))),
        );
        let bodies = rows(
            switches,
            (0..self.bodies()).flat_map(|b| self.body(b).iter().map(move |&s| (s, b as u32))),
        );
        let roots = rows(
            switches,
            (0..self.root_sets()).flat_map(|r| self.roots(r).iter().map(move |&s| (s, r as u32))),
        );
        [fixed, bodies, roots]
    }
}

/// Compressed rows over `n` keys from `(key, item)` pairs, items in the order given.
fn rows(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for (k, _) in pairs.clone() {
        start[k as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut at = start.clone();
    let mut items = vec![0u32; start[n] as usize];
    for (k, x) in pairs {
        items[at[k as usize] as usize] = x;
        at[k as usize] += 1;
    }
    (start, items)
}
