//! Process placement: which terminal each rank runs on.

use crate::{Error, NodeId};

/// How ranks are laid onto terminals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Fill each terminal before the next: rank r on terminal `r / procs_per_terminal`.
    Block,
    /// Deal ranks out in turn: rank r on terminal `r mod terminals`.
    RoundRobin,
}

/// Places `ranks` processes on `terminals`, at most `procs_per_terminal` per terminal.
/// Returns the terminal of each rank.
///
/// # Errors
/// [`Error::InvalidParameter`] when `procs_per_terminal` is zero; [`Error::PlacementOverflow`]
/// when the ranks do not fit.
///
/// # Complexity
/// O(ranks).
///
/// ```
/// use fabric_model::{place, NodeId, Placement};
///
/// let t = [NodeId::new(7), NodeId::new(8)];
/// assert_eq!(place(&t, 4, 2, Placement::Block)?, [NodeId::new(7), NodeId::new(7), NodeId::new(8), NodeId::new(8)]);
/// assert_eq!(place(&t, 3, 2, Placement::RoundRobin)?, [NodeId::new(7), NodeId::new(8), NodeId::new(7)]);
/// # Ok::<(), fabric_model::Error>(())
/// ```
pub fn place(
    terminals: &[NodeId],
    ranks: u32,
    procs_per_terminal: u32,
    policy: Placement,
) -> Result<Vec<NodeId>, Error> {
    if procs_per_terminal == 0 {
        return Err(Error::InvalidParameter {
            generator: "place",
            parameter: "procs_per_terminal",
            reason: "is zero".to_owned(),
        });
    }
    let capacity = terminals.len() as u64 * u64::from(procs_per_terminal);
    if u64::from(ranks) > capacity {
        return Err(Error::PlacementOverflow {
            ranks,
            terminals: terminals.len(),
            per_terminal: procs_per_terminal,
        });
    }
    let ppt = procs_per_terminal as usize;
    Ok((0..ranks as usize)
        .map(|r| match policy {
            Placement::Block => terminals[r / ppt],
            Placement::RoundRobin => terminals[r % terminals.len()],
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_terminal_gets_more_than_its_share() {
        let t: Vec<NodeId> = (0..5).map(NodeId::new).collect();
        for policy in [Placement::Block, Placement::RoundRobin] {
            for ranks in 0..=15 {
                let p = place(&t, ranks, 3, policy).unwrap();
                assert_eq!(p.len(), ranks as usize);
                for &n in &t {
                    assert!(p.iter().filter(|&&x| x == n).count() <= 3);
                }
            }
        }
    }

    #[test]
    fn overflow_and_zero_are_refused() {
        let t = [NodeId::new(0)];
        assert_eq!(
            place(&t, 3, 2, Placement::Block),
            Err(Error::PlacementOverflow {
                ranks: 3,
                terminals: 1,
                per_terminal: 2
            })
        );
        assert!(matches!(
            place(&t, 1, 0, Placement::Block),
            Err(Error::InvalidParameter {
                parameter: "procs_per_terminal",
                ..
            })
        ));
        assert_eq!(place(&[], 0, 1, Placement::RoundRobin), Ok(vec![]));
    }
}
