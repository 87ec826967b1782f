//! Units: bandwidth in bits per second, time in nanoseconds, and InfiniBand link rates.

use std::fmt;
use std::str::FromStr;

/// A bandwidth in bits per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BitsPerSec(pub u64);

/// A duration or a point in time, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Nanos(pub u64);

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
        BitsPerSec(self.width.lanes() * self.speed.lane_bps())
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
        assert_eq!(LinkRate::EDR_4X.bandwidth(), BitsPerSec(100_000_000_000));
    }

    #[test]
    fn bad_rates_are_refused() {
        for s in ["", "4x", "xEDR", "3xEDR", "4xEDRR", "4EDR", "4xedr"] {
            assert_eq!(s.parse::<LinkRate>(), Err(ParseRateError), "{s:?}");
        }
    }
}
