//! [`MapLinear`]: chunks of `width` consecutive elements dealt to the
//! threads in turn.

use super::error::ChunkError;
use super::ids::ThreadIds;
use super::map::ChunkMap;

/// Chunks of `width` consecutive elements dealt to the threads in turn,
/// until all elements are covered: with T threads, local index k of thread
/// g maps to
///
/// ```text
/// (k mod width) + (k div width) * width * T + g * width
/// ```
///
/// `DIMS` (1, 2 or 3) is how many thread axes the scope may use: the 1-D
/// form ([`MapLinear::new`]) requires `dim_y = dim_z = 1`, the 2-D form
/// ([`MapLinear::new_2d`]) `dim_z = 1`; [`ChunkMap::check`] reports a
/// violation as [`ChunkError::Precondition`]. Every local index is valid
/// (the caller bounds it by the array's length).
///
/// Owner of each of 8 elements, 4 threads:
/// ```
/// use granule_views::chunk::{owner_table, MapLinear};
/// let owners = |w| owner_table(MapLinear::new(w), 4, 8, 8).into_iter().flatten().collect::<Vec<_>>();
/// assert_eq!(owners(2), [0, 0, 1, 1, 2, 2, 3, 3]);
/// assert_eq!(owners(1), [0, 1, 2, 3, 0, 1, 2, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapLinear<const DIMS: usize = 1> {
    width: usize,
}

impl MapLinear<1> {
    /// The 1-D form: threads along x only.
    pub const fn new(width: usize) -> Self {
        MapLinear { width }
    }
}

impl MapLinear<2> {
    /// The 2-D form: threads along x and y, `g = x + y * dim_x`.
    ///
    /// ```
    /// use granule_views::chunk::{owners, MapLinear};
    /// let o = owners(&MapLinear::new_2d(1), [2, 2, 1], &[0, 1], 8)?;
    /// assert_eq!(o, [0, 1, 2, 3, 0, 1, 2, 3].map(Some));
    /// # Ok::<(), granule_views::chunk::ChunkError>(())
    /// ```
    pub const fn new_2d(width: usize) -> Self {
        MapLinear { width }
    }
}

impl MapLinear<3> {
    /// The 3-D form: threads along x, y and z.
    pub const fn new_3d(width: usize) -> Self {
        MapLinear { width }
    }
}

impl<const DIMS: usize> MapLinear<DIMS> {
    /// Elements per chunk.
    pub const fn width(&self) -> usize {
        self.width
    }
}

const PRECONDITION: [&str; 3] = [
    "dim_y = 1 and dim_z = 1 (1-D threads)",
    "dim_z = 1 (2-D threads)",
    "",
];

// SAFETY: let T = count, w = width >= 1 (checked). k = q*w + r with
// r < w, so the result is r + w*(q*T + g), and g < T. From the result,
// r is its remainder mod w, q*T + g its quotient, and q, g that quotient's
// div and mod T: (k, g) is recovered, so the map is injective. This holds
// only for the exact integers: every product and sum is checked (g*w
// included, which wraps for a huge width), so an access whose index does
// not fit is None and never aliases a smaller index.
unsafe impl<const DIMS: usize> ChunkMap for MapLinear<DIMS> {
    type Local = usize;

    #[inline]
    fn map(&self, k: usize, t: &ThreadIds) -> Option<usize> {
        let w = self.width;
        let q = (k / w).checked_mul(w)?.checked_mul(t.count())?;
        q.checked_add(t.linear_id().checked_mul(w)?)?
            .checked_add(k % w)
    }

    fn check(&self, dims: [usize; 3]) -> Result<(), ChunkError> {
        const {
            assert!(
                DIMS >= 1 && DIMS <= 3,
                "MapLinear has 1, 2 or 3 thread dims"
            )
        };
        if self.width == 0 {
            return Err(ChunkError::ZeroParameter {
                map: "MapLinear",
                param: "width",
            });
        }
        if dims[DIMS..].iter().any(|&d| d != 1) {
            return Err(ChunkError::Precondition {
                map: "MapLinear",
                dims,
                requires: PRECONDITION[DIMS - 1],
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::owner_table;

    #[test]
    fn spec_examples() {
        let owners = |w| owner_table(MapLinear::new(w), 4, 8, 8);
        assert_eq!(owners(2), [0, 0, 1, 1, 2, 2, 3, 3].map(Some));
        assert_eq!(owners(1), [0, 1, 2, 3, 0, 1, 2, 3].map(Some));
    }

    #[test]
    fn preconditions_are_typed_errors() {
        let err = |r: Result<(), ChunkError>| matches!(r, Err(ChunkError::Precondition { .. }));
        assert!(err(MapLinear::new(1).check([2, 2, 1])));
        assert!(err(MapLinear::new(1).check([2, 1, 2])));
        assert!(err(MapLinear::new_2d(1).check([2, 2, 2])));
        assert!(MapLinear::new_2d(1).check([2, 2, 1]).is_ok());
        assert!(MapLinear::new_3d(1).check([2, 2, 2]).is_ok());
        assert!(matches!(
            MapLinear::new(0).check([1, 1, 1]),
            Err(ChunkError::ZeroParameter { .. })
        ));
    }

    #[test]
    fn overflow_is_invalid_not_wrapped() {
        let t = ThreadIds::linear(4, 3).unwrap();
        assert_eq!(MapLinear::new(2).map(usize::MAX, &t), None);
    }

    /// With a width of 2^63 + 1, thread 2's first element `2 * w` would
    /// wrap to 2, which is thread 0's local 2, if the product were not
    /// checked. Every thread's valid accesses must stay distinct, in
    /// release builds too.
    #[test]
    fn huge_width_never_shares_an_element() {
        let w = (1usize << 63) + 1;
        let map = MapLinear::new(w);
        let locals = [0, 1, 2, 3, w - 1, w, w + 1, usize::MAX];
        let threads = 4;
        let mut seen = std::collections::HashMap::new();
        for g in 0..threads {
            let t = ThreadIds::linear(threads, g).unwrap();
            for &k in &locals {
                if let Some(e) = map.map(k, &t) {
                    if let Some(first) = seen.insert(e, (g, k)) {
                        panic!("element {e}: thread {g} local {k} and {first:?}");
                    }
                }
            }
        }
        let t2 = ThreadIds::linear(threads, 2).unwrap();
        assert_eq!(
            map.map(0, &t2),
            None,
            "2 * (2^63 + 1) does not fit in usize"
        );
        let t1 = ThreadIds::linear(threads, 1).unwrap();
        assert_eq!(map.map(0, &t1), Some(w));
    }

    /// The same through the owner checker, for every width near a power of
    /// two that makes `g * width` wrap for some of 3 threads.
    #[test]
    fn owners_of_huge_widths_never_overlap() {
        for shift in [62, 63] {
            for w in [(1usize << shift) - 1, 1 << shift, (1 << shift) + 1] {
                let locals = [0, 1, 2, 3, 4, 5];
                let r = crate::chunk::owners(&MapLinear::new(w), [3, 1, 1], &locals, 8);
                assert!(r.is_ok(), "width {w}: {r:?}");
            }
        }
    }
}
