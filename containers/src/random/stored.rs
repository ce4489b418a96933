//! The states a pool keeps for [`get_state`](super::RandomPool::get_state),
//! as Kokkos keeps them: one per state, each behind its own lock, made on
//! the first `get_state` from the same (seed, index) words as
//! `state_at(index)`, and advanced by every generator that holds it.
//!
//! `get_state` takes a free state the way Kokkos's host backends do,
//! from a start that spreads the threads over the pool: each thread
//! starts at its own index (given once per thread from a counter), so
//! with as many states as the space has threads every thread finds its
//! own state free at once. A taken state's lock is the generator's: it
//! is released, with the advanced state written back, when the generator
//! is given back or dropped. The locks are what make the states safe to
//! share: no two generators ever hold the same state.

use crossbeam_utils::CachePadded;
use parking_lot::{Mutex, MutexGuard};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The kept states of one pool (shared by its clones, as a Kokkos pool's
/// copies share its states).
#[derive(Debug, Default)]
pub(super) struct Stored<S> {
    // Padded, so that threads advancing neighbouring states do not write
    // to one cache line.
    slots: OnceLock<Box<[CachePadded<Mutex<S>>]>>,
}

impl<S> Stored<S> {
    /// A free state of the `n` states `init` makes (on the first call).
    /// It waits while every state is taken, as Kokkos's `get_state` does:
    /// a thread that holds all of them itself never gets one.
    pub(super) fn take(&self, n: usize, init: impl Fn(usize) -> S) -> MutexGuard<'_, S> {
        let slots = self.slots.get_or_init(|| {
            (0..n)
                .map(|i| CachePadded::new(Mutex::new(init(i))))
                .collect()
        });
        let start = thread_start() % n;
        loop {
            let free = (0..n).find_map(|k| slots[(start + k) % n].try_lock());
            if let Some(guard) = free {
                return guard;
            }
            std::thread::yield_now();
        }
    }
}

// A kept state is a plain value that a generator writes back whole when
// it is dropped, unwinding included, so a panic cannot leave one half
// updated: pools stay usable across `catch_unwind`, as the host's own
// generators are.
impl<S> std::panic::RefUnwindSafe for Stored<S> {}
impl<S> std::panic::UnwindSafe for Stored<S> {}

/// Where the calling thread starts looking for a free state: 0 for the
/// first thread that asks, 1 for the second, and so on.
fn thread_start() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static START: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    START.with(|s| *s)
}
