use crate::error::{Result, ViewError};

/// Extents and strides of a View: the run-time half of its layout.
///
/// Invariants, established by the checked constructors: the rank is 1..=8,
/// the number of elements and the span fit in `usize`, and distinct indices
/// never share an offset (strides do not overlap).
///
/// ```
/// use granule_views::{LayoutLeft, Layout, Mapping};
/// let m = Mapping::compact::<LayoutLeft>("m", [2, 3]).unwrap();
/// assert_eq!(m.offset(&[1, 2]), 1 + 2 * 2);
/// assert_eq!(m.span(), 6);
/// assert!(m.is_contiguous());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping<const R: usize> {
    extents: [usize; R],
    strides: [usize; R],
}

impl<const R: usize> Mapping<R> {
    const RANK_OK: () = assert!(R >= 1 && R <= 8, "View rank must be 1..=8");

    /// The compact mapping of `L` for `extents`; `label` names the View in errors.
    ///
    /// Fails with [`ViewError::SizeOverflow`] when the element count or a
    /// stride does not fit in `usize`. Strides treat a zero extent as 1, so
    /// `[0, 2^40, 2^40]` is refused even though it holds no element: its
    /// strides would wrap.
    pub fn compact<L: crate::layout::Layout>(label: &str, extents: [usize; R]) -> Result<Self> {
        let strides = L::compact_strides(&extents).ok_or_else(|| ViewError::SizeOverflow {
            label: label.into(),
            extents: extents.to_vec(),
            elem_bytes: 1,
        })?;
        Self::with_strides(label, extents, strides)
    }

    /// A mapping with explicit strides, rejected if they overflow or overlap.
    pub fn with_strides(label: &str, extents: [usize; R], strides: [usize; R]) -> Result<Self> {
        #[allow(clippy::let_unit_value)]
        let () = Self::RANK_OK;
        let invalid = |reason| ViewError::InvalidStrides {
            label: label.into(),
            extents: extents.to_vec(),
            strides: strides.to_vec(),
            reason,
        };
        let overflow = || ViewError::SizeOverflow {
            label: label.into(),
            extents: extents.to_vec(),
            elem_bytes: 1,
        };
        let size = extents
            .iter()
            .try_fold(1usize, |a, &e| a.checked_mul(e))
            .ok_or_else(overflow)?;
        // Strides travel as `isize` (pointer offsets, ndarray's strides,
        // the device's signed arithmetic), even along an axis of length 0
        // or 1 that never uses them.
        if strides.iter().any(|&s| s > isize::MAX as usize) {
            return Err(invalid("a stride above isize::MAX"));
        }
        // The span must fit in usize so that no offset computation can wrap.
        let mut span = 1usize;
        for r in 0..R {
            let reach = (extents[r].max(1) - 1)
                .checked_mul(strides[r])
                .ok_or_else(overflow)?;
            span = span.checked_add(reach).ok_or_else(overflow)?;
        }
        if size > 0 && !non_overlapping(&extents, &strides) {
            return Err(invalid("distinct indices would share an offset"));
        }
        Ok(Mapping { extents, strides })
    }

    /// Builds a mapping the caller already knows to be valid (from a valid parent).
    pub(crate) fn from_parts(extents: [usize; R], strides: [usize; R]) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::RANK_OK;
        Mapping { extents, strides }
    }

    /// Extents of every rank.
    #[inline(always)]
    pub fn extents(&self) -> &[usize; R] {
        &self.extents
    }

    /// Strides of every rank, in elements.
    #[inline(always)]
    pub fn strides(&self) -> &[usize; R] {
        &self.strides
    }

    /// Number of elements: the product of the extents.
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.extents.iter().product()
    }

    /// Elements an allocation needs: one past the largest offset (0 when empty).
    pub fn span(&self) -> usize {
        if self.size() == 0 {
            return 0;
        }
        1 + (0..R)
            .map(|r| (self.extents[r] - 1) * self.strides[r])
            .sum::<usize>()
    }

    /// Whether the elements fill `[0, span)` with no holes.
    pub fn is_contiguous(&self) -> bool {
        self.span() == self.size()
    }

    /// Whether `idx` lies inside the extents.
    #[inline(always)]
    pub fn contains(&self, idx: &[usize; R]) -> bool {
        idx.iter().zip(&self.extents).all(|(i, e)| i < e)
    }

    /// Σ idx_r · stride_r, with no bounds check.
    #[inline(always)]
    pub fn offset(&self, idx: &[usize; R]) -> usize {
        idx.iter().zip(&self.strides).map(|(i, s)| i * s).sum()
    }

    /// Calls `f` on every index in row-major order (last index fastest).
    pub fn for_each_index(&self, mut f: impl FnMut(&[usize; R])) {
        if self.size() == 0 {
            return;
        }
        let mut idx = [0usize; R];
        loop {
            f(&idx);
            let mut r = R;
            loop {
                if r == 0 {
                    return;
                }
                r -= 1;
                idx[r] += 1;
                if idx[r] < self.extents[r] {
                    break;
                }
                idx[r] = 0;
            }
        }
    }
}

/// Sufficient condition for injectivity: sorted by stride, each rank's
/// stride reaches past everything the smaller-stride ranks cover.
fn non_overlapping<const R: usize>(extents: &[usize; R], strides: &[usize; R]) -> bool {
    let mut dims: Vec<usize> = (0..R).filter(|&r| extents[r] > 1).collect();
    dims.sort_by_key(|&r| strides[r]);
    let mut covered = 1usize; // offsets [0, covered) are spanned so far
    for r in dims {
        if strides[r] < covered {
            return false;
        }
        match strides[r]
            .checked_mul(extents[r] - 1)
            .and_then(|x| x.checked_add(covered))
        {
            Some(c) => covered = c,
            None => return false,
        }
    }
    true
}
