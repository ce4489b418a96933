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
pub fn deep_copy<D, S, const R: usize, LD, LS>(
    dst: &mut ViewBase<D, R, LD>,
    src: &ViewBase<S, R, LS>,
) -> Result<()>
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
    outcome.map_err(|reason| ViewError::Copy {
        dst_label: dst.label().into(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use crate::{deep_copy, LayoutLeft, LayoutRight, LayoutStride, View2, View3, ViewError, ALL};

    #[test]
    fn left_to_right_is_a_transposition_in_memory() {
        let right =
            View2::<f64, LayoutRight>::from_fn("r", [3, 5], |[i, j]| (10 * i + j) as f64).unwrap();
        let mut left = View2::<f64, LayoutLeft>::zeros("l", [3, 5]).unwrap();
        deep_copy(&mut left, &right).unwrap();
        let mem = left.as_slice().unwrap();
        for i in 0..3 {
            for j in 0..5 {
                assert_eq!(left[[i, j]], right[[i, j]]);
                assert_eq!(
                    mem[i + 3 * j],
                    (10 * i + j) as f64,
                    "column-major memory at ({i}, {j})"
                );
            }
        }
        let mut back = View2::<f64, LayoutRight>::zeros("b", [3, 5]).unwrap();
        deep_copy(&mut back, &left).unwrap();
        assert_eq!(back.as_slice(), right.as_slice());
    }

    #[test]
    fn equal_layouts_copy_and_strided_views_copy_elementwise() {
        let a =
            View3::<i32>::from_fn("a", [2, 3, 4], |[i, j, k]| (i * 12 + j * 4 + k) as i32).unwrap();
        let mut b = View3::<i32>::zeros("b", [2, 3, 4]).unwrap();
        deep_copy(&mut b, &a).unwrap();
        assert_eq!(b.to_vec(), a.to_vec());

        let col = a.subview((ALL, 2, ALL)).unwrap();
        let mut dst = View2::<i32, LayoutStride>::with_strides("d", [2, 4], [1, 2]).unwrap();
        deep_copy(&mut dst, &col).unwrap();
        assert_eq!(dst.to_vec(), vec![8, 9, 10, 11, 20, 21, 22, 23]);

        // Into part of a bigger View.
        let mut big = View2::<i32>::zeros("big", [4, 4]).unwrap();
        deep_copy(&mut big.subview_mut((1..3, ALL)).unwrap(), &dst).unwrap();
        assert_eq!(big[[2, 3]], 23);
        assert_eq!(big[[3, 3]], 0);
    }

    #[test]
    fn mismatched_extents_are_a_typed_error_and_nothing_is_written() {
        let src = View2::<f32>::from_fn("src", [2, 3], |[i, j]| (i + j) as f32 + 1.0).unwrap();
        let mut dst = View2::<f32>::zeros("dst", [3, 2]).unwrap();
        let e = deep_copy(&mut dst, &src).unwrap_err();
        assert_eq!(
            e,
            ViewError::ShapeMismatch {
                dst_label: "dst".into(),
                dst_extents: vec![3, 2],
                src_label: "src".into(),
                src_extents: vec![2, 3],
            }
        );
        assert!(e.to_string().contains("[3, 2]") && e.to_string().contains("[2, 3]"));
        assert!(dst.to_vec().iter().all(|&x| x == 0.0));
    }
}
