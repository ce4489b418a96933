//! What a Cuda space has queued on its device since its last
//! synchronization point, and the synchronization points themselves.
//!
//! Dispatches are asynchronous (see `dispatch/`): a launch is issued and
//! the dispatch returns. The space keeps, per dispatch in flight, what the
//! report of its failure needs (label, kernel, View labels by id). A
//! dispatch's driver workspace goes back to the space's cache as soon as
//! its launch is queued (`cached.rs`): whoever gets it next is queued
//! behind the kernel. A synchronization point (a fence, a reduction or
//! scan result, a copy between host and device) waits for the device and
//! reports the first failure as [`DeviceError::Dispatch`] naming its
//! dispatch.
//!
//! Soundness does not rest on this bookkeeping: the device itself makes
//! every host copy and every free wait for the work queued before it (the
//! `Device` trait's "Stream order"). What this adds is the label in the
//! report, and a bound: a space keeps at most [`MAX_IN_FLIGHT`] dispatches
//! before the next dispatch waits for them.

use super::memory::CudaSpace;
use crate::device_api::{Device, DeviceBuffer, DeviceError, LaunchId};
use parking_lot::MutexGuard;

/// Dispatches a space keeps in flight at most: the next one waits for
/// them first, as a GPU's launch queue makes the host wait when it is
/// full. It bounds what the space keeps for reports.
///
/// ```
/// assert_eq!(granule_cuda::space::MAX_IN_FLIGHT, 1024);
/// ```
pub const MAX_IN_FLIGHT: usize = 1024;

/// A dispatch issued on the device, for the report of its failure.
pub(crate) struct Dispatched {
    /// Its launch's number on the device.
    pub(crate) launch: LaunchId,
    /// The dispatch's label.
    pub(crate) label: String,
    /// What it ran: "kernel `axpy`", "driver `copy_if` with `odd`".
    pub(crate) kernel: String,
    /// The labels of its Views, by the id the device's errors give them.
    pub(crate) views: Vec<String>,
}

/// What a space has issued since its last synchronization point.
#[derive(Default)]
pub(crate) struct Queue {
    dispatches: Vec<Dispatched>,
}

impl Queue {
    fn full(&self) -> bool {
        self.dispatches.len() >= MAX_IN_FLIGHT
    }

    /// Waits for everything in flight, for a space being dropped: a
    /// failure no synchronization point reported is printed (a drop cannot
    /// return it).
    pub(crate) fn drain(&mut self, device: &dyn Device) {
        let waited = device.synchronize();
        let dispatches = std::mem::take(&mut self.dispatches);
        if let Err(e) = waited {
            let e = attribute(e, &dispatches, device);
            eprintln!(
                "granule-cuda: a failure no synchronization point reported before its Cuda \
                 space was dropped: {e}"
            );
        }
    }
}

impl CudaSpace {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // Every change to the queue is one push or one `take`, so a panic
        // elsewhere cannot have left it half-updated.
        self.inner.queue.lock()
    }

    /// A synchronization point: runs `op`, an operation of the device that
    /// waits for everything issued before it (a synchronization, a copy
    /// between host and device), then forgets the dispatches it waited
    /// for. A failure it reports
    /// ([`DeviceError::Queued`]) becomes a [`DeviceError::Dispatch`] naming
    /// the dispatch that failed, when the space issued it.
    pub(crate) fn waiting<R>(
        &self,
        op: impl FnOnce(&dyn Device) -> Result<R, DeviceError>,
    ) -> Result<R, DeviceError> {
        let mut q = self.queue();
        let result = op(&**self.device());
        let waited = matches!(result, Ok(_) | Err(DeviceError::Queued { .. }));
        if !waited {
            // Refused before it waited (a range, a lost context): the
            // dispatches may still run, and keep their workspace.
            return result;
        }
        let dispatches = std::mem::take(&mut q.dispatches);
        result.map_err(|e| attribute(e, &dispatches, &**self.device()))
    }

    /// [`CudaSpace::waiting`] for a device synchronization.
    pub(crate) fn synchronize(&self) -> Result<(), DeviceError> {
        self.waiting(|d| d.synchronize())
    }

    /// Waits for the dispatches in flight when the space holds as many as
    /// it keeps, so the next one has room.
    pub(crate) fn make_room(&self) -> Result<(), DeviceError> {
        if self.queue().full() {
            return self.synchronize();
        }
        Ok(())
    }

    /// Issues a dispatch: `launch` queues it on the device, and
    /// `dispatched` describes it for a report. The queue is held
    /// meanwhile, so no synchronization point forgets it before it is
    /// recorded.
    pub(crate) fn issue(
        &self,
        launch: impl FnOnce(&dyn Device) -> Result<LaunchId, DeviceError>,
        dispatched: impl FnOnce(LaunchId) -> Dispatched,
    ) -> Result<(), DeviceError> {
        let mut q = self.queue();
        let id = launch(&**self.device())?;
        q.dispatches.push(dispatched(id));
        Ok(())
    }

    /// Workspace a dispatch is done with, though its kernel may still
    /// run: to the cache, which queues its next use behind the kernel.
    pub(crate) fn retire(&self, work: Vec<DeviceBuffer>) {
        for b in work {
            self.release(b);
        }
    }
}

/// The report of `e`, naming the dispatch whose launch failed when
/// `dispatches` has it.
fn attribute(e: DeviceError, dispatches: &[Dispatched], device: &dyn Device) -> DeviceError {
    let DeviceError::Queued {
        launch,
        skipped,
        error,
    } = e
    else {
        return e;
    };
    match dispatches.iter().find(|d| d.launch == launch) {
        Some(d) => DeviceError::Dispatch {
            label: d.label.clone(),
            kernel: d.kernel.clone(),
            device: device.name(),
            views: d.views.clone(),
            skipped,
            error,
        },
        // Another space (or a direct user) of the device issued it.
        None => DeviceError::Queued {
            launch,
            skipped,
            error,
        },
    }
}

/// A failure reported at a synchronization point, as the panic a host
/// space's dispatch would have raised: `at` says where the host learned of
/// it.
pub(crate) fn report(e: &DeviceError, at: &str) -> ! {
    panic!("{e} [reported at {at}]")
}
