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
//! asks it about the launches of the dispatches in flight
//! ([`Device::synchronize_for`]): the device holds a failure until every
//! space whose dispatch failed or was skipped behind it has been told, so
//! the point reports [`DeviceError::Dispatch`] when one of the space's
//! dispatches failed, [`DeviceError::Skipped`] when one did not run
//! behind another space's failure, and nothing when the space's work all
//! completed. Another space's synchronization, or a space's drop, takes
//! nothing from this one.
//!
//! Soundness does not rest on this bookkeeping: the device itself makes
//! every host copy and every free wait for the work queued before it (the
//! `Device` trait's "Stream order"). What this adds is the label in the
//! report, and a bound: a space keeps at most [`MAX_IN_FLIGHT`] dispatches
//! before the next dispatch waits for them.

use super::memory::CudaSpace;
use crate::device_api::{Device, DeviceBuffer, DeviceError, LaunchId, Launches};
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

    /// The space's synchronization with `device`: waits, and reports the
    /// oldest failure the device holds that concerns one of the
    /// dispatches in flight, naming the dispatch. The dispatches it
    /// answered for are forgotten; those after the reported failure's
    /// range stay, since a later failure may concern them, and the next
    /// synchronization point asks about them again.
    fn answer(&mut self, device: &dyn Device) -> Result<(), DeviceError> {
        let launches: Vec<LaunchId> = self.dispatches.iter().map(|d| d.launch).collect();
        let Err(e) = device.synchronize_for(Launches::These(&launches)) else {
            self.dispatches.clear();
            return Ok(());
        };
        let report = attribute(&e, &self.dispatches, device);
        match e {
            DeviceError::Queued {
                launch, skipped, ..
            } => {
                let end = launch.0.saturating_add(skipped);
                self.dispatches.retain(|d| d.launch.0 > end);
            }
            _ => self.dispatches.clear(),
        }
        Err(report)
    }

    /// Waits for everything in flight, for a space being dropped: each
    /// failure that concerns the space's dispatches and that no
    /// synchronization point reported is an error event (a drop cannot
    /// return it). A failure that concerns other spaces too stays for them.
    pub(crate) fn drain(&mut self, device: &dyn Device) {
        loop {
            let told = self.answer(device);
            if let Err(e) = &told {
                tracing::error!(
                    "a failure no synchronization point reported before its Cuda space was \
                     dropped: {e}"
                );
            }
            if told.is_ok() || self.dispatches.is_empty() {
                return;
            }
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
    /// waits for everything issued before it (a copy between host and
    /// device, or nothing), then asks the device about the space's
    /// dispatches in flight. A failure that concerns one of them is the
    /// error, before `op`'s own: [`DeviceError::Dispatch`] naming the
    /// dispatch that failed, [`DeviceError::Skipped`] naming the first of
    /// the space's dispatches that did not run behind another's failure.
    /// A copy behind such a failure has moved what the device held; the
    /// error says why those bytes are not the dispatches' results.
    pub(crate) fn waiting<R>(
        &self,
        op: impl FnOnce(&dyn Device) -> Result<R, DeviceError>,
    ) -> Result<R, DeviceError> {
        let mut q = self.queue();
        let device = &**self.device();
        let result = op(device);
        if matches!(&result, Err(e) if !matches!(e, DeviceError::Unavailable { .. })) {
            // Refused before it waited (a range, an unknown buffer): the
            // dispatches may still run, and stay for the next point. A lost
            // device is asked, since the failure that lost it may be one
            // of the space's.
            return result;
        }
        q.answer(device)?;
        result
    }

    /// [`CudaSpace::waiting`] for nothing but the synchronization.
    pub(crate) fn synchronize(&self) -> Result<(), DeviceError> {
        self.waiting(|_| Ok(()))
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

/// The report of the device's `e` to a space with `dispatches` in
/// flight: naming the dispatch whose launch failed when the space issued
/// it, else the first of the space's dispatches that did not run behind
/// it.
fn attribute(e: &DeviceError, dispatches: &[Dispatched], device: &dyn Device) -> DeviceError {
    let DeviceError::Queued {
        launch,
        skipped,
        error,
    } = e
    else {
        return e.clone();
    };
    if let Some(d) = dispatches.iter().find(|d| d.launch == *launch) {
        return DeviceError::Dispatch {
            label: d.label.clone(),
            kernel: d.kernel.clone(),
            device: device.name(),
            views: d.views.clone(),
            skipped: *skipped,
            error: error.clone(),
        };
    }
    let end = launch.0.saturating_add(*skipped);
    let mut not_run = dispatches
        .iter()
        .filter(|d| d.launch > *launch && d.launch.0 <= end);
    match not_run.next() {
        Some(first) => DeviceError::Skipped {
            label: first.label.clone(),
            kernel: first.kernel.clone(),
            device: device.name(),
            dispatches: 1 + not_run.count() as u64,
            error: Box::new(e.clone()),
        },
        // A device that reports a failure none of the space's dispatches
        // met: its report as it is.
        None => e.clone(),
    }
}

/// A failure reported at a synchronization point, as the panic a host
/// space's dispatch would have raised: `at` says where the host learned of
/// it.
pub(crate) fn report(e: &DeviceError, at: &str) -> ! {
    panic!("{e} [reported at {at}]")
}
