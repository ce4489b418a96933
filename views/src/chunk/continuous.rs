//! [`MapContinuousLinear`]: one contiguous block per thread.

use super::error::ChunkError;
use super::ids::ThreadIds;
use super::map::ChunkMap;

/// Thread g owns the contiguous block `[g*width, (g+1)*width)`: local
/// index k is valid only when `k < width`, and maps to `k + g*width`.
///
/// This is the map of "one row per team": a View of `rows x cols` elements
/// chunked with `MapContinuousLinear::new(cols)` over a league of `rows`.
///
/// Owner of each of 8 elements, 3 threads, width 2 (elements 6 and 7 have
/// no owner):
/// ```
/// use granule_views::chunk::{owner_table, MapContinuousLinear};
/// let owners = owner_table(MapContinuousLinear::new(2), 3, 2, 8);
/// assert_eq!(owners, [Some(0), Some(0), Some(1), Some(1), Some(2), Some(2), None, None]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapContinuousLinear {
    width: usize,
}

impl MapContinuousLinear {
    /// Blocks of `width` elements.
    pub const fn new(width: usize) -> Self {
        MapContinuousLinear { width }
    }

    /// Elements per block.
    pub const fn width(&self) -> usize {
        self.width
    }
}

// SAFETY: valid accesses have k < width, so k + g*width determines
// k (the remainder mod width) and g (the quotient): injective. Overflow
// returns None.
unsafe impl ChunkMap for MapContinuousLinear {
    type Local = usize;

    #[inline]
    fn map(&self, k: usize, t: &ThreadIds) -> Option<usize> {
        if k >= self.width {
            return None;
        }
        t.linear_id().checked_mul(self.width)?.checked_add(k)
    }

    fn check(&self, _dims: [usize; 3]) -> Result<(), ChunkError> {
        if self.width == 0 {
            return Err(ChunkError::ZeroParameter {
                map: "MapContinuousLinear",
                param: "width",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locals_past_the_width_are_invalid() {
        let t = ThreadIds::linear(4, 2).unwrap();
        let m = MapContinuousLinear::new(3);
        assert_eq!(m.map(2, &t), Some(8));
        assert_eq!(m.map(3, &t), None);
        assert!(matches!(
            MapContinuousLinear::new(0).check([1, 1, 1]),
            Err(ChunkError::ZeroParameter { .. })
        ));
    }

    #[test]
    fn works_with_3d_threads() {
        let t = ThreadIds::new([2, 2, 2], [1, 1, 1]).unwrap();
        assert_eq!(MapContinuousLinear::new(2).map(1, &t), Some(15));
    }
}
