//! Making Views: zero-filled, uninitialized, from a Vec, from a function,
//! and borrowing user slices (Kokkos's Unmanaged Views).

use super::rank::{IntoIndex, Rank, ValidRank};
use super::{View, ViewBase, ViewMut, ViewRef};
use crate::copy::deep_copy;
use crate::element::Element;
use crate::error::{Result, ViewError};
use crate::layout::{Layout, LayoutRight, LayoutStride, Mapping};
use crate::space::{HostAccessible, HostSpace, MemorySpace, SpaceCopy};
use crate::storage::{Borrowed, BorrowedMut, Owned};
use std::borrow::Cow;

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> View<T, R, L, M> {
    /// A zero-filled View in the memory space `space`.
    pub fn zeros_in(space: M, label: &str, extents: impl IntoIndex<R>) -> Result<Self> {
        let map = Mapping::compact::<L>(label, extents.into_index())?;
        Self::alloc(space, label, map, true)
    }

    /// A View with explicit strides (normally with [`LayoutStride`]).
    /// Strides that would make two indices share an element are rejected.
    ///
    /// ```
    /// use granule_views::{LayoutStride, View2};
    /// // a 2x3 array with padded rows of 4
    /// let v = View2::<f32, LayoutStride>::with_strides("p", [2, 3], [4, 1]).unwrap();
    /// assert_eq!(v.span(), 7);
    /// assert!(!v.is_contiguous());
    /// assert!(View2::<f32, LayoutStride>::with_strides("q", [2, 3], [1, 1]).is_err());
    /// ```
    pub fn with_strides(label: &str, extents: [usize; R], strides: [usize; R]) -> Result<Self>
    where
        M: Default,
    {
        let map = Mapping::with_strides(label, extents, strides)?;
        if !L::accepts(&map) {
            return Err(ViewError::InvalidStrides {
                label: label.into(),
                extents: extents.to_vec(),
                strides: strides.to_vec(),
                reason: "the layout type cannot describe them; use LayoutStride",
            });
        }
        Self::alloc(M::default(), label, map, true)
    }

    /// Bytes a View of layout `L` with these extents allocates (Kokkos's
    /// `required_allocation_size`), or the error its construction would give.
    ///
    /// ```
    /// use granule_views::{LayoutLeft, View2, View3};
    /// assert_eq!(View3::<f64>::required_allocation_size([2, 3, 4]), Ok(192));
    /// assert_eq!(View2::<u8, LayoutLeft>::required_allocation_size([0, 9]), Ok(0));
    /// assert!(View2::<f64>::required_allocation_size([usize::MAX, 2]).is_err());
    /// ```
    pub fn required_allocation_size(extents: impl IntoIndex<R>) -> Result<usize> {
        let map = Mapping::compact::<L>("required_allocation_size", extents.into_index())?;
        Owned::<T, M>::byte_size("required_allocation_size", map.span(), map.extents())
    }

    fn alloc(space: M, label: &str, map: Mapping<R>, zeroed: bool) -> Result<Self> {
        let storage = Owned::allocate(space, label, map.span(), zeroed, map.extents())?;
        Ok(ViewBase::from_raw(storage, map))
    }

    /// A View in `space` whose memory is not initialized (Kokkos's
    /// `WithoutInitializing`): the space skips its zero-fill, which on a
    /// device is a memset of the whole View, for memory every element of
    /// which is written before any is read.
    ///
    /// # Safety
    /// Every element must be written before it is read, on the host or on
    /// a device; reading one that was never written is undefined
    /// behaviour (on a device it yields whatever the memory held before).
    ///
    /// ```
    /// use granule_views::{HostSpace, LayoutRight, View1};
    /// // SAFETY: the fill writes every element before anything reads one.
    /// let mut v = unsafe { View1::<u32, LayoutRight, HostSpace>::without_initializing_in(HostSpace, "v", 4) }?;
    /// v.fill(7);
    /// assert_eq!(v.to_vec(), [7; 4]);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub unsafe fn without_initializing_in(
        space: M,
        label: &str,
        extents: impl IntoIndex<R>,
    ) -> Result<Self> {
        let map = Mapping::compact::<L>(label, extents.into_index())?;
        Self::alloc(space, label, map, false)
    }
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace + Default> View<T, R, L, M> {
    /// A zero-filled View: the default constructor, as in Kokkos.
    ///
    /// ```
    /// use granule_views::View3;
    /// let v = View3::<f64>::zeros("v", [2, 3, 4]).unwrap();
    /// assert_eq!(v.size(), 24);
    /// assert_eq!(v[[1, 2, 3]], 0.0);
    /// ```
    pub fn zeros(label: &str, extents: impl IntoIndex<R>) -> Result<Self> {
        Self::zeros_in(M::default(), label, extents)
    }

    /// A View whose memory is not initialized (Kokkos's
    /// `WithoutInitializing`), to skip the zero-fill when every element is
    /// written before it is read.
    ///
    /// # Safety
    /// Every element must be written before it is read; reading an element
    /// that was never written is undefined behaviour.
    ///
    /// ```
    /// use granule_views::View1;
    /// // SAFETY: the fill writes every element before anything reads one.
    /// let mut v = unsafe { View1::<f64>::without_initializing("v", 8) }.unwrap();
    /// v.fill(1.5);
    /// assert_eq!(v[7], 1.5);
    /// ```
    pub unsafe fn without_initializing(label: &str, extents: impl IntoIndex<R>) -> Result<Self> {
        // SAFETY: the caller's contract, which is the same.
        unsafe { Self::without_initializing_in(M::default(), label, extents) }
    }
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace + HostAccessible + Default>
    View<T, R, L, M>
{
    /// A View with every element set to `value`.
    ///
    /// ```
    /// use granule_views::View2;
    /// let v = View2::<i16>::full("v", [2, 2], -3).unwrap();
    /// assert_eq!(v.to_vec(), vec![-3; 4]);
    /// ```
    pub fn full(label: &str, extents: impl IntoIndex<R>, value: T) -> Result<Self> {
        let map = Mapping::compact::<L>(label, extents.into_index())?;
        let mut view = Self::alloc(M::default(), label, map, false)?;
        // Every element is written before the View is returned.
        view.fill(value);
        Ok(view)
    }

    /// A View of numeric ones (any `num_traits::One` element type).
    ///
    /// ```
    /// use granule_views::View1;
    /// assert_eq!(View1::<f32>::ones("w", 3).unwrap().to_vec(), vec![1.0; 3]);
    /// ```
    pub fn ones(label: &str, extents: impl IntoIndex<R>) -> Result<Self>
    where
        T: num_traits::One,
    {
        Self::full(label, extents, T::one())
    }

    /// A View holding `data`, given in index order with the last index
    /// fastest (row-major), whatever the layout; `to_vec` gives it back.
    ///
    /// ```
    /// use granule_views::{LayoutLeft, View2};
    /// let a = View2::<i32, LayoutLeft>::from_vec("a", [2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
    /// assert_eq!(a[[1, 0]], 4);
    /// assert_eq!(a.to_vec(), vec![1, 2, 3, 4, 5, 6]);
    /// assert!(View2::<i32>::from_vec("b", [2, 2], vec![1, 2, 3]).is_err());
    /// ```
    pub fn from_vec(label: &str, extents: impl IntoIndex<R>, data: Vec<T>) -> Result<Self> {
        let map = mapping_for_len::<L, R>(label, extents.into_index(), data.len())?;
        let mut view = Self::alloc(M::default(), label, map, false)?;
        let mut items = data.into_iter();
        // Every element is written here, in the order `to_vec` reads them.
        view.for_each_mut(|_, x| *x = items.next().expect("length checked above"));
        Ok(view)
    }

    /// A View whose element at each index is `f(index)`. Rank-1 closures
    /// take a `usize`, higher ranks a `[usize; R]`.
    ///
    /// ```
    /// use granule_views::{View1, View2};
    /// let x = View1::<f64>::from_fn("x", 4, |i| i as f64).unwrap();
    /// let a = View2::<usize>::from_fn("a", [2, 2], |[i, j]| 10 * i + j).unwrap();
    /// assert_eq!(x[3], 3.0);
    /// assert_eq!(a[[1, 0]], 10);
    /// ```
    pub fn from_fn<F>(label: &str, extents: impl IntoIndex<R>, mut f: F) -> Result<Self>
    where
        Rank<R>: ValidRank<R>,
        F: FnMut(<Rank<R> as ValidRank<R>>::Idx) -> T,
    {
        let map = Mapping::compact::<L>(label, extents.into_index())?;
        let mut view = Self::alloc(M::default(), label, map, false)?;
        // Every element is written exactly once before the View is returned.
        view.for_each_mut(|idx, x| *x = f(<Rank<R>>::idx(idx)));
        Ok(view)
    }
}

/// Constructors for a View in any memory space that host data can be
/// copied into: what portable code uses to allocate the Views a kernel
/// reads, in the memory space of the execution space it runs on.
///
/// # Naming the type
/// Spell the element type, the layout, and `_` for the space, and let the
/// space argument decide it:
/// `View1::<f64, LayoutRight, _>::from_fn_in(space.memory_space(), "x", n, f)`.
/// That compiles for every memory space. Two shorter spellings do not:
/// - `View1::<f64>::from_fn_in(mem, ..)`: once some generic arguments are
///   written, the omitted ones take their defaults, so the space is
///   `HostSpace` whatever `mem` is (a type mismatch for a device space).
/// - `View1::from_fn_in(mem, ..)`: with none written, every parameter is
///   inferred, and nothing fixes the layout ("type annotations needed"),
///   unless the result's type is annotated elsewhere.
///
/// ```
/// use granule_views::{create_mirror_view_and_copy, HostSpace, LayoutLeft, LayoutRight, View1, View2};
/// let mem = HostSpace; // in portable code: `space.memory_space()`
/// let x = View1::<f64, LayoutRight, _>::from_fn_in(mem, "x", 4, |i| i as f64)?;
/// let a = View2::<i32, LayoutLeft, _>::from_vec_in(mem, "a", [2, 2], vec![1, 2, 3, 4])?;
/// let o = View1::<u8, LayoutRight, _>::full_in(mem, "o", 3, 7)?;
/// // Host code reads any space's Views through a mirror.
/// assert_eq!(create_mirror_view_and_copy(&x)?.to_vec(), [0.0, 1.0, 2.0, 3.0]);
/// assert_eq!(create_mirror_view_and_copy(&a)?[[1, 0]], 3);
/// assert_eq!(create_mirror_view_and_copy(&o)?.to_vec(), [7; 3]);
/// # Ok::<(), granule_views::ViewError>(())
/// ```
impl<T: Element, const R: usize, L: Layout, M: SpaceCopy<HostSpace>> View<T, R, L, M> {
    /// A View in `space` whose element at each index is `f(index)` (a
    /// `usize` for rank 1, a `[usize; R]` above). A host-accessible space
    /// is written in place; any other gets a host View built first and
    /// copied over.
    ///
    /// ```
    /// use granule_views::{HostSpace, LayoutRight, View2};
    /// let a = View2::<usize, LayoutRight, _>::from_fn_in(HostSpace, "a", [2, 3], |[i, j]| 10 * i + j)?;
    /// assert_eq!(a[[1, 2]], 12);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub fn from_fn_in<F>(
        space: M,
        label: &str,
        extents: impl IntoIndex<R>,
        mut f: F,
    ) -> Result<Self>
    where
        Rank<R>: ValidRank<R>,
        F: FnMut(<Rank<R> as ValidRank<R>>::Idx) -> T,
    {
        let map = Mapping::compact::<L>(label, extents.into_index())?;
        Self::filled_in(space, label, map, |host| {
            host.for_each_mut(|idx, x| *x = f(<Rank<R>>::idx(idx)))
        })
    }

    /// A View in `space` with every element set to `value`.
    ///
    /// ```
    /// use granule_views::{HostSpace, LayoutRight, View1};
    /// let v = View1::<i16, LayoutRight, _>::full_in(HostSpace, "v", 3, -2)?;
    /// assert_eq!(v.to_vec(), [-2; 3]);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub fn full_in(space: M, label: &str, extents: impl IntoIndex<R>, value: T) -> Result<Self> {
        let map = Mapping::compact::<L>(label, extents.into_index())?;
        Self::filled_in(space, label, map, |host| host.fill(value))
    }

    /// A View in `space` holding `data`, given in index order with the last
    /// index fastest (row-major), whatever the layout, as `from_vec` takes
    /// it. The data is copied once, straight from the Vec, into any space.
    ///
    /// ```
    /// use granule_views::{HostSpace, LayoutLeft, View2, ViewError};
    /// let a = View2::<i32, LayoutLeft, _>::from_vec_in(HostSpace, "a", [2, 3], vec![1, 2, 3, 4, 5, 6])?;
    /// assert_eq!((a[[1, 0]], a.as_slice().unwrap()[1]), (4, 4));
    /// let e = View2::<i32, LayoutLeft, _>::from_vec_in(HostSpace, "b", [2, 2], vec![1]).unwrap_err();
    /// assert!(matches!(e, ViewError::LengthMismatch { needed: 4, got: 1, .. }));
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub fn from_vec_in(
        space: M,
        label: &str,
        extents: impl IntoIndex<R>,
        data: Vec<T>,
    ) -> Result<Self> {
        let map = mapping_for_len::<L, R>(label, extents.into_index(), data.len())?;
        let src =
            ViewRef::<T, R, LayoutRight, HostSpace>::from_slice(label, &data, *map.extents())?;
        let mut view = Self::alloc(space, label, map, false)?;
        // Every element is written here (the extents are equal).
        deep_copy(&mut view, &src)?;
        Ok(view)
    }

    /// Allocates a View in `space` and has `fill` write every element
    /// through a host View: the View itself when the space is
    /// host-accessible, else a host staging View copied over afterwards.
    fn filled_in(
        space: M,
        label: &str,
        map: Mapping<R>,
        fill: impl FnOnce(&mut ViewMut<'_, T, R, L, HostSpace>),
    ) -> Result<Self> {
        let mut view = Self::alloc(space, label, map, false)?;
        if M::IS_HOST_ACCESSIBLE {
            let ptr = view.storage_ptr();
            // SAFETY: the space promises (MemorySpace contract) that host
            // code may dereference its pointers, so the elements can be
            // described as HostSpace; the pointer is valid for `map`, and
            // `view` is not touched while the alias lives.
            let storage = unsafe { BorrowedMut::new(ptr, HostSpace, Cow::Borrowed(label)) };
            fill(&mut ViewBase::from_raw(storage, map));
            return Ok(view);
        }
        let mut staging = View::<T, R, L, HostSpace>::alloc(HostSpace, label, map, false)?;
        fill(&mut staging.view_mut());
        // Every element is written here (identical mappings).
        deep_copy(&mut view, &staging)?;
        Ok(view)
    }
}

fn check_len(label: &str, map_span: usize, extents: &[usize], got: usize) -> Result<()> {
    if got < map_span {
        return Err(ViewError::LengthMismatch {
            label: label.into(),
            extents: extents.to_vec(),
            needed: map_span,
            got,
        });
    }
    Ok(())
}

impl<'a, T: Element, const R: usize, L: Layout> ViewRef<'a, T, R, L, HostSpace> {
    /// Wraps a user slice without copying (Kokkos's Unmanaged View). The
    /// slice is in the layout's memory order and must be at least `span` long.
    ///
    /// ```
    /// use granule_views::{ViewRef, LayoutRight};
    /// let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    /// let a = ViewRef::<f64, 2>::from_slice("a", &data, [2, 3]).unwrap();
    /// assert_eq!(a[[1, 1]], 5.0);
    /// ```
    pub fn from_slice(
        label: impl Into<Cow<'a, str>>,
        data: &'a [T],
        extents: impl IntoIndex<R>,
    ) -> Result<Self> {
        let label = label.into();
        let map = Mapping::compact::<L>(&label, extents.into_index())?;
        check_len(&label, map.span(), map.extents(), data.len())?;
        // SAFETY: the slice holds at least `span` elements, is borrowed
        // shared for 'a, and host memory is host-accessible.
        let storage = unsafe { Borrowed::new(ptr_of(data), HostSpace, label) };
        Ok(ViewBase::from_raw(storage, map))
    }
}

impl<'a, T: Element, const R: usize, L: Layout> ViewMut<'a, T, R, L, HostSpace> {
    /// Wraps a mutable user slice without copying (an Unmanaged View that
    /// may be written). The slice must be at least `span` long.
    ///
    /// ```
    /// use granule_views::ViewMut;
    /// let mut data = vec![0i32; 4];
    /// let mut v = ViewMut::<i32, 1>::from_slice_mut("v", &mut data, 4).unwrap();
    /// v[2] = 9;
    /// assert_eq!(data, [0, 0, 9, 0]);
    /// ```
    pub fn from_slice_mut(
        label: impl Into<Cow<'a, str>>,
        data: &'a mut [T],
        extents: impl IntoIndex<R>,
    ) -> Result<Self> {
        let label = label.into();
        let map = Mapping::compact::<L>(&label, extents.into_index())?;
        check_len(&label, map.span(), map.extents(), data.len())?;
        let ptr = std::ptr::NonNull::from(&mut *data).cast::<T>();
        // SAFETY: the slice is long enough and uniquely borrowed for 'a.
        let storage = unsafe { BorrowedMut::new(ptr, HostSpace, label) };
        Ok(ViewBase::from_raw(storage, map))
    }
}

fn ptr_of<T>(data: &[T]) -> std::ptr::NonNull<T> {
    std::ptr::NonNull::from(data).cast()
}

impl<'a, T: Element, const R: usize> ViewRef<'a, T, R, LayoutStride, HostSpace> {
    /// Wraps a user slice with explicit strides (checked for overlap and length).
    pub fn from_slice_strided(
        label: impl Into<Cow<'a, str>>,
        data: &'a [T],
        extents: [usize; R],
        strides: [usize; R],
    ) -> Result<Self> {
        let label = label.into();
        let map = Mapping::with_strides(&label, extents, strides)?;
        check_len(&label, map.span(), map.extents(), data.len())?;
        // SAFETY: as in `from_slice`.
        let storage = unsafe { Borrowed::new(ptr_of(data), HostSpace, label) };
        Ok(ViewBase::from_raw(storage, map))
    }
}

/// The compact mapping of `extents`, checked to hold exactly `len`
/// elements (what `from_vec` and `from_vec_in` are given).
fn mapping_for_len<L: Layout, const R: usize>(
    label: &str,
    extents: [usize; R],
    len: usize,
) -> Result<Mapping<R>> {
    let map = Mapping::compact::<L>(label, extents)?;
    if len != map.size() {
        return Err(ViewError::LengthMismatch {
            label: label.into(),
            extents: map.extents().to_vec(),
            needed: map.size(),
            got: len,
        });
    }
    Ok(map)
}
