//! Host mirrors of Views (Kokkos's `create_mirror` family).

use crate::copy::deep_copy;
use crate::element::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::space::{HostSpace, MemorySpace, SpaceCopy};
use crate::storage::{Borrowed, Storage};
use crate::view::{IntoIndex, View, ViewBase, ViewRef};
use std::borrow::Cow;
use std::ops::Index;

/// A new, zero-filled host View with the same label, extents and layout
/// type as `v` (compact strides). It never aliases `v`.
///
/// ```
/// use granule_views::{create_mirror, View1};
/// let v = View1::<f32>::from_fn("v", 3, |i| i as f32).unwrap();
/// let m = create_mirror(&v).unwrap();
/// assert_eq!((m.label(), m.extents(), m[2]), ("v", [3], 0.0));
/// ```
pub fn create_mirror<S: Storage, const R: usize, L: Layout>(
    v: &ViewBase<S, R, L>,
) -> Result<View<S::Elem, R, L, HostSpace>> {
    View::zeros_in(HostSpace, v.label(), v.extents())
}

/// A host-readable View of `v`'s shape: `v` itself, borrowed, when its
/// memory space is host-accessible; otherwise a new host View, which
/// [`create_mirror_view_and_copy`] also fills.
#[derive(Debug)]
pub enum MirrorView<'a, T: Element, const R: usize, L: Layout> {
    /// The original View, borrowed: no allocation, no copy.
    Same(ViewRef<'a, T, R, L, HostSpace>),
    /// A separate host allocation.
    Copy(View<T, R, L, HostSpace>),
}

impl<T: Element, const R: usize, L: Layout> MirrorView<'_, T, R, L> {
    /// A shared borrow of the mirror's elements.
    pub fn as_view(&self) -> ViewRef<'_, T, R, L, HostSpace> {
        match self {
            MirrorView::Same(v) => v.clone(),
            MirrorView::Copy(v) => v.view(),
        }
    }

    /// Whether the mirror is the original View itself.
    pub fn is_same(&self) -> bool {
        matches!(self, MirrorView::Same(_))
    }

    /// The elements in index order, last index fastest (row-major),
    /// whatever the layout: the host-side check of a View of any memory
    /// space reads `create_mirror_view_and_copy(&v)?.to_vec()`.
    ///
    /// ```
    /// use granule_views::{create_mirror_view_and_copy, LayoutLeft, View2};
    /// let v = View2::<i32, LayoutLeft>::from_vec("v", [2, 2], vec![1, 2, 3, 4])?;
    /// assert_eq!(create_mirror_view_and_copy(&v)?.to_vec(), [1, 2, 3, 4]);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        match self {
            MirrorView::Same(v) => v.to_vec(),
            MirrorView::Copy(v) => v.to_vec(),
        }
    }
}

impl<T: Element, const R: usize, L: Layout, I: IntoIndex<R>> Index<I> for MirrorView<'_, T, R, L> {
    type Output = T;
    #[track_caller]
    fn index(&self, idx: I) -> &T {
        match self {
            MirrorView::Same(v) => &v[idx],
            MirrorView::Copy(v) => &v[idx],
        }
    }
}

/// `v` itself if it is host-accessible, otherwise a new host mirror
/// (not filled: use [`create_mirror_view_and_copy`] for that).
///
/// ```
/// use granule_views::{create_mirror_view, View1};
/// let v = View1::<i32>::from_fn("v", 4, |i| i as i32).unwrap();
/// let m = create_mirror_view(&v).unwrap();
/// assert!(m.is_same());              // HostSpace: no copy
/// assert_eq!(m[3], 3);
/// ```
pub fn create_mirror_view<S: Storage, const R: usize, L: Layout>(
    v: &ViewBase<S, R, L>,
) -> Result<MirrorView<'_, S::Elem, R, L>> {
    match host_alias(v) {
        Some(same) => Ok(MirrorView::Same(same)),
        None => create_mirror(v).map(MirrorView::Copy),
    }
}

/// Like [`create_mirror_view`], and copies `v` into the mirror when it is
/// a separate allocation.
///
/// ```
/// use granule_views::{create_mirror_view_and_copy, View2};
/// let v = View2::<u8>::from_fn("v", [2, 2], |[i, j]| (2 * i + j) as u8).unwrap();
/// let m = create_mirror_view_and_copy(&v).unwrap();
/// assert_eq!(m.as_view().to_vec(), vec![0, 1, 2, 3]);
/// ```
pub fn create_mirror_view_and_copy<S: Storage, const R: usize, L: Layout>(
    v: &ViewBase<S, R, L>,
) -> Result<MirrorView<'_, S::Elem, R, L>>
where
    HostSpace: SpaceCopy<S::Space>,
{
    match host_alias(v) {
        Some(same) => Ok(MirrorView::Same(same)),
        None => {
            let mut m = create_mirror(v)?;
            deep_copy(&mut m, v)?;
            Ok(MirrorView::Copy(m))
        }
    }
}

/// `v` borrowed as a host View, if its space is host-accessible.
fn host_alias<S: Storage, const R: usize, L: Layout>(
    v: &ViewBase<S, R, L>,
) -> Option<ViewRef<'_, S::Elem, R, L, HostSpace>> {
    if !<S::Space as MemorySpace>::IS_HOST_ACCESSIBLE {
        return None;
    }
    // SAFETY: the space promises (MemorySpace contract) that host code may
    // dereference its pointers, so the data can be described as HostSpace;
    // the pointer is valid for the mapping while `v` is borrowed shared.
    let storage = unsafe { Borrowed::new(v.storage_ptr(), HostSpace, Cow::Borrowed(v.label())) };
    Some(ViewBase::from_raw(storage, *v.mapping()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::foreign::Foreign;
    use crate::{LayoutLeft, View1, View2};

    #[test]
    fn host_views_mirror_themselves() {
        let v =
            View2::<i32, LayoutLeft>::from_fn("v", [2, 3], |[i, j]| (3 * i + j) as i32).unwrap();
        let m = create_mirror_view(&v).unwrap();
        assert!(m.is_same());
        assert_eq!(m.as_view().as_ptr(), v.as_ptr());
        assert_eq!(m[[1, 2]], 5);
        let c = create_mirror(&v).unwrap();
        assert_ne!(c.as_ptr(), v.as_ptr());
        assert_eq!((c.label(), c.extents(), c.strides()), ("v", [2, 3], [1, 2]));
    }

    #[test]
    fn foreign_views_get_separate_mirrors() {
        let mut host = View1::<f64>::from_fn("h", 5, |i| i as f64 * 0.5).unwrap();
        let mut dev = View1::<f64, crate::LayoutRight, Foreign>::zeros_in(Foreign, "d", 5).unwrap();
        // Stage host data into the foreign space through the space's copy.
        // SAFETY: both Views have 5 contiguous elements and do not overlap.
        unsafe { HostSpace.copy_contiguous(dev.as_mut_ptr(), &HostSpace, host.as_ptr(), 5) }
            .unwrap();
        let plain = create_mirror_view(&dev).unwrap();
        assert!(!plain.is_same());
        assert_eq!(
            plain.as_view().to_vec(),
            vec![0.0; 5],
            "create_mirror_view does not copy"
        );
        let copied = create_mirror_view_and_copy(&dev).unwrap();
        assert!(!copied.is_same());
        assert_eq!(copied.as_view().to_vec(), vec![0.0, 0.5, 1.0, 1.5, 2.0]);
        assert_eq!(copied.to_vec(), vec![0.0, 0.5, 1.0, 1.5, 2.0]);
        assert_eq!(copied[4], 2.0);
        host.fill(0.0);
        crate::deep_copy(&mut host, &dev).unwrap();
        assert_eq!(host[3], 1.5);
    }
}
