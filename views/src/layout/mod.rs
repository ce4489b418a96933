//! Layouts: how a multi-index maps to an offset in memory.
//!
//! Every View keeps its extents and strides at run time in a [`Mapping`];
//! the layout type says how those strides were made and lets the offset
//! computation use what it knows statically (the unit stride of
//! [`LayoutRight`]'s last and [`LayoutLeft`]'s first rank).

mod left;
mod mapping;
mod right;
mod stride;

pub use left::LayoutLeft;
pub use mapping::Mapping;
pub use right::LayoutRight;
pub use stride::LayoutStride;

use std::fmt::Debug;

/// A memory layout for Views of any rank.
///
/// # Safety
/// For any mapping accepted by [`Layout::accepts`], [`Layout::offset`] must
/// equal [`Mapping::offset`] (the plain sum of index times stride): View
/// indexing and copies rely on both agreeing, and on offsets staying below
/// the span.
pub unsafe trait Layout: Copy + Default + Debug + Send + Sync + 'static {
    /// Name used in messages (`"LayoutRight"`).
    const NAME: &'static str;

    /// Strides of a compact allocation with these extents, or `None` when
    /// a stride does not fit in `usize` (only possible when another extent
    /// is zero, since otherwise every stride divides the element count).
    /// Layouts without a natural order (LayoutStride) use row-major.
    fn compact_strides<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]>;

    /// Whether `map` is a mapping this layout can describe.
    fn accepts<const R: usize>(map: &Mapping<R>) -> bool;

    /// The offset of `idx`; `idx` has already been checked against the extents.
    fn offset<const R: usize>(map: &Mapping<R>, idx: &[usize; R]) -> usize;
}

/// Row-major strides (last rank contiguous) for `extents`, `None` if one
/// overflows. Zero extents count as 1, so an empty View of huge other
/// extents has strides that would not fit: it is refused rather than given
/// wrapped strides.
fn row_major<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
    let mut strides = [0; R];
    let mut acc = 1usize;
    for r in (0..R).rev() {
        strides[r] = acc;
        // The product past the slowest rank is never a stride, so only the
        // ranks that produce one need to fit.
        if r > 0 {
            acc = acc.checked_mul(extents[r].max(1))?;
        }
    }
    Some(strides)
}

/// Column-major strides (first rank contiguous) for `extents`, `None` if
/// one overflows (see [`row_major`]).
fn column_major<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
    let mut strides = [0; R];
    let mut acc = 1usize;
    for r in 0..R {
        strides[r] = acc;
        if r + 1 < R {
            acc = acc.checked_mul(extents[r].max(1))?;
        }
    }
    Some(strides)
}

/// Whether `map`'s strides equal `expected`, ignoring ranks of extent 0 or 1
/// (whose stride never contributes to an offset). Strides that overflow
/// match no mapping.
fn strides_match<const R: usize>(map: &Mapping<R>, expected: Option<[usize; R]>) -> bool {
    let Some(expected) = expected else {
        return false;
    };
    (0..R).all(|r| map.extents()[r] <= 1 || map.strides()[r] == expected[r])
}

#[cfg(test)]
mod tests;
