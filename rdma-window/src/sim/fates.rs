//! The network's packet fates: loss, delay jitter and duplication, decided by a counter-based
//! hash of (seed, transfer, packet index, attempt) so that every method sees the same fate for
//! its k-th transmission of a given packet, whatever else it sends.

/// SplitMix64 finaliser: a portable, seedable hash.
#[must_use]
pub const fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) from a hash.
#[must_use]
#[expect(
    clippy::cast_precision_loss,
    reason = "53-bit mantissa by construction"
)]
pub fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// How the network treats packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetConfig {
    /// Link rate in Gb/s (both directions).
    pub rate_gbps: f64,
    /// One-way propagation latency, ns.
    pub latency_ns: u64,
    /// Extra delay drawn uniformly from `[0, jitter_ns]` per packet (adaptive routing): this
    /// is what reorders packets.
    pub jitter_ns: u64,
    /// Bernoulli loss probability per data packet.
    pub loss: f64,
    /// Probability that a packet is delivered twice.
    pub duplication: f64,
    /// Mean length of a good period between loss bursts, ns (0: no bursts).
    pub burst_every_ns: u64,
    /// Mean length of a burst, ns.
    pub burst_len_ns: u64,
    /// Loss probability inside a burst.
    pub burst_loss: f64,
    /// Whether control packets (requests, ACKs, RESENDs, completions) are lost like data.
    pub control_loss: bool,
    /// Bytes added to every packet on the wire (headers, preamble, gap).
    pub overhead_bytes: u32,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for NetConfig {
    /// 400 Gb/s, 5 µs one way (10 µs RTT), no jitter, no loss, RoCEv2-like 82-byte overhead.
    fn default() -> Self {
        Self {
            rate_gbps: 400.0,
            latency_ns: 5_000,
            jitter_ns: 0,
            loss: 0.0,
            duplication: 0.0,
            burst_every_ns: 0,
            burst_len_ns: 0,
            burst_loss: 0.0,
            control_loss: false,
            overhead_bytes: 82,
            seed: 1,
        }
    }
}

/// What happens to one transmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fate {
    /// Delay of the first copy, `None` when lost.
    pub first: Option<u64>,
    /// Delay of a duplicate copy, when there is one.
    pub copy: Option<u64>,
}

/// The network: fates plus the burst schedule.
#[derive(Debug, Clone)]
pub struct Fates {
    cfg: NetConfig,
    bursts: Vec<(u64, u64)>,
    horizon: u64,
    draws: u64,
}

impl Fates {
    /// The network described by `cfg`.
    #[must_use]
    pub fn new(cfg: NetConfig) -> Self {
        Self {
            cfg,
            bursts: Vec::new(),
            horizon: 0,
            draws: 0,
        }
    }

    /// The configuration.
    #[must_use]
    pub const fn config(&self) -> &NetConfig {
        &self.cfg
    }

    /// Serialization time of a packet of `bytes` (without overhead), ns, at least 1.
    #[must_use]
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "small positive"
    )]
    pub fn serialization(&self, bytes: u32) -> u64 {
        let bits = f64::from(bytes + self.cfg.overhead_bytes) * 8.0;
        ((bits / self.cfg.rate_gbps).round() as u64).max(1)
    }

    fn in_burst(&mut self, t: u64) -> bool {
        if self.cfg.burst_every_ns == 0 {
            return false;
        }
        while self.horizon <= t {
            // Exponential good and bad periods, drawn from the seed alone.
            self.draws += 1;
            let g = exp(
                self.cfg.burst_every_ns,
                mix(self.cfg.seed ^ mix(self.draws << 1)),
            );
            let b = exp(
                self.cfg.burst_len_ns,
                mix(self.cfg.seed ^ mix(self.draws << 1 | 1)),
            );
            let start = self.horizon + g;
            self.bursts.push((start, start + b));
            self.horizon = start + b;
        }
        let i = self.bursts.partition_point(|&(_, e)| e <= t);
        self.bursts.get(i).is_some_and(|&(s, e)| s <= t && t < e)
    }

    /// Fate of transmission `attempt` of data packet `index` of `transfer`, sent at `t`.
    pub fn data(&mut self, transfer: u32, index: u32, attempt: u32, t: u64) -> Fate {
        let key = mix(self.cfg.seed
            ^ mix(u64::from(transfer) << 40 ^ u64::from(index) << 8 ^ u64::from(attempt.min(255))));
        let key = mix(key ^ u64::from(attempt >> 8));
        self.decide(key, self.cfg.loss, true, t)
    }

    /// Fate of the `counter`-th control packet in direction `dir`, sent at `t`.
    pub fn control(&mut self, dir: u32, counter: u64, t: u64) -> Fate {
        let key = mix(self.cfg.seed ^ mix(0xC0 << 56 ^ u64::from(dir) << 48 ^ counter));
        self.decide(key, self.cfg.loss, self.cfg.control_loss, t)
    }

    fn decide(&mut self, key: u64, p: f64, lossy: bool, t: u64) -> Fate {
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
            let j = (unit(k) * (self.cfg.jitter_ns as f64 + 1.0)) as u64;
            self.cfg.latency_ns + j.min(self.cfg.jitter_ns)
        };
        let first = (!lost).then(|| jit(mix(key ^ 3)));
        let copy = (unit(mix(key ^ 4)) < self.cfg.duplication).then(|| jit(mix(key ^ 5)));
        Fate { first, copy }
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
