//! A heap stand-in for a region under loom (`--cfg loom`): the same protocol code
//! ([`super::protocol`]) over loom's atomics, with threads standing in for processes and a
//! "dead" mask standing in for the embedder's liveness check. Used by `tests/loom_lock.rs`;
//! not part of the API.

use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::protocol::{self, Budget, Lock, Pair, Shared};

/// Model waits: no busy check (every interleaving of the idle path is explored), no limit.
const FOREVER: Budget = Budget {
    spins: 0,
    patience: super::Patience::Forever,
};

/// The shared state of a model region.
#[derive(Debug)]
pub struct Model {
    claims: Vec<AtomicU64>,
    locks: Vec<[[AtomicU32; 3]; 2]>,
    owner: AtomicU64,
    held: AtomicU32,
    generation: AtomicU64,
    data: [Vec<AtomicU64>; 2],
    dead: AtomicU64,
}

fn words(n: usize) -> Vec<AtomicU64> {
    (0..n).map(|_| AtomicU64::new(0)).collect()
}

impl Model {
    /// A formatted model of `slots` slots and `words` words (per copy).
    #[must_use]
    pub fn new(slots: usize, n: usize) -> Self {
        let lock = || [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)];
        Self {
            claims: words(slots),
            locks: (0..slots).map(|_| [lock(), lock()]).collect(),
            owner: AtomicU64::new(protocol::FREE),
            held: AtomicU32::new(0),
            generation: AtomicU64::new(0),
            data: [words(n), words(n)],
            dead: AtomicU64::new(0),
        }
    }

    /// A process with token `me` (1..=63).
    #[must_use]
    pub fn party(&self, me: u64) -> Party<'_> {
        assert!((1..64).contains(&me), "model tokens are 1..=63");
        Party { m: self, me }
    }

    /// The generation.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Sets a flag as corrupt memory would: slot `slot`'s signal (`main == false`) or main
    /// lock, the reader's (`writer == false`) or the writer's flag, to `v`.
    pub fn set_flag(&self, slot: usize, main: bool, writer: bool, v: u32) {
        self.locks[slot][usize::from(main)][usize::from(writer)].store(v, Ordering::Relaxed);
    }

    /// Sets the writers' lock's owner word as corrupt memory would.
    pub fn set_writer_owner(&self, token: u64) {
        self.owner.store(token, Ordering::Relaxed);
    }

    /// Whether every flag of every slot is clear.
    #[must_use]
    pub fn flags_clear(&self) -> bool {
        self.locks
            .iter()
            .flatten()
            .all(|l| l[0].load(Ordering::Acquire) == 0 && l[1].load(Ordering::Acquire) == 0)
    }
}

/// One process's view of a [`Model`].
#[derive(Debug, Clone, Copy)]
pub struct Party<'m> {
    m: &'m Model,
    me: u64,
}

impl Party<'_> {
    /// Claims a slot (or takes over a dead owner's).
    #[must_use]
    pub fn claim(&self) -> Option<usize> {
        protocol::claim_slot(self)
    }

    /// Gives a slot back.
    pub fn release(&self, slot: usize) {
        protocol::release_slot(self, slot);
    }

    /// Reads every word of the live copy under slot `slot`'s lock.
    #[must_use]
    pub fn read(&self, slot: usize) -> Vec<u64> {
        protocol::read(self, slot, &FOREVER, |c| {
            self.m.data[c]
                .iter()
                .map(|w| w.load(Ordering::Relaxed))
                .collect()
        })
        .expect("a model region waits for ever")
    }

    /// Writes `v` into every word.
    pub fn write(&self, v: u64) {
        protocol::write(self, &FOREVER, |c| {
            for w in &self.m.data[c] {
                w.store(v, Ordering::Relaxed);
            }
        })
        .expect("a model region is never corrupt and waits for ever");
    }

    /// Frees dead owners' slots.
    #[must_use]
    pub fn reclaim(&self) -> usize {
        protocol::reclaim(self, &FOREVER).expect("a model region waits for ever")
    }

    /// Dies: from now on the liveness check says this process is dead.
    pub fn die(&self) {
        self.m.dead.fetch_or(1 << self.me, Ordering::Release);
    }

    /// Takes slot `slot`'s read locks and dies inside the read.
    pub fn die_reading(&self, slot: usize) {
        protocol::read_lock(self, slot, &FOREVER).expect("a model region waits for ever");
        self.die();
    }

    /// Starts a write of `v`, sets the first `upto` words of the unpublished copy, and dies.
    pub fn die_writing(&self, v: u64, upto: usize) {
        protocol::write_lock(self, &FOREVER).expect("a model region waits for ever");
        let g = self.m.generation.load(Ordering::Acquire);
        self.m.generation.store(g + 1, Ordering::Release);
        let shadow = 1 - protocol::live_copy(g);
        for w in self.m.data[shadow].iter().take(upto) {
            w.store(v, Ordering::Relaxed);
        }
        self.die();
    }
}

impl Shared for Party<'_> {
    type A32 = AtomicU32;
    type A64 = AtomicU64;

    fn slots(&self) -> usize {
        self.m.claims.len()
    }

    fn claim(&self, i: usize) -> &AtomicU64 {
        &self.m.claims[i]
    }

    fn pair(&self, i: usize, l: Lock) -> Pair<'_, AtomicU32> {
        let lock = &self.m.locks[i][usize::from(l == Lock::Main)];
        Pair {
            flag: [&lock[0], &lock[1]],
            turn: &lock[2],
        }
    }

    fn writer_owner(&self) -> &AtomicU64 {
        &self.m.owner
    }

    fn writer_held(&self) -> &AtomicU32 {
        &self.m.held
    }

    fn generation(&self) -> &AtomicU64 {
        &self.m.generation
    }

    fn words(&self) -> usize {
        self.m.data[0].len()
    }

    fn data(&self, c: usize, i: usize) -> &AtomicU64 {
        &self.m.data[c][i]
    }

    fn copies(&self) -> usize {
        2
    }

    fn spin(&self) {
        loom::thread::yield_now();
    }

    fn idle(&self, _word: &AtomicU32, _seen: u32) {
        loom::thread::yield_now();
    }

    fn wake(&self, _word: &AtomicU32) {}

    fn me(&self) -> u64 {
        self.me
    }

    fn alive(&self, token: u64) -> bool {
        token >= 64 || self.m.dead.load(Ordering::Acquire) & (1 << token) == 0
    }
}
