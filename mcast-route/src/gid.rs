//! The 128-bit GIDs that name multicast groups (MGIDs) in subnet administration.

use std::fmt;

/// A 128-bit InfiniBand GID: for a multicast group its MGID (`0xFF` in the top byte, then
/// flags, scope and signature), as an SA MCMemberRecord carries it. The router only keys
/// groups by it and never reads its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Gid(pub u128);

impl Gid {
    /// The GID of the 64-bit `prefix` (high half) and `guid` (low half).
    #[must_use]
    pub const fn new(prefix: u64, guid: u64) -> Self {
        Self(((prefix as u128) << 64) | guid as u128)
    }

    /// The high 64 bits (subnet prefix, or the MGID's flags, scope and signature).
    #[must_use]
    pub const fn prefix(self) -> u64 {
        (self.0 >> 64) as u64
    }

    /// The low 64 bits (interface id, or the MGID's group id).
    #[must_use]
    pub const fn guid(self) -> u64 {
        self.0 as u64
    }
}

impl fmt::Display for Gid {
    /// Eight groups of four hex digits, as IPv6 and OpenSM print GIDs
    /// (`ff12:401b:ffff:0000:0000:0000:ffff:ffff`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in (0..8).rev() {
            write!(f, "{:04x}", (self.0 >> (16 * i)) as u16)?;
            if i > 0 {
                f.write_str(":")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_and_display() {
        let g = Gid::new(0xff12_401b_ffff_0000, 0x0000_0000_ffff_ffff);
        assert_eq!(g.prefix(), 0xff12_401b_ffff_0000);
        assert_eq!(g.guid(), 0xffff_ffff);
        assert_eq!(g.to_string(), "ff12:401b:ffff:0000:0000:0000:ffff:ffff");
        assert!(Gid::new(1, 0) > Gid::new(0, u64::MAX));
    }
}
