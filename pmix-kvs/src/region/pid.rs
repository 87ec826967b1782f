//! A liveness check by process id (Linux, feature `futex`): [`PidLiveness`].
//!
//! The owner token is the process's pid; another token's process is alive while
//! `kill(pid, 0)` (signal 0: nothing is sent, only the checks are made) succeeds, or fails
//! with `EPERM` (the process exists but belongs to another user). It is dead when the call
//! fails with `ESRCH`. Signal 0 has no other documented failure; any other answer counts as
//! alive, since a wrong "dead" breaks mutual exclusion and a wrong "alive" only delays
//! recovery ([`RegionLiveness`]).

use super::RegionLiveness;

/// The liveness check by pid: an owner token is a pid, alive while `kill(pid, 0)` succeeds
/// or fails with `EPERM` (see the [`RegionLiveness`] contract).
///
/// Two limits, both of pids themselves. A zombie (a child killed but not yet reaped by its
/// parent) still answers `kill`, so it counts as alive until it is reaped: the process that
/// forks the region's users should reap them promptly. And pids are reused: a dead party
/// whose pid a new process got counts as alive (recovery waits, exclusion holds), so the
/// check suits a region that lives shorter than the pid space takes to wrap, as on one node
/// with the default `pid_max`. Tokens that are no pid (0, or above `i32::MAX`) count as
/// alive: never reclaimed.
///
/// ```
/// use pmix_kvs::region::{PidLiveness, Region, RegionLayout};
///
/// assert!(PidLiveness::is_alive(u64::from(std::process::id())));
/// #[repr(C, align(8))]
/// struct Bytes([u8; 512]);
/// let mut buf = Box::new(Bytes([0; 512]));
/// let region = Region::format(&mut buf.0, RegionLayout::new(2, 4))?
///     .with_liveness(PidLiveness::this_process());
/// assert_eq!(region.reclaim()?, 0);
/// # Ok::<(), pmix_kvs::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PidLiveness;

impl PidLiveness {
    /// Whether the process whose pid is `token` may still run: `kill(pid, 0)` succeeds or
    /// fails with anything but `ESRCH` (in practice: `EPERM`). Tokens that are no pid (0,
    /// or above `i32::MAX`) are alive.
    #[must_use]
    pub fn is_alive(token: u64) -> bool {
        let pid = match libc::pid_t::try_from(token) {
            Ok(pid) if pid > 0 => pid,
            // 0 would address this process's group; larger values are no pid.
            _ => return true,
        };
        // SAFETY: `pid` is positive, so `kill` addresses that one process; signal 0 sends
        // nothing (only existence and permission are checked), and no memory is passed.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }

    /// This process's [`RegionLiveness`]: its pid as the owner token, [`Self::is_alive`] as
    /// the check of others'. Call it in the process that attaches: a forked child has a pid
    /// of its own.
    #[must_use]
    pub fn this_process() -> RegionLiveness {
        // A process's pid is never a reserved token (0 or `u64::MAX`), so `new` returns
        // `Some`; the default (never reclaim) stands in for the impossible `None`.
        RegionLiveness::new(u64::from(std::process::id()), Self::is_alive).unwrap_or_default()
    }
}

impl From<PidLiveness> for RegionLiveness {
    fn from(_: PidLiveness) -> Self {
        PidLiveness::this_process()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    #[cfg_attr(miri, ignore = "kill is not supported by Miri")]
    fn this_process_is_alive_and_owns_its_pid() {
        let me = u64::from(std::process::id());
        assert!(PidLiveness::is_alive(me));
        let l = PidLiveness::this_process();
        assert_eq!(l.owner(), me);
        assert!(l.is_alive(me));
        assert_eq!(RegionLiveness::from(PidLiveness).owner(), me);
    }

    #[test]
    #[cfg_attr(miri, ignore = "fork and kill are not supported by Miri")]
    fn a_reaped_childs_pid_is_dead_and_a_zombie_is_alive() {
        // SAFETY: the child only calls `_exit`, which is async-signal-safe, so forking from
        // this multi-threaded test process is sound.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork");
        if pid == 0 {
            // SAFETY: ends the child at once, without running the parent's exit handlers.
            unsafe { libc::_exit(0) };
        }
        let token = u64::try_from(pid).expect("a forked child's pid is positive");
        // Until it is reaped, the exited child is a zombie: it still answers `kill`.
        assert!(PidLiveness::is_alive(token), "a zombie counts as alive");
        let mut status = 0;
        // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
        let r = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        assert_eq!(r, pid, "waitpid");
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
        // Reaped: the pid names no process (unless the kernel gave it to a new one within
        // these few instructions; pids are handed out in increasing order).
        assert!(
            !PidLiveness::is_alive(token),
            "a reaped child counts as dead"
        );
    }

    #[test]
    fn tokens_that_are_no_pid_count_as_alive() {
        assert!(PidLiveness::is_alive(0));
        assert!(PidLiveness::is_alive(u64::from(u32::MAX)));
        assert!(PidLiveness::is_alive(u64::MAX));
    }

    #[test]
    #[cfg_attr(miri, ignore = "kill is not supported by Miri")]
    fn a_pid_above_pid_max_is_dead() {
        // Linux caps `pid_max` at 2^22, far below `i32::MAX`: no process has this pid.
        assert!(!PidLiveness::is_alive(0x7fff_ffff));
    }

    proptest! {
        /// A token too large for a pid never reaches `kill` (where it would wrap to another
        /// pid, or a negative one addressing a group): it is alive, never reclaimed.
        #[test]
        fn tokens_beyond_pid_t_count_as_alive(token in (1u64 << 31)..=u64::MAX) {
            prop_assert!(PidLiveness::is_alive(token));
        }
    }
}
