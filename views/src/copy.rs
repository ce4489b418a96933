//! `deep_copy`: copying element values between Views.

use crate::error::{Result, ViewError};
use crate::layout::Layout;
use crate::space::SpaceCopy;
use crate::storage::{Storage, StorageMut};
use crate::view::ViewBase;

/// Copies every element of `src` into `dst`. The extents must be equal;
/// otherwise a [`ViewError::ShapeMismatch`] is returned and nothing is
/// written. Same mapping and contiguous: one memcpy. Otherwise element by
/// element (for example LayoutLeft to LayoutRight, a transposition).
///
/// ```
/// use granule_views::{deep_copy, LayoutLeft, View2, ViewError};
/// let a = View2::<i32>::from_vec("a", [2, 2], vec![1, 2, 3, 4]).unwrap();
/// let mut b = View2::<i32, LayoutLeft>::zeros("b", [2, 2]).unwrap();
/// deep_copy(&mut b, &a).unwrap();
/// assert_eq!(b.as_slice().unwrap(), &[1, 3, 2, 4]); // column-major in memory
///
/// let mut c = View2::<i32>::zeros("c", [2, 3]).unwrap();
/// assert!(matches!(deep_copy(&mut c, &a), Err(ViewError::ShapeMismatch { .. })));
/// ```
pub fn deep_copy<D, S, const R: usize, LD, LS>(dst: &mut ViewBase<D, R, LD>, src: &ViewBase<S, R, LS>) -> Result<()>
where
    D: StorageMut,
    S: Storage<Elem = D::Elem>,
    D::Space: SpaceCopy<S::Space>,
    LD: Layout,
    LS: Layout,
{
    if dst.extents() != src.extents() {
        return Err(ViewError::ShapeMismatch {
            dst_label: dst.label().into(),
            dst_extents: dst.extents().to_vec(),
            src_label: src.label().into(),
            src_extents: src.extents().to_vec(),
        });
    }
    let same_memory_order = dst.strides() == src.strides() || dst.size() <= 1;
    let (dst_map, src_map, count) = (*dst.mapping(), *src.mapping(), src.size());
    let dst_space = dst.space().clone();
    let src_ptr = src.as_ptr();
    let dst_ptr = dst.as_mut_ptr();
    // SAFETY: both pointers are valid for their mappings (Storage contract);
    // `dst` is borrowed uniquely and `src` shared, so they cannot overlap.
    // The contiguous path copies `size == span` elements of identical
    // mappings; the mapped path visits indices within the equal extents.
    let outcome = unsafe {
        if same_memory_order && dst_map.is_contiguous() {
            dst_space.copy_contiguous(dst_ptr, src.space(), src_ptr, count)
        } else {
            dst_space.copy_mapped(dst_ptr, &dst_map, src.space(), src_ptr, &src_map)
        }
    };
    outcome.map_err(|reason| ViewError::Copy { dst_label: dst.label().into(), reason })
}
