//! The GPU's error record, and what a lost context means.
//!
//! A failing kernel writes its record (see [`crate::device::ErrorRecord`])
//! and then traps. A trap is a sticky error: the driver fails every later
//! call in the context with it, copies from device memory included. So the
//! record lives in mapped pinned host memory, which the device writes
//! through the bus and the host reads as plain memory after the failed
//! synchronization; every module the device loads gets its device address
//! in `granule_error_at`.
//!
//! The context cannot be repaired: its allocations (which Views still
//! name) died with it. [`GpuDevice`](super::GpuDevice) therefore owns a
//! context of its own, not the device's primary context, and after a
//! sticky error refuses every operation with the cause; other devices,
//! and new ones for the same GPU, have contexts of their own and are
//! unaffected.

use crate::device::ErrorRecord;
use cudarc::driver::sys::{self, cudaError_enum};
use cudarc::driver::{result, DriverError};

/// One error record in mapped pinned host memory, freed with its context
/// (its owner frees it while the context is current).
pub(super) struct HostRecord {
    host: *mut ErrorRecord,
    device: u64,
}

// SAFETY: the record is plain memory; the device reads and clears it only
// between launches, under its launch lock.
unsafe impl Send for HostRecord {}
// SAFETY: as above.
unsafe impl Sync for HostRecord {}

impl HostRecord {
    /// Allocates a zeroed record, mapped into the current context (which
    /// must have been created with `CU_CTX_MAP_HOST`).
    pub(super) fn new() -> Result<Self, DriverError> {
        let bytes = std::mem::size_of::<ErrorRecord>();
        // SAFETY: a context is current (the caller's contract); the
        // allocation is owned by the returned value until `free`.
        let host = unsafe { result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_DEVICEMAP) }?
            .cast::<ErrorRecord>();
        // SAFETY: `host` holds `bytes` page-aligned bytes, just allocated.
        unsafe { host.write(ErrorRecord::EMPTY) };
        let mut device = 0;
        // SAFETY: `host` is a DEVICEMAP allocation of this context; flags
        // must be 0.
        let mapped = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0) };
        if let Err(e) = mapped.result() {
            // SAFETY: allocated above by cuMemHostAlloc, freed once.
            let _ = unsafe { result::free_host(host.cast()) };
            return Err(e);
        }
        Ok(HostRecord { host, device })
    }

    /// The address kernels write the record at.
    pub(super) fn device_address(&self) -> u64 {
        self.device
    }

    /// Reads the record and clears it.
    ///
    /// # Safety
    /// No kernel of the context is running (a launch was synchronized, or
    /// failed): nothing writes the record meanwhile; `free` was not called.
    pub(super) unsafe fn take(&self) -> ErrorRecord {
        // SAFETY: `host` is live until `free` and, per the contract, not
        // written concurrently.
        unsafe { ErrorRecord::take(self.host) }
    }

    /// Releases the memory (once; later calls do nothing), for the
    /// owner's drop; the context must be current.
    pub(super) fn free(&mut self) {
        let host = std::mem::replace(&mut self.host, std::ptr::null_mut());
        if !host.is_null() {
            // SAFETY: allocated by cuMemHostAlloc in `new` and nulled above,
            // so freed once; a lost context may refuse, which leaves the
            // memory to the context's destruction.
            let _ = unsafe { result::free_host(host.cast()) };
        }
    }
}

/// Whether the driver keeps `e` for the rest of the context's life (the
/// CUDA documentation's "the process is left in an inconsistent state"
/// errors: a kernel faulted or trapped).
pub(super) fn is_sticky(e: DriverError) -> bool {
    use cudaError_enum::*;
    matches!(
        e.0,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_LAUNCH_FAILED
    )
}

/// The reason every operation of a device whose context was lost gives.
pub(super) fn lost_reason(cause: &str) -> String {
    format!(
        "its CUDA context was lost: {cause}. The driver fails every later call in that \
         context, and the context's allocations are gone, so this device refuses every \
         operation. Other Cuda spaces own their own contexts and still work: create a new \
         one (Cuda::new, GpuDevice::new) to go on"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_sticky_and_refusals_are_not() {
        assert!(is_sticky(DriverError(
            cudaError_enum::CUDA_ERROR_LAUNCH_FAILED
        )));
        assert!(is_sticky(DriverError(
            cudaError_enum::CUDA_ERROR_ILLEGAL_ADDRESS
        )));
        assert!(!is_sticky(DriverError(
            cudaError_enum::CUDA_ERROR_INVALID_VALUE
        )));
        assert!(!is_sticky(DriverError(
            cudaError_enum::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
        )));
    }

    #[test]
    fn the_lost_reason_names_the_cause_and_the_way_on() {
        let r = lost_reason("kernel `k` failed: boom");
        assert!(r.contains("kernel `k` failed: boom"), "{r}");
        assert!(r.contains("create a new one"), "{r}");
    }
}
