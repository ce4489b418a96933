//! The Serial space itself: its memory space and limits.

use crate::space::{ExecutionSpace, HOST_SCRATCH_MAX, HOST_VECTOR_LENGTH_MAX};
use granule_views::HostSpace;

/// Runs every kernel on the calling thread, in index order. A team is one
/// thread (`team_size_max() == 1`), as in Kokkos::Serial.
///
/// ```
/// use granule_core::prelude::*;
/// let space = Serial;
/// let x = View1::<f64>::from_fn("x", 4, |i| i as f64).unwrap();
/// let s: f64 = parallel_reduce("sum", RangePolicy::new(&space, 0..4), Sum, |i, acc: &mut f64| *acc += x[i]);
/// assert_eq!(s, 6.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Serial;

impl ExecutionSpace for Serial {
    type MemorySpace = HostSpace;
    const NAME: &'static str = "Serial";

    fn memory_space(&self) -> HostSpace {
        HostSpace
    }
    fn concurrency(&self) -> usize {
        1
    }
    fn fence(&self) {}
    fn team_size_max(&self) -> usize {
        1
    }
    fn team_size_recommended(&self) -> usize {
        1
    }
    fn vector_length_max(&self) -> usize {
        HOST_VECTOR_LENGTH_MAX
    }
    fn scratch_size_max(&self, level: usize) -> usize {
        HOST_SCRATCH_MAX.get(level).copied().unwrap_or(0)
    }
}
