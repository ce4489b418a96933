//! Typed errors for View construction, subviews, copies and atomics.

use std::fmt;

/// Everything that can go wrong when making, slicing or copying a View.
///
/// Each variant carries what a user needs to fix the call: the label, the
/// offending extents, ranges or sizes.
///
/// ```
/// use granule_views::{View2, ViewError};
/// let err = View2::<f64>::zeros("a", [usize::MAX, 2]).unwrap_err();
/// assert!(matches!(err, ViewError::SizeOverflow { .. }));
/// assert!(err.to_string().contains("\"a\""));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewError {
    /// The product of the extents (or the byte count) does not fit in `usize`/`isize`.
    SizeOverflow {
        /// Label of the View being made.
        label: String,
        /// The requested extents.
        extents: Vec<usize>,
        /// Size of one element in bytes.
        elem_bytes: usize,
    },
    /// The memory space could not provide the allocation.
    Allocation {
        /// Label of the View being made.
        label: String,
        /// Bytes requested.
        bytes: usize,
        /// Name of the memory space.
        space: &'static str,
        /// What the space reported.
        reason: String,
    },
    /// A zero extent where the operation needs at least one element.
    ZeroExtent {
        /// Label of the View or object.
        label: String,
        /// Which rank (dimension) is zero.
        rank: usize,
        /// All extents.
        extents: Vec<usize>,
    },
    /// A buffer handed in (`from_vec`, `from_slice`) has the wrong length.
    LengthMismatch {
        /// Label of the View being made.
        label: String,
        /// The requested extents.
        extents: Vec<usize>,
        /// Elements the extents and strides need.
        needed: usize,
        /// Elements the buffer has.
        got: usize,
    },
    /// Explicit strides that make distinct indices overlap or are otherwise unusable.
    InvalidStrides {
        /// Label of the View being made.
        label: String,
        /// The requested extents.
        extents: Vec<usize>,
        /// The requested strides.
        strides: Vec<usize>,
        /// Why they were rejected.
        reason: &'static str,
    },
    /// A subview range reaches past the extent, or is reversed.
    SubviewOutOfBounds {
        /// Label of the parent View.
        label: String,
        /// The rank the bad argument applies to.
        rank: usize,
        /// The argument as written (`3..12`, `7`).
        arg: String,
        /// The parent's extent in that rank.
        extent: usize,
    },
    /// `deep_copy` between Views of different extents; nothing was written.
    ShapeMismatch {
        /// Label of the destination.
        dst_label: String,
        /// Extents of the destination.
        dst_extents: Vec<usize>,
        /// Label of the source.
        src_label: String,
        /// Extents of the source.
        src_extents: Vec<usize>,
    },
    /// Raw memory handed to atomics is not aligned for the atomic type.
    Misaligned {
        /// Label of the View.
        label: String,
        /// Alignment the atomic type needs.
        needed: usize,
    },
    /// An element type aligned more strictly than the memory space's
    /// allocations ([`ALLOC_ALIGN`](crate::space::ALLOC_ALIGN) bytes).
    Overaligned {
        /// Label of the View being made.
        label: String,
        /// The element type.
        elem_type: &'static str,
        /// Its alignment in bytes.
        align: usize,
        /// The alignment allocations have.
        max: usize,
    },
    /// A memory-space copy failed (for example a device transfer).
    Copy {
        /// Label of the destination.
        dst_label: String,
        /// What went wrong.
        reason: String,
    },
    /// Setting a View's elements to one value failed (for example a
    /// device launch).
    Fill {
        /// Label of the View.
        label: String,
        /// What went wrong.
        reason: String,
    },
}

fn dims(v: &[usize]) -> String {
    let parts: Vec<String> = v.iter().map(|e| e.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewError::SizeOverflow { label, extents, elem_bytes } => write!(
                f,
                "View \"{label}\": extents {} of {elem_bytes}-byte elements overflow the address space",
                dims(extents)
            ),
            ViewError::Allocation { label, bytes, space, reason } => write!(
                f,
                "View \"{label}\": {space} could not allocate {bytes} bytes: {reason}"
            ),
            ViewError::ZeroExtent { label, rank, extents } => write!(
                f,
                "\"{label}\": extent {rank} of {} is zero, which is not allowed here",
                dims(extents)
            ),
            ViewError::LengthMismatch { label, extents, needed, got } => write!(
                f,
                "View \"{label}\": extents {} need {needed} elements but the buffer has {got}",
                dims(extents)
            ),
            ViewError::InvalidStrides { label, extents, strides, reason } => write!(
                f,
                "View \"{label}\": strides {} for extents {} are invalid: {reason}",
                dims(strides),
                dims(extents)
            ),
            ViewError::SubviewOutOfBounds { label, rank, arg, extent } => write!(
                f,
                "subview of \"{label}\": argument {arg} for rank {rank} is outside the extent {extent}"
            ),
            ViewError::ShapeMismatch { dst_label, dst_extents, src_label, src_extents } => write!(
                f,
                "deep_copy into \"{dst_label}\" {} from \"{src_label}\" {}: extents differ, nothing was copied",
                dims(dst_extents),
                dims(src_extents)
            ),
            ViewError::Misaligned { label, needed } => write!(
                f,
                "View \"{label}\": data is not {needed}-byte aligned as its atomic type needs"
            ),
            ViewError::Overaligned { label, elem_type, align, max } => write!(
                f,
                "View \"{label}\": element type {elem_type} needs {align}-byte alignment, but \
                 allocations are {max}-byte aligned; wrap an aligned slice with ViewMut::from_slice_mut, \
                 or use team scratch, which honours any alignment"
            ),
            ViewError::Copy { dst_label, reason } => {
                write!(f, "copy into \"{dst_label}\" failed: {reason}")
            }
            ViewError::Fill { label, reason } => {
                write!(f, "fill of \"{label}\" failed: {reason}")
            }
        }
    }
}

impl std::error::Error for ViewError {}

/// Shorthand for results of View operations.
pub type Result<T, E = ViewError> = std::result::Result<T, E>;
