//! The GPU's error record, progress word and failure word, and what a
//! lost context means.
//!
//! A failing thread claims the device's failure word (device memory,
//! `granule_failed_at` in every module), writes its record (see
//! [`crate::device::ErrorRecord`]) and exits (`error.cuh`'s
//! `stop_thread`); the threads waiting for it stop at their next wait
//! tick, and every launch queued after it reads the word and does
//! nothing. The record lives in mapped pinned host memory, which the
//! device writes through the bus and the host reads as plain memory after
//! a synchronization; every module the device loads gets its device
//! address in `granule_error_at`. The host then clears the record and the
//! word, and the device goes on.
//!
//! Beside the record is the progress word: after each launch the stream
//! writes the launch's number there (`stream.rs`). The first failing
//! thread copies it into `failed_after`, so the launch after that number
//! is the one that failed.
//!
//! A failing thread does not trap because a trap is a sticky error, and
//! on current drivers one trap makes every CUDA context of the process
//! unusable, new ones included. A sticky error can still
//! come from a kernel granule did not write, or from a broken invariant
//! of a driver: then the context is lost with its allocations, and
//! [`GpuDevice`](super::GpuDevice) refuses every operation with the cause.

use crate::device::ErrorRecord;
use cudarc::driver::sys::{self, cudaError_enum};
use cudarc::driver::{result, DriverError};
use std::sync::atomic::{AtomicU32, Ordering};

/// What the mapped allocation holds (`error.cuh`'s `RecordTail`
/// follows the record there).
#[repr(C)]
struct Mapped {
    record: ErrorRecord,
    /// The low 32 bits of the number of the last launch the stream
    /// completed, written by the stream (`cuStreamWriteValue32`).
    progress: u32,
    /// `progress` when the first failing thread claimed the record.
    failed_after: u32,
}

/// The words of [`Mapped`] the host reads while kernels may run.
#[derive(Clone, Copy)]
enum Word {
    Code,
    Progress,
    FailedAfter,
}

/// The error record, the progress word and `failed_after` in mapped
/// pinned host memory, and the failure word in device memory; freed with
/// their context (their owner frees them while the context is current).
pub(super) struct HostRecord {
    host: *mut Mapped,
    device: u64,
    /// The device's failure word (4 bytes of device memory): 0, or the
    /// code of the failure the record holds.
    failed: u64,
}

// SAFETY: the record is plain memory, which the device reads whole and
// clears only while no kernel runs (after a synchronization), under its
// queue lock; otherwise the host reads its code, the progress word and
// `failed_after` atomically.
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
            failed_after: 0,
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
        match failure_word() {
            Ok(failed) => Ok(HostRecord {
                host,
                device,
                failed,
            }),
            Err(e) => {
                // SAFETY: allocated above by cuMemHostAlloc, freed once.
                let _ = unsafe { result::free_host(host.cast()) };
                Err(e)
            }
        }
    }

    /// The address of the device's failure word, for `granule_failed_at`.
    pub(super) fn failure_address(&self) -> u64 {
        self.failed
    }

    /// The code of the failure a kernel recorded since the last `take`
    /// (0: none). A kernel may be writing it: read after the progress
    /// word, it is nonzero if a launch the word counts as complete failed
    /// (the failing thread writes it and fences before its launch ends).
    pub(super) fn code(&self) -> u32 {
        self.word(Word::Code).load(Ordering::Acquire)
    }

    /// `progress` when the recorded failure was claimed.
    pub(super) fn failed_after(&self) -> u32 {
        self.word(Word::FailedAfter).load(Ordering::Acquire)
    }

    /// Queues the clearing of the failure word on `stream`, after every
    /// launch before it, so the launches after it run again.
    pub(super) fn clear_failure(&self, stream: sys::CUstream) -> Result<(), DriverError> {
        // SAFETY: the word is 4 bytes of device memory of this (current)
        // context, alive until `free`, which waits for the stream first.
        unsafe { sys::cuMemsetD32Async(self.failed, 0, 1, stream) }.result()
    }

    /// The address kernels write the record at.
    pub(super) fn device_address(&self) -> u64 {
        self.device
    }

    /// The address the stream writes the progress word at.
    pub(super) fn progress_address(&self) -> u64 {
        self.device + std::mem::offset_of!(Mapped, progress) as u64
    }

    /// One of the words the host reads while kernels may run, as an
    /// atomic.
    fn word(&self, word: Word) -> &AtomicU32 {
        let m = self.host;
        // SAFETY: `host` is live until `free` (which takes `&mut self`, so
        // no reference from here outlives it), and each word is a 4-byte
        // aligned u32 of a `repr(C)` struct. While kernels may run the
        // host accesses them only through these atomics; the device (a
        // kernel, or the stream's write) writes each whole, as a 32-bit
        // store to mapped memory.
        unsafe {
            AtomicU32::from_ptr(match word {
                Word::Code => &raw mut (*m).record.code,
                Word::Progress => &raw mut (*m).progress,
                Word::FailedAfter => &raw mut (*m).failed_after,
            })
        }
    }

    /// The low 32 bits of the last completed launch's number.
    pub(super) fn progress(&self) -> u32 {
        self.word(Word::Progress).load(Ordering::Acquire)
    }

    /// Sets the progress word, when the stream is idle (after a successful
    /// synchronization, every launch issued has completed).
    pub(super) fn set_progress(&self, value: u32) {
        self.word(Word::Progress).store(value, Ordering::Release);
    }

    /// Reads the record and clears it (and `failed_after`).
    ///
    /// # Safety
    /// No kernel of the context is running (after a synchronization, or a
    /// failed one): nothing writes the record meanwhile; `free` was not
    /// called.
    pub(super) unsafe fn take(&self) -> ErrorRecord {
        // SAFETY: `host` is live until `free` and, per the contract, the
        // record is not written concurrently.
        unsafe {
            (*self.host).failed_after = 0;
            ErrorRecord::take(&raw mut (*self.host).record)
        }
    }

    /// Releases the memory (once; later calls do nothing), for the
    /// owner's drop; the context must be current and its stream idle.
    pub(super) fn free(&mut self) {
        let failed = std::mem::replace(&mut self.failed, 0);
        if failed != 0 {
            // SAFETY: allocated by cuMemAlloc in `failure_word` and zeroed
            // above, so freed once; a lost context may refuse, which leaves
            // the memory to the context's destruction.
            let _ = unsafe { result::free_sync(failed) };
        }
        let host = std::mem::replace(&mut self.host, std::ptr::null_mut());
        if !host.is_null() {
            // SAFETY: allocated by cuMemHostAlloc in `new` and nulled above,
            // so freed once; a lost context may refuse, which leaves the
            // memory to the context's destruction.
            let _ = unsafe { result::free_host(host.cast()) };
        }
    }
}

/// A zeroed 4-byte failure word in the current context's device memory.
fn failure_word() -> Result<u64, DriverError> {
    // SAFETY: a context is current (HostRecord::new's contract); the word
    // is owned by the HostRecord that holds it, which frees it.
    let failed = unsafe { result::malloc_sync(4) }?;
    // SAFETY: `failed` is the 4-byte allocation just made.
    if let Err(e) = unsafe { sys::cuMemsetD32_v2(failed, 0, 1) }.result() {
        // SAFETY: allocated above, freed once.
        let _ = unsafe { result::free_sync(failed) };
        return Err(e);
    }
    Ok(failed)
}

/// Whether the driver keeps `e` for the rest of the context's life (the
/// CUDA documentation's "the process is left in an inconsistent state"
/// errors: a kernel faulted or trapped, the hardware found an error it
/// cannot correct or contain). An error the driver cannot name
/// (`CUDA_ERROR_UNKNOWN`) counts too: treating the context as lost only
/// makes the device refuse work, while going on could use a broken one.
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
            | CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_NVLINK_UNCORRECTABLE
            | CUDA_ERROR_CONTAINED
            | CUDA_ERROR_TENSOR_MEMORY_LEAK
            | CUDA_ERROR_EXTERNAL_DEVICE
            | CUDA_ERROR_UNKNOWN
    )
}

/// The reason every operation of a device whose context was lost gives.
pub(super) fn lost_reason(cause: &str) -> String {
    format!(
        "its CUDA context was lost: {cause}. The driver fails every later call in that \
         context, and the context's allocations are gone, so this device refuses every \
         operation. On an H100 such a fault also ended every other CUDA context of the \
         process, new ones included: restart the process to use the GPU again"
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
        for e in [
            cudaError_enum::CUDA_ERROR_ECC_UNCORRECTABLE,
            cudaError_enum::CUDA_ERROR_NVLINK_UNCORRECTABLE,
            cudaError_enum::CUDA_ERROR_CONTAINED,
            cudaError_enum::CUDA_ERROR_UNKNOWN,
        ] {
            assert!(is_sticky(DriverError(e)), "{e:?}");
        }
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
        assert!(r.contains("restart the process"), "{r}");
    }
}
