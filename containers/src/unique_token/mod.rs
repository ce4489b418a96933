//! `UniqueToken`: ids in `0..size()` that no two concurrent holders share
//! (Kokkos's `Experimental::UniqueToken<ExecSpace>`, global scope).
//!
//! A work item acquires an id, uses it to index per-id storage (a partial
//! histogram, a scratch row, a random generator's state), and releases it.
//! [`UniqueToken::new_on`] sizes the token by the space's concurrency
//! (Serial 1, Rayon its thread count, Cuda the device's resident threads),
//! so every thread that runs at once can hold an id.
//!
//! The ids come three ways:
//! - [`acquire_guard`](UniqueToken::acquire_guard): a [`TokenGuard`] that
//!   releases its id when dropped;
//! - [`rows`](UniqueToken::rows): the write model's form of Kokkos's
//!   `data(id, j) += ..`. A [`TokenRows`] borrows a View with a row per id
//!   and the token, both uniquely, and lends row `id` mutably only through
//!   the [`RowGuard`] that holds `id`. Since no two guards hold one id, no
//!   two `&mut` rows alias;
//! - [`acquire`](UniqueToken::acquire) / [`release`](UniqueToken::release):
//!   Kokkos's raw calls, which `#[kernel]`s use on every space, Cuda
//!   included. A raw id lends no memory: a kernel writes per id through an
//!   atomic View indexed by the id, so even a wrong `release` cannot make
//!   writes race.
//!
//! ```
//! use granule::containers::UniqueToken;
//! use granule::prelude::*;
//!
//! // Rows are host memory lent to closures: a host space (a `#[kernel]`
//! // on Cuda uses the raw calls, below).
//! let space = granule::Rayon::default();
//! let bins = 4;
//! let mut token = UniqueToken::new_on(&space)?;
//! let mut partial = View2::<u64>::zeros("partial", [token.size(), bins])?;
//! let rows = token.rows(&mut partial)?;
//! parallel_for("count", RangePolicy::new(&space, 0..1000), (), |i, ()| {
//!     let mut row = rows.acquire();
//!     row.row_mut()[i % bins] += 1;
//! });
//! drop(rows);
//! let total: u64 = partial.to_vec().iter().sum();
//! assert_eq!(total, 1000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # In kernels
//! A `&UniqueToken` parameter of a `#[kernel]` offers `acquire()`,
//! `release(id)` and `size()`, on the host spaces and on Cuda, where the
//! device runs the host's protocol on the token's locks in device memory
//! (`unique_token.cuh`). A thread that finds every id held spins until
//! one is released, as in Kokkos; with the default size there is an id for
//! every resident thread.
//!
//! ```
//! use granule::containers::UniqueToken;
//! use granule::prelude::*;
//!
//! #[kernel]
//! fn count(i: usize, token: &UniqueToken, partial: &AtomicView<'_, u64, 2>) {
//!     let id = token.acquire();
//!     partial.add([id, i % 4], 1);
//!     token.release(id);
//! }
//!
//! let space = Serial;
//! let token = UniqueToken::new_on(&space)?;
//! let mut partial = View2::<u64>::zeros("partial", [token.size(), 4])?;
//! parallel_for("count", RangePolicy::new(&space, 0..100), (), count(&token, &partial.atomic()?));
//! assert_eq!(partial.to_vec(), [25, 25, 25, 25]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Cost
//! An acquire and a release are two atomic operations on the thread's own
//! lock. Per element of a 100-bin histogram on 2 threads they cost more
//! than one atomic add into a shared bin (`benches/unique_token.rs`:
//! token rows run at 0.45x the atomic View, `benches/RESULTS.md`):
//! acquire once per chunk of work, not per increment.
//!
//! # Locks, not a packed bitset
//! Each id has its own `u32` lock (0 free, 1 held), on the host spaced a
//! cache line apart for the small sizes threads use. A thread starts its
//! search at its own lock (on the host the id it held last; on a device its
//! global thread index), so with enough ids the first compare-and-swap
//! succeeds and no two threads touch one word. In a packed bitset,
//! acquires of different ids would compare-and-swap the same word and
//! retry one another.

mod device;
mod error;
mod guard;
mod locks;
mod rows;
#[cfg(test)]
mod tests;

pub use error::TokenError;
pub use guard::TokenGuard;
pub use rows::{RowGuard, TokenRows};

use granule_core::ExecutionSpace;
use granule_views::{HostAccessible, HostSpace, LayoutRight, MemorySpace, View1};
use std::fmt;

/// The label of a token's locks, named by errors and profiles.
const LABEL: &str = "UniqueToken";

/// Ids in `0..size()` for the work items running at once on a space, each
/// held by at most one of them (Kokkos's `UniqueToken`, global scope). `M`
/// is the memory space its locks live in: the space's, so that its
/// kernels can acquire ids.
///
/// ```
/// use granule::containers::UniqueToken;
/// use granule::prelude::*;
/// let token = UniqueToken::with_size_on(&Serial, 3)?;
/// let a = token.acquire_guard();
/// let b = token.acquire_guard();
/// assert_ne!(a.id(), b.id());
/// assert!(a.id() < 3 && b.id() < 3);
/// # Ok::<(), granule::containers::TokenError>(())
/// ```
pub struct UniqueToken<M: MemorySpace = HostSpace> {
    size: usize,
    /// Elements between two ids' locks.
    stride: usize,
    /// Lock `id` at element `id * stride`: 0 free, 1 held. Only ever
    /// accessed atomically.
    locks: View1<u32, LayoutRight, M>,
}

impl<M: MemorySpace> fmt::Debug for UniqueToken<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UniqueToken")
            .field("size", &self.size)
            .field("space", &M::NAME)
            .finish()
    }
}

impl<M: MemorySpace> UniqueToken<M> {
    /// A token with an id for every thread `space` runs at once: its
    /// [`concurrency`](ExecutionSpace::concurrency) (Serial 1, Rayon its
    /// thread count, Cuda the device's resident threads).
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let rayon = Rayon::new(3)?;
    /// assert_eq!(UniqueToken::new_on(&rayon)?.size(), 3);
    /// assert_eq!(UniqueToken::new_on(&Serial)?.size(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`TokenError::View`] if the locks cannot be allocated.
    pub fn new_on<S>(space: &S) -> Result<Self, TokenError>
    where
        S: ExecutionSpace<MemorySpace = M>,
    {
        Self::with_size_on(space, space.concurrency().max(1))
    }

    /// A token of `size` ids, in `space`'s memory. More ids than threads
    /// cost memory only; fewer make threads wait for one another (on a
    /// device, threads spin until an id is free).
    ///
    /// ```
    /// use granule::containers::{TokenError, UniqueToken};
    /// use granule::prelude::*;
    /// assert_eq!(UniqueToken::with_size_on(&Serial, 8)?.size(), 8);
    /// assert!(matches!(UniqueToken::with_size_on(&Serial, 0), Err(TokenError::ZeroSize)));
    /// # Ok::<(), TokenError>(())
    /// ```
    ///
    /// # Errors
    /// [`TokenError::ZeroSize`] for 0 ids (no work item could ever get
    /// one), [`TokenError::TooLarge`] when the locks' bytes overflow, and
    /// [`TokenError::View`] if they cannot be allocated.
    pub fn with_size_on<S>(space: &S, size: usize) -> Result<Self, TokenError>
    where
        S: ExecutionSpace<MemorySpace = M>,
    {
        if size == 0 {
            return Err(TokenError::ZeroSize);
        }
        let stride = locks::stride::<M>(size);
        let len = size
            .checked_mul(stride)
            .filter(|l| l.checked_mul(4).is_some())
            .ok_or(TokenError::TooLarge { size })?;
        let locks = View1::zeros_in(space.memory_space(), LABEL, len)?;
        Ok(UniqueToken {
            size,
            stride,
            locks,
        })
    }

    /// The number of ids: every id is in `0..size()`.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// assert_eq!(UniqueToken::with_size_on(&Serial, 5)?.size(), 5);
    /// # Ok::<(), granule::containers::TokenError>(())
    /// ```
    pub fn size(&self) -> usize {
        self.size
    }
}

impl<M: HostAccessible> UniqueToken<M> {
    /// An id no other holder has, held until [`release`](Self::release).
    /// Waits while every id is held (as Kokkos's `acquire` does): an id
    /// acquired and never released is lost to the token, so prefer
    /// [`acquire_guard`](Self::acquire_guard).
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let token = UniqueToken::with_size_on(&Serial, 2)?;
    /// let id = token.acquire();
    /// assert!(id < token.size());
    /// token.release(id);
    /// # Ok::<(), granule::containers::TokenError>(())
    /// ```
    pub fn acquire(&self) -> usize {
        locks::acquire(self.lock_slice())
    }

    /// An id no other holder has, or `None` when a sweep over all of them
    /// found each held.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let token = UniqueToken::with_size_on(&Serial, 1)?;
    /// let id = token.try_acquire().unwrap();
    /// assert_eq!(token.try_acquire(), None);
    /// token.release(id);
    /// assert_eq!(token.try_acquire(), Some(0));
    /// # Ok::<(), granule::containers::TokenError>(())
    /// ```
    pub fn try_acquire(&self) -> Option<usize> {
        locks::try_acquire(self.lock_slice())
    }

    /// Gives back an id from [`acquire`](Self::acquire).
    ///
    /// As in Kokkos, the token cannot tell who holds an id: releasing one
    /// that another holder took frees it for a third. A raw id lends no
    /// memory (a kernel writes per id through an atomic View), and the rows
    /// a token does lend ([`rows`](Self::rows)) borrow it uniquely, so no
    /// raw `release` can run while a row is lent: a wrong release can
    /// repeat an id, never make writes race.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let token = UniqueToken::with_size_on(&Serial, 1)?;
    /// let id = token.acquire();
    /// token.release(id);
    /// assert_eq!(token.acquire(), id);
    /// # Ok::<(), granule::containers::TokenError>(())
    /// ```
    ///
    /// # Panics
    /// If `id` is out of range or not held (see [`try_release`](Self::try_release)).
    #[track_caller]
    pub fn release(&self, id: usize) {
        self.try_release(id).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`release`](Self::release), with an error instead of a panic.
    ///
    /// ```
    /// use granule::containers::{TokenError, UniqueToken};
    /// use granule::prelude::*;
    /// let token = UniqueToken::with_size_on(&Serial, 2)?;
    /// assert_eq!(token.try_release(1), Err(TokenError::NotHeld { id: 1, size: 2 }));
    /// assert_eq!(token.try_release(7), Err(TokenError::OutOfRange { id: 7, size: 2 }));
    /// # Ok::<(), TokenError>(())
    /// ```
    ///
    /// # Errors
    /// [`TokenError::OutOfRange`] for an id past `size()`,
    /// [`TokenError::NotHeld`] for an id nobody holds.
    pub fn try_release(&self, id: usize) -> Result<(), TokenError> {
        locks::release(self.lock_slice(), id)
    }

    /// An id held until the guard is dropped.
    ///
    /// ```
    /// use granule::containers::UniqueToken;
    /// use granule::prelude::*;
    /// let token = UniqueToken::with_size_on(&Serial, 1)?;
    /// {
    ///     let g = token.acquire_guard();
    ///     assert_eq!(g.id(), 0);
    ///     assert_eq!(token.try_acquire(), None);
    /// }
    /// assert_eq!(token.try_acquire(), Some(0));
    /// # Ok::<(), granule::containers::TokenError>(())
    /// ```
    pub fn acquire_guard(&self) -> TokenGuard<'_, M> {
        TokenGuard::new(self, self.acquire())
    }

    /// The locks as the host protocol sees them.
    fn lock_slice(&self) -> locks::Locks<'_> {
        // SAFETY: the View is host-accessible, holds `size * stride`
        // zero-initialized u32s and lives as long as `&self`; every access
        // to it is atomic (this module never reads or writes it otherwise).
        unsafe { locks::Locks::new(self.locks.as_ptr(), self.size, self.stride) }
    }
}
