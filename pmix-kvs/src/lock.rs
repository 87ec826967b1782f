//! The 2N-lock (survey §4.1; Polyakov et al., "A performance analysis and optimization of
//! PMIx-based HPC software stacks", EuroMPI 2019; shipped in PMIx 2.1 as OpenPMIx's
//! `gds/ds21`), a reader–writer lock whose readers never touch each other's cache lines and
//! whose writer cannot starve.
//!
//! N reader slots, each with two locks, `signal[i]` and `main[i]` (2N locks in all):
//!
//! 1. reader *i* takes `signal[i]`, 2. then `main[i]`, 3. releases `signal[i]` at once,
//!    4. reads, 5. releases `main[i]`;
//! 6. the writer takes every `signal[k]` (new readers now stop at step 1), 7. then every
//!    `main[k]` (waiting out the readers inside), 8. writes, 9. releases them all.
//!
//! A reader touches only its own slot's cache line; the writer's O(N) sweep is the price.
//! Unlike ds21, whose slots were never given back, a slot here is claimed by a
//! [`ReaderSlot`] and released when it drops, so threads can come and go.
//!
//! [`TwoNLock`] wraps the protocol (a `lock_api`-style raw lock over atomics, internal)
//! around a value with RAII guards. The 2N locks are ticket locks whose
//! waiters wait as the lock's [`WaitStrategy`] says: spin, spin then yield the time slice
//! (the default: nothing sleeps in the kernel, so the same protocol could live in a
//! shared-memory segment), or spin then sleep on a condition variable until the holder's
//! unlock wakes them (for more threads than cores).
//! Ticket order is what makes step 6 bounded: a writer waiting for `signal[i]` is next in
//! line, so a reader that releases its locks and loops back waits behind it (a
//! test-and-set lock let a tight reader loop keep `signal[i]` from the writer for
//! milliseconds).
//!
//! This module and [`crate::region`] are the only ones with `unsafe` code; each block says why it is sound,
//! a loom model (`RUSTFLAGS="--cfg loom" cargo test -p pmix-kvs --release --test loom_lock`)
//! checks the protocol under every wait strategy, and Miri runs the unit tests where the toolchain has it
//! (`cargo +nightly miri test -p pmix-kvs --lib lock::`).
//!
//! # Complexity
//! A read takes 3 lock operations and 2 releases on the reader's own slot: O(1), no shared
//! cache line. A write takes 2N acquisitions and 2N releases: O(N).
//!
//! ```
//! use pmix_kvs::lock::TwoNLock;
//!
//! let lock = TwoNLock::new(vec![1, 2], 4)?; // 4 reader slots
//! std::thread::scope(|s| {
//!     s.spawn(|| {
//!         let mut slot = lock.reader().expect("a free slot"); // claimed until dropped
//!         let n = slot.read().len();
//!         assert!(n == 2 || n == 3);
//!     });
//!     lock.write().push(3);
//! });
//! assert_eq!(lock.into_inner(), vec![1, 2, 3]);
//! # Ok::<(), pmix_kvs::Error>(())
//! ```

mod sync;

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

use self::sync::{
    AtomicU32, Condvar, ConstPtr, MutPtr, Mutex, Ordering, UnsafeCell, spin_hint, yield_now,
};
use crate::error::{Error, Result};

/// How a thread waits for one of the 2N locks while another holds it.
///
/// The protocol (who takes which lock in which order) is the same for all; only the waiting
/// differs. With one thread per core, spinning hands a lock over fastest; with more threads
/// than cores, a spinning waiter burns the time slice that the holder (a preempted reader
/// inside its critical section, or the writer in its sweep) needs to finish, and the writer's
/// wait grows to scheduler quanta. ds21's process-shared pthread mutexes spun briefly and
/// then slept in the kernel (futex), which [`WaitStrategy::Park`] mirrors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitStrategy {
    /// Busy-wait with the CPU's spin-loop hint and never give the core away: the lowest
    /// hand-over latency when every thread has a core of its own.
    Spin,
    /// Spin `spins` times, then yield the time slice at every further check (the default,
    /// with 64 spins). Nothing sleeps in the kernel, so the protocol could live in a
    /// shared-memory segment; yielding helps under light oversubscription only.
    SpinThenYield {
        /// Busy checks before the first yield.
        spins: u32,
    },
    /// Spin `spins` times, then block on the lock's condition variable until the holder's
    /// unlock wakes the waiter: for more threads than cores. An unlock costs an atomic swap
    /// instead of a store (to see whether anyone sleeps), and a mutex and a wake-up when
    /// someone does.
    Park {
        /// Busy checks before sleeping.
        spins: u32,
    },
}

impl Default for WaitStrategy {
    fn default() -> Self {
        Self::SpinThenYield { spins: 64 }
    }
}

/// The bit of [`TicketLock::serving`] that says a waiter sleeps on the lock's condition
/// variable; the other 31 bits count tickets served.
const PARKED: u32 = 1 << 31;
/// The ticket bits.
const TICKET: u32 = PARKED - 1;

/// A ticket lock: waiters are served in arrival order, so a writer queued behind a reader's
/// signal lock gets it after that one reader, however fast the reader loops. `parked` and
/// `wake` (and the [`PARKED`] bit) are used by [`WaitStrategy::Park`] only.
#[derive(Debug)]
struct TicketLock {
    /// The next ticket to hand out (compared modulo 2³¹).
    next: AtomicU32,
    /// The ticket now served, modulo 2³¹, and the [`PARKED`] bit.
    serving: AtomicU32,
    parked: Mutex<()>,
    wake: Condvar,
}

impl TicketLock {
    fn new() -> Self {
        Self {
            next: AtomicU32::new(0),
            serving: AtomicU32::new(0),
            parked: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    fn try_lock(&self) -> bool {
        let s = self.serving.load(Ordering::Relaxed) & TICKET;
        // `next` may have wrapped past 2³¹ (it counts modulo 2³²): any value congruent to
        // `s` is free.
        let n = self.next.load(Ordering::Relaxed);
        n & TICKET == s
            && self
                .next
                .compare_exchange(n, n.wrapping_add(1), Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
    }

    #[inline]
    fn lock(&self, wait: WaitStrategy) {
        let ticket = self.next.fetch_add(1, Ordering::Relaxed) & TICKET;
        if self.serving.load(Ordering::Acquire) & TICKET != ticket {
            self.wait_for(ticket, wait);
        }
    }

    #[cold]
    fn wait_for(&self, ticket: u32, wait: WaitStrategy) {
        let (budget, park) = match wait {
            WaitStrategy::Spin => (u32::MAX, false),
            WaitStrategy::SpinThenYield { spins } => (spins, false),
            WaitStrategy::Park { spins } => (spins, true),
        };
        let mut spins = 0u32;
        while self.serving.load(Ordering::Acquire) & TICKET != ticket {
            if spins < budget {
                spins += 1;
                spin_hint();
            } else if park {
                self.park(ticket);
                return;
            } else {
                yield_now();
            }
        }
    }

    /// Sleeps until `serving` reaches `ticket`. No wake-up is lost: the sleeper sets the
    /// [`PARKED`] bit with a compare-and-swap on the very value it found not to be its ticket,
    /// and the unlocker advances `serving` with a swap. Both are read-modify-writes of one
    /// atomic, so one comes first: if the unlock did, the compare-and-swap fails and the
    /// sleeper looks again; if the bit did, the unlocker sees it in the swapped-out value
    /// and wakes the sleepers, taking `parked` first, which it gets only once this thread
    /// is inside `wait` (it holds `parked` from before the compare-and-swap until then).
    fn park(&self, ticket: u32) {
        let mut guard = self
            .parked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            let s = self.serving.load(Ordering::Acquire);
            if s & TICKET == ticket {
                return;
            }
            if s & PARKED == 0
                && self
                    .serving
                    .compare_exchange(s, s | PARKED, Ordering::Acquire, Ordering::Acquire)
                    .is_err()
            {
                continue;
            }
            guard = self
                .wake
                .wait(guard)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    #[inline]
    fn unlock(&self, wait: WaitStrategy) {
        // Only the holder advances the ticket bits; a sleeper may set PARKED meanwhile.
        let next = (self.serving.load(Ordering::Relaxed) & TICKET).wrapping_add(1) & TICKET;
        if let WaitStrategy::Park { .. } = wait {
            if self.serving.swap(next, Ordering::AcqRel) & PARKED != 0 {
                self.wake_all();
            }
        } else {
            self.serving.store(next, Ordering::Release);
        }
    }

    #[cold]
    fn wake_all(&self) {
        // Taking `parked` waits until the sleeper that set the bit is inside `wait`.
        drop(
            self.parked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        // Every sleeper wakes and re-checks its ticket (one that is not served yet sets the
        // bit again): a lock has a reader and the writer (or a few writers) queued at most,
        // so waking all is cheap and needs no list of tickets.
        self.wake.notify_all();
    }

    #[cfg(test)]
    fn is_locked(&self) -> bool {
        self.next.load(Ordering::Relaxed) & TICKET != self.serving.load(Ordering::Relaxed) & TICKET
    }
}

/// One reader's slot: its claim flag and its two locks, on a cache line of its own (128 bytes
/// covers the adjacent-line prefetch of x86 and the 128-byte lines of POWER and Apple).
#[derive(Debug)]
#[repr(align(128))]
struct Slot {
    in_use: AtomicU32,
    signal: TicketLock,
    main: TicketLock,
}

/// The 2N-lock protocol without data: reader slots and the signal/main locks.
#[derive(Debug)]
pub(crate) struct RawTwoNLock {
    slots: Box<[Slot]>,
    wait: WaitStrategy,
}

impl RawTwoNLock {
    /// A lock with `slots` reader slots (ds21 had one per local process) and the default
    /// [`WaitStrategy`].
    ///
    /// # Errors
    /// [`Error::NoSlots`] for zero slots.
    #[cfg(test)]
    pub(crate) fn new(slots: usize) -> Result<Self> {
        Self::with_wait(slots, WaitStrategy::default())
    }

    /// A lock with `slots` reader slots whose waiters wait as `wait` says.
    ///
    /// # Errors
    /// [`Error::NoSlots`] for zero slots.
    pub(crate) fn with_wait(slots: usize, wait: WaitStrategy) -> Result<Self> {
        if slots == 0 {
            return Err(Error::NoSlots);
        }
        Ok(Self {
            slots: (0..slots)
                .map(|_| Slot {
                    in_use: AtomicU32::new(0),
                    signal: TicketLock::new(),
                    main: TicketLock::new(),
                })
                .collect(),
            wait,
        })
    }

    /// How this lock's waiters wait.
    #[must_use]
    pub(crate) fn wait_strategy(&self) -> WaitStrategy {
        self.wait
    }

    /// Number of reader slots.
    #[must_use]
    pub(crate) fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Claims a free reader slot (compare-and-swap on its flag, scanning from 0, as ds21's
    /// attach does) and returns its index.
    ///
    /// # Errors
    /// [`Error::NoFreeSlot`] when every slot is claimed.
    ///
    /// # Complexity
    /// O(N) compare-and-swaps at worst.
    pub(crate) fn claim_slot(&self) -> Result<usize> {
        for (i, s) in self.slots.iter().enumerate() {
            if s.in_use.load(Ordering::Relaxed) == 0
                && s.in_use
                    .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                return Ok(i);
            }
        }
        Err(Error::NoFreeSlot {
            slots: self.slots.len(),
        })
    }

    /// Gives a slot back so another reader may claim it.
    ///
    /// # Safety
    /// The caller claimed `slot` with [`RawTwoNLock::claim_slot`], does not hold its read lock,
    /// and will not use it again.
    ///
    /// # Panics
    /// If `slot` is out of range.
    pub(crate) unsafe fn release_slot(&self, slot: usize) {
        self.slots[slot].in_use.store(0, Ordering::Release);
    }

    /// Steps 1–3: takes the read lock of `slot`, waiting while a writer holds or wants it.
    ///
    /// # Panics
    /// If `slot` is out of range.
    pub(crate) fn lock_shared(&self, slot: usize) {
        let s = &self.slots[slot];
        s.signal.lock(self.wait);
        s.main.lock(self.wait);
        s.signal.unlock(self.wait);
    }

    /// Steps 1–3 without waiting: `false` if a writer holds or wants the lock.
    ///
    /// # Panics
    /// If `slot` is out of range.
    pub(crate) fn try_lock_shared(&self, slot: usize) -> bool {
        let s = &self.slots[slot];
        if !s.signal.try_lock() {
            return false;
        }
        let ok = s.main.try_lock();
        s.signal.unlock(self.wait);
        ok
    }

    /// Step 5: releases the read lock of `slot`.
    ///
    /// # Safety
    /// The caller holds the read lock of `slot`.
    ///
    /// # Panics
    /// If `slot` is out of range.
    pub(crate) unsafe fn unlock_shared(&self, slot: usize) {
        self.slots[slot].main.unlock(self.wait);
    }

    /// Steps 6–7: takes every signal lock, then every main lock.
    ///
    /// # Complexity
    /// 2N lock acquisitions.
    pub(crate) fn lock_exclusive(&self) {
        for s in &*self.slots {
            s.signal.lock(self.wait);
        }
        for s in &*self.slots {
            s.main.lock(self.wait);
        }
    }

    /// Step 9: releases every lock.
    ///
    /// # Safety
    /// The caller holds the write lock.
    pub(crate) unsafe fn unlock_exclusive(&self) {
        for s in &*self.slots {
            s.signal.unlock(self.wait);
            s.main.unlock(self.wait);
        }
    }

    /// Whether a writer holds or is taking `slot`'s signal lock (new readers of that slot wait).
    ///
    /// # Panics
    /// If `slot` is out of range.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn is_signalled(&self, slot: usize) -> bool {
        self.slots[slot].signal.is_locked()
    }
}

/// A value shared by readers (one per claimed slot) and writers through the 2N-lock.
pub struct TwoNLock<T> {
    raw: RawTwoNLock,
    data: UnsafeCell<T>,
}

// SAFETY: the lock owns its value; sending it to another thread sends the `T`.
unsafe impl<T: Send> Send for TwoNLock<T> {}
// SAFETY: readers get `&T` from several threads at once (needs `T: Sync`) and a writer gets
// `&mut T` on whichever thread takes the write lock (needs `T: Send`), as for `RwLock`.
unsafe impl<T: Send + Sync> Sync for TwoNLock<T> {}

impl<T> fmt::Debug for TwoNLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TwoNLock")
            .field("slots", &self.raw.slots())
            .finish_non_exhaustive()
    }
}

impl<T> TwoNLock<T> {
    /// `value` behind a 2N-lock with `slots` reader slots.
    ///
    /// # Errors
    /// [`Error::NoSlots`] for zero slots.
    pub fn new(value: T, slots: usize) -> Result<Self> {
        Self::with_wait(value, slots, WaitStrategy::default())
    }

    /// `value` behind a 2N-lock with `slots` reader slots whose waiters wait as `wait` says
    /// (e.g. [`WaitStrategy::Park`] when threads outnumber cores).
    ///
    /// # Errors
    /// [`Error::NoSlots`] for zero slots.
    pub fn with_wait(value: T, slots: usize, wait: WaitStrategy) -> Result<Self> {
        Ok(Self {
            raw: RawTwoNLock::with_wait(slots, wait)?,
            data: UnsafeCell::new(value),
        })
    }

    /// The raw protocol underneath (for the tests' inspection).
    #[cfg(test)]
    pub(crate) fn raw(&self) -> &RawTwoNLock {
        &self.raw
    }

    /// How this lock's waiters wait.
    #[must_use]
    pub fn wait_strategy(&self) -> WaitStrategy {
        self.raw.wait_strategy()
    }

    /// Number of reader slots.
    #[must_use]
    pub fn slots(&self) -> usize {
        self.raw.slots()
    }

    /// Claims a reader slot; it is released when the returned handle drops.
    ///
    /// # Errors
    /// [`Error::NoFreeSlot`] when every slot is claimed.
    pub fn reader(&self) -> Result<ReaderSlot<'_, T>> {
        Ok(ReaderSlot {
            lock: self,
            slot: self.raw.claim_slot()?,
        })
    }

    /// Takes the write lock (steps 6–7), waiting for readers inside to leave. As with
    /// `RwLock`, a thread that holds a read guard and asks for the write lock deadlocks.
    ///
    /// # Complexity
    /// O(N) in the number of slots.
    pub fn write(&self) -> WriteGuard<'_, T> {
        self.raw.lock_exclusive();
        WriteGuard {
            lock: self,
            ptr: ManuallyDrop::new(self.data.get_mut()),
        }
    }

    /// The value, lock consumed.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

/// A claimed reader slot of a [`TwoNLock`]; dropping it gives the slot back.
pub struct ReaderSlot<'a, T> {
    lock: &'a TwoNLock<T>,
    slot: usize,
}

impl<T> fmt::Debug for ReaderSlot<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReaderSlot")
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl<'a, T> ReaderSlot<'a, T> {
    /// This slot's index.
    #[must_use]
    pub fn index(&self) -> usize {
        self.slot
    }

    /// Takes this slot's read lock (steps 1–3), waiting while a writer holds or wants it.
    /// The `&mut` borrow makes one read at a time per slot.
    pub fn read(&mut self) -> ReadGuard<'_, T> {
        self.lock.raw.lock_shared(self.slot);
        self.guard()
    }

    /// As [`ReaderSlot::read`] without waiting: `None` while a writer holds or wants the lock.
    pub fn try_read(&mut self) -> Option<ReadGuard<'_, T>> {
        self.lock
            .raw
            .try_lock_shared(self.slot)
            .then(|| self.guard())
    }

    fn guard(&mut self) -> ReadGuard<'_, T> {
        ReadGuard {
            lock: self.lock,
            slot: self.slot,
            ptr: ManuallyDrop::new(self.lock.data.get()),
            _slot: PhantomData,
        }
    }
}

impl<T> Drop for ReaderSlot<'_, T> {
    fn drop(&mut self) {
        // SAFETY: this handle claimed the slot; a read guard borrows the handle mutably, so
        // none is alive now, and the handle is going away.
        unsafe { self.lock.raw.release_slot(self.slot) }
    }
}

/// Shared access to a [`TwoNLock`]'s value through one reader slot.
pub struct ReadGuard<'a, T> {
    lock: &'a TwoNLock<T>,
    slot: usize,
    ptr: ManuallyDrop<ConstPtr<T>>,
    _slot: PhantomData<&'a mut usize>,
}

impl<T> fmt::Debug for ReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadGuard")
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl<T> Deref for ReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: this guard holds `main[slot]`, which the writer must take before it creates
        // `&mut T`, so only shared references exist while the guard lives.
        unsafe { ConstPtr::deref(&self.ptr) }
    }
}

impl<T> Drop for ReadGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: `ptr` is dropped exactly once, here, before the lock is released (under loom
        // this ends the tracked access while it is still protected).
        unsafe { ManuallyDrop::drop(&mut self.ptr) };
        // SAFETY: this guard took the read lock of `slot` and releases it once.
        unsafe { self.lock.raw.unlock_shared(self.slot) };
    }
}

/// Exclusive access to a [`TwoNLock`]'s value.
pub struct WriteGuard<'a, T> {
    lock: &'a TwoNLock<T>,
    ptr: ManuallyDrop<MutPtr<T>>,
}

impl<T> fmt::Debug for WriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriteGuard").finish_non_exhaustive()
    }
}

impl<T> Deref for WriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the write lock holds every `main` lock, so no reader holds a reference, and
        // the `&self` borrow keeps `deref_mut` from running while this one lives.
        unsafe { MutPtr::deref(&self.ptr) }
    }
}

impl<T> DerefMut for WriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as for `deref`; `&mut self` makes this the only reference.
        unsafe { MutPtr::deref(&self.ptr) }
    }
}

impl<T> Drop for WriteGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: `ptr` is dropped exactly once, here, before the lock is released.
        unsafe { ManuallyDrop::drop(&mut self.ptr) };
        // SAFETY: this guard took the write lock and releases it once.
        unsafe { self.lock.raw.unlock_exclusive() };
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
