use super::{row_major, Layout, Mapping};

/// Arbitrary strides per rank. Subviews that lose contiguity have this layout.
///
/// offset(i0, .., iR-1) = Σ i_r · stride_r
///
/// ```
/// use granule_views::{View2, ALL};
/// let a = View2::<i32>::from_fn("a", [4, 6], |[i, j]| (10 * i + j) as i32).unwrap();
/// let col = a.subview((ALL, 2)).unwrap();   // every row, column 2
/// assert_eq!(col.stride(0), 6);
/// assert_eq!(col[3], 32);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutStride;

// SAFETY: `offset` is exactly the plain sum of index times stride.
unsafe impl Layout for LayoutStride {
    const NAME: &'static str = "LayoutStride";

    fn compact_strides<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
        row_major(extents)
    }

    fn accepts<const R: usize>(_map: &Mapping<R>) -> bool {
        true
    }

    #[inline(always)]
    fn offset<const R: usize>(map: &Mapping<R>, idx: &[usize; R]) -> usize {
        map.offset(idx)
    }
}
