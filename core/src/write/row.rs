//! Row writes: under a [`RangePolicy`](crate::RangePolicy), work item `i`
//! owns row `i` of each written View of rank 2 or more, the elements
//! `(i, ..)`: an MD code's force `f(i, k)` on an `[n, 3]` View, or one row
//! of a matrix.
//!
//! ```
//! use granule_core::prelude::*;
//! let x = View2::<f64>::from_fn("x", [4, 3], |[i, k]| (i * 3 + k) as f64).unwrap();
//! let mut f = View2::<f64>::zeros("f", [4, 3]).unwrap();
//! parallel_for("scale", RangePolicy::new(&Serial, 0..4), &mut f, |i, mut fi: Row<f64, 2>| {
//!     for k in 0..fi.len() {
//!         fi[k] = -2.0 * x[[i, k]];
//!     }
//! });
//! assert_eq!(f[[3, 2]], -22.0);
//! ```
//!
//! The item is row `i` and nothing else: another row cannot be named, and
//! an index past the row's extents panics with the View's label.
//!
//! ```should_panic
//! use granule_core::prelude::*;
//! let mut f = View2::<f64>::zeros("f", [4, 3]).unwrap();
//! parallel_for("past", RangePolicy::new(&Serial, 0..4), &mut f, |_, mut fi: Row<f64, 2>| fi[3] = 1.0);
//! ```

use super::{view_parts, ViewParts, WriteParts, Writes};
use crate::kernel::{DeviceArg, DeviceValue, DeviceWrites, SameMemorySpace};
use granule_views::storage::StorageMut;
use granule_views::{Element, HostAccessible, Layout, MemorySpace, ViewBase};
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// Row `i` of a written View of rank `R`: the elements `(i, ..)`, indexed
/// by the `R - 1` trailing indices (`row[k]` for rank 2, `row[[j, k]]`
/// for rank 3). Only a pattern hands one out, to work item `i`.
pub struct Row<'a, T, const R: usize> {
    /// Element `(i, 0, ..)`.
    ptr: *mut T,
    strides: [usize; R],
    extents: [usize; R],
    row: usize,
    label: &'a str,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a Row is a unique borrow of its elements, like `&mut [T]`.
unsafe impl<T: Send, const R: usize> Send for Row<'_, T, R> {}
// SAFETY: shared access only reads, like `&[T]`.
unsafe impl<T: Sync, const R: usize> Sync for Row<'_, T, R> {}

impl<T, const R: usize> Row<'_, T, R> {
    /// The row's index `i` in the View.
    pub fn index(&self) -> usize {
        self.row
    }

    /// The extent of the row's rank `r` (the View's rank `r + 1`).
    ///
    /// # Panics
    /// If `r` is not below `R - 1`.
    pub fn extent(&self, r: usize) -> usize {
        assert!(
            r + 1 < R,
            "row of \"{}\" has rank {}, asked for extent {r}",
            self.label,
            R - 1
        );
        self.extents[r + 1]
    }

    /// The number of elements of the row.
    pub fn len(&self) -> usize {
        self.extents[1..].iter().product()
    }

    /// Whether the row has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The offset from the row's first element, or the panic naming the
    /// View, the row and the extents.
    #[inline(always)]
    fn offset(&self, tail: &[usize]) -> usize {
        let inside = tail.iter().zip(&self.extents[1..]).all(|(k, n)| k < n);
        if !inside {
            out_of_row(self.label, self.row, tail, &self.extents);
        }
        tail.iter()
            .zip(&self.strides[1..])
            .map(|(k, s)| k * s)
            .sum()
    }
}

impl<'a, T> Row<'a, T, 2> {
    /// The row as a slice when its elements are contiguous (a
    /// `LayoutRight` View), else `None`.
    pub fn as_mut_slice(&mut self) -> Option<&mut [T]> {
        (self.strides[1] == 1 || self.extents[1] <= 1).then(|| {
            // SAFETY: the row's `extents[1]` elements follow each other
            // from `ptr`, and the Row borrows them uniquely.
            unsafe { std::slice::from_raw_parts_mut(self.ptr, self.extents[1]) }
        })
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_row(label: &str, row: usize, tail: &[usize], extents: &[usize]) -> ! {
    panic!("row {row} of View \"{label}\": index {tail:?} is outside the row's extents {:?} (the View's are {extents:?})", &extents[1..])
}

macro_rules! row_rank {
    ($r:literal, $idx:ty, $tail:expr) => {
        impl<T> Index<$idx> for Row<'_, T, $r> {
            type Output = T;
            #[inline(always)]
            #[track_caller]
            fn index(&self, k: $idx) -> &T {
                let off = self.offset(&$tail(k));
                // SAFETY: `offset` checked the index against the row's
                // extents, so the element is one of the row's.
                unsafe { &*self.ptr.add(off) }
            }
        }

        impl<T> IndexMut<$idx> for Row<'_, T, $r> {
            #[inline(always)]
            #[track_caller]
            fn index_mut(&mut self, k: $idx) -> &mut T {
                let off = self.offset(&$tail(k));
                // SAFETY: as for `index`; `&mut self` lends it uniquely.
                unsafe { &mut *self.ptr.add(off) }
            }
        }
    };
}

row_rank!(2, usize, |k: usize| [k]);
row_rank!(3, [usize; 2], |k: [usize; 2]| k);
row_rank!(4, [usize; 3], |k: [usize; 3]| k);
row_rank!(5, [usize; 4], |k: [usize; 4]| k);
row_rank!(6, [usize; 5], |k: [usize; 5]| k);
row_rank!(7, [usize; 6], |k: [usize; 6]| k);
row_rank!(8, [usize; 7], |k: [usize; 7]| k);

macro_rules! row_writes {
    ($($r:literal),*) => { $(
        // SAFETY: rows of distinct indices are disjoint (distinct in-bounds
        // multi-indices have distinct offsets, a Mapping invariant), and a
        // Row reaches only `(i, ..)` within the extents; `covers` admits
        // only rows below the View's first extent.
        unsafe impl<T, V, M> WriteParts<usize, M> for ViewParts<'_, T, $r, V>
        where
            T: Element,
            V: MemorySpace + SameMemorySpace<M>,
            M: MemorySpace,
        {
            type Item<'a> = Row<'a, T, $r>;
            #[inline(always)]
            fn covers(&self, reach: &usize) -> bool {
                *reach <= self.extents[0]
            }
            #[inline(always)]
            unsafe fn item<'a>(&self, i: usize) -> Row<'a, T, $r>
            where
                M: HostAccessible,
            {
                // SAFETY: the caller keeps the item within the parts' life,
                // which is the View's borrow, so the label outlives it.
                let label: &'a str = unsafe { &*(self.label as *const str) };
                Row {
                    // SAFETY: `i` is below the covered first extent, so
                    // element `(i, 0, ..)` is inside the View's span.
                    ptr: unsafe { self.ptr.add(i * self.strides[0]) },
                    strides: self.strides,
                    extents: self.extents,
                    row: i,
                    label,
                    _borrow: PhantomData,
                }
            }
        }

        // SAFETY: the parts take the View's `&mut` for 'v and hold its
        // extents, which `view_parts` checked against the bound.
        unsafe impl<'v, S, L> Writes<usize> for &'v mut ViewBase<S, $r, L>
        where
            S: StorageMut,
            L: Layout,
        {
            type Parts = ViewParts<'v, S::Elem, $r, S::Space>;
            #[track_caller]
            fn into_parts(self, label: &str, bound: usize) -> Self::Parts {
                let mut reach = [0; $r];
                reach[0] = bound;
                view_parts(self, label, reach)
            }
        }

        // SAFETY: the parts hold the View's unique borrow; the device
        // driver hands work item `i` row `i` only, and `covers` is the
        // host parts' own bound.
        unsafe impl<T, V, M> DeviceWrites<usize, M> for ViewParts<'_, T, $r, V>
        where
            T: DeviceValue,
            V: MemorySpace + SameMemorySpace<M>,
            M: MemorySpace,
        {
            type Outputs = Row<'static, T, $r>;
            fn covers(&self, reach: &usize) -> bool {
                *reach <= self.extents[0]
            }
            fn device_args<'s>(&'s self, out: &mut Vec<DeviceArg<'s>>) {
                out.push(DeviceArg::Written(self.view_arg()));
            }
        }
    )* };
}
row_writes!(2, 3, 4, 5, 6, 7, 8);

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn each_item_writes_its_row_in_every_layout() {
        let mut r = View3::<i64>::zeros("r", [5, 2, 3]).unwrap();
        let mut l = View3::<i64, LayoutLeft>::zeros("l", [5, 2, 3]).unwrap();
        parallel_for(
            "rows",
            RangePolicy::new(&Serial, 0..5),
            (&mut r, &mut l),
            |i, (mut a, mut b): (Row<i64, 3>, Row<i64, 3>)| {
                for j in 0..a.extent(0) {
                    for k in 0..a.extent(1) {
                        a[[j, k]] = (100 * i + 10 * j + k) as i64;
                        b[[j, k]] = -a[[j, k]];
                    }
                }
            },
        );
        r.for_each(|[i, j, k], &v| assert_eq!(v, (100 * i + 10 * j + k) as i64));
        l.for_each(|[i, j, k], &v| assert_eq!(v, -((100 * i + 10 * j + k) as i64)));
    }

    #[test]
    fn a_right_row_is_a_slice_and_a_left_one_is_not() {
        let mut r = View2::<u8>::zeros("r", [3, 4]).unwrap();
        let mut l = View2::<u8, LayoutLeft>::zeros("l", [3, 4]).unwrap();
        parallel_for(
            "slices",
            RangePolicy::new(&Serial, 0..3),
            (&mut r, &mut l),
            |i, (mut a, mut b): (Row<u8, 2>, Row<u8, 2>)| {
                a.as_mut_slice().expect("contiguous").fill(i as u8 + 1);
                assert!(b.as_mut_slice().is_none());
                assert_eq!((a.index(), a.len(), b.is_empty()), (i, 4, false));
            },
        );
        assert_eq!(r.to_vec(), [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    }

    #[test]
    #[should_panic(
        expected = "row 1 of View \"f\": index [0, 3] is outside the row's extents [2, 3]"
    )]
    fn an_index_past_the_row_names_the_view_and_the_row() {
        let mut f = View3::<f64>::zeros("f", [2, 2, 3]).unwrap();
        parallel_for(
            "past",
            RangePolicy::new(&Serial, 1..2),
            &mut f,
            |_, mut fi: Row<f64, 3>| fi[[0, 3]] = 1.0,
        );
    }

    #[test]
    #[should_panic(expected = "written View \"f\" has extents [2, 3]")]
    fn a_range_past_the_rows_is_refused_before_any_item() {
        let mut f = View2::<f64>::zeros("f", [2, 3]).unwrap();
        parallel_for(
            "short",
            RangePolicy::new(&Serial, 0..3),
            &mut f,
            |_, _: Row<f64, 2>| {},
        );
    }
}
