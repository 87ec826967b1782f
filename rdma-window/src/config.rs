//! Configuration of the two endpoints.

/// How the receiver asks for lost packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Exactly as the paper: one timer per context on the `WBASE` packet; on expiry
    /// `RDMA_RESEND(WBASE)`; an out-of-window packet answered with `RDMA_RESEND(PIDX)`.
    #[default]
    Paper,
    /// The paper plus bitmap-driven repair (our design): a hole is declared lost once a
    /// later packet has been seen for [`ReceiverConfig::reorder_tolerance`] without the hole
    /// filling, and one `RDMA_RESEND` names up to 65 holes at once. Holes still open
    /// [`ReceiverConfig::retry_interval`] after being asked for are asked for again. The
    /// paper's `WBASE` timer stays as the backstop. With a tolerance at least the network's
    /// reordering spread, pure reordering never triggers a retransmission.
    ///
    /// On a network that does not reorder (tolerance 0) it asks at the first later arrival,
    /// as IRN-style selective repeat does, and both then meet the same bound: with a
    /// 129-packet window about one bandwidth-delay product, each loss stalls the sender for
    /// the repair time less the window's time (`reproduce rdma` derives and measures it).
    /// The sender's speculative window ([`SenderConfig::speculate`]) gets past most of that
    /// bound. Where the network reorders it waits the tolerance instead of re-sending
    /// reordered packets as IRN does.
    Improved,
}

/// Receiver settings. Times are nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceiverConfig {
    /// Receive contexts in the table (the hardware's on-chip table size).
    pub capacity: usize,
    /// Loss repair mode.
    pub mode: Mode,
    /// The paper's timer on the `WBASE` packet (paper §2.3.4 1)).
    pub resend_timeout: u64,
    /// Improved mode: how long after a later packet arrived a hole counts as lost.
    pub reorder_tolerance: u64,
    /// Improved mode: how long to wait before asking again for a hole already asked for.
    pub retry_interval: u64,
    /// Send an ACK of `WBASE` each time it has moved this many packets since the last one.
    pub ack_stride: u32,
    /// Build ACKs lazily (our design; the paper sends none): a data packet only marks its
    /// context as owing one, and `poll_transmit` builds it from the context's state, with
    /// the `WBASE` of that moment, after the packets already queued. A user that drains
    /// `poll_transmit` after every call sees exactly the ACKs of the eager receiver (`false`);
    /// one that polls after a batch gets one ACK per context carrying the newest `WBASE`,
    /// which tells the sender all that the skipped ACKs would have, and the data path never
    /// queues a packet. `false` queues one ACK per `ack_stride` packets of progress at once.
    pub coalesce_acks: bool,
    /// Consecutive `WBASE` timeouts without progress after which a context is given up.
    pub max_idle_timeouts: u32,
    /// Completions remembered after their context is freed, so that a sender whose DONE was
    /// lost is answered DONE again when it probes. A sender probing for a completion older
    /// than this is not answered and eventually reports the transfer failed.
    pub completions_kept: usize,
}

impl Default for ReceiverConfig {
    /// 64 contexts, paper mode, and times for a 10 µs round trip: `WBASE` timer 20 µs,
    /// reorder tolerance 1 µs, retry 12 µs, ACK every packet, queued at once (not
    /// coalesced), give up after 64 timeouts, remember 256 completions.
    fn default() -> Self {
        Self {
            capacity: 64,
            mode: Mode::Paper,
            resend_timeout: 20_000,
            reorder_tolerance: 1_000,
            retry_interval: 12_000,
            ack_stride: 1,
            coalesce_acks: false,
            max_idle_timeouts: 64,
            completions_kept: 256,
        }
    }
}

/// Sender settings. Times are nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SenderConfig {
    /// Send contexts (transfers in progress at once).
    pub capacity: usize,
    /// The receiver's W: packets up to `WBASE + W` may be in flight.
    pub window: u32,
    /// Resend `RDMA_REQ` when no `RDMA_RSP` came back within this time.
    pub req_timeout: u64,
    /// First back-off after a busy `RDMA_RSP`; doubles per refusal.
    pub busy_backoff: u64,
    /// Largest back-off.
    pub max_backoff: u64,
    /// Probe (re-send the oldest unacknowledged packet) after this long without hearing
    /// from the receiver, so that a lost completion or ACK is recovered.
    pub probe_timeout: u64,
    /// Probes without an answer after which the transfer is given up.
    pub max_probes: u32,
    /// Improved mode's speculative window (our design; 0 turns it off, as the paper has
    /// it): when the receiver asks for its `WBASE` packet, let the window run from where
    /// `WBASE` will be once that retransmission arrives, at most this many packets past the
    /// current `WBASE`. Packets sent on that guess reach the receiver after the
    /// retransmission; if it or a packet still in flight was lost they fall outside the
    /// window and are asked for again. A failed guess halves the reach of the next one, a
    /// guess that holds grows it back by an eighth of this value (at most this value).
    pub speculate: u32,
    /// Wait this long after the request before using the speculative window, so that on a
    /// reordering network what it lets through does not overtake the retransmission (the
    /// network's reordering spread; 0 on a network that keeps order).
    pub speculate_delay: u64,
}

impl Default for SenderConfig {
    /// 64 contexts, W = 128, times for a 10 µs round trip, no speculative window.
    fn default() -> Self {
        Self {
            capacity: 64,
            window: 128,
            req_timeout: 40_000,
            busy_backoff: 10_000,
            max_backoff: 1_000_000,
            probe_timeout: 100_000,
            max_probes: 32,
            speculate: 0,
            speculate_delay: 0,
        }
    }
}
