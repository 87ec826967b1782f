//! The network's packet fates: loss, delay jitter and duplication, decided by a counter-based
//! hash of (seed, transfer, packet index, attempt) so that every method sees the same fate for
//! its k-th transmission of a given packet, whatever else it sends. The hash is
//! `fabric_model::rng::mix` (the SplitMix64 finaliser) and a draw in `[0, 1)` is
//! `fabric_model::rng::unit_f64` of it.

use fabric_model::rng::{mix, unit_f64 as unit};
use fabric_model::{BitsPerSec, Bytes, Link, Nanos};

/// How the network treats packets.
///
/// `#[non_exhaustive]`: start from [`NetConfig::default`] or [`NetConfig::from_link`] and
/// change fields (they are public) or use the `with_*` setters.
///
/// ```
/// use fabric_model::{BitsPerSec, Nanos};
/// use rdma_window::sim::NetConfig;
///
/// let net = NetConfig::default().with_loss(1e-3).with_jitter(Nanos::new(500));
/// assert_eq!(net.rate, BitsPerSec::from_gbps(400));
/// assert_eq!(net.latency, Nanos::from_micros(5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct NetConfig {
    /// Link rate (both directions). The simulator computes in f64 Gb/s (this rate over 10⁹).
    pub rate: BitsPerSec,
    /// One-way propagation latency.
    pub latency: Nanos,
    /// Extra delay drawn uniformly from `[0, jitter]` per packet (adaptive routing): this is
    /// what reorders packets.
    pub jitter: Nanos,
    /// Bernoulli loss probability per data packet.
    pub loss: f64,
    /// Probability that a packet is delivered twice.
    pub duplication: f64,
    /// Mean length of a good period between loss bursts (zero: no bursts).
    pub burst_every: Nanos,
    /// Mean length of a burst.
    pub burst_len: Nanos,
    /// Loss probability inside a burst.
    pub burst_loss: f64,
    /// Probability that a delivered packet (data or control) has one bit of its header
    /// flipped on the way (the bit drawn uniformly).
    pub header_corruption: f64,
    /// Probability that a delivered data packet has one bit of its payload flipped.
    pub payload_corruption: f64,
    /// Whether control packets (requests, ACKs, RESENDs, completions) are lost like data.
    pub control_loss: bool,
    /// Bytes added to every packet on the wire (headers, preamble, gap).
    pub overhead_bytes: u32,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for NetConfig {
    /// 400 Gb/s, 5 µs one way (10 µs RTT), no jitter, no loss, no corruption, RoCEv2-like
    /// 82-byte overhead (which includes InfiniBand's 4-byte ICRC: the frame checksum of
    /// [`crate::sim::SimConfig::checksum`] is that field, so it adds no byte here).
    fn default() -> Self {
        Self {
            rate: BitsPerSec::from_gbps(400),
            latency: Nanos::from_micros(5),
            jitter: Nanos::ZERO,
            loss: 0.0,
            duplication: 0.0,
            burst_every: Nanos::ZERO,
            burst_len: Nanos::ZERO,
            burst_loss: 0.0,
            header_corruption: 0.0,
            payload_corruption: 0.0,
            control_loss: false,
            overhead_bytes: 82,
            seed: 1,
        }
    }
}

impl NetConfig {
    /// The defaults with the rate and one-way latency of a fabric link: its
    /// [`fabric_model::LinkRate::bandwidth`] and [`Link::latency`].
    ///
    /// ```
    /// use fabric_model::LinkRate;
    /// use rdma_window::sim::NetConfig;
    ///
    /// let fabric = fabric_model::generators::single_switch(2, LinkRate::EDR_4X)?;
    /// let link = &fabric.links()[0];
    /// let net = NetConfig::from_link(link);
    /// assert_eq!(net.rate, LinkRate::EDR_4X.bandwidth());
    /// assert_eq!(net.latency, link.latency);
    /// # Ok::<(), fabric_model::Error>(())
    /// ```
    #[must_use]
    pub fn from_link(link: &Link) -> Self {
        Self::default().with_link(link)
    }

    /// Takes the rate and one-way latency of a fabric link; everything else stays.
    #[must_use]
    pub const fn with_link(mut self, link: &Link) -> Self {
        self.rate = link.rate.bandwidth();
        self.latency = link.latency;
        self
    }

    /// Sets [`NetConfig::rate`].
    #[must_use]
    pub const fn with_rate(mut self, rate: BitsPerSec) -> Self {
        self.rate = rate;
        self
    }

    /// Sets [`NetConfig::latency`].
    #[must_use]
    pub const fn with_latency(mut self, latency: Nanos) -> Self {
        self.latency = latency;
        self
    }

    /// Sets [`NetConfig::jitter`].
    #[must_use]
    pub const fn with_jitter(mut self, jitter: Nanos) -> Self {
        self.jitter = jitter;
        self
    }

    /// Sets [`NetConfig::loss`].
    #[must_use]
    pub const fn with_loss(mut self, loss: f64) -> Self {
        self.loss = loss;
        self
    }

    /// Sets [`NetConfig::duplication`].
    #[must_use]
    pub const fn with_duplication(mut self, duplication: f64) -> Self {
        self.duplication = duplication;
        self
    }

    /// Loss bursts: good periods of mean `every`, bursts of mean `len`, loss `loss` inside
    /// (sets [`NetConfig::burst_every`], [`NetConfig::burst_len`], [`NetConfig::burst_loss`]).
    #[must_use]
    pub const fn with_bursts(mut self, every: Nanos, len: Nanos, loss: f64) -> Self {
        self.burst_every = every;
        self.burst_len = len;
        self.burst_loss = loss;
        self
    }

    /// Sets [`NetConfig::header_corruption`].
    #[must_use]
    pub const fn with_header_corruption(mut self, p: f64) -> Self {
        self.header_corruption = p;
        self
    }

    /// Sets [`NetConfig::payload_corruption`].
    #[must_use]
    pub const fn with_payload_corruption(mut self, p: f64) -> Self {
        self.payload_corruption = p;
        self
    }

    /// Sets [`NetConfig::control_loss`].
    #[must_use]
    pub const fn with_control_loss(mut self, control_loss: bool) -> Self {
        self.control_loss = control_loss;
        self
    }

    /// Sets [`NetConfig::overhead_bytes`].
    #[must_use]
    pub const fn with_overhead_bytes(mut self, overhead_bytes: u32) -> Self {
        self.overhead_bytes = overhead_bytes;
        self
    }

    /// Sets [`NetConfig::seed`].
    #[must_use]
    pub const fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Time on the wire of a packet of `bytes` (header and payload, without
    /// [`NetConfig::overhead_bytes`], which this adds): `(bytes + overhead) × 8 / rate`, in
    /// f64 at Gb/s, rounded to the nearest nanosecond, at least 1 ns; saturating past
    /// `u32::MAX` bytes.
    ///
    /// ```
    /// use fabric_model::{Bytes, Nanos};
    /// use rdma_window::sim::NetConfig;
    ///
    /// // 4096 + 14 + 82 bytes at 400 Gb/s: 83.84 ns.
    /// let t = NetConfig::default().serialization(Bytes::new(4110));
    /// assert_eq!(t, Nanos::new(84));
    /// ```
    #[must_use]
    pub fn serialization(&self, bytes: Bytes) -> Nanos {
        let b = u32::try_from(bytes.get()).unwrap_or(u32::MAX);
        Nanos::new(serialization_ns(
            b,
            self.overhead_bytes,
            self.rate.as_gbps_f64(),
        ))
    }
}

/// `(bytes + overhead) × 8 / gbps`, rounded, at least 1.
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "small positive"
)]
fn serialization_ns(bytes: u32, overhead: u32, gbps: f64) -> u64 {
    let bits = f64::from(bytes.saturating_add(overhead)) * 8.0;
    ((bits / gbps).round() as u64).max(1)
}

/// What happens to one transmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fate {
    /// Delay of the first copy, `None` when lost.
    pub(crate) first: Option<u64>,
    /// Delay of a duplicate copy, when there is one.
    pub(crate) copy: Option<u64>,
    /// A bit flipped in the first copy, when one is.
    pub(crate) corrupt: Option<Corrupt>,
}

/// One bit flipped in a delivered packet; the hash picks the bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Corrupt {
    /// In the header.
    Header(u64),
    /// In the payload (data packets).
    Payload(u64),
}

/// The network: fates plus the burst schedule.
#[derive(Debug, Clone)]
pub(crate) struct Fates {
    cfg: NetConfig,
    /// The rate in Gb/s, as the model computes with it.
    gbps: f64,
    latency_ns: u64,
    jitter_ns: u64,
    burst_every_ns: u64,
    burst_len_ns: u64,
    /// The last burst drawn, `(start, end)`: the only one that can hold a time at or after
    /// the last asked for (the engine asks in the order of its clock), so that nothing
    /// grows with the simulated time.
    burst: (u64, u64),
    /// Where the next good period starts: the end of `burst`.
    horizon: u64,
    draws: u64,
}

impl Fates {
    /// The network described by `cfg`.
    #[must_use]
    pub(crate) fn new(cfg: NetConfig) -> Self {
        Self {
            cfg,
            gbps: cfg.rate.as_gbps_f64(),
            latency_ns: cfg.latency.get(),
            jitter_ns: cfg.jitter.get(),
            burst_every_ns: cfg.burst_every.get(),
            burst_len_ns: cfg.burst_len.get(),
            burst: (0, 0),
            horizon: 0,
            draws: 0,
        }
    }

    /// Serialization time of a packet of `bytes` (without overhead), ns, at least 1.
    #[must_use]
    pub(crate) fn serialization(&self, bytes: u32) -> u64 {
        serialization_ns(bytes, self.cfg.overhead_bytes, self.gbps)
    }

    fn in_burst(&mut self, t: u64) -> bool {
        if self.burst_every_ns == 0 {
            return false;
        }
        while self.horizon <= t {
            // Exponential good and bad periods, drawn from the seed alone.
            self.draws += 1;
            let g = exp(
                self.burst_every_ns,
                mix(self.cfg.seed ^ mix(self.draws << 1)),
            );
            let b = exp(
                self.burst_len_ns,
                mix(self.cfg.seed ^ mix(self.draws << 1 | 1)),
            );
            let start = self.horizon + g;
            self.burst = (start, start + b);
            self.horizon = start + b;
        }
        // Every burst drawn before `burst` ended at or before `t` (the loop went on past
        // it), so `burst` is the only one that may hold `t`.
        self.burst.0 <= t && t < self.burst.1
    }

    /// Fate of transmission `attempt` of data packet `index` of `transfer`, sent at `t`.
    pub(crate) fn data(&mut self, transfer: u32, index: u32, attempt: u32, t: u64) -> Fate {
        let key = mix(self.cfg.seed
            ^ mix(u64::from(transfer) << 40 ^ u64::from(index) << 8 ^ u64::from(attempt.min(255))));
        let key = mix(key ^ u64::from(attempt >> 8));
        self.decide(key, self.cfg.loss, true, true, t)
    }

    /// Fate of the `counter`-th control packet in direction `dir`, sent at `t`.
    pub(crate) fn control(&mut self, dir: u32, counter: u64, t: u64) -> Fate {
        let key = mix(self.cfg.seed ^ mix(0xC0 << 56 ^ u64::from(dir) << 48 ^ counter));
        self.decide(key, self.cfg.loss, self.cfg.control_loss, false, t)
    }

    fn decide(&mut self, key: u64, p: f64, lossy: bool, data: bool, t: u64) -> Fate {
        let lost = lossy
            && (unit(mix(key ^ 1)) < p
                || (self.in_burst(t) && unit(mix(key ^ 2)) < self.cfg.burst_loss));
        let jit = |k: u64| -> u64 {
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss,
                reason = "bounded by jitter_ns"
            )]
            let j = (unit(k) * (self.jitter_ns as f64 + 1.0)) as u64;
            self.latency_ns + j.min(self.jitter_ns)
        };
        let first = (!lost).then(|| jit(mix(key ^ 3)));
        let copy = (unit(mix(key ^ 4)) < self.cfg.duplication).then(|| jit(mix(key ^ 5)));
        // Separate draws (keys 6 to 9): with no corruption configured every other fate is
        // what it was before corruption existed.
        let corrupt = if first.is_none() {
            None
        } else if unit(mix(key ^ 6)) < self.cfg.header_corruption {
            Some(Corrupt::Header(mix(key ^ 7)))
        } else if data && unit(mix(key ^ 8)) < self.cfg.payload_corruption {
            Some(Corrupt::Payload(mix(key ^ 9)))
        } else {
            None
        };
        Fate {
            first,
            copy,
            corrupt,
        }
    }
}

fn exp(mean: u64, h: u64) -> u64 {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "positive, bounded by 40 means"
    )]
    let x = (-(1.0 - unit(h)).ln() * mean as f64).min(40.0 * mean as f64) as u64;
    x.max(1)
}
