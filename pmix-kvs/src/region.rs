//! A node-store region: a position-independent, versioned layout built inside a byte region
//! the caller provides, holding a 2N-lock made of plain atomics (no heap, no std `Mutex`)
//! and a double-buffered data area of 64-bit words that the writer updates and readers read
//! through it, robust against processes that die at any point.
//!
//! This is the base of a shared-memory node store: the library stays no-I/O; the caller maps
//! the memory (memfd, `shm_open`, a file) and hands it in. The layout uses offsets only,
//! never pointers, so that the same bytes mean the same at any address.
//!
//! # Robust against dead processes
//! * **A reader killed** while it holds its slot, reads, or waits: the writer that waits on
//!   it asks the embedder's [`RegionLiveness`] check, seizes the slot and frees it when its
//!   write ends; a new reader that finds no free slot takes over a dead owner's; and
//!   [`Region::reclaim`] frees every dead owner's slot. Nobody wedges.
//! * **A writer killed** mid-update never exposes a torn record: a write goes to the copy of
//!   the data that readers do not read ([`Buffering::Double`], the default; a caller that
//!   publishes by its own flip chooses [`Buffering::Single`]), and one store of the
//!   generation publishes it; the
//!   next writer (or a reader waiting on the dead one) takes the writers' lock over, rolls
//!   the unfinished generation back and releases what the dead writer held. Readers see the
//!   previous generation or the new one, never a mix.
//!
//! * **A lock word no live process holds** (memory corrupted, or a process that wrote where
//!   it should not): a flag set with no owner, a slot or the writers' lock left under a
//!   token no process has, is recovered by whoever waits on it, as a dead party's would be;
//!   a value no party ever stores (a flag beyond 2) in a lock a live process holds is
//!   [`Error::CorruptLock`], naming the word's offset, never a wait without end.
//! * **Every wait can be bounded**: a [`Patience`] per handle ([`Region::with_patience`]) or
//!   per call ([`Region::write_within`], [`RegionReader::read_within`], and the `try_`
//!   variants that never wait) gives up with [`Error::LockWaitGaveUp`], naming the word and
//!   the live holder's token, holding nothing.
//!
//! The locks are two-party (Peterson) locks rather than ticket locks so that every flag has
//! a known owner; why, and the recovery steps, are in the protocol's notes
//! (`region/protocol.rs`). Tested: threads of one process, reader processes forked from the
//! writer (`region_processes`), readers and writers killed with `SIGKILL` at random points
//! (`cargo test -p pmix-kvs --features futex --test region_kill`: its liveness check is the
//! feature's `PidLiveness`; `PMIX_KILL_EVENTS=300` for a longer run), the futex hook across
//! processes, with readers side by side and a writer that finishes beside looping readers
//! (`cargo test -p pmix-kvs --features futex --test region_futex`), loom models of the
//! protocol with dead parties (`RUSTFLAGS="--cfg loom" cargo test -p pmix-kvs --release
//! --test loom_lock`), and Miri on the unit tests
//! (`cargo +nightly miri test -p pmix-kvs --lib region::`).
//!
//! # Layout (version [`LAYOUT_VERSION`])
//!
//! Every field is a native-endian word at a fixed offset from the region's start:
//!
//! | offset | field                                                          |
//! |--------|----------------------------------------------------------------|
//! | 0      | magic `u64` ([`MAGIC`], written last by [`Region::format`])    |
//! | 8      | layout version `u64`                                           |
//! | 16     | generation `u64`: +2 per write; odd while one is underway; the live copy is bit 1 |
//! | 24     | region length `u64` (bytes formatted)                          |
//! | 32     | reader slots `u64`                                             |
//! | 40     | offset of the first slot `u64` (128)                           |
//! | 48     | offset of the data area `u64`                                  |
//! | 56     | data words `u64` (per copy)                                    |
//! | 64     | writers' lock: holder's token `u64`, sleep word `u32`          |
//! | 80     | copies of the data words `u64`: 2 ([`Buffering::Double`]) or 1 |
//! | 88     | region id `u64` ([`Region::id`]): the embedder's name for this region, or one more than the id of the region these bytes held before (1 for fresh memory) |
//! | 128 + 128·i | slot *i*: claim `u64` (owner token), signal and main locks: reader flag, writer flag, turn (`u32` each) |
//! | data   | `copies` × `data words` × `u64`                                |
//!
//! Each slot has a 128-byte stride so that readers never share a cache line. The 2N-lock
//! protocol is the one of [`crate::lock`]: a reader takes its slot's signal lock, then its
//! main lock, releases the signal lock and reads; the writer takes every signal lock, then
//! every main lock. Waiters spin, then yield, or wait as the embedder's [`RegionWait`] says.
//!
//! # Complexity
//! A read: two lock acquisitions and two releases on the reader's own slot, O(1). A write:
//! 2N acquisitions and releases, plus a copy of the data words into the other copy,
//! O(N + words).
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

#[cfg(all(feature = "futex", target_os = "linux"))]
mod futex;
#[cfg(loom)]
#[doc(hidden)]
pub mod loom_model;
#[cfg(all(feature = "futex", target_os = "linux"))]
mod pid;
mod protocol;
mod wait;

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};

use self::protocol::{Budget, Lock, Pair, READER, Shared, Stop, Word};
use crate::error::{Error, Result};

#[cfg(all(feature = "futex", target_os = "linux"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "futex", target_os = "linux"))))]
pub use self::futex::futex_wait;
#[cfg(all(feature = "futex", target_os = "linux"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "futex", target_os = "linux"))))]
pub use self::pid::PidLiveness;
pub use self::wait::{Patience, RegionLiveness, RegionWait};

/// The region's magic, `b"PMIXSHM1"` as a native-endian `u64`.
pub const MAGIC: u64 = u64::from_ne_bytes(*b"PMIXSHM1");
/// The layout version this crate formats and attaches to (3: two-party locks with owner
/// tokens, a double-buffered data area and a region id; version 2 had no id, version 1 had
/// ticket locks and one copy).
pub const LAYOUT_VERSION: u64 = 3;

const OFF_MAGIC: usize = 0;
const OFF_VERSION: usize = 8;
const OFF_GENERATION: usize = 16;
const OFF_LEN: usize = 24;
const OFF_SLOTS: usize = 32;
const OFF_SLOT_AREA: usize = 40;
const OFF_DATA: usize = 48;
const OFF_WORDS: usize = 56;
const OFF_WRITER: usize = 64;
const OFF_WRITER_HELD: usize = 72;
const OFF_COPIES: usize = 80;
const OFF_ID: usize = 88;
/// Bytes of the header (the first slot starts here).
const HEADER: usize = 128;
/// Bytes per reader slot.
const SLOT: usize = 128;
const SLOT_CLAIM: usize = 0;
const SLOT_SIGNAL: usize = 8;
const SLOT_MAIN: usize = 20;
/// Bytes of a slot in use (claim and two locks of three `u32`s).
const SLOT_USED: usize = 32;

/// How a region keeps its data words safe from a writer that dies mid-update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Buffering {
    /// Two copies (the default): a write fills the copy readers do not read, starting from
    /// a copy of the live one (O(words) per write), and one store publishes it, so a writer
    /// killed mid-update exposes nothing, whatever words it wrote.
    #[default]
    Double,
    /// One copy, written in place: for a caller that publishes by its own flip (it writes
    /// into words no reader follows yet and switches them in with one word written last, as
    /// `shm::ShmWriter` does with its two image halves). A writer killed mid-update leaves
    /// the words it wrote as they are; the region still recovers its locks and generation.
    Single,
}

impl Buffering {
    fn copies(self) -> usize {
        match self {
            Self::Double => 2,
            Self::Single => 1,
        }
    }
}

/// The shape of a region: how many reader slots and data words it has, and how the words
/// are buffered.
///
/// ```
/// use pmix_kvs::region::{Buffering, RegionLayout};
///
/// let layout = RegionLayout::new(4, 16);
/// // A header, 4 slots of 128 bytes, and two copies of 16 words.
/// assert_eq!(layout.region_len(), Some(128 + 4 * 128 + 2 * 16 * 8));
/// let single = layout.with_buffering(Buffering::Single);
/// assert_eq!(single.region_len(), Some(128 + 4 * 128 + 16 * 8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegionLayout {
    /// Reader slots (at least 1).
    pub slots: usize,
    /// 64-bit data words (in each copy).
    pub words: usize,
    /// Copies of the words ([`Buffering::Double`] by default).
    pub buffering: Buffering,
    /// The region's id ([`Region::id`]): the embedder's name for it (a generation counter it
    /// keeps, an inode with a creation count), or 0 (the default) for one more than the id
    /// of a region that these bytes held before, or 1 in fresh memory. Handles that readers
    /// of the shared store get ([`crate::shm::ShmNspace`]) carry it, and a handle of another
    /// id is refused.
    pub id: u64,
}

impl RegionLayout {
    /// A layout of `slots` reader slots and `words` data words, double-buffered.
    #[must_use]
    pub const fn new(slots: usize, words: usize) -> Self {
        Self {
            slots,
            words,
            buffering: Buffering::Double,
            id: 0,
        }
    }

    /// Sets the region's id (0: one more than the previous region's in the same bytes).
    #[must_use]
    pub const fn with_id(mut self, id: u64) -> Self {
        self.id = id;
        self
    }

    /// Sets how the words are buffered.
    #[must_use]
    pub const fn with_buffering(mut self, buffering: Buffering) -> Self {
        self.buffering = buffering;
        self
    }

    /// Bytes a region of this layout needs; `None` if that overflows `usize`.
    #[must_use]
    pub fn region_len(&self) -> Option<usize> {
        let slots = self.slots.checked_mul(SLOT)?;
        let data = self.words.checked_mul(8 * self.buffering.copies())?;
        HEADER.checked_add(slots)?.checked_add(data)
    }
}

/// A formatted region, as the writer or a reader sees it. `Sync`: share it by reference
/// between threads (each reader claims its own slot with [`Region::reader`]). A clone is
/// another handle on the same bytes (every access is atomic), e.g. to give one thread
/// another [`RegionWait`] or [`RegionLiveness`].
#[derive(Debug, Clone)]
pub struct Region<'a> {
    bytes: &'a [AtomicU8],
    slots: usize,
    data: usize,
    words: usize,
    copies: usize,
    id: u64,
    wait: RegionWait,
    liveness: RegionLiveness,
    patience: Patience,
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
    /// every lock free and every slot unclaimed, both copies of the data words zero; the
    /// magic is written last
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
        let mut region = Self {
            bytes: atomic_bytes(buf),
            slots: layout.slots,
            data: HEADER + layout.slots * SLOT,
            words: layout.words,
            copies: layout.buffering.copies(),
            id: layout.id,
            wait: RegionWait::default(),
            liveness: RegionLiveness::default(),
            patience: Patience::default(),
        };
        if region.id == 0 {
            // A region of this layout here before: the next id, so that handles of the old
            // one are refused; fresh memory: 1.
            let before = region.u64_at(OFF_MAGIC).load(Ordering::Acquire) == MAGIC
                && region.u64_at(OFF_VERSION).load(Ordering::Relaxed) == LAYOUT_VERSION;
            let old = if before {
                region.u64_at(OFF_ID).load(Ordering::Relaxed)
            } else {
                0
            };
            region.id = old.wrapping_add(1).max(1);
        }
        region.u64_at(OFF_MAGIC).store(0, Ordering::Relaxed);
        for (off, v) in [
            (OFF_VERSION, LAYOUT_VERSION),
            (OFF_GENERATION, 0),
            (OFF_LEN, needed as u64),
            (OFF_SLOTS, layout.slots as u64),
            (OFF_SLOT_AREA, HEADER as u64),
            (OFF_DATA, region.data as u64),
            (OFF_WORDS, layout.words as u64),
            (OFF_WRITER, protocol::FREE),
            (OFF_COPIES, region.copies as u64),
            (OFF_ID, region.id),
        ] {
            region.u64_at(off).store(v, Ordering::Relaxed);
        }
        region.u32_at(OFF_WRITER_HELD).store(0, Ordering::Relaxed);
        for i in 0..layout.slots {
            let base = HEADER + i * SLOT;
            region
                .u64_at(base + SLOT_CLAIM)
                .store(protocol::FREE, Ordering::Relaxed);
            for off in (SLOT_SIGNAL..SLOT_USED).step_by(4) {
                region.u32_at(base + off).store(0, Ordering::Relaxed);
            }
        }
        for c in 0..region.copies {
            for w in 0..layout.words {
                region.word(c, w).store(0, Ordering::Relaxed);
            }
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
            copies: 1,
            id: 0,
            wait: RegionWait::default(),
            liveness: RegionLiveness::default(),
            patience: Patience::default(),
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
        let buffering = match field(OFF_COPIES) {
            Ok(2) => Buffering::Double,
            Ok(1) => Buffering::Single,
            _ => return Err(bad(OFF_COPIES, "copies must be 1 or 2")),
        };
        let layout = RegionLayout::new(slots, words).with_buffering(buffering);
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
        region.copies = buffering.copies();
        region.id = region.u64_at(OFF_ID).load(Ordering::Relaxed);
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

    /// Word `i` of copy `c` (0 or 1).
    fn word(&self, c: usize, i: usize) -> &'a AtomicU64 {
        self.u64_at(self.data + 8 * (c * self.words + i))
    }

    /// This handle with waiters that wait as `wait` says (the default: [`RegionWait::default`]).
    #[must_use]
    pub fn with_wait(mut self, wait: RegionWait) -> Self {
        self.wait = wait;
        self
    }

    /// This handle with blocking calls ([`Region::write`], [`RegionReader::read`],
    /// [`Region::reclaim`] and what the shared store does through them) that wait as
    /// `patience` says before they give up with [`Error::LockWaitGaveUp`] (the default:
    /// [`Patience::Forever`], as long as the holder lives).
    #[must_use]
    pub fn with_patience(mut self, patience: Patience) -> Self {
        self.patience = patience;
        self
    }

    /// How long this handle's blocking calls wait.
    #[must_use]
    pub fn patience(&self) -> Patience {
        self.patience
    }

    /// This handle with this process's owner token and the check that tells a dead process's
    /// token (the default never reclaims: [`RegionLiveness::default`]). Set it before the
    /// first [`Region::reader`] or [`Region::write`]: slot claims and the writers' lock
    /// record the token.
    #[must_use]
    pub fn with_liveness(mut self, liveness: RegionLiveness) -> Self {
        self.liveness = liveness;
        self
    }

    /// The bytes the region's layout covers: the header, the slots and every copy of the
    /// data words (what [`RegionLayout::region_len`] gave when it was formatted).
    #[must_use]
    pub fn byte_len(&self) -> usize {
        self.data + 8 * self.words * self.copies
    }

    /// The region's id, as formatted ([`RegionLayout::id`]).
    #[must_use]
    pub fn id(&self) -> u64 {
        self.id
    }

    /// How many reader slots the region has.
    #[must_use]
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// How many data words the region has (in each copy).
    #[must_use]
    pub fn words(&self) -> usize {
        self.words
    }

    /// The generation: even when stable, odd while a write is underway; each write
    /// advances it by 2, and a write abandoned by a dead (or panicking) writer is rolled back
    /// by moving it from its odd value on by 3, so it never goes back.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.u64_at(OFF_GENERATION).load(Ordering::Acquire)
    }

    /// The token recorded in slot `i`'s claim: 0 free, `u64::MAX` seized by the writer from a
    /// dead owner, else the owner's token; `None` past the slots.
    #[must_use]
    pub fn slot_owner(&self, i: usize) -> Option<u64> {
        (i < self.slots).then(|| self.claim(i).load(Ordering::Acquire))
    }

    /// The writers' lock's holder's token, 0 when free.
    #[must_use]
    pub fn writer_owner(&self) -> u64 {
        self.u64_at(OFF_WRITER).load(Ordering::Acquire)
    }

    /// Claims a free reader slot, released when the returned reader drops; when none is
    /// free, takes over a slot whose owner the liveness check finds dead.
    ///
    /// # Errors
    /// [`Error::NoFreeSlot`] when every slot is claimed by a live owner.
    pub fn reader(&self) -> Result<RegionReader<'_, 'a>> {
        protocol::claim_slot(self)
            .map(|slot| RegionReader { region: self, slot })
            .ok_or(Error::NoFreeSlot { slots: self.slots })
    }

    /// Takes the write side (waits out other writers, then every reader, taking over from
    /// dead ones) and hands `f` the data words: a copy of the live words that readers do not
    /// see, published when `f` returns, by one store of the next even generation. If the
    /// writer dies (or `f` panics) before that, readers keep the previous words.
    ///
    /// A reader found dead while the writer waits on it (by the [`RegionLiveness`] check,
    /// asked every few idle rounds) has its slot seized and freed; a dead writer holding the
    /// writers' lock is taken over from; so is every lock state that no live process holds
    /// (a flag set with no owner: see the protocol's notes in the [module](self) doc).
    ///
    /// # Errors
    /// [`Error::LockWaitGaveUp`] when the handle's [`Patience`] ran out while a live process
    /// held a lock (naming its token); [`Error::CorruptLock`] for a lock word holding a value
    /// no state of the protocol gives it while a live process holds that lock. Either way
    /// `f` was not called, nothing was written and the writer holds nothing.
    ///
    /// # Complexity
    /// O(slots + words) plus the waits; bounded by the handle's [`Patience`].
    pub fn write<R>(&self, f: impl FnOnce(&WordsMut<'_, 'a>) -> R) -> Result<R> {
        self.write_within(self.patience, f)
    }

    /// As [`Region::write`], but giving up as `patience` says instead of the handle's.
    ///
    /// # Errors
    /// As [`Region::write`].
    pub fn write_within<R>(
        &self,
        patience: Patience,
        f: impl FnOnce(&WordsMut<'_, 'a>) -> R,
    ) -> Result<R> {
        self.bounded(patience, |budget| {
            protocol::write(self, budget, |copy| f(&WordsMut { region: self, copy }))
        })
    }

    /// As [`Region::write`], but never waiting: when any lock is held, gives up at once
    /// ([`Patience::Try`]), after the recovery of states no live process holds.
    ///
    /// # Errors
    /// As [`Region::write`].
    pub fn try_write<R>(&self, f: impl FnOnce(&WordsMut<'_, 'a>) -> R) -> Result<R> {
        self.write_within(Patience::Try, f)
    }

    /// Frees every reader slot whose owner the liveness check finds dead (whether it died
    /// holding a lock or between reads), under the writers' lock: the writer's maintenance,
    /// e.g. when a client process is reported gone. Returns how many slots it freed. Not
    /// from inside [`Region::write`]'s closure (the writers' lock is not reentrant).
    ///
    /// # Errors
    /// As [`Region::write`], for the writers' lock.
    pub fn reclaim(&self) -> Result<usize> {
        self.bounded(self.patience, |budget| protocol::reclaim(self, budget))
    }

    /// Runs a blocking protocol operation with the budget `patience` gives, and names what
    /// stopped it.
    #[inline]
    fn bounded<R>(
        &self,
        patience: Patience,
        op: impl FnOnce(&Budget) -> std::result::Result<R, Stop>,
    ) -> Result<R> {
        let budget = Budget {
            spins: if matches!(patience, Patience::Try) {
                0
            } else {
                self.wait.spins
            },
            patience,
        };
        op(&budget).map_err(|stop| self.stop_error(stop))
    }

    /// The error for a protocol stop, with the byte offset of the word.
    #[cold]
    fn stop_error(&self, stop: Stop) -> Error {
        let (word, what) = match stop {
            Stop::Corrupt { word, .. } | Stop::GaveUp { word, .. } => (
                word,
                match word {
                    Word::Flag {
                        lock: Lock::Signal,
                        party: READER,
                        ..
                    } => "a reader's flag of a slot's signal lock",
                    Word::Flag {
                        lock: Lock::Signal, ..
                    } => "the writer's flag of a slot's signal lock",
                    Word::Flag {
                        lock: Lock::Main,
                        party: READER,
                        ..
                    } => "a reader's flag of a slot's main lock",
                    Word::Flag {
                        lock: Lock::Main, ..
                    } => "the writer's flag of a slot's main lock",
                    Word::Turn { .. } => "the turn word of a slot's lock",
                    Word::WriterHeld => "the writers' lock's sleep word",
                },
            ),
        };
        let offset = match word {
            Word::Flag { slot, lock, party } => Self::lock_offset(slot, lock) + 4 * party,
            Word::Turn { slot, lock } => Self::lock_offset(slot, lock) + 8,
            Word::WriterHeld => OFF_WRITER_HELD,
        };
        match stop {
            Stop::Corrupt { value, .. } => Error::CorruptLock {
                offset,
                value,
                what,
            },
            Stop::GaveUp { holder, idles, .. } => Error::LockWaitGaveUp {
                offset,
                what,
                holder,
                idles,
            },
        }
    }

    /// The byte offset of slot `i`'s lock `l`.
    fn lock_offset(i: usize, l: Lock) -> usize {
        HEADER
            + i * SLOT
            + match l {
                Lock::Signal => SLOT_SIGNAL,
                Lock::Main => SLOT_MAIN,
            }
    }

    fn claim(&self, i: usize) -> &'a AtomicU64 {
        self.u64_at(HEADER + i * SLOT + SLOT_CLAIM)
    }
}

impl Shared for Region<'_> {
    type A32 = AtomicU32;
    type A64 = AtomicU64;

    fn slots(&self) -> usize {
        self.slots
    }

    fn claim(&self, i: usize) -> &AtomicU64 {
        Region::claim(self, i)
    }

    fn pair(&self, i: usize, l: Lock) -> Pair<'_, AtomicU32> {
        let base = Self::lock_offset(i, l);
        Pair {
            flag: [self.u32_at(base), self.u32_at(base + 4)],
            turn: self.u32_at(base + 8),
        }
    }

    fn writer_owner(&self) -> &AtomicU64 {
        self.u64_at(OFF_WRITER)
    }

    fn writer_held(&self) -> &AtomicU32 {
        self.u32_at(OFF_WRITER_HELD)
    }

    fn generation(&self) -> &AtomicU64 {
        self.u64_at(OFF_GENERATION)
    }

    fn words(&self) -> usize {
        self.words
    }

    fn data(&self, c: usize, i: usize) -> &AtomicU64 {
        self.word(c, i)
    }

    fn copies(&self) -> usize {
        self.copies
    }

    fn spin(&self) {
        std::hint::spin_loop();
    }

    fn idle(&self, word: &AtomicU32, seen: u32) {
        (self.wait.idle)(word, seen);
    }

    fn wake(&self, word: &AtomicU32) {
        (self.wait.wake)(word);
    }

    fn me(&self) -> u64 {
        self.liveness.owner()
    }

    fn alive(&self, token: u64) -> bool {
        self.liveness.is_alive(token)
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

    /// Reads under the lock: `f` sees the data words as one writer published them, never
    /// half of a write (the lock is released even if `f` panics). A writer found dead while
    /// waiting, or a writer's flag that no live writer owns, is recovered from.
    ///
    /// # Errors
    /// [`Error::LockWaitGaveUp`] when the region handle's [`Patience`] ran out while a live
    /// writer held the lock (naming its token); [`Error::CorruptLock`] for a lock word
    /// holding a value no state of the protocol gives it while a live process holds the
    /// lock. Either way `f` was not called and the reader holds no lock (it keeps its slot).
    ///
    /// # Complexity
    /// O(1) plus the wait; bounded by the handle's [`Patience`].
    pub fn read<R>(&mut self, f: impl FnOnce(&Words<'_, 'a>) -> R) -> Result<R> {
        self.read_within(self.region.patience, f)
    }

    /// As [`RegionReader::read`], but giving up as `patience` says instead of the handle's.
    ///
    /// # Errors
    /// As [`RegionReader::read`].
    pub fn read_within<R>(
        &mut self,
        patience: Patience,
        f: impl FnOnce(&Words<'_, 'a>) -> R,
    ) -> Result<R> {
        let (region, slot) = (self.region, self.slot);
        region.bounded(patience, |budget| {
            protocol::read(region, slot, budget, |copy| f(&Words { region, copy }))
        })
    }

    /// As [`RegionReader::read`], but never waiting: gives up at once while the writer holds
    /// the lock ([`Patience::Try`]), after the recovery of states no live process holds.
    ///
    /// # Errors
    /// As [`RegionReader::read`].
    pub fn try_read<R>(&mut self, f: impl FnOnce(&Words<'_, 'a>) -> R) -> Result<R> {
        self.read_within(Patience::Try, f)
    }
}

impl Drop for RegionReader<'_, '_> {
    fn drop(&mut self) {
        protocol::release_slot(self.region, self.slot);
    }
}

/// The data words as a reader sees them (under its slot's lock).
#[derive(Debug)]
pub struct Words<'r, 'a> {
    region: &'r Region<'a>,
    copy: usize,
}

impl Words<'_, '_> {
    /// Word `i`, or `None` past the data area.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<u64> {
        (i < self.region.words).then(|| self.region.word(self.copy, i).load(Ordering::Relaxed))
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

    /// The byte offset from the region's start of word `i` of the copy being read (for
    /// error reports naming where a bad record lies), or `None` past the data area.
    #[must_use]
    pub fn byte_offset(&self, i: usize) -> Option<usize> {
        (i < self.region.words).then(|| self.region.data + 8 * (self.copy * self.region.words + i))
    }
}

/// The data words as the writer sees them (under the write side): the copy it publishes.
#[derive(Debug)]
pub struct WordsMut<'r, 'a> {
    region: &'r Region<'a>,
    copy: usize,
}

impl WordsMut<'_, '_> {
    /// Word `i`, or `None` past the data area.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<u64> {
        Words {
            region: self.region,
            copy: self.copy,
        }
        .get(i)
    }

    /// Sets word `i`; `false` (and nothing written) past the data area.
    pub fn set(&self, i: usize, v: u64) -> bool {
        let inside = i < self.region.words;
        if inside {
            self.region.word(self.copy, i).store(v, Ordering::Relaxed);
        }
        inside
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

#[cfg(test)]
mod recovery_tests;
#[cfg(test)]
mod tests;
