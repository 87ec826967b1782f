//! A partition of nodes into groups, labelled in first-appearance order.

use std::collections::HashMap;
use std::fmt;

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
    /// O(n) expected time.
    #[must_use]
    pub fn from_raw_labels(raw: &[usize]) -> Self {
        let mut rename: HashMap<usize, usize> = HashMap::new();
        let mut labels = Vec::with_capacity(raw.len());
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (node, &r) in raw.iter().enumerate() {
            let next = groups.len();
            let label = *rename.entry(r).or_insert(next);
            if label == next {
                groups.push(Vec::new());
            }
            labels.push(label);
            groups[label].push(node);
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

impl fmt::Display for Partition {
    /// The groups in label order, each as its nodes: `{0 1 2} {3} {4 5}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, g) in self.groups.iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            f.write_str("{")?;
            for (i, node) in g.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{node}")?;
            }
            f.write_str("}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_any_labels() {
        let p = Partition::from_raw_labels(&[usize::MAX, 7, usize::MAX, 0]);
        assert_eq!(p.labels(), &[0, 1, 0, 2]);
        assert_eq!(p.groups(), &[vec![0, 2], vec![1], vec![3]]);
        assert_eq!(p.len(), 3);
        assert_eq!(p.node_count(), 4);
        assert!(Partition::from_raw_labels(&[]).is_empty());
        assert_eq!(p.to_string(), "{0 2} {1} {3}");
        assert_eq!(Partition::from_raw_labels(&[]).to_string(), "");
    }
}
