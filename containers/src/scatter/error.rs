//! What can go wrong making or using a ScatterView.

use granule_views::ViewError;
use std::fmt;

/// The errors of [`ScatterView`](super::ScatterView) operations.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ScatterError {
    /// Allocating the copies failed, or their size overflows.
    View(ViewError),
    /// `contribute_into` was given a View whose extents differ from the
    /// ScatterView's.
    ExtentMismatch {
        /// The ScatterView's label.
        label: String,
        /// The target View's label.
        target: String,
        /// The ScatterView's extents.
        expected: Vec<usize>,
        /// The target View's extents.
        got: Vec<usize>,
    },
    /// The strategy needs plain writes by host threads, which the memory
    /// space does not allow (a device's memory: use `Atomic`).
    StrategyUnavailable {
        /// The ScatterView's label.
        label: String,
        /// The strategy asked for.
        strategy: super::ScatterStrategy,
        /// The memory space's name.
        space: &'static str,
    },
}

impl fmt::Display for ScatterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScatterError::View(e) => write!(f, "{e}"),
            ScatterError::ExtentMismatch {
                label,
                target,
                expected,
                got,
            } => write!(
                f,
                "ScatterView \"{label}\" has extents {expected:?} but View \"{target}\" has extents {got:?}; \
                 contribute into a View of the same extents"
            ),
            ScatterError::StrategyUnavailable {
                label,
                strategy,
                space,
            } => write!(
                f,
                "ScatterView \"{label}\": the {strategy:?} strategy writes copies from host threads, \
                 but memory space {space} is not host-accessible; use ScatterStrategy::Atomic"
            ),
        }
    }
}

impl std::error::Error for ScatterError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScatterError::View(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ViewError> for ScatterError {
    fn from(e: ViewError) -> Self {
        ScatterError::View(e)
    }
}
