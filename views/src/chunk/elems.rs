//! The elements behind a chunk: a base pointer, the View's extents and
//! strides (rank erased), and its label; plus the panics of bad accesses.
//!
//! Chunks address a View of any rank and layout by its row-major linear
//! index: global index g is the g-th element in index order, last index
//! fastest, whatever the layout in memory.

use super::ids::ThreadIds;
use super::map::ChunkMap;
use crate::layout::Mapping;
use std::fmt::Debug;
use std::ptr::NonNull;

/// The most ranks a View has.
const MAX_RANK: usize = 8;

/// Rank-erased extents and strides, with the row-major fast path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Addr {
    extents: [usize; MAX_RANK],
    strides: [usize; MAX_RANK],
    rank: usize,
    size: usize,
    /// Whether offset == linear index (LayoutRight, contiguous).
    identity: bool,
}

impl Addr {
    pub(crate) fn new<const R: usize>(map: &Mapping<R>) -> Self {
        let mut addr = Addr {
            extents: [1; MAX_RANK],
            strides: [0; MAX_RANK],
            rank: R,
            size: map.size(),
            identity: true,
        };
        addr.extents[..R].copy_from_slice(map.extents());
        addr.strides[..R].copy_from_slice(map.strides());
        let mut row = 1usize;
        for r in (0..R).rev() {
            addr.identity &= addr.extents[r] <= 1 || addr.strides[r] == row;
            // The partial products divide the element count, which fits,
            // unless an extent is zero; then no offset is ever asked for,
            // so the comparison can stop instead of wrapping.
            match row.checked_mul(addr.extents[r]) {
                Some(next) => row = next,
                None => break,
            }
        }
        addr
    }

    /// The memory offset of linear index `g`, or `None` past the end.
    #[inline]
    pub(crate) fn offset(&self, g: usize) -> Option<usize> {
        if g >= self.size {
            return None;
        }
        if self.identity {
            return Some(g);
        }
        // g < size, so every index is inside the extents and the offset is
        // below the span, which the Mapping checked fits in usize.
        let (mut rest, mut off) = (g, 0);
        for r in (0..self.rank).rev() {
            off += rest % self.extents[r] * self.strides[r];
            rest /= self.extents[r];
        }
        Some(off)
    }

    pub(crate) fn extents(&self) -> &[usize] {
        &self.extents[..self.rank]
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// Whether every linear index is its own memory offset.
    pub(crate) fn is_identity(&self) -> bool {
        self.identity
    }
}

/// A View's elements as a chunk sees them. Copying it copies the pointer:
/// the chunk types around it decide who may write.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Elems<'a, T> {
    pub(crate) ptr: NonNull<T>,
    pub(crate) addr: Addr,
    pub(crate) label: &'a str,
}

impl<T> Elems<'_, T> {
    /// The memory offset of `local` for thread `ids`, or `None` if the map
    /// says invalid or the index is past the View.
    #[inline]
    pub(crate) fn try_offset<M: ChunkMap>(
        &self,
        map: &M,
        local: M::Local,
        ids: &ThreadIds,
    ) -> Option<usize> {
        map.map(local, ids).and_then(|g| self.addr.offset(g))
    }

    /// As `try_offset`, panicking with the label, local index and thread ids.
    #[inline]
    #[track_caller]
    pub(crate) fn offset<M: ChunkMap>(&self, map: &M, local: M::Local, ids: &ThreadIds) -> usize {
        let Some(g) = map.map(local, ids) else {
            invalid_access(self.label, &local, ids, map)
        };
        match self.addr.offset(g) {
            Some(off) => off,
            None => out_of_range(self.label, &local, ids, g, self.addr.extents()),
        }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn invalid_access(label: &str, local: &dyn Debug, ids: &ThreadIds, map: &dyn Debug) -> ! {
    panic!("View \"{label}\": local index {local:?} is not valid for thread {ids} under {map:?}")
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_range(label: &str, local: &dyn Debug, ids: &ThreadIds, g: usize, extents: &[usize]) -> ! {
    // The Mapping checked that this product fits.
    let size: usize = extents.iter().product();
    panic!(
        "View \"{label}\": local index {local:?} of thread {ids} maps to global index {g}, \
         out of bounds for extents {extents:?} ({size} elements)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{LayoutLeft, LayoutRight};

    #[test]
    fn linear_index_is_row_major_whatever_the_layout() {
        let right = Addr::new(&Mapping::compact::<LayoutRight>("r", [2, 3]).unwrap());
        let left = Addr::new(&Mapping::compact::<LayoutLeft>("l", [2, 3]).unwrap());
        assert!(right.identity && !left.identity);
        // element (1, 2) is linear 5; LayoutLeft stores it at 1 + 2*2
        assert_eq!(right.offset(5), Some(5));
        assert_eq!(left.offset(5), Some(5));
        assert_eq!(left.offset(1), Some(2));
        assert_eq!(left.offset(6), None);
    }
}
