//! [`ChunkRef`]: the part of a View that a caller reads through a map.

use super::elems::Elems;
use super::error::ChunkError;
use super::ids::{ScopedIds, ThreadIds};
use super::map::{ChunkMap, Nested};
use super::scope::{Follows, Scope};
use crate::element::Element;
use std::marker::PhantomData;
use std::ops::Index;

/// The elements that map `M` gives caller `ids` in scope `S`, for reading,
/// indexed by local index, at any level. Made by
/// [`ViewBase::chunk`](crate::ViewBase::chunk); it shares the View's borrow,
/// so it is `Copy` and any number may exist.
///
/// ```
/// use granule_views::chunk::{BlockToThread, GridToBlock, MapContinuousLinear, MapLinear, ScopedIds};
/// let x = granule_views::View1::<u32>::from_fn("x", 8, |i| i as u32)?;
/// let block = x.chunk(MapContinuousLinear::new(4), ScopedIds::<GridToBlock>::linear(2, 1)?)?;
/// assert_eq!(block[3], 7);
/// let thread = block.chunk(MapLinear::new(1), ScopedIds::<BlockToThread>::linear(2, 1)?)?;
/// assert_eq!((thread[0], thread[1]), (5, 7));
/// assert!(thread.get(2).is_none());       // local 4 of the block is past its part
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ChunkRef<'a, T: Element, M: ChunkMap, S: Scope> {
    elems: Elems<'a, T>,
    map: M,
    ids: ThreadIds,
    _borrow: PhantomData<(&'a [T], S)>,
}

/// A read-only part of a part: `inner` dividing the part `M` gave a group.
pub type SubChunkRef<'a, T, M, I, S> = ChunkRef<'a, T, Nested<M, I>, S>;

impl<T: Element, M: ChunkMap, S: Scope> Clone for ChunkRef<'_, T, M, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Element, M: ChunkMap, S: Scope> Copy for ChunkRef<'_, T, M, S> {}

// SAFETY: a ChunkRef only reads, like `&[T]` with T: Element (Sync).
unsafe impl<T: Element, M: ChunkMap, S: Scope> Send for ChunkRef<'_, T, M, S> {}
// SAFETY: as for Send.
unsafe impl<T: Element, M: ChunkMap, S: Scope> Sync for ChunkRef<'_, T, M, S> {}

impl<'a, T: Element, M: ChunkMap, S: Scope> ChunkRef<'a, T, M, S> {
    /// `elems` must be readable, with no writer, for 'a (a shared borrow of
    /// the View guarantees it), and `map` checked against `ids`' dims.
    pub(crate) fn new(elems: Elems<'a, T>, map: M, ids: ThreadIds) -> Self {
        ChunkRef {
            elems,
            map,
            ids,
            _borrow: PhantomData,
        }
    }

    /// The caller's ids in scope `S`.
    pub fn ids(&self) -> &ThreadIds {
        &self.ids
    }

    /// The global (row-major linear) index of `local`, if the access is
    /// valid and inside the View.
    pub fn global_index(&self, local: M::Local) -> Option<usize> {
        self.map
            .map(local, &self.ids)
            .filter(|&g| g < self.elems.addr.size())
    }

    /// The element at `local`, or `None` if the access is invalid or past the View.
    pub fn get(&self, local: M::Local) -> Option<&'a T> {
        let off = self.elems.try_offset(&self.map, local, &self.ids)?;
        // SAFETY: in bounds, and the View is shared-borrowed for 'a.
        Some(unsafe { &*self.elems.ptr.as_ptr().add(off) })
    }

    /// The part that `inner` gives thread `ids` (scope `B`, starting where
    /// `S` ends) of this group's part.
    pub fn chunk<B: Follows<S>, I: ChunkMap>(
        &self,
        inner: I,
        ids: ScopedIds<B>,
    ) -> Result<SubChunkRef<'a, T, M, I, B::Full>, ChunkError>
    where
        M: ChunkMap<Local = usize>,
    {
        let map = Nested::new(self.map, self.ids, inner)?;
        map.check(ids.ids().dims())?;
        Ok(ChunkRef::new(self.elems, map, *ids.ids()))
    }
}

impl<T: Element, M: ChunkMap, S: Scope> Index<M::Local> for ChunkRef<'_, T, M, S> {
    type Output = T;

    #[inline]
    #[track_caller]
    fn index(&self, local: M::Local) -> &T {
        let off = self.elems.offset(&self.map, local, &self.ids);
        // SAFETY: `offset` panics unless the element is inside the View,
        // which is shared-borrowed for 'a.
        unsafe { &*self.elems.ptr.as_ptr().add(off) }
    }
}
