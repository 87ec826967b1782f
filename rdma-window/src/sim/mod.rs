//! A deterministic, seeded discrete-event simulator of one sender and one receiver joined by a
//! lossy, reordering, duplicating link (feature `sim`), and the methods it compares on the
//! same packet fates: the paper's protocol in both receiver modes (the crate's own
//! [`crate::Sender`] and [`crate::Receiver`]), go-back-N, IRN-style selective repeat and
//! whole-transfer retransmission.
//!
//! ```
//! use fabric_model::Bytes;
//! use rdma_window::sim::{Method, SimConfig};
//!
//! let mut cfg = SimConfig::new(vec![Bytes::from_mib(1)]);
//! cfg.net.loss = 1e-3;
//! let r = Method::Improved.run(&cfg)?;
//! assert!(r.finished && r.tally.exactly_once());
//! assert!(r.completion.as_f64() / cfg.ideal().as_f64() >= 1.0);
//! println!("{r}");
//! # Ok::<(), rdma_window::Error>(())
//! ```
//!
//! A run is bounded: [`SimConfig::validate`] (called by [`Method::run`]) refuses a
//! configuration past [`MAX_MTU`], [`MAX_RUN_PACKETS`] or the endpoints' own bounds before
//! anything is allocated, and a run stops after [`MAX_EVENTS_BASE`] +
//! [`MAX_EVENTS_PER_PACKET`] × packets turns of its event loop.
//!
//! Same inputs and seed, same result, on every platform: fates come from a SplitMix64 hash of
//! (seed, transfer, packet, attempt) (`fabric_model::rng::mix`), never from a clock or a
//! thread-local generator.

mod baselines;
mod engine;
mod fates;
mod limits;
mod ours;

use core::fmt;

use fabric_model::{Bytes, Nanos};

pub use fates::NetConfig;
pub(crate) use limits::max_events;
pub use limits::{MAX_EVENTS_BASE, MAX_EVENTS_PER_PACKET, MAX_MTU, MAX_RUN_PACKETS};

use crate::{Error, Mode};

/// What to simulate.
///
/// `#[non_exhaustive]`: built by [`SimConfig::new`]; change fields (they are public) or use
/// the `with_*` setters.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SimConfig {
    /// The link.
    pub net: NetConfig,
    /// Lengths of the transfers, all started at time 0 and sharing the link.
    pub transfers: Vec<Bytes>,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Receive contexts of the paper's receiver.
    pub receive_contexts: usize,
    /// The paper's `WBASE` timer, and the retransmission timer of the baselines.
    pub timeout: Nanos,
    /// Improved mode's reorder tolerance.
    pub reorder_tolerance: Nanos,
    /// Improved mode's retry interval.
    pub retry: Nanos,
    /// Whole-transfer retransmission gives up after this many rounds.
    pub max_rounds: u32,
    /// Simulated time after which a run stops unfinished.
    pub limit: Nanos,
    /// The crate's end-to-end CRC32C on every frame ([`crate::ReceiverConfig::checksum`],
    /// [`crate::SenderConfig::checksum`]; on by default here): a corrupted packet is dropped
    /// and repaired like a lost one. Off, a corrupted header is decoded as it reads and a
    /// corrupted payload written ([`Tally::wrong`] counts what that spoils). The baselines
    /// always drop a corrupted packet (InfiniBand's ICRC).
    pub checksum: bool,
}

impl SimConfig {
    /// The paper-scale defaults (400 Gb/s, 10 µs RTT, 4 KiB packets, timer 2 × RTT, reorder
    /// tolerance 1 µs, retry 1.2 × RTT, 64 receive contexts, 64 rounds, 10 s of simulated
    /// time, frame checksum on) for `transfers`.
    #[must_use]
    pub fn new(transfers: Vec<Bytes>) -> Self {
        Self {
            net: NetConfig::default(),
            transfers,
            mtu: 4096,
            receive_contexts: 64,
            timeout: Nanos::from_micros(20),
            reorder_tolerance: Nanos::from_micros(1),
            retry: Nanos::from_micros(12),
            max_rounds: 64,
            limit: Nanos::from_secs(10),
            checksum: true,
        }
    }

    /// Sets [`SimConfig::net`].
    #[must_use]
    pub fn with_net(mut self, net: NetConfig) -> Self {
        self.net = net;
        self
    }

    /// Sets [`SimConfig::mtu`].
    #[must_use]
    pub fn with_mtu(mut self, mtu: u32) -> Self {
        self.mtu = mtu;
        self
    }

    /// Sets [`SimConfig::receive_contexts`].
    #[must_use]
    pub fn with_receive_contexts(mut self, receive_contexts: usize) -> Self {
        self.receive_contexts = receive_contexts;
        self
    }

    /// Sets [`SimConfig::timeout`].
    #[must_use]
    pub fn with_timeout(mut self, timeout: Nanos) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets [`SimConfig::reorder_tolerance`].
    #[must_use]
    pub fn with_reorder_tolerance(mut self, reorder_tolerance: Nanos) -> Self {
        self.reorder_tolerance = reorder_tolerance;
        self
    }

    /// Sets [`SimConfig::retry`].
    #[must_use]
    pub fn with_retry(mut self, retry: Nanos) -> Self {
        self.retry = retry;
        self
    }

    /// Sets [`SimConfig::max_rounds`].
    #[must_use]
    pub fn with_max_rounds(mut self, max_rounds: u32) -> Self {
        self.max_rounds = max_rounds;
        self
    }

    /// Sets [`SimConfig::checksum`].
    #[must_use]
    pub fn with_checksum(mut self, checksum: bool) -> Self {
        self.checksum = checksum;
        self
    }

    /// Sets [`SimConfig::limit`].
    #[must_use]
    pub fn with_limit(mut self, limit: Nanos) -> Self {
        self.limit = limit;
        self
    }

    /// Packets of every transfer together (saturating: with `mtu` 0, which
    /// [`SimConfig::validate`] refuses, a non-empty transfer counts `u64::MAX`).
    #[must_use]
    pub fn packets(&self) -> u64 {
        self.transfers
            .iter()
            .map(|l| packets(l.get(), self.mtu))
            .fold(0, u64::saturating_add)
    }

    /// Completion time with no loss and no jitter at line rate: one round trip of set-up,
    /// every data packet serialised back to back, one way for the last packet and one way
    /// for the completion notice (saturating at [`Nanos::MAX`]; meaningful for a
    /// configuration [`SimConfig::validate`] accepts).
    #[must_use]
    pub fn ideal(&self) -> Nanos {
        let f = fates::Fates::new(self.net);
        let mut ser = 0u64;
        let full = f.serialization(self.mtu.saturating_add(14));
        for len in self.transfers.iter().map(|l| l.get()) {
            let n = packets(len, self.mtu);
            if n == 0 {
                continue;
            }
            let last = len.saturating_sub((n - 1).saturating_mul(u64::from(self.mtu)));
            let last_ser =
                f.serialization(u32::try_from(last).unwrap_or(u32::MAX).saturating_add(14));
            ser = ser
                .saturating_add((n - 1).saturating_mul(full))
                .saturating_add(last_ser);
        }
        Nanos::new(self.net.latency.get().saturating_mul(4).saturating_add(ser))
    }
}

/// Packets of a transfer of `len` bytes in packets of `mtu` bytes; `u64::MAX` for a
/// non-empty transfer and `mtu` 0.
fn packets(len: u64, mtu: u32) -> u64 {
    match len.checked_div(u64::from(mtu)) {
        Some(_) => len.div_ceil(u64::from(mtu)),
        None if len == 0 => 0,
        None => u64::MAX,
    }
}

/// The methods compared (`#[non_exhaustive]`: more may come).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// The paper as written, W = 128.
    Paper,
    /// The improved receiver mode, W = 128, with the sender's speculative window
    /// ([`crate::SenderConfig::speculate`] = W).
    Improved,
    /// The improved receiver mode with W = 256 (a window that covers the repair time, so
    /// without the speculative window).
    ImprovedW256,
    /// The improved receiver mode, W = 128, without the speculative window: what the window
    /// bound allows (not in [`Method::ALL`]).
    ImprovedNoSpeculation,
    /// Go-back-N (InfiniBand RC, rxe semantics), 129 packets in flight.
    GoBackN,
    /// IRN-style selective repeat, 129 packets in flight.
    Irn,
    /// Whole-transfer retransmission (the paper's "traditional" method).
    WholeTransfer,
}

impl Method {
    /// Every method, in table order.
    pub const ALL: [Self; 6] = [
        Self::Paper,
        Self::Improved,
        Self::ImprovedW256,
        Self::GoBackN,
        Self::Irn,
        Self::WholeTransfer,
    ];

    /// The name used in tables.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Improved => "improved",
            Self::ImprovedW256 => "improved-w256",
            Self::ImprovedNoSpeculation => "improved-nospec",
            Self::GoBackN => "go-back-n",
            Self::Irn => "irn",
            Self::WholeTransfer => "whole-transfer",
        }
    }

    /// Simulates `cfg` with this method, once [`SimConfig::validate`] accepts it.
    ///
    /// # Errors
    /// [`Error::Config`] naming the field of `cfg` at fault; nothing is simulated.
    ///
    /// # Complexity
    /// O(E log E) for E turns of the event loop, at most [`MAX_EVENTS_BASE`] +
    /// [`MAX_EVENTS_PER_PACKET`] × packets; memory O(packets), at most
    /// [`MAX_RUN_PACKETS`] packets.
    pub fn run(self, cfg: &SimConfig) -> Result<Report, Error> {
        cfg.validate()?;
        match self {
            Self::Paper => ours::run::<2>(Mode::Paper, false, cfg),
            Self::Improved => ours::run::<2>(Mode::Improved, true, cfg),
            Self::ImprovedW256 => ours::run::<4>(Mode::Improved, false, cfg),
            Self::ImprovedNoSpeculation => ours::run::<2>(Mode::Improved, false, cfg),
            Self::GoBackN => baselines::run(baselines::Kind::GoBackN, cfg, 128),
            Self::Irn => baselines::run(baselines::Kind::Irn, cfg, 128),
            Self::WholeTransfer => baselines::run(baselines::Kind::Whole, cfg, 128),
        }
    }
}

/// What a run measured; `Display` prints it on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Every transfer completed at its sender.
    pub finished: bool,
    /// Time the last transfer completed at its sender (or the time the run stopped).
    pub completion: Nanos,
    /// Completion time of each transfer.
    pub per_transfer: Vec<Option<Nanos>>,
    /// Data packets put on the link.
    pub data_sent: u64,
    /// Of those, retransmissions.
    pub retransmits: u64,
    /// Timer expiries that drove recovery.
    pub timeouts: u64,
    /// Retransmission requests the receiver sent (`RDMA_RESEND`s, NAKs).
    pub requests: u64,
    /// `RDMA_REQ`s refused for want of a free receive context (the paper's method only).
    pub refusals: u64,
    /// Payload writes at the receiver.
    pub tally: Tally,
}

impl Report {
    /// Transfers that completed at their sender although the receiver does not hold exactly
    /// their data (a packet missing or written with wrong data): what an end-to-end check
    /// must prevent.
    #[must_use]
    pub fn completed_wrong(&self) -> usize {
        self.per_transfer
            .iter()
            .enumerate()
            .filter(|(t, done)| done.is_some() && !self.tally.intact(*t))
            .count()
    }
}

/// Counts of payload writes per packet at the receiver, and which were written with the
/// wrong data (a corrupted payload, or a payload a corrupted header sent to the wrong place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    writes: Vec<Vec<u8>>,
    /// `(transfer, index)` of every packet written with wrong data.
    wrong: Vec<(u32, u32)>,
}

impl Tally {
    fn new(cfg: &SimConfig) -> Self {
        Self {
            writes: cfg
                .transfers
                .iter()
                .map(|l| {
                    let n = usize::try_from(l.get().div_ceil(u64::from(cfg.mtu))).unwrap_or(0);
                    vec![0; n]
                })
                .collect(),
            wrong: Vec::new(),
        }
    }

    /// Packet `i` of transfer `t` was written with data that is not its own.
    fn spoil(&mut self, t: u32, i: u32) {
        if self
            .writes
            .get(t as usize)
            .is_some_and(|w| (i as usize) < w.len())
            && !self.wrong.contains(&(t, i))
        {
            self.wrong.push((t, i));
        }
    }

    /// Packets written with wrong data.
    #[must_use]
    pub fn wrong(&self) -> usize {
        self.wrong.len()
    }

    /// Transfer `t` holds exactly its own data: every packet written, none wrong.
    #[must_use]
    pub fn intact(&self, t: usize) -> bool {
        self.writes.get(t).is_some_and(|w| w.iter().all(|&c| c > 0))
            && !self.wrong.iter().any(|&(u, _)| u as usize == t)
    }

    fn write(&mut self, t: u32, i: u32) {
        if let Some(c) = self
            .writes
            .get_mut(t as usize)
            .and_then(|w| w.get_mut(i as usize))
        {
            *c = c.saturating_add(1);
        }
    }

    /// Every packet of every transfer was written exactly once.
    #[must_use]
    pub fn exactly_once(&self) -> bool {
        self.writes.iter().flatten().all(|&c| c == 1)
    }

    /// Packets written more than once.
    #[must_use]
    pub fn rewritten(&self) -> usize {
        self.writes.iter().flatten().filter(|&&c| c > 1).count()
    }

    /// Packets never written.
    #[must_use]
    pub fn missing(&self) -> usize {
        self.writes.iter().flatten().filter(|&&c| c == 0).count()
    }
}

impl fmt::Display for Report {
    /// `finished at 2812 ns: 256 data packets sent (3 retransmitted), 1 timeouts, 2 requests,
    /// 0 refusals; every packet written once`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = if self.finished {
            "finished"
        } else {
            "stopped unfinished"
        };
        write!(
            f,
            "{state} at {}: {} data packets sent ({} retransmitted), {} timeouts, {} requests, {} refusals; {}",
            self.completion,
            self.data_sent,
            self.retransmits,
            self.timeouts,
            self.requests,
            self.refusals,
            self.tally
        )
    }
}

impl fmt::Display for Tally {
    /// `every packet written once`, or `3 packets rewritten, 1 missing`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.exactly_once() {
            f.write_str("every packet written once")?;
        } else {
            write!(
                f,
                "{} packets rewritten, {} missing",
                self.rewritten(),
                self.missing()
            )?;
        }
        if self.wrong() > 0 {
            write!(f, ", {} with wrong data", self.wrong())?;
        }
        Ok(())
    }
}
