use super::{row_major, strides_match, Layout, Mapping};

/// Row-major layout, the host default: the last index is contiguous.
///
/// offset(i0, .., iR-1) = Σ i_r · Π_{q>r} extent_q
///
/// ```
/// use granule_views::{LayoutRight, View2};
/// let v = View2::<f64, LayoutRight>::zeros("a", [3, 4]).unwrap();
/// assert_eq!(v.stride(0), 4);
/// assert_eq!(v.stride(1), 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutRight;

// SAFETY: `accepts` demands row-major strides, for which the last stride is 1
// whenever the last extent exceeds 1, so `offset` below equals the plain sum
// (when the last extent is <= 1 the index there is 0 and the term vanishes).
unsafe impl Layout for LayoutRight {
    const NAME: &'static str = "LayoutRight";

    fn compact_strides<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
        row_major(extents)
    }

    fn accepts<const R: usize>(map: &Mapping<R>) -> bool {
        strides_match(map, row_major(map.extents()))
    }

    #[inline(always)]
    fn offset<const R: usize>(map: &Mapping<R>, idx: &[usize; R]) -> usize {
        let s = map.strides();
        let mut off = idx[R - 1];
        for r in 0..R - 1 {
            off += idx[r] * s[r];
        }
        off
    }
}
