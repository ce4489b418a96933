//! The `Rayon` space: a rayon thread pool it owns, and how dispatches
//! enter it.

use granule_core::exec::Fork;
use granule_core::space::{ExecutionSpace, HOST_SCRATCH_MAX, HOST_VECTOR_LENGTH_MAX};
use granule_views::HostSpace;
use std::cell::Cell;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A failure to start a [`Rayon`] space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RayonError {
    /// Zero threads were asked for.
    ZeroThreads,
    /// The thread pool could not be built.
    Pool {
        /// Threads asked for.
        threads: usize,
        /// What rayon reported.
        reason: String,
    },
}

impl fmt::Display for RayonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RayonError::ZeroThreads => write!(
                f,
                "a Rayon execution space needs at least one thread, 0 were asked for"
            ),
            RayonError::Pool { threads, reason } => {
                write!(
                    f,
                    "could not start a rayon pool of {threads} threads: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for RayonError {}

pub(crate) struct Inner {
    pub(crate) pool: rayon::ThreadPool,
    pub(crate) threads: usize,
}

/// Runs kernels on a rayon thread pool it owns.
///
/// Clones share the pool. [`Rayon::default`] is one process-wide space
/// with as many threads as the machine's available parallelism (or
/// `RAYON_NUM_THREADS`, as rayon reads it); [`Rayon::new`] starts a space
/// with its own pool. Dispatches reuse the pool and buffers: nothing is
/// allocated or spawned per call. A dispatch of at most one block, or one
/// issued from inside a kernel running on this space, runs on the calling
/// thread.
///
/// ```
/// use granule_core::ExecutionSpace;
/// use granule_rayon::Rayon;
/// let s = Rayon::new(3).unwrap();
/// assert_eq!((s.name(), s.concurrency()), ("Rayon", 3));
/// assert!(Rayon::new(0).is_err());
/// ```
#[derive(Clone)]
pub struct Rayon {
    pub(crate) inner: Arc<Inner>,
}

impl fmt::Debug for Rayon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rayon")
            .field("threads", &self.inner.threads)
            .finish()
    }
}

impl Rayon {
    /// A space with its own pool of `threads` threads.
    pub fn new(threads: usize) -> Result<Self, RayonError> {
        if threads == 0 {
            return Err(RayonError::ZeroThreads);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("granule-rayon-{i}"))
            .build()
            .map_err(|e| RayonError::Pool {
                threads,
                reason: e.to_string(),
            })?;
        Ok(Rayon {
            inner: Arc::new(Inner { pool, threads }),
        })
    }

    /// Runs `op` on a thread of this space's pool, as rayon's
    /// [`ThreadPool::install`](rayon::ThreadPool::install) does, and
    /// returns what it returns.
    ///
    /// A driver that dispatches many short kernels runs faster inside it:
    /// a dispatch from a thread outside the pool hands its work to the
    /// pool and sleeps until the pool is done, and that hand-off and
    /// wake-up cost more than a kernel over a few thousand indices. From
    /// inside, the driver's thread runs its share of each kernel itself,
    /// as the master thread of an OpenMP team does. Results are the same
    /// bits either way.
    ///
    /// ```
    /// use granule_core::prelude::*;
    /// use granule_rayon::Rayon;
    /// let s = Rayon::new(2).unwrap();
    /// let total = s.install(|| {
    ///     let sum = |_| {
    ///         let p = RangePolicy::new(&s, 0..1000);
    ///         parallel_reduce("sum", p, Sum, |i, a: &mut u64| *a += i as u64)
    ///     };
    ///     (0..100).map(sum).sum::<u64>()
    /// });
    /// assert_eq!(total, 100 * 999 * 1000 / 2);
    /// ```
    pub fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        self.inner.pool.install(op)
    }

    /// Whether a dispatch of `blocks` blocks should run on the calling
    /// thread: a single block, a single thread, or a nested dispatch from
    /// a kernel running on this pool (which must not wait on its own
    /// pool). A driver running on the pool through [`Rayon::install`] is
    /// not a kernel: its dispatches fork.
    #[inline]
    pub(crate) fn inline(&self, blocks: usize) -> bool {
        blocks <= 1
            || self.inner.threads == 1
            || (in_kernel() && self.inner.pool.current_thread_index().is_some())
    }

    /// The fork of this space's dispatches.
    #[inline]
    pub(crate) fn fork(&self) -> RayonFork {
        RayonFork {
            threads: self.inner.threads,
        }
    }

    /// Runs a dispatch's `op` inside the pool, marked as kernel code.
    #[inline]
    pub(crate) fn dispatch<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        self.inner.pool.install(|| as_kernel(op))
    }
}

thread_local! {
    /// Whether this thread is running a dispatch's work (a kernel's
    /// blocks, or a fork of them that it took).
    static IN_KERNEL: Cell<bool> = const { Cell::new(false) };
}

fn in_kernel() -> bool {
    IN_KERNEL.with(Cell::get)
}

/// Runs `op` marked as kernel code, and restores the mark after it, also
/// when it unwinds.
#[inline]
fn as_kernel<R>(op: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            IN_KERNEL.with(|k| k.set(self.0));
        }
    }
    let _restore = Restore(IN_KERNEL.with(|k| k.replace(true)));
    op()
}

impl Default for Rayon {
    /// The process-wide space (shared pool, available parallelism).
    ///
    /// # Panics
    /// If the operating system refuses to start the threads.
    fn default() -> Self {
        static DEFAULT: OnceLock<Rayon> = OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                let threads = std::env::var("RAYON_NUM_THREADS")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n: &usize| n > 0)
                    .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
                    .unwrap_or(1);
                Rayon::new(threads).unwrap_or_else(|e| panic!("{e}"))
            })
            .clone()
    }
}

impl ExecutionSpace for Rayon {
    type MemorySpace = HostSpace;
    const NAME: &'static str = "Rayon";

    fn memory_space(&self) -> HostSpace {
        HostSpace
    }
    fn concurrency(&self) -> usize {
        self.inner.threads
    }
    /// Dispatches are synchronous: nothing is pending when they return.
    fn fence(&self) {}
    fn team_size_max(&self) -> usize {
        crate::team::TEAM_SIZE_MAX
    }
    fn team_size_recommended(&self) -> usize {
        crate::team::TEAM_SIZE_MAX
    }
    fn vector_length_max(&self) -> usize {
        HOST_VECTOR_LENGTH_MAX
    }
    fn scratch_size_max(&self, level: usize) -> usize {
        HOST_SCRATCH_MAX.get(level).copied().unwrap_or(0)
    }
}

/// rayon's `join`, used inside the pool of `threads` threads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RayonFork {
    threads: usize,
}

impl Fork for RayonFork {
    fn threads(&self) -> usize {
        self.threads
    }

    #[inline]
    fn fork<A: Send, B: Send>(
        self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        // The half another thread may steal runs as kernel code there.
        rayon::join(a, || as_kernel(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_shared_and_sized() {
        let a = Rayon::default();
        let b = Rayon::default();
        assert!(Arc::ptr_eq(&a.inner, &b.inner));
        assert!(a.concurrency() >= 1);
        assert_eq!(
            Rayon::new(0).unwrap_err().to_string(),
            "a Rayon execution space needs at least one thread, 0 were asked for"
        );
    }

    #[test]
    fn nested_dispatch_runs_inline() {
        let s = Rayon::new(2).unwrap();
        assert!(!s.inline(8));
        assert!(s.dispatch(|| s.inline(8)));
        assert!(s.dispatch(|| s.fork().fork(|| s.inline(8), || s.inline(8))) == (true, true));
        // Another pool's kernel is no kernel of this one.
        let t = Rayon::new(2).unwrap();
        assert!(!t.dispatch(|| s.inline(8)));
    }

    #[test]
    fn a_driver_on_the_pool_forks() {
        let s = Rayon::new(2).unwrap();
        assert!(!s.install(|| s.inline(8)));
        assert!(s.install(|| s.dispatch(|| s.inline(8))));
        assert!(s.install(|| s.inline(1)));
        // The mark is restored after a kernel that panicked.
        let caught = s.install(|| {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                s.dispatch(|| panic!("in a kernel"))
            }));
            (r.is_err(), s.inline(8))
        });
        assert_eq!(caught, (true, false));
    }
}
