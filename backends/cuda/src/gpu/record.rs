//! The GPU's error record and progress word, and what a lost context
//! means.
//!
//! A failing kernel writes its record (see [`crate::device::ErrorRecord`])
//! and then traps. A trap is a sticky error: the driver fails every later
//! call in the context with it, copies from device memory included. So the
//! record lives in mapped pinned host memory, which the device writes
//! through the bus and the host reads as plain memory after the failed
//! synchronization; every module the device loads gets its device address
//! in `granule_error_at`.
//!
//! Beside it is the progress word: after each launch the stream writes the
//! launch's number there (`stream.rs`), so after a failed synchronization
//! it names the last launch that completed, and the next one is the launch
//! that failed.
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
use std::sync::atomic::{AtomicU32, Ordering};

/// What the mapped allocation holds.
#[repr(C)]
struct Mapped {
    record: ErrorRecord,
    /// The low 32 bits of the number of the last launch the stream
    /// completed, written by the stream (`cuStreamWriteValue32`).
    progress: u32,
}

/// The error record and the progress word in mapped pinned host memory,
/// freed with their context (their owner frees them while the context is
/// current).
pub(super) struct HostRecord {
    host: *mut Mapped,
    device: u64,
}

// SAFETY: the record is plain memory, which the device reads and clears
// only while no kernel runs (after a failed synchronization), under its
// queue lock; the progress word is accessed atomically.
unsafe impl Send for HostRecord {}
// SAFETY: as above.
unsafe impl Sync for HostRecord {}

impl HostRecord {
    /// Allocates a zeroed record and progress word, mapped into the
    /// current context (which must have been created with
    /// `CU_CTX_MAP_HOST`).
    pub(super) fn new() -> Result<Self, DriverError> {
        let bytes = std::mem::size_of::<Mapped>();
        // SAFETY: a context is current (the caller's contract); the
        // allocation is owned by the returned value until `free`.
        let host =
            unsafe { result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_DEVICEMAP) }?.cast::<Mapped>();
        let empty = Mapped {
            record: ErrorRecord::EMPTY,
            progress: 0,
        };
        // SAFETY: `host` holds `bytes` page-aligned bytes, just allocated.
        unsafe { host.write(empty) };
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

    /// The address the stream writes the progress word at.
    pub(super) fn progress_address(&self) -> u64 {
        self.device + std::mem::offset_of!(Mapped, progress) as u64
    }

    fn progress_word(&self) -> &AtomicU32 {
        // SAFETY: `host` is live until `free` (which takes `&mut self`, so
        // no reference from here outlives it), and the word is 4-byte
        // aligned in a `repr(C)` struct. The host accesses it only through
        // this atomic; the device's stream writes it whole, as a 32-bit
        // store to mapped memory.
        unsafe { AtomicU32::from_ptr(&raw mut (*self.host).progress) }
    }

    /// The low 32 bits of the last completed launch's number.
    pub(super) fn progress(&self) -> u32 {
        self.progress_word().load(Ordering::Acquire)
    }

    /// Sets the progress word, when the stream is idle (after a successful
    /// synchronization, every launch issued has completed).
    pub(super) fn set_progress(&self, value: u32) {
        self.progress_word().store(value, Ordering::Release);
    }

    /// Reads the record and clears it.
    ///
    /// # Safety
    /// No kernel of the context is running (a synchronization failed with
    /// a sticky error): nothing writes the record meanwhile; `free` was not
    /// called.
    pub(super) unsafe fn take(&self) -> ErrorRecord {
        // SAFETY: `host` is live until `free` and, per the contract, the
        // record is not written concurrently.
        unsafe { ErrorRecord::take(&raw mut (*self.host).record) }
    }

    /// Releases the memory (once; later calls do nothing), for the
    /// owner's drop; the context must be current and its stream idle.
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
