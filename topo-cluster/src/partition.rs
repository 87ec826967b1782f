//! A partition of nodes into groups, labelled in first-appearance order.

/// Disjoint groups covering nodes `0..n`; group `k` is the `k`-th group to appear when the
/// nodes are read in order, and each group lists its nodes in increasing order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Partition {
    labels: Vec<usize>,
    groups: Vec<Vec<usize>>,
}

impl Partition {
    /// The partition whose node `i` is in the group named `raw[i]` (any names; they are
    /// renumbered in first-appearance order).
    ///
    /// # Complexity
    /// O(n + max(raw)) time.
    #[must_use]
    pub fn from_raw_labels(raw: &[usize]) -> Self {
        let mut rename = vec![usize::MAX; raw.iter().max().map_or(0, |m| m + 1)];
        let mut labels = Vec::with_capacity(raw.len());
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (node, &r) in raw.iter().enumerate() {
            if rename[r] == usize::MAX {
                rename[r] = groups.len();
                groups.push(Vec::new());
            }
            labels.push(rename[r]);
            groups[rename[r]].push(node);
        }
        Self { labels, groups }
    }

    /// The group of every node.
    #[must_use]
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// The nodes of every group.
    #[must_use]
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// The group of `node`.
    ///
    /// # Panics
    /// If `node` is not below [`Partition::node_count`].
    #[must_use]
    pub fn label(&self, node: usize) -> usize {
        self.labels[node]
    }

    /// Number of groups.
    #[must_use]
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// Whether there is no group (no node).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Number of nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.labels.len()
    }
}
