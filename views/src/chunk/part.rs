//! [`ChunkMut`]: the part of a View that one group (or thread) owns.

use super::chunked::Chunked;
use super::elems::Elems;
use super::error::ChunkError;
use super::ids::{ScopedIds, ThreadIds};
use super::map::{ChunkMap, Nested};
use super::scope::{Follows, Scope, Thread};
use crate::element::Element;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// The elements that map `M` gives the caller with ids `ids` in scope `S`,
/// indexed by local index.
///
/// Reading works at every level. Writing (`IndexMut`, [`get_mut`](Self::get_mut))
/// needs a thread-level scope (`S::To = Thread`): a block's part is shared by
/// its threads, which must first divide it ([`chunk_mut`](Self::chunk_mut),
/// [`chunked`](Self::chunked)). An access the map marks invalid panics with
/// the label, the local index and the thread ids; so does a global index past
/// the View. Nothing is ever written outside the caller's elements.
///
/// ```
/// use granule_views::chunk::{GridToThread, MapLinear, ScopedIds};
/// use granule_views::View1;
/// let mut y = View1::<i32>::zeros("y", 8)?;
/// for g in 0..4 {
///     let mut part = y.chunk_mut(MapLinear::new(2), ScopedIds::<GridToThread>::linear(4, g)?)?;
///     part[0] = g as i32;                  // elements 2g and 2g + 1
///     part[1] = 10 + g as i32;
///     assert!(part.get(2).is_none());      // 8 + 2g: past the View
/// }
/// assert_eq!(y.to_vec(), [0, 10, 1, 11, 2, 12, 3, 13]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ChunkMut<'a, T: Element, M: ChunkMap, S: Scope> {
    elems: Elems<'a, T>,
    map: M,
    ids: ThreadIds,
    _own: PhantomData<(&'a mut [T], S)>,
}

/// A part of a part: `inner` dividing the part that `M` gave a group.
pub type SubChunkMut<'a, T, M, I, S> = ChunkMut<'a, T, Nested<M, I>, S>;

// SAFETY: a ChunkMut is a unique handle on the elements its map gives its
// ids (like `&mut [T]` for a disjoint set of indices), T: Element is Send.
unsafe impl<T: Element, M: ChunkMap, S: Scope> Send for ChunkMut<'_, T, M, S> {}
// SAFETY: `&ChunkMut` only reads, like `&&mut [T]` with T: Sync.
unsafe impl<T: Element, M: ChunkMap, S: Scope> Sync for ChunkMut<'_, T, M, S> {}

impl<'a, T: Element, M: ChunkMap, S: Scope> ChunkMut<'a, T, M, S> {
    /// # Safety
    /// `map.check(ids.dims())` has passed, `elems` is valid for reads and
    /// writes for `'a`, and for `'a` no one else accesses the elements that
    /// `map` gives `ids`.
    pub(crate) unsafe fn new(elems: Elems<'a, T>, map: M, ids: ThreadIds) -> Self {
        ChunkMut {
            elems,
            map,
            ids,
            _own: PhantomData,
        }
    }

    /// The caller's ids in scope `S`.
    pub fn ids(&self) -> &ThreadIds {
        &self.ids
    }

    /// The map.
    pub fn map(&self) -> &M {
        &self.map
    }

    /// The View's label.
    pub fn label(&self) -> &str {
        self.elems.label
    }

    /// The global (row-major linear) index of `local`, if the access is
    /// valid and inside the View.
    pub fn global_index(&self, local: M::Local) -> Option<usize> {
        self.map
            .map(local, &self.ids)
            .filter(|&g| g < self.elems.addr.size())
    }

    /// The element at `local`, or `None` if the map marks the access
    /// invalid or it falls past the View.
    pub fn get(&self, local: M::Local) -> Option<&T> {
        let off = self.elems.try_offset(&self.map, local, &self.ids)?;
        // SAFETY: the map gives this element to `ids`, which this handle
        // owns for 'a (constructor contract); `&self` only reads.
        Some(unsafe { &*self.elems.ptr.as_ptr().add(off) })
    }

    /// A part of this part, chunked by `inner` among the threads of this
    /// group; see [`Chunked`].
    pub fn chunked<I: ChunkMap>(
        &mut self,
        inner: I,
    ) -> Result<Chunked<'_, T, Nested<M, I>, S>, ChunkError>
    where
        M: ChunkMap<Local = usize>,
    {
        let map = Nested::new(self.map, self.ids, inner)?;
        // SAFETY: `&mut self` lends this part's elements exclusively, and
        // Nested only reaches elements `self.map` gives `self.ids`.
        Ok(unsafe { Chunked::new(self.elems, map) })
    }

    /// The part that `inner` gives thread `ids` (in scope `B`, which starts
    /// where `S` ends) of this group's part.
    ///
    /// ```
    /// use granule_views::chunk::{BlockToThread, GridToBlock, MapContinuousLinear, MapLinear, ScopedIds};
    /// let mut y = granule_views::View1::<u8>::zeros("y", 8)?;
    /// let block = ScopedIds::<GridToBlock>::linear(2, 1)?;            // elements 4..8
    /// let mut team = y.chunk_mut(MapContinuousLinear::new(4), block)?;
    /// for t in 0..2 {
    ///     let ids = ScopedIds::<BlockToThread>::linear(2, t)?;
    ///     let mut mine = team.chunk_mut(MapLinear::new(1), ids)?;    // every other one
    ///     mine[0] = 1 + t as u8;
    ///     mine[1] = 1 + t as u8;
    /// }
    /// assert_eq!(y.to_vec(), [0, 0, 0, 0, 1, 2, 1, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn chunk_mut<B: Follows<S>, I: ChunkMap>(
        &mut self,
        inner: I,
        ids: ScopedIds<B>,
    ) -> Result<SubChunkMut<'_, T, M, I, B::Full>, ChunkError>
    where
        M: ChunkMap<Local = usize>,
    {
        self.chunked(inner)?.into_part(ids)
    }
}

impl<T: Element, M: ChunkMap, S: Scope<To = Thread>> ChunkMut<'_, T, M, S> {
    /// The element at `local` for writing, or `None` if the map marks the
    /// access invalid or it falls past the View. Thread level only.
    pub fn get_mut(&mut self, local: M::Local) -> Option<&mut T> {
        let off = self.elems.try_offset(&self.map, local, &self.ids)?;
        // SAFETY: as in `get`; `&mut self` makes the borrow unique.
        Some(unsafe { &mut *self.elems.ptr.as_ptr().add(off) })
    }
}

impl<T: Element, M: ChunkMap, S: Scope> Index<M::Local> for ChunkMut<'_, T, M, S> {
    type Output = T;

    #[inline]
    #[track_caller]
    fn index(&self, local: M::Local) -> &T {
        let off = self.elems.offset(&self.map, local, &self.ids);
        // SAFETY: `offset` panics unless the map gives the element to `ids`
        // and it lies inside the View; this handle owns it for 'a.
        unsafe { &*self.elems.ptr.as_ptr().add(off) }
    }
}

impl<T: Element, M: ChunkMap, S: Scope<To = Thread>> IndexMut<M::Local> for ChunkMut<'_, T, M, S> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, local: M::Local) -> &mut T {
        let off = self.elems.offset(&self.map, local, &self.ids);
        // SAFETY: as in `index`; `&mut self` makes the borrow unique.
        unsafe { &mut *self.elems.ptr.as_ptr().add(off) }
    }
}
