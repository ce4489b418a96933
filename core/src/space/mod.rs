//! Execution spaces: where kernels run.
//!
//! An execution space is a value (a Rayon space owns its thread pool; a
//! CUDA space will own a context and stream). Patterns dispatch through
//! it: each backend implements the per-pattern traits of
//! [`crate::pattern`] for the policies it supports, so the same user call
//! runs on whichever space its policy names.

mod serial;
mod views;

pub use serial::Serial;
pub use views::ViewOn;

use granule_views::MemorySpace;
use std::fmt::Debug;

/// Where kernels run: a memory space it reads, a name, its concurrency, a
/// fence, and the limits of its team policies.
///
/// ```
/// use granule_core::{ExecutionSpace, Serial};
/// use granule_views::HostSpace;
/// let s = Serial;
/// assert_eq!(s.name(), "Serial");
/// assert_eq!(s.memory_space(), HostSpace);
/// assert_eq!(s.concurrency(), 1);
/// assert_eq!(s.team_size_max(), 1);
/// s.fence();
/// ```
pub trait ExecutionSpace: Clone + Debug + Send + Sync + 'static {
    /// The memory space whose Views kernels of this space read and write.
    type MemorySpace: MemorySpace;
    /// The name reported in profiles and messages (`"Serial"`, `"Rayon"`).
    const NAME: &'static str;

    /// The space's name.
    fn name(&self) -> &'static str {
        Self::NAME
    }
    /// The memory space Views for this space are allocated in: pass it to
    /// `zeros_in`, `from_fn_in` and the other `*_in` constructors, so the
    /// same code allocates host memory on a host space and device memory
    /// on a device space.
    ///
    /// ```
    /// use granule_core::{ExecutionSpace, Serial};
    /// use granule_views::{LayoutRight, View1};
    /// let space = Serial;
    /// let x = View1::<f64, LayoutRight, _>::from_fn_in(space.memory_space(), "x", 4, |i| i as f64)?;
    /// assert_eq!(x.size(), 4);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    fn memory_space(&self) -> Self::MemorySpace;
    /// How many work items may run at once (threads of the pool).
    fn concurrency(&self) -> usize;
    /// Waits until every dispatch issued on this space has finished. Host
    /// spaces dispatch synchronously, so this returns at once there.
    fn fence(&self);
    /// The largest team size a [`TeamPolicy`](crate::TeamPolicy) may ask for.
    fn team_size_max(&self) -> usize;
    /// The team size `AUTO` picks.
    fn team_size_recommended(&self) -> usize;
    /// The largest vector length (a power of two).
    fn vector_length_max(&self) -> usize;
    /// The most scratch bytes a team may reserve at `level` (0 or 1; other
    /// levels have 0).
    fn scratch_size_max(&self, level: usize) -> usize;
}

/// Scratch limits shared by the host spaces: level 0 is meant to stay in
/// cache (like GPU shared memory), level 1 is ordinary memory.
pub const HOST_SCRATCH_MAX: [usize; 2] = [1 << 20, 1 << 30];

/// Vector length limit of the host spaces: vector lanes are loop
/// iterations, so any power of two up to this is accepted.
pub const HOST_VECTOR_LENGTH_MAX: usize = 1 << 10;
