//! The typed error of the algorithms.

use granule_views::ViewError;
use std::fmt;

/// What can make an algorithm refuse its arguments. It is returned before
/// anything is written, and names the Views by label and extent.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{copy_if, AlgorithmError};
/// let x = View1::<i32>::from_fn("x", 8, |i| i as i32)?;
/// let mut out = View1::<i32>::full("out", 4, -1)?;
/// let err = copy_if(&Serial, &x, &mut out, |v: i32| v % 2 == 0).unwrap_err();
/// assert!(matches!(err, AlgorithmError::OutputTooSmall { .. }));
/// assert_eq!(out.to_vec(), [-1; 4], "nothing was written");
/// assert!(err.to_string().contains("\"out\" [4]"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AlgorithmError {
    /// Two Views that must have the same length do not.
    LengthMismatch {
        /// The algorithm that was called.
        algorithm: &'static str,
        /// Label of the first View.
        first: String,
        /// Its length.
        first_len: usize,
        /// Label of the second View.
        second: String,
        /// Its length.
        second_len: usize,
    },
    /// An output View is shorter than the algorithm may need.
    OutputTooSmall {
        /// The algorithm that was called.
        algorithm: &'static str,
        /// Label of the output View.
        output: String,
        /// Its length.
        output_len: usize,
        /// The elements it must be able to hold.
        needed: usize,
        /// Why that many (e.g. "the input \"x\" has 8 elements").
        reason: String,
    },
    /// A binning's bins cannot be made: no bins, too many, or a range
    /// that is empty, reversed or not finite.
    InvalidBins {
        /// The algorithm that was called.
        algorithm: &'static str,
        /// What is wrong, with the values given.
        reason: String,
    },
    /// A key lies outside the bins' range (or is NaN): it has no bin.
    KeyOutsideBins {
        /// The algorithm that was called.
        algorithm: &'static str,
        /// Label of the keys View.
        keys: String,
        /// The index of the first such key.
        index: usize,
        /// The key (its components for several dimensions).
        key: String,
        /// The range of the bins.
        range: String,
    },
    /// A View does not have the length the other arguments give it (a
    /// vector beside a matrix).
    ShapeMismatch {
        /// The algorithm that was called.
        algorithm: &'static str,
        /// Label of the View.
        view: String,
        /// Its length.
        len: usize,
        /// The length it must have.
        expected: usize,
        /// Where that length comes from (e.g. "the matrix's columns").
        reason: String,
    },
    /// A sparse matrix's row map does not partition its entries into
    /// rows.
    InvalidRowMap {
        /// Label of the row map View.
        row_map: String,
        /// What is wrong, with the offsets concerned.
        reason: String,
    },
    /// A sparse matrix's entry names a column the matrix does not have.
    ColumnOutOfRange {
        /// Label of the entries (columns) View.
        entries: String,
        /// The entry's index.
        index: usize,
        /// The row it lies in.
        row: usize,
        /// Its column.
        column: u32,
        /// The matrix's column count.
        ncols: usize,
    },
    /// An index or a count given with a View lies past its end.
    OutOfRange {
        /// The algorithm that was called.
        algorithm: &'static str,
        /// What the number is ("count", "middle", "index").
        what: &'static str,
        /// The number given.
        value: usize,
        /// Label of the View.
        view: String,
        /// Its length.
        len: usize,
    },
    /// A temporary buffer could not be made.
    View(ViewError),
}

impl AlgorithmError {
    pub(crate) fn length_mismatch(
        algorithm: &'static str,
        (first, first_len): (&str, usize),
        (second, second_len): (&str, usize),
    ) -> Self {
        AlgorithmError::LengthMismatch {
            algorithm,
            first: first.into(),
            first_len,
            second: second.into(),
            second_len,
        }
    }

    pub(crate) fn out_of_range(
        algorithm: &'static str,
        what: &'static str,
        value: usize,
        (view, len): (&str, usize),
    ) -> Self {
        AlgorithmError::OutOfRange {
            algorithm,
            what,
            value,
            view: view.into(),
            len,
        }
    }

    pub(crate) fn too_small(
        algorithm: &'static str,
        (output, output_len): (&str, usize),
        needed: usize,
        reason: String,
    ) -> Self {
        AlgorithmError::OutputTooSmall {
            algorithm,
            output: output.into(),
            output_len,
            needed,
            reason,
        }
    }
}

impl fmt::Display for AlgorithmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AlgorithmError::LengthMismatch {
                algorithm,
                first,
                first_len,
                second,
                second_len,
            } => write!(
                f,
                "{algorithm}: View \"{first}\" [{first_len}] and View \"{second}\" [{second_len}] must have the same length; nothing was written"
            ),
            AlgorithmError::OutputTooSmall {
                algorithm,
                output,
                output_len,
                needed,
                reason,
            } => write!(
                f,
                "{algorithm}: output View \"{output}\" [{output_len}] must hold at least {needed} elements ({reason}); nothing was written"
            ),
            AlgorithmError::InvalidBins { algorithm, reason } => {
                write!(f, "{algorithm}: {reason}")
            }
            AlgorithmError::KeyOutsideBins {
                algorithm,
                keys,
                index,
                key,
                range,
            } => write!(
                f,
                "{algorithm}: key {index} of \"{keys}\" is {key}, outside the bins' range {range}; nothing was sorted"
            ),
            AlgorithmError::ShapeMismatch {
                algorithm,
                view,
                len,
                expected,
                reason,
            } => write!(
                f,
                "{algorithm}: View \"{view}\" [{len}] must have {expected} elements ({reason}); nothing was written"
            ),
            AlgorithmError::InvalidRowMap { row_map, reason } => write!(
                f,
                "CrsMatrix::new: row map \"{row_map}\" {reason}; row i holds entries row_map[i]..row_map[i + 1]"
            ),
            AlgorithmError::ColumnOutOfRange {
                entries,
                index,
                row,
                column,
                ncols,
            } => write!(
                f,
                "CrsMatrix::new: entry {index} of \"{entries}\" (row {row}) is column {column}, but the matrix has {ncols} columns"
            ),
            AlgorithmError::OutOfRange {
                algorithm,
                what,
                value,
                view,
                len,
            } => write!(
                f,
                "{algorithm}: {what} {value} is past the end of View \"{view}\" [{len}]; nothing was written"
            ),
            AlgorithmError::View(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for AlgorithmError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AlgorithmError::View(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ViewError> for AlgorithmError {
    fn from(e: ViewError) -> Self {
        AlgorithmError::View(e)
    }
}
