//! The process helpers of the tests that fork (`region_processes`, `region_kill`,
//! `region_futex`, `shm_processes`): shared mappings, forking a child, reaping and killing
//! children. One copy, compiled into each of those test binaries (`mod common;`); each uses
//! a part of it, hence `dead_code` is allowed here.
//!
//! Those tests run a plain `main` (no harness): the process is single-threaded when it
//! forks, so a child may run ordinary code. Every helper panics when its system call fails.
//! Unix only (`libc` is a dev-dependency there); elsewhere the module is empty.
#![cfg(unix)]
#![allow(dead_code)]

use std::ffi::c_int;

/// Maps `len` bytes of anonymous memory, readable and writable, shared with the children
/// this process forks afterwards (`MAP_SHARED | MAP_ANONYMOUS`): zeroed, page-aligned,
/// mapped until the process exits.
pub(crate) fn map_anonymous(len: usize) -> *mut u8 {
    // SAFETY: an anonymous shared mapping, checked below; no file, no address hint.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(base, libc::MAP_FAILED, "mmap");
    base.cast()
}

/// Maps `len` bytes of `fd` (a file at least that long), readable and writable and
/// shared, at an address of the kernel's choice; page-aligned, mapped until the process
/// exits.
pub(crate) fn map_fd(fd: c_int, len: usize) -> *mut u8 {
    // SAFETY: maps `len` bytes of an fd at least that long, no address hint; checked.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED, "mmap");
    p.cast()
}

/// A memfd named `name` (closed on exec), sized to `len` bytes (Linux).
#[cfg(target_os = "linux")]
pub(crate) fn memfd(name: &std::ffi::CStr, len: usize) -> c_int {
    // SAFETY: `name` is NUL-terminated (a `CStr`); flags valid.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    assert!(fd >= 0, "memfd_create");
    let len = libc::off_t::try_from(len).expect("a test region's length fits an off_t");
    // SAFETY: `fd` is the memfd just created.
    let sized = unsafe { libc::ftruncate(fd, len) };
    assert_eq!(sized, 0, "ftruncate");
    fd
}

/// Forks a child that runs `child` and ends with `_exit` of what it returns (never
/// returning into the caller); the parent gets the child's pid. Call it only while the
/// process is single-threaded (a plain `main`, no harness).
pub(crate) fn fork(child: impl FnOnce() -> i32) -> libc::pid_t {
    // SAFETY: the callers are single-threaded (no harness), so the child may run
    // ordinary code; it leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        let code = child();
        // SAFETY: ends the child without running the parent's exit handlers.
        unsafe { libc::_exit(code) };
    }
    pid
}

/// Waits for the child `pid` to end (`waitpid`, blocking): what `waitpid` returned (the
/// pid, or -1) and the wait status.
pub(crate) fn wait(pid: libc::pid_t) -> (libc::pid_t, c_int) {
    let mut status = 0;
    // SAFETY: waits for a child of this process; `status` is a valid out-pointer.
    let r = unsafe { libc::waitpid(pid, &raw mut status, 0) };
    (r, status)
}

/// Polls the child `pid` (`waitpid` with `WNOHANG`): what `waitpid` returned (the pid
/// once it has ended, 0 while it runs, or -1) and the wait status.
pub(crate) fn try_wait(pid: libc::pid_t) -> (libc::pid_t, c_int) {
    let mut status = 0;
    // SAFETY: polls a child of this process; `status` is a valid out-pointer.
    let r = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
    (r, status)
}

/// Whether a wait status says the child exited by itself with status 0.
pub(crate) fn exited_ok(status: c_int) -> bool {
    libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
}

/// Waits for the child `pid`: whether `waitpid` returned it and it exited with status 0.
pub(crate) fn reap(pid: libc::pid_t) -> bool {
    let (r, status) = wait(pid);
    r == pid && exited_ok(status)
}

/// Kills the child `pid` (not yet reaped) with `SIGKILL` and reaps it at once, so that
/// its pid no longer answers `kill(pid, 0)` (a zombie still would).
pub(crate) fn kill_and_reap(pid: libc::pid_t) {
    // SAFETY: `pid` is a child of this process not yet reaped.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let (r, _) = wait(pid);
    assert_eq!(r, pid, "waitpid");
}

/// A zeroed `T` in a shared anonymous mapping of its size (a control block the
/// processes report in, outside any region), mapped until the process exits.
///
/// # Safety
/// All-zero bytes must be a valid `T` (atomics, say), and every access to it, in any
/// process, must be atomic.
pub(crate) unsafe fn shared_zeroed<T>() -> &'static T {
    let p = map_anonymous(size_of::<T>()).cast::<T>();
    // SAFETY: a zeroed, page-aligned (so aligned for `T`) mapping of `T`'s size that
    // stays mapped; all-zero bytes are a valid `T` and every access is atomic (the
    // caller's promise).
    unsafe { &*p }
}
