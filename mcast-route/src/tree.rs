//! A multicast tree (MCT): switches with one parent each, member terminals as leaves.
//!
//! Stored compactly, because a router holds thousands of trees of hundreds of switches: the
//! switches in one sorted vector, their parent edges beside them, the children in compressed
//! rows, the leaves in one sorted vector (24 bytes a switch, 16 a leaf). A tree is immutable
//! once built; deletion rebuilds it from its parts ([`Tree::prune`]).

use fabric_model::{LinkId, NodeId, PortNo};

use crate::{GroupId, PortSet};

mod chain;
mod depth;

/// A tree edge from a switch up to its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Edge {
    /// Parent switch index.
    pub(crate) parent: u32,
    /// Port on the child leading up.
    pub(crate) up_port: PortNo,
    /// Port on the parent leading down.
    pub(crate) down_port: PortNo,
    /// The cable.
    pub(crate) link: LinkId,
}

/// The "cable" of a switch member's leaf: its own port 0, no link.
pub(crate) const NO_LINK: LinkId = LinkId::new(u32::MAX);

/// `Edge::parent` of the root.
const NO_PARENT: u32 = u32::MAX;

/// The root's placeholder edge.
const ROOT_EDGE: Edge = Edge {
    parent: NO_PARENT,
    up_port: PortNo::new(0),
    down_port: PortNo::new(0),
    link: LinkId::new(u32::MAX),
};

/// A member terminal hanging off a tree switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leaf {
    pub(crate) port: PortNo,
    pub(crate) terminal: NodeId,
    pub(crate) link: LinkId,
}

/// A multicast tree shared by one or more groups (its TFI is the number of groups).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tree {
    pub(crate) color: u32,
    pub(crate) root: u32,
    /// Switch indices, sorted; node `i` is `sw[i]`.
    sw: Vec<u32>,
    /// Node `i`'s edge to its parent ([`ROOT_EDGE`] for the root).
    up: Vec<Edge>,
    /// Node `i`'s children are `kids[kid_start[i]..kid_start[i + 1]]` (node numbers).
    kid_start: Vec<u32>,
    kids: Vec<u32>,
    /// `(node, leaf)` sorted by node then port.
    leaves: Vec<(u32, Leaf)>,
    /// `(member terminal, number of the tree's groups holding it)`, sorted by terminal.
    members: Vec<(NodeId, u32)>,
    /// The groups using the tree, sorted.
    groups: Vec<GroupId>,
    /// Node `i`'s depth ([`depth::NO_DEPTH`] when the root does not reach it), then the
    /// number of switches other than the root with no child and no leaf (a prune removes
    /// them), then per depth the leaves on switches at that depth ([`depth`]).
    depth: Vec<u32>,
}

/// Switch → node numbers of the tree being built, dense over the fabric's switches and reused
/// from build to build ([`Tree::from_parts_in`]): lookups without a search, and the switches
/// in order without a sort.
#[derive(Debug, Clone, Default)]
pub(crate) struct SwitchIndex {
    /// One bit a switch, all clear between builds.
    bits: Vec<u64>,
    /// Per switch, its node number in the last build that held it.
    node: Vec<u32>,
}

impl SwitchIndex {
    /// An index over `switches` switches.
    pub(crate) fn new(switches: usize) -> Self {
        Self {
            bits: vec![0; switches.div_ceil(64)],
            node: vec![0; switches],
        }
    }

    /// Bytes held, at capacity.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.bits.capacity() * 8 + self.node.capacity() * 4
    }

    /// `root` and every child of `parents`, sorted and without repeats, with their node
    /// numbers recorded: by setting their bits and reading the set bits back in order
    /// (clearing them), or by a sort when the switches are few beside the bitmap.
    ///
    /// Complexity: O(T + S/64) for T switches of S, or O(T log T) for the sort.
    fn switches(&mut self, root: u32, parents: &[(u32, Edge)]) -> Vec<u32> {
        let children = parents.iter().map(|&(child, _)| child);
        let top = children.clone().chain([root]).max().unwrap_or(root) as usize;
        if top >= self.node.len() {
            self.node.resize(top + 1, 0);
            self.bits.resize((top + 1).div_ceil(64), 0);
        }
        let mut sw: Vec<u32> = Vec::with_capacity(parents.len() + 1);
        if (parents.len() + 1) * 8 < self.bits.len() {
            sw.push(root);
            sw.extend(children);
            sw.sort_unstable();
            sw.dedup();
        } else {
            for s in children.chain([root]) {
                crate::bits::set(&mut self.bits, s as usize);
            }
            sw.extend(crate::bits::ones(&self.bits).map(|s| s as u32));
            self.bits.fill(0);
        }
        for (i, &s) in sw.iter().enumerate() {
            self.node[s as usize] = i as u32;
        }
        sw
    }
}

/// A [`Leaf`] as a key ordered by port first (then terminal and link, for a total order).
type LeafKey = (PortNo, NodeId, LinkId);

/// `items` (node, value) for nodes below `n` as rows: the row starts (`n + 1` of them) and
/// the values, row by row, each row sorted and without repeats: the order and contents that
/// sorting the pairs and removing repeats gives, by a counting sort on the node and a sort
/// of each (short) row.
///
/// Complexity: O(n + k·r) for k items in rows of at most r.
fn rows<T: Copy + Ord>(n: usize, items: &[(u32, T)]) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; n + 1];
    for &(i, _) in items {
        start[i as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let Some(&(_, fill)) = items.first() else {
        return (start, Vec::new());
    };
    let mut vals = vec![fill; items.len()];
    // `start[i]` walks row i's slots; it ends at row i + 1's start.
    for &(i, v) in items {
        let at = &mut start[i as usize];
        vals[*at as usize] = v;
        *at += 1;
    }
    start.copy_within(0..n, 1);
    start[0] = 0;
    // Sort each row by insertion (rows hold a few items) and drop repeats, packing the rows.
    let mut w = 0;
    for i in 0..n {
        let (lo, hi) = (start[i] as usize, start[i + 1] as usize);
        for j in lo + 1..hi {
            let mut k = j;
            while k > lo && vals[k - 1] > vals[k] {
                vals.swap(k - 1, k);
                k -= 1;
            }
        }
        start[i] = w as u32;
        for j in lo..hi {
            // `vals[j - 1]` still holds its value: writes stay at or below the read.
            if j == lo || vals[j] != vals[j - 1] {
                vals[w] = vals[j];
                w += 1;
            }
        }
    }
    start[n] = w as u32;
    vals.truncate(w);
    (start, vals)
}

impl Tree {
    /// The tree of [`from_parts`](Self::from_parts) from its switches `sw`, sorted and
    /// without repeats, and `at(sw, s)`, the node number of switch `s` (which panics for a
    /// switch not in `sw`).
    ///
    /// Complexity: O(T) lookups for T switches and leaves, and the rows' sorts.
    fn assemble(
        color: u32,
        root: u32,
        sw: Vec<u32>,
        at: impl Fn(&[u32], u32) -> u32,
        parents: &[(u32, Edge)],
        leaves: &[(u32, Leaf)],
    ) -> Self {
        let n = sw.len();
        let at = |s: u32| at(&sw, s);
        let mut up = vec![ROOT_EDGE; n];
        // (parent node, (down port, child node)): the children rows.
        let mut pairs: Vec<(u32, (PortNo, u32))> = Vec::with_capacity(parents.len());
        for &(child, e) in parents {
            let c = at(child);
            up[c as usize] = e;
            pairs.push((at(e.parent), (e.down_port, c)));
        }
        let (kid_start, kids) = rows(n, &pairs);
        let kids = kids.into_iter().map(|(_, c)| c).collect();
        let by_node: Vec<(u32, LeafKey)> = leaves
            .iter()
            .map(|&(s, l)| (at(s), (l.port, l.terminal, l.link)))
            .collect();
        let (leaf_start, leaf_keys) = rows(n, &by_node);
        let mut leaves = Vec::with_capacity(leaf_keys.len());
        for i in 0..n {
            let row = &leaf_keys[leaf_start[i] as usize..leaf_start[i + 1] as usize];
            leaves.extend(row.iter().map(|&(port, terminal, link)| {
                (
                    i as u32,
                    Leaf {
                        port,
                        terminal,
                        link,
                    },
                )
            }));
        }
        let mut t = Self {
            color,
            root,
            sw,
            up,
            kid_start,
            kids,
            leaves,
            members: Vec::new(),
            groups: Vec::new(),
            depth: Vec::new(),
        };
        t.compute_depths();
        t
    }

    /// [`from_parts`](Self::from_parts) with `index`'s dense switch numbers instead of a
    /// sort and searches: the same tree.
    ///
    /// Complexity: O(T + S/64) for T switches and leaves of S switches, and the rows' sorts.
    pub(crate) fn from_parts_in(
        index: &mut SwitchIndex,
        color: u32,
        root: u32,
        parents: &[(u32, Edge)],
        leaves: &[(u32, Leaf)],
    ) -> Self {
        let mut sw = index.switches(root, parents);
        sw.shrink_to_fit();
        let node = &index.node;
        let at = |sw: &[u32], s: u32| {
            node.get(s as usize)
                .copied()
                .filter(|&i| sw.get(i as usize) == Some(&s))
                .expect("a parent or leaf switch is the root or a child")
        };
        Self::assemble(color, root, sw, at, parents, leaves)
    }

    /// A tree from parent edges (child switch, edge) and leaves (switch, leaf); the root is
    /// always present. Every switch named by an edge or a leaf must reach the root through
    /// the edges. No member or group yet.
    ///
    /// Complexity: O(T log T) for T switches and leaves.
    pub(crate) fn from_parts(
        color: u32,
        root: u32,
        parents: &[(u32, Edge)],
        leaves: &[(u32, Leaf)],
    ) -> Self {
        // Every parent and every leaf's switch reaches the root, so is the root or a child:
        // the switches are those (the lookups below check it).
        let mut sw: Vec<u32> = Vec::with_capacity(parents.len() + 1);
        sw.push(root);
        sw.extend(parents.iter().map(|&(child, _)| child));
        sw.sort_unstable();
        sw.dedup();
        sw.shrink_to_fit();
        let at = |sw: &[u32], s: u32| {
            sw.binary_search(&s)
                .expect("a parent or leaf switch is the root or a child") as u32
        };
        Self::assemble(color, root, sw, at, parents, leaves)
    }

    /// The tree [`from_parts`](Self::from_parts) builds, with its members and groups, from
    /// parts already in its order: `sw` the switches sorted (the root among them),
    /// `parent_of` each switch's edge up (`None` for the root only), `node_of` a switch's
    /// position in `sw`, `leaves` as `(node, leaf)` sorted by node then port and distinct,
    /// `members` sorted by terminal and distinct, `groups` sorted and distinct. The
    /// children rows come from a counting pass over the parents (each row then sorted by
    /// port) instead of a sort of every edge, and no switch is searched for: a merged tree
    /// of thousands of leaves is assembled in linear time.
    ///
    /// Complexity: O(T + Σ k log k) for T switches and leaves, k children a switch.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_sorted(
        color: u32,
        root: u32,
        sw: Vec<u32>,
        mut parent_of: impl FnMut(u32) -> Option<Edge>,
        node_of: impl Fn(u32) -> u32,
        leaves: Vec<(u32, Leaf)>,
        members: Vec<(NodeId, u32)>,
        groups: Vec<GroupId>,
    ) -> Self {
        debug_assert!(sw.is_sorted() && sw.binary_search(&root).is_ok());
        debug_assert!(leaves.is_sorted_by_key(|&(i, l)| (i, l.port)));
        debug_assert!(members.is_sorted_by_key(|&(t, _)| t) && groups.is_sorted());
        let n = sw.len();
        let mut up = Vec::with_capacity(n);
        // Children a node, shifted by one (then their starts).
        let mut kid_start = vec![0u32; n + 1];
        for &x in &sw {
            let e = parent_of(x);
            // In every build (one comparison a switch): a switch other than the root without
            // a parent would cut its subtree off the group's packets.
            assert_eq!(
                e.is_none(),
                x == root,
                "switch {x}: only the root lacks a parent"
            );
            match e {
                Some(e) => {
                    kid_start[node_of(e.parent) as usize + 1] += 1;
                    up.push(e);
                }
                None => up.push(ROOT_EDGE),
            }
        }
        for i in 0..n {
            kid_start[i + 1] += kid_start[i];
        }
        let mut fill = kid_start.clone();
        let mut kids = vec![0u32; kid_start[n] as usize];
        for (c, e) in up.iter().enumerate() {
            if e.parent != NO_PARENT {
                let at = &mut fill[node_of(e.parent) as usize];
                kids[*at as usize] = c as u32;
                *at += 1;
            }
        }
        // Rows by down port (a port leads to one child): from_parts's (parent, port, child).
        for i in 0..n {
            let row = &mut kids[kid_start[i] as usize..kid_start[i + 1] as usize];
            if row.len() > 1 {
                row.sort_unstable_by_key(|&c| up[c as usize].down_port);
            }
        }
        let mut t = Self {
            color,
            root,
            sw,
            up,
            kid_start,
            kids,
            leaves,
            members,
            groups,
            depth: Vec::new(),
        };
        t.compute_depths();
        t
    }

    /// The node number of switch `sw`.
    #[inline]
    fn node(&self, sw: u32) -> Option<usize> {
        self.sw.binary_search(&sw).ok()
    }

    /// The node's edge to its parent, `None` for the root.
    #[inline]
    fn edge(&self, i: usize) -> Option<Edge> {
        let e = self.up[i];
        (e.parent != NO_PARENT).then_some(e)
    }

    fn kids_of(&self, i: usize) -> &[u32] {
        &self.kids[self.kid_start[i] as usize..self.kid_start[i + 1] as usize]
    }

    fn leaves_of(&self, i: usize) -> &[(u32, Leaf)] {
        let lo = self.leaves.partition_point(|&(n, _)| (n as usize) < i);
        let hi = self.leaves.partition_point(|&(n, _)| n as usize <= i);
        &self.leaves[lo..hi]
    }

    /// The tree's switches, by index.
    pub(crate) fn switches(&self) -> &[u32] {
        &self.sw
    }

    /// Every switch with its edge to its parent (`None` for the root), by switch.
    pub(crate) fn parents(&self) -> impl Iterator<Item = (u32, Option<Edge>)> + '_ {
        (0..self.sw.len()).map(|i| (self.sw[i], self.edge(i)))
    }

    /// The forwarding ports of switch `sw`: up, children, member leaves.
    pub(crate) fn port_set(&self, sw: u32) -> Option<PortSet> {
        Some(self.tree_ports(sw)?.chain(self.leaf_ports(sw)).collect())
    }

    /// The ports of `sw` leading to tree switches (its parent, then its children).
    pub(crate) fn tree_ports(&self, sw: u32) -> Option<impl Iterator<Item = PortNo> + '_> {
        let i = self.node(sw)?;
        Some(
            self.edge(i).map(|e| e.up_port).into_iter().chain(
                self.kids_of(i)
                    .iter()
                    .map(|&c| self.up[c as usize].down_port),
            ),
        )
    }

    /// The node number of switch `sw`, if it is in the tree.
    pub(crate) fn node_of(&self, sw: u32) -> Option<u32> {
        self.node(sw).map(|i| i as u32)
    }

    /// Node `i`'s link up as `(parent switch, port on the node's switch, port on the
    /// parent)`, `None` for the root.
    #[inline]
    pub(crate) fn up_link(&self, i: u32) -> Option<(u32, PortNo, PortNo)> {
        self.edge(i as usize)
            .map(|e| (e.parent, e.up_port, e.down_port))
    }

    /// Node `i`'s links down as `(child switch, child node, port on the node's switch,
    /// port on the child)`, by port (the order of [`tree_ports`](Self::tree_ports) after
    /// the parent's).
    pub(crate) fn down_links(
        &self,
        i: u32,
    ) -> impl Iterator<Item = (u32, u32, PortNo, PortNo)> + '_ {
        self.kids_of(i as usize).iter().map(|&c| {
            let e = self.up[c as usize];
            (self.sw[c as usize], c, e.down_port, e.up_port)
        })
    }

    fn leaf_ports(&self, sw: u32) -> impl Iterator<Item = PortNo> + '_ {
        self.node(sw)
            .map_or(&[][..], |i| self.leaves_of(i))
            .iter()
            .map(|(_, l)| l.port)
    }

    /// Every link of the tree (switch–switch edges, then terminal leaves).
    pub(crate) fn links(&self) -> impl Iterator<Item = LinkId> + '_ {
        self.up
            .iter()
            .filter(|e| e.parent != NO_PARENT)
            .map(|e| e.link)
            .chain(self.leaf_links())
    }

    /// Every switch–switch link of the tree as `(child switch, parent switch, link)`.
    pub(crate) fn switch_links(&self) -> impl Iterator<Item = (u32, u32, LinkId)> + '_ {
        self.sw
            .iter()
            .zip(&self.up)
            .filter(|(_, e)| e.parent != NO_PARENT)
            .map(|(&s, e)| (s, e.parent, e.link))
    }

    /// Every terminal link of the tree (its leaves').
    pub(crate) fn leaf_links(&self) -> impl Iterator<Item = LinkId> + '_ {
        self.leaves
            .iter()
            .map(|(_, l)| l.link)
            .filter(|&l| l != NO_LINK)
    }

    /// Node `i`'s edge up, `None` for the root.
    pub(crate) fn edge_of(&self, i: u32) -> Option<Edge> {
        self.edge(i as usize)
    }

    /// Every leaf as `(switch, leaf)`, by switch then port.
    pub(crate) fn leaves(&self) -> impl Iterator<Item = (u32, Leaf)> + '_ {
        self.leaves.iter().map(|&(i, l)| (self.sw[i as usize], l))
    }

    /// Every switch–switch edge as `(child switch, edge up)`.
    pub(crate) fn edges(&self) -> impl Iterator<Item = (u32, Edge)> + '_ {
        self.sw
            .iter()
            .zip(&self.up)
            .filter(|(_, e)| e.parent != NO_PARENT)
            .map(|(&s, &e)| (s, e))
    }

    /// This tree with the edges `parents` and the leaves `leaves` added (their switches
    /// joined to the tree through them) and the same color, root, members and groups: the
    /// tree [`from_parts`](Self::from_parts) builds from this tree's parts and these.
    ///
    /// When every child of `parents` is a switch new to the tree, given once (a graft
    /// path), the new switches are merged into the sorted switches and the rows edited in
    /// one pass each (old node numbers shift up by the new switches before them, which
    /// keeps every row's order), instead of collecting every edge and leaf and building
    /// the tree again; otherwise it is built again from its parts.
    ///
    /// Complexity: O(T + k log k) for T switches and leaves and k added parts; O(T log T)
    /// when built again.
    pub(crate) fn grown(&self, parents: &[(u32, Edge)], leaves: &[(u32, Leaf)]) -> Self {
        self.grown_in_place(parents, leaves)
            .unwrap_or_else(|| self.grown_rebuilt(parents, leaves))
    }

    /// [`grown`](Self::grown)'s edit of the rows, `None` when a child of `parents` is in the
    /// tree or given twice, or a parent or leaf switch is neither in the tree nor a child.
    fn grown_in_place(&self, parents: &[(u32, Edge)], leaves: &[(u32, Leaf)]) -> Option<Self> {
        // The new switches, sorted and distinct, none in the tree.
        let mut fresh: Vec<(u32, Edge)> = parents.to_vec();
        fresh.sort_unstable_by_key(|&(c, _)| c);
        if fresh.windows(2).any(|w| w[0].0 == w[1].0)
            || fresh.iter().any(|&(c, _)| self.node(c).is_some())
        {
            return None;
        }
        let (n, k) = (self.sw.len(), fresh.len());
        // The merged switches, their edges up and depths (the new ones' below), and each
        // old node's new number.
        let mut sw = Vec::with_capacity(n + k);
        let mut up = Vec::with_capacity(n + k);
        let counts = self.leaf_counts_by_depth();
        let mut depth = Vec::with_capacity(n + k + 2 + counts.len());
        let mut renum = Vec::with_capacity(n);
        let mut fresh_at: Vec<u32> = Vec::with_capacity(k);
        let mut j = 0;
        for (i, &s) in self.sw.iter().enumerate() {
            while j < k && fresh[j].0 < s {
                fresh_at.push(sw.len() as u32);
                sw.push(fresh[j].0);
                up.push(fresh[j].1);
                depth.push(depth::NO_DEPTH);
                j += 1;
            }
            renum.push(sw.len() as u32);
            sw.push(s);
            up.push(self.up[i]);
            depth.push(self.depth[i]);
        }
        for &(c, e) in &fresh[j..] {
            fresh_at.push(sw.len() as u32);
            sw.push(c);
            up.push(e);
            depth.push(depth::NO_DEPTH);
        }
        let at = |s: u32| sw.binary_search(&s).ok().map(|i| i as u32);
        // The new children rows' entries: (parent node, (down port, child node)), sorted.
        let mut added: Vec<(u32, (PortNo, u32))> = Vec::with_capacity(k);
        for &(c, e) in &fresh {
            added.push((at(e.parent)?, (e.down_port, at(c)?)));
        }
        added.sort_unstable();
        // The new switches' depths, one below their parents' (a graft path, given from the
        // tree outward, in one pass; a pass more for each switch given before its parent).
        let mut left = k;
        while left > 0 {
            let before = left;
            for &(c, e) in parents {
                let (c, p) = (at(c)? as usize, at(e.parent)? as usize);
                if depth[c] == depth::NO_DEPTH && depth[p] != depth::NO_DEPTH {
                    depth[c] = depth[p] + 1;
                    left -= 1;
                }
            }
            if left == before {
                // The rest hang below a switch the root does not reach.
                break;
            }
        }
        let mut kid_start = Vec::with_capacity(n + k + 1);
        let mut kids = Vec::with_capacity(self.kids.len() + k);
        let mut a = 0;
        let mut old = 0;
        for (i, &s) in sw.iter().enumerate() {
            kid_start.push(kids.len() as u32);
            // The old row (renumbered: the same order), merged with the new entries.
            let row: &[u32] = if old < n && self.sw[old] == s {
                old += 1;
                self.kids_of(old - 1)
            } else {
                &[]
            };
            if added.get(a).is_none_or(|e| e.0 as usize != i) {
                kids.extend(row.iter().map(|&c| renum[c as usize]));
                continue;
            }
            let mut r = row.iter().map(|&c| {
                let c = renum[c as usize];
                (up[c as usize].down_port, c)
            });
            let mut next = r.next();
            while a < added.len() && added[a].0 as usize == i {
                let b = added[a].1;
                while let Some(x) = next.filter(|&x| x < b) {
                    kids.push(x.1);
                    next = r.next();
                }
                if next != Some(b) {
                    kids.push(b.1);
                }
                a += 1;
            }
            while let Some(x) = next {
                kids.push(x.1);
                next = r.next();
            }
        }
        kid_start.push(kids.len() as u32);
        // The leaves: the old ones renumbered (the same order), the new ones inserted where
        // they sort (one that is already a leaf kept once).
        let key = |&(i, l): &(u32, Leaf)| (i, l.port, l.terminal, l.link);
        let mut extra: Vec<(u32, Leaf)> = Vec::with_capacity(leaves.len());
        for &(s, l) in leaves {
            extra.push((at(s)?, l));
        }
        extra.sort_unstable_by_key(key);
        extra.dedup();
        let renumbered = |&(i, l): &(u32, Leaf)| (renum[i as usize], l);
        let mut out = Vec::with_capacity(self.leaves.len() + extra.len());
        let mut inserted: Vec<u32> = Vec::with_capacity(extra.len());
        let mut from = 0;
        for y in &extra {
            let pos = from + self.leaves[from..].partition_point(|x| key(&renumbered(x)) < key(y));
            out.extend(self.leaves[from..pos].iter().map(renumbered));
            from = pos;
            if self
                .leaves
                .get(from)
                .is_none_or(|x| key(&renumbered(x)) != key(y))
            {
                out.push(*y);
                inserted.push(y.0);
            }
        }
        out.extend(self.leaves[from..].iter().map(renumbered));
        let mut t = Self {
            color: self.color,
            root: self.root,
            sw,
            up,
            kid_start,
            kids,
            leaves: out,
            members: self.members.clone(),
            groups: self.groups.clone(),
            depth,
        };
        // The bare count and the leaf counts after the node depths ([`depth`]).
        t.depth.push(self.bare());
        t.depth.extend_from_slice(counts);
        // The nodes whose children or leaves changed: bare now, or before (old nodes only).
        let mut edited: Vec<u32> = fresh_at;
        edited.extend(added.iter().map(|&(p, _)| p));
        edited.extend_from_slice(&inserted);
        edited.sort_unstable();
        edited.dedup();
        for &i in &edited {
            let was = self.node(t.sw[i as usize]).is_some_and(|o| self.is_bare(o));
            match (was, t.is_bare(i as usize)) {
                (true, false) => t.set_bare(t.bare() - 1),
                (false, true) => t.set_bare(t.bare() + 1),
                _ => {}
            }
        }
        for i in inserted {
            t.count_leaf(i, true);
        }
        Some(t)
    }

    /// [`grown`](Self::grown) by building the tree again from all its parts.
    ///
    /// Complexity: O(T log T) for T switches and leaves.
    fn grown_rebuilt(&self, parents: &[(u32, Edge)], leaves: &[(u32, Leaf)]) -> Self {
        let all_parents: Vec<(u32, Edge)> = self.edges().chain(parents.iter().copied()).collect();
        let all_leaves: Vec<(u32, Leaf)> = self.leaves().chain(leaves.iter().copied()).collect();
        let mut t = Self::from_parts(self.color, self.root, &all_parents, &all_leaves);
        t.members.clone_from(&self.members);
        t.groups.clone_from(&self.groups);
        t
    }

    /// Adds `leaf` on switch `sw` of the tree, in place; false when `sw` is not in the tree.
    ///
    /// Complexity: O(log T + L) for L leaves (one insertion).
    pub(crate) fn add_leaf(&mut self, sw: u32, leaf: Leaf) -> bool {
        let Some(i) = self.node(sw) else {
            return false;
        };
        if self.is_bare(i) {
            self.set_bare(self.bare() - 1);
        }
        let key = (i as u32, leaf.port);
        let at = self.leaves.partition_point(|&(n, l)| (n, l.port) < key);
        self.leaves.insert(at, (i as u32, leaf));
        self.count_leaf(i as u32, true);
        true
    }

    /// Whether [`remove_leaf_in_place`](Self::remove_leaf_in_place) would remove the leaf of
    /// `terminal` on `sw` (the switch is the root, has children or other leaves).
    ///
    /// Complexity: O(log T + L).
    pub(crate) fn leaf_removable_in_place(&self, sw: u32, terminal: NodeId) -> bool {
        let Some(i) = self.node(sw) else {
            return false;
        };
        let row = self.leaves_of(i);
        row.iter().any(|(_, l)| l.terminal == terminal)
            && (sw == self.root || row.len() > 1 || !self.kids_of(i).is_empty())
    }

    /// The leaf of `terminal` on switch `sw`, if any.
    pub(crate) fn leaf_of(&self, sw: u32, terminal: NodeId) -> Option<Leaf> {
        let i = self.node(sw)?;
        self.leaves_of(i)
            .iter()
            .find(|(_, l)| l.terminal == terminal)
            .map(|&(_, l)| l)
    }

    /// Adds one holder of `terminal` (a member with one more group holding it): the members
    /// [`add_members`](Self::add_members) gives for `[(terminal, 1)]`, by one insertion.
    ///
    /// Complexity: O(log M + M) for M members.
    pub(crate) fn add_holder(&mut self, terminal: NodeId) {
        match self.members.binary_search_by_key(&terminal, |&(t, _)| t) {
            Ok(i) => self.members[i].1 += 1,
            Err(i) => {
                self.members.insert(i, (terminal, 1));
                // At its length, as `add_members` leaves it.
                self.members.shrink_to_fit();
            }
        }
    }

    /// Removes the leaf of `terminal` on switch `sw` in place when that leaves nothing to
    /// prune (the switch is the root, has children or other leaves); false otherwise (the
    /// caller then runs [`prune`](Self::prune)).
    ///
    /// Complexity: O(log T + L).
    pub(crate) fn remove_leaf_in_place(&mut self, sw: u32, terminal: NodeId) -> bool {
        let Some(i) = self.node(sw) else {
            return false;
        };
        let row = self.leaves_of(i);
        let Some(k) = row.iter().position(|(_, l)| l.terminal == terminal) else {
            return false;
        };
        if sw != self.root && row.len() == 1 && self.kids_of(i).is_empty() {
            return false;
        }
        let lo = self.leaves.partition_point(|&(n, _)| (n as usize) < i);
        self.leaves.remove(lo + k);
        self.count_leaf(i as u32, false);
        true
    }

    /// Removes one holder of `terminal`, dropping it from the members when no group holds
    /// it any more (its leaf stays until [`prune`](Self::prune)); false when it is no member.
    pub(crate) fn remove_holder(&mut self, terminal: NodeId) -> bool {
        match self.members.binary_search_by_key(&terminal, |&(m, _)| m) {
            Ok(i) => {
                self.members[i].1 -= 1;
                if self.members[i].1 == 0 {
                    self.members.remove(i);
                }
                true
            }
            Err(_) => false,
        }
    }

    /// `(switch, member leaves on it)` of every switch with leaves, by switch.
    pub(crate) fn leaf_counts(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.leaves
            .chunk_by(|a, b| a.0 == b.0)
            .map(|run| (self.sw[run[0].0 as usize], run.len() as u32))
    }

    /// Hops from the root to switch `sw` along the tree, or `None` if not in the tree.
    ///
    /// Complexity: O(log T) (the depths are kept, [`depth`]).
    pub(crate) fn depth(&self, sw: u32) -> Option<u32> {
        self.node_depth(self.node(sw)? as u32)
    }

    /// [`depth`](Self::depth) remembering what it walks: `memo` holds, per node of the tree
    /// (`memo.len()` is the tree's switch count, all 0 at first), the depth plus one of every
    /// node a call has walked through, else 0, and `chain` is the walk's buffer. A search
    /// that asks for the depth of many switches of one tree then walks each node once.
    ///
    /// Complexity: O(W log T) for the W nodes not yet in `memo` on the way to the root.
    #[cfg(test)]
    pub(crate) fn depth_memo(
        &self,
        sw: u32,
        memo: &mut [u32],
        chain: &mut Vec<u32>,
    ) -> Option<u32> {
        let mut i = self.node(sw)?;
        chain.clear();
        let mut d = loop {
            if memo[i] != 0 {
                break memo[i] - 1;
            }
            match self.edge(i) {
                None => {
                    memo[i] = 1;
                    break 0;
                }
                Some(e) => {
                    chain.push(i as u32);
                    if chain.len() > self.sw.len() {
                        return None;
                    }
                    i = self.node(e.parent)?;
                }
            }
        };
        // The walk, nearest the known node last: each one hop deeper.
        for &j in chain.iter().rev() {
            d += 1;
            memo[j as usize] = d + 1;
        }
        Some(d)
    }

    /// The largest depth of the switches of `switches` that are in the tree, `None` when
    /// none is (a switch the root does not reach counts 0, as a walk down from the root
    /// leaves it): read from the kept depths ([`depth`]).
    ///
    /// Complexity: O(|switches| log T).
    pub(crate) fn max_depth(&self, switches: &[u32]) -> Option<u32> {
        self.node(self.root)?;
        switches
            .iter()
            .filter_map(|&s| self.node(s))
            .map(|i| self.leaf_depth(i as u32))
            .max()
    }

    /// Whether `terminal` hangs off `sw` as a leaf.
    pub(crate) fn has_leaf(&self, sw: u32, terminal: NodeId) -> bool {
        self.node(sw).is_some_and(|i| {
            self.leaves_of(i)
                .iter()
                .any(|(_, l)| l.terminal == terminal)
        })
    }

    /// The member terminals, sorted.
    pub(crate) fn members(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.members.iter().map(|&(t, _)| t)
    }

    /// `(member, groups holding it)`, sorted by member.
    pub(crate) fn member_counts(&self) -> &[(NodeId, u32)] {
        &self.members
    }

    /// Number of member terminals.
    pub(crate) fn member_count(&self) -> usize {
        self.members.len()
    }

    /// Whether `terminal` is a member of one of the tree's groups.
    pub(crate) fn has_member(&self, terminal: NodeId) -> bool {
        self.members
            .binary_search_by_key(&terminal, |&(t, _)| t)
            .is_ok()
    }

    /// The groups using the tree, sorted.
    pub(crate) fn groups(&self) -> &[GroupId] {
        &self.groups
    }

    /// Adds `count` holders of each of `members`.
    pub(crate) fn add_members(&mut self, members: impl IntoIterator<Item = (NodeId, u32)>) {
        self.members.extend(members);
        self.members.sort_unstable_by_key(|&(t, _)| t);
        self.members.dedup_by(|b, a| {
            if a.0 == b.0 {
                a.1 += b.1;
                true
            } else {
                false
            }
        });
        self.members.shrink_to_fit();
    }

    /// Adds group `id` with its member terminals.
    pub(crate) fn add_group(&mut self, id: GroupId, terminals: &[NodeId]) {
        self.add_groups([id]);
        self.add_members(terminals.iter().map(|&t| (t, 1)));
    }

    /// Adds the groups `ids` (without members).
    pub(crate) fn add_groups(&mut self, ids: impl IntoIterator<Item = GroupId>) {
        self.groups.extend(ids);
        self.groups.sort_unstable();
        self.groups.dedup();
        self.groups.shrink_to_fit();
    }

    /// Removes group `id` and one holder of each of `terminals`; members no group holds any
    /// more are dropped (their leaves stay until [`prune`](Self::prune)).
    pub(crate) fn remove_group(&mut self, id: GroupId, terminals: &[NodeId]) {
        if let Ok(i) = self.groups.binary_search(&id) {
            self.groups.remove(i);
        }
        for t in terminals {
            if let Ok(i) = self.members.binary_search_by_key(t, |&(m, _)| m) {
                self.members[i].1 -= 1;
            }
        }
        self.members.retain(|&(_, c)| c > 0);
        self.members.shrink_to_fit();
        self.groups.shrink_to_fit();
    }

    /// Alg. 6 steps ②–⑦: drops the leaves of members no group holds any more, then removes,
    /// upward, every switch left with no child and no leaf. The root stays.
    ///
    /// Complexity: O(T log T).
    pub(crate) fn prune(&mut self) {
        let gone = self.pruned_nodes();
        self.keep_nodes(&gone);
    }

    /// [`prune`](Self::prune)'s steps ②–⑦ without the edit: the nodes left with nothing
    /// below once the leaves of terminals no longer members are dropped.
    ///
    /// Complexity: O(T log T).
    pub(crate) fn pruned_nodes(&self) -> Vec<bool> {
        let n = self.sw.len();
        // Downstream links left per node, the leaves of members only (step ②).
        let mut below: Vec<u32> = (0..n).map(|i| self.kids_of(i).len() as u32).collect();
        for &(i, l) in &self.leaves {
            if self.has_member(l.terminal) {
                below[i as usize] += 1;
            }
        }
        // Step ③: switches with no downstream link.
        let mut queue: Vec<usize> = (0..n)
            .filter(|&i| below[i] == 0 && self.sw[i] != self.root)
            .collect();
        let mut gone = vec![false; n];
        // Steps ④–⑦.
        while let Some(i) = queue.pop() {
            gone[i] = true;
            if let Some(e) = self.edge(i)
                && let Some(p) = self.node(e.parent)
            {
                below[p] -= 1;
                if below[p] == 0 && e.parent != self.root {
                    queue.push(p);
                }
            }
        }
        gone
    }

    /// Drops the nodes `gone` marks (none of them the root or the parent of a node kept)
    /// and the leaves of terminals no longer members, in place: the kept nodes renumbered
    /// in order, which keeps every row's order. The tree [`from_parts`](Self::from_parts)
    /// builds from the parts left.
    ///
    /// Complexity: O(T) for T switches and leaves.
    pub(crate) fn keep_nodes(&mut self, gone: &[bool]) {
        let n = self.sw.len();
        let mut renum = vec![u32::MAX; n];
        let mut w = 0;
        for i in 0..n {
            if !gone[i] {
                renum[i] = w as u32;
                self.sw[w] = self.sw[i];
                self.up[w] = self.up[i];
                // (A kept node's ancestors are kept: its depth stays.)
                self.depth[w] = self.depth[i];
                w += 1;
            }
        }
        self.sw.truncate(w);
        self.up.truncate(w);
        self.depth.truncate(w);
        self.sw.shrink_to_fit();
        self.up.shrink_to_fit();
        let mut kid_start = Vec::with_capacity(w + 1);
        let mut kids = Vec::with_capacity(self.kids.len());
        for i in (0..n).filter(|&i| !gone[i]) {
            kid_start.push(kids.len() as u32);
            kids.extend(
                self.kids_of(i)
                    .iter()
                    .filter(|&&c| !gone[c as usize])
                    .map(|&c| renum[c as usize]),
            );
        }
        kid_start.push(kids.len() as u32);
        let members = &self.members;
        let held = |t: NodeId| members.binary_search_by_key(&t, |&(m, _)| m).is_ok();
        self.leaves
            .retain(|&(i, l)| !gone[i as usize] && held(l.terminal));
        for (i, _) in &mut self.leaves {
            *i = renum[*i as usize];
        }
        self.leaves.shrink_to_fit();
        (self.kid_start, self.kids) = (kid_start, kids);
        self.recount_leaves();
    }

    /// Bytes held by the tree, its heap vectors at their capacity included.
    pub(crate) fn memory_bytes(&self) -> usize {
        size_of::<Self>()
            + self.sw.capacity() * size_of::<u32>()
            + self.up.capacity() * size_of::<Edge>()
            + self.kid_start.capacity() * size_of::<u32>()
            + self.kids.capacity() * size_of::<u32>()
            + self.leaves.capacity() * size_of::<(u32, Leaf)>()
            + self.members.capacity() * size_of::<(NodeId, u32)>()
            + self.groups.capacity() * size_of::<GroupId>()
            + self.depth.capacity() * size_of::<u32>()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    impl Tree {
        /// The sorting `from_parts` this module had before the row-by-row one: the reference.
        fn from_parts_sorted(
            color: u32,
            root: u32,
            parents: &[(u32, Edge)],
            leaves: &[(u32, Leaf)],
        ) -> Self {
            // Every parent and every leaf's switch reaches the root, so is the root or a child:
            // the switches are those (the lookups below check it).
            let mut sw: Vec<u32> = Vec::with_capacity(parents.len() + 1);
            sw.push(root);
            sw.extend(parents.iter().map(|&(child, _)| child));
            sw.sort_unstable();
            sw.dedup();
            sw.shrink_to_fit();
            let n = sw.len();
            let at = |s: u32| {
                sw.binary_search(&s)
                    .expect("a parent or leaf switch is the root or a child") as u32
            };
            let mut up = vec![ROOT_EDGE; n];
            // (parent node, down port, child node), sorted: the children rows.
            let mut pairs: Vec<(u32, PortNo, u32)> = Vec::with_capacity(parents.len());
            for &(child, e) in parents {
                let c = at(child);
                up[c as usize] = e;
                pairs.push((at(e.parent), e.down_port, c));
            }
            pairs.sort_unstable();
            pairs.dedup();
            let mut kid_start = vec![0u32; n + 1];
            for &(p, _, _) in &pairs {
                kid_start[p as usize + 1] += 1;
            }
            for i in 0..n {
                kid_start[i + 1] += kid_start[i];
            }
            let kids = pairs.iter().map(|&(_, _, c)| c).collect();
            let mut leaves: Vec<(u32, Leaf)> = leaves.iter().map(|&(s, l)| (at(s), l)).collect();
            leaves.sort_unstable_by_key(|&(i, l)| (i, l.port));
            leaves.dedup();
            leaves.shrink_to_fit();
            let mut t = Self {
                color,
                root,
                sw,
                up,
                kid_start,
                kids,
                leaves,
                members: Vec::new(),
                groups: Vec::new(),
                depth: Vec::new(),
            };
            t.compute_depths();
            t
        }
    }

    /// An edge to `parent` by ports `up` (the parent's) and `down` over link `link`.
    pub(crate) fn edge(parent: u32, up: u16, down: u16, link: u32) -> Edge {
        Edge {
            parent,
            up_port: PortNo::new(up),
            down_port: PortNo::new(down),
            link: LinkId::new(link),
        }
    }

    fn leaf(port: u16, terminal: u32, link: u32) -> Leaf {
        Leaf {
            port: PortNo::new(port),
            terminal: NodeId::new(terminal),
            link: LinkId::new(link),
        }
    }

    /// Root 5 with children 2 (port 1) and 9 (port 2); 7 under 9 (port 3). Leaves: terminal
    /// 100 on 2, 101 and 102 on 7.
    fn sample() -> Tree {
        let mut t = Tree::from_parts(
            3,
            5,
            &[
                (7, edge(9, 1, 3, 12)),
                (2, edge(5, 4, 1, 10)),
                (9, edge(5, 1, 2, 11)),
            ],
            &[
                (7, leaf(5, 102, 22)),
                (2, leaf(2, 100, 20)),
                (7, leaf(4, 101, 21)),
            ],
        );
        t.add_group(GroupId(0), &[NodeId::new(100), NodeId::new(101)]);
        t.add_group(GroupId(1), &[NodeId::new(102), NodeId::new(101)]);
        t
    }

    #[test]
    fn depth_memo_gives_the_walked_depths_in_any_order() {
        let t = sample();
        for order in [[7u32, 9, 2, 5, 4], [5, 2, 4, 9, 7], [4, 9, 7, 5, 2]] {
            let mut memo = vec![0; t.switches().len()];
            let mut chain = Vec::new();
            for sw in order {
                assert_eq!(
                    t.depth_memo(sw, &mut memo, &mut chain),
                    t.depth(sw),
                    "switch {sw}"
                );
                // Asked again, from the memo.
                assert_eq!(
                    t.depth_memo(sw, &mut memo, &mut chain),
                    t.depth(sw),
                    "switch {sw}"
                );
            }
        }
    }

    #[test]
    fn queries_read_the_compact_rows() {
        let t = sample();
        assert_eq!(t.switches(), [2, 5, 7, 9]);
        assert_eq!(t.depth(5), Some(0));
        assert_eq!(t.depth(7), Some(2));
        assert_eq!(t.depth(4), None);
        assert_eq!(t.max_depth(&[2, 4, 9]), Some(1));
        assert_eq!(t.max_depth(&[5, 7]), Some(2));
        assert_eq!(t.max_depth(&[4]), None);
        let ports = |s| {
            t.port_set(s)
                .unwrap()
                .iter()
                .map(|p| p.get())
                .collect::<Vec<_>>()
        };
        assert_eq!(ports(5), [1, 2]);
        assert_eq!(ports(9), [1, 3]);
        assert_eq!(ports(7), [1, 4, 5]);
        assert_eq!(ports(2), [2, 4]);
        assert!(t.has_leaf(7, NodeId::new(101)) && !t.has_leaf(2, NodeId::new(101)));
        // The tree links: parent then children, with the ports at both ends.
        let links = |s| {
            let i = t.node_of(s).unwrap();
            let up = t
                .up_link(i)
                .map(|(p, a, b)| (p, t.node_of(p).unwrap(), a, b));
            up.into_iter()
                .chain(t.down_links(i))
                .map(|(p, n, a, b)| (p, n, a.get(), b.get()))
                .collect::<Vec<_>>()
        };
        // Nodes: 2, 5, 7, 9 are 0, 1, 2, 3.
        assert_eq!(links(9), [(5, 1, 1, 2), (7, 2, 3, 1)]);
        assert_eq!(links(5), [(2, 0, 1, 4), (9, 3, 2, 1)]);
        assert_eq!(links(7), [(9, 3, 1, 3)]);
        for s in [2, 5, 7, 9] {
            let ports: Vec<u16> = t.tree_ports(s).unwrap().map(|p| p.get()).collect();
            let via_links: Vec<u16> = links(s).iter().map(|l| l.2).collect();
            assert_eq!(ports, via_links);
        }
        assert!(t.node_of(4).is_none());
        assert_eq!(t.leaf_counts().collect::<Vec<_>>(), [(2, 1), (7, 2)]);
        let mut links: Vec<u32> = t.links().map(|l| l.get()).collect();
        links.sort_unstable();
        assert_eq!(links, [10, 11, 12, 20, 21, 22]);
        // The same links, switch–switch ones with their ends.
        let mut sw_links: Vec<(u32, u32, u32)> =
            t.switch_links().map(|(c, p, l)| (c, p, l.get())).collect();
        sw_links.sort_unstable();
        assert_eq!(sw_links, [(2, 5, 10), (7, 9, 12), (9, 5, 11)]);
        let leaf_links: Vec<u32> = t.leaf_links().map(|l| l.get()).collect();
        assert_eq!(leaf_links, [20, 21, 22]);
        assert_eq!(
            t.member_counts(),
            [
                (NodeId::new(100), 1),
                (NodeId::new(101), 2),
                (NodeId::new(102), 1)
            ]
        );
        assert_eq!(t.groups(), [GroupId(0), GroupId(1)]);
    }

    #[test]
    fn prune_removes_branches_left_without_members() {
        let mut t = sample();
        t.remove_group(GroupId(1), &[NodeId::new(102), NodeId::new(101)]);
        t.prune();
        // 101 is still held by group 0: the branch 5-9-7 stays, leaf 102 goes.
        assert_eq!(t.switches(), [2, 5, 7, 9]);
        assert!(!t.has_leaf(7, NodeId::new(102)) && t.has_leaf(7, NodeId::new(101)));
        t.remove_group(GroupId(0), &[NodeId::new(100), NodeId::new(101)]);
        t.prune();
        // Nothing left below the root.
        assert_eq!(t.switches(), [5]);
        assert_eq!(t.links().count(), 0);
        assert_eq!(t.member_count(), 0);
    }

    /// `from_parts` builds the same tree as the sorting reference from parts in any order,
    /// with repeated edges and leaves, a root named as a child's parent only, several
    /// children and leaves on one switch, and (not from a real fabric, but allowed) one
    /// child given twice with different edges.
    #[test]
    fn from_parts_matches_the_sorting_reference() {
        use rand::Rng;
        use rand::seq::SliceRandom;
        let mut rng = fabric_model::rng::seeded(7);
        let (mut index, mut big) = (SwitchIndex::new(200), SwitchIndex::new(100_000));
        for case in 0..300 {
            let n: u32 = rng.random_range(1..40);
            // Switch ids: distinct, scattered.
            let mut ids: Vec<u32> = (0..200).collect();
            ids.shuffle(&mut rng);
            ids.truncate(n as usize);
            let root = ids[0];
            let mut parents = Vec::new();
            for i in 1..n as usize {
                let p = ids[rng.random_range(0..i)];
                let e = edge(
                    p,
                    rng.random_range(0..4),
                    rng.random_range(0..8),
                    1000 + i as u32,
                );
                parents.push((ids[i], e));
                if rng.random_bool(0.1) {
                    parents.push((ids[i], e));
                }
                if case % 10 == 0 && rng.random_bool(0.1) {
                    parents.push((ids[i], edge(p, 9, 9, 9)));
                }
            }
            parents.shuffle(&mut rng);
            let mut leaves = Vec::new();
            for (t, &s) in ids.iter().enumerate() {
                for port in 10..10 + rng.random_range(0..3u16) {
                    let l = leaf(port, 5000 + 10 * t as u32 + u32::from(port), 7);
                    leaves.push((s, l));
                    if rng.random_bool(0.1) {
                        leaves.push((s, l));
                    }
                }
            }
            leaves.shuffle(&mut rng);
            let want = Tree::from_parts_sorted(4, root, &parents, &leaves);
            assert_eq!(
                Tree::from_parts(4, root, &parents, &leaves),
                want,
                "case {case}"
            );
            // A dense index over 200 switches reused from case to case (read from the
            // bitmap), and one too small that grows.
            let got = Tree::from_parts_in(&mut index, 4, root, &parents, &leaves);
            assert_eq!(got, want, "case {case}");
            let mut small = SwitchIndex::new(3);
            let got = Tree::from_parts_in(&mut small, 4, root, &parents, &leaves);
            assert_eq!(got, want, "case {case}");
            // Over 100,000 switches the bitmap is long beside the tree: sorted instead.
            let got = Tree::from_parts_in(&mut big, 4, root, &parents, &leaves);
            assert_eq!(got, want, "case {case}");
        }
        assert!(index.bits.iter().all(|&w| w == 0));
        assert_eq!(
            Tree::from_parts(1, 3, &[], &[]),
            Tree::from_parts_sorted(1, 3, &[], &[])
        );
    }

    /// A random canonical tree (from its parts) over switches of `0..200`: 1 to 40 switches,
    /// up to two leaves a switch, half the leaves' terminals members.
    pub(crate) fn random_tree(rng: &mut impl rand::Rng) -> Tree {
        use rand::seq::SliceRandom;
        let n: u32 = rng.random_range(1..40);
        let mut ids: Vec<u32> = (0..200).collect();
        ids.shuffle(rng);
        ids.truncate(n as usize);
        let mut parents = Vec::new();
        for i in 1..n as usize {
            let p = ids[rng.random_range(0..i)];
            let e = edge(
                p,
                rng.random_range(0..4),
                rng.random_range(0..8),
                1000 + i as u32,
            );
            parents.push((ids[i], e));
        }
        let mut leaves = Vec::new();
        let mut members = Vec::new();
        for (t, &s) in ids.iter().enumerate() {
            for port in 10..10 + rng.random_range(0..3u16) {
                let l = leaf(port, 5000 + 10 * t as u32 + u32::from(port), 7);
                leaves.push((s, l));
                if rng.random_bool(0.5) {
                    members.push((l.terminal, 1));
                }
            }
        }
        let mut t = Tree::from_parts(4, ids[0], &parents, &leaves);
        t.add_members(members);
        t.add_groups([GroupId(3)]);
        t
    }

    /// A graft path grown onto a tree in place gives the tree built again from all its
    /// parts: paths of new switches ending on any tree switch (in any order, ports
    /// colliding with the old children's), leaves on tree or path switches (repeats of old
    /// leaves included), and parts that need the rebuild (a child already in the tree).
    #[test]
    fn grown_in_place_is_the_tree_rebuilt_from_its_parts() {
        use rand::Rng;
        use rand::seq::SliceRandom;
        let mut rng = fabric_model::rng::seeded(11);
        let mut in_place = 0;
        for case in 0..400 {
            let t = random_tree(&mut rng);
            let tree_sw = t.switches().to_vec();
            let mut fresh: Vec<u32> = (0..300).filter(|s| t.node_of(*s).is_none()).collect();
            fresh.shuffle(&mut rng);
            fresh.truncate(rng.random_range(0..6));
            // fresh[0] (the new member's switch) up to fresh[k - 1], then a tree switch.
            let mut path = Vec::new();
            for (i, &c) in fresh.iter().enumerate() {
                let p = fresh
                    .get(i + 1)
                    .copied()
                    .unwrap_or_else(|| tree_sw[rng.random_range(0..tree_sw.len())]);
                let e = edge(p, rng.random_range(0..4), rng.random_range(0..8), 2000 + c);
                path.push((c, e));
            }
            if case % 7 == 0 && tree_sw.len() > 1 {
                // A switch of the tree given a second edge: built again.
                let c = tree_sw[1..][rng.random_range(0..tree_sw.len() - 1)];
                path.push((c, edge(t.root, 9, 9, 9)));
            }
            path.shuffle(&mut rng);
            let mut leaves = Vec::new();
            let on = fresh.first().copied().unwrap_or(tree_sw[0]);
            leaves.push((on, leaf(20, 9000 + case, 8)));
            if rng.random_bool(0.3)
                && let Some((s, l)) = t.leaves().next()
            {
                leaves.push((s, l));
            }
            if rng.random_bool(0.3) {
                leaves.push((tree_sw[0], leaf(21, 9500 + case, 8)));
            }
            let want = t.grown_rebuilt(&path, &leaves);
            let got = t.grown(&path, &leaves);
            assert_eq!(got, want, "case {case}");
            assert_eq!(
                got.member_counts(),
                t.member_counts(),
                "case {case}: the members kept"
            );
            in_place += usize::from(t.grown_in_place(&path, &leaves).is_some());
        }
        // Most cases were edited in place, not built again.
        assert!(in_place > 300, "{in_place} of 400 in place");
    }

    /// Pruning in place gives the tree built from the parts left: the kept switches' edges
    /// and the leaves of members on them.
    #[test]
    fn prune_in_place_is_the_tree_rebuilt_from_the_parts_left() {
        let mut rng = fabric_model::rng::seeded(13);
        let mut shrunk = 0;
        for case in 0..400 {
            let t = random_tree(&mut rng);
            let gone = t.pruned_nodes();
            let parents: Vec<(u32, Edge)> = t
                .parents()
                .enumerate()
                .filter(|&(i, _)| !gone[i])
                .filter_map(|(_, (s, e))| e.map(|e| (s, e)))
                .collect();
            let leaves: Vec<(u32, Leaf)> = t
                .leaves()
                .filter(|&(_, l)| t.has_member(l.terminal))
                .collect();
            let mut want = Tree::from_parts(t.color, t.root, &parents, &leaves);
            want.add_members(t.member_counts().iter().copied());
            want.add_groups(t.groups().iter().copied());
            let mut got = t.clone();
            got.prune();
            assert_eq!(got, want, "case {case}");
            shrunk += usize::from(got.switches().len() < t.switches().len());
        }
        assert!(shrunk > 50, "{shrunk} of 400 lost switches");
    }

    #[test]
    fn add_holder_is_add_members_of_one() {
        let mut rng = fabric_model::rng::seeded(17);
        for _ in 0..50 {
            let t = random_tree(&mut rng);
            for x in [5000u32, 5012, 6000, 1] {
                let x = NodeId::new(x);
                let mut a = t.clone();
                a.add_holder(x);
                let mut b = t.clone();
                b.add_members([(x, 1)]);
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn leaf_removable_in_place_says_what_remove_leaf_in_place_does() {
        let mut rng = fabric_model::rng::seeded(19);
        for _ in 0..100 {
            let t = random_tree(&mut rng);
            for (s, l) in t.leaves().collect::<Vec<_>>() {
                assert_eq!(t.leaf_of(s, l.terminal), Some(l));
                let mut u = t.clone();
                assert_eq!(
                    t.leaf_removable_in_place(s, l.terminal),
                    u.remove_leaf_in_place(s, l.terminal)
                );
            }
            assert!(!t.leaf_removable_in_place(t.root, NodeId::new(1)));
        }
    }

    #[test]
    fn memory_counts_every_vector() {
        let t = sample();
        // 4 switches × (4 + 12 + 4) + 5 row starts × 4 + 3 kids × 4 + 3 leaves × 16 + …
        assert!(t.memory_bytes() >= size_of::<Tree>() + 4 * 20 + 5 * 4 + 3 * 4 + 3 * 16);
    }
}
