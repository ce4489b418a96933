//! Interop with the [ndarray](https://docs.rs/ndarray/0.16) crate (feature `ndarray`).
//!
//! Host Views and ndarray views describe the same thing (a pointer, extents
//! and element strides), so borrowed conversions copy nothing, in both
//! directions and for every layout:
//! - [`ViewBase::as_array`] and [`ViewBase::as_array_mut`] lend a host View
//!   (owned, a subview, any layout) as an `ArrayView`/`ArrayViewMut` with
//!   the View's strides;
//! - [`ViewRef::from_array`] and [`ViewMut::from_array_mut`] lend an
//!   ndarray view as a [`LayoutStride`] View, refused with
//!   [`ViewError::InvalidStrides`] when ndarray has a negative stride
//!   (granule's strides are non-negative) or a zero one that would alias.
//!
//! Owned conversions copy once: [`View::from_ndarray`] into a new View of
//! any layout, [`ViewBase::to_ndarray`] into a row-major `Array`.
//!
//! The borrows follow the write model: an `ArrayViewMut` of a View holds
//! the View's `&mut`, and a `ViewMut` of an array holds the array's.

use crate::element::Element;
use crate::error::{Result, ViewError};
use crate::layout::{Layout, LayoutStride, Mapping};
use crate::space::{HostAccessible, HostSpace};
use crate::storage::{Borrowed, BorrowedMut, Storage, StorageMut};
use crate::view::{View, ViewBase, ViewMut, ViewRef};
use ::ndarray::{
    Array, ArrayView, ArrayViewMut, Dimension, IntoDimension, Ix1, Ix2, Ix3, Ix4, Ix5, Ix6,
    ShapeBuilder,
};
use std::borrow::Cow;
use std::ptr::NonNull;

/// The ndarray dimension type of rank `R` (`Ix1` for 1, ..., `Ix6`).
pub type NdDim<const R: usize> = <[usize; R] as IntoDimension>::Dim;

/// The ndarray dimension types of a fixed rank `R`, which is how a
/// conversion from an ndarray view knows the View's rank.
pub trait NdRank<const R: usize>: Dimension {}

macro_rules! nd_ranks {
    ($($ix:ident = $r:literal),*) => {
        $(impl NdRank<$r> for $ix {})*
    };
}
nd_ranks!(Ix1 = 1, Ix2 = 2, Ix3 = 3, Ix4 = 4, Ix5 = 5, Ix6 = 6);

impl<S: Storage, const R: usize, L: Layout> ViewBase<S, R, L>
where
    S::Space: HostAccessible,
    [usize; R]: IntoDimension,
{
    /// The View as an ndarray view of the same elements, with the View's
    /// extents and strides: no copy.
    ///
    /// ```
    /// use granule_views::{View2, LayoutLeft};
    /// let v = View2::<i32, LayoutLeft>::from_fn("v", [2, 3], |[i, j]| (10 * i + j) as i32).unwrap();
    /// let a = v.as_array();
    /// assert_eq!(a[[1, 2]], 12);
    /// assert_eq!(a.strides(), &[1, 2]);
    /// ```
    pub fn as_array(&self) -> ArrayView<'_, S::Elem, NdDim<R>> {
        let shape = self
            .extents()
            .into_dimension()
            .strides(self.strides().into_dimension());
        // SAFETY: the View's mapping is valid for its storage (every index
        // in bounds maps inside the allocation, host-accessible by the
        // bound), its strides fit in `isize` (spans are allocation sizes),
        // the pointer is aligned for `S::Elem`, and `&self` keeps writers
        // away for the returned borrow.
        unsafe { ArrayView::from_shape_ptr(shape, self.as_ptr()) }
    }

    /// A row-major `Array` holding a copy of the View's elements (one
    /// copy, whatever the View's layout).
    ///
    /// ```
    /// use granule_views::{View2, LayoutLeft};
    /// let v = View2::<f64, LayoutLeft>::from_fn("v", [2, 2], |[i, j]| (2 * i + j) as f64).unwrap();
    /// let a = v.to_ndarray();
    /// assert_eq!(a, ndarray::array![[0.0, 1.0], [2.0, 3.0]]);
    /// assert!(a.is_standard_layout());
    /// ```
    pub fn to_ndarray(&self) -> Array<S::Elem, NdDim<R>> {
        let shape = self.extents().into_dimension();
        Array::from_shape_vec(shape, self.to_vec())
            .expect("to_vec gives the View's size elements in row-major order")
    }
}

impl<S: StorageMut, const R: usize, L: Layout> ViewBase<S, R, L>
where
    S::Space: HostAccessible,
    [usize; R]: IntoDimension,
{
    /// The View as a mutable ndarray view of the same elements: writes
    /// through it are the View's. No copy.
    ///
    /// ```
    /// use granule_views::View1;
    /// let mut v = View1::<i64>::zeros("v", 4).unwrap();
    /// v.as_array_mut().fill(7);
    /// assert_eq!(v.to_vec(), [7, 7, 7, 7]);
    /// ```
    pub fn as_array_mut(&mut self) -> ArrayViewMut<'_, S::Elem, NdDim<R>> {
        let shape = self
            .extents()
            .into_dimension()
            .strides(self.strides().into_dimension());
        // SAFETY: as in `as_array`; in addition `&mut self` makes the
        // access unique, and a View's mapping never gives two indices one
        // offset (checked when the mapping is made), as ndarray requires
        // of a mutable view.
        unsafe { ArrayViewMut::from_shape_ptr(shape, self.as_mut_ptr()) }
    }
}

/// Extents and non-negative element strides of an ndarray view, or the
/// error naming the negative stride.
fn shape_of<const R: usize>(
    label: &str,
    shape: &[usize],
    strides: &[isize],
) -> Result<([usize; R], [usize; R])> {
    let extents: [usize; R] = shape
        .try_into()
        .expect("an ndarray view of rank R has R extents");
    let mut out = [0usize; R];
    for (r, &s) in strides.iter().enumerate() {
        out[r] = usize::try_from(s).map_err(|_| ViewError::InvalidStrides {
            label: label.into(),
            extents: extents.to_vec(),
            strides: strides.iter().map(|s| s.unsigned_abs()).collect(),
            reason: "the array has a negative stride (granule's strides are non-negative: \
                     copy it, or invert the axis, first)",
        })?;
    }
    Ok((extents, out))
}

impl<'a, T: Element, const R: usize> ViewRef<'a, T, R, LayoutStride, HostSpace> {
    /// An ndarray view as a View of the same elements (no copy), with its
    /// strides: a transposed or sliced array gives a strided View.
    ///
    /// ```
    /// use granule_views::ViewRef;
    /// let a = ndarray::array![[1, 2, 3], [4, 5, 6]];
    /// let t = a.t();
    /// let v = ViewRef::from_array("t", t).unwrap();
    /// assert_eq!((v.extents(), v.strides()), ([3, 2], [1, 3]));
    /// assert_eq!(v[[2, 1]], 6);
    /// ```
    pub fn from_array<D: NdRank<R>>(
        label: impl Into<Cow<'a, str>>,
        a: ArrayView<'a, T, D>,
    ) -> Result<Self> {
        let label = label.into();
        let (extents, strides) = shape_of::<R>(&label, a.shape(), a.strides())?;
        let map = Mapping::with_strides(&label, extents, strides)?;
        let ptr = NonNull::new(a.as_ptr().cast_mut()).expect("ndarray's pointers are not null");
        // SAFETY: ndarray guarantees every in-bounds index of `a` maps to
        // a valid element for 'a, with the same extents and (checked
        // non-negative) strides as `map`, so `map`'s offsets from the
        // first element's address stay in that memory; `a` is a shared
        // borrow for 'a, and host memory is host-accessible.
        let storage = unsafe { Borrowed::new(ptr, HostSpace, label) };
        Ok(ViewBase::from_raw(storage, map))
    }
}

impl<'a, T: Element, const R: usize> ViewMut<'a, T, R, LayoutStride, HostSpace> {
    /// A mutable ndarray view as a View (no copy): writes through the View
    /// are the array's.
    ///
    /// ```
    /// use granule_views::ViewMut;
    /// let mut a = ndarray::Array2::<f32>::zeros((2, 3));
    /// {
    ///     let mut v = ViewMut::from_array_mut("a", a.view_mut()).unwrap();
    ///     v[[1, 2]] = 5.0;
    /// }
    /// assert_eq!(a[[1, 2]], 5.0);
    /// ```
    pub fn from_array_mut<D: NdRank<R>>(
        label: impl Into<Cow<'a, str>>,
        mut a: ArrayViewMut<'a, T, D>,
    ) -> Result<Self> {
        let label = label.into();
        let (extents, strides) = shape_of::<R>(&label, a.shape(), a.strides())?;
        let map = Mapping::with_strides(&label, extents, strides)?;
        let ptr = NonNull::new(a.as_mut_ptr()).expect("ndarray's pointers are not null");
        // SAFETY: as in `from_array`; `a` is the unique borrow of its
        // elements for 'a, and `map` was checked to give distinct indices
        // distinct offsets, so the View's `&mut` elements never alias.
        let storage = unsafe { BorrowedMut::new(ptr, HostSpace, label) };
        Ok(ViewBase::from_raw(storage, map))
    }
}

impl<T: Element, const R: usize, L: Layout> View<T, R, L, HostSpace> {
    /// A new host View of layout `L` holding a copy of an array's elements
    /// (one copy, whatever the array's memory order).
    ///
    /// ```
    /// use granule_views::{View2, LayoutLeft};
    /// let a = ndarray::array![[1.0, 2.0], [3.0, 4.0]];
    /// let v = View2::<f64, LayoutLeft>::from_ndarray("v", a.view()).unwrap();
    /// assert_eq!(v[[1, 0]], 3.0);
    /// assert_eq!(v.strides(), [1, 2]);
    /// ```
    pub fn from_ndarray<D: NdRank<R>>(label: &str, a: ArrayView<'_, T, D>) -> Result<Self> {
        let extents: [usize; R] = a
            .shape()
            .try_into()
            .expect("an ndarray view of rank R has R extents");
        let strides = a.strides();
        let base = a.as_ptr();
        // Zeroed, then every element written once: the one copy.
        let mut view = View::zeros(label, extents)?;
        view.for_each_mut(|idx, x| {
            let offset: isize = idx.iter().zip(strides).map(|(&i, &s)| i as isize * s).sum();
            // SAFETY: `idx` is in bounds of the extents, which are `a`'s,
            // so `offset` (ndarray's own index arithmetic) is an element of
            // `a`, borrowed for the call.
            *x = unsafe { *base.offset(offset) };
        });
        Ok(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{LayoutLeft, LayoutRight};
    use crate::view::{View2, View3, ALL};
    use ::ndarray::{s, Array2, Array3};

    fn cells(i: usize, j: usize, k: usize) -> i32 {
        (100 * i + 10 * j + k) as i32
    }

    fn check_same<S: Storage<Elem = i32>, L: Layout>(v: &ViewBase<S, 3, L>)
    where
        S::Space: HostAccessible,
    {
        let a = v.as_array();
        assert_eq!(a.shape(), &v.extents()[..]);
        for ((i, j, k), &x) in a.indexed_iter() {
            assert_eq!(x, v[[i, j, k]], "{i} {j} {k}");
        }
        let back = ViewRef::from_array("back", a).unwrap();
        assert_eq!((back.extents(), back.strides()), (v.extents(), v.strides()));
        assert_eq!(back.as_ptr(), v.as_ptr());
        assert_eq!(v.to_ndarray(), v.as_array());
    }

    #[test]
    fn layouts_and_strided_subviews_round_trip_without_a_copy() {
        let right =
            View3::<i32, LayoutRight>::from_fn("r", [3, 4, 5], |[i, j, k]| cells(i, j, k)).unwrap();
        let left =
            View3::<i32, LayoutLeft>::from_fn("l", [3, 4, 5], |[i, j, k]| cells(i, j, k)).unwrap();
        check_same(&right);
        check_same(&left);
        check_same(&right.subview((1..3, ALL, 1..4)).unwrap());
        check_same(&left.subview((ALL, 2..4, 0..5)).unwrap());
    }

    #[test]
    fn writes_through_either_side_are_the_others() {
        let mut v = View2::<i32, LayoutLeft>::zeros("v", [3, 2]).unwrap();
        v.as_array_mut()[[2, 1]] = 9;
        assert_eq!(v[[2, 1]], 9);
        let mut a = Array3::<i32>::zeros((2, 3, 4));
        {
            let mut sliced = a.slice_mut(s![.., 1..3, ..;2]);
            let mut w = ViewMut::from_array_mut("a", sliced.view_mut()).unwrap();
            assert_eq!((w.extents(), w.strides()), ([2, 2, 2], [12, 4, 2]));
            w[[1, 1, 1]] = 7;
        }
        assert_eq!(a[[1, 2, 2]], 7);
        assert_eq!(a.iter().filter(|&&x| x != 0).count(), 1);
    }

    #[test]
    fn negative_and_aliasing_strides_are_errors() {
        let a = Array2::<f64>::zeros((3, 2));
        let reversed = a.slice(s![..;-1, ..]);
        let e = ViewRef::from_array("rev", reversed).unwrap_err();
        assert!(
            e.to_string().contains("negative stride") && e.to_string().contains("\"rev\""),
            "{e}"
        );
        let row = ::ndarray::Array1::<f64>::zeros(2);
        let broadcast = row.broadcast((3, 2)).unwrap();
        let e = ViewRef::from_array("bc", broadcast).unwrap_err();
        assert!(matches!(e, ViewError::InvalidStrides { .. }), "{e}");
    }

    #[test]
    fn owned_arrays_convert_with_one_copy_into_any_layout() {
        let a = Array2::from_shape_fn((3, 4), |(i, j)| (10 * i + j) as u16);
        let t = a.t();
        let v = View2::<u16, LayoutRight>::from_ndarray("v", t).unwrap();
        assert_eq!(v.extents(), [4, 3]);
        assert_eq!(v.to_ndarray(), t);
        let w = View2::<u16, LayoutLeft>::from_ndarray("w", a.view()).unwrap();
        assert_eq!(w.strides(), [1, 3]);
        assert_eq!(w.to_ndarray(), a);
    }
}
