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
//!
//! # States no live process holds, and impossible values
//! Memory can also be left in a state that no live process holds by other means than a
//! death: a corrupted word, a process that wrote a lock word by mistake. Each such state is
//! recovered by whoever waits on it, at its liveness checks, as a dead party's would be:
//!
//! * a reader flag set while its slot's claim is free (no owner) or [`SEIZED`] (the writer
//!   role's, which the waiting writer now holds): the writer seizes the slot (compare-and-swap
//!   from free, so that no reader claims it meanwhile), clears the flags and frees the slot
//!   when it releases (at once, if the flags were clear after all);
//! * a writer flag set while the writers' lock's owner word is free, [`SEIZED`] (no writer's
//!   token) or a dead owner's: the waiting reader takes the writers' lock over and cleans up
//!   as after a dead writer ([`cleanup`]);
//! * the writers' owner word [`SEIZED`]: the next writer takes it over as from a dead one;
//! * an odd generation at rest: the next write ends odd, and its guard rolls it on by 3, as
//!   a dead writer's unfinished write (to an even generation naming the copy it wrote);
//! * a turn word beyond 1 at rest: the next acquirer's swap overwrites it; a claimed slot's
//!   flags: cleared by the claimer.
//!
//! A value no party ever stores (a flag or the writers' sleep word beyond 2, a turn word
//! beyond 1 while waiting) in a lock that a live owner holds is reported ([`Stop::Corrupt`]):
//! no unlock would ever clear it, so waiting on it would never end. Every wait has a
//! [`Budget`]: a waiter whose holder is alive and keeps the lock gives up when the budget
//! says so ([`Stop::GaveUp`], naming the holder's token), releasing whatever it had taken.

use std::sync::atomic::Ordering;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

use super::wait::Patience;

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

/// A lock word the protocol waits on or found corrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word {
    /// `party`'s flag of slot `slot`'s lock `lock`.
    Flag {
        /// The slot.
        slot: usize,
        /// Which of its locks.
        lock: Lock,
        /// [`READER`] or [`WRITER`].
        party: usize,
    },
    /// The turn word of slot `slot`'s lock `lock`.
    Turn {
        /// The slot.
        slot: usize,
        /// Which of its locks.
        lock: Lock,
    },
    /// The writers' lock's sleep word.
    WriterHeld,
}

/// Why a lock operation stopped without the lock (it holds nothing it took on the way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// `word` holds `value`, which no state of the protocol gives it (a flag or sleep word
    /// beyond 2, a turn beyond 1), while a live owner holds the lock.
    Corrupt {
        /// The word.
        word: Word,
        /// What it held.
        value: u64,
    },
    /// The wait's budget ran out after `idles` idle rounds while the party with token
    /// `holder` (alive, by the liveness check) held `word`.
    GaveUp {
        /// The word waited on.
        word: Word,
        /// The holder's token.
        holder: u64,
        /// Idle rounds waited.
        idles: u64,
    },
}

/// How long one blocking operation may wait: busy checks first, then idle rounds until the
/// patience is exhausted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    /// Busy checks before the first idle round.
    pub(crate) spins: u32,
    /// Asked before each idle round with the rounds idled so far.
    pub(crate) patience: Patience,
}

impl Budget {
    /// `spins` busy checks, then idle rounds for ever.
    #[cfg(any(test, loom))]
    pub(crate) fn forever(spins: u32) -> Self {
        Self {
            spins,
            patience: Patience::Forever,
        }
    }
}

/// Waits until `step(check)` says ready; `check` is true every [`CHECK_EVERY`] idles (the
/// first idle included), when `step` may test liveness and recover what no live party holds.
/// Before idling on `word` a waiter marks it 1 → 2 so that the unlock wakes it; every round
/// past the spins calls the idle hook (or, when the word was released meanwhile, looks again
/// at once). Stops with [`Stop::Corrupt`] when `word` holds a value beyond 2 and with
/// [`Stop::GaveUp`] (naming `holder()`) when the budget runs out.
fn wait<S: Shared>(
    s: &S,
    word: &S::A32,
    what: Word,
    budget: &Budget,
    holder: impl Fn() -> u64,
    mut step: impl FnMut(bool) -> Result<bool, Stop>,
) -> Result<(), Stop> {
    let mut spins = 0u32;
    let mut idles = 0u64;
    loop {
        let check = spins >= budget.spins && idles.is_multiple_of(u64::from(CHECK_EVERY));
        if step(check)? {
            return Ok(());
        }
        if spins < budget.spins {
            spins += 1;
            s.spin();
            continue;
        }
        if budget.patience.exhausted(idles) {
            return Err(Stop::GaveUp {
                word: what,
                holder: holder(),
                idles,
            });
        }
        idles += 1;
        match word.cas(1, 2, SeqCst, Relaxed) {
            // Marked: look once more before sleeping (the other party may have given the
            // turn away between the look above and the mark; see `acquire`).
            Ok(_) | Err(2) => {
                if step(false)? {
                    return Ok(());
                }
                s.idle(word, 2);
            }
            // Released meanwhile: look again at once.
            Err(0) => s.spin(),
            // No party ever stores this: a corrupt word, which no unlock would ever clear.
            Err(v) => {
                return Err(Stop::Corrupt {
                    word: what,
                    value: u64::from(v),
                });
            }
        }
    }
}

/// Party `p` takes lock `l` of slot `i`; `on_check` runs at each liveness check. On a stop,
/// `p`'s flag is cleared again (a live waiter that gave up must not leave its intent set).
fn acquire<S: Shared>(
    s: &S,
    i: usize,
    l: Lock,
    p: usize,
    budget: &Budget,
    mut on_check: impl FnMut(),
) -> Result<(), Stop> {
    let pair = s.pair(i, l);
    let o = 1 - p;
    pair.flag[p].store(1, Relaxed);
    // The swap also overwrites a turn word left corrupt at rest.
    pair.turn.swap(o as u32, SeqCst);
    // The other party may have marked our flag and gone to sleep on it after seeing the flag
    // but before our turn swap gave it the turn: wake it. (Its mark and its look at `turn`,
    // and our swap and this load, are sequentially consistent, so one of us sees the other.)
    if pair.flag[p].load(SeqCst) == 2 {
        s.wake(pair.flag[p]);
    }
    let holder = || {
        if o == READER {
            s.claim(i).load(Relaxed)
        } else {
            s.writer_owner().load(Relaxed)
        }
    };
    let flag = Word::Flag {
        slot: i,
        lock: l,
        party: o,
    };
    let got = wait(s, pair.flag[o], flag, budget, holder, |check| {
        if check {
            on_check();
        }
        if pair.flag[o].load(Acquire) == 0 {
            return Ok(true);
        }
        match pair.turn.load(SeqCst) {
            t if t == o as u32 => Ok(false),
            t if t <= 1 => Ok(true),
            t => Err(Stop::Corrupt {
                word: Word::Turn { slot: i, lock: l },
                value: u64::from(t),
            }),
        }
    });
    if got.is_err() {
        release(s, pair, p);
    }
    got
}

/// Party `p` releases `pair` (or clears a dead holder's flag), waking a sleeper; whether
/// the flag was set.
fn release<S: Shared>(s: &S, pair: Pair<'_, S::A32>, p: usize) -> bool {
    let was = pair.flag[p].swap(0, Release);
    if was == 2 {
        s.wake(pair.flag[p]);
    }
    was != 0
}

/// Clears the reader party's flags of slot `i` (its owner is dead, or gone); whether any was
/// set.
fn clear_reader<S: Shared>(s: &S, i: usize) -> bool {
    let signal = release(s, s.pair(i, Lock::Signal), READER);
    let main = release(s, s.pair(i, Lock::Main), READER);
    signal || main
}

/// Whether `token` is a dead owner's (not free, not seized, and the liveness check says so).
fn dead<S: Shared>(s: &S, token: u64) -> bool {
    token != FREE && token != SEIZED && !s.alive(token)
}

/// Whether no live process holds a writers' lock whose owner word says `token`: free (a
/// writer flag set with a free owner word has no owner), [`SEIZED`] (never a writer's token)
/// or a dead owner's.
fn writer_orphaned<S: Shared>(s: &S, token: u64) -> bool {
    token == FREE || token == SEIZED || !s.alive(token)
}

/// Claims a free slot for this process, or else takes over a dead owner's (clearing its
/// flags); `None` if every slot belongs to a live owner.
pub(crate) fn claim_slot<S: Shared>(s: &S) -> Option<usize> {
    let me = s.me();
    for i in 0..s.slots() {
        if s.claim(i).cas(FREE, me, Acquire, Relaxed).is_ok() {
            // A free slot's flags are clear, unless the memory was corrupted: clear them
            // (ours now), so that our first lock does not start from a stale intent.
            clear_reader(s, i);
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

/// While a reader waits on `flag` (the writer party's flag of one of its locks): if no live
/// process holds the writers' lock (its owner word is free, [`SEIZED`] or a dead owner's)
/// while the flag is still set, takes the lock over, cleans up after the missing writer and
/// releases it again.
fn recover_orphaned_writer<S: Shared>(s: &S, flag: &S::A32) {
    let owner = s.writer_owner().load(Acquire);
    if !writer_orphaned(s, owner) {
        return;
    }
    // A free owner word with the flag clear again is a writer that just finished: nothing
    // to recover.
    if owner == FREE && flag.load(Acquire) == 0 {
        return;
    }
    if s.writer_owner().cas(owner, s.me(), AcqRel, Relaxed).is_ok() {
        s.writer_held().store(1, Relaxed);
        cleanup(s);
        writer_unlock(s);
    }
}

/// What the holder of the writers' lock does after taking it from a missing holder: rolls an
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
            release(s, s.pair(i, l), WRITER);
        }
    }
}

/// Takes the writers' lock, taking it over (and cleaning up) from a holder that no live
/// process is (dead, or the reserved [`SEIZED`] token, which no writer has).
pub(crate) fn writer_lock<S: Shared>(s: &S, budget: &Budget) -> Result<(), Stop> {
    let me = s.me();
    let owner = s.writer_owner();
    let holder = || owner.load(Relaxed);
    wait(
        s,
        s.writer_held(),
        Word::WriterHeld,
        budget,
        holder,
        |check| {
            if owner.cas(FREE, me, Acquire, Relaxed).is_ok() {
                s.writer_held().store(1, Relaxed);
                return Ok(true);
            }
            if check {
                let o = owner.load(Acquire);
                if o != FREE && writer_orphaned(s, o) && owner.cas(o, me, AcqRel, Relaxed).is_ok() {
                    s.writer_held().store(1, Relaxed);
                    cleanup(s);
                    return Ok(true);
                }
            }
            Ok(false)
        },
    )
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

/// While the writer (holding the writers' lock) waits on slot `i`'s reader flag: if no live
/// reader owns the slot, seizes it and clears its flags. No live reader owns it when its
/// claim is a dead owner's, free while the flag is still set (a flag no one owns), or
/// [`SEIZED`] (the writer role's own: this writer seized it, or a missing writer did and
/// left it).
fn seize_if_orphaned<S: Shared>(s: &S, i: usize) {
    let c = s.claim(i);
    let owner = c.load(Acquire);
    if owner == SEIZED {
        clear_reader(s, i);
        return;
    }
    if owner == FREE {
        let pair = [s.pair(i, Lock::Signal), s.pair(i, Lock::Main)];
        if pair.iter().all(|p| p.flag[READER].load(Acquire) == 0) {
            return;
        }
        // Seize it so that no reader claims it while its flags are cleared; give it back at
        // once if they were clear after all (a reader came and went meanwhile).
        if c.cas(FREE, SEIZED, AcqRel, Relaxed).is_ok() && !clear_reader(s, i) {
            c.store(FREE, Release);
        }
        return;
    }
    if dead(s, owner) && c.cas(owner, SEIZED, AcqRel, Relaxed).is_ok() {
        clear_reader(s, i);
    }
}

/// Steps 6 and 7 of the 2N-lock (the writers' lock first): every signal lock, then every
/// main lock, seizing the slots of missing readers it waits on. On a stop, everything taken
/// is released again.
pub(crate) fn write_lock<S: Shared>(s: &S, budget: &Budget) -> Result<(), Stop> {
    writer_lock(s, budget)?;
    for l in [Lock::Signal, Lock::Main] {
        for i in 0..s.slots() {
            if let Err(stop) = acquire(s, i, l, WRITER, budget, || seize_if_orphaned(s, i)) {
                write_unlock(s);
                return Err(stop);
            }
        }
    }
    Ok(())
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

/// Steps 1–3 for the owner of slot `i`: signal, main, release signal. A missing writer found
/// while waiting is recovered from. On a stop, the reader holds neither lock.
pub(crate) fn read_lock<S: Shared>(s: &S, i: usize, budget: &Budget) -> Result<(), Stop> {
    let signal = s.pair(i, Lock::Signal);
    let main = s.pair(i, Lock::Main);
    acquire(s, i, Lock::Signal, READER, budget, || {
        recover_orphaned_writer(s, signal.flag[WRITER]);
    })?;
    let got = acquire(s, i, Lock::Main, READER, budget, || {
        recover_orphaned_writer(s, main.flag[WRITER]);
    });
    release(s, signal, READER);
    got
}

/// Step 5.
pub(crate) fn read_unlock<S: Shared>(s: &S, i: usize) {
    release(s, s.pair(i, Lock::Main), READER);
}

/// Takes the writers' lock and frees every slot whose owner is dead (holding a lock or not);
/// the number freed.
pub(crate) fn reclaim<S: Shared>(s: &S, budget: &Budget) -> Result<usize, Stop> {
    writer_lock(s, budget)?;
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
    Ok(freed)
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
pub(crate) fn read<S: Shared, R>(
    s: &S,
    i: usize,
    budget: &Budget,
    f: impl FnOnce(usize) -> R,
) -> Result<R, Stop> {
    read_lock(s, i, budget)?;
    let _guard = ReadGuard { s, slot: i };
    // Under the main lock the generation is even (odd only while the writer role holds
    // every main lock).
    Ok(f(live(s, s.generation().load(Acquire))))
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
/// With one copy, `f` writes it in place. A generation found odd at the start (no write is
/// underway: corrupt memory) ends odd after the publishing store, and the guard rolls it on
/// by 3 to an even one, as after a dead writer; the copy `f` wrote stays the live one.
pub(crate) fn write<S: Shared, R>(
    s: &S,
    budget: &Budget,
    f: impl FnOnce(usize) -> R,
) -> Result<R, Stop> {
    write_lock(s, budget)?;
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
    Ok(out)
}
