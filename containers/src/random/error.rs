//! Typed errors of the random number pools.

use std::fmt;

/// What can go wrong when making a pool or asking it for numbers on the
/// host. Inside kernels the same mistakes panic, naming the pool.
///
/// ```
/// use granule::containers::random::{RandomError, XorShift64Pool};
/// let err = XorShift64Pool::with_states("rng", 1, 0).unwrap_err();
/// assert!(matches!(err, RandomError::EmptyPool { .. }));
/// assert!(err.to_string().contains("\"rng\""));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum RandomError {
    /// A pool of zero states: no work item could draw from it.
    EmptyPool {
        /// The pool's label.
        label: String,
    },
    /// A state index at or past the pool's size.
    StateOutOfRange {
        /// The pool's label.
        label: String,
        /// The index asked for.
        index: usize,
        /// The pool's number of states.
        num_states: usize,
    },
    /// More states than the pool's counter can keep apart
    /// (`MAX_STATES` of the pool type).
    TooManyStates {
        /// The pool's label.
        label: String,
        /// The number of states asked for.
        num_states: usize,
        /// The most the pool type can have.
        max: u64,
    },
    /// A range to draw from that is empty, reversed, not finite, or whose
    /// width overflows its type.
    InvalidRange {
        /// The pool's label.
        label: String,
        /// The lower bound, as written.
        start: String,
        /// The upper bound (exclusive), as written.
        end: String,
        /// Why the range cannot be drawn from.
        reason: &'static str,
    },
}

impl fmt::Display for RandomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyPool { label } => write!(
                f,
                "random pool \"{label}\" has no states: make it with at least one (e.g. the space's concurrency)"
            ),
            Self::StateOutOfRange { label, index, num_states } => write!(
                f,
                "random pool \"{label}\": state {index} asked for, but the pool has {num_states} states (0..{num_states})"
            ),
            Self::TooManyStates { label, num_states, max } => write!(
                f,
                "random pool \"{label}\": {num_states} states asked for, but this kind of pool keeps at most {max} apart (each state is a distinct run of its counter)"
            ),
            Self::InvalidRange { label, start, end, reason } => write!(
                f,
                "random pool \"{label}\": cannot draw from {start}..{end}: {reason}"
            ),
        }
    }
}

impl std::error::Error for RandomError {}
