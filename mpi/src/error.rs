//! Errors of the MPI layer.

use granule_views::ViewError;
use std::fmt;

/// What went wrong in a View-aware communication.
#[derive(Debug)]
pub enum CommError {
    /// Packing, staging or unpacking a View failed (allocation, copy).
    View(ViewError),
    /// A message did not have the size of the View it was received into.
    SizeMismatch {
        /// The receiving View's label.
        label: String,
        /// The receiving View's extents.
        extents: Vec<usize>,
        /// Elements the View holds.
        expected: usize,
        /// Elements the message held.
        received: usize,
        /// The sender's rank.
        source: i32,
    },
    /// A block decomposition that cannot be built.
    Decomposition(String),
    /// A field given to a halo exchange has the wrong extents.
    FieldShape {
        /// The field's label.
        label: String,
        /// Its extents.
        extents: [usize; 3],
        /// The extents the decomposition gives this rank (owned cells
        /// plus one ghost layer on each side that has a neighbour).
        expected: [usize; 3],
    },
}

impl fmt::Display for CommError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommError::View(e) => write!(f, "{e}"),
            CommError::SizeMismatch {
                label,
                extents,
                expected,
                received,
                source,
            } => write!(
                f,
                "View \"{label}\" (extents {extents:?}) holds {expected} elements, but the \
                 message from rank {source} held {received}: send and receive Views of equal size"
            ),
            CommError::Decomposition(why) => write!(f, "cannot decompose the grid: {why}"),
            CommError::FieldShape {
                label,
                extents,
                expected,
            } => write!(
                f,
                "field \"{label}\" has extents {extents:?}, but this rank's block with its ghost \
                 layers has {expected:?}: allocate it with `Halo::local_extents()`"
            ),
        }
    }
}

impl std::error::Error for CommError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CommError::View(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ViewError> for CommError {
    fn from(e: ViewError) -> Self {
        CommError::View(e)
    }
}

/// The result of the MPI layer's fallible calls.
pub type Result<T> = std::result::Result<T, CommError>;
