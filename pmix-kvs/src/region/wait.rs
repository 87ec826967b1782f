//! How a process's threads wait for the region's locks ([`RegionWait`]) and how the region
//! tells a dead process from a live one ([`RegionLiveness`]): both process-local, kept in
//! the [`Region`](super::Region) handle, never in the shared bytes.

use std::sync::atomic::AtomicU32;

use fabric_model::Nanos;

/// Spins before a waiter starts idling.
const SPINS: u32 = 64;

/// How this process's threads wait for one of the region's locks: spin `spins` times, then
/// call `idle` at every further check; an unlock that finds a sleeper calls `wake`.
/// Process-local (kept in the [`Region`](super::Region) handle, never in the shared bytes):
/// each process attaching chooses its own.
///
/// A waiter waits on the other party's flag word: before idling it marks the word 2 ("a
/// sleeper may be here"), and calls `idle(word, 2)`; the holder's unlock stores 0 and, if it
/// took a 2 out, calls `wake(word)`. The default spins 64 times, then yields the time slice,
/// and `wake` does nothing, so no one sleeps in the kernel. An embedder may supply a
/// process-shared futex instead (the `futex` feature ships one:
/// `region::futex_wait`): `idle` waits while the word still holds the value
/// seen, with a timeout (needed: a waiter checks the other party's liveness only between
/// idles, and a dead party never wakes anyone), `wake` wakes the word's sleepers.
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
    /// Called with the word waited on and the value that keeps the waiter waiting, after the
    /// spins; it must return within a bounded time.
    pub idle: fn(&AtomicU32, u32),
    /// Called with a word after an unlock that found a sleeper on it.
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

    /// Sets what an unlock that found a sleeper does.
    #[must_use]
    pub fn with_wake(mut self, wake: fn(&AtomicU32)) -> Self {
        self.wake = wake;
        self
    }
}

/// How long a blocking call of a region ([`Region::write`](super::Region::write),
/// [`RegionReader::read`](super::RegionReader::read), [`Region::reclaim`](super::Region::reclaim))
/// may wait for a lock that a live process holds before it gives up with
/// [`Error::LockWaitGaveUp`](crate::Error::LockWaitGaveUp). A wait is made of busy checks
/// (the handle's [`RegionWait::spins`]) and then idle rounds, each one call of the
/// [`RegionWait`] idle hook, whose contract bounds its time (the default yields the time
/// slice; `region::futex_wait` sleeps at most 1 ms); a lock whose holder is dead, or that no
/// process holds, is recovered during the wait whatever the patience. Process-local, kept in
/// the [`Region`](super::Region) handle ([`Region::with_patience`](super::Region::with_patience))
/// or given per call (`write_within`, `read_within`, `try_write`, `try_read`).
///
/// ```
/// use fabric_model::Nanos;
/// use pmix_kvs::region::Patience;
///
/// // The embedder's clock (this crate reads none): here a counter standing in for one.
/// fn now() -> Nanos {
///     Nanos::new(5)
/// }
/// assert!(!Patience::Forever.exhausted(1 << 40));
/// assert!(Patience::Idles(3).exhausted(3));
/// assert!(!Patience::Idles(3).exhausted(2));
/// assert!(Patience::Try.exhausted(0));
/// assert!(Patience::Until { now, deadline: Nanos::new(5) }.exhausted(0));
/// assert!(!Patience::Until { now, deadline: Nanos::new(6) }.exhausted(0));
/// ```
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub enum Patience {
    /// Wait as long as the holder lives (the default): a live holder that never releases
    /// keeps the waiter waiting.
    #[default]
    Forever,
    /// Give up before idle round `n + 1`: after the busy checks and `n` idle rounds.
    Idles(u64),
    /// Give up once the embedder's clock `now` reads `deadline` or later, looked at before
    /// each idle round (so a wait ends within one idle round of the deadline).
    Until {
        /// The embedder's clock, on the same scale as `deadline`.
        now: fn() -> Nanos,
        /// When to give up.
        deadline: Nanos,
    },
    /// Do not wait at all: no busy check, no idle round (what `try_write` and `try_read`
    /// use). States that no live process holds are still recovered first.
    Try,
}

impl Patience {
    /// Whether a wait that has idled `idles` rounds gives up now.
    #[must_use]
    pub fn exhausted(&self, idles: u64) -> bool {
        match *self {
            Self::Forever => false,
            Self::Idles(n) => idles >= n,
            Self::Until { now, deadline } => now() >= deadline,
            Self::Try => true,
        }
    }
}

/// Who this process is and how to tell whether another process is alive: the region's
/// defence against dead processes.
///
/// Every slot claim and the writers' lock record their holder's `owner` token. A waiter
/// that has waited a while on a party asks `alive(token)`; on `false` it takes the dead
/// party's place (see the [module](super) doc). `alive` must return `false` only for a
/// process that can never run again (a wrong `false` breaks mutual exclusion); a wrong
/// `true` (say a reused pid) only delays recovery. Tokens are the embedder's: a pid works
/// where pids are not reused while the region lives, a pid with the process's start time is
/// safer; 0 and `u64::MAX` are reserved.
///
/// We chose owner tokens with an embedder-supplied check over leases: a lease needs a clock
/// and a renewal from every reader (a reader descheduled past its lease would lose its slot
/// while alive, so leases must be long, and recovery is as slow as they are), while a pid check
/// is exact on one node, free until someone waits, and keeps the library free of clocks and
/// I/O (the check is the embedder's; on Linux the `futex` feature ships one from
/// `kill(pid, 0)`: `region::PidLiveness`).
///
/// The default (owner 1, every token alive) never reclaims anything: the region then behaves
/// as if no process ever died.
///
/// ```
/// use pmix_kvs::region::RegionLiveness;
///
/// fn never_dead(_: u64) -> bool {
///     true
/// }
/// assert!(RegionLiveness::new(0, never_dead).is_none());
/// let me = RegionLiveness::new(u64::from(std::process::id()), never_dead).unwrap();
/// assert_eq!(me.owner(), u64::from(std::process::id()));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RegionLiveness {
    owner: u64,
    alive: fn(u64) -> bool,
}

fn always_alive(_: u64) -> bool {
    true
}

impl Default for RegionLiveness {
    fn default() -> Self {
        Self {
            owner: 1,
            alive: always_alive,
        }
    }
}

impl RegionLiveness {
    /// This process's `owner` token and the check of others' tokens; `None` for the
    /// reserved tokens 0 and `u64::MAX`.
    #[must_use]
    pub fn new(owner: u64, alive: fn(u64) -> bool) -> Option<Self> {
        (owner != 0 && owner != u64::MAX).then_some(Self { owner, alive })
    }

    /// This process's token.
    #[must_use]
    pub fn owner(&self) -> u64 {
        self.owner
    }

    /// Whether the process owning `token` may still run, as the embedder's check says.
    #[must_use]
    pub fn is_alive(&self, token: u64) -> bool {
        (self.alive)(token)
    }
}
