//! Stream order: the numbers launches get, and the failure a device holds
//! until the next synchronization reports it (see [`super::Device`]'s
//! "Stream order").

use super::DeviceError;
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

/// The first failure since a device's last synchronization, held until a
/// synchronization reports it. Both devices keep one: the emulator when a
/// launch it ran eagerly failed, a GPU when the driver reported a fault.
#[derive(Debug)]
pub(crate) struct Pending {
    /// The launch that failed; `None` for a failure of the stream that no
    /// launch is known to have caused (a GPU copy or memset).
    launch: Option<LaunchId>,
    error: DeviceError,
    /// Launches issued after the failed one, which did not run.
    after: u64,
}

impl Pending {
    /// `launch` failed with `error`; `after` launches were issued after it.
    pub(crate) fn new(launch: Option<LaunchId>, error: DeviceError, after: u64) -> Self {
        Pending {
            launch,
            error,
            after,
        }
    }

    /// One more launch issued after the failure, which will not run.
    pub(crate) fn skip(&mut self) {
        self.after += 1;
    }

    /// The error a synchronization reports.
    pub(crate) fn report(self) -> DeviceError {
        match self.launch {
            Some(launch) => DeviceError::Queued {
                launch,
                skipped: self.after,
                error: Box::new(self.error),
            },
            None => self.error,
        }
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

    #[test]
    fn a_report_names_the_launch_and_counts_the_skipped_ones() {
        let mut p = Pending::new(Some(LaunchId(3)), fault(), 1);
        p.skip();
        let e = p.report();
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
    fn a_failure_of_no_launch_is_reported_as_it_is() {
        let e = Pending::new(None, fault(), 0).report();
        assert_eq!(e, fault());
    }
}
