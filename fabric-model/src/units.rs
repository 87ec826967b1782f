//! Units: time in nanoseconds, sizes in bytes, rates in bits per second, and InfiniBand link
//! rates. Every crate of the workspace speaks of time, size and rate in these three types at
//! its public API; models that compute in floating point convert at the boundary with
//! [`Nanos::as_secs_f64`], [`Nanos::from_secs_f64`], [`Bytes::bits_f64`] and
//! [`BitsPerSec::as_f64`].
//!
//! The types are opaque (`new`/`get`), ordered and hashable. Each adds and subtracts like
//! the `u64` it holds: `+`, `-`, `+=`, `-=` and [`Sum`](core::iter::Sum) with std's overflow
//! behaviour (a panic where overflow checks are on, as in debug builds; wrapping where they
//! are off, as in release builds), and `checked_*` / `saturating_*` where a value from
//! outside may overflow. There is no unit-changing arithmetic on them (nanoseconds times
//! nanoseconds is not a time): convert with the named methods.
//!
//! ```
//! use fabric_model::{BitsPerSec, Bytes, Nanos};
//!
//! let rate = BitsPerSec::from_gbps(100);
//! // 4 KiB at 100 Gb/s: 327.68 ns, rounded up to whole nanoseconds.
//! assert_eq!(rate.transfer_time(Bytes::from_kib(4)), Some(Nanos::new(328)));
//! assert_eq!(Nanos::from_micros(5) + Nanos::new(1), Nanos::new(5_001));
//! assert_eq!(Nanos::MAX.saturating_add(Nanos::new(1)), Nanos::MAX);
//! assert_eq!(Nanos::from_secs_f64(1.5e-6), Some(Nanos::new(1_500)));
//! ```

use core::iter::Sum;
use core::ops::{Add, AddAssign, Sub, SubAssign};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A bandwidth in bits per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BitsPerSec(u64);

impl BitsPerSec {
    /// No bandwidth.
    pub const ZERO: Self = Self(0);

    /// `bps` bits per second.
    #[inline]
    #[must_use]
    pub const fn new(bps: u64) -> Self {
        Self(bps)
    }

    /// `mbps` × 10⁶ bits per second (saturating).
    #[inline]
    #[must_use]
    pub const fn from_mbps(mbps: u64) -> Self {
        Self(mbps.saturating_mul(1_000_000))
    }

    /// `gbps` × 10⁹ bits per second (saturating).
    #[inline]
    #[must_use]
    pub const fn from_gbps(gbps: u64) -> Self {
        Self(gbps.saturating_mul(1_000_000_000))
    }

    /// Bits per second.
    #[inline]
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Bits per second as a float, for models that compute in floating point.
    #[inline]
    #[must_use]
    #[expect(clippy::cast_precision_loss, reason = "rates are far below 2^53 b/s")]
    pub const fn as_f64(self) -> f64 {
        self.0 as f64
    }

    /// Gigabits per second as a float.
    #[inline]
    #[must_use]
    pub fn as_gbps_f64(self) -> f64 {
        self.as_f64() / 1e9
    }

    /// The rate nearest to `bps` bits per second, or `None` when `bps` is negative, not a
    /// number or above `u64::MAX`.
    #[must_use]
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "range checked first"
    )]
    pub fn from_f64(bps: f64) -> Option<Self> {
        let r = bps.round();
        (r >= 0.0 && r < u64::MAX as f64).then_some(Self(r as u64))
    }

    /// Time to serialise `size` at this rate, rounded up to whole nanoseconds; `None` for a
    /// zero rate or a time past `u64::MAX` ns.
    #[must_use]
    pub fn transfer_time(self, size: Bytes) -> Option<Nanos> {
        if self.0 == 0 {
            return None;
        }
        let bit_ns = u128::from(size.0) * 8 * 1_000_000_000;
        let ns = bit_ns.div_ceil(u128::from(self.0));
        u64::try_from(ns).ok().map(Nanos)
    }
}

impl fmt::Display for BitsPerSec {
    /// `100 Gb/s`, `2.5 Gb/s`, `800 Mb/s`, `12 b/s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b >= 1_000_000_000 {
            write!(f, "{} Gb/s", self.as_f64() / 1e9)
        } else if b >= 1_000_000 {
            write!(f, "{} Mb/s", self.as_f64() / 1e6)
        } else {
            write!(f, "{b} b/s")
        }
    }
}

/// A duration or a point in time, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Nanos(u64);

impl Nanos {
    /// Zero: the start of time, or no time at all.
    pub const ZERO: Self = Self(0);
    /// The largest time: "never".
    pub const MAX: Self = Self(u64::MAX);

    /// `ns` nanoseconds.
    #[inline]
    #[must_use]
    pub const fn new(ns: u64) -> Self {
        Self(ns)
    }

    /// `us` microseconds (saturating).
    #[inline]
    #[must_use]
    pub const fn from_micros(us: u64) -> Self {
        Self(us.saturating_mul(1_000))
    }

    /// `ms` milliseconds (saturating).
    #[inline]
    #[must_use]
    pub const fn from_millis(ms: u64) -> Self {
        Self(ms.saturating_mul(1_000_000))
    }

    /// `s` seconds (saturating).
    #[inline]
    #[must_use]
    pub const fn from_secs(s: u64) -> Self {
        Self(s.saturating_mul(1_000_000_000))
    }

    /// The nanosecond nearest to `secs` seconds, or `None` when `secs` is negative, not a
    /// number or past `u64::MAX` ns (about 584 years).
    #[must_use]
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "range checked first"
    )]
    pub fn from_secs_f64(secs: f64) -> Option<Self> {
        let ns = (secs * 1e9).round();
        (ns >= 0.0 && ns < u64::MAX as f64).then_some(Self(ns as u64))
    }

    /// Nanoseconds.
    #[inline]
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Seconds as a float, for models that compute in floating point.
    #[inline]
    #[must_use]
    #[expect(clippy::cast_precision_loss, reason = "exact below 2^53 ns, 104 days")]
    pub const fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// Nanoseconds as a float.
    #[inline]
    #[must_use]
    #[expect(clippy::cast_precision_loss, reason = "exact below 2^53 ns, 104 days")]
    pub const fn as_f64(self) -> f64 {
        self.0 as f64
    }

    /// `self × k`, or `None` on overflow.
    #[inline]
    #[must_use]
    pub const fn checked_mul(self, k: u64) -> Option<Self> {
        match self.0.checked_mul(k) {
            Some(n) => Some(Self(n)),
            None => None,
        }
    }
}

impl fmt::Display for Nanos {
    /// `250 ns`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ns", self.0)
    }
}

impl From<Nanos> for Duration {
    fn from(n: Nanos) -> Self {
        Self::from_nanos(n.0)
    }
}

impl TryFrom<Duration> for Nanos {
    type Error = std::num::TryFromIntError;

    /// Fails past `u64::MAX` nanoseconds.
    fn try_from(d: Duration) -> Result<Self, Self::Error> {
        u64::try_from(d.as_nanos()).map(Self)
    }
}

/// A size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(u64);

impl Bytes {
    /// Nothing.
    pub const ZERO: Self = Self(0);

    /// `n` bytes.
    #[inline]
    #[must_use]
    pub const fn new(n: u64) -> Self {
        Self(n)
    }

    /// `k` × 1024 bytes (saturating).
    #[inline]
    #[must_use]
    pub const fn from_kib(k: u64) -> Self {
        Self(k.saturating_mul(1 << 10))
    }

    /// `m` × 2²⁰ bytes (saturating).
    #[inline]
    #[must_use]
    pub const fn from_mib(m: u64) -> Self {
        Self(m.saturating_mul(1 << 20))
    }

    /// Bytes.
    #[inline]
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Bits, or `None` past `u64::MAX`.
    #[inline]
    #[must_use]
    pub const fn checked_bits(self) -> Option<u64> {
        self.0.checked_mul(8)
    }

    /// Bits as a float, for models that compute in floating point.
    #[inline]
    #[must_use]
    #[expect(clippy::cast_precision_loss, reason = "exact below 2^50 bytes")]
    pub const fn bits_f64(self) -> f64 {
        self.0 as f64 * 8.0
    }

    /// The size nearest to `bits / 8` bytes, or `None` when `bits` is negative, not a number
    /// or too large.
    #[must_use]
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "range checked first"
    )]
    pub fn from_bits_f64(bits: f64) -> Option<Self> {
        let b = (bits / 8.0).round();
        (b >= 0.0 && b < u64::MAX as f64).then_some(Self(b as u64))
    }
}

impl fmt::Display for Bytes {
    /// `4096 B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} B", self.0)
    }
}

/// `+`, `-`, `+=`, `-=` and `Sum` (of values and of references) for a `u64` newtype, with
/// the overflow behaviour of `u64`'s own operators, and its `checked_*` / `saturating_*`
/// additions and subtractions.
macro_rules! additive {
    ($t:ident, $unit:literal, $example:literal) => {
        impl Add for $t {
            type Output = Self;

            #[doc = concat!("The sum of two ", $unit, ", as `u64` adds: a panic on overflow where")]
            /// overflow checks are on (debug builds), wrapping where they are off (release
            /// builds). `checked_add` and `saturating_add` never panic.
            ///
            /// ```
            #[doc = concat!("use fabric_model::", stringify!($t), ";")]
            ///
            #[doc = concat!("let (a, b) = (", stringify!($t), "::new(", $example, "), ", stringify!($t), "::new(2));")]
            #[doc = concat!("assert_eq!(a + b, ", stringify!($t), "::new(", $example, " + 2));")]
            /// let mut c = a;
            /// c += b;
            /// c -= a;
            /// assert_eq!(c, b);
            /// ```
            #[inline]
            fn add(self, rhs: Self) -> Self {
                Self(self.0 + rhs.0)
            }
        }

        impl Sub for $t {
            type Output = Self;

            #[doc = concat!("The difference of two ", $unit, ", as `u64` subtracts: a panic when")]
            /// `rhs` is larger where overflow checks are on (debug builds), wrapping where they
            /// are off (release builds). `checked_sub` and `saturating_sub` never panic.
            ///
            /// ```
            #[doc = concat!("use fabric_model::", stringify!($t), ";")]
            ///
            #[doc = concat!("let (a, b) = (", stringify!($t), "::new(", $example, "), ", stringify!($t), "::new(2));")]
            #[doc = concat!("assert_eq!(a - b, ", stringify!($t), "::new(", $example, " - 2));")]
            /// assert_eq!(b.checked_sub(a), None);
            /// ```
            #[inline]
            fn sub(self, rhs: Self) -> Self {
                Self(self.0 - rhs.0)
            }
        }

        impl AddAssign for $t {
            /// `self = self + rhs`, with the overflow behaviour of `+`.
            #[inline]
            fn add_assign(&mut self, rhs: Self) {
                self.0 += rhs.0;
            }
        }

        impl SubAssign for $t {
            /// `self = self - rhs`, with the overflow behaviour of `-`.
            #[inline]
            fn sub_assign(&mut self, rhs: Self) {
                self.0 -= rhs.0;
            }
        }

        impl $t {
            /// `self + rhs`, or `None` on overflow.
            #[inline]
            #[must_use]
            pub const fn checked_add(self, rhs: Self) -> Option<Self> {
                match self.0.checked_add(rhs.0) {
                    Some(n) => Some(Self(n)),
                    None => None,
                }
            }

            /// `self - rhs`, or `None` when `rhs` is larger.
            #[inline]
            #[must_use]
            pub const fn checked_sub(self, rhs: Self) -> Option<Self> {
                match self.0.checked_sub(rhs.0) {
                    Some(n) => Some(Self(n)),
                    None => None,
                }
            }

            #[doc = concat!("`self + rhs`, at most the largest `", stringify!($t), "` (`u64::MAX`).")]
            #[inline]
            #[must_use]
            pub const fn saturating_add(self, rhs: Self) -> Self {
                Self(self.0.saturating_add(rhs.0))
            }

            /// `self - rhs`, at least zero.
            #[inline]
            #[must_use]
            pub const fn saturating_sub(self, rhs: Self) -> Self {
                Self(self.0.saturating_sub(rhs.0))
            }
        }

        impl Sum for $t {
            #[doc = concat!("The total of the ", $unit, ", zero for none, with the overflow behaviour")]
            /// of `+`.
            ///
            /// ```
            #[doc = concat!("use fabric_model::", stringify!($t), ";")]
            ///
            #[doc = concat!("let parts = [", stringify!($t), "::new(", $example, "), ", stringify!($t), "::new(2)];")]
            #[doc = concat!("assert_eq!(parts.iter().sum::<", stringify!($t), ">(), ", stringify!($t), "::new(", $example, " + 2));")]
            #[doc = concat!("assert_eq!(parts.into_iter().sum::<", stringify!($t), ">(), ", stringify!($t), "::new(", $example, " + 2));")]
            /// ```
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self(0), Add::add)
            }
        }

        impl<'a> Sum<&'a $t> for $t {
            /// The total of the referenced values (see the `Sum` of values).
            fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
                iter.copied().sum()
            }
        }
    };
}

additive!(Nanos, "times", "1_500");
additive!(Bytes, "sizes", "4096");
additive!(BitsPerSec, "rates", "100_000_000_000");

/// Number of lanes of an InfiniBand link (the `4x` of `4xEDR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkWidth {
    /// One lane.
    X1,
    /// Two lanes.
    X2,
    /// Four lanes, the usual cable.
    X4,
    /// Eight lanes.
    X8,
    /// Twelve lanes.
    X12,
}

impl LinkWidth {
    /// Every width, narrowest first.
    pub const ALL: [Self; 5] = [Self::X1, Self::X2, Self::X4, Self::X8, Self::X12];

    /// Number of lanes.
    #[must_use]
    pub const fn lanes(self) -> u64 {
        match self {
            Self::X1 => 1,
            Self::X2 => 2,
            Self::X4 => 4,
            Self::X8 => 8,
            Self::X12 => 12,
        }
    }

    fn from_lanes(n: &str) -> Option<Self> {
        Some(match n {
            "1" => Self::X1,
            "2" => Self::X2,
            "4" => Self::X4,
            "8" => Self::X8,
            "12" => Self::X12,
            _ => return None,
        })
    }
}

/// Signalling generation of an InfiniBand lane (the `EDR` of `4xEDR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkSpeed {
    /// Single data rate, 2 Gb/s of data per lane (8b/10b).
    Sdr,
    /// Double data rate, 4 Gb/s per lane.
    Ddr,
    /// Quad data rate, 8 Gb/s per lane.
    Qdr,
    /// FDR10, 10 Gb/s per lane (64b/66b).
    Fdr10,
    /// Fourteen data rate, 13.64 Gb/s per lane.
    Fdr,
    /// Enhanced data rate, 25 Gb/s per lane.
    Edr,
    /// High data rate, 50 Gb/s per lane.
    Hdr,
    /// Next data rate, 100 Gb/s per lane.
    Ndr,
    /// Extreme data rate, 200 Gb/s per lane.
    Xdr,
}

impl LinkSpeed {
    /// Every speed, slowest first.
    pub const ALL: [Self; 9] = [
        Self::Sdr,
        Self::Ddr,
        Self::Qdr,
        Self::Fdr10,
        Self::Fdr,
        Self::Edr,
        Self::Hdr,
        Self::Ndr,
        Self::Xdr,
    ];

    /// Data rate of one lane, in bits per second (after line coding).
    #[must_use]
    pub const fn lane_bps(self) -> u64 {
        match self {
            Self::Sdr => 2_000_000_000,
            Self::Ddr => 4_000_000_000,
            Self::Qdr => 8_000_000_000,
            Self::Fdr10 => 10_000_000_000,
            Self::Fdr => 13_636_363_636,
            Self::Edr => 25_000_000_000,
            Self::Hdr => 50_000_000_000,
            Self::Ndr => 100_000_000_000,
            Self::Xdr => 200_000_000_000,
        }
    }

    const fn name(self) -> &'static str {
        match self {
            Self::Sdr => "SDR",
            Self::Ddr => "DDR",
            Self::Qdr => "QDR",
            Self::Fdr10 => "FDR10",
            Self::Fdr => "FDR",
            Self::Edr => "EDR",
            Self::Hdr => "HDR",
            Self::Ndr => "NDR",
            Self::Xdr => "XDR",
        }
    }

    fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "SDR" => Self::Sdr,
            "DDR" => Self::Ddr,
            "QDR" => Self::Qdr,
            "FDR10" => Self::Fdr10,
            "FDR" => Self::Fdr,
            "EDR" => Self::Edr,
            "HDR" => Self::Hdr,
            "NDR" => Self::Ndr,
            "XDR" => Self::Xdr,
            _ => return None,
        })
    }
}

/// The rate of an InfiniBand link, as ibnetdiscover prints it (`4xEDR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LinkRate {
    /// Lanes.
    pub width: LinkWidth,
    /// Lane generation.
    pub speed: LinkSpeed,
}

impl LinkRate {
    /// 4xEDR, 100 Gb/s: the default for generated fabrics and for files that give no rate.
    pub const EDR_4X: Self = Self {
        width: LinkWidth::X4,
        speed: LinkSpeed::Edr,
    };

    /// Data bandwidth of the link.
    #[must_use]
    pub const fn bandwidth(self) -> BitsPerSec {
        BitsPerSec::new(self.width.lanes() * self.speed.lane_bps())
    }
}

impl Default for LinkRate {
    fn default() -> Self {
        Self::EDR_4X
    }
}

impl fmt::Display for LinkRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width.lanes(), self.speed.name())
    }
}

/// The text was not a rate of the form `<lanes>x<SPEED>`, such as `4xEDR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseRateError;

impl fmt::Display for ParseRateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a link rate such as 4xEDR")
    }
}

impl std::error::Error for ParseRateError {}

impl FromStr for LinkRate {
    type Err = ParseRateError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (lanes, speed) = s.split_once('x').ok_or(ParseRateError)?;
        Ok(Self {
            width: LinkWidth::from_lanes(lanes).ok_or(ParseRateError)?,
            speed: LinkSpeed::from_name(speed).ok_or(ParseRateError)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_print_and_parse_back() {
        for width in LinkWidth::ALL {
            for speed in LinkSpeed::ALL {
                let r = LinkRate { width, speed };
                assert_eq!(r.to_string().parse::<LinkRate>(), Ok(r));
            }
        }
        assert_eq!(LinkRate::EDR_4X.to_string(), "4xEDR");
        assert_eq!(LinkRate::EDR_4X.bandwidth(), BitsPerSec::from_gbps(100));
    }

    #[test]
    fn conversions_round_and_refuse_out_of_range() {
        assert_eq!(Nanos::from_secs_f64(0.3), Some(Nanos::new(300_000_000)));
        assert_eq!(Nanos::from_secs_f64(-1e-9), None);
        assert_eq!(Nanos::from_secs_f64(f64::NAN), None);
        assert_eq!(Nanos::from_secs_f64(1e12), None);
        assert_eq!(Nanos::new(1_500).as_secs_f64(), 1.5e-6);
        assert_eq!(Nanos::MAX.checked_add(Nanos::new(1)), None);
        assert_eq!(Nanos::new(3).checked_sub(Nanos::new(4)), None);
        assert_eq!(Nanos::new(3).saturating_sub(Nanos::new(4)), Nanos::ZERO);
        assert_eq!(Nanos::from_secs(u64::MAX), Nanos::MAX);
        assert_eq!(Bytes::new(3).bits_f64(), 24.0);
        assert_eq!(Bytes::from_bits_f64(24.0), Some(Bytes::new(3)));
        assert_eq!(Bytes::new(u64::MAX).checked_bits(), None);
        assert_eq!(BitsPerSec::from_f64(-1.0), None);
        assert_eq!(
            BitsPerSec::from_f64(2.5e9),
            Some(BitsPerSec::new(2_500_000_000))
        );
        assert_eq!(Duration::from(Nanos::new(7)), Duration::from_nanos(7));
        assert_eq!(
            Nanos::try_from(Duration::from_secs(2)),
            Ok(Nanos::from_secs(2))
        );
    }

    #[test]
    fn operators_add_and_subtract_as_u64_does() {
        let (a, b) = (Nanos::new(7), Nanos::new(3));
        assert_eq!((a + b, a - b), (Nanos::new(10), Nanos::new(4)));
        let mut c = a;
        c += b;
        assert_eq!(c, Nanos::new(10));
        c -= a;
        assert_eq!(c, b);
        assert_eq!([a, b, b].iter().sum::<Nanos>(), Nanos::new(13));
        assert_eq!(core::iter::empty::<Nanos>().sum::<Nanos>(), Nanos::ZERO);
        assert_eq!(Bytes::new(5) - Bytes::new(5), Bytes::ZERO);
        assert_eq!(
            [Bytes::from_kib(1), Bytes::new(1)]
                .into_iter()
                .sum::<Bytes>(),
            Bytes::new(1025)
        );
        assert_eq!(Bytes::new(1).checked_sub(Bytes::new(2)), None);
        assert_eq!(Bytes::new(1).saturating_sub(Bytes::new(2)), Bytes::ZERO);
        let r = BitsPerSec::from_gbps(100) + BitsPerSec::from_gbps(25);
        assert_eq!(r, BitsPerSec::from_gbps(125));
        assert_eq!(r - BitsPerSec::from_gbps(25), BitsPerSec::from_gbps(100));
        assert_eq!(
            BitsPerSec::new(u64::MAX).checked_add(BitsPerSec::new(1)),
            None
        );
        assert_eq!(BitsPerSec::ZERO.checked_sub(BitsPerSec::new(1)), None);
        assert_eq!(
            BitsPerSec::new(u64::MAX).saturating_add(BitsPerSec::new(1)),
            BitsPerSec::new(u64::MAX)
        );
        assert_eq!(
            BitsPerSec::ZERO.saturating_sub(BitsPerSec::new(1)),
            BitsPerSec::ZERO
        );
    }

    /// As `u64`: an overflowing `+` or `-` panics where overflow checks are on, and wraps
    /// where they are off.
    #[test]
    fn overflow_behaves_as_u64_does() {
        let add = std::panic::catch_unwind(|| Nanos::MAX + Nanos::new(1));
        let sub = std::panic::catch_unwind(|| Bytes::ZERO - Bytes::new(1));
        let sum =
            std::panic::catch_unwind(|| [Nanos::MAX, Nanos::new(1)].into_iter().sum::<Nanos>());
        if cfg!(debug_assertions) {
            assert!(add.is_err() && sub.is_err() && sum.is_err());
        } else {
            assert_eq!(add.ok(), Some(Nanos::ZERO));
            assert_eq!(sub.ok(), Some(Bytes::new(u64::MAX)));
            assert_eq!(sum.ok(), Some(Nanos::ZERO));
        }
    }

    #[test]
    fn transfer_time_rounds_up_and_refuses_zero_rate() {
        let r = BitsPerSec::from_gbps(100);
        assert_eq!(r.transfer_time(Bytes::ZERO), Some(Nanos::ZERO));
        assert_eq!(r.transfer_time(Bytes::new(1)), Some(Nanos::new(1)));
        assert_eq!(r.transfer_time(Bytes::new(125)), Some(Nanos::new(10)));
        assert_eq!(BitsPerSec::ZERO.transfer_time(Bytes::new(1)), None);
        assert_eq!(BitsPerSec::new(1).transfer_time(Bytes::new(u64::MAX)), None);
    }

    #[test]
    fn units_print_with_their_unit() {
        assert_eq!(Nanos::new(250).to_string(), "250 ns");
        assert_eq!(Bytes::new(4096).to_string(), "4096 B");
        assert_eq!(BitsPerSec::from_gbps(100).to_string(), "100 Gb/s");
        assert_eq!(BitsPerSec::new(2_500_000_000).to_string(), "2.5 Gb/s");
        assert_eq!(BitsPerSec::from_mbps(800).to_string(), "800 Mb/s");
        assert_eq!(BitsPerSec::new(12).to_string(), "12 b/s");
    }

    #[test]
    fn bad_rates_are_refused() {
        for s in ["", "4x", "xEDR", "3xEDR", "4xEDRR", "4EDR", "4xedr"] {
            assert_eq!(s.parse::<LinkRate>(), Err(ParseRateError), "{s:?}");
        }
    }
}
