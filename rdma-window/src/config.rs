//! Configuration of the two endpoints.
//!
//! Both types are `#[non_exhaustive]`: start from [`Default`] and change what differs with
//! the `with_*` setters, so that a field added later breaks no caller.
//!
//! ```
//! use fabric_model::Nanos;
//! use rdma_window::{Mode, ReceiverConfig, SenderConfig};
//!
//! let rx = ReceiverConfig::default()
//!     .with_mode(Mode::Improved)
//!     .with_resend_timeout(Nanos::from_micros(40));
//! assert_eq!(rx.capacity, 64);
//! let tx = SenderConfig::default().with_window(256);
//! assert_eq!(tx.req_timeout, Nanos::from_micros(40));
//! ```

use fabric_model::Nanos;

use crate::Error;
use crate::receiver::MAX_PACKETS;

/// The longest interval a configuration may hold: 2^62 ns (about 146 years). Deadlines are
/// computed as `now + interval` in u64 nanoseconds; with every interval at most this, no
/// such sum overflows in a run shorter than another 2^62 ns, so that no timer is silently
/// pushed to "never" by saturation.
pub const MAX_INTERVAL: Nanos = Nanos::new(1 << 62);

/// Checks that `value` is a usable interval: not above [`MAX_INTERVAL`] and, unless
/// `zero_ok`, not zero (a zero interval leaves a timer due at `now` for ever).
const fn interval(field: &'static str, value: Nanos, zero_ok: bool) -> Result<(), Error> {
    if !zero_ok && value.get() == 0 {
        return Err(Error::Config {
            field,
            reason: "must be above zero",
        });
    }
    if value.get() > MAX_INTERVAL.get() {
        return Err(Error::Config {
            field,
            reason: "must be at most MAX_INTERVAL (2^62 ns)",
        });
    }
    Ok(())
}

/// The most contexts a table may hold, at either end: 65 536, what the 16-bit index of a
/// [`crate::Cid`] can name. A NIC keeps its context table on chip (paper §2.2) and holds
/// tens to thousands of entries (the UEC reference provider's `UET_PDC_MAX` is 64); at this
/// bound a receiver table of W = 128 takes about 17 MiB (274 bytes a context, see
/// [`crate::Receiver::table_bytes`]).
pub const MAX_CONTEXTS: usize = 1 << 16;

/// The widest window, in packets: the largest W a [`crate::Receiver`] can have (64 ×
/// `WORDS` with `WORDS` at most 64), and so the most a [`SenderConfig::window`] may ask for.
/// NICs that keep a per-context bitmap keep 64 to 128 bits (Falcon's data window is 128,
/// UEC's `MP_RANGE` 128, IRN's about 110); 4096 packets of 4 KiB are 16 MiB in flight, one
/// bandwidth-delay product of 800 Gb/s over a 160 µs round trip. The sender keeps a queue of
/// W + 1 sequence numbers per transfer (16 KiB at this bound), the receiver a `WVEC` of W
/// bits per context (512 B at this bound).
pub const MAX_WINDOW: u32 = 4096;

/// The most completions a receiver may remember ([`ReceiverConfig::completions_kept`]): as
/// many as a table of [`MAX_CONTEXTS`] can free at once; 12 bytes each (768 KiB at this
/// bound), allocated by [`crate::Receiver::new`], and searched by each `RDMA_REQ`.
pub const MAX_COMPLETIONS_KEPT: usize = MAX_CONTEXTS;

/// Checks a context table's size.
const fn capacity(capacity: usize) -> Result<(), Error> {
    if capacity == 0 || capacity > MAX_CONTEXTS {
        return Err(Error::Config {
            field: "capacity",
            reason: "must be 1 ..= MAX_CONTEXTS (65536)",
        });
    }
    Ok(())
}

/// How the receiver asks for lost packets (`#[non_exhaustive]`: more may come).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
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

/// Receiver settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReceiverConfig {
    /// Receive contexts in the table (the hardware's on-chip table size), 1 ..=
    /// [`MAX_CONTEXTS`]: the table is allocated when the receiver is made.
    pub capacity: usize,
    /// Loss repair mode.
    pub mode: Mode,
    /// The paper's timer on the `WBASE` packet (paper §2.3.4 1)).
    pub resend_timeout: Nanos,
    /// Improved mode: how long after a later packet arrived a hole counts as lost.
    pub reorder_tolerance: Nanos,
    /// Improved mode: how long to wait before asking again for a hole already asked for.
    pub retry_interval: Nanos,
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
    /// than this is not answered and eventually reports the transfer failed. At most
    /// [`MAX_COMPLETIONS_KEPT`]: the memory is allocated when the receiver is made.
    pub completions_kept: usize,
    /// The end-to-end check (ours, as InfiniBand's ICRC): frames built and read by
    /// [`crate::Receiver::encode`] and [`crate::Receiver::decode`] carry a CRC32C trailer,
    /// and a frame whose CRC does not match is refused (drop it: it is repaired like a lost
    /// one). Both ends must agree. Off by default (the paper has none; a transport that
    /// checks its frames itself needs none).
    pub checksum: bool,
}

impl Default for ReceiverConfig {
    /// 64 contexts, paper mode, and times for a 10 µs round trip: `WBASE` timer 20 µs,
    /// reorder tolerance 1 µs, retry 12 µs, ACK every packet, queued at once (not
    /// coalesced), give up after 64 timeouts, remember 256 completions, no checksum.
    fn default() -> Self {
        Self {
            capacity: 64,
            mode: Mode::Paper,
            resend_timeout: Nanos::from_micros(20),
            reorder_tolerance: Nanos::from_micros(1),
            retry_interval: Nanos::from_micros(12),
            ack_stride: 1,
            coalesce_acks: false,
            max_idle_timeouts: 64,
            completions_kept: 256,
            checksum: false,
        }
    }
}

/// Sender settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SenderConfig {
    /// Send contexts (transfers in progress at once), 1 ..= [`MAX_CONTEXTS`]: the table is
    /// allocated when the sender is made.
    pub capacity: usize,
    /// The receiver's W: packets up to `WBASE + W` may be in flight. 1 ..= [`MAX_WINDOW`]
    /// (the widest receiver): each transfer keeps a queue of W + 1 sequence numbers to
    /// re-send, allocated by [`crate::Sender::start`].
    pub window: u32,
    /// Resend `RDMA_REQ` when no `RDMA_RSP` came back within this time.
    pub req_timeout: Nanos,
    /// First back-off after a busy `RDMA_RSP` (paper §2.3.1: the sender retries "after a
    /// delay"); it doubles with each busy answer to the transfer, up to `max_backoff`:
    /// `min(busy_backoff × 2^k, max_backoff)` after the (k + 1)-th.
    pub busy_backoff: Nanos,
    /// Largest back-off.
    pub max_backoff: Nanos,
    /// Probe (re-send the oldest unacknowledged packet) after this long without hearing
    /// from the receiver, so that a lost completion or ACK is recovered.
    pub probe_timeout: Nanos,
    /// Probes without an answer after which the transfer is given up.
    pub max_probes: u32,
    /// `RDMA_REQ`s in a row without any answer (the first included) after which the transfer
    /// is given up with [`crate::SendEvent::Failed`]: a receiver that never answers, dead or
    /// cut off, ends the transfer rather than being asked for ever. A busy answer shows the
    /// receiver alive: it starts the count again (a busy receiver is waited for, within
    /// `busy_deadline`).
    pub max_requests: u32,
    /// Time without any answer to a transfer's requests (since [`crate::Sender::start`] or
    /// the last busy answer) after which it is given up with [`crate::SendEvent::Failed`]
    /// (checked when its next request falls due): the silent receiver's bound in time, where
    /// `max_requests` is its bound in requests.
    pub request_deadline: Nanos,
    /// Time from [`crate::Sender::start`] after which a transfer still not granted, though
    /// the receiver answers (busy), is given up with [`crate::SendEvent::Failed`] (checked
    /// when its next request falls due). Ours: the paper retries without limit, as
    /// InfiniBand's RNR retry count 7 does; a bound here ends a transfer whose receiver stays
    /// full. [`MAX_INTERVAL`] waits as long as the run lasts.
    pub busy_deadline: Nanos,
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
    pub speculate_delay: Nanos,
    /// The end-to-end check, as [`ReceiverConfig::checksum`], for the frames of
    /// [`crate::Sender::encode`] and [`crate::Sender::decode`]. Off by default.
    pub checksum: bool,
}

impl Default for SenderConfig {
    /// 64 contexts, W = 128, times for a 10 µs round trip, no speculative window; busy
    /// answers back off from 10 µs, doubling to at most 1 ms; a transfer whose requests go
    /// unanswered 64 times in a row or for 100 ms fails, one answered busy for 10 s fails;
    /// no checksum.
    ///
    /// The bounds are ours (the paper retries without limit). 64 matches the receiver's
    /// [`ReceiverConfig::max_idle_timeouts`]: a dead receiver is given up after 64 × 40 µs
    /// ≈ 2.6 ms (about 256 round trips); 100 ms bounds the time when a user raises the
    /// count. Busy answers spend neither: a receiver that is full for a while is alive and
    /// its transfers wait, asking every millisecond once the back-off has reached its cap
    /// (after 7 refusals, 1.27 ms), for up to 10 s, far beyond the time a full table takes
    /// to drain under heavy loss.
    fn default() -> Self {
        Self {
            capacity: 64,
            window: 128,
            req_timeout: Nanos::from_micros(40),
            busy_backoff: Nanos::from_micros(10),
            max_backoff: Nanos::from_millis(1),
            probe_timeout: Nanos::from_micros(100),
            max_probes: 32,
            max_requests: 64,
            request_deadline: Nanos::from_millis(100),
            busy_deadline: Nanos::from_secs(10),
            speculate: 0,
            speculate_delay: Nanos::ZERO,
            checksum: false,
        }
    }
}

impl ReceiverConfig {
    /// Checks every field before anything is allocated: `capacity` 1 ..= [`MAX_CONTEXTS`];
    /// `completions_kept` at most [`MAX_COMPLETIONS_KEPT`] (0 remembers none);
    /// `ack_stride` 1 ..= [`MAX_PACKETS`];
    /// `resend_timeout` and `retry_interval` above zero (zero leaves the timer due at `now`
    /// for ever; `retry_interval` is checked in either mode); `reorder_tolerance` may be
    /// zero (a network that keeps order); every interval at most [`MAX_INTERVAL`].
    /// [`crate::Receiver::new`] calls it.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first field at fault.
    pub const fn validate(&self) -> Result<(), Error> {
        if let Err(e) = capacity(self.capacity) {
            return Err(e);
        }
        if self.completions_kept > MAX_COMPLETIONS_KEPT {
            return Err(Error::Config {
                field: "completions_kept",
                reason: "must be at most MAX_COMPLETIONS_KEPT (65536)",
            });
        }
        if self.ack_stride == 0 || self.ack_stride > MAX_PACKETS {
            return Err(Error::Config {
                field: "ack_stride",
                reason: "must be 1 ..= MAX_PACKETS",
            });
        }
        if let Err(e) = interval("resend_timeout", self.resend_timeout, false) {
            return Err(e);
        }
        if let Err(e) = interval("reorder_tolerance", self.reorder_tolerance, true) {
            return Err(e);
        }
        interval("retry_interval", self.retry_interval, false)
    }

    /// Sets [`ReceiverConfig::capacity`].
    #[must_use]
    pub const fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }

    /// Sets [`ReceiverConfig::mode`].
    #[must_use]
    pub const fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets [`ReceiverConfig::resend_timeout`].
    #[must_use]
    pub const fn with_resend_timeout(mut self, resend_timeout: Nanos) -> Self {
        self.resend_timeout = resend_timeout;
        self
    }

    /// Sets [`ReceiverConfig::reorder_tolerance`].
    #[must_use]
    pub const fn with_reorder_tolerance(mut self, reorder_tolerance: Nanos) -> Self {
        self.reorder_tolerance = reorder_tolerance;
        self
    }

    /// Sets [`ReceiverConfig::retry_interval`].
    #[must_use]
    pub const fn with_retry_interval(mut self, retry_interval: Nanos) -> Self {
        self.retry_interval = retry_interval;
        self
    }

    /// Sets [`ReceiverConfig::ack_stride`].
    #[must_use]
    pub const fn with_ack_stride(mut self, ack_stride: u32) -> Self {
        self.ack_stride = ack_stride;
        self
    }

    /// Sets [`ReceiverConfig::coalesce_acks`].
    #[must_use]
    pub const fn with_coalesce_acks(mut self, coalesce_acks: bool) -> Self {
        self.coalesce_acks = coalesce_acks;
        self
    }

    /// Sets [`ReceiverConfig::max_idle_timeouts`].
    #[must_use]
    pub const fn with_max_idle_timeouts(mut self, max_idle_timeouts: u32) -> Self {
        self.max_idle_timeouts = max_idle_timeouts;
        self
    }

    /// Sets [`ReceiverConfig::completions_kept`].
    #[must_use]
    pub const fn with_completions_kept(mut self, completions_kept: usize) -> Self {
        self.completions_kept = completions_kept;
        self
    }

    /// Sets [`ReceiverConfig::checksum`].
    #[must_use]
    pub const fn with_checksum(mut self, checksum: bool) -> Self {
        self.checksum = checksum;
        self
    }
}

impl SenderConfig {
    /// Checks every field before anything is allocated: `capacity` 1 ..= [`MAX_CONTEXTS`];
    /// `window` 1 ..= [`MAX_WINDOW`];
    /// `req_timeout`, `busy_backoff`, `max_backoff`, `probe_timeout`, `request_deadline`
    /// and `busy_deadline` above zero, `max_requests` at least 1 (zero
    /// leaves a timer due at `now` for ever, or retries at wire speed); `busy_backoff` at
    /// most `max_backoff` (the pair would be inverted); `speculate_delay` may be zero;
    /// every interval at most [`MAX_INTERVAL`]. [`crate::Sender::new`] calls it.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first field at fault.
    pub const fn validate(&self) -> Result<(), Error> {
        if let Err(e) = capacity(self.capacity) {
            return Err(e);
        }
        if self.window == 0 || self.window > MAX_WINDOW {
            return Err(Error::Config {
                field: "window",
                reason: "must be 1 ..= MAX_WINDOW (4096)",
            });
        }
        let intervals = [
            ("req_timeout", self.req_timeout, false),
            ("busy_backoff", self.busy_backoff, false),
            ("max_backoff", self.max_backoff, false),
            ("probe_timeout", self.probe_timeout, false),
            ("request_deadline", self.request_deadline, false),
            ("busy_deadline", self.busy_deadline, false),
            ("speculate_delay", self.speculate_delay, true),
        ];
        let mut k = 0;
        while k < intervals.len() {
            let (field, value, zero_ok) = intervals[k];
            if let Err(e) = interval(field, value, zero_ok) {
                return Err(e);
            }
            k += 1;
        }
        if self.max_requests == 0 {
            return Err(Error::Config {
                field: "max_requests",
                reason: "must be at least 1",
            });
        }
        if self.busy_backoff.get() > self.max_backoff.get() {
            return Err(Error::Config {
                field: "busy_backoff",
                reason: "must be at most max_backoff",
            });
        }
        Ok(())
    }

    /// Sets [`SenderConfig::capacity`].
    #[must_use]
    pub const fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }

    /// Sets [`SenderConfig::window`].
    #[must_use]
    pub const fn with_window(mut self, window: u32) -> Self {
        self.window = window;
        self
    }

    /// Sets [`SenderConfig::req_timeout`].
    #[must_use]
    pub const fn with_req_timeout(mut self, req_timeout: Nanos) -> Self {
        self.req_timeout = req_timeout;
        self
    }

    /// Sets [`SenderConfig::busy_backoff`].
    #[must_use]
    pub const fn with_busy_backoff(mut self, busy_backoff: Nanos) -> Self {
        self.busy_backoff = busy_backoff;
        self
    }

    /// Sets [`SenderConfig::max_backoff`].
    #[must_use]
    pub const fn with_max_backoff(mut self, max_backoff: Nanos) -> Self {
        self.max_backoff = max_backoff;
        self
    }

    /// Sets [`SenderConfig::probe_timeout`].
    #[must_use]
    pub const fn with_probe_timeout(mut self, probe_timeout: Nanos) -> Self {
        self.probe_timeout = probe_timeout;
        self
    }

    /// Sets [`SenderConfig::max_probes`].
    #[must_use]
    pub const fn with_max_probes(mut self, max_probes: u32) -> Self {
        self.max_probes = max_probes;
        self
    }

    /// Sets [`SenderConfig::max_requests`].
    #[must_use]
    pub const fn with_max_requests(mut self, max_requests: u32) -> Self {
        self.max_requests = max_requests;
        self
    }

    /// Sets [`SenderConfig::request_deadline`].
    #[must_use]
    pub const fn with_request_deadline(mut self, request_deadline: Nanos) -> Self {
        self.request_deadline = request_deadline;
        self
    }

    /// Sets [`SenderConfig::busy_deadline`].
    #[must_use]
    pub const fn with_busy_deadline(mut self, busy_deadline: Nanos) -> Self {
        self.busy_deadline = busy_deadline;
        self
    }

    /// Sets [`SenderConfig::speculate`].
    #[must_use]
    pub const fn with_speculate(mut self, speculate: u32) -> Self {
        self.speculate = speculate;
        self
    }

    /// Sets [`SenderConfig::speculate_delay`].
    #[must_use]
    pub const fn with_speculate_delay(mut self, speculate_delay: Nanos) -> Self {
        self.speculate_delay = speculate_delay;
        self
    }

    /// Sets [`SenderConfig::checksum`].
    #[must_use]
    pub const fn with_checksum(mut self, checksum: bool) -> Self {
        self.checksum = checksum;
        self
    }
}
