//! The View: an n-dimensional array with a label, extents, a layout and a
//! memory space.
//!
//! One generic struct, [`ViewBase`], serves three ownership modes through
//! its [`crate::storage::Storage`]: [`View`] owns its allocation,
//! [`ViewRef`] and [`ViewMut`] borrow (subviews, wrapped slices). Reading
//! needs `&`, writing needs `&mut`, so the borrow checker rules out races.

mod construct;
mod index;
pub mod iter;
#[cfg(feature = "rayon")]
pub mod par_iter;
mod rank;
mod resize;
mod subview;

pub(crate) use index::out_of_bounds;
pub use iter::{Iter, IterMut};
#[cfg(feature = "rayon")]
pub use par_iter::{ParIter, ParIterMut};
pub use rank::{IntoIndex, Rank, Succ, ValidRank};
pub use subview::{All, SubviewArg, SubviewArgs, ALL};

use crate::element::Element;
use crate::layout::{Layout, LayoutRight, LayoutStride, Mapping};
use crate::space::{HostAccessible, HostSpace, MemorySpace};
use crate::storage::{Borrowed, BorrowedMut, Owned, Storage, StorageMut};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// An n-dimensional array of rank `R` (1..=8) with layout `L`, whose
/// elements are reached through storage `S`.
///
/// Use the aliases: [`View`] (owning), [`ViewRef`], [`ViewMut`] (borrowing),
/// and [`View1`]..[`View8`].
///
/// ```
/// use granule_views::View2;
/// let mut a = View2::<f64>::zeros("a", [2, 3]).unwrap();
/// a[[1, 2]] = 5.0;
/// assert_eq!(a.extent(0), 2);
/// assert_eq!(a.to_vec(), vec![0.0, 0.0, 0.0, 0.0, 0.0, 5.0]);
/// ```
pub struct ViewBase<S: Storage, const R: usize, L: Layout = LayoutRight> {
    storage: S,
    map: Mapping<R>,
    _layout: PhantomData<L>,
}

/// A View that owns its allocation.
pub type View<T, const R: usize, L = LayoutRight, M = HostSpace> = ViewBase<Owned<T, M>, R, L>;
/// A shared borrow of (part of) a View, or of a user slice.
pub type ViewRef<'a, T, const R: usize, L = LayoutRight, M = HostSpace> =
    ViewBase<Borrowed<'a, T, M>, R, L>;
/// A unique borrow of (part of) a View, or of a user slice.
pub type ViewMut<'a, T, const R: usize, L = LayoutRight, M = HostSpace> =
    ViewBase<BorrowedMut<'a, T, M>, R, L>;

/// An owning View of rank 1.
pub type View1<T, L = LayoutRight, M = HostSpace> = View<T, 1, L, M>;
/// An owning View of rank 2.
pub type View2<T, L = LayoutRight, M = HostSpace> = View<T, 2, L, M>;
/// An owning View of rank 3.
pub type View3<T, L = LayoutRight, M = HostSpace> = View<T, 3, L, M>;
/// An owning View of rank 4.
pub type View4<T, L = LayoutRight, M = HostSpace> = View<T, 4, L, M>;
/// An owning View of rank 5.
pub type View5<T, L = LayoutRight, M = HostSpace> = View<T, 5, L, M>;
/// An owning View of rank 6.
pub type View6<T, L = LayoutRight, M = HostSpace> = View<T, 6, L, M>;
/// An owning View of rank 7.
pub type View7<T, L = LayoutRight, M = HostSpace> = View<T, 7, L, M>;
/// An owning View of rank 8.
pub type View8<T, L = LayoutRight, M = HostSpace> = View<T, 8, L, M>;

impl<S: Storage, const R: usize, L: Layout> ViewBase<S, R, L> {
    /// Assembles a View from storage and a mapping `L` accepts.
    pub(crate) fn from_raw(storage: S, map: Mapping<R>) -> Self {
        debug_assert!(L::accepts(&map), "{} cannot describe {map:?}", L::NAME);
        ViewBase {
            storage,
            map,
            _layout: PhantomData,
        }
    }

    /// The storage's base pointer.
    pub(crate) fn storage_ptr(&self) -> std::ptr::NonNull<S::Elem> {
        self.storage.ptr()
    }

    /// The rank (number of dimensions).
    pub const RANK: usize = R;

    /// The label given at construction (shared by subviews).
    pub fn label(&self) -> &str {
        self.storage.label()
    }

    /// The extent of rank `r`.
    ///
    /// # Panics
    /// If `r >= R`, naming the label.
    pub fn extent(&self, r: usize) -> usize {
        self.check_rank(r);
        self.map.extents()[r]
    }

    /// The stride of rank `r`, in elements.
    ///
    /// # Panics
    /// If `r >= R`, naming the label.
    pub fn stride(&self, r: usize) -> usize {
        self.check_rank(r);
        self.map.strides()[r]
    }

    fn check_rank(&self, r: usize) {
        assert!(
            r < R,
            "View \"{}\" has rank {R}; rank {r} does not exist",
            self.label()
        );
    }

    /// All extents.
    pub fn extents(&self) -> [usize; R] {
        *self.map.extents()
    }

    /// All strides, in elements.
    pub fn strides(&self) -> [usize; R] {
        *self.map.strides()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        self.map.size()
    }

    /// Elements spanned in memory (at least `size()`; more for strided views).
    pub fn span(&self) -> usize {
        self.map.span()
    }

    /// Whether the elements occupy `[0, span)` without holes.
    pub fn is_contiguous(&self) -> bool {
        self.map.is_contiguous()
    }

    /// The extents and strides.
    pub fn mapping(&self) -> &Mapping<R> {
        &self.map
    }

    /// The memory space instance holding the data.
    pub fn space(&self) -> &S::Space {
        self.storage.space()
    }

    /// Base pointer, for backends that move data between spaces. Reading
    /// through it needs the memory space's own means.
    pub fn as_ptr(&self) -> *const S::Elem {
        self.storage.ptr().as_ptr()
    }

    /// A shared borrow of the whole View (a cheap [`ViewRef`]).
    pub fn view(&self) -> ViewRef<'_, S::Elem, R, L, S::Space> {
        self.borrowed()
    }

    /// The whole View, shared borrowed, in any layout that describes its
    /// mapping (its own, or LayoutStride, which describes every one).
    fn borrowed<L2: Layout>(&self) -> ViewRef<'_, S::Elem, R, L2, S::Space> {
        // SAFETY: the pointer is valid for this mapping while `self` is
        // borrowed, and `&self` keeps writers away.
        let storage = unsafe {
            Borrowed::new(
                self.storage.ptr(),
                self.space().clone(),
                Cow::Borrowed(self.label()),
            )
        };
        ViewBase::from_raw(storage, self.map)
    }

    /// A shared borrow of the whole View typed as [`LayoutStride`],
    /// whatever its layout: code written once for every layout (a
    /// `#[kernel]` reading `&ViewRef<'_, T, R, LayoutStride>`, say) takes
    /// any View this way. The elements and their addresses are the same.
    ///
    /// ```
    /// use granule_views::{LayoutLeft, LayoutStride, View2, ViewRef};
    /// let a = View2::<i32, LayoutLeft>::from_fn("a", [2, 3], |[i, j]| (10 * i + j) as i32).unwrap();
    /// let s: ViewRef<'_, i32, 2, LayoutStride> = a.strided();
    /// assert_eq!(s.strides(), [1, 2]);
    /// assert_eq!(s[[1, 2]], 12);
    /// ```
    pub fn strided(&self) -> ViewRef<'_, S::Elem, R, LayoutStride, S::Space> {
        self.borrowed()
    }
}

impl<S: StorageMut, const R: usize, L: Layout> ViewBase<S, R, L> {
    /// Base pointer for writing, for backends that move data between spaces.
    pub fn as_mut_ptr(&mut self) -> *mut S::Elem {
        self.storage.ptr().as_ptr()
    }

    /// A unique borrow of the whole View (a cheap [`ViewMut`]).
    pub fn view_mut(&mut self) -> ViewMut<'_, S::Elem, R, L, S::Space> {
        let ptr = self.storage.ptr();
        let space = self.storage.space().clone();
        // SAFETY: `&mut self` makes this the only access for the borrow, and
        // the pointer is valid for the mapping.
        let storage = unsafe { BorrowedMut::new(ptr, space, Cow::Borrowed(self.storage.label())) };
        ViewBase::from_raw(storage, self.map)
    }
}

impl<S: Storage, const R: usize, L: Layout> ViewBase<S, R, L>
where
    S::Space: HostAccessible,
{
    /// The elements as a slice in memory order, if the View is contiguous.
    ///
    /// ```
    /// use granule_views::View1;
    /// let v = View1::<u32>::from_fn("v", 4, |i| i as u32).unwrap();
    /// assert_eq!(v.as_slice(), Some(&[0, 1, 2, 3][..]));
    /// ```
    pub fn as_slice(&self) -> Option<&[S::Elem]> {
        // SAFETY: contiguous means offsets cover exactly [0, span) = [0, size),
        // all valid for reads in host memory while `self` is borrowed.
        self.is_contiguous().then(|| unsafe {
            std::slice::from_raw_parts(self.storage.ptr().as_ptr(), self.size())
        })
    }

    /// The element at `idx`, or `None` outside the extents.
    pub fn get(&self, idx: [usize; R]) -> Option<&S::Elem> {
        self.map.contains(&idx).then(|| {
            // SAFETY: in bounds, so the offset is inside the valid span.
            unsafe { &*self.storage.ptr().as_ptr().add(L::offset(&self.map, &idx)) }
        })
    }

    /// Calls `f` with every index and element, last index fastest.
    pub fn for_each(&self, mut f: impl FnMut([usize; R], &S::Elem)) {
        let base = self.storage.ptr().as_ptr();
        self.map.for_each_index(|idx| {
            // SAFETY: `for_each_index` yields only in-bounds indices.
            f(*idx, unsafe { &*base.add(L::offset(&self.map, idx)) })
        });
    }

    /// The elements in index order, last index fastest (row-major),
    /// whatever the layout. `from_vec` takes the same order.
    pub fn to_vec(&self) -> Vec<S::Elem> {
        if let (Some(s), true) = (self.as_slice(), is_row_major(&self.map)) {
            return s.to_vec();
        }
        let mut out = Vec::with_capacity(self.size());
        self.for_each(|_, &x| out.push(x));
        out
    }
}

/// Whether memory order equals row-major index order.
fn is_row_major<const R: usize>(map: &Mapping<R>) -> bool {
    LayoutRight::accepts(map)
}

impl<S: StorageMut, const R: usize, L: Layout> ViewBase<S, R, L>
where
    S::Space: HostAccessible,
{
    /// The elements as a mutable slice in memory order, if contiguous.
    ///
    /// ```
    /// use granule_views::View1;
    /// let mut v = View1::<u32>::zeros("v", 4).unwrap();
    /// v.as_mut_slice().unwrap().copy_from_slice(&[4, 3, 2, 1]);
    /// assert_eq!(v.to_vec(), [4, 3, 2, 1]);
    /// ```
    pub fn as_mut_slice(&mut self) -> Option<&mut [S::Elem]> {
        let (ptr, size) = (self.storage.ptr().as_ptr(), self.size());
        // SAFETY: as in `as_slice`; `&mut self` makes the access unique.
        self.is_contiguous()
            .then(|| unsafe { std::slice::from_raw_parts_mut(ptr, size) })
    }

    /// The element at `idx` for writing, or `None` outside the extents.
    pub fn get_mut(&mut self, idx: [usize; R]) -> Option<&mut S::Elem> {
        let ptr = self.storage.ptr().as_ptr();
        self.map.contains(&idx).then(|| {
            // SAFETY: in bounds, and `&mut self` makes the access unique.
            unsafe { &mut *ptr.add(L::offset(&self.map, &idx)) }
        })
    }

    /// Calls `f` with every index and a mutable element, last index fastest.
    pub fn for_each_mut(&mut self, mut f: impl FnMut([usize; R], &mut S::Elem)) {
        let base = self.storage.ptr().as_ptr();
        let map = self.map;
        map.for_each_index(|idx| {
            // SAFETY: in bounds; distinct indices have distinct offsets (a
            // Mapping invariant), so each element is lent once at a time.
            f(*idx, unsafe { &mut *base.add(L::offset(&map, idx)) })
        });
    }

    /// Sets every element to `value` (Kokkos `deep_copy(view, scalar)`).
    ///
    /// ```
    /// use granule_views::View2;
    /// let mut a = View2::<i64>::zeros("a", [2, 2]).unwrap();
    /// a.fill(7);
    /// assert_eq!(a.to_vec(), vec![7; 4]);
    /// ```
    pub fn fill(&mut self, value: S::Elem) {
        match self.as_mut_slice() {
            Some(s) => s.fill(value),
            None => self.for_each_mut(|_, x| *x = value),
        }
    }
}

impl<S: Storage, const R: usize, L: Layout> fmt::Debug for ViewBase<S, R, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View")
            .field("label", &self.label())
            .field("extents", self.map.extents())
            .field("strides", self.map.strides())
            .field("layout", &L::NAME)
            .field("space", &<S::Space as MemorySpace>::NAME)
            .finish()
    }
}

impl<'a, T: Element, const R: usize, L: Layout, M: MemorySpace> Clone for ViewRef<'a, T, R, L, M> {
    fn clone(&self) -> Self {
        ViewBase::from_raw(self.storage.clone(), self.map)
    }
}

#[cfg(test)]
mod tests;
