//! SMP grouping and the subnet → machine → rank hierarchy as communicator splits (paper §3.3).
//!
//! Every process sends its host name to a root (the paper's `gethostname()` step); processes
//! with the same host name form a machine. With the logical clusters of the machines, the root
//! turns the hierarchy into `MPI_Comm_split(colour, key)` arguments, one per rank and level.

use std::collections::HashMap;
use std::fmt;

use crate::{Error, Partition};

/// Groups ranks by host name: machine `k` is the `k`-th distinct name in rank order.
///
/// # Errors
/// [`Error::EmptyHostName`] for an empty name.
///
/// # Complexity
/// O(R) expected time for R ranks (hashing the names).
///
/// # Example
/// ```
/// let machines = topo_cluster::hierarchy::group_by_host(&["n1", "n2", "n1"])?;
/// assert_eq!(machines.labels(), &[0, 1, 0]);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn group_by_host<S: AsRef<str>>(hosts: &[S]) -> Result<Partition, Error> {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut raw = Vec::with_capacity(hosts.len());
    for (rank, h) in hosts.iter().enumerate() {
        let h = h.as_ref();
        if h.is_empty() {
            return Err(Error::EmptyHostName { rank });
        }
        let next = ids.len();
        raw.push(*ids.entry(h).or_insert(next));
    }
    Ok(Partition::from_raw_labels(&raw))
}

/// A level of the hierarchy, from the innermost out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// The ranks of one machine (shared memory).
    IntraMachine,
    /// One leader per machine, grouped by logical cluster (subnet).
    IntraCluster,
    /// One leader per logical cluster (the wide-area level).
    InterCluster,
}

impl Level {
    /// Every level, innermost first.
    pub const ALL: [Self; 3] = [Self::IntraMachine, Self::IntraCluster, Self::InterCluster];

    /// The name used in text forms: `intra-machine`, `intra-cluster`, `inter-cluster`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::IntraMachine => "intra-machine",
            Self::IntraCluster => "intra-cluster",
            Self::InterCluster => "inter-cluster",
        }
    }

    /// The level called `name` (see [`Level::name`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl fmt::Display for Level {
    /// The name used in text forms (`intra-machine`, `intra-cluster`, `inter-cluster`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The arguments of one rank's `MPI_Comm_split` for one level: `colour` is `None` where the
/// rank passes `MPI_UNDEFINED` (it is not a member of that level's communicators).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Split {
    /// The colour, or `None` for `MPI_UNDEFINED`.
    pub colour: Option<u32>,
    /// The key (the rank, so sub-communicators keep the global order).
    pub key: u32,
}

/// Where one rank sits in the hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Position {
    /// Its logical cluster (subnet).
    pub cluster: usize,
    /// Its machine (node of the latency matrix).
    pub machine: usize,
    /// Its rank among the ranks of its machine.
    pub local_rank: usize,
    /// Whether it leads its machine (lowest rank there).
    pub machine_leader: bool,
    /// Whether it leads its cluster (lowest rank there).
    pub cluster_leader: bool,
}

/// The subnet → machine → rank hierarchy of a job. Machines may hold different numbers of
/// ranks (unbalanced placements are fine: leaders are the lowest ranks, colours do not assume
/// a regular layout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    positions: Vec<Position>,
    clusters: usize,
}

impl Hierarchy {
    /// Builds the hierarchy from each rank's host name, the names of the nodes of the latency
    /// matrix, and the logical clusters of those nodes.
    ///
    /// # Errors
    /// [`Error::NameCount`], [`Error::DuplicateNodeName`], [`Error::EmptyHostName`],
    /// [`Error::UnknownHost`].
    ///
    /// # Complexity
    /// O(R + n) expected time for R ranks and n nodes.
    pub fn build<S: AsRef<str>, T: AsRef<str>>(
        rank_hosts: &[S],
        node_names: &[T],
        clusters: &Partition,
    ) -> Result<Self, Error> {
        if node_names.len() != clusters.node_count() {
            return Err(Error::NameCount {
                names: node_names.len(),
                nodes: clusters.node_count(),
            });
        }
        let mut node_of: HashMap<&str, usize> = HashMap::new();
        for (i, name) in node_names.iter().enumerate() {
            if let Some(first) = node_of.insert(name.as_ref(), i) {
                return Err(Error::DuplicateNodeName {
                    name: name.as_ref().to_owned(),
                    first,
                    second: i,
                });
            }
        }
        let mut local_count = vec![0_usize; node_names.len()];
        let mut cluster_seen = vec![false; clusters.len()];
        let mut positions = Vec::with_capacity(rank_hosts.len());
        for (rank, host) in rank_hosts.iter().enumerate() {
            let host = host.as_ref();
            if host.is_empty() {
                return Err(Error::EmptyHostName { rank });
            }
            let &machine = node_of.get(host).ok_or_else(|| Error::UnknownHost {
                rank,
                host: host.to_owned(),
            })?;
            let cluster = clusters.label(machine);
            let local_rank = local_count[machine];
            local_count[machine] += 1;
            let cluster_leader = !cluster_seen[cluster];
            cluster_seen[cluster] = true;
            positions.push(Position {
                cluster,
                machine,
                local_rank,
                machine_leader: local_rank == 0,
                cluster_leader,
            });
        }
        Ok(Self {
            positions,
            clusters: clusters.len(),
        })
    }

    /// Where every rank sits.
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Number of logical clusters of the partition (some may have no rank).
    #[must_use]
    pub fn cluster_count(&self) -> usize {
        self.clusters
    }

    /// The `MPI_Comm_split` arguments of every rank for `level`:
    /// [`Level::IntraMachine`] colours by machine; [`Level::IntraCluster`] gives machine leaders
    /// their cluster as colour; [`Level::InterCluster`] gives cluster leaders colour 0. Keys are
    /// the ranks.
    ///
    /// # Complexity
    /// O(R).
    #[must_use]
    pub fn splits(&self, level: Level) -> Vec<Split> {
        self.positions
            .iter()
            .enumerate()
            .map(|(rank, p)| {
                let colour = match level {
                    Level::IntraMachine => Some(p.machine as u32),
                    Level::IntraCluster => p.machine_leader.then_some(p.cluster as u32),
                    Level::InterCluster => p.cluster_leader.then_some(0),
                };
                Split {
                    colour,
                    key: rank as u32,
                }
            })
            .collect()
    }

    /// The distinct sizes of `level`'s communicators, increasing: the group sizes a decision
    /// table needs for that level ([`crate::DecisionTable::compute`]).
    ///
    /// # Complexity
    /// O(R log R).
    #[must_use]
    pub fn group_sizes(&self, level: Level) -> Vec<usize> {
        let mut sizes: Vec<usize> = self.communicators(level).iter().map(Vec::len).collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// Every communicator size the job will have: the group sizes of every level and the
    /// whole job's size (`MPI_COMM_WORLD`), increasing. A file for a library that tells
    /// communicators apart by size only (Open MPI, MPICH's `comm_hierarchy=any`) should hold
    /// rules for all of them: compute its table over these.
    ///
    /// # Complexity
    /// O(R log R).
    #[must_use]
    pub fn communicator_sizes(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = Level::ALL
            .into_iter()
            .flat_map(|l| self.group_sizes(l))
            .collect();
        sizes.push(self.positions.len());
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// The members (ranks, increasing) of every communicator a level's splits produce, in
    /// increasing colour order: what `MPI_Comm_split` would build from [`Hierarchy::splits`].
    ///
    /// # Complexity
    /// O(R log R).
    #[must_use]
    pub fn communicators(&self, level: Level) -> Vec<Vec<usize>> {
        let mut by_colour: Vec<(u32, u32, usize)> = self
            .splits(level)
            .into_iter()
            .enumerate()
            .filter_map(|(rank, s)| s.colour.map(|c| (c, s.key, rank)))
            .collect();
        by_colour.sort_unstable();
        let mut out: Vec<Vec<usize>> = Vec::new();
        let mut last = None;
        for (c, _, rank) in by_colour {
            if last != Some(c) {
                out.push(Vec::new());
                last = Some(c);
            }
            if let Some(comm) = out.last_mut() {
                comm.push(rank);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn group_by_host_first_appearance_and_errors() {
        let p = group_by_host(&["b", "a", "b", "c", "a"]).unwrap();
        assert_eq!(p.labels(), &[0, 1, 0, 2, 1]);
        assert_eq!(
            group_by_host(&["a", ""]),
            Err(Error::EmptyHostName { rank: 1 })
        );
    }

    /// machines m0,m1 in cluster 0, m2 in cluster 1; unbalanced: m0 has 3 ranks, m1 one, m2 two.
    fn unbalanced() -> Hierarchy {
        let clusters = Partition::from_raw_labels(&[0, 0, 1]);
        let hosts = ["m2", "m0", "m0", "m1", "m2", "m0"];
        Hierarchy::build(&hosts, &["m0", "m1", "m2"], &clusters).unwrap()
    }

    #[test]
    fn unbalanced_splits() {
        let h = unbalanced();
        assert_eq!(
            h.communicators(Level::IntraMachine),
            vec![vec![1, 2, 5], vec![3], vec![0, 4]]
        );
        // machine leaders: 0 (m2), 1 (m0), 3 (m1); grouped by cluster
        assert_eq!(
            h.communicators(Level::IntraCluster),
            vec![vec![1, 3], vec![0]]
        );
        // cluster leaders: rank 0 (cluster 1), rank 1 (cluster 0)
        assert_eq!(h.communicators(Level::InterCluster), vec![vec![0, 1]]);
        let s = h.splits(Level::IntraCluster);
        assert_eq!(
            s[2],
            Split {
                colour: None,
                key: 2
            }
        );
        assert_eq!(
            s[3],
            Split {
                colour: Some(0),
                key: 3
            }
        );
        assert_eq!(h.positions()[5].local_rank, 2);
        assert_eq!(h.group_sizes(Level::IntraMachine), vec![1, 2, 3]);
        assert_eq!(h.group_sizes(Level::IntraCluster), vec![1, 2]);
        assert_eq!(h.group_sizes(Level::InterCluster), vec![2]);
        assert_eq!(h.cluster_count(), 2);
    }

    #[test]
    fn build_errors() {
        let c = Partition::from_raw_labels(&[0, 1]);
        assert_eq!(
            Hierarchy::build(&["x"], &["a", "b"], &c),
            Err(Error::UnknownHost {
                rank: 0,
                host: "x".into()
            })
        );
        assert_eq!(
            Hierarchy::build(&["a"], &["a", "a"], &c),
            Err(Error::DuplicateNodeName {
                name: "a".into(),
                first: 0,
                second: 1
            })
        );
        assert_eq!(
            Hierarchy::build(&["a"], &["a"], &c),
            Err(Error::NameCount { names: 1, nodes: 2 })
        );
        assert_eq!(
            Hierarchy::build(&["a", ""], &["a", "b"], &c),
            Err(Error::EmptyHostName { rank: 1 })
        );
    }

    #[test]
    fn level_names_round_trip() {
        for l in Level::ALL {
            assert_eq!(Level::from_name(l.name()), Some(l));
        }
        assert_eq!(Level::from_name("grid"), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// For any placement: machine communicators partition the ranks; each machine and
        /// cluster has exactly one leader, the lowest rank; the intra-cluster communicators
        /// hold exactly the machine leaders of one cluster.
        #[test]
        fn splits_partition_the_ranks(
            cluster_of in proptest::collection::vec(0_usize..4, 1..8),
            ranks in proptest::collection::vec(0_usize..8, 0..40),
        ) {
            let n = cluster_of.len();
            let clusters = Partition::from_raw_labels(&cluster_of);
            let names: Vec<String> = (0..n).map(|i| format!("h{i}")).collect();
            let hosts: Vec<String> = ranks.iter().map(|r| format!("h{}", r % n)).collect();
            let h = Hierarchy::build(&hosts, &names, &clusters).unwrap();
            let machines = h.communicators(Level::IntraMachine);
            let mut all: Vec<usize> = machines.concat();
            all.sort_unstable();
            prop_assert_eq!(all, (0..hosts.len()).collect::<Vec<_>>());
            for comm in &machines {
                let m = h.positions()[comm[0]].machine;
                prop_assert!(comm.iter().all(|&r| h.positions()[r].machine == m));
                prop_assert!(h.positions()[comm[0]].machine_leader);
                prop_assert!(comm[1..].iter().all(|&r| !h.positions()[r].machine_leader));
            }
            for comm in h.communicators(Level::IntraCluster) {
                let c = h.positions()[comm[0]].cluster;
                prop_assert!(comm.iter().all(|&r| h.positions()[r].cluster == c && h.positions()[r].machine_leader));
            }
            let inter = h.communicators(Level::InterCluster);
            let used: std::collections::BTreeSet<usize> = h.positions().iter().map(|p| p.cluster).collect();
            prop_assert_eq!(inter.concat().len(), used.len());
        }
    }
}
