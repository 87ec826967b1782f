//! The loom shim (after tokio's `src/loom`): the lock is written against these names, which
//! are loom's model-checked types under `--cfg loom` and thin std wrappers otherwise.

#[cfg(loom)]
pub(crate) use loom::cell::{ConstPtr, MutPtr, UnsafeCell};
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU32, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex};

/// One busy step of a wait: under loom, a yield so that the model checker runs the holder.
#[cfg(loom)]
pub(crate) fn spin_hint() {
    loom::thread::yield_now();
}

/// Giving the time slice away: under loom, the same yield.
#[cfg(loom)]
pub(crate) fn yield_now() {
    loom::thread::yield_now();
}

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU32, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex};

/// One busy step of a wait: the CPU's spin-loop hint.
#[cfg(not(loom))]
pub(crate) fn spin_hint() {
    std::hint::spin_loop();
}

/// Giving the time slice away.
#[cfg(not(loom))]
pub(crate) fn yield_now() {
    std::thread::yield_now();
}

/// `std::cell::UnsafeCell` with loom's pointer-returning API.
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) fn new(v: T) -> Self {
        Self(std::cell::UnsafeCell::new(v))
    }

    pub(crate) fn get(&self) -> ConstPtr<T> {
        ConstPtr(self.0.get())
    }

    pub(crate) fn get_mut(&self) -> MutPtr<T> {
        MutPtr(self.0.get())
    }

    pub(crate) fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

/// A shared pointer into an [`UnsafeCell`].
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct ConstPtr<T>(*const T);

#[cfg(not(loom))]
impl<T> ConstPtr<T> {
    /// # Safety
    /// No `&mut T` to the same cell may exist while the returned reference lives.
    pub(crate) unsafe fn deref(&self) -> &T {
        // SAFETY: the pointer comes from a live `UnsafeCell` and the caller guarantees that no
        // mutable reference aliases it.
        unsafe { &*self.0 }
    }
}

/// An exclusive pointer into an [`UnsafeCell`].
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct MutPtr<T>(*mut T);

#[cfg(not(loom))]
impl<T> MutPtr<T> {
    /// # Safety
    /// No other reference to the same cell may exist while the returned reference lives.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn deref(&self) -> &mut T {
        // SAFETY: the pointer comes from a live `UnsafeCell` and the caller guarantees
        // exclusive access.
        unsafe { &mut *self.0 }
    }
}
