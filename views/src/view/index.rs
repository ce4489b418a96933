//! Bounds-checked indexing: `v[i]` for rank 1, `v[[i, j, ..]]` for any rank.

use super::rank::IntoIndex;
use super::ViewBase;
use crate::layout::Layout;
use crate::space::HostAccessible;
use crate::storage::{Storage, StorageMut};
use std::ops::{Index, IndexMut};

/// The panic of every out-of-bounds access, kept out of line so the hot
/// path is a compare and a branch.
#[cold]
#[inline(never)]
#[track_caller]
///
/// It also reports the data address. Besides telling apart Views that share
/// a label, that gives the base pointer a use on the failing path too, so
/// the compiler keeps its load before the bounds check instead of sinking it
/// into the in-bounds path; a load that every iteration executes can be
/// hoisted out of loops, which lets loops over Views vectorize.
pub(crate) fn out_of_bounds<const R: usize>(
    label: &str,
    idx: [usize; R],
    extents: [usize; R],
    data: *const (),
) -> ! {
    panic!(
        "View \"{label}\": index {idx:?} is out of bounds for extents {extents:?} (data at {data:p})"
    )
}

impl<S: Storage, const R: usize, L: Layout> ViewBase<S, R, L> {
    /// Offset of `idx`, panicking with the label, index and extents when
    /// it is outside.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn checked_offset(&self, idx: &[usize; R], base: *const S::Elem) -> usize {
        if !self.map.contains(idx) {
            out_of_bounds(self.label(), *idx, *self.map.extents(), base.cast());
        }
        L::offset(&self.map, idx)
    }
}

impl<S, I, const R: usize, L> Index<I> for ViewBase<S, R, L>
where
    S: Storage,
    S::Space: HostAccessible,
    I: IntoIndex<R>,
    L: Layout,
{
    type Output = S::Elem;

    #[inline(always)]
    #[track_caller]
    fn index(&self, idx: I) -> &S::Elem {
        // The base pointer is read before the bounds check and used on both
        // of its paths (see `out_of_bounds`), so loops can hoist it.
        let base = self.storage.ptr().as_ptr();
        let off = self.checked_offset(&idx.into_index(), base);
        // SAFETY: the offset of an in-bounds index is inside the span, which
        // the storage keeps readable in host memory while `self` is borrowed.
        unsafe { &*base.add(off) }
    }
}

impl<S, I, const R: usize, L> IndexMut<I> for ViewBase<S, R, L>
where
    S: StorageMut,
    S::Space: HostAccessible,
    I: IntoIndex<R>,
    L: Layout,
{
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, idx: I) -> &mut S::Elem {
        // Read before the check, as in `index`.
        let base = self.storage.ptr().as_ptr();
        let off = self.checked_offset(&idx.into_index(), base);
        // SAFETY: as for `index`; `&mut self` makes this the only access.
        unsafe { &mut *base.add(off) }
    }
}
