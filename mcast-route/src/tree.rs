//! A multicast tree (MCT): switches with one parent each, member terminals as leaves.

use std::collections::{BTreeMap, BTreeSet};

use fabric_model::{LinkId, NodeId, PortNo};

use crate::{GroupId, PortSet};

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

/// A member terminal hanging off a tree switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leaf {
    pub(crate) port: PortNo,
    pub(crate) terminal: NodeId,
    pub(crate) link: LinkId,
}

/// One switch of a tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TreeNode {
    pub(crate) parent: Option<Edge>,
    /// `(port on this switch, child switch index)`.
    pub(crate) children: Vec<(PortNo, u32)>,
    pub(crate) leaves: Vec<Leaf>,
}

/// A multicast tree shared by one or more groups (its TFI is the number of groups).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tree {
    pub(crate) color: u32,
    pub(crate) root: u32,
    /// Switch index → node.
    pub(crate) nodes: BTreeMap<u32, TreeNode>,
    /// Member terminal → number of the tree's groups holding it.
    pub(crate) members: BTreeMap<NodeId, u32>,
    pub(crate) groups: BTreeSet<GroupId>,
    /// `(switch, member leaves)` of every switch with leaves, by switch; kept by
    /// [`refresh`](Self::refresh).
    pub(crate) leaf_counts: Vec<(u32, u32)>,
}

impl Tree {
    /// A tree from parent edges (child switch, edge) and leaves (switch, leaf); the root is
    /// always present.
    pub(crate) fn from_parts(
        color: u32,
        root: u32,
        parents: &[(u32, Edge)],
        leaves: &[(u32, Leaf)],
    ) -> Self {
        let mut nodes: BTreeMap<u32, TreeNode> = BTreeMap::new();
        nodes.entry(root).or_default();
        for &(child, e) in parents {
            nodes.entry(child).or_default().parent = Some(e);
            nodes
                .entry(e.parent)
                .or_default()
                .children
                .push((e.down_port, child));
        }
        for &(sw, leaf) in leaves {
            nodes.entry(sw).or_default().leaves.push(leaf);
        }
        for n in nodes.values_mut() {
            n.children.sort_unstable();
            n.leaves.sort_unstable_by_key(|l| l.port);
        }
        Self {
            color,
            root,
            nodes,
            members: BTreeMap::new(),
            groups: BTreeSet::new(),
            leaf_counts: Vec::new(),
        }
    }

    /// Recomputes [`leaf_counts`](Self::leaf_counts) after a change.
    pub(crate) fn refresh(&mut self) {
        self.leaf_counts.clear();
        self.leaf_counts.extend(
            self.nodes
                .iter()
                .filter(|(_, n)| !n.leaves.is_empty())
                .map(|(&s, n)| (s, n.leaves.len() as u32)),
        );
    }

    /// The forwarding ports of switch `sw`: up, children, member leaves.
    pub(crate) fn port_set(&self, sw: u32) -> Option<PortSet> {
        let n = self.nodes.get(&sw)?;
        let mut s = PortSet::new();
        if let Some(e) = n.parent {
            s.insert(e.up_port);
        }
        for &(p, _) in &n.children {
            s.insert(p);
        }
        for l in &n.leaves {
            s.insert(l.port);
        }
        Some(s)
    }

    /// Every link of the tree (switch–switch edges, then terminal leaves).
    pub(crate) fn links(&self) -> impl Iterator<Item = LinkId> + '_ {
        self.nodes
            .values()
            .filter_map(|n| n.parent.map(|e| e.link))
            .chain(
                self.nodes
                    .values()
                    .flat_map(|n| n.leaves.iter().map(|l| l.link)),
            )
    }

    /// Hops from the root to switch `sw` along the tree, or `None` if not in the tree.
    pub(crate) fn depth(&self, sw: u32) -> Option<u32> {
        let mut d = 0;
        let mut cur = self.nodes.get(&sw)?;
        while let Some(e) = cur.parent {
            d += 1;
            cur = self.nodes.get(&e.parent)?;
            if d as usize > self.nodes.len() {
                return None;
            }
        }
        Some(d)
    }

    /// Whether `terminal` hangs off `sw` as a leaf.
    pub(crate) fn has_leaf(&self, sw: u32, terminal: NodeId) -> bool {
        self.nodes
            .get(&sw)
            .is_some_and(|n| n.leaves.iter().any(|l| l.terminal == terminal))
    }

    /// Alg. 6 steps ②–⑦: drops the leaves of members no group holds any more, then removes,
    /// upward, every switch left with no child and no leaf. The root stays.
    pub(crate) fn prune(&mut self) {
        let members = &self.members;
        let mut queue = Vec::new();
        // Step ②: remove the members from the tree.
        for (&sw, n) in &mut self.nodes {
            n.leaves.retain(|l| members.contains_key(&l.terminal));
            // Step ③: switches with no downstream link.
            if n.children.is_empty() && n.leaves.is_empty() && sw != self.root {
                queue.push(sw);
            }
        }
        // Steps ④–⑦.
        while let Some(sw) = queue.pop() {
            let Some(n) = self.nodes.remove(&sw) else {
                continue;
            };
            if let Some(e) = n.parent
                && let Some(p) = self.nodes.get_mut(&e.parent)
            {
                p.children.retain(|&(_, c)| c != sw);
                if p.children.is_empty() && p.leaves.is_empty() && e.parent != self.root {
                    queue.push(e.parent);
                }
            }
        }
    }
}
