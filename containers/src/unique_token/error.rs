//! Why a token operation was refused.

use granule_views::ViewError;
use std::fmt;

/// Why a [`UniqueToken`](super::UniqueToken) operation was refused.
///
/// ```
/// use granule::containers::{TokenError, UniqueToken};
/// use granule::prelude::*;
/// let e = UniqueToken::with_size_on(&Serial, 0).unwrap_err();
/// assert_eq!(e, TokenError::ZeroSize);
/// assert!(e.to_string().contains("at least one id"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenError {
    /// A token of 0 ids was asked for.
    ZeroSize,
    /// A token too large to allocate its locks.
    TooLarge {
        /// The size asked for.
        size: usize,
    },
    /// `release` of an id past the token's size.
    OutOfRange {
        /// The id.
        id: usize,
        /// The token's size.
        size: usize,
    },
    /// `release` of an id nobody holds.
    NotHeld {
        /// The id.
        id: usize,
        /// The token's size.
        size: usize,
    },
    /// `rows` was given a View with fewer rows than the token has ids.
    TooFewRows {
        /// The View's label.
        label: String,
        /// Its rows (extent 0).
        rows: usize,
        /// The token's size.
        size: usize,
    },
    /// Allocating the locks failed.
    View(ViewError),
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::ZeroSize => write!(
                f,
                "UniqueToken: a token needs at least one id (with_size_on was given 0)"
            ),
            TokenError::TooLarge { size } => {
                write!(f, "UniqueToken: {size} ids do not fit in memory")
            }
            TokenError::OutOfRange { id, size } => write!(
                f,
                "UniqueToken: release of id {id}, but the token has {size} ids (0..{size})"
            ),
            TokenError::NotHeld { id, size } => write!(
                f,
                "UniqueToken: release of id {id} (of {size}), which is not held; \
                 release only ids that acquire returned, once each"
            ),
            TokenError::TooFewRows { label, rows, size } => write!(
                f,
                "UniqueToken: View \"{label}\" has {rows} rows, but the token has {size} ids: \
                 allocate [token.size(), ..]"
            ),
            TokenError::View(e) => write!(f, "UniqueToken: {e}"),
        }
    }
}

impl std::error::Error for TokenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TokenError::View(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ViewError> for TokenError {
    fn from(e: ViewError) -> Self {
        TokenError::View(e)
    }
}
