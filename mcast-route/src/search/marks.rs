//! Epoch-stamped marks over the switches.

/// Epoch-stamped marks: `begin` clears in O(1).
#[derive(Debug, Clone, Default)]
pub(crate) struct Marks {
    pub(super) v: Vec<u32>,
    pub(super) epoch: u32,
}

impl Marks {
    pub(super) fn new(n: usize) -> Self {
        Self {
            v: vec![0; n],
            epoch: 0,
        }
    }
    pub(crate) fn begin(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.v.fill(0);
            self.epoch = 1;
        }
    }
    #[inline]
    /// Starts a new round with exactly `items` marked; returns how many distinct items that is.
    pub(crate) fn begin_with(&mut self, items: &[u32]) -> usize {
        self.begin();
        let mut distinct = 0;
        for &i in items {
            if !self.get(i) {
                self.set(i);
                distinct += 1;
            }
        }
        distinct
    }

    pub(crate) fn get(&self, i: u32) -> bool {
        self.v[i as usize] == self.epoch
    }
    #[inline]
    pub(crate) fn set(&mut self, i: u32) {
        self.v[i as usize] = self.epoch;
    }
}
