//! Packet sequence numbers and their wrap-around arithmetic.

/// Serial-number distance from `from` to `to`: how many steps forward `to` lies, as a signed
/// value (RFC 1982 style, 32-bit). Correct across the wrap of the `u32` sequence field as
/// long as the two are less than 2³¹ apart.
#[inline]
#[must_use]
pub(crate) const fn distance(from: u32, to: u32) -> i32 {
    // Reinterpreting the wrapped difference as two's complement is the serial comparison.
    to.wrapping_sub(from).cast_signed()
}

/// `a` comes strictly after `b` in serial order.
#[inline]
#[must_use]
pub(crate) const fn after(a: u32, b: u32) -> bool {
    distance(b, a) > 0
}

/// The later of two sequence numbers in serial order.
#[inline]
#[must_use]
pub(crate) const fn max(a: u32, b: u32) -> u32 {
    if after(b, a) { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_across_wrap() {
        assert_eq!(distance(u32::MAX - 2, 3), 6);
        assert_eq!(distance(3, u32::MAX - 2), -6);
        assert_eq!(distance(7, 7), 0);
        assert!(after(0, u32::MAX));
        assert!(!after(u32::MAX, 0));
        assert_eq!(max(u32::MAX, 5), 5);
        assert_eq!(max(5, u32::MAX), 5);
        assert_eq!(max(9, 5), 9);
    }
}
