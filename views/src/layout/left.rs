use super::{column_major, strides_match, Layout, Mapping};

/// Column-major layout (Fortran order): the first index is contiguous.
///
/// offset(i0, .., iR-1) = Σ i_r · Π_{q<r} extent_q
///
/// ```
/// use granule_views::{LayoutLeft, View2};
/// let v = View2::<f64, LayoutLeft>::zeros("a", [3, 4]).unwrap();
/// assert_eq!(v.stride(0), 1);
/// assert_eq!(v.stride(1), 3);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutLeft;

// SAFETY: `accepts` demands column-major strides, whose first stride is 1
// whenever the first extent exceeds 1, so `offset` equals the plain sum.
unsafe impl Layout for LayoutLeft {
    const NAME: &'static str = "LayoutLeft";

    fn compact_strides<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
        column_major(extents)
    }

    fn accepts<const R: usize>(map: &Mapping<R>) -> bool {
        strides_match(map, column_major(map.extents()))
    }

    #[inline(always)]
    fn offset<const R: usize>(map: &Mapping<R>, idx: &[usize; R]) -> usize {
        let s = map.strides();
        let mut off = idx[0];
        for r in 1..R {
            off += idx[r] * s[r];
        }
        off
    }
}
