//! The `Rayon` space: a rayon thread pool it owns, and how dispatches
//! enter it.

use granule_core::exec::Fork;
use granule_core::space::{ExecutionSpace, HOST_SCRATCH_MAX, HOST_VECTOR_LENGTH_MAX};
use granule_views::HostSpace;
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

    /// Whether a dispatch of `blocks` blocks should run on the calling
    /// thread: a single block, a single thread, or a nested dispatch from
    /// a worker of this pool (which must not wait on its own pool).
    #[inline]
    pub(crate) fn inline(&self, blocks: usize) -> bool {
        blocks <= 1 || self.inner.threads == 1 || self.inner.pool.current_thread_index().is_some()
    }

    /// Runs `op` inside the pool.
    #[inline]
    pub(crate) fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        self.inner.pool.install(op)
    }
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

/// rayon's `join`, used inside the pool.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RayonFork;

impl Fork for RayonFork {
    #[inline]
    fn fork<A: Send, B: Send>(
        self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        rayon::join(a, b)
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
        assert!(s.install(|| s.inline(8)));
    }
}
