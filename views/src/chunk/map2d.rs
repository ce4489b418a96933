//! [`Map2D`]: a 1-D array seen as rows, dealt cyclically to a 2-D thread grid.

use super::error::ChunkError;
use super::ids::ThreadIds;
use super::map::ChunkMap;

/// Views a 1-D array as rows of `x_size` elements and deals cells to a 2-D
/// thread grid cyclically: local `[a, b]` of thread (x, y) maps to column
/// `a*dim_x + x` and row `b*dim_y + y`, i.e. global `row*x_size + column`,
/// valid when `column < x_size`. Requires `dim_z = 1`.
///
/// 20 elements, `x_size` 5, 2x2 threads: threads with x = 0 own columns 0,
/// 2, 4, threads with x = 1 own columns 1, 3, and rows alternate between
/// y = 0 and y = 1 (linear ids: (x, y) = (0, 0) is 0, (1, 0) is 1, (0, 1) 2, (1, 1) 3):
/// ```
/// use granule_views::chunk::{owners, Map2D};
/// let locals: Vec<[usize; 2]> = (0..2).flat_map(|b| (0..3).map(move |a| [a, b])).collect();
/// let o: Vec<usize> = owners(&Map2D::new(5), [2, 2, 1], &locals, 20)?.into_iter().flatten().collect();
/// assert_eq!(o, [0, 1, 0, 1, 0,
///                2, 3, 2, 3, 2,
///                0, 1, 0, 1, 0,
///                2, 3, 2, 3, 2]);
/// # Ok::<(), granule_views::chunk::ChunkError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Map2D {
    x_size: usize,
}

impl Map2D {
    /// Rows of `x_size` elements.
    pub const fn new(x_size: usize) -> Self {
        Map2D { x_size }
    }

    /// Elements per row.
    pub const fn x_size(&self) -> usize {
        self.x_size
    }
}

// SAFETY: dim_z = 1 (checked), so the thread is (x, y). Valid accesses
// have column = a*dim_x + x < x_size, so row*x_size + column determines
// column and row; column mod dim_x and div dim_x give x and a, row mod
// dim_y and div dim_y give y and b: injective. Overflow returns None.
unsafe impl ChunkMap for Map2D {
    type Local = [usize; 2];

    #[inline]
    fn map(&self, [a, b]: [usize; 2], t: &ThreadIds) -> Option<usize> {
        let column = a
            .checked_mul(t.global_dim_x())?
            .checked_add(t.global_id_x())?;
        if column >= self.x_size {
            return None;
        }
        let row = b
            .checked_mul(t.global_dim_y())?
            .checked_add(t.global_id_y())?;
        row.checked_mul(self.x_size)?.checked_add(column)
    }

    fn check(&self, dims: [usize; 3]) -> Result<(), ChunkError> {
        if self.x_size == 0 {
            return Err(ChunkError::ZeroParameter {
                map: "Map2D",
                param: "x_size",
            });
        }
        if dims[2] != 1 {
            return Err(ChunkError::Precondition {
                map: "Map2D",
                dims,
                requires: "dim_z = 1 (2-D threads)",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::owners;

    #[test]
    fn spec_example_columns_and_rows() {
        let locals: Vec<[usize; 2]> = (0..2).flat_map(|b| (0..3).map(move |a| [a, b])).collect();
        let o = owners(&Map2D::new(5), [2, 2, 1], &locals, 20).unwrap();
        for (g, owner) in o.iter().enumerate() {
            let (row, col) = (g / 5, g % 5);
            assert_eq!(*owner, Some(col % 2 + 2 * (row % 2)), "element {g}");
        }
        let x0_columns = (0..5).filter(|c| o[*c] == Some(0)).count();
        assert_eq!(x0_columns, 3);
    }

    #[test]
    fn columns_past_the_row_are_invalid() {
        let t = ThreadIds::new([2, 2, 1], [1, 0, 0]).unwrap();
        assert_eq!(Map2D::new(5).map([2, 0], &t), None);
        assert_eq!(Map2D::new(5).map([1, 1], &t), Some(13));
        assert!(matches!(
            Map2D::new(5).check([2, 2, 2]),
            Err(ChunkError::Precondition { .. })
        ));
        assert!(matches!(
            Map2D::new(0).check([1, 1, 1]),
            Err(ChunkError::ZeroParameter { .. })
        ));
    }
}
