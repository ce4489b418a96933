//! Stream order: the numbers launches get, and the failures a device holds
//! until every synchronization they concern has reported them (see
//! [`super::Device`]'s "Stream order" and "Failures").
//!
//! A device has one stream and several users (the `Cuda` spaces over it,
//! each with its own synchronization points), so a failure is not handed
//! to whichever caller synchronizes first. It is a record of the launch
//! that failed and of the launches that did not run because of it; a
//! synchronization names the launches its caller answers for
//! ([`Launches`]), is told of the oldest failure among them, and the
//! record goes once every launch it concerns has been answered for.

use super::DeviceError;
use std::collections::VecDeque;
use std::fmt;

/// A launch's number on its device, in the order launches were issued
/// (the first is 1). [`super::Device::launch`] returns it, and a failure
/// that a later synchronization reports ([`DeviceError::Queued`]) names
/// the launch by it.
///
/// ```
/// use granule_cuda::device_api::LaunchId;
/// assert!(LaunchId(2) > LaunchId(1));
/// assert_eq!(LaunchId(7).to_string(), "#7");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LaunchId(pub u64);

impl fmt::Display for LaunchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The launches a synchronization answers for: it is told of a failure
/// only when the failure concerns one of them (see
/// [`super::Device::synchronize_for`]).
///
/// ```
/// use granule_cuda::device_api::{LaunchId, Launches};
/// let mine = [LaunchId(3), LaunchId(5)];
/// assert!(Launches::These(&mine).contains(LaunchId(5)));
/// assert!(!Launches::These(&mine).contains(LaunchId(4)));
/// assert!(Launches::All.contains(LaunchId(4)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launches<'a> {
    /// Every launch of the device: the caller owns it, and nobody else
    /// needs to be told of its failures ([`super::Device::synchronize`]).
    All,
    /// The launches the caller issued since its last synchronization (a
    /// `Cuda` space's dispatches), each passed to one synchronization
    /// that reports a failure concerning it, and to no other.
    These(&'a [LaunchId]),
}

impl Launches<'_> {
    /// Whether `id` is one of them.
    pub fn contains(&self, id: LaunchId) -> bool {
        match self {
            Launches::All => true,
            Launches::These(ids) => ids.contains(&id),
        }
    }

    /// How many of them lie in `first..=last` (`None`: all of those).
    fn count_in(&self, first: u64, last: u64) -> Option<u64> {
        match self {
            Launches::All => None,
            Launches::These(ids) => {
                Some(ids.iter().filter(|l| (first..=last).contains(&l.0)).count() as u64)
            }
        }
    }
}

/// One failure, and the launches it concerns: `first..=last`, the failed
/// launch (or, when none is known, the launches that were in flight) and
/// every launch issued after it until the device resumed, none of which
/// ran.
#[derive(Debug)]
struct Failure {
    /// The launch that failed; `None` for a failure of the stream that no
    /// launch is known to have caused (a GPU's copy or memset).
    launch: Option<LaunchId>,
    error: DeviceError,
    first: u64,
    last: u64,
    /// How many launches of `first..=last` no synchronization has
    /// answered for yet.
    unanswered: u64,
}

impl Failure {
    fn concerns_no_launch(&self) -> bool {
        self.first > self.last
    }

    /// The error a synchronization reports: [`DeviceError::Queued`] naming
    /// the launch, whose `skipped` launches after it are the rest of the
    /// range, or the stream's own error.
    fn report(&self) -> DeviceError {
        match self.launch {
            Some(launch) => DeviceError::Queued {
                launch,
                skipped: self.last - launch.0,
                error: Box::new(self.error.clone()),
            },
            None => self.error.clone(),
        }
    }
}

/// The failures a device holds, oldest first, until the synchronizations
/// they concern have reported them. Both devices keep one: the emulator
/// when a launch it ran eagerly failed, a GPU when a kernel's record or
/// the driver reported a fault.
///
/// The newest failure stays open until the device's next synchronization:
/// meanwhile every launch issued joins it and does not run (the GPU's
/// failure word makes it do nothing; the emulator skips it). Then the
/// device resumes, and later launches run.
#[derive(Debug, Default)]
pub(crate) struct Failures {
    held: VecDeque<Failure>,
    open: bool,
}

impl Failures {
    /// Whether a failure is open: launches issued now do not run.
    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// Holds `error`, the failure of `launch` (or of the stream, when
    /// `None`), concerning the launches from `first` to `issued`, the last
    /// one issued; it stays open until [`Failures::resume`]. While a
    /// failure is open, a later one is its consequence (the launches after
    /// the first do nothing), so the first stays and this one is dropped.
    pub(crate) fn hold(
        &mut self,
        launch: Option<LaunchId>,
        first: u64,
        issued: u64,
        error: DeviceError,
    ) {
        if self.open {
            return;
        }
        let unanswered = (issued + 1).saturating_sub(first);
        self.held.push_back(Failure {
            launch,
            error,
            first,
            last: issued,
            unanswered,
        });
        self.open = true;
    }

    /// Launch `id`, the newest, joins the open failure and will not run;
    /// `false` when no failure is open (the launch runs).
    pub(crate) fn skip(&mut self, id: LaunchId) -> bool {
        let Some(f) = self.held.back_mut().filter(|_| self.open) else {
            return false;
        };
        f.first = f.first.min(id.0);
        f.last = id.0;
        f.unanswered += 1;
        true
    }

    /// The device's synchronization: launches issued from now on run.
    pub(crate) fn resume(&mut self) {
        self.open = false;
    }

    /// What a synchronization answering for `launches` is told: the
    /// oldest failure that concerns one of them, or that concerns no launch
    /// at all (a failure of the stream, told to whoever synchronizes
    /// next). The launches of its range among `launches` are answered
    /// for; the failure is forgotten once all of its launches are (at
    /// once for [`Launches::All`]). A later failure among `launches` is
    /// left for the next synchronization, which names again those after
    /// this one's range.
    pub(crate) fn answer(&mut self, launches: Launches<'_>) -> Option<DeviceError> {
        let at = self.held.iter().position(|f| {
            f.concerns_no_launch()
                || match launches {
                    Launches::All => true,
                    Launches::These(ids) => ids.iter().any(|l| (f.first..=f.last).contains(&l.0)),
                }
        })?;
        let f = &mut self.held[at];
        let report = f.report();
        let answered = launches.count_in(f.first, f.last).unwrap_or(f.unanswered);
        f.unanswered = f.unanswered.saturating_sub(answered);
        let forget = f.concerns_no_launch() || f.unanswered == 0;
        // The open failure stays while launches still join it.
        if forget && !(self.open && at + 1 == self.held.len()) {
            self.held.remove(at);
        }
        Some(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault() -> DeviceError {
        DeviceError::Fault {
            label: "k".into(),
            entry: "granule_for_k".into(),
            fault: super::super::Fault::DivisionByZero,
        }
    }

    /// Launch 3 failed, and launches 4 and 5 were issued before the device
    /// resumed.
    fn three_of_five() -> Failures {
        let mut f = Failures::default();
        f.hold(Some(LaunchId(3)), 3, 4, fault());
        assert!(f.skip(LaunchId(5)));
        f.resume();
        assert!(!f.skip(LaunchId(6)), "the device resumed");
        f
    }

    #[test]
    fn a_report_names_the_launch_and_counts_the_skipped_ones() {
        let e = three_of_five().answer(Launches::All).unwrap();
        assert!(
            matches!(&e, DeviceError::Queued { launch: LaunchId(3), skipped: 2, error } if **error == fault()),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(text.contains("launch #3"), "{text}");
        assert!(text.contains("integer division by zero"), "{text}");
        assert!(
            text.contains("the 2 launches issued after it did not run"),
            "{text}"
        );
        assert_eq!(e.cause(), &fault());
    }

    #[test]
    fn every_caller_with_a_launch_in_the_range_is_told_once() {
        let mut f = three_of_five();
        // Launches 1 and 2 completed before the failure, 6 ran after it.
        assert_eq!(f.answer(Launches::These(&[LaunchId(1), LaunchId(2)])), None);
        assert_eq!(f.answer(Launches::These(&[LaunchId(6)])), None);
        assert_eq!(f.answer(Launches::These(&[])), None);
        let a = [LaunchId(2), LaunchId(3), LaunchId(5)];
        assert!(f.answer(Launches::These(&a)).is_some());
        // The other caller's skipped launch 4 is still to be told.
        let b = [LaunchId(4)];
        let e = f.answer(Launches::These(&b)).unwrap();
        assert!(
            matches!(
                e,
                DeviceError::Queued {
                    launch: LaunchId(3),
                    ..
                }
            ),
            "{e}"
        );
        assert!(f.held.is_empty(), "every launch was answered for");
        assert_eq!(f.answer(Launches::These(&b)), None);
    }

    #[test]
    fn the_oldest_failure_is_told_first_and_the_later_one_next() {
        let mut f = three_of_five();
        f.hold(Some(LaunchId(8)), 8, 8, fault());
        f.resume();
        let mine = [LaunchId(4), LaunchId(8)];
        let e = f.answer(Launches::These(&mine)).unwrap();
        assert!(
            matches!(
                e,
                DeviceError::Queued {
                    launch: LaunchId(3),
                    skipped: 2,
                    ..
                }
            ),
            "{e}"
        );
        // The caller passes again what lies after the first one's range.
        let e = f.answer(Launches::These(&mine[1..])).unwrap();
        assert!(
            matches!(
                e,
                DeviceError::Queued {
                    launch: LaunchId(8),
                    skipped: 0,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn a_failure_while_one_is_open_is_its_consequence() {
        let mut f = Failures::default();
        f.hold(Some(LaunchId(1)), 1, 1, fault());
        f.hold(None, 2, 2, DeviceError::UnknownBuffer { address: 0 });
        f.resume();
        let e = f.answer(Launches::All).unwrap();
        assert!(
            matches!(
                e,
                DeviceError::Queued {
                    launch: LaunchId(1),
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(f.answer(Launches::All), None);
    }

    #[test]
    fn a_failure_of_no_launch_is_told_to_the_next_synchronization() {
        let mut f = Failures::default();
        f.hold(None, 1, 0, fault());
        f.resume();
        assert_eq!(f.answer(Launches::These(&[])), Some(fault()));
        assert_eq!(f.answer(Launches::These(&[])), None);
    }
}
