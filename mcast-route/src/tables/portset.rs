//! A set of switch ports: one MFT entry's forwarding mask.

use std::fmt;

use fabric_model::PortNo;

/// The ports a switch forwards one MLID to, as a bit set over port numbers (port 0, the
/// switch itself, included in the numbering as InfiniBand does).
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct PortSet {
    words: Vec<u64>,
}

impl PortSet {
    /// The empty set.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `port`.
    pub fn insert(&mut self, port: PortNo) {
        let (w, b) = (usize::from(port.get()) / 64, port.get() % 64);
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << b;
    }

    /// Whether `port` is in the set.
    #[must_use]
    pub fn contains(&self, port: PortNo) -> bool {
        let (w, b) = (usize::from(port.get()) / 64, port.get() % 64);
        self.words.get(w).is_some_and(|x| x >> b & 1 == 1)
    }

    /// Number of ports.
    #[must_use]
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether no port is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The ports in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = PortNo> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            (0..64u16)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| PortNo::new(i as u16 * 64 + b))
        })
    }

    /// The 16-bit InfiniBand port mask of `position` (ports `16·position ..= 16·position + 15`).
    #[must_use]
    pub fn mask16(&self, position: u8) -> u16 {
        let first = usize::from(position) * 16;
        let (w, shift) = (first / 64, first % 64);
        self.words.get(w).map_or(0, |x| (x >> shift) as u16)
    }
}

impl fmt::Debug for PortSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|p| p.get())).finish()
    }
}

impl FromIterator<PortNo> for PortSet {
    fn from_iter<T: IntoIterator<Item = PortNo>>(iter: T) -> Self {
        let mut s = Self::new();
        for p in iter {
            s.insert(p);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_split_ports_by_sixteen() {
        let s: PortSet = [1, 15, 16, 40, 63, 64]
            .into_iter()
            .map(PortNo::new)
            .collect();
        assert_eq!(s.len(), 6);
        assert_eq!(s.mask16(0), (1 << 1) | (1 << 15));
        assert_eq!(s.mask16(1), 1);
        assert_eq!(s.mask16(2), 1 << (40 - 32));
        assert_eq!(s.mask16(3), 1 << 15);
        assert_eq!(s.mask16(4), 1);
        assert_eq!(s.mask16(9), 0);
        assert!(s.contains(PortNo::new(40)) && !s.contains(PortNo::new(41)));
        assert_eq!(
            s.iter().map(|p| p.get()).collect::<Vec<_>>(),
            [1, 15, 16, 40, 63, 64]
        );
    }
}
