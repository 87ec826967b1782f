//! Variable-length integers: unsigned LEB128, OpenPMIx's flex128 (LEB128 capped at 9 bytes,
//! the 9th byte raw) and zig-zag for signed values (paper §4.2.2 (3)).
//!
//! Decoders accept only the shortest encoding of each value, so that every value has exactly
//! one encoding; anything longer is [`Error::Overlong`].

use crate::error::{Error, Result};

/// Which variable-length integer encoding a compact blob uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IntEncoding {
    /// Unsigned LEB128: up to 10 bytes for a `u64`.
    #[default]
    Leb128,
    /// OpenPMIx's flex128 (`psquash/flex128`): LEB128 for values below 2^56, otherwise 8
    /// groups of 7 bits with continuation bits and a raw 9th byte. Byte-identical to LEB128
    /// below 2^63; 9 bytes at most.
    Flex128,
}

/// Zig-zag maps signed to unsigned so that small magnitudes stay small: 0→0, −1→1, 1→2, …
#[must_use]
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[must_use]
pub(crate) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Appends `v` in encoding `enc`.
pub(crate) fn put(buf: &mut Vec<u8>, mut v: u64, enc: IntEncoding) {
    let limit = match enc {
        IntEncoding::Leb128 => usize::MAX,
        IntEncoding::Flex128 => 8,
    };
    let mut groups = 0;
    loop {
        if groups == limit {
            // flex128: the 9th byte carries the remaining 8 bits raw.
            buf.push(v as u8);
            return;
        }
        let low = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            buf.push(low);
            return;
        }
        buf.push(low | 0x80);
        groups += 1;
    }
}

/// Encoded length of `v` in encoding `enc`.
#[must_use]
#[cfg(test)]
pub(crate) fn len(v: u64, enc: IntEncoding) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    let leb = bits.div_ceil(7).max(1);
    match enc {
        IntEncoding::Leb128 => leb,
        IntEncoding::Flex128 => leb.min(9),
    }
}

/// A cursor over input bytes that reports offsets in its errors.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    #[must_use]
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// The current offset.
    #[must_use]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    #[must_use]
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The next `n` bytes.
    ///
    /// # Errors
    /// [`Error::Truncated`].
    pub(crate) fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(Error::Truncated {
                what,
                offset: self.pos,
                needed: n - self.remaining(),
            });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// The next `N` bytes as an array.
    ///
    /// # Errors
    /// [`Error::Truncated`].
    pub(crate) fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let s = self.bytes(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// The next byte.
    ///
    /// # Errors
    /// [`Error::Truncated`].
    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A variable-length unsigned integer in encoding `enc`.
    ///
    /// # Errors
    /// [`Error::Truncated`]; [`Error::Overlong`] for a non-shortest encoding or one past 64 bits.
    pub(crate) fn varint(&mut self, enc: IntEncoding, what: &'static str) -> Result<u64> {
        let start = self.pos;
        let mut v: u64 = 0;
        let mut shift = 0u32;
        let mut count = 0usize;
        loop {
            let b = self.u8(what).map_err(|e| match e {
                Error::Truncated { what, needed, .. } => Error::Truncated {
                    what,
                    offset: start,
                    needed,
                },
                other => other,
            })?;
            count += 1;
            if enc == IntEncoding::Flex128 && count == 9 {
                // Raw final byte; zero would mean a shorter encoding existed.
                if b == 0 {
                    return Err(Error::Overlong { offset: start });
                }
                return Ok(v | (u64::from(b) << 56));
            }
            let low = u64::from(b & 0x7f);
            if shift == 63 && (low > 1 || b & 0x80 != 0) {
                return Err(Error::Overlong { offset: start });
            }
            v |= low << shift;
            if b & 0x80 == 0 {
                if b == 0 && count > 1 {
                    return Err(Error::Overlong { offset: start });
                }
                return Ok(v);
            }
            shift += 7;
        }
    }

    /// A zig-zag signed integer in encoding `enc`.
    ///
    /// # Errors
    /// As [`Reader::varint`].
    pub(crate) fn svarint(&mut self, enc: IntEncoding, what: &'static str) -> Result<i64> {
        Ok(unzigzag(self.varint(enc, what)?))
    }

    /// A variable-length length or count, checked to be at most `max`.
    ///
    /// # Errors
    /// As [`Reader::varint`]; [`Error::OutOfRange`] above `max`.
    pub(crate) fn length(
        &mut self,
        enc: IntEncoding,
        max: usize,
        what: &'static str,
    ) -> Result<usize> {
        let offset = self.pos;
        let v = self.varint(enc, what)?;
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= max)
            .ok_or(Error::OutOfRange { what, offset })
    }

    /// Fails with [`Error::Trailing`] unless the input is used up.
    ///
    /// # Errors
    /// [`Error::Trailing`].
    pub(crate) fn finish(&self) -> Result<()> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(Error::Trailing {
                offset: self.pos,
                extra: self.remaining(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn enc(v: u64, e: IntEncoding) -> Vec<u8> {
        let mut b = Vec::new();
        put(&mut b, v, e);
        b
    }

    #[test]
    fn reference_vectors() {
        // OpenPMIx flex128 test vectors: 300 → ac 02; 2^63 → 80×9; u64::MAX → ff×9; LEB128 and
        // zig-zag: −1 → 01, −150 → ab 02.
        assert_eq!(enc(300, IntEncoding::Leb128), [0xac, 0x02]);
        assert_eq!(enc(300, IntEncoding::Flex128), [0xac, 0x02]);
        assert_eq!(enc(1 << 63, IntEncoding::Flex128), [0x80; 9]);
        assert_eq!(enc(u64::MAX, IntEncoding::Flex128), [0xff; 9]);
        assert_eq!(enc(u64::MAX, IntEncoding::Leb128).len(), 10);
        assert_eq!(enc(u64::from(u32::MAX), IntEncoding::Flex128).len(), 5);
        assert_eq!(enc(zigzag(-1), IntEncoding::Leb128), [0x01]);
        assert_eq!(enc(zigzag(-150), IntEncoding::Leb128), [0xab, 0x02]);
        assert_eq!(enc(0, IntEncoding::Leb128), [0x00]);
    }

    #[test]
    fn flex128_equals_leb128_below_2_pow_63() {
        for v in [0, 1, 127, 128, 1 << 56, (1 << 56) - 1, (1 << 63) - 1] {
            assert_eq!(enc(v, IntEncoding::Flex128), enc(v, IntEncoding::Leb128));
        }
    }

    #[test]
    fn bad_inputs() {
        let mut r = Reader::new(&[0x80]);
        assert!(matches!(
            r.varint(IntEncoding::Leb128, "x"),
            Err(Error::Truncated { offset: 0, .. })
        ));
        let mut r = Reader::new(&[0x80, 0x00]);
        assert_eq!(
            r.varint(IntEncoding::Leb128, "x"),
            Err(Error::Overlong { offset: 0 })
        );
        let mut eleven = vec![0xff; 10];
        eleven.push(0x01);
        let mut r = Reader::new(&eleven);
        assert_eq!(
            r.varint(IntEncoding::Leb128, "x"),
            Err(Error::Overlong { offset: 0 })
        );
        let mut ten = vec![0xff; 9];
        ten.push(0x02);
        let mut r = Reader::new(&ten);
        assert_eq!(
            r.varint(IntEncoding::Leb128, "x"),
            Err(Error::Overlong { offset: 0 })
        );
        let mut flex = vec![0x80; 8];
        flex.push(0x00);
        let mut r = Reader::new(&flex);
        assert_eq!(
            r.varint(IntEncoding::Flex128, "x"),
            Err(Error::Overlong { offset: 0 })
        );
        let r = Reader::new(&[1, 2]);
        assert_eq!(
            r.finish(),
            Err(Error::Trailing {
                offset: 0,
                extra: 2
            })
        );
        let mut r = Reader::new(&[0x05]);
        assert_eq!(
            r.length(IntEncoding::Leb128, 4, "len"),
            Err(Error::OutOfRange {
                what: "len",
                offset: 0
            })
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn round_trip(v: u64, s: i64) {
            for e in [IntEncoding::Leb128, IntEncoding::Flex128] {
                let b = enc(v, e);
                prop_assert_eq!(b.len(), len(v, e));
                let mut r = Reader::new(&b);
                prop_assert_eq!(r.varint(e, "v")?, v);
                prop_assert!(r.finish().is_ok());
                let b = enc(zigzag(s), e);
                let mut r = Reader::new(&b);
                prop_assert_eq!(r.svarint(e, "s")?, s);
            }
        }
    }
}
