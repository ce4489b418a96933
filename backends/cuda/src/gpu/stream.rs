//! The device's stream: what is queued on it, and how a failure that a
//! synchronization finds is traced back to its launch.
//!
//! Launches, device copies and the zeroing of new buffers are queued on
//! one non-blocking stream that the device owns; copies between host and
//! device are queued there too, and waited for (see [`Device`]'s "Stream
//! order"). After each launch the stream writes the launch's number into
//! the progress word (`cuStreamWriteValue32`, in mapped pinned memory,
//! beside the error record). A failing thread copies that word into the
//! record's `failed_after` and stops; the launches after it do nothing.
//! So after a synchronization, a record names the failure, the launch
//! after `failed_after` is the one that failed, and the launches queued
//! since the last wait give its label and entry. A driver without stream
//! writes makes each launch wait for itself instead, so the last launch
//! is the one. A kernel that faults (a sticky error) stops the stream
//! and loses the context: then the failed synchronization is traced by
//! the progress word alone.
//!
//! The failure is held in the device's [`Failures`] until the
//! synchronizations it concerns have reported it (the [`Device`] trait's
//! "Failures"); every launch issued before the next synchronization
//! joins it and is skipped on the host, as the kernels queued behind the
//! failure before the host saw it did nothing on the device.
//!
//! A launch in flight holds its [`Module`]: the module is unloaded only
//! once no queued kernel of it can still run, whoever drops the last
//! other handle meanwhile.
//!
//! [`Device`]: crate::device_api::Device

use super::record::is_sticky;
use super::{describe, GpuDevice};
use crate::device::ErrorRecord;
use crate::device_api::{DeviceError, Failures, LaunchId, Launches, Module};
use cudarc::driver::sys::{self, cudaError_enum, CUstreamWriteValue_flags};
use cudarc::driver::{result, DriverError};
use parking_lot::MutexGuard;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;

/// A launch queued since the last wait, not yet known to have completed.
struct InFlight {
    id: LaunchId,
    /// The launch's module, kept loaded while the kernel may run; its
    /// label names the failure in a report.
    module: Module,
    /// The entry, for the failure's report.
    entry: String,
}

/// What the device has queued on its stream since the last wait.
#[derive(Default)]
pub(super) struct Queue {
    /// The number of the last launch issued.
    issued: u64,
    /// Launches that may not have completed, oldest first.
    in_flight: VecDeque<InFlight>,
    /// Whether anything was queued since the last wait.
    busy: bool,
    /// The failures held for the synchronizations they concern.
    failures: Failures,
}

impl Queue {
    fn next(&mut self) -> LaunchId {
        self.issued += 1;
        LaunchId(self.issued)
    }

    /// A number for a launch issued behind a failure before the next
    /// synchronization, which will not run; `None` when no failure is
    /// open.
    pub(super) fn skip(&mut self) -> Option<LaunchId> {
        if !self.failures.is_open() {
            return None;
        }
        let id = self.next();
        self.failures.skip(id);
        Some(id)
    }

    /// Something was queued.
    pub(super) fn queued(&mut self) {
        self.busy = true;
    }

    /// Holds `error`, the failure of launch `failed` of the launches in
    /// flight, for the synchronizations it concerns: that launch and every
    /// one issued after it (which did nothing). When no launch is known to
    /// have failed, it concerns every launch in flight.
    fn hold(&mut self, failed: Option<usize>, error: DeviceError) {
        let launch = failed.map(|k| self.in_flight[k].id);
        let first = launch
            .or(self.in_flight.front().map(|l| l.id))
            .map_or(self.issued + 1, |l| l.0);
        self.failures.hold(launch, first, self.issued, error);
    }
}

/// Which of `in_flight` failed: the first launch after the one numbered
/// `last_done` (low 32 bits), the last that completed.
fn failed_launch(in_flight: &VecDeque<InFlight>, last_done: u32) -> Option<usize> {
    in_flight.iter().position(|l| !completed(last_done, l.id))
}

/// Whether the launch numbered `id` has completed, when the last launch
/// the stream completed has `progress` for its low 32 bits (launches in
/// flight are fewer than 2^31, so the difference decides).
fn completed(progress: u32, id: LaunchId) -> bool {
    progress.wrapping_sub(id.0 as u32) as i32 >= 0
}

impl GpuDevice {
    pub(super) fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock()
    }

    /// What cuLaunchKernel's `launched` means: the launch's number once it
    /// is queued (and marked), or once it is skipped because an earlier
    /// launch failed (a sticky error); a refusal of the driver, which
    /// queued nothing, is returned.
    pub(super) fn launched(
        &self,
        q: &mut Queue,
        launched: Result<(), DriverError>,
        module: &Module,
        entry: &str,
    ) -> Result<LaunchId, DeviceError> {
        match launched {
            Ok(()) => {
                let id = q.next();
                q.in_flight.push_back(InFlight {
                    id,
                    module: module.clone(),
                    entry: entry.into(),
                });
                q.queued();
                self.mark(q, id);
                self.trim(q);
                Ok(id)
            }
            Err(e) if is_sticky(e) => {
                self.observe(q, e);
                Ok(q.skip().expect("observe holds a failure"))
            }
            Err(e) => Err(DeviceError::Launch {
                label: module.label().into(),
                entry: entry.into(),
                reason: describe(e),
            }),
        }
    }

    /// Queues the write of `id` into the progress word after the launch.
    fn mark(&self, q: &mut Queue, id: LaunchId) {
        let marked = if self.marks.load(Ordering::Relaxed) {
            // SAFETY: the progress word is a 4-byte aligned word of mapped
            // pinned memory of this (current) context, alive until the
            // device drops, which waits for the stream first; the stream
            // is the device's own.
            unsafe {
                sys::cuStreamWriteValue32_v2(
                    self.stream.cu_stream(),
                    self.record.progress_address(),
                    id.0 as u32,
                    CUstreamWriteValue_flags::CU_STREAM_WRITE_VALUE_DEFAULT as u32,
                )
            }
            .result()
        } else {
            Err(DriverError(cudaError_enum::CUDA_ERROR_NOT_SUPPORTED))
        };
        match marked {
            Ok(()) => {}
            Err(e) if is_sticky(e) => self.observe(q, e),
            Err(_) => {
                // No stream writes: a wait now tells where the stream is.
                self.marks.store(false, Ordering::Relaxed);
                self.wait(q);
            }
        }
    }

    /// Forgets the launches the progress word shows complete (and lets
    /// their modules go), so the list stays short between
    /// synchronizations; but none once a failure is recorded, since a
    /// failed launch completes too and the report needs its label.
    fn trim(&self, q: &mut Queue) {
        let progress = self.record.progress();
        if self.record.code() != 0 {
            return;
        }
        while q
            .in_flight
            .front()
            .is_some_and(|l| completed(progress, l.id))
        {
            q.in_flight.pop_front();
        }
    }

    /// Waits for everything queued, if anything was; a failure is held
    /// (while one is open, the first stays). It waits behind a held
    /// failure too: a granule failure (a bounds check, an assertion)
    /// stops no copy or zeroing queued after it. Only a lost context is
    /// not waited for, since nothing runs in it any more. A wait that
    /// fails leaves the stream in no state the host can know, so it loses
    /// the context.
    pub(super) fn wait(&self, q: &mut Queue) {
        if !std::mem::take(&mut q.busy) {
            return;
        }
        if self.lost.lock().is_some() {
            q.in_flight.clear();
            return;
        }
        let synced = self.ctx.bind_to_thread().and_then(|()| {
            // SAFETY: the stream is the device's own, alive until it drops.
            unsafe { result::stream::synchronize(self.stream.cu_stream()) }
        });
        match synced {
            Ok(()) => {
                if self.record.code() != 0 {
                    self.recorded(q);
                }
                q.in_flight.clear();
                // Nothing runs: the host may set the word for what follows.
                self.record.set_progress(q.issued as u32);
            }
            Err(e) => {
                self.observe(q, e);
                if !is_sticky(e) {
                    self.lose(format!(
                        "waiting for the stream failed with {}",
                        describe(e)
                    ));
                    q.in_flight.clear();
                }
            }
        }
    }

    /// After a synchronization, holds the failure a kernel recorded: the
    /// launch after the record's `failed_after` failed, and the launches
    /// after it did nothing. Clears the record and the failure word, so
    /// the device goes on.
    fn recorded(&self, q: &mut Queue) {
        // Without stream writes the progress word is the host's, set at
        // each wait, and each launch waits for itself: the rule holds.
        let failed = failed_launch(&q.in_flight, self.record.failed_after());
        // SAFETY: the stream is idle after the synchronization: no kernel
        // writes the record.
        let record = unsafe { self.record.take() };
        let (error, _) = fault_error(failed.map(|k| &q.in_flight[k]), &record);
        q.hold(failed, error);
        // Stream-ordered before every later launch, which then runs again.
        // Left set, it would make every later launch do nothing.
        match self.record.clear_failure(self.stream.cu_stream()) {
            // Queued: the next wait (a drop's included) waits for it.
            Ok(()) => q.queued(),
            Err(e) => {
                self.lose(format!(
                    "clearing the failure word failed with {}",
                    describe(e)
                ));
            }
        }
    }

    /// A synchronization: waits, lets launches run again after a failure,
    /// then reports the failure that concerns `launches`, or the loss of
    /// the context.
    pub(super) fn sync(&self, q: &mut Queue, launches: Launches<'_>) -> Result<(), DeviceError> {
        self.wait(q);
        q.failures.resume();
        match q.failures.answer(launches) {
            Some(e) => Err(e),
            None => self.alive(),
        }
    }

    /// Holds the failure the driver reported (`e`, from a wait or a call):
    /// which launch failed and why (while a failure is open, the first
    /// stays). A sticky error loses the context, so nothing runs any more:
    /// the record can be read, and the launches in flight are over.
    pub(super) fn observe(&self, q: &mut Queue, e: DriverError) {
        let sticky = is_sticky(e);
        let failed = failed_launch(&q.in_flight, self.record.progress());
        let record = if sticky {
            // SAFETY: a sticky error stopped the context: no kernel runs.
            unsafe { self.record.take() }
        } else {
            ErrorRecord::EMPTY
        };
        let (error, cause) = launch_error(failed.map(|k| &q.in_flight[k]), &record, e);
        q.hold(failed, error);
        if sticky {
            self.lose(cause);
            q.in_flight.clear();
        }
    }

    /// The error of the driver's failure `e` of `what` outside a launch
    /// (an allocation, a copy): with a sticky error, the failure of the
    /// launch behind it is held for the synchronizations it concerns and
    /// the context's loss returned; otherwise `other` of the driver's
    /// words.
    pub(super) fn driver_error(
        &self,
        q: &mut Queue,
        what: &str,
        e: DriverError,
        other: impl FnOnce(String) -> DeviceError,
    ) -> DeviceError {
        if !is_sticky(e) {
            return other(describe(e));
        }
        self.observe(q, e);
        let cause = self.lose(format!("{what} failed with {}", describe(e)));
        self.lost_error(&cause)
    }
}

/// The failure of `culprit` (or of the stream, when no launch is known to
/// have failed) that the driver reported with `e`: the kernel's record
/// when it left one, the driver's words otherwise; and the cause a lost
/// context names.
fn launch_error(
    culprit: Option<&InFlight>,
    record: &ErrorRecord,
    e: DriverError,
) -> (DeviceError, String) {
    if record.code != 0 {
        return fault_error(culprit, record);
    }
    let (label, entry) = names(culprit);
    let mut reason = describe(e);
    let cause = format!("kernel `{label}` ({entry}) failed with {reason}");
    if is_sticky(e) {
        reason.push_str(
            " (the kernel faulted without a record: this device's CUDA context is lost, and \
             every later operation on it fails)",
        );
    }
    (
        DeviceError::Launch {
            label,
            entry,
            reason,
        },
        cause,
    )
}

/// The label and entry of `culprit`, or the stream's when none is known.
fn names(culprit: Option<&InFlight>) -> (String, String) {
    let (label, entry) = culprit.map_or(("the stream", ""), |l| (l.module.label(), &l.entry));
    (label.to_string(), entry.to_string())
}

/// The failure `record` (a nonzero code) reports for `culprit`, and the
/// cause a lost context would name.
fn fault_error(culprit: Option<&InFlight>, record: &ErrorRecord) -> (DeviceError, String) {
    let (label, entry) = names(culprit);
    let fault = record.fault();
    let cause = format!("kernel `{label}` ({entry}) failed: {fault}");
    (
        DeviceError::Fault {
            label,
            entry,
            fault,
        },
        cause,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_is_read_across_the_wrap_of_the_progress_word() {
        assert!(completed(5, LaunchId(5)));
        assert!(completed(5, LaunchId(4)));
        assert!(!completed(5, LaunchId(6)));
        // Launch 2^32 + 1 writes 1; launch 2^32 - 1 completed before it.
        assert!(completed(1, LaunchId((1 << 32) - 1)));
        assert!(!completed(u32::MAX, LaunchId(1 << 32)));
    }

    /// A launch numbered `id` of a module labelled `label`.
    fn in_flight(id: u64, label: &str) -> InFlight {
        InFlight {
            id: LaunchId(id),
            module: Module::new(label, &[], std::sync::Arc::new(())),
            entry: format!("granule_for_{label}"),
        }
    }

    #[test]
    fn the_failed_launch_is_the_one_after_the_last_done() {
        let mut q = Queue::default();
        for id in 3..6 {
            q.in_flight.push_back(in_flight(id, &format!("l{id}")));
        }
        q.issued = 5;
        assert_eq!(failed_launch(&q.in_flight, 2), Some(0));
        assert_eq!(failed_launch(&q.in_flight, 3), Some(1));
        assert_eq!(failed_launch(&q.in_flight, 5), None);
        q.hold(Some(1), DeviceError::UnknownBuffer { address: 0 });
        q.failures.resume();
        let e = q.failures.answer(Launches::All).unwrap();
        assert!(
            matches!(
                e,
                DeviceError::Queued {
                    launch: LaunchId(4),
                    skipped: 1,
                    ..
                }
            ),
            "{e:?}"
        );
    }

    #[test]
    fn a_failure_of_no_known_launch_concerns_those_in_flight() {
        let mut q = Queue::default();
        for id in 3..6 {
            q.in_flight.push_back(in_flight(id, "l"));
        }
        q.issued = 5;
        let stream = DeviceError::UnknownBuffer { address: 0 };
        q.hold(None, stream.clone());
        q.failures.resume();
        assert_eq!(q.failures.answer(Launches::These(&[LaunchId(2)])), None);
        let e = q
            .failures
            .answer(Launches::These(&[LaunchId(3), LaunchId(4), LaunchId(5)]));
        assert_eq!(e, Some(stream));
        assert_eq!(q.failures.answer(Launches::All), None, "answered for");
    }

    #[test]
    fn a_launch_in_flight_keeps_its_module() {
        let l = in_flight(1, "fill");
        let handle = l.module.clone();
        let mut q = Queue::default();
        q.in_flight.push_back(l);
        // Only the in-flight record and the handle hold the module: the
        // dispatch cache that made it may be gone.
        assert_eq!(handle.holders(), 2);
        q.in_flight.clear();
        assert_eq!(handle.holders(), 1);
    }

    #[test]
    fn a_recorded_fault_names_the_launch_and_loses_the_context() {
        let l = in_flight(3, "fill");
        let mut record = ErrorRecord::EMPTY;
        record.code = 2;
        let sticky = DriverError(cudaError_enum::CUDA_ERROR_LAUNCH_FAILED);
        let (e, cause) = launch_error(Some(&l), &record, sticky);
        assert!(
            matches!(&e, DeviceError::Fault { label, .. } if label == "fill"),
            "{e:?}"
        );
        assert_eq!(
            cause,
            "kernel `fill` (granule_for_fill) failed: integer division by zero"
        );
        // (Without a record the driver describes the error, which needs a
        // driver: the GPU tests cover that case.)
    }

    #[test]
    fn skipping_needs_an_open_failure() {
        let mut q = Queue::default();
        assert_eq!(q.skip(), None);
        q.issued = 1;
        q.failures.hold(
            Some(LaunchId(1)),
            1,
            1,
            DeviceError::UnknownBuffer { address: 0 },
        );
        assert_eq!(q.skip(), Some(LaunchId(2)));
        q.failures.resume();
        assert_eq!(q.skip(), None, "the device resumed");
        let e = q.failures.answer(Launches::All).unwrap();
        assert!(matches!(e, DeviceError::Queued { skipped: 1, .. }), "{e:?}");
    }
}
