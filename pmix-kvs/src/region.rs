//! A node-store region: a position-independent, versioned layout built inside a byte region
//! the caller provides, holding a 2N-lock made of plain atomics (no heap, no std `Mutex`)
//! and a data area of 64-bit words that the writer updates and readers read through it.
//!
//! This is the first part of a shared-memory node store: the library stays no-I/O; the
//! caller maps the memory (memfd, `shm_open`, a file) and hands it in. The layout uses
//! offsets only, never pointers, so that the same bytes mean the same at any address.
//! Tested: threads of one process sharing a region, and reader processes forked from the
//! writer that attach to a shared anonymous mapping and read while it writes (the package's
//! `region_processes` test); Miri runs the unit tests, the threaded one included
//! (`cargo +nightly miri test -p pmix-kvs --lib region::`). Not built yet: recovery from dead processes (a reader killed
//! holding its slot wedges the writer today), growth, a shipped futex hook, and the store's records
//! on top of the words.
//!
//! # Layout (version [`LAYOUT_VERSION`])
//!
//! Every field is a native-endian word at a fixed offset from the region's start:
//!
//! | offset | field                                                          |
//! |--------|----------------------------------------------------------------|
//! | 0      | magic `u64` ([`MAGIC`], written last by [`Region::format`])    |
//! | 8      | layout version `u64`                                           |
//! | 16     | generation `u64`: writes completed (odd while one is underway)  |
//! | 24     | region length `u64` (bytes formatted)                          |
//! | 32     | reader slots `u64`                                             |
//! | 40     | offset of the first slot `u64` (128)                           |
//! | 48     | offset of the data area `u64`                                  |
//! | 56     | data words `u64`                                               |
//! | 64     | writers' ticket lock: next, serving (`u32`, `u32`)             |
//! | 128 + 128·i | slot *i*: claim, signal next/serving, main next/serving (`u32` each) |
//! | data   | `data words` × `u64`                                           |
//!
//! Each slot has a 128-byte stride so that readers never share a cache line. The 2N-lock
//! protocol is the one of [`crate::lock`]: a reader takes its slot's signal lock, then its
//! main lock, releases the signal lock and reads; the writer takes every signal lock, then
//! every main lock. The 2N locks are ticket locks whose waiters spin, then yield, or wait as
//! the embedder's [`RegionWait`] says.
//!
//! # Safety contract
//!
//! [`Region::format`] and [`Region::attach`] take `&mut [u8]`: within one process the borrow
//! checker gives the guarantees needed, and the API is safe. To share a region between
//! processes, each maps the same memory and makes its slice from the mapping (its own
//! `unsafe`, outside this crate); the caller then promises that, while any [`Region`] over
//! the memory lives, (1) the mapping stays mapped and is not resized, and (2) every access
//! to the bytes, in any process, goes through this module (atomic operations), never plain
//! reads or writes. The region must be 8-byte aligned (page-aligned mappings are).

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use crate::error::{Error, Result};

/// The region's magic, `b"PMIXSHM1"` as a native-endian `u64`.
pub const MAGIC: u64 = u64::from_ne_bytes(*b"PMIXSHM1");
/// The layout version this crate formats and attaches to.
pub const LAYOUT_VERSION: u64 = 1;

const OFF_MAGIC: usize = 0;
const OFF_VERSION: usize = 8;
const OFF_GENERATION: usize = 16;
const OFF_LEN: usize = 24;
const OFF_SLOTS: usize = 32;
const OFF_SLOT_AREA: usize = 40;
const OFF_DATA: usize = 48;
const OFF_WORDS: usize = 56;
const OFF_WRITER: usize = 64;
/// Bytes of the header (the first slot starts here).
const HEADER: usize = 128;
/// Bytes per reader slot.
const SLOT: usize = 128;
const SLOT_CLAIM: usize = 0;
const SLOT_SIGNAL: usize = 4;
const SLOT_MAIN: usize = 12;
/// Spins before a waiter starts yielding its time slice.
const SPINS: u32 = 64;

/// The shape of a region: how many reader slots and data words it has.
///
/// ```
/// use pmix_kvs::region::RegionLayout;
///
/// let layout = RegionLayout::new(4, 16);
/// assert_eq!(layout.region_len(), Some(128 + 4 * 128 + 16 * 8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegionLayout {
    /// Reader slots (at least 1).
    pub slots: usize,
    /// 64-bit data words.
    pub words: usize,
}

impl RegionLayout {
    /// A layout of `slots` reader slots and `words` data words.
    #[must_use]
    pub const fn new(slots: usize, words: usize) -> Self {
        Self { slots, words }
    }

    /// Bytes a region of this layout needs; `None` if that overflows `usize`.
    #[must_use]
    pub fn region_len(&self) -> Option<usize> {
        let slots = self.slots.checked_mul(SLOT)?;
        let data = self.words.checked_mul(8)?;
        HEADER.checked_add(slots)?.checked_add(data)
    }
}

/// A formatted region, as the writer or a reader sees it. `Sync`: share it by reference
/// between threads (each reader claims its own slot with [`Region::reader`]).
#[derive(Debug)]
pub struct Region<'a> {
    bytes: &'a [AtomicU8],
    slots: usize,
    data: usize,
    words: usize,
    wait: RegionWait,
}

/// How this process's threads wait for one of the region's locks: spin `spins` times, then
/// call `idle` at every further check; every unlock calls `wake`. Process-local (kept in
/// the [`Region`] handle, never in the shared bytes): each process attaching chooses its own.
///
/// The default spins 64 times, then yields the time slice, and `wake` does nothing, so no
/// one sleeps in the kernel. An embedder may supply a process-shared futex instead: `idle`
/// waits on the lock's `serving` word while it still holds the value seen (with a timeout,
/// to be safe), `wake` wakes that word's waiters; `wake` then runs on every unlock, a
/// system call each, which is the price of sleeping.
///
/// ```
/// use std::sync::atomic::AtomicU32;
/// use pmix_kvs::region::RegionWait;
///
/// fn nap(_word: &AtomicU32, _seen: u32) {
///     std::thread::sleep(std::time::Duration::from_micros(50));
/// }
/// let wait = RegionWait::default().with_spins(16).with_idle(nap);
/// assert_eq!(wait.spins, 16);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RegionWait {
    /// Busy checks before `idle` is called.
    pub spins: u32,
    /// Called with the lock's `serving` word and the value last seen in it, after the spins.
    pub idle: fn(&AtomicU32, u32),
    /// Called with the lock's `serving` word after every unlock.
    pub wake: fn(&AtomicU32),
}

fn yield_idle(_: &AtomicU32, _: u32) {
    std::thread::yield_now();
}

fn no_wake(_: &AtomicU32) {}

impl Default for RegionWait {
    fn default() -> Self {
        Self {
            spins: SPINS,
            idle: yield_idle,
            wake: no_wake,
        }
    }
}

impl RegionWait {
    /// Sets the busy checks before `idle`.
    #[must_use]
    pub fn with_spins(mut self, spins: u32) -> Self {
        self.spins = spins;
        self
    }

    /// Sets what a waiter does after its spins.
    #[must_use]
    pub fn with_idle(mut self, idle: fn(&AtomicU32, u32)) -> Self {
        self.idle = idle;
        self
    }

    /// Sets what every unlock does after releasing.
    #[must_use]
    pub fn with_wake(mut self, wake: fn(&AtomicU32)) -> Self {
        self.wake = wake;
        self
    }
}

fn bad(offset: usize, reason: &'static str) -> Error {
    Error::BadRegion { offset, reason }
}

/// Views the caller's bytes as atomics.
fn atomic_bytes(buf: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: `AtomicU8` has the same size, alignment and bit validity as `u8` (std docs),
    // so the slice's memory is a valid `[AtomicU8]` of the same length; the unique borrow of
    // `buf` is consumed for the returned lifetime, so nothing else in this process reaches
    // the bytes meanwhile except through these atomics (other processes: the module's
    // safety contract).
    unsafe { &*(std::ptr::from_mut::<[u8]>(buf) as *const [AtomicU8]) }
}

impl<'a> Region<'a> {
    /// Formats `buf` as a fresh region of `layout` (the writer's side): zero generation,
    /// every lock free and every slot unclaimed, data words zero; the magic is written last
    /// (with release ordering), so a concurrent [`Region::attach`] to fresh memory sees
    /// either no region or a complete header. Re-formatting memory that readers are attached
    /// to is not supported (they may see the old magic over a half-written header).
    ///
    /// # Errors
    /// [`Error::BadRegion`] for a `buf` not 8-byte aligned, zero slots, a layout whose
    /// size overflows or more than `u32::MAX` slots; [`Error::RegionTooSmall`] when `buf`
    /// is shorter than [`RegionLayout::region_len`].
    pub fn format(buf: &'a mut [u8], layout: RegionLayout) -> Result<Self> {
        if buf.as_ptr().align_offset(8) != 0 {
            return Err(bad(0, "region not 8-byte aligned"));
        }
        if layout.slots == 0 || u32::try_from(layout.slots).is_err() {
            return Err(bad(OFF_SLOTS, "reader slots must be 1..=u32::MAX"));
        }
        let needed = layout
            .region_len()
            .ok_or(bad(OFF_LEN, "layout size overflows"))?;
        if buf.len() < needed {
            return Err(Error::RegionTooSmall {
                needed,
                len: buf.len(),
            });
        }
        let region = Self {
            bytes: atomic_bytes(buf),
            slots: layout.slots,
            data: HEADER + layout.slots * SLOT,
            words: layout.words,
            wait: RegionWait::default(),
        };
        region.u64_at(OFF_MAGIC).store(0, Ordering::Relaxed);
        for (off, v) in [
            (OFF_VERSION, LAYOUT_VERSION),
            (OFF_GENERATION, 0),
            (OFF_LEN, needed as u64),
            (OFF_SLOTS, layout.slots as u64),
            (OFF_SLOT_AREA, HEADER as u64),
            (OFF_DATA, region.data as u64),
            (OFF_WORDS, layout.words as u64),
        ] {
            region.u64_at(off).store(v, Ordering::Relaxed);
        }
        region.u32_at(OFF_WRITER).store(0, Ordering::Relaxed);
        region.u32_at(OFF_WRITER + 4).store(0, Ordering::Relaxed);
        for i in 0..layout.slots {
            for w in 0..5 {
                region
                    .u32_at(HEADER + i * SLOT + 4 * w)
                    .store(0, Ordering::Relaxed);
            }
        }
        for w in 0..layout.words {
            region.word(w).store(0, Ordering::Relaxed);
        }
        region.u64_at(OFF_MAGIC).store(MAGIC, Ordering::Release);
        Ok(region)
    }

    /// Attaches to a region that [`Region::format`] built in these bytes (a reader's side,
    /// or a writer coming back), checking the header.
    ///
    /// # Errors
    /// [`Error::BadRegion`] naming the offset of the bad field: not 8-byte aligned, no magic
    /// (not formatted, or not yet), another layout version, or a length, slot count or
    /// offset that does not fit these bytes; [`Error::RegionTooSmall`] when `buf` is shorter
    /// than the header or than the length the header records.
    pub fn attach(buf: &'a mut [u8]) -> Result<Self> {
        if buf.as_ptr().align_offset(8) != 0 {
            return Err(bad(0, "region not 8-byte aligned"));
        }
        if buf.len() < HEADER {
            return Err(Error::RegionTooSmall {
                needed: HEADER,
                len: buf.len(),
            });
        }
        let len = buf.len();
        let mut region = Self {
            bytes: atomic_bytes(buf),
            slots: 0,
            data: HEADER,
            words: 0,
            wait: RegionWait::default(),
        };
        if region.u64_at(OFF_MAGIC).load(Ordering::Acquire) != MAGIC {
            return Err(bad(OFF_MAGIC, "no region here (bad magic)"));
        }
        if region.u64_at(OFF_VERSION).load(Ordering::Relaxed) != LAYOUT_VERSION {
            return Err(bad(OFF_VERSION, "unknown layout version"));
        }
        let field = |off: usize| usize::try_from(region.u64_at(off).load(Ordering::Relaxed));
        let recorded = field(OFF_LEN).map_err(|_| bad(OFF_LEN, "length beyond usize"))?;
        if recorded > len {
            return Err(Error::RegionTooSmall {
                needed: recorded,
                len,
            });
        }
        let slots = field(OFF_SLOTS)
            .ok()
            .filter(|&s| s >= 1 && u32::try_from(s).is_ok())
            .ok_or(bad(OFF_SLOTS, "reader slots must be 1..=u32::MAX"))?;
        if field(OFF_SLOT_AREA) != Ok(HEADER) {
            return Err(bad(
                OFF_SLOT_AREA,
                "slot area not where this layout puts it",
            ));
        }
        let words = field(OFF_WORDS).map_err(|_| bad(OFF_WORDS, "data words beyond usize"))?;
        let layout = RegionLayout::new(slots, words);
        if layout.region_len() != Some(recorded) {
            return Err(bad(OFF_LEN, "length disagrees with slots and data words"));
        }
        let data = HEADER + slots * SLOT;
        if field(OFF_DATA) != Ok(data) {
            return Err(bad(OFF_DATA, "data area not where this layout puts it"));
        }
        region.slots = slots;
        region.data = data;
        region.words = words;
        Ok(region)
    }

    /// The `u64` at byte `off` (8-aligned, in bounds: every caller passes a layout offset).
    fn u64_at(&self, off: usize) -> &'a AtomicU64 {
        let b = &self.bytes[off..off + 8];
        debug_assert_eq!(b.as_ptr().align_offset(8), 0);
        // SAFETY: the 8 bytes are in bounds (the slice above would have panicked), 8-aligned
        // (the region's base is checked 8-aligned and every layout offset is a multiple of
        // 8), and `AtomicU64` has the size and bit validity of `[AtomicU8; 8]`'s bytes; they
        // are atomics already (interior mutability), borrowed for `'a`. Each offset is only
        // ever accessed as this one width.
        unsafe { &*b.as_ptr().cast::<AtomicU64>() }
    }

    /// The `u32` at byte `off` (4-aligned, in bounds).
    fn u32_at(&self, off: usize) -> &'a AtomicU32 {
        let b = &self.bytes[off..off + 4];
        debug_assert_eq!(b.as_ptr().align_offset(4), 0);
        // SAFETY: as in `u64_at`, for 4 bytes at a 4-aligned layout offset.
        unsafe { &*b.as_ptr().cast::<AtomicU32>() }
    }

    fn word(&self, i: usize) -> &'a AtomicU64 {
        self.u64_at(self.data + 8 * i)
    }

    /// This handle with waiters that wait as `wait` says (the default: [`RegionWait::default`]).
    #[must_use]
    pub fn with_wait(mut self, wait: RegionWait) -> Self {
        self.wait = wait;
        self
    }

    fn lock_at(&self, off: usize) -> RegionTicket<'a> {
        RegionTicket {
            wait: self.wait,
            next: self.u32_at(off),
            serving: self.u32_at(off + 4),
        }
    }

    fn slot_locks(&self, i: usize) -> (RegionTicket<'a>, RegionTicket<'a>) {
        let base = HEADER + i * SLOT;
        (
            self.lock_at(base + SLOT_SIGNAL),
            self.lock_at(base + SLOT_MAIN),
        )
    }

    /// How many reader slots the region has.
    #[must_use]
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// How many data words the region has.
    #[must_use]
    pub fn words(&self) -> usize {
        self.words
    }

    /// Writes completed so far (odd while a write is underway).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.u64_at(OFF_GENERATION).load(Ordering::Acquire)
    }

    /// Claims a free reader slot, released when the returned reader drops.
    ///
    /// # Errors
    /// [`Error::NoFreeSlot`] when every slot is claimed.
    pub fn reader(&self) -> Result<RegionReader<'_, 'a>> {
        for slot in 0..self.slots {
            if self
                .u32_at(HEADER + slot * SLOT + SLOT_CLAIM)
                .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return Ok(RegionReader { region: self, slot });
            }
        }
        Err(Error::NoFreeSlot { slots: self.slots })
    }

    /// Takes the write side (waits out other writers, then every reader) and hands `f` the
    /// data words; the generation is odd while `f` runs and advances to the next even value
    /// after.
    pub fn write<R>(&self, f: impl FnOnce(&WordsMut<'_, 'a>) -> R) -> R {
        let writers = self.lock_at(OFF_WRITER);
        writers.lock();
        for i in 0..self.slots {
            self.slot_locks(i).0.lock();
        }
        for i in 0..self.slots {
            self.slot_locks(i).1.lock();
        }
        let generation = self.u64_at(OFF_GENERATION);
        generation.fetch_add(1, Ordering::AcqRel);
        let out = f(&WordsMut { region: self });
        generation.fetch_add(1, Ordering::AcqRel);
        for i in 0..self.slots {
            let (signal, main) = self.slot_locks(i);
            main.unlock();
            signal.unlock();
        }
        writers.unlock();
        out
    }
}

/// A ticket lock of two `u32`s inside a region.
#[derive(Debug, Clone, Copy)]
struct RegionTicket<'a> {
    wait: RegionWait,
    next: &'a AtomicU32,
    serving: &'a AtomicU32,
}

impl RegionTicket<'_> {
    fn lock(&self) {
        let ticket = self.next.fetch_add(1, Ordering::Relaxed);
        let mut spins = 0u32;
        loop {
            let seen = self.serving.load(Ordering::Acquire);
            if seen == ticket {
                return;
            }
            if spins < self.wait.spins {
                spins += 1;
                std::hint::spin_loop();
            } else {
                (self.wait.idle)(self.serving, seen);
            }
        }
    }

    fn unlock(&self) {
        let s = self.serving.load(Ordering::Relaxed);
        self.serving.store(s.wrapping_add(1), Ordering::Release);
        (self.wait.wake)(self.serving);
    }
}

/// A reader's claimed slot in a [`Region`].
#[derive(Debug)]
pub struct RegionReader<'r, 'a> {
    region: &'r Region<'a>,
    slot: usize,
}

impl<'a> RegionReader<'_, 'a> {
    /// The slot's index.
    #[must_use]
    pub fn index(&self) -> usize {
        self.slot
    }

    /// Reads under the lock: `f` sees the data words as one writer left them, never half of
    /// a write.
    pub fn read<R>(&mut self, f: impl FnOnce(&Words<'_, 'a>) -> R) -> R {
        let (signal, main) = self.region.slot_locks(self.slot);
        signal.lock();
        main.lock();
        signal.unlock();
        let out = f(&Words {
            region: self.region,
        });
        main.unlock();
        out
    }
}

impl Drop for RegionReader<'_, '_> {
    fn drop(&mut self) {
        self.region
            .u32_at(HEADER + self.slot * SLOT + SLOT_CLAIM)
            .store(0, Ordering::Release);
    }
}

/// The data words as a reader sees them (under its slot's lock).
#[derive(Debug)]
pub struct Words<'r, 'a> {
    region: &'r Region<'a>,
}

impl Words<'_, '_> {
    /// Word `i`, or `None` past the data area.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<u64> {
        (i < self.region.words).then(|| self.region.word(i).load(Ordering::Relaxed))
    }

    /// How many words there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.region.words
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.region.words == 0
    }
}

/// The data words as the writer sees them (under the write side).
#[derive(Debug)]
pub struct WordsMut<'r, 'a> {
    region: &'r Region<'a>,
}

impl WordsMut<'_, '_> {
    /// Word `i`, or `None` past the data area.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<u64> {
        Words {
            region: self.region,
        }
        .get(i)
    }

    /// Sets word `i`; `false` (and nothing written) past the data area.
    pub fn set(&self, i: usize, v: u64) -> bool {
        let inside = i < self.region.words;
        if inside {
            self.region.word(i).store(v, Ordering::Relaxed);
        }
        inside
    }
}

#[cfg(test)]
mod tests;
