//! The simulator's bounds: what [`SimConfig::validate`] and [`NetConfig::validate`] check
//! before a run allocates anything, so that a run takes bounded memory and time and never
//! panics on its configuration.

use fabric_model::Nanos;

use super::{NetConfig, SimConfig};
use crate::Error;
use crate::config::{MAX_CONTEXTS, MAX_INTERVAL};

/// The largest payload per packet, in bytes, and the largest [`NetConfig::overhead_bytes`]:
/// 64 KiB, above every link's MTU (InfiniBand's largest is 4096, Ethernet jumbo frames
/// about 9000, a UDP datagram at most 65 507). A corrupted packet's frame is built in a
/// buffer of this size.
pub const MAX_MTU: u32 = 1 << 16;

/// The most packets one run may simulate, all transfers together: 2^22 (16 GiB at 4 KiB;
/// the `reproduce rdma` tables run at most 4096). The simulator asks for memory in
/// proportion: the tally of writes, the count of each packet's transmissions, and the
/// baselines' per-packet flags and send times, 55 bytes a packet in all for the paper's
/// method and 65 for go-back-N (measured with a counting allocator at 16,384 packets),
/// so at most about 280 MiB at this bound.
pub const MAX_RUN_PACKETS: u64 = 1 << 22;

/// Turns of the event loop (a packet put on the link, the arrivals and timer expiries of one
/// instant) every run may take: 2^20. With [`MAX_EVENTS_PER_PACKET`] it bounds the time of
/// a run that never finishes (a timer of a few nanoseconds run to a distant
/// [`SimConfig::limit`]); a run that reaches the bound stops unfinished, as at its limit.
pub const MAX_EVENTS_BASE: u64 = 1 << 20;

/// Turns of the event loop a run may take per packet it simulates, beyond
/// [`MAX_EVENTS_BASE`]: 1024. A run that never finishes stops within about 0.8 µs a turn
/// (measured on a loaded 2-core machine, unoptimised build: 0.8 s for a 64 KiB transfer,
/// 4 s for 16 MiB). Runs that finish take far fewer turns: measured over 16 MiB at
/// 0 to 30 % loss, 2 to 8 a packet for the paper's method, the improved mode and IRN, up to
/// 162 for go-back-N (it sends 90 times the packets at 30 % loss) and 126 for
/// whole-transfer retransmission's 64 rounds.
pub const MAX_EVENTS_PER_PACKET: u64 = 1 << 10;

/// The turns of the event loop a run of `cfg` may take.
pub(crate) fn max_events(cfg: &SimConfig) -> u64 {
    MAX_EVENTS_BASE.saturating_add(MAX_EVENTS_PER_PACKET.saturating_mul(cfg.packets()))
}

fn config(field: &'static str, reason: &'static str) -> Error {
    Error::Config { field, reason }
}

/// `value` at most [`MAX_INTERVAL`].
fn interval(field: &'static str, value: Nanos) -> Result<(), Error> {
    if value > MAX_INTERVAL {
        return Err(config(field, "must be at most MAX_INTERVAL (2^62 ns)"));
    }
    Ok(())
}

/// `p` a probability: in `[0, 1]`, not NaN.
fn probability(field: &'static str, p: f64) -> Result<(), Error> {
    if !(0.0..=1.0).contains(&p) {
        return Err(config(field, "must be a probability in [0, 1]"));
    }
    Ok(())
}

impl NetConfig {
    /// Checks every field: `rate` above zero; `latency`, `jitter`, `burst_every` and
    /// `burst_len` at most [`MAX_INTERVAL`]; `loss`, `duplication`, `burst_loss`,
    /// `header_corruption` and `payload_corruption` probabilities in `[0, 1]` (NaN refused);
    /// `overhead_bytes` at most [`MAX_MTU`]. [`SimConfig::validate`] calls it.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first field at fault (`"net.rate"`, `"net.loss"`, …).
    pub fn validate(&self) -> Result<(), Error> {
        if self.rate.get() == 0 {
            return Err(config("net.rate", "must be above zero"));
        }
        interval("net.latency", self.latency)?;
        interval("net.jitter", self.jitter)?;
        interval("net.burst_every", self.burst_every)?;
        interval("net.burst_len", self.burst_len)?;
        probability("net.loss", self.loss)?;
        probability("net.duplication", self.duplication)?;
        probability("net.burst_loss", self.burst_loss)?;
        probability("net.header_corruption", self.header_corruption)?;
        probability("net.payload_corruption", self.payload_corruption)?;
        if self.overhead_bytes > MAX_MTU {
            return Err(config(
                "net.overhead_bytes",
                "must be at most MAX_MTU (65536)",
            ));
        }
        Ok(())
    }
}

impl SimConfig {
    /// Checks every field before a run allocates anything: the link
    /// ([`NetConfig::validate`]); `mtu` 1 ..= [`MAX_MTU`]; at most
    /// [`crate::config::MAX_CONTEXTS`] transfers (the sender's table holds them all), none
    /// empty, with at most [`MAX_RUN_PACKETS`] packets together; `receive_contexts` 1 ..=
    /// [`crate::config::MAX_CONTEXTS`]; `timeout` 2 ns ..= [`MAX_INTERVAL`] / 4 (the
    /// sender's timers are half to four times it); `retry` above zero; every interval at
    /// most [`MAX_INTERVAL`]. [`super::Method::run`] calls it.
    ///
    /// ```
    /// use fabric_model::Bytes;
    /// use rdma_window::Error;
    /// use rdma_window::sim::SimConfig;
    ///
    /// assert!(SimConfig::new(vec![Bytes::from_mib(1)]).validate().is_ok());
    /// let bad = SimConfig::new(vec![Bytes::from_mib(1)]).with_mtu(0);
    /// assert_eq!(
    ///     bad.validate(),
    ///     Err(Error::Config { field: "mtu", reason: "must be 1 ..= MAX_MTU (65536)" })
    /// );
    /// ```
    ///
    /// # Errors
    /// [`Error::Config`] naming the first field at fault.
    pub fn validate(&self) -> Result<(), Error> {
        self.net.validate()?;
        if self.mtu == 0 || self.mtu > MAX_MTU {
            return Err(config("mtu", "must be 1 ..= MAX_MTU (65536)"));
        }
        if self.transfers.len() > MAX_CONTEXTS {
            return Err(config(
                "transfers",
                "must be at most MAX_CONTEXTS (65536) transfers",
            ));
        }
        let mut packets = 0u64;
        for len in &self.transfers {
            if len.get() == 0 {
                return Err(config("transfers", "must all be at least one byte long"));
            }
            packets = packets.saturating_add(len.get().div_ceil(u64::from(self.mtu)));
        }
        if packets > MAX_RUN_PACKETS {
            return Err(config(
                "transfers",
                "must have at most MAX_RUN_PACKETS (2^22) packets together",
            ));
        }
        if self.receive_contexts == 0 || self.receive_contexts > MAX_CONTEXTS {
            return Err(config(
                "receive_contexts",
                "must be 1 ..= MAX_CONTEXTS (65536)",
            ));
        }
        if self.timeout.get() < 2 || self.timeout.get() > MAX_INTERVAL.get() / 4 {
            return Err(config("timeout", "must be 2 ns ..= MAX_INTERVAL / 4"));
        }
        interval("reorder_tolerance", self.reorder_tolerance)?;
        if self.retry.get() == 0 {
            return Err(config("retry", "must be above zero"));
        }
        interval("retry", self.retry)?;
        interval("limit", self.limit)
    }
}
