//! The in-region 2N-lock and its recovery from dead processes, written once over the
//! [`Shared`] trait: the region implements it over its bytes, and the loom model
//! (`--cfg loom`) over loom's atomics, so that loom checks this very code.
//!
//! # Why two-party locks, not ticket locks
//! Each of a slot's two locks (signal and main) has exactly two parties: the slot's owner
//! (one reader) and the writer role (one writer at a time, by the writers' lock). A ticket
//! lock's tickets are anonymous: a ticket taken by a process that then died cannot be told
//! from a live one, so the queue behind it wedges. Here each lock is Peterson's two-party
//! lock (G. L. Peterson, "Myths about the mutual exclusion problem", Information Processing
//! Letters 12(3), 1981), in the form whose only read-modify-write is the exchange of `turn`
//! (flags stored relaxed, the exchange at least acquire-release, the waiter's loads at least
//! acquire; `SeqCst` where a sleeper's wake-up depends on it), so each
//! party's intent is a word of its own: `flag[reader]` belongs to whoever owns the slot's
//! claim, `flag[writer]` to whoever holds the writers' lock. It is starvation-free for both
//! parties (a reader that unlocks and comes back sets `turn` against itself, so a waiting
//! writer goes next: the writer cannot starve), and recovery is a matter of ownership:
//!
//! * a reader found dead (by the embedder's liveness check, never guessed) while the writer
//!   waits on its flag: the writer swaps the claim from the dead owner to [`SEIZED`] (so no
//!   one else can take the slot meanwhile), clears the dead reader's flags, and frees the
//!   slot when it releases;
//! * a new reader that finds no free slot takes over a dead owner's claim the same way
//!   (compare-and-swap from the dead token) and clears the dead reader's flags;
//! * a writer found dead, by the next writer waiting for the writers' lock or by a reader
//!   waiting on the dead writer's flag: whoever swaps the writers' lock from the dead owner
//!   to itself inherits the writer role, rolls back an unfinished write's generation (the
//!   data it was writing lives in the other copy, never seen), releases every flag the role
//!   held and frees the slots it had seized ([`cleanup`]).
//!
//! A waiter's flag word is 0 (free), 1 (wants or holds) or 2 (holds, and the other party may
//! sleep on it): a waiter marks 1 → 2 before it idles, and an unlock that swaps a 2 out wakes
//! the word. A waiter asks whether the party it waits for is alive every [`CHECK_EVERY`]
//! idles.

use std::sync::atomic::Ordering;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

/// A claim word's value for a free slot.
pub(crate) const FREE: u64 = 0;
/// A claim word's value while the writer role holds a dead reader's slot.
pub(crate) const SEIZED: u64 = u64::MAX;
/// Idle calls between two liveness checks of the party a waiter waits for.
pub(crate) const CHECK_EVERY: u32 = 16;

/// The reader party's index in a lock's flags.
pub(crate) const READER: usize = 0;
/// The writer party's index.
pub(crate) const WRITER: usize = 1;

/// Which of a slot's two locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lock {
    /// Step 1 of the 2N-lock: the writer holds every signal lock to stop new readers.
    Signal,
    /// The lock a reader holds while it reads.
    Main,
}

/// The atomic operations the protocol uses, on `u32` and `u64` words.
pub(crate) trait Atomic {
    /// The value type.
    type V: Copy + Eq;
    fn load(&self, o: Ordering) -> Self::V;
    fn store(&self, v: Self::V, o: Ordering);
    fn swap(&self, v: Self::V, o: Ordering) -> Self::V;
    fn cas(
        &self,
        cur: Self::V,
        new: Self::V,
        ok: Ordering,
        fail: Ordering,
    ) -> Result<Self::V, Self::V>;
}

macro_rules! atomic {
    ($t:ty, $v:ty) => {
        impl Atomic for $t {
            type V = $v;
            fn load(&self, o: Ordering) -> $v {
                <$t>::load(self, o)
            }
            fn store(&self, v: $v, o: Ordering) {
                <$t>::store(self, v, o);
            }
            fn swap(&self, v: $v, o: Ordering) -> $v {
                <$t>::swap(self, v, o)
            }
            fn cas(&self, cur: $v, new: $v, ok: Ordering, fail: Ordering) -> Result<$v, $v> {
                <$t>::compare_exchange(self, cur, new, ok, fail)
            }
        }
    };
}

atomic!(std::sync::atomic::AtomicU32, u32);
atomic!(std::sync::atomic::AtomicU64, u64);
#[cfg(loom)]
atomic!(loom::sync::atomic::AtomicU32, u32);
#[cfg(loom)]
atomic!(loom::sync::atomic::AtomicU64, u64);

/// One two-party lock: the parties' flags and the turn word.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pair<'a, A> {
    pub(crate) flag: [&'a A; 2],
    pub(crate) turn: &'a A,
}

/// What the protocol needs from the memory it runs in and from the embedder.
pub(crate) trait Shared {
    type A32: Atomic<V = u32>;
    type A64: Atomic<V = u64>;
    /// Reader slots.
    fn slots(&self) -> usize;
    /// Slot `i`'s claim: [`FREE`], an owner token or [`SEIZED`].
    fn claim(&self, i: usize) -> &Self::A64;
    /// Slot `i`'s lock `l`.
    fn pair(&self, i: usize, l: Lock) -> Pair<'_, Self::A32>;
    /// The writers' lock: [`FREE`] or the holder's token.
    fn writer_owner(&self) -> &Self::A64;
    /// The writers' lock's sleep word: 0 free, 1 held, 2 held with sleepers.
    fn writer_held(&self) -> &Self::A32;
    /// The generation: even when stable, odd while a write is underway.
    fn generation(&self) -> &Self::A64;
    /// Data words per copy.
    fn words(&self) -> usize;
    /// Word `i` of copy `c` (0 or 1).
    fn data(&self, c: usize, i: usize) -> &Self::A64;
    /// Copies of the data words: 2, or 1 for a caller that publishes by its own flip.
    fn copies(&self) -> usize;
    /// Busy checks before idling.
    fn spins(&self) -> u32;
    /// One busy check's pause.
    fn spin(&self);
    /// Waits a while, or until `word` no longer holds `seen`.
    fn idle(&self, word: &Self::A32, seen: u32);
    /// Wakes the waiters sleeping on `word`.
    fn wake(&self, word: &Self::A32);
    /// This process's owner token.
    fn me(&self) -> u64;
    /// Whether the process that owns `token` may still run.
    fn alive(&self, token: u64) -> bool;
}

/// The copy readers read at generation `g` (even) of a double-buffered region.
pub(crate) fn live_copy(g: u64) -> usize {
    usize::from((g >> 1) & 1 == 1)
}

/// The copy readers read at generation `g` of `s`.
fn live<S: Shared>(s: &S, g: u64) -> usize {
    if s.copies() == 2 { live_copy(g) } else { 0 }
}

/// Waits until `step(check)` says ready; `check` is true every [`CHECK_EVERY`] idles (the
/// first idle included), when `step` may test liveness. Before idling on `word` a waiter marks
/// it 1 → 2 so that the unlock wakes it.
fn wait<S: Shared>(s: &S, word: &S::A32, mut step: impl FnMut(bool) -> bool) {
    let mut spins = 0u32;
    let mut idles = 0u32;
    loop {
        let check = spins >= s.spins() && idles.is_multiple_of(CHECK_EVERY);
        if step(check) {
            return;
        }
        if spins < s.spins() {
            spins += 1;
            s.spin();
            continue;
        }
        idles = idles.wrapping_add(1);
        match word.cas(1, 2, SeqCst, Relaxed) {
            // Marked: look once more before sleeping (the other party may have given the
            // turn away between the look above and the mark; see `acquire`).
            Ok(_) | Err(2) => {
                if step(false) {
                    return;
                }
                s.idle(word, 2);
            }
            // Released meanwhile (0): look again at once.
            Err(_) => s.spin(),
        }
    }
}

/// Party `p` takes `pair`; `on_check` runs at each liveness check.
fn acquire<S: Shared>(s: &S, pair: Pair<'_, S::A32>, p: usize, mut on_check: impl FnMut()) {
    let o = 1 - p;
    pair.flag[p].store(1, Relaxed);
    pair.turn.swap(o as u32, SeqCst);
    // The other party may have marked our flag and gone to sleep on it after seeing the flag
    // but before our turn swap gave it the turn: wake it. (Its mark and its look at `turn`,
    // and our swap and this load, are sequentially consistent, so one of us sees the other.)
    if pair.flag[p].load(SeqCst) == 2 {
        s.wake(pair.flag[p]);
    }
    wait(s, pair.flag[o], |check| {
        if check {
            on_check();
        }
        pair.flag[o].load(Acquire) == 0 || pair.turn.load(SeqCst) != o as u32
    });
}

/// Party `p` releases `pair` (or clears a dead holder's flag), waking a sleeper.
fn release<S: Shared>(s: &S, pair: Pair<'_, S::A32>, p: usize) {
    if pair.flag[p].swap(0, Release) == 2 {
        s.wake(pair.flag[p]);
    }
}

/// Clears the reader party's flags of slot `i` (its owner is dead, or gone).
fn clear_reader<S: Shared>(s: &S, i: usize) {
    for l in [Lock::Signal, Lock::Main] {
        release(s, s.pair(i, l), READER);
    }
}

/// Whether `token` is a dead owner's (not free, not seized, and the liveness check says so).
fn dead<S: Shared>(s: &S, token: u64) -> bool {
    token != FREE && token != SEIZED && !s.alive(token)
}

/// Claims a free slot for this process, or else takes over a dead owner's (clearing its
/// flags); `None` if every slot belongs to a live owner.
pub(crate) fn claim_slot<S: Shared>(s: &S) -> Option<usize> {
    let me = s.me();
    for i in 0..s.slots() {
        if s.claim(i).cas(FREE, me, Acquire, Relaxed).is_ok() {
            return Some(i);
        }
    }
    for i in 0..s.slots() {
        let c = s.claim(i);
        let owner = c.load(Acquire);
        if dead(s, owner) && c.cas(owner, me, AcqRel, Relaxed).is_ok() {
            clear_reader(s, i);
            return Some(i);
        }
    }
    None
}

/// Gives slot `i` back (its owner holds none of its locks).
pub(crate) fn release_slot<S: Shared>(s: &S, i: usize) {
    s.claim(i).store(FREE, Release);
}

/// If the writers' lock's holder is dead, takes the lock over, cleans up after it and
/// releases it again (a reader waiting on a dead writer does this).
fn recover_dead_writer<S: Shared>(s: &S) {
    let owner = s.writer_owner().load(Acquire);
    if dead(s, owner) && s.writer_owner().cas(owner, s.me(), AcqRel, Relaxed).is_ok() {
        s.writer_held().store(1, Relaxed);
        cleanup(s);
        writer_unlock(s);
    }
}

/// What the holder of the writers' lock does after taking it from a dead holder: rolls an
/// unfinished write back (its generation was odd: the dead writer held every main lock, so no
/// reader is inside; `g + 3` is even and names the same live copy as `g - 1`, and the
/// generation never goes back), releases every flag the writer role held, and frees the
/// slots it had seized.
pub(crate) fn cleanup<S: Shared>(s: &S) {
    let g = s.generation().load(Acquire);
    if g % 2 == 1 {
        s.generation().store(g.wrapping_add(3), Release);
    }
    for i in 0..s.slots() {
        if s.claim(i).load(Acquire) == SEIZED {
            clear_reader(s, i);
            s.claim(i).store(FREE, Release);
        }
        for l in [Lock::Main, Lock::Signal] {
            let pair = s.pair(i, l);
            if pair.flag[WRITER].swap(0, Release) != 0 {
                s.wake(pair.flag[WRITER]);
            }
        }
    }
}

/// Takes the writers' lock, taking it over (and cleaning up) from a dead holder.
pub(crate) fn writer_lock<S: Shared>(s: &S) {
    let me = s.me();
    let owner = s.writer_owner();
    wait(s, s.writer_held(), |check| {
        if owner.cas(FREE, me, Acquire, Relaxed).is_ok() {
            s.writer_held().store(1, Relaxed);
            return true;
        }
        if check {
            let o = owner.load(Acquire);
            if dead(s, o) && owner.cas(o, me, AcqRel, Relaxed).is_ok() {
                s.writer_held().store(1, Relaxed);
                cleanup(s);
                return true;
            }
        }
        false
    });
}

/// Releases the writers' lock.
pub(crate) fn writer_unlock<S: Shared>(s: &S) {
    // The sleep word first: a waiter that sees it 0 spins instead of sleeping, and takes the
    // lock when the owner word frees.
    let held = s.writer_held().swap(0, Release);
    s.writer_owner().store(FREE, Release);
    if held == 2 {
        s.wake(s.writer_held());
    }
}

/// While the writer waits on slot `i`: if its owner is dead, seize the slot.
fn seize_if_dead<S: Shared>(s: &S, i: usize) {
    let c = s.claim(i);
    let owner = c.load(Acquire);
    if dead(s, owner) && c.cas(owner, SEIZED, AcqRel, Relaxed).is_ok() {
        clear_reader(s, i);
    }
}

/// Steps 6 and 7 of the 2N-lock (the writers' lock first): every signal lock, then every
/// main lock, seizing the slots of dead readers it waits on.
pub(crate) fn write_lock<S: Shared>(s: &S) {
    writer_lock(s);
    for l in [Lock::Signal, Lock::Main] {
        for i in 0..s.slots() {
            acquire(s, s.pair(i, l), WRITER, || seize_if_dead(s, i));
        }
    }
}

/// Step 9: releases every slot's locks, frees the seized slots, then the writers' lock.
pub(crate) fn write_unlock<S: Shared>(s: &S) {
    for i in 0..s.slots() {
        release(s, s.pair(i, Lock::Main), WRITER);
        release(s, s.pair(i, Lock::Signal), WRITER);
        if s.claim(i).load(Acquire) == SEIZED {
            clear_reader(s, i);
            s.claim(i).store(FREE, Release);
        }
    }
    writer_unlock(s);
}

/// Steps 1–3 for the owner of slot `i`: signal, main, release signal. A dead writer found
/// while waiting is recovered from.
pub(crate) fn read_lock<S: Shared>(s: &S, i: usize) {
    acquire(s, s.pair(i, Lock::Signal), READER, || {
        recover_dead_writer(s)
    });
    acquire(s, s.pair(i, Lock::Main), READER, || recover_dead_writer(s));
    release(s, s.pair(i, Lock::Signal), READER);
}

/// Step 5.
pub(crate) fn read_unlock<S: Shared>(s: &S, i: usize) {
    release(s, s.pair(i, Lock::Main), READER);
}

/// Takes the writers' lock and frees every slot whose owner is dead (holding a lock or not);
/// the number freed.
pub(crate) fn reclaim<S: Shared>(s: &S) -> usize {
    writer_lock(s);
    let mut freed = 0;
    for i in 0..s.slots() {
        let c = s.claim(i);
        let owner = c.load(Acquire);
        if dead(s, owner) && c.cas(owner, SEIZED, AcqRel, Relaxed).is_ok() {
            clear_reader(s, i);
            c.store(FREE, Release);
            freed += 1;
        }
    }
    writer_unlock(s);
    freed
}

/// Releases a reader's main lock even if its closure unwinds.
struct ReadGuard<'s, S: Shared> {
    s: &'s S,
    slot: usize,
}

impl<S: Shared> Drop for ReadGuard<'_, S> {
    fn drop(&mut self) {
        read_unlock(self.s, self.slot);
    }
}

/// A read of slot `i`: `f` gets the live copy's index.
pub(crate) fn read<S: Shared, R>(s: &S, i: usize, f: impl FnOnce(usize) -> R) -> R {
    read_lock(s, i);
    let _guard = ReadGuard { s, slot: i };
    // Under the main lock the generation is even (odd only while the writer role holds
    // every main lock).
    f(live(s, s.generation().load(Acquire)))
}

/// Releases the write side even if the writer's closure unwinds; an unfinished write (odd
/// generation) is rolled back as a dead writer's would be.
struct WriteGuard<'s, S: Shared> {
    s: &'s S,
}

impl<S: Shared> Drop for WriteGuard<'_, S> {
    fn drop(&mut self) {
        let g = self.s.generation().load(Acquire);
        if g % 2 == 1 {
            self.s.generation().store(g.wrapping_add(3), Release);
        }
        write_unlock(self.s);
    }
}

/// A write: takes the write side, marks the generation odd, copies the live copy into the
/// other one, hands `f` that other copy's index, then publishes it with one store of the
/// next even generation. A writer killed before that store leaves the live copy untouched.
/// With one copy, `f` writes it in place.
pub(crate) fn write<S: Shared, R>(s: &S, f: impl FnOnce(usize) -> R) -> R {
    write_lock(s);
    let guard = WriteGuard { s };
    let g = s.generation().load(Acquire);
    s.generation().store(g.wrapping_add(1), Release);
    let target = if s.copies() == 2 {
        let (live, shadow) = (live_copy(g), 1 - live_copy(g));
        for w in 0..s.words() {
            s.data(shadow, w)
                .store(s.data(live, w).load(Relaxed), Relaxed);
        }
        shadow
    } else {
        0
    };
    let out = f(target);
    s.generation().store(g.wrapping_add(2), Release);
    drop(guard);
    out
}
