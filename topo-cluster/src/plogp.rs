//! pLogP parameters (Kielmann, Bal, Verstoep 2000): latency L, send and receive overheads
//! o_s(m), o_r(m), gap g(m), stored at measured message sizes and interpolated in between.

use fabric_model::Bytes;

use crate::Error;

/// The parameters measured at one message size (times in nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct SizePoint {
    /// Message size.
    pub bytes: Bytes,
    /// Send overhead o_s.
    pub os_ns: f64,
    /// Receive overhead o_r.
    pub or_ns: f64,
    /// Gap g (reciprocal end-to-end throughput; the sender may start its next send g after).
    pub gap_ns: f64,
}

/// One round-trip sample: `bytes` forward, 0 back (with the overheads measured beside it).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RttSample {
    /// Message size.
    pub bytes: Bytes,
    /// Round-trip time.
    pub rtt_ns: f64,
    /// Send overhead measured during the round trips.
    pub os_ns: f64,
    /// Receive overhead (measured after a 1.2·RTT wait, as in LogP/MPI).
    pub or_ns: f64,
}

impl SizePoint {
    /// The point at `bytes` with overheads `os_ns`, `or_ns` and gap `gap_ns`.
    #[must_use]
    pub const fn new(bytes: Bytes, os_ns: f64, or_ns: f64, gap_ns: f64) -> Self {
        Self {
            bytes,
            os_ns,
            or_ns,
            gap_ns,
        }
    }
}

impl RttSample {
    /// The sample at `bytes`: round trip `rtt_ns`, overheads `os_ns` and `or_ns`.
    #[must_use]
    pub const fn new(bytes: Bytes, rtt_ns: f64, os_ns: f64, or_ns: f64) -> Self {
        Self {
            bytes,
            rtt_ns,
            os_ns,
            or_ns,
        }
    }
}

/// pLogP parameters of one link (or of a homogeneous cluster): latency and per-size table.
/// The process count P of the model is the group size the cost models are given.
///
/// Values between measured sizes are interpolated linearly; beyond the largest size they are
/// extrapolated from the last two points, below the smallest from the first two (as
/// LogP/MPI's `extract()`); an extrapolated value never goes below zero.
#[derive(Debug, Clone, PartialEq)]
pub struct PLogP {
    latency_ns: f64,
    points: Vec<SizePoint>,
}

fn finite(what: &'static str, size: Bytes, value: f64) -> Result<(), Error> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(Error::BadParameter { what, size, value })
    }
}

impl PLogP {
    /// Parameters from a latency and a table with strictly increasing sizes.
    ///
    /// # Errors
    /// [`Error::EmptyTable`], [`Error::UnsortedSizes`], [`Error::BadParameter`].
    pub fn new(latency_ns: f64, points: Vec<SizePoint>) -> Result<Self, Error> {
        finite("L", Bytes::new(0), latency_ns)?;
        if points.is_empty() {
            return Err(Error::EmptyTable);
        }
        for (index, p) in points.iter().enumerate() {
            if index > 0 && p.bytes <= points[index - 1].bytes {
                return Err(Error::UnsortedSizes {
                    index,
                    size: p.bytes,
                    previous: points[index - 1].bytes,
                });
            }
            finite("os", p.bytes, p.os_ns)?;
            finite("or", p.bytes, p.or_ns)?;
            finite("g", p.bytes, p.gap_ns)?;
        }
        Ok(Self { latency_ns, points })
    }

    /// A linear model g(m) = `gap0_ns + ns_per_byte · m`, overheads zero (two points, 0 and
    /// 1 MiB; beyond, the extrapolation keeps it linear).
    ///
    /// # Errors
    /// [`Error::BadParameter`] for a negative or non-finite value.
    pub fn linear(latency_ns: f64, gap0_ns: f64, ns_per_byte: f64) -> Result<Self, Error> {
        finite("g", Bytes::from_mib(1), ns_per_byte)?;
        let point = |bytes: u64| SizePoint {
            bytes: Bytes::new(bytes),
            os_ns: 0.0,
            or_ns: 0.0,
            gap_ns: gap0_ns + ns_per_byte * bytes as f64,
        };
        Self::new(latency_ns, vec![point(0), point(1 << 20)])
    }

    /// Parameters derived from round trips, as LogP/MPI does: g(m) = RTT(m) − RTT(0) + g(0)
    /// (g(0) when RTT(m) ≤ RTT(0)) and L = RTT(0)/2 − g(0) (clamped at 0). `gap0_ns` is g(0),
    /// measured by saturation. Samples must have strictly increasing sizes starting at 0.
    ///
    /// # Errors
    /// [`Error::MissingZeroRtt`], [`Error::UnsortedSizes`], [`Error::BadParameter`].
    ///
    /// # Example
    /// ```
    /// use topo_cluster::{PLogP, plogp::RttSample};
    /// use fabric_model::Bytes;
    /// let s = |bytes, rtt_ns| RttSample::new(Bytes::new(bytes), rtt_ns, 1_000.0, 1_000.0);
    /// let p = PLogP::from_round_trips(10_000.0, &[s(0, 120_000.0), s(1024, 150_000.0)])?;
    /// assert_eq!(p.latency_ns(), 50_000.0);                // 120 000 / 2 − 10 000
    /// assert_eq!(p.gap_ns(Bytes::new(1024)), 40_000.0);    // 150 000 − 120 000 + 10 000
    /// assert_eq!(p.gap_ns(Bytes::new(512)), 25_000.0);     // interpolated
    /// # Ok::<(), topo_cluster::Error>(())
    /// ```
    pub fn from_round_trips(gap0_ns: f64, samples: &[RttSample]) -> Result<Self, Error> {
        finite("g", Bytes::new(0), gap0_ns)?;
        let zero = match samples.first() {
            Some(s) if s.bytes.get() == 0 => s,
            _ => return Err(Error::MissingZeroRtt),
        };
        for s in samples {
            finite("rtt", s.bytes, s.rtt_ns)?;
        }
        let points = samples
            .iter()
            .map(|s| SizePoint {
                bytes: s.bytes,
                os_ns: s.os_ns,
                or_ns: s.or_ns,
                gap_ns: if s.rtt_ns > zero.rtt_ns {
                    s.rtt_ns - zero.rtt_ns + gap0_ns
                } else {
                    gap0_ns
                },
            })
            .collect();
        Self::new((zero.rtt_ns / 2.0 - gap0_ns).max(0.0), points)
    }

    /// The latency L.
    #[must_use]
    pub fn latency_ns(&self) -> f64 {
        self.latency_ns
    }

    /// The measured points.
    #[must_use]
    pub fn points(&self) -> &[SizePoint] {
        &self.points
    }

    fn value(&self, x: u64, field: impl Fn(&SizePoint) -> f64) -> f64 {
        let p = &self.points;
        let i = p.partition_point(|q| q.bytes.get() < x);
        if i < p.len() && p[i].bytes.get() == x {
            return field(&p[i]);
        }
        if p.len() == 1 {
            return field(&p[0]);
        }
        // the segment used: between, after the last (last two), before the first (first two)
        let j = i.clamp(1, p.len() - 1);
        let (a, b) = (&p[j - 1], &p[j]);
        let (va, vb) = (field(a), field(b));
        let slope = (vb - va) / (b.bytes.get() - a.bytes.get()) as f64;
        let v = va + slope * (x as f64 - a.bytes.get() as f64);
        v.max(0.0)
    }

    /// The gap g(m).
    ///
    /// # Complexity
    /// O(log t) for t table points.
    #[must_use]
    pub fn gap_ns(&self, m: Bytes) -> f64 {
        self.gap_raw(m.get())
    }

    /// g(m) for a size in raw bytes (the cost models' inner loops).
    pub(crate) fn gap_raw(&self, m: u64) -> f64 {
        self.value(m, |p| p.gap_ns)
    }

    /// The send overhead o_s(m).
    #[must_use]
    pub fn send_overhead_ns(&self, m: Bytes) -> f64 {
        self.value(m.get(), |p| p.os_ns)
    }

    /// The receive overhead o_r(m).
    #[must_use]
    pub fn recv_overhead_ns(&self, m: Bytes) -> f64 {
        self.value(m.get(), |p| p.or_ns)
    }

    /// End-to-end time of one message: L + g(m).
    #[must_use]
    pub fn one_way_ns(&self, m: Bytes) -> f64 {
        self.latency_ns + self.gap_ns(m)
    }

    /// The round trip the model predicts for `bytes` forward and 0 back:
    /// (L + g(m)) + (L + g(0)).
    #[must_use]
    pub fn round_trip_ns(&self, m: Bytes) -> f64 {
        self.one_way_ns(m) + self.one_way_ns(Bytes::new(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pt(bytes: u64, g: f64) -> SizePoint {
        SizePoint {
            bytes: Bytes::new(bytes),
            os_ns: g / 2.0,
            or_ns: g / 4.0,
            gap_ns: g,
        }
    }

    #[test]
    fn exact_between_beyond_and_below() {
        let p = PLogP::new(5.0, vec![pt(8, 100.0), pt(16, 200.0), pt(32, 260.0)]).unwrap();
        assert_eq!(p.gap_ns(Bytes::new(16)), 200.0);
        assert_eq!(p.gap_ns(Bytes::new(12)), 150.0);
        assert_eq!(p.gap_ns(Bytes::new(24)), 230.0);
        // beyond: slope of the last two points (60 / 16)
        assert_eq!(p.gap_ns(Bytes::new(64)), 260.0 + 60.0 * 2.0);
        // below: slope of the first two (100 / 8), clamped at 0
        assert_eq!(p.gap_ns(Bytes::new(4)), 50.0);
        assert_eq!(p.gap_ns(Bytes::new(0)), 0.0);
        assert_eq!(p.send_overhead_ns(Bytes::new(12)), 75.0);
        assert_eq!(p.recv_overhead_ns(Bytes::new(64)), 65.0 + 15.0 * 2.0);
        let one = PLogP::new(5.0, vec![pt(8, 100.0)]).unwrap();
        assert_eq!(one.gap_ns(Bytes::new(1000)), 100.0);
        assert_eq!(one.one_way_ns(Bytes::new(1)), 105.0);
    }

    #[test]
    fn table_errors() {
        assert_eq!(PLogP::new(1.0, vec![]), Err(Error::EmptyTable));
        assert_eq!(
            PLogP::new(1.0, vec![pt(8, 1.0), pt(8, 2.0)]),
            Err(Error::UnsortedSizes {
                index: 1,
                size: Bytes::new(8),
                previous: Bytes::new(8)
            })
        );
        assert_eq!(
            PLogP::new(-1.0, vec![pt(8, 1.0)]),
            Err(Error::BadParameter {
                what: "L",
                size: Bytes::new(0),
                value: -1.0
            })
        );
        assert!(matches!(
            PLogP::new(1.0, vec![pt(8, f64::NAN)]),
            Err(Error::BadParameter {
                what: "os",
                size,
                ..
            }) if size == Bytes::new(8)
        ));
        assert!(matches!(
            PLogP::linear(1.0, 1.0, -1.0),
            Err(Error::BadParameter { what: "g", .. })
        ));
    }

    #[test]
    fn round_trip_derivation() {
        let s = |bytes, rtt_ns| RttSample::new(Bytes::new(bytes), rtt_ns, 0.0, 0.0);
        assert_eq!(
            PLogP::from_round_trips(1.0, &[s(1, 10.0)]),
            Err(Error::MissingZeroRtt)
        );
        assert_eq!(
            PLogP::from_round_trips(1.0, &[]),
            Err(Error::MissingZeroRtt)
        );
        assert!(matches!(
            PLogP::from_round_trips(1.0, &[s(0, 10.0), s(0, 12.0)]),
            Err(Error::UnsortedSizes { index: 1, .. })
        ));
        assert!(matches!(
            PLogP::from_round_trips(1.0, &[s(0, -10.0)]),
            Err(Error::BadParameter { what: "rtt", .. })
        ));
        // RTT below RTT(0) keeps g(0); L clamps at zero
        let p = PLogP::from_round_trips(30.0, &[s(0, 40.0), s(4, 35.0), s(8, 60.0)]).unwrap();
        assert_eq!(p.latency_ns(), 0.0);
        assert_eq!(p.gap_ns(Bytes::new(4)), 30.0);
        assert_eq!(p.gap_ns(Bytes::new(8)), 50.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The model reproduces the round trips it was derived from (when L is not clamped and
        /// RTT is nondecreasing), and interpolation stays between neighbouring points.
        #[test]
        fn derivation_inverts(g0 in 0_u32..1000, l in 0_u32..100_000,
                              incs in proptest::collection::vec(0_u32..50_000, 1..8),
                              q in 0_u64..100_000) {
            let g0 = f64::from(g0);
            let rtt0 = 2.0 * (f64::from(l) + g0);
            let mut samples = vec![RttSample::new(Bytes::new(0), rtt0, 0.0, 0.0)];
            let mut rtt = rtt0;
            for (k, inc) in incs.iter().enumerate() {
                rtt += f64::from(*inc);
                samples.push(RttSample::new(Bytes::new(1 << (k + 4)), rtt, 0.0, 0.0));
            }
            let p = PLogP::from_round_trips(g0, &samples).unwrap();
            prop_assert!((p.latency_ns() - f64::from(l)).abs() < 1e-6);
            for s in &samples {
                prop_assert!((p.round_trip_ns(s.bytes) - s.rtt_ns).abs() < 1e-6 * s.rtt_ns.max(1.0));
            }
            let i = p.points().partition_point(|x| x.bytes.get() < q);
            if i > 0 && i < p.points().len() {
                let (a, b) = (p.points()[i - 1].gap_ns, p.points()[i].gap_ns);
                let g = p.gap_ns(Bytes::new(q));
                prop_assert!(g >= a.min(b) - 1e-9 && g <= a.max(b) + 1e-9);
            }
        }
    }
}
