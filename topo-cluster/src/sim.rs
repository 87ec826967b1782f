//! A small discrete-event simulator of the same trees the cost models describe, in the pLogP
//! semantics: a sender is busy g(x) per x-byte message, the message completes at the receiver
//! L + g(x) after the send starts, and a receiver completes at most one x-byte message every
//! g(x) (messages are received in arrival order).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fmt;

use fabric_model::Bytes;

use crate::trees::{check, children, subtree_sizes};
use crate::{Algorithm, Collective, Error, PLogP};

/// What a simulation reports.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SimResult {
    /// Time the last message completes (0 when nothing is sent).
    pub makespan_ns: f64,
    /// Time each rank completes its last reception (0 for a rank that receives nothing).
    pub finish_ns: Vec<f64>,
    /// Number of messages sent.
    pub messages: usize,
}

impl fmt::Display for SimResult {
    /// `makespan 17256.342 µs, 7 messages`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "makespan {:.3} µs, {} messages",
            self.makespan_ns / 1000.0,
            self.messages
        )
    }
}

#[derive(Debug, Clone, Copy)]
struct Send {
    to: usize,
    bytes: u64,
    /// Receptions needed before this send may start.
    need: usize,
}

#[derive(Debug, PartialEq)]
struct Event {
    time: f64,
    seq: u64,
    to: usize,
    bytes: u64,
}

impl Eq for Event {}

impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        // a min-heap on (time, seq)
        other
            .time
            .total_cmp(&self.time)
            .then(other.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Segment sizes of an `m`-byte message cut at `segment` bytes (one empty segment for m = 0).
pub(crate) fn segments(m: u64, segment: Option<u64>) -> Vec<u64> {
    match segment {
        Some(s) if s > 0 && s < m => {
            let mut v = vec![s; (m / s) as usize];
            if !m.is_multiple_of(s) {
                v.push(m % s);
            }
            v
        }
        _ => vec![m],
    }
}

fn programs(
    collective: Collective,
    algorithm: Algorithm,
    procs: usize,
    m: u64,
    segment: Option<u64>,
) -> Vec<Vec<Send>> {
    let kids: Vec<Vec<usize>> = (0..procs).map(|r| children(algorithm, procs, r)).collect();
    match collective {
        Collective::Broadcast => {
            let segs = segments(m, segment.filter(|_| algorithm.is_segmented()));
            (0..procs)
                .map(|r| {
                    let mut p = Vec::new();
                    for (i, &bytes) in segs.iter().enumerate() {
                        for &c in &kids[r] {
                            let need = if r == 0 { 0 } else { i + 1 };
                            p.push(Send { to: c, bytes, need });
                        }
                    }
                    p
                })
                .collect()
        }
        Collective::Scatter => {
            let size = subtree_sizes(algorithm, procs);
            (0..procs)
                .map(|r| {
                    kids[r]
                        .iter()
                        .map(|&c| Send {
                            to: c,
                            bytes: (size[c] as u64).saturating_mul(m),
                            need: usize::from(r != 0),
                        })
                        .collect()
                })
                .collect()
        }
        Collective::Gather => {
            let size = subtree_sizes(algorithm, procs);
            let mut parent = vec![usize::MAX; procs];
            for (r, k) in kids.iter().enumerate() {
                for &c in k {
                    parent[c] = r;
                }
            }
            (0..procs)
                .map(|r| {
                    if r == 0 {
                        Vec::new()
                    } else {
                        vec![Send {
                            to: parent[r],
                            bytes: (size[r] as u64).saturating_mul(m),
                            need: kids[r].len(),
                        }]
                    }
                })
                .collect()
        }
        Collective::AllToAll => (0..procs)
            .map(|r| {
                (1..procs)
                    .map(|k| Send {
                        to: (r + k) % procs,
                        bytes: m,
                        need: 0,
                    })
                    .collect()
            })
            .collect(),
    }
}

struct Node {
    sends: Vec<Send>,
    next: usize,
    send_free: f64,
    recv_free: Option<f64>,
    completions: Vec<f64>,
}

/// Simulates `collective` with `algorithm` over `procs` ranks of one homogeneous cluster
/// described by `params`, for `m` bytes per block and segments of `segment` bytes (segmented
/// algorithms only). Every rank sends as soon as its data is there and its previous send is
/// done; the broadcast trees send segment by segment, each segment to every child in order.
///
/// # Errors
/// [`Error::NoProcesses`], [`Error::UnsupportedAlgorithm`], [`Error::ZeroSegment`].
///
/// Block sizes saturate at `u64::MAX` bytes.
///
/// # Complexity
/// O(M log M + M log t) time and O(M) memory for M messages (P·⌈m/s⌉ for a segmented broadcast, P(P−1) for
/// all-to-all) and t table points.
///
/// # Example
/// ```
/// use topo_cluster::collective::simulate;
/// use topo_cluster::{Algorithm, Collective, PLogP};
/// let p = PLogP::linear(50_000.0, 20_000.0, 0.0)?;
/// // chain of 4: three hops of g + L
/// let r = simulate(Collective::Broadcast, Algorithm::Chain, 4, fabric_model::Bytes::new(1), None, &p)?;
/// assert_eq!(r.makespan_ns, 3.0 * 70_000.0);
/// # Ok::<(), topo_cluster::Error>(())
/// ```
pub fn simulate(
    collective: Collective,
    algorithm: Algorithm,
    procs: usize,
    m: Bytes,
    segment: Option<Bytes>,
    params: &PLogP,
) -> Result<SimResult, Error> {
    let (m, segment) = (m.get(), segment.map(Bytes::get));
    check(collective, algorithm, procs, segment)?;
    let lat = params.latency_ns();
    let mut nodes: Vec<Node> = programs(collective, algorithm, procs, m, segment)
        .into_iter()
        .map(|sends| Node {
            sends,
            next: 0,
            send_free: 0.0,
            recv_free: None,
            completions: Vec::new(),
        })
        .collect();
    let mut heap = BinaryHeap::new();
    let mut seq = 0_u64;
    let issue = |node: &mut Node, heap: &mut BinaryHeap<Event>, seq: &mut u64| {
        while let Some(&s) = node.sends.get(node.next) {
            if s.need > node.completions.len() {
                break;
            }
            let ready = if s.need == 0 {
                0.0
            } else {
                node.completions[s.need - 1]
            };
            let start = ready.max(node.send_free);
            let g = params.gap_raw(s.bytes);
            node.send_free = start + g;
            heap.push(Event {
                time: start + g + lat,
                seq: *seq,
                to: s.to,
                bytes: s.bytes,
            });
            *seq += 1;
            node.next += 1;
        }
    };
    for node in &mut nodes {
        issue(node, &mut heap, &mut seq);
    }
    let mut makespan = 0.0_f64;
    while let Some(e) = heap.pop() {
        let node = &mut nodes[e.to];
        let done = match node.recv_free {
            Some(r) => e.time.max(r + params.gap_raw(e.bytes)),
            None => e.time,
        };
        node.recv_free = Some(done);
        node.completions.push(done);
        makespan = makespan.max(done);
        issue(node, &mut heap, &mut seq);
    }
    debug_assert!(nodes.iter().all(|n| n.next == n.sends.len()));
    Ok(SimResult {
        makespan_ns: makespan,
        finish_ns: nodes
            .iter()
            .map(|n| n.completions.last().copied().unwrap_or(0.0))
            .collect(),
        messages: seq as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_cut() {
        assert_eq!(segments(10, Some(4)), vec![4, 4, 2]);
        assert_eq!(segments(8, Some(4)), vec![4, 4]);
        assert_eq!(segments(3, Some(4)), vec![3]);
        assert_eq!(segments(0, Some(4)), vec![0]);
        assert_eq!(segments(9, None), vec![9]);
    }

    #[test]
    fn receive_gap_serialises_a_flat_gather() {
        let p = PLogP::linear(10.0, 100.0, 0.0).unwrap();
        let r = simulate(
            Collective::Gather,
            Algorithm::Flat,
            4,
            Bytes::new(8),
            None,
            &p,
        )
        .unwrap();
        // three messages arrive together at g + L, completed one g apart
        assert_eq!(r.makespan_ns, 3.0 * 100.0 + 10.0);
        assert_eq!(r.messages, 3);
        assert_eq!(r.finish_ns[1], 0.0);
    }

    #[test]
    fn errors() {
        let p = PLogP::linear(10.0, 100.0, 0.0).unwrap();
        assert_eq!(
            simulate(
                Collective::Broadcast,
                Algorithm::Flat,
                0,
                Bytes::new(1),
                None,
                &p
            ),
            Err(Error::NoProcesses)
        );
        assert_eq!(
            simulate(
                Collective::Broadcast,
                Algorithm::SegmentedChain,
                3,
                Bytes::new(1),
                Some(Bytes::new(0)),
                &p
            ),
            Err(Error::ZeroSegment)
        );
        assert_eq!(
            simulate(
                Collective::Gather,
                Algorithm::Binary,
                3,
                Bytes::new(1),
                None,
                &p
            ),
            Err(Error::UnsupportedAlgorithm {
                collective: "gather",
                algorithm: "binary"
            })
        );
    }
}
