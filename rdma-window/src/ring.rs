//! A small FIFO of `Copy` values in a power-of-two ring, for the endpoints' output queues:
//! push and pop are a few inlined instructions and allocate only when the ring must grow
//! (when the user has not drained it).

#[derive(Debug, Clone)]
pub(crate) struct Ring<T: Copy> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Ring<T> {
    /// A ring with room for at least `cap` values; `fill` only initialises the slots.
    pub(crate) fn new(cap: usize, fill: T) -> Self {
        Self {
            buf: vec![fill; cap.max(2).next_power_of_two()],
            head: 0,
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow(v);
        }
        let mask = self.buf.len() - 1;
        let i = (self.head + self.len) & mask;
        self.buf[i] = v;
        self.len += 1;
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head];
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(v)
    }

    #[cold]
    fn grow(&mut self, fill: T) {
        let mut next = vec![fill; self.buf.len() * 2];
        for (k, slot) in next.iter_mut().take(self.len).enumerate() {
            *slot = self.buf[(self.head + k) & (self.buf.len() - 1)];
        }
        self.buf = next;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    #[test]
    fn fifo_order_survives_wrap_and_growth() {
        let mut r = Ring::new(2, 0u32);
        let mut expect = std::collections::VecDeque::new();
        for i in 0..100u32 {
            r.push(i);
            expect.push_back(i);
            if i % 3 == 0 {
                assert_eq!(r.pop(), expect.pop_front());
            }
        }
        while let Some(x) = expect.pop_front() {
            assert_eq!(r.pop(), Some(x));
        }
        assert_eq!(r.pop(), None);
    }
}
