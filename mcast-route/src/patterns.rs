//! Multicast patterns of the paper's §4.2.2: grids of processes and random groups.

use fabric_model::rng;
use fabric_model::{Fabric, NodeId, Placement, place};
use rand::seq::index::sample;

use crate::Error;

/// Groups of a process grid: `dims` processes (x fastest) placed in blocks of
/// `procs_per_terminal` on the fabric's terminals in order; one group per line along each
/// dimension (all lines along x first, then y, …), whose members are the distinct terminals
/// of the line's processes. A 256×32×32 grid gives 17,408 groups; 128×32×40 with four
/// processes per terminal gives 10,496.
///
/// # Errors
/// [`Error::InvalidPattern`] for no dimension, a zero dimension or `procs_per_terminal`, or
/// more processes than the terminals hold.
///
/// # Complexity
/// O(P·d) for P processes and d dimensions.
///
/// ```
/// let f = fabric_model::generators::fat_tree(4)?; // 16 terminals
/// let groups = mcast_route::patterns::grid(&f, &[4, 4], 1)?;
/// assert_eq!(groups.len(), 4 + 4);
/// assert!(groups.iter().all(|g| g.len() == 4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn grid(
    fabric: &Fabric,
    dims: &[u32],
    procs_per_terminal: u32,
) -> Result<Vec<Vec<NodeId>>, Error> {
    if dims.is_empty() {
        return Err(Error::InvalidPattern {
            parameter: "dims",
            reason: "is empty".into(),
        });
    }
    if dims.contains(&0) {
        return Err(Error::InvalidPattern {
            parameter: "dims",
            reason: "holds a zero".into(),
        });
    }
    let ranks = dims
        .iter()
        .try_fold(1u32, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Error::InvalidPattern {
            parameter: "dims",
            reason: "too many processes".into(),
        })?;
    let at = place(
        fabric.terminals(),
        ranks,
        procs_per_terminal,
        Placement::Block,
    )
    .map_err(|e| Error::InvalidPattern {
        parameter: "procs_per_terminal",
        reason: e.to_string(),
    })?;
    let mut stride = vec![1usize; dims.len()];
    for k in 1..dims.len() {
        stride[k] = stride[k - 1] * dims[k - 1] as usize;
    }
    let mut groups = Vec::new();
    for (k, &len) in dims.iter().enumerate() {
        // Every rank whose coordinate k is 0 starts one line along k.
        for r in 0..ranks as usize {
            if !(r / stride[k]).is_multiple_of(len as usize) {
                continue;
            }
            let mut g: Vec<NodeId> = Vec::new();
            for i in 0..len as usize {
                let t = at[r + i * stride[k]];
                if !g.contains(&t) {
                    g.push(t);
                }
            }
            groups.push(g);
        }
    }
    Ok(groups)
}

/// The members of a communicator: the distinct terminals that `placement` (rank → terminal,
/// as [`fabric_model::place`] returns it) gives the `ranks`, in the order they first appear.
/// This is the bridge from a placement of processes to a multicast group (one group per
/// communicator).
///
/// # Errors
/// [`Error::InvalidPattern`] for a rank past the placement.
///
/// # Complexity
/// O(r·m) for r ranks and m members.
///
/// ```
/// use fabric_model::{Placement, generators, place};
///
/// let f = generators::fat_tree(4)?;
/// // Eight ranks, two a terminal: ranks 0..8 sit on the first four terminals.
/// let at = place(f.terminals(), 8, 2, Placement::Block)?;
/// let even = mcast_route::patterns::members_of(&at, &[0, 2, 4, 6])?;
/// assert_eq!(even, f.terminals()[..4]);
/// assert_eq!(mcast_route::patterns::members_of(&at, &[1, 0])?, [f.terminals()[0]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn members_of(placement: &[NodeId], ranks: &[u32]) -> Result<Vec<NodeId>, Error> {
    let mut members: Vec<NodeId> = Vec::new();
    for &r in ranks {
        let &t = placement
            .get(r as usize)
            .ok_or_else(|| Error::InvalidPattern {
                parameter: "ranks",
                reason: format!("rank {r} is past the {} placed", placement.len()),
            })?;
        if !members.contains(&t) {
            members.push(t);
        }
    }
    Ok(members)
}

/// `count` groups of `size` distinct terminals drawn uniformly: `rand`'s
/// `seq::index::sample` over [`fabric_model::rng::seeded`]`(seed)` (ChaCha8), so a seed gives
/// the same groups on every platform.
///
/// # Errors
/// [`Error::InvalidPattern`] when `size` is zero or larger than the number of terminals.
///
/// # Complexity
/// O(count · size).
pub fn random_groups(
    fabric: &Fabric,
    count: usize,
    size: usize,
    seed: u64,
) -> Result<Vec<Vec<NodeId>>, Error> {
    let n = fabric.terminal_count();
    if size == 0 || size > n {
        return Err(Error::InvalidPattern {
            parameter: "size",
            reason: format!("= {size} must be in 1..={n}"),
        });
    }
    let mut rng = rng::seeded(seed);
    Ok((0..count)
        .map(|_| {
            sample(&mut rng, n, size)
                .into_iter()
                .map(|i| fabric.terminals()[i])
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_counts_match_the_paper_formula() {
        let f = fabric_model::generators::fat_tree(8).unwrap(); // 128 terminals
        let g = grid(&f, &[8, 4, 4], 1).unwrap();
        assert_eq!(g.len(), 128 / 8 + 128 / 4 + 128 / 4);
        // Four processes per terminal: lines along x of length 8 span two terminals.
        let g = grid(&f, &[8, 4, 4], 4).unwrap();
        assert_eq!(g.len(), 16 + 32 + 32);
        assert!(g[..16].iter().all(|x| x.len() == 2));
        assert!(g[16..].iter().all(|x| x.len() == 4));
    }

    #[test]
    fn grid_refuses_bad_parameters() {
        let f = fabric_model::generators::fat_tree(4).unwrap();
        for (dims, ppt) in [
            (&[][..], 1),
            (&[4, 0][..], 1),
            (&[4, 4][..], 0),
            (&[8, 8][..], 1),
        ] {
            assert!(
                matches!(grid(&f, dims, ppt), Err(Error::InvalidPattern { .. })),
                "{dims:?}"
            );
        }
    }

    #[test]
    fn random_groups_are_seeded_and_distinct() {
        let f = fabric_model::generators::fat_tree(4).unwrap();
        let a = random_groups(&f, 5, 6, 1).unwrap();
        assert_eq!(a, random_groups(&f, 5, 6, 1).unwrap());
        assert_ne!(a, random_groups(&f, 5, 6, 2).unwrap());
        for g in &a {
            let mut s = g.clone();
            s.sort();
            s.dedup();
            assert_eq!(s.len(), 6);
        }
        assert!(random_groups(&f, 1, 17, 0).is_err());
        assert!(random_groups(&f, 1, 0, 0).is_err());
    }
}
