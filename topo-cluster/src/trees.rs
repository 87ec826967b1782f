//! The communication trees shared by the cost models and the simulator (root = rank 0).

use std::fmt;

use crate::Error;

/// A collective operation rooted at rank 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Collective {
    /// Root's m bytes to every rank.
    Broadcast,
    /// A distinct m-byte block from the root to every rank.
    Scatter,
    /// An m-byte block from every rank to the root.
    Gather,
    /// A distinct m-byte block from every rank to every other rank.
    AllToAll,
}

impl Collective {
    /// Every collective.
    pub const ALL: [Self; 4] = [Self::Broadcast, Self::Scatter, Self::Gather, Self::AllToAll];

    /// The name used in text forms.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Broadcast => "bcast",
            Self::Scatter => "scatter",
            Self::Gather => "gather",
            Self::AllToAll => "alltoall",
        }
    }

    /// The collective called `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The algorithms modelled for this collective.
    #[must_use]
    pub fn algorithms(self) -> &'static [Algorithm] {
        use Algorithm::{Binary, Binomial, Chain, Direct, Flat, SegmentedChain, SegmentedFlat};
        match self {
            Self::Broadcast => &[Flat, SegmentedFlat, Chain, SegmentedChain, Binary, Binomial],
            Self::Scatter | Self::Gather => &[Flat, Chain, Binomial],
            Self::AllToAll => &[Direct],
        }
    }
}

/// A communication pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Algorithm {
    /// The root talks to every rank directly.
    Flat,
    /// Flat tree, message cut into segments.
    SegmentedFlat,
    /// Rank i talks to rank i + 1.
    Chain,
    /// Chain, message cut into segments (a pipeline).
    SegmentedChain,
    /// Binary tree (children of i: 2i + 1, 2i + 2), left child first.
    Binary,
    /// Binomial tree (children of r: r + 2^k for 2^k below r's lowest set bit), largest
    /// subtree first.
    Binomial,
    /// All-to-all direct exchange: at step k rank i sends to (i + k) mod P.
    Direct,
}

impl Algorithm {
    /// Every algorithm.
    pub const ALL: [Self; 7] = [
        Self::Flat,
        Self::SegmentedFlat,
        Self::Chain,
        Self::SegmentedChain,
        Self::Binary,
        Self::Binomial,
        Self::Direct,
    ];

    /// The name used in text forms.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Flat => "flat",
            Self::SegmentedFlat => "seg-flat",
            Self::Chain => "chain",
            Self::SegmentedChain => "seg-chain",
            Self::Binary => "binary",
            Self::Binomial => "binomial",
            Self::Direct => "direct",
        }
    }

    /// The algorithm called `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Whether the algorithm cuts the message into segments.
    #[must_use]
    pub fn is_segmented(self) -> bool {
        matches!(self, Self::SegmentedFlat | Self::SegmentedChain)
    }
}

impl fmt::Display for Collective {
    /// The name used in text forms (`bcast`, `scatter`, `gather`, `alltoall`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Algorithm {
    /// The name used in text forms (`flat`, `seg-chain`, …).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Checks that `algorithm` is modelled for `collective` and that `procs > 0`.
pub(crate) fn check(
    collective: Collective,
    algorithm: Algorithm,
    procs: usize,
    segment: Option<u64>,
) -> Result<(), Error> {
    if procs == 0 {
        return Err(Error::NoProcesses);
    }
    if !collective.algorithms().contains(&algorithm) {
        return Err(Error::UnsupportedAlgorithm {
            collective: collective.name(),
            algorithm: algorithm.name(),
        });
    }
    if algorithm.is_segmented() && segment.unwrap_or(0) == 0 {
        return Err(Error::ZeroSegment);
    }
    Ok(())
}

/// Children of `rank` in the tree of `algorithm` over `procs` ranks, in sending order.
pub(crate) fn children(algorithm: Algorithm, procs: usize, rank: usize) -> Vec<usize> {
    match algorithm {
        Algorithm::Flat | Algorithm::SegmentedFlat => {
            if rank == 0 {
                (1..procs).collect()
            } else {
                Vec::new()
            }
        }
        Algorithm::Chain | Algorithm::SegmentedChain => {
            if rank + 1 < procs {
                vec![rank + 1]
            } else {
                Vec::new()
            }
        }
        Algorithm::Binary => [2 * rank + 1, 2 * rank + 2]
            .into_iter()
            .filter(|&c| c < procs)
            .collect(),
        Algorithm::Binomial => {
            let limit = if rank == 0 {
                procs.next_power_of_two()
            } else {
                1 << rank.trailing_zeros()
            };
            let mut out = Vec::new();
            let mut mask = limit >> 1;
            while mask > 0 {
                if rank + mask < procs {
                    out.push(rank + mask);
                }
                mask >>= 1;
            }
            out
        }
        Algorithm::Direct => Vec::new(),
    }
}

/// Size of the subtree under every rank.
pub(crate) fn subtree_sizes(algorithm: Algorithm, procs: usize) -> Vec<usize> {
    let kids: Vec<Vec<usize>> = (0..procs).map(|r| children(algorithm, procs, r)).collect();
    let mut size = vec![1; procs];
    // every tree here has parent < child: accumulate from the highest rank down
    for r in (0..procs).rev() {
        let s: usize = kids[r].iter().map(|&c| size[c]).sum();
        size[r] += s;
    }
    size
}

/// ⌈log₂ p⌉ (0 for p ≤ 1).
pub(crate) fn ceil_log2(p: usize) -> u32 {
    if p <= 1 {
        0
    } else {
        usize::BITS - (p - 1).leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_children() {
        assert_eq!(children(Algorithm::Binomial, 8, 0), vec![4, 2, 1]);
        assert_eq!(children(Algorithm::Binomial, 8, 4), vec![6, 5]);
        assert_eq!(children(Algorithm::Binomial, 5, 0), vec![4, 2, 1]);
        assert_eq!(children(Algorithm::Binomial, 5, 2), vec![3]);
        assert_eq!(
            subtree_sizes(Algorithm::Binomial, 8),
            vec![8, 1, 2, 1, 4, 1, 2, 1]
        );
        assert_eq!(subtree_sizes(Algorithm::Binary, 6), vec![6, 3, 2, 1, 1, 1]);
        assert_eq!(ceil_log2(1), 0);
        assert_eq!(ceil_log2(5), 3);
        assert_eq!(ceil_log2(8), 3);
    }

    #[test]
    fn every_tree_spans_all_ranks_once() {
        for a in Algorithm::ALL
            .into_iter()
            .filter(|&a| a != Algorithm::Direct)
        {
            for p in 1..40 {
                let mut seen = vec![0; p];
                seen[0] += 1;
                for r in 0..p {
                    for c in children(a, p, r) {
                        assert!(c > r);
                        seen[c] += 1;
                    }
                }
                assert!(seen.iter().all(|&s| s == 1), "{a:?} {p}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for a in Algorithm::ALL {
            assert_eq!(Algorithm::from_name(a.name()), Some(a));
        }
        for c in Collective::ALL {
            assert_eq!(Collective::from_name(c.name()), Some(c));
        }
        assert_eq!(Algorithm::from_name("ring"), None);
    }
}
