//! [`PortableAlgorithms`]: the algorithms a program generic over the
//! space may call, in one bound.

use crate::reduce::adapt::Loc;
use crate::reduce::ReduceImpl;
use crate::scan::{Identity, ScanImpl};
use crate::sort::{BinSortSpace, SortImpl};
use crate::sparse::SpmvImpl;
use granule_core::reducer::{MaxLoc, Sum, ValLocScalar};

/// A [`PortableSpace`](granule_core::PortableSpace) that also runs the
/// algorithms an application generic over the space needs: the
/// [`BinSort`](crate::sort::BinSort) (every key and element type), the
/// `Sum` scans ([`exclusive_scan`](crate::exclusive_scan),
/// [`inclusive_scan`](crate::inclusive_scan) and their in-place forms) of
/// the index and number types, [`sort`](fn@crate::sort) of them, and
/// [`CrsMatrix`](crate::sparse::CrsMatrix) and its
/// [`spmv`](crate::sparse::spmv) of `f32` and `f64` values. Serial,
/// Rayon and Cuda have it (a blanket impl): a driver bounded by
/// `S: PortableAlgorithms` calls the patterns of `granule::portable` and
/// these algorithms with no further bound.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sort::{BinOp1D, BinSort};
/// use granule::algorithms::PortableAlgorithms;
/// use granule::views::PortableMemory;
///
/// // Items ordered by cell, and the cells' offsets, on any space.
/// fn by_cell<S: PortableAlgorithms>(space: &S, x: &[f64]) -> (Vec<u64>, Vec<usize>) {
///     let n = x.len();
///     let keys = View1::from_vec_on(space, "x", n, x.to_vec()).unwrap();
///     let bins = BinSort::new(space, &keys, &BinOp1D::new(2, 0.0, 1.0).unwrap()).unwrap();
///     let mut id = View1::from_fn_on(space, "id", n, |i| i as u64).unwrap();
///     bins.sort(&mut id).unwrap();
///     let counts = View1::from_vec_on(space, "counts", 3, vec![2usize, 0, 3]).unwrap();
///     let mut starts = View1::zeros_on(space, "starts", 3).unwrap();
///     exclusive_scan(space, &counts, &mut starts, Sum, None).unwrap();
///     (host(&id), host(&starts))
/// }
///
/// fn host<T: Element, M: PortableMemory>(v: &View1<T, LayoutRight, M>) -> Vec<T> {
///     create_mirror_view_and_copy(v).unwrap().as_view().to_vec()
/// }
/// assert_eq!(by_cell(&Serial, &[0.9, 0.1, 0.6, 0.2]), (vec![1, 3, 0, 2], vec![0, 2, 2]));
/// ```
pub trait PortableAlgorithms:
    BinSortSpace
    + ScanImpl<usize, usize, Sum, Identity>
    + ScanImpl<u32, u32, Sum, Identity>
    + ScanImpl<u64, u64, Sum, Identity>
    + ScanImpl<i32, i32, Sum, Identity>
    + ScanImpl<i64, i64, Sum, Identity>
    + ScanImpl<f32, f32, Sum, Identity>
    + ScanImpl<f64, f64, Sum, Identity>
    + SortImpl<u32, u32>
    + SortImpl<u64, u64>
    + SortImpl<i32, i32>
    + SortImpl<i64, i64>
    + SortImpl<f32, f32>
    + SortImpl<f64, f64>
    + SpmvImpl<f32>
    + SpmvImpl<f64>
    + ReduceImpl<u32, ValLocScalar<u32, usize>, MaxLoc, Loc>
{
}

impl<S> PortableAlgorithms for S where
    S: BinSortSpace
        + ScanImpl<usize, usize, Sum, Identity>
        + ScanImpl<u32, u32, Sum, Identity>
        + ScanImpl<u64, u64, Sum, Identity>
        + ScanImpl<i32, i32, Sum, Identity>
        + ScanImpl<i64, i64, Sum, Identity>
        + ScanImpl<f32, f32, Sum, Identity>
        + ScanImpl<f64, f64, Sum, Identity>
        + SortImpl<u32, u32>
        + SortImpl<u64, u64>
        + SortImpl<i32, i32>
        + SortImpl<i64, i64>
        + SortImpl<f32, f32>
        + SortImpl<f64, f64>
        + SpmvImpl<f32>
        + SpmvImpl<f64>
        + ReduceImpl<u32, ValLocScalar<u32, usize>, MaxLoc, Loc>
{
}
