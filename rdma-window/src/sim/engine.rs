//! The discrete-event loop: two nodes joined by a full-duplex link, each direction a FIFO
//! serialiser followed by the fates of [`Fates`].

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use super::fates::{Corrupt, Fates};

/// One packet handed to the link.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wire<P> {
    pub(crate) pkt: P,
    /// Bytes without the link overhead.
    pub(crate) bytes: u32,
    /// `(transfer, packet index)` for data packets: keys its fate.
    pub(crate) data: Option<(u32, u32)>,
}

/// A node as the engine sees it.
pub(crate) trait Node {
    type Pkt: Copy;
    fn handle(&mut self, pkt: Self::Pkt, now: u64);
    /// A packet delivered with bit `corrupt` flipped; `data` is the `(transfer, index)` of
    /// the payload it really carries. By default it is dropped, as a receiver checking a
    /// CRC (InfiniBand's ICRC) does: the baselines model that.
    fn handle_corrupted(
        &mut self,
        pkt: Self::Pkt,
        data: Option<(u32, u32)>,
        corrupt: Corrupt,
        now: u64,
    ) {
        let _ = (pkt, data, corrupt, now);
    }
    fn handle_timeout(&mut self, now: u64);
    fn poll_timeout(&self) -> Option<u64>;
    fn poll_transmit(&mut self, now: u64) -> Option<Wire<Self::Pkt>>;
}

struct Item<P> {
    t: u64,
    seq: u64,
    to_rx: bool,
    pkt: P,
    data: Option<(u32, u32)>,
    corrupt: Option<Corrupt>,
}

impl<P> PartialEq for Item<P> {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl<P> Eq for Item<P> {}
impl<P> PartialOrd for Item<P> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<P> Ord for Item<P> {
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

/// Runs until `done(tx)`, `limit_ns` or `max_events` turns of the loop (see
/// [`super::max_events`]); returns the final time and whether it finished.
pub(crate) fn run<P: Copy, S: Node<Pkt = P>, R: Node<Pkt = P>>(
    tx: &mut S,
    rx: &mut R,
    fates: &mut Fates,
    limit_ns: u64,
    max_events: u64,
    done: impl Fn(&S) -> bool,
) -> (u64, bool) {
    let mut heap: BinaryHeap<Item<P>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut now = 0u64;
    let mut free = [0u64; 2];
    let mut attempts: HashMap<(u32, u32), u32> = HashMap::new();
    let mut ctl = [0u64; 2];
    for _ in 0..max_events {
        // Each idle link direction takes one packet.
        for dir in 0..2 {
            if free[dir] > now {
                continue;
            }
            let w = if dir == 0 {
                tx.poll_transmit(now)
            } else {
                rx.poll_transmit(now)
            };
            let Some(w) = w else { continue };
            let ser = fates.serialization(w.bytes);
            free[dir] = now + ser;
            let fate = match w.data {
                Some((t, i)) => {
                    let a = attempts.entry((t, i)).or_insert(0);
                    let f = fates.data(t, i, *a, now);
                    *a += 1;
                    f
                }
                None => {
                    ctl[dir] += 1;
                    #[expect(clippy::cast_possible_truncation, reason = "dir < 2")]
                    let d = dir as u32;
                    fates.control(d, ctl[dir], now)
                }
            };
            // The corruption hits the first copy; a duplicate arrives intact.
            let copies = [(fate.first, fate.corrupt), (fate.copy, None)];
            for (d, corrupt) in copies {
                let Some(d) = d else { continue };
                seq += 1;
                heap.push(Item {
                    t: now + ser + d,
                    seq,
                    to_rx: dir == 0,
                    pkt: w.pkt,
                    data: w.data,
                    corrupt,
                });
            }
        }
        if done(tx) {
            return (now, true);
        }
        let mut next = u64::MAX;
        if let Some(i) = heap.peek() {
            next = next.min(i.t);
        }
        for t in [tx.poll_timeout(), rx.poll_timeout()].into_iter().flatten() {
            next = next.min(t.max(now + 1));
        }
        for f in free {
            if f > now {
                next = next.min(f);
            }
        }
        if next == u64::MAX || next > limit_ns {
            return (now, false);
        }
        now = next;
        while heap.peek().is_some_and(|i| i.t <= now) {
            if let Some(i) = heap.pop() {
                match (i.to_rx, i.corrupt) {
                    (true, None) => rx.handle(i.pkt, now),
                    (false, None) => tx.handle(i.pkt, now),
                    (true, Some(c)) => rx.handle_corrupted(i.pkt, i.data, c, now),
                    (false, Some(c)) => tx.handle_corrupted(i.pkt, i.data, c, now),
                }
            }
        }
        if tx.poll_timeout().is_some_and(|t| t <= now) {
            tx.handle_timeout(now);
        }
        if rx.poll_timeout().is_some_and(|t| t <= now) {
            rx.handle_timeout(now);
        }
    }
    (now, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::NetConfig;

    /// A node whose timer is due every nanosecond, for ever, and that never sends.
    struct Ticker {
        next: u64,
        ticks: u64,
    }

    impl Node for Ticker {
        type Pkt = ();
        fn handle(&mut self, (): (), _: u64) {}
        fn handle_timeout(&mut self, now: u64) {
            self.ticks += 1;
            self.next = now + 1;
        }
        fn poll_timeout(&self) -> Option<u64> {
            Some(self.next)
        }
        fn poll_transmit(&mut self, _: u64) -> Option<Wire<()>> {
            None
        }
    }

    /// A run that never finishes and whose limit is far away stops after the turns it is
    /// allowed, unfinished, rather than looping for 2^62 simulated nanoseconds.
    #[test]
    fn a_run_stops_after_its_turns() {
        let (mut a, mut b) = (Ticker { next: 1, ticks: 0 }, Ticker { next: 1, ticks: 0 });
        let mut fates = Fates::new(NetConfig::default());
        let (end, finished) = run(&mut a, &mut b, &mut fates, u64::MAX >> 2, 1_000, |_| false);
        assert!(!finished);
        assert_eq!((a.ticks, b.ticks), (1_000, 1_000));
        assert_eq!(end, 1_000);
    }
}
