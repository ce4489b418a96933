//! `resize` and `realloc`: new extents for an owned View, in any memory
//! space, as Kokkos's `resize` and `realloc` give them.

use super::rank::IntoIndex;
use super::View;
use crate::element::Element;
use crate::error::{Result, ViewError};
use crate::layout::{Layout, Mapping};
use crate::space::SpaceCopy;

impl<T: Element, const R: usize, L: Layout, M: SpaceCopy<M>> View<T, R, L, M> {
    /// New extents, keeping the elements whose indices fit in both the old
    /// and the new extents; the other elements are zero (Kokkos's
    /// `resize`). The View keeps its label, layout and memory space. On a
    /// device the kept elements move within the device; when they are
    /// contiguous in both Views (a rank-1 View, or the leading extent of a
    /// `LayoutRight` View) the move is queued like a kernel.
    ///
    /// # Errors
    /// [`ViewError::Allocation`] or [`ViewError::SizeOverflow`] when the
    /// new extents cannot be allocated, [`ViewError::Copy`] when the kept
    /// elements cannot be moved; the View is then unchanged.
    ///
    /// ```
    /// use granule_views::View2;
    /// let mut f = View2::<f64>::from_fn("f", [2, 3], |[i, k]| (10 * i + k) as f64)?;
    /// f.resize([3, 2])?;
    /// assert_eq!((f.label(), f.extents()), ("f", [3, 2]));
    /// assert_eq!(f.to_vec(), [0.0, 1.0, 10.0, 11.0, 0.0, 0.0]);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub fn resize(&mut self, extents: impl IntoIndex<R>) -> Result<()> {
        let mut next = Self::zeros_in(self.space().clone(), self.label(), extents)?;
        let keep: [usize; R] = std::array::from_fn(|r| self.extent(r).min(next.extent(r)));
        if keep.iter().all(|&k| k > 0) {
            let from = Mapping::from_parts(keep, self.strides());
            let to = Mapping::from_parts(keep, next.strides());
            let (src, dst) = (self.as_ptr(), next.as_mut_ptr());
            let same_order = from.strides() == to.strides() || from.size() == 1;
            // SAFETY: `keep` lies inside both Views' extents, so every
            // offset of `from` is an element of `self` and every offset of
            // `to` one of `next`; they are distinct allocations, `next`
            // is owned here and `self` borrowed uniquely. The contiguous
            // path copies `size` elements that both mappings lay out
            // identically and without gaps.
            let copied = unsafe {
                if same_order && from.is_contiguous() {
                    next.space()
                        .copy_contiguous(dst, self.space(), src, from.size())
                } else {
                    next.space().copy_mapped(dst, &to, self.space(), src, &from)
                }
            };
            copied.map_err(|reason| ViewError::Copy {
                dst_label: self.label().into(),
                reason,
            })?;
        }
        *self = next;
        Ok(())
    }

    /// New extents with every element zero, the old contents discarded
    /// (Kokkos's `realloc`). The old elements are freed before the new
    /// ones are allocated, so the two never take memory at once.
    ///
    /// # Errors
    /// [`ViewError::Allocation`] or [`ViewError::SizeOverflow`] when the
    /// new extents cannot be allocated; the View then has extent 0 in
    /// every rank (its old elements are already gone) and keeps its label.
    ///
    /// ```
    /// use granule_views::View1;
    /// let mut neighbours = View1::<u32>::full("neighbours", 4, 7)?;
    /// neighbours.realloc(6)?;
    /// assert_eq!(neighbours.to_vec(), [0; 6]);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub fn realloc(&mut self, extents: impl IntoIndex<R>) -> Result<()> {
        let (space, label) = (self.space().clone(), self.label().to_owned());
        *self = Self::zeros_in(space.clone(), &label, [0; R])?;
        *self = Self::zeros_in(space, &label, extents)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::space::foreign::Foreign;
    use crate::{deep_copy, LayoutLeft, LayoutRight, View, View1, View2, View3, ViewError};

    #[test]
    fn resize_keeps_the_overlap_in_every_layout() {
        let old = |[i, j, k]: [usize; 3]| (100 * i + 10 * j + k) as i64 + 1;
        let mut left = View3::<i64, LayoutLeft>::from_fn("l", [3, 4, 2], old).unwrap();
        let mut right = View3::<i64, LayoutRight>::from_fn("r", [3, 4, 2], old).unwrap();
        left.resize([2, 5, 3]).unwrap();
        right.resize([2, 5, 3]).unwrap();
        let want = |[i, j, k]: [usize; 3]| if j < 4 && k < 2 { old([i, j, k]) } else { 0 };
        left.for_each(|idx, &x| assert_eq!(x, want(idx), "left at {idx:?}"));
        right.for_each(|idx, &x| assert_eq!(x, want(idx), "right at {idx:?}"));
        assert_eq!((left.size(), right.size()), (30, 30));
    }

    #[test]
    fn growing_and_shrinking_a_rank_1_view() {
        let mut v = View1::<u32>::from_fn("v", 5, |i| i as u32 + 1).unwrap();
        v.resize(8).unwrap();
        assert_eq!(v.to_vec(), [1, 2, 3, 4, 5, 0, 0, 0]);
        v.resize(2).unwrap();
        assert_eq!(v.to_vec(), [1, 2]);
        v.resize(0).unwrap();
        v.resize(3).unwrap();
        assert_eq!(v.to_vec(), [0, 0, 0]);
    }

    #[test]
    fn a_foreign_space_resizes_through_its_copies() {
        let host =
            View2::<f32, LayoutLeft>::from_fn("h", [2, 3], |[i, j]| (i * 3 + j) as f32).unwrap();
        let mut dev = View::<f32, 2, LayoutLeft, Foreign>::zeros_in(Foreign, "d", [2, 3]).unwrap();
        deep_copy(&mut dev, &host).unwrap();
        dev.resize([3, 2]).unwrap();
        let mut back = View2::<f32, LayoutLeft>::zeros("b", [3, 2]).unwrap();
        deep_copy(&mut back, &dev).unwrap();
        assert_eq!(back.to_vec(), [0.0, 1.0, 3.0, 4.0, 0.0, 0.0]);
    }

    #[test]
    fn a_failed_resize_leaves_the_view_alone_and_a_failed_realloc_empties_it() {
        let mut v = View1::<f64>::full("v", 3, 2.0).unwrap();
        let e = v.resize(usize::MAX).unwrap_err();
        assert!(matches!(e, ViewError::SizeOverflow { .. }), "{e}");
        assert_eq!(v.to_vec(), [2.0; 3]);
        assert!(v.realloc(usize::MAX).is_err());
        assert_eq!((v.label(), v.extents()), ("v", [0]));
    }
}
