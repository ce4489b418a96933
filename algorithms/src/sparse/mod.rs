//! Sparse matrices: [`CrsMatrix`], a matrix in compressed-row storage
//! whose structure is checked once when it is made, and [`spmv`], `y =
//! beta y + alpha A x` with it (KokkosSparse's `CrsMatrix` and `spmv`).
//!
//! Row `i` holds the entries `row_map[i]..row_map[i + 1]`: their columns
//! in `entries`, their values in `values`. Because [`CrsMatrix::new`]
//! refuses a row map that does not partition the entries and a column
//! that is not below the column count, and the matrix never hands out its
//! structure for writing, [`spmv`] reads `x` at the entries' columns with
//! no per-entry bounds check on the host spaces; only the lengths of `x`
//! and `y` are checked, once per call. Each row's products are summed in
//! entry order, so the result is the same bits on every space and thread
//! count.
//!
//! ```
//! use granule::prelude::*;
//! use granule::algorithms::sparse::{spmv, CrsMatrix};
//!
//! // [[2, -1, 0], [-1, 2, -1], [0, -1, 2]]
//! let space = Rayon::new(2)?;
//! let row_map = View1::from_vec_on(&space, "row_map", 4, vec![0, 2, 5, 7])?;
//! let entries = View1::from_vec_on(&space, "entries", 7, vec![0, 1, 0, 1, 2, 1, 2])?;
//! let values = View1::from_vec_on(&space, "values", 7, vec![2.0, -1.0, -1.0, 2.0, -1.0, -1.0, 2.0])?;
//! let a = CrsMatrix::new(&space, 3, row_map, entries, values)?;
//! let x = View1::from_vec_on(&space, "x", 3, vec![1.0, 2.0, 3.0])?;
//! let mut y = View1::zeros_on(&space, "y", 3)?;
//! spmv(&space, 1.0, &a, &x, 0.0, &mut y)?;
//! assert_eq!(y.to_vec(), [0.0, 0.0, 4.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "cuda")]
mod cuda;
mod host;
mod kernels;

#[doc(hidden)]
pub use kernels::{spmv_f32, spmv_f64, KERNELS as SPMV_KERNELS};

use crate::reduce::adapt::Loc;
use crate::reduce::ReduceImpl;
use crate::{max_element, AlgorithmError};
use granule_core::reducer::{MaxLoc, ValLocScalar};
use granule_core::ExecutionSpace;
use granule_views::{
    create_mirror_view_and_copy, Element, HostSpace, LayoutRight, MemorySpace, SpaceCopy, View1,
};

/// A sparse matrix in compressed-row storage, in memory space `M`: `nrows`
/// rows, `ncols` columns, `nnz` stored entries. Its structure (`row_map`
/// and `entries`) is checked when it is made and can be read but not
/// written afterwards; its values can be written
/// ([`values_mut`](Self::values_mut)).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sparse::CrsMatrix;
/// // The 2 x 3 matrix [[1, 0, 2], [0, 3, 0]].
/// let row_map = View1::from_vec("row_map", 3, vec![0, 2, 3])?;
/// let entries = View1::from_vec("entries", 3, vec![0, 2, 1])?;
/// let values = View1::from_vec("values", 3, vec![1.0f32, 2.0, 3.0])?;
/// let mut a = CrsMatrix::new(&Serial, 3, row_map, entries, values)?;
/// assert_eq!((a.nrows(), a.ncols(), a.nnz()), (2, 3, 3));
/// a.values_mut()[2] = 4.0;
/// assert_eq!(a.values().to_vec(), [1.0, 2.0, 4.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct CrsMatrix<T: Element, M: MemorySpace = HostSpace> {
    ncols: usize,
    row_map: View1<usize, LayoutRight, M>,
    entries: View1<u32, LayoutRight, M>,
    values: View1<T, LayoutRight, M>,
}

/// The Views of a [`CrsMatrix`]: row map, columns, values.
pub type CrsParts<T, M> = (
    View1<usize, LayoutRight, M>,
    View1<u32, LayoutRight, M>,
    View1<T, LayoutRight, M>,
);

/// The Views of a [`CrsMatrix`] lent at once: the structure to read,
/// the values to write.
pub type CrsPartsMut<'a, T, M> = (
    &'a View1<usize, LayoutRight, M>,
    &'a View1<u32, LayoutRight, M>,
    &'a mut View1<T, LayoutRight, M>,
);

impl<T: Element, M: MemorySpace> CrsMatrix<T, M> {
    /// The matrix of `ncols` columns whose row `i` holds entries
    /// `row_map[i]..row_map[i + 1]`, at columns `entries[k]` with values
    /// `values[k]`. The row map is read on the host (a copy for device
    /// memory) and the largest column is found on `space`.
    ///
    /// # Errors
    /// [`AlgorithmError::InvalidRowMap`] if the row map is empty, does
    /// not start at 0, decreases, or does not end at the number of
    /// entries; [`AlgorithmError::LengthMismatch`] if `entries` and
    /// `values` differ in length; [`AlgorithmError::ColumnOutOfRange`]
    /// naming the entry and its row if a column is not below `ncols`;
    /// [`AlgorithmError::View`] if the row map cannot be copied.
    ///
    /// ```
    /// use granule::prelude::*;
    /// use granule::algorithms::{sparse::CrsMatrix, AlgorithmError};
    /// let row_map = View1::from_vec("row_map", 3, vec![0, 1, 2])?;
    /// let entries = View1::from_vec("entries", 2, vec![0u32, 5])?;
    /// let values = View1::from_vec("values", 2, vec![1.0, 1.0])?;
    /// let err = CrsMatrix::new(&Serial, 2, row_map, entries, values).unwrap_err();
    /// assert!(matches!(err, AlgorithmError::ColumnOutOfRange { index: 1, row: 1, column: 5, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new<S>(
        space: &S,
        ncols: usize,
        row_map: View1<usize, LayoutRight, M>,
        entries: View1<u32, LayoutRight, M>,
        values: View1<T, LayoutRight, M>,
    ) -> Result<Self, AlgorithmError>
    where
        S: ExecutionSpace<MemorySpace = M> + ReduceImpl<u32, ValLocScalar<u32, usize>, MaxLoc, Loc>,
        HostSpace: SpaceCopy<M>,
    {
        // The View itself for host memory, a copy of it for device memory.
        let mirror = create_mirror_view_and_copy(&row_map)?;
        let mirror = mirror.as_view();
        let rows = mirror
            .as_slice()
            .expect("a LayoutRight mirror is contiguous");
        check_row_map(row_map.label(), rows, entries.size())?;
        crate::io::same_len(
            "CrsMatrix::new",
            (entries.label(), entries.size()),
            (values.label(), values.size()),
        )?;
        if let Some((index, column)) = max_element(space, &entries) {
            if column as usize >= ncols {
                return Err(AlgorithmError::ColumnOutOfRange {
                    entries: entries.label().into(),
                    index,
                    row: rows.partition_point(|&start| start <= index) - 1,
                    column,
                    ncols,
                });
            }
        }
        Ok(CrsMatrix {
            ncols,
            row_map,
            entries,
            values,
        })
    }

    /// The number of rows.
    pub fn nrows(&self) -> usize {
        self.row_map.size() - 1
    }
    /// The number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.entries.size()
    }
    /// The row map: `nrows + 1` offsets into the entries.
    pub fn row_map(&self) -> &View1<usize, LayoutRight, M> {
        &self.row_map
    }
    /// The column of each entry.
    pub fn entries(&self) -> &View1<u32, LayoutRight, M> {
        &self.entries
    }
    /// The value of each entry.
    pub fn values(&self) -> &View1<T, LayoutRight, M> {
        &self.values
    }
    /// The values, to write.
    pub fn values_mut(&mut self) -> &mut View1<T, LayoutRight, M> {
        &mut self.values
    }
    /// The structure to read and the values to write at once, for a
    /// kernel that updates values by row (`Offsets::new(row_map)` gives
    /// the rows' segments of the values).
    pub fn parts_mut(&mut self) -> CrsPartsMut<'_, T, M> {
        (&self.row_map, &self.entries, &mut self.values)
    }
    /// The row map, columns and values, giving the matrix up.
    pub fn into_parts(self) -> CrsParts<T, M> {
        (self.row_map, self.entries, self.values)
    }
}

/// Refuses a row map that does not partition `nnz` entries into rows.
fn check_row_map(label: &str, rows: &[usize], nnz: usize) -> Result<(), AlgorithmError> {
    let invalid = |reason: String| AlgorithmError::InvalidRowMap {
        row_map: label.into(),
        reason,
    };
    let (Some(&first), Some(&last)) = (rows.first(), rows.last()) else {
        return Err(invalid(
            "is empty: a matrix of n rows takes n + 1 offsets".into(),
        ));
    };
    if first != 0 {
        return Err(invalid(format!("starts at {first}, not 0")));
    }
    if let Some(i) = rows.windows(2).position(|w| w[1] < w[0]) {
        return Err(invalid(format!(
            "decreases: entry {i} is {} and entry {} is {}",
            rows[i],
            i + 1,
            rows[i + 1]
        )));
    }
    if last != nnz {
        return Err(invalid(format!(
            "ends at {last}, but the matrix has {nnz} entries"
        )));
    }
    Ok(())
}

/// How an execution space computes `y = beta y + alpha A x`. Implemented
/// for Serial and Rayon (`host.rs`) and, with the `cuda` feature, for
/// Cuda (`cuda.rs`), for `f32` and `f64`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sparse::SpmvImpl;
/// fn multiplies<S: SpmvImpl<f64>>(_: &S) {}
/// multiplies(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no sparse matrix-vector product of `{T}`",
    note = "spmv runs on Serial, Rayon and Cuda for f32 and f64"
)]
pub trait SpmvImpl<T: Element>: ExecutionSpace {
    /// `y = beta y + alpha A x`, with `x.size() == a.ncols()` and
    /// `y.size() == a.nrows()` (checked by [`spmv`]).
    fn spmv(
        &self,
        alpha: T,
        a: &CrsMatrix<T, Self::MemorySpace>,
        x: &View1<T, LayoutRight, Self::MemorySpace>,
        beta: T,
        y: &mut View1<T, LayoutRight, Self::MemorySpace>,
    );
}

/// `y = beta y + alpha A x` (KokkosSparse's `spmv` with mode "N"). With
/// `beta == 0`, `y` is overwritten and not read (NaNs in it do not
/// spread); with `alpha == 0`, `A` and `x` are not read. Row `i` is
/// `alpha * (A[i, k0] x[k0] + A[i, k1] x[k1] + ...)` summed in entry
/// order, then added to `beta * y[i]`: the same bits on every space.
///
/// # Errors
/// [`AlgorithmError::ShapeMismatch`] if `x` does not have `a.ncols()`
/// elements or `y` does not have `a.nrows()`; nothing is written.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sparse::{spmv, CrsMatrix};
/// let space = Serial;
/// // The 2 x 2 matrix [[1, 2], [0, 3]].
/// let row_map = View1::from_vec("row_map", 3, vec![0, 2, 3])?;
/// let entries = View1::from_vec("entries", 3, vec![0, 1, 1])?;
/// let values = View1::from_vec("values", 3, vec![1.0, 2.0, 3.0])?;
/// let a = CrsMatrix::new(&space, 2, row_map, entries, values)?;
/// let x = View1::from_vec("x", 2, vec![1.0, 1.0])?;
/// let mut y = View1::from_vec("y", 2, vec![10.0, 20.0])?;
/// spmv(&space, 2.0, &a, &x, 0.5, &mut y)?;   // y = 0.5 y + 2 A x
/// assert_eq!(y.to_vec(), [11.0, 16.0]);
/// let mut short = View1::zeros("short", 1)?;
/// assert!(spmv(&space, 1.0, &a, &x, 0.0, &mut short).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn spmv<S, T>(
    space: &S,
    alpha: T,
    a: &CrsMatrix<T, S::MemorySpace>,
    x: &View1<T, LayoutRight, S::MemorySpace>,
    beta: T,
    y: &mut View1<T, LayoutRight, S::MemorySpace>,
) -> Result<(), AlgorithmError>
where
    S: SpmvImpl<T>,
    T: Element,
{
    shape(
        "spmv",
        x.label(),
        x.size(),
        a.ncols(),
        "the matrix's columns",
    )?;
    shape("spmv", y.label(), y.size(), a.nrows(), "the matrix's rows")?;
    space.spmv(alpha, a, x, beta, y);
    Ok(())
}

fn shape(
    algorithm: &'static str,
    view: &str,
    len: usize,
    expected: usize,
    what: &str,
) -> Result<(), AlgorithmError> {
    if len == expected {
        return Ok(());
    }
    Err(AlgorithmError::ShapeMismatch {
        algorithm,
        view: view.into(),
        len,
        expected,
        reason: what.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_map_must_partition_the_entries() {
        let reason = |rows: &[usize], nnz| match check_row_map("rm", rows, nnz) {
            Err(AlgorithmError::InvalidRowMap { row_map, reason }) => {
                assert_eq!(row_map, "rm");
                reason
            }
            other => panic!("{rows:?}, {nnz}: {other:?}"),
        };
        assert!(reason(&[], 0).contains("empty"));
        assert_eq!(reason(&[1, 2], 2), "starts at 1, not 0");
        assert_eq!(
            reason(&[0, 3, 2, 4], 4),
            "decreases: entry 1 is 3 and entry 2 is 2"
        );
        assert_eq!(
            reason(&[0, 1, 3], 4),
            "ends at 3, but the matrix has 4 entries"
        );
        assert!(check_row_map("rm", &[0], 0).is_ok());
        assert!(check_row_map("rm", &[0, 0, 2, 2], 2).is_ok());
    }
}
