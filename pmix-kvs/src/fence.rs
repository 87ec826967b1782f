//! Fence collectives: allgatherv of every node's blob as sans-IO state machines (paper §4.3:
//! Polyakov et al. replaced Slurm's tree and ring fences by a modified Bruck allgatherv).
//!
//! A [`FenceNode`] is one node of one fence. Hand it the messages that arrive
//! ([`FenceNode::handle`]), send what [`FenceNode::poll_transmit`] yields, and stop when
//! [`FenceNode::is_complete`]; then [`FenceNode::into_blobs`] holds every node's blob, indexed
//! by node. Nothing is sent on a clock, so there is no timer to drive; messages may arrive in
//! any order. With `collect == false` (PMIx's default barrier-only fence) the same messages
//! flow with empty blocks.
//!
//! * **Ring** (Slurm `pmixp_coll_ring.c`): in round r node i sends to i+1 the block it got in
//!   round r−1 (its own in round 0): N−1 rounds, N(N−1) messages.
//! * **Bruck** (the modified Bruck of the paper; `artpol84/poc` `bruck_test.c`): in round k
//!   node i sends to i−2^k the first min(2^k, N−2^k) blocks it holds (i, i+1, …): ⌈log₂N⌉
//!   rounds, N⌈log₂N⌉ messages, (N−1) blocks received per node, for any N.
//! * **Tree** (Slurm `pmixp_coll_tree.c`, radix 16 by default): gather up a radix-k tree to
//!   node 0, which sends the whole set back down: 2·height rounds, 2(N−1) messages.
//!
//! [`Message::encode`] and [`Message::decode`] put a message on a wire (a versioned byte
//! layout); [`BlobFence`] runs a fence whose inputs and outputs are [`FenceBlob`]s and
//! whose messages are bytes.
//!
//! [`simulate`] runs N nodes in lock-step rounds and [`model`] gives each algorithm's α–β cost
//! (up to 10⁵ nodes and beyond).

use std::collections::VecDeque;
use std::fmt;

use fabric_model::{BitsPerSec, Bytes, Nanos};

#[cfg(doc)]
use crate::FenceBlob;
use crate::error::{Error, Result};

mod wire;
pub use wire::{BlobFence, WIRE_MAGIC, WIRE_VERSION, WireTransmit};

/// Slurm's default tree width (`DEFAULT_TREE_WIDTH`).
pub const DEFAULT_RADIX: usize = 16;

/// Which collective a fence uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Algorithm {
    /// Gather up a tree of this radix, then broadcast down.
    Tree {
        /// Children per node (≥ 2).
        radix: usize,
    },
    /// Ring allgather.
    Ring,
    /// Bruck allgatherv.
    Bruck,
}

impl Algorithm {
    /// The tree with Slurm's default radix 16.
    pub const TREE: Self = Self::Tree {
        radix: DEFAULT_RADIX,
    };

    /// A short name (`tree`, `ring`, `bruck`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Tree { .. } => "tree",
            Self::Ring => "ring",
            Self::Bruck => "bruck",
        }
    }
}

impl fmt::Display for Algorithm {
    /// `tree (radix 16)`, `ring`, `bruck`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tree { radix } => write!(f, "tree (radix {radix})"),
            _ => f.write_str(self.name()),
        }
    }
}

/// One node's blob inside a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The node whose contribution this is.
    pub origin: u32,
    /// Its bytes (empty in a barrier-only fence).
    pub data: Vec<u8>,
}

/// Bytes of framing per message and per block that [`Message::wire_len`] counts: round and
/// count (4 + 4), origin and length (4 + 4).
pub const HEADER_BYTES: usize = 8;

/// A fence message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Round: the step for ring and Bruck; 0 up and 1 down for the tree.
    pub round: u32,
    /// The blocks carried.
    pub blocks: Vec<Block>,
}

impl Message {
    /// Payload bytes (the blocks' data).
    #[must_use]
    pub fn data_len(&self) -> usize {
        self.blocks.iter().map(|b| b.data.len()).sum()
    }

    /// Bytes on the wire with [`HEADER_BYTES`] of framing per message and per block.
    #[must_use]
    pub fn wire_len(&self) -> usize {
        HEADER_BYTES + self.blocks.len() * HEADER_BYTES + self.data_len()
    }
}

/// A message to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// The destination node.
    pub to: usize,
    /// The message.
    pub message: Message,
}

/// ⌈log₂ n⌉ (0 for n ≤ 1).
#[must_use]
pub(crate) fn ceil_log2(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// Height of the radix-`radix` tree over `n` nodes numbered breadth-first (node 0 is the
/// root; node i's parent is (i−1)/radix): the depth of node n−1.
#[must_use]
#[cfg(test)]
pub(crate) fn tree_height(n: usize, radix: usize) -> u32 {
    let mut depth = 0;
    let mut i = n.saturating_sub(1);
    while i > 0 {
        i = (i - 1) / radix.max(2);
        depth += 1;
    }
    depth
}

/// One node of a fence.
#[derive(Debug, Clone)]
pub struct FenceNode {
    alg: Algorithm,
    me: usize,
    n: usize,
    blocks: Vec<Option<Vec<u8>>>,
    held: usize,
    out: VecDeque<Transmit>,
    /// Ring: rounds received. Bruck: rounds received. Tree: children heard from (up) and
    /// whether the down message came (index 0).
    seen: Vec<bool>,
    /// Bruck: next round to send.
    next_round: u32,
    done: bool,
}

impl FenceNode {
    /// Node `me` of `n` contributing `blob` (ignored, and empty blocks sent, when `collect`
    /// is false). A node may have transmits ready at once.
    ///
    /// # Errors
    /// [`Error::BadFenceShape`] unless `me < n`; [`Error::BadRadix`] for a tree radix below 2.
    ///
    /// # Complexity
    /// O(N) memory per node (a slot per node's blob).
    pub fn new(alg: Algorithm, me: usize, n: usize, blob: Vec<u8>, collect: bool) -> Result<Self> {
        if me >= n || u32::try_from(n).is_err() {
            return Err(Error::BadFenceShape { node: me, nodes: n });
        }
        if let Algorithm::Tree { radix } = alg
            && radix < 2
        {
            return Err(Error::BadRadix { radix });
        }
        let mut blocks = vec![None; n];
        blocks[me] = Some(if collect { blob } else { Vec::new() });
        let seen_len = match alg {
            Algorithm::Ring => n.saturating_sub(1),
            Algorithm::Bruck => ceil_log2(n) as usize,
            Algorithm::Tree { radix } => radix + 1,
        };
        let mut node = Self {
            alg,
            me,
            n,
            blocks,
            held: 1,
            out: VecDeque::new(),
            seen: vec![false; seen_len],
            next_round: 0,
            done: n == 1,
        };
        node.start();
        Ok(node)
    }

    fn start(&mut self) {
        match self.alg {
            _ if self.n == 1 => {}
            Algorithm::Ring => {
                let b = self.block(self.me);
                self.send((self.me + 1) % self.n, 0, vec![b]);
            }
            Algorithm::Bruck => self.bruck_progress(),
            Algorithm::Tree { .. } => self.tree_progress(),
        }
    }

    fn block(&self, origin: usize) -> Block {
        Block {
            origin: origin as u32,
            data: self.blocks[origin].clone().unwrap_or_default(),
        }
    }

    fn send(&mut self, to: usize, round: u32, blocks: Vec<Block>) {
        self.out.push_back(Transmit {
            to,
            message: Message { round, blocks },
        });
    }

    fn bad(&self, from: usize, reason: &'static str) -> Error {
        Error::BadFenceMessage {
            node: self.me,
            from,
            reason,
        }
    }

    /// Stores `blocks`, which must be exactly the origins `expected` (in order).
    fn take_blocks(
        &mut self,
        from: usize,
        blocks: Vec<Block>,
        expected: impl Iterator<Item = usize>,
    ) -> Result<()> {
        let mut expected = expected.peekable();
        let mut checked = Vec::with_capacity(blocks.len());
        for b in blocks {
            let o = b.origin as usize;
            if expected.next() != Some(o) {
                return Err(self.bad(from, "unexpected block origin"));
            }
            if self.blocks[o].is_some() {
                return Err(self.bad(from, "duplicate block"));
            }
            checked.push((o, b.data));
        }
        if expected.peek().is_some() {
            return Err(self.bad(from, "missing blocks"));
        }
        for (o, data) in checked {
            self.blocks[o] = Some(data);
            self.held += 1;
        }
        Ok(())
    }

    /// Hands in a message from node `from`.
    ///
    /// # Errors
    /// [`Error::BadFenceMessage`] for a message this node cannot have been sent (wrong sender,
    /// round, origins, duplicates); the node's state is unchanged then.
    pub fn handle(&mut self, from: usize, message: Message) -> Result<()> {
        if from >= self.n || from == self.me {
            return Err(self.bad(from, "sender outside the fence"));
        }
        let n = self.n;
        match self.alg {
            Algorithm::Ring => {
                let r = message.round as usize;
                if from != (self.me + n - 1) % n {
                    return Err(self.bad(from, "ring message not from the predecessor"));
                }
                if r >= n - 1 || self.seen[r] {
                    return Err(self.bad(from, "ring round out of range or repeated"));
                }
                let origin = (from + n - r) % n;
                self.take_blocks(from, message.blocks, std::iter::once(origin))?;
                self.seen[r] = true;
                if r + 1 < n - 1 {
                    let b = self.block(origin);
                    self.send((self.me + 1) % n, message.round + 1, vec![b]);
                }
            }
            Algorithm::Bruck => {
                let k = message.round;
                let rounds = self.seen.len() as u32;
                if k >= rounds || self.seen[k as usize] {
                    return Err(self.bad(from, "Bruck round out of range or repeated"));
                }
                let d = 1usize << k;
                if from != (self.me + d) % n {
                    return Err(self.bad(from, "Bruck message from the wrong node"));
                }
                let count = d.min(n - d);
                self.take_blocks(from, message.blocks, (0..count).map(|j| (from + j) % n))?;
                self.seen[k as usize] = true;
                self.bruck_progress();
            }
            Algorithm::Tree { radix } => {
                let first_child = self.me * radix + 1;
                if message.round == 0 {
                    if from < first_child || from >= (first_child + radix).min(n) {
                        return Err(self.bad(from, "tree up message not from a child"));
                    }
                    let c = from - first_child + 1;
                    if self.seen[c] {
                        return Err(self.bad(from, "repeated up message"));
                    }
                    let subtree = subtree(from, n, radix);
                    let mut origins = message
                        .blocks
                        .iter()
                        .map(|b| b.origin as usize)
                        .collect::<Vec<_>>();
                    origins.sort_unstable();
                    if origins != subtree {
                        return Err(self.bad(from, "up message is not the child's subtree"));
                    }
                    let mut blocks = message.blocks;
                    blocks.sort_by_key(|b| b.origin);
                    self.take_blocks(from, blocks, subtree.into_iter())?;
                    self.seen[c] = true;
                } else {
                    if self.me == 0 || from != (self.me - 1) / radix || message.round != 1 {
                        return Err(self.bad(from, "tree down message not from the parent"));
                    }
                    if self.seen[0] {
                        return Err(self.bad(from, "repeated down message"));
                    }
                    let mine = subtree(self.me, n, radix);
                    let expected: Vec<usize> =
                        (0..n).filter(|o| mine.binary_search(o).is_err()).collect();
                    let blocks: Vec<Block> = message
                        .blocks
                        .into_iter()
                        .filter(|b| mine.binary_search(&(b.origin as usize)).is_err())
                        .collect();
                    self.take_blocks(from, blocks, expected.into_iter())?;
                    self.seen[0] = true;
                }
                self.tree_progress();
            }
        }
        self.done = self.held == n;
        Ok(())
    }

    fn bruck_progress(&mut self) {
        let n = self.n;
        let rounds = self.seen.len() as u32;
        while self.next_round < rounds
            && (self.next_round == 0 || self.seen[self.next_round as usize - 1])
        {
            let d = 1usize << self.next_round;
            let count = d.min(n - d);
            let blocks = (0..count).map(|j| self.block((self.me + j) % n)).collect();
            self.send((self.me + n - d) % n, self.next_round, blocks);
            self.next_round += 1;
        }
    }

    fn tree_progress(&mut self) {
        let Algorithm::Tree { radix } = self.alg else {
            return;
        };
        let n = self.n;
        let first_child = self.me * radix + 1;
        let children = (first_child..(first_child + radix).min(n)).len();
        let all_up = self.seen[1..=children].iter().all(|&s| s);
        if self.next_round == 0 && all_up {
            self.next_round = 1;
            if self.me == 0 {
                self.seen[0] = true; // the root needs no down message
            } else {
                let blocks = subtree(self.me, n, radix)
                    .into_iter()
                    .map(|o| self.block(o))
                    .collect();
                self.send((self.me - 1) / radix, 0, blocks);
            }
        }
        if self.next_round == 1 && self.seen[0] {
            self.next_round = 2;
            for c in first_child..(first_child + radix).min(n) {
                let blocks = (0..n).map(|o| self.block(o)).collect();
                self.send(c, 1, blocks);
            }
        }
    }

    /// The next message to send, if any.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.pop_front()
    }

    /// Whether this node holds every node's blob (for a tree, also that it has nothing left to
    /// forward down).
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.done && self.out.is_empty()
    }

    /// Every node's blob, indexed by node, once complete.
    ///
    /// # Errors
    /// [`Error::BadFenceShape`] if the fence is not complete yet.
    pub fn into_blobs(self) -> Result<Vec<Vec<u8>>> {
        if !self.done {
            return Err(Error::BadFenceShape {
                node: self.me,
                nodes: self.n,
            });
        }
        Ok(self
            .blocks
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect())
    }
}

/// The nodes of the subtree rooted at `root`, sorted.
fn subtree(root: usize, n: usize, radix: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut lo, mut hi) = (root, root + 1);
    while lo < n {
        out.extend(lo..hi.min(n));
        lo = lo * radix + 1;
        hi = (hi - 1) * radix + radix + 1;
    }
    out
}

/// What a lock-step run of a fence measured.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SimReport {
    /// Rounds (a round delivers every message sent in the previous one).
    pub rounds: u32,
    /// Messages sent.
    pub messages: u64,
    /// The largest, over nodes, of max(bytes sent, bytes received), with framing
    /// ([`Message::wire_len`]).
    pub max_bytes_per_node: Bytes,
    /// Per round, per node: (messages sent, messages received, data bytes sent, data bytes
    /// received).
    pub per_round: Vec<Vec<(u32, u32, u64, u64)>>,
    /// Each node's blobs at the end.
    pub blobs: Vec<Vec<Vec<u8>>>,
}

impl fmt::Display for SimReport {
    /// `4 nodes: 2 rounds, 8 messages, at most 104 B sent or received by a node`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} nodes: {} rounds, {} messages, at most {} sent or received by a node",
            self.blobs.len(),
            self.rounds,
            self.messages,
            self.max_bytes_per_node
        )
    }
}

/// Runs a fence of `blobs.len()` nodes in lock-step rounds until every node is complete.
///
/// # Errors
/// [`Error::BadFenceShape`] for zero nodes or a fence that stalls; [`Error::BadRadix`].
///
/// # Complexity
/// O(messages × blocks per message) time, O(N²) memory for the final blobs.
pub fn simulate(alg: Algorithm, blobs: Vec<Vec<u8>>, collect: bool) -> Result<SimReport> {
    let n = blobs.len();
    if n == 0 {
        return Err(Error::BadFenceShape { node: 0, nodes: 0 });
    }
    let mut nodes = blobs
        .into_iter()
        .enumerate()
        .map(|(i, b)| FenceNode::new(alg, i, n, b, collect))
        .collect::<Result<Vec<_>>>()?;
    let mut report = SimReport {
        rounds: 0,
        messages: 0,
        max_bytes_per_node: Bytes::new(0),
        per_round: Vec::new(),
        blobs: Vec::new(),
    };
    let mut sent_total = vec![0u64; n];
    let mut recv_total = vec![0u64; n];
    loop {
        let mut batch = Vec::new();
        for (i, node) in nodes.iter_mut().enumerate() {
            while let Some(t) = node.poll_transmit() {
                batch.push((i, t));
            }
        }
        if batch.is_empty() {
            break;
        }
        report.rounds += 1;
        let mut stats = vec![(0u32, 0u32, 0u64, 0u64); n];
        for (from, t) in batch {
            let data = t.message.data_len() as u64;
            let wire = t.message.wire_len() as u64;
            stats[from].0 += 1;
            stats[from].2 += data;
            stats[t.to].1 += 1;
            stats[t.to].3 += data;
            sent_total[from] += wire;
            recv_total[t.to] += wire;
            report.messages += 1;
            nodes[t.to].handle(from, t.message)?;
        }
        report.per_round.push(stats);
    }
    if !nodes.iter().all(FenceNode::is_complete) {
        return Err(Error::BadFenceShape { node: 0, nodes: n });
    }
    report.max_bytes_per_node = Bytes::new(
        sent_total
            .iter()
            .zip(&recv_total)
            .map(|(s, r)| *s.max(r))
            .max()
            .unwrap_or(0),
    );
    report.blobs = nodes
        .into_iter()
        .map(FenceNode::into_blobs)
        .collect::<Result<Vec<_>>>()?;
    Ok(report)
}

/// The α–β (Hockney) cost parameters: a message of m bytes costs α + m·β, with the
/// per-message latency α and the per-byte time β = 1/bandwidth.
///
/// ```
/// use fabric_model::{BitsPerSec, Nanos};
/// use pmix_kvs::fence::AlphaBeta;
///
/// let ab = AlphaBeta::new(Nanos::from_micros(2), BitsPerSec::from_gbps(100));
/// assert_eq!(ab, AlphaBeta::default());
/// assert_eq!((ab.alpha_us(), ab.beta_us_per_byte()), (2.0, 1.0 / 12_500.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AlphaBeta {
    alpha: Nanos,
    bandwidth: BitsPerSec,
}

impl Default for AlphaBeta {
    /// α = 2 µs, 100 Gb/s (β = 1/12 500 µs per byte): a modern HPC interconnect's order of
    /// magnitude.
    fn default() -> Self {
        Self::new(Nanos::from_micros(2), BitsPerSec::from_gbps(100))
    }
}

impl AlphaBeta {
    /// Latency `alpha` per message and `bandwidth` (β = 1 / bandwidth).
    #[must_use]
    pub const fn new(alpha: Nanos, bandwidth: BitsPerSec) -> Self {
        Self { alpha, bandwidth }
    }

    /// The per-message latency α.
    #[must_use]
    pub const fn alpha(&self) -> Nanos {
        self.alpha
    }

    /// The bandwidth 1/β.
    #[must_use]
    pub const fn bandwidth(&self) -> BitsPerSec {
        self.bandwidth
    }

    /// α in microseconds, the unit [`model`] computes in.
    #[must_use]
    pub fn alpha_us(&self) -> f64 {
        self.alpha.as_f64() / 1e3
    }

    /// β in microseconds per byte: 1 / (bytes per microsecond), exact for the default
    /// (1/12 500); infinite for a zero bandwidth.
    #[must_use]
    pub fn beta_us_per_byte(&self) -> f64 {
        1.0 / (self.bandwidth.as_f64() / 8.0 / 1e6)
    }
}

/// What [`model`] predicts for one fence.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ModelCost {
    /// Rounds.
    pub rounds: u32,
    /// Messages.
    pub messages: u64,
    /// The most data bytes any node sends or receives.
    pub max_bytes_per_node: Bytes,
    /// Time in microseconds (kept as a float: the model sums fractional microseconds): the
    /// sum over rounds of the busiest node's α·max(sent, received messages) +
    /// β·max(sent, received bytes).
    pub time_us: f64,
}

impl ModelCost {
    /// [`ModelCost::time_us`] rounded to whole nanoseconds (`None` beyond [`Nanos::MAX`] or
    /// for a non-finite time).
    #[must_use]
    pub fn time(&self) -> Option<Nanos> {
        Nanos::from_secs_f64(self.time_us / 1e6)
    }
}

impl fmt::Display for ModelCost {
    /// `7 rounds, 700 messages, at most 101376 B a node, 22.1 us`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rounds, {} messages, at most {} a node, {:.1} us",
            self.rounds, self.messages, self.max_bytes_per_node, self.time_us
        )
    }
}

/// Cost of a fence over `n` nodes of `m` data bytes each (framing ignored): closed forms for
/// ring ((N−1)(α + mβ)) and Bruck (⌈log₂N⌉α + (N−1)mβ), and a per-level sum for the tree
/// (its root sends radix copies of all N·m bytes). Agrees with [`simulate`]'s per-round
/// statistics under the same rule (see the tests).
///
/// # Errors
/// [`Error::BadFenceShape`] for `n == 0`; [`Error::BadRadix`].
///
/// # Complexity
/// O(1) for ring, O(log N) for Bruck, O(N) for the tree.
pub fn model(alg: Algorithm, n: usize, m: Bytes, ab: AlphaBeta) -> Result<ModelCost> {
    if n == 0 {
        return Err(Error::BadFenceShape { node: 0, nodes: 0 });
    }
    let m = m.get();
    let (a, b) = (ab.alpha_us(), ab.beta_us_per_byte());
    let nn = n as u64;
    Ok(match alg {
        Algorithm::Ring => {
            let r = nn - 1;
            ModelCost {
                rounds: r as u32,
                messages: nn * r,
                max_bytes_per_node: Bytes::new(r * m),
                time_us: r as f64 * (a + m as f64 * b),
            }
        }
        Algorithm::Bruck => {
            let k = ceil_log2(n);
            let mut time = 0.0;
            for j in 0..k {
                let d = 1u64 << j;
                time += a + (d.min(nn - d) * m) as f64 * b;
            }
            ModelCost {
                rounds: k,
                messages: nn * u64::from(k),
                max_bytes_per_node: Bytes::new((nn - 1) * m),
                time_us: time,
            }
        }
        Algorithm::Tree { radix } => {
            if radix < 2 {
                return Err(Error::BadRadix { radix });
            }
            tree_model(n, radix, m, a, b)
        }
    })
}

fn tree_model(n: usize, radix: usize, m: u64, a: f64, b: f64) -> ModelCost {
    // Subtree sizes and heights, children after parents in index order.
    let mut size = vec![1u64; n];
    let mut height = vec![0u32; n];
    for i in (1..n).rev() {
        let p = (i - 1) / radix;
        size[p] += size[i];
        height[p] = height[p].max(height[i] + 1);
    }
    let h = height[0];
    let nn = n as u64;
    let children = |i: usize| (i * radix + 1..(i * radix + radix + 1).min(n)).len() as u64;
    // Up phase: in round t (1-based) every node of height t−1 sends its subtree to its parent.
    let mut time = 0.0;
    for t in 1..=h {
        let mut recv = vec![(0u64, 0u64); n];
        let mut worst: f64 = 0.0;
        for i in 1..n {
            if height[i] == t - 1 {
                let p = (i - 1) / radix;
                recv[p].0 += 1;
                recv[p].1 += size[i] * m;
                worst = worst.max(a + (size[i] * m) as f64 * b);
            }
        }
        for &(msgs, bytes) in &recv {
            worst = worst.max(msgs as f64 * a + bytes as f64 * b);
        }
        time += worst;
    }
    // Down phase: in round h + 1 + d the nodes of depth d send everything to their children.
    let mut depth = vec![0u32; n];
    for i in 1..n {
        depth[i] = depth[(i - 1) / radix] + 1;
    }
    for d in 0..h {
        let worst = (0..n)
            .filter(|&i| depth[i] == d)
            .map(|i| {
                let c = children(i);
                c as f64 * a + (c * nn * m) as f64 * b
            })
            .fold(0.0, f64::max);
        time += worst;
    }
    let max_bytes = (0..n)
        .map(|i| {
            let (up, down) = if i == 0 {
                (0, 0)
            } else {
                (size[i] * m, nn * m)
            };
            let sent = up + children(i) * nn * m;
            let received = (size[i] - 1) * m + down;
            sent.max(received)
        })
        .max()
        .unwrap_or(0);
    ModelCost {
        rounds: 2 * h,
        messages: 2 * (nn - 1),
        max_bytes_per_node: Bytes::new(max_bytes),
        time_us: time,
    }
}

#[cfg(test)]
mod tests;
