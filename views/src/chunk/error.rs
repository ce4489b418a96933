//! Typed errors of chunk maps, thread ids and chunking.

use std::fmt;

/// What can go wrong when making thread ids, a map or a chunk.
///
/// A violated map precondition is one of these, never a silent overlap.
///
/// ```
/// use granule_views::chunk::{ChunkError, ChunkMap, MapLinear};
/// let err = MapLinear::new(2).check([4, 2, 1]).unwrap_err();
/// assert!(matches!(err, ChunkError::Precondition { .. }));
/// assert!(err.to_string().contains("dim_y"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkError {
    /// A scope with zero groups along an axis.
    ZeroThreads {
        /// Groups per axis.
        dims: [usize; 3],
        /// The axis (0 = x) that is zero.
        axis: usize,
    },
    /// Thread ids outside their scope's dims.
    ThreadIdOutOfRange {
        /// Groups per axis.
        dims: [usize; 3],
        /// The ids given (for a linear id: `[g, 0, 0]`).
        ids: [usize; 3],
    },
    /// A size computation does not fit in `usize`.
    Overflow {
        /// What was being computed.
        what: &'static str,
    },
    /// A map parameter that must be positive is zero.
    ZeroParameter {
        /// The map.
        map: &'static str,
        /// The parameter.
        param: &'static str,
    },
    /// The scope's dims violate the map's precondition.
    Precondition {
        /// The map.
        map: &'static str,
        /// The scope's groups per axis.
        dims: [usize; 3],
        /// The precondition, as a formula.
        requires: &'static str,
    },
    /// A reshape dimension with a zero extent.
    ZeroExtent {
        /// `"local"` or `"thread"`.
        side: &'static str,
        /// Which dimension (0 = lowest).
        dim: usize,
    },
    /// More reshape dimensions than a map holds, or none.
    DimCount {
        /// `"local"` or `"thread"`.
        side: &'static str,
        /// How many were given.
        count: usize,
        /// The most allowed.
        max: usize,
    },
    /// A reshape layout that is not a permutation of the dimensions.
    BadLayout {
        /// What is wrong with it.
        reason: String,
    },
    /// Two accesses own the same element: a map broke its contract.
    Overlap {
        /// The element.
        global: usize,
        /// Linear thread id and local index of the first owner.
        first: (usize, String),
        /// Linear thread id and local index of the second owner.
        second: (usize, String),
    },
}

impl fmt::Display for ChunkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChunkError::ZeroThreads { dims, axis } => {
                write!(f, "thread dims {dims:?}: axis {axis} has zero groups")
            }
            ChunkError::ThreadIdOutOfRange { dims, ids } => {
                write!(
                    f,
                    "thread ids {ids:?} are outside the scope's dims {dims:?}"
                )
            }
            ChunkError::Overflow { what } => write!(f, "{what} overflows usize"),
            ChunkError::ZeroParameter { map, param } => {
                write!(f, "{map}: {param} must be at least 1")
            }
            ChunkError::Precondition {
                map,
                dims,
                requires,
            } => {
                write!(
                    f,
                    "{map} requires {requires}, but the scope's dims are {dims:?}"
                )
            }
            ChunkError::ZeroExtent { side, dim } => {
                write!(f, "reshape map: {side} dimension {dim} has a zero extent")
            }
            ChunkError::DimCount { side, count, max } => {
                write!(
                    f,
                    "reshape map: {count} {side} dimensions given; 1..={max} are allowed"
                )
            }
            ChunkError::BadLayout { reason } => write!(f, "reshape map: invalid layout: {reason}"),
            ChunkError::Overlap {
                global,
                first,
                second,
            } => write!(
                f,
                "element {global} is owned by thread {} (local {}) and by thread {} (local {})",
                first.0, first.1, second.0, second.1
            ),
        }
    }
}

impl std::error::Error for ChunkError {}
