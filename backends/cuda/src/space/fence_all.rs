//! Kokkos's global `fence()` for Cuda: every `CudaSpace` made in the
//! process registers itself, so one call can wait for all of them.

use super::memory::Inner;
use super::CudaSpace;
use crate::device_api::DeviceError;
use parking_lot::Mutex;
use std::sync::{Arc, Weak};

/// Every space made so far that may still be alive.
static SPACES: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());

/// Records a new space, and forgets the spaces that have gone.
pub(super) fn register(inner: &Arc<Inner>) {
    let mut spaces = SPACES.lock();
    spaces.retain(|s| s.strong_count() > 0);
    spaces.push(Arc::downgrade(inner));
}

/// Waits for the work queued on every Cuda space of the process (each
/// [`CudaSpace`], and so each [`crate::Cuda`], on every device), as
/// Kokkos's `fence()` does for every execution space. Every space is
/// waited for even when one reports a failure; the first failure is
/// returned, and each is reported once, as [`crate::Cuda::try_fence`]
/// reports it.
///
/// ```
/// use granule_core::kernel::kernel;
/// use granule_core::prelude::*;
/// use granule_cuda::{fence_all, Cuda, CudaSpace};
///
/// #[kernel(crate = granule_core)]
/// fn shift(i: usize, y: &mut f64, x: &View1<f64>) {
///     *y = x[i + 1]; // reads past the end at the last index
/// }
///
/// let (a, b) = (Cuda::emulated()?, Cuda::emulated()?);
/// let x = View1::<f64, LayoutRight, CudaSpace>::zeros_in(b.memory_space(), "x", 4)?;
/// let mut y = View1::<f64, LayoutRight, CudaSpace>::zeros_in(b.memory_space(), "y", 4)?;
/// parallel_for("shift", RangePolicy::new(&b, 0..4), &mut y, shift(&x));
/// // The failure queued on `b` is reported by the fence of every space.
/// let e = fence_all().unwrap_err();
/// assert!(e.to_string().contains("out of bounds"), "{e}");
/// fence_all()?; // reported once
/// a.try_fence()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fence_all() -> Result<(), DeviceError> {
    let live: Vec<CudaSpace> = SPACES
        .lock()
        .iter()
        .filter_map(Weak::upgrade)
        .map(|inner| CudaSpace { inner })
        .collect();
    let mut first = None;
    for space in live {
        if let Err(e) = space.synchronize() {
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}
