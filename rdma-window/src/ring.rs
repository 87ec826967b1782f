//! A small FIFO of `Copy` values in a power-of-two ring, for the endpoints' output queues:
//! push and pop are a few inlined instructions and allocate only when the ring must grow
//! (when the user has not drained it).

#[derive(Debug, Clone)]
pub(crate) struct Ring<T: Copy> {
    buf: Box<[T]>,
    /// `buf.len() - 1`; the length is a power of two.
    mask: usize,
    /// Free-running counters: the next value to pop and the next slot to fill.
    head: usize,
    tail: usize,
}

impl<T: Copy> Ring<T> {
    /// A ring with room for at least `cap` values; `fill` only initialises the slots.
    pub(crate) fn new(cap: usize, fill: T) -> Self {
        let n = cap.max(2).next_power_of_two();
        Self {
            buf: vec![fill; n].into_boxed_slice(),
            mask: n - 1,
            head: 0,
            tail: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, v: T) {
        if self.tail.wrapping_sub(self.head) > self.mask {
            self.grow(v);
        }
        self.buf[self.tail & self.mask] = v;
        self.tail = self.tail.wrapping_add(1);
    }

    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.head == self.tail {
            return None;
        }
        let v = self.buf[self.head & self.mask];
        self.head = self.head.wrapping_add(1);
        Some(v)
    }

    #[cold]
    fn grow(&mut self, fill: T) {
        let len = self.tail.wrapping_sub(self.head);
        let mut next = vec![fill; self.buf.len() * 2].into_boxed_slice();
        for (k, slot) in next.iter_mut().take(len).enumerate() {
            *slot = self.buf[self.head.wrapping_add(k) & self.mask];
        }
        self.buf = next;
        self.mask = self.buf.len() - 1;
        self.head = 0;
        self.tail = len;
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
