//! `MDRangePolicy`: a box of rank 2 to 6, cut into tiles.

use super::Policy;
use crate::error::PolicyError;
use crate::space::ExecutionSpace;

/// An iteration order: which index varies fastest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Iterate {
    /// The first index varies fastest (column-major, LayoutLeft's order).
    Left,
    /// The last index varies fastest (row-major, LayoutRight's order).
    #[default]
    Right,
}

/// The indices `lower[r] <= i_r < upper[r]` for every rank `r` of a rank-`R`
/// box, `2 <= R <= 6`, cut into tiles of `tiles[r]` per rank. Tiles are
/// distributed among threads in the outer order, and each tile is walked
/// in the inner order.
///
/// ```
/// use granule_core::{Iterate, MDRangePolicy, Serial, PolicyError};
/// let p = MDRangePolicy::new(&Serial, [0, 0], [4, 6])
///     .with_tiles([2, 3])
///     .with_iterate(Iterate::Left, Iterate::Left);
/// assert_eq!(p.tile_counts(), [2, 2]);
/// assert_eq!(p.size(), 24);
/// assert_eq!(MDRangePolicy::try_new(&Serial, [0], [4]).unwrap_err(), PolicyError::MDRangeRank { rank: 1 });
/// assert!(MDRangePolicy::try_new(&Serial, [3, 0], [1, 2]).is_err());
/// ```
#[derive(Debug)]
pub struct MDRangePolicy<'s, S: ExecutionSpace, const R: usize> {
    space: &'s S,
    lower: [usize; R],
    upper: [usize; R],
    tiles: [usize; R],
    outer: Iterate,
    inner: Iterate,
}

impl<S: ExecutionSpace, const R: usize> Clone for MDRangePolicy<'_, S, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: ExecutionSpace, const R: usize> Copy for MDRangePolicy<'_, S, R> {}

/// Default tile: the fastest rank whole (up to this), the others 1..
const DEFAULT_INNER_TILE: usize = 4096;

impl<'s, S: ExecutionSpace, const R: usize> MDRangePolicy<'s, S, R> {
    /// The box `lower..upper` on `space`, row-major order, default tiles.
    ///
    /// # Panics
    /// On a rank outside 2..=6 or a reversed bound, with the values; use
    /// [`MDRangePolicy::try_new`] for a typed error.
    #[track_caller]
    pub fn new(space: &'s S, lower: [usize; R], upper: [usize; R]) -> Self {
        Self::try_new(space, lower, upper).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The box `lower..upper`, or a [`PolicyError`] naming the rank or
    /// bound that is out of range.
    pub fn try_new(
        space: &'s S,
        lower: [usize; R],
        upper: [usize; R],
    ) -> Result<Self, PolicyError> {
        if !(2..=6).contains(&R) {
            return Err(PolicyError::MDRangeRank { rank: R });
        }
        for r in 0..R {
            if lower[r] > upper[r] {
                return Err(PolicyError::MDRangeBounds {
                    rank: r,
                    lower: lower[r],
                    upper: upper[r],
                });
            }
        }
        // `size` and `num_tiles` multiply the extents; an empty box has no
        // indices however large its other extents are.
        let extents: [usize; R] = std::array::from_fn(|r| upper[r] - lower[r]);
        if !extents.contains(&0) && checked_product(&extents).is_none() {
            return Err(PolicyError::MDRangeTooLarge {
                extents: extents.to_vec(),
            });
        }
        let mut p = MDRangePolicy {
            space,
            lower,
            upper,
            tiles: [1; R],
            outer: Iterate::Right,
            inner: Iterate::Right,
        };
        p.tiles = p.default_tiles();
        Ok(p)
    }

    fn default_tiles(&self) -> [usize; R] {
        let mut t = [1; R];
        let fast = match self.inner {
            Iterate::Right => R - 1,
            Iterate::Left => 0,
        };
        t[fast] = (self.upper[fast] - self.lower[fast]).clamp(1, DEFAULT_INNER_TILE);
        t
    }

    /// Sets the tile extents (Kokkos's third constructor argument).
    ///
    /// # Panics
    /// If a tile extent is 0; use [`MDRangePolicy::try_with_tiles`] for a
    /// typed error.
    #[track_caller]
    pub fn with_tiles(self, tiles: [usize; R]) -> Self {
        self.try_with_tiles(tiles).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Sets the tile extents, or [`PolicyError::ZeroTile`].
    pub fn try_with_tiles(mut self, tiles: [usize; R]) -> Result<Self, PolicyError> {
        if let Some(rank) = tiles.iter().position(|&t| t == 0) {
            return Err(PolicyError::ZeroTile { rank });
        }
        self.tiles = tiles;
        Ok(self)
    }

    /// Sets the order of tiles (`outer`) and of indices within a tile
    /// (`inner`), Kokkos's `Rank<R, outer, inner>`. Default tiles follow
    /// the new inner order.
    pub fn with_iterate(mut self, outer: Iterate, inner: Iterate) -> Self {
        let default = self.tiles == self.default_tiles();
        self.outer = outer;
        self.inner = inner;
        if default {
            self.tiles = self.default_tiles();
        }
        self
    }

    /// Lower bounds.
    pub fn lower(&self) -> [usize; R] {
        self.lower
    }
    /// Upper bounds (exclusive).
    pub fn upper(&self) -> [usize; R] {
        self.upper
    }
    /// Tile extents.
    pub fn tile_extents(&self) -> [usize; R] {
        self.tiles
    }
    /// Tiles per rank.
    pub fn tile_counts(&self) -> [usize; R] {
        std::array::from_fn(|r| (self.upper[r] - self.lower[r]).div_ceil(self.tiles[r]))
    }
    /// Total number of tiles.
    pub fn num_tiles(&self) -> usize {
        // Each count is at most its extent, whose product `try_new` checked.
        product_or_zero(&self.tile_counts())
    }
    /// Number of indices in the box.
    pub fn size(&self) -> usize {
        // Checked to fit by `try_new`.
        product_or_zero(&std::array::from_fn::<_, R, _>(|r| {
            self.upper[r] - self.lower[r]
        }))
    }
    /// The order of tiles.
    pub fn outer(&self) -> Iterate {
        self.outer
    }
    /// The order within a tile.
    pub fn inner(&self) -> Iterate {
        self.inner
    }
    /// The execution space.
    pub fn space(&self) -> &'s S {
        self.space
    }

    /// The bounds `(lo, hi)` of tile number `t`, tiles numbered in the
    /// outer order.
    ///
    /// # Panics
    /// If `t >= self.num_tiles()`, naming both.
    #[track_caller]
    pub fn tile_bounds(&self, t: usize) -> ([usize; R], [usize; R]) {
        let counts = self.tile_counts();
        let tiles = product_or_zero(&counts);
        assert!(
            t < tiles,
            "MDRangePolicy: tile {t} does not exist; the box {:?}..{:?} has {tiles} tiles of {:?}",
            self.lower,
            self.upper,
            self.tiles
        );
        let mut rest = t;
        let mut lo = [0; R];
        let mut hi = [0; R];
        let mut visit = |r: usize| {
            let k = rest % counts[r];
            rest /= counts[r];
            // k < ceil(extent / tile), so k * tile < extent: lo < upper.
            lo[r] = self.lower[r] + k * self.tiles[r];
            // Not `(lo + tile).min(upper)`: that wraps for a tile near
            // usize::MAX and empties the tile.
            hi[r] = lo[r] + self.tiles[r].min(self.upper[r] - lo[r]);
        };
        match self.outer {
            Iterate::Right => (0..R).rev().for_each(&mut visit),
            Iterate::Left => (0..R).for_each(&mut visit),
        }
        (lo, hi)
    }

    /// Calls `f` for every index of tile `t`, in the inner order.
    #[inline]
    pub fn for_each_in_tile(&self, t: usize, mut f: impl FnMut([usize; R])) {
        let (lo, hi) = self.tile_bounds(t);
        if (0..R).any(|r| lo[r] >= hi[r]) {
            return;
        }
        let (fast, order): (usize, [usize; R]) = match self.inner {
            Iterate::Right => (R - 1, std::array::from_fn(|k| R - 1 - k)),
            Iterate::Left => (0, std::array::from_fn(|k| k)),
        };
        let mut idx = lo;
        loop {
            for i in lo[fast]..hi[fast] {
                idx[fast] = i;
                f(idx);
            }
            // advance the slower ranks like an odometer
            let mut k = 1;
            loop {
                if k == R {
                    return;
                }
                let r = order[k];
                idx[r] += 1;
                if idx[r] < hi[r] {
                    break;
                }
                idx[r] = lo[r];
                k += 1;
            }
        }
    }
}

/// The product of `v`, or `None` if it overflows.
fn checked_product(v: &[usize]) -> Option<usize> {
    v.iter().try_fold(1usize, |a, &e| a.checked_mul(e))
}

/// The product of `v`, which is 0 as soon as one factor is, even if the
/// others' product would not fit; otherwise it must fit (checked by
/// `try_new`).
fn product_or_zero(v: &[usize]) -> usize {
    if v.contains(&0) {
        return 0;
    }
    checked_product(v).expect("MDRangePolicy: the box size was checked to fit in usize")
}

impl<S: ExecutionSpace, const R: usize> Policy for MDRangePolicy<'_, S, R> {
    type Space = S;
    type WorkIndex<'a> = [usize; R];
    type WriteIndex = [usize; R];
    const KIND: &'static str = "MDRange";
    fn space(&self) -> &S {
        self.space
    }
    fn write_bound(&self) -> [usize; R] {
        if self.lower.iter().zip(&self.upper).all(|(l, u)| l < u) {
            self.upper
        } else {
            [0; R]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Serial;

    #[test]
    fn ranks_out_of_range_are_errors() {
        assert_eq!(
            MDRangePolicy::try_new(&Serial, [0; 7], [1; 7]).unwrap_err(),
            PolicyError::MDRangeRank { rank: 7 }
        );
        let e = MDRangePolicy::try_new(&Serial, [0, 5, 0], [1, 2, 1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "MDRangePolicy: in rank 1 the lower bound 5 is greater than the upper bound 2"
        );
        assert_eq!(
            MDRangePolicy::new(&Serial, [0, 0], [2, 2])
                .try_with_tiles([1, 0])
                .unwrap_err(),
            PolicyError::ZeroTile { rank: 1 }
        );
    }

    #[test]
    fn tiles_cover_the_box_once_in_both_orders() {
        for (outer, inner) in [
            (Iterate::Right, Iterate::Right),
            (Iterate::Left, Iterate::Left),
            (Iterate::Left, Iterate::Right),
        ] {
            let p = MDRangePolicy::new(&Serial, [1, 2, 0], [5, 9, 3])
                .with_tiles([3, 2, 2])
                .with_iterate(outer, inner);
            let mut seen = vec![0; 5 * 9 * 3];
            for t in 0..p.num_tiles() {
                p.for_each_in_tile(t, |[i, j, k]| seen[(i * 9 + j) * 3 + k] += 1);
            }
            for i in 0..5 {
                for j in 0..9 {
                    for k in 0..3 {
                        let inside = i >= 1 && j >= 2;
                        assert_eq!(seen[(i * 9 + j) * 3 + k], inside as i32, "({i},{j},{k})");
                    }
                }
            }
        }
    }

    /// `(lo + tile).min(end)` would wrap for huge tiles and leave the
    /// tile empty, so the bound is `lo + tile.min(end - lo)`. Every index
    /// must be visited exactly once.
    #[test]
    fn huge_tiles_visit_every_index_once() {
        for tile in [usize::MAX, usize::MAX - 1, 1 << 63] {
            for (outer, inner) in [
                (Iterate::Right, Iterate::Right),
                (Iterate::Left, Iterate::Left),
            ] {
                let p = MDRangePolicy::new(&Serial, [1, 1], [5, 3])
                    .with_tiles([tile, tile])
                    .with_iterate(outer, inner);
                assert_eq!(p.num_tiles(), 1);
                assert_eq!(p.tile_bounds(0), ([1, 1], [5, 3]));
                let mut seen = [[0; 3]; 5];
                p.for_each_in_tile(0, |[i, j]| seen[i][j] += 1);
                for (i, row) in seen.iter().enumerate() {
                    for (j, &n) in row.iter().enumerate() {
                        let inside = i >= 1 && j >= 1;
                        assert_eq!(n, inside as i32, "tile {tile}: ({i},{j})");
                    }
                }
            }
        }
        // A box reaching usize::MAX with a tile that does not divide it.
        let top = usize::MAX;
        let p = MDRangePolicy::new(&Serial, [top - 3, 0], [top, 1]).with_tiles([2, top]);
        let mut visited = vec![];
        for t in 0..p.num_tiles() {
            p.for_each_in_tile(t, |[i, _]| visited.push(i));
        }
        assert_eq!(visited, [top - 3, top - 2, top - 1]);
    }

    #[test]
    fn boxes_with_more_indices_than_usize_are_errors() {
        let e = MDRangePolicy::try_new(&Serial, [0, 0, 0], [1 << 40, 1 << 40, 2]).unwrap_err();
        assert_eq!(
            e,
            PolicyError::MDRangeTooLarge {
                extents: vec![1 << 40, 1 << 40, 2]
            }
        );
        assert!(
            e.to_string().contains("[1099511627776, 1099511627776, 2]"),
            "{e}"
        );
        let empty = MDRangePolicy::new(&Serial, [0, 0, 0], [1 << 40, 1 << 40, 0]);
        assert_eq!((empty.size(), empty.num_tiles()), (0, 0));
    }

    #[test]
    #[should_panic(expected = "tile 0 does not exist")]
    fn tiles_of_an_empty_box_do_not_exist() {
        MDRangePolicy::new(&Serial, [0, 0], [0, 4]).tile_bounds(0);
    }

    #[test]
    fn inner_order_is_respected() {
        let mut order = vec![];
        let p = MDRangePolicy::new(&Serial, [0, 0], [2, 2])
            .with_tiles([2, 2])
            .with_iterate(Iterate::Left, Iterate::Left);
        p.for_each_in_tile(0, |idx| order.push(idx));
        assert_eq!(order, vec![[0, 0], [1, 0], [0, 1], [1, 1]]);
    }
}
