//! A process-shared futex wait for the region's locks (Linux, feature `futex`).
//!
//! A waiter sleeps in the kernel on the word it waits on (the other party's flag, which it
//! marked 2) with `FUTEX_WAIT` (not `FUTEX_PRIVATE_FLAG`: the word lives in memory other
//! processes map), for at most [`TIMEOUT_NS`], so that it comes back to check the other
//! party's liveness (a dead process wakes no one); the unlock that swaps a 2 out wakes the
//! word's sleepers with `FUTEX_WAKE`. Cost: an unlock with a sleeper makes one system call;
//! an unlock without one makes none.

use std::sync::atomic::AtomicU32;

use super::RegionWait;

/// The longest a waiter sleeps before it looks again (1 ms).
const TIMEOUT_NS: i64 = 1_000_000;

/// Spins before a waiter sleeps: a lock is usually handed over within microseconds.
const SPINS: u32 = 256;

fn futex_idle(word: &AtomicU32, seen: u32) {
    let timeout = libc::timespec {
        tv_sec: 0,
        tv_nsec: TIMEOUT_NS,
    };
    // SAFETY: `word` is a live, 4-aligned `u32` for the duration of the call (a reference);
    // FUTEX_WAIT only reads it and compares it with `seen`, and `timeout` is a valid
    // `timespec` on the stack; the two unused arguments are ignored by FUTEX_WAIT. Its
    // result (woken, timed out, interrupted, or the value already changed) needs no
    // handling: the caller looks at the lock again in every case.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            seen,
            &raw const timeout,
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

fn futex_wake(word: &AtomicU32) {
    // SAFETY: `word` is a live, 4-aligned `u32`; FUTEX_WAKE does not access memory beyond
    // hashing its address, and ignores the trailing arguments.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            i32::MAX,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

/// Spin 256 times, then sleep on a process-shared futex (at most 1 ms at a time); unlocks
/// that find a sleeper wake it.
///
/// ```
/// use pmix_kvs::region::{Region, RegionLayout, futex_wait};
///
/// #[repr(C, align(8))]
/// struct Bytes([u8; 512]);
/// let mut buf = Box::new(Bytes([0; 512]));
/// let region = Region::format(&mut buf.0, RegionLayout::new(2, 4))?.with_wait(futex_wait());
/// region.write(|w| w.set(0, 7))?;
/// assert_eq!(region.reader()?.read(|w| w.get(0))?, Some(7));
/// # Ok::<(), pmix_kvs::Error>(())
/// ```
#[must_use]
pub fn futex_wait() -> RegionWait {
    RegionWait::default()
        .with_spins(SPINS)
        .with_idle(futex_idle)
        .with_wake(futex_wake)
}
